// SPDX-License-Identifier: MIT
/*
 * self_check_coverage_test.c - does the sm100 self-check run every kind of plan AUTO may then use? (CPU, no
 * GPU.) A PASS lets AUTO give the sm100 path every call it takes, so the helper's cases
 * (gemm/sm100/self_check_cases.h) must reach every kind of plan the planner (gemm/sm100/sm100_plan.c) can
 * choose. The test runs the planner, against a model of a B200, on
 *   the helper's cases  each with cta_group 1 and 2 and its own grid and split knobs, as the helper sets them;
 *   a grid of calls     shapes (one tile to many, decode, long K), ops, 16-bit and FP8 types, every C / D type,
 *                       GEMMs and matmuls with and without the fused op, beta 0 and not, batch, padded and
 *                       odd leading dimensions, and the knobs a caller may set (forced split-K, cta_group,
 *                       per-element epilogue): what AUTO hands the path after a PASS;
 * and names the kinds of each plan, the branches of the kernel and its launcher, as six combinations:
 *   store     the kernel's output type (C's, or fp32 partials), epilogue kind (direct, TMA store, staged),
 *             split-K or not
 *   fused op  input class (16-bit / FP8), the fused op or not, epilogue kind
 *   types     input class, the kernel's output type
 *   operands  input class, the majors the kernel reads A and B in
 *   staging   input class, which operands are staged copies
 *   work      input class, batch or not, split-K or not
 * (cta_group is no axis: the helper runs every case with both.)
 * Every kind the grid reaches must be one a helper case reaches; a missing one fails with its name. Also:
 * every helper case plans (the planner declines none of them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "sm100/self_check_cases.h"
#include "sm100/sm100_plan.h"
#include "plan_testing.h"
#include "testing.h"

static int failures;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* A B200: 148 SMs, 74 pairs; every (cta_group, output type) kernel exists (gemm/sm100/sm100_kernel.cuh). */
static wsgemm_status b200_query(void *ctx, int cta_group, wsgemm_dtype out_type, int variant, int scales,
                                sm100_kernel_facts *f)
{
    (void)ctx;
    memset(f, 0, sizeof *f);
    if (variant != SM100_VARIANT_STATIC) return WSGEMM_STATUS_SUCCESS; /* the self-check covers the static kernels */
    plan_testing_sm100_kernel(cta_group, scales, out_type, cta_group == 1 ? 148 : 74, f);
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- kinds */

enum { kMaxKinds = 512, kKindBytes = 160 };

typedef struct kind_set {
    char name[kMaxKinds][kKindBytes];
    char example[kMaxKinds][kKindBytes]; /* the first call that reached it */
    int count;
} kind_set;

static int kind_find(const kind_set *s, const char *name)
{
    for (int i = 0; i < s->count; ++i)
        if (strcmp(s->name[i], name) == 0) return i;
    return -1;
}

static void kind_add(kind_set *s, const char *name, const char *example)
{
    if (kind_find(s, name) >= 0) return;
    if (s->count == kMaxKinds) {
        EXPECT(0, "more than %d kinds", kMaxKinds);
        return;
    }
    snprintf(s->name[s->count], kKindBytes, "%s", name);
    snprintf(s->example[s->count], kKindBytes, "%s", example);
    s->count++;
}

static const char *epilogue_name(wsgemm_epilogue_kind e)
{
    return e == WSGEMM_EPILOGUE_DIRECT   ? "direct"
           : e == WSGEMM_EPILOGUE_TMA    ? "tma"
           : e == WSGEMM_EPILOGUE_STAGED ? "staged"
                                         : "other";
}

static void describe_case(const self_check_case *c, const wsgemm_knobs *kn, char *out, size_t size)
{
    snprintf(out, size, "%s %c%c %dx%dx%d %s.%s->%s beta %g ldc+%d batch %d lda_odd %d (knobs cg %d splitk %d%s)",
             c->call == SELF_CHECK_GEMM    ? "gemm"
             : c->call == SELF_CHECK_FUSED ? "fused matmul"
                                           : "matmul",
             c->ta == WSGEMM_OP_N ? 'N' : 'T', c->tb == WSGEMM_OP_N ? 'N' : 'T', c->m, c->n, c->k,
             testing_dtype_name(c->a), testing_dtype_name(c->b), testing_dtype_name(c->c), (double)c->beta, c->ldc_pad,
             c->batch, c->lda_odd, kn->sm100_cta_group, kn->sm100_splitk,
             kn->sm100_epilogue == WSGEMM_EPILOGUE_PREF_DIRECT ? " direct" : "");
}

/* The kinds of the plan of case c under knobs kn, added to s; 0 when the planner declined it. */
static int plan_kinds(const self_check_case *c, const wsgemm_knobs *kn, kind_set *s, char *why, size_t why_size)
{
    const self_check_layout l = self_check_case_layout(c, wsgemm_dtype_size(c->a), wsgemm_dtype_size(c->b));
    static const float scales[2] = {0.5f, 2.0f};
    static const float bias[1] = {0.0f};
    /* the problem api.c / matmul.c and paths.c (path_output_op) make of the call; 256-byte aligned addresses */
    const uintptr_t base_a = 0x100000000ull, base_b = 0x200000000ull, base_c = 0x300000000ull;
    wsgemm_fused_epilogue fe;
    memset(&fe, 0, sizeof fe);
    const int fp8_d = c->c == WSGEMM_R_8F_E4M3;
    const int fused = c->call == SELF_CHECK_FUSED || fp8_d;
    if (c->call == SELF_CHECK_FUSED) {
        fe.ops.bias = 1;
        fe.ops.activation = WSGEMM_ACTIVATION_RELU;
        fe.bias = bias;
        fe.bias_type = WSGEMM_R_32F;
        fe.a_scale = &scales[0];
        fe.b_scale = &scales[1];
    }
    fe.c = fp8_d ? NULL : (const void *)base_c; /* C in place, or unread */
    fe.c_type = (int)self_check_case_c_in_type(c);
    fe.ldc = l.ldc;
    const wsgemm_problem p = {
        .transa = c->ta,
        .transb = c->tb,
        .m = c->m,
        .n = c->n,
        .k = c->k,
        .alpha = c->alpha,
        .beta = c->beta,
        .A = (const void *)base_a,
        .Atype = c->a,
        .lda = l.lda,
        .strideA = l.stride_a,
        .B = (const void *)base_b,
        .Btype = c->b,
        .ldb = l.ldb,
        .strideB = l.stride_b,
        .C = (void *)base_c,
        .Ctype = c->c,
        .ldc = l.ldc,
        .strideC = l.stride_c,
        .batch_count = c->batch,
        .fused = fused ? &fe : NULL,
        .a_scale = fused ? fe.a_scale : NULL,
        .b_scale = fused ? fe.b_scale : NULL,
    };
    wsgemm_plan plan;
    if (sm100_plan_make(&p, kn, b200_query, NULL, &plan, why, why_size) != WSGEMM_STATUS_SUCCESS) return 0;
    char example[kKindBytes], k[6][kKindBytes];
    describe_case(c, kn, example, sizeof example);
    const char *in = wsgemm_dtype_is_fp8(c->a) ? "fp8" : "16-bit", *split = plan.splits > 1 ? "split-K" : "one split";
    const char *out = testing_dtype_name(sm100_plan_out_type(&plan, &p)), *epi = epilogue_name(plan.epilogue);
    snprintf(k[0], kKindBytes, "store: out %s, %s, %s", out, epi, split);
    snprintf(k[1], kKindBytes, "fused op: in %s, %s, %s", in, p.fused ? "fused" : "not fused", epi);
    snprintf(k[2], kKindBytes, "types: in %s, out %s", in, out);
    snprintf(k[3], kKindBytes, "operands: in %s, A %s, B %s", in, plan.p_mn ? "MN-major" : "K-major",
             plan.q_mn ? "MN-major" : "K-major");
    snprintf(k[4], kKindBytes, "staging: in %s, staged A %d, staged B %d", in, plan.a.staged, plan.b.staged);
    snprintf(k[5], kKindBytes, "work: in %s, %s, %s", in, c->batch > 1 ? "batch" : "one matrix", split);
    for (int i = 0; i < 6; ++i) kind_add(s, k[i], example);
    return 1;
}

/* ---------------------------------------------------------------- the two sets */

static void helper_kinds(kind_set *s)
{
    for (int i = 0; i < kSelfCheckCaseCount; ++i)
        for (int cg = 1; cg <= 2; ++cg) { /* the knobs the helper sets for the case (self_check_helper.c) */
            const self_check_case *c = &kSelfCheckCases[i];
            wsgemm_knobs kn = wsgemm_knobs_defaults();
            kn.sm100_cta_group = cg;
            kn.sm100_ctas = c->ctas;
            kn.sm100_splitk = c->splits;
            char why[256] = "", what[kKindBytes];
            describe_case(c, &kn, what, sizeof what);
            EXPECT(plan_kinds(c, &kn, s, why, sizeof why), "helper case %d (%s): declined: %s", i + 1, what, why);
        }
}

static long long grid_kinds(kind_set *s)
{
    static const int ms[] = {64, 129, 200, 256, 300, 1030}, ns[] = {64, 257, 520}, ks[] = {64, 600, 9000};
    static const wsgemm_op ops[2] = {WSGEMM_OP_N, WSGEMM_OP_T};
    static const struct {
        wsgemm_dtype a, b;
    } ins[] = {{WSGEMM_R_16BF, WSGEMM_R_16BF},
               {WSGEMM_R_16F, WSGEMM_R_16F},
               {WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3},
               {WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E5M2},
               {WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E4M3}};
    static const wsgemm_dtype outs[] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F, WSGEMM_R_8F_E4M3};
    static const float betas[] = {0.0f, 0.5f};
    long long planned = 0;
    for (size_t in = 0; in < sizeof ins / sizeof ins[0]; ++in)
        for (size_t o = 0; o < sizeof outs / sizeof outs[0]; ++o)
            for (int call = SELF_CHECK_GEMM; call <= SELF_CHECK_MATMUL; ++call) {
                const int fp8 = wsgemm_dtype_is_fp8(ins[in].a);
                const wsgemm_dtype out = outs[o];
                if (call == SELF_CHECK_GEMM && (fp8 || out == WSGEMM_R_8F_E4M3)) continue; /* GEMMs: 16-bit */
                for (int batch = 1; batch <= 3; batch += 2) {
                    if (batch > 1 && call != SELF_CHECK_GEMM) continue; /* wsgemm_matmul has no batch */
                    for (size_t bi = 0; bi < sizeof betas / sizeof betas[0]; ++bi) {
                        if (out == WSGEMM_R_8F_E4M3 && betas[bi] != 0.0f) continue; /* C is another type */
                        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; ++mi)
                            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ++ni)
                                for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki)
                                    for (int op = 0; op < 4; ++op)
                                        for (int odd = 0; odd <= 1; ++odd)
                                            for (int knob = 0; knob < 4; ++knob) {
                                                const self_check_case c = {
                                                    .ta = ops[op >> 1],
                                                    .tb = ops[op & 1],
                                                    .m = ms[mi],
                                                    .n = ns[ni],
                                                    .k = ks[ki],
                                                    .a = ins[in].a,
                                                    .b = ins[in].b,
                                                    .c = out,
                                                    .alpha = 1.0f,
                                                    .beta = betas[bi],
                                                    .ldc_pad = odd,
                                                    .ctas = 0,
                                                    .call = (self_check_call)call,
                                                    .batch = batch,
                                                    .splits = 0,
                                                    .lda_odd = odd,
                                                };
                                                /* what AUTO runs, and under a caller's knobs */
                                                wsgemm_knobs kn = wsgemm_knobs_defaults();
                                                if (knob == 1) kn.sm100_splitk = 3;
                                                if (knob == 2) kn.sm100_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
                                                if (knob == 3) kn.sm100_cta_group = 1;
                                                char why[256];
                                                planned += plan_kinds(&c, &kn, s, why, sizeof why);
                                            }
                    }
                }
            }
    return planned;
}

int main(void)
{
    static kind_set helper, grid;
    helper_kinds(&helper);
    const long long planned = grid_kinds(&grid);
    printf("the helper's %d cases x 2 cta_groups reach %d kinds; %lld plans of the grid reach %d\n",
           (int)kSelfCheckCaseCount, helper.count, planned, grid.count);
    EXPECT(planned > 10000, "only %lld grid calls planned", planned);
    int missing = 0;
    for (int i = 0; i < grid.count; ++i) {
        const int covered = kind_find(&helper, grid.name[i]) >= 0;
        printf("  %s %s\n", covered ? "covered" : "MISSING", grid.name[i]);
        if (!covered) {
            ++missing;
            EXPECT(0, "kind not run by the self-check helper: %s (e.g. %s)", grid.name[i], grid.example[i]);
        }
    }
    for (int i = 0; i < helper.count; ++i) /* a kind only the helper reaches would mean the grid is too small */
        EXPECT(kind_find(&grid, helper.name[i]) >= 0, "a helper kind the grid never reaches: %s (%s)", helper.name[i],
               helper.example[i]);
    printf("self_check_coverage_test: %s (%d kinds missing, %d failed checks)\n", failures ? "FAIL" : "PASS", missing,
           failures);
    return failures ? 1 : 0;
}
