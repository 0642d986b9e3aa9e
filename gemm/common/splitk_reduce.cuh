// SPDX-License-Identifier: MIT
/*
 * gemm/common/splitk_reduce.cuh - the second half of split-K, shared by the generic and sm90 paths: the
 * fp32 partials of every split, tight m x n per batch member and split-major ([split][batch][n][m]), are
 * summed in split order and written to C with alpha, beta and the conversion to C's type. And the same for
 * the split region of a hybrid schedule (common/scheduler.cuh), whose partials are whole tiles of only the
 * tiles it split (wsgemm_sk_reduce_kernel).
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
#include "common/pdl.cuh"
#include "common/scheduler.cuh"
#include "internal.h"

/* C(i, j, b) = alpha * sum_{s = 0 .. splits-1, in order} part[s][b][i + j*m] + beta * C (beta == 0: C is
 * not read); alpha_dev and beta_dev (device pointer mode, the generic path) replace alpha and beta when set.
 * A fixed order, so the bits depend only on the shape and the split count.
 * One flat grid-stride loop over e = (b*n + j)*m + i, the partials' own order: every warp reads 32
 * consecutive floats of each split and writes consecutive elements of a column of C, whatever m is.
 * (A block row per column of C leaves most threads idle for small m, 192 of 256 at m = 64, where the
 * reduction then took a large part of the call: docs/perf-log.md, "Skinny shapes, split-K and the staging
 * copy".) */
static __global__ void wsgemm_splitk_reduce_kernel(const float *part, int splits, long long m, long long n, int nb,
                                                   void *c, int c_type, long long ldc, long long stride_c, float alpha,
                                                   float beta, const float *alpha_dev, const float *beta_dev)
{
    wsgemm_pdl_wait(); /* the partials are the previous kernel's */
    wsgemm_pdl_launch_dependents();
    if (alpha_dev) alpha = *alpha_dev;
    if (beta_dev) beta = *beta_dev;
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
        wsgemm_out_apply_any(c_type, (uint8_t *)c + out * wsgemm_dtype_size((wsgemm_dtype)c_type), sum, alpha, beta);
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
                                                      int sm_count, cudaStream_t stream, int pdl)
{
    long long m = p->m, n = p->n, ldc = p->ldc, stride_c = p->strideC;
    int nb = p->batch_count, c_type = p->Ctype;
    float alpha = p->alpha, beta = p->beta;
    const float *alpha_dev = p->alpha_dev, *beta_dev = p->beta_dev;
    void *c = p->C;
    void *args[] = {(void *)&part, &splits,   &m,     &n,    &nb,        &c,       &c_type,
                    &ldc,          &stride_c, &alpha, &beta, &alpha_dev, &beta_dev};
    return wsgemm_launch_kernel((const void *)wsgemm_splitk_reduce_kernel,
                                dim3(wsgemm_flat_grid(m * n * nb, 256, sm_count)), dim3(256), args, 0, stream, pdl);
}

/* ---------------------------------------------------------------- the split region of a hybrid schedule */

/* The tile geometry of the split region's partials: a partial tile is tile_p x tile_q (the kernel's P x Q
 * tile), stored with C's contiguous dimension contiguous: q when swapped (P = op(B)^T, so q runs along C's
 * rows), else p. Element (a, b) of the stored tile, a along C's contiguous dimension, is C(i0 + a, j0 + b). */
typedef struct wsgemm_sk_tiles {
    const float *part;  /* [slot][split][tile_p * tile_q] */
    wsgemm_sched sched; /* the kernel's schedule: slot -> tile */
    int tile_p, tile_q;
    int swap;
} wsgemm_sk_tiles;

/* C = alpha * (the slot's partial tiles summed in split order, wsgemm_sk_sum) + beta * C over the tiles of the
 * split region. Block b takes slot b / chunks and every chunks-th run of blockDim.x elements of it from
 * b % chunks on, in the partials' own order (consecutive threads read consecutive floats of each split and
 * write consecutive elements of a column of C). */
static __global__ void wsgemm_sk_reduce_kernel(wsgemm_sk_tiles t, int chunks, long long m, long long n, void *c,
                                               int c_type, long long ldc, long long stride_c, float alpha, float beta)
{
    wsgemm_pdl_wait(); /* the partial tiles and the kernel's own tiles of C are the previous kernel's */
    wsgemm_pdl_launch_dependents();
    const long long slot = blockIdx.x / chunks;
    const int chunk = (int)(blockIdx.x - slot * chunks);
    const wsgemm_sched_unit w = wsgemm_sched_slot_tile(&t.sched, slot);
    const int inner = t.swap ? t.tile_q : t.tile_p; /* the stored tile's contiguous extent */
    const long long i0 = t.swap ? (long long)w.col * t.tile_q : (long long)w.row * t.tile_p;
    const long long j0 = t.swap ? (long long)w.row * t.tile_p : (long long)w.col * t.tile_q;
    const int elems = t.tile_p * t.tile_q;
    const float *part = t.part + slot * t.sched.sk_splits * (long long)elems;
    uint8_t *c_tile = (uint8_t *)c + (w.batch * stride_c + j0 * ldc + i0) * wsgemm_dtype_size((wsgemm_dtype)c_type);
    for (int e = chunk * blockDim.x + threadIdx.x; e < elems; e += chunks * blockDim.x) {
        const int b = e / inner, a = e - b * inner;
        if (i0 + a >= m || j0 + b >= n) continue;
        const float sum = wsgemm_sk_sum(part + e, t.sched.sk_splits, elems);
        wsgemm_out_apply_any(c_type, c_tile + (b * ldc + a) * wsgemm_dtype_size((wsgemm_dtype)c_type), sum, alpha,
                             beta);
    }
}

/* The reduction of the split region of t.sched for problem p (its alpha, beta, C, ldc, strideC, Ctype), after
 * the kernel that wrote t.part. Returns the launch's own error (cudaSuccess when there is no split region). */
static inline cudaError_t wsgemm_sk_reduce_launch(const wsgemm_sk_tiles *t, const wsgemm_problem *p, int sm_count,
                                                  cudaStream_t stream, int pdl)
{
    const long long slots = wsgemm_sched_sk_slots(&t->sched);
    if (slots == 0) return cudaSuccess;
    const int threads = 256;
    /* blocks per slot: about two blocks per SM in all, each at least 8 elements per thread */
    const long long per_slot_max = ((long long)t->tile_p * t->tile_q + 8 * threads - 1) / (8 * threads);
    long long chunks = (2LL * sm_count + slots - 1) / slots;
    if (chunks > per_slot_max) chunks = per_slot_max;
    if (chunks < 1) chunks = 1;
    wsgemm_sk_tiles tiles = *t;
    int chunks_i = (int)chunks, c_type = p->Ctype;
    long long m = p->m, n = p->n, ldc = p->ldc, stride_c = p->strideC;
    float alpha = p->alpha, beta = p->beta;
    void *c = p->C;
    void *args[] = {&tiles, &chunks_i, &m, &n, &c, &c_type, &ldc, &stride_c, &alpha, &beta};
    return wsgemm_launch_kernel((const void *)wsgemm_sk_reduce_kernel, dim3((unsigned)(slots * chunks)), dim3(threads),
                                args, 0, stream, pdl);
}

#endif /* WSGEMM_COMMON_SPLITK_REDUCE_CUH */
