// SPDX-License-Identifier: MIT
/*
 * gemm/common/tma.c - tensor maps through the driver entry point (see tma.h for why not libcuda).
 */
#include "common/tma.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/status.h"
#include "internal.h"

/* The driver function's type, spelled out here so cudaTypedefs.h is not needed (CUDA 12.0 ABI). */
typedef CUresult (*encode_tiled_fn)(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                    void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                    const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                    CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill);

/* Looked up once per process. */
static encode_tiled_fn encode_tiled;
static pthread_once_t encode_tiled_once = PTHREAD_ONCE_INIT;

static void lookup_encode_tiled(void)
{
    encode_tiled = (encode_tiled_fn)wsgemm_driver_symbol("cuTensorMapEncodeTiled", 12000);
}

int wsgemm_tma_layout_ok(const void *base, long long ld, long long batch_stride, int uses_batch, int elem_bytes)
{
    const long long limit = ((long long)1 << 40) / elem_bytes; /* strides below 2^40 bytes */
    if (((uintptr_t)base & 15u) != 0) return 0;
    if (ld >= limit || (ld * elem_bytes) % 16 != 0) return 0; /* the range first: no product overflows */
    if (uses_batch && (batch_stride <= 0 || batch_stride >= limit || (batch_stride * elem_bytes) % 16 != 0)) return 0;
    return 1;
}

int wsgemm_tma_operand_ok(const void *base, long long ld, long long batch_stride, int uses_batch)
{
    return wsgemm_tma_layout_ok(base, ld, batch_stride, uses_batch, 2);
}

static cudaError_t encode_map(CUtensorMap *map, const wsgemm_tma_2d16 *d, CUtensorMapSwizzle swizzle, char *msg,
                              size_t msg_size)
{
    pthread_once(&encode_tiled_once, lookup_encode_tiled);
    const encode_tiled_fn encode = encode_tiled;
    if (encode == NULL) {
        snprintf(msg, msg_size, "cuTensorMapEncodeTiled is not available from the driver");
        return cudaErrorNotSupported;
    }
    const cuuint64_t esize = (cuuint64_t)wsgemm_dtype_size(d->dtype);
    cuuint64_t dims[3] = {d->inner, d->outer, d->depth};
    /* strides of dims 1 and 2 in bytes; the driver wants rank-1 entries */
    cuuint64_t strides[2] = {d->ld * esize, (d->depth > 1 ? d->batch_stride : d->ld * d->outer) * esize};
    cuuint32_t box[3] = {d->box_inner, d->box_outer, 1};
    cuuint32_t elem_strides[3] = {1, 1, 1};
    CUtensorMapDataType type = d->dtype == WSGEMM_R_16BF  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                               : d->dtype == WSGEMM_R_32F ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                               : d->dtype == WSGEMM_R_16F ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                          : CU_TENSOR_MAP_DATA_TYPE_UINT8; /* FP8: bytes as they are */
    memset(map, 0, sizeof *map);
    CUresult r = encode(map, type, 3, (void *)d->base, dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(msg, msg_size,
                 "cuTensorMapEncodeTiled failed (CUresult %d): dims %llu x %llu x %llu, strides %llu, %llu bytes, "
                 "box %u x %u, base %p",
                 (int)r, (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2],
                 (unsigned long long)strides[0], (unsigned long long)strides[1], box[0], box[1], d->base);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

cudaError_t wsgemm_tma_encode_2d16(CUtensorMap *map, const wsgemm_tma_2d16 *d, char *msg, size_t msg_size)
{
    return encode_map(map, d, CU_TENSOR_MAP_SWIZZLE_128B, msg, msg_size);
}

cudaError_t wsgemm_tma_encode_unswizzled(CUtensorMap *map, const wsgemm_tma_2d16 *d, char *msg, size_t msg_size)
{
    return encode_map(map, d, CU_TENSOR_MAP_SWIZZLE_NONE, msg, msg_size);
}

/* ---------------------------------------------------------------- the tensor-map cache */

static int same_desc(const wsgemm_tma_2d16 *a, const wsgemm_tma_2d16 *b)
{
    return a->base == b->base && a->dtype == b->dtype && a->inner == b->inner && a->outer == b->outer &&
           a->depth == b->depth && a->ld == b->ld && a->batch_stride == b->batch_stride &&
           a->box_inner == b->box_inner && a->box_outer == b->box_outer;
}

/* The entry for (encode, desc), or -1; the caller holds the lock. */
static int cache_find(const wsgemm_tma_cache *cache, wsgemm_tma_encoder encode, const wsgemm_tma_2d16 *desc)
{
    for (int i = 0; i < WSGEMM_TMA_CACHE_ENTRIES; ++i) {
        const wsgemm_tma_cache_entry *e = &cache->entries[i];
        if (e->encoder == encode && same_desc(&e->desc, desc)) return i;
    }
    return -1;
}

cudaError_t wsgemm_tma_cache_encode(wsgemm_tma_cache *cache, wsgemm_tma_encoder encode, CUtensorMap *map,
                                    const wsgemm_tma_2d16 *desc, char *msg, size_t msg_size)
{
    pthread_mutex_lock(&cache->lock);
    int i = cache_find(cache, encode, desc);
    if (i >= 0) {
        *map = cache->entries[i].map;
        ++cache->hits;
    }
    pthread_mutex_unlock(&cache->lock);
    if (i >= 0) return cudaSuccess;
    /* a miss: encode without the lock (another thread may encode the same map meanwhile: same bytes) */
    const cudaError_t err = encode(map, desc, msg, msg_size);
    if (err != cudaSuccess) return err;
    pthread_mutex_lock(&cache->lock);
    ++cache->encodes;
    if (cache_find(cache, encode, desc) < 0) {
        wsgemm_tma_cache_entry *e = &cache->entries[cache->next];
        cache->next = (cache->next + 1) % WSGEMM_TMA_CACHE_ENTRIES;
        e->map = *map;
        e->desc = *desc;
        e->encoder = encode;
    }
    pthread_mutex_unlock(&cache->lock);
    return cudaSuccess;
}

static wsgemm_tma_cache shared_cache = WSGEMM_TMA_CACHE_INITIALIZER;

wsgemm_tma_cache *wsgemm_tma_shared_cache(void)
{
    return &shared_cache;
}
