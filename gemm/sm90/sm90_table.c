// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_table.c - the rows of sm90_kernels.def as C data, and the lookup by row fields
 * (sm90_table.h). Host C, in the host library: the plan reads it in builds without the sm90 kernels too.
 */
#include "sm90/sm90_table.h"

#include "common/plan.h"

_Static_assert((int)SM90_SCHED_COOPERATIVE == (int)WSGEMM_SCHEDULE_COOPERATIVE &&
                   (int)SM90_SCHED_PINGPONG == (int)WSGEMM_SCHEDULE_PINGPONG,
               "a row's schedule is the plan's wsgemm_schedule");

#define SM90_KERNEL(name_, shard, variant_, in_, scales_, bm_, bn_, bk_, stages_, cluster_, consumers_, schedule_, \
                    c_bytes_, fused_, mn_, by_)                                                                    \
    {.name = #name_,                                                                                               \
     .variant = variant_,                                                                                          \
     .in = in_,                                                                                                    \
     .scales = scales_,                                                                                            \
     .bm = bm_,                                                                                                    \
     .bn = bn_,                                                                                                    \
     .bk = bk_,                                                                                                    \
     .stages = stages_,                                                                                            \
     .cluster = cluster_,                                                                                          \
     .consumers = consumers_,                                                                                      \
     .schedule = schedule_,                                                                                        \
     .c_bytes = c_bytes_,                                                                                          \
     .fused = fused_,                                                                                              \
     .mn = mn_,                                                                                                    \
     .by = by_,                                                                                                    \
     .built = SM90_BUILT(by_)},
const sm90_kernel_config sm90_kernel_table[SM90_KERNEL_ROWS] = {
#include "sm90/sm90_kernels.def"
};
#undef SM90_KERNEL

int sm90_kernel_find(int in, int scales, int variant, int bn, int p_mn, int q_mn)
{
    for (int r = 0; r < SM90_KERNEL_ROWS; ++r) {
        const sm90_kernel_config *k = &sm90_kernel_table[r];
        if (k->in == in && k->scales == scales && k->variant == variant && k->bn == bn &&
            sm90_kernel_has_pair(k, p_mn, q_mn))
            return r;
    }
    return -1;
}
