// SPDX-License-Identifier: MIT
/*
 * tmem/dealloc_barrier_tmem.cuh - the TMEM half of the dealloc barrier: complete_dealloc, the MMA-warp
 * side of the teardown. It composes sync/dealloc_barrier.cuh (the synchronisation half, which builds and is
 * tested without tmem/) with tcgen05.relinquish_alloc_permit and tcgen05.dealloc, so it lives with the TMEM
 * API: tmem/ builds on sync/, never the other way round. tmem/tmem.cuh picks the backend (tcgen05 hardware
 * on sm_100a with WSGEMM_TMEM_HARDWARE=1, the emulation on sm_90a with WSGEMM_TMEM_EMULATION=1).
 */
#ifndef WSGEMM_TMEM_DEALLOC_BARRIER_TMEM_CUH
#define WSGEMM_TMEM_DEALLOC_BARRIER_TMEM_CUH

#include <stdint.h>

#include "../sync/dealloc_barrier.cuh"
#include "tmem.cuh"

/* MMA (allocating) warp of every CTA, whole warp, once at the end:
 *   1. relinquish the allocation permit (no further alloc by this CTA; lets a co-resident CTA that
 *      waits in tcgen05.alloc proceed as soon as we free);
 *   2. wait until every epilogue thread (of both CTAs for cta_group 2) has signalled that its TMEM
 *      reads are done, then reconverge the warp (__syncwarp) for the .sync.aligned dealloc;
 *   3. tcgen05.fence::after_thread_sync: order the dealloc after the reads the wait made visible;
 *   4. dealloc the allocation (taddr = the base address tcgen05.alloc returned, kMaxCols columns).
 * For cta_group 2 the dealloc runs in both CTAs; the wait in each covers both epilogues, and the
 * cluster_sync after alloc (kernel set-up) guarantees the peer's alloc completed before either frees.
 * ticks: as dealloc_barrier_wait (0 = spin). */
template <int kCtaGroup, uint32_t kMaxCols = 512>
static __device__ __forceinline__ void dealloc_barrier_complete_dealloc(uint64_t *bar_smem, uint32_t taddr,
                                                                        uint32_t ticks = 0)
{
    static_assert(kMaxCols >= 32 && kMaxCols <= 512 && (kMaxCols & (kMaxCols - 1)) == 0,
                  "tcgen05.dealloc takes a power of two of columns in [32, 512]");
    tmem_relinquish_alloc_permit<kCtaGroup>();
    dealloc_barrier_wait<kCtaGroup>(bar_smem, ticks);
    __syncwarp(); /* the lanes leave the wait loop at different times; dealloc is .sync.aligned */
    tcgen05_fence_after_thread_sync();
    tmem_dealloc<kCtaGroup>(taddr, kMaxCols);
}

#endif /* WSGEMM_TMEM_DEALLOC_BARRIER_TMEM_CUH */
