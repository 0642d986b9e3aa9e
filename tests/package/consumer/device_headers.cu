// SPDX-License-Identifier: MIT
// device_headers.cu - compile-only check of the installed device headers: every header of
// <wsgemm/sync/...> and <wsgemm/tmem/...> included through the installed layout, and one kernel that
// instantiates the dealloc barrier's teardown. Built twice: for sm_100a with the tcgen05 backend
// (wsgemm::device, WSGEMM_TMEM_HARDWARE=1) and for sm_90a against the installed emulation
// (wsgemm::emulation), which is included first, as its headers require.
#if defined(WSGEMM_TMEM_EMULATION)
#include <wsgemm/emu/emulation.cuh>
#endif
#include <wsgemm/sync/cluster.cuh>
#include <wsgemm/sync/dealloc_barrier.cuh>
#include <wsgemm/sync/elect.cuh>
#include <wsgemm/sync/mbarrier.cuh>
#include <wsgemm/sync/named_barrier.cuh>
#include <wsgemm/sync/pipeline.cuh>
#include <wsgemm/sync/wait.cuh>
#include <wsgemm/tmem/dealloc_barrier_tmem.cuh>
#include <wsgemm/tmem/desc.h>
#include <wsgemm/tmem/tmem.cuh>

__global__ void device_headers_teardown(uint32_t taddr)
{
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        dealloc_barrier_init<1>(&bar);
        fence_mbarrier_init();
    }
    __syncthreads();
    if (threadIdx.x < DEALLOC_BARRIER_EPILOGUE_THREADS)
        dealloc_barrier_signal_complete<1>(&bar);
    else
        dealloc_barrier_complete_dealloc<1>(&bar, taddr);
}
