// SPDX-License-Identifier: MIT
/*
 * gemm/common/tma.cuh - device wrappers for the TMA (bulk tensor copy) instructions the fast kernels use.
 * One wrapper per PTX instruction variant; citations name PTX ISA 9.0 sections by title ("Data Movement
 * and Conversion Instructions: cp.async.bulk.tensor", "prefetch, prefetchu"). sm_90 and later.
 *
 * Addresses: dst_smem / bar_smem are 32-bit shared::cta addresses (smem_u32 from sync/mbarrier.cuh); a
 * shared::cta address of the executing CTA is a valid shared::cluster address of that CTA, which is what
 * the .shared::cluster destination form takes. map_gmem is the generic address of a CUtensorMap that lives
 * in kernel parameter space (__grid_constant__), constant or global memory.
 *
 * In the TMEM emulation build (sm_90a, WSGEMM_TMEM_EMULATION) the copies, the bulk groups and their waits
 * also report to the happens-before tracking's async-proxy model (emu/hb.h) through WSGEMM_HB
 * (sync/hb_hook.cuh); box_bytes, the bytes of shared memory a copy covers, is used by that report only (0:
 * the 1024-byte block the address is in). In every other build the hooks and box_bytes compile to nothing.
 */
#ifndef WSGEMM_COMMON_TMA_CUH
#define WSGEMM_COMMON_TMA_CUH

#include <stdint.h>

#include "../../sync/hb_hook.cuh"

/* PTX ISA "prefetch, prefetchu": prefetch.tensormap brings the tensor map into the descriptor cache so
 * the first copy does not wait for it. */
static __device__ __forceinline__ void tma_prefetch_tensormap(const void *map_gmem)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)(uintptr_t)map_gmem) : "memory");
}

/* PTX ISA "cp.async.bulk.tensor": 3D tiled load global -> this CTA's shared memory; completion counts the
 * box's bytes (including zero-filled out-of-bounds elements) as complete_tx on bar_smem. */
static __device__ __forceinline__ void tma_load_3d(uint32_t dst_smem, const void *map_gmem, uint32_t bar_smem,
                                                   int32_t c0, int32_t c1, int32_t c2, uint32_t box_bytes = 0)
{
    (void)box_bytes;
    WSGEMM_HB(tmem_hb_tma_load_bytes(dst_smem, bar_smem, box_bytes)); /* the TMEM emulation build only */
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst_smem),
                 "l"((uint64_t)(uintptr_t)map_gmem), "r"(bar_smem), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* PTX ISA "cp.async.bulk.tensor" with .multicast::cluster: the same box is written to dst_smem's offset
 * in every CTA of cta_mask (bit i = cluster rank i), and each destination CTA's barrier at bar_smem's
 * offset receives complete_tx for the box's bytes. */
static __device__ __forceinline__ void tma_load_3d_multicast(uint32_t dst_smem, const void *map_gmem, uint32_t bar_smem,
                                                             int32_t c0, int32_t c1, int32_t c2, uint16_t cta_mask)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(dst_smem),
                 "l"((uint64_t)(uintptr_t)map_gmem), "r"(bar_smem), "r"(c0), "r"(c1), "r"(c2), "h"(cta_mask)
                 : "memory");
}

/* PTX ISA "cp.async.bulk.tensor": 3D tiled store shared::cta -> global, completion through the bulk async-group
 * of the issuing thread. Elements of the box outside the tensor are not written (ragged edges clip). The
 * shared-memory source must have been made visible to the async proxy (fence.proxy.async.shared::cta after
 * the generic stores, then a barrier) before this is issued. */
static __device__ __forceinline__ void tma_store_3d(const void *map_gmem, uint32_t src_smem, int32_t c0, int32_t c1,
                                                    int32_t c2, uint32_t box_bytes = 0)
{
    (void)box_bytes;
    WSGEMM_HB(tmem_hb_tma_store(src_smem, box_bytes)); /* reads src_smem until a wait_group retires its group */
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                     (uint64_t)(uintptr_t)map_gmem),
                 "r"(src_smem), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* PTX ISA "cp.async.bulk.commit_group": close this thread's bulk async-group of the stores issued so far. */
static __device__ __forceinline__ void bulk_commit_group(void)
{
    WSGEMM_HB(tmem_hb_bulk_commit());
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* PTX ISA "cp.async.bulk.wait_group": .read - wait until at most kN of this thread's bulk groups still have to
 * READ their shared-memory source (the source may then be overwritten; the global writes may still be in
 * flight). */
template <int kN>
static __device__ __forceinline__ void bulk_wait_group_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kN) : "memory");
    WSGEMM_HB(tmem_hb_bulk_wait((uint32_t)kN)); /* the older groups' sources may be written from here on */
}

/* PTX ISA "cp.async.bulk.wait_group": wait until at most kN of this thread's bulk groups are incomplete
 * (writes done). */
template <int kN>
static __device__ __forceinline__ void bulk_wait_group(void)
{
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(kN) : "memory");
    WSGEMM_HB(tmem_hb_bulk_wait((uint32_t)kN)); /* complete implies done reading */
}

#endif /* WSGEMM_COMMON_TMA_CUH */
