// SPDX-License-Identifier: MIT
/*
 * gemm/problem.h - the one description of a call that the call pipeline (call.c) and the paths (paths.c) act
 * on: wsgemm_gemm_ex, wsgemm_gemm_strided_batched_ex, wsgemm_gemm_workspace_size and wsgemm_matmul each check
 * their arguments into one (api.c, matmul.c), and from there every call goes the same way. Host C.
 */
#ifndef WSGEMM_PROBLEM_H
#define WSGEMM_PROBLEM_H

#include <stddef.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One matrix or vector a call reads or writes, as stored: rows contiguous, cols ld apart, `matrices` batch
 * members stride elements apart (1 when it is not batched or is shared by every batch member). */
typedef struct wsgemm_call_operand {
    const char *name; /* as the messages name it: "A", "bias", "a_scale" */
    const void *ptr;
    int elem_bytes;
    long long rows, cols;
    long long ld, stride;
    int matrices;
} wsgemm_call_operand;

/* An operand of one matrix (no batch): `rows` contiguous elements of elem_bytes per column, `cols` columns ld
 * apart. */
static inline wsgemm_call_operand wsgemm_call_operand_of(const char *name, const void *ptr, int elem_bytes,
                                                         long long rows, long long cols, long long ld)
{
    return (wsgemm_call_operand){.name = name,
                                 .ptr = ptr,
                                 .elem_bytes = elem_bytes,
                                 .rows = rows,
                                 .cols = cols,
                                 .ld = ld,
                                 .stride = 0,
                                 .matrices = 1};
}

enum { WSGEMM_CALL_MAX_OPERANDS = 13 };

typedef enum wsgemm_call_kind {
    WSGEMM_CALL_GEMM = 0,   /* gemm_ex, strided batched, workspace size: alpha, beta on C; 16-bit A and B */
    WSGEMM_CALL_MATMUL = 1, /* wsgemm_matmul: the output op of its descriptor on D; FP8 A and B too */
    WSGEMM_CALL_GROUPED = 2 /* wsgemm_gemm_grouped_ex: alpha, beta on C per group, sizes on the device */
} wsgemm_call_kind;

typedef struct wsgemm_call {
    const char *fn; /* the public function, as messages name it */
    wsgemm_call_kind kind;
    /* The product as every kernel sees it: C is the output (a matmul's D), alpha and beta the host values;
     * k = 0 and alpha = 0 when there is no product to form (A and B may then be NULL). A matmul's output op
     * (bias, activation, aux, scales, amax, a C other than D) is in `output`; a GEMM's output op is alpha and
     * beta on C alone. Which kernels apply `output` is the paths' decision (paths.c). */
    wsgemm_problem problem;
    wsgemm_fused_epilogue output;
    /* the memory the call touches, for the device and allocation checks (device pointer mode: alpha and beta
     * too) */
    wsgemm_call_operand operands[WSGEMM_CALL_MAX_OPERANDS];
    int operand_count;
    /* wsgemm_gemm_workspace_size: plan the call on its path and report the workspace it would take here,
     * launching nothing; NULL for every other call */
    size_t *workspace_bytes;
    /* desc->launch_mode PDL (wsgemm_matmul, wsgemm_gemm_grouped_ex): the call's kernels use programmatic
     * dependent launch whatever the handle's launch mode (wsgemm_set_launch_mode) */
    int pdl;
    /* desc->batch_invariance ON or ON_N (wsgemm_matmul): the call runs so whatever the handle's batch
     * invariance (wsgemm_set_batch_invariance); OFF takes the handle's */
    wsgemm_batch_invariance batch_invariance;
} wsgemm_call;

/* A product to form: k > 0 and alpha != 0 (else C = beta * C, or a matmul's output op on beta * C). */
static inline int wsgemm_call_has_product(const wsgemm_call *c)
{
    return c->problem.k > 0 && c->problem.alpha != 0.0f;
}

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_PROBLEM_H */
