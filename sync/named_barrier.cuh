// SPDX-License-Identifier: MIT
/*
 * sync/named_barrier.cuh - named CTA barriers with an id and a thread count, for barriers between a
 * subset of warps (e.g. the MMA warp handing the TMEM base address to the four epilogue warps: 160
 * threads). Id 0 is __syncthreads(); wsgemm kernels use ids 1..15. The count must be a multiple of 32
 * and every participating warp takes part with all its threads (.aligned forms: converged; after
 * divergent code, e.g. a per-lane wait loop, call __syncwarp() first).
 * Compiles for every arch (bar.sync/bar.arrive exist since sm_20). The TMEM emulation build reports each
 * barrier to its happens-before tracking (sync/hb_hook.cuh); __syncthreads() has no such report, so code
 * whose CTA barrier orders TMEM accesses uses cta_barrier_sync().
 */
#ifndef WSGEMM_SYNC_NAMED_BARRIER_CUH
#define WSGEMM_SYNC_NAMED_BARRIER_CUH

#include <stdint.h>

#include "hb_hook.cuh"

/* PTX ISA "bar.sync / barrier.sync": wait until `nthreads` threads have arrived at barrier `id`.
 * Memory accesses before the barrier by participating threads are visible to participants after it
 * (CTA scope, the morally-strong ordering the memory model gives bar.sync). */
static __device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t nthreads)
{
    WSGEMM_HB(const uint32_t hb_phase = tmem_hb_named_arrive(id, nthreads));
    asm volatile("barrier.sync.aligned %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
    WSGEMM_HB(tmem_hb_named_acquire(id, hb_phase));
}

/* PTX ISA "bar.arrive / barrier.arrive": count this warp's threads toward barrier `id` without waiting
 * (a producer that publishes and moves on; its writes before are visible to the syncing threads). */
static __device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t nthreads)
{
    WSGEMM_HB(tmem_hb_named_arrive(id, nthreads));
    asm volatile("barrier.arrive.aligned %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

/* PTX ISA "bar.sync / barrier.sync" on barrier 0 with every thread of the CTA: __syncthreads(), written
 * as a wrapper so that the TMEM emulation's happens-before tracking sees it. */
static __device__ __forceinline__ void cta_barrier_sync(void)
{
    WSGEMM_HB(const uint32_t hb_phase = tmem_hb_named_arrive(0u, blockDim.x * blockDim.y * blockDim.z));
    asm volatile("barrier.sync.aligned 0;" ::: "memory");
    WSGEMM_HB(tmem_hb_named_acquire(0u, hb_phase));
}

#endif /* WSGEMM_SYNC_NAMED_BARRIER_CUH */
