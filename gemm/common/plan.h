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
    int nb;            /* matrices the tensor map addresses: batch_count, or 1 for an operand shared by all */
    int k_major;
    long long rows_dim; /* M for A, N for B */
    int staged;        /* 1: copied (re-pitched to ld % 8 == 0) into the workspace before the kernel */
    size_t stage_offset, stage_bytes; /* where in the workspace */
} wsgemm_operand;

typedef struct wsgemm_plan {
    /* orientation */
    int swap;                 /* 1: P = op(B)^T, Q = op(A) */
    long long p_extent, q_extent;
    wsgemm_operand a, b;      /* P is b when swapped, else a */
    /* kernel */
    wsgemm_schedule schedule;
    int bm, bn, bk;           /* CTA tile (bm per CTA; sm100 cta_group 2 pairs two CTAs' bm) */
    int cluster;              /* CTAs per cluster along P */
    int stages;               /* operand ring depth */
    int variant;              /* the path's kernel-table variant (sm90_plan.h) */
    int p_mn, q_mn;           /* 1: that operand is MN-major */
    wsgemm_dtype ab_type;
    int in;                   /* the kernels' input types (sm90: SM90_IN_*, sm90/sm90_tile.h) */
    int smem_bytes;
    /* work */
    int splits;               /* K splits (fp32 partials + a fixed-order reduction when > 1) */
                              /* (the hybrid schedule's split region, if any, is in sched: sk_first, sk_splits) */
    int tiles_p, tiles_q;
    wsgemm_sched sched;
    int max_clusters;         /* co-resident clusters of that kernel on the device */
    long long grid_clusters;  /* clusters launched: min(units, max_clusters) */
    /* epilogue */
    wsgemm_epilogue_kind epilogue;
    /* workspace: staged operands (a.stage_*, b.stage_*), then split-K partials or the split region's partial
     * tiles, each 256-byte aligned */
    size_t partials_offset, partials_bytes;
    size_t workspace_bytes;   /* what the launcher reserves; 0: none */
} wsgemm_plan;

/* One line describing the plan (the launcher's WSGEMM_SM90_DEBUG output). */
void wsgemm_plan_describe(const wsgemm_plan *plan, const wsgemm_problem *p, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_PLAN_H */
