// SPDX-License-Identifier: MIT
/*
 * gemm/handle.c - see handle.h.
 */
#include "handle.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREAD_RECORDS = 8 };

/* What one host thread last saw on one handle. */
typedef struct thread_record {
    unsigned long long handle_id; /* 0: free */
    wsgemm_path last_path;
    char message[WSGEMM_MESSAGE_BYTES];
} thread_record;

static _Thread_local thread_record thread_records[THREAD_RECORDS];
static _Thread_local unsigned thread_records_next;
/* For calls that have no usable handle to keep their message in. */
static _Thread_local char thread_message[WSGEMM_MESSAGE_BYTES];

static atomic_ullong next_handle_id = 1;

/* The live handles. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static wsgemm_handle *registry;
static size_t registry_count, registry_capacity;

/* This thread's record for h; with `create`, a new one (the oldest record is reused) when there is none. */
static thread_record *record_for(wsgemm_handle h, int create)
{
    for (int i = 0; i < THREAD_RECORDS; ++i)
        if (thread_records[i].handle_id == h->id) return &thread_records[i];
    if (!create) return NULL;
    thread_record *r = &thread_records[thread_records_next++ % THREAD_RECORDS];
    r->handle_id = h->id;
    r->last_path = WSGEMM_PATH_NONE;
    r->message[0] = '\0';
    return r;
}

int wsgemm_handle_is_valid(wsgemm_handle h)
{
    if (h == NULL) return 0;
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count && !found; ++i) found = registry[i] == h;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

wsgemm_status wsgemm_handle_register(wsgemm_handle *out, const char *fn)
{
    struct wsgemm_context *h = calloc(1, sizeof *h);
    if (h == NULL) return wsgemm_handle_fail(NULL, WSGEMM_STATUS_ALLOC_FAILED, "%s: out of host memory", fn);
    pthread_mutex_lock(&registry_lock);
    if (registry_count == registry_capacity) {
        size_t capacity = registry_capacity ? 2 * registry_capacity : 16;
        wsgemm_handle *grown = realloc(registry, capacity * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&registry_lock);
            free(h);
            return wsgemm_handle_fail(NULL, WSGEMM_STATUS_ALLOC_FAILED, "%s: out of host memory", fn);
        }
        registry = grown;
        registry_capacity = capacity;
    }
    registry[registry_count++] = h;
    pthread_mutex_unlock(&registry_lock);
    h->id = atomic_fetch_add(&next_handle_id, 1);
    pthread_mutex_init(&h->lock, NULL);
    h->forced_path = WSGEMM_PATH_AUTO;
    h->pointer_mode = WSGEMM_POINTER_MODE_HOST;
    h->launch_mode = WSGEMM_LAUNCH_MODE_DEFAULT;
    h->batch_invariance = WSGEMM_BATCH_INVARIANCE_OFF;
    h->stream_device = -1;
    wsgemm_workspace_source_init(&h->workspace);
    *out = h;
    return WSGEMM_STATUS_SUCCESS;
}

/* No device synchronization: the stream-ordered workspaces are freed behind the calls that use them, and
 * a pool destroyed with frees still queued releases its memory once they have run. */
int wsgemm_handle_unregister(wsgemm_handle h)
{
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count; ++i) {
        if (registry[i] == h) {
            registry[i] = registry[--registry_count];
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    if (!found) return 0;
    thread_record *r = record_for(h, 0);
    if (r) r->handle_id = 0;
    wsgemm_workspace_source_destroy(&h->workspace);
    pthread_mutex_destroy(&h->lock);
    free(h);
    return 1;
}

wsgemm_status wsgemm_handle_invalid(const char *fn)
{
    snprintf(thread_message, sizeof thread_message,
             "%s: handle is NULL or was destroyed (create one with wsgemm_create)", fn);
    return WSGEMM_STATUS_NOT_INITIALIZED;
}

wsgemm_status wsgemm_handle_begin(wsgemm_handle h, const char *fn)
{
    if (!wsgemm_handle_is_valid(h)) return wsgemm_handle_invalid(fn);
    record_for(h, 1)->message[0] = '\0';
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_handle_query(wsgemm_handle h, const char *fn)
{
    return wsgemm_handle_is_valid(h) ? WSGEMM_STATUS_SUCCESS : wsgemm_handle_invalid(fn);
}

wsgemm_status wsgemm_handle_succeed_without_handle(void)
{
    thread_message[0] = '\0';
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_handle_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(h ? record_for(h, 1)->message : thread_message, WSGEMM_MESSAGE_BYTES, fmt, args);
    va_end(args);
    return status;
}

int wsgemm_cuda_error_is_no_device(cudaError_t err)
{
    return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || err == cudaErrorInitializationError;
}

wsgemm_status wsgemm_handle_no_device(wsgemm_handle h, const char *fn, cudaError_t err)
{
    return wsgemm_handle_fail(h, WSGEMM_STATUS_NO_DEVICE, "%s: no CUDA device is available (%s: %s)", fn,
                              cudaGetErrorName(err), cudaGetErrorString(err));
}

wsgemm_status wsgemm_handle_cuda_fail(wsgemm_handle h, const char *fn, const char *what, cudaError_t err)
{
    if (wsgemm_cuda_error_is_no_device(err)) return wsgemm_handle_no_device(h, fn, err);
    return wsgemm_handle_fail(h, WSGEMM_STATUS_CUDA_ERROR, "%s: %s failed: %s (%s)", fn, what, cudaGetErrorName(err),
                              cudaGetErrorString(err));
}

const char *wsgemm_handle_message(wsgemm_handle h)
{
    if (!wsgemm_handle_is_valid(h)) return thread_message;
    const thread_record *r = record_for(h, 0);
    return r ? r->message : "";
}

wsgemm_path wsgemm_handle_last_path(wsgemm_handle h)
{
    const thread_record *r = record_for(h, 0);
    return r ? r->last_path : WSGEMM_PATH_NONE;
}

void wsgemm_handle_record_path(wsgemm_handle h, wsgemm_path path)
{
    record_for(h, 1)->last_path = path;
}

wsgemm_handle_settings wsgemm_handle_settings_get(wsgemm_handle h)
{
    wsgemm_handle_settings s;
    pthread_mutex_lock(&h->lock);
    s.stream = h->stream;
    s.stream_device = h->stream_device;
    s.forced = h->forced_path;
    s.pointer_mode = h->pointer_mode;
    s.launch_mode = h->launch_mode;
    s.batch_invariance = h->batch_invariance;
    pthread_mutex_unlock(&h->lock);
    return s;
}
