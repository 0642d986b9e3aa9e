// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_plan.h - the Hopper path's planner: orientation, tile width, kernel variant, cluster,
 * split-K, epilogue, staging and workspace of one call, as a wsgemm_plan (gemm/common/plan.h). Host C,
 * no CUDA call: what it needs of the kernels and the device comes through sm90_kernel_query.
 *
 * The kernels are the rows of sm90_kernels.def (as C data: sm90_table.h), found by their input kind, variant,
 * tile width and majorness (sm90_kernel_find). Kernel variants (SM90_VARIANT_*, sm90_tile.h): 0 default
 * (2-CTA cluster, deepest ring that fits), 1 no cluster and 2 three stages (bf16, BN 256, K-major P only:
 * tuning comparisons), 3 a 4-CTA cluster (BN 64 and 128), 4 and 5 the staged C tile (chosen by the plan for
 * its epilogue), 6 the pingpong schedule (BN 128; only when asked for), 7 the FUSED kernels (wsgemm_matmul's
 * output op: a call with one always runs them). Where the requested variant has no row for a tile width,
 * variant 0 runs (never in place of 7).
 */
#ifndef WSGEMM_SM90_PLAN_H
#define WSGEMM_SM90_PLAN_H

#include "common/knobs.h"
#include "common/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the kernel room and the device say about one row of the kernel table for one majorness pair. */
typedef struct sm90_kernel_facts {
    int exists;  /* 0: the row lacks the pair (or there is no row) */
    int row;     /* set by the planner: the row (sm90_table.h) these facts are of */
    int variant; /* set by the planner: the variant these facts are of */
    int bn, stages, cluster;
    int smem_bytes;
    int max_clusters; /* clusters of it that fit on the device at once (> 0) */
} sm90_kernel_facts;

/* The launcher's answer (or a CPU test's model) for row `row` of the kernel table (sm90_kernel_table, which the
 * planner searches with sm90_kernel_find) with P and Q majorness p_mn, q_mn. Returns SUCCESS with *out filled
 * (exists 0 where the row lacks that pair), or the status of a failed driver call, with its message already in
 * the launcher's context. */
typedef wsgemm_status (*sm90_kernel_query)(void *ctx, int row, int p_mn, int q_mn, sm90_kernel_facts *out);

/* Plan p (its arguments checked by the public calls, api.c or matmul.c, before the call pipeline, call.c:
 * m, n, k, batch_count > 0). Returns SUCCESS, the query's failure, or
 * NOT_SUPPORTED with the reason in why (a tile grid or a staged copy beyond what the kernel can index). */
wsgemm_status sm90_plan_make(const wsgemm_problem *p, const wsgemm_knobs *knobs, sm90_kernel_query query,
                             void *query_ctx, wsgemm_plan *plan, char *why, size_t why_size);

/* 1 when the sm90 kernels apply wsgemm_matmul's scale modes a_mode, b_mode to A and B of these types: per-tensor
 * scales (SCALAR_32F) of any FP8 pair, and the float scale tensors (VEC128_32F, BLK128x128_32F, OUTER_VEC_32F)
 * of E4M3 A and B (the block-scaled rows of sm90_kernels.def); the generic path runs the rest. */
int sm90_plan_takes_scales(wsgemm_dtype a, wsgemm_dtype b, int a_mode, int b_mode);

/* The operand of the plan that is P (Q): b (a) when swapped. */
const wsgemm_operand *sm90_plan_p(const wsgemm_plan *plan);
const wsgemm_operand *sm90_plan_q(const wsgemm_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM90_PLAN_H */
