// SPDX-License-Identifier: MIT
/*
 * generic_gemm.cu - the always-correct path: mma.sync tensor cores, sm_80+.
 *
 * What it computes: C = alpha * op(A) * op(B) + beta * C for every valid
 * problem wsgemm accepts: any m, n, k, any leading dimension and base
 * alignment (2-byte elements), both ops, strided batch, bf16/f16 in,
 * bf16/f16/f32 out. The fast paths decline what they cannot run and AUTO
 * lands here, so correctness comes first and speed second. For
 * wsgemm_matmul also FP8 operands (E4M3/E5M2, widened to fp16 on their way
 * to shared memory: exact, fp16 holds every value of both formats), an E4M3
 * output, and the fused output op (bias, activation, aux, scales, amax:
 * common/epilogue.cuh) in place of alpha/beta, and block-scaled FP8 (operand
 * scales per row, per 1 x 128 or 128 x 128 block, or MX 1 x 32 UE8M0:
 * common/scale.h): each K block's fp32 sums are promoted into a second set
 * of fp32 accumulators at the block's end, times the block's a_scale *
 * b_scale (formed in fp32), as DeepGEMM promotes per 128-K block.
 *
 * Structure: one CTA computes a 128 x 128 tile of C with 8 warps (2 x 4, a
 * 64 x 32 warp tile), K in steps of 32. Global -> shared memory by cp.async
 * (double buffered, one __syncthreads per K step) -> ldmatrix -> mma.sync
 * m16n8k16 with fp32 accumulators. Each operand tile keeps its global layout
 * in shared memory: K-contiguous operands as [row][k] (rows padded to 40
 * elements), M/N-contiguous ones as [k][row] (rows padded to 136 elements),
 * so every shared store is a 16-byte vector and the transpose happens in
 * ldmatrix (.trans for the second layout). Both paddings make ldmatrix
 * conflict-free: 80- and 272-byte rows put 8 consecutive rows in 8 distinct
 * 16-byte bank groups. A vector of 8 contiguous elements goes by cp.async
 * when it lies wholly inside the matrix and is 16-byte aligned; otherwise
 * element by element with zero fill outside the matrix.
 *
 *   global A,B --(cp.async 16 B, or scalar + st.shared at edges)--> smem[buf^1]
 *   smem[buf] --ldmatrix--> fragments --mma.sync--> fp32 accumulators
 *   accumulators --alpha/beta, convert, predicated stores--> C
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "common/epilogue.cuh"
#include "common/pdl.cuh"
#include "common/scale.h"
#include "common/splitk_reduce.cuh"
#include "common/status.h"
#include "internal.h"

namespace
{

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 32;
constexpr int kThreads = 256;
constexpr int kWarpsM = 2;
constexpr int kWarpsN = 4;
constexpr int kWarpTileM = kBlockM / kWarpsM;                        /* 64 */
constexpr int kWarpTileN = kBlockN / kWarpsN;                        /* 32 */
constexpr int kMmaTilesM = kWarpTileM / 16;                          /* 4 */
constexpr int kMmaTilesN = kWarpTileN / 8;                           /* 4 */
constexpr int kSmemRowK = kBlockK + 8;                               /* [row][k] layout: padded row, in elements */
constexpr int kSmemRowMN = kBlockM + 8;                              /* [k][row] layout: padded row, in elements */
constexpr int kVec = 8;                                              /* elements per 16-byte vector */
constexpr int kVecsPerOperand = kBlockM * kBlockK / kVec / kThreads; /* 2 per thread */

/* The operand types a kernel instance reads; both FP8 kinds run the fp16 mma (their values widened). */
enum OperandKind { kOperandsBf16 = 0, kOperandsF16 = 1, kOperandsFp8 = 2 };

static_assert(kWarpsM * kWarpsN * 32 == kThreads, "one warp per warp tile");
static_assert(kBlockM == kBlockN, "the operand loader serves A and B with one tile shape");
static_assert((kSmemRowK * 2) % 16 == 0 && (kSmemRowMN * 2) % 16 == 0,
              "ldmatrix rows must start on 16-byte boundaries");
static_assert((kSmemRowK * 2) % 128 == 80 && (kSmemRowMN * 2) % 128 == 16,
              "row pitches that spread 8 ldmatrix rows over distinct 16-byte bank groups");
static_assert(kBlockM * kBlockK % (kVec * kThreads) == 0, "vectors divide evenly among threads");
static_assert(32 % kBlockK == 0 && 128 % kBlockK == 0, "every scale block (32 or 128 K) ends with a K step");

/* The problem in the types the kernel computes with: 64-bit leading dimensions (every index product is
 * 64-bit without casts), typed operand pointers, the transposes as the two layout flags the loaders test. */
struct GemmParams {
    const void *A;
    const void *B;
    int a_type, b_type; /* wsgemm_dtype: which FP8 format an FP8 operand holds */
    void *C;
    int c_type; /* wsgemm_dtype of C: the store converts to it (one kernel serves every output type) */
    int m, n, k;
    long long lda, ldb, ldc;
    long long strideA, strideB, strideC;
    int batch_count;
    int a_k_contiguous; /* op(A) = A^T: consecutive k are consecutive in memory */
    int b_k_contiguous; /* op(B) = B:   consecutive k are consecutive in memory */
    float alpha, beta;
    /* device pointer mode: alpha and beta read from these device floats when the kernel starts (NULL: the
     * values above); product_dev: a device alpha whose 0 means no product while `alpha` above is applied
     * (split-K partials, whose reduction applies the device alpha) */
    const float *alpha_dev, *beta_dev, *product_dev;
    /* split-K: split s takes k in [s * k_per_split, (s + 1) * k_per_split) and writes C + s * split_stride_c
     * (then C is the fp32 partials, alpha 1, beta 0); splits = 1 is the plain product */
    int splits, k_per_split;
    long long split_stride_c;
    /* wsgemm_matmul: the fused output op replaces alpha/beta (batch_count 1, splits 1, C is D) */
    int fused;
    wsgemm_fused_epilogue ep;
    /* wsgemm_matmul with scale tensors (scaled = 1; FP8 operands, splits 1): the modes (wsgemm_matmul_scale_mode),
     * the tensors, and the K extent of one scale (32, 128; 0: all of K) */
    int scaled;
    int a_scale_mode, b_scale_mode;
    const void *a_scales, *b_scales;
    int scale_block_k;
};

/* One 128 x 32 operand tile in shared memory, in the operand's own layout:
 * by_k[row][k] when k is contiguous in global memory, by_row[k][row] when
 * rows (m or n) are. */
union OperandTile {
    uint16_t by_k[kBlockM][kSmemRowK];
    uint16_t by_row[kBlockK][kSmemRowMN];
};

/* The epilogue reuses the operand buffers: each warp stages 32 rows of its
 * 64 x 32 accumulator tile at a time (padded to 33 floats so the column-wise
 * reads hit 32 distinct banks), then stores them column by column, 32
 * consecutive rows of C per warp store. */
constexpr int kEpilogueRows = 32;
constexpr int kEpiloguePitch = kWarpTileN + 1;

union SharedStorage {
    struct {
        OperandTile a[2];
        OperandTile b[2];
    } mainloop;
    float epilogue[kWarpsM * kWarpsN][kEpilogueRows][kEpiloguePitch];
};
static_assert(kWarpTileM % kEpilogueRows == 0 && kEpilogueRows == 32, "one lane per staged row");

/* ---------------------------------------------------------------- PTX wrappers */

/* PTX ISA 9.7.14.5.15 "ldmatrix": four 8x8 b16 matrices, one row address per lane. */
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const uint16_t *row_smem)
{
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row_smem));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* PTX ISA 9.7.14.5.15 "ldmatrix" with .trans: each 8x8 matrix arrives transposed. */
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const uint16_t *row_smem)
{
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row_smem));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* PTX ISA 9.7.14.5.14 "mma" m16n8k16, bf16 inputs, f32 accumulate. */
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* PTX ISA 9.7.14.5.14 "mma" m16n8k16, f16 inputs, f32 accumulate. */
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* ---------------------------------------------------------------- operand loading */

/* PTX ISA 9.7.9.25.3 "cp.async": 16 bytes global -> shared, bypassing L1 (.cg),
 * completing asynchronously; sm_80+. */
__device__ __forceinline__ void cp_async_16(void *dst_smem, const void *src_gmem)
{
    uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(dst_smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src_gmem) : "memory");
}

/* PTX ISA 9.7.9.25.3 "cp.async.commit_group": close the group of this thread's cp.async so far. */
__device__ __forceinline__ void cp_async_commit_group()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* PTX ISA 9.7.9.25.3 "cp.async.wait_group 0": wait until all of this thread's groups completed. */
__device__ __forceinline__ void cp_async_wait_all()
{
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

/* Where vector `v` (0..511) of a 128 x 32 tile sits: the tile row (m or n)
 * and k of its first element; its 8 elements run along the contiguous one. */
struct VectorSlot {
    int row, k;
};

__device__ __forceinline__ VectorSlot vector_slot(int v, int k_contiguous)
{
    VectorSlot s;
    if (k_contiguous) { /* 4 vectors cover a row's 32 k */
        s.row = v / (kBlockK / kVec);
        s.k = (v % (kBlockK / kVec)) * kVec;
    } else { /* 16 vectors cover a k column's 128 rows */
        s.row = (v % (kBlockM / kVec)) * kVec;
        s.k = v / (kBlockM / kVec);
    }
    return s;
}

/* Copy one vector of an operand whose element (row, k) lives at
 * base[row * row_step + k * k_step] into shared memory. A whole, 16-byte
 * aligned vector goes by cp.async; one at the matrix edge or misaligned is
 * loaded element by element (zero outside rows x K) and stored at once. */
__device__ __forceinline__ void copy_vector(uint16_t *dst_smem, const uint16_t *base, int row, int k, int rows, int K,
                                            long long ld, int k_contiguous)
{
    const long long row_step = k_contiguous ? ld : 1;
    const long long k_step = k_contiguous ? 1 : ld;
    const uint16_t *first = base + row * row_step + k * k_step;
    const bool whole =
        k_contiguous ? (row < rows && K - k >= kVec) : (k < K && rows - row >= kVec); /* no k + 8 overflow */
    if (whole && (reinterpret_cast<uintptr_t>(first) & 15u) == 0) {
        cp_async_16(dst_smem, first);
        return;
    }
    uint4 q;
    uint16_t *h = reinterpret_cast<uint16_t *>(&q);
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
        const int r = k_contiguous ? row : row + e;
        const int kk = k_contiguous ? k + e : k;
        h[e] = (r < rows && kk < K) ? first[e] : uint16_t(0); /* the vector's direction has step 1 */
    }
    *reinterpret_cast<uint4 *>(dst_smem) = q;
}

/* The FP8 counterpart of copy_vector: 8 one-byte elements (one 8-byte load when whole and aligned, else
 * element by element with zero fill), widened to fp16 and stored as one 16-byte vector. */
__device__ __forceinline__ void copy_vector_fp8(uint16_t *dst_smem, const uint8_t *base, int row, int k, int rows,
                                                int K, long long ld, int k_contiguous, int fp8_type)
{
    const long long row_step = k_contiguous ? ld : 1;
    const long long k_step = k_contiguous ? 1 : ld;
    const uint8_t *first = base + row * row_step + k * k_step;
    const bool whole = k_contiguous ? (row < rows && K - k >= kVec) : (k < K && rows - row >= kVec);
    uint2 bytes;
    if (whole && (reinterpret_cast<uintptr_t>(first) & 7u) == 0) {
        bytes = *reinterpret_cast<const uint2 *>(first);
    } else {
        uint8_t *b = reinterpret_cast<uint8_t *>(&bytes);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
            const int r = k_contiguous ? row : row + e;
            const int kk = k_contiguous ? k + e : k;
            b[e] = (r < rows && kk < K) ? first[e] : uint8_t(0);
        }
    }
    const __nv_fp8_interpretation_t format = fp8_type == WSGEMM_R_8F_E5M2 ? __NV_E5M2 : __NV_E4M3;
    const uint16_t *pairs = reinterpret_cast<const uint16_t *>(&bytes);
    uint4 q;
    uint32_t *words = reinterpret_cast<uint32_t *>(&q);
#pragma unroll
    for (int w = 0; w < kVec / 2; ++w) {
        const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(pairs[w], format);
        words[w] = (uint32_t)h.x | ((uint32_t)h.y << 16);
    }
    *reinterpret_cast<uint4 *>(dst_smem) = q;
}

/* Start copying the operand tile at (row0, k0) into `tile`, in the
 * operand's own layout; complete with cp_async_wait_all + __syncthreads.
 * base points at element (0, 0) of the operand (of kOperands' type). */
template <int kOperands>
__device__ __forceinline__ void copy_operand_tile(OperandTile &tile, const void *base, int row0, int k0, int rows,
                                                  int K, long long ld, int k_contiguous, int fp8_type)
{
#pragma unroll
    for (int i = 0; i < kVecsPerOperand; ++i) {
        VectorSlot s = vector_slot(threadIdx.x + i * kThreads, k_contiguous);
        uint16_t *dst = k_contiguous ? &tile.by_k[s.row][s.k] : &tile.by_row[s.k][s.row];
        if constexpr (kOperands == kOperandsFp8)
            copy_vector_fp8(dst, static_cast<const uint8_t *>(base), row0 + s.row, k0 + s.k, rows, K, ld, k_contiguous,
                            fp8_type);
        else
            copy_vector(dst, static_cast<const uint16_t *>(base), row0 + s.row, k0 + s.k, rows, K, ld, k_contiguous);
    }
}

/* ---------------------------------------------------------------- the tile computation */

/* A fragment (16 x 16, m x k) of mma m16n8k16 as four 8x8 matrices:
 * (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15);
 * lane l supplies a row address of matrix l / 8. */
__device__ __forceinline__ void load_a_fragment(uint32_t (&frag)[4], const OperandTile &a, int m, int kk, int lane,
                                                int k_contiguous)
{
    const int mat = lane / 8, r = lane % 8;
    if (k_contiguous) /* stored [m][k]: row m + (mat % 2) * 8 + r at k + (mat / 2) * 8 */
        ldmatrix_x4(frag, &a.by_k[m + (mat % 2) * 8 + r][kk + (mat / 2) * 8]);
    else /* stored [k][m]: row k + (mat / 2) * 8 + r at m + (mat % 2) * 8, transposed on load */
        ldmatrix_x4_trans(frag, &a.by_row[kk + (mat / 2) * 8 + r][m + (mat % 2) * 8]);
}

/* B fragments (k x 8) of two adjacent n tiles as four 8x8 matrices:
 * (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15). */
__device__ __forceinline__ void load_b_fragments(uint32_t (&r4)[4], const OperandTile &b, int n, int kk, int lane,
                                                 int k_contiguous)
{
    const int mat = lane / 8, r = lane % 8;
    if (k_contiguous) /* stored [n][k] */
        ldmatrix_x4(r4, &b.by_k[n + (mat / 2) * 8 + r][kk + (mat % 2) * 8]);
    else /* stored [k][n], transposed on load */
        ldmatrix_x4_trans(r4, &b.by_row[kk + (mat % 2) * 8 + r][n + (mat / 2) * 8]);
}

template <int kOperands>
__device__ __forceinline__ void mma_k_step(float (&acc)[kMmaTilesM][kMmaTilesN][4], const OperandTile &a,
                                           const OperandTile &b, int warp_m, int warp_n, int lane, int a_k_contiguous,
                                           int b_k_contiguous)
{
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += 16) {
        uint32_t a_frag[kMmaTilesM][4];
        uint32_t b_frag[kMmaTilesN][2];
#pragma unroll
        for (int tm = 0; tm < kMmaTilesM; ++tm)
            load_a_fragment(a_frag[tm], a, warp_m * kWarpTileM + tm * 16, kk, lane, a_k_contiguous);
#pragma unroll
        for (int tn = 0; tn < kMmaTilesN; tn += 2) {
            uint32_t r[4];
            load_b_fragments(r, b, warp_n * kWarpTileN + tn * 8, kk, lane, b_k_contiguous);
            b_frag[tn][0] = r[0];
            b_frag[tn][1] = r[1];
            b_frag[tn + 1][0] = r[2];
            b_frag[tn + 1][1] = r[3];
        }
#pragma unroll
        for (int tm = 0; tm < kMmaTilesM; ++tm)
#pragma unroll
            for (int tn = 0; tn < kMmaTilesN; ++tn) {
                if constexpr (kOperands == kOperandsBf16)
                    mma_m16n8k16_bf16(acc[tm][tn], a_frag[tm], b_frag[tn]);
                else
                    mma_m16n8k16_f16(acc[tm][tn], a_frag[tm], b_frag[tn]);
            }
    }
}

/* The end of a K block of a block-scaled matmul (block b of the scale modes, 0 for the modes over all of K):
 * total += (a_scale(i, b) * b_scale(j, b)) * acc for each of the thread's elements (one fma: the block's fp32
 * sums enter the total once, scaled), then acc = 0 for the next block. Element (i, j) of the fragments as in
 * store_tile: rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8 tile. Rows and columns outside the problem
 * take scale 0 (their sums are 0: zero-filled operands) and read nothing. */
__device__ __forceinline__ void promote_block(float (&total)[kMmaTilesM][kMmaTilesN][4],
                                              float (&acc)[kMmaTilesM][kMmaTilesN][4], const GemmParams &p, int m0,
                                              int n0, int warp_m, int warp_n, int lane, long long b)
{
    const int g = lane / 4, t = lane % 4;
    float sa[kMmaTilesM][2], sb[kMmaTilesN][2];
#pragma unroll
    for (int tm = 0; tm < kMmaTilesM; ++tm)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int i = m0 + warp_m * kWarpTileM + tm * 16 + g + h * 8;
            sa[tm][h] = i < p.m ? wsgemm_scale_load(p.a_scale_mode, p.a_scales,
                                                    wsgemm_scale_index(p.a_scale_mode, i, b, p.m, p.k))
                                : 0.0f;
        }
#pragma unroll
    for (int tn = 0; tn < kMmaTilesN; ++tn)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int j = n0 + warp_n * kWarpTileN + tn * 8 + 2 * t + h;
            sb[tn][h] = j < p.n ? wsgemm_scale_load(p.b_scale_mode, p.b_scales,
                                                    wsgemm_scale_index(p.b_scale_mode, j, b, p.n, p.k))
                                : 0.0f;
        }
#pragma unroll
    for (int tm = 0; tm < kMmaTilesM; ++tm)
#pragma unroll
        for (int tn = 0; tn < kMmaTilesN; ++tn)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                total[tm][tn][r] = fmaf(sa[tm][r / 2] * sb[tn][r % 2], acc[tm][tn][r], total[tm][tn][r]);
                acc[tm][tn][r] = 0.0f;
            }
}

/* Write the warp's accumulators to C through shared memory, 32 rows at a
 * time. C fragment of mma m16n8k16: d0,d1 at (g, 2t..2t+1), d2,d3 at
 * (g+8, 2t..2t+1). Call after a __syncthreads that ends the main loop. */
template <typename TOut>
__device__ __forceinline__ void store_tile(const GemmParams &p, TOut *c, const float (&acc)[kMmaTilesM][kMmaTilesN][4],
                                           float (&stage)[kEpilogueRows][kEpiloguePitch], int m0, int n0, int warp_m,
                                           int warp_n, int lane, const wsgemm_fused_factors &factors, float &amax)
{
    const int g = lane / 4, t = lane % 4;
    constexpr int kTilesPerPass = kEpilogueRows / 16;
#pragma unroll
    for (int pass = 0; pass < kMmaTilesM / kTilesPerPass; ++pass) {
#pragma unroll
        for (int tp = 0; tp < kTilesPerPass; ++tp)
#pragma unroll
            for (int tn = 0; tn < kMmaTilesN; ++tn)
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    stage[tp * 16 + g + (r / 2) * 8][tn * 8 + 2 * t + (r % 2)] = acc[pass * kTilesPerPass + tp][tn][r];
        __syncwarp();
        const int i = m0 + warp_m * kWarpTileM + pass * kEpilogueRows + lane;
#pragma unroll 4
        for (int col = 0; col < kWarpTileN; ++col) {
            const int j = n0 + warp_n * kWarpTileN + col;
            if (i < p.m && j < p.n) {
                const long long ci = i + (long long)j * p.ldc;
                /* the shared output ops (common/epilogue.cuh): beta == 0 never reads C */
                if (p.fused)
                    wsgemm_fused_apply<wsgemm_dtype_of<TOut>::value>(p.ep, factors, c + ci, i, j, stage[lane][col],
                                                                     amax);
                else
                    wsgemm_out_apply<wsgemm_dtype_of<TOut>::value>(c + ci, stage[lane][col], factors.alpha,
                                                                   factors.beta);
            }
        }
        __syncwarp();
    }
}

/* The output type is the one runtime choice of the epilogue: the main loop is the same for every C, so one
 * kernel per operand kind and layout stores to all four (a kernel per output type would repeat the main loop). */
__device__ __forceinline__ void store_tile_as(const GemmParams &p, char *c,
                                              const float (&acc)[kMmaTilesM][kMmaTilesN][4],
                                              float (&stage)[kEpilogueRows][kEpiloguePitch], int m0, int n0, int warp_m,
                                              int warp_n, int lane, const wsgemm_fused_factors &factors, float &amax)
{
    switch (p.c_type) {
    case WSGEMM_R_16BF:
        store_tile(p, reinterpret_cast<__nv_bfloat16 *>(c), acc, stage, m0, n0, warp_m, warp_n, lane, factors, amax);
        break;
    case WSGEMM_R_16F:
        store_tile(p, reinterpret_cast<__half *>(c), acc, stage, m0, n0, warp_m, warp_n, lane, factors, amax);
        break;
    case WSGEMM_R_8F_E4M3:
        store_tile(p, reinterpret_cast<__nv_fp8_e4m3 *>(c), acc, stage, m0, n0, warp_m, warp_n, lane, factors, amax);
        break;
    default:
        store_tile(p, reinterpret_cast<float *>(c), acc, stage, m0, n0, warp_m, warp_n, lane, factors, amax);
        break;
    }
}

/* kScaled: a block-scaled matmul (p.scaled), with a second set of accumulators: one CTA per SM keeps both in
 * registers. */
template <int kOperands, int kAKContiguous, int kBKContiguous, int kScaled>
__global__ void __launch_bounds__(kThreads, kScaled ? 1 : 2) generic_gemm_kernel(const GemmParams p)
{
    static_assert(!kScaled || kOperands == kOperandsFp8, "scale tensors scale FP8 operands");
    constexpr int kElemBytes = kOperands == kOperandsFp8 ? 1 : 2;
    __shared__ __align__(16) SharedStorage smem;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
    const long long tiles_m = (p.m - 1) / kBlockM + 1; /* m, k > 0; m + kBlockM - 1 could overflow */
    const long long tiles = tiles_m * ((p.n - 1) / kBlockN + 1);

    /* one work item = (batch, split, tile); the grid may hold fewer of them than the problem has */
    const long long items = tiles * p.batch_count * p.splits;
    const long long c_bytes = wsgemm_dtype_size((wsgemm_dtype)p.c_type);
    /* programmatic dependent launch: nothing global before the previous kernel is done (common/pdl.cuh); the
     * next grid may be scheduled once every CTA of this one is resident */
    wsgemm_pdl_wait();
    wsgemm_pdl_launch_dependents();
    /* the call's alpha and beta: by value, or (device pointer mode) read here, in stream order */
    const float alpha = p.alpha_dev ? *p.alpha_dev : p.alpha;
    const float beta = p.beta_dev ? *p.beta_dev : p.beta;
    /* alpha == 0 (only a device alpha or a matmul without a product gets here): no product, A and B unread,
     * the accumulators stay 0 as host mode's alpha == 0 leaves them (split-K partials: 0, and the reduction's
     * alpha * 0 + beta * C is host mode's C = beta * C); uniform over the grid */
    const bool product = alpha != 0.0f && (p.product_dev == NULL || *p.product_dev != 0.0f);
    wsgemm_fused_factors factors = {alpha, beta, 1.0f};
    if (p.fused) factors = wsgemm_fused_factors_load(p.ep, alpha, beta);
    float amax = 0.0f; /* this thread's max |x| over its elements (fused, ep.amax set) */
    for (long long item = blockIdx.z * (long long)gridDim.x + blockIdx.x; item < items;
         item += (long long)gridDim.x * gridDim.z) {
        const long long batch_split = item / tiles;
        const long long tile = item - batch_split * tiles;
        const int batch = (int)(batch_split / p.splits), split = (int)(batch_split % p.splits);
        const int m0 = (int)(tile % tiles_m) * kBlockM;
        const int n0 = (int)(tile / tiles_m) * kBlockN;
        const int k0 = split * p.k_per_split;
        const int K = p.k - k0 < p.k_per_split ? p.k - k0 : p.k_per_split; /* this split's k; >= 1 */
        const int k_steps = product ? (K - 1) / kBlockK + 1 : 0;
        const char *A =
            static_cast<const char *>(p.A) + (batch * p.strideA + k0 * (kAKContiguous ? 1 : p.lda)) * kElemBytes;
        const char *B =
            static_cast<const char *>(p.B) + (batch * p.strideB + k0 * (kBKContiguous ? 1 : p.ldb)) * kElemBytes;
        char *C = static_cast<char *>(p.C) + (batch * p.strideC + split * p.split_stride_c) * c_bytes;

        float acc[kMmaTilesM][kMmaTilesN][4];
        float total[kMmaTilesM][kMmaTilesN][4]; /* kScaled: the promoted sums (unused otherwise) */
#pragma unroll
        for (int tm = 0; tm < kMmaTilesM; ++tm)
#pragma unroll
            for (int tn = 0; tn < kMmaTilesN; ++tn)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[tm][tn][r] = total[tm][tn][r] = 0.0f;

        if (k_steps > 0) {
            copy_operand_tile<kOperands>(smem.mainloop.a[0], A, m0, 0, p.m, K, p.lda, kAKContiguous, p.a_type);
            copy_operand_tile<kOperands>(smem.mainloop.b[0], B, n0, 0, p.n, K, p.ldb, kBKContiguous, p.b_type);
            cp_async_commit_group();
            cp_async_wait_all();
            __syncthreads();
        }

        for (int ks = 0; ks < k_steps; ++ks) {
            const int buf = ks & 1;
            if (ks + 1 < k_steps) { /* buf^1 was last read in step ks-1, before that step's barrier */
                copy_operand_tile<kOperands>(smem.mainloop.a[buf ^ 1], A, m0, (ks + 1) * kBlockK, p.m, K, p.lda,
                                             kAKContiguous, p.a_type);
                copy_operand_tile<kOperands>(smem.mainloop.b[buf ^ 1], B, n0, (ks + 1) * kBlockK, p.n, K, p.ldb,
                                             kBKContiguous, p.b_type);
                cp_async_commit_group();
            }
            mma_k_step<kOperands>(acc, smem.mainloop.a[buf], smem.mainloop.b[buf], warp_m, warp_n, lane, kAKContiguous,
                                  kBKContiguous);
            if constexpr (kScaled) { /* a K block ends with this step: the scale blocks are multiples of it */
                const int k_end = (ks + 1) * kBlockK;
                if (ks + 1 == k_steps || (p.scale_block_k > 0 && k_end % p.scale_block_k == 0))
                    promote_block(total, acc, p, m0, n0, warp_m, warp_n, lane,
                                  p.scale_block_k > 0 ? (k_end - 1) / p.scale_block_k : 0);
            }
            cp_async_wait_all();
            __syncthreads();
        }
        if constexpr (kScaled)
            store_tile_as(p, C, total, smem.epilogue[warp], m0, n0, warp_m, warp_n, lane, factors, amax);
        else
            store_tile_as(p, C, acc, smem.epilogue[warp], m0, n0, warp_m, warp_n, lane, factors, amax);
        __syncthreads(); /* the next tile's copies overwrite the staged tile */
    }
    if (p.fused) wsgemm_fused_amax_commit(p.ep, amax); /* every lane of the warp takes the same items */
}

/* C = beta * C over every batch; beta == 0 writes zeros without reading C. beta_dev (device pointer mode):
 * beta read from it. */
template <typename TOut>
__global__ void scale_c_kernel(TOut *c, int m, int n, long long ldc, long long stride, int batch_count, float beta,
                               const float *beta_dev)
{
    wsgemm_pdl_wait();
    wsgemm_pdl_launch_dependents();
    if (beta_dev) beta = *beta_dev;
    const long long per_batch = (long long)m * n;
    const long long total = per_batch * batch_count;
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
        const long long b = idx / per_batch, rest = idx % per_batch;
        const long long ci = b * stride + rest % m + (rest / m) * ldc;
        constexpr int kOut = wsgemm_dtype_of<TOut>::value;
        wsgemm_out_store<kOut>(c + ci, beta == 0.0f ? 0.0f : beta * wsgemm_out_load<kOut>(c + ci));
    }
}

/* Launches return their own error (never cudaGetLastError, which would take a caller's pending error). */
template <int kOperands>
cudaError_t launch_generic(const GemmParams &p, cudaStream_t stream, int pdl)
{
    const long long tiles = ((p.m - 1LL) / kBlockM + 1) * ((p.n - 1LL) / kBlockN + 1) * p.splits;
    const long long max_grid_x = 1LL << 30; /* the kernel loops over items beyond the grid */
    dim3 grid(static_cast<unsigned>(tiles < max_grid_x ? tiles : max_grid_x), 1,
              static_cast<unsigned>(p.batch_count < 65535 ? p.batch_count : 65535));
    /* the operand layouts are template arguments: one set of shared-memory
     * addresses per kernel keeps the accumulators in registers */
    const void *kernel = p.a_k_contiguous && p.b_k_contiguous ? (const void *)generic_gemm_kernel<kOperands, 1, 1, 0>
                         : p.a_k_contiguous                   ? (const void *)generic_gemm_kernel<kOperands, 1, 0, 0>
                         : p.b_k_contiguous                   ? (const void *)generic_gemm_kernel<kOperands, 0, 1, 0>
                                                              : (const void *)generic_gemm_kernel<kOperands, 0, 0, 0>;
    if constexpr (kOperands == kOperandsFp8)
        if (p.scaled)
            kernel = p.a_k_contiguous && p.b_k_contiguous ? (const void *)generic_gemm_kernel<kOperands, 1, 1, 1>
                     : p.a_k_contiguous                   ? (const void *)generic_gemm_kernel<kOperands, 1, 0, 1>
                     : p.b_k_contiguous                   ? (const void *)generic_gemm_kernel<kOperands, 0, 1, 1>
                                                          : (const void *)generic_gemm_kernel<kOperands, 0, 0, 1>;
    void *args[] = {const_cast<GemmParams *>(&p)};
    return wsgemm_launch_kernel(kernel, grid, dim3(kThreads), args, 0, stream, pdl);
}

/* The operand kind of a (checked) type pair: both 16BF, both 16F, or both FP8. */
cudaError_t launch_for_operands(const GemmParams &p, wsgemm_dtype a_type, cudaStream_t stream, int pdl)
{
    if (a_type == WSGEMM_R_16BF) return launch_generic<kOperandsBf16>(p, stream, pdl);
    if (a_type == WSGEMM_R_16F) return launch_generic<kOperandsF16>(p, stream, pdl);
    return launch_generic<kOperandsFp8>(p, stream, pdl);
}

template <typename TOut>
cudaError_t launch_scale(const wsgemm_problem *p, cudaStream_t stream, int pdl)
{
    const long long total = (long long)p->m * p->n * p->batch_count;
    const long long blocks = (total + 255) / 256;
    TOut *c = static_cast<TOut *>(p->C);
    int m = p->m, n = p->n, batch_count = p->batch_count;
    long long ldc = p->ldc, stride = p->strideC;
    float beta = p->beta;
    const float *beta_dev = p->beta_dev;
    void *args[] = {&c, &m, &n, &ldc, &stride, &batch_count, &beta, &beta_dev};
    return wsgemm_launch_kernel((const void *)scale_c_kernel<TOut>,
                                dim3(static_cast<unsigned>(blocks < 65536 ? blocks : 65536)), dim3(256), args, 0,
                                stream, pdl);
}

/* The longest K one accumulator of a GEMM takes: the tensor cores do not add into fp32 with round-to-nearest,
 * and one chain's error grows with its length (measured on the H200 at k = 2^31 - 1: one chain was off by a
 * large part of the result's typical size, sqrt(k / 9), chains of this length only by C's rounding;
 * docs/perf-log.md, "Long K: accuracy of the accumulation"). Longer K is split into chains of at most this
 * many and the fp32 partials are summed in split order by the reduction kernel, when a workspace can be had;
 * without one, one chain. The fast paths bound a chain to WSGEMM_MAX_CHAIN_BLOCKS K blocks
 * (gemm/common/plan.h): the same K for 16-bit inputs (4096 blocks of 64), twice it for FP8. */
constexpr int kMaxChainK = 262144;
static_assert(kMaxChainK % kBlockK == 0, "splits start on K-step boundaries");

/* The parameters of the plain product of p: one chain, C = alpha * op(A) op(B) + beta * C. */
GemmParams params_of(const wsgemm_problem *p)
{
    GemmParams g;
    g.A = p->A;
    g.B = p->B;
    g.a_type = p->Atype;
    g.b_type = p->Btype;
    g.C = p->C;
    g.c_type = p->Ctype;
    g.m = p->m;
    g.n = p->n;
    g.k = p->k;
    g.lda = p->lda;
    g.ldb = p->ldb;
    g.ldc = p->ldc;
    g.strideA = p->strideA;
    g.strideB = p->strideB;
    g.strideC = p->strideC;
    g.batch_count = p->batch_count;
    g.a_k_contiguous = p->transa == WSGEMM_OP_T;
    g.b_k_contiguous = p->transb == WSGEMM_OP_N;
    g.alpha = p->alpha;
    g.beta = p->beta;
    g.alpha_dev = p->alpha_dev;
    g.beta_dev = p->beta_dev;
    g.product_dev = NULL;
    g.splits = 1;
    g.k_per_split = p->k;
    g.split_stride_c = 0;
    g.fused = 0;
    g.ep = wsgemm_fused_epilogue{};
    g.scaled = 0;
    g.a_scale_mode = g.b_scale_mode = WSGEMM_MATMUL_SCALE_SCALAR_32F;
    g.a_scales = g.b_scales = NULL;
    g.scale_block_k = 0;
    return g;
}

/* ctx->pdl for this translation unit's kernels: they hold griddepcontrol only where the device runs them
 * from code of sm_90 or later (the build may reach a newer device through sm_80's PTX alone); asked once per
 * device, the answer of one kernel being that of all (they are built for the same architectures). */
int pdl_of(const wsgemm_launch_ctx *ctx)
{
    static int known[WSGEMM_MAX_DEVICES]; /* 0: not asked yet, 1: griddepcontrol, 2: none */
    if (!ctx->pdl) return 0;
    int *k = &known[ctx->device->ordinal];
    int v = __atomic_load_n(k, __ATOMIC_RELAXED);
    if (v == 0) {
        v = wsgemm_kernel_has_pdl((const void *)scale_c_kernel<float>) ? 1 : 2;
        __atomic_store_n(k, v, __ATOMIC_RELAXED);
    }
    return v == 1;
}

wsgemm_status launch_failed(wsgemm_launch_ctx *ctx, cudaError_t err)
{
    wsgemm_forget_cuda_error(err);
    return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "generic kernel launch failed: %s", cudaGetErrorString(err));
}

} // namespace

extern "C" wsgemm_status wsgemm_generic_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    GemmParams g = params_of(p);

    /* split-K for long K when its fp32 partials (splits x batch x m x n) fit a workspace of at most 2^40 bytes */
    const int splits = (p->k - 1) / kMaxChainK + 1;
    const double part_bytes = (double)splits * p->batch_count * p->m * p->n * sizeof(float);
    float *part = NULL;
    /* under batch invariance the chains must not follow whether a workspace (m x n partials) could be had */
    const int invariant = p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF;
    if (splits > 1 && invariant && part_bytes > 1099511627776.0)
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED,
                           "batch invariance: k = %d takes %d chains whose fp32 partials exceed 2^40 bytes", p->k,
                           splits);
    if (splits > 1 && part_bytes <= 1099511627776.0) {
        void *ws = NULL;
        wsgemm_status s = wsgemm_workspace_reserve(ctx, (size_t)part_bytes, &ws);
        if (ctx->plan_only) return s;
        if (s == WSGEMM_STATUS_SUCCESS)
            part = static_cast<float *>(ws);
        else if (invariant)
            return s; /* the reason is in ctx's message */
        /* else: one chain, no workspace */
    }
    if (ctx->plan_only) return WSGEMM_STATUS_SUCCESS;
    const int pdl = pdl_of(ctx);
    cudaError_t err;
    if (part) {
        g.C = part;
        g.c_type = WSGEMM_R_32F;
        g.ldc = p->m;
        g.strideC = (long long)p->m * p->n;
        g.alpha = 1.0f; /* the partials; the reduction applies alpha and beta (also device ones) */
        g.beta = 0.0f;
        g.alpha_dev = g.beta_dev = NULL;
        g.product_dev = p->alpha_dev;
        g.splits = splits;
        g.k_per_split = kMaxChainK;
        g.split_stride_c = g.strideC * p->batch_count;
        err = p->Atype == WSGEMM_R_16BF ? launch_generic<kOperandsBf16>(g, ctx->stream, pdl)
                                        : launch_generic<kOperandsF16>(g, ctx->stream, pdl);
        if (err == cudaSuccess)
            err = wsgemm_splitk_reduce_launch(part, splits, p, ctx->device->sm_count, ctx->stream, pdl);
    } else {
        err = launch_for_operands(g, p->Atype, ctx->stream, pdl);
    }
    return err == cudaSuccess ? WSGEMM_STATUS_SUCCESS : launch_failed(ctx, err);
}

/* One chain whatever K (no split-K: the fused op runs where the accumulators are); amax_d reset to 0
 * stream-ordered before the kernel raises it. */
extern "C" wsgemm_status wsgemm_generic_matmul(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    GemmParams g = params_of(p);
    g.fused = 1;
    g.ep = *p->fused;
    if (wsgemm_scale_mode_is_tensor(p->a_scale_mode) || wsgemm_scale_mode_is_tensor(p->b_scale_mode)) {
        /* the pair is one the checks accept: both modes share their K extent (0 for OUTER_VEC's all of K) */
        g.scaled = 1;
        g.a_scale_mode = p->a_scale_mode;
        g.b_scale_mode = p->b_scale_mode;
        g.a_scales = p->a_scales;
        g.b_scales = p->b_scales;
        g.scale_block_k = wsgemm_scale_block_k(p->a_scale_mode);
    }
    cudaError_t err = cudaSuccess;
    if (p->fused->amax) err = cudaMemsetAsync(p->fused->amax, 0, sizeof(float), ctx->stream);
    if (err == cudaSuccess) err = launch_for_operands(g, p->Atype, ctx->stream, pdl_of(ctx));
    return err == cudaSuccess ? WSGEMM_STATUS_SUCCESS : launch_failed(ctx, err);
}

extern "C" wsgemm_status wsgemm_generic_scale_c(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    cudaError_t err;
    const int pdl = pdl_of(ctx);
    switch (p->Ctype) {
    case WSGEMM_R_16BF: err = launch_scale<__nv_bfloat16>(p, ctx->stream, pdl); break;
    case WSGEMM_R_16F: err = launch_scale<__half>(p, ctx->stream, pdl); break;
    default: err = launch_scale<float>(p, ctx->stream, pdl); break;
    }
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "scale kernel launch failed: %s", cudaGetErrorString(err));
    }
    return WSGEMM_STATUS_SUCCESS;
}
