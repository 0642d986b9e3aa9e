// SPDX-License-Identifier: MIT
/*
 * batch_invariance_plan_test.c - CPU checks of batch invariance in both planners (gemm/sm90/sm90_plan.c,
 * gemm/sm100/sm100_plan.c) against their models of the H200 and the B200 (the same models as
 * tests/sm90/sm90_plan_test.c and tests/sm100/sm100_plan_test.c).
 *
 *   sm90     for every fixed side in {1, 7, 64, 65, 128, 129, 256, 1000, 4096, 14336}, K in {1, 64, 100, 4096,
 *            14336, 300000}, 16-bit and FP8 types, every op pair, C types, beta 0 and 1, batch 1 and 3, padded
 *            and misaligned operands, plain and fused, with the knobs unset and with some forced: over the
 *            varying side 1..4096 (m under ON, n under ON_N) the plan declines for every size or for none, and
 *            every field that decides an element's arithmetic is the same for all of them: orientation, input
 *            kind, tile (BM, BN, BK), kernel variant, ring, cluster, schedule, operand majorness, K splits and
 *            blocks per split, epilogue; never a split region; the varying side on P. ON declines the fused
 *            ops; ON_N plans them.
 *   sm100    the same over the sm100 planner: cta_group, K splits, epilogue, operand majorness, tile.
 *   teeth    the same comparison with batch invariance OFF finds plans that differ across the varying side
 *            (the default plan follows m: split-K, 4-CTA clusters, tile widths), so the check above can fail.
 * Prints what it checked; exits 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/knobs.h"
#include "sm100/sm100_plan.h"
#include "sm90/sm90_plan.h"
#include "sm90/sm90_table.h"
#include "sm90/sm90_tile.h"
#include "plan_testing.h"
#include "testing.h"

static int failures;
static long long checked;

#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* ---------------------------------------------------------------- the device models */

/* The H200: the kernel table as built (sm90_table.c), 132 SMs, sm_count / cluster co-resident clusters. */
static wsgemm_status sm90_model(void *ctx, int row, int p_mn, int q_mn, sm90_kernel_facts *f)
{
    (void)ctx;
    memset(f, 0, sizeof *f);
    if (row < 0 || row >= SM90_KERNEL_ROWS || !sm90_kernel_has_pair(&sm90_kernel_table[row], p_mn, q_mn))
        return WSGEMM_STATUS_SUCCESS;
    const sm90_kernel_config *k = &sm90_kernel_table[row];
    *f = (sm90_kernel_facts){.exists = 1, .bn = k->bn, .stages = k->stages, .cluster = k->cluster};
    f->smem_bytes = (SM90_BM + k->bn) * SM90_BK * 2 * f->stages + 32768 + 1024;
    f->max_clusters = 132 / f->cluster;
    return WSGEMM_STATUS_SUCCESS;
}

/* The B200: one kernel per (cta_group, C type, variant; the CLC variant for bf16 C only), 148 SMs, 74 pairs. */
static wsgemm_status sm100_model(void *ctx, int cta_group, wsgemm_dtype out_type, int variant, int scales,
                                 sm100_kernel_facts *f)
{
    (void)ctx;
    memset(f, 0, sizeof *f);
    if (variant == SM100_VARIANT_CLC && out_type != WSGEMM_R_16BF) return WSGEMM_STATUS_SUCCESS;
    plan_testing_sm100_kernel(cta_group, scales, out_type, cta_group == 1 ? 148 : 74, f);
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- what decides an element's arithmetic */

typedef struct choice {
    wsgemm_status status;
    int swap, in, bm, bn, bk, variant, stages, cluster, schedule, p_mn, q_mn, splits, kb_per_split, sk_splits;
    int epilogue;
} choice;

static choice choice_of(wsgemm_status s, const wsgemm_plan *pl)
{
    choice c;
    memset(&c, 0, sizeof c);
    c.status = s;
    if (s != WSGEMM_STATUS_SUCCESS) return c;
    c.swap = pl->swap;
    c.in = pl->in;
    c.bm = pl->bm;
    c.bn = pl->bn;
    c.bk = pl->bk;
    c.variant = pl->variant;
    c.stages = pl->stages;
    c.cluster = pl->cluster;
    c.schedule = (int)pl->schedule;
    c.p_mn = pl->p_mn;
    c.q_mn = pl->q_mn;
    c.splits = pl->splits;
    c.kb_per_split = pl->sched.k_blocks_per_split;
    c.sk_splits = pl->sched.sk_splits > 1 ? pl->sched.sk_splits : 1;
    c.epilogue = (int)pl->epilogue;
    return c;
}

static void describe_choice(const choice *c, char *buf, size_t size)
{
    snprintf(buf, size,
             "status %d swap %d in %d tile %dx%dx%d variant %d stages %d cluster %d schedule %d mn %d%d splits %d "
             "(kb %d) region %d epilogue %d",
             (int)c->status, c->swap, c->in, c->bm, c->bn, c->bk, c->variant, c->stages, c->cluster, c->schedule,
             c->p_mn, c->q_mn, c->splits, c->kb_per_split, c->sk_splits, c->epilogue);
}

/* ---------------------------------------------------------------- the sweep */

enum { kVaryMax = 4096 };

typedef enum planner { PLANNER_SM90 = 0, PLANNER_SM100 = 1 } planner;

typedef struct sweep_case {
    wsgemm_op ta, tb;
    wsgemm_dtype ab, c;
    float beta;
    int batch, pad, misalign, fused;
    int fixed, k;
} sweep_case;

static wsgemm_problem problem_of(const sweep_case *sc, wsgemm_batch_invariance mode, int vary,
                                 const wsgemm_fused_epilogue *ops)
{
    const int on_n = mode == WSGEMM_BATCH_INVARIANCE_ON_N;
    const int m = on_n ? sc->fixed : vary, n = on_n ? vary : sc->fixed;
    wsgemm_problem p =
        plan_testing_problem(sc->ta, sc->tb, m, n, sc->k, sc->batch, sc->ab, sc->c, sc->beta, sc->pad, sc->misalign);
    if (sc->fused) p.fused = ops;
    p.batch_invariance = mode;
    return p;
}

static choice plan_choice(planner pn, const wsgemm_problem *p, const wsgemm_knobs *kn)
{
    wsgemm_plan plan;
    char why[256] = "";
    const wsgemm_status s = pn == PLANNER_SM90 ? sm90_plan_make(p, kn, sm90_model, NULL, &plan, why, sizeof why)
                                               : sm100_plan_make(p, kn, sm100_model, NULL, &plan, why, sizeof why);
    choice c = choice_of(s, &plan);
    if (s == WSGEMM_STATUS_SUCCESS && pn == PLANNER_SM90 && p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF) {
        /* the varying side on P, no split region */
        const long long vary = p->batch_invariance == WSGEMM_BATCH_INVARIANCE_ON ? p->m : p->n;
        EXPECT(plan.p_extent == vary, "sm90: P extent %lld, the varying side %lld", plan.p_extent, vary);
        EXPECT(plan.sched.sk_splits <= 1, "sm90: a split region of %d under batch invariance", plan.sched.sk_splits);
    }
    return c;
}

/* The varying sides a sweep case is planned at: 1..4096 for a few cases, a sample (with the edges of the tile
 * and wave counts) for the rest, so the sweep stays within seconds. */
static int vary_sizes(int all, int *out)
{
    int n = 0;
    if (all) {
        for (int v = 1; v <= kVaryMax; ++v) out[n++] = v;
        return n;
    }
    static const int sample[] = {1,   2,    3,    7,    8,    15,   16,   17,   31,   32,   63,  64,
                                 65,  100,  127,  128,  129,  200,  255,  256,  257,  384,  511, 512,
                                 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 3000, 4095, 4096};
    for (size_t i = 0; i < sizeof sample / sizeof sample[0]; ++i) out[n++] = sample[i];
    for (unsigned r = 12345u, i = 0; i < 24; ++i) {
        r = r * 1103515245u + 12345u;
        out[n++] = 1 + (int)((r >> 8) % kVaryMax);
    }
    return n;
}

/* 1 when the case's plans differ across the varying side. Under batch invariance that is a failure. */
static int sweep_one(planner pn, const sweep_case *sc, wsgemm_batch_invariance mode, const wsgemm_knobs *kn, int all,
                     const wsgemm_fused_epilogue *ops)
{
    static int sizes[kVaryMax + 64];
    const int count = vary_sizes(all, sizes);
    wsgemm_problem p0 = problem_of(sc, mode, sizes[0], ops);
    const choice first = plan_choice(pn, &p0, kn);
    for (int i = 1; i < count; ++i) {
        wsgemm_problem p = problem_of(sc, mode, sizes[i], ops);
        const choice c = plan_choice(pn, &p, kn);
        checked++;
        if (memcmp(&c, &first, sizeof c) != 0) {
            if (mode != WSGEMM_BATCH_INVARIANCE_OFF) {
                char shape0[256], shape[256], a[256], b[256];
                plan_testing_describe(&p0, shape0, sizeof shape0);
                plan_testing_describe(&p, shape, sizeof shape);
                describe_choice(&first, a, sizeof a);
                describe_choice(&c, b, sizeof b);
                EXPECT(0, "%s mode %d: %s -> %s but %s -> %s", pn == PLANNER_SM90 ? "sm90" : "sm100", (int)mode, shape0,
                       a, shape, b);
            }
            return 1;
        }
    }
    return 0;
}

/* The cases: every fixed side with every K, types and ops drawn so that each appears with each. */
static int make_cases(sweep_case *out, int fp8)
{
    static const int fixed[] = {1, 7, 64, 65, 128, 129, 256, 1000, 4096, 14336};
    static const int ks[] = {1, 64, 100, 4096, 14336, 300000};
    int n = 0;
    unsigned r = fp8 ? 4242u : 99u;
    for (size_t fi = 0; fi < sizeof fixed / sizeof fixed[0]; ++fi)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki)
            for (int rep = 0; rep < 4; ++rep) {
                r = r * 1103515245u + 12345u;
                sweep_case sc = {
                    .ta = (r >> 8) & 1 ? WSGEMM_OP_T : WSGEMM_OP_N,
                    .tb = (r >> 9) & 1 ? WSGEMM_OP_T : WSGEMM_OP_N,
                    .beta = (r >> 13) & 1 ? 1.0f : 0.0f,
                    .batch = (r >> 14) % 4 == 0 ? 3 : 1,
                    .pad = (r >> 16) % 4 == 0 ? 3 : 0,
                    .misalign = (r >> 18) % 8 == 0,
                    .fused = rep >= 2,
                    .fixed = fixed[fi],
                    .k = ks[ki],
                };
                if (fp8) {
                    static const wsgemm_dtype pairs[3] = {WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E5M2};
                    sc.ab = pairs[(r >> 10) % 3];
                    sc.c = (r >> 11) & 1 ? WSGEMM_R_16BF : WSGEMM_R_32F;
                } else {
                    sc.ab = (r >> 10) & 1 ? WSGEMM_R_16F : WSGEMM_R_16BF;
                    const wsgemm_dtype cs[3] = {sc.ab, WSGEMM_R_32F,
                                                sc.ab == WSGEMM_R_16BF ? WSGEMM_R_16F : WSGEMM_R_16BF};
                    sc.c = cs[(r >> 11) % 3];
                }
                if (sc.fused) sc.beta = 0.0f, sc.batch = 1; /* what a fused matmul is: one matrix, C unread */
                out[n++] = sc;
            }
    return n;
}

static int sweep(planner pn)
{
    static sweep_case cases[2][256];
    const int counts[2] = {make_cases(cases[0], 0), make_cases(cases[1], 1)};
    wsgemm_knobs knob_sets[4];
    for (int i = 0; i < 4; ++i) knob_sets[i] = wsgemm_knobs_defaults();
    knob_sets[1].sm90_splitk = 3;
    knob_sets[1].sm100_splitk = 3;
    knob_sets[2].sm90_hybrid = 4; /* a forced split region: invariance turns it off */
    knob_sets[2].sm100_cta_group = 2;
    knob_sets[3].sm90_variant = SM90_VARIANT_CLUSTER4;
    knob_sets[3].sm100_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
    const wsgemm_fused_epilogue ops = {.ops = {1, 1, 0, WSGEMM_ACTIVATION_GELU}};
    static const wsgemm_batch_invariance modes[2] = {WSGEMM_BATCH_INVARIANCE_ON, WSGEMM_BATCH_INVARIANCE_ON_N};
    long long cases_run = 0, fused_on_declined = 0, fused_on_n_planned = 0;
    for (int t = 0; t < 2; ++t)
        for (int i = 0; i < counts[t]; ++i)
            for (int mi = 0; mi < 2; ++mi)
                for (int kn = 0; kn < 4; ++kn) {
                    const sweep_case *sc = &cases[t][i];
                    const int all = kn == 0; /* every size 1..4096; a sample with the knobs set */
                    sweep_one(pn, sc, modes[mi], &knob_sets[kn], all, &ops);
                    cases_run++;
                    if (pn == PLANNER_SM90 && sc->fused && kn == 0) {
                        wsgemm_problem p = problem_of(sc, modes[mi], 1000, &ops);
                        const choice c = plan_choice(pn, &p, &knob_sets[kn]);
                        if (modes[mi] == WSGEMM_BATCH_INVARIANCE_ON) {
                            EXPECT(c.status == WSGEMM_STATUS_NOT_SUPPORTED, "sm90: a fused op planned under ON");
                            fused_on_declined++;
                        } else if (c.status == WSGEMM_STATUS_SUCCESS) {
                            fused_on_n_planned++;
                        }
                    }
                }
    if (pn == PLANNER_SM90)
        EXPECT(fused_on_n_planned > 0, "sm90: no fused op planned under ON_N (%lld declined under ON)",
               fused_on_declined);
    printf("%s: %lld cases x varying side, %lld plans compared\n", pn == PLANNER_SM90 ? "sm90" : "sm100", cases_run,
           checked);
    return failures;
}

/* The same comparison with invariance OFF must find differences: the check has something to catch. */
static int teeth(void)
{
    static sweep_case cases[256];
    const int count = make_cases(cases, 0);
    const wsgemm_knobs kn = wsgemm_knobs_defaults();
    const wsgemm_fused_epilogue ops = {.ops = {1, 1, 0, WSGEMM_ACTIVATION_GELU}};
    int differ90 = 0, differ100 = 0;
    for (int i = 0; i < count; ++i) {
        sweep_case sc = cases[i];
        differ90 += sweep_one(PLANNER_SM90, &sc, WSGEMM_BATCH_INVARIANCE_OFF, &kn, 0, &ops);
        differ100 += sweep_one(PLANNER_SM100, &sc, WSGEMM_BATCH_INVARIANCE_OFF, &kn, 0, &ops);
    }
    EXPECT(differ90 > count / 4, "sm90 with invariance off: only %d of %d cases vary with m", differ90, count);
    EXPECT(differ100 > 0, "sm100 with invariance off: no case varies with m");
    printf("teeth: with invariance off %d (sm90) and %d (sm100) of %d cases plan differently as m varies\n", differ90,
           differ100, count);
    return failures;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    const int all = strcmp(which, "all") == 0;
    int known = all;
    if (all || strcmp(which, "sm90") == 0) known = 1, sweep(PLANNER_SM90);
    if (all || strcmp(which, "sm100") == 0) known = 1, sweep(PLANNER_SM100);
    if (all || strcmp(which, "teeth") == 0) known = 1, teeth();
    if (!known) {
        fprintf(stderr, "usage: %s [sm90|sm100|teeth]\n", argv[0]);
        return 2;
    }
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
