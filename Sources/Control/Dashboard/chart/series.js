// Values over time on a lane: a value axis (grid lines labelled inside the plot), a step line,
// a step area down to zero, and horizontal reference lines. A series is a list of steps
// {start, end, value} (ms, and the value held from start to end), as bucketed figures are.

import { s } from './svg.js';

const PAD = 4;   // px kept free above the highest value and below zero

/** Values from 0 to `max` onto the lane's height: `y(value)` in px, with `max` a round number at or above the one asked. */
export function valueScale(lane, max) {
  const top = niceCeiling(max);
  const y0 = lane.y + lane.height - PAD, y1 = lane.y + PAD;
  return { max: top, bottom: y0, top: y1, y: v => y0 - (Math.min(Math.max(v, 0), top) / top) * (y0 - y1) };
}

/** The smallest 1, 2, 2.5 or 5 × 10^n at or above `value` (1 for nothing). */
export function niceCeiling(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map(m => m * power).find(x => x >= value * (1 - 1e-9));
}

/** Grid lines at 0, ½ and the top of `values`, labelled with `label(value)` just inside the plot's left edge. */
export function drawValueAxis(svg, scale, values, label) {
  for (const v of [0, values.max / 2, values.max]) {
    const gy = values.y(v);
    svg.append(s('line', { class: 'grid value-grid', x1: scale.left, x2: scale.right, y1: gy, y2: gy }));
    if (v > 0) svg.append(s('text', { class: 'value-label', x: scale.left + 3, y: gy + 11, text: label(v) }));
  }
}

/** The steps that show in the time window, each cut to it. */
function visible(scale, steps) {
  return steps.filter(p => p.end > scale.t0 && p.start < scale.tEnd)
    .map(p => ({ ...p, start: Math.max(p.start, scale.t0), end: Math.min(p.end, scale.tEnd) }));
}

/** "M x y H x V y H x …": level within each step, vertical between them; a gap in time breaks the line. */
function stepPath(scale, values, steps) {
  let d = '', lastEnd = null;
  for (const p of visible(scale, steps)) {
    const x0 = scale.x(p.start).toFixed(1), x1 = scale.x(p.end).toFixed(1), y = values.y(p.value).toFixed(1);
    d += lastEnd !== null && Math.abs(p.start - lastEnd) < 1 ? `V${y}H${x1}` : `M${x0} ${y}H${x1}`;
    lastEnd = p.end;
  }
  return d;
}

/** A step line through `steps`; `attrs` gives its class and style. Null when nothing of it shows. */
export function stepLine(scale, values, steps, attrs) {
  const d = stepPath(scale, values, steps);
  return d ? s('path', { fill: 'none', ...attrs, d }) : null;
}

/** The area under a step line, down to zero; `attrs` gives its class and style. Null when nothing of it shows. */
export function stepArea(scale, values, steps, attrs) {
  const base = values.y(0).toFixed(1);
  let d = '', run = null;
  const close = () => { if (run) d += `V${base}H${run.x0}Z`; };
  let lastEnd = null;
  for (const p of visible(scale, steps)) {
    const x0 = scale.x(p.start).toFixed(1), x1 = scale.x(p.end).toFixed(1), y = values.y(p.value).toFixed(1);
    if (lastEnd !== null && Math.abs(p.start - lastEnd) < 1) d += `V${y}H${x1}`;
    else { close(); run = { x0 }; d += `M${x0} ${base}V${y}H${x1}`; }
    lastEnd = p.end;
  }
  close();
  return d ? s('path', { ...attrs, d }) : null;
}

/**
 * A horizontal line across the plot at `value`, with `text` at its right end (`shift` px further
 * left, for labels of lines close together); `attrs` gives its class and style.
 */
export function referenceLine(scale, values, value, text, attrs, shift = 0) {
  const gy = values.y(value);
  const g = s('g', { class: 'reference' });
  g.append(s('line', { x1: scale.left, x2: scale.right, y1: gy, y2: gy, ...attrs }));
  if (text) g.append(s('text', { class: 'reference-label', x: scale.right - 3 - shift, y: gy - 3, 'text-anchor': 'end', text }));
  return g;
}
