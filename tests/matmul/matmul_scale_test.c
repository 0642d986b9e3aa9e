// SPDX-License-Identifier: MIT
/*
 * matmul_scale_test.c - block-scaled FP8 in wsgemm_matmul (the scale modes of include/wsgemm.h):
 * `matmul_scale_test <group>`, groups:
 *   modes     every accepted mode pair with random scales (powers of two and awkward values, some negative),
 *             every op pair, several m, n and k (k not a multiple of 128 for the 128-K modes), each D type,
 *             epilogues, C with beta and c_scale, d_scale and amax_d
 *   edges     zero, infinite and NaN scales; UE8M0 codes 0, 127, 254 and 255 (NaN); a block factor that
 *             overflows fp32
 *   cublaslt  the pairs cuBLASLt has on this device (TN: VEC128 x VEC128, VEC128 x BLK128x128, BLK128x128 x
 *             VEC128, OUTER_VEC x OUTER_VEC) against cublasLtMatmul with the same scale tensors; where
 *             cuBLASLt refuses the pair, the line says so and the host reference alone decides
 * Every case: A and B uniform [-1, 1] rounded to FP8, C and bias uniform [-1, 1]; D, aux and amax_d poisoned
 * with NaN before each run (C too when beta == 0); the call runs under AUTO and must report the path that
 * takes it: on 9.0 the sm90 block-scaled kernels for E4M3 A and B with float scale tensors and beta == 0
 * (expected_path), the generic path otherwise; where AUTO runs sm90, the same call forced onto the generic path
 * is checked as well; where the device's fast path (sm90 on 9.0, sm100 on 10.0) does not take the call, the
 * call forced onto it must return NOT_SUPPORTED with D bit-identical. D (and aux, amax_d) is
 * compared element by element with an fp64 host reference of the documented arithmetic: per K block,
 * total += fl32(a_scale * b_scale) * (exact sum of the block's products), then alpha, beta * c_scale * C,
 * bias, aux, activation, amax, d_scale (docs/api.md, "Block-scaled FP8").
 *
 * Tolerance, per element: 1 ulp of D's type at max(|got|, |ref|) + its smallest subnormal step
 *   + 2^-16 * S   (S = sum over the K products of |alpha * scale * a * b|, times d_scale: the kernel sums each
 *                  block in fp32, in another order, and promotes it with one fma; 2^-16 covers k up to a few
 *                  thousand with margin, and a wrong scale, block or layout is off by O(|ref|) >> this)
 *   + blocks * 2^-149 * |alpha| * d_scale  (each promotion may round a subnormal fp32 product)
 *   + 2^-11 * |x| for GELU (tanh.approx, as matmul_matrix_test explains).
 * Against cuBLASLt the FP8 tensor-core sums of cuBLASLt keep fewer bits than fp32 between promotions
 * (matmul_matrix_test measured up to 2^-10.6 rms(ref)): 2^-9 * S more, plus 1 ulp. The sm90 kernels' block
 * sums are such tensor-core sums too (four wgmmas of 32 K per 128-K block): 2^-10 * S more for their results.
 * Expected NaN (a NaN scale, 0 * inf) must be NaN; expected +-inf must be the same inf; any other NaN fails.
 * Except, for results of FP8 tensor-core sums (the sm90 kernels', cuBLASLt's), where a non-finite block factor
 * meets a block whose exact sum is within their rounding of 0 (2^-10 of its magnitude: reference.fragile):
 * there any non-finite result matches a non-finite expectation (inf * a sum rounded to 0 is NaN).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>

#include "testing.h"

#define N_ WSGEMM_OP_N
#define T_ WSGEMM_OP_T
#define BF WSGEMM_R_16BF
#define HF WSGEMM_R_16F
#define F3 WSGEMM_R_32F
#define E4 WSGEMM_R_8F_E4M3
#define E5 WSGEMM_R_8F_E5M2

#define SC WSGEMM_MATMUL_SCALE_SCALAR_32F
#define MX WSGEMM_MATMUL_SCALE_VEC32_UE8M0
#define OV WSGEMM_MATMUL_SCALE_OUTER_VEC_32F
#define V1 WSGEMM_MATMUL_SCALE_VEC128_32F
#define B2 WSGEMM_MATMUL_SCALE_BLK128x128_32F

#define EP_NONE          WSGEMM_MATMUL_EPILOGUE_DEFAULT
#define EP_RELU_BIAS     WSGEMM_MATMUL_EPILOGUE_RELU_BIAS
#define EP_GELU_BIAS     WSGEMM_MATMUL_EPILOGUE_GELU_BIAS
#define EP_GELU_AUX_BIAS WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS

/* What the scale tensors hold: random (RND), some zero, infinite and NaN (ZNAN), UE8M0 edge codes (EDGE), a
 * block factor that overflows fp32 (OVF: 2^127 * 2^127). */
enum { RND = 0, ZNAN = 1, EDGE = 2, OVF = 3 };

typedef struct sc_case {
    wsgemm_op ta, tb;
    int m, n, k;
    wsgemm_dtype a, b, c, d;
    int amode, bmode;
    wsgemm_matmul_epilogue ep;
    float alpha, beta;
    int extra; /* c_scale 0.5, d_scale 2, amax_d */
    int fill;  /* RND, ZNAN, EDGE, OVF */
} sc_case;

static const sc_case modes[] = {
    /* the DeepSeek-V3 recipe: 1 x 128 activations, 128 x 128 weights; every op pair, partial last blocks */
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 200, 330, 392, E4, E4, BF, BF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {N_, N_, 129, 257, 200, E4, E4, F3, F3, V1, B2, EP_NONE, 0.5f, 0.0f, 0, RND},
    {N_, T_, 300, 130, 640, E5, E4, BF, BF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, T_, 64, 520, 1000, E4, E5, HF, HF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 1, 4096, 256, E4, E4, BF, BF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 1000, 1, 384, E4, E4, F3, F3, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 77, 99, 1, E4, E4, F3, F3, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    /* the other 128-K pairs */
    {T_, N_, 256, 384, 512, E4, E4, BF, BF, B2, V1, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 256, 384, 300, E4, E4, F3, F3, V1, V1, EP_NONE, 1.0f, 0.0f, 0, RND},
    {N_, N_, 257, 129, 260, E4, E4, BF, BF, B2, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    /* per row x per column */
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, OV, OV, EP_NONE, 1.0f, 0.0f, 0, RND},
    {N_, T_, 333, 77, 1000, E5, E4, F3, F3, OV, OV, EP_NONE, 1.0f, 0.0f, 0, RND},
    /* MX 1 x 32 UE8M0 */
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, MX, MX, EP_NONE, 1.0f, 0.0f, 0, RND},
    {N_, N_, 130, 200, 96, E4, E5, F3, F3, MX, MX, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, T_, 65, 1000, 32, E5, E4, HF, HF, MX, MX, EP_NONE, 1.0f, 0.0f, 0, RND},
    /* the fused output op and the C term with block scales: bias, GELU, aux, c_scale, d_scale, amax, E4M3 D */
    {T_, N_, 256, 320, 512, E4, E4, BF, BF, V1, B2, EP_GELU_AUX_BIAS, 1.0f, 0.0f, 1, RND},
    {T_, N_, 256, 320, 400, E4, E4, BF, BF, V1, B2, EP_RELU_BIAS, 0.75f, 1.0f, 1, RND},
    {T_, N_, 256, 320, 512, E4, E4, BF, E4, V1, B2, EP_GELU_BIAS, 1.0f, 0.0f, 1, RND},
    {N_, N_, 200, 136, 256, E4, E4, F3, F3, MX, MX, EP_GELU_BIAS, 1.0f, -0.5f, 1, RND},
    {T_, N_, 256, 256, 384, E4, E4, HF, E4, OV, OV, EP_RELU_BIAS, 1.0f, 0.0f, 1, RND},
    {T_, N_, 256, 256, 384, E4, E4, BF, BF, MX, MX, EP_NONE, 0.0f, 1.0f, 1, RND}, /* alpha 0: no product */
};

static const sc_case edges[] = {
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, ZNAN},
    {N_, T_, 200, 300, 300, E4, E4, F3, F3, B2, V1, EP_NONE, 1.0f, 0.0f, 0, ZNAN},
    {T_, N_, 256, 256, 512, E4, E4, F3, F3, OV, OV, EP_NONE, 1.0f, 0.0f, 0, ZNAN},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, MX, MX, EP_NONE, 1.0f, 0.0f, 0, ZNAN},
    {T_, N_, 256, 256, 512, E4, E4, F3, F3, MX, MX, EP_NONE, 1.0f, 0.0f, 0, EDGE},
    {N_, N_, 130, 260, 320, E5, E4, BF, BF, MX, MX, EP_GELU_BIAS, 1.0f, 0.0f, 0, EDGE},
    {T_, N_, 128, 128, 256, E4, E4, F3, F3, MX, MX, EP_NONE, 1.0f, 0.0f, 0, OVF},
};

static const sc_case cublaslt[] = {
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, V1, V1, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, B2, V1, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 512, 384, 1024, E4, E4, F3, F3, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 384, 512, 512, E4, E5, BF, BF, V1, B2, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 256, 256, 512, E4, E4, BF, BF, OV, OV, EP_NONE, 1.0f, 0.0f, 0, RND},
    {T_, N_, 512, 256, 1024, E4, E4, F3, F3, OV, OV, EP_NONE, 1.0f, 0.0f, 0, RND},
};

typedef struct group {
    const char *name;
    const sc_case *cases;
    size_t count;
} group;
#define GROUP(x)                      \
    {                                 \
#x, x, sizeof x / sizeof x[0] \
    }
static const group groups[] = {GROUP(modes), GROUP(edges), GROUP(cublaslt)};

static const float kCScale = 0.5f, kDScale = 2.0f;

/* ---------------------------------------------------------------- the scale tensors (wsgemm.h's layouts) */

static int ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

/* The K extent of one scale: 32, 128, or k (the whole K) for OUTER_VEC. */
static int block_k(const sc_case *c)
{
    return c->amode == MX ? 32 : c->amode == OV ? (c->k > 0 ? c->k : 1) : 128;
}

/* Elements of an operand's scale tensor (outer: m for A, n for B). */
static size_t scale_count(int mode, int outer, int k)
{
    if (mode == OV) return (size_t)outer;
    if (mode == V1) return (size_t)outer * ceil_div(k, 128);
    if (mode == B2) return (size_t)ceil_div(k, 128) * ceil_div(outer, 128);
    if (mode == MX) return (size_t)outer * (k / 32);
    return 1;
}

/* Where the scale of row r (of op(A); column of op(B)) in K block b lies, from the header's table. */
static size_t scale_at(int mode, int r, int b, int outer, int k)
{
    if (mode == OV) return (size_t)r;
    if (mode == V1 || mode == MX) return (size_t)r + (size_t)b * outer;
    if (mode == B2) return (size_t)b + (size_t)(r / 128) * ceil_div(k, 128);
    return 0;
}

/* A UE8M0 code as OCP MX defines it: 2^(e - 127), NaN for 255 (decoded here without the library's code). */
static double ue8m0(uint8_t e)
{
    return e == 255 ? NAN : ldexp(1.0, (int)e - 127);
}

typedef struct scales {
    int mode;
    size_t count;
    float *f;   /* fp32 modes */
    uint8_t *e; /* MX */
} scales;

static float random_scale(testing_rng *rng)
{
    const float u = testing_rng_uniform(rng); /* [-1, 1] */
    const uint64_t r = testing_rng_next(rng);
    float v = ldexpf(1.0f + 0.5f * fabsf(u), (int)(r % 9) - 4); /* awkward values in [2^-4, 2^5) */
    if (r & 16) v = ldexpf(1.0f, (int)((r >> 8) % 13) - 6);     /* powers of two 2^-6 .. 2^6 */
    if ((r & 0xE0) == 0) v = -v;                                /* one in eight negative */
    return v;
}

static void scales_fill(const sc_case *c, scales *s, int mode, int outer, int is_a, testing_rng *rng)
{
    s->mode = mode;
    s->count = scale_count(mode, outer, c->k);
    s->f = calloc(s->count + 1, sizeof(float));
    s->e = calloc(s->count + 1, 1);
    for (size_t i = 0; i < s->count; ++i) {
        s->f[i] = random_scale(rng);
        s->e[i] = (uint8_t)(117 + testing_rng_next(rng) % 21); /* 2^-10 .. 2^10 */
    }
    if (c->fill == ZNAN) { /* A: a zero and a NaN; B: a zero and an infinity (0 * inf is NaN) */
        s->f[0] = 0.0f;
        if (s->count > 1) s->f[s->count / 2] = is_a ? NAN : INFINITY;
        s->e[s->count / 2] = is_a ? 255 : s->e[s->count / 2]; /* MX has no zero and no infinity */
    }
    if (c->fill == EDGE) { /* A: codes 0, 127, 254 (and 130) over the tensor, 255 (NaN) in a few rows' second
                            * block; B: 2^-27 and 2^-17, so that 254 stays inside fp32 (2^100, 2^110) and 0 goes
                            * below it (2^-154: the block factor is 0; 2^-144: a subnormal one) */
        static const uint8_t codes[] = {0, 127, 254, 127, 0, 254, 130};
        for (size_t i = 0; i < s->count; ++i) {
            const int r = (int)(i % (size_t)outer), b = (int)(i / (size_t)outer); /* MX: r fastest */
            if (is_a)
                s->e[i] = r % 97 == 5 && b == 1 ? 255 : codes[(r + 3 * b) % 7];
            else
                s->e[i] = (uint8_t)(b % 2 ? 100 : 110);
        }
    }
    if (c->fill == OVF) /* 2^127 * 2^127 overflows the fp32 block factor: +-inf (NaN where a sum is 0) */
        for (size_t i = 0; i < s->count; ++i) s->e[i] = 254;
}

static double scale_value(const scales *s, size_t i)
{
    return s->mode == MX ? ue8m0(s->e[i]) : (double)s->f[i];
}

/* ---------------------------------------------------------------- the case's data */

typedef struct data {
    int lda, ldb, ldc;
    size_t na, nb, nc;
    void *hA, *hB, *hC, *hBias;
    scales sa, sb;
    void *A, *B, *C, *D, *bias, *aux, *SA, *SB, *D2;
    float *consts, *amax; /* device: c_scale, d_scale; amax */
} data;

static int a_rows(const sc_case *c)
{
    return c->ta == N_ ? c->m : c->k;
}
static int a_cols(const sc_case *c)
{
    return c->ta == N_ ? c->k : c->m;
}
static int b_rows(const sc_case *c)
{
    return c->tb == N_ ? c->k : c->n;
}
static int b_cols(const sc_case *c)
{
    return c->tb == N_ ? c->n : c->k;
}
static int ep_bias(wsgemm_matmul_epilogue e)
{
    return e != EP_NONE;
}
static int ep_aux(wsgemm_matmul_epilogue e)
{
    return e == EP_GELU_AUX_BIAS;
}
static int ep_gelu(wsgemm_matmul_epilogue e)
{
    return e == EP_GELU_BIAS || e == EP_GELU_AUX_BIAS;
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

static void data_create(const sc_case *c, uint64_t seed, data *x)
{
    memset(x, 0, sizeof *x);
    x->lda = (a_rows(c) + 15) / 16 * 16;
    x->ldb = (b_rows(c) + 15) / 16 * 16;
    x->ldc = (c->m + 15) / 16 * 16;
    x->na = (size_t)x->lda * a_cols(c);
    x->nb = (size_t)x->ldb * b_cols(c);
    x->nc = (size_t)x->ldc * c->n;
    testing_rng rng = testing_rng_seeded(seed);
    x->hA = host_random(c->a, x->na, &rng);
    x->hB = host_random(c->b, x->nb, &rng);
    x->hC = host_random(c->c, x->nc, &rng);
    x->hBias = host_random(BF, (size_t)c->m, &rng);
    scales_fill(c, &x->sa, c->amode, c->m, 1, &rng);
    scales_fill(c, &x->sb, c->bmode, c->n, 0, &rng);
    x->A = device_copy(x->hA, x->na);
    x->B = device_copy(x->hB, x->nb);
    x->C = device_copy(x->hC, x->nc * testing_dtype_bytes(c->c));
    x->bias = device_copy(x->hBias, (size_t)c->m * 2);
    x->D = device_copy(NULL, x->nc * testing_dtype_bytes(c->d));
    x->D2 = device_copy(NULL, x->nc * testing_dtype_bytes(c->d));
    x->aux = device_copy(NULL, x->nc * 2);
    if (c->amode == MX) {
        x->SA = device_copy(x->sa.e, x->sa.count);
        x->SB = device_copy(x->sb.e, x->sb.count);
    } else {
        x->SA = device_copy(x->sa.f, x->sa.count * sizeof(float));
        x->SB = device_copy(x->sb.f, x->sb.count * sizeof(float));
    }
    const float consts[2] = {kCScale, kDScale};
    x->consts = device_copy(consts, sizeof consts);
    x->amax = device_copy(NULL, sizeof(float));
}

static void data_destroy(data *x)
{
    void *dev[] = {x->A, x->B, x->C, x->D, x->D2, x->bias, x->aux, x->SA, x->SB, x->consts, x->amax};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; ++i) cudaFree(dev[i]);
    void *host[] = {x->hA, x->hB, x->hC, x->hBias, x->sa.f, x->sa.e, x->sb.f, x->sb.e};
    for (size_t i = 0; i < sizeof host / sizeof host[0]; ++i) free(host[i]);
}

/* NaN in every type (0xFF bytes), D, aux, amax and (beta == 0) C. */
static void poison_outputs(const sc_case *c, data *x, void *D)
{
    CUDA_CHECK(cudaMemset(D, 0xFF, x->nc * testing_dtype_bytes(c->d)));
    CUDA_CHECK(cudaMemset(x->aux, 0xFF, x->nc * 2));
    CUDA_CHECK(cudaMemset(x->amax, 0xFF, sizeof(float)));
    if (c->beta == 0.0f)
        CUDA_CHECK(cudaMemset(x->C, 0xFF, x->nc * testing_dtype_bytes(c->c)));
    else
        CUDA_CHECK(cudaMemcpy(x->C, x->hC, x->nc * testing_dtype_bytes(c->c), cudaMemcpyHostToDevice));
}

static wsgemm_status run_wsgemm(wsgemm_handle h, const sc_case *c, data *x)
{
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, c->ta, c->tb, c->a, c->d));
    d.Btype = c->b;
    d.Ctype = c->c;
    d.epilogue = c->ep;
    d.a_scale_mode = (wsgemm_matmul_scale_mode)c->amode;
    d.b_scale_mode = (wsgemm_matmul_scale_mode)c->bmode;
    d.a_scale = (const float *)x->SA;
    d.b_scale = (const float *)x->SB;
    if (ep_bias(c->ep)) {
        d.bias = x->bias;
        d.bias_type = BF;
    }
    if (ep_aux(c->ep)) {
        d.aux = x->aux;
        d.aux_type = BF;
        d.ldaux = x->ldc;
    }
    if (c->extra) {
        d.c_scale = x->consts;
        d.d_scale = x->consts + 1;
        d.amax_d = x->amax;
    }
    return wsgemm_matmul(h, &d, c->m, c->n, c->k, &c->alpha, x->A, x->lda, x->B, x->ldb, &c->beta, x->C, x->ldc, x->D,
                         x->ldc);
}

/* ---------------------------------------------------------------- the host reference */

typedef struct reference {
    double *d, *aux, *bound; /* m x n: D (after d_scale), aux, S of the tolerance (after d_scale) */
    char *fragile; /* m x n: 1 where a non-finite block factor meets a block whose exact sum lies within 2^-10 of
                      its magnitude of 0, so that FP8 tensor-core sums may give it another sign, or 0 */
    double amax;
} reference;

static double gelu(double v)
{
    return 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}

static void host_reference(const sc_case *c, const data *x, reference *r)
{
    const size_t mn = (size_t)c->m * c->n;
    r->d = calloc(mn, sizeof(double));
    r->aux = calloc(mn, sizeof(double));
    r->bound = calloc(mn, sizeof(double));
    r->fragile = calloc(mn, 1);
    double *a = malloc((x->na + 1) * sizeof(double)), *b = malloc((x->nb + 1) * sizeof(double));
    for (size_t e = 0; e < x->na; ++e) a[e] = testing_load(c->a, x->hA, e);
    for (size_t e = 0; e < x->nb; ++e) b[e] = testing_load(c->b, x->hB, e);
    const double sd = c->extra ? kDScale : 1.0, sc = c->extra ? kCScale : 1.0;
    const int bk = block_k(c), blocks = c->k > 0 ? ceil_div(c->k, bk) : 0;
    double amax = 0.0;
#pragma omp parallel for reduction(max : amax) schedule(static)
    for (int j = 0; j < c->n; ++j)
        for (int i = 0; i < c->m; ++i) {
            double total = 0.0, bound = 0.0;
            char fragile = 0;
            for (int blk = 0; blk < blocks && c->alpha != 0.0f; ++blk) {
                /* the block factor as the kernel forms it: the product of two fp32 scales, rounded to fp32 */
                const float fa = (float)scale_value(&x->sa, scale_at(c->amode, i, blk, c->m, c->k));
                const float fb = (float)scale_value(&x->sb, scale_at(c->bmode, j, blk, c->n, c->k));
                const float s = fa * fb;
                double part = 0.0, abs_part = 0.0;
                const int l_end = (blk + 1) * bk < c->k ? (blk + 1) * bk : c->k;
                for (int l = blk * bk; l < l_end; ++l) {
                    const double av = a[c->ta == N_ ? (size_t)i + (size_t)l * x->lda : (size_t)l + (size_t)i * x->lda];
                    const double bv = b[c->tb == N_ ? (size_t)l + (size_t)j * x->ldb : (size_t)j + (size_t)l * x->ldb];
                    part += av * bv;
                    abs_part += fabs(av * bv);
                }
                total += (double)s * part;
                bound += fabs((double)s) * abs_part;
                fragile |= !isfinite(s) && fabs(part) <= 0x1p-10 * abs_part;
            }
            double v = (double)c->alpha * total;
            bound = fabs((double)c->alpha) * bound;
            if (c->beta != 0.0f) {
                const double t = (double)c->beta * sc * testing_load(c->c, x->hC, (size_t)i + (size_t)j * x->ldc);
                v += t;
                bound += fabs(t) * 0x1p-8; /* the C term: one rounding of its product */
            }
            if (ep_bias(c->ep)) v += testing_load(BF, x->hBias, (size_t)i);
            r->aux[i + (size_t)j * c->m] = v;
            if (c->ep == EP_RELU_BIAS) v = v > 0.0 ? v : 0.0;
            if (ep_gelu(c->ep)) v = gelu(v);
            if (fabs(v) > amax) amax = fabs(v);
            r->d[i + (size_t)j * c->m] = v * sd;
            r->bound[i + (size_t)j * c->m] = bound * sd + blocks * 0x1p-149 * fabs((double)c->alpha) * sd;
            r->fragile[i + (size_t)j * c->m] = fragile;
        }
    r->amax = amax;
    free(a);
    free(b);
}

static double ulp_of(wsgemm_dtype t, double v)
{
    const int mant = t == F3 ? 23 : t == BF ? 7 : t == HF ? 10 : 3;
    const int min_exp = t == F3 ? -126 : t == BF ? -126 : t == HF ? -14 : -6;
    int e = v > 0 ? (int)floor(log2(v)) : min_exp;
    if (e < min_exp) e = min_exp;
    return ldexp(1.0, e - mant);
}

/* The exact value v as type t holds it after round to nearest: an E4M3 D saturates to +-448 (wsgemm and
 * cuBLASLt); the others overflow to +-inf from half an ulp above their largest finite value. */
static double expected_in(wsgemm_dtype t, double v)
{
    if (isnan(v)) return v;
    if (t == E4) return v > 448.0 ? 448.0 : v < -448.0 ? -448.0 : v;
    const double limit = t == F3 ? 0x1p128 - 0x1p103 : t == BF ? 0x1p128 - 0x1p119 : 65520.0;
    return fabs(v) >= limit ? copysign(INFINITY, v) : v;
}

/* got (host copy, type t, ld) against ref; extra_rel: the other library's allowance (0 against the host).
 * Returns the number of bad elements, printing the first three with the case. */
static size_t compare(const sc_case *c, wsgemm_dtype t, const void *got, int ld, const reference *r, const double *ref,
                      double extra_rel, const char *what, const char *shape, double *max_err)
{
    size_t bad = 0;
    *max_err = 0.0;
    for (int j = 0; j < c->n; ++j)
        for (int i = 0; i < c->m; ++i) {
            const size_t e = (size_t)i + (size_t)j * c->m;
            const double g = testing_load(t, got, (size_t)i + (size_t)j * ld), want = expected_in(t, ref[e]);
            int ok;
            double err = 0.0;
            if (extra_rel > 0 && r->fragile[e] && !isfinite(want))
                ok = !isfinite(g); /* tensor-core sums: NaN or either infinity (reference's fragile) */
            else if (isnan(want))
                ok = isnan(g);
            else if (isinf(want))
                ok = g == want;
            else {
                err = fabs(g - want);
                const double act = ep_gelu(c->ep) ? 0x1p-11 * fabs(r->aux[e]) * (c->extra ? kDScale : 1.0) : 0.0;
                const double tol = ulp_of(t, fmax(fabs(g), fabs(want))) * (extra_rel > 0 ? 2 : 1) + ulp_of(t, 0.0) +
                                   (0x1p-16 + extra_rel) * r->bound[e] + act;
                ok = !isnan(g) && err <= tol;
                if (ok && err > *max_err) *max_err = err;
            }
            if (!ok && bad++ < 3)
                printf("    %s (%d, %d): got %.8g, expected %.8g (err %.3g, bound %.3g) [%s]\n", what, i, j, g, want,
                       err, r->bound[e], shape);
        }
    return bad;
}

/* ---------------------------------------------------------------- cuBLASLt with the same scale tensors */

/* 1 when cublasLtMatmul ran into D2; else 0 with the refusal in why. */
static int run_cublaslt(cublasLtHandle_t lt, void *ws, size_t ws_bytes, const sc_case *c, data *x, char *why,
                        size_t why_size)
{
    cublasLtMatmulDesc_t op = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasStatus_t st = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    int32_t ta = c->ta, tb = c->tb, amode = c->amode, bmode = c->bmode;
    const void *sa = x->SA, *sb = x->SB;
    const char *stage = "descriptor attributes";
#define SET(attr, value) \
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulDescSetAttribute(op, attr, &(value), sizeof(value))
    SET(CUBLASLT_MATMUL_DESC_TRANSA, ta);
    SET(CUBLASLT_MATMUL_DESC_TRANSB, tb);
    SET(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, amode);
    SET(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, bmode);
    SET(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, sa);
    SET(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, sb);
#undef SET
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&la, (cudaDataType_t)c->a, a_rows(c), a_cols(c), x->lda);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutCreate(&lb, (cudaDataType_t)c->b, b_rows(c), b_cols(c), x->ldb);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatrixLayoutCreate(&lc, (cudaDataType_t)c->d, c->m, c->n, x->ldc);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulPreferenceCreate(&pref);
    uint64_t wsb = ws_bytes;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
    cublasLtMatmulHeuristicResult_t result;
    int found = 0, ran = 0;
    if (st == CUBLAS_STATUS_SUCCESS) {
        stage = "heuristic";
        st = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &result, &found);
    }
    if (st == CUBLAS_STATUS_SUCCESS && found > 0) {
        stage = "cublasLtMatmul";
        CUDA_CHECK(cudaMemset(x->D2, 0xFF, x->nc * testing_dtype_bytes(c->d)));
        const float alpha = c->alpha, beta = 0.0f;
        st = cublasLtMatmul(lt, op, &alpha, x->A, la, x->B, lb, &beta, x->D2, lc, x->D2, lc, &result.algo, ws, ws_bytes,
                            0);
        if (st == CUBLAS_STATUS_SUCCESS) {
            CUDA_CHECK(cudaDeviceSynchronize());
            ran = 1;
        }
    }
    if (!ran)
        snprintf(why, why_size, "cuBLASLt refused a_scale_mode %d with b_scale_mode %d at the %s (%s)", amode, bmode,
                 stage, st != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusName(st) : "no algorithm");
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (op) cublasLtMatmulDescDestroy(op);
    return ran;
}

/* ---------------------------------------------------------------- a case */

static void *host_copy(const void *dev, size_t bytes)
{
    void *h = malloc(bytes ? bytes : 1);
    CUDA_CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost));
    return h;
}

static const char *mode_name(int mode)
{
    return mode == SC   ? "SCALAR"
           : mode == MX ? "VEC32_UE8M0"
           : mode == OV ? "OUTER_VEC"
           : mode == V1 ? "VEC128"
                        : "BLK128x128";
}

/* The path AUTO must take for c on a device whose fast path is `fast`: sm90 for the calls its block-scaled
 * kernels take (E4M3 A and B, float scale tensors, a product, beta == 0: C is never D here), else generic
 * (docs/api.md, "Block-scaled FP8"). */
static wsgemm_path expected_path(const sc_case *c, wsgemm_path fast)
{
    const int sm90 = fast == WSGEMM_PATH_SM90 && c->a == E4 && c->b == E4 && c->amode != MX && c->bmode != MX &&
                     c->alpha != 0.0f && c->k > 0 && c->beta == 0.0f;
    return sm90 ? WSGEMM_PATH_SM90 : WSGEMM_PATH_GENERIC;
}

/* One run of c on `path` (AUTO, or GENERIC forced), which must report `expected`, checked against the host
 * reference (and cuBLASLt with with_lt), and a second run for the same bits. The sm90 kernels' block sums are
 * FP8 tensor-core sums, as cuBLASLt's are: 2^-10 * S more for them. */
static int check_run(wsgemm_handle h, cublasLtHandle_t lt, void *ws, size_t ws_bytes, const sc_case *c, data *px,
                     wsgemm_path path, wsgemm_path expected, int with_lt, const char *shape)
{
    data x = *px;
    const size_t dbytes = x.nc * testing_dtype_bytes(c->d);
    const double kernel_rel = expected == WSGEMM_PATH_SM90 ? 0x1p-10 : 0.0;
    int ok = 1;
    WSGEMM_CHECK(wsgemm_set_path(h, path));
    poison_outputs(c, &x, x.D);
    const wsgemm_status s = run_wsgemm(h, c, &x);
    CUDA_CHECK(cudaDeviceSynchronize());
    wsgemm_path ran = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &ran);
    if (s != WSGEMM_STATUS_SUCCESS || ran != expected) {
        printf("FAIL %s: %s (%s), path %s (expected %s)\n", shape, wsgemm_status_string(s),
               wsgemm_get_last_error_message(h), wsgemm_path_name(ran), wsgemm_path_name(expected));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
        return 0;
    }
    void *hD = host_copy(x.D, dbytes), *hAux = host_copy(x.aux, x.nc * 2);
    float amax_got = NAN;
    CUDA_CHECK(cudaMemcpy(&amax_got, x.amax, sizeof amax_got, cudaMemcpyDeviceToHost));

    /* deterministic: a second run gives the same bits */
    poison_outputs(c, &x, x.D);
    WSGEMM_CHECK(run_wsgemm(h, c, &x));
    CUDA_CHECK(cudaDeviceSynchronize());
    void *hD_again = host_copy(x.D, dbytes);
    if (memcmp(hD, hD_again, dbytes) != 0) {
        printf("    a second run gave other bits\n");
        ok = 0;
    }
    free(hD_again);

    reference r;
    host_reference(c, &x, &r);
    double max_err = 0.0;
    size_t bad = compare(c, c->d, hD, x.ldc, &r, r.d, kernel_rel, "D vs host", shape, &max_err);
    if (ep_aux(c->ep)) {
        double aux_err = 0.0, *aux_ref = malloc((size_t)c->m * c->n * sizeof(double));
        for (size_t e = 0; e < (size_t)c->m * c->n; ++e) aux_ref[e] = r.aux[e];
        reference ra = r;
        double *scaled = malloc((size_t)c->m * c->n * sizeof(double));
        for (size_t e = 0; e < (size_t)c->m * c->n; ++e) scaled[e] = r.bound[e] / (c->extra ? kDScale : 1.0);
        ra.bound = scaled;
        sc_case no_act = *c;
        no_act.ep = EP_RELU_BIAS; /* no GELU allowance for aux (its value precedes the activation) */
        bad += compare(&no_act, BF, hAux, x.ldc, &ra, aux_ref, kernel_rel, "aux vs host", shape, &aux_err);
        free(aux_ref);
        free(scaled);
    }
    if (c->extra && c->fill == RND) {
        const int amax_ok = !isnan(amax_got) && fabs(amax_got - r.amax) <= ldexp(fabs(r.amax), -10) + 1e-30;
        if (!amax_ok) printf("    amax_d %.8g, host reference %.8g\n", amax_got, r.amax);
        ok = ok && amax_ok;
    }
    ok = ok && bad == 0;

    char lt_state[200] = "not compared";
    if (with_lt) {
        if (run_cublaslt(lt, ws, ws_bytes, c, &x, lt_state, sizeof lt_state)) {
            void *hD2 = host_copy(x.D2, dbytes);
            double *lt_ref = malloc((size_t)c->m * c->n * sizeof(double));
            for (int j = 0; j < c->n; ++j)
                for (int i = 0; i < c->m; ++i)
                    lt_ref[i + (size_t)j * c->m] = testing_load(c->d, hD2, (size_t)i + (size_t)j * x.ldc);
            double lt_err = 0.0;
            const size_t lt_bad =
                compare(c, c->d, hD, x.ldc, &r, lt_ref, 0x1p-9 + kernel_rel, "D vs cuBLASLt", shape, &lt_err);
            snprintf(lt_state, sizeof lt_state, "cuBLASLt ran: %s (max err %.3g)", lt_bad ? "MISMATCH" : "agrees",
                     lt_err);
            ok = ok && lt_bad == 0;
            free(lt_ref);
            free(hD2);
        } else {
            printf("     %s: only the fp64 reference decides\n", lt_state);
        }
    }
    printf("%s %s: path %s, host: max err %.3g, %zu bad; %s\n", ok ? "PASS" : "FAIL", shape, wsgemm_path_name(ran),
           max_err, bad, lt_state);
    free(r.d);
    free(r.aux);
    free(r.bound);
    free(r.fragile);
    free(hD);
    free(hAux);
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
    return ok;
}

static int run_case(wsgemm_handle h, cublasLtHandle_t lt, void *ws, size_t ws_bytes, const sc_case *c, wsgemm_path fast,
                    int with_lt, uint64_t seed)
{
    static const char *const fills[] = {"random", "zero/inf/NaN", "UE8M0 edge codes", "fp32 overflow"};
    char shape[256];
    snprintf(shape, sizeof shape,
             "%c%c m=%d n=%d k=%d %s x %s -> C %s D %s, scales %s x %s (%s), ep=%d alpha=%g beta=%g%s",
             c->ta == N_ ? 'N' : 'T', c->tb == N_ ? 'N' : 'T', c->m, c->n, c->k, testing_dtype_name(c->a),
             testing_dtype_name(c->b), testing_dtype_name(c->c), testing_dtype_name(c->d), mode_name(c->amode),
             mode_name(c->bmode), fills[c->fill], (int)c->ep, c->alpha, c->beta, c->extra ? " c/d scales+amax" : "");
    printf("RUN  %s\n", shape);
    fflush(stdout);
    data x;
    data_create(c, seed, &x);
    const size_t dbytes = x.nc * testing_dtype_bytes(c->d);
    int ok = 1;

    /* a fast path of this device that does not take the call must decline, D bit-identical (sm100 forced runs MX on
     * its block-scaled kernel where that plan takes the call: tests/sm100's case mx checks it) */
    const wsgemm_path expected = expected_path(c, fast);
    const int forced_may_run = fast == WSGEMM_PATH_SM100 && c->amode == MX && c->bmode == MX;
    if (fast != WSGEMM_PATH_NONE && expected == WSGEMM_PATH_GENERIC && !forced_may_run) {
        poison_outputs(c, &x, x.D);
        CUDA_CHECK(cudaMemset(x.D, 0x3C, dbytes)); /* not NaN: a write of anything shows */
        void *before = host_copy(x.D, dbytes);
        WSGEMM_CHECK(wsgemm_set_path(h, fast));
        const wsgemm_status s = run_wsgemm(h, c, &x);
        CUDA_CHECK(cudaDeviceSynchronize());
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
        void *after = host_copy(x.D, dbytes);
        const int untouched = memcmp(before, after, dbytes) == 0;
        const int declined = s == WSGEMM_STATUS_NOT_SUPPORTED && untouched;
        printf("     forced %s: %s (%s), D %s\n", wsgemm_path_name(fast), wsgemm_status_string(s),
               wsgemm_get_last_error_message(h), untouched ? "untouched" : "MODIFIED");
        ok = ok && declined;
        free(before);
        free(after);
    }

    /* AUTO (the fast path where it takes the call), and the generic path forced where AUTO is not it */
    ok = check_run(h, lt, ws, ws_bytes, c, &x, WSGEMM_PATH_AUTO, expected, with_lt, shape) && ok;
    if (expected != WSGEMM_PATH_GENERIC)
        ok = check_run(h, lt, ws, ws_bytes, c, &x, WSGEMM_PATH_GENERIC, WSGEMM_PATH_GENERIC, with_lt, shape) && ok;
    data_destroy(&x);
    return ok;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const group *g = NULL;
    for (size_t i = 0; argc == 2 && i < sizeof groups / sizeof groups[0]; ++i)
        if (!strcmp(argv[1], groups[i].name)) g = &groups[i];
    if (g == NULL) {
        fprintf(stderr, "usage: %s <modes|edges|cublaslt>\n", argv[0]);
        return 2;
    }
    testing_require_gpu("matmul_scale_test");
    const int cc = testing_device_cc();
    /* the fast path of this device: sm90 takes some block-scaled calls (expected_path), sm100 none */
    const wsgemm_path fast = cc == 90 ? WSGEMM_PATH_SM90 : cc == 100 ? WSGEMM_PATH_SM100 : WSGEMM_PATH_NONE;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    cublasLtHandle_t lt;
    CUBLAS_CHECK(cublasLtCreate(&lt));
    const size_t ws_bytes = 32u << 20;
    void *ws = NULL;
    CUDA_CHECK(cudaMalloc(&ws, ws_bytes));
    const int with_lt = g->cases == cublaslt;
    if (with_lt) printf("cuBLASLt %zu on a device of compute capability %d\n", cublasLtGetVersion(), cc);
    int failed = 0;
    for (size_t i = 0; i < g->count; ++i)
        failed += !run_case(h, lt, ws, ws_bytes, &g->cases[i], fast, with_lt, 7000 + i);
    printf("%s: %zu cases, %d failed\n", g->name, g->count, failed);
    cudaFree(ws);
    cublasLtDestroy(lt);
    wsgemm_destroy(h);
    return failed ? 1 : 0;
}
