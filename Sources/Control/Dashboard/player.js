// The selected session's player timeline (GET /api/sessions/{id}/player): what the player said
// about its buffer, throughput and stalls through CMCD. Read on the link's cadence (every second
// while the session is live, every fifth second otherwise), and only once a request in the page
// carried CMCD: a session without it has no timeline to show. Kept in `state.player`; whoever
// shows it is told through `onPlayerChanged`.

import { api, ApiError } from './api.js';
import { isLive } from './sessions.js';
import { state } from './state.js';

const QUIET_EVERY = 5;
let changed = () => {};
let ticks = 0;
let reading = null;         // the generation a read is under way for

/** `fn()`: `state.player` changed. */
export function onPlayerChanged(fn) { changed = fn; }

/** Whether a request of the page carried CMCD (the newest first: a player that sends it does so throughout). */
function pageHasCMCD() {
  const records = state.records;
  for (let i = records.length - 1; i >= 0; i--) if (records[i].cmcd) return true;
  return false;
}

/** Reads the player timeline of the selected session, once a request of it carried CMCD. */
export async function loadPlayer() {
  const generation = state.generation;
  const session = state.sessions.find(s => s.id === state.selected);
  if (!session || reading === generation || !pageHasCMCD()) return;
  reading = generation;
  try {
    const player = await api.player(session.id);
    if (generation === state.generation) { state.player = player; changed(); }
  } catch (error) {
    // A control API without the route has no timeline to show; other failures show in the sessions poll.
    if (generation === state.generation && error instanceof ApiError && error.status === 404) { state.player = null; changed(); }
  } finally {
    if (reading === generation) reading = null;
  }
}

/** Called every second: reads the timeline now while the session is live, else every fifth call. */
export function pollPlayer() {
  const session = state.sessions.find(s => s.id === state.selected);
  if (!session) return;
  if (isLive(session) || ++ticks % QUIET_EVERY === 0) loadPlayer();
}
