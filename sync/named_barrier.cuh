/*
 * sync/named_barrier.cuh - named CTA barriers with an id and a thread count, for barriers between a
 * subset of warps (e.g. the MMA warp handing the TMEM base address to the four epilogue warps: 160
 * threads). Id 0 is __syncthreads(); wsgemm kernels use ids 1..15. The count must be a multiple of 32
 * and every participating warp takes part with all its threads (.aligned forms: converged; after
 * divergent code, e.g. a per-lane wait loop, call __syncwarp() first).
 * Compiles for every arch (bar.sync/bar.arrive exist since sm_20).
 */
#ifndef WSGEMM_SYNC_NAMED_BARRIER_CUH
#define WSGEMM_SYNC_NAMED_BARRIER_CUH

#include <stdint.h>

/* PTX ISA "bar.sync / barrier.sync": wait until `nthreads` threads have arrived at barrier `id`.
 * Memory accesses before the barrier by participating threads are visible to participants after it
 * (CTA scope, the morally-strong ordering the memory model gives bar.sync). */
static __device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t nthreads)
{
    asm volatile("barrier.sync.aligned %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

/* PTX ISA "bar.arrive / barrier.arrive": count this warp's threads toward barrier `id` without waiting
 * (a producer that publishes and moves on; its writes before are visible to the syncing threads). */
static __device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t nthreads)
{
    asm volatile("barrier.arrive.aligned %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

#endif /* WSGEMM_SYNC_NAMED_BARRIER_CUH */
