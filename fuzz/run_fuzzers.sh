#!/usr/bin/env bash
# Builds the libFuzzer targets (clang++-14, ASan+UBSan) into build-fuzz/ and
# runs each for a set time, one after another (one core each: the machine
# is shared), then prints executions and crashes per target.
#   fuzz/run_fuzzers.sh [SECONDS_PER_TARGET] [TARGET...]      (default 60 s, every target)
#   RUNS=1000000 fuzz/run_fuzzers.sh 3600 tensor_proto        (stop at 1M executions or the time)
# The checked-in corpus is only read: each target grows a working copy in
# build-fuzz/fuzz-work/<target>/corpus. Crashing inputs land in
# build-fuzz/fuzz-work/<target>/artifacts/; once fixed, copy one into
# fuzz/regressions/<target>/ so ctest replays it on every build.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
ALL="tsr_model onnx_import bytecode_verify cpu_dispatch_load npu_dispatch_load soc_parse tensor_proto"
TARGETS=${*:-$ALL}
BUILD=build-fuzz

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
# shellcheck disable=SC2046
cmake --build "$BUILD" -j2 --target $(for t in $TARGETS; do echo "fuzz_$t"; done)

declare -A EXECS CRASHES SLOW TIME
for t in $TARGETS; do
  work="$BUILD/fuzz-work/$t"
  mkdir -p "$work/corpus" "$work/artifacts"
  log="$work/last.log"
  start=$(date +%s)
  # -rss_limit_mb: an input that needs more memory than this is a finding
  # (the budgets should refuse it first); -timeout likewise.
  set +e
  "$BUILD/bin/fuzz_$t" "$work/corpus" "fuzz/corpus/$t" \
    -max_total_time="$SECONDS_PER_TARGET" ${RUNS:+-runs=$RUNS} -rss_limit_mb=2048 -timeout=30 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$log" 2>&1
  rc=$?
  set -e
  TIME[$t]=$(( $(date +%s) - start ))
  EXECS[$t]=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # Findings are crash-, timeout-, oom- and leak- files; a slow-unit- file
  # (an input over 10 s, often only a loaded machine) is counted apart.
  CRASHES[$t]=$(find "$work/artifacts" -type f -newermt "@$start" \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  SLOW[$t]=$(find "$work/artifacts" -type f -newermt "@$start" -name 'slow-unit-*' | wc -l)
  [ "$rc" -ne 0 ] && echo "fuzz_$t exited $rc: see $log" >&2
done

printf '%-20s %12s %8s %8s %10s\n' target executions seconds crashes slow_units
for t in $TARGETS; do
  printf '%-20s %12s %8s %8s %10s\n' "$t" "${EXECS[$t]:-?}" "${TIME[$t]}" "${CRASHES[$t]}" "${SLOW[$t]}"
done
