#!/usr/bin/env bash
# Builds WebRTC's AEC3 wrapper (Native/aec3/echolab_aec3.cpp) with Debian's libtgowt-dev and
# abseil into libecholab_aec3.a and installs it into $ECHOLAB_AEC3_PREFIX/lib (default
# /usr/local/lib) with the pkg-config file (echolab-aec3.pc) the CEchoLabAEC3 module is found by.
# tg_owt and webrtc-audio-processing 0.3 define hundreds of the same symbols, so the wrapper and
# the parts of tg_owt it uses are linked into one relocatable object first (ld -r), and every
# symbol in it but `echolab_aec3_entry` is made local: the two WebRTCs never meet. A stamp of the
# sources' SHA-256 beside the library skips the build when nothing changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${ECHOLAB_AEC3_PREFIX:-/usr/local}
library=$prefix/lib/libecholab_aec3.a
stamp=$prefix/lib/libecholab_aec3.sha256
pcfile=$prefix/lib/pkgconfig/echolab-aec3.pc
arch=$(gcc -print-multiarch)
source "$root/scripts/privileged.sh"
# apt's package lists, refreshed once when they do not know libtgowt-dev or its .deb is gone.
refresh_lists() {
    privileged_runner || { echo "echolab: apt's package lists are out of date: run apt-get update as root" >&2; exit 1; }
    "${runner[@]}" apt-get update -qq
}
# tg_owt comes from Debian's libtgowt-dev. Installed with apt it pulls 68 packages (ffmpeg's, X11's
# and glib's -dev packages: 52.5 MB to fetch, 220 MB on disk), none of which AEC3 needs: so unless it
# is installed already, its .deb (7.5 MB) is fetched with `apt-get download` and unpacked for this
# build only. Only abseil (libabsl-dev, 6 MB, from make deps) is installed.
if dpkg-query -W -f='${Status}' libtgowt-dev 2>/dev/null | grep -q "install ok installed"; then
    version=$(dpkg-query -W -f='${Version}' libtgowt-dev)
    download=
else
    download=1
    candidate() { apt-cache show --no-all-versions libtgowt-dev 2>/dev/null | sed -n 's/^Version: //p' || true; }
    version=$(candidate)
    if [ -z "$version" ]; then refresh_lists; version=$(candidate); fi
    [ -n "$version" ] || { echo "echolab: apt knows no libtgowt-dev (Debian bookworm or later has it)" >&2; exit 1; }
fi
speexdsp=$(pkg-config --modversion speexdsp)
webrtc=$(pkg-config --modversion webrtc-audio-processing)
sources=("$root/Native/aec3/echolab_aec3.cpp" "$root/Native/aec3/native_versions.c" "$root/Sources/CEchoLabAEC3/echolab_aec3.h" "$0")
hash=$( { cat "${sources[@]}"; echo "$version $speexdsp $webrtc"; } | sha256sum | cut -d' ' -f1)
if [ -f "$library" ] && [ -f "$pcfile" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tgowt_root=
if [ -n "$download" ]; then
    tgowt_root=$work/tgowt
    # apt's output only on failure (as root it warns that it fetched unsandboxed, which is fine here).
    download_deb() { (cd "$work" && apt-get download -q "libtgowt-dev=$version" > "$work/apt.log" 2>&1); }
    download_deb || { refresh_lists; download_deb; } ||
        { cat "$work/apt.log" >&2; echo "echolab: cannot download libtgowt-dev $version with apt-get download" >&2; exit 1; }
    dpkg-deb -x "$work"/libtgowt-dev_*.deb "$tgowt_root"
fi
tgowt=$tgowt_root/usr/lib/$arch/libtg_owt.a
[ -f "$tgowt" ] || { echo "echolab: $tgowt is missing from libtgowt-dev $version" >&2; exit 1; }
echo "echolab: building libecholab_aec3.a (WebRTC AEC3 from tg_owt $version)" >&2
g++ -std=c++20 -O2 -fPIE -DWEBRTC_POSIX -DWEBRTC_LINUX \
    -I"$tgowt_root/usr/include/tg_owt" -I"$root/Sources/CEchoLabAEC3" -c "$root/Native/aec3/echolab_aec3.cpp" -o "$work/wrapper.o"
gcc -O2 -fPIE -DECHOLAB_SPEEXDSP_VERSION="\"$speexdsp\"" -DECHOLAB_WEBRTC_AUDIO_PROCESSING_VERSION="\"$webrtc\"" \
    -DECHOLAB_TG_OWT_VERSION="\"$version\"" -I"$root/Sources/CEchoLabAEC3" -c "$root/Native/aec3/native_versions.c" -o "$work/versions.o"
ld -r -u echolab_aec3_entry -o "$work/linked.o" "$work/wrapper.o" "$work/versions.o" \
    --start-group "$tgowt" /usr/lib/"$arch"/libabsl_*.a --end-group
# GNU-unique symbols (static members of inline classes) cannot be made local: renamed instead.
nm --defined-only -g "$work/linked.o" | awk '$2 == "u" { print $3 " echolab_aec3." $3 }' > "$work/renames"
# Without its COMDAT groups, a copy of an inline function is this object's own, not merged with
# (and discarded for) the same-named one of another object.
objcopy -R .group --keep-global-symbol=echolab_aec3_entry --keep-global-symbol=echolab_native_versions --redefine-syms="$work/renames" \
    "$work/linked.o" "$work/aec3.o"
leaked=$(nm --defined-only -g "$work/aec3.o" | awk '$3 != "echolab_aec3_entry" && $3 != "echolab_native_versions" && $3 !~ /^echolab_aec3\./' | head -3)
[ -z "$leaked" ] || { echo "echolab: libecholab_aec3.a would export more than its entry: $leaked" >&2; exit 1; }
ar rcs "$work/libecholab_aec3.a" "$work/aec3.o"
echo "$hash" > "$work/stamp"
cat > "$work/echolab-aec3.pc" <<PC
libdir=$prefix/lib

Name: echolab-aec3
Description: WebRTC AEC3 from tg_owt $version, isolated for EchoLab
Version: 1
Libs: -L\${libdir} -lecholab_aec3 -lstdc++ -lm
PC

if [ -w "$prefix/lib" ]; then
    runner=()
elif ! privileged_runner; then
    echo "echolab: cannot install libecholab_aec3.a into $prefix/lib: run make deps as root, with sudo, or with ECHOLAB_AEC3_PREFIX set to a folder of yours and PKG_CONFIG_PATH to its lib/pkgconfig" >&2
    exit 1
fi
"${runner[@]}" install -D -m 644 "$work/libecholab_aec3.a" "$library"
"${runner[@]}" install -D -m 644 "$work/echolab-aec3.pc" "$pcfile"
"${runner[@]}" install -m 644 "$work/stamp" "$stamp"
