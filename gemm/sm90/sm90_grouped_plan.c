// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_grouped_plan.c - see sm90_grouped_plan.h.
 *
 * The tile width: BN 256 halves the P tile reads of BN 128 and feeds the tensor cores longer, but only where it
 * wastes no more of Q than BN 128 does (ceil(q / 256) * 256 == ceil(q / 128) * 128) and where the works it makes
 * can still fill the device (the bound on them, from the host's extent, is at least one per SM); else BN 128.
 */
#include "sm90/sm90_grouped_plan.h"

#include <stdio.h>
#include <string.h>

#include "common/dtype.h"
#include "common/tma.h"

#define SM90_GROUPED_KERNEL(name, in, bm, bn, bk, stages, consumers, mn) {#name, in, bm, bn, bk, stages, consumers, mn},
const sm90_grouped_config sm90_grouped_table[SM90_GROUPED_ROWS] = {
#include "sm90/sm90_grouped_kernels.def"
};
#undef SM90_GROUPED_KERNEL

int sm90_grouped_row_find(int in, int bn)
{
    for (int r = 0; r < SM90_GROUPED_ROWS; ++r)
        if (sm90_grouped_table[r].in == in && sm90_grouped_table[r].bn == bn) return r;
    return -1;
}

/* The most units (P tiles of `tile` rows) the groups can make in extent E: every non-empty group adds at most
 * one partial tile (contiguous), or every group fills its whole matrix (masked). As
 * wsgemm_grouped_units_bound in gemm/common/grouped.cuh; here it only sizes the grid. */
static long long units_bound(int layout, int groups, int extent, int tile)
{
    if (layout == WSGEMM_GROUPED_MASKED) return (long long)groups * ((extent + (long long)tile - 1) / tile);
    const long long nonempty = groups < extent ? groups : extent;
    return ((long long)extent + nonempty * (tile - 1)) / tile;
}

static long long ceil_div(long long a, long long b)
{
    return (a + b - 1) / b;
}

static int decline(char *why, size_t why_size, const char *what)
{
    if (why) snprintf(why, why_size, "the sm90 grouped kernel %s; the generic path runs it (AUTO takes it)", what);
    return 0;
}

int sm90_grouped_plan_make(const wsgemm_problem *p, const wsgemm_device_info *d, sm90_grouped_plan *plan, char *why,
                           size_t why_size)
{
    const wsgemm_grouped_desc *g = p->grouped;
    memset(plan, 0, sizeof *plan);
    if (g == NULL) return decline(why, why_size, "runs grouped calls only");
    if (d->cc_major != 9 || d->cc_minor != 0) return decline(why, why_size, "needs compute capability 9.0 (sm_90a)");
    if (g->dim == WSGEMM_GROUPED_DIM_K) return decline(why, why_size, "groups along M or N, not along K");
    if (p->device_scalars) return decline(why, why_size, "reads alpha and beta on the host (WSGEMM_POINTER_MODE_HOST)");
    if (p->k <= 0 || p->alpha == 0.0f) return decline(why, why_size, "needs a product (k > 0, alpha != 0)");
    if (!wsgemm_dtype_is_16bit(p->Atype) || p->Btype != p->Atype)
        return decline(why, why_size, "takes A and B both WSGEMM_R_16BF or both WSGEMM_R_16F");
    if (p->Ctype != WSGEMM_R_16BF && p->Ctype != WSGEMM_R_16F && p->Ctype != WSGEMM_R_32F)
        return decline(why, why_size, "stores C of WSGEMM_R_16BF, WSGEMM_R_16F or WSGEMM_R_32F");
    if (p->transa != WSGEMM_OP_T || p->transb != WSGEMM_OP_N)
        return decline(why, why_size, "reads K-major operands only: transa WSGEMM_OP_T and transb WSGEMM_OP_N");
    if (g->group_count > SM90_GROUPED_MAX_GROUPS) {
        if (why)
            snprintf(why, why_size,
                     "the sm90 grouped kernel takes at most %d groups (its shared-memory group table), not %d; the "
                     "generic path runs it (AUTO takes it)",
                     SM90_GROUPED_MAX_GROUPS, g->group_count);
        return 0;
    }
    const int groups = g->group_count;
    /* A is stored k x m (op(A) = A^T: m K-major rows), B k x n (n K-major columns) */
    const sm90_grouped_operand a = {p->A, p->lda, p->strideA, p->m, p->strideA != 0 ? groups : 1};
    const sm90_grouped_operand b = {p->B, p->ldb, p->strideB, p->n, p->strideB != 0 ? groups : 1};
    if (!wsgemm_tma_operand_ok(a.ptr, a.ld, a.stride, a.matrices > 1))
        return decline(why, why_size, "reads A by TMA: its base, lda and strideA must be 16-byte aligned");
    if (!wsgemm_tma_operand_ok(b.ptr, b.ld, b.stride, b.matrices > 1))
        return decline(why, why_size, "reads B by TMA: its base, ldb and strideB must be 16-byte aligned");

    plan->dim_n = g->dim == WSGEMM_GROUPED_DIM_N;
    plan->p = plan->dim_n ? b : a;
    plan->q = plan->dim_n ? a : b;
    plan->p_extent = plan->dim_n ? p->n : p->m;
    plan->q_extent = plan->dim_n ? p->m : p->n;
    plan->k = p->k;
    plan->out_sp = plan->dim_n ? p->ldc : 1; /* along N, D(p, q) = C(q, p) */
    plan->out_sq = plan->dim_n ? 1 : p->ldc;
    plan->out_group = p->strideC;
    plan->in = p->Atype == WSGEMM_R_16BF ? SM90_IN_BF16 : SM90_IN_F16;

    const long long units = units_bound(g->layout, groups, plan->p_extent, SM90_BM);
    const long long works_256 = units * ceil_div(plan->q_extent, 256);
    const int wide =
        ceil_div(plan->q_extent, 256) * 256 == ceil_div(plan->q_extent, 128) * 128 && works_256 >= d->sm_count;
    plan->bn = wide ? 256 : 128;
    plan->row = sm90_grouped_row_find(plan->in, plan->bn);
    if (plan->row < 0) return decline(why, why_size, "has no kernel of this input type and tile"); /* table bug */
    /* a band of Q tiles (BN rows of k elements, 2 bytes each) in about a third of L2: with the group's P
     * tiles and the next band it stays there while every P tile of the group reads it */
    const long long q_tiles = ceil_div(plan->q_extent, plan->bn);
    const long long band = (long long)d->l2_bytes / 3 / ((long long)plan->bn * plan->k * 2);
    plan->q_band = (int)(band < 1 ? 1 : band > q_tiles ? q_tiles : band);
    plan->works_bound = units * q_tiles;
    const long long grid = plan->works_bound < d->sm_count ? plan->works_bound : d->sm_count;
    plan->grid = grid > 0 ? (int)grid : 1;
    return 1;
}
