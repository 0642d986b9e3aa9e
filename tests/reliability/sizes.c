// SPDX-License-Identifier: MIT
/*
 * sizes.c - sizes past 32-bit indexing, which an H200's 141 GB makes valid: k = INT_MAX, K-major operands
 * with k = 2^31 - 16, a C of more than 2^31 elements, an A with lda * k beyond 2^31 elements, a batch
 * beyond the 65535 grid-z limit; and the declines: absurd batch strides and leading dimensions beyond
 * the buffer, with C untouched and the context alive for a following call.
 *
 * Operands of these sizes are generated on the device (a hash of the index, uniform [-1, 1]) and
 * checked against an fp64 reference computed on the device (huge_kernels.cu): the host could neither
 * fill nor multiply them in time. Each case frees what it allocated.
 *
 * Tolerance of the huge-k cases: the fp32 accumulation of k products of size ~1/3 drifts by about
 * 2^-24 * sqrt(k) * |partial sums| in all; against the typical magnitude scale = sqrt(k / 9) of the
 * result we allow scale / 256 absolute plus 1/128 relative (bf16 output rounding is 1/256 relative).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reliability.h"

/* A problem whose operands live only on the device. */
typedef struct huge_problem {
    testing_gemm g; /* resolved, batch 1, beta 0, offset 0 */
    void *A, *B, *C;
    size_t c_bytes;
} huge_problem;

static void *device_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
        printf("FAIL: cudaMalloc of %.2f GB for %s: %s\n", (double)bytes / 1e9, what, cudaGetErrorString(err));
        exit(1);
    }
    return p;
}

static void huge_create(huge_problem *p, const testing_gemm *g, uint64_t seed)
{
    p->g = *g;
    testing_gemm_resolve(&p->g);
    size_t ea = testing_gemm_elems_a(&p->g), eb = testing_gemm_elems_b(&p->g), ec = testing_gemm_elems_c(&p->g);
    p->c_bytes = ec * (size_t)testing_dtype_bytes(p->g.c_type);
    p->A = device_alloc(ea * 2, "A");
    p->B = device_alloc(eb * 2, "B");
    p->C = device_alloc(p->c_bytes, "C");
    rel_device_fill_uniform(p->A, p->g.ab_type, ea, seed * 2 + 1);
    rel_device_fill_uniform(p->B, p->g.ab_type, eb, seed * 2 + 2);
    CUDA_CHECK(cudaMemset(p->C, 0xFF, p->c_bytes)); /* all-ones bytes: NaN in bf16, f16 and f32 */
    char shape[256];
    testing_gemm_describe(&p->g, shape, sizeof shape);
    printf("%s: A %.2f GB, B %.2f GB, C %.2f GB on the device\n", shape, (double)ea * 2 / 1e9, (double)eb * 2 / 1e9,
           (double)p->c_bytes / 1e9);
}

static void huge_destroy(huge_problem *p)
{
    CUDA_CHECK(cudaFree(p->A));
    CUDA_CHECK(cudaFree(p->B));
    CUDA_CHECK(cudaFree(p->C));
}

/* Every element of a small C against the device fp64 reference, and the bytes after the matrix still
 * poison. */
static int check_small_c(const huge_problem *p, double rtol, double atol)
{
    const testing_gemm *g = &p->g;
    double *ref = malloc(sizeof(double) * (size_t)g->m * (size_t)g->n);
    float *cublas = malloc(sizeof(float) * (size_t)g->m * (size_t)g->n);
    unsigned char *got = malloc(p->c_bytes);
    rel_device_reference_small_c(g, p->A, p->B, ref);
    rel_cublas_small_c(g, p->A, p->B, cublas);
    CUDA_CHECK(cudaMemcpy(got, p->C, p->c_bytes, cudaMemcpyDeviceToHost));
    int bad = 0, printed = 0;
    for (int j = 0; j < g->n; ++j)
        for (int i = 0; i < g->m; ++i) {
            double out = testing_load(g->c_type, got, (size_t)i + (size_t)j * (size_t)g->ldc);
            double want = ref[(size_t)i + (size_t)j * (size_t)g->m], err = fabs(out - want);
            int ok = err <= atol + rtol * fabs(want); /* NaN: false */
            bad += !ok;
            if (!ok || printed < 4) {
                const double cb = cublas[(size_t)i + (size_t)j * (size_t)g->m];
                printf("  C(%d,%d) = %.8g, fp64 reference %.8g, |err| %.3g (allowed %.3g); cuBLAS %.8g, |err| %.3g%s\n",
                       i, j, out, want, err, atol + rtol * fabs(want), cb, fabs(cb - want), ok ? "" : "  WRONG");
                printed++;
            }
        }
    const size_t bytes = (size_t)testing_dtype_bytes(g->c_type);
    int padding_ok = 1;
    for (size_t b = 0; b < p->c_bytes; ++b) {
        size_t e = b / bytes, i = e % (size_t)g->ldc, j = e / (size_t)g->ldc;
        int in_matrix = j < (size_t)g->n && i < (size_t)g->m;
        if (!in_matrix && got[b] != 0xFF) padding_ok = 0;
    }
    REL_EXPECT(bad == 0, "%d of %d elements of C are wrong", bad, g->m * g->n);
    REL_EXPECT(padding_ok, "bytes of C outside the m x n matrix were written");
    free(ref);
    free(cublas);
    free(got);
    return bad == 0 && padding_ok;
}

/* A huge C: every element compared on the device. */
static void check_huge_c(const huge_problem *p, double rtol, double atol)
{
    rel_device_report r = rel_device_check_c(&p->g, p->A, p->B, p->C, rtol, atol);
    printf("  %llu elements checked on the device: %llu wrong, %llu NaN, max |err| %.3g\n", r.checked, r.mismatches,
           r.nans, r.max_abs_err);
    REL_EXPECT(r.mismatches == 0, "%llu of %llu elements wrong, the first at C(%lld,%lld)", r.mismatches, r.checked,
               r.first_bad % p->g.m, r.first_bad / p->g.m);
}

/* g on `path` (one call, timed to completion) with operands made on the device, C checked against the fp64
 * reference. A forced fast path may decline it (`may_decline`: NOT_SUPPORTED or INVALID_VALUE, C untouched):
 * "right or a clear decline"; AUTO and generic must compute it. */
static void huge_case(testing_gemm g, wsgemm_path path, uint64_t seed, int may_decline)
{
    if (path == WSGEMM_PATH_SM90) rel_require_sm90();
    huge_problem p;
    huge_create(&p, &g, seed);
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, path));
    const testing_gemm *r = &p.g;
    double t0 = rel_now_ms();
    wsgemm_status s = wsgemm_gemm_ex(h, r->transa, r->transb, r->m, r->n, r->k, &r->alpha, p.A, r->ab_type, r->lda, p.B,
                                     r->ab_type, r->ldb, &r->beta, p.C, r->c_type, r->ldc);
    cudaError_t err = cudaDeviceSynchronize();
    double seconds = (rel_now_ms() - t0) / 1e3;
    wsgemm_path ran = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &ran);
    printf("  path %s: %s, ran %s, %.2f s to completion %s\n", wsgemm_path_name(path), wsgemm_status_string(s),
           wsgemm_path_name(ran), seconds, wsgemm_get_last_error_message(h));
    REL_EXPECT(err == cudaSuccess, "the call left a CUDA error: %s", cudaGetErrorString(err));
    /* rtol: bf16 output rounding with margin; atol: fp32 accumulation of k terms, against the typical size
     * sqrt(k / 9) of the result */
    const double rtol = 1.0 / 128, atol = sqrt((double)r->k / 9.0) * fabs((double)r->alpha) / 256.0;
    if (may_decline && (s == WSGEMM_STATUS_NOT_SUPPORTED || s == WSGEMM_STATUS_INVALID_VALUE)) {
        unsigned char *c = malloc(p.c_bytes);
        CUDA_CHECK(cudaMemcpy(c, p.C, p.c_bytes, cudaMemcpyDeviceToHost));
        int untouched = 1;
        for (size_t b = 0; b < p.c_bytes; ++b) untouched &= c[b] == 0xFF;
        REL_EXPECT(untouched, "the declined call wrote C");
        free(c);
    } else {
        REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "path %s: %s", wsgemm_path_name(path), wsgemm_get_last_error_message(h));
        if (path != WSGEMM_PATH_AUTO)
            REL_EXPECT(ran == path, "ran %s, forced %s", wsgemm_path_name(ran), wsgemm_path_name(path));
        if (s == WSGEMM_STATUS_SUCCESS && (long long)r->m * r->n <= 65535)
            check_small_c(&p, rtol, atol);
        else if (s == WSGEMM_STATUS_SUCCESS)
            check_huge_c(&p, rtol, atol);
    }
    if (seconds > 60.0)
        printf("NOTE: path %s took %.0f s for this problem (more than 60 s)\n", wsgemm_path_name(ran), seconds);
    WSGEMM_CHECK(wsgemm_destroy(h));
    huge_destroy(&p);
}

/* m = n = 1, k = INT_MAX: A a 1 x k row (lda 1), B a k x 1 column (ldb = k, odd): 8.6 GB of operands. */
static testing_gemm k_int_max_shape(void)
{
    return testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 1, 1, INT_MAX);
}

void sizes_k_int_max_auto(void)
{
    huge_case(k_int_max_shape(), WSGEMM_PATH_AUTO, 11, 0);
}
void sizes_k_int_max_sm90(void)
{
    huge_case(k_int_max_shape(), WSGEMM_PATH_SM90, 11, 0);
}
void sizes_k_int_max_generic(void)
{
    huge_case(k_int_max_shape(), WSGEMM_PATH_GENERIC, 11, 0);
}

/* op T on A: both operands K-major with leading dimension k = 2^31 - 16 (16-byte aligned), m = n = 2, fp32
 * C: 17 GB of operands on AUTO. */
void sizes_k_major_huge_k(void)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 2, 2, INT_MAX - 15);
    g.c_type = WSGEMM_R_32F;
    huge_case(g, WSGEMM_PATH_AUTO, 12, 0);
}

/* C of m * n = 65536 * 32769 > 2^31 elements (4.3 GB of bf16), k = 16. */
static testing_gemm c_over_2g_shape(void)
{
    return testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 65536, 32769, 16);
}

void sizes_c_over_2g_auto(void)
{
    huge_case(c_over_2g_shape(), WSGEMM_PATH_AUTO, 13, 0);
}
void sizes_c_over_2g_generic(void)
{
    huge_case(c_over_2g_shape(), WSGEMM_PATH_GENERIC, 13, 0);
}

/* A of lda * k = 65536 * 40000 > 2^31 elements (5.2 GB), m = n = 64. */
static testing_gemm a_over_2g_shape(void)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 40000);
    g.lda = 65536;
    return g;
}

void sizes_a_over_2g_auto(void)
{
    huge_case(a_over_2g_shape(), WSGEMM_PATH_AUTO, 14, 0);
}
void sizes_a_over_2g_generic(void)
{
    huge_case(a_over_2g_shape(), WSGEMM_PATH_GENERIC, 14, 0);
}

/* 100000 small matrices: past the 65535 limit of a grid's z dimension. */
static void batch_case(wsgemm_path path)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 16, 24, 32);
    g.batch = 100000;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, path));
    REL_EXPECT(testing_case_against_cublas(h, &g, path, 15, 1), "batch_count = 100000 on path %s",
               wsgemm_path_name(path));
    WSGEMM_CHECK(wsgemm_destroy(h));
}

void sizes_batch_100000_auto(void)
{
    batch_case(WSGEMM_PATH_AUTO);
}
void sizes_batch_100000_generic(void)
{
    batch_case(WSGEMM_PATH_GENERIC);
}

/* ---------------------------------------------------------------- declines (child processes) */

/* The call must return INVALID_VALUE naming one of the words, leave every byte of C as it was, and leave
 * no CUDA error behind. */
static void expect_declined(wsgemm_handle h, rel_problem *p, const char *word, const char *other_word, const char *what)
{
    rel_problem_repoison(p);
    wsgemm_status s = rel_problem_run(h, p);
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"\n", what, wsgemm_status_string(s), msg);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "%s: %s", what, wsgemm_status_string(s));
    REL_EXPECT(rel_mentions(msg, word) || rel_mentions(msg, other_word), "%s: the message names neither %s nor %s",
               what, word, other_word);
    cudaError_t err = cudaDeviceSynchronize();
    REL_EXPECT(err == cudaSuccess, "%s: the context reports %s", what, cudaGetErrorString(err));
    REL_EXPECT(rel_problem_c_untouched(p), "%s: C was written", what);
}

/* After the declines the context still runs a valid call of the same handle right. */
static void expect_context_alive(wsgemm_handle h, rel_problem *p, const testing_gemm *valid)
{
    p->g = *valid;
    rel_problem_repoison(p);
    rel_problem_reference(p);
    REL_EXPECT(rel_problem_run(h, p) == WSGEMM_STATUS_SUCCESS, "valid call after the declines: %s",
               wsgemm_get_last_error_message(h));
    CUDA_CHECK(cudaDeviceSynchronize());
    REL_EXPECT(rel_problem_check(p, "valid call after the declines"), "the valid call after the declines is wrong");
}

void sizes_decline_absurd_strides(void)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64);
    g.batch = 2;
    rel_problem p;
    rel_problem_create(&p, &g, 0, 16);
    const testing_gemm valid = p.g;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    const long long absurd[3] = {1LL << 50, 1LL << 62, LLONG_MAX};
    for (int i = 0; i < 3; ++i) {
        char what[64];
        p.g = valid;
        p.g.strideA = absurd[i];
        snprintf(what, sizeof what, "strideA = %lld", absurd[i]);
        expect_declined(h, &p, "strideA", "A", what);
        p.g = valid;
        p.g.strideB = absurd[i];
        snprintf(what, sizeof what, "strideB = %lld", absurd[i]);
        expect_declined(h, &p, "strideB", "B", what);
        p.g = valid;
        p.g.strideC = absurd[i];
        snprintf(what, sizeof what, "strideC = %lld", absurd[i]);
        expect_declined(h, &p, "strideC", "C", what);
    }
    expect_context_alive(h, &p, &valid);
    WSGEMM_CHECK(wsgemm_destroy(h));
    rel_problem_destroy(&p);
}

/* Leading dimensions and batch counts whose matrices reach past the buffers: the footprint check. */
void sizes_decline_footprint(void)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64);
    g.batch = 2;
    rel_problem p;
    rel_problem_create(&p, &g, 0, 17);
    const testing_gemm valid = p.g;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    p.g = valid;
    p.g.lda = 1 << 20; /* 64 columns of 2^20 elements: 128 MB of a 16 KB buffer */
    expect_declined(h, &p, "lda", "A", "lda = 2^20");
    p.g = valid;
    p.g.ldb = 1 << 22;
    expect_declined(h, &p, "ldb", "B", "ldb = 2^22");
    p.g = valid;
    p.g.ldc = 1 << 21;
    expect_declined(h, &p, "ldc", "C", "ldc = 2^21");
    p.g = valid;
    p.g.batch = 40; /* C holds two matrices; A and B are shared (stride 0) and fit */
    p.g.strideA = p.g.strideB = 0;
    expect_declined(h, &p, "batch_count", "C", "batch_count = 40 on a C of two matrices");
    /* The buffers hold 2 * 64 * 64 + 8 elements: with strideA = 64 * 64 + 8 the second A ends on the last
     * element (accepted, and right); 8 more and it ends 8 elements past the buffer. */
    testing_gemm at_end = valid;
    at_end.strideA = 64 * 64 + 8;
    expect_context_alive(h, &p, &at_end);
    p.g = at_end;
    p.g.strideA += 8;
    expect_declined(h, &p, "strideA", "A", "the second A ends 8 elements past its buffer");
    expect_context_alive(h, &p, &valid);
    WSGEMM_CHECK(wsgemm_destroy(h));
    rel_problem_destroy(&p);
}
