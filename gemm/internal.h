/*
 * internal.h - what api.c hands to each kernel path, and what each path
 * promises back. C linkage; included by C (api.c) and CUDA (launchers).
 *
 * api.c has already checked every argument when a launcher runs: m, n, k,
 * batch_count > 0, alpha != 0, the types are a supported combination, the
 * leading dimensions are legal, the pointers are device memory aligned to
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
    int plan_only;      /* set by wsgemm_gemm_workspace_size: a launcher returns after its checks and its
                           wsgemm_workspace_reserve (which records the bytes), launching nothing */
    char *message;      /* where a launcher explains a non-SUCCESS status */
    size_t message_size;
} wsgemm_launch_ctx;

/* Take `bytes` of device scratch for this call, 256-byte aligned, usable by work enqueued on ctx->stream
 * until the call returns (it is given back stream-ordered after the call's last kernel). At most once per
 * call. ALLOC_FAILED (C untouched) when none can be had: AUTO then runs a path that needs none. In a
 * plan_only call it records the bytes and returns SUCCESS with *ptr = NULL. */
wsgemm_status wsgemm_workspace_reserve(wsgemm_launch_ctx *ctx, size_t bytes, void **ptr);

/* A CUDA runtime call of ours failed with err: clear it from the runtime's last-error slot (the caller's
 * own pending error, if any, was already replaced by it), so it is not reported again by the caller's
 * next cudaGetLastError. Never called on success paths, so a caller's pending error survives them. */
void wsgemm_forget_cuda_error(cudaError_t err);

/* Write a formatted explanation into ctx->message and return `status`. */
wsgemm_status wsgemm_fail(const wsgemm_launch_ctx *ctx, wsgemm_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Bytes per element of a dtype (2 or 4). */
int wsgemm_dtype_size(wsgemm_dtype t);

/* A launcher's tuning knob from the environment (WSGEMM_SM90_*, WSGEMM_SM100_*): its integer value, or
 * `fallback` when the variable is unset or empty. Read on every call, so a test can change it in-process. */
int wsgemm_env_int(const char *name, int fallback);

/* gemm/generic: runs every valid problem. */
wsgemm_status wsgemm_generic_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);
/* gemm/generic: C = beta * C (beta == 0: C = 0 without reading C), for k == 0
 * or alpha == 0. */
wsgemm_status wsgemm_generic_scale_c(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);

/* A wsgemm_matmul call after its checks (gemm/matmul.c): the product as a wsgemm_problem whose C is the
 * output D (Ctype = Dtype, ldc = ldd, batch_count 1; alpha, beta the host values; A and B may be FP8),
 * and everything else the output op reads. alpha == 0 or k == 0: no product (A and B may be NULL). */
typedef struct wsgemm_matmul_problem {
    wsgemm_problem gemm;
    wsgemm_fused_epilogue fused;
} wsgemm_matmul_problem;

/* gemm/generic: runs every valid matmul (fp32 accumulation, FP8 operands widened to fp16 exactly). */
wsgemm_status wsgemm_generic_matmul(const wsgemm_matmul_problem *p, wsgemm_launch_ctx *ctx);

/* gemm/sm90: the Hopper path; declines with NOT_SUPPORTED what it cannot run. */
int wsgemm_sm90_available(void); /* 1 when the build contains the sm90 kernel */
wsgemm_status wsgemm_sm90_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx);

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
