// SPDX-License-Identifier: MIT
/*
 * sm90_plan_test.c - CPU checks of the sm90 planner (gemm/sm90/sm90_plan.c) against a model of the H200:
 * the kernel table (sm90_kernels.def: which (BN, variant, majorness, type) exist, their stages and cluster)
 * and 132 / cluster co-resident clusters.
 *
 *   choices  representative shapes and what the plan must choose: the decode shapes whose small side fits
 *            one 64-wide tile get the 4-CTA cluster, a one-row operand with ld 1 is read in place, big
 *            squares take BN 256 with the deferred epilogue, beta != 0 and fp32 C the staged C tile (never
 *            the deferred one; the tile-end stores with WSGEMM_SM90_EPILOGUE=tma),
 *            forced split-K sizes its partials, 4099^3 stages both operands, the pingpong kernel when asked for;
 *            BN 192 at 3072^3 with beta 0 (2.9 waves of its tiles against 2.2 of BN 256's), the hybrid there
 *            with beta 1 (132 data-parallel cluster units with the staged C tile, 12 split 5 ways), none with it off
 *            or split-K forced, forced where asked, none on the big squares, 2048^3, 1000^3 and m = 128, 256 decode
 *            (full waves, or no gain in the model).
 *   sweep    on 24276 problem x knob combinations (shapes 1..8192, K 1..14336, ops, types, beta, batch,
 *            padded, shared and misaligned operands, variant/BN/split/epilogue/hybrid knobs, two device sizes):
 *            the workspace holds the staged copies and the partials without overlap, 256-byte aligned, and is
 *            exactly what the launcher reserves (workspace_bytes); partials are splits x m x n x batch fp32, or
 *            the hybrid's split region's slots x splits x 128 x BN fp32; a split region only on an unsplit
 *            schedule, never with forced split-K, after whole waves of data-parallel tiles, of at most the
 *            last wave and a half; every plan without a split region is exactly the plan with the hybrid off
 *            (the hybrid changes nothing where it is not taken);
 *            the grid never exceeds the units or the co-resident clusters; deferred stores only with beta 0
 *            and C of the input type; split-K only with per-element stores; the staged epilogue only on its
 *            kernels (BN 256 for 16-bit C, BN 128 for fp32 C); the pingpong schedule only on its kernel (BN 128)
 *            with tile-end stores; the schedule always of the plan's tile.
 *   fused    wsgemm_matmul calls with an epilogue (problem.fused set) on the sweep's problems and knob sets:
 *            always the FUSED kernels (variant 7, BN 256 or 128, cooperative, swapped), never a split (K or
 *            hybrid), DEFERRED or TMA stores, the same invariants; declined only for a forced BN 64, beta != 0,
 *            a D that TMA cannot store, and a K longer than one accumulator chain (262144).
 *   fp8      FP8 A and B (every pair, E5M2 x E5M2 too), every op pair, aligned and unaligned leading
 *            dimensions and bases, batch, plain and fused, every knob set: planned exactly when the pair is one
 *            wgmma takes and (fused) the fused rules hold; an operand is copied (K-major, ld = k rounded up to
 *            16) exactly when it is not K-major (a one-row operand read as a K-major row aside) or not 16-byte
 *            aligned as TMA reads it; then on the FP8 kernels (BN 128,
 *            the input pair as P x Q, 128 K per block), no split region, tile-end stores (TMA or per element); and
 *            16-bit problems with operand scales are declined.
 *   block_scales  wsgemm_matmul's scale tensors: the block-scaled rows for E4M3 A and B with float scale
 *            tensors (BLOCK_COLS exactly where Q's operand has VEC128_32F), declined otherwise; the kernels'
 *            scale strides against wsgemm_scale_index.
 * Prints what it checked; exits 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scale.h"
#include "common/tma.h"
#include "sm90/sm90_plan.h"
#include "sm90/sm90_table.h"
#include "sm90/sm90_tile.h"
#include "plan_testing.h"
#include "testing.h"

static int failures;
static long long checked;

#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* ---------------------------------------------------------------- the device model */

typedef struct model {
    int sm_count;
} model;

/* The kernel table as the build instantiates it (sm90_kernels.def, as C data in sm90_table.c): each row with the
 * majorness pairs it lists, its ring's shared memory, and sm_count / cluster co-resident clusters. */
static wsgemm_status model_query(void *ctx, int row, int p_mn, int q_mn, sm90_kernel_facts *f)
{
    const model *m = ctx;
    memset(f, 0, sizeof *f);
    if (row < 0 || row >= SM90_KERNEL_ROWS || !sm90_kernel_has_pair(&sm90_kernel_table[row], p_mn, q_mn))
        return WSGEMM_STATUS_SUCCESS;
    const sm90_kernel_config *k = &sm90_kernel_table[row];
    *f = (sm90_kernel_facts){.exists = 1, .bn = k->bn, .stages = k->stages, .cluster = k->cluster};
    f->smem_bytes = (SM90_BM + k->bn) * SM90_BK * 2 * f->stages + 32768 + 1024;
    f->max_clusters = m->sm_count / f->cluster;
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- problems */

static wsgemm_plan plan_of(const wsgemm_problem *p, const wsgemm_knobs *kn, model *md)
{
    wsgemm_plan plan;
    char why[256] = "", shape[256];
    const wsgemm_status s = sm90_plan_make(p, kn, model_query, md, &plan, why, sizeof why);
    plan_testing_describe(p, shape, sizeof shape);
    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: declined: %s", shape, why);
    checked++;
    return plan;
}

/* An FP8 operand's staged copy, if any: 256-byte aligned, K-major, rows of k rounded up to 16 bytes. */
static int fp8_staged_ok(const wsgemm_operand *o, int k)
{
    return !o->staged || (o->stage_offset % 256 == 0 &&
                          o->stage_bytes == (size_t)((k + 15) / 16 * 16) * (size_t)o->rows_dim * (size_t)o->nb);
}

/* What every plan must hold, whatever it chose. */
static void check_invariants(const wsgemm_problem *p, const wsgemm_plan *plan)
{
    char shape[256];
    plan_testing_describe(p, shape, sizeof shape);
    const wsgemm_sched *sc = &plan->sched;
    const int region = sc->sk_splits > 1;
    const size_t want_partials =
        plan->splits > 1 ? (size_t)plan->splits * (size_t)p->m * (size_t)p->n * (size_t)p->batch_count * 4u
        : region         ? (size_t)wsgemm_sched_sk_slots(sc) * (size_t)sc->sk_splits * SM90_BM * (size_t)plan->bn * 4u
                         : 0;
    EXPECT(plan->partials_bytes == want_partials && plan->partials_offset % 256 == 0,
           "%s: %d splits, partials %zu bytes at %zu (want %zu)", shape, plan->splits, plan->partials_bytes,
           plan->partials_offset, want_partials);
    const int fp8_in = plan->in >= SM90_IN_E4M3; /* FP8 copies: K-major, ld = k rounded up to 16 bytes */
    EXPECT(fp8_in ? fp8_staged_ok(&plan->a, p->k) && fp8_staged_ok(&plan->b, p->k)
                  : plan_testing_staged_ok(&plan->a) && plan_testing_staged_ok(&plan->b),
           "%s: staged copies misplaced or mis-sized", shape);
    /* A, B and the partials do not overlap and the workspace covers them all */
    const size_t a_end = plan->a.staged ? plan->a.stage_offset + plan->a.stage_bytes : 0;
    const size_t b_end = plan->b.staged ? plan->b.stage_offset + plan->b.stage_bytes : 0;
    EXPECT(!plan->a.staged || !plan->b.staged || plan->b.stage_offset >= a_end, "%s: staged A and B overlap", shape);
    EXPECT(plan->partials_offset >= a_end && plan->partials_offset >= b_end, "%s: partials overlap a copy", shape);
    EXPECT(plan->workspace_bytes == plan->partials_offset + plan->partials_bytes &&
               (plan->workspace_bytes == 0) == (!plan->a.staged && !plan->b.staged && plan->splits == 1 && !region),
           "%s: workspace %zu bytes, partials end at %zu", shape, plan->workspace_bytes,
           plan->partials_offset + plan->partials_bytes);
    EXPECT(plan->sched.units >= 1 && plan->grid_clusters >= 1 && plan->grid_clusters <= plan->max_clusters &&
               plan->grid_clusters <= plan->sched.units,
           "%s: %lld clusters for %lld units, %d fit", shape, plan->grid_clusters, plan->sched.units,
           plan->max_clusters);
    const int fp8 = p->Atype == WSGEMM_R_8F_E4M3 || p->Atype == WSGEMM_R_8F_E5M2;
    EXPECT(plan->epilogue != WSGEMM_EPILOGUE_DEFERRED || (p->beta == 0.0f && !fp8 && p->Ctype == p->Atype),
           "%s: deferred epilogue with beta %g or C of another type", shape, (double)p->beta);
    EXPECT(plan->splits == 1 || plan->epilogue == WSGEMM_EPILOGUE_DIRECT, "%s: split-K with a TMA-store epilogue",
           shape);
    EXPECT(plan->epilogue != WSGEMM_EPILOGUE_STAGED ||
               (plan->swap && (p->Ctype == WSGEMM_R_32F ? plan->bn == 128 && plan->variant == 5
                                                        : plan->bn == 256 && plan->variant == 4)),
           "%s: the staged epilogue on bn %d variant %d", shape, plan->bn, plan->variant);
    EXPECT(
        (plan->schedule == WSGEMM_SCHEDULE_PINGPONG) == (plan->variant == SM90_VARIANT_PINGPONG) &&
            (plan->schedule != WSGEMM_SCHEDULE_PINGPONG ||
             (plan->bn == 128 && (plan->epilogue == WSGEMM_EPILOGUE_TMA || plan->epilogue == WSGEMM_EPILOGUE_DIRECT))),
        "%s: schedule %d on variant %d bn %d epilogue %s", shape, (int)plan->schedule, plan->variant, plan->bn,
        wsgemm_epilogue_name(plan->epilogue));
    /* the hybrid: only on an unsplit schedule, its data-parallel part whole waves of the grid, its split region
     * the ragged wave (and at most one wave before it), every split region tile split the same way */
    const long long tiles = (long long)sc->row_groups * sc->cols * sc->batch;
    EXPECT(!region || (plan->splits == 1 && sc->sk_first % plan->max_clusters == 0 && sc->sk_first < tiles &&
                       tiles - sc->sk_first < 2LL * plan->max_clusters &&
                       sc->units == sc->sk_first + (tiles - sc->sk_first) * sc->sk_splits &&
                       sc->sk_kb_per_split * (sc->sk_splits - 1) < sc->k_blocks),
           "%s: split region from tile unit %lld of %lld, %d splits of %d K blocks (%d), %d clusters", shape,
           sc->sk_first, tiles, sc->sk_splits, sc->sk_kb_per_split, sc->k_blocks, plan->max_clusters);
    EXPECT(region || (sc->sk_first == sc->units && sc->sk_splits == 1), "%s: a half-made split region", shape);
    EXPECT(plan->tiles_q == (int)((plan->q_extent + plan->bn - 1) / plan->bn) && plan->sched.cols == plan->tiles_q &&
               plan->sched.cluster_rows == plan->cluster,
           "%s: the schedule is not of the plan's tile (%d cols for %d tiles)", shape, plan->sched.cols, plan->tiles_q);
}

/* Representative shapes and what the plan must choose for them. */
static void case_choices(void)
{
    model h200 = {132};
    const wsgemm_knobs kn = wsgemm_knobs_defaults();
    const wsgemm_op N = WSGEMM_OP_N, T = WSGEMM_OP_T;
    const wsgemm_dtype BF = WSGEMM_R_16BF, F32 = WSGEMM_R_32F;

    /* decode: a small side that fits one 64-wide Q tile gets the 4-CTA cluster; two Q tiles (m = 128) keep 2 */
    const int ms[] = {1, 16, 64, 128, 256};
    for (int i = 0; i < 5; ++i) {
        wsgemm_problem p = plan_testing_problem(N, N, ms[i], 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
        wsgemm_plan plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        const int want = ms[i] <= 64 ? 4 : 2;
        EXPECT(plan.cluster == want && plan.swap == 1 && plan.q_extent == ms[i],
               "m=%d n=k=8192: cluster %d swap %d (want cluster %d, the small side on Q)", ms[i], plan.cluster,
               plan.swap, want);
        EXPECT(ms[i] > 64 || (plan.bn == 64 && plan.variant == 3 && plan.splits == 1),
               "m=%d: bn %d variant %d splits %d", ms[i], plan.bn, plan.variant, plan.splits);
        /* the mirror (small n) with m = 4096, k = 14336: 32 P tiles are 8 units of the 4-CTA cluster (16 of the
         * 2-CTA one), so the cost model splits K to fill the SMs (plain split-K, or the hybrid with every tile in
         * its split region); one 64-wide Q tile keeps the 4-CTA cluster */
        p = plan_testing_problem(N, T, 4096, ms[i], 14336, 1, BF, BF, 0.0f, 0, 0);
        plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        const int split = plan.splits > 1 || (plan.sched.sk_splits > 1 && plan.sched.sk_first == 0);
        EXPECT(plan.swap == 0 && plan.q_extent == ms[i] && split && plan.cluster == want,
               "n=%d m=4096 k=14336: swap %d splits %d split region from %lld of %d splits, cluster %d (want %d)",
               ms[i], plan.swap, plan.splits, plan.sched.sk_first, plan.sched.sk_splits, plan.cluster, want);
    }
    /* m = 1 with lda = 1 (op N): a K-major row, no staging copy */
    wsgemm_problem p = plan_testing_problem(N, N, 1, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    wsgemm_plan plan = plan_of(&p, &kn, &h200);
    EXPECT(!plan.a.staged && plan.a.k_major && plan.workspace_bytes == 0, "m=1: A staged %d k_major %d ws %zu",
           plan.a.staged, plan.a.k_major, plan.workspace_bytes);

    /* big squares: swapped, BN 256, 2-CTA cluster, no split, deferred stores */
    p = plan_testing_problem(N, N, 8192, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    EXPECT(plan.swap && plan.bn == 256 && plan.cluster == 2 && plan.splits == 1 &&
               plan.epilogue == WSGEMM_EPILOGUE_DEFERRED && plan.workspace_bytes == 0,
           "8192^3: swap %d bn %d cluster %d splits %d epilogue %s ws %zu", plan.swap, plan.bn, plan.cluster,
           plan.splits, wsgemm_epilogue_name(plan.epilogue), plan.workspace_bytes);
    /* beta != 0 and fp32 C never take the deferred epilogue (C would have to be read, or is not 16-bit): they
     * take the staged C tile (BN 256, variant 4; fp32 C: BN 128, variant 5), or with WSGEMM_SM90_EPILOGUE=tma
     * the tile-end stores */
    wsgemm_knobs tma = kn;
    tma.sm90_epilogue = WSGEMM_EPILOGUE_PREF_TMA;
    const float betas[] = {1.0f, -0.5f};
    for (int i = 0; i < 2; ++i) {
        p = plan_testing_problem(N, N, 4096, 4096, 4096, 1, BF, BF, betas[i], 0, 0);
        plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        EXPECT(plan.epilogue == WSGEMM_EPILOGUE_STAGED && plan.bn == 256 && plan.variant == 4 && plan.stages == 3,
               "beta %g: epilogue %s bn %d variant %d", (double)betas[i], wsgemm_epilogue_name(plan.epilogue), plan.bn,
               plan.variant);
        plan = plan_of(&p, &tma, &h200);
        EXPECT(plan.epilogue == WSGEMM_EPILOGUE_TMA && plan.variant == 0, "beta %g, knob tma: epilogue %s",
               (double)betas[i], wsgemm_epilogue_name(plan.epilogue));
    }
    /* fp32 C: beta != 0 takes the staged fp32 C tile (BN 128, variant 5); beta == 0 keeps BN 256 with the
     * tile-end stores, unless WSGEMM_SM90_EPILOGUE=staged asks for the staged kernel */
    wsgemm_knobs staged = kn;
    staged.sm90_epilogue = WSGEMM_EPILOGUE_PREF_STAGED;
    const float f32_betas[] = {1.0f, 0.0f, 0.0f};
    for (int i = 0; i < 3; ++i) {
        p = plan_testing_problem(N, N, 8192, 8192, 8192, 1, BF, F32, f32_betas[i], 0, 0);
        plan = plan_of(&p, i == 2 ? &staged : &kn, &h200);
        check_invariants(&p, &plan);
        const int want_staged = i != 1;
        EXPECT(want_staged ? plan.epilogue == WSGEMM_EPILOGUE_STAGED && plan.bn == 128 && plan.variant == 5 &&
                                 plan.tiles_q == 8192 / 128
                           : plan.epilogue == WSGEMM_EPILOGUE_TMA && plan.bn == 256 && plan.variant == 0,
               "fp32 C beta %g%s: epilogue %s bn %d variant %d", (double)f32_betas[i], i == 2 ? ", knob staged" : "",
               wsgemm_epilogue_name(plan.epilogue), plan.bn, plan.variant);
    }
    /* the pingpong schedule when asked for (variant 6, BN 128): tile-end stores (its overlap is the other
     * warpgroup's main loop), staged never */
    wsgemm_knobs pp = kn;
    pp.sm90_variant = SM90_VARIANT_PINGPONG;
    pp.sm90_bn = 128;
    const float pp_betas[] = {0.0f, 1.0f};
    for (int i = 0; i < 2; ++i) {
        p = plan_testing_problem(N, N, 8192, 8192, 1024, 1, BF, BF, pp_betas[i], 0, 0);
        plan = plan_of(&p, &pp, &h200);
        check_invariants(&p, &plan);
        EXPECT(plan.schedule == WSGEMM_SCHEDULE_PINGPONG && plan.epilogue == WSGEMM_EPILOGUE_TMA && plan.cluster == 2,
               "pingpong beta %g: schedule %d epilogue %s", (double)pp_betas[i], (int)plan.schedule,
               wsgemm_epilogue_name(plan.epilogue));
    }
    /* a small C tile grid: the cost model's BN 64 has no staged kernel; tile-end stores */
    p = plan_testing_problem(N, N, 100, 1000, 1000, 1, BF, BF, 1.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.epilogue != WSGEMM_EPILOGUE_STAGED || plan.bn == 256, "100x1000 beta 1: bn %d epilogue %s", plan.bn,
           wsgemm_epilogue_name(plan.epilogue));

    /* forced split-K: partials sized splits x m x n x batch fp32, after the staged copies */
    wsgemm_knobs split3 = kn;
    split3.sm90_splitk = 3;
    p = plan_testing_problem(T, N, 300, 700, 1000, 2, BF, WSGEMM_R_16F, -0.5f, 3, 1);
    plan = plan_of(&p, &split3, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.splits == 3 && plan.partials_bytes == 3u * 300u * 700u * 2u * 4u && plan.a.staged &&
               plan.epilogue == WSGEMM_EPILOGUE_DIRECT,
           "split 3: splits %d partials %zu staged A %d epilogue %s", plan.splits, plan.partials_bytes, plan.a.staged,
           wsgemm_epilogue_name(plan.epilogue));

    /* long K: no accumulator chain longer than 4096 K blocks (k = 2^28: at least 1024 splits) */
    p = plan_testing_problem(N, N, 64, 64, 1 << 28, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.splits >= 1024 && plan.sched.k_blocks_per_split <= 4096, "k = 2^28: %d splits of %d K blocks",
           plan.splits, plan.sched.k_blocks_per_split);

    /* 3072^3 at 128 x 256 is 144 cluster units on 66 clusters (2.2 waves). With beta = 0 (C of the input type)
     * the plan takes BN 192 instead: 192 units, 2.9 waves, data-parallel with the deferred stores, no workspace.
     * With beta = 1 (no BN 192: its C tile would not be staged) the hybrid: the two full waves of 128 x 256
     * data-parallel with the staged C tile, the 12 units of the third split 5 ways (60 units, 10 K blocks each),
     * 24 CTA tiles x 5 partial tiles in the workspace */
    p = plan_testing_problem(N, N, 3072, 3072, 3072, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.bn == 192 && plan.variant == 0 && plan.splits == 1 && plan.sched.sk_splits == 1 &&
               plan.sched.units == 12 * 16 && plan.epilogue == WSGEMM_EPILOGUE_DEFERRED && plan.workspace_bytes == 0,
           "3072^3 beta 0: bn %d splits %d split region of %d, %lld units, epilogue %s, ws %zu", plan.bn, plan.splits,
           plan.sched.sk_splits, plan.sched.units, wsgemm_epilogue_name(plan.epilogue), plan.workspace_bytes);
    p = plan_testing_problem(N, N, 3072, 3072, 3072, 1, BF, BF, 1.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.bn == 256 && plan.splits == 1 && plan.sched.sk_first == 132 && plan.sched.sk_splits == 5 &&
               plan.sched.units == 132 + 60 && plan.grid_clusters == 66 && plan.epilogue == WSGEMM_EPILOGUE_STAGED &&
               plan.workspace_bytes == 24u * 5u * 128u * 256u * 4u,
           "3072^3 beta 1: bn %d splits %d split region from %lld, %d splits, %lld units, epilogue %s, ws %zu", plan.bn,
           plan.splits, plan.sched.sk_first, plan.sched.sk_splits, plan.sched.units,
           wsgemm_epilogue_name(plan.epilogue), plan.workspace_bytes);
    /* ... not with the hybrid off or split-K forced; forced (n = 3), wherever a wave is ragged */
    wsgemm_knobs off = kn, split2 = kn, forced = kn;
    off.sm90_hybrid = 0;
    split2.sm90_splitk = 2;
    forced.sm90_hybrid = 3;
    plan = plan_of(&p, &off, &h200);
    EXPECT(plan.sched.sk_splits == 1 && plan.sched.units == 144 && plan.workspace_bytes == 0,
           "3072^3, hybrid off: %d splits in the region", plan.sched.sk_splits);
    plan = plan_of(&p, &split2, &h200);
    EXPECT(plan.sched.sk_splits == 1 && plan.splits == 2, "3072^3, split-K 2: region of %d, %d splits",
           plan.sched.sk_splits, plan.splits);
    p = plan_testing_problem(T, N, 1000, 1000, 1000, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &forced, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.sched.sk_splits == 3 && plan.sched.sk_first == 0, "1000^3 forced 3: region of %d from %lld",
           plan.sched.sk_splits, plan.sched.sk_first);
    /* where every wave is full or the model sees no gain, the plan is data-parallel as before: the big squares,
     * 2048^3 (64 units: one wave), 1000^3 and m = 128, 256 decode (BN 64 and 128 fill the SMs) */
    const int plain_shapes[][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048},
                                   {1000, 1000, 1000}, {128, 8192, 8192},  {256, 8192, 8192}};
    for (int i = 0; i < 6; ++i) {
        p = plan_testing_problem(N, N, plain_shapes[i][0], plain_shapes[i][1], plain_shapes[i][2], 1, BF, BF, 0.0f, 0,
                                 0);
        plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        EXPECT(plan.sched.sk_splits == 1 && plan.splits == 1, "%dx%dx%d: split region of %d, %d splits",
               plain_shapes[i][0], plain_shapes[i][1], plain_shapes[i][2], plan.sched.sk_splits, plan.splits);
    }

    /* 4099^3: both operands re-pitched, A then B then nothing */
    p = plan_testing_problem(N, N, 4099, 4099, 4099, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.a.staged && plan.b.staged && plan.a.stage_offset == 0 &&
               plan.b.stage_offset == (plan.a.stage_bytes + 255) / 256 * 256 && plan.splits == 1,
           "4099^3: staged %d %d at %zu %zu", plan.a.staged, plan.b.staged, plan.a.stage_offset, plan.b.stage_offset);
    printf("choices: decode clusters, K-major rows, deferred only for beta 0 and 16-bit C, split-K partials, "
           "the hybrid at 3072^3 (and only where asked or the waves are ragged), staging layout\n");
}

/* The invariants on a sweep of problems and knob settings. */
static void case_sweep(void)
{
    static const int dims[] = {1, 7, 16, 64, 100, 128, 129, 256, 300, 520, 1000, 1024, 2048, 3072, 4096, 4099, 8192};
    enum { D = (int)(sizeof dims / sizeof dims[0]) };
    static const int ks[] = {1, 63, 64, 300, 1024, 4096, 14336};
    model h200 = {132}, small = {20};
    model *models[2] = {&h200, &small};
    enum { kKnobSets = 12 };
    wsgemm_knobs knob_sets[kKnobSets];
    for (int i = 0; i < kKnobSets; ++i) knob_sets[i] = wsgemm_knobs_defaults();
    knob_sets[1].sm90_variant = 1;
    knob_sets[2].sm90_variant = 3;
    knob_sets[3].sm90_swap = 0;
    knob_sets[4].sm90_bn = 128;
    knob_sets[5].sm90_splitk = 3;
    knob_sets[6].sm90_epilogue = WSGEMM_EPILOGUE_PREF_TMA;
    knob_sets[7].sm90_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
    knob_sets[8].sm90_epilogue = WSGEMM_EPILOGUE_PREF_STAGED;
    knob_sets[9].sm90_variant = SM90_VARIANT_PINGPONG;
    knob_sets[9].sm90_bn = 128;
    knob_sets[10].sm90_hybrid = 3; /* a split region of 3 wherever a wave is ragged */
    knob_sets[11].sm90_hybrid = 5;
    knob_sets[11].sm90_epilogue = WSGEMM_EPILOGUE_PREF_STAGED;
    long long regions = 0;
    unsigned r = 12345u;
    for (int mi = 0; mi < D; ++mi)
        for (int ni = 0; ni < D; ++ni)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
                r = r * 1103515245u + 12345u;
                wsgemm_problem p = plan_testing_random_problem(r, dims[mi], dims[ni], ks[ki]);
                for (int kn = 0; kn < kKnobSets; ++kn) {
                    model *md = models[(r >> 20) & 1];
                    wsgemm_plan plan = plan_of(&p, &knob_sets[kn], md);
                    check_invariants(&p, &plan);
                    const int region = plan.sched.sk_splits > 1;
                    regions += region;
                    char shape[256];
                    plan_testing_describe(&p, shape, sizeof shape);
                    EXPECT(!region || knob_sets[kn].sm90_splitk == 0, "%s: a split region with forced split-K", shape);
                    if (region || knob_sets[kn].sm90_hybrid >= 2) continue;
                    /* a plan without a split region is the plan of a planner that never makes one */
                    wsgemm_knobs off = knob_sets[kn];
                    off.sm90_hybrid = 0;
                    wsgemm_plan plain = plan_of(&p, &off, md);
                    EXPECT(
                        plain.bn == plan.bn && plain.variant == plan.variant && plain.cluster == plan.cluster &&
                            plain.splits == plan.splits && plain.epilogue == plan.epilogue && plain.swap == plan.swap &&
                            plain.stages == plan.stages && plain.sched.units == plan.sched.units &&
                            plain.grid_clusters == plan.grid_clusters && plain.workspace_bytes == plan.workspace_bytes,
                        "%s: knob set %d without a split region differs from the plan with the hybrid off", shape, kn);
                }
            }
    printf("sweep: %lld plans hold the workspace, split, hybrid, grid and epilogue invariants (%lld with a split "
           "region); every plan without one is the plan of the hybrid turned off\n",
           checked, regions);
}

/* wsgemm_matmul's fused calls: the FUSED kernels, unsplit, on every problem and knob set the sweep uses. */
static void case_fused(void)
{
    static const int dims[] = {1, 7, 64, 100, 129, 256, 520, 1000, 2048, 3072, 4099, 8192};
    enum { D = (int)(sizeof dims / sizeof dims[0]) };
    static const int ks[] = {1, 64, 300, 4096, 14336};
    model h200 = {132}, small = {20};
    enum { kKnobSets = 8 };
    wsgemm_knobs knob_sets[kKnobSets];
    for (int i = 0; i < kKnobSets; ++i) knob_sets[i] = wsgemm_knobs_defaults();
    knob_sets[1].sm90_variant = SM90_VARIANT_PINGPONG;
    knob_sets[2].sm90_swap = 0;
    knob_sets[3].sm90_splitk = 3;
    knob_sets[4].sm90_hybrid = 3;
    knob_sets[5].sm90_epilogue = WSGEMM_EPILOGUE_PREF_STAGED;
    knob_sets[6].sm90_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
    knob_sets[7].sm90_bn = 64;
    const wsgemm_fused_epilogue ops = {.ops = {1, 1, 0, WSGEMM_ACTIVATION_GELU}};
    long long plans = 0, deferred = 0, declined = 0;
    unsigned r = 777u;
    for (int mi = 0; mi < D; ++mi)
        for (int ni = 0; ni < D; ++ni)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
                r = r * 1103515245u + 12345u;
                wsgemm_problem p = plan_testing_random_problem(r, dims[mi], dims[ni], ks[ki]);
                p.fused = &ops;
                if ((r >> 27) % 4 == 0) p.Ctype = WSGEMM_R_8F_E4M3; /* an E4M3 D: TMA stores, never deferred */
                for (int kn = 0; kn < kKnobSets; ++kn) {
                    char shape[256], why[256] = "";
                    plan_testing_describe(&p, shape, sizeof shape);
                    wsgemm_plan plan;
                    const wsgemm_status s = sm90_plan_make(&p, &knob_sets[kn], model_query,
                                                           (r >> 20) & 1 ? &small : &h200, &plan, why, sizeof why);
                    checked++;
                    /* D stored by TMA: m and ldc in whole 16-byte units, the batch without gaps */
                    const int cb = wsgemm_dtype_size(p.Ctype);
                    const int tma_d = ((long long)p.m * cb) % 16 == 0 &&
                                      wsgemm_tma_layout_ok(p.C, p.ldc, p.strideC, p.batch_count > 1, cb) &&
                                      (p.batch_count == 1 || p.strideC == (long long)p.ldc * p.n);
                    if (knob_sets[kn].sm90_bn == 64 || !tma_d || p.beta != 0.0f) {
                        EXPECT(s == WSGEMM_STATUS_NOT_SUPPORTED, "%s: knob set %d: fused call planned with %s", shape,
                               kn,
                               knob_sets[kn].sm90_bn == 64 ? "BN 64 forced"
                               : p.beta != 0.0f            ? "beta != 0"
                                                           : "a D TMA cannot store");
                        declined += s == WSGEMM_STATUS_NOT_SUPPORTED;
                        continue;
                    }
                    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: knob set %d: fused call declined: %s", shape, kn, why);
                    if (s != WSGEMM_STATUS_SUCCESS) continue;
                    check_invariants(&p, &plan);
                    plans++;
                    deferred += plan.epilogue == WSGEMM_EPILOGUE_DEFERRED;
                    EXPECT(plan.variant == SM90_VARIANT_FUSED && (plan.bn == 256 || plan.bn == 128) &&
                               plan.cluster == 2 && plan.schedule == WSGEMM_SCHEDULE_COOPERATIVE && plan.swap,
                           "%s: knob set %d: fused call on variant %d bn %d cluster %d", shape, kn, plan.variant,
                           plan.bn, plan.cluster);
                    EXPECT(plan.splits == 1 && plan.sched.sk_splits == 1 &&
                               (plan.epilogue == WSGEMM_EPILOGUE_DEFERRED || plan.epilogue == WSGEMM_EPILOGUE_TMA),
                           "%s: knob set %d: fused call with %d splits, split region %d, epilogue %s", shape, kn,
                           plan.splits, plan.sched.sk_splits, wsgemm_epilogue_name(plan.epilogue));
                }
            }
    /* one accumulator chain: 4096 K blocks pass, one more is declined */
    wsgemm_problem p =
        plan_testing_problem(WSGEMM_OP_T, WSGEMM_OP_N, 256, 256, 262144, 1, WSGEMM_R_16BF, WSGEMM_R_16BF, 0.0f, 0, 0);
    p.fused = &ops;
    const wsgemm_knobs kn = wsgemm_knobs_defaults();
    wsgemm_plan plan;
    char why[256] = "";
    EXPECT(sm90_plan_make(&p, &kn, model_query, &h200, &plan, why, sizeof why) == WSGEMM_STATUS_SUCCESS &&
               plan.splits == 1,
           "k = 262144 fused: %s", why);
    p.k = 262145;
    EXPECT(sm90_plan_make(&p, &kn, model_query, &h200, &plan, why, sizeof why) == WSGEMM_STATUS_NOT_SUPPORTED,
           "k = 262145 fused: not declined");
    printf("fused: %lld plans on the FUSED kernels, swapped, unsplit, TMA stores (%lld deferred); %lld declined "
           "(BN 64 forced, beta != 0, or a D TMA cannot store); k = 262144 planned, 262145 declined: %s\n",
           plans, deferred, declined, why);
}

/* ---------------------------------------------------------------- FP8 */

/* Whether an FP8 operand of `rows` (M or N) x k can be read by TMA as stored, with no copy: K-major (op), or a
 * single row with ld 1 (read as a K-major row), in 16-byte units (base, leading dimension, batch stride); a
 * single row of one matrix has its leading dimension replaced (never stepped over). */
static int fp8_operand_ok(int k_major, int rows, int ld, long long stride, int nb, uintptr_t base, int k)
{
    const int row_view = !k_major && rows == 1 && ld == 1;
    if (!k_major && !row_view) return 0;
    const long long eff_ld = row_view || (rows == 1 && nb == 1) ? (k + 7) / 8 * 8 : ld;
    if (base % 16 != 0 || eff_ld % 16 != 0) return 0;
    const long long cols = rows;
    return nb == 1 || (stride % 16 == 0 && stride >= eff_ld * cols);
}

static void case_fp8(void)
{
    static const int dims[] = {1, 64, 129, 256, 1000, 2048, 3072, 4096, 8192};
    enum { D = (int)(sizeof dims / sizeof dims[0]) };
    static const int ks[] = {1, 96, 4096, 14336};
    static const int pads[] = {0, 16, 32, 5};
    static const wsgemm_dtype pairs[][2] = {{WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3},
                                            {WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E5M2},
                                            {WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E4M3},
                                            {WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E5M2}};
    static const wsgemm_dtype dtypes[] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F, WSGEMM_R_8F_E4M3};
    model h200 = {132};
    enum { kKnobSets = 6 };
    wsgemm_knobs knob_sets[kKnobSets];
    for (int i = 0; i < kKnobSets; ++i) knob_sets[i] = wsgemm_knobs_defaults();
    knob_sets[1].sm90_variant = SM90_VARIANT_PINGPONG;
    knob_sets[2].sm90_bn = 256;
    knob_sets[3].sm90_splitk = 3;
    knob_sets[4].sm90_epilogue = WSGEMM_EPILOGUE_PREF_STAGED;
    knob_sets[5].sm90_hybrid = 3;
    const wsgemm_fused_epilogue ops = {.ops = {1, 1, 0, WSGEMM_ACTIVATION_GELU}};
    const float scale = 2.0f;
    long long plans = 0, tma = 0, declined = 0, staged = 0;
    unsigned r = 4242u;
    for (int mi = 0; mi < D; ++mi)
        for (int ni = 0; ni < D; ++ni)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
                r = r * 1103515245u + 12345u;
                const wsgemm_op ta = (r >> 8) & 3 ? WSGEMM_OP_T : WSGEMM_OP_N; /* mostly the FP8 layout */
                const wsgemm_op tb = (r >> 10) & 3 ? WSGEMM_OP_N : WSGEMM_OP_T;
                const int pad = pads[(r >> 12) % 4];
                const int batch = (r >> 14) % 4 == 0 ? 2 : 1;
                const int misalign = (r >> 16) % 8 == 0;
                const int fused = (r >> 19) & 1;
                const wsgemm_dtype *pair = pairs[(r >> 20) % 4];
                const wsgemm_dtype dt = dtypes[(r >> 22) % 4];
                const float beta = (r >> 24) % 4 == 0 ? 1.0f : 0.0f;
                wsgemm_problem p =
                    plan_testing_problem(ta, tb, dims[mi], dims[ni], ks[ki], batch, pair[0], dt, beta, pad, 0);
                p.Btype = pair[1];
                p.A = (const char *)p.A + (misalign ? 8 : 0); /* 8 bytes: an FP8 element, not a 16-byte unit */
                p.a_scale = &scale;
                p.b_scale = &scale;
                if (fused) p.fused = &ops;
                const int a_ok = fp8_operand_ok(ta == WSGEMM_OP_T, p.m, p.lda, p.strideA, batch, (uintptr_t)p.A, p.k);
                const int b_ok = fp8_operand_ok(tb == WSGEMM_OP_N, p.n, p.ldb, p.strideB, p.strideB ? batch : 1,
                                                (uintptr_t)p.B, p.k);
                const int pair_ok = !(pair[0] == WSGEMM_R_8F_E5M2 && pair[1] == WSGEMM_R_8F_E5M2);
                const int cb = wsgemm_dtype_size(dt);
                const int tma_d = ((long long)p.m * cb) % 16 == 0 &&
                                  wsgemm_tma_layout_ok(p.C, p.ldc, p.strideC, p.batch_count > 1, cb) &&
                                  (p.batch_count == 1 || p.strideC == (long long)p.ldc * p.n);
                for (int kn = 0; kn < kKnobSets; ++kn) {
                    char shape[256], why[256] = "";
                    plan_testing_describe(&p, shape, sizeof shape);
                    wsgemm_plan plan;
                    const wsgemm_status s =
                        sm90_plan_make(&p, &knob_sets[kn], model_query, &h200, &plan, why, sizeof why);
                    checked++;
                    /* an E4M3 D only through the fused op (the FUSED kernels' TMA stores) */
                    const int want =
                        pair_ok && (!fused || (tma_d && beta == 0.0f)) && (fused || dt != WSGEMM_R_8F_E4M3);
                    if (!want) {
                        EXPECT(s == WSGEMM_STATUS_NOT_SUPPORTED,
                               "%s B=%d fused=%d: knob set %d: FP8 call planned "
                               "(pair ok %d, D by TMA %d)",
                               shape, (int)p.Btype, fused, kn, pair_ok, tma_d);
                        declined += s == WSGEMM_STATUS_NOT_SUPPORTED;
                        continue;
                    }
                    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s B=%d fused=%d: knob set %d: FP8 call declined: %s", shape,
                           (int)p.Btype, fused, kn, why);
                    if (s != WSGEMM_STATUS_SUCCESS) continue;
                    check_invariants(&p, &plan);
                    plans++;
                    tma += plan.epilogue == WSGEMM_EPILOGUE_TMA;
                    const wsgemm_dtype pt = plan.swap ? p.Btype : p.Atype, qt = plan.swap ? p.Atype : p.Btype;
                    const int want_in = pt == WSGEMM_R_8F_E5M2   ? SM90_IN_E5M2_E4M3
                                        : qt == WSGEMM_R_8F_E5M2 ? SM90_IN_E4M3_E5M2
                                                                 : SM90_IN_E4M3;
                    EXPECT(plan.a.staged == !a_ok && plan.b.staged == !b_ok,
                           "%s: knob set %d: FP8 copies A %d B %d, "
                           "want %d %d",
                           shape, kn, plan.a.staged, plan.b.staged, !a_ok, !b_ok);
                    staged += plan.a.staged + plan.b.staged;
                    EXPECT(plan.bn == 128 && plan.bk == SM90_BK_FP8 && plan.in == want_in && !plan.p_mn && !plan.q_mn &&
                               plan.variant == (fused ? SM90_VARIANT_FUSED : SM90_VARIANT_DEFAULT) &&
                               plan.schedule == WSGEMM_SCHEDULE_COOPERATIVE && plan.sched.sk_splits == 1 &&
                               plan.sched.k_blocks_per_split * plan.splits >= (p.k + 127) / 128 &&
                               plan.sched.k_blocks_per_split * (plan.splits - 1) < (p.k + 127) / 128,
                           "%s B=%d: knob set %d: FP8 plan bn %d bk %d in %d (want %d) variant %d, %d splits of %d "
                           "K blocks",
                           shape, (int)p.Btype, kn, plan.bn, plan.bk, plan.in, want_in, plan.variant, plan.splits,
                           plan.sched.k_blocks_per_split);
                    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_TMA || (plan.epilogue == WSGEMM_EPILOGUE_DIRECT && !fused),
                           "%s: knob set %d: FP8 plan with epilogue %s", shape, kn,
                           wsgemm_epilogue_name(plan.epilogue));
                }
            }
    /* operand scales are the FP8 kernels' alone */
    wsgemm_problem p =
        plan_testing_problem(WSGEMM_OP_T, WSGEMM_OP_N, 256, 256, 256, 1, WSGEMM_R_16BF, WSGEMM_R_16BF, 0.0f, 0, 0);
    p.a_scale = &scale;
    const wsgemm_knobs kn = wsgemm_knobs_defaults();
    wsgemm_plan plan;
    char why[256] = "";
    EXPECT(sm90_plan_make(&p, &kn, model_query, &h200, &plan, why, sizeof why) == WSGEMM_STATUS_NOT_SUPPORTED,
           "bf16 with a_scale: not declined");
    EXPECT(plans > 100 && declined > 100 && tma > 10 && staged > 100,
           "the sweep reached too few cases: %lld plans "
           "(%lld TMA stores, %lld copies), %lld declined",
           plans, tma, staged, declined);
    printf("fp8: %lld plans on the FP8 kernels (%lld with TMA stores, %lld K-major copies of MN-major or unaligned "
           "operands), %lld declined (E5M2 x E5M2, fused rules); bf16 with a_scale declined: %s\n",
           plans, tma, staged, declined, why);
}

/* Block-scaled FP8: every accepted mode pair (and MX) with every FP8 type pair, plain and fused, on a few shapes
 * and ops: planned exactly when sm90_plan_takes_scales says so (E4M3 x E4M3, float scale tensors), then on a
 * block-scaled row (scales BLOCK, 128 x 128 tiles so that a tile is one 128 x 128 scale block of P and Q);
 * declined otherwise. And wsgemm_scale_strides_of, which the launcher hands the kernels, against
 * wsgemm_scale_index for every float mode, row and 128-K block of several extents. */
static void case_block_scales(void)
{
    enum { SC = WSGEMM_MATMUL_SCALE_SCALAR_32F, MX = WSGEMM_MATMUL_SCALE_VEC32_UE8M0 };
    enum { OV = WSGEMM_MATMUL_SCALE_OUTER_VEC_32F, V1 = WSGEMM_MATMUL_SCALE_VEC128_32F };
    enum { B2 = WSGEMM_MATMUL_SCALE_BLK128x128_32F };
    static const int mode_pairs[][2] = {{V1, B2}, {B2, V1}, {V1, V1}, {B2, B2}, {OV, OV}, {MX, MX}};
    static const wsgemm_dtype pairs[][2] = {{WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3},
                                            {WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E5M2},
                                            {WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E4M3}};
    static const int shapes[][3] = {{4096, 2112, 7168}, {64, 24576, 1536}, {128, 7168, 16384},
                                    {1, 4096, 256},     {1000, 1, 384},    {77, 99, 1}};
    const wsgemm_fused_epilogue ops = {.ops = {1, 0, 0, WSGEMM_ACTIVATION_GELU}};
    const wsgemm_knobs kn = wsgemm_knobs_defaults();
    model h200 = {132};
    const float scales[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    long long plans = 0, declined = 0, cols = 0;
    for (size_t mp = 0; mp < sizeof mode_pairs / sizeof mode_pairs[0]; ++mp)
        for (size_t tp = 0; tp < sizeof pairs / sizeof pairs[0]; ++tp)
            for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si)
                for (int variant = 0; variant < 4; ++variant) {
                    const int fused = (variant & 1) && shapes[si][0] % 8 == 0;    /* a D that TMA can store */
                    const wsgemm_op ta = variant & 2 ? WSGEMM_OP_N : WSGEMM_OP_T; /* N: A copied K-major */
                    wsgemm_problem p = plan_testing_problem(ta, WSGEMM_OP_N, shapes[si][0], shapes[si][1],
                                                            shapes[si][2], 1, pairs[tp][0], WSGEMM_R_16BF, 0.0f, 0, 0);
                    p.Btype = pairs[tp][1];
                    p.a_scale_mode = (wsgemm_matmul_scale_mode)mode_pairs[mp][0];
                    p.b_scale_mode = (wsgemm_matmul_scale_mode)mode_pairs[mp][1];
                    p.a_scales = scales;
                    p.b_scales = scales;
                    if (fused) p.fused = &ops;
                    char shape[256], why[256] = "";
                    plan_testing_describe(&p, shape, sizeof shape);
                    wsgemm_plan plan;
                    const wsgemm_status s = sm90_plan_make(&p, &kn, model_query, &h200, &plan, why, sizeof why);
                    checked++;
                    const int want = sm90_plan_takes_scales(p.Atype, p.Btype, (int)p.a_scale_mode, (int)p.b_scale_mode);
                    EXPECT(want == (pairs[tp][0] == WSGEMM_R_8F_E4M3 && pairs[tp][1] == WSGEMM_R_8F_E4M3 &&
                                    mode_pairs[mp][0] != MX),
                           "%s: scale modes %d x %d: sm90_plan_takes_scales %d", shape, mode_pairs[mp][0],
                           mode_pairs[mp][1], want);
                    if (!want) {
                        EXPECT(s == WSGEMM_STATUS_NOT_SUPPORTED, "%s: scale modes %d x %d, B %d: planned", shape,
                               mode_pairs[mp][0], mode_pairs[mp][1], (int)p.Btype);
                        declined += s == WSGEMM_STATUS_NOT_SUPPORTED;
                        continue;
                    }
                    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: scale modes %d x %d fused %d: declined: %s", shape,
                           mode_pairs[mp][0], mode_pairs[mp][1], fused, why);
                    if (s != WSGEMM_STATUS_SUCCESS) continue;
                    check_invariants(&p, &plan);
                    plans++;
                    const int row = sm90_kernel_find(plan.in, plan.scales, plan.variant, plan.bn, plan.p_mn, plan.q_mn);
                    /* Q's scales per column exactly when the operand on Q has VEC128_32F */
                    const int q_mode = plan.swap ? mode_pairs[mp][0] : mode_pairs[mp][1];
                    const int want_scales = q_mode == V1 ? SM90_SCALES_BLOCK_COLS : SM90_SCALES_BLOCK;
                    cols += want_scales == SM90_SCALES_BLOCK_COLS;
                    EXPECT(plan.scales == want_scales && row >= 0 && sm90_kernel_table[row].scales == want_scales &&
                               plan.bn == 128 && plan.bm == 128 && plan.bk == 128 && plan.in == SM90_IN_E4M3 &&
                               plan.variant == (fused ? SM90_VARIANT_FUSED : SM90_VARIANT_DEFAULT) &&
                               plan.sched.sk_splits == 1,
                           "%s: block-scaled plan scales %d row %d bn %d bk %d in %d variant %d", shape, plan.scales,
                           row, plan.bn, plan.bk, plan.in, plan.variant);
                }
    /* per-tensor FP8 keeps the per-tensor rows */
    wsgemm_problem p = plan_testing_problem(WSGEMM_OP_T, WSGEMM_OP_N, 4096, 4096, 4096, 1, WSGEMM_R_8F_E4M3,
                                            WSGEMM_R_16BF, 0.0f, 0, 0);
    wsgemm_plan plan;
    char why[256] = "";
    EXPECT(sm90_plan_make(&p, &kn, model_query, &h200, &plan, why, sizeof why) == WSGEMM_STATUS_SUCCESS &&
               plan.scales == SM90_SCALES_TENSOR,
           "per-tensor E4M3: scales %d (%s)", plan.scales, why);
    /* the strides the kernels walk the scale tensors with */
    static const int modes[] = {SC, OV, V1, B2};
    static const long long outers[] = {1, 77, 128, 300, 4096};
    static const long long kk[] = {1, 128, 200, 7168};
    long long strides = 0;
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; ++mi)
        for (size_t oi = 0; oi < sizeof outers / sizeof outers[0]; ++oi)
            for (size_t ki = 0; ki < sizeof kk / sizeof kk[0]; ++ki) {
                const long long outer = outers[oi], k = kk[ki];
                const wsgemm_scale_strides st = wsgemm_scale_strides_of(modes[mi], outer, k);
                for (long long r = 0; r < outer; ++r)
                    for (long long b = 0; b < (k + 127) / 128; ++b) {
                        const long long want = wsgemm_scale_index(modes[mi], r, b, outer, k);
                        const long long got = (r / 128) * st.tile + r * st.row + b * st.block;
                        strides++;
                        if (got != want) {
                            EXPECT(0, "mode %d outer %lld k %lld: (r %lld, b %lld) at %lld, want %lld", modes[mi],
                                   outer, k, r, b, got, want);
                            r = outer;
                            break;
                        }
                    }
            }
    EXPECT(plans > 50 && declined > 50 && cols > 10 && plans - cols > 10,
           "the sweep reached too few cases: %lld plans (%lld with Q's scales per column), %lld declined", plans, cols,
           declined);
    printf("block_scales: %lld block-scaled plans (%lld with Q's scales per column), %lld declined (E5M2 operands, "
           "UE8M0 scales); %lld scale indices "
           "from the kernels' strides equal to wsgemm_scale_index\n",
           plans, cols, declined, strides);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "choices";
    if (strcmp(which, "choices") == 0)
        case_choices();
    else if (strcmp(which, "sweep") == 0)
        case_sweep();
    else if (strcmp(which, "fused") == 0)
        case_fused();
    else if (strcmp(which, "fp8") == 0)
        case_fp8();
    else if (strcmp(which, "block_scales") == 0)
        case_block_scales();
    else {
        fprintf(stderr, "unknown case '%s'\n", which);
        return 2;
    }
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
