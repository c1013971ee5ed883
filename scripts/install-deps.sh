#!/usr/bin/env bash
# Installs the Debian 12 packages spanscope builds with, skipping those already present.
set -euo pipefail

packages=(
  cmake g++ pkg-config ninja-build
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
  libhdf5-dev liblzf-dev libzstd-dev zlib1g-dev
  libsimdjson-dev libdeflate-dev
  libbenchmark-dev
  help2man dpkg-dev appstream desktop-file-utils
  clang libclang-rt-dev lld
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
