/*
 * scripts/probes/named_barrier_handoff.cu - which form of the TMEM address hand-off does
 * compute-sanitizer synccheck accept? One warp (the "allocator", warp 1) publishes a value to four
 * other warps (2..5) through named barrier 1 with 160 threads, the way gemm/sm100 hands over the TMEM
 * base address. Before publishing, lane 0 of the allocator spins alone (as the emulated tcgen05.alloc
 * does), so the warp is diverged until its __syncwarp().
 *
 *   variant 0: both sides barrier.sync.aligned, at two different call sites (the kernel before the fix)
 *   variant 1: allocator __syncwarp + barrier.arrive.aligned, receivers barrier.sync.aligned
 *   variant 2: both sides barrier.sync (not .aligned)
 *
 * Run each variant under `compute-sanitizer --tool synccheck`; the program itself also checks that every
 * receiver saw the published value (exit 1 otherwise). Usage: named_barrier_handoff VARIANT [CLUSTER]
 * CLUSTER 2 launches clusters of two CTAs, as the cta_group 2 kernel does. Not part of the build: it is
 * compiled by the GPU script with nvcc -arch=sm_90a.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync/named_barrier.cuh"

static __device__ __forceinline__ void probe_barrier_sync_unaligned(uint32_t id, uint32_t nthreads)
{
    asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

__global__ void handoff_kernel(int variant, unsigned *spin_word, int *errors)
{
    __shared__ uint32_t slot;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 1) {
        if (lane == 0) { /* a lone lane spins, like the emulated allocator waiting for free columns */
            for (int i = 0; i < 64; ++i) atomicAdd(spin_word, 1u);
            *(volatile uint32_t *)&slot = 0xC0DE0000u + blockIdx.x;
        }
        __syncwarp();
        if (variant == 0) named_barrier_sync(1, 160);
        else if (variant == 1) named_barrier_arrive(1, 160);
        else probe_barrier_sync_unaligned(1, 160);
    } else if (warp >= 2) {
        if (variant == 2) probe_barrier_sync_unaligned(1, 160);
        else named_barrier_sync(1, 160);
        if (*(volatile uint32_t *)&slot != 0xC0DE0000u + blockIdx.x) atomicAdd(errors, 1);
    }
}

int main(int argc, char **argv)
{
    const int variant = argc > 1 ? atoi(argv[1]) : 0;
    const int cluster = argc > 2 ? atoi(argv[2]) : 1;
    unsigned *spin_word;
    int *errors, host_errors = 0;
    if (cudaMalloc(&spin_word, 4) != cudaSuccess || cudaMalloc(&errors, 4) != cudaSuccess) return 2;
    cudaMemset(errors, 0, 4);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(192);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = (unsigned)cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&cfg, handoff_kernel, variant, spin_word, errors);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(&host_errors, errors, 4, cudaMemcpyDeviceToHost);
    printf("variant %d cluster %d: %s, %d receivers saw a wrong value\n", variant, cluster, cudaGetErrorString(e),
           host_errors);
    return (e != cudaSuccess || host_errors != 0) ? 1 : 0;
}
