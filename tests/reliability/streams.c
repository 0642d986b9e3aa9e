// SPDX-License-Identifier: MIT
/*
 * streams.c - one handle whose stream alternates between non-blocking streams while earlier calls are
 * still in flight. Every call owns its A, B and C, and all of them need a workspace on the sm90 path
 * (staged operands, split-K partials), so the only thing the calls could share is wsgemm's workspace:
 * a workspace reused before an earlier call on another stream has finished with it gives wrong results
 * with status SUCCESS. Nothing is synchronized between the calls; all are checked at the end.
 */
#include <stdio.h>
#include <stdlib.h>

#include "reliability.h"

enum { kStreamCalls = 48, kMaxStreams = 4 };

static void streams_case(wsgemm_path path, int stream_count, int user_workspace)
{
    if (path == WSGEMM_PATH_SM90) rel_require_sm90();
    const wsgemm_path expect = path == WSGEMM_PATH_AUTO ? rel_auto_path() : path;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, path));

    rel_problem ps[kStreamCalls];
    size_t most_bytes = 0;
    for (int i = 0; i < kStreamCalls; ++i) {
        int splitk;
        testing_gemm g = rel_workspace_shape(i, 0, &splitk);
        rel_problem_create(&ps[i], &g, splitk, 100 + (uint64_t)i);
        rel_problem_reference(&ps[i]);
        size_t bytes = rel_problem_workspace_size(h, &ps[i]);
        if (rel_sm90_runs())
            REL_EXPECT(bytes > 0, "problem %d needs no workspace on the sm90 path: the case would test nothing", i);
        if (bytes > most_bytes) most_bytes = bytes;
    }
    void *workspace = NULL;
    if (user_workspace) {
        CUDA_CHECK(cudaMalloc(&workspace, most_bytes + 256));
        WSGEMM_CHECK(wsgemm_set_workspace(h, workspace, most_bytes));
    }
    cudaStream_t streams[kMaxStreams];
    for (int s = 0; s < stream_count; ++s) streams[s] = rel_stream_create();
    CUDA_CHECK(cudaDeviceSynchronize());

    double t0 = rel_now_ms();
    for (int i = 0; i < kStreamCalls; ++i) {
        WSGEMM_CHECK(wsgemm_set_stream(h, streams[i % stream_count]));
        wsgemm_status s = rel_problem_run(h, &ps[i]);
        REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "call %d: %s (%s)", i, wsgemm_status_string(s),
                   wsgemm_get_last_error_message(h));
        REL_EXPECT(expect == WSGEMM_PATH_AUTO || ps[i].path == expect, "call %d ran path %s, expected %s", i,
                   wsgemm_path_name(ps[i].path), wsgemm_path_name(expect));
    }
    double queued_ms = rel_now_ms() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());
    double done_ms = rel_now_ms() - t0;
    printf("%d calls on %d streams, path %s, %s workspace (largest need %zu bytes): queued in %.1f ms, done after "
           "%.1f ms\n",
           kStreamCalls, stream_count, wsgemm_path_name(path), user_workspace ? "user" : "stream-ordered", most_bytes,
           queued_ms, done_ms);
    rel_check_all(ps, kStreamCalls, wsgemm_path_name(path));

    WSGEMM_CHECK(wsgemm_destroy(h));
    for (int s = 0; s < stream_count; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(workspace));
    for (int i = 0; i < kStreamCalls; ++i) rel_problem_destroy(&ps[i]);
}

void streams_auto(void)
{
    streams_case(WSGEMM_PATH_AUTO, 2, 0);
}
void streams_sm90(void)
{
    streams_case(WSGEMM_PATH_SM90, 3, 0);
}
void streams_user_workspace_auto(void)
{
    streams_case(WSGEMM_PATH_AUTO, 2, 1);
}
void streams_user_workspace_sm90(void)
{
    streams_case(WSGEMM_PATH_SM90, 4, 1);
}
