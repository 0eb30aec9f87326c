// The scenario editor: a JSON text area, templates to start from, JSON errors placed in the text,
// the validator's problems listed, applied to the session or to every session.

import { api, ApiError } from './api.js';
import { $, h } from './dom.js';
import { state } from './state.js';
import { errorText, storageGet, storageSet, toast } from './ui.js';

const STORE_KEY = 'hlschaos.editorText';

const EMPTY_SCENARIO = `{
  "name": "my-scenario",
  "description": "What this scenario does, in a few words.",
  "rules": [
    {
      "id": "top-msn8-10-503",
      "match": { "kind": "segment", "variant": "highest", "msn": { "from": 8, "to": 10 } },
      "action": { "status": 503, "headers": { "Retry-After": "2" } }
    }
  ]
}
`;

/** The "start from" menu: empty, this session's scenario, the presets that come with their JSON. */
export function renderTemplates() {
  const select = $('editor-template');
  const session = state.sessionInfo;
  const key = JSON.stringify([session && session.scenarioJSON, state.presets.filter(p => p.scenario).map(p => p.name)]);
  if (key === state.templatesKey) return;
  state.templatesKey = key;
  const previous = select.value;
  select.replaceChildren(h('option', { value: '' }, '—'), h('option', { value: 'empty' }, 'empty template'));
  if (session && session.scenarioJSON) select.append(h('option', { value: 'current' }, `this session's scenario (${session.scenario})`));
  const withJSON = state.presets.filter(p => p.scenario);
  if (withJSON.length) {
    const group = h('optgroup', { label: 'presets' });
    for (const p of withJSON) group.append(h('option', { value: `preset:${p.name}` }, p.name));
    select.append(group);
  }
  if ([...select.options].some(o => o.value === previous)) select.value = previous;
}

function templateText(value) {
  if (value === 'empty') return EMPTY_SCENARIO;
  if (value === 'current' && state.sessionInfo && state.sessionInfo.scenarioJSON) return `${JSON.stringify(state.sessionInfo.scenarioJSON, null, 2)}\n`;
  if (!value.startsWith('preset:')) return null;
  const p = state.presets.find(x => x.name === value.slice(7));
  if (!p || !p.scenario) return null;
  const copy = JSON.parse(JSON.stringify(p.scenario));
  for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key];
  return `${JSON.stringify(copy, null, 2)}\n`;
}

function useTemplate(value) {
  const text = templateText(value);
  if (text === null) return;
  $('editor-text').value = text;
  storageSet(STORE_KEY, text);
  showProblems(null);
}

function showProblems(problems, { title = null, ok = null } = {}) {
  const box = $('editor-problems');
  box.replaceChildren();
  if (ok) { box.append(h('ul', {}, h('li', { class: 'ok' }, ok))); return; }
  if (!problems || !problems.length) {
    box.append(h('p', { class: 'muted' }, 'The format is in ', h('code', {}, 'rules/README.md'),
      ': a name and a list of rules, each with an ', h('code', {}, 'id'), ', a ', h('code', {}, 'match'),
      ' and an ', h('code', {}, 'action'), '.'));
    return;
  }
  if (title) box.append(h('p', { class: 'title' }, title));
  box.append(h('ul', {}, problems.map(p => h('li', {}, p))));
}

/** Where a JSON.parse message says the error is, as an offset into `text` (null: it does not say). */
function errorPosition(message, text) {
  const pos = /position (\d+)/.exec(message);
  if (pos) return Number(pos[1]);
  const lineCol = /line (\d+) column (\d+)/.exec(message);
  if (!lineCol) return null;
  const lines = text.split('\n');
  return lines.slice(0, Number(lineCol[1]) - 1).reduce((n, l) => n + l.length + 1, 0) + Number(lineCol[2]) - 1;
}

/** Parses the editor; on a JSON error shows it, selects the place and returns null. */
function editorScenario() {
  const area = $('editor-text');
  const text = area.value;
  try {
    const value = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      showProblems(['A scenario is a JSON object: {"name": …, "rules": […]}'], { title: 'Not a scenario' });
      return null;
    }
    return value;
  } catch (error) {
    const message = String(error.message || error);
    const position = errorPosition(message, text);
    let where = '';
    if (position !== null) {
      const before = text.slice(0, position).split('\n');
      where = `line ${before.length}, column ${before[before.length - 1].length + 1}: `;
      area.focus();
      area.setSelectionRange(position, Math.min(text.length, position + 1));
    }
    showProblems([`${where}${message.replace(/^JSON\.parse: /, '')}`], { title: 'Not valid JSON' });
    return null;
  }
}

/** Applies the editor's scenario; true when the API took it. */
async function applyEditor(everySession) {
  const scenario = editorScenario();
  if (!scenario) return false;
  const target = everySession ? 'every session' : state.selected;
  try {
    if (everySession) await api.setGlobalRules(scenario);
    else await api.setSessionRules(state.selected, scenario);
    showProblems(null, { ok: `Applied “${scenario.name || 'scenario'}” to ${target}.` });
    toast(`Applied ${scenario.name || 'the scenario'} to ${target}`);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.problems.length) {
      showProblems(error.problems, { title: error.message || 'The scenario has problems' });
    } else {
      showProblems([errorText(error)], { title: 'Not applied' });
    }
    return false;
  }
}

/** The editor's controls; `applied()` runs after a scenario was applied. */
export function wireEditor(applied) {
  const area = $('editor-text');
  area.value = storageGet(STORE_KEY, '') || EMPTY_SCENARIO;
  const apply = async everySession => {
    if (await applyEditor(everySession)) await applied().catch(error => toast(errorText(error), 'error'));
  };
  $('editor-toggle').addEventListener('click', () => {
    const editor = $('editor');
    editor.hidden = !editor.hidden;
    $('editor-toggle').setAttribute('aria-expanded', String(!editor.hidden));
    $('editor-toggle').textContent = editor.hidden ? 'Edit scenario…' : 'Hide editor';
    if (!editor.hidden) area.focus();
  });
  $('editor-template').addEventListener('change', event => { useTemplate(event.target.value); event.target.value = ''; });
  area.addEventListener('input', () => storageSet(STORE_KEY, area.value));
  area.addEventListener('keydown', event => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      apply(false);
    } else if (event.key === 'Tab' && !event.shiftKey) {
      event.preventDefault();
      area.setRangeText('  ', area.selectionStart, area.selectionEnd, 'end');
    }
  });
  $('editor-apply').addEventListener('click', () => apply(false));
  $('editor-apply-all').addEventListener('click', () => apply(true));
}
