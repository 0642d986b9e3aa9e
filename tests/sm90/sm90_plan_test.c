/*
 * sm90_plan_test.c - CPU checks of the sm90 planner (gemm/sm90/sm90_plan.c) against a model of the H200:
 * the kernel table of sm90_kernel.cuh (which (BN, variant, majorness, type) exist, their stages and cluster)
 * and 132 / cluster co-resident clusters.
 *
 *   choices  representative shapes and what the plan must choose: the decode shapes whose small side fits
 *            one 64-wide tile get the 4-CTA cluster, a one-row operand with ld 1 is read in place, big
 *            squares take BN 256 with the deferred epilogue, beta != 0 and fp32 C the staged C tile (never
 *            the deferred one; the tile-end stores with WSGEMM_SM90_EPILOGUE=tma),
 *            forced split-K sizes its partials, 4099^3 stages both operands, the pingpong kernel when asked for.
 *   sweep    on 20230 problem x knob combinations (shapes 1..8192, K 1..14336, ops, types, beta, batch,
 *            padded, shared and misaligned operands, variant/BN/split/epilogue knobs, two device sizes): the
 *            workspace holds the staged copies and the partials without overlap, 256-byte aligned, and is
 *            exactly what the launcher reserves (workspace_bytes); partials are splits x m x n x batch fp32;
 *            the grid never exceeds the units or the co-resident clusters; deferred stores only with beta 0
 *            and C of the input type; split-K only with per-element stores; the staged epilogue only on its
 *            kernels (BN 256 for 16-bit C, BN 128 for fp32 C); the pingpong schedule only on its kernel (BN 128)
 *            with tile-end stores; the schedule always of the plan's tile.
 * Prints what it checked; exits 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tma.h"
#include "sm90/sm90_plan.h"
#include "sm90/sm90_tile.h"
#include "testing.h"

static int failures;
static long long checked;

#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* ---------------------------------------------------------------- the device model */

typedef struct model {
    int sm_count;
} model;

/* sm90_kernel.cuh's SM90_DEFINE_KERNELS and SM90_DEFINE_STAGED_KERNELS as instantiated by sm90_inst_*.cu:
 * variant 0 everywhere; variant 3 (4-CTA cluster) for BN 64 and 128; variants 1 and 2 for bf16, BN 256,
 * K-major P; the STAGED kernels, variant 4 at BN 256 and 5 at BN 128; the pingpong ones, variant 6 at
 * BN 128. */
static wsgemm_status model_query(void *ctx, int bn, int variant, int p_mn, int q_mn, int bf16, sm90_kernel_facts *f)
{
    const model *m = ctx;
    (void)q_mn;
    memset(f, 0, sizeof *f);
    const int stages = bn == 256 ? 4 : bn == 128 ? 6 : 8;
    if (variant == 0) *f = (sm90_kernel_facts){.exists = 1, .bn = bn, .stages = stages, .cluster = 2};
    else if (variant == 3 && bn != 256) *f = (sm90_kernel_facts){.exists = 1, .bn = bn, .stages = stages, .cluster = 4};
    else if (variant == 1 && bf16 && bn == 256 && !p_mn)
        *f = (sm90_kernel_facts){.exists = 1, .bn = bn, .stages = stages, .cluster = 1};
    else if (variant == 2 && bf16 && bn == 256 && !p_mn) *f = (sm90_kernel_facts){.exists = 1, .bn = bn, .stages = 3, .cluster = 2};
    else if (variant == 4 && bn == 256) *f = (sm90_kernel_facts){.exists = 1, .bn = bn, .stages = 3, .cluster = 2};
    else if (variant == 5 && bn == 128) *f = (sm90_kernel_facts){.exists = 1, .bn = bn, .stages = 5, .cluster = 2};
    else if (variant == 6 && bn == 128) *f = (sm90_kernel_facts){.exists = 1, .bn = bn, .stages = 6, .cluster = 2};
    if (f->exists) {
        f->smem_bytes = (SM90_BM + bn) * SM90_BK * 2 * f->stages + 32768 + 1024;
        f->max_clusters = m->sm_count / f->cluster;
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- problems */

/* A problem with fake device addresses (the planner never dereferences them; alignment is all it reads). */
static wsgemm_problem problem(wsgemm_op ta, wsgemm_op tb, int m, int n, int k, int batch, wsgemm_dtype ab,
                              wsgemm_dtype c, float beta, int pad, int misalign)
{
    const int ra = ta == WSGEMM_OP_N ? m : k, ca = ta == WSGEMM_OP_N ? k : m;
    const int rb = tb == WSGEMM_OP_N ? k : n, cb = tb == WSGEMM_OP_N ? n : k;
    const int lda = ra + pad, ldb = rb + pad, ldc = m + (pad ? 8 : 0);
    const uintptr_t base = (uintptr_t)1 << 32;
    wsgemm_problem p = {
        .transa = ta, .transb = tb, .m = m, .n = n, .k = k, .alpha = 1.0f, .beta = beta,
        .A = (const void *)(base + 2u * (unsigned)misalign), .Atype = ab, .lda = lda,
        .strideA = (long long)lda * ca,
        .B = (const void *)(base * 3), .Btype = ab, .ldb = ldb, .strideB = batch > 2 ? 0 : (long long)ldb * cb,
        .C = (void *)(base * 5), .Ctype = c, .ldc = ldc, .strideC = (long long)ldc * n,
        .batch_count = batch,
    };
    return p;
}

static void describe(const wsgemm_problem *p, char *buf, size_t size)
{
    snprintf(buf, size, "%c%c m=%d n=%d k=%d batch=%d lda=%d ldb=%d ldc=%d A%%16=%d ab=%d c=%d beta=%g",
             p->transa == WSGEMM_OP_N ? 'N' : 'T', p->transb == WSGEMM_OP_N ? 'N' : 'T', p->m, p->n, p->k,
             p->batch_count, p->lda, p->ldb, p->ldc, (int)((uintptr_t)p->A % 16), (int)p->Atype, (int)p->Ctype,
             (double)p->beta);
}

static wsgemm_plan plan_of(const wsgemm_problem *p, const wsgemm_knobs *kn, model *md)
{
    wsgemm_plan plan;
    char why[256] = "", shape[256];
    const wsgemm_status s = sm90_plan_make(p, kn, model_query, md, &plan, why, sizeof why);
    describe(p, shape, sizeof shape);
    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: declined: %s", shape, why);
    checked++;
    return plan;
}

static int staged_ok(const wsgemm_operand *o)
{
    return !o->staged || (o->stage_offset % 256 == 0 &&
                          o->stage_bytes == (size_t)((o->inner + 7) / 8 * 8) * (size_t)o->cols * (size_t)o->nb * 2u);
}

/* What every plan must hold, whatever it chose. */
static void check_invariants(const wsgemm_problem *p, const wsgemm_plan *plan)
{
    char shape[256];
    describe(p, shape, sizeof shape);
    const size_t want_partials =
        plan->splits > 1 ? (size_t)plan->splits * (size_t)p->m * (size_t)p->n * (size_t)p->batch_count * 4u : 0;
    EXPECT(plan->partials_bytes == want_partials && plan->partials_offset % 256 == 0,
           "%s: %d splits, partials %zu bytes at %zu (want %zu)", shape, plan->splits, plan->partials_bytes,
           plan->partials_offset, want_partials);
    EXPECT(staged_ok(&plan->a) && staged_ok(&plan->b), "%s: staged copies misplaced or mis-sized", shape);
    /* A, B and the partials do not overlap and the workspace covers them all */
    const size_t a_end = plan->a.staged ? plan->a.stage_offset + plan->a.stage_bytes : 0;
    const size_t b_end = plan->b.staged ? plan->b.stage_offset + plan->b.stage_bytes : 0;
    EXPECT(!plan->a.staged || !plan->b.staged || plan->b.stage_offset >= a_end, "%s: staged A and B overlap", shape);
    EXPECT(plan->partials_offset >= a_end && plan->partials_offset >= b_end, "%s: partials overlap a copy", shape);
    EXPECT(plan->workspace_bytes == plan->partials_offset + plan->partials_bytes &&
               (plan->workspace_bytes == 0) == (!plan->a.staged && !plan->b.staged && plan->splits == 1),
           "%s: workspace %zu bytes, partials end at %zu", shape, plan->workspace_bytes,
           plan->partials_offset + plan->partials_bytes);
    EXPECT(plan->sched.units >= 1 && plan->grid_clusters >= 1 && plan->grid_clusters <= plan->max_clusters &&
               plan->grid_clusters <= plan->sched.units,
           "%s: %lld clusters for %lld units, %d fit", shape, plan->grid_clusters, plan->sched.units, plan->max_clusters);
    EXPECT(plan->epilogue != WSGEMM_EPILOGUE_DEFERRED || (p->beta == 0.0f && p->Ctype == p->Atype),
           "%s: deferred epilogue with beta %g or C of another type", shape, (double)p->beta);
    EXPECT(plan->splits == 1 || plan->epilogue == WSGEMM_EPILOGUE_DIRECT, "%s: split-K with a TMA-store epilogue",
           shape);
    EXPECT(plan->epilogue != WSGEMM_EPILOGUE_STAGED ||
               (plan->swap && (p->Ctype == WSGEMM_R_32F ? plan->bn == 128 && plan->variant == 5
                                                          : plan->bn == 256 && plan->variant == 4)),
           "%s: the staged epilogue on bn %d variant %d", shape, plan->bn, plan->variant);
    EXPECT((plan->schedule == WSGEMM_SCHEDULE_PINGPONG) == (plan->variant == SM90_VARIANT_PINGPONG) &&
               (plan->schedule != WSGEMM_SCHEDULE_PINGPONG ||
                (plan->bn == 128 && (plan->epilogue == WSGEMM_EPILOGUE_TMA || plan->epilogue == WSGEMM_EPILOGUE_DIRECT))),
           "%s: schedule %d on variant %d bn %d epilogue %s", shape, (int)plan->schedule, plan->variant, plan->bn,
           wsgemm_epilogue_name(plan->epilogue));
    EXPECT(plan->tiles_q == (int)((plan->q_extent + plan->bn - 1) / plan->bn) &&
               plan->sched.cols == plan->tiles_q && plan->sched.cluster_rows == plan->cluster,
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
        wsgemm_problem p = problem(N, N, ms[i], 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
        wsgemm_plan plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        const int want = ms[i] <= 64 ? 4 : 2;
        EXPECT(plan.cluster == want && plan.swap == 1 && plan.q_extent == ms[i],
               "m=%d n=k=8192: cluster %d swap %d (want cluster %d, the small side on Q)", ms[i], plan.cluster,
               plan.swap, want);
        EXPECT(ms[i] > 64 || (plan.bn == 64 && plan.variant == 3 && plan.splits == 1), "m=%d: bn %d variant %d splits %d",
               ms[i], plan.bn, plan.variant, plan.splits);
        /* the mirror (small n) with m = 4096, k = 14336: 32 P tiles are 8 units of the 4-CTA cluster (16 of the
         * 2-CTA one), so the cost model splits K to fill the SMs; one 64-wide Q tile keeps the 4-CTA cluster */
        p = problem(N, T, 4096, ms[i], 14336, 1, BF, BF, 0.0f, 0, 0);
        plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        EXPECT(plan.swap == 0 && plan.q_extent == ms[i] && plan.splits > 1 && plan.cluster == want,
               "n=%d m=4096 k=14336: swap %d splits %d cluster %d (want split, cluster %d)", ms[i], plan.swap,
               plan.splits, plan.cluster, want);
    }
    /* m = 1 with lda = 1 (op N): a K-major row, no staging copy */
    wsgemm_problem p = problem(N, N, 1, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
    wsgemm_plan plan = plan_of(&p, &kn, &h200);
    EXPECT(!plan.a.staged && plan.a.k_major && plan.workspace_bytes == 0, "m=1: A staged %d k_major %d ws %zu",
           plan.a.staged, plan.a.k_major, plan.workspace_bytes);

    /* big squares: swapped, BN 256, 2-CTA cluster, no split, deferred stores */
    p = problem(N, N, 8192, 8192, 8192, 1, BF, BF, 0.0f, 0, 0);
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
        p = problem(N, N, 4096, 4096, 4096, 1, BF, BF, betas[i], 0, 0);
        plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        EXPECT(plan.epilogue == WSGEMM_EPILOGUE_STAGED && plan.bn == 256 && plan.variant == 4 && plan.stages == 3,
               "beta %g: epilogue %s bn %d variant %d", (double)betas[i], wsgemm_epilogue_name(plan.epilogue), plan.bn,
               plan.variant);
        plan = plan_of(&p, &tma, &h200);
        EXPECT(plan.epilogue == WSGEMM_EPILOGUE_TMA && plan.variant == 0, "beta %g, knob tma: epilogue %s",
               (double)betas[i], wsgemm_epilogue_name(plan.epilogue));
    }
    const float f32_betas[] = {0.0f, 1.0f};
    for (int i = 0; i < 2; ++i) {
        p = problem(N, N, 8192, 8192, 8192, 1, BF, F32, f32_betas[i], 0, 0);
        plan = plan_of(&p, &kn, &h200);
        check_invariants(&p, &plan);
        EXPECT(plan.epilogue == WSGEMM_EPILOGUE_STAGED && plan.bn == 128 && plan.variant == 5 &&
                   plan.tiles_q == 8192 / 128,
               "fp32 C beta %g: epilogue %s bn %d variant %d", (double)f32_betas[i], wsgemm_epilogue_name(plan.epilogue),
               plan.bn, plan.variant);
    }
    /* the pingpong schedule when asked for (variant 6, BN 128): tile-end stores (its overlap is the other
     * warpgroup's main loop), staged never */
    wsgemm_knobs pp = kn;
    pp.sm90_variant = SM90_VARIANT_PINGPONG;
    pp.sm90_bn = 128;
    const float pp_betas[] = {0.0f, 1.0f};
    for (int i = 0; i < 2; ++i) {
        p = problem(N, N, 8192, 8192, 1024, 1, BF, BF, pp_betas[i], 0, 0);
        plan = plan_of(&p, &pp, &h200);
        check_invariants(&p, &plan);
        EXPECT(plan.schedule == WSGEMM_SCHEDULE_PINGPONG && plan.epilogue == WSGEMM_EPILOGUE_TMA && plan.cluster == 2,
               "pingpong beta %g: schedule %d epilogue %s", (double)pp_betas[i], (int)plan.schedule,
               wsgemm_epilogue_name(plan.epilogue));
    }
    /* a small C tile grid: the cost model's BN 64 has no staged kernel; tile-end stores */
    p = problem(N, N, 100, 1000, 1000, 1, BF, BF, 1.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.epilogue != WSGEMM_EPILOGUE_STAGED || plan.bn == 256, "100x1000 beta 1: bn %d epilogue %s", plan.bn,
           wsgemm_epilogue_name(plan.epilogue));

    /* forced split-K: partials sized splits x m x n x batch fp32, after the staged copies */
    wsgemm_knobs split3 = kn;
    split3.sm90_splitk = 3;
    p = problem(T, N, 300, 700, 1000, 2, BF, WSGEMM_R_16F, -0.5f, 3, 1);
    plan = plan_of(&p, &split3, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.splits == 3 && plan.partials_bytes == 3u * 300u * 700u * 2u * 4u && plan.a.staged &&
               plan.epilogue == WSGEMM_EPILOGUE_DIRECT,
           "split 3: splits %d partials %zu staged A %d epilogue %s", plan.splits, plan.partials_bytes, plan.a.staged,
           wsgemm_epilogue_name(plan.epilogue));

    /* long K: no accumulator chain longer than 4096 K blocks (k = 2^28: at least 1024 splits) */
    p = problem(N, N, 64, 64, 1 << 28, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.splits >= 1024 && plan.sched.k_blocks_per_split <= 4096, "k = 2^28: %d splits of %d K blocks",
           plan.splits, plan.sched.k_blocks_per_split);

    /* 4099^3: both operands re-pitched, A then B then nothing */
    p = problem(N, N, 4099, 4099, 4099, 1, BF, BF, 0.0f, 0, 0);
    plan = plan_of(&p, &kn, &h200);
    check_invariants(&p, &plan);
    EXPECT(plan.a.staged && plan.b.staged && plan.a.stage_offset == 0 &&
               plan.b.stage_offset == (plan.a.stage_bytes + 255) / 256 * 256 && plan.splits == 1,
           "4099^3: staged %d %d at %zu %zu", plan.a.staged, plan.b.staged, plan.a.stage_offset, plan.b.stage_offset);
    printf("choices: decode clusters, K-major rows, deferred only for beta 0 and 16-bit C, split-K partials, "
           "staging layout\n");
}

/* The invariants on a sweep of problems and knob settings. */
static void case_sweep(void)
{
    static const int dims[] = {1, 7, 16, 64, 100, 128, 129, 256, 300, 520, 1000, 1024, 2048, 3072, 4096, 4099, 8192};
    enum { D = (int)(sizeof dims / sizeof dims[0]) };
    static const int ks[] = {1, 63, 64, 300, 1024, 4096, 14336};
    model h200 = {132}, small = {20};
    model *models[2] = {&h200, &small};
    wsgemm_knobs knob_sets[10];
    for (int i = 0; i < 10; ++i) knob_sets[i] = wsgemm_knobs_defaults();
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
    unsigned r = 12345u;
    for (int mi = 0; mi < D; ++mi)
        for (int ni = 0; ni < D; ++ni)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
                r = r * 1103515245u + 12345u;
                const wsgemm_op ta = (r >> 8) & 1 ? WSGEMM_OP_T : WSGEMM_OP_N;
                const wsgemm_op tb = (r >> 9) & 1 ? WSGEMM_OP_T : WSGEMM_OP_N;
                const wsgemm_dtype ab = (r >> 10) & 1 ? WSGEMM_R_16F : WSGEMM_R_16BF;
                const wsgemm_dtype cs[3] = {ab, WSGEMM_R_32F, ab == WSGEMM_R_16BF ? WSGEMM_R_16F : WSGEMM_R_16BF};
                const wsgemm_dtype c = cs[(r >> 11) % 3];
                const float beta = (r >> 13) & 1 ? 0.0f : 1.0f;
                const int batch = 1 + (int)((r >> 14) % 4);
                const int pad = (r >> 16) % 4 == 0 ? 3 : 0;
                const int misalign = (r >> 18) % 8 == 0;
                wsgemm_problem p = problem(ta, tb, dims[mi], dims[ni], ks[ki], batch, ab, c, beta, pad, misalign);
                for (int kn = 0; kn < 10; ++kn) {
                    wsgemm_plan plan = plan_of(&p, &knob_sets[kn], models[(r >> 20) & 1]);
                    check_invariants(&p, &plan);
                }
            }
    printf("sweep: %lld plans hold the workspace, split, grid and epilogue invariants\n", checked);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "choices";
    if (strcmp(which, "choices") == 0) case_choices();
    else if (strcmp(which, "sweep") == 0) case_sweep();
    else {
        fprintf(stderr, "unknown case '%s'\n", which);
        return 2;
    }
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
