#!/usr/bin/env bash
# Builds `storekit` as one binary that carries Swift's runtime and Foundation, and packs it with what it needs at run
# time, so a machine without a Swift toolchain runs the store:
#
#     Scripts/release.sh                 # writes openstorekit-VERSION-linux-ARCH.tar.gz here
#     Scripts/release.sh --out dist      # …into dist/
#
# The archive holds openstorekit-VERSION/bin/storekit, the demo configuration, the README, and the licence of every
# package compiled into the binary (licenses/<package>/). The web page's assets are compiled in. The binary still
# needs the shared libraries the README lists under "Without a Swift toolchain"; `readelf -d bin/storekit` names them.
# Builds in .build-release (set OPENSTOREKIT_RELEASE_SCRATCH to change it), apart from the debug build.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.
while (($#)); do
    case "$1" in
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "release.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done

version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/AppStoreEngine/Engine/StoreDefaults.swift)
[[ -n "$version" ]] || { echo "release.sh: no version in StoreDefaults.swift" >&2; exit 1; }
arch=$(uname -m)
name=openstorekit-$version-linux-$arch
scratch=${OPENSTOREKIT_RELEASE_SCRATCH:-.build-release}

echo "==> building storekit $version (release, Swift's runtime and Foundation linked in; a first build takes a while)" >&2
swift build -c release --product storekit --static-swift-stdlib --scratch-path "$scratch" >&2
binary=$(swift build -c release --product storekit --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/storekit

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/bin" "$root/examples" "$root/licenses"
cp "$binary" "$root/bin/storekit"
strip "$root/bin/storekit"
cp Examples/Demo.storekit "$root/examples/"
cp README.md "$root/"
# Every package compiled into the binary ships its licence beside it.
for checkout in "$scratch"/checkouts/*/; do
    package=$(basename "$checkout")
    for licence in "$checkout"LICENSE* "$checkout"LICENCE* "$checkout"COPYING* "$checkout"NOTICE*; do
        [[ -f "$licence" ]] || continue
        mkdir -p "$root/licenses/$package"
        cp "$licence" "$root/licenses/$package/"
    done
done

mkdir -p "$out"
archive=$(cd "$out" && pwd)/$name.tar.gz
tar -C "$stage" -czf "$archive" "$name"
needed=$(readelf -d "$root/bin/storekit" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "==> wrote $archive ($(du -h "$archive" | cut -f1)); the binary loads: $needed" >&2
echo "$archive"
