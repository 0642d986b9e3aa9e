// SPDX-License-Identifier: MIT
/*
 * sync/dealloc_barrier.cuh - the TMEM dealloc barrier (after Modular's TmemDeallocBarrier[cta_group]),
 * the synchronisation half. The TMEM half (complete_dealloc: relinquish, wait, dealloc) is in
 * tmem/dealloc_barrier_tmem.cuh, with the TMEM API it composes with (sync/ includes nothing of tmem/).
 *
 * Storage: one mbarrier in each CTA's shared memory, used once per kernel (only phase 0 ever completes).
 *
 *   cta_group 1 (one CTA)                       cta_group 2 (CTA pair, ranks r and r^1)
 *   epilogue threads (128) --arrive--> bar      epilogue threads of CTA r (128) --arrive--> bar in r
 *   MMA warp: wait(bar, phase 0), dealloc                                       --arrive--> bar in r^1
 *   count = 128                                 count = 256 in each CTA (128 own + 128 from the peer)
 *                                               MMA warp of each CTA: wait(own bar), dealloc
 *
 * So neither CTA of a pair frees TMEM until BOTH epilogues have finished reading it, and the peer
 * arrival (remote, release.cluster) is what the 2-CTA handshake needs; the waiter acquires at cluster
 * scope. Order of the calls in a kernel:
 *   - one thread: dealloc_barrier_init<CG>(bar) with the other barriers, then fence_mbarrier_init and
 *     cluster_sync (cta_group 2: the peer must see the initialised barrier before it arrives remotely);
 *   - every epilogue thread, after its last tcgen05.ld + tcgen05.wait::ld and a
 *     tcgen05_fence_before_thread_sync(): dealloc_barrier_signal_complete<CG>(bar) (also when the
 *     CTA got zero tiles);
 *   - the MMA (allocating) warp: dealloc_barrier_complete_dealloc<CG>(bar, taddr) (TMEM header).
 * Names: the functions are prefixed dealloc_barrier_ (C style); cta_group is the template parameter.
 */
#ifndef WSGEMM_SYNC_DEALLOC_BARRIER_CUH
#define WSGEMM_SYNC_DEALLOC_BARRIER_CUH

#include <stdint.h>

#include "cluster.cuh"
#include "mbarrier.cuh"
#include "wait.cuh"

/* Epilogue threads per CTA that signal: four warps, one per TMEM lane quarter. */
#define DEALLOC_BARRIER_EPILOGUE_THREADS 128u

/* Modular's suspend hint for the dealloc wait (ns; a ceiling, the thread wakes on completion). */
#define DEALLOC_BARRIER_TICKS_DEFAULT 10000000u

/* One thread per CTA. Count = epilogue threads x cta_group: with a pair each barrier also receives the
 * peer's arrivals. */
template <int kCtaGroup>
static __device__ __forceinline__ void
dealloc_barrier_init(uint64_t *bar_smem, uint32_t epilogue_threads = DEALLOC_BARRIER_EPILOGUE_THREADS)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
    mbarrier_init(bar_smem, epilogue_threads * (uint32_t)kCtaGroup);
}

/* cta_group 2: one arrival on the PEER CTA's dealloc barrier (same smem offset, rank ^ 1), release at
 * cluster scope so the peer's waiter orders its dealloc after this thread's TMEM reads. cta_group 1:
 * nothing. */
template <int kCtaGroup>
static __device__ __forceinline__ void dealloc_barrier_signal_peer(uint64_t *bar_smem)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
    if (kCtaGroup == 2) mbarrier_arrive_remote(bar_smem, cluster_ctarank() ^ 1u);
}

/* One arrival on this CTA's own dealloc barrier. */
template <int kCtaGroup>
static __device__ __forceinline__ void dealloc_barrier_signal_self(uint64_t *bar_smem)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
    mbarrier_arrive(bar_smem);
}

/* Epilogue side, every epilogue thread, once: the peer first, then self, as in the seed. Either order
 * is safe (each barrier completes only after all its arrivals, and a CTA cannot exit while one of its
 * threads still has an arrival to make); peer first starts the slower remote arrival earliest. */
template <int kCtaGroup>
static __device__ __forceinline__ void dealloc_barrier_signal_complete(uint64_t *bar_smem)
{
    dealloc_barrier_signal_peer<kCtaGroup>(bar_smem);
    dealloc_barrier_signal_self<kCtaGroup>(bar_smem);
}

/* Block until phase 0 of the barrier completed (all arrivals in). ticks == 0: try_wait without a hint,
 * an immediate-return spin; ticks > 0: try_wait with suspendTimeHint = ticks ns (e.g.
 * DEALLOC_BARRIER_TICKS_DEFAULT). Cluster-scope acquire for cta_group 2 (peer arrivals), CTA scope for 1.
 * Bounded by the watchdog when WSGEMM_WATCHDOG=1. */
template <int kCtaGroup>
static __device__ __forceinline__ void dealloc_barrier_wait(uint64_t *bar_smem, uint32_t ticks = 0)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
    mbarrier_wait(bar_smem, 0u, kCtaGroup == 2 ? WAIT_CLUSTER : WAIT_CTA, ticks, "dealloc_barrier", 0u);
}

#endif /* WSGEMM_SYNC_DEALLOC_BARRIER_CUH */
