import Foundation

/// The HTML pages the browser harness serves: one per engine, each logging into `window.__log`
/// what `BrowserLog.Event` describes, and setting `window.__ended`, `window.__fatal` and
/// `window.__version`. The engine file sits next to the page as `engine.mjs` (hls.js) or
/// `engine.js` (video.js).
enum BrowserPages {
    /// The page for `engine`, playing `url` muted at `rate`.
    static func page(for engine: BrowserEngine, url: String, rate: Double, cmcd: BrowserDriver.CMCDCarriage? = nil) -> String {
        let template = engine.id == BrowserEngine.hlsjs.id ? hlsjs : vhs
        // hls.js's CMCD (v1): a session id of its own, the content id, in the query or in headers.
        let cmcdConfig = cmcd.map { ", cmcd: {contentId: 'hlschaos', useHeaders: \($0 == .headers)}" } ?? ""
        return template
            .replacingOccurrences(of: "__CMCD__", with: cmcdConfig)
            .replacingOccurrences(of: "__COMMON__", with: common)
            .replacingOccurrences(of: "__RATE__", with: String(rate))
            .replacingOccurrences(of: "__URL__", with: javaScriptString(url))
    }

    /// A JSON string literal; `/` is escaped, so `</script>` in a URL cannot end the script.
    static func javaScriptString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Shared by both pages: the log and the video element's own events.
    static let common = #"""
const __t0 = performance.now();
const now = () => Math.round(performance.now() - __t0) / 1000;
window.__log = []; window.__fatal = null; window.__ended = false; window.__version = null; window.__duration = null;
window.__now = now;
const log = (event, extra) => { const e = Object.assign({t: now(), event}, extra || {}); window.__log.push(e); return e; };
window.__buffer = [];
function watchVideo(video) {
  // The player's own buffer every 250 ms: seconds buffered ahead of the position (the truth
  // beside a CMCD bl claim). The newest 4,800 samples (20 minutes) are kept.
  setInterval(() => {
    const p = video.currentTime, b = video.buffered;
    let ahead = 0;
    for (let i = 0; i < b.length; i++) if (b.start(i) <= p + 0.1 && p <= b.end(i)) ahead = Math.max(ahead, b.end(i) - p);
    window.__buffer.push([now(), Math.round(p * 1000) / 1000, Math.round(ahead * 1000) / 1000]);
    if (window.__buffer.length > 4800) window.__buffer.shift();
  }, 250);
  video.addEventListener('playing', () => log('playing', {position: video.currentTime}));
  video.addEventListener('waiting', () => log('waiting', {position: video.currentTime}));
  video.addEventListener('ended', () => { log('ended', {position: video.currentTime}); window.__ended = true; });
  video.addEventListener('durationchange', () => { if (isFinite(video.duration)) window.__duration = video.duration; });
  video.addEventListener('error', () => log('videoError', {code: video.error && video.error.code, message: video.error && video.error.message || undefined}));
}
const pageFailed = (e) => { window.__fatal = log('pageError', {reason: String(e && e.stack || e), fatal: true}); };
"""#

    /// hls.js with its default configuration, `lowLatencyMode` spelled out (on by default in 1.x:
    /// parts, blocking reloads and preload hints when a playlist offers them). The gradio
    /// module's export `t(video, url, cb)` preconfigures hls.js and recovers on its own; the page
    /// only borrows its `Hls` class.
    ///
    /// Every 0.5 s, and once more when the harness collects the log (`window.__beforeReport`),
    /// a live stream's `latency` event: hls.js's own `latency` (live edge + playlist age −
    /// currentTime), `targetLatency`, `drift`, and `wallLatency`, now − `playingDate` (the
    /// PROGRAM-DATE-TIME of the playing position, so wall-clock latency when the origin stamps
    /// real time, as the demo's `/ll/` does).
    static let hlsjs = #"""
<!doctype html><meta charset=utf-8><link rel=icon href="data:,"><title>hlschaos hls.js</title><video id=v muted playsinline></video>
<script type=module>
import { t as attach } from './engine.mjs';
__COMMON__
try {
  const scratch = document.createElement('video');
  const probe = attach(scratch, 'data:,', null);
  const Hls = probe.constructor; probe.destroy();
  window.__version = Hls.version;
  const video = document.getElementById('v');
  watchVideo(video);
  const hls = new Hls({debug: false, lowLatencyMode: true__CMCD__});
  window.__hls = hls;
  const E = Hls.Events;
  hls.on(E.MANIFEST_PARSED, (_, d) => log('manifestParsed', {levels: d.levels.length, bitrates: d.levels.map(l => l.bitrate)}));
  hls.on(E.LEVEL_LOADED, (_, d) => log('levelLoaded', {level: d.level, live: d.details.live, startSN: d.details.startSN, endSN: d.details.endSN,
    parts: d.details.partList ? d.details.partList.length : 0, canBlockReload: !!d.details.canBlockReload}));
  hls.on(E.LEVEL_SWITCHED, (_, d) => log('levelSwitched', {level: d.level, pathway: (hls.levels[d.level] || {}).pathwayId}));
  hls.on(E.STEERING_MANIFEST_LOADED, (_, d) => log('steeringManifestLoaded', {url: d.url,
    priority: d.steeringManifest['PATHWAY-PRIORITY'], ttl: d.steeringManifest.TTL}));
  hls.on(E.LEVELS_UPDATED, (_, d) => log('levelsUpdated', {levels: d.levels.length, pathway: d.levels.length ? d.levels[0].pathwayId : undefined}));
  hls.on(E.FRAG_LOADED, (_, d) => log('fragLoaded', {sn: d.frag.sn, level: d.frag.level, fragType: d.frag.type,
    part: d.part ? d.part.index : undefined, url: d.part ? d.part.url : d.frag.url}));
  hls.on(E.ERROR, (_, d) => {
    const e = log('error', {type: d.type, details: d.details, fatal: !!d.fatal,
      code: d.response ? d.response.code : undefined,
      sn: d.frag ? d.frag.sn : undefined, level: d.frag ? d.frag.level : d.level, fragType: d.frag ? d.frag.type : undefined,
      url: d.frag ? d.frag.url : (d.url || (d.context && d.context.url)),
      reason: d.reason || (d.error && String(d.error)) || undefined});
    if (d.fatal && !window.__fatal) window.__fatal = e;
  });
  const finite = (x) => (typeof x === 'number' && isFinite(x)) ? Math.round(x * 1000) / 1000 : undefined;
  const sampleLatency = () => {
    const details = hls.latestLevelDetails;
    if (!details || !details.live) return;
    const date = hls.playingDate;
    log('latency', {latency: finite(hls.latency), targetLatency: finite(hls.targetLatency), drift: finite(hls.drift),
      wallLatency: date ? finite((Date.now() - date.getTime()) / 1000) : undefined, position: video.currentTime,
      parts: details.partList ? details.partList.length : 0, canBlockReload: !!details.canBlockReload});
  };
  setInterval(sampleLatency, 500);
  window.__beforeReport = sampleLatency;
  video.playbackRate = __RATE__; video.defaultPlaybackRate = __RATE__;
  hls.attachMedia(video);
  hls.loadSource(__URL__);
  video.play().catch(e => log('playRejected', {reason: String(e)}));
} catch (e) { pageFailed(e); }
</script>
"""#

    /// video.js 7.5.5 with its VHS 1.9.3 engine forced over any native HLS (`overrideNative`; 7.5
    /// reads it under `html5.hls`, later versions under `html5.vhs`: both are given). VHS is
    /// reached as `player.tech().hls` (HlsHandler); its MasterPlaylistController's playlist loader
    /// and segment loaders give the errors, the tech's `mediachange` the rendition changes
    /// (mapped to the index in `master.playlists`, the master playlist's order), and
    /// `blacklistplaylist` / `retryplaylist` / `playliststuck` its reactions.
    ///
    /// The player is 1280×720, as an embedded player might be, and the video element fills it (the
    /// rule of video.js's stylesheet, which the page does not load): VHS limits its renditions to
    /// the video element's computed size (`limitRenditionByPlayerDimensions`, on by default), and
    /// without it that size was the video's own, 416x234 on the demo's lowest variant, which held
    /// VHS there whatever the network.
    static let vhs = #"""
<!doctype html><meta charset=utf-8><link rel=icon href="data:,"><title>hlschaos video.js</title><style>.video-js .vjs-tech {position: absolute; top: 0; left: 0; width: 100%; height: 100%}</style><video id=v class=video-js muted playsinline></video>
<script src="engine.js"></script>
<script>
__COMMON__
try {
  const handler = (videojs.getTech('Html5').sourceHandlers || []).find(h => h.name === 'videojs-http-streaming');
  window.__version = videojs.VERSION + (handler ? ' (VHS ' + handler.VERSION + ')' : '');
  const engineOptions = {overrideNative: true};
  const player = videojs('v', {width: 1280, height: 720, muted: true, autoplay: false, preload: 'auto',
    html5: {hls: engineOptions, vhs: engineOptions, nativeAudioTracks: false, nativeVideoTracks: false}});
  window.__player = player;
  const rate = __RATE__;
  let hooked = null;
  const levelOf = (playlist) => {
    if (!hooked || !playlist) return undefined;
    const list = hooked.playlists.master ? hooked.playlists.master.playlists : [];
    let i = list.indexOf(playlist);
    if (i < 0) i = list.findIndex(p => p.uri === playlist.uri);
    return i >= 0 ? i : undefined;
  };
  const watchSegments = (loader, type) => {
    loader.on('error', () => {
      const e = loader.error() || {};
      log('segmentError', {status: e.status, code: e.code, message: e.message, fragType: type,
                           level: type === 'main' ? levelOf(loader.playlist_) : undefined, url: e.xhr ? e.xhr.uri : undefined});
    });
    const seen = new Set();
    loader.on('progress', () => {
      const p = loader.playlist_, index = loader.mediaIndex;
      if (!p || index === null || index === undefined) return;
      const key = (p.resolvedUri || p.uri) + '#' + index;
      if (seen.has(key)) return;
      seen.add(key);
      const segment = p.segments[index];
      log('fragLoaded', {sn: (p.mediaSequence || 0) + index, level: type === 'main' ? levelOf(p) : undefined,
                         fragType: type, url: segment ? segment.resolvedUri : undefined});
    });
  };
  const hook = (vhs) => {
    hooked = vhs;
    const mpc = vhs.masterPlaylistController_;
    const tech = player.tech(true);
    const master = mpc.masterPlaylistLoader_;
    master.on('error', () => {
      const e = master.error || {};
      log('playlistError', {status: e.status, code: e.code, message: e.message, level: levelOf(e.playlist),
                            url: e.playlist ? e.playlist.resolvedUri : master.srcUrl});
    });
    watchSegments(mpc.mainSegmentLoader_, 'main');
    if (mpc.audioSegmentLoader_) watchSegments(mpc.audioSegmentLoader_, 'audio');
    let last = null;
    const switched = () => {
      const media = master.media(), level = levelOf(media);
      if (level !== undefined && level !== last) {
        last = level;
        log('levelSwitched', {level, bandwidth: media.attributes ? media.attributes.BANDWIDTH : undefined});
      }
    };
    tech.on('mediachange', switched);
    master.on('loadedplaylist', switched);
    master.on('loadedmetadata', () => {
      const list = master.master.playlists;
      log('manifestParsed', {levels: list.length, bitrates: list.map(p => p.attributes.BANDWIDTH)});
    });
    tech.on('blacklistplaylist', () => log('playlistExcluded', {level: levelOf(master.media())}));
    tech.on('retryplaylist', () => log('playlistRetry', {level: levelOf(master.media())}));
    tech.on('playliststuck', () => log('playlistStuck', {level: levelOf(master.media())}));
  };
  // The source handler is created a moment after src(); hook it before its first response.
  const poll = setInterval(() => {
    const tech = player.tech(true), vhs = tech && tech.hls;
    if (vhs && vhs.masterPlaylistController_) { clearInterval(poll); if (hooked !== vhs) hook(vhs); }
  }, 2);
  player.ready(() => {
    try {
      const video = player.tech(true).el();
      watchVideo(video);
      const setRate = () => { video.defaultPlaybackRate = rate; video.playbackRate = rate; };
      setRate();
      player.on('loadstart', setRate);
      player.on('loadedmetadata', setRate);
      player.on('error', () => {
        const e = player.error() || {};
        const entry = log('error', {code: e.code, message: e.message || undefined, status: e.status, fatal: true});
        if (!window.__fatal) window.__fatal = entry;
      });
      player.src({src: __URL__, type: 'application/x-mpegURL'});
      const p = player.play();
      if (p && p.catch) p.catch(e => log('playRejected', {reason: String(e)}));
    } catch (e) { pageFailed(e); }
  });
} catch (e) { pageFailed(e); }
</script>
"""#
}
