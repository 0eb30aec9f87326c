# Sourced by the scripts here: the benchmark files, the nginx origin that serves them, and the
# helpers both scripts use.
#
# write_origin WORK PORT: writes WORK/www/bench/{seg-1m.ts, seg-64k.ts, playlist.m3u8,
# live-fresh.m3u8} and WORK/origin.conf (nginx on 127.0.0.1:PORT, sendfile, keep-alive); sets $common
# and $http_common, the nginx settings every instance shares. Start it with:
# nginx -g "daemon off;" -c WORK/origin.conf. Also starts slide_live in the background (a job of the
# caller's shell, which kills it with its other jobs).
#
# The two live playlists are 1,200-segment media playlists without EXT-X-ENDLIST:
# - live.m3u8 slides as a live origin's window does: one segment more at the end and one less at the
#   start every second, EXT-X-MEDIA-SEQUENCE following;
# - live-fresh.m3u8 is new at every request: nginx's SSI writes the request's connection number and
#   its number on that connection into EXT-X-MEDIA-SEQUENCE (joined by six zeros, so no two requests
#   get the same number), so every segment has another MSN at every request, every URI the proxy
#   writes (its tag carries the MSN) differs from every earlier answer's, and no cache of rewritten
#   bytes or lines can serve it. Two SSI echoes keep the origin's own cost small.
write_origin() {
  local work=$1 port=$2
  mkdir -p "$work/www/bench" "$work/logs"
  head -c 1048576 /dev/urandom > "$work/www/bench/seg-1m.ts"
  head -c 65536 /dev/urandom > "$work/www/bench/seg-64k.ts"
  {
    echo "#EXTM3U"; echo "#EXT-X-VERSION:3"; echo "#EXT-X-TARGETDURATION:4"
    echo "#EXT-X-MEDIA-SEQUENCE:0"; echo "#EXT-X-PLAYLIST-TYPE:VOD"
    for i in $(seq 0 1199); do echo "#EXTINF:4.000,"; echo "segment-$i.ts?token=abc123"; done
    echo "#EXT-X-ENDLIST"
  } > "$work/www/bench/playlist.m3u8"
  live_window 0 > "$work/www/bench/live.m3u8"
  live_window '<!--# echo var="connection" -->000000<!--# echo var="connection_requests" -->' > "$work/www/bench/live-fresh.m3u8"
  slide_live "$work" &
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
  server {
    listen 127.0.0.1:$port; root $work/www;
    location = /bench/live-fresh.m3u8 { ssi on; ssi_types application/vnd.apple.mpegurl; }
  }
}
NGINX
}

# scratch_with_origin PORT: sets $work to a new scratch folder, removed on exit with the script's
# background jobs killed, and starts the benchmark origin in it on PORT (a background job).
scratch_with_origin() {
  work=$(mktemp -d)
  chmod 755 "$work"
  trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
  write_origin "$work" "$1"
  nginx -g "daemon off;" -c "$work/origin.conf" &
}

# wait_for URL [CURL OPTIONS]: until it answers 2xx (10 s at most).
wait_for() {
  local url=$1; shift
  for _ in $(seq 50); do curl -sf "$@" "$url" -o /dev/null && return 0; sleep 0.2; done
  echo "no answer from $url" >&2
  return 1
}

# median: the median of the numbers on standard input (separated by spaces or newlines).
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# live_window FIRST: a 1,200-segment live media playlist whose first segment has MSN FIRST (a number,
# or text for nginx's SSI to replace with one: segment names then count from 0).
live_window() {
  awk -v first="$1" 'BEGIN {
    print "#EXTM3U"; print "#EXT-X-VERSION:3"; print "#EXT-X-TARGETDURATION:4"
    print "#EXT-X-MEDIA-SEQUENCE:" first
    for (i = 0; i < 1200; i++) { print "#EXTINF:4.000,"; print "segment-" (first ~ /^[0-9]+$/ ? first + i : i) ".ts?token=abc123" }
  }'
}

# slide_live WORK: rewrites WORK/www/bench/live.m3u8 every second, one segment further on each time
# (written beside it and renamed, so a reader never sees half a playlist). Runs until killed.
slide_live() {
  local work=$1 first=0
  while sleep 1; do
    first=$((first + 1))
    live_window "$first" > "$work/www/bench/.live.m3u8"
    mv -f "$work/www/bench/.live.m3u8" "$work/www/bench/live.m3u8"
  done
}
