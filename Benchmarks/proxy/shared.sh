# Sourced by run.sh and ab.sh: the benchmark files, the nginx origin that serves them, and the
# helpers both scripts use.
#
# write_origin WORK PORT: writes WORK/www/bench/{seg-1m.ts, seg-64k.ts, playlist.m3u8} and
# WORK/origin.conf (nginx on 127.0.0.1:PORT, sendfile, keep-alive); sets $common and $http_common,
# the nginx settings every instance shares. Start it with: nginx -g "daemon off;" -c WORK/origin.conf
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
  server { listen 127.0.0.1:$port; root $work/www; }
}
NGINX
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
