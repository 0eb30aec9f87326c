#!/bin/sh
# Fuzzes the HLS parser with libFuzzer.
# Usage: scripts/fuzz-hls.sh [seconds]   (default 600; artifacts and the grown corpus go to .build-fuzz/)
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-600}
out=.build-fuzz
mkdir -p "$out/corpus" "$out/artifacts"
# (ld.gold warns about every ASan helper symbol; those lines are noise.)
# HLS imports JSON (for `inspect --json`): a module of its own, built first.
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name JSON -emit-module -emit-module-path "$out/JSON.swiftmodule" \
    -emit-library -static -o "$out/libJSON.a" Sources/JSON/*.swift
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HLSFuzz -I "$out" -L "$out" -lJSON \
    Sources/HLS/*.swift Tests/Fuzz/HLSFuzz.swift -o "$out/hls-fuzz" 2>&1 | grep -v 'Cannot export local symbol' || true
test -x "$out/hls-fuzz"
# Tag names as a dictionary help the fuzzer build valid-looking lines.
sed -n 's/^ *case [a-zA-Z]* = "\(#EXT[A-Z0-9-]*\)".*/"\1"/p' Sources/HLS/TagName.swift > "$out/hls.dict"
for word in URI= BANDWIDTH= METHOD= BYTERANGE= DURATION= GROUP-ID= TYPE= NAME= VALUE= '{$' '"' , @ : YES NONE; do
    printf '"%s"\n' "$(printf '%s' "$word" | sed 's/"/\\"/g')" >> "$out/hls.dict"
done
# libFuzzer reports crashes itself; Swift's backtracer can linger after a crash.
export SWIFT_BACKTRACE=enable=no
exec "$out/hls-fuzz" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -dict="$out/hls.dict" -artifact_prefix="$out/artifacts/" -print_final_stats=1 \
    "$out/corpus" Tests/HLSTests/Corpus/ffmpeg Tests/HLSTests/Corpus/rfc8216 Tests/HLSTests/Corpus/rfc8216bis \
    Tests/HLSTests/Corpus/handmade Tests/HLSTests/Corpus/fuzz-regressions
