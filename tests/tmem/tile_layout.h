// SPDX-License-Identifier: MIT
/*
 * tile_layout.h - the test's own model of operand tiles in shared memory, as TMA writes them, and the
 * descriptors a kernel author encodes for them (host + device). Shared by test_tmem_emu.cu (GPU) and
 * test_layout.cu (CPU). Written from the TMA box geometry, independently of the emulation's descriptor
 * decoding, so that the two can be checked against each other.
 */
#ifndef WSGEMM_TESTS_TMEM_TILE_LAYOUT_H
#define WSGEMM_TESTS_TMEM_TILE_LAYOUT_H

#include <stdint.h>

#include "tmem/desc.h"

enum { MAJ_K = 0, MAJ_MN = 1 };

typedef struct operand_layout {
    int major;   /* MAJ_K or MAJ_MN */
    int swizzle; /* 0 (interleaved core matrices), 32, 64, 128 bytes */
} operand_layout;

static inline __host__ __device__ umma_swizzle swizzle_code(int swizzle)
{
    return swizzle == 128  ? UMMA_SWIZZLE_128B
           : swizzle == 64 ? UMMA_SWIZZLE_64B
           : swizzle == 32 ? UMMA_SWIZZLE_32B
                           : UMMA_SWIZZLE_NONE;
}

/* Byte offset, inside a 1024-B aligned tile of `rows` (M or N) x K elements of eb bytes (2: f16/bf16, 1: FP8), of
 * element (i, k), as TMA would place it: K-major swizzled = boxes of swizzle bytes along K, one row per M/N
 * index; MN-major swizzled = boxes of swizzle bytes along M/N, one row per K index; no swizzle = 8 x 16-B core
 * matrices. Then the swizzle: the 16-B chunk index (bits 4..) XOR the 128-B row index (bits 7..) in the atom. */
static inline __host__ __device__ uint32_t tile_offset_eb(operand_layout L, uint32_t i, uint32_t k, uint32_t rows,
                                                          uint32_t K, uint32_t eb)
{
    const uint32_t c = 16 / eb; /* elements in one 16-B core-matrix row */
    uint32_t off;
    if (L.major == MAJ_K) {
        if (L.swizzle == 0) {
            off = (k / c) * (rows * 16) + (i / 8) * 128 + (i % 8) * 16 + (k % c) * eb;
        } else {
            uint32_t w = L.swizzle / eb; /* elements per box row */
            off = (k / w) * (rows * L.swizzle) + i * L.swizzle + (k % w) * eb;
        }
    } else {
        if (L.swizzle == 0) {
            off = (i / c) * ((K / 8) * 128) + (k / 8) * 128 + (k % 8) * 16 + (i % c) * eb;
        } else {
            uint32_t w = L.swizzle / eb;
            off = (i / w) * (K * L.swizzle) + k * L.swizzle + (i % w) * eb;
        }
    }
    uint32_t mask = L.swizzle ? (uint32_t)L.swizzle / 16 - 1 : 0;
    return off ^ (((off >> 7) & mask) << 4);
}

static inline __host__ __device__ uint32_t tile_offset(operand_layout L, uint32_t i, uint32_t k, uint32_t rows,
                                                       uint32_t K)
{
    return tile_offset_eb(L, i, k, rows, K, 2);
}

/* The descriptor a kernel author writes for instruction step s of that tile: 32 bytes of K per step (K elements
 * 16s .. 16s+15 of 16-bit data, 32s .. 32s+31 of FP8). */
static inline __host__ __device__ uint64_t tile_desc_eb(operand_layout L, uint32_t tile_saddr, uint32_t rows,
                                                        uint32_t K, uint32_t s, uint32_t eb)
{
    const uint32_t ks = 32 / eb; /* K elements per step */
    const uint32_t c = 16 / eb;
    uint32_t start, lbo, sbo;
    if (L.major == MAJ_K) {
        if (L.swizzle == 0) {
            start = tile_saddr + (ks * s / c) * (rows * 16);
            lbo = rows * 16; /* next core matrix along K */
            sbo = 128;       /* next 8 rows */
        } else {
            uint32_t w = L.swizzle / eb;
            start = tile_saddr + (ks * s / w) * (rows * L.swizzle) + (ks * s % w) * eb;
            lbo = 0;
            sbo = 8 * L.swizzle;
        }
    } else {
        if (L.swizzle == 0) {
            start = tile_saddr + (ks * s / 8) * 128;
            lbo = 128;           /* next 8 K rows */
            sbo = (K / 8) * 128; /* next core matrix along M/N */
        } else {
            start = tile_saddr + ks * s * L.swizzle;
            lbo = K * L.swizzle; /* next swizzle atom along M/N */
            sbo = 8 * L.swizzle; /* next 8 K rows */
        }
    }
    return umma_smem_desc_encode(start, lbo, sbo, swizzle_code(L.swizzle));
}

static inline __host__ __device__ uint64_t tile_desc(operand_layout L, uint32_t tile_saddr, uint32_t rows, uint32_t K,
                                                     uint32_t s)
{
    return tile_desc_eb(L, tile_saddr, rows, K, s, 2);
}

#endif /* WSGEMM_TESTS_TMEM_TILE_LAYOUT_H */
