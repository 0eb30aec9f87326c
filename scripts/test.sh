#!/usr/bin/env bash
# Runs the whole test suite: unit tests, end-to-end tests over loopback, and real players
# (ffmpeg, GStreamer, hls.js in headless Chromium). Installs what it needs first (Debian/Ubuntu).
# Extra arguments go to both `swift test` runs (for example --filter ProxyTests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
swift build --build-tests
# The player suites run on their own: they time real playback against a proxy that lives in the
# test process, and CPU-heavy unit tests running beside them would starve it.
players='PlayerTests|PresetPlaybackTests'
swift test --skip-build --skip "$players" "$@"
swift test --skip-build --filter "$players" "$@"
