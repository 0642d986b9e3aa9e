// SPDX-License-Identifier: MIT
/*
 * tests/sync/dealloc_kernels.cuh - the dealloc-barrier test kernel, shared by dealloc_barrier.cu (the
 * positive tests) and watchdog_negative.cu (the wrong-count test).
 *
 * Each CTA: warps 0..3 are the 128 "epilogue" threads that signal, warp 4 is the "MMA warp" that waits.
 * One round:
 *   thread 0: dealloc_barrier_init<CG>(bar, 128) (or a planted wrong count), zero the counters;
 *   cluster_sync (CG 2) / __syncthreads (CG 1);
 *   each signalling thread: random delay (one randomly chosen thread of the CTA sleeps long, so the
 *     last arrival comes well after the others), then it records itself BEFORE arriving:
 *       own counter += 1 and own flags[t] = round+1;
 *       CG 2 also: the peer's counter += 1 and the peer's peer_flags[t] = round+1 (distributed smem);
 *     then dealloc_barrier_signal_complete<CG>(bar) (CG 2: remote arrive on the peer, then self);
 *   the waiter warp: dealloc_barrier_wait<CG>(bar, ticks), then reads the counter and the flags: all
 *     128 x CG arrivals must have been recorded, or the waiter passed before the last arrival;
 *   cluster_sync / __syncthreads; thread 0 invalidates the barrier for the next round.
 * The arrivals carry release semantics (cluster scope for the peer's) and the wait acquires (cluster
 * scope for CG 2), so every record made before an arrival is visible after the wait.
 */
#ifndef WSGEMM_TESTS_SYNC_DEALLOC_KERNELS_CUH
#define WSGEMM_TESTS_SYNC_DEALLOC_KERNELS_CUH

#include <stdint.h>

#include "sync/cluster.cuh"
#include "sync/dealloc_barrier.cuh"
#include "test_util.cuh"

enum { DB_SIGNALLERS = 128, DB_THREADS = DB_SIGNALLERS + 32, DB_SHORT_DELAY_NS = 500, DB_LONG_DELAY_NS = 30000 };

struct DeallocSmem {
    uint64_t bar;
    uint32_t counter;                   /* own signallers + (CG 2) the peer's signallers */
    uint32_t flags[DB_SIGNALLERS];      /* written by own signaller t before its arrival */
    uint32_t peer_flags[DB_SIGNALLERS]; /* CG 2: written by the peer's signaller t before its arrival */
};

struct DeallocResult {
    uint32_t rounds_done;
    uint32_t early_passes; /* rounds in which the waiter saw fewer records than arrivals */
    uint32_t first_round, first_counter, first_missing_flag;
    uint32_t smid, cluster_rank;
};

template <int kCtaGroup>
__global__ void __launch_bounds__(DB_THREADS, 1)
    dealloc_barrier_kernel(DeallocResult *results, uint32_t rounds, uint32_t ticks, uint32_t count_delta, uint32_t seed)
{
    __shared__ DeallocSmem smem;
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, cta = blockIdx.x;
    const uint32_t expected = (uint32_t)DB_SIGNALLERS * kCtaGroup;
    DeallocResult *res = &results[cta];
    uint32_t rng = rng_seed(seed, cta, threadIdx.x);
    DeallocSmem *peer = NULL;
    if (kCtaGroup == 2) peer = (DeallocSmem *)__cluster_map_shared_rank(&smem, cluster_ctarank() ^ 1u);

    for (uint32_t round = 0; round < rounds; ++round) {
        if (threadIdx.x == 0) {
            /* count_delta != 0 plants a wrong arrival count (the negative tests). */
            dealloc_barrier_init<kCtaGroup>(&smem.bar, DB_SIGNALLERS + count_delta);
            smem.counter = 0;
            fence_mbarrier_init();
        }
        if (threadIdx.x < DB_SIGNALLERS) {
            smem.flags[threadIdx.x] = 0;
            smem.peer_flags[threadIdx.x] = 0;
        }
        /* CG 2: the peer's barrier must be initialised (and its counters zeroed) before we touch them. */
        __syncwarp(); /* barrier.cluster is .aligned: reconverge after the per-lane code */
        if (kCtaGroup == 2)
            cluster_sync();
        else
            __syncthreads();

        if (warp < DB_SIGNALLERS / 32) {
            /* One slow signaller per CTA and round (the same choice in all threads of the CTA, a
             * different one in the peer), so the last arrival comes long after the others. */
            uint32_t pick = payload_word(cta, round, 7u) % DB_SIGNALLERS;
            if (threadIdx.x == pick)
                sleep_ns(DB_LONG_DELAY_NS / 2 + rng_next(&rng) % (DB_LONG_DELAY_NS / 2));
            else
                random_delay(&rng, DB_SHORT_DELAY_NS);
            atomicAdd(&smem.counter, 1u);
            smem.flags[threadIdx.x] = round + 1;
            if (kCtaGroup == 2) {
                atomicAdd(&peer->counter, 1u);
                peer->peer_flags[threadIdx.x] = round + 1;
            }
            dealloc_barrier_signal_complete<kCtaGroup>(&smem.bar);
        } else {
            dealloc_barrier_wait<kCtaGroup>(&smem.bar, ticks);
            uint32_t seen = *(volatile uint32_t *)&smem.counter;
            uint32_t missing = 0xFFFFFFFFu;
            for (uint32_t t = lane; t < DB_SIGNALLERS; t += 32) {
                if (((volatile uint32_t *)smem.flags)[t] != round + 1) missing = t;
                if (kCtaGroup == 2 && ((volatile uint32_t *)smem.peer_flags)[t] != round + 1)
                    missing = DB_SIGNALLERS + t;
            }
            uint32_t bad = seen != expected || missing != 0xFFFFFFFFu;
            if (__any_sync(0xFFFFFFFFu, bad) && lane == (uint32_t)(__ffs(__ballot_sync(0xFFFFFFFFu, bad)) - 1)) {
                if (res->early_passes++ == 0) {
                    res->first_round = round;
                    res->first_counter = seen;
                    res->first_missing_flag = missing;
                }
            }
        }

        /* Nobody re-initialises a barrier the peer may still arrive on, and nobody exits early. */
        __syncwarp();
        if (kCtaGroup == 2)
            cluster_sync();
        else
            __syncthreads();
        if (threadIdx.x == 0) {
            /* A planted count below the arrivals put (arrivals - count) arrivals into phase 1 that no
             * waiter observed. Complete phase 1 here and wait for it, so that every arrival (the peer's
             * remote ones included) has landed and the barrier is between phases when it is invalidated. */
            const uint32_t count = (DB_SIGNALLERS + count_delta) * kCtaGroup;
            if (count < expected) {
                mbarrier_arrive_count(&smem.bar, 2u * count - expected);
                mbarrier_wait(&smem.bar, 1u, kCtaGroup == 2 ? WAIT_CLUSTER : WAIT_CTA, 0u, "dealloc_drain", round);
            }
            mbarrier_inval(&smem.bar);
        }
    }
    if (threadIdx.x == 0) {
        res->rounds_done = rounds;
        res->smid = sm_id();
        res->cluster_rank = cluster_ctarank();
    }
}

#endif /* WSGEMM_TESTS_SYNC_DEALLOC_KERNELS_CUH */
