// SPDX-License-Identifier: MIT
/*
 * sync/clc.cuh - cluster launch control (CLC): the hand-off of "which unit of work next" from the one thread
 * that asks the hardware (the issuer) to every role of the CTA, or of the CTA pair, that must agree on it.
 *
 * The instructions (PTX ISA "Parallel Synchronization and Communication Instructions: clusterlaunchcontrol",
 * PTX 8.6, sm_100; the .multicast::cluster::all form sm_100a):
 *   clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes[.multicast::cluster::all].b128
 *     [response], [mbar];  asks to cancel the launch of a cluster of this grid that has not started yet; an
 *     opaque 16-byte response is written to `response` (in every CTA of the cluster with .multicast, at the
 *     same offset) by the async proxy, and a complete_tx of 16 bytes is performed on `mbar` (in every CTA).
 *     After a CTA has observed a failed response, issuing try_cancel again is undefined behaviour.
 *   clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, response;  did the cancel succeed?
 *   clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 x, response;  the %ctaid.x of the first
 *     CTA of the cancelled cluster (only defined when is_canceled): its work is now the caller's.
 *
 * The response is written by the async proxy and read by ordinary loads (generic proxy): the reads are
 * ordered after the write by the mbarrier phase the write's complete_tx completes (the same rule as a TMA
 * load), and each reader's reads must be ordered before the next async write into the slot by a
 * fence.proxy.async.shared::cta after them (cross-proxy write-after-read), released to the issuer by its
 * arrival on the slot's empty barrier. CUTLASS's PipelineCLCFetchAsync and the CUDA Programming Guide's
 * cluster launch control example read, fence, then release in this order.
 *
 * The protocol object: a ring of CLC_SLOTS response slots, each with a pair of barriers
 *
 *   issuer (one thread of rank 0) --try_cancel (complete_tx 16 B, multicast to the pair)--> full[q] (count 1,
 *        in every CTA; armed with arrive.expect_tx(16) by that CTA's arming thread, see clc_arm)
 *   every reader (one thread per reading warp, both CTAs) --read, fence.proxy.async, arrive--> empty[q] of
 *        rank 0 (count: the readers of the pair) --wait--> issuer, before it reissues slot q
 *
 * Responses are used in order: use i is slot i % CLC_SLOTS, phase parity (i / CLC_SLOTS) & 1 (a PipelineState
 * over CLC_SLOTS stages, sync/pipeline.cuh: readers start as consumers, the issuer as the producer, its empty
 * waits at parity 1 because the slots start empty). Every reader reads every response up to and including the
 * first failed one, so all roles see the same sequence of units and the same end. The last responses' empty
 * arrivals are not waited for by anyone: the kernel ends with a cluster barrier, so no CTA of a pair exits while
 * its peer may still arrive on its barriers.
 *
 * The emulation build (WSGEMM_TMEM_EMULATION, sm_90a, which has no CLC) issues through clc_emu_try_cancel
 * (emu/clc_emu.cuh, brought in by emu/emulation.cuh): an atomic counter in global memory stands in for the
 * hardware's queue of unlaunched clusters, and the same 16-byte response is written into the same slot with a
 * complete_tx on the same barrier (st.async), so barriers, phases and fences are those of the hardware path.
 * The response format is then the emulation's own (word 0: cancelled, word 2: first ctaid.x, so that both
 * 8-byte halves carry part of the answer, as they may on hardware), read only by clc_query. The emulation's
 * happens-before tracking (emu/hb.h, "cluster launch control response slots") follows each slot: try_cancel's
 * write, every role's read, the fence after it and the next try_cancel, through the hooks below (WSGEMM_HB:
 * nothing in other builds).
 */
#ifndef WSGEMM_SYNC_CLC_CUH
#define WSGEMM_SYNC_CLC_CUH

#include <stdint.h>

#include "cluster.cuh"
#include "hb_hook.cuh"
#include "mbarrier.cuh"
#include "pipeline.cuh"
#include "wait.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1000 && !defined(WSGEMM_TMEM_EMULATION)
#error "sync/clc.cuh: cluster launch control needs sm_100a, or the TMEM emulation build (emu/clc_emu.cuh) on sm_90a"
#endif
#if defined(WSGEMM_TMEM_EMULATION) && !defined(WSGEMM_EMU_CLC)
#error "WSGEMM_TMEM_EMULATION build: include emu/emulation.cuh (it brings emu/clc_emu.cuh) before sync/clc.cuh"
#endif

#define CLC_SLOTS 2u /* responses in flight: one being read while the next is fetched */
#if defined(WSGEMM_TMEM_EMULATION)
static_assert(CLC_SLOTS <= (unsigned)TMEM_HB_CLC_SLOTS, "the happens-before tracking follows every slot");
#endif
#define CLC_RESPONSE_BYTES 16 /* the complete_tx of one try_cancel */

/* The slots in shared memory: at the same offset in both CTAs of a pair (.multicast writes that offset). */
typedef struct ClcSlots {
    alignas(16) uint32_t response[CLC_SLOTS][4]; /* written by try_cancel (async proxy), 16-byte aligned */
    uint64_t full[CLC_SLOTS];                    /* response q landed (complete_tx), in every CTA */
    uint64_t empty[CLC_SLOTS];                   /* every reader of the pair read response q (rank 0's copy) */
} ClcSlots;

/* One response as read: the two halves loaded by ONE 16-byte load (a response read in two loads could mix two
 * uses of the slot). */
typedef struct ClcResponse {
    uint64_t lo, hi;
} ClcResponse;

/* What a response says. */
typedef struct ClcWork {
    uint32_t valid;         /* 1: a cluster was cancelled and its work is ours; 0: no more work, stop */
    uint32_t first_ctaid_x; /* %ctaid.x of the cancelled cluster's first CTA (valid only) */
} ClcWork;

/* One thread, with the kernel's other barrier set-up (before fence_mbarrier_init and the cluster sync that
 * publishes it): full[q] counts the arming arrival of this CTA; empty[q] (rank 0's is the one used) counts
 * `readers`, the reading threads of the whole pair. Each slot is then armed for its first use. */
static __device__ __forceinline__ void clc_init(ClcSlots *c, uint32_t readers)
{
    for (uint32_t q = 0; q < CLC_SLOTS; ++q) {
        mbarrier_init(&c->full[q], 1u);
        mbarrier_init(&c->empty[q], readers);
    }
    for (uint32_t q = 0; q < CLC_SLOTS; ++q) mbarrier_arrive_expect_tx(&c->full[q], (uint32_t)CLC_RESPONSE_BYTES);
}

/* The arming thread of each CTA (one per CTA, itself a reader) after it has read use i of slot q and before its
 * release of it: arm slot q for use i + CLC_SLOTS. Its arrival cannot count towards use i's phase, which it
 * has observed complete; a complete_tx landing before the arm is fine (the phase waits for the arrival). */
static __device__ __forceinline__ void clc_arm(ClcSlots *c, PipelineState at)
{
    mbarrier_arrive_expect_tx(&c->full[at.stage], (uint32_t)CLC_RESPONSE_BYTES);
}

#if !defined(WSGEMM_TMEM_EMULATION)
/* PTX ISA "clusterlaunchcontrol.try_cancel": this CTA's slot, completing on this CTA's barrier. */
static __device__ __forceinline__ void clusterlaunchcontrol_try_cancel(uint32_t response_smem, uint32_t bar_smem)
{
    asm volatile(
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(
            response_smem),
        "r"(bar_smem)
        : "memory");
}

/* PTX ISA "clusterlaunchcontrol.try_cancel" .multicast::cluster::all (sm_100a): the response is written at the
 * same offset in every CTA of the cluster and completes on the barrier at bar_smem's offset in each. */
static __device__ __forceinline__ void clusterlaunchcontrol_try_cancel_multicast(uint32_t response_smem,
                                                                                 uint32_t bar_smem)
{
    asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::"
                 "all.b128 [%0], [%1];" ::"r"(response_smem),
                 "r"(bar_smem)
                 : "memory");
}

/* PTX ISA "clusterlaunchcontrol.query_cancel" .is_canceled (the two halves moved into one .b128 register). */
static __device__ __forceinline__ uint32_t clusterlaunchcontrol_query_cancel_is_canceled(ClcResponse r)
{
    uint32_t canceled;
    asm volatile("{\n\t.reg .b128 resp;\n\t.reg .pred p;\n\t"
                 "mov.b128 resp, {%1, %2};\n\t"
                 "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, resp;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(canceled)
                 : "l"(r.lo), "l"(r.hi)
                 : "memory");
    return canceled;
}

/* PTX ISA "clusterlaunchcontrol.query_cancel" .get_first_ctaid::x (defined only for a cancelled response). */
static __device__ __forceinline__ uint32_t clusterlaunchcontrol_query_cancel_get_first_ctaid_x(ClcResponse r)
{
    uint32_t x;
    asm volatile("{\n\t.reg .b128 resp;\n\t"
                 "mov.b128 resp, {%1, %2};\n\t"
                 "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, resp;\n\t}"
                 : "=r"(x)
                 : "l"(r.lo), "l"(r.hi)
                 : "memory");
    return x;
}
#endif

/* Where the emulation's stand-in takes its units from (emu/clc_emu.cuh); nothing on hardware, where the
 * queue of unlaunched clusters is the grid itself. */
typedef struct ClcSource {
#if defined(WSGEMM_TMEM_EMULATION)
    unsigned int *counter_gmem; /* clusters handed out so far, zeroed before the launch */
    uint32_t clusters_launched; /* the clusters the emulated grid really launched: the first unhanded one */
    uint32_t clusters_total;    /* the grid the hardware path would launch: one cluster per unit */
#else
    uint32_t unused;
#endif
} ClcSource;

/* The issuer (one thread of rank 0): wait until every reader of the pair released slot `at.stage`'s last use,
 * then ask for the next cluster into it (multicast to both CTAs of a pair). Never after a failed response. */
template <int kCtaGroup>
static __device__ __forceinline__ void clc_issue(ClcSlots *c, PipelineState at, const ClcSource &src)
{
    mbarrier_wait(&c->empty[at.stage], at.phase, kCtaGroup == 2 ? WAIT_CLUSTER : WAIT_CTA, 0, "clc.empty", at.stage);
    WSGEMM_HB(tmem_hb_clc_issue(at.stage, smem_u32(&c->full[at.stage]), kCtaGroup == 2));
#if defined(WSGEMM_TMEM_EMULATION)
    clc_emu_try_cancel(c->response[at.stage], &c->full[at.stage], kCtaGroup == 2, src.counter_gmem,
                       src.clusters_launched, src.clusters_total, (uint32_t)kCtaGroup);
#else
    (void)src;
    if (kCtaGroup == 2)
        clusterlaunchcontrol_try_cancel_multicast(smem_u32(c->response[at.stage]), smem_u32(&c->full[at.stage]));
    else
        clusterlaunchcontrol_try_cancel(smem_u32(c->response[at.stage]), smem_u32(&c->full[at.stage]));
#endif
}

/* PTX ISA "ld" .shared .v2.b64: the whole 16-byte response of slot q in one load. */
static __device__ __forceinline__ ClcResponse clc_response_load(const ClcSlots *c, uint32_t q)
{
    ClcResponse r;
    WSGEMM_HB(tmem_hb_clc_read(q));
    asm volatile("ld.shared.v2.b64 {%0, %1}, [%2];"
                 : "=l"(r.lo), "=l"(r.hi)
                 : "r"(smem_u32(c->response[q]))
                 : "memory");
    return r;
}

/* PTX ISA "membar/fence" fence.proxy.async.shared::cta after a read of slot q: the generic read is ordered before
 * the async proxy's next write into the slot (the next try_cancel, issued after this thread's release). */
static __device__ __forceinline__ void clc_fence_after_read(uint32_t q)
{
    fence_proxy_async_shared_cta();
    WSGEMM_HB(tmem_hb_clc_fenced(q));
}

/* What a loaded response says: the hardware's query, or the emulation's format. */
static __device__ __forceinline__ ClcWork clc_query(ClcResponse r)
{
    ClcWork w;
#if defined(WSGEMM_TMEM_EMULATION)
    w.valid = (uint32_t)(r.lo & 1u);
    w.first_ctaid_x = w.valid ? (uint32_t)r.hi : 0u;
#else
    w.valid = clusterlaunchcontrol_query_cancel_is_canceled(r);
    w.first_ctaid_x = w.valid ? clusterlaunchcontrol_query_cancel_get_first_ctaid_x(r) : 0u;
#endif
    return w;
}

/* The reader's release of response `at`: one arrival on rank 0's empty[q] (a remote one from the peer). */
template <int kCtaGroup>
static __device__ __forceinline__ void clc_release(ClcSlots *c, PipelineState at, uint32_t rank)
{
    if (kCtaGroup == 1 || rank == 0)
        mbarrier_arrive(&c->empty[at.stage]);
    else
        mbarrier_arrive_remote(&c->empty[at.stage], 0u);
}

/* A reader (one thread per reading warp, in either CTA): wait for response `at`, read it whole, and order the
 * read before the slot's next async write (fence.proxy.async). The caller releases it with clc_release once
 * it has what it needs (after clc_arm, for the arming thread). */
template <int kCtaGroup>
static __device__ __forceinline__ ClcWork clc_wait_read(ClcSlots *c, PipelineState at, uint32_t rank)
{
    /* rank 0 waits on the completion of its own try_cancel (CTA scope); the peer's response was multicast
     * from rank 0's issue: cluster scope */
    mbarrier_wait(&c->full[at.stage], at.phase, kCtaGroup == 2 && rank != 0 ? WAIT_CLUSTER : WAIT_CTA, 0, "clc.full",
                  at.stage);
    const ClcResponse r = clc_response_load(c, at.stage);
    clc_fence_after_read(at.stage); /* our generic read of the slot before the next try_cancel's async write */
    return clc_query(r);
}

#endif /* WSGEMM_SYNC_CLC_CUH */
