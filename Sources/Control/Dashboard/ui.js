// Small pieces of the page's behaviour: toasts, errors in words, busy and confirming buttons,
// downloads, the clipboard, local storage, the connection badge and the token dialog.

import { ApiError } from './api.js';
import { $, h } from './dom.js';
import { state } from './state.js';

let toastCount = 0;
export function toast(message, kind = 'ok') {
  const el = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message);
  $('toasts').append(el);
  if (++toastCount > 4) $('toasts').firstElementChild?.remove();
  setTimeout(() => { el.remove(); toastCount--; }, kind === 'error' ? 8000 : 3500);
}

export function errorText(error) {
  if (error instanceof ApiError) {
    const more = error.problems.length ? `: ${error.problems[0]}${error.problems.length > 1 ? ` (+${error.problems.length - 1})` : ''}` : '';
    return `${error.message}${more}`;
  }
  return String(error && error.message ? error.message : error);
}

/** Runs an async handler; failures become a toast, never an unhandled rejection. */
export function guard(fn) {
  return async (...args) => {
    try { await fn(...args); } catch (error) { toast(errorText(error), 'error'); }
  };
}

/** A button that needs a second click within 3 s. Returns true on the confirming click. */
export function confirmed(button, question) {
  if (button.classList.contains('confirm')) {
    button.classList.remove('confirm');
    button.textContent = button.dataset.label;
    return true;
  }
  button.dataset.label = button.textContent;
  button.textContent = question;
  button.classList.add('confirm', 'danger-outline');
  setTimeout(() => {
    if (!button.classList.contains('confirm')) return;
    button.classList.remove('confirm');
    button.textContent = button.dataset.label;
  }, 3000);
  return false;
}

export async function busy(button, fn) {
  button.disabled = true;
  button.classList.add('busy');
  try { return await fn(); } finally { button.disabled = false; button.classList.remove('busy'); }
}

export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Not a secure context (http://192.168…): the old way.
    const area = h('textarea', { readonly: true });
    area.value = text;
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

export function storageGet(key, fallback = '') {
  try { return localStorage.getItem(key) ?? fallback; } catch { return fallback; }
}
export function storageSet(key, value) {
  try { localStorage.setItem(key, value); } catch { /* private mode */ }
}

/** The connection badge in the top bar: connecting, connected, live, polling, offline. */
export function setConn(stateName, label) {
  state.conn = stateName;
  const el = $('conn');
  el.dataset.state = stateName;
  el.querySelector('.conn-label').textContent = label;
}

/** Asks for the control token in the token dialog; resolves to it, or null when cancelled. */
export function askForToken(reason) {
  const dialog = $('token-dialog');
  $('token-reason').textContent = reason;
  const input = $('token-input');
  input.value = '';
  return new Promise(resolve => {
    const done = () => {
      dialog.removeEventListener('close', done);
      const value = dialog.returnValue === 'ok' ? input.value.trim() : '';
      if (value) $('token-button').hidden = false;
      resolve(value || null);
    };
    dialog.addEventListener('close', done);
    dialog.returnValue = '';
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
}
