// SPDX-License-Identifier: MIT
/*
 * gemm/common/dtype.h - the element types (wsgemm_dtype) as named data: which values are types, their
 * classes and sizes, in one place for the host code and the kernels. Header-only C (and CUDA: every function
 * is usable on the device too, and in constant expressions).
 */
#ifndef WSGEMM_COMMON_DTYPE_H
#define WSGEMM_COMMON_DTYPE_H

#include "wsgemm.h"

#if defined(__CUDACC__) /* compile-time constants in kernels' templates too */
#define WSGEMM_DTYPE_FN static constexpr __host__ __device__ __forceinline__
#else
#define WSGEMM_DTYPE_FN static inline
#endif

/* A value of the enum at all (the API takes ints from callers). */
WSGEMM_DTYPE_FN int wsgemm_dtype_is_valid(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F || t == WSGEMM_R_16F || t == WSGEMM_R_16BF || t == WSGEMM_R_8F_E4M3 ||
           t == WSGEMM_R_8F_E5M2;
}

/* bf16 or fp16. */
WSGEMM_DTYPE_FN int wsgemm_dtype_is_16bit(wsgemm_dtype t)
{
    return t == WSGEMM_R_16F || t == WSGEMM_R_16BF;
}

/* E4M3 or E5M2. */
WSGEMM_DTYPE_FN int wsgemm_dtype_is_fp8(wsgemm_dtype t)
{
    return t == WSGEMM_R_8F_E4M3 || t == WSGEMM_R_8F_E5M2;
}

/* A type of wsgemm_matmul's bias and aux vectors: 16-bit or fp32. */
WSGEMM_DTYPE_FN int wsgemm_dtype_is_vector(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F || wsgemm_dtype_is_16bit(t);
}

/* Bytes per element: 4, 2 or 1 (any other value counts as 2-byte, as the checks have refused it first). */
WSGEMM_DTYPE_FN int wsgemm_dtype_size(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F ? 4 : wsgemm_dtype_is_fp8(t) ? 1 : 2;
}

#undef WSGEMM_DTYPE_FN

#endif /* WSGEMM_COMMON_DTYPE_H */
