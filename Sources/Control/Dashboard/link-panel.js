// The link panel: what the session's link is and where it came from, and the controls to set one
// (a profile, a constant rate or a pattern, with latency), cut it for 10 s or clear it. A refused
// spec's problems (400, each with its JSON path) are listed under the form by the field they name,
// and that field is marked.

import { api, ApiError } from './api.js';
import { $, h } from './dom.js';
import { bitRate, duration } from './format.js';
import { showLink } from './link.js';
import { state } from './state.js';
import { busy, errorText, guard, toast } from './ui.js';

const CUT_SECONDS = 10;

/** The form's fields by the JSON path of the spec they fill, and their names in words. */
const FIELDS = [
  { path: '$.profile', id: 'link-profile', name: 'profile' },
  { path: '$.rate', id: 'link-rate', name: 'rate' },
  { path: '$.pattern.shape', id: 'link-shape', name: 'pattern shape' },
  { path: '$.pattern.low', id: 'link-low', name: 'pattern low' },
  { path: '$.pattern.high', id: 'link-high', name: 'pattern high' },
  { path: '$.pattern.step', id: 'link-step', name: 'pattern step' },
  { path: '$.latency.base', id: 'link-latency', name: 'latency' },
  { path: '$.latency.jitter', id: 'link-jitter', name: 'jitter' },
];

const value = id => $(id).value.trim();

/** The link spec the form describes (docs/link.md *A spec*); empty fields are left out for the API to name. */
export function formSpec() {
  const kind = $('link-kind').value;
  const spec = {};
  if (kind === 'profile') spec.profile = value('link-profile');
  else if (kind === 'rate') spec.rate = value('link-rate');
  else {
    spec.pattern = { shape: value('link-shape') };
    for (const [key, id] of [['low', 'link-low'], ['high', 'link-high'], ['step', 'link-step']]) if (value(id)) spec.pattern[key] = value(id);
  }
  if (value('link-latency') || value('link-jitter')) {
    spec.latency = {};
    if (value('link-latency')) spec.latency.base = value('link-latency');
    if (value('link-jitter')) spec.latency.jitter = value('link-jitter');
  }
  return spec;
}

/** The field a problem's path names: the longest path of a field it starts with (`$.pattern` names none). */
function fieldOf(path) {
  return FIELDS.filter(f => path === f.path || String(path).startsWith(`${f.path}.`) || String(path).startsWith(`${f.path}[`))
    .sort((a, b) => b.path.length - a.path.length)[0] || null;
}

/** Lists `problems` ({path, message}) by field name and marks their fields; none: clears them. */
export function showProblems(problems, title = '') {
  for (const f of FIELDS) $(f.id).removeAttribute('aria-invalid');
  const list = $('link-problems');
  list.replaceChildren();
  if (!problems || !problems.length) { list.hidden = true; return; }
  if (title) list.append(h('li', { class: 'title' }, title));
  for (const p of problems) {
    const field = p.path ? fieldOf(p.path) : null;
    if (field) $(field.id).setAttribute('aria-invalid', 'true');
    const where = field ? field.name : p.path && p.path !== '$' ? p.path : '';
    list.append(h('li', { dataset: { path: p.path || '', field: field ? field.name : '' } },
      where ? h('b', {}, `${where}: `) : null, p.message));
  }
  list.hidden = false;
}

/** Shows which fields go with the chosen kind of capacity. */
function showKind() {
  const kind = $('link-kind').value;
  for (const el of document.querySelectorAll('#link-form [data-kind]')) el.hidden = el.dataset.kind !== kind;
}

/** "latency 80 ms ± 20 ms (+ 80 ms on a new connection)". */
function latencyWords(latency) {
  if (!latency || !(latency.base > 0 || latency.jitter > 0 || latency.newConnection > 0)) return 'no latency';
  const jitter = latency.jitter > 0 ? ` ± ${duration(latency.jitter)}` : '';
  const fresh = latency.newConnection > 0 ? ` (+ ${duration(latency.newConnection)} on a new connection)` : '';
  return `latency ${duration(latency.base)}${jitter}${fresh}`;
}

const STATUS_WORDS = { none: 'no link', waitingForLadder: 'waiting for the ladder', running: 'running' };

/** The panel's head and its buttons, from `state.link`. */
export function renderLinkPanel() {
  const link = state.link;
  const status = link ? link.status : 'none';
  const badge = $('link-status');
  badge.dataset.status = status;
  badge.textContent = STATUS_WORDS[status] || status;
  const down = link && link.history.down.length && link.history.down[link.history.down.length - 1] > 0;
  const parts = [];
  if (!link || status === 'none') {
    parts.push('Responses go as fast as the origin sends them. Set a link to give this session a device\'s network.');
  } else {
    if (status === 'waitingForLadder') parts.push('Its rates name variants: it starts when the player fetches the master playlist.');
    if (link.profile) parts.push(h('b', {}, link.profile));
    if (link.capacity !== null) parts.push(h('span', { class: 'link-capacity-now' }, h('b', {}, bitRate(link.capacity)), ' now'));
    if (status === 'running') parts.push(latencyWords(link.latency));
    if (link.badState) parts.push(`bad state ${duration(link.badState.meanBad)} every ${duration(link.badState.meanGood)} on average`);
    if (link.duringOutage === 'reset') parts.push('requests while down are reset');
    if (down) parts.push(h('b', { class: 'bad' }, 'down now'));
    if (link.from) parts.push(`from ${link.from}`);
    if (link.flows) parts.push(`${link.flows} response${link.flows === 1 ? '' : 's'} on it`);
  }
  const now = $('link-now');
  now.replaceChildren();
  parts.forEach((p, i) => { if (i) now.append(' · '); now.append(p); });
  $('link-problem').hidden = !(link && link.problem);
  $('link-problem').textContent = link && link.problem ? `The link asked for does not run: ${link.problem} The one before keeps running.` : '';
  $('link-cut').disabled = status !== 'running';
  const clear = $('link-clear');
  clear.disabled = !(link && link.own);
  clear.title = link && link.own ? 'Clear the link set on this session (DELETE …/link)'
    : link && link.from ? `This link comes from ${link.from}: only one set here or through the API is cleared here`
      : 'No link set on this session';
  renderRateSuggestions(link ? link.ladder : []);
}

/** Suggestions for the rate fields: the variants of the session's ladder, and a few rates. */
function renderRateSuggestions(ladder) {
  const key = ladder.join(',');
  const list = $('link-rates');
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  const names = [...ladder.map((b, i) => [`variant ${i}`, bitRate(b)]),
    ['below the lowest variant', ''], ['above the highest variant', ''], ['600kbps', ''], ['2Mbps', ''], ['8Mbps', '']];
  list.replaceChildren(...names.map(([v, label]) => h('option', { value: v }, label)));
}

/** Runs a change to the link; its answer is shown, a refusal's problems listed. */
async function change(button, call, said) {
  if (!state.selected) return;
  await busy(button, async () => {
    try {
      const link = await call(state.selected);
      showProblems(null);
      showLink(link);
      toast(said(link));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      showProblems(error.raw.length ? error.raw : [{ path: '', message: errorText(error) }], error.raw.length ? error.message : '');
    }
  });
}

export function wireLinkPanel() {
  $('link-kind').addEventListener('change', showKind);
  showKind();
  $('link-form').addEventListener('submit', guard(async event => {
    event.preventDefault();
    const spec = formSpec();
    await change($('link-set'), sid => api.setLink(sid, spec),
      link => `Link set on ${state.selected}${link.capacity !== null ? `: ${bitRate(link.capacity)}` : ''}`);
  }));
  $('link-cut').addEventListener('click', guard(() => change($('link-cut'), sid => api.cutLink(sid, CUT_SECONDS),
    () => `The link of ${state.selected} is down for ${CUT_SECONDS} s`)));
  $('link-clear').addEventListener('click', guard(() => change($('link-clear'), sid => api.clearLink(sid),
    link => (link.status === 'none' ? `Cleared the link of ${state.selected}` : `Cleared the session's own link; ${link.from} still sets one`))));
}
