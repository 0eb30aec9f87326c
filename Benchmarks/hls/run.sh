#!/bin/sh
# Release-build benchmark of the HLS module: parse + rewrite every URI + write.
# Usage: Benchmarks/hls/run.sh [iterations]   (default 1000; prints median / p90 per playlist)
# HLS is compiled as its own module (-O -wmo, like `swift build -c release`) and linked into
# the benchmark, so no cross-module inlining makes it look faster than in the app.
set -eu
cd "$(dirname "$0")/../.."
out=.build-bench-hls
mkdir -p "$out"
# HLS imports JSON (for `inspect --json`), built the same way first.
swiftc -O -wmo -parse-as-library -module-name JSON -emit-module -emit-module-path "$out/JSON.swiftmodule" \
    -emit-library -static -o "$out/libJSON.a" Sources/JSON/*.swift
swiftc -O -wmo -parse-as-library -module-name HLS -emit-module -emit-module-path "$out/HLS.swiftmodule" -I "$out" \
    -emit-library -static -o "$out/libHLS.a" Sources/HLS/*.swift
swiftc -O -wmo -parse-as-library -I "$out" -L "$out" -lHLS -lJSON Benchmarks/hls/main.swift -o "$out/hls-bench"
"$out/hls-bench" "${1:-1000}"
