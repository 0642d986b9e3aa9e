// SPDX-License-Identifier: MIT
/*
 * gemm/common/staging.cuh - the staging copy of an operand TMA cannot address (staging.h says which), shared
 * by the sm90 and sm100 launchers: the copy kernels (16-bit re-pitch; FP8 into K-major) and their launches. Included
 * by each launcher's translation unit (the kernel is static: one copy per path's object library and architectures).
 */
#ifndef WSGEMM_COMMON_STAGING_CUH
#define WSGEMM_COMMON_STAGING_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "common/pdl.cuh"
#include "common/plan.h"

/* Bytes [mis, mis + 16) of the 32-byte window lo:hi (mis even, 0..14), as one 16-byte vector: the eight
 * 16-bit elements of an unaligned source run, from two aligned loads. Little-endian: output word i is the
 * window's bytes mis + 4i .. mis + 4i + 3, i.e. (word q+i+1 : word q+i) >> 8 * (mis % 4), q = mis / 4. */
static __device__ __forceinline__ uint4 wsgemm_stage_window_bytes(uint4 lo, uint4 hi, uint32_t mis)
{
    uint32_t x0, x1, x2, x3, x4; /* the five words from word q on; q is uniform across a column */
    switch (mis >> 2) {
    case 0:
        x0 = lo.x;
        x1 = lo.y;
        x2 = lo.z;
        x3 = lo.w;
        x4 = hi.x;
        break;
    case 1:
        x0 = lo.y;
        x1 = lo.z;
        x2 = lo.w;
        x3 = hi.x;
        x4 = hi.y;
        break;
    case 2:
        x0 = lo.z;
        x1 = lo.w;
        x2 = hi.x;
        x3 = hi.y;
        x4 = hi.z;
        break;
    default:
        x0 = lo.w;
        x1 = hi.x;
        x2 = hi.y;
        x3 = hi.z;
        x4 = hi.w;
        break;
    }
    const uint32_t shift = (mis & 3u) * 8u;
    return make_uint4(__funnelshift_r(x0, x1, shift), __funnelshift_r(x1, x2, shift), __funnelshift_r(x2, x3, shift),
                      __funnelshift_r(x3, x4, shift));
}

/* Re-pitch one operand: dst[r + c*dst_ld + b*dst_stride] = src[r + c*src_ld + b*src_stride] for r < rows,
 * and 0 in the padding up to the next multiple of 8 rows. dst is 16-byte aligned per column (the workspace
 * is 256-byte aligned, dst_ld and dst_stride are multiples of 8), src is only 2-byte aligned (that is why it
 * is staged). blockIdx.y walks the columns of all matrices (column c of matrix b is y = b*cols + c,
 * grid-strided); each thread writes 8-element chunks of the column as one 16-byte store and reads them with
 * one or two aligned 16-byte loads, where the aligned window lies inside the column (so nothing outside the
 * operand is read), else element by element. That copies about twice as fast as one 2-byte element per
 * thread and iteration (measured at 4099^3 on the H200: docs/perf-log.md, "Skinny shapes, split-K and the
 * staging copy"). */
static __global__ void wsgemm_stage_operand_kernel(uint16_t *dst, const uint16_t *src, long long rows, long long cols,
                                                   int nb, long long src_ld, long long src_stride, long long dst_ld,
                                                   long long dst_stride)
{
    wsgemm_pdl_wait(); /* the source may be the previous kernel's output, the copy a workspace it used */
    wsgemm_pdl_launch_dependents();
    const long long columns = cols * nb;
    const long long chunks = (rows + 7) / 8;
    for (long long y = blockIdx.y; y < columns; y += gridDim.y) {
        const long long b = y / cols, c = y - b * cols; /* once per column, not per element */
        const uint16_t *s = src + b * src_stride + c * src_ld;
        uint16_t *d = dst + b * dst_stride + c * dst_ld;
        const uintptr_t col_begin = (uintptr_t)s, col_end = (uintptr_t)(s + rows);
        const uint32_t mis = (uint32_t)(col_begin & 15u);
        for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < chunks;
             t += (long long)gridDim.x * blockDim.x) {
            const long long r0 = t * 8;
            const uintptr_t lo = ((uintptr_t)(s + r0)) & ~(uintptr_t)15;
            uint4 out;
            if (r0 + 8 <= rows && mis == 0) {
                out = *(const uint4 *)lo;
            } else if (r0 + 8 <= rows && lo >= col_begin && lo + 32 <= col_end) {
                out = wsgemm_stage_window_bytes(*(const uint4 *)lo, *(const uint4 *)(lo + 16), mis);
            } else { /* the column's first and last chunks: element by element, zeros past the end */
                uint16_t e[8];
#pragma unroll
                for (int i = 0; i < 8; ++i) e[i] = r0 + i < rows ? s[r0 + i] : (uint16_t)0;
                out = make_uint4(e[0] | (uint32_t)e[1] << 16, e[2] | (uint32_t)e[3] << 16, e[4] | (uint32_t)e[5] << 16,
                                 e[6] | (uint32_t)e[7] << 16);
            }
            *(uint4 *)(d + r0) = out;
        }
    }
}

/* The staging copy's grid: y walks the columns (capped; the kernel grid-strides over them), x gives each
 * thread about two 8-element chunks of a column. A grid of one element per thread (70k blocks at 4099^3) ran
 * the copy at a small fraction of the HBM bandwidth (docs/perf-log.md, "Skinny shapes, split-K and the staging
 * copy"). */
static inline dim3 wsgemm_stage_grid(long long rows, long long columns, int threads)
{
    long long chunks = (rows + 7) / 8;
    long long gx = (chunks + 2LL * threads - 1) / (2LL * threads);
    if (gx > 64) gx = 64;
    long long gy = columns < 65535 ? columns : 65535;
    return dim3((unsigned)gx, (unsigned)gy, 1);
}

/* Point o at its staged copy in the workspace (dst); `src` keeps the original for the copy kernel. */
static inline void wsgemm_use_staged_copy(wsgemm_operand *o, wsgemm_operand *src, void *dst)
{
    *src = *o;
    long long ld2 = (o->inner + 7) / 8 * 8;
    o->ptr = dst;
    o->ld = ld2;
    o->stride = ld2 * o->cols;
    o->staged = 1;
}

static inline cudaError_t wsgemm_launch_staging(const wsgemm_operand *src, const wsgemm_operand *staged,
                                                cudaStream_t stream, int pdl)
{
    const int threads = 256;
    uint16_t *dst = (uint16_t *)staged->ptr;
    const uint16_t *from = (const uint16_t *)src->ptr;
    long long rows = src->inner, cols = src->cols, src_ld = src->ld, src_stride = src->stride;
    long long dst_ld = staged->ld, dst_stride = staged->stride;
    int nb = src->nb;
    void *args[] = {&dst, &from, &rows, &cols, &nb, &src_ld, &src_stride, &dst_ld, &dst_stride};
    return wsgemm_launch_kernel((const void *)wsgemm_stage_operand_kernel, wsgemm_stage_grid(rows, cols * nb, threads),
                                dim3(threads), args, 0, stream, pdl);
}

/* The FP8 copy (staging.h): dst[kk + r * dst_ld + b * dst_stride] = element (r, kk) of matrix b of the operand
 * for r < rows, kk < k, zeros in the padding up to dst_ld (a multiple of 16); the source K-major
 * (src[kk + r * src_ld]) or MN-major (src[r + kk * src_ld], so the copy transposes). Each thread writes 16
 * bytes of one row as one store; adjacent threads take adjacent rows, so an MN-major source is read in runs
 * of adjacent bytes (one per thread) for each of the 16 K. blockIdx.y walks the matrices. */
static __global__ void wsgemm_stage_fp8_kernel(uint8_t *dst, const uint8_t *src, long long rows, long long k, int nb,
                                               int src_k_major, long long src_ld, long long src_stride,
                                               long long dst_ld, long long dst_stride)
{
    wsgemm_pdl_wait();
    wsgemm_pdl_launch_dependents();
    const long long total = rows * (dst_ld / 16);
    for (long long b = blockIdx.y; b < nb; b += gridDim.y) {
        const uint8_t *s = src + b * src_stride;
        uint8_t *d = dst + b * dst_stride;
        for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
             t += (long long)gridDim.x * blockDim.x) {
            const long long r = t % rows, k0 = t / rows * 16;
            uint32_t w[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                uint32_t word = 0;
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    const long long kk = k0 + 4 * q + i;
                    const uint32_t e = kk < k ? (src_k_major ? s[kk + r * src_ld] : s[r + kk * src_ld]) : 0u;
                    word |= e << (8 * i);
                }
                w[q] = word;
            }
            *(uint4 *)(d + r * dst_ld + k0) = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
}

/* Point FP8 operand o (of K extent k) at its K-major copy in the workspace (dst); `src` keeps the original. */
static inline void wsgemm_use_staged_fp8_copy(wsgemm_operand *o, wsgemm_operand *src, void *dst, int k)
{
    *src = *o;
    const long long ld = ((long long)k + 15) / 16 * 16;
    o->ptr = dst;
    o->k_major = 1;
    o->inner = k;
    o->cols = o->rows_dim;
    o->ld = ld;
    o->stride = ld * o->rows_dim;
    o->staged = 1;
}

static inline cudaError_t wsgemm_launch_staging_fp8(const wsgemm_operand *src, const wsgemm_operand *staged, int k,
                                                    cudaStream_t stream, int pdl)
{
    const int threads = 256;
    uint8_t *dst = (uint8_t *)staged->ptr;
    const uint8_t *from = (const uint8_t *)src->ptr;
    long long rows = src->rows_dim, kk = k, src_ld = src->ld, src_stride = src->stride;
    long long dst_ld = staged->ld, dst_stride = staged->stride;
    int nb = src->nb, k_major = src->k_major;
    const long long total = rows * (dst_ld / 16);
    long long gx = (total + threads - 1) / threads;
    if (gx > 4096) gx = 4096;
    const dim3 grid((unsigned)gx, (unsigned)(nb < 65535 ? nb : 65535), 1);
    void *args[] = {&dst, &from, &rows, &kk, &nb, &k_major, &src_ld, &src_stride, &dst_ld, &dst_stride};
    return wsgemm_launch_kernel((const void *)wsgemm_stage_fp8_kernel, grid, dim3(threads), args, 0, stream, pdl);
}

/* The launcher's two steps for a plan's operands ops[0 .. count-1] (fp8: the FP8 copies, K extent k): point
 * each staged one at its copy at its offset in the workspace ws, keeping the original in src[i]; then, once
 * nothing can be declined any more, launch the copies in order. */
static inline void wsgemm_use_staged_copies(wsgemm_operand *const *ops, wsgemm_operand *src, int count, uint8_t *ws,
                                            int fp8, int k)
{
    for (int i = 0; i < count; ++i) {
        if (!ops[i]->staged) continue;
        if (fp8)
            wsgemm_use_staged_fp8_copy(ops[i], &src[i], ws + ops[i]->stage_offset, k);
        else
            wsgemm_use_staged_copy(ops[i], &src[i], ws + ops[i]->stage_offset);
    }
}

static inline cudaError_t wsgemm_launch_stagings(const wsgemm_operand *src, wsgemm_operand *const *ops, int count,
                                                 int fp8, int k, cudaStream_t stream, int pdl)
{
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < count && err == cudaSuccess; ++i) {
        if (!ops[i]->staged) continue;
        err = fp8 ? wsgemm_launch_staging_fp8(&src[i], ops[i], k, stream, pdl)
                  : wsgemm_launch_staging(&src[i], ops[i], stream, pdl);
    }
    return err;
}

#endif /* WSGEMM_COMMON_STAGING_CUH */
