/*
 * api.c - the public entry points: handle life cycle, argument checks and
 * path choice.
 *
 * A call's way through this file, with no back and forth:
 *   check arguments (pure C, no CUDA call, so testable without a GPU)
 *   -> quick return for an empty problem
 *   -> look up the device (NO_DEVICE without one), the stream's device and the
 *      pointers (memory kind, device, each operand inside its allocation)
 *   -> choose a path (forced or AUTO) -> lease a workspace -> run it -> give the
 *      workspace back -> record the path.
 * On any failure C has not been touched and the message names the argument.
 *
 * Threads: a handle's settings (stream, path, workspace) are read under its
 * lock once per call; the message and last path live in a per-thread record for
 * each handle; device facts and the sm100 verdicts are process-wide behind their
 * own locks. Handles are found in a registry, so a destroyed handle (or one
 * destroyed twice) is refused without reading freed memory.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "call.h"
#include "common/knobs.h"
#include "common/workspace.h"
#include "internal.h"
#include "sm100/self_check.h"

enum { WSGEMM_MESSAGE_BYTES = 512, THREAD_RECORDS = 8 };

struct wsgemm_context {
    unsigned long long id;    /* never reused: per-thread records are keyed by it, not by the address */
    pthread_mutex_t lock;     /* stream, stream_device and forced_path */
    cudaStream_t stream;
    int stream_device;        /* the stream's device, read by wsgemm_set_stream; -1: the current device's (the
                                 default streams) or unknown (set while capturing, or no driver) */
    wsgemm_path forced_path;
    wsgemm_workspace_source workspace;
};

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

/* ---------------------------------------------------------------- handles and messages */

static int handle_is_valid(wsgemm_handle h)
{
    if (h == NULL) return 0;
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count && !found; ++i) found = registry[i] == h;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

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

static void vformat_message(char *dst, size_t size, const char *fmt, va_list args)
{
    if (dst && size) vsnprintf(dst, size, fmt, args);
}

/* h is valid or NULL. */
static wsgemm_status handle_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static wsgemm_status handle_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vformat_message(h ? record_for(h, 1)->message : thread_message, WSGEMM_MESSAGE_BYTES, fmt, args);
    va_end(args);
    return status;
}

wsgemm_status wsgemm_fail(const wsgemm_launch_ctx *ctx, wsgemm_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vformat_message(ctx->message, ctx->message_size, fmt, args);
    va_end(args);
    return status;
}

void wsgemm_forget_cuda_error(cudaError_t err)
{
    if (err != cudaSuccess && cudaPeekAtLastError() == err) (void)cudaGetLastError();
}

static wsgemm_status fail_no_handle(const char *function)
{
    snprintf(thread_message, sizeof thread_message,
             "%s: handle is NULL or was destroyed (create one with wsgemm_create)", function);
    return WSGEMM_STATUS_NOT_INITIALIZED;
}

/* ---------------------------------------------------------------- names */

const char *wsgemm_status_string(wsgemm_status status)
{
    switch (status) {
    case WSGEMM_STATUS_SUCCESS: return "WSGEMM_STATUS_SUCCESS";
    case WSGEMM_STATUS_NOT_INITIALIZED: return "WSGEMM_STATUS_NOT_INITIALIZED";
    case WSGEMM_STATUS_INVALID_VALUE: return "WSGEMM_STATUS_INVALID_VALUE";
    case WSGEMM_STATUS_NOT_SUPPORTED: return "WSGEMM_STATUS_NOT_SUPPORTED";
    case WSGEMM_STATUS_ARCH_MISMATCH: return "WSGEMM_STATUS_ARCH_MISMATCH";
    case WSGEMM_STATUS_NO_DEVICE: return "WSGEMM_STATUS_NO_DEVICE";
    case WSGEMM_STATUS_ALLOC_FAILED: return "WSGEMM_STATUS_ALLOC_FAILED";
    case WSGEMM_STATUS_CUDA_ERROR: return "WSGEMM_STATUS_CUDA_ERROR";
    case WSGEMM_STATUS_INTERNAL_ERROR: return "WSGEMM_STATUS_INTERNAL_ERROR";
    }
    return "WSGEMM_STATUS_<unknown>";
}

const char *wsgemm_path_name(wsgemm_path path)
{
    switch (path) {
    case WSGEMM_PATH_AUTO: return "auto";
    case WSGEMM_PATH_GENERIC: return "generic";
    case WSGEMM_PATH_SM90: return "sm90";
    case WSGEMM_PATH_SM100: return "sm100";
    case WSGEMM_PATH_SM100_EMULATED: return "sm100-emulated";
    case WSGEMM_PATH_NONE: return "none";
    }
    return "<unknown path>";
}

const char *wsgemm_get_last_error_message(wsgemm_handle h)
{
    if (!handle_is_valid(h)) return thread_message;
    const thread_record *r = record_for(h, 0);
    return r ? r->message : "";
}

int wsgemm_env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0') return fallback;
    return atoi(v);
}

int wsgemm_dtype_size(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F ? 4 : t == WSGEMM_R_8F_E4M3 || t == WSGEMM_R_8F_E5M2 ? 1 : 2;
}

/* ---------------------------------------------------------------- handle */

wsgemm_status wsgemm_create(wsgemm_handle *handle)
{
    if (handle == NULL)
        return handle_fail(NULL, WSGEMM_STATUS_INVALID_VALUE,
                           "wsgemm_create: handle (the output pointer) is NULL");
    struct wsgemm_context *h = calloc(1, sizeof *h);
    if (h == NULL)
        return handle_fail(NULL, WSGEMM_STATUS_ALLOC_FAILED, "wsgemm_create: out of host memory");
    pthread_mutex_lock(&registry_lock);
    if (registry_count == registry_capacity) {
        size_t capacity = registry_capacity ? 2 * registry_capacity : 16;
        wsgemm_handle *grown = realloc(registry, capacity * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&registry_lock);
            free(h);
            return handle_fail(NULL, WSGEMM_STATUS_ALLOC_FAILED, "wsgemm_create: out of host memory");
        }
        registry = grown;
        registry_capacity = capacity;
    }
    registry[registry_count++] = h;
    pthread_mutex_unlock(&registry_lock);
    h->id = atomic_fetch_add(&next_handle_id, 1);
    pthread_mutex_init(&h->lock, NULL);
    h->forced_path = WSGEMM_PATH_AUTO;
    h->stream_device = -1;
    wsgemm_workspace_source_init(&h->workspace);
    *handle = h;
    return WSGEMM_STATUS_SUCCESS;
}

/* No device synchronization: the stream-ordered workspaces are freed behind the calls that use them, and
 * a pool destroyed with frees still queued releases its memory once they have run. */
wsgemm_status wsgemm_destroy(wsgemm_handle h)
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
    if (!found) return fail_no_handle("wsgemm_destroy");
    thread_record *r = record_for(h, 0);
    if (r) r->handle_id = 0;
    wsgemm_workspace_source_destroy(&h->workspace);
    pthread_mutex_destroy(&h->lock);
    free(h);
    return WSGEMM_STATUS_SUCCESS;
}

/* The device of a stream created by the caller, or -1. Queried here, not per call: cudaStreamGetDevice is
 * one of the calls a capturing stream refuses (and the refusal invalidates the capture), so it is asked only
 * of a stream that is not capturing; the default streams follow the current device. */
static int stream_device_of(cudaStream_t stream)
{
    if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return -1;
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    int device = -1;
    if (err == cudaSuccess && capture == cudaStreamCaptureStatusNone) err = cudaStreamGetDevice(stream, &device);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        device = -1;
    }
    return capture == cudaStreamCaptureStatusNone ? device : -1;
}

wsgemm_status wsgemm_set_stream(wsgemm_handle h, cudaStream_t stream)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_set_stream");
    const int device = stream_device_of(stream);
    pthread_mutex_lock(&h->lock);
    h->stream = stream;
    h->stream_device = device;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_stream(wsgemm_handle h, cudaStream_t *stream)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_get_stream");
    if (stream == NULL)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_stream: stream is NULL");
    pthread_mutex_lock(&h->lock);
    *stream = h->stream;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_set_path(wsgemm_handle h, wsgemm_path path)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_set_path");
    if (path < WSGEMM_PATH_AUTO || path > WSGEMM_PATH_SM100_EMULATED)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "wsgemm_set_path: path = %d is not a wsgemm_path that can be forced", (int)path);
    pthread_mutex_lock(&h->lock);
    h->forced_path = path;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_path(wsgemm_handle h, wsgemm_path *path)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_get_path");
    if (path == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_path: path is NULL");
    pthread_mutex_lock(&h->lock);
    *path = h->forced_path;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_last_path(wsgemm_handle h, wsgemm_path *path)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_get_last_path");
    if (path == NULL)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_last_path: path is NULL");
    const thread_record *r = record_for(h, 0);
    *path = r ? r->last_path : WSGEMM_PATH_NONE;
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- argument checks (no CUDA) */

static int op_is_valid(wsgemm_op op)
{
    return op == WSGEMM_OP_N || op == WSGEMM_OP_T;
}

static int dtype_is_valid(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F || t == WSGEMM_R_16F || t == WSGEMM_R_16BF || t == WSGEMM_R_8F_E4M3 ||
           t == WSGEMM_R_8F_E5M2;
}

static int is_16bit_float(wsgemm_dtype t)
{
    return t == WSGEMM_R_16F || t == WSGEMM_R_16BF;
}

static int max1(int x)
{
    return x > 1 ? x : 1;
}

/* The C matrices of a batch may not overlap (the kernels write them in parallel). Two layouts are
 * disjoint: matrix after matrix (strideC at least the span of one matrix, (n-1)*ldc + m) or interleaved
 * inside one column (m <= strideC and the last matrix's rows still end within ldc). No product here
 * overflows: (n-1)*ldc < 2^62, and the batch product is checked. */
static int batch_outputs_disjoint(const wsgemm_problem *p)
{
    if (p->batch_count <= 1) return 1;
    if (p->strideC >= (long long)(p->n - 1) * p->ldc + p->m) return 1;
    long long last_start;
    if (__builtin_mul_overflow((long long)(p->batch_count - 1), p->strideC, &last_start)) return 0;
    return p->strideC >= p->m && last_start + p->m <= p->ldc;
}

/* The operands as stored, for the alignment and extent checks. */
typedef struct operand_view {
    const char *name;     /* "A", "B", "C" */
    const void *ptr;
    int elem_bytes;
    long long rows, cols; /* as stored: rows contiguous, cols ld apart */
    long long ld, stride; /* elements */
    int matrices;         /* batch members it spans: 1 when shared (stride 0) */
} operand_view;

static operand_view view_of(const wsgemm_problem *p, int which)
{
    operand_view v;
    if (which == 0) {
        v = (operand_view){"A", p->A, wsgemm_dtype_size(p->Atype), p->transa == WSGEMM_OP_N ? p->m : p->k,
                           p->transa == WSGEMM_OP_N ? p->k : p->m, p->lda, p->strideA, 1};
    } else if (which == 1) {
        v = (operand_view){"B", p->B, wsgemm_dtype_size(p->Btype), p->transb == WSGEMM_OP_N ? p->k : p->n,
                           p->transb == WSGEMM_OP_N ? p->n : p->k, p->ldb, p->strideB, 1};
    } else {
        v = (operand_view){"C", p->C, wsgemm_dtype_size(p->Ctype), p->m, p->n, p->ldc, p->strideC, 1};
    }
    v.matrices = (p->batch_count > 1 && v.stride != 0) ? p->batch_count : 1;
    return v;
}

/* Bytes from the operand's base to one past its last element, all batch members included; 0 when that
 * does not fit in 63 bits (then no allocation can hold it). rows, cols >= 1. */
static unsigned long long span_bytes(const operand_view *v)
{
    long long elems, batch_part, bytes;
    if (__builtin_mul_overflow(v->cols - 1, v->ld, &elems)) return 0;
    if (__builtin_add_overflow(elems, v->rows, &elems)) return 0;
    if (__builtin_mul_overflow((long long)(v->matrices - 1), v->stride, &batch_part)) return 0;
    if (__builtin_add_overflow(elems, batch_part, &elems)) return 0;
    if (__builtin_mul_overflow(elems, (long long)v->elem_bytes, &bytes)) return 0;
    if ((uintptr_t)v->ptr + (uintptr_t)bytes < (uintptr_t)v->ptr) return 0; /* wraps the address space */
    return (unsigned long long)bytes;
}

/* Which operands the call reads or writes: A and B only when there is a product to form. */
static int operand_used(const wsgemm_problem *p, int which, float alpha)
{
    return which == 2 || (p->k > 0 && alpha != 0.0f);
}

/* Alignment and a representable extent: pure C, no CUDA. */
static wsgemm_status check_operand_layout(wsgemm_handle h, const char *fn, const operand_view *v)
{
    if ((uintptr_t)v->ptr % (uintptr_t)v->elem_bytes != 0)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "%s: %s = %p is not aligned to its %d-byte elements", fn, v->name, v->ptr, v->elem_bytes);
    if (span_bytes(v) == 0)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "%s: %s spans more than 2^63 bytes from %p (ld%c = %lld, %lld columns, stride%s = %lld, %d "
                           "matrices): no allocation can hold it",
                           fn, v->name, v->ptr, v->name[0] + 32, v->ld, v->cols, v->name, v->stride, v->matrices);
    return WSGEMM_STATUS_SUCCESS;
}

/* Every check that needs no CUDA call, in the order a reader of the
 * argument list expects. Returns SUCCESS or the status of the first
 * failing argument, with its message in h. */
static wsgemm_status check_arguments(wsgemm_handle h, const char *fn, const wsgemm_problem *p,
                                     const float *alpha, const float *beta, int batched)
{
    if (!op_is_valid(p->transa))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: transa = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)",
                           fn, (int)p->transa);
    if (!op_is_valid(p->transb))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: transb = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)",
                           fn, (int)p->transb);
    if (p->m < 0) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: m = %d is negative", fn, p->m);
    if (p->n < 0) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: n = %d is negative", fn, p->n);
    if (p->k < 0) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: k = %d is negative", fn, p->k);
    if (batched && p->batch_count < 0)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: batch_count = %d is negative", fn, p->batch_count);
    if (alpha == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: alpha is NULL", fn);
    if (beta == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: beta is NULL", fn);
    if (!dtype_is_valid(p->Atype))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Atype = %d is not a wsgemm_dtype", fn, (int)p->Atype);
    if (!dtype_is_valid(p->Btype))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Btype = %d is not a wsgemm_dtype", fn, (int)p->Btype);
    if (!dtype_is_valid(p->Ctype))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Ctype = %d is not a wsgemm_dtype", fn, (int)p->Ctype);
    if (!is_16bit_float(p->Atype) || p->Btype != p->Atype)
        return handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                           "%s: Atype = %d with Btype = %d is not supported: A and B must both be "
                           "WSGEMM_R_16BF or both WSGEMM_R_16F",
                           fn, (int)p->Atype, (int)p->Btype);
    if (p->Ctype != WSGEMM_R_32F && !is_16bit_float(p->Ctype))
        return handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                           "%s: Ctype = %d is not supported: C is WSGEMM_R_16BF, WSGEMM_R_16F or WSGEMM_R_32F (FP8 "
                           "outputs: wsgemm_matmul)", fn, (int)p->Ctype);
    wsgemm_status ld_status = wsgemm_call_check_ab_ld(h, fn, p->transa, p->transb, p->m, p->n, p->k, p->lda, p->ldb);
    if (ld_status != WSGEMM_STATUS_SUCCESS) return ld_status;
    if (p->ldc < max1(p->m))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldc = %d is below max(1, m) = %d", fn, p->ldc,
                           max1(p->m));
    if (batched) {
        if (p->strideA < 0)
            return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideA = %lld is negative", fn, p->strideA);
        if (p->strideB < 0)
            return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideB = %lld is negative", fn, p->strideB);
        if (p->strideC < 0)
            return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideC = %lld is negative", fn, p->strideC);
        if (!batch_outputs_disjoint(p))
            return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                               "%s: strideC = %lld makes the %d C matrices overlap (need strideC >= (n-1)*ldc + m "
                               "= %lld, or strideC >= m with all of them inside ldc = %d rows)",
                               fn, p->strideC, p->batch_count, (long long)(p->n - 1) * p->ldc + p->m, p->ldc);
    }
    int empty = p->m == 0 || p->n == 0 || p->batch_count == 0;
    int needs_ab = !empty && p->k > 0 && *alpha != 0.0f;
    if (needs_ab && p->A == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: A is NULL", fn);
    if (needs_ab && p->B == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: B is NULL", fn);
    if (!empty && p->C == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: C is NULL", fn);
    if (!empty) {
        for (int which = 0; which < 3; ++which) {
            if (!operand_used(p, which, *alpha)) continue;
            const operand_view v = view_of(p, which);
            wsgemm_status s = check_operand_layout(h, fn, &v);
            if (s != WSGEMM_STATUS_SUCCESS) return s;
        }
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- device checks */

/* err is already cleared from the runtime's last-error slot. */
static wsgemm_status cuda_fail(wsgemm_handle h, const char *fn, const char *what, cudaError_t err)
{
    return handle_fail(h, WSGEMM_STATUS_CUDA_ERROR, "%s: %s failed: %s (%s)", fn, what, cudaGetErrorName(err),
                       cudaGetErrorString(err));
}

/* The current device's facts. NO_DEVICE when CUDA has none. */
static wsgemm_status current_device(wsgemm_handle h, const char *fn, const wsgemm_device_info **out)
{
    int ordinal = -1;
    cudaError_t err = cudaGetDevice(&ordinal);
    if (err != cudaSuccess) wsgemm_forget_cuda_error(err);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || err == cudaErrorInitializationError)
        return handle_fail(h, WSGEMM_STATUS_NO_DEVICE, "%s: no CUDA device is available (%s: %s)", fn,
                           cudaGetErrorName(err), cudaGetErrorString(err));
    if (err != cudaSuccess) return cuda_fail(h, fn, "cudaGetDevice", err);
    if (ordinal < 0 || ordinal >= WSGEMM_MAX_DEVICES)
        return handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED, "%s: device ordinal %d is beyond wsgemm's limit of %d", fn,
                           ordinal, WSGEMM_MAX_DEVICES);
    err = wsgemm_device_info_get(ordinal, out);
    if (err != cudaSuccess) return cuda_fail(h, fn, "cudaDeviceGetAttribute", err);
    return WSGEMM_STATUS_SUCCESS;
}

/* Kernels go to the handle's stream, which must belong to the current device (stream_device: see
 * wsgemm_set_stream; -1 passes). */
static wsgemm_status check_stream(wsgemm_handle h, const char *fn, cudaStream_t stream, int device, int ordinal)
{
    if (device >= 0 && device != ordinal)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "%s: stream %p (wsgemm_set_stream) belongs to device %d but the current device is %d", fn,
                           (void *)stream, device, ordinal);
    return WSGEMM_STATUS_SUCCESS;
}

/* An operand must be memory the current device reads with TMA and ordinary loads (its own device memory,
 * or managed memory), and lie inside one allocation, so that no kernel runs off its end. Where the driver
 * cannot tell the allocation's extent, or the operand runs past it into more device memory of this device
 * (virtual memory mapped in pieces), the extent is not held against it. */
static wsgemm_status check_operand_memory(wsgemm_handle h, const char *fn, const operand_view *v, int ordinal)
{
    wsgemm_pointer_info info;
    cudaError_t err = wsgemm_pointer_query(v->ptr, &info);
    if (err != cudaSuccess) return cuda_fail(h, fn, "cudaPointerGetAttributes", err);
    if (info.kind == WSGEMM_MEMORY_HOST)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "%s: %s = %p is %s memory; wsgemm needs device memory (cudaMalloc) or managed memory", fn,
                           v->name, v->ptr, info.pinned_host ? "pinned host" : "unregistered host");
    if (info.kind == WSGEMM_MEMORY_DEVICE && info.device != ordinal)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: %s = %p lives on device %d but the current device is %d",
                           fn, v->name, v->ptr, info.device, ordinal);
    const unsigned long long bytes = span_bytes(v);
    if (!info.has_range) return WSGEMM_STATUS_SUCCESS;
    const unsigned long long room = (unsigned long long)(info.range_begin + info.range_bytes - (uintptr_t)v->ptr);
    if (bytes <= room) return WSGEMM_STATUS_SUCCESS;
    wsgemm_pointer_info last;
    const void *last_byte = (const char *)v->ptr + (bytes - 1);
    if (wsgemm_pointer_query(last_byte, &last) == cudaSuccess && last.kind == info.kind &&
        (info.kind == WSGEMM_MEMORY_MANAGED || last.device == ordinal))
        return WSGEMM_STATUS_SUCCESS;
    return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                       "%s: %s spans %llu bytes from %p (ld%c = %lld, %lld x %lld per matrix, stride%s = %lld, %d "
                       "matrices) but its allocation ends %llu bytes after %s",
                       fn, v->name, bytes, v->ptr, v->name[0] + 32, v->ld, v->rows, v->cols, v->name, v->stride,
                       v->matrices, room, v->name);
}

static wsgemm_status check_pointers(wsgemm_handle h, const char *fn, const wsgemm_problem *p, int ordinal)
{
    for (int which = 0; which < 3; ++which) {
        if (!operand_used(p, which, p->alpha)) continue;
        const operand_view v = view_of(p, which);
        wsgemm_status s = check_operand_memory(h, fn, &v, ordinal);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- path choice */

static int is_hopper(const wsgemm_device_info *d)
{
    return d->cc_major == 9 && d->cc_minor == 0; /* sm_90a code runs on 9.0 only */
}

static int is_blackwell_dc(const wsgemm_device_info *d)
{
    return d->cc_major == 10 && d->cc_minor == 0; /* sm_100a code runs on 10.0 only */
}

/* Can the device run the forced path at all (ARCH_MISMATCH), and does this
 * build contain it (NOT_SUPPORTED)? The device question comes first. */
static wsgemm_status check_forced_path(wsgemm_handle h, const char *fn, wsgemm_path path,
                                       const wsgemm_device_info *d)
{
    switch (path) {
    case WSGEMM_PATH_AUTO:
    case WSGEMM_PATH_NONE:
        return WSGEMM_STATUS_SUCCESS;
    case WSGEMM_PATH_GENERIC:
        if (d->cc_major >= 8) return WSGEMM_STATUS_SUCCESS;
        return handle_fail(h, WSGEMM_STATUS_ARCH_MISMATCH, "%s: the generic path needs compute capability 8.0 or later; "
                           "device %d is %d.%d", fn, d->ordinal, d->cc_major, d->cc_minor);
    case WSGEMM_PATH_SM90:
        if (!is_hopper(d))
            return handle_fail(h, WSGEMM_STATUS_ARCH_MISMATCH, "%s: forced path sm90 needs compute capability 9.0 "
                               "(sm_90a); device %d is %d.%d", fn, d->ordinal, d->cc_major, d->cc_minor);
        if (!wsgemm_sm90_available())
            return handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED, "%s: this build of wsgemm has no sm90 kernel", fn);
        return WSGEMM_STATUS_SUCCESS;
    case WSGEMM_PATH_SM100:
        if (!is_blackwell_dc(d))
            return handle_fail(h, WSGEMM_STATUS_ARCH_MISMATCH, "%s: forced path sm100 needs compute capability 10.0 "
                               "(sm_100a); device %d is %d.%d", fn, d->ordinal, d->cc_major, d->cc_minor);
        if (!wsgemm_sm100_available())
            return handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED, "%s: this build of wsgemm has no sm100 kernel", fn);
        return WSGEMM_STATUS_SUCCESS;
    case WSGEMM_PATH_SM100_EMULATED:
        if (!is_hopper(d))
            return handle_fail(h, WSGEMM_STATUS_ARCH_MISMATCH, "%s: forced path sm100-emulated runs on compute "
                               "capability 9.0 (sm_90a); device %d is %d.%d", fn, d->ordinal, d->cc_major, d->cc_minor);
        if (!wsgemm_sm100_emulated_available())
            return handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED, "%s: this build of wsgemm has no emulated sm100 kernel "
                               "(configure with -DWSGEMM_SM100_EMULATION=ON)", fn);
        return WSGEMM_STATUS_SUCCESS;
    }
    return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: unknown path %d", fn, (int)path);
}

static wsgemm_status run_path(wsgemm_path path, const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    switch (path) {
    case WSGEMM_PATH_SM90: return wsgemm_sm90_gemm(p, ctx);
    case WSGEMM_PATH_SM100: return wsgemm_sm100_gemm(p, ctx);
    case WSGEMM_PATH_SM100_EMULATED: return wsgemm_sm100_emulated_gemm(p, ctx);
    default: return wsgemm_generic_gemm(p, ctx);
    }
}

/* The AUTO choice of the sm100 path waits for the device's self-check verdict (gemm/sm100/self_check.h):
 * run out of process by the helper program, so a trap or a hang of the unproven kernel never reaches this
 * process, and kept on disk per GPU, driver and library version. A process asks once per device; other
 * threads wait for the answer. It is never asked under stream capture (the helper takes seconds): a captured
 * call before the first verdict runs the path AUTO takes without sm100. With WSGEMM_SM100_AUTO_EMULATED=1
 * a Hopper device's AUTO gives the emulated sm100 path the same treatment (the whole chain on an H200). */
typedef enum self_check_state { SELF_CHECK_NOT_RUN = 0, SELF_CHECK_PASSED, SELF_CHECK_NOT_PASSED } self_check_state;
static self_check_state sm100_verdicts[WSGEMM_MAX_DEVICES];
static pthread_mutex_t sm100_verdicts_lock = PTHREAD_MUTEX_INITIALIZER;

static int stream_is_capturing(cudaStream_t stream)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &status);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return 1; /* unknown: behave as under capture */
    }
    return status != cudaStreamCaptureStatusNone;
}

static int sm100_self_checked(const wsgemm_device_info *d, wsgemm_path path, cudaStream_t stream)
{
    const wsgemm_knobs *knobs = wsgemm_knobs_get();
    if (knobs->sm100_self_check == WSGEMM_SELF_CHECK_OFF) return 0;
    if (knobs->sm100_self_check == WSGEMM_SELF_CHECK_TRUST) return 1;
    pthread_mutex_lock(&sm100_verdicts_lock);
    self_check_state *state = &sm100_verdicts[d->ordinal];
    if (*state == SELF_CHECK_NOT_RUN && !stream_is_capturing(stream)) {
        wsgemm_self_check_request rq;
        wsgemm_self_check_result r;
        const wsgemm_self_check_verdict v = wsgemm_self_check_device(d->ordinal, path, knobs, &rq, &r);
        *state = v == WSGEMM_SELF_CHECK_PASS ? SELF_CHECK_PASSED : SELF_CHECK_NOT_PASSED;
        if (v == WSGEMM_SELF_CHECK_FAIL)
            fprintf(stderr, "wsgemm: warning: the %s kernel failed its self-check on device %d: %s; AUTO does not use "
                    "it on this GPU (WSGEMM_SM100_SELF_CHECK=fresh checks again)\n", wsgemm_path_name(path), d->ordinal,
                    r.detail);
        else if (v == WSGEMM_SELF_CHECK_UNKNOWN)
            fprintf(stderr, "wsgemm: warning: no %s self-check verdict for device %d: %s; AUTO does not use %s in "
                    "this process\n", wsgemm_path_name(path), d->ordinal, r.detail, wsgemm_path_name(path));
    }
    const int passed = *state == SELF_CHECK_PASSED;
    pthread_mutex_unlock(&sm100_verdicts_lock);
    return passed;
}

static wsgemm_path auto_path(const wsgemm_device_info *d, cudaStream_t stream)
{
    if (is_blackwell_dc(d) && wsgemm_sm100_available() && sm100_self_checked(d, WSGEMM_PATH_SM100, stream))
        return WSGEMM_PATH_SM100;
    if (is_hopper(d) && wsgemm_knobs_get()->sm100_auto_emulated && wsgemm_sm100_emulated_available() &&
        sm100_self_checked(d, WSGEMM_PATH_SM100_EMULATED, stream))
        return WSGEMM_PATH_SM100_EMULATED;
    if (is_hopper(d) && wsgemm_sm90_available()) return WSGEMM_PATH_SM90;
    return WSGEMM_PATH_GENERIC;
}

wsgemm_path wsgemm_call_auto_path(const wsgemm_launch_ctx *ctx)
{
    return auto_path(ctx->device, ctx->stream);
}

/* ---------------------------------------------------------------- the GEMM calls */

/* What a call takes from its handle (read once, under its lock) and the device it runs on. */
typedef struct call_setting {
    cudaStream_t stream;
    wsgemm_path forced;
    const wsgemm_device_info *dev;
} call_setting;

/* The handle's settings, the current device, and the stream checked against it. */
static wsgemm_status call_setting_get(wsgemm_handle h, const char *fn, call_setting *cs)
{
    pthread_mutex_lock(&h->lock);
    cs->stream = h->stream;
    const int stream_device = h->stream_device;
    cs->forced = h->forced_path;
    pthread_mutex_unlock(&h->lock);
    cs->dev = NULL;
    wsgemm_status s = current_device(h, fn, &cs->dev);
    if (s == WSGEMM_STATUS_SUCCESS) s = check_stream(h, fn, cs->stream, stream_device, cs->dev->ordinal);
    return s;
}

/* The part of a call after the argument checks: device, stream and pointer checks, path choice, the
 * workspace lease, the launch. With plan_bytes set it only sizes the workspace of the path that would run. */
static wsgemm_status run_call(wsgemm_handle h, const char *fn, const wsgemm_problem *p, thread_record *rec,
                              size_t *plan_bytes)
{
    call_setting cs;
    wsgemm_status s = call_setting_get(h, fn, &cs);
    const cudaStream_t stream = cs.stream;
    const wsgemm_path forced = cs.forced;
    const wsgemm_device_info *dev = cs.dev;
    if (s == WSGEMM_STATUS_SUCCESS) s = check_pointers(h, fn, p, dev->ordinal);
    if (s == WSGEMM_STATUS_SUCCESS) s = check_forced_path(h, fn, forced, dev);
    if (s != WSGEMM_STATUS_SUCCESS) return s;

    char reason[WSGEMM_MESSAGE_BYTES] = "";
    wsgemm_workspace lease = wsgemm_workspace_lease(&h->workspace, dev->ordinal);
    wsgemm_launch_ctx ctx = {.stream = stream, .device = dev, .workspace = &lease, .plan_only = plan_bytes != NULL,
                             .message = reason, .message_size = sizeof reason};
    wsgemm_path path;
    if (p->k == 0 || p->alpha == 0.0f) { /* C = beta * C: no product to form, no workspace */
        path = WSGEMM_PATH_GENERIC;
        s = ctx.plan_only ? WSGEMM_STATUS_SUCCESS : wsgemm_generic_scale_c(p, &ctx);
    } else {
        path = forced != WSGEMM_PATH_AUTO ? forced : auto_path(dev, stream);
        s = run_path(path, p, &ctx); /* a plan_only call stops after sizing the workspace */
        if ((s == WSGEMM_STATUS_NOT_SUPPORTED || s == WSGEMM_STATUS_ALLOC_FAILED) && forced == WSGEMM_PATH_AUTO &&
            path != WSGEMM_PATH_GENERIC) {
            /* the fast path declined before touching C; the generic kernel runs without a workspace when
             * none can be had */
            path = WSGEMM_PATH_GENERIC;
            if (!ctx.plan_only) wsgemm_workspace_release(&lease, stream);
            lease = wsgemm_workspace_lease(&h->workspace, dev->ordinal);
            s = wsgemm_generic_gemm(p, &ctx);
        }
    }
    if (!ctx.plan_only) wsgemm_workspace_release(&lease, stream);
    if (s != WSGEMM_STATUS_SUCCESS) return handle_fail(h, s, "%s: path %s: %s", fn, wsgemm_path_name(path), reason);
    if (plan_bytes) *plan_bytes = lease.bytes;
    else rec->last_path = path;
    return WSGEMM_STATUS_SUCCESS;
}

static wsgemm_status gemm_common(wsgemm_handle h, const char *fn, wsgemm_problem *p, const float *alpha,
                                 const float *beta, int batched, size_t *plan_bytes)
{
    if (!handle_is_valid(h)) return fail_no_handle(fn);
    thread_record *rec = record_for(h, 1);
    rec->message[0] = '\0';
    wsgemm_status s = check_arguments(h, fn, p, alpha, beta, batched);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    p->alpha = *alpha;
    p->beta = *beta;
    if (p->m == 0 || p->n == 0 || p->batch_count == 0) { /* BLAS quick return: nothing to compute */
        if (plan_bytes) *plan_bytes = 0;
        else rec->last_path = WSGEMM_PATH_NONE;
        return WSGEMM_STATUS_SUCCESS;
    }
    return run_call(h, fn, p, rec, plan_bytes);
}

wsgemm_status wsgemm_gemm_ex(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                             const float *alpha, const void *A, wsgemm_dtype Atype, int lda, const void *B,
                             wsgemm_dtype Btype, int ldb, const float *beta, void *C, wsgemm_dtype Ctype, int ldc)
{
    wsgemm_problem p = {.transa = transa, .transb = transb, .m = m, .n = n, .k = k, .A = A, .Atype = Atype,
                        .lda = lda, .B = B, .Btype = Btype, .ldb = ldb, .C = C, .Ctype = Ctype, .ldc = ldc,
                        .batch_count = 1};
    return gemm_common(h, "wsgemm_gemm_ex", &p, alpha, beta, 0, NULL);
}

wsgemm_status wsgemm_gemm_strided_batched_ex(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n,
                                             int k, const float *alpha, const void *A, wsgemm_dtype Atype, int lda,
                                             long long strideA, const void *B, wsgemm_dtype Btype, int ldb,
                                             long long strideB, const float *beta, void *C, wsgemm_dtype Ctype,
                                             int ldc, long long strideC, int batch_count)
{
    wsgemm_problem p = {.transa = transa, .transb = transb, .m = m, .n = n, .k = k, .A = A, .Atype = Atype,
                        .lda = lda, .strideA = strideA, .B = B, .Btype = Btype, .ldb = ldb, .strideB = strideB,
                        .C = C, .Ctype = Ctype, .ldc = ldc, .strideC = strideC, .batch_count = batch_count};
    return gemm_common(h, "wsgemm_gemm_strided_batched_ex", &p, alpha, beta, 1, NULL);
}

/* ---------------------------------------------------------------- workspace */

wsgemm_status wsgemm_gemm_workspace_size(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                                         const void *A, wsgemm_dtype Atype, int lda, long long strideA, const void *B,
                                         wsgemm_dtype Btype, int ldb, long long strideB, const void *C,
                                         wsgemm_dtype Ctype, int ldc, long long strideC, int batch_count,
                                         size_t *bytes)
{
    static const char fn[] = "wsgemm_gemm_workspace_size";
    if (!handle_is_valid(h)) return fail_no_handle(fn);
    if (bytes == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: bytes is NULL", fn);
    const float one = 1.0f, zero = 0.0f; /* a product is formed; beta does not change the workspace */
    wsgemm_problem p = {.transa = transa, .transb = transb, .m = m, .n = n, .k = k, .A = A, .Atype = Atype,
                        .lda = lda, .strideA = strideA, .B = B, .Btype = Btype, .ldb = ldb, .strideB = strideB,
                        .C = (void *)C, .Ctype = Ctype, .ldc = ldc, .strideC = strideC, .batch_count = batch_count};
    return gemm_common(h, fn, &p, &one, &zero, 1, bytes);
}

wsgemm_status wsgemm_set_workspace(wsgemm_handle h, void *workspace, size_t bytes)
{
    static const char fn[] = "wsgemm_set_workspace";
    if (!handle_is_valid(h)) return fail_no_handle(fn);
    record_for(h, 1)->message[0] = '\0';
    int device = -1;
    if (workspace == NULL && bytes != 0)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: workspace is NULL but bytes = %zu (NULL goes with 0: "
                           "no workspace at all)", fn, bytes);
    if (workspace != NULL) {
        if ((uintptr_t)workspace % 256 != 0)
            return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: workspace = %p is not 256-byte aligned", fn,
                               workspace);
        wsgemm_pointer_info info;
        cudaError_t err = wsgemm_pointer_query(workspace, &info);
        if (err != cudaSuccess) return cuda_fail(h, fn, "cudaPointerGetAttributes", err);
        if (info.kind != WSGEMM_MEMORY_DEVICE)
            return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: workspace = %p is not device memory (cudaMalloc)",
                               fn, workspace);
        if (info.has_range && bytes > info.range_begin + info.range_bytes - (uintptr_t)workspace)
            return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                               "%s: bytes = %zu runs past the end of workspace's allocation (%zu bytes from it)", fn,
                               bytes, (size_t)(info.range_begin + info.range_bytes - (uintptr_t)workspace));
        device = info.device;
    }
    char msg[256] = "";
    wsgemm_status s = wsgemm_workspace_source_set(&h->workspace, 1, workspace, workspace ? bytes : 0, device, msg,
                                                  sizeof msg);
    if (s != WSGEMM_STATUS_SUCCESS) return handle_fail(h, s, "%s: %s", fn, msg);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_reset_workspace(wsgemm_handle h)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_reset_workspace");
    char msg[64];
    return wsgemm_workspace_source_set(&h->workspace, 0, NULL, 0, -1, msg, sizeof msg);
}

/* ---------------------------------------------------------------- services for calls defined elsewhere (call.h) */

wsgemm_status wsgemm_call_begin(wsgemm_handle h, const char *fn)
{
    if (!handle_is_valid(h)) return fail_no_handle(fn);
    record_for(h, 1)->message[0] = '\0';
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_call_check_ab_ld(wsgemm_handle h, const char *fn, wsgemm_op transa, wsgemm_op transb, int m,
                                      int n, int k, int lda, int ldb)
{
    const int rows_a = transa == WSGEMM_OP_N ? m : k;
    const int rows_b = transb == WSGEMM_OP_N ? k : n;
    if (lda < max1(rows_a))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: lda = %d is below max(1, %s) = %d", fn, lda,
                           transa == WSGEMM_OP_N ? "m" : "k", max1(rows_a));
    if (ldb < max1(rows_b))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldb = %d is below max(1, %s) = %d", fn, ldb,
                           transb == WSGEMM_OP_N ? "k" : "n", max1(rows_b));
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_call_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vformat_message(record_for(h, 1)->message, WSGEMM_MESSAGE_BYTES, fmt, args);
    va_end(args);
    return status;
}

static operand_view view_of_call_operand(const wsgemm_call_operand *op)
{
    return (operand_view){op->name, op->ptr, op->elem_bytes, op->rows, op->cols, op->ld, 0, 1};
}

wsgemm_status wsgemm_call_check_layout(wsgemm_handle h, const char *fn, const wsgemm_call_operand *op)
{
    const operand_view v = view_of_call_operand(op);
    return check_operand_layout(h, fn, &v);
}

void wsgemm_call_record_path(wsgemm_handle h, wsgemm_path path)
{
    record_for(h, 1)->last_path = path;
}

wsgemm_status wsgemm_call_run(wsgemm_handle h, const char *fn, const wsgemm_call_operand *ops, int count,
                              wsgemm_call_runner run, const void *args)
{
    call_setting cs;
    wsgemm_status s = call_setting_get(h, fn, &cs);
    const cudaStream_t stream = cs.stream;
    const wsgemm_path forced = cs.forced;
    const wsgemm_device_info *dev = cs.dev;
    for (int i = 0; i < count && s == WSGEMM_STATUS_SUCCESS; ++i) {
        const operand_view v = view_of_call_operand(&ops[i]);
        s = check_operand_memory(h, fn, &v, dev->ordinal);
    }
    if (s == WSGEMM_STATUS_SUCCESS) s = check_forced_path(h, fn, forced, dev);
    if (s != WSGEMM_STATUS_SUCCESS) return s;

    char reason[WSGEMM_MESSAGE_BYTES] = "";
    wsgemm_workspace lease = wsgemm_workspace_lease(&h->workspace, dev->ordinal);
    wsgemm_launch_ctx ctx = {.stream = stream, .device = dev, .workspace = &lease, .plan_only = 0,
                             .message = reason, .message_size = sizeof reason};
    wsgemm_path path = forced;
    s = run(args, forced, &ctx, &path);
    wsgemm_workspace_release(&lease, stream);
    if (s != WSGEMM_STATUS_SUCCESS) return handle_fail(h, s, "%s: path %s: %s", fn, wsgemm_path_name(path), reason);
    record_for(h, 1)->last_path = path;
    return WSGEMM_STATUS_SUCCESS;
}
