// SPDX-License-Identifier: MIT
/*
 * gemm/call.c - see call.h.
 */
#include "call.h"

#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/status.h"
#include "common/workspace.h"
#include "handle.h"
#include "paths.h"

static int max1(int x)
{
    return x > 1 ? x : 1;
}

/* ---------------------------------------------------------------- argument checks (no CUDA) */

wsgemm_status wsgemm_call_check_ab_ld(wsgemm_handle h, const char *fn, wsgemm_op transa, wsgemm_op transb, int m, int n,
                                      int k, int lda, int ldb)
{
    const int rows_a = transa == WSGEMM_OP_N ? m : k;
    const int rows_b = transb == WSGEMM_OP_N ? k : n;
    if (lda < max1(rows_a))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: lda = %d is below max(1, %s) = %d", fn, lda,
                                  transa == WSGEMM_OP_N ? "m" : "k", max1(rows_a));
    if (ldb < max1(rows_b))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldb = %d is below max(1, %s) = %d", fn, ldb,
                                  transb == WSGEMM_OP_N ? "k" : "n", max1(rows_b));
    return WSGEMM_STATUS_SUCCESS;
}

/* Bytes from the operand's base to one past its last element, all batch members included; 0 when that
 * does not fit in 63 bits (then no allocation can hold it). rows, cols >= 1. */
static unsigned long long span_bytes(const wsgemm_call_operand *v)
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

wsgemm_status wsgemm_call_check_layout(wsgemm_handle h, const char *fn, const wsgemm_call_operand *v)
{
    if ((uintptr_t)v->ptr % (uintptr_t)v->elem_bytes != 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: %s = %p is not aligned to its %d-byte elements",
                                  fn, v->name, v->ptr, v->elem_bytes);
    if (span_bytes(v) == 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: %s spans more than 2^63 bytes from %p (ld%c = %lld, %lld columns, stride%s = "
                                  "%lld, %d matrices): no allocation can hold it",
                                  fn, v->name, v->ptr, v->name[0] + 32, v->ld, v->cols, v->name, v->stride,
                                  v->matrices);
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- device checks */

/* The current device's facts. NO_DEVICE when CUDA has none. */
static wsgemm_status current_device(wsgemm_handle h, const char *fn, const wsgemm_device_info **out)
{
    int ordinal = -1;
    cudaError_t err = cudaGetDevice(&ordinal);
    if (err != cudaSuccess) wsgemm_forget_cuda_error(err);
    if (wsgemm_cuda_error_is_no_device(err)) return wsgemm_handle_no_device(h, fn, err);
    if (err != cudaSuccess) return wsgemm_handle_cuda_fail(h, fn, "cudaGetDevice", err);
    if (ordinal < 0 || ordinal >= WSGEMM_MAX_DEVICES)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: device ordinal %d is beyond wsgemm's limit of %d", fn, ordinal,
                                  WSGEMM_MAX_DEVICES);
    err = wsgemm_device_info_get(ordinal, out);
    if (err != cudaSuccess) return wsgemm_handle_cuda_fail(h, fn, "cudaDeviceGetAttribute", err);
    return WSGEMM_STATUS_SUCCESS;
}

/* Kernels go to the handle's stream, which must belong to the current device (stream_device: see
 * wsgemm_set_stream; -1 passes). */
static wsgemm_status check_stream(wsgemm_handle h, const char *fn, cudaStream_t stream, int device, int ordinal)
{
    if (device >= 0 && device != ordinal)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: stream %p (wsgemm_set_stream) belongs to device %d but the current device is %d",
                                  fn, (void *)stream, device, ordinal);
    return WSGEMM_STATUS_SUCCESS;
}

/* An operand must be memory the current device reads with TMA and ordinary loads (its own device memory,
 * or managed memory), and lie inside one allocation, so that no kernel runs off its end. Where the driver
 * cannot tell the allocation's extent, or the operand runs past it into more device memory of this device
 * (virtual memory mapped in pieces), the extent is not held against it. */
static wsgemm_status check_operand_memory(wsgemm_handle h, const char *fn, const wsgemm_call_operand *v, int ordinal)
{
    wsgemm_pointer_info info;
    cudaError_t err = wsgemm_pointer_query(v->ptr, &info);
    if (err != cudaSuccess) return wsgemm_handle_cuda_fail(h, fn, "cudaPointerGetAttributes", err);
    if (info.kind == WSGEMM_MEMORY_HOST)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: %s = %p is %s memory; wsgemm needs device memory (cudaMalloc) or managed memory",
                                  fn, v->name, v->ptr, info.pinned_host ? "pinned host" : "unregistered host");
    if (info.kind == WSGEMM_MEMORY_DEVICE && info.device != ordinal)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: %s = %p lives on device %d but the current device is %d", fn, v->name, v->ptr,
                                  info.device, ordinal);
    const unsigned long long bytes = span_bytes(v);
    if (!info.has_range) return WSGEMM_STATUS_SUCCESS;
    const unsigned long long room = (unsigned long long)(info.range_begin + info.range_bytes - (uintptr_t)v->ptr);
    if (bytes <= room) return WSGEMM_STATUS_SUCCESS;
    wsgemm_pointer_info last;
    const void *last_byte = (const char *)v->ptr + (bytes - 1);
    if (wsgemm_pointer_query(last_byte, &last) == cudaSuccess && last.kind == info.kind &&
        (info.kind == WSGEMM_MEMORY_MANAGED || last.device == ordinal))
        return WSGEMM_STATUS_SUCCESS;
    return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                              "%s: %s spans %llu bytes from %p (ld%c = %lld, %lld x %lld per matrix, stride%s = %lld, "
                              "%d matrices) but its allocation ends %llu bytes after %s",
                              fn, v->name, bytes, v->ptr, v->name[0] + 32, v->ld, v->rows, v->cols, v->name, v->stride,
                              v->matrices, room, v->name);
}

/* ---------------------------------------------------------------- the pipeline */

/* The call as it runs: with the batch invariance it asks for (a matmul descriptor's ON or ON_N), else the
 * handle's, in its problem. */
static wsgemm_call call_under_settings(const wsgemm_call *asked, const wsgemm_handle_settings *set)
{
    wsgemm_call c = *asked;
    c.problem.batch_invariance =
        asked->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF ? asked->batch_invariance : set->batch_invariance;
    return c;
}

wsgemm_status wsgemm_call_execute(wsgemm_handle h, const wsgemm_call *asked, const wsgemm_handle_settings *settings)
{
    const char *fn = asked->fn;
    const wsgemm_handle_settings set = *settings;
    const wsgemm_call call = call_under_settings(asked, &set);
    const wsgemm_call *c = &call;
    const wsgemm_device_info *dev = NULL;
    wsgemm_status s = current_device(h, fn, &dev);
    if (s == WSGEMM_STATUS_SUCCESS) s = check_stream(h, fn, set.stream, set.stream_device, dev->ordinal);
    for (int i = 0; i < c->operand_count && s == WSGEMM_STATUS_SUCCESS; ++i)
        s = check_operand_memory(h, fn, &c->operands[i], dev->ordinal);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    char reason[WSGEMM_MESSAGE_BYTES] = "";
    s = wsgemm_path_check_forced(set.forced, dev, reason, sizeof reason);
    if (s != WSGEMM_STATUS_SUCCESS) return wsgemm_handle_fail(h, s, "%s: %s", fn, reason);

    wsgemm_workspace lease = wsgemm_workspace_lease(&h->workspace, dev->ordinal);
    wsgemm_launch_ctx ctx = {.stream = set.stream,
                             .device = dev,
                             .workspace = &lease,
                             .plan_only = c->workspace_bytes != NULL,
                             .pdl = (set.launch_mode == WSGEMM_LAUNCH_MODE_PDL || c->pdl) && dev->cc_major >= 9,
                             .message = reason,
                             .message_size = sizeof reason};
    wsgemm_path path = wsgemm_path_choose(c, set.forced, dev, set.stream);
    s = wsgemm_path_run(path, c, &ctx); /* a plan_only call stops after sizing the workspace */
    /* Under batch invariance only a decline the plan made from what stays fixed (types, layouts, the invariant
     * dimensions: docs/api.md, "Batch invariance") goes to generic: a workspace that could not be had this time
     * would send one batch size to another path than the next. */
    const int may_fall_back =
        s == WSGEMM_STATUS_NOT_SUPPORTED ||
        (s == WSGEMM_STATUS_ALLOC_FAILED && c->problem.batch_invariance == WSGEMM_BATCH_INVARIANCE_OFF);
    if (may_fall_back && set.forced == WSGEMM_PATH_AUTO && path != WSGEMM_PATH_GENERIC) {
        /* the fast path declined before touching the output; the generic kernel runs without a workspace when
         * none can be had */
        path = WSGEMM_PATH_GENERIC;
        if (!ctx.plan_only) wsgemm_workspace_release(&lease, set.stream);
        lease = wsgemm_workspace_lease(&h->workspace, dev->ordinal);
        s = wsgemm_path_run(path, c, &ctx);
    }
    if (!ctx.plan_only) wsgemm_workspace_release(&lease, set.stream);
    if (s != WSGEMM_STATUS_SUCCESS)
        return wsgemm_handle_fail(h, s, "%s: path %s: %s", fn, wsgemm_path_name(path), reason);
    if (c->workspace_bytes)
        *c->workspace_bytes = lease.bytes;
    else
        wsgemm_handle_record_path(h, path);
    return WSGEMM_STATUS_SUCCESS;
}
