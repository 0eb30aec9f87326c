// The reaction report under the session head: the outcome, the verdict and the findings, in the
// words the control API gives (`words` of GET /api/sessions/{id}/report); each finding links to
// the requests it rests on. Read again a moment after records arrive.

import { api } from './api.js';
import { $, h } from './dom.js';
import { relative } from './format.js';
import { SETTINGS, sessionT0, state } from './state.js';
import { revealRecord } from './table.js';
import { errorText } from './ui.js';

let timer = null;
let firstAsk = 0;

/** Reads the report after `delay` ms of quiet, but no later than SETTINGS.reportMaxWaitMs after the first ask. */
export function scheduleReport(delay = SETTINGS.reportDebounceMs) {
  const now = Date.now();
  if (!firstAsk) firstAsk = now;
  clearTimeout(timer);
  const generation = state.generation;
  timer = setTimeout(() => {
    firstAsk = 0;
    if (generation === state.generation) loadReport(generation);
  }, now - firstAsk > SETTINGS.reportMaxWaitMs ? 0 : delay);
}

export function cancelReport() { clearTimeout(timer); }

export async function loadReport(generation = state.generation) {
  if (!state.selected) return;
  try {
    const report = await api.report(state.selected);
    if (generation !== state.generation) return;
    state.report = report;
    renderReport(report);
  } catch (error) {
    if (generation !== state.generation) return;
    renderReport(null, errorText(error));
  }
}

function recordLinks(ids, limit = 6) {
  const list = (ids || []).slice(0, limit).map(id => h('button', {
    type: 'button', class: 'rec-link', title: `Show request #${id}`, onclick: () => revealRecord(id),
  }, `#${id}`));
  if (ids && ids.length > limit) list.push(h('span', { class: 'muted' }, ` +${ids.length - limit}`));
  return list;
}

/** One finding: its label, its words with when it happened on the session's clock, its requests. */
function findingItem(f, t0) {
  const ms = f.time ? Date.parse(f.time) : NaN;
  const at = Number.isFinite(ms) ? h('span', { class: 'f-at' }, ` at ${relative((ms - t0) / 1000)}`) : null;
  if (f.tone === 'note') return h('li', { class: 'note' }, f.words);
  return h('li', { class: f.tone === 'bad' ? 'bad' : '', dataset: { label: f.label || '' } },
    h('span', { class: 'f-label' }, f.label || ''),
    h('span', { class: 'f-text' }, h('span', { class: 'f-words' }, f.words), at, recordLinks(f.records)));
}

/** The report, or without one why not: `error` (the API's answer) or `message`. */
export function renderReport(report, error, message) {
  const box = $('verdict');
  const findings = $('findings');
  findings.replaceChildren();
  if (!report) {
    box.dataset.outcome = error ? 'error' : 'none';
    $('outcome').textContent = error ? 'report' : 'waiting';
    $('verdict-text').textContent = error ? `No report: ${error}` : message || 'Waiting for the first request. Open a device URL on the player.';
    return;
  }
  const waiting = (report.requests || 0) === 0;
  const words = report.words || { outcome: report.outcome, findings: [] };
  box.dataset.outcome = waiting ? 'none' : report.outcome || 'none';
  $('outcome').textContent = waiting ? 'waiting' : words.outcome;
  $('verdict-text').textContent = waiting ? 'No requests yet. Open a device URL on the player.' : report.verdict || '—';
  const t0 = sessionT0();
  findings.append(...(words.findings || []).map(f => findingItem(f, t0)));
}
