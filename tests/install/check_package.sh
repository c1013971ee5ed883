#!/usr/bin/env bash
# Builds the Debian package of a build tree with CPack, checks its control data, unpacks
# it into a fresh root (dpkg -x: no root rights, no container) and checks the unpacked
# install with check_install.sh.
#   check_package.sh BUILD_DIR APP_ID FIXTURE WORKDIR
set -euo pipefail
build=$1 app_id=$2 fixture=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"

echo "-- cpack"
(cd "$build" && cpack -G DEB -B "$work/cpack" >/dev/null)
deb=$(find "$work/cpack" -maxdepth 1 -name 'spanscope_*.deb' | head -n 1)
[ -n "$deb" ] || fail "cpack made no spanscope_*.deb in $work/cpack"
echo "$deb"

echo "-- control data"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# dpkg-shlibdeps names the packages of the libraries the programs load.
for package in libqt6widgets6 libqt6svg6 libqcustomplot2.1-qt6 libzstd1 liblzf1 libdeflate0; do
  grep -q "\b$package\b" <<<"$depends" || fail "Depends lacks $package"
done
outside=$(dpkg-deb --contents "$deb" | awk '{print $6}' | grep -v '^\./usr/\|^\./$\|^\./usr$' || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"

echo "-- unpacked into a fresh root"
dpkg -x "$deb" "$work/root"
"$here/check_install.sh" "$work/root/usr" "$app_id" "$fixture" "$work/check"
