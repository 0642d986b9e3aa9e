/*
 * gemm/common/plan.c - names and the one-line description of a plan (plan.h, epilogue.h). Host C.
 */
#include "common/plan.h"

#include <stdio.h>

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

static const char *dtype_name(wsgemm_dtype t)
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
    snprintf(buf, size,
             "m=%d n=%d k=%d batch=%d op=%c%c %s.%s->%s beta=%g | %s P=%s(%s-major) Q=%s(%s-major) %s %dx%dx%d "
             "stages=%d cluster=%d variant=%d | tiles %dx%d units=%lld splits=%d (kb/split %d) hybrid=%lld+%dx%d group=%d "
             "clusters=%lld of %d smem=%d | staged A=%d B=%d workspace=%zu epilogue=%s",
             p->m, p->n, p->k, p->batch_count, p->transa == WSGEMM_OP_N ? 'N' : 'T',
             p->transb == WSGEMM_OP_N ? 'N' : 'T', dtype_name(p->Atype), dtype_name(p->Btype), dtype_name(p->Ctype), (double)p->beta,
             plan->swap ? "swapped" : "normal", plan->swap ? "B" : "A", P->k_major ? "K" : "MN",
             plan->swap ? "A" : "B", Q->k_major ? "K" : "MN",
             plan->schedule == WSGEMM_SCHEDULE_PINGPONG ? "pingpong" : "cooperative", plan->bm, plan->bn, plan->bk,
             plan->stages,
             plan->cluster, plan->variant, plan->tiles_p, plan->tiles_q, plan->sched.units, plan->splits,
             plan->sched.k_blocks_per_split, plan->sched.sk_first,
             plan->sched.sk_splits > 1 ? (int)((plan->sched.units - plan->sched.sk_first) / plan->sched.sk_splits) : 0,
             plan->sched.sk_splits, plan->sched.group, plan->grid_clusters, plan->max_clusters,
             plan->smem_bytes, plan->a.staged, plan->b.staged, plan->workspace_bytes,
             wsgemm_epilogue_name(plan->epilogue));
}
