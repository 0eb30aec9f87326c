// One request's detail, opened under its row: request, upstream and its timings, rules, actions,
// what was sent, the CMCD the request carried and its findings, the headers kept.

import { actionDetail } from './actions.js';
import { h } from './dom.js';
import { duration } from './format.js';
import { linkWords } from './records.js';

const row = (label, value) => (value === null || value === undefined || value === '' ? [] : [h('dt', {}, label), h('dd', {}, value)]);

function headers(title, list) {
  return h('div', {}, h('h4', {}, title),
    list.length ? list.map(x => h('div', {}, h('b', {}, `${x.name}: `), x.value)) : h('div', { class: 'muted' }, 'none kept'));
}

function decidedBy(d) {
  return [d.response && `response: ${d.response}`, d.delay && `delay: ${d.delay}`,
    d.content.length ? `content: ${d.content.join(', ')}` : ''].filter(Boolean).join(' · ');
}

export function detailFor(r) {
  const up = r.upstream;
  const timings = up ? ['connect', 'firstByte', 'total'].filter(k => up[k] !== null && up[k] !== undefined)
    .map(k => `${k} ${duration(up[k])}`).join(' · ') : '';
  return h('tr', { class: 'detail', dataset: { detailFor: r.id } }, h('td', { colspan: 10 },
    h('dl', {},
      row('request', `#${r.id} ${r.method || 'GET'} ${r.path}`),
      row('client', r.client),
      row('upstream', up ? `${up.status ?? 'no response'} ${up.url}` : 'not asked'),
      row('upstream error', up && up.error),
      row('upstream timing', timings),
      row('matched rules', r.matchedRules.join(', ')),
      row('decided by', decidedBy(r.decidingRules)),
      row('actions', actionDetail(r.actions)),
      row('link', r.link && linkWords(r.link).replace(/^link: /, '')),
      row('CMCD', r.cmcd && h('span', { class: 'cmcd-text' }, `${r.cmcd.text}  (${r.cmcd.carriages.join(', ')})`)),
      row('CMCD findings', r.cmcd && r.cmcd.findings.length ? h('ul', { class: 'cmcd-findings' }, r.cmcd.findings.map(f => h('li', {}, f))) : null),
      row('sent', `${r.status ?? 'no status'} · ${r.bytesSent} body bytes · ${r.ending} · ${duration(r.duration)}`)),
    h('div', { class: 'headers' }, headers('request headers', r.requestHeaders), headers('response headers', r.responseHeaders))));
}

