#!/usr/bin/env bash
# Throughput of hlschaos (no rules) against the same origin read directly and through nginx
# proxy_pass, in one run: 1 MB segments, 64 KB segments, and a 1,200-segment playlist (which hlschaos
# parses and rewrites; nginx passes it through). Loopback only; wrk with 16 connections.
#
#   Benchmarks/proxy/run.sh [seconds-per-measurement] [rounds] [shared|separate]
#                                                   (default 4 s, 5 rounds, shared)
#
# shared: the servers and wrk run in this script's session; separate: each server in a session of
# its own (see below).
#
# Each case is measured in rounds — direct, nginx, hlschaos, one after the other, the order of the two
# proxies swapped every round — and the table gives medians: on a shared machine a slow spell then
# hits one round, not one contender. The ratio is the median of the per-round ratios, all listed.
# Prints a Markdown table; Benchmarks/proxy/RESULTS.md keeps the latest figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-4}
rounds=${2:-5}
sessions=${3:-shared}
case $sessions in
  shared) launch=() ;;
  separate) launch=(setsid) ;;
  *) echo "sessions must be shared or separate, not \"$sessions\"" >&2; exit 2 ;;
esac
scripts/install-deps.sh bench >/dev/null
Benchmarks/release-build.sh .build

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
origin=18181 nginxproxy=18182 chaos=18183
# Two nginx instances, so that the proxy_pass workers' CPU can be read apart from the origin's.
source Benchmarks/proxy/shared.sh
write_origin "$work" "$origin"
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
# Every server runs in the foreground as a child of this script. With the kernel's autogroup
# scheduling (/proc/sys/kernel/sched_autogroup_enabled) each session gets an equal share of the
# CPU, so all contenders are placed alike: by default all in this session, with wrk; with
# "separate" each in its own. (A daemonized nginx would have a session of its own and hlschaos
# not. What each placement gives: Benchmarks/proxy/RESULTS.md.)
"${launch[@]}" nginx -g "daemon off;" -c "$work/origin.conf" &
"${launch[@]}" nginx -g "daemon off;" -c "$work/proxy.conf" &
nginx_master=$!
"${launch[@]}" .build/release/hlschaos serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos --log-level warning &
chaos_pid=$!
wait_for "http://127.0.0.1:$chaos/bench/seg-64k.ts"
wait_for "http://127.0.0.1:$nginxproxy/bench/seg-64k.ts"
nginx_workers=$(pgrep -P "$nginx_master" | tr '\n' ' ')

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
# The same build measures differently on another machine (the ratio too): name the machine.
cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "($(nproc) cores of ${cpu:-an unknown CPU}, Linux $(uname -r), wrk -t2 -c16, $rounds rounds of ${seconds}s per contender and case, medians, $sessions sessions; $(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git describe --always --dirty 2>/dev/null || echo unknown))"
