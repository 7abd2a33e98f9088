#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (address sanitizer + libFuzzer, release) and runs each for
# FUZZ_SECONDS with its committed seed corpus. Exits non-zero when a target finds a crash, a
# sanitizer error, a leak, a timeout or an out-of-memory; the input is then in
# .build-fuzz/artifacts/TARGET/ and the log in .build-fuzz/logs/TARGET.log.
#
#   scripts/fuzz.sh [TARGET...]       TARGET: scenario, audio (default: both)
#   FUZZ_SECONDS=60                   time per target
#   FUZZ_FLAGS="-jobs=2"              extra libFuzzer flags
#
# The committed corpora (Fuzz/corpus/TARGET, Fuzz/corpus/regressions/TARGET) are only read: new
# inputs go to the working corpus .build-fuzz/work/TARGET, which is kept between runs. To add a
# run's discoveries to the seeds, minimise them into the committed folder yourself:
#   .build-fuzz/release/fuzz-TARGET -merge=1 Fuzz/corpus/TARGET .build-fuzz/work/TARGET
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
SCRATCH=.build-fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario audio)

fuzzer_runtime=$(dirname "$(dirname "$(readlink -f "$(command -v "$SWIFT")")")")/lib/swift/clang/lib/linux/libclang_rt.fuzzer-x86_64.a
if [ ! -e "$fuzzer_runtime" ]; then
    echo "fuzz: this toolchain has no libFuzzer runtime ($fuzzer_runtime); skipping" >&2
    exit 0
fi

echo "fuzz: building (release, -sanitize=fuzzer,address) into $SCRATCH"
"$SWIFT" build -c release --package-path Fuzz --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address

# The Swift runtime's own backtracer fights AddressSanitizer over the crashed process; libFuzzer
# and ASan print the stack (symbolised) themselves.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

status=0
for target in "${targets[@]}"; do
    case "$target" in
        scenario) extra=(-max_len=4096 -dict=Fuzz/scenario.dict) ;;
        audio) extra=(-max_len=16384) ;;
        *) echo "fuzz: unknown target '$target' (scenario, audio)" >&2; exit 64 ;;
    esac
    binary="$SCRATCH/release/fuzz-$target"
    work="$SCRATCH/work/$target" artifacts="$SCRATCH/artifacts/$target" log="$SCRATCH/logs/$target.log"
    mkdir -p "$work" "$artifacts" "$(dirname "$log")" "Fuzz/corpus/regressions/$target"
    echo "fuzz: $target for ${FUZZ_SECONDS}s (log: $log)"
    set +e
    # shellcheck disable=SC2086
    "$binary" "${extra[@]}" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_FLAGS:-} \
        "$work" "Fuzz/corpus/$target" "Fuzz/corpus/regressions/$target" > "$log" 2>&1
    rc=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    if [ $rc -eq 0 ]; then
        echo "fuzz: $target: ok, ${runs:-?} inputs at ${speed:-?} exec/s, $cov"
    else
        status=1
        echo "fuzz: $target: FAILED (exit $rc) after ${runs:-?} inputs; input(s) in $artifacts/:" >&2
        ls "$artifacts" >&2
        grep -E "ERROR|SUMMARY|runtime failure|Fatal error|#[0-9]+ 0x.* in \\$" "$log" | head -20 >&2 || true
        echo "fuzz: reproduce with: $binary $artifacts/<file>" >&2
    fi
done
exit $status
