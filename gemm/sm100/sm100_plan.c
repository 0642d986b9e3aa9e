// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/sm100_plan.c - the Blackwell path's planner (sm100_plan.h). Host C, no CUDA call.
 *
 * A call, top to bottom:
 *   inputs       16-bit A and B (kind::f16, 64 K per block) or FP8 (kind::f8f6f4, E4M3/E5M2 but not both
 *                E5M2, 128 K per block): either way 128 bytes of K per stage, the same ring and descriptors.
 *   staging      gemm/common/staging.h (shared with sm90): an operand TMA cannot address (an odd leading
 *                dimension, an unaligned base or batch stride) is copied into the workspace inside the call,
 *                so the path never declines a problem for its layout (an FP8 copy is K-major; the kernel reads
 *                FP8 of either major as stored); a one-row operand with ld 1 is read as a K-major row instead.
 *   cta_group,   by the cost model (sm100_plan_estimate_us) over cta_group 2 (a 256 x 256 pair tile: each
 *   split-K      CTA loads half of B, so 2/3 of cta_group 1's operand bytes per FLOP) and 1 (128 x 256, for
 *                problems with one row of tiles), and over the split counts that keep at least 4 K blocks per
 *                split. Few-tile and skinny shapes (m = 64 decode: 32 tiles for 148 SMs) split K: each split
 *                writes fp32 partials that gemm/common/splitk_reduce.cuh sums in split order 0, 1, ..., so the
 *                result depends only on the shape, never on timing. K longer than WSGEMM_MAX_CHAIN_BLOCKS
 *                blocks is always split. A fused output op (wsgemm_matmul) is never split: it runs on the
 *                accumulators, so such K is declined there.
 *   grid         min(units, co-resident clusters), the latter from cudaOccupancyMaxActiveClusters (the query):
 *                a persistent grid that assumes every SM pair can host a cluster would queue the rest.
 *   epilogue     TMA through shared memory (each epilogue warp's 32 x 32 chunk: C loaded by TMA ahead of use
 *                when beta != 0, the result stored by TMA while the next tile's MMAs run) where the output
 *                allows TMA stores, an E4M3 D included; a fused op's C other than D comes in through a tensor
 *                map of its own when it has D's type and a TMA layout. Per-element stores otherwise (an E4M3
 *                D over a 16-bit C with beta != 0, a layout TMA cannot address).
 *   block scale  MX (VEC32_UE8M0 on A and B, SM100_SCALES_MX): the 128 x 192 kernel (a pair: 256 x 192) with bf16 D,
 *                one K split, the static schedule, K-major operands (MN-major ones copied); the factors rearranged
 *                into the kernel's chunks in the workspace (sm100_mx_scales_layout). Other scale tensors (VEC128_32F,
 *                BLK128x128_32F, OUTER_VEC_32F) are declined: no sm100 kernel applies them.
 *   workspace    staged A, staged B, split-K partials, MX scale chunks, each 256-byte aligned.
 *   invariance   under batch invariance (problem.batch_invariance) no choice follows the varying dimension
 *                (m for ON, n for ON_N): the fewest K splits that keep each chain within
 *                WSGEMM_MAX_CHAIN_BLOCKS (or the forced count); cta_group 1 for ON (m decides whether a pair
 *                has rows), for ON_N 2 where m has two rows of tiles, else 1 (or the forced one); operands keep
 *                their stored majorness (no one-row view; FP8 ones are always read from K-major copies, as on
 *                sm90, since whether one needs staging follows its leading dimension); per-element stores for
 *                ON (m decides which stores TMA can make) and for batched C under ON_N.
 */
#include "sm100/sm100_plan.h"

#include <stdio.h>
#include <string.h>

#include "common/scale.h"
#include "common/staging.h"
#include "common/tma.h"

/* ---------------------------------------------------------------- cost model */

/* Estimated time (us) of one call on a B200 (published figures; docs/sm100.md, "Cycle and byte budget on a
 * B200", cites them):
 *   tensor core  8192 dense 16-bit FLOP per clock per SM (a 128 x 256 x 16 UMMA in 128 cycles) at ~1.85 GHz:
 *                15.2 TFLOP/s per SM; every CTA computes 128 x 256 x 64 per K block in either cta_group (FP8:
 *                twice the rate and twice the K per block, so the same time per block);
 *   operand feed what one CTA's TMA keeps in flight over the load latency: the ring holds ~192 KB (cta_group
 *                1: 4 stages of 48 KB; 2: 6 of 32 KB) and a loaded round trip of ~1.5 us is assumed, so
 *                ~128 KB/us per CTA, below the ~237 KB/us of an assumed 128 B per clock from L2. cta_group 1
 *                loads 48 KB per K block (0.375 us: feed-bound), cta_group 2 32 KB (0.25 us: tensor-bound);
 *   HBM          8 TB/s for A, B and C, each read or written once;
 *   split-K      the partials written and read back (at ~6 TB/s), and a second launch (~3 us).
 * The kernel is bound by the slowest of the three rates; only comparisons between candidates matter, and a
 * candidate must be 5 % cheaper to displace an earlier one. */
double sm100_plan_estimate_us(const wsgemm_problem *p, int cta_group, long long units, int max_clusters,
                              int kb_per_split, int splits)
{
    const double flops_kb = 2.0 * SM100_BM * SM100_BN * SM100_BK;
    const double t_mma_kb = flops_kb / 15.2e6;
    const double bytes_kb = (double)(SM100_BM + SM100_BN / cta_group) * SM100_BK * 2.0;
    const double t_feed_kb = bytes_kb / 128.0e3;
    const long long waves = (units + max_clusters - 1) / max_clusters;
    const double t_tiles = (double)waves * kb_per_split * (t_mma_kb > t_feed_kb ? t_mma_kb : t_feed_kb);
    const double c_bytes = (double)p->m * p->n * p->batch_count * wsgemm_dtype_size(p->Ctype);
    const double hbm_bytes = ((double)p->m + p->n) * p->k * wsgemm_dtype_size(p->Atype) * p->batch_count +
                             c_bytes * (p->beta != 0.0f ? 2 : 1);
    const double t_hbm = hbm_bytes / 8.0e6;
    double cost = (t_tiles > t_hbm ? t_tiles : t_hbm) + 2.0; /* + the launch */
    if (splits > 1) cost += (double)splits * p->m * p->n * p->batch_count * 4.0 * 2.0 / 6.0e6 + 3.0;
    return cost;
}

/* ---------------------------------------------------------------- block scale factors */

sm100_mx_scales_layout sm100_mx_scales_layout_of(long long m, long long n, long long k)
{
    sm100_mx_scales_layout l;
    l.a_tiles = (m + SM100_BM - 1) / SM100_BM;
    l.b_tiles = (n + SM100_BN_MX - 1) / SM100_BN_MX;
    l.k_blocks = (int)((k + SM100_BK_FP8 - 1) / SM100_BK_FP8);
    l.b_chunks = (SM100_BN_MX + UMMA_SF_CHUNK_ROWS - 1) / UMMA_SF_CHUNK_ROWS;
    l.a_bytes = (size_t)l.a_tiles * (size_t)l.k_blocks * UMMA_SF_CHUNK_BYTES;
    l.b_offset = (l.a_bytes + 255) / 256 * 256;
    l.b_bytes = (size_t)l.b_tiles * (size_t)l.k_blocks * (size_t)l.b_chunks * UMMA_SF_CHUNK_BYTES;
    l.bytes = l.b_offset + l.b_bytes;
    return l;
}

/* ---------------------------------------------------------------- epilogue */

/* The kernel's output (C, or the fp32 partials when split: tight m x n, 256-byte aligned in the workspace)
 * takes the TMA-store epilogue when TMA can address it in 32 x 32 boxes. A TMA store clips the inner
 * dimension only to whole 16-byte chunks (gemm/sm90/sm90_plan.c, c_takes_tma_store: it would write rows past
 * m into the ldc padding), so m times the element size must be a multiple of 16; batches with gaps or
 * overlaps between the matrices stay on per-element stores, as on sm90. */
static wsgemm_epilogue_kind choose_epilogue(const wsgemm_problem *p, const wsgemm_knobs *knobs, int splits)
{
    if (knobs->sm100_epilogue == WSGEMM_EPILOGUE_PREF_DIRECT) return WSGEMM_EPILOGUE_DIRECT;
    if (p->batch_invariance == WSGEMM_BATCH_INVARIANCE_ON ||
        (p->batch_invariance == WSGEMM_BATCH_INVARIANCE_ON_N && p->batch_count > 1))
        return WSGEMM_EPILOGUE_DIRECT; /* the stores TMA can make would follow m (ON) or n (strideC) */
    if (splits > 1) return p->m % 4 == 0 ? WSGEMM_EPILOGUE_TMA : WSGEMM_EPILOGUE_DIRECT;
    /* D of any type the kernel writes (an E4M3 D too: 32-byte rows of 32 x 32 chunks) */
    const int c_bytes = wsgemm_dtype_size(p->Ctype);
    const int ok = ((long long)p->m * c_bytes) % 16 == 0 &&
                   wsgemm_tma_layout_ok(p->C, p->ldc, p->strideC, p->batch_count > 1, c_bytes) &&
                   (p->batch_count == 1 || p->strideC == (long long)p->ldc * p->n);
    if (!ok) return WSGEMM_EPILOGUE_DIRECT;
    if (p->beta == 0.0f) return WSGEMM_EPILOGUE_TMA; /* stores only */
    /* beta != 0: C comes into the chunk by TMA ahead of its use (the STAGED kind). The fused op's C, when it is
     * not D, through a tensor map of its own: it must have D's type (the chunk holds C's old values and then D's
     * new ones in place) and a TMA layout; otherwise (an E4M3 D over a 16-bit C) per element. */
    if (sm100_plan_c_is_separate(p)) {
        const wsgemm_fused_epilogue *f = p->fused;
        if (f->c_type != (int)p->Ctype || !wsgemm_tma_layout_ok(f->c, f->ldc, 0, 0, c_bytes))
            return WSGEMM_EPILOGUE_DIRECT;
    }
    return WSGEMM_EPILOGUE_STAGED;
}

int sm100_plan_c_is_separate(const wsgemm_problem *p)
{
    const wsgemm_fused_epilogue *f = p->fused;
    return f != NULL && p->beta != 0.0f && (f->c != p->C || f->c_type != (int)p->Ctype || f->ldc != p->ldc);
}

wsgemm_dtype sm100_plan_out_type(const wsgemm_plan *plan, const wsgemm_problem *p)
{
    return plan->splits > 1 ? WSGEMM_R_32F : p->Ctype;
}

/* ---------------------------------------------------------------- the plan */

wsgemm_status sm100_plan_make(const wsgemm_problem *p, const wsgemm_knobs *knobs, sm100_kernel_query query,
                              void *query_ctx, wsgemm_plan *plan, char *why, size_t why_size)
{
    const int nb = p->batch_count;
    const int fp8 = wsgemm_dtype_is_fp8(p->Atype);
    const int bk = fp8 ? SM100_BK_FP8 : SM100_BK;
    const int invariant = p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF;
    const int one_row_view = !invariant;
    const int mx =
        p->a_scale_mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0 && p->b_scale_mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
    const int bn = mx ? (int)SM100_BN_MX : (int)SM100_BN;
    if (fp8 != wsgemm_dtype_is_fp8(p->Btype) || (!fp8 && p->Btype != p->Atype) ||
        (p->Atype == WSGEMM_R_8F_E5M2 && p->Btype == WSGEMM_R_8F_E5M2)) {
        snprintf(why, why_size,
                 "A type %d with B type %d: the kernel takes 16-bit A and B of one type, or FP8 "
                 "(E4M3/E5M2, not both E5M2)",
                 (int)p->Atype, (int)p->Btype);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if ((p->a_scale || p->b_scale) && p->fused == NULL) {
        snprintf(why, why_size, "operand scales are applied by the fused output op only");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (!mx &&
        (wsgemm_scale_mode_is_tensor((int)p->a_scale_mode) || wsgemm_scale_mode_is_tensor((int)p->b_scale_mode))) {
        snprintf(why, why_size,
                 "a_scale_mode %s with b_scale_mode %s: the sm100 kernels apply per-tensor scales or MX ones "
                 "(VEC32_UE8M0 on both)",
                 wsgemm_scale_mode_name((int)p->a_scale_mode), wsgemm_scale_mode_name((int)p->b_scale_mode));
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (mx && (!fp8 || p->Ctype != WSGEMM_R_16BF || p->batch_count != 1)) {
        snprintf(why, why_size,
                 "block-scaled MX (VEC32_UE8M0): the sm100 kernel takes FP8 A and B, a bf16 D and no batch; "
                 "not A type %d, B type %d, D type %d, batch %d",
                 (int)p->Atype, (int)p->Btype, (int)p->Ctype, nb);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    *plan = (wsgemm_plan){
        .swap = 0,
        .p_extent = p->m,
        .q_extent = p->n,
        .a = wsgemm_operand_describe(p->A, p->lda, p->strideA, p->transa == WSGEMM_OP_T, p->m, p->k, nb, one_row_view),
        .b = wsgemm_operand_describe(p->B, p->ldb, p->strideB, p->transb == WSGEMM_OP_N, p->n, p->k, nb, one_row_view),
        .schedule = WSGEMM_SCHEDULE_COOPERATIVE,
        .bm = SM100_BM,
        .bn = bn,
        .bk = bk,
        .ab_type = p->Atype,
        .scales = mx ? SM100_SCALES_MX : SM100_SCALES_TENSOR,
    };
    const int k_blocks = (p->k - 1) / bk + 1; /* k > 0; k + bk - 1 could overflow */
    const long long tiles_m = (p->m - 1LL) / SM100_BM + 1, tiles_n = (p->n - 1LL) / bn + 1;
    wsgemm_status s = wsgemm_plan_check_tiles(tiles_m, tiles_n, SM100_BM, bn, why, why_size);
    if (s != WSGEMM_STATUS_SUCCESS) return s;

    /* split counts: at least 4 K blocks per split and at most 16 splits, unless forced; at least enough that no
     * accumulator chain is longer than WSGEMM_MAX_CHAIN_BLOCKS; fp32 partials of at most 2^40 bytes */
    int min_splits, max_splits;
    wsgemm_plan_split_range(k_blocks, knobs->sm100_splitk, (double)p->m * p->n * nb * 4.0, &min_splits, &max_splits);
    if (p->fused || mx) { /* the fused op runs on the accumulators, the MX kernel writes bf16 D: one chain */
        if (k_blocks > WSGEMM_MAX_CHAIN_BLOCKS) {
            snprintf(why, why_size, "k = %d is %d K blocks: a %s runs on one accumulator chain of at most %d", p->k,
                     k_blocks, mx ? "block-scaled MX matmul" : "fused output op", (int)WSGEMM_MAX_CHAIN_BLOCKS);
            return WSGEMM_STATUS_NOT_SUPPORTED;
        }
        min_splits = max_splits = 1;
    }
    if (invariant) max_splits = min_splits; /* a count from K alone */
    /* the CLC variant (knobs->sm100_clc): its kernels write bf16 C from one K split; asked first, the static
     * schedule (with the whole split range) where no CLC kernel fits */
    const int want_clc = knobs->sm100_clc && !invariant && !mx && p->Ctype == WSGEMM_R_16BF && min_splits == 1 &&
                         (double)tiles_m * (double)tiles_n * nb * 2.0 <= 2147483647.0; /* a grid of int CTAs */

    /* cta_group candidates: 2 first (fewer operand bytes per FLOP: it wins ties), but only with two rows of
     * tiles (one row would leave the second CTA of every pair without rows), then 1; or the forced one */
    int groups[2], n_groups = 0;
    if (knobs->sm100_cta_group == 1 || knobs->sm100_cta_group == 2)
        groups[n_groups++] = knobs->sm100_cta_group;
    else if (invariant) /* m's rows of tiles decide a pair: fixed only under ON_N */
        groups[n_groups++] = p->batch_invariance == WSGEMM_BATCH_INVARIANCE_ON_N && tiles_m >= 2 ? 2 : 1;
    else {
        if (tiles_m >= 2) groups[n_groups++] = 2;
        groups[n_groups++] = 1;
    }
    const wsgemm_dtype out_single = p->Ctype;
    sm100_kernel_facts chosen = {0};
    int splits = 1, variant = want_clc ? SM100_VARIANT_CLC : SM100_VARIANT_STATIC;
    double best = 0.0;
    for (; !chosen.exists && variant >= SM100_VARIANT_STATIC; --variant) {
        const int last_split = variant == SM100_VARIANT_CLC ? 1 : max_splits;
        for (int g = 0; g < n_groups; ++g) {
            const int cg = groups[g];
            for (int sp = min_splits; sp <= last_split; ++sp) {
                sm100_kernel_facts f = {0};
                s = query(query_ctx, cg, sp > 1 ? WSGEMM_R_32F : out_single, variant, plan->scales, &f);
                if (s != WSGEMM_STATUS_SUCCESS) return s;
                if (!f.exists || f.max_clusters <= 0) continue;
                const wsgemm_sched sch = wsgemm_sched_make((int)tiles_m, (int)tiles_n, cg, 1, sp, nb, k_blocks);
                const double cost =
                    sm100_plan_estimate_us(p, cg, sch.units, f.max_clusters, sch.k_blocks_per_split, sch.splits);
                if (!chosen.exists || cost < best * 0.95) {
                    best = cost;
                    chosen = f;
                    splits = sch.splits;
                }
            }
        }
    }
    ++variant; /* the variant the loop chose from */
    if (!chosen.exists) {
        snprintf(why, why_size, "no sm100 kernel (cta_group %s) fits this device",
                 n_groups == 1 ? (groups[0] == 2 ? "2" : "1") : "1 or 2");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    plan->cluster = chosen.cta_group;
    plan->stages = chosen.stages;
    plan->smem_bytes = chosen.smem_bytes;
    plan->max_clusters = chosen.max_clusters;
    plan->variant = variant;
    plan->tiles_p = (int)tiles_m;
    plan->tiles_q = (int)tiles_n;
    plan->sched =
        wsgemm_sched_make(plan->tiles_p, plan->tiles_q, plan->cluster, knobs->sm100_group, splits, nb, k_blocks);
    plan->splits = plan->sched.splits;
    plan->grid_clusters = plan->sched.units < plan->max_clusters ? plan->sched.units : plan->max_clusters;
    if (knobs->sm100_ctas > 0) /* forced grid (tests: more CTAs than units, zero-tile teardown) */
        plan->grid_clusters = (knobs->sm100_ctas + plan->cluster - 1) / plan->cluster;
    if (variant == SM100_VARIANT_CLC) {
        /* the hardware's queue is the grid: one cluster per unit. A forced grid is the clusters that run at once
         * (what the emulated build launches: tests give it fewer clusters than units) */
        if (knobs->sm100_ctas > 0 && plan->grid_clusters < plan->max_clusters)
            plan->max_clusters = (int)plan->grid_clusters;
        plan->grid_clusters = plan->sched.units;
    }
    plan->epilogue = choose_epilogue(p, knobs, plan->splits);

    /* workspace: staged operands (FP8 copies are K-major; every other operand keeps its major), then the split-K
     * partials */
    /* invariant: FP8 always K-major; MX: the kernel reads K-major operands only */
    s = wsgemm_plan_lay_out_workspace(plan, p, invariant || mx, why, why_size);
    plan->p_mn = !plan->a.k_major && !(fp8 && plan->a.staged);
    plan->q_mn = !plan->b.k_major && !(fp8 && plan->b.staged);
    if (s == WSGEMM_STATUS_SUCCESS && mx) { /* the scale chunks after the partials */
        plan->scales_offset = (plan->workspace_bytes + 255) / 256 * 256;
        plan->scales_bytes = sm100_mx_scales_layout_of(p->m, p->n, p->k).bytes;
        plan->workspace_bytes = plan->scales_offset + plan->scales_bytes;
    }
    return s;
}
