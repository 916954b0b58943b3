#!/usr/bin/env python3
"""What the NPU's layer tuner (--option systolic_npu.tune=search,
docs/systolic_npu_isa.md "Layer tuning") buys and costs, per model and SoC:
the NPU partitions' cycles as the run measured them (`tessera run --json`,
sum of cycles_total over the systolic_npu partitions) with the rule's tiling
and with the search, and the wall time of `tessera compile` both ways (fresh
processes, median of REPS). --policy greedy, so the NPU gets every op it
claims. Figures go to docs/benchmarks.md, "Layer tuning".

    python3 bench/layer_tuning_bench.py [BUILD_DIR] [REPS]     (default: build 3)

Models: the demo models (attention, mlp, cnn) and, when bench/run_benchmarks.sh
has written them to BUILD_DIR/bench-models, decoder and the PaddleOCR models.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
TESSERA = os.path.join(BUILD, "bin", "tessera")
BENCH_MODELS = os.path.join(BUILD, "bench-models")
SOCS = ["ref-phone", "ref-edge"]
THIRD_PARTY = [("decoder", []), ("ocr_cls", ["--input-shape", "x=1,3,48,192"]),
               ("ocr_rec", ["--input-shape", "x=1,3,48,320"]), ("ocr_det", ["--input-shape", "x=1,3,320,320"])]


def npu_cycles(model, flags):
    out = subprocess.run([TESSERA, "run", model, "--random", "--seed", "1", "--json"] + flags,
                         check=True, capture_output=True, text=True).stdout
    parts = json.loads(out)["partitions"]
    return sum(p["metrics"]["cycles_total"] for p in parts if p["vendor"] == "systolic_npu")


def compile_ms(model, flags, work):
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        subprocess.run([TESSERA, "compile", model, "-o", os.path.join(work, "out.tsr")] + flags, check=True,
                       stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    work = tempfile.mkdtemp(prefix="tessera_tuning_")
    models = []
    for name in ["attention", "mlp", "cnn"]:
        path = os.path.join(work, name + ".tsr")
        subprocess.run([TESSERA, "demo", "--model", name, "--accelerators", "cpu", "--save-model", path],
                       check=True, stdout=subprocess.DEVNULL)
        models.append((name, path, []))
    for name, shape in THIRD_PARTY:
        path = os.path.join(BENCH_MODELS, name + ".onnx")
        if os.path.exists(path):
            models.append((name, path, shape))
    print("| model | SoC | NPU cycles, rule | tuned | gain | compile ms, rule | tuned |")
    print("|---|---|---|---|---|---|---|")
    for name, path, shape in models:
        for soc in SOCS:
            base = ["--accelerators", "npu,cpu", "--policy", "greedy", "--soc", soc] + shape
            tuned = base + ["--option", "systolic_npu.tune=search"]
            rule_c, tuned_c = npu_cycles(path, base), npu_cycles(path, tuned)
            gain = rule_c / tuned_c if tuned_c else float("nan")
            print(f"| {name} | {soc} | {rule_c} | {tuned_c} | {gain:.2f}x | "
                  f"{compile_ms(path, base, work):.1f} | {compile_ms(path, tuned, work):.1f} |", flush=True)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
