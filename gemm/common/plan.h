// SPDX-License-Identifier: MIT
/*
 * gemm/common/plan.h - the plan of one call on a fast path: every choice its launcher acts on, in one named
 * struct, made by plain C host code apart from launching and from the kernel. Host C.
 *
 * A fast path has three rooms: the kernel (device code), the plan (this struct and the path's planner,
 * e.g. gemm/sm90/sm90_plan.c: CPU-tested, no CUDA call), and the launch (plan -> reserve the workspace ->
 * stage operands -> encode tensor maps -> launch). The planner learns what it needs of the kernels and the
 * device through a query the launcher answers (which instantiations exist, how many clusters fit), so the
 * same planner runs in a CPU test against a model of the device.
 *
 * Vocabulary (both fast paths): the kernel computes D = P Q^T per batch, P the wgmma/UMMA M side (bm-row
 * tiles), Q the N side (bn-wide tiles); "swapped" means P = op(B)^T, Q = op(A), so Q runs along C's
 * contiguous rows. A cluster of `cluster` CTAs shares one Q tile (sm90: multicast; sm100: cta_group 2).
 */
#ifndef WSGEMM_COMMON_PLAN_H
#define WSGEMM_COMMON_PLAN_H

#include <stddef.h>

#include "common/epilogue.h"
#include "common/scheduler.cuh"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the consumer warpgroups share the work of a CTA. */
typedef enum wsgemm_schedule {
    WSGEMM_SCHEDULE_COOPERATIVE = 0, /* all consumer warpgroups on one tile, rows split between them */
    WSGEMM_SCHEDULE_PINGPONG = 1     /* each consumer warpgroup on its own tiles, taking turns, so one's
                                        epilogue runs under the other's MMAs */
} wsgemm_schedule;

/* One input operand as stored: `inner` contiguous elements per column, `cols` columns ld apart, nb matrices
 * stride apart. rows_dim is its M or N extent, k_major says which of inner/cols is K. */
typedef struct wsgemm_operand {
    const void *ptr;
    long long ld, stride;
    long long inner, cols;
    int nb; /* matrices the tensor map addresses: batch_count, or 1 for an operand shared by all */
    int k_major;
    long long rows_dim;               /* M for A, N for B */
    int staged;                       /* 1: copied (re-pitched to ld % 8 == 0) into the workspace before the kernel */
    size_t stage_offset, stage_bytes; /* where in the workspace */
} wsgemm_operand;

typedef struct wsgemm_plan {
    /* orientation */
    int swap; /* 1: P = op(B)^T, Q = op(A) */
    long long p_extent, q_extent;
    wsgemm_operand a, b; /* P is b when swapped, else a */
    /* kernel */
    wsgemm_schedule schedule;
    int bm, bn, bk; /* CTA tile (bm per CTA; sm100 cta_group 2 pairs two CTAs' bm) */
    int cluster;    /* CTAs per cluster along P */
    int stages;     /* operand ring depth */
    int variant;    /* the path's kernel-table variant (sm90_plan.h) */
    int p_mn, q_mn; /* 1: that operand is MN-major */
    wsgemm_dtype ab_type;
    int in;     /* the kernels' input types (sm90: SM90_IN_*, sm90/sm90_tile.h) */
    int scales; /* how they scale FP8 operands (sm90: SM90_SCALES_*) */
    int smem_bytes;
    /* work */
    int splits; /* K splits (fp32 partials + a fixed-order reduction when > 1) */
                /* (the hybrid schedule's split region, if any, is in sched: sk_first, sk_splits) */
    int tiles_p, tiles_q;
    wsgemm_sched sched;
    int max_clusters;        /* co-resident clusters of that kernel on the device */
    long long grid_clusters; /* clusters launched: min(units, max_clusters) */
    /* epilogue */
    wsgemm_epilogue_kind epilogue;
    /* workspace: staged operands (a.stage_*, b.stage_*), then split-K partials or the split region's partial
     * tiles, each 256-byte aligned */
    size_t partials_offset, partials_bytes;
    /* sm100 block-scaled (MX) plans: the operands' scale factors rearranged into the kernel's chunks, after the
     * partials, 256-byte aligned (sm100_plan.h, sm100_mx_scales_layout); 0 bytes otherwise */
    size_t scales_offset, scales_bytes;
    size_t workspace_bytes; /* what the launcher reserves; 0: none */
} wsgemm_plan;

/* ---------------------------------------------------------------- the steps both planners take */

/* The longest run of K blocks one accumulator takes before its sum goes to a split-K partial. The tensor cores
 * do not add into the fp32 accumulator with round-to-nearest, and the error of one chain grows with its length
 * (docs/perf-log.md, "Long K: accuracy of the accumulation"): longer K is split so that no chain is longer,
 * and the partials are added in fp32 by the reduction kernel in a fixed order. */
enum { WSGEMM_MAX_CHAIN_BLOCKS = 4096 };

/* The K split counts a plan may take for k_blocks K blocks: exactly `forced` when it is > 0; else from the
 * fewest that keep every chain within WSGEMM_MAX_CHAIN_BLOCKS to at most 16 and k_blocks / 4 (fewer K blocks
 * per split leave each one mostly pipeline fill). Either way no more than keep the fp32 partials, part_bytes
 * per split, within 2^40 bytes of workspace. *min_splits <= *max_splits. */
void wsgemm_plan_split_range(int k_blocks, int forced, double part_bytes, int *min_splits, int *max_splits);

/* NOT_SUPPORTED with the reason in why when tiles_p x tiles_q tiles of bm x bn exceed the scheduler's 32-bit
 * tile index (gemm/common/scheduler.cuh). */
wsgemm_status wsgemm_plan_check_tiles(long long tiles_p, long long tiles_q, int bm, int bn, char *why, size_t why_size);

/* The workspace of the plan (operands described, splits and schedule set): the copies of the operands TMA
 * cannot address (gemm/common/staging.h; FP8 copies are K-major, and with fp8_k_major_only an MN-major FP8
 * operand is copied too), then the fp32 partials of a split plan (splits x batch x m x n) or the split
 * region's partial tiles (its slots x sk_splits tiles of bm x bn), each 256-byte aligned. Sets the plan's
 * stage offsets, partials_offset, partials_bytes and workspace_bytes; NOT_SUPPORTED with the reason when a copy
 * is beyond what can be addressed. */
wsgemm_status wsgemm_plan_lay_out_workspace(wsgemm_plan *plan, const wsgemm_problem *p, int fp8_k_major_only, char *why,
                                            size_t why_size);

/* One line describing the plan (the launcher's WSGEMM_SM90_DEBUG output). */
void wsgemm_plan_describe(const wsgemm_plan *plan, const wsgemm_problem *p, char *buf, size_t size);

/* A type's short name, as the plan lines and the tuning cache write it: f32, bf16, f16, e4m3, e5m2. */
const char *wsgemm_dtype_short_name(wsgemm_dtype t);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_PLAN_H */
