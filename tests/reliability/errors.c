// SPDX-License-Identifier: MIT
/*
 * errors.c - a caller's pending CUDA error belongs to the caller: a successful wsgemm call neither
 * consumes it nor reports it as its own, and cudaGetLastError() afterwards still returns it. wsgemm's own
 * failures say what failed and leave no CUDA error of theirs pending.
 *
 * The pending error is planted with a cudaMalloc of 2^60 bytes: it fails with cudaErrorMemoryAllocation,
 * which the runtime keeps as the last error (not sticky: the context stays usable).
 */
#include <stdio.h>
#include <stdlib.h>

#include "reliability.h"

static void plant_pending_error(void)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, (size_t)1 << 60);
    REL_EXPECT(err == cudaErrorMemoryAllocation, "cudaMalloc(2^60) returned %s", cudaGetErrorName(err));
    err = cudaPeekAtLastError();
    if (err != cudaErrorMemoryAllocation) {
        printf("FAIL: the runtime did not keep the failed cudaMalloc as the last error (%s): nothing to test\n",
               cudaGetErrorName(err));
        exit(1);
    }
}

/* One call with the caller's error pending: SUCCESS, the error still pending after it, the result right. */
static void call_with_pending_error(wsgemm_handle h, rel_problem *p, wsgemm_path expect, const char *label)
{
    rel_problem_repoison(p);
    plant_pending_error();
    wsgemm_status s = rel_problem_run(h, p);
    cudaError_t after = cudaGetLastError();
    printf("  %s: %s, path %s, cudaGetLastError() afterwards: %s\n", label, wsgemm_status_string(s),
           wsgemm_path_name(p->path), cudaGetErrorName(after));
    REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: %s (%s)", label, wsgemm_status_string(s),
               wsgemm_get_last_error_message(h));
    REL_EXPECT(after == cudaErrorMemoryAllocation, "%s: the caller's pending error was consumed or replaced (%s)",
               label, cudaGetErrorName(after));
    REL_EXPECT(expect == WSGEMM_PATH_AUTO || p->path == expect, "%s: path %s, expected %s", label,
               wsgemm_path_name(p->path), wsgemm_path_name(expect));
    CUDA_CHECK(cudaDeviceSynchronize());
    REL_EXPECT(rel_problem_check(p, label), "%s: wrong result", label);
}

/* Each path, on a fresh handle (its first call reads the device, takes a workspace) and again. */
void errors_pending_kept(void)
{
    int splitk;
    testing_gemm g = rel_workspace_shape(0, 0, &splitk);
    rel_problem p;
    rel_problem_create(&p, &g, 0, 900);
    rel_problem_reference(&p);
    const wsgemm_path paths[3] = {WSGEMM_PATH_AUTO, WSGEMM_PATH_GENERIC, WSGEMM_PATH_SM90};
    for (int i = 0; i < (rel_sm90_runs() ? 3 : 2); ++i) {
        wsgemm_handle h;
        WSGEMM_CHECK(wsgemm_create(&h));
        WSGEMM_CHECK(wsgemm_set_path(h, paths[i]));
        wsgemm_path expect = paths[i] == WSGEMM_PATH_AUTO ? rel_auto_path() : paths[i];
        char label[64];
        snprintf(label, sizeof label, "%s, first call of a fresh handle", wsgemm_path_name(paths[i]));
        call_with_pending_error(h, &p, expect, label);
        snprintf(label, sizeof label, "%s, second call", wsgemm_path_name(paths[i]));
        call_with_pending_error(h, &p, expect, label);
        WSGEMM_CHECK(wsgemm_destroy(h));
    }
    rel_problem_destroy(&p);
}

/* After a failed call: `want` status, a message naming `word`, C untouched, and cudaGetLastError()
 * returning `pending` (cudaSuccess when the caller had none). */
static void expect_failure(wsgemm_handle h, rel_problem *p, wsgemm_status s, wsgemm_status want, const char *word,
                           cudaError_t pending, const char *label)
{
    cudaError_t after = cudaGetLastError();
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"; cudaGetLastError(): %s\n", label, wsgemm_status_string(s), msg,
           cudaGetErrorName(after));
    REL_EXPECT(s == want, "%s: %s, expected %s", label, wsgemm_status_string(s), wsgemm_status_string(want));
    REL_EXPECT(rel_mentions(msg, word), "%s: the message does not say %s", label, word);
    REL_EXPECT(after == pending, "%s: cudaGetLastError() returned %s, expected %s", label, cudaGetErrorName(after),
               cudaGetErrorName(pending));
    CUDA_CHECK(cudaDeviceSynchronize());
    REL_EXPECT(rel_problem_c_untouched(p), "%s: C was written", label);
}

void errors_own_failure_clean(void)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64);
    rel_problem p;
    rel_problem_create(&p, &g, 0, 901);
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    cudaGetLastError(); /* start clean */

    /* a forced path this device cannot run */
    wsgemm_path impossible = testing_device_cc() == 100 ? WSGEMM_PATH_SM90 : WSGEMM_PATH_SM100;
    WSGEMM_CHECK(wsgemm_set_path(h, impossible));
    expect_failure(h, &p, rel_problem_run(h, &p), WSGEMM_STATUS_ARCH_MISMATCH, wsgemm_path_name(impossible),
                   cudaSuccess, "forced path the device cannot run");
    WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));

    /* host memory as A: the pointer query must not leave its own error behind, nor eat the caller's */
    void *host = malloc(p.b.elems_a * 2);
    void *device_a = p.b.A;
    p.b.A = host;
    expect_failure(h, &p, rel_problem_run(h, &p), WSGEMM_STATUS_INVALID_VALUE, "A", cudaSuccess, "host A");
    plant_pending_error();
    expect_failure(h, &p, rel_problem_run(h, &p), WSGEMM_STATUS_INVALID_VALUE, "A", cudaErrorMemoryAllocation,
                   "host A with the caller's error pending");
    p.b.A = device_a;
    free(host);

    /* a user workspace too small for a forced sm90 call */
    void *ws = NULL;
    if (rel_sm90_runs()) {
        int splitk;
        testing_gemm gs = rel_workspace_shape(0, 0, &splitk);
        rel_problem ps;
        rel_problem_create(&ps, &gs, 0, 902);
        CUDA_CHECK(cudaMalloc(&ws, 256));
        WSGEMM_CHECK(wsgemm_set_workspace(h, ws, 256));
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_SM90));
        expect_failure(h, &ps, rel_problem_run(h, &ps), WSGEMM_STATUS_ALLOC_FAILED, "workspace", cudaSuccess,
                       "forced sm90 with a 256-byte user workspace");
        rel_problem_destroy(&ps);
    }
    WSGEMM_CHECK(wsgemm_destroy(h));
    CUDA_CHECK(cudaFree(ws));
    rel_problem_destroy(&p);
}
