// SPDX-License-Identifier: MIT
/*
 * sync/wait.cuh - the one blocking mbarrier wait every wsgemm kernel uses, with the watchdog.
 *
 * mbarrier_wait(bar_smem, parity, scope, suspend_ns, name, index) loops on try_wait.parity until the
 * phase with parity `parity` has completed.
 *   scope      WAIT_CTA: arrivals come from this CTA (and TMA complete_tx / commits to this CTA);
 *              WAIT_CLUSTER: some arrivals come from a peer CTA (remote arrive, multicast commit), so the
 *              acquire must be at cluster scope to see the peer's writes.
 *   suspend_ns 0: try_wait without a hint (returns after a short hardware-chosen time; the loop spins);
 *              otherwise the suspendTimeHint in ns (a ceiling: the thread wakes when the phase completes).
 *   name,index how the watchdog names the barrier ("full", 3 -> "full[3]").
 *
 * Watchdog (compile with WSGEMM_WATCHDOG=1; CMake option WSGEMM_WATCHDOG, ON in Debug): the wait is
 * bounded by WSGEMM_WATCHDOG_NS nanoseconds of %globaltimer (default 10 s: far beyond any legitimate
 * wait, even under compute-sanitizer, yet short enough for CI). On expiry the lowest active lane of the
 * warp prints barrier name and index, parity, blockIdx, cluster rank, warp and lane, then the thread
 * executes trap: the launch fails with cudaErrorLaunchFailure instead of hanging. Without the watchdog
 * the loop compiles to the bare try_wait spin (name and index are dropped).
 * WSGEMM_WATCHDOG_TRAP_NS (default: WSGEMM_WATCHDOG_NS) separates the two: the report comes after
 * WSGEMM_WATCHDOG_NS, the trap after WSGEMM_WATCHDOG_TRAP_NS. The first trap ends the launch, so with one
 * deadline only the waiter that started first is named; with a later trap every wait stuck for
 * WSGEMM_WATCHDOG_NS in the meantime reports too (CMake: WSGEMM_WATCHDOG_NS, WSGEMM_WATCHDOG_TRAP_NS).
 */
#ifndef WSGEMM_SYNC_WAIT_CUH
#define WSGEMM_SYNC_WAIT_CUH

#include <stdint.h>
#include <stdio.h>

#include "cluster.cuh"
#include "mbarrier.cuh"

#ifndef WSGEMM_WATCHDOG
#define WSGEMM_WATCHDOG 0
#endif
#ifndef WSGEMM_WATCHDOG_NS
#define WSGEMM_WATCHDOG_NS 10000000000ull
#endif
#ifndef WSGEMM_WATCHDOG_TRAP_NS
#define WSGEMM_WATCHDOG_TRAP_NS WSGEMM_WATCHDOG_NS
#endif

enum wait_scope { WAIT_CTA = 0, WAIT_CLUSTER = 1 };

/* PTX ISA "Special Registers: %globaltimer": a 64-bit nanosecond timer (global across SMs, so it keeps
 * counting while the thread is suspended in try_wait). */
static __device__ __forceinline__ uint64_t globaltimer_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

/* One try_wait of the variant the arguments select. Where scope and suspend_ns are compile-time constants
 * this folds to one instruction; where the scope depends on the CTA's rank in its pair (a wait that is local
 * in the leader and remote in the peer) it is a uniform branch per try. */
static __device__ __forceinline__ uint32_t mbarrier_try_wait_select(uint64_t *bar_smem, uint32_t parity,
                                                                    enum wait_scope scope, uint32_t suspend_ns)
{
    if (scope == WAIT_CLUSTER) {
        return suspend_ns ? mbarrier_try_wait_parity_cluster_hint(bar_smem, parity, suspend_ns)
                          : mbarrier_try_wait_parity_cluster(bar_smem, parity);
    }
    return suspend_ns ? mbarrier_try_wait_parity_hint(bar_smem, parity, suspend_ns)
                      : mbarrier_try_wait_parity(bar_smem, parity);
}

/* The watchdog's report, and its trap once `trap` is set; noinline keeps printf's stack out of the wait loop.
 * The report names the lanes waiting together: a warp split across a wait shows as two reports. It does
 * not print the barrier's 64 bits: the PTX ISA leaves them opaque, and on an H200 a plain shared-memory
 * load read 0 from barriers that had just been initialised and worked. */
static __device__ __noinline__ void watchdog_fire(const uint64_t *bar_smem, const char *name, uint32_t index,
                                                  uint32_t parity, uint64_t waited_ns, int trap)
{
    uint32_t lane = threadIdx.x % 32;
    uint32_t active = __activemask();
    uint32_t leader = (uint32_t)__ffs(active) - 1;
    if (lane == leader) {
        printf("wsgemm watchdog: wait on %s[%u] parity %u %s after %llu ms: block (%d,%d,%d) cluster rank %u "
               "warp %u lanes 0x%08x, barrier at shared 0x%x\n",
               name, index, parity, trap ? "timed out" : "still waiting", (unsigned long long)(waited_ns / 1000000ull),
               (int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z, cluster_ctarank(), (uint32_t)(threadIdx.x / 32),
               active, smem_u32(bar_smem));
    }
    if (trap) __trap();
}

#if defined(WSGEMM_TMEM_EMULATION)
/* The emulation build, after a wait returned: the lanes that entered together meet (__syncwarp over the
 * entry mask) and acquire the phase as one update. Not inlined, so the __syncwarp is one instruction in
 * the whole program: lanes of one warp waiting at two different __syncwarp sites do not release each
 * other on sm_90, and a copy per call site, or per exit of a wait loop, once left one lane of an epilogue
 * warp at its copy for good while the other 31 waited at another. */
static __device__ __noinline__ void mbarrier_wait_observed(const uint64_t *bar_smem, uint32_t parity, const char *name,
                                                           uint32_t index, unsigned entry_mask)
{
    __syncwarp(entry_mask);
    tmem_hb_on_wait(bar_smem, parity, name, index);
}
#endif

static __device__ __forceinline__ void mbarrier_wait(uint64_t *bar_smem, uint32_t parity, enum wait_scope scope,
                                                     uint32_t suspend_ns, const char *name, uint32_t index)
{
    /* The emulation build: the lanes that enter together leave the loop at different iterations; they meet
     * again in mbarrier_wait_observed. */
    WSGEMM_HB(const unsigned hb_mask = __activemask());
#if WSGEMM_WATCHDOG
    if (!mbarrier_try_wait_select(bar_smem, parity, scope, suspend_ns)) {
        const uint64_t start = globaltimer_ns();
        int reported = 0;
        while (!mbarrier_try_wait_select(bar_smem, parity, scope, suspend_ns)) {
            const uint64_t waited = globaltimer_ns() - start;
            if (waited > (uint64_t)WSGEMM_WATCHDOG_TRAP_NS) {
                watchdog_fire(bar_smem, name, index, parity, waited, 1);
            } else if (!reported && waited > (uint64_t)WSGEMM_WATCHDOG_NS) {
                watchdog_fire(bar_smem, name, index, parity, waited, 0);
                reported = 1;
            }
        }
    }
#else
    (void)name;
    (void)index;
    while (!mbarrier_try_wait_select(bar_smem, parity, scope, suspend_ns)) {
    }
#endif
    /* After the loop, never inside it: the lanes leave it at different iterations (sync/hb_hook.cuh). The
     * emulation build acquires the phase here and names the barrier in later race reports. */
    WSGEMM_HB(mbarrier_wait_observed(bar_smem, parity, name, index, hb_mask));
}

#endif /* WSGEMM_SYNC_WAIT_CUH */
