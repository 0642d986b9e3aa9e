// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_grouped_plan.h - the plan of the sm90 grouped GEMM (sm90_grouped_kernel.cuh): whether its
 * kernel takes a wsgemm_gemm_grouped_ex call, which row of its kernel table (sm90_grouped_kernels.def) runs it,
 * the P/Q roles, the operands as the tensor maps see them, where D goes, and the grid. Plain C: the paths
 * (gemm/paths.c) ask it before they choose, the launcher (sm90_grouped.cu) launches what it says, and a CPU
 * test (tests/sm90/sm90_grouped_plan_test.c) checks it.
 */
#ifndef WSGEMM_SM90_GROUPED_PLAN_H
#define WSGEMM_SM90_GROUPED_PLAN_H

#include <stddef.h>

#include "internal.h"
#include "sm90/sm90_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most groups the kernel's shared-memory group table holds (first, begin, end: 16 bytes a group). */
enum { SM90_GROUPED_MAX_GROUPS = 1024 };

/* One kernel configuration: the columns of sm90_grouped_kernels.def (which says what each means). */
typedef struct sm90_grouped_config {
    const char *name;
    int in;         /* SM90_IN_BF16 or SM90_IN_F16 */
    int bm, bn, bk; /* CTA tile and K per stage */
    int stages;     /* operand ring depth */
    int consumers;  /* consumer warpgroups */
    int mn;         /* SM90_MN_*: the majorness pairs instantiated */
} sm90_grouped_config;

#define SM90_GROUPED_KERNEL(name, ...) +1
enum {
    SM90_GROUPED_ROWS = 0
#include "sm90/sm90_grouped_kernels.def"
};
#undef SM90_GROUPED_KERNEL
extern const sm90_grouped_config sm90_grouped_table[SM90_GROUPED_ROWS];

/* The row of input kind `in` (SM90_IN_*) and tile width bn; -1 when no row has them. */
int sm90_grouped_row_find(int in, int bn);

/* An operand as its tensor map reads it: `rows` K-major rows of k elements, `ld` elements apart, `matrices`
 * matrices `stride` elements apart (1: one matrix, the map's third coordinate always 0). */
typedef struct sm90_grouped_operand {
    const void *ptr;
    long long ld, stride;
    int rows, matrices;
} sm90_grouped_operand;

typedef struct sm90_grouped_plan {
    int row;      /* of sm90_grouped_table */
    int in, bn;   /* the row's input kind and tile width */
    int dim_n;    /* grouped along N: P = op(B)^T, Q = op(A) (else P = op(A), Q = op(B)^T) */
    int p_extent; /* the grouped extent: P's rows per matrix (m or n) */
    int q_extent; /* Q's rows: the other of m, n */
    int k;
    sm90_grouped_operand p, q;
    long long out_sp, out_sq, out_group; /* D_g(p, q) at C + g out_group + p out_sp + q out_sq (elements) */
    int q_band;            /* 1 .. q tiles: the Q tiles of a band (the kernel's order): about a third of L2 of Q rows */
    long long works_bound; /* the most works the sizes can make: units bound x q tiles */
    int grid;              /* CTAs: min(SMs, works_bound), at least 1 (CTA 0 writes the status) */
} sm90_grouped_plan;

/* 1 when the sm90 grouped kernel takes the grouped call p (p->grouped set, the arguments checked as
 * gemm/grouped.c does) on device d, with *plan filled; else 0 with the reason in why (without the
 * function's name). What it takes: a device of compute capability 9.0, groups along M or N, a product
 * (k > 0, alpha != 0), host scalars, 16-bit A and B of one type, C 16BF, 16F or 32F, K-major operands
 * (transa T, transb N), at most SM90_GROUPED_MAX_GROUPS groups, and A and B as TMA reads them (16-byte
 * aligned bases, leading dimensions and, where there is one, strides). */
int sm90_grouped_plan_make(const wsgemm_problem *p, const wsgemm_device_info *d, sm90_grouped_plan *plan, char *why,
                           size_t why_size);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM90_GROUPED_PLAN_H */
