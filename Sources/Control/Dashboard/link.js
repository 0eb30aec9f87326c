// The selected session's link (GET /api/sessions/{id}/link): read when the session is chosen, every
// second while it is live (every fifth second otherwise: a link set before the player starts still
// shows), and what a change made from the page answers. Kept in `state.link`; whoever shows it is
// told through `onLinkChanged`.

import { api, ApiError } from './api.js';
import { isLive } from './sessions.js';
import { state } from './state.js';

const QUIET_EVERY = 5;
let changed = () => {};
let ticks = 0;
let reading = null;         // the generation a read is under way for

/** `fn()`: `state.link` changed. */
export function onLinkChanged(fn) { changed = fn; }

/** Shows a link the API answered (a change's answer, or a read). */
export function showLink(link) {
  state.link = link;
  changed();
}

/** Reads the link of the selected session, when the API lists it (a missing one would answer 404). */
export async function loadLink() {
  const generation = state.generation;
  const session = state.sessions.find(s => s.id === state.selected);
  if (!session || reading === generation) return;
  reading = generation;
  try {
    const link = await api.link(session.id);
    if (generation === state.generation) showLink(link);
  } catch (error) {
    // A control API without the route has no link to show; other failures show in the sessions poll.
    if (generation === state.generation && error instanceof ApiError && error.status === 404) showLink(null);
  } finally {
    if (reading === generation) reading = null;
  }
}

/** Called every second: reads the link now while the session is live, else every fifth call. */
export function pollLink() {
  const session = state.sessions.find(s => s.id === state.selected);
  if (!session) return;
  if (isLive(session) || ++ticks % QUIET_EVERY === 0) loadLink();
}
