#!/bin/sh
# `tessera import --json` reports the optimizations; --no-optimize runs none
# but constant folding (docs/onnx_import.md#optimizations). The model is a
# lone BatchNormalization: optimized, its DIV by the constant standard
# deviation becomes a MUL; as written, the DIV stays.
# Usage: import_optimize_cli.sh TESSERA TESTDATA_DIR OUT_DIR (exit 77: no data).
tessera=$1
model=$2/pytorch-converted/test_BatchNorm2d_eval/model.onnx
out=$3/bn.tsr
[ -f "$model" ] || exit 77
fail() { echo "FAIL: $*"; exit 1; }

j=$("$tessera" import "$model" -o "$out" --json) || fail "import: $j"
echo "$j" | grep -q '"optimized":true' || fail "no \"optimized\":true in $j"
echo "$j" | grep -q '{"pass":"div_to_mul","changed":1,"ops_removed":0}' || fail "div_to_mul not reported in $j"
"$tessera" inspect "$out" | grep -q 'MUL  *x2' || fail "optimized graph lacks its two MULs"
"$tessera" inspect "$out" | grep -q 'DIV' && fail "optimized graph still divides"

j=$("$tessera" import "$model" -o "$out" --json --no-optimize) || fail "import --no-optimize: $j"
echo "$j" | grep -q '"optimized":false,"optimizations":\[{"pass":"constant_folding","changed":6,"ops_removed":6}\]' ||
  fail "--no-optimize should report constant folding only: $j"
"$tessera" inspect "$out" | grep -q 'DIV  *x1' || fail "--no-optimize lost the DIV"
echo "import optimizations: ok"
