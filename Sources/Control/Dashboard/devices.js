// The forward proxy's devices (sidebar) and the device setup page's QR code, shown when devices
// reach this proxy by their proxy setting or over HTTPS (GET /api/setup).

import { api } from './api.js';
import { isLoopbackURL } from './device-urls.js';
import { $, h } from './dom.js';
import { ago, clock } from './format.js';
import { drawQR } from './qr.js';
import { state } from './state.js';
import { busy, guard, toast } from './ui.js';

const setupShown = () => Boolean(state.setup && (state.setup.forward || state.setup.httpsPort !== null));

export async function loadSetup() {
  state.setup = await api.setup();
  $('devices-block').hidden = !setupShown();
  renderSetup();
  await refreshDevices();
}

/** The setup page's QR code beside the device URLs: its first address reachable from the network. */
function renderSetup() {
  const urls = setupShown() ? state.setup.setupURLs : [];
  const url = urls.find(u => !isLoopbackURL(u)) || urls[0] || null;
  $('setup-card').hidden = !url;
  $('welcome-setup').hidden = !url;
  document.querySelector('.top-grid').classList.toggle('with-setup', Boolean(url));
  const canvas = $('setup-qr');
  if (!url || canvas.dataset.text === url) return;
  drawQR(canvas, url, { cssSize: 120, ecl: 'M' });
  canvas.dataset.text = url;
  for (const link of [$('setup-url'), $('welcome-setup-url')]) {
    link.href = url;
    link.textContent = url;
  }
  $('setup-caption').textContent = isLoopbackURL(url)
    ? 'this machine only: let the proxy listen on the network for devices'
    : 'scan with the device: root certificate, proxy settings';
}

export async function refreshDevices() {
  if (!setupShown()) return;
  state.devices = await api.devices();
  renderDeviceList();
}

function renderDeviceList() {
  const list = $('devices');
  const items = state.deviceItems;
  const addresses = new Set(state.devices.map(d => d.address));
  for (const [address, item] of items) {
    if (!addresses.has(address)) { item.li.remove(); items.delete(address); }
  }
  const wanted = state.devices.map(d => {
    let item = items.get(d.address);
    if (!item) { item = deviceItem(d.address); items.set(d.address, item); }
    updateDeviceItem(item, d);
    return item.li;
  });
  // Reordered only when the order changed: moving an item would take the focus from its name box.
  if (wanted.some((li, i) => list.children[i] !== li)) list.replaceChildren(...wanted);
  $('device-count').textContent = state.devices.length;
  $('devices-empty').hidden = state.devices.length > 0;
}

/** The form that names a device's session, and its Reset button. */
function renameForm(item, address) {
  item.input = h('input', {
    class: 'd-name', name: 'session', placeholder: 'session name, e.g. tv1', pattern: '[A-Za-z0-9._\\-]{1,64}',
    maxlength: '64', required: true, spellcheck: 'false', 'aria-label': `Session name for ${address}`,
    title: "The session this device's requests go to: 1–64 letters, digits, '.', '_' or '-'",
  });
  item.input.addEventListener('input', () => { item.input.dataset.dirty = '1'; });
  const save = h('button', { type: 'submit', class: 'small' }, 'Name');
  item.reset = h('button', { type: 'button', class: 'small ghost d-reset', title: 'Back to the session named after its address' }, 'Reset');
  const form = h('form', { class: 'd-rename row', autocomplete: 'off' }, item.input, save, item.reset);
  form.addEventListener('submit', guard(async event => {
    event.preventDefault();
    const session = item.input.value.trim();
    await busy(save, async () => {
      await api.nameDevice(address, session);
      delete item.input.dataset.dirty;
      toast(`${address} now plays in session ${session}`);
      await refreshDevices();
    });
  }));
  item.reset.addEventListener('click', guard(async () => {
    await busy(item.reset, async () => {
      await api.unnameDevice(address);
      delete item.input.dataset.dirty;
      item.input.value = '';
      toast(`${address} plays in the session of its address again`);
      await refreshDevices();
    });
  }));
  return form;
}

/** A device's list item: its session (opens it), address, last request, and a box to name its session. */
function deviceItem(address) {
  const item = {};
  item.name = h('button', { type: 'button', class: 'd-session', title: 'Open this session' });
  item.name.addEventListener('click', () => { location.hash = `session=${encodeURIComponent(item.device.session)}`; });
  item.seen = h('span', { class: 'd-seen' });
  const form = renameForm(item, address);
  item.li = h('li', { dataset: { address } },
    h('div', { class: 'd-line' }, item.name, item.seen),
    h('div', { class: 'd-address', title: 'The address the proxy sees the device at' }, address),
    form);
  return item;
}

function updateDeviceItem(item, device) {
  item.device = device;
  item.li.dataset.session = device.session;
  item.li.classList.toggle('named', device.named);
  item.li.classList.toggle('selected', device.session === state.selected);
  item.name.textContent = device.session;
  item.seen.textContent = device.lastSeen ? ago(device.lastSeen) : 'not seen yet';
  item.seen.title = device.lastSeen ? `last request at ${clock(device.lastSeen, false)}` : 'named before the device made a request';
  item.reset.hidden = !device.named;
  if (document.activeElement !== item.input && !item.input.dataset.dirty) item.input.value = device.named ? device.session : '';
}
