/*
 * sm90_plan_test.c - CPU checks of the sm90 planner (gemm/sm90/sm90_plan.c) against a model of the H200:
 * the kernel table of sm90_kernel.cuh (which (BN, variant, majorness, type) exist, their stages and cluster)
 * and 132 / cluster co-resident clusters.
 *
 *   legacy  the planner against the chooser the launcher had before it (transcribed below, same facts):
 *           orientation, BN, variant, cluster, splits, epilogue, staging and workspace bytes agree on a
 *           sweep of shapes, ops, types, beta, batch, leading dimensions and knob settings.
 * Prints what it checked; exits 1 on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tma.h"
#include "sm90/sm90_plan.h"
#include "sm90/sm90_tile.h"

static int failures;
static long long checked;

#define EXPECT(cond, ...)                                                                                  \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            if (failures < 20) {                                                                           \
                fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                            \
                fprintf(stderr, __VA_ARGS__);                                                              \
                fprintf(stderr, "\n");                                                                     \
            }                                                                                              \
            failures++;                                                                                    \
        }                                                                                                  \
    } while (0)

/* ---------------------------------------------------------------- the device model */

typedef struct model {
    int sm_count;
} model;

/* sm90_kernel.cuh's SM90_DEFINE_KERNELS as instantiated by sm90_inst_*.cu: variant 0 everywhere; variant 3
 * (4-CTA cluster) for BN 64 and 128; variants 1 and 2 for bf16, BN 256, K-major P. */
static wsgemm_status model_query(void *ctx, int bn, int variant, int p_mn, int q_mn, int bf16, sm90_kernel_facts *f)
{
    const model *m = ctx;
    (void)q_mn;
    memset(f, 0, sizeof *f);
    const int stages = bn == 256 ? 4 : bn == 128 ? 6 : 8;
    if (variant == 0) *f = (sm90_kernel_facts){1, bn, stages, 2, 0, 0};
    else if (variant == 3 && bn != 256) *f = (sm90_kernel_facts){1, bn, stages, 4, 0, 0};
    else if (variant == 1 && bf16 && bn == 256 && !p_mn) *f = (sm90_kernel_facts){1, bn, stages, 1, 0, 0};
    else if (variant == 2 && bf16 && bn == 256 && !p_mn) *f = (sm90_kernel_facts){1, bn, 3, 2, 0, 0};
    if (f->exists) {
        f->smem_bytes = (SM90_BM + bn) * SM90_BK * 2 * f->stages + 32768 + 1024;
        f->max_clusters = m->sm_count / f->cluster;
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- the chooser before the planner */

typedef struct legacy_operand {
    const void *ptr;
    long long ld, stride;
    int inner, cols, nb, k_major, rows_dim;
} legacy_operand;

typedef struct legacy_choice {
    int swap, bn, cluster, stages, splits, group, epilogue, stage_a, stage_b;
    size_t ws_bytes;
    long long units;
} legacy_choice;

static long long legacy_round_up(long long x, long long a)
{
    return (x + a - 1) / a * a;
}

static legacy_operand legacy_describe(const void *ptr, int ld, long long stride, int k_major, int rows, int k,
                                      int batch_count)
{
    legacy_operand o;
    o.ptr = ptr;
    o.ld = ld;
    o.stride = stride;
    o.k_major = k_major;
    o.inner = k_major ? k : rows;
    o.cols = k_major ? rows : k;
    o.nb = (batch_count > 1 && stride != 0) ? batch_count : 1;
    o.rows_dim = rows;
    if (!(o.k_major || o.rows_dim != 1 || o.ld != 1)) {
        o.k_major = 1;
        o.inner = k;
        o.cols = 1;
        o.ld = ((long long)k + 7) / 8 * 8;
    }
    if (o.cols == 1 && o.nb == 1) o.ld = legacy_round_up(o.inner, 8);
    return o;
}

static int legacy_needs_staging(const legacy_operand *o)
{
    int batched = o->nb > 1;
    if (!wsgemm_tma_operand_ok(o->ptr, o->ld, o->stride, batched)) return 1;
    if (batched && o->stride < o->ld * (long long)o->cols) return 1;
    return 0;
}

static size_t legacy_staged_bytes(const legacy_operand *o)
{
    return (size_t)legacy_round_up(o->inner, 8) * (size_t)o->cols * (size_t)o->nb * 2u;
}

static double legacy_cost(long long units, int max_clusters, int cluster, int k_blocks, int splits, int bn,
                          const wsgemm_problem *p)
{
    const double l2_fit = 30.0e6;
    const long long work = units * splits;
    const long long waves = (work + max_clusters - 1) / max_clusters;
    const int kb_per = (k_blocks + splits - 1) / splits;
    const double steps = (double)waves * kb_per;
    const double flops_kb = 2.0 * SM90_BM * bn * SM90_BK;
    const double t_mma = steps * flops_kb / 7.0e6 * (bn == 256 ? 1.0 : bn == 128 ? 1.1 : 1.35);
    const double operand_bytes = ((double)p->m + p->n) * p->k * 2.0 * p->batch_count;
    const int resident = operand_bytes < l2_fit;
    const double bytes_kb = (double)(SM90_BM + bn / cluster) * SM90_BK * 2.0;
    const double t_cta = steps * bytes_kb / (resident ? 80.0e3 : 60.0e3);
    const double t_hbm = resident ? 0.0 : operand_bytes / 3.4e6;
    double cost = t_mma;
    if (t_cta > cost) cost = t_cta;
    if (t_hbm > cost) cost = t_hbm;
    cost += 2.0;
    if (splits > 1) {
        const double part = (double)splits * p->m * p->n * p->batch_count * 4.0 * 2.0;
        cost += part / 2.0e6 + 5.0;
    }
    return cost;
}

/* wsgemm_sm90_gemm's choices before the planner, with the environment as a knobs struct and
 * prepare_kernel/sm90_kernel_lookup as the model's facts. Returns 0 when it declined. */
static int legacy_choose(const wsgemm_problem *p, const wsgemm_knobs *kn, model *md, legacy_choice *out)
{
    const int bf16 = p->Atype == WSGEMM_R_16BF;
    const int nb = p->batch_count;
    int swap;
    int small = p->m < p->n ? p->m : p->n;
    if (small <= 256) swap = p->m <= p->n;
    else swap = kn->sm90_swap != 0;
    const long long p_ext = swap ? p->n : p->m;
    const long long q_ext = swap ? p->m : p->n;
    legacy_operand a = legacy_describe(p->A, p->lda, p->strideA, p->transa == WSGEMM_OP_T, p->m, p->k, nb);
    legacy_operand b = legacy_describe(p->B, p->ldb, p->strideB, p->transb == WSGEMM_OP_N, p->n, p->k, nb);
    legacy_operand *op_p = swap ? &b : &a;
    legacy_operand *op_q = swap ? &a : &b;
    const int variant = kn->sm90_variant;
    const int k_blocks = (p->k - 1) / SM90_BK + 1;
    int bn_candidates[3];
    int n_candidates = 0;
    const int forced_bn = kn->sm90_bn, forced_splits = kn->sm90_splitk;
    if (forced_bn == 64 || forced_bn == 128 || forced_bn == 256) bn_candidates[n_candidates++] = forced_bn;
    else if (q_ext <= 64) bn_candidates[n_candidates++] = 64;
    else if (q_ext <= 128) {
        bn_candidates[n_candidates++] = 128;
        bn_candidates[n_candidates++] = 64;
    } else {
        bn_candidates[n_candidates++] = 256;
        bn_candidates[n_candidates++] = 128;
        bn_candidates[n_candidates++] = 64;
    }
    sm90_kernel_facts info = {0};
    int splits = 1;
    double best_cost = 0.0;
    for (int c = 0; c < n_candidates; ++c) {
        int bn = bn_candidates[c];
        sm90_kernel_facts ki;
        model_query(md, bn, variant, !op_p->k_major, !op_q->k_major, bf16, &ki);
        if (!ki.exists) model_query(md, bn, 0, !op_p->k_major, !op_q->k_major, bf16, &ki);
        if (!ki.exists) return 0;
        long long tiles_p = (p_ext + SM90_BM - 1) / SM90_BM;
        long long tiles_q = (q_ext + bn - 1) / bn;
        if (tiles_p * tiles_q > 0x7FFFFFFFLL) return 0;
        long long units = (tiles_p + ki.cluster - 1) / ki.cluster * tiles_q * nb;
        int max_splits = forced_splits > 0 ? forced_splits : (k_blocks / 4 < 16 ? k_blocks / 4 : 16);
        int min_splits = forced_splits > 0 ? forced_splits : 1;
        if (max_splits < 1) max_splits = 1;
        const double part_bytes = (double)p->m * p->n * nb * 4.0;
        while (max_splits > 1 && part_bytes * max_splits > 1099511627776.0) --max_splits;
        if (min_splits > max_splits) min_splits = max_splits;
        for (int sp = min_splits; sp <= max_splits; ++sp) {
            double cost = legacy_cost(units, ki.max_clusters, ki.cluster, k_blocks, sp, bn, p);
            if (!info.exists || cost < best_cost * 0.95) {
                best_cost = cost;
                info = ki;
                splits = sp;
            }
        }
    }
    if (variant == 0 && info.bn == 64 && splits == 1 && q_ext <= 64 && p_ext >= 4 * SM90_BM) {
        sm90_kernel_facts k4;
        model_query(md, 64, 3, !op_p->k_major, !op_q->k_major, bf16, &k4);
        if (k4.exists && k4.max_clusters > 0) info = k4;
    }
    const int tiles_p = (int)((p_ext + SM90_BM - 1) / SM90_BM);
    const int tiles_q = (int)((q_ext + info.bn - 1) / info.bn);
    wsgemm_sched sched = wsgemm_sched_make(tiles_p, tiles_q, info.cluster, kn->sm90_group, splits, nb, k_blocks);
    splits = sched.splits;
    const int stage_a = legacy_needs_staging(&a), stage_b = legacy_needs_staging(&b);
    const size_t bytes_a = stage_a ? legacy_staged_bytes(&a) : 0, bytes_b = stage_b ? legacy_staged_bytes(&b) : 0;
    const size_t off_b = (bytes_a + 255) & ~(size_t)255;
    const size_t off_part = (off_b + bytes_b + 255) & ~(size_t)255;
    const size_t bytes_part = splits > 1 ? (size_t)splits * (size_t)p->m * (size_t)p->n * (size_t)nb * sizeof(float) : 0;
    int tma_store = 0;
    const int c_bytes = p->Ctype == WSGEMM_R_32F ? 4 : 2;
    if (kn->sm90_epilogue != WSGEMM_EPILOGUE_PREF_DIRECT && swap && splits == 1 &&
        ((long long)p->m * c_bytes) % 16 == 0 && wsgemm_tma_layout_ok(p->C, p->ldc, p->strideC, nb > 1, c_bytes) &&
        (nb == 1 || p->strideC == (long long)p->ldc * p->n))
        tma_store = 1;
    const int defer = tma_store && p->beta == 0.0f && p->Ctype == p->Atype && kn->sm90_epilogue != WSGEMM_EPILOGUE_PREF_TMA;
    *out = (legacy_choice){swap, info.bn, info.cluster, info.stages, splits, sched.group,
                           defer ? WSGEMM_EPILOGUE_DEFERRED : tma_store ? WSGEMM_EPILOGUE_TMA : WSGEMM_EPILOGUE_DIRECT,
                           stage_a, stage_b, off_part + bytes_part, sched.units};
    return 1;
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

static void compare(const wsgemm_problem *p, const wsgemm_knobs *kn, model *md)
{
    legacy_choice want = {0};
    wsgemm_plan plan;
    char why[256] = "", shape[256];
    const int old_ok = legacy_choose(p, kn, md, &want);
    const wsgemm_status s = sm90_plan_make(p, kn, model_query, md, &plan, why, sizeof why);
    describe(p, shape, sizeof shape);
    checked++;
    EXPECT(old_ok == (s == WSGEMM_STATUS_SUCCESS), "%s: declined by %s", shape, old_ok ? "the plan" : "the old chooser");
    if (!old_ok || s != WSGEMM_STATUS_SUCCESS) return;
    EXPECT(plan.swap == want.swap && plan.bn == want.bn && plan.cluster == want.cluster &&
               plan.stages == want.stages && plan.splits == want.splits && plan.sched.group == want.group &&
               plan.sched.units == want.units,
           "%s (variant %d bn %d splitk %d): plan swap %d bn %d cluster %d stages %d splits %d units %lld, old swap %d "
           "bn %d cluster %d stages %d splits %d units %lld",
           shape, kn->sm90_variant, kn->sm90_bn, kn->sm90_splitk, plan.swap, plan.bn, plan.cluster, plan.stages,
           plan.splits, plan.sched.units, want.swap, want.bn, want.cluster, want.stages, want.splits, want.units);
    EXPECT((int)plan.epilogue == want.epilogue, "%s: epilogue %d, old %d", shape, (int)plan.epilogue, want.epilogue);
    EXPECT(plan.a.staged == want.stage_a && plan.b.staged == want.stage_b && plan.workspace_bytes == want.ws_bytes,
           "%s: staged %d %d workspace %zu, old %d %d %zu", shape, plan.a.staged, plan.b.staged, plan.workspace_bytes,
           want.stage_a, want.stage_b, want.ws_bytes);
}

static void case_legacy(void)
{
    static const int dims[] = {1, 7, 16, 64, 100, 128, 129, 256, 300, 520, 1000, 1024, 2048, 3072, 4096, 4099, 8192};
    enum { D = (int)(sizeof dims / sizeof dims[0]) };
    static const int ks[] = {1, 63, 64, 300, 1024, 4096, 14336};
    model h200 = {132}, small = {20};
    model *models[2] = {&h200, &small};
    wsgemm_knobs knob_sets[8];
    for (int i = 0; i < 8; ++i) knob_sets[i] = wsgemm_knobs_defaults();
    knob_sets[1].sm90_variant = 1;
    knob_sets[2].sm90_variant = 3;
    knob_sets[3].sm90_swap = 0;
    knob_sets[4].sm90_bn = 128;
    knob_sets[5].sm90_splitk = 3;
    knob_sets[6].sm90_epilogue = WSGEMM_EPILOGUE_PREF_TMA;
    knob_sets[7].sm90_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
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
                for (int kn = 0; kn < 8; ++kn) compare(&p, &knob_sets[kn], models[(r >> 20) & 1]);
            }
    printf("legacy: %lld problems x knob settings compared with the old launcher's chooser\n", checked);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "legacy";
    if (strcmp(which, "legacy") == 0) case_legacy();
    else {
        fprintf(stderr, "unknown case '%s'\n", which);
        return 2;
    }
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
