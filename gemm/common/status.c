// SPDX-License-Identifier: MIT
/*
 * gemm/common/status.c - see status.h.
 */
#include "common/status.h"

#include <stdarg.h>
#include <stdio.h>

wsgemm_status wsgemm_fail(const wsgemm_launch_ctx *ctx, wsgemm_status status, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    if (ctx->message && ctx->message_size) vsnprintf(ctx->message, ctx->message_size, fmt, args);
    va_end(args);
    return status;
}

void wsgemm_forget_cuda_error(cudaError_t err)
{
    if (err != cudaSuccess && cudaPeekAtLastError() == err) (void)cudaGetLastError();
}
