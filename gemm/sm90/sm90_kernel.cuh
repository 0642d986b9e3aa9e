// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_kernel.cuh - the Hopper warp-specialized GEMM kernel (TMA + wgmma), sm_90a.
 *
 * What it computes. The launcher (sm90_gemm.cu) maps C = alpha op(A) op(B) + beta C onto an abstract
 * product D = P * Q^T with D of p_extent x q_extent, P of p_extent x K and Q of q_extent x K, each operand
 * either K-major (K contiguous) or MN-major (its row index contiguous) in global memory. D(p, q) is
 * written to out[p * out_sp + q * out_sq] (+ batch and split offsets), so "P = op(A), Q = op(B)^T" gives
 * C and "P = op(B)^T, Q = op(A)" gives C through its transpose (the swapped orientation: the small side
 * of a skinny problem, or C's contiguous rows, on the wgmma N side). All four op combinations are thus
 * the four (P, Q) majorness pairs, served by wgmma's transpose bits; no operand is ever copied for them.
 *
 * Roles (384 threads, one CTA per SM, persistent):
 *   warpgroup 0 (warps 0-3)  producer; setmaxnreg.dec to 40. One elected thread of warp 0 issues the TMA
 *                            copies for every K block of every unit this cluster owns.
 *   warpgroup 1, 2           consumers; setmaxnreg.inc to 232. Consumer w computes rows 64w..64w+63 of
 *                            the 128 x BN tile with wgmma m64nBNk16 (fp32 accumulators in registers), then
 *                            runs the epilogue itself, one of four (prm.epilogue, sm90_epilogue.cuh):
 *                            - deferred (DEFERRED; the default for 16-bit C of the input type with
 *                              beta == 0): alpha, conversion into BN/4 packed registers (64 at BN 256),
 *                              and the tile's 64-column chunks are stored (stmatrix into a swizzled
 *                              buffer, TMA store) one per K block of the NEXT tile, after its wgmmas are
 *                              issued, so the tensor cores never wait for the stores (drawn at
 *                              sm90_consumer_loop);
 *                            - tile-end TMA store (TMA): alpha, beta (C read only when beta != 0),
 *                              conversion, st.shared into the chunk buffers + TMA store;
 *                            - predicated stores from registers (DIRECT: C that TMA cannot address);
 *                            - STAGED (the kernels with kCBytes != 0, which the plan takes where one fits
 *                              the tile: for beta != 0, and for 16-bit C of the other 16-bit type): the
 *                              producer TMA-loads the CTA's C tile into smem during the tile's main loop
 *                              (beta != 0), the consumers combine it with the accumulators in place at the
 *                              tile end and TMA-store it while the next tile's main loop runs.
 * Units of a hybrid schedule's split region (common/scheduler.cuh: the ragged last wave's tiles, split along
 * K) end differently in every kernel: the tile goes to its fp32 partial slot in the workspace as accumulated
 * (sm90_store_partial), no C tile is loaded or stored for it, and a second kernel (common/splitk_reduce.cuh)
 * adds the slot's partials in split order and applies alpha, beta and the conversion.
 * Pingpong kernels (kSched = 1, variant 6) split the work differently: each consumer warpgroup computes whole
 * 128 x BN tiles, the two taking turns (sm90_consumer_pingpong), with the tile-end epilogues.
 * FUSED kernels (variant 7) are the cooperative kernel with wsgemm_matmul's bias, aux and activation in the
 * output op of the DEFERRED and TMA epilogues (sm90_fused_tile); their plans have beta == 0, are swapped,
 * never split K and never take DIRECT stores (a D that TMA cannot store runs elsewhere).
 * FP8 kernels (kIn >= SM90_IN_E4M3, sm90_tile.h; BN 128, variants 0 and 7) take K-major P and Q of 1-byte
 * elements: a stage holds 128 K in the same 128-byte swizzled rows, and each K block is four m64n128k32
 * wgmmas, a chain of their own in one of two register buffers; once a block's wgmmas are complete (the next
 * block's run meanwhile) its sums, times a_scale * b_scale, are added into the fp32 accumulators
 * (sm90_fp8_unit, sm90_promote: the tensor cores keep fewer bits than fp32 when they add FP8 products into a
 * long chain). They store at the tile end (TMA, or DIRECT where TMA cannot store D). Block-scaled FP8 kernels
 * (kScales = SM90_SCALES_BLOCK or BLOCK_COLS: wsgemm_matmul's float scale tensors) promote each block with the
 * factor of each row and column instead, read from a slot of scales beside each stage that warps 1 and 2 of the
 * producer warpgroup fill by cp.async (sm90_scale_loader; the barrier counts there).
 * Cluster of kCluster (1, 2 or 4) CTAs along P: the CTAs of a cluster compute tiles (row + rank, col), which
 * share the Q tile; each CTA loads 1/kCluster of the Q tile and multicasts it to all, and loads its own P
 * tile alone. 4 is for decode shapes, where the Q tile (the small operand) would otherwise be read from
 * L2 once per pair of P tiles, as many bytes as P itself.
 *
 * Barriers (kStages-deep ring in each CTA; s = stage):
 *
 *   producer (1 thread)                                  consumers (2 warpgroups)
 *     wait empty[s] (phase) ------------------+
 *     arrive.expect_tx full[s], kStageBytes   |
 *     TMA P(own)  --complete_tx--> full[s]    |            wait full[s]
 *     TMA Q share --multicast complete_tx---> full[s] of every CTA of the cluster
 *                                             |            wgmma x 4 (K = 64; FP8: 128), commit
 *                                             |            wait_group 1: the PREVIOUS stage is read
 *                                             +----------- arrive empty[prev] in EVERY CTA of the cluster
 *
 *   full[s]  count 1 (the local producer's arrive.expect_tx) + tx kStageBytes: this CTA's P bytes plus
 *            the whole Q tile (its own share and the peers' shares land here, all counted at this barrier).
 *   empty[s] count 2 * kCluster: one arrival per consumer warpgroup of each CTA of the cluster, because the
 *            producer of each CTA writes (multicast) into the stage of every CTA (pingpong: kCluster, only the
 *            warpgroup whose unit the stage holds reads it).
 *   Ordering: a peer's multicast complete_tx may reach full[s] before the local arrive.expect_tx of that
 *   phase; the tx-count goes transiently negative, which mbarrier allows, and the phase cannot complete
 *   without the local arrival (count 1).
 *
 * Teardown: after its last unit a CTA may still receive remote arrivals on empty[] from the peers'
 * consumers, so every thread of the cluster meets at a cluster barrier before any CTA exits.
 *
 * Shared memory (1024-byte aligned, the 128-byte swizzle atom; FP8: 128 K x 1 B in place of 64 K x 2 B):
 *   p[kStages][128 x 64 x 2 B]   K-major: 128 rows of 128 B; MN-major: 2 boxes [64 K][64 rows] of 8 KB
 *   q[kStages][BN  x 64 x 2 B]   K-major: BN rows of 128 B;  MN-major: BN/64 boxes [64 K][64 rows]
 *   c_stage[2 consumers][2][64 rows x 128 B]   TMA-store chunks, TMA and DEFERRED (named barriers 1 and 2);
 *                                              STAGED kernels: [2][BN * C bytes / 128][...], the whole C tile
 *   full[kStages], empty[kStages], c_full, c_empty (STAGED with beta != 0: the C tile's one-deep ring)
 * A consumer's 64-row slice of P starts 8192 B into the stage in both layouts.
 */
#ifndef WSGEMM_SM90_KERNEL_CUH
#define WSGEMM_SM90_KERNEL_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

#include "common/epilogue.h"
#include "common/pdl.cuh"
#include "common/scheduler.cuh"
#include "common/tma.cuh"
#include "sm90/sm90_tile.h"
#include "sm90/wgmma.cuh"
#include "sync/cluster.cuh"
#include "sync/elect.cuh"
#include "sync/mbarrier.cuh"
#include "sync/named_barrier.cuh"
#include "sync/pipeline.cuh"
#include "wsgemm.h"

/* ---------------------------------------------------------------- constants */

/* SM90_BM (128 P rows per CTA tile: two consumer warpgroups x 64), SM90_BK (64 K per stage, one 128-byte
 * swizzle row) and SM90_BK_FP8 (128 K of 1-byte elements in the same row) are in sm90_tile.h, which the plan
 * shares. */
enum {
    SM90_THREADS = 384, /* producer warpgroup + two consumer warpgroups */
    SM90_PRODUCER_REGS = 40,
    SM90_CONSUMER_REGS = 232,
    SM90_SWIZZLE_ATOM = 1024,       /* 8 rows x 128 B */
    SM90_MN_BOX_BYTES = 64 * 128,   /* one MN-major box: 64 K rows of 64 elements */
    SM90_EPI_CHUNK_BYTES = 64 * 128 /* one TMA-store chunk: 64 p rows x 128 bytes of q */
};

static_assert(SM90_BK * 2 == 128, "one K block must be exactly one 128-byte swizzle row");
static_assert(SM90_PRODUCER_REGS * 128 + SM90_CONSUMER_REGS * 256 <= 65536,
              "setmaxnreg: producer + consumer registers must fit the 64K register file");
static_assert(SM90_PRODUCER_REGS % 8 == 0 && SM90_CONSUMER_REGS % 8 == 0, "setmaxnreg counts are multiples of 8");

/* Where the scale of row r of P (column r of Q) in 128-K block b lies: ptr[(r / 128) * tile + r * row + b *
 * block] (common/scale.h, wsgemm_scale_strides_of; ptr NULL: every scale is 1). row != 0: a scale per row
 * (column); row == 0: one per 128-row tile and block. */
typedef struct Sm90ScaleMap {
    const float *ptr;
    long long row, block, tile;
} Sm90ScaleMap;

/* Everything the kernel needs besides the tensor maps of P, Q (and C for the TMA-store epilogue). */
typedef struct Sm90Params {
    wsgemm_sched sched;
    int p_extent, q_extent;   /* D is p_extent x q_extent per batch */
    int p_batched, q_batched; /* 1: the map's third coordinate is the batch index; 0: always 0 */
    void *out;                /* D(p, q) of batch b, split s at out + b*out_batch + s*out_split + p*out_sp + q*out_sq */
    long long out_sp, out_sq, out_batch, out_split;
    int out_type;      /* wsgemm_dtype */
    float alpha, beta; /* beta == 0: out is never read */
    int epilogue;      /* wsgemm_epilogue_kind (sm90_epilogue.cuh); TMA and DEFERRED use map_c and need
                          out_sq == 1, no split; DEFERRED also beta == 0 and C of the input type */
    /* the split region of a hybrid schedule (sched.sk_splits > 1; common/scheduler.cuh): the units with a
     * partial slot write their fp32 tile, whole and unscaled, to sk_part + (slot * sk_splits + split) *
     * SM90_BM * BN, element (p, q) of the tile at p * sk_sp + q * sk_sq (C's contiguous dimension is the
     * contiguous one); the other units go through `epilogue` to out as usual */
    float *sk_part;
    int sk_sp, sk_sq;
    /* FUSED kernels (wsgemm_matmul with an epilogue): its bias, aux and activation, applied in the output op
     * of every element inside D. Their plans have beta == 0, are swapped (q runs along D's rows: D(p, q) is
     * element (q, p), the bias index is q), unsplit, with DEFERRED or TMA stores, and aux has D's type. */
    wsgemm_fused_epilogue fused;
    /* FP8 kernels: the per-tensor scales of P and Q's operands (device floats, NULL: 1), applied as each K
     * block's sums are added into the fp32 accumulators (sm90_promote) */
    const float *a_scale, *b_scale;
    /* block-scaled FP8 kernels (kScales = SM90_SCALES_BLOCK or BLOCK_COLS) read these instead: the scale of P's
     * row p (Q's column q) in K block b, for any float layout of common/scale.h in the P/Q frame, applied as each
     * K block's sums are added; and the scales over all of K (OUTER_VEC_32F: block 0 of maps with block == 0),
     * applied once to each tile's sums, as the arithmetic of one block over all of K has it (ptr NULL: none) */
    Sm90ScaleMap p_scales, q_scales, p_outer, q_outer;
} Sm90Params;

/* Chunk buffers (64 rows x 128 bytes) per consumer: 2 for the TMA and DEFERRED epilogues (the next chunk is
 * written while the previous one is stored); the whole 64 x BN slice of C for the STAGED epilogue
 * (kCBytes = 2 or 4: the size of C's elements in that kernel). */
template <int kBn, int kCBytes>
struct Sm90EpiChunks {
    static constexpr int value = kCBytes ? kBn * kCBytes / 128 : 2;
};

template <int kBn, int kStages, int kCBytes>
struct Sm90Smem {
    uint8_t p[kStages][SM90_BM * SM90_BK * 2];
    uint8_t q[kStages][kBn * SM90_BK * 2];
    /* epilogue chunk buffers (128-byte swizzled, the layout of the C tensor map's boxes) */
    uint8_t c_stage[2][Sm90EpiChunks<kBn, kCBytes>::value][SM90_EPI_CHUNK_BYTES];
    uint64_t full[kStages];
    uint64_t empty[kStages];
    uint64_t c_full, c_empty; /* STAGED with beta != 0: the C tile loaded / its stores have read it */
    uint64_t turn[2];         /* pingpong: turn[w] = consumer warpgroup w may start its next main loop */
};

/* Host-visible facts about one instantiation. */
typedef struct Sm90KernelInfo {
    const void *fn;
    int smem_bytes;
    int bn, stages, cluster, p_mn, q_mn;
    int in; /* SM90_IN_* (sm90_tile.h) */
} Sm90KernelInfo;

/* ---------------------------------------------------------------- small device helpers */

/* One m64nBNk16 for the input type (16-bit) and transpose bits of the instantiation. */
template <int kBn, int kPMn, int kQMn, int kIn>
static __device__ __forceinline__ void sm90_mma(float (&acc)[kBn / 2], uint64_t a_desc, uint64_t b_desc, int scale_d)
{
    static_assert(kIn < SM90_IN_E4M3, "FP8 kernels issue sm90_mma_fp8");
    if constexpr (kBn == 256) {
        if constexpr (kIn == SM90_IN_BF16)
            wgmma_m64n256k16_f32_bf16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
        else
            wgmma_m64n256k16_f32_f16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
    } else if constexpr (kBn == 192) {
        if constexpr (kIn == SM90_IN_BF16)
            wgmma_m64n192k16_f32_bf16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
        else
            wgmma_m64n192k16_f32_f16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
    } else if constexpr (kBn == 128) {
        if constexpr (kIn == SM90_IN_BF16)
            wgmma_m64n128k16_f32_bf16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
        else
            wgmma_m64n128k16_f32_f16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
    } else {
        static_assert(kBn == 64, "BN must be 64, 128, 192 or 256");
        if constexpr (kIn == SM90_IN_BF16)
            wgmma_m64n64k16_f32_bf16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
        else
            wgmma_m64n64k16_f32_f16<kPMn, kQMn>(acc, a_desc, b_desc, scale_d);
    }
}

/* One m64n128k32 of an FP8 kernel (K-major P and Q): kAccumulate 0 starts a chain (acc = P Q^T), 1 adds. */
template <int kIn, int kAccumulate>
static __device__ __forceinline__ void sm90_mma_fp8(float (&acc)[64], uint64_t a_desc, uint64_t b_desc)
{
    if constexpr (kIn == SM90_IN_E4M3)
        wgmma_m64n128k32_f32_e4m3_e4m3<kAccumulate>(acc, a_desc, b_desc);
    else if constexpr (kIn == SM90_IN_E4M3_E5M2)
        wgmma_m64n128k32_f32_e4m3_e5m2<kAccumulate>(acc, a_desc, b_desc);
    else
        wgmma_m64n128k32_f32_e5m2_e4m3<kAccumulate>(acc, a_desc, b_desc);
}

/* The descriptor of a 128-byte-swizzled operand slice starting at start_smem (see wgmma.cuh for LBO/SBO). */
template <int kMnMajor>
static __device__ __forceinline__ uint64_t sm90_operand_desc(uint32_t start_smem)
{
    return kMnMajor ? wgmma_desc_encode(start_smem, SM90_MN_BOX_BYTES, SM90_SWIZZLE_ATOM, WGMMA_SWIZZLE_128B)
                    : wgmma_desc_encode(start_smem, 16, SM90_SWIZZLE_ATOM, WGMMA_SWIZZLE_128B);
}

/* Descriptor start-address step for K step ks (16 16-bit or 32 FP8 elements): 32 B inside a K-major row,
 * 16 rows of 128 B in an MN-major box (16-bit only). The start field holds address >> 4 and never overflows
 * (smem < 256 KB). */
template <int kMnMajor>
static __device__ __forceinline__ uint64_t sm90_k_step(int ks)
{
    return (uint64_t)((kMnMajor ? ks * 16 * 128 : ks * 32) >> 4);
}

/* ---------------------------------------------------------------- producer */

template <int kBn, int kStages, int kCluster, int kPMn, int kQMn, int kIn, int kCBytes>
static __device__ __forceinline__ void sm90_producer(Sm90Smem<kBn, kStages, kCBytes> *sm, const PipelineRing *ring,
                                                     const PipelineRing *ring_c, const CUtensorMap *map_p,
                                                     const CUtensorMap *map_q, const CUtensorMap *map_c,
                                                     const Sm90Params &prm, uint32_t rank)
{
    constexpr uint32_t kStageBytes = (SM90_BM + kBn) * SM90_BK * 2;
    constexpr int kQRowsPerCta = kBn / kCluster;      /* K-major Q: rows this CTA loads */
    constexpr int kQKRowsPerCta = SM90_BK / kCluster; /* MN-major Q: K rows of each box this CTA loads */
    static_assert(kQRowsPerCta * 128 % SM90_SWIZZLE_ATOM == 0 && kQKRowsPerCta * 128 % SM90_SWIZZLE_ATOM == 0,
                  "each CTA's share of the Q tile must start on a swizzle atom");
    const uint16_t cta_mask = (uint16_t)((1u << kCluster) - 1u);

    PipelineState st = pipeline_producer_start();
    PipelineState st_c = pipeline_producer_start(); /* STAGED, beta != 0: the one-deep ring of the C tile */
    const bool load_c = kCBytes != 0 && prm.beta != 0.0f;
    const long long nclusters = gridDim.x / kCluster;
    for (long long u = blockIdx.x / kCluster; u < prm.sched.units; u += nclusters) {
        wsgemm_sched_unit w = wsgemm_sched_decode(&prm.sched, u, (int)rank);
        const int p0 = w.row * SM90_BM;
        const int q0 = w.col * kBn;
        const int bp = prm.p_batched ? w.batch : 0;
        const int bq = prm.q_batched ? w.batch : 0;
        /* the C tile is loaded after K block kb_c of the unit: late enough that the consumers have released
         * the buffer (they do at their K block kb_begin + 2, see sm90_consumer_loop), early enough to land
         * before the unit's end; never before the unit's first K block, so no wait here can hold back a
         * stage the consumers need to get there */
        const int kb_c =
            w.kb_begin + (w.kb_end - w.kb_begin - 1 < kStages + 2 ? w.kb_end - w.kb_begin - 1 : kStages + 2);
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
            const int k0 = kb * SM90_BK_OF(kIn);
            producer_acquire(ring, st);
            producer_arrive_expect_tx(ring, st, kStageBytes);
            const uint32_t bar = smem_u32(&sm->full[st.stage]);
            const uint32_t p_smem = smem_u32(sm->p[st.stage]);
            const uint32_t q_smem = smem_u32(sm->q[st.stage]);
            if constexpr (kPMn) {
                tma_load_3d(p_smem, map_p, bar, p0, k0, bp);
                tma_load_3d(p_smem + SM90_MN_BOX_BYTES, map_p, bar, p0 + 64, k0, bp);
            } else {
                tma_load_3d(p_smem, map_p, bar, k0, p0, bp);
            }
            if constexpr (kQMn) {
#pragma unroll
                for (int c = 0; c < kBn / 64; ++c) {
                    const uint32_t dst = q_smem + c * SM90_MN_BOX_BYTES + rank * kQKRowsPerCta * 128;
                    const int kk = k0 + (int)rank * kQKRowsPerCta;
                    if constexpr (kCluster > 1)
                        tma_load_3d_multicast(dst, map_q, bar, q0 + 64 * c, kk, bq, cta_mask);
                    else
                        tma_load_3d(dst, map_q, bar, q0 + 64 * c, kk, bq);
                }
            } else {
                const uint32_t dst = q_smem + rank * kQRowsPerCta * 128;
                const int qq = q0 + (int)rank * kQRowsPerCta;
                if constexpr (kCluster > 1)
                    tma_load_3d_multicast(dst, map_q, bar, k0, qq, bq, cta_mask);
                else
                    tma_load_3d(dst, map_q, bar, k0, qq, bq);
            }
            pipeline_state_advance(&st, kStages);
            if constexpr (kCBytes != 0) {
                if (load_c && kb == kb_c && u < prm.sched.sk_first) { /* a split-region unit stores no C tile */
                    constexpr int kChunks = Sm90EpiChunks<kBn, kCBytes>::value;
                    producer_acquire(ring_c, st_c); /* the previous tile's stores have read the buffer */
                    producer_arrive_expect_tx(ring_c, st_c, 2u * kChunks * SM90_EPI_CHUNK_BYTES);
#pragma unroll
                    for (int h = 0; h < 2; ++h)
#pragma unroll
                        for (int c = 0; c < kChunks; ++c)
                            tma_load_3d(smem_u32(sm->c_stage[h][c]), map_c, smem_u32(&sm->c_full),
                                        q0 + c * (128 / kCBytes), p0 + 64 * h, w.batch);
                    pipeline_state_advance(&st_c, 1);
                }
            }
        }
    }
}

#include "sm90/sm90_epilogue.cuh"

/* ---------------------------------------------------------------- consumers */

/* Stage st has been read by this warpgroup: tell the producer of every CTA that writes into it (all CTAs
 * of the cluster, by multicast). The own CTA's barrier takes a local arrive, the peer's a remote one;
 * both release at CTA scope (no fence): the consumer publishes no data, only that its wgmma reads have
 * completed (sync/pipeline.cuh consumer_release_remote). */
template <int kCluster>
static __device__ __forceinline__ void sm90_release(const PipelineRing *ring, PipelineState st, uint32_t rank)
{
    consumer_release(ring, st);
#pragma unroll
    for (uint32_t r = 0; r < kCluster; ++r)
        if (r != rank) consumer_release_remote(ring, st, r);
}

/* One K block of a unit for this consumer warpgroup: wait for stage st, issue its four m64nBNk16 wgmmas into
 * acc (scale-d 0 on the unit's first: the accumulators start from zero without a clear) and commit them as
 * one group. FP8 kernels: four m64n128k32 (`first`: the first of a chain, sm90_fp8_unit). */
template <int kBn, int kStages, int kPMn, int kQMn, int kIn, int kCBytes>
static __device__ __forceinline__ void sm90_issue_stage(float (&acc)[kBn / 2], Sm90Smem<kBn, kStages, kCBytes> *sm,
                                                        const PipelineRing *ring, PipelineState st, int consumer,
                                                        bool first)
{
    consumer_wait(ring, st);
    const uint64_t a_desc = sm90_operand_desc<kPMn>(smem_u32(sm->p[st.stage]) + consumer * 8192);
    const uint64_t b_desc = sm90_operand_desc<kQMn>(smem_u32(sm->q[st.stage]));
    wgmma_fence();
    if constexpr (kIn >= SM90_IN_E4M3) {
        if (first)
            sm90_mma_fp8<kIn, 0>(acc, a_desc, b_desc);
        else
            sm90_mma_fp8<kIn, 1>(acc, a_desc, b_desc);
#pragma unroll
        for (int ks = 1; ks < 4; ++ks)
            sm90_mma_fp8<kIn, 1>(acc, a_desc + sm90_k_step<0>(ks), b_desc + sm90_k_step<0>(ks));
    } else {
#pragma unroll
        for (int ks = 0; ks < SM90_BK / 16; ++ks)
            sm90_mma<kBn, kPMn, kQMn, kIn>(acc, a_desc + sm90_k_step<kPMn>(ks), b_desc + sm90_k_step<kQMn>(ks),
                                           (!first || ks != 0) ? 1 : 0);
    }
    wgmma_commit_group();
}

/* FP8 kernels: the product of the two operand scales, read once per consumer thread. */
static __device__ __forceinline__ float sm90_operand_scale(const Sm90Params &prm)
{
    return (prm.a_scale ? *prm.a_scale : 1.0f) * (prm.b_scale ? *prm.b_scale : 1.0f);
}

/* Block-scaled FP8 kernels: each stage of the ring has a slot of SM90_SCALE_SLOT floats beside its operands (after
 * Sm90Smem in shared memory), the K block's scales of the tile's 128 P rows and then of its 128 Q columns (one
 * float, at the half's start, where the map has one per tile: row == 0). Warps 1 and 2 of the producer warpgroup
 * fill them (sm90_scale_loader) with cp.async, so their global-memory latency is hidden as deep as the ring. */
enum { SM90_SCALE_SLOT = 256 };

static_assert(SM90_BK_FP8 == 128 && SM90_BM == 128,
              "a K block of the FP8 kernels, and their tile, is one block of the 128-K scale modes");

/* PTX ISA "cp.async" of 4 bytes, global to shared (dst a shared-window address); in_bounds false: nothing is
 * read and dst is zero-filled. */
static __device__ __forceinline__ void sm90_cp_async_4(uint32_t dst, const float *src, bool in_bounds)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(in_bounds ? 4 : 0)
                 : "memory");
}

/* One float and two adjacent floats from a shared-window address (the scale slots: 32-bit addresses keep the
 * consumers' registers for their sums). The slots are written by cp.async and read after full[s]'s wait. */
static __device__ __forceinline__ float sm90_lds(uint32_t addr)
{
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
    return v;
}

static __device__ __forceinline__ float2 sm90_lds2(uint32_t addr)
{
    float2 v;
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr) : "memory");
    return v;
}

/* Where one lane copies an operand tile's scales from (sm90_scale_loader): the address of its first row's scale in
 * the next K block (lane L copies rows L + 32 i of the tile; lane 0 alone the one scale of a map with row == 0), and
 * which of its four rows lie inside the operand (bit i; row == 0: bit 0 the tile does, bit 1 it does not, a zero
 * to copy). ptr NULL: the map has no tensor, nothing is copied. */
typedef struct Sm90ScaleSource {
    const float *at;
    uint32_t rows;
} Sm90ScaleSource;

static __device__ __forceinline__ Sm90ScaleSource sm90_scale_source(const Sm90ScaleMap &m, int tile, int kb, int extent,
                                                                    int lane)
{
    Sm90ScaleSource src = {NULL, 0};
    if (!m.ptr) return src;
    const int r0 = tile * SM90_BM + (m.row ? lane : 0);
    src.at = m.ptr + (long long)tile * m.tile + (long long)r0 * m.row + (long long)kb * m.block;
    if (m.row == 0) /* a 2-CTA cluster's last tile may lie past the operand: its scale is none */
        src.rows = lane == 0 ? (tile * SM90_BM < extent ? 1u : 2u) : 0u;
    else
#pragma unroll
        for (int i = 0; i < 4; ++i) src.rows |= (uint32_t)(r0 + 32 * i < extent) << i;
    return src;
}

/* One K block's scales of an operand tile (src.at: the lane's first row's) into its half of a slot, and src.at
 * on to the next block's; rows past the operand's extent get 0. */
static __device__ __forceinline__ void sm90_scale_copy(uint32_t dst, Sm90ScaleSource &src, const Sm90ScaleMap &m,
                                                       int lane)
{
    if (!src.at) return;
    if (m.row == 0) {
        if (src.rows) sm90_cp_async_4(dst, src.rows & 1 ? src.at : m.ptr, src.rows & 1);
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) { /* unrolled: each copy its own registers, none waits for the last's */
            const bool in = src.rows >> i & 1;
            sm90_cp_async_4(dst + 4 * (lane + 32 * i), in ? src.at + 32 * i : src.at, in); /* row == 1 here */
        }
    }
    src.at += m.block;
}

/* A scale loader (warp 1 for P's scales, kQ = 0; warp 2 for Q's, kQ = 1; all lanes): for every K block of every
 * unit this CTA runs, in the ring's order, wait for the stage to be free (empty[s], on which the consumer warps
 * also arrive once they have read its slot), copy the block's scales into its half of the slot and arrive on
 * full[s] when the copies land (one arrival per lane: full[s] counts the TMA producer's and these 64). One warp
 * per operand: each lane's copies then fit the producer warps' 40 registers unrolled. */
template <int kStages, int kCluster, int kQ>
static __device__ __forceinline__ void sm90_scale_loader(uint32_t slots, const PipelineRing *ring,
                                                         const Sm90Params &prm, uint32_t rank)
{
    const int lane = threadIdx.x % 32;
    PipelineState st = pipeline_producer_start();
    const long long nclusters = gridDim.x / kCluster;
    for (long long u = blockIdx.x / kCluster; u < prm.sched.units; u += nclusters) {
        const wsgemm_sched_unit w = wsgemm_sched_decode_plain(&prm.sched, u, (int)rank); /* no split region */
        const Sm90ScaleMap &m = kQ ? prm.q_scales : prm.p_scales;
        Sm90ScaleSource src =
            sm90_scale_source(m, kQ ? w.col : w.row, w.kb_begin, kQ ? prm.q_extent : prm.p_extent, lane);
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
            producer_acquire(ring, st);
            sm90_scale_copy(slots + (st.stage * SM90_SCALE_SLOT + kQ * 128) * 4, src, m, lane);
            mbarrier_arrive_on_cp_async(&ring->full[st.stage]);
            pipeline_state_advance(&st, kStages);
        }
    }
}

/* A consumer thread's view of the slots: where they are and its first fragment row in the tile (the second is 8
 * rows on). */
template <int kQCols>
struct Sm90BlockScales {
    uint32_t slots; /* shared-window address */
    int row;
};

/* Stage `stage`'s slot has been read by this warp (every lane's loads of it done): one arrival per consumer warp
 * on this CTA's empty[s], after which the loader may overwrite it. Per-tensor FP8 kernels read no slot. */
template <int kQCols>
static __device__ __forceinline__ void sm90_scales_release(const Sm90BlockScales<kQCols> &, const PipelineRing *ring,
                                                           int stage)
{
    __syncwarp();
    if (threadIdx.x % 32 == 0) mbarrier_arrive(&ring->empty[stage]);
}

static __device__ __forceinline__ void sm90_scales_release(const float &, const PipelineRing *, int) {}

/* Block-scaled: the scales over all of K (OUTER_VEC_32F, prm.p_outer and q_outer), read from global memory once
 * per tile: this thread's two rows' and (a scale per column) lane L's columns L + 32 i, which the others fetch
 * by shuffle (sm90_column_of, as the bias). Rows and columns outside P and Q read nothing. */
typedef struct Sm90OuterScales {
    float p0, p1, q[4];
} Sm90OuterScales;

static __device__ __forceinline__ Sm90OuterScales sm90_outer_scales_of(const Sm90Params &prm,
                                                                       const wsgemm_sched_unit &w, int consumer)
{
    const int lane = threadIdx.x % 32;
    const long long r = (long long)w.row * SM90_BM + consumer * 64 + ((threadIdx.x / 32) % 4) * 16 + lane / 4;
    const Sm90ScaleMap &pm = prm.p_outer, &qm = prm.q_outer;
    const float fill_p = pm.ptr ? 0.0f : 1.0f, fill_q = qm.ptr ? 0.0f : 1.0f;
    Sm90OuterScales s;
    s.p0 = pm.ptr && r < prm.p_extent ? pm.ptr[r * pm.row] : fill_p;
    s.p1 = pm.ptr && r + 8 < prm.p_extent ? pm.ptr[(r + 8) * pm.row] : fill_p;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const long long c = (long long)w.col * 128 + (qm.row ? lane + 32 * i : 0);
        s.q[i] = qm.ptr && c < prm.q_extent ? qm.ptr[c * qm.row] : fill_q;
    }
    return s;
}

/* FP8 kernels: one K block's sums (tmp, complete) added into the fp32 accumulators with the operand scales,
 * acc += s tmp, in fp32 round-to-nearest FMAs. The tensor cores add FP8 products into their accumulator with
 * fewer bits than fp32, so the error grows with the length of a chain; a chain of one K block (128 K, four
 * wgmmas) keeps it as small as cuBLASLt's default (not "fast") accumulation does (measured on
 * the H200: docs/perf-log.md, "FP8 on the sm90 kernels"). */
template <int kN>
static __device__ __forceinline__ void sm90_promote(float (&acc)[kN], float (&tmp)[kN], float s, const Sm90Params &,
                                                    int)
{
#pragma unroll
    for (int i = 0; i < kN; ++i) wgmma_fence_operand(tmp[i]);
#pragma unroll
    for (int i = 0; i < kN; ++i) acc[i] = fmaf(s, tmp[i], acc[i]);
}

/* Block-scaled: the same with the factor of each element, fl32(p scale * q scale) (docs/api.md, "Block-scaled
 * FP8": one rounding, then one fma), the scales from stage `stage`'s slot. acc[4 j + e] is row r, acc[4 j + 2 + e]
 * row r + 8, both of fragment column 8 j + 2 (lane % 4) + e (the wgmma D layout, sm90_epilogue.cuh), whose two
 * columns' scales are one 8-byte load. */
template <int kN, int kQCols>
static __device__ __forceinline__ void sm90_promote(float (&acc)[kN], float (&tmp)[kN],
                                                    const Sm90BlockScales<kQCols> &s, const Sm90Params &prm, int stage)
{
    static_assert(kN == 64, "block-scaled tiles are 128 columns wide");
#pragma unroll
    for (int i = 0; i < kN; ++i) wgmma_fence_operand(tmp[i]);
    const uint32_t slot = s.slots + stage * SM90_SCALE_SLOT * 4;
    const int per_row = prm.p_scales.row != 0;
    const float p0 = prm.p_scales.ptr ? sm90_lds(slot + 4 * (per_row ? s.row : 0)) : 1.0f;
    const float p1 = prm.p_scales.ptr ? sm90_lds(slot + 4 * (per_row ? s.row + 8 : 0)) : 1.0f;
    /* one Q scale per tile and block: SM90_SCALES_BLOCK's only path. BLOCK_COLS kernels keep it behind a run-time
     * test too: with the per-column path alone ptxas hoists its sixteen 8-byte loads ahead of the FMAs and spills
     * (in the sm90_code_check.e4m3_block_cols report), behind the test it does not */
    if (!kQCols || prm.q_scales.row == 0) {
        const float q = prm.q_scales.ptr ? sm90_lds(slot + 128 * 4) : 1.0f;
        const float s0 = p0 * q, s1 = p1 * q;
#pragma unroll
        for (int j = 0; j < kN / 4; ++j) {
            acc[4 * j + 0] = fmaf(s0, tmp[4 * j + 0], acc[4 * j + 0]);
            acc[4 * j + 1] = fmaf(s0, tmp[4 * j + 1], acc[4 * j + 1]);
            acc[4 * j + 2] = fmaf(s1, tmp[4 * j + 2], acc[4 * j + 2]);
            acc[4 * j + 3] = fmaf(s1, tmp[4 * j + 3], acc[4 * j + 3]);
        }
    } else {
        const uint32_t qs = slot + 4 * (128 + 2 * (threadIdx.x % 4));
#pragma unroll
        for (int j = 0; j < kN / 4; ++j) {
            const float2 v = sm90_lds2(qs + 32 * j);
            acc[4 * j + 0] = fmaf(p0 * v.x, tmp[4 * j + 0], acc[4 * j + 0]);
            acc[4 * j + 1] = fmaf(p0 * v.y, tmp[4 * j + 1], acc[4 * j + 1]);
            acc[4 * j + 2] = fmaf(p1 * v.x, tmp[4 * j + 2], acc[4 * j + 2]);
            acc[4 * j + 3] = fmaf(p1 * v.y, tmp[4 * j + 3], acc[4 * j + 3]);
        }
    }
}

/* Block-scaled: the scales over all of K (prm.p_outer, q_outer: OUTER_VEC_32F) times the tile's complete sums,
 * acc = fl32(p scale * q scale) * acc, once per element after the unit's last promotion. */
static __device__ __forceinline__ void sm90_outer_scale(float (&acc)[64], const Sm90Params &prm,
                                                        const wsgemm_sched_unit &w, int consumer)
{
    const Sm90OuterScales s = sm90_outer_scales_of(prm, w, consumer);
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const float v = prm.q_outer.row ? sm90_column_of<128>(s.q, j, e) : s.q[0];
            acc[4 * j + e] *= s.p0 * v;
            acc[4 * j + 2 + e] *= s.p1 * v;
        }
}

/* One FP8 K block: wait for stage st and issue its four wgmmas into t as a chain of their own (one commit
 * group). */
template <int kBn, int kStages, int kIn>
static __device__ __forceinline__ void sm90_fp8_issue(float (&t)[kBn / 2], Sm90Smem<kBn, kStages, 0> *sm,
                                                      const PipelineRing *ring, PipelineState &st, int consumer)
{
    sm90_issue_stage<kBn, kStages, 0, 0, kIn, 0>(t, sm, ring, st, consumer, true);
    pipeline_state_advance(&st, kStages);
}

/* kR consecutive FP8 K blocks (kR even), alternating between the buffers tmp0 and tmp1: block j + 1 is issued
 * into one while block j's sums, in the other, wait for it and go into acc, so the tensor cores have a group
 * queued while the adds run. Straight-line code that ends with nothing in flight (see sm90_fp8_unit). */
template <int kR, int kBn, int kStages, int kCluster, int kIn, typename Scales>
static __device__ __forceinline__ void sm90_fp8_round(float (&acc)[kBn / 2], float (&tmp0)[kBn / 2],
                                                      float (&tmp1)[kBn / 2], Sm90Smem<kBn, kStages, 0> *sm,
                                                      const PipelineRing *ring, PipelineState &st, Scales &scale,
                                                      const Sm90Params &prm, int consumer, uint32_t rank, bool signals)
{
    static_assert(kR >= 2 && kR % 2 == 0, "rounds of whole buffer pairs");
    PipelineState prev = st;
    sm90_fp8_issue<kBn, kStages, kIn>(tmp0, sm, ring, st, consumer);
#pragma unroll
    for (int j = 1; j < kR; ++j) { /* unrolled: which buffer is a constant in each copy */
        const PipelineState cur = st;
        if (j % 2)
            sm90_fp8_issue<kBn, kStages, kIn>(tmp1, sm, ring, st, consumer);
        else
            sm90_fp8_issue<kBn, kStages, kIn>(tmp0, sm, ring, st, consumer);
        wgmma_wait_group<1>(); /* block j - 1 is complete */
        if (signals) sm90_release<kCluster>(ring, prev, rank);
        if (j % 2)
            sm90_promote(acc, tmp0, scale, prm, (int)prev.stage);
        else
            sm90_promote(acc, tmp1, scale, prm, (int)prev.stage);
        sm90_scales_release(scale, ring, (int)prev.stage);
        prev = cur;
    }
    wgmma_wait_group<0>(); /* block kR - 1, in tmp1 */
    if (signals) sm90_release<kCluster>(ring, prev, rank);
    sm90_promote(acc, tmp1, scale, prm, (int)prev.stage);
    sm90_scales_release(scale, ring, (int)prev.stage);
}

/* FP8 kernels: the K blocks of one unit, each a chain of wgmmas of its own whose sums are added into acc
 * (sm90_promote) once complete: rounds of SM90_FP8_ROUND blocks (sm90_fp8_round), then the rest one at a time
 * (each waited for before the next is issued, so the tensor cores idle during its adds: a unit of fewer
 * than 16 K blocks, K < 2048, runs slower). Each round ends with nothing in flight, because with a group
 * carried across a loop's back edge ptxas cannot tell which buffer is complete and serializes every wgmma
 * (C7514); a second, shorter round for the rest makes it spill, and a round with a run-time block count
 * makes it fence every block (C7519). The round length is the fastest of those measured on the H200
 * (docs/perf-log.md, "FP8 on the sm90 kernels"). st: the ring position of the unit's first block; on
 * return, of the block after its last, every stage released and every sum in acc. */
enum { SM90_FP8_ROUND = 16 };

template <int kBn, int kStages, int kCluster, int kIn, typename Scales>
static __device__ __forceinline__ void
sm90_fp8_unit(float (&acc)[kBn / 2], float (&tmp0)[kBn / 2], float (&tmp1)[kBn / 2], Sm90Smem<kBn, kStages, 0> *sm,
              const PipelineRing *ring, PipelineState &st, int kb, int kb_end, Scales scale, const Sm90Params &prm,
              int consumer, uint32_t rank, bool signals)
{
#pragma unroll
    for (int i = 0; i < kBn / 2; ++i) acc[i] = 0.0f;
    for (; kb_end - kb >= SM90_FP8_ROUND; kb += SM90_FP8_ROUND)
        sm90_fp8_round<SM90_FP8_ROUND, kBn, kStages, kCluster, kIn>(acc, tmp0, tmp1, sm, ring, st, scale, prm, consumer,
                                                                    rank, signals);
    for (; kb < kb_end; ++kb) {
        const PipelineState cur = st;
        sm90_fp8_issue<kBn, kStages, kIn>(tmp0, sm, ring, st, consumer);
        wgmma_wait_group<0>();
        if (signals) sm90_release<kCluster>(ring, cur, rank);
        sm90_promote(acc, tmp0, scale, prm, (int)cur.stage);
        sm90_scales_release(scale, ring, (int)cur.stage);
    }
}

/* The consumer's main loop over its units. kDefer = 0: each tile's epilogue runs when its last K block is
 * done (the tensor cores wait for it). kDefer = 1 (DEFERRED: beta == 0, C of the input type): the finished
 * tile is converted into packed registers (sm90_pack_tile) and its chunks are stored one per K block while
 * the next tile's wgmmas run, i.e. after this warpgroup has issued K block kb and before it waits for
 * K block kb - 1:
 *
 *   tile t:   ... wgmma(kb_last) | wait_group 0 | pack(acc) -> packed         (a few hundred cycles)
 *   tile t+1: wgmma(kb0) | store chunk 0 of t
 *             wgmma(kb1) | store chunk 1 of t | wait_group 1, release kb0's stage
 *             wgmma(kb2) | store chunk 2 of t | wait_group 1, release kb1's stage  ...
 *
 * Measured on the H200 (docs/perf-log.md, "The deferred epilogue"): stored at the tile end, every tile keeps
 * the tensor cores idle while its stores go out, which weighs most where K is short; deferred, the stores
 * run under the next tile's wgmmas.
 *
 * A tile with fewer K blocks than chunks stores the rest before its own pack; the last tile's chunks go
 * out after the loop. FP8 kernels run each unit's K blocks in sm90_fp8_unit and store at the tile end (the
 * sums and their two K-block buffers leave no registers for a packed tile). */
template <int kBn, int kStages, int kCluster, int kPMn, int kQMn, int kIn, int kCBytes, int kDefer, int kFused,
          int kScales>
static __device__ __forceinline__ void sm90_consumer_loop(Sm90Smem<kBn, kStages, kCBytes> *sm, const PipelineRing *ring,
                                                          const PipelineRing *ring_c, const Sm90Params &prm,
                                                          const CUtensorMap *map_c, uint32_t rank, int consumer)
{
    constexpr bool kFp8 = kIn >= SM90_IN_E4M3; /* each K block's sums go into acc by sm90_fp8_unit */
    static_assert(!kFp8 || (!kDefer && kCBytes == 0), "FP8 kernels store at the tile end (TMA or DIRECT)");
    float acc[kBn / 2];
#pragma unroll
    for (int i = 0; i < kBn / 2; ++i) acc[i] = 0.0f;
    float tmp0[kFp8 ? kBn / 2 : 1], tmp1[kFp8 ? kBn / 2 : 1]; /* FP8: the wgmmas' accumulators (sm90_fp8_unit) */
    const float scale = kFp8 ? sm90_operand_scale(prm) : 1.0f;
    /* block-scaled: the scale slots after the ring, and this thread's first fragment row */
    const Sm90BlockScales<kScales == SM90_SCALES_BLOCK_COLS> scale_slots = {
        smem_u32(sm + 1), consumer * 64 + ((int)threadIdx.x / 32 % 4) * 16 + (int)threadIdx.x % 32 / 4};
    const bool signals = threadIdx.x % 128 == 0; /* one release per warpgroup and destination CTA */
    uint32_t chunks = 0;                         /* TMA-store epilogue chunks written so far */
    uint32_t packed[kDefer ? kBn / 4 : 1];       /* DEFER: the previous tile, converted */
    Sm90PendingTile pending = {0, 0, 0, 0};
    const bool load_c = kCBytes != 0 && prm.beta != 0.0f; /* STAGED: the producer loads each C tile */
    PipelineState st_c = pipeline_consumer_start();
    PipelineState c_to_release = st_c;
    bool c_release_pending = false; /* the last tile's stores still read the C buffer */
    float amax = 0.0f;              /* FUSED with amax_d: this thread's largest |x| inside D */

    PipelineState st = pipeline_consumer_start();
    const long long nclusters = gridDim.x / kCluster;
    long long u = blockIdx.x / kCluster;
    for (; u < prm.sched.sk_first; u += nclusters) { /* every unit but a hybrid's split region */
        const wsgemm_sched_unit w = wsgemm_sched_decode_plain(&prm.sched, u, (int)rank);
        PipelineState prev = st;
        if constexpr (kFp8 && kScales != SM90_SCALES_TENSOR) {
            sm90_fp8_unit<kBn, kStages, kCluster, kIn>(acc, tmp0, tmp1, sm, ring, st, w.kb_begin, w.kb_end, scale_slots,
                                                       prm, consumer, rank, signals);
            if (prm.p_outer.ptr || prm.q_outer.ptr) sm90_outer_scale(acc, prm, w, consumer);
        } else if constexpr (kFp8) {
            sm90_fp8_unit<kBn, kStages, kCluster, kIn>(acc, tmp0, tmp1, sm, ring, st, w.kb_begin, w.kb_end, scale, prm,
                                                       consumer, rank, signals);
        } else {
            for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
                sm90_issue_stage<kBn, kStages, kPMn, kQMn, kIn, kCBytes>(acc, sm, ring, st, consumer, kb == w.kb_begin);
                /* the tensor cores now have this K block (and maybe the previous one) queued: store a chunk */
                if constexpr (kDefer)
                    sm90_store_next_chunk<kBn>(packed, pending, consumer, map_c, sm->c_stage[consumer], chunks);
                if constexpr (kCBytes != 0) {
                    /* STAGED: two K blocks into the tile, the previous tile's stores have long read the buffer;
                     * hand it to the producer for this tile's C (it loads it after K block kb_c >= this one) */
                    if (c_release_pending &&
                        kb == w.kb_begin + (w.kb_end - w.kb_begin - 1 < 2 ? w.kb_end - w.kb_begin - 1 : 2)) {
                        if (signals) {
                            bulk_wait_group_read<0>();
                            consumer_release(ring_c, c_to_release);
                        }
                        c_release_pending = false;
                    }
                }
                if (kb != w.kb_begin) {
                    /* at most one group (this stage's) still runs: the previous stage has been read */
                    wgmma_wait_group<1>();
                    if (signals) sm90_release<kCluster>(ring, prev, rank);
                }
                prev = st;
                pipeline_state_advance(&st, kStages);
            }
        }
        if constexpr (kDefer) {
            while (pending.chunks_left > 0) /* fewer K blocks than chunks: the rest now, before the pack */
                sm90_store_next_chunk<kBn>(packed, pending, consumer, map_c, sm->c_stage[consumer], chunks);
        }
        float bias[kBn / 32]; /* FUSED: the tile's bias, loading while the last wgmmas run */
        if (kFused && prm.fused.ops.bias) sm90_bias_load<kBn>(prm, w.col * kBn, bias);
        if constexpr (!kFp8) {
            wgmma_wait_group<0>();
            if (signals) sm90_release<kCluster>(ring, prev, rank);
        }
#pragma unroll
        for (int i = 0; i < kBn / 2; ++i) wgmma_fence_operand(acc[i]);
        if constexpr (kDefer) {
            pending.p = w.row * SM90_BM + consumer * 64;
            pending.q = w.col * kBn;
            sm90_pack_tile<kBn, kIn == SM90_IN_F16 ? WSGEMM_R_16F : WSGEMM_R_16BF, kFused>(packed, acc, prm, pending.p,
                                                                                           pending.q, bias, amax);
            pending.batch = w.batch;
            pending.chunks_left = kBn / 64;
        } else if constexpr (kCBytes != 0) {
            if (load_c) consumer_wait(ring_c, st_c); /* this tile's C has landed in the buffer */
            sm90_epilogue_staged_dispatch<kBn, kCBytes>(acc, prm, w, consumer, map_c, sm->c_stage[consumer], load_c);
            if (load_c) {
                c_to_release = st_c;
                c_release_pending = true;
                pipeline_state_advance(&st_c, 1);
            }
        } else {
            sm90_epilogue_tile_end<kBn, kFused>(acc, prm, w, consumer, 1 + (uint32_t)consumer, map_c,
                                                sm->c_stage[consumer], chunks, bias, amax);
        }
    }
    /* A hybrid's split region (common/scheduler.cuh): this CTA's units there come after all its others. Each
     * runs its K range as above (the last tile's deferred chunks are stored under the first one's MMAs) and
     * ends by writing its fp32 partial tile for the reduction kernel; no C tile is loaded or stored for it. A
     * loop of its own, so the tile-end branches above stay as they are (one more live value there made
     * ptxas spill the BN 256 consumer). FUSED and FP8 plans have no split region (sm90_plan.c), so their
     * kernels have no such loop (its partial-tile addresses made ptxas spill the FP8 consumers). */
    if constexpr (!kFused && !kFp8)
        for (; u < prm.sched.units; u += nclusters) {
            const wsgemm_sched_unit w = wsgemm_sched_decode(&prm.sched, u, (int)rank);
            PipelineState prev = st;
            for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
                sm90_issue_stage<kBn, kStages, kPMn, kQMn, kIn, kCBytes>(acc, sm, ring, st, consumer, kb == w.kb_begin);
                if constexpr (kDefer)
                    sm90_store_next_chunk<kBn>(packed, pending, consumer, map_c, sm->c_stage[consumer], chunks);
                if (kb != w.kb_begin) {
                    wgmma_wait_group<1>(); /* the previous stage has been read */
                    if (signals) sm90_release<kCluster>(ring, prev, rank);
                }
                prev = st;
                pipeline_state_advance(&st, kStages);
            }
            wgmma_wait_group<0>();
            if (signals) sm90_release<kCluster>(ring, prev, rank);
#pragma unroll
            for (int i = 0; i < kBn / 2; ++i) wgmma_fence_operand(acc[i]);
            sm90_store_partial<kBn>(acc, prm, w, consumer);
        }
    if constexpr (kDefer) {
        while (pending.chunks_left > 0) /* the last tile */
            sm90_store_next_chunk<kBn>(packed, pending, consumer, map_c, sm->c_stage[consumer], chunks);
    }
    if constexpr (kFused) wsgemm_fused_amax_commit(prm.fused, amax); /* each warp's largest |x| into *amax_d */
    /* the smem of the last chunks must stay valid until their stores have read it */
    if (prm.epilogue != WSGEMM_EPILOGUE_DIRECT && threadIdx.x % 128 == 0) bulk_wait_group<0>();
}

template <int kBn, int kStages, int kCluster, int kPMn, int kQMn, int kIn, int kCBytes, int kFused, int kScales>
static __device__ __forceinline__ void sm90_consumer(Sm90Smem<kBn, kStages, kCBytes> *sm, const PipelineRing *ring,
                                                     const PipelineRing *ring_c, const Sm90Params &prm,
                                                     const CUtensorMap *map_c, uint32_t rank, int consumer)
{
    if constexpr (kCBytes != 0) { /* a STAGED kernel runs only that epilogue */
        sm90_consumer_loop<kBn, kStages, kCluster, kPMn, kQMn, kIn, kCBytes, 0, 0, 0>(sm, ring, ring_c, prm, map_c,
                                                                                      rank, consumer);
    } else if constexpr (kIn >= SM90_IN_E4M3) { /* FP8 kernels store at the tile end */
        sm90_consumer_loop<kBn, kStages, kCluster, kPMn, kQMn, kIn, 0, 0, kFused, kScales>(sm, ring, ring_c, prm, map_c,
                                                                                           rank, consumer);
    } else {
        if (prm.epilogue == WSGEMM_EPILOGUE_DEFERRED)
            sm90_consumer_loop<kBn, kStages, kCluster, kPMn, kQMn, kIn, 0, 1, kFused, 0>(sm, ring, ring_c, prm, map_c,
                                                                                         rank, consumer);
        else
            sm90_consumer_loop<kBn, kStages, kCluster, kPMn, kQMn, kIn, 0, 0, kFused, 0>(sm, ring, ring_c, prm, map_c,
                                                                                         rank, consumer);
    }
}

/* The pingpong schedule (kSched = 1): each consumer warpgroup computes whole 128 x BN tiles (two m64 halves,
 * two accumulators), the two taking the CTA's units in turn (warpgroup wg the units with local index
 * i % 2 == wg), so one warpgroup's tile-end epilogue runs while the other's wgmmas keep the tensor cores busy:
 *
 *   wg 0:  mainloop(unit 0) | epilogue(0)        | mainloop(unit 2) | epilogue(2) ...
 *   wg 1:       (waits)     | mainloop(unit 1)   | epilogue(1)      | mainloop(unit 3) ...
 *
 * The ring is shared and the producer fills it in unit order as before; a warpgroup steps its ring state
 * over the other's K blocks without waiting on them. Each stage is read, and released, by one warpgroup per
 * CTA, so empty[] counts kCluster arrivals. BN <= 128: two 64 x BN accumulators are 128 registers.
 *
 * The turns are ordered by turn[2] (count 1 each): a warpgroup starts the main loop of a unit (but its
 * CTA's first) only after the other has waited on every stage of the unit before and issued its MMAs, and
 * then arrives on the other's turn once its own main loop is issued. That keeps one warpgroup's MMAs on the
 * tensor cores at a time, and it is what makes the stepped-over stages safe: when a warpgroup waits on a
 * stage for unit i + 2, the fill of that stage for unit i + 1 has completed (the other warpgroup waited
 * for it), so the full[] barrier is never a whole phase behind and a parity wait cannot pass on the
 * phase before. */
template <int kBn, int kStages, int kCluster, int kPMn, int kQMn, int kIn>
static __device__ __forceinline__ void sm90_consumer_pingpong(Sm90Smem<kBn, kStages, 0> *sm, const PipelineRing *ring,
                                                              const Sm90Params &prm, const CUtensorMap *map_c,
                                                              uint32_t rank, int wg)
{
    static_assert(kBn <= 128, "two 64 x BN accumulators per warpgroup must fit in 128 registers");
    float acc[2][kBn / 2];
    const float no_bias[kBn / 32] = {};          /* the plain tile-end epilogue adds none */
    float no_amax = 0.0f;                        /* and raises no amax_d */
    const bool signals = threadIdx.x % 128 == 0; /* one release per warpgroup and destination CTA */
    const uint32_t barrier_id = 1 + (uint32_t)wg;
    uint32_t chunks = 0;
    PipelineState st = pipeline_consumer_start();
    PipelineState turn = pipeline_consumer_start(); /* waits on turn[wg], one phase per unit after the first */
    const long long nclusters = gridDim.x / kCluster;
    int i = 0; /* this CTA's units so far */
    for (long long u = blockIdx.x / kCluster; u < prm.sched.units; u += nclusters, ++i) {
        wsgemm_sched_unit w = wsgemm_sched_decode(&prm.sched, u, (int)rank);
        if (i % 2 != wg) { /* the other warpgroup's unit: step over its stages */
            for (int kb = w.kb_begin; kb < w.kb_end; ++kb) pipeline_state_advance(&st, kStages);
            continue;
        }
        if (i > 0) { /* the other warpgroup has issued the main loop of unit i - 1 */
            mbarrier_wait(&sm->turn[wg], turn.phase, WAIT_CTA, 0, "sm90.turn", (uint32_t)wg);
            pipeline_state_advance(&turn, 1);
        }
        PipelineState prev = st;
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
            consumer_wait(ring, st);
            const uint32_t p_smem = smem_u32(sm->p[st.stage]);
            const uint64_t b_desc = sm90_operand_desc<kQMn>(smem_u32(sm->q[st.stage]));
            wgmma_fence();
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const uint64_t a_desc = sm90_operand_desc<kPMn>(p_smem + h * 8192); /* rows 64h..64h+63 */
#pragma unroll
                for (int ks = 0; ks < SM90_BK / 16; ++ks)
                    sm90_mma<kBn, kPMn, kQMn, kIn>(acc[h], a_desc + sm90_k_step<kPMn>(ks),
                                                   b_desc + sm90_k_step<kQMn>(ks),
                                                   (kb != w.kb_begin || ks != 0) ? 1 : 0);
            }
            wgmma_commit_group();
            if (kb != w.kb_begin) {
                wgmma_wait_group<1>(); /* the previous stage has been read */
                if (signals) sm90_release<kCluster>(ring, prev, rank);
            }
            prev = st;
            pipeline_state_advance(&st, kStages);
        }
        if (signals) mbarrier_arrive(&sm->turn[1 - wg]); /* the other warpgroup's turn (count 1) */
        wgmma_wait_group<0>();
        if (signals) sm90_release<kCluster>(ring, prev, rank);
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int j = 0; j < kBn / 2; ++j) wgmma_fence_operand(acc[h][j]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            if (w.slot >= 0)
                sm90_store_partial<kBn>(acc[h], prm, w, h); /* a split-region unit */
            else
                sm90_epilogue_tile_end<kBn, 0>(acc[h], prm, w, h, barrier_id, map_c, sm->c_stage[wg], chunks, no_bias,
                                               no_amax);
        }
    }
    /* the smem of the last chunks must stay valid until their stores have read it */
    if (prm.epilogue != WSGEMM_EPILOGUE_DIRECT && signals) bulk_wait_group<0>();
}

/* ---------------------------------------------------------------- the kernel */

template <int kBn, int kStages, int kCluster, int kPMn, int kQMn, int kIn, int kCBytes, int kSched, int kFused,
          int kScales>
__global__ void __launch_bounds__(SM90_THREADS, 1)
    sm90_gemm_kernel(const __grid_constant__ CUtensorMap map_p, const __grid_constant__ CUtensorMap map_q,
                     const __grid_constant__ CUtensorMap map_c, const __grid_constant__ Sm90Params prm)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ uint8_t smem_raw[];
    /* the swizzle pattern is a function of the smem address: every stage must start 1024-aligned */
    Sm90Smem<kBn, kStages, kCBytes> *sm =
        (Sm90Smem<kBn, kStages, kCBytes> *)(((uintptr_t)smem_raw + SM90_SWIZZLE_ATOM - 1) &
                                            ~(uintptr_t)(SM90_SWIZZLE_ATOM - 1));
    const int warp = threadIdx.x / 32;
    const uint32_t rank = kCluster > 1 ? cluster_ctarank() : 0;
    /* Both rings wait at CTA scope, even though empty[] hears from the peer CTA: what the producer needs
     * from a release is only that the consumers' wgmma reads of the stage are COMPLETE (wgmma.wait_group
     * before the arrive), not that their memory writes are visible, so acquire.cluster (which costs an L1
     * invalidate, CCTL.IVALL, per wait) buys nothing. CUTLASS's ClusterBarrier::wait does the same. */
    const PipelineRing ring = {sm->full, sm->empty, kStages, WAIT_CTA, WAIT_CTA, "sm90.full", "sm90.empty"};
    /* STAGED, beta != 0: c_full (count 1: the producer's arrive.expect_tx, + the C tile's bytes) and c_empty
     * (count 2: one arrival per consumer warpgroup of this CTA, when its stores have read the buffer) */
    const PipelineRing ring_c = {&sm->c_full, &sm->c_empty, 1, WAIT_CTA, WAIT_CTA, "sm90.c_full", "sm90.c_empty"};

    if (threadIdx.x == 0) {
        /* full: the local producer's one arrive.expect_tx (block-scaled: and the scale loaders' 64 lanes); empty:
         * each consumer warpgroup that reads the stage, in each CTA (cooperative: both; pingpong: the one whose
         * unit it holds), and (block-scaled) each local consumer warp once it has read the stage's scale slot */
        pipeline_init(&ring, kScales ? 1 + 64 : 1, (kSched ? 1 : 2) * kCluster + (kScales ? 8 : 0));
        if constexpr (kCBytes != 0) pipeline_init(&ring_c, 1, 2);
        if constexpr (kSched) { /* pingpong: each turn is handed over by the other warpgroup's leader */
            mbarrier_init(&sm->turn[0], 1);
            mbarrier_init(&sm->turn[1], 1);
        }
        fence_mbarrier_init();          /* the inits are visible to the peer's multicast and arrivals */
        fence_proxy_async_shared_cta(); /* ... and to TMA complete_tx on this CTA's barriers */
    }
    if (warp == 0) {
        tma_prefetch_tensormap(&map_p);
        tma_prefetch_tensormap(&map_q);
        if (prm.epilogue != WSGEMM_EPILOGUE_DIRECT) tma_prefetch_tensormap(&map_c);
    }
    if constexpr (kCluster > 1)
        cluster_sync(); /* no multicast or remote arrive before the peer's init */
    else
        __syncthreads();
    /* programmatic dependent launch (common/pdl.cuh): everything above is the prologue; no thread touches
     * global memory (operands, C, the workspace's partials) before the previous kernel is done */
    wsgemm_pdl_wait();

    if (warp < 4) {
        setmaxnreg_dec<SM90_PRODUCER_REGS>();
        if (warp == 0) {
            if (elect_one_sync()) {
                sm90_producer<kBn, kStages, kCluster, kPMn, kQMn, kIn, kCBytes>(sm, &ring, &ring_c, &map_p, &map_q,
                                                                                &map_c, prm, rank);
                wsgemm_pdl_launch_dependents(); /* the CTA's last load is issued */
            }
            __syncwarp();
        } else if (kScales != SM90_SCALES_TENSOR && warp == 1) {
            sm90_scale_loader<kStages, kCluster, 0>(smem_u32(sm + 1), &ring, prm, rank);
        } else if (kScales != SM90_SCALES_TENSOR && warp == 2) {
            sm90_scale_loader<kStages, kCluster, 1>(smem_u32(sm + 1), &ring, prm, rank);
        }
    } else {
        setmaxnreg_inc<SM90_CONSUMER_REGS>();
        if constexpr (kSched) {
            static_assert(kCBytes == 0 && !kFused && kScales == SM90_SCALES_TENSOR,
                          "the pingpong schedule runs the plain tile-end epilogues of 16-bit inputs only");
            sm90_consumer_pingpong<kBn, kStages, kCluster, kPMn, kQMn, kIn>(sm, &ring, prm, &map_c, rank, warp / 4 - 1);
        } else {
            static_assert(!kFused || kCBytes == 0, "the fused ops run in the DEFERRED, TMA and DIRECT epilogues");
            static_assert(kScales == SM90_SCALES_TENSOR || kIn >= SM90_IN_E4M3, "block scales scale FP8 operands");
            sm90_consumer<kBn, kStages, kCluster, kPMn, kQMn, kIn, kCBytes, kFused, kScales>(
                sm, &ring, &ring_c, prm, &map_c, rank, warp / 4 - 1);
        }
    }

    /* the peer may still arrive on our empty[] (and we on its) until its consumers are done */
    if constexpr (kCluster > 1) cluster_sync();
#endif
}

template <int kBn, int kStages, int kCluster, int kPMn, int kQMn, int kIn, int kCBytes = 0, int kSched = 0,
          int kFused = 0, int kScales = SM90_SCALES_TENSOR>
static Sm90KernelInfo sm90_kernel_info(void)
{
    constexpr int kSlotBytes = kScales != SM90_SCALES_TENSOR ? kStages * SM90_SCALE_SLOT * 4 : 0;
    static_assert(sizeof(Sm90Smem<kBn, kStages, kCBytes>) + kSlotBytes + SM90_SWIZZLE_ATOM <= 227 * 1024,
                  "ring + epilogue buffers + alignment slack must fit the 227 KB a block may opt into");
    static_assert(kCluster == 1 || kCluster == 2 || kCluster == 4, "the Q tile is split between 1, 2 or 4 CTAs");
    Sm90KernelInfo info;
    info.fn = (const void *)sm90_gemm_kernel<kBn, kStages, kCluster, kPMn, kQMn, kIn, kCBytes, kSched, kFused, kScales>;
    info.smem_bytes = (int)sizeof(Sm90Smem<kBn, kStages, kCBytes>) + kSlotBytes + SM90_SWIZZLE_ATOM; /* + slack */
    info.bn = kBn;
    info.stages = kStages;
    info.cluster = kCluster;
    info.p_mn = kPMn;
    info.q_mn = kQMn;
    info.in = kIn;
    return info;
}

/* The kernels of one row of the kernel table (sm90_kernels.def), one per majorness pair the row has (kMn, SM90_MN_*):
 * info.fn == NULL for a pair it does not have. sm90_shard.cu defines sm90_row_<name> for the rows of its shard
 * with it; the launcher (sm90_gemm.cu) holds them by row index. */
template <int kMn, int kBn, int kStages, int kCluster, int kIn, int kScales, int kCBytes, int kSched, int kFused>
static Sm90KernelInfo sm90_kernel_of_row(int p_mn, int q_mn)
{
    Sm90KernelInfo none = {};
    if constexpr ((kMn & 1) != 0)
        if (!p_mn && !q_mn)
            return sm90_kernel_info<kBn, kStages, kCluster, 0, 0, kIn, kCBytes, kSched, kFused, kScales>();
    if constexpr ((kMn & 2) != 0)
        if (!p_mn && q_mn)
            return sm90_kernel_info<kBn, kStages, kCluster, 0, 1, kIn, kCBytes, kSched, kFused, kScales>();
    if constexpr ((kMn & 4) != 0)
        if (p_mn && !q_mn)
            return sm90_kernel_info<kBn, kStages, kCluster, 1, 0, kIn, kCBytes, kSched, kFused, kScales>();
    if constexpr ((kMn & 8) != 0)
        if (p_mn && q_mn)
            return sm90_kernel_info<kBn, kStages, kCluster, 1, 1, kIn, kCBytes, kSched, kFused, kScales>();
    return none;
}

#endif /* WSGEMM_SM90_KERNEL_CUH */
