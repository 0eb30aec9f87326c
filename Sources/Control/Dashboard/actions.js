// What a record says was done to a request: its `actions`, read here and nowhere else. Each is
// {kind: "status" | "delay" | …, rule: "scenario/rule-id", <typed values: status, seconds, bytes…>,
// words: "words for people"}. The page shows `words` and decides on `kind` and the values.

/** One action as the page uses it: an object with at least `kind` and `words`. */
export function action(raw) {
  // A record from before typed actions holds the words as a string.
  if (typeof raw === 'string') return { kind: 'unknown', words: raw };
  if (!raw || typeof raw !== 'object') return { kind: 'unknown', words: String(raw) };
  const kind = typeof raw.kind === 'string' ? raw.kind : 'unknown';
  return { ...raw, kind, words: typeof raw.words === 'string' && raw.words ? raw.words : kind };
}

/** The actions' words, "delay 2.0 s, status 503". */
export const actionWords = actions => actions.map(a => a.words).join(', ');

/** What a text filter finds an action by: its words, kind and rule. */
export const actionSearchText = actions => actions.map(a => `${a.words} ${a.kind} ${a.rule || ''}`).join(' ');

/** The kinds of the actions, for a row's data attribute ("delay status"). */
export const actionKinds = actions => [...new Set(actions.map(a => a.kind))].join(' ');

/** Each action with the rule that did it: "delay 2.0 s (flaky/slow) · status 503 (flaky/503)". */
export const actionDetail = actions => actions.map(a => (a.rule ? `${a.words} (${a.rule})` : a.words)).join(' · ');
