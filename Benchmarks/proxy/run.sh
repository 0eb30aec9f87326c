#!/usr/bin/env bash
# Throughput of hlschaos (no rules) against the same origin read directly and through nginx
# proxy_pass, in one run: 1 MB segments, 64 KB segments, and three 1,200-segment media playlists,
# which hlschaos parses and rewrites and nginx passes through: a VOD playlist, a live one whose
# window slides by a segment every second, and a live one that is new at every request (see
# shared.sh). Two last rows are references, not targets: a bare SwiftNIO server answering the 64 KB
# file from memory (nio-floor.swift), and nginx passing a file that holds hlschaos's rewritten VOD
# playlist (larger than the origin's). Loopback only; wrk with 16 connections.
# A second table gives the 64 KB segment and the playlist with TLS towards the client, both proxies
# serving the same certificate and proxying to the same plain-HTTP origin: HTTP/1.1 over TLS (wrk)
# and HTTP/2 (h2load, 16 connections of up to 10 concurrent streams each).
#
#   Benchmarks/proxy/run.sh [seconds-per-measurement] [rounds] [shared|separate]
#                                                   (default 4 s, 5 rounds, shared)
#   BENCH_ROWS=plain Benchmarks/proxy/run.sh …      only the plain-HTTP table (tls: only the TLS one;
#                                                   default all)
#   BENCH_BUILD=.build-rel Benchmarks/proxy/run.sh … the release build's scratch path (default .build;
#                                                   a path of its own keeps the release dependencies
#                                                   apart from the debug build's)
#   BENCH_BEFORE=/tmp/hlschaos-before Benchmarks/proxy/run.sh …
#                                                   also that binary (an earlier commit's release build),
#                                                   in a row of its own under each plain-HTTP case,
#                                                   measured in the same rounds: before and after in
#                                                   one run
#
# shared: the servers and the load generator run in this script's session; separate: each server in
# a session of its own (see below).
#
# Each case is measured in rounds — direct (plain HTTP only), nginx, hlschaos, one after the other,
# the order of the two proxies swapped every round — and the tables give medians: on a shared
# machine a slow spell then hits one round, not one contender. The ratio is the median of the
# per-round ratios, all listed. Prints Markdown tables; Benchmarks/proxy/RESULTS.md keeps the latest
# figures.
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
rows=${BENCH_ROWS:-all}
case $rows in
  all|plain|tls) ;;
  *) echo "BENCH_ROWS must be all, plain or tls, not \"$rows\"" >&2; exit 2 ;;
esac
scripts/install-deps.sh bench >/dev/null
build=${BENCH_BUILD:-.build}
Benchmarks/release-build.sh "$build"
# The bare SwiftNIO server of the 64 KB reference row (nio-floor.swift), built against the swift-nio
# the release build resolved (and its sibling checkouts, so nothing is fetched), in a package of its
# own beside that build.
floor=$build-nio-floor
build_floor() {
  local nio
  nio=$(cd "$build/checkouts/swift-nio" && pwd)
  mkdir -p "$floor/package/Sources/nio-floor"
  cp Benchmarks/proxy/nio-floor.swift "$floor/package/Sources/nio-floor/main.swift"
  cat > "$floor/package/Package.swift" <<SWIFT
// swift-tools-version:5.9
import PackageDescription
let package = Package(
    name: "nio-floor",
    dependencies: [.package(path: "$nio")],
    targets: [.executableTarget(name: "nio-floor", dependencies: [
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio")])])
SWIFT
  if ! SWIFTCI_USE_LOCAL_DEPS=1 swift build -c release --package-path "$floor/package" --scratch-path "$floor/build" >"$floor/build.log" 2>&1; then
    grep -E 'error:' "$floor/build.log" | sort -u | head -20 >&2
    echo "the bare SwiftNIO server did not build (the whole log is $floor/build.log)" >&2
    exit 1
  fi
}
[ "$rows" = tls ] || build_floor

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
origin=18181 nginxproxy=18182 chaos=18183 nginxtls=18184 chaostls=18185 bare=18186 beforeport=18187 beforecontrol=18188
before_binary=${BENCH_BEFORE:-}
if [ -n "$before_binary" ] && [ ! -x "$before_binary" ]; then echo "BENCH_BEFORE is not an executable: $before_binary" >&2; exit 2; fi
# Separate nginx instances for the origin and each proxy, so that the proxy_pass workers' CPU can be
# read apart from the origin's.
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
tls_args=()
if [ "$rows" != plain ]; then
  # One certificate and key for both TLS proxies, P-256 like the leaves of hlschaos's local CA.
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout "$work/key.pem" -out "$work/cert.pem" -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>"$work/logs/openssl.log" ||
    { cat "$work/logs/openssl.log" >&2; echo "openssl could not make the benchmark's certificate" >&2; exit 1; }
  # "http2 on;" exists from nginx 1.25.1; before, http2 is a parameter of listen (Debian 12: 1.22).
  nginx_version=$(nginx -v 2>&1 | sed -n 's|.*nginx/\([0-9.]*\).*|\1|p')
  if printf '1.25.1\n%s\n' "$nginx_version" | sort -V -C; then
    listen_tls="listen 127.0.0.1:$nginxtls ssl; http2 on;"
  else
    listen_tls="listen 127.0.0.1:$nginxtls ssl http2;"
  fi
  # TLSv1.3 joined nginx's default ssl_protocols in 1.23.4; hlschaos (BoringSSL) offers it, so
  # nginx must too or the two would not be measured at the same protocol.
  cat > "$work/tls.conf" <<NGINX
$common
pid $work/tls.pid;
http {
  $http_common
  tcp_nodelay on;
  upstream origin { server 127.0.0.1:$origin; keepalive 64; }
  server {
    $listen_tls
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
NGINX
  tls_args=(--https-port "$chaostls" --tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
fi
# Every server runs in the foreground as a child of this script. With the kernel's autogroup
# scheduling (/proc/sys/kernel/sched_autogroup_enabled) each session gets an equal share of the
# CPU, so all contenders are placed alike: by default all in this session, with wrk; with
# "separate" each in its own. (A daemonized nginx would have a session of its own and hlschaos
# not. What each placement gives: Benchmarks/proxy/RESULTS.md.)
"${launch[@]}" nginx -g "daemon off;" -c "$work/origin.conf" &
"${launch[@]}" nginx -g "daemon off;" -c "$work/proxy.conf" &
nginx_master=$!
if [ "$rows" != plain ]; then
  "${launch[@]}" nginx -g "daemon off;" -c "$work/tls.conf" &
  nginx_tls_master=$!
fi
"${launch[@]}" "$build/release/hlschaos" serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos "${tls_args[@]}" --log-level warning &
chaos_pid=$!
if [ "$rows" != tls ]; then
  "${launch[@]}" "$floor/build/release/nio-floor" "$bare" "$work/www/bench/seg-64k.ts" &
  bare_pid=$!
  wait_for "http://127.0.0.1:$bare/bench/seg-64k.ts"
fi
if [ -n "$before_binary" ] && [ "$rows" != tls ]; then
  # Its own control port, as ab.sh does: on the default one, taken by the build measured, it would
  # run without the control API and the metrics it feeds, a little cheaper than users run it.
  before_control=()
  before_help=$("$before_binary" serve --help 2>/dev/null || true)
  if [[ $before_help == *"--control "* ]]; then before_control=(--control "127.0.0.1:$beforecontrol"); fi
  "${launch[@]}" "$before_binary" serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $beforeport --log-level warning "${before_control[@]}" &
  before_pid=$!
  wait_for "http://127.0.0.1:$beforeport/bench/seg-64k.ts"
fi
wait_for "http://127.0.0.1:$chaos/bench/seg-64k.ts"
wait_for "http://127.0.0.1:$nginxproxy/bench/seg-64k.ts"
nginx_workers=$(pgrep -P "$nginx_master" | tr '\n' ' ')

# CPU time (user, system) of processes, in clock ticks, all threads included.
ticks() { for p in $1; do awk '{print $14, $15}' "/proc/$p/stat"; done | awk '{u += $1; s += $2} END {print u, s}'; }
hz=$(getconf CLK_TCK)
# rate CLIENT URL [PIDS]: prints "requests/s" or, with PIDS, "requests/s user-µs/request system-µs/request".
# CLIENT: wrk (HTTP/1.1; over TLS for an https URL, offering no ALPN) or h2load (HTTP/2 over TLS).
# Fails on any answer but 2xx, and when h2load did not get h2.
rate() {
  local client=$1 url=$2 pids=${3:-} before after out r
  [ -n "$pids" ] && before=$(ticks "$pids")
  case $client in
    wrk)
      out=$(wrk -t2 -c16 -d"${seconds}s" "$url")
      r=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
      if grep -q 'Non-2xx' <<<"$out"; then echo "wrk $url: $(grep 'Non-2xx' <<<"$out")" >&2; exit 1; fi ;;
    h2load)
      out=$(h2load -t2 -c16 -m10 -D "$seconds" "$url")
      r=$(awk '/^finished in/ {print $4}' <<<"$out")
      # requests: N total, N started, N done, N succeeded, N failed, N errored, N timeout
      # status codes: N 2xx, N 3xx, N 4xx, N 5xx
      if ! grep -qx 'Application protocol: h2' <<<"$out" ||
         ! awk '/^requests:/ {bad += $10 + $12 + $14} /^status codes:/ {bad += $5 + $7 + $9} END {exit bad > 0}' <<<"$out"; then
        echo "h2load $url did not run clean over h2:" >&2; grep -E '^(Application protocol|requests|status codes)' <<<"$out" >&2; exit 1
      fi ;;
  esac
  [ -n "$r" ] || { echo "$client $url: no requests/s in its output" >&2; exit 1; }
  if [ -z "$pids" ]; then echo "$r"; return; fi
  after=$(ticks "$pids")
  awk -v r="$r" -v s="$seconds" -v hz="$hz" -v b="$before" -v a="$after" 'BEGIN {
    split(b, x, " "); split(a, y, " "); n = r * s
    printf "%s %.0f %.0f\n", r, (y[1] - x[1]) * 1e6 / hz / n, (y[2] - x[2]) * 1e6 / hz / n }'
}
# measure CASE CLIENT NGINX_URL NGINX_PIDS CHAOS_URL [DIRECT_URL] [CHAOS_PID]: one table row. CASE
# fills the first cell(s); then, if DIRECT_URL is given, the origin read directly ("-": an empty
# cell); then the two proxies. CHAOS_PID, when the hlschaos column holds another server (a
# reference row).
measure() {
  local case=$1 client=$2 nginx_url=$3 nginx_pids=$4 chaos_url=$5 direct_url=${6:-} chaos_pids=${7:-$chaos_pid}
  local ds="" ns="" cs="" ratios="" nus="" nss="" cus="" css="" direct="" n nu nsys c cu csys round
  for round in $(seq "$rounds"); do
    [[ $direct_url == "" || $direct_url == - ]] || ds+=" $(rate "$client" "$direct_url")"
    if (( round % 2 )); then
      read -r n nu nsys < <(rate "$client" "$nginx_url" "$nginx_pids")
      read -r c cu csys < <(rate "$client" "$chaos_url" "$chaos_pids")
    else
      read -r c cu csys < <(rate "$client" "$chaos_url" "$chaos_pids")
      read -r n nu nsys < <(rate "$client" "$nginx_url" "$nginx_pids")
    fi
    ns+=" $n" cs+=" $c" nus+=" $nu" nss+=" $nsys" cus+=" $cu" css+=" $csys"
    ratios+=" $(awk -v c="$c" -v n="$n" 'BEGIN {printf "%.2f", c / n}')"
  done
  case $direct_url in
    "") ;;
    -) direct=" – |" ;;
    *) direct=$(printf ' %.0f req/s |' "$(median <<<"$ds")") ;;
  esac
  printf '| %s |%s %.0f req/s | %.0f req/s | **%.2f×** (%s) | %s + %s | %s + %s |\n' "$case" "$direct" \
    "$(median <<<"$ns")" "$(median <<<"$cs")" "$(median <<<"$ratios")" "$(echo $ratios | sed 's/ /, /g')" \
    "$(median <<<"$nus")" "$(median <<<"$nss")" "$(median <<<"$cus")" "$(median <<<"$css")"
}

if [ "$rows" != tls ]; then
  echo "| case | direct origin | nginx proxy_pass | hlschaos | hlschaos / nginx (per round) | CPU µs per request, user + system: nginx proxy_pass | hlschaos |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for path in bench/seg-1m.ts bench/seg-64k.ts bench/playlist.m3u8 bench/live.m3u8 bench/live-fresh.m3u8; do
    # The proxied bytes must be the origin's for segments (the playlist is rewritten on purpose).
    if [[ $path == *.ts ]]; then
      cmp -s <(curl -sf "http://127.0.0.1:$origin/$path") <(curl -sf "http://127.0.0.1:$chaos/$path") || { echo "bytes differ for $path" >&2; exit 1; }
    fi
    # The live cases must be what they claim: a window that moves, and an answer new every time.
    if [[ $path == bench/live.m3u8 ]]; then
      before=$(curl -sf "http://127.0.0.1:$origin/$path"); sleep 1.2; after=$(curl -sf "http://127.0.0.1:$origin/$path")
      [ "$(grep MEDIA-SEQUENCE <<<"$before")" != "$(grep MEDIA-SEQUENCE <<<"$after")" ] || { echo "$path did not slide" >&2; exit 1; }
    fi
    if [[ $path == bench/live-fresh.m3u8 ]]; then
      first=$(curl -sf "http://127.0.0.1:$chaos/$path") second=$(curl -sf "http://127.0.0.1:$chaos/$path")
      [ -n "$first" ] && [ "$(grep '^/' <<<"$first")" != "$(grep '^/' <<<"$second")" ] ||
        { echo "$path: two answers through hlschaos have the same URIs" >&2; exit 1; }
    fi
    measure "$path" wrk "http://127.0.0.1:$nginxproxy/$path" "$nginx_workers" "http://127.0.0.1:$chaos/$path" "http://127.0.0.1:$origin/$path"
    if [ -n "$before_binary" ]; then
      measure "$path, in the hlschaos column BENCH_BEFORE ($before_binary)" wrk "http://127.0.0.1:$nginxproxy/$path" "$nginx_workers" \
        "http://127.0.0.1:$beforeport/$path" - "$before_pid"
    fi
  done
  # Reference rows, not targets. First, the floor under hlschaos's event-loop side: in the hlschaos
  # column, a bare SwiftNIO server answering the 64 KB file from memory (nio-floor.swift), no upstream.
  cmp -s "$work/www/bench/seg-64k.ts" <(curl -sf "http://127.0.0.1:$bare/bench/seg-64k.ts") ||
    { echo "the bare SwiftNIO server does not answer the 64 KB file" >&2; exit 1; }
  measure "bench/seg-64k.ts, in the hlschaos column a bare SwiftNIO server answering from memory, no upstream" \
    wrk "http://127.0.0.1:$nginxproxy/bench/seg-64k.ts" "$nginx_workers" "http://127.0.0.1:$bare/bench/seg-64k.ts" - "$bare_pid"
  # Second: the rewritten VOD playlist is larger than the origin's (every URI gains the proxy's tag,
  # scheme and authority), so nginx passing the origin's bytes moves fewer of them. Here nginx passes
  # a file holding exactly what hlschaos answers, and hlschaos serves the VOD playlist as in its own
  # row: the ratio of two proxies sending the same bytes.
  curl -sf "http://127.0.0.1:$chaos/bench/playlist.m3u8" -o "$work/www/bench/playlist-as-rewritten.m3u8"
  cmp -s "$work/www/bench/playlist-as-rewritten.m3u8" <(curl -sf "http://127.0.0.1:$nginxproxy/bench/playlist-as-rewritten.m3u8") ||
    { echo "nginx does not serve the copy of the rewritten playlist" >&2; exit 1; }
  measure "bench/playlist.m3u8, nginx passing hlschaos's rewritten bytes ($(($(stat -c %s "$work/www/bench/playlist-as-rewritten.m3u8") / 1024)) KB; the origin's: $(($(stat -c %s "$work/www/bench/playlist.m3u8") / 1024)) KB)" \
    wrk "http://127.0.0.1:$nginxproxy/bench/playlist-as-rewritten.m3u8" "$nginx_workers" "http://127.0.0.1:$chaos/bench/playlist.m3u8" \
    "http://127.0.0.1:$origin/bench/playlist-as-rewritten.m3u8"
fi

if [ "$rows" != plain ]; then
  tls=(--cacert "$work/cert.pem")
  wait_for "https://127.0.0.1:$chaostls/bench/seg-64k.ts" "${tls[@]}"
  wait_for "https://127.0.0.1:$nginxtls/bench/seg-64k.ts" "${tls[@]}"
  nginx_tls_workers=$(pgrep -P "$nginx_tls_master" | tr '\n' ' ')
  # Before measuring: through each TLS proxy the segment is the origin's file, byte for byte, over
  # HTTP/1.1 and over HTTP/2; curl offering h2 gets it; and what TLS each load generator negotiates
  # (printed under the table: the two proxies should agree).
  negotiated=""
  for contender in "nginx $nginxtls" "hlschaos $chaostls"; do
    read -r name port <<<"$contender"
    url="https://127.0.0.1:$port/bench/seg-64k.ts"
    for protocol in --http1.1 --http2; do
      cmp -s "$work/www/bench/seg-64k.ts" <(curl -sf "${tls[@]}" "$protocol" "$url") ||
        { echo "$name over TLS ($protocol): the bytes of bench/seg-64k.ts differ from the origin's" >&2; exit 1; }
    done
    version=$(curl -sf "${tls[@]}" --http2 -o /dev/null -w '%{http_version}' "$url")
    [ "$version" = 2 ] || { echo "$name over TLS did not negotiate HTTP/2 with curl --http2 (got HTTP/$version)" >&2; exit 1; }
    # wrk uses OpenSSL's defaults and no ALPN, as openssl s_client does here.
    plain_tls=$(openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null | awk -F', ' '/^New, / {print $2, $3}' | sed 's/Cipher is //')
    h2_tls=$(h2load -n1 -c1 "$url" | awk '/^TLS Protocol:/ {p = $3} /^Cipher:/ {c = $2} END {print p, c}')
    negotiated+="${negotiated:+; }$name: wrk $plain_tls, h2load $h2_tls"
  done
  [ "$rows" = tls ] || echo
  echo "| case | client protocol | nginx proxy_pass | hlschaos | hlschaos / nginx (per round) | CPU µs per request, user + system: nginx proxy_pass | hlschaos |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for path in bench/seg-64k.ts bench/playlist.m3u8; do
    measure "$path | HTTP/1.1 over TLS (wrk)" wrk "https://127.0.0.1:$nginxtls/$path" "$nginx_tls_workers" "https://127.0.0.1:$chaostls/$path"
    measure "$path | HTTP/2 (h2load -m10)" h2load "https://127.0.0.1:$nginxtls/$path" "$nginx_tls_workers" "https://127.0.0.1:$chaostls/$path"
  done
  echo
  echo "TLS negotiated — $negotiated"
fi
echo
echo "hlschaos peak resident memory over the run: $(awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/$chaos_pid/status")"
# The same build measures differently on another machine (the ratio too): name the machine.
cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
clients="wrk -t2 -c16"
[ "$rows" = plain ] || clients+=", h2load -t2 -c16 -m10, nginx $nginx_version"
echo "($(nproc) cores of ${cpu:-an unknown CPU}, Linux $(uname -r), $clients, $rounds rounds of ${seconds}s per contender and case, medians, $sessions sessions; $(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git describe --always --dirty 2>/dev/null || echo unknown))"
