// The ONNX Runtime (CPU) side of the benchmark: the same protocol as
// `tessera bench` (warm-up runs, then REPS timed runs of one inference each)
// and the same JSON fields.
//
//   node ort_bench.js MODEL.onnx [--inputs DIR] [--reps N] [--warmup N]
//                     [--threads N] [--outputs DIR] [--compare DIR] [--json]
//                     [--freeze-input NAME=V,...]...
//
// --inputs DIR reads DIR/input_<i>.pb, matched by position to the graph
// inputs that are not frozen (as `tessera run/bench --inputs` does).
// --freeze-input NAME=V,... feeds that input the given values (its dtype and
// shape from the model; `tessera` takes the same flag and makes the input a
// constant), e.g. `--freeze-input sr=16000` for Silero VAD's sample rate.
//
// --compare DIR reads DIR/output_<i>.pb (e.g. from `tessera run --outputs`)
// and reports the largest absolute difference from ORT's outputs, and that
// difference relative to the largest |ORT output| (a per-element relative
// difference would blow up on outputs that happen to be near zero).
//
// Sessions are single-threaded by default (intraOpNumThreads = interOpNumThreads
// = 1, sequential execution) with every graph optimization enabled.
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');
const ort = require('onnxruntime-node');

const ONNX_PROTO = process.env.ONNX_PROTO || '/usr/include/onnx/onnx.proto';
const ELEM = { 1: 'float32', 6: 'int32', 7: 'int64', 9: 'bool', 3: 'int8', 2: 'uint8' };
const ARRAY = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, int8: Int8Array, uint8: Uint8Array };

function parseArgs(argv) {
  const a = { reps: 100, warmup: 10, threads: 1, json: false, freeze: new Map() };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    if (k === '--json') a.json = true;
    else if (k === '--freeze-input') {
      const flag = argv[++i] || '';
      const eq = flag.indexOf('=');
      if (eq <= 0) throw new Error(`--freeze-input wants NAME=V,..., not '${flag}'`);
      a.freeze.set(flag.slice(0, eq), flag.slice(eq + 1).split(','));
    }
    else if (['--inputs', '--outputs', '--compare', '--reps', '--warmup', '--threads'].includes(k)) a[k.slice(2)] = argv[++i];
    else if (!a.model) a.model = k;
    else throw new Error(`unexpected argument ${k}`);
  }
  if (!a.model) throw new Error('usage: node ort_bench.js MODEL.onnx [--inputs DIR] [--reps N] [--warmup N] [--threads N] [--json]');
  a.reps = Number(a.reps); a.warmup = Number(a.warmup); a.threads = Number(a.threads);
  return a;
}

function tensorFromProto(TensorProto, bytes) {
  const t = TensorProto.decode(bytes);
  const type = ELEM[t.dataType];
  if (!type) throw new Error(`input dtype ${t.dataType} unsupported here`);
  const dims = t.dims.map(Number);
  const raw = t.rawData;
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
  return new ort.Tensor(type, new ARRAY[type](buf), dims);
}

function frozenTensor(meta, values) {
  if (!meta.shape.every((d) => typeof d === 'number')) throw new Error(`--freeze-input ${meta.name}: the input's shape is not static`);
  const n = meta.shape.reduce((x, y) => x * y, 1);
  if (values.length !== n) throw new Error(`--freeze-input ${meta.name}: ${values.length} value(s) for ${n} element(s)`);
  const type = meta.type;
  if (!ARRAY[type]) throw new Error(`--freeze-input ${meta.name}: dtype ${type} unsupported here`);
  const parse = type === 'int64' ? (v) => BigInt(v) : (v) => Number(v);
  return new ort.Tensor(type, ARRAY[type].from(values.map(parse)), meta.shape);
}

function randomTensor(meta) {
  const dims = meta.shape.map((d) => (typeof d === 'number' ? d : 1));
  const n = dims.reduce((x, y) => x * y, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = Math.sin(i);
  return new ort.Tensor('float32', data, dims);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const root = await protobuf.load(ONNX_PROTO);
  const TensorProto = root.lookupType('onnx.TensorProto');
  const session = await ort.InferenceSession.create(a.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const name of a.freeze.keys()) {
    if (!session.inputNames.includes(name)) throw new Error(`--freeze-input names '${name}', which is not a graph input`);
  }
  let file = 0;
  session.inputNames.forEach((name, i) => {
    if (a.freeze.has(name)) {
      feeds[name] = frozenTensor(session.inputMetadata[i], a.freeze.get(name));
    } else if (a.inputs) {
      feeds[name] = tensorFromProto(TensorProto, fs.readFileSync(path.join(a.inputs, `input_${file++}.pb`)));
    } else {
      feeds[name] = randomTensor(session.inputMetadata[i]);
    }
  });
  let out = null;
  for (let i = 0; i < a.warmup; ++i) out = await session.run(feeds);
  const times = [];
  for (let i = 0; i < a.reps; ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  if (a.outputs) {
    fs.mkdirSync(a.outputs, { recursive: true });
    session.outputNames.forEach((name, i) => {
      const t = out[name];
      const proto = { name, dims: t.dims, dataType: 1, rawData: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength) };
      fs.writeFileSync(path.join(a.outputs, `output_${i}.pb`), TensorProto.encode(TensorProto.fromObject(proto)).finish());
    });
  }
  let maxAbsDiff = null, maxAbsOutput = 0;
  if (a.compare) {
    maxAbsDiff = 0;
    session.outputNames.forEach((name, i) => {
      const theirs = tensorFromProto(TensorProto, fs.readFileSync(path.join(a.compare, `output_${i}.pb`)));
      const ours = out[name];
      if (theirs.data.length !== ours.data.length) throw new Error(`output ${i}: ${theirs.data.length} vs ${ours.data.length} elements`);
      for (let j = 0; j < ours.data.length; ++j) {
        maxAbsDiff = Math.max(maxAbsDiff, Math.abs(Number(ours.data[j]) - Number(theirs.data[j])));
        maxAbsOutput = Math.max(maxAbsOutput, Math.abs(Number(ours.data[j])));
      }
    });
  }
  const sorted = [...times].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const result = {
    model: a.model,
    engine: `onnxruntime-node ${ort.env.versions.common} (cpu)`,
    threads: a.threads,
    reps: a.reps,
    warmup: a.warmup,
    latency_us_min: sorted[0],
    latency_us_median: median,
    latency_us_mean: times.reduce((x, y) => x + y, 0) / times.length,
  };
  if (maxAbsDiff !== null) {
    result.max_abs_diff_vs_compare = maxAbsDiff;
    result.max_rel_diff_vs_compare = maxAbsOutput > 0 ? maxAbsDiff / maxAbsOutput : maxAbsDiff;
  }
  if (a.json) console.log(JSON.stringify(result));
  else console.log(`${path.basename(a.model)}: min ${result.latency_us_min.toFixed(1)} us, median ${median.toFixed(1)} us, mean ${result.latency_us_mean.toFixed(1)} us over ${a.reps} runs (${a.warmup} warm-up), ${result.engine}, ${a.threads} thread(s)`);
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
