// Every call the dashboard makes to the control API, and the shapes it expects back. When the API
// changes, this file is the one place to adapt: the rest of the page only sees the normalized
// objects described at each function.
//
// Same origin, JSON. With a control token configured, every call carries
// `Authorization: Bearer <token>`; on a 401 the page asks for the token once (see `setTokenPrompt`)
// and keeps it in sessionStorage for this tab. EventSource cannot send headers, so the live stream
// passes it as `?token=`.

import { action } from './actions.js';

const TOKEN_KEY = 'hlschaos.controlToken';
const enc = encodeURIComponent;

export class ApiError extends Error {
  /** `problems`: each in words ("$.rate: …"); `raw`: each as the API gave it ({path, message}), for a form to place. */
  constructor(status, message, problems = [], raw = []) {
    super(message);
    this.status = status;
    this.problems = problems;
    this.raw = raw;
  }
}

let promptForToken = null;
let pendingPrompt = null;

/** `fn(reason) → Promise<string | null>`: asks the person for a token (null: they cancelled). */
export function setTokenPrompt(fn) { promptForToken = fn; }

export function token() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

export function setToken(value) {
  try {
    if (value) sessionStorage.setItem(TOKEN_KEY, value); else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage disabled: the token lives as long as this page */ }
}

async function askToken(refused) {
  if (!promptForToken) return null;
  // Calls that fail together share one prompt.
  pendingPrompt ??= promptForToken(refused
    ? 'The control API refused that token.'
    : 'This control API needs a token (--control-token).').finally(() => { pendingPrompt = null; });
  return pendingPrompt;
}

async function call(method, path, body, { raw = false } = {}) {
  for (let attempt = 0; ; attempt++) {
    const sent = token();
    const headers = { Accept: raw ? '*/*' : 'application/json' };
    if (sent) headers.Authorization = `Bearer ${sent}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(path, {
        method, headers, cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ApiError(0, `The control API is unreachable (${error.message || error})`);
    }
    if (response.status === 401 && attempt < 3) {
      const fresh = await askToken(Boolean(sent));
      if (fresh === null || fresh === undefined) throw new ApiError(401, 'A control token is needed.');
      setToken(fresh.trim());
      continue;
    }
    if (raw && response.ok) return response;
    const text = await response.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch { data = null; }
    }
    if (!response.ok) {
      const message = (data && (data.error || data.message || data.reason)) || text.trim() || `${response.status} ${response.statusText}`;
      const raw = data && Array.isArray(data.problems) ? data.problems : [];
      throw new ApiError(response.status, String(message), raw.map(problemText), raw);
    }
    return data;
  }
}

/** A problem as `hlschaos validate` prints it, without the file: "$.rules[0].match.msm: unknown key …". */
function problemText(p) {
  if (typeof p === 'string') return p;
  if (!p || typeof p !== 'object') return String(p);
  const where = p.path && p.path !== '$' ? `${p.path}: ` : '';
  return `${where}${p.message ?? JSON.stringify(p)}`;
}

function list(data, ...keys) {
  if (Array.isArray(data)) return data;
  for (const key of keys) if (data && Array.isArray(data[key])) return data[key];
  return [];
}

function date(value) {
  if (value === null || value === undefined || value === '') return null;
  const ms = typeof value === 'number' ? (value > 1e12 ? value : value * 1000) : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

function scenarioName(value) {
  if (!value) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(scenarioName).filter(Boolean).join(' + ') || null;
  return value.name || null;
}

/**
 * A preset: {name, description, reference, ruleCount, scenario} — `scenario` is the preset's JSON when the API
 * gives it (`scenario`, `json` or a `rules` list on the item), else null.
 */
function preset(raw) {
  if (typeof raw === 'string') return { name: raw, description: '', reference: '', scenario: null };
  let scenario = raw.scenario && typeof raw.scenario === 'object' ? raw.scenario
    : raw.json && typeof raw.json === 'object' ? raw.json
    : Array.isArray(raw.rules) ? raw : null;
  if (scenario) {
    // Only the keys a scenario file has.
    const { name = raw.name, description, reference, expected, rules } = scenario;
    scenario = { name, description, reference, expected, rules };
  }
  const ruleCount = Number.isInteger(raw.rules) ? raw.rules : scenario && Array.isArray(scenario.rules) ? scenario.rules.length : null;
  return { name: String(raw.name ?? raw.id ?? ''), description: raw.description || '', reference: raw.reference || '', ruleCount, scenario };
}

/**
 * A session: {id, startedAt (ms), requestCount, scenario (name or null), scenarioJSON (object or
 * null), urls: [device URL prefix], lastRequestAt (ms or null)}.
 */
function session(raw) {
  const urls = list(raw.urls ?? raw.deviceURLs ?? raw.deviceUrls ?? raw.devices)
    .map(u => (typeof u === 'string' ? u : u && (u.url || u.href)))
    .filter(Boolean);
  const scenario = raw.scenario ?? raw.rules ?? null;
  return {
    id: String(raw.id ?? raw.session ?? ''),
    startedAt: date(raw.startedAt ?? raw.started ?? raw.createdAt),
    requestCount: Number(raw.requestCount ?? raw.requests ?? 0) || 0,
    scenario: scenarioName(scenario),
    scenarioJSON: scenario && typeof scenario === 'object' && Array.isArray(scenario.rules) ? scenario : null,
    urls,
    lastRequestAt: date(raw.lastRequestAt ?? raw.lastSeen ?? raw.lastRequest),
  };
}

/** A device of the forward proxy: {address, session, named, lastSeen (ms or null)}. */
function device(raw) {
  return {
    address: String(raw.address ?? ''),
    session: String(raw.session ?? ''),
    named: Boolean(raw.named),
    lastSeen: date(raw.lastSeen),
  };
}

/** A request record as RequestRecord.swift encodes it, plus `t`: its time in ms; `actions` read by actions.js. */
export function record(raw) {
  const r = raw || {};
  r.t = date(r.time) ?? 0;
  r.matchedRules = Array.isArray(r.matchedRules) ? r.matchedRules : [];
  r.actions = Array.isArray(r.actions) ? r.actions.map(action) : [];
  r.decidingRules = r.decidingRules || {};
  r.decidingRules.content = Array.isArray(r.decidingRules.content) ? r.decidingRules.content : [];
  r.bytesSent = Number(r.bytesSent) || 0;
  r.duration = Number(r.duration) || 0;
  r.ending = r.ending || 'complete';
  r.requestHeaders = Array.isArray(r.requestHeaders) ? r.requestHeaders : [];
  r.responseHeaders = Array.isArray(r.responseHeaders) ? r.responseHeaders : [];
  // What the session's link did to the response, in seconds; null when it went over no link.
  r.link = r.link && typeof r.link === 'object'
    ? { latency: Number(r.link.latency) || 0, waited: Number(r.link.waited) || 0, stalled: Number(r.link.stalled) || 0 }
    : null;
  // The CMCD the request carried (docs/cmcd.md): {text (the keys as one dictionary), carriages, findings}; null when none.
  r.cmcd = r.cmcd && typeof r.cmcd === 'object' && typeof r.cmcd.text === 'string'
    ? { text: r.cmcd.text, carriages: list(r.cmcd.carriages), findings: list(r.cmcd.findings) }
    : null;
  return r;
}

const numbers = value => (Array.isArray(value) ? value.map(Number).map(n => (Number.isFinite(n) ? n : 0)) : []);

/**
 * A session's link (GET /api/sessions/{id}/link): {status ("none" | "waitingForLadder" | "running"),
 * from, own, problem, profile, capacity (bit/s now or null), latency ({base, jitter, newConnection} s
 * or null), badState, duringOutage, flows, ladder: [BANDWIDTH by variant], history: {start (ms or
 * null), bucketMs, capacity: [bit/s], delivered: [bit/s], down: [s]} (oldest bucket first)}.
 */
function link(raw) {
  const r = raw || {};
  const history = r.history || {};
  return {
    status: r.status || 'none',
    from: r.from || null,
    own: Boolean(r.own),
    problem: r.problem || null,
    profile: r.profile || null,
    capacity: Number.isFinite(r.capacity) ? r.capacity : null,
    latency: r.latency || null,
    badState: r.badState || null,
    duringOutage: r.duringOutage || null,
    flows: Number(r.flows) || 0,
    ladder: numbers(r.ladder),
    history: {
      start: date(history.start),
      bucketMs: (Number(history.bucketSeconds) || 0.25) * 1000,
      capacity: numbers(history.capacity),
      delivered: numbers(history.delivered),
      down: numbers(history.down),
    },
  };
}

const finite = value => (Number.isFinite(value) ? value : null);

/**
 * A session's player timeline (GET /api/sessions/{id}/player, from the CMCD its requests carried):
 * {requestsWithCMCD, points: [{record, time (s since the session's first request), objectType,
 * bufferLength (ms), buffers ({type: ms} or null), measuredThroughput, bitrate, topBitrate (kbps),
 * startup, bufferStarvation, state}], stalls: [{record, time, duration (s or null), source}] (every way
 * each was said), saidStalls (the same, one per stall),
 * lowestBuffer ({record, time, bufferLength} or null), startup ({seconds, source} or null)}.
 */
function player(raw) {
  const r = raw || {};
  const stalls = xs => list(xs).filter(x => x && typeof x === 'object')
    .map(x => ({ record: Number(x.record), time: Number(x.time) || 0, duration: finite(x.duration), source: x.source || 'bs' }));
  const point = p => ({
    record: Number(p.record), time: Number(p.time) || 0, objectType: p.objectType || null,
    bufferLength: finite(p.bufferLength), buffers: p.buffers && typeof p.buffers === 'object' ? p.buffers : null,
    measuredThroughput: finite(p.measuredThroughput), requestedThroughput: finite(p.requestedThroughput),
    bitrate: finite(p.bitrate), topBitrate: finite(p.topBitrate),
    startup: Boolean(p.startup), bufferStarvation: Boolean(p.bufferStarvation), state: p.state || null,
  });
  const lowest = r.lowestBuffer;
  return {
    requestsWithCMCD: Number(r.requestsWithCMCD) || 0,
    points: list(r.points).filter(p => p && typeof p === 'object').map(point),
    pointsLeftOut: Number(r.pointsLeftOut) || 0,
    stalls: stalls(r.stalls),
    saidStalls: stalls(r.saidStalls),
    lowestBuffer: lowest && Number.isFinite(lowest.bufferLength)
      ? { record: Number(lowest.record), time: Number(lowest.time) || 0, bufferLength: lowest.bufferLength } : null,
    startup: r.startup && Number.isFinite(r.startup.seconds) ? { seconds: r.startup.seconds, source: r.startup.source || '' } : null,
  };
}

/** A scenario argument: a preset name, or an inline scenario object. */
const scenarioBody = scenario => ({ scenario });

export const api = {
  /** GET /api/presets → [preset] */
  async presets() {
    return list(await call('GET', '/api/presets'), 'presets').map(preset).filter(p => p.name);
  },

  /** GET /api/sessions → [session] */
  async sessions() {
    return list(await call('GET', '/api/sessions'), 'sessions').map(session).filter(s => s.id);
  },

  /** GET /api/sessions/{id} → session */
  async session(id) {
    const data = await call('GET', `/api/sessions/${enc(id)}`);
    return session(data && data.session && !data.id ? data.session : data || {});
  },

  /** POST /api/sessions {id, scenario?} → session */
  async createSession(id, scenario) {
    const body = { id };
    if (scenario) body.scenario = scenario;
    const data = await call('POST', '/api/sessions', body);
    return session(data && data.session && !data.id ? data.session : { id, ...(data || {}) });
  },

  /** DELETE /api/sessions/{id} */
  deleteSession: id => call('DELETE', `/api/sessions/${enc(id)}`),

  /** PUT /api/sessions/{id}/rules {scenario} */
  setSessionRules: (id, scenario) => call('PUT', `/api/sessions/${enc(id)}/rules`, scenarioBody(scenario)),

  /** DELETE /api/sessions/{id}/rules */
  clearSessionRules: id => call('DELETE', `/api/sessions/${enc(id)}/rules`),

  /** GET /api/rules → {scenario: name or null (set through the API), ruleFiles: [scenario names of --rules files]} */
  async rules() {
    const data = await call('GET', '/api/rules') || {};
    return { scenario: scenarioName(data.scenario), ruleFiles: list(data.ruleFiles).map(scenarioName).filter(Boolean) };
  },

  /** PUT /api/rules {scenario}: every session */
  setGlobalRules: scenario => call('PUT', '/api/rules', scenarioBody(scenario)),

  /** DELETE /api/rules */
  clearGlobalRules: () => call('DELETE', '/api/rules'),

  /**
   * GET /api/sessions/{id}/events?since=<cursor>&limit=<n> → {records: [record], next: cursor}. The
   * cursor is the last record id seen (records with a larger id come back), or the `cursor` the API
   * gives; `limit` asks for bigger pages (the API's default is 1,000, its maximum 10,000).
   */
  async events(id, since, limit = 5000) {
    const params = new URLSearchParams();
    if (since !== undefined && since !== null) params.set('since', String(since));
    if (limit) params.set('limit', String(limit));
    const query = params.toString() ? `?${params}` : '';
    const data = await call('GET', `/api/sessions/${enc(id)}/events${query}`);
    const records = list(data, 'records', 'events').map(record);
    let next = data && !Array.isArray(data) ? (data.next ?? data.cursor ?? null) : null;
    if (next === null && records.length) next = Math.max(...records.map(r => Number(r.id) || 0));
    return { records, next };
  },

  /**
   * URL of GET /api/events/stream?session=<id>: Server-Sent Events, one RequestRecord JSON per
   * `data:`, its id in `id:`. `since` asks for the records after that id first (so none are lost
   * between the backlog and the stream); the token goes in the query.
   */
  streamURL(id, since) {
    const params = new URLSearchParams({ session: id });
    if (since !== undefined && since !== null) params.set('since', String(since));
    const t = token();
    if (t) params.set('token', t);
    return `/api/events/stream?${params}`;
  },

  /**
   * GET /api/sessions/{id}/report → the reaction report (ReactionReport.swift) with `words`: {outcome,
   * findings: [{label, words, time?, records, tone?}]}, its findings said for people (ReportWords.swift).
   */
  report: id => call('GET', `/api/sessions/${enc(id)}/report`),

  /**
   * GET /api/setup → {forward, proxyPort, httpsPort (or null), setupURLs: [the proxy's setup page, one
   * per address]}; null from a control API without the route (404).
   */
  async setup() {
    let data;
    try {
      data = await call('GET', '/api/setup');
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
    data = data || {};
    return {
      forward: Boolean(data.forward),
      proxyPort: Number(data.proxyPort) || null,
      httpsPort: Number.isInteger(data.httpsPort) ? data.httpsPort : null,
      setupURLs: list(data.setupURLs).filter(u => typeof u === 'string'),
    };
  },

  /** GET /api/devices → [device], by address */
  async devices() {
    return list(await call('GET', '/api/devices'), 'devices').map(device).filter(d => d.address);
  },

  /** PUT /api/devices/{address} {session}: the device's requests go to that session → device */
  async nameDevice(address, session) {
    return device(await call('PUT', `/api/devices/${enc(address)}`, { session }) || { address, session, named: true });
  },

  /** DELETE /api/devices/{address}: back to the session ip-<address> */
  unnameDevice: address => call('DELETE', `/api/devices/${enc(address)}`),

  /** GET /api/sessions/{id}/link → link */
  link: async id => link(await call('GET', `/api/sessions/${enc(id)}/link`)),

  /** GET /api/sessions/{id}/player → player (the timeline of what the player said through CMCD) */
  player: async id => player(await call('GET', `/api/sessions/${enc(id)}/player`)),

  /** PUT /api/sessions/{id}/link with a link spec (docs/link.md) → link; a 400's `raw` problems name their JSON paths. */
  setLink: async (id, spec) => link(await call('PUT', `/api/sessions/${enc(id)}/link`, spec)),

  /** DELETE /api/sessions/{id}/link: the session's own link cleared → link (the layers' one, or none) */
  clearLink: async id => link(await call('DELETE', `/api/sessions/${enc(id)}/link`)),

  /** POST /api/sessions/{id}/link/cut {for: "10s"}: the link down for that long (409: no link runs) → link */
  cutLink: async (id, seconds) => link(await call('POST', `/api/sessions/${enc(id)}/link/cut`, { for: `${seconds}s` })),

  /** GET /api/sessions/{id}/har → Blob (fetched, so the token header goes with it). */
  async har(id) {
    const response = await call('GET', `/api/sessions/${enc(id)}/har`, undefined, { raw: true });
    return response.blob();
  },
};
