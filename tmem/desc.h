// SPDX-License-Identifier: MIT
/*
 * tmem/desc.h - the two descriptors a tcgen05.mma instruction of .kind::f16
 * or .kind::f8f6f4 reads, as plain C usable on the host (tests, launchers)
 * and on the device (the MMA warp, the TMEM emulation):
 *
 *   - the SM100 shared-memory matrix descriptor (64 bits): where an operand
 *     tile lies in shared memory and how it is laid out (PTX ISA, "Tensor
 *     Memory Accelerator ... tcgen05 Shared Memory Descriptor", section
 *     tcgen05-shared-memory-desc-layout; canonical layouts in "Shared Memory
 *     Matrix Layouts"),
 *   - the instruction descriptor (32 bits) of .kind::f16 and .kind::f8f6f4
 *     (PTX ISA, "Instruction descriptor": the two kinds share the bit
 *     positions; the A/B format codes differ).
 *
 * Every encoder writes one named field per line with the shift named after
 * the PTX table; every encoder has a decoder into a struct of fields that the
 * CPU tests (tests/tmem/test_desc.c) and the emulation use. Field tables and
 * the canonical layouts are written out in docs/tmem.md.
 *
 * Known-good values (the words CUTLASS's sm100 descriptor types give for the same fields,
 * cute/arch/mma_sm100_desc.hpp: UMMA::InstrDescriptor from make_instr_desc, UMMA::SmemDescriptor):
 *   idesc bf16 x bf16 -> f32, K-major both, M=128 N=256          0x08400490
 *   idesc same, cta_group::2 M=256 N=256                         0x10400490
 *   smem desc K-major SW128, SBO 1024, LBO 0, start 0            0x4000404000000000
 *   one K=16 step (32 bytes of bf16) inside the 128-B atom       +2 in the start field
 * kind::f8f6f4, from CUTLASS's encoder (cute UMMA::make_instr_desc):
 *   idesc e4m3 x e4m3 -> f32, K-major both, M=128 N=256          0x08400010
 *   idesc same, cta_group::2 M=256 N=256                         0x10400010
 *   idesc e4m3 x e5m2 -> f32, K-major both, M=128 N=256          0x08400410
 * kind::mxf8f6f4.block_scale, from CUTLASS's make_instr_desc_block_scaled (scale factors UE8M0):
 *   e4m3 x e4m3, K-major both, M=128 N=256                       0x08c00000
 *   the runtime form, A's scale factors at TMEM 0x80000010, B's at 0x40000020 (IDs 2 and 1):
 *                                                                0x48c00010 (the upper half of its 64 bits)
 */
#ifndef WSGEMM_TMEM_DESC_H
#define WSGEMM_TMEM_DESC_H

#include <stdint.h>

#ifndef WSGEMM_HD
#if defined(__CUDACC__)
#define WSGEMM_HD __host__ __device__
#else
#define WSGEMM_HD
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ shared-memory descriptor */

/* Bit positions of the SM100 shared-memory descriptor (PTX ISA table
 * "Shared memory descriptor layout" for tcgen05). */
enum {
    SMEM_DESC_START_SHIFT = 0,        /* bits  0-13: (address & 0x3FFFF) >> 4 */
    SMEM_DESC_LBO_SHIFT = 16,         /* bits 16-29: leading-dimension byte offset >> 4 */
    SMEM_DESC_SBO_SHIFT = 32,         /* bits 32-45: stride-dimension byte offset >> 4 */
    SMEM_DESC_VERSION_SHIFT = 46,     /* bits 46-48: fixed 0b001 on SM100 (SM90 had 0 here) */
    SMEM_DESC_BASE_OFFSET_SHIFT = 49, /* bits 49-51: matrix base offset (0 for atoms on their natural boundary) */
    SMEM_DESC_LBO_MODE_SHIFT = 52,    /* bit  52   : 0 = LBO relative byte offset, 1 = absolute */
    SMEM_DESC_LAYOUT_SHIFT = 61       /* bits 61-63: swizzle mode, see umma_swizzle */
};
#define SMEM_DESC_FIELD14_MASK  0x3FFFu
#define SMEM_DESC_VERSION_SM100 1u

/* Swizzle mode codes of bits 61-63. NOT the SM90 wgmma codes (2 bits at 62-63
 * with 1 = 128B, 2 = 64B, 3 = 32B): reusing those is a known bug. */
typedef enum umma_swizzle {
    UMMA_SWIZZLE_NONE = 0,         /* interleaved core matrices, 16-B rows */
    UMMA_SWIZZLE_128B_BASE32B = 1, /* 128-B swizzle with 32-B atomicity (not used by wsgemm) */
    UMMA_SWIZZLE_128B = 2,
    UMMA_SWIZZLE_64B = 4,
    UMMA_SWIZZLE_32B = 6
} umma_swizzle;

/* Row width in bytes of one swizzle atom (16 for no swizzle: a core-matrix row),
 * 0 for a code that is not a layout. The atom is 8 such rows. */
static inline WSGEMM_HD uint32_t umma_swizzle_bytes(uint32_t layout)
{
    switch (layout) {
    case UMMA_SWIZZLE_NONE: return 16;
    case UMMA_SWIZZLE_32B: return 32;
    case UMMA_SWIZZLE_64B: return 64;
    case UMMA_SWIZZLE_128B: return 128;
    case UMMA_SWIZZLE_128B_BASE32B: return 128;
    default: return 0;
    }
}

/* The decoded fields, in bytes where the descriptor stores bytes >> 4. */
typedef struct umma_smem_desc_fields {
    uint32_t start_addr;  /* shared-space byte address (18 bits, 16-B aligned) */
    uint32_t lbo_bytes;   /* leading byte offset */
    uint32_t sbo_bytes;   /* stride byte offset */
    uint32_t version;     /* must be 1 on SM100 */
    uint32_t base_offset; /* 0 for canonical, atom-aligned tiles */
    uint32_t lbo_mode;    /* 0 relative */
    uint32_t layout;      /* umma_swizzle code */
    uint32_t reserved;    /* bits 14-15, 30-31, 53-60 (must be 0) */
} umma_smem_desc_fields;

/* Encode a shared-memory descriptor. smem_addr is a shared-state-space
 * address (__cvta_generic_to_shared), lbo/sbo in bytes (multiples of 16).
 * Meaning of LBO/SBO per layout (PTX canonical layouts; T = 8 16-bit elements = 16 B):
 *   K-major,  no swizzle : ((8,m),(T,2k)):((1T,SBO),(1,LBO))   LBO = K-direction core-matrix step
 *   K-major,  swizzled   : ((8,m),(T,2k)):((xT,SBO),(1,T))     LBO unused (write 0), SBO = 8-row group step
 *   MN-major, no swizzle : ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) SBO = MN core-matrix step, LBO = 8-K group step
 *   MN-major, swizzled   : ((T,x,m),(8,k)):((1,T,LBO),(xT,SBO)) LBO = MN atom step, SBO = 8-K-row group step
 * with x = 2, 4, 8 for 32B, 64B, 128B swizzle. */
static inline WSGEMM_HD uint64_t umma_smem_desc_encode(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                                       umma_swizzle layout)
{
    uint64_t desc = 0;
    desc |= (uint64_t)(((smem_addr & 0x3FFFFu) >> 4) & SMEM_DESC_FIELD14_MASK) << SMEM_DESC_START_SHIFT;
    desc |= (uint64_t)((lbo_bytes >> 4) & SMEM_DESC_FIELD14_MASK) << SMEM_DESC_LBO_SHIFT;
    desc |= (uint64_t)((sbo_bytes >> 4) & SMEM_DESC_FIELD14_MASK) << SMEM_DESC_SBO_SHIFT;
    desc |= (uint64_t)SMEM_DESC_VERSION_SM100 << SMEM_DESC_VERSION_SHIFT;
    desc |= (uint64_t)0 << SMEM_DESC_BASE_OFFSET_SHIFT; /* atoms start on their natural boundary */
    desc |= (uint64_t)0 << SMEM_DESC_LBO_MODE_SHIFT;    /* relative LBO */
    desc |= (uint64_t)((uint32_t)layout & 7u) << SMEM_DESC_LAYOUT_SHIFT;
    return desc;
}

static inline WSGEMM_HD umma_smem_desc_fields umma_smem_desc_decode(uint64_t desc)
{
    umma_smem_desc_fields f;
    f.start_addr = (uint32_t)((desc >> SMEM_DESC_START_SHIFT) & SMEM_DESC_FIELD14_MASK) << 4;
    f.lbo_bytes = (uint32_t)((desc >> SMEM_DESC_LBO_SHIFT) & SMEM_DESC_FIELD14_MASK) << 4;
    f.sbo_bytes = (uint32_t)((desc >> SMEM_DESC_SBO_SHIFT) & SMEM_DESC_FIELD14_MASK) << 4;
    f.version = (uint32_t)((desc >> SMEM_DESC_VERSION_SHIFT) & 7u);
    f.base_offset = (uint32_t)((desc >> SMEM_DESC_BASE_OFFSET_SHIFT) & 7u);
    f.lbo_mode = (uint32_t)((desc >> SMEM_DESC_LBO_MODE_SHIFT) & 1u);
    f.layout = (uint32_t)((desc >> SMEM_DESC_LAYOUT_SHIFT) & 7u);
    f.reserved = (uint32_t)(((desc >> 14) & 3u) | (((desc >> 30) & 3u) << 2) | (((desc >> 53) & 0xFFu) << 4));
    return f;
}

/* Advance the start address by `bytes` (a multiple of 16): the K step inside a
 * swizzle atom (K-major: +32 B per K=16 of 16-bit data = +2 in the field) or
 * the next pipeline stage. Valid while the address stays below 256 KB. */
static inline WSGEMM_HD uint64_t umma_smem_desc_advance(uint64_t desc, uint32_t bytes)
{
    return desc + (uint64_t)(bytes >> 4);
}

/* K-major tile written by TMA with swizzle S (32/64/128 B): row r of the
 * M (or N) dimension at r * S bytes, 8-row groups SBO = 8 * S apart, each
 * stage aligned to 8 * S bytes. LBO is ignored by the hardware for swizzled
 * K-major layouts and written as 0 (matches 0x4000404000000000). */
static inline WSGEMM_HD uint64_t umma_smem_desc_k_major(uint32_t smem_addr, umma_swizzle layout)
{
    return umma_smem_desc_encode(smem_addr, 0, 8u * umma_swizzle_bytes((uint32_t)layout), layout);
}

/* MN-major tile written by TMA boxes S bytes wide in M (or N) and k_rows rows
 * of K (one box per S/2 16-bit elements of MN, boxes stacked): K row j at
 * j * S bytes, 8-K-row groups SBO = 8 * S apart, MN atoms LBO = S * k_rows apart. */
static inline WSGEMM_HD uint64_t umma_smem_desc_mn_major(uint32_t smem_addr, umma_swizzle layout, uint32_t k_rows)
{
    uint32_t s = umma_swizzle_bytes((uint32_t)layout);
    return umma_smem_desc_encode(smem_addr, s * k_rows, 8u * s, layout);
}

/* ================================================================ instruction descriptor */

/* Bit positions of the instruction descriptor of the dense kinds (PTX ISA tables "Instruction descriptor
 * format for .kind::f16 and .kind::tf32" and "... .kind::f8f6f4 ..."; the same positions in both). */
enum {
    IDESC_SPARSE_SEL_SHIFT = 0, /* bits 0-1: sparsity selector (0 dense) */
    IDESC_SPARSE_SHIFT = 2,     /* bit 2   : sparsity (0 dense) */
    IDESC_SATURATE_SHIFT = 3,   /* bit 3   : saturate (integer kinds only; 0) */
    IDESC_D_FORMAT_SHIFT = 4,   /* bits 4-5: D type, 0 f16, 1 f32 */
    IDESC_A_FORMAT_SHIFT = 7,   /* bits 7-9: A type (umma_dtype for kind::f16, umma_f8_dtype for kind::f8f6f4) */
    IDESC_B_FORMAT_SHIFT = 10,  /* bits 10-12: B type, as A */
    IDESC_NEGATE_A_SHIFT = 13,  /* bit 13 */
    IDESC_NEGATE_B_SHIFT = 14,  /* bit 14 */
    IDESC_A_MAJOR_SHIFT = 15,   /* bit 15: 0 K-major, 1 MN-major */
    IDESC_B_MAJOR_SHIFT = 16,   /* bit 16: 0 K-major, 1 MN-major */
    IDESC_N_SHIFT = 17,         /* bits 17-22: N >> 3 */
    IDESC_M_SHIFT = 24,         /* bits 24-28: M >> 4 (bit 23 is reserved: a classic bug) */
    IDESC_MAX_SHIFT_SHIFT = 30  /* bits 30-31: max shift, .ws only (0) */
};

typedef enum umma_dtype { UMMA_F16 = 0, UMMA_BF16 = 1 } umma_dtype; /* kind::f16 operand formats */
/* kind::f8f6f4 operand formats (codes 3-5 are the 6- and 4-bit formats, not used here). Unlike wgmma on
 * sm_90, an E4M3 or E5M2 operand may be MN-major. K = 32 per instruction (32 bytes of K). */
typedef enum umma_f8_dtype { UMMA_E4M3 = 0, UMMA_E5M2 = 1 } umma_f8_dtype;
/* The kind of a tcgen05.mma (the instruction's .kind; the descriptor does not say it: both kinds use format
 * codes 0 and 1): f16 (F16/BF16 operands, K = 16 per instruction) or f8f6f4 (here E4M3/E5M2, K = 32). Either
 * way one instruction reads 32 bytes of K per operand row. */
typedef enum umma_kind { UMMA_KIND_F16 = 0, UMMA_KIND_F8F6F4 = 1, UMMA_KIND_MXF8F6F4 = 2 } umma_kind;
typedef enum umma_acc_dtype { UMMA_ACC_F16 = 0, UMMA_ACC_F32 = 1 } umma_acc_dtype;
typedef enum umma_major { UMMA_K_MAJOR = 0, UMMA_MN_MAJOR = 1 } umma_major;

typedef struct umma_idesc_fields {
    uint32_t sparse_sel, sparse, saturate;
    uint32_t d_format, a_format, b_format;
    uint32_t negate_a, negate_b;
    uint32_t a_major, b_major;
    uint32_t n; /* decoded N (field << 3) */
    uint32_t m; /* decoded M (field << 4) */
    uint32_t max_shift;
    uint32_t reserved; /* bits 6, 23, 29 (must be 0) */
} umma_idesc_fields;

/* The fields of a dense descriptor; the format codes are the kind's. M is the instruction's M: for
 * cta_group::2 the pair's M (256 = 128 rows per CTA). */
static inline WSGEMM_HD uint32_t umma_idesc_pack(umma_acc_dtype d_format, uint32_t a_format, uint32_t b_format,
                                                 umma_major a_major, umma_major b_major, int negate_a, int negate_b,
                                                 uint32_t m, uint32_t n)
{
    uint32_t idesc = 0;
    idesc |= 0u << IDESC_SPARSE_SEL_SHIFT; /* dense */
    idesc |= 0u << IDESC_SPARSE_SHIFT;
    idesc |= 0u << IDESC_SATURATE_SHIFT;
    idesc |= ((uint32_t)d_format & 3u) << IDESC_D_FORMAT_SHIFT;
    idesc |= (a_format & 7u) << IDESC_A_FORMAT_SHIFT;
    idesc |= (b_format & 7u) << IDESC_B_FORMAT_SHIFT;
    idesc |= (negate_a ? 1u : 0u) << IDESC_NEGATE_A_SHIFT;
    idesc |= (negate_b ? 1u : 0u) << IDESC_NEGATE_B_SHIFT;
    idesc |= ((uint32_t)a_major & 1u) << IDESC_A_MAJOR_SHIFT;
    idesc |= ((uint32_t)b_major & 1u) << IDESC_B_MAJOR_SHIFT;
    idesc |= ((n >> 3) & 0x3Fu) << IDESC_N_SHIFT;
    idesc |= ((m >> 4) & 0x1Fu) << IDESC_M_SHIFT;
    idesc |= 0u << IDESC_MAX_SHIFT_SHIFT;
    return idesc;
}

/* .kind::f16: f16 or bf16 operands. */
static inline WSGEMM_HD uint32_t umma_idesc_f16_encode(umma_acc_dtype d_format, umma_dtype a_format,
                                                       umma_dtype b_format, umma_major a_major, umma_major b_major,
                                                       int negate_a, int negate_b, uint32_t m, uint32_t n)
{
    return umma_idesc_pack(d_format, (uint32_t)a_format, (uint32_t)b_format, a_major, b_major, negate_a, negate_b, m,
                           n);
}

/* .kind::f8f6f4: E4M3 or E5M2 operands (any pair). */
static inline WSGEMM_HD uint32_t umma_idesc_f8f6f4_encode(umma_acc_dtype d_format, umma_f8_dtype a_format,
                                                          umma_f8_dtype b_format, umma_major a_major,
                                                          umma_major b_major, int negate_a, int negate_b, uint32_t m,
                                                          uint32_t n)
{
    return umma_idesc_pack(d_format, (uint32_t)a_format, (uint32_t)b_format, a_major, b_major, negate_a, negate_b, m,
                           n);
}

/* Any dense kind's fields (the format codes read as the kind's). */
static inline WSGEMM_HD umma_idesc_fields umma_idesc_decode(uint32_t idesc)
{
    umma_idesc_fields f;
    f.sparse_sel = (idesc >> IDESC_SPARSE_SEL_SHIFT) & 3u;
    f.sparse = (idesc >> IDESC_SPARSE_SHIFT) & 1u;
    f.saturate = (idesc >> IDESC_SATURATE_SHIFT) & 1u;
    f.d_format = (idesc >> IDESC_D_FORMAT_SHIFT) & 3u;
    f.a_format = (idesc >> IDESC_A_FORMAT_SHIFT) & 7u;
    f.b_format = (idesc >> IDESC_B_FORMAT_SHIFT) & 7u;
    f.negate_a = (idesc >> IDESC_NEGATE_A_SHIFT) & 1u;
    f.negate_b = (idesc >> IDESC_NEGATE_B_SHIFT) & 1u;
    f.a_major = (idesc >> IDESC_A_MAJOR_SHIFT) & 1u;
    f.b_major = (idesc >> IDESC_B_MAJOR_SHIFT) & 1u;
    f.n = ((idesc >> IDESC_N_SHIFT) & 0x3Fu) << 3;
    f.m = ((idesc >> IDESC_M_SHIFT) & 0x1Fu) << 4;
    f.max_shift = (idesc >> IDESC_MAX_SHIFT_SHIFT) & 3u;
    f.reserved = ((idesc >> 6) & 1u) | (((idesc >> 23) & 1u) << 1) | (((idesc >> 29) & 1u) << 2);
    return f;
}

/* ================================================================ block-scaled instruction descriptor */

/* Bit positions of the instruction descriptor of .kind::mxf8f6f4.block_scale (PTX ISA table "Instruction
 * descriptor format for .kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4"; CUTLASS's
 * UMMA::InstrDescriptorBlockScaled). D is always f32, so bits 4-5 say which byte of its 32-bit TMEM column
 * each scale factor of B comes from instead, and bits 29-30 the same for A; bit 23, reserved in the dense
 * kinds, is the scale factors' format. */
enum {
    IDESC_BS_SPARSE_SEL_SHIFT = 0, /* bits 0-1: sparsity selector (0 dense) */
    IDESC_BS_SPARSE_SHIFT = 2,     /* bit 2   : sparsity (0 dense) */
    IDESC_BS_B_SF_ID_SHIFT = 4,    /* bits 4-5: B's scale factor ID (the byte of the TMEM column) */
    IDESC_BS_A_FORMAT_SHIFT = 7,   /* bits 7-9: A type (umma_f8_dtype) */
    IDESC_BS_B_FORMAT_SHIFT = 10,  /* bits 10-12: B type */
    IDESC_BS_NEGATE_A_SHIFT = 13,  /* bit 13 */
    IDESC_BS_NEGATE_B_SHIFT = 14,  /* bit 14 */
    IDESC_BS_A_MAJOR_SHIFT = 15,   /* bit 15: 0 K-major, 1 MN-major */
    IDESC_BS_B_MAJOR_SHIFT = 16,   /* bit 16 */
    IDESC_BS_N_SHIFT = 17,         /* bits 17-22: N >> 3 */
    IDESC_BS_SF_FORMAT_SHIFT = 23, /* bit 23: scale factor format, umma_sf_format */
    IDESC_BS_M_SHIFT = 24,         /* bits 24-28: M >> 4 */
    IDESC_BS_A_SF_ID_SHIFT = 29,   /* bits 29-30: A's scale factor ID */
    IDESC_BS_K_SIZE_SHIFT = 31     /* bit 31: K per instruction; 0 = 32 for mxf8f6f4 */
};

/* The scale factors' format: UE4M3 (nvfp4's) or UE8M0 (MX: a power of two per 32 elements of K). */
typedef enum umma_sf_format { UMMA_SF_UE4M3 = 0, UMMA_SF_UE8M0 = 1 } umma_sf_format;

typedef struct umma_idesc_bs_fields {
    uint32_t sparse_sel, sparse;
    uint32_t a_format, b_format, sf_format;
    uint32_t a_sf_id, b_sf_id;
    uint32_t negate_a, negate_b;
    uint32_t a_major, b_major;
    uint32_t n, m; /* decoded N (field << 3) and M (field << 4) */
    uint32_t k_size;
    uint32_t reserved; /* bits 3 and 6 (must be 0) */
} umma_idesc_bs_fields;

/* The scale factor ID of a scale factor's TMEM address: the byte of its 32-bit column, bits 30-31 of the
 * address (what tcgen05.mma's block_scale operands take as [tmem] and the descriptor as the ID). */
static inline WSGEMM_HD uint32_t umma_sf_id_of_tmem(uint32_t tmem_addr)
{
    return tmem_addr >> 30;
}

/* .kind::mxf8f6f4.block_scale with E4M3/E5M2 operands: the descriptor for scale factors at byte a_sf_id
 * (A) and b_sf_id (B) of their TMEM columns. M is the instruction's M (the pair's for cta_group::2). */
static inline WSGEMM_HD uint32_t umma_idesc_mxf8f6f4_encode(umma_f8_dtype a_format, umma_f8_dtype b_format,
                                                            umma_sf_format sf_format, umma_major a_major,
                                                            umma_major b_major, int negate_a, int negate_b, uint32_t m,
                                                            uint32_t n, uint32_t a_sf_id, uint32_t b_sf_id)
{
    uint32_t idesc = 0;
    idesc |= 0u << IDESC_BS_SPARSE_SEL_SHIFT; /* dense */
    idesc |= 0u << IDESC_BS_SPARSE_SHIFT;
    idesc |= (b_sf_id & 3u) << IDESC_BS_B_SF_ID_SHIFT;
    idesc |= ((uint32_t)a_format & 7u) << IDESC_BS_A_FORMAT_SHIFT;
    idesc |= ((uint32_t)b_format & 7u) << IDESC_BS_B_FORMAT_SHIFT;
    idesc |= (negate_a ? 1u : 0u) << IDESC_BS_NEGATE_A_SHIFT;
    idesc |= (negate_b ? 1u : 0u) << IDESC_BS_NEGATE_B_SHIFT;
    idesc |= ((uint32_t)a_major & 1u) << IDESC_BS_A_MAJOR_SHIFT;
    idesc |= ((uint32_t)b_major & 1u) << IDESC_BS_B_MAJOR_SHIFT;
    idesc |= ((n >> 3) & 0x3Fu) << IDESC_BS_N_SHIFT;
    idesc |= ((uint32_t)sf_format & 1u) << IDESC_BS_SF_FORMAT_SHIFT;
    idesc |= ((m >> 4) & 0x1Fu) << IDESC_BS_M_SHIFT;
    idesc |= (a_sf_id & 3u) << IDESC_BS_A_SF_ID_SHIFT;
    idesc |= 0u << IDESC_BS_K_SIZE_SHIFT; /* K = 32 */
    return idesc;
}

/* The descriptor idesc with its scale factor IDs replaced: the k-loop's one per 32-K instruction of a k-block. */
static inline WSGEMM_HD uint32_t umma_idesc_bs_set_sf_ids(uint32_t idesc, uint32_t a_sf_id, uint32_t b_sf_id)
{
    idesc &= ~((3u << IDESC_BS_A_SF_ID_SHIFT) | (3u << IDESC_BS_B_SF_ID_SHIFT));
    return idesc | (a_sf_id & 3u) << IDESC_BS_A_SF_ID_SHIFT | (b_sf_id & 3u) << IDESC_BS_B_SF_ID_SHIFT;
}

static inline WSGEMM_HD umma_idesc_bs_fields umma_idesc_bs_decode(uint32_t idesc)
{
    umma_idesc_bs_fields f;
    f.sparse_sel = (idesc >> IDESC_BS_SPARSE_SEL_SHIFT) & 3u;
    f.sparse = (idesc >> IDESC_BS_SPARSE_SHIFT) & 1u;
    f.b_sf_id = (idesc >> IDESC_BS_B_SF_ID_SHIFT) & 3u;
    f.a_format = (idesc >> IDESC_BS_A_FORMAT_SHIFT) & 7u;
    f.b_format = (idesc >> IDESC_BS_B_FORMAT_SHIFT) & 7u;
    f.negate_a = (idesc >> IDESC_BS_NEGATE_A_SHIFT) & 1u;
    f.negate_b = (idesc >> IDESC_BS_NEGATE_B_SHIFT) & 1u;
    f.a_major = (idesc >> IDESC_BS_A_MAJOR_SHIFT) & 1u;
    f.b_major = (idesc >> IDESC_BS_B_MAJOR_SHIFT) & 1u;
    f.n = ((idesc >> IDESC_BS_N_SHIFT) & 0x3Fu) << 3;
    f.sf_format = (idesc >> IDESC_BS_SF_FORMAT_SHIFT) & 1u;
    f.m = ((idesc >> IDESC_BS_M_SHIFT) & 0x1Fu) << 4;
    f.a_sf_id = (idesc >> IDESC_BS_A_SF_ID_SHIFT) & 3u;
    f.k_size = (idesc >> IDESC_BS_K_SIZE_SHIFT) & 1u;
    f.reserved = ((idesc >> 3) & 1u) | (((idesc >> 6) & 1u) << 1);
    return f;
}

/* ================================================================ block scale factors in TMEM */

/* MX scale factors (UE8M0, one per 32 elements of K) of a 128-K k-block, as tcgen05.mma .kind::mxf8f6f4
 * .block_scale reads them (PTX ISA "Layout of the Scale Factor A Matrix" / "... B Matrix" for scale_vec::1X,
 * and "Block scaling": the factors are replicated in all four 32-lane quarters), and as tcgen05.cp
 * .32x128b.warpx4 puts them there:
 *   - a chunk covers 128 rows (of A's M, or B's N) x the 4 sub-blocks of 32 K of one 128-K k-block: 512
 *     bytes in shared memory, byte (r % 32) * 16 + (r / 32) * 4 + sub (CUTLASS's SfKMajorAtom,
 *     ((32,4),(32,4)):((16,4),(0,1)) in cutlass/detail/sm100_blockscaled_layout.hpp);
 *   - tcgen05.cp.32x128b.warpx4 copies its 32 rows of 16 bytes (row t at byte 16 t: no swizzle, 8-row core
 *     matrices 128 bytes apart) into lanes t, t + 32, t + 64, t + 96, 4 columns from the destination's:
 *     column j of lane t holds bytes 16 t + 4 j .. + 3, i.e. rows 32 j + t of sub-blocks 0..3;
 *   - the MMA takes the factor of row r from column base + r / 32, byte = its scale factor ID (the idesc
 *     field: the sub-block), in any quarter (all four hold it).
 * A chunk is 4 TMEM columns; B with N = 192 needs two chunks (the second half used). */
enum {
    UMMA_SF_CHUNK_ROWS = 128,  /* rows of A (M) or B (N) per chunk */
    UMMA_SF_SUBBLOCKS = 4,     /* 32-K sub-blocks per 128-K k-block: the scale factor IDs 0..3 */
    UMMA_SF_VEC = 32,          /* K elements per scale factor (scale_vec::1X) */
    UMMA_SF_CHUNK_BYTES = 512, /* UMMA_SF_CHUNK_ROWS x UMMA_SF_SUBBLOCKS */
    UMMA_SF_CHUNK_COLS = 4,    /* TMEM columns per chunk */
    UMMA_SF_CP_ROWS = 32,      /* rows of 16 bytes that one tcgen05.cp.32x128b reads */
    UMMA_SF_CP_ROW_BYTES = 16
};

/* Byte offset in its chunk of the factor of row r (0..127) and sub-block `sub` (0..3). */
static inline WSGEMM_HD uint32_t umma_sf_chunk_offset(uint32_t r, uint32_t sub)
{
    return (r % 32u) * UMMA_SF_CP_ROW_BYTES + (r / 32u) * 4u + sub;
}

/* The TMEM column (from the chunk's first) and byte where row r's factors land. */
static inline WSGEMM_HD uint32_t umma_sf_tmem_column(uint32_t r)
{
    return r / 32u;
}

/* The shared-memory descriptor tcgen05.cp.32x128b reads a chunk through: no swizzle, 8-row core matrices of
 * 16-byte rows 128 bytes apart (SBO); LBO 0, as DeepGEMM's (one 16-byte column of core matrices: unused). */
static inline WSGEMM_HD uint64_t umma_sf_cp_desc(uint32_t smem_addr)
{
    return umma_smem_desc_encode(smem_addr, 0u, 8u * UMMA_SF_CP_ROW_BYTES, UMMA_SWIZZLE_NONE);
}

/* ================================================================ legal shapes */

/* Legal dense kind::f16 shapes (PTX ISA "Matrix shape" table for tcgen05.mma):
 *   cta_group::1: M in {64, 128}, N in 8..256 step 8 (wsgemm uses M = 128: M = 64 folds
 *                 rows across lane quarters),
 *   cta_group::2: M in {128, 256} (the pair's M), N in 16..256 step 16 (wsgemm uses M = 256);
 *   K = 16 per instruction. N > 256 is an illegal instruction.
 * A constant expression, so it works in static_assert / _Static_assert. */
#define UMMA_F16_SHAPE_IS_LEGAL(cta_group, M, N)                                                  \
    (((cta_group) == 1 && ((M) == 64 || (M) == 128) && (N) >= 8 && (N) <= 256 && (N) % 8 == 0) || \
     ((cta_group) == 2 && ((M) == 128 || (M) == 256) && (N) >= 16 && (N) <= 256 && (N) % 16 == 0))
#define UMMA_F16_K 16
/* .kind::f8f6f4 with E4M3/E5M2 operands: the same M and N, K = 32 per instruction (32 bytes). */
#define UMMA_F8F6F4_K 32

/* K elements of one instruction of the kind, and the bytes of an operand element. */
static inline WSGEMM_HD uint32_t umma_kind_k(umma_kind kind)
{
    return kind == UMMA_KIND_F16 ? UMMA_F16_K : UMMA_F8F6F4_K;
}
static inline WSGEMM_HD uint32_t umma_kind_elem_bytes(umma_kind kind)
{
    return kind == UMMA_KIND_F16 ? 2u : 1u;
}

static inline WSGEMM_HD int umma_f16_shape_is_legal(int cta_group, uint32_t m, uint32_t n)
{
    return UMMA_F16_SHAPE_IS_LEGAL(cta_group, m, n);
}

/* Allocation sizes tcgen05.alloc accepts: a power of 2 in [32, 512]. */
#define TMEM_NCOLS_IS_LEGAL(ncols) ((ncols) >= 32 && (ncols) <= 512 && ((ncols) & ((ncols)-1)) == 0)

/* ================================================================ TMEM addresses */

/* A TMEM address is lane << 16 | column (PTX ISA "Tensor Memory addressing"). */
enum { TMEM_LANES = 128, TMEM_COLUMNS = 512 };
static inline WSGEMM_HD uint32_t tmem_addr(uint32_t lane, uint32_t column)
{
    return (lane << 16) | column;
}
static inline WSGEMM_HD uint32_t tmem_addr_lane(uint32_t taddr)
{
    return taddr >> 16;
}
static inline WSGEMM_HD uint32_t tmem_addr_column(uint32_t taddr)
{
    return taddr & 0xFFFFu;
}

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_TMEM_DESC_H */
