// SPDX-License-Identifier: MIT
/*
 * workspace.c - the workspace API: wsgemm_gemm_workspace_size (0 for an aligned problem, > 0 for a staged
 * one or forced split-K, on the sm90 path); a user workspace of exactly that size is used, one byte less
 * is not (AUTO runs the generic path, forced sm90 returns ALLOC_FAILED with C untouched); (NULL, 0) means
 * no workspace ever; wsgemm_reset_workspace returns to the stream-ordered default; a workspace that is not
 * 256-byte aligned device memory is refused naming "workspace" (in a child process: used, it could fault).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>

#include "reliability.h"

/* An aligned problem that the sm90 path runs without splitting K (WSGEMM_SM90_SPLITK=1 pins one split). */
static testing_gemm aligned_shape(void)
{
    return testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 1024, 768, 512);
}

/* Run p on h: `want` status and, on success, path `path` and the right product; otherwise C untouched. */
static void expect_run(wsgemm_handle h, rel_problem *p, wsgemm_status want, wsgemm_path path, const char *label)
{
    rel_problem_repoison(p);
    rel_problem_reference(p);
    wsgemm_status s = rel_problem_run(h, p);
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("  %s -> %s, path %s%s%s\n", label, wsgemm_status_string(s), wsgemm_path_name(p->path),
           s == WSGEMM_STATUS_SUCCESS ? "" : ": ", s == WSGEMM_STATUS_SUCCESS ? "" : wsgemm_get_last_error_message(h));
    REL_EXPECT(s == want, "%s: %s, expected %s", label, wsgemm_status_string(s), wsgemm_status_string(want));
    if (s != WSGEMM_STATUS_SUCCESS) {
        REL_EXPECT(rel_problem_c_untouched(p), "%s: a failed call wrote C", label);
        if (want != WSGEMM_STATUS_SUCCESS)
            REL_EXPECT(rel_mentions(wsgemm_get_last_error_message(h), "workspace"),
                       "%s: the message does not say workspace", label);
        return;
    }
    REL_EXPECT(path == WSGEMM_PATH_AUTO || p->path == path, "%s: path %s, expected %s", label,
               wsgemm_path_name(p->path), wsgemm_path_name(path));
    REL_EXPECT(rel_problem_check(p, label), "%s: wrong result", label);
}

void workspace_size_query(void)
{
    int splitk;
    testing_gemm staged_g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 4000, 256, 512);
    staged_g.lda = 4099; /* op N, lda * 2 bytes not a multiple of 16 */
    testing_gemm aligned_g = aligned_shape(), split_g = rel_workspace_shape(3, 0, &splitk);
    rel_problem staged, aligned, split;
    rel_problem_create(&staged, &staged_g, 0, 1000);
    rel_problem_create(&aligned, &aligned_g, 1, 1001);
    rel_problem_create(&split, &split_g, splitk, 1002);
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    const wsgemm_path paths[3] = {WSGEMM_PATH_AUTO, WSGEMM_PATH_GENERIC, WSGEMM_PATH_SM90};
    for (int i = 0; i < (rel_sm90_runs() ? 3 : 2); ++i) {
        WSGEMM_CHECK(wsgemm_set_path(h, paths[i]));
        int fast = rel_sm90_runs() && paths[i] != WSGEMM_PATH_GENERIC; /* the path that uses a workspace */
        size_t a = rel_problem_workspace_size(h, &aligned), st = rel_problem_workspace_size(h, &staged);
        size_t sp = rel_problem_workspace_size(h, &split);
        printf("  path %s: aligned %zu bytes, lda 4099 %zu bytes, split-K 4 %zu bytes\n", wsgemm_path_name(paths[i]), a,
               st, sp);
        REL_EXPECT(a == 0, "%s: an aligned problem without split-K needs %zu bytes", wsgemm_path_name(paths[i]), a);
        if (fast) {
            REL_EXPECT(st >= (size_t)4000 * 512 * 2, "%s: the staged copy of A needs at least its 4 MB, not %zu",
                       wsgemm_path_name(paths[i]), st);
            REL_EXPECT(sp > 0, "%s: split-K partials need a workspace", wsgemm_path_name(paths[i]));
        } else {
            REL_EXPECT(st == 0 && sp == 0, "%s needs no workspace, the query says %zu and %zu",
                       wsgemm_path_name(paths[i]), st, sp);
        }
    }
    /* the query checks its arguments as the call does */
    size_t bytes = 1;
    const testing_gemm *g = &staged.g;
    wsgemm_status s = wsgemm_gemm_workspace_size(h, g->transa, g->transb, g->m, g->n, g->k, staged.b.A, g->ab_type,
                                                 g->m - 1, g->strideA, staged.b.B, g->ab_type, g->ldb, g->strideB,
                                                 staged.b.C, g->c_type, g->ldc, g->strideC, 1, &bytes);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE && rel_mentions(wsgemm_get_last_error_message(h), "lda"),
               "query with lda too small: %s \"%s\"", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
    s = wsgemm_gemm_workspace_size(h, g->transa, g->transb, g->m, g->n, g->k, staged.b.A, g->ab_type, g->lda,
                                   g->strideA, staged.b.B, g->ab_type, g->ldb, g->strideB, staged.b.C, g->c_type,
                                   g->ldc, g->strideC, 1, NULL);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "query with bytes = NULL: %s", wsgemm_status_string(s));
    WSGEMM_CHECK(wsgemm_destroy(h));
    rel_problem_destroy(&staged);
    rel_problem_destroy(&aligned);
    rel_problem_destroy(&split);
}

/* A staged problem and two split-K ones (the second with partials of 4 * 501 * 300 fp32, not a multiple of
 * 256 bytes): a user workspace of exactly the queried size runs sm90; one byte less runs generic under AUTO
 * and fails forced sm90. */
void workspace_exact_and_too_small(void)
{
    rel_require_sm90(); /* elsewhere nothing needs a workspace */
    testing_gemm shapes[3];
    int splitks[3];
    shapes[0] = rel_workspace_shape(0, 0, &splitks[0]);
    shapes[1] = rel_workspace_shape(3, 0, &splitks[1]);
    shapes[2] = testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 501, 300, 2048);
    splitks[2] = 4;
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    for (int i = 0; i < 3; ++i) {
        rel_problem p;
        rel_problem_create(&p, &shapes[i], splitks[i], 1010 + (uint64_t)i);
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_AUTO));
        WSGEMM_CHECK(wsgemm_reset_workspace(h));
        size_t need = rel_problem_workspace_size(h, &p);
        void *ws = NULL;
        CUDA_CHECK(cudaMalloc(&ws, need));
        char shape[256];
        testing_gemm_describe(&p.g, shape, sizeof shape);
        printf("%s split-K %d: needs %zu bytes\n", shape, splitks[i], need);
        WSGEMM_CHECK(wsgemm_set_workspace(h, ws, need));
        expect_run(h, &p, WSGEMM_STATUS_SUCCESS, WSGEMM_PATH_SM90, "AUTO, user workspace of exactly that size");
        WSGEMM_CHECK(wsgemm_set_workspace(h, ws, need - 1));
        expect_run(h, &p, WSGEMM_STATUS_SUCCESS, WSGEMM_PATH_GENERIC, "AUTO, user workspace one byte short");
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_SM90));
        expect_run(h, &p, WSGEMM_STATUS_ALLOC_FAILED, WSGEMM_PATH_SM90, "forced sm90, one byte short");
        WSGEMM_CHECK(wsgemm_set_workspace(h, ws, need));
        expect_run(h, &p, WSGEMM_STATUS_SUCCESS, WSGEMM_PATH_SM90, "forced sm90, exactly that size");
        WSGEMM_CHECK(wsgemm_reset_workspace(h));
        CUDA_CHECK(cudaFree(ws));
        rel_problem_destroy(&p);
    }
    WSGEMM_CHECK(wsgemm_destroy(h));
}

/* (NULL, 0): problems that need a workspace run generic under AUTO and fail forced sm90; an aligned one
 * still runs sm90. */
void workspace_none(void)
{
    int splitk_staged, splitk_split;
    testing_gemm gs = rel_workspace_shape(0, 0, &splitk_staged), gk = rel_workspace_shape(3, 0, &splitk_split);
    testing_gemm ga = aligned_shape();
    rel_problem staged, split, aligned;
    rel_problem_create(&staged, &gs, splitk_staged, 1020);
    rel_problem_create(&split, &gk, splitk_split, 1021);
    rel_problem_create(&aligned, &ga, 1, 1022);
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_workspace(h, NULL, 0));
    const wsgemm_path fallback = rel_sm90_runs() ? WSGEMM_PATH_GENERIC : WSGEMM_PATH_AUTO;
    expect_run(h, &staged, WSGEMM_STATUS_SUCCESS, fallback, "no workspace, AUTO, lda 1001");
    expect_run(h, &split, WSGEMM_STATUS_SUCCESS, fallback, "no workspace, AUTO, split-K 4");
    expect_run(h, &aligned, WSGEMM_STATUS_SUCCESS, rel_auto_path(), "no workspace, AUTO, aligned");
    if (rel_sm90_runs()) {
        WSGEMM_CHECK(wsgemm_set_path(h, WSGEMM_PATH_SM90));
        expect_run(h, &staged, WSGEMM_STATUS_ALLOC_FAILED, WSGEMM_PATH_SM90, "no workspace, forced sm90, lda 1001");
        expect_run(h, &split, WSGEMM_STATUS_ALLOC_FAILED, WSGEMM_PATH_SM90, "no workspace, forced sm90, split-K 4");
        expect_run(h, &aligned, WSGEMM_STATUS_SUCCESS, WSGEMM_PATH_SM90, "no workspace, forced sm90, aligned");
    }
    WSGEMM_CHECK(wsgemm_destroy(h));
    rel_problem_destroy(&staged);
    rel_problem_destroy(&split);
    rel_problem_destroy(&aligned);
}

/* A too small user workspace, then reset: the default takes what it needs again; likewise after (NULL, 0). */
void workspace_reset(void)
{
    int splitk;
    testing_gemm g = rel_workspace_shape(0, 0, &splitk);
    rel_problem p;
    rel_problem_create(&p, &g, splitk, 1030);
    void *ws = NULL;
    CUDA_CHECK(cudaMalloc(&ws, 256));
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    const wsgemm_path fallback = rel_sm90_runs() ? WSGEMM_PATH_GENERIC : WSGEMM_PATH_AUTO;
    WSGEMM_CHECK(wsgemm_set_workspace(h, ws, 256));
    expect_run(h, &p, WSGEMM_STATUS_SUCCESS, fallback, "256-byte user workspace");
    WSGEMM_CHECK(wsgemm_reset_workspace(h));
    expect_run(h, &p, WSGEMM_STATUS_SUCCESS, rel_auto_path(), "after wsgemm_reset_workspace");
    WSGEMM_CHECK(wsgemm_set_workspace(h, NULL, 0));
    expect_run(h, &p, WSGEMM_STATUS_SUCCESS, fallback, "(NULL, 0)");
    WSGEMM_CHECK(wsgemm_reset_workspace(h));
    expect_run(h, &p, WSGEMM_STATUS_SUCCESS, rel_auto_path(), "after the second reset");
    WSGEMM_CHECK(wsgemm_destroy(h));
    CUDA_CHECK(cudaFree(ws));
    rel_problem_destroy(&p);
}

/* Host memory (malloc'd, pinned) and device memory off 256-byte alignment (by 1 and by 16 bytes): refused
 * by wsgemm_set_workspace or by the next call that would use it, naming "workspace", C untouched. */
void workspace_bad_pointer(void)
{
    enum { kBytes = 1 << 24 };
    int splitk;
    testing_gemm g = rel_workspace_shape(0, 0, &splitk);
    rel_problem p;
    rel_problem_create(&p, &g, splitk, 1040);
    void *host = aligned_alloc(256, kBytes), *pinned = NULL, *device = NULL;
    CUDA_CHECK(cudaMallocHost(&pinned, kBytes));
    CUDA_CHECK(cudaMalloc(&device, kBytes));
    struct {
        void *ptr;
        const char *what;
    } bad[4] = {
        {host, "malloc'd host memory"},
        {pinned, "pinned host memory"},
        {(char *)device + 1, "device memory + 1 byte"},
        {(char *)device + 16, "device memory + 16 bytes"},
    };
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    for (int i = 0; i < 4; ++i) {
        rel_problem_repoison(&p);
        wsgemm_status s = wsgemm_set_workspace(h, bad[i].ptr, kBytes - 256);
        const char *msg = wsgemm_get_last_error_message(h);
        const char *when = "wsgemm_set_workspace";
        if (s == WSGEMM_STATUS_SUCCESS) { /* refused when used, then */
            s = rel_problem_run(h, &p);
            msg = wsgemm_get_last_error_message(h);
            when = "the next call";
        }
        printf("  %s: %s -> %s: \"%s\"\n", bad[i].what, when, wsgemm_status_string(s), msg);
        REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "%s: %s", bad[i].what, wsgemm_status_string(s));
        REL_EXPECT(rel_mentions(msg, "workspace"), "%s: the message does not name the workspace", bad[i].what);
        cudaError_t err = cudaDeviceSynchronize();
        REL_EXPECT(err == cudaSuccess, "%s: the context reports %s", bad[i].what, cudaGetErrorString(err));
        REL_EXPECT(rel_problem_c_untouched(&p), "%s: C was written", bad[i].what);
        WSGEMM_CHECK(wsgemm_reset_workspace(h));
    }
    expect_run(h, &p, WSGEMM_STATUS_SUCCESS, rel_auto_path(), "valid call after the refused workspaces");
    WSGEMM_CHECK(wsgemm_destroy(h));
    free(host);
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaFree(device));
    rel_problem_destroy(&p);
}
