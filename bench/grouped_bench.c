// SPDX-License-Identifier: MIT
/*
 * grouped_bench.c - wsgemm-grouped-bench: the mixture-of-experts suite, wsgemm_gemm_grouped_ex (one call,
 * the sizes on the device) beside a loop of cublasGemmEx (one call per group, the sizes known on the host:
 * the loop's best case), GPU time side by side on one stream (testing_time_interleaved: the calls queued
 * behind a spin kernel, rounds interleaved, the median of the rounds).
 *
 * The cases, in torch's row-major terms (tokens x hidden times each expert's hidden x width; the call is
 * the column-major one grouped along N, as wsgemm.grouped_mm makes it):
 *   deepseek_up / deepseek_down      256 experts, hidden 7168, expert width 2048, 8 experts per token,
 *                                    --tokens tokens (4096), uniform routing; _zipf: Zipf-skewed routing
 *   mixtral_up / mixtral_down        8 experts, hidden 4096, width 14336, 2 per token, --tokens tokens
 *   masked_decode                    32 experts x 64 tokens (masked, capacity 64), 7168 x 2048
 * Inputs uniform [-1, 1] bf16, bf16 out. The weights are K-major by default (torch's nn.Linear layout,
 * [width, hidden] row-major: transa T), the layout the sm90 grouped kernel reads on Hopper; --weights n-major
 * stores them [hidden, width] (transa N), which runs on the generic path. One line per case: GPU ms and
 * TFLOP/s of each, the ratio, and the path wsgemm ran.
 *
 *   wsgemm-grouped-bench [--case NAME] [--tokens N] [--rounds N] [--warmup N] [--weights k-major|n-major]
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "cli.h"
#include "testing.h"
#include "wsgemm.h"

static const char kProg[] = "wsgemm-grouped-bench";

typedef struct bench_case {
    const char *name;
    int experts, hidden_in, width_out; /* K and N of each expert's matrix */
    int per_token;                     /* experts per token (contiguous); 0: masked */
    int zipf;                          /* Zipf-skewed routing */
    int capacity;                      /* masked: tokens per expert */
} bench_case;

static const bench_case kCases[] = {
    {"deepseek_up", 256, 7168, 2048, 8, 0, 0},      {"deepseek_down", 256, 2048, 7168, 8, 0, 0},
    {"deepseek_up_zipf", 256, 7168, 2048, 8, 1, 0}, {"deepseek_down_zipf", 256, 2048, 7168, 8, 1, 0},
    {"mixtral_up", 8, 4096, 14336, 2, 0, 0},        {"mixtral_down", 8, 14336, 4096, 2, 0, 0},
    {"masked_decode", 32, 7168, 2048, 0, 0, 64},
};

typedef struct bench_run {
    const bench_case *c;
    int rows;    /* routed rows in all (contiguous) or the capacity (masked) */
    int *counts; /* host: rows of each group */
    int *ends;   /* host: cumulative ends (contiguous) */
    void *x, *w, *out;
    int *sizes;    /* device: ends or counts */
    int w_k_major; /* each expert's weights hidden-contiguous (transa T), else width-contiguous */
    wsgemm_handle h;
    cublasHandle_t cb;
} bench_run;

/* Rows per expert: tokens * per_token spread evenly, or by a Zipf law of exponent 1 (each expert at most
 * once per token, so at most `tokens` rows), the remainder to the first experts. */
static void route(const bench_case *c, int tokens, int *counts)
{
    const long long total = (long long)tokens * c->per_token;
    double weight_sum = 0.0;
    for (int g = 0; g < c->experts; ++g) weight_sum += c->zipf ? 1.0 / (g + 1) : 1.0;
    long long given = 0;
    for (int g = 0; g < c->experts; ++g) {
        long long n = (long long)floor((double)total * (c->zipf ? 1.0 / (g + 1) : 1.0) / weight_sum);
        if (n > tokens) n = tokens;
        counts[g] = (int)n;
        given += n;
    }
    for (int g = 0; given < total; g = (g + 1) % c->experts)
        if (counts[g] < tokens) {
            counts[g]++;
            given++;
        }
}

static int call_wsgemm(void *ctx, int i)
{
    (void)i;
    bench_run *r = ctx;
    const bench_case *c = r->c;
    const float one = 1.0f, zero = 0.0f;
    const int masked = c->per_token == 0;
    wsgemm_grouped_desc d;
    if (wsgemm_grouped_desc_init(&d, masked ? WSGEMM_GROUPED_MASKED : WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N,
                                 c->experts, r->sizes) != WSGEMM_STATUS_SUCCESS)
        return 1;
    const long long per_x = masked ? (long long)c->capacity * c->hidden_in : 0;
    const long long per_out = masked ? (long long)c->capacity * c->width_out : 0;
    const wsgemm_status s = wsgemm_gemm_grouped_ex(
        r->h, &d, r->w_k_major ? WSGEMM_OP_T : WSGEMM_OP_N, WSGEMM_OP_N, c->width_out, r->rows, c->hidden_in, &one,
        r->w, WSGEMM_R_16BF, r->w_k_major ? c->hidden_in : c->width_out, (long long)c->hidden_in * c->width_out, r->x,
        WSGEMM_R_16BF, c->hidden_in, per_x, &zero, r->out, WSGEMM_R_16BF, c->width_out, per_out);
    if (s != WSGEMM_STATUS_SUCCESS) fprintf(stderr, "%s: %s\n", kProg, wsgemm_get_last_error_message(r->h));
    return s != WSGEMM_STATUS_SUCCESS;
}

static int call_cublas_loop(void *ctx, int i)
{
    (void)i;
    bench_run *r = ctx;
    const bench_case *c = r->c;
    const float one = 1.0f, zero = 0.0f;
    const int masked = c->per_token == 0;
    for (int g = 0; g < c->experts; ++g) {
        if (r->counts[g] == 0) continue;
        const long long start = masked ? (long long)g * c->capacity : (g == 0 ? 0 : r->ends[g - 1]);
        const uint16_t *w = (const uint16_t *)r->w + (long long)g * c->hidden_in * c->width_out;
        const uint16_t *x = (const uint16_t *)r->x + start * c->hidden_in;
        uint16_t *out = (uint16_t *)r->out + start * c->width_out;
        if (cublasGemmEx(r->cb, r->w_k_major ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, c->width_out, r->counts[g],
                         c->hidden_in, &one, w, CUDA_R_16BF, r->w_k_major ? c->hidden_in : c->width_out, x, CUDA_R_16BF,
                         c->hidden_in, &zero, out, CUDA_R_16BF, c->width_out, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
            return 1;
    }
    return 0;
}

static int run_case(const bench_case *c, int tokens, int rounds, int warmup, int w_k_major, cudaStream_t stream)
{
    bench_run r = {.c = c, .w_k_major = w_k_major};
    const int masked = c->per_token == 0;
    r.counts = calloc((size_t)c->experts, sizeof(int));
    r.ends = calloc((size_t)c->experts, sizeof(int));
    long long routed = 0;
    if (masked) {
        for (int g = 0; g < c->experts; ++g) r.counts[g] = c->capacity;
        r.rows = c->capacity;
    } else {
        route(c, tokens, r.counts);
    }
    for (int g = 0; g < c->experts; ++g) {
        routed += r.counts[g];
        r.ends[g] = (int)routed;
    }
    if (!masked) r.rows = (int)routed;
    const long long x_rows = masked ? (long long)c->experts * c->capacity : routed;
    const size_t x_elems = (size_t)x_rows * c->hidden_in, out_elems = (size_t)x_rows * c->width_out;
    const size_t w_elems = (size_t)c->experts * c->hidden_in * c->width_out;
    CUDA_CHECK(cudaMalloc(&r.x, x_elems * 2));
    CUDA_CHECK(cudaMalloc(&r.w, w_elems * 2));
    CUDA_CHECK(cudaMalloc(&r.out, out_elems * 2));
    CUDA_CHECK(cudaMalloc((void **)&r.sizes, sizeof(int) * (size_t)c->experts));
    testing_device_fill_uniform(WSGEMM_R_16BF, r.x, x_elems, 11);
    testing_device_fill_uniform(WSGEMM_R_16BF, r.w, w_elems, 12);
    CUDA_CHECK(
        cudaMemcpy(r.sizes, masked ? r.counts : r.ends, sizeof(int) * (size_t)c->experts, cudaMemcpyHostToDevice));
    WSGEMM_CHECK(wsgemm_create(&r.h));
    WSGEMM_CHECK(wsgemm_set_stream(r.h, stream));
    CUBLAS_CHECK(cublasCreate(&r.cb));
    CUBLAS_CHECK(cublasSetStream(r.cb, stream));
    CUDA_CHECK(cudaDeviceSynchronize());

    const testing_timed_lib libs[2] = {{"wsgemm", call_wsgemm, &r}, {"cublas_loop", call_cublas_loop, &r}};
    const testing_timing_options opt = {.warmup = warmup, .rounds = rounds, .host_reps = 0};
    testing_timing t;
    const int failed = testing_time_interleaved(libs, 2, stream, &opt, &t);
    wsgemm_path path = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(r.h, &path);
    if (!failed) {
        const double flop = 2.0 * (double)routed * c->hidden_in * c->width_out;
        const double ws = t.lib[0].gpu_ms, cb = t.lib[1].gpu_ms;
        printf("%-20s %6d %8lld %6d %6d %8.3f %8.1f %8.3f %8.1f %7.3f  %s\n", c->name, c->experts, routed, c->hidden_in,
               c->width_out, ws, flop / ws * 1e-9, cb, flop / cb * 1e-9, cb / ws, wsgemm_path_name(path));
    } else {
        fprintf(stderr, "%s: %s: a timed call failed\n", kProg, c->name);
    }
    cublasDestroy(r.cb);
    wsgemm_destroy(r.h);
    cudaFree(r.x);
    cudaFree(r.w);
    cudaFree(r.out);
    cudaFree(r.sizes);
    free(r.counts);
    free(r.ends);
    return failed;
}

int main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: %s [--case NAME] [--tokens N] [--rounds N] [--warmup N] [--weights k-major|n-major]\n"
               "  the grouped GEMM beside a loop of cublasGemmEx, GPU time side by side; cases:\n",
               kProg);
        for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) printf("    %s\n", kCases[i].name);
        return 0;
    }
    const char *only = NULL;
    int tokens = 4096, rounds = 5, warmup = 1, w_k_major = 1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = cli_value(kProg, argc, argv, &i);
        if (strcmp(a, "--case") == 0)
            only = v;
        else if (strcmp(a, "--tokens") == 0)
            tokens = cli_int(kProg, a, v, 1, 1 << 20);
        else if (strcmp(a, "--rounds") == 0)
            rounds = cli_int(kProg, a, v, 1, 1000);
        else if (strcmp(a, "--warmup") == 0)
            warmup = cli_int(kProg, a, v, 0, 1000);
        else if (strcmp(a, "--weights") == 0 && (!strcmp(v, "k-major") || !strcmp(v, "n-major")))
            w_k_major = !strcmp(v, "k-major");
        else if (strcmp(a, "--weights") == 0)
            cli_fail(kProg, "--weights '%s' is not k-major or n-major", v);
        else
            cli_fail(kProg, "unknown flag '%s'", a);
    }
    int known = only == NULL;
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) known |= only && !strcmp(only, kCases[i].name);
    if (!known) cli_fail(kProg, "--case '%s' is not a case (--help lists them)", only);
    if (testing_gpu_count() == 0) return cli_no_gpu(kProg, "nothing to time");
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    printf("weights %s\n", w_k_major ? "k-major (transa T)" : "n-major (transa N)");
    printf("%-20s %6s %8s %6s %6s %8s %8s %8s %8s %7s  %s\n", "case", "groups", "rows", "K", "N", "ws_ms", "ws_TF",
           "loop_ms", "loop_TF", "speedup", "path");
    int failed = 0;
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i)
        if (!only || !strcmp(only, kCases[i].name))
            failed |= run_case(&kCases[i], tokens, rounds, warmup, w_k_major, stream);
    cudaStreamDestroy(stream);
    return failed;
}
