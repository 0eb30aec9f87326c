"""N shaped sessions at once against `hlschaos demo`: see run.sh. Standard library only."""
import asyncio, json, os, statistics, sys, time, urllib.request

port, control, pid, sessions, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
rates = [300_000 + (1_200_000 * i) // max(1, sessions - 1) for i in range(sessions)]

def api(method, path, body=None):
    request = urllib.request.Request(control + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"null")

for i, rate in enumerate(rates):
    api("POST", "/api/sessions", {"id": f"b{i}"})
    api("PUT", f"/api/sessions/b{i}/link", {"rate": f"{rate}bps"})

async def get(path):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    return data

async def client(i, received, until):
    master = (await get(f"/s/b{i}/vod/ts/master.m3u8")).decode(errors="replace")
    media = [l for l in master.splitlines() if l.startswith("/s/")][-1]
    playlist = (await get(media)).decode(errors="replace")
    segments = [l for l in playlist.splitlines() if l.startswith("/s/")]
    n = 0
    while time.monotonic() < until:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {segments[n % len(segments)]} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        while time.monotonic() < until:
            chunk = await reader.read(65536)
            if not chunk:
                break
            received.append((time.monotonic(), len(chunk)))
        writer.close()
        n += 1

def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

async def main():
    start = time.monotonic()
    until = start + seconds
    received = [[] for _ in rates]
    cpu0 = cpu_seconds()
    await asyncio.gather(*(client(i, received[i], until) for i in range(sessions)))
    cpu = cpu_seconds() - cpu0
    window = (start + seconds * 0.2, start + seconds * 0.9)
    errors = []
    for rate, samples in zip(rates, received):
        bits = sum(n for t, n in samples if window[0] <= t < window[1]) * 8
        errors.append((bits / (window[1] - window[0]) - rate) / rate)
    absolute = sorted(abs(e) for e in errors)
    print(f"{sessions} shaped sessions, {seconds:.0f} s, 300 kbit/s to 1.5 Mbit/s, one client each fetching segments back to back")
    print(f"received against capacity over {window[1] - window[0]:.0f} s: mean {statistics.mean(errors) * 100:+.1f} %, "
          f"median |error| {statistics.median(absolute) * 100:.1f} %, p95 |error| {absolute[int(len(absolute) * 0.95) - 1] * 100:.1f} %, "
          f"worst {max(errors, key=abs) * 100:+.1f} %")
    total = sum(rates)
    print(f"proxy CPU: {cpu / seconds:.2f} s per second for {total / 1e6:.0f} Mbit/s of shaped capacity "
          f"({cpu / seconds / (total / 1e6) * 1000:.1f} ms per Mbit/s)")
    print("(a client pauses between segments for a request round trip: its rate sits a little under the capacity)")

asyncio.run(main())
