// One piece of the selected session read from the control API on a cadence: when the session is
// chosen, every second while it is live, every fifth second otherwise. A read started for one
// session is dropped when another is chosen meanwhile (`state.generation`); a route the API does
// not have (404) shows as nothing. The link and the player timeline are read this way.

import { ApiError } from './api.js';
import { isLive } from './sessions.js';
import { state } from './state.js';

const QUIET_EVERY = 5;

/**
 * `read(sessionId)` fetches it, `show(value)` keeps it (null: nothing to show), `wanted()` says
 * whether to read at all now. Returns `load()` (read now) and `poll()` (call every second).
 */
export function sessionRead({ read, show, wanted = () => true }) {
  let ticks = 0;
  let reading = null;       // the generation a read is under way for

  async function load() {
    const generation = state.generation;
    const session = state.sessions.find(s => s.id === state.selected);
    if (!session || reading === generation || !wanted()) return;
    reading = generation;
    try {
      const value = await read(session.id);
      if (generation === state.generation) show(value);
    } catch (error) {
      // Other failures show in the sessions poll.
      if (generation === state.generation && error instanceof ApiError && error.status === 404) show(null);
    } finally {
      if (reading === generation) reading = null;
    }
  }

  function poll() {
    const session = state.sessions.find(s => s.id === state.selected);
    if (!session) return;
    if (isLive(session) || ++ticks % QUIET_EVERY === 0) load();
  }

  return { load, poll };
}
