// Numbers and times as the page writes them.

export function pad(n, width = 2) { return String(n).padStart(width, '0'); }

/** "14:03:07.123" (local time). */
export function clock(ms, withMillis = true) {
  if (!ms) return '—';
  const d = new Date(ms);
  const base = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return withMillis ? `${base}.${pad(d.getMilliseconds(), 3)}` : base;
}

/** "+2.37s", "+1:05", "+1:02:03": seconds since the session started. */
export function relative(seconds) {
  const sign = seconds < 0 ? '-' : '+';
  const abs = Math.abs(seconds);
  if (abs < 60) return `${sign}${abs.toFixed(abs < 10 ? 2 : 1)}s`;
  const m = Math.floor(abs / 60);
  if (m < 60) return `${sign}${m}:${pad(Math.floor(abs - m * 60))}`;
  return `${sign}${Math.floor(m / 60)}:${pad(m % 60)}:${pad(Math.floor(abs % 60))}`;
}

/** A time axis label: "5s", "1:30", "1:00:00". */
export function axisLabel(seconds) {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  const sec = Math.round(seconds - m * 60);
  if (m < 60) return `${m}:${pad(sec)}`;
  return `${Math.floor(m / 60)}:${pad(m % 60)}:${pad(sec)}`;
}

export function ago(ms) {
  const sec = Math.max(0, (Date.now() - ms) / 1000);
  if (sec < 2) return 'just now';
  if (sec < 60) return `${Math.round(sec)} s ago`;
  if (sec < 3600) return `${Math.round(sec / 60)} min ago`;
  return `${(sec / 3600).toFixed(1)} h ago`;
}

export function bytes(n) {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}

export function duration(sec) {
  if (!Number.isFinite(sec)) return '—';
  if (sec < 1) return `${Math.round(sec * 1000)} ms`;
  if (sec < 10) return `${sec.toFixed(2)} s`;
  return `${sec.toFixed(1)} s`;
}

/** A bit rate: "850 bit/s", "400 kbit/s", "1.44 Mbit/s", "12.5 Mbit/s". */
export function bitRate(bps) {
  if (!Number.isFinite(bps)) return '—';
  if (bps < 1000) return `${Math.round(bps)} bit/s`;
  if (bps < 1e6) return `${Math.round(bps / 1e3)} kbit/s`;
  if (bps < 1e9) return `${+(bps / 1e6).toFixed(bps < 1e7 ? 2 : 1)} Mbit/s`;
  return `${+(bps / 1e9).toFixed(2)} Gbit/s`;
}
