// SPDX-License-Identifier: MIT
/*
 * test_layout.cu - CPU test (no GPU needed) of the emulation's operand addressing: for every layout the
 * emulation models (K-major and MN-major; no swizzle, 32B, 64B, 128B), both element sizes (16-bit operands of
 * kind::f16, FP8 of kind::f8f6f4), tile heights 32..256 and every instruction step of a tile 128 bytes deep
 * in K (four steps of 32 bytes: K = 64 16-bit or 128 FP8 elements), the address the emulation derives from the
 * descriptor bits alone (tmem_emu_operand_geometry + tmem_emu_k_major_chunk / tmem_emu_mn_major_elem, the code the GPU
 * runs)
 * must equal the address where the TMA-style tile model (tile_layout.h) put that element. A second pass
 * runs the same check on planted descriptor bugs (LBO/SBO swapped, SBO off by 16 B, wrong swizzle code,
 * K step not advanced) and requires each to be caught, so the check can fail.
 *
 * Cases: layouts, mutants.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emu/emulation.cuh" /* first: the emulation's decoding is what this test checks */
#include "tile_layout.h"
#include "tmem/tmem.cuh"

/* Tile at a 1024-aligned shared address that is not 0, so absolute-address swizzling is exercised. */
enum { TILE_SADDR = 0x9400 };

typedef uint64_t (*desc_fn)(operand_layout, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);

static uint64_t desc_good(operand_layout L, uint32_t saddr, uint32_t rows, uint32_t K, uint32_t s, uint32_t eb)
{
    return tile_desc_eb(L, saddr, rows, K, s, eb);
}

/* Planted bugs. */
static uint64_t desc_swap_lbo_sbo(operand_layout L, uint32_t saddr, uint32_t rows, uint32_t K, uint32_t s, uint32_t eb)
{
    umma_smem_desc_fields f = umma_smem_desc_decode(tile_desc_eb(L, saddr, rows, K, s, eb));
    return umma_smem_desc_encode(f.start_addr, f.sbo_bytes, f.lbo_bytes, (umma_swizzle)f.layout);
}
static uint64_t desc_sbo_plus16(operand_layout L, uint32_t saddr, uint32_t rows, uint32_t K, uint32_t s, uint32_t eb)
{
    umma_smem_desc_fields f = umma_smem_desc_decode(tile_desc_eb(L, saddr, rows, K, s, eb));
    return umma_smem_desc_encode(f.start_addr, f.lbo_bytes, f.sbo_bytes + 16, (umma_swizzle)f.layout);
}
static uint64_t desc_wrong_swizzle(operand_layout L, uint32_t saddr, uint32_t rows, uint32_t K, uint32_t s, uint32_t eb)
{
    umma_smem_desc_fields f = umma_smem_desc_decode(tile_desc_eb(L, saddr, rows, K, s, eb));
    umma_swizzle other = f.layout == UMMA_SWIZZLE_128B ? UMMA_SWIZZLE_64B : UMMA_SWIZZLE_128B;
    return umma_smem_desc_encode(f.start_addr, f.lbo_bytes, f.sbo_bytes, other);
}
static uint64_t desc_no_k_step(operand_layout L, uint32_t saddr, uint32_t rows, uint32_t K, uint32_t s, uint32_t eb)
{
    (void)s;
    return tile_desc_eb(L, saddr, rows, K, 0, eb);
}

/* Mismatching elements over every element size/layout/height/step (prints the first few when verbose). */
static long check_all(desc_fn fn, int verbose, int *layouts_checked)
{
    static const operand_layout layouts[] = {{MAJ_K, 0},  {MAJ_K, 32},  {MAJ_K, 64},  {MAJ_K, 128},
                                             {MAJ_MN, 0}, {MAJ_MN, 32}, {MAJ_MN, 64}, {MAJ_MN, 128}};
    static const uint32_t heights[] = {32, 64, 128, 256};
    static const uint32_t elem_bytes[] = {2, 1};
    long bad = 0;
    *layouts_checked = 0;
    for (size_t ei = 0; ei < sizeof elem_bytes / sizeof elem_bytes[0]; ei++) {
        const uint32_t eb = elem_bytes[ei], ks = 32 / eb, K = 4 * ks;
        for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
            operand_layout L = layouts[li];
            for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++) {
                uint32_t rows = heights[hi];
                if (L.major == MAJ_MN && L.swizzle && rows % ((uint32_t)L.swizzle / eb))
                    continue; /* MN-major swizzled tiles are whole atoms along MN */
                long bad_here = 0;
                for (uint32_t s = 0; s < K / ks; s++) {
                    tmem_emu_operand op =
                        tmem_emu_operand_geometry(fn(L, TILE_SADDR, rows, K, s, eb), (uint32_t)L.major, 1, eb, 0);
                    for (uint32_t i = 0; i < rows; i++) {
                        for (uint32_t j = 0; j < ks; j++) {
                            const uint32_t per_chunk = 16 / eb;
                            int32_t rel = L.major == MAJ_K ? tmem_emu_k_major_chunk(&op, i, j / per_chunk) +
                                                                 (int32_t)((j % per_chunk) * eb)
                                                           : tmem_emu_mn_major_elem(&op, i, j);
                            uint32_t emu = op.start_addr + (uint32_t)rel;
                            uint32_t want = TILE_SADDR + tile_offset_eb(L, i, ks * s + j, rows, K, eb);
                            if (emu != want) {
                                if (verbose && bad_here < 3)
                                    printf(
                                        "    %u-byte %s-major swizzle %d rows %u step %u: element (%u, %u) emulation "
                                        "reads 0x%x, tile has it at 0x%x\n",
                                        eb, L.major ? "MN" : "K", L.swizzle, rows, s, i, ks * s + j, emu, want);
                                bad_here++;
                            }
                        }
                    }
                }
                if (verbose)
                    printf("  %u-byte, %s-major, swizzle %3d, %3u rows, K=%u in 4 steps: %s\n", eb,
                           L.major ? "MN" : "K ", L.swizzle, rows, K,
                           bad_here ? "MISMATCH" : "every element where the tile has it");
                bad += bad_here;
                (*layouts_checked)++;
            }
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "all";
    int all = !strcmp(name, "all"), failed = 0, ran = 0, n = 0;
    if (all || !strcmp(name, "layouts")) {
        printf("test_layout layouts (descriptor -> address, the emulation's decoder vs the TMA tile model)\n");
        long bad = check_all(desc_good, 1, &n);
        printf("  %d layout/height combinations, %ld mismatching elements: %s\n", n, bad, bad ? "FAILED" : "PASS");
        failed += bad != 0;
        ran++;
    }
    if (all || !strcmp(name, "mutants")) {
        printf("test_layout mutants (planted descriptor bugs must be caught)\n");
        static const struct {
            const char *name;
            desc_fn fn;
        } m[] = {{"LBO and SBO swapped", desc_swap_lbo_sbo},
                 {"SBO + 16 B", desc_sbo_plus16},
                 {"wrong swizzle code", desc_wrong_swizzle},
                 {"K step not advanced", desc_no_k_step}};
        for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
            long bad = check_all(m[i].fn, 0, &n);
            printf("  mutant \"%s\": %ld mismatching elements -> %s\n", m[i].name, bad, bad ? "caught" : "NOT CAUGHT");
            failed += bad == 0;
        }
        printf("  %s\n", failed ? "FAILED" : "PASS");
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown case %s\n", name);
        return 2;
    }
    return failed ? 1 : 0;
}
