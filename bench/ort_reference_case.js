// Writes an ONNX backend-test case whose expected outputs are ONNX
// Runtime's (CPU, one thread), so that `tessera onnx-test` judges a real
// model against an independent engine:
//
//   node ort_reference_case.js MODEL.onnx CASE_DIR [--inputs DIR] [--seed N] [--scale S]
//                              [--input-shape NAME=D0,D1,...]... [--value NAME=V0,V1,...]...
//
// CASE_DIR/model.onnx is a symlink to MODEL; CASE_DIR/test_data_set_0 gets
// input_K.pb for every graph input that is not an initializer, in graph
// order, and output_K.pb from ORT. Inputs come from --inputs DIR
// (input_K.pb by position, as bench/third_party_models.js writes them),
// else --value NAME=... (e.g. a sample rate), else uniform in [-scale,
// scale) from make_onnx_models.js's generator (seeded: reproducible).
// Dynamic dimensions are 1 unless --input-shape gives them.
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');
const ort = require('onnxruntime-node');
const { weights, ONNX_PROTO } = require('./make_onnx_models.js');

const TYPES = {
  1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
};

function parseArgs(argv) {
  const a = { seed: 1, scale: 1, shapes: new Map(), values: new Map(), rest: [] };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    const pair = (flag) => {
      const eq = flag.indexOf('=');
      if (eq <= 0) throw new Error(`${k} wants NAME=V0,V1,..., not '${flag}'`);
      return [flag.slice(0, eq), flag.slice(eq + 1).split(',').map(Number)];
    };
    if (k === '--input-shape') a.shapes.set(...pair(argv[++i]));
    else if (k === '--value') a.values.set(...pair(argv[++i]));
    else if (['--inputs', '--seed', '--scale'].includes(k)) a[k.slice(2)] = argv[++i];
    else a.rest.push(k);
  }
  if (a.rest.length !== 2) throw new Error('usage: node ort_reference_case.js MODEL.onnx CASE_DIR [flags]');
  a.seed = Number(a.seed);
  a.scale = Number(a.scale);
  return a;
}

function tensorOf(TensorProto, bytes) {
  const t = TensorProto.decode(bytes);
  const [type, Array] = TYPES[t.dataType] || [];
  if (!type) throw new Error(`dtype ${t.dataType} unsupported here`);
  const raw = t.rawData;
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
  return new ort.Tensor(type, new Array(buf), t.dims.map(Number));
}

function protoOf(name, tensor) {
  const code = Number(Object.keys(TYPES).find((c) => TYPES[c][0] === tensor.type));
  const data = tensor.data;
  return { name, dims: tensor.dims, dataType: code, rawData: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const [modelFile, caseDir] = a.rest.map((p) => path.resolve(p));
  const root = await protobuf.load(ONNX_PROTO);
  const TensorProto = root.lookupType('onnx.TensorProto');
  const model = root.lookupType('onnx.ModelProto').decode(fs.readFileSync(modelFile));
  const inits = new Set(model.graph.initializer.map((t) => t.name));
  const graphInputs = model.graph.input.filter((i) => !inits.has(i.name));
  const files = a.inputs ? fs.readdirSync(a.inputs).filter((f) => /^input_\d+\.pb$/.test(f)).sort(
    (x, y) => Number(x.match(/\d+/)[0]) - Number(y.match(/\d+/)[0])) : [];
  const feeds = {};
  let fileIndex = 0, seed = a.seed;
  for (const input of graphInputs) {
    const tt = input.type.tensorType;
    const [type, Array] = TYPES[tt.elemType] || [];
    if (!type) throw new Error(`input '${input.name}': dtype ${tt.elemType} unsupported here`);
    const dims = a.shapes.get(input.name) ||
        tt.shape.dim.map((d) => Math.max(1, d.dimValue && typeof d.dimValue === 'object' ? d.dimValue.toNumber() : Number(d.dimValue || 0)));
    const count = dims.reduce((x, y) => x * y, 1);
    if (a.values.has(input.name)) {
      const v = a.values.get(input.name);
      if (v.length !== count) throw new Error(`--value ${input.name}: ${v.length} values for ${count} elements`);
      feeds[input.name] = new ort.Tensor(type, type === 'int64' ? BigInt64Array.from(v.map(BigInt)) : Array.from(v), dims);
    } else if (fileIndex < files.length) {
      feeds[input.name] = tensorOf(TensorProto, fs.readFileSync(path.join(a.inputs, files[fileIndex++])));
    } else if (type === 'float32') {
      feeds[input.name] = new ort.Tensor(type, weights(seed++, count, a.scale), dims);
    } else {
      throw new Error(`input '${input.name}' (${type}) needs --value or --inputs`);
    }
  }
  const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };
  const session = await ort.InferenceSession.create(modelFile, options);
  const results = await session.run(feeds);
  const set = path.join(caseDir, 'test_data_set_0');
  fs.rmSync(caseDir, { recursive: true, force: true });
  fs.mkdirSync(set, { recursive: true });
  fs.symlinkSync(modelFile, path.join(caseDir, 'model.onnx'));
  graphInputs.forEach((input, i) => fs.writeFileSync(path.join(set, `input_${i}.pb`),
      TensorProto.encode(TensorProto.fromObject(protoOf(input.name, feeds[input.name]))).finish()));
  session.outputNames.forEach((name, i) => fs.writeFileSync(path.join(set, `output_${i}.pb`),
      TensorProto.encode(TensorProto.fromObject(protoOf(name, results[name]))).finish()));
  console.log(`${caseDir}: ${graphInputs.length} inputs, ${session.outputNames.length} outputs`);
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
