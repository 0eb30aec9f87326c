// The selected session's records as they come in: the backlog in pages, then the live stream
// (Server-Sent Events), or polling when the stream is refused. Records are kept in `state.records`
// in time order; whoever draws them is told through `onRecordsChanged`.

import { api, record as normalizeRecord } from './api.js';
import { SETTINGS, state } from './state.js';
import { errorText, setConn, toast } from './ui.js';

let changed = () => {};
let source = null;            // EventSource
let pollTimer = null;
let streamRetryTimer = null;

/** `fn({backlog})`: records were added (`backlog`: a whole backlog, drawn once at its end). */
export function onRecordsChanged(fn) { changed = fn; }

export const isPolling = () => pollTimer !== null;
export const isStreaming = () => Boolean(source && source.readyState === 1);

/** Backlog, then the live stream, for the selected session. */
export function openFeed(generation) {
  loadBacklog(generation).then(() => {
    if (generation === state.generation) openStream(generation);
  }).catch(error => {
    if (generation !== state.generation) return;
    toast(errorText(error), 'error');
    startPolling(generation);
  });
}

export function closeFeed() {
  if (source) { source.close(); source = null; }
  clearTimeout(streamRetryTimer);
  stopPolling();
}

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
      document.getElementById('record-count').textContent = `${state.records.length}…`;
      if (!records.length || state.cursor === before) return;
    }
  } finally {
    if (generation === state.generation) {
      state.loadingBacklog = false;
      state.fullTableRender = true;
      changed({ backlog: true });
    }
  }
}

/** Puts one record in its place by time (then id); false when it is known or another session's. */
function insert(r) {
  if (r.session && state.selected && r.session !== state.selected) return false;
  const id = Number(r.id);
  if (state.byId.has(id)) return false;
  state.byId.set(id, r);
  const records = state.records;
  const last = records[records.length - 1];
  if (!last || last.t < r.t || (last.t === r.t && Number(last.id) < id)) {
    records.push(r);
  } else {
    let i = records.length - 1;
    while (i >= 0 && (records[i].t > r.t || (records[i].t === r.t && Number(records[i].id) > id))) i--;
    records.splice(i + 1, 0, r);
    state.fullTableRender = true;
  }
  if (state.cursor === null || id > state.cursor) state.cursor = id;
  return true;
}

export function addRecords(list, { backlog = false } = {}) {
  let added = 0;
  for (const raw of list) if (insert(raw.t === undefined ? normalizeRecord(raw) : raw)) added++;
  if (!added) return;
  if (state.records.length > SETTINGS.maxRecords) {
    for (const r of state.records.splice(0, state.records.length - SETTINGS.maxRecords)) state.byId.delete(Number(r.id));
    state.fullTableRender = true;
  }
  if (!backlog) state.lastArrival = Date.now();
  if (backlog) state.fullTableRender = true;
  if (state.paused && !backlog) state.pendingWhilePaused += added;
  if (!state.loadingBacklog) changed({ backlog: false });
}

function openStream(generation) {
  closeFeed();
  if (typeof EventSource === 'undefined') { startPolling(generation); return; }
  const stream = new EventSource(api.streamURL(state.selected, state.cursor));
  source = stream;
  const onRecord = event => {
    if (generation !== state.generation) return;
    try {
      const data = JSON.parse(event.data);
      addRecords(Array.isArray(data) ? data : [data]);
    } catch { /* a comment or keep-alive */ }
  };
  stream.onmessage = onRecord;
  stream.addEventListener('record', onRecord);
  stream.onopen = () => {
    if (generation !== state.generation) return;
    setConn('live', 'live');
    stopPolling();
    // Catch up on anything between the backlog and the stream (a server that ignores `since`).
    api.events(state.selected, state.cursor).then(({ records }) => {
      if (generation === state.generation) addRecords(records);
    }).catch(() => {});
  };
  stream.onerror = () => {
    if (generation !== state.generation) return;
    if (stream.readyState === EventSource.CLOSED) {
      // The server refused the stream (or it is not there): poll, and try the stream again later.
      closeFeed();
      startPolling(generation);
      streamRetryTimer = setTimeout(() => { if (generation === state.generation) openStream(generation); }, 15000);
    } else {
      setConn('polling', 'reconnecting…');
    }
  };
}

function startPolling(generation) {
  stopPolling();
  setConn('polling', 'polling');
  pollTimer = setInterval(async () => {
    if (generation !== state.generation) { stopPolling(); return; }
    try {
      const { records } = await api.events(state.selected, state.cursor);
      if (generation === state.generation) addRecords(records);
    } catch { /* shown by the sessions poll */ }
  }, 1500);
}

function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
}
