// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_tile.h - the tile constants every sm90 kernel shares, for the kernel (sm90_kernel.cuh) and
 * the plan (sm90_plan.c) alike. Plain C.
 */
#ifndef WSGEMM_SM90_TILE_H
#define WSGEMM_SM90_TILE_H

enum {
    SM90_BM = 128,    /* P rows per CTA tile: two consumer warpgroups x 64 */
    SM90_BK = 64,     /* K per stage of 16-bit inputs: 64 x 2 B = one 128-byte swizzle row */
    SM90_BK_FP8 = 128 /* K per stage of FP8 inputs: 128 x 1 B, the same 128-byte row */
};

/* The input types of a kernel: the wgmma's A (P) and B (Q) element types. Both 16-bit (f16 or bf16), or
 * both FP8 in one of the three pairs wgmma and wsgemm_matmul take (not both E5M2). FP8 kernels read
 * K-major P and Q only and add each K block's FP8 sums into fp32 accumulators (sm90_kernel.cuh). */
enum {
    SM90_IN_F16 = 0,
    SM90_IN_BF16 = 1,
    SM90_IN_E4M3 = 2,      /* P E4M3, Q E4M3 */
    SM90_IN_E4M3_E5M2 = 3, /* P E4M3, Q E5M2 */
    SM90_IN_E5M2_E4M3 = 4  /* P E5M2, Q E4M3 */
};

/* K elements per stage (one 128-byte swizzle row) for input kind `in`. */
#define SM90_BK_OF(in) ((in) >= SM90_IN_E4M3 ? SM90_BK_FP8 : SM90_BK)

/* The kernel table's variants (sm90_kernel.cuh instantiates them, the plan chooses among them). */
enum {
    SM90_VARIANT_DEFAULT = 0,      /* 2-CTA cluster, the deepest ring that fits, cooperative */
    SM90_VARIANT_NO_CLUSTER = 1,   /* bf16, BN 256, K-major P only: a tuning comparison */
    SM90_VARIANT_THREE_STAGES = 2, /* bf16, BN 256, K-major P only: a tuning comparison */
    SM90_VARIANT_CLUSTER4 = 3,     /* 4-CTA cluster, BN 64 and 128: decode shapes */
    SM90_VARIANT_STAGED16 = 4,     /* the STAGED epilogue's C tile, 16-bit C, BN 256, 3 stages */
    SM90_VARIANT_STAGED32 = 5,     /* the STAGED epilogue's C tile, fp32 C, BN 128, 5 stages */
    SM90_VARIANT_PINGPONG = 6,     /* the pingpong schedule, BN 128, 6 stages, 2-CTA cluster */
    SM90_VARIANT_FUSED = 7         /* wsgemm_matmul's ops in the output op, BN 256 and 128, 2-CTA cluster,
                                      cooperative, swapped, DEFERRED / TMA epilogues, no split,
                                      beta == 0 */
};

/* The kernel table's other columns (sm90_kernels.def, sm90_table.h). How the consumer warpgroups share a CTA's
 * work (the values of wsgemm_schedule, common/plan.h; the kernel's kSched): */
enum {
    SM90_SCHED_COOPERATIVE = 0, /* both on one tile, its rows split between them */
    SM90_SCHED_PINGPONG = 1     /* each on its own tiles, taking turns */
};

/* How a kernel scales its FP8 operands (the kernel's kScales): */
enum {
    SM90_SCALES_TENSOR = 0,    /* one float per operand (or none: 16-bit inputs), read once */
    SM90_SCALES_BLOCK = 1,     /* wsgemm_matmul's float scale tensors (per row, 128-K block or 128 x 128 block),
                                  applied as each K block's sums are added: P's per row or per tile, Q's one per
                                  tile (BLK128x128_32F) or none in the blocks (OUTER_VEC_32F, applied at the end) */
    SM90_SCALES_BLOCK_COLS = 2 /* the same with Q's per column (VEC128_32F on Q): a multiply more per element */
};

/* Which P/Q majorness pairs a row instantiates, one bit per pair: bit (p_mn * 2 + q_mn). */
enum {
    SM90_MN_K_K = 1 << 0, /* K-major P and Q only */
    SM90_MN_P_K = 3,      /* K-major P, Q either way */
    SM90_MN_ALL = 15      /* all four pairs */
};

/* Who chooses a row. */
enum {
    SM90_BY_PLAN = 0,  /* the plan (sm90_plan.c) on its own */
    SM90_BY_KNOB = 1,  /* only when a knob asks for it (WSGEMM_SM90_VARIANT, WSGEMM_SM90_BN: docs/tuning.md) */
    SM90_BY_TUNING = 2 /* a tuning comparison (tests/sm90/sm90_tune.c), reached by WSGEMM_SM90_VARIANT */
};

#endif /* WSGEMM_SM90_TILE_H */
