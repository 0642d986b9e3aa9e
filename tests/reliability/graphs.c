// SPDX-License-Identifier: MIT
/*
 * graphs.c - calls captured into a CUDA graph: the first call of a fresh handle inside
 * cudaStreamBeginCapture (global and thread-local modes), problems with and without a workspace, replays
 * with fresh inputs copied into the same buffers between them (C poisoned again each time), a capture
 * whose workspace need grows, replays after wsgemm_destroy of the capturing handle, and a capture with a
 * user workspace. A call that does what capture forbids (a synchronous allocation, a synchronization,
 * a blocking query) fails the call or invalidates the capture, which cudaStreamEndCapture reports.
 */
#include <stdio.h>
#include <stdlib.h>

#include "reliability.h"

enum { kReplays = 5, kReplaysAfterDestroy = 2, kMaxCaptured = 5 };

/* Capture the calls of ps on stream s (h's stream) and instantiate them. NULL when the capture broke. */
static cudaGraphExec_t capture(wsgemm_handle h, cudaStream_t s, enum cudaStreamCaptureMode mode, rel_problem *ps,
                               int count, wsgemm_path expect, const char *label)
{
    cudaGraph_t graph = NULL;
    CUDA_CHECK(cudaStreamBeginCapture(s, mode));
    for (int i = 0; i < count; ++i) {
        wsgemm_status st = rel_problem_run(h, &ps[i]);
        REL_EXPECT(st == WSGEMM_STATUS_SUCCESS, "%s: captured call %d: %s (%s)", label, i, wsgemm_status_string(st),
                   wsgemm_get_last_error_message(h));
        REL_EXPECT(expect == WSGEMM_PATH_AUTO || ps[i].path == expect, "%s: captured call %d ran path %s, expected %s",
                   label, i, wsgemm_path_name(ps[i].path), wsgemm_path_name(expect));
    }
    cudaError_t err = cudaStreamEndCapture(s, &graph);
    REL_EXPECT(err == cudaSuccess, "%s: cudaStreamEndCapture: %s (a captured call did something capture forbids)",
               label, cudaGetErrorString(err));
    if (err != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    cudaGraphExec_t exec = NULL;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
}

/* Fresh inputs into every problem's buffers, C poisoned, new references; one replay; check all. */
static void replay_and_check(cudaGraphExec_t exec, cudaStream_t s, rel_problem *ps, int count, uint64_t seed,
                             const char *label)
{
    if (exec == NULL) return; /* the capture already failed */
    for (int i = 0; i < count; ++i) {
        rel_problem_new_inputs(&ps[i], seed * 16 + (uint64_t)i);
        rel_problem_reference(&ps[i]);
    }
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    rel_check_all(ps, count, label);
}

static void exec_destroy(cudaGraphExec_t exec)
{
    if (exec) CUDA_CHECK(cudaGraphExecDestroy(exec));
}

/* An aligned problem (no workspace unless the cost model splits K) and the four workspace shapes. */
static int make_capture_problems(rel_problem *ps)
{
    testing_gemm aligned = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 512, 384, 256);
    rel_problem_create(&ps[0], &aligned, 0, 300);
    for (int i = 0; i < 4; ++i) {
        int splitk;
        testing_gemm g = rel_workspace_shape(i, 0, &splitk);
        rel_problem_create(&ps[1 + i], &g, splitk, 301 + (uint64_t)i);
    }
    return 5;
}

static void graphs_case(wsgemm_path path, enum cudaStreamCaptureMode mode)
{
    if (path == WSGEMM_PATH_SM90) rel_require_sm90();
    const wsgemm_path expect = path == WSGEMM_PATH_AUTO ? rel_auto_path() : path;
    const char *mode_name = mode == cudaStreamCaptureModeGlobal ? "global" : "thread-local";
    rel_problem ps[kMaxCaptured];
    int count = make_capture_problems(ps);
    cudaStream_t s = rel_stream_create();

    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h)); /* fresh: its first call is inside the capture */
    WSGEMM_CHECK(wsgemm_set_path(h, path));
    WSGEMM_CHECK(wsgemm_set_stream(h, s));
    cudaGraphExec_t exec = capture(h, s, mode, ps, count, expect, mode_name);
    char label[96];
    for (int r = 0; r < kReplays; ++r) {
        snprintf(label, sizeof label, "%s capture, path %s, replay %d", mode_name, wsgemm_path_name(path), r);
        replay_and_check(exec, s, ps, count, 10 + (uint64_t)r, label);
    }
    WSGEMM_CHECK(wsgemm_destroy(h)); /* the graph must not depend on the handle */
    for (int r = 0; r < kReplaysAfterDestroy; ++r) {
        snprintf(label, sizeof label, "%s capture, replay %d after wsgemm_destroy", mode_name, r);
        replay_and_check(exec, s, ps, count, 20 + (uint64_t)r, label);
    }
    exec_destroy(exec);
    CUDA_CHECK(cudaStreamDestroy(s));
    for (int i = 0; i < count; ++i) rel_problem_destroy(&ps[i]);
}

void graphs_global_auto(void)
{
    graphs_case(WSGEMM_PATH_AUTO, cudaStreamCaptureModeGlobal);
}
void graphs_thread_local_auto(void)
{
    graphs_case(WSGEMM_PATH_AUTO, cudaStreamCaptureModeThreadLocal);
}
void graphs_global_sm90(void)
{
    graphs_case(WSGEMM_PATH_SM90, cudaStreamCaptureModeGlobal);
}

/* One eager call of p on `stream` (set as h's stream), waited for and checked. */
static void eager_call(wsgemm_handle h, cudaStream_t stream, rel_problem *p, wsgemm_path expect, uint64_t seed,
                       const char *label)
{
    WSGEMM_CHECK(wsgemm_set_stream(h, stream));
    rel_problem_new_inputs(p, seed);
    rel_problem_reference(p);
    wsgemm_status st = rel_problem_run(h, p);
    REL_EXPECT(st == WSGEMM_STATUS_SUCCESS, "%s: %s", label, wsgemm_get_last_error_message(h));
    REL_EXPECT(expect == WSGEMM_PATH_AUTO || p->path == expect, "%s: ran %s, expected %s", label,
               wsgemm_path_name(p->path), wsgemm_path_name(expect));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    rel_check_all(p, 1, label);
}

/* G1 captures a small staged problem; an eager call then needs a large workspace; G2 captures the small
 * one and then a large one (the need grows inside one capture). Replays of both, interleaved, stay right,
 * also after the handle is destroyed. */
void graphs_workspace_grows(void)
{
    const wsgemm_path expect = rel_auto_path();
    int splitk;
    testing_gemm small = rel_workspace_shape(0, 1, &splitk);
    testing_gemm large = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 2000, 1024, 2001);
    large.lda = 2001;
    rel_problem ps[2]; /* [0] small, [1] large */
    rel_problem_create(&ps[0], &small, 0, 400);
    rel_problem_create(&ps[1], &large, 0, 401);
    cudaStream_t s = rel_stream_create();
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_stream(h, s));
    size_t small_bytes = rel_problem_workspace_size(h, &ps[0]), large_bytes = rel_problem_workspace_size(h, &ps[1]);
    printf("workspace need: small %zu bytes, large %zu bytes\n", small_bytes, large_bytes);
    if (rel_sm90_runs()) REL_EXPECT(large_bytes > small_bytes && small_bytes > 0, "the large problem needs more");

    cudaGraphExec_t g1 = capture(h, s, cudaStreamCaptureModeGlobal, &ps[0], 1, expect, "G1 (small)");
    /* an eager call that needs the large workspace, between the captures */
    eager_call(h, s, &ps[1], expect, 45, "eager large call between the captures");
    cudaGraphExec_t g2 = capture(h, s, cudaStreamCaptureModeGlobal, ps, 2, expect, "G2 (small, then large)");

    char label[96];
    for (int r = 0; r < 3; ++r) {
        snprintf(label, sizeof label, "G1 replay %d", r);
        replay_and_check(g1, s, &ps[0], 1, 40 + (uint64_t)r, label);
        snprintf(label, sizeof label, "G2 replay %d", r);
        replay_and_check(g2, s, ps, 2, 50 + (uint64_t)r, label);
    }
    WSGEMM_CHECK(wsgemm_destroy(h));
    replay_and_check(g2, s, ps, 2, 60, "G2 replay after wsgemm_destroy");
    replay_and_check(g1, s, &ps[0], 1, 61, "G1 replay after wsgemm_destroy");
    exec_destroy(g1);
    exec_destroy(g2);
    CUDA_CHECK(cudaStreamDestroy(s));
    rel_problem_destroy(&ps[0]);
    rel_problem_destroy(&ps[1]);
}

/* A user workspace under capture (docs/api.md, "Graphs"). A fresh one is used by the first capture (two
 * calls in it share it in stream order). Eager calls on the capture's stream and on another stream use it,
 * ordered by the stream and by the handle's event. A capture after a last use on another stream outside it
 * cannot be ordered after that use: it runs without workspace (generic under AUTO); after a last use on
 * its own stream it uses the workspace again. Every graph replays right, also after wsgemm_destroy; the
 * memory stays alive until the graphs are gone, as the caller must keep it. */
void graphs_user_workspace(void)
{
    const wsgemm_path expect = rel_auto_path();
    const wsgemm_path without = rel_sm90_runs() ? WSGEMM_PATH_GENERIC : WSGEMM_PATH_AUTO;
    rel_problem ps[2];
    int splitk;
    testing_gemm staged = rel_workspace_shape(0, 0, &splitk);
    rel_problem_create(&ps[0], &staged, splitk, 500);
    testing_gemm split = rel_workspace_shape(3, 0, &splitk);
    rel_problem_create(&ps[1], &split, splitk, 501);
    cudaStream_t s = rel_stream_create(), other = rel_stream_create();
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_stream(h, s));
    size_t need0 = rel_problem_workspace_size(h, &ps[0]), need1 = rel_problem_workspace_size(h, &ps[1]);
    size_t bytes = need0 > need1 ? need0 : need1;
    void *workspace = NULL;
    CUDA_CHECK(cudaMalloc(&workspace, bytes + 256));
    WSGEMM_CHECK(wsgemm_set_workspace(h, workspace, bytes));

    cudaGraphExec_t g =
        capture(h, s, cudaStreamCaptureModeGlobal, ps, 2, expect, "capture with a fresh user workspace");
    char label[96];
    for (int r = 0; r < kReplays; ++r) {
        snprintf(label, sizeof label, "user-workspace graph, replay %d", r);
        replay_and_check(g, s, ps, 2, 70 + (uint64_t)r, label);
    }
    eager_call(h, s, &ps[0], expect, 80, "eager call on the capture's stream");
    eager_call(h, other, &ps[0], expect, 81, "eager call on another stream (ordered by the handle's event)");
    WSGEMM_CHECK(wsgemm_set_stream(h, s));
    cudaGraphExec_t g_other =
        capture(h, s, cudaStreamCaptureModeGlobal, &ps[0], 1, without, "capture after a last use on another stream");
    eager_call(h, s, &ps[0], expect, 82, "eager call on the capture's stream again");
    cudaGraphExec_t g_same =
        capture(h, s, cudaStreamCaptureModeGlobal, &ps[0], 1, expect, "capture after a last use on its own stream");
    replay_and_check(g_other, s, &ps[0], 1, 83, "graph captured without workspace, replay");
    replay_and_check(g_same, s, &ps[0], 1, 84, "graph captured after a use on its stream, replay");
    replay_and_check(g, s, ps, 2, 85, "first graph replayed after the eager uses");
    WSGEMM_CHECK(wsgemm_destroy(h));
    replay_and_check(g, s, ps, 2, 86, "first graph replayed after wsgemm_destroy");
    replay_and_check(g_other, s, &ps[0], 1, 87, "graph captured without workspace, after wsgemm_destroy");
    replay_and_check(g_same, s, &ps[0], 1, 88, "graph captured after a use on its stream, after wsgemm_destroy");
    exec_destroy(g);
    exec_destroy(g_other);
    exec_destroy(g_same);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaStreamDestroy(other));
    CUDA_CHECK(cudaFree(workspace));
    rel_problem_destroy(&ps[0]);
    rel_problem_destroy(&ps[1]);
}
