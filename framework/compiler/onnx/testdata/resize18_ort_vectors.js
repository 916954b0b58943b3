// The expected values of framework/compiler/onnx/converters_resize18_test.cc, from
// ONNX Runtime (an implementation independent of Tessera): builds one tiny
// Resize-18/19 model per case with protobufjs and the onnx.proto Debian
// ships, runs it on ORT's CPU provider and prints the outputs as C++
// initializer lists.
//
//   npm install --ignore-scripts onnxruntime-node@1.30.0 protobufjs@7.4.0   (in DIR)
//   NODE_PATH=DIR/node_modules node framework/compiler/onnx/testdata/resize18_ort_vectors.js [OUT_DIR]
//
// With OUT_DIR, each case is also written in the ONNX node-test layout
// (OUT_DIR/NAME/model.onnx, test_data_set_0/input_0.pb, output_0.pb holding
// ORT's output), so `tessera onnx-test OUT_DIR/*` runs the whole pipeline
// (import, compile, cpu plugin) against ORT.
//
// ORT 1.30 quirks the cases avoid: keep_aspect_ratio_policy with negative
// axes returns the input unchanged (its own shape inference expects the
// resized shape), cubic needs a 2-D or 4-D input, and antialias with
// nearest is refused (Tessera follows the spec: nearest ignores it).
// ORT's align_corners divides by out − 1 where ONNX's reference (and
// Tessera's RESIZE) divide by scale · in − 1: no case mixes align_corners
// with a scale whose out differs from scale · in.
// (--ignore-scripts skips the package's optional CUDA download; the CPU
// binary ships in the package.) Each case's input is Input(n) below, the
// same formula as the test's Input(): exact in f32.
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');
const ort = require('onnxruntime-node');

const ONNX_PROTO = process.env.ONNX_PROTO || '/usr/include/onnx/onnx.proto';
const FLOAT = 1;
const INT64 = 7;

// ((7k) mod 23) / 4 − 2: uneven, so an antialias filter differs from a
// plain one even inside the image.
function Input(count) {
  const v = new Float32Array(count);
  for (let k = 0; k < count; ++k) v[k] = ((7 * k) % 23) / 4 - 2;
  return v;
}

// AttributeProto.AttributeType: FLOAT 1, INT 2, STRING 3, INTS 7.
function attr(name, v) {
  if (typeof v === 'string') return { name, type: 3, s: Buffer.from(v) };
  if (Array.isArray(v)) return { name, type: 7, ints: v };
  if (Number.isInteger(v)) return { name, type: 2, i: v };
  return { name, type: 1, f: v };
}

const cases = [
  { name: 'LinearAntialiasHalf', shape: [1, 1, 4, 6], scales: [1, 1, 0.5, 0.5], attrs: { mode: 'linear', antialias: 1 } },
  { name: 'CubicAntialiasHalf', shape: [1, 1, 4, 6], scales: [1, 1, 0.5, 0.5], attrs: { mode: 'cubic', antialias: 1 } },
  { name: 'CubicAntialiasExcludeOutside', shape: [1, 1, 4, 6], scales: [1, 1, 0.6, 0.6],
    attrs: { mode: 'cubic', antialias: 1, exclude_outside: 1 } },
  { name: 'LinearAntialiasAxesSizes', shape: [1, 1, 4, 6], axes: [2, 3], sizes: [3, 2],
    attrs: { mode: 'linear', antialias: 1 } },
  { name: 'NotLargerAntialias', shape: [1, 1, 4, 6], axes: [2, 3], sizes: [3, 3],
    attrs: { mode: 'linear', antialias: 1, keep_aspect_ratio_policy: 'not_larger' } },
  { name: 'NotSmaller', shape: [1, 1, 4, 6], axes: [2, 3], sizes: [3, 3],
    attrs: { mode: 'linear', keep_aspect_ratio_policy: 'not_smaller' } },
  { name: 'NegativeAxisPytorchAntialias', shape: [1, 1, 4, 6], axes: [-1], scales: [0.5],
    attrs: { mode: 'linear', antialias: 1, coordinate_transformation_mode: 'pytorch_half_pixel' } },
  { name: 'MiddleAxisCubicAntialias', shape: [1, 2, 5, 3], axes: [2], scales: [0.4], attrs: { mode: 'cubic', antialias: 1 } },
  { name: 'UpscaleAntialias', shape: [1, 1, 2, 3], scales: [1, 1, 2, 1.5], attrs: { mode: 'linear', antialias: 1 } },
  { name: 'HalfPixelSymmetricLinear', opset: 19, shape: [1, 1, 4, 6], scales: [1, 1, 0.6, 0.6],
    attrs: { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' } },
  { name: 'HalfPixelSymmetricUpNearest', opset: 19, shape: [1, 1, 2, 3], scales: [1, 1, 1.7, 1.3],
    attrs: { mode: 'nearest', coordinate_transformation_mode: 'half_pixel_symmetric' } },
  { name: 'HalfPixelSymmetricCubicAntialias', opset: 19, shape: [1, 1, 4, 6], scales: [1, 1, 0.7, 0.45],
    attrs: { mode: 'cubic', antialias: 1, coordinate_transformation_mode: 'half_pixel_symmetric' } },
];

function fmt(values) {
  return Array.from(values, (v) => `${Number(v.toPrecision(9))}f`).join(', ');
}

async function main() {
  const root = await protobuf.load(ONNX_PROTO);
  const ModelProto = root.lookupType('onnx.ModelProto');
  const TensorProto = root.lookupType('onnx.TensorProto');
  const outDir = process.argv[2];
  for (const c of cases) {
    const count = c.shape.reduce((a, b) => a * b, 1);
    const inputs = ['x', ''];
    const initializer = [];
    if (c.scales) {
      initializer.push({ name: 'scales', dims: [c.scales.length], dataType: FLOAT,
                         rawData: Buffer.from(new Float32Array(c.scales).buffer) });
      inputs.push('scales');
    } else {
      initializer.push({ name: 'sizes', dims: [c.sizes.length], dataType: INT64,
                         rawData: Buffer.from(new BigInt64Array(c.sizes.map(BigInt)).buffer) });
      inputs.push('', 'sizes');
    }
    const attrs = Object.assign({}, c.attrs, c.axes ? { axes: c.axes } : {});
    const model = {
      irVersion: 9,
      producerName: 'resize18_ort_vectors',
      opsetImport: [{ domain: '', version: c.opset || 18 }],
      graph: {
        name: c.name,
        node: [{ opType: 'Resize', input: inputs, output: ['y'], name: 'resize',
                 attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)) }],
        initializer,
        input: [{ name: 'x', type: { tensorType: { elemType: FLOAT, shape: { dim: c.shape.map((d) => ({ dimValue: d })) } } } }],
        output: [{ name: 'y', type: { tensorType: { elemType: FLOAT } } }],
      },
    };
    const bytes = ModelProto.encode(ModelProto.fromObject(model)).finish();
    const session = await ort.InferenceSession.create(bytes);
    const out = await session.run({ x: new ort.Tensor('float32', Input(count), c.shape) });
    if (outDir) {
      const dir = path.join(outDir, c.name, 'test_data_set_0');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(outDir, c.name, 'model.onnx'), bytes);
      const tensor = (name, dims, data) => TensorProto.encode(TensorProto.fromObject(
          { name, dims, dataType: FLOAT, rawData: Buffer.from(new Float32Array(data).buffer) })).finish();
      fs.writeFileSync(path.join(dir, 'input_0.pb'), tensor('x', c.shape, Input(count)));
      fs.writeFileSync(path.join(dir, 'output_0.pb'), tensor('y', out.y.dims, out.y.data));
    }
    console.log(`// ${c.name}: [${out.y.dims.join(', ')}]`);
    console.log(`{${fmt(out.y.data)}}`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
