/*
 * call.h - what api.c offers the public calls defined in other files (gemm/matmul.c): the handle's
 * per-thread message and last path, the layout and memory checks of an operand, and one run of a call
 * (device, stream and pointer checks, the forced path, the workspace lease). C linkage; host C.
 */
#ifndef WSGEMM_CALL_H
#define WSGEMM_CALL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One matrix or vector a call reads or writes, as stored: rows contiguous, cols ld apart. */
typedef struct wsgemm_call_operand {
    const char *name; /* as the message names it: "A", "bias", "a_scale" */
    const void *ptr;
    int elem_bytes;
    long long rows, cols, ld;
} wsgemm_call_operand;

/* SUCCESS with this thread's message on h cleared, or NOT_INITIALIZED (h NULL or destroyed). */
wsgemm_status wsgemm_call_begin(wsgemm_handle h, const char *fn);

/* Write the message of h (valid) for this thread and return status. */
wsgemm_status wsgemm_call_fail(wsgemm_handle h, wsgemm_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* lda and ldb against the rows of A and B as stored (m or k, k or n by the ops); INVALID_VALUE naming the
 * one that is too small. Shared by wsgemm_gemm_ex's checks and wsgemm_matmul's. */
wsgemm_status wsgemm_call_check_ab_ld(wsgemm_handle h, const char *fn, wsgemm_op transa, wsgemm_op transb, int m,
                                      int n, int k, int lda, int ldb);

/* Alignment to the element size and an extent below 2^63 bytes (no CUDA call); INVALID_VALUE naming it. */
wsgemm_status wsgemm_call_check_layout(wsgemm_handle h, const char *fn, const wsgemm_call_operand *op);

/* Record `path` as this thread's last path on h (an empty problem: WSGEMM_PATH_NONE). */
void wsgemm_call_record_path(wsgemm_handle h, wsgemm_path path);

/* Runs one call whose arguments passed their checks: `run` gets the forced path (or AUTO), chooses and
 * runs a path and says which in *ran. It returns SUCCESS, or a status with its reason in ctx->message
 * before touching any output. */
typedef wsgemm_status (*wsgemm_call_runner)(const void *args, wsgemm_path forced, wsgemm_launch_ctx *ctx,
                                            wsgemm_path *ran);

/* The path AUTO gives a GEMM on ctx's device and stream (api.c): sm100 (or sm100-emulated, where asked) once
 * the device passed its self-check, else sm90 on Hopper, else generic. The first call on a device may run the
 * self-check (gemm/sm100/self_check.h). */
wsgemm_path wsgemm_call_auto_path(const wsgemm_launch_ctx *ctx);

/* The device, the stream's device, the memory of each of the `count` operands (device or managed memory of
 * the current device, inside its allocation), the forced path against the device; then a workspace lease,
 * `run`, the release, and the last path or the message "fn: path P: reason". */
wsgemm_status wsgemm_call_run(wsgemm_handle h, const char *fn, const wsgemm_call_operand *ops, int count,
                              wsgemm_call_runner run, const void *args);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_CALL_H */
