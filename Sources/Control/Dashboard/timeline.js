// "Variants over time": one lane per variant (highest on top), per rendition, and one for the
// rest; bands while a variant's segments are fetched, ticks for segments, rings for playlists,
// flags for faults and failures (hover: the request; click: its row in the table); under them, on
// the same time axis, the session's link (link-chart.js) and the buffer the player reported through
// CMCD (buffer-chart.js). Drawn from the parts in chart/.

import { actionWords } from './actions.js';
import { bufferLane, bufferWordsAt, drawBuffer, stallWords } from './buffer-chart.js';
import { drawNowLine, drawTimeAxis } from './chart/axes.js';
import { drawLanes, laneColorOf, NEUTRAL, stackLanes } from './chart/lanes.js';
import { band, flag, rings, span, ticks } from './chart/marks.js';
import { timeScale, timeWindow } from './chart/scale.js';
import { frame } from './chart/svg.js';
import { attachTooltip } from './chart/tooltip.js';
import { $, h } from './dom.js';
import { clock, duration, relative } from './format.js';
import { drawLink, linkLane, linkWordsAt } from './link-chart.js';
import { failed, faulted, has, linkWords, vr } from './records.js';
import { sessionT0, state } from './state.js';
import { revealRecord } from './table.js';

const MARGIN = { left: 78, right: 14, top: 6, axis: 22 };
const QUIET = '#64748b';   // ticks and rings of lanes that are not a variant's
const MAX_FLAGS = 800;

const end = r => r.t + r.duration * 1000;
const laneKeyOf = r => (has(r.variant) ? `v${r.variant}` : has(r.rendition) ? `r${r.rendition}` : 'other');

function median(values) {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Variants (highest index on top), then renditions, then everything else. */
function timelineLanes(records) {
  const variants = [...new Set(records.filter(r => has(r.variant)).map(r => r.variant))].sort((a, b) => b - a);
  const renditions = [...new Set(records.filter(r => !has(r.variant) && has(r.rendition)).map(r => r.rendition))].sort((a, b) => a - b);
  return [
    ...variants.map(v => ({ key: `v${v}`, label: `v${v}`, sub: 'variant', height: 30, color: laneColorOf(v), major: true, variant: v })),
    ...renditions.map(r => ({ key: `r${r}`, label: `r${r}`, sub: 'rendition', height: 22, color: NEUTRAL, rendition: r })),
    { key: 'other', label: 'other', sub: 'master playlist, keys, anything without a variant or rendition', height: 22, color: NEUTRAL },
  ];
}

/** How long a segment usually lasts, and after how long without one a variant counts as idle. */
function segmentPace(segments) {
  const gaps = [];
  for (let i = 1; i < segments.length; i++) gaps.push(segments[i].t - segments[i - 1].t);
  const typical = Math.max(1000, median(gaps));
  return { typical, idle: Math.max(10000, typical * 4) };
}

/** "In use" stretches: from each variant segment request to the next one, merged per variant. */
function variantBands(segments, { typical, idle }, live) {
  const bands = [];
  for (let i = 0; i < segments.length; i++) {
    const r = segments[i];
    const next = segments[i + 1];
    const ownEnd = r.t + Math.max(r.duration * 1000, typical);
    let stop = next ? next.t : (live ? Math.max(ownEnd, Math.min(Date.now(), r.t + idle)) : ownEnd);
    if (next && next.t - r.t > idle) stop = ownEnd;
    const prev = bands[bands.length - 1];
    if (prev && prev.variant === r.variant && r.t - prev.end < 1) prev.end = Math.max(prev.end, stop);
    else bands.push({ variant: r.variant, start: r.t, end: stop });
  }
  return bands;
}

/** A rendition's (audio, subtitles) stretches while its segments are fetched. */
function renditionBands(records, rendition, { typical, idle }) {
  const bands = [];
  for (const r of records) {
    if (r.kind !== 'segment' || r.rendition !== rendition || has(r.variant)) continue;
    const stop = r.t + Math.max(r.duration * 1000, typical);
    const last = bands[bands.length - 1];
    if (last && r.t - last.end <= idle) last.end = Math.max(last.end, stop);
    else bands.push({ start: r.t, end: stop });
  }
  return bands;
}

function drawBands(svg, scale, lanes, records, live) {
  const segments = records.filter(r => r.kind === 'segment' && has(r.variant));
  const pace = segmentPace(segments);
  const put = el => { if (el) svg.append(el); };
  for (const b of variantBands(segments, pace, live)) {
    const lane = lanes.byKey.get(`v${b.variant}`);
    put(band(scale, lane, b.start, b.end, { fill: lane.color, 'fill-opacity': 0.22, stroke: lane.color, 'stroke-opacity': 0.35 }));
  }
  for (const lane of lanes.list.filter(l => has(l.rendition))) {
    for (const b of renditionBands(records, lane.rendition, pace)) put(band(scale, lane, b.start, b.end, { fill: NEUTRAL, 'fill-opacity': 0.2 }));
  }
}

/**
 * Segments (ticks) and playlists (rings), one path per lane; left out when they would merge into a
 * solid block (the bands say it then). Failed requests get a flag instead.
 */
function drawRequests(svg, scale, lanes, visible) {
  if (visible.length > scale.width / 2.5) return;
  const byLane = new Map();
  for (const r of visible) {
    if (failed(r)) continue;
    const key = laneKeyOf(r);
    if (!byLane.has(key)) byLane.set(key, { ticks: [], rings: [] });
    byLane.get(key)[r.kind === 'segment' || r.kind === 'init' ? 'ticks' : 'rings'].push(r.t);
  }
  for (const [key, times] of byLane) {
    const lane = lanes.byKey.get(key);
    const color = lane.major ? lane.color : QUIET;
    if (times.ticks.length) svg.append(ticks(scale, lane, times.ticks, color));
    if (times.rings.length) svg.append(rings(scale, lane, times.rings, color));
  }
}

/** Faults and failures: flags, red when the request failed; a slow failure shows how long it lasted. */
function drawFaults(svg, scale, lanes, visible) {
  const marked = visible.filter(r => faulted(r) || failed(r)).slice(-MAX_FLAGS);
  for (const r of marked) {
    const lane = lanes.byKey.get(laneKeyOf(r));
    svg.append(flag(scale, lane, r.t, { id: r.id, kind: failed(r) ? 'fail' : 'fault' }));
    if (failed(r) && r.duration > 1) svg.append(span(scale, lane, r.t, end(r)));
  }
}

/** A flagged request for the tooltip. */
function describe(r, sessionStart) {
  return [
    `#${r.id}  ${clock(r.t)}  (${relative((r.t - sessionStart) / 1000)})`,
    `${r.kind || 'request'} ${vr(r)}${has(r.msn) ? ` msn ${r.msn}` : ''}`,
    `status ${r.status ?? '—'} · ${r.ending} · ${duration(r.duration)}`,
    actionWords(r.actions),
    r.link ? linkWords(r.link) : '',
    r.decidingRules.response || r.matchedRules[0] || '',
    'click: show in the table',
  ].filter(Boolean).join('\n');
}

export function renderTimeline() {
  const host = $('lane-chart');
  const records = state.records;
  const link = linkLane();
  const buffer = bufferLane();
  document.querySelectorAll('.lanes .lg-link').forEach(el => { el.hidden = !link; });
  document.querySelectorAll('.lanes .lg-buffer').forEach(el => { el.hidden = !buffer; });
  if (!records.length && !link) {
    host.replaceChildren(h('div', { class: 'empty' }, 'The variants the player fetches will show here, with faults marked.'));
    return;
  }
  const width = Math.max(320, host.clientWidth || 800);
  const lastEnd = records.length ? Math.max(...records.slice(-200).map(end)) : Date.now();
  const live = records.length ? Date.now() - state.lastArrival < 30000 && Date.now() - lastEnd < 60000 : true;
  const sessionStart = sessionT0();
  const view = timeWindow({ start: sessionStart, lastEnd, live, seconds: Number($('lane-window').value) || 0 });
  const list = records.length ? timelineLanes(records) : [];
  if (link) list.push(link);
  if (buffer) list.push(buffer);
  const { byKey, bottom } = stackLanes(list, MARGIN.top);
  const lanes = { list, byKey };
  const height = bottom + MARGIN.axis;
  const scale = timeScale(view, { left: MARGIN.left, width: width - MARGIN.left - MARGIN.right });
  const svg = frame(width, height, 'Variants fetched over time');
  const plot = { top: MARGIN.top, bottom: height - MARGIN.axis + 3 };
  drawLanes(svg, list, scale);
  drawTimeAxis(svg, scale, { ...plot, labelY: height - 6, origin: sessionStart });
  drawBands(svg, scale, lanes, records, live);
  const visible = records.filter(r => end(r) >= view.t0);
  drawRequests(svg, scale, lanes, visible);
  drawFaults(svg, scale, lanes, visible);
  if (link) drawLink(svg, scale, link, visible);
  if (buffer) drawBuffer(svg, scale, buffer);
  if (live) drawNowLine(svg, scale, plot);
  const tip = attachTooltip(host, svg, {
    selector: '.mark, .link-probe, .buffer-probe',
    scale,
    describe: (el, time) => {
      if (el.classList.contains('link-probe')) return linkWordsAt(time, sessionStart);
      if (el.classList.contains('buffer-probe')) return bufferWordsAt(time, scale, sessionStart);
      if (el.classList.contains('mark-buffer-stall')) return stallWords(el.dataset.stall, sessionStart);
      const r = state.byId.get(Number(el.dataset.id));
      return r ? describe(r, sessionStart) : null;
    },
    pick: el => { if (el.dataset.id) revealRecord(el.dataset.id); },
  });
  host.replaceChildren(svg, tip);
}
