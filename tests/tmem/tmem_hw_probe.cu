// SPDX-License-Identifier: MIT
/*
 * tmem_hw_probe.cu - a small sm_100a translation unit that uses every tmem/ hardware wrapper through the
 * tmem.cuh API, compiled (never run) by the CPU tests: the PTX is grepped for each instruction
 * (check_ptx.sh) and the SASS is counted (tools/sass_census.sh) against the reviewed
 * tmem_hw_probe.sass_census. Two kernels because one kernel may use only one cta_group.
 * extern "C" keeps the kernel names stable in PTX and SASS.
 */
#include "tmem/tmem.cuh"

template <int kCtaGroup>
static __device__ __forceinline__ void probe_body(uint32_t *out, uint64_t a_desc, uint64_t b_desc, uint32_t idesc)
{
    __shared__ uint32_t tmem_slot;
    __shared__ uint64_t bar;
    uint32_t warp = threadIdx.x / 32;
    uint32_t regs[128];
    if (warp == 0) tmem_alloc<kCtaGroup>(&tmem_slot, 512);
    tcgen05_fence_before_thread_sync();
    __syncthreads();
    tcgen05_fence_after_thread_sync();
    uint32_t tmem_base = tmem_slot;
    if (warp == 0) {
        umma_f16_warp<kCtaGroup>(tmem_base, a_desc, b_desc, idesc, 0);
        /* block-scaled MXFP8: the scale factors into TMEM, then the scaled MMA reading them */
        umma_cp_sf_warp<kCtaGroup>(tmem_base + 384, umma_sf_cp_desc((uint32_t)a_desc));
        umma_mma_scaled_warp<kCtaGroup>(tmem_base + 128, a_desc, b_desc, idesc, tmem_base + 384, tmem_base + 388, 1);
        if (kCtaGroup == 1)
            umma_commit_warp<kCtaGroup>(&bar);
        else
            umma_commit_multicast_warp<kCtaGroup>(&bar, 0x3);
    }
    uint32_t taddr = tmem_base + ((32u * (warp % 4)) << 16);
    uint32_t sum = 0;
    tmem_ld_32x32b_x16(taddr, regs);
    tmem_wait_ld();
    for (int i = 0; i < 16; i++) sum += regs[i];
    tmem_ld_32x32b_x32(taddr, regs);
    tmem_wait_ld_regs<32>(regs);
    for (int i = 0; i < 32; i++) sum += regs[i];
    tmem_ld_32x32b_x64(taddr, regs);
    tmem_wait_ld();
    for (int i = 0; i < 64; i++) sum += regs[i];
    tmem_ld_32x32b_x128(taddr, regs);
    tmem_wait_ld();
    for (int i = 0; i < 128; i++) sum += regs[i];
    tmem_ld_16x256b_x8(taddr, regs);
    tmem_wait_ld();
    for (int i = 0; i < 32; i++) sum += regs[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    tcgen05_fence_before_thread_sync();
    __syncthreads();
    if (warp == 0) {
        tmem_relinquish_alloc_permit<kCtaGroup>();
        tcgen05_fence_after_thread_sync();
        tmem_dealloc<kCtaGroup>(tmem_base, 512);
    }
}

extern "C" __global__ void __launch_bounds__(128, 1)
    tmem_probe_cg1(uint32_t *out, uint64_t a_desc, uint64_t b_desc, uint32_t idesc)
{
    probe_body<1>(out, a_desc, b_desc, idesc);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
    tmem_probe_cg2(uint32_t *out, uint64_t a_desc, uint64_t b_desc, uint32_t idesc)
{
    probe_body<2>(out, a_desc, b_desc, idesc);
}
