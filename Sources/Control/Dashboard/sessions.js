// The session list in the sidebar, and the scenario for every session (top bar, sidebar, session head).

import { api, ApiError } from './api.js';
import { $, h } from './dom.js';
import { isPolling, isStreaming } from './feed.js';
import { clock } from './format.js';
import { SETTINGS, state } from './state.js';
import { setConn } from './ui.js';

/**
 * Reads the sessions and the rules for every session, and draws the list. False when the control
 * API is unreachable (the badge says so).
 */
export async function loadSessions() {
  let sessions;
  try {
    const [list, rules] = await Promise.all([api.sessions(), api.rules().catch(error => {
      if (error instanceof ApiError && error.status === 0) throw error;
      return null;
    })]);
    sessions = list;
    if (rules) renderGlobal(rules);
  } catch (error) {
    if (error instanceof ApiError && error.status === 0) {
      setConn('offline', 'control API unreachable');
      return false;
    }
    throw error;
  }
  noteActivity(sessions);
  sessions.sort((a, b) => (b.startedAt || 0) - (a.startedAt || 0) || a.id.localeCompare(b.id));
  state.sessions = sessions;
  state.sessionsLoaded = true;
  if (state.conn === 'offline' || state.conn === 'connecting') {
    if (isStreaming()) setConn('live', 'live');
    else if (isPolling()) setConn('polling', 'polling');
    else setConn('connected', 'connected');
  }
  renderSessions();
  return true;
}

/** When each session's request count last changed, for its live dot. */
function noteActivity(sessions) {
  const now = Date.now();
  for (const s of sessions) {
    const seen = state.activity.get(s.id);
    if (!seen) state.activity.set(s.id, { count: s.requestCount, changedAt: state.sessionsLoaded ? now : 0 });
    else if (seen.count !== s.requestCount) state.activity.set(s.id, { count: s.requestCount, changedAt: now });
  }
}

/** The scenario for every session and the rule files, in the top bar, the sidebar and the session head. */
function renderGlobal(rules) {
  state.global = rules;
  const pill = $('global-pill');
  pill.hidden = !rules.scenario;
  pill.textContent = rules.scenario ? `every session: ${rules.scenario}` : '';
  const now = $('global-now');
  now.replaceChildren('Now: ', rules.scenario ? h('b', {}, rules.scenario) : 'no scenario for every session',
    rules.ruleFiles.length ? ` · rule files: ${rules.ruleFiles.join(', ')}` : '');
  const note = $('s-global');
  const parts = [...rules.ruleFiles.map(f => `${f} (rule file)`), ...(rules.scenario ? [rules.scenario] : [])];
  note.hidden = parts.length === 0;
  note.textContent = parts.length ? `+ for every session: ${parts.join(', ')}` : '';
}

export function isLive(session) {
  const now = Date.now();
  if (session.lastRequestAt && now - session.lastRequestAt < SETTINGS.liveWindowMs) return true;
  const seen = state.activity.get(session.id);
  if (seen && now - seen.changedAt < SETTINGS.liveWindowMs) return true;
  return session.id === state.selected && now - state.lastArrival < SETTINGS.liveWindowMs;
}

export function renderSessions() {
  const list = $('sessions');
  list.replaceChildren(...state.sessions.map(s => h('li', {
    class: s.id === state.selected ? 'selected' : '',
    dataset: { session: s.id },
    title: s.startedAt ? `started ${clock(s.startedAt, false)}` : '',
    onclick: () => { location.hash = `session=${encodeURIComponent(s.id)}`; },
  },
  h('span', { class: `live-dot${isLive(s) ? ' live' : ''}` }),
  h('span', { class: 's-name' }, s.id),
  h('span', { class: 's-count' }, s.id === state.selected ? Math.max(s.requestCount, state.records.length) : s.requestCount),
  h('span', { class: `s-scenario${s.scenario ? ' has' : ''}` }, s.scenario || 'no session rules'))));
  $('session-count').textContent = state.sessions.length;
  $('sessions-empty').hidden = state.sessions.length > 0;
}
