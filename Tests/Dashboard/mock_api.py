#!/usr/bin/env python3
"""A THROWAWAY MOCK of the hlschaos control API, only for working on the dashboard page.

    python3 Tests/Dashboard/mock_api.py [--port 8081] [--proxy-port 8080] [--token T] [--no-sim]
                                        [--presets-json] [--forward] [--https-port 8443]

It is NOT the product and proves nothing about it: the real end-to-end check is
Tests/Dashboard/dashboard_test.py against a real `hlschaos` control listener and proxy.

What it does:
- serves Sources/Control/Dashboard/ at / and fakes the control API routes the page uses
  (presets, sessions, rules, events, SSE stream, reaction report, HAR, devices, setup) with made-up
  data; with --forward or --https-port, /api/setup says so, so the page shows the forward proxy's
  devices (two made-up ones unless --no-sim) and the setup page's QR code;
- runs a fake "proxy" on --proxy-port: /s/<id>/vod/ts/master.m3u8, .../v<N>/index.m3u8 and
  .../v<N>/s<NNN>.ts, answering 503 for segments 8-10 of the highest variant when the session's
  scenario is status-503 (a crude imitation of rules/status-503.json), and recording every request,
  so dashboard_test.py can be developed against it;
- simulates a few players (unless --no-sim): a live session with faults that keeps going, a clean
  one that finished, and one that gave up, so the page has something to show.
"""
import argparse, ipaddress, json, os, re, random, threading, time, urllib.parse
from datetime import datetime, timezone
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DASHBOARD = os.path.join(ROOT, "Sources", "Control", "Dashboard")
RULES = os.path.join(ROOT, "rules")

LOCK = threading.Condition()
SESSIONS = {}        # id -> {"id", "startedAt", "scenario", "records": [...], "counters": {}}
RECORDS = []         # every record, in emission order
NEXT_ID = [1]
GLOBAL = {"scenario": None}
DEVICES = {}         # address -> {"session", "lastSeen"}: devices the forward proxy saw (made up)
NAMES = {}           # address -> session name given through the API
ARGS = None
VARIANTS = [(0, 225254, "416x234"), (1, 374902, "640x360"), (2, 653142, "960x540")]


def iso(ts):
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def load_presets():
    presets = []
    for name in sorted(os.listdir(RULES)):
        if not name.endswith(".json") or name == "schema.json":
            continue
        with open(os.path.join(RULES, name)) as f:
            data = json.load(f)
        item = {"name": name[:-5], "description": data.get("description"), "reference": data.get("reference"), "rules": len(data.get("rules", []))}
        if ARGS.presets_json:
            data.pop("$schema", None)
            item["scenario"] = data
        presets.append(item)
    return presets


DEVICE_HOSTS = ["localhost", "192.168.1.20"]


def session_summary(s):
    scenario = s["scenario"]
    urls = [f"http://{host}:{ARGS.proxy_port}/s/{s['id']}/" for host in DEVICE_HOSTS]
    if ARGS.https_port:
        urls += [f"https://{host}:{ARGS.https_port}/s/{s['id']}/" for host in DEVICE_HOSTS]
    return {
        "id": s["id"], "startedAt": iso(s["startedAt"]), "requests": len(s["records"]),
        "scenario": scenario if isinstance(scenario, str) or scenario is None else scenario.get("name"),
        "urls": urls,
    }


def ip_session(address):
    return "ip-" + re.sub(r"[.:]", "-", address)[:61]


def device_list():
    """GET /api/devices: every device seen and every named address, by address."""
    out = {}
    for address, seen in DEVICES.items():
        name = NAMES.get(address)
        out[address] = {"address": address, "session": name or seen["session"], "named": name is not None, "lastSeen": iso(seen["lastSeen"])}
    for address, name in NAMES.items():
        out.setdefault(address, {"address": address, "session": name, "named": True, "lastSeen": None})
    return [out[a] for a in sorted(out)]


def device_address(text):
    """The path's address as the proxy writes it, or None."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    return str(ip) if ip.version == 4 else text.lower()


def get_session(sid, started=None):
    s = SESSIONS.get(sid)
    if s is None:
        s = SESSIONS[sid] = {"id": sid, "startedAt": started or time.time(), "scenario": None, "records": []}
    return s


def add_record(sid, ts, **fields):
    """Adds one RequestRecord (RequestRecord.swift's JSON) and wakes the streams."""
    with LOCK:
        s = get_session(sid, ts)
        rid = NEXT_ID[0]
        NEXT_ID[0] += 1
        status = fields.get("status", 200)
        rec = {
            "id": rid, "time": iso(ts), "session": sid, "client": "192.168.1.57:51234", "method": "GET",
            "path": fields.get("path", "/"), "kind": fields.get("kind"), "variant": fields.get("variant"),
            "rendition": fields.get("rendition"), "msn": fields.get("msn"),
            "upstream": fields.get("upstream"),
            "matchedRules": fields.get("matchedRules", []),
            "decidingRules": fields.get("decidingRules", {"content": []}),
            "actions": fields.get("actions", []), "status": status,
            "bytesSent": fields.get("bytesSent", 0), "ending": fields.get("ending", "complete"),
            "duration": fields.get("duration", 0.01),
            "requestHeaders": [{"name": "user-agent", "value": "Mock/1.0"}],
            "responseHeaders": fields.get("responseHeaders", [{"name": "content-type", "value": "video/mp2t"}]),
        }
        for key in ("copy", "part"):
            if key in fields:
                rec[key] = fields[key]
        s["records"].append(rec)
        RECORDS.append(rec)
        LOCK.notify_all()
        return rec


# ------------------------------------------------------------------ a crude rule engine

def scenario_rules(scenario):
    if scenario is None:
        return None, []
    if isinstance(scenario, str):
        path = os.path.join(RULES, scenario + ".json")
        if not os.path.exists(path):
            return scenario, []
        with open(path) as f:
            scenario = json.load(f)
    return scenario.get("name", "scenario"), scenario.get("rules", [])


def rule_matches(match, kind, variant, msn):
    if "kind" in match and match["kind"] not in ("any", kind) and not (isinstance(match["kind"], list) and kind in match["kind"]):
        return False
    if "variant" in match:
        v = match["variant"]
        want = {"highest": 2, "lowest": 0}.get(v) if isinstance(v, str) else (v.get("index") if isinstance(v, dict) else None)
        if variant is None or want != variant:
            return False
    if "msn" in match:
        m = match["msn"]
        if msn is None:
            return False
        if isinstance(m, int) and m != msn:
            return False
        if isinstance(m, dict) and not (m.get("from", -10**9) <= msn <= m.get("to", 10**9)):
            return False
    return True


def decide(sid, kind, variant, msn):
    """(status or None, matched rule names, actions) for the session's scenario then the global one."""
    for scenario in (SESSIONS.get(sid, {}).get("scenario"), GLOBAL["scenario"]):
        name, rules = scenario_rules(scenario)
        for rule in rules:
            if rule_matches(rule.get("match", {}), kind, variant, msn) and "status" in rule.get("action", {}):
                status = rule["action"]["status"]
                return status, [f"{name}/{rule['id']}"], [typed("status", f"{name}/{rule['id']}", f"status {status}", status=status)]
    return None, [], []


def validate(scenario):
    problems = []
    if isinstance(scenario, str):
        if not os.path.exists(os.path.join(RULES, scenario + ".json")):
            problems.append(f'no preset named "{scenario}"')
        return problems
    if not isinstance(scenario, dict):
        return ["$: a scenario is an object"]
    if not isinstance(scenario.get("name"), str):
        problems.append('$.name: required, a string')
    rules = scenario.get("rules")
    if not isinstance(rules, list) or not rules:
        problems.append("$.rules: at least one rule")
        return problems
    known = {"kind", "variant", "rendition", "msn", "index", "time", "requests", "after", "for", "probability", "seed", "copy", "session", "method", "range"}
    for i, rule in enumerate(rules):
        if "id" not in rule:
            problems.append(f"$.rules[{i}].id: required")
        for key in (rule.get("match") or {}):
            if key not in known:
                hint = ' (did you mean "msn"?)' if key in ("msm", "mns") else ""
                problems.append(f'$.rules[{i}].match.{key}: unknown key "{key}"{hint}')
        if "action" not in rule:
            problems.append(f"$.rules[{i}].action: required")
    return problems


def rules_json():
    g = GLOBAL["scenario"]
    return {"scenario": g if isinstance(g, str) or g is None else g.get("name"), "ruleFiles": []}


def as_problems(problems):
    """The API's problem objects: {file, path, message}."""
    out = []
    for p in problems:
        path, sep, message = p.partition(": ")
        out.append({"file": "scenario", "path": path, "message": message} if sep else {"file": "request", "path": "$.scenario", "message": p})
    return out


def typed(kind, rule, words, **values):
    """A record's action as the proxy writes it: {kind, rule, <typed values>, words}."""
    return {"kind": kind, "rule": rule, **values, "words": words}


# ------------------------------------------------------------------ report (a rough imitation)

def words(r):
    owner = f" of variant {r['variant']}" if r.get("variant") is not None else (f" of rendition {r['rendition']}" if r.get("rendition") is not None else "")
    if r.get("kind") == "segment":
        return f"segment {r.get('msn')}{owner}"
    if r.get("kind") == "media":
        return f"the media playlist{owner}"
    if r.get("kind") == "master":
        return "the master playlist"
    return r.get("path", "?")


def failed(r):
    return r.get("status") is None or r["status"] >= 400 or r.get("ending") != "complete"


def resource(r):
    return {k: r.get(k) for k in ("kind", "variant", "rendition", "copy", "msn", "part")} | {"path": r["path"].split("?")[0]}


OUTCOME_WORDS = {"clean": "clean", "continued": "kept playing", "recovered": "recovered", "unrecovered": "still failing", "gaveUp": "gave up"}


def report_words(rep):
    """`words` of the report: a rough imitation of Sources/Control/ReportWords.swift."""
    findings = []
    for label, key in (("first fault", "firstFault"), ("first failure", "firstFailure")):
        i = rep.get(key)
        if i and not (key == "firstFailure" and rep.get("firstFault", {}).get("record") == i["record"]):
            acts = [a["words"] if isinstance(a, dict) else a for a in i["actions"] if not (isinstance(a, dict) and a.get("kind") == "status")]
            findings.append({"label": label, "words": f"{words(i['resource'])} → {i['status'] or 'no response'}" + (f" · {', '.join(acts)}" if acts else ""),
                             "time": i["time"], "records": [i["record"]]})
    if rep["switches"]:
        n = len(rep["switches"])
        findings.append({"label": f"{n} switch{'es' if n > 1 else ''}", "words": ", then ".join(f"{sw['direction']} to variant {sw['to']}" for sw in rep["switches"][:3]),
                         "time": rep["switches"][0]["time"], "records": [sw["records"][-1] for sw in rep["switches"][:3]]})
    for x in rep["retries"][:3]:
        findings.append({"label": "retried", "words": f"{words(x['resource'])} {x['retries']} times → {'succeeded' if x['succeeded'] else 'never succeeded'}", "records": x["records"]})
    if rep.get("stop"):
        findings.append({"label": "stop", "words": f"{rep['stop']['kind']}, idle {rep['stop']['idle']} s", "time": rep["stop"]["time"], "records": rep["stop"]["records"]})
    if rep["failures"]:
        findings.append({"label": "failed", "words": f"{len(rep['failures'])} requests", "records": rep["failures"]})
    findings += [{"label": "", "words": note, "records": [], "tone": "note"} for note in rep["notes"]]
    return {"outcome": OUTCOME_WORDS.get(rep["outcome"], rep["outcome"]), "findings": findings}


def report(sid):
    s = SESSIONS[sid]
    recs = sorted(s["records"], key=lambda r: (r["time"], r["id"]))
    rep = {"session": sid, "requests": len(recs), "switches": [], "retries": [], "failovers": [], "reloads": [],
           "skipped": [], "failures": [r["id"] for r in recs if failed(r)], "notes": [], "outcome": "clean", "verdict": ""}
    if not recs:
        rep["verdict"] = "No requests."
        rep["words"] = report_words(rep)
        return rep
    t = lambda r: datetime.fromisoformat(r["time"].replace("Z", "+00:00")).timestamp()
    incident = lambda r: {"record": r["id"], "time": r["time"], "resource": resource(r), "status": r.get("status"), "ending": r["ending"], "actions": r["actions"]}
    fault = next((r for r in recs if r["actions"]), None)
    fail = next((r for r in recs if failed(r)), None)
    if fault: rep["firstFault"] = incident(fault)
    if fail: rep["firstFailure"] = incident(fail)
    cur = None
    for r in recs:
        if r.get("kind") == "segment" and r.get("variant") is not None:
            if cur and cur["variant"] != r["variant"]:
                rep["switches"].append({"time": r["time"], "from": cur["variant"], "to": r["variant"],
                                        "direction": "up" if r["variant"] > cur["variant"] else "down", "basis": "index", "records": [cur["id"], r["id"]]})
            cur = r
    opened = {}
    for r in recs:
        key = (r.get("kind"), r.get("variant"), r.get("rendition"), r.get("msn")) if r.get("msn") is not None else (r.get("kind"), r["path"])
        if key in opened:
            opened[key].append(r)
            if not failed(r):
                series = opened.pop(key)
                rep["retries"].append(series)
        elif failed(r):
            opened[key] = [r]
    rep["retries"] += [v for v in opened.values() if len(v) > 1]
    rep["retries"] = [{"resource": resource(a[0]), "retries": len(a) - 1,
                       "spacing": [round(t(b) - t(x), 3) for x, b in zip(a, a[1:])],
                       "succeeded": not failed(a[-1]), "statuses": [x.get("status") for x in a], "records": [x["id"] for x in a]}
                      for a in rep["retries"]]
    media = {}
    for r in recs:
        if r.get("kind") == "media":
            media.setdefault((r.get("variant"), r.get("rendition")), []).append(r)
    for (v, rd), rs in media.items():
        if len(rs) >= 2:
            gaps = sorted(t(b) - t(a) for a, b in zip(rs, rs[1:]))
            med = gaps[len(gaps) // 2]
            live = sid == "living-room-tv"
            pace = "notJudged" if not live or len(rs) < 3 else ("tooFast" if med < 1 else "tooSlow" if med > 3 else "withinBounds")
            rep["reloads"].append({"variant": v, "rendition": rd, "requests": len(rs), "medianInterval": round(med, 3),
                                   "targetDuration": 2 if live else None, "ratio": round(med / 2, 3) if live else None,
                                   "pace": pace, "records": [x["id"] for x in rs]})
    idle = time.time() - t(recs[-1])
    if idle > 10:
        tail_failed = failed(recs[-1])
        rep["stop"] = {"kind": "gaveUp" if tail_failed else "finished", "time": recs[-1]["time"], "idle": round(idle, 1),
                       "lastSegment": resource(cur) if cur else None, "records": [recs[-1]["id"]]}
    last_fail = max((i for i, r in enumerate(recs) if failed(r)), default=None)
    if last_fail is None:
        rep["outcome"] = "continued" if fault else "clean"
    elif rep.get("stop", {}).get("kind") == "gaveUp":
        rep["outcome"] = "gaveUp"
    else:
        rep["outcome"] = "recovered" if any(not failed(r) and r.get("kind") == "segment" for r in recs[last_fail + 1:]) else "unrecovered"
    trigger = fault or fail
    if trigger:
        clauses = []
        if rep["retries"]:
            x = rep["retries"][0]
            sp = x["spacing"]
            clauses.append(f"retried {words(x['resource'])} {['', 'once', 'twice', 'three times'][x['retries']] if x['retries'] < 4 else str(x['retries']) + ' times'}"
                           + (f" ({min(sp):.1f}–{max(sp):.1f} s apart)" if sp and max(sp) - min(sp) >= 0.2 else f" ({sp[0]:.1f} s apart)" if sp else ""))
        after = [sw for sw in rep["switches"] if sw["time"] >= trigger["time"]]
        if after:
            sw = after[0]
            clauses.append(f"switched {sw['direction']} to variant {sw['to']} after {t({'time': sw['time']}) - t(trigger):.1f} s")
        text = ", then ".join(clauses) or f"No retry or switch after the first {trigger.get('status')} ({words(trigger)})"
        text = text[0].upper() + text[1:]
        text += {"recovered": "; recovered", "gaveUp": "; gave up", "unrecovered": "; still failing", "continued": "; kept playing"}.get(rep["outcome"], "")
        rep["verdict"] = text + "."
        rep["firstReaction"] = {"kind": "retry" if rep["retries"] else "switch", "time": recs[-1]["time"], "after": 1.0, "records": [trigger["id"]]}
    else:
        rep["verdict"] = "Played without trouble" + (f"; switched {len(rep['switches'])} times, last {rep['switches'][-1]['direction']} to variant {rep['switches'][-1]['to']}" if rep["switches"] else "") + "."
    if rep.get("stop", {}).get("kind") == "finished":
        rep["verdict"] += " Finished at the last segment."
    if rep["switches"]:
        rep["notes"].append("Up/down decided by variant index (no bandwidths given): assumes the master lists variants from lowest to highest bandwidth.")
    rep["words"] = report_words(rep)
    return rep


# ------------------------------------------------------------------ simulated players

def seg_path(sid, v, msn, live=False):
    return f"/s/{sid}/~seg.v{v}.n{msn}/http/127.0.0.1:35495/{'live' if live else 'vod'}/ts/v{v}/s{msn:03d}.ts"


def simulate_history(sid, start, scenario, segments, pattern):
    """A VOD playback in the past: pattern(msn, variant, attempt) -> (status, ending, bytes, actions) or None."""
    s = get_session(sid, start)
    s["scenario"] = scenario
    t = start
    add_record(sid, t, path=f"/s/{sid}/vod/ts/master.m3u8", kind="master", bytesSent=1857, responseHeaders=[{"name": "content-type", "value": "application/vnd.apple.mpegurl"}])
    v = 0
    t += 0.1
    add_record(sid, t, path=f"/s/{sid}/~media.v0/http/o/vod/ts/v0/index.m3u8", kind="media", variant=0, bytesSent=1175)
    add_record(sid, t + 0.01, path=f"/s/{sid}/~media.r0/http/o/vod/ts/audio/en/index.m3u8", kind="media", rendition=0, bytesSent=1219)
    for msn in range(segments):
        t += 0.6 + random.random() * 0.3
        if sid == "qa-phone" and msn in (2, 5):
            v = min(2, v + 1)
            add_record(sid, t, path=f"/s/{sid}/~media.v{v}/http/o/vod/ts/v{v}/index.m3u8", kind="media", variant=v, bytesSent=1175)
            t += 0.05
        attempt = 0
        add_record(sid, t + 0.01, path=f"/s/{sid}/~seg.r0.n{msn}/http/o/vod/ts/audio/en/s{msn:03d}.ts", kind="segment", rendition=0, msn=msn, bytesSent=12220, duration=0.02)
        while True:
            outcome = pattern(msn, v, attempt)
            if outcome is None:
                add_record(sid, t, path=seg_path(sid, v, msn), kind="segment", variant=v, msn=msn,
                           bytesSent=[63356, 120508, 149836][v] + random.randint(-9000, 9000), duration=0.03 + random.random() * 0.2)
                break
            status, ending, sent, actions, rule = outcome
            add_record(sid, t, path=seg_path(sid, v, msn), kind="segment", variant=v, msn=msn, status=status, ending=ending,
                       bytesSent=sent, duration=0.4, actions=actions, matchedRules=[rule], decidingRules={"response": rule, "content": []})
            attempt += 1
            t += 1.0 + attempt * 0.5
            if attempt >= 4:
                return


def live_player(sid):
    """Keeps a live session going: reloads, segments, a 503 burst every 20 segments, delays on v1."""
    scenario = {"name": "flaky-cdn", "rules": []}
    start = time.time() - 95
    s = get_session(sid, start)
    s["scenario"] = scenario
    add_record(sid, start, path=f"/s/{sid}/live/ts/master.m3u8", kind="master", bytesSent=1857)
    t, msn, v, attempt, down_until = start + 0.2, 6, 2, 0, -1

    def step(now_t, live_now):
        nonlocal msn, v, attempt, down_until
        add_record(sid, now_t, path=f"/s/{sid}/~media.v{v}/http/o/live/ts/v{v}/index.m3u8", kind="media", variant=v, bytesSent=640, duration=0.008)
        add_record(sid, now_t + 0.02, path=f"/s/{sid}/~media.r0/http/o/live/ts/audio/en/index.m3u8", kind="media", rendition=0, bytesSent=610, duration=0.006)
        add_record(sid, now_t + 0.05, path=f"/s/{sid}/~seg.r0.n{msn}/http/o/live/ts/audio/en/s{msn:03d}.ts", kind="segment", rendition=0, msn=msn, bytesSent=12220, duration=0.03)
        if v == 2 and msn % 20 in (8, 9, 10):
            rule = "flaky-cdn/top-503-burst"
            add_record(sid, now_t + 0.1, path=seg_path(sid, v, msn, True), kind="segment", variant=v, msn=msn, status=503, bytesSent=58,
                       duration=0.004, actions=[typed("status", rule, "status 503", status=503)], matchedRules=[rule], decidingRules={"response": rule, "content": []},
                       responseHeaders=[{"name": "retry-after", "value": "2"}, {"name": "x-hlschaos-fault", "value": rule}])
            attempt += 1
            if attempt >= 2:
                v, attempt, down_until = 1, 0, msn + 4
            return
        delay = v == 1 and msn % 3 == 0
        rule = "flaky-cdn/mid-slow"
        add_record(sid, now_t + 0.1, path=seg_path(sid, v, msn, True), kind="segment", variant=v, msn=msn,
                   bytesSent=[63356, 120508, 149836][v] + random.randint(-9000, 9000), duration=(1.5 if delay else 0.05) + random.random() * 0.1,
                   actions=[typed("delay", rule, "delay 1.5 s", seconds=1.5)] if delay else [], matchedRules=[rule] if delay else [],
                   decidingRules={"delay": rule, "content": []} if delay else {"content": []})
        msn += 1
        if v == 1 and msn >= down_until:
            v = 2

    while t < time.time():
        step(t, False)
        t += 2.0
    while True:
        delay = t - time.time()
        if delay > 0:
            time.sleep(delay)
        step(time.time(), True)
        t += 2.0


def start_simulation():
    random.seed(7)
    now = time.time()

    def reset_pattern(msn, v, attempt):
        if msn >= 8:
            rule = "reset-mid-segment/top-msn8-10-reset"
            return (200, "reset", 50000, [typed("reset", rule, "reset after 50000 bytes", bytes=50000)], rule)
        return None

    simulate_history("qa-phone", now - 180, None, 12, lambda msn, v, a: None)
    simulate_history("ci-ffmpeg-7", now - 400, "reset-mid-segment", 12, reset_pattern)
    threading.Thread(target=live_player, args=("living-room-tv",), daemon=True).start()
    time.sleep(0.3)


# ------------------------------------------------------------------ HTTP

CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".svg": "image/svg+xml", ".png": "image/png", ".json": "application/json"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, data):
        body = json.dumps(data).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_empty(self, code=204):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        return json.loads(raw) if raw else {}

    def authorized(self, query):
        if not ARGS.token:
            return True
        if self.headers.get("Authorization") == f"Bearer {ARGS.token}":
            return True
        return query.get("token", [None])[0] == ARGS.token

    def link(self, s, rest, method):
        """A crude imitation of the session's link: a constant rate or a profile, a made-up history."""
        if method == "PUT" and rest == []:
            spec = self.body()
            rate = {"slow-3g": 400000, "slow-4g": 1440000, "fast-3g": 1440000, "fast-4g": 8100000}.get(spec.get("profile"))
            m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(k|M)bps", str(spec.get("rate", "")))
            if m:
                rate = float(m.group(1)) * (1000 if m.group(2) == "k" else 1e6)
            if not rate:
                return self.send_json(400, {"error": "the body must be a link spec such as {\"profile\": \"slow-3g\"}", "problems": [
                    {"file": "request", "path": "$.rate" if "rate" in spec else "$", "message": "the mock knows rates such as \"2Mbps\" and the four profiles"}]})
            s["link"] = {"rate": int(rate), "profile": spec.get("profile"), "since": time.time()}
        elif method == "DELETE" and rest == []:
            s.pop("link", None)
        elif method == "POST" and rest == ["cut"]:
            if "link" not in s:
                return self.send_json(409, {"error": "no link running to cut"})
        elif not (method == "GET" and rest == []):
            return self.send_json(404, {"error": "no such link route"})
        link = s.get("link")
        body = {"session": s["id"], "status": "running" if link else "none", "own": bool(link), "flows": 0,
                "ladder": [v[1] for v in VARIANTS], "history": {"bucketSeconds": 0.25, "capacity": [], "delivered": [], "down": []}}
        if link:
            buckets = min(2400, int((time.time() - link["since"]) / 0.25) + 1)
            start = time.time() - buckets * 0.25
            body.update({"from": "the control API", "profile": link["profile"], "capacity": link["rate"],
                         "latency": {"base": 0.08, "jitter": 0.02, "newConnection": 0.08}, "duringOutage": "wait"})
            body["history"].update({"start": datetime.fromtimestamp(start, timezone.utc).isoformat().replace("+00:00", "Z"),
                                    "capacity": [link["rate"]] * buckets,
                                    "delivered": [int(link["rate"] * random.uniform(0.3, 0.95)) for _ in range(buckets)],
                                    "down": [0.25 if 40 <= i < 80 else 0 for i in range(buckets)]})
        return self.send_json(200, body)

    def do_GET(self): self.route("GET")
    def do_POST(self): self.route("POST")
    def do_PUT(self): self.route("PUT")
    def do_DELETE(self): self.route("DELETE")

    def route(self, method):
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, urllib.parse.parse_qs(url.query)
        if not path.startswith("/api/"):
            return self.static(path)
        if not self.authorized(query):
            return self.send_json(401, {"error": "a control token is needed: Authorization: Bearer <token>"})
        parts = [urllib.parse.unquote(p) for p in path.split("/")[2:]]
        try:
            with LOCK:
                return self.api(method, parts, query)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def static(self, path):
        if path == "/":
            path = "/index.html"
        file = os.path.normpath(os.path.join(DASHBOARD, path.lstrip("/")))
        if not file.startswith(DASHBOARD) or not os.path.isfile(file):
            return self.send_json(404, {"error": f"no such file {path}"})
        with open(file, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPES.get(os.path.splitext(file)[1], "application/octet-stream"))
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def api(self, method, parts, query):
        if parts == ["presets"] and method == "GET":
            return self.send_json(200, {"presets": load_presets()})
        if parts == ["sessions"] and method == "GET":
            return self.send_json(200, {"sessions": [session_summary(s) for s in SESSIONS.values()]})
        if parts == ["sessions"] and method == "POST":
            body = self.body()
            sid = body.get("id", "")
            if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", sid):
                return self.send_json(400, {"error": "bad session id", "problems": [{"file": "request", "path": "id", "message": "1 to 64 letters, digits, '.', '_' or '-'"}]})
            scenario = body.get("scenario")
            if scenario is not None:
                problems = validate(scenario)
                if problems:
                    return self.send_json(400, {"error": f"the scenario is not valid: {len(problems)} problem(s)", "problems": as_problems(problems)})
            existed = sid in SESSIONS
            s = get_session(sid)
            s["scenario"] = scenario
            return self.send_json(200 if existed else 201, session_summary(s))
        if parts == ["rules"] and method in ("GET", "PUT", "DELETE"):
            if method == "GET":
                return self.send_json(200, rules_json())
            if method == "DELETE":
                GLOBAL["scenario"] = None
                return self.send_json(200, rules_json())
            scenario = self.body().get("scenario")
            problems = validate(scenario)
            if problems:
                return self.send_json(400, {"error": f"the scenario is not valid: {len(problems)} problem(s)", "problems": as_problems(problems)})
            GLOBAL["scenario"] = scenario
            return self.send_json(200, rules_json())
        if parts == ["events", "stream"] and method == "GET":
            return self.stream(query)
        if parts == ["setup"] and method == "GET":
            return self.send_json(200, {"forward": ARGS.forward, "proxyPort": ARGS.proxy_port, "httpsPort": ARGS.https_port,
                                        "setupURLs": [f"http://{h}:{ARGS.proxy_port}/hlschaos/setup" for h in DEVICE_HOSTS]})
        if parts == ["devices"] and method == "GET":
            return self.send_json(200, {"devices": device_list()})
        if len(parts) == 2 and parts[0] == "devices" and method in ("PUT", "DELETE"):
            address = device_address(parts[1])
            if address is None:
                return self.send_json(400, {"error": f'"{parts[1]}" is not an IP address', "problems": [
                    {"file": "request", "path": "address", "message": "expected an IPv4 or IPv6 address"}]})
            if method == "DELETE":
                if NAMES.pop(address, None) is None:
                    return self.send_json(404, {"error": f"no session name was given to {address}", "problems": []})
                return self.send_empty()
            body = self.body()
            session = body.get("session") if isinstance(body, dict) else None
            if not isinstance(session, str) or not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", session) or set(body) != {"session"}:
                return self.send_json(400, {"error": '"session" must be a session name', "problems": [
                    {"file": "request", "path": "$.session", "message": "expected 1 to 64 letters, digits, '.', '_' or '-'"}]})
            NAMES[address] = session
            return self.send_json(200, next(d for d in device_list() if d["address"] == address))
        if len(parts) >= 2 and parts[0] == "sessions":
            sid = parts[1]
            s = SESSIONS.get(sid)
            if s is None:
                return self.send_json(404, {"error": f"no session {sid}"})
            rest = parts[2:]
            if rest == [] and method == "GET":
                return self.send_json(200, session_summary(s))
            if rest == [] and method == "DELETE":
                del SESSIONS[sid]
                return self.send_empty()
            if rest == ["rules"] and method == "PUT":
                scenario = self.body().get("scenario")
                problems = validate(scenario)
                if problems:
                    return self.send_json(400, {"error": f"the scenario is not valid: {len(problems)} problem(s)", "problems": as_problems(problems)})
                s["scenario"] = scenario
                return self.send_json(200, session_summary(s))
            if rest == ["rules"] and method == "DELETE":
                s["scenario"] = None
                return self.send_json(200, session_summary(s))
            if rest == ["events"] and method == "GET":
                since = int(query.get("since", ["0"])[0] or 0)
                page = [r for r in s["records"] if r["id"] > since][:500]
                return self.send_json(200, {"session": sid, "records": page, "cursor": max([r["id"] for r in page], default=since)})
            if rest and rest[0] == "link":
                return self.link(s, rest[1:], method)
            if rest == ["report"] and method == "GET":
                return self.send_json(200, report(sid))
            if rest == ["har"] and method == "GET":
                har = {"log": {"version": "1.2", "creator": {"name": "hlschaos mock", "version": "0"}, "entries": [
                    {"startedDateTime": r["time"], "request": {"method": "GET", "url": r["path"]}, "response": {"status": r["status"] or 0}} for r in s["records"]]}}
                return self.send_json(200, har)
        return self.send_json(404, {"error": f"no route {method} /api/{'/'.join(parts)}"})

    def stream(self, query):
        sid = query.get("session", [None])[0]
        cursor = int(query.get("since", ["0"])[0] or 0)
        last_event = self.headers.get("Last-Event-ID")
        if last_event and last_event.isdigit():
            cursor = max(cursor, int(last_event))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        LOCK.release()
        try:
            last_beat = time.time()
            while True:
                with LOCK:
                    pending = [r for r in RECORDS if r["id"] > cursor and (sid is None or r["session"] == sid)]
                    if not pending:
                        LOCK.wait(timeout=1.0)
                        pending = [r for r in RECORDS if r["id"] > cursor and (sid is None or r["session"] == sid)]
                out = b""
                for r in pending:
                    out += f"id: {r['id']}\ndata: {json.dumps(r)}\n\n".encode()
                    cursor = r["id"]
                if not pending and time.time() - last_beat > 15:
                    out = b": keep-alive\n\n"
                    last_beat = time.time()
                if out:
                    self.wfile.write(out)
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            LOCK.acquire()
            self.close_connection = True


# ------------------------------------------------------------------ fake proxy

MASTER = """#EXTM3U
#EXT-X-VERSION:3
#EXT-X-STREAM-INF:BANDWIDTH=225254,RESOLUTION=416x234
v0/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=374902,RESOLUTION=640x360
v1/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=653142,RESOLUTION=960x540
v2/index.m3u8
"""


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        started = time.time()
        m = re.match(r"^/s/([A-Za-z0-9._-]{1,64})(?:\+[^/]*)?/(.*)$", urllib.parse.urlsplit(self.path).path)
        if not m:
            return self.reply(404, b"mock proxy: only /s/<id>/vod/ts/... is faked\n", "text/plain")
        sid, rest = m.group(1), m.group(2)
        kind = variant = msn = None
        if rest.endswith("master.m3u8"):
            kind, body, ctype = "master", MASTER.encode(), "application/vnd.apple.mpegurl"
        elif (mm := re.search(r"v(\d)/index\.m3u8$", rest)):
            kind, variant, ctype = "media", int(mm.group(1)), "application/vnd.apple.mpegurl"
            body = ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                    + "".join(f"#EXTINF:2.0,\ns{i:03d}.ts\n" for i in range(12)) + "#EXT-X-ENDLIST\n").encode()
        elif (mm := re.search(r"v(\d)/s(\d+)\.ts$", rest)):
            kind, variant, msn, ctype = "segment", int(mm.group(1)), int(mm.group(2)), "video/mp2t"
            body = bytes(188 * 50)
        else:
            return self.reply(404, b"mock proxy: unknown path\n", "text/plain")
        with LOCK:
            status, matched, actions = decide(sid, kind, variant, msn)
        if status:
            body, ctype = f"mock proxy: fault {matched[0]}\n".encode(), "text/plain"
        code = status or 200
        self.reply(code, body, ctype, matched)
        add_record(sid, started, path=self.path, kind=kind, variant=variant, msn=msn, status=code, bytesSent=len(body),
                   duration=time.time() - started, matchedRules=matched, actions=actions,
                   decidingRules={"response": matched[0], "content": []} if matched else {"content": []})

    def reply(self, code, body, ctype, matched=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if matched:
            self.send_header("X-HLSChaos-Fault", ",".join(matched))
        self.end_headers()
        self.wfile.write(body)


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8081)
    ap.add_argument("--proxy-port", type=int, default=8080)
    ap.add_argument("--token")
    ap.add_argument("--no-sim", action="store_true", help="no simulated players")
    ap.add_argument("--presets-json", action="store_true", help="include each preset's JSON in /api/presets")
    ap.add_argument("--replay", help="JSON Lines of real RequestRecords (hlschaos --events FILE) to load as sessions")
    ap.add_argument("--forward", action="store_true", help="say forward mode is on (GET /api/setup): devices panel, setup QR")
    ap.add_argument("--https-port", type=int, help="say the proxy has an HTTPS listener on this port (https:// device URLs)")
    ARGS = ap.parse_args()
    if not ARGS.no_sim:
        start_simulation()
        if ARGS.forward:
            now = time.time()
            DEVICES["192.168.1.57"] = {"session": ip_session("192.168.1.57"), "lastSeen": now - 3}
            DEVICES["192.168.1.64"] = {"session": ip_session("192.168.1.64"), "lastSeen": now - 40}
            NAMES["192.168.1.64"] = "living-room-tv"
    if ARGS.replay:
        with open(ARGS.replay) as f:
            for line in f:
                rec = json.loads(line)
                with LOCK:
                    get_session(rec["session"], datetime.fromisoformat(rec["time"].replace("Z", "+00:00")).timestamp())
                    rec["id"] = NEXT_ID[0]
                    NEXT_ID[0] += 1
                    SESSIONS[rec["session"]]["records"].append(rec)
                    RECORDS.append(rec)
    proxy = ThreadingHTTPServer(("127.0.0.1", ARGS.proxy_port), ProxyHandler)
    proxy.daemon_threads = True
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    server = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    server.daemon_threads = True
    print(f"MOCK control API (page development only): http://127.0.0.1:{ARGS.port}/  fake proxy: http://127.0.0.1:{ARGS.proxy_port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
