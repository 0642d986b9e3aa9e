// SPDX-License-Identifier: MIT
/*
 * gemm/common/tma.h - TMA tensor-map creation for the fast paths (sm90, sm100). Host C.
 *
 * cuTensorMapEncodeTiled is a driver API function. wsgemm never links libcuda: the function is looked up
 * once through the runtime (cudaGetDriverEntryPointByVersion), so a binary without a driver (the CPU
 * tests, a build machine) still starts, and only the first fast-path call needs the driver.
 *
 * A wsgemm_tma_2d16 describes one operand (or C) as a 3D tensor of elements of its dtype's size: 2 bytes
 * (16-bit operands and C), 1 byte (FP8 operands, an E4M3 D) or 4 bytes (fp32 C):
 *   dim 0 (contiguous): `inner` elements, dim 1: `outer` rows `ld` elements apart, dim 2: `depth`
 *   matrices `batch_stride` elements apart (depth 1 when the operand is shared by the batch).
 * ld and batch_stride are in elements; TMA wants them in bytes, so ld * element size and batch_stride *
 * element size must be multiples of 16. The box is box_inner x box_outer x 1 with the 128-byte swizzle
 * (box_inner * element size <= 128), zero fill
 * out of bounds (the kernels rely on it for M/N/K tails).
 */
#ifndef WSGEMM_COMMON_TMA_H
#define WSGEMM_COMMON_TMA_H

#include <cuda.h> /* CUtensorMap and its enums: types only, no libcuda symbol is referenced */
#include <pthread.h>
#include <stdint.h>

#include "wsgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wsgemm_tma_2d16 {
    const void *base;   /* 16-byte aligned */
    wsgemm_dtype dtype; /* WSGEMM_R_16BF, WSGEMM_R_16F (operands and C), WSGEMM_R_32F (C only) or FP8 (operands,
                           and an E4M3 D) */
    uint64_t inner, outer, depth;
    uint64_t ld;           /* elements between rows; ld * element size % 16 == 0 */
    uint64_t batch_stride; /* elements between matrices; batch_stride * element size % 16 == 0 (ignored when
                              depth == 1) */
    uint32_t box_inner, box_outer;
} wsgemm_tma_2d16;

/* 1 when TMA can address a 16-bit operand with this base, leading dimension and batch stride (elements of
 * 2 bytes): base and strides 16-byte aligned, strides below 2^40 bytes. */
int wsgemm_tma_operand_ok(const void *base, long long ld, long long batch_stride, int uses_batch);
/* The same for elements of elem_bytes (1: FP8 operands and an E4M3 D; 2; 4: fp32 C). */
int wsgemm_tma_layout_ok(const void *base, long long ld, long long batch_stride, int uses_batch, int elem_bytes);

/* Encode the tensor map. Returns cudaSuccess, or the reason it could not (no driver entry point:
 * cudaErrorNotSupported or the lookup's error; an encode failure: cudaErrorInvalidValue) with a text
 * in msg. */
cudaError_t wsgemm_tma_encode_2d16(CUtensorMap *map, const wsgemm_tma_2d16 *desc, char *msg, size_t msg_size);
/* The same without the swizzle: the box lies in shared memory as box_outer rows of box_inner elements back to
 * back (box_inner * element size a multiple of 16 bytes, the smem address 128-byte aligned). */
cudaError_t wsgemm_tma_encode_unswizzled(CUtensorMap *map, const wsgemm_tma_2d16 *desc, char *msg, size_t msg_size);

/* ---------------------------------------------------------------- the tensor-map cache
 *
 * An encode is a pure function of its arguments (the driver writes 128 bytes from the descriptor, no device
 * or context state), so a map encoded once serves every later call with the same base address, dims,
 * strides, box, type and encoder, on any thread and device. The fast paths' launchers encode through the
 * shared cache: a call that repeats an earlier call's operands (the usual training or serving loop) encodes
 * nothing. Entries are compared field by field; a miss encodes outside the lock and replaces the entries
 * round robin; a failed encode is not kept. Thread-safe (one mutex per cache). */
typedef cudaError_t (*wsgemm_tma_encoder)(CUtensorMap *map, const wsgemm_tma_2d16 *desc, char *msg, size_t msg_size);

enum { WSGEMM_TMA_CACHE_ENTRIES = 16 };

typedef struct wsgemm_tma_cache_entry {
    CUtensorMap map;
    wsgemm_tma_2d16 desc;
    wsgemm_tma_encoder encoder; /* NULL: unused entry */
} wsgemm_tma_cache_entry;

typedef struct wsgemm_tma_cache {
    pthread_mutex_t lock;
    wsgemm_tma_cache_entry entries[WSGEMM_TMA_CACHE_ENTRIES];
    unsigned next;                    /* the entry the next miss replaces */
    unsigned long long hits, encodes; /* for tests and the debug knob */
} wsgemm_tma_cache;

/* A cache with no entries (static storage: the rest is zero). */
#define WSGEMM_TMA_CACHE_INITIALIZER      \
    {                                     \
        .lock = PTHREAD_MUTEX_INITIALIZER \
    }

/* *map = encode(desc) from the cache, or encoded now (and kept when it succeeded). Returns what encode
 * returned (cudaSuccess on a hit, msg untouched). */
cudaError_t wsgemm_tma_cache_encode(wsgemm_tma_cache *cache, wsgemm_tma_encoder encode, CUtensorMap *map,
                                    const wsgemm_tma_2d16 *desc, char *msg, size_t msg_size);

/* The process's cache, which the launchers use. */
wsgemm_tma_cache *wsgemm_tma_shared_cache(void);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_TMA_H */
