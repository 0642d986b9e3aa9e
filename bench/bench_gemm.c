// SPDX-License-Identifier: MIT
/*
 * bench_gemm.c - wsgemm side by side with cuBLAS and cuBLASLt, through Google
 * Benchmark (gbench_shim.h). Host C11.
 *
 * For every shape of every suite, in one process and on the same data:
 *   cublas        cublasGemmEx (cublasGemmStridedBatchedEx when batched)
 *   cublaslt      cublasLtMatmul, 32 MB workspace, the first (best) heuristic
 *   wsgemm_auto   wsgemm_gemm_ex on WSGEMM_PATH_AUTO
 *   wsgemm_<path> wsgemm_gemm_ex on each forced path this build holds and the
 *                 device runs (a probe call decides at start-up): generic,
 *                 sm90 (cc 9.0), sm100 (cc 10.0); sm100_emulated only with
 *                 --wsgemm_emulated and only on shapes up to 1024 (it is slow)
 *
 * Benchmark names: <suite>/<impl>/<op><op>_<ab>_<c>/m:M/n:N/k:K[/batch:B][/beta:1]/iterations:R/manual_time,
 * so --benchmark_filter picks suites (^square/), implementations (/cublas/)
 * or shapes (/m:4096/). Suites: square, llm, decode, beta1, f32c, unaligned,
 * batched, ops, types, grid (m, n, k over 512..16384 log-spaced and 1000, 5000:
 * wsgemm_auto only, for the heat map of bench/plot.py).
 *
 * Method (docs/performance.md):
 *  1. Correct first. Per shape, inputs uniform [-1,1] made on the device
 *     (testing_device_fill_uniform), the reference from cuBLAS with fp32
 *     output; per implementation one call on a NaN-poisoned C (beta != 0: C
 *     uniform, restored before the call), every element checked on the device
 *     (testing_device_check: testing_check's tolerance, NaN never passes), the
 *     path that ran asserted for a forced path. A wrong result is reported as
 *     an error ("ERROR OCCURRED" on the console, error_occurred in the JSON),
 *     never as a time, and makes the process exit 3.
 *  2. Then time: GPU time, side by side with cuBLAS. Each benchmark runs R
 *     rounds (--wsgemm_rounds, the benchmark's fixed iteration count) of
 *     testing_time_interleaved: a spin kernel holds the stream while this
 *     implementation's and cuBLAS's event-bracketed calls are queued, in an
 *     order alternating each round, so each event pair times the kernels of
 *     one call alone (no host launch work, no host work hiding behind the
 *     other library's kernel). The manual time of iteration r is this
 *     implementation's GPU time in round r. Input sets rotate (every call
 *     another set; all sets together exceed twice the L2); cuBLAS writes its
 *     own output buffers. Host time per call is measured apart: wall clock
 *     around each of 10 calls while the GPU is held busy.
 *  3. Counters, from the MEDIANS of the rounds (Google Benchmark's own time
 *     column is the mean): TFLOPS (2mnk*batch / t), GBps (minimum bytes: A, B
 *     read once, C written once, read too when beta != 0), vs_cublas (cuBLAS's
 *     median / this median, same rounds: > 1 is faster than cuBLAS),
 *     cublas_TFLOPS (cuBLAS in those rounds), host_us and cublas_host_us,
 *     held (fraction of rounds queued before the hold ended; should be 1),
 *     path (the wsgemm_path enum that ran; its name is in the label).
 *
 * Options of this program (the --benchmark_* ones are Google Benchmark's):
 *   --wsgemm_rounds=N          timed rounds per benchmark (default 20)
 *   --wsgemm_emulated          add the sm100_emulated path (shapes <= 1024)
 *   --wsgemm_plant_fault       corrupt one element of every wsgemm result
 *                              before the check: every wsgemm row must then
 *                              report an error (proves the check can fail)
 *   --wsgemm_seed=N            input seed (default 1)
 *   --wsgemm_context=KEY=VALUE add KEY to the report context (e.g. the driver)
 * Without a GPU, --benchmark_list_tests lists every benchmark the build holds;
 * asked to run, the program says on stderr that there is no device and exits
 * 0 (it has measured nothing and written no report; tools/README.md).
 *
 * Exit status: 0 (also: no CUDA device); 2 bad arguments (a malformed number,
 * an unknown option, named on stderr); 3 a wrong result (ERROR rows say
 * which); 4 the device failed (a kernel fault: every row after it is an
 * error, the JSON is still complete); 5 the filter matched nothing.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "cli.h"
#include "gbench_shim.h"
#include "testing.h"

/* Which forced paths this build of the library holds (from CMake). */
#ifndef BENCH_HAS_SM90
#define BENCH_HAS_SM90 0
#endif
#ifndef BENCH_HAS_SM100
#define BENCH_HAS_SM100 0
#endif
#ifndef BENCH_HAS_SM100_EMULATED
#define BENCH_HAS_SM100_EMULATED 0
#endif

enum {
    MAX_SETS = 64,           /* rotation sets per shape (1000^3 needs 21) */
    WARMUP_CALLS = 3,        /* untimed calls per library before each benchmark's rounds */
    HOST_REPS = 10,          /* wall-clock timed calls per library for host_us */
    DEFAULT_ROUNDS = 20,     /* --wsgemm_rounds */
    EMULATED_MAX_DIM = 1024, /* the emulated path runs on shapes up to this only */
    PROBE_DIM = 512          /* the probe call that tells which forced paths run here */
};
static const size_t LT_WORKSPACE_BYTES = (size_t)32 << 20;

/* ---------------------------------------------------------------- implementations */

typedef enum impl_id {
    IMPL_CUBLAS,
    IMPL_CUBLASLT,
    IMPL_WS_AUTO,
    IMPL_WS_GENERIC,
    IMPL_WS_SM90,
    IMPL_WS_SM100,
    IMPL_WS_SM100_EMULATED,
    IMPL_COUNT
} impl_id;

typedef struct impl_info {
    const char *name; /* in the benchmark name */
    wsgemm_path path; /* the path forced on the handle (wsgemm implementations) */
} impl_info;

static const impl_info IMPLS[IMPL_COUNT] = {
    [IMPL_CUBLAS] = {"cublas", WSGEMM_PATH_NONE},
    [IMPL_CUBLASLT] = {"cublaslt", WSGEMM_PATH_NONE},
    [IMPL_WS_AUTO] = {"wsgemm_auto", WSGEMM_PATH_AUTO},
    [IMPL_WS_GENERIC] = {"wsgemm_generic", WSGEMM_PATH_GENERIC},
    [IMPL_WS_SM90] = {"wsgemm_sm90", WSGEMM_PATH_SM90},
    [IMPL_WS_SM100] = {"wsgemm_sm100", WSGEMM_PATH_SM100},
    [IMPL_WS_SM100_EMULATED] = {"wsgemm_sm100_emulated", WSGEMM_PATH_SM100_EMULATED},
};

static int impl_is_wsgemm(impl_id id)
{
    return id >= IMPL_WS_AUTO;
}

/* ---------------------------------------------------------------- suites */

typedef struct shape {
    wsgemm_op ta, tb;
    int m, n, k, batch;
    wsgemm_dtype ab, c;
    int beta; /* 0 or 1 (an integer so it can be a benchmark argument) */
} shape;

#define BF16 WSGEMM_R_16BF
#define F16  WSGEMM_R_16F
#define F32  WSGEMM_R_32F
#define OPN  WSGEMM_OP_N
#define OPT  WSGEMM_OP_T
/* NN, bf16 in and out: the common case */
#define MNK(m, n, k)                              \
    {                                             \
        OPN, OPN, (m), (n), (k), 1, BF16, BF16, 0 \
    }
#define SQUARE(s) MNK(s, s, s)
#define BETA1(m, n, k)                            \
    {                                             \
        OPN, OPN, (m), (n), (k), 1, BF16, BF16, 1 \
    }
#define F32C(m, n, k, beta)                           \
    {                                                 \
        OPN, OPN, (m), (n), (k), 1, BF16, F32, (beta) \
    }

/* 1024..16384 in steps of 1024, and the wave-quantization dips of 132 SMs (2560, 2688, 2816). */
static const shape SUITE_SQUARE[] = {SQUARE(1024),  SQUARE(2048),  SQUARE(2560),  SQUARE(2688),  SQUARE(2816),
                                     SQUARE(3072),  SQUARE(4096),  SQUARE(5120),  SQUARE(6144),  SQUARE(7168),
                                     SQUARE(8192),  SQUARE(9216),  SQUARE(10240), SQUARE(11264), SQUARE(12288),
                                     SQUARE(13312), SQUARE(14336), SQUARE(15360), SQUARE(16384)};
/* LLM projections: m = 4096 or 8192 tokens, n and k from 4096, 8192, 14336, 28672; small K where the
 * epilogue dominates; a ragged shape. */
#define LLM_ROW(m, n) MNK(m, n, 4096), MNK(m, n, 8192), MNK(m, n, 14336), MNK(m, n, 28672)
static const shape SUITE_LLM[] = {LLM_ROW(4096, 4096),  LLM_ROW(4096, 8192),  LLM_ROW(4096, 14336),
                                  LLM_ROW(4096, 28672), LLM_ROW(8192, 4096),  LLM_ROW(8192, 8192),
                                  LLM_ROW(8192, 14336), LLM_ROW(8192, 28672), MNK(8192, 8192, 1024),
                                  MNK(8192, 8192, 512), MNK(5000, 7000, 3000)};
/* Decode: few rows against a large weight, m = 1..256 with n = k = 8192 and with n = 4096, k = 14336. */
#define DECODE(n, k)                                                                                     \
    MNK(1, n, k), MNK(2, n, k), MNK(4, n, k), MNK(8, n, k), MNK(16, n, k), MNK(32, n, k), MNK(64, n, k), \
        MNK(128, n, k), MNK(256, n, k)
static const shape SUITE_DECODE[] = {DECODE(8192, 8192), DECODE(4096, 14336)};
/* C read: beta = 1 on shapes the square and llm suites time with beta = 0. */
static const shape SUITE_BETA1[] = {BETA1(2048, 2048, 2048),  BETA1(4096, 4096, 4096), BETA1(8192, 8192, 8192),
                                    BETA1(4096, 14336, 4096), BETA1(8192, 8192, 1024), BETA1(16384, 16384, 16384)};
/* fp32 C, beta 0 and 1. */
static const shape SUITE_F32C[] = {F32C(4096, 4096, 4096, 0), F32C(8192, 8192, 8192, 0), F32C(4096, 14336, 4096, 0),
                                   F32C(8192, 8192, 1024, 0), F32C(4096, 4096, 4096, 1), F32C(8192, 8192, 8192, 1)};
/* 4099: leading dimensions not 16-byte aligned (TMA cannot load them); 1000: no tile divides it. */
static const shape SUITE_UNALIGNED[] = {SQUARE(4099), SQUARE(1000)};
/* Strided batched: many small GEMMs, and attention scores (Q^T K, head dim 128). */
static const shape SUITE_BATCHED[] = {{OPN, OPN, 1024, 1024, 1024, 16, BF16, BF16, 0},
                                      {OPN, OPN, 2048, 2048, 2048, 8, BF16, BF16, 0},
                                      {OPN, OPN, 512, 512, 512, 64, BF16, BF16, 0},
                                      {OPT, OPN, 2048, 2048, 128, 32, BF16, BF16, 0}};
static const shape SUITE_OPS[] = {{OPN, OPN, 8192, 8192, 8192, 1, BF16, BF16, 0},
                                  {OPN, OPT, 8192, 8192, 8192, 1, BF16, BF16, 0},
                                  {OPT, OPN, 8192, 8192, 8192, 1, BF16, BF16, 0},
                                  {OPT, OPT, 8192, 8192, 8192, 1, BF16, BF16, 0}};
static const shape SUITE_TYPES[] = {{OPN, OPN, 8192, 8192, 8192, 1, BF16, BF16, 0},
                                    {OPN, OPN, 8192, 8192, 8192, 1, BF16, F32, 0},
                                    {OPN, OPN, 8192, 8192, 8192, 1, F16, F16, 0},
                                    {OPN, OPN, 8192, 8192, 8192, 1, F16, F32, 0}};
/* The grid: every (m, n, k) of these sizes (log-spaced 512..16384, and two ragged values). */
static const int GRID_SIZES[] = {512, 1000, 1024, 2048, 4096, 5000, 8192, 16384};
enum { GRID_N = (int)(sizeof GRID_SIZES / sizeof GRID_SIZES[0]) };
static shape SUITE_GRID[GRID_N * GRID_N * GRID_N];

typedef struct suite {
    const char *name;
    const shape *shapes;
    int count;
    int auto_only; /* 1: only wsgemm_auto (each of its rows carries cuBLAS's time of the same rounds) */
} suite;

#define SUITE(name, array, auto_only)                                 \
    {                                                                 \
        name, array, (int)(sizeof array / sizeof array[0]), auto_only \
    }
static const suite SUITES[] = {SUITE("square", SUITE_SQUARE, 0),   SUITE("llm", SUITE_LLM, 0),
                               SUITE("decode", SUITE_DECODE, 0),   SUITE("beta1", SUITE_BETA1, 0),
                               SUITE("f32c", SUITE_F32C, 0),       SUITE("unaligned", SUITE_UNALIGNED, 0),
                               SUITE("batched", SUITE_BATCHED, 0), SUITE("ops", SUITE_OPS, 0),
                               SUITE("types", SUITE_TYPES, 0),     SUITE("grid", SUITE_GRID, 1)};
enum { SUITE_COUNT = (int)(sizeof SUITES / sizeof SUITES[0]) };

static void make_grid(void)
{
    int i = 0;
    for (int a = 0; a < GRID_N; ++a)
        for (int b = 0; b < GRID_N; ++b)
            for (int c = 0; c < GRID_N; ++c) {
                const shape s = MNK(GRID_SIZES[a], GRID_SIZES[b], GRID_SIZES[c]);
                SUITE_GRID[i++] = s;
            }
}

/* One registered benchmark: a shape of a suite on one implementation. */
typedef struct bench_case {
    const char *suite;
    shape s;
    impl_id impl;
} bench_case;

/* ---------------------------------------------------------------- one shape's data, kept while its benchmarks run */

typedef struct lt_plan {
    int state; /* 0: not tried, 1: ready, -1: cuBLASLt has no algorithm (why says so) */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulAlgo_t algo;
    char why[200];
} lt_plan;

typedef struct problem {
    testing_gemm g; /* resolved: tight leading dimensions and strides */
    size_t elems_a, elems_b, elems_c;
    int nsets;
    void *A[MAX_SETS], *B[MAX_SETS];
    void *C[MAX_SETS];        /* wsgemm's outputs */
    void *C_cublas[MAX_SETS]; /* cuBLAS's and cuBLASLt's: neither library reads what the other wrote */
    void *C0;                 /* beta != 0: the C every check starts from; NULL: NaN poison */
    float *ref;               /* device: cuBLAS, fp32 output, tight m x n per batch */
    double flops, min_bytes;
    int checked[IMPL_COUNT]; /* 0: not yet, 1: passed, -1: failed (message says why) */
    char message[IMPL_COUNT][320];
    wsgemm_path ran[IMPL_COUNT];
    lt_plan lt;
} problem;

/* ---------------------------------------------------------------- process-wide state */

typedef struct bench_globals {
    int emulated, plant_fault, rounds;
    unsigned long long seed;
    int enabled[IMPL_COUNT];
    wsgemm_handle ws;
    cublasHandle_t cublas;
    cublasLtHandle_t lt;
    void *lt_workspace;
    int l2_bytes;
    problem *current;
    double *round_ms;  /* every round's GPU ms of the current benchmark, library-major */
    int wrong_results; /* correctness failures: exit status 3 */
    /* Set by the first failed synchronization (a kernel fault is sticky: the
     * context is lost). Every later benchmark is then reported as an error at
     * once, so the run still ends normally with a complete JSON; exit 4. */
    char device_error[320];
} bench_globals;

static bench_globals G = {.seed = 1, .rounds = DEFAULT_ROUNDS};

/* ---------------------------------------------------------------- small helpers */

/* A synchronization reported `err` (a fault of some earlier kernel): remember
 * it as the device's state. Returns 0 so callers can `return device_lost(..)`. */
static int device_lost(cudaError_t err, const char *where, const char *impl)
{
    if (!G.device_error[0])
        snprintf(G.device_error, sizeof G.device_error,
                 "skipped: the device failed (%s: %s, %s, after %s); nothing after that can be measured", where,
                 cudaGetErrorName(err), cudaGetErrorString(err), impl);
    fprintf(stderr, "wsgemm-bench: %s: %s (%s) after %s\n", where, cudaGetErrorName(err), cudaGetErrorString(err),
            impl);
    return 0;
}

static char op_char(wsgemm_op op)
{
    return op == WSGEMM_OP_N ? 'N' : 'T';
}

static int max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

static int same_problem(const testing_gemm *x, const testing_gemm *y)
{
    return x->transa == y->transa && x->transb == y->transb && x->m == y->m && x->n == y->n && x->k == y->k &&
           x->batch == y->batch && x->ab_type == y->ab_type && x->c_type == y->c_type && x->beta == y->beta;
}

/* Where implementation `id` writes C for input set `set`. */
static void *output_of(impl_id id, const problem *p, int set)
{
    return impl_is_wsgemm(id) ? p->C[set] : p->C_cublas[set];
}

/* ---------------------------------------------------------------- cuBLASLt plan */

static void lt_plan_destroy(lt_plan *p)
{
    if (p->op) cublasLtMatmulDescDestroy(p->op);
    if (p->a) cublasLtMatrixLayoutDestroy(p->a);
    if (p->b) cublasLtMatrixLayoutDestroy(p->b);
    if (p->c) cublasLtMatrixLayoutDestroy(p->c);
    memset(p, 0, sizeof *p);
}

static cublasStatus_t lt_layout(cublasLtMatrixLayout_t *layout, wsgemm_dtype type, int rows, int cols, int ld,
                                int batch, long long stride)
{
    cublasStatus_t s = cublasLtMatrixLayoutCreate(layout, (cudaDataType_t)type, (uint64_t)rows, (uint64_t)cols, ld);
    if (s == CUBLAS_STATUS_SUCCESS && batch > 1) {
        int32_t count = batch;
        int64_t offset = stride;
        s = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
        if (s == CUBLAS_STATUS_SUCCESS)
            s = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                                                 sizeof offset);
    }
    return s;
}

/* Descriptors and the best heuristic algorithm for the problem, once per shape. */
static int lt_prepare(problem *p)
{
    lt_plan *plan = &p->lt;
    if (plan->state != 0) return plan->state > 0;
    const testing_gemm *g = &p->g;
    cublasOperation_t ta = (cublasOperation_t)g->transa, tb = (cublasOperation_t)g->transb;
    int a_rows = g->transa == WSGEMM_OP_N ? g->m : g->k, a_cols = g->transa == WSGEMM_OP_N ? g->k : g->m;
    int b_rows = g->transb == WSGEMM_OP_N ? g->k : g->n, b_cols = g->transb == WSGEMM_OP_N ? g->n : g->k;
    cublasLtMatmulPreference_t pref = NULL;
    uint64_t workspace = LT_WORKSPACE_BYTES;
    cublasLtMatmulHeuristicResult_t result;
    int returned = 0;
    const char *step = "cublasLtMatmulDescCreate";
    cublasStatus_t s = cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    if (s == CUBLAS_STATUS_SUCCESS) {
        step = "cublasLtMatrixLayoutCreate";
        s = lt_layout(&plan->a, g->ab_type, a_rows, a_cols, g->lda, g->batch, g->strideA);
    }
    if (s == CUBLAS_STATUS_SUCCESS) s = lt_layout(&plan->b, g->ab_type, b_rows, b_cols, g->ldb, g->batch, g->strideB);
    if (s == CUBLAS_STATUS_SUCCESS) s = lt_layout(&plan->c, g->c_type, g->m, g->n, g->ldc, g->batch, g->strideC);
    if (s == CUBLAS_STATUS_SUCCESS) {
        step = "cublasLtMatmulPreference";
        s = cublasLtMatmulPreferenceCreate(&pref);
    }
    if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                 sizeof workspace);
    if (s == CUBLAS_STATUS_SUCCESS) {
        step = "cublasLtMatmulAlgoGetHeuristic";
        s = cublasLtMatmulAlgoGetHeuristic(G.lt, plan->op, plan->a, plan->b, plan->c, plan->c, pref, 1, &result,
                                           &returned);
    }
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (s != CUBLAS_STATUS_SUCCESS || returned == 0) {
        char why[sizeof plan->why];
        if (s != CUBLAS_STATUS_SUCCESS)
            snprintf(why, sizeof why, "cuBLASLt: %s failed: %s", step, cublasLtGetStatusName(s));
        else
            snprintf(why, sizeof why, "cuBLASLt: no algorithm for this problem within a %zu MB workspace",
                     LT_WORKSPACE_BYTES >> 20);
        lt_plan_destroy(plan);
        snprintf(plan->why, sizeof plan->why, "%s", why);
        plan->state = -1;
        return 0;
    }
    plan->algo = result.algo;
    plan->state = 1;
    return 1;
}

/* ---------------------------------------------------------------- one call of an implementation on input set `set` */

static int launch(impl_id id, problem *p, int set, char *why, size_t why_size)
{
    const testing_gemm *g = &p->g;
    const void *A = p->A[set], *B = p->B[set];
    void *C = output_of(id, p, set);
    cudaDataType_t ab = (cudaDataType_t)g->ab_type, c = (cudaDataType_t)g->c_type;
    cublasStatus_t cs;
    switch (id) {
    case IMPL_CUBLAS:
        if (g->batch == 1)
            cs = cublasGemmEx(G.cublas, (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, g->m, g->n, g->k,
                              &g->alpha, A, ab, g->lda, B, ab, g->ldb, &g->beta, C, c, g->ldc, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT);
        else
            cs = cublasGemmStridedBatchedEx(G.cublas, (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, g->m,
                                            g->n, g->k, &g->alpha, A, ab, g->lda, g->strideA, B, ab, g->ldb, g->strideB,
                                            &g->beta, C, c, g->ldc, g->strideC, g->batch, CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT);
        if (cs != CUBLAS_STATUS_SUCCESS) {
            snprintf(why, why_size, "cuBLAS: %s", cublasGetStatusName(cs));
            return 0;
        }
        return 1;
    case IMPL_CUBLASLT:
        if (!lt_prepare(p)) {
            snprintf(why, why_size, "%s", p->lt.why);
            return 0;
        }
        cs = cublasLtMatmul(G.lt, p->lt.op, &g->alpha, A, p->lt.a, B, p->lt.b, &g->beta, C, p->lt.c, C, p->lt.c,
                            &p->lt.algo, G.lt_workspace, LT_WORKSPACE_BYTES, 0);
        if (cs != CUBLAS_STATUS_SUCCESS) {
            snprintf(why, why_size, "cuBLASLt: cublasLtMatmul: %s", cublasLtGetStatusName(cs));
            return 0;
        }
        return 1;
    default: {
        wsgemm_status s;
        if (g->batch == 1)
            s = wsgemm_gemm_ex(G.ws, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, A, g->ab_type, g->lda, B,
                               g->ab_type, g->ldb, &g->beta, C, g->c_type, g->ldc);
        else
            s = wsgemm_gemm_strided_batched_ex(G.ws, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, A, g->ab_type,
                                               g->lda, g->strideA, B, g->ab_type, g->ldb, g->strideB, &g->beta, C,
                                               g->c_type, g->ldc, g->strideC, g->batch);
        if (s != WSGEMM_STATUS_SUCCESS) {
            snprintf(why, why_size, "%s: %s", wsgemm_status_string(s), wsgemm_get_last_error_message(G.ws));
            return 0;
        }
        return 1;
    }
    }
}

/* ---------------------------------------------------------------- shape data */

static void problem_destroy(problem *p)
{
    if (!p) return;
    cudaDeviceSynchronize();
    for (int s = 0; s < p->nsets; ++s) {
        cudaFree(p->A[s]);
        cudaFree(p->B[s]);
        cudaFree(p->C[s]);
        cudaFree(p->C_cublas[s]);
    }
    cudaFree(p->C0);
    cudaFree(p->ref);
    lt_plan_destroy(&p->lt);
    free(p);
}

/* C of set 0 as a check starts: NaN (beta == 0: C must not be read), or the uniform C0 (beta != 0). */
static void reset_output(problem *p, void *c)
{
    size_t bytes = p->elems_c * (size_t)testing_dtype_bytes(p->g.c_type);
    if (p->C0)
        CUDA_CHECK(cudaMemcpy(c, p->C0, bytes, cudaMemcpyDeviceToDevice));
    else
        CUDA_CHECK(cudaMemset(c, 0xFF, bytes)); /* NaN in every output type */
}

static problem *problem_create(const testing_gemm *want)
{
    problem *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->g = *want;
    testing_gemm_resolve(&p->g);
    const testing_gemm *g = &p->g;
    p->elems_a = testing_gemm_elems_a(g);
    p->elems_b = testing_gemm_elems_b(g);
    p->elems_c = testing_gemm_elems_c(g);

    size_t ab = (size_t)testing_dtype_bytes(g->ab_type), cb = (size_t)testing_dtype_bytes(g->c_type);
    double set_bytes = (double)(p->elems_a + p->elems_b) * ab + (double)p->elems_c * cb;
    int nsets = (int)(2.0 * G.l2_bytes / set_bytes) + 1; /* nsets * set_bytes > 2 * L2 */
    if (nsets < 2) nsets = 2;                            /* never the same set twice in a row */
    if (nsets > MAX_SETS) nsets = MAX_SETS;
    p->nsets = nsets;
    for (int s = 0; s < nsets; ++s) {
        CUDA_CHECK(cudaMalloc(&p->A[s], p->elems_a * ab));
        CUDA_CHECK(cudaMalloc(&p->B[s], p->elems_b * ab));
        CUDA_CHECK(cudaMalloc(&p->C[s], p->elems_c * cb));
        CUDA_CHECK(cudaMalloc(&p->C_cublas[s], p->elems_c * cb));
        testing_device_fill_uniform(g->ab_type, p->A[s], p->elems_a, G.seed * 1000 + 2 * (uint64_t)s);
        testing_device_fill_uniform(g->ab_type, p->B[s], p->elems_b, G.seed * 1000 + 2 * (uint64_t)s + 1);
    }
    if (g->beta != 0.0f) {
        CUDA_CHECK(cudaMalloc(&p->C0, p->elems_c * cb));
        testing_device_fill_uniform(g->c_type, p->C0, p->elems_c, G.seed * 1000 + 999);
    }
    for (int s = 0; s < nsets; ++s) {
        reset_output(p, p->C[s]);
        reset_output(p, p->C_cublas[s]);
    }

    /* the reference: cuBLAS on set 0 with fp32 output, starting from C0 as fp32 */
    size_t total = (size_t)g->batch * (size_t)g->m * (size_t)g->n;
    CUDA_CHECK(cudaMalloc((void **)&p->ref, (total ? total : 1) * sizeof(float)));
    if (p->C0)
        testing_device_c_to_f32(g, p->C0, p->ref);
    else
        CUDA_CHECK(cudaMemset(p->ref, 0, total * sizeof(float)));
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        G.cublas, (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, g->m, g->n, g->k, &g->alpha, p->A[0],
        (cudaDataType_t)g->ab_type, g->lda, g->strideA, p->B[0], (cudaDataType_t)g->ab_type, g->ldb, g->strideB,
        &g->beta, p->ref, CUDA_R_32F, g->m, (long long)g->m * g->n, g->batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaDeviceSynchronize());

    double batch = (double)g->batch;
    p->flops = 2.0 * g->m * (double)g->n * g->k * batch;
    double a_bytes = (double)g->m * g->k * ab * (g->strideA == 0 ? 1.0 : batch);
    double b_bytes = (double)g->k * g->n * ab * (g->strideB == 0 ? 1.0 : batch);
    double c_bytes = (double)g->m * g->n * cb * batch * (g->beta != 0.0f ? 2.0 : 1.0);
    p->min_bytes = a_bytes + b_bytes + c_bytes;
    return p;
}

/* The data of this shape: the cached one, or made now (the previous shape's freed). */
static problem *problem_for(const testing_gemm *want)
{
    if (G.current && same_problem(&G.current->g, want)) return G.current;
    problem_destroy(G.current);
    G.current = problem_create(want);
    return G.current;
}

/* ---------------------------------------------------------------- correctness, once per shape and implementation */

static int check_impl(impl_id id, problem *p)
{
    if (p->checked[id]) return p->checked[id] > 0;
    char *msg = p->message[id];
    const size_t msg_size = sizeof p->message[id];
    char why[256] = "";
    const testing_gemm *g = &p->g;
    wsgemm_path forced = IMPLS[id].path;
    void *out = output_of(id, p, 0);
    p->ran[id] = WSGEMM_PATH_NONE;

    reset_output(p, out); /* unwritten elements cannot pass */
    if (impl_is_wsgemm(id)) WSGEMM_CHECK(wsgemm_set_path(G.ws, forced));
    int ok = launch(id, p, 0, why, sizeof why);
    cudaError_t err = cudaDeviceSynchronize();
    if (!ok) {
        snprintf(msg, msg_size, "not run: %s", why);
    } else if (err != cudaSuccess) {
        ok = 0;
        snprintf(msg, msg_size, "CUDA error after the call: %s (%s)", cudaGetErrorName(err), cudaGetErrorString(err));
        device_lost(err, "correctness check", IMPLS[id].name);
        G.wrong_results++;
    }
    if (ok && impl_is_wsgemm(id)) {
        WSGEMM_CHECK(wsgemm_get_last_path(G.ws, &p->ran[id]));
        if (forced != WSGEMM_PATH_AUTO && p->ran[id] != forced) {
            ok = 0;
            snprintf(msg, msg_size, "path %s ran although %s was forced", wsgemm_path_name(p->ran[id]),
                     wsgemm_path_name(forced));
            G.wrong_results++;
        }
    }
    if (ok) {
        if (G.plant_fault && impl_is_wsgemm(id)) { /* C(m/2, n/2) of the last batch made plainly wrong */
            size_t at = (size_t)(g->batch - 1) * (size_t)g->strideC + (size_t)(g->m / 2) + (size_t)(g->n / 2) * g->ldc;
            unsigned char value[4];
            testing_store(g->c_type, value, 0, 1000.0f);
            CUDA_CHECK(cudaMemcpy((char *)out + at * (size_t)testing_dtype_bytes(g->c_type), value,
                                  (size_t)testing_dtype_bytes(g->c_type), cudaMemcpyHostToDevice));
        }
        char label[96];
        snprintf(label, sizeof label, "%s%s%s", IMPLS[id].name, impl_is_wsgemm(id) ? " path=" : "",
                 impl_is_wsgemm(id) ? wsgemm_path_name(p->ran[id]) : "");
        testing_report r = testing_device_check(g, out, p->ref, testing_tolerance_for(g->c_type), label);
        if (!r.passed) {
            ok = 0;
            snprintf(msg, msg_size,
                     "WRONG RESULT vs cuBLAS: %zu of %zu elements off, %zu NaN, relative Frobenius error %.3g "
                     "(first mismatch on stderr)",
                     r.mismatches, r.checked, r.nan_count, r.rel_fro);
            G.wrong_results++;
        }
    }
    p->checked[id] = ok ? 1 : -1;
    return ok;
}

/* ---------------------------------------------------------------- timing */

typedef struct timed_impl {
    impl_id id;
    problem *p;
    char why[256];
} timed_impl;

/* testing_timed_call: implementation `id` on input set i % nsets (the handle's path is set by the caller) */
static int timed_launch(void *ctx, int i)
{
    timed_impl *t = ctx;
    return launch(t->id, t->p, i % t->p->nsets, t->why, sizeof t->why) ? 0 : 1;
}

/* ---------------------------------------------------------------- the benchmark body */

static void bench_gemm(gbench_state *st, void *user)
{
    const bench_case *bc = user;
    if (G.device_error[0]) {
        gbench_skip_with_error(st, G.device_error);
        return;
    }
    const int beta_arg = 3 + (bc->s.batch > 1);
    testing_gemm want = {
        .transa = bc->s.ta,
        .transb = bc->s.tb,
        .m = (int)gbench_arg(st, 0),
        .n = (int)gbench_arg(st, 1),
        .k = (int)gbench_arg(st, 2),
        .strideA = -1,
        .strideB = -1,
        .strideC = -1,
        .batch = bc->s.batch > 1 ? (int)gbench_arg(st, 3) : 1,
        .alpha = 1.0f,
        .beta = bc->s.beta ? (float)gbench_arg(st, beta_arg) : 0.0f,
        .ab_type = bc->s.ab,
        .c_type = bc->s.c,
    };
    problem *p = problem_for(&want);
    if (!p) {
        gbench_skip_with_error(st, "out of host memory for this shape");
        return;
    }
    const impl_id id = bc->impl;
    if (!check_impl(id, p) || (id != IMPL_CUBLAS && !check_impl(IMPL_CUBLAS, p))) {
        gbench_skip_with_error(st, p->checked[id] < 0 ? p->message[id] : p->message[IMPL_CUBLAS]);
        return;
    }

    /* R rounds: this implementation and cuBLAS (unless it is cuBLAS), the stream held, order alternating */
    const int rounds = (int)gbench_max_iterations(st);
    double *round_ms = realloc(G.round_ms, sizeof(double) * (size_t)rounds * 2);
    if (!round_ms) {
        gbench_skip_with_error(st, "out of host memory for the timings");
        return;
    }
    G.round_ms = round_ms;
    timed_impl self = {id, p, ""}, ref = {IMPL_CUBLAS, p, ""};
    const testing_timed_lib libs[2] = {{IMPLS[id].name, timed_launch, &self}, {"cublas", timed_launch, &ref}};
    const int nlibs = id == IMPL_CUBLAS ? 1 : 2;
    const testing_timing_options opt = {
        .warmup = WARMUP_CALLS, .rounds = rounds, .host_reps = HOST_REPS, .round_ms = round_ms};
    testing_timing t;
    if (impl_is_wsgemm(id)) WSGEMM_CHECK(wsgemm_set_path(G.ws, IMPLS[id].path));
    const int timed = testing_time_interleaved(libs, nlibs, 0, &opt, &t) == 0;
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        device_lost(err, "timing", IMPLS[id].name);
        gbench_skip_with_error(st, G.device_error);
        return;
    }
    if (!timed) {
        gbench_skip_with_error(st, self.why[0] ? self.why : ref.why);
        return;
    }
    if (impl_is_wsgemm(id)) { /* the label names the path that ran while timed: the one that was checked */
        wsgemm_path ran = WSGEMM_PATH_NONE;
        WSGEMM_CHECK(wsgemm_get_last_path(G.ws, &ran));
        if (ran != p->ran[id]) {
            char why[160];
            snprintf(why, sizeof why, "path %s was timed but path %s was checked", wsgemm_path_name(ran),
                     wsgemm_path_name(p->ran[id]));
            gbench_skip_with_error(st, why);
            return;
        }
    }
    for (int r = 0; gbench_keep_running(st); ++r) gbench_set_iteration_time(st, round_ms[r] * 1e-3);

    const double median_s = t.lib[0].gpu_ms * 1e-3, cublas_s = t.lib[nlibs - 1].gpu_ms * 1e-3;
    gbench_set_counter(st, "TFLOPS", p->flops / median_s * 1e-12, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "GBps", p->min_bytes / median_s * 1e-9, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "vs_cublas", cublas_s / median_s, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "cublas_TFLOPS", p->flops / cublas_s * 1e-12, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "host_us", t.lib[0].host_us, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "cublas_host_us", t.lib[nlibs - 1].host_us, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "held", (double)t.held_rounds / t.rounds, GBENCH_COUNTER_DEFAULT);
    char label[96];
    if (impl_is_wsgemm(id)) {
        gbench_set_counter(st, "path", (double)p->ran[id], GBENCH_COUNTER_DEFAULT);
        snprintf(label, sizeof label, "path=%s", wsgemm_path_name(p->ran[id]));
    } else {
        snprintf(label, sizeof label, "%s",
                 id == IMPL_CUBLASLT ? "cublasLtMatmul"
                 : p->g.batch > 1    ? "cublasGemmStridedBatchedEx"
                                     : "cublasGemmEx");
    }
    gbench_set_label(st, label);
}

/* ---------------------------------------------------------------- start-up: device, paths, registration */

static void add_context_int(const char *key, long long value)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", value);
    gbench_add_context(key, text);
}

static void device_setup(void)
{
    int dev = 0;
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&G.l2_bytes, cudaDevAttrL2CacheSize, dev));
    WSGEMM_CHECK(wsgemm_create(&G.ws));
    CUBLAS_CHECK(cublasCreate(&G.cublas));
    CUBLAS_CHECK(cublasLtCreate(&G.lt));
    CUDA_CHECK(cudaMalloc(&G.lt_workspace, LT_WORKSPACE_BYTES));

    int driver = 0, runtime = 0, cublas_version = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cublasGetVersion(G.cublas, &cublas_version);
    char text[128];
    gbench_add_context("gpu", prop.name);
    snprintf(text, sizeof text, "%d.%d", prop.major, prop.minor);
    gbench_add_context("compute_capability", text);
    add_context_int("sm_count", prop.multiProcessorCount);
    add_context_int("l2_bytes", G.l2_bytes);
    add_context_int("global_memory_bytes", (long long)prop.totalGlobalMem);
    snprintf(text, sizeof text, "%d.%d", driver / 1000, (driver % 1000) / 10);
    gbench_add_context("cuda_driver_api", text);
    snprintf(text, sizeof text, "%d.%d", runtime / 1000, (runtime % 1000) / 10);
    gbench_add_context("cuda_runtime", text);
    add_context_int("cublas_version", cublas_version);
    snprintf(text, sizeof text, "%d.%d", WSGEMM_VERSION_MAJOR, WSGEMM_VERSION_MINOR);
    gbench_add_context("wsgemm_version", text);
    gbench_add_context("timing", "GPU time: CUDA events around each call, the stream held by a spin kernel while "
                                 "this implementation's and cuBLAS's calls are queued, order alternating each round; "
                                 "counters from the medians of the rounds; host us per call measured apart; input "
                                 "sets rotated past 2x L2; correctness checked against cuBLAS first");
    printf("bench: %s (cc %d.%d, %d SMs, L2 %d MB), CUDA runtime %d.%d, cuBLAS %d\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, G.l2_bytes >> 20, runtime / 1000, (runtime % 1000) / 10, cublas_version);
}

/* Does the device run a forced path? One small GEMM says (ARCH_MISMATCH: no). */
static int probe_path(wsgemm_path path)
{
    const int d = PROBE_DIM;
    void *A = NULL, *B = NULL, *C = NULL;
    size_t bytes = (size_t)d * d * 2;
    CUDA_CHECK(cudaMalloc(&A, bytes));
    CUDA_CHECK(cudaMalloc(&B, bytes));
    CUDA_CHECK(cudaMalloc(&C, bytes));
    CUDA_CHECK(cudaMemset(A, 0, bytes));
    CUDA_CHECK(cudaMemset(B, 0, bytes));
    const float alpha = 1.0f, beta = 0.0f;
    WSGEMM_CHECK(wsgemm_set_path(G.ws, path));
    wsgemm_status s = wsgemm_gemm_ex(G.ws, WSGEMM_OP_N, WSGEMM_OP_N, d, d, d, &alpha, A, WSGEMM_R_16BF, d, B,
                                     WSGEMM_R_16BF, d, &beta, C, WSGEMM_R_16BF, d);
    cudaError_t err = cudaDeviceSynchronize();
    if (s != WSGEMM_STATUS_SUCCESS)
        printf("bench: path %s: the probe call returned %s (%s)%s\n", wsgemm_path_name(path), wsgemm_status_string(s),
               wsgemm_get_last_error_message(G.ws),
               s == WSGEMM_STATUS_ARCH_MISMATCH ? ": not benchmarked on this device" : ": benchmarked anyway");
    if (err != cudaSuccess) {
        fprintf(stderr, "bench: path %s: the probe call failed on the device: %s\n", wsgemm_path_name(path),
                cudaGetErrorString(err));
        exit(1); /* a sticky error: nothing after it could be measured */
    }
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return s != WSGEMM_STATUS_ARCH_MISMATCH;
}

static void choose_implementations(int have_gpu)
{
    G.enabled[IMPL_CUBLAS] = G.enabled[IMPL_CUBLASLT] = 1;
    G.enabled[IMPL_WS_AUTO] = G.enabled[IMPL_WS_GENERIC] = 1;
    G.enabled[IMPL_WS_SM90] = BENCH_HAS_SM90;
    G.enabled[IMPL_WS_SM100] = BENCH_HAS_SM100;
    G.enabled[IMPL_WS_SM100_EMULATED] = BENCH_HAS_SM100_EMULATED && G.emulated;
    if (!have_gpu) return; /* listing only: everything the build holds */
    for (int id = IMPL_WS_GENERIC; id < IMPL_COUNT; ++id)
        if (G.enabled[id]) G.enabled[id] = probe_path(IMPLS[id].path);
    char text[160] = "";
    for (int id = 0; id < IMPL_COUNT; ++id)
        if (G.enabled[id]) {
            strncat(text, IMPLS[id].name, sizeof text - strlen(text) - 2);
            strncat(text, " ", sizeof text - strlen(text) - 1);
        }
    gbench_add_context("implementations", text);
    if (BENCH_HAS_SM100_EMULATED && !G.emulated)
        printf("bench: the sm100_emulated path is built but not benchmarked (add --wsgemm_emulated)\n");
}

static bench_case *register_all(void)
{
    int total = 0;
    for (int s = 0; s < SUITE_COUNT; ++s) total += SUITES[s].count * IMPL_COUNT;
    bench_case *cases = calloc((size_t)total, sizeof *cases);
    if (!cases) return NULL;
    int used = 0;
    for (int s = 0; s < SUITE_COUNT; ++s) {
        for (int i = 0; i < SUITES[s].count; ++i) {
            const shape *sh = &SUITES[s].shapes[i];
            for (int id = 0; id < IMPL_COUNT; ++id) {
                if (!G.enabled[id]) continue;
                if (SUITES[s].auto_only && id != IMPL_WS_AUTO) continue;
                if (id == IMPL_WS_SM100_EMULATED && max3(sh->m, sh->n, sh->k) > EMULATED_MAX_DIM) continue;
                bench_case *bc = &cases[used++];
                bc->suite = SUITES[s].name;
                bc->s = *sh;
                bc->impl = (impl_id)id;
                char name[128];
                snprintf(name, sizeof name, "%s/%s/%c%c_%s_%s", bc->suite, IMPLS[id].name, op_char(sh->ta),
                         op_char(sh->tb), testing_dtype_name(sh->ab), testing_dtype_name(sh->c));
                const char *arg_names[5] = {"m", "n", "k"};
                int64_t args[5] = {sh->m, sh->n, sh->k};
                int nargs = 3;
                if (sh->batch > 1) {
                    arg_names[nargs] = "batch";
                    args[nargs++] = sh->batch;
                }
                if (sh->beta) {
                    arg_names[nargs] = "beta";
                    args[nargs++] = sh->beta;
                }
                gbench_benchmark *b = gbench_register(name, bench_gemm, bc);
                gbench_args(b, args, nargs);
                gbench_arg_names(b, (const char *const *)arg_names, nargs);
                gbench_fixed_iterations(b, G.rounds); /* one iteration = one round of testing_time_interleaved */
                gbench_use_manual_time(b);
                gbench_unit(b, GBENCH_MICROSECOND);
            }
        }
    }
    return cases;
}

/* ---------------------------------------------------------------- main */

static const char kProg[] = "wsgemm-bench";

static void usage_extra(void)
{
    printf("usage: wsgemm-bench [--wsgemm_* options] [Google Benchmark options]\n"
           "wsgemm-bench: wsgemm vs cuBLAS / cuBLASLt, GPU time side by side. Suites: square llm decode beta1 f32c\n"
           "  unaligned batched ops types grid\n"
           "  (select with --benchmark_filter='^square/' etc.; implementations with '/cublas/', '/wsgemm_auto/')\n"
           "  --wsgemm_rounds=N           timed rounds per benchmark (default %d)\n"
           "  --wsgemm_emulated           also time the sm100_emulated path (shapes <= %d)\n"
           "  --wsgemm_plant_fault        corrupt every wsgemm result before its check (they must all error)\n"
           "  --wsgemm_seed=N             input seed (default 1)\n"
           "  --wsgemm_context=KEY=VALUE  add KEY=VALUE to the report context\n"
           "Google Benchmark's options follow.\n\n",
           DEFAULT_ROUNDS, EMULATED_MAX_DIM);
}

/* Take this program's --wsgemm_* options out of argv (Google Benchmark
 * rejects arguments it does not know). Context pairs are kept for later. */
static int strip_own_options(int *argc, char **argv, const char **contexts, int *ncontexts)
{
    int out = 1;
    for (int i = 1; i < *argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--wsgemm_emulated"))
            G.emulated = 1;
        else if (!strcmp(a, "--wsgemm_plant_fault"))
            G.plant_fault = 1;
        else if (!strncmp(a, "--wsgemm_seed=", 14))
            G.seed = cli_u64(kProg, "--wsgemm_seed", a + 14);
        else if (!strncmp(a, "--wsgemm_rounds=", 16))
            G.rounds = cli_int(kProg, "--wsgemm_rounds", a + 16, 1, INT_MAX);
        else if (!strncmp(a, "--wsgemm_context=", 17) && strchr(a + 17, '='))
            contexts[(*ncontexts)++] = a + 17;
        else if (!strncmp(a, "--wsgemm_", 9))
            cli_fail(kProg, "unknown option %s", a);
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return 1;
}

int main(int argc, char **argv)
{
    const char **contexts = calloc((size_t)argc, sizeof *contexts);
    int ncontexts = 0;
    if (!contexts || !strip_own_options(&argc, argv, contexts, &ncontexts)) return 1;
    if (cli_wants_help(argc, argv)) {
        usage_extra();
        /* and Google Benchmark's own flags; it exits 0 after them (-h is ours alone) */
        char *help[] = {argv[0], "--help", NULL};
        return gbench_main(2, help);
    }

    const int list_only = gbench_wants_list_only(argc, argv);
    const int have_gpu = testing_gpu_count() > 0;
    if (!have_gpu && !list_only) {
        return cli_no_gpu(kProg, "nothing was run and no report written (--benchmark_list_tests lists the "
                                 "benchmarks)");
    }
    if (have_gpu) device_setup();
    for (int i = 0; i < ncontexts; ++i) {
        char key[64];
        const char *eq = strchr(contexts[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - contexts[i]), contexts[i]);
        gbench_add_context(key, eq + 1);
    }
    choose_implementations(have_gpu);
    make_grid();
    bench_case *cases = register_all();
    if (!cases) return 1;

    int rc = gbench_main(argc, argv);

    problem_destroy(G.current);
    if (have_gpu) {
        cudaFree(G.lt_workspace);
        cublasLtDestroy(G.lt);
        cublasDestroy(G.cublas);
        wsgemm_destroy(G.ws);
    }
    free(G.round_ms);
    free(cases);
    free(contexts);
    if (G.device_error[0]) {
        fprintf(stderr, "wsgemm-bench: the device failed during the run; the rows after it are errors: %s\n",
                G.device_error);
        return 4;
    }
    if (rc == 0 && G.wrong_results) {
        fprintf(stderr, "wsgemm-bench: %d implementation/shape pairs gave a WRONG RESULT (see ERROR rows)\n",
                G.wrong_results);
        rc = 3;
    }
    return rc;
}
