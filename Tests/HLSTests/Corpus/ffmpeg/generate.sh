#!/bin/sh
# Regenerates the ffmpeg playlists of this folder (only the .m3u8 files are kept).
# Usage: Tests/HLSTests/Corpus/ffmpeg/generate.sh   (needs ffmpeg and openssl)
set -eu
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
SRC="-f lavfi -i testsrc=size=320x240:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000 -c:v libx264 -preset ultrafast -g 25 -c:a aac -shortest"
ff() { ffmpeg -hide_banner -loglevel error "$@"; }
ff -t 8 $SRC -f hls -hls_time 2 -hls_playlist_type vod ffmpeg-ts-vod.m3u8
ff -t 8 $SRC -f hls -hls_time 2 -hls_segment_type fmp4 -hls_playlist_type vod ffmpeg-fmp4-vod.m3u8
openssl rand 16 > enc.key
printf 'https://keys.example.com/enc.key\nenc.key\n0123456789abcdef0123456789abcdef\n' > keyinfo
ff -t 8 $SRC -f hls -hls_time 2 -hls_key_info_file keyinfo -hls_playlist_type vod ffmpeg-aes128.m3u8
ff -t 8 $SRC -f hls -hls_time 2 -hls_flags single_file -hls_playlist_type vod ffmpeg-single-file-byterange.m3u8
ff -t 6 $SRC -f hls -hls_time 2 -hls_segment_type fmp4 -hls_flags single_file -hls_playlist_type vod ffmpeg-fmp4-single-file.m3u8
ff -t 12 $SRC -f hls -hls_time 1 -hls_list_size 4 -hls_flags delete_segments+program_date_time ffmpeg-live-window-pdt.m3u8
# A live sliding window captured while ffmpeg is still writing (no ENDLIST yet).
ff -re -t 10 $SRC -f hls -hls_time 1 -hls_list_size 4 -hls_flags delete_segments live.m3u8 &
sleep 7
cp live.m3u8 ffmpeg-live-sliding-snapshot.m3u8
wait
ff -f lavfi -i testsrc=size=320x240:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000 -t 6 \
   -map 0:v -map 0:v -map 1:a -c:v libx264 -preset ultrafast -g 25 -b:v:0 800k -s:v:1 160x120 -b:v:1 200k -c:a aac \
   -f hls -hls_time 2 -hls_playlist_type vod -master_pl_name ffmpeg-master.m3u8 \
   -var_stream_map "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,language:en,name:English" stream_%v.m3u8
cp stream_English.m3u8 ffmpeg-master-audio.m3u8
for f in ffmpeg-*.m3u8; do cp "$f" "$out/"; done
