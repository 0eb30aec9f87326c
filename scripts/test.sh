#!/usr/bin/env bash
# Runs the whole test suite: unit tests, end-to-end tests over loopback, and real players
# (ffmpeg, GStreamer, hls.js in headless Chromium). Installs what it needs first (Debian/Ubuntu).
# Extra arguments go to both `swift test` runs (for example --filter ProxyTests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
build_log=$(mktemp)
swift build --build-tests 2>&1 | tee "$build_log"
# A compiler warning in a product module (a file under Sources/) fails the run. Only files this
# build compiled can warn: CI builds from scratch, so all of them; locally, those changed since.
warnings=$(grep -F "$PWD/Sources/" "$build_log" | grep -F ': warning: ' | sort -u || true)
rm -f "$build_log"
if [ -n "$warnings" ]; then
  echo "scripts/test.sh: the build warned in Sources/; fix these (docs/testing.md, \"No warnings\"):" >&2
  echo "$warnings" >&2
  exit 1
fi
# Every test removes what it writes. The run gets a temporary folder of its own (TMPDIR, which
# Foundation's temporaryDirectory, mktemp, Python's tempfile and the players all honour) and fails
# at the end, naming them, when anything is left in it (docs/testing.md, "Temporary files").
# Searchable by all (0755): VLC runs as another user when the tests run as root.
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/hlschaos-test-run.XXXXXX")
chmod 755 "$run_tmp"
export TMPDIR="$run_tmp"
demo=
finish() {
  status=$?
  if [ -n "$demo" ]; then kill "$demo" 2>/dev/null || true; wait "$demo" 2>/dev/null || true; fi
  rm -rf "${log:-}" "${data:-}"
  # `swift test` itself (SwiftPM) leaves lock files (_….lock) and empty TemporaryDirectory.* folders
  # (holding .keep-directory) there: they are not the tests'.
  left=$(cd "$run_tmp" && for entry in * .[!.]*; do
    [ -e "$entry" ] || continue
    case "$entry" in
      _*.lock) continue ;;
      TemporaryDirectory.*) [ -z "$(ls -A "$entry" | grep -vx .keep-directory)" ] && continue ;;
    esac
    echo "$entry"
  done)
  if [ -n "$left" ]; then
    echo "scripts/test.sh: the tests left $(echo "$left" | wc -l) entries in their TMPDIR; each test must remove what it writes (docs/testing.md, \"Temporary files\"):" >&2
    echo "$left" | sed 's/^/  /' >&2
    if [ "$status" -eq 0 ]; then status=1; rm -rf "$run_tmp"; fi
  else
    [ "$status" -eq 0 ] && rm -rf "$run_tmp"
  fi
  # A failed run keeps its TMPDIR: a failing test may have left what explains it there (the HTTP
  # fuzzer's findings, a player's logs).
  if [ -d "$run_tmp" ]; then echo "scripts/test.sh: the run failed; its TMPDIR is kept for a look: $run_tmp (remove it when done)" >&2; fi
  exit "$status"
}
trap finish EXIT
# The player suites run on their own: they time real playback against a proxy that lives in the
# test process, and CPU-heavy unit tests running beside them would starve it. So does the stream
# recorder's suite, which times live playlist reloads. They prove every driver and every fault
# family; the full preset × player sweep is run on demand (docs/testing.md).
players='PlayerTests|PresetPlaybackTests|PlayersTests|RunCommandTests|RecordReplayPlaybackTests|HARImportEndToEndTests|StreamRecorderTests|ForwardPlayerTests'
# The LL-HLS measurements come last, alone: the demo origin and the proxy answer within 50 ms of a
# part's publication, and hls.js plays under 3 s behind the live edge. hls.js never makes up a slow
# start at 1×: beside the player suites it started late enough to sit 3.5 s behind. Recording the LL
# stream follows its parts as they are published: in the parallel unit phase, a starved test
# process once recorded one blocking reload in 6 s.
timing='LowLatencyServerTests|LowLatencyThroughProxyTests|LowLatencyPlaybackTests|LowLatencyRecordingTests|LinkThroughProxyTests'
swift test --skip-build --skip "$players|$timing" "$@"
swift test --skip-build --filter "$players" "$@"
swift test --skip-build --filter "$timing" "$@"
# The dashboard in headless Chromium against a real demo and control API (skipped with a filter).
if [ "$#" -eq 0 ]; then
  log=$(mktemp)
  data=$(mktemp -d)
  # Forward mode and an HTTPS listener: the dashboard then shows the devices panel and the setup QR.
  .build/debug/hlschaos demo --host 127.0.0.1 --port 0 --control 127.0.0.1:0 --forward --https-port 0 --data-dir "$data" >"$log" 2>&1 &
  demo=$!
  for _ in $(seq 100); do grep -q "Control API:" "$log" && break; sleep 0.2; done
  proxy_port=$(sed -n 's/.*proxy on port \([0-9]*\).*/\1/p' "$log")
  control=$(sed -n 's/.*Control API: *\(http:[^ ]*\).*/\1/p' "$log")
  # Chromium (under Selenium) leaves its org.chromium.* folders in TMPDIR: it gets one of its own.
  browser_tmp=$(mktemp -d)
  TMPDIR="$browser_tmp" python3 Tests/Dashboard/dashboard_test.py --url "$control/" --proxy "http://127.0.0.1:$proxy_port" --require-qr \
    --screenshots .build/dashboard-screenshots
  rm -rf "$browser_tmp"
  # qr_check.py makes its own folder for Chromium (one level deeper would make the path of
  # Chromium's SingletonSocket longer than a Unix socket's 107 bytes, and Chromium exit at start).
  python3 Tests/Dashboard/qr_check.py
fi
