// SPDX-License-Identifier: MIT
/*
 * sync/pipeline.cuh - the phase bookkeeping and the protocol verbs of a full[s]/empty[s] ring.
 *
 *            producer                                   consumer
 *   producer_acquire(s): wait empty[s]        consumer_wait(s): wait full[s]
 *   ... fill stage s ...                        ... read stage s ...
 *   producer_commit(s) / TMA complete_tx  -->  full[s]
 *                        empty[s]  <--  consumer_release(s) / tcgen05.commit
 *
 * Parity rule (PTX ISA "mbarrier.test_wait/mbarrier.try_wait", phaseParity): try_wait.parity(P) succeeds
 * once the phase with parity P has completed. A fresh barrier is in phase 0, and the phase "before" it
 * (parity 1) counts as completed. So:
 *   - the consumer starts at phase 0: its first wait on full[s] blocks until the producer filled s;
 *   - the producer starts at phase 1: the buffers start EMPTY, so its first wait on each empty[s] must
 *     pass at once without anybody having arrived, and parity 1 is exactly the completed pre-phase.
 * Both sides step through stages 0..S-1 and flip their phase each time they wrap to stage 0. All phase
 * flipping in wsgemm happens in pipeline_state_advance; nowhere else writes `phase ^= 1`.
 *
 * The arrival counts are the kernel's business (mbarrier_init); the ring just names the barriers. A
 * TMA producer does not call producer_commit: it calls producer_arrive_expect_tx before issuing copies,
 * and the copies' complete_tx finish the phase. A tcgen05 consumer does not call consumer_release: its
 * tcgen05.commit arrives on empty[s] when the MMAs reading the stage are done.
 */
#ifndef WSGEMM_SYNC_PIPELINE_CUH
#define WSGEMM_SYNC_PIPELINE_CUH

#include <stdint.h>

#include "mbarrier.cuh"
#include "wait.cuh"

/* Where one side of a ring is: which stage it handles next and the parity of the phase it waits for. */
typedef struct PipelineState {
    uint32_t stage;
    uint32_t phase;
} PipelineState;

/* Consumers wait for the first fill: phase 0. */
static __device__ __forceinline__ PipelineState pipeline_consumer_start(void)
{
    PipelineState st = {0u, 0u};
    return st;
}

/* Producers start at phase 1 because all buffers start empty (see the parity rule above): the first
 * round of empty waits passes on the completed pre-phase of each fresh barrier. */
static __device__ __forceinline__ PipelineState pipeline_producer_start(void)
{
    PipelineState st = {0u, 1u};
    return st;
}

/* Next stage; flip the phase when wrapping around. `stages` is a compile-time constant at call sites. */
static __device__ __forceinline__ void pipeline_state_advance(PipelineState *st, uint32_t stages)
{
    st->stage += 1;
    if (st->stage == stages) {
        st->stage = 0;
        st->phase ^= 1u;
    }
}

/* A ring: `stages` pairs of barriers in shared memory, and how waits behave. `name` prefixes the
 * watchdog messages ("smem.full[3]" is printed as name "smem.full", index 3). */
typedef struct PipelineRing {
    uint64_t *full;  /* full[stages]: producer -> consumer ("stage s holds data") */
    uint64_t *empty; /* empty[stages]: consumer -> producer ("stage s may be overwritten") */
    uint32_t stages;
    enum wait_scope full_scope;  /* WAIT_CLUSTER when full[] gets arrivals from a peer CTA */
    enum wait_scope empty_scope; /* WAIT_CLUSTER when empty[] gets arrivals from a peer CTA */
    const char *full_name;
    const char *empty_name;
} PipelineRing;

/* One thread initialises all barriers of the ring; the caller then fences (fence_mbarrier_init,
 * fence_proxy_async_shared_cta where TMA completes on them) and syncs (cluster_sync / __syncthreads). */
static __device__ __forceinline__ void pipeline_init(const PipelineRing *ring, uint32_t full_count,
                                                     uint32_t empty_count)
{
    for (uint32_t s = 0; s < ring->stages; ++s) {
        mbarrier_init(&ring->full[s], full_count);
        mbarrier_init(&ring->empty[s], empty_count);
    }
}

/* Producer: wait until stage st.stage may be overwritten. */
static __device__ __forceinline__ void producer_acquire(const PipelineRing *ring, PipelineState st)
{
    mbarrier_wait(&ring->empty[st.stage], st.phase, ring->empty_scope, 0, ring->empty_name, st.stage);
}

/* Producer that writes the stage with ordinary stores: one arrival on full[s] (release.cta). */
static __device__ __forceinline__ void producer_commit(const PipelineRing *ring, PipelineState st)
{
    mbarrier_arrive(&ring->full[st.stage]);
}

/* TMA producer (one elected thread): announce `bytes` of async copies and arrive once; the copies'
 * complete_tx finish the phase. Call before issuing the copies that name full[s]. */
static __device__ __forceinline__ void producer_arrive_expect_tx(const PipelineRing *ring, PipelineState st,
                                                                 uint32_t bytes)
{
    mbarrier_arrive_expect_tx(&ring->full[st.stage], bytes);
}

/* Producer before it exits: wait until the consumer released every stage still in flight, i.e. one
 * more acquire on each of the `stages` next stages. A CTA must not exit while arrivals on its barriers
 * (possibly from a peer CTA or an async unit) are still to come. Takes the producer's state after its
 * last advance. */
static __device__ __forceinline__ void producer_tail(const PipelineRing *ring, PipelineState st)
{
    for (uint32_t i = 0; i < ring->stages; ++i) {
        producer_acquire(ring, st);
        pipeline_state_advance(&st, ring->stages);
    }
}

/* Consumer: wait until stage st.stage holds data. */
static __device__ __forceinline__ void consumer_wait(const PipelineRing *ring, PipelineState st)
{
    mbarrier_wait(&ring->full[st.stage], st.phase, ring->full_scope, 0, ring->full_name, st.stage);
}

/* Consumer done reading stage st.stage with ordinary loads: one arrival on this CTA's empty[s]. */
static __device__ __forceinline__ void consumer_release(const PipelineRing *ring, PipelineState st)
{
    mbarrier_arrive(&ring->empty[st.stage]);
}

/* Consumer release on the empty[s] of CTA `cta_rank` of the cluster (multicast producers: every CTA
 * that wrote into this CTA's stage must hear that it is free). The consumer only read the stage, so the
 * arrive needs no cluster-scope release (mbarrier_arrive_remote_reads_done: no GPU-wide fence). */
static __device__ __forceinline__ void consumer_release_remote(const PipelineRing *ring, PipelineState st,
                                                               uint32_t cta_rank)
{
    mbarrier_arrive_remote_reads_done(&ring->empty[st.stage], cta_rank);
}

#endif /* WSGEMM_SYNC_PIPELINE_CUH */
