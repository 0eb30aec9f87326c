#!/usr/bin/env python3
"""Plays an HLS URL with hls.js (default config) in headless Chromium and prints what it logged, as JSON.

    hlsjs.py URL [--timeout 90] [--rate 8] [--until ended|seconds:N]

hls.js comes from .build-players/hls.mjs (scripts/install-deps.sh test extracts it from the gradio wheel).
The page is served from a throwaway loopback HTTP server; the stream is fetched cross-origin, so the
server being tested must send CORS headers (hlschaos does).
Output: {"ended": bool, "currentTime": s, "events": [{"t": ms, "event": ..., ...}], "fatal": {...}|null}
"""
import argparse, functools, http.server, json, os, shutil, socketserver, sys, tempfile, threading, time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
HLS_JS = os.path.join(HERE, "..", "..", ".build-players", "hls.mjs")

PAGE = """<!doctype html><meta charset=utf-8><video id=v muted playsinline></video>
<script type=module>
import { t as attach } from './hls.mjs';
const log = (event, extra) => window.__log.push(Object.assign({t: Math.round(performance.now()), event}, extra || {}));
window.__log = []; window.__fatal = null; window.__ended = false;
// The gradio helper preconfigures hls.js and auto-recovers; take its Hls class and use the defaults.
const scratch = document.createElement('video');
const probe = attach(scratch, 'data:,', null);
const Hls = probe.constructor; probe.destroy();
const video = document.getElementById('v');
const hls = new Hls({debug: false});
window.__hls = hls;
const E = Hls.Events;
hls.on(E.MANIFEST_PARSED, (_, d) => log('manifestParsed', {levels: d.levels.length, bitrates: d.levels.map(l => l.bitrate)}));
hls.on(E.LEVEL_LOADED, (_, d) => log('levelLoaded', {level: d.level, live: d.details.live, startSN: d.details.startSN, endSN: d.details.endSN}));
hls.on(E.LEVEL_SWITCHED, (_, d) => log('levelSwitched', {level: d.level}));
hls.on(E.AUDIO_TRACK_SWITCHED, (_, d) => log('audioTrackSwitched', {id: d.id}));
hls.on(E.FRAG_LOADED, (_, d) => log('fragLoaded', {sn: d.frag.sn, level: d.frag.level, type: d.frag.type, url: d.frag.url}));
hls.on(E.ERROR, (_, d) => {
  const e = {type: d.type, details: d.details, fatal: d.fatal,
             code: d.response ? d.response.code : undefined,
             sn: d.frag ? d.frag.sn : undefined, level: d.frag ? d.frag.level : d.level,
             url: d.frag ? d.frag.url : (d.url || (d.context && d.context.url)), reason: d.reason || (d.error && String(d.error))};
  log('error', e);
  if (d.fatal) { window.__fatal = e; }
});
video.addEventListener('playing', () => log('playing'));
video.addEventListener('ended', () => { log('ended'); window.__ended = true; });
video.addEventListener('error', () => log('videoError', {code: video.error && video.error.code}));
video.playbackRate = RATE; video.defaultPlaybackRate = RATE;
hls.attachMedia(video);
hls.loadSource(URL);
video.play().catch(e => log('playRejected', {reason: String(e)}));
</script>"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript"}

    def log_message(self, *args):
        pass


def serve(directory):
    handler = functools.partial(QuietHandler, directory=directory)
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--rate", type=float, default=8)
    ap.add_argument("--until", default="ended", help="ended | seconds:N | fatal")
    args = ap.parse_args()
    if not os.path.exists(HLS_JS):
        sys.exit("hls.js missing: run scripts/install-deps.sh test")

    root = tempfile.mkdtemp(prefix="hlsjs-")
    shutil.copy(HLS_JS, os.path.join(root, "hls.mjs"))
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write(PAGE.replace("RATE", str(args.rate)).replace("URL", json.dumps(args.url)))
    httpd = serve(root)

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--autoplay-policy=no-user-gesture-required", "--mute-audio"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    try:
        driver.get("http://127.0.0.1:%d/index.html" % httpd.server_address[1])
        deadline = time.time() + args.timeout
        started = time.time()
        while time.time() < deadline:
            state = driver.execute_script("return {ended: window.__ended, fatal: window.__fatal, t: document.getElementById('v').currentTime}")
            if args.until == "ended" and (state["ended"] or state["fatal"]):
                break
            if args.until == "fatal" and state["fatal"]:
                break
            if args.until.startswith("seconds:") and time.time() - started >= float(args.until.split(":")[1]):
                break
            time.sleep(0.25)
        result = driver.execute_script(
            "return {ended: window.__ended, fatal: window.__fatal, currentTime: document.getElementById('v').currentTime, events: window.__log}")
        result["timedOut"] = time.time() >= deadline
        print(json.dumps(result))
    finally:
        driver.quit()
        httpd.shutdown()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
