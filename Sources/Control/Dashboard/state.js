// The page's state, shared by the modules: the sessions, the selected session's records and what
// is shown of them. One object, changed in place; `generation` tells a late async result that the
// session it was for is no longer the one shown.

export const SETTINGS = {
  sessionsPollMs: 2000,
  liveWindowMs: 6000,       // a session is "live" with a request this recent
  maxRecords: 20000,        // kept in memory per session (the chart reads them all)
  maxRows: 1000,            // rendered in the table at once
  reportDebounceMs: 1500,
  reportMaxWaitMs: 5000,
};

export const state = {
  presets: [],
  presetsShown: false,
  sessions: [],
  sessionsLoaded: false,
  sessionInfo: null,         // the selected session as the API lists it
  global: null,              // GET /api/rules
  selected: null,            // session id
  generation: 0,             // bumped on every session switch; stale async results are dropped
  feeding: false,
  records: [],               // sorted by time, then id
  byId: new Map(),
  cursor: null,              // the largest record id seen
  lastArrival: 0,            // Date.now() when the last record arrived
  loadingBacklog: false,
  paused: false,
  pendingWhilePaused: 0,
  openDetail: null,          // record id whose detail row is open
  report: null,
  link: null,                // the selected session's link (api.js `link`), or null before it is read
  player: null,              // the selected session's player timeline from CMCD (api.js `player`), or null
  activity: new Map(),       // session id → {count, changedAt}
  qrURL: null,
  devicesKey: null,
  templatesKey: null,
  setup: undefined,          // GET /api/setup (null: the API has no such route; undefined: not loaded yet)
  devices: [],               // forward-proxy devices, by address
  deviceItems: new Map(),    // address → its list item (kept across refreshes, so a half-typed name survives)
  conn: 'connecting',
  fullTableRender: true,
  tableNewest: null,         // [t, id] of the newest rendered row
};

/** The session's time zero: when it started, or its first record. */
export function sessionT0() {
  const first = state.records[0];
  const started = state.sessionInfo && state.sessionInfo.startedAt;
  if (started && (!first || started <= first.t)) return started;
  return first ? first.t : Date.now();
}
