// SPDX-License-Identifier: MIT
/*
 * tests/common/plan_testing.h - what the planners' CPU tests (tests/sm90/sm90_plan_test.c,
 * tests/sm100/sm100_plan_test.c and the others that drive a planner) share: problems with fake device
 * addresses, a one-line description of a problem, the staged-copy layout every plan must keep, and the facts
 * of one sm100 kernel on a B200. Header-only (static functions), host C.
 */
#ifndef WSGEMM_TESTS_PLAN_TESTING_H
#define WSGEMM_TESTS_PLAN_TESTING_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/plan.h"
#include "sm100/sm100_plan.h"

/* A problem with fake device addresses (the planner never dereferences them; alignment is all it reads):
 * leading dimensions `pad` above the minimum, A misaligned by `misalign` elements, B shared by the whole
 * batch when batch > 2. */
static inline wsgemm_problem plan_testing_problem(wsgemm_op ta, wsgemm_op tb, int m, int n, int k, int batch,
                                                  wsgemm_dtype ab, wsgemm_dtype c, float beta, int pad, int misalign)
{
    const int ra = ta == WSGEMM_OP_N ? m : k, ca = ta == WSGEMM_OP_N ? k : m;
    const int rb = tb == WSGEMM_OP_N ? k : n, cb = tb == WSGEMM_OP_N ? n : k;
    const int lda = ra + pad, ldb = rb + pad, ldc = m + (pad ? 8 : 0);
    const uintptr_t base = (uintptr_t)1 << 32;
    wsgemm_problem p = {
        .transa = ta,
        .transb = tb,
        .m = m,
        .n = n,
        .k = k,
        .alpha = 1.0f,
        .beta = beta,
        .A = (const void *)(base + 2u * (unsigned)misalign),
        .Atype = ab,
        .lda = lda,
        .strideA = (long long)lda * ca,
        .B = (const void *)(base * 3),
        .Btype = ab,
        .ldb = ldb,
        .strideB = batch > 2 ? 0 : (long long)ldb * cb,
        .C = (void *)(base * 5),
        .Ctype = c,
        .ldc = ldc,
        .strideC = (long long)ldc * n,
        .batch_count = batch,
    };
    return p;
}

static inline void plan_testing_describe(const wsgemm_problem *p, char *buf, size_t size)
{
    snprintf(buf, size, "%c%c m=%d n=%d k=%d batch=%d lda=%d ldb=%d ldc=%d A%%16=%d ab=%d c=%d beta=%g",
             p->transa == WSGEMM_OP_N ? 'N' : 'T', p->transb == WSGEMM_OP_N ? 'N' : 'T', p->m, p->n, p->k,
             p->batch_count, p->lda, p->ldb, p->ldc, (int)((uintptr_t)p->A % 16), (int)p->Atype, (int)p->Ctype,
             (double)p->beta);
}

/* One sm100 kernel as a B200 runs it (gemm/sm100/sm100_kernel.cuh): 4 stages for cta_group 1, 6 for the pair (the
 * MX kernels, scales SM100_SCALES_MX: 4, bf16 D only), 231,424 bytes of shared memory, `max_clusters` co-resident
 * (148 SMs; 74 pairs). */
static inline void plan_testing_sm100_kernel(int cta_group, int scales, wsgemm_dtype out_type, int max_clusters,
                                             sm100_kernel_facts *f)
{
    memset(f, 0, sizeof *f);
    if (scales == SM100_SCALES_MX && out_type != WSGEMM_R_16BF) return; /* the MX kernels write bf16 D only */
    f->exists = 1;
    f->cta_group = cta_group;
    f->stages = scales == SM100_SCALES_MX ? SM100_MX_STAGES : cta_group == 1 ? 4 : 6;
    f->smem_bytes = 231424;
    f->max_clusters = max_clusters;
}

/* An operand's staged copy, if any: 256-byte aligned, re-pitched to a multiple of 8 two-byte elements. */
static inline int plan_testing_staged_ok(const wsgemm_operand *o)
{
    return !o->staged || (o->stage_offset % 256 == 0 &&
                          o->stage_bytes == (size_t)((o->inner + 7) / 8 * 8) * (size_t)o->cols * (size_t)o->nb * 2u);
}

/* The sweeps' random problem: m x n x k with ops, input type, C type, beta, batch, padding and A's
 * alignment drawn from bits 8..18 of r (one linear-congruential step per problem). */
static inline wsgemm_problem plan_testing_random_problem(unsigned r, int m, int n, int k)
{
    const wsgemm_op ta = (r >> 8) & 1 ? WSGEMM_OP_T : WSGEMM_OP_N;
    const wsgemm_op tb = (r >> 9) & 1 ? WSGEMM_OP_T : WSGEMM_OP_N;
    const wsgemm_dtype ab = (r >> 10) & 1 ? WSGEMM_R_16F : WSGEMM_R_16BF;
    const wsgemm_dtype cs[3] = {ab, WSGEMM_R_32F, ab == WSGEMM_R_16BF ? WSGEMM_R_16F : WSGEMM_R_16BF};
    const wsgemm_dtype c = cs[(r >> 11) % 3];
    const float beta = (r >> 13) & 1 ? 0.0f : 1.0f;
    const int batch = 1 + (int)((r >> 14) % 4);
    const int pad = (r >> 16) % 4 == 0 ? 3 : 0;
    const int misalign = (r >> 18) % 8 == 0;
    return plan_testing_problem(ta, tb, m, n, k, batch, ab, c, beta, pad, misalign);
}

#endif /* WSGEMM_TESTS_PLAN_TESTING_H */
