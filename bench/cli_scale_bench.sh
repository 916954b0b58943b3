#!/bin/sh
# The commands users run, at 10k, 100k and 1M ops (docs/benchmarks.md):
# `tessera import` of bench/make_chain_model.py's MatMul/Add/Sin chain, then
# `tessera partition` of the imported model. Prints, per command and size,
# the wall time, the CPU time (user + sys: what the command costs when
# other work shares the cores), the peak RSS, and the growth of each per
# decade of ops (10x the ops: linear is 10x, the target is <= 12x).
#
#   bench/cli_scale_bench.sh [--tessera BIN] [--baseline BIN] [--baseline-max N]
#                            [--sizes "10000 100000 1000000"]
#
# --baseline runs a second binary (e.g. an older build) right after the
# first at each size up to --baseline-max ops (default 10000: a quadratic
# import takes minutes past that), so that both see the same machine load.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tessera="$here/../build/bin/tessera"
baseline=""
baseline_max=10000
sizes="10000 100000 1000000"
while [ $# -gt 0 ]; do
  case "$1" in
    --tessera) tessera="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --baseline-max) baseline_max="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    *) echo "usage: $0 [--tessera BIN] [--baseline BIN] [--baseline-max N] [--sizes \"N...\"]" >&2; exit 2 ;;
  esac
done
[ -x "$tessera" ] || { echo "no tessera binary at $tessera (build target tessera)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The chain has one tensor per op: a 1M-op model is over the default
# max_tensor_count (1,000,000) before the optimizer runs.
budget="--budget max_tensor_count=4000000 --budget max_op_count=4000000"

# measure LABEL N PREV_CPU -- COMMAND...: one line of figures; sets $cpu.
measure() {
  m_label=$1 m_n=$2 m_prev=$3
  shift 4
  if ! /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" > "$dir/out" 2> "$dir/err"; then
    echo "$m_label $m_n: failed: $(tail -n 1 "$dir/err")"
    cpu=""
    return
  fi
  read -r wall user sys rss_kb < "$dir/time"
  cpu=$(echo "$user + $sys" | bc)
  growth=$( [ -n "$m_prev" ] && echo "scale=1; $cpu / $m_prev" | bc || echo "-")
  printf '%-22s %8s ops  wall %7.2f s  cpu %7.2f s  rss %6d MB  cpu growth/decade %sx\n' \
    "$m_label" "$m_n" "$wall" "$cpu" $((rss_kb / 1024)) "$growth"
}

# run LABEL BIN N: import then partition at N ops; growth against the
# label's previous size (kept in prev_<command>_<label>).
run() {
  label=$1 bin=$2 n=$3
  [ -f "$dir/chain_$n.onnx" ] || python3 "$here/make_chain_model.py" "$n" "$dir/chain_$n.onnx"
  eval "prev=\${prev_import_$label:-}"
  measure "$label import" "$n" "$prev" -- "$bin" import "$dir/chain_$n.onnx" -o "$dir/chain_$n.$label.tsr" $budget
  eval "prev_import_$label=\$cpu"
  [ -f "$dir/chain_$n.$label.tsr" ] || return 0
  eval "prev=\${prev_partition_$label:-}"
  measure "$label partition" "$n" "$prev" -- \
    "$bin" partition "$dir/chain_$n.$label.tsr" --accelerators npu,cpu --json $budget
  eval "prev_partition_$label=\$cpu"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $sizes; do
  run tessera "$tessera" "$n"
  if [ -n "$baseline" ] && [ "$n" -le "$baseline_max" ]; then run baseline "$baseline" "$n"; fi
done
