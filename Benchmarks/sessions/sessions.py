#!/usr/bin/env python3
"""Time a request that creates a session against one that reuses a session, with N sessions alive.

Usage: sessions.py PORT [alive] [samples]
Fills the proxy with `alive` sessions (/s/fill-<n>/...), then alternates requests for new sessions
and for an existing one over one keep-alive connection, and prints the median and p90 of each.
"""
import socket, statistics, sys, time

port = int(sys.argv[1])
alive = int(sys.argv[2]) if len(sys.argv) > 2 else 23000
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 500
target = "/vod/ts/v0/s000.ts"


def connect():
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock, sock.makefile("rb")


def get(sock, reader, path):
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    status = reader.readline()
    length = 0
    while True:
        line = reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.lower() == "content-length":
            length = int(value)
    reader.read(length)
    if b" 200 " not in status:
        sys.exit(f"{path}: {status!r}")


sock, reader = connect()
start = time.monotonic()
for n in range(alive):
    get(sock, reader, f"/s/fill-{n}{target}")
print(f"{alive} sessions created in {time.monotonic() - start:.1f} s")

create, reuse = [], []
for n in range(samples):
    t = time.perf_counter()
    get(sock, reader, f"/s/new-{n}{target}")
    create.append(time.perf_counter() - t)
    t = time.perf_counter()
    get(sock, reader, f"/s/fill-0{target}")
    reuse.append(time.perf_counter() - t)


def describe(values):
    values = sorted(values)
    return f"median {statistics.median(values) * 1000:.3f} ms, p90 {values[int(len(values) * 0.9)] * 1000:.3f} ms"


print(f"creates a session ({alive} alive): {describe(create)}")
print(f"reuses a session  ({alive} alive): {describe(reuse)}")
