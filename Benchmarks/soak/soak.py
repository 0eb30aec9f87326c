#!/usr/bin/env python3
"""Soak load for hlschaos: simulated live HLS players against `hlschaos demo`.

Every session is one player on its own keep-alive connection: it loads
/s/<id>[+<preset>]/live/<flavour>/master.m3u8, picks a variant, then loads that media playlist,
fetches every segment it has not fetched yet (the whole body, read and discarded; the fMP4 init
section once) and reloads the playlist after the target duration, or after half of it when the
playlist had not changed (RFC 8216 section 6.3.4). It starts three segments from the live edge, like
hls.js, and skips ahead, like a player, when the segments it wanted have left the window.

Each interval (default a minute) the parent samples the proxy (VmRSS, open descriptors, threads,
CPU) and prints one row: requests, latency percentiles (time to the full response) and errors of
that interval. At the end it prints the verdict on the soak targets and writes a CSV and a JSON.

Python 3 standard library only. Run by Benchmarks/soak/run.sh; see Benchmarks/soak/README.md.
"""
import argparse
import array
import asyncio
import collections
import csv
import json
import math
import multiprocessing
import os
import queue
import random
import resource
import signal
import sys
import time
from urllib.parse import urljoin, urlsplit

KINDS = ("master", "playlist", "init", "segment")
HAS_TIMEOUT = hasattr(asyncio, "timeout")  # Python 3.11: cheaper than a wait_for task per request


# --------------------------------------------------------------------------------------------
# A minimal HTTP/1.1 keep-alive client


class ConnError(Exception):
    """The connection failed: refused, reset, closed mid-response, or an unreadable response."""

    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


class Connection:
    """One keep-alive connection, opened on first use and again after the server closed it."""

    def __init__(self, host, port, worker):
        self.host = host
        self.port = port
        self.worker = worker  # counts connects and reconnects in its current interval
        self.reader = None
        self.writer = None
        self.served = 0  # responses read on the current connection

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def _open(self):
        try:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port, limit=1 << 16)
        except ConnectionRefusedError:
            raise ConnError("refused")
        except OSError as error:
            raise ConnError("connect-" + (os.strerror(error.errno) if error.errno else type(error).__name__))
        self.served = 0
        self.worker.now.connects += 1

    async def get(self, path, keep_body):
        """GET path: (status, body or None, body length). A connection the server closed while
        idle (keep-alive timeout) is reopened and the request sent again, once, as browsers do;
        that counts as a reconnect, not as an error."""
        request = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: hlschaos-soak\r\n\r\n"
                   % (path, self.host, self.port)).encode()
        for attempt in (0, 1):
            if self.writer is None:
                await self._open()
            reused = self.served > 0
            self.writer.write(request)
            try:
                head = await self.reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as error:
                self.close()
                if reused and not error.partial and attempt == 0:
                    self.worker.now.reconnects += 1
                    continue
                raise ConnError("eof-before-response")
            except asyncio.LimitOverrunError:
                self.close()
                raise ConnError("head-too-large")
            except (ConnectionResetError, BrokenPipeError):
                self.close()
                if reused and attempt == 0:
                    self.worker.now.reconnects += 1
                    continue
                raise ConnError("reset")
            try:
                return await self._read_response(head, keep_body)
            except asyncio.IncompleteReadError:
                self.close()
                raise ConnError("eof-in-body")
            except (ConnectionResetError, BrokenPipeError):
                self.close()
                raise ConnError("reset-in-body")
            except (ValueError, asyncio.LimitOverrunError):
                self.close()
                raise ConnError("bad-response")
        raise ConnError("eof-before-response")

    async def _read_response(self, head, keep_body):
        lines = head.decode("latin-1").split("\r\n")
        status_line = lines[0].split(" ", 2)
        if len(status_line) < 2 or not status_line[0].startswith("HTTP/1."):
            raise ValueError(lines[0])
        status = int(status_line[1])
        length = None
        chunked = False
        close = status_line[0] == "HTTP/1.0"
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value.lower()
            elif name == "connection":
                token = value.strip().lower()
                close = token == "close" or (close and token != "keep-alive")
        reader = self.reader
        keep_body = keep_body or status != 200  # an error's body says what went wrong
        parts = [] if keep_body else None
        size = 0
        if chunked:
            while True:
                size_line = await reader.readuntil(b"\r\n")
                chunk = int(size_line.split(b";", 1)[0].strip(), 16)
                if chunk == 0:
                    while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                        pass
                    break
                size += chunk
                data = await reader.readexactly(chunk + 2)
                if keep_body:
                    parts.append(data[:-2])
        elif length is not None:
            size = length
            remaining = length
            while remaining:
                data = await reader.read(min(remaining, 1 << 18))
                if not data:
                    raise asyncio.IncompleteReadError(b"", remaining)
                remaining -= len(data)
                if keep_body:
                    parts.append(data)
        elif status in (204, 304) or 100 <= status < 200:
            pass
        else:  # body until the server closes
            close = True
            while True:
                data = await reader.read(1 << 18)
                if not data:
                    break
                size += len(data)
                if keep_body:
                    parts.append(data)
        if close:
            self.close()
        else:
            self.served += 1
        return status, (b"".join(parts) if keep_body else None), size


# --------------------------------------------------------------------------------------------
# Playlists


def parse_master(text):
    """URIs of the EXT-X-STREAM-INF variants, in order."""
    uris = []
    expecting = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#EXT-X-STREAM-INF:"):
            expecting = True
        elif line and not line.startswith("#") and expecting:
            uris.append(line)
            expecting = False
    return uris


def attribute(line, name):
    key = name + '="'
    start = line.find(key)
    if start < 0:
        return None
    start += len(key)
    end = line.find('"', start)
    return line[start:end] if end >= 0 else None


class MediaPlaylist:
    __slots__ = ("target", "sequence", "uris", "map_uri", "ended")

    def __init__(self, text):
        if not text.startswith("#EXTM3U"):
            raise ValueError("no #EXTM3U")
        self.target = None
        self.sequence = 0
        self.uris = []
        self.map_uri = None
        self.ended = False
        in_segment = False
        for line in text.splitlines():
            if not line:
                continue
            if line[0] == "#":
                if line.startswith("#EXTINF:"):
                    in_segment = True
                elif line.startswith("#EXT-X-TARGETDURATION:"):
                    self.target = float(line[22:])
                elif line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
                    self.sequence = int(line[22:])
                elif line.startswith("#EXT-X-MAP:") and self.map_uri is None:
                    self.map_uri = attribute(line, "URI")
                elif line.startswith("#EXT-X-ENDLIST"):
                    self.ended = True
            elif in_segment:
                self.uris.append(line.strip())
                in_segment = False
        if not self.target or self.target <= 0:
            raise ValueError("no EXT-X-TARGETDURATION")

    @property
    def last(self):
        return self.sequence + len(self.uris) - 1


# --------------------------------------------------------------------------------------------
# Load generator (one asyncio loop per worker process)


class Interval:
    """What one worker saw in one sampling interval."""

    def __init__(self):
        self.latency = array.array("d")  # ms, every response read to its end
        self.latency_by_kind = {kind: array.array("d") for kind in KINDS}
        self.done = collections.Counter()  # responses by resource kind
        self.bytes = 0
        self.status = collections.Counter()  # "segment 503": responses other than 200
        self.expired = 0  # 404 for a segment the origin's window had already left
        self.conn = collections.Counter()  # "segment reset": connection errors
        self.timeouts = collections.Counter()  # by resource kind
        self.connects = 0
        self.reconnects = 0
        self.unchanged = 0  # media playlist reloads without a new segment
        self.backwards = 0  # reloads whose last segment is older than the newest one seen before
        self.skipped = 0  # segments a session never fetched because they had left the playlist
        self.examples = {}  # error kind -> the first response body (or message) seen for it
        self.lag_max = 0.0  # the worker's event-loop lateness, ms

    def export(self, cpu):
        return {
            "latency": self.latency.tobytes(),
            "latency_by_kind": {k: v.tobytes() for k, v in self.latency_by_kind.items()},
            "done": dict(self.done), "bytes": self.bytes, "status": dict(self.status),
            "expired": self.expired, "conn": dict(self.conn), "timeouts": dict(self.timeouts),
            "connects": self.connects, "reconnects": self.reconnects, "unchanged": self.unchanged,
            "backwards": self.backwards, "skipped": self.skipped, "lag_max": self.lag_max, "cpu": cpu,
            "examples": self.examples,
        }


class SessionSpec:
    __slots__ = ("index", "id", "preset", "flavour", "variant", "start")

    def __init__(self, index, id, preset, flavour, variant, start):
        self.index, self.id, self.preset, self.flavour, self.variant, self.start = \
            index, id, preset, flavour, variant, start


def plan_sessions(args):
    """Who plays what: presets on an exact share of the sessions, flavours and variants spread
    evenly, start times spread over the ramp; the same for every run with the same seed."""
    rng = random.Random(args.seed)
    n = args.sessions
    with_preset = round(n * args.preset_share)
    presets = [args.presets[i % len(args.presets)] for i in range(with_preset)] + [None] * (n - with_preset)
    rng.shuffle(presets)
    flavours = [args.flavours[i % len(args.flavours)] for i in range(n)]
    rng.shuffle(flavours)
    variants = [i % 3 for i in range(n)]
    rng.shuffle(variants)
    run = args.run_tag
    return [SessionSpec(i, "soak-%s-%d" % (run, i), presets[i], flavours[i], variants[i],
                        args.ramp * i / n) for i in range(n)]


class Worker:
    def __init__(self, args, specs, t0, out):
        self.args = args
        self.specs = specs
        self.t0 = t0
        self.out = out
        self.now = Interval()
        self.window_first = {}  # flavour -> highest first MSN seen by a session without preset
        self.sessions_playing = 0
        self.longest_gap = {}  # session index -> (preset, longest wait for a new segment, s)
        self.base = "http://%s:%d" % (args.host, args.port)

    # --- one request, with its accounting

    async def fetch(self, conn, path, kind, keep_body, msn=None, flavour=None):
        start = time.monotonic()
        try:
            if HAS_TIMEOUT:
                async with asyncio.timeout(self.args.timeout):
                    status, body, size = await conn.get(path, keep_body)
            else:  # Python < 3.11
                status, body, size = await asyncio.wait_for(conn.get(path, keep_body), self.args.timeout)
        except (TimeoutError, asyncio.TimeoutError):
            conn.close()
            self.now.timeouts[kind] += 1
            self.now.examples.setdefault("%s timeout" % kind, path)
            return None
        except ConnError as error:
            conn.close()
            self.now.conn["%s %s" % (kind, error.kind)] += 1
            self.now.examples.setdefault("%s %s" % (kind, error.kind), path)
            return None
        except OSError as error:
            conn.close()
            self.now.conn["%s %s" % (kind, type(error).__name__)] += 1
            self.now.examples.setdefault("%s %s" % (kind, type(error).__name__), "%s: %s" % (path, error))
            return None
        elapsed = (time.monotonic() - start) * 1000
        stats = self.now  # the interval may have turned over while waiting
        stats.latency.append(elapsed)
        stats.latency_by_kind[kind].append(elapsed)
        stats.done[kind] += 1
        stats.bytes += size
        if status == 200:
            return body if keep_body else True
        if kind == "segment" and status == 404 and msn is not None and msn < self.window_first.get(flavour, -1):
            stats.expired += 1  # what a player that fell behind the window would get too
        else:
            stats.status["%s %d" % (kind, status)] += 1
            stats.examples.setdefault("%s %d" % (kind, status), "%s: %s" % (
                path, (body or b"")[:300].decode("utf-8", "replace").strip()))
        return None

    def resolve(self, base_path, uri):
        url = urlsplit(urljoin(self.base + base_path, uri))
        if url.netloc and url.netloc != "%s:%d" % (self.args.host, self.args.port):
            return None  # a URI that does not come back through the proxy
        return url.path + ("?" + url.query if url.query else "")

    # --- one simulated player

    async def player(self, spec):
        args = self.args
        await asyncio.sleep(max(0.0, self.t0 + spec.start - time.monotonic()))
        conn = Connection(args.host, args.port, self)
        try:
            await self.play(spec, conn)
        finally:
            conn.close()

    async def play(self, spec, conn):
        prefix = "/s/" + spec.id + ("+" + spec.preset if spec.preset else "")
        master = "%s/live/%s/master.m3u8" % (prefix, spec.flavour)
        media = None
        while media is None:
            body = await self.fetch(conn, master, "master", True)
            variants = parse_master(body.decode("utf-8", "replace")) if body is not None else []
            if body is not None and not variants:
                self.now.conn["master unusable"] += 1
            if variants:
                media = self.resolve(master, variants[spec.variant % len(variants)])
                if media is None:
                    self.now.conn["master off-proxy-uri"] += 1
            if media is None:
                await asyncio.sleep(2.0)  # a player retries the master after a pause
        next_msn = None
        previous_last = None
        init_uri = None
        last_new = None  # when the last new segment arrived
        longest = 0.0
        target = 2.0
        playing = False
        while True:
            load_start = time.monotonic()
            body = await self.fetch(conn, media, "playlist", True)
            changed = False
            playlist = None
            if body is not None:
                try:
                    playlist = MediaPlaylist(body.decode("utf-8", "replace"))
                except ValueError:
                    self.now.conn["playlist unusable"] += 1
            if playlist is not None:
                target = playlist.target
                if spec.preset is None and playlist.uris:
                    if playlist.sequence > self.window_first.get(spec.flavour, -1):
                        self.window_first[spec.flavour] = playlist.sequence
                last = playlist.last
                if previous_last is not None and last < previous_last:
                    self.now.backwards += 1
                changed = previous_last is None or last > previous_last
                if not changed:
                    self.now.unchanged += 1
                previous_last = last if previous_last is None else max(previous_last, last)
                if next_msn is None:
                    next_msn = max(playlist.sequence, last - 2)  # hls.js: 3 target durations from the edge
                if next_msn < playlist.sequence:
                    self.now.skipped += playlist.sequence - next_msn
                    next_msn = playlist.sequence
                if playlist.map_uri and playlist.map_uri != init_uri:
                    path = self.resolve(media, playlist.map_uri)
                    if path is None:
                        self.now.conn["playlist off-proxy-uri"] += 1
                    elif await self.fetch(conn, path, "init", False) is not None:
                        init_uri = playlist.map_uri
                for msn in range(next_msn, last + 1):
                    path = self.resolve(media, playlist.uris[msn - playlist.sequence])
                    if path is None:
                        self.now.conn["playlist off-proxy-uri"] += 1
                        continue
                    # A failed segment is not retried: the player moves on (and the error counts).
                    if await self.fetch(conn, path, "segment", False, msn, spec.flavour) is not None:
                        now = time.monotonic()
                        if last_new is not None:
                            longest = max(longest, now - last_new)
                        last_new = now
                        if not playing:
                            playing = True
                            self.sessions_playing += 1
                next_msn = max(next_msn, last + 1)
                self.longest_gap[spec.index] = (spec.preset, longest)
            # RFC 8216 6.3.4: reload one target duration after the last load began, half of it
            # when the playlist had not changed (or could not be loaded).
            wait = target if changed else target / 2
            await asyncio.sleep(max(0.0, load_start + wait - time.monotonic()))

    # --- bookkeeping

    async def ticker(self):
        """Hands each interval's figures to the parent at the interval's end."""
        args = self.args
        count = math.ceil(args.duration / args.interval)
        for m in range(count):
            boundary = self.t0 + min((m + 1) * args.interval, args.duration)
            await asyncio.sleep(max(0.0, boundary - time.monotonic()))
            finished, self.now = self.now, Interval()
            usage = resource.getrusage(resource.RUSAGE_SELF)
            self.out.put(("interval", m, finished.export(usage.ru_utime + usage.ru_stime)))

    async def lag_probe(self):
        """How late the loop wakes up: if this grows, latencies include the client's own delay."""
        while True:
            expected = time.monotonic() + 0.1
            await asyncio.sleep(0.1)
            late = (time.monotonic() - expected) * 1000
            if late > self.now.lag_max:
                self.now.lag_max = late

    async def run(self):
        players = [asyncio.create_task(self.player(spec)) for spec in self.specs]
        probe = asyncio.create_task(self.lag_probe())
        await self.ticker()
        # Keep the connections open a moment: the parent samples the proxy at the same boundary.
        await asyncio.sleep(2.0)
        for task in players + [probe]:
            task.cancel()
        results = await asyncio.gather(*players, probe, return_exceptions=True)
        crashes = [repr(r) for r in results if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)]
        self.out.put(("final", {
            "sessions": len(self.specs),
            "playing": self.sessions_playing,
            "gaps": list(self.longest_gap.values()),
            "crashes": crashes[:5], "crash_count": len(crashes),
        }))


def worker_main(args, specs, t0, out):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise_fd_limit()
    asyncio.run(Worker(args, specs, t0, out).run())


# --------------------------------------------------------------------------------------------
# The parent: samples the proxy, merges the workers' intervals, prints and writes the results


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Proxy:
    def __init__(self, pid, port, origin_port):
        self.pid = pid
        self.port = port
        self.origin_port = origin_port
        self.hz = os.sysconf("SC_CLK_TCK")

    def descriptors(self):
        """The proxy's descriptors by kind: client connections, connections to the origin (curl),
        the demo origin's side of those (same process), and everything else."""
        directory = "/proc/%d/fd" % self.pid
        sockets = set()
        total = 0
        for name in os.listdir(directory):
            total += 1
            try:
                target = os.readlink(os.path.join(directory, name))
            except OSError:
                continue
            if target.startswith("socket:["):
                sockets.add(target[8:-1])
        kinds = collections.Counter()
        for table in ("/proc/%d/net/tcp" % self.pid, "/proc/%d/net/tcp6" % self.pid):
            try:
                with open(table) as f:
                    next(f)
                    for line in f:
                        fields = line.split()
                        if fields[9] not in sockets or fields[3] == "0A":  # 0A: listening
                            continue
                        local = int(fields[1].rsplit(":", 1)[1], 16)
                        remote = int(fields[2].rsplit(":", 1)[1], 16)
                        if local == self.port:
                            kinds["clients"] += 1
                        elif remote == self.origin_port:
                            kinds["upstream"] += 1
                        elif local == self.origin_port:
                            kinds["origin_side"] += 1
            except FileNotFoundError:
                pass
        return total, kinds

    def cpu_wait_s(self):
        """Seconds the proxy's threads spent runnable but waiting for a CPU (schedstat)."""
        waited = 0
        for task in os.listdir("/proc/%d/task" % self.pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (self.pid, task)) as f:
                    waited += int(f.read().split()[1])
            except (OSError, IndexError, ValueError):
                pass
        return waited / 1e9

    def sample(self):
        status = {}
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                name, _, value = line.partition(":")
                status[name] = value.strip()
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        fds, kinds = self.descriptors()
        return {
            "rss_mb": int(status["VmRSS"].split()[0]) / 1024,
            "hwm_mb": int(status["VmHWM"].split()[0]) / 1024,
            "fds": fds,
            "fd_clients": kinds["clients"], "fd_upstream": kinds["upstream"], "fd_origin_side": kinds["origin_side"],
            "cpu_wait_s": self.cpu_wait_s(),
            "threads": int(status["Threads"]),
            "cpu_s": (int(fields[11]) + int(fields[12])) / self.hz,  # utime + stime
            "load1": float(open("/proc/loadavg").read().split()[0]),  # the machine is shared: how busy was it
            "t": time.monotonic(),
        }


def percentile(values, p):
    if not values:
        return None
    return values[max(0, math.ceil(p / 100 * len(values)) - 1)]


def merge(reports):
    latency = array.array("d")
    by_kind = {kind: array.array("d") for kind in KINDS}
    total = {"done": collections.Counter(), "status": collections.Counter(), "conn": collections.Counter(),
             "timeouts": collections.Counter()}
    sums = dict.fromkeys(("bytes", "expired", "connects", "reconnects", "unchanged", "backwards", "skipped", "cpu"), 0)
    lag = 0.0
    examples = {}
    for r in reports:
        for key, text in r["examples"].items():
            examples.setdefault(key, text)
        latency.frombytes(r["latency"])
        for kind in KINDS:
            by_kind[kind].frombytes(r["latency_by_kind"][kind])
        for key in total:
            total[key].update(r[key])
        for key in sums:
            sums[key] += r[key]
        lag = max(lag, r["lag_max"])
    ordered = sorted(latency)
    row = {
        "requests": sum(total["done"].values()),
        "segments": total["done"]["segment"], "playlists": total["done"]["playlist"],
        "masters": total["done"]["master"], "inits": total["done"]["init"],
        "mbytes": sums["bytes"] / 1e6,
        "p50_ms": percentile(ordered, 50), "p99_ms": percentile(ordered, 99),
        "max_ms": ordered[-1] if ordered else None,
    }
    for kind in KINDS:
        values = sorted(by_kind[kind])
        row["%s_p50_ms" % kind] = percentile(values, 50)
        row["%s_p99_ms" % kind] = percentile(values, 99)
    row.update({
        "unexpected_status": sum(total["status"].values()), "conn_errors": sum(total["conn"].values()),
        "timeouts": sum(total["timeouts"].values()), "expired_404": sums["expired"],
        "status_detail": dict(total["status"]), "conn_detail": dict(total["conn"]),
        "timeout_detail": dict(total["timeouts"]),
        "connects": sums["connects"], "reconnects": sums["reconnects"],
        "unchanged_reloads": sums["unchanged"], "backwards_reloads": sums["backwards"],
        "skipped_segments": sums["skipped"], "client_lag_max_ms": lag, "client_cpu_s": sums["cpu"],
        "error_examples": examples,
    })
    return row


COLUMNS = [  # (header, key, format)
    ("min", "label", "{}"), ("RSS MB", "rss_mb", "{:.1f}"), ("fds", "fds", "{}"), ("origin conns", "fd_upstream", "{}"),
    ("threads", "threads", "{}"),
    ("proxy CPU", "proxy_cpu_pct", "{:.0f} %"), ("CPU wait", "proxy_cpu_wait_pct", "{:.0f} %"), ("requests", "requests", "{}"), ("segments", "segments", "{}"),
    ("playlists", "playlists", "{}"), ("p50 ms", "p50_ms", "{:.1f}"), ("p99 ms", "p99_ms", "{:.1f}"),
    ("max ms", "max_ms", "{:.0f}"), ("bad status", "unexpected_status", "{}"), ("conn err", "conn_errors", "{}"),
    ("timeouts", "timeouts", "{}"), ("reconnects", "reconnects", "{}"), ("unchanged reloads", "unchanged_reloads", "{}"),
    ("skipped segs", "skipped_segments", "{}"), ("client CPU", "client_cpu_pct", "{:.0f} %"),
    ("client lag ms", "client_lag_max_ms", "{:.0f}"), ("load", "load1", "{:.1f}"),
]

CSV_KEYS = ["minute", "t_s", "rss_mb", "hwm_mb", "fds", "fd_clients", "fd_upstream", "fd_origin_side", "threads",
            "proxy_cpu_pct", "proxy_cpu_wait_pct", "requests", "segments",
            "playlists", "masters", "inits", "mbytes", "p50_ms", "p99_ms", "max_ms", "playlist_p50_ms",
            "playlist_p99_ms", "segment_p50_ms", "segment_p99_ms", "unexpected_status", "conn_errors", "timeouts",
            "expired_404", "connects", "reconnects", "unchanged_reloads", "backwards_reloads", "skipped_segments",
            "client_cpu_pct", "client_lag_max_ms", "load1"]


def cell(row, key, fmt):
    value = row.get(key)
    return "" if value is None else fmt.format(value)


def print_row(row):
    print("| " + " | ".join(cell(row, key, fmt) for _, key, fmt in COLUMNS) + " |", flush=True)


def parse_duration(text):
    text = str(text).strip().lower()
    units = {"s": 1, "m": 60, "h": 3600}
    if text and text[-1] in units:
        return float(text[:-1]) * units[text[-1]]
    return float(text)


def gap_summary(gaps, target):
    """Per group (no preset / each preset): how long sessions waited at most for a new segment."""
    groups = collections.defaultdict(list)
    for preset, longest in gaps:
        groups[preset or "none"].append(longest)
    summary = {}
    for name, values in sorted(groups.items()):
        values.sort()
        summary[name] = {
            "sessions": len(values), "median_s": percentile(values, 50), "p99_s": percentile(values, 99),
            "max_s": values[-1], "over_3_target_durations": sum(1 for v in values if v > 3 * target),
        }
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="the proxy's port")
    parser.add_argument("--pid", type=int, required=True, help="the proxy's process id (for /proc)")
    parser.add_argument("--origin-port", type=int, default=0, help="the demo origin's port (to sort descriptors)")
    parser.add_argument("--duration", default="60m", help="e.g. 60m, 1h, 360s (default 60m)")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--interval", default="60s", help="sampling interval (default 60s)")
    parser.add_argument("--warmup", type=int, default=5, help="intervals before the RSS and fd baseline (default 5)")
    parser.add_argument("--ramp", default="60s", help="sessions start evenly spread over this (default 60s)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds for a whole response (default 10)")
    parser.add_argument("--presets", default="stale-live-freeze,live-lag")
    parser.add_argument("--preset-share", type=float, default=0.25, help="share of sessions with a preset, split evenly")
    parser.add_argument("--flavours", default="ts,fmp4")
    parser.add_argument("--workers", type=int, default=2, help="load-generator processes (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rss-limit-mb", type=float, default=10.0, help="allowed RSS growth after the warm-up")
    parser.add_argument("--fd-tolerance", type=int, default=64,
                        help="allowed fd max - min after the warm-up (default 64: curl's 32 origin connections, "
                             "both ends in the proxy process)")
    parser.add_argument("--out", default="Benchmarks/soak/results", help="folder for the CSV and JSON")
    parser.add_argument("--name", help="file name without extension (default soak-<UTC start time>)")
    parser.add_argument("--machine", default="", help="a line naming the machine and commit")
    args = parser.parse_args()
    args.duration = parse_duration(args.duration)
    args.interval = parse_duration(args.interval)
    args.ramp = parse_duration(args.ramp)
    args.presets = [p for p in args.presets.split(",") if p]
    args.flavours = [f for f in args.flavours.split(",") if f]
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    args.run_tag = stamp[2:].replace("-", "")  # session ids unique per run
    raise_fd_limit()

    def stop(signum, frame):  # a SIGTERM ends the run like Ctrl-C: the minutes so far are written
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    proxy = Proxy(args.pid, args.port, args.origin_port)
    specs = plan_sessions(args)
    workers = max(1, min(args.workers, args.sessions))
    out = multiprocessing.get_context("fork").Queue()
    t0 = time.monotonic() + 1.0
    processes = []
    for w in range(workers):
        p = multiprocessing.get_context("fork").Process(
            target=worker_main, args=(args, specs[w::workers], t0, out), daemon=True)
        p.start()
        processes.append(p)

    idle = proxy.sample()  # before the first request
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    count = math.ceil(args.duration / args.interval)
    header = [h for h, _, _ in COLUMNS]
    print("%d sessions (%d with a preset: %s), flavours %s, %d load processes, %gs intervals, %gs"
          % (args.sessions, sum(1 for s in specs if s.preset), " / ".join(args.presets), "/".join(args.flavours),
             workers, args.interval, args.duration), flush=True)
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header), flush=True)
    idle_row = dict(idle, label="idle")
    print_row(idle_row)
    rows = []
    pending = collections.defaultdict(list)
    finals = []
    previous = idle
    previous_client_cpu = 0.0
    interrupted = False
    try:
        for m in range(count):
            boundary = t0 + min((m + 1) * args.interval, args.duration)
            time.sleep(max(0.0, boundary - time.monotonic()))
            try:
                sample = proxy.sample()
            except (FileNotFoundError, ProcessLookupError):
                print("the proxy (pid %d) has exited" % args.pid, flush=True)
                interrupted = True
                break
            while len(pending[m]) < workers:
                try:
                    message = out.get(timeout=args.interval + 30)
                except queue.Empty:
                    print("a load process stopped reporting", flush=True)
                    interrupted = True
                    break
                if message[0] == "interval":
                    pending[message[1]].append(message[2])
                else:
                    finals.append(message[1])
            if interrupted:
                break
            row = merge(pending.pop(m))
            seconds = sample["t"] - previous["t"]
            row.update(sample)
            row.update({
                "minute": m + 1, "label": str(m + 1),
                "t_s": round(min((m + 1) * args.interval, args.duration), 1),
                "proxy_cpu_pct": (sample["cpu_s"] - previous["cpu_s"]) / seconds * 100,
                "proxy_cpu_wait_pct": (sample["cpu_wait_s"] - previous["cpu_wait_s"]) / seconds * 100,
            })
            row["client_cpu_pct"] = (row["client_cpu_s"] - previous_client_cpu) / seconds * 100
            previous_client_cpu = row["client_cpu_s"]
            previous = sample
            rows.append(row)
            print_row(row)
        while len(finals) < workers and not interrupted:
            try:
                message = out.get(timeout=30)
            except queue.Empty:
                break
            if message[0] == "final":
                finals.append(message[1])
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted", flush=True)
    for p in processes:
        p.join(timeout=5)
        if p.is_alive():
            p.terminate()

    # ---- verdict
    verdict = {}
    warm = args.warmup
    print()
    if len(rows) > warm:
        base = rows[warm - 1]["rss_mb"] if warm > 0 else idle["rss_mb"]
        after = rows[warm:]
        peak = max(r["rss_mb"] for r in after)
        growth = peak - base
        ok = growth < args.rss_limit_mb
        verdict["rss"] = {"at_warmup_mb": base, "max_after_mb": peak, "growth_mb": growth,
                          "limit_mb": args.rss_limit_mb, "pass": ok}
        print("RSS:  %.1f MB at interval %d, max %.1f MB after it: growth %+.1f MB (target < %g MB)  %s"
              % (base, warm, peak, growth, args.rss_limit_mb, "PASS" if ok else "FAIL"))
        span = rows[max(warm - 1, 0):]
        low = min(span, key=lambda r: r["fds"])
        high = max(span, key=lambda r: r["fds"])
        ok = high["fds"] - low["fds"] <= args.fd_tolerance
        verdict["fds"] = {"min": low["fds"], "max": high["fds"], "tolerance": args.fd_tolerance, "pass": ok,
                          "at_min": {k: low[k] for k in ("minute", "fd_clients", "fd_upstream", "fd_origin_side")},
                          "at_max": {k: high[k] for k in ("minute", "fd_clients", "fd_upstream", "fd_origin_side")}}
        print("fds:  min %d (interval %d), max %d (interval %d) from interval %d on (target: flat, max - min <= %d)  %s"
              % (low["fds"], low["minute"], high["fds"], high["minute"], max(warm, 1), args.fd_tolerance,
                 "PASS" if ok else "FAIL"))
        print("      client connections %d-%d, connections to the origin %d-%d"
              % (min(r["fd_clients"] for r in span), max(r["fd_clients"] for r in span),
                 min(r["fd_upstream"] for r in span), max(r["fd_upstream"] for r in span)))
    else:
        print("RSS, fds: no verdict, the run is not longer than the %d-interval warm-up" % warm)
    errors = collections.Counter()
    for r in rows:
        errors.update(r["status_detail"])
        errors.update(r["conn_detail"])
        errors.update({"%s timeout" % k: v for k, v in r["timeout_detail"].items()})
    crashes = sum(f["crash_count"] for f in finals)
    total = sum(errors.values())
    ok = total == 0 and crashes == 0 and not interrupted
    verdict["errors"] = {"unexpected": total, "by_kind": dict(errors), "player_crashes": crashes,
                         "expired_404": sum(r["expired_404"] for r in rows), "pass": ok}
    print("errors: %d unexpected%s; %d expired-segment 404s (not errors)  %s"
          % (total, (" (" + ", ".join("%s: %d" % kv for kv in errors.most_common()) + ")") if total else "",
             verdict["errors"]["expired_404"], "PASS" if ok else "FAIL"))
    examples = {}
    for r in rows:
        for key, text in r["error_examples"].items():
            examples.setdefault(key, "interval %d, %s" % (r["minute"], text))
    verdict["errors"]["first_of_each_kind"] = examples
    for key, text in sorted(examples.items()):
        print("  first %s: %s" % (key, text[:400]))
    if crashes:
        print("player tasks that crashed: %d, e.g. %s" % (crashes, finals[0]["crashes"] or [f["crashes"] for f in finals]))

    # ---- did the sessions play?
    gaps = [g for f in finals for g in f["gaps"]]
    playing = sum(f["playing"] for f in finals)
    # The first interval holds the ramp and the initial three segments per session; a last short one is partial.
    full = [r for i, r in enumerate(rows) if i > 0 and abs(r["t_s"] - rows[i - 1]["t_s"] - args.interval) < 0.01]
    expected = args.sessions * args.interval / 2.0
    summary = gap_summary(gaps, 2.0)
    print("playing: %s of %d sessions fetched segments; segments per full interval after the first: %s (%.0f expected "
          "at one 2 s segment per session)" % (playing if len(finals) == workers else "(unknown: a load process did not report)", args.sessions,
                                                "%d-%d" % (min(r["segments"] for r in full), max(r["segments"] for r in full)) if full else "n/a",
                                                expected))
    print("longest wait for a new segment per session (s), by preset: " + "; ".join(
        "%s: median %.1f, p99 %.1f, max %.1f, %d of %d over 3 target durations" % (
            name, s["median_s"], s["p99_s"], s["max_s"], s["over_3_target_durations"], s["sessions"])
        for name, s in summary.items()))
    if args.machine:
        print("(%s; started %s)" % (args.machine, started))

    os.makedirs(args.out, exist_ok=True)
    base_name = os.path.join(args.out, args.name or "soak-%s" % stamp)
    with open(base_name + ".csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_KEYS)
        writer.writerow(["0", "0"] + ["%.1f" % idle[k] if k in ("rss_mb", "hwm_mb") else idle.get(k, "") for k in CSV_KEYS[2:]])
        for r in rows:
            writer.writerow([("%.3f" % r[k]) if isinstance(r.get(k), float) else r.get(k, "") for k in CSV_KEYS])
    with open(base_name + ".json", "w") as f:
        json.dump({
            "started": started, "machine": args.machine, "interrupted": interrupted,
            "settings": {k: getattr(args, k) for k in ("sessions", "duration", "interval", "warmup", "ramp", "timeout",
                                                       "presets", "preset_share", "flavours", "workers", "seed")},
            "idle": idle, "intervals": rows, "verdict": verdict,
            "sessions_playing": playing, "longest_segment_wait": summary,
        }, f, indent=1, default=str)
    print("wrote %s.csv and %s.json" % (base_name, base_name))
    return 0 if all(v.get("pass") for v in verdict.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
