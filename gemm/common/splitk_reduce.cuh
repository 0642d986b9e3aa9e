/*
 * gemm/common/splitk_reduce.cuh - the second half of split-K, shared by the generic and sm90 paths: the
 * fp32 partials of every split, tight m x n per batch member and split-major ([split][batch][n][m]), are
 * summed in split order and written to C with alpha, beta and the conversion to C's type.
 *
 * Included by each path's translation unit (the kernel is static, one copy per path's object library and
 * architectures).
 */
#ifndef WSGEMM_COMMON_SPLITK_REDUCE_CUH
#define WSGEMM_COMMON_SPLITK_REDUCE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "common/epilogue.cuh"
#include "internal.h"

/* C(i, j, b) = alpha * sum_{s = 0 .. splits-1, in order} part[s][b][i + j*m] + beta * C (beta == 0: C is
 * not read). A fixed order, so the bits depend only on the shape and the split count.
 * One flat grid-stride loop over e = (b*n + j)*m + i, the partials' own order: every warp reads 32
 * consecutive floats of each split and writes consecutive elements of a column of C, whatever m is.
 * (A block row per column of C would leave most threads idle for small m: for m = 64, 192 of 256 threads
 * idle and took a third of the call at m = 64, docs/performance.md.) */
static __global__ void wsgemm_splitk_reduce_kernel(const float *part, int splits, long long m, long long n, int nb, void *c,
                                                    int c_type, long long ldc, long long stride_c, float alpha,
                                                    float beta)
{
    const long long total = m * n * nb;
    const bool narrow = total <= 0xFFFFFFFFLL; /* 32-bit divisions: a 64-bit one costs ~70 instructions */
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        long long i, b, j; /* e = (b*n + j)*m + i */
        if (narrow) {
            const uint32_t e32 = (uint32_t)e, m32 = (uint32_t)m, n32 = (uint32_t)n;
            const uint32_t column = e32 / m32, b32 = column / n32;
            i = e32 - column * m32;
            b = b32;
            j = column - b32 * n32;
        } else {
            const long long column = e / m;
            i = e - column * m;
            b = column / n;
            j = column - b * n;
        }
        float sum = 0.0f;
        for (int s = 0; s < splits; ++s) sum += part[(long long)s * total + e];
        const long long out = b * stride_c + j * ldc + i;
        /* the shared output op (common/epilogue.cuh): alpha, beta (C read only when beta != 0), conversion */
        wsgemm_out_apply_any(c_type, (uint8_t *)c + out * wsgemm_out_bytes_any(c_type), sum, alpha, beta);
    }
}

/* Blocks for a flat grid-stride helper over `elems` elements: enough to cover them once, at most 16 per SM
 * (the loop takes the rest). */
static inline unsigned wsgemm_flat_grid(long long elems, int threads, int sm_count)
{
    long long blocks = (elems + threads - 1) / threads;
    long long cap = 16LL * sm_count;
    return (unsigned)(blocks < cap ? (blocks > 0 ? blocks : 1) : cap);
}

/* C = alpha * (sum of the partials in split order) + beta * C for problem p (its alpha, beta, C, ldc, strideC,
 * Ctype); the partials hold splits x batch_count x m x n floats. Returns the launch's own error. */
static inline cudaError_t wsgemm_splitk_reduce_launch(const float *part, int splits, const wsgemm_problem *p,
                                                      int sm_count, cudaStream_t stream)
{
    long long m = p->m, n = p->n, ldc = p->ldc, stride_c = p->strideC;
    int nb = p->batch_count, c_type = p->Ctype;
    float alpha = p->alpha, beta = p->beta;
    void *c = p->C;
    void *args[] = {(void *)&part, &splits, &m, &n, &nb, &c, &c_type, &ldc, &stride_c, &alpha, &beta};
    return cudaLaunchKernel((const void *)wsgemm_splitk_reduce_kernel, dim3(wsgemm_flat_grid(m * n * nb, 256, sm_count)),
                            dim3(256), args, 0, stream);
}

#endif /* WSGEMM_COMMON_SPLITK_REDUCE_CUH */
