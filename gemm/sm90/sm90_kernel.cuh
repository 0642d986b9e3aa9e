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
 *                            runs the epilogue itself, one of three:
 *                            - deferred (prm.defer_store; the default for 16-bit C of the input type with
 *                              beta == 0): alpha, conversion into BN/4 packed registers (64 at BN 256),
 *                              and the tile's 64-column chunks are stored (stmatrix into a swizzled
 *                              buffer, TMA store) one per K block of the NEXT tile, after its wgmmas are
 *                              issued, so the tensor cores never wait for the stores (drawn at
 *                              sm90_consumer_loop);
 *                            - tile-end TMA store (prm.tma_store): alpha, beta (C read only when beta != 0),
 *                              conversion, st.shared into the chunk buffers + TMA store;
 *                            - predicated stores from registers (C that TMA cannot address).
 * Cluster of CLUSTER (1, 2 or 4) CTAs along P: the CTAs of a cluster compute tiles (row + rank, col), which
 * share the Q tile; each CTA loads 1/CLUSTER of the Q tile and multicasts it to all, and loads its own P
 * tile alone. 4 is for skinny problems, where the Q tile (the small operand) would otherwise be read from
 * L2 once per pair of P tiles, as many bytes as P itself.
 *
 * Barriers (STAGES-deep ring in each CTA; s = stage):
 *
 *   producer (1 thread)                                  consumers (2 warpgroups)
 *     wait empty[s] (phase) ------------------+
 *     arrive.expect_tx full[s], STAGE_BYTES   |
 *     TMA P(own)  --complete_tx--> full[s]    |            wait full[s]
 *     TMA Q share --multicast complete_tx---> full[s] of every CTA of the cluster
 *                                             |            wgmma x 4 (K = 64), commit
 *                                             |            wait_group 1: the PREVIOUS stage is read
 *                                             +----------- arrive empty[prev] in EVERY CTA of the cluster
 *
 *   full[s]  count 1 (the local producer's arrive.expect_tx) + tx STAGE_BYTES: this CTA's P bytes plus
 *            the whole Q tile (its own share and the peers' shares land here, all counted at this barrier).
 *   empty[s] count 2 * CLUSTER: one arrival per consumer warpgroup of each CTA of the cluster, because the
 *            producer of each CTA writes (multicast) into the stage of every CTA.
 *   Ordering: a peer's multicast complete_tx may reach full[s] before the local arrive.expect_tx of that
 *   phase; the tx-count goes transiently negative, which mbarrier allows, and the phase cannot complete
 *   without the local arrival (count 1).
 *
 * Teardown: after its last unit a CTA may still receive remote arrivals on empty[] from the peers'
 * consumers, so every thread of the cluster meets at a cluster barrier before any CTA exits.
 *
 * Shared memory (1024-byte aligned, the 128-byte swizzle atom):
 *   p[STAGES][128 x 64 x 2 B]   K-major: 128 rows of 128 B; MN-major: 2 boxes [64 K][64 rows] of 8 KB
 *   q[STAGES][BN  x 64 x 2 B]   K-major: BN rows of 128 B;  MN-major: BN/64 boxes [64 K][64 rows]
 *   c_stage[2 consumers][2][64 rows x 128 B]   TMA-store chunks, both TMA epilogues (named barriers 1 and 2)
 *   full[STAGES], empty[STAGES]
 * A consumer's 64-row slice of P starts 8192 B into the stage in both layouts.
 */
#ifndef WSGEMM_SM90_KERNEL_CUH
#define WSGEMM_SM90_KERNEL_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

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

/* SM90_BM (128 P rows per CTA tile: two consumer warpgroups x 64) and SM90_BK (64 K per stage, one
 * 128-byte swizzle row) are in sm90_tile.h, which the plan shares. */
enum {
    SM90_THREADS = 384,    /* producer warpgroup + two consumer warpgroups */
    SM90_PRODUCER_REGS = 40,
    SM90_CONSUMER_REGS = 232,
    SM90_SWIZZLE_ATOM = 1024,   /* 8 rows x 128 B */
    SM90_MN_BOX_BYTES = 64 * 128, /* one MN-major box: 64 K rows of 64 elements */
    SM90_EPI_CHUNK_BYTES = 64 * 128 /* one TMA-store chunk: 64 p rows x 128 bytes of q */
};

static_assert(SM90_BK * 2 == 128, "one K block must be exactly one 128-byte swizzle row");
static_assert(SM90_PRODUCER_REGS * 128 + SM90_CONSUMER_REGS * 256 <= 65536,
              "setmaxnreg: producer + consumer registers must fit the 64K register file");
static_assert(SM90_PRODUCER_REGS % 8 == 0 && SM90_CONSUMER_REGS % 8 == 0, "setmaxnreg counts are multiples of 8");

/* Everything the kernel needs besides the tensor maps of P, Q (and C for the TMA-store epilogue). */
typedef struct Sm90Params {
    wsgemm_sched sched;
    int p_extent, q_extent;   /* D is p_extent x q_extent per batch */
    int p_batched, q_batched; /* 1: the map's third coordinate is the batch index; 0: always 0 */
    void *out;                /* D(p, q) of batch b, split s at out + b*out_batch + s*out_split + p*out_sp + q*out_sq */
    long long out_sp, out_sq, out_batch, out_split;
    int out_type;             /* wsgemm_dtype */
    float alpha, beta;        /* beta == 0: out is never read */
    int tma_store;            /* 1: epilogue through smem + TMA store (map_c); requires out_sq == 1, no split */
    int defer_store;          /* 1 (with tma_store, beta == 0, C of the input type): the tile's stores are
                               * written during the next tile's first K blocks (sm90_consumer) */
} Sm90Params;

template <int BN, int STAGES>
struct Sm90Smem {
    uint8_t p[STAGES][SM90_BM * SM90_BK * 2];
    uint8_t q[STAGES][BN * SM90_BK * 2];
    /* TMA-store epilogue: per consumer two 64-row x 128-byte chunk buffers (128-byte swizzled), so the
     * next chunk is written while the previous one is stored */
    uint8_t c_stage[2][2][SM90_EPI_CHUNK_BYTES];
    uint64_t full[STAGES];
    uint64_t empty[STAGES];
};

/* Host-visible facts about one instantiation. */
typedef struct Sm90KernelInfo {
    const void *fn;
    int smem_bytes;
    int bn, stages, cluster, p_mn, q_mn, bf16;
} Sm90KernelInfo;

/* ---------------------------------------------------------------- small device helpers */

/* One m64nBNk16 for the input type and transpose bits of the instantiation. */
template <int BN, int P_MN, int Q_MN, int BF16>
static __device__ __forceinline__ void sm90_mma(float (&acc)[BN / 2], uint64_t a_desc, uint64_t b_desc, int scale_d)
{
    if constexpr (BN == 256) {
        if constexpr (BF16) wgmma_m64n256k16_f32_bf16<P_MN, Q_MN>(acc, a_desc, b_desc, scale_d);
        else wgmma_m64n256k16_f32_f16<P_MN, Q_MN>(acc, a_desc, b_desc, scale_d);
    } else if constexpr (BN == 128) {
        if constexpr (BF16) wgmma_m64n128k16_f32_bf16<P_MN, Q_MN>(acc, a_desc, b_desc, scale_d);
        else wgmma_m64n128k16_f32_f16<P_MN, Q_MN>(acc, a_desc, b_desc, scale_d);
    } else {
        static_assert(BN == 64, "BN must be 64, 128 or 256");
        if constexpr (BF16) wgmma_m64n64k16_f32_bf16<P_MN, Q_MN>(acc, a_desc, b_desc, scale_d);
        else wgmma_m64n64k16_f32_f16<P_MN, Q_MN>(acc, a_desc, b_desc, scale_d);
    }
}

/* The descriptor of a 128-byte-swizzled operand slice starting at start_smem (see wgmma.cuh for LBO/SBO). */
template <int MN_MAJOR>
static __device__ __forceinline__ uint64_t sm90_operand_desc(uint32_t start_smem)
{
    return MN_MAJOR ? wgmma_desc_encode(start_smem, SM90_MN_BOX_BYTES, SM90_SWIZZLE_ATOM, WGMMA_SWIZZLE_128B)
                    : wgmma_desc_encode(start_smem, 16, SM90_SWIZZLE_ATOM, WGMMA_SWIZZLE_128B);
}

/* Descriptor start-address step for K step ks (16 elements): 32 B inside a K-major row, 16 rows of 128 B
 * in an MN-major box. The start field holds address >> 4 and never overflows (smem < 256 KB). */
template <int MN_MAJOR>
static __device__ __forceinline__ uint64_t sm90_k_step(int ks)
{
    return (uint64_t)((MN_MAJOR ? ks * 16 * 128 : ks * 32) >> 4);
}

/* ---------------------------------------------------------------- producer */

template <int BN, int STAGES, int CLUSTER, int P_MN, int Q_MN>
static __device__ __forceinline__ void sm90_producer(Sm90Smem<BN, STAGES> *sm, const PipelineRing *ring,
                                                     const CUtensorMap *map_p, const CUtensorMap *map_q,
                                                     const Sm90Params &prm, uint32_t rank)
{
    constexpr uint32_t kStageBytes = (SM90_BM + BN) * SM90_BK * 2;
    constexpr int kQRowsPerCta = BN / CLUSTER;     /* K-major Q: rows this CTA loads */
    constexpr int kQKRowsPerCta = SM90_BK / CLUSTER; /* MN-major Q: K rows of each box this CTA loads */
    static_assert(kQRowsPerCta * 128 % SM90_SWIZZLE_ATOM == 0 && kQKRowsPerCta * 128 % SM90_SWIZZLE_ATOM == 0,
                  "each CTA's share of the Q tile must start on a swizzle atom");
    const uint16_t cta_mask = (uint16_t)((1u << CLUSTER) - 1u);

    PipelineState st = pipeline_producer_start();
    const long long nclusters = gridDim.x / CLUSTER;
    for (long long u = blockIdx.x / CLUSTER; u < prm.sched.units; u += nclusters) {
        wsgemm_sched_unit w = wsgemm_sched_decode(&prm.sched, u, (int)rank);
        const int p0 = w.row * SM90_BM;
        const int q0 = w.col * BN;
        const int bp = prm.p_batched ? w.batch : 0;
        const int bq = prm.q_batched ? w.batch : 0;
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
            const int k0 = kb * SM90_BK;
            producer_acquire(ring, st);
            producer_arrive_expect_tx(ring, st, kStageBytes);
            const uint32_t bar = smem_u32(&sm->full[st.stage]);
            const uint32_t p_smem = smem_u32(sm->p[st.stage]);
            const uint32_t q_smem = smem_u32(sm->q[st.stage]);
            if constexpr (P_MN) {
                tma_load_3d(p_smem, map_p, bar, p0, k0, bp);
                tma_load_3d(p_smem + SM90_MN_BOX_BYTES, map_p, bar, p0 + 64, k0, bp);
            } else {
                tma_load_3d(p_smem, map_p, bar, k0, p0, bp);
            }
            if constexpr (Q_MN) {
#pragma unroll
                for (int c = 0; c < BN / 64; ++c) {
                    const uint32_t dst = q_smem + c * SM90_MN_BOX_BYTES + rank * kQKRowsPerCta * 128;
                    const int kk = k0 + (int)rank * kQKRowsPerCta;
                    if constexpr (CLUSTER > 1) tma_load_3d_multicast(dst, map_q, bar, q0 + 64 * c, kk, bq, cta_mask);
                    else tma_load_3d(dst, map_q, bar, q0 + 64 * c, kk, bq);
                }
            } else {
                const uint32_t dst = q_smem + rank * kQRowsPerCta * 128;
                const int qq = q0 + (int)rank * kQRowsPerCta;
                if constexpr (CLUSTER > 1) tma_load_3d_multicast(dst, map_q, bar, k0, qq, bq, cta_mask);
                else tma_load_3d(dst, map_q, bar, k0, qq, bq);
            }
            pipeline_state_advance(&st, STAGES);
        }
    }
}

/* ---------------------------------------------------------------- epilogue */

static __device__ __forceinline__ float sm90_load_out(const void *ptr, int type)
{
    if (type == WSGEMM_R_32F) return *(const float *)ptr;
    if (type == WSGEMM_R_16BF) return __bfloat162float(*(const __nv_bfloat16 *)ptr);
    return __half2float(*(const __half *)ptr);
}

static __device__ __forceinline__ void sm90_store_out(void *ptr, int type, float v)
{
    if (type == WSGEMM_R_32F) *(float *)ptr = v;
    else if (type == WSGEMM_R_16BF) *(__nv_bfloat16 *)ptr = __float2bfloat16_rn(v);
    else *(__half *)ptr = __float2half_rn(v);
}

/* Two horizontally adjacent values D(p, q), D(p, q + 1). When q and q + 1 are adjacent in memory
 * (out_sq == 1) and the address is aligned for the pair, one vector store (and load for beta). */
template <int OUT_TYPE>
static __device__ __forceinline__ void sm90_store_pair(uint8_t *base, const Sm90Params &prm, int p, int q, float v0,
                                                       float v1)
{
    constexpr int kBytes = OUT_TYPE == WSGEMM_R_32F ? 4 : 2;
    if (p >= prm.p_extent || q >= prm.q_extent) return;
    const bool second = q + 1 < prm.q_extent;
    uint8_t *ptr = base + ((long long)p * prm.out_sp + (long long)q * prm.out_sq) * kBytes;
    v0 *= prm.alpha;
    v1 *= prm.alpha;
    if (second && prm.out_sq == 1 && ((uintptr_t)ptr % (2 * kBytes)) == 0) {
        if constexpr (OUT_TYPE == WSGEMM_R_32F) {
            float2 *pp = (float2 *)ptr;
            if (prm.beta != 0.0f) {
                float2 old = *pp;
                v0 += prm.beta * old.x;
                v1 += prm.beta * old.y;
            }
            *pp = make_float2(v0, v1);
        } else if constexpr (OUT_TYPE == WSGEMM_R_16BF) {
            __nv_bfloat162 *pp = (__nv_bfloat162 *)ptr;
            if (prm.beta != 0.0f) {
                float2 old = __bfloat1622float2(*pp);
                v0 += prm.beta * old.x;
                v1 += prm.beta * old.y;
            }
            *pp = __floats2bfloat162_rn(v0, v1);
        } else {
            __half2 *pp = (__half2 *)ptr;
            if (prm.beta != 0.0f) {
                float2 old = __half22float2(*pp);
                v0 += prm.beta * old.x;
                v1 += prm.beta * old.y;
            }
            *pp = __floats2half2_rn(v0, v1);
        }
        return;
    }
    if (prm.beta != 0.0f) v0 += prm.beta * sm90_load_out(ptr, OUT_TYPE);
    sm90_store_out(ptr, OUT_TYPE, v0);
    if (second) {
        uint8_t *ptr1 = ptr + prm.out_sq * kBytes;
        if (prm.beta != 0.0f) v1 += prm.beta * sm90_load_out(ptr1, OUT_TYPE);
        sm90_store_out(ptr1, OUT_TYPE, v1);
    }
}

/* The accumulator fragment of wgmma m64nNk16 (PTX ISA "Register Fragments and Shared Memory Matrix
 * Layouts: wgmma .m64nNk16", matrix D): in warp wi of the warpgroup, acc[4j + r] holds row
 * 16 wi + lane/4 + 8 (r / 2) and column 8 j + 2 (lane % 4) + (r % 2). */
template <int BN, int OUT_TYPE>
static __device__ __forceinline__ void sm90_epilogue(const float (&acc)[BN / 2], const Sm90Params &prm,
                                                     const wsgemm_sched_unit &w, int consumer)
{
    constexpr int kBytes = OUT_TYPE == WSGEMM_R_32F ? 4 : 2;
    const int lane = threadIdx.x % 32;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    const int p = w.row * SM90_BM + consumer * 64 + warp_in_wg * 16 + lane / 4;
    const int q_base = w.col * BN + 2 * (lane % 4);
    uint8_t *base = (uint8_t *)prm.out + (w.batch * prm.out_batch + w.split * prm.out_split) * kBytes;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        sm90_store_pair<OUT_TYPE>(base, prm, p, q_base + 8 * j, acc[4 * j + 0], acc[4 * j + 1]);
        sm90_store_pair<OUT_TYPE>(base, prm, p + 8, q_base + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
    }
}

/* The chunk protocol of both TMA-store epilogues (tile-end and deferred). A consumer warpgroup owns two
 * 64-row x 128-byte chunk buffers and alternates between them, so writing one chunk overlaps the store of
 * the previous one; a running count (not the chunk index) picks the buffer, so an odd number of chunks per
 * tile still alternates. Acquire: the leader waits until the store that last used this buffer (two chunks
 * ago, possibly in the previous tile) has read it (bulk wait_group.read 1: all but the newest group are done
 * reading), then the warpgroup meets at its named barrier (1 + consumer; 0 is __syncthreads). */
static __device__ __forceinline__ uint8_t *sm90_chunk_acquire(uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES],
                                                              uint32_t &chunk_count, uint32_t barrier_id)
{
    uint8_t *buf = bufs[chunk_count % 2];
    chunk_count++;
    if (threadIdx.x % 128 == 0) bulk_wait_group_read<1>();
    named_barrier_sync(barrier_id, 128);
    return buf;
}

/* Store: each thread's st.shared / stmatrix writes are made visible to the async proxy (fence.proxy.async),
 * the warpgroup meets again, and the leader issues the TMA store of the chunk at (q, p, batch) (out-of-range
 * elements are clipped by TMA) and commits it as one bulk group. */
static __device__ __forceinline__ void sm90_chunk_store(const CUtensorMap *map_c, const uint8_t *buf,
                                                        uint32_t barrier_id, int q, int p, int batch)
{
    fence_proxy_async_shared_cta();
    named_barrier_sync(barrier_id, 128);
    if (threadIdx.x % 128 == 0) {
        tma_store_3d(map_c, smem_u32(buf), q, p, batch);
        bulk_commit_group();
    }
}

/* The TMA-store epilogue (swapped orientation: q runs along C's contiguous dimension). The consumer's 64 x BN
 * slice goes out in chunks of 64 p rows x 128 bytes of q (64 16-bit or 32 fp32 elements), alternating
 * between two smem buffers so writing chunk c overlaps the store of chunk c - 1:
 *   sm90_chunk_acquire (the buffer is free) -> alpha/beta, convert, st.shared into the 128-byte swizzled
 *   layout the map expects (chunk16 ^= row % 8: conflict-free for the fragment) -> sm90_chunk_store.
 * The stores of the last chunks overlap the next tile's main loop; the leader waits for them before the
 * buffers are reused (next tile) or the CTA exits. */
template <int BN, int OUT_TYPE>
static __device__ __forceinline__ void sm90_epilogue_tma(const float (&acc)[BN / 2], const Sm90Params &prm,
                                                         const wsgemm_sched_unit &w, int consumer,
                                                         const CUtensorMap *map_c, uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES],
                                                         uint32_t &chunk_count)
{
    constexpr int kBytes = OUT_TYPE == WSGEMM_R_32F ? 4 : 2;
    constexpr int kChunkElems = 128 / kBytes;      /* q elements per chunk row */
    constexpr int kChunks = BN / kChunkElems;
    constexpr int kJPerChunk = kChunkElems / 8;    /* fragment column groups (8 wide) per chunk */
    static_assert(BN % kChunkElems == 0, "whole chunks per tile");
    const int lane = threadIdx.x % 32;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    const uint32_t barrier_id = 1 + (uint32_t)consumer;
    const int row0 = warp_in_wg * 16 + lane / 4;       /* p row inside the 64-row slice (and row0 + 8) */
    const int p_tile = w.row * SM90_BM + consumer * 64;
    const int q_tile = w.col * BN;
    const uint8_t *c_old = (const uint8_t *)prm.out + w.batch * prm.out_batch * kBytes;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
        uint8_t *buf = sm90_chunk_acquire(bufs, chunk_count, barrier_id);
#pragma unroll
        for (int jj = 0; jj < kJPerChunk; ++jj) {
            const int j = c * kJPerChunk + jj;
            const int q_local = 8 * jj + 2 * (lane % 4);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = row0 + 8 * h;
                float v0 = prm.alpha * acc[4 * j + 2 * h];
                float v1 = prm.alpha * acc[4 * j + 2 * h + 1];
                if (prm.beta != 0.0f) {
                    const int p = p_tile + row, q = q_tile + c * kChunkElems + q_local;
                    if (p < prm.p_extent && q < prm.q_extent) {
                        const uint8_t *src = c_old + ((long long)p * prm.out_sp + q) * kBytes;
                        v0 += prm.beta * sm90_load_out(src, OUT_TYPE);
                        if (q + 1 < prm.q_extent) v1 += prm.beta * sm90_load_out(src + kBytes, OUT_TYPE);
                    }
                }
                const int byte = q_local * kBytes;
                uint8_t *dst = buf + row * 128 + (((byte / 16) ^ (row % 8)) * 16) + byte % 16;
                if constexpr (OUT_TYPE == WSGEMM_R_32F) *(float2 *)dst = make_float2(v0, v1);
                else if constexpr (OUT_TYPE == WSGEMM_R_16BF) *(__nv_bfloat162 *)dst = __floats2bfloat162_rn(v0, v1);
                else *(__half2 *)dst = __floats2half2_rn(v0, v1);
            }
        }
        sm90_chunk_store(map_c, buf, barrier_id, q_tile + c * kChunkElems, p_tile, w.batch);
    }
}

/* ---------------------------------------------------------------- deferred epilogue */

/* Two converted outputs as one 32-bit word (the low half is the lower q). */
template <int BF16>
static __device__ __forceinline__ uint32_t sm90_pack_pair(float v0, float v1)
{
    uint32_t word;
    if constexpr (BF16) {
        const __nv_bfloat162 pair = __floats2bfloat162_rn(v0, v1);
        memcpy(&word, &pair, sizeof word);
    } else {
        const __half2 pair = __floats2half2_rn(v0, v1);
        memcpy(&word, &pair, sizeof word);
    }
    return word;
}

/* alpha * acc converted to the 16-bit output type, two values per register, in fragment order:
 * packed[2j + h] holds acc[4j + 2h] and acc[4j + 2h + 1] (row 8h of column group j, see sm90_epilogue).
 * Half the registers of the accumulators, so the tile can wait in registers while the next tile's
 * wgmmas write the accumulators. Rounds exactly as sm90_epilogue_tma does with beta == 0. */
template <int BN, int BF16>
static __device__ __forceinline__ void sm90_pack_tile(uint32_t (&packed)[BN / 4], const float (&acc)[BN / 2], float alpha)
{
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            packed[2 * j + h] = sm90_pack_pair<BF16>(alpha * acc[4 * j + 2 * h], alpha * acc[4 * j + 2 * h + 1]);
}

/* Where a deferred tile goes: the consumer's 64-row slice of unit w. */
typedef struct Sm90PendingTile {
    int p, q, batch; /* first p row, first q column, batch of the slice */
    int chunks_left; /* 128-byte-wide chunks not yet stored (0: nothing pending) */
} Sm90PendingTile;

/* Stores chunk c (q columns 64c .. 64c + 63) of a packed slice between sm90_chunk_acquire and
 * sm90_chunk_store, as sm90_epilogue_tma does, written with four stmatrix.x4 per thread:
 * stmatrix s of warp w covers fragment column groups jj = 2s, 2s + 1 (16-byte units of the chunk row) and
 * both 8-row halves h of the warp's 16 rows; its matrix i = 2 (jj - 2s) + h is packed[16c + 4s + i]
 * (packed[2j + h], j = 8c + jj). Lane 8i + r addresses row 16w + 8h + r, 16-byte unit jj ^ r (the swizzle:
 * unit ^= row % 8, and row % 8 = r), so the eight rows of each matrix land in eight different bank groups.
 * The chunk index is a run-time value; the unrolled compare keeps every packed[] index a constant, so the
 * packed tile stays in registers (a run-time index would move it to local memory). */
template <int BN>
static __device__ __forceinline__ void sm90_store_packed_chunk(const uint32_t (&packed)[BN / 4], int c,
                                                               const Sm90PendingTile &t, int consumer,
                                                               const CUtensorMap *map_c,
                                                               uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES],
                                                               uint32_t &chunk_count)
{
    const int lane = threadIdx.x % 32;
    const int r = lane % 8, i = lane / 8;
    const int row = ((threadIdx.x / 32) % 4) * 16 + 8 * (i % 2) + r;
    const uint32_t barrier_id = 1 + (uint32_t)consumer;
    uint8_t *buf = sm90_chunk_acquire(bufs, chunk_count, barrier_id);
    const uint32_t row_smem = smem_u32(buf) + (uint32_t)row * 128;
#pragma unroll
    for (int cc = 0; cc < BN / 64; ++cc) {
        if (cc != c) continue;
#pragma unroll
        for (int s = 0; s < 4; ++s) {
            const int jj = 2 * s + i / 2;
            const uint32_t *m = &packed[16 * cc + 4 * s];
            stmatrix_x4(row_smem + (uint32_t)((jj ^ r) * 16), m[0], m[1], m[2], m[3]);
        }
    }
    sm90_chunk_store(map_c, buf, barrier_id, t.q + 64 * c, t.p, t.batch);
}

/* The next chunk of the pending slice, if any. */
template <int BN>
static __device__ __forceinline__ void sm90_store_next_chunk(const uint32_t (&packed)[BN / 4], Sm90PendingTile &t,
                                                             int consumer, const CUtensorMap *map_c,
                                                             uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES],
                                                             uint32_t &chunk_count)
{
    if (t.chunks_left == 0) return;
    sm90_store_packed_chunk<BN>(packed, BN / 64 - t.chunks_left, t, consumer, map_c, bufs, chunk_count);
    t.chunks_left--;
}

/* ---------------------------------------------------------------- consumers */

/* Stage st has been read by this warpgroup: tell the producer of every CTA that writes into it (all CTAs
 * of the cluster, by multicast). The own CTA's barrier takes a local arrive, the peer's a remote one;
 * both release at CTA scope (no fence): the consumer publishes no data, only that its wgmma reads have
 * completed (sync/pipeline.cuh consumer_release_remote). */
template <int CLUSTER>
static __device__ __forceinline__ void sm90_release(const PipelineRing *ring, PipelineState st, uint32_t rank)
{
    consumer_release(ring, st);
#pragma unroll
    for (uint32_t r = 0; r < CLUSTER; ++r)
        if (r != rank) consumer_release_remote(ring, st, r);
}

/* The consumer's main loop over its units. DEFER = 0: each tile's epilogue runs when its last K block is
 * done (the tensor cores wait for it). DEFER = 1 (tma_store, beta == 0, C of the input type): the finished
 * tile is converted into packed registers (sm90_pack_tile) and its chunks are stored one per K block while
 * the next tile's wgmmas run, i.e. after this warpgroup has issued K block kb and before it waits for
 * K block kb - 1:
 *
 *   tile t:   ... wgmma(kb_last) | wait_group 0 | pack(acc) -> packed         (a few hundred cycles)
 *   tile t+1: wgmma(kb0) | store chunk 0 of t
 *             wgmma(kb1) | store chunk 1 of t | wait_group 1, release kb0's stage
 *             wgmma(kb2) | store chunk 2 of t | wait_group 1, release kb1's stage  ...
 *
 * Measured on the H200 (docs/performance.md): the tile-end stores cost about 3.4 us per 128 x 256 tile
 * with the tensor cores idle; deferred, 8192 x 8192 x 1024 went from 0.89x to 1.07x of cuBLAS.
 *
 * A tile with fewer K blocks than chunks stores the rest before its own pack; the last tile's chunks go
 * out after the loop. */
template <int BN, int STAGES, int CLUSTER, int P_MN, int Q_MN, int BF16, int DEFER>
static __device__ __forceinline__ void sm90_consumer_loop(Sm90Smem<BN, STAGES> *sm, const PipelineRing *ring,
                                                          const Sm90Params &prm, const CUtensorMap *map_c,
                                                          uint32_t rank, int consumer)
{
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    const bool signals = threadIdx.x % 128 == 0; /* one release per warpgroup and destination CTA */
    uint32_t chunks = 0;                         /* TMA-store epilogue chunks written so far */
    uint32_t packed[DEFER ? BN / 4 : 1];         /* DEFER: the previous tile, converted */
    Sm90PendingTile pending = {0, 0, 0, 0};

    PipelineState st = pipeline_consumer_start();
    const long long nclusters = gridDim.x / CLUSTER;
    for (long long u = blockIdx.x / CLUSTER; u < prm.sched.units; u += nclusters) {
        wsgemm_sched_unit w = wsgemm_sched_decode(&prm.sched, u, (int)rank);
        PipelineState prev = st;
        for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
            consumer_wait(ring, st);
            const uint64_t a_desc = sm90_operand_desc<P_MN>(smem_u32(sm->p[st.stage]) + consumer * 8192);
            const uint64_t b_desc = sm90_operand_desc<Q_MN>(smem_u32(sm->q[st.stage]));
            wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < SM90_BK / 16; ++ks) {
                /* scale-d 0 on the tile's first MMA: the accumulators start from zero without a clear */
                sm90_mma<BN, P_MN, Q_MN, BF16>(acc, a_desc + sm90_k_step<P_MN>(ks), b_desc + sm90_k_step<Q_MN>(ks),
                                               (kb != w.kb_begin || ks != 0) ? 1 : 0);
            }
            wgmma_commit_group();
            /* the tensor cores now have this K block (and maybe the previous one) queued: store a chunk */
            if constexpr (DEFER) sm90_store_next_chunk<BN>(packed, pending, consumer, map_c, sm->c_stage[consumer], chunks);
            if (kb != w.kb_begin) {
                /* at most one group (this stage's) still runs: the previous stage has been read */
                wgmma_wait_group<1>();
                if (signals) sm90_release<CLUSTER>(ring, prev, rank);
            }
            prev = st;
            pipeline_state_advance(&st, STAGES);
        }
        if constexpr (DEFER) {
            while (pending.chunks_left > 0) /* fewer K blocks than chunks: the rest now, before the pack */
                sm90_store_next_chunk<BN>(packed, pending, consumer, map_c, sm->c_stage[consumer], chunks);
        }
        wgmma_wait_group<0>();
        if (signals) sm90_release<CLUSTER>(ring, prev, rank);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) wgmma_fence_operand(acc[i]);
        if constexpr (DEFER) {
            sm90_pack_tile<BN, BF16>(packed, acc, prm.alpha);
            pending.p = w.row * SM90_BM + consumer * 64;
            pending.q = w.col * BN;
            pending.batch = w.batch;
            pending.chunks_left = BN / 64;
        } else if (prm.tma_store) {
            if (prm.out_type == WSGEMM_R_16BF)
                sm90_epilogue_tma<BN, WSGEMM_R_16BF>(acc, prm, w, consumer, map_c, sm->c_stage[consumer], chunks);
            else if (prm.out_type == WSGEMM_R_16F)
                sm90_epilogue_tma<BN, WSGEMM_R_16F>(acc, prm, w, consumer, map_c, sm->c_stage[consumer], chunks);
            else sm90_epilogue_tma<BN, WSGEMM_R_32F>(acc, prm, w, consumer, map_c, sm->c_stage[consumer], chunks);
        } else if (prm.out_type == WSGEMM_R_16BF) {
            sm90_epilogue<BN, WSGEMM_R_16BF>(acc, prm, w, consumer);
        } else if (prm.out_type == WSGEMM_R_16F) {
            sm90_epilogue<BN, WSGEMM_R_16F>(acc, prm, w, consumer);
        } else {
            sm90_epilogue<BN, WSGEMM_R_32F>(acc, prm, w, consumer);
        }
    }
    if constexpr (DEFER) {
        while (pending.chunks_left > 0) /* the last tile */
            sm90_store_next_chunk<BN>(packed, pending, consumer, map_c, sm->c_stage[consumer], chunks);
    }
    /* the smem of the last chunks must stay valid until their stores have read it */
    if (prm.tma_store && threadIdx.x % 128 == 0) bulk_wait_group<0>();
}

template <int BN, int STAGES, int CLUSTER, int P_MN, int Q_MN, int BF16>
static __device__ __forceinline__ void sm90_consumer(Sm90Smem<BN, STAGES> *sm, const PipelineRing *ring,
                                                     const Sm90Params &prm, const CUtensorMap *map_c, uint32_t rank,
                                                     int consumer)
{
    if (prm.defer_store) sm90_consumer_loop<BN, STAGES, CLUSTER, P_MN, Q_MN, BF16, 1>(sm, ring, prm, map_c, rank, consumer);
    else sm90_consumer_loop<BN, STAGES, CLUSTER, P_MN, Q_MN, BF16, 0>(sm, ring, prm, map_c, rank, consumer);
}

/* ---------------------------------------------------------------- the kernel */

template <int BN, int STAGES, int CLUSTER, int P_MN, int Q_MN, int BF16>
__global__ void __launch_bounds__(SM90_THREADS, 1)
    sm90_gemm_kernel(const __grid_constant__ CUtensorMap map_p, const __grid_constant__ CUtensorMap map_q,
                     const __grid_constant__ CUtensorMap map_c, const __grid_constant__ Sm90Params prm)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ uint8_t smem_raw[];
    /* the swizzle pattern is a function of the smem address: every stage must start 1024-aligned */
    Sm90Smem<BN, STAGES> *sm = (Sm90Smem<BN, STAGES> *)(((uintptr_t)smem_raw + SM90_SWIZZLE_ATOM - 1) &
                                                        ~(uintptr_t)(SM90_SWIZZLE_ATOM - 1));
    const int warp = threadIdx.x / 32;
    const uint32_t rank = CLUSTER > 1 ? cluster_ctarank() : 0;
    /* Both rings wait at CTA scope, even though empty[] hears from the peer CTA: what the producer needs
     * from a release is only that the consumers' wgmma reads of the stage are COMPLETE (wgmma.wait_group
     * before the arrive), not that their memory writes are visible, so acquire.cluster (which costs an L1
     * invalidate, CCTL.IVALL, per wait) buys nothing. CUTLASS's ClusterBarrier::wait does the same. */
    const PipelineRing ring = {sm->full, sm->empty, STAGES, WAIT_CTA, WAIT_CTA, "sm90.full", "sm90.empty"};

    if (threadIdx.x == 0) {
        /* full: the local producer's one arrive.expect_tx; empty: each consumer warpgroup of each CTA */
        pipeline_init(&ring, 1, 2 * CLUSTER);
        fence_mbarrier_init();           /* the inits are visible to the peer's multicast and arrivals */
        fence_proxy_async_shared_cta();  /* ... and to TMA complete_tx on this CTA's barriers */
    }
    if (warp == 0) {
        tma_prefetch_tensormap(&map_p);
        tma_prefetch_tensormap(&map_q);
        if (prm.tma_store) tma_prefetch_tensormap(&map_c);
    }
    if constexpr (CLUSTER > 1) cluster_sync(); /* no multicast or remote arrive before the peer's init */
    else __syncthreads();

    if (warp < 4) {
        setmaxnreg_dec<SM90_PRODUCER_REGS>();
        if (warp == 0) {
            if (elect_one_sync()) sm90_producer<BN, STAGES, CLUSTER, P_MN, Q_MN>(sm, &ring, &map_p, &map_q, prm, rank);
            __syncwarp();
        }
    } else {
        setmaxnreg_inc<SM90_CONSUMER_REGS>();
        sm90_consumer<BN, STAGES, CLUSTER, P_MN, Q_MN, BF16>(sm, &ring, prm, &map_c, rank, warp / 4 - 1);
    }

    /* the peer may still arrive on our empty[] (and we on its) until its consumers are done */
    if constexpr (CLUSTER > 1) cluster_sync();
#endif
}

template <int BN, int STAGES, int CLUSTER, int P_MN, int Q_MN, int BF16>
static Sm90KernelInfo sm90_kernel_info(void)
{
    static_assert(sizeof(Sm90Smem<BN, STAGES>) + SM90_SWIZZLE_ATOM <= 227 * 1024,
                  "ring + epilogue buffers + alignment slack must fit the 227 KB a block may opt into");
    static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4, "the Q tile is split between 1, 2 or 4 CTAs");
    Sm90KernelInfo info;
    info.fn = (const void *)sm90_gemm_kernel<BN, STAGES, CLUSTER, P_MN, Q_MN, BF16>;
    info.smem_bytes = (int)sizeof(Sm90Smem<BN, STAGES>) + SM90_SWIZZLE_ATOM; /* + alignment slack */
    info.bn = BN;
    info.stages = STAGES;
    info.cluster = CLUSTER;
    info.p_mn = P_MN;
    info.q_mn = Q_MN;
    info.bf16 = BF16;
    return info;
}

/* The instantiations live in sm90_inst_*.cu (compiled in parallel); each file defines one of these.
 * bn: 64/128/256; variant 0 = default (CLUSTER 2, deepest ring that fits), 1 = CLUSTER 1, 2 = 3 stages
 * (variants 1 and 2 exist for bf16, BN 256, P K-major only: the tuning script's comparisons), 3 = CLUSTER 4
 * (BN 64 and 128: one Q tile feeds four P tiles, a quarter of it loaded by each CTA).
 * Returns info.fn == NULL when the combination is not instantiated. */
Sm90KernelInfo sm90_kernel_lookup(int bn, int variant, int p_mn, int q_mn, int bf16);
Sm90KernelInfo sm90_kernels_bf16_n256(int variant, int p_mn, int q_mn);
Sm90KernelInfo sm90_kernels_bf16_n128(int variant, int p_mn, int q_mn);
Sm90KernelInfo sm90_kernels_bf16_n64(int variant, int p_mn, int q_mn);
Sm90KernelInfo sm90_kernels_f16_n256(int variant, int p_mn, int q_mn);
Sm90KernelInfo sm90_kernels_f16_n128(int variant, int p_mn, int q_mn);
Sm90KernelInfo sm90_kernels_f16_n64(int variant, int p_mn, int q_mn);

/* Default ring depth: as many 48/32/24 KB stages as fit comfortably in 227 KB. */
#define SM90_STAGES_FOR(BN) ((BN) == 256 ? 4 : (BN) == 128 ? 6 : 8)

/* The kernel of one (BN, STAGES, CLUSTER, type) for each of the four P/Q majorness pairs. */
template <int BN, int STAGES, int CLUSTER, int BF16>
static Sm90KernelInfo sm90_kernel_for_majorness(int p_mn, int q_mn)
{
    if (!p_mn && !q_mn) return sm90_kernel_info<BN, STAGES, CLUSTER, 0, 0, BF16>();
    if (!p_mn && q_mn) return sm90_kernel_info<BN, STAGES, CLUSTER, 0, 1, BF16>();
    if (p_mn && !q_mn) return sm90_kernel_info<BN, STAGES, CLUSTER, 1, 0, BF16>();
    return sm90_kernel_info<BN, STAGES, CLUSTER, 1, 1, BF16>();
}

/* Defines sm90_kernels_<TY>_n<BN>: the four majorness pairs of the default variant (+ tuning variants, and
 * with WITH_CLUSTER4 variant 3: the 4-CTA cluster the launcher offers skinny problems). */
#define SM90_DEFINE_KERNELS(TY, BF16, BN, WITH_TUNING, WITH_CLUSTER4)                                       \
    Sm90KernelInfo sm90_kernels_##TY##_n##BN(int variant, int p_mn, int q_mn)                               \
    {                                                                                                       \
        constexpr int S = SM90_STAGES_FOR(BN);                                                              \
        Sm90KernelInfo none = {};                                                                           \
        if (variant == 0) return sm90_kernel_for_majorness<BN, S, 2, BF16>(p_mn, q_mn);                     \
        if constexpr (WITH_CLUSTER4) {                                                                      \
            if (variant == 3) return sm90_kernel_for_majorness<BN, S, 4, BF16>(p_mn, q_mn);                 \
        }                                                                                                   \
        if constexpr (WITH_TUNING) {                                                                        \
            if (variant == 1 && !p_mn) {                                                                    \
                if (!q_mn) return sm90_kernel_info<BN, S, 1, 0, 0, BF16>();                                 \
                return sm90_kernel_info<BN, S, 1, 0, 1, BF16>();                                            \
            }                                                                                               \
            if (variant == 2 && !p_mn) {                                                                    \
                if (!q_mn) return sm90_kernel_info<BN, 3, 2, 0, 0, BF16>();                                 \
                return sm90_kernel_info<BN, 3, 2, 0, 1, BF16>();                                            \
            }                                                                                               \
        }                                                                                                   \
        return none;                                                                                        \
    }

#endif /* WSGEMM_SM90_KERNEL_CUH */
