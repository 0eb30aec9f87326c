// The selected session's link (GET /api/sessions/{id}/link): read when the session is chosen, every
// second while it is live (every fifth second otherwise: a link set before the player starts still
// shows), and what a change made from the page answers. Kept in `state.link`; whoever shows it is
// told through `onLinkChanged`.

import { api } from './api.js';
import { sessionRead } from './session-read.js';
import { state } from './state.js';

let changed = () => {};

/** `fn()`: `state.link` changed. */
export function onLinkChanged(fn) { changed = fn; }

/** Shows a link the API answered (a change's answer, or a read). */
export function showLink(link) {
  state.link = link;
  changed();
}

const reader = sessionRead({ read: id => api.link(id), show: showLink });

/** Reads the link of the selected session now. */
export const loadLink = reader.load;

/** Called every second: reads the link now while the session is live, else every fifth call. */
export const pollLink = reader.poll;
