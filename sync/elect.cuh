// SPDX-License-Identifier: MIT
/*
 * sync/elect.cuh - elect.sync: one thread of the warp is chosen, without a branch on the lane index.
 * Used for the single thread that issues TMA copies, tcgen05.mma and tcgen05.commit (a whole warp
 * issuing tcgen05.mma would issue 32 MMAs). Compiles for sm_90a and sm_100a (elect.sync needs sm_90).
 */
#ifndef WSGEMM_SYNC_ELECT_CUH
#define WSGEMM_SYNC_ELECT_CUH

#include <stdint.h>

/* PTX ISA "elect.sync": among the threads of membermask 0xffffffff (all 32 must execute it, converged),
 * returns 1 in exactly one (the leader) and 0 in the others. */
static __device__ __forceinline__ uint32_t elect_one_sync(void)
{
    uint32_t is_leader;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 ".reg .b32 leader;\n\t"
                 "elect.sync leader|p, 0xffffffff;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(is_leader)
                 :
                 : "memory");
    return is_leader;
}

#endif /* WSGEMM_SYNC_ELECT_CUH */
