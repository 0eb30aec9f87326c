// The selected session's player timeline (GET /api/sessions/{id}/player): what the player said
// about its buffer, throughput and stalls through CMCD. Read on the link's cadence (every second
// while the session is live, every fifth second otherwise), and only once a request in the page
// carried CMCD: a session without it has no timeline to show. Kept in `state.player`; whoever
// shows it is told through `onPlayerChanged`.

import { api } from './api.js';
import { sessionRead } from './session-read.js';
import { state } from './state.js';

let changed = () => {};

/** `fn()`: `state.player` changed. */
export function onPlayerChanged(fn) { changed = fn; }

/** Whether a request of the page carried CMCD (the newest first: a player that sends it does so throughout). */
function pageHasCMCD() {
  const records = state.records;
  for (let i = records.length - 1; i >= 0; i--) if (records[i].cmcd) return true;
  return false;
}

const reader = sessionRead({
  read: id => api.player(id),
  show: player => { state.player = player; changed(); },
  wanted: pageHasCMCD,
});

/** Reads the player timeline of the selected session, once a request of it carried CMCD. */
export const loadPlayer = reader.load;

/** Called every second: reads the timeline now while the session is live, else every fifth call. */
export const pollPlayer = reader.poll;
