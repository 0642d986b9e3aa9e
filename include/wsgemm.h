// SPDX-License-Identifier: MIT
/*
 * wsgemm.h - the one public header of wsgemm, a warp-specialized GEMM library.
 *
 * A drop-in replacement for cublasGemmEx / cublasGemmStridedBatchedEx: same
 * argument order, column-major storage, C = alpha * op(A) * op(B) + beta * C
 * with fp32 accumulation, alpha and beta read from host memory (or, after
 * wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE), from device memory).
 *
 * Swapping a cuBLAS call is mechanical:
 *   cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, A, CUDA_R_16BF, lda,
 *                B, CUDA_R_16BF, ldb, &beta, C, CUDA_R_16BF, ldc,
 *                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
 *   wsgemm_gemm_ex(h, WSGEMM_OP_N, WSGEMM_OP_T, m, n, k, &alpha, A, WSGEMM_R_16BF, lda,
 *                  B, WSGEMM_R_16BF, ldb, &beta, C, WSGEMM_R_16BF, ldc);
 * The enum values of wsgemm_op and wsgemm_dtype equal cuBLAS's and CUDA's, so
 * a cast also works.
 *
 * Every function returns a status; on any status other than SUCCESS the
 * output C has not been touched and wsgemm_get_last_error_message() names the
 * offending argument.
 *
 * Threads: any function may be called from several host threads at once, also
 * with the same handle (as cuBLAS allows); the error message and the last path
 * are kept per thread. Streams and graphs: every call is stream-ordered on the
 * handle's stream and may be captured into a CUDA graph (docs/api.md, "The
 * contract").
 */
#ifndef WSGEMM_H
#define WSGEMM_H

#include <stddef.h> /* size_t */

#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header (the build reads it from here: CMake's project version, the package
 * files). wsgemm_get_version() reports the version of the library actually linked or loaded.
 * WSGEMM_VERSION is one number for #if: 10000 * major + 100 * minor + patch. */
#define WSGEMM_VERSION_MAJOR 0
#define WSGEMM_VERSION_MINOR 2
#define WSGEMM_VERSION_PATCH 0
#define WSGEMM_VERSION       (WSGEMM_VERSION_MAJOR * 10000 + WSGEMM_VERSION_MINOR * 100 + WSGEMM_VERSION_PATCH)

typedef enum wsgemm_status {
    WSGEMM_STATUS_SUCCESS = 0,
    WSGEMM_STATUS_NOT_INITIALIZED = 1, /* null or destroyed handle */
    WSGEMM_STATUS_INVALID_VALUE = 2,   /* an argument is out of range */
    WSGEMM_STATUS_NOT_SUPPORTED = 3,   /* valid, but this type combination or path cannot do it */
    WSGEMM_STATUS_ARCH_MISMATCH = 4,   /* a forced path the current GPU cannot run */
    WSGEMM_STATUS_NO_DEVICE = 5,       /* no CUDA device (or no driver) */
    WSGEMM_STATUS_ALLOC_FAILED = 6,    /* host or workspace allocation failed */
    WSGEMM_STATUS_CUDA_ERROR = 7,      /* a CUDA call or a kernel launch failed */
    WSGEMM_STATUS_INTERNAL_ERROR = 8   /* a self-check of wsgemm failed */
} wsgemm_status;

/* The cublasStatus_t value (as an int: this header does not include cublas_api.h) a cuBLAS caller expects
 * for status: SUCCESS, NOT_INITIALIZED, ALLOC_FAILED, ARCH_MISMATCH, NOT_SUPPORTED and INTERNAL_ERROR map to
 * the cuBLAS status of the same name, INVALID_VALUE to CUBLAS_STATUS_INVALID_VALUE (7), NO_DEVICE to
 * CUBLAS_STATUS_NOT_INITIALIZED (what cublasCreate returns without a device), CUDA_ERROR to
 * CUBLAS_STATUS_EXECUTION_FAILED; a value that is no wsgemm_status to CUBLAS_STATUS_INTERNAL_ERROR. */
int wsgemm_status_to_cublas(wsgemm_status status);

/* Values equal cublasOperation_t's. */
typedef enum wsgemm_op {
    WSGEMM_OP_N = 0, /* op(X) = X */
    WSGEMM_OP_T = 1  /* op(X) = X^T */
} wsgemm_op;

/* Values equal cudaDataType_t's (CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF, CUDA_R_8F_E4M3, CUDA_R_8F_E5M2).
 * The FP8 types are taken by wsgemm_matmul only. */
typedef enum wsgemm_dtype {
    WSGEMM_R_32F = 0,
    WSGEMM_R_16F = 2,
    WSGEMM_R_16BF = 14,
    WSGEMM_R_8F_E4M3 = 28,
    WSGEMM_R_8F_E5M2 = 29
} wsgemm_dtype;

/* Kernel paths. AUTO picks the fastest path the device and problem allow. */
typedef enum wsgemm_path {
    WSGEMM_PATH_AUTO = 0,
    WSGEMM_PATH_GENERIC = 1,        /* mma.sync kernel, any problem, sm_80 and later */
    WSGEMM_PATH_SM90 = 2,           /* TMA + wgmma warp-specialized kernel, sm_90a (H100/H200) */
    WSGEMM_PATH_SM100 = 3,          /* TMA + tcgen05 warp-specialized kernel, sm_100a (B200) */
    WSGEMM_PATH_SM100_EMULATED = 4, /* the SM100 kernel source on sm_90a with TMEM and the
                                       tensor core emulated (verification builds only) */
    WSGEMM_PATH_NONE = 5            /* reported only: the last call launched no kernel */
} wsgemm_path;

/* Where alpha and beta live; values equal cublasPointerMode_t's. */
typedef enum wsgemm_pointer_mode {
    WSGEMM_POINTER_MODE_HOST = 0,  /* host floats, read during the call (the default) */
    WSGEMM_POINTER_MODE_DEVICE = 1 /* device floats, read by the kernels in stream order (docs/api.md) */
} wsgemm_pointer_mode;

/* How the calls launch their kernels (docs/api.md, "Programmatic dependent launch"). */
typedef enum wsgemm_launch_mode {
    WSGEMM_LAUNCH_MODE_DEFAULT = 0, /* each kernel starts when the stream's previous work has finished */
    WSGEMM_LAUNCH_MODE_PDL = 1      /* programmatic dependent launch (sm_90 and later): a kernel may start its
                                       prologue while the stream's previous kernel finishes */
} wsgemm_launch_mode;

/* Batch invariance (docs/api.md, "Batch invariance"): whether a row (or column) of C may depend on how many
 * other rows (columns) the call computes. OFF lets every plan choice follow the whole shape. ON: each row of C
 * is bit-identical whatever m is, at fixed n, k, transposes, types, alpha, beta, leading dimensions and
 * operand alignment (the kernel, its tile, its K split and every order of summation are chosen from n, k and
 * the types only). ON_N: the same for each column of C whatever n is, at fixed m and k (a PyTorch linear
 * layer's column-major GEMM has n = tokens). */
typedef enum wsgemm_batch_invariance {
    WSGEMM_BATCH_INVARIANCE_OFF = 0,
    WSGEMM_BATCH_INVARIANCE_ON = 1,  /* rows of C invariant in m */
    WSGEMM_BATCH_INVARIANCE_ON_N = 2 /* columns of C invariant in n */
} wsgemm_batch_invariance;

typedef struct wsgemm_context *wsgemm_handle;

/* Handle life cycle. create needs no GPU; the device is looked up per call.
 * destroy does not wait for the GPU: kernels already queued keep running on
 * memory they own (see docs/api.md); a destroyed handle is refused with
 * NOT_INITIALIZED, also when destroyed twice. */
wsgemm_status wsgemm_create(wsgemm_handle *handle);
wsgemm_status wsgemm_destroy(wsgemm_handle handle);
wsgemm_status wsgemm_set_stream(wsgemm_handle handle, cudaStream_t stream);
wsgemm_status wsgemm_get_stream(wsgemm_handle handle, cudaStream_t *stream);

/* Force a kernel path (or AUTO). A forced path the device cannot run makes
 * the GEMM calls return ARCH_MISMATCH; a path the build lacks, NOT_SUPPORTED. */
wsgemm_status wsgemm_set_path(wsgemm_handle handle, wsgemm_path path);
wsgemm_status wsgemm_get_path(wsgemm_handle handle, wsgemm_path *path);
/* The path the last successful GEMM call of this thread on this handle ran. */
wsgemm_status wsgemm_get_last_path(wsgemm_handle handle, wsgemm_path *path);

/* As cublasSetPointerMode / cublasGetPointerMode: where the GEMM calls (gemm_ex, strided batched, matmul)
 * read alpha and beta. DEVICE: alpha and beta point to device (or managed) floats of the current device,
 * read by the kernels when they run (stream-ordered, capturable, no host synchronization); the results are
 * those of HOST mode with the same values (*beta == 0 still never reads C). DEVICE mode runs the generic
 * kernel: AUTO takes it, a forced fast path returns NOT_SUPPORTED (docs/api.md, "Pointer mode"). */
wsgemm_status wsgemm_set_pointer_mode(wsgemm_handle handle, wsgemm_pointer_mode mode);
wsgemm_status wsgemm_get_pointer_mode(wsgemm_handle handle, wsgemm_pointer_mode *mode);

/* How the GEMM calls (gemm_ex, strided batched, matmul) launch their kernels; DEFAULT unless set. PDL: every
 * kernel of a call is launched with programmatic stream serialization, so on a device of compute capability
 * 9.0 or later it may be scheduled while the kernel before it in the stream (the call's own previous kernel,
 * or the caller's) is still running. Each wsgemm kernel does only its prologue (barrier set-up, tensor-map
 * prefetch, TMEM allocation) before it waits, on the device, for the previous kernel to complete and its
 * memory to be visible: results are those of DEFAULT, graph capture keeps working, and a kernel of the
 * caller's launched with the same attribute after a wsgemm call must wait likewise (griddepcontrol.wait, or
 * cudaGridDependencySynchronize) before it reads the call's output. Before sm_90: DEFAULT (docs/api.md). */
wsgemm_status wsgemm_set_launch_mode(wsgemm_handle handle, wsgemm_launch_mode mode);
wsgemm_status wsgemm_get_launch_mode(wsgemm_handle handle, wsgemm_launch_mode *mode);

/* The batch invariance of the GEMM calls (gemm_ex, strided batched, matmul; the workspace size query plans
 * under it too); OFF unless set. ON and ON_N cost speed where the default plan would have chosen by the
 * varying dimension (docs/api.md, "Batch invariance"). INVALID_VALUE for a value that is none of the three. */
wsgemm_status wsgemm_set_batch_invariance(wsgemm_handle handle, wsgemm_batch_invariance mode);
wsgemm_status wsgemm_get_batch_invariance(wsgemm_handle handle, wsgemm_batch_invariance *mode);

/* C = alpha * op(A) * op(B) + beta * C, column-major; op(A) is m x k, op(B)
 * is k x n, C is m x n. A, B and C: device or managed memory of the current
 * device, aligned to their element size, each matrix (all batch members)
 * inside its allocation. A and B: both WSGEMM_R_16BF or both WSGEMM_R_16F.
 * C: WSGEMM_R_16BF, WSGEMM_R_16F or WSGEMM_R_32F. alpha and beta point to
 * host floats (device floats in WSGEMM_POINTER_MODE_DEVICE). m == 0 or n == 0
 * is a successful no-op; k == 0 or *alpha == 0 gives C = beta * C; *beta == 0
 * writes C without reading it. */
wsgemm_status wsgemm_gemm_ex(wsgemm_handle handle, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                             const float *alpha, const void *A, wsgemm_dtype Atype, int lda, const void *B,
                             wsgemm_dtype Btype, int ldb, const float *beta, void *C, wsgemm_dtype Ctype, int ldc);

/* batch_count independent GEMMs; matrix i starts at A + i * strideA elements
 * (likewise B and C). Strides of A and B may be 0 (a shared operand); the C
 * matrices must not overlap: strideC >= (n - 1) * ldc + m when
 * batch_count > 1, or all of them interleaved within the rows of one column
 * (strideC >= m and (batch_count - 1) * strideC + m <= ldc). */
wsgemm_status wsgemm_gemm_strided_batched_ex(wsgemm_handle handle, wsgemm_op transa, wsgemm_op transb, int m, int n,
                                             int k, const float *alpha, const void *A, wsgemm_dtype Atype, int lda,
                                             long long strideA, const void *B, wsgemm_dtype Btype, int ldb,
                                             long long strideB, const float *beta, void *C, wsgemm_dtype Ctype, int ldc,
                                             long long strideC, int batch_count);

/* ---------------------------------------------------------------- matmul: epilogues and FP8
 *
 * D = epilogue(alpha * a_scale * b_scale * op(A) op(B) + beta * c_scale * C) * d_scale, as cublasLtMatmul
 * computes it (docs/api.md, "Matmul"). The epilogue values equal cublasLtEpilogue_t's; a cublasLtEpilogue_t
 * value not listed here (DRELU, DGELU, BGRADA, ...) is NOT_SUPPORTED, a value that is no epilogue at all
 * INVALID_VALUE. */
typedef enum wsgemm_matmul_epilogue {
    WSGEMM_MATMUL_EPILOGUE_DEFAULT = 1,        /* nothing after the sum */
    WSGEMM_MATMUL_EPILOGUE_RELU = 2,           /* max(x, 0) */
    WSGEMM_MATMUL_EPILOGUE_BIAS = 4,           /* x + bias[row] */
    WSGEMM_MATMUL_EPILOGUE_RELU_BIAS = 6,      /* max(x + bias[row], 0) */
    WSGEMM_MATMUL_EPILOGUE_GELU = 32,          /* gelu(x), the tanh approximation */
    WSGEMM_MATMUL_EPILOGUE_GELU_BIAS = 36,     /* gelu(x + bias[row]) */
    WSGEMM_MATMUL_EPILOGUE_GELU_AUX = 160,     /* gelu(x), and x written to aux */
    WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS = 164 /* gelu(x + bias[row]), and x + bias[row] written to aux */
} wsgemm_matmul_epilogue;

/* How a_scale (b_scale) scales op(A) (op(B)) of an FP8 matmul; values equal cublasLtMatmulMatrixScale_t's
 * (CUBLASLT_MATMUL_MATRIX_SCALE_*). Every tensor below is packed, column-major and indexed in the frame of
 * op(A) (m x k) and op(B) (k x n), whatever transa and transb are; kb = ceil(k / 128) 128-K blocks (the last
 * one holds k - 128 (kb - 1) elements when 128 does not divide k), k32 = k / 32 (k a multiple of 32),
 * mb = ceil(m / 128), nb = ceil(n / 128):
 *   SCALAR_32F      one float (or NULL: 1) for the whole operand: the 0.2 behaviour.
 *   OUTER_VEC_32F   A: m floats, element i scales row i of op(A); B: n floats, element j column j of op(B).
 *   VEC128_32F      A: an m x kb matrix (ld m), element (i, b) scales op(A)(i, 128 b .. 128 b + 127): row i
 *                   fastest; B: an n x kb matrix (ld n), element (j, b) scales op(B)(128 b .., j): column
 *                   j fastest (the 1 x 128 activation scales of DeepSeek-V3, MN-major as DeepGEMM reads them).
 *   BLK128x128_32F  A: a kb x mb matrix (ld kb), element (b, r) scales the 128 x 128 block of op(A) at rows
 *                   128 r .., k 128 b ..: the K block fastest; B: a kb x nb matrix (ld kb), element (b, c) the
 *                   block at k 128 b .., columns 128 c .. (the 128 x 128 weight scales of DeepSeek-V3).
 *   VEC32_UE8M0     A: an m x k32 matrix of bytes (ld m), element (i, b) scales op(A)(i, 32 b .. 32 b + 31);
 *                   B: an n x k32 matrix (ld n), element (j, b) op(B)(32 b .., j); rows (columns) fastest. A
 *                   byte e is 2^(e - 127), e = 255 NaN (OCP MX v1.0 E8M0); a_scale/b_scale point at the bytes
 *                   (cast to const float *). Not cuBLASLt's swizzled MX layout.
 * Accepted pairs (a_scale_mode, b_scale_mode), FP8 A and B only: (SCALAR, SCALAR), (OUTER_VEC, OUTER_VEC),
 * (VEC32_UE8M0, VEC32_UE8M0), and any pair of VEC128_32F and BLK128x128_32F. Other pairs: NOT_SUPPORTED; a
 * value that is no mode: INVALID_VALUE. docs/api.md, "Block-scaled FP8", has the arithmetic. */
typedef enum wsgemm_matmul_scale_mode {
    WSGEMM_MATMUL_SCALE_SCALAR_32F = 0,
    WSGEMM_MATMUL_SCALE_VEC32_UE8M0 = 2,
    WSGEMM_MATMUL_SCALE_OUTER_VEC_32F = 3,
    WSGEMM_MATMUL_SCALE_VEC128_32F = 4,
    WSGEMM_MATMUL_SCALE_BLK128x128_32F = 5
} wsgemm_matmul_scale_mode;

/* What a matmul computes besides the shape and the operands (cublasLtMatmulDesc_t plus the matrix types).
 * The struct can grow in a later version without breaking binaries built against this one: `size` says how
 * many bytes of it the caller has (sizeof(wsgemm_matmul_desc) of the caller's header), and the library reads
 * only those, giving fields beyond them their defaults. wsgemm_matmul_desc_init sets size and the defaults;
 * set fields after it. A designated initializer must set .size = sizeof(wsgemm_matmul_desc) itself (and
 * .epilogue: 0 is no epilogue). */
typedef struct wsgemm_matmul_desc {
    size_t size; /* bytes of this struct the caller holds: sizeof(wsgemm_matmul_desc) of the 0.2 header (the
                    struct up to amax_d), of a header with the scale modes but no launch_mode, of one that ends
                    at launch_mode, or of this one;
                    any other size is INVALID_VALUE, more than this version's NOT_SUPPORTED */
    wsgemm_op transa, transb;
    wsgemm_dtype Atype, Btype; /* both 16BF, both 16F, or both FP8 (E4M3/E5M2, not both E5M2) */
    wsgemm_dtype Ctype, Dtype; /* Ctype == Dtype (16BF, 16F, 32F); or Dtype 8F_E4M3 with Ctype 16BF or 16F */
    wsgemm_matmul_epilogue epilogue;
    const void *bias;       /* device vector of m elements (epilogues with BIAS) */
    wsgemm_dtype bias_type; /* 16BF, 16F or 32F */
    void *aux;              /* device m x n matrix, column-major, leading dimension ldaux (the AUX epilogues) */
    wsgemm_dtype aux_type;  /* 16BF, 16F or 32F */
    int ldaux;
    const float *a_scale, *b_scale, *c_scale, *d_scale; /* device floats; NULL means 1 (a_scale, b_scale:
                                                           the scale tensors of their modes below) */
    float *amax_d; /* device float: max |value| of D before d_scale; NULL: not computed */
    /* added after 0.2 (a 0.2-sized struct gets SCALAR_32F for both): */
    wsgemm_matmul_scale_mode a_scale_mode, b_scale_mode; /* what a_scale and b_scale point to */
    /* added after the scale modes (a struct that ends before it gets DEFAULT): PDL launches this call's kernels
     * as wsgemm_set_launch_mode's PDL does; DEFAULT takes the handle's launch mode */
    wsgemm_launch_mode launch_mode;
    /* added after launch_mode (a struct that ends before it gets OFF): ON or ON_N makes this call batch
     * invariant so (wsgemm_set_batch_invariance) whatever the handle's setting; OFF takes the handle's */
    wsgemm_batch_invariance batch_invariance;
} wsgemm_matmul_desc;

/* *desc = {size, transa, transb, ab_type, ab_type, cd_type, cd_type, DEFAULT, no bias (bias_type 16BF), no aux
 * (aux_type cd_type, or 16BF for an FP8 cd_type), no scales, no amax, both scale modes SCALAR_32F, launch mode
 * DEFAULT, batch invariance OFF (the handle's)}, writing
 * `size` bytes of it (the caller's sizeof(wsgemm_matmul_desc), which the macro passes). INVALID_VALUE for desc
 * NULL or a size below the 0.2 struct or between it and this version's; NOT_SUPPORTED for a size above this
 * version's (a newer header than this library). */
wsgemm_status wsgemm_matmul_desc_init_sized(wsgemm_matmul_desc *desc, size_t size, wsgemm_op transa, wsgemm_op transb,
                                            wsgemm_dtype ab_type, wsgemm_dtype cd_type);
#define wsgemm_matmul_desc_init(desc, transa, transb, ab_type, cd_type) \
    wsgemm_matmul_desc_init_sized((desc), sizeof(wsgemm_matmul_desc), (transa), (transb), (ab_type), (cd_type))

/* D = (the desc's formula), column-major; op(A) is m x k, op(B) k x n, C and D m x n. alpha and beta are
 * host floats (device floats in WSGEMM_POINTER_MODE_DEVICE). C is read only when beta != 0 (in HOST mode it
 * may then be NULL; DEVICE mode needs C); C == D (with ldc == ldd and Ctype == Dtype) updates in place.
 * desc->size as wsgemm_matmul_desc says. Checks, statuses and "D untouched on error" as wsgemm_gemm_ex. */
wsgemm_status wsgemm_matmul(wsgemm_handle handle, const wsgemm_matmul_desc *desc, int m, int n, int k,
                            const float *alpha, const void *A, int lda, const void *B, int ldb, const float *beta,
                            const void *C, int ldc, void *D, int ldd);

/* ---------------------------------------------------------------- grouped GEMM (mixture of experts)
 *
 * group_count GEMMs of one shape family whose sizes along one dimension live in device memory: each expert
 * multiplies its slice of the tokens by its own weights (docs/api.md, "Grouped GEMM"). Column-major as every
 * call; the grouped dimension is M (rows of op(A) and C), N (columns of op(B) and C) or K. A row-major torch
 * tensor [tokens, k] is a column-major k x tokens matrix, so torch._grouped_mm's layout is DIM_N with the
 * weights as A (the Python module does this swap). */
typedef enum wsgemm_grouped_layout {
    WSGEMM_GROUPED_CONTIGUOUS = 0, /* every group's slice in one matrix: sizes[g] is the cumulative end of
                                      group g (torch._grouped_mm's offs); group g is [sizes[g-1], sizes[g]),
                                      sizes[-1] = 0 */
    WSGEMM_GROUPED_MASKED = 1      /* one matrix per group of a fixed capacity (m or n of the call):
                                      sizes[g] is the count of group g, which takes [0, sizes[g]) */
} wsgemm_grouped_layout;

typedef enum wsgemm_grouped_dim {
    WSGEMM_GROUPED_DIM_M = 0, /* groups split the rows of op(A) and C; B is a strided batch, one per group */
    WSGEMM_GROUPED_DIM_N = 1, /* groups split the columns of op(B) and C; A is a strided batch, one per group */
    WSGEMM_GROUPED_DIM_K = 2  /* groups split K of op(A) and op(B) (the weight gradient); C is a strided
                                 batch, one m x n matrix per group */
} wsgemm_grouped_dim;

/* What the device-side status (wsgemm_grouped_desc.status) holds after the kernel ran: 0 when every group's
 * sizes keep the contract, else g + 1 for the first group g that breaks it (a contiguous end below the
 * largest end before it or above the grouped extent, a negative size, a masked count above the capacity).
 * Such groups are skipped (their part of C untouched); the others are computed. */
#define WSGEMM_GROUPED_SIZES_OK 0

/* The grouping of a grouped call. Like wsgemm_matmul_desc it can grow: `size` is sizeof(wsgemm_grouped_desc)
 * of the caller's header, set by wsgemm_grouped_desc_init. */
typedef struct wsgemm_grouped_desc {
    size_t size;
    wsgemm_grouped_layout layout;
    wsgemm_grouped_dim dim;
    int group_count;  /* >= 0; 0 is a quick return */
    const int *sizes; /* device int32[group_count]: the ends (CONTIGUOUS) or the counts (MASKED), read by the
                         kernel in stream order: never by the host, so a captured graph replays with new values */
    int *status;      /* optional device int32 the kernel writes (WSGEMM_GROUPED_SIZES_OK or g + 1); NULL: none */
    wsgemm_launch_mode launch_mode; /* PDL: this call's kernels use programmatic dependent launch whatever the
                                       handle's launch mode; DEFAULT: the handle's decides */
} wsgemm_grouped_desc;

/* *desc = {size, layout, dim, group_count, sizes, status NULL, launch_mode DEFAULT}, writing `size` bytes (the
 * macro passes the caller's sizeof). INVALID_VALUE for desc NULL or a size that is not this version's. */
wsgemm_status wsgemm_grouped_desc_init_sized(wsgemm_grouped_desc *desc, size_t size, wsgemm_grouped_layout layout,
                                             wsgemm_grouped_dim dim, int group_count, const int *sizes);
#define wsgemm_grouped_desc_init(desc, layout, dim, group_count, sizes) \
    wsgemm_grouped_desc_init_sized((desc), sizeof(wsgemm_grouped_desc), (layout), (dim), (group_count), (sizes))

/* For each group g that keeps the contract, C_g = alpha * op(A_g) op(B_g) + beta * C_g on its rows (DIM_M)
 * or columns (DIM_N), cuBLAS's argument order and types (A, B 16BF or 16F, C 16BF, 16F or 32F, fp32
 * accumulation, alpha and beta host floats). m, n, k: the matrices' extents as the host knows them; along the
 * grouped dimension that is the grouped matrix's extent (CONTIGUOUS: the total, an upper bound of the last
 * end) or the capacity (MASKED). The operands that are grouped (A and C for DIM_M, B and C for DIM_N, A and B
 * for DIM_K) are one matrix each in CONTIGUOUS (their strides must be 0) and group_count matrices `stride`
 * apart in MASKED; the others are always group_count matrices (stride 0: one shared by all; C of DIM_K
 * disjoint). k == 0 or alpha == 0 gives C = beta * C on the groups' slices (A and B may then be NULL); along
 * K, a group's slice is all of C_g and an empty K slice gives C_g = beta * C_g. Parts of C outside every
 * group's slice are never touched. The call reads no size on the host, allocates nothing and synchronizes
 * nothing: capturable, and a graph replays with the new contents of sizes. Checks, statuses and messages as
 * wsgemm_gemm_ex; the generic kernel runs it (a forced fast path: NOT_SUPPORTED); WSGEMM_POINTER_MODE_DEVICE:
 * NOT_SUPPORTED. */
wsgemm_status wsgemm_gemm_grouped_ex(wsgemm_handle handle, const wsgemm_grouped_desc *grouped, wsgemm_op transa,
                                     wsgemm_op transb, int m, int n, int k, const float *alpha, const void *A,
                                     wsgemm_dtype Atype, int lda, long long strideA, const void *B, wsgemm_dtype Btype,
                                     int ldb, long long strideB, const float *beta, void *C, wsgemm_dtype Ctype,
                                     int ldc, long long strideC);

/* Device workspace (staged copies of operands TMA cannot address, split-K
 * partials). By default each call that needs one takes it stream-ordered on
 * its own stream (cudaMallocFromPoolAsync / cudaFreeAsync, or a graph's own
 * allocation node under capture), so no two calls ever share it.
 *
 * wsgemm_set_workspace hands wsgemm caller-owned device memory instead (as
 * cublasSetWorkspace): calls use it and allocate nothing. A call needing more
 * than `bytes` runs a path that needs none under AUTO (a forced path returns
 * ALLOC_FAILED); workspace = NULL with bytes = 0 means "never any workspace".
 * Calls on different streams are ordered on it by an event; under graph
 * capture a workspace last used outside that capture is not used (AUTO runs a
 * path without one). The memory must stay valid while calls or captured graphs
 * that use it can run; it serves calls on the device it was allocated on.
 * 256-byte alignment required.
 * wsgemm_reset_workspace returns to the stream-ordered default. */
wsgemm_status wsgemm_set_workspace(wsgemm_handle handle, void *workspace, size_t bytes);
wsgemm_status wsgemm_reset_workspace(wsgemm_handle handle);

/* The workspace bytes the strided-batched call with these arguments would use
 * on the current device with the handle's path (0 when none), before any
 * user workspace limit; the arguments are checked as by the call itself. */
wsgemm_status wsgemm_gemm_workspace_size(wsgemm_handle handle, wsgemm_op transa, wsgemm_op transb, int m, int n, int k,
                                         const void *A, wsgemm_dtype Atype, int lda, long long strideA, const void *B,
                                         wsgemm_dtype Btype, int ldb, long long strideB, const void *C,
                                         wsgemm_dtype Ctype, int ldc, long long strideC, int batch_count,
                                         size_t *bytes);

/* Diagnostics. The message of this thread's last failed call on this handle
 * (for a null or destroyed handle: this thread's last message of a call
 * without a usable handle); "" after a successful call: every call that
 * returns SUCCESS clears it (a call without a handle, such as
 * wsgemm_matmul_desc_init, clears the message of calls without a handle),
 * except the queries, which leave it as it was so that a failed call's
 * message can still be read after asking for its path: wsgemm_get_stream,
 * wsgemm_get_path, wsgemm_get_last_path, wsgemm_get_pointer_mode, wsgemm_get_launch_mode,
 * wsgemm_get_batch_invariance, wsgemm_get_version and this function. */
const char *wsgemm_status_string(wsgemm_status status);
const char *wsgemm_path_name(wsgemm_path path);
const char *wsgemm_get_last_error_message(wsgemm_handle handle);

/* The version of the library (the values of WSGEMM_VERSION_* it was built with; compare them with the
 * macros to detect a header/library mismatch). Needs no handle and no GPU; a NULL pointer is skipped.
 * Always SUCCESS. */
wsgemm_status wsgemm_get_version(int *major, int *minor, int *patch);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_H */
