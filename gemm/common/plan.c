// SPDX-License-Identifier: MIT
/*
 * gemm/common/plan.c - the steps both planners take, names, and the one-line description of a plan (plan.h,
 * epilogue.h). Host C, no CUDA call.
 */
#include "common/plan.h"

#include <stdio.h>

#include "common/staging.h"

void wsgemm_plan_split_range(int k_blocks, int forced, double part_bytes, int *min_splits, int *max_splits)
{
    int max_splits_ = forced > 0 ? forced : (k_blocks / 4 < 16 ? k_blocks / 4 : 16);
    int min_splits_ = forced > 0 ? forced : (k_blocks - 1) / WSGEMM_MAX_CHAIN_BLOCKS + 1;
    if (max_splits_ < min_splits_) max_splits_ = min_splits_;
    while (max_splits_ > 1 && part_bytes * max_splits_ > 1099511627776.0) --max_splits_;
    if (min_splits_ > max_splits_) min_splits_ = max_splits_;
    *min_splits = min_splits_;
    *max_splits = max_splits_;
}

wsgemm_status wsgemm_plan_check_tiles(long long tiles_p, long long tiles_q, int bm, int bn, char *why, size_t why_size)
{
    if (tiles_p * tiles_q <= 0x7FFFFFFFLL) return WSGEMM_STATUS_SUCCESS;
    snprintf(why, why_size, "%lld x %lld tiles of %d x %d exceed the scheduler's 32-bit tile index", tiles_p, tiles_q,
             bm, bn);
    return WSGEMM_STATUS_NOT_SUPPORTED;
}

wsgemm_status wsgemm_plan_lay_out_workspace(wsgemm_plan *plan, const wsgemm_problem *p, int fp8_k_major_only, char *why,
                                            size_t why_size)
{
    wsgemm_operand *const ops[2] = {&plan->a, &plan->b};
    static const char *const names[2] = {"A", "B"};
    size_t offset = 0;
    const wsgemm_status s =
        wsgemm_dtype_is_fp8(plan->ab_type)
            ? wsgemm_operands_plan_staging_fp8(ops, names, 2, p->k, fp8_k_major_only, &offset, why, why_size)
            : wsgemm_operands_plan_staging(ops, names, 2, &offset, why, why_size);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    plan->partials_offset = offset;
    plan->partials_bytes =
        plan->splits > 1 ? (size_t)plan->splits * (size_t)p->m * (size_t)p->n * (size_t)p->batch_count * sizeof(float)
                         : 0;
    if (plan->sched.sk_splits > 1) /* the split region: sk_splits partial tiles per slot */
        plan->partials_bytes = (size_t)wsgemm_sched_sk_slots(&plan->sched) * (size_t)plan->sched.sk_splits *
                               (size_t)plan->bm * (size_t)plan->bn * sizeof(float);
    plan->workspace_bytes = plan->partials_offset + plan->partials_bytes;
    return WSGEMM_STATUS_SUCCESS;
}

const char *wsgemm_epilogue_name(wsgemm_epilogue_kind kind)
{
    switch (kind) {
    case WSGEMM_EPILOGUE_NONE: return "none";
    case WSGEMM_EPILOGUE_DIRECT: return "direct";
    case WSGEMM_EPILOGUE_TMA: return "tma";
    case WSGEMM_EPILOGUE_DEFERRED: return "tma-deferred";
    case WSGEMM_EPILOGUE_STAGED: return "tma-staged";
    }
    return "?";
}

const char *wsgemm_dtype_short_name(wsgemm_dtype t)
{
    switch (t) {
    case WSGEMM_R_32F: return "f32";
    case WSGEMM_R_16BF: return "bf16";
    case WSGEMM_R_16F: return "f16";
    case WSGEMM_R_8F_E4M3: return "e4m3";
    case WSGEMM_R_8F_E5M2: return "e5m2";
    }
    return "?";
}

void wsgemm_plan_describe(const wsgemm_plan *plan, const wsgemm_problem *p, char *buf, size_t size)
{
    const wsgemm_operand *P = plan->swap ? &plan->b : &plan->a, *Q = plan->swap ? &plan->a : &plan->b;
    snprintf(
        buf, size,
        "m=%d n=%d k=%d batch=%d op=%c%c %s.%s->%s beta=%g | %s P=%s(%s-major) Q=%s(%s-major) %s %dx%dx%d "
        "stages=%d cluster=%d variant=%d | tiles %dx%d units=%lld splits=%d (kb/split %d) hybrid=%lld+%dx%d group=%d "
        "clusters=%lld of %d smem=%d | staged A=%d B=%d workspace=%zu epilogue=%s",
        p->m, p->n, p->k, p->batch_count, p->transa == WSGEMM_OP_N ? 'N' : 'T', p->transb == WSGEMM_OP_N ? 'N' : 'T',
        wsgemm_dtype_short_name(p->Atype), wsgemm_dtype_short_name(p->Btype), wsgemm_dtype_short_name(p->Ctype),
        (double)p->beta, plan->swap ? "swapped" : "normal", plan->swap ? "B" : "A", P->k_major ? "K" : "MN",
        plan->swap ? "A" : "B", Q->k_major ? "K" : "MN",
        plan->schedule == WSGEMM_SCHEDULE_PINGPONG ? "pingpong" : "cooperative", plan->bm, plan->bn, plan->bk,
        plan->stages, plan->cluster, plan->variant, plan->tiles_p, plan->tiles_q, plan->sched.units, plan->splits,
        plan->sched.k_blocks_per_split, plan->sched.sk_first,
        plan->sched.sk_splits > 1 ? (int)((plan->sched.units - plan->sched.sk_first) / plan->sched.sk_splits) : 0,
        plan->sched.sk_splits, plan->sched.group, plan->grid_clusters, plan->max_clusters, plan->smem_bytes,
        plan->a.staged, plan->b.staged, plan->workspace_bytes, wsgemm_epilogue_name(plan->epilogue));
}
