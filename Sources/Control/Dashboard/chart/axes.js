// The time axis: grid lines with labels in time since an origin, and the "now" line.

import { axisLabel } from '../format.js';
import { s } from './svg.js';

/** A round step in seconds giving about one label per 90 px. */
export function niceStep(span, px) {
  const target = span / Math.max(2, Math.floor(px / 90));
  const steps = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  return steps.find(x => x >= target) || 3600 * Math.ceil(target / 3600);
}

/** Vertical grid lines from `top` to `bottom`, labelled at `labelY` in seconds since `origin` (ms). */
export function drawTimeAxis(svg, scale, { top, bottom, labelY, origin }) {
  const step = niceStep(scale.span, scale.width);
  const offset = (scale.t0 - origin) / 1000;
  for (let sec = Math.ceil(offset / step - 1e-9) * step; sec <= offset + scale.span + 1e-9; sec += step) {
    const gx = scale.left + ((sec - offset) / scale.span) * scale.width;
    svg.append(s('line', { class: 'grid', x1: gx, x2: gx, y1: top, y2: bottom }));
    svg.append(s('text', { x: gx, y: labelY, 'text-anchor': sec === offset ? 'start' : 'middle', text: axisLabel(sec) }));
  }
}

/** A dashed line at `now`. */
export function drawNowLine(svg, scale, { top, bottom }, now = Date.now()) {
  const nx = scale.x(now);
  svg.append(s('line', { class: 'now', x1: nx, x2: nx, y1: top, y2: bottom }));
}
