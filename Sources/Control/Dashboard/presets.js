// The presets: loaded once, offered in the three preset menus, described under the session's.

import { api } from './api.js';
import { $, h } from './dom.js';
import { renderTemplates } from './editor.js';
import { state } from './state.js';

function presetOptions(select, { none = null, keep = true } = {}) {
  const previous = select.value;
  select.replaceChildren();
  if (none !== null) select.append(h('option', { value: '' }, none));
  for (const p of state.presets) {
    select.append(h('option', { value: p.name, title: p.description }, p.name));
  }
  if (keep && [...select.options].some(o => o.value === previous)) select.value = previous;
}

export async function loadPresets() {
  state.presets = await api.presets();
  presetOptions($('new-session-preset'), { none: 'no faults' });
  presetOptions($('global-preset'));
  presetOptions($('s-preset'));
  // A sensible first choice: the classic "segment answers 503" preset.
  for (const id of ['s-preset', 'global-preset']) {
    if (!state.presetsShown && state.presets.some(p => p.name === 'status-503')) $(id).value = 'status-503';
  }
  state.presetsShown = true;
  showPresetDescription();
  renderTemplates();
}

export function showPresetDescription() {
  const p = state.presets.find(x => x.name === $('s-preset').value);
  $('s-preset-desc').textContent = !p ? ''
    : p.description || (p.ruleCount !== null ? `${p.ruleCount} rule${p.ruleCount === 1 ? '' : 's'}; see rules/README.md for what it does.` : '');
  $('s-preset-desc').title = p && p.reference ? p.reference : '';
}
