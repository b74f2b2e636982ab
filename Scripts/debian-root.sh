#!/usr/bin/env bash
# Makes a minimal Debian root for the release archive's test (ReleaseArchiveTests): debootstrap's minbase plus only
# the packages the README's "Without a Swift toolchain" section names, read from its `apt-get install` line, so the
# test proves the README's list is enough. Reuses DIR when it already holds a root made from the same list.
#
#     Scripts/debian-root.sh /var/tmp/openstorekit-debian-root
#
# Needs root and debootstrap (.ci/run installs it), and reaches Debian's mirror (MIRROR to change it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:?usage: Scripts/debian-root.sh DIR}
mirror=${MIRROR:-http://deb.debian.org/debian}
suite=${SUITE:-bookworm}

packages=$(sed -n 's/^sudo apt-get install -y \([a-z0-9.+ -]*[a-z0-9]\) *# what storekit needs.*$/\1/p' README.md)
[[ -n "$packages" ]] || { echo "debian-root.sh: README.md has no 'sudo apt-get install -y … # what storekit needs' line" >&2; exit 1; }

stamp="$suite minbase $packages"
if [[ -f "$root/.openstorekit-root" && "$(cat "$root/.openstorekit-root")" == "$stamp" ]]; then
    echo "$root"
    exit 0
fi
rm -rf "$root"
mkdir -p "$root"
echo "==> debootstrap --variant=minbase $suite, plus: $packages" >&2
debootstrap --variant=minbase --include="${packages// /,}" "$suite" "$root" "$mirror" >&2
echo "$stamp" > "$root/.openstorekit-root"
echo "$root"
