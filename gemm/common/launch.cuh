// SPDX-License-Identifier: MIT
/*
 * gemm/common/launch.cuh - the launch skeleton the fast paths share: one call of a fast path from its problem
 * to its launched kernels, in the order that lets every decline happen before anything runs:
 *
 *   plan      the path's planner (plain C, CPU-tested): tile, cluster, split, epilogue, staging, workspace
 *   reserve   the workspace the plan needs; a plan whose extra bytes only make the call faster (the hybrid's
 *             split region) is made again without them when they cannot be had
 *   stage     point the plan at the copies of the operands TMA cannot address (launched below)
 *   encode    the path's tensor maps and kernel parameters: what TMA cannot describe is declined here
 *   launch    the staging copies, amax_d's reset, the path's kernel, then the fixed-order reductions of a
 *             split plan (split-K partials, or the split region's partial tiles)
 *
 * A path supplies its planner, encoder and kernel launch as a wsgemm_fast_path (sm90/sm90_gemm.cu,
 * sm100/sm100_launch.cu). Device code of the reductions: common/splitk_reduce.cuh, instantiated in each path's
 * translation unit for its architecture. Host code written in C style; included by CUDA translation units only.
 *
 * With ctx->pdl (the launch mode PDL) every kernel launched here carries the programmatic stream
 * serialization attribute, so the call's kernels chain among themselves as they do with the caller's
 * (gemm/common/pdl.cuh); the path's own launch does the same for its kernel. amax_d's reset is a memset,
 * which the next kernel waits for in full.
 */
#ifndef WSGEMM_COMMON_LAUNCH_CUH
#define WSGEMM_COMMON_LAUNCH_CUH

#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "common/dtype.h"
#include "common/plan.h"
#include "common/splitk_reduce.cuh"
#include "common/staging.cuh"
#include "common/status.h"
#include "internal.h"

/* What a fast path's launcher gives the skeleton. The callbacks get `self`, the launcher's own state for one
 * call (its kernel parameters), and report a non-SUCCESS status with its reason through wsgemm_fail(ctx). */
typedef struct wsgemm_fast_path {
    const char *name; /* "sm90", "sm100", "sm100-emulated": the debug line and the launch messages */
    int debug;        /* print every call's plan to stderr (WSGEMM_SM90_DEBUG, WSGEMM_SM100_DEBUG) */
    void *self;
    /* Plan p. lean: without workspace that only makes the call faster. The reason of a failure in why (the
     * skeleton puts it into ctx->message), or, for a failed driver query, already in ctx->message. */
    wsgemm_status (*plan)(void *self, const wsgemm_problem *p, int lean, wsgemm_launch_ctx *ctx, wsgemm_plan *plan,
                          char *why, size_t why_size);
    /* Encode the tensor maps and the kernel's parameters for the staged plan; ws is the workspace. May change
     * plan->epilogue where the driver refuses a TMA-store map (per-element stores serve any output). */
    wsgemm_status (*encode)(void *self, wsgemm_plan *plan, const wsgemm_problem *p, uint8_t *ws,
                            wsgemm_launch_ctx *ctx);
    /* Launch the kernel (and what the path must do just before it), record the tests' probe. */
    wsgemm_status (*launch)(void *self, const wsgemm_plan *plan, const wsgemm_problem *p, wsgemm_launch_ctx *ctx);
} wsgemm_fast_path;

static inline wsgemm_status wsgemm_launch_failed(wsgemm_launch_ctx *ctx, const char *path, const char *what,
                                                 cudaError_t err)
{
    wsgemm_forget_cuda_error(err);
    return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "%s %s failed: %s", path, what, cudaGetErrorString(err));
}

static inline wsgemm_status wsgemm_fast_path_run(const wsgemm_fast_path *fp, const wsgemm_problem *p,
                                                 wsgemm_launch_ctx *ctx)
{
    /* plan */
    wsgemm_plan plan;
    char why[256] = "";
    wsgemm_status s = fp->plan(fp->self, p, 0, ctx, &plan, why, sizeof why);
    if (s != WSGEMM_STATUS_SUCCESS) return why[0] ? wsgemm_fail(ctx, s, "%s", why) : s;

    /* reserve */
    void *ws_ptr = NULL;
    if (plan.workspace_bytes > 0) {
        s = wsgemm_workspace_reserve(ctx, plan.workspace_bytes, &ws_ptr);
        if (s == WSGEMM_STATUS_ALLOC_FAILED && plan.sched.sk_splits > 1) {
            /* the split region's partial tiles only make the call faster: without room for them it runs the
             * lean plan (which may need the staged copies' bytes alone, or none) */
            s = fp->plan(fp->self, p, 1, ctx, &plan, why, sizeof why);
            if (s != WSGEMM_STATUS_SUCCESS) return why[0] ? wsgemm_fail(ctx, s, "%s", why) : s;
            if (plan.workspace_bytes > 0) s = wsgemm_workspace_reserve(ctx, plan.workspace_bytes, &ws_ptr);
        }
        if (s != WSGEMM_STATUS_SUCCESS) return s;
    }
    if (ctx->plan_only) return WSGEMM_STATUS_SUCCESS;
    uint8_t *ws = (uint8_t *)ws_ptr;

    /* stage: the kernel reads the copies (launched below, once nothing can be declined any more) */
    wsgemm_operand *const staged[2] = {&plan.a, &plan.b};
    wsgemm_operand src[2] = {};                        /* the originals of the staged operands */
    const int fp8 = wsgemm_dtype_is_fp8(plan.ab_type); /* FP8 copies are K-major (staging.h) */
    wsgemm_use_staged_copies(staged, src, 2, ws, fp8, p->k);

    /* encode: what TMA cannot describe is declined before anything is launched */
    s = fp->encode(fp->self, &plan, p, ws, ctx);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (fp->debug) {
        char line[640];
        wsgemm_plan_describe(&plan, p, line, sizeof line);
        fprintf(stderr, "wsgemm %s: %s\n", fp->name, line);
    }

    /* launch */
    cudaError_t err = wsgemm_launch_stagings(src, staged, 2, fp8, p->k, ctx->stream, ctx->pdl);
    if (err != cudaSuccess) return wsgemm_launch_failed(ctx, fp->name, "operand staging launch", err);
    if (p->fused && p->fused->amax) { /* amax_d starts from 0; the kernel's warps raise it */
        err = cudaMemsetAsync(p->fused->amax, 0, sizeof(float), ctx->stream);
        if (err != cudaSuccess) return wsgemm_launch_failed(ctx, fp->name, "resetting amax_d", err);
    }
    s = fp->launch(fp->self, &plan, p, ctx);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (plan.sched.sk_splits > 1) {
        wsgemm_sk_tiles tiles;
        tiles.part = (const float *)(ws + plan.partials_offset);
        tiles.sched = plan.sched;
        tiles.tile_p = plan.bm;
        tiles.tile_q = plan.bn;
        tiles.swap = plan.swap;
        err = wsgemm_sk_reduce_launch(&tiles, p, ctx->device->sm_count, ctx->stream, ctx->pdl);
        if (err != cudaSuccess) return wsgemm_launch_failed(ctx, fp->name, "split-region reduction launch", err);
    }
    if (plan.splits > 1) {
        err = wsgemm_splitk_reduce_launch((const float *)(ws + plan.partials_offset), plan.splits, p,
                                          ctx->device->sm_count, ctx->stream, ctx->pdl);
        if (err != cudaSuccess) return wsgemm_launch_failed(ctx, fp->name, "split-K reduction launch", err);
    }
    return WSGEMM_STATUS_SUCCESS;
}

#endif /* WSGEMM_COMMON_LAUNCH_CUH */
