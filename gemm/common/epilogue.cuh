// SPDX-License-Identifier: MIT
/*
 * gemm/common/epilogue.cuh - the per-element output operation every kernel's epilogue uses (generic, sm90;
 * sm100 can take it as is), and the fused one of wsgemm_matmul (bias, aux, activation, scales, amax; its
 * order in epilogue.h). Device code, C style; kOutType is a wsgemm_dtype (the element type of C).
 *
 *   D = alpha * acc + beta * C      C read only when beta != 0 (beta == 0 never touches C, so NaN in an
 *                                   unwritten C cannot leak), rounded once to C's type (round to nearest)
 *
 * In fp32: v = alpha * acc, then v = fma(beta, c, v): one rounding for the product alpha * acc and one for
 * the sum, the same in every kernel and every epilogue kind, so two epilogues that store the same tile give
 * the same bits. The kinds of epilogue (how a tile reaches memory) are named in epilogue.h.
 */
#ifndef WSGEMM_COMMON_EPILOGUE_CUH
#define WSGEMM_COMMON_EPILOGUE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>
#include <string.h>

#include "common/dtype.h"
#include "common/epilogue.h"
#include "wsgemm.h"

/* Bytes per element of C. */
template <int kOutType>
struct wsgemm_out_bytes {
    static constexpr int value = wsgemm_dtype_size((wsgemm_dtype)kOutType);
};

/* The wsgemm_dtype of a C element type (kernels templated on the C++ type). */
template <typename T>
struct wsgemm_dtype_of;
template <>
struct wsgemm_dtype_of<float> {
    static constexpr int value = WSGEMM_R_32F;
};
template <>
struct wsgemm_dtype_of<__nv_bfloat16> {
    static constexpr int value = WSGEMM_R_16BF;
};
template <>
struct wsgemm_dtype_of<__half> {
    static constexpr int value = WSGEMM_R_16F;
};
template <>
struct wsgemm_dtype_of<__nv_fp8_e4m3> {
    static constexpr int value = WSGEMM_R_8F_E4M3;
};

/* alpha * acc + beta * c_old, c_old used only when beta != 0. */
static __device__ __forceinline__ float wsgemm_out_value(float acc, float alpha, float beta, float c_old)
{
    const float v = alpha * acc;
    return beta != 0.0f ? fmaf(beta, c_old, v) : v;
}

/* One element of C as fp32. */
template <int kOutType>
static __device__ __forceinline__ float wsgemm_out_load(const void *c)
{
    if constexpr (kOutType == WSGEMM_R_32F)
        return *(const float *)c;
    else if constexpr (kOutType == WSGEMM_R_16BF)
        return __bfloat162float(*(const __nv_bfloat16 *)c);
    else if constexpr (kOutType == WSGEMM_R_8F_E4M3)
        return __half2float(__half(__nv_cvt_fp8_to_halfraw(*(const __nv_fp8_storage_t *)c, __NV_E4M3)));
    else
        return __half2float(*(const __half *)c);
}

/* v rounded to C's type, stored. */
template <int kOutType>
static __device__ __forceinline__ void wsgemm_out_store(void *c, float v)
{
    if constexpr (kOutType == WSGEMM_R_32F)
        *(float *)c = v;
    else if constexpr (kOutType == WSGEMM_R_16BF)
        *(__nv_bfloat16 *)c = __float2bfloat16_rn(v);
    else if constexpr (kOutType == WSGEMM_R_8F_E4M3) /* saturated to +-448 as cuBLASLt's FP8 outputs; NaN stays */
        *(__nv_fp8_storage_t *)c = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    else
        *(__half *)c = __float2half_rn(v);
}

/* The output operation on one element of C in memory. */
template <int kOutType>
static __device__ __forceinline__ void wsgemm_out_apply(void *c, float acc, float alpha, float beta)
{
    wsgemm_out_store<kOutType>(c,
                               wsgemm_out_value(acc, alpha, beta, beta != 0.0f ? wsgemm_out_load<kOutType>(c) : 0.0f));
}

/* Two 16-bit outputs as one 32-bit word, the lower address (v0) in the low half. */
template <int kOutType>
static __device__ __forceinline__ uint32_t wsgemm_out_pack2(float v0, float v1)
{
    static_assert(kOutType == WSGEMM_R_16BF || kOutType == WSGEMM_R_16F, "two 16-bit outputs make one word");
    uint32_t word;
    if constexpr (kOutType == WSGEMM_R_16BF) {
        const __nv_bfloat162 pair = __floats2bfloat162_rn(v0, v1);
        memcpy(&word, &pair, sizeof word);
    } else {
        const __half2 pair = __floats2half2_rn(v0, v1);
        memcpy(&word, &pair, sizeof word);
    }
    return word;
}

/* Two adjacent elements of C as fp32 (c aligned to two elements). */
template <int kOutType>
static __device__ __forceinline__ float2 wsgemm_out_load2(const void *c)
{
    if constexpr (kOutType == WSGEMM_R_32F)
        return *(const float2 *)c;
    else if constexpr (kOutType == WSGEMM_R_16BF)
        return __bfloat1622float2(*(const __nv_bfloat162 *)c);
    else if constexpr (kOutType == WSGEMM_R_8F_E4M3)
        return make_float2(wsgemm_out_load<kOutType>(c), wsgemm_out_load<kOutType>((const uint8_t *)c + 1));
    else
        return __half22float2(*(const __half2 *)c);
}

/* Two adjacent elements rounded and stored as one vector (c aligned to two elements). */
template <int kOutType>
static __device__ __forceinline__ void wsgemm_out_store2(void *c, float v0, float v1)
{
    if constexpr (kOutType == WSGEMM_R_32F)
        *(float2 *)c = make_float2(v0, v1);
    else if constexpr (kOutType == WSGEMM_R_8F_E4M3) /* saturated as wsgemm_out_store; v0 in the low byte */
        *(__nv_fp8x2_storage_t *)c = __nv_cvt_float2_to_fp8x2(make_float2(v0, v1), __NV_SATFINITE, __NV_E4M3);
    else
        *(uint32_t *)c = wsgemm_out_pack2<kOutType>(v0, v1);
}

/* The output operation on two adjacent elements of C (c aligned to two elements). */
template <int kOutType>
static __device__ __forceinline__ void wsgemm_out_apply2(void *c, float acc0, float acc1, float alpha, float beta)
{
    float2 old = make_float2(0.0f, 0.0f);
    if (beta != 0.0f) old = wsgemm_out_load2<kOutType>(c);
    wsgemm_out_store2<kOutType>(c, wsgemm_out_value(acc0, alpha, beta, old.x),
                                wsgemm_out_value(acc1, alpha, beta, old.y));
}

/* The output operation for C's type known only at run time (one branch per call, uniform across threads). */
static __device__ __forceinline__ void wsgemm_out_apply_any(int out_type, void *c, float acc, float alpha, float beta)
{
    if (out_type == WSGEMM_R_32F)
        wsgemm_out_apply<WSGEMM_R_32F>(c, acc, alpha, beta);
    else if (out_type == WSGEMM_R_16BF)
        wsgemm_out_apply<WSGEMM_R_16BF>(c, acc, alpha, beta);
    else
        wsgemm_out_apply<WSGEMM_R_16F>(c, acc, alpha, beta);
}

/* ---------------------------------------------------------------- the fused output op of wsgemm_matmul
 * (the order of its steps: epilogue.h, "the fused output ops") */

/* Element i of a vector or matrix whose type (a wsgemm_dtype) is known only at run time, as fp32. */
static __device__ __forceinline__ float wsgemm_load_any(int type, const void *base, long long i)
{
    if (type == WSGEMM_R_32F) return wsgemm_out_load<WSGEMM_R_32F>((const float *)base + i);
    if (type == WSGEMM_R_16BF) return wsgemm_out_load<WSGEMM_R_16BF>((const __nv_bfloat16 *)base + i);
    if (type == WSGEMM_R_16F) return wsgemm_out_load<WSGEMM_R_16F>((const __half *)base + i);
    return wsgemm_out_load<WSGEMM_R_8F_E4M3>((const __nv_fp8_storage_t *)base + i);
}

/* v rounded to a 16- or 32-bit type known only at run time, stored as element i. */
static __device__ __forceinline__ void wsgemm_store_any(int type, void *base, long long i, float v)
{
    if (type == WSGEMM_R_32F)
        wsgemm_out_store<WSGEMM_R_32F>((float *)base + i, v);
    else if (type == WSGEMM_R_16BF)
        wsgemm_out_store<WSGEMM_R_16BF>((__nv_bfloat16 *)base + i, v);
    else
        wsgemm_out_store<WSGEMM_R_16F>((__half *)base + i, v);
}

/* GELU, the tanh form cublasLt's GELU epilogues use: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3),
 * with tanh from the tanh.approx.f32 instruction (one MUFU operation; PTX ISA "tanh": relative error about
 * 2^-11): one FMUL, one FFMA, one FMUL, tanh.approx, one FMUL, one FFMA. One MUFU operation per element is
 * what keeps the fused kernels' tile-end work short, and cuBLASLt's GELU results match this form to rounding
 * (measured on the H200: docs/perf-log.md, "GELU through tanh.approx"). Against the exact function the error
 * is at most about 0.5 |x| 2^-11, below a 16-bit D's rounding. Large |x|: tanh is +-1 (result x, or 0 for x <<
 * 0); NaN stays NaN. */
static __device__ __forceinline__ float wsgemm_gelu_tanh(float x)
{
    const float kK0 = (float)0.7978845608028654; /* sqrt(2/pi) */
    const float kK1 = (float)(0.7978845608028654 * 0.044715);
    const float u = x * fmaf(kK1, x * x, kK0);
    float t;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
    const float h = 0.5f * x;
    return fmaf(h, t, h);
}

/* An activation known at compile time (a kernel that dispatches once per tile keeps its element loop free
 * of branches, so independent elements overlap). */
template <int kAct>
static __device__ __forceinline__ float wsgemm_activate_as(float x)
{
    if constexpr (kAct == WSGEMM_ACTIVATION_RELU)
        return fmaxf(x, 0.0f);
    else if constexpr (kAct == WSGEMM_ACTIVATION_GELU)
        return wsgemm_gelu_tanh(x);
    else
        return x;
}

static __device__ __forceinline__ float wsgemm_activate(wsgemm_activation act, float x)
{
    if (act == WSGEMM_ACTIVATION_RELU) return wsgemm_activate_as<WSGEMM_ACTIVATION_RELU>(x);
    if (act == WSGEMM_ACTIVATION_GELU) return wsgemm_activate_as<WSGEMM_ACTIVATION_GELU>(x);
    return x;
}

/* The call's scalar factors, read once per thread from the device scale pointers. */
struct wsgemm_fused_factors {
    float alpha; /* alpha * a_scale * b_scale */
    float beta;  /* beta * c_scale */
    float d_scale;
};

static __device__ __forceinline__ wsgemm_fused_factors wsgemm_fused_factors_load(const wsgemm_fused_epilogue &e,
                                                                                 float alpha, float beta)
{
    wsgemm_fused_factors f;
    f.alpha = alpha * (e.a_scale ? *e.a_scale : 1.0f) * (e.b_scale ? *e.b_scale : 1.0f);
    f.beta = beta * (e.c_scale ? *e.c_scale : 1.0f);
    f.d_scale = e.d_scale ? *e.d_scale : 1.0f;
    return f;
}

/* The bias of row i of D (the bias indexes D's rows, along m), 0 without one. A kernel whose thread keeps one
 * row of a tile (sm100: one TMEM lane per thread) reads it once per tile, not once per element. */
static __device__ __forceinline__ float wsgemm_fused_row_bias(const wsgemm_fused_epilogue &e, int i)
{
    return e.ops.bias ? wsgemm_load_any(e.bias_type, e.bias, i) : 0.0f;
}

/* The ops after D's sum on element (i, j) of C/D (i along m) with the activation known at compile time and
 * row i's bias already read (wsgemm_fused_row_bias): x is alpha * acc + beta * C; bias, aux, activation in
 * epilogue.h's order, |result| raising amax (the caller's running maximum). Returns the value D takes
 * before d_scale. The flags bias and aux are the same for every element of a call (uniform branches). */
template <int kAct>
static __device__ __forceinline__ float wsgemm_fused_ops_apply_as(const wsgemm_fused_epilogue &e, float x, float bias_i,
                                                                  int i, int j, float &amax)
{
    if (e.ops.bias) x += bias_i;
    if (e.ops.aux) wsgemm_store_any(e.aux_type, e.aux, i + (long long)j * e.ldaux, x);
    x = wsgemm_activate_as<kAct>(x);
    amax = fmaxf(amax, fabsf(x));
    return x;
}

/* The same with the activation and the bias taken from e on every call (kernels that do not hoist them). */
static __device__ __forceinline__ float wsgemm_fused_ops_apply(const wsgemm_fused_epilogue &e, float x, int i, int j,
                                                               float &amax)
{
    const float bias_i = wsgemm_fused_row_bias(e, i);
    if (e.ops.activation == WSGEMM_ACTIVATION_RELU)
        return wsgemm_fused_ops_apply_as<WSGEMM_ACTIVATION_RELU>(e, x, bias_i, i, j, amax);
    if (e.ops.activation == WSGEMM_ACTIVATION_GELU)
        return wsgemm_fused_ops_apply_as<WSGEMM_ACTIVATION_GELU>(e, x, bias_i, i, j, amax);
    return wsgemm_fused_ops_apply_as<WSGEMM_ACTIVATION_NONE>(e, x, bias_i, i, j, amax);
}

/* Element (i, j) of D from its accumulator: x = alpha * acc + beta * C (C read only when beta != 0, so a
 * NaN in an unread C cannot leak), then the ops of e. d points at D's element. */
template <int kOutType>
static __device__ __forceinline__ void wsgemm_fused_apply(const wsgemm_fused_epilogue &e, const wsgemm_fused_factors &f,
                                                          void *d, int i, int j, float acc, float &amax)
{
    float x = f.alpha * acc;
    if (f.beta != 0.0f) x = fmaf(f.beta, wsgemm_load_any(e.c_type, e.c, i + (long long)j * e.ldc), x);
    wsgemm_out_store<kOutType>(d, wsgemm_fused_ops_apply(e, x, i, j, amax) * f.d_scale);
}

/* Raise *e.amax to the largest of the warp's running maxima (all 32 lanes call it; non-negative floats order
 * as their bit patterns). */
static __device__ __forceinline__ void wsgemm_fused_amax_commit(const wsgemm_fused_epilogue &e, float amax)
{
    if (e.amax == NULL) return;
    for (int offset = 16; offset > 0; offset /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, offset));
    if ((threadIdx.x & 31) == 0) atomicMax((unsigned int *)e.amax, __float_as_uint(amax));
}

#endif /* WSGEMM_COMMON_EPILOGUE_CUH */
