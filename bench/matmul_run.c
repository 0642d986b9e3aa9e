// SPDX-License-Identifier: MIT
/*
 * matmul_run.c - one wsgemm_matmul problem, checked against cublasLtMatmul and timed beside it
 * (matmul_run.h).
 *
 * Libraries, all on stream 0, GPU time as wsgemm-run measures it (testing_time_interleaved: a spin kernel
 * holds the stream while every library's event-bracketed call of a round is queued, the order rotating each
 * round; two input sets alternate so no call reads what the previous one left in L2):
 *   wsgemm             wsgemm_matmul on the handle's path
 *   cuBLASLt           cublasLtMatmul, the same types, epilogue, bias and scales, 32 MiB workspace, the
 *                      first (best) heuristic; default (promoted) accumulation for FP8
 *   cuBLASLt fast      FP8 only: the same with CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1
 *   cuBLASLt+kernel    bias/activation epilogues only: cublasLtMatmul without epilogue, then the epilogue as a
 *                      kernel of its own (testing_bias_activation) - what a framework without fusion runs
 *   wsgemm per-tensor  block-scaled problems (MATMUL_SCALES_BLOCK) only, in place of the two above: the same call
 *                      with per-tensor scales, the speed the block scales are measured against where cuBLASLt
 *                      has no block-scaled kernel
 * The check: wsgemm's D against cuBLASLt's D on the device, every element (testing_device_check), one ulp
 * of D's type relative plus accumulation-order noise (1/512 of the RMS for 16-bit D; E4M3: 1/8 relative).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>

#include "matmul_run.h"
#include "testing.h"

static const struct {
    const char *name;
    wsgemm_matmul_epilogue e;
} kEpilogues[] = {
    {"none", WSGEMM_MATMUL_EPILOGUE_DEFAULT},      {"relu", WSGEMM_MATMUL_EPILOGUE_RELU},
    {"bias", WSGEMM_MATMUL_EPILOGUE_BIAS},         {"relu_bias", WSGEMM_MATMUL_EPILOGUE_RELU_BIAS},
    {"gelu", WSGEMM_MATMUL_EPILOGUE_GELU},         {"gelu_bias", WSGEMM_MATMUL_EPILOGUE_GELU_BIAS},
    {"gelu_aux", WSGEMM_MATMUL_EPILOGUE_GELU_AUX}, {"gelu_aux_bias", WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS}};

wsgemm_matmul_epilogue matmul_epilogue_parse(const char *name)
{
    for (size_t i = 0; i < sizeof kEpilogues / sizeof kEpilogues[0]; ++i)
        if (!strcmp(name, kEpilogues[i].name)) return kEpilogues[i].e;
    return (wsgemm_matmul_epilogue)0;
}

const char *matmul_epilogue_name(wsgemm_matmul_epilogue e)
{
    for (size_t i = 0; i < sizeof kEpilogues / sizeof kEpilogues[0]; ++i)
        if (kEpilogues[i].e == e) return kEpilogues[i].name;
    return "?";
}

int matmul_dtype_parse(const char *name)
{
    const wsgemm_dtype all[] = {WSGEMM_R_16BF, WSGEMM_R_16F, WSGEMM_R_32F, WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E5M2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (!strcmp(name, testing_dtype_name(all[i]))) return (int)all[i];
    return -1;
}

static int has_bias(wsgemm_matmul_epilogue e)
{
    return ((unsigned)e & 4u) != 0;
}
static int has_aux(wsgemm_matmul_epilogue e)
{
    return ((unsigned)e & 128u) != 0;
}
static int has_gelu(wsgemm_matmul_epilogue e)
{
    return ((unsigned)e & 32u) != 0;
}
static int has_activation(wsgemm_matmul_epilogue e)
{
    return ((unsigned)e & (2u | 32u)) != 0;
}
static int is_fp8(wsgemm_dtype t)
{
    return t == WSGEMM_R_8F_E4M3 || t == WSGEMM_R_8F_E5M2;
}

enum { SETS = 2 };
static const size_t kLtWorkspace = (size_t)32 << 20;

typedef struct run_state {
    const matmul_problem *p;
    wsgemm_handle h;
    cublasLtHandle_t lt;
    void *lt_ws;
    int rows_a, cols_a, rows_b, cols_b;
    void *A[SETS], *B[SETS], *D[MATMUL_MAX_LIBS][SETS];
    void *C, *bias, *aux;
    float *scales, *amax; /* device: 1, 1, 1, 1; amax */
    float *sa, *sb;       /* MATMUL_SCALES_BLOCK: A's m x ceil(k/128), B's ceil(k/128) x ceil(n/128) */
    cublasLtMatmulDesc_t op[MATMUL_MAX_LIBS];
    cublasLtMatrixLayout_t la, lb, lc, ld;
    cublasLtMatmulAlgo_t algo[MATMUL_MAX_LIBS];
    int third_is_kernel; /* lib 2: GEMM + separate epilogue kernel (else fast accumulation) */
    int third_is_wsgemm; /* lib 2: wsgemm with per-tensor scales (MATMUL_SCALES_BLOCK) */
} run_state;

typedef struct lib_ctx {
    run_state *s;
    int lib;
} lib_ctx;

/* wsgemm_matmul into library lib's D: with the problem's scales, or (per_tensor) its per-tensor ones. */
static int call_wsgemm(run_state *s, int lib, int set, int per_tensor)
{
    const matmul_problem *p = s->p;
    wsgemm_matmul_desc d;
    wsgemm_matmul_desc_init(&d, p->ta, p->tb, p->a, p->d);
    d.Btype = p->b;
    d.Ctype = p->c;
    d.epilogue = p->epilogue;
    d.bias = s->bias;
    d.bias_type = p->bias_type;
    d.aux = s->aux;
    d.aux_type = p->bias_type;
    d.ldaux = p->m;
    if (p->scales == MATMUL_SCALES_BLOCK && !per_tensor) {
        d.a_scale_mode = WSGEMM_MATMUL_SCALE_VEC128_32F;
        d.b_scale_mode = WSGEMM_MATMUL_SCALE_BLK128x128_32F;
        d.a_scale = s->sa;
        d.b_scale = s->sb;
    } else if (p->scales) {
        d.a_scale = s->scales;
        d.b_scale = s->scales + 1;
        if (p->d == WSGEMM_R_8F_E4M3) {
            d.d_scale = s->scales + 3;
            d.amax_d = s->amax;
        }
    }
    const float alpha = 1.0f, beta = 0.0f;
    wsgemm_status st = wsgemm_matmul(s->h, &d, p->m, p->n, p->k, &alpha, s->A[set], s->rows_a, s->B[set], s->rows_b,
                                     &beta, NULL, p->m, s->D[lib][set], p->m);
    if (st != WSGEMM_STATUS_SUCCESS) fprintf(stderr, "wsgemm_matmul: %s\n", wsgemm_get_last_error_message(s->h));
    return st != WSGEMM_STATUS_SUCCESS;
}

static int call_lt(run_state *s, int lib, int set)
{
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = cublasLtMatmul(s->lt, s->op[lib], &alpha, s->A[set], s->la, s->B[set], s->lb, &beta, s->C,
                                       s->lc, s->D[lib][set], s->ld, &s->algo[lib], s->lt_ws, kLtWorkspace, 0);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasLtMatmul: %s\n", cublasLtGetStatusName(st));
        return 1;
    }
    if (lib == 2 && s->third_is_kernel) {
        const matmul_problem *p = s->p;
        cudaError_t err = testing_bias_activation(p->d, s->D[lib][set], p->m, p->n, p->m, p->bias_type,
                                                  has_bias(p->epilogue) ? s->bias : NULL, has_gelu(p->epilogue), 0);
        if (err != cudaSuccess) return 1;
    }
    return 0;
}

static int timed_call(void *ctx, int i)
{
    lib_ctx *c = ctx;
    if (c->lib == 0) return call_wsgemm(c->s, 0, i % SETS, 0);
    if (c->lib == 2 && c->s->third_is_wsgemm) return call_wsgemm(c->s, 2, i % SETS, 1);
    return call_lt(c->s, c->lib, i % SETS);
}

/* cuBLASLt's descriptor for library `lib` (1: as wsgemm; 2: fast accumulation, or no epilogue) and its
 * best algorithm. Returns 0 when cuBLASLt has one. */
static int lt_plan(run_state *s, int lib)
{
    const matmul_problem *p = s->p;
    cublasStatus_t st = cublasLtMatmulDescCreate(&s->op[lib], CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const int32_t ta = p->ta, tb = p->tb;
    const uint32_t ep =
        lib == 2 && s->third_is_kernel ? (uint32_t)WSGEMM_MATMUL_EPILOGUE_DEFAULT : (uint32_t)p->epilogue;
    const int32_t vec = (int32_t)p->bias_type;
    const int64_t ldaux = p->m;
    const int8_t fast = lib == 2 && !s->third_is_kernel;
    const void *bias = s->bias, *sd = s->scales + 3, *amax = s->amax, *sa = s->sa, *sb = s->sb;
    const int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
                  b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    void *aux = s->aux;
#define SET(attr, value) \
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulDescSetAttribute(s->op[lib], attr, &(value), sizeof(value))
    SET(CUBLASLT_MATMUL_DESC_TRANSA, ta);
    SET(CUBLASLT_MATMUL_DESC_TRANSB, tb);
    SET(CUBLASLT_MATMUL_DESC_EPILOGUE, ep);
    if (has_bias((wsgemm_matmul_epilogue)ep)) {
        SET(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
        SET(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, vec);
    }
    if (has_aux((wsgemm_matmul_epilogue)ep)) {
        SET(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux);
        SET(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, ldaux);
        if (p->bias_type != p->d) SET(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, vec); /* default: D's type */
    }
    /* The scales are all 1 here. cuBLASLt (13.1, H200) returns NOT_SUPPORTED from cublasLtMatmul when A and
     * B scale pointers come with a 16/32-bit D, and also with an E4M3 D and a bf16 C (the layout timed here),
     * and takes a D scale and amax only for an FP8 D; so it runs with the D scale and amax of an E4M3 D and
     * no other scale pointer, which is the same product (wsgemm still gets its scales and reads them). */
    if (p->scales && p->d == WSGEMM_R_8F_E4M3) {
        SET(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, sd);
        SET(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, amax);
    }
    if (p->scales == MATMUL_SCALES_BLOCK) { /* the same scale tensors, in cuBLASLt's layouts (wsgemm.h's are) */
        SET(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, a_mode);
        SET(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, b_mode);
        SET(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, sa);
        SET(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, sb);
    }
    if (fast) SET(CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast);
#undef SET
    cublasLtMatmulPreference_t pref = NULL;
    uint64_t ws = kLtWorkspace;
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulPreferenceCreate(&pref);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(s->lt, s->op[lib], s->la, s->lb, s->lc, s->ld, pref, 1, &result, &found);
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
        fprintf(stderr, "cuBLASLt has no algorithm for %s (%s)\n", p->name,
                st != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusName(st) : "none found");
        return 1;
    }
    s->algo[lib] = result.algo;
    return 0;
}

static void *device_alloc(size_t bytes)
{
    void *d = NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes ? bytes : 1));
    return d;
}

int matmul_run(const matmul_problem *p, wsgemm_path path, int reps, matmul_result *out)
{
    memset(out, 0, sizeof *out);
    run_state s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.rows_a = p->ta == WSGEMM_OP_N ? p->m : p->k;
    s.cols_a = p->ta == WSGEMM_OP_N ? p->k : p->m;
    s.rows_b = p->tb == WSGEMM_OP_N ? p->k : p->n;
    s.cols_b = p->tb == WSGEMM_OP_N ? p->n : p->k;
    const int fused = has_bias(p->epilogue) || has_activation(p->epilogue);
    s.third_is_wsgemm = p->scales == MATMUL_SCALES_BLOCK;
    s.third_is_kernel = fused && !has_aux(p->epilogue) && !s.third_is_wsgemm;
    out->nlibs = is_fp8(p->a) || s.third_is_kernel ? 3 : 2;
    out->lib[0] = "wsgemm";
    out->lib[1] = "cuBLASLt";
    out->lib[2] = s.third_is_wsgemm ? "wsgemm per-tensor" : s.third_is_kernel ? "cuBLASLt+kernel" : "cuBLASLt fast";

    WSGEMM_CHECK(wsgemm_create(&s.h));
    WSGEMM_CHECK(wsgemm_set_path(s.h, path));
    CUBLAS_CHECK(cublasLtCreate(&s.lt));
    s.lt_ws = device_alloc(kLtWorkspace);
    const size_t mn = (size_t)p->m * p->n;
    for (int set = 0; set < SETS; ++set) {
        const size_t na = (size_t)s.rows_a * s.cols_a, nb = (size_t)s.rows_b * s.cols_b;
        s.A[set] = device_alloc(na * testing_dtype_bytes(p->a));
        s.B[set] = device_alloc(nb * testing_dtype_bytes(p->b));
        testing_device_fill_uniform(p->a, s.A[set], na, 11 + 2 * set);
        testing_device_fill_uniform(p->b, s.B[set], nb, 12 + 2 * set);
        for (int lib = 0; lib < out->nlibs; ++lib) {
            s.D[lib][set] = device_alloc(mn * testing_dtype_bytes(p->d));
            CUDA_CHECK(cudaMemset(s.D[lib][set], 0xFF, mn * testing_dtype_bytes(p->d))); /* NaN */
        }
    }
    s.C = device_alloc(mn * testing_dtype_bytes(p->c));
    CUDA_CHECK(cudaMemset(s.C, 0, mn * testing_dtype_bytes(p->c)));
    s.bias = device_alloc((size_t)p->m * testing_dtype_bytes(p->bias_type));
    testing_device_fill_uniform(p->bias_type, s.bias, (size_t)p->m, 99);
    s.aux = has_aux(p->epilogue) ? device_alloc(mn * testing_dtype_bytes(p->bias_type)) : NULL;
    const float ones[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    s.scales = device_alloc(sizeof ones);
    CUDA_CHECK(cudaMemcpy(s.scales, ones, sizeof ones, cudaMemcpyHostToDevice));
    s.amax = device_alloc(sizeof(float));
    if (p->scales == MATMUL_SCALES_BLOCK) {
        const size_t kb = ((size_t)p->k + 127) / 128, na = (size_t)p->m * kb, nb = kb * (((size_t)p->n + 127) / 128);
        s.sa = device_alloc(na * sizeof(float));
        s.sb = device_alloc(nb * sizeof(float));
        testing_device_fill_uniform(WSGEMM_R_32F, s.sa, na, 21);
        testing_device_fill_uniform(WSGEMM_R_32F, s.sb, nb, 22);
    }

    int failed = 0;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.la, (cudaDataType_t)p->a, s.rows_a, s.cols_a, s.rows_a));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lb, (cudaDataType_t)p->b, s.rows_b, s.cols_b, s.rows_b));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lc, (cudaDataType_t)p->c, p->m, p->n, p->m));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.ld, (cudaDataType_t)p->d, p->m, p->n, p->m));
    for (int lib = 1; lib < out->nlibs; ++lib)
        if (!(lib == 2 && s.third_is_wsgemm)) failed |= lt_plan(&s, lib);

    /* the check: one call of each on set 0 */
    if (!failed) failed |= call_wsgemm(&s, 0, 0, 0) || call_lt(&s, 1, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    wsgemm_get_last_path(s.h, &out->path);
    if (!failed) {
        testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, p->m, p->n, p->k);
        g.c_type = p->d;
        testing_gemm_resolve(&g);
        float *ref = device_alloc(mn * sizeof(float));
        testing_device_c_to_f32(&g, s.D[1][0], ref);
        testing_tolerance tol = testing_tolerance_for(p->d);
        if (p->d == WSGEMM_R_8F_E4M3)
            tol = (testing_tolerance){.rtol = 1.0 / 8, .atol_rel_rms = 1.0 / 64, .max_rel_fro = 0.07};
        testing_report r = testing_device_check(&g, s.D[0][0], ref, tol, p->name);
        out->checked = 1;
        out->check_passed = r.passed;
        out->rel_fro = r.rel_fro;
        cudaFree(ref);
    }

    if (!failed) {
        lib_ctx ctx[MATMUL_MAX_LIBS];
        testing_timed_lib libs[MATMUL_MAX_LIBS];
        for (int lib = 0; lib < out->nlibs; ++lib) {
            ctx[lib] = (lib_ctx){&s, lib};
            libs[lib] = (testing_timed_lib){out->lib[lib], timed_call, &ctx[lib]};
        }
        const testing_timing_options topt = {.warmup = 2, .rounds = reps, .host_reps = 0};
        testing_timing t;
        failed = testing_time_interleaved(libs, out->nlibs, 0, &topt, &t) != 0;
        const double flops = 2.0 * p->m * (double)p->n * p->k;
        for (int lib = 0; lib < out->nlibs && !failed; ++lib) {
            out->ms[lib] = t.lib[lib].gpu_ms;
            out->tflops[lib] = t.lib[lib].gpu_ms > 0 ? flops / (t.lib[lib].gpu_ms * 1e-3) / 1e12 : 0.0;
        }
        out->rounds = t.rounds;
        out->held_rounds = t.held_rounds;
    }

    for (int lib = 1; lib < MATMUL_MAX_LIBS; ++lib)
        if (s.op[lib]) cublasLtMatmulDescDestroy(s.op[lib]);
    cublasLtMatrixLayoutDestroy(s.la);
    cublasLtMatrixLayoutDestroy(s.lb);
    cublasLtMatrixLayoutDestroy(s.lc);
    cublasLtMatrixLayoutDestroy(s.ld);
    for (int set = 0; set < SETS; ++set) {
        cudaFree(s.A[set]);
        cudaFree(s.B[set]);
        for (int lib = 0; lib < MATMUL_MAX_LIBS; ++lib) cudaFree(s.D[lib][set]);
    }
    cudaFree(s.C);
    cudaFree(s.bias);
    cudaFree(s.aux);
    cudaFree(s.scales);
    cudaFree(s.amax);
    cudaFree(s.sa);
    cudaFree(s.sb);
    cudaFree(s.lt_ws);
    cublasLtDestroy(s.lt);
    wsgemm_destroy(s.h);
    return failed;
}

void matmul_print(const matmul_problem *p, const matmul_result *r)
{
    const double lt = r->tflops[1];
    for (int lib = 0; lib < r->nlibs; ++lib)
        printf("%-22s %-16s %-8s %10.4f %9.1f %8.3f\n", p->name, r->lib[lib],
               lib == 0 ? wsgemm_path_name(r->path) : "-", r->ms[lib], r->tflops[lib],
               lt > 0 ? r->tflops[lib] / lt : 0.0);
    printf("%-22s check: %s (wsgemm vs cuBLASLt, rel_fro %.2e); %d of %d rounds held\n", p->name,
           !r->checked       ? "not run"
           : r->check_passed ? "PASS"
                             : "FAIL",
           r->rel_fro, r->held_rounds, r->rounds);
}
