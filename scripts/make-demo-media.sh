#!/usr/bin/env bash
# Generates the demo origin's bundled HLS media into Sources/DemoOrigin/Media.
#
# Four flavours of the same 24 s programme (3 H.264 variants, 2 AAC audio languages,
# English WebVTT subtitles, 2 s segments):
#   ts/         MPEG-TS segments, audio renditions as audio-only TS
#   fmp4/       fragmented MP4 (.m4s) with EXT-X-MAP init.mp4
#   aes/        AES-128 encrypted MPEG-TS, key at aes/key.bin
#   byterange/  one .ts file per stream, segments addressed with EXT-X-BYTERANGE
#
# Rerunnable: the output folder is rebuilt from scratch. Deterministic apart from what
# the local ffmpeg build changes (single-threaded x264, bitexact muxers, fixed key/IV).
# Usage: scripts/make-demo-media.sh [output-dir]
set -euo pipefail

die() { echo "make-demo-media: $*" >&2; exit 1; }
for tool in ffmpeg ffprobe awk; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found; install it (Debian: apt-get install ffmpeg)"
done

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-"$repo_root/Sources/DemoOrigin/Media"}
work=$(mktemp -d "${TMPDIR:-/tmp}/demo-media.XXXXXX")
trap 'rm -rf "$work"' EXIT

duration=24        # seconds; a multiple of the segment length
seg=2              # segment length in seconds
fps=25
gop=$((seg * fps)) # one IDR per segment, never elsewhere
segments=$((duration / seg))

# name width height video-kbit/s
variants=(
    "v0 416 234 120"
    "v1 640 360 250"
    "v2 960 540 500"
)
# language name tone-Hz
audios=(
    "en English 440"
    "fr Français 660"
)
audio_kbit=40
video_codec="avc1.4d401f" # H.264 Main, level 3.1 (set below)
audio_codec="mp4a.40.2"   # AAC-LC

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }

font=""
for candidate in /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf /usr/share/fonts/TTF/DejaVuSans-Bold.ttf; do
    [[ -f "$candidate" ]] && font=$candidate && break
done
have_drawtext=no
if [[ -n "$font" ]] && [[ $(ffmpeg -hide_banner -filters 2>/dev/null) == *" drawtext "* ]]; then
    have_drawtext=yes
else
    echo "make-demo-media: drawtext or DejaVu font unavailable, video will carry no label" >&2
fi

echo "== mezzanine encodes in $work"
for v in "${variants[@]}"; do
    read -r name w h kbit <<<"$v"
    filter="format=yuv420p"
    if [[ $have_drawtext == yes ]]; then
        size=$((h / 8))
        label="$name ${w}x${h} ${kbit}k"
        filter="drawtext=fontfile=$font:text='$label':x=(w-tw)/2:y=h/10:fontsize=$size:fontcolor=white:box=1:boxcolor=black@0.6,"
        filter+="drawtext=fontfile=$font:timecode='00\\:00\\:00\\:00':rate=$fps:x=(w-tw)/2:y=h-th-h/10:fontsize=$size:fontcolor=white:box=1:boxcolor=black@0.6,"
        filter+="format=yuv420p"
    fi
    ff -f lavfi -i "testsrc2=size=${w}x${h}:rate=$fps:duration=$duration" -vf "$filter" \
        -c:v libx264 -threads 1 -preset medium -profile:v main -level 3.1 \
        -b:v "${kbit}k" -maxrate "$((kbit * 13 / 10))k" -bufsize "$((kbit * 2))k" \
        -g "$gop" -keyint_min "$gop" -sc_threshold 0 -flags +bitexact -fflags +bitexact \
        -an "$work/$name.mp4"
done
for a in "${audios[@]}"; do
    read -r lang _ tone <<<"$a"
    # 50 ms short of the video: the AAC encoder's priming frame would otherwise spill into a
    # 13th, 21 ms segment, and the live window needs the same segment count in every rendition.
    ff -f lavfi -i "sine=frequency=$tone:beep_factor=2:sample_rate=48000:duration=$((duration - 1)).95" \
        -c:a aac -b:a "${audio_kbit}k" -ac 1 -flags +bitexact -fflags +bitexact "$work/$lang.m4a"
done

# package SRC DIR FLAVOUR: segments one mezzanine stream into DIR/index.m3u8
package() {
    local src=$1 dir=$2 flavour=$3
    mkdir -p "$dir"
    local common=(-i "$src" -c copy -map 0 -flags +bitexact -fflags +bitexact
        -f hls -hls_time "$seg" -hls_playlist_type vod -hls_list_size 0 -hls_flags independent_segments)
    case $flavour in
    ts) ff "${common[@]}" -hls_segment_filename "$dir/s%03d.ts" "$dir/index.m3u8" ;;
    fmp4) ff "${common[@]}" -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 \
        -hls_segment_filename "$dir/s%03d.m4s" "$dir/index.m3u8" ;;
    aes) ff "${common[@]}" -hls_key_info_file "$work/keyinfo" \
        -hls_segment_filename "$dir/s%03d.ts" "$dir/index.m3u8" ;;
    byterange) ff "${common[@]}" -hls_flags independent_segments+single_file "$dir/index.m3u8" ;;
    esac
}

# Prints "peak average" bit/s of a media playlist, from segment sizes or byte ranges.
bandwidth() {
    local dir=$1 playlist=${2:-index.m3u8}
    awk -v dir="$dir" '
        /^#EXTINF:/ { sub(/^#EXTINF:/, ""); sub(/,.*/, ""); d = $0 + 0; next }
        /^#EXT-X-BYTERANGE:/ { sub(/^#EXT-X-BYTERANGE:/, ""); sub(/@.*/, ""); len = $0 + 0; next }
        /^#/ || /^$/ { next }
        {
            size = len
            if (size == 0) { cmd = "stat -c %s \"" dir "/" $0 "\""; cmd | getline size; close(cmd) }
            bps = size * 8 / d; if (bps > peak) peak = bps
            total += size; dur += d; len = 0
        }
        END { printf "%d %d\n", peak, total * 8 / dur }' "$dir/$playlist"
}

# First presentation time of a flavour's video, in 90 kHz ticks, for X-TIMESTAMP-MAP.
first_pts_90k() {
    local dir=$1 flavour=$2 probe
    case $flavour in
    fmp4) cat "$dir/init.mp4" "$dir/s000.m4s" >"$work/probe.mp4"; probe=$work/probe.mp4 ;;
    aes) probe=$work/plain-first.ts; ff -allowed_extensions ALL -i "$dir/index.m3u8" -c copy -t 1 -f mpegts "$probe" ;;
    byterange) probe=$dir/index.ts ;;
    *) probe=$dir/s000.ts ;;
    esac
    ffprobe -v error -select_streams v:0 -read_intervals %+#12 -show_entries packet=pts_time -of csv=p=0 "$probe" |
        cut -d, -f1 | grep -E '^[0-9]' | sort -g | head -n1 | awk '{ printf "%d\n", $1 * 90000 + 0.5 }'
}

write_subtitles() {
    local dir=$1 mpegts=$2
    mkdir -p "$dir"
    {
        echo "#EXTM3U"
        echo "#EXT-X-VERSION:3"
        echo "#EXT-X-TARGETDURATION:$seg"
        echo "#EXT-X-MEDIA-SEQUENCE:0"
        echo "#EXT-X-PLAYLIST-TYPE:VOD"
        for ((i = 0; i < segments; i++)); do
            printf '#EXTINF:%d.000000,\ns%03d.vtt\n' "$seg" "$i"
        done
        echo "#EXT-X-ENDLIST"
    } >"$dir/index.m3u8"
    for ((i = 0; i < segments; i++)); do
        local start=$((i * seg)) end=$(((i + 1) * seg))
        printf 'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:%d,LOCAL:00:00:00.000\n\n%d\n00:00:%02d.000 --> 00:00:%02d.000\nEnglish subtitle, segment %d (%02d-%02d s)\n' \
            "$mpegts" "$((i + 1))" "$start" "$end" "$i" "$start" "$end" >"$dir/$(printf 's%03d.vtt' "$i")"
    done
}

write_master() {
    local root=$1 version=$2
    local audio_peak=0 audio_avg=0 line peak avg
    for a in "${audios[@]}"; do
        read -r lang _ _ <<<"$a"
        read -r peak avg <<<"$(bandwidth "$root/audio/$lang")"
        ((peak > audio_peak)) && audio_peak=$peak
        ((avg > audio_avg)) && audio_avg=$avg
    done
    {
        echo "#EXTM3U"
        echo "#EXT-X-VERSION:$version"
        echo "#EXT-X-INDEPENDENT-SEGMENTS"
        local default=YES
        for a in "${audios[@]}"; do
            read -r lang title _ <<<"$a"
            echo "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",LANGUAGE=\"$lang\",NAME=\"$title\",DEFAULT=$default,AUTOSELECT=YES,CHANNELS=\"1\",URI=\"audio/$lang/index.m3u8\""
            default=NO
        done
        echo "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",LANGUAGE=\"en\",NAME=\"English\",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI=\"subs/en/index.m3u8\""
        for v in "${variants[@]}"; do
            read -r name w h _ <<<"$v"
            read -r peak avg <<<"$(bandwidth "$root/$name")"
            echo "#EXT-X-STREAM-INF:BANDWIDTH=$((peak + audio_peak)),AVERAGE-BANDWIDTH=$((avg + audio_avg)),RESOLUTION=${w}x${h},FRAME-RATE=$fps.000,CODECS=\"$video_codec,$audio_codec\",AUDIO=\"aud\",SUBTITLES=\"subs\""
            echo "$name/index.m3u8"
        done
        for v in "${variants[@]}"; do
            read -r name w h _ <<<"$v"
            [[ -f "$root/$name/iframes.m3u8" ]] || continue
            read -r peak avg <<<"$(bandwidth "$root/$name" iframes.m3u8)"
            echo "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=$peak,AVERAGE-BANDWIDTH=$avg,RESOLUTION=${w}x${h},CODECS=\"$video_codec\",URI=\"$name/iframes.m3u8\""
        done
    } >"$root/master.m3u8"
}

# I-frame playlist of a TS variant: each segment opens with PAT/PMT and its IDR frame, so
# the I-frame is the byte range from 0 to the TS packet where the next video frame starts.
write_iframes() {
    local dir=$1 i second
    {
        echo "#EXTM3U"
        echo "#EXT-X-VERSION:4"
        echo "#EXT-X-TARGETDURATION:$seg"
        echo "#EXT-X-MEDIA-SEQUENCE:0"
        echo "#EXT-X-PLAYLIST-TYPE:VOD"
        echo "#EXT-X-I-FRAMES-ONLY"
        for ((i = 0; i < segments; i++)); do
            local file
            file=$(printf 's%03d.ts' "$i")
            second=$(ffprobe -v error -select_streams v:0 -read_intervals %+#2 -show_entries packet=pos \
                -of csv=p=0 "$dir/$file" | cut -d, -f1 | grep -E '^[0-9]+$' | sed -n 2p)
            [[ -n $second ]] || die "no second video packet in $dir/$file"
            printf '#EXTINF:%d.000000,\n#EXT-X-BYTERANGE:%d@0\n%s\n' "$seg" "$second" "$file"
        done
        echo "#EXT-X-ENDLIST"
    } >"$dir/iframes.m3u8"
}

# Fixed key and IV: the demo is about faults, not secrecy, and fixed bytes keep reruns identical.
printf '%s' 'hlschaos-demo-k!' >"$work/key.bin"
mkdir -p "$work/aes-key"

rm -rf "$out"
mkdir -p "$out"
for flavour in ts fmp4 aes byterange; do
    echo "== $flavour"
    root=$out/$flavour
    mkdir -p "$root"
    if [[ $flavour == aes ]]; then
        cp "$work/key.bin" "$root/key.bin"
        printf '../../key.bin\n%s\n%s\n' "$work/key.bin" 000102030405060708090a0b0c0d0e0f >"$work/keyinfo"
    fi
    for v in "${variants[@]}"; do
        read -r name _ _ _ <<<"$v"
        package "$work/$name.mp4" "$root/$name" "$flavour"
    done
    for a in "${audios[@]}"; do
        read -r lang _ _ <<<"$a"
        package "$work/$lang.m4a" "$root/audio/$lang" "$flavour"
    done
    if [[ $flavour == aes ]]; then
        # Variants sit one level below the flavour root, audio two levels; fix the key URI per depth.
        sed -i 's|URI="../../key.bin"|URI="../key.bin"|' "$root"/v*/index.m3u8
    fi
    version=3
    case $flavour in fmp4) version=7 ;; byterange) version=4 ;; esac
    if [[ $flavour == ts ]]; then
        for v in "${variants[@]}"; do
            read -r name _ _ _ <<<"$v"
            write_iframes "$root/$name"
        done
    fi
    write_subtitles "$root/subs/en" "$(first_pts_90k "$root/v0" "$flavour")"
    write_master "$root" "$version"
done

echo "== done: $(du -sh "$out" | cut -f1) in $out"
