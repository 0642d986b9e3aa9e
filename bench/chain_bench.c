// SPDX-License-Identifier: MIT
/*
 * chain_bench.c - a model's chain of dependent projections, timed whole: layers alternate between the up
 * projection (4096 -> 14336) and the down projection (14336 -> 4096), y = x W^T in bf16 with fp32
 * accumulation, each layer's output the next one's input, at several token counts. Three ways side by side
 * on the same data and the same stream: wsgemm in the DEFAULT launch mode, wsgemm with programmatic
 * dependent launch (wsgemm_set_launch_mode PDL), and cublasGemmEx.
 *
 *   wsgemm-chain-bench [--layers 8] [--model 4096] [--hidden 14336] [--rounds 20] [--tokens T]...
 *
 * GPU time of one chain: CUDA events around the whole chain (its calls queued back to back, nothing in
 * between), behind a spin kernel so that the host's launch work is not timed, the three ways interleaved in
 * an order that rotates every round (testing_time_interleaved, docs/performance.md "How we measure"); the
 * median over the rounds. The weights of a chain (940 MB at the default sizes) are far more than the L2, so
 * every chain reads them from HBM, as a model's decode step does. Correctness first: every layer of the PDL
 * chain, its outputs poisoned before, is checked against cuBLAS computing that layer from the same input.
 * Exit 0; 1 when a check or a call fails; 2 on bad arguments (bench/cli.h); without a GPU it says so on
 * stderr and exits 0.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "cli.h"
#include "testing.h"

enum { kMaxLayers = 64, kMaxTokens = 16, kMaxRounds = 1000 };

typedef struct chain {
    int layers, tokens;
    testing_gemm g[kMaxLayers]; /* layer i: X[i + 1] = alpha W_i^T X[i] (column-major: op(A) = T) */
    void *W[kMaxLayers];
    void *X[kMaxLayers + 1];
    wsgemm_handle h;
    cublasHandle_t cublas;
} chain;

typedef struct way {
    chain *c;
    int pdl; /* wsgemm ways: the handle's launch mode; -1: cuBLAS */
} way;

static void chain_create(chain *c, int layers, int tokens, int model, int hidden, uint64_t seed)
{
    c->layers = layers;
    c->tokens = tokens;
    int k = model;
    CUDA_CHECK(cudaMalloc(&c->X[0], (size_t)k * tokens * 2));
    testing_device_fill_uniform(WSGEMM_R_16BF, c->X[0], (size_t)k * tokens, seed);
    for (int i = 0; i < layers; ++i) {
        const int m = i % 2 == 0 ? hidden : model;
        testing_gemm *g = &c->g[i];
        *g = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, m, tokens, k);
        g->alpha = sqrtf(3.0f / (float)k); /* activations stay near 1 through the chain */
        testing_gemm_resolve(g);
        CUDA_CHECK(cudaMalloc(&c->W[i], (size_t)m * k * 2));
        testing_device_fill_uniform(WSGEMM_R_16BF, c->W[i], (size_t)m * k, seed + 1 + (uint64_t)i);
        CUDA_CHECK(cudaMalloc(&c->X[i + 1], (size_t)m * tokens * 2));
        k = m;
    }
}

static void chain_destroy(chain *c)
{
    for (int i = 0; i < c->layers; ++i) {
        CUDA_CHECK(cudaFree(c->W[i]));
        CUDA_CHECK(cudaFree(c->X[i + 1]));
    }
    CUDA_CHECK(cudaFree(c->X[0]));
}

static int layer_wsgemm(const chain *c, int i)
{
    const testing_gemm *g = &c->g[i];
    return wsgemm_gemm_ex(c->h, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, c->W[i], WSGEMM_R_16BF, g->lda,
                          c->X[i], WSGEMM_R_16BF, g->ldb, &g->beta, c->X[i + 1], WSGEMM_R_16BF,
                          g->ldc) != WSGEMM_STATUS_SUCCESS;
}

static int layer_cublas(const chain *c, int i, void *out, cudaDataType_t out_type)
{
    const testing_gemm *g = &c->g[i];
    return cublasGemmEx(c->cublas, CUBLAS_OP_T, CUBLAS_OP_N, g->m, g->n, g->k, &g->alpha, c->W[i], CUDA_R_16BF, g->lda,
                        c->X[i], CUDA_R_16BF, g->ldb, &g->beta, out, out_type, g->ldc, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS;
}

/* One chain, the timed call: every layer queued back to back. */
static int run_way(void *ctx, int i)
{
    (void)i; /* the weights (one set per chain) exceed the L2 by far: no rotation needed */
    const way *w = (const way *)ctx;
    chain *c = w->c;
    if (w->pdl >= 0 && wsgemm_set_launch_mode(c->h, w->pdl ? WSGEMM_LAUNCH_MODE_PDL : WSGEMM_LAUNCH_MODE_DEFAULT) !=
                           WSGEMM_STATUS_SUCCESS)
        return 1;
    for (int l = 0; l < c->layers; ++l)
        if (w->pdl >= 0 ? layer_wsgemm(c, l) : layer_cublas(c, l, c->X[l + 1], CUDA_R_16BF)) return 1;
    return 0;
}

/* The PDL chain with its outputs poisoned, then each layer against cuBLAS from the same input (fp32 out). */
static int check_chain(chain *c, cudaStream_t stream)
{
    for (int l = 0; l < c->layers; ++l)
        CUDA_CHECK(cudaMemsetAsync(c->X[l + 1], 0xFF, (size_t)c->g[l].m * c->tokens * 2, stream));
    const way pdl = {c, 1};
    if (run_way((void *)&pdl, 0) != 0) {
        fprintf(stderr, "FAIL: the PDL chain: %s\n", wsgemm_get_last_error_message(c->h));
        return 0;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    int ok = 1;
    for (int l = 0; l < c->layers; ++l) {
        float *ref = NULL;
        CUDA_CHECK(cudaMalloc((void **)&ref, (size_t)c->g[l].m * c->tokens * sizeof(float)));
        if (layer_cublas(c, l, ref, CUDA_R_32F) != 0) {
            fprintf(stderr, "FAIL: cublasGemmEx of layer %d\n", l);
            return 0;
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
        char label[64];
        snprintf(label, sizeof label, "layer %d tokens %d", l, c->tokens);
        const testing_report r =
            testing_device_check(&c->g[l], c->X[l + 1], ref, testing_tolerance_for(WSGEMM_R_16BF), label);
        if (!r.passed) {
            fprintf(stderr, "FAIL: %s: %zu mismatches, %zu NaN against cuBLAS\n", label, r.mismatches, r.nan_count);
            ok = 0;
        }
        CUDA_CHECK(cudaFree(ref));
    }
    return ok;
}

static const char kProg[] = "wsgemm-chain-bench";

static void usage(void)
{
    printf("usage: %s [--layers L (2..%d, even)] [--model K] [--hidden N] [--rounds R (1..%d)] [--tokens T]...\n"
           "       %s --help\n"
           "GPU time of a chain of dependent projections (alternating K -> N and N -> K, bf16, y = x W^T): wsgemm\n"
           "with PDL off and on, and cublasGemmEx, interleaved; medians over the rounds. Default: 8 layers of 4096\n"
           "and 14336 at 1, 16, 64, 256 and 2048 tokens, 20 rounds. Exit 0 (also without a CUDA device: nothing\n"
           "run); 1: a check or a call failed; 2: bad arguments.\n",
           kProg, kMaxLayers, kMaxRounds, kProg);
}

int main(int argc, char **argv)
{
    int layers = 8, model = 4096, hidden = 14336, rounds = 20, ntokens = 0;
    int tokens[kMaxTokens];
    if (cli_wants_help(argc, argv)) {
        usage();
        return 0;
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = cli_value(kProg, argc, argv, &i);
        if (!strcmp(a, "--layers"))
            layers = cli_int(kProg, a, v, 2, kMaxLayers);
        else if (!strcmp(a, "--model"))
            model = cli_int(kProg, a, v, 1, 65536);
        else if (!strcmp(a, "--hidden"))
            hidden = cli_int(kProg, a, v, 1, 65536);
        else if (!strcmp(a, "--rounds"))
            rounds = cli_int(kProg, a, v, 1, kMaxRounds);
        else if (!strcmp(a, "--tokens")) {
            if (ntokens == kMaxTokens) cli_fail(kProg, "at most %d --tokens", kMaxTokens);
            tokens[ntokens++] = cli_int(kProg, a, v, 1, 65536);
        } else
            cli_fail(kProg, "unknown flag '%s'", a);
    }
    if (layers % 2 != 0) cli_fail(kProg, "--layers %d: an even count (up and down projections)", layers);
    if (ntokens == 0) {
        const int defaults[] = {1, 16, 64, 256, 2048};
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; ++i) tokens[ntokens++] = defaults[i];
    }
    if (testing_gpu_count() == 0) return cli_no_gpu(kProg, "nothing to run");

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int failed = 0;
    printf("chain of %d layers (%d -> %d -> %d ...), bf16, GPU microseconds per chain, median of %d rounds\n", layers,
           model, hidden, model, rounds);
    printf("%7s %-6s | %10s %10s %10s | %8s %10s\n", "tokens", "path", "pdl off", "pdl on", "cuBLAS", "on/off",
           "on vs cb");
    for (int t = 0; t < ntokens; ++t) {
        chain c;
        memset(&c, 0, sizeof c);
        chain_create(&c, layers, tokens[t], model, hidden, 1000 + (uint64_t)t);
        WSGEMM_CHECK(wsgemm_create(&c.h));
        WSGEMM_CHECK(wsgemm_set_stream(c.h, stream));
        CUBLAS_CHECK(cublasCreate(&c.cublas));
        CUBLAS_CHECK(cublasSetStream(c.cublas, stream));
        if (!check_chain(&c, stream)) {
            failed = 1;
        } else {
            wsgemm_path path = WSGEMM_PATH_NONE;
            WSGEMM_CHECK(wsgemm_get_last_path(c.h, &path));
            way ways[3] = {{&c, 0}, {&c, 1}, {&c, -1}};
            const testing_timed_lib libs[3] = {
                {"pdl off", run_way, &ways[0]}, {"pdl on", run_way, &ways[1]}, {"cuBLAS", run_way, &ways[2]}};
            const testing_timing_options opt = {.warmup = 3, .rounds = rounds, .host_reps = 0, .spin_us = 0.0};
            testing_timing tm;
            if (testing_time_interleaved(libs, 3, stream, &opt, &tm) != 0) {
                fprintf(stderr, "FAIL: a timed chain failed (%s)\n", wsgemm_get_last_error_message(c.h));
                failed = 1;
            } else {
                const double off = tm.lib[0].gpu_ms * 1e3, on = tm.lib[1].gpu_ms * 1e3, cb = tm.lib[2].gpu_ms * 1e3;
                printf("%7d %-6s | %10.1f %10.1f %10.1f | %7.3fx %9.3fx%s\n", tokens[t], wsgemm_path_name(path), off,
                       on, cb, off / on, cb / on,
                       tm.held_rounds < tm.rounds ? " (not every round held by the spin kernel)" : "");
            }
        }
        CUBLAS_CHECK(cublasDestroy(c.cublas));
        WSGEMM_CHECK(wsgemm_destroy(c.h));
        chain_destroy(&c);
    }
    printf("on/off: the DEFAULT chain's time over the PDL chain's; on vs cb: cuBLAS's time over the PDL chain's "
           "(above 1: wsgemm faster)\n");
    CUDA_CHECK(cudaStreamDestroy(stream));
    return failed;
}
