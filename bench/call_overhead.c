// SPDX-License-Identifier: MIT
/*
 * call_overhead.c - what one call of a tiny GEMM costs the host: wsgemm_gemm_ex beside cublasGemmEx on the
 * same data and the same stream (bf16 in and out, fp32 accumulation), for 64^3 and 128^3.
 *
 *   wsgemm-call-overhead [--calls 20000] [--rounds 5]
 *
 * queued: wall-clock time of `calls` calls issued back to back with nothing synchronized in between,
 *         divided by `calls` (the final drain is not counted). The launch queue is bounded, so when the GPU
 *         runs the calls slower than the host issues them this number follows the GPU; the gpu column
 *         (CUDA events around the same loop, per call) shows when that happens.
 * idle:   the host time inside each call alone, with the stream synchronized after every call (outside the
 *         timed part), so every call starts on an idle GPU: what the call itself costs the calling thread.
 * Each number is the median of `rounds` rounds; wsgemm and cuBLAS rounds alternate. Both results are first
 * checked against cuBLAS (fp32 reference). Exit 0, 1 when a check or a call fails, 2 on bad arguments
 * (bench/cli.h); without a GPU it says so on stderr and exits 0.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "cli.h"
#include "testing.h"

enum { kWarmup = 200, kMaxRounds = 64 };

typedef struct bench {
    testing_gemm g;
    testing_buffers b;
    wsgemm_handle h;
    cublasHandle_t cublas;
    cudaStream_t stream;
} bench;

typedef int (*bench_call)(const bench *b);

static int call_wsgemm(const bench *b)
{
    return testing_run_wsgemm(b->h, &b->g, &b->b) != WSGEMM_STATUS_SUCCESS;
}

static int call_cublas(const bench *b)
{
    const testing_gemm *g = &b->g;
    return cublasGemmEx(b->cublas, (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, g->m, g->n, g->k,
                        &g->alpha, b->b.A, (cudaDataType_t)g->ab_type, g->lda, b->b.B, (cudaDataType_t)g->ab_type,
                        g->ldb, &g->beta, b->b.C, (cudaDataType_t)g->c_type, g->ldc, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS;
}

/* One round: host microseconds per call, and GPU microseconds per call between events around the loop. */
static void round_us(bench_call call, const bench *b, int calls, int sync_each, double *host_us, double *gpu_us)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaStreamSynchronize(b->stream));
    CUDA_CHECK(cudaEventRecord(start, b->stream));
    double t0 = testing_now_us(), inside = 0.0;
    for (int i = 0; i < calls; ++i) {
        double c0 = testing_now_us();
        if (call(b) != 0) {
            fprintf(stderr, "FAIL: call %d failed (%s)\n", i, wsgemm_get_last_error_message(b->h));
            exit(1);
        }
        inside += testing_now_us() - c0;
        if (sync_each) CUDA_CHECK(cudaStreamSynchronize(b->stream));
    }
    double t1 = sync_each ? t0 + inside : testing_now_us();
    CUDA_CHECK(cudaEventRecord(stop, b->stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    *host_us = (t1 - t0) / calls;
    *gpu_us = ms * 1e3 / calls;
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}

typedef struct result {
    float host_us[2], gpu_us[2]; /* [0] wsgemm, [1] cuBLAS: medians over the rounds */
} result;

static result measure(const bench *b, int calls, int rounds, int sync_each)
{
    const bench_call calls_of[2] = {call_wsgemm, call_cublas};
    double host[2][kMaxRounds], gpu[2][kMaxRounds];
    for (int r = 0; r < rounds; ++r)
        for (int lib = 0; lib < 2; ++lib) round_us(calls_of[lib], b, calls, sync_each, &host[lib][r], &gpu[lib][r]);
    result out;
    for (int lib = 0; lib < 2; ++lib) {
        out.host_us[lib] = (float)testing_quantile(host[lib], rounds, 0.5);
        out.gpu_us[lib] = (float)testing_quantile(gpu[lib], rounds, 0.5);
    }
    return out;
}

static const char kProg[] = "wsgemm-call-overhead";

static void usage(void)
{
    printf("usage: %s [--calls N] [--rounds R (1..%d)]\n"
           "       %s --help\n"
           "Host microseconds per call of a small GEMM, wsgemm beside cublasGemmEx. Exit 0 (also without a CUDA\n"
           "device: nothing run); 1: a check failed; 2: bad arguments.\n",
           kProg, kMaxRounds, kProg);
}

int main(int argc, char **argv)
{
    int calls = 20000, rounds = 5;
    if (cli_wants_help(argc, argv)) {
        usage();
        return 0;
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = cli_value(kProg, argc, argv, &i);
        if (!strcmp(a, "--calls"))
            calls = cli_int(kProg, a, v, 1, INT_MAX);
        else if (!strcmp(a, "--rounds"))
            rounds = cli_int(kProg, a, v, 1, kMaxRounds);
        else
            cli_fail(kProg, "unknown flag '%s'", a);
    }
    if (testing_gpu_count() == 0) return cli_no_gpu(kProg, "nothing to run");

    const int sizes[2] = {64, 128};
    int failed = 0;
    printf("host microseconds per call, bf16 GEMM, median of %d rounds of %d calls (gpu: per call, CUDA events)\n",
           rounds, calls);
    printf("%-7s %-7s %-6s | %9s %9s %6s | %9s %9s\n", "size", "mode", "path", "wsgemm", "cuBLAS", "ws/cb", "gpu ws",
           "gpu cb");
    for (int s = 0; s < 2; ++s) {
        bench b;
        memset(&b, 0, sizeof b);
        b.g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, sizes[s], sizes[s], sizes[s]);
        testing_gemm_resolve(&b.g);
        WSGEMM_CHECK(wsgemm_create(&b.h));
        /* correctness first: the same call checked against cuBLAS */
        if (!testing_case_against_cublas(b.h, &b.g, WSGEMM_PATH_AUTO, 1 + (uint64_t)s, 0)) {
            failed = 1;
            WSGEMM_CHECK(wsgemm_destroy(b.h));
            continue;
        }
        testing_buffers_create(&b.g, 100 + (uint64_t)s, &b.b);
        CUDA_CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
        CUBLAS_CHECK(cublasCreate(&b.cublas));
        CUBLAS_CHECK(cublasSetStream(b.cublas, b.stream));
        WSGEMM_CHECK(wsgemm_set_stream(b.h, b.stream));
        for (int i = 0; i < kWarmup; ++i)
            if (call_wsgemm(&b) || call_cublas(&b)) {
                fprintf(stderr, "FAIL: warm-up call failed\n");
                return 1;
            }
        CUDA_CHECK(cudaStreamSynchronize(b.stream));
        wsgemm_path path = WSGEMM_PATH_NONE;
        WSGEMM_CHECK(wsgemm_get_last_path(b.h, &path));
        for (int sync_each = 0; sync_each < 2; ++sync_each) {
            result r = measure(&b, calls, rounds, sync_each);
            char size[16];
            snprintf(size, sizeof size, "%d^3", sizes[s]);
            printf("%-7s %-7s %-6s | %9.2f %9.2f %6.2f | %9.2f %9.2f\n", size, sync_each ? "idle" : "queued",
                   wsgemm_path_name(path), r.host_us[0], r.host_us[1], r.host_us[0] / r.host_us[1], r.gpu_us[0],
                   r.gpu_us[1]);
        }
        CUBLAS_CHECK(cublasDestroy(b.cublas));
        WSGEMM_CHECK(wsgemm_destroy(b.h));
        CUDA_CHECK(cudaStreamDestroy(b.stream));
        testing_buffers_destroy(&b.b);
    }
    return failed;
}
