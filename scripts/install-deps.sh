#!/usr/bin/env bash
# Installs the Debian packages given as arguments when any is missing: directly as root,
# through sudo otherwise; failing both, says which packages to install and exits 1.
set -euo pipefail
missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "echolab: installing missing system packages: ${missing[*]}" >&2
source "$(dirname "$0")/privileged.sh"
if ! privileged_runner; then
    echo "echolab: missing system packages: ${missing[*]} — run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${runner[@]}" apt-get update -qq
"${runner[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
