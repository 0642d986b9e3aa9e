// SPDX-License-Identifier: MIT
/*
 * tune_cache_test.c - the tuning cache (gemm/common/tune_cache.h):
 *   parse    a file for this GPU and library: its entries found by key, their settings as knobs (the
 *            environment's value winning over an entry's), the key text of a problem.
 *   reject   files ignored as a whole, each with a reason that names what failed: another library version
 *            (stale), another GPU, a changed byte (checksum), a cut-short file, no header, a malformed entry,
 *            a variable an entry may not set, one variable twice, two entries for one key, an over-long line.
 *   gpu      (H100/H200 with the sm90 path) a call with an entry runs with its tile width (the probe says the
 *            entry planned it), checked against cuBLAS, bit-identical run to run and to the same width forced
 *            through the environment; a stale, a foreign-GPU and a corrupt cache are ignored (the plan's own
 *            width, same bits as without a cache).
 * Prints what it checked; exits 1 on failure, 77 (skipped) for gpu without such a device.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/knobs.h"
#include "common/tune_cache.h"
#include "sm90/sm90_probe.h"
#include "testing.h"
#include "wsgemm.h"

static int failures;

#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

static const char kGpu[] = "GPU-00112233-4455-6677-8899-aabbccddeeff";

/* A whole file: header for gpu and version, the entry lines, the checksum. */
static void make_file(char *buf, size_t size, const char *gpu, const char *version, const char *entries)
{
    int n = snprintf(buf, size, "wsgemm-tune-cache 1\nlibrary %s\ngpu %s\n%s", version, gpu, entries);
    snprintf(buf + n, size - (size_t)n, "checksum %016llx\n", (unsigned long long)wsgemm_tune_checksum(buf, (size_t)n));
}

static int parse(const char *text, const char *gpu, wsgemm_tune_table *t, char *why, size_t why_size)
{
    return wsgemm_tune_parse(text, strlen(text), gpu, "0.2.0", t, why, why_size);
}

static void case_parse(void)
{
    char file[2048], why[256] = "";
    make_file(file, sizeof file, kGpu, "0.2.0",
              "entry sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta0 WSGEMM_SM90_BN=128 WSGEMM_SM90_SPLITK=2\n"
              "entry sm90 NN f16 f16 f32 128 8192 8192 1 beta WSGEMM_SM90_VARIANT=3 WSGEMM_SM90_EPILOGUE=direct\n"
              "entry sm90 NN bf16 bf16 bf16 64 64 64 2 beta0\n");
    wsgemm_tune_table t;
    EXPECT(parse(file, kGpu, &t, why, sizeof why), "a good file was ignored: %s", why);
    EXPECT(t.count == 3, "%d entries", t.count);
    const wsgemm_tune_entry *e = wsgemm_tune_find(&t, "sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta0");
    EXPECT(e && e->count == 2, "the first entry");
    EXPECT(!wsgemm_tune_find(&t, "sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta"), "beta is part of the key");
    unsetenv("WSGEMM_SM90_BN");
    unsetenv("WSGEMM_SM90_SPLITK");
    wsgemm_knobs k = wsgemm_tune_knobs(e);
    EXPECT(k.sm90_bn == 128 && k.sm90_splitk == 2 && k.sm90_variant == 0, "entry knobs: bn %d splitk %d variant %d",
           k.sm90_bn, k.sm90_splitk, k.sm90_variant);
    setenv("WSGEMM_SM90_BN", "64", 1); /* the environment wins */
    k = wsgemm_tune_knobs(e);
    EXPECT(k.sm90_bn == 64 && k.sm90_splitk == 2, "environment over entry: bn %d splitk %d", k.sm90_bn, k.sm90_splitk);
    unsetenv("WSGEMM_SM90_BN");
    e = wsgemm_tune_find(&t, "sm90 NN f16 f16 f32 128 8192 8192 1 beta");
    k = wsgemm_tune_knobs(e);
    EXPECT(e && k.sm90_variant == 3 && k.sm90_epilogue == WSGEMM_EPILOGUE_PREF_DIRECT && k.sm90_bn == 0,
           "the second entry's knobs");
    e = wsgemm_tune_find(&t, "sm90 NN bf16 bf16 bf16 64 64 64 2 beta0");
    EXPECT(e && e->count == 0, "an entry with no settings");
    wsgemm_tune_table_free(&t);

    /* the key of a problem */
    wsgemm_problem p;
    memset(&p, 0, sizeof p);
    p.transa = WSGEMM_OP_T;
    p.transb = WSGEMM_OP_N;
    p.Atype = p.Btype = WSGEMM_R_16BF;
    p.Ctype = WSGEMM_R_32F;
    p.m = 7;
    p.n = 8;
    p.k = 9;
    p.batch_count = 3;
    p.beta = 0.5f;
    char key[WSGEMM_TUNE_KEY_BYTES];
    wsgemm_tune_key("sm90", &p, key, sizeof key);
    EXPECT(strcmp(key, "sm90 TN bf16 bf16 f32 7 8 9 3 beta") == 0, "key \"%s\"", key);
    printf("parse: passed checks of entries, knobs and keys\n");
}

static void expect_rejected(const char *text, const char *gpu, const char *reason_has, const char *what)
{
    wsgemm_tune_table t;
    char why[512] = "";
    const int ok = wsgemm_tune_parse(text, strlen(text), gpu, "0.2.0", &t, why, sizeof why);
    EXPECT(!ok, "%s: taken", what);
    EXPECT(t.count == 0 && t.entries == NULL, "%s: a rejected file left entries", what);
    EXPECT(strstr(why, reason_has) != NULL, "%s: the reason \"%s\" lacks \"%s\"", what, why, reason_has);
    printf("  %-24s -> %s\n", what, why);
    if (ok) wsgemm_tune_table_free(&t);
}

static void case_reject(void)
{
    static const char entry[] = "entry sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta0 WSGEMM_SM90_BN=128\n";
    char file[4096], bad[4096];
    make_file(file, sizeof file, kGpu, "0.1.9", entry);
    expect_rejected(file, kGpu, "stale", "another library version");
    make_file(file, sizeof file, kGpu, "0.2.0", entry);
    expect_rejected(file, "GPU-ffffffff-4455-6677-8899-aabbccddeeff", "another GPU", "another GPU");
    snprintf(bad, sizeof bad, "%s", file);
    char *digit = strstr(bad, "BN=128") + 4;
    *digit = '5'; /* BN=158: one changed byte */
    expect_rejected(bad, kGpu, "checksum mismatch", "a changed byte");
    snprintf(bad, sizeof bad, "%s", file);
    bad[strlen(bad) - 10] = '\0'; /* cut inside the checksum line */
    expect_rejected(bad, kGpu, "no checksum line", "cut short");
    expect_rejected("", kGpu, "no checksum line", "empty");
    make_file(file, sizeof file, kGpu, "0.2.0", "");
    snprintf(bad, sizeof bad, "%s", strchr(file, '\n') + 1); /* no first line */
    expect_rejected(bad, kGpu, "checksum", "no first line");
    char head[256];
    snprintf(head, sizeof head, "wsgemm-tune-cache 2\nlibrary 0.2.0\ngpu %s\n", kGpu);
    snprintf(bad, sizeof bad, "%schecksum %016llx\n", head,
             (unsigned long long)wsgemm_tune_checksum(head, strlen(head)));
    expect_rejected(bad, kGpu, "not \"wsgemm-tune-cache 1\"", "another format");
    make_file(file, sizeof file, kGpu, "0.2.0", "entry sm90 TN bf16 bf16 bf16 4096 4096 WSGEMM_SM90_BN=128\n");
    expect_rejected(file, kGpu, "malformed entry", "a short key");
    make_file(file, sizeof file, kGpu, "0.2.0",
              "entry sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta0 WSGEMM_SM100_CTA_GROUP=2\n");
    expect_rejected(file, kGpu, "malformed entry", "a variable not allowed");
    make_file(file, sizeof file, kGpu, "0.2.0",
              "entry sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta0 WSGEMM_SM90_BN=128 WSGEMM_SM90_BN=64\n");
    expect_rejected(file, kGpu, "malformed entry", "one variable twice");
    make_file(file, sizeof file, kGpu, "0.2.0", "entry sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta0 WSGEMM_SM90_BN\n");
    expect_rejected(file, kGpu, "malformed entry", "a setting without value");
    char two[512];
    snprintf(two, sizeof two, "%s%s", entry, entry);
    make_file(file, sizeof file, kGpu, "0.2.0", two);
    expect_rejected(file, kGpu, "second entry", "two entries, one key");
    make_file(file, sizeof file, kGpu, "0.2.0", "# a comment\n");
    expect_rejected(file, kGpu, "not an entry line", "a line of another kind");
    char longline[1024];
    memset(longline, 'x', 700);
    longline[700] = '\n';
    longline[701] = '\0';
    make_file(file, sizeof file, kGpu, "0.2.0", longline);
    expect_rejected(file, kGpu, "longer than", "an over-long line");
    printf("reject: every broken file ignored with its reason\n");
}

/* ---------------------------------------------------------------- on the GPU */

#ifdef WSGEMM_TEST_HAS_SM90
static char cache_path[256];

/* The cache file for this GPU (or `gpu`), `version`, with one entry `entry`; optionally one byte flipped. */
static void write_cache(const char *gpu, const char *version, const char *entry, int corrupt)
{
    char text[2048];
    char line[512];
    snprintf(line, sizeof line, "%s\n", entry);
    make_file(text, sizeof text, gpu, version, line);
    if (corrupt) text[strlen("wsgemm-tune-cache 1\nlibrary ")] ^= 1;
    FILE *f = fopen(cache_path, "w");
    EXPECT(f != NULL, "cannot write %s", cache_path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
    setenv("WSGEMM_TUNE_CACHE", cache_path, 1);
    wsgemm_knobs_reload();
    wsgemm_tune_reset();
}

static void no_cache(void)
{
    unsetenv("WSGEMM_TUNE_CACHE");
    wsgemm_knobs_reload();
    wsgemm_tune_reset();
}

/* One checked call of g on b (against cuBLAS, the sm90 path asserted); C's bits into out. */
static void run_checked(wsgemm_handle h, const testing_gemm *g, const char *what, void *out, size_t bytes)
{
    EXPECT(testing_case_against_cublas(h, g, WSGEMM_PATH_SM90, 71, 1), "%s: wrong or not on sm90", what);
    testing_buffers b;
    testing_buffers_create(g, 71, &b);
    EXPECT(testing_run_wsgemm(h, g, &b) == WSGEMM_STATUS_SUCCESS, "%s: %s", what, wsgemm_get_last_error_message(h));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out, b.C, bytes, cudaMemcpyDeviceToHost));
    testing_buffers_destroy(&b);
}
#endif

static void case_gpu(void)
{
#ifndef WSGEMM_TEST_HAS_SM90
    printf("SKIPPED: tune_cache_test gpu: this build has no sm90 path\n");
    exit(77);
#else
    testing_require_gpu("tune_cache_test gpu");
    if (testing_device_cc() != 90) {
        printf("SKIPPED: tune_cache_test gpu: needs a compute capability 9.0 GPU (the sm90 path)\n");
        exit(77);
    }
    snprintf(cache_path, sizeof cache_path, "%s/wsgemm-tune-cache-%d.txt",
             getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp", (int)getpid());
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    char gpu[64];
    wsgemm_gpu_uuid_text(prop.uuid.bytes, gpu, sizeof gpu);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", WSGEMM_VERSION_MAJOR, WSGEMM_VERSION_MINOR, WSGEMM_VERSION_PATCH);

    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_SM90));
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 2048, 2048, 1024);
    testing_gemm_resolve(&g);
    const size_t bytes = testing_gemm_elems_c(&g) * 2;
    unsigned char *plain = malloc(bytes), *got = malloc(bytes), *again = malloc(bytes);

    no_cache();
    run_checked(h, &g, "no cache", plain, bytes);
    const int bn0 = wsgemm_sm90_last_bn();
    EXPECT(!wsgemm_sm90_last_tuned(), "no cache, yet tuned");
    const int want = bn0 == 64 ? 128 : 64;
    wsgemm_problem p;
    memset(&p, 0, sizeof p);
    p.transa = g.transa;
    p.transb = g.transb;
    p.Atype = p.Btype = p.Ctype = WSGEMM_R_16BF;
    p.m = g.m;
    p.n = g.n;
    p.k = g.k;
    p.batch_count = 1;
    char key[WSGEMM_TUNE_KEY_BYTES], entry[256];
    wsgemm_tune_key("sm90", &p, key, sizeof key);
    snprintf(entry, sizeof entry, "entry %s WSGEMM_SM90_BN=%d", key, want);

    write_cache(gpu, version, entry, 0);
    run_checked(h, &g, "the entry", got, bytes);
    EXPECT(wsgemm_sm90_last_tuned() && wsgemm_sm90_last_bn() == want, "the entry: tuned %d, bn %d (want %d)",
           wsgemm_sm90_last_tuned(), wsgemm_sm90_last_bn(), want);
    run_checked(h, &g, "the entry again", again, bytes);
    EXPECT(memcmp(got, again, bytes) == 0, "the entry: not bit-identical run to run");
    char bn_text[8];
    snprintf(bn_text, sizeof bn_text, "%d", want);
    no_cache();
    setenv("WSGEMM_SM90_BN", bn_text, 1);
    wsgemm_knobs_reload();
    run_checked(h, &g, "the width forced", again, bytes);
    EXPECT(memcmp(got, again, bytes) == 0 && wsgemm_sm90_last_bn() == want,
           "the entry's plan differs from the same width forced");
    unsetenv("WSGEMM_SM90_BN");
    wsgemm_knobs_reload();

    const struct {
        const char *gpu, *version;
        int corrupt;
        const char *what;
    } ignored[] = {{gpu, "0.0.1", 0, "stale"}, {kGpu, version, 0, "foreign GPU"}, {gpu, version, 1, "corrupt"}};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; ++i) {
        write_cache(ignored[i].gpu, ignored[i].version, entry, ignored[i].corrupt);
        run_checked(h, &g, ignored[i].what, again, bytes);
        EXPECT(!wsgemm_sm90_last_tuned() && wsgemm_sm90_last_bn() == bn0 && memcmp(plain, again, bytes) == 0,
               "%s cache: tuned %d, bn %d (want the plan's %d, its bits)", ignored[i].what, wsgemm_sm90_last_tuned(),
               wsgemm_sm90_last_bn(), bn0);
    }
    no_cache();
    remove(cache_path);
    free(plain);
    free(got);
    free(again);
    WSGEMM_CHECK(wsgemm_destroy(h));
    printf("gpu: the plan's BN %d, the entry's BN %d\n", bn0, want);
#endif
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    if (strcmp(which, "parse") == 0)
        case_parse();
    else if (strcmp(which, "reject") == 0)
        case_reject();
    else if (strcmp(which, "gpu") == 0)
        case_gpu();
    else {
        fprintf(stderr, "usage: %s parse|reject|gpu\n", argv[0]);
        return 2;
    }
    printf("%s: %s\n", which, failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
