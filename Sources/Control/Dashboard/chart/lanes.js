// Lanes: horizontal rows of a chart, stacked from the top, each with a label in the left gutter.
// A lane is {key, label, sub (its title), height, color, major (drawn larger, in its colour)};
// `stackLanes` gives each its `y`.

import { s } from './svg.js';

const LANE_COLORS = ['#3b82f6', '#8b5cf6', '#0d9488', '#0891b2', '#6366f1', '#16a34a', '#a855f7', '#0284c7'];
export const NEUTRAL = '#94a3b8';
const GAP = 4;

/** The colour of a variant's lane, also used for its v/r badge in the request table. */
export function laneColorOf(variant) { return LANE_COLORS[Math.abs(Number(variant)) % LANE_COLORS.length]; }

/** Sets each lane's `y` from `top` down; returns a map by key and the bottom of the last lane. */
export function stackLanes(lanes, top) {
  const byKey = new Map();
  let y = top;
  for (const lane of lanes) {
    lane.y = y;
    y += lane.height + GAP;
    byKey.set(lane.key, lane);
  }
  return { byKey, bottom: y };
}

/** Each lane's background across the plot and its label (with `sub` as the tooltip, under it for major lanes). */
export function drawLanes(svg, lanes, scale) {
  for (const lane of lanes) {
    svg.append(s('rect', { class: 'lane-bg', x: scale.left, y: lane.y, width: scale.width, height: lane.height, rx: 3, 'data-lane': lane.key }));
    const label = s('text', { class: 'lane-label', x: 8, y: lane.y + lane.height / 2 + (lane.major ? -1 : 4), text: lane.label });
    label.append(s('title', { text: lane.sub }));
    svg.append(label);
    if (lane.major) svg.append(s('text', { class: 'lane-sub', x: 8, y: lane.y + lane.height / 2 + 11, text: lane.sub }));
  }
}
