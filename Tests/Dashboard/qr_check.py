#!/usr/bin/env python3
"""Checks the dashboard's QR encoder (Sources/Control/Dashboard/qr.js): every code it makes must
decode, with zbar, to exactly the text it was given.

    qr_check.py [--chromedriver /usr/bin/chromedriver]

Runs qr.js in headless Chromium (the same engine as the page), for texts from 1 to 2,300 bytes
(versions 1 to 40, error correction L and M, URLs with ports, IPv6 brackets, queries and UTF-8
with an ECI header) plus every mask forced once, draws each module matrix to a PNG with Pillow and decodes it with
pyzbar. Exits 0 when all decode, 1 otherwise. Needs selenium, Pillow, pyzbar and libzbar0.
"""
import argparse, functools, http.server, os, shutil, socketserver, sys, tempfile, threading

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
DASHBOARD = os.path.normpath(os.path.join(HERE, "..", "..", "Sources", "Control", "Dashboard"))


class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript"}

    def log_message(self, *args):
        pass


def texts():
    out = [
        "http://192.168.1.20:8080/s/tv1/",
        "http://localhost:8080/s/living-room-tv/vod/ts/master.m3u8",
        "http://[fd00::1]:8080/s/qa-phone+status-503/live/fmp4/master.m3u8?token=abc&x=1",
        "http://10.0.0.7:8080/s/télé-salon/vod/ts/master.m3u8",
        "A",
    ]
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-._~/"
    for length in (14, 15, 26, 27, 42, 43, 62, 63, 84, 85, 106, 107, 122, 123, 152, 153, 180, 213, 230,
                   271, 321, 367, 425, 458, 520, 586, 644, 718, 792, 858, 929, 1000, 1250, 1500, 1800, 2100, 2331):
        base = "http://192.168.100.200:8080/s/"
        text = base + "".join(alphabet[(i * 7) % len(alphabet)] for i in range(max(0, length - len(base))))
        out.append(text[:length])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = ap.parse_args()
    try:
        from PIL import Image
        from pyzbar import pyzbar
        from pyzbar.pyzbar import ZBarSymbol
    except ImportError as error:
        print(f"qr_check: FAIL: {error} (pip install pillow pyzbar; apt-get install libzbar0)")
        return 1

    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=DASHBOARD))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    # Chromium and its PulseAudio client write into TMPDIR (org.chromium.Chromium.*, pulse-*) and
    # do not always remove it: they get a folder of their own, removed below.
    root = tempfile.mkdtemp(prefix="qr-")
    os.environ["TMPDIR"] = root
    os.environ["PULSE_RUNTIME_PATH"] = os.path.join(root, "pulse")
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--user-data-dir=" + os.path.join(root, "profile")):
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    except Exception:
        httpd.shutdown()
        shutil.rmtree(root, ignore_errors=True)
        raise
    try:
        driver.get(f"http://127.0.0.1:{httpd.server_address[1]}/favicon.svg")
        driver.set_script_timeout(60)
        results = driver.execute_async_script("""
          const [texts, done] = arguments;
          import('/qr.js').then(({ qrMatrix }) => {
            const out = [];
            const cases = [];
            texts.forEach((text, i) => { for (const ecl of ['L', 'M']) cases.push([text, ecl, {}]); });
            // Every mask forced once, on a short and a long text.
            for (let mask = 0; mask < 8; mask++) for (const text of [texts[0], texts[texts.length - 1]]) cases.push([text, 'M', { mask }]);
            for (const [text, ecl, options] of cases) {
              try {
                const q = qrMatrix(text, ecl, options);
                out.push({ text, ecl, version: q.version, mask: q.mask, rows: q.modules.map(r => r.map(v => (v ? '1' : '0')).join('')) });
              } catch (e) { out.push({ text, ecl, error: String(e) }); }
            }
            done(out);
          }).catch(e => done([{ error: 'import: ' + e }]));
        """, texts())
    finally:
        driver.quit()
        httpd.shutdown()
        shutil.rmtree(root, ignore_errors=True)

    failures, versions, masks = [], set(), set()
    for r in results:
        if "error" in r:
            failures.append(f"{r.get('ecl')} {len(r.get('text', ''))} bytes: {r['error']}")
            continue
        rows, margin, scale = r["rows"], 4, 4
        n = len(rows)
        image = Image.new("L", ((n + 2 * margin) * scale,) * 2, 255)
        pixels = image.load()
        for y, row in enumerate(rows):
            for x, bit in enumerate(row):
                if bit == "1":
                    for dy in range(scale):
                        for dx in range(scale):
                            pixels[(x + margin) * scale + dx, (y + margin) * scale + dy] = 0
        decoded = [d.data.decode("utf-8", "replace") for d in pyzbar.decode(image, symbols=[ZBarSymbol.QRCODE])]
        versions.add(r["version"])
        masks.add(r["mask"])
        if decoded != [r["text"]]:
            failures.append(f"{r['ecl']} v{r['version']} mask {r['mask']} ({len(r['text'].encode())} bytes): decoded {decoded!r}")
    print(f"qr_check: {len(results)} codes, versions {min(versions, default=0)}-{max(versions, default=0)}, masks {sorted(masks)}")
    for failure in failures:
        print(f"  FAIL {failure}")
    print(f"qr_check: {len(results) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
