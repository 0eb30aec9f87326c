// A request's CMCD as the page writes it: the record keeps it as one dictionary in key order
// (`bl=(2100;v 1800;a),br=400,ot=v,sid="s-1",su`, docs/cmcd.md); `cmcdWords` picks the figures a
// row has room for: "CMCD bl 2.4 s · mtp 4.8 Mbit/s · br 400 kbit/s · su".

import { bitRate } from './format.js';

/** The members of a compact CMCD text, split at commas outside strings and inner lists: [[key, value or true]]. */
export function cmcdMembers(text) {
  const members = [];
  let start = 0, quoted = false, depth = 0;
  const take = end => {
    const member = text.slice(start, end).trim();
    if (member) {
      const eq = member.indexOf('=');
      members.push(eq < 0 ? [member, true] : [member.slice(0, eq), member.slice(eq + 1)]);
    }
    start = end + 1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) { if (c === '\\') i++; else if (c === '"') quoted = false; }
    else if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) take(i);
  }
  take(text.length);
  return members;
}

/** The integers of a value per object type: `2400` → [{value: 2400}], `(2100;v 1800;a)` → [{value: 2100, type: 'v'}, …]. */
export function perType(value) {
  if (typeof value !== 'string') return [];
  const inner = value.startsWith('(') ? value.replace(/^\(|\)$/g, '').trim().split(/\s+/) : [value];
  return inner.filter(Boolean).map(item => {
    const [number, ...params] = item.split(';');
    return { value: Number(number), type: params.find(p => !p.includes('=')) || null };
  }).filter(x => Number.isFinite(x.value));
}

const seconds = ms => `${(ms / 1000).toFixed(1)} s`;
const kbps = k => bitRate(k * 1000);

/** "bl 2.4 s", or per object type "bl v 2.1 s a 1.8 s". */
function figure(key, value, unit) {
  const items = perType(value);
  if (!items.length) return '';
  if (items.length === 1) return `${key} ${unit(items[0].value)}`;
  return `${key} ${items.map(x => `${x.type ? `${x.type} ` : ''}${unit(x.value)}`).join(' ')}`;
}

const STATES = { s: 'starting', p: 'playing', k: 'seeking', r: 'rebuffering', a: 'paused', e: 'ended', f: 'fatal error', q: 'quit', d: 'preloading' };

/** The row's words for a record's `cmcd`: "CMCD bl 2.4 s · mtp 4.8 Mbit/s · su"; the keys as sent when none of these is there. */
export function cmcdWords(cmcd) {
  const keys = new Map(cmcdMembers(cmcd.text));
  const parts = [
    keys.has('bl') ? figure('bl', keys.get('bl'), seconds) : '',
    keys.has('mtp') ? figure('mtp', keys.get('mtp'), kbps) : '',
    keys.has('br') ? figure('br', keys.get('br'), kbps) : '',
    keys.get('su') === true ? 'su' : '',
    keys.get('bs') === true ? 'bs' : '',
    keys.has('sta') ? STATES[keys.get('sta')] || `sta ${keys.get('sta')}` : '',
  ].filter(Boolean);
  if (!parts.length) parts.push([...keys.keys()].slice(0, 6).join(' '));
  if (cmcd.findings.length) parts.push(`${cmcd.findings.length} finding${cmcd.findings.length === 1 ? '' : 's'}`);
  return `CMCD ${parts.join(' · ')}`;
}
