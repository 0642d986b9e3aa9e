// SPDX-License-Identifier: MIT
/*
 * gemm/handle.h - the handle object behind wsgemm_handle: the registry of live handles, each handle's settings
 * (stream, forced path, workspace source) under its lock, and what each host thread last saw on it (the
 * message and the last path). Host C; used by the public calls (api.c, matmul.c) and the call pipeline
 * (call.c), never by a launcher.
 *
 * Threads: a handle's settings are read under its lock once per call; the message and last path live in a
 * per-thread record for each handle. Handles are found in a registry, so a destroyed handle (or one destroyed
 * twice) is refused without reading freed memory.
 */
#ifndef WSGEMM_HANDLE_H
#define WSGEMM_HANDLE_H

#include <pthread.h>

#include <cuda_runtime_api.h>

#include "common/workspace.h"
#include "wsgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { WSGEMM_MESSAGE_BYTES = 512 };

struct wsgemm_context {
    unsigned long long id; /* never reused: per-thread records are keyed by it, not by the address */
    pthread_mutex_t lock;  /* stream, stream_device, forced_path, pointer_mode, launch_mode and
                              batch_invariance */
    cudaStream_t stream;
    int stream_device; /* the stream's device, read by wsgemm_set_stream; -1: the current device's (the
                          default streams) or unknown (set while capturing, or no driver) */
    wsgemm_path forced_path;
    wsgemm_pointer_mode pointer_mode;
    wsgemm_launch_mode launch_mode;
    wsgemm_batch_invariance batch_invariance;
    wsgemm_workspace_source workspace;
};

/* What a call takes from its handle, read once under its lock. */
typedef struct wsgemm_handle_settings {
    cudaStream_t stream;
    int stream_device;
    wsgemm_path forced;
    wsgemm_pointer_mode pointer_mode;
    wsgemm_launch_mode launch_mode;
    wsgemm_batch_invariance batch_invariance;
} wsgemm_handle_settings;

/* Register a new handle (NULL with the message when out of memory: see wsgemm_handle_fail). */
wsgemm_status wsgemm_handle_register(wsgemm_handle *out, const char *fn);
/* Take h out of the registry and free it; 0 when h was not registered. */
int wsgemm_handle_unregister(wsgemm_handle h);
/* 1 when h is a live handle. */
int wsgemm_handle_is_valid(wsgemm_handle h);

/* The status NOT_INITIALIZED of a call on a NULL or destroyed handle, its message in the thread's record for
 * calls without a handle. */
wsgemm_status wsgemm_handle_invalid(const char *fn);
/* SUCCESS with this thread's message on h cleared, or NOT_INITIALIZED when h is not a live handle. */
wsgemm_status wsgemm_handle_begin(wsgemm_handle h, const char *fn);
/* The same for a query (wsgemm_get_*): SUCCESS leaves the message as it was, so that a failed call's message can
 * still be read after asking for its path. */
wsgemm_status wsgemm_handle_query(wsgemm_handle h, const char *fn);
/* SUCCESS, clearing this thread's message of calls without a usable handle (the calls that take none). */
wsgemm_status wsgemm_handle_succeed_without_handle(void);
/* Write the message of h (valid, or NULL: the thread's record for calls without a handle) and return status. */
wsgemm_status wsgemm_handle_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* CUDA_ERROR naming the runtime call `what` that failed with err (already cleared); NO_DEVICE, with the same
 * words as every other call without a device, when err says there is no device or no driver. */
wsgemm_status wsgemm_handle_cuda_fail(wsgemm_handle h, const char *fn, const char *what, cudaError_t err);

/* This thread's message on h ("" when none), or the message of the last call without a usable handle. */
const char *wsgemm_handle_message(wsgemm_handle h);
/* This thread's last path on h (WSGEMM_PATH_NONE before any call), and its setter. h valid. */
wsgemm_path wsgemm_handle_last_path(wsgemm_handle h);
void wsgemm_handle_record_path(wsgemm_handle h, wsgemm_path path);

/* 1 when err says CUDA has no device or no usable driver (the NO_DEVICE errors). */
int wsgemm_cuda_error_is_no_device(cudaError_t err);
/* NO_DEVICE with the message every call gives without a device. */
wsgemm_status wsgemm_handle_no_device(wsgemm_handle h, const char *fn, cudaError_t err);

/* The settings of h (valid). */
wsgemm_handle_settings wsgemm_handle_settings_get(wsgemm_handle h);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_HANDLE_H */
