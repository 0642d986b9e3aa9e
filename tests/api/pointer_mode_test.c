// SPDX-License-Identifier: MIT
/*
 * pointer_mode_test.c - WSGEMM_POINTER_MODE_DEVICE on the GPU (skipped without one), one ctest entry per case:
 *   gemm      gemm_ex and strided batched, several (alpha, beta) pairs, ops, edges and C types
 *   k0        k == 0: C = beta * C with a device beta
 *   splitk    a K long enough for the generic path's split-K (the reduction applies the device values)
 *   matmul    wsgemm_matmul with an epilogue, a C other than D, FP8 operands with device scales
 *   graph     a captured call reads alpha and beta when the graph runs, not when it was captured
 *   refusals  a forced fast path declines (C untouched), alpha in host memory is INVALID_VALUE naming it
 * Each result of DEVICE mode (AUTO, which must run the generic path) is compared element by element with the
 * same call in HOST mode on the forced generic path with the same values: the same kernel, so the same bits
 * (a zero's sign aside). A, B uniform [-1, 1]; C NaN-poisoned where beta == 0, and A and B NaN-poisoned where
 * alpha == 0, so that an operand the call must not read cannot leak into the result.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "testing.h"

static int failures = 0;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

typedef struct scalars {
    float alpha, beta;
} scalars;
static const scalars kScalars[] = {{1.5f, 0.0f}, {0.75f, -0.5f}, {0.0f, 0.5f}, {0.0f, 0.0f}, {1.0f, 1.0f}};
enum { kScalarCount = sizeof kScalars / sizeof kScalars[0] };

/* Device memory of `bytes`, filled uniform [-1, 1] as `type`, or with NaN (all bits set: NaN in every type). */
static void *device_operand(wsgemm_dtype type, size_t count, uint64_t seed, int nan)
{
    const size_t bytes = count * (size_t)testing_dtype_bytes(type);
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    if (nan)
        CUDA_CHECK(cudaMemset(p, 0xFF, bytes));
    else
        testing_device_fill_uniform(type, p, count, seed);
    return p;
}

/* The two results (host copies of C or D) agree element by element, and hold no NaN where none may be. */
static void expect_same(const char *what, wsgemm_dtype type, const void *host_mode, const void *device_mode,
                        size_t count, int nan_free)
{
    size_t mismatches = 0, nans = 0;
    for (size_t i = 0; i < count; ++i) {
        const float a = testing_load(type, host_mode, i), b = testing_load(type, device_mode, i);
        const int same = (isnan(a) && isnan(b)) || a == b;
        if (!same && mismatches++ < 5)
            fprintf(stderr, "  %s: element %zu: host mode %.9g, device mode %.9g\n", what, i, (double)a, (double)b);
        if (nan_free && (isnan(a) || isnan(b)) && nans++ < 5)
            fprintf(stderr, "  %s: element %zu is NaN (host mode %.9g, device mode %.9g)\n", what, i, (double)a,
                    (double)b);
    }
    printf("  %s: %zu elements, %zu mismatches, %zu NaN\n", what, count, mismatches, nans);
    EXPECT(mismatches == 0 && nans == 0, "%s: %zu of %zu elements differ, %zu NaN", what, mismatches, count, nans);
}

/* Device floats alpha and beta (one allocation). */
static float *device_scalars(scalars s)
{
    float *d = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, 2 * sizeof(float)));
    const float v[2] = {s.alpha, s.beta};
    CUDA_CHECK(cudaMemcpy(d, v, sizeof v, cudaMemcpyHostToDevice));
    return d;
}

static void expect_path(wsgemm_handle h, wsgemm_path want, const char *what)
{
    wsgemm_path got = WSGEMM_PATH_NONE;
    WSGEMM_CHECK(wsgemm_get_last_path(h, &got));
    EXPECT(got == want, "%s ran path %s, expected %s", what, wsgemm_path_name(got), wsgemm_path_name(want));
}

/* ---------------------------------------------------------------- gemm_ex, strided batched, k == 0, split-K */

typedef struct gemm_case {
    wsgemm_op ta, tb;
    int m, n, k, batch;
    wsgemm_dtype ab, c;
} gemm_case;

static wsgemm_status issue_gemm(wsgemm_handle h, const gemm_case *g, const float *alpha, const float *beta,
                                const void *A, const void *B, void *C)
{
    const int lda = g->ta == WSGEMM_OP_N ? g->m : g->k, ldb = g->tb == WSGEMM_OP_N ? g->k : g->n;
    const int a_cols = g->ta == WSGEMM_OP_N ? g->k : g->m, b_cols = g->tb == WSGEMM_OP_N ? g->n : g->k;
    const int ldc = g->m + 3; /* padding rows: both modes must leave them */
    if (g->batch == 1)
        return wsgemm_gemm_ex(h, g->ta, g->tb, g->m, g->n, g->k, alpha, A, g->ab, lda > 0 ? lda : 1, B, g->ab,
                              ldb > 0 ? ldb : 1, beta, C, g->c, ldc);
    return wsgemm_gemm_strided_batched_ex(h, g->ta, g->tb, g->m, g->n, g->k, alpha, A, g->ab, lda > 0 ? lda : 1,
                                          (long long)lda * a_cols, B, g->ab, ldb > 0 ? ldb : 1, (long long)ldb * b_cols,
                                          beta, C, g->c, ldc, (long long)ldc * g->n, g->batch);
}

static size_t elems_a(const gemm_case *g)
{
    return (size_t)g->m * g->k * g->batch;
}
static size_t elems_b(const gemm_case *g)
{
    return (size_t)g->k * g->n * g->batch;
}
static size_t elems_c(const gemm_case *g)
{
    return (size_t)(g->m + 3) * g->n * g->batch;
}

/* One case in both modes with each pair of kScalars. */
static void check_gemm(wsgemm_handle h, const gemm_case *g, uint64_t seed)
{
    const size_t nc = elems_c(g), cbytes = nc * (size_t)testing_dtype_bytes(g->c);
    void *host_mode = malloc(cbytes), *device_mode = malloc(cbytes);
    void *C = NULL;
    CUDA_CHECK(cudaMalloc(&C, cbytes));
    for (int s = 0; s < kScalarCount; ++s) {
        const scalars v = kScalars[s];
        void *A = device_operand(g->ab, elems_a(g), seed + 1, v.alpha == 0.0f);
        void *B = device_operand(g->ab, elems_b(g), seed + 2, v.alpha == 0.0f);
        void *C0 = device_operand(g->c, nc, seed + 3, v.beta == 0.0f);
        float *dev = device_scalars(v);
        char what[160];
        snprintf(what, sizeof what, "%s%s m=%d n=%d k=%d batch=%d %s->%s alpha=%g beta=%g",
                 g->ta == WSGEMM_OP_N ? "N" : "T", g->tb == WSGEMM_OP_N ? "N" : "T", g->m, g->n, g->k, g->batch,
                 testing_dtype_name(g->ab), testing_dtype_name(g->c), (double)v.alpha, (double)v.beta);

        WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_GENERIC));
        CUDA_CHECK(cudaMemcpy(C, C0, cbytes, cudaMemcpyDeviceToDevice));
        WSGEMM_CHECK(issue_gemm(h, g, &v.alpha, &v.beta, A, B, C));
        CUDA_CHECK(cudaMemcpy(host_mode, C, cbytes, cudaMemcpyDeviceToHost));

        WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
        CUDA_CHECK(cudaMemcpy(C, C0, cbytes, cudaMemcpyDeviceToDevice));
        WSGEMM_CHECK(issue_gemm(h, g, &dev[0], &dev[1], A, B, C));
        expect_path(h, WSGEMM_PATH_GENERIC, what);
        CUDA_CHECK(cudaMemcpy(device_mode, C, cbytes, cudaMemcpyDeviceToHost));
        /* the padding rows keep C0's values, NaN where beta == 0: compare, but ask NaN-freedom of C only
         * when nothing in it may be NaN */
        expect_same(what, g->c, host_mode, device_mode, nc, 0);
        if (v.beta == 0.0f)
            for (int b = 0; b < g->batch; ++b)
                for (int j = 0; j < g->n; ++j)
                    for (int i = 0; i < g->m; ++i) {
                        const size_t e = (size_t)b * (g->m + 3) * g->n + (size_t)j * (g->m + 3) + i;
                        if (isnan(testing_load(g->c, device_mode, e)) && failures < 20)
                            EXPECT(0, "%s: NaN leaked into C(%d, %d) of batch %d", what, i, j, b);
                    }
        CUDA_CHECK(cudaFree(A));
        CUDA_CHECK(cudaFree(B));
        CUDA_CHECK(cudaFree(C0));
        CUDA_CHECK(cudaFree(dev));
    }
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
    CUDA_CHECK(cudaFree(C));
    free(host_mode);
    free(device_mode);
}

static void case_gemm(wsgemm_handle h)
{
    testing_require_gpu("pointer_mode_test gemm");
    const gemm_case cases[] = {
        {WSGEMM_OP_N, WSGEMM_OP_N, 130, 70, 50, 1, WSGEMM_R_16BF, WSGEMM_R_16BF},
        {WSGEMM_OP_T, WSGEMM_OP_N, 256, 128, 96, 1, WSGEMM_R_16F, WSGEMM_R_32F},
        {WSGEMM_OP_N, WSGEMM_OP_T, 97, 33, 200, 3, WSGEMM_R_16BF, WSGEMM_R_32F},
        {WSGEMM_OP_T, WSGEMM_OP_T, 64, 190, 64, 2, WSGEMM_R_16F, WSGEMM_R_16F},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_gemm(h, &cases[i], 100 * i + 7);
}

static void case_k0(wsgemm_handle h)
{
    testing_require_gpu("pointer_mode_test k0");
    const gemm_case cases[] = {
        {WSGEMM_OP_N, WSGEMM_OP_N, 65, 33, 0, 1, WSGEMM_R_16BF, WSGEMM_R_16BF},
        {WSGEMM_OP_T, WSGEMM_OP_N, 40, 17, 0, 2, WSGEMM_R_16F, WSGEMM_R_32F},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_gemm(h, &cases[i], 100 * i + 11);
}

static void case_splitk(wsgemm_handle h)
{
    testing_require_gpu("pointer_mode_test splitk");
    /* above the generic path's longest chain (262144): its fp32 partials and the reduction */
    const gemm_case g = {WSGEMM_OP_T, WSGEMM_OP_N, 24, 16, 262144 + 96, 1, WSGEMM_R_16BF, WSGEMM_R_16BF};
    check_gemm(h, &g, 13);
}

/* ---------------------------------------------------------------- matmul */

typedef struct matmul_case {
    wsgemm_dtype ab, c, d;
    wsgemm_matmul_epilogue epilogue;
    int scales; /* a_scale, b_scale, c_scale on the device */
} matmul_case;

static void check_matmul(wsgemm_handle h, const matmul_case *mc, uint64_t seed)
{
    const int m = 136, n = 72, k = 80;
    const size_t nd = (size_t)m * n, dbytes = nd * (size_t)testing_dtype_bytes(mc->d);
    void *host_mode = malloc(dbytes), *device_mode = malloc(dbytes);
    void *bias = device_operand(WSGEMM_R_32F, (size_t)m, seed + 4, 0);
    float *scales = NULL;
    CUDA_CHECK(cudaMalloc((void **)&scales, 3 * sizeof(float)));
    const float scale_values[3] = {0.5f, 1.25f, 0.75f};
    CUDA_CHECK(cudaMemcpy(scales, scale_values, sizeof scale_values, cudaMemcpyHostToDevice));
    void *D = NULL;
    CUDA_CHECK(cudaMalloc(&D, dbytes));
    void *D0 = device_operand(mc->d, nd, seed + 5, 1); /* D is written, never read: NaN before each run */
    for (int s = 0; s < kScalarCount; ++s) {
        const scalars v = kScalars[s];
        void *A = device_operand(mc->ab, (size_t)m * k, seed + 1, v.alpha == 0.0f);
        void *B = device_operand(mc->ab, (size_t)k * n, seed + 2, v.alpha == 0.0f);
        void *C = device_operand(mc->c, nd, seed + 3, v.beta == 0.0f); /* a C other than D */
        float *dev = device_scalars(v);
        wsgemm_matmul_desc d;
        WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_T, WSGEMM_OP_N, mc->ab, mc->d));
        d.Ctype = mc->c;
        d.epilogue = mc->epilogue;
        d.bias = bias;
        d.bias_type = WSGEMM_R_32F;
        if (mc->scales) {
            d.a_scale = &scales[0];
            d.b_scale = &scales[1];
            d.c_scale = &scales[2];
        }
        char what[160];
        snprintf(what, sizeof what, "matmul %s x %s, C %s, D %s, epilogue %d%s alpha=%g beta=%g",
                 testing_dtype_name(mc->ab), testing_dtype_name(mc->ab), testing_dtype_name(mc->c),
                 testing_dtype_name(mc->d), (int)mc->epilogue, mc->scales ? ", scales" : "", (double)v.alpha,
                 (double)v.beta);

        WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_GENERIC));
        CUDA_CHECK(cudaMemcpy(D, D0, dbytes, cudaMemcpyDeviceToDevice));
        WSGEMM_CHECK(wsgemm_matmul(h, &d, m, n, k, &v.alpha, A, k, B, k, &v.beta, C, m, D, m));
        CUDA_CHECK(cudaMemcpy(host_mode, D, dbytes, cudaMemcpyDeviceToHost));

        WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
        CUDA_CHECK(cudaMemcpy(D, D0, dbytes, cudaMemcpyDeviceToDevice));
        WSGEMM_CHECK(wsgemm_matmul(h, &d, m, n, k, &dev[0], A, k, B, k, &dev[1], C, m, D, m));
        expect_path(h, WSGEMM_PATH_GENERIC, what);
        CUDA_CHECK(cudaMemcpy(device_mode, D, dbytes, cudaMemcpyDeviceToHost));
        expect_same(what, mc->d, host_mode, device_mode, nd, 1);
        CUDA_CHECK(cudaFree(A));
        CUDA_CHECK(cudaFree(B));
        CUDA_CHECK(cudaFree(C));
        CUDA_CHECK(cudaFree(dev));
    }
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
    CUDA_CHECK(cudaFree(D));
    CUDA_CHECK(cudaFree(D0));
    CUDA_CHECK(cudaFree(bias));
    CUDA_CHECK(cudaFree(scales));
    free(host_mode);
    free(device_mode);
}

static void case_matmul(wsgemm_handle h)
{
    testing_require_gpu("pointer_mode_test matmul");
    const matmul_case cases[] = {
        {WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_MATMUL_EPILOGUE_GELU_BIAS, 0},
        {WSGEMM_R_16F, WSGEMM_R_32F, WSGEMM_R_32F, WSGEMM_MATMUL_EPILOGUE_RELU, 1},
        {WSGEMM_R_8F_E4M3, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_MATMUL_EPILOGUE_BIAS, 1},
        {WSGEMM_R_8F_E4M3, WSGEMM_R_16BF, WSGEMM_R_8F_E4M3, WSGEMM_MATMUL_EPILOGUE_DEFAULT, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_matmul(h, &cases[i], 100 * i + 17);
}

/* ---------------------------------------------------------------- graph capture */

static void case_graph(wsgemm_handle h)
{
    testing_require_gpu("pointer_mode_test graph");
    const gemm_case g = {WSGEMM_OP_N, WSGEMM_OP_N, 128, 96, 64, 1, WSGEMM_R_16BF, WSGEMM_R_32F};
    const size_t nc = elems_c(&g), cbytes = nc * sizeof(float);
    void *A = device_operand(g.ab, elems_a(&g), 21, 0), *B = device_operand(g.ab, elems_b(&g), 22, 0);
    void *C0 = device_operand(g.c, nc, 23, 0), *C = NULL;
    CUDA_CHECK(cudaMalloc(&C, cbytes));
    float *dev = device_scalars((scalars){0.0f, 0.0f}); /* the values at capture time: not the ones that run */
    void *host_mode = malloc(cbytes), *device_mode = malloc(cbytes);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    WSGEMM_CHECK(wsgemm_set_stream(h, stream));
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const wsgemm_status captured = issue_gemm(h, &g, &dev[0], &dev[1], A, B, C);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    EXPECT(captured == WSGEMM_STATUS_SUCCESS, "captured call: %s (%s)", wsgemm_status_string(captured),
           wsgemm_get_last_error_message(h));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    const scalars runs[] = {{2.0f, 0.0f}, {-1.0f, 0.5f}, {0.0f, 1.0f}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        char what[96];
        snprintf(what, sizeof what, "graph run %zu: alpha=%g beta=%g", r, (double)runs[r].alpha, (double)runs[r].beta);
        /* host mode, the same values, generic path */
        WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_GENERIC));
        CUDA_CHECK(cudaMemcpyAsync(C, C0, cbytes, cudaMemcpyDeviceToDevice, stream)); /* all on the one stream */
        WSGEMM_CHECK(issue_gemm(h, &g, &runs[r].alpha, &runs[r].beta, A, B, C));
        CUDA_CHECK(cudaMemcpyAsync(host_mode, C, cbytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
        /* the graph, with the values written after its capture, stream-ordered before it */
        const float v[2] = {runs[r].alpha, runs[r].beta};
        CUDA_CHECK(cudaMemcpyAsync(C, C0, cbytes, cudaMemcpyDeviceToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(dev, v, sizeof v, cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaMemcpyAsync(device_mode, C, cbytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        expect_same(what, g.c, host_mode, device_mode, nc, 1);
    }
    WSGEMM_CHECK(wsgemm_set_stream(h, NULL));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    CUDA_CHECK(cudaFree(C0));
    CUDA_CHECK(cudaFree(dev));
    free(host_mode);
    free(device_mode);
}

/* ---------------------------------------------------------------- refusals */

static void case_refusals(wsgemm_handle h)
{
    testing_require_gpu("pointer_mode_test refusals");
    const gemm_case g = {WSGEMM_OP_T, WSGEMM_OP_N, 256, 256, 256, 1, WSGEMM_R_16BF, WSGEMM_R_16BF};
    const size_t nc = elems_c(&g), cbytes = nc * 2;
    void *A = device_operand(g.ab, elems_a(&g), 31, 0), *B = device_operand(g.ab, elems_b(&g), 32, 0);
    void *C = device_operand(g.c, nc, 33, 0);
    void *before = malloc(cbytes), *after = malloc(cbytes);
    CUDA_CHECK(cudaMemcpy(before, C, cbytes, cudaMemcpyDeviceToHost));
    float *dev = device_scalars((scalars){1.0f, 0.0f});
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE));

    const wsgemm_path fast[] = {WSGEMM_PATH_SM90, WSGEMM_PATH_SM100, WSGEMM_PATH_SM100_EMULATED};
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; ++i) {
        WSGEMM_CHECK(wsgemm_set_path(h, fast[i]));
        const wsgemm_status s = issue_gemm(h, &g, &dev[0], &dev[1], A, B, C);
        const char *msg = wsgemm_get_last_error_message(h);
        printf("  forced %s in DEVICE mode -> %s: \"%s\"\n", wsgemm_path_name(fast[i]), wsgemm_status_string(s), msg);
        /* a path this device or build cannot run says so first; one it can run declines device mode */
        EXPECT(s == WSGEMM_STATUS_ARCH_MISMATCH || (s == WSGEMM_STATUS_NOT_SUPPORTED &&
                                                    (strstr(msg, "WSGEMM_POINTER_MODE_DEVICE") != NULL ||
                                                     strstr(msg, "build") != NULL || strstr(msg, "library") != NULL)),
               "forced %s: %s \"%s\"", wsgemm_path_name(fast[i]), wsgemm_status_string(s), msg);
        if (fast[i] == WSGEMM_PATH_SM90 && testing_device_cc() == 90 && strstr(msg, "build") == NULL)
            EXPECT(s == WSGEMM_STATUS_NOT_SUPPORTED && strstr(msg, "WSGEMM_POINTER_MODE_DEVICE") != NULL,
                   "forced sm90 on an sm_90 device declines device mode: %s \"%s\"", wsgemm_status_string(s), msg);
    }
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
    static float host_alpha = 1.0f;
    const wsgemm_status s = issue_gemm(h, &g, &host_alpha, &dev[1], A, B, C);
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  host alpha in DEVICE mode -> %s: \"%s\"\n", wsgemm_status_string(s), msg);
    EXPECT(s == WSGEMM_STATUS_INVALID_VALUE && strstr(msg, "alpha") != NULL, "host alpha: %s \"%s\"",
           wsgemm_status_string(s), msg);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(after, C, cbytes, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(before, after, cbytes) == 0, "a refused call wrote C");
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    CUDA_CHECK(cudaFree(dev));
    free(before);
    free(after);
}

static const testing_handle_case cases[] = {
    {"gemm", case_gemm},     {"k0", case_k0},       {"splitk", case_splitk},
    {"matmul", case_matmul}, {"graph", case_graph}, {"refusals", case_refusals},
};

int main(int argc, char **argv)
{
    return testing_run_handle_case(argc, argv, cases, sizeof cases / sizeof cases[0], &failures);
}
