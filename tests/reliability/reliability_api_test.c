// SPDX-License-Identifier: MIT
/*
 * reliability_api_test.c - the parts of drop-in safety that need no GPU, one ctest entry per case
 * (argv[1]): a handle destroyed twice, misaligned pointers refused before any CUDA call, the
 * batched-output overlap rule at its exact boundaries, absurd sizes and strides checked without signed
 * overflow (CI also runs this under -fsanitize=address,undefined), the workspace functions' own argument
 * checks, and messages kept per thread.
 *
 * The process hides every GPU (CUDA_VISIBLE_DEVICES="" before the first CUDA call), so a call that passes
 * every check that needs no CUDA returns NO_DEVICE: that is how "accepted" reads here, the same on a
 * machine with a GPU as in CI. Pointers are host memory full of a sentinel; nothing may write it.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, pthread barriers */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reliability.h"

enum { kSentinelBytes = 64 * 64 * 4 + 64 };

static _Alignas(256) unsigned char host_a[kSentinelBytes], host_b[kSentinelBytes], host_c[kSentinelBytes];

static void fill_sentinel(void)
{
    for (int i = 0; i < kSentinelBytes; ++i) host_c[i] = (unsigned char)(0xA5 ^ i);
}

static int c_untouched(void)
{
    for (int i = 0; i < kSentinelBytes; ++i)
        if (host_c[i] != (unsigned char)(0xA5 ^ i)) return 0;
    return 1;
}

/* g through wsgemm with these pointers (batch 1: wsgemm_gemm_ex; else the strided batched call). */
static wsgemm_status issue(wsgemm_handle h, const testing_gemm *g, const void *A, const void *B, void *C)
{
    testing_buffers b;
    memset(&b, 0, sizeof b);
    b.A = (void *)A;
    b.B = (void *)B;
    b.C = C;
    return testing_run_wsgemm(h, g, &b);
}

/* A valid 64 x 64 x 64 problem (batch `batch`, tight strides) for the cases to bend. */
static testing_gemm base_problem(int batch)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64);
    g.batch = batch;
    testing_gemm_resolve(&g);
    return g;
}

/* The call passes every check that needs no device: NO_DEVICE, and its message says so. */
static void expect_accepted(wsgemm_handle h, const testing_gemm *g, const char *what)
{
    fill_sentinel();
    wsgemm_status s = issue(h, g, host_a, host_b, host_c);
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"\n", what, wsgemm_status_string(s), msg);
    REL_EXPECT(s == WSGEMM_STATUS_NO_DEVICE, "%s: %s, expected NO_DEVICE (accepted, no GPU)", what,
               wsgemm_status_string(s));
    REL_EXPECT(c_untouched(), "%s: C was written", what);
}

/* INVALID_VALUE naming word (or also_word when given), C untouched. */
static void expect_rejected_with(wsgemm_handle h, const testing_gemm *g, const void *A, const void *B, void *C,
                                 const char *word, const char *also_word, const char *what)
{
    fill_sentinel();
    wsgemm_status s = issue(h, g, A, B, C);
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"\n", what, wsgemm_status_string(s), msg);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "%s: %s, expected INVALID_VALUE", what, wsgemm_status_string(s));
    REL_EXPECT(rel_mentions(msg, word) || (also_word && rel_mentions(msg, also_word)),
               "%s: the message does not name %s", what, word);
    REL_EXPECT(c_untouched(), "%s: C was written", what);
}

static void expect_rejected(wsgemm_handle h, const testing_gemm *g, const char *word, const char *what)
{
    expect_rejected_with(h, g, host_a, host_b, host_c, word, NULL, what);
}

/* Absurd but well-formed: either accepted (NO_DEVICE here) or refused naming one of the words; never
 * undefined behaviour on the way (the sanitizer build checks that). */
static void expect_no_overflow(wsgemm_handle h, const testing_gemm *g, const char *word, const char *also_word,
                               const char *what)
{
    fill_sentinel();
    wsgemm_status s = issue(h, g, host_a, host_b, host_c);
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"\n", what, wsgemm_status_string(s), msg);
    REL_EXPECT(s == WSGEMM_STATUS_NO_DEVICE ||
                   (s == WSGEMM_STATUS_INVALID_VALUE && (rel_mentions(msg, word) || rel_mentions(msg, also_word))),
               "%s: %s \"%s\"", what, wsgemm_status_string(s), msg);
    REL_EXPECT(c_untouched(), "%s: C was written", what);
}

/* ---------------------------------------------------------------- cases */

static void case_destroy_twice(void)
{
    wsgemm_handle h, other;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_create(&other));
    REL_EXPECT(wsgemm_destroy(h) == WSGEMM_STATUS_SUCCESS, "first destroy");
    REL_EXPECT(wsgemm_destroy(h) == WSGEMM_STATUS_NOT_INITIALIZED, "second destroy");
    REL_EXPECT(rel_mentions(wsgemm_get_last_error_message(h), "handle"), "the message of a destroyed handle: \"%s\"",
               wsgemm_get_last_error_message(h));
    testing_gemm g = base_problem(1);
    fill_sentinel();
    REL_EXPECT(issue(h, &g, host_a, host_b, host_c) == WSGEMM_STATUS_NOT_INITIALIZED, "GEMM on a destroyed handle");
    REL_EXPECT(c_untouched(), "C written through a destroyed handle");
    wsgemm_path path;
    size_t bytes;
    REL_EXPECT(wsgemm_set_stream(h, NULL) == WSGEMM_STATUS_NOT_INITIALIZED, "set_stream");
    REL_EXPECT(wsgemm_set_path(h, WSGEMM_PATH_AUTO) == WSGEMM_STATUS_NOT_INITIALIZED, "set_path");
    REL_EXPECT(wsgemm_get_last_path(h, &path) == WSGEMM_STATUS_NOT_INITIALIZED, "get_last_path");
    REL_EXPECT(wsgemm_set_workspace(h, NULL, 0) == WSGEMM_STATUS_NOT_INITIALIZED, "set_workspace");
    REL_EXPECT(wsgemm_reset_workspace(h) == WSGEMM_STATUS_NOT_INITIALIZED, "reset_workspace");
    REL_EXPECT(wsgemm_gemm_workspace_size(h, g.transa, g.transb, g.m, g.n, g.k, host_a, g.ab_type, g.lda, g.strideA,
                                          host_b, g.ab_type, g.ldb, g.strideB, host_c, g.c_type, g.ldc, g.strideC, 1,
                                          &bytes) == WSGEMM_STATUS_NOT_INITIALIZED,
               "workspace_size");
    /* the other handle is unaffected, also once this one's memory is reused */
    wsgemm_handle fresh;
    WSGEMM_CHECK(wsgemm_create(&fresh));
    REL_EXPECT(wsgemm_set_path(other, WSGEMM_PATH_GENERIC) == WSGEMM_STATUS_SUCCESS, "the other handle still works");
    REL_EXPECT(wsgemm_destroy(other) == WSGEMM_STATUS_SUCCESS, "destroy the other handle");
    REL_EXPECT(wsgemm_destroy(fresh) == WSGEMM_STATUS_SUCCESS, "destroy a handle created after the double destroy");
    REL_EXPECT(wsgemm_destroy(fresh) == WSGEMM_STATUS_NOT_INITIALIZED, "and twice");
}

static void case_misaligned_pointers(void)
{
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    testing_gemm g = base_problem(1), gb = base_problem(2);
    expect_accepted(h, &g, "aligned pointers (control)");
    expect_rejected_with(h, &g, host_a + 1, host_b, host_c, "A", NULL, "bf16 A at an odd address");
    expect_rejected_with(h, &gb, host_a + 1, host_b, host_c, "A", NULL, "bf16 A at an odd address, batched");
    expect_rejected_with(h, &g, host_a, host_b + 3, host_c, "B", NULL, "bf16 B at an odd address");
    g.c_type = WSGEMM_R_32F;
    expect_rejected_with(h, &g, host_a, host_b, host_c + 2, "C", NULL, "fp32 C at a 2-byte boundary");
    expect_accepted(h, &g, "fp32 C aligned (control)");
    g.c_type = WSGEMM_R_16F;
    g.ab_type = WSGEMM_R_16F;
    expect_rejected_with(h, &g, host_a, host_b, host_c + 1, "C", NULL, "fp16 C at an odd address");
    g.c_type = WSGEMM_R_16BF;
    g.ab_type = WSGEMM_R_16BF;
    expect_rejected_with(h, &g, host_a, host_b, host_c + 1, "C", NULL, "bf16 C at an odd address");
    size_t bytes = 1;
    wsgemm_status s =
        wsgemm_gemm_workspace_size(h, g.transa, g.transb, g.m, g.n, g.k, host_a + 1, g.ab_type, g.lda, g.strideA,
                                   host_b, g.ab_type, g.ldb, g.strideB, host_c, g.c_type, g.ldc, g.strideC, 1, &bytes);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE && rel_mentions(wsgemm_get_last_error_message(h), "A"),
               "workspace_size with an odd A: %s \"%s\"", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
    WSGEMM_CHECK(wsgemm_destroy(h));
}

static void case_overlap_boundaries(void)
{
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    /* matrix after matrix: strideC >= (n - 1) * ldc + m, which is below ldc * n when ldc > m */
    testing_gemm g = base_problem(3);
    g.m = g.lda = 60;
    g.strideA = 60 * 64;
    g.ldc = 64;
    g.strideC = 63 * 64 + 60;
    expect_accepted(h, &g, "strideC = (n-1)*ldc + m = 4092");
    g.strideC = 63 * 64 + 59;
    expect_rejected(h, &g, "strideC", "strideC = (n-1)*ldc + m - 1 = 4091");
    /* interleaved within one column: strideC >= m and (batch - 1) * strideC + m <= ldc */
    g = base_problem(4);
    g.m = g.lda = 16;
    g.strideA = 16 * 64;
    g.ldc = 64;
    g.strideC = 16;
    expect_accepted(h, &g, "interleaved: 4 x 16 rows in ldc 64, strideC 16");
    g.strideC = 15;
    expect_rejected(h, &g, "strideC", "interleaved: strideC 15 < m = 16");
    g.strideC = 16;
    g.ldc = 63;
    expect_rejected(h, &g, "strideC", "interleaved: 4 x 16 rows do not fit ldc 63");
    /* one matrix: any strideC; two on top of each other: refused */
    g = base_problem(1);
    g.strideC = 0;
    expect_accepted(h, &g, "batch 1, strideC 0");
    g = base_problem(2);
    g.strideC = 0;
    expect_rejected(h, &g, "strideC", "batch 2, strideC 0");
    /* the interleaved rule with a product past 2^63: (batch - 1) * strideC overflows unless checked */
    g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 1, INT_MAX, 1);
    g.batch = INT_MAX;
    g.ldc = INT_MAX;
    testing_gemm_resolve(&g);
    g.strideA = g.strideB = 0;
    g.strideC = 1LL << 61; /* below (n - 1) * ldc + m, so only the interleaved rule could accept it */
    expect_rejected(h, &g, "strideC", "batch INT_MAX, strideC 2^61, ldc = n = INT_MAX");
    WSGEMM_CHECK(wsgemm_destroy(h));
}

static void case_absurd_sizes(void)
{
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    testing_gemm g = base_problem(2);
    g.strideA = LLONG_MAX;
    expect_no_overflow(h, &g, "strideA", "A", "strideA = LLONG_MAX, batch 2");
    g.batch = INT_MAX;
    g.strideB = LLONG_MAX;
    g.strideC = LLONG_MAX;
    expect_no_overflow(h, &g, "strideA", "A", "all strides LLONG_MAX, batch INT_MAX");
    g = base_problem(5);
    g.c_type = WSGEMM_R_32F;
    g.strideC = 1LL << 61; /* 4 * 2^61 elements of 4 bytes: 2^65 bytes */
    expect_no_overflow(h, &g, "strideC", "C", "fp32 C, strideC 2^61, batch 5");
    g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 1, 1, INT_MAX);
    g.lda = INT_MAX; /* lda * k * 2 bytes: about 2^63 */
    g.ldb = INT_MAX;
    testing_gemm_resolve(&g);
    expect_no_overflow(h, &g, "lda", "A", "lda = k = INT_MAX");
    g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 1, INT_MAX, 1);
    g.ldc = INT_MAX; /* ldc * n * 4 bytes: about 2^64 */
    g.c_type = WSGEMM_R_32F;
    testing_gemm_resolve(&g);
    expect_no_overflow(h, &g, "ldc", "C", "fp32 C, ldc = n = INT_MAX");
    g = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_T, INT_MAX, INT_MAX, INT_MAX);
    testing_gemm_resolve(&g);
    expect_no_overflow(h, &g, "lda", "A", "m = n = k = INT_MAX, op T");
    WSGEMM_CHECK(wsgemm_destroy(h));
}

static void case_workspace_arguments(void)
{
    testing_gemm g = base_problem(1);
    size_t bytes = 1;
    REL_EXPECT(wsgemm_set_workspace(NULL, host_a, 256) == WSGEMM_STATUS_NOT_INITIALIZED, "set_workspace(NULL handle)");
    REL_EXPECT(wsgemm_reset_workspace(NULL) == WSGEMM_STATUS_NOT_INITIALIZED, "reset_workspace(NULL handle)");
    REL_EXPECT(wsgemm_gemm_workspace_size(NULL, g.transa, g.transb, g.m, g.n, g.k, host_a, g.ab_type, g.lda, g.strideA,
                                          host_b, g.ab_type, g.ldb, g.strideB, host_c, g.c_type, g.ldc, g.strideC, 1,
                                          &bytes) == WSGEMM_STATUS_NOT_INITIALIZED,
               "workspace_size(NULL handle)");
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    REL_EXPECT(wsgemm_set_workspace(h, NULL, 0) == WSGEMM_STATUS_SUCCESS, "(NULL, 0): no workspace, no device needed");
    REL_EXPECT(wsgemm_reset_workspace(h) == WSGEMM_STATUS_SUCCESS, "reset needs no device");
    wsgemm_status s = wsgemm_set_workspace(h, host_a + 1, 4096);
    printf("  workspace at an odd address -> %s: \"%s\"\n", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
    REL_EXPECT(s == WSGEMM_STATUS_NO_DEVICE ||
                   (s == WSGEMM_STATUS_INVALID_VALUE && rel_mentions(wsgemm_get_last_error_message(h), "workspace")),
               "an odd workspace address: %s", wsgemm_status_string(s));
    s = wsgemm_gemm_workspace_size(h, g.transa, g.transb, g.m, g.n, g.k, host_a, g.ab_type, g.lda, g.strideA, host_b,
                                   g.ab_type, g.ldb, g.strideB, host_c, g.c_type, g.ldc, g.strideC, 1, NULL);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE && rel_mentions(wsgemm_get_last_error_message(h), "bytes"),
               "workspace_size(bytes = NULL): %s \"%s\"", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
    s = wsgemm_gemm_workspace_size(h, g.transa, g.transb, g.m, g.n, g.k, host_a, g.ab_type, 63, g.strideA, host_b,
                                   g.ab_type, g.ldb, g.strideB, host_c, g.c_type, g.ldc, g.strideC, 1, &bytes);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE && rel_mentions(wsgemm_get_last_error_message(h), "lda"),
               "workspace_size(lda 63): %s \"%s\"", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
    bytes = 1;
    s = wsgemm_gemm_workspace_size(h, g.transa, g.transb, 0, g.n, g.k, host_a, g.ab_type, g.lda, g.strideA, host_b,
                                   g.ab_type, g.ldb, g.strideB, host_c, g.c_type, g.ldc, g.strideC, 1, &bytes);
    REL_EXPECT(s == WSGEMM_STATUS_SUCCESS && bytes == 0, "workspace_size of an empty problem: %s, %zu bytes",
               wsgemm_status_string(s), bytes);
    WSGEMM_CHECK(wsgemm_destroy(h));
}

/* ---------------------------------------------------------------- per-thread messages */

enum { kRounds = 200 };

typedef struct thread_arg {
    wsgemm_handle h;
    pthread_barrier_t *step;
} thread_arg;

/* X: every round a call with lda too small. */
static void *failing_thread(void *arg)
{
    thread_arg *t = arg;
    testing_gemm g = base_problem(1);
    g.lda = 63;
    for (int r = 0; r < kRounds; ++r) {
        wsgemm_status s = issue(t->h, &g, host_a, host_b, host_c);
        REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "round %d: %s", r, wsgemm_status_string(s));
        pthread_barrier_wait(t->step);
        const char *msg = wsgemm_get_last_error_message(t->h);
        REL_EXPECT(rel_mentions(msg, "lda") && !rel_mentions(msg, "device"),
                   "round %d: the failing thread reads \"%s\"", r, msg);
        pthread_barrier_wait(t->step);
    }
    return NULL;
}

/* Y: even rounds an empty call (success, ""), odd rounds a valid call (NO_DEVICE here). */
static void *other_thread(void *arg)
{
    thread_arg *t = arg;
    testing_gemm g = base_problem(1);
    for (int r = 0; r < kRounds; ++r) {
        testing_gemm call = g;
        if (r % 2 == 0) call.m = 0;
        wsgemm_status s = issue(t->h, &call, host_a, host_b, host_c);
        REL_EXPECT(s == (r % 2 == 0 ? WSGEMM_STATUS_SUCCESS : WSGEMM_STATUS_NO_DEVICE), "round %d: %s", r,
                   wsgemm_status_string(s));
        pthread_barrier_wait(t->step);
        const char *msg = wsgemm_get_last_error_message(t->h);
        if (r % 2 == 0)
            REL_EXPECT(msg[0] == '\0', "round %d: after a success this thread reads \"%s\"", r, msg);
        else
            REL_EXPECT(!rel_mentions(msg, "lda"), "round %d: this thread reads the other thread's message \"%s\"", r,
                       msg);
        pthread_barrier_wait(t->step);
    }
    return NULL;
}

static void case_per_thread_messages(void)
{
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    pthread_barrier_t step;
    pthread_barrier_init(&step, NULL, 2);
    thread_arg arg = {h, &step};
    pthread_t x, y;
    if (pthread_create(&x, NULL, failing_thread, &arg) != 0 || pthread_create(&y, NULL, other_thread, &arg) != 0) {
        printf("FAIL: pthread_create\n");
        exit(1);
    }
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    REL_EXPECT(wsgemm_get_last_error_message(h)[0] == '\0', "the main thread, which made no call, reads \"%s\"",
               wsgemm_get_last_error_message(h));
    pthread_barrier_destroy(&step);
    WSGEMM_CHECK(wsgemm_destroy(h));
    printf("  %d rounds done\n", kRounds);
}

/* ---------------------------------------------------------------- driver */

typedef struct test_case {
    const char *name;
    void (*run)(void);
} test_case;

static const test_case cases[] = {
    {"destroy_twice", case_destroy_twice},
    {"misaligned_pointers", case_misaligned_pointers},
    {"overlap_boundaries", case_overlap_boundaries},
    {"absurd_sizes", case_absurd_sizes},
    {"workspace_arguments", case_workspace_arguments},
    {"per_thread_messages", case_per_thread_messages},
};

int main(int argc, char **argv)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1); /* before any CUDA call: accepted calls read NO_DEVICE */
    for (size_t i = 0; argc >= 2 && i < sizeof cases / sizeof cases[0]; ++i) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        printf("case %s\n", cases[i].name);
        cases[i].run();
        int failed = atomic_load(&rel_failures);
        printf("%s: %s\n", cases[i].name, failed ? "FAILED" : "passed");
        return failed ? 1 : 0;
    }
    fprintf(stderr, "usage: %s <case>\n", argv[0]);
    return 2;
}
