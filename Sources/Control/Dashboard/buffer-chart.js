// What the player said about its buffer, one lane under the variants on the same time axis (beside
// the link's): the buffer length each request reported through CMCD (`bl`; a step line with a dot
// per report, one per object type when both audio and video are reported), the stalls the player
// reported (flags, and how long when known), the lowest buffer (a line) and when playback started.
// Hovering the lane tells the figures of the report under the pointer. Read from
// GET /api/sessions/{id}/player (player.js); shown only when the session's requests carry CMCD.

import { flag, span } from './chart/marks.js';
import { drawValueAxis, referenceLine, stepLine, valueScale } from './chart/series.js';
import { s } from './chart/svg.js';
import { bitRate, duration, relative } from './format.js';
import { state } from './state.js';

const TYPE_COLORS = { v: '#2563eb', a: '#d97706', av: '#7c3aed' };
const OTHER_COLOR = '#0f766e';
const TYPE_NAMES = { v: 'video', a: 'audio', av: 'muxed', m: 'playlist', i: 'init', media: 'media' };
const HELD_AT_MOST = 30000;   // ms a report's value is drawn held when no other follows sooner
const HELD_LAST = 1000;       // ms the last report of a series is drawn held
const NEAR_PX = 16;           // how close the pointer must be to a report for its figures
const MAX_STALL_FLAGS = 400;

export const bufferColorOf = type => TYPE_COLORS[type] || OTHER_COLOR;

/** The buffer lane, when the session's requests carried CMCD. */
export function bufferLane() {
  const player = state.player;
  if (!player || player.requestsWithCMCD === 0) return null;
  return { key: 'buffer', label: 'buffer', sub: 'CMCD bl, s', height: 96, major: true, color: OTHER_COLOR };
}

/**
 * The page time (ms) of player time 0 (the session's first request): from a point whose record the
 * page holds, else the page's first record.
 */
function originOf(player) {
  for (const p of player.points) {
    const r = state.byId.get(p.record);
    if (r) return r.t - p.time * 1000;
  }
  return state.records.length ? state.records[0].t : Date.now();
}

/** Each point's page time and its buffer per object type: [{point, t, buffers: [[type, ms]]}]. */
function reports(player, origin) {
  return player.points.map(point => {
    const buffers = point.buffers ? Object.entries(point.buffers).filter(([, ms]) => Number.isFinite(ms))
      : point.bufferLength !== null ? [[point.objectType || 'media', point.bufferLength]] : [];
    return { point, t: origin + point.time * 1000, buffers };
  });
}

/** Per object type, the reports as steps {start, end, value, t}: each held until the next one. */
function seriesByType(list) {
  const byType = new Map();
  for (const report of list) {
    for (const [type, ms] of report.buffers) {
      if (!byType.has(type)) byType.set(type, []);
      byType.get(type).push({ t: report.t, value: ms });
    }
  }
  for (const [type, points] of byType) {
    byType.set(type, points.map((p, i) => {
      const next = points[i + 1];
      const end = next && next.t - p.t <= HELD_AT_MOST ? next.t : p.t + HELD_LAST;
      return { start: p.t, end: Math.max(end, p.t + 1), value: p.value, t: p.t };
    }));
  }
  return byType;
}

const secondsLabel = ms => `${+(ms / 1000).toFixed(1)} s`;

/** Draws the buffer lane (`lane` from `bufferLane`, stacked). */
export function drawBuffer(svg, scale, lane) {
  const player = state.player;
  const origin = originOf(player);
  const list = reports(player, origin);
  const byType = seriesByType(list);
  const shown = p => p.end > scale.t0 && p.start < scale.tEnd;
  const highest = Math.max(1000, ...[...byType.values()].flat().filter(shown).map(p => p.value));
  const values = valueScale(lane, highest * 1.08);
  drawValueAxis(svg, scale, values, secondsLabel);
  const put = el => { if (el) svg.append(el); };
  for (const stall of player.saidStalls) {
    if (stall.duration > 0) {
      const start = origin + stall.time * 1000;
      if (start + stall.duration * 1000 > scale.t0 && start < scale.tEnd) svg.append(span(scale, lane, start, start + stall.duration * 1000, 'buffer-stalled'));
    }
  }
  if (player.lowestBuffer) {
    put(referenceLine(scale, values, player.lowestBuffer.bufferLength, `lowest ${secondsLabel(player.lowestBuffer.bufferLength)}`,
      { class: 'buffer-lowest', 'data-ms': player.lowestBuffer.bufferLength }));
  }
  if (player.startup) {
    const x = scale.x(origin + player.startup.seconds * 1000);
    if (x >= scale.left && x <= scale.right) {
      svg.append(s('line', { class: 'buffer-startup', x1: x, x2: x, y1: lane.y + 2, y2: lane.y + lane.height - 2 }));
    }
  }
  for (const [type, steps] of byType) {
    const color = bufferColorOf(type);
    put(stepLine(scale, values, steps, { class: 'buffer-line', stroke: color, 'data-type': type }));
    const dots = steps.filter(p => p.t >= scale.t0 && p.t <= scale.tEnd);
    if (!dots.length) continue;
    const d = dots.map(p => `M${scale.x(p.t).toFixed(1)} ${values.y(p.value).toFixed(1)}m-2.2 0a2.2 2.2 0 1 0 4.4 0a2.2 2.2 0 1 0 -4.4 0`).join('');
    svg.append(s('path', { class: 'buffer-points', d, fill: color, 'data-type': type, 'data-count': dots.length }));
  }
  // Under the flags: hovering the lane tells the report under the pointer.
  svg.append(s('rect', { class: 'buffer-probe', x: scale.left, y: lane.y, width: scale.width, height: lane.height }));
  player.saidStalls.slice(-MAX_STALL_FLAGS).forEach((stall, i) => {
    const t = origin + stall.time * 1000;
    if (t < scale.t0 || t > scale.tEnd) return;
    const mark = flag(scale, lane, t, { id: stall.record, kind: 'buffer-stall' });
    mark.dataset.stall = String(i);
    svg.append(mark);
  });
}

const STALL_SOURCES = {
  bs: 'bs: the buffer ran dry since its previous request',
  sta: 'sta=r: the player said it was rebuffering',
  bsd: 'bsd: the player gave how long it starved',
};

/** A stall flag's words. */
export function stallWords(index, sessionStart) {
  const player = state.player;
  const stall = player && player.saidStalls.slice(-MAX_STALL_FLAGS)[Number(index)];
  if (!stall) return null;
  const t = originOf(player) + stall.time * 1000;
  return [
    `stall the player reported · #${stall.record} at ${relative((t - sessionStart) / 1000)}`,
    STALL_SOURCES[stall.source] || stall.source,
    stall.duration !== null ? `lasted ${duration(stall.duration)}` : '',
    'click: show the request in the table',
  ].filter(Boolean).join('\n');
}

/** The figures of the report nearest the pointer's `time` (ms), else the lane's summary. */
export function bufferWordsAt(time, scale, sessionStart) {
  const player = state.player;
  if (!player || time === null) return null;
  const origin = originOf(player);
  const list = reports(player, origin);
  let near = null;
  for (const report of list) {
    if (!near || Math.abs(report.t - time) < Math.abs(near.t - time)) near = report;
  }
  if (near && Math.abs(scale.x(near.t) - scale.x(time)) <= NEAR_PX) return pointWords(near, sessionStart);
  const lowest = player.lowestBuffer;
  return [
    `buffer the player reported (CMCD bl) · ${player.requestsWithCMCD} requests with CMCD`,
    lowest ? `lowest ${secondsLabel(lowest.bufferLength)} at ${relative((origin + lowest.time * 1000 - sessionStart) / 1000)} (#${lowest.record})` : 'no buffer length reported',
    `${player.saidStalls.length} stall${player.saidStalls.length === 1 ? '' : 's'} reported`,
    player.startup ? `started after ${duration(player.startup.seconds)} (${player.startup.source})` : '',
  ].filter(Boolean).join('\n');
}

function pointWords({ point, t, buffers }, sessionStart) {
  const kbps = k => bitRate(k * 1000);
  const rates = [
    point.measuredThroughput !== null ? `throughput ${kbps(point.measuredThroughput)}` : '',
    point.bitrate !== null ? `bitrate ${kbps(point.bitrate)}${point.topBitrate !== null ? ` of ${kbps(point.topBitrate)}` : ''}` : '',
    point.requestedThroughput !== null ? `asks at most ${kbps(point.requestedThroughput)}` : '',
  ].filter(Boolean).join(' · ');
  const flags = [point.startup ? 'startup' : '', point.bufferStarvation ? 'starved since its previous request' : '', point.state || '']
    .filter(Boolean).join(' · ');
  return [
    `#${point.record} at ${relative((t - sessionStart) / 1000)}${point.objectType ? ` · ${TYPE_NAMES[point.objectType] || point.objectType}` : ''}`,
    buffers.length ? `buffer ${buffers.map(([type, ms]) => `${buffers.length > 1 ? `${TYPE_NAMES[type] || type} ` : ''}${secondsLabel(ms)}`).join(' · ')}` : 'no buffer length',
    rates,
    flags,
  ].filter(Boolean).join('\n');
}
