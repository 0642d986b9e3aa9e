// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_table.h - the sm90 kernel table as C data: one sm90_kernel_config per row of sm90_kernels.def,
 * in the order of that file, for the plan (sm90_plan.c) and the launcher (sm90_gemm.cu, which holds each row's
 * kernels at the same index). Plain C, no CUDA.
 */
#ifndef WSGEMM_SM90_TABLE_H
#define WSGEMM_SM90_TABLE_H

#include "sm90/sm90_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the build compiles a row of `by` (SM90_BY_*): the plan's rows always; the rows only a knob reaches
 * with WSGEMM_SM90_KNOB_ROWS (a CMake option, 0 in the release build; 1 where it is not defined). SM90_BUILT
 * expands to the token 0 or 1, for the preprocessor's selections in sm90_shard.cu and sm90_gemm.cu. */
#ifndef WSGEMM_SM90_KNOB_ROWS
#define WSGEMM_SM90_KNOB_ROWS 1
#endif
#define SM90_BUILT_SM90_BY_PLAN   1
#define SM90_BUILT_SM90_BY_KNOB   WSGEMM_SM90_KNOB_ROWS
#define SM90_BUILT_SM90_BY_TUNING WSGEMM_SM90_KNOB_ROWS
#define SM90_BUILT(by)            SM90_BUILT_##by
/* SM90_PICK(cond, a, b): a where cond expands to 1, b where it expands to 0 */
#define SM90_PICK_0(a, b)      b
#define SM90_PICK_1(a, b)      a
#define SM90_PICK_(cond, a, b) SM90_PICK_##cond(a, b)
#define SM90_PICK(cond, a, b)  SM90_PICK_(cond, a, b)

/* One kernel configuration: the columns of sm90_kernels.def (which says what each means). */
typedef struct sm90_kernel_config {
    const char *name;
    int variant;    /* SM90_VARIANT_* */
    int in;         /* SM90_IN_* */
    int scales;     /* SM90_SCALES_* */
    int bm, bn, bk; /* CTA tile and K per stage */
    int stages;     /* operand ring depth */
    int cluster;    /* CTAs per cluster along P */
    int consumers;  /* consumer warpgroups */
    int schedule;   /* SM90_SCHED_* */
    int c_bytes;    /* STAGED C tile element bytes; 0: chunk buffers */
    int fused;      /* 1: wsgemm_matmul's ops in the output op */
    int mn;         /* SM90_MN_*: the majorness pairs instantiated */
    int by;         /* SM90_BY_* */
    int built;      /* 1: this build compiled the row's kernels (SM90_BUILT) */
} sm90_kernel_config;

/* The rows, in sm90_kernels.def's order. */
#define SM90_KERNEL(name, ...) +1
enum {
    SM90_KERNEL_ROWS = 0
#include "sm90/sm90_kernels.def"
};
#undef SM90_KERNEL
extern const sm90_kernel_config sm90_kernel_table[SM90_KERNEL_ROWS];

/* The kernels the table instantiates: one per row and majorness pair. */
#define SM90_MN_PAIRS(mn) (((mn)&1) + ((mn) >> 1 & 1) + ((mn) >> 2 & 1) + ((mn) >> 3 & 1))
#define SM90_KERNEL(name, shard, variant, in, scales, bm, bn, bk, stages, cluster, consumers, schedule, c_bytes, \
                    fused, mn, by)                                                                               \
    +SM90_MN_PAIRS(mn)
enum {
    SM90_KERNEL_COUNT = 0
#include "sm90/sm90_kernels.def"
};
#undef SM90_KERNEL

/* 1 when row r has the majorness pair (p_mn, q_mn). */
static inline int sm90_kernel_has_pair(const sm90_kernel_config *r, int p_mn, int q_mn)
{
    return r->mn >> ((p_mn ? 2 : 0) + (q_mn ? 1 : 0)) & 1;
}

/* The row of input kind `in`, operand scaling `scales`, variant and tile width bn that has the majorness pair
 * (p_mn, q_mn); -1 when no row does. */
int sm90_kernel_find(int in, int scales, int variant, int bn, int p_mn, int q_mn);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM90_TABLE_H */
