// SPDX-License-Identifier: MIT
/*
 * api.c - the public entry points of the handle and the GEMM calls: the handle's life cycle and settings,
 * and the argument checks of wsgemm_gemm_ex, wsgemm_gemm_strided_batched_ex and wsgemm_gemm_workspace_size.
 *
 * A GEMM call's way, with no back and forth:
 *   check arguments (pure C, no CUDA call, so testable without a GPU) into one call description (problem.h)
 *   -> quick return for an empty problem
 *   -> the call pipeline (call.c): device, stream and pointer checks, the path (paths.c), the workspace lease,
 *      the launch, the record of the path.
 * On any failure C has not been touched and the message names the argument. wsgemm_matmul takes the same way
 * from matmul.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "call.h"
#include "common/device.h"
#include "common/dtype.h"
#include "common/status.h"
#include "common/workspace.h"
#include "handle.h"
#include "internal.h"

/* ---------------------------------------------------------------- handle */

const char *wsgemm_get_last_error_message(wsgemm_handle h)
{
    return wsgemm_handle_message(h);
}

wsgemm_status wsgemm_create(wsgemm_handle *handle)
{
    if (handle == NULL)
        return wsgemm_handle_fail(NULL, WSGEMM_STATUS_INVALID_VALUE,
                                  "wsgemm_create: handle (the output pointer) is NULL");
    wsgemm_status s = wsgemm_handle_register(handle, "wsgemm_create");
    return s == WSGEMM_STATUS_SUCCESS ? wsgemm_handle_succeed_without_handle() : s;
}

wsgemm_status wsgemm_destroy(wsgemm_handle h)
{
    return wsgemm_handle_unregister(h) ? wsgemm_handle_succeed_without_handle()
                                       : wsgemm_handle_invalid("wsgemm_destroy");
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
    if (wsgemm_handle_begin(h, "wsgemm_set_stream") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    const int device = stream_device_of(stream);
    pthread_mutex_lock(&h->lock);
    h->stream = stream;
    h->stream_device = device;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_stream(wsgemm_handle h, cudaStream_t *stream)
{
    if (wsgemm_handle_query(h, "wsgemm_get_stream") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    if (stream == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_stream: stream is NULL");
    pthread_mutex_lock(&h->lock);
    *stream = h->stream;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_set_path(wsgemm_handle h, wsgemm_path path)
{
    if (wsgemm_handle_begin(h, "wsgemm_set_path") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    if (path < WSGEMM_PATH_AUTO || path > WSGEMM_PATH_SM100_EMULATED)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "wsgemm_set_path: path = %d is not a wsgemm_path that can be forced", (int)path);
    pthread_mutex_lock(&h->lock);
    h->forced_path = path;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_path(wsgemm_handle h, wsgemm_path *path)
{
    if (wsgemm_handle_query(h, "wsgemm_get_path") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    if (path == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_path: path is NULL");
    pthread_mutex_lock(&h->lock);
    *path = h->forced_path;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_last_path(wsgemm_handle h, wsgemm_path *path)
{
    if (wsgemm_handle_query(h, "wsgemm_get_last_path") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    if (path == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_last_path: path is NULL");
    *path = wsgemm_handle_last_path(h);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_set_pointer_mode(wsgemm_handle h, wsgemm_pointer_mode mode)
{
    if (wsgemm_handle_begin(h, "wsgemm_set_pointer_mode") != WSGEMM_STATUS_SUCCESS)
        return WSGEMM_STATUS_NOT_INITIALIZED;
    if (mode != WSGEMM_POINTER_MODE_HOST && mode != WSGEMM_POINTER_MODE_DEVICE)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "wsgemm_set_pointer_mode: mode = %d is not WSGEMM_POINTER_MODE_HOST (0) or "
                                  "WSGEMM_POINTER_MODE_DEVICE (1)",
                                  (int)mode);
    pthread_mutex_lock(&h->lock);
    h->pointer_mode = mode;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_pointer_mode(wsgemm_handle h, wsgemm_pointer_mode *mode)
{
    if (wsgemm_handle_query(h, "wsgemm_get_pointer_mode") != WSGEMM_STATUS_SUCCESS)
        return WSGEMM_STATUS_NOT_INITIALIZED;
    if (mode == NULL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_pointer_mode: mode is NULL");
    pthread_mutex_lock(&h->lock);
    *mode = h->pointer_mode;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_set_launch_mode(wsgemm_handle h, wsgemm_launch_mode mode)
{
    if (wsgemm_handle_begin(h, "wsgemm_set_launch_mode") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    if (mode != WSGEMM_LAUNCH_MODE_DEFAULT && mode != WSGEMM_LAUNCH_MODE_PDL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "wsgemm_set_launch_mode: mode = %d is not WSGEMM_LAUNCH_MODE_DEFAULT (0) or "
                                  "WSGEMM_LAUNCH_MODE_PDL (1)",
                                  (int)mode);
    pthread_mutex_lock(&h->lock);
    h->launch_mode = mode;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_launch_mode(wsgemm_handle h, wsgemm_launch_mode *mode)
{
    if (wsgemm_handle_query(h, "wsgemm_get_launch_mode") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    if (mode == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_launch_mode: mode is NULL");
    pthread_mutex_lock(&h->lock);
    *mode = h->launch_mode;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_set_batch_invariance(wsgemm_handle h, wsgemm_batch_invariance mode)
{
    if (wsgemm_handle_begin(h, "wsgemm_set_batch_invariance") != WSGEMM_STATUS_SUCCESS)
        return WSGEMM_STATUS_NOT_INITIALIZED;
    if (mode != WSGEMM_BATCH_INVARIANCE_OFF && mode != WSGEMM_BATCH_INVARIANCE_ON &&
        mode != WSGEMM_BATCH_INVARIANCE_ON_N)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "wsgemm_set_batch_invariance: mode = %d is not WSGEMM_BATCH_INVARIANCE_OFF (0), "
                                  "WSGEMM_BATCH_INVARIANCE_ON (1) or WSGEMM_BATCH_INVARIANCE_ON_N (2)",
                                  (int)mode);
    pthread_mutex_lock(&h->lock);
    h->batch_invariance = mode;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_get_batch_invariance(wsgemm_handle h, wsgemm_batch_invariance *mode)
{
    if (wsgemm_handle_query(h, "wsgemm_get_batch_invariance") != WSGEMM_STATUS_SUCCESS)
        return WSGEMM_STATUS_NOT_INITIALIZED;
    if (mode == NULL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "wsgemm_get_batch_invariance: mode is NULL");
    pthread_mutex_lock(&h->lock);
    *mode = h->batch_invariance;
    pthread_mutex_unlock(&h->lock);
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- argument checks (no CUDA) */

static int op_is_valid(wsgemm_op op)
{
    return op == WSGEMM_OP_N || op == WSGEMM_OP_T;
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

/* The operands the call touches, as stored, for the alignment, extent and memory checks: C always, A and B
 * when there is a product to form. */
static int gemm_operands(const wsgemm_problem *p, float alpha, wsgemm_call_operand *ops)
{
    int n = 0;
    if (p->k > 0 && alpha != 0.0f) {
        ops[n] = wsgemm_call_operand_of("A", p->A, wsgemm_dtype_size(p->Atype), p->transa == WSGEMM_OP_N ? p->m : p->k,
                                        p->transa == WSGEMM_OP_N ? p->k : p->m, p->lda);
        ops[n++].stride = p->strideA;
        ops[n] = wsgemm_call_operand_of("B", p->B, wsgemm_dtype_size(p->Btype), p->transb == WSGEMM_OP_N ? p->k : p->n,
                                        p->transb == WSGEMM_OP_N ? p->n : p->k, p->ldb);
        ops[n++].stride = p->strideB;
    }
    ops[n] = wsgemm_call_operand_of("C", p->C, wsgemm_dtype_size(p->Ctype), p->m, p->n, p->ldc);
    ops[n++].stride = p->strideC;
    for (int i = 0; i < n; ++i) /* a batch member each, unless shared by all (stride 0) */
        ops[i].matrices = (p->batch_count > 1 && ops[i].stride != 0) ? p->batch_count : 1;
    return n;
}

/* Every check that needs no CUDA call, in the order a reader of the
 * argument list expects. Returns SUCCESS or the status of the first
 * failing argument, with its message in h. */
static wsgemm_status check_arguments(wsgemm_handle h, const char *fn, const wsgemm_problem *p, const float *alpha,
                                     const float *beta, int batched, int device_scalars)
{
    if (!op_is_valid(p->transa))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: transa = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", fn, (int)p->transa);
    if (!op_is_valid(p->transb))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: transb = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", fn, (int)p->transb);
    if (p->m < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: m = %d is negative", fn, p->m);
    if (p->n < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: n = %d is negative", fn, p->n);
    if (p->k < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: k = %d is negative", fn, p->k);
    if (batched && p->batch_count < 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: batch_count = %d is negative", fn,
                                  p->batch_count);
    if (alpha == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: alpha is NULL", fn);
    if (beta == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: beta is NULL", fn);
    if (!wsgemm_dtype_is_valid(p->Atype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Atype = %d is not a wsgemm_dtype", fn,
                                  (int)p->Atype);
    if (!wsgemm_dtype_is_valid(p->Btype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Btype = %d is not a wsgemm_dtype", fn,
                                  (int)p->Btype);
    if (!wsgemm_dtype_is_valid(p->Ctype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Ctype = %d is not a wsgemm_dtype", fn,
                                  (int)p->Ctype);
    if (!wsgemm_dtype_is_16bit(p->Atype) || p->Btype != p->Atype)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: Atype = %d with Btype = %d is not supported: A and B must both be "
                                  "WSGEMM_R_16BF or both WSGEMM_R_16F",
                                  fn, (int)p->Atype, (int)p->Btype);
    if (p->Ctype != WSGEMM_R_32F && !wsgemm_dtype_is_16bit(p->Ctype))
        return wsgemm_handle_fail(
            h, WSGEMM_STATUS_NOT_SUPPORTED,
            "%s: Ctype = %d is not supported: C is WSGEMM_R_16BF, WSGEMM_R_16F or WSGEMM_R_32F (FP8 "
            "outputs: wsgemm_matmul)",
            fn, (int)p->Ctype);
    wsgemm_status ld_status = wsgemm_call_check_ab_ld(h, fn, p->transa, p->transb, p->m, p->n, p->k, p->lda, p->ldb);
    if (ld_status != WSGEMM_STATUS_SUCCESS) return ld_status;
    if (p->ldc < max1(p->m))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldc = %d is below max(1, m) = %d", fn, p->ldc,
                                  max1(p->m));
    if (batched) {
        if (p->strideA < 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideA = %lld is negative", fn, p->strideA);
        if (p->strideB < 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideB = %lld is negative", fn, p->strideB);
        if (p->strideC < 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideC = %lld is negative", fn, p->strideC);
        if (!batch_outputs_disjoint(p))
            return wsgemm_handle_fail(
                h, WSGEMM_STATUS_INVALID_VALUE,
                "%s: strideC = %lld makes the %d C matrices overlap (need strideC >= (n-1)*ldc + m "
                "= %lld, or strideC >= m with all of them inside ldc = %d rows)",
                fn, p->strideC, p->batch_count, (long long)(p->n - 1) * p->ldc + p->m, p->ldc);
    }
    /* device pointer mode: alpha's value is unknown here, so A and B are needed whenever k > 0 */
    const float alpha_value = device_scalars ? 1.0f : *alpha;
    int empty = p->m == 0 || p->n == 0 || p->batch_count == 0;
    int needs_ab = !empty && p->k > 0 && alpha_value != 0.0f;
    if (needs_ab && p->A == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: A is NULL", fn);
    if (needs_ab && p->B == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: B is NULL", fn);
    if (!empty && p->C == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: C is NULL", fn);
    if (!empty) {
        wsgemm_call_operand ops[3];
        const int count = gemm_operands(p, alpha_value, ops);
        for (int i = 0; i < count; ++i) {
            wsgemm_status s = wsgemm_call_check_layout(h, fn, &ops[i]);
            if (s != WSGEMM_STATUS_SUCCESS) return s;
        }
    }
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- the GEMM calls */

/* alpha and beta as operands of a device pointer mode call: one float each, checked as the matrices are
 * (aligned, device or managed memory of the current device). */
static int scalar_operands(const float *alpha, const float *beta, wsgemm_call_operand *ops)
{
    ops[0] = wsgemm_call_operand_of("alpha", alpha, 4, 1, 1, 1);
    ops[1] = wsgemm_call_operand_of("beta", beta, 4, 1, 1, 1);
    return 2;
}

/* In WSGEMM_POINTER_MODE_DEVICE (device_scalars) alpha and beta are device floats, read by the kernel. The
 * workspace query (workspace_bytes set) passes its own host values and launches nothing: it plans the call as
 * device mode runs it, without the scalars. */
static wsgemm_status gemm_call(wsgemm_handle h, const char *fn, wsgemm_problem *p, const float *alpha,
                               const float *beta, int batched, size_t *workspace_bytes)
{
    const wsgemm_handle_settings set = wsgemm_handle_settings_get(h); /* once per call */
    const int device_scalars = set.pointer_mode == WSGEMM_POINTER_MODE_DEVICE;
    wsgemm_status s = check_arguments(h, fn, p, alpha, beta, batched, device_scalars);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    const int scalars_on_device = device_scalars && workspace_bytes == NULL;
    wsgemm_call_operand scalars[2];
    const int scalar_count = scalars_on_device ? scalar_operands(alpha, beta, scalars) : 0;
    for (int i = 0; i < scalar_count; ++i) {
        s = wsgemm_call_check_layout(h, fn, &scalars[i]);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
    }
    p->alpha = device_scalars ? 1.0f : *alpha; /* device mode: the general variant of every host decision */
    p->beta = device_scalars ? 1.0f : *beta;
    p->device_scalars = device_scalars;
    p->alpha_dev = scalars_on_device ? alpha : NULL;
    p->beta_dev = scalars_on_device ? beta : NULL;
    if (p->m == 0 || p->n == 0 || p->batch_count == 0) { /* BLAS quick return: nothing to compute */
        if (workspace_bytes)
            *workspace_bytes = 0;
        else
            wsgemm_handle_record_path(h, WSGEMM_PATH_NONE);
        return WSGEMM_STATUS_SUCCESS;
    }
    wsgemm_call c = {.fn = fn, .kind = WSGEMM_CALL_GEMM, .problem = *p, .workspace_bytes = workspace_bytes};
    c.operand_count = gemm_operands(p, p->alpha, c.operands);
    for (int i = 0; i < scalar_count; ++i) c.operands[c.operand_count++] = scalars[i];
    return wsgemm_call_execute(h, &c, &set);
}

/* The problem of a GEMM call as its arguments give it (wsgemm_gemm_ex: strides 0, one matrix). */
static wsgemm_problem problem_of(wsgemm_op transa, wsgemm_op transb, int m, int n, int k, const void *A,
                                 wsgemm_dtype Atype, int lda, long long strideA, const void *B, wsgemm_dtype Btype,
                                 int ldb, long long strideB, void *C, wsgemm_dtype Ctype, int ldc, long long strideC,
                                 int batch_count)
{
    return (wsgemm_problem){.transa = transa,
                            .transb = transb,
                            .m = m,
                            .n = n,
                            .k = k,
                            .A = A,
                            .Atype = Atype,
                            .lda = lda,
                            .strideA = strideA,
                            .B = B,
                            .Btype = Btype,
                            .ldb = ldb,
                            .strideB = strideB,
                            .C = C,
                            .Ctype = Ctype,
                            .ldc = ldc,
                            .strideC = strideC,
                            .batch_count = batch_count};
}

wsgemm_status wsgemm_gemm_ex(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                             const float *alpha, const void *A, wsgemm_dtype Atype, int lda, const void *B,
                             wsgemm_dtype Btype, int ldb, const float *beta, void *C, wsgemm_dtype Ctype, int ldc)
{
    static const char fn[] = "wsgemm_gemm_ex";
    if (wsgemm_handle_begin(h, fn) != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    wsgemm_problem p = problem_of(transa, transb, m, n, k, A, Atype, lda, 0, B, Btype, ldb, 0, C, Ctype, ldc, 0, 1);
    return gemm_call(h, fn, &p, alpha, beta, 0, NULL);
}

wsgemm_status wsgemm_gemm_strided_batched_ex(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                                             const float *alpha, const void *A, wsgemm_dtype Atype, int lda,
                                             long long strideA, const void *B, wsgemm_dtype Btype, int ldb,
                                             long long strideB, const float *beta, void *C, wsgemm_dtype Ctype, int ldc,
                                             long long strideC, int batch_count)
{
    static const char fn[] = "wsgemm_gemm_strided_batched_ex";
    if (wsgemm_handle_begin(h, fn) != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    wsgemm_problem p = problem_of(transa, transb, m, n, k, A, Atype, lda, strideA, B, Btype, ldb, strideB, C, Ctype,
                                  ldc, strideC, batch_count);
    return gemm_call(h, fn, &p, alpha, beta, 1, NULL);
}

/* ---------------------------------------------------------------- workspace */

wsgemm_status wsgemm_gemm_workspace_size(wsgemm_handle h, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                                         const void *A, wsgemm_dtype Atype, int lda, long long strideA, const void *B,
                                         wsgemm_dtype Btype, int ldb, long long strideB, const void *C,
                                         wsgemm_dtype Ctype, int ldc, long long strideC, int batch_count, size_t *bytes)
{
    static const char fn[] = "wsgemm_gemm_workspace_size";
    if (wsgemm_handle_begin(h, fn) != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    if (bytes == NULL) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: bytes is NULL", fn);
    const float one = 1.0f, zero = 0.0f; /* a product is formed; beta does not change the workspace */
    wsgemm_problem p = problem_of(transa, transb, m, n, k, A, Atype, lda, strideA, B, Btype, ldb, strideB, (void *)C,
                                  Ctype, ldc, strideC, batch_count);
    return gemm_call(h, fn, &p, &one, &zero, 1, bytes);
}

wsgemm_status wsgemm_set_workspace(wsgemm_handle h, void *workspace, size_t bytes)
{
    static const char fn[] = "wsgemm_set_workspace";
    wsgemm_status begun = wsgemm_handle_begin(h, fn);
    if (begun != WSGEMM_STATUS_SUCCESS) return begun;
    int device = -1;
    if (workspace == NULL && bytes != 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: workspace is NULL but bytes = %zu (NULL goes with 0: "
                                  "no workspace at all)",
                                  fn, bytes);
    if (workspace != NULL) {
        if ((uintptr_t)workspace % 256 != 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: workspace = %p is not 256-byte aligned", fn,
                                      workspace);
        wsgemm_pointer_info info;
        cudaError_t err = wsgemm_pointer_query(workspace, &info);
        if (err != cudaSuccess) return wsgemm_handle_cuda_fail(h, fn, "cudaPointerGetAttributes", err);
        if (info.kind != WSGEMM_MEMORY_DEVICE)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: workspace = %p is not device memory (cudaMalloc)", fn, workspace);
        if (info.has_range && bytes > info.range_begin + info.range_bytes - (uintptr_t)workspace)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: bytes = %zu runs past the end of workspace's allocation (%zu bytes from it)",
                                      fn, bytes, (size_t)(info.range_begin + info.range_bytes - (uintptr_t)workspace));
        device = info.device;
    }
    char msg[256] = "";
    wsgemm_status s =
        wsgemm_workspace_source_set(&h->workspace, 1, workspace, workspace ? bytes : 0, device, msg, sizeof msg);
    if (s != WSGEMM_STATUS_SUCCESS) return wsgemm_handle_fail(h, s, "%s: %s", fn, msg);
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_reset_workspace(wsgemm_handle h)
{
    if (wsgemm_handle_begin(h, "wsgemm_reset_workspace") != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    char msg[64];
    return wsgemm_workspace_source_set(&h->workspace, 0, NULL, 0, -1, msg, sizeof msg);
}
