#!/usr/bin/env bash
# Installs what hlschaos needs on Debian/Ubuntu, skipping what is already there.
#   scripts/install-deps.sh build     libcurl headers and pkg-config (enough to build and run the demo)
#   scripts/install-deps.sh test      + ffmpeg, GStreamer, VLC, mpv, Chromium + chromedriver, selenium,
#                                     schemathesis, zbar + pyzbar + Pillow (QR codes), the openssl and
#                                     curl commands (they judge the local CA's certificates), NSS certutil
#                                     (Chromium trusts the local CA through --via forward), nginx
#                                     (ScaleOutTests runs docs/scale-out.md's configuration)
#   scripts/install-deps.sh bench     + nginx, wrk and h2load (nghttp2-client)
set -euo pipefail
level=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)

apt_packages=(pkg-config libcurl4-openssl-dev)
case "$level" in
  build) ;;
  test) apt_packages+=(ffmpeg gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
                      gstreamer1.0-plugins-bad gstreamer1.0-libav vlc-bin vlc-plugin-base mpv
                      chromium chromium-driver libnss3-tools libzbar0 openssl curl nginx-light) ;;
  bench) apt_packages+=(nginx-light wrk nghttp2-client ffmpeg) ;;
  *) echo "usage: $0 build|test|bench" >&2; exit 2 ;;
esac

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$level" = test ]; then
  python3 -c "import selenium" 2>/dev/null || python3 -m pip install -q selenium
  python3 -c "import schemathesis" 2>/dev/null || python3 -m pip install -q schemathesis  # control API conformance (OpenAPIConformanceTests)
  # The dashboard's QR codes are decoded with zbar (Tests/Dashboard: dashboard_test.py, qr_check.py).
  python3 -c "import pyzbar.pyzbar, PIL" 2>/dev/null || python3 -m pip install -q pyzbar pillow
  # hls.js and video.js are not installed here: the browser drivers fetch them from PyPI into their
  # cache at first use (BrowserEngineCache, ~/.cache/hlschaos/players; docs/players-browser.md).
fi
