// SPDX-License-Identifier: MIT
/*
 * sm90_tune.c - time sm90 kernel configurations against cuBLAS in one process, on the same data.
 *
 * Usage: sm90_tune [--all] [--reps N] [--beta B] [--c bf16|f32] [--nn] [--config LABEL=VAR=V,VAR=V ...]
 *                  [--write-cache FILE] [m n k ...]
 *   default shapes 4096^3 and 8192^3; --all adds the decode, small-K, unaligned and LLM shapes.
 *   --nn: op NN only (default NN and TN). --config (repeatable, 1 to 3 of the WSGEMM_SM90_* variables each,
 *   the prefix optional: BN=128 for WSGEMM_SM90_BN): time the plan's choice and these configurations instead
 *   of the built-in list, e.g. --config c4s4=VARIANT=3,SPLITK=4.
 * For each shape and op pair (NN, TN), bf16 in, C bf16 (or f32), alpha 1, beta 0 (or B), data uniform [-1, 1]:
 *   each configuration of the sm90 path (set through the WSGEMM_SM90_* knobs, gemm/common/knobs.h; forced path
 *   sm90) is timed side by side with cuBLAS (cublasGemmEx, CUBLAS_COMPUTE_32F) by testing_time_interleaved:
 *   GPU time, the stream held by a spin kernel while both calls are queued, the order alternating each
 *   round, median of N rounds; host microseconds per call as their own column. The table gives each
 *   configuration's time, TFLOP/s, the ratio to cuBLAS in the same rounds, and the largest difference to
 *   cuBLAS's output relative to its largest element (a sample of elements; "BAD" above 2e-2).
 * Input buffers rotate among sets totalling > 2x the L2 size, warm-up first.
 * The configuration line of the sm90 launcher (WSGEMM_SM90_DEBUG=1) is printed once per configuration.
 * --write-cache FILE: the fastest configuration of each shape and op pair (among those within 2e-2 of cuBLAS)
 * as a tuning cache for this GPU (gemm/common/tune_cache.h; the library reads it from WSGEMM_TUNE_CACHE). The
 * timing runs ignore any WSGEMM_TUNE_CACHE of the environment.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup, strtok_r */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "common/device.h"     /* the GPU's UUID for the cache */
#include "common/knobs.h"      /* the library reads the knobs once: reload after each change */
#include "common/tune_cache.h" /* --write-cache */
#include "cli.h"
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
    {"BN192 S4", {{"WSGEMM_SM90_BN", "192"}, {NULL, NULL}}},
    {"BN128 S6", {{"WSGEMM_SM90_BN", "128"}, {NULL, NULL}}},
    {"BN64 S8", {{"WSGEMM_SM90_BN", "64"}, {NULL, NULL}}},
    {"group 1", {{"WSGEMM_SM90_GROUP", "1"}, {NULL, NULL}}},
    {"group 16", {{"WSGEMM_SM90_GROUP", "16"}, {NULL, NULL}}},
    {"TMA-store epilogue", {{"WSGEMM_SM90_EPILOGUE", "tma"}, {NULL, NULL}}},
    {"TMA-store, 3 stages", {{"WSGEMM_SM90_EPILOGUE", "tma"}, {"WSGEMM_SM90_VARIANT", "2"}, {NULL, NULL}}},
    {"staged C tile", {{"WSGEMM_SM90_EPILOGUE", "staged"}, {NULL, NULL}}},
    {"pingpong BN128", {{"WSGEMM_SM90_VARIANT", "6"}, {"WSGEMM_SM90_BN", "128"}, {NULL, NULL}}},
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
    {"cluster 4 BN128 splitk 1",
     {{"WSGEMM_SM90_VARIANT", "3"}, {"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "1"}}},
    {"cluster 4 BN128 splitk 2",
     {{"WSGEMM_SM90_VARIANT", "3"}, {"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "2"}}},
    {"pingpong BN128", {{"WSGEMM_SM90_VARIANT", "6"}, {"WSGEMM_SM90_BN", "128"}, {NULL, NULL}}},
    {"pingpong BN128 splitk 2", {{"WSGEMM_SM90_VARIANT", "6"}, {"WSGEMM_SM90_BN", "128"}, {"WSGEMM_SM90_SPLITK", "2"}}},
};

static const char *vars[] = {"WSGEMM_SM90_VARIANT", "WSGEMM_SM90_SWAP",  "WSGEMM_SM90_BN",       "WSGEMM_SM90_GROUP",
                             "WSGEMM_SM90_SPLITK",  "WSGEMM_SM90_DEBUG", "WSGEMM_SM90_EPILOGUE", "WSGEMM_SM90_HYBRID"};

/* configurations from the command line (--config) */
enum { kMaxUserConfigs = 24 };
static config user_configs[kMaxUserConfigs + 1]; /* [0]: the plan's own choice */
static int n_user_configs;

/* "LABEL=VAR=V[,VAR=V[,VAR=V]]", VAR one of vars[] with or without its WSGEMM_SM90_ prefix; returns 0 when it
 * parsed. The configuration's strings point into one copy of arg, the prefixed names into copies of their own. */
static int parse_config(const char *arg)
{
    char *copy = strdup(arg), *eq = strchr(copy, '='), *save = NULL;
    if (n_user_configs == kMaxUserConfigs || !eq || eq == copy) return 1;
    *eq = '\0';
    config *c = &user_configs[n_user_configs + 1];
    c->label = copy;
    int i = 0;
    for (char *item = strtok_r(eq + 1, ",", &save); item; item = strtok_r(NULL, ",", &save), ++i) {
        char *veq = strchr(item, '='), name[64];
        if (i == 3 || !veq) return 1;
        *veq = '\0';
        snprintf(name, sizeof name, "%s%s", strncmp(item, "WSGEMM_", 7) == 0 ? "" : "WSGEMM_SM90_", item);
        size_t v = 0;
        while (v < sizeof vars / sizeof vars[0] && strcmp(vars[v], name) != 0) ++v;
        if (v == sizeof vars / sizeof vars[0]) return 1; /* a name apply() would not reset */
        c->env[i][0] = vars[v];
        c->env[i][1] = veq + 1;
    }
    if (i == 0) return 1;
    ++n_user_configs;
    return 0;
}

static void apply(const config *c)
{
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) unsetenv(vars[i]);
    for (int i = 0; i < 3 && c->env[i][0]; ++i) setenv(c->env[i][0], c->env[i][1], 1);
    wsgemm_knobs_reload();
}

typedef struct sets {
    int count;
    void *A[8], *B[8], *C[8], *C_cublas[8]; /* C_cublas: cuBLAS's own outputs, so its writes never meet ours */
} sets;

typedef struct shape {
    int m, n, k;
} shape;

/* The split-K / tile-width table is for shapes that leave SMs idle: a skinny side or few output tiles. */
static int is_small_shape(const shape *sh)
{
    return sh->m <= 256 || sh->n <= 256 || (long long)sh->m * sh->n <= 2048LL * 2048LL;
}

/* --write-cache: one entry line per shape and op pair */
enum { kMaxEntries = 64 };
static char entries[kMaxEntries][384];
static int n_entries;

/* The entry of the fastest configuration for op pair ta tb of sh: its key and its variables. */
static void add_entry(wsgemm_op ta, wsgemm_op tb, const shape *sh, const config *best);

static wsgemm_handle handle;
static cublasHandle_t cublas;
static float beta_arg = 0.0f;
static int nn_only = 0;
static wsgemm_dtype c_type = WSGEMM_R_16BF;

/* one call of either library on set s; returns 0 on success */
static int call(int use_cublas, wsgemm_op ta, wsgemm_op tb, const shape *sh, const sets *st, int s)
{
    float alpha = 1.0f, beta = beta_arg;
    int lda = ta == WSGEMM_OP_N ? sh->m : sh->k;
    int ldb = tb == WSGEMM_OP_N ? sh->k : sh->n;
    if (use_cublas) {
        cublasStatus_t r =
            cublasGemmEx(cublas, (cublasOperation_t)ta, (cublasOperation_t)tb, sh->m, sh->n, sh->k, &alpha, st->A[s],
                         CUDA_R_16BF, lda, st->B[s], CUDA_R_16BF, ldb, &beta, st->C_cublas[s], (cudaDataType_t)c_type,
                         sh->m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        return r != CUBLAS_STATUS_SUCCESS;
    }
    wsgemm_status r = wsgemm_gemm_ex(handle, ta, tb, sh->m, sh->n, sh->k, &alpha, st->A[s], WSGEMM_R_16BF, lda,
                                     st->B[s], WSGEMM_R_16BF, ldb, &beta, st->C[s], c_type, sh->m);
    if (r != WSGEMM_STATUS_SUCCESS) {
        printf("    wsgemm failed: %s: %s\n", wsgemm_status_string(r), wsgemm_get_last_error_message(handle));
        return 1;
    }
    return 0;
}

/* One library's calls for testing_time_interleaved: call i runs on set i % count. */
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

/* relative difference of wsgemm's C of set 0 to cuBLAS's, on a sample (both as written, same inputs) */
static double sample_diff(const shape *sh, const sets *st)
{
    size_t n = (size_t)sh->m * sh->n, bytes = n * (size_t)testing_dtype_bytes(c_type);
    void *got = malloc(bytes), *ref = malloc(bytes);
    CUDA_CHECK(cudaMemcpy(got, st->C[0], bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ref, st->C_cublas[0], bytes, cudaMemcpyDeviceToHost));
    double maxref = 0.0, maxdiff = 0.0;
    size_t step = n > 2000000 ? 97 : 1;
    for (size_t i = 0; i < n; i += step) {
        double r = testing_load(c_type, ref, i), g = testing_load(c_type, got, i);
        if (fabs(r) > maxref) maxref = fabs(r);
        double d = fabs(r - g);
        if (!(d <= maxdiff)) maxdiff = d; /* NaN propagates */
    }
    free(got);
    free(ref);
    return maxref > 0 ? maxdiff / maxref : maxdiff;
}

/* C of every set: uniform [-1, 1] for beta != 0 (the same values in wsgemm's and cuBLAS's copy), else NaN */
static void reset_c(const shape *sh, const sets *st)
{
    size_t ec = (size_t)sh->m * sh->n, bytes = ec * (size_t)testing_dtype_bytes(c_type);
    for (int s = 0; s < st->count; ++s) {
        if (beta_arg != 0.0f) {
            testing_device_fill_uniform(c_type, st->C[s], ec, 77 + (uint64_t)s);
            CUDA_CHECK(cudaMemcpy(st->C_cublas[s], st->C[s], bytes, cudaMemcpyDeviceToDevice));
        } else {
            CUDA_CHECK(cudaMemset(st->C[s], 0xFF, bytes));
            CUDA_CHECK(cudaMemset(st->C_cublas[s], 0xFF, bytes));
        }
    }
}

static void run_shape(const shape *sh, int reps, int small)
{
    size_t ea = (size_t)sh->m * sh->k, eb = (size_t)sh->k * sh->n, ec = (size_t)sh->m * sh->n;
    size_t cb = (size_t)testing_dtype_bytes(c_type);
    size_t set_bytes = (ea + eb) * 2 + ec * cb;
    int l2 = 0, dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    sets st;
    st.count = (int)((2.2 * l2) / (double)set_bytes) + 1;
    if (st.count < 2) st.count = 2;
    if (st.count > 8) st.count = 8;
    for (int s = 0; s < st.count; ++s) {
        CUDA_CHECK(cudaMalloc(&st.A[s], ea * 2));
        CUDA_CHECK(cudaMalloc(&st.B[s], eb * 2));
        CUDA_CHECK(cudaMalloc(&st.C[s], ec * cb));
        CUDA_CHECK(cudaMalloc(&st.C_cublas[s], ec * cb));
        testing_device_fill_uniform(WSGEMM_R_16BF, st.A[s], ea, 1234 + 2 * (uint64_t)s);
        testing_device_fill_uniform(WSGEMM_R_16BF, st.B[s], eb, 1235 + 2 * (uint64_t)s);
    }
    double flops = 2.0 * sh->m * sh->n * sh->k;
    const config *cfgs = small ? small_configs : big_configs;
    int ncfg = small ? (int)(sizeof small_configs / sizeof small_configs[0])
                     : (int)(sizeof big_configs / sizeof big_configs[0]);
    if (n_user_configs) {
        user_configs[0] = small_configs[0]; /* the plan's own choice first */
        cfgs = user_configs;
        ncfg = n_user_configs + 1;
    }

    for (int op = 0; op < (nn_only ? 1 : 2); ++op) {
        wsgemm_op ta = op ? WSGEMM_OP_T : WSGEMM_OP_N, tb = WSGEMM_OP_N;
        printf("\n%d x %d x %d  %cN  bf16->%s  beta %g   (GPU time, median of %d rounds side by side with cuBLAS)\n",
               sh->m, sh->n, sh->k, op ? 'T' : 'N', testing_dtype_name(c_type), (double)beta_arg, reps);
        printf("  %-26s %9s %9s %8s %9s %8s %8s %10s %6s\n", "sm90 config", "ms", "TFLOP/s", "x cuBLAS", "cuBLAS ms",
               "host us", "cuB. us", "rel diff", "held");
        int best = -1;
        double best_ms = INFINITY;
        for (int c = 0; c < ncfg; ++c) {
            apply(&cfgs[c]);
            setenv("WSGEMM_SM90_DEBUG", "1", 1);
            wsgemm_knobs_reload();
            reset_c(sh, &st);
            fprintf(stderr, "[%s] ", cfgs[c].label);
            int bad = call(0, ta, tb, sh, &st, 0) || call(1, ta, tb, sh, &st, 0);
            CUDA_CHECK(cudaDeviceSynchronize());
            unsetenv("WSGEMM_SM90_DEBUG");
            wsgemm_knobs_reload();
            double diff = bad ? INFINITY : sample_diff(sh, &st);
            timed tw = {0, ta, tb, sh, &st}, tc = {1, ta, tb, sh, &st};
            const testing_timed_lib libs[2] = {{"sm90", timed_call, &tw}, {"cuBLAS", timed_call, &tc}};
            const testing_timing_options opt = {.warmup = 3, .rounds = reps, .host_reps = 10};
            testing_timing t;
            if (bad || testing_time_interleaved(libs, 2, 0, &opt, &t) != 0) {
                printf("  %-26s %9s\n", cfgs[c].label, "failed");
                continue;
            }
            const double ms = t.lib[0].gpu_ms, cub = t.lib[1].gpu_ms;
            if (diff <= 2e-2 && ms < best_ms) {
                best_ms = ms;
                best = c;
            }
            printf("  %-26s %9.4f %9.0f %8.3f %9.4f %8.1f %8.1f %10.2e %3d/%-3d%s\n", cfgs[c].label, ms,
                   flops / ms / 1e9, cub / ms, cub, t.lib[0].host_us, t.lib[1].host_us, diff, t.held_rounds, t.rounds,
                   diff > 2e-2 || diff != diff ? "  BAD" : "");
            fflush(stdout);
        }
        if (best >= 0) add_entry(ta, tb, sh, &cfgs[best]);
        apply(&cfgs[0]);
    }
    for (int s = 0; s < st.count; ++s) {
        CUDA_CHECK(cudaFree(st.A[s]));
        CUDA_CHECK(cudaFree(st.B[s]));
        CUDA_CHECK(cudaFree(st.C[s]));
        CUDA_CHECK(cudaFree(st.C_cublas[s]));
    }
}

static void add_entry(wsgemm_op ta, wsgemm_op tb, const shape *sh, const config *best)
{
    if (n_entries == kMaxEntries) return;
    wsgemm_problem p;
    memset(&p, 0, sizeof p);
    p.transa = ta;
    p.transb = tb;
    p.Atype = p.Btype = WSGEMM_R_16BF;
    p.Ctype = c_type;
    p.m = sh->m;
    p.n = sh->n;
    p.k = sh->k;
    p.batch_count = 1;
    p.beta = beta_arg;
    char key[WSGEMM_TUNE_KEY_BYTES];
    wsgemm_tune_key("sm90", &p, key, sizeof key);
    char *line = entries[n_entries++];
    int n = snprintf(line, sizeof entries[0], "entry %s", key);
    for (int i = 0; i < 3 && best->env[i][0]; ++i)
        n += snprintf(line + n, sizeof entries[0] - (size_t)n, " %s=%s", best->env[i][0], best->env[i][1]);
    printf("  -> cache: %s  (%s)\n", line, best->label);
}

/* The cache file: header for this GPU and library, the entries, the checksum. */
static int write_cache(const char *path)
{
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    char uuid[64];
    wsgemm_gpu_uuid_text(prop.uuid.bytes, uuid, sizeof uuid);
    size_t size = 256 + (size_t)n_entries * sizeof entries[0], n = 0;
    char *text = malloc(size);
    n += (size_t)snprintf(text + n, size - n, "wsgemm-tune-cache 1\nlibrary %d.%d.%d\ngpu %s\n", WSGEMM_VERSION_MAJOR,
                          WSGEMM_VERSION_MINOR, WSGEMM_VERSION_PATCH, uuid);
    for (int i = 0; i < n_entries; ++i) n += (size_t)snprintf(text + n, size - n, "%s\n", entries[i]);
    n += (size_t)snprintf(text + n, size - n, "checksum %016llx\n", (unsigned long long)wsgemm_tune_checksum(text, n));
    FILE *f = fopen(path, "w");
    int ok = f && fwrite(text, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(text);
    if (!ok) {
        fprintf(stderr, "%s: cannot write the tuning cache %s\n", "sm90_tune", path);
        return 1;
    }
    printf("tuning cache: %d entries for %s in %s (WSGEMM_TUNE_CACHE=%s)\n", n_entries, uuid, path, path);
    return 0;
}

static const char kProg[] = "sm90_tune";

static void usage(void)
{
    printf("usage: %s [--all] [--reps N] [--beta B] [--c bf16|f32] [--nn] [--config LABEL=VAR=V,VAR=V ...] "
           "[--write-cache FILE] [m n k ...]\n"
           "       %s --help\n"
           "sm90 kernel configurations timed against cuBLAS (docs/tuning.md). Exit 0 (also without a CUDA device\n"
           "or without a compute capability 9.0 one: nothing run); 2: bad arguments.\n",
           kProg, kProg);
}

int main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage();
        return 0;
    }
    int reps = 20, all = 0;
    const char *cache_out = NULL;
    shape user[16];
    int nuser = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--all") == 0)
            all = 1;
        else if (strcmp(a, "--reps") == 0)
            reps = cli_int(kProg, a, cli_value(kProg, argc, argv, &i), 1, INT_MAX);
        else if (strcmp(a, "--beta") == 0)
            beta_arg = cli_float(kProg, a, cli_value(kProg, argc, argv, &i));
        else if (strcmp(a, "--c") == 0) {
            const char *v = cli_value(kProg, argc, argv, &i);
            if (strcmp(v, "f32") && strcmp(v, "bf16")) cli_fail(kProg, "--c: '%s' is not bf16 or f32", v);
            c_type = strcmp(v, "f32") == 0 ? WSGEMM_R_32F : WSGEMM_R_16BF;
        } else if (strcmp(a, "--nn") == 0)
            nn_only = 1;
        else if (strcmp(a, "--write-cache") == 0)
            cache_out = cli_value(kProg, argc, argv, &i);
        else if (strcmp(a, "--config") == 0) {
            const char *v = cli_value(kProg, argc, argv, &i);
            if (parse_config(v) != 0)
                cli_fail(kProg,
                         "--config wants LABEL=VAR=V[,VAR=V[,VAR=V]], VAR a WSGEMM_SM90_ variable (at most %d "
                         "configurations): %s",
                         kMaxUserConfigs, v);
        } else if (a[0] == '-' && !(a[1] >= '0' && a[1] <= '9'))
            cli_fail(kProg, "unknown flag '%s'", a);
        else {
            if (i + 2 >= argc)
                cli_fail(kProg, "a shape is three numbers, m n k; got '%s' and %d more", a, argc - 1 - i);
            if (nuser == 16) cli_fail(kProg, "at most 16 shapes");
            user[nuser].m = cli_int(kProg, "m (of a shape)", argv[i], 1, INT_MAX);
            user[nuser].n = cli_int(kProg, "n (of a shape)", argv[i + 1], 1, INT_MAX);
            user[nuser].k = cli_int(kProg, "k (of a shape)", argv[i + 2], 1, INT_MAX);
            nuser++;
            i += 2;
        }
    }
    if (testing_gpu_count() == 0) return cli_no_gpu(kProg, "nothing to run");
    if (testing_device_cc() != 90) {
        fprintf(stderr, "%s: the sm90 path needs a compute capability 9.0 GPU, this one is %d.%d; nothing to run\n",
                kProg, testing_device_cc() / 10, testing_device_cc() % 10);
        return 0;
    }
    unsetenv("WSGEMM_TUNE_CACHE"); /* time the configurations, not an older cache's */
    wsgemm_knobs_reload();
    WSGEMM_CHECK(wsgemm_create(&handle));
    WSGEMM_CHECK(wsgemm_set_path(handle, WSGEMM_PATH_SM90));
    CUBLAS_CHECK(cublasCreate(&cublas));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("sm90_tune on %s (%d SMs), GPU time side by side with cuBLAS, median of %d rounds\n", prop.name,
           prop.multiProcessorCount, reps);

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
    return cache_out ? write_cache(cache_out) : 0;
}
