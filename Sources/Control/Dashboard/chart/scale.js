// Time on a chart's horizontal axis: which stretch of the session is shown, and where a time is.

/**
 * The time shown, in ms: the whole session from `start`, or its last `seconds`; up to now while it
 * is `live`, else a second past `lastEnd`; at least ten seconds.
 */
export function timeWindow({ start, lastEnd, live, seconds = 0, now = Date.now() }) {
  let tEnd = live ? Math.max(now, lastEnd) : lastEnd + 1000;
  const t0 = seconds ? Math.max(start, tEnd - seconds * 1000) : start;
  tEnd = Math.max(tEnd, t0 + 10000);
  return { t0, tEnd, live };
}

/** Times of `view` onto the plot area from `left`, `width` px wide: `x(ms)` in px, `time(px)` in ms. */
export function timeScale(view, { left, width }) {
  const span = (view.tEnd - view.t0) / 1000;
  return {
    t0: view.t0, tEnd: view.tEnd, span, left, width, right: left + width,
    x: t => left + ((t - view.t0) / 1000 / span) * width,
    time: px => view.t0 + ((px - left) / width) * span * 1000,
  };
}
