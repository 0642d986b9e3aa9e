// SPDX-License-Identifier: MIT
/*
 * matmul.c - wsgemm_matmul: the cublasLtMatmul-shaped call (epilogues, FP8, per-tensor scales, amax).
 *
 * A call's way, as wsgemm_gemm_ex's through api.c:
 *   check arguments (pure C, no CUDA call; the first failure returns its status and names the argument)
 *   into one call description (problem.h): the product, and the output op as named data
 *   -> quick return for an empty problem
 *   -> the call pipeline (call.c): device, stream, the memory of every pointer the call uses, the path and
 *      which of its kernels apply the output op (paths.c), the launch.
 * On any failure D, aux and amax_d have not been touched. Which path runs which matmul: paths.c.
 * The descriptor is read through desc->size (wsgemm.h): the caller's bytes of it, defaults beyond them.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "call.h"
#include "common/dtype.h"
#include "common/scale.h"
#include "handle.h"
#include "internal.h"

static const char kFn[] = "wsgemm_matmul";

static int max1(int x)
{
    return x > 1 ? x : 1;
}

/* The sizes of wsgemm_matmul_desc a caller may give: 0.2's struct (the first with a size field; it ends at
 * amax_d), the struct with the scale modes (it ends before launch_mode), the struct that ends at launch_mode
 * (its sizeof: rounded up to the struct's alignment, which on LP64 makes it this version's size, the bytes
 * after launch_mode being its padding, zeroed by wsgemm_matmul_desc_init) and this version's, the most this
 * library reads. */
static const size_t kDescBytes02 = offsetof(wsgemm_matmul_desc, a_scale_mode);
static const size_t kDescBytesScale = offsetof(wsgemm_matmul_desc, launch_mode);
static const size_t kDescBytesLaunch =
    (offsetof(wsgemm_matmul_desc, launch_mode) + sizeof(wsgemm_launch_mode) + _Alignof(wsgemm_matmul_desc) - 1) /
    _Alignof(wsgemm_matmul_desc) * _Alignof(wsgemm_matmul_desc);
static const size_t kDescBytes = sizeof(wsgemm_matmul_desc);

static wsgemm_matmul_desc desc_defaults(wsgemm_op transa, wsgemm_op transb, wsgemm_dtype ab_type, wsgemm_dtype cd_type)
{
    wsgemm_matmul_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.transa = transa;
    d.transb = transb;
    d.Atype = d.Btype = ab_type;
    d.Ctype = d.Dtype = cd_type;
    d.epilogue = WSGEMM_MATMUL_EPILOGUE_DEFAULT;
    d.bias_type = WSGEMM_R_16BF;
    d.aux_type = wsgemm_dtype_is_fp8(cd_type) ? WSGEMM_R_16BF : cd_type;
    d.a_scale_mode = d.b_scale_mode = WSGEMM_MATMUL_SCALE_SCALAR_32F;
    d.launch_mode = WSGEMM_LAUNCH_MODE_DEFAULT;
    d.batch_invariance = WSGEMM_BATCH_INVARIANCE_OFF;
    return d;
}

/* The one size rule of wsgemm_matmul_desc, for desc_init and for the call: INVALID_VALUE for a size that is
 * none of 0.2's struct, the struct with the scale modes, the one ending at launch_mode and this library's (the
 * message says how to set it: `hint`), NOT_SUPPORTED above this library's (fields it does not know could change
 * the result). `what` names the size in the message. */
static wsgemm_status desc_size_check(wsgemm_handle h, const char *fn, const char *what, size_t size, const char *hint)
{
    if (size < kDescBytes && size != kDescBytes02 && size != kDescBytesScale && size != kDescBytesLaunch)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: %s = %zu is not the size of a wsgemm_matmul_desc: %zu bytes (this version), "
                                  "%zu (ending at launch_mode), %zu (with the scale modes, without launch_mode) or "
                                  "%zu (0.2) (%s)",
                                  fn, what, size, kDescBytes, kDescBytesLaunch, kDescBytesScale, kDescBytes02, hint);
    if (size > kDescBytes)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: %s = %zu is above the %zu bytes this library's wsgemm_matmul_desc "
                                  "has: the caller was built against a newer wsgemm.h",
                                  fn, what, size, kDescBytes);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_matmul_desc_init_sized(wsgemm_matmul_desc *desc, size_t size, wsgemm_op transa, wsgemm_op transb,
                                            wsgemm_dtype ab_type, wsgemm_dtype cd_type)
{
    static const char fn[] = "wsgemm_matmul_desc_init";
    if (desc == NULL) return wsgemm_handle_fail(NULL, WSGEMM_STATUS_INVALID_VALUE, "%s: desc is NULL", fn);
    const wsgemm_status st = desc_size_check(NULL, fn, "desc's size", size,
                                             "pass sizeof(wsgemm_matmul_desc): the wsgemm_matmul_desc_init macro does");
    if (st != WSGEMM_STATUS_SUCCESS) return st;
    wsgemm_matmul_desc full = desc_defaults(transa, transb, ab_type, cd_type);
    full.size = size;
    memcpy(desc, &full, size); /* a 0.2 caller's struct ends at amax_d, an older one before launch_mode */
    return wsgemm_handle_succeed_without_handle();
}

/* The caller's descriptor as this library's struct: the desc->size bytes the caller holds, and the defaults
 * for fields beyond them (a 0.2 struct: both scale modes SCALAR_32F; a struct without launch_mode: DEFAULT; one without
 * batch_invariance: OFF, the handle's).
 * Sizes as desc_size_check says. */
static wsgemm_status desc_read(wsgemm_handle h, const wsgemm_matmul_desc *desc, wsgemm_matmul_desc *out)
{
    if (desc == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc is NULL", kFn);
    const size_t size = desc->size;
    const wsgemm_status st = desc_size_check(
        h, kFn, "desc->size", size, "set it with wsgemm_matmul_desc_init, or .size = sizeof(wsgemm_matmul_desc)");
    if (st != WSGEMM_STATUS_SUCCESS) return st;
    *out = desc_defaults(WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF);
    memcpy(out, desc, size < sizeof *out ? size : sizeof *out);
    return WSGEMM_STATUS_SUCCESS;
}

/* The arguments of one call, checked. */
typedef struct matmul_call {
    const wsgemm_matmul_desc *d;
    wsgemm_fused_ops ops;
    int m, n, k;
    float alpha, beta;                 /* the host values; 1 and 1 in device pointer mode (the general variant) */
    const float *alpha_dev, *beta_dev; /* device pointer mode: the device floats (NULL in host mode) */
    const void *A, *B, *C;
    void *D;
    int lda, ldb, ldc, ldd;
} matmul_call;

static wsgemm_status check_types(wsgemm_handle h, const wsgemm_matmul_desc *d, const wsgemm_fused_ops *ops)
{
    const struct {
        const char *name;
        wsgemm_dtype t;
    } types[] = {{"Atype", d->Atype}, {"Btype", d->Btype}, {"Ctype", d->Ctype}, {"Dtype", d->Dtype}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (!wsgemm_dtype_is_valid(types[i].t))
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->%s = %d is not a wsgemm_dtype", kFn,
                                      types[i].name, (int)types[i].t);
    if (!ops->valid && wsgemm_epilogue_is_cublaslt_only((int)d->epilogue))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: desc->epilogue = %d is a cublasLtEpilogue_t that wsgemm does not compute (it "
                                  "has DEFAULT, RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS, GELU_AUX, GELU_AUX_BIAS)",
                                  kFn, (int)d->epilogue);
    if (!ops->valid)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: desc->epilogue = %d is not a wsgemm_matmul_epilogue (DEFAULT is 1; "
                                  "wsgemm_matmul_desc_init sets it)",
                                  kFn, (int)d->epilogue);
    const int ab_ok = (wsgemm_dtype_is_16bit(d->Atype) && d->Btype == d->Atype) ||
                      (wsgemm_dtype_is_fp8(d->Atype) && wsgemm_dtype_is_fp8(d->Btype) &&
                       !(d->Atype == WSGEMM_R_8F_E5M2 && d->Btype == WSGEMM_R_8F_E5M2));
    if (!ab_ok)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: desc->Atype = %d with desc->Btype = %d is not supported: A and B are both "
                                  "WSGEMM_R_16BF, both WSGEMM_R_16F, or both FP8 (E4M3/E5M2, not both E5M2)",
                                  kFn, (int)d->Atype, (int)d->Btype);
    const struct {
        const char *name;
        int mode;
    } modes[] = {{"a_scale_mode", (int)d->a_scale_mode}, {"b_scale_mode", (int)d->b_scale_mode}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
        if (!wsgemm_scale_mode_is_valid(modes[i].mode))
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: desc->%s = %d is not a wsgemm_matmul_scale_mode (SCALAR_32F 0, "
                                      "VEC32_UE8M0 2, OUTER_VEC_32F 3, VEC128_32F 4, BLK128x128_32F 5)",
                                      kFn, modes[i].name, modes[i].mode);
        if (wsgemm_scale_mode_is_tensor(modes[i].mode) && !wsgemm_dtype_is_fp8(d->Atype))
            return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                      "%s: desc->%s = %s scales FP8 operands only; desc->Atype = %d is not FP8", kFn,
                                      modes[i].name, wsgemm_scale_mode_name(modes[i].mode), (int)d->Atype);
    }
    if (d->launch_mode != WSGEMM_LAUNCH_MODE_DEFAULT && d->launch_mode != WSGEMM_LAUNCH_MODE_PDL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: desc->launch_mode = %d is not a wsgemm_launch_mode (DEFAULT 0, PDL 1)", kFn,
                                  (int)d->launch_mode);
    if (d->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF && d->batch_invariance != WSGEMM_BATCH_INVARIANCE_ON &&
        d->batch_invariance != WSGEMM_BATCH_INVARIANCE_ON_N)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: desc->batch_invariance = %d is not a wsgemm_batch_invariance (OFF 0, ON 1, "
                                  "ON_N 2)",
                                  kFn, (int)d->batch_invariance);
    if (!wsgemm_scale_pair_is_accepted((int)d->a_scale_mode, (int)d->b_scale_mode))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: desc->a_scale_mode = %s with desc->b_scale_mode = %s is not supported: both "
                                  "SCALAR_32F, both OUTER_VEC_32F, both VEC32_UE8M0, or each VEC128_32F or "
                                  "BLK128x128_32F",
                                  kFn, wsgemm_scale_mode_name((int)d->a_scale_mode),
                                  wsgemm_scale_mode_name((int)d->b_scale_mode));
    if (d->Dtype == WSGEMM_R_8F_E5M2)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: desc->Dtype = %d (E5M2) is not supported: D is WSGEMM_R_16BF, WSGEMM_R_16F, "
                                  "WSGEMM_R_32F or WSGEMM_R_8F_E4M3",
                                  kFn, (int)d->Dtype);
    const int cd_ok = d->Dtype == WSGEMM_R_8F_E4M3 ? wsgemm_dtype_is_16bit(d->Ctype) : d->Ctype == d->Dtype;
    if (!cd_ok)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: desc->Ctype = %d with desc->Dtype = %d is not supported: Ctype equals Dtype, "
                                  "or is WSGEMM_R_16BF or WSGEMM_R_16F for an E4M3 D",
                                  kFn, (int)d->Ctype, (int)d->Dtype);
    if (ops->bias && !wsgemm_dtype_is_vector(d->bias_type))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: desc->bias_type = %d is not supported: WSGEMM_R_16BF, WSGEMM_R_16F or "
                                  "WSGEMM_R_32F",
                                  kFn, (int)d->bias_type);
    if (ops->aux && !wsgemm_dtype_is_vector(d->aux_type))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: desc->aux_type = %d is not supported: WSGEMM_R_16BF, WSGEMM_R_16F or "
                                  "WSGEMM_R_32F",
                                  kFn, (int)d->aux_type);
    return WSGEMM_STATUS_SUCCESS;
}

/* The operands the call reads or writes, in the order the messages name them; returns their count. */
static int used_operands(const matmul_call *c, wsgemm_call_operand *ops)
{
    const wsgemm_matmul_desc *d = c->d;
    const int product = c->k > 0 && c->alpha != 0.0f;
    int n = 0;
    if (product) {
        ops[n++] =
            wsgemm_call_operand_of("A", c->A, wsgemm_dtype_size(d->Atype), d->transa == WSGEMM_OP_N ? c->m : c->k,
                                   d->transa == WSGEMM_OP_N ? c->k : c->m, c->lda);
        ops[n++] =
            wsgemm_call_operand_of("B", c->B, wsgemm_dtype_size(d->Btype), d->transb == WSGEMM_OP_N ? c->k : c->n,
                                   d->transb == WSGEMM_OP_N ? c->n : c->k, c->ldb);
    }
    if (c->beta != 0.0f) ops[n++] = wsgemm_call_operand_of("C", c->C, wsgemm_dtype_size(d->Ctype), c->m, c->n, c->ldc);
    ops[n++] = wsgemm_call_operand_of("D", c->D, wsgemm_dtype_size(d->Dtype), c->m, c->n, c->ldd);
    if (c->ops.bias) ops[n++] = wsgemm_call_operand_of("bias", d->bias, wsgemm_dtype_size(d->bias_type), c->m, 1, c->m);
    if (c->ops.aux)
        ops[n++] = wsgemm_call_operand_of("aux", d->aux, wsgemm_dtype_size(d->aux_type), c->m, c->n, d->ldaux);
    /* a scale tensor (a block mode) is read only with a product; a scalar whenever it is set */
    const struct {
        const char *name;
        const float *p;
        int mode;
        long long outer;
    } scales[] = {{"a_scale", d->a_scale, (int)d->a_scale_mode, c->m},
                  {"b_scale", d->b_scale, (int)d->b_scale_mode, c->n},
                  {"c_scale", d->c_scale, WSGEMM_MATMUL_SCALE_SCALAR_32F, 1},
                  {"d_scale", d->d_scale, WSGEMM_MATMUL_SCALE_SCALAR_32F, 1},
                  {"amax_d", d->amax_d, WSGEMM_MATMUL_SCALE_SCALAR_32F, 1}};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; ++i) {
        if (!scales[i].p || (wsgemm_scale_mode_is_tensor(scales[i].mode) && !product)) continue;
        const wsgemm_scale_shape s = wsgemm_scale_shape_of(scales[i].mode, scales[i].outer, c->k);
        ops[n++] = wsgemm_call_operand_of(scales[i].name, scales[i].p, wsgemm_scale_elem_bytes(scales[i].mode), s.rows,
                                          s.cols, s.rows);
    }
    if (c->alpha_dev) ops[n++] = wsgemm_call_operand_of("alpha", c->alpha_dev, 4, 1, 1, 1);
    if (c->beta_dev) ops[n++] = wsgemm_call_operand_of("beta", c->beta_dev, 4, 1, 1, 1);
    return n;
}

/* The scale tensors of the block modes (wsgemm.h, wsgemm_matmul_scale_mode): present when the product reads
 * them, and a k the mode's blocks divide where the mode asks it (MX: 32 | k; the 128-K modes take a partial
 * last block). */
static wsgemm_status check_scale_tensors(wsgemm_handle h, const matmul_call *c, int product)
{
    const wsgemm_matmul_desc *d = c->d;
    const struct {
        const char *name;
        const float *p;
        int mode;
    } t[] = {{"a_scale", d->a_scale, (int)d->a_scale_mode}, {"b_scale", d->b_scale, (int)d->b_scale_mode}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        if (!wsgemm_scale_mode_is_tensor(t[i].mode)) continue;
        if (t[i].mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0 && c->k % 32 != 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: k = %d is not a multiple of 32, as desc->%s_mode = VEC32_UE8M0 needs (one "
                                      "scale per 32 elements along K)",
                                      kFn, c->k, t[i].name);
        if (product && t[i].p == NULL)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: desc->%s is NULL but desc->%s_mode = %s reads a scale tensor", kFn,
                                      t[i].name, t[i].name, wsgemm_scale_mode_name(t[i].mode));
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* Every check that needs no CUDA call, in the order of the argument list. */
static wsgemm_status check_arguments(wsgemm_handle h, const matmul_call *c, const float *alpha, const float *beta)
{
    const wsgemm_matmul_desc *d = c->d;
    if (d->transa != WSGEMM_OP_N && d->transa != WSGEMM_OP_T)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: desc->transa = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", kFn,
                                  (int)d->transa);
    if (d->transb != WSGEMM_OP_N && d->transb != WSGEMM_OP_T)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: desc->transb = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", kFn,
                                  (int)d->transb);
    wsgemm_status s = check_types(h, d, &c->ops);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (c->m < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: m = %d is negative", kFn, c->m);
    if (c->n < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: n = %d is negative", kFn, c->n);
    if (c->k < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: k = %d is negative", kFn, c->k);
    if (alpha == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: alpha is NULL", kFn);
    if (beta == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: beta is NULL", kFn);
    s = wsgemm_call_check_ab_ld(h, kFn, d->transa, d->transb, c->m, c->n, c->k, c->lda, c->ldb);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    const int device_scalars = c->alpha_dev != NULL; /* alpha's and beta's values are the kernel's to read */
    const float alpha_value = device_scalars ? 1.0f : *alpha, beta_value = device_scalars ? 1.0f : *beta;
    const int c_read = beta_value != 0.0f;
    if (c_read && c->ldc < max1(c->m))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldc = %d is below max(1, m) = %d", kFn, c->ldc,
                                  max1(c->m));
    if (c->ldd < max1(c->m))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldd = %d is below max(1, m) = %d", kFn, c->ldd,
                                  max1(c->m));
    if (c->ops.aux && d->ldaux < max1(c->m))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->ldaux = %d is below max(1, m) = %d", kFn,
                                  d->ldaux, max1(c->m));
    if (c_read && c->C == c->D && c->C != NULL && (c->ldc != c->ldd || d->Ctype != d->Dtype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: C == D (in place) needs ldc == ldd and Ctype == Dtype; ldc = %d, ldd = %d, "
                                  "Ctype = %d, Dtype = %d",
                                  kFn, c->ldc, c->ldd, (int)d->Ctype, (int)d->Dtype);
    if (c->m == 0 || c->n == 0) return WSGEMM_STATUS_SUCCESS; /* quick return: nothing else is read */
    const int product = c->k > 0 && alpha_value != 0.0f;
    if (product && c->A == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: A is NULL", kFn);
    if (product && c->B == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: B is NULL", kFn);
    if (c_read && c->C == NULL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: C is NULL but %s", kFn,
                                  device_scalars ? "WSGEMM_POINTER_MODE_DEVICE reads C unless *beta == 0 on the device"
                                                 : "beta != 0");
    if (c->D == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: D is NULL", kFn);
    if (c->ops.bias && d->bias == NULL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->bias is NULL but epilogue %d adds a bias",
                                  kFn, (int)d->epilogue);
    if (c->ops.aux && d->aux == NULL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: desc->aux is NULL but epilogue %d writes aux",
                                  kFn, (int)d->epilogue);
    s = check_scale_tensors(h, c, product);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    matmul_call with_values = *c;
    with_values.alpha = alpha_value;
    with_values.beta = beta_value;
    wsgemm_call_operand ops[WSGEMM_CALL_MAX_OPERANDS];
    const int count = used_operands(&with_values, ops);
    for (int i = 0; i < count; ++i) {
        s = wsgemm_call_check_layout(h, kFn, &ops[i]);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- the call */

/* The checked call as the pipeline's description: the product with C = D (Ctype = Dtype, ldc = ldd, batch
 * count 1; k = 0 and alpha = 0 without a product), and the output op with the C it reads. */
static wsgemm_call call_of(const matmul_call *c)
{
    const wsgemm_matmul_desc *d = c->d;
    const int product = c->k > 0 && c->alpha != 0.0f;
    /* a per-tensor scale is a factor of alpha; a scale tensor goes to the product (the generic path only) */
    const int a_tensor_mode = wsgemm_scale_mode_is_tensor((int)d->a_scale_mode);
    const int b_tensor_mode = wsgemm_scale_mode_is_tensor((int)d->b_scale_mode);
    const float *a_scalar = a_tensor_mode ? NULL : d->a_scale, *b_scalar = b_tensor_mode ? NULL : d->b_scale;
    const void *a_tensor = a_tensor_mode && product ? (const void *)d->a_scale : NULL;
    const void *b_tensor = b_tensor_mode && product ? (const void *)d->b_scale : NULL;
    wsgemm_call call = {
        .fn = kFn,
        .kind = WSGEMM_CALL_MATMUL,
        .problem = {.transa = d->transa,
                    .transb = d->transb,
                    .m = c->m,
                    .n = c->n,
                    .k = product ? c->k : 0,
                    .alpha = product ? c->alpha : 0.0f,
                    .beta = c->beta,
                    .A = c->A,
                    .Atype = d->Atype,
                    .lda = c->lda,
                    .B = c->B,
                    .Btype = d->Btype,
                    .ldb = c->ldb,
                    .C = c->D,
                    .Ctype = d->Dtype,
                    .ldc = c->ldd,
                    .batch_count = 1,
                    .a_scale = a_scalar,
                    .b_scale = b_scalar,
                    .a_scale_mode = d->a_scale_mode,
                    .b_scale_mode = d->b_scale_mode,
                    .a_scales = a_tensor,
                    .b_scales = b_tensor,
                    .device_scalars = c->alpha_dev != NULL,
                    .alpha_dev = c->alpha_dev,
                    .beta_dev = c->beta_dev},
        .output = {.ops = c->ops,
                   .c = c->C,
                   .c_type = d->Ctype,
                   .ldc = c->ldc,
                   .bias = d->bias,
                   .bias_type = d->bias_type,
                   .aux = d->aux,
                   .aux_type = d->aux_type,
                   .ldaux = d->ldaux,
                   .a_scale = a_scalar,
                   .b_scale = b_scalar,
                   .c_scale = d->c_scale,
                   .d_scale = d->d_scale,
                   .amax = d->amax_d},
    };
    call.pdl = d->launch_mode == WSGEMM_LAUNCH_MODE_PDL;
    call.batch_invariance = d->batch_invariance;
    call.operand_count = used_operands(c, call.operands);
    return call;
}

wsgemm_status wsgemm_matmul(wsgemm_handle h, const wsgemm_matmul_desc *desc, int m, int n, int k, const float *alpha,
                            const void *A, int lda, const void *B, int ldb, const float *beta, const void *C, int ldc,
                            void *D, int ldd)
{
    wsgemm_status s = wsgemm_handle_begin(h, kFn);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    wsgemm_matmul_desc d; /* the caller's desc->size bytes of it, the defaults beyond */
    s = desc_read(h, desc, &d);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    const wsgemm_handle_settings set = wsgemm_handle_settings_get(h); /* once per call */
    const int device_scalars = set.pointer_mode == WSGEMM_POINTER_MODE_DEVICE;
    matmul_call c = {.d = &d,
                     .ops = wsgemm_fused_ops_of((int)d.epilogue),
                     .m = m,
                     .n = n,
                     .k = k,
                     .alpha_dev = device_scalars ? alpha : NULL,
                     .beta_dev = device_scalars ? beta : NULL,
                     .A = A,
                     .B = B,
                     .C = C,
                     .D = D,
                     .lda = lda,
                     .ldb = ldb,
                     .ldc = ldc,
                     .ldd = ldd};
    s = check_arguments(h, &c, alpha, beta);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    c.alpha = device_scalars ? 1.0f : *alpha; /* device mode: the general variant of every host decision */
    c.beta = device_scalars ? 1.0f : *beta;
    if (m == 0 || n == 0) { /* BLAS quick return */
        wsgemm_handle_record_path(h, WSGEMM_PATH_NONE);
        return WSGEMM_STATUS_SUCCESS;
    }
    const wsgemm_call call = call_of(&c);
    return wsgemm_call_execute(h, &call, &set);
}
