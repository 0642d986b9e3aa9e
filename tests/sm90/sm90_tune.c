/*
 * sm90_tune.c - time sm90 kernel configurations against cuBLAS in one process, on the same data.
 *
 * Usage: sm90_tune [--all] [--reps N] [m n k ...]
 *   default shapes 4096^3 and 8192^3; --all adds the shapes of issue 6 (skinny, small K, 4099, 1000).
 * For each shape and op pair (NN, TN), bf16 in / bf16 out, alpha 1, beta 0, data uniform [-1, 1]:
 *   cuBLAS (cublasGemmEx, CUBLAS_COMPUTE_32F) is timed, then each configuration of the sm90 path (set through
 *   the launcher's WSGEMM_SM90_* variables, forced path sm90), then cuBLAS again; the table gives the median
 *   time of each, TFLOP/s, the ratio to the mean of the two cuBLAS medians, and the largest difference to
 *   cuBLAS's output relative to its largest element (a sample of elements; "BAD" above 2e-2).
 * Input buffers rotate among sets totalling > 2x the L2 size, CUDA events around each call, warm-up first.
 * The configuration line of the sm90 launcher (WSGEMM_SM90_DEBUG=1) is printed once per configuration.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "testing.h"

typedef struct config {
    const char *label;
    const char *env[3][2]; /* up to three variables; NULL name ends the list */
} config;

static const config big_configs[] = {
    {"default (BN256 S4 cl2)", {{NULL, NULL}}},
    {"no cluster", {{"WSGEMM_SM90_VARIANT", "1"}, {NULL, NULL}}},
    {"3 stages", {{"WSGEMM_SM90_VARIANT", "2"}, {NULL, NULL}}},
    {"unswapped", {{"WSGEMM_SM90_SWAP", "0"}, {NULL, NULL}}},
    {"BN128 S6", {{"WSGEMM_SM90_BN", "128"}, {NULL, NULL}}},
    {"BN64 S8", {{"WSGEMM_SM90_BN", "64"}, {NULL, NULL}}},
    {"group 1", {{"WSGEMM_SM90_GROUP", "1"}, {NULL, NULL}}},
    {"group 16", {{"WSGEMM_SM90_GROUP", "16"}, {NULL, NULL}}},
    {"TMA-store epilogue", {{"WSGEMM_SM90_EPILOGUE", "tma"}, {NULL, NULL}}},
    {"TMA-store, 3 stages", {{"WSGEMM_SM90_EPILOGUE", "tma"}, {"WSGEMM_SM90_VARIANT", "2"}, {NULL, NULL}}},
};
static const config small_configs[] = {
    {"default", {{NULL, NULL}}},
    {"splitk 1", {{"WSGEMM_SM90_SPLITK", "1"}, {NULL, NULL}}},
    {"splitk 2", {{"WSGEMM_SM90_SPLITK", "2"}, {NULL, NULL}}},
    {"splitk 4", {{"WSGEMM_SM90_SPLITK", "4"}, {NULL, NULL}}},
    {"splitk 8", {{"WSGEMM_SM90_SPLITK", "8"}, {NULL, NULL}}},
    {"BN128 splitk 1", {{"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "1"}, {NULL, NULL}}},
    {"BN128 splitk 2", {{"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "2"}, {NULL, NULL}}},
    {"BN128 splitk 4", {{"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "4"}, {NULL, NULL}}},
    {"BN64 splitk 1", {{"WSGEMM_SM90_BN", "64"}, {"WSGEMM_SM90_SPLITK", "1"}, {NULL, NULL}}},
    {"BN64 splitk 2", {{"WSGEMM_SM90_BN", "64"}, {"WSGEMM_SM90_SPLITK", "2"}, {NULL, NULL}}},
    {"BN256 splitk 1", {{"WSGEMM_SM90_BN", "256"}, {"WSGEMM_SM90_SPLITK", "1"}, {NULL, NULL}}},
    {"BN256 splitk 2", {{"WSGEMM_SM90_BN", "256"}, {"WSGEMM_SM90_SPLITK", "2"}, {NULL, NULL}}},
    {"no cluster", {{"WSGEMM_SM90_VARIANT", "1"}, {NULL, NULL}}},
    {"cluster 4", {{"WSGEMM_SM90_VARIANT", "3"}, {NULL, NULL}}},
    {"cluster 4 splitk 1", {{"WSGEMM_SM90_VARIANT", "3"}, {"WSGEMM_SM90_SPLITK", "1"}, {NULL, NULL}}},
    {"cluster 4 splitk 2", {{"WSGEMM_SM90_VARIANT", "3"}, {"WSGEMM_SM90_SPLITK", "2"}, {NULL, NULL}}},
    {"cluster 4 BN128 splitk 1", {{"WSGEMM_SM90_VARIANT", "3"}, {"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "1"}}},
    {"cluster 4 BN128 splitk 2", {{"WSGEMM_SM90_VARIANT", "3"}, {"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "2"}}},
};


static const char *vars[] = {"WSGEMM_SM90_VARIANT", "WSGEMM_SM90_SWAP",   "WSGEMM_SM90_BN",   "WSGEMM_SM90_GROUP",
                             "WSGEMM_SM90_SPLITK",  "WSGEMM_SM90_DEBUG", "WSGEMM_SM90_EPILOGUE"};

static void apply(const config *c)
{
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) unsetenv(vars[i]);
    for (int i = 0; i < 3 && c->env[i][0]; ++i) setenv(c->env[i][0], c->env[i][1], 1);
}

typedef struct sets {
    int count;
    void *A[8], *B[8], *C[8];
} sets;

typedef struct shape {
    int m, n, k;
} shape;

/* The split-K / tile-width table is for shapes that leave SMs idle: a skinny side or few output tiles. */
static int is_small_shape(const shape *sh)
{
    return sh->m <= 256 || sh->n <= 256 || (long long)sh->m * sh->n <= 2048LL * 2048LL;
}

static wsgemm_handle handle;
static cublasHandle_t cublas;

/* one call of either library on set s; returns 0 on success */
static int call(int use_cublas, wsgemm_op ta, wsgemm_op tb, const shape *sh, const sets *st, int s)
{
    float alpha = 1.0f, beta = 0.0f;
    int lda = ta == WSGEMM_OP_N ? sh->m : sh->k;
    int ldb = tb == WSGEMM_OP_N ? sh->k : sh->n;
    if (use_cublas) {
        cublasStatus_t r = cublasGemmEx(cublas, (cublasOperation_t)ta, (cublasOperation_t)tb, sh->m, sh->n, sh->k,
                                        &alpha, st->A[s], CUDA_R_16BF, lda, st->B[s], CUDA_R_16BF, ldb, &beta,
                                        st->C[s], CUDA_R_16BF, sh->m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        return r != CUBLAS_STATUS_SUCCESS;
    }
    wsgemm_status r = wsgemm_gemm_ex(handle, ta, tb, sh->m, sh->n, sh->k, &alpha, st->A[s], WSGEMM_R_16BF, lda,
                                     st->B[s], WSGEMM_R_16BF, ldb, &beta, st->C[s], WSGEMM_R_16BF, sh->m);
    if (r != WSGEMM_STATUS_SUCCESS) {
        printf("    wsgemm failed: %s: %s\n", wsgemm_status_string(r), wsgemm_get_last_error_message(handle));
        return 1;
    }
    return 0;
}

/* One library's calls for testing_time_median_ms: call i runs on set i % count. */
typedef struct timed {
    int use_cublas;
    wsgemm_op ta, tb;
    const shape *sh;
    const sets *st;
} timed;

static int timed_call(void *ctx, int i)
{
    const timed *t = ctx;
    return call(t->use_cublas, t->ta, t->tb, t->sh, t->st, i % t->st->count);
}

/* median ms of reps calls after 3 warm-up calls, rotating sets; -1 on failure */
static float time_calls(int use_cublas, wsgemm_op ta, wsgemm_op tb, const shape *sh, const sets *st, int reps)
{
    timed t = {use_cublas, ta, tb, sh, st};
    return testing_time_median_ms(timed_call, &t, 3, reps);
}

/* relative difference of set 0's C to the reference copy, on a sample */
static double sample_diff(const shape *sh, const void *dC, const uint16_t *ref)
{
    size_t n = (size_t)sh->m * sh->n;
    uint16_t *got = malloc(n * 2);
    CUDA_CHECK(cudaMemcpy(got, dC, n * 2, cudaMemcpyDeviceToHost));
    double maxref = 0.0, maxdiff = 0.0;
    size_t step = n > 2000000 ? 97 : 1;
    for (size_t i = 0; i < n; i += step) {
        double r = testing_bf16_to_float(ref[i]), g = testing_bf16_to_float(got[i]);
        if (fabs(r) > maxref) maxref = fabs(r);
        double d = fabs(r - g);
        if (!(d <= maxdiff)) maxdiff = d; /* NaN propagates */
    }
    free(got);
    return maxref > 0 ? maxdiff / maxref : maxdiff;
}

static void run_shape(const shape *sh, int reps, int small)
{
    size_t ea = (size_t)sh->m * sh->k, eb = (size_t)sh->k * sh->n, ec = (size_t)sh->m * sh->n;
    size_t set_bytes = (ea + eb + ec) * 2;
    int l2 = 0, dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    sets st;
    st.count = (int)((2.2 * l2) / (double)set_bytes) + 1;
    if (st.count > 8) st.count = 8;
    testing_rng rng = testing_rng_seeded(1234);
    uint16_t *h = malloc((ea > eb ? ea : eb) * 2);
    for (int s = 0; s < st.count; ++s) {
        CUDA_CHECK(cudaMalloc(&st.A[s], ea * 2));
        CUDA_CHECK(cudaMalloc(&st.B[s], eb * 2));
        CUDA_CHECK(cudaMalloc(&st.C[s], ec * 2));
        for (size_t i = 0; i < ea; ++i) h[i] = testing_float_to_bf16(testing_rng_uniform(&rng));
        CUDA_CHECK(cudaMemcpy(st.A[s], h, ea * 2, cudaMemcpyHostToDevice));
        for (size_t i = 0; i < eb; ++i) h[i] = testing_float_to_bf16(testing_rng_uniform(&rng));
        CUDA_CHECK(cudaMemcpy(st.B[s], h, eb * 2, cudaMemcpyHostToDevice));
    }
    free(h);
    uint16_t *ref = malloc(ec * 2);
    double flops = 2.0 * sh->m * sh->n * sh->k;
    const config *cfgs = small ? small_configs : big_configs;
    int ncfg = small ? (int)(sizeof small_configs / sizeof small_configs[0])
                     : (int)(sizeof big_configs / sizeof big_configs[0]);

    for (int op = 0; op < 2; ++op) {
        wsgemm_op ta = op ? WSGEMM_OP_T : WSGEMM_OP_N, tb = WSGEMM_OP_N;
        float cub0 = time_calls(1, ta, tb, sh, &st, reps);
        if (call(1, ta, tb, sh, &st, 0)) printf("cuBLAS failed\n");
        CUDA_CHECK(cudaMemcpy(ref, st.C[0], ec * 2, cudaMemcpyDeviceToHost));
        float *ms = malloc(sizeof(float) * (size_t)ncfg);
        double *diff = malloc(sizeof(double) * (size_t)ncfg);
        for (int c = 0; c < ncfg; ++c) {
            apply(&cfgs[c]);
            setenv("WSGEMM_SM90_DEBUG", "1", 1);
            CUDA_CHECK(cudaMemset(st.C[0], 0xff, ec * 2)); /* NaN poison */
            fprintf(stderr, "[%s] ", cfgs[c].label);
            int bad = call(0, ta, tb, sh, &st, 0);
            CUDA_CHECK(cudaDeviceSynchronize());
            unsetenv("WSGEMM_SM90_DEBUG");
            diff[c] = bad ? INFINITY : sample_diff(sh, st.C[0], ref);
            ms[c] = bad ? -1.0f : time_calls(0, ta, tb, sh, &st, reps);
        }
        apply(&cfgs[0]);
        float cub1 = time_calls(1, ta, tb, sh, &st, reps);
        float cub = 0.5f * (cub0 + cub1);
        printf("\n%d x %d x %d  %cN  bf16->bf16   cuBLAS %.3f ms (%.0f TFLOP/s; runs %.3f / %.3f)\n", sh->m, sh->n,
               sh->k, op ? 'T' : 'N', cub, flops / cub / 1e9, cub0, cub1);
        printf("  %-24s %9s %9s %8s %10s\n", "sm90 config", "ms", "TFLOP/s", "x cuBLAS", "rel diff");
        for (int c = 0; c < ncfg; ++c) {
            if (ms[c] < 0) {
                printf("  %-24s %9s\n", cfgs[c].label, "failed");
                continue;
            }
            printf("  %-24s %9.3f %9.0f %8.3f %10.2e%s\n", cfgs[c].label, ms[c], flops / ms[c] / 1e9, cub / ms[c],
                   diff[c], diff[c] > 2e-2 || diff[c] != diff[c] ? "  BAD" : "");
        }
        fflush(stdout);
        free(ms);
        free(diff);
    }
    free(ref);
    for (int s = 0; s < st.count; ++s) {
        CUDA_CHECK(cudaFree(st.A[s]));
        CUDA_CHECK(cudaFree(st.B[s]));
        CUDA_CHECK(cudaFree(st.C[s]));
    }
}

int main(int argc, char **argv)
{
    testing_require_gpu("sm90_tune");
    if (testing_device_cc() != 90) {
        printf("SKIPPED: needs compute capability 9.0\n");
        return WSGEMM_TEST_SKIP;
    }
    int reps = 20, all = 0;
    shape user[16];
    int nuser = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--all") == 0) all = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (i + 2 < argc && nuser < 16) {
            user[nuser].m = atoi(argv[i]);
            user[nuser].n = atoi(argv[i + 1]);
            user[nuser].k = atoi(argv[i + 2]);
            nuser++;
            i += 2;
        }
    }
    WSGEMM_CHECK(wsgemm_create(&handle));
    WSGEMM_CHECK(wsgemm_set_path(handle, WSGEMM_PATH_SM90));
    CUBLAS_CHECK(cublasCreate(&cublas));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("sm90_tune on %s (%d SMs), median of %d runs\n", prop.name, prop.multiProcessorCount, reps);

    const shape defaults[] = {{4096, 4096, 4096}, {8192, 8192, 8192}};
    const shape extra[] = {{16384, 16384, 16384}, {4096, 14336, 4096}, {4096, 4096, 14336}, {8192, 8192, 1024},
                           {4099, 4099, 4099},    {1000, 1000, 1000},  {16, 8192, 8192},    {64, 8192, 8192},
                           {128, 8192, 8192},     {256, 8192, 8192}};
    if (nuser) {
        for (int i = 0; i < nuser; ++i) run_shape(&user[i], reps, is_small_shape(&user[i]));
    } else {
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; ++i) run_shape(&defaults[i], reps, 0);
        if (all)
            for (size_t i = 0; i < sizeof extra / sizeof extra[0]; ++i)
                run_shape(&extra[i], reps, is_small_shape(&extra[i]));
    }
    cublasDestroy(cublas);
    WSGEMM_CHECK(wsgemm_destroy(handle));
    return 0;
}
