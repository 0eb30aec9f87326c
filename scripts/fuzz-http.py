#!/usr/bin/env python3
"""HTTP/1.1 request fuzzer for hlschaos (Python 3 standard library only).

Throws seeded, malformed and unusual requests over raw sockets at a live proxy and checks, for
every connection, that

  1. the process never dies and keeps answering a plain GET (checked every second);
  2. every response is well-formed HTTP/1.1, parsed strictly here (status line, header fields,
     body framed by Content-Length, chunked coding or the end of the connection);
  3. exactly one response comes back per request: none extra, none for a request that was not
     sent, and none missing unless the proxy closed the connection after a malformed request
     (a 400), after `Connection: close`, or a rule hangs or cuts that request on purpose.

Usage:
  fuzz-http.py --binary .build/release/hlschaos [--seconds 60] [--seed S] [--out DIR]
  fuzz-http.py --port 8080 ...         # a proxy started by hand as `hlschaos demo`
  fuzz-http.py --binary PATH --replay DIR/finding-003.json   # or a .bin of raw request bytes
  --workers N (32 concurrent connections), --timeout T (6 s without a byte = unanswered),
  --avoid REGEX (skip connections whose bytes match: a known crash while it is being fixed)

--seconds is the whole run, start-up included (a crash being narrowed down may add up to a tenth).
A case is one connection: one request, several pipelined in one write, several in turn on a
keep-alive connection, bytes dribbled in small writes, or a player-like sequence in one session.
Its seed is "<seed>:<index>", so the same --seed generates the same cases against the same demo.
When the proxy dies or stops answering, the connections since the last good probe are replayed
on a fresh proxy, bisected down to the one that does it, and then to its single request.

With --binary the proxy is started as
  hlschaos demo --host 127.0.0.1 --port 0 --rules <redirect-loop scenario> --origin evil=<misbehaving origin>
         --forward --config <forward settings> --control 127.0.0.1:<free port>
(the misbehaving origin is a small server in this script; --no-evil-origin leaves it out).
Everything stays on loopback. Exit status: 0 no finding, 1 findings (printed, and written to
--out as finding-NNN.json + .bin with the exact bytes sent), 2 the fuzzer could not run.

Forward mode (off with --no-forward; with --port, on with --forward): a share of the cases
(--forward-share, 0.3) are forward-proxy connections, some from 127.0.0.2, which the fuzzer's
config leaves outside forward.allowNetworks (users fz0, tv1, loop1 and a shared password):
hostile CONNECT lines, CONNECTs whose tunnel goes to an echo server on 127.0.0.3 (the bytes must
come back unchanged) or to the demo origin (an HTTP request through it must get the origin's 200),
the tunnel's bytes sent in the CONNECT's own write or after the 200; absolute-form GET/HEAD with
damaged hlschaos= tags and hop counters; odd Proxy-Authorization headers. Each such request carries
the statuses the proxy may answer (a model of its order of decisions: parse 400, credentials
407/400, own listener or link-local 403, presets 400/404, upstream 502), and any other status is a
finding, as is a 407 without Proxy-Authenticate, a refused CONNECT whose connection stays open, or a
tunnel that changes, loses or adds bytes.
"""

import argparse
import base64
import ipaddress
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"
DEFAULT_OUT = os.path.join(REPO, ".build-fuzz-http")

# The scenario every session gets: endless redirects for the segments of `loop*` sessions from
# MSN 2 on and for MSN 11 in every session, and a 3-hop 307 chain for `hop*` sessions.
LOOP_SCENARIO = {
    "name": "fuzz-redirect-loop",
    "description": "redirect loop (hlschaos-hop) for the HTTP fuzzer",
    "rules": [
        {"id": "loop", "match": {"kind": "segment", "msn": {"from": 2}, "session": "loop*"},
         "action": {"redirect": {"loop": True}}},
        {"id": "loop-msn11", "match": {"kind": "segment", "msn": 11}, "action": {"redirect": {"loop": True}}},
        {"id": "hops", "match": {"kind": ["segment", "init"], "session": "hop*"},
         "action": {"redirect": {"status": 307, "hops": 3}}},
    ],
}

ENTRY_MASTERS = [
    "/vod/ts/master.m3u8", "/vod/fmp4/master.m3u8", "/vod/aes/master.m3u8", "/vod/byterange/master.m3u8",
    "/live/ts/master.m3u8", "/live/fmp4/master.m3u8", "/live/aes/master.m3u8",
]
SEGMENT_EXTENSIONS = {"ts", "m4s", "mp4", "m4a", "m4v", "aac", "ac3", "ec3", "mp3", "vtt", "webvtt", "cmfv", "cmfa", "cmft"}
TAG_KINDS = {"master": "master", "media": "media", "seg": "segment", "part": "segment", "asset": "segment",
             "init": "init", "key": "key", "sessiondata": "sessionData", "steering": "steering"}
ALL_KINDS = {"master", "media", "segment", "init", "key", "sessionData", "steering"}
SLOW_ACTIONS = {"hang", "throttle", "stall", "delay"}
CUT_ACTIONS = {"truncate", "reset"}
MAX_PIPELINED = 32  # ClientConnectionHandler.maxPipelined


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def escape(data, limit=None):
    """Bytes as a printable Python-style literal body (\\r\\n, \\x00 …)."""
    if limit is not None and len(data) > limit:
        return escape(data[:limit]) + "… (%d bytes in all)" % len(data)
    out = []
    for b in data:
        if b == 0x0D:
            out.append("\\r")
        elif b == 0x0A:
            out.append("\\n")
        elif b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Strict HTTP/1.1 response parsing

class NeedMore(Exception):
    pass


class Malformed(Exception):
    pass


class Truncated(Exception):
    pass


TOKEN_RE = re.compile(rb"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
STATUS_RE = re.compile(rb"^HTTP/([0-9])\.([0-9]) ([0-9]{3}) ([\t\x20-\x7e\x80-\xff]*)$")
FIELD_VALUE_RE = re.compile(rb"^[\t\x20-\x7e\x80-\xff]*$")
CHUNK_SIZE_RE = re.compile(rb"^([0-9A-Fa-f]{1,16})(;[\t\x20-\x7e\x80-\xff]*)?$")
MAX_HEAD = 1 << 20


class Response:
    __slots__ = ("version", "status", "reason", "headers", "body_length", "framing", "head_bytes", "body_sample")

    def header(self, name):
        values = [v for n, v in self.headers if n == name]
        return b", ".join(values) if values else None

    def tokens(self, name):
        value = self.header(name)
        return {t.strip().lower() for t in value.split(b",")} if value else set()

    @property
    def closes(self):
        return b"close" in self.tokens(b"connection")

    @property
    def is_parser_400(self):
        """NIO's HTTPServerProtocolErrorHandler answer to a request it cannot parse."""
        names = sorted(n for n, _ in self.headers)
        return self.status == 400 and names == [b"connection", b"content-length"] and self.body_length == 0

    def summary(self):
        return "%s %d (%s, %d body bytes)" % (
            "HTTP/%s" % self.version, self.status, self.framing, self.body_length)


def parse_response(buf, start, head_request, eof, connect=False):
    """One response from buf[start:]. Returns (Response or None for 1xx, next offset). A 2xx answer
    to a CONNECT (`connect`) has no body: the tunnel's bytes follow its head."""
    end = buf.find(b"\r\n\r\n", start)
    if end < 0:
        if len(buf) - start > MAX_HEAD:
            raise Malformed("response head longer than 1 MiB without an empty line")
        bare = buf.find(b"\n\n", start)
        if bare >= 0 and (buf[start:bare].find(b"\r\n") < 0 or eof):
            raise Malformed("response head ends with bare LF lines")
        if eof:
            raise Truncated("connection closed inside a response head (%d bytes)" % (len(buf) - start))
        raise NeedMore()
    head = bytes(buf[start:end])
    lines = head.split(b"\r\n")
    for line in lines:
        if b"\r" in line or b"\n" in line:
            raise Malformed("bare CR or LF in the response head: %s" % escape(line, 200))
    match = STATUS_RE.match(lines[0])
    if not match:
        raise Malformed("status line is not `HTTP/x.y NNN reason`: %s" % escape(lines[0], 200))
    version = "%s.%s" % (match.group(1).decode(), match.group(2).decode())
    if version not in ("1.1", "1.0"):
        raise Malformed("status line has HTTP version %s: %s" % (version, escape(lines[0], 200)))
    status = int(match.group(3))
    if status < 100:
        raise Malformed("status code %d below 100" % status)
    headers = []
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t"):
            raise Malformed("obs-fold (continuation line) in the response head: %s" % escape(line, 200))
        name, sep, value = line.partition(b":")
        if not sep or not TOKEN_RE.match(name):
            raise Malformed("header line is not `token: value`: %s" % escape(line, 200))
        value = value.strip(b" \t")
        if not FIELD_VALUE_RE.match(value):
            raise Malformed("header %s has a control character in its value: %s" % (escape(name), escape(value, 200)))
        headers.append((name.lower(), value))
    resp = Response()
    resp.version, resp.status, resp.reason, resp.headers = version, status, match.group(4), headers
    resp.head_bytes = head + b"\r\n\r\n"
    resp.body_sample = b""
    pos = end + 4
    te = [v for n, v in headers if n == b"transfer-encoding"]
    cl = [v for n, v in headers if n == b"content-length"]
    if 100 <= status < 200:
        if status == 101:
            raise Malformed("101 Switching Protocols: the proxy agreed to an upgrade")
        if te or cl:
            raise Malformed("%d interim response with a body header" % status)
        return None, pos
    if cl:
        values = set()
        for v in cl:
            for part in v.split(b","):
                values.add(part.strip())
        if len(values) != 1:
            raise Malformed("conflicting Content-Length values %r" % sorted(values))
        value = values.pop()
        if not value.isdigit() or len(value) > 18:
            raise Malformed("Content-Length is not a number: %s" % escape(value, 100))
        if te:
            raise Malformed("both Transfer-Encoding and Content-Length")
        if status in (204, 304) and int(value) != 0 and status == 204:
            raise Malformed("204 with Content-Length %s" % value.decode())
    if connect and 200 <= status < 300:
        if te or cl:
            raise Malformed("%d answer to CONNECT with %s (RFC 9110 9.3.6: none in a 2xx to CONNECT)"
                            % (status, "Transfer-Encoding" if te else "Content-Length"))
        resp.framing, resp.body_length = "tunnel", 0
        return resp, pos
    if head_request or status in (204, 304):
        if te and status == 204:
            raise Malformed("204 with Transfer-Encoding")
        resp.framing, resp.body_length = "none", 0
        return resp, pos
    if te:
        codings = [c.strip().lower() for v in te for c in v.split(b",") if c.strip()]
        if codings != [b"chunked"]:
            raise Malformed("Transfer-Encoding %s (only chunked is expected)" % escape(b", ".join(te)))
        total = 0
        while True:
            line_end = buf.find(b"\r\n", pos)
            if line_end < 0:
                if len(buf) - pos > 4096:
                    raise Malformed("chunk size line longer than 4 KiB")
                if eof:
                    raise Truncated("connection closed inside a chunked body after %d bytes" % total)
                raise NeedMore()
            size_line = bytes(buf[pos:line_end])
            m = CHUNK_SIZE_RE.match(size_line)
            if not m:
                raise Malformed("bad chunk size line: %s" % escape(size_line, 100))
            size = int(m.group(1), 16)
            pos = line_end + 2
            if size == 0:
                # trailer section, then the empty line
                while True:
                    line_end = buf.find(b"\r\n", pos)
                    if line_end < 0:
                        if eof:
                            raise Truncated("connection closed inside the chunked trailer")
                        raise NeedMore()
                    line = bytes(buf[pos:line_end])
                    pos = line_end + 2
                    if not line:
                        break
                    name, sep, value = line.partition(b":")
                    if not sep or not TOKEN_RE.match(name) or not FIELD_VALUE_RE.match(value.strip(b" \t")):
                        raise Malformed("bad trailer line: %s" % escape(line, 100))
                resp.framing, resp.body_length = "chunked", total
                return resp, pos
            if len(buf) < pos + size + 2:
                if eof:
                    raise Truncated("connection closed inside a %d-byte chunk after %d body bytes" % (size, total))
                raise NeedMore()
            if not resp.body_sample:
                resp.body_sample = bytes(buf[pos:pos + min(size, 300)])
            if buf[pos + size:pos + size + 2] != b"\r\n":
                raise Malformed("chunk data not followed by CRLF")
            pos += size + 2
            total += size
    if cl:
        length = int(cl[0].split(b",")[0].strip())
        if len(buf) - pos < length:
            if eof:
                raise Truncated("connection closed after %d of %d body bytes (Content-Length)" % (len(buf) - pos, length))
            raise NeedMore()
        resp.framing, resp.body_length = "content-length", length
        resp.body_sample = bytes(buf[pos:pos + min(length, 300)])
        return resp, pos + length
    # Delimited by the end of the connection.
    if not eof:
        raise NeedMore()
    resp.framing, resp.body_length = "close", len(buf) - pos
    resp.body_sample = bytes(buf[pos:pos + 300])
    return resp, len(buf)


# ---------------------------------------------------------------------------------------------
# Requests and cases

class Req:
    """One request as sent, with what the oracle may expect of it.

    flags:
      may_reject  the proxy may answer 400 and close, or close without an answer (not valid HTTP)
      may_wait    the proxy may wait for more bytes (incomplete framing); always last on a connection
      may_split   the proxy may see two requests (inconsistent framing); always last on a connection
      terminal    Upgrade/CONNECT: what follows on the connection is not guaranteed an answer
      hang_ok     a rule or the origin may hang or pace this request (timeouts are legitimate)
      cut_ok      a rule or the origin may cut this response short (truncate, reset)
      resets      a rule may reset the connection (RST): responses still in flight before it may be lost too
      connect     a CONNECT: a 2xx answer has no body and turns the connection into a tunnel
    expect: the statuses the answer may have (None: any), and why (the rule that decides them).
    """

    __slots__ = ("raw", "flags", "notes", "head", "closes", "presets", "target", "expect", "why")

    def __init__(self, raw, flags, notes, head, closes, presets=(), target=b"", expect=None, why=""):
        self.raw, self.flags, self.notes, self.head, self.closes = raw, set(flags), list(notes), head, closes
        self.presets, self.target = list(presets), target
        self.expect, self.why = (set(expect) if expect is not None else None), why

    def to_json(self):
        out = {"b64": base64.b64encode(self.raw).decode(), "text": escape(self.raw, 4000),
               "flags": sorted(self.flags), "notes": self.notes, "head": self.head, "closes": self.closes,
               "presets": self.presets}
        if self.expect is not None:
            out["expect"], out["why"] = sorted(self.expect), self.why
        return out

    @staticmethod
    def from_json(obj):
        return Req(base64.b64decode(obj["b64"]), obj.get("flags", []), obj.get("notes", []),
                   obj.get("head", False), obj.get("closes", False), obj.get("presets", []),
                   expect=obj.get("expect"), why=obj.get("why", ""))


class Case:
    """One connection. `source`: the client address it comes from (127.0.0.2 is outside the forward
    proxy's allowed network). `tunnel` (mode "tunnel" only): what goes through the tunnel a CONNECT,
    the last request, opens: {"payload": bytes, "early": sent in the CONNECT's own write,
    "target": "echo" (must come back unchanged) | "origin-http" (an HTTP request to the demo
    origin, answered 200) | "blind" (not judged)}."""

    __slots__ = ("index", "seed", "mode", "requests", "splits", "source", "tunnel")

    def __init__(self, index, seed, mode, requests, splits=None, source=None, tunnel=None):
        self.index, self.seed, self.mode, self.requests, self.splits = index, seed, mode, requests, splits
        self.source, self.tunnel = source, tunnel

    @property
    def raw(self):
        data = b"".join(r.raw for r in self.requests)
        return data + self.tunnel["payload"] if self.tunnel else data

    def subset(self, requests, mode=None):
        """The same connection with fewer requests; a tunnel's CONNECT (the last request) is kept."""
        tunnel = self.tunnel if self.tunnel and requests and requests[-1] is self.requests[-1] else None
        if mode is None:
            mode = "tunnel" if tunnel else "single" if len(requests) == 1 else \
                self.mode if self.mode != "tunnel" else "pipeline"
        return Case(self.index, self.seed, mode, requests, None, self.source, tunnel)

    def to_json(self):
        out = {"index": self.index, "seed": self.seed, "mode": self.mode, "splits": self.splits,
               "requests": [r.to_json() for r in self.requests]}
        if self.source:
            out["source"] = self.source
        if self.tunnel:
            out["tunnel"] = {k: base64.b64encode(v).decode() if isinstance(v, bytes) else v
                             for k, v in self.tunnel.items()}
            out["tunnel"]["payload_text"] = escape(self.tunnel["payload"], 2000)
        return out

    @staticmethod
    def from_json(obj):
        tunnel = obj.get("tunnel")
        if tunnel:
            tunnel = {k: base64.b64decode(v) if k in ("payload", "maybe_prefix") else v
                      for k, v in tunnel.items() if k != "payload_text"}
        return Case(obj.get("index", 0), obj.get("seed", ""), obj.get("mode", "pipeline"),
                    [Req.from_json(r) for r in obj["requests"]], obj.get("splits"), obj.get("source"), tunnel)


class Result:
    def __init__(self):
        self.sent = 0             # requests written completely
        self.responses = []       # Response objects, in order
        self.end = "done"         # done | eof | timeout
        self.error = None         # (kind, message) kind: malformed | truncated
        self.partial = b""        # unparsed bytes at the end
        self.trailing = b""       # bytes after the last expected response
        self.unsolicited = None   # (after response index, bytes) in sequential mode
        self.reset = False
        self.elapsed = 0.0
        self.partial_send = False
        self.tunnel_at = None     # index of the CONNECT answered 2xx: later bytes are the tunnel's
        self.tunnel_data = b""    # what came back through the tunnel
        self.tunnel_eof = False
        self.tunnel_response = None  # (kind, value) of the origin's answer through the tunnel


CMCD_PIECES = [
    "bl=12600", "br=2400", "ot=v", 'sid="s-1"', "su", "bs", "v=2", "bl=(2100;v 1800;a)", 'nor=("seg_9.m4v";r="0-9")',
    "bl=-1", "bl=99999999999999999999", "pr=1.23456", "mtp=1e3", "ot=zz", "sta=r", "sta=x", "bs=?0", "bs=?2",
    'sid="' + "s" * 70 + '"', 'sid="unterminated', 'sid="bad\\escape\\q"', 'cid="caf\u00e9"', "ot=v\u00fc", "BL=1", "x-vendor=1",
    "bl=(1;v 2;a 3;v 4;a 5;v 6;a 7;v 8;a 9;v 10;a 11;v 12;a 13;v 14;a 15;v 16;a 17;v 18;a 19;v 20;a 21;v 22;a 23;v 24;a 25;v 26;a 27;v 28;a 29;v 30;a 31;v 32;a 33;v)",
    "bl=((1))", "bl=(", "=1", ",", ",,", "bl=1,", ";", "bl=:YWJj:", "e=t", "rtp=12,rtp=13", "tb=1,br=2",
]


def cmcd_text(rng):
    """A CMCD dictionary of valid and broken members; sometimes very long, sometimes with non-ASCII."""
    members = [rng.choice(CMCD_PIECES) for _ in range(rng.choice([1, 2, 5, 70]))]
    text = rng.choice([",", ", ", ",\t"]).join(members)
    if rng.random() < 0.1:
        text += "\udcff\udcfe"  # bytes that are not UTF-8 (surrogateescape)
    return text


def target_info(target, presets_info):
    """What the proxy will make of a request target: its presets and possible rule kinds."""
    try:
        text = target.decode("latin-1")
    except Exception:
        return [], set()
    path = text.split("?", 1)[0]
    presets = []
    if path.startswith("/s/"):
        rest = path[3:]
        names = rest.split("/", 1)[0].split("+")
        if names and all(re.fullmatch(r"[A-Za-z0-9._-]{1,64}", n) for n in names):
            presets = names[1:]
            path = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
        else:
            return [], set()
    first = path[1:].split("/", 1)[0]
    if first.startswith("~"):
        kind = first[1:].split(".", 1)[0]
        kinds = {TAG_KINDS[kind]} if kind in TAG_KINDS else set()
    else:
        last = path.rsplit("/", 1)[-1]
        ext = last.rsplit(".", 1)[-1].lower() if "." in last[1:] else ""
        if ext in ("m3u8", "m3u"):
            kinds = {"master", "media"}
        elif ext in SEGMENT_EXTENSIONS:
            kinds = {"segment"}
        else:
            kinds = set()
    return presets, kinds


def allowances(target, presets_info, evil, presets=None, kinds=None):
    """Flags a request earns from its presets (those of its /s/ prefix, or `presets` for the resource
    `kinds`: a forward request's, named by its proxy user) and from the misbehaving origin."""
    if presets is None:
        presets, kinds = target_info(target, presets_info)
    flags = set()
    for name in presets:
        for rule_kinds, actions in presets_info.get(name, []):
            if not (rule_kinds & kinds):
                continue
            if actions & SLOW_ACTIONS:
                flags.add("hang_ok")
            if actions & CUT_ACTIONS:
                flags.add("cut_ok")
            if "reset" in actions:
                flags.add("resets")
    if evil:
        text = target.decode("latin-1", "replace")
        port = ":%d/" % evil
        if port in text or "/@evil/" in text:
            # The behaviours as EvilOrigin reads them: letters and digits after /s/, /k/, /v/ or /p/
            # (so /s/dupcl%2B/6.ts is "dupcl").
            behaviours = set(re.findall(r"/[skvp]/([a-z0-9]+)", text))
            if behaviours & {"slow", "stall"}:
                flags.add("hang_ok")
            # An origin that promises more than it sends (or two lengths) can only be passed on cut.
            if behaviours & {"early", "rst", "close", "dupcl", "clhuge", "negcl"}:
                flags.add("cut_ok")
    return presets, flags


class Targets:
    """Paths learnt from the live proxy: entry paths and the rewritten URIs of its playlists."""

    def __init__(self):
        self.entries = []
        self.tagged = []          # (path, kind, variant, msn)
        self.evil_entries = []
        self.evil_tagged = []
        self.origin_port = 0
        self.evil_port = 0
        self.proxy_port = 0
        self.presets = []
        self.presets_info = {}
        self.preset_statuses = {}     # preset -> statuses its rules answer with
        # Forward mode (--forward): who may use it, and what a connection may reach.
        self.forward = False
        self.outside_clients = False  # 127.0.0.2 is outside forward.allowNetworks (the fuzzer's config)
        self.users, self.shared = {}, None
        self.control_port = 0
        self.echo_port = 0
        self.closed_port = 0
        self.own_ports = set()        # the proxy process's listeners: forward requests there get 403
        self.listeners = set()        # (address, port) a tunnel may reach
        self.machine_addresses = []   # this machine's non-loopback addresses
        self.fwd_tagged = []          # (url, kind, variant, msn) of forward-mode playlists (?hlschaos=…)

    def tagged_matching(self, kind=None, variant=None, msn_range=None):
        out = []
        for path, k, v, n in self.tagged:
            if kind and k != kind:
                continue
            if variant is not None and v != variant:
                continue
            if msn_range and (n is None or not (msn_range[0] <= n <= msn_range[1])):
                continue
            out.append(path)
        return out


TAG_RE = re.compile(r"/~([a-z]+)((?:\.[a-z]?-?[0-9]*)*)/")


def parse_tag(path):
    m = TAG_RE.search(path)
    if not m:
        return None, None, None
    kind = m.group(1)
    variant = msn = None
    for field in m.group(2).split(".")[1:]:
        if field[:1] == "v" and field[1:].isdigit():
            variant = int(field[1:])
        if field[:1] == "n" and field[1:].isdigit():
            msn = int(field[1:])
    return kind, variant, msn


HUGE_NUMBERS = ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-1", "99999999999999999999",
                "18446744073709551615", "0", "-0", "+1", "2147483648", "4294967296", "00000000000000000001",
                "9223372036854775806", "1e3", "0x10", "", " 1", "１", "1.5"]
HOP_VALUES = ["9223372036854775807", "9223372036854775806", "-1", "99999999999999999999", "-9223372036854775808",
              "1", "0", "2", "", "+3", "abc", "9223372036854775807%00", "%39", "18446744073709551616", "3"]
RANGE_VALUES = ["bytes=0-0", "bytes=0-99", "bytes=100-", "bytes=-100", "bytes=-0", "bytes=0-", "bytes=5-1",
                "bytes=99999999999999999999-", "bytes=9223372036854775807-", "bytes=0-9223372036854775807",
                "bytes=-9223372036854775808", "bytes=9223372036854775806-9223372036854775807",
                "bytes=0-1,2-3", "bytes=0-1,0-1,0-1", "bytes=--1", "bytes=", "bytes", "items=0-1", "bytes=a-b",
                "bytes= 0 - 1 ", "bytes=1-2,", ",bytes=1-2", "bytes=18446744073709551615-", "bytes=-18446744073709551616",
                "BYTES=0-1", "bytes=0-" + "9" * 400, "bytes=" + ",".join("%d-%d" % (i, i) for i in range(400)),
                "bytes=4294967295-4294967296", "bytes=1000000-2000000"]
METHODS_VALID = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "TRACE"]
METHODS_ODD = ["get", "Get", "FOO", "G\x00T", "GET\t", "GET /", "M" * 2000, "", "PROPFIND", "MKCOL", "PURGE",
               "LINK", "SEARCH", "REPORT", "QUERY", "ACL", "BREW", "\x80GET", "-", "GET;"]
VERSIONS_ODD = ["HTTP/2.0", "HTTP/1.2", "HTTP/9.9", "http/1.1", "HTTP/1.1 ", "HTTP/1.10", "HTTP/01.1", "HTTP/1",
                "HTTPS/1.1", "HTTP/1.1 extra", "HTTP/1.1\t", "HTTP/ 1.1", "HTTP/1.1\x00", "HTTP/3", "HTTP/0.9",
                "HTTP/1.0 ", "HTTP/11.1", "HTTP/-1.1", "HTTP/1.1" + " " * 100]
BAD_HEADER_NAMES = ["Foo Bar", "Foo\x00", "(x)", "\xdcber", "\"q\"", "", "Foo ", " Foo", "Foo\t", "X-A/B", "X[1]",
                    "Foo=bar", "{}", "Host ", "Content-Length ", "Transfer-Encoding ", "\x7f", "@", "X:Y"]
PCT = ["%00", "%2F", "%2f", "%2E", "%2e%2e", "%25", "%", "%G0", "%0", "%zz", "%c0%af", "%c0%ae%c0%ae", "%ff",
       "%7E", "%2B", "%3F", "%23", "%0d%0a", "%0A", "%09", "%20", "%252e%252e", "%u002e", "%e2%80%ae", "%ef%bf%bf"]


class Generator:
    def __init__(self, targets, session_pool=24):
        self.t = targets
        self.session_pool = ["fz%d" % i for i in range(session_pool)] + ["loop%d" % i for i in range(6)] + \
            ["hop%d" % i for i in range(4)]
        self.suppressed = []      # note sets of crash culprits already reported
        self.lock = threading.Lock()
        self.forward_cases = ForwardCases(self) if targets.forward else None
        self.forward_share = 0.3

    # --- targets -------------------------------------------------------------------------

    def session_prefix(self, rng, presets=None):
        r = rng.random()
        if r < 0.35 and presets is None:
            return "", []
        sid = rng.choice(self.session_pool) if rng.random() < 0.75 else "fx%08x" % rng.getrandbits(32)
        if presets is None:
            count = rng.choice([0, 0, 1, 1, 1, 2, 3])
            presets = [rng.choice(self.t.presets) for _ in range(count)] if self.t.presets else []
        return "/s/" + "+".join([sid] + presets), presets

    def base_path(self, rng, presets):
        """A path (without session prefix) chosen to suit the presets when there are some."""
        t = self.t
        r = rng.random()
        if presets and r < 0.5:
            info = t.presets_info.get(presets[0], [])
            kinds = set()
            for ks, _ in info:
                kinds |= ks
            if "segment" in kinds:
                cands = t.tagged_matching("seg", 2, (7, 11)) or t.tagged_matching("seg")
            elif "key" in kinds:
                cands = t.tagged_matching("key")
            elif "init" in kinds:
                cands = t.tagged_matching("init")
            elif "media" in kinds:
                cands = t.tagged_matching("media")
            elif "master" in kinds:
                cands = ENTRY_MASTERS
            else:
                cands = []
            if cands:
                return rng.choice(cands)
        if r < 0.55 and t.tagged:
            return rng.choice(t.tagged)[0]
        if r < 0.75:
            return rng.choice(t.entries)
        if r < 0.87 and t.evil_tagged:
            return rng.choice(t.evil_tagged + t.evil_entries)
        # synthesised tags
        kind = rng.choice(["seg", "seg", "media", "init", "key", "part", "master", "sessiondata", "steering", "asset"])
        v = rng.choice([0, 1, 2, 3])
        n = rng.choice([0, 1, 2, 7, 8, 9, 10, 11, 12, 500])
        fields = {"seg": ".v%d.n%d" % (v, n), "media": ".v%d" % v, "init": ".v%d" % v, "key": ".v%d.n%d" % (v, n),
                  "part": ".v%d.n%d.p%d" % (v, n, rng.randint(0, 3))}.get(kind, "")
        return "/~%s%s/http/%s:%d/vod/ts/v%d/s%03d.ts" % (kind, fields, HOST, t.origin_port, v, n % 1000)

    # --- target mutations (all keep the request line valid HTTP unless noted) -----------------

    def mut_session(self, rng, path, notes):
        t = self.t
        rest = re.sub(r"^/s/[^/]*", "", path) or "/"
        choices = [
            ("session:empty", "/s/" + rest),
            ("session:noslash", "/s/x"),
            ("session:leading-plus", "/s/+gap" + rest),
            ("session:trailing-plus", "/s/abc+" + rest),
            ("session:double-plus", "/s/abc++gap" + rest),
            ("session:id-64", "/s/" + "a" * 64 + rest),
            ("session:id-65", "/s/" + "b" * 65 + rest),
            ("session:id-1000", "/s/" + "c" * 1000 + rest),
            ("session:unknown-preset", "/s/abc+no-such-preset" + rest),
            ("session:preset-schema", "/s/abc+schema" + rest),
            ("session:preset-README", "/s/abc+README" + rest),
            ("session:preset-dotdot", "/s/abc+.." + rest),
            ("session:preset-65", "/s/abc+" + "p" * 65 + rest),
            ("session:all-presets", "/s/all+" + "+".join(t.presets) + rest),
            ("session:nine-presets", "/s/nine+" + "+".join((t.presets * 2)[:9]) + rest),
            ("session:eight-presets", "/s/eight+" + "+".join(rng.sample(t.presets, min(8, len(t.presets)))) + rest),
            ("session:duplicate-presets", "/s/dup+" + "+".join([rng.choice(t.presets)] * rng.choice([2, 9, 200])) + rest),
            ("session:many-presets", "/s/many+" + "+".join(rng.choice(t.presets) for _ in range(rng.choice([20, 500]))) + rest),
            ("session:bad-char", "/s/a%20b" + rest),
            ("session:bad-char2", "/s/a:b" + rest),
            ("session:utf8", "/s/\u00e4" + rest),
            ("session:dot", "/s/." + rest),
            ("session:dotdot", "/s/.." + rest),
            ("session:nested", "/s/a/s/b" + rest),
            ("session:query", "/s/abc?x=1"),
            ("session:tilde", "/s/~seg.v1.n1" + rest),
            ("session:only-s", "/s"),
            ("session:S", "/S/abc" + rest),
            ("session:pct", "/s/a%2Bgap" + rest),
            ("session:case-preset", "/s/abc+GAP" + rest),
            ("session:preset-prefix", "/s/abc+status-5" + rest),
        ]
        note, out = rng.choice(choices)
        notes.append(note)
        return out

    def mut_tag(self, rng, path, notes):
        m = re.search(r"/~[^/]*", path)
        tags = ["~seg.v9999999999999999999.n-1", "~seg.v2.n9223372036854775807", "~seg.v9223372036854775807",
                "~seg.n-1", "~seg.v-1", "~seg", "~seg.", "~seg..n1", "~", "~.", "~seg.v2.n42.x", "~seg.v2.n42.b.b",
                "~seg.v+1.n+2", "~seg.v0x1", "~seg.v1_000", "~SEG.v1.n1", "~foo.v1", "~seg.q1", "~seg.v1.v2.v3",
                "~seg.n99999999999999999999", "~part.v1.n42.p3", "~part.p9223372036854775807", "~media.r99",
                "~media.v99", "~media.i7", "~media.v0.b", "~master", "~key", "~key.v2.n8", "~sessiondata",
                "~steering", "~asset", "~init.v2", "~init.v99999", "~seg.v" + "9" * 300, "~seg." + ".".join(["n1"] * 300),
                "~seg.v\u00b2", "~seg.v1.n%32", "~seg%2Ev1", "~seg.v1.n1" + "x" * 5000]
        tag = rng.choice(tags)
        notes.append("tag:" + tag[:40])
        if m:
            return path[:m.start()] + "/" + tag + path[m.end():]
        return "/%s/http/%s:%d/vod/ts/v2/s008.ts" % (tag, HOST, self.t.origin_port)

    def mut_upstream(self, rng, path, notes):
        """Damage the scheme/authority/path of a rewritten URI (loopback only)."""
        m = re.match(r"^(/s/[^/]*)?(/~[^/]*)/([^/]*)/([^/]*)(/.*)?$", path)
        if not m:
            notes.append("upstream:none")
            return path
        pre, tag, scheme, auth, rest = m.group(1) or "", m.group(2), m.group(3), m.group(4), m.group(5) or ""
        op = rng.randrange(14)
        port = self.t.origin_port
        if op == 0:
            scheme = rng.choice(["https", "HTTP", "ftp", "", "file", "http:", "hTtP", "gopher"])
        elif op == 1:
            auth = rng.choice(["127.0.0.1:1", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1:%d" % (port + 1),
                               "localhost:%d" % port, "[::1]:%d" % port, "127.0.0.1:0%d" % port, "127.1:%d" % port,
                               "127.0.0.1:%d:1" % port, "127.0.0.1", "127.0.0.1:", ":%d" % port, "[::1", "]",
                               "127.0.0.1:-1", "127.0.0.1:%d." % port, "127.0.0.1.:%d" % port, "a" * 301,
                               "127.0.0.1:" + "9" * 30, "_:%d" % port])
        elif op == 2:
            auth = auth + rng.choice(["%00", "%2F", "@evil", "#", "\\", "%40127.0.0.1"])
        elif op == 3:
            rest = rng.choice(["", "/", "/../../../etc/passwd", "/%2e%2e/%2e%2e/x", "//vod/ts/master.m3u8",
                               "/vod/ts/../ts/v0/s000.ts", "/vod\\ts\\v0\\s000.ts", "/vod/ts/v0/s000.ts%00.m3u8",
                               "/vod/ts/v0/s000.ts/", "/vod/ts/v0/%73000.ts", "/nope.ts", "/vod/ts/v0/index.m3u8",
                               "/vod/ts/master.m3u8", "/live/ts/v2/index.m3u8", "/vod/aes/key.bin", "/?", "/" + "x" * 9000])
        elif op == 4:
            return pre + tag  # no upstream at all
        elif op == 5:
            return pre + tag + "/" + scheme
        elif op == 6:
            return pre + tag + "/" + scheme + "/" + auth
        elif op == 7:
            return pre + tag + "/" + scheme + "/" + auth + "/"
        elif op == 8:
            return pre + tag + tag + "/" + scheme + "/" + auth + rest
        elif op == 9:
            return pre + "/" + scheme + "/" + auth + rest  # tag dropped
        elif op == 10:
            return pre + tag + "//" + scheme + "/" + auth + rest
        elif op == 11:
            return pre + tag + "/" + scheme + "/" + auth + rest + tag + "/" + scheme + "/" + auth + rest
        elif op == 12:
            scheme, auth = scheme.upper(), auth.upper()
        else:
            rest = rest.replace("/", "%2F", rng.randint(1, 3))
        notes.append("upstream:%d" % op)
        return pre + tag + "/" + scheme + "/" + auth + rest

    def mut_pct(self, rng, path, notes):
        op = rng.randrange(6)
        chars = list(path)
        if op == 0 and len(chars) > 1:
            # percent-encode a few existing characters (valid encoding, different bytes)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(1, len(chars))
                chars[i] = "".join("%%%02X" % b for b in chars[i].encode("utf-8"))
            notes.append("pct:encode")
            return "".join(chars)
        insert = rng.choice(PCT)
        i = rng.randrange(1, len(path) + 1) if len(path) > 1 else 1
        notes.append("pct:" + insert)
        if op == 1:
            return path[:i] + insert + path[i:]
        if op == 2:
            return path + insert
        if op == 3:
            return path.replace("/", "%2F", 2) if path.count("/") > 2 else path + insert
        if op == 4:
            return path.replace("~", "%7E", 1) if "~" in path else path.replace(".", "%2E", 1)
        return path + "?x=" + insert

    def mut_path(self, rng, path, notes):
        choices = [
            ("path:double-slash", path.replace("/", "//", 1)),
            ("path:dot", "/." + path),
            ("path:dotdot", "/.." + path),
            ("path:dotdot-mid", path.replace("/", "/../", 2)),
            ("path:trailing-slash", path + "/"),
            ("path:long-8k", path + "/" + "a" * 8000),
            ("path:long-70k", "/" + "b" * 70000 + path),
            ("path:many-slashes", "/" * 5000 + path.lstrip("/")),
            ("path:backslash", path.replace("/", "\\", 1)),
            ("path:semicolon", path + ";jsessionid=1"),
            ("path:root", "/"),
            ("path:at", "/@"),
            ("path:at-unknown", "/@nosuchorigin/x.m3u8"),
            ("path:at-evil-root", "/@evil"),
            ("path:at-bad", "/@a b/x"),
            ("path:at-long", "/@" + "o" * 65 + "/x"),
            ("path:ext-only", "/.m3u8"),
            ("path:ext-upper", path.replace(".m3u8", ".M3U8").replace(".ts", ".TS")),
            ("path:m3u", "/vod/ts/master.m3u"),
            ("path:playlist-404", "/vod/ts/nope.m3u8"),
            ("path:seg-404", "/vod/ts/v0/nope.ts"),
            ("path:byterange-live", "/live/byterange/master.m3u8"),
            ("path:fragment", path + "#frag"),
            ("path:query-only", path + "?"),
            ("path:query-amp", path + "?&&&=&"),
            ("path:query-huge", path + "?" + "q=" + "z" * 20000),
        ]
        note, out = rng.choice(choices)
        notes.append(note)
        return out

    def mut_query(self, rng, path, notes):
        value = rng.choice(HOP_VALUES)
        form = rng.randrange(8)
        if form == 0:
            q = "hlschaos-hop=" + value
        elif form == 1:
            q = "hlschaos-hop=%s&hlschaos-hop=%s" % (value, rng.choice(HOP_VALUES))
        elif form == 2:
            q = "token=abc&hlschaos-hop=" + value + "&z=1"
        elif form == 3:
            q = rng.choice(["hlschaos-hop", "hlschaos-hop=", "hlschaos-hopX=1", "xhlschaos-hop=1", "HLSCHAOS-HOP=1",
                            "hlschaos-hop%3D1", "a=hlschaos-hop=5", "hlschaos-hop=1&", "&hlschaos-hop=1"])
        elif form == 4:
            q = "&".join("hlschaos-hop=%s" % rng.choice(HOP_VALUES) for _ in range(rng.choice([3, 50])))
        elif form == 5:
            q = "hlschaos-hop=" + value + "#x"
        elif form == 6:
            q = "x=" + rng.choice(HUGE_NUMBERS) + "&hlschaos-hop=" + value
        else:
            q = "hlschaos-hop=" + value + "?hlschaos-hop=1"
        notes.append("query:" + q[:60])
        sep = "&" if "?" in path else "?"
        return path + sep + q

    def mut_cmcd(self, rng, path, notes):
        """CMCD in the query (docs/cmcd.md): malformed, oversized, repeated, non-ASCII, out of range.
        The proxy must serve the request as without it (the finding goes into the record)."""
        value = cmcd_text(rng)
        encoded = "".join(c if (c.isalnum() and c.isascii()) or c in "-_.~" else "%%%02X" % b
                          for c in value for b in c.encode("utf-8", "surrogateescape"))
        form = rng.randrange(5)
        if form == 0:
            q = "CMCD=" + encoded
        elif form == 1:
            q = "CMCD=%s&CMCD=%s" % (encoded, rng.choice(["bl%3D1", "", "%ZZ"]))
        elif form == 2:
            q = "token=abc&CMCD=" + encoded + "&z=1"
        elif form == 3:
            q = "CMCD=" + rng.choice(["%", "%Z", "%ZZ%", "bl%3D1%", "+++", "%00", "%C3", "%FF%FE", encoded.replace("%", "%%")])
        else:
            q = "CMCD=" + "x" * rng.choice([8193, 20000, 40000])
            if len(q) > 30000:
                notes.append("query:cmcd-huge")
        notes.append("cmcd:query:" + q[:60])
        sep = "&" if "?" in path else "?"
        return path + sep + q

    # --- request assembly -------------------------------------------------------------------

    def request(self, rng, allow_last_only=True, presets=None, path=None, method=None, clean=False):
        t = self.t
        notes = []
        flags = set()
        if path is None:
            prefix, presets = self.session_prefix(rng, presets)
            path = self.base_path(rng, presets)
            if prefix and path.startswith("/s/"):
                path = re.sub(r"^/s/[^/]*", "", path)
            path = prefix + path
        else:
            presets = presets or []
        # target mutations
        for _ in range(0 if clean else rng.choice([0, 0, 1, 1, 1, 2])):
            fam = rng.choices(["session", "tag", "upstream", "pct", "path", "query", "cmcd"], [2, 3, 2, 2, 2, 4, 2])[0]
            path = getattr(self, "mut_" + fam)(rng, path, notes)
        if not clean and rng.random() < 0.12 and "query:" not in " ".join(notes):
            path = self.mut_query(rng, path, notes)
        if "query:cmcd-huge" in notes:
            flags.add("may_reject")  # a request head over maxRequestHeadBytes: 431
        target = path.encode("utf-8", "surrogateescape")
        if method is None:
            method = rng.choices(["GET", "HEAD", "OPTIONS"], [80, 17, 3])[0]
        version = "HTTP/1.1" if rng.random() < 0.9 else "HTTP/1.0"
        headers = [(b"Host", ("%s:%d" % (HOST, t.proxy_port)).encode())]
        if rng.random() < 0.5:
            headers.append((b"User-Agent", b"hlschaos-fuzz/1"))
        if rng.random() < 0.3:
            headers.append((b"Accept", b"*/*"))
        if version == "HTTP/1.0" and rng.random() < 0.5:
            headers.append((b"Connection", b"keep-alive"))
        body = b""
        eol = b"\r\n"
        line = None        # raw request line override
        raw_lines = []     # raw header lines appended after the headers
        tail = b""         # bytes after the message
        last_only = False
        for _ in range(0 if clean else rng.choice([0, 0, 1, 1, 1, 2, 3])):
            fam = rng.choices(
                ["range", "huge", "many", "dup", "nohost", "badname", "obsfold", "ctl", "cl", "te", "getbody",
                 "conn", "misc", "eol", "ws", "method", "version", "garbage", "truncated", "cmcd"],
                [10, 4, 2, 4, 2, 4, 3, 4, 4, 4, 3, 4, 4, 2, 3, 5, 5, 2, 2, 4])[0]
            if fam in ("cl", "te", "eol", "garbage", "truncated") and not allow_last_only:
                fam = "range"
            if fam == "range":
                headers.append((b"Range", rng.choice(RANGE_VALUES).encode()))
                if rng.random() < 0.2:
                    headers.append((b"If-Range", rng.choice([b'"etag"', b"Wed, 21 Oct 2015 07:28:00 GMT", b"garbage"])))
                notes.append("header:range")
            elif fam == "huge":
                size = rng.choices([4096, 16384, 65536, 300000, 1100000], [6, 5, 3, 2, 1])[0]
                name = rng.choice([b"X-Huge", b"Cookie", b"Range", b"User-Agent", b"Accept-Encoding", b"Origin"])
                headers.append((name, b"h" * size))
                notes.append("header:huge-%d" % size)
                if size > 16384:
                    flags.add("may_reject")
            elif fam == "many":
                count = rng.choices([100, 500, 2000, 10000], [6, 3, 2, 1])[0]
                for i in range(count):
                    headers.append((b"X-Many-%d" % i, b"v"))
                notes.append("header:many-%d" % count)
                if count > 500:
                    flags.add("may_reject")
            elif fam == "dup":
                which = rng.choice([b"Host", b"Range", b"Connection", b"Origin", b"X-Dup", b"Access-Control-Request-Headers"])
                value = {b"Host": b"127.0.0.1:1", b"Range": rng.choice(RANGE_VALUES).encode(),
                         b"Connection": rng.choice([b"close", b"keep-alive"])}.get(which, b"dup")
                headers.append((which, value))
                headers.append((which, value if rng.random() < 0.5 else value + b"2"))
                notes.append("header:dup-" + which.decode())
                if which == b"Host":
                    flags.add("may_reject")
            elif fam == "nohost":
                headers = [(n, v) for n, v in headers if n != b"Host"]
                notes.append("header:no-host")
                flags.add("may_reject")
            elif fam == "badname":
                name = rng.choice(BAD_HEADER_NAMES).encode("latin-1")
                headers.append((name, b"x"))
                notes.append("header:badname-" + escape(name))
                flags.add("may_reject")
            elif fam == "obsfold":
                raw_lines.append(b"X-Fold: a")
                raw_lines.append(rng.choice([b" b", b"\tb", b"   ", b" Range: bytes=0-1"]))
                notes.append("header:obs-fold")
                flags.add("may_reject")
            elif fam == "ctl":
                bad = rng.choice([b"\x00", b"\r", b"\n", b"\x01", b"\x7f", b"\x1b", b"\x0b", b"\x0c", b"\xff", b"\r \n"])
                name = rng.choice([b"X-Ctl", b"Range", b"Origin", b"Access-Control-Request-Headers", b"Cookie", b"Host"])
                headers.append((name, b"a" + bad + b"b"))
                notes.append("header:ctl-%s-in-%s" % (escape(bad), name.decode()))
                flags.add("may_reject")
            elif fam == "cl":
                last_only = True
                kind = rng.randrange(9)
                if kind == 0:
                    headers.append((b"Content-Length", rng.choice([b"-1", b"abc", b"1, 2", b"99999999999999999999", b" 5",
                                                                   b"0x10", b"+5", b"5 5", b"", b"1e3", b"9223372036854775808"])))
                    flags.add("may_reject")
                elif kind == 1:
                    headers.append((b"Content-Length", b"5"))
                    headers.append((b"Content-Length", b"6"))
                    body = b"abcde"
                    flags |= {"may_reject", "may_split", "may_wait"}
                elif kind == 2:
                    headers.append((b"Content-Length", b"100"))
                    body = b"short"
                    flags.add("may_wait")
                elif kind == 3:
                    headers.append((b"Content-Length", b"3"))
                    body = b"abcdefgh"
                    flags |= {"may_split", "may_reject"}
                elif kind == 4:
                    headers.append((b"Content-Length", b"0"))
                elif kind == 5:
                    headers.append((b"Content-Length", b"9223372036854775807"))
                    body = b"x" * 100
                    flags |= {"may_reject", "may_wait"}
                elif kind == 6:
                    n = rng.choice([1, 100, 70000])
                    headers.append((b"Content-Length", str(n).encode()))
                    body = b"y" * n
                elif kind == 7:
                    headers.append((b"Content-Length", b"5"))
                    headers.append((b"Content-Length", b"5"))
                    body = b"abcde"
                    flags.add("may_reject")
                else:
                    headers.append((b"Content-Length", b"5, 5"))
                    body = b"abcde"
                    flags.add("may_reject")
                notes.append("header:cl-%d" % kind)
            elif fam == "te":
                last_only = True
                kind = rng.randrange(10)
                if kind == 0:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = b"5\r\nhello\r\n0\r\n\r\n"
                elif kind == 1:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = rng.choice([b"zz\r\nhello\r\n0\r\n\r\n", b"5\r\nhelloXX0\r\n\r\n", b"ffffffffffffffffff\r\n",
                                       b"-1\r\n\r\n", b"5;ext=\x00\r\nhello\r\n0\r\n\r\n", b"0\r\nBad Trailer\r\n\r\n"])
                    flags |= {"may_reject", "may_wait"}
                elif kind == 2:
                    headers.append((b"Transfer-Encoding", rng.choice([b"gzip, chunked", b"chunked, gzip", b"xchunked",
                                                                      b"chunked, identity", b"identity", b"CHUNKED",
                                                                      b" chunked", b"chunked\x00", b"\"chunked\""])))
                    body = b"5\r\nhello\r\n0\r\n\r\n"
                    flags |= {"may_reject", "may_wait", "may_split"}
                elif kind == 3:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    headers.append((b"Content-Length", b"3"))
                    body = b"5\r\nhello\r\n0\r\n\r\n"
                    flags |= {"may_reject", "may_split", "may_wait"}
                elif kind == 4:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = b"0\r\n\r\n"
                    flags |= {"may_reject", "may_wait"}
                elif kind == 5:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = b"5\r\nhel"
                    flags.add("may_wait")
                elif kind == 6:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = b"".join(b"1\r\nx\r\n" for _ in range(rng.choice([10, 5000]))) + b"0\r\n\r\n"
                elif kind == 7:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = b"0\r\nX-Trailer: 1\r\n\r\n"
                elif kind == 8:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = b"5\nhello\n0\n\n"
                    flags |= {"may_reject", "may_wait"}
                else:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    body = b"5\r\nhello\r\n0\r\n\r\nGARBAGE"
                    flags |= {"may_reject", "may_split"}
                notes.append("header:te-%d" % kind)
            elif fam == "getbody":
                data = rng.choice([b"x", b"GET / HTTP/1.1\r\n\r\n", b"\x00" * 64, b"y" * 5000])
                headers.append((b"Content-Length", str(len(data)).encode()))
                body = data
                notes.append("body:on-%s" % ("get" if method == "GET" else method.lower()))
            elif fam == "conn":
                v = rng.choice([b"close", b"keep-alive", b"Close", b"CLOSE", b"close, keep-alive", b"keep-alive, close",
                                b"upgrade", b"te", b"x-custom", b"close,,", b"", b"Keep-Alive"])
                headers.append((b"Connection", v))
                notes.append("header:connection-" + v.decode())
                if v.lower() == b"upgrade" or rng.random() < 0.15:
                    headers.append((b"Upgrade", rng.choice([b"h2c", b"websocket", b"HTTP/2.0", b"foo"])))
                    if not any(n == b"Connection" and b"upgrade" in v2.lower() for n, v2 in headers):
                        headers.append((b"Connection", b"Upgrade"))
                    if rng.random() < 0.5:
                        headers.append((b"HTTP2-Settings", b"AAMAAABkAARAAAAAAAIAAAAA"))
                    flags.add("terminal")
                    notes.append("header:upgrade")
                if rng.random() < 0.2:
                    headers.append((b"Keep-Alive", b"timeout=1, max=1"))
            elif fam == "cmcd":
                # CMCD headers (any case, repeated, several lines of one), their values malformed.
                for _ in range(rng.choice([1, 1, 2, 4, 40])):
                    name = rng.choice([b"CMCD-Object", b"CMCD-Request", b"CMCD-Session", b"CMCD-Status", b"cmcd-request", b"CMCD-REQUEST"])
                    headers.append((name, cmcd_text(rng).encode("utf-8", "surrogateescape")))
                if rng.random() < 0.1:
                    headers.append((b"CMCD-Request", b"bl=" + b"9" * rng.choice([9000, 40000])))
                    flags.add("may_reject")
                notes.append("cmcd:headers")
            elif fam == "misc":
                choice = rng.randrange(12)
                if choice == 0:
                    headers.append((b"Expect", b"100-continue"))
                elif choice == 1:
                    headers.append((b"Accept-Encoding", rng.choice([b"gzip", b"br, gzip;q=0", b"identity;q=0", b"*"])))
                elif choice == 2:
                    headers.append((b"If-None-Match", rng.choice([b"*", b'"x"', b"W/\"y\""])))
                elif choice == 3:
                    headers.append((b"If-Modified-Since", rng.choice([b"Thu, 01 Jan 2099 00:00:00 GMT", b"garbage"])))
                elif choice == 4:
                    headers.append((b"Origin", b"http://127.0.0.1:1"))
                    headers.append((b"Access-Control-Request-Method", b"GET"))
                    headers.append((b"Access-Control-Request-Headers", rng.choice([b"range", b"x" * 3000, b"\xff\xfe"])))
                elif choice == 5:
                    headers.append((b"TE", b"trailers"))
                elif choice == 6:
                    headers.append((b"Proxy-Connection", b"keep-alive"))
                elif choice == 7:
                    headers.append((b"X-Forwarded-For", b"1.2.3.4"))
                    headers.append((b"Forwarded", b"for=1.2.3.4;host=evil"))
                elif choice == 8:
                    headers.append((b"Cache-Control", b"no-cache"))
                    headers.append((b"Pragma", b"no-cache"))
                elif choice == 9:
                    headers.append((b"Content-Type", b"application/x-www-form-urlencoded"))
                elif choice == 10:
                    headers.append((b"Trailer", b"X-Foo"))
                else:
                    headers.append((b"X-Obs-Text", bytes(range(0x80, 0x100))))
                notes.append("header:misc-%d" % choice)
            elif fam == "eol":
                last_only = True
                eol = rng.choice([b"\n", b"\r"])
                notes.append("eol:" + escape(eol))
                flags |= {"may_reject", "may_wait"}
            elif fam == "ws":
                kind = rng.randrange(5)
                if kind == 0:
                    raw_lines.append(b"Range : bytes=0-1")
                elif kind == 1:
                    raw_lines.insert(0, b" X-Leading: ws")
                elif kind == 2:
                    headers.append((b"X-Trailing-Ws", b"value \t "))
                elif kind == 3:
                    raw_lines.append(b"X-No-Colon")
                else:
                    raw_lines.append(b"X-Empty:")
                notes.append("header:ws-%d" % kind)
                if kind in (0, 1, 3):
                    flags.add("may_reject")
            elif fam == "method":
                if rng.random() < 0.5:
                    method = rng.choice(METHODS_VALID)
                    if method in ("POST", "PUT", "PATCH") and rng.random() < 0.7:
                        body = b"k=v"
                        headers.append((b"Content-Length", b"3"))
                else:
                    method = rng.choice(METHODS_ODD)
                    flags.add("may_reject")
                    if method == "GET /":
                        flags.add("may_wait")
                        last_only = True
                if rng.random() < 0.08:
                    method = "CONNECT"
                    target = ("%s:%d" % (HOST, t.origin_port)).encode()
                    flags |= {"terminal", "may_reject"}
                notes.append("method:" + escape(method.encode("latin-1"), 20))
            elif fam == "version":
                r = rng.random()
                if r < 0.15:
                    line = method.encode("latin-1") + b" " + target  # HTTP/0.9 simple request
                    flags |= {"may_reject", "may_wait"}
                    last_only = True
                    notes.append("version:0.9")
                elif r < 0.25:
                    line = b"PRI * HTTP/2.0\r\n\r\nSM"
                    flags |= {"may_reject", "terminal", "may_wait"}
                    last_only = True
                    notes.append("version:h2-preface")
                else:
                    version = rng.choice(VERSIONS_ODD)
                    flags.add("may_reject")
                    notes.append("version:" + escape(version.encode("latin-1"), 30))
            elif fam == "garbage":
                last_only = True
                g = rng.choice([bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200))), b"\r\n\r\n",
                                b"\r\n" * 5, b"GET", b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",  # TLS hello
                                b"GET / HTTP/1.1\r\n" * 3, b" " * 1000, b"\x00" * 100])
                if rng.random() < 0.5:
                    tail = g
                else:
                    line = g + method.encode("latin-1") + b" " + target + b" " + version.encode()
                flags |= {"may_reject", "may_wait", "may_split"}
                notes.append("garbage")
            elif fam == "truncated":
                last_only = True
                flags |= {"may_wait", "may_reject"}
                notes.append("truncated")
                tail = b"\x00TRUNCATE"  # marker, handled below
        if line is None:
            sp = b" "
            if rng.random() < 0.04:
                sp = rng.choice([b"  ", b"\t", b" \t"])
                flags.add("may_reject")
                notes.append("line:spaces")
            line = method.encode("latin-1") + sp + target + sp + version.encode("latin-1")
        parts = [line]
        for name, value in headers:
            parts.append(name + b": " + value)
        parts.extend(raw_lines)
        raw = eol.join(parts) + eol + eol + body
        if tail == b"\x00TRUNCATE":
            raw = raw[:rng.randint(1, max(1, len(raw) - 1))]
            tail = b""
        raw += tail
        # Target validity: an origin-form target of RFC 9112 request-target characters only.
        if re.search(rb"[^!$&'()*+,\-./0-9:;=?@A-Z_a-z~%]", target) or not target.startswith(b"/"):
            flags.add("may_reject")
        head_part = raw.split(b"\r\n\r\n", 1)[0]
        if len(head_part) > 60000:
            flags.add("may_reject")  # NIO's parser limits the head to 80 KiB
        lowered = [n.lower() for n, _ in headers]
        if lowered.count(b"content-length") > 1 or lowered.count(b"transfer-encoding") > 1 or \
                (b"content-length" in lowered and b"transfer-encoding" in lowered):
            flags |= {"may_reject", "may_split", "may_wait"}
            last_only = True
        declared = [v.strip() for n, v in headers if n.lower() == b"content-length"]
        if b"transfer-encoding" in lowered or (declared and not body and declared != [b"0"]):
            flags.add("may_wait")
            last_only = True
        presets_in, extra = allowances(target, t.presets_info, t.evil_port)
        flags |= extra
        if last_only:
            flags.add("last_only")
        # Does the proxy have to close after answering?
        conn_tokens = set()
        for n, v in headers:
            if n.lower() in (b"connection", b"proxy-connection"):  # llhttp reads both
                conn_tokens |= {x.strip().lower() for x in v.split(b",")}
        if version.startswith("HTTP/1.0"):
            closes = None if "may_reject" in flags else (b"keep-alive" not in conn_tokens or b"close" in conn_tokens)
            if b"keep-alive" in conn_tokens and b"close" in conn_tokens:
                closes = None
        elif version == "HTTP/1.1":
            closes = True if b"close" in conn_tokens else False
        else:
            closes = None
        if closes and len([1 for n, _ in headers if n.lower() in (b"connection", b"proxy-connection")]) > 1:
            closes = None
        expect = None
        if method == "CONNECT":
            # Forward mode answers it 200 and tunnels to the origin (a 2xx has no body); else the
            # proxy refuses it and closes. Whatever follows it on the connection is not HTTP.
            flags |= {"connect", "last_only"}
            closes, expect = True, CONNECT_STATUSES | {408, 431}
        # HEAD is what the request line says (a family may change `method` after the line was built).
        head = method == "HEAD" if line is None else line.lstrip(b"\r\n").startswith(b"HEAD ")
        return Req(raw, flags, notes, head, closes, presets_in, target, expect=expect,
                   why="connect-generic: a CONNECT among the HTTP mutations" if expect else "")

    def flow(self, rng):
        """A player-like sequence in one session: master, a media playlist, segments."""
        t = self.t
        presets = [rng.choice(t.presets)] if t.presets and rng.random() < 0.8 else []
        sid = rng.choice(self.session_pool)
        prefix = "/s/" + "+".join([sid] + presets)
        master = rng.choice(ENTRY_MASTERS)
        flavour = master.split("/")[2]
        reqs = [self.request(rng, False, presets, prefix + master, "GET", clean=True)]
        medias = [p for p, k, v, n in t.tagged if k == "media" and "/%s/" % flavour in p] or t.tagged_matching("media")
        if medias:
            reqs.append(self.request(rng, False, presets, prefix + rng.choice(medias), "GET", clean=rng.random() < 0.7))
        segs = [p for p, k, v, n in t.tagged if k in ("seg", "init", "key") and "/%s/" % flavour in p] or t.tagged_matching("seg")
        for _ in range(rng.randint(1, 3)):
            if segs:
                path = prefix + rng.choice(segs)
                if rng.random() < 0.3:
                    path = self.mut_query(rng, path, [])
                req = self.request(rng, False, presets, path, rng.choice(["GET", "GET", "HEAD"]), clean=rng.random() < 0.5)
                if req.flags & {"may_wait", "may_split", "last_only"}:
                    req = self.request(rng, False, presets, path, "GET", clean=True)
                reqs.append(req)
        return reqs

    def case(self, rng, index, seed):
        if self.forward_cases and rng.random() < self.forward_share:
            return self.forward_cases.case(rng, index, seed)
        r = rng.random()
        if r < 0.42:
            mode, count = "single", 1
        elif r < 0.70:
            mode, count = "pipeline", rng.randint(2, 8)
        elif r < 0.80:
            mode, count = "sequential", rng.randint(2, 5)
        elif r < 0.90:
            mode, count = "split", rng.randint(1, 3)
        elif r < 0.98:
            return Case(index, seed, rng.choice(["sequential", "pipeline"]), self.flow(rng))
        else:
            mode, count = "pipeline", rng.choice([MAX_PIPELINED, MAX_PIPELINED + 1, MAX_PIPELINED + 2, 40])
        reqs = []
        for i in range(count):
            last = i == count - 1
            for _ in range(20):
                req = self.request(rng, allow_last_only=last)
                if last or not (req.flags & {"may_wait", "may_split", "last_only"}):
                    break
            else:
                req = self.request(rng, allow_last_only=False, clean=True)
            reqs.append(req)
        splits = None
        if mode == "split":
            total = sum(len(r.raw) for r in reqs)
            splits = []
            pos = 0
            while pos < total and len(splits) < 300:
                step = rng.choice([1, 1, 2, 3, 7, 16, 100])
                splits.append(min(step, total - pos))
                pos += step
        return Case(index, seed, mode, reqs, splits)

    def is_suppressed(self, case):
        with self.lock:
            known = list(self.suppressed)
        for req in case.requests:
            notes = set(req.notes)
            for combo in known:
                if combo and combo <= notes:
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# Forward mode: CONNECT lines and tunnels, absolute-form requests, Proxy-Authorization

OUTSIDE_HOST = "127.0.0.2"  # a client address outside forward.allowNetworks below: it needs credentials
ECHO_HOST = "127.0.0.3"     # the tunnels' echo server: an address no playlist names
FORWARD_USERS = {"fz0": "pw-fz0", "tv1": "pw-tv1", "loop1": "pw-loop1"}
FORWARD_PASSWORD = "fuzz-shared"
FORWARD_CONFIG = {"forward": {"enabled": True, "allowNetworks": ["127.0.0.1/32", "::1/128"],
                              "users": FORWARD_USERS, "password": FORWARD_PASSWORD}}
CONNECT_STATUSES = {200, 400, 403, 405, 407, 502}
HEAD_LIMIT = 32 * 1024      # the proxy's maxRequestHeadBytes: a longer request head gets 431
# What an allowed forward request to a working origin may get: anything but the refusals of forward
# mode (403 and 407 come from presets only); 400/404 from a bad tag, hop counter or preset list.
ORIGIN_STATUSES = set(range(100, 1000)) - {403, 407}  # the misbehaving origin's 999 passes through
RFC3986 = re.compile(rb"^[!$&'()*+,\-./0-9:;=?@A-Z_a-z~%\[\]#]*$")


def swift_int(text):
    """Swift's Int(String): an optional sign and ASCII digits, within 64 bits."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return None
    value = int(text)
    return value if -(1 << 63) <= value < (1 << 63) else None


def own_query_values(target, name):
    """The values of `name=` pairs in the query (before any fragment), as OwnQueryParameter finds them."""
    q = target.find("?")
    if q < 0:
        return []
    frag = target.find("#", q)
    query = target[q + 1:frag if frag >= 0 else len(target)]
    return [pair[len(name) + 1:] for pair in query.split("&") if pair.startswith(name + "=")]


def tag_value_ok(value):
    """ResourceTag(component: "~" + value) != nil."""
    fields = value.split(".")
    if fields[0] not in TAG_KINDS:
        return False
    for field in fields[1:]:
        if not field:
            return False
        if field == "b":
            continue
        digits = field[1:]
        number = swift_int(digits) if len(digits.encode()) <= 15 else None
        if number is None or number < 0 or field[0] not in "vrinp":
            return False
    return True


def hop_values_ok(values):
    if not values:
        return True
    number = swift_int(values[0]) if len(values[0].encode()) <= 3 else None
    return len(values) == 1 and number is not None and 0 <= number <= 100


def swift_base64(text):
    """The proxy's Base64.decode: '=' skipped anywhere, any other non-alphabet byte fails."""
    out, buf, bits = bytearray(), 0, 0
    for ch in text.encode("utf-8"):
        if 65 <= ch <= 90:
            v = ch - 65
        elif 97 <= ch <= 122:
            v = ch - 71
        elif 48 <= ch <= 57:
            v = ch + 4
        elif ch == 43:
            v = 62
        elif ch == 47:
            v = 63
        elif ch == 61:
            continue
        else:
            return None
        buf = ((buf << 6) | v) & 0xFFFFFFFF
        bits += 6
        if bits >= 8:
            bits -= 8
            out.append((buf >> bits) & 0xFF)
    return bytes(out)


def basic_credentials(value):
    """(user, password) of a Proxy-Authorization value as ProxyCredentials reads it, or None; "?" when
    the reading depends on details not modelled here (runs of spaces)."""
    text = value.decode("utf-8", "replace").strip(" \t")
    if "  " in text:
        return "?"
    parts = text.split(" ", 1)
    if len(parts) != 2 or parts[0].lower() != "basic" or not parts[1]:
        return None
    decoded = swift_base64(parts[1])
    if decoded is None:
        return None
    try:
        decoded = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if ":" not in decoded:
        return None
    user, _, password = decoded.partition(":")
    return user, password


def swift_ip_literal(text):
    """Whether the proxy's IPAddress parser takes text: a dotted quad of 1-3 digit parts (leading zeros
    allowed), or IPv6 (a zone id ignored)."""
    parts = text.split(".")
    if len(parts) == 4 and all(re.fullmatch(r"[0-9]{1,3}", p) and int(p) <= 255 for p in parts):
        return True
    if ":" not in text:
        return False
    try:
        ipaddress.IPv6Address(text.split("%")[0])
        return True
    except ValueError:
        return False


def session_name_ok(name):
    return re.fullmatch(r"[A-Za-z0-9._-]{1,64}", name) is not None


class Expect:
    """The statuses a forward request may get, built in the order the proxy decides: each step may
    answer (`may`) or surely answers (`must`), and names itself; the last name is the decider."""

    def __init__(self):
        self.statuses, self.keys, self.done = set(), [], False

    def may(self, statuses, key):
        if not self.done:
            self.statuses |= set(statuses)
            self.keys.append(key)

    def must(self, statuses, key):
        if not self.done:
            self.may(statuses, key)
            self.done = True

    @property
    def why(self):
        return "; ".join(self.keys)


def signed_port(port, width):
    return ("0" * width + str(port))[-max(width, len(str(port))):]


class ForwardCases:
    """Cases for a proxy started with --forward (a share of every run): hostile CONNECT lines and
    tunnels, absolute-form GET/HEAD, and Proxy-Authorization headers, each request with the
    statuses it may get (`Req.expect`)."""

    def __init__(self, gen):
        self.gen = gen
        self.t = gen.t
        self.resolved = {}
        self.lock = threading.Lock()

    # --- addresses ------------------------------------------------------------------------

    def resolve(self, host):
        """The first address the C library gives for host, as the proxy's resolver does; None if none."""
        with self.lock:
            if host in self.resolved:
                return self.resolved[host]
        try:
            infos = socket.getaddrinfo(host, 80, type=socket.SOCK_STREAM)
            address = infos[0][4][0] if infos else None
        except (OSError, UnicodeError, ValueError):
            address = None
        with self.lock:
            self.resolved[host] = address
        return address

    def reaches(self, host, port):
        """What a connection to host:port is: ("own" | "link-local", why) for what forward mode refuses,
        ("open", None) for a listener a tunnel may reach, ("closed", why) otherwise."""
        return self.reaches_when(host, port)[:2]

    def reaches_when(self, host, port):
        """reaches(), and when the proxy can know: "name" (from the text of the target: an IP literal, a
        localhost name) or "resolved" (only once the name is resolved, i.e. when it connects)."""
        t = self.t
        name = host.lower()  # the proxy's own checks of names, before resolving them
        if name == "metadata.google.internal":
            return "link-local", "metadata.google.internal", "name"
        if (name == "localhost" or name.endswith(".localhost")) and port in t.own_ports:
            return "own", "a localhost name with this proxy's port", "name"
        literal = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        stage = "name" if swift_ip_literal(literal) else "resolved"
        address = self.resolve(literal.split("%")[0]) if literal else None
        if address is None:
            return "closed", "%s does not resolve" % literal, stage
        ip = ipaddress.ip_address(address.split("%")[0])
        if ip.version == 6 and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        if ip.is_link_local:
            return "link-local", "%s is link-local" % ip, stage
        if port in t.own_ports and (ip.is_loopback or ip.is_unspecified):
            return "own", "%s with the port of one of this proxy's listeners" % ip, stage
        if port in t.own_ports and str(ip) in t.machine_addresses:
            return "own", "%s (this machine) with the port of one of this proxy's listeners" % ip, stage
        if (str(ip), port) in t.listeners:
            return "open", None, stage
        if ip.is_unspecified and ("127.0.0.1", port) in t.listeners:
            return "open?", None, stage  # 0.0.0.0 as a destination is this host
        return "closed", "nothing listens on %s:%d" % (ip, port), stage

    # --- Proxy-Authorization ------------------------------------------------------------------

    def auth_headers(self, rng, outside):
        """Proxy-Authorization header values (none, one, or two) and a note."""
        t = self.t
        r = rng.random()
        if r < (0.25 if outside else 0.45):
            return [], "auth:none"
        presets = t.presets or ["status-503"]
        sessions = ["fz0", "tv1", "loop1", "fz%d" % rng.randrange(24), "hop0", "ip-127-0-0-1", "..", "A" * 64]
        if r < 0.8:
            user = rng.choice(sessions)
            form = rng.randrange(12)
            if form == 1:
                user += "+" + rng.choice(presets)
            elif form == 2:
                user += "+no-such-preset"
            elif form == 3:
                user += "+" + "+".join([rng.choice(presets)] * rng.choice([2, 9]))
            elif form == 4:
                user += "+" + "+".join(rng.sample(presets, min(9, len(presets))))
            elif form == 5:
                user = rng.choice(["", "a b", "fz0+", "+status-503", "B" * 65, "\u00fcser", "fz0/x", "fz0%41",
                                   "fz0++gap", "fz0+" + "p" * 65, "\u202efz0", "fz0\x00"])
            elif form == 6:
                user += "+schema"
            password = rng.choice([FORWARD_USERS.get(user.split("+")[0], "nope"), FORWARD_PASSWORD, "wrong", "",
                                   FORWARD_PASSWORD + ":x", "pw-fz0", "x" * rng.choice([1, 300])])
            creds = base64.b64encode(("%s:%s" % (user, password)).encode("utf-8")).decode()
            scheme = rng.choice(["Basic", "Basic", "Basic", "basic", "BASIC", "bAsIc"])
            value = "%s %s" % (scheme, creds)
            if rng.random() < 0.1:
                value = value.rstrip("=")
            return [value.encode("utf-8")], "auth:basic"
        odd = rng.choice([
            b"Bearer abc.def.ghi", b"Digest username=\"fz0\", realm=\"hlschaos\"", b"Basic", b"Basic ", b"Basic !!!!",
            b"Basic Zm9v", b"Basic " + base64.b64encode(b"\xff\xfe:\xfd"), b"Negotiate YII=", b"Basic ====",
            b"Basic " + base64.b64encode(b"fz0:pw")[:5] + b"*" + base64.b64encode(b"fz0:pw")[5:],
            b"Basic\t" + base64.b64encode(b"fz0:pw-fz0"), b"Basic  " + base64.b64encode(b"fz0:pw-fz0"),
            b"Basic " + base64.b64encode(b"fz0:pw-fz0") + b" trailing", b"Basic " + b"A" * rng.choice([8000, 40000]),
            b"Basic " + base64.b64encode(b"fz0:" + b"p" * 20000), b"Basic " + base64.b64encode(b":" + FORWARD_PASSWORD.encode()),
            b"Basic " + base64.b64encode(("fz0:" + FORWARD_PASSWORD).encode()) + b"\x00",
            b"Basic =" + base64.b64encode(b"fz0:pw-fz0"), b"Basic " + base64.b64encode(b"fz0:pw-fz0").lower(),
        ])
        values = [odd]
        if rng.random() < 0.25:
            good = b"Basic " + base64.b64encode(b"fz0:pw-fz0")
            values = [good, odd] if rng.random() < 0.5 else [odd, good]
        return values, "auth:odd"

    def admit(self, values, outside, exp):
        """ForwardAccess.decide: 407 (credentials missing, unreadable or wrong), 400 (the user is no
        session name), or the presets the user names."""
        t = self.t
        if not values:
            if outside:
                exp.must({407}, "auth:outside-without-credentials")
            return []
        if any(b"\x00" in v or b"\r" in v or b"\n" in v for v in values):
            exp.may({400}, "auth:control-byte")  # the HTTP parser may refuse the header first
        creds = basic_credentials(values[0])
        if creds == "?":
            exp.may({400, 407}, "auth:double-space")
            return []
        if creds is None:
            exp.must({407}, "auth:not-basic-credentials")
            return []
        user, password = creds
        names = user.split("+")
        if not all(session_name_ok(n) for n in names):
            exp.must({400}, "auth:user-not-a-session-name")
            return []
        if outside and not (t.users.get(names[0]) == password or (t.shared is not None and t.shared == password)):
            exp.must({407}, "auth:outside-wrong-password")
            return []
        return names[1:]

    # --- CONNECT ------------------------------------------------------------------------------

    def connect_target(self, rng):
        """A CONNECT target and, when it cannot be parsed (ConnectTarget), the note for 400."""
        t = self.t
        P, O, E = t.proxy_port, t.origin_port, t.echo_port
        C = t.control_port or P
        X = t.closed_port
        machine = rng.choice(t.machine_addresses) if t.machine_addresses else "127.0.0.1"
        machine = "[%s]" % machine if ":" in machine else machine
        bad = [  # ConnectTarget refuses these: 400 before anything else
            "127.0.0.1", "localhost", "[::1]", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:00000", "127.0.0.1:65536",
            "127.0.0.1:99999", "127.0.0.1:123456", "127.0.0.1:-1", "127.0.0.1:+443", "127.0.0.1:0x1bb",
            "127.0.0.1:44a", "127.0.0.1:443/", "127.0.0.1:443/path", ":443", "::1:443", "::1:%d" % P,
            "2001:db8::1:443", "[::1:443", "[::1]%d" % P, "[127.0.0.1]:443", "[::1]]:443", "[[::1]]:%d" % P,
            "[v1.fe]:443", "a@b:443", "user:pw@127.0.0.1:%d" % O, "127.0.0.1%%3A%d" % O, "exa%6dple.com:443",
            "http://127.0.0.1:%d" % O, "http://127.0.0.1:%d/" % O, "*:443", "-a.example:443", "a..b:443", ".:443",
            "a" * 64 + ".example:443", ("b" * 63 + ".") * 4 + "c:443", "h" * 301 + ":443", "h" * 5000 + ":443",
            "\u00e9xample.com:443", "127.0.0.1:443:443", "[::1]:443:1", "127.0.0.1:18446744073709551616",
            "127.0.0.1:\uff14\uff14\uff13", "127.0.0.1:%s" % signed_port(P, 6), "[::1]:0", "[fe80::1]:0",
            "0.0.0.0:65536", "\u0430pple.com:443", "127.0.0.1:%d%%00" % P,
        ]
        parser = [  # bytes the HTTP parser may refuse before the proxy sees them: 400 either way
            "", "exa mple.com:443", "a\x01b:443", "a\x7fb:443", "a\x00b:443", "a\tb:443", "127.0.0.1:%d\x0b" % P,
            "127.0.0.1 :%d" % O,
        ]
        good = [  # parsed; what they reach decides: own listener or link-local 403, closed 502, open 200
            "127.0.0.1:%d" % P, "localhost:%d" % P, "LOCALHOST:%d" % P, "LocalHost.:%d" % P, "0.0.0.0:%d" % P,
            "[::1]:%d" % P, "[::]:%d" % P, "[0:0:0:0:0:0:0:1]:%d" % P, "[::ffff:127.0.0.1]:%d" % P,
            "[::ffff:7f00:1]:%d" % P, "127.0.0.2:%d" % P, "127.255.255.254:%d" % P, "foo.localhost:%d" % P,
            "127.0.0.1:%d" % C, "localhost:%d" % C, "[::1]:%d" % C, "127.1:%d" % P, "2130706433:%d" % P,
            "0x7f000001:%d" % P, "0177.0.0.1:%d" % P, "0:%d" % P, "127.000.000.001:%d" % P,
            "127.0.0.1:%s" % signed_port(P, 5), "%s:%d" % (machine, P),
            "169.254.169.254:80", "169.254.169.254:443", "169.254.0.1:8080", "[fe80::1]:80", "[FE80::abcd]:443",
            "[fe80::1%25eth0]:80", "[fe80::1%eth0]:80", "metadata.google.internal:80", "METADATA.GOOGLE.INTERNAL.:80",
            "[::ffff:169.254.169.254]:80", "[::ffff:a9fe:a9fe]:80", "0251.0376.0251.0376:80", "2852039166:80",
            "169.254.43518:80", "0xa9fea9fe:80",
            "127.0.0.1:%d" % O, "localhost:%d" % O, "%s:%d" % (ECHO_HOST, E),
            "[::ffff:%s]:%d" % (ECHO_HOST, E), "0.0.0.0:%d" % O,
            "127.0.0.1:%d" % X, "[::1]:%d" % X, "127.0.0.1:1", "no-such-host.invalid:443", "_:443",
            "xn--nxasmq6b.invalid:443", "host.:443", "%s:65535" % ECHO_HOST,
        ]
        r = rng.random()
        if r < 0.3:
            return rng.choice(bad), "bad"
        if r < 0.38:
            return rng.choice(parser), "parser"
        return rng.choice(good), "good"

    def connect_request(self, rng, outside, target=None, auth=None, clean=False):
        """A CONNECT request: (Req, parsed (host, port) or None)."""
        t = self.t
        notes = []
        if target is None:
            target, cls = self.connect_target(rng)
        else:
            cls = "good"
        exp = Expect()
        shown = self.shown(target)
        values, auth_note = auth if auth is not None else self.auth_headers(rng, outside)
        notes.append(auth_note)
        headers = []
        if rng.random() < 0.85 or clean:
            headers.append((b"Host", target.encode("utf-8", "surrogateescape")))
        if values:
            headers += [(b"Proxy-Authorization", v) for v in values]
        flags = {"connect"}
        if not clean:
            for _ in range(rng.choice([0, 0, 0, 1, 2])):
                extra = rng.randrange(8)
                if extra == 0:
                    headers.append((b"Proxy-Connection", rng.choice([b"keep-alive", b"close"])))
                elif extra == 1:
                    headers.append((b"User-Agent", b"hlschaos-fuzz/1 (forward)"))
                elif extra == 2:
                    headers.append((b"Connection", rng.choice([b"close", b"keep-alive", b"Upgrade"])))
                elif extra == 3:
                    headers.append((b"Upgrade", rng.choice([b"h2c", b"websocket"])))
                elif extra == 4:
                    headers.append((b"X-Huge", b"h" * rng.choice([2000, 40000])))
                elif extra == 5:
                    headers.append((b"Host", b"127.0.0.1:%d" % t.proxy_port))
                elif extra == 6:
                    headers.append((b"Expect", b"100-continue"))
                else:
                    headers.append((b"Transfer-Encoding", b"chunked"))
                    exp.may({400}, "connect-header:Transfer-Encoding (the HTTP parser may refuse it on CONNECT)")
                notes.append("connect-header:%d" % extra)
        version = b"HTTP/1.1" if rng.random() < 0.9 or clean else rng.choice([b"HTTP/1.0", b"HTTP/1.1"])
        method = b"CONNECT"
        if not clean and rng.random() < 0.03:
            method = rng.choice([b"connect", b"Connect", b"CONNECT\t"])
            notes.append("connect-method:" + escape(method))
            exp.must({400}, "connect-method:%s (not a method the parser knows)" % escape(method))
        raw = method + b" " + target.encode("utf-8", "surrogateescape") + b" " + version + b"\r\n"
        raw += b"".join(n + b": " + v + b"\r\n" for n, v in headers) + b"\r\n"
        if len(raw) > HEAD_LIMIT:
            exp.may({431}, "connect:head-over-32KiB")
        notes.append("connect-target:%s" % shown)
        if cls == "parser":
            flags.add("may_reject")
            exp.must({400}, "connect-target:%s (bytes the request line may not carry)" % shown)
        elif cls == "bad":
            exp.must({400}, "connect-target:%s (not host:port with a port 1-65535)" % shown)
        presets = self.admit(values, outside, exp)
        reach = "refused"
        if not exp.done:
            reach, why = self.reaches(*self.split_authority(target))
            if reach in ("own", "link-local"):
                exp.must({403}, "connect-target:%s (%s)" % (shown, why))
            elif reach == "closed":
                exp.must({502}, "connect-target:%s (%s)" % (shown, why))
            else:
                maybe = reach == "open?" or "::ffff:" in target.lower()
                exp.must({200, 502} if maybe else {200}, "connect-target:%s (a tunnel to a listener)" % shown)
        req = Req(raw, flags, notes, False, True, presets, target.encode("utf-8", "surrogateescape"),
                  expect=exp.statuses, why=exp.why)
        return req, reach

    @staticmethod
    def split_authority(target):
        host, _, port = target.rpartition(":")
        return host, int(port) if port.isdigit() else -1

    def shown(self, text):
        """A target with this run's ports as names, so that findings group by form, not by port."""
        t = self.t
        names = [(t.proxy_port, "PROXY"), (t.control_port, "CONTROL"), (t.origin_port, "ORIGIN"),
                 (t.echo_port, "ECHO"), (t.closed_port, "CLOSED"), (t.evil_port, "EVIL")]
        out = escape(text.encode("utf-8", "surrogateescape"), 60)
        for port, name in names:
            if port:
                out = re.sub(r"(?<![0-9])%d(?![0-9])" % port, name, out)
        return out

    def payload(self, rng, sni):
        r = rng.random()
        if r < 0.2:
            return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300))), "random"
        if r < 0.4:
            return client_hello(rng, sni), "tls-client-hello"
        if r < 0.5:
            return b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * rng.choice([1, 3]), "http-request"
        if r < 0.55:
            return b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % self.t.proxy_port, "nested-connect"
        if r < 0.6:
            return b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "h2-preface"
        if r < 0.67:
            return b"", "empty"
        if r < 0.9:
            return rng.randbytes(rng.choice([4096, 65536])), "64k"
        if r < 0.95:
            return rng.randbytes(rng.choice([200000, 700000])), "hundreds-of-kb"
        return rng.randbytes(rng.choice([1 << 20, 2 << 20])), "megabytes"

    def tunnel_case(self, rng, index, seed, source):
        """One connection ending in a CONNECT: hostile lines, tunnels to the echo server (bytes must come
        back unchanged) or to the demo origin (an HTTP request sent through it, early or not)."""
        t = self.t
        outside = source == OUTSIDE_HOST
        r = rng.random()
        before = []
        if r < 0.55:
            req, reach = self.connect_request(rng, outside)
            kind = "hostile"
            target = "blind"
            payload, what = (b"", "none")
            if reach not in ("link-local", "closed") and rng.random() < 0.4:
                payload, what = self.payload(rng, "example.com")
        elif r < 0.85:
            target_text = "%s:%d" % (ECHO_HOST, t.echo_port)
            allowed = rng.random() < 0.85
            auth = self.allowed_auth(rng, outside) if allowed else None
            req, reach = self.connect_request(rng, outside, target_text, auth, clean=rng.random() < 0.7)
            kind, target = "echo", "echo"
            payload, what = self.payload(rng, "echo.example")
        else:
            target_text = "127.0.0.1:%d" % t.origin_port
            req, reach = self.connect_request(rng, outside, target_text, self.allowed_auth(rng, outside), clean=True)
            kind = "origin"
            if rng.random() < 0.6:
                payload = b"GET /vod/ts/master.m3u8 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % t.origin_port
                target, what = "origin-http", "http-request"
            else:
                payload, what = self.payload(rng, "127.0.0.1")
                target = "blind"
        if rng.random() < 0.2 and kind != "origin":
            # Requests before the CONNECT on the same connection, pipelined in the same write.
            for _ in range(rng.randint(1, 3)):
                before.append(self.plain_request(rng, outside))
        if kind == "echo" and rng.random() < 0.1 and "Content-Length" not in req.raw.decode("latin-1"):
            # A CONNECT with a body: its bytes are the tunnel's (the proxy may also swallow them).
            body = b"BODYBYTES"
            req.raw = req.raw[:-2] + b"Content-Length: %d\r\n\r\n" % len(body) + body
            req.notes.append("connect-body")
            tunnel_prefix = body
        else:
            tunnel_prefix = b""
        early = rng.random() < 0.5
        req.notes += ["fwd-case:tunnel-%s" % kind, "payload:%s" % what, "early" if early else "after-200"]
        tunnel = {"payload": payload, "early": early, "target": target}
        if tunnel_prefix:
            tunnel["maybe_prefix"] = tunnel_prefix
        splits = None
        if rng.random() < 0.08:
            total = sum(len(x.raw) for x in before) + len(req.raw) + (len(payload) if early else 0)
            splits, pos = [], 0
            while pos < total and len(splits) < 300:
                step = rng.choice([1, 2, 7, 50, 500])
                splits.append(min(step, total - pos))
                pos += step
        return Case(index, seed, "tunnel", before + [req], splits, source, tunnel)

    def allowed_auth(self, rng, outside):
        """Credentials that let this client in: none from the allowed network, a right password else."""
        user = rng.choice(["fz0", "tv1", "loop1", "fz9"])
        if not outside and rng.random() < 0.6:
            return [], "auth:none"
        password = self.t.users.get(user) if user in self.t.users and rng.random() < 0.5 else self.t.shared
        if password is None:
            return [], "auth:none"
        return [b"Basic " + base64.b64encode(("%s:%s" % (user, password)).encode())], "auth:basic"

    # --- absolute-form requests -----------------------------------------------------------------

    def absolute_target(self, rng):
        """An absolute-form URL: (url, how it is classed: "origin" | "reach" | "tls" | "bad")."""
        t = self.t
        P, O = t.proxy_port, t.origin_port
        C = t.control_port or P
        machine = rng.choice(t.machine_addresses) if t.machine_addresses else "127.0.0.1"
        machine = "[%s]" % machine if ":" in machine else machine
        r = rng.random()
        if r < 0.45 and t.fwd_tagged:
            url = rng.choice(t.fwd_tagged)[0]
            if rng.random() < 0.5:
                url = self.mutate_tag(rng, url)
            return url, "origin"
        if r < 0.6:
            path = rng.choice(ENTRY_MASTERS + ["/vod/ts/v0/s000.ts", "/vod/ts/v2/index.m3u8", "/nope.m3u8", "/"])
            if t.evil_port and rng.random() < 0.3:
                b = rng.choice(EVIL_BEHAVIOURS)
                path = rng.choice(["/s/%s/3.ts" % b, "/v/%s.m3u8" % b, "/m.m3u8"])
                return "http://127.0.0.1:%d%s" % (t.evil_port, path), "origin"
            return "http://127.0.0.1:%d%s" % (O, path), "origin"
        odd = [
            ("HTTP://127.0.0.1:%d/vod/ts/master.m3u8" % O, "origin"), ("hTTp://127.0.0.1:%d/vod/ts/master.m3u8" % O, "origin"),
            ("http://127.0.0.1:%d" % O, "origin"), ("http://127.0.0.1:%d?x=1" % O, "origin"),
            ("http://user:pw@127.0.0.1:%d/vod/ts/master.m3u8" % O, "origin"), ("http://@127.0.0.1:%d/" % O, "origin"),
            ("http://127.0.0.1:%d/vod/ts/master.m3u8#frag" % O, "origin"), ("http://127.0.0.1:%d/#" % O, "origin"),
            ("http://127.0.0.1:%d/vod/ts/master.m3u8?hlschaos-hop=%s" % (O, rng.choice(HOP_VALUES)), "origin"),
            ("http://127.0.0.1:%d/s/fz1+status-503/vod/ts/master.m3u8" % O, "origin"),
            ("http://LOCALHOST:%d/vod/ts/master.m3u8" % O, "origin"),
            ("https://127.0.0.1:%d/vod/ts/master.m3u8" % O, "tls"), ("HTTPS://127.0.0.1:%d/" % O, "tls"),
            ("http://127.0.0.1:%d/vod/ts/master.m3u8" % P, "reach"), ("http://localhost:%d/" % P, "reach"),
            ("http://[::1]:%d/vod/ts/master.m3u8" % P, "reach"), ("http://0.0.0.0:%d/" % P, "reach"),
            ("http://127.1:%d/" % P, "reach"), ("http://2130706433:%d/" % P, "reach"),
            ("http://[::ffff:127.0.0.1]:%d/" % P, "reach"), ("http://127.0.0.1:%d/api/sessions" % C, "reach"),
            ("http://%s:%d/vod/ts/master.m3u8" % (machine, P), "reach"),
            ("http://127.0.0.1:%d@127.0.0.1:%d/vod/ts/master.m3u8" % (O, P), "reach"),
            ("http://a@b@127.0.0.1:%d/" % P, "reach"),
            ("http://127.0.0.1:%d/s/fz1/vod/ts/master.m3u8?hlschaos=master" % P, "reach"),
            ("http://169.254.169.254/hlschaos-fuzz", "reach"), ("http://169.254.169.254:80/", "reach"),
            ("http://[fe80::1]/hlschaos-fuzz", "reach"), ("http://[::ffff:169.254.169.254]/hlschaos-fuzz", "reach"),
            ("http://2852039166/hlschaos-fuzz", "reach"), ("http://0xa9fea9fe/hlschaos-fuzz", "reach"),
            ("http://metadata.google.internal/hlschaos-fuzz", "reach"),
            ("http://127.0.0.1:%d/x.m3u8" % t.closed_port, "reach"), ("http://no-such-host.invalid/x.m3u8", "reach"),
            ("http://127.0.0.1:99999/x.ts", "bad"), ("http://127.0.0.1:0/x.ts", "bad"), ("http:///x.ts", "bad"),
            ("http://:%d/x.ts" % O, "bad"), ("http://127.0.0.%%31:%d/" % P, "bad"), ("http://a b/", "bad"),
            ("http://127.0.0.1:%d\\@127.0.0.1:%d/" % (O, P), "reach"), ("http:/127.0.0.1:%d/" % O, "bad"),
            ("http:127.0.0.1:%d/" % O, "bad"), ("ftp://127.0.0.1:%d/" % O, "bad"), ("http://[::1/" , "bad"),
            ("http://" + "h" * 300 + "/x.ts", "bad"), ("http://127.0.0.1:%d/%s" % (O, "x" * 40000), "origin"),
            ("http://\u00e9xample.com/x.ts", "bad"), ("http://127.0.0.1:%d/hlschaos/setup" % P, "setup"),
        ]
        return rng.choice(odd)

    def mutate_tag(self, rng, url):
        """Damages, repeats or moves the hlschaos= tag of a forward-mode URL (and its hop counter)."""
        m = re.search(r"([?&])hlschaos=([^&#]*)", url)
        value = m.group(2) if m else "seg.v2.n8"
        op = rng.randrange(11)
        bad_values = ["", "seg.v-1", "seg.v2.n9223372036854775808", "~seg.v1", "zz", "seg..n1", "seg.v2.x3",
                      "seg.v" + "9" * 16, "seg.v1.n%32", "SEG.v1", "seg.v+1.n+2", "seg.v2.n42.b", "part.v1.n42.p3",
                      "media.v99", "master", "seg.v2.n8.b.b", "seg.q1", "seg.v\u00b2", "seg.v1.n1" + "x" * 500]
        if op == 0 and m:
            return url.replace(m.group(0), m.group(1) + "hlschaos=" + rng.choice(bad_values), 1)
        if op == 1:
            return url + "&hlschaos=" + value
        if op == 2:
            return url + "&hlschaos=" + rng.choice(["seg.v1.n1", "media.v0", value])
        if op == 3 and m:
            base = url.replace(m.group(0), "", 1)
            base = base if "?" in base else base.replace("&", "?", 1)
            return base.replace("?", "?hlschaos=%s&" % value, 1) if "?" in base else base + "?hlschaos=" + value
        if op == 4:
            return url.replace("hlschaos=", rng.choice(["HLSCHAOS=", "hlschaos%3D", "hlschaos", "xhlschaos=",
                                                       "hlschaos=="]), 1)
        if op == 5:
            return url + "#hlschaos=" + value
        if op == 6:
            return url + "&hlschaos-hop=" + rng.choice(HOP_VALUES)
        if op == 7:
            return url + "&" + "&".join("hlschaos-hop=%s" % rng.choice(HOP_VALUES) for _ in range(2))
        if op == 8:
            return url.replace("?", "?token=abc&", 1) if "?" in url else url + "?token=abc"
        if op == 9:
            return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:%d" % self.t.proxy_port, url, 1)
        return url + "&" + "&".join(["hlschaos=" + value] * rng.choice([3, 50]))

    def absolute_request(self, rng, outside, clean=False, user=None):
        """A GET or HEAD in absolute form, with the statuses it may get."""
        t = self.t
        url, cls = self.absolute_target(rng) if not clean else (rng.choice(t.fwd_tagged)[0] if t.fwd_tagged else
                                                               "http://127.0.0.1:%d/vod/ts/master.m3u8" % t.origin_port, "origin")
        method = rng.choice(["GET", "GET", "GET", "HEAD"]) if not clean else "GET"
        notes, flags = ["fwd-url:%s" % self.shown(self.url_form(url))], set()
        exp = Expect()
        if user is not None:
            values, auth_note = user
        else:
            values, auth_note = self.auth_headers(rng, outside) if not clean else self.allowed_auth(rng, outside)
        notes.append(auth_note)
        target = url.encode("utf-8", "surrogateescape")
        if not RFC3986.match(target) or b" " in target or not re.match(rb"(?i)^(/|https?://)", target):
            # The HTTP parser may refuse it before anything else (a 431 for a long head included).
            flags.add("may_reject")
            exp.may({400}, "fwd-url:a request target the HTTP parser may refuse")
        headers = [(b"Host", self.host_of(url).encode("utf-8", "surrogateescape"))]
        headers += [(b"Proxy-Authorization", v) for v in values]
        if not clean and rng.random() < 0.15:
            headers.append((b"Proxy-Connection", b"keep-alive"))
        if not clean and rng.random() < 0.1:
            headers.append((b"Range", rng.choice([b"bytes=0-99", b"bytes=100-"])))
        raw = ("%s " % method).encode() + target + b" HTTP/1.1\r\n" + b"".join(n + b": " + v + b"\r\n" for n, v in headers) + b"\r\n"
        if len(raw) > HEAD_LIMIT:
            exp.must({431}, "fwd:head-over-32KiB")
        # ProxyHandler.respond: the hop counter, the setup page, ForwardAccess, the tag, the target.
        hop_ok = hop_values_ok(own_query_values(url, "hlschaos-hop"))
        if not hop_ok:
            exp.must({400}, "fwd-hop:hlschaos-hop= is not one counter 0-100")
        reach_host, reach_port = self.url_authority(url)
        if cls == "setup":
            exp.must(set(range(200, 600)), "fwd-url:the setup page")
        if not re.match(r"(?i)^https?://", self.strip_own(url, "hlschaos-hop")):
            exp.must({400}, "fwd-url:not absolute-form (an origin-form path that is no path)")
        presets = self.admit(values, outside, exp)
        tags = own_query_values(self.strip_own(url, "hlschaos-hop"), "hlschaos")
        if tags and (len(tags) > 1 or not tag_value_ok(tags[0])):
            exp.must({400}, "fwd-tag:%s" % ("repeated" if len(tags) > 1 else "not a tag hlschaos writes"))
        if cls == "bad":
            exp.may({400, 502, 504}, "fwd-url:not an http URL with a valid authority")
            exp.may({403}, "fwd-url:a host the proxy refuses")
            exp.must(set(range(200, 600)) - {407}, "fwd-url:garbage")
        if cls == "tls":
            reach, why, stage = "open", None, "name"
        else:
            reach, why, stage = self.reaches_when(reach_host, reach_port) if reach_host is not None else \
                ("closed", "no host", "name")
        refused = "fwd-url:%s (%s)" % (self.shown(self.url_origin(url)), why)
        # Refusals the URL's text shows come before the presets are looked at; those that need the
        # name resolved come from the fetch (libcurl's address guard), after them.
        if reach in ("own", "link-local") and stage == "name":
            exp.must({403}, refused)
        distinct = list(dict.fromkeys(presets))
        if len(distinct) > 8:
            exp.must({400}, "fwd-presets:more than 8")
        if any(p not in t.presets_info for p in distinct):
            exp.must({404}, "fwd-presets:unknown preset")
        if reach in ("own", "link-local"):
            exp.must({403}, refused)
        if cls == "tls":
            exp.must({502, 504}, "fwd-url:https to a plain-HTTP origin")
        elif reach == "closed":
            exp.must({502, 504}, "fwd-url:%s (%s)" % (self.shown(self.url_origin(url)), why))
        statuses = set(ORIGIN_STATUSES)
        for p in distinct:
            statuses |= set(t.preset_statuses.get(p, ()))
        exp.must(statuses, "fwd-url:an origin")
        kinds = self.kinds_of(url, tags)
        _, extra = allowances(target, t.presets_info, t.evil_port, presets, kinds)
        flags |= extra
        flags.add("absolute")
        return Req(raw, flags, notes, method == "HEAD", False, presets, target, expect=exp.statuses, why=exp.why)

    def plain_request(self, rng, outside):
        """A clean request that keeps the connection open: a reverse path, or a forward one."""
        if rng.random() < 0.5 or not self.t.fwd_tagged:
            path = rng.choice(ENTRY_MASTERS)
            raw = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (path.encode(), self.t.proxy_port)
            return Req(raw, set(), ["fwd-before:reverse"], False, False, [], path.encode())
        return self.absolute_request(rng, outside, clean=True,
                                     user=([], "auth:none") if not outside else self.allowed_auth(rng, outside))

    @staticmethod
    def strip_own(url, name):
        q = url.find("?")
        if q < 0:
            return url
        frag = url.find("#", q)
        end = frag if frag >= 0 else len(url)
        kept = [p for p in url[q + 1:end].split("&") if not p.startswith(name + "=")]
        return url[:q] + ("?" + "&".join(kept) if kept else "") + url[end:]

    @staticmethod
    def url_authority(url):
        """(host, port) as the proxy reads an absolute URL (UpstreamLocation, userinfo dropped)."""
        m = re.match(r"^([A-Za-z]+)://([^/?#]*)", url)
        if not m:
            return None, 0
        authority = m.group(2).rpartition("@")[2].lower()
        if authority.startswith("["):
            end = authority.find("]")
            host, rest = authority[:end + 1], authority[end + 1:]
        else:
            host, _, rest = authority.partition(":")
            rest = ":" + rest if rest else ""
        default = 443 if m.group(1).lower() == "https" else 80
        port = int(rest[1:]) if rest[1:].isdigit() else default
        return host, port

    @staticmethod
    def host_of(url):
        m = re.match(r"^[A-Za-z]+://([^/?#]*)", url)
        return m.group(1).rpartition("@")[2] if m else "127.0.0.1"

    @staticmethod
    def url_form(url):
        """The URL with its path cut short, for notes."""
        m = re.match(r"^([^:]*://[^/?#]*)([^?#]*)(.*)$", url)
        if not m:
            return url[:60]
        return m.group(1) + m.group(2)[:24] + ("?..." if m.group(3) else "")

    @staticmethod
    def url_origin(url):
        """scheme://authority: what a refusal depends on, and what its finding is grouped by."""
        m = re.match(r"^([^:]*://[^/?#]*)", url)
        return m.group(1) if m else url[:60]

    @staticmethod
    def kinds_of(url, tags):
        if tags and tag_value_ok(tags[0]):
            return {TAG_KINDS[tags[0].split(".")[0]]}
        path = url.split("?", 1)[0].split("#", 1)[0]
        last = path.rsplit("/", 1)[-1]
        ext = last.rsplit(".", 1)[-1].lower() if "." in last[1:] else ""
        if ext in ("m3u8", "m3u"):
            return {"master", "media"}
        return {"segment"} if ext in SEGMENT_EXTENSIONS else set()

    def absolute_case(self, rng, index, seed, source):
        outside = source == OUTSIDE_HOST
        r = rng.random()
        if r < 0.5:
            mode, count = "single", 1
        elif r < 0.75:
            mode, count = "pipeline", rng.randint(2, 5)
        elif r < 0.9:
            mode, count = "sequential", rng.randint(2, 4)
        else:
            mode, count = "split", 1
        reqs = []
        for i in range(count):
            req = self.absolute_request(rng, outside)
            if i < count - 1 and (req.flags & {"may_reject", "hang_ok", "cut_ok", "resets"} or 431 in req.expect):
                req = self.absolute_request(rng, outside, clean=True)
            req.notes.append("fwd-case:absolute")
            reqs.append(req)
        splits = None
        if mode == "split":
            total = sum(len(x.raw) for x in reqs)
            splits, pos = [], 0
            while pos < total and len(splits) < 300:
                step = rng.choice([1, 2, 3, 16, 100])
                splits.append(min(step, total - pos))
                pos += step
        return Case(index, seed, mode, reqs, splits, source)

    def case(self, rng, index, seed):
        source = OUTSIDE_HOST if self.t.outside_clients and rng.random() < 0.3 else None
        if rng.random() < 0.55:
            return self.tunnel_case(rng, index, seed, source)
        return self.absolute_case(rng, index, seed, source)


def client_hello(rng, sni):
    """A TLS 1.3-style ClientHello record with SNI and ALPN, as a device sends right after its CONNECT."""
    def ext(kind, body):
        return kind.to_bytes(2, "big") + len(body).to_bytes(2, "big") + body
    name = sni.encode()
    server_name = ext(0, (len(name) + 3).to_bytes(2, "big") + b"\x00" + len(name).to_bytes(2, "big") + name)
    alpn_list = b"\x02h2\x08http/1.1"
    alpn = ext(16, len(alpn_list).to_bytes(2, "big") + alpn_list)
    versions = ext(43, b"\x04\x03\x04\x03\x03")
    groups = ext(10, b"\x00\x04\x00\x1d\x00\x17")
    key_share = ext(51, (36).to_bytes(2, "big") + b"\x00\x1d\x00\x20" + bytes(rng.getrandbits(8) for _ in range(32)))
    sigalgs = ext(13, b"\x00\x06\x04\x03\x08\x04\x04\x01")
    extensions = server_name + alpn + versions + groups + key_share + sigalgs
    body = (b"\x03\x03" + bytes(rng.getrandbits(8) for _ in range(32)) + b"\x20" +
            bytes(rng.getrandbits(8) for _ in range(32)) + b"\x00\x06\x13\x01\x13\x02\x13\x03" + b"\x01\x00" +
            len(extensions).to_bytes(2, "big") + extensions)
    handshake = b"\x01" + len(body).to_bytes(3, "big") + body
    return b"\x16\x03\x01" + len(handshake).to_bytes(2, "big") + handshake


# ---------------------------------------------------------------------------------------------
# Running one connection

class Conn:
    def __init__(self, port, timeout, source=None):
        self.sock = socket.create_connection((HOST, port), timeout=5, source_address=(source, 0) if source else None)
        self.sock.setblocking(False)
        self.timeout = timeout
        self.buf = bytearray()
        self.pos = 0
        self.eof = False
        self.reset = False
        self.deadline = float("inf")
        self.after_head = False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _recv(self, wait):
        if self.eof:
            return False
        r, _, _ = select.select([self.sock], [], [], wait)
        if not r:
            return False
        try:
            data = self.sock.recv(1 << 20)
        except BlockingIOError:
            return True
        except (ConnectionResetError, ConnectionAbortedError, OSError):
            self.eof = self.reset = True
            return True
        if not data:
            self.eof = True
        else:
            self.buf += data
        return True

    def send(self, data, pace=None):
        """Sends data while reading whatever comes back. False if the peer went away first."""
        view = memoryview(data)
        off = 0
        pieces = pace or []
        piece_end = pieces[0] if pieces else len(view)
        piece_index = 0
        deadline = min(time.monotonic() + max(self.timeout, 10), self.deadline)
        while off < len(view):
            if time.monotonic() > deadline:
                return False
            r, w, _ = select.select([self.sock] if not self.eof else [], [self.sock], [], self.timeout)
            if not r and not w:
                return False
            if r:
                self._recv(0)
            if w:
                try:
                    n = self.sock.send(view[off:piece_end])
                except BlockingIOError:
                    continue
                except (BrokenPipeError, ConnectionResetError, OSError):
                    return False
                off += n
                if pieces and off >= piece_end:
                    piece_index += 1
                    if piece_index < len(pieces):
                        piece_end = min(len(view), off + pieces[piece_index])
                    else:
                        piece_end = len(view)
                    time.sleep(0.0005 * (piece_index % 4))
        return True

    def next_response(self, head_request, deadline, wait=None, connect=False):
        """('ok', Response) | ('eof', None) | ('timeout', None) | ('malformed', msg) | ('truncated', msg);
        a timeout is `wait` seconds (default: the connection's) without a byte."""
        wait = self.timeout if wait is None else wait
        while True:
            if self.after_head and len(self.buf) - self.pos >= 5 and bytes(self.buf[self.pos:self.pos + 5]) != b"HTTP/":
                return "malformed", "bytes that are no response follow the response to a HEAD request (a body sent " \
                                    "for HEAD?): %s" % escape(bytes(self.buf[self.pos:self.pos + 120]))
            if self.pos < len(self.buf) or self.eof:
                if self.pos >= len(self.buf) and self.eof:
                    return "eof", None
                try:
                    resp, nxt = parse_response(self.buf, self.pos, head_request, self.eof, connect)
                    self.pos = nxt
                    if resp is None:
                        continue  # 1xx
                    self.after_head = head_request
                    return "ok", resp
                except NeedMore:
                    pass
                except Malformed as e:
                    return "malformed", str(e)
                except Truncated as e:
                    return "truncated", str(e)
            now = time.monotonic()
            if now > deadline:
                return "timeout", None
            if not self._recv(min(wait, deadline - now)):
                return "timeout", None

    def read_until(self, count, deadline):
        """Reads until `count` bytes past the parsed responses are in, the connection ends, or nothing
        arrives for the connection's timeout."""
        while len(self.buf) - self.pos < count and not self.eof and time.monotonic() < min(deadline, self.deadline):
            if not self._recv(min(self.timeout, max(0.0, deadline - time.monotonic()))):
                break

    def drain(self, wait):
        """Bytes that arrive within `wait` seconds (or until EOF)."""
        end = min(time.monotonic() + wait, self.deadline)
        while not self.eof and time.monotonic() < end:
            if not self._recv(max(0.0, end - time.monotonic())):
                break
        return bytes(self.buf[self.pos:])


def patience(case, i, timeout, short):
    """How long to wait for response i: not long when no answer is a legitimate outcome."""
    req = case.requests[i]
    if short and (req.flags & {"hang_ok", "may_wait", "terminal"} or (i > 0 and "terminal" in case.requests[i - 1].flags)):
        return min(short, timeout)
    return timeout


def run_case(case, port, timeout, linger=0.05, short=1.0, until=None):
    """Runs one connection. `until` (a time.monotonic() value) bounds the whole connection."""
    res = Result()
    start = time.monotonic()
    try:
        conn = Conn(port, timeout, case.source)
    except OSError as e:
        res.end = "connect-failed: %s" % e
        return res
    deadline = start + 60 if until is None else min(start + 60, until)
    conn.deadline = deadline
    if TRACE[0] is not None:
        with TRACE[1]:
            TRACE[0].write("%d %s\n" % (conn.sock.getsockname()[1], case.seed))

    def tunnel_opened(i, req, resp):
        """A 2xx to a CONNECT: the rest of the connection is the tunnel's, not HTTP to the proxy."""
        if "connect" in req.flags and 200 <= resp.status < 300:
            res.tunnel_at, res.end = i, "tunnel"
            return True
        return False

    try:
        if case.mode == "tunnel":
            run_tunnel(case, conn, res, deadline, timeout, short)
        elif case.mode == "sequential":
            for i, req in enumerate(case.requests):
                # Anything already waiting before request i is sent answers no request.
                if i > 0:
                    extra = conn.drain(0.02)
                    if extra:
                        res.unsolicited = (i - 1, extra)
                        res.end = "unsolicited"
                        break
                res.sent += 1
                if not conn.send(req.raw):
                    # The proxy closed (or reset) the connection before this request was written.
                    conn.drain(0.2)
                    kind, value = conn.next_response(req.head, time.monotonic() + 1, connect="connect" in req.flags)
                    if kind == "ok":
                        res.responses.append(value)
                        res.end = "eof"
                    else:
                        res.end = kind if kind != "timeout" else "eof"
                        if kind in ("malformed", "truncated"):
                            res.error = (kind, value)
                    break
                kind, value = conn.next_response(req.head, deadline, patience(case, i, timeout, short),
                                                 connect="connect" in req.flags)
                if kind == "ok":
                    res.responses.append(value)
                    if tunnel_opened(i, req, value):
                        break
                    if value.closes or req.closes:
                        res.end = "closing"
                        break
                    continue
                res.end = kind
                if kind in ("malformed", "truncated"):
                    res.error = (kind, value)
                break
            else:
                res.end = "done"
        else:
            data = case.raw
            ok = conn.send(data, case.splits if case.mode == "split" else None)
            if ok:
                res.sent = len(case.requests)
            else:
                # count the requests whose bytes were all written; unknown exactly, assume those before the cut
                res.sent = len(case.requests)
                res.partial_send = True
            for i, req in enumerate(case.requests):
                kind, value = conn.next_response(req.head, deadline, patience(case, i, timeout, short),
                                                 connect="connect" in req.flags)
                if kind == "ok":
                    res.responses.append(value)
                    if tunnel_opened(i, req, value):
                        break
                    continue
                res.end = kind
                if kind in ("malformed", "truncated"):
                    res.error = (kind, value)
                break
            else:
                res.end = "done"
        if res.end == "tunnel" and case.mode != "tunnel":
            res.tunnel_data = conn.drain(linger)  # the later requests went into the tunnel: not judged
        if res.end in ("done", "closing"):
            must_close = bool(res.responses) and (res.responses[-1].closes or
                                                  case.requests[len(res.responses) - 1].closes is True)
            if must_close:
                conn.drain(timeout)
                res.trailing = bytes(conn.buf[conn.pos:])
                res.end = "closed" if conn.eof else "left-open"
            else:
                res.trailing = conn.drain(linger)
                # More responses beyond the requests: parse them to report properly.
                while conn.pos < len(conn.buf):
                    try:
                        extra, nxt = parse_response(conn.buf, conn.pos, False, True)
                        conn.pos = nxt
                        if extra is not None:
                            res.responses.append(extra)
                    except (NeedMore, Malformed, Truncated):
                        break
        if res.end != "tunnel":
            res.partial = bytes(conn.buf[conn.pos:conn.pos + 2000])
        res.reset = conn.reset
    finally:
        conn.close()
    res.elapsed = time.monotonic() - start
    return res


def run_tunnel(case, conn, res, deadline, timeout, short):
    """Mode "tunnel": the requests (a CONNECT last) in one write, the tunnel's payload in the same write
    (`early`) or once the 200 is in; then what comes back through the tunnel."""
    reqs, tunnel = case.requests, case.tunnel
    data = b"".join(r.raw for r in reqs) + (tunnel["payload"] if tunnel["early"] else b"")
    res.partial_send = not conn.send(data, case.splits)
    res.sent = len(reqs)
    for i, req in enumerate(reqs):
        last = i == len(reqs) - 1
        kind, value = conn.next_response(req.head, deadline, patience(case, i, timeout, short), connect=last)
        if kind != "ok":
            res.end = kind
            if kind in ("malformed", "truncated"):
                res.error = (kind, value)
            return
        res.responses.append(value)
        if last and 200 <= value.status < 300:
            break
        if not last and (value.closes or req.closes):
            res.end = "closing"
            return
    else:
        # The CONNECT was refused: the proxy closes the connection after its answer.
        conn.drain(timeout)
        res.trailing = bytes(conn.buf[conn.pos:])
        res.end = "closed" if conn.eof else "left-open"
        return
    res.tunnel_at, res.end = len(reqs) - 1, "tunnel"
    if not tunnel["early"] and tunnel["payload"]:
        res.partial_send = not conn.send(tunnel["payload"])
    if tunnel["target"] == "echo":
        want = len(tunnel["payload"]) + len(tunnel.get("maybe_prefix", b""))
        conn.read_until(want, deadline)
        conn.drain(0.05)  # anything beyond the echo is the proxy's own, and wrong
        res.tunnel_data = bytes(conn.buf[conn.pos:])
        res.tunnel_eof = conn.eof
    elif tunnel["target"] == "origin-http":
        kind, value = conn.next_response(False, deadline)
        res.tunnel_response = (kind, value)
        res.tunnel_data = bytes(conn.buf[conn.pos:conn.pos + 2000])
    else:
        res.tunnel_data = conn.drain(0.1)


def judge(case, res):
    """Findings for one connection: list of (category, message, index of the request concerned)."""
    out = []
    if res.end.startswith("connect-failed"):
        return [("connect", "cannot connect to the proxy: " + res.end, 0)]
    reqs = case.requests
    sent = reqs[:res.sent] if case.mode == "sequential" else reqs
    if res.tunnel_at is not None:
        sent = sent[:res.tunnel_at + 1]  # what was written after a CONNECT's 200 went into the tunnel
    n, m = len(sent), len(res.responses)
    out += judge_statuses(sent, res)
    if res.tunnel_at is not None and case.mode == "tunnel":
        out += judge_tunnel(case, res)
    splits = sum(1 for r in sent if "may_split" in r.flags)
    if res.unsolicited:
        after, data = res.unsolicited
        # After the answer to a HEAD, bytes that are no response are a body sent for HEAD.
        category = "head-body" if after < n and sent[after].head and not data.startswith(b"HTTP/") else "extra-response"
        out.append((category, "%d byte(s) arrived after response %d and before request %d was sent: %s"
                    % (len(data), after + 1, after + 2, escape(data, 300)), after))
    if m > n + splits:
        out.append(("extra-response", "%d responses for %d request(s); the extra: %s" % (
            m, n, "; ".join(r.summary() for r in res.responses[n:n + 3])), n - 1))
    rejectable = [i for i, r in enumerate(sent) if r.flags & {"may_reject", "may_split"}]
    # A request pipelined after one that closes the connection is "data after Connection: close" to the parser.
    rejectable = sorted(set(rejectable) | {i + 1 for i, r in enumerate(sent[:-1]) if r.closes is not False})
    for j, resp in enumerate(res.responses[:n]):
        req = sent[j]
        if resp.is_parser_400 and not (req.flags & {"may_reject", "may_split", "may_wait"}) and \
                not (req.expect and 400 in req.expect):
            later = [i for i in rejectable if i > j]
            if req.closes is not False and j < n - 1:
                out.append(("lost-response", "request %d asks to close the connection and request %d was pipelined "
                            "after it: the parser answered 400 (\"data after Connection: close\") in place of request "
                            "%d's response" % (j + 1, j + 2, j + 1), j))
            elif later:
                why = ("was pipelined after a request that closes the connection"
                       if sent[later[0] - 1].closes is not False and not sent[later[0]].flags & {"may_reject", "may_split"}
                       else "is malformed")
                out.append(("lost-response", "request %d (valid) got the parser's 400 that answers request %d, which %s: "
                            "request %d never gets its own response" % (j + 1, later[0] + 1, why, j + 1), j))
            else:
                out.append(("rejected-valid", "request %d (valid HTTP) was rejected by the HTTP parser with 400" % (j + 1), j))
        if j < m - 1 and j < n - 1 and (req.closes is True or resp.closes):
            out.append(("after-close", "response %d came after response %d, which closes the connection (%s)"
                        % (j + 2, j + 1, "Connection: close in the response" if resp.closes else "the request asked to close"), j + 1))
        if resp.version != "1.1" and b"HTTP/1.0" not in req.raw:
            out.append(("version", "response %d has HTTP/%s to a request that is not HTTP/1.0" % (j + 1, resp.version), j))
    k = m
    nxt = sent[k] if k < n else None
    prev = sent[k - 1] if 0 < k <= n else None
    prev_resp = res.responses[k - 1] if 0 < k <= m else None
    later_bad = any(i > k for i in rejectable)
    if res.error:
        kind, message = res.error
        if kind == "malformed" and message.startswith("bytes that are no response follow") and k > 0:
            out.append(("head-body", "response %d answers HEAD but %s" % (k, message.split(": ", 1)[0].replace(
                "bytes that are no response follow the response to a HEAD request", "is followed by bytes") + ": " +
                message.split(": ", 1)[-1]), k - 1))
        elif kind == "malformed":
            out.append(("malformed-response", "response %d is not well-formed HTTP/1.1: %s" % (k + 1, message), k))
        elif nxt is not None and "cut_ok" in nxt.flags:
            pass
        elif any("resets" in later.flags for later in sent[k + 1:]):
            # A pipelined request's reset fault sends a TCP RST, and a RST discards what the network
            # has not delivered yet, earlier responses included: as a real reset would.
            pass
        elif nxt is not None and later_bad:
            out.append(("cut-by-later", "response %d was cut short, apparently because a later request on the "
                        "connection was malformed: %s" % (k + 1, message), k))
        elif n > MAX_PIPELINED + 1 and case.mode != "sequential":
            out.append(("pipeline-overflow", "response %d cut short with %d pipelined requests: %s" % (k + 1, n, message), k))
        else:
            out.append(("truncated-response", "response %d is truncated: %s" % (k + 1, message), min(k, n - 1)))
    elif k < n and res.end == "eof":
        ended_ok = prev is not None and (prev.closes is not False or prev_resp.closes or prev_resp.status == 400 or
                                         bool(prev.flags & {"terminal", "cut_ok", "hang_ok", "may_split"}))
        if ended_ok or nxt.flags & {"may_reject", "may_split", "cut_ok", "hang_ok"}:
            pass
        elif later_bad:
            out.append(("lost-response", "connection closed without answering valid request %d (a later request "
                        "on it was malformed)" % (k + 1), k))
        elif n > MAX_PIPELINED + 1 and case.mode != "sequential":
            out.append(("pipeline-overflow", "connection closed without answering request %d of %d pipelined "
                        "(the proxy queues at most %d)" % (k + 1, n, MAX_PIPELINED), k))
        else:
            out.append(("no-response", "connection closed without answering request %d%s" % (
                k + 1, " (reset)" if res.reset else ""), k))
    elif k < n and res.end == "timeout":
        partial = " (%d bytes of a response had arrived)" % len(res.partial) if res.partial else ""
        if nxt.flags & {"hang_ok", "may_wait"}:
            pass
        elif prev is not None and "terminal" in prev.flags:
            out.append(("after-upgrade", "no answer to request %d within %ss: it follows an Upgrade/CONNECT request "
                        "that was answered" % (k + 1, TIMEOUT_HINT[0]), k))
        elif prev is not None and (prev.flags & {"may_wait", "hang_ok", "may_split"} or prev.closes is None):
            pass
        elif prev is not None and prev.closes is True:
            out.append(("left-open", "request %d asked to close; the connection stayed open and request %d got no "
                        "answer within %ss" % (k, k + 1, TIMEOUT_HINT[0]), k - 1))
        else:
            out.append(("timeout", "no response to request %d within %ss%s" % (k + 1, TIMEOUT_HINT[0], partial), k))
    if res.end == "left-open" and m >= 1:
        last = sent[min(m, n) - 1]
        if "hang_ok" not in last.flags:
            out.append(("left-open", "the connection stayed open %ss after response %d, which %s" % (
                TIMEOUT_HINT[0], m, "says Connection: close" if res.responses[-1].closes else
                "answers a request that asked to close"), min(m, n) - 1))
    if res.trailing and not out and m <= n + splits:
        last = sent[-1] if sent else None
        if not (last and last.flags & {"may_split", "may_reject"}):
            if m > 0 and sent and sent[min(m, n) - 1].head and not res.trailing.startswith(b"HTTP/"):
                out.append(("head-body", "response %d answers HEAD but is followed by %d bytes (a body?): %s"
                            % (m, len(res.trailing), escape(res.trailing, 200)), min(m, n) - 1))
            elif res.trailing.startswith(b"HTTP/"):
                out.append(("extra-response", "a response more than requests sent (or a response body longer than "
                            "its framing) after response %d: %s" % (m, escape(res.trailing, 300)), n - 1))
            else:
                out.append(("extra-bytes", "%d unexpected byte(s) after the last response: %s"
                            % (len(res.trailing), escape(res.trailing, 300)), n - 1))
    return out


def judge_statuses(sent, res):
    """Forward mode's oracle: a status outside what the request may get (a CONNECT to this proxy's own
    port answered 200, a client outside the allowed network let in), and a 407 without its challenge."""
    out = []
    for j, resp in enumerate(res.responses[:len(sent)]):
        req = sent[j]
        if req.expect is not None and resp.status not in req.expect:
            out.append(("wrong-status", "request %d got %d; expected %s: %s" % (
                j + 1, resp.status, " or ".join(str(x) for x in sorted(req.expect)), req.why), j))
        if resp.status == 407 and resp.header(b"proxy-authenticate") is None:
            out.append(("no-challenge", "response %d is a 407 without Proxy-Authenticate (RFC 9110 11.7.1)" % (j + 1), j))
        if "connect" in req.flags and 200 <= resp.status < 300 and resp.status != 200:
            out.append(("wrong-status", "CONNECT answered %d: a tunnel is announced by 200" % resp.status, j))
    return out


def judge_tunnel(case, res):
    """A tunnel carries bytes unchanged both ways, and the proxy adds nothing of its own."""
    tunnel = case.tunnel
    payload, prefix = tunnel["payload"], tunnel.get("maybe_prefix", b"")
    got = res.tunnel_data
    index = len(case.requests) - 1
    if tunnel["target"] == "echo":
        if got in (payload, prefix + payload) if prefix else got == payload:
            return []
        for want in ([prefix + payload, payload] if prefix else [payload]):
            if want.startswith(got) and len(got) < len(want):
                return [("tunnel-bytes", "the echo target sent back %d of the %d bytes written into the tunnel%s; "
                         "the rest did not come back within %ss" % (len(got), len(want),
                                                                     " (the tunnel ended)" if res.tunnel_eof else "",
                                                                     TIMEOUT_HINT[0]), index)]
        want = prefix + payload if prefix and got.startswith(prefix[:1]) else payload
        at = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
        return [("tunnel-bytes", "%d bytes came back through an echo tunnel for %d written; first difference at byte "
                 "%d: got %s, sent %s" % (len(got), len(want), at, escape(got[at:at + 80]), escape(want[at:at + 80])),
                 index)]
    if tunnel["target"] == "origin-http":
        kind, value = res.tunnel_response or ("none", None)
        if kind == "ok" and value.status == 200 and value.body_sample.startswith(b"#EXTM3U"):
            return []
        what = value.summary() if kind == "ok" else "no answer within %ss" % TIMEOUT_HINT[0] if kind == "timeout" \
            else "%s %s" % (kind, value or "")
        return [("tunnel-bytes", "an HTTP request to the demo origin sent through a tunnel %s got %s, not the "
                 "origin's 200 playlist: %s" % ("in the CONNECT's own write" if tunnel["early"] else "after the 200",
                                               what, escape(res.tunnel_data, 200)), index)]
    return []


TIMEOUT_HINT = [6]
TRACE = [None, threading.Lock()]  # --trace: "client-port case-seed" per connection, to match `ss` output


# ---------------------------------------------------------------------------------------------
# Proxy processes and the misbehaving origin

def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


REFUSING = []  # sockets bound to the refusing ports, held open for the whole run


def refusing_port():
    """A loopback port that refuses connections for the whole run: bound, never listening. A port
    closed again after bind could be taken by a server that another test starts meanwhile (seen:
    a CONNECT to the "closed" port tunnelled, an absolute-form request answered 404)."""
    s = socket.socket()
    s.bind((HOST, 0))
    REFUSING.append(s)
    return s.getsockname()[1]


class ManagedProxy:
    def __init__(self, binary, rules_path, out, evil_port, presets_dir=None, forward_config=None):
        self.binary, self.rules_path, self.out, self.evil_port = binary, rules_path, out, evil_port
        self.presets_dir = presets_dir
        self.forward_config = forward_config  # a config file with "forward": the proxy runs with --forward
        self.proc = None
        self.port = 0
        self.origin_port = 0
        self.control_port = 0
        self.generation = 0
        self.log_path = None
        self.started_at = 0

    def start(self, origin_port=0, backtrace=False):
        """Starts `hlschaos demo`. Without `backtrace` a crash ends the process at once (Swift's
        backtracer would keep a dying process around for seconds); triage runs turn it on. The
        control port is found free and then bound by the proxy: another program (an outgoing
        connection of a test running beside this one) can take it in between, so a start that
        lost that race is tried again on another port."""
        for _ in range(5):
            if self.start_once(origin_port, backtrace):
                return True
            if "the port is already in use" not in self.log_text():
                return False
        return False

    def start_once(self, origin_port, backtrace):
        self.generation += 1
        self.log_path = os.path.join(self.out, "proxy-%d.log" % self.generation)
        args = [self.binary, "demo", "--host", HOST, "--port", "0", "--origin-port", str(origin_port),
                "--rules", self.rules_path, "--log-level", "warning"]
        if self.presets_dir:
            args += ["--presets", self.presets_dir]
        if self.evil_port:
            args += ["--origin", "evil=http://%s:%d" % (HOST, self.evil_port)]
        if self.forward_config:
            # The control API on a port of its own: one more listener forward requests must not reach.
            self.control_port = free_port()
            args += ["--forward", "--config", self.forward_config, "--control", "%s:%d" % (HOST, self.control_port)]
        env = dict(os.environ)
        env["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,color=no" if backtrace else "enable=no"
        logf = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     cwd=REPO, env=env, start_new_session=True)
        logf.close()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            text = self.log_text()
            m = re.search(r"proxy on port (\d+)", text)
            if m:
                self.port = int(m.group(1))
                om = re.search(r"origin http://127\.0\.0\.1:(\d+)", text)
                self.origin_port = int(om.group(1)) if om else 0
                self.started_at = time.monotonic()
                return True
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        return False

    def log_text(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def exit_description(self):
        if self.proc is None or self.proc.poll() is None:
            return "running"
        code = self.proc.returncode
        if code < 0:
            try:
                return "killed by signal %s" % signal.Signals(-code).name
            except ValueError:
                return "killed by signal %d" % -code
        return "exited with status %d" % code

    def crash_text(self, limit=14):
        """The runtime's message and the crashed thread's first frames from the backtrace."""
        lines = self.log_text().splitlines()
        out = [l for l in lines if re.search(r"Fatal error|runtime failure|\*\*\* Signal|Precondition|Assertion", l)][:4]
        for i, line in enumerate(lines):
            if re.search(r"^Thread \d+ .*crashed:", line):
                out.append(line)
                for frame in lines[i + 1:]:
                    if frame.startswith("Thread ") or len(out) >= limit:
                        break
                    if frame.strip() and frame.strip() not in (l.strip() for l in out):
                        out.append(frame)
                break
        return "\n".join(out)

    def rss_kb(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except (OSError, AttributeError):
            pass
        return None

    def stop(self, force=False):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGKILL if force else signal.SIGTERM)
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except OSError:
                pass


class ExternalProxy:
    proc = None

    def __init__(self, port):
        self.port = port
        self.origin_port = 0
        self.control_port = 0
        self.generation = 1
        self.log_path = None

    def alive(self):
        return True

    def exit_description(self):
        return "not answering"

    def crash_text(self, limit=40):
        return ""

    def rss_kb(self):
        return None

    def stop(self, force=False):
        pass


def probe(port, timeout=8.0):
    """A plain GET through the proxy; (ok, description)."""
    req = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    try:
        conn = Conn(port, timeout)
    except OSError as e:
        return False, "connect: %s" % e
    try:
        if not conn.send(req):
            return False, "send failed"
        kind, value = conn.next_response(False, time.monotonic() + timeout)
        if kind != "ok":
            return False, "%s %s" % (kind, value or "")
        if value.status != 200:
            return False, "status %d" % value.status
        return True, "ok"
    finally:
        conn.close()


def fetch(port, path, timeout=10.0):
    req = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path).encode()
    conn = Conn(port, timeout)
    try:
        conn.send(req)
        kind, value = conn.next_response(False, time.monotonic() + timeout)
        if kind != "ok":
            return None, b""
        start = conn.pos - value.body_length
        body = bytes(conn.buf[start:conn.pos]) if value.framing != "chunked" else None
        if body is None:
            # re-read chunked body
            body = dechunk(bytes(conn.buf[len(value.head_bytes):conn.pos]))
        return value, body
    finally:
        conn.close()


def dechunk(data):
    out = bytearray()
    pos = 0
    while True:
        end = data.find(b"\r\n", pos)
        if end < 0:
            break
        size = int(data[pos:end].split(b";")[0], 16)
        pos = end + 2
        if size == 0:
            break
        out += data[pos:pos + size]
        pos += size + 2
    return bytes(out)


EVIL_BEHAVIOURS = ["ok", "chunked", "close", "early", "rst", "gzip", "dupcl", "badhdr", "hugehdr", "status999",
                   "noreason", "http10", "redirect", "redirectloop", "interim", "ctlhdr", "longline", "clhuge",
                   "negcl", "204body", "slow", "stall", "empty", "binary", "latin1"]


class ThreadedServer:
    """A TCP listener that serves each connection on a thread of its own (`serve`, in a subclass)."""

    def __init__(self, port=0, host=HOST):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(256)
        self.host, self.port = host, self.sock.getsockname()[1]
        self.stopped = False
        threading.Thread(target=self.accept_loop, daemon=True).start()

    def stop(self):
        self.stopped = True
        try:
            self.sock.close()
        except OSError:
            pass

    def accept_loop(self):
        while not self.stopped:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()


class EvilOrigin(ThreadedServer):
    """A misbehaving origin on 127.0.0.1: /m.m3u8 (master), /v/<b>.m3u8 (media), /p/<b>.m3u8 (entry
    playlists), /s/<b>/<n>.ts (segments), /k/<b>.key, each delivered with behaviour <b>."""

    def __init__(self, port=0):
        self.anomalies = []
        self.requests = 0
        super().__init__(port, HOST)

    def serve(self, conn):
        conn.settimeout(30)
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                    if len(buf) > 1 << 20:
                        return
                head, buf = buf.split(b"\r\n\r\n", 1)
                self.requests += 1
                line = head.split(b"\r\n", 1)[0]
                if not re.match(rb"^(GET|HEAD) /[!-~]* HTTP/1\.1$", line) and len(self.anomalies) < 50:
                    self.anomalies.append("request line %s" % escape(line, 200))
                for h in head.split(b"\r\n")[1:]:
                    name, sep, value = h.partition(b":")
                    if (not sep or not TOKEN_RE.match(name) or b"\x00" in value) and len(self.anomalies) < 50:
                        self.anomalies.append("header line %s in %s" % (escape(h, 200), escape(line, 200)))
                parts = line.split(b" ")
                method = parts[0]
                path = parts[1].decode("latin-1") if len(parts) > 1 else "/"
                path = path.split("?", 1)[0]
                if not self.respond(conn, method == b"HEAD", path):
                    return
        except OSError:
            return
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def playlist(self, path):
        m = re.match(r"^/(m|v|p)/?([a-z0-9]*)", path)
        if path == "/m.m3u8":
            lines = ["#EXTM3U", "#EXT-X-VERSION:3"]
            for i, b in enumerate(["ok", "chunked", "close", "early", "gzip", "rst", "slow", "stall", "status999"]):
                lines.append("#EXT-X-STREAM-INF:BANDWIDTH=%d,RESOLUTION=640x360" % (100000 * (i + 1)))
                lines.append("v/%s.m3u8" % b)
            return "\n".join(lines) + "\n"
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0",
                 '#EXT-X-KEY:METHOD=AES-128,URI="../k/early.key"']
        for n, b in enumerate(EVIL_BEHAVIOURS):
            lines.append("#EXTINF:2.0,")
            lines.append("../s/%s/%d.ts" % (b, n))
        lines.append("#EXT-X-ENDLIST")
        return "\n".join(lines) + "\n"

    def respond(self, conn, head, path):
        m = re.match(r"^/(?:v|p)/([a-z0-9]+)\.m3u8$", path)
        if path == "/m.m3u8":
            behaviour, ctype, body = "ok", b"application/vnd.apple.mpegurl", self.playlist(path).encode()
        elif m:
            behaviour, ctype, body = m.group(1), b"application/vnd.apple.mpegurl", self.playlist(path).encode()
        else:
            m = re.match(r"^/(s|k)/([a-z0-9]+)/?([0-9]*)", path)
            if not m:
                return self.send(conn, b"HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope", head)
            behaviour = m.group(2)
            ctype = b"video/mp2t" if m.group(1) == "s" else b"application/octet-stream"
            body = (b"\x47" + bytes(range(187))) * 40 if m.group(1) == "s" else b"0123456789abcdef"
        return self.behave(conn, head, behaviour, ctype, body, path)

    def send(self, conn, data, head):
        try:
            conn.sendall(data)
            return True
        except OSError:
            return False

    def behave(self, conn, head, b, ctype, body, path):
        base = b"Content-Type: " + ctype + b"\r\n"
        payload = b"" if head else body
        if b == "ok" or b not in EVIL_BEHAVIOURS:
            return self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: %d\r\n\r\n" % len(body) + payload, head)
        if b == "chunked":
            out = b"HTTP/1.1 200 OK\r\n" + base + b"Transfer-Encoding: chunked\r\n\r\n"
            if not head:
                for i in range(0, len(body), 333):
                    piece = body[i:i + 333]
                    out += b"%x;ext=1\r\n" % len(piece) + piece + b"\r\n"
                out += b"0\r\nX-Trailer: t\r\n\r\n"
            return self.send(conn, out, head)
        if b in ("close", "http10"):
            status = b"HTTP/1.0 200 OK\r\n" if b == "http10" else b"HTTP/1.1 200 OK\r\n"
            self.send(conn, status + base + b"Connection: close\r\n\r\n" + payload, head)
            return False
        if b == "early":
            self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: %d\r\n\r\n" % (len(body) * 2) +
                      payload[:max(1, len(payload) // 3)], head)
            return False
        if b == "rst":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            return False
        if b == "gzip":
            garbage = b"\x1f\x8b\x08\x00garbage" + body[:50]
            return self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n"
                             % len(garbage) + (b"" if head else garbage), head)
        if b == "dupcl":
            self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n"
                      % (len(body), len(body) + 7) + payload, head)
            return False
        if b == "badhdr":
            return self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Bad Header: x\r\nX-Ok: \xc3\xa4\xff\r\n"
                             b"X-Fold: a\r\n b\r\n(x): y\r\nContent-Length: %d\r\n\r\n" % len(body) + payload, head)
        if b == "hugehdr":
            self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"X-Huge: " + b"h" * 200000 +
                      b"\r\nContent-Length: %d\r\n\r\n" % len(body) + payload, head)
            return False
        if b == "status999":
            return self.send(conn, b"HTTP/1.1 999 Odd\r\n" + base + b"Content-Length: %d\r\n\r\n" % len(body) + payload, head)
        if b == "noreason":
            return self.send(conn, b"HTTP/1.1 200\r\n" + base + b"Content-Length: %d\r\n\r\n" % len(body) + payload, head)
        if b == "redirect":
            return self.send(conn, b"HTTP/1.1 302 Found\r\nLocation: /s/ok/0.ts\r\nContent-Length: 0\r\n\r\n", head)
        if b == "redirectloop":
            return self.send(conn, b"HTTP/1.1 302 Found\r\nLocation: " + path.encode() + b"\r\nContent-Length: 0\r\n\r\n", head)
        if b == "interim":
            return self.send(conn, b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
                             b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: %d\r\n\r\n" % len(body) + payload, head)
        if b == "ctlhdr":
            return self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"X-Ctl: a\x01b\x7fc\r\nX-Null: a\x00b\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(body) + payload, head)
        if b == "longline":
            return self.send(conn, b"HTTP/1.1 200 " + b"R" * 20000 + b"\r\n" + base + b"Content-Length: %d\r\n\r\n"
                             % len(body) + payload, head)
        if b == "clhuge":
            self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: 99999999999999999999\r\n\r\n" + payload, head)
            return False
        if b == "negcl":
            self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: -1\r\n\r\n" + payload, head)
            return False
        if b == "204body":
            self.send(conn, b"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n0123456789", head)
            return False
        if b == "slow":
            time.sleep(12)
            return self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: %d\r\n\r\n" % len(body) + payload, head)
        if b == "stall":
            half = len(payload) // 2
            if not self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: %d\r\n\r\n" % len(body) + payload[:half], head):
                return False
            time.sleep(20)
            return self.send(conn, payload[half:], head)
        if b == "empty":
            return self.send(conn, b"HTTP/1.1 200 OK\r\n" + base + b"Content-Length: 0\r\n\r\n", head)
        if b == "binary":
            data = bytes(range(256)) * 4
            return self.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.apple.mpegurl\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(data) + (b"" if head else data), head)
        if b == "latin1":
            data = b"#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n\xe9\xe8\xff.ts\n#EXTINF:2,\nhttp://[::1\n#EXT-X-ENDLIST\n"
            return self.send(conn, b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.apple.mpegurl\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(data) + (b"" if head else data), head)
        return False


class EchoServer(ThreadedServer):
    """The far end of the fuzzer's tunnels: every byte it reads goes back unchanged. On 127.0.0.3, an
    address no playlist names, so a CONNECT to it stays a blind tunnel even with interception on."""

    def __init__(self, port=0, host=ECHO_HOST):
        self.bytes = 0
        super().__init__(port, host)

    def serve(self, conn):
        conn.settimeout(60)
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                self.bytes += len(data)
                conn.sendall(data)
        except OSError:
            return
        finally:
            try:
                conn.close()
            except OSError:
                pass


def playlist_uris(body):
    """The URIs a playlist names, as written: its URI lines and its tags' URI="…" attributes."""
    uris = []
    for line in body.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            uris += re.findall(r'URI="([^"]*)"', line)
        else:
            uris.append(line)
    return uris


def crawl(port, queue, limit):
    """Fetches the targets in `queue` through the proxy, breadth first, each once and at most
    `limit` of them, and yields (target, body, seen) for each answered 200; the caller appends
    what to fetch next to `queue` (skipping what is in `seen`)."""
    seen, fetched = set(), 0
    while queue and fetched < limit:
        target = queue.pop(0)
        if target in seen:
            continue
        seen.add(target)
        try:
            resp, body = fetch(port, target)
        except OSError:
            continue
        fetched += 1
        if resp is not None and resp.status == 200:
            yield target, body, seen


def extract_uris(body, base_path):
    out = []
    for uri in playlist_uris(body):
        if uri.startswith("http://") or uri.startswith("https://"):
            parsed = urllib.parse.urlsplit(uri)
            out.append(parsed.path + ("?" + parsed.query if parsed.query else ""))
        else:
            out.append(urllib.parse.urljoin("http://x" + base_path, uri)[len("http://x"):])
    return out


def discover(port, origin_port, evil_port, targets):
    """Learns real rewritten paths by fetching playlists through the proxy."""
    targets.proxy_port = port
    targets.origin_port = origin_port
    targets.evil_port = evil_port
    EVIL_PORT[0] = evil_port
    targets.entries = list(ENTRY_MASTERS) + ["/", "/vod/ts/v0/index.m3u8", "/vod/ts/v2/s008.ts", "/vod/ts/v0/s000.ts",
                                              "/vod/aes/key.bin", "/vod/fmp4/v1/init.mp4", "/live/ts/v2/index.m3u8",
                                              "/vod/ts/subs/en/s000.vtt", "/vod/byterange/v0/index.ts"]
    tagged = {}
    queue = list(ENTRY_MASTERS)
    for path, body, seen in crawl(port, queue, 60):
        per_kind = {}
        for uri in extract_uris(body, path.split("?")[0]):
            kind, variant, msn = parse_tag(uri)
            if kind is None:
                continue
            tagged[uri] = (kind, variant, msn)
            per_kind.setdefault((kind, variant), []).append(uri)
        # Follow one media playlist per variant/rendition kind of each master.
        for (kind, variant), uris in per_kind.items():
            if kind == "media":
                for uri in uris[:3]:
                    if uri not in seen:
                        queue.append(uri)
    targets.tagged = [(p, k, v, n) for p, (k, v, n) in sorted(tagged.items())]
    if evil_port:
        targets.evil_entries = ["/@evil/m.m3u8"] + ["/@evil/p/%s.m3u8" % b for b in EVIL_BEHAVIOURS] + \
            ["/@evil/s/%s/%d.ts" % (b, i) for i, b in enumerate(EVIL_BEHAVIOURS)]
        evil_tagged = []
        for _, body, _ in crawl(port, ["/@evil/m.m3u8"], 1):
            evil_tagged += [u for u in extract_uris(body, "/@evil/") if "/~" in u]
        for b in EVIL_BEHAVIOURS:
            evil_tagged.append("/~seg.v0.n3/http/%s:%d/s/%s/3.ts" % (HOST, evil_port, b))
            evil_tagged.append("/~media.v0/http/%s:%d/v/%s.m3u8" % (HOST, evil_port, b))
        evil_tagged.append("/~key.v0.n1/http/%s:%d/k/early.key" % (HOST, evil_port))
        targets.evil_tagged = evil_tagged
    return targets


def discover_forward(port, targets):
    """Forward-mode URLs as the proxy rewrites them (`http://127.0.0.1:ORIGIN/…?hlschaos=seg.v2.n8`):
    the demo masters fetched in absolute form, and one level of media playlists."""
    origin = "http://%s:%d" % (HOST, targets.origin_port)
    queue = [origin + m for m in ENTRY_MASTERS]
    found = {}
    for url, body, seen in crawl(port, queue, 40):
        media = 0
        for uri in playlist_uris(body):
            full = urllib.parse.urljoin(url, uri)
            values = own_query_values(full, "hlschaos")
            if len(values) != 1:
                continue
            fields = values[0].split(".")
            variant = next((int(f[1:]) for f in fields[1:] if f[:1] == "v" and f[1:].isdigit()), None)
            msn = next((int(f[1:]) for f in fields[1:] if f[:1] == "n" and f[1:].isdigit()), None)
            found[full] = (fields[0], variant, msn)
            if fields[0] == "media" and media < 3 and full not in seen:
                media += 1
                queue.append(full)
    targets.fwd_tagged = [(u, k, v, n) for u, (k, v, n) in sorted(found.items())]


def machine_addresses():
    """This machine's non-loopback addresses (the route to a far address names the main one)."""
    out = []
    for family, far in ((socket.AF_INET, "10.254.254.254"), (socket.AF_INET6, "2001:db8::1")):
        try:
            s = socket.socket(family, socket.SOCK_DGRAM)
            s.connect((far, 9))  # UDP: nothing is sent
            address = s.getsockname()[0]
            s.close()
            if not ipaddress.ip_address(address).is_loopback:
                out.append(address)
        except OSError:
            pass
    return out


def statuses_in(value):
    """Every number under a "status" key of a rule action."""
    found = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "status" and isinstance(item, int):
                found.add(item)
            else:
                found |= statuses_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= statuses_in(item)
    return found


def load_presets(port, targets):
    """Preset names from rules/*.json, checked against the list the proxy itself gives."""
    info = {}
    rules_dir = os.path.join(REPO, "rules")
    for name in sorted(os.listdir(rules_dir)):
        if not name.endswith(".json") or name == "schema.json":
            continue
        try:
            with open(os.path.join(rules_dir, name)) as f:
                scenario = json.load(f)
        except (OSError, ValueError):
            continue
        rules = []
        statuses = set()
        for rule in scenario.get("rules", []):
            kind = rule.get("match", {}).get("kind", "any")
            kinds = set(kind if isinstance(kind, list) else [kind])
            if "any" in kinds:
                kinds = set(ALL_KINDS)
            rules.append((kinds, set(rule.get("action", {}).keys())))
            statuses |= statuses_in(rule.get("action", {}))
        info[name[:-5]] = rules
        targets.preset_statuses[name[:-5]] = statuses
    try:
        resp, body = fetch(port, "/s/probe+no-such-preset-zz/vod/ts/master.m3u8")
        m = re.search(rb"presets: ([A-Za-z0-9_., -]+)", body or b"")
        if m:
            listed = [x.strip() for x in m.group(1).decode().split(",") if x.strip()]
            for name in listed:
                if name not in info:
                    info[name] = [(set(ALL_KINDS), SLOW_ACTIONS | CUT_ACTIONS)]  # unknown to us: allow all
                    targets.preset_statuses[name] = set(range(100, 1000))
    except OSError:
        pass
    targets.presets = sorted(info)
    targets.presets_info = info


# ---------------------------------------------------------------------------------------------
# The fuzzing run

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.cases = 0
        self.requests = 0
        self.responses = 0
        self.statuses = {}
        self.fault_headers = {}
        self.preset_requests = {}
        self.flaky_timeouts = 0
        self.suppressed = 0
        self.restarts = 0
        self.unconfirmed = 0
        self.durations = [0, 0, 0, 0, 0]   # connections lasting <0.1 s, <0.5 s, <2 s, <7 s, longer
        self.forward_cases = {}            # fwd-case note -> connections
        self.connect_statuses = {}         # status -> CONNECTs answered with it
        self.absolute_statuses = {}        # status -> absolute-form requests answered with it
        self.outside_cases = 0             # connections from 127.0.0.2 (outside the allowed network)
        self.tunnels = 0                   # tunnels opened (200 to a CONNECT)
        self.tunnel_bytes = 0              # bytes that came back through echo tunnels unchanged

    def add(self, case, res):
        with self.lock:
            self.cases += 1
            self.durations[sum(1 for limit in (0.1, 0.5, 2, 7) if res.elapsed >= limit)] += 1
            self.requests += res.sent
            self.responses += len(res.responses)
            for r in res.responses:
                self.statuses[r.status] = self.statuses.get(r.status, 0) + 1
                fault = r.header(b"x-hlschaos-fault")
                if fault:
                    for item in fault.split(b","):
                        key = item.strip().split(b"/")[0].decode("latin-1")
                        self.fault_headers[key] = self.fault_headers.get(key, 0) + 1
            for req in case.requests[:res.sent]:
                for p in req.presets:
                    self.preset_requests[p] = self.preset_requests.get(p, 0) + 1
            kinds = [n for r in case.requests for n in r.notes if n.startswith("fwd-case:")]
            if kinds:
                self.forward_cases[kinds[-1][9:]] = self.forward_cases.get(kinds[-1][9:], 0) + 1
            if case.source:
                self.outside_cases += 1
            for req, resp in zip(case.requests, res.responses):
                table = self.connect_statuses if "connect" in req.flags else \
                    self.absolute_statuses if "absolute" in req.flags else None
                if table is not None:
                    table[resp.status] = table.get(resp.status, 0) + 1
            if res.tunnel_at is not None:
                self.tunnels += 1
                if case.tunnel and case.tunnel["target"] == "echo" and res.tunnel_data.endswith(case.tunnel["payload"]):
                    self.tunnel_bytes += len(case.tunnel["payload"])


def target_class(target):
    text = target.decode("latin-1", "replace")
    m = re.search(r"(?:/@evil|/http/127\.0\.0\.1:\d+)/(?:s|v|p|k)/([a-z0-9]+)", text)
    if m and ("/@evil/" in text or EVIL_PORT[0] and ":%d/" % EVIL_PORT[0] in text):
        return "evil-" + m.group(1)
    m = re.search(r"/~([A-Za-z]*)", text)
    if m:
        return "tag-" + m.group(1)[:12]
    if ".m3u8" in text:
        return "entry-playlist"
    return "entry-other"


EVIL_PORT = [0]


class Findings:
    def __init__(self, out, seed, meta):
        self.out, self.seed, self.meta = out, seed, meta
        self.lock = threading.Lock()
        self.items = []           # dicts
        self.by_signature = {}
        self.counter = 0

    @staticmethod
    def signature(category, case, index, message=""):
        """Findings with the same signature are counted, not reported again: the category, what the
        request concerned targets, and which families of mutations it carries."""
        req = case.requests[index] if case.requests and 0 <= index < len(case.requests) else None
        if req is None:
            return (category,)
        if category == "lost-response":
            # One cause (NIO's parser error answered while a pipelined request waits); two flavours.
            return (category, req.closes is not False)
        if category in ("after-upgrade", "cut-by-later", "head-body"):
            return (category,)
        if category == "malformed-response":
            # What is wrong, without the numbers: one finding per defect, not per URL.
            what = message.split("HTTP/1.1: ", 1)[-1]
            return (category, re.sub(r"[0-9]+", "N", what)[:40])
        if category in ("wrong-status", "no-challenge") and req.why:
            # One finding per deciding rule: the target's form with ports named, not numbered.
            return (category, req.why.split("; ")[-1])
        forward = [n for n in req.notes if n.startswith("fwd-case:") or n in ("early", "after-200")]
        if category == "tunnel-bytes" or forward:
            return (category,) + tuple(sorted(forward))
        if any(n.startswith("method:CONNECT") for n in req.notes):
            return (category, "CONNECT")
        families = tuple(sorted({n.split(":")[0] for n in req.notes}))
        return (category, target_class(req.target), families)

    def seen(self, signature):
        with self.lock:
            entry = self.by_signature.get(signature)
            if entry is not None:
                entry["count"] += 1
                return True
            return False

    def add(self, category, message, case, extra=None, connections=None, signature=None):
        with self.lock:
            sig = signature or (category, message)
            entry = self.by_signature.get(sig)
            if entry is not None:
                entry["count"] += 1
                return None
            self.counter += 1
            number = self.counter
            item = {"number": number, "category": category, "message": message, "seed": self.seed,
                    "case_seed": case.seed, "case_index": case.index, "count": 1,
                    "connections": [c.to_json() for c in (connections or [case])]}
            item.update(self.meta)
            if extra:
                item.update(extra)
            self.by_signature[sig] = item
            self.items.append(item)
        base = os.path.join(self.out, "finding-%03d" % number)
        with open(base + ".json", "w") as f:
            json.dump(item, f, indent=1)
        with open(base + ".bin", "wb") as f:
            first = item["connections"][0]
            f.write(b"".join(base64.b64decode(r["b64"]) for r in first["requests"]) +
                    (base64.b64decode(first["tunnel"]["payload"]) if first.get("tunnel") else b""))
        item["file"] = base + ".json"
        log("FINDING %d [%s] case %s: %s" % (number, category, case.seed, message.splitlines()[0][:300]))
        return item

    def save_index(self):
        with open(os.path.join(self.out, "findings.json"), "w") as f:
            json.dump([{k: v for k, v in i.items() if k != "connections"} for i in self.items], f, indent=1)


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.out = args.out
        self.timeout = args.timeout
        TIMEOUT_HINT[0] = self.timeout
        self.stop = threading.Event()
        self.trouble = threading.Event()   # proxy died or stopped answering
        self.trouble_reason = ""
        self.poke = threading.Event()      # a worker saw the proxy refuse a connection
        self.next_index = 0
        self.index_lock = threading.Lock()
        self.inflight = {}                 # index -> (case, start)
        self.recent = []                   # (case, start, end)
        self.inflight_lock = threading.Lock()
        self.stats = Stats()
        self.targets = Targets()
        self.gen = None
        self.proxy = None
        self.evil = None
        self.echo = None
        self.forward = not args.no_forward if args.binary else args.forward
        self.findings = None
        self.rules_path = os.path.join(self.out, "fuzz-rules.json")
        self.last_ok_probe = 0.0
        self.fuzz_seconds = 0.0
        self.deadline = float("inf")
        self.avoid = [re.compile(a.encode("latin-1")) for a in (args.avoid or [])]

    # --- setup ----------------------------------------------------------------------------

    def setup(self):
        os.makedirs(self.out, exist_ok=True)
        with open(self.rules_path, "w") as f:
            json.dump(LOOP_SCENARIO, f, indent=1)
        if self.args.binary:
            if not os.access(self.args.binary, os.X_OK):
                raise SetupError("binary %s is not executable" % self.args.binary)
            check = subprocess.run([self.args.binary, "validate", self.rules_path], capture_output=True, text=True,
                                   timeout=60, cwd=REPO)
            if check.returncode != 0:
                raise SetupError("hlschaos validate %s failed:\n%s%s" % (self.rules_path, check.stdout, check.stderr))
        if not self.args.no_evil_origin and self.args.binary:
            self.evil = EvilOrigin(self.args.evil_port or 0)
        forward_config = None
        if self.forward:
            self.echo = EchoServer(self.args.echo_port or 0)
            if self.args.binary:
                forward_config = os.path.join(self.out, "fuzz-forward.json")
                with open(forward_config, "w") as f:
                    json.dump(FORWARD_CONFIG, f, indent=1)
        if self.args.binary:
            self.proxy = ManagedProxy(self.args.binary, self.rules_path, self.out, self.evil.port if self.evil else 0,
                                      self.args.presets, forward_config)
            if not self.proxy.start(self.args.origin_port or 0):
                raise SetupError("the proxy did not start (no \"proxy on port N\" line):\n%s" % self.proxy.log_text()[-3000:])
        else:
            self.proxy = ExternalProxy(self.args.port)
        ok, why = probe(self.proxy.port, 15)
        if not ok:
            raise SetupError("the proxy on port %d does not answer GET /: %s" % (self.proxy.port, why))
        self.learn()
        self.gen = Generator(self.targets)
        self.gen.forward_share = self.args.forward_share
        self.findings = Findings(self.out, self.seed, {
            "origin_port": self.targets.origin_port, "evil_port": self.evil.port if self.evil else 0,
            "proxy_port": self.proxy.port, "rules": LOOP_SCENARIO, "timeout": self.timeout,
            "forward": self.forward, "control_port": self.targets.control_port, "echo_port": self.targets.echo_port})

    def learn(self):
        origin_port = self.proxy.origin_port or self.args.origin_port
        if not origin_port:
            # An external proxy: find the origin's port in a rewritten URI.
            resp, body = fetch(self.proxy.port, "/vod/ts/master.m3u8")
            m = re.search(rb"/http/127\.0\.0\.1:(\d+)/", body or b"")
            origin_port = int(m.group(1)) if m else 0
        discover(self.proxy.port, origin_port, self.evil.port if self.evil else 0, self.targets)
        load_presets(self.proxy.port, self.targets)
        if not self.targets.tagged:
            raise SetupError("no rewritten URIs found in the playlists served through the proxy")
        if self.forward:
            t = self.targets
            t.forward = True
            t.outside_clients = isinstance(self.proxy, ManagedProxy)  # the fuzzer's config: 127.0.0.1 only
            t.users, t.shared = (FORWARD_USERS, FORWARD_PASSWORD) if t.outside_clients else ({}, None)
            t.echo_port = self.echo.port
            t.closed_port = t.closed_port or refusing_port()
            t.machine_addresses = machine_addresses()
            self.learn_ports()
            discover_forward(self.proxy.port, t)
            if not t.fwd_tagged:
                raise SetupError("forward mode: no ?hlschaos= URIs in the playlists fetched in absolute form "
                                 "(http://127.0.0.1:%d/vod/ts/master.m3u8); is the proxy running with --forward?"
                                 % t.origin_port)

    def learn_ports(self):
        """This proxy's listeners (the proxy, its control API) and what a tunnel may reach."""
        t = self.targets
        t.proxy_port, t.control_port = self.proxy.port, self.proxy.control_port
        t.own_ports = {p for p in (self.proxy.port, self.proxy.control_port) if p}
        t.listeners = {(HOST, p) for p in (t.origin_port, t.evil_port, self.proxy.port, self.proxy.control_port) if p}
        if t.echo_port:
            t.listeners.add((ECHO_HOST, t.echo_port))

    # --- workers --------------------------------------------------------------------------

    def make_case(self, index):
        seed = "%d:%d" % (self.seed, index)
        rng = random.Random(seed)
        case = self.gen.case(rng, index, seed)
        return case

    def worker(self, deadline):
        while not self.stop.is_set() and not self.trouble.is_set() and time.monotonic() < deadline:
            with self.index_lock:
                index = self.next_index
                self.next_index += 1
            try:
                case = self.make_case(index)
            except Exception:
                log("generator error for case %d:\n%s" % (index, traceback.format_exc()))
                continue
            if (self.gen.suppressed and self.gen.is_suppressed(case)) or \
                    (self.avoid and any(a.search(case.raw) for a in self.avoid)):
                with self.stats.lock:
                    self.stats.suppressed += 1
                continue
            start = time.monotonic()
            with self.inflight_lock:
                self.inflight[index] = (case, start)
            try:
                res = run_case(case, self.proxy.port, self.timeout, linger=0.3 if index % 10 == 0 else 0.03,
                               until=self.deadline + 1)
            except Exception:
                log("runner error for case %d:\n%s" % (index, traceback.format_exc()))
                res = None
            end = time.monotonic()
            with self.inflight_lock:
                self.inflight.pop(index, None)
                self.recent.append((case, start, end))
                if len(self.recent) > 4000:
                    self.recent = self.recent[-2000:]
            if res is None or self.trouble.is_set():
                continue
            if res.end.startswith("connect-failed"):
                self.poke.set()  # the proxy no longer accepts connections: let the monitor look now
                time.sleep(0.2)
                continue
            self.stats.add(case, res)
            problems = judge(case, res)
            if problems and self.proxy_down():
                continue  # the monitor reports the death; these are its symptoms
            for category, message, index in problems:
                signature = Findings.signature(category, case, index, message)
                if self.findings.seen(signature):
                    continue
                if category in ("timeout", "left-open", "no-response", "truncated-response", "after-upgrade"):
                    # Confirm on a quiet connection with a longer timeout: the machine may just be busy.
                    patience_needed = max(12, self.timeout * 2)
                    if time.monotonic() + patience_needed > self.deadline + 1:
                        with self.stats.lock:
                            self.stats.unconfirmed += 1
                        continue
                    again = self.tracked_run(case, patience_needed, short=None)
                    if not any(c == category for c, _, _ in judge(case, again)):
                        with self.stats.lock:
                            self.stats.flaky_timeouts += 1
                        continue
                    if not self.healthy():
                        continue  # the whole proxy is stuck: the monitor reports that, with its suspects
                minimal, minimal_res = self.minimise(case, category, index)
                if minimal is not case:
                    message = message + "\n(reduced from %d to %d request(s); the original case is case_original)" % (
                        len(case.requests), len(minimal.requests))
                detail = self.describe(minimal, minimal_res or res)
                extra = {"case_original": case.to_json()} if minimal is not case else None
                self.findings.add(category, message + "\n" + detail, minimal, extra=extra, signature=signature)

    def minimise(self, case, category, index):
        """Drops requests of a multi-request case while the same category of finding remains."""
        if len(case.requests) < 2 or self.proxy_down() or time.monotonic() > self.deadline:
            return case, None
        current, current_res, tries = case, None, 0
        i = len(current.requests) - 1
        give_up = min(time.monotonic() + 15, self.deadline)
        while i >= 0 and tries < 12 and len(current.requests) > 1 and time.monotonic() < give_up:
            candidate_reqs = current.requests[:i] + current.requests[i + 1:]
            if current.tunnel and i == len(current.requests) - 1:
                candidate_reqs = []  # a tunnel case keeps its CONNECT
            if candidate_reqs and not any(f in r.flags for r in candidate_reqs[:-1] for f in ("may_wait", "may_split")):
                candidate = current.subset(candidate_reqs)
                tries += 1
                res = self.tracked_run(candidate, self.timeout)
                if self.proxy_down():
                    return current, current_res
                if any(c == category for c, _, _ in judge(candidate, res)):
                    current, current_res = candidate, res
            i -= 1
        return current, current_res

    def proxy_down(self):
        return not self.proxy.alive() or self.trouble.is_set()

    def healthy(self):
        """Answers three plain GETs on new connections."""
        return all(probe(self.proxy.port, 3)[0] for _ in range(3)) and not self.proxy_down()

    def tracked_run(self, case, timeout, short=1.0):
        """run_case, recorded as a suspect should the proxy die meanwhile."""
        key = ("rerun", id(case))
        start = time.monotonic()
        with self.inflight_lock:
            self.inflight[key] = (case, start)
        try:
            return run_case(case, self.proxy.port, timeout, short=short, until=self.deadline + 1)
        finally:
            with self.inflight_lock:
                self.inflight.pop(key, None)
                self.recent.append((case, start, time.monotonic()))

    def describe(self, case, res):
        lines = ["responses: " + ("; ".join(r.summary() for r in res.responses[:8]) or "none"),
                 "end: %s%s" % (res.end, " (reset)" if res.reset else "")]
        if res.responses:
            lines.append("first response head: " + escape(res.responses[0].head_bytes, 600))
        if res.partial:
            lines.append("unparsed bytes: " + escape(res.partial, 400))
        return "\n".join(lines)

    def monitor(self, deadline):
        """Probes the proxy every second. It is dead when its process is; it stopped answering when 3 of the
        last 6 probes failed (one stuck event loop of two fails every other new connection).
        last_ok_probe stays at the last probe before the first failure: the suspects start there."""
        recent = []
        while not self.stop.is_set() and not self.trouble.is_set() and time.monotonic() < deadline:
            self.poke.wait(1.0)
            self.poke.clear()
            if not self.proxy.alive():
                self.trouble_reason = "crash"
                self.trouble.set()
                return
            started = time.monotonic()
            ok, why = probe(self.proxy.port, 5)
            if not self.proxy.alive():
                self.trouble_reason = "crash"
                self.trouble.set()
                return
            if ok and all(recent):
                self.last_ok_probe = started
            recent = (recent + [ok])[-6:]
            if recent.count(False) >= 3:
                self.trouble_reason = "unresponsive: %s" % why
                self.trouble.set()
                return

    # --- crash triage -----------------------------------------------------------------------

    def suspects(self, since):
        """Connections that may have killed the proxy, the last to end first (the culprit's connection
        ends when the process dies)."""
        now = time.monotonic()
        with self.inflight_lock:
            cases = [(e, c) for c, s, e in self.recent if e >= since - 0.5] + [(now, c) for c, s in self.inflight.values()]
        seen = set()
        out = []
        for _, c in sorted(cases, key=lambda ec: -ec[0]):
            key = (c.index, c.raw)
            if key not in seen:
                seen.add(key)
                out.append(c)
        return out

    def restart(self, backtrace=False):
        self.proxy.stop(force=True)
        self.stats.restarts += 1
        if not self.proxy.start(self.targets.origin_port, backtrace):
            if not self.proxy.start(0, backtrace):
                raise SetupError("the proxy did not restart:\n%s" % self.proxy.log_text()[-2000:])
        ok, why = probe(self.proxy.port, 15)
        if not ok:
            raise SetupError("the restarted proxy does not answer: %s" % why)
        if self.proxy.origin_port != self.targets.origin_port:
            self.learn()
        else:
            self.targets.proxy_port = self.proxy.port
            if self.forward:
                self.learn_ports()

    def kills(self, cases, hard_deadline, backtrace_wait=0.0):
        """Replays `cases` at once on the current proxy. True when it dies or stops answering, False when
        it survives, None when there is no time left. With backtrace_wait, waits that long for a dying
        process to finish printing its backtrace."""
        if time.monotonic() > hard_deadline:
            return None
        dead = False
        port = self.proxy.port

        def twice(case, until):
            # A second time too: rules for the first request of a session (timeout-master) hide what
            # the next one would do.
            for _ in range(2):
                run_case(case, port, 1.5, linger=0.05, short=0.3, until=until)

        for i in range(0, len(cases), 200):
            if time.monotonic() > hard_deadline:
                return None
            until = time.monotonic() + 8
            threads = [threading.Thread(target=twice, args=(case, until), daemon=True) for case in cases[i:i + 200]]
            for t in threads:
                t.start()
            for t in threads:
                while t.is_alive() and not dead:
                    t.join(0.1)
                    dead = not self.proxy.alive()
            if dead:
                break
        if not dead:
            time.sleep(0.3)
        dead = dead or not self.proxy.alive()
        if not dead:
            # Several new connections: with one event loop stuck, every other one goes unanswered.
            failures = 0
            for _ in range(6):
                ok, _ = probe(self.proxy.port, 3)
                failures += not ok
                if failures >= 2 or not self.proxy.alive():
                    break
            dead = failures >= 2 or not self.proxy.alive()
        if dead and backtrace_wait:
            end = time.monotonic() + backtrace_wait
            while self.proxy.alive() and time.monotonic() < end:
                time.sleep(0.2)
        return dead

    def bisect(self, suspects, hard):
        """The one connection among `suspects` that kills the proxy on its own, or None."""
        if not suspects:
            return None
        verdict = self.kills(suspects, hard)
        if not verdict:
            return None
        self.restart()
        candidates = list(suspects)
        while len(candidates) > 1:
            half = candidates[:len(candidates) // 2]
            verdict = self.kills(half, hard)
            if verdict is None:
                return None
            if verdict:
                candidates = half
                self.restart()
            else:
                candidates = candidates[len(candidates) // 2:]
        verdict = self.kills(candidates, hard)
        if verdict:
            self.restart()
            return candidates[0]
        return None

    def triage(self, deadline):
        reason = self.trouble_reason
        status = self.proxy.exit_description()
        suspects = self.suspects(self.last_ok_probe)
        what = "died" if reason == "crash" else "stopped answering"
        kind = "crash" if reason == "crash" else "unresponsive"
        log("proxy %s (%s); %d suspect connection(s) since the last good probe" % (what, status, len(suspects)))
        if isinstance(self.proxy, ExternalProxy):
            case = suspects[0] if suspects else Case(-1, "none", "single", [])
            self.findings.add(kind, "proxy on port %d: %s" % (self.proxy.port, reason), case,
                              connections=suspects[:50] or None)
            return False
        stuck_threads = ""
        if reason != "crash":
            stuck_threads = thread_dump(self.proxy)  # where it spins, before it is killed
            self.proxy.proc.kill()
            self.proxy.proc.wait()
        first_log = self.proxy.log_path
        hard = deadline + (self.args.triage_grace if self.args.triage_grace is not None
                           else min(20.0, 2 + self.args.seconds * 0.1))
        self.restart()
        culprit = self.bisect(suspects, hard)
        if culprit is None and time.monotonic() < hard:
            # Timing may have mattered (a pipelined neighbour closing the connection first): every request
            # of every suspect on a connection of its own.
            singles = [c.subset([r]) for c in suspects for r in c.requests if len(c.requests) > 1]
            log("no connection kills it again as it was; trying the %d requests one per connection" % len(singles))
            culprit = self.bisect(singles, hard)
        if culprit is not None:
            # The smallest single request of the culprit that still kills it.
            minimal = culprit
            if len(culprit.requests) > 1:
                for req in culprit.requests:
                    single = culprit.subset([req])
                    verdict = self.kills([single], hard)
                    if verdict is None:
                        break
                    if verdict:
                        self.restart()
                        minimal = single
                        break
            # Once more with Swift's backtracer on, for the crash text (or gdb's view of a stuck process).
            self.restart(backtrace=True)
            self.kills([minimal], hard + 30, backtrace_wait=30)
            crash_log = self.proxy.crash_text() if reason == "crash" else thread_dump(self.proxy)
            status = self.proxy.exit_description() if not self.proxy.alive() else status
            log_path = self.proxy.log_path
            notes = set()
            for req in minimal.requests:
                notes |= set(req.notes)
            with self.gen.lock:
                self.gen.suppressed.append({n for n in notes if not n.startswith("header:misc")} or {"__never__"})
            message = "the proxy %s after this connection (%s)\n%s\nlog: %s" % (
                what, status, crash_log or "(no crash text)", log_path)
            self.findings.add(kind, message, minimal,
                              extra={"requests_text": [escape(r.raw, 3000) for r in minimal.requests]},
                              signature=crash_signature(reason, status, crash_log))
        else:
            message = "the proxy %s (%s) but no single connection of the %d since the last probe reproduces it " \
                      "alone (or there was no time left to find it); all of them are in the finding file\n%slog: %s" % (
                          what, status, len(suspects), stuck_threads + "\n" if stuck_threads else "", first_log)
            self.findings.add(kind, message, suspects[0] if suspects else Case(-1, "none", "single", []),
                              connections=suspects[:200] or None, signature=(kind, status, "unisolated"))
        self.restart()
        return True

    # --- main loop --------------------------------------------------------------------------

    def run(self):
        start = self.args.started
        deadline = start + self.args.seconds - min(3.0, self.args.seconds * 0.1)  # --seconds is the whole run
        self.deadline = deadline
        log("fuzz-http: seed %d, proxy port %d, origin port %d%s, %d presets, %d rewritten URIs, %ds, %d workers"
            % (self.seed, self.proxy.port, self.targets.origin_port,
               ", misbehaving origin port %d" % self.evil.port if self.evil else "",
               len(self.targets.presets), len(self.targets.tagged), self.args.seconds, self.args.workers))
        rss_start = self.proxy.rss_kb()
        while time.monotonic() < deadline - 1:
            self.trouble.clear()
            self.last_ok_probe = time.monotonic()
            threads = [threading.Thread(target=self.worker, args=(deadline - 1,), daemon=True)
                       for _ in range(self.args.workers)]
            mon = threading.Thread(target=self.monitor, args=(deadline - 1,), daemon=True)
            for t in threads:
                t.start()
            mon.start()
            burst_start = time.monotonic()
            for t in threads:
                t.join()
            self.fuzz_seconds += time.monotonic() - burst_start
            mon.join()
            if self.trouble.is_set():
                if not self.triage(deadline):
                    break
                continue
            break
        # final liveness check
        final_ok, why = probe(self.proxy.port, 10)
        if not final_ok and self.proxy.alive():
            time.sleep(2)
            final_ok, why = probe(self.proxy.port, 15)
        if not final_ok:
            suspects = self.suspects(self.last_ok_probe)
            self.findings.add("crash" if not self.proxy.alive() else "unresponsive",
                              "the proxy fails the final GET: %s (%s)\n%s" % (why, self.proxy.exit_description(),
                                                                               self.proxy.crash_text()),
                              suspects[0] if suspects else Case(-1, "none", "single", []),
                              connections=suspects[:200] or None)
        rss_end = self.proxy.rss_kb()
        return rss_start, rss_end, time.monotonic() - start


class SetupError(Exception):
    pass


def thread_dump(proxy):
    """The busy threads of a live proxy, from gdb when it is installed: where a stuck event loop spins."""
    gdb = shutil.which("gdb")
    if not gdb or proxy.proc is None or proxy.proc.poll() is not None:
        return ""
    try:
        out = subprocess.run([gdb, "-p", str(proxy.proc.pid), "-batch", "-ex", "thread apply all bt 14"],
                             capture_output=True, text=True, timeout=90).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    keep = []
    for block in re.split(r"\n(?=Thread \d+ )", out):
        lines = block.strip().splitlines()
        if not lines or not lines[0].startswith("Thread "):
            continue
        top = " ".join(lines[1:3])
        if re.search(r"epoll_wait|futex|__GI___poll|sigsuspend|nanosleep|curl_multi_poll", top):
            continue
        keep.append(lines[0])
        keep += ["  " + re.sub(r"\s+", " ", l)[:200] for l in lines[1:15]]
    return "busy threads (gdb):\n" + "\n".join(keep) if keep else ""


def crash_signature(reason, status, crash_log):
    """What tells two crashes apart: the runtime's message or the first frame in the project's code."""
    kind = "crash" if reason == "crash" else "unresponsive"
    first = ""
    for line in (crash_log or "").splitlines():
        m = re.search(r"(Fatal error[^\n]*|Swift runtime failure[^\n]*|[A-Za-z]+\.swift:\d+)", line)
        if m:
            first = re.sub(r"0x[0-9a-f]+", "", m.group(1))[:120]
            break
    return (kind, status, first)


def report(fuzzer, rss_start, rss_end, wall):
    s = fuzzer.stats
    rate = s.requests / fuzzer.fuzz_seconds if fuzzer.fuzz_seconds else 0
    print("fuzz-http: seed %d: %d connections, %d requests, %d responses in %.0f s of fuzzing (%.0f requests/s, "
          "%.0f s in all); %d proxy restart(s); %d slow answers fine on a quiet retry, %d left unconfirmed at the end; "
          "%d cases skipped (known crash)"
          % (fuzzer.seed, s.cases, s.requests, s.responses, fuzzer.fuzz_seconds, rate, wall, s.restarts,
             s.flaky_timeouts, s.unconfirmed, s.suppressed))
    print("connection durations: %d under 0.1 s, %d under 0.5 s, %d under 2 s, %d under 7 s, %d longer" % tuple(s.durations))
    if rss_start or rss_end:
        print("proxy RSS: %s kB at start, %s kB at the end" % (rss_start, rss_end))
    print("statuses: " + ", ".join("%d×%d" % (n, code) for code, n in sorted(s.statuses.items())))
    known = fuzzer.targets.presets
    used = {p: s.preset_requests.get(p, 0) for p in known}
    missing = [p for p, n in used.items() if not n]
    print("presets: %d of %d used in /s/<id>+<preset>/ URLs (fewest: %s)%s" % (
        len(known) - len(missing), len(known),
        ", ".join("%s×%d" % kv for kv in sorted(used.items(), key=lambda kv: kv[1])[:3]),
        (" (never used: %s)" % ", ".join(missing)) if missing else ""))
    if fuzzer.forward:
        print("forward mode: %d connections (%s), %d from %s (outside the allowed network); %d tunnels opened, "
              "%d bytes echoed back unchanged" % (
                  sum(s.forward_cases.values()), ", ".join("%s×%d" % kv for kv in sorted(s.forward_cases.items())),
                  s.outside_cases, OUTSIDE_HOST, s.tunnels, s.tunnel_bytes))
        print("  CONNECT statuses: " + ", ".join("%d×%d" % (n, code) for code, n in sorted(s.connect_statuses.items())))
        print("  absolute-form statuses: " + ", ".join("%d×%d" % (n, code) for code, n in sorted(s.absolute_statuses.items())))
    print("responses naming the rule that faulted them (x-hlschaos-fault): %s" % (
        ", ".join("%s×%d" % (k, v) for k, v in sorted(s.fault_headers.items())) or "none"))
    if fuzzer.evil and fuzzer.evil.anomalies:
        print("requests the proxy sent to the misbehaving origin that are not plain GET/HEAD HTTP/1.1:")
        for a in fuzzer.evil.anomalies[:10]:
            print("  " + a)
    items = fuzzer.findings.items
    if not items:
        print("no findings")
        return 0
    print("%d finding(s) (files in %s):" % (len(items), fuzzer.out))
    for item in items:
        print("")
        print("#%d [%s] seen %d time(s); seed %d, case %s; replay: %s --replay %s" % (
            item["number"], item["category"], item["count"], item["seed"], item["case_seed"],
            os.path.relpath(__file__), item.get("file", "")))
        for line in item["message"].splitlines():
            print("  " + line)
        for ci, conn in enumerate(item["connections"][:3]):
            print("  connection %d (%s):" % (ci + 1, conn["mode"]))
            for ri, r in enumerate(conn["requests"][:8]):
                print("    request %d %s: b'%s'" % (ri + 1, ",".join(r["flags"]) or "-", escape(base64.b64decode(r["b64"]), 700)))
        if len(item["connections"]) > 3:
            print("  … and %d more connection(s) in the file" % (len(item["connections"]) - 3))
    return 1


# ---------------------------------------------------------------------------------------------
# Replay

def replay(args):
    path = args.replay
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".json"):
        item = json.loads(data)
        cases = [Case.from_json(c) for c in item["connections"]]
        rules = item.get("rules", LOOP_SCENARIO)
    else:
        cases = [Case(0, "raw", "pipeline", [Req(data, {"may_reject", "may_split", "may_wait"}, ["raw"],
                                                  data.startswith(b"HEAD "), None)])]
        item = {}
        rules = LOOP_SCENARIO
    old = {name: item.get(name + "_port", 0) for name in ("origin", "evil", "proxy", "control", "echo")}
    forward = item.get("forward", not args.no_forward) if args.binary else args.forward
    os.makedirs(args.out, exist_ok=True)
    rules_path = os.path.join(args.out, "replay-rules.json")
    with open(rules_path, "w") as f:
        json.dump(rules, f, indent=1)
    evil = echo = proxy = None
    new = dict(old)
    if forward:
        try:
            echo = EchoServer(old["echo"])
        except OSError:
            echo = EchoServer(0)
        new["echo"] = echo.port
    if args.binary:
        if old["evil"] and not args.no_evil_origin:
            try:
                evil = EvilOrigin(old["evil"])
            except OSError:
                evil = EvilOrigin(0)
            new["evil"] = evil.port
        forward_config = None
        if forward:
            forward_config = os.path.join(args.out, "replay-forward.json")
            with open(forward_config, "w") as f:
                json.dump(FORWARD_CONFIG, f, indent=1)
        proxy = ManagedProxy(args.binary, rules_path, args.out, evil.port if evil else 0, args.presets, forward_config)
        if not proxy.start(old["origin"]):
            if not proxy.start(0):
                log("the proxy did not start:\n" + proxy.log_text()[-2000:])
                return 2
        port = proxy.port
        new.update(origin=proxy.origin_port, proxy=proxy.port, control=proxy.control_port)
    else:
        port = args.port
        new["proxy"] = port
    # The recorded run's ports, wherever a request names them after a colon (127.0.0.1:P, [::1]:P,
    # localhost:P, a CONNECT line, a tunnel's payload), become this run's.
    ports = {old[k]: new[k] for k in old if old[k] and new[k] and old[k] != new[k]}
    if ports:
        log("replay: ports differ from the recorded run; substituting " +
            ", ".join("%d -> %d" % kv for kv in sorted(ports.items())))

        def swap(data):
            return re.sub(rb"(?<=:)([0-9]+)(?![0-9])", lambda m: b"%d" % ports.get(int(m.group(1)), int(m.group(1)))
                          if int(m.group(1)) in ports else m.group(1), data)
        for c in cases:
            for r in c.requests:
                r.raw = swap(r.raw)
            if c.tunnel:
                c.tunnel["payload"] = swap(c.tunnel["payload"])
    TIMEOUT_HINT[0] = args.timeout
    found = 0
    try:
        for i, case in enumerate(cases):
            res = run_case(case, port, args.timeout)
            print("connection %d (%s): sent %d request(s), end: %s%s" % (i + 1, case.mode, res.sent, res.end,
                                                                      " (reset)" if res.reset else ""))
            for j, r in enumerate(res.responses):
                print("  response %d: %s" % (j + 1, escape(r.head_bytes, 1500)))
            if res.error:
                print("  %s: %s" % res.error)
            if res.tunnel_at is not None:
                print("  tunnel opened by request %d; %d byte(s) came back through it: %s" % (
                    res.tunnel_at + 1, len(res.tunnel_data), escape(res.tunnel_data, 300)))
            if res.partial:
                print("  unparsed: %s" % escape(res.partial, 800))
            if case.seed != "raw":
                for category, message, _ in judge(case, res):
                    print("  FINDING [%s] %s" % (category, message))
                    found += 1
            time.sleep(0.3)
            if proxy is not None and not proxy.alive():
                print("the proxy DIED (%s)\n%s" % (proxy.exit_description(), proxy.crash_text()))
                return 1
            ok, why = probe(port, 10)
            if not ok:
                print("the proxy no longer answers GET /: %s" % why)
                return 1
        return 1 if found else 0
    finally:
        if proxy is not None:
            proxy.stop()
        if evil is not None:
            evil.stop()
        if echo is not None:
            echo.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--binary", help="hlschaos binary: the fuzzer starts `hlschaos demo` itself")
    parser.add_argument("--port", type=int, help="port of an hlschaos demo already running on 127.0.0.1")
    parser.add_argument("--seconds", type=float, default=60, help="the whole run, start-up included (default 60)")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: from the clock, printed)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="where findings and proxy logs go (default .build-fuzz-http)")
    parser.add_argument("--replay", metavar="FILE", help="replay a finding-NNN.json (or raw .bin) and check it")
    parser.add_argument("--workers", type=int, default=32, help="concurrent connections (default 32)")
    parser.add_argument("--timeout", type=float, default=6, help="seconds without a byte before a request counts as unanswered (default 6)")
    parser.add_argument("--no-evil-origin", action="store_true", help="do not add the misbehaving origin (/@evil/)")
    parser.add_argument("--avoid", action="append", metavar="REGEX",
                        help="skip generated connections whose bytes match REGEX (a known crash, e.g. "
                             "'hlschaos-hop=9223372036854775807'); repeatable")
    parser.add_argument("--no-forward", action="store_true",
                        help="start the demo without --forward and send no forward-mode cases")
    parser.add_argument("--forward", action="store_true",
                        help="with --port: that proxy runs with --forward (default access settings); send forward cases")
    parser.add_argument("--forward-share", type=float, default=0.3,
                        help="share of the cases that are forward-mode ones (default 0.3)")
    parser.add_argument("--evil-port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--echo-port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--origin-port", type=int, default=0, help="demo origin port (default: any)")
    parser.add_argument("--presets", help="--presets DIR for the proxy (default: its built-in presets)")
    parser.add_argument("--triage-grace", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--trace", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.started = time.monotonic()

    def terminate(signum, frame):
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, terminate)  # so that the proxy this script started is stopped too
    if bool(args.binary) == bool(args.port):
        parser.print_usage(sys.stderr)
        log("fuzz-http: give exactly one of --binary PATH and --port N")
        return 2
    if args.seed is None:
        args.seed = int(time.time() * 1000) % 1000000007
    args.out = os.path.abspath(args.out)
    if args.trace:
        TRACE[0] = open(args.trace, "w", buffering=1)
    if args.replay:
        try:
            return replay(args)
        except (OSError, ValueError, KeyError) as e:
            log("fuzz-http: cannot replay %s: %s" % (args.replay, e))
            return 2
    fuzzer = Fuzzer(args)
    try:
        fuzzer.setup()
    except (SetupError, OSError, subprocess.SubprocessError) as e:
        log("fuzz-http: cannot run: %s" % e)
        if fuzzer.proxy is not None:
            fuzzer.proxy.stop()
        return 2
    try:
        rss_start, rss_end, wall = fuzzer.run()
    except SetupError as e:
        log("fuzz-http: cannot go on: %s" % e)
        report(fuzzer, None, None, 0)
        fuzzer.findings.save_index()
        return 1 if fuzzer.findings.items else 2
    except KeyboardInterrupt:
        log("fuzz-http: interrupted")
        fuzzer.stop.set()
        fuzzer.findings.save_index()
        return report(fuzzer, None, None, 0) if fuzzer.findings.items else 2
    finally:
        fuzzer.stop.set()
        fuzzer.proxy.stop()
        if fuzzer.evil:
            fuzzer.evil.stop()
        if fuzzer.echo:
            fuzzer.echo.stop()
    fuzzer.findings.save_index()
    return report(fuzzer, rss_start, rss_end, wall)


if __name__ == "__main__":
    sys.exit(main())
