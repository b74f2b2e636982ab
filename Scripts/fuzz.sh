#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs them for a bounded time over their seed corpora.
#
#   Scripts/fuzz.sh [TARGET|all] [SECONDS]     (default: all, 60 seconds each)
#
# TARGET is FuzzReceipt, FuzzJWS, FuzzStoreKitFile or FuzzServerAPIToken. Targets run one after another, each over
# the real-world inputs in ../shared/corpus (OPENSTOREKIT_SHARED overrides the folder) and seeds it writes itself
# with this repository's signers. New inputs, crashes and logs go to .build-fuzz/runs/TARGET/ (FUZZ_SCRATCH moves
# .build-fuzz). The last lines printed for each target are libFuzzer's "#N DONE cov: … exec/s: …" line and its
# executions. A crash leaves `crash-*` there and stops the script: turn it into a regression test, fix, rerun.
# FUZZ_BUILD=0 runs the binaries of the last build without building.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-all}"
seconds="${2:-60}"
shared="${OPENSTOREKIT_SHARED:-$root/../shared}"
scratch="${FUZZ_SCRATCH:-$root/.build-fuzz}"
all=(FuzzReceipt FuzzJWS FuzzStoreKitFile FuzzServerAPIToken)
if [[ "$target" == all ]]; then targets=("${all[@]}"); else targets=("$target"); fi
for name in "${targets[@]}"; do
    [[ " ${all[*]} " == *" $name "* ]] || { echo "Unknown target $name; pick one of: ${all[*]}" >&2; exit 2; }
done

build=(swift build -c release --package-path "$root/Fuzz" --scratch-path "$scratch"
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
if [[ "${FUZZ_BUILD:-1}" != 0 ]]; then
    echo "==> building ${targets[*]}" >&2
    for name in "${targets[@]}"; do "${build[@]}" --product "$name" >&2; done
fi
# The build's own folder (`--show-bin-path` would wait for a build running in the same scratch path).
bin="$(ls -d "$scratch"/*-*/release | head -1)"

runs="$scratch/runs"
export FUZZ_AUTHORITY="$runs/authority"
export FUZZ_TRUSTED_ROOTS="$shared/corpus/vectors"
# LeakSanitizer reports the Swift runtime's and Foundation's process-lifetime caches (metadata, lazily made globals,
# task allocations) as leaks at exit; the address checks stay on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
for name in "${targets[@]}"; do
    dir="$runs/$name"
    rm -rf "$dir/seeds"
    mkdir -p "$dir/corpus" "$dir/seeds"
    # The real-world seeds this target reads.
    case "$name" in
    FuzzReceipt)
        for file in "$shared"/corpus/vectors/*receipt*.b64; do
            cp "$file" "$dir/seeds/"
            tr -d ' \n\r' <"$file" | base64 -d >"$dir/seeds/$(basename "$file" .b64).der" 2>/dev/null || true
        done ;;
    FuzzJWS) cp "$shared"/corpus/vectors/*.jws "$dir/seeds/" ;;
    FuzzStoreKitFile)
        cp "$shared"/corpus/storekit/*.storekit "$dir/seeds/"
        cp "$root"/Examples/*.storekit "$root"/Tests/StoreKitConfigurationTests/Fixtures/*.storekit "$dir/seeds/" ;;
    FuzzServerAPIToken) ;;
    esac
    # Seeds made with this repository's signers (the target writes them and exits).
    FUZZ_WRITE_SEEDS="$dir/seeds" "$bin/$name" -runs=0 >/dev/null 2>&1 || true
    echo "==> fuzzing $name for $seconds s over $(ls "$dir/seeds" | wc -l) seeds and $(ls "$dir/corpus" | wc -l) kept inputs" >&2
    status=0
    "$bin/$name" "$dir/corpus" "$dir/seeds" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 -detect_leaks=0 \
        -max_len=65536 -artifact_prefix="$dir/" >"$dir/fuzz.log" 2>&1 || status=$?
    grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec' "$dir/fuzz.log" | sed "s/^/$name: /"
    if [[ $status -ne 0 ]]; then
        tail -40 "$dir/fuzz.log" >&2
        echo "$name failed (exit $status); the input is in $dir/crash-* (see $dir/fuzz.log)" >&2
        exit "$status"
    fi
done
