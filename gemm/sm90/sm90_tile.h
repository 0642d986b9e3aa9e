/*
 * gemm/sm90/sm90_tile.h - the tile constants every sm90 kernel shares, for the kernel (sm90_kernel.cuh) and
 * the plan (sm90_plan.c) alike. Plain C.
 */
#ifndef WSGEMM_SM90_TILE_H
#define WSGEMM_SM90_TILE_H

enum {
    SM90_BM = 128, /* P rows per CTA tile: two consumer warpgroups x 64 */
    SM90_BK = 64   /* K per stage: 64 x 2 B = one 128-byte swizzle row */
};

#endif /* WSGEMM_SM90_TILE_H */
