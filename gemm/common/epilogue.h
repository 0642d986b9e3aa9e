// SPDX-License-Identifier: MIT
/*
 * gemm/common/epilogue.h - the epilogue kinds of the fast paths, as named data. Host C (and device).
 *
 * An epilogue turns a tile of fp32 accumulators into C: D = alpha * acc + beta * C (C read only when
 * beta != 0), converted to C's type and stored. The kinds differ in how the tile reaches memory; the plan
 * chooses one and the kernel dispatches on it in one place.
 */
#ifndef WSGEMM_COMMON_EPILOGUE_H
#define WSGEMM_COMMON_EPILOGUE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wsgemm_epilogue_kind {
    WSGEMM_EPILOGUE_NONE = 0,     /* no launch yet (the tests' probe) */
    WSGEMM_EPILOGUE_DIRECT = 1,   /* predicated per-element stores from registers (any C layout) */
    WSGEMM_EPILOGUE_TMA = 2,      /* smem chunks + TMA store at the end of each tile */
    WSGEMM_EPILOGUE_DEFERRED = 3, /* the tile waits in registers, packed to 16 bits, and its TMA stores run
                                     during the next tile's main loop (beta == 0, C of the input type) */
    WSGEMM_EPILOGUE_STAGED = 4    /* the CTA's C tile lives in smem: loaded by TMA during the main loop when
                                     beta != 0, combined in place at the tile end, stored by TMA while the next
                                     tile's main loop runs (any beta, any C type) */
} wsgemm_epilogue_kind;

const char *wsgemm_epilogue_name(wsgemm_epilogue_kind kind);

/* ---------------------------------------------------------------- the fused output ops of wsgemm_matmul
 *
 * After D's sum x = alpha * a_scale * b_scale * acc + beta * c_scale * C comes, in this order:
 *   x += bias[row]          (bias)
 *   aux[row, col] = x       (aux: the value the activation takes, for the backward pass)
 *   x = activation(x)
 *   amax = max(amax, |x|)   (amax)
 *   D = round(d_scale * x)
 * as cublasLtMatmul does it. The per-element operation is wsgemm_fused_apply (epilogue.cuh). */
typedef enum wsgemm_activation {
    WSGEMM_ACTIVATION_NONE = 0,
    WSGEMM_ACTIVATION_RELU = 1, /* max(x, 0) */
    WSGEMM_ACTIVATION_GELU = 2  /* 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) */
} wsgemm_activation;

/* A wsgemm_matmul_epilogue taken apart; valid == 0 for a value that names no epilogue wsgemm computes. */
typedef struct wsgemm_fused_ops {
    int valid, bias, aux;
    wsgemm_activation activation;
} wsgemm_fused_ops;

/* The one place where a wsgemm_matmul_epilogue (include/wsgemm.h; cublasLtEpilogue_t's values) is decoded. */
static inline wsgemm_fused_ops wsgemm_fused_ops_of(int epilogue)
{
    wsgemm_fused_ops ops = {1, 0, 0, WSGEMM_ACTIVATION_NONE};
    switch (epilogue) {
    case 1: break;                                          /* DEFAULT */
    case 2: ops.activation = WSGEMM_ACTIVATION_RELU; break; /* RELU */
    case 4: ops.bias = 1; break;                            /* BIAS */
    case 6:
        ops.bias = 1;
        ops.activation = WSGEMM_ACTIVATION_RELU;
        break;                                               /* RELU_BIAS */
    case 32: ops.activation = WSGEMM_ACTIVATION_GELU; break; /* GELU */
    case 36:
        ops.bias = 1;
        ops.activation = WSGEMM_ACTIVATION_GELU;
        break; /* GELU_BIAS */
    case 160:
        ops.aux = 1;
        ops.activation = WSGEMM_ACTIVATION_GELU;
        break; /* GELU_AUX */
    case 164:
        ops.bias = ops.aux = 1;
        ops.activation = WSGEMM_ACTIVATION_GELU;
        break; /* GELU_AUX_BIAS */
    default: ops.valid = 0; break;
    }
    return ops;
}

/* 1 for a cublasLtEpilogue_t value that wsgemm_fused_ops_of does not take: RELU_AUX, RELU_AUX_BIAS, DRELU,
 * DRELU_BGRAD, DGELU, DGELU_BGRAD, BGRADA, BGRADB (cublasLt.h). A call naming one is NOT_SUPPORTED, not
 * INVALID_VALUE: it is a valid epilogue, only not one of wsgemm's. */
static inline int wsgemm_epilogue_is_cublaslt_only(int epilogue)
{
    switch (epilogue) {
    case 130:
    case 134:
    case 136:
    case 152:
    case 192:
    case 208:
    case 256:
    case 512: return 1;
    default: return 0;
    }
}

/* Everything the fused output op reads besides the accumulator: the call's pointers, types (wsgemm_dtype
 * values) and leading dimensions. Kernels take it by value. */
typedef struct wsgemm_fused_epilogue {
    wsgemm_fused_ops ops;
    const void *c; /* read when beta != 0 */
    int c_type;
    long long ldc;
    const void *bias; /* ops.bias */
    int bias_type;
    void *aux; /* ops.aux */
    int aux_type;
    long long ldaux;
    const float *a_scale, *b_scale, *c_scale, *d_scale; /* NULL: 1 */
    float *amax; /* NULL: not computed; else reset to 0 before the kernel and raised with atomicMax */
} wsgemm_fused_epilogue;

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_EPILOGUE_H */
