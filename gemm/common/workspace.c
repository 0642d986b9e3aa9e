// SPDX-License-Identifier: MIT
/*
 * gemm/common/workspace.c - a call's device scratch (workspace.h says where it comes from and why).
 */
#include "common/workspace.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/status.h"

/* Freed pool memory up to this much stays with the pool for the next call instead of going back to the
 * driver at the next synchronization (a staged 4099^3 call takes about 70 MB). */
static const uint64_t kPoolKeepBytes = (uint64_t)256 << 20;

void wsgemm_workspace_source_init(wsgemm_workspace_source *src)
{
    memset(src, 0, sizeof *src);
    pthread_mutex_init(&src->lock, NULL);
    src->user_device = -1;
}

static void drop_user_event(wsgemm_workspace_source *src)
{
    if (src->user_done) cudaEventDestroy(src->user_done); /* released once a pending record completes */
    src->user_done = NULL;
    src->user_used = 0;
    src->user_last_stream = NULL;
    src->user_last_capture = 0;
}

void wsgemm_workspace_source_destroy(wsgemm_workspace_source *src)
{
    for (int d = 0; d < WSGEMM_MAX_DEVICES; ++d)
        if (src->pools[d]) cudaMemPoolDestroy(src->pools[d]); /* deferred while queued frees are pending */
    drop_user_event(src);
    pthread_mutex_destroy(&src->lock);
}

wsgemm_status wsgemm_workspace_source_set(wsgemm_workspace_source *src, int user, void *ptr, size_t bytes, int device,
                                          char *msg, size_t msg_size)
{
    cudaEvent_t event = NULL;
    if (user && bytes > 0) { /* the event lives on the workspace's device, where its calls run */
        int current = -1;
        cudaError_t err = cudaGetDevice(&current);
        if (err == cudaSuccess && current != device) err = cudaSetDevice(device);
        if (err == cudaSuccess) err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
        if (current >= 0 && current != device) cudaSetDevice(current);
        if (err != cudaSuccess) {
            wsgemm_forget_cuda_error(err);
            snprintf(msg, msg_size, "cudaEventCreateWithFlags on device %d failed: %s", device,
                     cudaGetErrorString(err));
            return WSGEMM_STATUS_CUDA_ERROR;
        }
    }
    pthread_mutex_lock(&src->lock); /* waits for a call that holds the old user memory */
    drop_user_event(src);
    src->user = user;
    src->user_ptr = user ? ptr : NULL;
    src->user_bytes = user ? bytes : 0;
    src->user_device = user ? device : -1;
    src->user_done = event;
    pthread_mutex_unlock(&src->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_workspace wsgemm_workspace_lease(wsgemm_workspace_source *src, int device)
{
    wsgemm_workspace ws;
    memset(&ws, 0, sizeof ws);
    ws.source = src;
    ws.device = device;
    return ws;
}

/* The capture state of `stream`: 0 outside capture, 1 capturing (the capture's id in *id), -1 when the
 * capture was invalidated or the query failed. */
static int capture_state(cudaStream_t stream, unsigned long long *id)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    *id = 0;
#if CUDART_VERSION >= 13000
    cudaError_t err = cudaStreamGetCaptureInfo(stream, &status, id, NULL, NULL, NULL, NULL);
#else
    cudaError_t err = cudaStreamGetCaptureInfo(stream, &status, id, NULL, NULL, NULL);
#endif
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return -1;
    }
    if (status == cudaStreamCaptureStatusNone) {
        *id = 0;
        return 0;
    }
    return status == cudaStreamCaptureStatusActive ? 1 : -1;
}

static wsgemm_status reserve_from_pool(wsgemm_launch_ctx *ctx, wsgemm_workspace *ws, size_t bytes)
{
    wsgemm_workspace_source *src = ws->source;
    unsigned long long id = 0;
    const int capture = capture_state(ctx->stream, &id);
    if (capture < 0)
        return wsgemm_fail(ctx, WSGEMM_STATUS_ALLOC_FAILED,
                           "workspace of %zu bytes: the stream's capture state could not be read or is invalidated",
                           bytes);
    cudaMemPool_t pool = NULL;
    cudaError_t err = cudaSuccess;
    if (capture == 0) { /* outside capture: the handle's pool, created on first need */
        pthread_mutex_lock(&src->lock);
        pool = src->pools[ws->device];
        if (pool == NULL) {
            struct cudaMemPoolProps props;
            memset(&props, 0, sizeof props);
            props.allocType = cudaMemAllocationTypePinned;
            props.location.type = cudaMemLocationTypeDevice;
            props.location.id = ws->device;
            err = cudaMemPoolCreate(&pool, &props);
            if (err == cudaSuccess) {
                uint64_t keep = kPoolKeepBytes;
                cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
                src->pools[ws->device] = pool;
            }
        }
        pthread_mutex_unlock(&src->lock);
        if (err == cudaSuccess) err = cudaMallocFromPoolAsync(&ws->ptr, bytes, pool, ctx->stream);
    } else { /* under capture: an allocation node; the graph owns the memory */
        err = cudaMallocAsync(&ws->ptr, bytes, ctx->stream);
    }
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        ws->ptr = NULL;
        return wsgemm_fail(ctx, WSGEMM_STATUS_ALLOC_FAILED, "workspace of %zu bytes could not be allocated%s: %s",
                           bytes, capture ? " under stream capture" : "", cudaGetErrorString(err));
    }
    ws->bytes = bytes;
    ws->from_pool = 1;
    return WSGEMM_STATUS_SUCCESS;
}

static wsgemm_status reserve_user(wsgemm_launch_ctx *ctx, wsgemm_workspace *ws, size_t bytes)
{
    wsgemm_workspace_source *src = ws->source;
    pthread_mutex_lock(&src->lock);
    const char *why = NULL;
    unsigned long long capture = 0;
    if (src->user_bytes < bytes)
        why = "is too small";
    else if (src->user_device != ws->device)
        why = "lives on another device";
    else if (capture_state(ctx->stream, &capture) < 0)
        why = "cannot be ordered (capture state unreadable)";
    else if (src->user_used && src->user_last_stream != ctx->stream) {
        if (capture != src->user_last_capture) {
            why = "was last used on another stream in another capture (or outside the capture), so this call "
                  "cannot be ordered after it";
        } else {
            cudaError_t err = cudaStreamWaitEvent(ctx->stream, src->user_done, 0);
            if (err != cudaSuccess) {
                wsgemm_forget_cuda_error(err);
                pthread_mutex_unlock(&src->lock);
                return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR,
                                   "cudaStreamWaitEvent (ordering the workspace after its last use) failed: %s",
                                   cudaGetErrorString(err));
            }
        }
    }
    if (why) {
        size_t have = src->user_bytes;
        int dev = src->user_device;
        pthread_mutex_unlock(&src->lock);
        return wsgemm_fail(ctx, WSGEMM_STATUS_ALLOC_FAILED,
                           "this call needs %zu bytes of workspace; the one set by wsgemm_set_workspace (%zu bytes on "
                           "device %d) %s",
                           bytes, have, dev, why);
    }
    ws->ptr = src->user_ptr;
    ws->bytes = bytes;
    ws->holds_lock = 1; /* until wsgemm_workspace_release */
    ws->capture = capture;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_workspace_reserve(wsgemm_launch_ctx *ctx, size_t bytes, void **ptr)
{
    wsgemm_workspace *ws = ctx->workspace;
    *ptr = NULL;
    bytes = (bytes + 255) & ~(size_t)255; /* what a call takes is what the size query reports */
    if (ctx->plan_only) {
        ws->bytes = bytes;
        return WSGEMM_STATUS_SUCCESS;
    }
    if (ws->ptr != NULL || ws->holds_lock)
        return wsgemm_fail(ctx, WSGEMM_STATUS_INTERNAL_ERROR, "workspace reserved twice in one call");
    if (bytes == 0) return WSGEMM_STATUS_SUCCESS;
    pthread_mutex_lock(&ws->source->lock);
    const int user = ws->source->user;
    pthread_mutex_unlock(&ws->source->lock);
    wsgemm_status s = user ? reserve_user(ctx, ws, bytes) : reserve_from_pool(ctx, ws, bytes);
    if (s == WSGEMM_STATUS_SUCCESS) *ptr = ws->ptr;
    return s;
}

void wsgemm_workspace_release(wsgemm_workspace *ws, cudaStream_t stream)
{
    if (ws->from_pool && ws->ptr) {
        cudaError_t err = cudaFreeAsync(ws->ptr, stream); /* after every kernel of the call on this stream */
        if (err != cudaSuccess) wsgemm_forget_cuda_error(err);
    }
    if (ws->holds_lock) {
        wsgemm_workspace_source *src = ws->source;
        cudaError_t err = cudaEventRecord(src->user_done, stream);
        src->user_used = 1;
        src->user_last_stream = stream;
        src->user_last_capture = ws->capture;
        if (err != cudaSuccess) { /* no event to wait on: only this stream may use the memory next */
            wsgemm_forget_cuda_error(err);
            src->user_last_capture = ~0ull;
        }
        pthread_mutex_unlock(&src->lock);
    }
    ws->ptr = NULL;
    ws->from_pool = 0;
    ws->holds_lock = 0;
}
