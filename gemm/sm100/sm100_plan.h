// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/sm100_plan.h - the Blackwell path's planner: cta_group, split-K, grid, epilogue, staging and
 * workspace of one call, as a wsgemm_plan (gemm/common/plan.h). Host C, no CUDA call: what it needs of the
 * kernels and the device comes through sm100_kernel_query, which the launcher answers
 * (cudaOccupancyMaxActiveClusters) and a CPU test answers from a model of the B200.
 *
 * The plan in the shared vocabulary: never swapped (P = op(A) on the UMMA M side, Q = op(B)^T on the N side,
 * so the accumulator's rows are C's contiguous rows), bm = 128 rows per CTA, bn = 256, bk = 64 (FP8: 128),
 * cluster = cta_group (2: the pair computes a 256 x 256 tile with one tcgen05.mma.cta_group::2), variant 0.
 * A problem with fused (wsgemm_matmul's output op: bias, activation, aux, scales, amax) is never split: the
 * op runs where the accumulators are.
 */
#ifndef WSGEMM_SM100_PLAN_H
#define WSGEMM_SM100_PLAN_H

#include "common/knobs.h"
#include "common/plan.h"
#include "tmem/desc.h" /* the scale factors' chunk (UMMA_SF_*), WSGEMM_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's fixed tile (gemm/sm100/sm100_kernel.cuh static-asserts that it agrees): 128 bytes of K per stage,
 * 64 elements of 16-bit operands (kind::f16) or 128 of FP8 (kind::f8f6f4). */
enum { SM100_BM = 128, SM100_BN = 256, SM100_BK = 64, SM100_BK_FP8 = 128 };

/* How the kernel scales FP8 operands (wsgemm_plan.scales):
 *   TENSOR  per-tensor scales (or none), applied by the fused output op in the epilogue: every kernel above;
 *   MX      block-scaled MXFP8 (wsgemm_matmul's VEC32_UE8M0 on A and B): tcgen05.mma kind::mxf8f6f4.block_scale
 *           with the factors copied into Tensor Memory per k-block (docs/sm100.md, "Block-scaled MXFP8"). Its
 *           tile is 128 x SM100_BN_MX (a pair: 256 x SM100_BN_MX), since two 256-column accumulators would leave no
 *           TMEM columns for the factors; K-major operands (MN-major ones are copied), bf16 D, one K split, static
 *           schedule, SM100_MX_STAGES stages (one scale slot of TMEM per stage). */
enum { SM100_SCALES_TENSOR = 0, SM100_SCALES_MX = 1 };
enum { SM100_BN_MX = 192, SM100_MX_STAGES = 4 };

/* Where an MX plan's scale factors lie in the workspace (plan->scales_offset): A's, one 512-byte chunk (tmem/desc.h,
 * UMMA_SF_CHUNK_BYTES: 128 rows x the 4 sub-blocks of a 128-K k-block) per (128-row tile, k-block), chunk
 * (tile * k_blocks + kb); then, b_offset bytes on, B's, b_chunks chunks per (SM100_BN_MX-column tile, k-block) at
 * ((tile * k_blocks + kb) * b_chunks + c) (c: rows 128 c .. of the tile; rows past the tile or the matrix, and
 * sub-blocks past k, hold 127: a factor of 1 that never meets a nonzero product). */
typedef struct sm100_mx_scales_layout {
    long long a_tiles, b_tiles; /* ceil(m / 128), ceil(n / SM100_BN_MX) */
    int k_blocks;               /* ceil(k / 128) */
    int b_chunks;               /* chunks per B tile: ceil(SM100_BN_MX / 128) */
    size_t a_bytes, b_offset, b_bytes, bytes;
} sm100_mx_scales_layout;

sm100_mx_scales_layout sm100_mx_scales_layout_of(long long m, long long n, long long k);

/* The byte of the source scale tensor (VEC32_UE8M0: outer x k32, element r + b * outer) that byte `idx` of one
 * operand's chunked copy holds, for tiles of tile_rows rows in chunks of 128 (A: 128, B: SM100_BN_MX) over
 * k_blocks k-blocks; -1 where the copy holds the padding factor 127. The launcher's rearrangement kernel and the
 * CPU test share it. */
static inline WSGEMM_HD long long sm100_mx_scale_source(long long idx, long long outer, int k32, int k_blocks,
                                                        int tile_rows)
{
    const int chunks = (tile_rows + UMMA_SF_CHUNK_ROWS - 1) / UMMA_SF_CHUNK_ROWS;
    const long long chunk = idx / UMMA_SF_CHUNK_BYTES, o = idx % UMMA_SF_CHUNK_BYTES;
    const long long c = chunk % chunks, kb = chunk / chunks % k_blocks, tile = chunk / chunks / k_blocks;
    /* the row in its chunk and the sub-block: umma_sf_chunk_offset inverted */
    const long long r = o / UMMA_SF_CP_ROW_BYTES + 32 * (o % UMMA_SF_CP_ROW_BYTES / 4), sub = o % 4;
    const long long row_in_tile = UMMA_SF_CHUNK_ROWS * c + r, row = tile * tile_rows + row_in_tile;
    const long long b = UMMA_SF_SUBBLOCKS * kb + sub;
    if (row_in_tile >= tile_rows || row >= outer || b >= k32) return -1;
    return row + b * outer;
}

/* The plan's variant (wsgemm_plan.variant): the tile schedule of the kernel.
 *   STATIC  cluster c of the grid (the co-resident clusters) takes units c, c + C, ... (gemm/common/scheduler.cuh);
 *   CLC     cluster launch control (sync/clc.cuh): the grid is one cluster per unit (grid_clusters = units), and a
 *           running cluster cancels clusters that have not started and takes their units; max_clusters is the
 *           clusters that run at once (the emulated build launches that many and hands out the rest from a
 *           counter). Only the kernels that exist: bf16 C, one K split. */
enum { SM100_VARIANT_STATIC = 0, SM100_VARIANT_CLC = 1 };

/* What the kernel room and the device say about the kernel of (cta_group, C element type). */
typedef struct sm100_kernel_facts {
    int exists; /* 0: not instantiated, or the device cannot give it its shared memory */
    int cta_group;
    int stages;
    int smem_bytes;
    int max_clusters; /* clusters of cta_group CTAs that fit on the device at once (> 0 when exists) */
} sm100_kernel_facts;

/* The launcher's answer (or a CPU test's model). Returns SUCCESS with *out filled (exists may be 0), or the
 * status of a failed driver call, with its message already in the launcher's context. */
typedef wsgemm_status (*sm100_kernel_query)(void *ctx, int cta_group, wsgemm_dtype out_type, int variant, int scales,
                                            sm100_kernel_facts *out);

/* Plan p (checked by api.c or matmul.c: m, n, k, batch_count > 0). WSGEMM_SM100_CLC=1 (knobs->sm100_clc) asks for the
 * CLC variant: granted with bf16 C when one K split serves (no forced split, no chain longer than
 * WSGEMM_MAX_CHAIN_BLOCKS) and the query has the kernel; otherwise the static one. Returns SUCCESS, the query's
 * failure, or
 * NOT_SUPPORTED with the reason in why (input types no kernel takes, operand scales without the fused op, a
 * fused op over more K than one accumulator chain, no kernel the device can run, a tile grid or a staged copy
 * beyond what the kernel can index). */
wsgemm_status sm100_plan_make(const wsgemm_problem *p, const wsgemm_knobs *knobs, sm100_kernel_query query,
                              void *query_ctx, wsgemm_plan *plan, char *why, size_t why_size);

/* 1 when the call's fused op reads a C that is not D (another address, leading dimension or type) with
 * beta != 0: a STAGED plan then loads C through a tensor map of its own (the launcher encodes it). */
int sm100_plan_c_is_separate(const wsgemm_problem *p);

/* The element type the kernel writes: C's, or fp32 partials when split. */
wsgemm_dtype sm100_plan_out_type(const wsgemm_plan *plan, const wsgemm_problem *p);

/* The cost model the plan compares candidates with (estimated us; its constants are explained in
 * sm100_plan.c and docs/sm100.md): units of work spread over max_clusters clusters of cta_group CTAs, each
 * unit kb_per_split K blocks. */
double sm100_plan_estimate_us(const wsgemm_problem *p, int cta_group, long long units, int max_clusters,
                              int kb_per_split, int splits);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM100_PLAN_H */
