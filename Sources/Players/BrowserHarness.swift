import Foundation

/// The Python + selenium program that drives headless Chromium for the browser drivers. It is
/// compiled into the binary and written into the run's work directory at play time, so a copied
/// `hlschaos` needs no checkout.
///
/// `python3 browser-harness.py CONFIG.json` where CONFIG is
/// `{"page": path, "engineFile": path, "engineName": "engine.mjs", "url", "seconds", "live",
///   "rate", "output": path, "chromium": path, "chromedriver": path, "proxy": url (optional)}`.
/// With `proxy`, Chromium fetches through it (`--proxy-server`; the page on 127.0.0.1 is not
/// proxied, loopback never is) and trusts what the HOME it was started with trusts.
/// It copies the page and the engine into a throwaway directory served on 127.0.0.1 (the stream
/// is therefore fetched cross-origin: its server must send `Access-Control-Allow-Origin`), opens
/// the page, polls it every 0.2 s until `ended` (VOD or live), a fatal error or `seconds` after the
/// page loaded, and prints one JSON document (`BrowserLog`) on stdout, also written to `output`.
/// Before it reads the page's log it calls `window.__beforeReport()` when the page has one (the
/// hls.js page logs a last latency sample there).
/// Exit status 0, or 3 when the harness itself failed (`harnessError` says why).
enum BrowserHarness {
    static let fileName = "browser-harness.py"

    static let script = #"""
import functools, http.server, json, os, shutil, signal, socketserver, sys, tempfile, threading, time, traceback


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript", ".js": "text/javascript"}

    def log_message(self, *args):
        pass


def serve(directory):
    handler = functools.partial(QuietHandler, directory=directory)
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def emit(config, result):
    text = json.dumps(result)
    output = config.get("output")
    if output:
        with open(output + ".tmp", "w") as f:
            f.write(text)
        os.replace(output + ".tmp", output)
    print(text, flush=True)


def first_line(error):
    text = str(error).strip()
    return "%s: %s" % (type(error).__name__, text.splitlines()[0] if text else "")


def main():
    # hlschaos's watchdog sends SIGTERM to the whole group: unwind, so that the page directory goes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    with open(sys.argv[1]) as f:
        config = json.load(f)
    live = bool(config["live"])
    limit = float(config["seconds"])
    result = {"engine": config["engine"], "url": config["url"], "live": live, "rate": config["rate"], "limit": limit,
              "ended": False, "fatal": None, "currentTime": None, "duration": None, "elapsed": 0,
              "limitReached": False, "events": [], "samples": [], "engineVersion": None, "browserVersion": None,
              "harnessError": None, "console": []}
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except Exception as e:
        result["harnessError"] = "python3 cannot import selenium (%s)" % first_line(e)
        emit(config, result)
        return 3

    root = tempfile.mkdtemp(prefix="hlschaos-page-")
    # Chromium and its PulseAudio client write into TMPDIR (org.chromium.Chromium.*, pulse-*) and
    # do not always remove it: they get root (removed below) for theirs.
    os.environ["TMPDIR"] = root
    os.environ["PULSE_RUNTIME_PATH"] = os.path.join(root, "pulse")
    httpd = driver = None
    code = 0
    try:
        shutil.copy(config["page"], os.path.join(root, "index.html"))
        shutil.copy(config["engineFile"], os.path.join(root, config["engineName"]))
        httpd = serve(root)
        options = webdriver.ChromeOptions()
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--no-first-run",
                     "--disable-background-networking", "--user-data-dir=" + os.path.join(root, "profile")):
            options.add_argument(flag)
        if config.get("proxy"):
            options.add_argument("--proxy-server=" + config["proxy"])
        options.set_capability("goog:loggingPrefs", {"browser": "SEVERE"})
        options.binary_location = config["chromium"]
        driver = webdriver.Chrome(service=Service(config["chromedriver"]), options=options)
        result["browserVersion"] = driver.capabilities.get("browserVersion")
        driver.get("http://127.0.0.1:%d/index.html" % httpd.server_address[1])
        state_js = ("const v = document.querySelector('video'); return {ended: window.__ended, fatal: window.__fatal, "
                    "t: window.__now ? window.__now() : null, position: v ? v.currentTime : null};")
        started = time.monotonic()
        last_sample = -1.0
        while True:
            state = driver.execute_script(state_js)
            elapsed = time.monotonic() - started
            if state["t"] is None:
                if elapsed >= min(10.0, limit):
                    raise RuntimeError("the player page did not start")
            elif state["position"] is not None and elapsed - last_sample >= 0.5:
                result["samples"].append([state["t"], round(state["position"], 3)])
                last_sample = elapsed
            if state["fatal"] or state["ended"]:
                break
            if elapsed >= limit:
                result["limitReached"] = True
                break
            time.sleep(0.2)
        final = driver.execute_script(
            "try { if (window.__beforeReport) window.__beforeReport(); } catch (e) {} "
            "const v = document.querySelector('video'); return {ended: window.__ended, fatal: window.__fatal, "
            "currentTime: v ? v.currentTime : null, duration: window.__duration, events: window.__log, buffer: window.__buffer || [], "
            "version: window.__version, t: window.__now ? window.__now() : null};")
        result.update({"ended": bool(final["ended"]), "fatal": final["fatal"], "currentTime": final["currentTime"],
                       "duration": final["duration"], "events": final["events"] or [], "buffer": final["buffer"] or [],
                       "engineVersion": final["version"], "elapsed": round(time.monotonic() - started, 3)})
        if final["t"] is not None and final["currentTime"] is not None:
            result["samples"].append([final["t"], round(final["currentTime"], 3)])
    except Exception as e:
        result["harnessError"] = first_line(e)
        sys.stderr.write(traceback.format_exc())
        code = 3
    finally:
        if driver is not None:
            try:
                result["console"] = [entry.get("message", "") for entry in driver.get_log("browser")][:50]
            except Exception:
                pass
            if result["harnessError"] and result["console"]:
                result["harnessError"] += " (console: %s)" % " | ".join(result["console"][:3])
            try:
                driver.quit()
            except Exception:
                pass
        if httpd is not None:
            httpd.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    emit(config, result)
    return code


if __name__ == "__main__":
    sys.exit(main())
"""#
}
