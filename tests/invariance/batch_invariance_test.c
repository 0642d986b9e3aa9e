// SPDX-License-Identifier: MIT
/*
 * batch_invariance_test.c - batch invariance on the GPU (docs/api.md, "Batch invariance"), one ctest entry per
 * case (argv[1] names it); SKIPPED without a CUDA device.
 *
 *   gemm_on       wsgemm_gemm_ex under wsgemm_set_batch_invariance(ON): for fixed (n, k) in 4096 x 4096,
 *                 14336 x 4096, 4096 x 14336, 256 x 512, 100 x 1000, bf16 and fp16, ops TN and NN: C of m = 4096
 *                 rows, then for m in 1, 2, 3, 7, 16, 17, 64, 127, 128, 129, 1000, 4096 and four random sizes the
 *                 product of m consecutive rows of the same op(A) (from a random first row, copied into an
 *                 operand of their own): each row of C equals the big C's row bit for bit
 *   gemm_on_n     the same under ON_N with m and n swapped: n columns of op(B), each column of C compared
 *   matmul_on     wsgemm_matmul with desc->batch_invariance ON on a handle left OFF: the plain output op and
 *                 BIAS (bias rows follow A's rows)
 *   matmul_on_n   the same with ON_N (BIAS: the bias of all m rows)
 * Every output is poisoned (a NaN pattern, different for the big and the small call) before each run, and a
 * NaN never passes. Every call of a shape must run on one path: on a cc 9.0 device sm90, except the fused ops
 * (BIAS) under ON, and under ON_N with a D TMA cannot store (m = 100), which run generic. A few elements of
 * each big C are checked against an fp64 host reference, so that the rows compared are a product. Under OFF
 * the same comparison is made and only reported (rows may differ there). Prints what it checked; exits 1 on failure.
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

enum { kBig = 4096 };

typedef enum api { API_GEMM = 0, API_MATMUL = 1, API_MATMUL_BIAS = 2 } api;

typedef struct shape {
    int fixed, k;
} shape;

static const shape kShapes[] = {{4096, 4096}, {14336, 4096}, {4096, 14336}, {256, 512}, {100, 1000}};

/* One GEMM's operands on the device, column-major: op(A) is m x k, op(B) k x n, C m x n (ldc = m). */
typedef struct operands {
    wsgemm_op ta, tb;
    int m, n, k, lda, ldb;
    void *A, *B, *C, *bias;
} operands;

static void operands_free(operands *o)
{
    cudaFree(o->A);
    cudaFree(o->B);
    cudaFree(o->C);
    cudaFree(o->bias);
    memset(o, 0, sizeof *o);
}

static int ld_of(wsgemm_op op, int rows_if_n, int rows_if_t)
{
    return op == WSGEMM_OP_N ? rows_if_n : rows_if_t;
}

/* Random host matrix of `elems` 16-bit values in [-1, 1]. */
static uint16_t *random_host(size_t elems, wsgemm_dtype t, testing_rng *r)
{
    uint16_t *h = malloc(elems * 2);
    if (!h) abort();
    for (size_t i = 0; i < elems; ++i) {
        const float v = testing_rng_uniform(r);
        h[i] = t == WSGEMM_R_16BF ? testing_float_to_bf16(v) : testing_float_to_half(v);
    }
    return h;
}

static void *to_device(const void *h, size_t bytes)
{
    void *d = NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* The call of `o` under the case's settings; D poisoned with `poison` first. */
static wsgemm_status run(wsgemm_handle h, api a, wsgemm_batch_invariance desc_mode, wsgemm_dtype t, const operands *o,
                         uint16_t poison)
{
    const size_t c_elems = (size_t)o->m * o->n;
    uint16_t *p = malloc(c_elems * 2);
    if (!p) abort();
    for (size_t i = 0; i < c_elems; ++i) p[i] = poison;
    CUDA_CHECK(cudaMemcpy(o->C, p, c_elems * 2, cudaMemcpyHostToDevice));
    free(p);
    const float alpha = 1.0f, beta = 0.0f;
    if (a == API_GEMM)
        return wsgemm_gemm_ex(h, o->ta, o->tb, o->m, o->n, o->k, &alpha, o->A, t, o->lda, o->B, t, o->ldb, &beta, o->C,
                              t, o->m);
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, o->ta, o->tb, t, t));
    d.batch_invariance = desc_mode;
    if (a == API_MATMUL_BIAS) {
        d.epilogue = WSGEMM_MATMUL_EPILOGUE_BIAS;
        d.bias = o->bias;
        d.bias_type = t;
    }
    return wsgemm_matmul(h, &d, o->m, o->n, o->k, &alpha, o->A, o->lda, o->B, o->ldb, &beta, o->C, o->m, o->C, o->m);
}

static uint16_t *from_device(const void *d, size_t elems)
{
    uint16_t *h = malloc(elems * 2);
    if (!h) abort();
    CUDA_CHECK(cudaMemcpy(h, d, elems * 2, cudaMemcpyDeviceToHost));
    return h;
}

static int is_nan16(uint16_t v, wsgemm_dtype t)
{
    return t == WSGEMM_R_16BF ? (v & 0x7F80u) == 0x7F80u && (v & 0x7Fu) : (v & 0x7C00u) == 0x7C00u && (v & 0x3FFu);
}

/* fp64 reference of a few elements of the big C (host copies of its operands), against the C type's tolerance. */
static void check_reference(const operands *o, wsgemm_dtype t, const uint16_t *hA, const uint16_t *hB,
                            const uint16_t *hbias, const uint16_t *hC, testing_rng *r, const char *what)
{
    for (int s = 0; s < 16; ++s) {
        const int i = (int)(testing_rng_next(r) % (uint64_t)o->m), j = (int)(testing_rng_next(r) % (uint64_t)o->n);
        double acc = 0.0, mag = 0.0;
        for (int kk = 0; kk < o->k; ++kk) {
            const size_t ia = o->ta == WSGEMM_OP_N ? (size_t)kk * o->lda + i : (size_t)i * o->lda + kk;
            const size_t ib = o->tb == WSGEMM_OP_N ? (size_t)j * o->ldb + kk : (size_t)kk * o->ldb + j;
            const double x = testing_load(t, hA, ia) * (double)testing_load(t, hB, ib);
            acc += x;
            mag += fabs(x);
        }
        if (hbias) acc += testing_load(t, hbias, (size_t)i), mag += fabs(testing_load(t, hbias, (size_t)i));
        const double got = testing_load(t, hC, (size_t)j * o->m + i);
        const double tol = (t == WSGEMM_R_16BF ? 1.0 / 128 : 1.0 / 1024) * (fabs(acc) + 1e-2 * mag) + 1e-3 * mag + 1e-6;
        EXPECT(fabs(got - acc) <= tol, "%s: C(%d, %d) = %g, reference %g", what, i, j, got, acc);
    }
}

/* The sizes of the varying side: the fixed ones and four random ones. */
static int sizes_of(testing_rng *r, int *out)
{
    static const int fixed[] = {1, 2, 3, 7, 16, 17, 64, 127, 128, 129, 1000, 4096};
    int n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) out[n++] = fixed[i];
    for (int i = 0; i < 4; ++i) out[n++] = 1 + (int)(testing_rng_next(r) % (kBig - 1));
    return n;
}

/* One shape, type and op pair under `mode` (the handle's for the GEMM, the descriptor's for the matmul; OFF:
 * nothing asked, the comparison only reported). Returns the rows (columns) that differed. */
static long long one_case(wsgemm_handle h, api a, wsgemm_batch_invariance mode, wsgemm_dtype t, wsgemm_op ta,
                          wsgemm_op tb, shape sh, uint64_t seed)
{
    const int on_n = mode == WSGEMM_BATCH_INVARIANCE_ON_N;
    const int m_big = on_n ? sh.fixed : kBig, n_big = on_n ? kBig : sh.fixed, k = sh.k;
    char what[256];
    snprintf(what, sizeof what, "%s %s %c%c mode %d fixed %d k %d",
             a == API_GEMM     ? "gemm_ex"
             : a == API_MATMUL ? "matmul"
                               : "matmul+bias",
             testing_dtype_name(t), ta == WSGEMM_OP_N ? 'N' : 'T', tb == WSGEMM_OP_N ? 'N' : 'T', (int)mode, sh.fixed,
             k);
    testing_rng r = testing_rng_seeded(seed);
    /* the big operands: A stored ra x ca, B stored rb x cb */
    const int ra = ta == WSGEMM_OP_N ? m_big : k, ca = ta == WSGEMM_OP_N ? k : m_big;
    const int rb = tb == WSGEMM_OP_N ? k : n_big, cb = tb == WSGEMM_OP_N ? n_big : k;
    uint16_t *hA = random_host((size_t)ra * ca, t, &r), *hB = random_host((size_t)rb * cb, t, &r);
    uint16_t *hbias = a == API_MATMUL_BIAS ? random_host((size_t)m_big, t, &r) : NULL;
    operands big = {.ta = ta, .tb = tb, .m = m_big, .n = n_big, .k = k, .lda = ra, .ldb = rb};
    big.A = to_device(hA, (size_t)ra * ca * 2);
    big.B = to_device(hB, (size_t)rb * cb * 2);
    if (hbias) big.bias = to_device(hbias, (size_t)m_big * 2);
    CUDA_CHECK(cudaMalloc(&big.C, (size_t)m_big * n_big * 2));
    const wsgemm_batch_invariance desc_mode = a == API_GEMM ? WSGEMM_BATCH_INVARIANCE_OFF : mode;
    WSGEMM_CHECK(wsgemm_set_batch_invariance(h, a == API_GEMM ? mode : WSGEMM_BATCH_INVARIANCE_OFF));
    wsgemm_status s = run(h, a, desc_mode, t, &big, 0x7FC1u);
    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: big call: %s", what, wsgemm_get_last_error_message(h));
    wsgemm_path big_path = WSGEMM_PATH_NONE;
    WSGEMM_CHECK(wsgemm_get_last_path(h, &big_path));
    if (mode != WSGEMM_BATCH_INVARIANCE_OFF && testing_device_cc() == 90) {
        /* the sm90 fused ops: never under ON; under ON_N where TMA can store D (m * 2 bytes a multiple of 16) */
        const int fused_generic = a == API_MATMUL_BIAS && (mode == WSGEMM_BATCH_INVARIANCE_ON || (m_big * 2) % 16 != 0);
        const wsgemm_path want = fused_generic ? WSGEMM_PATH_GENERIC : WSGEMM_PATH_SM90;
        EXPECT(big_path == want, "%s: path %s, expected %s", what, wsgemm_path_name(big_path), wsgemm_path_name(want));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    uint16_t *hbig = from_device(big.C, (size_t)m_big * n_big);
    check_reference(&big, t, hA, hB, hbias, hbig, &r, what);
    for (size_t i = 0; i < (size_t)m_big * n_big; ++i)
        if (is_nan16(hbig[i], t)) {
            EXPECT(0, "%s: big C element %zu is NaN (unwritten)", what, i);
            break;
        }

    int sizes[32];
    const int count = sizes_of(&r, sizes);
    long long differing = 0, compared = 0;
    for (int si = 0; si < count; ++si) {
        const int v = sizes[si];
        const int first = v == kBig ? 0 : (int)(testing_rng_next(&r) % (uint64_t)(kBig - v + 1));
        operands sm = big;
        sm.A = sm.B = sm.C = sm.bias = NULL;
        if (!on_n) { /* m = v rows of op(A), from row `first` */
            sm.m = v;
            sm.lda = ld_of(ta, v, k);
            CUDA_CHECK(cudaMalloc(&sm.A, (size_t)v * k * 2));
            if (ta == WSGEMM_OP_N) /* stored m x k: `v` elements of each of k columns */
                CUDA_CHECK(cudaMemcpy2D(sm.A, (size_t)v * 2, (const char *)big.A + (size_t)first * 2,
                                        (size_t)big.lda * 2, (size_t)v * 2, (size_t)k, cudaMemcpyDeviceToDevice));
            else /* stored k x m: `v` whole columns */
                CUDA_CHECK(cudaMemcpy(sm.A, (const char *)big.A + (size_t)first * big.lda * 2, (size_t)v * k * 2,
                                      cudaMemcpyDeviceToDevice));
            sm.B = big.B;
            if (big.bias) {
                CUDA_CHECK(cudaMalloc(&sm.bias, (size_t)v * 2));
                CUDA_CHECK(cudaMemcpy(sm.bias, (const char *)big.bias + (size_t)first * 2, (size_t)v * 2,
                                      cudaMemcpyDeviceToDevice));
            }
        } else { /* n = v columns of op(B), from column `first` */
            sm.n = v;
            sm.ldb = ld_of(tb, k, v);
            CUDA_CHECK(cudaMalloc(&sm.B, (size_t)v * k * 2));
            if (tb == WSGEMM_OP_N) /* stored k x n: `v` whole columns */
                CUDA_CHECK(cudaMemcpy(sm.B, (const char *)big.B + (size_t)first * big.ldb * 2, (size_t)v * k * 2,
                                      cudaMemcpyDeviceToDevice));
            else /* stored n x k: `v` elements of each of k columns */
                CUDA_CHECK(cudaMemcpy2D(sm.B, (size_t)v * 2, (const char *)big.B + (size_t)first * 2,
                                        (size_t)big.ldb * 2, (size_t)v * 2, (size_t)k, cudaMemcpyDeviceToDevice));
            sm.A = big.A;
            sm.bias = big.bias;
        }
        CUDA_CHECK(cudaMalloc(&sm.C, (size_t)sm.m * sm.n * 2));
        s = run(h, a, desc_mode, t, &sm, 0x7FC2u);
        EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: %d: %s", what, v, wsgemm_get_last_error_message(h));
        wsgemm_path path = WSGEMM_PATH_NONE;
        WSGEMM_CHECK(wsgemm_get_last_path(h, &path));
        if (mode != WSGEMM_BATCH_INVARIANCE_OFF)
            EXPECT(path == big_path, "%s: size %d ran %s, size %d ran %s", what, v, wsgemm_path_name(path), kBig,
                   wsgemm_path_name(big_path));
        CUDA_CHECK(cudaDeviceSynchronize());
        uint16_t *hs = from_device(sm.C, (size_t)sm.m * sm.n);
        long long bad_lines = 0, nan = 0;
        for (int line = 0; line < v; ++line) { /* a row (ON) or a column (ON_N) of the small C */
            int bad = 0;
            const int other = on_n ? sm.m : sm.n;
            for (int e = 0; e < other; ++e) {
                const size_t is = on_n ? (size_t)line * sm.m + e : (size_t)e * sm.m + line;
                const size_t ib = on_n ? (size_t)(first + line) * big.m + e : (size_t)e * big.m + first + line;
                if (is_nan16(hs[is], t)) nan++, bad = 1;
                if (hs[is] != hbig[ib]) bad = 1;
            }
            bad_lines += bad;
        }
        compared += v;
        differing += bad_lines;
        EXPECT(nan == 0, "%s: size %d: %lld NaN elements (unwritten)", what, v, nan);
        if (mode != WSGEMM_BATCH_INVARIANCE_OFF)
            EXPECT(bad_lines == 0, "%s: size %d (from %d): %lld of %d %s differ from the big call's", what, v, first,
                   bad_lines, v, on_n ? "columns" : "rows");
        free(hs);
        if (!on_n) cudaFree(sm.A), cudaFree(sm.bias);
        if (on_n) cudaFree(sm.B);
        cudaFree(sm.C);
    }
    printf("  %s: path %s, %lld %s compared over %d sizes, %lld differ\n", what, wsgemm_path_name(big_path), compared,
           on_n ? "columns" : "rows", count, differing);
    free(hA);
    free(hB);
    free(hbias);
    free(hbig);
    operands_free(&big);
    WSGEMM_CHECK(wsgemm_set_batch_invariance(h, WSGEMM_BATCH_INVARIANCE_OFF));
    return differing;
}

static void run_cases(wsgemm_handle h, api a, wsgemm_batch_invariance mode)
{
    testing_require_gpu("batch_invariance_test");
    static const wsgemm_dtype types[2] = {WSGEMM_R_16BF, WSGEMM_R_16F};
    static const wsgemm_op ops[2][2] = {{WSGEMM_OP_T, WSGEMM_OP_N}, {WSGEMM_OP_N, WSGEMM_OP_N}};
    uint64_t seed = 1000u * (uint64_t)a + (uint64_t)mode;
    for (size_t si = 0; si < sizeof kShapes / sizeof kShapes[0]; ++si)
        for (int ti = 0; ti < 2; ++ti)
            for (int oi = 0; oi < 2; ++oi) {
                one_case(h, a, mode, types[ti], ops[oi][0], ops[oi][1], kShapes[si], ++seed);
                if (si == 0 && ti == 0 && oi == 0) /* the default plan beside it, for the record */
                    one_case(h, a, WSGEMM_BATCH_INVARIANCE_OFF, types[ti], ops[oi][0], ops[oi][1], kShapes[si], seed);
            }
}

static void case_gemm_on(wsgemm_handle h)
{
    run_cases(h, API_GEMM, WSGEMM_BATCH_INVARIANCE_ON);
}

static void case_gemm_on_n(wsgemm_handle h)
{
    run_cases(h, API_GEMM, WSGEMM_BATCH_INVARIANCE_ON_N);
}

static void case_matmul_on(wsgemm_handle h)
{
    run_cases(h, API_MATMUL, WSGEMM_BATCH_INVARIANCE_ON);
    run_cases(h, API_MATMUL_BIAS, WSGEMM_BATCH_INVARIANCE_ON);
}

static void case_matmul_on_n(wsgemm_handle h)
{
    run_cases(h, API_MATMUL, WSGEMM_BATCH_INVARIANCE_ON_N);
    run_cases(h, API_MATMUL_BIAS, WSGEMM_BATCH_INVARIANCE_ON_N);
}

static const testing_handle_case cases[] = {
    {"gemm_on", case_gemm_on},
    {"gemm_on_n", case_gemm_on_n},
    {"matmul_on", case_matmul_on},
    {"matmul_on_n", case_matmul_on_n},
};

int main(int argc, char **argv)
{
    return testing_run_handle_case(argc, argv, cases, sizeof cases / sizeof cases[0], &failures);
}
