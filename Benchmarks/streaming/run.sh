#!/usr/bin/env bash
# Streaming proof: a 200 MB segment through hlschaos.
#  1. fast origin, slow client (curl --limit-rate 20M): the proxy must pause the origin transfer
#     instead of buffering, so its resident memory grows by less than 20 MB;
#  2. slow origin (nginx limit_rate 40 MB/s, ~5 s), fast client: the first byte must reach the client
#     long before the origin has sent the last one.
#   Benchmarks/streaming/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh bench >/dev/null
Benchmarks/release-build.sh .build

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'kill $(jobs -p) 2>/dev/null || true; [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/www" "$work/logs"
head -c 200000000 /dev/urandom > "$work/www/big.ts"
origin=18281 chaos=18283
cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 256; }
http {
  access_log off; sendfile on;
  client_body_temp_path $work/logs; proxy_temp_path $work/logs; fastcgi_temp_path $work/logs;
  uwsgi_temp_path $work/logs; scgi_temp_path $work/logs;
  server { listen 127.0.0.1:$origin; root $work/www;
           location /slow/ { alias $work/www/; limit_rate 40m; } }
}
NGINX
nginx -c "$work/nginx.conf"
.build/release/hlschaos serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos --log-level warning &
pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null -r 0-0 "http://127.0.0.1:$chaos/big.ts" && break; sleep 0.2; done

rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
sample_peak() { peak=0; while kill -0 "$1" 2>/dev/null; do r=$(rss); ((r > peak)) && peak=$r; sleep 0.1; done; echo "$peak"; }

before=$(rss)
curl -sf --limit-rate 20M "http://127.0.0.1:$chaos/big.ts" -o "$work/out1" & client=$!
peak=$(sample_peak $client)
wait $client
cmp -s "$work/out1" "$work/www/big.ts" && same=yes || same=NO
echo "slow client (20 MB/s), fast origin: RSS before ${before} kB, peak ${peak} kB, growth $(( (peak - before) / 1024 )) MB; bytes identical: $same"

read -r first total < <(curl -sf -o "$work/out2" -w '%{time_starttransfer} %{time_total}\n' "http://127.0.0.1:$chaos/slow/big.ts")
cmp -s "$work/out2" "$work/www/big.ts" && same=yes || same=NO
echo "slow origin (40 MB/s), fast client: first byte after ${first} s, last byte after ${total} s; bytes identical: $same"
