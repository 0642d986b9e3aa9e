// SPDX-License-Identifier: MIT
/*
 * matmul_run.h - one wsgemm_matmul problem checked against and timed beside cublasLtMatmul (wsgemm-run's
 * matmul options and wsgemm-matmul-bench share it). Host C11.
 */
#ifndef WSGEMM_BENCH_MATMUL_RUN_H
#define WSGEMM_BENCH_MATMUL_RUN_H

#include "wsgemm.h"

typedef struct matmul_problem {
    const char *name; /* a label for the table */
    wsgemm_op ta, tb;
    int m, n, k;
    wsgemm_dtype a, b, c, d; /* C is not read (beta 0); its type is cuBLASLt's C layout type */
    wsgemm_matmul_epilogue epilogue;
    wsgemm_dtype bias_type; /* also aux's */
    int scales;             /* MATMUL_SCALES_* */
} matmul_problem;

/* The operand scales of a problem. */
enum {
    MATMUL_SCALES_NONE = 0,
    MATMUL_SCALES_TENSOR = 1, /* a_scale 1, b_scale 1, d_scale 1 as device floats, amax_d (FP8 D) */
    MATMUL_SCALES_BLOCK = 2   /* DeepSeek-V3's: A VEC128_32F (1 x 128), B BLK128x128_32F, uniform [-1, 1] scale
                                 tensors; the third library is then wsgemm with per-tensor scales on the same data */
};

enum { MATMUL_MAX_LIBS = 4 };

typedef struct matmul_result {
    wsgemm_path path; /* the path wsgemm ran */
    int nlibs;
    const char *lib[MATMUL_MAX_LIBS]; /* [0] wsgemm, [1] cuBLASLt, then cuBLASLt fast accumulation (FP8),
                                         cuBLASLt GEMM + a separate epilogue kernel (bias/activation) or wsgemm
                                         with per-tensor scales (MATMUL_SCALES_BLOCK) */
    double ms[MATMUL_MAX_LIBS];       /* median GPU time of one call (0: did not run) */
    double tflops[MATMUL_MAX_LIBS];
    int held_rounds, rounds;
    int checked; /* wsgemm's D compared with cuBLASLt's */
    int check_passed;
    double rel_fro;
} matmul_result;

/* Parse "none|relu|bias|relu_bias|gelu|gelu_bias|gelu_aux|gelu_aux_bias" (0 when unknown). */
wsgemm_matmul_epilogue matmul_epilogue_parse(const char *name);
const char *matmul_epilogue_name(wsgemm_matmul_epilogue e);
/* "bf16", "f16", "f32", "e4m3", "e5m2" (-1 when unknown). */
int matmul_dtype_parse(const char *name);

/* Check wsgemm_matmul (path `path`) against cublasLtMatmul once, then time both (and the third library where
 * one applies) side by side, `reps` rounds. Returns 0 when everything ran; prints its own errors. */
int matmul_run(const matmul_problem *p, wsgemm_path path, int reps, matmul_result *out);

/* The rows of out as a table: name, library, path, ms, TFLOP/s, ratio to cuBLASLt. */
void matmul_print(const matmul_problem *p, const matmul_result *out);

#endif /* WSGEMM_BENCH_MATMUL_RUN_H */
