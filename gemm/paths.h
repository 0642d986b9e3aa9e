// SPDX-License-Identifier: MIT
/*
 * gemm/paths.h - the kernel paths as the call pipeline sees them: which the build holds and the device runs,
 * AUTO's choice (with the sm100 self-check verdicts), which calls each path takes and with which output op,
 * and the one dispatch to the launchers. The only place where a call's path and its output op are decided.
 * Host C.
 */
#ifndef WSGEMM_PATHS_H
#define WSGEMM_PATHS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Can the device run the forced path at all (ARCH_MISMATCH), and does this build contain it (NOT_SUPPORTED)?
 * The device question comes first. AUTO passes. The reason goes to why (without the function's name). */
wsgemm_status wsgemm_path_check_forced(wsgemm_path forced, const wsgemm_device_info *d, char *why, size_t why_size);

/* The path that runs c: a GEMM without a product (C = beta * C) on the generic path whatever was forced
 * (as BLAS does); else the forced path; else AUTO's: the device's fastest path where it takes the call, the
 * generic path otherwise. AUTO's first choice of sm100 on a device may run the self-check
 * (gemm/sm100/self_check.h). */
wsgemm_path wsgemm_path_choose(const wsgemm_call *c, wsgemm_path forced, const wsgemm_device_info *d,
                               cudaStream_t stream);

/* Run c on `path` (the reason of a non-SUCCESS status in ctx->message): NOT_SUPPORTED before touching any
 * output when the path does not take the call, else the path's launcher with the output op it applies. */
wsgemm_status wsgemm_path_run(wsgemm_path path, const wsgemm_call *c, wsgemm_launch_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_PATHS_H */
