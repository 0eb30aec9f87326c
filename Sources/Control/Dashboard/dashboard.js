// The hlschaos dashboard: sessions, device URLs with QR codes, live request table, variant lanes,
// reaction report, fault controls; with forward mode or an HTTPS listener, the forward proxy's
// devices and the device setup page's QR code; the session's link (panel and chart). ES modules, no framework, no build step, nothing
// fetched from the internet; this one wires the page's controls and starts the polls. The module
// map is in docs/architecture.md (The dashboard).

import { api, ApiError, setToken, setTokenPrompt, token } from './api.js';
import { renderDeviceURLs, STREAM_PATH_KEY } from './device-urls.js';
import { loadSetup, refreshDevices } from './devices.js';
import { $ } from './dom.js';
import { onLinkChanged, pollLink } from './link.js';
import { onPlayerChanged, pollPlayer } from './player.js';
import { renderLinkPanel, wireLinkPanel } from './link-panel.js';
import { wireEditor } from './editor.js';
import { loadPresets, showPresetDescription } from './presets.js';
import { drawQR } from './qr.js';
import { loadReport } from './report.js';
import { refreshSessions, renderMeta, routeFromHash, selectSession, showLiveDot } from './session.js';
import { isLive } from './sessions.js';
import { SETTINGS, state } from './state.js';
import { renderTable, renderTableNow, toggleDetail, updatePauseButton } from './table.js';
import { renderTimeline } from './timeline.js';
import { askForToken, busy, confirmed, download, errorText, guard, storageGet, storageSet, toast } from './ui.js';

function wireToken() {
  setTokenPrompt(askForToken);
  $('token-button').hidden = !token();
  $('token-button').addEventListener('click', guard(async () => {
    const fresh = await askForToken('Enter the control token.');
    if (fresh) { setToken(fresh); location.reload(); }
  }));
}

function wireNewSession() {
  $('new-session').addEventListener('submit', guard(async event => {
    event.preventDefault();
    const id = $('new-session-id').value.trim();
    const preset = $('new-session-preset').value;
    await busy(event.target.querySelector('button[type="submit"]'), async () => {
      try {
        await api.createSession(id, preset || undefined);
        toast(`Session ${id} created${preset ? ` with ${preset}` : ''}`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 409) throw error;
        toast(`Session ${id} already exists`);
      }
      $('new-session-id').value = '';
      await refreshSessions();
      location.hash = `session=${encodeURIComponent(id)}`;
    });
  }));
}

/** A button that calls the API for the selected session, says what it did and reads the sessions again. */
function sessionButton(id, call) {
  $(id).addEventListener('click', guard(async () => {
    if (!state.selected) return;
    await busy($(id), async () => {
      const said = await call(state.selected);
      if (!said) return;
      toast(said);
      await refreshSessions();
    });
  }));
}

function wireSessionControls() {
  $('s-preset').addEventListener('change', showPresetDescription);
  sessionButton('s-apply', async sid => {
    const preset = $('s-preset').value;
    if (!preset) return null;
    await api.setSessionRules(sid, preset);
    return `Applied ${preset} to ${sid}`;
  });
  sessionButton('s-clear', async sid => {
    await api.clearSessionRules(sid);
    return `Cleared the rules of ${sid}`;
  });
  $('s-delete').addEventListener('click', guard(async () => {
    const button = $('s-delete');
    if (!state.selected || !confirmed(button, 'Click again to forget')) return;
    const id = state.selected;
    await api.deleteSession(id);
    state.activity.delete(id);
    selectSession(null);
    toast(`Forgot session ${id}`);
    await refreshSessions();
  }));
  $('s-har').addEventListener('click', guard(async () => {
    if (state.selected) download(`${state.selected}.har`, await api.har(state.selected));
  }));
  $('s-report-json').addEventListener('click', guard(async () => {
    if (!state.selected) return;
    const report = await api.report(state.selected);
    download(`${state.selected}-report.json`, new Blob([JSON.stringify(report, null, 2)], { type: 'application/json' }));
  }));
  $('report-refresh').addEventListener('click', () => loadReport());
}

function wireEverySession() {
  $('global-apply').addEventListener('click', guard(async () => {
    const preset = $('global-preset').value;
    if (!preset) return;
    await busy($('global-apply'), async () => {
      await api.setGlobalRules(preset);
      toast(`Applied ${preset} to every session`);
      await refreshSessions();
    });
  }));
  $('global-clear').addEventListener('click', guard(async () => {
    if (!confirmed($('global-clear'), 'Click again: clear for every session')) return;
    await api.clearGlobalRules();
    toast('Cleared the rules for every session');
    await refreshSessions();
  }));
  $('global-pill').addEventListener('click', () => {
    const every = $('every');
    every.open = true;
    every.scrollIntoView({ block: 'nearest' });
    $('global-clear').focus();
  });
}

function wireDeviceURLs() {
  const pathInput = $('stream-path');
  pathInput.value = storageGet(STREAM_PATH_KEY, '');
  pathInput.addEventListener('input', () => {
    storageSet(STREAM_PATH_KEY, pathInput.value.trim());
    if (state.sessionInfo) renderDeviceURLs(state.sessionInfo);
  });
  for (const [button, canvas] of [['qr-open', 'qr'], ['setup-qr-open', 'setup-qr']]) {
    $(button).addEventListener('click', () => {
      const text = $(canvas).dataset.text;
      if (!text) return;
      drawQR($('qr-big'), text, { cssSize: 360, ecl: 'M' });
      $('qr-big-caption').textContent = text;
      $('qr-dialog').showModal();
    });
  }
}

function wireTable() {
  for (const id of ['filter-text', 'filter-kind', 'filter-faults']) $(id).addEventListener('input', renderTableNow);
  $('pause').addEventListener('click', () => {
    state.paused = !state.paused;
    if (!state.paused) { state.fullTableRender = true; renderTable(); }
    updatePauseButton();
  });
  $('records-body').addEventListener('click', event => {
    if (event.target.closest('a, button')) return;
    const row = event.target.closest('tr.rec');
    if (row) toggleDetail(Number(row.dataset.id));
  });
  document.addEventListener('keydown', event => {
    if (event.key === '/' && !/input|textarea|select/i.test(document.activeElement.tagName)) {
      event.preventDefault();
      $('filter-text').focus();
    }
  });
}

function wireLink() {
  wireLinkPanel();
  onLinkChanged(() => {
    renderLinkPanel();
    if (state.selected) renderTimeline();
  });
  onPlayerChanged(() => { if (state.selected) renderTimeline(); });
}

function wireTimeline() {
  const laneWindow = $('lane-window');
  laneWindow.value = storageGet('hlschaos.laneWindow', '0');
  if (!laneWindow.value) laneWindow.value = '0';
  laneWindow.addEventListener('change', () => { storageSet('hlschaos.laneWindow', laneWindow.value); renderTimeline(); });
  // Redraw the lanes when their width changes (not their height, which the drawing itself sets).
  let laneWidth = 0;
  new ResizeObserver(entries => {
    const width = Math.round(entries[0].contentRect.width);
    if (width === laneWidth) return;
    laneWidth = width;
    requestAnimationFrame(() => { if (state.selected) renderTimeline(); });
  }).observe($('lane-chart'));
}

/** Opens on the session most likely wanted: the one with the latest activity, else the newest. */
function openLikelySession() {
  if (state.selected || !state.sessions.length) return;
  const best = [...state.sessions].sort((a, b) => (b.lastRequestAt || 0) - (a.lastRequestAt || 0)
    || (isLive(b) ? 1 : 0) - (isLive(a) ? 1 : 0) || (b.startedAt || 0) - (a.startedAt || 0))[0];
  history.replaceState(null, '', `#session=${encodeURIComponent(best.id)}`);
  routeFromHash();
}

function startPolls() {
  setInterval(() => {
    refreshSessions().catch(error => toast(errorText(error), 'error'));
    (state.setup === undefined ? loadSetup() : refreshDevices()).catch(error => {
      if (!(error instanceof ApiError && error.status === 0)) toast(errorText(error), 'error');
    });
  }, SETTINGS.sessionsPollMs);
  // Keeps "last request … ago", the live dots and the chart's right edge moving; reads the link and the player timeline.
  setInterval(() => {
    if (!state.selected) return;
    pollLink();
    pollPlayer();
    renderMeta();
    showLiveDot();
    if (Date.now() - state.lastArrival < 30000) renderTimeline();
  }, 1000);
}

async function start() {
  wireToken();
  wireNewSession();
  wireSessionControls();
  wireEverySession();
  wireEditor(refreshSessions);
  wireDeviceURLs();
  wireTable();
  wireTimeline();
  wireLink();
  window.addEventListener('hashchange', routeFromHash);
  try {
    await Promise.all([loadPresets(), refreshSessions(), loadSetup()]);
  } catch (error) {
    toast(errorText(error), 'error');
    document.documentElement.dataset.ready = '1';
  }
  routeFromHash();
  openLikelySession();
  startPolls();
}

start();
