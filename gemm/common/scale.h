// SPDX-License-Identifier: MIT
/*
 * gemm/common/scale.h - the operand scale modes of wsgemm_matmul (wsgemm_matmul_scale_mode) as named data:
 * which values are modes, which pairs a matmul takes, the K block each mode scales, the shape of its scale
 * tensor, where the scale of an element lies in it, and the decoding of an element. One place for the
 * argument checks (matmul.c), the kernels and the tests' host reference. Header-only C (and CUDA: every
 * function is usable on the device too).
 *
 * The layouts (include/wsgemm.h, docs/api.md "Block-scaled FP8"), in the frame of op(A) (m x k) and op(B)
 * (k x n); `outer` is m for A and n for B, r the row of op(A) or the column of op(B):
 *   SCALAR_32F       1 x 1                       element 0
 *   OUTER_VEC_32F    outer x 1                   element r
 *   VEC128_32F       outer x ceil(k/128), ld outer   element r + b * outer      (b = l / 128)
 *   BLK128x128_32F   ceil(k/128) x ceil(outer/128), ld ceil(k/128)   element b + (r / 128) * ceil(k/128)
 *   VEC32_UE8M0      outer x k/32 bytes, ld outer    element r + b * outer      (b = l / 32)
 */
#ifndef WSGEMM_COMMON_SCALE_H
#define WSGEMM_COMMON_SCALE_H

#include <stdint.h>
#include <string.h>

#include "wsgemm.h"

#if defined(__CUDACC__)
#define WSGEMM_SCALE_FN static __host__ __device__ __forceinline__
#else
#define WSGEMM_SCALE_FN static inline
#endif

/* A value of the enum at all (the API takes ints from callers). */
WSGEMM_SCALE_FN int wsgemm_scale_mode_is_valid(int mode)
{
    return mode == WSGEMM_MATMUL_SCALE_SCALAR_32F || mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0 ||
           mode == WSGEMM_MATMUL_SCALE_OUTER_VEC_32F || mode == WSGEMM_MATMUL_SCALE_VEC128_32F ||
           mode == WSGEMM_MATMUL_SCALE_BLK128x128_32F;
}

/* The mode's name as messages give it (the enum's without WSGEMM_MATMUL_SCALE_). */
WSGEMM_SCALE_FN const char *wsgemm_scale_mode_name(int mode)
{
    return mode == WSGEMM_MATMUL_SCALE_SCALAR_32F       ? "SCALAR_32F"
           : mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0    ? "VEC32_UE8M0"
           : mode == WSGEMM_MATMUL_SCALE_OUTER_VEC_32F  ? "OUTER_VEC_32F"
           : mode == WSGEMM_MATMUL_SCALE_VEC128_32F     ? "VEC128_32F"
           : mode == WSGEMM_MATMUL_SCALE_BLK128x128_32F ? "BLK128x128_32F"
                                                        : "(no mode)";
}

/* A mode other than one scalar per operand: its scale tensor is required and only the generic path runs it. */
WSGEMM_SCALE_FN int wsgemm_scale_mode_is_tensor(int mode)
{
    return mode != WSGEMM_MATMUL_SCALE_SCALAR_32F;
}

/* The modes scaled per 128-K block (the DeepSeek-V3 recipe): VEC128_32F and BLK128x128_32F. */
WSGEMM_SCALE_FN int wsgemm_scale_mode_is_128(int mode)
{
    return mode == WSGEMM_MATMUL_SCALE_VEC128_32F || mode == WSGEMM_MATMUL_SCALE_BLK128x128_32F;
}

/* The pairs (a mode, b mode) a matmul takes: both scalar, both OUTER_VEC, both MX, or any two 128-K modes. */
WSGEMM_SCALE_FN int wsgemm_scale_pair_is_accepted(int a, int b)
{
    if (wsgemm_scale_mode_is_128(a)) return wsgemm_scale_mode_is_128(b);
    return a == b;
}

/* The K extent of one scale: 128 (VEC128, BLK128x128), 32 (MX), 0 for the whole of K (SCALAR, OUTER_VEC). */
WSGEMM_SCALE_FN int wsgemm_scale_block_k(int mode)
{
    return mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0                                                ? 32
           : mode == WSGEMM_MATMUL_SCALE_VEC128_32F || mode == WSGEMM_MATMUL_SCALE_BLK128x128_32F ? 128
                                                                                                  : 0;
}

/* Bytes per element of the scale tensor: 1 for UE8M0, else 4. */
WSGEMM_SCALE_FN int wsgemm_scale_elem_bytes(int mode)
{
    return mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0 ? 1 : 4;
}

/* The scale tensor of an operand with `outer` rows of op(A) (columns of op(B)) and K = k (k > 0), as stored:
 * rows x cols, column-major, ld = rows. */
typedef struct wsgemm_scale_shape {
    long long rows, cols;
} wsgemm_scale_shape;

WSGEMM_SCALE_FN wsgemm_scale_shape wsgemm_scale_shape_of(int mode, long long outer, long long k)
{
    wsgemm_scale_shape s = {1, 1};
    const long long kb128 = (k + 127) / 128;
    if (mode == WSGEMM_MATMUL_SCALE_OUTER_VEC_32F) s.rows = outer;
    if (mode == WSGEMM_MATMUL_SCALE_VEC128_32F) {
        s.rows = outer;
        s.cols = kb128;
    }
    if (mode == WSGEMM_MATMUL_SCALE_BLK128x128_32F) {
        s.rows = kb128;
        s.cols = (outer + 127) / 128;
    }
    if (mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0) {
        s.rows = outer;
        s.cols = k / 32;
    }
    return s;
}

/* The element of the scale tensor that scales row r of op(A) (column r of op(B)) in K block b of the mode
 * (b = l / wsgemm_scale_block_k(mode); 0 for the modes over all of K); `outer` and k as for the shape. */
WSGEMM_SCALE_FN long long wsgemm_scale_index(int mode, long long r, long long b, long long outer, long long k)
{
    if (mode == WSGEMM_MATMUL_SCALE_OUTER_VEC_32F) return r;
    if (mode == WSGEMM_MATMUL_SCALE_VEC128_32F || mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0) return r + b * outer;
    if (mode == WSGEMM_MATMUL_SCALE_BLK128x128_32F) return b + (r / 128) * ((k + 127) / 128);
    return 0;
}

/* wsgemm_scale_index of a float mode as three strides, for kernels that walk an operand's 128-row tiles and
 * 128-K blocks: the scale of row r in K block b is element (r / 128) * tile + r * row + b * block (b a 128-K
 * block for the 128-K modes; any b for SCALAR_32F and OUTER_VEC_32F, which have one block over all of K). */
typedef struct wsgemm_scale_strides {
    long long row, block, tile;
} wsgemm_scale_strides;

WSGEMM_SCALE_FN wsgemm_scale_strides wsgemm_scale_strides_of(int mode, long long outer, long long k)
{
    wsgemm_scale_strides s = {0, 0, 0};
    if (mode == WSGEMM_MATMUL_SCALE_OUTER_VEC_32F) s.row = 1;
    if (mode == WSGEMM_MATMUL_SCALE_VEC128_32F) {
        s.row = 1;
        s.block = outer;
    }
    if (mode == WSGEMM_MATMUL_SCALE_BLK128x128_32F) {
        s.block = 1;
        s.tile = (k + 127) / 128;
    }
    return s;
}

/* A UE8M0 byte (OCP Microscaling Formats v1.0, E8M0): 2^(e - 127) for e = 0 .. 254, NaN for 255. Exact in
 * fp32 bits: e >= 1 is the normal number with biased exponent e and a zero mantissa; e = 0 is 2^-127, the
 * subnormal with only mantissa bit 22 set; 255 the quiet NaN 0x7FC00000. */
WSGEMM_SCALE_FN uint32_t wsgemm_ue8m0_bits(uint8_t e)
{
    return e == 255 ? 0x7FC00000u : e == 0 ? 0x00400000u : (uint32_t)e << 23;
}

/* Element `index` of a scale tensor of `mode` as fp32 (device code: a device tensor; host code: a host one). */
WSGEMM_SCALE_FN float wsgemm_scale_load(int mode, const void *tensor, long long index)
{
    uint32_t bits;
    if (mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0)
        bits = wsgemm_ue8m0_bits(((const uint8_t *)tensor)[index]);
    else
        return ((const float *)tensor)[index];
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

#undef WSGEMM_SCALE_FN

#endif /* WSGEMM_COMMON_SCALE_H */
