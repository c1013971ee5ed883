#!/usr/bin/env bash
# Checks an installed spanscope as a user would meet it: every file in its place, every
# program finding its libraries and its peers from the installed paths only, the desktop
# and AppStream files valid, the public headers usable, and the CLI, spanscope-run and the
# viewer (offscreen) working on real input.
#   check_install.sh PREFIX APP_ID FIXTURE WORKDIR
# PREFIX is the installed prefix (a `cmake --install --prefix` folder, or <root>/usr of an
# unpacked .deb). Prints what it checks; exits non-zero at the first failure.
set -euo pipefail
prefix=$1 app_id=$2 fixture=$3 work=$4
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }

# Nothing from the build tree or the caller's environment may help the installed programs.
unset SPANSCOPE_COLLECTOR SPANSCOPE_RUN NVTX_INJECTION64_PATH LD_LIBRARY_PATH
export QT_QPA_PLATFORM=offscreen

step "files in place"
plugin=$(find "$prefix" -path '*/spanscope/libspanscope-collector.so' | head -n 1)
[ -n "$plugin" ] || fail "libspanscope-collector.so is not under $prefix/<libdir>/spanscope"
expected=(
  bin/spanscope bin/spanscope-cli bin/spanscope-run bin/spanscope-demo bin/spanscope-sps-dump
  libexec/spanscope/spanscope-cli-core libexec/spanscope/spanscope-render
  include/spanscope/spanscope_protocol.h include/spanscope/spanscope_decoder.h
  "share/applications/$app_id.desktop" "share/metainfo/$app_id.metainfo.xml"
  "share/mime/packages/$app_id.xml" "share/icons/hicolor/scalable/apps/$app_id.svg"
  share/man/man1/spanscope.1 share/man/man1/spanscope-cli.1 share/man/man1/spanscope-run.1
)
for size in 16 22 24 32 48 64 128 256 512; do
  expected+=("share/icons/hicolor/${size}x${size}/apps/$app_id.png")
done
for file in "${expected[@]}"; do
  [ -e "$prefix/$file" ] || fail "$prefix/$file is missing"
done
config=$(find "$prefix" -name spanscopeConfig.cmake | head -n 1)
[ -n "$config" ] || fail "spanscopeConfig.cmake is not installed"

step "every program and library finds its libraries"
while IFS= read -r elf; do
  missing=$(ldd "$elf" 2>&1 | grep 'not found' || true)
  [ -z "$missing" ] || fail "$elf: $missing"
done < <(find "$prefix" -type f \( -perm -u+x -o -name '*.so' \) -exec sh -c \
           'head -c 4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)

step "desktop file and AppStream metadata validate"
command -v desktop-file-validate >/dev/null || fail "desktop-file-validate is missing (apt-get install desktop-file-utils)"
command -v appstreamcli >/dev/null || fail "appstreamcli is missing (apt-get install appstream)"
desktop-file-validate "$prefix/share/applications/$app_id.desktop"
appstreamcli validate --no-net --pedantic "$prefix/share/metainfo/$app_id.metainfo.xml"
grep -q '^\.SH ENVIRONMENT' "$prefix/share/man/man1/spanscope-run.1" ||
  fail "the man page of spanscope-run has no ENVIRONMENT section"

step "public headers and CMake package"
cat > "$work/decoder_user.cpp" <<'CPP'
#include <spanscope/spanscope_decoder.h>
int main()
{
    spanscope::protocol::DecoderHandler handler;
    spanscope::protocol::Decoder decoder(handler);
    return decoder.error().empty() ? 0 : 1;
}
CPP
cat > "$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(decoder_user CXX)
find_package(spanscope REQUIRED)
add_executable(decoder_user decoder_user.cpp)
target_compile_features(decoder_user PRIVATE cxx_std_17)
target_link_libraries(decoder_user PRIVATE spanscope::protocol)
CMAKE
cmake -S "$work" -B "$work/user-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/user-build" >/dev/null
"$work/user-build/decoder_user"

step "spanscope-cli"
"$prefix/bin/spanscope-cli" --version | grep -q '^spanscope-cli ' || fail "spanscope-cli --version"
"$prefix/bin/spanscope-cli" summary "$fixture" > "$work/summary.txt"
[ -s "$work/summary.txt" ] || fail "spanscope-cli summary printed nothing"
"$prefix/bin/spanscope-cli" render "$fixture" --output "$work/render.png" --width 400 --height 200
[ -s "$work/render.png" ] || fail "spanscope-cli render wrote no image"

step "spanscope-run records the demo with the installed collector"
"$prefix/bin/spanscope-run" --output "$work/demo.h5" -- "$prefix/bin/spanscope-demo" --seconds 1 --quiet
"$prefix/bin/spanscope-cli" summary --format json "$work/demo.h5" > "$work/demo.json"
grep -q '"name"' "$work/demo.json" || fail "the recorded demo has no regions"

step "the viewer starts and shows the capture"
"$prefix/bin/spanscope" --version | grep -q '^spanscope ' || fail "spanscope --version"
"$prefix/bin/spanscope" --screenshot "$work/viewer.png" "$work/demo.h5"
[ -s "$work/viewer.png" ] || fail "the viewer saved no screenshot"
echo "OK: $prefix"
