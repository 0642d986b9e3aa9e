// SPDX-License-Identifier: MIT
/* One device function that calls every wrapper of sync/ once, so ptxas sees every instruction variant. */
#ifndef WSGEMM_TESTS_SYNC_HEADERS_COMPILE_KERNEL_CUH
#define WSGEMM_TESTS_SYNC_HEADERS_COMPILE_KERNEL_CUH

#include "sync/cluster.cuh"
#include "sync/dealloc_barrier.cuh"
#include "sync/elect.cuh"
#include "sync/mbarrier.cuh"
#include "sync/named_barrier.cuh"
#include "sync/pipeline.cuh"
#include "sync/wait.cuh"

static __device__ __forceinline__ void sync_headers_body(uint32_t *out)
{
    __shared__ uint64_t full[2], empty[2], dealloc1, dealloc2;
    PipelineRing ring = {full, empty, 2u, WAIT_CTA, WAIT_CLUSTER, "full", "empty"};
    if (threadIdx.x == 0) {
        pipeline_init(&ring, 1u, 1u);
        dealloc_barrier_init<1>(&dealloc1);
        dealloc_barrier_init<2>(&dealloc2);
        fence_mbarrier_init();
        fence_proxy_async_shared_cta();
    }
    cluster_sync();
    PipelineState p = pipeline_producer_start(), c = pipeline_consumer_start();
    if (threadIdx.x / 32 == 0) {
        if (elect_one_sync()) {
            producer_acquire(&ring, p);
            producer_arrive_expect_tx(&ring, p, 0u);
            producer_commit(&ring, p);
            mbarrier_expect_tx(&full[1], 16u);
            pipeline_state_advance(&p, 2u);
            producer_tail(&ring, p);
        }
    } else {
        consumer_wait(&ring, c);
        consumer_release(&ring, c);
        consumer_release_remote(&ring, c, cluster_ctarank() ^ 1u);
        mbarrier_arrive_count(&empty[1], 1u);
        pipeline_state_advance(&c, 2u);
    }
    named_barrier_arrive(1u, 64u);
    named_barrier_sync(2u, 64u);
    dealloc_barrier_signal_complete<1>(&dealloc1);
    dealloc_barrier_signal_complete<2>(&dealloc2);
    dealloc_barrier_wait<1>(&dealloc1);
    dealloc_barrier_wait<2>(&dealloc2, DEALLOC_BARRIER_TICKS_DEFAULT);
    mbarrier_wait(&full[0], 0u, WAIT_CLUSTER, 1000u, "full", 0u);
    out[threadIdx.x] = cluster_ctarank() + cluster_nctarank() + cluster_id_x() + cluster_id_y() + cluster_count_x() +
                       cluster_ctaid_x() + mbarrier_test_wait_parity(&full[0], 0u) +
                       mapa_shared_cluster(smem_u32(&dealloc2), 0u) + (uint32_t)globaltimer_ns();
    cluster_arrive_relaxed();
    cluster_wait_acquire();
    if (threadIdx.x == 0) mbarrier_inval(&dealloc1);
}

#endif /* WSGEMM_TESTS_SYNC_HEADERS_COMPILE_KERNEL_CUH */
