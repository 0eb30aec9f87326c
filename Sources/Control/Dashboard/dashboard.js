// The hlschaos dashboard: sessions, device URLs with QR codes, live request timeline, variant lanes,
// reaction report, fault controls; with forward mode or an HTTPS listener, the forward proxy's devices
// and the device setup page's QR code. Plain ES2020 module, no framework, nothing fetched from the
// internet. Every call to the control API goes through api.js.

import { api, ApiError, setTokenPrompt, setToken, token, record as normalizeRecord } from './api.js';
import { drawQR } from './qr.js';

const $ = id => document.getElementById(id);

// ---------------------------------------------------------------- settings

const SESSIONS_POLL_MS = 2000;
const LIVE_WINDOW_MS = 6000;        // a session is "live" with a request this recent
const MAX_RECORDS = 20000;          // kept in memory per session (the chart reads them all)
const MAX_ROWS = 1000;              // rendered in the table at once
const REPORT_DEBOUNCE_MS = 1500;
const REPORT_MAX_WAIT_MS = 5000;
const STORE = {
  streamPath: 'hlschaos.streamPath',
  editor: 'hlschaos.editorText',
};

const EMPTY_SCENARIO = `{
  "name": "my-scenario",
  "description": "What this scenario does, in a few words.",
  "rules": [
    {
      "id": "top-msn8-10-503",
      "match": { "kind": "segment", "variant": "highest", "msn": { "from": 8, "to": 10 } },
      "action": { "status": 503, "headers": { "Retry-After": "2" } }
    }
  ]
}
`;

// ---------------------------------------------------------------- state

const state = {
  presets: [],
  sessions: [],
  sessionsLoaded: false,
  selected: null,            // session id
  generation: 0,             // bumped on every session switch; stale async results are dropped
  records: [],               // sorted by time, then id
  byId: new Map(),
  cursor: null,              // the largest record id seen
  lastArrival: 0,            // Date.now() when the last record arrived
  source: null,              // EventSource
  pollTimer: null,
  streamRetryTimer: null,
  paused: false,
  pendingWhilePaused: 0,
  openDetail: null,          // record id whose detail row is open
  report: null,
  reportTimer: null,
  reportFirstAsk: 0,
  activity: new Map(),       // session id → {count, changedAt}
  qrURL: null,
  setup: undefined,          // GET /api/setup (null: the API has no such route; undefined: not loaded yet)
  devices: [],               // forward-proxy devices, by address
  deviceItems: new Map(),    // address → its list item (kept across refreshes, so a half-typed name survives)
  conn: 'connecting',
  renderQueued: false,
  fullTableRender: true,
  tableNewest: null,         // [t, id] of the newest rendered row
  chartQueued: false,
};

// ---------------------------------------------------------------- helpers

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (key === 'text') el.textContent = value; else el.setAttribute(key, value);
  }
  return el;
}

function pad(n, width = 2) { return String(n).padStart(width, '0'); }

function clock(ms, withMillis = true) {
  if (!ms) return '—';
  const d = new Date(ms);
  const base = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return withMillis ? `${base}.${pad(d.getMilliseconds(), 3)}` : base;
}

function relative(seconds) {
  const sign = seconds < 0 ? '-' : '+';
  const abs = Math.abs(seconds);
  if (abs < 60) return `${sign}${abs.toFixed(abs < 10 ? 2 : 1)}s`;
  const m = Math.floor(abs / 60);
  if (m < 60) return `${sign}${m}:${pad(Math.floor(abs - m * 60))}`;
  return `${sign}${Math.floor(m / 60)}:${pad(m % 60)}:${pad(Math.floor(abs % 60))}`;
}

function axisLabel(seconds) {
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  const sec = Math.round(seconds - m * 60);
  if (m < 60) return `${m}:${pad(sec)}`;
  return `${Math.floor(m / 60)}:${pad(m % 60)}:${pad(sec)}`;
}

function ago(ms) {
  const sec = Math.max(0, (Date.now() - ms) / 1000);
  if (sec < 2) return 'just now';
  if (sec < 60) return `${Math.round(sec)} s ago`;
  if (sec < 3600) return `${Math.round(sec / 60)} min ago`;
  return `${(sec / 3600).toFixed(1)} h ago`;
}

function bytes(n) {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}

function duration(sec) {
  if (!Number.isFinite(sec)) return '—';
  if (sec < 1) return `${Math.round(sec * 1000)} ms`;
  if (sec < 10) return `${sec.toFixed(2)} s`;
  return `${sec.toFixed(1)} s`;
}

function seconds(sec) { return `${Number(sec).toFixed(1)} s`; }

function times(n) {
  return ['never', 'once', 'twice', 'three times', 'four times', 'five times'][n] || `${n} times`;
}

const failed = r => r.status === null || r.status === undefined || r.status >= 400 || r.ending !== 'complete';
const faulted = r => r.actions.length > 0;
const isPlaylist = r => r.kind === 'master' || r.kind === 'media';

function statusClass(status) {
  if (status === null || status === undefined) return 'sx';
  return `s${Math.min(5, Math.max(1, Math.floor(status / 100)))}`;
}

function vr(r) {
  const backup = r.copy === 'backup' ? 'b' : '';
  const pathway = r.pathway ? ` @${r.pathway}` : '';
  if (r.variant !== null && r.variant !== undefined) return `v${r.variant}${backup}${pathway}`;
  if (r.rendition !== null && r.rendition !== undefined) return `r${r.rendition}${pathway}`;
  return '';
}

/** The last path component without query: "s008.ts", "index.m3u8". */
function resourceName(path) {
  const bare = String(path || '').split('?')[0];
  const parts = bare.split('/').filter(Boolean);
  return parts.length ? decodeURIComponent(parts[parts.length - 1]) : '/';
}

/** "status(code: 503, headers: […], body: nil)" → "status 503"; plain words stay as they are. */
function shortAction(action) {
  const text = String(action);
  const m = /^(\w+)\((?:\w+:\s*)?("?[^,)"]*"?)/.exec(text);
  return m ? `${m[1]} ${m[2].replace(/"/g, '')}`.trim() : text;
}

/** "segment 8 of variant 2", as ReactionReport.Resource.words says it. */
function resourceWords(res) {
  if (!res) return 'a request';
  const owner = res.variant !== null && res.variant !== undefined ? ` of variant ${res.variant}`
    : res.rendition !== null && res.rendition !== undefined ? ` of rendition ${res.rendition}` : '';
  const backup = res.copy === 'backup' ? ' (backup copy)' : '';
  switch (res.kind) {
    case 'segment':
      if (res.msn === null || res.msn === undefined) return `a segment${owner}${backup}`;
      return `segment ${res.msn}${res.part !== null && res.part !== undefined ? ` part ${res.part}` : ''}${owner}${backup}`;
    case 'media': return `the media playlist${owner}${backup}`;
    case 'master': return 'the master playlist';
    case 'init': return `the init section${owner}${backup}`;
    case 'key': return `the key${owner}${backup}`;
    case 'sessionData': return 'the session data';
    case 'steering': return 'the steering manifest';
    default: return res.path || 'a request';
  }
}

let toastCount = 0;
function toast(message, kind = 'ok') {
  const el = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message);
  $('toasts').append(el);
  if (++toastCount > 4) $('toasts').firstElementChild?.remove();
  setTimeout(() => { el.remove(); toastCount--; }, kind === 'error' ? 8000 : 3500);
}

function errorText(error) {
  if (error instanceof ApiError) {
    const more = error.problems.length ? `: ${error.problems[0]}${error.problems.length > 1 ? ` (+${error.problems.length - 1})` : ''}` : '';
    return `${error.message}${more}`;
  }
  return String(error && error.message ? error.message : error);
}

/** Runs an async handler; failures become a toast, never an unhandled rejection. */
function guard(fn) {
  return async (...args) => {
    try { await fn(...args); } catch (error) { toast(errorText(error), 'error'); }
  };
}

/** A button that needs a second click within 3 s. Returns true on the confirming click. */
function confirmed(button, question) {
  if (button.classList.contains('confirm')) {
    button.classList.remove('confirm');
    button.textContent = button.dataset.label;
    return true;
  }
  button.dataset.label = button.textContent;
  button.textContent = question;
  button.classList.add('confirm', 'danger-outline');
  setTimeout(() => {
    if (!button.classList.contains('confirm')) return;
    button.classList.remove('confirm');
    button.textContent = button.dataset.label;
  }, 3000);
  return false;
}

async function busy(button, fn) {
  button.disabled = true;
  button.classList.add('busy');
  try { return await fn(); } finally { button.disabled = false; button.classList.remove('busy'); }
}

function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Not a secure context (http://192.168…): the old way.
    const area = h('textarea', { readonly: true });
    area.value = text;
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

function storageGet(key, fallback = '') {
  try { return localStorage.getItem(key) ?? fallback; } catch { return fallback; }
}
function storageSet(key, value) {
  try { localStorage.setItem(key, value); } catch { /* private mode */ }
}

function setConn(stateName, label) {
  state.conn = stateName;
  const el = $('conn');
  el.dataset.state = stateName;
  el.querySelector('.conn-label').textContent = label;
}

// ---------------------------------------------------------------- token

function askForToken(reason) {
  const dialog = $('token-dialog');
  $('token-reason').textContent = reason;
  const input = $('token-input');
  input.value = '';
  return new Promise(resolve => {
    const done = () => {
      dialog.removeEventListener('close', done);
      const value = dialog.returnValue === 'ok' ? input.value.trim() : '';
      if (value) $('token-button').hidden = false;
      resolve(value || null);
    };
    dialog.addEventListener('close', done);
    dialog.returnValue = '';
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
}

// ---------------------------------------------------------------- presets

function presetOptions(select, { none = null, keep = true } = {}) {
  const previous = select.value;
  select.replaceChildren();
  if (none !== null) select.append(h('option', { value: '' }, none));
  for (const p of state.presets) {
    select.append(h('option', { value: p.name, title: p.description }, p.name));
  }
  if (keep && [...select.options].some(o => o.value === previous)) select.value = previous;
}

async function loadPresets() {
  state.presets = await api.presets();
  presetOptions($('new-session-preset'), { none: 'no faults' });
  presetOptions($('global-preset'));
  presetOptions($('s-preset'));
  // A sensible first choice: the classic "segment answers 503" preset.
  for (const id of ['s-preset', 'global-preset']) {
    if (!state.presetsShown && state.presets.some(p => p.name === 'status-503')) $(id).value = 'status-503';
  }
  state.presetsShown = true;
  showPresetDescription();
  renderTemplates();
}

function showPresetDescription() {
  const p = state.presets.find(x => x.name === $('s-preset').value);
  $('s-preset-desc').textContent = !p ? ''
    : p.description || (p.ruleCount !== null ? `${p.ruleCount} rule${p.ruleCount === 1 ? '' : 's'}; see rules/README.md for what it does.` : '');
  $('s-preset-desc').title = p && p.reference ? p.reference : '';
}

// ---------------------------------------------------------------- sessions list

async function refreshSessions() {
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
      return;
    }
    throw error;
  }
  const now = Date.now();
  for (const s of sessions) {
    const seen = state.activity.get(s.id);
    if (!seen) state.activity.set(s.id, { count: s.requestCount, changedAt: state.sessionsLoaded ? now : 0 });
    else if (seen.count !== s.requestCount) state.activity.set(s.id, { count: s.requestCount, changedAt: now });
  }
  sessions.sort((a, b) => (b.startedAt || 0) - (a.startedAt || 0) || a.id.localeCompare(b.id));
  state.sessions = sessions;
  state.sessionsLoaded = true;
  if (state.conn === 'offline' || state.conn === 'connecting') {
    if (state.source && state.source.readyState === 1) setConn('live', 'live');
    else if (state.pollTimer) setConn('polling', 'polling');
    else setConn('connected', 'connected');
  }
  renderSessions();
  if (state.selected) {
    const current = sessions.find(s => s.id === state.selected);
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

function isLive(session) {
  const now = Date.now();
  if (session.lastRequestAt && now - session.lastRequestAt < LIVE_WINDOW_MS) return true;
  const seen = state.activity.get(session.id);
  if (seen && now - seen.changedAt < LIVE_WINDOW_MS) return true;
  return session.id === state.selected && now - state.lastArrival < LIVE_WINDOW_MS;
}

function renderSessions() {
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

// ---------------------------------------------------------------- one session

function currentSession() { return state.sessions.find(s => s.id === state.selected) || null; }

function selectSession(id) {
  if (id === state.selected) return;
  closeStream();
  clearTimeout(state.reportTimer);
  state.generation++;
  state.selected = id;
  state.feeding = false;
  state.records = [];
  state.byId = new Map();
  state.cursor = null;
  state.lastArrival = 0;
  state.openDetail = null;
  state.report = null;
  state.pendingWhilePaused = 0;
  state.fullTableRender = true;
  state.qrURL = null;
  $('records-body').replaceChildren();
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
  renderChart();
  if (session) {
    renderReport(null);
    startFeeds();
  } else {
    // Not there (yet): a device creates it with its first request; the sessions poll starts the feeds.
    renderReport(null, null, `There is no session “${id}” yet. A device starts it with its first request to its URL.`);
  }
}

/** Backlog, then the live stream, and the report, for the selected session. */
function startFeeds() {
  state.feeding = true;
  const generation = state.generation;
  loadBacklog(generation).then(() => {
    if (generation === state.generation) openStream(generation);
  }).catch(error => {
    if (generation !== state.generation) return;
    toast(errorText(error), 'error');
    startPolling(generation);
  });
  scheduleReport(0);
}

function renderSessionHead(session) {
  state.sessionInfo = session;
  const pill = $('s-scenario');
  pill.textContent = session.scenario || 'no session rules';
  pill.classList.toggle('has', Boolean(session.scenario));
  pill.dataset.scenario = session.scenario || '';
  $('s-live').classList.toggle('live', isLive(session));
  renderMeta();
  renderDevices(session);
  renderTemplates();
}

function renderMeta() {
  const session = state.sessionInfo;
  if (!session) return;
  const records = state.records;
  const faults = records.filter(faulted).length;
  const failures = records.filter(failed).length;
  let variant = null;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.kind === 'segment' && r.variant !== null && r.variant !== undefined) { variant = r.variant; break; }
  }
  const last = records.length ? records[records.length - 1].t : session.lastRequestAt;
  const parts = [];
  if (session.startedAt) parts.push(h('span', {}, 'started ', h('b', {}, clock(session.startedAt, false))));
  parts.push(h('span', {}, h('b', {}, Math.max(session.requestCount || 0, records.length)), ' requests'));
  if (faults) parts.push(h('span', { class: 'warn' }, h('b', {}, faults), ` fault${faults === 1 ? '' : 's'}`));
  if (failures) parts.push(h('span', { class: 'bad' }, h('b', {}, failures), ' failed'));
  if (variant !== null) parts.push(h('span', {}, 'segments from ', h('b', {}, `v${variant}`)));
  if (last) parts.push(h('span', {}, `last request ${ago(last)}`));
  const meta = $('s-meta');
  meta.replaceChildren();
  parts.forEach((p, i) => { if (i) meta.append(' · '); meta.append(p); });
}

// ---------------------------------------------------------------- device URLs and QR

const isLoopbackURL = url => {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || host.startsWith('127.');
  } catch { return false; }
};

/** prefix + path, percent-encoded where needed (what a device gets by copy or QR code). */
function joinURL(prefix, path) {
  const cleanPath = String(path || '').trim().replace(/^\/+/, '');
  const joined = !cleanPath ? prefix : prefix.endsWith('/') ? prefix + cleanPath : `${prefix}/${cleanPath}`;
  try { return new URL(joined).href; } catch { return joined; }
}

function renderDevices(session) {
  const list = $('device-urls');
  const path = $('stream-path').value.trim();
  const urls = session.urls || [];
  if (!state.qrURL || !urls.includes(state.qrURL)) {
    state.qrURL = urls.find(u => !isLoopbackURL(u)) || urls[0] || null;
  }
  // Drawn again only when something changed (the sessions poll calls this every 2 s).
  const key = JSON.stringify([session.id, urls, path, state.qrURL]);
  if (key === state.devicesKey) return;
  state.devicesKey = key;
  list.replaceChildren(...urls.map(prefix => {
    const full = joinURL(prefix, path);
    const copy = h('button', { type: 'button', class: 'copy', title: 'Copy the URL' }, 'Copy');
    copy.addEventListener('click', async () => {
      const ok = await copyText(full);
      copy.textContent = ok ? 'Copied' : 'Select it';
      copy.classList.toggle('copied', ok);
      setTimeout(() => { copy.textContent = 'Copy'; copy.classList.remove('copied'); }, 1500);
    });
    const qr = h('button', { type: 'button', class: 'ghost', title: 'Show this URL in the QR code' }, 'QR');
    qr.addEventListener('click', () => { state.qrURL = prefix; renderDevices(state.sessionInfo); });
    const tls = prefix.startsWith('https:');
    return h('li', { class: prefix === state.qrURL ? 'in-qr' : '', dataset: { url: full } },
      h('span', { class: 'tag', title: `${isLoopbackURL(prefix) ? 'reachable from this machine only' : 'reachable from the network'}${tls ? ', over HTTPS' : ''}` },
        `${isLoopbackURL(prefix) ? 'local' : 'lan'}${tls ? ' tls' : ''}`),
      h('span', { class: 'url', title: full }, prefix, path ? h('span', { class: 'path' }, path.replace(/^\/+/, '')) : null),
      qr, copy);
  }));
  if (!urls.length) list.append(h('li', {}, h('span', { class: 'url muted' }, 'The control API gave no device URL for this session.')));
  $('device-hint').textContent = path
    ? 'Open one on the device; every request it makes lands in this session.'
    : 'Add the stream path (e.g. vod/ts/master.m3u8) so the URL and QR code open the stream itself.';
  const canvas = $('qr');
  const qrText = state.qrURL ? joinURL(state.qrURL, path) : '';
  if (qrText) {
    canvas.hidden = false;
    drawQR(canvas, qrText, { cssSize: 148, ecl: 'M' });
    canvas.dataset.text = qrText;
    $('qr-caption').textContent = `${isLoopbackURL(state.qrURL) ? 'this machine only' : 'scan with the phone camera'}`;
  } else {
    canvas.hidden = true;
    $('qr-caption').textContent = 'no URL';
  }
}

function knownStreamPaths() {
  const found = new Set();
  for (const r of state.records) {
    if (r.kind !== 'master') continue;
    const m = /^\/s\/[^/]+\/(.*)$/.exec(String(r.path).split('?')[0]);
    if (m && m[1]) found.add(m[1]);
  }
  return [...found];
}

function updateKnownPaths() {
  const paths = knownStreamPaths();
  const list = $('known-paths');
  if (list.children.length !== paths.length) list.replaceChildren(...paths.map(p => h('option', { value: p })));
  const input = $('stream-path');
  if (!input.value && paths.length && document.activeElement !== input) {
    input.value = paths[0];
    storageSet(STORE.streamPath, paths[0]);
    if (state.sessionInfo) renderDevices(state.sessionInfo);
  }
}

// ---------------------------------------------------------------- forward-proxy devices and the setup page

/** Devices reach this proxy by their proxy setting or over HTTPS: the devices and the setup page matter. */
const setupShown = () => Boolean(state.setup && (state.setup.forward || state.setup.httpsPort !== null));

async function loadSetup() {
  state.setup = await api.setup();
  $('devices-block').hidden = !setupShown();
  renderSetup();
  await refreshDevices();
}

/** The setup page's QR code beside the device URLs: its first address reachable from the network. */
function renderSetup() {
  const urls = setupShown() ? state.setup.setupURLs : [];
  const url = urls.find(u => !isLoopbackURL(u)) || urls[0] || null;
  $('setup-card').hidden = !url;
  $('welcome-setup').hidden = !url;
  document.querySelector('.top-grid').classList.toggle('with-setup', Boolean(url));
  const canvas = $('setup-qr');
  if (!url || canvas.dataset.text === url) return;
  drawQR(canvas, url, { cssSize: 120, ecl: 'M' });
  canvas.dataset.text = url;
  for (const link of [$('setup-url'), $('welcome-setup-url')]) {
    link.href = url;
    link.textContent = url;
  }
  $('setup-caption').textContent = isLoopbackURL(url)
    ? 'this machine only: let the proxy listen on the network for devices'
    : 'scan with the device: root certificate, proxy settings';
}

async function refreshDevices() {
  if (!setupShown()) return;
  state.devices = await api.devices();
  renderDeviceList();
}

function renderDeviceList() {
  const list = $('devices');
  const items = state.deviceItems;
  const addresses = new Set(state.devices.map(d => d.address));
  for (const [address, item] of items) {
    if (!addresses.has(address)) { item.li.remove(); items.delete(address); }
  }
  const wanted = state.devices.map(d => {
    let item = items.get(d.address);
    if (!item) { item = deviceItem(d.address); items.set(d.address, item); }
    updateDeviceItem(item, d);
    return item.li;
  });
  // Reordered only when the order changed: moving an item would take the focus from its name box.
  if (wanted.some((li, i) => list.children[i] !== li)) list.replaceChildren(...wanted);
  $('device-count').textContent = state.devices.length;
  $('devices-empty').hidden = state.devices.length > 0;
}

/** A device's list item: its session (opens it), address, last request, and a box to name its session. */
function deviceItem(address) {
  const item = {};
  item.name = h('button', { type: 'button', class: 'd-session', title: 'Open this session' });
  item.name.addEventListener('click', () => { location.hash = `session=${encodeURIComponent(item.device.session)}`; });
  item.seen = h('span', { class: 'd-seen' });
  item.input = h('input', {
    class: 'd-name', name: 'session', placeholder: 'session name, e.g. tv1', pattern: '[A-Za-z0-9._\\-]{1,64}',
    maxlength: '64', required: true, spellcheck: 'false', 'aria-label': `Session name for ${address}`,
    title: "The session this device's requests go to: 1–64 letters, digits, '.', '_' or '-'",
  });
  item.input.addEventListener('input', () => { item.input.dataset.dirty = '1'; });
  const save = h('button', { type: 'submit', class: 'small' }, 'Name');
  item.reset = h('button', { type: 'button', class: 'small ghost d-reset', title: 'Back to the session named after its address' }, 'Reset');
  const form = h('form', { class: 'd-rename row', autocomplete: 'off' }, item.input, save, item.reset);
  form.addEventListener('submit', guard(async event => {
    event.preventDefault();
    const session = item.input.value.trim();
    await busy(save, async () => {
      await api.nameDevice(address, session);
      delete item.input.dataset.dirty;
      toast(`${address} now plays in session ${session}`);
      await refreshDevices();
    });
  }));
  item.reset.addEventListener('click', guard(async () => {
    await busy(item.reset, async () => {
      await api.unnameDevice(address);
      delete item.input.dataset.dirty;
      item.input.value = '';
      toast(`${address} plays in the session of its address again`);
      await refreshDevices();
    });
  }));
  item.li = h('li', { dataset: { address } },
    h('div', { class: 'd-line' }, item.name, item.seen),
    h('div', { class: 'd-address', title: 'The address the proxy sees the device at' }, address),
    form);
  return item;
}

function updateDeviceItem(item, device) {
  item.device = device;
  item.li.dataset.session = device.session;
  item.li.classList.toggle('named', device.named);
  item.li.classList.toggle('selected', device.session === state.selected);
  item.name.textContent = device.session;
  item.seen.textContent = device.lastSeen ? ago(device.lastSeen) : 'not seen yet';
  item.seen.title = device.lastSeen ? `last request at ${clock(device.lastSeen, false)}` : 'named before the device made a request';
  item.reset.hidden = !device.named;
  if (document.activeElement !== item.input && !item.input.dataset.dirty) item.input.value = device.named ? device.session : '';
}

// ---------------------------------------------------------------- records in

async function loadBacklog(generation) {
  // Pages are added without drawing; the page draws once at the end.
  state.loadingBacklog = true;
  try {
    for (let page = 0; page < 200; page++) {
      const { records, next } = await api.events(state.selected, state.cursor);
      if (generation !== state.generation) return;
      const before = state.cursor;
      addRecords(records, { backlog: true });
      if (next !== null && next !== undefined && (state.cursor === null || Number(next) > state.cursor)) state.cursor = Number(next);
      $('record-count').textContent = `${state.records.length}…`;
      if (!records.length || state.cursor === before) return;
    }
  } finally {
    if (generation === state.generation) {
      state.loadingBacklog = false;
      state.fullTableRender = true;
      queueRender();
    }
  }
}

function addRecords(list, { backlog = false } = {}) {
  let added = 0;
  let outOfOrder = false;
  for (const raw of list) {
    const r = raw.t === undefined ? normalizeRecord(raw) : raw;
    if (r.session && state.selected && r.session !== state.selected) continue;
    const id = Number(r.id);
    if (state.byId.has(id)) continue;
    state.byId.set(id, r);
    const records = state.records;
    const last = records[records.length - 1];
    if (!last || last.t < r.t || (last.t === r.t && Number(last.id) < id)) {
      records.push(r);
    } else {
      let i = records.length - 1;
      while (i >= 0 && (records[i].t > r.t || (records[i].t === r.t && Number(records[i].id) > id))) i--;
      records.splice(i + 1, 0, r);
      outOfOrder = true;
    }
    if (state.cursor === null || id > state.cursor) state.cursor = id;
    added++;
  }
  if (!added) return;
  if (state.records.length > MAX_RECORDS) {
    for (const r of state.records.splice(0, state.records.length - MAX_RECORDS)) state.byId.delete(Number(r.id));
    outOfOrder = true;
  }
  if (!backlog) state.lastArrival = Date.now();
  if (outOfOrder || backlog) state.fullTableRender = true;
  if (state.paused && !backlog) state.pendingWhilePaused += added;
  if (!state.loadingBacklog) {
    queueRender();
    scheduleReport();
  }
}

function queueRender() {
  if (state.renderQueued) return;
  state.renderQueued = true;
  requestAnimationFrame(() => {
    state.renderQueued = false;
    renderTable();
    renderChart();
    renderMeta();
    updateKnownPaths();
    $('s-live').classList.toggle('live', Date.now() - state.lastArrival < LIVE_WINDOW_MS);
  });
}

function openStream(generation) {
  closeStream();
  if (typeof EventSource === 'undefined') { startPolling(generation); return; }
  const source = new EventSource(api.streamURL(state.selected, state.cursor));
  state.source = source;
  const onRecord = event => {
    if (generation !== state.generation) return;
    try {
      const data = JSON.parse(event.data);
      addRecords(Array.isArray(data) ? data : [data]);
    } catch { /* a comment or keep-alive */ }
  };
  source.onmessage = onRecord;
  source.addEventListener('record', onRecord);
  source.onopen = () => {
    if (generation !== state.generation) return;
    setConn('live', 'live');
    stopPolling();
    // Catch up on anything between the backlog and the stream (a server that ignores `since`).
    api.events(state.selected, state.cursor).then(({ records }) => {
      if (generation === state.generation) addRecords(records);
    }).catch(() => {});
  };
  source.onerror = () => {
    if (generation !== state.generation) return;
    if (source.readyState === EventSource.CLOSED) {
      // The server refused the stream (or it is not there): poll, and try the stream again later.
      closeStream();
      startPolling(generation);
      state.streamRetryTimer = setTimeout(() => { if (generation === state.generation) openStream(generation); }, 15000);
    } else {
      setConn('polling', 'reconnecting…');
    }
  };
}

function closeStream() {
  if (state.source) { state.source.close(); state.source = null; }
  clearTimeout(state.streamRetryTimer);
  stopPolling();
}

function startPolling(generation) {
  stopPolling();
  setConn('polling', 'polling');
  state.pollTimer = setInterval(async () => {
    if (generation !== state.generation) { stopPolling(); return; }
    try {
      const { records } = await api.events(state.selected, state.cursor);
      if (generation === state.generation) addRecords(records);
    } catch { /* shown by the sessions poll */ }
  }, 1500);
}

function stopPolling() {
  clearInterval(state.pollTimer);
  state.pollTimer = null;
}

// ---------------------------------------------------------------- request table

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
    const hay = [r.path, r.kind, vr(r), r.status, r.ending, ...r.matchedRules, ...r.actions].join(' ').toLowerCase();
    if (!hay.includes(f.text)) return false;
  }
  return true;
}

function rowFor(r, t0, fresh) {
  const classes = ['rec', statusClass(r.status)];
  if (faulted(r)) classes.push('fault');
  if (failed(r)) classes.push('fail');
  if (fresh) classes.push('new');
  if (r.id === state.openDetail) classes.push('selected');
  const v = vr(r);
  const laneColor = r.variant !== null && r.variant !== undefined ? laneColorOf(r.variant) : null;
  const msn = r.msn === null || r.msn === undefined ? '' : `${r.msn}${r.part !== null && r.part !== undefined ? `.${r.part}` : ''}`;
  const endClass = r.ending === 'complete' ? 'end-ok' : r.ending === 'clientAbort' ? 'end-odd' : 'end-bad';
  const rules = [];
  const d = r.decidingRules;
  const chip = (rule, cls) => {
    const [scn, ...rest] = String(rule).split('/');
    return h('span', { class: `chip ${cls}`, title: `${rule}${cls ? ` (decided the ${cls})` : ' (matched)'}` },
      rest.length ? [h('span', { class: 'scn' }, `${scn}/`), rest.join('/')] : scn);
  };
  if (d.response) rules.push(chip(d.response, 'response'));
  if (d.delay && d.delay !== d.response) rules.push(chip(d.delay, 'delay'));
  for (const c of d.content) if (c !== d.response && c !== d.delay) rules.push(chip(c, 'content'));
  for (const m of r.matchedRules) {
    if (m !== d.response && m !== d.delay && !d.content.includes(m)) rules.push(chip(m, ''));
  }
  if (r.actions.length) {
    rules.push(h('span', { class: 'action', title: r.actions.join('\n') }, r.actions.map(shortAction).join(', ')));
  }
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
    h('td', { class: 'c-rules' }, rules));
}

function detailFor(r) {
  const up = r.upstream;
  const row = (label, value) => (value === null || value === undefined || value === '' ? [] : [h('dt', {}, label), h('dd', {}, value)]);
  const timings = up ? ['connect', 'firstByte', 'total'].filter(k => up[k] !== null && up[k] !== undefined)
    .map(k => `${k} ${duration(up[k])}`).join(' · ') : '';
  const headers = (title, list) => h('div', {}, h('h4', {}, title),
    list.length ? list.map(x => h('div', {}, h('b', {}, `${x.name}: `), x.value)) : h('div', { class: 'muted' }, 'none kept'));
  return h('tr', { class: 'detail', dataset: { detailFor: r.id } }, h('td', { colspan: 10 },
    h('dl', {},
      row('request', `#${r.id} ${r.method || 'GET'} ${r.path}`),
      row('client', r.client),
      row('upstream', up ? `${up.status ?? 'no response'} ${up.url}` : 'not asked'),
      row('upstream error', up && up.error),
      row('upstream timing', timings),
      row('matched rules', r.matchedRules.join(', ')),
      row('decided by', [r.decidingRules.response && `response: ${r.decidingRules.response}`,
        r.decidingRules.delay && `delay: ${r.decidingRules.delay}`,
        r.decidingRules.content.length ? `content: ${r.decidingRules.content.join(', ')}` : ''].filter(Boolean).join(' · ')),
      row('actions', r.actions.join(' · ')),
      row('sent', `${r.status ?? 'no status'} · ${r.bytesSent} body bytes · ${r.ending} · ${duration(r.duration)}`)),
    h('div', { class: 'headers' }, headers('request headers', r.requestHeaders), headers('response headers', r.responseHeaders))));
}

function sessionT0() {
  const first = state.records[0];
  const started = state.sessionInfo && state.sessionInfo.startedAt;
  if (started && (!first || started <= first.t)) return started;
  return first ? first.t : Date.now();
}

function renderTable() {
  const body = $('records-body');
  const total = state.records.length;
  $('record-count').textContent = total;
  $('records-empty').hidden = total > 0;
  if (state.paused && !state.fullTableRender) {
    updatePauseButton();
    return;
  }
  if (state.paused && state.fullTableRender && body.children.length) { updatePauseButton(); return; }
  const f = filters();
  const t0 = sessionT0();
  const records = state.records;
  const newest = state.tableNewest;
  const isNewer = r => !newest || r.t > newest[0] || (r.t === newest[0] && Number(r.id) > newest[1]);

  if (!state.fullTableRender && newest) {
    // Only records newer than the top row: put them on top.
    const fresh = [];
    for (let i = records.length - 1; i >= 0 && isNewer(records[i]); i--) if (passes(records[i], f)) fresh.push(records[i]);
    if (fresh.length) {
      const top = body.firstChild;
      const fragment = document.createDocumentFragment();
      for (const r of fresh) fragment.append(rowFor(r, t0, true));
      body.insertBefore(fragment, top);
      trimRows(body);
    }
  } else {
    const rows = [];
    let shown = 0, hidden = 0;
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i];
      if (!passes(r, f)) continue;
      if (shown >= MAX_ROWS) { hidden++; continue; }
      rows.push(rowFor(r, t0, false));
      if (r.id === state.openDetail) rows.push(detailFor(r));
      shown++;
    }
    body.replaceChildren(...rows);
    if (hidden) body.append(h('tr', {}, h('td', { colspan: 10, class: 'table-more' }, `${hidden} older requests not shown; filter to find them`)));
    if (!shown && total) body.append(h('tr', {}, h('td', { colspan: 10, class: 'table-more' }, 'No request matches the filter.')));
  }
  const last = records[records.length - 1];
  state.tableNewest = last ? [last.t, Number(last.id)] : null;
  state.fullTableRender = false;
  state.pendingWhilePaused = 0;
  updatePauseButton();
}

function trimRows(body) {
  let count = 0;
  for (const row of [...body.children]) {
    if (row.classList.contains('rec')) count++;
    if (count > MAX_ROWS && !row.classList.contains('detail')) row.remove();
  }
}

function updatePauseButton() {
  const button = $('pause');
  button.setAttribute('aria-pressed', String(state.paused));
  button.textContent = state.paused
    ? (state.pendingWhilePaused ? `Resume · ${state.pendingWhilePaused} new` : 'Resume')
    : 'Pause';
}

function toggleDetail(id) {
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
function revealRecord(id) {
  const r = state.byId.get(Number(id));
  if (!r) { toast(`Request #${id} is not in this page's records.`, 'error'); return; }
  if (!passes(r, filters())) {
    $('filter-text').value = '';
    $('filter-kind').value = '';
    $('filter-faults').checked = false;
  }
  state.fullTableRender = true;
  const wasPaused = state.paused;
  state.paused = false;
  state.openDetail = null;
  renderTable();
  state.paused = wasPaused;
  toggleDetail(r.id);
  const row = $('records-body').querySelector(`tr.rec[data-id="${r.id}"]`);
  if (row) {
    row.scrollIntoView({ block: 'center', behavior: 'smooth' });
    row.classList.remove('flash');
    void row.offsetWidth;
    row.classList.add('flash');
  }
}

// ---------------------------------------------------------------- lane chart

const LANE_COLORS = ['#3b82f6', '#8b5cf6', '#0d9488', '#0891b2', '#6366f1', '#16a34a', '#a855f7', '#0284c7'];
function laneColorOf(variant) { return LANE_COLORS[Math.abs(Number(variant)) % LANE_COLORS.length]; }

function niceStep(span, px) {
  const target = span / Math.max(2, Math.floor(px / 90));
  const steps = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  return steps.find(x => x >= target) || 3600 * Math.ceil(target / 3600);
}

function median(values) {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function renderChart() {
  const host = $('lane-chart');
  const records = state.records;
  if (!records.length) {
    host.replaceChildren(h('div', { class: 'empty' }, 'The variants the player fetches will show here, with faults marked.'));
    return;
  }
  const width = Math.max(320, host.clientWidth || 800);
  const lastEnd = Math.max(...records.slice(-200).map(r => r.t + r.duration * 1000));
  const live = Date.now() - state.lastArrival < 30000 && Date.now() - lastEnd < 60000;
  const sessionStart = sessionT0();
  const windowSeconds = Number($('lane-window').value) || 0;
  let tEnd = live ? Math.max(Date.now(), lastEnd) : lastEnd + 1000;
  let t0 = windowSeconds ? Math.max(sessionStart, tEnd - windowSeconds * 1000) : sessionStart;
  tEnd = Math.max(tEnd, t0 + 10000);
  const span = (tEnd - t0) / 1000;
  const inView = r => r.t + r.duration * 1000 >= t0;

  // Lanes: variants (highest index on top), then renditions, then everything else.
  const variants = [...new Set(records.filter(r => r.variant !== null && r.variant !== undefined).map(r => r.variant))].sort((a, b) => b - a);
  const renditions = [...new Set(records.filter(r => (r.variant === null || r.variant === undefined) && r.rendition !== null && r.rendition !== undefined).map(r => r.rendition))].sort((a, b) => a - b);
  const lanes = [
    ...variants.map(v => ({ key: `v${v}`, label: `v${v}`, sub: 'variant', height: 30, color: laneColorOf(v), variant: true })),
    ...renditions.map(r => ({ key: `r${r}`, label: `r${r}`, sub: 'rendition', height: 22, color: '#94a3b8' })),
    { key: 'other', label: 'other', sub: 'master playlist, keys, anything without a variant or rendition', height: 22, color: '#94a3b8' },
  ];
  const laneOf = r => (r.variant !== null && r.variant !== undefined ? `v${r.variant}`
    : r.rendition !== null && r.rendition !== undefined ? `r${r.rendition}` : 'other');
  const left = 78, right = 14, top = 6, axis = 22;
  let y = top;
  const byKey = new Map();
  for (const lane of lanes) { lane.y = y; y += lane.height + 4; byKey.set(lane.key, lane); }
  const height = y + axis;
  const plotW = width - left - right;
  const x = t => left + ((t - t0) / 1000 / span) * plotW;

  const svg = s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'Variants fetched over time' });

  // Lane backgrounds and labels.
  for (const lane of lanes) {
    svg.append(s('rect', { class: 'lane-bg', x: left, y: lane.y, width: plotW, height: lane.height, rx: 3 }));
    const label = s('text', { class: 'lane-label', x: 8, y: lane.y + lane.height / 2 + (lane.variant ? -1 : 4), text: lane.label });
    label.append(s('title', { text: lane.sub }));
    svg.append(label);
    if (lane.variant) svg.append(s('text', { class: 'lane-sub', x: 8, y: lane.y + lane.height / 2 + 11, text: lane.sub }));
  }

  // Time grid, in seconds since the session started.
  const step = niceStep(span, plotW);
  const offset = (t0 - sessionStart) / 1000;
  for (let sec = Math.ceil(offset / step - 1e-9) * step; sec <= offset + span + 1e-9; sec += step) {
    const gx = left + ((sec - offset) / span) * plotW;
    svg.append(s('line', { class: 'grid', x1: gx, x2: gx, y1: top, y2: height - axis + 3 }));
    svg.append(s('text', { x: gx, y: height - 6, 'text-anchor': sec === offset ? 'start' : 'middle', text: axisLabel(sec) }));
  }

  // "In use" bands: from each variant segment request to the next one, merged per variant.
  const segs = records.filter(r => r.kind === 'segment' && r.variant !== null && r.variant !== undefined);
  const gaps = [];
  for (let i = 1; i < segs.length; i++) gaps.push(segs[i].t - segs[i - 1].t);
  const typical = Math.max(1000, median(gaps));
  const idle = Math.max(10000, typical * 4);
  const bands = [];
  for (let i = 0; i < segs.length; i++) {
    const r = segs[i];
    const next = segs[i + 1];
    const ownEnd = r.t + Math.max(r.duration * 1000, typical);
    let end = next ? next.t : (live ? Math.max(ownEnd, Math.min(Date.now(), r.t + idle)) : ownEnd);
    if (next && next.t - r.t > idle) end = ownEnd;
    const prev = bands[bands.length - 1];
    if (prev && prev.variant === r.variant && r.t - prev.end < 1) prev.end = Math.max(prev.end, end);
    else bands.push({ variant: r.variant, start: r.t, end });
  }
  for (const band of bands) {
    if (band.end < t0) continue;
    const lane = byKey.get(`v${band.variant}`);
    const bx = x(Math.max(band.start, t0));
    const bw = Math.max(2, x(band.end) - bx);
    svg.append(s('rect', {
      x: bx, y: lane.y + 3, width: bw, height: lane.height - 6, rx: 3,
      fill: lane.color, 'fill-opacity': 0.22, stroke: lane.color, 'stroke-opacity': 0.35,
    }));
  }

  // Renditions (audio, subtitles): a grey band while their segments are fetched.
  for (const rendition of renditions) {
    const lane = byKey.get(`r${rendition}`);
    let band = null;
    const draw = b => {
      if (!b || b.end < t0) return;
      const bx = x(Math.max(b.start, t0));
      svg.append(s('rect', { x: bx, y: lane.y + 3, width: Math.max(2, x(b.end) - bx), height: lane.height - 6, rx: 3,
        fill: '#94a3b8', 'fill-opacity': 0.2 }));
    };
    for (const r of records) {
      if (r.kind !== 'segment' || r.rendition !== rendition || (r.variant !== null && r.variant !== undefined)) continue;
      const end = r.t + Math.max(r.duration * 1000, typical);
      if (band && r.t - band.end <= idle) band.end = Math.max(band.end, end);
      else { draw(band); band = { start: r.t, end }; }
    }
    draw(band);
  }

  // Ticks (segments) and dots (playlists), one path per lane; left out when they would merge into
  // a solid block (the bands say it then).
  const ticks = new Map(), dots = new Map();
  const visible = records.filter(inView);
  const dense = visible.length > plotW / 2.5;
  for (const r of dense ? [] : visible) {
    if (failed(r)) continue;
    const lane = byKey.get(laneOf(r));
    const px = x(r.t).toFixed(1);
    if (r.kind === 'segment' || r.kind === 'init') {
      const y1 = lane.y + (lane.variant ? 6 : 5), len = lane.height - (lane.variant ? 14 : 10);
      ticks.set(lane.key, (ticks.get(lane.key) || '') + `M${px} ${y1}v${len}`);
    } else {
      // Playlists: a small ring on the lane's lower edge, under the segment ticks.
      const cy = lane.y + lane.height - 3.5;
      dots.set(lane.key, (dots.get(lane.key) || '') + `M${px} ${cy}m-2 0a2 2 0 1 0 4 0a2 2 0 1 0 -4 0`);
    }
  }
  for (const [key, d] of ticks) {
    const lane = byKey.get(key);
    svg.append(s('path', { d, stroke: lane.variant ? lane.color : '#64748b', 'stroke-width': 1.8, 'stroke-opacity': 0.95 }));
  }
  for (const [key, d] of dots) {
    const lane = byKey.get(key);
    svg.append(s('path', { d, class: 'pl', stroke: lane.variant ? lane.color : '#64748b' }));
  }

  // Faults and failures: triangles above the lane's middle, red when the request failed.
  const marks = visible.filter(r => faulted(r) || failed(r));
  const shown = marks.length > 800 ? marks.slice(-800) : marks;
  for (const r of shown) {
    const lane = byKey.get(laneOf(r));
    const mx = x(r.t);
    const my = lane.y + 2;
    const size = lane.variant ? 6 : 5;
    const mark = s('path', {
      class: `mark ${failed(r) ? 'mark-fail' : 'mark-fault'}`,
      d: `M${(mx - size).toFixed(1)} ${my}h${size * 2}l${-size} ${size * 1.6}z`,
      'data-id': r.id,
    });
    svg.append(mark);
    if (failed(r) && r.duration > 1) {
      // A hang or a slow failure: show how long it lasted.
      svg.append(s('rect', { class: 'window', x: mx, y: lane.y, width: Math.max(1, x(r.t + r.duration * 1000) - mx), height: lane.height }));
    }
  }

  if (live) {
    const nx = x(Date.now());
    svg.append(s('line', { class: 'now', x1: nx, x2: nx, y1: top, y2: height - axis + 3 }));
  }

  const tip = h('div', { class: 'lane-tip', hidden: true });
  svg.addEventListener('mousemove', event => {
    const target = event.target.closest ? event.target.closest('.mark') : null;
    if (!target) { tip.hidden = true; return; }
    const r = state.byId.get(Number(target.dataset.id));
    if (!r) return;
    tip.textContent = [
      `#${r.id}  ${clock(r.t)}  (${relative((r.t - sessionStart) / 1000)})`,
      `${r.kind || 'request'} ${vr(r)}${r.msn !== null && r.msn !== undefined ? ` msn ${r.msn}` : ''}`,
      `status ${r.status ?? '—'} · ${r.ending} · ${duration(r.duration)}`,
      r.actions.length ? r.actions.map(shortAction).join(', ') : '',
      r.decidingRules.response || r.matchedRules[0] || '',
      'click: show in the table',
    ].filter(Boolean).join('\n');
    const box = host.getBoundingClientRect();
    tip.hidden = false;
    tip.style.left = `${Math.min(event.clientX - box.left + 12, box.width - 240)}px`;
    tip.style.top = `${event.clientY - box.top + 14}px`;
  });
  svg.addEventListener('mouseleave', () => { tip.hidden = true; });
  svg.addEventListener('click', event => {
    const target = event.target.closest ? event.target.closest('.mark') : null;
    if (target) revealRecord(target.dataset.id);
  });
  host.replaceChildren(svg, tip);
}

// ---------------------------------------------------------------- reaction report

function scheduleReport(delay = REPORT_DEBOUNCE_MS) {
  const now = Date.now();
  if (!state.reportFirstAsk) state.reportFirstAsk = now;
  const waited = now - state.reportFirstAsk;
  clearTimeout(state.reportTimer);
  const generation = state.generation;
  state.reportTimer = setTimeout(() => {
    state.reportFirstAsk = 0;
    if (generation === state.generation) loadReport(generation);
  }, waited > REPORT_MAX_WAIT_MS ? 0 : delay);
}

async function loadReport(generation) {
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

const OUTCOME_WORDS = {
  clean: 'clean', continued: 'kept playing', recovered: 'recovered', unrecovered: 'still failing', gaveUp: 'gave up',
};

function recLinks(ids, limit = 6) {
  const list = (ids || []).slice(0, limit).map(id => h('button', {
    type: 'button', class: 'rec-link', title: `Show request #${id}`, onclick: () => revealRecord(id),
  }, `#${id}`));
  if (ids && ids.length > limit) list.push(h('span', { class: 'muted' }, ` +${ids.length - limit}`));
  return list;
}

function renderReport(report, error, message) {
  const box = $('verdict');
  const findings = $('findings');
  findings.replaceChildren();
  if (!report) {
    box.dataset.outcome = error ? 'error' : 'none';
    $('outcome').textContent = error ? 'report' : 'waiting';
    $('verdict-text').textContent = error ? `No report: ${error}` : message || 'Waiting for the first request. Open a device URL on the player.';
    return;
  }
  const outcome = report.outcome || 'none';
  box.dataset.outcome = (report.requests || 0) === 0 ? 'none' : outcome;
  $('outcome').textContent = (report.requests || 0) === 0 ? 'waiting' : (OUTCOME_WORDS[outcome] || outcome);
  $('verdict-text').textContent = (report.requests || 0) === 0
    ? 'No requests yet. Open a device URL on the player.'
    : report.verdict || '—';

  const t0 = sessionT0();
  const at = time => {
    const ms = Date.parse(time);
    return Number.isFinite(ms) ? ` at ${relative((ms - t0) / 1000)}` : '';
  };
  const item = (label, text, ids, cls = '') => findings.append(h('li', { class: cls },
    h('span', { class: 'f-label' }, label), h('span', { class: 'f-text' }, text, recLinks(ids))));

  const incident = i => {
    const what = i.status !== null && i.status !== undefined ? `${i.status}` : 'no response';
    const words = (i.actions || []).map(shortAction).filter(a => a !== `status ${i.status}`);
    const actions = words.length ? ` · ${words.join(', ')}` : '';
    return `${resourceWords(i.resource)} → ${what}${i.ending && i.ending !== 'complete' ? ` (${i.ending})` : ''}${actions}${at(i.time)}`;
  };
  if (report.firstFault) item('first fault', incident(report.firstFault), [report.firstFault.record]);
  if (report.firstFailure && (!report.firstFault || report.firstFailure.record !== report.firstFault.record)) {
    item('first failure', incident(report.firstFailure), [report.firstFailure.record]);
  }
  if (report.firstReaction) {
    const r = report.firstReaction;
    const kind = r.kind === 'gaveUp' ? 'gave up' : r.kind;
    item('first reaction', `${kind} after ${seconds(r.after)}`, r.records);
  }
  const switches = report.switches || [];
  if (switches.length) {
    const arrow = sw => (sw.direction === 'down' ? '↓' : sw.direction === 'up' ? '↑' : '→');
    const shown = switches.length > 6 ? [...switches.slice(0, 3), null, ...switches.slice(-2)] : switches;
    findings.append(h('li', { class: 'wide' }, h('span', { class: 'f-label' }, `${switches.length} switch${switches.length === 1 ? '' : 'es'}`),
      h('span', { class: 'f-text' }, shown.map(sw => (sw === null
        ? h('span', { class: 'muted sw' }, '…')
        : h('button', {
          type: 'button', class: `sw sw-${sw.direction}`, title: `${sw.direction} from v${sw.from} to v${sw.to}${at(sw.time)}${sw.basis === 'index' ? ' (up/down by variant index)' : ''}`,
          onclick: () => revealRecord(sw.records[sw.records.length - 1]),
        }, `${arrow(sw)} v${sw.to}`, h('span', { class: 'muted' }, at(sw.time).replace(' at ', ' '))))))));
  }
  const retries = report.retries || [];
  for (const rs of retries.slice(0, 3)) {
    const gaps = rs.spacing || [];
    const spacing = gaps.length
      ? (Math.max(...gaps) - Math.min(...gaps) < 0.2 ? `, ${(gaps.reduce((a, b) => a + b, 0) / gaps.length).toFixed(1)} s apart`
        : `, ${Math.min(...gaps).toFixed(1)}–${Math.max(...gaps).toFixed(1)} s apart`) : '';
    const statuses = (rs.statuses || []).map(x => x ?? '—').join(' ');
    item('retried', `${resourceWords(rs.resource)} ${times(rs.retries)}${spacing} [${statuses}] → ${rs.succeeded ? 'succeeded' : 'never succeeded'}`, rs.records);
  }
  if (retries.length > 3) item('', `… and ${retries.length - 3} more retried resource${retries.length === 4 ? '' : 's'}`, []);
  for (const f of report.failovers || []) {
    item('failover', `variant ${f.variant} to its backup copy after ${seconds(f.after)}${f.succeeded ? '' : ' (failed too)'}`, f.records);
  }
  for (const mv of (report.steering && report.steering.moves) || []) {
    item('pathway', `moved from ${mv.from} to ${mv.to}${at(mv.time)}`, mv.records);
  }
  if (report.steering && (report.steering.reloads || []).length) {
    const st = report.steering;
    item('steering', `manifest reloaded ${times(st.reloads.length)}${st.medianInterval ? `, every ${seconds(st.medianInterval)}` : ''}${st.failedReloads ? ` (${st.failedReloads} failed)` : ''}`,
      st.reloads.slice(-5), st.failedReloads ? 'bad' : '');
  }
  for (const sk of report.skipped || []) {
    item('skipped', `${sk.from === sk.to ? `segment ${sk.from}` : `segments ${sk.from}–${sk.to}`}${sk.variant !== null && sk.variant !== undefined ? ` (then v${sk.variant})` : ''}${at(sk.time)}`, sk.records);
  }
  const judged = (report.reloads || []).filter(rl => rl.pace !== 'notJudged');
  if (judged.length) {
    const paceWords = { withinBounds: '✓', tooFast: 'too fast', tooSlow: 'too slow' };
    const bad = judged.some(rl => rl.pace !== 'withinBounds');
    item('reloads', judged.map(rl => {
      const owner = rl.variant !== null && rl.variant !== undefined ? `v${rl.variant}` : rl.rendition !== null && rl.rendition !== undefined ? `r${rl.rendition}` : 'playlist';
      return `${owner} every ${seconds(rl.medianInterval)} ${paceWords[rl.pace] || rl.pace}`;
    }).join(' · ') + ` (target ${seconds(judged[0].targetDuration || 0)})`, [], bad ? 'bad' : '');
  }
  if (report.stop) {
    const st = report.stop;
    const kind = { gaveUp: 'gave up', finished: 'finished', stopped: 'stopped' }[st.kind] || st.kind;
    item('stop', `${kind}${st.lastSegment ? ` after ${resourceWords(st.lastSegment)}` : ''}${at(st.time)}, idle ${seconds(st.idle)}`, st.records);
  }
  if ((report.failures || []).length) item('failed', `${report.failures.length} request${report.failures.length === 1 ? '' : 's'}`, report.failures, '');
  for (const note of report.notes || []) findings.append(h('li', { class: 'note' }, note));
}

// ---------------------------------------------------------------- scenario editor

function renderTemplates() {
  const select = $('editor-template');
  const session = state.sessionInfo;
  const key = JSON.stringify([session && session.scenarioJSON, state.presets.filter(p => p.scenario).map(p => p.name)]);
  if (key === state.templatesKey) return;
  state.templatesKey = key;
  const previous = select.value;
  select.replaceChildren(h('option', { value: '' }, '—'), h('option', { value: 'empty' }, 'empty template'));
  if (session && session.scenarioJSON) select.append(h('option', { value: 'current' }, `this session's scenario (${session.scenario})`));
  const withJSON = state.presets.filter(p => p.scenario);
  if (withJSON.length) {
    const group = h('optgroup', { label: 'presets' });
    for (const p of withJSON) group.append(h('option', { value: `preset:${p.name}` }, p.name));
    select.append(group);
  }
  if ([...select.options].some(o => o.value === previous)) select.value = previous;
}

function useTemplate(value) {
  let text = null;
  if (value === 'empty') text = EMPTY_SCENARIO;
  else if (value === 'current' && state.sessionInfo && state.sessionInfo.scenarioJSON) text = `${JSON.stringify(state.sessionInfo.scenarioJSON, null, 2)}\n`;
  else if (value.startsWith('preset:')) {
    const p = state.presets.find(x => x.name === value.slice(7));
    if (p && p.scenario) {
      const copy = JSON.parse(JSON.stringify(p.scenario));
      for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key];
      text = `${JSON.stringify(copy, null, 2)}\n`;
    }
  }
  if (text === null) return;
  $('editor-text').value = text;
  storageSet(STORE.editor, text);
  showProblems(null);
}

function showProblems(problems, { title = null, ok = null } = {}) {
  const box = $('editor-problems');
  box.replaceChildren();
  if (ok) { box.append(h('ul', {}, h('li', { class: 'ok' }, ok))); return; }
  if (!problems || !problems.length) {
    box.append(h('p', { class: 'muted' }, 'The format is in ', h('code', {}, 'rules/README.md'),
      ': a name and a list of rules, each with an ', h('code', {}, 'id'), ', a ', h('code', {}, 'match'),
      ' and an ', h('code', {}, 'action'), '.'));
    return;
  }
  if (title) box.append(h('p', { class: 'title' }, title));
  box.append(h('ul', {}, problems.map(p => h('li', {}, p))));
}

/** Parses the editor; on a JSON error shows it, selects the place and returns null. */
function editorScenario() {
  const area = $('editor-text');
  const text = area.value;
  try {
    const value = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      showProblems(['A scenario is a JSON object: {"name": …, "rules": […]}'], { title: 'Not a scenario' });
      return null;
    }
    return value;
  } catch (error) {
    const message = String(error.message || error);
    let position = null;
    const pos = /position (\d+)/.exec(message);
    const lineCol = /line (\d+) column (\d+)/.exec(message);
    if (pos) position = Number(pos[1]);
    else if (lineCol) {
      const lines = text.split('\n');
      position = lines.slice(0, Number(lineCol[1]) - 1).reduce((n, l) => n + l.length + 1, 0) + Number(lineCol[2]) - 1;
    }
    let where = '';
    if (position !== null) {
      const before = text.slice(0, position).split('\n');
      where = `line ${before.length}, column ${before[before.length - 1].length + 1}: `;
      area.focus();
      area.setSelectionRange(position, Math.min(text.length, position + 1));
    }
    showProblems([`${where}${message.replace(/^JSON\.parse: /, '')}`], { title: 'Not valid JSON' });
    return null;
  }
}

async function applyEditor(everySession) {
  const scenario = editorScenario();
  if (!scenario) return;
  const target = everySession ? 'every session' : state.selected;
  try {
    if (everySession) await api.setGlobalRules(scenario);
    else await api.setSessionRules(state.selected, scenario);
    showProblems(null, { ok: `Applied “${scenario.name || 'scenario'}” to ${target}.` });
    toast(`Applied ${scenario.name || 'the scenario'} to ${target}`);
    await refreshSessions();
  } catch (error) {
    if (error instanceof ApiError && error.problems.length) {
      showProblems(error.problems, { title: error.message || 'The scenario has problems' });
    } else {
      showProblems([errorText(error)], { title: 'Not applied' });
    }
  }
}

// ---------------------------------------------------------------- wiring

function routeFromHash() {
  const m = /(?:^|[#&])session=([^&]+)/.exec(location.hash);
  const id = m ? decodeURIComponent(m[1]) : null;
  selectSession(id);
}

function wire() {
  setTokenPrompt(askForToken);
  $('token-button').hidden = !token();
  $('token-button').addEventListener('click', guard(async () => {
    const fresh = await askForToken('Enter the control token.');
    if (fresh) { setToken(fresh); location.reload(); }
  }));

  $('new-session').addEventListener('submit', guard(async event => {
    event.preventDefault();
    const id = $('new-session-id').value.trim();
    const preset = $('new-session-preset').value;
    const button = event.target.querySelector('button[type="submit"]');
    await busy(button, async () => {
      try {
        await api.createSession(id, preset || undefined);
        toast(`Session ${id} created${preset ? ` with ${preset}` : ''}`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 409) throw error;
        toast(`Session ${id} already exists`);
      }
      $('new-session-id').value = '';
      await refreshSessions();
      location.hash = `session=${encodeURIComponent(id)}`;
    });
  }));

  $('s-preset').addEventListener('change', showPresetDescription);
  $('s-apply').addEventListener('click', guard(async () => {
    const preset = $('s-preset').value;
    if (!preset || !state.selected) return;
    await busy($('s-apply'), async () => {
      await api.setSessionRules(state.selected, preset);
      toast(`Applied ${preset} to ${state.selected}`);
      await refreshSessions();
    });
  }));
  $('s-clear').addEventListener('click', guard(async () => {
    if (!state.selected) return;
    await busy($('s-clear'), async () => {
      await api.clearSessionRules(state.selected);
      toast(`Cleared the rules of ${state.selected}`);
      await refreshSessions();
    });
  }));
  $('s-delete').addEventListener('click', guard(async () => {
    const button = $('s-delete');
    if (!state.selected || !confirmed(button, 'Click again to forget')) return;
    const id = state.selected;
    await api.deleteSession(id);
    state.activity.delete(id);
    selectSession(null);
    toast(`Forgot session ${id}`);
    await refreshSessions();
  }));
  $('s-har').addEventListener('click', guard(async () => {
    if (!state.selected) return;
    download(`${state.selected}.har`, await api.har(state.selected));
  }));
  $('s-report-json').addEventListener('click', guard(async () => {
    if (!state.selected) return;
    const report = await api.report(state.selected);
    download(`${state.selected}-report.json`, new Blob([JSON.stringify(report, null, 2)], { type: 'application/json' }));
  }));
  $('report-refresh').addEventListener('click', () => loadReport(state.generation));

  $('global-apply').addEventListener('click', guard(async () => {
    const preset = $('global-preset').value;
    if (!preset) return;
    await busy($('global-apply'), async () => {
      await api.setGlobalRules(preset);
      toast(`Applied ${preset} to every session`);
      await refreshSessions();
    });
  }));
  $('global-clear').addEventListener('click', guard(async () => {
    const button = $('global-clear');
    if (!confirmed(button, 'Click again: clear for every session')) return;
    await api.clearGlobalRules();
    toast('Cleared the rules for every session');
    await refreshSessions();
  }));
  $('global-pill').addEventListener('click', () => {
    const every = $('every');
    every.open = true;
    every.scrollIntoView({ block: 'nearest' });
    $('global-clear').focus();
  });

  // Editor.
  const area = $('editor-text');
  area.value = storageGet(STORE.editor, '') || EMPTY_SCENARIO;
  $('editor-toggle').addEventListener('click', () => {
    const editor = $('editor');
    editor.hidden = !editor.hidden;
    $('editor-toggle').setAttribute('aria-expanded', String(!editor.hidden));
    $('editor-toggle').textContent = editor.hidden ? 'Edit scenario…' : 'Hide editor';
    if (!editor.hidden) area.focus();
  });
  $('editor-template').addEventListener('change', event => { useTemplate(event.target.value); event.target.value = ''; });
  area.addEventListener('input', () => storageSet(STORE.editor, area.value));
  area.addEventListener('keydown', event => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      applyEditor(false);
    } else if (event.key === 'Tab' && !event.shiftKey) {
      event.preventDefault();
      area.setRangeText('  ', area.selectionStart, area.selectionEnd, 'end');
    }
  });
  $('editor-apply').addEventListener('click', () => applyEditor(false));
  $('editor-apply-all').addEventListener('click', () => applyEditor(true));

  // Device URLs.
  const pathInput = $('stream-path');
  pathInput.value = storageGet(STORE.streamPath, '');
  pathInput.addEventListener('input', () => {
    storageSet(STORE.streamPath, pathInput.value.trim());
    if (state.sessionInfo) renderDevices(state.sessionInfo);
  });
  for (const [button, canvas] of [['qr-open', 'qr'], ['setup-qr-open', 'setup-qr']]) {
    $(button).addEventListener('click', () => {
      const text = $(canvas).dataset.text;
      if (!text) return;
      drawQR($('qr-big'), text, { cssSize: 360, ecl: 'M' });
      $('qr-big-caption').textContent = text;
      $('qr-dialog').showModal();
    });
  }

  // Table.
  for (const id of ['filter-text', 'filter-kind', 'filter-faults']) {
    $(id).addEventListener('input', () => { state.fullTableRender = true; const p = state.paused; state.paused = false; renderTable(); state.paused = p; });
  }
  $('pause').addEventListener('click', () => {
    state.paused = !state.paused;
    if (!state.paused) { state.fullTableRender = true; renderTable(); }
    updatePauseButton();
  });
  $('records-body').addEventListener('click', event => {
    if (event.target.closest('a, button')) return;
    const row = event.target.closest('tr.rec');
    if (row) toggleDetail(Number(row.dataset.id));
  });
  document.addEventListener('keydown', event => {
    if (event.key === '/' && !/input|textarea|select/i.test(document.activeElement.tagName)) {
      event.preventDefault();
      $('filter-text').focus();
    }
  });

  const laneWindow = $('lane-window');
  laneWindow.value = storageGet('hlschaos.laneWindow', '0');
  if (!laneWindow.value) laneWindow.value = '0';
  laneWindow.addEventListener('change', () => { storageSet('hlschaos.laneWindow', laneWindow.value); renderChart(); });

  window.addEventListener('hashchange', routeFromHash);
  // Redraw the lanes when their width changes (not their height, which the drawing itself sets).
  let laneWidth = 0;
  new ResizeObserver(entries => {
    const width = Math.round(entries[0].contentRect.width);
    if (width === laneWidth) return;
    laneWidth = width;
    requestAnimationFrame(() => { if (state.selected) renderChart(); });
  }).observe($('lane-chart'));
}

async function start() {
  wire();
  try {
    await Promise.all([loadPresets(), refreshSessions(), loadSetup()]);
  } catch (error) {
    toast(errorText(error), 'error');
    document.documentElement.dataset.ready = '1';
  }
  routeFromHash();
  if (!state.selected && state.sessions.length) {
    // Open on the session most likely wanted: the one with the latest activity, else the newest.
    const best = [...state.sessions].sort((a, b) => (b.lastRequestAt || 0) - (a.lastRequestAt || 0)
      || (isLive(b) ? 1 : 0) - (isLive(a) ? 1 : 0) || (b.startedAt || 0) - (a.startedAt || 0))[0];
    history.replaceState(null, '', `#session=${encodeURIComponent(best.id)}`);
    routeFromHash();
  }
  setInterval(() => {
    refreshSessions().catch(error => toast(errorText(error), 'error'));
    (state.setup === undefined ? loadSetup() : refreshDevices()).catch(error => {
      if (!(error instanceof ApiError && error.status === 0)) toast(errorText(error), 'error');
    });
  }, SESSIONS_POLL_MS);
  // Keeps "last request … ago", the live dots and the chart's right edge moving.
  setInterval(() => {
    if (!state.selected) return;
    renderMeta();
    $('s-live').classList.toggle('live', Date.now() - state.lastArrival < LIVE_WINDOW_MS);
    if (Date.now() - state.lastArrival < 30000) renderChart();
  }, 1000);
}

start();
