#!/usr/bin/env bash
# Runs the whole test suite: unit tests, end-to-end tests over loopback, and real players
# (ffmpeg, GStreamer, hls.js in headless Chromium). Installs what it needs first (Debian/Ubuntu).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
swift build --build-tests
swift test --skip-build "$@"
