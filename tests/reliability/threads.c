// SPDX-License-Identifier: MIT
/*
 * threads.c - host threads calling wsgemm at once: eight threads on one handle (each setting its own
 * stream before every call, or all on one shared stream), a handle per thread, and the per-thread
 * record of the last error message and the last path: a failing call on one thread leaves another
 * thread's message empty and its last path its own.
 *
 * Problems and cuBLAS references are prepared on the main thread; the workers only call wsgemm, so the
 * environment (WSGEMM_SM90_SPLITK) is set before they start and never while they run.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, pthread barriers */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/knobs.h" /* wsgemm_knobs_reload */
#include "reliability.h"

enum { kWorkers = 8, kCallsPerWorker = 20, kMessageRounds = 50 };

typedef enum sharing { ONE_HANDLE_OWN_STREAMS, ONE_HANDLE_SHARED_STREAM, HANDLE_PER_THREAD } sharing;

typedef struct worker {
    wsgemm_handle h;     /* the shared handle, or NULL: the worker creates its own */
    cudaStream_t stream; /* set before every call on a shared handle; the own handle's stream */
    int set_stream;      /* 1: wsgemm_set_stream(h, stream) before every call */
    rel_problem *ps;     /* kCallsPerWorker problems of this worker */
    wsgemm_path expect;
    pthread_barrier_t *start;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    wsgemm_handle h = w->h;
    if (h == NULL) {
        WSGEMM_CHECK(wsgemm_create(&h));
        WSGEMM_CHECK(wsgemm_set_stream(h, w->stream));
    }
    pthread_barrier_wait(w->start);
    for (int i = 0; i < kCallsPerWorker; ++i) {
        if (w->set_stream) WSGEMM_CHECK(wsgemm_set_stream(h, w->stream));
        wsgemm_status s = rel_problem_run(h, &w->ps[i]); /* splitk 0: the environment is left alone */
        REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "call %d: %s (%s)", i, wsgemm_status_string(s),
                   wsgemm_get_last_error_message(h));
        REL_EXPECT(w->expect == WSGEMM_PATH_AUTO || w->ps[i].path == w->expect, "call %d: last path %s, expected %s", i,
                   wsgemm_path_name(w->ps[i].path), wsgemm_path_name(w->expect));
    }
    if (w->h == NULL) WSGEMM_CHECK(wsgemm_destroy(h)); /* without waiting: queued kernels own their memory */
    return NULL;
}

static void threads_case(sharing mode, const char *label)
{
    const int total = kWorkers * kCallsPerWorker;
    rel_problem *ps = calloc((size_t)total, sizeof *ps);
    for (int i = 0; i < total; ++i) {
        int splitk;
        testing_gemm g = rel_workspace_shape(i, 1, &splitk);
        rel_problem_create(&ps[i], &g, 0, 600 + (uint64_t)i);
        rel_problem_reference(&ps[i]);
    }
    if (mode == ONE_HANDLE_SHARED_STREAM) { /* every sm90 call splits K */
        setenv("WSGEMM_SM90_SPLITK", "4", 1);
        wsgemm_knobs_reload();
    }
    wsgemm_handle shared = NULL;
    cudaStream_t shared_stream = rel_stream_create(), streams[kWorkers];
    if (mode != HANDLE_PER_THREAD) WSGEMM_CHECK(wsgemm_create(&shared));
    if (mode == ONE_HANDLE_SHARED_STREAM) WSGEMM_CHECK(wsgemm_set_stream(shared, shared_stream));
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, kWorkers);
    worker workers[kWorkers];
    pthread_t threads[kWorkers];
    for (int t = 0; t < kWorkers; ++t) {
        streams[t] = rel_stream_create();
        workers[t] = (worker){.h = shared,
                              .stream = streams[t],
                              .set_stream = mode == ONE_HANDLE_OWN_STREAMS,
                              .ps = ps + t * kCallsPerWorker,
                              .expect = rel_auto_path(),
                              .start = &start};
        if (pthread_create(&threads[t], NULL, worker_main, &workers[t]) != 0) {
            printf("FAIL: pthread_create\n");
            exit(1);
        }
    }
    for (int t = 0; t < kWorkers; ++t) pthread_join(threads[t], NULL);
    CUDA_CHECK(cudaDeviceSynchronize());
    unsetenv("WSGEMM_SM90_SPLITK");
    wsgemm_knobs_reload();
    printf("%d threads x %d calls: ", kWorkers, kCallsPerWorker);
    rel_check_all(ps, total, label);

    pthread_barrier_destroy(&start);
    if (shared) WSGEMM_CHECK(wsgemm_destroy(shared));
    for (int t = 0; t < kWorkers; ++t) CUDA_CHECK(cudaStreamDestroy(streams[t]));
    CUDA_CHECK(cudaStreamDestroy(shared_stream));
    for (int i = 0; i < total; ++i) rel_problem_destroy(&ps[i]);
    free(ps);
}

void threads_one_handle_own_streams(void)
{
    threads_case(ONE_HANDLE_OWN_STREAMS, "one handle, a stream per thread");
}
void threads_one_handle_shared_stream(void)
{
    threads_case(ONE_HANDLE_SHARED_STREAM, "one handle, one stream, split-K");
}
void threads_handle_per_thread(void)
{
    threads_case(HANDLE_PER_THREAD, "a handle per thread");
}

/* ---------------------------------------------------------------- per-thread messages and paths */

typedef struct messenger {
    wsgemm_handle h;
    rel_problem *p;
    wsgemm_path expect; /* the valid thread's path */
    pthread_barrier_t *step;
} messenger;

/* Y: a valid call each round; after X has failed, Y's message is still "" and its last path its own. */
static void *valid_thread(void *arg)
{
    messenger *m = arg;
    for (int r = 0; r < kMessageRounds; ++r) {
        wsgemm_status s = rel_problem_run(m->h, m->p);
        REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "round %d: %s", r, wsgemm_get_last_error_message(m->h));
        REL_EXPECT(m->expect == WSGEMM_PATH_AUTO || m->p->path == m->expect, "round %d: path %s", r,
                   wsgemm_path_name(m->p->path));
        pthread_barrier_wait(m->step); /* X fails between these two */
        pthread_barrier_wait(m->step);
        const char *msg = wsgemm_get_last_error_message(m->h);
        wsgemm_path path = WSGEMM_PATH_NONE;
        WSGEMM_CHECK(wsgemm_get_last_path(m->h, &path));
        REL_EXPECT(msg[0] == '\0', "round %d: the valid thread reads the other thread's message \"%s\"", r, msg);
        REL_EXPECT(path == m->p->path, "round %d: the valid thread's last path reads %s, its call ran %s", r,
                   wsgemm_path_name(path), wsgemm_path_name(m->p->path));
    }
    return NULL;
}

/* X: an empty call (path NONE), then one with lda too small. */
static void *failing_thread(void *arg)
{
    messenger *m = arg;
    const testing_gemm *g = &m->p->g;
    for (int r = 0; r < kMessageRounds; ++r) {
        wsgemm_status s = wsgemm_gemm_ex(m->h, g->transa, g->transb, 0, g->n, g->k, &g->alpha, m->p->b.A, g->ab_type,
                                         g->lda, m->p->b.B, g->ab_type, g->ldb, &g->beta, m->p->b.C, g->c_type, g->ldc);
        REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "round %d: the empty call: %s", r, wsgemm_status_string(s));
        pthread_barrier_wait(m->step);
        s = wsgemm_gemm_ex(m->h, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, m->p->b.A, g->ab_type, g->m - 1,
                           m->p->b.B, g->ab_type, g->ldb, &g->beta, m->p->b.C, g->c_type, g->ldc);
        const char *msg = wsgemm_get_last_error_message(m->h);
        REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE && rel_mentions(msg, "lda"), "round %d: lda too small -> %s \"%s\"",
                   r, wsgemm_status_string(s), msg);
        pthread_barrier_wait(m->step);
        wsgemm_path path = WSGEMM_PATH_AUTO;
        WSGEMM_CHECK(wsgemm_get_last_path(m->h, &path));
        msg = wsgemm_get_last_error_message(m->h);
        REL_EXPECT(rel_mentions(msg, "lda"), "round %d: the failing thread's message became \"%s\"", r, msg);
        REL_EXPECT(path == WSGEMM_PATH_NONE,
                   "round %d: the failing thread's last path reads %s (its last success "
                   "launched nothing)",
                   r, wsgemm_path_name(path));
    }
    return NULL;
}

void threads_messages(void)
{
    testing_gemm gy = rel_workspace_shape(0, 1, &(int){0});
    testing_gemm gx = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64);
    rel_problem py, px;
    rel_problem_create(&py, &gy, 0, 700);
    rel_problem_create(&px, &gx, 0, 701);
    rel_problem_reference(&py);
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    pthread_barrier_t step;
    pthread_barrier_init(&step, NULL, 2);
    messenger my = {h, &py, rel_auto_path(), &step}, mx = {h, &px, WSGEMM_PATH_NONE, &step};
    pthread_t ty, tx;
    if (pthread_create(&ty, NULL, valid_thread, &my) != 0 || pthread_create(&tx, NULL, failing_thread, &mx) != 0) {
        printf("FAIL: pthread_create\n");
        exit(1);
    }
    pthread_join(ty, NULL);
    pthread_join(tx, NULL);
    /* this thread made no GEMM call on h */
    wsgemm_path path = WSGEMM_PATH_AUTO;
    WSGEMM_CHECK(wsgemm_get_last_path(h, &path));
    const char *msg = wsgemm_get_last_error_message(h);
    REL_EXPECT(msg[0] == '\0', "the main thread reads \"%s\"", msg);
    REL_EXPECT(path == WSGEMM_PATH_NONE, "the main thread's last path reads %s", wsgemm_path_name(path));
    CUDA_CHECK(cudaDeviceSynchronize());
    REL_EXPECT(rel_problem_check(&py, "valid thread"), "the valid thread's result is wrong");
    REL_EXPECT(rel_problem_c_untouched(&px), "the failing thread's calls wrote C");
    printf("%d rounds: valid thread path %s, failing thread named lda each time\n", kMessageRounds,
           wsgemm_path_name(py.path));
    pthread_barrier_destroy(&step);
    WSGEMM_CHECK(wsgemm_destroy(h));
    rel_problem_destroy(&py);
    rel_problem_destroy(&px);
}
