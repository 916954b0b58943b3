// Writes the benchmark models as ONNX files (and one input set each, in the
// ONNX test layout: DIR/input_0.pb) with deterministic weights, using
// protobufjs and the onnx.proto Debian ships (/usr/include/onnx/onnx.proto).
//
//   node make_onnx_models.js [OUT_DIR]        (default: bench/models)
//
// Models (single input x, single output y):
//   mlp        x [64, 1024] -> 4 x Gemm 1024x1024 (+bias), ReLU after each
//   cnn        x [1, 3, 32, 32] -> Conv 3x3 (32) + ReLU -> MaxPool 2x2
//              -> depthwise Conv 3x3 (32) + ReLU -> Conv 1x1 (64) + ReLU
//              -> GlobalAveragePool -> Flatten -> Gemm (10)
//   attention  the attention + RoPE block of `tessera demo`
//              (framework/cli/demo_model.cc), seq 128, model dim 256, 4 heads
//   tiny       x [1, 64] -> Relu: one op, shows the per-run overhead
//   decoder    a transformer decoder MLP block as PyTorch exports it at
//              opset 17 from a hand-written LayerNorm and tanh-GELU (the
//              HF "NewGELU"): x [1, 64, 512] -> LayerNorm decomposed into
//              ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add -> MatMul
//              + Add (512 -> 2048) -> 0.5 x (1 + tanh(sqrt(2/pi) (x +
//              0.044715 x^3))) as Pow/Mul/Add/Mul/Tanh/Add/Mul/Mul ->
//              MatMul + Add (2048 -> 512) -> residual Add: 22 ops
//
// Weights come from a 32-bit xorshift generator whose values are exact in
// f32 (k / 2^24 scaled by a power of two), so any other tool can reproduce
// them bit for bit.
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');

const ONNX_PROTO = process.env.ONNX_PROTO || '/usr/include/onnx/onnx.proto';
const FLOAT = 1;
const BOOL = 9;
const INT64 = 7;

function xorshift(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s;
  };
}

// n values uniform in [-scale, scale), scale a power of two.
function weights(seed, n, scale) {
  const next = xorshift(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = ((next() >>> 8) / 16777216 * 2 - 1) * scale;
  return out;
}

class GraphBuilder {
  constructor(name) {
    this.name = name;
    this.nodes = [];
    this.initializers = [];
    this.inputs = [];
    this.outputs = [];
    this.counter = 0;
  }
  fresh(prefix) { return `${prefix}_${this.counter++}`; }
  input(name, shape) { this.inputs.push(valueInfo(name, FLOAT, shape)); return name; }
  output(name, shape) { this.outputs.push(valueInfo(name, FLOAT, shape)); }
  floats(name, dims, values) {
    this.initializers.push({ name, dims, dataType: FLOAT, rawData: Buffer.from(new Float32Array(values).buffer) });
    return name;
  }
  ints(name, values) {
    this.initializers.push({ name, dims: [values.length], dataType: INT64,
                             rawData: Buffer.from(new BigInt64Array(values.map(BigInt)).buffer) });
    return name;
  }
  bools(name, dims, values) {
    this.initializers.push({ name, dims, dataType: BOOL, rawData: Buffer.from(Uint8Array.from(values)) });
    return name;
  }
  node(opType, inputs, attrs = {}, output = null) {
    const out = output || this.fresh(opType.toLowerCase());
    const attribute = Object.entries(attrs).map(([name, v]) => attr(name, v));
    this.nodes.push({ opType, input: inputs, output: [out], name: this.fresh('n'), attribute });
    return out;
  }
  graph() {
    return { name: this.name, node: this.nodes, initializer: this.initializers, input: this.inputs, output: this.outputs };
  }
}

function valueInfo(name, elemType, shape) {
  return { name, type: { tensorType: { elemType, shape: { dim: shape.map((d) => ({ dimValue: d })) } } } };
}

// AttributeProto.AttributeType: FLOAT 1, INT 2, INTS 7.
function attr(name, v) {
  if (Array.isArray(v)) return { name, type: 7, ints: v };
  if (Number.isInteger(v)) return { name, type: 2, i: v };
  return { name, type: 1, f: v };
}

function mlp() {
  const g = new GraphBuilder('mlp');
  const B = 64, D = 1024;
  let t = g.input('x', [B, D]);
  for (let l = 0; l < 4; ++l) {
    const w = g.floats(`fc${l}.weight`, [D, D], weights(100 + l, D * D, 1 / 32));
    const b = g.floats(`fc${l}.bias`, [D], weights(200 + l, D, 1 / 64));
    t = g.node('Gemm', [t, w, b], { transB: 1 });
    t = g.node('Relu', [t], {}, l === 3 ? 'y' : null);
  }
  g.output('y', [B, D]);
  return { graph: g.graph(), input: { name: 'x', dims: [B, D], data: weights(7, B * D, 1) } };
}

function cnn() {
  const g = new GraphBuilder('cnn');
  let t = g.input('x', [1, 3, 32, 32]);
  t = g.node('Conv', [t, g.floats('conv1.weight', [32, 3, 3, 3], weights(301, 32 * 27, 1 / 4)),
                      g.floats('conv1.bias', [32], weights(302, 32, 1 / 16))],
             { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  t = g.node('Relu', [t]);
  t = g.node('MaxPool', [t], { kernel_shape: [2, 2], strides: [2, 2] });
  t = g.node('Conv', [t, g.floats('dw.weight', [32, 1, 3, 3], weights(303, 32 * 9, 1 / 2)),
                      g.floats('dw.bias', [32], weights(304, 32, 1 / 16))],
             { kernel_shape: [3, 3], pads: [1, 1, 1, 1], group: 32 });
  t = g.node('Relu', [t]);
  t = g.node('Conv', [t, g.floats('pw.weight', [64, 32, 1, 1], weights(305, 64 * 32, 1 / 8)),
                      g.floats('pw.bias', [64], weights(306, 64, 1 / 16))],
             { kernel_shape: [1, 1] });
  t = g.node('Relu', [t]);
  t = g.node('GlobalAveragePool', [t]);
  t = g.node('Flatten', [t], { axis: 1 });
  g.node('Gemm', [t, g.floats('fc.weight', [10, 64], weights(307, 640, 1 / 8)),
                  g.floats('fc.bias', [10], weights(308, 10, 1 / 16))], { transB: 1 }, 'y');
  g.output('y', [1, 10]);
  return { graph: g.graph(), input: { name: 'x', dims: [1, 3, 32, 32], data: weights(8, 3 * 32 * 32, 1) } };
}

// The `tessera demo` block (framework/cli/demo_model.cc), op for op.
function attention(S = 128, D = 256, H = 4) {
  const g = new GraphBuilder('attention_rope');
  const Dh = D / H, half = Dh / 2;
  const x = g.input('x', [S, D]);
  let seed = 400;
  const dense = (name, input, out = null) =>
    g.node('Gemm', [input, g.floats(`${name}.weight`, [D, D], weights(seed++, D * D, 1 / 16)),
                    g.floats(`${name}.bias`, [D], weights(seed++, D, 1 / 64))], { transB: 1 }, out);
  const heads = (t) => g.node('Transpose', [g.node('Reshape', [t, g.ints(g.fresh('shape'), [S, H, Dh])])],
                              { perm: [1, 0, 2] });
  const positions = [], invFreq = [];
  for (let p = 0; p < S; ++p) positions.push(p);
  for (let i = 0; i < half; ++i) invFreq.push(Math.fround(Math.pow(10000, -2 * i / Dh)));
  const theta = g.node('Mul', [g.floats('rope.positions', [S, 1], positions), g.floats('rope.inv_freq', [1, half], invFreq)]);
  const cos = g.node('Cos', [theta]);
  const sin = g.node('Sin', [theta]);
  const sliceAxes = g.ints('rope.axes', [2]);
  const s0 = g.ints('rope.s0', [0]), s1 = g.ints('rope.s1', [half]), s2 = g.ints('rope.s2', [Dh]);
  const rope = (t) => {
    const t1 = g.node('Slice', [t, s0, s1, sliceAxes]);
    const t2 = g.node('Slice', [t, s1, s2, sliceAxes]);
    const a = g.node('Sub', [g.node('Mul', [t1, cos]), g.node('Mul', [t2, sin])]);
    const c = g.node('Add', [g.node('Mul', [t1, sin]), g.node('Mul', [t2, cos])]);
    return g.node('Concat', [a, c], { axis: 2 });
  };
  const q = rope(heads(dense('q_proj', x)));
  const k = rope(heads(dense('k_proj', x)));
  const v = heads(dense('v_proj', x));
  const kt = g.node('Transpose', [k], { perm: [0, 2, 1] });
  const scores = g.node('MatMul', [q, kt]);
  const scaled = g.node('Mul', [scores, g.floats('attn.scale', [1], [Math.fround(1 / Math.sqrt(Dh))])]);
  const mask = [];
  for (let i = 0; i < S; ++i) for (let j = 0; j < S; ++j) mask.push(j <= i ? 1 : 0);
  const masked = g.node('Where', [g.bools('attn.causal_mask', [S, S], mask), scaled,
                                  g.floats('attn.masked_value', [1], [-1e9])]);
  const probs = g.node('Softmax', [masked], { axis: -1 });
  const ctx = g.node('MatMul', [probs, v]);
  const merged = g.node('Reshape', [g.node('Transpose', [ctx], { perm: [1, 0, 2] }), g.ints('merge.shape', [S, D])]);
  dense('o_proj', merged, 'y');
  g.output('y', [S, D]);
  return { graph: g.graph(), input: { name: 'x', dims: [S, D], data: weights(9, S * D, 1) } };
}

// nn.Linear on a 3-D input exports as MatMul (weight transposed, [in, out])
// + Add; scalar constants export as 0-d initializers.
function decoder(S = 64, D = 512, H = 2048) {
  const g = new GraphBuilder('decoder_mlp');
  const x = g.input('x', [1, S, D]);
  const scalar = (name, v) => g.floats(name, [], [Math.fround(v)]);
  const axes = { axes: [-1] };
  const mean = g.node('ReduceMean', [x], axes);
  const centered = g.node('Sub', [x, mean]);
  const variance = g.node('ReduceMean', [g.node('Pow', [centered, scalar('ln.two', 2)])], axes);
  const std = g.node('Sqrt', [g.node('Add', [variance, scalar('ln.eps', 1e-5)])]);
  const normed = g.node('Add', [g.node('Mul', [g.node('Div', [centered, std]), g.floats('ln.weight', [D], weights(501, D, 1))]),
                                g.floats('ln.bias', [D], weights(502, D, 1 / 8))]);
  const linear = (name, input, k, n, seed, scale) =>
    g.node('Add', [g.node('MatMul', [input, g.floats(`${name}.weight`, [k, n], weights(seed, k * n, scale))]),
                   g.floats(`${name}.bias`, [n], weights(seed + 1, n, 1 / 64))]);
  const h = linear('fc1', normed, D, H, 503, 1 / 16);
  const inner = g.node('Mul', [scalar('gelu.sqrt_2_over_pi', Math.sqrt(2 / Math.PI)),
                               g.node('Add', [h, g.node('Mul', [scalar('gelu.c', 0.044715),
                                                                g.node('Pow', [h, scalar('gelu.three', 3)])])])]);
  const gelu = g.node('Mul', [g.node('Mul', [scalar('gelu.half', 0.5), h]),
                              g.node('Add', [scalar('gelu.one', 1), g.node('Tanh', [inner])])]);
  g.node('Add', [x, linear('fc2', gelu, H, D, 505, 1 / 32)], {}, 'y');
  g.output('y', [1, S, D]);
  return { graph: g.graph(), input: { name: 'x', dims: [1, S, D], data: weights(11, S * D, 1) } };
}

function tiny() {
  const g = new GraphBuilder('tiny');
  g.node('Relu', [g.input('x', [1, 64])], {}, 'y');
  g.output('y', [1, 64]);
  return { graph: g.graph(), input: { name: 'x', dims: [1, 64], data: weights(10, 64, 1) } };
}

async function main() {
  const outDir = path.resolve(process.argv[2] || path.join(__dirname, 'models'));
  const root = await protobuf.load(ONNX_PROTO);
  const ModelProto = root.lookupType('onnx.ModelProto');
  const TensorProto = root.lookupType('onnx.TensorProto');
  fs.mkdirSync(outDir, { recursive: true });
  for (const [name, build] of Object.entries({ mlp, cnn, attention, tiny, decoder })) {
    const { graph, input } = build();
    const model = {
      irVersion: 8,
      producerName: 'tessera-bench',
      opsetImport: [{ domain: '', version: 17 }],
      graph,
    };
    const err = ModelProto.verify(model);
    if (err) throw new Error(`${name}: ${err}`);
    fs.writeFileSync(path.join(outDir, `${name}.onnx`), ModelProto.encode(ModelProto.fromObject(model)).finish());
    const inputDir = path.join(outDir, `${name}_inputs`);
    fs.mkdirSync(inputDir, { recursive: true });
    const tensor = { name: input.name, dims: input.dims, dataType: FLOAT, rawData: Buffer.from(input.data.buffer) };
    fs.writeFileSync(path.join(inputDir, 'input_0.pb'), TensorProto.encode(TensorProto.fromObject(tensor)).finish());
    console.log(`wrote ${path.join(outDir, name + '.onnx')} and ${inputDir}/input_0.pb`);
  }
}

module.exports = { xorshift, weights, FLOAT, INT64, ONNX_PROTO };

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
