#!/usr/bin/env python3
"""Reads a perf profile of hlschaos (perf record -g -p PID) into CPU µs per request by part of the
data plane, for the event loops and the curl thread apart.

    profile-classify.py PERF_DATA REQUESTS_PER_SECOND SECONDS SAMPLE_HZ [PART]

A sample counts for the first frame, from the leaf up, that one of RULES names (so a memmove or a
swift_retain counts for the code that called it); a sample in the kernel counts by the system call
it is in. Then PART (default "proxy request handling, other") by function. Used by profile.sh."""
import re, subprocess, sys, collections
data, rps, seconds, hz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
part = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else "proxy request handling, other"
out = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True).stdout
RULES = [
    ("libcurl", lambda s, d: "libcurl" in d or s.startswith("curl_") or s.startswith("Curl_")),
    ("TLS/zlib libs", lambda s, d: "libssl" in d or "libcrypto" in d or "libz" in d or "libnghttp2" in d),
    ("Upstream glue (curl callbacks, hand-over to the loops)", lambda s, d: s.startswith("$s8Upstream")),
    ("records", lambda s, d: s.startswith("$s7Records") or re.match(r"\$s5Proxy\d+Record", s)),
    ("playlist parse, rewrite, cache compare", lambda s, d: s.startswith("$s3HLS") or re.match(r"\$s5Proxy\d+(Playlist|RewriteCache)", s)),
    ("rules and sessions", lambda s, d: s.startswith("$s5Chaos") or re.match(r"\$s5Proxy\d+(RuleBook|Session|ControlLayers)", s)),
    ("request grammar (Addressing)", lambda s, d: s.startswith("$s10Addressing")),
    ("HTTP/1 request parsing (NIO)", lambda s, d: "HTTPDecoder" in s or "BetterHTTPParser" in s or "llhttp" in s),
    ("response writes (encoder, validator, ClientChannel.write, NIO flush)", lambda s, d: "HTTPResponseEncoder" in s or "HeadersValidator" in s or re.match(r"\$s5Proxy13ClientChannelV5write", s) or "PendingWritesManager" in s or "flushNow" in s or "writeToSocket" in s),
    ("proxy request handling, other", lambda s, d: s.startswith("$s5Proxy")),
    ("Swift concurrency runtime", lambda s, d: "libswift_Concurrency" in d),
]
def kernel_kind(frames):
    names = " ".join(f[0] for f in frames)
    if re.search(r"sys_sendto|sys_writev|sys_sendmsg|sys_write\b|tcp_sendmsg", names): return "kernel: socket sends"
    if re.search(r"sys_recvfrom|sys_read\b|tcp_recvmsg|sys_readv", names): return "kernel: socket receives"
    if re.search(r"epoll|futex|schedule|sys_poll|nanosleep|eventfd", names): return "kernel: waits, wake-ups, epoll"
    return "kernel: other"
counts = collections.Counter(); threads = collections.Counter(); total = 0
for block in out.split("\n\n"):
    lines = [l for l in block.strip().split("\n") if l.strip()]
    if not lines: continue
    comm = lines[0].split()[0]
    frames = []
    for l in lines[1:]:
        m = re.match(r"\s*[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \((.*)\)$", l.strip())
        if m: frames.append((m.group(1), m.group(3)))
    if not frames: continue
    total += 1
    thread = "curl thread" if "curl" in comm else "event loops"
    threads[thread] += 1
    if "kernel" in frames[0][1]:
        cat = kernel_kind(frames)
    else:
        cat = None
        for sym, dso in frames:
            for name, rule in RULES:
                if rule(sym, dso): cat = name; break
            if cat: break
        cat = cat or ("NIO event loop and runtime, other" if any("NIOPosix" in s for s, _ in frames) else "other")
    counts[(thread, cat)] += 1
requests = rps * seconds
us = lambda n: n / hz / requests * 1e6
print(f"samples {total}, {requests:.0f} requests in the window, {us(total):.0f} µs CPU per request")
for thread in ("event loops", "curl thread"):
    print(f"\n{thread}: {us(threads[thread]):.0f} µs per request")
    for (t, cat), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        if t == thread and us(n) >= 1: print(f"  {us(n):6.1f} µs  {cat}")

# One part by function (by default the proxy's own request handling, the largest "other" share).
functions = collections.Counter()
for block in out.split("\n\n"):
    lines = [l for l in block.strip().split("\n") if l.strip()]
    frames = []
    for l in lines[1:]:
        m = re.match(r"\s*[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \((.*)\)$", l.strip())
        if m: frames.append((m.group(1), m.group(3)))
    if not frames or "kernel" in frames[0][1]: continue
    for sym, dso in frames:
        hit = next((name for name, rule in RULES if rule(sym, dso)), None)
        if hit:
            if hit == part: functions[sym] += 1
            break
top = [(sym, n) for sym, n in functions.most_common() if us(n) >= 0.5]
names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(s for s, _ in top),
                       capture_output=True, text=True).stdout.split("\n")
merged = collections.Counter()
for (sym, n), name in zip(top, names):
    # "Proxy.HeaderPolicy.clientResponseHeaders(from:isPlaylist:) -> …", async parts ("(1)") merged.
    merged[re.sub(r"^(\(\d+\) )?(suspend resume partial function for |await resume partial function for )?", "", name).split("(")[0].split(" in ")[0]] += n
print(f"\n{part}, by function (≥ 0.5 µs):")
for name, n in merged.most_common():
    print(f"  {us(n):6.1f} µs  {name}")
