// SPDX-License-Identifier: MIT
/*
 * wsgemm_run.c - the main job: one GEMM through the drop-in call, checked
 * against cuBLAS, then timed side by side with cuBLAS.
 *
 *   wsgemm-run [--m 8192] [--n 8192] [--k 8192] [--ta N|T] [--tb N|T]
 *              [--ab bf16|f16] [--c bf16|f16|f32] [--path auto|generic|sm90|sm100|sm100-emulated]
 *              [--batch 1] [--alpha 1] [--beta 0] [--reps 20] [--seed 1]
 *   wsgemm-run ... [--ab e4m3|e5m2] [--b e4m3|e5m2|bf16|f16] [--d bf16|f16|f32|e4m3]
 *              [--epilogue none|relu|bias|relu_bias|gelu|gelu_bias|gelu_aux|gelu_aux_bias] [--bias bf16|f16|f32]
 *              [--scales 0|1|2]
 *     any of these options (or an FP8 --ab) runs wsgemm_matmul instead, checked against and timed beside
 *     cublasLtMatmul (bench/matmul_run.c; alpha 1, beta 0, one matrix)
 *   wsgemm-run ... --batch-invariant both|both_n
 *     times the call with batch invariance OFF beside ON (both: rows invariant in m) or ON_N (both_n: columns
 *     invariant in n), with cuBLAS, and checks the invariance: the shape's m (n) rows (columns) of op(A)
 *     (op(B)), from a random first one, against the same ones inside a call of 777 more, bit for bit
 *     (gemm_ex, one matrix, beta 0); exit 1 when a row (column) differs or a path differs between the two
 *   wsgemm-run --self-check
 *
 * --self-check runs the sm100 self-check of the current device by hand (docs/sm100.md): the helper
 * program against the sm100 kernel on a Blackwell GPU, against the emulated one on a Hopper GPU, whatever
 * verdict is cached; it prints the helper, the cache key and file, and the verdict, writes the verdict to
 * the cache as AUTO would, and exits 0 on a pass, 1 on a fail, 2 without a verdict (a GPU this build has no
 * sm100 path for); without a GPU it says so on stderr and exits 0, as every tool does (tools/README.md).
 *
 * Prints the path that ran, the error against cuBLAS, and for each library
 * the GPU time of one call (median of --reps rounds: a spin kernel holds the
 * stream while both libraries' event-bracketed calls are queued, the order
 * alternating each round, so the events time the kernels alone; input sets
 * rotated past twice the L2), its TFLOP/s and ratio to cuBLAS, and the host
 * microseconds one call takes on the CPU, as its own column. Without a GPU it
 * says so in one line on stderr and exits 0. Exit 1 when the check fails, 2 on bad arguments (a malformed
 * number or an unknown flag, named on stderr; bench/cli.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "cli.h"

#include "common/knobs.h"
#include "sm100/self_check.h"
#include "matmul_run.h"
#include "testing.h"

typedef struct options {
    testing_gemm g;
    wsgemm_path path;
    int reps;
    unsigned long long seed;
    int matmul; /* a wsgemm_matmul option was given */
    matmul_problem mm;
    wsgemm_batch_invariance invariant; /* --batch-invariant: OFF when not asked */
} options;

static const char kProg[] = "wsgemm-run";

static void usage(void)
{
    printf("usage: %s [--m M] [--n N] [--k K] [--ta N|T] [--tb N|T] [--ab bf16|f16] [--c bf16|f16|f32]\n"
           "          [--path auto|generic|sm90|sm100|sm100-emulated] [--batch B] [--alpha A] [--beta B]\n"
           "          [--reps R] [--seed S] [--batch-invariant both|both_n]\n"
           "          [--ab e4m3|e5m2] [--b T] [--d T] [--epilogue E] [--bias T] [--scales 0|1|2]  (wsgemm_matmul)\n"
           "       %s --self-check\n"
           "       %s --help\n"
           "One GEMM (default 8192^3 bf16, NN) checked against cuBLAS, then timed beside it. Exit 0: checked and\n"
           "timed (or no CUDA device: nothing run); 1: the check or a call failed; 2: bad arguments.\n",
           kProg, kProg, kProg);
}

static wsgemm_dtype parse_dtype(const char *flag, const char *s)
{
    const int t = matmul_dtype_parse(s);
    if (t < 0) cli_fail(kProg, "%s: unknown type '%s'", flag, s);
    return (wsgemm_dtype)t;
}

static wsgemm_op parse_op(const char *flag, const char *s)
{
    if (!strcmp(s, "N") || !strcmp(s, "n")) return WSGEMM_OP_N;
    if (!strcmp(s, "T") || !strcmp(s, "t")) return WSGEMM_OP_T;
    cli_fail(kProg, "%s: '%s' is not N or T", flag, s);
}

static wsgemm_path parse_path(const char *s)
{
    for (int p = WSGEMM_PATH_AUTO; p <= WSGEMM_PATH_SM100_EMULATED; ++p)
        if (!strcmp(s, wsgemm_path_name((wsgemm_path)p))) return (wsgemm_path)p;
    cli_fail(kProg, "--path: unknown path '%s'", s);
}

static options parse(int argc, char **argv)
{
    options o = {{WSGEMM_OP_N, WSGEMM_OP_N, 8192, 8192, 8192, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, WSGEMM_R_16BF,
                  WSGEMM_R_16BF, 0},
                 WSGEMM_PATH_AUTO,
                 20,
                 1,
                 0,
                 {0},
                 WSGEMM_BATCH_INVARIANCE_OFF};
    int b_set = 0, d_set = 0;
    o.mm.bias_type = WSGEMM_R_16BF;
    o.mm.epilogue = WSGEMM_MATMUL_EPILOGUE_DEFAULT;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--self-check")) cli_fail(kProg, "--self-check takes no other flag");
        const char *v = cli_value(kProg, argc, argv, &i);
        if (!strcmp(a, "--m"))
            o.g.m = cli_int(kProg, a, v, 1, INT_MAX);
        else if (!strcmp(a, "--n"))
            o.g.n = cli_int(kProg, a, v, 1, INT_MAX);
        else if (!strcmp(a, "--k"))
            o.g.k = cli_int(kProg, a, v, 1, INT_MAX);
        else if (!strcmp(a, "--ta"))
            o.g.transa = parse_op(a, v);
        else if (!strcmp(a, "--tb"))
            o.g.transb = parse_op(a, v);
        else if (!strcmp(a, "--ab"))
            o.g.ab_type = parse_dtype(a, v);
        else if (!strcmp(a, "--c"))
            o.g.c_type = parse_dtype(a, v);
        else if (!strcmp(a, "--path"))
            o.path = parse_path(v);
        else if (!strcmp(a, "--batch"))
            o.g.batch = cli_int(kProg, a, v, 1, INT_MAX);
        else if (!strcmp(a, "--alpha"))
            o.g.alpha = cli_float(kProg, a, v);
        else if (!strcmp(a, "--beta"))
            o.g.beta = cli_float(kProg, a, v);
        else if (!strcmp(a, "--reps"))
            o.reps = cli_int(kProg, a, v, 1, INT_MAX);
        else if (!strcmp(a, "--seed"))
            o.seed = cli_u64(kProg, a, v);
        else if (!strcmp(a, "--b"))
            o.mm.b = parse_dtype(a, v), b_set = o.matmul = 1;
        else if (!strcmp(a, "--d"))
            o.mm.d = parse_dtype(a, v), d_set = o.matmul = 1;
        else if (!strcmp(a, "--bias"))
            o.mm.bias_type = parse_dtype(a, v), o.matmul = 1;
        else if (!strcmp(a, "--scales"))
            o.mm.scales = cli_int(kProg, a, v, 0, 2), o.matmul = 1;
        else if (!strcmp(a, "--batch-invariant")) {
            if (!strcmp(v, "both"))
                o.invariant = WSGEMM_BATCH_INVARIANCE_ON;
            else if (!strcmp(v, "both_n"))
                o.invariant = WSGEMM_BATCH_INVARIANCE_ON_N;
            else
                cli_fail(kProg, "--batch-invariant: '%s' is not both or both_n", v);
        } else if (!strcmp(a, "--epilogue")) {
            o.mm.epilogue = matmul_epilogue_parse(v);
            if (!o.mm.epilogue) cli_fail(kProg, "--epilogue: unknown epilogue '%s'", v);
            o.matmul = 1;
        } else
            cli_fail(kProg, "unknown flag '%s'", a);
    }
    if (o.g.ab_type == WSGEMM_R_8F_E4M3 || o.g.ab_type == WSGEMM_R_8F_E5M2) o.matmul = 1;
    if (o.invariant != WSGEMM_BATCH_INVARIANCE_OFF && (o.matmul || o.g.batch != 1 || o.g.beta != 0.0f))
        cli_fail(kProg, "--batch-invariant: the 16-bit gemm_ex of one matrix with beta 0 (no matmul option, "
                        "--batch 1, --beta 0)");
    o.mm = (matmul_problem){"wsgemm_matmul", o.g.transa,
                            o.g.transb,      o.g.m,
                            o.g.n,           o.g.k,
                            o.g.ab_type,     b_set ? o.mm.b : o.g.ab_type,
                            o.g.c_type,      d_set ? o.mm.d : o.g.c_type,
                            o.mm.epilogue,   o.mm.bias_type,
                            o.mm.scales};
    testing_gemm_resolve(&o.g);
    return o;
}

/* Enough input sets that one pass over them exceeds twice the L2, and at least two, so no call reads the
 * operands the call before it left in L2. */
static int rotation_sets(const testing_gemm *g)
{
    int dev = 0, l2 = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    double set_bytes = (double)(testing_gemm_elems_a(g) + testing_gemm_elems_b(g)) * testing_dtype_bytes(g->ab_type) +
                       (double)testing_gemm_elems_c(g) * testing_dtype_bytes(g->c_type);
    int sets = (int)(2.0 * l2 / set_bytes) + 1;
    return sets < 2 ? 2 : (sets > 64 ? 64 : sets);
}

/* A timing set made on the device (a host fill of 8192^3 operands takes seconds): A, B uniform [-1, 1],
 * C uniform when beta != 0, else NaN (0xFF bytes, NaN in every output type). Only the device pointers and
 * sizes are set; testing_buffers_destroy frees it. */
static void timing_set_create(const testing_gemm *g, uint64_t seed, testing_buffers *b)
{
    memset(b, 0, sizeof *b);
    b->elems_a = testing_gemm_elems_a(g);
    b->elems_b = testing_gemm_elems_b(g);
    b->elems_c = testing_gemm_elems_c(g);
    size_t ab = (size_t)testing_dtype_bytes(g->ab_type), cb = (size_t)testing_dtype_bytes(g->c_type);
    CUDA_CHECK(cudaMalloc(&b->A, b->elems_a * ab));
    CUDA_CHECK(cudaMalloc(&b->B, b->elems_b * ab));
    CUDA_CHECK(cudaMalloc(&b->C, b->elems_c * cb));
    testing_device_fill_uniform(g->ab_type, b->A, b->elems_a, seed * 3 + 1);
    testing_device_fill_uniform(g->ab_type, b->B, b->elems_b, seed * 3 + 2);
    if (g->beta != 0.0f)
        testing_device_fill_uniform(g->c_type, b->C, b->elems_c, seed * 3 + 3);
    else
        CUDA_CHECK(cudaMemset(b->C, 0xFF, b->elems_c * cb));
}

/* The timed calls (testing_time_interleaved): call i runs on input set i % nsets. */
typedef struct wsgemm_ctx {
    wsgemm_handle h;
    const testing_gemm *g;
    const testing_buffers *sets;
    int nsets;
} wsgemm_ctx;

static int call_wsgemm(void *ctx, int i)
{
    wsgemm_ctx *w = ctx;
    return testing_run_wsgemm(w->h, w->g, &w->sets[i % w->nsets]) != WSGEMM_STATUS_SUCCESS;
}

typedef struct cublas_ctx {
    cublasHandle_t h;
    const testing_gemm *g;
    cudaDataType_t c_type;
    const testing_buffers *sets;
    void **c; /* cuBLAS's own outputs when it needs another C type than wsgemm's; else NULL */
    int nsets;
} cublas_ctx;

static int call_cublas(void *ctx, int i)
{
    cublas_ctx *c = ctx;
    const testing_gemm *g = c->g;
    const testing_buffers *b = &c->sets[i % c->nsets];
    void *C = c->c ? c->c[i % c->nsets] : b->C;
    cublasStatus_t s;
    if (g->batch == 1) /* the call a user would make */
        s = cublasGemmEx(c->h, (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, g->m, g->n, g->k, &g->alpha,
                         b->A, (cudaDataType_t)g->ab_type, g->lda, b->B, (cudaDataType_t)g->ab_type, g->ldb, &g->beta,
                         C, c->c_type, g->ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    else
        s = cublasGemmStridedBatchedEx(c->h, (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, g->m, g->n,
                                       g->k, &g->alpha, b->A, (cudaDataType_t)g->ab_type, g->lda, g->strideA, b->B,
                                       (cudaDataType_t)g->ab_type, g->ldb, g->strideB, &g->beta, C, c->c_type, g->ldc,
                                       g->strideC, g->batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return s != CUBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- --batch-invariant */

/* A new device copy of `lines` lines of an operand from line `first`, k long each: across the columns of
 * the ld_src-pitched source when `across` (op(A) rows of an N operand, op(B) columns of a T one; pitch
 * `lines`), else `lines` whole columns. */
static void *copy_lines(const void *src, int ld_src, int first, int lines, int k, size_t es, int across)
{
    void *dst = NULL;
    CUDA_CHECK(cudaMalloc(&dst, (size_t)lines * k * es));
    if (across)
        CUDA_CHECK(cudaMemcpy2D(dst, (size_t)lines * es, (const char *)src + (size_t)first * es, (size_t)ld_src * es,
                                (size_t)lines * es, (size_t)k, cudaMemcpyDeviceToDevice));
    else
        CUDA_CHECK(cudaMemcpy(dst, (const char *)src + (size_t)first * ld_src * es, (size_t)lines * k * es,
                              cudaMemcpyDeviceToDevice));
    return dst;
}

/* The check of --batch-invariant: g's call (tight layouts) on `lines` rows of op(A) (ON) or columns of op(B)
 * (ON_N) taken from a call of `lines` + 777 at a random first one, under `mode`; 1 when every one is bit for
 * bit the bigger call's and both ran one path. */
static int invariance_check(const testing_gemm *g0, wsgemm_batch_invariance mode, unsigned long long seed)
{
    const int on_n = mode == WSGEMM_BATCH_INVARIANCE_ON_N;
    const int lines = on_n ? g0->n : g0->m, extra = 777;
    const int first = (int)(seed * 2654435761ull % (unsigned long long)(extra + 1));
    const wsgemm_dtype t = g0->ab_type;
    const size_t es = (size_t)testing_dtype_bytes(t), cs = (size_t)testing_dtype_bytes(g0->c_type);
    const int m_big = on_n ? g0->m : g0->m + extra, n_big = on_n ? g0->n + extra : g0->n, k = g0->k;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_batch_invariance(h, mode));
    /* big operands, tight: A stored ra x ca, B rb x cb */
    const int ra = g0->transa == WSGEMM_OP_N ? m_big : k, ca = g0->transa == WSGEMM_OP_N ? k : m_big;
    const int rb = g0->transb == WSGEMM_OP_N ? k : n_big, cb = g0->transb == WSGEMM_OP_N ? n_big : k;
    void *A = NULL, *B = NULL, *C = NULL, *a = NULL, *b = NULL, *c = NULL;
    CUDA_CHECK(cudaMalloc(&A, (size_t)ra * ca * es));
    CUDA_CHECK(cudaMalloc(&B, (size_t)rb * cb * es));
    CUDA_CHECK(cudaMalloc(&C, (size_t)m_big * n_big * cs));
    CUDA_CHECK(cudaMalloc(&c, (size_t)g0->m * g0->n * cs));
    testing_device_fill_uniform(t, A, (size_t)ra * ca, seed * 5 + 1);
    testing_device_fill_uniform(t, B, (size_t)rb * cb, seed * 5 + 2);
    CUDA_CHECK(cudaMemset(C, 0xFF, (size_t)m_big * n_big * cs)); /* NaN in every output type */
    CUDA_CHECK(cudaMemset(c, 0xFE, (size_t)g0->m * g0->n * cs));
    /* the small call's operand: `lines` rows of op(A) or columns of op(B) from `first` */
    int lda = ra, ldb = rb;
    const int small_a_n = g0->transa == WSGEMM_OP_N, small_b_t = g0->transb == WSGEMM_OP_T;
    if (!on_n) {
        lda = small_a_n ? lines : k;
        a = copy_lines(A, ra, first, lines, k, es, small_a_n);
    } else {
        ldb = small_b_t ? lines : k;
        b = copy_lines(B, rb, first, lines, k, es, small_b_t);
    }
    const float alpha = g0->alpha, beta = 0.0f;
    wsgemm_status s = wsgemm_gemm_ex(h, g0->transa, g0->transb, m_big, n_big, k, &alpha, A, t, ra, B, t, rb, &beta, C,
                                     g0->c_type, m_big);
    wsgemm_path big_path = WSGEMM_PATH_NONE, path = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &big_path);
    if (s == WSGEMM_STATUS_SUCCESS)
        s = wsgemm_gemm_ex(h, g0->transa, g0->transb, g0->m, g0->n, k, &alpha, on_n ? A : a, t, on_n ? ra : lda,
                           on_n ? b : B, t, on_n ? ldb : rb, &beta, c, g0->c_type, g0->m);
    wsgemm_get_last_path(h, &path);
    int ok = s == WSGEMM_STATUS_SUCCESS;
    if (!ok) fprintf(stderr, "wsgemm-run: --batch-invariant check: %s\n", wsgemm_get_last_error_message(h));
    long long bad = 0;
    if (ok) {
        unsigned char *hb = malloc((size_t)m_big * n_big * cs), *hs = malloc((size_t)g0->m * g0->n * cs);
        if (!hb || !hs) abort();
        CUDA_CHECK(cudaMemcpy(hb, C, (size_t)m_big * n_big * cs, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hs, c, (size_t)g0->m * g0->n * cs, cudaMemcpyDeviceToHost));
        for (int line = 0; line < lines; ++line) {
            int differs = 0;
            for (int e = 0; e < (on_n ? g0->m : g0->n) && !differs; ++e) {
                const size_t is = on_n ? (size_t)line * g0->m + e : (size_t)e * g0->m + line;
                const size_t ib = on_n ? (size_t)(first + line) * m_big + e : (size_t)e * m_big + first + line;
                const float v = testing_load(g0->c_type, hs, is);
                differs = memcmp(hs + is * cs, hb + ib * cs, cs) != 0 || v != v;
            }
            bad += differs;
        }
        free(hb);
        free(hs);
    }
    printf("invariant check  %d %s from %d of a call with %d: %lld differ; paths %s and %s\n", lines,
           on_n ? "columns" : "rows", first, lines + extra, bad, wsgemm_path_name(path), wsgemm_path_name(big_path));
    ok = ok && bad == 0 && path == big_path;
    cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(a), cudaFree(b), cudaFree(c);
    wsgemm_destroy(h);
    return ok;
}

/* --batch-invariant: the check, then the call timed with invariance OFF and under `mode`, with cuBLAS. */
static int batch_invariant_command(const options *o)
{
    const int check_ok = invariance_check(&o->g, o->invariant, o->seed);
    wsgemm_handle h_off, h_on;
    WSGEMM_CHECK(wsgemm_create(&h_off));
    WSGEMM_CHECK(wsgemm_create(&h_on));
    WSGEMM_CHECK(wsgemm_set_batch_invariance(h_on, o->invariant));
    if (wsgemm_set_path(h_off, o->path) != WSGEMM_STATUS_SUCCESS ||
        wsgemm_set_path(h_on, o->path) != WSGEMM_STATUS_SUCCESS) {
        fprintf(stderr, "wsgemm-run: %s\n", wsgemm_get_last_error_message(h_off));
        return 2;
    }
    /* each against cuBLAS first (poisoned output, every element), for the path each takes */
    int ok = testing_case_against_cublas(h_off, &o->g, o->path, o->seed, 1);
    wsgemm_path ran_off = WSGEMM_PATH_NONE, ran_on = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h_off, &ran_off);
    ok = testing_case_against_cublas(h_on, &o->g, o->path, o->seed, 1) && ok;
    wsgemm_get_last_path(h_on, &ran_on);
    const int nsets = rotation_sets(&o->g);
    testing_buffers *sets = calloc((size_t)nsets, sizeof *sets);
    for (int i = 0; i < nsets; ++i) timing_set_create(&o->g, o->seed + 100 + (unsigned)i, &sets[i]);
    wsgemm_ctx off = {h_off, &o->g, sets, nsets}, on = {h_on, &o->g, sets, nsets};
    cublas_ctx cc = {NULL, &o->g, (cudaDataType_t)o->g.c_type, sets, NULL, nsets};
    CUBLAS_CHECK(cublasCreate(&cc.h));
    const int with_cublas = o->g.c_type == WSGEMM_R_32F || o->g.c_type == o->g.ab_type;
    const testing_timed_lib libs[3] = {
        {"default", call_wsgemm, &off}, {"invariant", call_wsgemm, &on}, {"cuBLAS", call_cublas, &cc}};
    const testing_timing_options topt = {.warmup = 3, .rounds = o->reps, .host_reps = 20};
    testing_timing t;
    const int timed = testing_time_interleaved(libs, with_cublas ? 3 : 2, 0, &topt, &t) == 0;
    cublasDestroy(cc.h);
    const double flops = 2.0 * o->g.m * (double)o->g.n * o->g.k;
    printf("timing   GPU time: median of %d rounds behind a spin kernel (%d held), order alternating; %d input "
           "sets\n",
           t.rounds, t.held_rounds, nsets);
    printf("%-10s %-15s %10s %10s %12s %21s\n", "impl", "path", "ms", "TFLOP/s", "vs default", "ms p10..p90");
    const char *paths[3] = {wsgemm_path_name(ran_off), wsgemm_path_name(ran_on), "cublasGemmEx"};
    for (int i = 0; i < (with_cublas ? 3 : 2) && timed; ++i) {
        const double ms = t.lib[i].gpu_ms;
        printf("%-10s %-15s %10.4f %10.1f %12.3f %10.4f..%-10.4f\n", libs[i].name, paths[i], ms,
               ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0, t.lib[0].gpu_ms > 0 ? ms / t.lib[0].gpu_ms : 0.0,
               t.lib[i].gpu_ms_p10, t.lib[i].gpu_ms_p90);
    }
    printf("check    %s; invariance %s\n", ok ? "PASS (both match cuBLAS)" : "FAIL (see mismatches above)",
           check_ok ? "PASS (bit-identical)" : "FAIL");
    for (int i = 0; i < nsets; ++i) testing_buffers_destroy(&sets[i]);
    free(sets);
    wsgemm_destroy(h_off);
    wsgemm_destroy(h_on);
    return ok && check_ok && timed ? 0 : 1;
}

/* wsgemm-run --self-check */
static int self_check_command(void)
{
    if (testing_gpu_count() == 0) return cli_no_gpu(kProg, "no self-check to run");
    int dev = 0;
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    wsgemm_path path = WSGEMM_PATH_NONE;
    if (prop.major == 10 && prop.minor == 0 && wsgemm_sm100_available()) path = WSGEMM_PATH_SM100;
    if (prop.major == 9 && prop.minor == 0 && wsgemm_sm100_emulated_available()) path = WSGEMM_PATH_SM100_EMULATED;
    printf("device     %d: %s (cc %d.%d)\n", dev, prop.name, prop.major, prop.minor);
    if (path == WSGEMM_PATH_NONE) {
        printf("verdict    UNKNOWN: this build has no sm100 path this device runs (sm100 on 10.0, sm100-emulated on "
               "9.0)\n");
        return 2;
    }
    wsgemm_knobs knobs = wsgemm_knobs_from_env();
    knobs.sm100_self_check = WSGEMM_SELF_CHECK_FRESH; /* by hand: run it, whatever is cached */
    wsgemm_self_check_request rq;
    wsgemm_self_check_result r;
    printf("path       %s\n", wsgemm_path_name(path));
    fflush(stdout);
    const wsgemm_self_check_verdict v = wsgemm_self_check_device(dev, path, &knobs, &rq, &r);
    printf("helper     %s\n", rq.helper[0] ? rq.helper : rq.helper_note);
    printf("key        %s\n", rq.key);
    printf("cache      %s%s\n", rq.cache_file[0] ? rq.cache_file : "(none: no XDG_CACHE_HOME or HOME)",
           r.cached            ? " (written)"
           : r.suspect_timeout ? " (a suspect timeout written: the next check runs the helper once more)"
           : rq.cache_file[0]  ? " (not written)"
                               : "");
    printf("verdict    %s: %s\n",
           v == WSGEMM_SELF_CHECK_PASS   ? "PASS"
           : v == WSGEMM_SELF_CHECK_FAIL ? "FAIL"
                                         : "UNKNOWN",
           r.detail);
    return v == WSGEMM_SELF_CHECK_PASS ? 0 : v == WSGEMM_SELF_CHECK_FAIL ? 1 : 2;
}

int main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage();
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--self-check") == 0) return self_check_command();
    options o = parse(argc, argv);
    if (testing_gpu_count() == 0) return cli_no_gpu(kProg, "nothing to run (the build and the CPU tests need none)");
    char shape[256];
    testing_gemm_describe(&o.g, shape, sizeof shape);
    struct cudaDeviceProp prop;
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    printf("device   %s (cc %d.%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    printf("problem  %s\n", shape);

    if (o.matmul) {
        printf("%-22s %-16s %-8s %10s %9s %8s\n", "problem", "library", "path", "ms", "TFLOP/s", "ratio");
        matmul_result r;
        const int rc = matmul_run(&o.mm, o.path, o.reps, &r);
        matmul_print(&o.mm, &r);
        return rc != 0 || !r.checked || !r.check_passed;
    }

    if (o.invariant != WSGEMM_BATCH_INVARIANCE_OFF) return batch_invariant_command(&o);

    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    if (wsgemm_set_path(h, o.path) != WSGEMM_STATUS_SUCCESS) {
        fprintf(stderr, "wsgemm-run: %s\n", wsgemm_get_last_error_message(h));
        return 2;
    }

    /* 1. correctness against cuBLAS (poisoned output, every element, rerun bit-identical) */
    int ok = testing_case_against_cublas(h, &o.g, o.path, o.seed, 1);
    wsgemm_path ran = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &ran);

    /* 2. timing, side by side on the same inputs */
    int nsets = rotation_sets(&o.g);
    testing_buffers *sets = calloc((size_t)nsets, sizeof *sets);
    for (int i = 0; i < nsets; ++i) timing_set_create(&o.g, o.seed + 100 + (unsigned)i, &sets[i]);
    wsgemm_ctx wc = {h, &o.g, sets, nsets};
    cublas_ctx cc = {NULL, &o.g, (cudaDataType_t)o.g.c_type, sets, NULL, nsets};
    CUBLAS_CHECK(cublasCreate(&cc.h));
    const char *cublas_note = "";
    if (o.g.c_type != WSGEMM_R_32F && o.g.c_type != o.g.ab_type) {
        cc.c_type = CUDA_R_32F; /* cuBLAS has no bf16 x bf16 -> f16 (or reverse) */
        cublas_note = "; cuBLAS writes f32 C, it has no such mixed type";
        cc.c = calloc((size_t)nsets, sizeof *cc.c);
        for (int i = 0; i < nsets; ++i) {
            CUDA_CHECK(cudaMalloc(&cc.c[i], sets[i].elems_c * 4));
            CUDA_CHECK(cudaMemset(cc.c[i], 0, sets[i].elems_c * 4));
        }
    }
    const testing_timed_lib libs[2] = {{"wsgemm", call_wsgemm, &wc}, {"cuBLAS", call_cublas, &cc}};
    const testing_timing_options topt = {.warmup = 3, .rounds = o.reps, .host_reps = 20};
    testing_timing t;
    int timed = testing_time_interleaved(libs, 2, 0, &topt, &t) == 0; /* both handles use stream 0 */
    cublasDestroy(cc.h);

    double flops = 2.0 * o.g.m * (double)o.g.n * o.g.k * o.g.batch;
    double ms_ws = timed ? t.lib[0].gpu_ms : 0.0, ms_cublas = timed ? t.lib[1].gpu_ms : 0.0;
    double tf_ws = ms_ws > 0 ? flops / (ms_ws * 1e-3) / 1e12 : 0.0;
    double tf_cublas = ms_cublas > 0 ? flops / (ms_cublas * 1e-3) / 1e12 : 0.0;
    printf("timing   GPU time: median of %d rounds, each queued behind a spin kernel (%d of %d rounds held), "
           "order alternating; %d rotating input sets%s\n",
           t.rounds, t.held_rounds, t.rounds, nsets, cublas_note);
    printf("%-10s %-15s %10s %10s %8s %10s %21s\n", "impl", "path", "ms", "TFLOP/s", "vs cuBLAS", "host us",
           "ms p10..p90");
    printf("%-10s %-15s %10.4f %10.1f %8.3f %10.1f %10.4f..%-10.4f\n", "wsgemm", wsgemm_path_name(ran), ms_ws, tf_ws,
           tf_cublas > 0 ? tf_ws / tf_cublas : 0.0, t.lib[0].host_us, t.lib[0].gpu_ms_p10, t.lib[0].gpu_ms_p90);
    printf("%-10s %-15s %10.4f %10.1f %8.3f %10.1f %10.4f..%-10.4f\n", "cuBLAS", "cublasGemmEx", ms_cublas, tf_cublas,
           1.0, t.lib[1].host_us, t.lib[1].gpu_ms_p10, t.lib[1].gpu_ms_p90);
    printf("check    %s\n", ok ? "PASS (matches cuBLAS)" : "FAIL (see mismatches above)");

    for (int i = 0; i < nsets; ++i) {
        testing_buffers_destroy(&sets[i]);
        if (cc.c) cudaFree(cc.c[i]);
    }
    free(cc.c);
    free(sets);
    wsgemm_destroy(h);
    return ok && timed ? 0 : 1;
}
