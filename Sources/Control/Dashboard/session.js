// The selected session: choosing it (from the URL's #session=…), its head and counts, its feed of
// records, and drawing what the records feed (table, timeline, counts) once per frame.

import { renderDeviceURLs, updateKnownPaths } from './device-urls.js';
import { $, h } from './dom.js';
import { renderTemplates } from './editor.js';
import { closeFeed, onRecordsChanged, openFeed } from './feed.js';
import { ago, clock } from './format.js';
import { failed, faulted, has } from './records.js';
import { cancelReport, renderReport, scheduleReport } from './report.js';
import { loadLink } from './link.js';
import { loadPlayer } from './player.js';
import { renderLinkPanel, showProblems as showLinkProblems } from './link-panel.js';
import { isLive, loadSessions, renderSessions } from './sessions.js';
import { SETTINGS, state } from './state.js';
import { renderTable } from './table.js';
import { renderTimeline } from './timeline.js';
import { setConn, toast } from './ui.js';

let renderQueued = false;

/** Table, timeline and counts, drawn once in the next frame however many records came. */
export function queueRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    renderTable();
    renderTimeline();
    renderMeta();
    updateKnownPaths();
    showLiveDot();
  });
}

onRecordsChanged(({ backlog }) => {
  queueRender();
  if (!backlog) scheduleReport();
});

export function showLiveDot() {
  $('s-live').classList.toggle('live', Date.now() - state.lastArrival < SETTINGS.liveWindowMs);
}

/** Forgets what was shown of the previous session. */
function resetSessionState(id) {
  closeFeed();
  cancelReport();
  state.generation++;
  Object.assign(state, {
    selected: id, feeding: false, records: [], byId: new Map(), cursor: null, lastArrival: 0, openDetail: null,
    report: null, link: null, player: null, pendingWhilePaused: 0, fullTableRender: true, qrURL: null,
  });
  showLinkProblems(null);
  renderLinkPanel();
  $('records-body').replaceChildren();
}

export function selectSession(id) {
  if (id === state.selected) return;
  resetSessionState(id);
  $('welcome').hidden = Boolean(id);
  $('session').hidden = !id;
  renderSessions();
  if (!id) {
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    setConn('connected', 'connected');
    return;
  }
  $('s-id').textContent = id;
  document.title = `${id} · hlschaos`;
  const session = currentSession();
  renderSessionHead(session || { id, urls: [], scenario: null, requestCount: 0, startedAt: null });
  renderTable();
  renderTimeline();
  if (session) {
    renderReport(null);
    startFeeds();
  } else {
    // Not there (yet): a device creates it with its first request; the sessions poll starts the feeds.
    renderReport(null, null, `There is no session “${id}” yet. A device starts it with its first request to its URL.`);
  }
}

export function routeFromHash() {
  const m = /(?:^|[#&])session=([^&]+)/.exec(location.hash);
  selectSession(m ? decodeURIComponent(m[1]) : null);
}

function currentSession() { return state.sessions.find(s => s.id === state.selected) || null; }

/** Backlog, then the live stream, the report, the link and the player timeline, for the selected session. */
function startFeeds() {
  state.feeding = true;
  openFeed(state.generation);
  scheduleReport(0);
  loadLink();
  loadPlayer();
}

/** The sessions poll: the list, then the selected session's head (or it is gone). */
export async function refreshSessions() {
  if (!await loadSessions()) return;
  if (state.selected) {
    const current = currentSession();
    if (current) {
      renderSessionHead(current);
      if (!state.feeding) startFeeds();
    } else if (state.feeding) {
      toast(`Session ${state.selected} is gone (forgotten, or idle too long).`, 'error');
      selectSession(null);
    }
  }
  document.documentElement.dataset.ready = '1';
}

function renderSessionHead(session) {
  state.sessionInfo = session;
  const pill = $('s-scenario');
  pill.textContent = session.scenario || 'no session rules';
  pill.classList.toggle('has', Boolean(session.scenario));
  pill.dataset.scenario = session.scenario || '';
  $('s-live').classList.toggle('live', isLive(session));
  renderMeta();
  renderDeviceURLs(session);
  renderTemplates();
}

/** "started 14:03:07 · 120 requests · 2 faults · 1 failed · segments from v2 · last request 3 s ago". */
export function renderMeta() {
  const session = state.sessionInfo;
  if (!session) return;
  const records = state.records;
  const faults = records.filter(faulted).length;
  const failures = records.filter(failed).length;
  const lastSegment = records.findLast(r => r.kind === 'segment' && has(r.variant));
  const last = records.length ? records[records.length - 1].t : session.lastRequestAt;
  const parts = [];
  if (session.startedAt) parts.push(h('span', {}, 'started ', h('b', {}, clock(session.startedAt, false))));
  parts.push(h('span', {}, h('b', {}, Math.max(session.requestCount || 0, records.length)), ' requests'));
  if (faults) parts.push(h('span', { class: 'warn' }, h('b', {}, faults), ` fault${faults === 1 ? '' : 's'}`));
  if (failures) parts.push(h('span', { class: 'bad' }, h('b', {}, failures), ' failed'));
  if (lastSegment) parts.push(h('span', {}, 'segments from ', h('b', {}, `v${lastSegment.variant}`)));
  if (last) parts.push(h('span', {}, `last request ${ago(last)}`));
  const meta = $('s-meta');
  meta.replaceChildren();
  parts.forEach((p, i) => { if (i) meta.append(' · '); meta.append(p); });
}
