// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_plan.c - the Hopper path's planner (sm90_plan.h). Host C, no CUDA call.
 *
 * A call, top to bottom:
 *   orientation  Skinny problems (min(m, n) <= 256) put the small dimension on Q with a narrow BN (64, 128,
 *                256) so no tensor-core work is wasted on padding. Otherwise P = op(B)^T, Q = op(A)
 *                ("swapped"): Q runs along C's contiguous rows, so the epilogue stores rows of C.
 *                WSGEMM_SM90_SWAP=0 keeps P = op(A) for large problems.
 *   staging      gemm/common/staging.h (shared with sm100): an operand TMA cannot address (an odd leading
 *                dimension, an unaligned base or batch stride) is copied into the workspace inside the call; a
 *                one-row operand with ld 1 (m = 1 or n = 1 decode) is read as a K-major row instead. FP8
 *                operands: the FP8 kernels read K-major rows only, so an MN-major one is copied transposed.
 *   tile, split  (BN, splits) by the cost model (estimate_cost) over the tile widths worth trying; each
 *                split writes fp32 partials that a reduction kernel sums in split order 0, 1, ..., so the
 *                result depends only on the shape, never on timing. Or the hybrid schedule
 *                (estimate_hybrid_cost): the full waves of tiles data-parallel, only the ragged last wave's
 *                tiles split along K over the clusters it would leave idle, their partials summed in split
 *                order by a reduction over just those tiles (common/scheduler.cuh).
 *   cluster      2 CTAs along P share (multicast) the Q tile; 4 for decode shapes whose small side fits one
 *                64-wide Q tile (the small operand is then read from L2 half as often).
 *   epilogue     deferred TMA stores where C allows them (swapped, no split, TMA-addressable C of the input
 *                type, beta == 0); where only beta or C's type stands in the way, the staged C tile (the
 *                kernel variant with C in smem: loaded by TMA under the main loop, stored behind the next
 *                one; for fp32 C only with beta != 0), or tile-end TMA stores where no such kernel fits the
 *                tile; direct per-element stores otherwise.
 *   workspace    staged A, staged B, split-K partials (or the split region's partial tiles), each 256-byte
 *                aligned.
 *   fused ops    a wsgemm_matmul call with an epilogue (bias, aux, activation) gets the FUSED kernels: the
 *                choices above with BN 256 or 128, swapped, K unsplit, DEFERRED or TMA stores; beta != 0 and a
 *                D that TMA cannot store are declined.
 *   invariance   under batch invariance (problem.batch_invariance) the varying dimension (m for ON, n for
 *                ON_N) goes on P, whose tile is always 128 rows: ON keeps P = op(A), ON_N swaps. Then every
 *                choice follows from Q's extent, K, the types, the layouts and the knobs: BN 64 for a Q side of
 *                at most 64 (16-bit, plain), else 128 (the FP8 and fused rows' width too); the fewest K splits
 *                that keep each chain within WSGEMM_MAX_CHAIN_BLOCKS (or the forced count); no split region, no
 *                4-CTA cluster; operands keep their stored majorness (no one-row view); batched C takes the
 *                per-element stores. ON declines the fused ops (they run swapped; paths.c sends them to
 *                generic).
 */
#include "sm90/sm90_plan.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/scale.h"
#include "common/staging.h"
#include "common/tma.h"
#include "sm90/sm90_table.h"
#include "sm90/sm90_tile.h"

/* ---------------------------------------------------------------- the policy */

/* What the plan takes from the knobs (common/knobs.h), read once by policy_of: the caller's knobs are inputs
 * only. A fused call's policy differs from its knobs (the FUSED rows, no split, no DIRECT or STAGED stores:
 * sm90_plan_make says why); the hybrid-off plan is the same policy with hybrid 0. */
typedef struct sm90_policy {
    int variant;                   /* the kernel family asked for (SM90_VARIANT_*) */
    int bn;                        /* a forced tile width; 0: chosen */
    int splitk;                    /* a forced K split count; 0: chosen */
    int hybrid;                    /* -1 chosen, 0 never, n >= 2 a forced split region of n */
    int swap;                      /* 0: P = op(A) for problems whose small side exceeds 256 */
    int group;                     /* rows per band of the grouped tile order */
    wsgemm_epilogue_pref epilogue; /* the epilogue asked for */
} sm90_policy;

static sm90_policy policy_of(const wsgemm_problem *p, const wsgemm_knobs *knobs)
{
    sm90_policy pol = {.variant = knobs->sm90_variant,
                       .bn = knobs->sm90_bn,
                       .splitk = knobs->sm90_splitk,
                       .hybrid = knobs->sm90_hybrid,
                       .swap = knobs->sm90_swap,
                       .group = knobs->sm90_group,
                       .epilogue = knobs->sm90_epilogue};
    if (p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF) pol.hybrid = 0; /* its region follows the waves */
    if (p->fused) {
        pol.variant = SM90_VARIANT_FUSED;
        pol.splitk = 1;
        pol.hybrid = 0;
        if (pol.epilogue == WSGEMM_EPILOGUE_PREF_DIRECT || pol.epilogue == WSGEMM_EPILOGUE_PREF_STAGED)
            pol.epilogue = WSGEMM_EPILOGUE_PREF_AUTO;
    }
    return pol;
}

/* ---------------------------------------------------------------- split-K and tile-width model */

/* Estimated time (~us) of one call: the main kernel is bound by the slowest of three rates, plus the
 * launch, plus (split-K) the partials and the reduction kernel. Only comparisons between candidates matter.
 *   tensor cores   ~7 TFLOP/s per SM for m64n256 (narrower wgmma issue less efficiently);
 *   one CTA's TMA  ~60 KB/us of operand bytes per CTA (~80 when the operands sit in L2): the plateau of the
 *                  skinny shapes with 64 CTAs, measured on the H200;
 *   HBM            ~3.4 TB/s for the unique operand bytes (each read once, the rest hits L2).
 * Split-K pays a partial write + read and a second launch; measured on the H200 it lost to the unsplit grid
 * on every skinny shape but m = 16 (within the noise there), and at 1000^3, which an earlier model
 * (bandwidth per active SM, no CTA cap) split (docs/perf-log.md, "Skinny shapes, split-K and the staging
 * copy", for both).
 * main_loop_cost is the first part: `steps` K blocks run back to back by the busiest CTA. An FP8 K block holds
 * twice the K of a 16-bit one in the same bytes, at twice the tensor-core rate: the same cost per block. */
static const double kL2Fit = 30.0e6; /* bytes that stay L2-resident across the whole call */

static double main_loop_cost(double steps, int cluster, int bn, const wsgemm_problem *p)
{
    const double flops_kb = 2.0 * SM90_BM * bn * SM90_BK;
    const double t_mma = steps * flops_kb / 7.0e6 * (bn == 256 ? 1.0 : bn == 192 ? 1.05 : bn == 128 ? 1.1 : 1.35);
    const double operand_bytes = ((double)p->m + p->n) * p->k * wsgemm_dtype_size(p->Atype) * p->batch_count;
    const int resident = operand_bytes < kL2Fit;
    const double bytes_kb = (double)(SM90_BM + bn / cluster) * SM90_BK * 2.0; /* Q arrives half by multicast */
    const double t_cta = steps * bytes_kb / (resident ? 80.0e3 : 60.0e3);
    const double t_hbm = resident ? 0.0 : operand_bytes / 3.4e6;
    double cost = t_mma;
    if (t_cta > cost) cost = t_cta;
    if (t_hbm > cost) cost = t_hbm;
    return cost + 2.0; /* launch */
}

static double estimate_cost(long long units, int max_clusters, int cluster, int k_blocks, int splits, int bn,
                            const wsgemm_problem *p)
{
    const long long work = units * splits;
    const long long waves = (work + max_clusters - 1) / max_clusters;
    const int kb_per = (k_blocks + splits - 1) / splits;
    double cost = main_loop_cost((double)waves * kb_per, cluster, bn, p);
    if (splits > 1) {
        const double part = (double)splits * p->m * p->n * p->batch_count * 4.0 * 2.0; /* written, read back */
        cost += part / 2.0e6 + 5.0; /* the reduction kernel and its launch */
    }
    return cost;
}

/* The hybrid schedule (common/scheduler.cuh): units (tile units, cluster-wide) of which the first dp_units
 * run data-parallel with the whole K and the rest split into sk_splits units each. The clusters take the
 * units round robin, so with dp_units a multiple of the co-resident clusters the busiest CTA runs
 * dp_units / clusters whole tiles, then ceil(split units / clusters) splits of ceil(K blocks / splits). On top
 * of the main loop the split region pays, which the data-parallel units do not:
 *   per split wave  a pipeline fill (~1 us: the first TMA round trip and the wgmma ramp; a data-parallel
 *                   unit fills under the previous one's tail) and the partial tile's store at the tile end,
 *                   128 x BN fp32 from one SM at ~100 KB/us (64 B per clock at ~1.7 GHz);
 *   the reduction   the partial tiles read once, and C's tiles written (read too when beta != 0), at L2
 *                   speed (~5 TB/s) when the partials fit in L2 (they were just written), else HBM's 3.4,
 *                   plus the second launch and its tail (5 us, what plain split-K is charged).
 * Plain split-K pays all of C's partials through HBM (2 TB/s above: its partials are the whole C); the split
 * region's are a wave's worth of tiles at most, a few MB to a few tens of MB. */
static double estimate_hybrid_cost(long long units, int max_clusters, int cluster, int k_blocks, long long dp_units,
                                   int sk_splits, int bn, const wsgemm_problem *p)
{
    int kb_per = k_blocks;
    sk_splits = wsgemm_sched_clamp_splits(sk_splits, k_blocks, &kb_per);
    const long long sk_units = (units - dp_units) * sk_splits;
    const long long dp_waves = (dp_units + max_clusters - 1) / max_clusters;
    const long long sk_waves = (sk_units + max_clusters - 1) / max_clusters;
    double cost = main_loop_cost((double)dp_waves * k_blocks + (double)sk_waves * kb_per, cluster, bn, p);
    const double tile_bytes = (double)SM90_BM * bn * 4.0;
    cost += (double)sk_waves * (1.0 + tile_bytes / 100.0e3);
    const double part = (double)(units - dp_units) * cluster * sk_splits * tile_bytes;
    const double c_tiles = (double)(units - dp_units) * cluster * SM90_BM * bn * wsgemm_dtype_size(p->Ctype) *
                           (p->beta != 0.0f ? 2.0 : 1.0);
    cost += (part + c_tiles) / (part < kL2Fit ? 5.0e6 : 3.4e6) + 5.0;
    return cost;
}

/* The most K splits of a split-region tile the model considers: at least 4 K blocks per split (fewer leave
 * each unit mostly pipeline fill) and at most 16 (as for plain split-K). */
static int max_region_splits(int k_blocks)
{
    return k_blocks / 4 < 16 ? k_blocks / 4 : 16;
}

/* The hybrid's split region for `units` tile units on max_clusters clusters: the data-parallel part is the
 * full waves (or one wave fewer, so the split region holds a wave and a half instead of a nearly full last
 * wave), at least one wave of them, and each remaining tile is split in kMinRegionSplits..max_splits; the
 * cheapest by estimate_hybrid_cost. A forced count (WSGEMM_SM90_HYBRID = n >= 2) takes the full waves (none
 * too) and n splits. Returns the cost, *dp_units and *sk_splits (1: no ragged wave, nothing to split). The
 * limits are measured on the H200 (GPU time against cuBLAS; docs/perf-log.md, "The 128 x 192 tile, the
 * hybrid's limits and fp32 C: every target shape"): regions split 2 ways lost to the data-parallel grid, and
 * regions that are the whole grid lost to plain split-K, while 4 to 16 splits after whole waves won. */
enum { kMinRegionSplits = 4 };

static double choose_split_region(long long units, int max_clusters, int cluster, int k_blocks, int max_splits, int bn,
                                  const wsgemm_problem *p, const sm90_policy *pol, long long *dp_units, int *sk_splits)
{
    const long long full = units / max_clusters * max_clusters;
    double best = 0.0;
    *dp_units = units;
    *sk_splits = 1;
    if (full == units) return best;
    if (pol->hybrid >= 2) {
        int kb_per = k_blocks;
        const int forced = wsgemm_sched_clamp_splits(pol->hybrid, k_blocks, &kb_per);
        if (forced < 2) return best; /* one K block: nothing to split */
        *dp_units = full;
        *sk_splits = forced;
        return estimate_hybrid_cost(units, max_clusters, cluster, k_blocks, full, forced, bn, p);
    }
    for (long long dp = full; dp >= max_clusters && dp >= full - max_clusters; dp -= max_clusters)
        for (int sp = kMinRegionSplits; sp <= max_splits; ++sp) {
            const double cost = estimate_hybrid_cost(units, max_clusters, cluster, k_blocks, dp, sp, bn, p);
            if (*sk_splits == 1 || cost < best) {
                best = cost;
                *dp_units = dp;
                *sk_splits = sp;
            }
        }
    return best;
}

/* Split counts of kernel f over `units` cluster units by the cost model: from the fewest splits that keep
 * every accumulator chain within WSGEMM_MAX_CHAIN_BLOCKS to at most 16 (and K blocks / 4), or exactly
 * WSGEMM_SM90_SPLITK. A count is taken when there is no best yet (have_best 0) or it costs 5 % less than
 * *best_cost, which it then becomes. Returns the last count taken, 0 when none was. */
static int scan_splits(const wsgemm_problem *p, const sm90_policy *pol, const sm90_kernel_facts *f, long long units,
                       int k_blocks, int have_best, double *best_cost)
{
    int min_splits, max_splits;
    wsgemm_plan_split_range(k_blocks, pol->splitk, (double)p->m * p->n * p->batch_count * 4.0, &min_splits,
                            &max_splits);
    if (p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF) max_splits = min_splits; /* a count from K alone */
    int taken = 0;
    for (int sp = min_splits; sp <= max_splits; ++sp) {
        const double cost = estimate_cost(units, f->max_clusters, f->cluster, k_blocks, sp, f->bn, p);
        if (!have_best || cost < *best_cost * 0.95) {
            *best_cost = cost;
            have_best = 1;
            taken = sp;
        }
    }
    return taken;
}

/* ---------------------------------------------------------------- epilogue */

/* A TMA store clips the inner dimension only to whole 16-byte chunks: with m * c_bytes not a multiple of 16 it
 * writes rows m .. round_up(m, 16 / c_bytes) - 1 of every column into the ldc padding (seen on the H200:
 * docs/perf-log.md, "A TMA store writes whole 16-byte chunks"; the same behaviour is reported for Hopper TMA
 * stores in public issues; the matrix's case m = 17, ldc = 40 in tests/generic/gemm_matrix_test.c shows it).
 * Such C goes through the per-element epilogue. Batches with gaps between the matrices (strideC > ldc*n) also
 * stay on it until a GPU run has shown them right with the TMA store: every layout that takes it now passed
 * the matrix on the H200. Under batch invariance batched C always does (strideC == ldc * n would tie the
 * epilogue to n). */
static int c_takes_tma_store(const wsgemm_problem *p, int swap, int splits)
{
    const int c_bytes = wsgemm_dtype_size(p->Ctype);
    const int batch_ok = p->batch_count == 1 ||
                         (p->strideC == (long long)p->ldc * p->n && p->batch_invariance == WSGEMM_BATCH_INVARIANCE_OFF);
    return swap && splits == 1 && ((long long)p->m * c_bytes) % 16 == 0 &&
           wsgemm_tma_layout_ok(p->C, p->ldc, p->strideC, p->batch_count > 1, c_bytes) && batch_ok;
}

/* The TMA-store epilogue is the default (faster than direct stores on the H200: docs/perf-log.md, "sm90 kernel
 * configurations (tests/sm90/sm90_tune.c)"), deferred into the next tile's main loop where it can be: the
 * deferred stores keep the tile as 16-bit values in registers, so they need C of the input type (no fp32 or
 * mixed 16-bit C; so never in the FP8 kernels, whose registers hold two K blocks' sums instead) and beta == 0
 * (C is not read; alpha * acc rounds once, as at the tile end). */
static wsgemm_epilogue_kind choose_epilogue(const wsgemm_problem *p, const sm90_policy *pol, int swap, int splits)
{
    if (pol->epilogue == WSGEMM_EPILOGUE_PREF_DIRECT || !c_takes_tma_store(p, swap, splits))
        return WSGEMM_EPILOGUE_DIRECT;
    if (pol->epilogue == WSGEMM_EPILOGUE_PREF_AUTO && p->beta == 0.0f && p->Ctype == p->Atype &&
        wsgemm_dtype_size(p->Ctype) == 2)
        return WSGEMM_EPILOGUE_DEFERRED;
    return WSGEMM_EPILOGUE_TMA;
}

/* ---------------------------------------------------------------- the kernel table's rows */

/* The facts of row `row` of the kernel table (sm90_table.h; -1: none) for this plan's majorness pair, from the
 * query; f->exists 0 for no row. */
static wsgemm_status row_facts(sm90_kernel_query query, void *ctx, const wsgemm_plan *plan, int row, int variant,
                               sm90_kernel_facts *f)
{
    memset(f, 0, sizeof *f);
    wsgemm_status s = row < 0 ? WSGEMM_STATUS_SUCCESS : query(ctx, row, plan->p_mn, plan->q_mn, f);
    f->row = row;
    f->variant = variant;
    return s;
}

/* The facts of the row of (bn, variant) for this plan's operands, or of variant 0 where that variant has no row
 * (never for FUSED: only its rows run the fused ops). */
static wsgemm_status kernel_facts(sm90_kernel_query query, void *ctx, const wsgemm_plan *plan, int bn, int variant,
                                  sm90_kernel_facts *f)
{
    int row = sm90_kernel_find(plan->in, plan->scales, variant, bn, plan->p_mn, plan->q_mn);
    if (row < 0 && variant != 0 && variant != SM90_VARIANT_FUSED) {
        variant = 0;
        row = sm90_kernel_find(plan->in, plan->scales, 0, bn, plan->p_mn, plan->q_mn);
    }
    return row_facts(query, ctx, plan, row, variant, f);
}

/* The plan's kernel: the row's tile, ring, cluster and facts. */
static void take_kernel(wsgemm_plan *plan, const sm90_kernel_facts *f)
{
    plan->variant = f->variant;
    plan->bn = f->bn;
    plan->stages = f->stages;
    plan->cluster = f->cluster;
    plan->smem_bytes = f->smem_bytes;
    plan->max_clusters = f->max_clusters;
}

/* The tile-end TMA epilogue leaves the tensor cores idle while it reads C (beta != 0) with per-element loads
 * and stores the tile (docs/perf-log.md, "The deferred epilogue", measures that idle time on the H200).
 * Where a STAGED kernel fits, the plan takes it instead: C comes into smem by TMA during the main loop and
 * the stores run behind the next tile. Kernel variant 4 has a 16-bit C tile at BN 256, variant 5 an fp32 one
 * at BN 128 (fp32 C at BN 256 would need 128 KB of tile); so a BN 256 choice with fp32 C and beta != 0
 * becomes BN 128. With beta == 0 fp32 C keeps the plan's tile and its tile-end stores, which ran faster that
 * way than on the BN 128 staged kernel, while with beta != 0 the staged kernel wins, and so it does for
 * 16-bit C of another type with beta == 0 (measured on the H200, GPU time against cuBLAS: docs/perf-log.md,
 * "The 128 x 192 tile, the hybrid's limits and fp32 C: every target shape"). WSGEMM_SM90_EPILOGUE=staged
 * still asks for it. */
static wsgemm_status use_staged_kernel(wsgemm_plan *plan, const wsgemm_problem *p, const sm90_policy *pol,
                                       sm90_kernel_query query, void *query_ctx)
{
    const int wide = p->Ctype == WSGEMM_R_32F;
    const int bn = wide ? 128 : 256;
    if (plan->epilogue != WSGEMM_EPILOGUE_TMA || pol->epilogue == WSGEMM_EPILOGUE_PREF_TMA ||
        plan->variant != SM90_VARIANT_DEFAULT || plan->bn < bn ||
        (wide && p->beta == 0.0f && pol->epilogue == WSGEMM_EPILOGUE_PREF_AUTO))
        return WSGEMM_STATUS_SUCCESS;
    sm90_kernel_facts f = {0};
    const int variant = wide ? SM90_VARIANT_STAGED32 : SM90_VARIANT_STAGED16;
    wsgemm_status s =
        row_facts(query, query_ctx, plan, sm90_kernel_find(plan->in, plan->scales, variant, bn, plan->p_mn, plan->q_mn),
                  variant, &f);
    if (s != WSGEMM_STATUS_SUCCESS || !f.exists || f.max_clusters <= 0) return s;
    plan->epilogue = WSGEMM_EPILOGUE_STAGED;
    take_kernel(plan, &f);
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- types, operands, grid */

/* The kernels' input kind (sm90_tile.h) for P of type pt and Q of type qt; -1 for a pair no kernel takes. */
static int input_kind(wsgemm_dtype pt, wsgemm_dtype qt)
{
    if (pt == WSGEMM_R_16BF && qt == WSGEMM_R_16BF) return SM90_IN_BF16;
    if (pt == WSGEMM_R_16F && qt == WSGEMM_R_16F) return SM90_IN_F16;
    if (pt == WSGEMM_R_8F_E4M3 && qt == WSGEMM_R_8F_E4M3) return SM90_IN_E4M3;
    if (pt == WSGEMM_R_8F_E4M3 && qt == WSGEMM_R_8F_E5M2) return SM90_IN_E4M3_E5M2;
    if (pt == WSGEMM_R_8F_E5M2 && qt == WSGEMM_R_8F_E4M3) return SM90_IN_E5M2_E4M3;
    return -1;
}

/* A pair of input types some kernel takes (E5M2 x E5M2 and 16-bit with FP8 are none), operand scales only
 * with FP8 (the 16-bit kernels apply none), an E4M3 D only with the fused op (the FUSED kernels' tile-end TMA
 * stores are the ones that write it). NOT_SUPPORTED with the reason otherwise. */
static wsgemm_status check_types(const wsgemm_problem *p, const wsgemm_plan *plan, char *why, size_t why_size)
{
    if (plan->in < 0) {
        snprintf(why, why_size, "no sm90 kernel takes A of type %d with B of type %d", (int)p->Atype, (int)p->Btype);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (plan->in < SM90_IN_E4M3 && (p->a_scale || p->b_scale)) {
        snprintf(why, why_size, "the 16-bit kernels apply no operand scales");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (p->Ctype == WSGEMM_R_8F_E4M3 && p->fused == NULL) {
        snprintf(why, why_size, "an E4M3 D is written by the fused output op only");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (plan->scales != SM90_SCALES_TENSOR &&
        !sm90_plan_takes_scales(p->Atype, p->Btype, (int)p->a_scale_mode, (int)p->b_scale_mode)) {
        snprintf(why, why_size,
                 "the block-scaled sm90 kernels take E4M3 A and B with float scale tensors (VEC128_32F, "
                 "BLK128x128_32F, OUTER_VEC_32F); not a_scale_mode %s with b_scale_mode %s, A type %d, B type %d",
                 wsgemm_scale_mode_name((int)p->a_scale_mode), wsgemm_scale_mode_name((int)p->b_scale_mode),
                 (int)p->Atype, (int)p->Btype);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (plan->scales != SM90_SCALES_TENSOR && p->batch_count > 1) { /* wsgemm_matmul multiplies one matrix */
        snprintf(why, why_size, "scale tensors scale one matrix; batch_count = %d", p->batch_count);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    return WSGEMM_STATUS_SUCCESS;
}

int sm90_plan_takes_scales(wsgemm_dtype a, wsgemm_dtype b, int a_mode, int b_mode)
{
    if (!wsgemm_scale_mode_is_tensor(a_mode) && !wsgemm_scale_mode_is_tensor(b_mode)) return 1;
    return a == WSGEMM_R_8F_E4M3 && b == WSGEMM_R_8F_E4M3 && a_mode != WSGEMM_MATMUL_SCALE_VEC32_UE8M0 &&
           b_mode != WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
}

const wsgemm_operand *sm90_plan_p(const wsgemm_plan *plan)
{
    return plan->swap ? &plan->b : &plan->a;
}

const wsgemm_operand *sm90_plan_q(const wsgemm_plan *plan)
{
    return plan->swap ? &plan->a : &plan->b;
}

/* Tiles, schedule and grid of the plan's kernel (bn, cluster, max_clusters set); with sk_splits > 1 the
 * hybrid, tile units from dp_units on split sk_splits ways. */
static void set_grid(wsgemm_plan *plan, int group, int splits, int nb, int k_blocks, long long dp_units, int sk_splits)
{
    plan->tiles_p = (int)((plan->p_extent + SM90_BM - 1) / SM90_BM);
    plan->tiles_q = (int)((plan->q_extent + plan->bn - 1) / plan->bn);
    plan->sched = wsgemm_sched_make(plan->tiles_p, plan->tiles_q, plan->cluster, group, splits, nb, k_blocks);
    if (sk_splits > 1) wsgemm_sched_split_tail(&plan->sched, dp_units, sk_splits);
    plan->splits = plan->sched.splits;
    plan->grid_clusters = plan->sched.units < plan->max_clusters ? plan->sched.units : plan->max_clusters;
}

/* ---------------------------------------------------------------- the steps of a plan */

/* A fused call: wsgemm_matmul's ops run in the FUSED rows only (variant 7: BN 256 and 128, 2-CTA cluster): one
 * unsplit accumulator chain per element (no split K, no hybrid, so no reduction kernel applies the output
 * op), DEFERRED or TMA stores (the knobs' DIRECT and STAGED preferences do not apply: policy_of), and the
 * swapped orientation (Q along D's rows, so each tile's bias is one contiguous run). beta != 0, an aux not of
 * D's type or not in 16-byte aligned columns, a K past the longest chain the plain kernels accept, and a D
 * that TMA cannot store (finish_kernel) are declined. */
static wsgemm_status check_fused(const wsgemm_problem *p, char *why, size_t why_size)
{
    if (p->batch_invariance == WSGEMM_BATCH_INVARIANCE_ON) {
        snprintf(why, why_size,
                 "the fused epilogue runs swapped, m along its tile width: batch invariance ON (rows invariant "
                 "in m) does not allow it");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (p->beta != 0.0f) {
        snprintf(why, why_size, "the fused epilogue reads no C: beta = %g is not 0", (double)p->beta);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    const int aux_bytes = wsgemm_dtype_size(p->Ctype);
    if (p->fused->ops.aux && (p->fused->aux_type != (int)p->Ctype || (uintptr_t)p->fused->aux % 16 != 0 ||
                              (p->fused->ldaux * aux_bytes) % 16 != 0)) {
        snprintf(why, why_size,
                 "the fused epilogue stores aux as D's type in 16-byte aligned columns: aux type "
                 "%d, address %% 16 = %d, ldaux * %d bytes %% 16 = %d",
                 p->fused->aux_type, (int)((uintptr_t)p->fused->aux % 16), aux_bytes,
                 (int)((p->fused->ldaux * aux_bytes) % 16));
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    const int bk = SM90_BK_OF(input_kind(p->Btype, p->Atype)); /* fused plans are swapped: P is B */
    if ((p->k - 1) / bk + 1 > WSGEMM_MAX_CHAIN_BLOCKS) {
        snprintf(why, why_size, "the fused epilogue needs one accumulator chain; k = %d is above %d", p->k,
                 WSGEMM_MAX_CHAIN_BLOCKS * bk);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* The kernels' operand scaling (sm90_tile.h): per tensor; or scale tensors, with Q's per column (VEC128_32F on
 * the operand that is Q) or not. */
static int scales_kind(const wsgemm_problem *p, int swap)
{
    if (!wsgemm_scale_mode_is_tensor((int)p->a_scale_mode) && !wsgemm_scale_mode_is_tensor((int)p->b_scale_mode))
        return SM90_SCALES_TENSOR;
    const wsgemm_matmul_scale_mode q_mode = swap ? p->a_scale_mode : p->b_scale_mode;
    return q_mode == WSGEMM_MATMUL_SCALE_VEC128_32F ? SM90_SCALES_BLOCK_COLS : SM90_SCALES_BLOCK;
}

/* Orientation, operands and input kind. A fused call is always swapped: its bias runs along q, its aux rows
 * are D's rows. Under batch invariance the varying dimension is P (the header says why). */
static wsgemm_plan orient(const wsgemm_problem *p, const sm90_policy *pol)
{
    const int nb = p->batch_count;
    const int small = p->m < p->n ? p->m : p->n;
    const int invariant = p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF;
    const int one_row_view = !invariant;
    const int swap = invariant      ? p->batch_invariance == WSGEMM_BATCH_INVARIANCE_ON_N /* the varying side on P */
                     : p->fused     ? 1
                     : small <= 256 ? p->m <= p->n /* the small side on Q */
                                    : pol->swap != 0;
    wsgemm_plan plan = {
        .swap = swap,
        .p_extent = swap ? p->n : p->m,
        .q_extent = swap ? p->m : p->n,
        .a = wsgemm_operand_describe(p->A, p->lda, p->strideA, p->transa == WSGEMM_OP_T, p->m, p->k, nb, one_row_view),
        .b = wsgemm_operand_describe(p->B, p->ldb, p->strideB, p->transb == WSGEMM_OP_N, p->n, p->k, nb, one_row_view),
        .schedule = WSGEMM_SCHEDULE_COOPERATIVE,
        .bm = SM90_BM,
        .ab_type = p->Atype,
        .in = swap ? input_kind(p->Btype, p->Atype) : input_kind(p->Atype, p->Btype),
        .scales = scales_kind(p, swap),
    };
    const int fp8 = plan.in >= SM90_IN_E4M3;
    /* the FP8 kernels read K-major operands only: an MN-major FP8 operand runs from its K-major copy (staging) */
    plan.p_mn = !fp8 && !sm90_plan_p(&plan)->k_major;
    plan.q_mn = !fp8 && !sm90_plan_q(&plan)->k_major;
    return plan;
}

/* The tile widths worth trying, widest first: the narrowest that covers a skinny Q side, else all of them
 * (narrow tiles fill the SMs when the problem is small); the fused rows are 256 and 128 wide. BN 192 (three
 * tiles where BN 256 has two and a half wave's worth of idle clusters: 3072^3 is 2.18 waves of 128 x 256 tiles
 * and 2.91 of 128 x 192) has the default variant only and so is offered where that kernel's epilogue is the
 * one the plan would keep: beta == 0 (DEFERRED for C of the input type, else the tile-end stores; a staged C
 * tile, which beta != 0 needs, is 256 or 128 wide). Under batch invariance one width: 64 for a plain Q side
 * of at most 64, else 128 (both ends of the varying side's range run well on it). Returns the count. */
static int tile_candidates(const wsgemm_problem *p, const sm90_policy *pol, const wsgemm_plan *plan, int bn[4])
{
    const int narrow = p->fused == NULL;
    const int offer_192 = narrow && pol->variant == SM90_VARIANT_DEFAULT && p->beta == 0.0f;
    int n = 0;
    if (plan->in >= SM90_IN_E4M3)
        bn[n++] = 128; /* the FP8 rows' one width (sm90_kernels.def) */
    else if (pol->bn)
        bn[n++] = pol->bn;
    else if (p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF) /* one width from Q, the fixed side */
        bn[n++] = plan->q_extent <= 64 && narrow ? 64 : 128;
    else if (plan->q_extent <= 64 && narrow)
        bn[n++] = 64;
    else if (plan->q_extent <= 128) {
        bn[n++] = 128;
        if (narrow) bn[n++] = 64;
    } else {
        bn[n++] = 256;
        if (offer_192) bn[n++] = 192;
        bn[n++] = 128;
        if (narrow) bn[n++] = 64;
    }
    return n;
}

/* The split region may be chosen (not with forced split-K, not on the FP8 rows), or is forced. */
static int hybrid_allowed(const sm90_policy *pol, const wsgemm_plan *plan)
{
    return pol->hybrid != 0 && pol->splitk == 0 && plan->in < SM90_IN_E4M3;
}

static int hybrid_forced(const sm90_policy *pol, const wsgemm_plan *plan)
{
    return hybrid_allowed(pol, plan) && pol->hybrid >= 2;
}

/* What the cost model makes of the candidates: the plain choice (kernel and splits) and the cheapest hybrid
 * (kernel and split region). */
typedef struct sm90_choice {
    sm90_kernel_facts plain;
    int splits;
    double cost;
    sm90_kernel_facts hybrid; /* exists 0: none */
    long long hybrid_dp;
    int hybrid_splits;
    double hybrid_cost;
} sm90_choice;

/* (BN, splits) by the cost model, each later candidate taken only when 5 % cheaper (the wider tile wins a near
 * tie); beside them the cheapest hybrid (BN and split region), where K needs no split of its own (no forced
 * split-K, no long chain) and it is allowed. */
static wsgemm_status choose_tile(const wsgemm_problem *p, const sm90_policy *pol, const wsgemm_plan *plan,
                                 const int *bn_candidates, int n_candidates, int k_blocks, sm90_kernel_query query,
                                 void *query_ctx, sm90_choice *c, char *why, size_t why_size)
{
    memset(c, 0, sizeof *c);
    c->splits = 1;
    c->hybrid_splits = 1;
    const int nb = p->batch_count;
    const char *unbuilt = NULL;
    for (int i = 0; i < n_candidates; ++i) {
        const int bn = bn_candidates[i];
        sm90_kernel_facts f = {0};
        wsgemm_status s = kernel_facts(query, query_ctx, plan, bn, pol->variant, &f);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
        if (!f.exists && f.row >= 0 && !sm90_kernel_table[f.row].built) {
            unbuilt = sm90_kernel_table[f.row].name; /* a knob's row this build left out: the other widths */
            continue;
        }
        if (!f.exists) {
            snprintf(why, why_size, "no sm90 kernel instantiated for BN %d", bn);
            return WSGEMM_STATUS_NOT_SUPPORTED;
        }
        const long long tiles_p = (plan->p_extent + SM90_BM - 1) / SM90_BM;
        const long long tiles_q = (plan->q_extent + bn - 1) / bn;
        s = wsgemm_plan_check_tiles(tiles_p, tiles_q, SM90_BM, bn, why, why_size);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
        const long long units = (tiles_p + f.cluster - 1) / f.cluster * tiles_q * nb;
        const int sp = scan_splits(p, pol, &f, units, k_blocks, c->plain.exists, &c->cost);
        if (sp) {
            c->plain = f;
            c->splits = sp;
        }
        const int min_splits = pol->splitk > 0 ? pol->splitk : (k_blocks - 1) / WSGEMM_MAX_CHAIN_BLOCKS + 1;
        if (hybrid_allowed(pol, plan) && min_splits == 1) {
            long long dp = 0;
            int sk = 1;
            const double cost = choose_split_region(units, f.max_clusters, f.cluster, k_blocks,
                                                    max_region_splits(k_blocks), bn, p, pol, &dp, &sk);
            if (sk > 1 && (!c->hybrid.exists || cost < c->hybrid_cost * 0.95)) {
                c->hybrid_cost = cost;
                c->hybrid = f;
                c->hybrid_dp = dp;
                c->hybrid_splits = sk;
            }
        }
    }
    if (!c->plain.exists && unbuilt != NULL) {
        snprintf(why, why_size,
                 "the sm90 kernel %s (asked for by a tuning knob) is built only with the CMake option "
                 "WSGEMM_SM90_KNOB_ROWS=ON",
                 unbuilt);
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* The kernel and split count: the hybrid where it is 5 % cheaper than the plain choice, or forced (*hybrid 1),
 * else the plain choice. Then decode shapes whose small side fits one 64-wide Q tile: a 4-CTA cluster reads
 * that tile from L2 once per four P tiles instead of once per two, with its own split count. Measured on the
 * H200 (sm90_tune, bf16, against cuBLAS): faster than the 2-CTA cluster at m = 16 and 64 with n = k = 8192,
 * unsplit (per-call timing), and at m = 1, n = 4096, k = 14336 in 2 splits against the 2-CTA cluster's 3 or 4
 * (GPU time); at m = 128 (two Q tiles) and 256 slower or no better, so only here (docs/perf-log.md, "Decode
 * shapes: 4-CTA clusters" and "The hybrid schedule and the 4-CTA decode split"). A 4-CTA kernel the device
 * cannot run keeps the 2-CTA choice (and so does batch invariance: P's extent varies). It takes the place of
 * a hybrid the model chose (with one Q tile that is every tile split, the plain split of the 2-CTA cluster). */
static void pick_kernel(const wsgemm_problem *p, const sm90_policy *pol, const wsgemm_plan *plan, const sm90_choice *c,
                        int k_blocks, sm90_kernel_query query, void *query_ctx, sm90_kernel_facts *kernel, int *splits,
                        int *hybrid)
{
    *hybrid =
        hybrid_allowed(pol, plan) && c->hybrid.exists && (hybrid_forced(pol, plan) || c->hybrid_cost < c->cost * 0.95);
    *kernel = *hybrid ? c->hybrid : c->plain;
    *splits = *hybrid ? 1 : c->splits;
    if (pol->variant == SM90_VARIANT_DEFAULT && kernel->bn == 64 && !hybrid_forced(pol, plan) && plan->q_extent <= 64 &&
        plan->p_extent >= 4 * SM90_BM && p->batch_invariance == WSGEMM_BATCH_INVARIANCE_OFF) {
        sm90_kernel_facts f4;
        const int row = sm90_kernel_find(plan->in, plan->scales, SM90_VARIANT_CLUSTER4, 64, plan->p_mn, plan->q_mn);
        if (row_facts(query, query_ctx, plan, row, SM90_VARIANT_CLUSTER4, &f4) == WSGEMM_STATUS_SUCCESS && f4.exists &&
            f4.max_clusters > 0) {
            const long long units4 = (plan->p_extent + 4 * SM90_BM - 1) / (4 * SM90_BM) * p->batch_count;
            double cost4 = 0.0;
            *kernel = f4;
            *splits = scan_splits(p, pol, &f4, units4, k_blocks, 0, &cost4);
            *hybrid = 0; /* its own plain split: one Q tile leaves no ragged wave worth a split region */
        }
    }
}

/* The plan of one kernel choice: its grid, the epilogue, the schedule of its row, and the staged C tile's row
 * where the epilogue wants it (which may change the tile: use_staged_kernel). */
static wsgemm_status finish_kernel(wsgemm_plan *plan, const wsgemm_problem *p, const sm90_policy *pol,
                                   const sm90_kernel_facts *kernel, int splits, int k_blocks, sm90_kernel_query query,
                                   void *query_ctx, char *why, size_t why_size)
{
    const int nb = p->batch_count;
    take_kernel(plan, kernel);
    set_grid(plan, pol->group, splits, nb, k_blocks, 0, 1);
    plan->epilogue = choose_epilogue(p, pol, plan->swap, plan->splits);
    if (p->fused && plan->epilogue == WSGEMM_EPILOGUE_DIRECT) {
        snprintf(why, why_size,
                 "the fused epilogue stores D by TMA: m * %d bytes, ldd * %d bytes and D's address "
                 "must be multiples of 16",
                 wsgemm_dtype_size(p->Ctype), wsgemm_dtype_size(p->Ctype));
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    if (sm90_kernel_table[kernel->row].schedule == SM90_SCHED_PINGPONG) {
        /* each warpgroup's tile-end epilogue already runs under the other's main loop */
        plan->schedule = WSGEMM_SCHEDULE_PINGPONG;
        if (plan->epilogue == WSGEMM_EPILOGUE_DEFERRED) plan->epilogue = WSGEMM_EPILOGUE_TMA;
    }
    wsgemm_status s = use_staged_kernel(plan, p, pol, query, query_ctx);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (plan->epilogue == WSGEMM_EPILOGUE_STAGED) set_grid(plan, pol->group, plan->splits, nb, k_blocks, 0, 1);
    return WSGEMM_STATUS_SUCCESS;
}

/* The split region of the hybrid `chosen` for the finished plan: the one chosen beside it, or, when the staged
 * C tile's row is another kernel (fp32 C: BN 128), chosen again for that one and kept only while it beats that
 * kernel's data-parallel grid (or is forced). Returns its split count, 1 when no split region survives. */
static int hybrid_region(const wsgemm_plan *plan, const wsgemm_problem *p, const sm90_policy *pol,
                         const sm90_kernel_facts *chosen, const sm90_choice *c, int k_blocks, long long *dp)
{
    const long long units = plan->sched.units;
    int sk = c->hybrid_splits;
    *dp = c->hybrid_dp;
    if (plan->bn != chosen->bn || plan->cluster != chosen->cluster || plan->max_clusters != chosen->max_clusters) {
        const double cost = choose_split_region(units, plan->max_clusters, plan->cluster, k_blocks,
                                                max_region_splits(k_blocks), plan->bn, p, pol, dp, &sk);
        const double dp_cost = estimate_cost(units, plan->max_clusters, plan->cluster, k_blocks, 1, plan->bn, p);
        if (!(cost < dp_cost * 0.95 || hybrid_forced(pol, plan))) sk = 1;
    }
    return sk;
}

/* ---------------------------------------------------------------- the plan */

/* The steps in order, each deciding once: the fused call's declines, the policy, orientation and types, the
 * candidate widths, the cost model's choice, the kernel, its plan (grid, epilogue, staged C tile), the split
 * region, the workspace. A hybrid whose split region does not survive its kernel's plan leaves the plan of
 * the same policy with the hybrid off, made from the same choice. */
wsgemm_status sm90_plan_make(const wsgemm_problem *p, const wsgemm_knobs *knobs, sm90_kernel_query query,
                             void *query_ctx, wsgemm_plan *plan, char *why, size_t why_size)
{
    wsgemm_status s = p->fused ? check_fused(p, why, why_size) : WSGEMM_STATUS_SUCCESS;
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    const sm90_policy pol = policy_of(p, knobs);
    *plan = orient(p, &pol);
    s = check_types(p, plan, why, why_size);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    plan->bk = SM90_BK_OF(plan->in);
    const int k_blocks = (p->k - 1) / plan->bk + 1; /* k > 0; k + bk - 1 could overflow */

    int bn_candidates[4];
    const int n_candidates = tile_candidates(p, &pol, plan, bn_candidates);
    sm90_choice choice;
    s = choose_tile(p, &pol, plan, bn_candidates, n_candidates, k_blocks, query, query_ctx, &choice, why, why_size);
    if (s != WSGEMM_STATUS_SUCCESS) return s;

    const wsgemm_plan oriented = *plan;
    sm90_kernel_facts kernel;
    int splits, hybrid;
    pick_kernel(p, &pol, plan, &choice, k_blocks, query, query_ctx, &kernel, &splits, &hybrid);
    s = finish_kernel(plan, p, &pol, &kernel, splits, k_blocks, query, query_ctx, why, why_size);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (hybrid) {
        long long dp = 0;
        const int sk = hybrid_region(plan, p, &pol, &kernel, &choice, k_blocks, &dp);
        if (sk >= 2)
            set_grid(plan, pol.group, 1, p->batch_count, k_blocks, dp, sk);
        else {
            sm90_policy off = pol;
            off.hybrid = 0;
            *plan = oriented;
            pick_kernel(p, &off, plan, &choice, k_blocks, query, query_ctx, &kernel, &splits, &hybrid);
            s = finish_kernel(plan, p, &off, &kernel, splits, k_blocks, query, query_ctx, why, why_size);
            if (s != WSGEMM_STATUS_SUCCESS) return s;
        }
    }

    /* workspace: staged operands (FP8: K-major copies of MN-major ones too), then the split partials */
    return wsgemm_plan_lay_out_workspace(plan, p, 1, why, why_size);
}
