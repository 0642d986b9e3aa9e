// SPDX-License-Identifier: MIT
/*
 * pdl_chain_test.c - programmatic dependent launch on the GPU (skipped without one): chains of dependent
 * calls, each layer's output the next layer's B, as a model's projections run (layer i: C_i = alpha *
 * W_i^T C_{i-1}, W_i stored K x m, alternating up and down shapes), one ctest entry per case:
 *   auto      AUTO (the sm90 path on an H200) at 1, 16 and 64 tokens
 *   splitk    the same with WSGEMM_SM90_SPLITK=3 (the ctest entry sets it): the kernel and the split-K
 *             reduction chain inside each call
 *   hybrid    WSGEMM_SM90_HYBRID=4: the split-region reduction after each kernel
 *   staged    every leading dimension odd: each layer stages its B (a staging kernel before the GEMM) and
 *             stores C per element
 *   generic   the generic path forced
 *   mixed     the layers alternate between the generic path and AUTO
 *   matmul    wsgemm_matmul with the RELU epilogue and desc->launch_mode PDL on a handle left in DEFAULT
 *   graph     the PDL chain captured into a CUDA graph and replayed, its outputs poisoned before each replay
 * Every output is NaN-poisoned before the chain is queued, so a kernel that read its input before the kernel
 * writing it had finished reads NaN or a partly written matrix. Each layer is checked twice: bit for bit
 * against the same chain run in the DEFAULT launch mode (the same kernels, so the same bits), and against
 * the fp64 host reference of that layer computed from the layer's actual input (testing_check: NaN never
 * passes, the padding rows must stay poisoned). A and the first input: uniform [-1, 1]; alpha = sqrt(3 / k)
 * keeps every layer's values near 1.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "testing.h"

static int failures = 0;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

enum { kLayers = 8, kModel = 512, kHidden = 1792 };

typedef enum chain_kind {
    CHAIN_GEMM = 0,   /* wsgemm_gemm_ex */
    CHAIN_MATMUL = 1, /* wsgemm_matmul, RELU, desc->launch_mode PDL */
} chain_kind;

typedef struct chain {
    int tokens;
    int odd_ld; /* every leading dimension rows + 1 */
    chain_kind kind;
    int mixed;               /* even layers on the generic path, odd ones AUTO */
    wsgemm_path path;        /* the handle's path for the other layers */
    testing_gemm g[kLayers]; /* layer i: C_i = alpha op(A_i) C_{i-1} */
    void *A[kLayers];        /* device: W_i, k x m */
    void *X[kLayers + 1];    /* device: X[0] the input, X[i + 1] layer i's output */
    size_t x_elems[kLayers + 1];
} chain;

static int rows_of(int layer)
{
    return layer % 2 == 0 ? kHidden : kModel; /* up, down, up, ... */
}

static void chain_create(chain *c, int tokens, int odd_ld, chain_kind kind, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->tokens = tokens;
    c->odd_ld = odd_ld;
    c->kind = kind;
    c->path = WSGEMM_PATH_AUTO;
    int k = kModel;
    c->x_elems[0] = (size_t)(k + odd_ld) * tokens;
    CUDA_CHECK(cudaMalloc(&c->X[0], c->x_elems[0] * 2));
    testing_device_fill_uniform(WSGEMM_R_16BF, c->X[0], c->x_elems[0], seed);
    for (int i = 0; i < kLayers; ++i) {
        const int m = rows_of(i);
        testing_gemm *g = &c->g[i];
        *g = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, m, tokens, k);
        g->lda = k + odd_ld;
        g->ldb = k + odd_ld;
        g->ldc = m + odd_ld;
        g->alpha = sqrtf(3.0f / (float)k);
        g->beta = 0.0f;
        testing_gemm_resolve(g);
        const size_t a_elems = testing_gemm_elems_a(g);
        CUDA_CHECK(cudaMalloc(&c->A[i], a_elems * 2));
        testing_device_fill_uniform(WSGEMM_R_16BF, c->A[i], a_elems, seed + 1 + (uint64_t)i);
        c->x_elems[i + 1] = testing_gemm_elems_c(g);
        CUDA_CHECK(cudaMalloc(&c->X[i + 1], c->x_elems[i + 1] * 2));
        k = m;
    }
}

static void chain_destroy(chain *c)
{
    for (int i = 0; i < kLayers; ++i) CUDA_CHECK(cudaFree(c->A[i]));
    for (int i = 0; i <= kLayers; ++i) CUDA_CHECK(cudaFree(c->X[i]));
}

/* Poison every output (stream-ordered: before the chain queued after it). */
static void chain_poison(const chain *c, cudaStream_t stream)
{
    for (int i = 1; i <= kLayers; ++i) CUDA_CHECK(cudaMemsetAsync(c->X[i], 0xFF, c->x_elems[i] * 2, stream));
}

/* Queue the chain on the handle's stream; the first failing status, with its message printed. */
static wsgemm_status chain_issue(wsgemm_handle h, const chain *c, wsgemm_launch_mode desc_mode)
{
    for (int i = 0; i < kLayers; ++i) {
        const testing_gemm *g = &c->g[i];
        WSGEMM_CHECK(wsgemm_set_path(h, c->mixed && i % 2 == 0 ? WSGEMM_PATH_GENERIC : c->path));
        wsgemm_status s;
        if (c->kind == CHAIN_MATMUL) {
            wsgemm_matmul_desc d;
            WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, g->transa, g->transb, WSGEMM_R_16BF, WSGEMM_R_16BF));
            d.epilogue = WSGEMM_MATMUL_EPILOGUE_RELU;
            d.launch_mode = desc_mode;
            s = wsgemm_matmul(h, &d, g->m, g->n, g->k, &g->alpha, c->A[i], g->lda, c->X[i], g->ldb, &g->beta,
                              c->X[i + 1], g->ldc, c->X[i + 1], g->ldc);
        } else {
            s = wsgemm_gemm_ex(h, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, c->A[i], WSGEMM_R_16BF, g->lda,
                               c->X[i], WSGEMM_R_16BF, g->ldb, &g->beta, c->X[i + 1], WSGEMM_R_16BF, g->ldc);
        }
        if (s != WSGEMM_STATUS_SUCCESS) {
            fprintf(stderr, "  layer %d: %s (%s)\n", i, wsgemm_status_string(s), wsgemm_get_last_error_message(h));
            return s;
        }
    }
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
    return WSGEMM_STATUS_SUCCESS;
}

/* Host copies of every output: out[i] for X[i + 1]. */
static void chain_read(const chain *c, uint16_t **out)
{
    for (int i = 0; i < kLayers; ++i)
        CUDA_CHECK(cudaMemcpy(out[i], c->X[i + 1], c->x_elems[i + 1] * 2, cudaMemcpyDeviceToHost));
}

static uint16_t **outputs_alloc(const chain *c)
{
    uint16_t **out = calloc(kLayers, sizeof *out);
    for (int i = 0; i < kLayers; ++i) out[i] = malloc(c->x_elems[i + 1] * 2);
    return out;
}

static void outputs_free(uint16_t **out)
{
    for (int i = 0; i < kLayers; ++i) free(out[i]);
    free(out);
}

/* Layer by layer: the PDL outputs equal the DEFAULT ones bit for bit, and each matches its host reference
 * from its actual input (the DEFAULT chain's output of the layer before, or X[0]). */
static void chain_check(const chain *c, uint16_t **pdl, uint16_t **base, const char *label)
{
    uint16_t *x0 = malloc(c->x_elems[0] * 2);
    CUDA_CHECK(cudaMemcpy(x0, c->X[0], c->x_elems[0] * 2, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kLayers; ++i) {
        const testing_gemm *g = &c->g[i];
        const size_t n = c->x_elems[i + 1];
        size_t differ = 0;
        for (size_t e = 0; e < n; ++e) differ += pdl[i][e] != base[i][e];
        char what[160];
        snprintf(what, sizeof what, "%s layer %d (m=%d k=%d tokens=%d)", label, i, g->m, g->k, g->n);
        EXPECT(differ == 0, "%s: %zu of %zu elements differ from the DEFAULT launch mode's", what, differ, n);

        uint16_t *a = malloc(testing_gemm_elems_a(g) * 2);
        CUDA_CHECK(cudaMemcpy(a, c->A[i], testing_gemm_elems_a(g) * 2, cudaMemcpyDeviceToHost));
        double *ref = malloc((size_t)g->m * g->n * sizeof(double));
        testing_reference_host(g, a, i == 0 ? x0 : base[i - 1], NULL, ref);
        if (c->kind == CHAIN_MATMUL)
            for (size_t e = 0; e < (size_t)g->m * g->n; ++e) ref[e] = ref[e] > 0.0 ? ref[e] : 0.0;
        uint16_t *poison = malloc(n * 2);
        memset(poison, 0xFF, n * 2);
        const testing_report r = testing_check(g, pdl[i], poison, ref, testing_tolerance_for(WSGEMM_R_16BF), what);
        EXPECT(r.passed, "%s: against the host reference: %zu mismatches, %zu NaN, padding touched %zu", what,
               r.mismatches, r.nan_count, r.padding_touched);
        free(poison);
        free(ref);
        free(a);
    }
    free(x0);
}

/* The chain in DEFAULT mode, then (outputs poisoned again) with PDL: the handle's launch mode, or for a matmul
 * chain desc->launch_mode with the handle left in DEFAULT. */
static void run_chain(wsgemm_handle h, chain *c, const char *label)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    WSGEMM_CHECK(wsgemm_set_stream(h, stream));
    uint16_t **base = outputs_alloc(c), **pdl = outputs_alloc(c);

    WSGEMM_CHECK(wsgemm_set_launch_mode(h, WSGEMM_LAUNCH_MODE_DEFAULT));
    chain_poison(c, stream);
    EXPECT(chain_issue(h, c, WSGEMM_LAUNCH_MODE_DEFAULT) == WSGEMM_STATUS_SUCCESS, "%s: DEFAULT chain", label);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    chain_read(c, base);

    const int by_desc = c->kind == CHAIN_MATMUL;
    WSGEMM_CHECK(wsgemm_set_launch_mode(h, by_desc ? WSGEMM_LAUNCH_MODE_DEFAULT : WSGEMM_LAUNCH_MODE_PDL));
    for (int rep = 0; rep < 3; ++rep) { /* the race, if there were one, need not show every time */
        chain_poison(c, stream);
        EXPECT(chain_issue(h, c, WSGEMM_LAUNCH_MODE_PDL) == WSGEMM_STATUS_SUCCESS, "%s: PDL chain", label);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        chain_read(c, pdl);
        char what[96];
        snprintf(what, sizeof what, "%s rep %d", label, rep);
        chain_check(c, pdl, base, what);
    }
    wsgemm_path last = WSGEMM_PATH_NONE;
    WSGEMM_CHECK(wsgemm_get_last_path(h, &last));
    printf("  %s: last layer ran path %s\n", label, wsgemm_path_name(last));
    if (!c->mixed && !c->odd_ld && c->kind == CHAIN_GEMM && c->path == WSGEMM_PATH_AUTO && testing_device_cc() == 90)
        EXPECT(last == WSGEMM_PATH_SM90, "%s: AUTO on an sm_90 device ran %s, not the sm90 path", label,
               wsgemm_path_name(last));

    WSGEMM_CHECK(wsgemm_set_launch_mode(h, WSGEMM_LAUNCH_MODE_DEFAULT));
    WSGEMM_CHECK(wsgemm_set_stream(h, NULL));
    CUDA_CHECK(cudaStreamDestroy(stream));
    outputs_free(base);
    outputs_free(pdl);
}

static void run_tokens(wsgemm_handle h, const char *name, int odd_ld, chain_kind kind, int mixed, wsgemm_path path)
{
    testing_require_gpu(name);
    const int tokens[] = {1, 16, 64};
    for (size_t t = 0; t < sizeof tokens / sizeof tokens[0]; ++t) {
        chain c;
        chain_create(&c, tokens[t], odd_ld, kind, 100 + t);
        c.mixed = mixed;
        c.path = path;
        char label[64];
        snprintf(label, sizeof label, "%s tokens=%d", name, tokens[t]);
        run_chain(h, &c, label);
        chain_destroy(&c);
    }
}

static void case_auto(wsgemm_handle h)
{
    run_tokens(h, "auto", 0, CHAIN_GEMM, 0, WSGEMM_PATH_AUTO);
}

static void case_splitk(wsgemm_handle h)
{
    run_tokens(h, "splitk", 0, CHAIN_GEMM, 0, WSGEMM_PATH_AUTO);
}

static void case_hybrid(wsgemm_handle h)
{
    run_tokens(h, "hybrid", 0, CHAIN_GEMM, 0, WSGEMM_PATH_AUTO);
}

static void case_staged(wsgemm_handle h)
{
    run_tokens(h, "staged", 1, CHAIN_GEMM, 0, WSGEMM_PATH_AUTO);
}

static void case_generic(wsgemm_handle h)
{
    run_tokens(h, "generic", 0, CHAIN_GEMM, 0, WSGEMM_PATH_GENERIC);
}

static void case_mixed(wsgemm_handle h)
{
    run_tokens(h, "mixed", 0, CHAIN_GEMM, 1, WSGEMM_PATH_AUTO);
}

static void case_matmul(wsgemm_handle h)
{
    run_tokens(h, "matmul", 0, CHAIN_MATMUL, 0, WSGEMM_PATH_AUTO);
}

/* The PDL chain captured (its kernels joined by programmatic edges) and replayed; each replay after its
 * outputs were poisoned outside the graph. */
static void case_graph(wsgemm_handle h)
{
    testing_require_gpu("graph");
    const int tokens[] = {1, 64};
    for (size_t t = 0; t < sizeof tokens / sizeof tokens[0]; ++t) {
        chain c;
        chain_create(&c, tokens[t], 0, CHAIN_GEMM, 200 + t);
        char label[64];
        snprintf(label, sizeof label, "graph tokens=%d", tokens[t]);
        cudaStream_t stream;
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        WSGEMM_CHECK(wsgemm_set_stream(h, stream));
        uint16_t **base = outputs_alloc(&c), **pdl = outputs_alloc(&c);
        chain_poison(&c, stream);
        EXPECT(chain_issue(h, &c, WSGEMM_LAUNCH_MODE_DEFAULT) == WSGEMM_STATUS_SUCCESS, "%s: DEFAULT chain", label);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        chain_read(&c, base);

        WSGEMM_CHECK(wsgemm_set_launch_mode(h, WSGEMM_LAUNCH_MODE_PDL));
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        const wsgemm_status captured = chain_issue(h, &c, WSGEMM_LAUNCH_MODE_PDL);
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        EXPECT(captured == WSGEMM_STATUS_SUCCESS, "%s: captured chain: %s", label, wsgemm_status_string(captured));
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        for (int rep = 0; rep < 3; ++rep) {
            chain_poison(&c, stream);
            CUDA_CHECK(cudaGraphLaunch(exec, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            chain_read(&c, pdl);
            char what[96];
            snprintf(what, sizeof what, "%s replay %d", label, rep);
            chain_check(&c, pdl, base, what);
        }
        WSGEMM_CHECK(wsgemm_set_launch_mode(h, WSGEMM_LAUNCH_MODE_DEFAULT));
        WSGEMM_CHECK(wsgemm_set_stream(h, NULL));
        CUDA_CHECK(cudaGraphExecDestroy(exec));
        CUDA_CHECK(cudaGraphDestroy(graph));
        CUDA_CHECK(cudaStreamDestroy(stream));
        outputs_free(base);
        outputs_free(pdl);
        chain_destroy(&c);
    }
}

static const testing_handle_case cases[] = {
    {"auto", case_auto},       {"splitk", case_splitk}, {"hybrid", case_hybrid}, {"staged", case_staged},
    {"generic", case_generic}, {"mixed", case_mixed},   {"matmul", case_matmul}, {"graph", case_graph},
};

int main(int argc, char **argv)
{
    return testing_run_handle_case(argc, argv, cases, sizeof cases / sizeof cases[0], &failures);
}
