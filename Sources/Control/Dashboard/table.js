// The request table: newest first, each row with what the player said in it (CMCD), filtered by text, kind and "faults & failures"; new rows put on
// top as they arrive (unless paused); a click opens a request's detail under its row.

import { actionKinds, actionSearchText, actionWords } from './actions.js';
import { laneColorOf } from './chart/lanes.js';
import { cmcdWords } from './cmcd.js';
import { detailFor } from './detail.js';
import { $, h } from './dom.js';
import { bytes, clock, duration, relative } from './format.js';
import { failed, faulted, has, isPlaylist, linkWords, resourceName, statusClass, vr } from './records.js';
import { SETTINGS, sessionT0, state } from './state.js';
import { toast } from './ui.js';

function filters() {
  return {
    text: $('filter-text').value.trim().toLowerCase(),
    kind: $('filter-kind').value,
    faults: $('filter-faults').checked,
  };
}

function passes(r, f) {
  if (f.faults && !faulted(r) && !failed(r)) return false;
  if (f.kind === 'segment' && r.kind !== 'segment') return false;
  if (f.kind === 'playlist' && !isPlaylist(r)) return false;
  if (f.kind === 'other' && (r.kind === 'segment' || isPlaylist(r))) return false;
  if (f.text) {
    const hay = [r.path, r.kind, vr(r), r.status, r.ending, ...r.matchedRules, actionSearchText(r.actions), r.link ? linkWords(r.link) : '',
      r.cmcd ? `${cmcdWords(r.cmcd)} ${r.cmcd.text}` : '']
      .join(' ').toLowerCase();
    if (!hay.includes(f.text)) return false;
  }
  return true;
}

/** The rules column: the deciding rules (response, delay, content), the others matched, what was done, what the link did. */
function rulesCell(r) {
  const d = r.decidingRules;
  const chip = (rule, cls) => {
    const [scn, ...rest] = String(rule).split('/');
    return h('span', { class: `chip ${cls}`, title: `${rule}${cls ? ` (decided the ${cls})` : ' (matched)'}` },
      rest.length ? [h('span', { class: 'scn' }, `${scn}/`), rest.join('/')] : scn);
  };
  const chips = [];
  if (d.response) chips.push(chip(d.response, 'response'));
  if (d.delay && d.delay !== d.response) chips.push(chip(d.delay, 'delay'));
  for (const c of d.content) if (c !== d.response && c !== d.delay) chips.push(chip(c, 'content'));
  for (const m of r.matchedRules) {
    if (m !== d.response && m !== d.delay && !d.content.includes(m)) chips.push(chip(m, ''));
  }
  if (r.actions.length) {
    chips.push(h('span', { class: 'action', dataset: { kinds: actionKinds(r.actions) }, title: actionWords(r.actions) }, actionWords(r.actions)));
  }
  if (r.link) {
    chips.push(h('span', {
      class: `link-times${r.link.stalled > 0 ? ' stalled' : ''}`,
      title: 'What the session\'s link did: latency before the head, time the body waited for capacity, time the link was down while it had bytes to send',
    }, linkWords(r.link)));
  }
  if (r.cmcd) {
    chips.push(h('span', {
      class: `cmcd${r.cmcd.findings.length ? ' findings' : ''}`,
      title: `What the player said (CMCD, ${r.cmcd.carriages.join(', ')}): ${r.cmcd.text}${r.cmcd.findings.length ? `\n${r.cmcd.findings.join('\n')}` : ''}`,
    }, cmcdWords(r.cmcd)));
  }
  return h('td', { class: 'c-rules' }, chips);
}

function rowFor(r, t0, fresh) {
  const classes = ['rec', statusClass(r.status)];
  if (faulted(r)) classes.push('fault');
  if (failed(r)) classes.push('fail');
  if (fresh) classes.push('new');
  if (r.id === state.openDetail) classes.push('selected');
  const v = vr(r);
  const laneColor = has(r.variant) ? laneColorOf(r.variant) : null;
  const msn = has(r.msn) ? `${r.msn}${has(r.part) ? `.${r.part}` : ''}` : '';
  const endClass = r.ending === 'complete' ? 'end-ok' : r.ending === 'clientAbort' ? 'end-odd' : 'end-bad';
  const vrEl = v ? h('span', { class: `vr${laneColor ? '' : ' rend'}` }, v) : '';
  if (laneColor) vrEl.style.background = laneColor;
  return h('tr', { class: classes.join(' '), dataset: { id: r.id, status: r.status ?? '', kind: r.kind ?? '', fault: faulted(r) ? '1' : '' } },
    h('td', { class: 'c-time', title: new Date(r.t).toISOString() },
      h('span', { class: 'clock' }, clock(r.t)), h('span', { class: 'rel' }, relative((r.t - t0) / 1000))),
    h('td', { class: 'c-name', title: r.path }, resourceName(r.path)),
    h('td', { class: 'c-kind' }, r.kind || (r.method !== 'GET' ? r.method : '—')),
    h('td', { class: 'c-vr' }, vrEl),
    h('td', { class: 'c-msn num' }, msn),
    h('td', { class: 'c-status num' }, h('span', { class: `st ${statusClass(r.status)}` }, r.status ?? '—')),
    h('td', { class: 'c-bytes num', title: `${r.bytesSent} bytes` }, bytes(r.bytesSent)),
    h('td', { class: 'c-dur num' }, duration(r.duration)),
    h('td', { class: `c-end ${endClass}` }, r.ending),
    rulesCell(r));
}

/** Only the records newer than the top row, put on top. */
function prependNewer(body, f, t0) {
  const newest = state.tableNewest;
  const isNewer = r => r.t > newest[0] || (r.t === newest[0] && Number(r.id) > newest[1]);
  const records = state.records;
  const fresh = [];
  for (let i = records.length - 1; i >= 0 && isNewer(records[i]); i--) if (passes(records[i], f)) fresh.push(records[i]);
  if (!fresh.length) return;
  const fragment = document.createDocumentFragment();
  for (const r of fresh) fragment.append(rowFor(r, t0, true));
  body.insertBefore(fragment, body.firstChild);
  trimRows(body);
}

/** Every row again, newest first, up to SETTINGS.maxRows. */
function renderAll(body, f, t0) {
  const rows = [];
  let shown = 0, hidden = 0;
  for (let i = state.records.length - 1; i >= 0; i--) {
    const r = state.records[i];
    if (!passes(r, f)) continue;
    if (shown >= SETTINGS.maxRows) { hidden++; continue; }
    rows.push(rowFor(r, t0, false));
    if (r.id === state.openDetail) rows.push(detailFor(r));
    shown++;
  }
  body.replaceChildren(...rows);
  const more = text => body.append(h('tr', {}, h('td', { colspan: 10, class: 'table-more' }, text)));
  if (hidden) more(`${hidden} older requests not shown; filter to find them`);
  if (!shown && state.records.length) more('No request matches the filter.');
}

export function renderTable() {
  const body = $('records-body');
  const total = state.records.length;
  $('record-count').textContent = total;
  $('records-empty').hidden = total > 0;
  if (state.paused && (!state.fullTableRender || body.children.length)) { updatePauseButton(); return; }
  const f = filters();
  const t0 = sessionT0();
  if (!state.fullTableRender && state.tableNewest) prependNewer(body, f, t0);
  else renderAll(body, f, t0);
  const last = state.records[total - 1];
  state.tableNewest = last ? [last.t, Number(last.id)] : null;
  state.fullTableRender = false;
  state.pendingWhilePaused = 0;
  updatePauseButton();
}

/** Draws every row again, paused or not (filters changed, a record is to be shown). */
export function renderTableNow() {
  state.fullTableRender = true;
  const paused = state.paused;
  state.paused = false;
  renderTable();
  state.paused = paused;
}

function trimRows(body) {
  let count = 0;
  for (const row of [...body.children]) {
    if (row.classList.contains('rec')) count++;
    if (count > SETTINGS.maxRows && !row.classList.contains('detail')) row.remove();
  }
}

export function updatePauseButton() {
  const button = $('pause');
  button.setAttribute('aria-pressed', String(state.paused));
  button.textContent = state.paused
    ? (state.pendingWhilePaused ? `Resume · ${state.pendingWhilePaused} new` : 'Resume')
    : 'Pause';
}

export function toggleDetail(id) {
  const body = $('records-body');
  body.querySelectorAll('tr.detail').forEach(d => d.remove());
  body.querySelectorAll('tr.selected').forEach(d => d.classList.remove('selected'));
  if (state.openDetail === id) { state.openDetail = null; return; }
  state.openDetail = id;
  const row = body.querySelector(`tr.rec[data-id="${id}"]`);
  const r = state.byId.get(Number(id));
  if (row && r) {
    row.classList.add('selected');
    row.after(detailFor(r));
  }
}

/** Shows one record in the table: clears filters that hide it, scrolls to it, opens its detail. */
export function revealRecord(id) {
  const r = state.byId.get(Number(id));
  if (!r) { toast(`Request #${id} is not in this page's records.`, 'error'); return; }
  if (!passes(r, filters())) {
    $('filter-text').value = '';
    $('filter-kind').value = '';
    $('filter-faults').checked = false;
  }
  state.openDetail = null;
  renderTableNow();
  toggleDetail(r.id);
  const row = $('records-body').querySelector(`tr.rec[data-id="${r.id}"]`);
  if (row) {
    row.scrollIntoView({ block: 'center', behavior: 'smooth' });
    row.classList.remove('flash');
    void row.offsetWidth;
    row.classList.add('flash');
  }
}
