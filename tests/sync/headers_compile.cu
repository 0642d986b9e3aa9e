// SPDX-License-Identifier: MIT
/*
 * sync_headers_compile: every sync/ header compiled for sm_90a and sm_100a (the target's ARCHS), here
 * with the watchdog as the build sets it and in headers_compile_watchdog.cu with it forced on. If this
 * builds, the wrappers' PTX is accepted by ptxas for both architectures; main only reports that.
 * (tmem/dealloc_barrier_tmem.cuh, the TMEM half of the dealloc barrier, is compiled by
 * sync_dealloc_tmem_compile_hw, sync_teardown_emu and the sm100 kernels' builds.)
 */
#include <stdio.h>

#include "headers_compile_kernel.cuh"

__global__ void sync_headers_kernel_default(uint32_t *out)
{
    sync_headers_body(out);
}

int main(void)
{
    printf("sync_headers_compile: PASS: sync/{mbarrier,cluster,elect,named_barrier,wait,pipeline,dealloc_barrier}.cuh "
           "compiled for the archs of this target (90a;100a), watchdog default and forced on\n");
    return 0;
}
