// SPDX-License-Identifier: MIT
/*
 * self_check_gpu_test.c - the sm100 self-check with the real helper, on a GPU (label gpu; exit 77 without
 * one). The path under test is the one the device can run: sm100 on a Blackwell (10.0) GPU, the emulated
 * sm100 kernel on a Hopper (9.0) GPU, where WSGEMM_SM100_AUTO_EMULATED=1 lets AUTO choose it after a pass
 * as Blackwell's AUTO chooses sm100. AUTO's path without it: sm90 on Hopper, generic on Blackwell.
 *
 *   self_check_gpu_test <case> <helper>
 *   helper         the helper alone: exit 0, the pass line (every kind of plan), every case line "ok"
 *   auto_chain     AUTO in this process: no verdict yet -> the helper runs -> pass -> the GEMM runs on the
 *                  path under test and matches cuBLAS, and so does an FP8 matmul with bias + ReLU (the same
 *                  bits as the generic path's); the verdict file holds "pass" for this GPU. Then fresh
 *                  processes (this program, case "child"): the cached pass is used; a cached "fail" written
 *                  over it keeps AUTO off the path (proof that the file is read and no helper runs); "trust"
 *                  overrides it; "fresh" runs the helper again and writes "pass" back; "off" keeps AUTO off;
 *                  a missing helper without a cached verdict keeps AUTO off with a warning naming it.
 *   planted_fault  (Hopper, emulated build) WSGEMM_SM100_FAULT=early_dealloc makes the helper's kernel
 *                  free TMEM too early: the verdict is "fail", cached, and AUTO stays off the path.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/knobs.h"
#include "sm100/self_check.h"
#include "testing.h"

static int failures;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

static char work[256];
static const char *self_path;

typedef struct target {
    wsgemm_path path;     /* the path under test */
    wsgemm_path fallback; /* AUTO's path without it */
} target;

/* The path this device can check, or exit 77 when it has none in this build. */
static target target_for_device(void)
{
    const int cc = testing_device_cc();
    if (cc == 100 && wsgemm_sm100_available()) return (target){WSGEMM_PATH_SM100, WSGEMM_PATH_GENERIC};
    if (cc == 90 && wsgemm_sm100_emulated_available()) return (target){WSGEMM_PATH_SM100_EMULATED, WSGEMM_PATH_SM90};
    printf("SKIPPED: this build has no sm100 path that compute capability %d.%d runs\n", cc / 10, cc % 10);
    exit(WSGEMM_TEST_SKIP);
}

static wsgemm_self_check_verdict run_helper(const char *helper, const target *t, wsgemm_self_check_run_outcome *o)
{
    char *argv[] = {(char *)helper, "--device", "0", "--path", (char *)wsgemm_path_name(t->path), NULL};
    wsgemm_self_check_spawn(helper, argv, 550.0, o);
    char detail[1024];
    const wsgemm_self_check_verdict v = wsgemm_self_check_judge(o, detail, sizeof detail);
    printf("helper: exit %d, signal %d, timed out %d, %.1f s: %s\n", o->exit_code, o->signal, o->timed_out, o->seconds,
           detail);
    return v;
}

static void case_helper(const char *helper)
{
    const target t = target_for_device();
    wsgemm_self_check_run_outcome o;
    const wsgemm_self_check_verdict v = run_helper(helper, &t, &o);
    EXPECT(v == WSGEMM_SELF_CHECK_PASS, "the helper did not pass on %s", wsgemm_path_name(t.path));
    EXPECT(o.exited && o.exit_code == 0, "exit %d", o.exit_code);
    EXPECT(strstr(o.result_line, "cta_group 1 and 2") != NULL && strstr(o.result_line, "every kind of plan") != NULL,
           "result line: %s", o.result_line);
}

/* The cache file this process's knobs and device 0 give. */
static void cache_file_for(const target *t, wsgemm_self_check_request *rq)
{
    wsgemm_knobs_reload();
    char why[256];
    if (wsgemm_self_check_request_for(0, t->path, wsgemm_knobs_get(), rq, why, sizeof why) != WSGEMM_STATUS_SUCCESS) {
        fprintf(stderr, "request: %s\n", why);
        exit(1);
    }
}

/* Rewrite the verdict line of the cache file (the key stays valid). */
static void set_cached_verdict(const char *path, const char *from, const char *to)
{
    char buf[4096] = "";
    FILE *f = fopen(path, "r");
    const size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    char *at = strstr(buf, from);
    EXPECT(at != NULL, "the cache file lacks '%s'", from);
    if (!at) return;
    char out[4096];
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
    f = fopen(path, "w");
    fputs(out, f);
    fclose(f);
}

/* One GEMM under AUTO against cuBLAS in a fresh process (this program's case "child"), which must run
 * `expect`. */
static void expect_child(const char *what, wsgemm_path expect)
{
    char *argv[] = {(char *)self_path, "child", (char *)wsgemm_path_name(expect), NULL};
    wsgemm_self_check_run_outcome o;
    wsgemm_self_check_spawn(self_path, argv, 550.0, &o);
    printf("%-58s child: exit %d (%.1f s): %s\n", what, o.exit_code, o.seconds, o.last_line);
    EXPECT(o.exited && o.exit_code == 0, "%s: the child (expecting %s) exited %d: %s", what, wsgemm_path_name(expect),
           o.exit_code, o.last_line);
}

/* An FP8 matmul with bias + ReLU under AUTO: it must run on `expect` (every path AUTO can take runs this call)
 * and give the bits the generic path gives. The operands are E4M3 codes of 0, +-1/4, +-1/2, +-1 and the bias
 * multiples of 1/4, so every sum is exact in fp32 and both paths round the same value once to bf16. */
static int matmul_child(wsgemm_handle h, wsgemm_path expect)
{
    static const uint8_t kCodes[] = {0x00, 0x28, 0xA8, 0x30, 0xB0, 0x38, 0xB8}; /* 0, +-1/4, +-1/2, +-1 */
    const int m = 256, n = 192, k = 320;
    const size_t na = (size_t)k * m, nb = (size_t)k * n, nd = (size_t)m * n;
    uint8_t *ha = malloc(na), *hb = malloc(nb);
    uint16_t *hbias = malloc((size_t)m * 2), *d1 = malloc(nd * 2), *d2 = malloc(nd * 2);
    uint64_t r = 12345u;
    for (size_t i = 0; i < na; ++i) ha[i] = kCodes[(r = r * 6364136223846793005ull + 1442695040888963407ull) >> 61];
    for (size_t i = 0; i < nb; ++i) hb[i] = kCodes[(r = r * 6364136223846793005ull + 1442695040888963407ull) >> 61];
    for (int i = 0; i < m; ++i)
        hbias[i] = (uint16_t)(i % 3 == 0 ? 0x3E80u : i % 3 == 1 ? 0xBF00u : 0u); /* 1/4, -1/2, 0 */
    void *a, *b, *bias, *d;
    CUDA_CHECK(cudaMalloc(&a, na));
    CUDA_CHECK(cudaMalloc(&b, nb));
    CUDA_CHECK(cudaMalloc(&bias, (size_t)m * 2));
    CUDA_CHECK(cudaMalloc(&d, nd * 2));
    CUDA_CHECK(cudaMemcpy(a, ha, na, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b, hb, nb, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(bias, hbias, (size_t)m * 2, cudaMemcpyHostToDevice));
    wsgemm_matmul_desc desc;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&desc, WSGEMM_OP_T, WSGEMM_OP_N, WSGEMM_R_8F_E4M3, WSGEMM_R_16BF));
    desc.epilogue = WSGEMM_MATMUL_EPILOGUE_RELU_BIAS;
    desc.bias = bias;
    const float alpha = 1.0f, beta = 0.0f;
    wsgemm_path ran[2] = {WSGEMM_PATH_NONE, WSGEMM_PATH_NONE};
    uint16_t *out[2] = {d1, d2};
    const wsgemm_path paths[2] = {WSGEMM_PATH_AUTO, WSGEMM_PATH_GENERIC};
    for (int i = 0; i < 2; ++i) {
        CUDA_CHECK(cudaMemset(d, 0xFF, nd * 2));
        WSGEMM_CHECK(wsgemm_set_path(h, paths[i]));
        WSGEMM_CHECK(wsgemm_matmul(h, &desc, m, n, k, &alpha, a, k, b, k, &beta, NULL, m, d, m));
        wsgemm_get_last_path(h, &ran[i]);
        CUDA_CHECK(cudaMemcpy(out[i], d, nd * 2, cudaMemcpyDeviceToHost));
    }
    const int same = memcmp(d1, d2, nd * 2) == 0;
    printf("matmul (e4m3, bias + relu) under AUTO: path %s (expected %s), %s the generic path's bits\n",
           wsgemm_path_name(ran[0]), wsgemm_path_name(expect), same ? "equal to" : "DIFFERENT from");
    cudaFree(a);
    cudaFree(b);
    cudaFree(bias);
    cudaFree(d);
    free(ha);
    free(hb);
    free(hbias);
    free(d1);
    free(d2);
    return ran[0] == expect && same;
}

static int case_child(const char *expect_name)
{
    wsgemm_path expect = WSGEMM_PATH_NONE;
    for (int p = WSGEMM_PATH_AUTO; p <= WSGEMM_PATH_SM100_EMULATED; ++p)
        if (strcmp(expect_name, wsgemm_path_name((wsgemm_path)p)) == 0) expect = (wsgemm_path)p;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    testing_gemm g = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 300, 264, 136); /* TMA-legal, off the tile grid */
    g.lda = 136;
    g.ldb = 136;
    g.beta = 0.5f;
    const int ok = testing_case_against_cublas(h, &g, expect, 7, 1) && matmul_child(h, expect);
    wsgemm_destroy(h);
    return ok ? 0 : 1;
}

static void setup_env(const char *helper, const char *cache_home)
{
    setenv("XDG_CACHE_HOME", cache_home, 1);
    setenv("WSGEMM_SM100_SELF_CHECK_HELPER", helper, 1);
    setenv("WSGEMM_SM100_AUTO_EMULATED", "1", 1);
    unsetenv("WSGEMM_SM100_SELF_CHECK");
    unsetenv("WSGEMM_SM100_FAULT");
    wsgemm_knobs_reload();
}

static void case_auto_chain(const char *helper)
{
    const target t = target_for_device();
    char cache_home[512];
    snprintf(cache_home, sizeof cache_home, "%s/cache", work);
    setup_env(helper, cache_home);
    wsgemm_self_check_request rq;
    cache_file_for(&t, &rq);
    printf("cache file %s\nkey %s\n", rq.cache_file, rq.key);
    EXPECT(strstr(rq.cache_file, cache_home) == rq.cache_file, "the cache file is not under XDG_CACHE_HOME: %s",
           rq.cache_file);
    EXPECT(strcmp(rq.helper, helper) == 0, "the override helper was not taken: %s (%s)", rq.helper, rq.helper_note);

    /* 1. this process: no verdict yet, so the first AUTO call runs the helper, then the path */
    EXPECT(access(rq.cache_file, F_OK) != 0, "a verdict file exists before the first call");
    EXPECT(case_child(wsgemm_path_name(t.path)) == 0, "AUTO after the self-check did not run %s correctly",
           wsgemm_path_name(t.path));
    EXPECT(testing_file_has(rq.cache_file, "verdict pass") && testing_file_has(rq.cache_file, rq.key),
           "the cache file does not hold a pass for this key");

    /* 2. fresh processes */
    expect_child("cached pass", t.path);
    set_cached_verdict(rq.cache_file, "verdict pass", "verdict fail");
    expect_child("cached fail (the helper would pass: not run)", t.fallback);
    setenv("WSGEMM_SM100_SELF_CHECK", "trust", 1);
    expect_child("trust over a cached fail", t.path);
    setenv("WSGEMM_SM100_SELF_CHECK", "fresh", 1);
    expect_child("fresh: the helper runs again", t.path);
    EXPECT(testing_file_has(rq.cache_file, "verdict pass"), "fresh did not write the pass back");
    setenv("WSGEMM_SM100_SELF_CHECK", "off", 1);
    expect_child("off", t.fallback);
    unsetenv("WSGEMM_SM100_SELF_CHECK");
    unlink(rq.cache_file);
    char absent[512];
    snprintf(absent, sizeof absent, "%s/no-helper-here", work);
    setenv("WSGEMM_SM100_SELF_CHECK_HELPER", absent, 1);
    expect_child("no helper, no cached verdict", t.fallback);
    EXPECT(access(rq.cache_file, F_OK) != 0, "a missing helper left a verdict file");
}

static void case_planted_fault(const char *helper)
{
    const target t = target_for_device();
    if (t.path != WSGEMM_PATH_SM100_EMULATED) {
        printf("SKIPPED: the planted faults exist in the emulated build on Hopper only\n");
        exit(WSGEMM_TEST_SKIP);
    }
    char cache_home[512];
    snprintf(cache_home, sizeof cache_home, "%s/fault-cache", work);
    setup_env(helper, cache_home);
    setenv("WSGEMM_SM100_FAULT", "early_dealloc", 1);
    wsgemm_self_check_request rq;
    cache_file_for(&t, &rq);
    expect_child("planted early_dealloc: the helper must fail", t.fallback);
    EXPECT(testing_file_has(rq.cache_file, "verdict fail"), "the failed verdict was not cached in %s", rq.cache_file);
    FILE *f = fopen(rq.cache_file, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) printf("  cache: %s", line);
    if (f) fclose(f);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "child") == 0) return case_child(argv[2]);
    if (argc < 3) {
        fprintf(stderr, "usage: %s helper|auto_chain|planted_fault <helper>\n", argv[0]);
        return 2;
    }
    testing_require_gpu("self_check_gpu_test");
    static char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 1;
    self[n] = '\0';
    self_path = self;
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/wsgemm-self-check-gpu.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(work)) return 1;
    const char *helper = argv[2];
    if (strcmp(argv[1], "helper") == 0)
        case_helper(helper);
    else if (strcmp(argv[1], "auto_chain") == 0)
        case_auto_chain(helper);
    else if (strcmp(argv[1], "planted_fault") == 0)
        case_planted_fault(helper);
    else
        return 2;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", work);
    printf("self_check_gpu_test.%s: %s\n", argv[1], failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
