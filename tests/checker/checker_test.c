// SPDX-License-Identifier: MIT
/*
 * checker_test.c - the test support code must be able to fail.
 *
 * conversions   bf16 / f16 rounding against hand-derived bit patterns
 * reference     the OpenMP fp64 host reference against a hand-computed GEMM
 *               (values exactly representable, so equality is exact)
 * planted_fault the checker passes a correct result and catches each planted
 *               fault: one element off, a NaN, a write into the padding rows,
 *               a missing K block
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testing.h"

static int failures = 0;
#define EXPECT(cond, what)                                                    \
    do {                                                                      \
        if (!(cond)) {                                                        \
            printf("FAIL %s:%d: %s (%s)\n", __FILE__, __LINE__, what, #cond); \
            failures++;                                                       \
        } else {                                                              \
            printf("  ok: %s\n", what);                                       \
        }                                                                     \
    } while (0)

static void case_conversions(void)
{
    EXPECT(testing_float_to_bf16(1.0f) == 0x3F80, "bf16(1.0) = 0x3F80");
    EXPECT(testing_float_to_bf16(-2.5f) == 0xC020, "bf16(-2.5) = 0xC020");
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even -> 1.0 */
    EXPECT(testing_float_to_bf16(1.00390625f) == 0x3F80, "bf16 ties to even (down)");
    /* 1 + 3*2^-8 is halfway between 1+2^-7 and 1+2^-6: ties to even -> up */
    EXPECT(testing_float_to_bf16(1.01171875f) == 0x3F82, "bf16 ties to even (up)");
    EXPECT(isnan(testing_bf16_to_float(testing_float_to_bf16(NAN))), "bf16 NaN stays NaN");
    EXPECT(testing_float_to_half(1.0f) == 0x3C00, "f16(1.0) = 0x3C00");
    EXPECT(testing_float_to_half(65504.0f) == 0x7BFF, "f16 max");
    EXPECT(testing_float_to_half(70000.0f) == 0x7C00, "f16 overflow -> inf");
    EXPECT(testing_float_to_half(5.9604645e-8f) == 0x0001, "f16 smallest subnormal");
    EXPECT(testing_half_to_float(0x0001) == 5.9604645e-8f, "f16 subnormal back");
    EXPECT(testing_float_to_half(1.00048828125f) == 0x3C00, "f16 ties to even (down)");
    EXPECT(isnan(testing_half_to_float(testing_float_to_half(NAN))), "f16 NaN stays NaN");
    int round_trip_ok = 1;
    for (uint32_t h = 0; h < 0x7C00; ++h) /* every finite positive half */
        round_trip_ok &= testing_float_to_half(testing_half_to_float((uint16_t)h)) == h;
    EXPECT(round_trip_ok, "every finite f16 round-trips through float");
}

static void case_reference(void)
{
    /* op(A) = A^T with A stored 3 x 2 (k x m), B stored 3 x 2 (k x n), lda = 4 */
    const float a_vals[8] = {1, 2, 3, 0, -1, 0.5f, 2, 0}; /* column i of A = row i of op(A) */
    const float b_vals[6] = {1, 0, -1, 2, 1, 0.25f};
    const float c_vals[4] = {1, -1, 2, 0.5f};
    uint16_t A[8], B[6], C[4];
    for (int i = 0; i < 8; ++i) A[i] = testing_float_to_bf16(a_vals[i]);
    for (int i = 0; i < 6; ++i) B[i] = testing_float_to_bf16(b_vals[i]);
    for (int i = 0; i < 4; ++i) C[i] = testing_float_to_bf16(c_vals[i]);
    testing_gemm g = {WSGEMM_OP_T,   WSGEMM_OP_N,   2, 2, 3, 4, 3, 2, -1, -1, -1, 1, 2.0f, -1.0f,
                      WSGEMM_R_16BF, WSGEMM_R_16BF, 0};
    testing_gemm_resolve(&g);
    double ref[4];
    testing_reference_host(&g, A, B, C, ref);
    /* op(A) rows: (1,2,3), (-1,0.5,2); op(B) columns: (1,0,-1), (2,1,0.25) */
    const double want[4] = {2 * (1 - 3) - 1, 2 * (-1 - 2) + 1, 2 * (2 + 2 + 0.75) - 2, 2 * (-2 + 0.5 + 0.5) - 0.5};
    int exact = 1;
    for (int i = 0; i < 4; ++i) exact &= ref[i] == want[i];
    EXPECT(exact, "host reference equals the hand-computed TN result");
}

/* Build a correct bf16 result for a random problem, then plant faults. */
static void case_planted_fault(void)
{
    testing_gemm g = {WSGEMM_OP_N,   WSGEMM_OP_T,   67, 45, 130, 70, 0, 71, -1, -1, -1, 2, 1.0f, 0.5f,
                      WSGEMM_R_16BF, WSGEMM_R_16BF, 0};
    testing_gemm_resolve(&g);
    size_t ea = testing_gemm_elems_a(&g), eb = testing_gemm_elems_b(&g), ec = testing_gemm_elems_c(&g);
    uint16_t *A = malloc(ea * 2), *B = malloc(eb * 2), *C0 = malloc(ec * 2), *got = malloc(ec * 2);
    testing_rng rng = testing_rng_seeded(11);
    for (size_t i = 0; i < ea; ++i) A[i] = testing_float_to_bf16(testing_rng_uniform(&rng));
    for (size_t i = 0; i < eb; ++i) B[i] = testing_float_to_bf16(testing_rng_uniform(&rng));
    for (size_t i = 0; i < ec; ++i) C0[i] = testing_float_to_bf16(testing_rng_uniform(&rng));
    size_t total = (size_t)g.batch * g.m * g.n;
    double *ref = malloc(total * sizeof(double));
    testing_reference_host(&g, A, B, C0, ref);
    testing_tolerance tol = testing_tolerance_for(g.c_type);

    /* the correct result: reference rounded to bf16, padding as before */
    memcpy(got, C0, ec * 2);
    for (int b = 0; b < g.batch; ++b)
        for (int j = 0; j < g.n; ++j)
            for (int i = 0; i < g.m; ++i)
                got[(size_t)b * g.strideC + i + (size_t)j * g.ldc] =
                    testing_float_to_bf16((float)ref[(size_t)b * g.m * g.n + i + (size_t)j * g.m]);
    testing_report r = testing_check(&g, got, C0, ref, tol, "correct");
    printf("  correct result: rel_fro %.2e, max_abs %.2e, %zu checked\n", r.rel_fro, r.max_abs_err, r.checked);
    EXPECT(r.passed && r.checked == total, "a correct bf16 result passes");

    size_t victim = (size_t)1 * g.strideC + 13 + (size_t)7 * g.ldc;
    uint16_t saved = got[victim];
    got[victim] = testing_float_to_bf16(testing_bf16_to_float(saved) + 0.25f);
    r = testing_check(&g, got, C0, ref, tol, "planted: one element +0.25");
    EXPECT(!r.passed && r.mismatches == 1, "one element off by 0.25 is caught");
    got[victim] = 0x7FC0; /* NaN */
    r = testing_check(&g, got, C0, ref, tol, "planted: NaN");
    EXPECT(!r.passed && r.nan_count == 1, "a NaN is caught");
    got[victim] = saved;
    got[g.m + 3] ^= 1; /* a row between m and ldc in column 0 */
    r = testing_check(&g, got, C0, ref, tol, "planted: padding write");
    EXPECT(!r.passed && r.padding_touched == 1, "a write into the padding rows is caught");
    got[g.m + 3] ^= 1;

    /* a kernel that skipped the last K block of 64: recompute with k = 66 */
    testing_gemm short_k = g;
    short_k.k = 66;
    double *wrong = malloc(total * sizeof(double));
    testing_reference_host(&short_k, A, B, C0, wrong);
    for (int b = 0; b < g.batch; ++b)
        for (int j = 0; j < g.n; ++j)
            for (int i = 0; i < g.m; ++i)
                got[(size_t)b * g.strideC + i + (size_t)j * g.ldc] =
                    testing_float_to_bf16((float)wrong[(size_t)b * g.m * g.n + i + (size_t)j * g.m]);
    r = testing_check(&g, got, C0, ref, tol, "planted: missing K block");
    EXPECT(!r.passed && r.mismatches > total / 2, "a missing K block is caught");
    free(wrong);
    free(A);
    free(B);
    free(C0);
    free(got);
    free(ref);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    if (!strcmp(which, "conversions"))
        case_conversions();
    else if (!strcmp(which, "reference"))
        case_reference();
    else if (!strcmp(which, "planted_fault"))
        case_planted_fault();
    else {
        fprintf(stderr, "usage: %s conversions|reference|planted_fault\n", argv[0]);
        return 2;
    }
    printf("%s: %s\n", which, failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
