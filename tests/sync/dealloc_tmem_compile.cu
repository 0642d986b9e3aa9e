// SPDX-License-Identifier: MIT
/*
 * sync_dealloc_tmem_compile_hw: tmem/dealloc_barrier_tmem.cuh against the tcgen05 hardware backend
 * (sm_100a, WSGEMM_TMEM_HARDWARE=1), cta_group 1 and 2 in separate kernels (ptxas rejects a mix in one
 * kernel). If this builds, ptxas accepted relinquish / wait / fence / dealloc; main only reports.
 */
#include <stdio.h>

#include "sync/named_barrier.cuh"
#include "tmem/dealloc_barrier_tmem.cuh"

template <int kCtaGroup>
__global__ void teardown_compile_kernel(uint32_t *out, uint32_t ticks)
{
    __shared__ uint64_t dealloc_bar;
    __shared__ uint32_t tmem_slot;
    if (threadIdx.x == 0) {
        dealloc_barrier_init<kCtaGroup>(&dealloc_bar);
        fence_mbarrier_init();
    }
    cluster_sync();
    if (threadIdx.x < 32) tmem_alloc<kCtaGroup>(&tmem_slot, 512);
    tcgen05_fence_before_thread_sync();
    named_barrier_sync(1, 160);
    tcgen05_fence_after_thread_sync();
    const uint32_t base = tmem_slot;
    cluster_sync();
    if (threadIdx.x < 32) {
        dealloc_barrier_complete_dealloc<kCtaGroup>(&dealloc_bar, base, ticks);
    } else {
        tcgen05_fence_before_thread_sync();
        dealloc_barrier_signal_complete<kCtaGroup>(&dealloc_bar);
    }
    out[threadIdx.x] = base;
}

template __global__ void teardown_compile_kernel<1>(uint32_t *, uint32_t);
template __global__ void teardown_compile_kernel<2>(uint32_t *, uint32_t);

int main(void)
{
    printf("sync_dealloc_tmem_compile_hw: PASS: dealloc_barrier_complete_dealloc<1|2> compiled for sm_100a with the "
           "tcgen05 backend\n");
    return 0;
}
