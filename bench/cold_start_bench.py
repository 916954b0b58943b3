#!/usr/bin/env python3
"""Process start to first result, in fresh processes
(docs/benchmarks.md "Compile cache and cold start"), for the attention-RoPE
demo model. Each case starts `tessera run ... --random` and stops the clock
at the first byte of its stdout: the text report is printed and flushed
right after the first run, before the process waits for anything else
(with --warmup background, for its worker; `--json` would wait for it
first). Median of REPS runs.

    python3 bench/cold_start_bench.py [BUILD_DIR] [REPS] [ACCELERATORS] [MODEL] [SOC]
                                      (default: build 7 npu,cpu attention ref-phone)

MODEL is a demo model's name (attention, mlp, cnn) or a .tsr file with
static shapes (e.g. `tessera import ocr_rec.onnx -o rec.tsr --input-shape
x=1,3,48,320`).

The "tuned" cases add --option systolic_npu.tune=search (the NPU compiler's
layer search, compiler/layer_tuner.h): the compile work AOT pays once and
JIT at every start.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
ACCELERATORS = sys.argv[3] if len(sys.argv) > 3 else "npu,cpu"
MODEL = sys.argv[4] if len(sys.argv) > 4 else "attention"
SOC = sys.argv[5] if len(sys.argv) > 5 else "ref-phone"
TESSERA = os.path.join(BUILD, "bin", "tessera")
# greedy: the NPU gets every op it claims, so its compile is in the figures
COMPILE = ["--accelerators", ACCELERATORS, "--policy", "greedy", "--soc", SOC]
TUNED = COMPILE + ["--option", "systolic_npu.tune=search"]


def first_result_ms(args):
    start = time.perf_counter()
    p = subprocess.Popen([TESSERA] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = p.stdout.read(1)
    elapsed = (time.perf_counter() - start) * 1000
    p.stdout.read()
    if p.wait() != 0 or not first:
        raise SystemExit("failed: tessera " + " ".join(args))
    return elapsed


def main():
    work = tempfile.mkdtemp(prefix="tessera_cold_start_")
    model = os.path.join(work, "model.tsr")
    aot = os.path.join(work, "model.aot.tsr")
    aot_tuned = os.path.join(work, "model.aot.tuned.tsr")
    cache = os.path.join(work, "cache")
    if MODEL.endswith(".tsr"):
        shutil.copyfile(MODEL, model)
    else:
        subprocess.run([TESSERA, "demo", "--model", MODEL, "--accelerators", "cpu", "--save-model", model],
                       check=True, stdout=subprocess.DEVNULL)
    subprocess.run([TESSERA, "compile", model, "-o", aot] + COMPILE, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([TESSERA, "compile", model, "-o", aot_tuned] + TUNED, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([TESSERA, "run", model, "--random", "--cache-dir", cache] + COMPILE, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warms the cache
    cases = [
        ("AOT (compiled .tsr, dispatch libraries only)", ["run", aot, "--random"]),
        ("AOT + warm compile cache", ["run", model, "--random", "--cache-dir", cache] + COMPILE),
        ("AOT, compiled at load (no cache)", ["run", model, "--random"] + COMPILE),
        ("JIT", ["run", model, "--random", "--mode", "jit"] + COMPILE),
        ("JIT + --warmup background", ["run", model, "--random", "--mode", "jit", "--warmup", "background"]
         + COMPILE),
        ("AOT, tuned (compiled .tsr)", ["run", aot_tuned, "--random"]),
        ("JIT, tuned", ["run", model, "--random", "--mode", "jit"] + TUNED),
        ("JIT, tuned + --warmup background", ["run", model, "--random", "--mode", "jit", "--warmup", "background"]
         + TUNED),
    ]
    print("| case | first result, median ms | min ms |")
    print("|---|---|---|")
    for name, args in cases:
        t = [first_result_ms(args) for _ in range(REPS)]
        print(f"| {name} | {statistics.median(t):.1f} | {min(t):.1f} |")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
