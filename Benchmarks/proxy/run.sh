#!/usr/bin/env bash
# Throughput of hlschaos (no rules) against the same origin read directly and through nginx
# proxy_pass, in one run: 1 MB segments, 64 KB segments, and a 1,200-segment playlist (which hlschaos
# parses and rewrites; nginx passes it through). Loopback only; wrk with 16 connections.
#
#   Benchmarks/proxy/run.sh [seconds-per-case]      (default 10)
#
# Prints a Markdown table; Benchmarks/proxy/RESULTS.md keeps the latest figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}
scripts/install-deps.sh bench >/dev/null
swift build -c release --product hlschaos >/dev/null

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'kill $(jobs -p) 2>/dev/null || true; [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/www/bench" "$work/logs"
head -c 1048576 /dev/urandom > "$work/www/bench/seg-1m.ts"
head -c 65536 /dev/urandom > "$work/www/bench/seg-64k.ts"
{
  echo "#EXTM3U"; echo "#EXT-X-VERSION:3"; echo "#EXT-X-TARGETDURATION:4"
  echo "#EXT-X-MEDIA-SEQUENCE:0"; echo "#EXT-X-PLAYLIST-TYPE:VOD"
  for i in $(seq 0 1199); do echo "#EXTINF:4.000,"; echo "segment-$i.ts?token=abc123"; done
  echo "#EXT-X-ENDLIST"
} > "$work/www/bench/playlist.m3u8"

origin=18181 nginxproxy=18182 chaos=18183
cat > "$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_requests 1000000;
  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
  client_body_temp_path $work/logs; proxy_temp_path $work/logs; fastcgi_temp_path $work/logs;
  uwsgi_temp_path $work/logs; scgi_temp_path $work/logs;
  server { listen 127.0.0.1:$origin; root $work/www; }
  upstream origin { server 127.0.0.1:$origin; keepalive 64; }
  server {
    listen 127.0.0.1:$nginxproxy;
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
NGINX
nginx -c "$work/nginx.conf"
.build/release/hlschaos serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos --log-level warning &
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$chaos/bench/seg-64k.ts" -o /dev/null && break; sleep 0.2; done

rate() { wrk -t2 -c16 -d"${seconds}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
echo "| case | direct origin | nginx proxy_pass | hlschaos | hlschaos / nginx |"
echo "|---|---:|---:|---:|---:|"
for path in bench/seg-1m.ts bench/seg-64k.ts bench/playlist.m3u8; do
  # The proxied bytes must be the origin's for segments (the playlist is rewritten on purpose).
  if [[ $path == *.ts ]]; then
    cmp -s <(curl -sf "http://127.0.0.1:$origin/$path") <(curl -sf "http://127.0.0.1:$chaos/$path") || { echo "bytes differ for $path" >&2; exit 1; }
  fi
  d=$(rate "http://127.0.0.1:$origin/$path")
  n=$(rate "http://127.0.0.1:$nginxproxy/$path")
  c=$(rate "http://127.0.0.1:$chaos/$path")
  echo "| $path | $d req/s | $n req/s | $c req/s | $(awk -v c="$c" -v n="$n" 'BEGIN {printf "%.2f×", c/n}') |"
done
echo
echo "($(nproc) cores, wrk -t2 -c16 -d${seconds}s, $(date -u +%Y-%m-%d))"
