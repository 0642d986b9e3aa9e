// SPDX-License-Identifier: MIT
/*
 * gemm/common/status.h - how a launcher or a service reports a failure: the explanation of a non-SUCCESS
 * status written into the call's context, and a CUDA error of ours taken out of the runtime's last-error slot.
 * Host C; the bottom of the host code (it calls nothing of wsgemm's).
 */
#ifndef WSGEMM_COMMON_STATUS_H
#define WSGEMM_COMMON_STATUS_H

#include <cuda_runtime_api.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write a formatted explanation into ctx->message and return `status`. */
wsgemm_status wsgemm_fail(const wsgemm_launch_ctx *ctx, wsgemm_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A CUDA runtime call of ours failed with err: clear it from the runtime's last-error slot (the caller's
 * own pending error, if any, was already replaced by it), so it is not reported again by the caller's
 * next cudaGetLastError. Never called on success paths, so a caller's pending error survives them. */
void wsgemm_forget_cuda_error(cudaError_t err);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_STATUS_H */
