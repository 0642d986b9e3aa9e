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
    return swizzle == 128 ? UMMA_SWIZZLE_128B
           : swizzle == 64 ? UMMA_SWIZZLE_64B
           : swizzle == 32 ? UMMA_SWIZZLE_32B
                           : UMMA_SWIZZLE_NONE;
}

/* Byte offset, inside a 1024-B aligned tile of `rows` (M or N) x K 16-bit elements, of element (i, k), as TMA
 * would place it: K-major swizzled = boxes of swizzle bytes along K, one row per M/N index; MN-major
 * swizzled = boxes of swizzle bytes along M/N, one row per K index; no swizzle = 8x16-B core matrices.
 * Then the swizzle: the 16-B chunk index (bits 4..) XOR the 128-B row index (bits 7..) in the atom. */
static inline __host__ __device__ uint32_t tile_offset(operand_layout L, uint32_t i, uint32_t k, uint32_t rows, uint32_t K)
{
    uint32_t off;
    if (L.major == MAJ_K) {
        if (L.swizzle == 0) {
            off = (k / 8) * (rows * 16) + (i / 8) * 128 + (i % 8) * 16 + (k % 8) * 2;
        } else {
            uint32_t w = L.swizzle / 2; /* elements per box row */
            off = (k / w) * (rows * L.swizzle) + i * L.swizzle + (k % w) * 2;
        }
    } else {
        if (L.swizzle == 0) {
            off = (i / 8) * ((K / 8) * 128) + (k / 8) * 128 + (k % 8) * 16 + (i % 8) * 2;
        } else {
            uint32_t w = L.swizzle / 2;
            off = (i / w) * (K * L.swizzle) + k * L.swizzle + (i % w) * 2;
        }
    }
    uint32_t mask = L.swizzle ? (uint32_t)L.swizzle / 16 - 1 : 0;
    return off ^ (((off >> 7) & mask) << 4);
}

/* The descriptor a kernel author writes for K step s (K elements 16s .. 16s+15) of that tile. */
static inline __host__ __device__ uint64_t tile_desc(operand_layout L, uint32_t tile_saddr, uint32_t rows, uint32_t K,
                                              uint32_t s)
{
    uint32_t start, lbo, sbo;
    if (L.major == MAJ_K) {
        if (L.swizzle == 0) {
            start = tile_saddr + 2 * s * (rows * 16);
            lbo = rows * 16; /* next 8 K elements */
            sbo = 128;       /* next 8 rows */
        } else {
            uint32_t w = L.swizzle / 2;
            start = tile_saddr + (16 * s / w) * (rows * L.swizzle) + (16 * s % w) * 2;
            lbo = 0;
            sbo = 8 * L.swizzle;
        }
    } else {
        if (L.swizzle == 0) {
            start = tile_saddr + 2 * s * 128;
            lbo = 128;            /* next 8 K rows */
            sbo = (K / 8) * 128;  /* next 8 M/N elements */
        } else {
            start = tile_saddr + 16 * s * L.swizzle;
            lbo = K * L.swizzle;  /* next swizzle atom along M/N */
            sbo = 8 * L.swizzle;  /* next 8 K rows */
        }
    }
    return umma_smem_desc_encode(start, lbo, sbo, swizzle_code(L.swizzle));
}

#endif /* WSGEMM_TESTS_TMEM_TILE_LAYOUT_H */
