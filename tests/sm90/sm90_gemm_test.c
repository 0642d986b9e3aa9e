// SPDX-License-Identifier: MIT
/*
 * sm90_gemm_test.c - the cuBLAS matrix on the forced sm90 path (H100/H200 only).
 *
 * Usage: sm90_gemm_test <case> [-v]. Every case runs its problems through wsgemm with
 * wsgemm_set_path(WSGEMM_PATH_SM90), compares every element with cuBLAS (fp32 compute), checks the padding
 * of C is untouched, that the sm90 path ran, and that a second run is bit-identical
 * (testing_case_against_cublas). Prints one PASS/FAIL line per problem and a summary; exits 1 on any
 * failure, 77 (skipped) without a compute capability 9.0 GPU.
 *
 * Some cases set the sm90 tuning knobs (WSGEMM_SM90_SPLITK, _VARIANT, _SWAP, _BN; common/knobs.h) to force
 * the code paths a default run would not take for that shape: forced split-K with batch and beta, the
 * no-cluster and three-stage kernels, the unswapped orientation, narrow tiles on a large problem.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/epilogue.h" /* wsgemm_epilogue_kind: the probe's answer */
#include "common/knobs.h"    /* wsgemm_knobs_reload: the library reads the knobs once */
#include "sm90/sm90_probe.h" /* which epilogue, cluster, split region and tile width ran */
#include "testing.h"

static int verbose;
static int failures;
static int problems;
static uint64_t seed = 90;

static testing_gemm gemm(wsgemm_op ta, wsgemm_op tb, int m, int n, int k)
{
    return testing_gemm_make(ta, tb, m, n, k); /* tight, bf16 -> bf16, alpha 1, beta 0 */
}

static void run(wsgemm_handle h, const testing_gemm *g)
{
    problems++;
    if (!testing_case_against_cublas(h, g, WSGEMM_PATH_SM90, seed++, verbose)) failures++;
}

static const wsgemm_op N = WSGEMM_OP_N, T = WSGEMM_OP_T;

/* A tuning knob for the following calls (the library reads the environment once; reload it). */
static void knob_set(const char *name, const char *value)
{
    setenv(name, value, 1);
    wsgemm_knobs_reload();
}

static void knob_clear(const char *name)
{
    unsetenv(name);
    wsgemm_knobs_reload();
}

/* all four op combinations, tile-aligned and ragged */
static void case_ops(wsgemm_handle h)
{
    const int shapes[][3] = {{256, 512, 256}, {384, 520, 200}, {1024, 1024, 1024}, {200, 300, 700}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb) {
                testing_gemm g = gemm(ta ? T : N, tb ? T : N, shapes[s][0], shapes[s][1], shapes[s][2]);
                run(h, &g);
            }
}

/* M, N, K of 1, 7, 127, 129, 1000 in many combinations (TMA zero fill, predicated stores) */
static void case_odd(wsgemm_handle h)
{
    const int v[] = {1, 7, 127, 129, 1000};
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            int k = v[(i + 2 * j) % 5];
            testing_gemm g = gemm((i + j) % 2 ? T : N, (i / 2 + j) % 2 ? T : N, v[i], v[j], k);
            run(h, &g);
        }
}

/* leading dimensions larger than the rows: aligned padding, and padding that breaks 16-byte alignment */
static void case_ld(wsgemm_handle h)
{
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb)
            for (int pad = 0; pad < 3; ++pad) {
                testing_gemm g = gemm(ta ? T : N, tb ? T : N, 300, 260, 190);
                int extra = pad == 0 ? 64 : pad == 1 ? 3 : 1;
                g.lda = (ta ? g.k : g.m) + extra;
                g.ldb = (tb ? g.n : g.k) + extra;
                g.ldc = g.m + 5;
                run(h, &g);
            }
}

/* lda = 4099 and friends: the staged (re-pitched) operand path */
static void case_unaligned(wsgemm_handle h)
{
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            testing_gemm g = gemm(ta ? T : N, tb ? T : N, 4099, 1000, 4099);
            run(h, &g);
        }
    testing_gemm g = gemm(N, N, 4099, 4099, 4099);
    run(h, &g);
    g = gemm(T, N, 1000, 4099, 777);
    g.ldc = 1003;
    run(h, &g);
}

/* strided batch: tight, shared A (stride 0), padded strides, unaligned strides (staged) */
static void case_batch(wsgemm_handle h)
{
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            testing_gemm g = gemm(ta ? T : N, tb ? T : N, 200, 136, 96);
            g.batch = 3;
            run(h, &g);
        }
    testing_gemm g = gemm(N, N, 256, 256, 128);
    g.batch = 4;
    g.strideA = 0; /* one A for every batch */
    run(h, &g);
    g = gemm(T, T, 129, 257, 65);
    g.batch = 3;
    g.strideA = (long long)65 * 129 + 64; /* padded, aligned */
    g.strideB = (long long)257 * 65 + 3;  /* unaligned: staged */
    g.strideC = (long long)129 * 257 + 11;
    run(h, &g);
    g = gemm(N, T, 64, 3000, 512); /* small M with batch */
    g.batch = 2;
    run(h, &g);
}

/* alpha and beta: beta 0 (C never read: the harness poisons it with NaN), 1, -0.5 */
static void case_alphabeta(wsgemm_handle h)
{
    const float alphas[] = {1.0f, 2.0f, -1.5f};
    const float betas[] = {0.0f, 1.0f, -0.5f};
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            testing_gemm g = gemm(a % 2 ? T : N, b % 2 ? N : T, 333, 517, 300);
            g.alpha = alphas[a];
            g.beta = betas[b];
            g.c_type = b == 2 ? WSGEMM_R_32F : WSGEMM_R_16BF;
            run(h, &g);
        }
}

/* every output type, both input types */
static void case_ctypes(wsgemm_handle h)
{
    const wsgemm_dtype ct[] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F};
    const wsgemm_dtype at[] = {WSGEMM_R_16BF, WSGEMM_R_16F};
    for (int i = 0; i < 2; ++i)
        for (int c = 0; c < 3; ++c) {
            testing_gemm g = gemm(c % 2 ? T : N, i ? T : N, 513, 385, 257);
            g.ab_type = at[i];
            g.c_type = ct[c];
            g.beta = c == 1 ? 0.5f : 0.0f;
            run(h, &g);
        }
}

/* fp16 inputs across the op combinations and the narrow tiles */
static void case_fp16(wsgemm_handle h)
{
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            testing_gemm g = gemm(ta ? T : N, tb ? T : N, 640, 384, 320);
            g.ab_type = WSGEMM_R_16F;
            g.c_type = (ta + tb) % 2 ? WSGEMM_R_16F : WSGEMM_R_32F;
            run(h, &g);
            g = gemm(ta ? T : N, tb ? T : N, 48, 2048, 1024);
            g.ab_type = WSGEMM_R_16F;
            g.c_type = WSGEMM_R_16F;
            run(h, &g);
        }
}

/* decode shapes: M (or N) of 16, 64, 100, 128, 256 against big N, K (narrow tiles, swapped orientation,
 * automatic split-K) */
static void case_smallm(wsgemm_handle h)
{
    const int ms[] = {16, 64, 100, 128, 256};
    for (int i = 0; i < 5; ++i) {
        testing_gemm g = gemm(i % 2 ? T : N, N, ms[i], 4096, 4096);
        run(h, &g);
        g = gemm(N, i % 2 ? N : T, 4096, ms[i], 4096); /* the mirror: small N */
        run(h, &g);
    }
    testing_gemm g = gemm(T, N, 16, 8192, 8192);
    run(h, &g);
    g = gemm(N, N, 1, 8192, 8192);
    run(h, &g);
    /* one-row operands with ld 1, read as K-major rows (no staging), also with k % 8 != 0: A of m = 1 op N,
     * B of n = 1 op T */
    g = gemm(N, N, 1, 300, 1001);
    run(h, &g);
    g = gemm(N, T, 300, 1, 1001);
    run(h, &g);
    g = gemm(T, T, 1, 1, 77);
    run(h, &g);
    g = gemm(N, N, 1, 300, 1001); /* batched: the packed rows (stride 1001) are staged */
    g.batch = 3;
    run(h, &g);
    g = gemm(N, N, 1, 300, 1024); /* batched, stride 1024: TMA reads the rows in place */
    g.batch = 3;
    run(h, &g);
}

/* K not a multiple of 64 (the last K block is zero-filled by TMA) */
static void case_ktail(wsgemm_handle h)
{
    const int ks[] = {1, 8, 17, 63, 65, 100, 1000, 4095};
    for (int i = 0; i < 8; ++i) {
        testing_gemm g = gemm(i % 2 ? T : N, (i / 2) % 2 ? T : N, 300, 520, ks[i]);
        run(h, &g);
    }
}

/* forced split-K: fixed-order reduction with batch, beta and every C type */
static void case_splitk(wsgemm_handle h)
{
    knob_set("WSGEMM_SM90_SPLITK", "3");
    const wsgemm_dtype ct[] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F};
    for (int c = 0; c < 3; ++c) {
        testing_gemm g = gemm(c == 1 ? T : N, c == 2 ? T : N, 300, 700, 1000);
        g.c_type = ct[c];
        g.beta = c == 0 ? 0.0f : -0.5f;
        g.batch = c == 2 ? 2 : 1;
        run(h, &g);
    }
    knob_set("WSGEMM_SM90_SPLITK", "7");
    testing_gemm g = gemm(T, N, 64, 4096, 4000);
    g.beta = 1.0f;
    run(h, &g);
    knob_clear("WSGEMM_SM90_SPLITK");
}

/* the other kernels and orientations: no cluster, three stages, unswapped, BN 128 on a large problem */
static void case_variants(wsgemm_handle h)
{
    const char *settings[][2] = {{"WSGEMM_SM90_VARIANT", "1"},
                                 {"WSGEMM_SM90_VARIANT", "2"},
                                 {"WSGEMM_SM90_SWAP", "0"},
                                 {"WSGEMM_SM90_BN", "128"},
                                 {"WSGEMM_SM90_GROUP", "1"}};
    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; ++s) {
        knob_set(settings[s][0], settings[s][1]);
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb) {
                testing_gemm g = gemm(ta ? T : N, tb ? T : N, 777, 1100, 300);
                run(h, &g);
            }
        knob_clear(settings[s][0]);
    }
}

/* the smem + TMA-store epilogue (WSGEMM_SM90_EPILOGUE=tma): every C type, beta, ragged edges, padded and
 * unaligned ldc (the latter falls back to direct stores), batch, all ops */
static void case_tmastore(wsgemm_handle h)
{
    knob_set("WSGEMM_SM90_EPILOGUE", "tma");
    const wsgemm_dtype ct[] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F};
    for (int c = 0; c < 3; ++c)
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb) {
                testing_gemm g = gemm(ta ? T : N, tb ? T : N, 1000 + 8 * c, 777, 300);
                g.c_type = ct[c];
                g.beta = (ta + tb) == 1 ? -0.5f : 0.0f;
                run(h, &g);
            }
    testing_gemm g = gemm(N, N, 512, 512, 512);
    g.ldc = 520; /* padded, aligned */
    run(h, &g);
    g.ldc = 515; /* unaligned: direct stores */
    run(h, &g);
    g = gemm(T, N, 384, 300, 200);
    g.batch = 3;
    g.beta = 1.0f;
    g.c_type = WSGEMM_R_32F;
    run(h, &g);
    g = gemm(N, T, 4096, 4096, 1024);
    run(h, &g);
    knob_clear("WSGEMM_SM90_EPILOGUE");
}

/* fails the problem when the last sm90 launch had another cluster size than `want` */
static void expect_cluster(const testing_gemm *g, int want)
{
    int got = wsgemm_sm90_last_cluster();
    if (got != want) {
        char shape[256];
        testing_gemm_describe(g, shape, sizeof shape);
        printf("FAIL cluster %d ran, %d expected: %s\n", got, want, shape);
        failures++;
    }
}

/* runs g and fails the problem when another epilogue than `want` ran (want_not: when `want` ran) */
static void run_check_epilogue(wsgemm_handle h, const testing_gemm *g, wsgemm_epilogue_kind want, int want_not)
{
    run(h, g);
    const wsgemm_epilogue_kind got = (wsgemm_epilogue_kind)wsgemm_sm90_last_epilogue();
    if ((got == want) == want_not) {
        char shape[256];
        testing_gemm_describe(g, shape, sizeof shape);
        printf("FAIL epilogue %s ran, %s%s expected: %s\n", wsgemm_epilogue_name(got), want_not ? "anything but " : "",
               wsgemm_epilogue_name(want), shape);
        failures++;
    }
}

static void run_expect_epilogue(wsgemm_handle h, const testing_gemm *g, wsgemm_epilogue_kind want)
{
    run_check_epilogue(h, g, want, 0);
}

/* Every shape of shapes[] in all four ops, the odd-numbered shapes in fp16 (in and out), the third with
 * alpha = alpha_third: each must run the epilogue `want` and match cuBLAS. */
static void run_shapes_all_ops(wsgemm_handle h, const int (*shapes)[3], size_t count, float alpha_third,
                               wsgemm_epilogue_kind want)
{
    for (size_t s = 0; s < count; ++s)
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb) {
                testing_gemm g = gemm(ta ? T : N, tb ? T : N, shapes[s][0], shapes[s][1], shapes[s][2]);
                if (s % 2) {
                    g.ab_type = WSGEMM_R_16F;
                    g.c_type = WSGEMM_R_16F;
                }
                g.alpha = s == 2 ? alpha_third : 1.0f;
                run_expect_epilogue(h, &g, want);
            }
}

/* the default epilogue for 16-bit C of the input type with beta == 0: each tile waits in registers and is
 * stored during the next tile's first K blocks. Several tiles per CTA (4096 x 4096: 256 cluster units on
 * 66 clusters), fewer K blocks than chunks (k = 64: 1 block for 4 chunks), ragged edges, all ops, both
 * 16-bit types, the narrow tiles (2 and 1 chunks), batch; beta != 0 and fp32 C never take it. */
static void case_deferred(wsgemm_handle h)
{
    const int shapes[][3] = {{4096, 4096, 64}, {4096, 4096, 200}, {1000, 3000, 1000}, {2056, 1100, 130}};
    run_shapes_all_ops(h, shapes, sizeof shapes / sizeof shapes[0], -1.5f, WSGEMM_EPILOGUE_DEFERRED);
    const char *widths[] = {"128", "64"};
    for (int w = 0; w < 2; ++w) {
        knob_set("WSGEMM_SM90_BN", widths[w]);
        testing_gemm g = gemm(N, T, 2048, 1000, 64 * (w + 1));
        run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_DEFERRED);
        knob_clear("WSGEMM_SM90_BN");
    }
    testing_gemm g = gemm(T, N, 512, 768, 300);
    g.batch = 5;
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_DEFERRED);
    g.beta = 0.5f;
    run_check_epilogue(h, &g, WSGEMM_EPILOGUE_DEFERRED, 1);
    g = gemm(N, N, 1024, 1024, 256);
    g.c_type = WSGEMM_R_32F;
    run_check_epilogue(h, &g, WSGEMM_EPILOGUE_DEFERRED, 1);
    knob_set("WSGEMM_SM90_EPILOGUE", "tma");
    g = gemm(N, N, 1024, 1024, 256);
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_TMA);
    knob_clear("WSGEMM_SM90_EPILOGUE");
}

/* the STAGED epilogue (the CTA's C tile in smem; the plan's choice for beta != 0 and C of another type where
 * BN 256 is chosen, forced here with WSGEMM_SM90_BN=256): C loaded by TMA during the main loop and released
 * two K blocks into the next tile (several tiles per CTA at 4096 x 4096; 1 and 4 K blocks per tile: the load
 * and the release fall on the tile's last block), beta 1 and -0.5, all ops, both 16-bit types, mixed 16-bit C,
 * fp32 C (its BN 128 kernel) with beta 1 (with beta 0 the plan keeps the tile-end stores), ragged edges,
 * padded ldc, batch; beta 0 forced onto it (WSGEMM_SM90_EPILOGUE=staged: the stores of the previous tile are
 * waited for instead), fp32 C too; and the tile-end stores still reachable with WSGEMM_SM90_EPILOGUE=tma. */
static void case_staged(wsgemm_handle h)
{
    knob_set("WSGEMM_SM90_BN", "256");
    const int shapes[][3] = {{4096, 4096, 64}, {4096, 4096, 200}, {1000, 3000, 1000}, {2056, 1100, 130}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb) {
                testing_gemm g = gemm(ta ? T : N, tb ? T : N, shapes[s][0], shapes[s][1], shapes[s][2]);
                g.beta = (ta + tb) % 2 ? -0.5f : 1.0f;
                if (s % 2) {
                    g.ab_type = WSGEMM_R_16F;
                    g.c_type = WSGEMM_R_16F;
                }
                g.alpha = s == 2 ? -1.5f : 1.0f;
                run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_STAGED);
            }
    testing_gemm g = gemm(N, T, 2048, 1024, 512); /* bf16 in, f16 C, beta 0: the type rules out deferral */
    g.c_type = WSGEMM_R_16F;
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_STAGED);
    const float f32_betas[] = {0.0f, 1.0f};
    for (int b = 0; b < 2; ++b)
        for (int ta = 0; ta < 2; ++ta) { /* fp32 C: staged with beta != 0, the tile-end stores with beta 0 */
            g = gemm(ta ? T : N, N, 3000, 2000, 700);
            g.c_type = WSGEMM_R_32F;
            g.beta = f32_betas[b];
            run_expect_epilogue(h, &g, b ? WSGEMM_EPILOGUE_STAGED : WSGEMM_EPILOGUE_TMA);
        }
    g = gemm(N, N, 1024, 1000, 300);
    g.ldc = 1032; /* padded, still 16-byte aligned */
    g.beta = 1.0f;
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_STAGED);
    g = gemm(T, N, 512, 768, 300);
    g.batch = 5;
    g.beta = 0.5f;
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_STAGED);
    knob_set("WSGEMM_SM90_EPILOGUE", "staged");
    g = gemm(N, N, 4096, 2048, 256); /* beta 0, bf16 C: deferred by default, staged when forced */
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_STAGED);
    for (int ta = 0; ta < 2; ++ta) { /* beta 0, fp32 C: tile-end stores by default, the BN 128 C tile when forced */
        testing_gemm g32 = gemm(ta ? T : N, N, 3000, 2000, 700);
        g32.c_type = WSGEMM_R_32F;
        run_expect_epilogue(h, &g32, WSGEMM_EPILOGUE_STAGED);
    }
    knob_set("WSGEMM_SM90_EPILOGUE", "tma");
    g.beta = 1.0f;
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_TMA);
    knob_clear("WSGEMM_SM90_EPILOGUE");
    knob_clear("WSGEMM_SM90_BN");
    /* the plan's own choice at a big square with beta = 1 */
    g = gemm(N, N, 4096, 4096, 4096);
    g.beta = 1.0f;
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_STAGED);
}

/* the pingpong schedule (WSGEMM_SM90_VARIANT=6 with BN 128): the two consumer warpgroups take the CTA's units
 * in turn, each a whole 128 x 128 tile, and step over each other's stages. Many units per CTA (4096 x 4096),
 * 1 and 16 K blocks per unit, unit counts that leave a warpgroup without work (304 x 260), ragged edges, all
 * ops, both 16-bit types, fp32 and mixed C, beta, batch, unaligned ldc (per-element stores), forced split-K
 * (units of unequal K ranges). 16-bit C of the input type with beta 0 would take the deferred stores on the
 * cooperative kernel: seeing the tile-end TMA epilogue there shows the pingpong kernel ran. */
static void case_pingpong(wsgemm_handle h)
{
    knob_set("WSGEMM_SM90_VARIANT", "6");
    knob_set("WSGEMM_SM90_BN", "128");
    const int shapes[][3] = {
        {4096, 4096, 64}, {4096, 4096, 1000}, {1000, 3000, 1000}, {2056, 1100, 130}, {304, 260, 100}};
    run_shapes_all_ops(h, shapes, sizeof shapes / sizeof shapes[0], 1.0f, WSGEMM_EPILOGUE_TMA);
    const wsgemm_dtype ct[] = {WSGEMM_R_32F, WSGEMM_R_16F};
    for (int c = 0; c < 2; ++c) {
        testing_gemm g = gemm(N, T, 1536, 1024, 512);
        g.c_type = ct[c];
        g.beta = c ? -0.5f : 1.0f;
        g.alpha = 2.0f;
        run(h, &g);
    }
    testing_gemm g = gemm(T, N, 512, 768, 300);
    g.batch = 5;
    g.beta = 0.5f;
    run(h, &g);
    g = gemm(N, N, 1000, 1000, 500);
    g.ldc = 1003; /* not 16-byte aligned: per-element stores */
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_DIRECT);
    knob_set("WSGEMM_SM90_SPLITK", "3");
    g = gemm(N, N, 512, 1024, 1000);
    g.beta = 1.0f;
    run(h, &g);
    knob_clear("WSGEMM_SM90_SPLITK");
    knob_clear("WSGEMM_SM90_BN");
    knob_clear("WSGEMM_SM90_VARIANT");
}

/* the 4-CTA cluster (WSGEMM_SM90_VARIANT=3, BN 64 and 128): each CTA loads a quarter of the Q tile and
 * multicasts it; P-tile counts that are not a multiple of 4 leave idle ranks in the last cluster. Skinny and
 * square-ish shapes, all ops, fp16, split-K, batch; fails when another cluster size ran. Then the default
 * choice: 4 for m = 16 and 64 with n = 8192, 2 for m = 128. */
static void case_cluster4(wsgemm_handle h)
{
    const int shapes[][3] = {{64, 8192, 1024}, {16, 3000, 700}, {128, 1000, 2048}, {100, 520, 130}, {8, 8192, 64}};
    knob_set("WSGEMM_SM90_VARIANT", "3");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb) {
                testing_gemm g = gemm(ta ? T : N, tb ? T : N, shapes[s][0], shapes[s][1], shapes[s][2]);
                if (s == 1) {
                    g.ab_type = WSGEMM_R_16F;
                    g.c_type = WSGEMM_R_16F;
                }
                if (s == 3) g.beta = 0.75f;
                run(h, &g);
                expect_cluster(&g, 4);
            }
    knob_set("WSGEMM_SM90_SPLITK", "3");
    testing_gemm g = gemm(N, N, 64, 4096, 4096);
    run(h, &g);
    knob_clear("WSGEMM_SM90_SPLITK");
    g = gemm(T, N, 32, 1024, 512);
    g.batch = 3;
    run(h, &g);
    expect_cluster(&g, 4);
    knob_clear("WSGEMM_SM90_VARIANT");
    /* the plan's own choice: 4 when the small side fits one 64-wide tile, else 2 */
    const int auto_m[] = {16, 64, 128};
    for (int i = 0; i < 3; ++i) {
        g = gemm(N, N, auto_m[i], 8192, 1024);
        run(h, &g);
        expect_cluster(&g, auto_m[i] <= 64 ? 4 : 2);
    }
}

/* fails the problem when the last sm90 launch had no split region (want_region) or had one (!want_region) */
static void expect_region(const testing_gemm *g, int want_region)
{
    const int got = wsgemm_sm90_last_sk_splits();
    if ((got > 1) != want_region) {
        char shape[256];
        testing_gemm_describe(g, shape, sizeof shape);
        printf("FAIL split region of %d splits ran, %s expected: %s (WSGEMM_SM90_DEBUG=1 prints the plan)\n", got,
               want_region ? "one" : "none", shape);
        failures++;
    }
}

static void run_expect_region(wsgemm_handle h, const testing_gemm *g, int want_region)
{
    run(h, g);
    expect_region(g, want_region);
}

/* 3072^3 in op (ta, tb), bf16 when the ops agree and fp16 in and out when they differ */
static testing_gemm gemm_3072(int ta, int tb)
{
    testing_gemm g = gemm(ta ? T : N, tb ? T : N, 3072, 3072, 3072);
    if (ta != tb) {
        g.ab_type = WSGEMM_R_16F;
        g.c_type = WSGEMM_R_16F;
    }
    return g;
}

/* the hybrid schedule (common/scheduler.cuh): the full waves of tiles data-parallel, the ragged last wave's
 * tiles split along K, their fp32 partial tiles summed in split order by a second kernel. The plan's own
 * choice at 3072^3 with BN 256 (144 cluster units on 66 clusters: 2.2 waves), all ops, both 16-bit types; then forced
 * (WSGEMM_SM90_HYBRID=4, 3) wherever a wave is ragged: 1000^3 and m = 128 decode (the whole grid split),
 * 4096 x 4096 x 1024 (data-parallel tiles, then several split units per CTA, behind the deferred stores),
 * beta != 0 with the staged C tile, fp32 and mixed C, batch, the unswapped orientation (partial tiles with
 * p contiguous), an unaligned ldc (per-element stores), K tails (5 and 2 K blocks), the pingpong and the
 * 4-CTA cluster kernels; each must run a split region, match cuBLAS and reproduce its bits on a second run.
 * One K block cannot be split: that call runs without a region; nor does 3072^3 without a workspace (it runs
 * data-parallel, still on the sm90 path). */
static void case_hybrid(wsgemm_handle h)
{
    knob_set("WSGEMM_SM90_BN", "256"); /* with beta 0 the plan takes BN 192 at 3072^3 (case_bn192) */
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            const testing_gemm g = gemm_3072(ta, tb);
            run_expect_region(h, &g, 1);
        }
    /* without a workspace the same call runs data-parallel on the sm90 path (the partial tiles are optional) */
    WSGEMM_CHECK(wsgemm_set_workspace(h, NULL, 0));
    testing_gemm g0 = gemm(N, N, 3072, 3072, 3072);
    run_expect_region(h, &g0, 0);
    WSGEMM_CHECK(wsgemm_reset_workspace(h));
    knob_clear("WSGEMM_SM90_BN");
    knob_set("WSGEMM_SM90_HYBRID", "4");
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            testing_gemm g = gemm(ta ? T : N, tb ? T : N, 1000, 1000, 1000);
            g.beta = ta ? 0.5f : 0.0f;
            run_expect_region(h, &g, 1);
        }
    testing_gemm g = gemm(N, N, 128, 8192, 8192);
    run_expect_region(h, &g, 1);
    g = gemm(T, N, 128, 8192, 8192);
    g.alpha = -1.5f;
    run_expect_region(h, &g, 1);
    g = gemm(N, T, 4096, 4096, 1024);
    run_expect_region(h, &g, 1);
    g.beta = 1.0f; /* the staged C tile for the data-parallel units, none for the split ones */
    run_expect_region(h, &g, 1);
    g = gemm(T, N, 3072, 3000, 1000);
    g.c_type = WSGEMM_R_32F;
    g.beta = -0.5f;
    run_expect_region(h, &g, 1);
    g = gemm(N, N, 2000, 1500, 700);
    g.c_type = WSGEMM_R_16F; /* bf16 in, fp16 out */
    g.beta = 1.0f;
    run_expect_region(h, &g, 1);
    g = gemm(T, N, 512, 768, 300);
    g.batch = 5;
    g.beta = 0.5f;
    run_expect_region(h, &g, 1);
    g = gemm(N, N, 1000, 1000, 500);
    g.ldc = 1003; /* not 16-byte aligned: per-element stores */
    run_expect_region(h, &g, 1);
    const int ks[] = {300, 100};
    for (int i = 0; i < 2; ++i) {
        g = gemm(N, T, 777, 1100, ks[i]);
        run_expect_region(h, &g, 1);
    }
    g = gemm(T, T, 777, 1100, 64); /* one K block */
    run_expect_region(h, &g, 0);
    knob_set("WSGEMM_SM90_HYBRID", "3");
    knob_set("WSGEMM_SM90_SWAP", "0");
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            g = gemm(ta ? T : N, tb ? T : N, 1000, 1100, 700);
            g.beta = tb ? -1.0f : 0.0f;
            run_expect_region(h, &g, 1);
        }
    knob_clear("WSGEMM_SM90_SWAP");
    knob_set("WSGEMM_SM90_VARIANT", "6");
    knob_set("WSGEMM_SM90_BN", "128");
    g = gemm(N, T, 1000, 3000, 1000);
    run_expect_region(h, &g, 1);
    g.beta = 0.25f;
    g.c_type = WSGEMM_R_32F;
    run_expect_region(h, &g, 1);
    knob_clear("WSGEMM_SM90_BN");
    knob_set("WSGEMM_SM90_VARIANT", "3");
    g = gemm(T, N, 64, 8192, 1024);
    run_expect_region(h, &g, 1);
    expect_cluster(&g, 4);
    knob_clear("WSGEMM_SM90_VARIANT");
    knob_clear("WSGEMM_SM90_HYBRID");
}

/* fails the problem when the last sm90 launch had another tile width than `want` */
static void expect_bn(const testing_gemm *g, int want)
{
    const int got = wsgemm_sm90_last_bn();
    if (got != want) {
        char shape[256];
        testing_gemm_describe(g, shape, sizeof shape);
        printf("FAIL BN %d ran, %d expected: %s\n", got, want, shape);
        failures++;
    }
}

/* the 128 x 192 tile: the plan's own choice at 3072^3 with beta 0 (192 cluster units: 2.9 waves where
 * 128 x 256 has 2.2), all ops, both 16-bit types, with the deferred stores; then forced (WSGEMM_SM90_BN=192)
 * onto ragged shapes in all ops, alpha != 1, batch, the tile-end stores with beta != 0 (C read per element),
 * an unaligned ldc (per-element stores), the unswapped orientation, split-K, and a hybrid split region (its
 * partial tiles with q and with p contiguous). Each must run BN 192. */
static void case_bn192(wsgemm_handle h)
{
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            const testing_gemm g = gemm_3072(ta, tb);
            run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_DEFERRED);
            expect_bn(&g, 192);
        }
    knob_set("WSGEMM_SM90_BN", "192");
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            testing_gemm g = gemm(ta ? T : N, tb ? T : N, 1000, 3000, 1000 - 8 * (2 * ta + tb));
            g.alpha = ta ? -1.5f : 1.0f;
            run(h, &g);
            expect_bn(&g, 192);
            g = gemm(ta ? T : N, tb ? T : N, 777, 1100, 300);
            g.beta = tb ? 0.5f : 0.0f;
            run(h, &g);
            expect_bn(&g, 192);
        }
    testing_gemm g = gemm(T, N, 512, 768, 300);
    g.batch = 5;
    run(h, &g);
    expect_bn(&g, 192);
    g = gemm(N, N, 1000, 1000, 500);
    g.ldc = 1003; /* not 16-byte aligned: per-element stores */
    run_expect_epilogue(h, &g, WSGEMM_EPILOGUE_DIRECT);
    expect_bn(&g, 192);
    knob_set("WSGEMM_SM90_SWAP", "0");
    g = gemm(N, T, 1000, 1100, 700);
    run(h, &g);
    expect_bn(&g, 192);
    knob_set("WSGEMM_SM90_HYBRID", "3"); /* unswapped: partial tiles with p contiguous */
    run_expect_region(h, &g, 1);
    expect_bn(&g, 192);
    knob_clear("WSGEMM_SM90_SWAP");
    g = gemm(T, N, 1000, 1000, 1000); /* swapped: partial tiles with q contiguous */
    run_expect_region(h, &g, 1);
    expect_bn(&g, 192);
    knob_clear("WSGEMM_SM90_HYBRID");
    knob_set("WSGEMM_SM90_SPLITK", "3");
    g = gemm(N, N, 300, 2000, 3000);
    run(h, &g);
    expect_bn(&g, 192);
    knob_clear("WSGEMM_SM90_SPLITK");
    knob_clear("WSGEMM_SM90_BN");
}

typedef struct test_case {
    const char *name;
    void (*fn)(wsgemm_handle);
    int knob_rows; /* 1: forces kernels that only a build with WSGEMM_SM90_KNOB_ROWS=ON has */
} test_case;

static const test_case cases[] = {
    {"ops", case_ops},
    {"odd", case_odd},
    {"ld", case_ld},
    {"unaligned", case_unaligned},
    {"batch", case_batch},
    {"alphabeta", case_alphabeta},
    {"ctypes", case_ctypes},
    {"fp16", case_fp16},
    {"smallm", case_smallm},
    {"ktail", case_ktail},
    {"splitk", case_splitk},
    {"variants", case_variants, 1},
    {"tmastore", case_tmastore},
    {"deferred", case_deferred},
    {"staged", case_staged},
    {"pingpong", case_pingpong, 1},
    {"cluster4", case_cluster4, 1},
    {"hybrid", case_hybrid, 1},
    {"bn192", case_bn192},
};

int main(int argc, char **argv)
{
    testing_require_gpu("sm90_gemm_test");
    if (testing_device_cc() != 90) {
        printf("SKIPPED: the sm90 path needs compute capability 9.0 (this device: %d)\n", testing_device_cc());
        return WSGEMM_TEST_SKIP;
    }
    const char *which = argc > 1 ? argv[1] : "all";
    for (int i = 2; i < argc; ++i)
        if (strcmp(argv[i], "-v") == 0) verbose = 1;
    if (getenv("WSGEMM_TEST_VERBOSE")) verbose = 1;

    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_SM90));
    int found = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        if (strcmp(which, "all") != 0 && strcmp(which, cases[i].name) != 0) continue;
        found = 1;
        if (cases[i].knob_rows && !WSGEMM_SM90_KNOB_ROWS) {
            printf("SKIPPED: sm90 %s forces kernels this build left out (configure with "
                   "-DWSGEMM_SM90_KNOB_ROWS=ON)\n",
                   cases[i].name);
            if (strcmp(which, "all") != 0) {
                WSGEMM_CHECK(wsgemm_destroy(h));
                return WSGEMM_TEST_SKIP;
            }
            continue;
        }
        int before = failures, count = problems;
        cases[i].fn(h);
        printf("sm90 %-10s %d problems, %d failed\n", cases[i].name, problems - count, failures - before);
    }
    WSGEMM_CHECK(wsgemm_destroy(h));
    if (!found) {
        fprintf(stderr, "unknown case '%s'\n", which);
        return 2;
    }
    printf("%s: %d problems, %d failed\n", failures ? "FAIL" : "PASS", problems, failures);
    return failures ? 1 : 0;
}
