// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_shard.cu - the instantiations of one shard of the kernel table (sm90_kernels.def): for each row
 * whose shard column names it, sm90_row_<name>(p_mn, q_mn), the kernels of that row (sm90_kernel_of_row).
 * The shard is chosen by defining SM90_SHARD_<shard> as SM90_PROBE() before this file: gemm/CMakeLists.txt writes
 * one such translation unit per shard of the table (sm90_inst_<shard>.cu in the build tree), so that the build
 * compiles the shards in parallel. Rows of other shards, and rows this build leaves out (SM90_BUILT, sm90_table.h),
 * expand to nothing here.
 */
#include "sm90/sm90_kernel.cuh"
#include "sm90/sm90_table.h"

/* SM90_IN_SHARD(shard) is 1 when SM90_SHARD_<shard> is defined as SM90_PROBE(), else 0 (a preprocessor probe:
 * the defined name expands to two arguments, an undefined one stays one). */
#define SM90_PROBE()            ~, 1
#define SM90_SECOND_(a, b, ...) b
#define SM90_SECOND(...)        SM90_SECOND_(__VA_ARGS__, 0, )
#define SM90_IS_PROBE(x)        SM90_SECOND(x, 0)
#define SM90_IN_SHARD(shard)    SM90_IS_PROBE(SM90_SHARD_##shard)
#define SM90_CAT_(a, b)         a##b
#define SM90_CAT(a, b)          SM90_CAT_(a, b)
#define SM90_WHEN_0(...)
#define SM90_WHEN_1(...) __VA_ARGS__
#define SM90_WHEN(cond)  SM90_CAT(SM90_WHEN_, cond)

#define SM90_ROW(name, variant, in, scales, bm, bn, bk, stages, cluster, consumers, schedule, c_bytes, fused, mn) \
    static_assert((bm) == SM90_BM && (bk) == SM90_BK_OF(in) && (consumers) == 2,                                  \
                  "row " #name ": the kernel's CTA tile is SM90_BM x BN, its K step SM90_BK_OF(in), with two "    \
                  "consumer warpgroups");                                                                         \
    Sm90KernelInfo sm90_row_##name(int p_mn, int q_mn)                                                            \
    {                                                                                                             \
        return sm90_kernel_of_row<mn, bn, stages, cluster, in, scales, c_bytes, schedule, fused>(p_mn, q_mn);     \
    }

#define SM90_KERNEL(name, shard, variant, in, scales, bm, bn, bk, stages, cluster, consumers, schedule, c_bytes, \
                    fused, mn, by)                                                                               \
    SM90_WHEN(SM90_PICK(SM90_BUILT(by), SM90_IN_SHARD(shard), 0))                                                \
    (SM90_ROW(name, variant, in, scales, bm, bn, bk, stages, cluster, consumers, schedule, c_bytes, fused, mn))
#include "sm90/sm90_kernels.def"
#undef SM90_KERNEL
