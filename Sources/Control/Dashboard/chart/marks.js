// What is drawn on a lane: bands (a stretch of time), ticks and rings (one instant each, many in
// one path), flags (a triangle naming one record, for the tooltip) and spans (how long one lasted).

import { s } from './svg.js';

/** A band over [start, end] ms, cut at the window's start; null when it ends before it. */
export function band(scale, lane, start, end, style) {
  if (end < scale.t0) return null;
  const bx = scale.x(Math.max(start, scale.t0));
  return s('rect', {
    class: 'band', x: bx, y: lane.y + 3, width: Math.max(2, scale.x(end) - bx), height: lane.height - 6, rx: 3, ...style,
  });
}

/** One path of vertical ticks at `times`, across the middle of the lane. */
export function ticks(scale, lane, times, color) {
  const y1 = lane.y + (lane.major ? 6 : 5), len = lane.height - (lane.major ? 14 : 10);
  const d = times.map(t => `M${scale.x(t).toFixed(1)} ${y1}v${len}`).join('');
  return s('path', { class: 'ticks', d, stroke: color, 'stroke-width': 1.8, 'stroke-opacity': 0.95 });
}

/** One path of small rings at `times`, on the lane's lower edge. */
export function rings(scale, lane, times, color) {
  const cy = lane.y + lane.height - 3.5;
  const d = times.map(t => `M${scale.x(t).toFixed(1)} ${cy}m-2 0a2 2 0 1 0 4 0a2 2 0 1 0 -4 0`).join('');
  return s('path', { class: 'pl', d, stroke: color });
}

/** A triangle above the lane's middle at `t`, for record `id`; `kind` names its class (`mark-<kind>`). */
export function flag(scale, lane, t, { id, kind }) {
  const mx = scale.x(t);
  const size = lane.major ? 6 : 5;
  return s('path', {
    class: `mark mark-${kind}`, d: `M${(mx - size).toFixed(1)} ${lane.y + 2}h${size * 2}l${-size} ${size * 1.6}z`, 'data-id': id,
  });
}

/** A shaded stretch from `start` to `end` ms over the lane's height: how long something lasted; `kind` names its class (default `window`). */
export function span(scale, lane, start, end, kind = 'window') {
  const x = scale.x(Math.max(start, scale.t0));
  return s('rect', { class: kind, x, y: lane.y, width: Math.max(1, scale.x(Math.min(end, scale.tEnd)) - x), height: lane.height });
}
