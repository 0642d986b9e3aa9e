// SPDX-License-Identifier: MIT
/*
 * sm90_plan_pin_test.c - the sm90 planner's decisions pinned over a grid of problems and knobs: every plan of
 * the grid (status, orientation, kernel row fields, split, schedule, grid, epilogue, staging, workspace) is
 * reduced to one line of text, the lines of one problem's knob sets to a 32-bit FNV-1a hash, and the hashes
 * must equal those of sm90_plan_pins.txt, one line per problem: its index and that hash. The pins were
 * written by this program (`--write FILE`) against the planner and kernel table they pin; a change that moves
 * any decision shows here with the problem and its plans now made (`--print I` prints every plan of problem I
 * in full, to compare with a planner built from another revision).
 *
 * The grid: m, n in 1..8192 (ragged and aligned), k in 1..300000 (past one accumulator chain), every op pair, bf16/f16
 * with each C type, beta 0 and 1, batches, padded and misaligned operands (plan_testing.h's random problem), FP8 pairs
 * (E5M2 x E5M2 too) with and without scales (per tensor, or block-scaled), fused calls; 20 knob sets (each variant,
 * each forced BN, swap off, split-K forced, each epilogue preference, the hybrid off and forced, a band height); two
 * device sizes (132 and 20 SMs). The device model: each row of the kernel table exists as the table says, with sm_count
 * / cluster co-resident clusters. Beside the pins, the build budget: every row of the table runs some plan of the grid,
 * an SM90_BY_PLAN row with the default knobs, the others only with a knob set that asks for them.
 * Exits 0 when every plan matches, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm90/sm90_plan.h"
#include "sm90/sm90_table.h"
#include "sm90/sm90_tile.h"
#include "plan_testing.h"

/* ---------------------------------------------------------------- the device model */

typedef struct model {
    int sm_count;
} model;

static wsgemm_status model_query(void *ctx, int row, int p_mn, int q_mn, sm90_kernel_facts *f)
{
    const model *m = ctx;
    memset(f, 0, sizeof *f);
    if (row < 0 || row >= SM90_KERNEL_ROWS || !sm90_kernel_has_pair(&sm90_kernel_table[row], p_mn, q_mn))
        return WSGEMM_STATUS_SUCCESS;
    const sm90_kernel_config *k = &sm90_kernel_table[row];
    *f = (sm90_kernel_facts){.exists = 1, .bn = k->bn, .stages = k->stages, .cluster = k->cluster};
    f->max_clusters = m->sm_count / f->cluster;
    return WSGEMM_STATUS_SUCCESS;
}

static wsgemm_status plan_make(const wsgemm_problem *p, const wsgemm_knobs *kn, model *md, wsgemm_plan *plan, char *why,
                               size_t why_size)
{
    return sm90_plan_make(p, kn, model_query, md, plan, why, why_size);
}

/* ---------------------------------------------------------------- the grid */

enum { kKnobSets = 20 };

static void knob_sets_make(wsgemm_knobs *k)
{
    for (int i = 0; i < kKnobSets; ++i) k[i] = wsgemm_knobs_defaults();
    k[1].sm90_variant = SM90_VARIANT_NO_CLUSTER;
    k[2].sm90_variant = SM90_VARIANT_THREE_STAGES;
    k[3].sm90_variant = SM90_VARIANT_CLUSTER4;
    k[4].sm90_variant = SM90_VARIANT_CLUSTER4;
    k[4].sm90_bn = 128;
    k[5].sm90_variant = SM90_VARIANT_STAGED16;
    k[6].sm90_variant = SM90_VARIANT_PINGPONG;
    k[6].sm90_bn = 128;
    k[7].sm90_variant = SM90_VARIANT_FUSED;
    k[8].sm90_swap = 0;
    k[9].sm90_bn = 64;
    k[10].sm90_bn = 192;
    k[11].sm90_bn = 256;
    k[12].sm90_splitk = 3;
    k[13].sm90_epilogue = WSGEMM_EPILOGUE_PREF_TMA;
    k[14].sm90_epilogue = WSGEMM_EPILOGUE_PREF_DIRECT;
    k[15].sm90_epilogue = WSGEMM_EPILOGUE_PREF_STAGED;
    k[16].sm90_hybrid = 0;
    k[17].sm90_hybrid = 3;
    k[18].sm90_hybrid = 5;
    k[18].sm90_epilogue = WSGEMM_EPILOGUE_PREF_STAGED;
    k[19].sm90_group = 2;
    k[19].sm90_variant = SM90_VARIANT_STAGED32;
}

static const int kDims[] = {1, 16, 64, 100, 128, 129, 256, 520, 1000, 1536, 3072, 4099, 8192};
static const int kKs[] = {1, 64, 300, 4096, 14336, 300000};
enum {
    kD = (int)(sizeof kDims / sizeof kDims[0]),
    kK = (int)(sizeof kKs / sizeof kKs[0]),
    kKinds = 3, /* 16-bit, FP8, fused */
    kProblems = kD * kD * kK * kKinds
};

static const wsgemm_fused_epilogue kOps = {.ops = {1, 1, 0, WSGEMM_ACTIVATION_GELU}};
static const float kScale = 1.0f;

/* Problem i of the grid and the device it is planned for. */
static wsgemm_problem grid_problem(int i, model **md)
{
    static model h200 = {132}, small = {20};
    const int kind = i % kKinds, ki = i / kKinds % kK, ni = i / kKinds / kK % kD, mi = i / kKinds / kK / kD;
    unsigned r = 2166136261u ^ (unsigned)i;
    for (int s = 0; s < 3; ++s) r = r * 1103515245u + 12345u;
    wsgemm_problem p = plan_testing_random_problem(r, kDims[mi], kDims[ni], kKs[ki]);
    if (kind == 1) { /* FP8: one of the four pairs, scaled or not, fused or not */
        static const wsgemm_dtype pairs[4][2] = {{WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3},
                                                 {WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E5M2},
                                                 {WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E4M3},
                                                 {WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E5M2}};
        p.Atype = pairs[(r >> 21) % 4][0];
        p.Btype = pairs[(r >> 21) % 4][1];
        if ((r >> 23) & 1) p.a_scale = p.b_scale = &kScale;
        if ((r >> 24) % 4 == 0) p.fused = &kOps;
        if ((r >> 26) % 3 == 0) { /* block-scaled: DeepSeek-V3's pair of scale tensors, its mirror, rowwise */
            static const wsgemm_matmul_scale_mode modes[3][2] = {
                {WSGEMM_MATMUL_SCALE_VEC128_32F, WSGEMM_MATMUL_SCALE_BLK128x128_32F},
                {WSGEMM_MATMUL_SCALE_BLK128x128_32F, WSGEMM_MATMUL_SCALE_VEC128_32F},
                {WSGEMM_MATMUL_SCALE_OUTER_VEC_32F, WSGEMM_MATMUL_SCALE_OUTER_VEC_32F}};
            const int pair = (int)((r >> 28) % 3);
            p.a_scale = p.b_scale = NULL;
            p.a_scale_mode = modes[pair][0];
            p.b_scale_mode = modes[pair][1];
            p.a_scales = p.b_scales = &kScale;
            p.beta = 0.0f; /* the fused rows' rule, so that both fused block-scaled rows run plans */
            p.fused = (r >> 30) & 1 ? &kOps : NULL;
        }
    } else if (kind == 2) { /* fused: an E4M3 D now and then */
        p.fused = &kOps;
        if ((r >> 27) % 4 == 0) p.Ctype = WSGEMM_R_8F_E4M3;
    }
    *md = (r >> 20) & 1 ? &small : &h200;
    return p;
}

/* ---------------------------------------------------------------- one plan as text */

static void operand_text(const wsgemm_operand *o, char *buf, size_t size)
{
    snprintf(buf, size, "%lld %lld %lld %lld %d %d %lld %d %zu %zu", o->ld, o->stride, o->inner, o->cols, o->nb,
             o->k_major, o->rows_dim, o->staged, o->stage_offset, o->stage_bytes);
}

static void plan_text(wsgemm_status s, const wsgemm_plan *pl, const char *why, char *buf, size_t size)
{
    if (s != WSGEMM_STATUS_SUCCESS) {
        snprintf(buf, size, "status %d: %s", (int)s, why);
        return;
    }
    char a[160], b[160];
    operand_text(&pl->a, a, sizeof a);
    operand_text(&pl->b, b, sizeof b);
    const wsgemm_sched *sc = &pl->sched;
    snprintf(buf, size,
             "swap %d p %lld q %lld a [%s] b [%s] schedule %d tile %d %d %d cluster %d stages %d variant %d mn %d %d "
             "ab %d in %d splits %d tiles %d %d sched [%d %d %d %d %d %d %d %d %lld %lld %d %d] max_clusters %d grid "
             "%lld epilogue %d partials %zu %zu workspace %zu%s",
             pl->swap, pl->p_extent, pl->q_extent, a, b, (int)pl->schedule, pl->bm, pl->bn, pl->bk, pl->cluster,
             pl->stages, pl->variant, pl->p_mn, pl->q_mn, (int)pl->ab_type, pl->in, pl->splits, pl->tiles_p,
             pl->tiles_q, sc->row_groups, sc->cols, sc->cluster_rows, sc->group, sc->splits, sc->batch, sc->k_blocks,
             sc->k_blocks_per_split, sc->units, sc->sk_first, sc->sk_splits, sc->sk_kb_per_split, pl->max_clusters,
             pl->grid_clusters, (int)pl->epilogue, pl->partials_offset, pl->partials_bytes, pl->workspace_bytes,
             pl->scales == SM90_SCALES_BLOCK        ? " block-scaled"
             : pl->scales == SM90_SCALES_BLOCK_COLS ? " block-scaled, Q per column"
                                                    : "");
}

static uint32_t fnv1a(uint32_t h, const char *s)
{
    for (; *s; ++s) h = (h ^ (uint8_t)*s) * 16777619u;
    return (h ^ (uint8_t)'\n') * 16777619u;
}

/* How often each row of the kernel table ran a plan: with the default knobs, and with any knob set. */
static long long row_plans_default[SM90_KERNEL_ROWS], row_plans_any[SM90_KERNEL_ROWS];

/* The text of problem i's plan with knob set kn (kn_index 0: the defaults); counts the row it runs. */
static void grid_plan_text(int i, const wsgemm_knobs *kn, int kn_index, char *buf, size_t size)
{
    model *md;
    const wsgemm_problem p = grid_problem(i, &md);
    wsgemm_plan plan;
    memset(&plan, 0, sizeof plan);
    char why[256] = "";
    const wsgemm_status s = plan_make(&p, kn, md, &plan, why, sizeof why);
    plan_text(s, &plan, why, buf, size);
    if (s != WSGEMM_STATUS_SUCCESS) return;
    const int row = sm90_kernel_find(plan.in, plan.scales, plan.variant, plan.bn, plan.p_mn, plan.q_mn);
    if (row < 0) {
        snprintf(buf, size, "the plan's kernel (in %d, variant %d, BN %d, mn %d %d) is no row of the table", plan.in,
                 plan.variant, plan.bn, plan.p_mn, plan.q_mn);
        return;
    }
    row_plans_any[row]++;
    if (kn_index == 0) row_plans_default[row]++;
}

/* The hash of problem i's plans, knob set by knob set. */
static uint32_t grid_hash(int i, const wsgemm_knobs *knobs)
{
    char text[1024];
    uint32_t h = 2166136261u;
    for (int k = 0; k < kKnobSets; ++k) {
        grid_plan_text(i, &knobs[k], k, text, sizeof text);
        h = fnv1a(h, text);
    }
    return h;
}

static void print_problem(FILE *out, int i, const wsgemm_knobs *knobs)
{
    char text[1024], shape[256];
    model *md;
    const wsgemm_problem p = grid_problem(i, &md);
    plan_testing_describe(&p, shape, sizeof shape);
    for (int k = 0; k < kKnobSets; ++k) {
        grid_plan_text(i, &knobs[k], k, text, sizeof text);
        fprintf(out, "%d %s sms=%d fused=%d knobs %d: %s\n", i, shape, md->sm_count, p.fused != NULL, k, text);
    }
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    wsgemm_knobs knobs[kKnobSets];
    knob_sets_make(knobs);
    if (argc == 3 && strcmp(argv[1], "--print") == 0) {
        print_problem(stdout, atoi(argv[2]), knobs);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f) {
            fprintf(stderr, "cannot write %s\n", argv[2]);
            return 1;
        }
        fprintf(f, "# sm90_plan_pin_test: problem index, FNV-1a hash of its %d knob sets' plans\n", kKnobSets);
        for (int i = 0; i < kProblems; ++i) fprintf(f, "%d %08x\n", i, grid_hash(i, knobs));
        fclose(f);
        printf("wrote the pins of %d problems x %d knob sets to %s\n", kProblems, kKnobSets, argv[2]);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s PINS | --write PINS | --print PROBLEM\n", argv[0]);
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "FAIL: cannot read the pins %s\n", argv[1]);
        return 1;
    }
    int failures = 0, rows = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        int i = -1;
        unsigned want = 0;
        if (sscanf(line, "%d %x", &i, &want) != 2 || i != rows || i >= kProblems) {
            fprintf(stderr, "FAIL: pins line of problem %d unreadable or out of order\n", rows);
            failures++;
            break;
        }
        if (grid_hash(i, knobs) != (uint32_t)want) {
            if (failures < 3) {
                fprintf(stderr, "FAIL: problem %d: its plans moved from the pins; now:\n", i);
                print_problem(stderr, i, knobs);
            }
            failures++;
        }
        rows++;
    }
    fclose(f);
    if (rows != kProblems) {
        fprintf(stderr, "FAIL: the pins hold %d problems, the grid %d\n", rows, kProblems);
        failures++;
    }
    /* the table's own rule: one row per (input kind, variant, BN, majorness pair) */
    for (int r = 0; r < SM90_KERNEL_ROWS; ++r)
        for (int pair = 0; pair < 4; ++pair) {
            const sm90_kernel_config *k = &sm90_kernel_table[r];
            if (!sm90_kernel_has_pair(k, pair >> 1, pair & 1)) continue;
            const int found = sm90_kernel_find(k->in, k->scales, k->variant, k->bn, pair >> 1, pair & 1);
            if (found != r) {
                fprintf(stderr, "FAIL: row %s: the lookup by its fields finds row %d\n", k->name, found);
                failures++;
            }
        }
    /* the build budget: every row is one some plan runs, by itself (SM90_BY_PLAN: with the default knobs) or
     * when a knob asks for it (SM90_BY_KNOB, SM90_BY_TUNING: never with the default knobs) */
    for (int r = 0; r < SM90_KERNEL_ROWS && rows == kProblems; ++r) {
        const sm90_kernel_config *k = &sm90_kernel_table[r];
        const int by_plan = k->by == SM90_BY_PLAN;
        if (!row_plans_any[r] || by_plan != (row_plans_default[r] > 0)) {
            fprintf(stderr, "FAIL: row %s (by %d) runs %lld plans with the default knobs, %lld with any\n", k->name,
                    k->by, row_plans_default[r], row_plans_any[r]);
            failures++;
        }
    }
    if (failures) {
        fprintf(stderr, "FAILED: %d problems or rows differ from the pins\n", failures);
        return 1;
    }
    printf("PASSED: the plans of %d problems x %d knob sets as pinned; %d table rows each found by its fields, "
           "each running plans (the SM90_BY_PLAN rows with the default knobs, the others only when asked)\n",
           kProblems, kKnobSets, SM90_KERNEL_ROWS);
    return 0;
}
