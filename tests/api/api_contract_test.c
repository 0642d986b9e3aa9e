// SPDX-License-Identifier: MIT
/*
 * api_contract_test.c - the contract of the public API that needs no GPU, one ctest entry per case
 * (argv[1] names it):
 *   status_to_cublas   wsgemm_status_to_cublas against cublas_api.h's constants, for every wsgemm_status
 *   pointer_mode       wsgemm_set/get_pointer_mode: the values of cublasPointerMode_t, bad values refused,
 *                      and the device-mode argument checks that come before any CUDA call
 *   launch_mode        wsgemm_set/get_launch_mode and desc->launch_mode: DEFAULT unless set, bad values
 *                      refused with a message naming them (the GPU side: tests/pdl/pdl_chain_test.c)
 *   batch_invariance   wsgemm_set/get_batch_invariance and desc->batch_invariance: OFF unless set, ON and ON_N
 *                      taken, bad values refused with a message naming them, D untouched (the GPU side:
 *                      tests/invariance/batch_invariance_test.c)
 *   message_cleared    after a failed call, every API function that succeeds leaves the message "", except the
 *                      queries (wsgemm_get_*), which keep it
 *   no_device          every call that needs a device says NO_DEVICE without one (set_workspace included)
 *   epilogues          a cublasLtEpilogue_t wsgemm lacks is NOT_SUPPORTED, a value that is none INVALID_VALUE
 *   desc_size          wsgemm_matmul_desc's size field: set by the init macro, checked by wsgemm_matmul and
 *                      wsgemm_matmul_desc_init_sized, never written past
 * The output buffers are host memory full of a sentinel: a rejected call must not touch them (the argument
 * checks come before any CUDA call).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cublas_api.h>

#include "testing.h"

static int failures = 0;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

enum { kElems = 64 * 64 };
static uint16_t host_a[kElems], host_b[kElems], host_d[kElems];
static float one = 1.0f, zero = 0.0f;

static void fill_sentinel(void)
{
    for (int i = 0; i < kElems; ++i) host_d[i] = (uint16_t)(0x5A5Au ^ (unsigned)i);
}

static int d_untouched(void)
{
    for (int i = 0; i < kElems; ++i)
        if (host_d[i] != (uint16_t)(0x5A5Au ^ (unsigned)i)) return 0;
    return 1;
}

/* status `got` is `want` and the message of h names `word`. */
static void expect_status(wsgemm_handle h, wsgemm_status got, wsgemm_status want, const char *word, const char *what)
{
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"\n", what, wsgemm_status_string(got), msg);
    EXPECT(got == want, "%s: status %s, expected %s", what, wsgemm_status_string(got), wsgemm_status_string(want));
    EXPECT(strstr(msg, word) != NULL, "%s: message \"%s\" does not name \"%s\"", what, msg, word);
}

static wsgemm_status gemm_64(wsgemm_handle h, const float *alpha, const float *beta, int m)
{
    return wsgemm_gemm_ex(h, WSGEMM_OP_N, WSGEMM_OP_N, m, 64, 64, alpha, host_a, WSGEMM_R_16BF, 64, host_b,
                          WSGEMM_R_16BF, 64, beta, host_d, WSGEMM_R_16BF, 64);
}

static wsgemm_status matmul_64(wsgemm_handle h, const wsgemm_matmul_desc *d, const float *alpha, const float *beta,
                               const void *C, int m)
{
    return wsgemm_matmul(h, d, m, 64, 64, alpha, host_a, 64, host_b, 64, beta, C, 64, host_d, 64);
}

/* ---------------------------------------------------------------- status_to_cublas */

static void case_status_to_cublas(wsgemm_handle h)
{
    (void)h;
    const struct {
        wsgemm_status s;
        int want;
    } map[] = {
        {WSGEMM_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS},
        {WSGEMM_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_NOT_INITIALIZED},
        {WSGEMM_STATUS_INVALID_VALUE, CUBLAS_STATUS_INVALID_VALUE},
        {WSGEMM_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_SUPPORTED},
        {WSGEMM_STATUS_ARCH_MISMATCH, CUBLAS_STATUS_ARCH_MISMATCH},
        {WSGEMM_STATUS_NO_DEVICE, CUBLAS_STATUS_NOT_INITIALIZED},
        {WSGEMM_STATUS_ALLOC_FAILED, CUBLAS_STATUS_ALLOC_FAILED},
        {WSGEMM_STATUS_CUDA_ERROR, CUBLAS_STATUS_EXECUTION_FAILED},
        {WSGEMM_STATUS_INTERNAL_ERROR, CUBLAS_STATUS_INTERNAL_ERROR},
    };
    const int n = (int)(sizeof map / sizeof map[0]);
    EXPECT(n == WSGEMM_STATUS_INTERNAL_ERROR + 1, "the table covers every wsgemm_status (%d of %d)", n,
           WSGEMM_STATUS_INTERNAL_ERROR + 1);
    for (int i = 0; i < n; ++i) {
        EXPECT(map[i].s == (wsgemm_status)i, "table row %d is status %d", i, (int)map[i].s);
        const int got = wsgemm_status_to_cublas(map[i].s);
        printf("  %s -> cublasStatus_t %d\n", wsgemm_status_string(map[i].s), got);
        EXPECT(got == map[i].want, "%s maps to %d, cublas_api.h says %d", wsgemm_status_string(map[i].s), got,
               map[i].want);
    }
    EXPECT(wsgemm_status_to_cublas((wsgemm_status)99) == CUBLAS_STATUS_INTERNAL_ERROR, "an unknown status: %d",
           wsgemm_status_to_cublas((wsgemm_status)99));
}

/* ---------------------------------------------------------------- pointer_mode */

static void case_pointer_mode(wsgemm_handle h)
{
    EXPECT((int)WSGEMM_POINTER_MODE_HOST == (int)CUBLAS_POINTER_MODE_HOST, "HOST = %d", WSGEMM_POINTER_MODE_HOST);
    EXPECT((int)WSGEMM_POINTER_MODE_DEVICE == (int)CUBLAS_POINTER_MODE_DEVICE, "DEVICE = %d",
           WSGEMM_POINTER_MODE_DEVICE);
    wsgemm_pointer_mode mode = (wsgemm_pointer_mode)7;
    EXPECT(wsgemm_get_pointer_mode(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_POINTER_MODE_HOST,
           "a new handle is in HOST mode (got %d)", (int)mode);
    EXPECT(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE) == WSGEMM_STATUS_SUCCESS, "set DEVICE");
    EXPECT(wsgemm_get_pointer_mode(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_POINTER_MODE_DEVICE,
           "DEVICE read back (got %d)", (int)mode);
    expect_status(h, wsgemm_set_pointer_mode(h, (wsgemm_pointer_mode)2), WSGEMM_STATUS_INVALID_VALUE, "mode = 2",
                  "set_pointer_mode(2)");
    EXPECT(wsgemm_get_pointer_mode(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_POINTER_MODE_DEVICE,
           "a refused mode leaves DEVICE (got %d)", (int)mode);
    expect_status(h, wsgemm_get_pointer_mode(h, NULL), WSGEMM_STATUS_INVALID_VALUE, "mode is NULL",
                  "get_pointer_mode(NULL)");
    EXPECT(wsgemm_set_pointer_mode(NULL, WSGEMM_POINTER_MODE_HOST) == WSGEMM_STATUS_NOT_INITIALIZED, "NULL handle");
    EXPECT(wsgemm_get_pointer_mode(NULL, &mode) == WSGEMM_STATUS_NOT_INITIALIZED, "NULL handle");

    /* DEVICE mode: the checks before any CUDA call. alpha's value is unknown, so A is needed whenever k > 0;
     * alpha and beta are checked as operands (aligned floats); a matmul needs C. */
    fill_sentinel();
    expect_status(h, gemm_64(h, NULL, &zero, 64), WSGEMM_STATUS_INVALID_VALUE, "alpha is NULL", "device alpha NULL");
    expect_status(h, gemm_64(h, &one, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "beta is NULL", "device beta NULL");
    static float scalars[4];
    const float *misaligned = (const float *)((const char *)scalars + 2);
    expect_status(h, gemm_64(h, misaligned, &zero, 64), WSGEMM_STATUS_INVALID_VALUE, "alpha", "misaligned alpha");
    expect_status(h, gemm_64(h, &one, misaligned, 64), WSGEMM_STATUS_INVALID_VALUE, "beta", "misaligned beta");
    expect_status(h,
                  wsgemm_gemm_ex(h, WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64, &zero, NULL, WSGEMM_R_16BF, 64, host_b,
                                 WSGEMM_R_16BF, 64, &zero, host_d, WSGEMM_R_16BF, 64),
                  WSGEMM_STATUS_INVALID_VALUE, "A is NULL", "device mode, A NULL (alpha unknown)");
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF));
    expect_status(h, matmul_64(h, &d, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "C is NULL",
                  "device mode matmul, C NULL");
    EXPECT(d_untouched(), "a rejected device-mode call wrote D");
    /* the same matmul in HOST mode with beta == 0 may leave C NULL: it gets past the checks to the device */
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
    EXPECT(matmul_64(h, &d, &one, &zero, NULL, 0) == WSGEMM_STATUS_SUCCESS, "host mode, beta 0, C NULL, m = 0: %s",
           wsgemm_get_last_error_message(h));
}

/* ---------------------------------------------------------------- launch_mode */

static void case_launch_mode(wsgemm_handle h)
{
    wsgemm_launch_mode mode = (wsgemm_launch_mode)7;
    EXPECT(wsgemm_get_launch_mode(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_LAUNCH_MODE_DEFAULT,
           "a new handle launches in DEFAULT mode (got %d)", (int)mode);
    EXPECT(wsgemm_set_launch_mode(h, WSGEMM_LAUNCH_MODE_PDL) == WSGEMM_STATUS_SUCCESS, "set PDL");
    EXPECT(wsgemm_get_launch_mode(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_LAUNCH_MODE_PDL,
           "PDL read back (got %d)", (int)mode);
    expect_status(h, wsgemm_set_launch_mode(h, (wsgemm_launch_mode)2), WSGEMM_STATUS_INVALID_VALUE, "mode = 2",
                  "set_launch_mode(2)");
    expect_status(h, wsgemm_set_launch_mode(h, (wsgemm_launch_mode)-1), WSGEMM_STATUS_INVALID_VALUE, "mode = -1",
                  "set_launch_mode(-1)");
    EXPECT(wsgemm_get_launch_mode(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_LAUNCH_MODE_PDL,
           "a refused mode leaves PDL (got %d)", (int)mode);
    expect_status(h, wsgemm_get_launch_mode(h, NULL), WSGEMM_STATUS_INVALID_VALUE, "mode is NULL",
                  "get_launch_mode(NULL)");
    EXPECT(wsgemm_set_launch_mode(NULL, WSGEMM_LAUNCH_MODE_PDL) == WSGEMM_STATUS_NOT_INITIALIZED, "NULL handle");
    EXPECT(wsgemm_get_launch_mode(NULL, &mode) == WSGEMM_STATUS_NOT_INITIALIZED, "NULL handle");
    WSGEMM_CHECK(wsgemm_set_launch_mode(h, WSGEMM_LAUNCH_MODE_DEFAULT));

    /* desc->launch_mode: DEFAULT from init, PDL taken (m = 0 succeeds without a device), others refused before
     * any CUDA call, D untouched */
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF));
    EXPECT(d.launch_mode == WSGEMM_LAUNCH_MODE_DEFAULT, "init sets launch_mode DEFAULT (got %d)", (int)d.launch_mode);
    d.launch_mode = WSGEMM_LAUNCH_MODE_PDL;
    EXPECT(matmul_64(h, &d, &one, &zero, NULL, 0) == WSGEMM_STATUS_SUCCESS, "desc->launch_mode PDL: %s",
           wsgemm_get_last_error_message(h));
    fill_sentinel();
    d.launch_mode = (wsgemm_launch_mode)3;
    expect_status(h, matmul_64(h, &d, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "desc->launch_mode",
                  "desc->launch_mode = 3");
    EXPECT(d_untouched(), "a refused launch mode wrote D");
}

/* ---------------------------------------------------------------- batch_invariance */

static void case_batch_invariance(wsgemm_handle h)
{
    wsgemm_batch_invariance mode = (wsgemm_batch_invariance)7;
    EXPECT(wsgemm_get_batch_invariance(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_BATCH_INVARIANCE_OFF,
           "a new handle is not batch invariant (got %d)", (int)mode);
    const wsgemm_batch_invariance modes[2] = {WSGEMM_BATCH_INVARIANCE_ON, WSGEMM_BATCH_INVARIANCE_ON_N};
    for (int i = 0; i < 2; ++i) {
        EXPECT(wsgemm_set_batch_invariance(h, modes[i]) == WSGEMM_STATUS_SUCCESS, "set %d", (int)modes[i]);
        EXPECT(wsgemm_get_batch_invariance(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == modes[i],
               "%d read back (got %d)", (int)modes[i], (int)mode);
        /* a call with m = 0 succeeds without a device under either */
        EXPECT(gemm_64(h, &one, &zero, 0) == WSGEMM_STATUS_SUCCESS, "gemm_ex m = 0 under %d: %s", (int)modes[i],
               wsgemm_get_last_error_message(h));
    }
    expect_status(h, wsgemm_set_batch_invariance(h, (wsgemm_batch_invariance)3), WSGEMM_STATUS_INVALID_VALUE,
                  "mode = 3", "set_batch_invariance(3)");
    expect_status(h, wsgemm_set_batch_invariance(h, (wsgemm_batch_invariance)-1), WSGEMM_STATUS_INVALID_VALUE,
                  "mode = -1", "set_batch_invariance(-1)");
    EXPECT(wsgemm_get_batch_invariance(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_BATCH_INVARIANCE_ON_N,
           "a refused value leaves ON_N (got %d)", (int)mode);
    expect_status(h, wsgemm_get_batch_invariance(h, NULL), WSGEMM_STATUS_INVALID_VALUE, "mode is NULL",
                  "get_batch_invariance(NULL)");
    EXPECT(wsgemm_set_batch_invariance(NULL, WSGEMM_BATCH_INVARIANCE_ON) == WSGEMM_STATUS_NOT_INITIALIZED,
           "NULL handle");
    EXPECT(wsgemm_get_batch_invariance(NULL, &mode) == WSGEMM_STATUS_NOT_INITIALIZED, "NULL handle");
    WSGEMM_CHECK(wsgemm_set_batch_invariance(h, WSGEMM_BATCH_INVARIANCE_OFF));
    EXPECT(wsgemm_get_batch_invariance(h, &mode) == WSGEMM_STATUS_SUCCESS && mode == WSGEMM_BATCH_INVARIANCE_OFF,
           "OFF read back (got %d)", (int)mode);

    /* desc->batch_invariance: OFF (the handle's) from init, ON and ON_N taken (m = 0 succeeds without a device),
     * others refused before any CUDA call, D untouched */
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF));
    EXPECT(d.batch_invariance == WSGEMM_BATCH_INVARIANCE_OFF, "init sets batch_invariance OFF (got %d)",
           (int)d.batch_invariance);
    for (int i = 0; i < 2; ++i) {
        d.batch_invariance = modes[i];
        EXPECT(matmul_64(h, &d, &one, &zero, NULL, 0) == WSGEMM_STATUS_SUCCESS, "desc->batch_invariance %d: %s",
               (int)modes[i], wsgemm_get_last_error_message(h));
    }
    const int bad[2] = {3, -1};
    for (int i = 0; i < 2; ++i) {
        fill_sentinel();
        d.batch_invariance = (wsgemm_batch_invariance)bad[i];
        expect_status(h, matmul_64(h, &d, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "desc->batch_invariance",
                      bad[i] == 3 ? "desc->batch_invariance = 3" : "desc->batch_invariance = -1");
        EXPECT(d_untouched(), "a refused batch invariance wrote D");
    }
}

/* ---------------------------------------------------------------- message_cleared */

/* A failed call on h, so that its message is not "". */
static void provoke(wsgemm_handle h)
{
    EXPECT(wsgemm_set_path(h, (wsgemm_path)99) == WSGEMM_STATUS_INVALID_VALUE, "set_path(99) fails");
    EXPECT(wsgemm_get_last_error_message(h)[0] != '\0', "a failed call leaves a message");
}

/* A failed call without a handle, so that the message of handle-less calls is not "". */
static void provoke_without_handle(void)
{
    EXPECT(wsgemm_matmul_desc_init(NULL, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF) ==
               WSGEMM_STATUS_INVALID_VALUE,
           "desc_init(NULL) fails");
    EXPECT(wsgemm_get_last_error_message(NULL)[0] != '\0', "a failed call leaves a message");
}

static void expect_cleared(wsgemm_handle h, wsgemm_status s, const char *what)
{
    const char *msg = wsgemm_get_last_error_message(h);
    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: %s (%s)", what, wsgemm_status_string(s), msg);
    EXPECT(msg[0] == '\0', "%s succeeded but left the message \"%s\"", what, msg);
    printf("  %s: SUCCESS, message \"%s\"\n", what, msg);
}

/* A query (wsgemm_get_*) that succeeds leaves the failed call's message as it was. */
static void expect_kept(wsgemm_handle h, wsgemm_status s, const char *what)
{
    const char *msg = wsgemm_get_last_error_message(h);
    EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: %s (%s)", what, wsgemm_status_string(s), msg);
    EXPECT(msg[0] != '\0', "the query %s cleared the message of the failed call before it", what);
    printf("  %s: SUCCESS, message kept \"%s\"\n", what, msg);
}

static void case_message_cleared(wsgemm_handle h)
{
    cudaStream_t stream;
    wsgemm_path path;
    wsgemm_pointer_mode mode;
    size_t bytes = 1;
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF));
    /* every call that takes a handle; the GEMM calls with m == 0 succeed without a device */
    provoke(h), expect_cleared(h, wsgemm_set_stream(h, NULL), "wsgemm_set_stream");
    provoke(h), expect_kept(h, wsgemm_get_stream(h, &stream), "wsgemm_get_stream");
    provoke(h), expect_cleared(h, wsgemm_set_path(h, WSGEMM_PATH_AUTO), "wsgemm_set_path");
    provoke(h), expect_kept(h, wsgemm_get_path(h, &path), "wsgemm_get_path");
    provoke(h), expect_kept(h, wsgemm_get_last_path(h, &path), "wsgemm_get_last_path");
    provoke(h), expect_cleared(h, wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST), "wsgemm_set_pointer_mode");
    provoke(h), expect_kept(h, wsgemm_get_pointer_mode(h, &mode), "wsgemm_get_pointer_mode");
    wsgemm_launch_mode launch;
    provoke(h), expect_cleared(h, wsgemm_set_launch_mode(h, WSGEMM_LAUNCH_MODE_DEFAULT), "wsgemm_set_launch_mode");
    provoke(h), expect_kept(h, wsgemm_get_launch_mode(h, &launch), "wsgemm_get_launch_mode");
    wsgemm_batch_invariance invariance;
    provoke(h),
        expect_cleared(h, wsgemm_set_batch_invariance(h, WSGEMM_BATCH_INVARIANCE_OFF), "wsgemm_set_batch_invariance");
    provoke(h), expect_kept(h, wsgemm_get_batch_invariance(h, &invariance), "wsgemm_get_batch_invariance");
    provoke(h), expect_cleared(h, wsgemm_set_workspace(h, NULL, 0), "wsgemm_set_workspace(NULL, 0)");
    provoke(h), expect_cleared(h, wsgemm_reset_workspace(h), "wsgemm_reset_workspace");
    provoke(h), expect_cleared(h, gemm_64(h, &one, &zero, 0), "wsgemm_gemm_ex (m = 0)");
    provoke(h), expect_cleared(h,
                               wsgemm_gemm_strided_batched_ex(h, WSGEMM_OP_N, WSGEMM_OP_N, 0, 64, 64, &one, host_a,
                                                              WSGEMM_R_16BF, 64, 4096, host_b, WSGEMM_R_16BF, 64, 4096,
                                                              &zero, host_d, WSGEMM_R_16BF, 64, 4096, 2),
                               "wsgemm_gemm_strided_batched_ex (m = 0)");
    provoke(h), expect_cleared(h, matmul_64(h, &d, &one, &zero, host_d, 0), "wsgemm_matmul (m = 0)");
    provoke(h), expect_cleared(h,
                               wsgemm_gemm_workspace_size(h, WSGEMM_OP_N, WSGEMM_OP_N, 0, 64, 64, host_a, WSGEMM_R_16BF,
                                                          64, 4096, host_b, WSGEMM_R_16BF, 64, 4096, host_d,
                                                          WSGEMM_R_16BF, 64, 4096, 1, &bytes),
                               "wsgemm_gemm_workspace_size (m = 0)");
    EXPECT(bytes == 0, "an empty problem needs no workspace (%zu)", bytes);
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE));
    provoke(h), expect_cleared(h, gemm_64(h, &one, &zero, 0), "wsgemm_gemm_ex in DEVICE mode (m = 0)");
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));

    /* the calls without a handle clear the message of calls without a handle */
    int major;
    provoke_without_handle(), expect_kept(NULL, wsgemm_get_version(&major, NULL, NULL), "wsgemm_get_version");
    provoke_without_handle(),
        expect_cleared(NULL, wsgemm_matmul_desc_init(&d, WSGEMM_OP_T, WSGEMM_OP_N, WSGEMM_R_16F, WSGEMM_R_32F),
                       "wsgemm_matmul_desc_init");
    wsgemm_handle other = NULL;
    provoke_without_handle(), expect_cleared(NULL, wsgemm_create(&other), "wsgemm_create");
    EXPECT(wsgemm_get_last_error_message(other)[0] == '\0', "a new handle has no message");
    provoke_without_handle(), expect_cleared(NULL, wsgemm_destroy(other), "wsgemm_destroy");
}

/* ---------------------------------------------------------------- no_device */

/* Valid calls that need a device. On a machine with a GPU the case hides it first (CUDA_VISIBLE_DEVICES=""
 * before the first CUDA call). */
static void case_no_device(wsgemm_handle h)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const char *word = "no CUDA device";
    fill_sentinel();
    expect_status(h, gemm_64(h, &one, &zero, 64), WSGEMM_STATUS_NO_DEVICE, word, "wsgemm_gemm_ex");
    expect_status(h,
                  wsgemm_gemm_strided_batched_ex(h, WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64, &one, host_a, WSGEMM_R_16BF,
                                                 64, 0, host_b, WSGEMM_R_16BF, 64, 0, &zero, host_d, WSGEMM_R_16BF, 64,
                                                 4096, 1),
                  WSGEMM_STATUS_NO_DEVICE, word, "wsgemm_gemm_strided_batched_ex");
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF));
    expect_status(h, matmul_64(h, &d, &one, &zero, NULL, 64), WSGEMM_STATUS_NO_DEVICE, word, "wsgemm_matmul");
    size_t bytes = 7;
    expect_status(h,
                  wsgemm_gemm_workspace_size(h, WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64, host_a, WSGEMM_R_16BF, 64, 0,
                                             host_b, WSGEMM_R_16BF, 64, 0, host_d, WSGEMM_R_16BF, 64, 0, 1, &bytes),
                  WSGEMM_STATUS_NO_DEVICE, word, "wsgemm_gemm_workspace_size");
    EXPECT(bytes == 7, "a failed workspace query wrote bytes (%zu)", bytes);
    void *workspace = aligned_alloc(256, 4096);
    expect_status(h, wsgemm_set_workspace(h, workspace, 4096), WSGEMM_STATUS_NO_DEVICE, word, "wsgemm_set_workspace");
    free(workspace);
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE));
    static float device_scalars[2] = {1.0f, 0.0f}; /* host memory; the device check comes first */
    expect_status(h, gemm_64(h, &device_scalars[0], &device_scalars[1], 64), WSGEMM_STATUS_NO_DEVICE, word,
                  "wsgemm_gemm_ex in DEVICE mode");
    EXPECT(d_untouched(), "a call without a device wrote C/D");
    /* what needs no device still succeeds */
    EXPECT(wsgemm_set_workspace(h, NULL, 0) == WSGEMM_STATUS_SUCCESS, "set_workspace(NULL, 0) needs no device");
    EXPECT(wsgemm_reset_workspace(h) == WSGEMM_STATUS_SUCCESS, "reset_workspace needs no device");
}

/* ---------------------------------------------------------------- epilogues */

static void case_epilogues(wsgemm_handle h)
{
    /* cublasLt.h's values that wsgemm does not compute */
    const struct {
        const char *name;
        int value;
    } lacking[] = {{"RELU_AUX", CUBLASLT_EPILOGUE_RELU_AUX}, {"RELU_AUX_BIAS", CUBLASLT_EPILOGUE_RELU_AUX_BIAS},
                   {"DRELU", CUBLASLT_EPILOGUE_DRELU},       {"DRELU_BGRAD", CUBLASLT_EPILOGUE_DRELU_BGRAD},
                   {"DGELU", CUBLASLT_EPILOGUE_DGELU},       {"DGELU_BGRAD", CUBLASLT_EPILOGUE_DGELU_BGRAD},
                   {"BGRADA", CUBLASLT_EPILOGUE_BGRADA},     {"BGRADB", CUBLASLT_EPILOGUE_BGRADB}};
    /* and the ones it does, with the same values */
    const struct {
        wsgemm_matmul_epilogue ours;
        int theirs;
    } same[] = {{WSGEMM_MATMUL_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_DEFAULT},
                {WSGEMM_MATMUL_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU},
                {WSGEMM_MATMUL_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_BIAS},
                {WSGEMM_MATMUL_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS},
                {WSGEMM_MATMUL_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU},
                {WSGEMM_MATMUL_EPILOGUE_GELU_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS},
                {WSGEMM_MATMUL_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_GELU_AUX},
                {WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS, CUBLASLT_EPILOGUE_GELU_AUX_BIAS}};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; ++i)
        EXPECT((int)same[i].ours == same[i].theirs, "epilogue %d equals cublasLt's %d", (int)same[i].ours,
               same[i].theirs);
    wsgemm_matmul_desc d;
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF));
    for (size_t i = 0; i < sizeof lacking / sizeof lacking[0]; ++i) {
        fill_sentinel();
        d.epilogue = (wsgemm_matmul_epilogue)lacking[i].value;
        char what[64];
        snprintf(what, sizeof what, "epilogue %s (%d)", lacking[i].name, lacking[i].value);
        expect_status(h, matmul_64(h, &d, &one, &zero, NULL, 64), WSGEMM_STATUS_NOT_SUPPORTED, "desc->epilogue", what);
        EXPECT(d_untouched(), "%s wrote D", what);
    }
    const int none[] = {0, 3, 8, 16, 128, 1024, -1};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i) {
        fill_sentinel();
        d.epilogue = (wsgemm_matmul_epilogue)none[i];
        char what[64];
        snprintf(what, sizeof what, "epilogue %d (none)", none[i]);
        expect_status(h, matmul_64(h, &d, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "desc->epilogue", what);
        EXPECT(d_untouched(), "%s wrote D", what);
    }
}

/* ---------------------------------------------------------------- desc_size */

/* init_sized with `size` into a buffer of sentinels: it takes the size and writes no byte past it. */
static void expect_sized_init(unsigned char *buf, size_t buf_bytes, size_t size, const char *what)
{
    memset(buf, 0xCD, buf_bytes);
    EXPECT(wsgemm_matmul_desc_init_sized((wsgemm_matmul_desc *)(void *)buf, size, WSGEMM_OP_N, WSGEMM_OP_N,
                                         WSGEMM_R_16BF, WSGEMM_R_16BF) == WSGEMM_STATUS_SUCCESS,
           "init with the size of %s: %s", what, wsgemm_get_last_error_message(NULL));
    for (size_t i = size; i < buf_bytes; ++i) EXPECT(buf[i] == 0xCD, "init wrote byte %zu past %s", i, what);
}

static void case_desc_size(wsgemm_handle h)
{
    const size_t size = sizeof(wsgemm_matmul_desc);
    wsgemm_matmul_desc d;
    memset(&d, 0xAB, sizeof d);
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_T, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16F));
    EXPECT(d.size == size, "the init macro sets size = sizeof (got %zu, want %zu)", d.size, size);
    EXPECT(d.transa == WSGEMM_OP_T && d.Dtype == WSGEMM_R_16F && d.epilogue == WSGEMM_MATMUL_EPILOGUE_DEFAULT,
           "the defaults are set");

    /* init never writes past the size it is given, and refuses a size it does not know */
    unsigned char buf[sizeof(wsgemm_matmul_desc) + 32];
    wsgemm_matmul_desc *in_buf = (wsgemm_matmul_desc *)(void *)buf;
    expect_sized_init(buf, sizeof buf, size, "this version's struct");
    /* 0.2's struct (it ends at amax_d) is a size init takes, writing only its bytes */
    const size_t size02 = offsetof(wsgemm_matmul_desc, a_scale_mode);
    expect_sized_init(buf, sizeof buf, size02, "a 0.2 struct");
    EXPECT(in_buf->size == size02, "init sets the size it was given");
    /* wsgemm_matmul reads only a 0.2 struct's bytes: the bytes after it (no scale modes) are not read */
    fill_sentinel();
    EXPECT(matmul_64(h, in_buf, &one, &zero, NULL, 0) == WSGEMM_STATUS_SUCCESS, "a 0.2 struct is a descriptor: %s",
           wsgemm_get_last_error_message(h));
    /* the struct with the scale modes, before launch_mode: a size init and the call take, writing only its
     * bytes; launch_mode is then DEFAULT */
    const size_t size_scale = offsetof(wsgemm_matmul_desc, launch_mode);
    expect_sized_init(buf, sizeof buf, size_scale, "a struct without launch_mode");
    fill_sentinel();
    EXPECT(matmul_64(h, in_buf, &one, &zero, NULL, 0) == WSGEMM_STATUS_SUCCESS,
           "a struct without launch_mode is a descriptor: %s", wsgemm_get_last_error_message(h));
    /* the struct that ends at launch_mode (sizeof: padded to the struct's alignment): a size init and the call
     * take, writing only its bytes; batch_invariance is then OFF (on LP64 that size is this version's, the
     * field in what was the older struct's padding, which init zeroes) */
    const size_t align = _Alignof(wsgemm_matmul_desc);
    const size_t size_launch =
        (offsetof(wsgemm_matmul_desc, launch_mode) + sizeof(wsgemm_launch_mode) + align - 1) / align * align;
    expect_sized_init(buf, sizeof buf, size_launch, "a struct ending at launch_mode");
    if (size_launch > offsetof(wsgemm_matmul_desc, batch_invariance))
        EXPECT(in_buf->batch_invariance == WSGEMM_BATCH_INVARIANCE_OFF, "init of that size: batch_invariance %d",
               (int)in_buf->batch_invariance);
    EXPECT(matmul_64(h, in_buf, &one, &zero, NULL, 0) == WSGEMM_STATUS_SUCCESS,
           "a struct ending at launch_mode is a descriptor: %s", wsgemm_get_last_error_message(h));
    EXPECT(
        wsgemm_matmul_desc_init_sized(in_buf, size_scale + 4, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF) ==
            (size_scale + 4 == size ? WSGEMM_STATUS_SUCCESS : WSGEMM_STATUS_INVALID_VALUE),
        "init with a size between the struct without launch_mode and this one");
    memset(buf, 0xCD, sizeof buf);
    EXPECT(wsgemm_matmul_desc_init_sized(in_buf, size02 - 8, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF) ==
               WSGEMM_STATUS_INVALID_VALUE,
           "init with a size below the 0.2 struct");
    EXPECT(wsgemm_matmul_desc_init_sized(in_buf, size02 + 4, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF) ==
               WSGEMM_STATUS_INVALID_VALUE,
           "init with a size between the 0.2 struct and this one");
    EXPECT(strstr(wsgemm_get_last_error_message(NULL), "size") != NULL, "the message names the size: \"%s\"",
           wsgemm_get_last_error_message(NULL));
    EXPECT(wsgemm_matmul_desc_init_sized(in_buf, 0, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF) ==
               WSGEMM_STATUS_INVALID_VALUE,
           "init with size 0");
    EXPECT(wsgemm_matmul_desc_init_sized(in_buf, size + 8, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF) ==
               WSGEMM_STATUS_NOT_SUPPORTED,
           "init with a size above this library's struct");
    for (size_t i = 0; i < sizeof buf; ++i) EXPECT(buf[i] == 0xCD, "a refused init wrote byte %zu", i);

    /* wsgemm_matmul checks desc->size before anything else of the descriptor */
    fill_sentinel();
    wsgemm_matmul_desc bad = d;
    bad.size = 0;
    expect_status(h, matmul_64(h, &bad, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "desc->size", "size 0");
    bad.size = size - 1;
    expect_status(h, matmul_64(h, &bad, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "desc->size", "size - 1");
    bad.size = size02 - 8;
    expect_status(h, matmul_64(h, &bad, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "desc->size",
                  "0.2 size - 8");
    bad.size = size + 16;
    expect_status(h, matmul_64(h, &bad, &one, &zero, NULL, 64), WSGEMM_STATUS_NOT_SUPPORTED, "desc->size", "size + 16");
    EXPECT(d_untouched(), "a refused descriptor wrote D");
    expect_status(h, matmul_64(h, NULL, &one, &zero, NULL, 64), WSGEMM_STATUS_INVALID_VALUE, "desc is NULL",
                  "desc NULL");

    /* a designated initializer that sets .size is a valid descriptor (m = 0: it succeeds without a device) */
    const wsgemm_matmul_desc designated = {.size = sizeof(wsgemm_matmul_desc),
                                           .transa = WSGEMM_OP_N,
                                           .transb = WSGEMM_OP_N,
                                           .Atype = WSGEMM_R_16BF,
                                           .Btype = WSGEMM_R_16BF,
                                           .Ctype = WSGEMM_R_16BF,
                                           .Dtype = WSGEMM_R_16BF,
                                           .epilogue = WSGEMM_MATMUL_EPILOGUE_DEFAULT};
    EXPECT(matmul_64(h, &designated, &one, &zero, NULL, 0) == WSGEMM_STATUS_SUCCESS, "designated initializer: %s",
           wsgemm_get_last_error_message(h));
}

/* ---------------------------------------------------------------- driver */

static const testing_handle_case cases[] = {
    {"status_to_cublas", case_status_to_cublas},
    {"pointer_mode", case_pointer_mode},
    {"launch_mode", case_launch_mode},
    {"batch_invariance", case_batch_invariance},
    {"message_cleared", case_message_cleared},
    {"no_device", case_no_device},
    {"epilogues", case_epilogues},
    {"desc_size", case_desc_size},
};

int main(int argc, char **argv)
{
    return testing_run_handle_case(argc, argv, cases, sizeof cases / sizeof cases[0], &failures);
}
