// SPDX-License-Identifier: MIT
/*
 * gemm/common/workspace.h - where a call's device scratch comes from. Host C.
 *
 * A handle owns one wsgemm_workspace_source; each call that needs scratch takes a lease from it
 * (wsgemm_workspace_reserve, internal.h), and the call pipeline (gemm/call.c) gives the lease back after the
 * launcher returns.
 *
 *   stream-ordered (default)  the lease is cudaMallocFromPoolAsync on the call's stream from a pool of the
 *                             handle's for that device, given back by cudaFreeAsync on the same stream after
 *                             the call's last kernel: two calls never share bytes, whichever streams they
 *                             run on, and the pool keeps freed memory for the next call. Under stream
 *                             capture the allocation and the free become the graph's own memory nodes, so
 *                             a replayed graph owns its scratch and outlives the handle.
 *   user                      the caller's memory (wsgemm_set_workspace). A call on another stream than the
 *                             last one to use it first waits for that one (an event recorded after it);
 *                             where capture makes that wait impossible (the last use was outside the
 *                             capturing graph, or inside another), the lease fails and AUTO runs a path
 *                             that needs none. The source's lock is held from reserve to release, so calls
 *                             from several threads take the memory one after the other.
 *   none                      (user memory of 0 bytes): every lease fails.
 */
#ifndef WSGEMM_COMMON_WORKSPACE_H
#define WSGEMM_COMMON_WORKSPACE_H

#include <pthread.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wsgemm_workspace_source {
    pthread_mutex_t lock;
    int user; /* 0: stream-ordered allocations; 1: the caller's memory below */
    void *user_ptr;
    size_t user_bytes;
    int user_device;
    cudaEvent_t user_done; /* recorded after the last call that used user_ptr */
    int user_used;         /* user_done has been recorded at least once */
    cudaStream_t user_last_stream;
    unsigned long long user_last_capture;    /* capture id of that record; 0 outside capture */
    cudaMemPool_t pools[WSGEMM_MAX_DEVICES]; /* stream-ordered mode, created on first need per device */
} wsgemm_workspace_source;

/* One call's lease. */
struct wsgemm_workspace {
    wsgemm_workspace_source *source;
    int device;
    void *ptr;                  /* NULL until reserved */
    size_t bytes;               /* reserved, or (plan_only) asked for */
    int from_pool;              /* give back with cudaFreeAsync */
    int holds_lock;             /* user memory: source->lock is held until release */
    unsigned long long capture; /* capture id of the call's stream (user memory) */
};

void wsgemm_workspace_source_init(wsgemm_workspace_source *src);
/* Destroys the pools (their memory goes back once the frees already queued have run) and the event. Does
 * not wait for the GPU. */
void wsgemm_workspace_source_destroy(wsgemm_workspace_source *src);
/* Switch to the caller's memory (bytes may be 0: no workspace at all) or, with user = 0, back to the
 * stream-ordered default. The event is created on `device`. */
wsgemm_status wsgemm_workspace_source_set(wsgemm_workspace_source *src, int user, void *ptr, size_t bytes, int device,
                                          char *msg, size_t msg_size);

/* An empty lease for a call on `device`. */
wsgemm_workspace wsgemm_workspace_lease(wsgemm_workspace_source *src, int device);
/* After the launcher: give the memory back on `stream`, stream-ordered behind everything the call
 * enqueued (pool), or record the user memory's event and unlock it. */
void wsgemm_workspace_release(wsgemm_workspace *ws, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_WORKSPACE_H */
