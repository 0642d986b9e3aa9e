// SPDX-License-Identifier: MIT
/*
 * gemm/call.h - the call pipeline every public call goes through once its arguments are checked into a
 * wsgemm_call (problem.h), and the argument checks the public calls share. Host C.
 *
 *   wsgemm_call_execute:
 *     the device (NO_DEVICE without one) and the stream's device
 *     -> the memory of every operand (device or managed memory of the current device, inside its allocation)
 *     -> the forced path against the device and the build
 *     -> a path (paths.c: the forced one, or AUTO's choice) -> a workspace lease -> the path runs (plan, stage,
 *        launch) -> AUTO only: a fast path that declined before touching the output leaves the call to the
 *        generic path -> the lease given back -> the last path, or the message "fn: path P: reason".
 * Every step before the launch can decline; then no output has been touched.
 */
#ifndef WSGEMM_CALL_H
#define WSGEMM_CALL_H

#include "handle.h"
#include "problem.h"
#include "wsgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* lda and ldb against the rows of A and B as stored (m or k, k or n by the ops); INVALID_VALUE naming the
 * one that is too small. */
wsgemm_status wsgemm_call_check_ab_ld(wsgemm_handle h, const char *fn, wsgemm_op transa, wsgemm_op transb, int m, int n,
                                      int k, int lda, int ldb);

/* Alignment to the element size and an extent below 2^63 bytes (no CUDA call); INVALID_VALUE naming it. */
wsgemm_status wsgemm_call_check_layout(wsgemm_handle h, const char *fn, const wsgemm_call_operand *op);

/* Run c on h (valid; c's arguments checked, the problem not empty) with h's settings as the call read them,
once, before its checks (the pointer mode decides some of them). */
wsgemm_status wsgemm_call_execute(wsgemm_handle h, const wsgemm_call *c, const wsgemm_handle_settings *set);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_CALL_H */
