// SPDX-License-Identifier: MIT
/*
 * test_sm100_emulated.c - the sm100 kernel (gemm/sm100/sm100_kernel.cuh built for sm_90a against the
 * TMEM emulation) against cuBLAS on a Hopper GPU, one ctest entry per case:
 *
 *   ops_cg1, ops_cg2       all four op combinations (K-major and MN-major operands), each cta_group
 *   odd_shapes             m, n, k of 1, primes, just past tile edges; both cta_groups
 *   batch                  strided batch, a shared operand (stride 0), interleaved C
 *   alpha_beta             alpha != 1, beta != 0 (C read), beta == 0 with NaN-poisoned C
 *   types                  bf16 and f16 in; bf16, f16, f32 out
 *   more_ctas_than_tiles   a forced grid larger than the tile count (zero-tile CTAs must tear down)
 *   several_tiles [cg]     one CTA (one pair) per problem computes many tiles: both accumulators are reused
 *                          (what an early acc_empty release or a missing acc_empty wait breaks), all four
 *                          op combinations, ragged m, n, k, beta != 0, both cta_groups (or cta_group cg)
 *   several_tiles_beta0 [cg]  the same with beta = 0: the epilogue loads no C (the mutation suite's test of
 *                          accumulator reuse: the happens-before tracking stops on a pair that loads C)
 *   clc_cg1, clc_cg2       the cluster launch control schedule (WSGEMM_SM100_CLC=1, sync/clc.cuh): two CTAs
 *                          (one pair) run at once over many units, the others handed out by try_cancel (on
 *                          sm_90 the emulation's counter, emu/clc_emu.cuh); the launch was the CLC kernel's,
 *                          and every unit beyond the launched clusters' own came through a request
 *   padded_ld              lda/ldb/ldc larger than the rows (and padding rows of C untouched)
 *   staged                 operands TMA cannot address (odd lda / ldb, bases 2 bytes past 16, an
 *                          overlapping batch stride): the path copies them (gemm/common/staging.h) and runs
 *   splitk                 K split (forced 3 splits, and the plan's own split of a decode shape): fp32
 *                          partials and the fixed-order reduction, every C type, beta 0 and != 0
 *   epilogue               the TMA epilogue (C's rows whole 16-byte chunks: stores through shared memory,
 *                          C loaded by TMA when beta != 0) for every C type, beta 0 and != 0, both cta_groups,
 *                          partial tiles, padded ldc and a batch; the same cases with WSGEMM_SM100_EPILOGUE=direct
 *   no_leak                after a run, the emulation reports zero TMEM columns still allocated
 *   fused_ops              wsgemm_matmul's fused op (bias, ReLU/GELU, aux, scales, amax) against an fp64 host
 *                          reference: TMA stores, C == D loaded by TMA, per-element stores; both cta_groups
 *   fused_e4m3_d           an E4M3 D stored by TMA (and per element where the plan says so)
 *   fused_c_not_d          beta != 0 with a C that is not D: C by TMA from its own tensor map, C untouched
 *   mx                     block-scaled MXFP8 (VEC32_UE8M0 on A and B: kind::mxf8f6f4.block_scale) against an
 *                          fp64 host reference: every op layout, a partial K block, E5M2 x E4M3, alpha, beta,
 *                          UE8M0 codes 0, 254 and 255 (NaN), both cta_groups; an fp32 D declined, D untouched
 *   fault_early_dealloc, fault_missing_peer_signal
 *                          the planted teardown bugs (WSGEMM_SM100_FAULT) run in a child process;
 *                          the case passes only if the child failed AND the emulation checker said so
 *
 * The cta_group is forced through the knob WSGEMM_SM100_CTA_GROUP, the grid through WSGEMM_SM100_CTAS, the
 * split through WSGEMM_SM100_SPLITK (docs/tuning.md; the knobs are read once, so each change is followed by
 * wsgemm_knobs_reload). Leading dimensions are multiples of 8 elements unless a case says otherwise (staged).
 * Shapes stay modest: the emulated tensor core runs on CUDA cores.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/knobs.h"      /* wsgemm_knobs_reload after each knob change */
#include "internal.h"          /* wsgemm_sm100_emulated_available */
#include "sm100/sm100_plan.h"  /* SM100_VARIANT_CLC */
#include "sm100/sm100_probe.h" /* what the launcher ran (cta_group, splits, epilogue, staging); the
                                  emulation's TMEM columns and checker error */
#include "testing.h"
#include "tmem/desc.h" /* UMMA_KIND_MXF8F6F4: the probe's kind of the block-scaled MMA */
#include "wsgemm.h"

/* The path under test: the emulated kernel on Hopper (9.0), the real one on Blackwell (10.0): the same
 * cases are the first-run check on a B200 (docs/sm100.md). */
static wsgemm_path kPath = WSGEMM_PATH_SM100_EMULATED;

/* The probe's MMA kind of the MX kernel (kind::mxf8f6f4.block_scale). */
static const int kKindMx = UMMA_KIND_MXF8F6F4; /* 2 */

static int round8(int x)
{
    return (x + 7) / 8 * 8;
}

/* Set (value >= 0) or clear (value < 0) a knob, and make the plans see it. */
static void set_knob(const char *name, int value)
{
    char v[16];
    snprintf(v, sizeof v, "%d", value);
    if (value >= 0)
        setenv(name, v, 1);
    else
        unsetenv(name);
    wsgemm_knobs_reload();
}

static void set_cta_group(int cg)
{
    set_knob("WSGEMM_SM100_CTA_GROUP", cg);
}

/* A case with TMA-legal (multiple of 8) leading dimensions and tight strides. */
static testing_gemm make_case(wsgemm_op ta, wsgemm_op tb, int m, int n, int k)
{
    testing_gemm g = testing_gemm_make(ta, tb, m, n, k);
    g.lda = round8(ta == WSGEMM_OP_N ? m : k);
    g.ldb = round8(tb == WSGEMM_OP_N ? k : n);
    g.ldc = m;
    return g;
}

static int run_case(wsgemm_handle h, const testing_gemm *g, int cg, uint64_t seed)
{
    set_cta_group(cg);
    printf("[cta_group %d] ", cg);
    fflush(stdout);
    const int ok = testing_case_against_cublas(h, g, kPath, seed, 1);
    char rec[1024] = "";
    const int code = wsgemm_sm100_emulated_checker_error(rec, sizeof rec); /* ABSENT without the emulation */
    if (!ok && code != 0 && code != WSGEMM_EMULATION_ABSENT) printf("  emulation checker record: %s\n", rec);
    return ok;
}

/* The last launch on the path under test matches (a field of -1: any value); prints it. */
static int expect_launch(const char *what, int cta_group, int splits, int epilogue, int staged_a, int staged_b)
{
    wsgemm_sm100_launch_probe l;
    const int got = kPath == WSGEMM_PATH_SM100 ? wsgemm_sm100_last_launch(&l) : wsgemm_sm100_emulated_last_launch(&l);
    const int ok = got == 0 && (cta_group < 0 || l.cta_group == cta_group) && (splits < 0 || l.splits == splits) &&
                   (epilogue < 0 || l.epilogue == epilogue) && (staged_a < 0 || l.staged_a == staged_a) &&
                   (staged_b < 0 || l.staged_b == staged_b);
    if (got != 0)
        printf("FAIL %s: no launch recorded\n", what);
    else
        printf("%s %s: ran cta_group %d, %d splits, epilogue %d, staged A %d B %d, %lld CTAs\n", ok ? "PASS" : "FAIL",
               what, l.cta_group, l.splits, l.epilogue, l.staged_a, l.staged_b, l.ctas);
    return ok;
}

static const wsgemm_op kOps[4][2] = {
    {WSGEMM_OP_T, WSGEMM_OP_N}, /* both K-major */
    {WSGEMM_OP_N, WSGEMM_OP_N}, /* A MN-major */
    {WSGEMM_OP_T, WSGEMM_OP_T}, /* B MN-major */
    {WSGEMM_OP_N, WSGEMM_OP_T}, /* both MN-major */
};

static int case_ops(wsgemm_handle h, int cg)
{
    int ok = 1;
    for (int o = 0; o < 4; ++o) {
        /* two tiles in m and n for either cta_group, k over several stages and a partial k-block */
        testing_gemm g = make_case(kOps[o][0], kOps[o][1], 300, 384, 456);
        ok &= run_case(h, &g, cg, 100 + o);
    }
    return ok;
}

static int case_odd_shapes(wsgemm_handle h)
{
    static const int shapes[][3] = {
        {1, 1, 1}, {7, 13, 5}, {129, 257, 65}, {255, 31, 200}, {257, 300, 17}, {131, 17, 129}, {64, 520, 64},
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (int cg = 1; cg <= 2; ++cg) {
            const wsgemm_op *op = kOps[(i + cg) % 4];
            testing_gemm g = make_case(op[0], op[1], shapes[i][0], shapes[i][1], shapes[i][2]);
            ok &= run_case(h, &g, cg, 200 + i);
        }
    return ok;
}

static int case_batch(wsgemm_handle h)
{
    int ok = 1;
    for (int cg = 1; cg <= 2; ++cg) {
        testing_gemm g = make_case(WSGEMM_OP_T, WSGEMM_OP_N, 200, 136, 96);
        g.batch = 3;
        ok &= run_case(h, &g, cg, 300 + cg);

        testing_gemm s = make_case(WSGEMM_OP_N, WSGEMM_OP_T, 130, 260, 72);
        s.batch = 4;
        s.strideA = 0; /* one A shared by every batch */
        s.alpha = 0.75f;
        ok &= run_case(h, &s, cg, 310 + cg);

        testing_gemm b0 = make_case(WSGEMM_OP_T, WSGEMM_OP_T, 96, 70, 40);
        b0.batch = 2;
        b0.strideB = 0;                            /* one B shared by every batch */
        b0.strideA = (long long)b0.lda * b0.m + 8; /* gaps between matrices, still 16-B aligned */
        ok &= run_case(h, &b0, cg, 320 + cg);
    }
    return ok;
}

static int case_alpha_beta(wsgemm_handle h)
{
    static const float ab[][2] = {{0.5f, 0.0f}, {1.0f, 1.0f}, {-1.25f, 0.5f}, {2.0f, -1.5f}};
    int ok = 1;
    for (size_t i = 0; i < sizeof ab / sizeof ab[0]; ++i)
        for (int cg = 1; cg <= 2; ++cg) {
            testing_gemm g = make_case(kOps[i][0], kOps[i][1], 190, 270, 130);
            g.alpha = ab[i][0];
            g.beta = ab[i][1];
            g.c_type = i % 2 ? WSGEMM_R_32F : WSGEMM_R_16BF;
            ok &= run_case(h, &g, cg, 400 + i);
        }
    return ok;
}

static int case_types(wsgemm_handle h)
{
    static const wsgemm_dtype in[2] = {WSGEMM_R_16BF, WSGEMM_R_16F};
    static const wsgemm_dtype out[3] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F};
    int ok = 1;
    for (int a = 0; a < 2; ++a)
        for (int c = 0; c < 3; ++c)
            for (int cg = 1; cg <= 2; ++cg) {
                testing_gemm g = make_case(kOps[(a + c) % 4][0], kOps[(a + c) % 4][1], 160, 200, 100);
                g.ab_type = in[a];
                g.c_type = out[c];
                g.beta = c == 2 ? 0.5f : 0.0f;
                ok &= run_case(h, &g, cg, 500 + a * 3 + c);
            }
    return ok;
}

static int case_more_ctas(wsgemm_handle h)
{
    int ok = 1;
    set_knob("WSGEMM_SM100_CTAS", 12); /* 12 CTAs (6 pairs) for 1-3 tiles */
    for (int cg = 1; cg <= 2; ++cg) {
        testing_gemm g = make_case(WSGEMM_OP_T, WSGEMM_OP_N, 100, 300, 70);
        ok &= run_case(h, &g, cg, 600 + cg);
    }
    set_knob("WSGEMM_SM100_CTAS", 2); /* fewer CTAs than tiles: every CTA loops over several tiles */
    for (int cg = 1; cg <= 2; ++cg) {
        testing_gemm g = make_case(WSGEMM_OP_N, WSGEMM_OP_N, 600, 700, 90);
        ok &= run_case(h, &g, cg, 610 + cg);
    }
    set_knob("WSGEMM_SM100_CTAS", -1);
    return ok;
}

/* only_cg: 1 or 2 runs that cta_group alone (0: both). read_c: beta != 0 (C read; for the 16-byte rows of
 * these shapes through shared memory by TMA); 0: beta = 0, so the epilogue never loads C. */
static int case_several_tiles(wsgemm_handle h, int only_cg, int read_c)
{
    int ok = 1;
    setenv("WSGEMM_SM100_CTAS", "2", 1); /* cta_group 1: two CTAs; cta_group 2: one pair */
    for (int cg = 1; cg <= 2; ++cg)
        for (int o = 0; o < 4 && (only_cg == 0 || only_cg == cg); ++o) {
            /* cta_group 1: 5 x 3 = 15 tiles of 128 x 256 for 2 CTAs; cta_group 2: 3 x 3 = 9 pair tiles */
            testing_gemm g = make_case(kOps[o][0], kOps[o][1], 520 + 37 * o, 700 - 20 * o, 150 + 8 * o);
            g.alpha = 0.5f + 0.25f * o;
            g.beta = !read_c ? 0.0f : o % 2 ? -0.75f : 0.5f;
            g.c_type = o % 2 ? WSGEMM_R_32F : WSGEMM_R_16BF;
            ok &= run_case(h, &g, cg, 650 + 10 * cg + o + (read_c ? 0 : 100));
        }
    unsetenv("WSGEMM_SM100_CTAS");
    return ok;
}

/* CLC with two CTAs (one pair) at once: cta_group 1, 5 x 3 = 15 units; cta_group 2, 3 x 3 = 9 pair units (each
 * cluster's own unit, the rest from try_cancel). All four op combinations, ragged m, n, k, beta 0 and != 0, bf16
 * C (the CLC kernels' type). */
static int case_clc(wsgemm_handle h, int cg)
{
    int ok = 1;
    set_knob("WSGEMM_SM100_CLC", 1);
    set_knob("WSGEMM_SM100_CTAS", 2);
    for (int o = 0; o < 4; ++o) {
        const int m = 520 + 37 * o, n = 700 - 20 * o;
        testing_gemm g = make_case(kOps[o][0], kOps[o][1], m, n, 150 + 8 * o);
        g.alpha = 0.5f + 0.25f * o;
        g.beta = o % 2 ? -0.75f : 0.0f;
        g.c_type = WSGEMM_R_16BF;
        ok &= run_case(h, &g, cg, 1000 + 10 * cg + o);
        const long long rows = ((m + 127) / 128 + cg - 1) / cg, units = rows * ((n + 255) / 256);
        wsgemm_sm100_launch_probe l;
        const int hw = kPath == WSGEMM_PATH_SM100;
        const int got = hw ? wsgemm_sm100_last_launch(&l) : wsgemm_sm100_emulated_last_launch(&l);
        /* the stand-in answered one request per unit beyond the launched clusters' own and one failed request per
         * launched cluster: units in all (the hardware launches every cluster and cancels what has not started) */
        const int requests = hw ? -1 : wsgemm_sm100_emulated_clc_requests();
        const long long launched = got == 0 ? l.ctas / cg : -1;
        const int ran = got == 0 && l.variant == SM100_VARIANT_CLC && l.cta_group == cg && l.clusters_total == units &&
                        (hw ? launched == units : launched == 2 / cg && launched < units && requests == units);
        printf("%s clc cta_group %d, %d x %d: variant %d, %lld clusters launched, %lld in the grid (want %lld), "
               "%d requests answered\n",
               ran ? "PASS" : "FAIL", cg, m, n, got == 0 ? l.variant : -1, launched, got == 0 ? l.clusters_total : -1,
               units, requests);
        ok &= ran;
    }
    set_knob("WSGEMM_SM100_CTAS", -1);
    set_knob("WSGEMM_SM100_CLC", -1);
    return ok;
}

static int case_padded_ld(wsgemm_handle h)
{
    int ok = 1;
    for (int cg = 1; cg <= 2; ++cg) {
        testing_gemm g = make_case(kOps[cg][0], kOps[cg][1], 150, 140, 120);
        g.lda += 24;
        g.ldb += 40;
        g.ldc = 157; /* C's leading dimension has no alignment rule: the epilogue stores per element */
        g.beta = 0.25f;
        ok &= run_case(h, &g, cg, 700 + cg);
    }
    return ok;
}

/* The TMA epilogue: m * C's element size a multiple of 16 bytes and ldc likewise, so the plan stores through
 * shared memory by TMA (beta != 0: C comes in by TMA first); m = 136 and n = 300 leave partial 32 x 32 chunks
 * (rows 128..135 of the second row of tiles, columns 288..299), ldc = 144 leaves padding rows the stores must
 * not touch. Then the same with per-element stores. The plans are printed (WSGEMM_SM100_DEBUG). */
static int case_epilogue(wsgemm_handle h)
{
    static const wsgemm_dtype out[3] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F};
    int ok = 1;
    set_knob("WSGEMM_SM100_DEBUG", 1);
    for (int direct = 0; direct <= 1; ++direct) {
        if (direct)
            setenv("WSGEMM_SM100_EPILOGUE", "direct", 1);
        else
            unsetenv("WSGEMM_SM100_EPILOGUE");
        wsgemm_knobs_reload();
        for (int c = 0; c < 3; ++c)
            for (int b = 0; b < 2; ++b)
                for (int cg = 1; cg <= 2; ++cg) {
                    testing_gemm g = make_case(kOps[(c + b) % 4][0], kOps[(c + b) % 4][1], 136, 300, 200);
                    g.c_type = out[c];
                    g.ldc = 144;
                    g.beta = b ? 0.75f : 0.0f;
                    g.alpha = b ? -1.25f : 1.0f;
                    g.batch = c == 1 ? 2 : 1;
                    printf("[%s] ", direct ? "direct" : "tma");
                    ok &= run_case(h, &g, cg, 870 + direct * 12 + c * 4 + b * 2 + cg);
                    /* epilogue kinds (gemm/common/epilogue.h): 1 direct, 2 TMA stores, 4 C loaded by TMA too */
                    ok &= expect_launch("epilogue", cg, 1, direct ? 1 : b ? 4 : 2, 0, 0);
                }
    }
    unsetenv("WSGEMM_SM100_EPILOGUE");
    set_knob("WSGEMM_SM100_DEBUG", -1);
    return ok;
}

/* Operands TMA cannot address as stored: the path stages them (gemm/common/staging.h) instead of declining. */
static int case_staged(wsgemm_handle h)
{
    int ok = 1;
    for (int cg = 1; cg <= 2; ++cg) {
        testing_gemm g = make_case(WSGEMM_OP_T, WSGEMM_OP_N, 200, 300, 100);
        g.lda = 101; /* 202 bytes: not a TMA stride */
        ok &= run_case(h, &g, cg, 800 + cg);
        ok &= expect_launch("staged lda", cg, -1, -1, 1, 0);
        testing_gemm b = make_case(WSGEMM_OP_N, WSGEMM_OP_T, 130, 270, 90);
        b.ldb = 271;
        b.beta = 0.5f;
        ok &= run_case(h, &b, cg, 810 + cg);
        ok &= expect_launch("staged ldb", cg, -1, -1, 0, 1);
        testing_gemm o = make_case(kOps[cg][0], kOps[cg][1], 160, 140, 75);
        o.offset = 1; /* A, B and C 2 bytes past a 16-byte boundary */
        o.c_type = WSGEMM_R_32F;
        ok &= run_case(h, &o, cg, 820 + cg);
        ok &= expect_launch("staged bases", cg, -1, 1, 1, 1);
        testing_gemm v = make_case(WSGEMM_OP_T, WSGEMM_OP_N, 96, 130, 64);
        v.batch = 3;
        v.strideA = 64 * 40; /* matrices overlap (each is 64 x 96): a TMA box walk cannot describe them */
        ok &= run_case(h, &v, cg, 830 + cg);
        ok &= expect_launch("staged overlap", cg, -1, -1, 1, 0);
    }
    return ok;
}

/* K split into fp32 partials and the fixed-order reduction: forced 3 splits for every C type and beta, both
 * cta_groups, m a multiple of 4 and not; then the plan's own split of a decode shape (one row of two tiles,
 * 64 K blocks). */
static int case_splitk(wsgemm_handle h)
{
    static const wsgemm_dtype out[3] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F};
    int ok = 1;
    set_knob("WSGEMM_SM100_SPLITK", 3);
    for (int c = 0; c < 3; ++c)
        for (int cg = 1; cg <= 2; ++cg) {
            testing_gemm g = make_case(kOps[c][0], kOps[c][1], c == 1 ? 261 : 260, 300, 700);
            g.c_type = out[c];
            g.beta = c == 0 ? 0.0f : -0.75f;
            g.alpha = 1.5f;
            ok &= run_case(h, &g, cg, 850 + c * 2 + cg);
            ok &= expect_launch("splitk forced", cg, 3, -1, -1, -1);
        }
    set_knob("WSGEMM_SM100_SPLITK", -1);
    set_knob("WSGEMM_SM100_CTA_GROUP", -1);
    set_knob("WSGEMM_SM100_DEBUG", 1); /* the plan on stderr: its splits are part of the log */
    testing_gemm d = make_case(WSGEMM_OP_N, WSGEMM_OP_N, 64, 512, 4096);
    d.beta = 1.0f;
    printf("[plan's choice] ");
    ok &= testing_case_against_cublas(h, &d, kPath, 860, 1);
    wsgemm_sm100_launch_probe l;
    const int got = kPath == WSGEMM_PATH_SM100 ? wsgemm_sm100_last_launch(&l) : wsgemm_sm100_emulated_last_launch(&l);
    ok &= expect_launch("splitk plan", 1, -1, -1, -1, -1) && got == 0 && l.splits > 1;
    set_knob("WSGEMM_SM100_DEBUG", -1);
    return ok;
}

static int case_no_leak(wsgemm_handle h)
{
    if (kPath != WSGEMM_PATH_SM100_EMULATED || !wsgemm_sm100_emulated_available()) {
        printf("SKIPPED: the TMEM leak query exists only in the emulated build\n");
        exit(WSGEMM_TEST_SKIP);
    }
    int ok = 1;
    for (int cg = 1; cg <= 2; ++cg) {
        set_knob("WSGEMM_SM100_CTAS", 8); /* includes zero-tile CTAs */
        testing_gemm g = make_case(WSGEMM_OP_T, WSGEMM_OP_N, 256, 256, 64);
        ok &= run_case(h, &g, cg, 900 + cg);
        set_knob("WSGEMM_SM100_CTAS", -1);
        CUDA_CHECK(cudaDeviceSynchronize());
        int leaked = wsgemm_sm100_emulated_tmem_leaked_columns();
        printf("%s no_leak cta_group %d: %d TMEM columns still allocated after the kernel\n",
               leaked == 0 ? "PASS" : "FAIL", cg, leaked);
        ok &= leaked == 0;
    }
    return ok;
}

/* ---------------------------------------------------------------- planted teardown bugs */

/* What the tmem/ emulation prints when its checker fires (its device printf; may be lost with the
 * trapped context, so the child also reports the checker's host-mapped record and its exit code). */
#define TMEM_CHECKER_MARKER "TMEM-EMU ERROR"

/* Child exit codes. */
enum { CHILD_UNNOTICED = 0, CHILD_CUDA_ERROR_ONLY = 3, CHILD_CHECKER_FIRED = 4 };

/* The child: one GEMM on the emulated path with the fault the parent put in the environment.
 * Exit CHILD_UNNOTICED when the GEMM succeeded (the bug went unnoticed), CHILD_CHECKER_FIRED when the
 * emulation's checker recorded an error, CHILD_CUDA_ERROR_ONLY for any other failure (a watchdog trap,
 * a launch error). */
static int fault_child(wsgemm_handle h)
{
    testing_gemm g = make_case(WSGEMM_OP_T, WSGEMM_OP_N, 512, 512, 256); /* several tiles per pair */
    testing_gemm_resolve(&g);
    testing_buffers b;
    testing_buffers_create(&g, 1000, &b);
    wsgemm_status s = testing_run_wsgemm(h, &g, &b);
    cudaError_t err = cudaDeviceSynchronize();
    printf("child: fault=%s cta_group=%s status=%s cuda=%s\n", getenv("WSGEMM_SM100_FAULT"),
           getenv("WSGEMM_SM100_CTA_GROUP"), wsgemm_status_string(s), cudaGetErrorString(err));
    char rec[1024] = "";
    int code = wsgemm_sm100_emulated_checker_error(rec, sizeof rec);
    if (code == WSGEMM_EMULATION_ABSENT) code = 0; /* no emulation, no checker */
    printf("child: emulation checker record: %s\n", code ? rec : "none");
    fflush(stdout);
    if (code != 0) return CHILD_CHECKER_FIRED;
    return (s == WSGEMM_STATUS_SUCCESS && err == cudaSuccess) ? CHILD_UNNOTICED : CHILD_CUDA_ERROR_ONLY;
}

static int run_fault(const char *fault, int cg)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        printf("FAIL %s: cannot find this executable\n", fault);
        return 0;
    }
    exe[len] = '\0';
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "WSGEMM_SM100_FAULT=%s WSGEMM_SM100_CTA_GROUP=%d WSGEMM_SM100_CTAS=4 WSGEMM_SM100_EMU_DELAY_NS=2000 "
             "timeout 300 '%s' fault_child 2>&1",
             fault, cg, exe);
    FILE *pipe = popen(cmd, "r");
    if (pipe == NULL) {
        printf("FAIL %s: popen failed\n", fault);
        return 0;
    }
    static char out[1 << 16];
    size_t used = 0;
    char line[1024];
    while (fgets(line, sizeof line, pipe) != NULL) {
        printf("  | %s", line);
        size_t l = strlen(line);
        if (used + l < sizeof out) {
            memcpy(out + used, line, l);
            used += l;
        }
    }
    out[used] = '\0';
    int status = pclose(pipe);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    const int hung = code == 124;
    const int printed = strstr(out, TMEM_CHECKER_MARKER) != NULL;
    const int ok = code == CHILD_CHECKER_FIRED;
    printf("%s %s cta_group %d: child exit %d%s; emulation checker %s%s\n", ok ? "PASS" : "FAIL", fault, cg, code,
           hung ? " (timed out: a hang, not a diagnosis)" : "", ok ? "fired" : "silent",
           printed ? " (its message reached stdout)" : "");
    return ok;
}

/* ---------------------------------------------------------------- the fused output op (wsgemm_matmul)
 *
 * A host reference in fp64 from the exactly decoded inputs: x = alpha a_scale b_scale sum + beta c_scale C,
 * x += bias[row], aux = x, x = act(x) (GELU: the tanh form, exact tanh), amax = max |x|, D = d_scale x
 * (saturated to +-448 for an E4M3 D). D, aux and amax are poisoned with NaN before the call, C too when
 * beta = 0 (proof that it is not read); NaN never passes. Tolerance per element: the rounding of D's (or
 * aux's) type, twice, plus the kernel's tanh.approx (0.5 |x| 2^-11) for GELU. */
typedef struct fused_case {
    const char *what;
    wsgemm_dtype ab, c, d;
    wsgemm_matmul_epilogue epilogue;
    float beta;
    int c_is_d;    /* 1: C and D are one matrix (in place); 0: C has its own buffer */
    int ldc_extra; /* C's leading dimension is m + ldc_extra (C not D) */
    int m;
    int cg;
    int expect_epilogue; /* the launch's epilogue kind (gemm/common/epilogue.h) */
} fused_case;

static double ref_gelu(double x)
{
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static double rel_tol_of(wsgemm_dtype t)
{
    return t == WSGEMM_R_8F_E4M3 ? ldexp(1.0, -3)
           : t == WSGEMM_R_16BF  ? ldexp(1.0, -7)
           : t == WSGEMM_R_16F   ? ldexp(1.0, -10)
                                 : ldexp(1.0, -16);
}

static void *dev_copy(const void *host, size_t bytes)
{
    void *d = NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes > 0 ? bytes : 1));
    CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static int run_fused(wsgemm_handle h, const fused_case *fc, uint64_t seed)
{
    const int m = fc->m, n = 300, k = 200;
    const int ab_bytes = testing_dtype_bytes(fc->ab), c_bytes = testing_dtype_bytes(fc->c);
    const int d_bytes = testing_dtype_bytes(fc->d);
    const int lda = (k + 15) / 16 * 16, ldb = lda; /* A stored k x m (transa T), B k x n (transb N): K-major */
    const int ldc = fc->c_is_d ? m : m + fc->ldc_extra, ldd = m, ldaux = m;
    const int bias_on =
        fc->epilogue == WSGEMM_MATMUL_EPILOGUE_RELU_BIAS || fc->epilogue == WSGEMM_MATMUL_EPILOGUE_GELU_BIAS ||
        fc->epilogue == WSGEMM_MATMUL_EPILOGUE_BIAS || fc->epilogue == WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS;
    const int aux_on =
        fc->epilogue == WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS || fc->epilogue == WSGEMM_MATMUL_EPILOGUE_GELU_AUX;
    const int gelu =
        fc->epilogue == WSGEMM_MATMUL_EPILOGUE_GELU || fc->epilogue == WSGEMM_MATMUL_EPILOGUE_GELU_BIAS || aux_on;
    const int relu = fc->epilogue == WSGEMM_MATMUL_EPILOGUE_RELU || fc->epilogue == WSGEMM_MATMUL_EPILOGUE_RELU_BIAS;
    const float alpha = 0.75f, a_scale = 0.5f, b_scale = 2.0f, c_scale = 1.5f;
    const float d_scale = fc->d == WSGEMM_R_8F_E4M3 ? 4.0f : 2.0f;
    const size_t na = (size_t)lda * m, nb = (size_t)ldb * n, nc = (size_t)ldc * n, nd = (size_t)ldd * n;
    unsigned char *hA = calloc(na, ab_bytes), *hB = calloc(nb, ab_bytes), *hC = calloc(nc, c_bytes);
    unsigned char *hBias = calloc((size_t)m, 2), *hD = malloc(nd * d_bytes), *hAux = malloc((size_t)ldaux * n * 2);
    unsigned char *hC_after = malloc(nc * c_bytes);
    testing_rng r = testing_rng_seeded(seed);
    for (size_t i = 0; i < na; ++i) testing_store(fc->ab, hA, i, testing_rng_uniform(&r));
    for (size_t i = 0; i < nb; ++i) testing_store(fc->ab, hB, i, testing_rng_uniform(&r));
    for (size_t i = 0; i < nc; ++i) testing_store(fc->c, hC, i, testing_rng_uniform(&r));
    for (int i = 0; i < m; ++i) testing_store(WSGEMM_R_16BF, hBias, (size_t)i, testing_rng_uniform(&r));
    if (fc->beta == 0.0f) memset(hC, 0xFF, nc * c_bytes); /* NaN: must not be read */
    void *A = dev_copy(hA, na * ab_bytes), *B = dev_copy(hB, nb * ab_bytes), *C = dev_copy(hC, nc * c_bytes);
    void *bias = dev_copy(hBias, (size_t)m * 2), *aux = NULL, *D = C, *scales = NULL;
    float *amax = NULL;
    CUDA_CHECK(cudaMalloc(&aux, (size_t)ldaux * n * 2));
    CUDA_CHECK(cudaMemset(aux, 0xFF, (size_t)ldaux * n * 2));
    if (!fc->c_is_d) {
        CUDA_CHECK(cudaMalloc(&D, nd * d_bytes));
        CUDA_CHECK(cudaMemset(D, 0xFF, nd * d_bytes));
    }
    const float hs[5] = {a_scale, b_scale, c_scale, d_scale, 0.0f};
    scales = dev_copy(hs, sizeof hs);
    amax = (float *)scales + 4;
    CUDA_CHECK(cudaMemset(amax, 0xFF, sizeof(float)));

    wsgemm_matmul_desc desc;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&desc, WSGEMM_OP_T, WSGEMM_OP_N, fc->ab, fc->d));
    desc.Ctype = fc->c;
    desc.epilogue = fc->epilogue;
    desc.bias = bias_on ? bias : NULL;
    desc.bias_type = WSGEMM_R_16BF;
    desc.aux = aux_on ? aux : NULL;
    desc.aux_type = WSGEMM_R_16BF;
    desc.ldaux = ldaux;
    desc.a_scale = (const float *)scales;
    desc.b_scale = (const float *)scales + 1;
    desc.c_scale = (const float *)scales + 2;
    desc.d_scale = (const float *)scales + 3;
    desc.amax_d = amax;
    set_cta_group(fc->cg);
    printf("[cta_group %d] fused %s: m %d n %d k %d, A/B %s, C %s (ldc %d, %s), D %s, epilogue %d, beta %g\n", fc->cg,
           fc->what, m, n, k, testing_dtype_name(fc->ab), testing_dtype_name(fc->c), ldc, fc->c_is_d ? "is D" : "own",
           testing_dtype_name(fc->d), (int)fc->epilogue, (double)fc->beta);
    const wsgemm_status st = wsgemm_matmul(h, &desc, m, n, k, &alpha, A, lda, B, ldb, &fc->beta, C, ldc, D, ldd);
    int ok = st == WSGEMM_STATUS_SUCCESS;
    if (!ok) printf("FAIL fused %s: wsgemm_matmul returned %s\n", fc->what, wsgemm_status_string(st));
    CUDA_CHECK(cudaDeviceSynchronize());
    float got_amax = 0.0f;
    CUDA_CHECK(cudaMemcpy(hD, D, nd * d_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hAux, aux, (size_t)ldaux * n * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hC_after, C, nc * c_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&got_amax, amax, sizeof got_amax, cudaMemcpyDeviceToHost));

    double ref_amax = 0.0;
    size_t bad = 0;
    const double tol_d = 2.0 * rel_tol_of(fc->d), tol_aux = 2.0 * rel_tol_of(WSGEMM_R_16BF);
    for (int j = 0; j < n && ok; ++j)
        for (int i = 0; i < m; ++i) {
            double sum = 0.0;
            for (int kk = 0; kk < k; ++kk)
                sum += (double)testing_load(fc->ab, hA, (size_t)kk + (size_t)i * lda) *
                       (double)testing_load(fc->ab, hB, (size_t)kk + (size_t)j * ldb);
            double x = (double)alpha * a_scale * b_scale * sum;
            if (fc->beta != 0.0f)
                x += (double)fc->beta * c_scale * testing_load(fc->c, hC, (size_t)i + (size_t)j * ldc);
            if (bias_on) x += testing_load(WSGEMM_R_16BF, hBias, (size_t)i);
            const double pre = x;
            if (relu) x = x > 0.0 ? x : 0.0;
            if (gelu) x = ref_gelu(x);
            if (fabs(x) > ref_amax) ref_amax = fabs(x);
            double want = d_scale * x;
            if (fc->d == WSGEMM_R_8F_E4M3) want = want > 448.0 ? 448.0 : want < -448.0 ? -448.0 : want;
            const double got = testing_load(fc->d, hD, (size_t)i + (size_t)j * ldd);
            const double act_tol = gelu ? 0.5 * fabs(pre) * ldexp(1.0, -11) * d_scale : 0.0;
            const double tol = tol_d * fabs(want) + act_tol + ldexp(1.0, -9) * d_scale;
            if (isnan(got) || !(fabs(got - want) <= tol)) {
                if (bad++ < 5)
                    printf("    D (%d, %d): got %.8g, reference %.8g (tol %.3g) [m %d n %d k %d]\n", i, j, got, want,
                           tol, m, n, k);
            }
            if (aux_on) {
                const double ga = testing_load(WSGEMM_R_16BF, hAux, (size_t)i + (size_t)j * ldaux);
                if (isnan(ga) || !(fabs(ga - pre) <= tol_aux * fabs(pre) + ldexp(1.0, -9))) {
                    if (bad++ < 5) printf("    aux (%d, %d): got %.8g, reference %.8g\n", i, j, ga, pre);
                }
            }
        }
    if (bad) {
        printf("FAIL fused %s: %zu mismatches\n", fc->what, bad);
        ok = 0;
    }
    if (ok && (isnan(got_amax) || !(fabs(got_amax - ref_amax) <= ldexp(ref_amax, -8) + 1e-6))) {
        printf("FAIL fused %s: amax %.8g, reference %.8g\n", fc->what, (double)got_amax, ref_amax);
        ok = 0;
    }
    if (ok && !fc->c_is_d && memcmp(hC, hC_after, nc * c_bytes) != 0) {
        printf("FAIL fused %s: C (not D) was written\n", fc->what);
        ok = 0;
    }
    ok &= expect_launch(fc->what, fc->cg, 1, fc->expect_epilogue, -1, -1);
    if (ok) printf("PASS fused %s\n", fc->what);
    if (!fc->c_is_d) CUDA_CHECK(cudaFree(D));
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    CUDA_CHECK(cudaFree(bias));
    CUDA_CHECK(cudaFree(aux));
    CUDA_CHECK(cudaFree(scales));
    free(hA), free(hB), free(hC), free(hBias), free(hD), free(hAux), free(hC_after);
    return ok;
}

/* fused_ops: every activation with and without bias (and aux), the output op chosen per launch and the bias
 * read once per tile row: TMA stores (beta 0), C == D loaded by TMA (beta != 0), and per-element stores
 * (WSGEMM_SM100_EPILOGUE=direct), both cta_groups; m = 272 leaves a partial row of tiles, n = 300 a
 * partial chunk. */
static int case_fused_ops(wsgemm_handle h)
{
    static const wsgemm_matmul_epilogue eps[4] = {WSGEMM_MATMUL_EPILOGUE_DEFAULT, WSGEMM_MATMUL_EPILOGUE_RELU_BIAS,
                                                  WSGEMM_MATMUL_EPILOGUE_GELU_BIAS,
                                                  WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS};
    const wsgemm_dtype BF = WSGEMM_R_16BF;
    int ok = 1;
    for (int direct = 0; direct <= 1; ++direct) {
        if (direct)
            setenv("WSGEMM_SM100_EPILOGUE", "direct", 1);
        else
            unsetenv("WSGEMM_SM100_EPILOGUE");
        wsgemm_knobs_reload();
        for (int e = 0; e < 4; ++e)
            for (int b = 0; b < 2; ++b) {
                const fused_case fc = {.what = direct ? "ops (direct)" : "ops",
                                       .ab = BF,
                                       .c = BF,
                                       .d = BF,
                                       .epilogue = eps[e],
                                       .beta = b ? 0.5f : 0.0f,
                                       .c_is_d = 1,
                                       .m = 272,
                                       .cg = 1 + (e + b + direct) % 2,
                                       .expect_epilogue = direct ? 1
                                                          : b    ? 4
                                                                 : 2};
                ok &= run_fused(h, &fc, 9100 + direct * 16 + e * 2 + b);
            }
    }
    unsetenv("WSGEMM_SM100_EPILOGUE");
    wsgemm_knobs_reload();
    return ok;
}

/* fused_e4m3_d: FP8 inputs and an E4M3 D stored through shared memory by TMA (32-byte chunk rows), with
 * d_scale and amax, both cta_groups; m = 264 (rows not whole 16-byte chunks) and beta != 0 over a bf16 C (the
 * 1-byte chunks cannot hold it) store per element. */
static int case_fused_e4m3_d(wsgemm_handle h)
{
    const wsgemm_dtype E4 = WSGEMM_R_8F_E4M3, BF = WSGEMM_R_16BF;
    int ok = 1;
    for (int cg = 1; cg <= 2; ++cg) {
        fused_case fc = {.what = "E4M3 D by TMA",
                         .ab = E4,
                         .c = BF,
                         .d = E4,
                         .epilogue = cg == 1 ? WSGEMM_MATMUL_EPILOGUE_GELU_BIAS : WSGEMM_MATMUL_EPILOGUE_RELU_BIAS,
                         .beta = 0.0f,
                         .c_is_d = 0,
                         .m = 272,
                         .cg = cg,
                         .expect_epilogue = 2};
        ok &= run_fused(h, &fc, 9200 + cg);
        fc.what = "E4M3 D, m = 264";
        fc.m = 264;
        fc.expect_epilogue = 1;
        ok &= run_fused(h, &fc, 9210 + cg);
        fc.what = "E4M3 D over a bf16 C";
        fc.m = 272;
        fc.beta = 0.5f;
        ok &= run_fused(h, &fc, 9220 + cg);
    }
    return ok;
}

/* fused_c_not_d: beta != 0 with a C of its own (D's type, its own ldc): C loaded by TMA from its own tensor
 * map into the chunks, D stored by TMA from D's, C left as it was; bf16 and f16, both cta_groups; a C whose
 * rows are not 16-byte aligned (ldc = m + 1) reads C per element. */
static int case_fused_c_not_d(wsgemm_handle h)
{
    int ok = 1;
    for (int cg = 1; cg <= 2; ++cg) {
        const wsgemm_dtype t = cg == 1 ? WSGEMM_R_16BF : WSGEMM_R_16F;
        fused_case fc = {.what = "C not D by TMA",
                         .ab = t,
                         .c = t,
                         .d = t,
                         .epilogue = cg == 1 ? WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS : WSGEMM_MATMUL_EPILOGUE_RELU_BIAS,
                         .beta = 0.75f,
                         .c_is_d = 0,
                         .ldc_extra = 8,
                         .m = 272,
                         .cg = cg,
                         .expect_epilogue = 4};
        ok &= run_fused(h, &fc, 9300 + cg);
        fc.what = "C not D, ldc = m + 1";
        fc.ldc_extra = 1;
        fc.expect_epilogue = 1;
        ok &= run_fused(h, &fc, 9310 + cg);
    }
    return ok;
}

/* ---------------------------------------------------------------- block-scaled MXFP8 (wsgemm_matmul)
 *
 * VEC32_UE8M0 factors on A and B (include/wsgemm.h): A's an m x k/32 byte matrix (ld m), element (i, b) scaling
 * op(A)(i, 32 b .. 32 b + 31), B's an n x k/32 one (ld n), element (j, b) scaling op(B)(32 b .., j); byte e is
 * 2^(e - 127), 255 NaN. The kernel applies them in kind::mxf8f6f4.block_scale and writes a bf16 D (MN-major
 * operands copied K-major first). A and B uniform [-1, 1] rounded to FP8, the factors random in [120, 134]
 * (2^-7 .. 2^7); C is D, poisoned with NaN when beta == 0. The fp64 host reference: alpha sum_b 2^(ea - 127)
 * 2^(eb - 127) (exact sum of the block's 32 products) + beta C, NaN where a factor is. Tolerance per element:
 * 1 bf16 ulp at max(|got|, |ref|) + 2^-16 S (S: the same sum over |products|, plus |beta C|: the kernel sums in
 * fp32, in another order); NaN exactly where the reference is NaN. */
typedef struct mx_case {
    const char *what;
    wsgemm_op ta, tb;
    int m, n, k;
    wsgemm_dtype a, b, d; /* d other than bf16: the forced path declines, D untouched */
    float alpha, beta;
    int edges; /* 1: the UE8M0 edge codes of mx_edge_codes (m = 256, k = 256) */
} mx_case;

static size_t mx_a_index(const mx_case *mc, int lda, int i, int l)
{
    return mc->ta == WSGEMM_OP_N ? (size_t)i + (size_t)l * lda : (size_t)l + (size_t)i * lda;
}

static size_t mx_b_index(const mx_case *mc, int ldb, int l, int j)
{
    return mc->tb == WSGEMM_OP_N ? (size_t)l + (size_t)j * ldb : (size_t)j + (size_t)l * ldb;
}

/* A UE8M0 factor as OCP MX defines it: 2^(e - 127), NaN for 255. */
static double mx_ue8m0(unsigned char e)
{
    return e == 255 ? NAN : ldexp(1.0, (int)e - 127);
}

/* One bf16 ulp at v >= 0 (finite): 2^(exponent - 7), the subnormal step 2^-133 below 2^-126. */
static double mx_bf16_ulp(double v)
{
    int e = -126;
    if (v > 0.0) {
        (void)frexp(v, &e); /* v = f 2^e, f in [0.5, 1) */
        e = e - 1 < -126 ? -126 : e - 1;
    }
    return ldexp(1.0, e - 7);
}

/* The edge codes (m = 256, k = 256: 8 factor blocks). Rows 5 and m - 6 take 254 (2^127) in block 1, where every
 * factor of B is 100 (2^-27) and those rows' A elements are at most 2^-6: a block sum of at most 1/2, finite times
 * either factor first (2^126, then 2^99). Rows 9 and 3m/4 take 0 (2^-127) in every block, and B's block 6 is
 * 150 (2^23): results near 2^-104, normal, which a 0 read as zero or as 2^-126 misses by all of |ref|. Row
 * m/2 + 2 takes 255 (NaN) in block 3: its whole row of D is NaN. */
static void mx_edge_codes(const mx_case *mc, int lda, unsigned char *hA, unsigned char *sa, unsigned char *sb,
                          testing_rng *r)
{
    enum { kLow = 1, kNan = 3, kHigh = 6 };
    const int m = mc->m, n = mc->n;
    const int big_rows[2] = {5, m - 6}, tiny_rows[2] = {9, 3 * m / 4};
    for (int j = 0; j < n; ++j) {
        sb[j + (size_t)kLow * n] = 100;
        sb[j + (size_t)kHigh * n] = 150;
    }
    for (int t = 0; t < 2; ++t) {
        sa[big_rows[t] + (size_t)kLow * m] = 254;
        for (int l = 32 * kLow; l < 32 * kLow + 32; ++l)
            testing_store(mc->a, hA, mx_a_index(mc, lda, big_rows[t], l), ldexpf(testing_rng_uniform(r), -6));
        for (int b = 0; b < mc->k / 32; ++b) sa[tiny_rows[t] + (size_t)b * m] = 0;
    }
    sa[m / 2 + 2 + (size_t)kNan * m] = 255;
}

/* D against the reference; the count of bad elements (the first 5 printed), the largest error and its share of
 * the tolerance. */
static size_t mx_check(const mx_case *mc, int lda, int ldb, int ldd, const unsigned char *hA, const unsigned char *hB,
                       const unsigned char *sa, const unsigned char *sb, const unsigned char *hC,
                       const unsigned char *hD, double *max_err, double *max_share)
{
    const int m = mc->m, n = mc->n, k = mc->k;
    const size_t na = (size_t)lda * (mc->ta == WSGEMM_OP_N ? k : m), nb = (size_t)ldb * (mc->tb == WSGEMM_OP_N ? n : k);
    double *a = malloc(na * sizeof(double)), *b = malloc(nb * sizeof(double));
    for (size_t e = 0; e < na; ++e) a[e] = testing_load(mc->a, hA, e);
    for (size_t e = 0; e < nb; ++e) b[e] = testing_load(mc->b, hB, e);
    size_t bad = 0;
    *max_err = 0.0, *max_share = 0.0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double total = 0.0, bound = 0.0;
            for (int blk = 0; blk < k / 32; ++blk) {
                const double f = mx_ue8m0(sa[i + (size_t)blk * m]) * mx_ue8m0(sb[j + (size_t)blk * n]);
                double part = 0.0, abs_part = 0.0;
                for (int l = 32 * blk; l < 32 * blk + 32; ++l) {
                    const double p = a[mx_a_index(mc, lda, i, l)] * b[mx_b_index(mc, ldb, l, j)];
                    part += p;
                    abs_part += fabs(p);
                }
                total += f * part;
                bound += fabs(f) * abs_part;
            }
            double want = (double)mc->alpha * total;
            bound *= fabs((double)mc->alpha);
            if (mc->beta != 0.0f) {
                const double t = (double)mc->beta * testing_load(WSGEMM_R_16BF, hC, (size_t)i + (size_t)j * ldd);
                want += t;
                bound += fabs(t);
            }
            const double got = testing_load(WSGEMM_R_16BF, hD, (size_t)i + (size_t)j * ldd);
            int good;
            double tol = 0.0;
            if (isnan(want)) {
                good = isnan(got);
            } else if (isinf(want)) {
                good = got == want;
            } else if (!isfinite(got)) {
                good = 0;
            } else {
                const double err = fabs(got - want), big = fabs(got) > fabs(want) ? fabs(got) : fabs(want);
                tol = mx_bf16_ulp(big) + ldexp(bound, -16);
                good = err <= tol;
                if (err > *max_err) *max_err = err;
                if (err / tol > *max_share) *max_share = err / tol;
            }
            if (!good && bad++ < 5)
                printf("    D (%d, %d): got %.8g, reference %.8g (tol %.3g) [m %d n %d k %d]\n", i, j, got, want, tol,
                       m, n, k);
        }
    free(a), free(b);
    return bad;
}

static int run_mx(wsgemm_handle h, const mx_case *mc, int cg, uint64_t seed)
{
    const int m = mc->m, n = mc->n, k = mc->k, k32 = k / 32;
    const int declines = mc->d != WSGEMM_R_16BF, d_bytes = testing_dtype_bytes(mc->d);
    const int a_rows = mc->ta == WSGEMM_OP_N ? m : k, a_cols = mc->ta == WSGEMM_OP_N ? k : m;
    const int b_rows = mc->tb == WSGEMM_OP_N ? k : n, b_cols = mc->tb == WSGEMM_OP_N ? n : k;
    const int lda = (a_rows + 15) / 16 * 16, ldb = (b_rows + 15) / 16 * 16, ldd = m;
    const size_t na = (size_t)lda * a_cols, nb = (size_t)ldb * b_cols, nd = (size_t)ldd * n;
    const size_t nsa = (size_t)m * k32, nsb = (size_t)n * k32;
    unsigned char *hA = malloc(na), *hB = malloc(nb), *hSA = malloc(nsa), *hSB = malloc(nsb);
    unsigned char *hC = malloc(nd * d_bytes), *hD = malloc(nd * d_bytes);
    testing_rng r = testing_rng_seeded(seed);
    for (size_t i = 0; i < na; ++i) testing_store(mc->a, hA, i, testing_rng_uniform(&r));
    for (size_t i = 0; i < nb; ++i) testing_store(mc->b, hB, i, testing_rng_uniform(&r));
    for (size_t i = 0; i < nsa; ++i) hSA[i] = (unsigned char)(120 + testing_rng_next(&r) % 15);
    for (size_t i = 0; i < nsb; ++i) hSB[i] = (unsigned char)(120 + testing_rng_next(&r) % 15);
    for (size_t i = 0; i < nd; ++i) testing_store(mc->d, hC, i, testing_rng_uniform(&r));
    if (mc->edges) mx_edge_codes(mc, lda, hA, hSA, hSB, &r);
    if (mc->beta == 0.0f || declines) memset(hC, 0xFF, nd * d_bytes); /* NaN: must not be read (or written) */
    void *A = dev_copy(hA, na), *B = dev_copy(hB, nb), *SA = dev_copy(hSA, nsa), *SB = dev_copy(hSB, nsb);
    void *D = dev_copy(hC, nd * d_bytes); /* C is D */

    wsgemm_matmul_desc desc;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&desc, mc->ta, mc->tb, mc->a, mc->d));
    desc.Btype = mc->b;
    desc.a_scale_mode = WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
    desc.b_scale_mode = WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
    desc.a_scale = (const float *)SA;
    desc.b_scale = (const float *)SB;
    set_cta_group(cg);
    printf("[cta_group %d] mx %s: m %d n %d k %d, A %s, B %s, D %s, alpha %g, beta %g\n", cg, mc->what, m, n, k,
           testing_dtype_name(mc->a), testing_dtype_name(mc->b), testing_dtype_name(mc->d), (double)mc->alpha,
           (double)mc->beta);
    const wsgemm_status st = wsgemm_matmul(h, &desc, m, n, k, &mc->alpha, A, lda, B, ldb, &mc->beta, D, ldd, D, ldd);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(hD, D, nd * d_bytes, cudaMemcpyDeviceToHost));
    int ok;
    if (declines) {
        const int same = memcmp(hC, hD, nd * d_bytes) == 0;
        ok = st == WSGEMM_STATUS_NOT_SUPPORTED && same;
        printf("%s mx %s cta_group %d: %s (want NOT_SUPPORTED), D %s\n", ok ? "PASS" : "FAIL", mc->what, cg,
               wsgemm_status_string(st), same ? "untouched" : "WRITTEN");
    } else {
        wsgemm_path ran = WSGEMM_PATH_NONE;
        wsgemm_get_last_path(h, &ran);
        ok = st == WSGEMM_STATUS_SUCCESS && ran == kPath;
        if (!ok)
            printf("FAIL mx %s: %s (%s), path %s (want %s)\n", mc->what, wsgemm_status_string(st),
                   wsgemm_get_last_error_message(h), wsgemm_path_name(ran), wsgemm_path_name(kPath));
        if (ok) {
            double max_err, max_share;
            const size_t bad = mx_check(mc, lda, ldb, ldd, hA, hB, hSA, hSB, hC, hD, &max_err, &max_share);
            printf("%s mx %s cta_group %d: max |err| %.3g (%.3g of its tolerance), %zu of %zu elements bad\n",
                   bad ? "FAIL" : "PASS", mc->what, cg, max_err, max_share, bad, (size_t)m * n);
            ok = bad == 0;
        }
        /* the launch: this cta_group, one K split, the MN-major operands staged, the block-scaled MMA */
        ok &= expect_launch("mx", cg, 1, -1, mc->ta == WSGEMM_OP_N, mc->tb == WSGEMM_OP_T);
        wsgemm_sm100_launch_probe l;
        const int got =
            kPath == WSGEMM_PATH_SM100 ? wsgemm_sm100_last_launch(&l) : wsgemm_sm100_emulated_last_launch(&l);
        if (got != 0 || l.kind != kKindMx) {
            printf("FAIL mx %s: MMA kind %d (want %d, kind::mxf8f6f4.block_scale)\n", mc->what, got == 0 ? l.kind : -1,
                   kKindMx);
            ok = 0;
        }
        char rec[1024] = "";
        const int code = wsgemm_sm100_emulated_checker_error(rec, sizeof rec);
        if (!ok && code != 0 && code != WSGEMM_EMULATION_ABSENT) printf("  emulation checker record: %s\n", rec);
    }
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(SA));
    CUDA_CHECK(cudaFree(SB));
    CUDA_CHECK(cudaFree(D));
    free(hA), free(hB), free(hSA), free(hSB), free(hC), free(hD);
    return ok;
}

/* mx: both cta_groups; K-major operands, a partial last K block with beta (C read), both operands MN-major, A
 * MN-major with alpha, E5M2 A by E4M3 B, the UE8M0 edge codes; then the same call with an fp32 D declined. */
static int case_mx(wsgemm_handle h)
{
    const wsgemm_op T = WSGEMM_OP_T, N = WSGEMM_OP_N;
    const wsgemm_dtype E4 = WSGEMM_R_8F_E4M3, E5 = WSGEMM_R_8F_E5M2, BF = WSGEMM_R_16BF, F32 = WSGEMM_R_32F;
    const mx_case cases[] = {
        {"TN, UE8M0 codes 0, 254, 255", T, N, 256, 192, 256, E4, E4, BF, 1.0f, 0.0f, 1},
        {"TN, partial K block, beta 0.5", T, N, 200, 300, 160, E4, E4, BF, 1.0f, 0.5f, 0},
        {"NT, both operands staged", N, T, 129, 385, 96, E4, E4, BF, 1.0f, 0.0f, 0},
        {"NN, A staged, alpha 0.75", N, N, 64, 200, 512, E4, E4, BF, 0.75f, 0.0f, 0},
        {"TN, E5M2 x E4M3", T, N, 256, 384, 128, E5, E4, BF, 1.0f, 0.0f, 0},
        {"TN, fp32 D declined", T, N, 256, 192, 256, E4, E4, F32, 1.0f, 0.0f, 1},
    };
    int ok = 1;
    for (int cg = 1; cg <= 2; ++cg)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) ok &= run_mx(h, &cases[c], cg, 9400 + 10 * cg + c);
    return ok;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "ops_cg1";
    testing_require_gpu("test_sm100_emulated");
    const int cc = testing_device_cc();
    if (cc == 100) {
        kPath = WSGEMM_PATH_SM100; /* Blackwell: the real tcgen05 kernel, same cases */
    } else if (cc != 90) {
        printf("SKIPPED: the sm100 kernel runs emulated on compute capability 9.0 or natively on 10.0 "
               "(device is %d)\n",
               cc);
        return WSGEMM_TEST_SKIP;
    }
    printf("path under test: %s\n", wsgemm_path_name(kPath));
    const int is_fault = strncmp(name, "fault_", 6) == 0;
    if (is_fault && kPath != WSGEMM_PATH_SM100_EMULATED) {
        printf("SKIPPED: planted faults need the emulation's checker (hardware would just fail or hang)\n");
        return WSGEMM_TEST_SKIP;
    }
    if (is_fault && !wsgemm_sm100_emulated_planted_faults()) {
        printf("SKIPPED: this build's emulated kernel has no planted faults (configure with "
               "-DWSGEMM_PLANTED_FAULTS=ON)\n");
        return WSGEMM_TEST_SKIP;
    }
    if (strcmp(name, "fault_early_dealloc") == 0) {
        int ok = run_fault("early_dealloc", 1) & run_fault("early_dealloc", 2);
        return ok ? 0 : 1;
    }
    if (strcmp(name, "fault_missing_peer_signal") == 0) return run_fault("missing_peer_signal", 2) ? 0 : 1;

    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, kPath));
    int ok;
    if (strcmp(name, "fault_child") == 0) {
        int code = fault_child(h);
        wsgemm_destroy(h);
        return code;
    } else if (strcmp(name, "ops_cg1") == 0) {
        ok = case_ops(h, 1);
    } else if (strcmp(name, "ops_cg2") == 0) {
        ok = case_ops(h, 2);
    } else if (strcmp(name, "odd_shapes") == 0) {
        ok = case_odd_shapes(h);
    } else if (strcmp(name, "batch") == 0) {
        ok = case_batch(h);
    } else if (strcmp(name, "alpha_beta") == 0) {
        ok = case_alpha_beta(h);
    } else if (strcmp(name, "types") == 0) {
        ok = case_types(h);
    } else if (strcmp(name, "more_ctas_than_tiles") == 0) {
        ok = case_more_ctas(h);
    } else if (strcmp(name, "several_tiles") == 0) {
        ok = case_several_tiles(h, argc > 2 ? atoi(argv[2]) : 0, 1);
    } else if (strcmp(name, "several_tiles_beta0") == 0) {
        ok = case_several_tiles(h, argc > 2 ? atoi(argv[2]) : 0, 0);
    } else if (strcmp(name, "clc_cg1") == 0) {
        ok = case_clc(h, 1);
    } else if (strcmp(name, "clc_cg2") == 0) {
        ok = case_clc(h, 2);
    } else if (strcmp(name, "padded_ld") == 0) {
        ok = case_padded_ld(h);
    } else if (strcmp(name, "epilogue") == 0) {
        ok = case_epilogue(h);
    } else if (strcmp(name, "staged") == 0) {
        ok = case_staged(h);
    } else if (strcmp(name, "splitk") == 0) {
        ok = case_splitk(h);
    } else if (strcmp(name, "no_leak") == 0) {
        ok = case_no_leak(h);
    } else if (strcmp(name, "fused_ops") == 0) {
        ok = case_fused_ops(h);
    } else if (strcmp(name, "fused_e4m3_d") == 0) {
        ok = case_fused_e4m3_d(h);
    } else if (strcmp(name, "fused_c_not_d") == 0) {
        ok = case_fused_c_not_d(h);
    } else if (strcmp(name, "mx") == 0) {
        ok = case_mx(h);
    } else {
        fprintf(stderr, "unknown case '%s'\n", name);
        ok = 0;
    }
    wsgemm_destroy(h);
    printf("%s: %s\n", name, ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
