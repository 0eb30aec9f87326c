// The session's link on the timeline, one lane under the variants on the same time axis: the
// capacity set (a step line), the throughput delivered (an area), each variant's BANDWIDTH (dotted
// lines in the variant's colour), the time the link was down (shaded) and the responses it stalled
// (flags, hover: the request); hovering the lane tells the figures under the pointer. Read from
// GET /api/sessions/{id}/link (link.js) and the records.

import { laneColorOf } from './chart/lanes.js';
import { flag, span } from './chart/marks.js';
import { drawValueAxis, referenceLine, stepArea, stepLine, valueScale } from './chart/series.js';
import { s } from './chart/svg.js';
import { bitRate, duration, relative } from './format.js';
import { state } from './state.js';

const MAX_STALL_FLAGS = 400;
const LABEL_CHAR = 5.6;   // px per character of a 10 px label, about

/** The link's lane, when the session has a link or a history to show. */
export function linkLane() {
  const link = state.link;
  if (!link || (link.status === 'none' && !link.history.capacity.length)) return null;
  return { key: 'link', label: 'link', sub: 'bit/s', height: 118, major: true, color: '#0f766e' };
}

/** The history as steps of {start, end, value} (ms), one per bucket. */
function steps(history, values, until) {
  const out = [];
  for (let i = 0; i < values.length; i++) {
    const start = history.start + i * history.bucketMs;
    out.push({ start, end: Math.min(start + history.bucketMs, until), value: values[i] });
  }
  return out.filter(p => p.end > p.start);
}

/**
 * Down time as stretches: a run of buckets with time down starts in its first bucket that much
 * before the bucket's end and ends in its last that much after the bucket's start (the history says
 * how long, not when, within a bucket).
 */
export function downSpans(history) {
  const spans = [];
  const { start, bucketMs, down } = history;
  let open = null;
  for (let i = 0; i < down.length; i++) {
    const ms = Math.min(bucketMs, down[i] * 1000);
    const bucket = start + i * bucketMs;
    if (ms <= 0) {
      if (open) spans.push(open);
      open = null;
    } else if (open && open.end >= bucket - 1) {
      // The run goes on into this bucket; when the bucket is not down all through, it ends here.
      open.end = bucket + ms;
      if (ms < bucketMs - 1) { spans.push(open); open = null; }
    } else {
      if (open) spans.push(open);
      open = { start: bucket + bucketMs - ms, end: bucket + bucketMs };
    }
  }
  if (open) spans.push(open);
  return spans;
}

const compactRate = v => bitRate(v).replace(' bit/s', '').replace('kbit/s', 'k').replace('Mbit/s', 'M').replace('Gbit/s', 'G').replace(' ', '');

/** Draws the link lane (`lane` from `linkLane`, stacked) for the records `visible` in the window. */
export function drawLink(svg, scale, lane, visible, now = Date.now()) {
  const link = state.link;
  const history = link.history;
  const hasHistory = history.start !== null && history.capacity.length > 0;
  // The last bucket is the one under way, its figures not whole yet: the capacity set now stands in
  // for its capacity, and its throughput is left out.
  const capacity = hasHistory ? steps(history, history.capacity, now) : [];
  if (capacity.length && link.capacity !== null) capacity[capacity.length - 1].value = link.capacity;
  const delivered = hasHistory ? steps(history, history.delivered, now).slice(0, -1) : [];
  const shown = p => p.end > scale.t0 && p.start < scale.tEnd;
  const highest = Math.max(0, ...capacity.filter(shown).map(p => p.value), ...delivered.filter(shown).map(p => p.value),
    ...link.ladder, link.capacity || 0);
  const values = valueScale(lane, highest * 1.08);
  drawValueAxis(svg, scale, values, compactRate);
  for (const d of hasHistory ? downSpans(history) : []) {
    if (d.end > scale.t0 && d.start < scale.tEnd) svg.append(span(scale, lane, d.start, d.end, 'link-down'));
  }
  const put = el => { if (el) svg.append(el); };
  put(stepArea(scale, values, delivered, { class: 'link-delivered' }));
  // Labels of lines closer than a line of text are set side by side, leftwards from the right end.
  let lastY = null, shift = 0;
  const byValue = link.ladder.map((bandwidth, variant) => ({ bandwidth, variant })).sort((a, b) => a.bandwidth - b.bandwidth);
  for (const { bandwidth, variant } of byValue) {
    const text = `v${variant} ${compactRate(bandwidth)}`;
    const y = values.y(bandwidth);
    shift = lastY !== null && Math.abs(lastY - y) < 14 ? shift + LABEL_CHAR * text.length + 8 : 0;
    lastY = y;
    put(referenceLine(scale, values, bandwidth, text, {
      class: 'link-variant', stroke: laneColorOf(variant), 'data-variant': variant,
    }, shift));
  }
  put(stepLine(scale, values, capacity, { class: 'link-capacity' }));
  // Under the flags: hovering the lane tells the figures of the bucket under the pointer.
  svg.append(s('rect', { class: 'link-probe', x: scale.left, y: lane.y, width: scale.width, height: lane.height }));
  const stalled = visible.filter(r => r.link && r.link.stalled > 0).slice(-MAX_STALL_FLAGS);
  for (const r of stalled) svg.append(flag(scale, lane, r.t, { id: r.id, kind: 'stall' }));
}

/** The history's figures at `time` (ms), for the tooltip: "+1:05 · capacity 2 Mbit/s · delivered 1.4 Mbit/s". */
export function linkWordsAt(time, origin) {
  const history = state.link && state.link.history;
  if (!history || history.start === null || time === null) return null;
  const i = Math.floor((time - history.start) / history.bucketMs);
  if (i < 0 || i >= history.capacity.length) return null;
  const down = history.down[i] || 0;
  const underWay = i === history.capacity.length - 1;
  return [
    `link at ${relative((history.start + i * history.bucketMs - origin) / 1000)}`,
    `capacity set ${bitRate(underWay && state.link.capacity !== null ? state.link.capacity : history.capacity[i])}`,
    underWay ? 'delivered: this 250 ms is under way' : `delivered ${bitRate(history.delivered[i] || 0)}`,
    down > 0 ? `down ${duration(down)} of ${duration(history.bucketMs / 1000)}` : '',
  ].filter(Boolean).join('\n');
}
