/*
 * matmul.c - wsgemm_matmul: the cublasLtMatmul-shaped call (epilogues, FP8, per-tensor scales, amax).
 *
 * A call's way through this file, as wsgemm_gemm_ex's through api.c:
 *   check arguments (pure C, no CUDA call; the first failure returns its status and names the argument)
 *   -> quick return for an empty problem
 *   -> wsgemm_call_run (api.c): device, stream, the memory of every pointer the call uses, the forced path
 *   -> run_matmul: choose a path, run it (AUTO falls back to generic where a fast path declines).
 * On any failure D, aux and amax_d have not been touched.
 *
 * Paths: generic runs every valid call. The sm90 kernel runs a matmul with 16-bit A and B (no scales), or
 * FP8 A and B with their a_scale and b_scale, and C either unread (beta == 0) or D itself (then no c_scale);
 * with beta == 0 also any epilogue (bias, ReLU, GELU, aux of D's type), d_scale, amax_d and an E4M3 D, all in
 * the output op of the FUSED kernels (sm90_kernel.cuh), where its plan takes the call (sm90_plan.c declines
 * the rest, and AUTO then runs generic; FP8 operands the FP8 kernels cannot read as stored are copied into
 * K-major ones first). The sm100 kernel (forced sm100, or sm100-emulated on an sm_90 device) runs every matmul
 * with k > 0 and alpha != 0: 16-bit or FP8 operands (tcgen05.mma kind::f16 / kind::f8f6f4) and, whenever the
 * call is more than alpha/beta on D, the whole fused output op in its epilogue (scales, a C other than D,
 * bias, activation, aux, amax, an E4M3 D; sm100_plan.c declines a fused op over K beyond one accumulator
 * chain). AUTO takes the path it takes for a GEMM on the device (api.c: sm100 once the device passed its
 * self-check, which runs FP8 matmuls with scales and a fused epilogue too; sm90 on Hopper) where that path
 * runs the call, generic otherwise.
 */
#include <stdint.h>
#include <string.h>

#include "call.h"
#include "internal.h"

static const char kFn[] = "wsgemm_matmul";

static int is_fp8(wsgemm_dtype t)
{
    return t == WSGEMM_R_8F_E4M3 || t == WSGEMM_R_8F_E5M2;
}

static int is_16bit(wsgemm_dtype t)
{
    return t == WSGEMM_R_16BF || t == WSGEMM_R_16F;
}

static int is_dtype(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F || is_16bit(t) || is_fp8(t);
}

/* bias, aux: 16BF, 16F or 32F */
static int is_vector_type(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F || is_16bit(t);
}

static int max1(int x)
{
    return x > 1 ? x : 1;
}

wsgemm_status wsgemm_matmul_desc_init(wsgemm_matmul_desc *desc, wsgemm_op transa, wsgemm_op transb,
                                      wsgemm_dtype ab_type, wsgemm_dtype cd_type)
{
    if (desc == NULL) return WSGEMM_STATUS_INVALID_VALUE;
    memset(desc, 0, sizeof *desc);
    desc->transa = transa;
    desc->transb = transb;
    desc->Atype = desc->Btype = ab_type;
    desc->Ctype = desc->Dtype = cd_type;
    desc->epilogue = WSGEMM_MATMUL_EPILOGUE_DEFAULT;
    desc->bias_type = WSGEMM_R_16BF;
    desc->aux_type = is_fp8(cd_type) ? WSGEMM_R_16BF : cd_type;
    return WSGEMM_STATUS_SUCCESS;
}

/* The arguments of one call, checked. */
typedef struct matmul_call {
    const wsgemm_matmul_desc *d;
    wsgemm_fused_ops ops;
    int m, n, k;
    float alpha, beta;
    const void *A, *B, *C;
    void *D;
    int lda, ldb, ldc, ldd;
} matmul_call;

static wsgemm_status check_types(wsgemm_handle h, const wsgemm_matmul_desc *d, const wsgemm_fused_ops *ops)
{
    const struct { const char *name; wsgemm_dtype t; } types[] = {
        {"Atype", d->Atype}, {"Btype", d->Btype}, {"Ctype", d->Ctype}, {"Dtype", d->Dtype}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (!is_dtype(types[i].t))
            return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->%s = %d is not a wsgemm_dtype", kFn,
                                    types[i].name, (int)types[i].t);
    if (!ops->valid)
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                "%s: desc->epilogue = %d is not a wsgemm_matmul_epilogue (DEFAULT is 1; "
                                "wsgemm_matmul_desc_init sets it)", kFn, (int)d->epilogue);
    const int ab_ok = (is_16bit(d->Atype) && d->Btype == d->Atype) ||
                      (is_fp8(d->Atype) && is_fp8(d->Btype) &&
                       !(d->Atype == WSGEMM_R_8F_E5M2 && d->Btype == WSGEMM_R_8F_E5M2));
    if (!ab_ok)
        return wsgemm_call_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                "%s: desc->Atype = %d with desc->Btype = %d is not supported: A and B are both "
                                "WSGEMM_R_16BF, both WSGEMM_R_16F, or both FP8 (E4M3/E5M2, not both E5M2)",
                                kFn, (int)d->Atype, (int)d->Btype);
    if (d->Dtype == WSGEMM_R_8F_E5M2)
        return wsgemm_call_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                "%s: desc->Dtype = %d (E5M2) is not supported: D is WSGEMM_R_16BF, WSGEMM_R_16F, "
                                "WSGEMM_R_32F or WSGEMM_R_8F_E4M3", kFn, (int)d->Dtype);
    const int cd_ok = d->Dtype == WSGEMM_R_8F_E4M3 ? is_16bit(d->Ctype) : d->Ctype == d->Dtype;
    if (!cd_ok)
        return wsgemm_call_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                "%s: desc->Ctype = %d with desc->Dtype = %d is not supported: Ctype equals Dtype, "
                                "or is WSGEMM_R_16BF or WSGEMM_R_16F for an E4M3 D", kFn, (int)d->Ctype,
                                (int)d->Dtype);
    if (ops->bias && !is_vector_type(d->bias_type))
        return wsgemm_call_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                "%s: desc->bias_type = %d is not supported: WSGEMM_R_16BF, WSGEMM_R_16F or "
                                "WSGEMM_R_32F", kFn, (int)d->bias_type);
    if (ops->aux && !is_vector_type(d->aux_type))
        return wsgemm_call_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                "%s: desc->aux_type = %d is not supported: WSGEMM_R_16BF, WSGEMM_R_16F or "
                                "WSGEMM_R_32F", kFn, (int)d->aux_type);
    return WSGEMM_STATUS_SUCCESS;
}

/* The operands the call reads or writes, in the order the messages name them; returns their count. */
static int used_operands(const matmul_call *c, wsgemm_call_operand *ops)
{
    const wsgemm_matmul_desc *d = c->d;
    const int product = c->k > 0 && c->alpha != 0.0f;
    int n = 0;
    if (product) {
        ops[n++] = (wsgemm_call_operand){"A", c->A, wsgemm_dtype_size(d->Atype),
                                         d->transa == WSGEMM_OP_N ? c->m : c->k,
                                         d->transa == WSGEMM_OP_N ? c->k : c->m, c->lda};
        ops[n++] = (wsgemm_call_operand){"B", c->B, wsgemm_dtype_size(d->Btype),
                                         d->transb == WSGEMM_OP_N ? c->k : c->n,
                                         d->transb == WSGEMM_OP_N ? c->n : c->k, c->ldb};
    }
    if (c->beta != 0.0f) ops[n++] = (wsgemm_call_operand){"C", c->C, wsgemm_dtype_size(d->Ctype), c->m, c->n, c->ldc};
    ops[n++] = (wsgemm_call_operand){"D", c->D, wsgemm_dtype_size(d->Dtype), c->m, c->n, c->ldd};
    if (c->ops.bias) ops[n++] = (wsgemm_call_operand){"bias", d->bias, wsgemm_dtype_size(d->bias_type), c->m, 1, c->m};
    if (c->ops.aux)
        ops[n++] = (wsgemm_call_operand){"aux", d->aux, wsgemm_dtype_size(d->aux_type), c->m, c->n, d->ldaux};
    const struct { const char *name; const float *p; } scalars[] = {
        {"a_scale", d->a_scale}, {"b_scale", d->b_scale}, {"c_scale", d->c_scale}, {"d_scale", d->d_scale},
        {"amax_d", d->amax_d}};
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; ++i)
        if (scalars[i].p) ops[n++] = (wsgemm_call_operand){scalars[i].name, scalars[i].p, 4, 1, 1, 1};
    return n;
}

enum { MAX_OPERANDS = 11 };

/* Every check that needs no CUDA call, in the order of the argument list. */
static wsgemm_status check_arguments(wsgemm_handle h, const matmul_call *c, const float *alpha, const float *beta)
{
    const wsgemm_matmul_desc *d = c->d;
    if (d == NULL) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc is NULL", kFn);
    if (d->transa != WSGEMM_OP_N && d->transa != WSGEMM_OP_T)
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                "%s: desc->transa = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", kFn, (int)d->transa);
    if (d->transb != WSGEMM_OP_N && d->transb != WSGEMM_OP_T)
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                "%s: desc->transb = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", kFn, (int)d->transb);
    wsgemm_status s = check_types(h, d, &c->ops);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (c->m < 0) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: m = %d is negative", kFn, c->m);
    if (c->n < 0) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: n = %d is negative", kFn, c->n);
    if (c->k < 0) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: k = %d is negative", kFn, c->k);
    if (alpha == NULL) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: alpha is NULL", kFn);
    if (beta == NULL) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: beta is NULL", kFn);
    s = wsgemm_call_check_ab_ld(h, kFn, d->transa, d->transb, c->m, c->n, c->k, c->lda, c->ldb);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    const int c_read = *beta != 0.0f;
    if (c_read && c->ldc < max1(c->m))
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldc = %d is below max(1, m) = %d", kFn, c->ldc,
                                max1(c->m));
    if (c->ldd < max1(c->m))
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldd = %d is below max(1, m) = %d", kFn, c->ldd,
                                max1(c->m));
    if (c->ops.aux && d->ldaux < max1(c->m))
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->ldaux = %d is below max(1, m) = %d", kFn,
                                d->ldaux, max1(c->m));
    if (c_read && c->C == c->D && c->C != NULL && (c->ldc != c->ldd || d->Ctype != d->Dtype))
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                "%s: C == D (in place) needs ldc == ldd and Ctype == Dtype; ldc = %d, ldd = %d, "
                                "Ctype = %d, Dtype = %d", kFn, c->ldc, c->ldd, (int)d->Ctype, (int)d->Dtype);
    if (c->m == 0 || c->n == 0) return WSGEMM_STATUS_SUCCESS; /* quick return: nothing else is read */
    const int product = c->k > 0 && *alpha != 0.0f;
    if (product && c->A == NULL) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: A is NULL", kFn);
    if (product && c->B == NULL) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: B is NULL", kFn);
    if (c_read && c->C == NULL)
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: C is NULL but beta != 0", kFn);
    if (c->D == NULL) return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: D is NULL", kFn);
    if (c->ops.bias && d->bias == NULL)
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->bias is NULL but epilogue %d adds a bias",
                                kFn, (int)d->epilogue);
    if (c->ops.aux && d->aux == NULL)
        return wsgemm_call_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->aux is NULL but epilogue %d writes aux",
                                kFn, (int)d->epilogue);
    matmul_call with_values = *c;
    with_values.alpha = *alpha;
    with_values.beta = *beta;
    wsgemm_call_operand ops[MAX_OPERANDS];
    const int count = used_operands(&with_values, ops);
    for (int i = 0; i < count; ++i) {
        s = wsgemm_call_check_layout(h, kFn, &ops[i]);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- paths */

static wsgemm_matmul_problem problem_of(const matmul_call *c)
{
    const wsgemm_matmul_desc *d = c->d;
    const int product = c->k > 0 && c->alpha != 0.0f;
    wsgemm_matmul_problem p = {
        .gemm = {.transa = d->transa, .transb = d->transb, .m = c->m, .n = c->n, .k = product ? c->k : 0,
                 .alpha = product ? c->alpha : 0.0f, .beta = c->beta, .A = c->A, .Atype = d->Atype, .lda = c->lda,
                 .B = c->B, .Btype = d->Btype, .ldb = c->ldb, .C = c->D, .Ctype = d->Dtype, .ldc = c->ldd,
                 .batch_count = 1, .a_scale = d->a_scale, .b_scale = d->b_scale},
        .fused = {.ops = c->ops, .c = c->C, .c_type = d->Ctype, .ldc = c->ldc, .bias = d->bias,
                  .bias_type = d->bias_type, .aux = d->aux, .aux_type = d->aux_type, .ldaux = d->ldaux,
                  .a_scale = d->a_scale, .b_scale = d->b_scale, .c_scale = d->c_scale, .d_scale = d->d_scale,
                  .amax = d->amax_d}};
    return p;
}

/* A matmul the sm90 kernel computes: D = alpha * a_scale * b_scale * op(A) op(B) + beta * D (scales: FP8
 * only), or through the fused output op (sm90_needs_fused_op) D = d_scale * op(...) with op the epilogue's.
 * What the kernels further ask (a pair of input types some kernel takes; fused: beta == 0, aux of D's type, a
 * D that TMA can store) is the plan's to check (sm90_plan.c): it declines the rest, and AUTO then runs
 * generic. */
static int sm90_runs(const matmul_call *c)
{
    const wsgemm_matmul_desc *d = c->d;
    const int fp8 = is_fp8(d->Atype);
    return (is_16bit(d->Atype) || fp8) && (fp8 || (d->a_scale == NULL && d->b_scale == NULL)) && c->k > 0 &&
           c->alpha != 0.0f &&
           (c->beta == 0.0f || (c->C == c->D && c->ldc == c->ldd && d->Ctype == d->Dtype && d->c_scale == NULL));
}

/* The sm90 kernels apply the fused output op (the FUSED kernels) for an epilogue, d_scale, amax_d or an E4M3
 * D; operand scales alone the FP8 kernels apply as they add each K block's sums. */
static int sm90_needs_fused_op(const matmul_call *c)
{
    const wsgemm_matmul_desc *d = c->d;
    return d->epilogue != WSGEMM_MATMUL_EPILOGUE_DEFAULT || d->d_scale || d->amax_d || is_fp8(d->Dtype);
}

/* A matmul the sm100 kernel computes: every one with a product. */
static int sm100_runs(const matmul_call *c)
{
    return c->k > 0 && c->alpha != 0.0f;
}

/* The sm100 kernel applies the fused output op (in place of alpha, beta on D) when the call needs more: an
 * epilogue, a scale or amax, an E4M3 D, or a C that is not D. */
static int sm100_needs_fused_op(const matmul_call *c)
{
    const wsgemm_matmul_desc *d = c->d;
    return d->epilogue != WSGEMM_MATMUL_EPILOGUE_DEFAULT || d->a_scale || d->b_scale || d->c_scale || d->d_scale ||
           d->amax_d || is_fp8(d->Dtype) ||
           (c->beta != 0.0f && (c->C != c->D || c->ldc != c->ldd || d->Ctype != d->Dtype));
}

static wsgemm_status run_matmul(const void *args, wsgemm_path forced, wsgemm_launch_ctx *ctx, wsgemm_path *ran)
{
    const matmul_call *c = args;
    wsgemm_matmul_problem p = problem_of(c); /* gemm.fused: set below for a fast path that must fuse (or decline) */
    wsgemm_path path = forced;
    if (path == WSGEMM_PATH_AUTO) { /* the GEMM's AUTO path where it runs the call, else generic */
        const wsgemm_path gemm_path = wsgemm_call_auto_path(ctx);
        if (gemm_path == WSGEMM_PATH_SM100 || gemm_path == WSGEMM_PATH_SM100_EMULATED)
            path = sm100_runs(c) ? gemm_path : WSGEMM_PATH_GENERIC;
        else
            path = gemm_path == WSGEMM_PATH_SM90 && sm90_runs(c) ? WSGEMM_PATH_SM90 : WSGEMM_PATH_GENERIC;
    }
    *ran = path;
    wsgemm_status s;
    switch (path) {
    case WSGEMM_PATH_SM90:
        if (!sm90_runs(c)) {
            s = wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED,
                            "the sm90 kernel runs a matmul with 16-bit A and B (no scales) or FP8 A and B, k > 0, "
                            "alpha != 0, and beta == 0 or C == D without c_scale");
            break;
        }
        if (sm90_needs_fused_op(c)) p.gemm.fused = &p.fused;
        s = wsgemm_sm90_gemm(&p.gemm, ctx);
        break;
    case WSGEMM_PATH_SM100:
    case WSGEMM_PATH_SM100_EMULATED:
        if (!sm100_runs(c)) {
            s = wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "the sm100 kernel runs a matmul with k > 0 and alpha != 0");
            break;
        }
        if (sm100_needs_fused_op(c)) p.gemm.fused = &p.fused;
        s = path == WSGEMM_PATH_SM100 ? wsgemm_sm100_gemm(&p.gemm, ctx) : wsgemm_sm100_emulated_gemm(&p.gemm, ctx);
        break;
    default:
        return wsgemm_generic_matmul(&p, ctx);
    }
    if ((s == WSGEMM_STATUS_NOT_SUPPORTED || s == WSGEMM_STATUS_ALLOC_FAILED) && forced == WSGEMM_PATH_AUTO) {
        *ran = WSGEMM_PATH_GENERIC; /* the fast path declined before touching D */
        s = wsgemm_generic_matmul(&p, ctx);
    }
    return s;
}

wsgemm_status wsgemm_matmul(wsgemm_handle h, const wsgemm_matmul_desc *desc, int m, int n, int k,
                            const float *alpha, const void *A, int lda, const void *B, int ldb, const float *beta,
                            const void *C, int ldc, void *D, int ldd)
{
    wsgemm_status s = wsgemm_call_begin(h, kFn);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    matmul_call c = {.d = desc, .ops = desc ? wsgemm_fused_ops_of((int)desc->epilogue) : (wsgemm_fused_ops){0},
                     .m = m, .n = n, .k = k, .A = A, .B = B, .C = C, .D = D,
                     .lda = lda, .ldb = ldb, .ldc = ldc, .ldd = ldd};
    s = check_arguments(h, &c, alpha, beta);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    c.alpha = *alpha;
    c.beta = *beta;
    if (m == 0 || n == 0) { /* BLAS quick return */
        wsgemm_call_record_path(h, WSGEMM_PATH_NONE);
        return WSGEMM_STATUS_SUCCESS;
    }
    wsgemm_call_operand ops[MAX_OPERANDS];
    const int count = used_operands(&c, ops);
    return wsgemm_call_run(h, kFn, ops, count, run_matmul, &c);
}
