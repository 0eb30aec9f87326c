// What the page reads off a request record (api.js `record`): failed or faulted, its kind, its
// variant or rendition, its name, what the session's link did to it.

import { duration } from './format.js';

export const failed = r => r.status === null || r.status === undefined || r.status >= 400 || r.ending !== 'complete';
export const faulted = r => r.actions.length > 0;
export const isPlaylist = r => r.kind === 'master' || r.kind === 'media';
export const has = value => value !== null && value !== undefined;

/** The CSS class of a status: s2 for 2xx … s5, sx for none. */
export function statusClass(status) {
  if (!has(status)) return 'sx';
  return `s${Math.min(5, Math.max(1, Math.floor(status / 100)))}`;
}

/** "v2", "v2b @cdn-a", "r1": the variant (backup copy, pathway) or rendition. */
export function vr(r) {
  const backup = r.copy === 'backup' ? 'b' : '';
  const pathway = r.pathway ? ` @${r.pathway}` : '';
  if (has(r.variant)) return `v${r.variant}${backup}${pathway}`;
  if (has(r.rendition)) return `r${r.rendition}${pathway}`;
  return '';
}

/** The last path component without query: "s008.ts", "index.m3u8". */
export function resourceName(path) {
  const bare = String(path || '').split('?')[0];
  const parts = bare.split('/').filter(Boolean);
  return parts.length ? decodeURIComponent(parts[parts.length - 1]) : '/';
}

/** What the link did to a response, in few words: "link: latency 80 ms · waited 1.20 s · stalled 0.40 s". */
export function linkWords(link) {
  const parts = [['latency', link.latency], ['waited', link.waited], ['stalled', link.stalled]]
    .filter(([, seconds]) => seconds > 0).map(([name, seconds]) => `${name} ${duration(seconds)}`);
  return `link: ${parts.length ? parts.join(' · ') : 'no wait'}`;
}
