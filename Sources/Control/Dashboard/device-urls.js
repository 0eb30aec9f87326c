// The selected session's device URLs: each with the stream path, copy and QR buttons; the QR code
// of the one chosen (the first reachable from the network); stream paths the records show.

import { $, h } from './dom.js';
import { drawQR } from './qr.js';
import { state } from './state.js';
import { copyText, storageSet } from './ui.js';

export const STREAM_PATH_KEY = 'hlschaos.streamPath';

export const isLoopbackURL = url => {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || host.startsWith('127.');
  } catch { return false; }
};

/** prefix + path, percent-encoded where needed (what a device gets by copy or QR code). */
function joinURL(prefix, path) {
  const cleanPath = String(path || '').trim().replace(/^\/+/, '');
  const joined = !cleanPath ? prefix : prefix.endsWith('/') ? prefix + cleanPath : `${prefix}/${cleanPath}`;
  try { return new URL(joined).href; } catch { return joined; }
}

function urlItem(prefix, path) {
  const full = joinURL(prefix, path);
  const copy = h('button', { type: 'button', class: 'copy', title: 'Copy the URL' }, 'Copy');
  copy.addEventListener('click', async () => {
    const ok = await copyText(full);
    copy.textContent = ok ? 'Copied' : 'Select it';
    copy.classList.toggle('copied', ok);
    setTimeout(() => { copy.textContent = 'Copy'; copy.classList.remove('copied'); }, 1500);
  });
  const qr = h('button', { type: 'button', class: 'ghost', title: 'Show this URL in the QR code' }, 'QR');
  qr.addEventListener('click', () => { state.qrURL = prefix; renderDeviceURLs(state.sessionInfo); });
  const tls = prefix.startsWith('https:');
  const local = isLoopbackURL(prefix);
  return h('li', { class: prefix === state.qrURL ? 'in-qr' : '', dataset: { url: full } },
    h('span', { class: 'tag', title: `${local ? 'reachable from this machine only' : 'reachable from the network'}${tls ? ', over HTTPS' : ''}` },
      `${local ? 'local' : 'lan'}${tls ? ' tls' : ''}`),
    h('span', { class: 'url', title: full }, prefix, path ? h('span', { class: 'path' }, path.replace(/^\/+/, '')) : null),
    qr, copy);
}

function renderQR(path) {
  const canvas = $('qr');
  const qrText = state.qrURL ? joinURL(state.qrURL, path) : '';
  if (qrText) {
    canvas.hidden = false;
    drawQR(canvas, qrText, { cssSize: 148, ecl: 'M' });
    canvas.dataset.text = qrText;
    $('qr-caption').textContent = `${isLoopbackURL(state.qrURL) ? 'this machine only' : 'scan with the phone camera'}`;
  } else {
    canvas.hidden = true;
    $('qr-caption').textContent = 'no URL';
  }
}

export function renderDeviceURLs(session) {
  const list = $('device-urls');
  const path = $('stream-path').value.trim();
  const urls = session.urls || [];
  if (!state.qrURL || !urls.includes(state.qrURL)) {
    state.qrURL = urls.find(u => !isLoopbackURL(u)) || urls[0] || null;
  }
  // Drawn again only when something changed (the sessions poll calls this every 2 s).
  const key = JSON.stringify([session.id, urls, path, state.qrURL]);
  if (key === state.devicesKey) return;
  state.devicesKey = key;
  list.replaceChildren(...urls.map(prefix => urlItem(prefix, path)));
  if (!urls.length) list.append(h('li', {}, h('span', { class: 'url muted' }, 'The control API gave no device URL for this session.')));
  $('device-hint').textContent = path
    ? 'Open one on the device; every request it makes lands in this session.'
    : 'Add the stream path (e.g. vod/ts/master.m3u8) so the URL and QR code open the stream itself.';
  renderQR(path);
}

function knownStreamPaths() {
  const found = new Set();
  for (const r of state.records) {
    if (r.kind !== 'master') continue;
    const m = /^\/s\/[^/]+\/(.*)$/.exec(String(r.path).split('?')[0]);
    if (m && m[1]) found.add(m[1]);
  }
  return [...found];
}

/** The stream paths the session's master playlist requests show, offered in the path box (the first one filled in). */
export function updateKnownPaths() {
  const paths = knownStreamPaths();
  const list = $('known-paths');
  if (list.children.length !== paths.length) list.replaceChildren(...paths.map(p => h('option', { value: p })));
  const input = $('stream-path');
  if (!input.value && paths.length && document.activeElement !== input) {
    input.value = paths[0];
    storageSet(STREAM_PATH_KEY, paths[0]);
    if (state.sessionInfo) renderDeviceURLs(state.sessionInfo);
  }
}
