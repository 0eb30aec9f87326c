#!/usr/bin/env python3
"""Plays an HLS URL with hls.js in headless Chromium and saves the HAR Chrome DevTools would export.

    chromium_har.py URL --engine HLS_MJS --har OUT.har [--seconds 60] [--rate 4] [--start-level N]

HLS_MJS is hls.js as an ES module whose export `t(video, url, cb)` returns an Hls instance (the gradio
build hlschaos's browser driver uses: ~/.cache/hlschaos/players/hls.js-*.mjs). The page is served from
a throwaway loopback server; the stream is fetched cross-origin (hlschaos sends CORS headers).

chromedriver's performance log (goog:loggingPrefs {performance: ALL}) carries the DevTools Network
events; the HAR is built from them the way DevTools' HARLog does it: one entry per request (a redirect
ends one entry and starts the next), startedDateTime from the request's wallTime, timings from the
response's ResourceTiming (blocked/dns/connect/ssl/send/wait, receive up to loadingFinished; a request
that got no response has its whole time in `blocked`), `_error` from loadingFailed, bodies from
Network.getResponseBody (base64 for binary bodies) while the page is still open.

Prints one JSON object: {"ended", "fatal", "events": [...hls.js events...], "entries": N, "har": path}.
"""
import argparse, base64, datetime, functools, http.server, json, os, shutil, socketserver, sys, tempfile, threading, time
from urllib.parse import urlsplit, parse_qsl

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

PAGE = """<!doctype html><meta charset=utf-8><link rel=icon href="data:,"><video id=v muted playsinline></video>
<script type=module>
import { t as attach } from './engine.mjs';
const t0 = performance.now();
const log = (event, extra) => window.__log.push(Object.assign({t: Math.round(performance.now() - t0) / 1000, event}, extra || {}));
window.__log = []; window.__fatal = null; window.__ended = false;
const scratch = document.createElement('video');
const probe = attach(scratch, 'data:,', null);
const Hls = probe.constructor; probe.destroy();
const video = document.getElementById('v');
const config = {debug: false};
if (START_LEVEL >= 0) { config.startLevel = START_LEVEL; config.abrEwmaDefaultEstimate = 50000000; }
const hls = new Hls(config);
const E = Hls.Events;
hls.on(E.FRAG_LOADED, (_, d) => log('fragLoaded', {sn: d.frag.sn, level: d.frag.level, fragType: d.frag.type}));
hls.on(E.LEVEL_SWITCHED, (_, d) => log('levelSwitched', {level: d.level}));
hls.on(E.ERROR, (_, d) => {
  const e = {details: d.details, fatal: !!d.fatal, code: d.response ? d.response.code : undefined,
             sn: d.frag ? d.frag.sn : undefined, level: d.frag ? d.frag.level : d.level};
  log('error', e);
  if (d.fatal && !window.__fatal) window.__fatal = e;
});
video.addEventListener('ended', () => { log('ended'); window.__ended = true; });
video.playbackRate = RATE; video.defaultPlaybackRate = RATE;
hls.attachMedia(video);
hls.loadSource(URL);
video.play().catch(e => log('playRejected', {reason: String(e)}));
</script>"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript"}

    def log_message(self, *args):
        pass


def iso(wall):
    moment = datetime.datetime.fromtimestamp(wall, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (moment.microsecond // 1000)


def header_list(headers):
    return [{"name": k, "value": v} for k, v in (headers or {}).items()]


def least_non_negative(values):
    found = [v for v in values if v is not None and v >= 0]
    return min(found) if found else float("inf")


def timings(record):
    """DevTools' HARLog.buildTimings, in milliseconds."""
    issue = record["issueTime"]
    response = record.get("response")
    end = record.get("endTime", issue)
    result = {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0, "_blocked_queueing": -1}
    timing = response.get("timing") if response else None
    if response is None:
        result["blocked"] = max(end - issue, 0) * 1000
        return result
    highest = 0
    request_time = issue
    if timing:
        request_time = timing["requestTime"]
        queued = max(request_time - issue, 0) * 1000
        result["_blocked_queueing"] = queued
        blocked_start = least_non_negative([timing.get("dnsStart"), timing.get("connectStart"), timing.get("sendStart")])
        if blocked_start == float("inf"):
            blocked_start = 0
        result["blocked"] = queued + blocked_start
        dns_end = timing.get("dnsEnd", -1)
        if dns_end >= 0:
            result["dns"] = dns_end - blocked_start
        ssl_end = timing.get("sslEnd", -1)
        if ssl_end > 0:
            result["ssl"] = ssl_end - timing.get("sslStart", 0)
        connect_end = timing.get("connectEnd", -1)
        if connect_end >= 0:
            result["connect"] = connect_end - least_non_negative([dns_end, blocked_start])
        send_end = timing.get("sendEnd", -1)
        if send_end >= 0:
            result["send"] = max(send_end - max(connect_end, dns_end, blocked_start), 0)
        highest = max(send_end, connect_end, ssl_end, dns_end, blocked_start, 0)
    else:
        result["blocked"] = 0
    headers_end = (record.get("responseTime", end) - request_time) * 1000
    if timing and timing.get("receiveHeadersEnd", -1) >= 0:
        headers_end = timing["receiveHeadersEnd"]
    result["wait"] = max(headers_end - highest, 0)
    result["receive"] = max((end - request_time) * 1000 - headers_end, 0)
    return result


def build_entries(messages, bodies):
    records = {}
    order = []

    def finish(key):
        order.append(records.pop(key))

    for message in messages:
        method, params = message.get("method"), message.get("params", {})
        rid = params.get("requestId")
        if method == "Network.requestWillBeSent":
            if rid in records and params.get("redirectResponse"):
                previous = records[rid]
                previous["response"] = params["redirectResponse"]
                previous["responseTime"] = params["timestamp"]
                previous["endTime"] = params["timestamp"]
                previous["id"] = rid + ":redirect%d" % len(order)
                finish(rid)
            records[rid] = {"id": rid, "request": params["request"], "issueTime": params["timestamp"],
                            "wallTime": params.get("wallTime", time.time()), "type": params.get("type", "Other"),
                            "initiator": params.get("initiator", {}).get("type"), "encoded": 0, "decoded": 0}
        elif rid not in records:
            continue
        elif method == "Network.responseReceived":
            records[rid]["response"] = params["response"]
            records[rid]["responseTime"] = params["timestamp"]
        elif method == "Network.dataReceived":
            records[rid]["decoded"] += params.get("dataLength", 0)
            records[rid]["encoded"] += params.get("encodedDataLength", 0)
        elif method == "Network.requestServedFromCache":
            records[rid]["fromCache"] = "memory"
        elif method == "Network.loadingFinished":
            records[rid]["endTime"] = params["timestamp"]
            records[rid]["transfer"] = params.get("encodedDataLength")
            finish(rid)
        elif method == "Network.loadingFailed":
            records[rid]["endTime"] = params["timestamp"]
            records[rid]["error"] = params.get("errorText") or ("net::ERR_ABORTED" if params.get("canceled") else "net::ERR_FAILED")
            finish(rid)
    for rid in list(records):  # still pending when the log was read
        finish(rid)

    entries = []
    for record in order:
        request = record["request"]
        if not request["url"].startswith(("http://", "https://")):
            continue  # the new-tab page Chromium opens first, data: URLs: not part of the page's traffic
        response = record.get("response")
        wall_start = record["wallTime"]
        phases = timings(record)
        total = sum(v for k, v in phases.items() if not k.startswith("_") and k != "ssl" and v > 0)
        query = [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(request["url"]).query, keep_blank_values=True)]
        entry = {
            "_initiator": {"type": record.get("initiator") or "other"},
            "_priority": request.get("initialPriority", "High"),
            "_resourceType": record["type"].lower(),
            "cache": {},
            "pageref": "page_1",
            "request": {"method": request.get("method", "GET"), "url": request["url"], "httpVersion": "",
                        "headers": header_list(request.get("headers")), "queryString": query, "cookies": [],
                        "headersSize": -1, "bodySize": 0},
            "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                         "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1,
                         "bodySize": -1, "_transferSize": 0, "_error": record.get("error")},
            "serverIPAddress": "",
            "startedDateTime": iso(wall_start),
            "time": total,
            "timings": phases,
        }
        if record.get("fromCache"):
            entry["_fromCache"] = record["fromCache"]
        if response:
            headers = response.get("headers") or {}
            transfer = record.get("transfer") or record["encoded"]
            header_bytes = response.get("encodedDataLength", 0) or 0
            entry["request"]["httpVersion"] = response.get("protocol", "")
            entry["serverIPAddress"] = response.get("remoteIPAddress", "")
            if response.get("connectionId") is not None:
                entry["connection"] = str(response["connectionId"])
            entry["response"].update({
                "status": response.get("status", 0), "statusText": response.get("statusText", ""),
                "httpVersion": response.get("protocol", ""), "headers": header_list(headers),
                "redirectURL": headers.get("Location") or headers.get("location") or "",
                # What arrived: a failed load has no final encodedDataLength, so count the data events.
                "bodySize": max(transfer - header_bytes, record["encoded"], 0) if not record.get("error") else record["decoded"],
                "_transferSize": transfer,
            })
            content = {"size": record["decoded"], "mimeType": response.get("mimeType") or "x-unknown"}
            body = bodies.get(record["id"])
            if body is not None:
                content["text"] = body["body"]
                if body.get("base64Encoded"):
                    content["encoding"] = "base64"
                    if not record["decoded"]:
                        content["size"] = len(base64.b64decode(body["body"]))
                elif not record["decoded"]:
                    content["size"] = len(body["body"].encode())
            entry["response"]["content"] = content
        if entry["response"]["_error"] is None:
            del entry["response"]["_error"]
        entries.append(entry)
    entries.sort(key=lambda e: e["startedDateTime"])
    return entries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--engine", required=True)
    ap.add_argument("--har", required=True)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rate", type=float, default=4)
    ap.add_argument("--start-level", type=int, default=-1)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    args = ap.parse_args()

    root = tempfile.mkdtemp(prefix="hlschaos-har-")
    # Chromium and its PulseAudio client write into TMPDIR (org.chromium.Chromium.*, pulse-*) and
    # do not always remove it: they get root (removed below) for theirs.
    os.environ["TMPDIR"] = root
    os.environ["PULSE_RUNTIME_PATH"] = os.path.join(root, "pulse")
    shutil.copy(args.engine, os.path.join(root, "engine.mjs"))
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write(PAGE.replace("START_LEVEL", str(args.start_level)).replace("RATE", str(args.rate)).replace("URL", json.dumps(args.url)))
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=root))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio",
                 "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--disable-background-networking",
                 "--user-data-dir=" + os.path.join(root, "profile")):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    options.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": False})
    options.binary_location = args.chromium
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    result = {"ended": False, "fatal": None, "events": [], "entries": 0, "har": args.har, "browserVersion": None}
    try:
        result["browserVersion"] = driver.capabilities.get("browserVersion")
        # A bigger buffer, so that every body is still there when the HAR is made.
        driver.execute_cdp_cmd("Network.enable", {"maxTotalBufferSize": 200_000_000, "maxResourceBufferSize": 20_000_000})
        driver.get("http://127.0.0.1:%d/index.html" % httpd.server_address[1])
        started = time.monotonic()
        while time.monotonic() - started < args.seconds:
            state = driver.execute_script("return {ended: window.__ended, fatal: window.__fatal}")
            if state["ended"] or state["fatal"]:
                break
            time.sleep(0.25)
        time.sleep(0.5)
        state = driver.execute_script("return {ended: window.__ended, fatal: window.__fatal, events: window.__log}")
        result.update({"ended": bool(state["ended"]), "fatal": state["fatal"], "events": state["events"] or []})
        messages = [json.loads(item["message"])["message"] for item in driver.get_log("performance")]
        bodies = {}
        finished = {m["params"]["requestId"] for m in messages if m.get("method") == "Network.loadingFinished"}
        for rid in finished:
            try:
                bodies[rid] = driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": rid})
            except Exception:
                pass  # evicted or never kept: DevTools exports such an entry without content.text too
        entries = build_entries(messages, bodies)
        page_start = entries[0]["startedDateTime"] if entries else iso(time.time())
        har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                       "pages": [{"startedDateTime": page_start, "id": "page_1", "title": "hls.js",
                                  "pageTimings": {"onContentLoad": -1, "onLoad": -1}}],
                       "entries": entries}}
        with open(args.har, "w") as f:
            json.dump(har, f, indent=2)
        result["entries"] = len(entries)
    finally:
        driver.quit()
        httpd.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
