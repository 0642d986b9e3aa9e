/*
 * api.c - the public entry points: handle life cycle, argument checks and
 * path choice.
 *
 * A call's way through this file, with no back and forth:
 *   check arguments (pure C, no CUDA call, so testable without a GPU)
 *   -> quick return for an empty problem
 *   -> look up the device (NO_DEVICE without one) and check the pointers
 *   -> choose a path (forced or AUTO) -> run it -> record the path.
 * On any failure C has not been touched and the message names the argument.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "internal.h"

enum { WSGEMM_MESSAGE_BYTES = 512, WSGEMM_MAX_DEVICES = 64 };
enum { HANDLE_MAGIC = 0x57534745 /* "WSGE" */ };

/* The AUTO choice of the SM100 path waits for a one-time self-check per
 * device (a small GEMM against the generic kernel). */
typedef enum self_check_state { SELF_CHECK_NOT_RUN = 0, SELF_CHECK_PASSED, SELF_CHECK_FAILED } self_check_state;

struct wsgemm_context {
    uint32_t magic;
    cudaStream_t stream;
    wsgemm_path forced_path;
    wsgemm_path last_path;
    wsgemm_workspace workspace;
    int workspace_device;
    wsgemm_device_info devices[WSGEMM_MAX_DEVICES];
    int device_known[WSGEMM_MAX_DEVICES];
    self_check_state sm100_self_check[WSGEMM_MAX_DEVICES];
    char message[WSGEMM_MESSAGE_BYTES];
};

/* For calls that have no usable handle to keep their message in. */
static _Thread_local char thread_message[WSGEMM_MESSAGE_BYTES];

/* ---------------------------------------------------------------- messages */

static void vformat_message(char *dst, size_t size, const char *fmt, va_list args)
{
    if (dst && size) vsnprintf(dst, size, fmt, args);
}

static wsgemm_status handle_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static wsgemm_status handle_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vformat_message(h ? h->message : thread_message, WSGEMM_MESSAGE_BYTES, fmt, args);
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

static int handle_is_valid(wsgemm_handle h)
{
    return h != NULL && h->magic == HANDLE_MAGIC;
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
    return handle_is_valid(h) ? h->message : thread_message;
}

int wsgemm_env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0') return fallback;
    return atoi(v);
}

int wsgemm_dtype_size(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F ? 4 : 2;
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
    h->magic = HANDLE_MAGIC;
    h->forced_path = WSGEMM_PATH_AUTO;
    h->last_path = WSGEMM_PATH_NONE;
    h->workspace_device = -1;
    *handle = h;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_destroy(wsgemm_handle h)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_destroy");
    if (h->workspace.ptr) cudaFree(h->workspace.ptr); /* implicit device sync: no kernel still uses it */
    h->magic = 0;
    free(h);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_set_stream(wsgemm_handle h, cudaStream_t stream)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_set_stream");
    h->stream = stream;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_stream(wsgemm_handle h, cudaStream_t *stream)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_get_stream");
    if (stream == NULL)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_stream: stream is NULL");
    *stream = h->stream;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_set_path(wsgemm_handle h, wsgemm_path path)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_set_path");
    if (path < WSGEMM_PATH_AUTO || path > WSGEMM_PATH_SM100_EMULATED)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "wsgemm_set_path: path = %d is not a wsgemm_path that can be forced", (int)path);
    h->forced_path = path;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_path(wsgemm_handle h, wsgemm_path *path)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_get_path");
    if (path == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_path: path is NULL");
    *path = h->forced_path;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_last_path(wsgemm_handle h, wsgemm_path *path)
{
    if (!handle_is_valid(h)) return fail_no_handle("wsgemm_get_last_path");
    if (path == NULL)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_last_path: path is NULL");
    *path = h->last_path;
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- argument checks (no CUDA) */

static int op_is_valid(wsgemm_op op)
{
    return op == WSGEMM_OP_N || op == WSGEMM_OP_T;
}

static int dtype_is_valid(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F || t == WSGEMM_R_16F || t == WSGEMM_R_16BF;
}

static int is_16bit_float(wsgemm_dtype t)
{
    return t == WSGEMM_R_16F || t == WSGEMM_R_16BF;
}

static int max1(int x)
{
    return x > 1 ? x : 1;
}

/* The C matrices of a batch may not overlap (the kernels write them in
 * parallel). Two layouts are disjoint: matrix after matrix (strideC >= ldc*n)
 * or interleaved inside one column (m <= strideC and the last matrix's rows
 * still end within ldc). */
static int batch_outputs_disjoint(const wsgemm_problem *p)
{
    if (p->batch_count <= 1) return 1;
    long long block = (long long)p->ldc * p->n;
    if (p->strideC >= block) return 1;
    long long last_row_end = (long long)(p->batch_count - 1) * p->strideC + p->m;
    return p->strideC >= p->m && last_row_end <= p->ldc;
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
    int rows_a = p->transa == WSGEMM_OP_N ? p->m : p->k;
    int rows_b = p->transb == WSGEMM_OP_N ? p->k : p->n;
    if (p->lda < max1(rows_a))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: lda = %d is below max(1, %s) = %d", fn, p->lda,
                           p->transa == WSGEMM_OP_N ? "m" : "k", max1(rows_a));
    if (p->ldb < max1(rows_b))
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldb = %d is below max(1, %s) = %d", fn, p->ldb,
                           p->transb == WSGEMM_OP_N ? "k" : "n", max1(rows_b));
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
                               "%s: strideC = %lld makes the %d C matrices overlap (need strideC >= ldc*n = %lld)",
                               fn, p->strideC, p->batch_count, (long long)p->ldc * p->n);
    }
    int empty = p->m == 0 || p->n == 0 || p->batch_count == 0;
    int needs_ab = !empty && p->k > 0 && *alpha != 0.0f;
    if (needs_ab && p->A == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: A is NULL", fn);
    if (needs_ab && p->B == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: B is NULL", fn);
    if (!empty && p->C == NULL) return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: C is NULL", fn);
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- device checks */

static wsgemm_status cuda_fail(wsgemm_handle h, const char *fn, const char *what, cudaError_t err)
{
    cudaGetLastError(); /* clear a non-sticky error so the next call starts clean */
    return handle_fail(h, WSGEMM_STATUS_CUDA_ERROR, "%s: %s failed: %s (%s)", fn, what, cudaGetErrorName(err),
                       cudaGetErrorString(err));
}

static wsgemm_status read_device_info(wsgemm_handle h, const char *fn, int ordinal, wsgemm_device_info *info)
{
    struct { enum cudaDeviceAttr attr; int *dst; } const attrs[] = {
        {cudaDevAttrComputeCapabilityMajor, &info->cc_major},
        {cudaDevAttrComputeCapabilityMinor, &info->cc_minor},
        {cudaDevAttrMultiProcessorCount, &info->sm_count},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, &info->smem_optin_bytes},
        {cudaDevAttrL2CacheSize, &info->l2_bytes},
    };
    info->ordinal = ordinal;
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        cudaError_t err = cudaDeviceGetAttribute(attrs[i].dst, attrs[i].attr, ordinal);
        if (err != cudaSuccess) return cuda_fail(h, fn, "cudaDeviceGetAttribute", err);
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* The current device, read once per ordinal. NO_DEVICE when CUDA has none. */
static wsgemm_status current_device(wsgemm_handle h, const char *fn, const wsgemm_device_info **out)
{
    int ordinal = -1;
    cudaError_t err = cudaGetDevice(&ordinal);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || err == cudaErrorInitializationError) {
        cudaGetLastError();
        return handle_fail(h, WSGEMM_STATUS_NO_DEVICE, "%s: no CUDA device is available (%s: %s)", fn,
                           cudaGetErrorName(err), cudaGetErrorString(err));
    }
    if (err != cudaSuccess) return cuda_fail(h, fn, "cudaGetDevice", err);
    if (ordinal < 0 || ordinal >= WSGEMM_MAX_DEVICES)
        return handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED, "%s: device ordinal %d is beyond wsgemm's limit of %d", fn,
                           ordinal, WSGEMM_MAX_DEVICES);
    if (!h->device_known[ordinal]) {
        wsgemm_status s = read_device_info(h, fn, ordinal, &h->devices[ordinal]);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
        h->device_known[ordinal] = 1;
    }
    *out = &h->devices[ordinal];
    return WSGEMM_STATUS_SUCCESS;
}

/* A, B and C must be memory the current device can read with TMA and
 * ordinary loads: device memory of this device, or managed memory. */
static wsgemm_status check_device_pointer(wsgemm_handle h, const char *fn, const char *name, const void *ptr,
                                          int ordinal)
{
    struct cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
    if (err != cudaSuccess) return cuda_fail(h, fn, "cudaPointerGetAttributes", err);
    if (attr.type == cudaMemoryTypeManaged) return WSGEMM_STATUS_SUCCESS;
    if (attr.type != cudaMemoryTypeDevice)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "%s: %s = %p is %s memory; wsgemm needs device memory (cudaMalloc) or managed memory", fn,
                           name, ptr, attr.type == cudaMemoryTypeHost ? "pinned host" : "unregistered host");
    if (attr.device != ordinal)
        return handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                           "%s: %s = %p lives on device %d but the current device is %d", fn, name, ptr,
                           attr.device, ordinal);
    return WSGEMM_STATUS_SUCCESS;
}

static wsgemm_status check_pointers(wsgemm_handle h, const char *fn, const wsgemm_problem *p, int ordinal)
{
    wsgemm_status s = WSGEMM_STATUS_SUCCESS;
    if (p->k > 0 && p->alpha != 0.0f) {
        s = check_device_pointer(h, fn, "A", p->A, ordinal);
        if (s == WSGEMM_STATUS_SUCCESS) s = check_device_pointer(h, fn, "B", p->B, ordinal);
    }
    if (s == WSGEMM_STATUS_SUCCESS) s = check_device_pointer(h, fn, "C", p->C, ordinal);
    return s;
}

/* ---------------------------------------------------------------- workspace */

wsgemm_status wsgemm_workspace_reserve(wsgemm_launch_ctx *ctx, size_t bytes)
{
    wsgemm_workspace *ws = ctx->workspace;
    if (ws->bytes >= bytes) return WSGEMM_STATUS_SUCCESS;
    if (ws->ptr) {
        /* Earlier launches on this stream may still read the old buffer. */
        cudaStreamSynchronize(ctx->stream);
        cudaFree(ws->ptr);
        ws->ptr = NULL;
        ws->bytes = 0;
    }
    size_t rounded = (bytes + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
    cudaError_t err = cudaMalloc(&ws->ptr, rounded);
    if (err != cudaSuccess) {
        cudaGetLastError();
        ws->ptr = NULL;
        return wsgemm_fail(ctx, WSGEMM_STATUS_ALLOC_FAILED, "workspace of %zu bytes could not be allocated: %s",
                           rounded, cudaGetErrorString(err));
    }
    ws->bytes = rounded;
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


static wsgemm_path auto_path(wsgemm_handle h, const wsgemm_device_info *d, wsgemm_launch_ctx *ctx)
{
    if (is_blackwell_dc(d) && wsgemm_sm100_available()) {
        self_check_state *state = &h->sm100_self_check[d->ordinal];
        if (*state == SELF_CHECK_NOT_RUN) {
            wsgemm_status s = wsgemm_sm100_self_check(ctx);
            *state = s == WSGEMM_STATUS_SUCCESS ? SELF_CHECK_PASSED : SELF_CHECK_FAILED;
            if (*state == SELF_CHECK_FAILED)
                fprintf(stderr, "wsgemm: warning: the sm100 kernel failed its self-check on device %d (%s); "
                        "AUTO uses the generic path on this device\n", d->ordinal, ctx->message);
        }
        if (*state == SELF_CHECK_PASSED) return WSGEMM_PATH_SM100;
    }
    if (is_hopper(d) && wsgemm_sm90_available()) return WSGEMM_PATH_SM90;
    return WSGEMM_PATH_GENERIC;
}

/* ---------------------------------------------------------------- the GEMM calls */

static wsgemm_status gemm_common(wsgemm_handle h, const char *fn, wsgemm_problem *p, const float *alpha,
                                 const float *beta, int batched)
{
    if (!handle_is_valid(h)) return fail_no_handle(fn);
    h->message[0] = '\0';
    wsgemm_status s = check_arguments(h, fn, p, alpha, beta, batched);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    p->alpha = *alpha;
    p->beta = *beta;
    if (p->m == 0 || p->n == 0 || p->batch_count == 0) { /* BLAS quick return: nothing to compute */
        h->last_path = WSGEMM_PATH_NONE;
        return WSGEMM_STATUS_SUCCESS;
    }

    const wsgemm_device_info *dev = NULL;
    s = current_device(h, fn, &dev);
    if (s == WSGEMM_STATUS_SUCCESS) s = check_pointers(h, fn, p, dev->ordinal);
    if (s == WSGEMM_STATUS_SUCCESS) s = check_forced_path(h, fn, h->forced_path, dev);
    if (s != WSGEMM_STATUS_SUCCESS) return s;

    if (h->workspace_device != dev->ordinal && h->workspace.ptr) {
        cudaFree(h->workspace.ptr); /* it belongs to another device */
        h->workspace.ptr = NULL;
        h->workspace.bytes = 0;
    }
    h->workspace_device = dev->ordinal;
    char reason[WSGEMM_MESSAGE_BYTES] = "";
    wsgemm_launch_ctx ctx = {h->stream, dev, &h->workspace, reason, sizeof reason};

    wsgemm_path path;
    if (p->k == 0 || p->alpha == 0.0f) { /* C = beta * C: no product to form */
        path = WSGEMM_PATH_GENERIC;
        s = wsgemm_generic_scale_c(p, &ctx);
    } else if (h->forced_path != WSGEMM_PATH_AUTO) {
        path = h->forced_path;
        s = run_path(path, p, &ctx);
    } else {
        path = auto_path(h, dev, &ctx);
        s = run_path(path, p, &ctx);
        if (s == WSGEMM_STATUS_NOT_SUPPORTED && path != WSGEMM_PATH_GENERIC) {
            path = WSGEMM_PATH_GENERIC; /* the fast path declined this problem before touching C */
            s = wsgemm_generic_gemm(p, &ctx);
        }
    }
    if (s != WSGEMM_STATUS_SUCCESS)
        return handle_fail(h, s, "%s: path %s: %s", fn, wsgemm_path_name(path), reason);
    h->last_path = path;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_gemm_ex(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                             const float *alpha, const void *A, wsgemm_dtype Atype, int lda, const void *B,
                             wsgemm_dtype Btype, int ldb, const float *beta, void *C, wsgemm_dtype Ctype, int ldc)
{
    wsgemm_problem p = {transa, transb, m, n, k, 0.0f, 0.0f, A, Atype, lda, 0, B, Btype, ldb, 0,
                        C, Ctype, ldc, 0, 1};
    return gemm_common(h, "wsgemm_gemm_ex", &p, alpha, beta, 0);
}

wsgemm_status wsgemm_gemm_strided_batched_ex(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n,
                                             int k, const float *alpha, const void *A, wsgemm_dtype Atype, int lda,
                                             long long strideA, const void *B, wsgemm_dtype Btype, int ldb,
                                             long long strideB, const float *beta, void *C, wsgemm_dtype Ctype,
                                             int ldc, long long strideC, int batch_count)
{
    wsgemm_problem p = {transa, transb, m, n, k, 0.0f, 0.0f, A, Atype, lda, strideA, B, Btype, ldb, strideB,
                        C, Ctype, ldc, strideC, batch_count};
    return gemm_common(h, "wsgemm_gemm_strided_batched_ex", &p, alpha, beta, 1);
}
