#!/usr/bin/env python3
"""End-to-end check of the dashboard in headless Chromium (selenium) against a REAL hlschaos.

    dashboard_test.py --url http://127.0.0.1:8081/ --proxy http://127.0.0.1:8080 [--token T]
                      [--stream-path vod/ts/master.m3u8] [--preset status-503] [--session NAME]
                      [--screenshots DIR] [--timeout 20] [--require-qr]

--url is the control listener serving the dashboard at /, --proxy the proxy's base URL (as a test
on this machine reaches it; the session's device URL is <proxy>/s/<session>/), in front of the demo
origin (`hlschaos demo`) or any origin that has --stream-path.

What it checks, through the page:
 0. the page loads as ES modules (dashboard.js and the modules it imports, chart/ too), each
    answered as text/javascript, with no error in the browser console;
 1. the page lists sessions; a session created from the page's form gets selected;
 2. its device URL is shown, and the QR code on the page decodes (zbar) to exactly that URL;
    with forward mode or an HTTPS listener (GET /api/setup), the "Set up a device" QR code decodes
    to the setup page's URL, the Devices panel lists every device the API lists, and a device
    named from the page's rename box (an address named through the API first, so there is one to
    rename) gets that session in the API, and loses it with the page's Reset; without either, the
    panel and the setup QR code are hidden;
 3. while a player runs (this script fetches the master playlist, a media playlist and segments
    through the device URL with urllib), its requests appear in the request table and the lanes;
    the timeline draws its parts: a lane for the variant played and one for the rest, bands,
    segment ticks, playlist rings, the time axis;
 4. applying --preset from the page changes what the proxy serves: the segment the preset's first
    rule targets (status-503: segments 8-10 of the highest variant) answers that status, and the
    page shows the faulted request (status, fault mark) and a verdict; hovering the request's flag
    shows its tooltip (id, status, the record's action words), the table shows the action words,
    a click on the flag opens the request's detail, and the report's outcome and findings are the
    words GET /api/sessions/{id}/report serves (`words`);
 5. clearing the session's rules from the page makes the proxy serve that segment normally again;
 5b. the link panel (docs/link.md *In the dashboard*): a profile picked and set from the panel is
    the session's link in the API; a bad rate gets the API's problem shown by the rate field (and
    the rate field marked), the link kept; a rate with latency set from the panel runs (API and
    panel), segments fetched through the proxy then carry the link's times in the API and show
    them in their rows ("link: latency … · waited …"), and the timeline's link lane draws the
    capacity set (a line above the top variant's dotted BANDWIDTH line: 1 Mbit/s), the throughput
    delivered (an area with height), a dotted line per variant of the ladder; "Cut the link for
    10 s" shows the link down (API history and a shaded stretch), and Clear removes it;
 5c. the player's buffer (docs/cmcd.md *In the dashboard*): segments fetched with CMCD in the
    query (`bl`, `mtp`, `ot`, `sid`; one with `bs`) make GET /api/sessions/{id}/player report
    their buffer lengths and a stall; the timeline then draws a buffer lane with a dot per
    report, a line at the lowest buffer and a stall flag whose tooltip names the request; each
    of those rows shows its CMCD compactly ("CMCD bl 2.4 s · mtp 4.8 Mbit/s"), the request
    detail the full text, and the text filter finds a row by its CMCD;
 6. the browser console has no error.
Screenshots go to --screenshots (default /tmp/hlschaos-dashboard-test). Exits 0 when every check
passed, 1 otherwise, with a line saying what failed.

Needs: chromium + chromedriver, python selenium; for the QR check pyzbar + libzbar0 (the check is
skipped with a note when they are missing, unless --require-qr).

Tests/Dashboard/mock_api.py can stand in for hlschaos while working on the page; it proves nothing
about the product.
"""
import argparse, json, os, re, sys, threading, time, urllib.error, urllib.parse, urllib.request, io

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.normpath(os.path.join(HERE, "..", "..", "rules"))


class Failure(Exception):
    pass


class Checks:
    def __init__(self):
        self.passed = 0

    def ok(self, what):
        self.passed += 1
        print(f"  ok    {what}", flush=True)

    def note(self, what):
        print(f"  note  {what}", flush=True)


def wait_for(what, condition, timeout, interval=0.2):
    """Polls condition() until it returns something truthy; raises Failure naming `what`."""
    deadline = time.time() + timeout
    last_error = None
    while time.time() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as error:  # a stale element, a page still rendering
            last_error = error
        time.sleep(interval)
    raise Failure(f"timed out after {timeout:.0f} s waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))


# ------------------------------------------------------------------ HTTP to the proxy and the API

def fetch(url, timeout=15):
    """(status, headers, body) for a GET; HTTP errors are answers too."""
    request = urllib.request.Request(url, headers={"User-Agent": "hlschaos-dashboard-test"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def api(base, method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(urllib.parse.urljoin(base, path), data=data, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def api_json(base, method, path, token=None, body=None):
    """(status, parsed JSON body or None) of one control API call."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(urllib.parse.urljoin(base, path), data=data, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, None


def is_loopback_url(url):
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def parse_master(text, base):
    """[(position, bandwidth, url)] of the EXT-X-STREAM-INF variants."""
    variants, pending = [], None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#EXT-X-STREAM-INF:"):
            m = re.search(r"(?:^|[:,])BANDWIDTH=(\d+)", line)
            pending = int(m.group(1)) if m else 0
        elif line and not line.startswith("#") and pending is not None:
            variants.append((len(variants), pending, urllib.parse.urljoin(base, line)))
            pending = None
    return variants


def parse_media(text, base):
    """{msn: url} of a media playlist's segments."""
    sequence, segments, expect = 0, {}, False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            sequence = int(line.split(":", 1)[1])
        elif line.startswith("#EXTINF:"):
            expect = True
        elif line and not line.startswith("#") and expect:
            segments[sequence + len(segments)] = urllib.parse.urljoin(base, line)
            expect = False
    return segments


def preset_target(name):
    """(variant selector, msn, status) of the preset's first rule that answers a status for segments."""
    path = os.path.join(RULES, f"{name}.json")
    if not os.path.exists(path):
        raise Failure(f"preset {name}: no {path}; dashboard_test needs the preset's file to know what it does")
    with open(path) as f:
        scenario = json.load(f)
    for rule in scenario.get("rules", []):
        match, action = rule.get("match", {}), rule.get("action", {})
        msn = match.get("msn")
        msn = msn.get("from") if isinstance(msn, dict) else msn
        if match.get("kind") == "segment" and isinstance(action.get("status"), int) and isinstance(msn, int) \
                and not ({"requests", "after", "for", "probability", "time", "index"} & match.keys()):
            return match.get("variant", "highest"), msn, action["status"], rule.get("id")
    raise Failure(f"preset {name}: dashboard_test knows presets whose rule answers a status for a segment "
                  "by msn (status-4xx/5xx); pick one with --preset")


def choose_variant(variants, selector):
    if selector == "highest":
        return max(variants, key=lambda v: v[1])
    if selector == "lowest":
        return min(variants, key=lambda v: v[1])
    if isinstance(selector, dict) and "index" in selector:
        return variants[selector["index"]]
    raise Failure(f"variant selector {selector!r} is not one dashboard_test understands")


class Player(threading.Thread):
    """Plays like a very simple client: master, one media playlist, a few segments; pauses after the
    first segments until told to go on, so the test can look at the page while it is running."""

    def __init__(self, master_url, selector, segments=4):
        super().__init__(daemon=True)
        self.master_url, self.selector, self.count = master_url, selector, segments
        self.go_on = threading.Event()
        self.paused = threading.Event()
        self.error = None
        self.statuses = []
        self.segments = {}

    def run(self):
        try:
            status, _, body = fetch(self.master_url)
            self.statuses.append(("master", status))
            if status != 200:
                raise Failure(f"the master playlist {self.master_url} answered {status}: {body[:200]!r}")
            variants = parse_master(body.decode("utf-8", "replace"), self.master_url)
            if not variants:
                raise Failure(f"no variant in the master playlist {self.master_url}")
            self.variant = choose_variant(variants, self.selector)
            status, _, body = fetch(self.variant[2])
            self.statuses.append(("media", status))
            if status != 200:
                raise Failure(f"the media playlist {self.variant[2]} answered {status}")
            self.segments = parse_media(body.decode("utf-8", "replace"), self.variant[2])
            msns = sorted(self.segments)[: self.count]
            for i, msn in enumerate(msns):
                if i == 2:
                    self.paused.set()
                    self.go_on.wait(60)
                status, _, _ = fetch(self.segments[msn])
                self.statuses.append((f"segment {msn}", status))
                time.sleep(0.15)
        except Exception as error:
            self.error = error
        finally:
            self.paused.set()


# ------------------------------------------------------------------ the page

def severe_console_entries(driver):
    """The browser console's errors since the last call (Chromium's log is read once)."""
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def check_modules(driver, url, checks):
    """Step 0: the page is ES modules (dashboard.js and what it imports, subfolders too), each
    answered as JavaScript, and loading them left no error in the console."""
    loaded = driver.execute_script("""
      return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.endsWith('.js'));""")
    entry = driver.execute_script("return document.querySelector('script[type=module]')?.getAttribute('src')")
    if entry != "dashboard.js":
        raise Failure(f"the page's entry is {entry!r}, expected <script type=module src=dashboard.js>")
    names = sorted(urllib.parse.urlsplit(u).path.lstrip("/") for u in loaded)
    if "dashboard.js" not in names or not any("/" in n for n in names) or len(names) < 10:
        raise Failure(f"the modules the page loaded are not the dashboard's: {names}")
    for name in names:
        status, headers, _ = fetch(urllib.parse.urljoin(url, name))
        ctype = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
        if status != 200 or not ctype.startswith("text/javascript"):
            raise Failure(f"module {name} answered {status} {ctype!r}; a browser runs modules only as text/javascript")
    errors = severe_console_entries(driver)
    if errors:
        raise Failure("loading the modules left errors in the console:\n" + "\n".join(f"    {e['message']}" for e in errors))
    checks.ok(f"the page loaded as {len(names)} ES modules, each answered as text/javascript "
              f"({', '.join(n for n in names if '/' in n)} in a subfolder), console clean")


def check_chart_parts(driver, variant, timeout, checks):
    """Step 3b: the timeline's parts for a session with requests: a lane per variant played and
    one for the rest, bands, segment ticks, playlist rings, a time axis."""
    def parts():
        return driver.execute_script("""
          const chart = document.querySelector('#lane-chart svg');
          if (!chart) return null;
          const all = sel => chart.querySelectorAll(sel).length;
          return {lanes: [...chart.querySelectorAll('.lane-bg')].map(l => l.dataset.lane),
                  bands: all('rect.band'), ticks: all('path.ticks'), rings: all('path.pl'),
                  axis: [...chart.querySelectorAll('text:not(.lane-label):not(.lane-sub)')].map(t => t.textContent)};""")
    found = wait_for(f"the timeline's lanes (v{variant}, other), bands, ticks, rings and axis", lambda: (
        lambda p: p if p and f"v{variant}" in p["lanes"] and "other" in p["lanes"] and p["bands"] and p["ticks"]
        and p["rings"] and "0s" in p["axis"] else None)(parts()), timeout)
    checks.ok(f"the timeline draws its parts: lanes {found['lanes']}, {found['bands']} band(s), "
              f"{found['ticks']} tick path(s), {found['rings']} ring path(s), axis {found['axis'][:3]}…")


def action_words(actions):
    """A record's actions as words: typed ({kind, rule, …, words}) or, before them, strings."""
    return [a["words"] if isinstance(a, dict) else a for a in actions]


def hover_mark(driver, record_id, timeout):
    """Moves the pointer onto the fault flag of `record_id` (the live chart is drawn again every
    second, so the flag is found again until the move lands); returns the tooltip's text."""
    def hovered():
        mark = driver.find_element(By.CSS_SELECTOR, f'#lane-chart .mark[data-id="{record_id}"]')
        ActionChains(driver).move_to_element(mark).perform()
        return driver.execute_script("const t = document.querySelector('#lane-chart .chart-tip'); return t && !t.hidden && t.textContent")
    return wait_for(f"the tooltip of the flag of request #{record_id}", hovered, timeout)


def check_fault_in_chart_table_and_report(driver, url, token, sid, target_status, timeout, checks):
    """Step 4b: the faulted request as the API records it, shown by the flag's tooltip, the table's
    action cell, the request detail, and the report's findings in the API's words."""
    status, page = api_json(url, "GET", f"api/sessions/{urllib.parse.quote(sid)}/events", token)
    faulted = [r for r in (page or {}).get("records", []) if r.get("status") == target_status and r.get("actions")]
    if status != 200 or not faulted:
        raise Failure(f"GET /api/sessions/{sid}/events answered {status} without a faulted {target_status}")
    record = faulted[-1]
    rid, words = record["id"], action_words(record["actions"])
    tip = hover_mark(driver, rid, timeout)
    lines = tip.splitlines()
    if f"#{rid}" not in lines[0] or not any(l.startswith(f"status {target_status} ") for l in lines) or ", ".join(words) not in lines:
        raise Failure(f"the tooltip of request #{rid} reads {tip!r}; expected its id, status {target_status} and a line of its actions' words {words}")
    checks.ok(f"hovering the fault flag of #{rid} shows its tooltip: {tip.splitlines()[:2]} …")
    cell = driver.execute_script(f"return document.querySelector('#records-body tr.rec[data-id=\"{rid}\"] .action')?.textContent")
    if cell != ", ".join(words):
        raise Failure(f"the table's action cell of #{rid} reads {cell!r}, expected the record's action words {words}")
    driver.execute_script(f"document.querySelector('#lane-chart .mark[data-id=\"{rid}\"]').dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
    detail = wait_for(f"the detail of request #{rid} opened by a click on its flag", lambda: driver.execute_script(
        f"return document.querySelector('#records-body tr.detail[data-detail-for=\"{rid}\"]')?.textContent"), timeout)
    if not all(w in detail for w in words):
        raise Failure(f"the detail of #{rid} does not show its actions {words}: {detail!r}")
    checks.ok(f"the table shows #{rid}'s actions ({', '.join(words)}); a click on its flag opened its detail")

    def shown_and_served():
        _, report = api_json(url, "GET", f"api/sessions/{urllib.parse.quote(sid)}/report", token)
        served = (report or {}).get("words") or {}
        page_findings = driver.execute_script("""
          return [...document.querySelectorAll('#findings li[data-label]')].map(li => ({
            label: li.dataset.label, words: li.querySelector('.f-words').textContent}));""")
        want = [{"label": f["label"], "words": f["words"]} for f in served.get("findings", []) if f.get("tone") != "note"]
        badge = driver.find_element(By.ID, "outcome").text.strip().lower()
        return served if want and page_findings == want and badge == served.get("outcome", "").lower() else None
    served = wait_for("the report's findings on the page in the words GET …/report serves", shown_and_served, timeout + 10)
    if not any(f["label"] == "first fault" and f.get("records") for f in served["findings"]):
        raise Failure(f"the report's words have no first fault with its request: {served['findings']}")
    checks.ok(f"the report shows the API's words: “{served['outcome']}”, "
              + "; ".join(f"{f['label']}: {f['words']}" for f in served["findings"][:2]))


def duration_words(seconds):
    """format.js `duration`: "80 ms", "1.20 s", "12.0 s"."""
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"


def link_words(link):
    """What a row says of a record's `link` (records.js `linkWords`): the times that are not 0."""
    parts = [f"{name} {duration_words(link[name])}" for name in ("latency", "waited", "stalled") if link.get(name, 0) > 0]
    return "link: " + (" · ".join(parts) if parts else "no wait")


def set_link_from_panel(driver, kind, fields, timeout):
    """Fills the link panel (kind: profile, rate or pattern; fields: element id → value) and clicks Set link."""
    kinds = driver.find_element(By.ID, "link-kind")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", kinds)
    Select(kinds).select_by_value(kind)
    for element_id, value in fields.items():
        element = driver.find_element(By.ID, element_id)
        if element.tag_name == "select":
            Select(element).select_by_value(value)
        else:
            element.clear()
            if value:
                element.send_keys(value)
    click(driver, "link-set", timeout)


def check_link(driver, url, token, sid, player, timeout, checks, screenshots):
    """Step 5b: the link panel sets, refuses, shows, cuts and clears the session's link; the
    timeline's link lane and the request rows show what it did."""
    link_path = f"api/sessions/{urllib.parse.quote(sid)}/link"
    get_link = lambda: api_json(url, "GET", link_path, token)[1] or {}
    wait_for("the link panel to say the session has no link",
             lambda: driver.find_element(By.ID, "link-status").get_attribute("data-status") == "none", timeout)

    # A profile, picked and set.
    set_link_from_panel(driver, "profile", {"link-profile": "fast-4g", "link-latency": "", "link-jitter": ""}, timeout)
    link = wait_for("GET …/link to show the profile fast-4g set from the panel", lambda: (
        lambda l: l if l.get("status") == "running" and l.get("profile") == "fast-4g" else None)(get_link()), timeout)
    wait_for("the panel to show fast-4g running", lambda: driver.find_element(By.ID, "link-status").get_attribute("data-status") == "running"
             and "fast-4g" in driver.find_element(By.ID, "link-now").text, timeout)
    checks.ok(f"set the profile fast-4g from the link panel: the API runs it ({link['capacity']} bit/s, from {link['from']})")

    # A bad rate: the API's problem, by the rate field; the link kept.
    status, refused = api_json(url, "PUT", link_path, token, {"rate": "fast"})
    problems = [p for p in (refused or {}).get("problems", []) if p.get("path") == "$.rate"]
    if status != 400 or not problems:
        raise Failure(f"PUT {link_path} {{\"rate\": \"fast\"}} answered {status} {refused!r}, expected a 400 with a problem at $.rate")
    message = problems[0]["message"]
    set_link_from_panel(driver, "rate", {"link-rate": "fast"}, timeout)
    shown = wait_for("the bad rate's problem by the rate field", lambda: driver.execute_script("""
        const li = document.querySelector('#link-problems li[data-path="$.rate"]');
        return li && !document.getElementById('link-problems').hidden
          && document.getElementById('link-rate').getAttribute('aria-invalid') === 'true' && li.textContent;"""), timeout)
    if shown != f"rate: {message}":
        raise Failure(f"the panel shows {shown!r} for the bad rate, expected the API's problem \"rate: {message}\"")
    if get_link().get("profile") != "fast-4g":
        raise Failure("after a bad rate the running link changed; the API keeps the running link")
    # The refused PUT is the one console error allowed: Chromium logs every 4xx a page's fetch gets.
    unexpected = [e for e in severe_console_entries(driver) if not ("/link" in e["message"] and "400" in e["message"])]
    if unexpected:
        raise Failure("the console has errors besides the refused link:\n" + "\n".join(f"    {e['message']}" for e in unexpected))
    checks.ok(f"a bad rate shows the API's problem by the rate field: “{shown}”; the link is kept")

    # A rate with latency: runs, and what goes through the proxy carries the link's times.
    set_link_from_panel(driver, "rate", {"link-rate": "1Mbps", "link-latency": "40ms", "link-jitter": ""}, timeout)
    link = wait_for("GET …/link to run 1 Mbit/s with 40 ms latency", lambda: (
        lambda l: l if l.get("status") == "running" and l.get("capacity") == 1_000_000 and abs((l.get("latency") or {}).get("base", 0) - 0.04) < 1e-9
        and l.get("from") == "the control API" and l.get("own") else None)(get_link()), timeout)
    wait_for("the panel to show 1 Mbit/s now", lambda: "1 Mbit/s now" in driver.find_element(By.ID, "link-now").text, timeout)
    if driver.execute_script("return document.querySelectorAll('#link-problems li').length") != 0:
        raise Failure("the problems of the bad rate are still listed after a good one was set")
    checks.ok("set 1 Mbit/s with 40 ms latency from the panel: the API and the panel show it, the problems are gone")
    msns = sorted(player.segments)[:3]
    for msn in msns:
        status, _, _ = fetch(player.segments[msn])
        if status != 200:
            raise Failure(f"under the link, segment {msn} answered {status}")
    _, page = api_json(url, "GET", f"api/sessions/{urllib.parse.quote(sid)}/events?limit=10000", token)
    linked = [r for r in (page or {}).get("records", []) if r.get("link") and r.get("kind") == "segment"]
    if len(linked) < len(msns) or not any(r["link"]["waited"] > 0 for r in linked):
        raise Failure(f"the segments fetched under the link do not carry its times in the records: {[r.get('link') for r in linked]}")
    for r in linked[-len(msns):]:
        wait_for(f"row #{r['id']} to read “{link_words(r['link'])}”", lambda: driver.execute_script(
            f"return document.querySelector('#records-body tr.rec[data-id=\"{r['id']}\"] .link-times')?.textContent") == link_words(r["link"]), timeout)
    checks.ok(f"the rows of the segments fetched under the link show its times: “{link_words(linked[-1]['link'])}”")

    def lane():
        return driver.execute_script("""
          const svg = document.querySelector('#lane-chart svg');
          if (!svg || !svg.querySelector('.lane-bg[data-lane="link"]')) return null;
          const capacity = svg.querySelector('path.link-capacity'), delivered = svg.querySelector('path.link-delivered');
          // The y of each level of the step line: "M x y" starts one, "V y" moves to the next.
          const ys = capacity ? (capacity.getAttribute('d').match(/[MV][^MHV]*/g) || [])
            .map(c => Number(c[0] === 'M' ? c.slice(1).trim().split(/\\s+/)[1] : c.slice(1))) : [];
          return {capacityY: ys.length ? ys[ys.length - 1] : null,
                  delivered: delivered ? delivered.getBBox().height : 0,
                  variants: [...svg.querySelectorAll('line.link-variant')].map(l => ({variant: Number(l.dataset.variant), y: Number(l.getAttribute('y1'))}))};""")
    ladder = link.get("ladder") or []
    top = max(range(len(ladder)), key=lambda i: ladder[i]) if ladder else None
    drawn = wait_for("the link lane: the capacity line above the top variant's BANDWIDTH line, delivered data, a line per variant", lambda: (
        lambda p: p if p and p["capacityY"] is not None and p["delivered"] > 2 and sorted(v["variant"] for v in p["variants"]) == list(range(len(ladder)))
        and ladder and p["capacityY"] < next(v["y"] for v in p["variants"] if v["variant"] == top) else None)(lane()), timeout)
    checks.ok(f"the timeline's link lane draws the capacity (1 Mbit/s, above v{top}'s {ladder[top]} bit/s), "
              f"delivered data ({drawn['delivered']:.0f} px high) and {len(drawn['variants'])} variant lines")
    driver.execute_script("document.getElementById('lane-chart').scrollIntoView({block: 'center', behavior: 'instant'})")
    driver.save_screenshot(os.path.join(screenshots, "3-link.png"))

    # Cut for 10 s: the link is down (API history, a shaded stretch); Clear removes the link.
    click(driver, "link-cut", timeout)
    wait_for("GET …/link to show time down after the cut", lambda: any(d > 0 for d in get_link().get("history", {}).get("down", [])), timeout)
    wait_for("a shaded stretch of the link down in the lane", lambda: driver.find_elements(By.CSS_SELECTOR, "#lane-chart rect.link-down"), timeout)
    checks.ok("“Cut the link for 10 s” took the link down: the API's history and the lane show it")
    click(driver, "link-clear", timeout)
    wait_for("GET …/link to show no link after Clear", lambda: get_link().get("status") == "none", timeout)
    wait_for("the panel to say no link", lambda: driver.find_element(By.ID, "link-status").get_attribute("data-status") == "none", timeout)
    checks.ok("Clear on the panel removed the link (API and panel say none)")


def cmcd_query(url, cmcd):
    """`url` with CMCD as its query argument, percent-encoded as players send it."""
    return url + ("&" if "?" in url else "?") + "CMCD=" + urllib.parse.quote(cmcd, safe="")


def check_buffer(driver, url, token, sid, player, timeout, checks, screenshots):
    """Step 5c: requests with CMCD make the player timeline; the buffer lane, the stall flag, the
    rows' CMCD words, the detail's full text and the text filter show it."""
    msns = sorted(player.segments)[:4]
    said = [(2400, 4800, ""), (1200, 4800, ""), (3600, 5200, ""), (800, 4800, ",bs")]
    for msn, (bl, mtp, extra) in zip(msns, said):
        status, _, _ = fetch(cmcd_query(player.segments[msn], f'bl={bl},mtp={mtp},ot=v,sid="dash-test"{extra}'))
        if status != 200:
            raise Failure(f"segment {msn} with CMCD answered {status}")
    quoted = urllib.parse.quote(sid)
    timeline = wait_for("GET …/player to report the four buffer lengths and the stall", lambda: (
        lambda p: p if p and p.get("requestsWithCMCD", 0) >= 4 and any(s.get("source") == "bs" for s in p.get("stalls", []))
        and (p.get("lowestBuffer") or {}).get("bufferLength") == 800 else None)(api_json(url, "GET", f"api/sessions/{quoted}/player", token)[1]), timeout)
    stall = next(s for s in timeline["stalls"] if s["source"] == "bs")

    def lane():
        return driver.execute_script("""
          const svg = document.querySelector('#lane-chart svg');
          if (!svg || !svg.querySelector('.lane-bg[data-lane="buffer"]')) return null;
          return {points: [...svg.querySelectorAll('path.buffer-points')].reduce((n, p) => n + Number(p.dataset.count), 0),
                  lines: svg.querySelectorAll('path.buffer-line').length,
                  lowest: svg.querySelector('.buffer-lowest')?.dataset.ms,
                  lowestLabel: svg.querySelector('.buffer-lowest + .reference-label')?.textContent,
                  stalls: [...svg.querySelectorAll('.mark-buffer-stall')].map(m => Number(m.dataset.id))};""")
    drawn = wait_for("the buffer lane: a dot per report, a line, the lowest buffer and the stall flag", lambda: (
        lambda p: p if p and p["points"] >= 4 and p["lines"] and p["lowest"] == "800" and stall["record"] in p["stalls"] else None)(lane()), timeout)
    checks.ok(f"the buffer lane draws {drawn['points']} reports, the lowest buffer (“{drawn['lowestLabel']}”) and the stall at #{stall['record']}")
    tip = wait_for(f"the tooltip of the stall flag of #{stall['record']}", lambda: driver.execute_script("""
        const mark = document.querySelector(`#lane-chart .mark-buffer-stall[data-id="${arguments[0]}"]`);
        if (!mark) return null;
        const box = mark.getBoundingClientRect();
        mark.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: box.x + box.width / 2, clientY: box.y + 2}));
        const t = document.querySelector('#lane-chart .chart-tip');
        return t && !t.hidden && t.textContent;""", stall["record"]), timeout)
    if f"#{stall['record']}" not in tip or "bs:" not in tip:
        raise Failure(f"the stall flag's tooltip reads {tip!r}; expected the request #{stall['record']} and the bs it came from")
    checks.ok(f"hovering the stall flag tells it: {tip.splitlines()[0]!r}")
    figures = wait_for("the tooltip of a buffer report hovered on the lane", lambda: driver.execute_script("""
        const svg = document.querySelector('#lane-chart svg');
        const dots = svg && svg.querySelector('path.buffer-points'), probe = svg && svg.querySelector('rect.buffer-probe');
        if (!dots || !probe) return null;
        const [x, y] = dots.getAttribute('d').slice(1).split(/[ m]/).map(Number);
        const box = svg.getBoundingClientRect(), k = box.width / Number(svg.getAttribute('width'));
        probe.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: box.x + x * k, clientY: box.y + y * k}));
        const t = document.querySelector('#lane-chart .chart-tip');
        return t && !t.hidden && t.textContent;"""), timeout)
    if not re.match(r"#\d+ at ", figures) or not re.search(r"^buffer \d", figures, re.M) or "throughput " not in figures:
        raise Failure(f"hovering a buffer report tells {figures!r}; expected its request, its buffer and the player's throughput")
    checks.ok(f"hovering a report on the buffer lane tells its figures: {' · '.join(figures.splitlines()[:3])!r}")

    _, page = api_json(url, "GET", f"api/sessions/{quoted}/events?limit=10000", token)
    carried = [r for r in (page or {}).get("records", []) if r.get("cmcd")]
    if len(carried) < 4:
        raise Failure(f"the records do not carry the CMCD sent: {[r.get('cmcd') for r in carried]}")
    first = next(r for r in carried if "bl=2400" in r["cmcd"]["text"])
    words = wait_for(f"row #{first['id']} to show its CMCD", lambda: driver.execute_script(
        f"return document.querySelector('#records-body tr.rec[data-id=\"{first['id']}\"] .cmcd')?.textContent"), timeout)
    if words != "CMCD bl 2.4 s · mtp 4.8 Mbit/s":
        raise Failure(f"row #{first['id']} (CMCD {first['cmcd']['text']}) reads {words!r}, expected “CMCD bl 2.4 s · mtp 4.8 Mbit/s”")
    starved = next(r for r in carried if r["id"] == stall["record"])
    starved_words = driver.execute_script(
        f"return document.querySelector('#records-body tr.rec[data-id=\"{starved['id']}\"] .cmcd')?.textContent")
    if starved_words != "CMCD bl 0.8 s · mtp 4.8 Mbit/s · bs":
        raise Failure(f"row #{starved['id']} (CMCD {starved['cmcd']['text']}) reads {starved_words!r}, expected “CMCD bl 0.8 s · mtp 4.8 Mbit/s · bs”")
    driver.execute_script(f"document.querySelector('#records-body tr.rec[data-id=\"{first['id']}\"]').click()")
    detail = wait_for(f"the detail of #{first['id']}", lambda: driver.execute_script(
        f"return document.querySelector('#records-body tr.detail[data-detail-for=\"{first['id']}\"]')?.textContent"), timeout)
    if first["cmcd"]["text"] not in detail:
        raise Failure(f"the detail of #{first['id']} does not show its CMCD {first['cmcd']['text']!r}: {detail!r}")
    checks.ok(f"the rows show their CMCD (“{words}”, “{starved_words}”), the detail the full text {first['cmcd']['text']!r}")

    field = driver.find_element(By.ID, "filter-text")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", field)
    field.clear()
    field.send_keys("bl 0.8 s")
    found = wait_for("the text filter “bl 0.8 s” to leave the one row that said so", lambda: (
        lambda ids: ids if ids == [str(starved["id"])] else None)([r["id"] for r in page_rows(driver)]), timeout)
    field.clear()
    field.send_keys(" ")
    field.clear()
    driver.execute_script("arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", field)
    wait_for("every row back after the filter is cleared", lambda: len(page_rows(driver)) > len(found), timeout)
    checks.ok(f"the text filter finds a request by its CMCD (“bl 0.8 s” → #{found[0]})")
    driver.execute_script("document.getElementById('lane-chart').scrollIntoView({block: 'center', behavior: 'instant'})")
    driver.save_screenshot(os.path.join(screenshots, "3-buffer.png"))


def click(driver, element_id, timeout):
    """Clicks a control, scrolled into view first (a click on a flag scrolls the table to its row)."""
    def clicked():
        element = driver.find_element(By.ID, element_id)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", element)
        element.click()
        return True
    wait_for(f"a click on #{element_id}", clicked, timeout)


def page_rows(driver):
    return driver.execute_script("""
      return [...document.querySelectorAll('#records-body tr.rec')].map(tr => ({
        id: tr.dataset.id, kind: tr.dataset.kind, status: tr.dataset.status, fault: tr.dataset.fault,
        msn: tr.querySelector('.c-msn').textContent, vr: tr.querySelector('.c-vr').textContent}));""")


def decode_qr(png):
    try:
        from PIL import Image
        from pyzbar import pyzbar
    except ImportError as error:
        return None, f"{error}"
    image = Image.open(io.BytesIO(png)).convert("L")
    qr_only = [pyzbar.ZBarSymbol.QRCODE]
    found = pyzbar.decode(image, symbols=qr_only)
    if not found:
        # Scale up: zbar likes a few pixels per module.
        found = pyzbar.decode(image.resize((image.width * 3, image.height * 3), Image.NEAREST), symbols=qr_only)
    return [f.data.decode("utf-8", "replace") for f in found], None


# An address from TEST-NET-1 (RFC 5737): never a device's, so naming it touches no real session.
NAMED_ADDRESS = "192.0.2.55"


def check_setup_and_devices(driver, url, token, sid, timeout, checks, require_qr):
    """Step 2b: the setup QR code and the Devices panel, or that both are hidden when the API says
    there is neither forward mode nor an HTTPS listener."""
    status, setup = api_json(url, "GET", "api/setup", token)
    if status != 200 or not isinstance(setup, dict):
        raise Failure(f"GET /api/setup answered {status}: {setup!r}")
    hidden = lambda: driver.execute_script(
        "return ['devices-block', 'setup-card'].map(id => document.getElementById(id).hidden)")
    if not setup.get("forward") and setup.get("httpsPort") is None:
        if hidden() != [True, True]:
            raise Failure(f"GET /api/setup says no forward mode and no HTTPS listener, yet the page shows "
                          f"(devices panel, setup QR) hidden = {hidden()}")
        checks.ok("no forward mode, no HTTPS listener (GET /api/setup): the devices panel and the setup QR code are hidden")
        return

    # The setup page's QR code, beside the device URLs.
    setup_urls = setup.get("setupURLs") or []
    expected = next((u for u in setup_urls if not is_loopback_url(u)), setup_urls[0] if setup_urls else None)
    if not expected:
        raise Failure(f"GET /api/setup lists no setup URL: {setup!r}")
    shown = wait_for("the setup QR code beside the device URLs", lambda: driver.execute_script(
        "return !document.getElementById('setup-card').hidden && document.getElementById('setup-qr').dataset.text"), timeout)
    if shown != expected:
        raise Failure(f"the setup QR code holds {shown!r}, expected the first non-loopback setup URL {expected!r}")
    link = driver.find_element(By.ID, "setup-url").text
    if link != expected:
        raise Failure(f"the setup URL under the QR code reads {link!r}, expected {expected!r}")
    decoded, missing = decode_qr(driver.find_element(By.ID, "setup-qr").screenshot_as_png)
    if decoded is None:
        if require_qr:
            raise Failure(f"cannot decode the setup QR code: {missing} (pip install pyzbar; apt-get install libzbar0)")
        checks.note(f"setup QR code not decoded: {missing}")
    elif decoded != [expected]:
        raise Failure(f"the setup QR code decodes to {decoded!r}, expected {expected!r}")
    else:
        checks.ok(f"the setup QR code decodes to {expected}")

    # Every device the API lists is in the panel, by session and address.
    if hidden()[0]:
        raise Failure("GET /api/setup says forward mode or HTTPS is on, yet the devices panel is hidden")
    status, listed = api_json(url, "GET", "api/devices", token)
    devices = (listed or {}).get("devices")
    if status != 200 or not isinstance(devices, list):
        raise Failure(f"GET /api/devices answered {status}: {listed!r}")

    def panel():
        return driver.execute_script("""
          return [...document.querySelectorAll('#devices li[data-address]')].map(li => ({
            address: li.dataset.address, session: li.querySelector('.d-session').textContent,
            shownAddress: li.querySelector('.d-address').textContent}));""")

    def shows(address, session):
        return lambda: [d for d in panel() if d["address"] == address and d["shownAddress"] == address and d["session"] == session]

    for device in devices:
        wait_for(f"device {device['address']} (session {device['session']}) in the devices panel",
                 shows(device["address"], device["session"]), timeout)
    if devices:
        checks.ok("the devices panel lists the API's devices: "
                  + ", ".join(f"{d['session']} at {d['address']}" for d in devices))

    # Naming from the page: an address named through the API is listed; its box renames it; Reset takes it back.
    first, renamed = f"{sid}-dev", f"{sid}-tv"
    status, _ = api_json(url, "PUT", f"api/devices/{NAMED_ADDRESS}", token, {"session": first})
    if status != 200:
        raise Failure(f"PUT /api/devices/{NAMED_ADDRESS} answered {status}")
    wait_for(f"{NAMED_ADDRESS} named {first} in the devices panel", shows(NAMED_ADDRESS, first), timeout)
    item = driver.find_element(By.CSS_SELECTOR, f'#devices li[data-address="{NAMED_ADDRESS}"]')
    box = item.find_element(By.CSS_SELECTOR, "input.d-name")
    box.clear()
    box.send_keys(renamed)
    item.find_element(By.CSS_SELECTOR, "form.d-rename button[type=submit]").click()

    def api_session():
        _, listed = api_json(url, "GET", "api/devices", token)
        return {d["address"]: d["session"] for d in (listed or {}).get("devices", [])}.get(NAMED_ADDRESS, "(not listed)")

    wait_for(f"the API to give {NAMED_ADDRESS} the session {renamed} typed on the page", lambda: api_session() == renamed, timeout)
    wait_for(f"the panel to show {NAMED_ADDRESS} as {renamed}", shows(NAMED_ADDRESS, renamed), timeout)
    checks.ok(f"named {NAMED_ADDRESS} {renamed} from the page's rename box; the API has it")
    driver.find_element(By.CSS_SELECTOR, f'#devices li[data-address="{NAMED_ADDRESS}"] button.d-reset').click()
    wait_for(f"the API to take the name of {NAMED_ADDRESS} back", lambda: api_session() == "(not listed)", timeout)
    wait_for(f"{NAMED_ADDRESS} to leave the devices panel", lambda: not [d for d in panel() if d["address"] == NAMED_ADDRESS], timeout)
    checks.ok(f"Reset on the page took the name back (DELETE /api/devices/{NAMED_ADDRESS})")


def main():
    ap = argparse.ArgumentParser(description="Checks the hlschaos dashboard in headless Chromium against a real proxy.")
    ap.add_argument("--url", required=True, help="the control listener, e.g. http://127.0.0.1:8081/")
    ap.add_argument("--proxy", required=True, help="the proxy, e.g. http://127.0.0.1:8080")
    ap.add_argument("--token", help="the control token, if the control API has one")
    ap.add_argument("--stream-path", default="vod/ts/master.m3u8", help="master playlist path after /s/<session>/")
    ap.add_argument("--preset", default="status-503")
    ap.add_argument("--session", default=f"dash-{os.getpid()}")
    ap.add_argument("--screenshots", default="/tmp/hlschaos-dashboard-test")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--require-qr", action="store_true", help="fail (instead of skipping) when pyzbar is missing")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = ap.parse_args()

    url = args.url if args.url.endswith("/") else args.url + "/"
    sid, timeout = args.session, args.timeout
    os.makedirs(args.screenshots, exist_ok=True)
    checks = Checks()
    try:
        selector, target_msn, target_status, rule_id = preset_target(args.preset)
    except Failure as failure:
        print(f"dashboard_test: FAIL: {failure}")
        return 1
    device_base = f"{args.proxy.rstrip('/')}/s/{sid}/"
    master_url = device_base + args.stream_path.lstrip("/")

    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900",
                 "--force-device-scale-factor=1", "--disable-gpu"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    player = None
    console_checked = False
    try:
        print(f"dashboard_test: {url} · proxy {args.proxy} · session {sid} · preset {args.preset}", flush=True)
        if args.token:
            # Put the token where the page keeps it, so it never meets a 401 (which Chromium logs as a
            # console error). Any log of this first visit is dropped.
            driver.get(urllib.parse.urljoin(url, "favicon.svg"))
            driver.execute_script("sessionStorage.setItem('hlschaos.controlToken', arguments[0])", args.token)
            driver.get_log("browser")
        driver.get(url)
        wait_for("the page to load its sessions (html[data-ready]; does the control API need --token?)",
                 lambda: driver.execute_script("return document.documentElement.dataset.ready === '1'"), timeout)
        checks.ok("page loaded and asked the API for sessions")
        check_modules(driver, url, checks)

        # 1. A session created from the page.
        field = driver.find_element(By.ID, "new-session-id")
        field.clear()
        field.send_keys(sid)
        Select(driver.find_element(By.ID, "new-session-preset")).select_by_value("")
        driver.find_element(By.CSS_SELECTOR, "#new-session button[type=submit]").click()
        wait_for(f"session {sid} in the list", lambda: driver.find_elements(By.CSS_SELECTOR, f'#sessions li[data-session="{sid}"]'), timeout)
        wait_for(f"session {sid} to be selected",
                 lambda: driver.find_element(By.ID, "s-id").text == sid and driver.find_element(By.ID, "session").is_displayed(), timeout)
        checks.ok(f"created session {sid} from the page; it is listed and selected")

        # 2. Device URL and QR code.
        path_input = driver.find_element(By.ID, "stream-path")
        driver.execute_script("arguments[0].value = ''", path_input)
        path_input.send_keys(args.stream_path)
        suffix = f"/s/{sid}/{args.stream_path.lstrip('/')}"
        urls = wait_for("device URLs ending with " + suffix, lambda: [u for u in driver.execute_script(
            "return [...document.querySelectorAll('#device-urls li[data-url]')].map(li => li.dataset.url)") if u.endswith(suffix)], timeout)
        checks.ok(f"device URLs shown: {', '.join(urls)}")
        qr_text = driver.execute_script("return document.getElementById('qr').dataset.text")
        if qr_text not in urls:
            raise Failure(f"the QR code holds {qr_text!r}, not one of the device URLs")
        decoded, missing = decode_qr(driver.find_element(By.ID, "qr").screenshot_as_png)
        if decoded is None:
            if args.require_qr:
                raise Failure(f"cannot decode the QR code: {missing} (pip install pyzbar; apt-get install libzbar0)")
            checks.note(f"QR code not decoded: {missing} (pip install pyzbar; apt-get install libzbar0)")
        elif decoded != [qr_text]:
            raise Failure(f"the QR code on the page decodes to {decoded!r}, expected {qr_text!r}")
        else:
            checks.ok(f"the QR code decodes to {qr_text}")
        check_setup_and_devices(driver, url, args.token, sid, timeout, checks, args.require_qr)
        driver.save_screenshot(os.path.join(args.screenshots, "0-devices.png"))

        # 3. Records appear while a player runs.
        player = Player(master_url, selector)
        player.start()
        if not player.paused.wait(timeout):
            raise Failure("the player did not get through its first requests")
        if player.error:
            raise Failure(f"player: {player.error}")
        rows = wait_for("the player's first requests (master, media, segments) in the table", lambda: (
            lambda r: r if {"master", "media", "segment"} <= {x["kind"] for x in r} else None)(page_rows(driver)), timeout)
        if not player.is_alive():
            raise Failure("the player ended before the page was checked")
        checks.ok(f"while the player runs, the table shows its requests ({len(rows)} rows: "
                  + ", ".join(sorted({x['kind'] for x in rows})) + ")")
        player.go_on.set()
        player.join(timeout)
        if player.error:
            raise Failure(f"player: {player.error}")
        bad = [s for s in player.statuses if s[1] != 200]
        if bad:
            raise Failure(f"without faults the proxy answered {bad}")
        played = len(player.statuses)
        wait_for(f"all {played} requests in the table", lambda: len(page_rows(driver)) >= played, timeout)
        wait_for("a variant lane in the chart", lambda: driver.find_elements(By.CSS_SELECTOR, "#lane-chart svg .lane-label"), timeout)
        checks.ok(f"all {played} requests listed, lanes drawn")
        check_chart_parts(driver, player.variant[0], timeout, checks)
        driver.save_screenshot(os.path.join(args.screenshots, "1-records.png"))

        # 4. A preset applied from the page changes what the proxy serves.
        if target_msn not in player.segments:
            raise Failure(f"the media playlist has no segment {target_msn} (it has {min(player.segments)}–{max(player.segments)})")
        Select(driver.find_element(By.ID, "s-preset")).select_by_value(args.preset)
        driver.find_element(By.ID, "s-apply").click()
        wait_for(f"the session's scenario to show {args.preset}",
                 lambda: driver.find_element(By.ID, "s-scenario").text.strip() == args.preset, timeout)
        checks.ok(f"applied {args.preset} from the page; the session shows it")
        status, headers, body = fetch(player.segments[target_msn])
        fault = {k.lower(): v for k, v in headers.items()}.get("x-hlschaos-fault", "")
        if status != target_status:
            raise Failure(f"after applying {args.preset}, segment {target_msn} of the {selector} variant answered {status}, expected {target_status}")
        if rule_id and rule_id not in fault:
            raise Failure(f"the faulted answer's X-HLSChaos-Fault is {fault!r}, expected it to name {rule_id}")
        checks.ok(f"the proxy now answers {status} for segment {target_msn} (X-HLSChaos-Fault: {fault})")
        wait_for(f"the {target_status} in the table, marked as a fault", lambda: [
            r for r in page_rows(driver) if r["status"] == str(target_status) and r["fault"] == "1" and r["msn"].startswith(str(target_msn))], timeout)
        wait_for("a failure mark on the lanes", lambda: driver.find_elements(By.CSS_SELECTOR, "#lane-chart .mark-fail"), timeout)
        verdict = wait_for("a verdict that knows about the fault", lambda: driver.execute_script("""
            const box = document.getElementById('verdict');
            return ['none', 'error', 'clean'].includes(box.dataset.outcome) ? null : document.getElementById('verdict-text').textContent;"""),
            timeout + 10)
        checks.ok(f"the page shows the faulted request, a fault mark and the verdict: “{verdict}”")
        check_fault_in_chart_table_and_report(driver, url, args.token, sid, target_status, timeout, checks)
        driver.save_screenshot(os.path.join(args.screenshots, "2-fault.png"))

        # 5. Clearing the session's rules from the page.
        click(driver, "s-clear", timeout)
        wait_for("the session's scenario to clear",
                 lambda: driver.find_element(By.ID, "s-scenario").get_attribute("data-scenario") == "", timeout)
        status, _, _ = fetch(player.segments[target_msn])
        if status != 200:
            raise Failure(f"after clearing the session's rules from the page, segment {target_msn} answered {status}")
        checks.ok(f"cleared the rules from the page; segment {target_msn} answers 200 again")

        # 5b. The link panel, the link lane and the rows' link times.
        check_link(driver, url, args.token, sid, player, timeout, checks, args.screenshots)

        # 5c. The player's buffer from CMCD: the lane, the stall, the rows.
        check_buffer(driver, url, args.token, sid, player, timeout, checks, args.screenshots)
        time.sleep(1.0)  # lets the last record and report requests settle before reading the console

        # 6. No console error.
        errors = severe_console_entries(driver)
        console_checked = True
        if errors:
            raise Failure("the browser console has errors:\n" + "\n".join(f"    {e['message']}" for e in errors))
        checks.ok("no error in the browser console")
        driver.save_screenshot(os.path.join(args.screenshots, "4-cleared.png"))
    except Failure as failure:
        try:
            driver.save_screenshot(os.path.join(args.screenshots, "failure.png"))
            if not console_checked:
                for e in driver.get_log("browser"):
                    print(f"  console {e.get('level')}: {e.get('message')}")
        except Exception:
            pass
        print(f"dashboard_test: FAIL: {failure}")
        print(f"dashboard_test: {checks.passed} passed, 1 failed (screenshots in {args.screenshots})")
        return 1
    finally:
        if player:
            player.go_on.set()
        driver.quit()
        api(url, "DELETE", f"api/sessions/{urllib.parse.quote(sid)}", args.token)
        api(url, "DELETE", f"api/devices/{NAMED_ADDRESS}", args.token)
    print(f"dashboard_test: PASS, screenshots in {args.screenshots}")
    print(f"dashboard_test: {checks.passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
