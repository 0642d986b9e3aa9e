// SPDX-License-Identifier: MIT
/*
 * sm100_plan_test.c - CPU checks of the sm100 planner (gemm/sm100/sm100_plan.c) against a model of the B200:
 * 148 SMs, one CTA per SM (512 TMEM columns and ~226 KB of shared memory each), so 148 clusters of
 * cta_group 1 and 74 of cta_group 2 fit at once; a "partial" model where only 60 pairs fit (another
 * kernel's residency, a GPC with an odd SM count) and a model without the cta_group 2 kernel.
 *
 *   choices  the big squares take cta_group 2 with one split and a grid of min(units, 74) pairs; beta != 0
 *            reads C by TMA (STAGED), beta = 0 stores by TMA; m = 64 decode splits K and fills at least 96
 *            SMs; 4099^3 stages both operands, m = 1 with lda = 1 reads A in place; the knobs force
 *            cta_group, splits and grid; the grid follows the query's co-resident clusters.
 *   fp8_fused FP8 inputs (kind::f8f6f4): 128 K per block, either major read as stored, a copy (K-major) only
 *            where TMA cannot address the operand; E5M2 x E5M2, 16-bit with FP8, operand scales without the
 *            fused op declined; the fused op (wsgemm_matmul) never splits (decode included) and is declined
 *            past one 4096-block chain; TMA stores for an E4M3 D (m a multiple of 16); a fused op whose
 *            C is not D loads C by TMA from its own map when C has D's type and a TMA layout, else per element.
 *   sweep    on several thousand problem x knob combinations (shapes 1..8192, K 1..14336, ops, types, beta,
 *            batch, padded and misaligned operands, three device models): the workspace holds the staged
 *            copies and the partials without overlap, 256-byte aligned, and is what the launcher reserves;
 *            the grid never exceeds the units or the co-resident clusters unless forced; cta_group 2 only
 *            with two rows of tiles; no accumulator chain longer than 4096 K blocks; TMA stores only where
 *            the output's rows are whole 16-byte chunks and TMA can address it; every split has K blocks; the
 *            same problems again with FP8 inputs and / or the fused op (the rules of fp8_fused).
 *   mx       block-scaled MX (VEC32_UE8M0): the 128 x 192 kernel, K-major operands, one split, the static schedule,
 *            the scale chunks after the rest of the workspace; declines (fp32 D, a batch, a chain past 4096 K
 *            blocks, VEC128 / BLK128x128 scales); every scale byte mapped once into the chunk the MMA reads it from.
 * Prints what it checked; exits 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tma.h"
#include "sm100/sm100_plan.h"
#include "plan_testing.h"
#include "testing.h"

static int failures;
static long long checked;

#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* ---------------------------------------------------------------- the device model */

typedef struct model {
    int sm_count;
    int max_pairs; /* co-resident clusters of cta_group 2 (sm_count / 2 on a whole B200) */
    int has_cg2;
} model;

/* gemm/sm100/sm100_kernel.cuh: one kernel per (cta_group, C type); cta_group 1 has 4 stages of 48 KB, cta_group
 * 2 six of 32 KB, both with 32 KB of epilogue chunks; the CLC kernels (SM100_VARIANT_CLC) for bf16 C only. */
static wsgemm_status model_query(void *ctx, int cta_group, wsgemm_dtype out_type, int variant, int scales,
                                 sm100_kernel_facts *f)
{
    const model *md = ctx;
    memset(f, 0, sizeof *f);
    if (cta_group == 2 && !md->has_cg2) return WSGEMM_STATUS_SUCCESS;
    if (variant == SM100_VARIANT_CLC && (out_type != WSGEMM_R_16BF || scales == SM100_SCALES_MX))
        return WSGEMM_STATUS_SUCCESS;
    plan_testing_sm100_kernel(cta_group, scales, out_type, cta_group == 1 ? md->sm_count : md->max_pairs, f);
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- problems */

static wsgemm_plan plan_of(const wsgemm_problem *p, const wsgemm_knobs *kn, model *md)
{
    wsgemm_plan plan;
    char why[256] = "", shape[256];
    const wsgemm_status s = sm100_plan_make(p, kn, model_query, md, &plan, why, sizeof why);
    plan_testing_describe(p, shape, sizeof shape);
    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: declined: %s", shape, why);
    checked++;
    return plan;
}

/* What every plan must hold, whatever it chose. */
static void check_invariants(const wsgemm_problem *p, const wsgemm_plan *plan, const wsgemm_knobs *kn)
{
    char shape[256];
    plan_testing_describe(p, shape, sizeof shape);
    const size_t want_partials =
        plan->splits > 1 ? (size_t)plan->splits * (size_t)p->m * (size_t)p->n * (size_t)p->batch_count * 4u : 0;
    EXPECT(plan->partials_bytes == want_partials && plan->partials_offset % 256 == 0,
           "%s: %d splits, partials %zu bytes at %zu (want %zu)", shape, plan->splits, plan->partials_bytes,
           plan->partials_offset, want_partials);
    const int fp8 = wsgemm_dtype_size(p->Atype) == 1;
    if (fp8) /* FP8 copies: K-major, k rounded up to 16 bytes per row */
        for (int i = 0; i < 2; ++i) {
            const wsgemm_operand *o = i ? &plan->b : &plan->a;
            EXPECT(!o->staged ||
                       (o->stage_offset % 256 == 0 &&
                        o->stage_bytes == (size_t)((p->k + 15) / 16 * 16) * (size_t)o->rows_dim * (size_t)o->nb),
                   "%s: FP8 copy of %c misplaced or mis-sized", shape, i ? 'B' : 'A');
        }
    else
        EXPECT(plan_testing_staged_ok(&plan->a) && plan_testing_staged_ok(&plan->b),
               "%s: staged copies misplaced or mis-sized", shape);
    EXPECT(plan->bk == (fp8 ? 128 : 64) && plan->sched.k_blocks == (p->k + plan->bk - 1) / plan->bk,
           "%s: bk %d, %d K blocks", shape, plan->bk, plan->sched.k_blocks);
    EXPECT(plan->p_mn == (!plan->a.k_major && !(fp8 && plan->a.staged)) &&
               plan->q_mn == (!plan->b.k_major && !(fp8 && plan->b.staged)),
           "%s: operand majors %d %d (FP8 copies are K-major)", shape, plan->p_mn, plan->q_mn);
    EXPECT(!p->fused || plan->splits == 1, "%s: the fused op with %d splits", shape, plan->splits);
    const size_t a_end = plan->a.staged ? plan->a.stage_offset + plan->a.stage_bytes : 0;
    const size_t b_end = plan->b.staged ? plan->b.stage_offset + plan->b.stage_bytes : 0;
    EXPECT(!plan->a.staged || !plan->b.staged || plan->b.stage_offset >= a_end, "%s: staged A and B overlap", shape);
    EXPECT(plan->partials_offset >= a_end && plan->partials_offset >= b_end, "%s: partials overlap a copy", shape);
    const int mx = plan->scales == SM100_SCALES_MX;
    EXPECT(plan->workspace_bytes ==
                   (mx ? plan->scales_offset + plan->scales_bytes : plan->partials_offset + plan->partials_bytes) &&
               (plan->workspace_bytes == 0) == (!plan->a.staged && !plan->b.staged && plan->splits == 1 && !mx),
           "%s: workspace %zu bytes, partials end at %zu", shape, plan->workspace_bytes,
           plan->partials_offset + plan->partials_bytes);
    /* the operands as TMA will see them: either legal in place or staged */
    for (int i = 0; i < 2; ++i) {
        const wsgemm_operand *o = i ? &plan->b : &plan->a;
        const int in_place = fp8 ? wsgemm_tma_layout_ok(o->ptr, o->ld, o->stride, o->nb > 1, 1) &&
                                       (o->nb == 1 || o->stride >= o->ld * o->cols)
                                 : wsgemm_tma_operand_ok(o->ptr, o->ld, o->stride, o->nb > 1);
        EXPECT(o->staged || in_place, "%s: operand %c, which TMA cannot address, is not staged", shape, i ? 'B' : 'A');
    }
    if (plan->variant == SM100_VARIANT_CLC)
        /* the hardware grid is one cluster per unit; the clusters that run at once, at most the forced grid */
        EXPECT(kn->sm100_clc && plan->splits == 1 && p->Ctype == WSGEMM_R_16BF &&
                   plan->grid_clusters == plan->sched.units && plan->max_clusters >= 1 &&
                   (kn->sm100_ctas <= 0 || plan->max_clusters <= (kn->sm100_ctas + plan->cluster - 1) / plan->cluster),
               "%s: CLC plan with %d splits, C type %d, grid %lld for %lld units, %d at once", shape, plan->splits,
               (int)p->Ctype, plan->grid_clusters, plan->sched.units, plan->max_clusters);
    else if (kn->sm100_ctas > 0)
        EXPECT(plan->grid_clusters * plan->cluster >= kn->sm100_ctas, "%s: forced grid %d, got %lld clusters", shape,
               kn->sm100_ctas, plan->grid_clusters);
    else
        EXPECT(plan->sched.units >= 1 && plan->grid_clusters >= 1 && plan->grid_clusters <= plan->max_clusters &&
                   plan->grid_clusters <= plan->sched.units,
               "%s: %lld clusters for %lld units, %d fit", shape, plan->grid_clusters, plan->sched.units,
               plan->max_clusters);
    EXPECT(plan->cluster == 1 || plan->cluster == 2, "%s: cta_group %d", shape, plan->cluster);
    EXPECT(plan->cluster == 1 || plan->tiles_p >= 2 || kn->sm100_cta_group == 2,
           "%s: cta_group 2 with %d rows of tiles", shape, plan->tiles_p);
    EXPECT(plan->sched.k_blocks_per_split <= 4096 || kn->sm100_splitk > 0, "%s: a chain of %d K blocks", shape,
           plan->sched.k_blocks_per_split);
    EXPECT((long long)(plan->splits - 1) * plan->sched.k_blocks_per_split < plan->sched.k_blocks,
           "%s: an empty split (%d of %d K blocks)", shape, plan->sched.k_blocks_per_split, plan->sched.k_blocks);
    EXPECT(plan->tiles_p == (p->m + 127) / 128 && plan->tiles_q == (p->n + plan->bn - 1) / plan->bn &&
               plan->sched.cols == plan->tiles_q && plan->sched.cluster_rows == plan->cluster,
           "%s: the schedule is not of the plan's tile", shape);
    /* TMA stores: whole 16-byte chunks per column of the output, an addressable C (or the tight partials) */
    const int out_bytes = plan->splits > 1 ? 4 : wsgemm_dtype_size(p->Ctype);
    if (plan->epilogue != WSGEMM_EPILOGUE_DIRECT) {
        EXPECT(((long long)p->m * out_bytes) % 16 == 0, "%s: TMA stores with m * %d bytes", shape, out_bytes);
        EXPECT(plan->splits > 1 || (wsgemm_tma_layout_ok(p->C, p->ldc, p->strideC, p->batch_count > 1, out_bytes) &&
                                    (p->batch_count == 1 || p->strideC == (long long)p->ldc * p->n)),
               "%s: TMA stores into a C TMA cannot address", shape);
        EXPECT((plan->epilogue == WSGEMM_EPILOGUE_STAGED) == (plan->splits == 1 && p->beta != 0.0f),
               "%s: epilogue %s with beta %g, %d splits", shape, wsgemm_epilogue_name(plan->epilogue), (double)p->beta,
               plan->splits);
        /* a separate C comes in through its own map: D's type, an address TMA can read */
        EXPECT(plan->epilogue != WSGEMM_EPILOGUE_STAGED || !sm100_plan_c_is_separate(p) ||
                   (p->fused->c_type == (int)p->Ctype &&
                    wsgemm_tma_layout_ok(p->fused->c, p->fused->ldc, 0, 0, wsgemm_dtype_size(p->Ctype))),
               "%s: the fused op's C (not D) loaded by TMA though TMA cannot read it as D's type", shape);
    } else if (kn->sm100_epilogue != WSGEMM_EPILOGUE_PREF_DIRECT && plan->splits == 1) {
        /* per-element stores only where TMA cannot store D or load the fused op's separate C */
        const int d_ok = ((long long)p->m * out_bytes) % 16 == 0 &&
                         wsgemm_tma_layout_ok(p->C, p->ldc, p->strideC, p->batch_count > 1, out_bytes) &&
                         (p->batch_count == 1 || p->strideC == (long long)p->ldc * p->n);
        const int c_ok = !sm100_plan_c_is_separate(p) ||
                         (p->fused->c_type == (int)p->Ctype &&
                          wsgemm_tma_layout_ok(p->fused->c, p->fused->ldc, 0, 0, wsgemm_dtype_size(p->Ctype)));
        EXPECT(!(d_ok && c_ok), "%s: per-element stores where TMA could store D and load C", shape);
    }
    EXPECT(sm100_plan_out_type(plan, p) == (plan->splits > 1 ? WSGEMM_R_32F : p->Ctype), "%s: output type", shape);
}

/* ---------------------------------------------------------------- cases */

static void case_choices(void)
{
    model b200 = {148, 74, 1};
    const wsgemm_knobs kn = wsgemm_knobs_defaults();
    const wsgemm_op N = WSGEMM_OP_N, T = WSGEMM_OP_T;
    const wsgemm_dtype BF = WSGEMM_R_16BF, F32 = WSGEMM_R_32F;
    char line[640];

    /* big squares: pair tiles, no split, a grid of min(units, 74) pairs; beta 0 stores by TMA, beta 1 reads C
     * by TMA too */
    static const int squares[] = {2048, 4096, 8192};
    for (int i = 0; i < 3; ++i)
        for (int b = 0; b < 2; ++b) {
            const int s = squares[i];
            wsgemm_problem p = plan_testing_problem(T, N, s, s, s, 1, BF, BF, (float)b, 0, 0);
            wsgemm_plan plan = plan_of(&p, &kn, &b200);
            check_invariants(&p, &plan, &kn);
            const long long units = (long long)(s / 256) * (s / 256);
            EXPECT(plan.cluster == 2 && plan.splits == 1 && plan.grid_clusters == (units < 74 ? units : 74) &&
                       plan.epilogue == (b ? WSGEMM_EPILOGUE_STAGED : WSGEMM_EPILOGUE_TMA) && plan.workspace_bytes == 0,
                   "%d^3 beta %d: cta_group %d splits %d grid %lld epilogue %s", s, b, plan.cluster, plan.splits,
                   plan.grid_clusters, wsgemm_epilogue_name(plan.epilogue));
            if (b == 0) {
                wsgemm_plan_describe(&plan, &p, line, sizeof line);
                printf("  %s\n", line);
            }
        }
    /* fp32 C: the same kernel family, TMA stores of 4-byte elements */
    wsgemm_problem p = plan_testing_problem(N, N, 4096, 4096, 4096, 1, BF, F32, 1.0f, 0, 0);
    wsgemm_plan plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_STAGED, "fp32 C beta 1: epilogue %s", wsgemm_epilogue_name(plan.epilogue));

    /* m = 64 decode: one row of tiles, 32 tiles for 148 SMs: cta_group 1 and K split to fill at least 96 SMs */
    p = plan_testing_problem(N, N, 64, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    wsgemm_plan_describe(&plan, &p, line, sizeof line);
    printf("  %s\n", line);
    EXPECT(plan.cluster == 1 && plan.splits >= 3 && plan.grid_clusters >= 96 && plan.epilogue == WSGEMM_EPILOGUE_TMA,
           "m=64 decode: cta_group %d splits %d grid %lld epilogue %s", plan.cluster, plan.splits, plan.grid_clusters,
           wsgemm_epilogue_name(plan.epilogue));
    /* the mirror (n = 64) fills the SMs with cta_group 2 along m without a split */
    p = plan_testing_problem(N, N, 8192, 64, 8192, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.tiles_p == 64 && plan.grid_clusters * plan.cluster >= 64, "n=64: %d P tiles, %lld clusters of %d",
           plan.tiles_p, plan.grid_clusters, plan.cluster);

    /* m = 1 with lda = 1 (op N): a K-major row, no staging copy */
    p = plan_testing_problem(N, N, 1, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(!plan.a.staged && plan.a.k_major && plan.epilogue == WSGEMM_EPILOGUE_DIRECT,
           "m=1: A staged %d k_major %d epilogue %s (2 bytes per column: per-element stores)", plan.a.staged,
           plan.a.k_major, wsgemm_epilogue_name(plan.epilogue));

    /* 4099^3: both operands re-pitched (A then B), C's rows are not whole 16-byte chunks: per-element stores */
    p = plan_testing_problem(N, N, 4099, 4099, 4099, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.a.staged && plan.b.staged && plan.a.stage_offset == 0 &&
               plan.b.stage_offset == (plan.a.stage_bytes + 255) / 256 * 256 && plan.epilogue == WSGEMM_EPILOGUE_DIRECT,
           "4099^3: staged %d %d at %zu %zu, epilogue %s", plan.a.staged, plan.b.staged, plan.a.stage_offset,
           plan.b.stage_offset, wsgemm_epilogue_name(plan.epilogue));
    /* a misaligned A base (2 bytes past 16): staged */
    p = plan_testing_problem(T, N, 1024, 1024, 1024, 2, BF, BF, 0.5f, 0, 1);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.a.staged && !plan.b.staged, "misaligned A: staged %d %d", plan.a.staged, plan.b.staged);

    /* knobs: forced cta_group, split count, grid, per-element stores */
    wsgemm_knobs forced = kn;
    forced.sm100_cta_group = 1;
    forced.sm100_splitk = 3;
    forced.sm100_ctas = 12;
    forced.sm100_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
    p = plan_testing_problem(T, T, 300, 700, 1000, 2, BF, WSGEMM_R_16F, -0.5f, 3, 1);
    plan = plan_of(&p, &forced, &b200);
    check_invariants(&p, &plan, &forced);
    EXPECT(plan.cluster == 1 && plan.splits == 3 && plan.grid_clusters == 12 &&
               plan.partials_bytes == 3u * 300u * 700u * 2u * 4u && plan.a.staged &&
               plan.epilogue == WSGEMM_EPILOGUE_DIRECT,
           "forced: cta_group %d splits %d grid %lld partials %zu staged A %d epilogue %s", plan.cluster, plan.splits,
           plan.grid_clusters, plan.partials_bytes, plan.a.staged, wsgemm_epilogue_name(plan.epilogue));
    forced = kn;
    forced.sm100_cta_group = 2;
    forced.sm100_ctas = 7; /* rounded up to whole pairs */
    p = plan_testing_problem(T, N, 100, 300, 70, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &forced, &b200);
    check_invariants(&p, &plan, &forced);
    EXPECT(plan.cluster == 2 && plan.grid_clusters == 4, "forced pair grid: cta_group %d clusters %lld", plan.cluster,
           plan.grid_clusters);

    /* the grid follows the co-resident clusters the device reports, not sm_count / 2 */
    model partial = {148, 60, 1};
    p = plan_testing_problem(T, N, 8192, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &partial);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.max_clusters == 60 && plan.grid_clusters == 60, "60 pairs fit: grid %lld (max %d)", plan.grid_clusters,
           plan.max_clusters);
    /* no cta_group 2 kernel: cta_group 1 */
    model single = {148, 0, 0};
    plan = plan_of(&p, &kn, &single);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.cluster == 1 && plan.grid_clusters == 148, "no pair kernel: cta_group %d grid %lld", plan.cluster,
           plan.grid_clusters);

    /* long K: no accumulator chain longer than 4096 K blocks (k = 2^28: at least 1024 splits) */
    p = plan_testing_problem(N, N, 64, 64, 1 << 28, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.splits >= 1024 && plan.sched.k_blocks_per_split <= 4096, "k = 2^28: %d splits of %d K blocks",
           plan.splits, plan.sched.k_blocks_per_split);
    printf("choices: pair tiles for squares, split-K for decode, TMA C for beta != 0, staging, knobs, grid from the "
           "query\n");
}

/* A fused output op for p (wsgemm_matmul's: its C is D unless c_is_d is 0). */
static wsgemm_fused_epilogue fused_for(const wsgemm_problem *p, int c_is_d)
{
    wsgemm_fused_epilogue f = {0};
    f.ops = wsgemm_fused_ops_of(WSGEMM_MATMUL_EPILOGUE_GELU_BIAS);
    f.c = c_is_d ? p->C : (const void *)((uintptr_t)p->C + ((uintptr_t)1 << 30));
    f.c_type = (int)p->Ctype;
    f.ldc = p->ldc;
    return f;
}

static void expect_declined(const wsgemm_problem *p, const wsgemm_knobs *kn, model *md, const char *what)
{
    wsgemm_plan plan;
    char why[256] = "";
    const wsgemm_status s = sm100_plan_make(p, kn, model_query, md, &plan, why, sizeof why);
    EXPECT(s == WSGEMM_STATUS_NOT_SUPPORTED && why[0], "%s: status %d, reason '%s'", what, (int)s, why);
    if (s == WSGEMM_STATUS_NOT_SUPPORTED) printf("  declined %s: %s\n", what, why);
    checked++;
}

static void case_fp8_fused(void)
{
    model b200 = {148, 74, 1};
    const wsgemm_knobs kn = wsgemm_knobs_defaults();
    const wsgemm_op N = WSGEMM_OP_N, T = WSGEMM_OP_T;
    const wsgemm_dtype BF = WSGEMM_R_16BF, E4 = WSGEMM_R_8F_E4M3, E5 = WSGEMM_R_8F_E5M2;
    char line[640];

    /* 8192^3 E4M3 -> bf16 (both K-major): pair tiles, 64 K blocks of 128, nothing staged */
    wsgemm_problem p = plan_testing_problem(T, N, 8192, 8192, 8192, 1, E4, BF, 0.0f, 0, 0);
    wsgemm_plan plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    wsgemm_plan_describe(&plan, &p, line, sizeof line);
    printf("  %s\n", line);
    EXPECT(plan.cluster == 2 && plan.bk == 128 && plan.sched.k_blocks == 64 && !plan.a.staged && !plan.b.staged &&
               !plan.p_mn && !plan.q_mn,
           "FP8 8192^3: cta_group %d bk %d k_blocks %d staged %d %d", plan.cluster, plan.bk, plan.sched.k_blocks,
           plan.a.staged, plan.b.staged);
    /* MN-major FP8 (NN, E5M2 x E4M3): read as stored (kind::f8f6f4 takes either major) */
    p = plan_testing_problem(N, N, 1024, 1024, 1024, 1, E5, BF, 0.0f, 0, 0);
    p.Btype = E4;
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.p_mn && !plan.q_mn && !plan.a.staged && !plan.b.staged, "FP8 NN: majors %d %d staged %d %d", plan.p_mn,
           plan.q_mn, plan.a.staged, plan.b.staged);
    /* an MN-major FP8 A with an odd leading dimension: a K-major copy */
    p = plan_testing_problem(N, T, 1000, 520, 300, 1, E4, BF, 0.0f, 3, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.a.staged && !plan.p_mn && plan.a.stage_bytes == (size_t)304 * 1000,
           "FP8 odd lda: staged %d MN %d bytes %zu", plan.a.staged, plan.p_mn, plan.a.stage_bytes);

    /* declined: E5M2 x E5M2; bf16 with FP8; scales without the fused op; the fused op past one chain */
    p = plan_testing_problem(T, N, 256, 256, 256, 1, E5, BF, 0.0f, 0, 0);
    expect_declined(&p, &kn, &b200, "E5M2 x E5M2");
    p = plan_testing_problem(T, N, 256, 256, 256, 1, BF, BF, 0.0f, 0, 0);
    p.Btype = E4;
    expect_declined(&p, &kn, &b200, "bf16 x E4M3");
    static const float one = 1.0f; /* never read: the planner only sees that a scale is given */
    p = plan_testing_problem(T, N, 256, 256, 256, 1, E4, BF, 0.0f, 0, 0);
    p.a_scale = &one;
    expect_declined(&p, &kn, &b200, "a_scale without the fused op");
    p = plan_testing_problem(T, N, 64, 64, 4096 * 64 + 1, 1, BF, BF, 0.0f, 0, 0);
    wsgemm_fused_epilogue f = fused_for(&p, 1);
    p.fused = &f;
    expect_declined(&p, &kn, &b200, "fused op over 4097 K blocks");

    /* the fused op: m = 64 decode stays one chain (the plain call splits it); beta != 0 reads C through the
     * chunks only when C is D; an E4M3 D is stored per element */
    p = plan_testing_problem(N, N, 64, 8192, 8192, 1, E4, BF, 0.0f, 0, 0);
    f = fused_for(&p, 1);
    p.fused = &f;
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.splits == 1, "fused decode: %d splits", plan.splits);
    p = plan_testing_problem(T, N, 1024, 1024, 1024, 1, BF, BF, 1.0f, 0, 0);
    f = fused_for(&p, 1);
    p.fused = &f;
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_STAGED, "fused, C is D, beta 1: epilogue %s",
           wsgemm_epilogue_name(plan.epilogue));
    /* C not D, of D's type: C loaded by TMA from its own map (STAGED); another type, or an address TMA cannot
     * read: per element */
    f = fused_for(&p, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_STAGED && sm100_plan_c_is_separate(&p),
           "fused, C is not D, beta 1: epilogue %s", wsgemm_epilogue_name(plan.epilogue));
    f.ldc = p.ldc + 8; /* C with its own leading dimension (16-byte multiple) */
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_STAGED, "fused, C's own ldc: epilogue %s",
           wsgemm_epilogue_name(plan.epilogue));
    f.ldc = p.ldc + 1; /* rows of C not 16-byte aligned */
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_DIRECT, "fused, C's ldc odd: epilogue %s",
           wsgemm_epilogue_name(plan.epilogue));
    f = fused_for(&p, 0);
    f.c = (const void *)((uintptr_t)f.c + 2); /* a base 2 bytes past 16 */
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_DIRECT, "fused, C misaligned: epilogue %s",
           wsgemm_epilogue_name(plan.epilogue));
    /* an E4M3 D: TMA stores with beta 0; beta != 0 reads a 16-bit C, which the 1-byte chunks cannot hold */
    p = plan_testing_problem(T, N, 1024, 1024, 1024, 1, E4, E4, 0.0f, 0, 0);
    f = fused_for(&p, 1);
    p.fused = &f;
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_TMA, "E4M3 D, beta 0: epilogue %s", wsgemm_epilogue_name(plan.epilogue));
    p.beta = 1.0f;
    f = fused_for(&p, 0);
    f.c_type = (int)BF;
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_DIRECT, "E4M3 D over a bf16 C: epilogue %s",
           wsgemm_epilogue_name(plan.epilogue));
    p = plan_testing_problem(T, N, 1000, 1024, 1024, 1, E4, E4, 0.0f, 0, 0); /* m = 1000: 1000 bytes per column */
    f = fused_for(&p, 1);
    p.fused = &f;
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.epilogue == WSGEMM_EPILOGUE_DIRECT, "E4M3 D, m = 1000: epilogue %s",
           wsgemm_epilogue_name(plan.epilogue));
    printf("fp8_fused: 128-K FP8 blocks read as stored or copied K-major, declines, fused op in one chain\n");
}

static void case_sweep(void)
{
    static const int dims[] = {1, 7, 16, 64, 100, 128, 129, 256, 300, 520, 1000, 1024, 2048, 4096, 4099, 8192};
    enum { D = (int)(sizeof dims / sizeof dims[0]) };
    static const int ks[] = {1, 63, 64, 300, 1024, 4096, 14336};
    model b200 = {148, 74, 1}, partial = {148, 60, 1}, single = {20, 0, 0};
    model *models[3] = {&b200, &partial, &single};
    enum { K = 8 };
    wsgemm_knobs knob_sets[K];
    for (int i = 0; i < K; ++i) knob_sets[i] = wsgemm_knobs_defaults();
    knob_sets[1].sm100_cta_group = 1;
    knob_sets[2].sm100_splitk = 3;
    knob_sets[3].sm100_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
    knob_sets[4].sm100_ctas = 12;
    knob_sets[5].sm100_group = 3;
    knob_sets[6].sm100_clc = 1;
    knob_sets[7].sm100_clc = 1;
    knob_sets[7].sm100_ctas = 12;
    unsigned r = 4242u;
    for (int mi = 0; mi < D; ++mi)
        for (int ni = 0; ni < D; ++ni)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
                r = r * 1103515245u + 12345u;
                wsgemm_problem p = plan_testing_random_problem(r, dims[mi], dims[ni], ks[ki]);
                if ((r >> 21) % 5 == 0 && dims[ni] > 1) p.ldb += 1; /* an odd leading dimension of B */
                for (int kn = 0; kn < K; ++kn) {
                    wsgemm_plan plan = plan_of(&p, &knob_sets[kn], models[(r >> 23) % 3]);
                    check_invariants(&p, &plan, &knob_sets[kn]);
                }
                /* the same problem with FP8 inputs and / or the fused op (its C is D or another matrix) */
                wsgemm_problem q = p;
                const int variant = (int)((r >> 25) % 3);
                if (variant != 1) q.Atype = q.Btype = (r >> 27) & 1 ? WSGEMM_R_8F_E4M3 : WSGEMM_R_8F_E5M2;
                if (variant != 1 && q.Atype == WSGEMM_R_8F_E5M2) q.Btype = WSGEMM_R_8F_E4M3; /* not both E5M2 */
                wsgemm_fused_epilogue f = fused_for(&q, (r >> 28) & 1);
                if (variant != 2) {
                    q.batch_count = 1; /* wsgemm_matmul: one matrix */
                    q.fused = &f;
                }
                for (int kn = 0; kn < K; ++kn) {
                    wsgemm_plan plan = plan_of(&q, &knob_sets[kn], models[(r >> 23) % 3]);
                    check_invariants(&q, &plan, &knob_sets[kn]);
                }
            }
    printf("sweep: %lld plans hold the workspace, staging, split, grid and epilogue invariants\n", checked);
}

/* WSGEMM_SM100_CLC=1: the CLC variant where its kernel exists (bf16 C, one K split), the static one elsewhere. */
static void case_clc(void)
{
    model b200 = {148, 74, 1};
    const wsgemm_op N = WSGEMM_OP_N, T = WSGEMM_OP_T;
    const wsgemm_dtype BF = WSGEMM_R_16BF;
    wsgemm_knobs kn = wsgemm_knobs_defaults();
    kn.sm100_clc = 1;

    /* a big square: pairs, the grid is every unit, 74 pairs at once */
    wsgemm_problem p = plan_testing_problem(T, N, 8192, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    wsgemm_plan plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.variant == SM100_VARIANT_CLC && plan.cluster == 2 && plan.grid_clusters == 32 * 32 &&
               plan.max_clusters == 74,
           "8192^3 CLC: variant %d cta_group %d grid %lld at once %d", plan.variant, plan.cluster, plan.grid_clusters,
           plan.max_clusters);
    /* the same with the knob off: static, the co-resident grid */
    const wsgemm_knobs off = wsgemm_knobs_defaults();
    plan = plan_of(&p, &off, &b200);
    check_invariants(&p, &plan, &off);
    EXPECT(plan.variant == SM100_VARIANT_STATIC && plan.grid_clusters == 74, "8192^3 static: variant %d grid %lld",
           plan.variant, plan.grid_clusters);
    /* the m = 64 decode splits K under the static schedule; asked for CLC it takes one split (the cost model's
     * choice among one-split plans), cta_group 1, one cluster per unit */
    p = plan_testing_problem(N, N, 64, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.variant == SM100_VARIANT_CLC && plan.splits == 1 && plan.cluster == 1 && plan.grid_clusters == 32,
           "m=64 CLC: variant %d splits %d cta_group %d grid %lld", plan.variant, plan.splits, plan.cluster,
           plan.grid_clusters);
    /* no CLC kernel for f16 or fp32 C: static */
    static const wsgemm_dtype others[] = {WSGEMM_R_16F, WSGEMM_R_32F};
    for (int i = 0; i < 2; ++i) {
        p = plan_testing_problem(T, N, 2048, 2048, 2048, 1, BF, others[i], 0.0f, 0, 0);
        plan = plan_of(&p, &kn, &b200);
        check_invariants(&p, &plan, &kn);
        EXPECT(plan.variant == SM100_VARIANT_STATIC, "C type %d with CLC asked: variant %d", (int)others[i],
               plan.variant);
    }
    /* a forced split: static (the CLC kernels write C from one split) */
    wsgemm_knobs split = kn;
    split.sm100_splitk = 4;
    p = plan_testing_problem(T, N, 2048, 2048, 8192, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &split, &b200);
    check_invariants(&p, &plan, &split);
    EXPECT(plan.variant == SM100_VARIANT_STATIC && plan.splits == 4, "forced 4 splits with CLC: variant %d splits %d",
           plan.variant, plan.splits);
    /* a chain longer than WSGEMM_MAX_CHAIN_BLOCKS needs splits: static */
    p = plan_testing_problem(T, N, 256, 256, 64 * (WSGEMM_MAX_CHAIN_BLOCKS + 1), 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.variant == SM100_VARIANT_STATIC && plan.splits >= 2, "k of %d blocks with CLC: variant %d splits %d",
           (int)WSGEMM_MAX_CHAIN_BLOCKS + 1, plan.variant, plan.splits);
    /* a forced grid: the clusters that run at once (the emulated tests' few clusters over many units) */
    static const int groups[] = {1, 2};
    for (int g = 0; g < 2; ++g) {
        wsgemm_knobs few = kn;
        few.sm100_cta_group = groups[g];
        few.sm100_ctas = 2;
        p = plan_testing_problem(T, N, 512, 768, 256, 1, BF, BF, 0.0f, 0, 0);
        plan = plan_of(&p, &few, &b200);
        check_invariants(&p, &plan, &few);
        const long long units = (512 / (128 * groups[g])) * 3;
        EXPECT(plan.variant == SM100_VARIANT_CLC && plan.cluster == groups[g] && plan.grid_clusters == units &&
                   plan.max_clusters == 2 / groups[g],
               "cta_group %d, 2 CTAs forced, CLC: variant %d grid %lld (want %lld) at once %d", groups[g], plan.variant,
               plan.grid_clusters, units, plan.max_clusters);
    }
    printf("clc: %lld plans: CLC where its kernel serves, the static schedule elsewhere\n", checked);
}

/* mx: block-scaled MX plans (VEC32_UE8M0 on A and B): the 128 x 192 kernel, K-major operands (MN-major ones copied),
 * one K split, the static schedule, the scale chunks after everything else in the workspace; declines (a D other
 * than bf16, a batch, other scale tensors); and the chunk mapping the launcher's rearrangement follows. */
static void case_mx(void)
{
    model b200 = {148, 74, 1};
    wsgemm_knobs kn = wsgemm_knobs_defaults();
    const wsgemm_op N = WSGEMM_OP_N, T = WSGEMM_OP_T;
    const wsgemm_dtype BF = WSGEMM_R_16BF, E4 = WSGEMM_R_8F_E4M3, E5 = WSGEMM_R_8F_E5M2, F32 = WSGEMM_R_32F;
    static const struct {
        wsgemm_op ta, tb;
        int m, n, k;
        wsgemm_dtype a;
    } shapes[] = {{T, N, 8192, 8192, 8192, E4},     {T, N, 64, 8192, 8192, E4},    {N, T, 1000, 520, 288, E4},
                  {N, N, 129, 385, 96, E5},         {T, T, 4096, 14336, 4096, E4}, {T, N, 1, 1, 32, E4},
                  {T, N, 256, 192 * 7 + 1, 160, E4}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        wsgemm_problem p = plan_testing_problem(shapes[i].ta, shapes[i].tb, shapes[i].m, shapes[i].n, shapes[i].k, 1,
                                                shapes[i].a, BF, 0.0f, 0, 0);
        p.Btype = E4;
        p.a_scale_mode = p.b_scale_mode = WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
        wsgemm_fused_epilogue f = fused_for(&p, 1);
        p.fused = &f;
        const wsgemm_plan plan = plan_of(&p, &kn, &b200);
        check_invariants(&p, &plan, &kn);
        char line[640];
        wsgemm_plan_describe(&plan, &p, line, sizeof line);
        printf("  %s\n", line);
        const sm100_mx_scales_layout l = sm100_mx_scales_layout_of(p.m, p.n, p.k);
        EXPECT(plan.scales == SM100_SCALES_MX && plan.bn == SM100_BN_MX && plan.bk == 128 &&
                   plan.stages == SM100_MX_STAGES && plan.splits == 1 && plan.variant == SM100_VARIANT_STATIC &&
                   !plan.p_mn && !plan.q_mn && plan.a.staged == (shapes[i].ta == N && p.m > 1) &&
                   plan.b.staged == (shapes[i].tb == T && p.n > 1),
               "MX %dx%dx%d: scales %d bn %d stages %d splits %d variant %d majors %d %d staged %d %d", p.m, p.n, p.k,
               plan.scales, plan.bn, plan.stages, plan.splits, plan.variant, plan.p_mn, plan.q_mn, plan.a.staged,
               plan.b.staged);
        const size_t a_end = plan.a.staged ? plan.a.stage_offset + plan.a.stage_bytes : 0;
        const size_t b_end = plan.b.staged ? plan.b.stage_offset + plan.b.stage_bytes : 0;
        EXPECT(plan.scales_offset % 256 == 0 && plan.scales_offset >= a_end && plan.scales_offset >= b_end &&
                   plan.scales_bytes == l.bytes &&
                   l.a_bytes == (size_t)((p.m + 127) / 128) * (size_t)((p.k + 127) / 128) * 512u &&
                   l.b_bytes == (size_t)((p.n + 191) / 192) * (size_t)((p.k + 127) / 128) * 1024u &&
                   l.b_offset >= l.a_bytes && l.b_offset % 256 == 0,
               "MX %dx%dx%d: scale chunks at %zu, %zu bytes (A %zu, B %zu at %zu)", p.m, p.n, p.k, plan.scales_offset,
               plan.scales_bytes, l.a_bytes, l.b_bytes, l.b_offset);
    }
    /* a forced split or the CLC schedule do not apply: one chain, static */
    kn.sm100_splitk = 3;
    kn.sm100_clc = 1;
    wsgemm_problem p = plan_testing_problem(T, N, 256, 384, 1024, 1, E4, BF, 0.0f, 0, 0);
    p.a_scale_mode = p.b_scale_mode = WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
    wsgemm_fused_epilogue f = fused_for(&p, 1);
    p.fused = &f;
    wsgemm_plan plan = plan_of(&p, &kn, &b200);
    check_invariants(&p, &plan, &kn);
    EXPECT(plan.splits == 1 && plan.variant == SM100_VARIANT_STATIC, "MX, forced split and CLC: %d splits variant %d",
           plan.splits, plan.variant);
    kn = wsgemm_knobs_defaults();
    /* declined: an fp32 D, a batch, a chain past WSGEMM_MAX_CHAIN_BLOCKS, VEC128 scales (no sm100 kernel applies
     * them) */
    p.Ctype = F32;
    f = fused_for(&p, 1);
    expect_declined(&p, &kn, &b200, "MX with an fp32 D");
    p = plan_testing_problem(T, N, 256, 384, 1024, 2, E4, BF, 0.0f, 0, 0);
    p.a_scale_mode = p.b_scale_mode = WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
    f = fused_for(&p, 1);
    p.fused = &f;
    expect_declined(&p, &kn, &b200, "MX with a batch of 2");
    p = plan_testing_problem(T, N, 64, 64, 4097 * 128, 1, E4, BF, 0.0f, 0, 0);
    p.a_scale_mode = p.b_scale_mode = WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
    f = fused_for(&p, 1);
    p.fused = &f;
    expect_declined(&p, &kn, &b200, "MX over 4097 K blocks");
    p = plan_testing_problem(T, N, 256, 384, 1024, 1, E4, BF, 0.0f, 0, 0);
    p.a_scale_mode = WSGEMM_MATMUL_SCALE_VEC128_32F;
    p.b_scale_mode = WSGEMM_MATMUL_SCALE_BLK128x128_32F;
    f = fused_for(&p, 1);
    p.fused = &f;
    expect_declined(&p, &kn, &b200, "VEC128_32F x BLK128x128_32F");

    /* the chunk mapping: every source byte lands exactly once, where the MMA reads it (row r of a tile, sub-block
     * s of k-block kb: chunk (tile, kb, r / 128), byte umma_sf_chunk_offset(r % 128, s)); the rest is padding */
    static const struct {
        long long outer;
        int k32, tile_rows;
    } maps[] = {{128, 4, 128}, {300, 5, 128},         {1, 1, 128},
                {192, 8, 192}, {385, 3, SM100_BN_MX}, {1000, 9, SM100_BN_MX}};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; ++i) {
        const long long outer = maps[i].outer;
        const int k32 = maps[i].k32, rows = maps[i].tile_rows, kbs = (k32 + 3) / 4, chunks = (rows + 127) / 128;
        const long long tiles = (outer + rows - 1) / rows, bytes = tiles * kbs * chunks * 512;
        unsigned char *seen = calloc((size_t)(outer * k32), 1);
        int bad = 0;
        long long pads = 0;
        for (long long idx = 0; idx < bytes; ++idx) {
            const long long from = sm100_mx_scale_source(idx, outer, k32, kbs, rows);
            if (from < 0) {
                ++pads;
                continue;
            }
            const long long r = from % outer, b = from / outer, tile = r / rows, rt = r % rows;
            const long long want = ((tile * kbs + b / 4) * chunks + rt / 128) * 512 +
                                   umma_sf_chunk_offset((uint32_t)(rt % 128), (uint32_t)(b % 4));
            bad += from >= outer * k32 || seen[from]++ || want != idx;
        }
        for (long long j = 0; j < outer * k32; ++j) bad += seen[j] != 1;
        EXPECT(bad == 0 && pads == bytes - outer * k32, "MX chunks of %lld x %d (tiles of %d rows): %d misplaced",
               outer, k32, rows, bad);
        free(seen);
        checked++;
    }
    printf("mx: the 128 x 192 block-scaled kernel's plans, declines and scale chunks\n");
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "choices";
    if (strcmp(which, "choices") == 0)
        case_choices();
    else if (strcmp(which, "sweep") == 0)
        case_sweep();
    else if (strcmp(which, "fp8_fused") == 0)
        case_fp8_fused();
    else if (strcmp(which, "clc") == 0)
        case_clc();
    else if (strcmp(which, "mx") == 0)
        case_mx();
    else {
        fprintf(stderr, "unknown case '%s'\n", which);
        return 2;
    }
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
