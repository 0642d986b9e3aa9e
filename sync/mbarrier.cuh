// SPDX-License-Identifier: MIT
/*
 * sync/mbarrier.cuh - one wrapper per mbarrier PTX instruction variant.
 *
 * Conventions (shared by everything in sync/):
 *   - A barrier is a uint64_t in shared memory. Wrappers take `uint64_t *bar_smem`, a GENERIC pointer to
 *     the CTA's own shared memory (what `&smem->full[s]` gives), and convert it with
 *     __cvta_generic_to_shared. Remote (peer-CTA) barriers are addressed by a 32-bit shared::cluster
 *     address produced by mapa (sync/cluster.cuh), passed as `uint32_t bar_cluster`.
 *   - Every wrapper has a "memory" clobber and spells out .release/.acquire and the scope even where
 *     the PTX default would give the same thing, so the reader never has to remember the defaults.
 *   - try_wait returns at once or after a bounded, hardware-chosen time; the blocking loop with the
 *     watchdog lives in sync/wait.cuh.
 * Citations name the section of the PTX ISA (version 9.0, CUDA 13.0) by its title, in the chapter
 * "Parallel Synchronization and Communication Instructions" (section numbers move between releases).
 * Compiles for sm_90a and sm_100a (mbarrier.expect_tx / try_wait with .acquire need sm_90, PTX 8.0).
 * In the TMEM emulation build the init and arrive wrappers also report their edge to the happens-before
 * tracking (WSGEMM_HB, sync/hb_hook.cuh); a completed wait is reported by mbarrier_wait (sync/wait.cuh),
 * after its loop, so the try_wait/test_wait wrappers here carry no hook (a wait loop written around them
 * is not tracked). fence.proxy.async reports to the tracking's async-proxy model (emu/hb.h).
 */
#ifndef WSGEMM_SYNC_MBARRIER_CUH
#define WSGEMM_SYNC_MBARRIER_CUH

#include <stdint.h>

#include "hb_hook.cuh"

/* The 32-bit shared::cta address of a generic pointer into this CTA's shared memory. */
static __device__ __forceinline__ uint32_t smem_u32(const void *ptr_smem)
{
    return (uint32_t)__cvta_generic_to_shared(ptr_smem);
}

/* PTX ISA "mbarrier.init": set the expected arrival count of phase 0 (and every later phase),
 * pending tx-count 0, current phase 0. One thread; publish with fence_mbarrier_init + a barrier. */
static __device__ __forceinline__ void mbarrier_init(uint64_t *bar_smem, uint32_t count)
{
    WSGEMM_HB(tmem_hb_on_mbarrier_init(bar_smem, count));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar_smem)), "r"(count) : "memory");
}

/* PTX ISA "mbarrier.inval": the barrier's memory may be reused for something else afterwards. */
static __device__ __forceinline__ void mbarrier_inval(uint64_t *bar_smem)
{
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(smem_u32(bar_smem)) : "memory");
}

/* PTX ISA "mbarrier.arrive": one arrival on this CTA's barrier. .release.cta: this thread's
 * earlier writes are visible to a thread that observes the phase completion with acquire.cta. */
static __device__ __forceinline__ void mbarrier_arrive(uint64_t *bar_smem)
{
    WSGEMM_HB(tmem_hb_on_arrive_local(bar_smem, 1u));
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar_smem)) : "memory");
}

/* PTX ISA "cp.async.mbarrier.arrive.noinc": one arrival on this CTA's barrier once every cp.async this thread
 * has issued so far is complete (immediately when none is pending); the copied data is then visible to a thread
 * that observes the phase completion. .noinc: the arrival is one of the count the barrier was initialized
 * with, not an extra one. */
static __device__ __forceinline__ void mbarrier_arrive_on_cp_async(uint64_t *bar_smem)
{
    WSGEMM_HB(tmem_hb_on_arrive_local(bar_smem, 1u));
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(bar_smem)) : "memory");
}

/* PTX ISA "mbarrier.arrive" with a count: `count` arrivals at once (one thread standing in for
 * several). */
static __device__ __forceinline__ void mbarrier_arrive_count(uint64_t *bar_smem, uint32_t count)
{
    WSGEMM_HB(tmem_hb_on_arrive_local(bar_smem, count));
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar_smem)), "r"(count)
                 : "memory");
}

/* PTX ISA "mbarrier.arrive" on a barrier of ANOTHER CTA of the cluster (or this one), given its
 * shared::cluster address (mapa_shared_cluster). .release.cluster: the peer that acquires at cluster scope
 * sees this thread's earlier writes. Only the sink `_` is allowed as the state for shared::cluster.
 * The emulation's happens-before tracking cannot tell which barrier a raw shared::cluster address names:
 * kernels arrive through mbarrier_arrive_remote, which reports the edge. */
static __device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t bar_cluster)
{
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar_cluster) : "memory");
}

/* mapa + remote arrive: one arrival on the barrier at the same smem offset as bar_smem in CTA `cta_rank`
 * of the cluster (PTX ISA "mapa", "mbarrier.arrive"). */
static __device__ __forceinline__ void mbarrier_arrive_remote(uint64_t *bar_smem, uint32_t cta_rank)
{
    uint32_t bar_cluster;
    WSGEMM_HB(tmem_hb_on_arrive(cta_rank, smem_u32(bar_smem), 1u, 1));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(bar_cluster) : "r"(smem_u32(bar_smem)), "r"(cta_rank));
    mbarrier_arrive_cluster(bar_cluster);
}

/* mapa + remote arrive with .release.cta: one arrival on the barrier at bar_smem's offset in CTA
 * `cta_rank`, ordering only this thread's own earlier accesses at CTA scope. For a consumer that
 * publishes no data, only that its reads of a stage completed (the wgmma/MMA reads were already waited
 * for): ptxas emits .release.cluster as MEMBAR.ALL.GPU + ERRBAR before the arrive, .release.cta as the
 * bare arrive (CUTLASS's ClusterBarrier::arrive uses the same form). PTX ISA "mapa", "mbarrier.arrive". */
static __device__ __forceinline__ void mbarrier_arrive_remote_reads_done(uint64_t *bar_smem, uint32_t cta_rank)
{
    uint32_t bar_cluster;
    WSGEMM_HB(tmem_hb_on_arrive(cta_rank, smem_u32(bar_smem), 1u, 1));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(bar_cluster) : "r"(smem_u32(bar_smem)), "r"(cta_rank));
    asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];" ::"r"(bar_cluster) : "memory");
}

/* PTX ISA "mbarrier.arrive" (.expect_tx): raise the pending tx-count by `bytes`, then arrive once.
 * The TMA producer's call before issuing the copies that complete_tx on this barrier. */
static __device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t *bar_smem, uint32_t bytes)
{
    WSGEMM_HB(tmem_hb_on_arrive_local(bar_smem, 1u));
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar_smem)),
                 "r"(bytes)
                 : "memory");
}

/* PTX ISA "mbarrier.expect_tx": raise the pending tx-count by `bytes` WITHOUT arriving (e.g. a
 * leader that expects its peer's bytes as well). .relaxed.cta: it orders nothing by itself. */
static __device__ __forceinline__ void mbarrier_expect_tx(uint64_t *bar_smem, uint32_t bytes)
{
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar_smem)), "r"(bytes)
                 : "memory");
}

/* PTX ISA "mbarrier.test_wait/mbarrier.try_wait": try_wait.parity, CTA scope. Returns 1 once the phase
 * with parity `parity` has completed (the barrier's current phase parity differs from `parity`), 0 if
 * it has not completed within a system-dependent time. .acquire.cta pairs with arrivals made with
 * release.cta and with TMA complete_tx. */
static __device__ __forceinline__ uint32_t mbarrier_try_wait_parity(uint64_t *bar_smem, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_u32(bar_smem)), "r"(parity)
                 : "memory");
    return done;
}

/* PTX ISA "mbarrier.test_wait/mbarrier.try_wait": try_wait.parity, CTA scope, with suspendTimeHint: the
 * thread may be suspended up to `suspend_ns` nanoseconds (a ceiling: it resumes when the phase
 * completes). */
static __device__ __forceinline__ uint32_t mbarrier_try_wait_parity_hint(uint64_t *bar_smem, uint32_t parity,
                                                                         uint32_t suspend_ns)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2, %3;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_u32(bar_smem)), "r"(parity), "r"(suspend_ns)
                 : "memory");
    return done;
}

/* PTX ISA "mbarrier.test_wait/mbarrier.try_wait": try_wait.parity, CLUSTER scope, for barriers that
 * receive arrivals from other CTAs of the cluster (mbarrier_arrive_remote, multicast commits).
 * .acquire.cluster pairs with their .release.cluster, so the peer's writes before its arrival are
 * visible after the wait. The barrier itself is in this CTA's shared memory. */
static __device__ __forceinline__ uint32_t mbarrier_try_wait_parity_cluster(uint64_t *bar_smem, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_u32(bar_smem)), "r"(parity)
                 : "memory");
    return done;
}

/* PTX ISA "mbarrier.test_wait/mbarrier.try_wait": try_wait.parity, CLUSTER scope, with suspendTimeHint
 * (a ceiling in ns). */
static __device__ __forceinline__ uint32_t mbarrier_try_wait_parity_cluster_hint(uint64_t *bar_smem, uint32_t parity,
                                                                                 uint32_t suspend_ns)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2, %3;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_u32(bar_smem)), "r"(parity), "r"(suspend_ns)
                 : "memory");
    return done;
}

/* PTX ISA "mbarrier.test_wait/mbarrier.try_wait": test_wait.parity, CTA scope: never blocks (a pure
 * test), e.g. for tests that show a barrier has NOT completed yet. */
static __device__ __forceinline__ uint32_t mbarrier_test_wait_parity(uint64_t *bar_smem, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_u32(bar_smem)), "r"(parity)
                 : "memory");
    return done;
}

/* PTX ISA "membar/fence": fence.mbarrier_init.release.cluster makes this thread's prior
 * mbarrier.init writes visible to other CTAs of the cluster (their remote arrivals, multicast commits,
 * TMA complete_tx from the peer). Follow it with cluster_sync (or, for one CTA, __syncthreads). */
static __device__ __forceinline__ void fence_mbarrier_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* PTX ISA "membar/fence" (proxy fence): orders this thread's generic-proxy shared-memory accesses
 * with later async-proxy accesses (TMA, tensor core) to shared::cta, and vice versa. Needed after
 * mbarrier.init before TMA completes on the barrier, and after ordinary stores to smem a TMA store or an
 * MMA will read. */
static __device__ __forceinline__ void fence_proxy_async_shared_cta(void)
{
    WSGEMM_HB(tmem_hb_proxy_fence()); /* the emulation's async-proxy model: the warp's earlier writes are fenced */
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

#endif /* WSGEMM_SYNC_MBARRIER_CUH */
