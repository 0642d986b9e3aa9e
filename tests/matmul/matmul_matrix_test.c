// SPDX-License-Identifier: MIT
/*
 * matmul_matrix_test.c - wsgemm_matmul against cublasLtMatmul: `matmul_matrix_test <group> <path>`
 * (path: generic, sm90, sm100-emulated, sm100, auto). Groups: epilogues, fp8, shapes, fused, edges.
 * `matmul_matrix_test layouts` runs on the CPU: every case's arguments (as this file lays the case out) must pass
 * wsgemm_matmul's checks.
 *
 * Every case: A, B, C and bias uniform [-1, 1] rounded to their types; D, aux and amax_d poisoned with NaN
 * before each run (C too when beta == 0, so a C that is read shows); the call runs on the forced path and
 * the path that ran is asserted (AUTO: the one docs/api.md promises). Then D (and aux, amax_d) are compared
 * element by element with two references, and both must hold:
 *   - cublasLtMatmul with the same types, epilogue, bias, aux, scales and amax (CUBLAS_COMPUTE_32F), where
 *     cuBLASLt has an algorithm for the combination on this device; the scales it refuses as pointers are
 *     folded into alpha, beta and (a 16/32-bit D's d_scale) the host (run_cublaslt_as); where it has none
 *     (cuBLASLt on sm_90 takes FP8 only as A transposed and B not, i.e. both K-major, and refuses some aux
 *     types outside FP8), the line says "cuBLASLt: none" and the host reference alone decides;
 *   - the host reference: the same formula in fp64 from the exactly decoded inputs (docs/api.md, "Matmul").
 * A forced sm90 path that does not run the case must decline it with NOT_SUPPORTED and leave D, aux and
 * amax_d bit-identical; so must a forced sm100 path (hardware or emulated) the cases without a product (k == 0,
 * alpha == 0). On the sm100 paths the launcher's probe must also show the instruction kind of the inputs
 * (kind::f8f6f4 for FP8, kind::f16 for 16-bit) and the fused output op exactly where the call needs more than
 * alpha/beta on D; the emulated group ends with no TMEM column left allocated.
 *
 * Tolerance, per element: |got - ref| <= 1 ulp of the output type at max(|got|, |ref|)
 *                                       + rtol_act * |x| + 2^-12 * rms(ref) (+ the output type's
 *                                       smallest subnormal step)
 * Why: got and cuBLASLt's result are each the same fp32 value rounded once to the output type (0.5 ulp each,
 * so 1 ulp between them; the host reference is exact, so 0.5 ulp there); the fp32 values differ by the
 * summation order of k products of numbers in [-1, 1] (relative to rms(ref) ~ sqrt(k/3)/sqrt(3) this is
 * below 2^-20 * sqrt(k), under 2^-12 for every k here); GELU: wsgemm (and, by its results, cuBLASLt) takes
 * tanh from the tanh.approx.f32 instruction (relative error up to 2^-10.99, PTX ISA), so a GELU value can
 * differ by 0.5 |x| 2^-11 from the exact function of the host reference, x the GELU input (near 0 where
 * x << 0): the rtol_act term is 2^-11 |x| (x from the host reference) for the GELU epilogues, 0 otherwise. amax_d:
 * relative 2^-10 (an fp32 maximum of values that carry the noise above).
 * Against cuBLASLt two terms more: 1 ulp of the output type at the largest term of the sum (|alpha AB|,
 * |beta C|, |bias|, scaled), because cuBLASLt's 16-bit epilogues round an intermediate to the output type
 * before adding the next term (seen on the H200: errors of 0.5 ulp of |AB| where C or the bias cancel most
 * of it); and with FP8 operands 2^-9 rms(ref), because its FP8 tensor-core sums keep fewer bits than fp32
 * between promotions (seen on the H200 against the exact sum: up to 2^-10.6 rms(ref) at k = 512 with an fp32
 * D, 2^-11.4 at k = 16384; the largest of 65536 elements, so not a sqrt(k) law). Against the host reference
 * neither applies (wsgemm rounds once, from fp32), but the second does where wsgemm's sm90 path ran FP8
 * operands: its FP8 tensor-core sums are cut short the same way within each 128-K block before they go into
 * fp32 (seen on the H200: up to 2^-11.1 rms(ref) at k = 16384, 2^-11.2 at k = 1024); the generic path's
 * fp32 sums of exact products keep the tight tolerance.
 * NaN never passes (nor a NaN reference).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>

#include "sm100/sm100_probe.h" /* what the sm100 launcher ran: MMA kind, fused op; the emulation's TMEM */
#include "testing.h"

#define N_ WSGEMM_OP_N
#define T_ WSGEMM_OP_T
#define BF WSGEMM_R_16BF
#define HF WSGEMM_R_16F
#define F3 WSGEMM_R_32F
#define E4 WSGEMM_R_8F_E4M3
#define E5 WSGEMM_R_8F_E5M2

#define EP_NONE          WSGEMM_MATMUL_EPILOGUE_DEFAULT
#define EP_RELU          WSGEMM_MATMUL_EPILOGUE_RELU
#define EP_BIAS          WSGEMM_MATMUL_EPILOGUE_BIAS
#define EP_RELU_BIAS     WSGEMM_MATMUL_EPILOGUE_RELU_BIAS
#define EP_GELU          WSGEMM_MATMUL_EPILOGUE_GELU
#define EP_GELU_BIAS     WSGEMM_MATMUL_EPILOGUE_GELU_BIAS
#define EP_GELU_AUX      WSGEMM_MATMUL_EPILOGUE_GELU_AUX
#define EP_GELU_AUX_BIAS WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS

/* Scale sets: none; a_scale 1.5, b_scale 0.75, c_scale 0.5, d_scale 4 (with amax_d); or a_scale and b_scale
 * alone (what the sm90 FP8 kernels apply themselves). */
enum { NO_SCALES = 0, SCALES = 1, AB_SCALES = 2 };

typedef struct mm_case {
    wsgemm_op ta, tb;
    int m, n, k;
    wsgemm_dtype a, b, c, d;
    wsgemm_matmul_epilogue ep;
    wsgemm_dtype vec; /* bias and aux type */
    float alpha, beta;
    int scales;
    int in_place; /* C == D */
} mm_case;

static const mm_case epilogues[] = {
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_NONE, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_RELU, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_RELU_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_GELU, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_GELU_AUX, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 192, 320, BF, BF, BF, BF, EP_GELU_AUX_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {N_, T_, 200, 136, 264, HF, HF, HF, HF, EP_RELU_BIAS, HF, 0.5f, 1.0f, NO_SCALES, 0},
    {N_, T_, 200, 136, 264, HF, HF, HF, HF, EP_GELU_BIAS, HF, 1.0f, -0.5f, NO_SCALES, 0},
    {N_, T_, 200, 136, 264, HF, HF, HF, HF, EP_GELU_AUX_BIAS, HF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 320, 256, 512, BF, BF, F3, F3, EP_BIAS, F3, 1.0f, 1.0f, NO_SCALES, 0},
    {T_, N_, 320, 256, 512, BF, BF, F3, F3, EP_GELU_AUX_BIAS, F3, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 320, 256, 512, HF, HF, F3, F3, EP_RELU, F3, 2.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 256, 256, BF, BF, BF, BF, EP_BIAS, F3, 1.0f, 0.0f, NO_SCALES, 0},   /* fp32 bias, bf16 D */
    {T_, N_, 256, 256, 256, BF, BF, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, SCALES, 0}, /* scales on bf16 */
};

/* FP8: cuBLASLt's layout (A transposed, B not: both K-major), E4M3 and E5M2 operands, every D type. */
static const mm_case fp8[] = {
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, HF, HF, EP_NONE, HF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, F3, F3, EP_NONE, F3, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, BF, E4, EP_NONE, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, HF, E4, EP_NONE, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E5, BF, BF, EP_NONE, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E5, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, EP_BIAS, BF, 1.0f, 1.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, EP_RELU_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, EP_GELU_AUX_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, BF, E4, EP_GELU_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 256, 256, 512, E4, E4, BF, E4, EP_RELU, BF, 1.0f, 0.5f, SCALES, 0},
    {T_, N_, 128, 128, 16384, E4, E4, F3, F3, EP_NONE, F3, 1.0f, 0.0f, NO_SCALES, 0}, /* long K */
    {T_, N_, 1024, 1024, 1024, E4, E4, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    /* MN-major FP8 operands (the staging copy of a fast path transposes them); cuBLASLt: none */
    {N_, N_, 256, 192, 320, E4, E4, BF, BF, EP_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    {N_, T_, 256, 192, 320, E5, E4, F3, F3, EP_GELU, F3, 1.0f, 0.0f, SCALES, 0},
    {T_, T_, 256, 192, 320, E4, E5, BF, E4, EP_RELU_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    /* the sm90 FP8 kernels' calls (a and b scales alone, or none): several tiles, every pair and D type,
     * tile-end TMA and per-element stores, in place, fused, a ragged last K block, decode and GEMV shapes, and
     * MN-major operands (the sm90 path reads them from K-major copies) */
    {T_, N_, 1024, 768, 1024, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, AB_SCALES, 0},
    {T_, N_, 1000, 1216, 640, E4, E5, HF, HF, EP_NONE, HF, 0.5f, 0.0f, AB_SCALES, 0},
    {T_, N_, 520, 700, 4096, E5, E4, F3, F3, EP_NONE, F3, 1.0f, 0.0f, AB_SCALES, 0},
    {T_, N_, 777, 333, 384, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 512, 640, 512, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 1.0f, AB_SCALES, 1},
    {T_, N_, 1024, 1024, 2048, E4, E4, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, AB_SCALES, 0},
    {T_, N_, 768, 640, 256, E4, E5, F3, F3, EP_RELU_BIAS, F3, 1.0f, 0.0f, AB_SCALES, 0},
    {T_, N_, 1000, 1000, 320, E5, E4, HF, HF, EP_GELU_AUX_BIAS, HF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 256, 256, 200, E4, E4, BF, BF, EP_BIAS, F3, 1.0f, 0.0f, AB_SCALES, 0},
    {T_, N_, 8, 4096, 8192, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, AB_SCALES, 0},
    {T_, N_, 4096, 1, 4096, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, AB_SCALES, 0},
    {N_, N_, 256, 192, 320, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, AB_SCALES, 0},
    {N_, T_, 520, 300, 200, E5, E4, F3, F3, EP_NONE, F3, 1.0f, 0.0f, AB_SCALES, 0},
    {T_, T_, 1000, 640, 384, E4, E5, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {N_, N_, 1, 4096, 1024, E4, E4, BF, BF, EP_NONE, BF, 1.0f, 0.0f, AB_SCALES, 0},
    /* the fused output op of the sm90 kernels with d_scale and amax_d (SCALES) and an E4M3 D: several tiles,
     * ragged edges, 16-bit inputs into an E4M3 D, an fp32 D's amax */
    {T_, N_, 1024, 768, 1024, E4, E4, BF, E4, EP_NONE, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 528, 700, 384, E5, E4, BF, E4, EP_GELU_BIAS, F3, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 1024, 1024, 1024, BF, BF, BF, E4, EP_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 1000, 1000, 2048, E4, E4, F3, F3, EP_RELU, F3, 1.0f, 0.0f, SCALES, 0},
    {N_, N_, 512, 384, 320, E4, E4, BF, E4, EP_RELU_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
};

/* Odd sizes and every op pair (fringe tiles, unaligned leading dimensions). */
static const mm_case shapes[] = {
    {N_, N_, 1, 1, 1, BF, BF, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {N_, N_, 13, 17, 19, BF, BF, BF, BF, EP_GELU_AUX_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 127, 129, 65, HF, HF, HF, HF, EP_RELU_BIAS, F3, 1.0f, 0.0f, NO_SCALES, 0},
    {N_, T_, 129, 257, 63, BF, BF, F3, F3, EP_GELU, F3, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, T_, 257, 193, 131, BF, BF, BF, BF, EP_BIAS, BF, 1.0f, 1.0f, NO_SCALES, 0},
    {T_, N_, 33, 47, 77, E4, E4, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    {N_, N_, 31, 1000, 7, E4, E5, BF, E4, EP_BIAS, BF, 1.0f, 0.0f, SCALES, 0},
    {T_, N_, 2053, 131, 997, E4, E4, HF, HF, EP_NONE, HF, 1.0f, 0.0f, NO_SCALES, 0},
};

/* Fused epilogues on the sm90 path's kernels: several tiles, every op pair, ragged last tiles, the deferred
 * stores (16-bit D), tile-end TMA stores (fp32 D), a bias of another type; and three the sm90 path must
 * decline (in place with beta != 0; m * 2 bytes not a multiple of 16; aux of another type than D). */
static const mm_case fused[] = {
    {T_, N_, 520, 700, 384, BF, BF, BF, BF, EP_GELU_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {N_, T_, 1000, 1216, 320, HF, HF, HF, HF, EP_GELU_AUX_BIAS, HF, 0.75f, 0.0f, NO_SCALES, 0},
    {N_, N_, 768, 640, 256, BF, BF, F3, F3, EP_RELU_BIAS, F3, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, T_, 1536, 1280, 192, BF, BF, BF, BF, EP_GELU, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 640, 768, 192, BF, BF, BF, BF, EP_GELU_BIAS, F3, 1.0f, 1.0f, NO_SCALES, 1},
    {T_, N_, 1001, 999, 200, HF, HF, HF, HF, EP_RELU, HF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 296, 96, 128, BF, BF, BF, BF, EP_BIAS, BF, 1.0f, 0.0f, NO_SCALES, 0},
    {T_, N_, 96, 300, 128, BF, BF, F3, F3, EP_GELU_AUX, BF, 1.0f, 0.5f, NO_SCALES, 1},
};

/* BLAS edges and in place. */
static const mm_case edges[] = {
    {T_, N_, 128, 64, 0, BF, BF, BF, BF, EP_GELU_BIAS, BF, 1.0f, 1.0f, NO_SCALES, 0},    /* k == 0 */
    {T_, N_, 128, 64, 96, BF, BF, BF, BF, EP_RELU_BIAS, BF, 0.0f, 0.5f, NO_SCALES, 0},   /* alpha == 0 */
    {T_, N_, 128, 64, 96, E4, E4, BF, E4, EP_GELU_AUX_BIAS, BF, 0.0f, 1.0f, SCALES, 0},  /* alpha == 0, FP8 */
    {T_, N_, 256, 256, 128, BF, BF, BF, BF, EP_NONE, BF, 1.0f, 1.0f, NO_SCALES, 1},      /* in place, plain */
    {T_, N_, 256, 256, 128, BF, BF, BF, BF, EP_NONE, BF, 1.0f, 0.0f, NO_SCALES, 0},      /* plain, beta 0 */
    {T_, N_, 256, 256, 128, HF, HF, F3, F3, EP_GELU_BIAS, F3, 1.0f, 1.0f, NO_SCALES, 1}, /* in place, GELU */
};

typedef struct group {
    const char *name;
    const mm_case *cases;
    size_t count;
} group;
#define GROUP(x)                      \
    {                                 \
#x, x, sizeof x / sizeof x[0] \
    }
static const group groups[] = {GROUP(epilogues), GROUP(fp8), GROUP(shapes), GROUP(fused), GROUP(edges)};

/* ---------------------------------------------------------------- the case's data */

static const float kScales[4] = {1.5f, 0.75f, 0.5f, 4.0f}; /* a, b, c, d */

typedef struct data {
    int lda, ldb, ldc, ldd, ldaux;
    size_t na, nb, nc, nd, naux;
    void *hA, *hB, *hC, *hBias;       /* host inputs in their types */
    void *A, *B, *C, *D, *bias, *aux; /* device */
    float *scales, *amax;             /* device: 4 scales; amax */
    void *D2, *aux2;                  /* device: cuBLASLt's outputs */
    float *amax2;
} data;

/* A and B as stored (column-major): op(A) is m x k, so A is m x k (N) or k x m (T); op(B) is k x n, so B
 * is k x n (N) or n x k (T). */
static int a_rows(const mm_case *c)
{
    return c->ta == N_ ? c->m : c->k;
}
static int a_cols(const mm_case *c)
{
    return c->ta == N_ ? c->k : c->m;
}
static int b_rows(const mm_case *c)
{
    return c->tb == N_ ? c->k : c->n;
}
static int b_cols(const mm_case *c)
{
    return c->tb == N_ ? c->n : c->k;
}
static int at_least_1(int x)
{
    return x > 1 ? x : 1;
}
static int ep_bias(wsgemm_matmul_epilogue e)
{
    return e == EP_BIAS || e == EP_RELU_BIAS || e == EP_GELU_BIAS || e == EP_GELU_AUX_BIAS;
}
static int ep_aux(wsgemm_matmul_epilogue e)
{
    return e == EP_GELU_AUX || e == EP_GELU_AUX_BIAS;
}
static int is_fp8(wsgemm_dtype t)
{
    return t == E4 || t == E5;
}
static int ep_gelu(wsgemm_matmul_epilogue e)
{
    return e == EP_GELU || e == EP_GELU_BIAS || e == EP_GELU_AUX || e == EP_GELU_AUX_BIAS;
}
static int ep_relu(wsgemm_matmul_epilogue e)
{
    return e == EP_RELU || e == EP_RELU_BIAS;
}

static void *host_random(wsgemm_dtype t, size_t n, testing_rng *rng)
{
    void *p = malloc(n * (size_t)testing_dtype_bytes(t) + 1);
    for (size_t i = 0; i < n; ++i) testing_store(t, p, i, testing_rng_uniform(rng));
    return p;
}

static void *device_copy(const void *h, size_t bytes)
{
    void *d = NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes ? bytes : 1));
    if (h) CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* The leading dimensions and element counts of the case's matrices (no memory yet). */
static void data_layout(const mm_case *c, data *x)
{
    memset(x, 0, sizeof *x);
    /* leading dimensions padded to a multiple of 16 elements (cuBLASLt's FP8 layouts need 16 bytes) */
    x->lda = (at_least_1(a_rows(c)) + 15) / 16 * 16;
    x->ldb = (at_least_1(b_rows(c)) + 15) / 16 * 16;
    x->ldc = x->ldd = x->ldaux = (at_least_1(c->m) + 15) / 16 * 16;
    x->na = (size_t)x->lda * at_least_1(a_cols(c));
    x->nb = (size_t)x->ldb * at_least_1(b_cols(c));
    x->nc = x->nd = x->naux = (size_t)x->ldc * c->n;
}

static void data_create(const mm_case *c, uint64_t seed, data *x)
{
    data_layout(c, x);
    testing_rng rng = testing_rng_seeded(seed);
    x->hA = host_random(c->a, x->na, &rng);
    x->hB = host_random(c->b, x->nb, &rng);
    x->hC = host_random(c->c, x->nc, &rng);
    x->hBias = host_random(c->vec, (size_t)c->m, &rng);
    x->A = device_copy(x->hA, x->na * testing_dtype_bytes(c->a));
    x->B = device_copy(x->hB, x->nb * testing_dtype_bytes(c->b));
    x->C = device_copy(x->hC, x->nc * testing_dtype_bytes(c->c));
    x->bias = device_copy(x->hBias, (size_t)c->m * testing_dtype_bytes(c->vec));
    x->D = device_copy(NULL, x->nd * testing_dtype_bytes(c->d));
    x->aux = device_copy(NULL, x->naux * testing_dtype_bytes(c->vec));
    x->D2 = device_copy(NULL, x->nd * testing_dtype_bytes(c->d));
    x->aux2 = device_copy(NULL, x->naux * testing_dtype_bytes(c->vec));
    x->scales = device_copy(kScales, sizeof kScales);
    x->amax = device_copy(NULL, sizeof(float));
    x->amax2 = device_copy(NULL, sizeof(float));
}

static void data_destroy(data *x)
{
    void *dev[] = {x->A, x->B, x->C, x->D, x->bias, x->aux, x->scales, x->amax, x->D2, x->aux2, x->amax2};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    free(x->hA);
    free(x->hB);
    free(x->hC);
    free(x->hBias);
}

/* NaN in every type: all-ones bytes (0xFF is E4M3's NaN, 0xFFFF bf16's and fp16's, 0xFFFFFFFF fp32's). */
static void poison(void *dev, size_t bytes)
{
    CUDA_CHECK(cudaMemset(dev, 0xFF, bytes));
}

/* The outputs (and, for beta == 0, C: proof that it is not read) poisoned; an in-place C restored. */
static void prepare_outputs(const mm_case *c, data *x, void *D, void *aux, float *amax)
{
    poison(D, x->nd * testing_dtype_bytes(c->d));
    poison(aux, x->naux * testing_dtype_bytes(c->vec));
    poison(amax, sizeof(float));
    if (c->beta == 0.0f)
        poison(x->C, x->nc * testing_dtype_bytes(c->c));
    else
        CUDA_CHECK(cudaMemcpy(x->C, x->hC, x->nc * testing_dtype_bytes(c->c), cudaMemcpyHostToDevice));
    if (c->in_place) CUDA_CHECK(cudaMemcpy(D, x->hC, x->nd * testing_dtype_bytes(c->d), cudaMemcpyHostToDevice));
}

/* ---------------------------------------------------------------- the two runs */

static wsgemm_status run_wsgemm(wsgemm_handle h, const mm_case *c, data *x)
{
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, c->ta, c->tb, c->a, c->d));
    d.Btype = c->b;
    d.Ctype = c->c;
    d.epilogue = c->ep;
    if (ep_bias(c->ep)) {
        d.bias = x->bias;
        d.bias_type = c->vec;
    }
    if (ep_aux(c->ep)) {
        d.aux = x->aux;
        d.aux_type = c->vec;
        d.ldaux = x->ldaux;
    }
    if (c->scales) {
        d.a_scale = x->scales;
        d.b_scale = x->scales + 1;
    }
    if (c->scales == SCALES) {
        d.c_scale = x->scales + 2;
        d.d_scale = x->scales + 3;
        d.amax_d = x->amax;
    }
    const void *C = c->in_place ? x->D : x->C;
    return wsgemm_matmul(h, &d, c->m, c->n, c->k, &c->alpha, x->A, x->lda, x->B, x->ldb, &c->beta, C, x->ldc, x->D,
                         x->ldd);
}

static cudaDataType_t cuda_type(wsgemm_dtype t)
{
    return (cudaDataType_t)t;
} /* equal values */

/* How the case's scales reach cuBLASLt. cuBLASLt (13.1, on the H200) takes a D scale and amax only for an FP8
 * D and a C scale only for an FP8 C (INVALID_VALUE from the heuristic otherwise), and returns NOT_SUPPORTED
 * from cublasLtMatmul itself when A and B scale pointers come with a 16/32-bit D. Per-tensor scales are
 * scalars, so the same result is formed without those pointers: a_scale * b_scale go into alpha, c_scale into
 * beta (C is never FP8 here), and for a 16/32-bit D the d_scale (4, a power of two: exact) is applied to
 * cuBLASLt's D on the host. The ways are tried in order until cuBLASLt runs one. */
typedef enum lt_scaling {
    LT_POINTERS,   /* A, B, D scale pointers and amax (FP8 D); c_scale in beta */
    LT_FOLDED_AB,  /* a_scale * b_scale in alpha, c_scale in beta; D scale pointer and amax (FP8 D) */
    LT_FOLDED_ALL, /* a_scale * b_scale in alpha, c_scale in beta, d_scale on the host; no amax */
} lt_scaling;

/* One attempt: 1 when cublasLtMatmul ran, with why = "ran ..." or the refusal. */
static int run_cublaslt_as(cublasLtHandle_t lt, void *ws, size_t ws_bytes, const mm_case *c, data *x, lt_scaling how,
                           char *why, size_t why_size)
{
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL, ld = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    int ran = 0;
    cublasStatus_t st = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    int32_t ta = c->ta, tb = c->tb;
    uint32_t ep = (uint32_t)c->ep;
    int32_t vec = cuda_type(c->vec);
    int64_t ldaux = x->ldaux;
    const void *bias = x->bias;
    void *aux = x->aux2;
    const float *sa = x->scales, *sb = x->scales + 1, *sd = x->scales + 3;
    void *amax = x->amax2;
    float alpha = c->alpha, beta = c->beta;
    if (c->scales == SCALES) beta *= kScales[2];
    if (c->scales && how != LT_POINTERS) alpha *= kScales[0] * kScales[1];
#define SET(attr, value) \
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulDescSetAttribute(op, attr, &(value), sizeof(value))
    SET(CUBLASLT_MATMUL_DESC_TRANSA, ta);
    SET(CUBLASLT_MATMUL_DESC_TRANSB, tb);
    SET(CUBLASLT_MATMUL_DESC_EPILOGUE, ep);
    if (ep_bias(c->ep)) {
        SET(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
        SET(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, vec);
    }
    if (ep_aux(c->ep)) {
        SET(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux);
        SET(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, ldaux);
        SET(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, vec);
    }
    if (c->scales && how == LT_POINTERS) {
        SET(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, sa);
        SET(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, sb);
    }
    if (c->scales == SCALES && how != LT_FOLDED_ALL) {
        SET(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, sd);
        SET(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, amax);
    }
#undef SET
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&la, cuda_type(c->a), a_rows(c), a_cols(c), x->lda);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&lb, cuda_type(c->b), b_rows(c), b_cols(c), x->ldb);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatrixLayoutCreate(&lc, cuda_type(c->c), c->m, c->n, x->ldc);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatrixLayoutCreate(&ld, cuda_type(c->d), c->m, c->n, x->ldd);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulPreferenceCreate(&pref);
    uint64_t wsb = ws_bytes;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 1, &result, &found);
    static const char *const ways[] = {"scale pointers", "a/b/c scales folded into alpha and beta",
                                       "scales folded into alpha, beta and (d) the host"};
    if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
        snprintf(why, why_size, "none (%s: %s)", ways[how],
                 st != CUBLAS_STATUS_SUCCESS ? "attributes or heuristic refused" : "no algorithm");
    } else {
        prepare_outputs(c, x, x->D2, x->aux2, x->amax2);
        const void *C = c->in_place ? x->D2 : x->C;
        st = cublasLtMatmul(lt, op, &alpha, x->A, la, x->B, lb, &beta, C, lc, x->D2, ld, &result.algo, ws, ws_bytes, 0);
        if (st == CUBLAS_STATUS_SUCCESS) {
            CUDA_CHECK(cudaDeviceSynchronize());
            ran = 1;
            snprintf(why, why_size, c->scales ? "ran (%s)" : "ran", ways[how]);
        } else {
            snprintf(why, why_size, "none (%s: cublasLtMatmul status %d)", ways[how], (int)st);
        }
    }
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (ld) cublasLtMatrixLayoutDestroy(ld);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (op) cublasLtMatmulDescDestroy(op);
    return ran;
}

/* cublasLtMatmul into D2/aux2/amax2. Returns 1 when it ran (*how: the way its scales went in), 0 when cuBLASLt
 * has no algorithm for the case in any way, with the reason in why. */
static int run_cublaslt(cublasLtHandle_t lt, void *ws, size_t ws_bytes, const mm_case *c, data *x, lt_scaling *how,
                        char *why, size_t why_size)
{
    /* no scales: nothing to fold; an FP8 D: its scale must act before the rounding, so never on the host */
    const lt_scaling first = c->scales != SCALES || c->d == E4 ? LT_POINTERS : LT_FOLDED_ALL;
    const lt_scaling last = !c->scales                             ? LT_POINTERS
                            : c->scales == AB_SCALES || c->d == E4 ? LT_FOLDED_AB
                                                                   : LT_FOLDED_ALL;
    for (lt_scaling w = first; w <= last; w = (lt_scaling)(w + 1)) {
        if (run_cublaslt_as(lt, ws, ws_bytes, c, x, w, why, why_size)) {
            *how = w;
            return 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- host reference and checks */

typedef struct reference {
    double *d, *aux; /* tight m x n: D before rounding (after d_scale), aux before rounding */
    double *terms;   /* m x n: the largest of |alpha a_scale b_scale AB|, |beta c_scale C|, |bias| */
    double amax;
} reference;

/* Where element (i, l) of op(A) and element (l, j) of op(B) lie in A and B. */
static size_t a_index(const mm_case *c, const data *x, int i, int l)
{
    return c->ta == N_ ? (size_t)i + (size_t)l * x->lda : (size_t)l + (size_t)i * x->lda;
}
static size_t b_index(const mm_case *c, const data *x, int l, int j)
{
    return c->tb == N_ ? (size_t)l + (size_t)j * x->ldb : (size_t)j + (size_t)l * x->ldb;
}

static double gelu(double x)
{
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static void host_reference(const mm_case *c, const data *x, reference *r)
{
    const size_t mn = (size_t)c->m * c->n;
    r->d = calloc(mn ? mn : 1, sizeof(double));
    r->aux = calloc(mn ? mn : 1, sizeof(double));
    r->terms = calloc(mn ? mn : 1, sizeof(double));
    const double sa = c->scales ? kScales[0] : 1, sb = c->scales ? kScales[1] : 1;
    const double sc = c->scales == SCALES ? kScales[2] : 1, sd = c->scales == SCALES ? kScales[3] : 1;
    double *a = malloc((x->na + 1) * sizeof(double)), *b = malloc((x->nb + 1) * sizeof(double));
    for (size_t e = 0; e < x->na; ++e) a[e] = testing_load(c->a, x->hA, e);
    for (size_t e = 0; e < x->nb; ++e) b[e] = testing_load(c->b, x->hB, e);
    double amax = 0.0;
#pragma omp parallel for reduction(max : amax) schedule(static)
    for (int j = 0; j < c->n; ++j) {
        for (int i = 0; i < c->m; ++i) {
            double acc = 0.0;
            if (c->alpha != 0.0f)
                for (int l = 0; l < c->k; ++l) {
                    acc += a[a_index(c, x, i, l)] * b[b_index(c, x, l, j)];
                }
            double v = (double)c->alpha * sa * sb * acc, terms = fabs(v);
            if (c->beta != 0.0f) {
                const double t = (double)c->beta * sc * testing_load(c->c, x->hC, (size_t)i + (size_t)j * x->ldc);
                v += t;
                terms = fmax(terms, fabs(t));
            }
            if (ep_bias(c->ep)) {
                const double t = testing_load(c->vec, x->hBias, (size_t)i);
                v += t;
                terms = fmax(terms, fabs(t));
            }
            r->terms[i + (size_t)j * c->m] = terms;
            r->aux[i + (size_t)j * c->m] = v;
            if (ep_relu(c->ep)) v = v > 0.0 ? v : 0.0;
            if (ep_gelu(c->ep)) v = gelu(v);
            if (fabs(v) > amax) amax = fabs(v);
            r->d[i + (size_t)j * c->m] = v * sd;
        }
    }
    r->amax = amax;
    free(a);
    free(b);
}

/* One unit in the last place of type t at magnitude a (its subnormal step below the normal range). */
static double ulp_of(wsgemm_dtype t, double a)
{
    int mant = t == F3 ? 23 : t == BF ? 7 : t == HF ? 10 : 3;
    int min_exp = t == F3 ? -126 : t == BF ? -126 : t == HF ? -14 : -6;
    int e = a > 0 ? (int)floor(log2(a)) : min_exp;
    if (e < min_exp) e = min_exp;
    return ldexp(1.0, e - mant);
}

typedef struct verdict {
    size_t bad, nan;
    double max_err, rms_ref;
    int passed;
} verdict;

/* got: a host copy of an m x n output of type t with leading dimension ld; ref: tight doubles (exact, or
 * another library's output); act_in: the activation's input x per element (tight), for the rtol_act term;
 * other: NULL against the host reference; against another library, the per-element terms of the sum
 * (reference.terms), the factor from them to the output (d_scale for D, 1 for aux) and the relative
 * accumulation allowance of that library (the "against cuBLASLt" terms of the tolerance in the header). */
static verdict compare(const mm_case *c, wsgemm_dtype t, const void *got, int ld, const double *ref,
                       const double *act_in, double rtol_act, const double *other, double other_scale, double other_acc,
                       const char *what)
{
    verdict v = {0, 0, 0.0, 0.0, 0};
    const size_t mn = (size_t)c->m * c->n;
    double sum2 = 0.0;
    for (size_t e = 0; e < mn; ++e) sum2 += ref[e] * ref[e];
    v.rms_ref = mn ? sqrt(sum2 / (double)mn) : 0.0;
    const double atol = ldexp(v.rms_ref, -12) + ulp_of(t, 0.0);
    for (int j = 0; j < c->n; ++j)
        for (int i = 0; i < c->m; ++i) {
            const double g = testing_load(t, got, (size_t)i + (size_t)j * ld), r = ref[i + (size_t)j * c->m];
            const double err = fabs(g - r);
            double tol = ulp_of(t, fmax(fabs(g), fabs(r))) + rtol_act * fabs(act_in[i + (size_t)j * c->m]) + atol;
            if (other) tol += ulp_of(t, other_scale * other[i + (size_t)j * c->m]);
            tol += other_acc * v.rms_ref;
            if (isnan(g) || isnan(r)) {
                if (v.nan++ < 3) printf("    %s (%d, %d): got %g, reference %g\n", what, i, j, g, r);
                v.bad++;
            } else if (!(err <= tol)) {
                if (v.bad++ < 3)
                    printf("    %s (%d, %d): got %.8g, reference %.8g (err %.3g > tol %.3g)\n", what, i, j, g, r, err,
                           tol);
            }
            if (err > v.max_err) v.max_err = err;
        }
    v.passed = v.bad == 0;
    return v;
}

static void *host_copy(const void *dev, size_t bytes)
{
    void *h = malloc(bytes ? bytes : 1);
    CUDA_CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost));
    return h;
}

/* The output of type t (host copy, ld) as tight doubles. */
static double *as_doubles(const mm_case *c, wsgemm_dtype t, const void *h, int ld)
{
    double *out = malloc(((size_t)c->m * c->n + 1) * sizeof(double));
    for (int j = 0; j < c->n; ++j)
        for (int i = 0; i < c->m; ++i) out[i + (size_t)j * c->m] = testing_load(t, h, (size_t)i + (size_t)j * ld);
    return out;
}

static int amax_close(double got, double ref)
{
    return !isnan(got) && !isnan(ref) && fabs(got - ref) <= ldexp(fabs(ref), -10) + 1e-30;
}

/* ---------------------------------------------------------------- a case */

static void describe(const mm_case *c, char *buf, size_t size)
{
    snprintf(buf, size, "%c%c m=%d n=%d k=%d %s x %s -> C %s D %s ep=%d vec=%s alpha=%g beta=%g%s%s",
             c->ta == N_ ? 'N' : 'T', c->tb == N_ ? 'N' : 'T', c->m, c->n, c->k, testing_dtype_name(c->a),
             testing_dtype_name(c->b), testing_dtype_name(c->c), testing_dtype_name(c->d), (int)c->ep,
             testing_dtype_name(c->vec), c->alpha, c->beta,
             c->scales == SCALES ? " scales+amax"
             : c->scales         ? " a/b scales"
                                 : "",
             c->in_place ? " in-place" : "");
}

/* What docs/api.md says the sm90 path runs (AUTO takes it on an sm_90 device): 16-bit A and B without scales,
 * or FP8 A and B in any layout with any scales; a product to form; C unread or in place (then no c_scale).
 * Through the fused output op (an epilogue, d_scale and amax_d, an E4M3 D): beta == 0, aux (if any) of D's
 * type, and a D that TMA can store (m times D's element size a multiple of 16). */
static int sm90_runs(const mm_case *c)
{
    const int aux = c->ep == EP_GELU_AUX || c->ep == EP_GELU_AUX_BIAS;
    const int tma_d = ((size_t)c->m * testing_dtype_bytes(c->d)) % 16 == 0; /* ldd: m rounded up to 16 */
    const int fused_op = c->ep != EP_NONE || c->scales == SCALES || c->d == E4;
    const int b16_ok = (c->a == BF || c->a == HF) && !c->scales;
    return (b16_ok || is_fp8(c->a)) && (!aux || c->vec == c->d) && (!fused_op || (tma_d && c->beta == 0.0f)) &&
           c->k > 0 && c->alpha != 0.0f && (c->beta == 0.0f || (c->in_place && c->scales != SCALES));
}

/* What docs/api.md says the sm100 kernel runs: every matmul with a product, the fused output op in its epilogue
 * when the call is more than alpha/beta on D (an epilogue, scales, amax, an E4M3 D, C not D). */
static int is_sm100(wsgemm_path p)
{
    return p == WSGEMM_PATH_SM100 || p == WSGEMM_PATH_SM100_EMULATED;
}
static int sm100_runs(const mm_case *c)
{
    return c->k > 0 && c->alpha != 0.0f;
}
static int sm100_fused(const mm_case *c)
{
    return c->ep != EP_NONE || c->scales != NO_SCALES || c->d == E4 || (c->beta != 0.0f && !c->in_place);
}

/* The sm100 launcher's probe after the case ran on path: kind and fused op as the case asks. */
static int sm100_probe_ok(const mm_case *c, wsgemm_path path)
{
    wsgemm_sm100_launch_probe l;
    const int got = path == WSGEMM_PATH_SM100 ? wsgemm_sm100_last_launch(&l) : wsgemm_sm100_emulated_last_launch(&l);
    const int kind = is_fp8(c->a) ? 1 : 0;
    const int ok = got == 0 && l.kind == kind && l.fused == sm100_fused(c);
    if (!ok)
        printf("     sm100 probe: %s, kind %d (expected %d), fused %d (expected %d)\n", got == 0 ? "read" : "NONE",
               got == 0 ? l.kind : -1, kind, got == 0 ? l.fused : -1, sm100_fused(c));
    return ok;
}

static int run_case(wsgemm_handle h, cublasLtHandle_t lt, void *ws, size_t ws_bytes, const mm_case *c,
                    wsgemm_path forced, wsgemm_path gemm_auto, uint64_t seed)
{
    char shape[256];
    describe(c, shape, sizeof shape);
    printf("RUN  %s\n", shape); /* before any work: a crash names its case */
    fflush(stdout);
    data x;
    data_create(c, seed, &x);
    const size_t dbytes = x.nd * testing_dtype_bytes(c->d), auxbytes = x.naux * testing_dtype_bytes(c->vec);
    const int sm90 = sm90_runs(c);
    const int forced_runs = forced == WSGEMM_PATH_SM90 ? sm90 : is_sm100(forced) ? sm100_runs(c) : 1;
    wsgemm_path expected = forced;
    if (forced == WSGEMM_PATH_AUTO) /* AUTO: the GEMM's AUTO path where it runs the call (docs/api.md) */
        expected = is_sm100(gemm_auto)                     ? (sm100_runs(c) ? gemm_auto : WSGEMM_PATH_GENERIC)
                   : gemm_auto == WSGEMM_PATH_SM90 && sm90 ? WSGEMM_PATH_SM90
                                                           : WSGEMM_PATH_GENERIC;
    int ok = 1;

    prepare_outputs(c, &x, x.D, x.aux, x.amax);
    void *d_before = host_copy(x.D, dbytes);
    wsgemm_status s = run_wsgemm(h, c, &x);
    CUDA_CHECK(cudaDeviceSynchronize());
    void *hD = host_copy(x.D, dbytes), *hAux = host_copy(x.aux, auxbytes);
    float amax_got = NAN;
    CUDA_CHECK(cudaMemcpy(&amax_got, x.amax, sizeof amax_got, cudaMemcpyDeviceToHost));

    if (!forced_runs) { /* must decline, outputs bit-identical */
        const int untouched = memcmp(hD, d_before, dbytes) == 0 && isnan(amax_got);
        ok = s == WSGEMM_STATUS_NOT_SUPPORTED && untouched;
        printf("%s declined %s: %s, D %s\n", ok ? "PASS" : "FAIL", shape, wsgemm_status_string(s),
               untouched ? "untouched" : "MODIFIED");
        goto done;
    }
    wsgemm_path ran = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &ran);
    if (s != WSGEMM_STATUS_SUCCESS || ran != expected) {
        printf("FAIL %s: %s (%s), path %s (expected %s)\n", shape, wsgemm_status_string(s),
               wsgemm_get_last_error_message(h), wsgemm_path_name(ran), wsgemm_path_name(expected));
        ok = 0;
        goto done;
    }
    if (is_sm100(ran) && !sm100_probe_ok(c, ran)) {
        printf("FAIL %s: the sm100 launcher did not run the kind / fused op the case asks for\n", shape);
        ok = 0;
        goto done;
    }

    reference r;
    host_reference(c, &x, &r);
    const double rtol_act =
        ep_gelu(c->ep) ? ldexp(1.0, -11) * (c->scales == SCALES ? kScales[3] : 1.0) : 0.0; /* x -> D */
    /* FP8 operands on the sm90 path: its FP8 tensor-core sums (header) */
    const double tc_acc = is_fp8(c->a) && ran == WSGEMM_PATH_SM90 ? ldexp(1.0, -9) : 0.0;
    verdict vh = compare(c, c->d, hD, x.ldd, r.d, r.aux, rtol_act, NULL, 0.0, tc_acc, "D vs host");
    ok = ok && vh.passed;
    if (ep_aux(c->ep)) {
        verdict va = compare(c, c->vec, hAux, x.ldaux, r.aux, r.aux, 0.0, NULL, 0.0, tc_acc, "aux vs host");
        ok = ok && va.passed;
    }
    if (c->scales == SCALES && !amax_close(amax_got, r.amax)) {
        printf("    amax_d %.8g, host reference %.8g\n", amax_got, r.amax);
        ok = 0;
    }

    char lt_state[160];
    lt_scaling lt_how = LT_POINTERS;
    const int lt_ran = run_cublaslt(lt, ws, ws_bytes, c, &x, &lt_how, lt_state, sizeof lt_state);
    /* FP8 operands: cuBLASLt's FP8 tensor-core accumulation (header) */
    const double lt_acc = is_fp8(c->a) ? ldexp(1.0, -9) : 0.0;
    verdict vl = {0, 0, 0.0, 0.0, 1};
    if (lt_ran) {
        void *hD2 = host_copy(x.D2, dbytes);
        double *d2 = as_doubles(c, c->d, hD2, x.ldd);
        if (c->scales == SCALES && lt_how == LT_FOLDED_ALL) /* d_scale on the host: a power of two, exact */
            for (size_t e = 0; e < (size_t)c->m * (size_t)c->n; e++) d2[e] *= kScales[3];
        vl = compare(c, c->d, hD, x.ldd, d2, r.aux, rtol_act, r.terms, c->scales == SCALES ? kScales[3] : 1.0, lt_acc,
                     "D vs cuBLASLt");
        ok = ok && vl.passed;
        if (ep_aux(c->ep)) {
            void *hAux2 = host_copy(x.aux2, auxbytes);
            double *a2 = as_doubles(c, c->vec, hAux2, x.ldaux);
            verdict va = compare(c, c->vec, hAux, x.ldaux, a2, r.aux, 0.0, r.terms, 1.0, lt_acc, "aux vs cuBLASLt");
            ok = ok && va.passed;
            free(a2);
            free(hAux2);
        }
        if (c->scales == SCALES && lt_how != LT_FOLDED_ALL) { /* cuBLASLt forms amax_d only for an FP8 D */
            float amax_lt = NAN;
            CUDA_CHECK(cudaMemcpy(&amax_lt, x.amax2, sizeof amax_lt, cudaMemcpyDeviceToHost));
            if (!amax_close(amax_got, amax_lt)) {
                printf("    amax_d %.8g, cuBLASLt %.8g\n", amax_got, amax_lt);
                ok = 0;
            }
        }
        free(d2);
        free(hD2);
    }
    printf("%s %s: path %s, host: max err %.3g (rms %.3g)%s, cuBLASLt: %s%s\n", ok ? "PASS" : "FAIL", shape,
           wsgemm_path_name(ran), vh.max_err, vh.rms_ref, vh.passed ? "" : " MISMATCH", lt_state,
           lt_ran ? (vl.passed ? ", agrees" : ", MISMATCH") : "");
    free(r.d);
    free(r.aux);
    free(r.terms);
done:
    free(d_before);
    free(hD);
    free(hAux);
    data_destroy(&x);
    return ok;
}

/* The path AUTO gives a GEMM on this device (a small bf16 GEMM through AUTO): what AUTO gives a matmul that path
 * runs. */
static wsgemm_path auto_gemm_path(wsgemm_handle h)
{
    const int n = 64;
    void *a = NULL, *c = NULL;
    CUDA_CHECK(cudaMalloc(&a, (size_t)n * n * 2));
    CUDA_CHECK(cudaMalloc(&c, (size_t)n * n * 2));
    CUDA_CHECK(cudaMemset(a, 0, (size_t)n * n * 2));
    const float one = 1.0f, zero = 0.0f;
    WSGEMM_CHECK(wsgemm_gemm_ex(h, T_, N_, n, n, n, &one, a, BF, n, a, BF, n, &zero, c, BF, n));
    wsgemm_path p = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &p);
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaFree(a);
    cudaFree(c);
    printf("AUTO gives a GEMM on this device path %s\n", wsgemm_path_name(p));
    return p;
}

static int parse_path(const char *name, wsgemm_path *path)
{
    for (int p = WSGEMM_PATH_AUTO; p <= WSGEMM_PATH_SM100_EMULATED; ++p)
        if (!strcmp(name, wsgemm_path_name((wsgemm_path)p))) {
            *path = (wsgemm_path)p;
            return 1;
        }
    return 0;
}

/* ---------------------------------------------------------------- layouts: the cases' arguments, on the CPU */

/* Every case's call as run_wsgemm makes it, with the leading dimensions data_create gives it, on distinct
 * aligned stand-in pointers and with the GPUs hidden: a call whose arguments pass all of wsgemm_matmul's
 * checks (leading dimensions against op(A), op(B), C, D and aux included) stops at the device lookup with
 * NO_DEVICE; any other status means the case itself is malformed. The host reference must read A and B
 * inside the elements data_create fills. */
static int check_layouts(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1); /* before the first CUDA call */
    static _Alignas(16) unsigned char stand_in[8][16];
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    int failed = 0, total = 0;
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; ++gi)
        for (size_t i = 0; i < groups[gi].count; ++i, ++total) {
            const mm_case *c = &groups[gi].cases[i];
            data x;
            data_layout(c, &x);
            x.A = stand_in[0];
            x.B = stand_in[1];
            x.C = stand_in[2];
            x.D = stand_in[3];
            x.bias = stand_in[4];
            x.aux = stand_in[5];
            x.scales = (float *)stand_in[6];
            x.amax = (float *)stand_in[7];
            const wsgemm_status s = run_wsgemm(h, c, &x);
            char shape[256];
            describe(c, shape, sizeof shape);
            /* the host reference's last reads of A and B (the largest indices) inside what data_create fills */
            const int inside = c->m == 0 || c->n == 0 || c->k == 0 ||
                               (a_index(c, &x, c->m - 1, c->k - 1) < x.na && b_index(c, &x, c->k - 1, c->n - 1) < x.nb);
            const int ok = s == WSGEMM_STATUS_NO_DEVICE && inside;
            failed += !ok;
            printf("%s %s %s (lda %d, ldb %d, ldc %d): %s%s%s%s\n", ok ? "PASS" : "FAIL", groups[gi].name, shape, x.lda,
                   x.ldb, x.ldc, wsgemm_status_string(s), s == WSGEMM_STATUS_NO_DEVICE ? "" : ": ",
                   s == WSGEMM_STATUS_NO_DEVICE ? "" : wsgemm_get_last_error_message(h),
                   inside ? "" : "; the reference reads past A or B");
        }
    wsgemm_destroy(h);
    printf("layouts: %d cases, %d failed\n", total, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line out at once, even into a pipe */
    if (argc == 2 && !strcmp(argv[1], "layouts")) return check_layouts();
    wsgemm_path path = WSGEMM_PATH_AUTO;
    const group *g = NULL;
    for (size_t i = 0; argc == 3 && i < sizeof groups / sizeof groups[0]; ++i)
        if (!strcmp(argv[1], groups[i].name)) g = &groups[i];
    if (g == NULL || !parse_path(argv[2], &path)) {
        fprintf(stderr,
                "usage: %s <epilogues|fp8|shapes|fused|edges> <generic|sm90|sm100-emulated|sm100|auto>, or %s "
                "layouts (CPU)\n",
                argv[0], argv[0]);
        return 2;
    }
    testing_require_gpu("matmul_matrix_test");
    const int cc = testing_device_cc();
    if ((path == WSGEMM_PATH_SM90 || path == WSGEMM_PATH_SM100_EMULATED) && cc != 90) {
        printf("SKIPPED: the %s path needs an sm_90 device (this one is %d)\n", wsgemm_path_name(path), cc);
        return WSGEMM_TEST_SKIP;
    }
    if (path == WSGEMM_PATH_SM100 && cc != 100) {
        printf("SKIPPED: the sm100 path needs an sm_100 device (this one is %d)\n", cc);
        return WSGEMM_TEST_SKIP;
    }
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, path));
    cublasLtHandle_t lt;
    CUBLAS_CHECK(cublasLtCreate(&lt));
    const size_t ws_bytes = 32u << 20;
    void *ws = NULL;
    CUDA_CHECK(cudaMalloc(&ws, ws_bytes));
    int failed = 0;
    const wsgemm_path gemm_auto = path == WSGEMM_PATH_AUTO ? auto_gemm_path(h) : WSGEMM_PATH_NONE;
    for (size_t i = 0; i < g->count; ++i)
        failed += !run_case(h, lt, ws, ws_bytes, &g->cases[i], path, gemm_auto, 1000 + i);
    if (path == WSGEMM_PATH_SM100_EMULATED) {
        const int leaked = wsgemm_sm100_emulated_tmem_leaked_columns();
        printf("%s TMEM after the group: %d columns still allocated\n", leaked == 0 ? "PASS" : "FAIL", leaked);
        failed += leaked != 0;
    }
    printf("%s %s: %zu cases, %d failed\n", g->name, wsgemm_path_name(path), g->count, failed);
    cudaFree(ws);
    cublasLtDestroy(lt);
    wsgemm_destroy(h);
    return failed ? 1 : 0;
}
