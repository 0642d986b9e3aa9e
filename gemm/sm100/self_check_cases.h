// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/self_check_cases.h - the problems the sm100 self-check helper runs (self_check_helper.c), as
 * data both the helper and its coverage test (tests/selfcheck/self_check_coverage_test.c) compile: the test
 * runs the sm100 planner on these and on a grid of every call AUTO can give the path, and fails when the
 * planner can choose a kind of plan (a cta_group, input class, kernel output type, epilogue kind, fused op,
 * split-K, batch, operand majors, staged operands) that no case here reaches. Host C, no CUDA.
 *
 * Every m, n, k is off the tile grid (128/256 x 256 x 64 or 128). The helper runs each case once per cta_group,
 * so a case costs two kernel runs: keep the list short (it runs once per GPU, driver and library version).
 */
#ifndef WSGEMM_SM100_SELF_CHECK_CASES_H
#define WSGEMM_SM100_SELF_CHECK_CASES_H

#include <stddef.h>

#include "wsgemm.h"

/* How a case calls the library. */
typedef enum self_check_call {
    SELF_CHECK_GEMM = 0,  /* wsgemm_gemm_ex, or wsgemm_gemm_strided_batched_ex when batch > 1 */
    SELF_CHECK_FUSED = 1, /* wsgemm_matmul with a_scale 1/2, b_scale 2, an fp32 bias and ReLU; C in place
                              (D == C), or, for an E4M3 D, a bf16 C that beta 0 leaves unread */
    SELF_CHECK_MATMUL = 2 /* wsgemm_matmul with nothing but alpha and beta (FP8: the kernel without the fused op) */
} self_check_call;

typedef struct self_check_case {
    wsgemm_op ta, tb;
    int m, n, k;
    wsgemm_dtype a, b, c; /* c: C's type (a matmul's D) */
    float alpha, beta;
    int ldc_pad; /* rows of C past m that the kernel must leave alone */
    int ctas;    /* > 0: WSGEMM_SM100_CTAS (several tiles per CTA); 0 the launcher's grid */
    self_check_call call;
    int batch;   /* matrices (tight strides); 1: one */
    int splits;  /* > 0: WSGEMM_SM100_SPLITK (split-K forced); 0 the plan's choice */
    int lda_odd; /* 1: lda one element past a 16-byte multiple: TMA cannot address A, the plan stages it */
} self_check_case;

/* The list. Cases 7-19 (added so that every kind of plan runs: 26 kernel runs, each small) add about as much
 * CPU reference work as cases 1-6 take (m n k summed: 0.15 G against 0.22 G multiply-adds). */
static const self_check_case kSelfCheckCases[] = {
    /* 1. k = 600: ten k-blocks, more than either ring has stages, inside one tile; fp32 C by TMA store */
    {WSGEMM_OP_T, WSGEMM_OP_N, 300, 520, 600, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_32F, 1.0f, 0.0f, 0, 0,
     SELF_CHECK_GEMM, 1, 0, 0},
    /* 2.-4. ragged C rows (per-element stores), beta != 0, several tiles per CTA */
    {WSGEMM_OP_N, WSGEMM_OP_N, 260, 300, 72, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_16BF, 0.5f, -0.75f, 5, 2,
     SELF_CHECK_GEMM, 1, 0, 0},
    {WSGEMM_OP_T, WSGEMM_OP_T, 129, 257, 136, WSGEMM_R_16F, WSGEMM_R_16F, WSGEMM_R_16F, -1.0f, 0.25f, 0, 2,
     SELF_CHECK_GEMM, 1, 0, 0},
    {WSGEMM_OP_N, WSGEMM_OP_T, 384, 272, 65, WSGEMM_R_16F, WSGEMM_R_16F, WSGEMM_R_32F, 2.0f, 1.0f, 3, 2,
     SELF_CHECK_GEMM, 1, 0, 0},
    /* 5.-6. FP8: k = 600 is five 128-K blocks, a ragged last one, D by TMA store; MN-major A read as stored; C
     * read (beta != 0: the fused op's STAGED fp32 C) */
    {WSGEMM_OP_T, WSGEMM_OP_N, 304, 520, 600, WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E5M2, WSGEMM_R_16BF, 1.0f, 0.0f, 0, 0,
     SELF_CHECK_FUSED, 1, 0, 0},
    {WSGEMM_OP_N, WSGEMM_OP_N, 272, 300, 200, WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E4M3, WSGEMM_R_32F, 0.5f, 0.25f, 0, 2,
     SELF_CHECK_FUSED, 1, 0, 0},
    /* 7.-8. the 16-bit TMA-store epilogue (beta 0) and the STAGED one (beta != 0: C loaded by TMA) */
    {WSGEMM_OP_T, WSGEMM_OP_N, 264, 300, 200, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_16BF, 1.0f, 0.0f, 0, 2,
     SELF_CHECK_GEMM, 1, 0, 0},
    {WSGEMM_OP_N, WSGEMM_OP_T, 136, 264, 136, WSGEMM_R_16F, WSGEMM_R_16F, WSGEMM_R_16F, 0.5f, 0.5f, 8, 0,
     SELF_CHECK_GEMM, 1, 0, 0},
    /* 9.-10. split-K: fp32 partials by TMA store (m % 4 == 0) and per element, then the reduction; a batch of 3
     * with staged A (odd lda) */
    {WSGEMM_OP_T, WSGEMM_OP_N, 200, 264, 900, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_16BF, 1.0f, 0.5f, 0, 0,
     SELF_CHECK_GEMM, 1, 3, 0},
    {WSGEMM_OP_N, WSGEMM_OP_N, 130, 140, 520, WSGEMM_R_16F, WSGEMM_R_16F, WSGEMM_R_32F, 1.0f, 0.0f, 0, 0,
     SELF_CHECK_GEMM, 3, 2, 1},
    /* 11. a batch on one split, B MN-major, the STAGED fp32 C */
    {WSGEMM_OP_T, WSGEMM_OP_T, 132, 136, 72, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_32F, 1.0f, -0.5f, 0, 0,
     SELF_CHECK_GEMM, 2, 0, 0},
    /* 12. FP8 with B MN-major and an E4M3 D (per-element stores, saturated), staged A */
    {WSGEMM_OP_T, WSGEMM_OP_T, 200, 136, 260, WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3, 0.25f, 0.0f, 0, 0,
     SELF_CHECK_FUSED, 1, 0, 1},
    /* 13.-14. FP8 without the fused op: TMA-stored f16 D with both operands MN-major; split-K into fp32
     * partials stored per element (m % 4 != 0) */
    {WSGEMM_OP_N, WSGEMM_OP_T, 264, 136, 300, WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E4M3, WSGEMM_R_16F, 1.0f, 0.0f, 0, 0,
     SELF_CHECK_MATMUL, 1, 0, 0},
    {WSGEMM_OP_T, WSGEMM_OP_N, 138, 140, 700, WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3, WSGEMM_R_16BF, 1.0f, 0.0f, 0, 0,
     SELF_CHECK_MATMUL, 1, 2, 0},
    /* 15. FP8 without the fused op, C read in place: the STAGED bf16 C */
    {WSGEMM_OP_T, WSGEMM_OP_N, 136, 264, 200, WSGEMM_R_8F_E5M2, WSGEMM_R_8F_E4M3, WSGEMM_R_16BF, 1.0f, 0.5f, 0, 0,
     SELF_CHECK_MATMUL, 1, 0, 0},
    /* 16.-18. the fused op on 16-bit operands: the STAGED bf16 C, a TMA-stored fp32 D, an E4M3 D (per element) */
    {WSGEMM_OP_T, WSGEMM_OP_N, 264, 136, 136, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_16BF, 1.0f, 0.5f, 0, 0,
     SELF_CHECK_FUSED, 1, 0, 0},
    {WSGEMM_OP_N, WSGEMM_OP_N, 200, 140, 72, WSGEMM_R_16F, WSGEMM_R_16F, WSGEMM_R_32F, 1.0f, 0.0f, 0, 0,
     SELF_CHECK_FUSED, 1, 0, 0},
    {WSGEMM_OP_T, WSGEMM_OP_N, 136, 140, 136, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_8F_E4M3, 0.5f, 0.0f, 0, 0,
     SELF_CHECK_FUSED, 1, 0, 0},
    /* 19. the same with m a multiple of 16: the E4M3 D through the TMA store (whole 16-byte chunk rows) */
    {WSGEMM_OP_T, WSGEMM_OP_N, 144, 140, 136, WSGEMM_R_16BF, WSGEMM_R_16BF, WSGEMM_R_8F_E4M3, 0.5f, 0.0f, 0, 0,
     SELF_CHECK_FUSED, 1, 0, 0},
};
enum { kSelfCheckCaseCount = sizeof kSelfCheckCases / sizeof kSelfCheckCases[0] };

/* A case's storage, column-major as the API takes it: A is a_rows x a_cols (lda apart), one matrix every
 * stride_a elements (batch > 1), and so on. Leading dimensions are whole 16-byte units (TMA) unless lda_odd. */
typedef struct self_check_layout {
    int a_rows, a_cols, b_rows, b_cols;
    int lda, ldb, ldc;
    long long stride_a, stride_b, stride_c; /* 0 for one matrix */
    size_t na, nb, nc;                      /* elements of each buffer */
} self_check_layout;

static inline self_check_layout self_check_case_layout(const self_check_case *c, int a_bytes, int b_bytes)
{
    self_check_layout l;
    l.a_rows = c->ta == WSGEMM_OP_N ? c->m : c->k;
    l.a_cols = c->ta == WSGEMM_OP_N ? c->k : c->m;
    l.b_rows = c->tb == WSGEMM_OP_N ? c->k : c->n;
    l.b_cols = c->tb == WSGEMM_OP_N ? c->n : c->k;
    const int a_unit = 16 / a_bytes, b_unit = 16 / b_bytes;
    l.lda = (l.a_rows + a_unit - 1) / a_unit * a_unit + (c->lda_odd ? 1 : 0);
    l.ldb = (l.b_rows + b_unit - 1) / b_unit * b_unit;
    l.ldc = c->m + c->ldc_pad;
    const int batched = c->batch > 1;
    l.stride_a = batched ? (long long)l.lda * l.a_cols : 0;
    l.stride_b = batched ? (long long)l.ldb * l.b_cols : 0;
    l.stride_c = batched ? (long long)l.ldc * c->n : 0;
    const size_t nb = (size_t)(batched ? c->batch : 1);
    l.na = (size_t)l.lda * (size_t)l.a_cols * nb;
    l.nb = (size_t)l.ldb * (size_t)l.b_cols * nb;
    l.nc = (size_t)l.ldc * (size_t)c->n * nb;
    return l;
}

/* C's type when it differs from D's (an E4M3 D reads a 16-bit C): the input C type of a case. */
static inline wsgemm_dtype self_check_case_c_in_type(const self_check_case *c)
{
    return c->c == WSGEMM_R_8F_E4M3 ? WSGEMM_R_16BF : c->c;
}

#endif /* WSGEMM_SM100_SELF_CHECK_CASES_H */
