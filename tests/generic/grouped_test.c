// SPDX-License-Identifier: MIT
/*
 * grouped_test.c - wsgemm_gemm_grouped_ex on the GPU against an fp64 host reference and against a loop of
 * cublasGemmEx, one call per group with the sizes known on the host. One ctest entry per case (argv[1]):
 *   uniform       contiguous along N (torch._grouped_mm's layout), equal groups
 *   skewed        contiguous along M, Zipf-like sizes with empty groups, fp32 C
 *   empty         most groups empty, the first and the last among them
 *   huge          one group holds every token
 *   small         groups of 1 to 7 (below one tile)
 *   unaligned     odd m, n, k, padded odd leading dimensions, both ops transposed, fp16
 *   k0            k = 0: C = beta * C on the groups' slices, nothing else touched
 *   beta          alpha 1.5, beta 0.75
 *   masked        masked along M and along N, counts from 0 to the capacity
 *   bad_sizes     sizes that break the contract: the status names the first bad group, bad groups'
 *                 slices untouched, good groups right (the sanitize label runs it under memcheck)
 *   graph         one captured call replayed with new sizes
 *   paths         a forced sm90 path declines (C untouched), forced generic runs it
 *   k_grouped     groups along K, contiguous and masked, an empty K slice, sizes that break the contract
 * The sm90_* cases run the Hopper grouped kernel (gemm/sm90/sm90_grouped_kernel.cuh: along M or N, K-major
 * operands, transa T and transb N, TMA-aligned) and assert that it ran, with the tile width where the case
 * picks one; they report skipped without a compute capability 9.0 device or without the sm90 path in the build:
 *   sm90_uniform    contiguous along N, equal groups; the same with the launch mode PDL
 *   sm90_skewed     contiguous along M, Zipf-like sizes with empty groups, fp32 C
 *   sm90_empty      most groups empty, the first and the last among them
 *   sm90_huge       one group holds every row: BN 256, 128 of its tiles and more
 *   sm90_banded     weights past a third of L2 (2 groups of 32768 x 288): the works walk bands of Q tiles,
 *                   every P tile of a group through one band before the next, the last band narrower
 *   sm90_small      groups of 1 to 7 rows (below one tile), along N and M
 *   sm90_unaligned  group ends off every tile boundary, odd m and n, k = 37 with padded leading dimensions,
 *                   odd ldc, fp16
 *   sm90_masked     masked along M and along N, counts from 0 to the capacity, beta 0.25
 *   sm90_beta       alpha 1.5 with beta 0.75, fp32 and bf16 C (C read), and beta 0 on fp16 C
 *   sm90_many       1024 groups (the group table's limit: three chunks of the scan), and 1025 (generic)
 *   sm90_bad_sizes  sizes that break the contract, along M and N, contiguous and masked: the status, the bad
 *                   groups' slices untouched, the good ones right
 *   sm90_graph      one captured call replayed with new sizes, on the sm90 kernel
 *   sm90_paths      forced sm90: a call it cannot take declines (NOT_SUPPORTED, C untouched), one it takes runs
 * C starts as NaN everywhere no group's slice covers (and everywhere when beta == 0): a NaN in a checked
 * element fails, and every element outside the slices must keep its bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "sm90/sm90_probe.h" /* the grouped kernel's tile width */
#include "testing.h"
#include "wsgemm.h"

static int failures = 0;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

typedef struct grouped_case {
    const char *name;
    wsgemm_grouped_layout layout;
    wsgemm_grouped_dim dim;
    int groups;
    const int *sizes; /* host: ends (contiguous) or counts (masked) */
    int m, n, k;      /* m or n along the grouped dimension: the total or the capacity */
    wsgemm_op transa, transb;
    wsgemm_dtype ab_type, c_type;
    float alpha, beta;
    int pad;       /* added to every leading dimension */
    int first_bad; /* the status expected: 0, or the first bad group + 1 */
    int aligned;   /* batch strides multiples of 8 elements (16 bytes, as TMA reads them), else odd */
    int sm90;      /* the call is one the sm90 grouped kernel takes: it runs there on a cc 9.0 device */
    int bn;        /* sm90: the tile width it must run with, 0: either */
    int pdl;       /* the launch mode PDL (wsgemm_grouped_desc.launch_mode) */
} grouped_case;

/* One group's slice: [begin, end) along the grouped dimension of matrix `mat` (0 for the contiguous one). */
typedef struct slice {
    int good, begin, end;
} slice;

/* The contract of gemm/common/grouped.cuh, from the host's copy of the sizes. */
static void slices_of(const grouped_case *c, const int *sizes, int extent, slice *s)
{
    int max_end = 0;
    for (int g = 0; g < c->groups; ++g) {
        if (c->layout == WSGEMM_GROUPED_MASKED) {
            s[g] = (slice){sizes[g] >= 0 && sizes[g] <= extent, 0, sizes[g]};
            continue;
        }
        const int begin = g == 0 ? 0 : sizes[g - 1];
        s[g] = (slice){begin == max_end && begin <= sizes[g] && sizes[g] <= extent, begin, sizes[g]};
        if (sizes[g] > max_end) max_end = sizes[g];
    }
}

/* The layout of the three operands as stored. */
typedef struct layout {
    int rows_a, cols_a, lda, mats_a;
    int rows_b, cols_b, ldb, mats_b;
    int ldc, mats_c;
    long long stride_a, stride_b, stride_c;
    size_t elems_a, elems_b, elems_c;
} stored_layout;

static stored_layout layout_of(const grouped_case *c)
{
    stored_layout l;
    const int masked = c->layout == WSGEMM_GROUPED_MASKED, dim_m = c->dim == WSGEMM_GROUPED_DIM_M;
    const int dim_n = c->dim == WSGEMM_GROUPED_DIM_N, dim_k = c->dim == WSGEMM_GROUPED_DIM_K;
    l.rows_a = c->transa == WSGEMM_OP_N ? c->m : c->k;
    l.cols_a = c->transa == WSGEMM_OP_N ? c->k : c->m;
    l.rows_b = c->transb == WSGEMM_OP_N ? c->k : c->n;
    l.cols_b = c->transb == WSGEMM_OP_N ? c->n : c->k;
    l.lda = (l.rows_a > 1 ? l.rows_a : 1) + c->pad;
    l.ldb = (l.rows_b > 1 ? l.rows_b : 1) + c->pad;
    l.ldc = (c->m > 1 ? c->m : 1) + c->pad;
    l.mats_a = (dim_m || dim_k) && !masked ? 1 : c->groups; /* the grouped operands: one matrix, contiguous */
    l.mats_b = (dim_n || dim_k) && !masked ? 1 : c->groups;
    l.mats_c = masked || dim_k ? c->groups : 1;
    /* gaps between the matrices: odd, or (aligned) a whole 16 bytes past the next multiple of 8 elements */
    const long long gap_a = c->aligned ? 8 + (8 - (long long)l.lda * l.cols_a % 8) % 8 : 3;
    const long long gap_b = c->aligned ? 8 + (8 - (long long)l.ldb * l.cols_b % 8) % 8 : 5;
    l.stride_a = l.mats_a > 1 ? (long long)l.lda * l.cols_a + gap_a : 0;
    l.stride_b = l.mats_b > 1 ? (long long)l.ldb * l.cols_b + gap_b : 0;
    l.stride_c = l.mats_c > 1 ? (long long)l.ldc * c->n + 7 : 0;
    l.elems_a = (size_t)(l.mats_a > 1 ? l.stride_a * l.mats_a : (long long)l.lda * l.cols_a) + 1;
    l.elems_b = (size_t)(l.mats_b > 1 ? l.stride_b * l.mats_b : (long long)l.ldb * l.cols_b) + 1;
    l.elems_c = (size_t)(l.mats_c > 1 ? l.stride_c * l.mats_c : (long long)l.ldc * c->n);
    return l;
}

static int in_slice(const grouped_case *c, const slice *s, int g, int i, int j)
{
    if (c->dim == WSGEMM_GROUPED_DIM_K) return s[g].good; /* all of C_g */
    const int x = c->dim == WSGEMM_GROUPED_DIM_M ? i : j;
    return s[g].good && x >= s[g].begin && x < s[g].end;
}

/* The group whose slice holds element (i, j) of C matrix `mat`, or -1. */
static int owner(const grouped_case *c, const slice *s, int mat, int i, int j)
{
    if (c->layout == WSGEMM_GROUPED_MASKED || c->dim == WSGEMM_GROUPED_DIM_K)
        return in_slice(c, s, mat, i, j) ? mat : -1;
    for (int g = 0; g < c->groups; ++g)
        if (in_slice(c, s, g, i, j)) return g;
    return -1;
}

static float host_nan(void)
{
    return nanf("");
}

/* Fill C: random [-1, 1] inside the slices when beta != 0, NaN everywhere else. */
static void fill_c(const grouped_case *c, const stored_layout *l, const slice *s, void *hc, uint64_t seed)
{
    testing_rng r = testing_rng_seeded(seed);
    for (size_t e = 0; e < l->elems_c; ++e) testing_store(c->c_type, hc, e, host_nan());
    if (c->beta == 0.0f) return;
    for (int mat = 0; mat < l->mats_c; ++mat)
        for (int j = 0; j < c->n; ++j)
            for (int i = 0; i < c->m; ++i)
                if (owner(c, s, mat, i, j) >= 0)
                    testing_store(c->c_type, hc, (size_t)(mat * l->stride_c + i + (long long)j * l->ldc),
                                  testing_rng_uniform(&r));
}

/* Element (i, kk) of op(A_g) and (kk, j) of op(B_g). */
static double a_at(const grouped_case *c, const stored_layout *l, const void *ha, int g, int i, int kk)
{
    const long long base = (l->mats_a > 1 ? g : 0) * l->stride_a;
    const long long at = c->transa == WSGEMM_OP_N ? i + (long long)kk * l->lda : kk + (long long)i * l->lda;
    return testing_load(c->ab_type, ha, (size_t)(base + at));
}

static double b_at(const grouped_case *c, const stored_layout *l, const void *hb, int g, int kk, int j)
{
    const long long base = (l->mats_b > 1 ? g : 0) * l->stride_b;
    const long long at = c->transb == WSGEMM_OP_N ? kk + (long long)j * l->ldb : j + (long long)kk * l->ldb;
    return testing_load(c->ab_type, hb, (size_t)(base + at));
}

static double out_rtol(wsgemm_dtype t)
{
    return t == WSGEMM_R_16BF ? 1.0 / 128 : t == WSGEMM_R_16F ? 1.0 / 1024 : 1e-6;
}

/* Check got (C after the call) against the fp64 reference of every slice, and the bits of every element
 * outside them against before. partial_rtol: the relative rounding of partial sums the computation may make
 * (0 for wsgemm, which sums in fp32; cuBLAS may reduce split-K partials in C's type, as it did for a 7-column
 * group: bf16 rounding of partials of |sum| up to sum |a b|). Returns the mismatches. */
static long long check_c(const grouped_case *c, const stored_layout *l, const slice *s, const void *ha, const void *hb,
                         const void *before, const void *got, double partial_rtol, const char *who)
{
    const size_t bytes = (size_t)testing_dtype_bytes(c->c_type);
    long long bad = 0, checked = 0;
    double worst = 0.0;
    for (int mat = 0; mat < l->mats_c; ++mat)
        for (int j = 0; j < c->n; ++j)
            for (int i = 0; i < c->m; ++i) {
                const size_t e = (size_t)(mat * l->stride_c + i + (long long)j * l->ldc);
                const int g = owner(c, s, mat, i, j);
                if (g < 0) {
                    if (memcmp((const char *)got + e * bytes, (const char *)before + e * bytes, bytes) != 0) {
                        if (bad < 5)
                            fprintf(stderr, "  %s: C(%d, %d) of matrix %d outside every slice changed\n", who, i, j,
                                    mat);
                        ++bad;
                    }
                    continue;
                }
                double sum = 0.0, abs_sum = 0.0;
                const int k_grouped = c->dim == WSGEMM_GROUPED_DIM_K;
                for (int kk = k_grouped ? s[g].begin : 0; kk < (k_grouped ? s[g].end : c->k); ++kk) {
                    const double p = a_at(c, l, ha, g, i, kk) * b_at(c, l, hb, g, kk, j);
                    sum += p;
                    abs_sum += fabs(p);
                }
                const double old = c->beta != 0.0f ? testing_load(c->c_type, before, e) : 0.0;
                const double ref = c->alpha * sum + c->beta * old;
                const double v = testing_load(c->c_type, got, e);
                const double tol = out_rtol(c->c_type) * fabs(ref) + (1e-5 + partial_rtol) * fabs(c->alpha) * abs_sum +
                                   1e-5 * fabs(c->beta * old) + 1e-6;
                const double err = fabs(v - ref);
                ++checked;
                if (!(err <= tol)) { /* NaN fails */
                    if (bad < 5)
                        fprintf(stderr, "  %s: C(%d, %d) of matrix %d (group %d) = %g, reference %g (tol %g)\n", who, i,
                                j, mat, g, v, ref, tol);
                    ++bad;
                } else if (err > worst) {
                    worst = err;
                }
            }
    printf("  %s: %lld elements checked, %lld mismatches, max error %.3g\n", who, checked, bad, worst);
    return bad;
}

/* The loop a cuBLAS user writes: one cublasGemmEx per good, non-empty group. */
static void cublas_loop(cublasHandle_t cb, const grouped_case *c, const stored_layout *l, const slice *s,
                        const void *da, const void *db, void *dc)
{
    const size_t ab = (size_t)testing_dtype_bytes(c->ab_type), cb_bytes = (size_t)testing_dtype_bytes(c->c_type);
    const int dim_m = c->dim == WSGEMM_GROUPED_DIM_M;
    const int dim_k = c->dim == WSGEMM_GROUPED_DIM_K;
    const float zero = 0.0f;
    for (int g = 0; g < c->groups; ++g) {
        if (!s[g].good || (s[g].end == s[g].begin && !dim_k)) continue;
        const int len = s[g].end - s[g].begin, b0 = s[g].begin;
        long long off_a = (l->mats_a > 1 ? g : 0) * l->stride_a, off_b = (l->mats_b > 1 ? g : 0) * l->stride_b;
        long long off_c = (l->mats_c > 1 ? g : 0) * l->stride_c;
        int m = c->m, n = c->n, k = c->k;
        const float *alpha = &c->alpha;
        if (dim_k && len == 0) { /* C_g = beta * C_g: alpha 0 over one k of the matrices' start */
            k = 1;
            alpha = &zero;
        } else if (dim_k) {
            off_a += c->transa == WSGEMM_OP_N ? (long long)b0 * l->lda : b0;
            off_b += c->transb == WSGEMM_OP_N ? b0 : (long long)b0 * l->ldb;
            k = len;
        } else if (dim_m) {
            off_a += c->transa == WSGEMM_OP_N ? b0 : (long long)b0 * l->lda;
            off_c += b0;
            m = len;
        } else {
            off_b += c->transb == WSGEMM_OP_N ? (long long)b0 * l->ldb : b0;
            off_c += (long long)b0 * l->ldc;
            n = len;
        }
        const cudaDataType_t t = (cudaDataType_t)c->ab_type;
        CUBLAS_CHECK(cublasGemmEx(cb, (cublasOperation_t)c->transa, (cublasOperation_t)c->transb, m, n, k, alpha,
                                  (const char *)da + off_a * ab, t, l->lda, (const char *)db + off_b * ab, t, l->ldb,
                                  &c->beta, (char *)dc + off_c * cb_bytes, (cudaDataType_t)c->c_type, l->ldc,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
}

typedef struct device_case {
    stored_layout l;
    void *ha, *hb, *hc0, *hgot;
    void *da, *db, *dc, *dc_cublas;
    int *dsizes, *dstatus;
} device_case;

static void device_case_create(const grouped_case *c, device_case *d, uint64_t seed)
{
    d->l = layout_of(c);
    const size_t ab = (size_t)testing_dtype_bytes(c->ab_type), cbytes = (size_t)testing_dtype_bytes(c->c_type);
    d->ha = malloc(d->l.elems_a * ab);
    d->hb = malloc(d->l.elems_b * ab);
    d->hc0 = malloc(d->l.elems_c * cbytes);
    d->hgot = malloc(d->l.elems_c * cbytes);
    testing_rng r = testing_rng_seeded(seed);
    for (size_t e = 0; e < d->l.elems_a; ++e) testing_store(c->ab_type, d->ha, e, testing_rng_uniform(&r));
    for (size_t e = 0; e < d->l.elems_b; ++e) testing_store(c->ab_type, d->hb, e, testing_rng_uniform(&r));
    CUDA_CHECK(cudaMalloc(&d->da, d->l.elems_a * ab));
    CUDA_CHECK(cudaMalloc(&d->db, d->l.elems_b * ab));
    CUDA_CHECK(cudaMalloc(&d->dc, d->l.elems_c * cbytes));
    CUDA_CHECK(cudaMalloc(&d->dc_cublas, d->l.elems_c * cbytes));
    CUDA_CHECK(cudaMalloc((void **)&d->dsizes, sizeof(int) * (size_t)(c->groups > 0 ? c->groups : 1)));
    CUDA_CHECK(cudaMalloc((void **)&d->dstatus, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d->da, d->ha, d->l.elems_a * ab, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->db, d->hb, d->l.elems_b * ab, cudaMemcpyHostToDevice));
}

static void device_case_destroy(device_case *d)
{
    free(d->ha);
    free(d->hb);
    free(d->hc0);
    free(d->hgot);
    cudaFree(d->da);
    cudaFree(d->db);
    cudaFree(d->dc);
    cudaFree(d->dc_cublas);
    cudaFree(d->dsizes);
    cudaFree(d->dstatus);
}

static wsgemm_status call_grouped(wsgemm_handle h, const grouped_case *c, const device_case *d)
{
    wsgemm_grouped_desc desc;
    WSGEMM_CHECK(wsgemm_grouped_desc_init(&desc, c->layout, c->dim, c->groups, d->dsizes));
    desc.status = d->dstatus;
    desc.launch_mode = c->pdl ? WSGEMM_LAUNCH_MODE_PDL : WSGEMM_LAUNCH_MODE_DEFAULT;
    return wsgemm_gemm_grouped_ex(h, &desc, c->transa, c->transb, c->m, c->n, c->k, &c->alpha, d->da, c->ab_type,
                                  d->l.lda, d->l.stride_a, d->db, c->ab_type, d->l.ldb, d->l.stride_b, &c->beta, d->dc,
                                  c->c_type, d->l.ldc, d->l.stride_c);
}

/* Upload C (NaN-poisoned outside the slices) and the sizes; the status gets a value the kernel must replace. */
static void stage(const grouped_case *c, device_case *d, const int *sizes, const slice *s, uint64_t seed)
{
    const size_t cbytes = (size_t)testing_dtype_bytes(c->c_type);
    fill_c(c, &d->l, s, d->hc0, seed);
    CUDA_CHECK(cudaMemcpy(d->dc, d->hc0, d->l.elems_c * cbytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->dc_cublas, d->hc0, d->l.elems_c * cbytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->dsizes, sizes, sizeof(int) * (size_t)c->groups, cudaMemcpyHostToDevice));
    const int stale = -12345;
    CUDA_CHECK(cudaMemcpy(d->dstatus, &stale, sizeof stale, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize()); /* before a launch on a non-blocking stream */
}

/* After a run: C against the reference, the cuBLAS loop against it too, the status. */
static void verify(const grouped_case *c, device_case *d, const slice *s, cublasHandle_t cb, const char *label)
{
    const size_t cbytes = (size_t)testing_dtype_bytes(c->c_type);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(d->hgot, d->dc, d->l.elems_c * cbytes, cudaMemcpyDeviceToHost));
    char who[128];
    snprintf(who, sizeof who, "%s wsgemm", label);
    EXPECT(check_c(c, &d->l, s, d->ha, d->hb, d->hc0, d->hgot, 0.0, who) == 0, "%s: wsgemm differs from fp64", label);
    int status = -1;
    CUDA_CHECK(cudaMemcpy(&status, d->dstatus, sizeof status, cudaMemcpyDeviceToHost));
    EXPECT(status == c->first_bad, "%s: device status %d, expected %d", label, status, c->first_bad);
    if (cb && c->k > 0) { /* k == 0: the loop forms no product, C = beta * C is wsgemm's alone to check */
        cublas_loop(cb, c, &d->l, s, d->da, d->db, d->dc_cublas);
        CUDA_CHECK(cudaDeviceSynchronize());
        void *hcb = malloc(d->l.elems_c * cbytes);
        CUDA_CHECK(cudaMemcpy(hcb, d->dc_cublas, d->l.elems_c * cbytes, cudaMemcpyDeviceToHost));
        snprintf(who, sizeof who, "%s cuBLAS loop", label);
        EXPECT(check_c(c, &d->l, s, d->ha, d->hb, d->hc0, hcb, out_rtol(c->c_type), who) == 0,
               "%s: the cuBLAS loop differs from fp64", label);
        double worst = 0.0; /* wsgemm against the loop: both near fp64, so near each other */
        for (size_t e = 0; e < d->l.elems_c; ++e) {
            const double x = testing_load(c->c_type, d->hgot, e), y = testing_load(c->c_type, hcb, e);
            if (isnan(x) && isnan(y)) continue; /* outside every slice in both */
            const double diff = fabs(x - y);
            if (!(diff <= worst)) worst = diff;
        }
        printf("  %s: max |wsgemm - cuBLAS loop| = %.3g\n", label, worst);
        EXPECT(worst <= 2.0 * out_rtol(c->c_type) * 4.0 * (c->k > 0 ? sqrt((double)c->k) : 1.0) + 1e-3,
               "%s: wsgemm and the cuBLAS loop differ by %g", label, worst);
        free(hcb);
    }
}

/* 1 when this device and build run the sm90 grouped kernel (tests/generic/CMakeLists.txt defines
 * WSGEMM_TEST_HAS_SM90 as 1 in a build with the sm90 path). */
static int sm90_here(void)
{
#if defined(WSGEMM_TEST_HAS_SM90) && WSGEMM_TEST_HAS_SM90
    return testing_device_cc() == 90;
#else
    return 0;
#endif
}

/* The sm90_* cases: skipped where the sm90 kernel cannot run. */
static void require_sm90(void)
{
    testing_require_gpu("grouped_test");
    if (!sm90_here()) {
        printf("SKIPPED: the sm90 grouped kernel needs compute capability 9.0 (this device: %d) and a build with "
               "90a\n",
               testing_device_cc());
        exit(WSGEMM_TEST_SKIP);
    }
}

/* The path the call must have taken, and (sm90) its tile width. */
static void expect_path(wsgemm_handle h, const grouped_case *c, const char *label)
{
    wsgemm_path path = WSGEMM_PATH_NONE;
    WSGEMM_CHECK(wsgemm_get_last_path(h, &path));
    const wsgemm_path want = c->sm90 && sm90_here() ? WSGEMM_PATH_SM90 : WSGEMM_PATH_GENERIC;
    EXPECT(path == want, "%s: path %s, expected %s", label, wsgemm_path_name(path), wsgemm_path_name(want));
    if (want == WSGEMM_PATH_SM90) {
        printf("  %s: sm90 grouped kernel, BN %d\n", label, wsgemm_sm90_last_grouped_bn());
        EXPECT(c->bn == 0 || wsgemm_sm90_last_grouped_bn() == c->bn, "%s: BN %d, expected %d", label,
               wsgemm_sm90_last_grouped_bn(), c->bn);
    }
}

static void run_case(wsgemm_handle h, const grouped_case *c)
{
    testing_require_gpu("grouped_test");
    printf("case %s: %s along %s, %d groups, m %d n %d k %d, ops %c%c\n", c->name,
           c->layout == WSGEMM_GROUPED_MASKED ? "masked" : "contiguous", c->dim == WSGEMM_GROUPED_DIM_M ? "M" : "N",
           c->groups, c->m, c->n, c->k, c->transa == WSGEMM_OP_N ? 'N' : 'T', c->transb == WSGEMM_OP_N ? 'N' : 'T');
    cublasHandle_t cb;
    CUBLAS_CHECK(cublasCreate(&cb));
    device_case d;
    device_case_create(c, &d, 17);
    slice *s = calloc((size_t)c->groups, sizeof *s);
    slices_of(c, c->sizes, c->dim == WSGEMM_GROUPED_DIM_M ? c->m : c->dim == WSGEMM_GROUPED_DIM_N ? c->n : c->k, s);
    stage(c, &d, c->sizes, s, 23);
    WSGEMM_CHECK(call_grouped(h, c, &d));
    expect_path(h, c, c->name);
    verify(c, &d, s, cb, c->name);
    free(s);
    device_case_destroy(&d);
    cublasDestroy(cb);
}

/* ---------------------------------------------------------------- the cases */

static grouped_case base_case(const char *name, wsgemm_grouped_layout layout, wsgemm_grouped_dim dim, int groups,
                              const int *sizes, int m, int n, int k)
{
    return (grouped_case){.name = name,
                          .layout = layout,
                          .dim = dim,
                          .groups = groups,
                          .sizes = sizes,
                          .m = m,
                          .n = n,
                          .k = k,
                          .transa = WSGEMM_OP_N,
                          .transb = WSGEMM_OP_N,
                          .ab_type = WSGEMM_R_16BF,
                          .c_type = WSGEMM_R_16BF,
                          .alpha = 1.0f,
                          .beta = 0.0f,
                          .pad = 0,
                          .first_bad = 0,
                          .aligned = 0,
                          .sm90 = 0,
                          .bn = 0,
                          .pdl = 0};
}

static void case_uniform(wsgemm_handle h)
{
    static const int ends[8] = {100, 200, 300, 400, 500, 600, 700, 800};
    /* torch: a [800, 256] tokens, b [8, 256, 192] weights, out [800, 192]: column-major C 192 x 800 */
    grouped_case c = base_case("uniform", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 8, ends, 192, 800, 256);
    run_case(h, &c);
    c.name = "uniform_weights_transposed";
    c.transa = WSGEMM_OP_T; /* b's transposed-stride view (odd strides between the weights: generic) */
    run_case(h, &c);
}

static void case_skewed(wsgemm_handle h)
{
    static const int ends[16] = {400, 600, 700, 750, 780, 800, 800, 810, 815, 818, 820, 820, 821, 821, 822, 822};
    grouped_case c = base_case("skewed", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 16, ends, 830, 160, 128);
    c.c_type = WSGEMM_R_32F;
    run_case(h, &c);
}

static void case_empty(wsgemm_handle h)
{
    static const int ends[10] = {0, 0, 65, 65, 65, 129, 129, 300, 300, 300};
    grouped_case c = base_case("empty", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 10, ends, 96, 320, 64);
    run_case(h, &c);
}

static void case_huge(wsgemm_handle h)
{
    static const int ends[6] = {0, 0, 1500, 1500, 1500, 1500};
    grouped_case c = base_case("huge", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 6, ends, 1500, 130, 96);
    run_case(h, &c);
}

static void case_small(wsgemm_handle h)
{
    static const int ends[7] = {1, 3, 6, 10, 15, 21, 28};
    grouped_case c = base_case("small", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 7, ends, 70, 28, 40);
    run_case(h, &c);
}

static void case_unaligned(wsgemm_handle h)
{
    static const int ends[5] = {13, 77, 78, 140, 201};
    grouped_case c = base_case("unaligned", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 5, ends, 203, 67, 37);
    c.transa = WSGEMM_OP_T;
    c.transb = WSGEMM_OP_T;
    c.ab_type = WSGEMM_R_16F;
    c.c_type = WSGEMM_R_16F;
    c.pad = 3;
    run_case(h, &c);
    c.name = "unaligned_dim_n";
    c.dim = WSGEMM_GROUPED_DIM_N;
    c.m = 67;
    c.n = 203;
    c.transb = WSGEMM_OP_N;
    run_case(h, &c);
}

static void case_k0(wsgemm_handle h)
{
    static const int ends[4] = {10, 10, 90, 150};
    grouped_case c = base_case("k0", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 4, ends, 160, 50, 0);
    c.beta = 0.5f;
    run_case(h, &c);
    c.name = "k0_beta0";
    c.beta = 0.0f;
    run_case(h, &c);
}

static void case_beta(wsgemm_handle h)
{
    static const int ends[5] = {33, 100, 100, 180, 250};
    grouped_case c = base_case("beta", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 5, ends, 72, 260, 200);
    c.alpha = 1.5f;
    c.beta = 0.75f;
    c.c_type = WSGEMM_R_32F;
    run_case(h, &c);
}

static void case_masked(wsgemm_handle h)
{
    static const int counts[6] = {64, 0, 17, 1, 80, 63};
    grouped_case c = base_case("masked_m", WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_M, 6, counts, 80, 96, 72);
    c.beta = 0.25f;
    run_case(h, &c);
    /* torch: a [6, 80, 72] (capacity 80), b [6, 72, 96], out [6, 80, 96]: C_g column-major 96 x 80 */
    c = base_case("masked_n", WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_N, 6, counts, 96, 80, 72);
    c.transa = WSGEMM_OP_T;
    run_case(h, &c);
}

static void case_bad_sizes(wsgemm_handle h)
{
    /* group 2's end goes back (bad), group 3 starts below the largest end (bad), group 4 is past the end */
    static const int ends[6] = {40, 90, 70, 120, 400, 130};
    grouped_case c = base_case("bad_monotone", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 6, ends, 200, 70, 48);
    c.first_bad = 3; /* group 2 */
    run_case(h, &c);
    static const int negative[4] = {30, -5, 60, 90};
    c = base_case("bad_negative", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 4, negative, 40, 100, 32);
    c.first_bad = 2; /* group 1, and group 2 starts at -5 */
    run_case(h, &c);
    static const int counts[5] = {10, 65, -1, 64, 1 << 30};
    c = base_case("bad_masked", WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_M, 5, counts, 64, 40, 32);
    c.beta = 1.0f;
    c.first_bad = 2; /* group 1: 65 > 64 */
    run_case(h, &c);
}

/* One call captured into a graph, replayed with sizes changed in between (the call read none on the host).
 * sm90: K-major operands, the sm90 kernel's. */
static void run_graph(wsgemm_handle h, int sm90)
{
    testing_require_gpu("grouped_test graph");
    static const int first[4] = {50, 50, 130, 200};
    static const int second[4] = {0, 190, 191, 200};
    static const int third[4] = {200, 200, 200, 200};
    const int *rounds[3] = {first, second, third};
    grouped_case c = base_case("graph", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 4, first, 80, 200, 64);
    if (sm90) {
        c.transa = WSGEMM_OP_T;
        c.aligned = 1;
        c.sm90 = 1;
    }
    cublasHandle_t cb;
    CUBLAS_CHECK(cublasCreate(&cb));
    device_case d;
    device_case_create(&c, &d, 31);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    WSGEMM_CHECK(wsgemm_set_stream(h, stream));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const wsgemm_status s = call_grouped(h, &c, &d);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    EXPECT(s == WSGEMM_STATUS_SUCCESS, "captured call: %s (%s)", wsgemm_status_string(s),
           wsgemm_get_last_error_message(h));
    expect_path(h, &c, "captured call");
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 0; round < 3; ++round) {
        c.sizes = rounds[round];
        slice sl[4];
        slices_of(&c, c.sizes, c.n, sl);
        stage(&c, &d, c.sizes, sl, 41 + (uint64_t)round);
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        char label[32];
        snprintf(label, sizeof label, "graph replay %d", round);
        verify(&c, &d, sl, cb, label);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    WSGEMM_CHECK(wsgemm_set_stream(h, NULL));
    cudaStreamDestroy(stream);
    device_case_destroy(&d);
    cublasDestroy(cb);
}

static void case_graph(wsgemm_handle h)
{
    run_graph(h, 0);
}

/* Groups along K (the weight gradient): C_g = op(A)[:, slice] op(B)[slice, :], one C per group. */
static void case_k_grouped(wsgemm_handle h)
{
    static const int ends[5] = {40, 40, 170, 171, 300}; /* an empty K slice: C_1 = beta * C_1 */
    grouped_case c = base_case("k_grouped", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_K, 5, ends, 72, 56, 300);
    c.transa = WSGEMM_OP_T;
    c.beta = 0.5f;
    c.c_type = WSGEMM_R_32F;
    run_case(h, &c);
    static const int counts[4] = {64, 0, 13, 50};
    c = base_case("k_grouped_masked", WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_K, 4, counts, 70, 65, 64);
    c.transb = WSGEMM_OP_T;
    run_case(h, &c);
    static const int bad[3] = {50, 30, 100}; /* group 1 goes back, group 2 starts below 50 */
    c = base_case("k_grouped_bad", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_K, 3, bad, 33, 20, 100);
    c.first_bad = 2;
    run_case(h, &c);
}

/* A forced fast path declines the grouped call before touching C; forced generic runs it. */
static void case_paths(wsgemm_handle h)
{
    testing_require_gpu("grouped_test paths");
    static const int ends[3] = {20, 20, 70};
    grouped_case c = base_case("paths", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 3, ends, 40, 70, 32);
    device_case d;
    device_case_create(&c, &d, 53);
    slice sl[3];
    slices_of(&c, c.sizes, c.n, sl);
    stage(&c, &d, c.sizes, sl, 59);
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_SM90));
    const wsgemm_status s = call_grouped(h, &c, &d);
    const wsgemm_status want = testing_device_cc() == 90 ? WSGEMM_STATUS_NOT_SUPPORTED : WSGEMM_STATUS_ARCH_MISMATCH;
    printf("  forced sm90 -> %s: \"%s\"\n", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
    EXPECT(s == want, "forced sm90: %s, expected %s", wsgemm_status_string(s), wsgemm_status_string(want));
    const size_t cbytes = (size_t)testing_dtype_bytes(c.c_type);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(d.hgot, d.dc, d.l.elems_c * cbytes, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(d.hgot, d.hc0, d.l.elems_c * cbytes) == 0, "forced sm90: C was written");
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_GENERIC));
    WSGEMM_CHECK(call_grouped(h, &c, &d));
    verify(&c, &d, sl, NULL, "forced generic");
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
    device_case_destroy(&d);
}

/* ---------------------------------------------------------------- the sm90 grouped kernel */

/* A case the sm90 grouped kernel takes: K-major operands (transa T, transb N), TMA-aligned strides. */
static grouped_case sm90_case(const char *name, wsgemm_grouped_layout layout, wsgemm_grouped_dim dim, int groups,
                              const int *sizes, int m, int n, int k)
{
    grouped_case c = base_case(name, layout, dim, groups, sizes, m, n, k);
    c.transa = WSGEMM_OP_T;
    c.transb = WSGEMM_OP_N;
    c.aligned = 1;
    c.sm90 = 1;
    return c;
}

static void case_sm90_uniform(wsgemm_handle h)
{
    require_sm90();
    static const int ends[8] = {100, 200, 300, 400, 500, 600, 700, 800};
    grouped_case c = sm90_case("sm90_uniform", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 8, ends, 192, 800, 256);
    c.bn = 128; /* 14 P tiles x 1: too few works for BN 256 */
    run_case(h, &c);
    c.name = "sm90_uniform_pdl";
    c.pdl = 1;
    run_case(h, &c);
}

static void case_sm90_skewed(wsgemm_handle h)
{
    require_sm90();
    static const int ends[16] = {400, 600, 700, 750, 780, 800, 800, 810, 815, 818, 820, 820, 821, 821, 822, 822};
    grouped_case c = sm90_case("sm90_skewed", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 16, ends, 830, 160, 128);
    c.c_type = WSGEMM_R_32F;
    run_case(h, &c);
}

static void case_sm90_empty(wsgemm_handle h)
{
    require_sm90();
    static const int ends[10] = {0, 0, 65, 65, 65, 129, 129, 300, 300, 300};
    grouped_case c = sm90_case("sm90_empty", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 10, ends, 96, 320, 64);
    run_case(h, &c);
    static const int all_empty[3] = {0, 0, 0}; /* no work at all: only the status */
    c = sm90_case("sm90_all_empty", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 3, all_empty, 64, 64, 64);
    run_case(h, &c);
}

static void case_sm90_huge(wsgemm_handle h)
{
    require_sm90();
    static const int ends[6] = {0, 0, 4090, 4090, 4090, 4090};
    /* 37 P tiles in the bound x 4 tiles of 256: BN 256; 32 tiles of the one group, the last one 122 rows */
    grouped_case c = sm90_case("sm90_huge", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 6, ends, 4096, 1024, 128);
    c.bn = 256;
    run_case(h, &c);
}

static void case_sm90_banded(wsgemm_handle h)
{
    require_sm90();
    static const int ends[2] = {129, 130};
    /* each group's weights: 128 tiles of 256 x 288 (147,456 bytes each); a third of the H200's 50 MiB L2 holds
     * 118 of them, so group 0 walks a band of 118 Q tiles for both its P tiles (the second one row), then one of
     * 10; group 1 (one row, one P tile) walks its 128 in plain order */
    grouped_case c =
        sm90_case("sm90_banded", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 2, ends, 130, 32768, 288);
    c.bn = 256;
    run_case(h, &c);
}

static void case_sm90_small(wsgemm_handle h)
{
    require_sm90();
    static const int ends[7] = {1, 3, 6, 10, 15, 21, 28};
    grouped_case c = sm90_case("sm90_small", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 7, ends, 70, 28, 40);
    run_case(h, &c);
    c = sm90_case("sm90_small_dim_m", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 7, ends, 28, 130, 64);
    run_case(h, &c);
}

static void case_sm90_unaligned(wsgemm_handle h)
{
    require_sm90();
    static const int ends[5] = {13, 77, 78, 140, 201};
    /* k 37 with leading dimensions 40: a K tail inside the one K block; ldc 206 */
    grouped_case c = sm90_case("sm90_unaligned", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 5, ends, 203, 67, 37);
    c.ab_type = WSGEMM_R_16F;
    c.c_type = WSGEMM_R_16F;
    c.pad = 3;
    run_case(h, &c);
    c.name = "sm90_unaligned_dim_n";
    c.dim = WSGEMM_GROUPED_DIM_N;
    c.m = 67;
    c.n = 203;
    c.k = 101; /* leading dimensions 104; two K blocks, the second of 37 */
    run_case(h, &c);
}

static void case_sm90_masked(wsgemm_handle h)
{
    require_sm90();
    static const int counts[6] = {64, 0, 17, 1, 80, 63};
    grouped_case c = sm90_case("sm90_masked_m", WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_M, 6, counts, 80, 96, 72);
    c.beta = 0.25f;
    run_case(h, &c);
    static const int big[4] = {300, 129, 0, 257}; /* capacity 300: three P tiles a matrix */
    c = sm90_case("sm90_masked_n", WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_N, 4, big, 96, 300, 136);
    c.beta = 0.25f;
    c.c_type = WSGEMM_R_32F;
    run_case(h, &c);
}

static void case_sm90_beta(wsgemm_handle h)
{
    require_sm90();
    static const int ends[5] = {33, 100, 100, 180, 250};
    grouped_case c = sm90_case("sm90_beta", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 5, ends, 72, 260, 200);
    c.alpha = 1.5f;
    c.beta = 0.75f;
    c.c_type = WSGEMM_R_32F;
    run_case(h, &c);
    c.name = "sm90_beta_bf16";
    c.c_type = WSGEMM_R_16BF;
    c.dim = WSGEMM_GROUPED_DIM_M;
    c.m = 260;
    c.n = 72;
    run_case(h, &c);
    c.name = "sm90_beta0_fp16";
    c.ab_type = WSGEMM_R_16F;
    c.c_type = WSGEMM_R_16F;
    c.beta = 0.0f; /* C is NaN: read, it would show */
    run_case(h, &c);
}

static void case_sm90_many(wsgemm_handle h)
{
    require_sm90();
    enum { kGroups = 1025 };
    static int ends[kGroups];
    testing_rng r = testing_rng_seeded(71);
    int end = 0;
    for (int g = 0; g < kGroups; ++g) {
        end += (int)(testing_rng_uniform(&r) * 3.5 + 3.5); /* 0 to 7 rows */
        ends[g] = end;
    }
    grouped_case c = sm90_case("sm90_many", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, kGroups - 1, ends, 128,
                               ends[kGroups - 2], 64);
    run_case(h, &c);
    c.name = "sm90_many_1025"; /* past the group table: the generic path */
    c.groups = kGroups;
    c.n = ends[kGroups - 1];
    c.sm90 = 0;
    run_case(h, &c);
}

static void case_sm90_bad_sizes(wsgemm_handle h)
{
    require_sm90();
    static const int ends[6] = {40, 90, 70, 120, 400, 130};
    grouped_case c =
        sm90_case("sm90_bad_monotone", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 6, ends, 200, 70, 48);
    c.first_bad = 3; /* group 2 */
    c.beta = 1.0f;
    run_case(h, &c);
    static const int negative[4] = {30, -5, 60, 90};
    c = sm90_case("sm90_bad_negative", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 4, negative, 40, 100, 32);
    c.first_bad = 2; /* group 1, and group 2 starts at -5 */
    run_case(h, &c);
    static const int counts[5] = {10, 65, -1, 64, 1 << 30};
    c = sm90_case("sm90_bad_masked", WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_M, 5, counts, 64, 40, 32);
    c.beta = 1.0f;
    c.first_bad = 2; /* group 1: 65 > 64 */
    run_case(h, &c);
}

static void case_sm90_graph(wsgemm_handle h)
{
    require_sm90();
    run_graph(h, 1);
}

/* Forced sm90: a call the grouped kernel cannot take (ops NN) declines with the reason, C untouched; one it
 * takes runs there. */
static void case_sm90_paths(wsgemm_handle h)
{
    require_sm90();
    static const int ends[3] = {20, 20, 70};
    grouped_case c = base_case("sm90_paths", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 3, ends, 40, 70, 32);
    device_case d;
    device_case_create(&c, &d, 53);
    slice sl[3];
    slices_of(&c, c.sizes, c.n, sl);
    stage(&c, &d, c.sizes, sl, 59);
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_SM90));
    const wsgemm_status s = call_grouped(h, &c, &d);
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  forced sm90, ops NN -> %s: \"%s\"\n", wsgemm_status_string(s), msg);
    EXPECT(s == WSGEMM_STATUS_NOT_SUPPORTED, "forced sm90, ops NN: %s", wsgemm_status_string(s));
    EXPECT(strstr(msg, "K-major") != NULL, "forced sm90, ops NN: the message does not say why: \"%s\"", msg);
    const size_t cbytes = (size_t)testing_dtype_bytes(c.c_type);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(d.hgot, d.dc, d.l.elems_c * cbytes, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(d.hgot, d.hc0, d.l.elems_c * cbytes) == 0, "forced sm90, ops NN: C was written");
    device_case_destroy(&d);
    c = sm90_case("sm90_paths_taken", WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 3, ends, 40, 70, 32);
    run_case(h, &c); /* still forced sm90 */
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
}

static const testing_handle_case cases[] = {
    {"uniform", case_uniform},
    {"skewed", case_skewed},
    {"empty", case_empty},
    {"huge", case_huge},
    {"small", case_small},
    {"unaligned", case_unaligned},
    {"k0", case_k0},
    {"beta", case_beta},
    {"masked", case_masked},
    {"bad_sizes", case_bad_sizes},
    {"graph", case_graph},
    {"paths", case_paths},
    {"k_grouped", case_k_grouped},
    {"sm90_uniform", case_sm90_uniform},
    {"sm90_skewed", case_sm90_skewed},
    {"sm90_empty", case_sm90_empty},
    {"sm90_huge", case_sm90_huge},
    {"sm90_banded", case_sm90_banded},
    {"sm90_small", case_sm90_small},
    {"sm90_unaligned", case_sm90_unaligned},
    {"sm90_masked", case_sm90_masked},
    {"sm90_beta", case_sm90_beta},
    {"sm90_many", case_sm90_many},
    {"sm90_bad_sizes", case_sm90_bad_sizes},
    {"sm90_graph", case_sm90_graph},
    {"sm90_paths", case_sm90_paths},
};

int main(int argc, char **argv)
{
    return testing_run_handle_case(argc, argv, cases, sizeof cases / sizeof cases[0], &failures);
}
