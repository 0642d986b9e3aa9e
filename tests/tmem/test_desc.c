// SPDX-License-Identifier: MIT
/*
 * test_desc.c - CPU tests of tmem/desc.h: the SM100 shared-memory descriptor and the kind::f16, kind::f8f6f4
 * and kind::mxf8f6f4.block_scale instruction descriptors against known-good values (the words CUTLASS's
 * descriptor types and its encoders, cute UMMA::make_instr_desc and make_instr_desc_block_scaled, produce for
 * the same arguments),
 * decoder round trips, the legal-shape table, TMEM address packing, and a mutant check: the same checker
 * run on deliberately wrong encoders (the classic bugs) must fail, proving the checks can fail.
 *
 * Cases: known_good, known_good_f8f6f4, known_good_mxf8f6f4, k_step, round_trip, legal_shapes, tmem_addr, sf_layout,
 * mutants. Exit 0 = pass.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmem/desc.h"

/* Compile-time shape checks (the macro is a constant expression). */
_Static_assert(UMMA_F16_SHAPE_IS_LEGAL(1, 128, 256), "M=128 N=256 cta_group::1 is legal");
_Static_assert(UMMA_F16_SHAPE_IS_LEGAL(2, 256, 256), "M=256 N=256 cta_group::2 is legal");
_Static_assert(!UMMA_F16_SHAPE_IS_LEGAL(1, 128, 264), "N > 256 is illegal");
_Static_assert(!UMMA_F16_SHAPE_IS_LEGAL(2, 256, 24), "cta_group::2 needs N % 16 == 0");
_Static_assert(TMEM_NCOLS_IS_LEGAL(512) && !TMEM_NCOLS_IS_LEGAL(96) && !TMEM_NCOLS_IS_LEGAL(16), "alloc sizes");

static int g_failures;
static int g_planted; /* set while checking mutants: their failures are expected, printed as such */

#define EXPECT(cond, ...)                                                                                            \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            printf(g_planted ? "  (planted) check fails as it should: %s:%d: %s: " : "  FAIL %s:%d: %s: ", __FILE__, \
                   __LINE__, #cond);                                                                                 \
            printf(__VA_ARGS__);                                                                                     \
            printf("\n");                                                                                            \
            g_failures++;                                                                                            \
        }                                                                                                            \
    } while (0)

/* ---------------------------------------------------------------- encoders under test (real + mutants) */

typedef uint32_t (*idesc_encoder)(umma_acc_dtype, umma_dtype, umma_dtype, umma_major, umma_major, int, int, uint32_t,
                                  uint32_t);
typedef uint64_t (*smem_encoder)(uint32_t, uint32_t, uint32_t, umma_swizzle);
typedef uint32_t (*idesc_f8_encoder)(umma_acc_dtype, umma_f8_dtype, umma_f8_dtype, umma_major, umma_major, int, int,
                                     uint32_t, uint32_t);

typedef uint32_t (*idesc_bs_encoder)(umma_f8_dtype, umma_f8_dtype, umma_sf_format, umma_major, umma_major, int, int,
                                     uint32_t, uint32_t, uint32_t, uint32_t);

/* Mutant 6: the block-scaled descriptor written as the dense one (D format f32 at bits 4-5 where B's scale
 * factor ID goes, bit 23 left reserved, no A scale factor ID): the habit of reusing the dense encoder. */
static uint32_t mutant_idesc_bs_dense(umma_f8_dtype a, umma_f8_dtype b, umma_sf_format sf, umma_major am, umma_major bm,
                                      int na, int nb, uint32_t m, uint32_t n, uint32_t a_sf, uint32_t b_sf)
{
    (void)sf;
    (void)a_sf;
    (void)b_sf;
    return umma_idesc_f8f6f4_encode(UMMA_ACC_F32, a, b, am, bm, na, nb, m, n);
}

/* Mutant 7: the two scale factor IDs swapped (A's at bits 4-5, B's at 29-30). */
static uint32_t mutant_idesc_bs_ids_swapped(umma_f8_dtype a, umma_f8_dtype b, umma_sf_format sf, umma_major am,
                                            umma_major bm, int na, int nb, uint32_t m, uint32_t n, uint32_t a_sf,
                                            uint32_t b_sf)
{
    return umma_idesc_mxf8f6f4_encode(a, b, sf, am, bm, na, nb, m, n, b_sf, a_sf);
}

/* Mutant 3: kind::f16's format codes carried over (E4M3 written as 1, bf16's code: which is E5M2 here). */
static uint32_t mutant_idesc_f8_bf16_codes(umma_acc_dtype d, umma_f8_dtype a, umma_f8_dtype b, umma_major am,
                                           umma_major bm, int na, int nb, uint32_t m, uint32_t n)
{
    return umma_idesc_pack(d, a == UMMA_E4M3 ? 1u : 2u, b == UMMA_E4M3 ? 1u : 2u, am, bm, na, nb, m, n);
}

/* Mutant 1: M at bit 23 instead of 24 (seen in public projects). */
static uint32_t mutant_idesc_m_at_bit23(umma_acc_dtype d, umma_dtype a, umma_dtype b, umma_major am, umma_major bm,
                                        int na, int nb, uint32_t m, uint32_t n)
{
    uint32_t good = umma_idesc_f16_encode(d, a, b, am, bm, na, nb, m, n);
    good &= ~(0x1Fu << IDESC_M_SHIFT);
    return good | ((m >> 4) & 0x1Fu) << 23;
}

/* Mutant 2: N >> 4 instead of N >> 3. */
static uint32_t mutant_idesc_n_shift4(umma_acc_dtype d, umma_dtype a, umma_dtype b, umma_major am, umma_major bm,
                                      int na, int nb, uint32_t m, uint32_t n)
{
    uint32_t good = umma_idesc_f16_encode(d, a, b, am, bm, na, nb, m, n);
    good &= ~(0x3Fu << IDESC_N_SHIFT);
    return good | ((n >> 4) & 0x3Fu) << IDESC_N_SHIFT;
}

/* Mutant 3: the SM90 descriptor habits: bit 46 left 0 and the 2-bit SM90 swizzle code at bits 62-63. */
static uint64_t mutant_smem_sm90(uint32_t addr, uint32_t lbo, uint32_t sbo, umma_swizzle layout)
{
    uint64_t d = umma_smem_desc_encode(addr, lbo, sbo, layout);
    d &= ~((uint64_t)7 << SMEM_DESC_VERSION_SHIFT);
    d &= ~((uint64_t)7 << SMEM_DESC_LAYOUT_SHIFT);
    uint64_t sm90 = layout == UMMA_SWIZZLE_128B  ? 1
                    : layout == UMMA_SWIZZLE_64B ? 2
                    : layout == UMMA_SWIZZLE_32B ? 3
                                                 : 0;
    return d | sm90 << 62;
}

/* Mutant 4: SBO written in bytes, not bytes >> 4. */
static uint64_t mutant_smem_sbo_bytes(uint32_t addr, uint32_t lbo, uint32_t sbo, umma_swizzle layout)
{
    uint64_t d = umma_smem_desc_encode(addr, lbo, sbo, layout);
    d &= ~((uint64_t)SMEM_DESC_FIELD14_MASK << SMEM_DESC_SBO_SHIFT);
    return d | (uint64_t)(sbo & SMEM_DESC_FIELD14_MASK) << SMEM_DESC_SBO_SHIFT;
}

/* ---------------------------------------------------------------- the checkers (return failures) */

static int check_idesc_known_good(idesc_encoder enc, int verbose)
{
    int before = g_failures;
    uint32_t cg1 = enc(UMMA_ACC_F32, UMMA_BF16, UMMA_BF16, UMMA_K_MAJOR, UMMA_K_MAJOR, 0, 0, 128, 256);
    uint32_t cg2 = enc(UMMA_ACC_F32, UMMA_BF16, UMMA_BF16, UMMA_K_MAJOR, UMMA_K_MAJOR, 0, 0, 256, 256);
    if (verbose)
        printf("  idesc bf16 K-major M=128 N=256 = 0x%08x (want 0x08400490); M=256 N=256 = 0x%08x (want 0x10400490)\n",
               cg1, cg2);
    EXPECT(cg1 == 0x08400490u, "got 0x%08x", cg1);
    EXPECT(cg2 == 0x10400490u, "got 0x%08x", cg2);
    /* A field-by-field expectation for another shape, derived by hand from the PTX table:
     * f16 x f16 -> f32 (D=1 at bit 4), A MN-major (bit 15), N=64 (8 at bit 17), M=128 (8 at bit 24). */
    uint32_t other = enc(UMMA_ACC_F32, UMMA_F16, UMMA_F16, UMMA_MN_MAJOR, UMMA_K_MAJOR, 0, 0, 128, 64);
    uint32_t want = (1u << 4) | (1u << 15) | (8u << 17) | (8u << 24);
    EXPECT(other == want, "f16 A-MN M=128 N=64: got 0x%08x want 0x%08x", other, want);
    return g_failures - before;
}

/* kind::f8f6f4: the words of CUTLASS's make_instr_desc<A, B, C, M, N, a_major, b_major>() for the same
 * arguments (cute/arch/mma_sm100_desc.hpp, computed with its headers; its bf16 word, 0x08400490, is the
 * kind::f16 value above). */
static int check_idesc_f8_known_good(idesc_f8_encoder enc, int verbose)
{
    static const struct {
        umma_acc_dtype d;
        umma_f8_dtype a, b;
        umma_major am, bm;
        uint32_t m, n, want;
    } rows[] = {
        {UMMA_ACC_F32, UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_K_MAJOR, 128, 256, 0x08400010u},
        {UMMA_ACC_F32, UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_K_MAJOR, 256, 256, 0x10400010u},
        {UMMA_ACC_F32, UMMA_E4M3, UMMA_E5M2, UMMA_K_MAJOR, UMMA_K_MAJOR, 128, 256, 0x08400410u},
        {UMMA_ACC_F32, UMMA_E5M2, UMMA_E4M3, UMMA_K_MAJOR, UMMA_K_MAJOR, 128, 128, 0x08200090u},
        {UMMA_ACC_F32, UMMA_E4M3, UMMA_E4M3, UMMA_MN_MAJOR, UMMA_K_MAJOR, 128, 256, 0x08408010u},
        {UMMA_ACC_F32, UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_MN_MAJOR, 128, 64, 0x08110010u},
        {UMMA_ACC_F16, UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_K_MAJOR, 128, 256, 0x08400000u},
    };
    int before = g_failures;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t got = enc(rows[i].d, rows[i].a, rows[i].b, rows[i].am, rows[i].bm, 0, 0, rows[i].m, rows[i].n);
        if (verbose)
            printf("  idesc f8f6f4 D %u A %u B %u majors %u/%u M=%u N=%u = 0x%08x (want 0x%08x)\n", (unsigned)rows[i].d,
                   (unsigned)rows[i].a, (unsigned)rows[i].b, (unsigned)rows[i].am, (unsigned)rows[i].bm, rows[i].m,
                   rows[i].n, got, rows[i].want);
        EXPECT(got == rows[i].want, "row %zu: got 0x%08x want 0x%08x", i, got, rows[i].want);
    }
    return g_failures - before;
}

/* kind::mxf8f6f4.block_scale: the words of CUTLASS's make_instr_desc_block_scaled<A, B, float, float_ue8m0_t,
 * M, N, a_major, b_major>() and, with scale factor IDs, of make_runtime_instr_desc_block_scaled (its upper 32
 * bits) for the same arguments (cute/arch/mma_sm100_desc.hpp at CUTLASS commit 7107b055, computed with its
 * headers). */
static int check_idesc_bs_known_good(idesc_bs_encoder enc, int verbose)
{
    static const struct {
        umma_f8_dtype a, b;
        umma_major am, bm;
        uint32_t m, n, tmem_sfa, tmem_sfb, want;
    } rows[] = {
        {UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_K_MAJOR, 128, 256, 0, 0, 0x08c00000u},
        {UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_K_MAJOR, 256, 256, 0, 0, 0x10c00000u},
        {UMMA_E4M3, UMMA_E5M2, UMMA_K_MAJOR, UMMA_K_MAJOR, 128, 128, 0, 0, 0x08a00400u},
        {UMMA_E5M2, UMMA_E4M3, UMMA_MN_MAJOR, UMMA_K_MAJOR, 128, 64, 0, 0, 0x08908080u},
        {UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_MN_MAJOR, 64, 8, 0, 0, 0x04830000u},
        {UMMA_E4M3, UMMA_E4M3, UMMA_K_MAJOR, UMMA_K_MAJOR, 128, 256, 0x80000010u, 0x40000020u, 0x48c00010u},
    };
    int before = g_failures;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t got = enc(rows[i].a, rows[i].b, UMMA_SF_UE8M0, rows[i].am, rows[i].bm, 0, 0, rows[i].m, rows[i].n,
                           umma_sf_id_of_tmem(rows[i].tmem_sfa), umma_sf_id_of_tmem(rows[i].tmem_sfb));
        if (verbose)
            printf("  idesc mxf8f6f4 A %u B %u majors %u/%u M=%u N=%u sf at 0x%08x/0x%08x = 0x%08x (want 0x%08x)\n",
                   (unsigned)rows[i].a, (unsigned)rows[i].b, (unsigned)rows[i].am, (unsigned)rows[i].bm, rows[i].m,
                   rows[i].n, rows[i].tmem_sfa, rows[i].tmem_sfb, got, rows[i].want);
        EXPECT(got == rows[i].want, "row %zu: got 0x%08x want 0x%08x", i, got, rows[i].want);
    }
    return g_failures - before;
}

static int check_smem_known_good(smem_encoder enc, int verbose)
{
    int before = g_failures;
    uint64_t d = enc(0, 0, 1024, UMMA_SWIZZLE_128B);
    if (verbose)
        printf("  smem desc K-major SW128 SBO=1024 LBO=0 start 0 = 0x%016llx (want 0x4000404000000000)\n",
               (unsigned long long)d);
    EXPECT(d == 0x4000404000000000ull, "got 0x%016llx", (unsigned long long)d);
    /* A stage at shared address 0x8400 (1024-aligned): start field 0x840. */
    uint64_t s = enc(0x8400, 0, 1024, UMMA_SWIZZLE_128B);
    EXPECT(s == (0x4000404000000000ull | 0x840u), "stage at 0x8400: got 0x%016llx", (unsigned long long)s);
    /* 64B and 32B swizzle codes 4 and 6 at bits 61-63; no swizzle 0. */
    EXPECT((enc(0, 0, 512, UMMA_SWIZZLE_64B) >> 61) == 4u, "64B code");
    EXPECT((enc(0, 0, 256, UMMA_SWIZZLE_32B) >> 61) == 6u, "32B code");
    EXPECT(((enc(0, 0, 256, UMMA_SWIZZLE_32B) >> 32) & 0x3FFF) == 16u, "SBO 256 B -> 16");
    return g_failures - before;
}

/* ---------------------------------------------------------------- cases */

static void case_known_good(void)
{
    check_idesc_known_good(umma_idesc_f16_encode, 1);
    check_smem_known_good(umma_smem_desc_encode, 1);
    /* The convenience encoders the kernel uses give the same words. */
    EXPECT(umma_smem_desc_k_major(0, UMMA_SWIZZLE_128B) == 0x4000404000000000ull, "k_major helper");
    uint64_t mn = umma_smem_desc_mn_major(0, UMMA_SWIZZLE_128B, 64);
    umma_smem_desc_fields f = umma_smem_desc_decode(mn);
    EXPECT(f.lbo_bytes == 128u * 64u && f.sbo_bytes == 1024u && f.layout == UMMA_SWIZZLE_128B,
           "mn_major helper: lbo %u sbo %u layout %u", f.lbo_bytes, f.sbo_bytes, f.layout);
}

static void case_known_good_f8f6f4(void)
{
    check_idesc_f8_known_good(umma_idesc_f8f6f4_encode, 1);
    /* The decoder reads the same fields back; the two kinds share the bit positions. */
    umma_idesc_fields f = umma_idesc_decode(
        umma_idesc_f8f6f4_encode(UMMA_ACC_F32, UMMA_E5M2, UMMA_E4M3, UMMA_MN_MAJOR, UMMA_K_MAJOR, 0, 1, 256, 144));
    EXPECT(f.d_format == 1u && f.a_format == 1u && f.b_format == 0u && f.a_major == 1u && f.b_major == 0u &&
               f.negate_a == 0u && f.negate_b == 1u && f.m == 256u && f.n == 144u && f.reserved == 0u,
           "decode: d %u a %u b %u majors %u/%u neg %u/%u m %u n %u reserved %u", f.d_format, f.a_format, f.b_format,
           f.a_major, f.b_major, f.negate_a, f.negate_b, f.m, f.n, f.reserved);
}

static void case_known_good_mxf8f6f4(void)
{
    check_idesc_bs_known_good(umma_idesc_mxf8f6f4_encode, 1);
    /* Every field back through the decoder, over formats, majors, negations, shapes, IDs and both scale
     * formats; bits 3 and 6 stay 0, K is 32. */
    int checked = 0;
    for (uint32_t a = 0; a < 2; a++)
        for (uint32_t b = 0; b < 2; b++)
            for (uint32_t sf = 0; sf < 2; sf++)
                for (uint32_t maj = 0; maj < 4; maj++)
                    for (uint32_t neg = 0; neg < 4; neg++)
                        for (uint32_t m = 64; m <= 256; m += 64)
                            for (uint32_t n = 8; n <= 256; n += 8)
                                for (uint32_t ids = 0; ids < 16; ids++) {
                                    const uint32_t w = umma_idesc_mxf8f6f4_encode(
                                        (umma_f8_dtype)a, (umma_f8_dtype)b, (umma_sf_format)sf, (umma_major)(maj & 1),
                                        (umma_major)(maj >> 1), neg & 1, neg >> 1, m, n, ids & 3, ids >> 2);
                                    const umma_idesc_bs_fields f = umma_idesc_bs_decode(w);
                                    const int ok = f.a_format == a && f.b_format == b && f.sf_format == sf &&
                                                   f.a_major == (maj & 1) && f.b_major == (maj >> 1) &&
                                                   f.negate_a == (neg & 1) && f.negate_b == (neg >> 1) && f.m == m &&
                                                   f.n == n && f.a_sf_id == (ids & 3) && f.b_sf_id == (ids >> 2) &&
                                                   f.sparse == 0 && f.sparse_sel == 0 && f.k_size == 0 &&
                                                   f.reserved == 0;
                                    EXPECT(ok, "round trip 0x%08x", w);
                                    if (!ok) return;
                                    checked++;
                                }
    EXPECT(umma_sf_id_of_tmem(0xC0000000u | (5u << 16) | 7u) == 3u && umma_sf_id_of_tmem(tmem_addr(127, 511)) == 0u,
           "scale factor ID of a TMEM address");
    printf("  %d block-scaled encode/decode round trips agree field by field\n", checked);
}

static void case_k_step(void)
{
    /* Each K=16 step of bf16 inside the 128-B atom is +32 B = +2 in the start field. */
    uint64_t base = umma_smem_desc_k_major(0x10000, UMMA_SWIZZLE_128B);
    for (uint32_t k = 0; k < 4; k++) {
        uint64_t stepped = umma_smem_desc_advance(base, 32u * k);
        uint64_t direct = umma_smem_desc_k_major(0x10000 + 32u * k, UMMA_SWIZZLE_128B);
        printf("  K step %u: 0x%016llx (start field +%llu)\n", k, (unsigned long long)stepped,
               (unsigned long long)((stepped - base) & 0x3FFF));
        EXPECT(stepped == direct, "k=%u", k);
        EXPECT(stepped - base == 2u * k, "k=%u: delta %llu", k, (unsigned long long)(stepped - base));
    }
}

static uint32_t rng32(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static void case_round_trip(void)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    const umma_swizzle layouts[] = {UMMA_SWIZZLE_NONE, UMMA_SWIZZLE_32B, UMMA_SWIZZLE_64B, UMMA_SWIZZLE_128B};
    int checked = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t addr = (rng32(&seed) & 0x3FFFFu) & ~15u;
        uint32_t lbo = (rng32(&seed) & 0x3FFFu) << 4, sbo = (rng32(&seed) & 0x3FFFu) << 4;
        umma_swizzle layout = layouts[rng32(&seed) % 4];
        umma_smem_desc_fields f = umma_smem_desc_decode(umma_smem_desc_encode(addr, lbo, sbo, layout));
        int ok = f.start_addr == addr && f.lbo_bytes == lbo && f.sbo_bytes == sbo && f.layout == (uint32_t)layout &&
                 f.version == 1 && f.base_offset == 0 && f.lbo_mode == 0 && f.reserved == 0;
        EXPECT(ok, "smem round trip addr 0x%x lbo %u sbo %u layout %d", addr, lbo, sbo, (int)layout);
        if (!ok) return;
        checked++;
    }
    for (uint32_t d = 0; d < 2; d++)
        for (uint32_t a = 0; a < 2; a++)
            for (uint32_t b = 0; b < 2; b++)
                for (uint32_t am = 0; am < 2; am++)
                    for (uint32_t bm = 0; bm < 2; bm++)
                        for (uint32_t neg = 0; neg < 4; neg++)
                            for (uint32_t cg = 1; cg <= 2; cg++)
                                for (uint32_t m = 64; m <= 256; m += 64)
                                    for (uint32_t n = 8; n <= 256; n += 8) {
                                        if (!umma_f16_shape_is_legal((int)cg, m, n)) continue;
                                        uint32_t w = umma_idesc_f16_encode((umma_acc_dtype)d, (umma_dtype)a,
                                                                           (umma_dtype)b, (umma_major)am,
                                                                           (umma_major)bm, neg & 1, neg >> 1, m, n);
                                        umma_idesc_fields f = umma_idesc_decode(w);
                                        int ok = f.d_format == d && f.a_format == a && f.b_format == b &&
                                                 f.a_major == am && f.b_major == bm && f.negate_a == (neg & 1) &&
                                                 f.negate_b == (neg >> 1) && f.m == m && f.n == n && f.sparse == 0 &&
                                                 f.reserved == 0 && f.max_shift == 0;
                                        EXPECT(ok, "idesc round trip 0x%08x m %u n %u", w, m, n);
                                        if (!ok) return;
                                        checked++;
                                    }
    printf("  %d encode/decode round trips agree field by field\n", checked);
}

static void case_legal_shapes(void)
{
    /* The PTX table, written out independently of the macro. */
    int legal = 0;
    for (int cg = 1; cg <= 2; cg++)
        for (uint32_t m = 0; m <= 512; m += 16)
            for (uint32_t n = 0; n <= 512; n += 4) {
                int want;
                if (cg == 1)
                    want = (m == 64 || m == 128) && n >= 8 && n <= 256 && n % 8 == 0;
                else
                    want = (m == 128 || m == 256) && n >= 16 && n <= 256 && n % 16 == 0;
                int got = umma_f16_shape_is_legal(cg, m, n);
                EXPECT(got == want, "cg %d M %u N %u: got %d want %d", cg, m, n, got, want);
                legal += got;
            }
    printf("  %d legal (cta_group, M, N) triples; 1 x 128 x 256 and 2 x 256 x 256 among them; N=264 rejected\n", legal);
    EXPECT(legal == 2 * 32 + 2 * 16, "count %d", legal);
    for (uint32_t c = 0; c <= 1024; c++) {
        int want = c == 32 || c == 64 || c == 128 || c == 256 || c == 512;
        EXPECT(TMEM_NCOLS_IS_LEGAL(c) == want, "ncols %u", c);
    }
}

static void case_tmem_addr(void)
{
    EXPECT(tmem_addr(0, 0) == 0u, "origin");
    EXPECT(tmem_addr(96, 256) == ((96u << 16) | 256u), "lane 96 column 256");
    EXPECT(tmem_addr_lane(tmem_addr(127, 511)) == 127u && tmem_addr_column(tmem_addr(127, 511)) == 511u, "unpack");
    printf("  tmem_addr(96, 256) = 0x%08x\n", tmem_addr(96, 256));
}

/* The MX scale factor chunk (tmem/desc.h "block scale factors in TMEM"): the byte order of CUTLASS's
 * SfKMajorAtom ((32,4),(32,4)):((16,4),(0,1)) at known points; a permutation of the 512 bytes; and, through
 * tcgen05.cp.32x128b.warpx4 as the PTX ISA describes it (row t of 16 bytes at start + (t / 8) * SBO + (t % 8) *
 * 16, into lanes t + 32 q, column j = bytes 4 j .. 4 j + 3) read back where the MMA reads row r's factor of
 * sub-block s (column r / 32, any quarter, byte s), every (r, s) gives its own byte. The copy's descriptor:
 * no swizzle, SBO 128, LBO 0, version 1. */
static void case_sf_layout(void)
{
    static const struct {
        uint32_t r, sub, off;
    } known[] = {{0, 0, 0}, {0, 3, 3}, {1, 0, 16}, {31, 0, 496}, {32, 0, 4}, {33, 3, 23}, {64, 1, 9}, {127, 3, 511}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        EXPECT(umma_sf_chunk_offset(known[i].r, known[i].sub) == known[i].off, "offset of row %u sub-block %u: %u",
               known[i].r, known[i].sub, umma_sf_chunk_offset(known[i].r, known[i].sub));
    unsigned char seen[UMMA_SF_CHUNK_BYTES] = {0};
    for (uint32_t r = 0; r < UMMA_SF_CHUNK_ROWS; r++)
        for (uint32_t sub = 0; sub < UMMA_SF_SUBBLOCKS; sub++) {
            const uint32_t off = umma_sf_chunk_offset(r, sub);
            EXPECT(off < UMMA_SF_CHUNK_BYTES && !seen[off], "row %u sub-block %u: offset %u out of range or taken", r,
                   sub, off);
            if (off < UMMA_SF_CHUNK_BYTES) seen[off] = 1;
        }
    /* a chunk of distinct-looking bytes: copy it, then read each factor back */
    const uint32_t saddr = 0x2400;
    const uint64_t d = umma_sf_cp_desc(saddr);
    EXPECT(d == 0x0000400800000240ull, "cp descriptor 0x%016llx", (unsigned long long)d);
    const umma_smem_desc_fields f = umma_smem_desc_decode(d);
    EXPECT(f.layout == UMMA_SWIZZLE_NONE && f.sbo_bytes == 128 && f.lbo_bytes == 0 && f.version == 1 &&
               f.start_addr == saddr,
           "cp descriptor fields layout %u sbo %u lbo %u version %u start 0x%x", f.layout, f.sbo_bytes, f.lbo_bytes,
           f.version, f.start_addr);
    uint8_t chunk[UMMA_SF_CHUNK_BYTES];
    for (uint32_t i = 0; i < UMMA_SF_CHUNK_BYTES; i++) chunk[i] = (uint8_t)(i * 131u + 7u + (i >> 8));
    uint32_t tmem[UMMA_SF_CHUNK_COLS][TMEM_LANES];
    for (uint32_t t = 0; t < UMMA_SF_CP_ROWS; t++)
        for (uint32_t j = 0; j < UMMA_SF_CHUNK_COLS; j++) {
            const uint8_t *row = chunk + (t / 8) * f.sbo_bytes + (t % 8) * UMMA_SF_CP_ROW_BYTES;
            const uint32_t w = row[4 * j] | (uint32_t)row[4 * j + 1] << 8 | (uint32_t)row[4 * j + 2] << 16 |
                               (uint32_t)row[4 * j + 3] << 24;
            for (uint32_t q = 0; q < 4; q++) tmem[j][32 * q + t] = w;
        }
    int bad = 0;
    for (uint32_t r = 0; r < UMMA_SF_CHUNK_ROWS; r++)
        for (uint32_t sub = 0; sub < UMMA_SF_SUBBLOCKS; sub++)
            for (uint32_t q = 0; q < 4; q++) {
                const uint32_t w = tmem[umma_sf_tmem_column(r)][32 * q + r % 32];
                const uint8_t got = (uint8_t)(w >> (8 * sub)), want = chunk[umma_sf_chunk_offset(r, sub)];
                if (got != want && bad++ < 5)
                    printf("  row %u sub-block %u quarter %u: 0x%02x, want 0x%02x\n", r, sub, q, got, want);
            }
    EXPECT(bad == 0, "%d factors read back wrong", bad);
}

static void case_mutants(void)
{
    /* The real encoders pass the checkers... */
    int real = check_idesc_known_good(umma_idesc_f16_encode, 0) + check_smem_known_good(umma_smem_desc_encode, 0) +
               check_idesc_f8_known_good(umma_idesc_f8f6f4_encode, 0) +
               check_idesc_bs_known_good(umma_idesc_mxf8f6f4_encode, 0);
    EXPECT(real == 0, "real encoders fail their own checks (%d)", real);
    /* ...and each planted bug makes them fail. Their failures are expected: count them, then undo them. */
    struct {
        const char *name;
        int failures;
    } m[7];
    int saved = g_failures;
    g_planted = 1;
    m[0].name = "idesc M at bit 23";
    m[0].failures = check_idesc_known_good(mutant_idesc_m_at_bit23, 0);
    m[1].name = "idesc N >> 4";
    m[1].failures = check_idesc_known_good(mutant_idesc_n_shift4, 0);
    m[2].name = "smem desc with SM90 habits (bit 46 = 0, 2-bit swizzle code)";
    m[2].failures = check_smem_known_good(mutant_smem_sm90, 0);
    m[3].name = "smem desc SBO in bytes";
    m[3].failures = check_smem_known_good(mutant_smem_sbo_bytes, 0);
    m[4].name = "idesc f8f6f4 with kind::f16 format codes";
    m[4].failures = check_idesc_f8_known_good(mutant_idesc_f8_bf16_codes, 0);
    m[5].name = "idesc mxf8f6f4 as the dense f8f6f4 one";
    m[5].failures = check_idesc_bs_known_good(mutant_idesc_bs_dense, 0);
    m[6].name = "idesc mxf8f6f4 with the scale factor IDs swapped";
    m[6].failures = check_idesc_bs_known_good(mutant_idesc_bs_ids_swapped, 0);
    g_planted = 0;
    g_failures = saved;
    for (int i = 0; i < 7; i++) {
        printf("  mutant \"%s\": %d check(s) failed -> %s\n", m[i].name, m[i].failures,
               m[i].failures > 0 ? "caught" : "NOT CAUGHT");
        EXPECT(m[i].failures > 0, "mutant %s passed the checker", m[i].name);
    }
    /* The decoder shows what the mutants broke (M = 64 instead of 128, version 0): the emulation rejects both. */
    umma_idesc_fields fi = umma_idesc_decode(
        mutant_idesc_m_at_bit23(UMMA_ACC_F32, UMMA_BF16, UMMA_BF16, UMMA_K_MAJOR, UMMA_K_MAJOR, 0, 0, 128, 256));
    EXPECT(fi.m == 64u, "decoder sees M %u", fi.m);
    umma_smem_desc_fields fs = umma_smem_desc_decode(mutant_smem_sm90(0, 0, 1024, UMMA_SWIZZLE_128B));
    EXPECT(fs.version != 1, "decoder sees version %u", fs.version);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {{"known_good", case_known_good},
                 {"known_good_f8f6f4", case_known_good_f8f6f4},
                 {"known_good_mxf8f6f4", case_known_good_mxf8f6f4},
                 {"k_step", case_k_step},
                 {"round_trip", case_round_trip},
                 {"legal_shapes", case_legal_shapes},
                 {"tmem_addr", case_tmem_addr},
                 {"sf_layout", case_sf_layout},
                 {"mutants", case_mutants}};
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0 && strcmp(argv[1], "all") != 0) continue;
        printf("test_desc %s\n", cases[i].name);
        int before = g_failures;
        cases[i].fn();
        printf("  %s\n", g_failures == before ? "PASS" : "FAILED");
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    return g_failures ? 1 : 0;
}
