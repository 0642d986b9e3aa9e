// SPDX-License-Identifier: MIT
/*
 * support.c - the helpers of reliability.h: problems with their own buffers and a cuBLAS reference per
 * device, the workspace-needing shapes, the child-process runner. Host C11.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, posix_spawn, clock_gettime */
#include "common/knobs.h"       /* wsgemm_knobs_reload */
#include "reliability.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <cublas_v2.h>

#ifndef RELIABILITY_HAS_SM90
#define RELIABILITY_HAS_SM90 0
#endif

extern char **environ;

atomic_int rel_failures;

enum { REL_MAX_DEVICES = 16 };

/* ---------------------------------------------------------------- small things */

void rel_skip(const char *why)
{
    printf("SKIPPED: %s\n", why);
    fflush(stdout);
    exit(WSGEMM_TEST_SKIP);
}

int rel_sm90_runs(void)
{
    return RELIABILITY_HAS_SM90 && testing_device_cc() == 90;
}

void rel_require_sm90(void)
{
    if (!rel_sm90_runs())
        rel_skip("the forced sm90 path needs a compute capability 9.0 device and a build with sm_90a");
}

wsgemm_path rel_auto_path(void)
{
    return rel_sm90_runs() ? WSGEMM_PATH_SM90 : WSGEMM_PATH_AUTO;
}

static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

int rel_mentions(const char *msg, const char *word)
{
    size_t len = strlen(word);
    for (const char *at = strstr(msg, word); at; at = strstr(at + 1, word)) {
        int clean_before = at == msg || !is_word_char(at[-1]);
        int clean_after = !is_word_char(at[len]);
        if (clean_before && clean_after) return 1;
    }
    return 0;
}

double rel_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

cudaStream_t rel_stream_create(void)
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
}

/* ---------------------------------------------------------------- problems */

static void *at_offset(void *base, int offset, wsgemm_dtype t)
{
    return (char *)base + (size_t)offset * (size_t)testing_dtype_bytes(t);
}

static size_t c_bytes(const rel_problem *p)
{
    return p->b.elems_c * (size_t)testing_dtype_bytes(p->g.c_type);
}

void rel_problem_create(rel_problem *p, const testing_gemm *g, int splitk, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->g = *g;
    testing_gemm_resolve(&p->g);
    p->splitk = splitk;
    testing_buffers_create(&p->g, seed, &p->b);
    size_t outputs = (size_t)p->g.batch * (size_t)p->g.m * (size_t)p->g.n;
    p->ref = malloc((outputs ? outputs : 1) * sizeof(double));
    if (!p->ref) {
        fprintf(stderr, "rel_problem_create: out of host memory\n");
        exit(1);
    }
    p->status = WSGEMM_STATUS_SUCCESS;
    p->path = WSGEMM_PATH_NONE;
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void fill_host_uniform(wsgemm_dtype t, void *host, size_t count, uint64_t seed)
{
    testing_rng rng = testing_rng_seeded(seed);
    for (size_t i = 0; i < count; ++i) testing_store(t, host, i, testing_rng_uniform(&rng));
}

void rel_problem_new_inputs(rel_problem *p, uint64_t seed)
{
    size_t ab = (size_t)testing_dtype_bytes(p->g.ab_type);
    fill_host_uniform(p->g.ab_type, p->b.hA, p->b.elems_a, seed * 7 + 1);
    fill_host_uniform(p->g.ab_type, p->b.hB, p->b.elems_b, seed * 7 + 2);
    CUDA_CHECK(cudaMemcpy(p->b.A, p->b.hA, p->b.elems_a * ab, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p->b.B, p->b.hB, p->b.elems_b * ab, cudaMemcpyHostToDevice));
    rel_problem_repoison(p);
}

void rel_problem_repoison(rel_problem *p)
{
    testing_buffers_repoison(&p->g, &p->b);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static cublasHandle_t cublas_of_current_device(void)
{
    static cublasHandle_t handles[REL_MAX_DEVICES];
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= REL_MAX_DEVICES) {
        fprintf(stderr, "device %d: the reliability tests keep cuBLAS handles for %d devices\n", dev, REL_MAX_DEVICES);
        exit(1);
    }
    if (!handles[dev]) CUBLAS_CHECK(cublasCreate(&handles[dev]));
    return handles[dev];
}

void rel_problem_reference(rel_problem *p)
{
    const testing_gemm *g = &p->g;
    const size_t m = (size_t)g->m, n = (size_t)g->n, total = (size_t)g->batch * m * n;
    float *hc = calloc(total ? total : 1, sizeof(float));
    if (!hc) {
        fprintf(stderr, "rel_problem_reference: out of host memory\n");
        exit(1);
    }
    if (g->beta != 0.0f)
        for (int bt = 0; bt < g->batch; ++bt)
            for (size_t j = 0; j < n; ++j)
                for (size_t i = 0; i < m; ++i)
                    hc[(size_t)bt * m * n + i + j * m] =
                        testing_load(g->c_type, p->b.hC0,
                                     (size_t)g->offset + (size_t)bt * (size_t)g->strideC + i + j * (size_t)g->ldc);
    float *dc = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dc, (total ? total : 1) * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dc, hc, total * sizeof(float), cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        cublas_of_current_device(), (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, g->m, g->n, g->k,
        &g->alpha, at_offset(p->b.A, g->offset, g->ab_type), (cudaDataType_t)g->ab_type, g->lda, g->strideA,
        at_offset(p->b.B, g->offset, g->ab_type), (cudaDataType_t)g->ab_type, g->ldb, g->strideB, &g->beta, dc,
        CUDA_R_32F, g->m, (long long)(m * n), g->batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(hc, dc, total * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < total; ++i) p->ref[i] = hc[i];
    CUDA_CHECK(cudaFree(dc));
    free(hc);
}

void rel_cublas_small_c(const testing_gemm *g, const void *A, const void *B, float *out)
{
    const size_t mn = (size_t)g->m * (size_t)g->n;
    float *dc = NULL;
    const float zero = 0.0f;
    CUDA_CHECK(cudaMalloc((void **)&dc, mn * sizeof(float)));
    CUBLAS_CHECK(cublasGemmEx(cublas_of_current_device(), (cublasOperation_t)g->transa, (cublasOperation_t)g->transb,
                              g->m, g->n, g->k, &g->alpha, A, (cudaDataType_t)g->ab_type, g->lda, B,
                              (cudaDataType_t)g->ab_type, g->ldb, &zero, dc, CUDA_R_32F, g->m, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaMemcpy(out, dc, mn * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dc));
}

static void set_splitk(int splitk)
{
    if (splitk <= 0) return;
    char value[16];
    snprintf(value, sizeof value, "%d", splitk);
    setenv("WSGEMM_SM90_SPLITK", value, 1);
    wsgemm_knobs_reload(); /* the launchers read the knobs once */
}

static void clear_splitk(int splitk)
{
    if (splitk > 0) {
        unsetenv("WSGEMM_SM90_SPLITK");
        wsgemm_knobs_reload();
    }
}

wsgemm_status rel_problem_run(wsgemm_handle h, rel_problem *p)
{
    set_splitk(p->splitk);
    p->status = testing_run_wsgemm(h, &p->g, &p->b);
    clear_splitk(p->splitk);
    p->path = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &p->path);
    return p->status;
}

int rel_problem_check(const rel_problem *p, const char *label)
{
    void *got = malloc(c_bytes(p));
    if (!got) {
        fprintf(stderr, "rel_problem_check: out of host memory\n");
        exit(1);
    }
    CUDA_CHECK(cudaMemcpy(got, p->b.C, c_bytes(p), cudaMemcpyDeviceToHost));
    testing_report r = testing_check(&p->g, got, p->b.hC0, p->ref, testing_tolerance_for(p->g.c_type), label);
    free(got);
    if (!r.passed) {
        char shape[256];
        testing_gemm_describe(&p->g, shape, sizeof shape);
        printf("  wrong [%s] %s splitk=%d: %zu of %zu elements off, %zu NaN, rel_fro %.2e\n", label, shape, p->splitk,
               r.mismatches, r.checked, r.nan_count, r.rel_fro);
    }
    return r.passed;
}

int rel_problem_c_untouched(const rel_problem *p)
{
    void *now = malloc(c_bytes(p));
    if (!now) {
        fprintf(stderr, "rel_problem_c_untouched: out of host memory\n");
        exit(1);
    }
    CUDA_CHECK(cudaMemcpy(now, p->b.C, c_bytes(p), cudaMemcpyDeviceToHost));
    int same = memcmp(now, p->b.hC0, c_bytes(p)) == 0;
    free(now);
    return same;
}

size_t rel_problem_workspace_size(wsgemm_handle h, const rel_problem *p)
{
    const testing_gemm *g = &p->g;
    size_t bytes = 0;
    set_splitk(p->splitk);
    wsgemm_status s = wsgemm_gemm_workspace_size(
        h, g->transa, g->transb, g->m, g->n, g->k, at_offset(p->b.A, g->offset, g->ab_type), g->ab_type, g->lda,
        g->strideA, at_offset(p->b.B, g->offset, g->ab_type), g->ab_type, g->ldb, g->strideB,
        at_offset(p->b.C, g->offset, g->c_type), g->c_type, g->ldc, g->strideC, g->batch, &bytes);
    clear_splitk(p->splitk);
    if (s != WSGEMM_STATUS_SUCCESS) {
        printf("FAIL: wsgemm_gemm_workspace_size: %s (%s)\n", wsgemm_status_string(s),
               wsgemm_get_last_error_message(h));
        exit(1);
    }
    return bytes;
}

void rel_problem_destroy(rel_problem *p)
{
    testing_buffers_destroy(&p->b);
    free(p->ref);
    p->ref = NULL;
}

int rel_check_all(const rel_problem *ps, int count, const char *label)
{
    int wrong = 0;
    for (int i = 0; i < count; ++i) wrong += !rel_problem_check(&ps[i], label);
    printf("%s: %d of %d results wrong\n", label, wrong, count);
    REL_EXPECT(wrong == 0, "%s: %d of %d results differ from cuBLAS", label, wrong, count);
    return wrong;
}

testing_gemm rel_workspace_shape(int i, int small, int *splitk)
{
    testing_gemm g;
    *splitk = 0;
    switch (i % 4) {
    case 0: /* 1001 * 2 bytes is not a multiple of 16: A and B are staged */
        g = small ? testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 200, 136, 201)
                  : testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 1000, 512, 1001);
        g.lda = small ? 201 : 1001;
        break;
    case 1: /* K-major operands with leading dimension 4099 (515 small), output fp32 */
        g = small ? testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 128, 96, 515)
                  : testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 768, 384, 4099);
        g.c_type = WSGEMM_R_32F;
        break;
    case 2: /* bases 6 bytes past 16-byte alignment, fp16 */
        g = small ? testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_T, 160, 100, 256)
                  : testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_T, 640, 520, 768);
        g.offset = 3;
        g.ab_type = WSGEMM_R_16F;
        g.c_type = WSGEMM_R_16F;
        break;
    default: /* aligned; split-K partials in the workspace */
        g = small ? testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 256, 256, 512)
                  : testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 512, 512, 2048);
        *splitk = 4;
        break;
    }
    return g;
}

/* ---------------------------------------------------------------- child processes */

int rel_run_child(const char *case_name)
{
    char *argv[] = {(char *)"/proc/self/exe", (char *)case_name, (char *)"--child", NULL};
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int err = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    if (err != 0) {
        printf("FAIL: posix_spawn of the child for %s: %s\n", case_name, strerror(err));
        return 1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            printf("FAIL: waitpid for the child of %s: %s\n", case_name, strerror(errno));
            return 1;
        }
    }
    if (WIFSIGNALED(status)) {
        printf("FAIL: the child running %s was killed by signal %d (%s)\n", case_name, WTERMSIG(status),
               strsignal(WTERMSIG(status)));
        return 1;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    printf("child process for %s exited with %d (%s)\n", case_name, code,
           code == 0                  ? "passed"
           : code == WSGEMM_TEST_SKIP ? "skipped"
                                      : "failed");
    return code == 0 ? 0 : code == WSGEMM_TEST_SKIP ? WSGEMM_TEST_SKIP : 1;
}
