/* Node-API binding of the e5 engine (multilingual-e5-small, all-MiniLM-L6-v2): one model handle,
 * texts embedded synchronously or on the libuv thread pool. Node-API is ABI-stable, so the same build loads in Node and in Electron. */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#ifndef _WIN32
#include <sched.h>
#endif
#include "e5.h"

/* A text longer than this (bytes of UTF-8) is cut: a skill's or a message's embedding reads its
 * start, and the engine's memory per call stays bounded. */
#define MAX_TEXT_BYTES 16384
/* Texts per call: more is a caller's bug, not a workload. */
#define MAX_TEXTS 4096

#define CHECK(env, call) do { if ((call) != napi_ok) { throw_last(env); return NULL; } } while (0)

static void throw_last(napi_env env) {
    const napi_extended_error_info *info = NULL;
    napi_get_last_error_info(env, &info);
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending) napi_throw_error(env, "E5_NAPI", info && info->error_message ? info->error_message : "napi call failed");
}

/* The handle JS holds. Counted, not freed by its finalizer alone: when the process exits while
 * a pool thread is still embedding (an app quit during indexing, a test worker torn down), Node
 * runs finalizers regardless of references, and unmapping the weights under that thread would
 * crash the exit. The last of the handle and the running jobs frees the model. */
typedef struct {
    e5_model *m;
    atomic_int refs;
} holder_t;

static void holder_release(holder_t *h) {
    if (atomic_fetch_sub(&h->refs, 1) == 1) {
        e5_free(h->m);
        free(h);
    }
}

static void finalize_model(napi_env env, void *data, void *hint) {
    (void)env; (void)hint;
    holder_release((holder_t *)data);
}

/* load(path) -> handle; throws with the loader's reason when the file is refused. */
static napi_value load(napi_env env, napi_callback_info info) {
    size_t argc = 1; napi_value argv[1];
    CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    if (argc < 1) { napi_throw_type_error(env, NULL, "load(path)"); return NULL; }
    size_t len = 0;
    CHECK(env, napi_get_value_string_utf8(env, argv[0], NULL, 0, &len));
    char *path = (char *)malloc(len + 1);
    if (!path) { napi_throw_error(env, "E5_NOMEM", "out of memory"); return NULL; }
    napi_get_value_string_utf8(env, argv[0], path, len + 1, &len);
    char err[256] = {0};
    e5_model *m = e5_load_checked(path, err, sizeof(err));
    free(path);
    if (!m) { napi_throw_error(env, "E5_BAD_MODEL", err); return NULL; }
    holder_t *h = (holder_t *)malloc(sizeof(holder_t));
    if (!h) { e5_free(m); napi_throw_error(env, "E5_NOMEM", "out of memory"); return NULL; }
    h->m = m;
    atomic_init(&h->refs, 1);
    napi_value ext;
    if (napi_create_external(env, h, finalize_model, NULL, &ext) != napi_ok) {
        holder_release(h);
        throw_last(env);
        return NULL;
    }
    return ext;
}

typedef struct {
    holder_t *h;
    e5_model *m;
    char **texts;
    int n, is_query, dim, rc;
    float *out;
    int holds;              /* 1 while this job counts in h->refs (async jobs until run) */
    napi_deferred deferred;
    napi_async_work work;
} job_t;

static void job_free(napi_env env, job_t *j) {
    if (!j) return;
    if (j->texts) for (int i = 0; i < j->n; i++) free(j->texts[i]);
    free(j->texts);
    free(j->out);
    if (j->holds) holder_release(j->h);
    free(j);
}

/* Read (handle, texts[], isQuery) into a job; NULL with an exception pending on bad input. */
static job_t *read_job(napi_env env, napi_callback_info info) {
    size_t argc = 3; napi_value argv[3];
    if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) {
        napi_throw_type_error(env, NULL, "embed(handle, texts, isQuery)");
        return NULL;
    }
    void *m = NULL;
    if (napi_get_value_external(env, argv[0], &m) != napi_ok || !m) {
        napi_throw_type_error(env, NULL, "not a model handle");
        return NULL;
    }
    bool is_array = false;
    napi_is_array(env, argv[1], &is_array);
    uint32_t n = 0;
    if (!is_array || napi_get_array_length(env, argv[1], &n) != napi_ok || n > MAX_TEXTS) {
        napi_throw_type_error(env, NULL, "texts must be an array of at most 4096 strings");
        return NULL;
    }
    bool q = false;
    napi_get_value_bool(env, argv[2], &q);
    job_t *j = (job_t *)calloc(1, sizeof(job_t));
    if (!j) { napi_throw_error(env, "E5_NOMEM", "out of memory"); return NULL; }
    j->h = (holder_t *)m; j->m = j->h->m; j->n = (int)n; j->is_query = q ? 1 : 0; j->dim = e5_dim(j->m);
    j->texts = (char **)calloc(n > 0 ? n : 1, sizeof(char *));
    j->out = (float *)malloc(sizeof(float) * (size_t)j->dim * (n > 0 ? n : 1));
    if (!j->texts || !j->out) { job_free(env, j); napi_throw_error(env, "E5_NOMEM", "out of memory"); return NULL; }
    for (uint32_t i = 0; i < n; i++) {
        napi_value v;
        size_t len = 0;
        if (napi_get_element(env, argv[1], i, &v) != napi_ok ||
            napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
            job_free(env, j);
            napi_throw_type_error(env, NULL, "texts must be strings");
            return NULL;
        }
        if (len > MAX_TEXT_BYTES) len = MAX_TEXT_BYTES;
        j->texts[i] = (char *)malloc(len + 1);
        if (!j->texts[i]) { job_free(env, j); napi_throw_error(env, "E5_NOMEM", "out of memory"); return NULL; }
        size_t got = 0;
        napi_get_value_string_utf8(env, v, j->texts[i], len + 1, &got);
        j->texts[i][got] = 0;
    }
    return j;
}

/* ---- a second core for a query ---------------------------------------------------------
 * A message is embedded while the user waits (a match, a turn sent with no draft), as one job on
 * one thread, leaving the other core idle. One helper thread per process takes the second
 * half of each step (matmul rows, attention tokens, GELU) of such a call: the vector is the same
 * (each output is computed by one thread, in the same order), the latency about half. Between
 * steps the helper spins up to 50 µs for the next one (a step lasts tens to hundreds of
 * microseconds), then sleeps on a condition variable. Only one caller uses it at a time; another
 * (a second JS thread in the process) runs alone. Not used on Windows or on one core. */
#ifndef _WIN32
#define HELPER_SPIN_NS 50000ull
typedef struct {
    uv_thread_t th;
    uv_mutex_t mu;
    uv_cond_t cv;
    atomic_int seq;         /* bumped per step handed over */
    atomic_int done;        /* the last step the helper finished */
    atomic_int claim;       /* the last step whose second part someone took */
    atomic_int busy;        /* a caller holds the helper */
    e5_part_fn fn;
    void *ctx;
    int nparts;
    int ok;
} helper_t;
static helper_t helper;
static uv_once_t helper_once = UV_ONCE_INIT;

static void helper_main(void *arg) {
    (void)arg;
    int seen = 0;
    for (;;) {
        int s = atomic_load_explicit(&helper.seq, memory_order_acquire);
        if (s == seen) {
            uint64_t until = uv_hrtime() + HELPER_SPIN_NS;
            unsigned k = 0;
            while ((s = atomic_load_explicit(&helper.seq, memory_order_acquire)) == seen) {
                if ((++k & 63) == 0 && uv_hrtime() > until) break;
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            }
            if (s == seen) {
                uv_mutex_lock(&helper.mu);
                while ((s = atomic_load_explicit(&helper.seq, memory_order_acquire)) == seen)
                    uv_cond_wait(&helper.cv, &helper.mu);
                uv_mutex_unlock(&helper.mu);
            }
        }
        seen = s;
        int e = s - 1;
        if (atomic_compare_exchange_strong(&helper.claim, &e, s)) {
            helper.fn(helper.ctx, 1, helper.nparts);
            atomic_store_explicit(&helper.done, s, memory_order_release);
        }
    }
}

static void helper_start(void) {
    atomic_init(&helper.seq, 0);
    atomic_init(&helper.done, 0);
    atomic_init(&helper.claim, 0);
    atomic_init(&helper.busy, 0);
    if (uv_available_parallelism() < 2) return;
    if (uv_mutex_init(&helper.mu) != 0) return;
    if (uv_cond_init(&helper.cv) != 0) return;
    if (uv_thread_create(&helper.th, helper_main, NULL) != 0) return;
    helper.ok = 1;
}

/* e5_parallel_fn: part 1 on the helper, part 0 here; back when both are done. */
static void helper_run(void *pctx, e5_part_fn fn, void *ctx, int nparts) {
    (void)pctx;
    helper.fn = fn;
    helper.ctx = ctx;
    helper.nparts = nparts;
    int s = atomic_load_explicit(&helper.seq, memory_order_relaxed) + 1;
    uv_mutex_lock(&helper.mu);
    atomic_store_explicit(&helper.seq, s, memory_order_release);
    uv_cond_signal(&helper.cv);
    uv_mutex_unlock(&helper.mu);
    fn(ctx, 0, nparts);
    /* A helper that has not started (no free core) loses its part to the caller: a loaded
     * machine gets the serial latency, never worse. */
    int e = s - 1;
    if (atomic_compare_exchange_strong(&helper.claim, &e, s)) {
        fn(ctx, 1, nparts);
        return;
    }
    unsigned k = 0;
    while (atomic_load_explicit(&helper.done, memory_order_acquire) != s)
        if ((++k & 255) == 0) sched_yield();
}

/* Takes the helper for one call; 0 when there is none or another thread holds it. */
static int helper_take(void) {
    uv_once(&helper_once, helper_start);
    if (!helper.ok) return 0;
    int expect = 0;
    return atomic_compare_exchange_strong(&helper.busy, &expect, 1);
}
static void helper_give(void) { atomic_store(&helper.busy, 0); }
#endif

/* One text (a query, sync or on the pool) is split over two cores when the helper is free. */
static void run_job(job_t *j) {
#ifndef _WIN32
    if (j->n == 1 && helper_take()) {
        j->rc = e5_embed_split(j->m, j->texts[0], j->is_query, j->out, helper_run, NULL, 2);
        helper_give();
        return;
    }
#endif
    j->rc = j->n > 0 ? e5_embed_batch(j->m, (const char **)j->texts, j->n, j->is_query, j->out) : 0;
}

static napi_value result_of(napi_env env, job_t *j) {
    napi_value ab, arr;
    void *data = NULL;
    size_t bytes = sizeof(float) * (size_t)j->dim * (size_t)j->n;
    if (napi_create_arraybuffer(env, bytes, &data, &ab) != napi_ok) return NULL;
    if (bytes) memcpy(data, j->out, bytes);
    if (napi_create_typedarray(env, napi_float32_array, (size_t)j->dim * (size_t)j->n, ab, 0, &arr) != napi_ok) return NULL;
    return arr;
}

/* embedSync(handle, texts, isQuery) -> Float32Array of texts.length × dim, each row unit length. */
static napi_value embed_sync(napi_env env, napi_callback_info info) {
    job_t *j = read_job(env, info);
    if (!j) return NULL;
    run_job(j);
    napi_value r = j->rc == 0 ? result_of(env, j) : NULL;
    if (j->rc != 0) napi_throw_error(env, "E5_EMBED", "embedding failed");
    job_free(env, j);
    return r;
}

static void exec_job(napi_env env, void *data) {
    (void)env;
    job_t *j = (job_t *)data;
    run_job(j);
    /* Done with the weights: let them go now, even if complete_job never runs (process exit). */
    j->holds = 0;
    holder_release(j->h);
}

static void complete_job(napi_env env, napi_status status, void *data) {
    job_t *j = (job_t *)data;
    napi_value r = NULL;
    if (status == napi_ok && j->rc == 0) r = result_of(env, j);
    if (r) napi_resolve_deferred(env, j->deferred, r);
    else {
        napi_value msg, err;
        napi_create_string_utf8(env, "embedding failed", NAPI_AUTO_LENGTH, &msg);
        napi_create_error(env, NULL, msg, &err);
        napi_reject_deferred(env, j->deferred, err);
    }
    napi_delete_async_work(env, j->work);
    job_free(env, j);
}

/* embed(handle, texts, isQuery) -> Promise<Float32Array>, computed on the thread pool. */
static napi_value embed_async(napi_env env, napi_callback_info info) {
    size_t argc = 3; napi_value argv[3];
    CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    job_t *j = read_job(env, info);
    if (!j) return NULL;
    napi_value promise, name;
    atomic_fetch_add(&j->h->refs, 1);
    j->holds = 1;
    if (napi_create_promise(env, &j->deferred, &promise) != napi_ok ||
        napi_create_string_utf8(env, "e5-embed", NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_async_work(env, NULL, name, exec_job, complete_job, j, &j->work) != napi_ok ||
        napi_queue_async_work(env, j->work) != napi_ok) {
        job_free(env, j);
        throw_last(env);
        return NULL;
    }
    return promise;
}

/* The model of a call's one handle argument; NULL (a TypeError thrown) when it is not one. */
static e5_model *model_arg(napi_env env, napi_callback_info info) {
    size_t argc = 1; napi_value argv[1];
    if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
        throw_last(env);
        return NULL;
    }
    void *m = NULL;
    if (argc < 1 || napi_get_value_external(env, argv[0], &m) != napi_ok || !m) {
        napi_throw_type_error(env, NULL, "not a model handle");
        return NULL;
    }
    return ((holder_t *)m)->m;
}

/* trim(handle) -> boolean: free the VNNI weights of large batches when none is running. */
static napi_value trim(napi_env env, napi_callback_info info) {
    e5_model *m = model_arg(env, info);
    if (!m) return NULL;
    napi_value r;
    CHECK(env, napi_get_boolean(env, e5_trim(m) != 0, &r));
    return r;
}

static napi_value dim(napi_env env, napi_callback_info info) {
    e5_model *m = model_arg(env, info);
    if (!m) return NULL;
    napi_value r;
    CHECK(env, napi_create_int32(env, e5_dim(m), &r));
    return r;
}

/* tokens(handle, text, isQuery) -> Int32Array: the ids the model feeds for the text (its first
 * MAX_TEXT_BYTES, as embed reads it), so tests can hold the tokenizer to its reference. */
static napi_value tokens(napi_env env, napi_callback_info info) {
    size_t argc = 3; napi_value argv[3];
    CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    void *h = NULL;
    size_t len = 0;
    if (argc < 3 || napi_get_value_external(env, argv[0], &h) != napi_ok || !h ||
        napi_get_value_string_utf8(env, argv[1], NULL, 0, &len) != napi_ok) {
        napi_throw_type_error(env, NULL, "tokens(handle, text, isQuery)");
        return NULL;
    }
    e5_model *m = ((holder_t *)h)->m;
    bool q = false;
    napi_get_value_bool(env, argv[2], &q);
    if (len > MAX_TEXT_BYTES) len = MAX_TEXT_BYTES;
    char *text = (char *)malloc(len + 1);
    if (!text) { napi_throw_error(env, "E5_NOMEM", "out of memory"); return NULL; }
    size_t got = 0;
    napi_get_value_string_utf8(env, argv[1], text, len + 1, &got);
    text[got] = 0;
    int n = e5_tokenize(m, text, q ? 1 : 0, NULL, 0);
    napi_value ab, arr;
    void *data = NULL;
    if (napi_create_arraybuffer(env, sizeof(int32_t) * (size_t)n, &data, &ab) != napi_ok) {
        free(text);
        throw_last(env);
        return NULL;
    }
    e5_tokenize(m, text, q ? 1 : 0, (int *)data, n);
    free(text);
    CHECK(env, napi_create_typedarray(env, napi_int32_array, (size_t)n, ab, 0, &arr));
    return arr;
}

/* A Float32Array argument's data and length; 0 when it is not one. */
static int f32_arg(napi_env env, napi_value v, float **data, size_t *len) {
    napi_typedarray_type type;
    void *p = NULL;
    size_t n = 0;
    if (napi_get_typedarray_info(env, v, &type, &n, &p, NULL, NULL) != napi_ok || type != napi_float32_array)
        return 0;
    *data = (float *)p;
    *len = n;
    return 1;
}

/* dots(matrix, q, out): out[i] = matrix row i · q, rows of q.length floats (the dense scan). */
static napi_value dots(napi_env env, napi_callback_info info) {
    size_t argc = 3; napi_value argv[3];
    CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    float *m = NULL, *q = NULL, *out = NULL;
    size_t mn = 0, qn = 0, on = 0;
    if (argc < 3 || !f32_arg(env, argv[0], &m, &mn) || !f32_arg(env, argv[1], &q, &qn) ||
        !f32_arg(env, argv[2], &out, &on) || qn == 0 || qn > 65536 || mn / qn < on || on * qn > mn) {
        napi_throw_type_error(env, NULL, "dots(matrix, q, out): Float32Arrays, matrix at least out.length rows of q.length");
        return NULL;
    }
    e5_dots(m, on, (int)qn, q, out);
    return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
    napi_property_descriptor props[] = {
        {"load", NULL, load, NULL, NULL, NULL, napi_default, NULL},
        {"embedSync", NULL, embed_sync, NULL, NULL, NULL, napi_default, NULL},
        {"embed", NULL, embed_async, NULL, NULL, NULL, napi_default, NULL},
        {"dim", NULL, dim, NULL, NULL, NULL, napi_default, NULL},
        {"trim", NULL, trim, NULL, NULL, NULL, napi_default, NULL},
        {"dots", NULL, dots, NULL, NULL, NULL, napi_default, NULL},
        {"tokens", NULL, tokens, NULL, NULL, NULL, napi_default, NULL},
    };
    napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
    return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
