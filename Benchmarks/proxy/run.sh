#!/usr/bin/env bash
# Throughput of hlschaos (no rules) against the same origin read directly and through nginx
# proxy_pass, in one run: 1 MB segments, 64 KB segments, and a 1,200-segment playlist (which hlschaos
# parses and rewrites; nginx passes it through). Loopback only; wrk with 16 connections.
#
#   Benchmarks/proxy/run.sh [seconds-per-measurement] [rounds]      (default 4 s, 5 rounds)
#
# Each case is measured in rounds — direct, nginx, hlschaos, one after the other, the order of the two
# proxies swapped every round — and the table gives medians: on a shared machine a slow spell then
# hits one round, not one contender. The ratio is the median of the per-round ratios, all listed.
# Prints a Markdown table; Benchmarks/proxy/RESULTS.md keeps the latest figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-4}
rounds=${2:-5}
scripts/install-deps.sh bench >/dev/null
swift build -c release --product hlschaos >/dev/null

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'kill $(jobs -p) 2>/dev/null || true; for p in origin proxy; do [ -f "$work/$p.pid" ] && kill "$(cat "$work/$p.pid")" 2>/dev/null; done; rm -rf "$work"' EXIT
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
# Two nginx instances, so that the proxy_pass workers' CPU can be read apart from the origin's.
common="worker_processes auto;
error_log $work/logs/error.log;
events { worker_connections 4096; }"
http_common="access_log off; keepalive_requests 1000000;
  client_body_temp_path $work/logs; proxy_temp_path $work/logs; fastcgi_temp_path $work/logs;
  uwsgi_temp_path $work/logs; scgi_temp_path $work/logs;"
cat > "$work/origin.conf" <<NGINX
$common
pid $work/origin.pid;
http {
  $http_common
  sendfile on; tcp_nopush on; tcp_nodelay on;
  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
  server { listen 127.0.0.1:$origin; root $work/www; }
}
NGINX
cat > "$work/proxy.conf" <<NGINX
$common
pid $work/proxy.pid;
http {
  $http_common
  tcp_nodelay on;
  upstream origin { server 127.0.0.1:$origin; keepalive 64; }
  server {
    listen 127.0.0.1:$nginxproxy;
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
NGINX
nginx -c "$work/origin.conf"
nginx -c "$work/proxy.conf"
.build/release/hlschaos serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos --log-level warning &
chaos_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$chaos/bench/seg-64k.ts" -o /dev/null && break; sleep 0.2; done
sleep 0.5
nginx_workers=$(pgrep -P "$(cat "$work/proxy.pid")" | tr '\n' ' ')

# CPU time (user, system) of processes, in clock ticks, all threads included.
ticks() { for p in $1; do awk '{print $14, $15}' "/proc/$p/stat"; done | awk '{u += $1; s += $2} END {print u, s}'; }
hz=$(getconf CLK_TCK)
# rate URL [PIDS]: prints "requests/s" or, with PIDS, "requests/s user-µs/request system-µs/request".
rate() {
  local before after r
  [ -n "${2:-}" ] && before=$(ticks "$2")
  r=$(wrk -t2 -c16 -d"${seconds}s" "$1" | awk '/Requests\/sec/ {print $2}')
  if [ -z "${2:-}" ]; then echo "$r"; return; fi
  after=$(ticks "$2")
  awk -v r="$r" -v s="$seconds" -v hz="$hz" -v b="$before" -v a="$after" 'BEGIN {
    split(b, x, " "); split(a, y, " "); n = r * s
    printf "%s %.0f %.0f\n", r, (y[1] - x[1]) * 1e6 / hz / n, (y[2] - x[2]) * 1e6 / hz / n }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "| case | direct origin | nginx proxy_pass | hlschaos | hlschaos / nginx (per round) | CPU µs per request, user + system: nginx proxy_pass | hlschaos |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for path in bench/seg-1m.ts bench/seg-64k.ts bench/playlist.m3u8; do
  # The proxied bytes must be the origin's for segments (the playlist is rewritten on purpose).
  if [[ $path == *.ts ]]; then
    cmp -s <(curl -sf "http://127.0.0.1:$origin/$path") <(curl -sf "http://127.0.0.1:$chaos/$path") || { echo "bytes differ for $path" >&2; exit 1; }
  fi
  ds="" ns="" cs="" ratios="" nus="" nss="" cus="" css=""
  for round in $(seq "$rounds"); do
    d=$(rate "http://127.0.0.1:$origin/$path")
    if (( round % 2 )); then
      read -r n nu nsys < <(rate "http://127.0.0.1:$nginxproxy/$path" "$nginx_workers")
      read -r c cu csys < <(rate "http://127.0.0.1:$chaos/$path" "$chaos_pid")
    else
      read -r c cu csys < <(rate "http://127.0.0.1:$chaos/$path" "$chaos_pid")
      read -r n nu nsys < <(rate "http://127.0.0.1:$nginxproxy/$path" "$nginx_workers")
    fi
    ds+=" $d" ns+=" $n" cs+=" $c" nus+=" $nu" nss+=" $nsys" cus+=" $cu" css+=" $csys"
    ratios+=" $(awk -v c="$c" -v n="$n" 'BEGIN {printf "%.2f", c / n}')"
  done
  printf '| %s | %.0f req/s | %.0f req/s | %.0f req/s | **%.2f×** (%s) | %s + %s | %s + %s |\n' "$path" \
    "$(median <<<"$ds")" "$(median <<<"$ns")" "$(median <<<"$cs")" "$(median <<<"$ratios")" "$(echo $ratios | sed 's/ /, /g')" \
    "$(median <<<"$nus")" "$(median <<<"$nss")" "$(median <<<"$cus")" "$(median <<<"$css")"
done
echo
echo "hlschaos peak resident memory over the run: $(awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/$chaos_pid/status")"
echo "($(nproc) cores, wrk -t2 -c16, $rounds rounds of ${seconds}s per contender and case, medians; $(date -u +%Y-%m-%d))"
