// SPDX-License-Identifier: MIT
/*
 * internal.h - the launcher contract: what the call pipeline (call.c, paths.c) hands to each kernel path,
 * and what each path promises back. C linkage; included by C and CUDA (the launchers).
 *
 * The public calls (api.c, matmul.c) have already checked every argument when a launcher runs: m, n, k,
 * batch_count > 0, alpha != 0 (in device pointer mode: alpha's value is the kernel's to read), the types
 * are a supported combination, the leading dimensions are legal, the pointers are device memory aligned to
 * their element size, and every operand's footprint (all batch members) lies
 * inside its allocation, so it is below 2^63 bytes and no index of it
 * overflows 64 bits. Each of m, n, k, ld and batch_count is below 2^31. A
 * launcher either runs the whole problem (and returns SUCCESS or CUDA_ERROR)
 * or declines before touching C (NOT_SUPPORTED or ALLOC_FAILED, with a reason).
 * Launchers detect their own CUDA failures from the return values of the
 * launch and API calls, never from cudaGetLastError(), which would take a
 * caller's pending error for ours.
 */
#ifndef WSGEMM_INTERNAL_H
#define WSGEMM_INTERNAL_H

#include <stddef.h>
#include "common/dtype.h"
#include "common/epilogue.h"
#include "wsgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wsgemm_problem {
    wsgemm_op transa, transb;
    int m, n, k;
    float alpha, beta;
    const void *A;
    wsgemm_dtype Atype;
    int lda;
    long long strideA;
    const void *B;
    wsgemm_dtype Btype;
    int ldb;
    long long strideB;
    void *C;
    wsgemm_dtype Ctype;
    int ldc;
    long long strideC;
    int batch_count;
    /* wsgemm_matmul's fused ops (bias, aux, activation) when its epilogue is not DEFAULT; NULL for a GEMM.
     * A path that cannot fuse them declines. */
    const wsgemm_fused_epilogue *fused;
    /* wsgemm_matmul's per-tensor scales of A and B (device floats; NULL: 1): the product is
     * alpha * a_scale * b_scale * op(A) op(B). NULL for a GEMM; a path that cannot apply them declines. */
    const float *a_scale, *b_scale;
    /* wsgemm_matmul's operand scale modes (SCALAR_32F for a GEMM and for per-tensor scales, which are then
     * a_scale and b_scale above) and, for the other modes, the scale tensors (common/scale.h has their layouts;
     * NULL without a product). The generic path takes every mode; the sm90 path the float tensors of E4M3
     * operands (sm90_plan_takes_scales); the sm100 path none but SCALAR_32F (paths.c). */
    wsgemm_matmul_scale_mode a_scale_mode, b_scale_mode;
    const void *a_scales, *b_scales;
    /* WSGEMM_POINTER_MODE_DEVICE: alpha and beta are device floats the kernels read when they run, and alpha
     * and beta above are 1, so that every host decision (a product to form, C read) takes its general
     * variant. Only the generic path takes such a call (paths.c). alpha_dev and beta_dev are NULL in host
     * mode and in a plan-only call (wsgemm_gemm_workspace_size), which launches nothing. */
    int device_scalars;
    const float *alpha_dev, *beta_dev;
    /* wsgemm_gemm_grouped_ex: the grouping (its sizes on the device); NULL for every other call. Then
     * batch_count is the group count, and m or n the grouped matrix's extent (docs/api.md, "Grouped GEMM");
     * the generic path takes every such call, the sm90 path those its grouped plan takes (paths.c). */
    const wsgemm_grouped_desc *grouped;
    /* The batch invariance the call runs under (the handle's, or the matmul descriptor's): ON, every choice
     * that can change an element's arithmetic (path, kernel row, tile width, K split, epilogue) follows from
     * n, k, the types and the layouts only, never from m; ON_N the same with m and n swapped (docs/api.md,
     * "Batch invariance"). */
    wsgemm_batch_invariance batch_invariance;
} wsgemm_problem;

/* Devices a process may use with wsgemm (ordinals 0 .. WSGEMM_MAX_DEVICES - 1); every per-device table
 * holds this many. */
enum { WSGEMM_MAX_DEVICES = 64 };

/* Facts about the device a call runs on, read once per device. */
typedef struct wsgemm_device_info {
    int ordinal;
    int cc_major, cc_minor;
    int sm_count;
    int smem_optin_bytes; /* cudaDevAttrMaxSharedMemoryPerBlockOptin */
    int l2_bytes;
} wsgemm_device_info;

/* One call's device scratch (staged operands, split-K partials): see gemm/common/workspace.h. */
typedef struct wsgemm_workspace wsgemm_workspace;

/* Everything a launcher may use besides the problem. */
typedef struct wsgemm_launch_ctx {
    cudaStream_t stream;
    const wsgemm_device_info *device;
    wsgemm_workspace *workspace;
    int plan_only; /* set by wsgemm_gemm_workspace_size: a launcher returns after its checks and its
                      wsgemm_workspace_reserve (which records the bytes), launching nothing */
    /* programmatic dependent launch (wsgemm_set_launch_mode PDL, on a device of compute capability 9.0 or
     * later): every kernel the launcher starts carries the programmatic stream serialization attribute
     * (gemm/common/pdl.cuh); each kernel waits (griddepcontrol.wait) before its first global access */
    int pdl;
    char *message; /* where a launcher explains a non-SUCCESS status */
    size_t message_size;
} wsgemm_launch_ctx;

/* Take `bytes` of device scratch for this call, 256-byte aligned, usable by work enqueued on ctx->stream
 * until the call returns (it is given back stream-ordered after the call's last kernel). At most once per
 * call. ALLOC_FAILED (C untouched) when none can be had: AUTO then runs a path that needs none. In a
 * plan_only call it records the bytes and returns SUCCESS with *ptr = NULL. */
wsgemm_status wsgemm_workspace_reserve(wsgemm_launch_ctx *ctx, size_t bytes, void **ptr);

/* gemm/generic: runs every valid problem. */
wsgemm_status wsgemm_generic_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);
/* gemm/generic: C = beta * C (beta == 0: C = 0 without reading C), for k == 0
 * or alpha == 0. The generic kernels read p->alpha_dev and p->beta_dev where they are set; a device alpha
 * of 0 skips the product (A and B are then not read), as host mode's alpha == 0 does. */
wsgemm_status wsgemm_generic_scale_c(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);

/* gemm/generic: runs every valid matmul: p->fused is its output op (fp32 accumulation, FP8 operands widened
 * to fp16 exactly; no product when k == 0 or alpha == 0, then A and B may be NULL). */
wsgemm_status wsgemm_generic_matmul(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);

/* gemm/generic: runs every valid grouped call (p->grouped set; k == 0 or alpha == 0: C = beta * C on the
 * groups' slices, A and B unread). */
wsgemm_status wsgemm_generic_grouped(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);

/* gemm/sm90: the Hopper path; declines with NOT_SUPPORTED what it cannot run. */
int wsgemm_sm90_available(void); /* 1 when the build contains the sm90 kernel */
wsgemm_status wsgemm_sm90_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);
/* gemm/sm90: the grouped GEMM along M or N on Hopper (p->grouped set); declines with NOT_SUPPORTED what its plan
 * (sm90/sm90_grouped_plan.h) does not take. */
wsgemm_status wsgemm_sm90_grouped(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);

/* gemm/sm100: the Blackwell path (hardware TMEM), and the same kernel source
 * built for sm_90a against the TMEM emulation. */
int wsgemm_sm100_available(void);
wsgemm_status wsgemm_sm100_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);
int wsgemm_sm100_emulated_available(void);
wsgemm_status wsgemm_sm100_emulated_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_INTERNAL_H */
