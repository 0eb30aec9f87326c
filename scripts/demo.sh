#!/usr/bin/env bash
# Builds hlschaos and runs it in front of its embedded demo origin. Extra arguments go to `hlschaos demo`
# (for example --port 9000). Installs libcurl's headers first when they are missing (Debian/Ubuntu).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
swift build --product hlschaos
exec .build/debug/hlschaos demo "$@"
