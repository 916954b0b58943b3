#!/usr/bin/env bash
# Load time and peak memory against weight bytes
# (docs/benchmarks.md "Compile cache and cold start"). For each size: an
# ONNX model of one MatMul with SIZE MB of f32 weights (make_weight_model.py,
# written to $TMP, never committed), then in fresh processes:
#   import    tessera import  M.onnx -o M.tsr                (wall s, peak RSS)
#   compile   tessera compile M.tsr -o M.aot.tsr --accelerators cpu
#   load      tessera inspect M.tsr / M.aot.tsr, best of 3 (wall seconds from
#             bash's EPOCHREALTIME, ms resolution): at the default --verify
#             structure (tables CRC, ranges, bytecode envelopes) and at
#             --verify full (also the data segment's CRC); "n/a" when the
#             binary has no --verify (a build from before it).
#
#   bench/weight_scaling_bench.sh [BUILD_DIR] [SIZES_MB...]     (default: build 10 100 1024)
set -euo pipefail
BUILD=${1:-build}
shift || true
SIZES=("${@:-10 100 1024}")
[ $# -eq 0 ] && SIZES=(10 100 1024)
T="$BUILD/bin/tessera"
TMP=${TMPDIR:-/tmp}/tessera_weight_bench
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$TMP"
measure() {  # prints "seconds peak_kb"
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$@" > /dev/null 2>&1
  cat "$TMP/time"
}
wall() {  # seconds, 3 decimals; "n/a" when the command fails
  local t0=$EPOCHREALTIME
  "$@" > /dev/null 2>&1 || { echo n/a; return; }
  local t1=$EPOCHREALTIME
  awk "BEGIN{printf \"%.3f\", $t1 - $t0}"
}
best_of_3() {
  local best=
  for _ in 1 2 3; do
    local s
    s=$(wall "$@")
    [ "$s" = n/a ] && { echo n/a; return; }
    if [ -z "$best" ] || awk "BEGIN{exit !($s < $best)}"; then best=$s; fi
  done
  echo "$best"
}
echo "| weights | import s | import peak RSS | compile s | compile peak RSS | load imported s | load compiled s | load imported, full s | load compiled, full s |"
echo "|---|---|---|---|---|---|---|---|---|"
for mb in "${SIZES[@]}"; do
  python3 "$HERE/make_weight_model.py" "$mb" "$TMP/m$mb.onnx"
  read -r is ik < <(measure "$T" import "$TMP/m$mb.onnx" -o "$TMP/m$mb.tsr")
  read -r cs ck < <(measure "$T" compile "$TMP/m$mb.tsr" -o "$TMP/m$mb.aot.tsr" --accelerators cpu)
  li=$(best_of_3 "$T" inspect "$TMP/m$mb.tsr")
  lc=$(best_of_3 "$T" inspect "$TMP/m$mb.aot.tsr")
  lif=$(best_of_3 "$T" inspect "$TMP/m$mb.tsr" --verify full)
  lcf=$(best_of_3 "$T" inspect "$TMP/m$mb.aot.tsr" --verify full)
  echo "| $mb MB | $is | $((ik / 1024)) MB | $cs | $((ck / 1024)) MB | $li | $lc | $lif | $lcf |"
  rm -f "$TMP/m$mb.onnx" "$TMP/m$mb.tsr" "$TMP/m$mb.aot.tsr"
done
