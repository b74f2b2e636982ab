#!/usr/bin/env bash
# Screenshots of the transaction manager, for reviewers: the main views in the light and the dark theme, on a laptop
# and a phone screen.
#
#   Scripts/screenshots.sh [OUT_DIR]      (default: screenshots/)
#
# Builds `storekit`, serves Examples/Demo.storekit from a throwaway data directory on a free loopback port, fills it
# with a few purchases through the control API, and saves PNG files with headless Chromium. Needs Debian's
# `chromium` and `chromium-driver` and Selenium from PyPI (`pip install selenium`), as the browser tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-screenshots}"

echo "==> building storekit" >&2
swift build --product storekit >&2
binary="$(swift build --show-bin-path)/storekit"

data="$(mktemp -d)"
log="$data/serve.log"
"$binary" serve --config Examples/Demo.storekit --data-dir "$data" --port 0 >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data"' EXIT

address=""
for _ in $(seq 1 100); do
    address="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -1 || true)"
    [[ -n "$address" ]] && break
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; echo "storekit serve stopped" >&2; exit 1; }
    sleep 0.1
done
[[ -n "$address" ]] || { cat "$log" >&2; echo "storekit serve did not start" >&2; exit 1; }

python3 Tests/Browser/transaction_manager.py screenshots --base "$address/" --out "$out"
