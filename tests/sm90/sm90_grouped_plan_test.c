// SPDX-License-Identifier: MIT
/*
 * sm90_grouped_plan_test.c - CPU checks of the sm90 grouped plan (gemm/sm90/sm90_grouped_plan.c) on a model of
 * the H200 (compute capability 9.0, 132 SMs):
 *   choices  representative calls: taken along M (P = op(A)) and N (P = op(B)^T, D = C^T), contiguous and
 *            masked, with the operand roles, D's strides and the tile width they must get (BN 256 where Q is
 *            wide and the works fill the device, BN 128 otherwise); declined, each with a reason that names
 *            what failed: another device, groups along K, no product, device scalars, ops other than TN, FP8,
 *            more groups than the table, misaligned bases, leading dimensions and strides.
 *   sweep    a grid of shapes, ops, types, layouts, group counts, alignments and devices: taken exactly when a
 *            model of the rules says so; a taken plan's row has the plan's type and tile, its grid is between 1
 *            and min(SMs, the works bound), its operands are the call's own, and a declined one leaves a reason.
 * Prints what it checked; exits 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm90/sm90_grouped_plan.h"
#include "testing.h"

static int failures;
static long long checked;

#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

static const wsgemm_device_info kH200 = {
    .ordinal = 0, .cc_major = 9, .cc_minor = 0, .sm_count = 132, .smem_optin_bytes = 232448, .l2_bytes = 50 << 20};

/* A grouped call with fake device addresses (the plan reads only their alignment): the grouped operand and C
 * one matrix (contiguous) or `groups` matrices (masked), the other operand one per group, all packed. */
typedef struct call {
    wsgemm_grouped_desc desc;
    wsgemm_problem p;
} call;

static call make_call(wsgemm_grouped_layout layout, wsgemm_grouped_dim dim, int groups, int m, int n, int k,
                      wsgemm_op ta, wsgemm_op tb, wsgemm_dtype ab, wsgemm_dtype c)
{
    call x;
    memset(&x, 0, sizeof x);
    x.desc = (wsgemm_grouped_desc){.size = sizeof(wsgemm_grouped_desc),
                                   .layout = layout,
                                   .dim = dim,
                                   .group_count = groups,
                                   .sizes = (const int *)(uintptr_t)0x7000000,
                                   .status = NULL,
                                   .launch_mode = WSGEMM_LAUNCH_MODE_DEFAULT};
    const int masked = layout == WSGEMM_GROUPED_MASKED;
    const int ra = ta == WSGEMM_OP_N ? m : k, ca = ta == WSGEMM_OP_N ? k : m;
    const int rb = tb == WSGEMM_OP_N ? k : n, cb = tb == WSGEMM_OP_N ? n : k;
    const int a_grouped = dim == WSGEMM_GROUPED_DIM_M, b_grouped = dim == WSGEMM_GROUPED_DIM_N;
    const uintptr_t base = (uintptr_t)1 << 32;
    x.p = (wsgemm_problem){.transa = ta,
                           .transb = tb,
                           .m = m,
                           .n = n,
                           .k = k,
                           .alpha = 1.0f,
                           .beta = 0.0f,
                           .A = (const void *)base,
                           .Atype = ab,
                           .lda = ra,
                           .strideA = a_grouped && !masked ? 0 : (long long)ra * ca,
                           .B = (const void *)(base * 3),
                           .Btype = ab,
                           .ldb = rb,
                           .strideB = b_grouped && !masked ? 0 : (long long)rb * cb,
                           .C = (void *)(base * 5),
                           .Ctype = c,
                           .ldc = m,
                           .strideC = masked ? (long long)m * n : 0,
                           .batch_count = groups,
                           .a_scale_mode = WSGEMM_MATMUL_SCALE_SCALAR_32F,
                           .b_scale_mode = WSGEMM_MATMUL_SCALE_SCALAR_32F,
                           .grouped = NULL};
    return x;
}

static int plan_of(call *x, const wsgemm_device_info *d, sm90_grouped_plan *plan, char *why, size_t why_size)
{
    x->p.grouped = &x->desc; /* the struct may have moved since make_call */
    why[0] = '\0';
    return sm90_grouped_plan_make(&x->p, d, plan, why, why_size);
}

/* The call is declined with a reason that contains `word`. */
static void expect_declined(call x, const wsgemm_device_info *d, const char *word, const char *what)
{
    sm90_grouped_plan plan;
    char why[256];
    const int taken = plan_of(&x, d, &plan, why, sizeof why);
    EXPECT(!taken, "%s: taken", what);
    EXPECT(strstr(why, word) != NULL, "%s: reason \"%s\" does not name \"%s\"", what, why, word);
    ++checked;
}

static void case_choices(void)
{
    sm90_grouped_plan plan;
    char why[256];
    /* MoE up-projection grouped along M: 8192 tokens, 4096 wide weights: BN 256, P = op(A) */
    call x = make_call(WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 8, 8192, 4096, 1024, WSGEMM_OP_T, WSGEMM_OP_N,
                       WSGEMM_R_16BF, WSGEMM_R_16BF);
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why), "M contiguous declined: %s", why);
    EXPECT(plan.bn == 256 && !plan.dim_n && plan.p.ptr == x.p.A && plan.q.ptr == x.p.B, "M: bn %d dim_n %d", plan.bn,
           plan.dim_n);
    EXPECT(plan.p_extent == 8192 && plan.q_extent == 4096 && plan.out_sp == 1 && plan.out_sq == x.p.ldc,
           "M: extents %d %d strides %lld %lld", plan.p_extent, plan.q_extent, plan.out_sp, plan.out_sq);
    EXPECT(plan.p.matrices == 1 && plan.q.matrices == 8 && plan.p.rows == 8192 && plan.q.rows == 4096,
           "M: matrices %d %d rows %d %d", plan.p.matrices, plan.q.matrices, plan.p.rows, plan.q.rows);
    EXPECT(plan.grid == 132 && plan.in == SM90_IN_BF16, "M: grid %d in %d", plan.grid, plan.in);
    EXPECT(sm90_grouped_table[plan.row].bn == 256 && sm90_grouped_table[plan.row].in == SM90_IN_BF16, "M: row %d",
           plan.row);
    EXPECT(plan.q_band == 16, "M: q band %d (all 16 tiles of 256 x 1024 in a third of L2)", plan.q_band);
    /* Mixtral's up-projection: 8 experts of 14336 x 4096 weights (117 MB each, past L2): bands of 8 tiles (2 MiB) */
    x = make_call(WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 8, 8192, 14336, 4096, WSGEMM_OP_T, WSGEMM_OP_N,
                  WSGEMM_R_16BF, WSGEMM_R_16BF);
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why) && plan.bn == 256 && plan.q_band == 8, "Mixtral: bn %d band %d",
           plan.bn, plan.q_band);
    /* torch._grouped_mm's layout, grouped along N: P = op(B)^T (the tokens), D = C^T */
    x = make_call(WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 8, 1536, 8192, 1024, WSGEMM_OP_T, WSGEMM_OP_N,
                  WSGEMM_R_16F, WSGEMM_R_32F);
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why), "N contiguous declined: %s", why);
    EXPECT(plan.dim_n && plan.p.ptr == x.p.B && plan.q.ptr == x.p.A && plan.p_extent == 8192 && plan.q_extent == 1536 &&
               plan.out_sp == x.p.ldc && plan.out_sq == 1 && plan.in == SM90_IN_F16,
           "N: roles");
    EXPECT(plan.bn == 256, "N: bn %d (1536 = 6 x 256, 79 x 6 works)", plan.bn);
    /* a Q of 384 columns: BN 256 would compute 512 of them, BN 128 exactly 384 */
    x = make_call(WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 8, 65536, 384, 256, WSGEMM_OP_T, WSGEMM_OP_N,
                  WSGEMM_R_16BF, WSGEMM_R_16BF);
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why) && plan.bn == 128, "q 384: bn %d", plan.bn);
    /* decode: 64 tokens over 8 experts, too few works for BN 256 */
    x = make_call(WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_N, 8, 2048, 64, 1024, WSGEMM_OP_T, WSGEMM_OP_N,
                  WSGEMM_R_16BF, WSGEMM_R_16BF);
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why) && plan.bn == 128, "decode: bn %d", plan.bn);
    EXPECT(plan.works_bound == 8 * 16 && plan.grid == 128, "decode: works %lld grid %d", plan.works_bound, plan.grid);
    /* masked along M: every group's matrix read at its own third coordinate */
    x = make_call(WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_M, 6, 80, 96, 72, WSGEMM_OP_T, WSGEMM_OP_N, WSGEMM_R_16BF,
                  WSGEMM_R_16BF);
    x.p.lda = 80; /* 160 bytes */
    x.p.strideA = 80 * 80;
    x.p.ldb = 80;
    x.p.strideB = 80 * 96;
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why), "masked declined: %s", why);
    EXPECT(plan.p.matrices == 6 && plan.q.matrices == 6 && plan.out_group == x.p.strideC && plan.bn == 128 &&
               plan.grid == 6,
           "masked: matrices %d %d grid %d", plan.p.matrices, plan.q.matrices, plan.grid);
    checked += 6;

    const call ok = make_call(WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 8, 1024, 512, 256, WSGEMM_OP_T,
                              WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF);
    const wsgemm_device_info a100 = {.cc_major = 8, .cc_minor = 0, .sm_count = 108};
    const wsgemm_device_info b200 = {.cc_major = 10, .cc_minor = 0, .sm_count = 148};
    expect_declined(ok, &a100, "9.0", "an A100");
    expect_declined(ok, &b200, "9.0", "a B200");
    x = ok;
    x.desc.dim = WSGEMM_GROUPED_DIM_K;
    expect_declined(x, &kH200, "along K", "groups along K");
    x = ok;
    x.p.k = 0;
    expect_declined(x, &kH200, "product", "k 0");
    x = ok;
    x.p.alpha = 0.0f;
    expect_declined(x, &kH200, "product", "alpha 0");
    x = ok;
    x.p.device_scalars = 1;
    expect_declined(x, &kH200, "POINTER_MODE", "device scalars");
    for (int ops = 0; ops < 4; ++ops) {
        if (ops == 3) continue; /* TN */
        x = make_call(WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 8, 1024, 512, 256, ops & 1 ? WSGEMM_OP_T : 0,
                      ops & 2 ? WSGEMM_OP_N : WSGEMM_OP_T, WSGEMM_R_16BF, WSGEMM_R_16BF);
        expect_declined(x, &kH200, "K-major", "ops other than TN");
    }
    x = ok;
    x.p.Atype = x.p.Btype = WSGEMM_R_8F_E4M3;
    expect_declined(x, &kH200, "16BF", "FP8");
    x = ok;
    x.desc.group_count = SM90_GROUPED_MAX_GROUPS + 1;
    expect_declined(x, &kH200, "1024", "1025 groups");
    x = ok;
    x.desc.group_count = SM90_GROUPED_MAX_GROUPS;
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why), "1024 groups declined: %s", why);
    x = ok;
    x.p.A = (const char *)x.p.A + 2;
    expect_declined(x, &kH200, "A by TMA", "A's base misaligned");
    x = ok;
    x.p.lda += 4;
    expect_declined(x, &kH200, "A by TMA", "lda misaligned");
    x = ok;
    x.p.ldb += 1;
    expect_declined(x, &kH200, "B by TMA", "ldb misaligned");
    x = ok;
    x.p.strideB += 3;
    expect_declined(x, &kH200, "B by TMA", "strideB misaligned");
    x = ok;
    x.p.ldc += 1; /* C is stored from registers: any ldc */
    x.p.C = (char *)x.p.C + 2;
    EXPECT(plan_of(&x, &kH200, &plan, why, sizeof why), "odd ldc and C declined: %s", why);
    printf("choices: %lld checks\n", checked);
}

/* The rules as the sweep models them. */
static int model_takes(const call *x, const wsgemm_device_info *d)
{
    const wsgemm_problem *p = &x->p;
    const int groups = x->desc.group_count;
    const int a_batched = p->strideA != 0 && groups > 1, b_batched = p->strideB != 0 && groups > 1;
    return d->cc_major == 9 && d->cc_minor == 0 && x->desc.dim != WSGEMM_GROUPED_DIM_K && p->k > 0 &&
           p->alpha != 0.0f && (p->Atype == WSGEMM_R_16BF || p->Atype == WSGEMM_R_16F) && p->Btype == p->Atype &&
           p->transa == WSGEMM_OP_T && p->transb == WSGEMM_OP_N && groups <= SM90_GROUPED_MAX_GROUPS &&
           (uintptr_t)p->A % 16 == 0 && (uintptr_t)p->B % 16 == 0 && p->lda % 8 == 0 && p->ldb % 8 == 0 &&
           (!a_batched || p->strideA % 8 == 0) && (!b_batched || p->strideB % 8 == 0);
}

static void case_sweep(void)
{
    static const int extents[] = {1, 7, 64, 127, 128, 129, 200, 255, 256, 257, 1000, 4096, 8191, 65536};
    static const int ks[] = {1, 8, 37, 64, 4096};
    static const int group_counts[] = {1, 2, 8, 128, 1024, 1025};
    static const wsgemm_dtype types[] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_8F_E4M3};
    const wsgemm_device_info small = {.cc_major = 9, .cc_minor = 0, .sm_count = 114};
    const wsgemm_device_info *devices[] = {&kH200, &small};
    long long taken = 0, declined = 0;
    for (int layout = 0; layout < 2; ++layout)
        for (int dim = 0; dim < 3; ++dim)
            for (size_t im = 0; im < sizeof extents / sizeof extents[0]; ++im)
                for (size_t in = 0; in < sizeof extents / sizeof extents[0]; in += 2)
                    for (size_t ik = 0; ik < sizeof ks / sizeof ks[0]; ++ik)
                        for (int ops = 0; ops < 4; ++ops)
                            for (size_t ig = 0; ig < sizeof group_counts / sizeof group_counts[0]; ++ig)
                                for (size_t it = 0; it < sizeof types / sizeof types[0]; ++it)
                                    for (int dev = 0; dev < 2; ++dev) {
                                        call x = make_call((wsgemm_grouped_layout)layout, (wsgemm_grouped_dim)dim,
                                                           group_counts[ig], extents[im], extents[in], ks[ik],
                                                           ops & 1 ? WSGEMM_OP_T : WSGEMM_OP_N,
                                                           ops & 2 ? WSGEMM_OP_T : WSGEMM_OP_N, types[it],
                                                           it == 1 ? WSGEMM_R_32F : WSGEMM_R_16BF);
                                        sm90_grouped_plan plan;
                                        char why[256];
                                        const int got = plan_of(&x, devices[dev], &plan, why, sizeof why);
                                        const int want = model_takes(&x, devices[dev]);
                                        ++checked;
                                        EXPECT(got == want,
                                               "layout %d dim %d m %d n %d k %d ops %d groups %d type %d: "
                                               "plan %d, model %d (%s)",
                                               layout, dim, x.p.m, x.p.n, x.p.k, ops, x.desc.group_count,
                                               (int)x.p.Atype, got, want, why);
                                        if (!got) {
                                            EXPECT(why[0] != '\0', "declined without a reason");
                                            ++declined;
                                            continue;
                                        }
                                        ++taken;
                                        const sm90_grouped_config *r = &sm90_grouped_table[plan.row];
                                        const int dim_n = dim == WSGEMM_GROUPED_DIM_N;
                                        EXPECT(r->bn == plan.bn && r->in == plan.in && r->mn == SM90_MN_K_K &&
                                                   r->bm == SM90_BM,
                                               "row %d: bn %d in %d, plan bn %d in %d", plan.row, r->bn, r->in, plan.bn,
                                               plan.in);
                                        EXPECT(plan.in == (x.p.Atype == WSGEMM_R_16BF ? SM90_IN_BF16 : SM90_IN_F16),
                                               "input kind %d", plan.in);
                                        EXPECT(plan.dim_n == dim_n && plan.p_extent == (dim_n ? x.p.n : x.p.m) &&
                                                   plan.q_extent == (dim_n ? x.p.m : x.p.n) && plan.k == x.p.k,
                                               "extents");
                                        EXPECT(plan.p.ptr == (dim_n ? x.p.B : x.p.A) &&
                                                   plan.p.ld == (dim_n ? x.p.ldb : x.p.lda) &&
                                                   plan.p.rows == plan.p_extent && plan.q.rows == plan.q_extent,
                                               "P operand");
                                        const long long max_grid = plan.works_bound < devices[dev]->sm_count
                                                                       ? plan.works_bound
                                                                       : devices[dev]->sm_count;
                                        EXPECT(plan.grid >= 1 && plan.grid <= (max_grid > 1 ? max_grid : 1),
                                               "grid %d, works bound %lld", plan.grid, plan.works_bound);
                                        EXPECT(plan.bn == 128 ||
                                                   (plan.q_extent > 128 && plan.works_bound >= devices[dev]->sm_count),
                                               "bn 256 with q %d, works %lld", plan.q_extent, plan.works_bound);
                                        const long long q_tiles = (plan.q_extent + plan.bn - 1) / plan.bn;
                                        const long long band_bytes = (long long)plan.q_band * plan.bn * plan.k * 2;
                                        EXPECT(plan.q_band >= 1 && plan.q_band <= q_tiles &&
                                                   (plan.q_band == 1 || band_bytes <= devices[dev]->l2_bytes / 3) &&
                                                   (plan.q_band == q_tiles ||
                                                    band_bytes + (long long)plan.bn * plan.k * 2 >
                                                        devices[dev]->l2_bytes / 3),
                                               "q band %d of %lld tiles, %lld bytes", plan.q_band, q_tiles, band_bytes);
                                    }
    EXPECT(taken > 1000 && declined > 1000, "the sweep reaches both answers: %lld taken, %lld declined", taken,
           declined);
    printf("sweep: %lld calls, %lld taken, %lld declined\n", checked, taken, declined);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "choices";
    if (strcmp(which, "choices") == 0)
        case_choices();
    else if (strcmp(which, "sweep") == 0)
        case_sweep();
    else {
        fprintf(stderr, "unknown case '%s'\n", which);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "%s: FAILED (%d)\n", which, failures);
        return 1;
    }
    printf("%s: passed\n", which);
    return 0;
}
