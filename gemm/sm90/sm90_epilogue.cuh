// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_epilogue.cuh - the epilogues of the sm90 kernel (included by sm90_kernel.cuh), one section
 * per kind of wsgemm_epilogue_kind (common/epilogue.h), and the one place that dispatches on the kind at the
 * end of a tile (sm90_epilogue_tile_end). Each element goes through the shared output op of
 * common/epilogue.cuh (alpha, beta, conversion), so the kinds differ only in how the tile reaches memory:
 *
 *   DIRECT    predicated stores from registers, pairs as one vector where C's layout allows
 *   TMA       per consumer two 64-row x 128-byte chunk buffers in smem, st.shared + TMA store, alternating
 *   DEFERRED  the tile packed to 16 bits in registers; its chunks stored during the next tile's main loop
 *             (the main loop's part is in sm90_consumer_loop)
 *   STAGED    the CTA's whole C tile in smem: C loaded by TMA during the main loop (beta != 0), combined
 *             in place at the tile end, stored by TMA behind the next tile's main loop
 *
 * In a FUSED kernel (TMA and DEFERRED only, beta == 0) sm90_fused_tile first turns the accumulators into D's
 * final values (wsgemm_matmul's alpha, bias, aux, activation), which the stores then write as they are.
 * Apart from the kinds: the units of a hybrid schedule's split region store their fp32 partial tile
 * (sm90_store_partial) whatever the kind; a reduction kernel applies the output op later.
 *
 * A new epilogue is one more section here, one more enum value, and one more case in the dispatch.
 */
#ifndef WSGEMM_SM90_EPILOGUE_CUH
#define WSGEMM_SM90_EPILOGUE_CUH

#include "common/epilogue.cuh"

/* ---------------------------------------------------------------- the fused ops (FUSED kernels) */

/* sm90_bias_load for a bias of type kT (a wsgemm_dtype). */
template <int kBn, int kT>
static __device__ __forceinline__ void sm90_bias_load_as(const Sm90Params &prm, int q0, float (&b)[kBn / 32])
{
    const uint8_t *bias = (const uint8_t *)prm.fused.bias;
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int t = 0; t < kBn / 32; ++t) {
        const int q = q0 + 32 * t + lane;
        b[t] = q < prm.q_extent ? wsgemm_out_load<kT>(bias + (long long)q * wsgemm_out_bytes<kT>::value) : 0.0f;
    }
}

/* The bias of a tile's BN columns q0 .. q0 + BN - 1 as fp32, spread over the warp: lane L holds column
 * 32 t + L in b[t] (coalesced loads, all in flight at once: one type dispatch per tile, not per load;
 * columns past D read nothing and hold 0). Every lane of the warp calls it. */
template <int kBn>
static __device__ __forceinline__ void sm90_bias_load(const Sm90Params &prm, int q0, float (&b)[kBn / 32])
{
    if (prm.fused.bias_type == WSGEMM_R_16BF)
        sm90_bias_load_as<kBn, WSGEMM_R_16BF>(prm, q0, b);
    else if (prm.fused.bias_type == WSGEMM_R_16F)
        sm90_bias_load_as<kBn, WSGEMM_R_16F>(prm, q0, b);
    else
        sm90_bias_load_as<kBn, WSGEMM_R_32F>(prm, q0, b);
}

/* The value of fragment column 8 j + 2 (lane % 4) + e of the tile (sm90_epilogue's fragment layout) in a row
 * vector spread over the warp as sm90_bias_load spreads the bias (the block scales of Q's columns too), fetched
 * from the lane that loaded it: column c is b[c / 32] of lane c % 32. j and e are constants after unrolling;
 * every lane of the warp calls it. */
template <int kBn>
static __device__ __forceinline__ float sm90_column_of(const float (&b)[kBn / 32], int j, int e)
{
    return __shfl_sync(0xffffffffu, b[j / 4], 8 * (j % 4) + 2 * (threadIdx.x % 4) + e);
}

/* ---------------------------------------------------------------- DIRECT */

/* Two horizontally adjacent values D(p, q), D(p, q + 1) through the shared output op. When q and q + 1 are
 * adjacent in memory (out_sq == 1) and the address is aligned for the pair, one vector access each way. */
template <int kOutType>
static __device__ __forceinline__ void sm90_store_pair(uint8_t *base, const Sm90Params &prm, int p, int q, float v0,
                                                       float v1)
{
    constexpr int kBytes = wsgemm_out_bytes<kOutType>::value;
    if (p >= prm.p_extent || q >= prm.q_extent) return;
    const bool second = q + 1 < prm.q_extent;
    uint8_t *ptr = base + ((long long)p * prm.out_sp + (long long)q * prm.out_sq) * kBytes;
    if (second && prm.out_sq == 1 && ((uintptr_t)ptr % (2 * kBytes)) == 0) {
        wsgemm_out_apply2<kOutType>(ptr, v0, v1, prm.alpha, prm.beta);
        return;
    }
    wsgemm_out_apply<kOutType>(ptr, v0, prm.alpha, prm.beta);
    if (second) wsgemm_out_apply<kOutType>(ptr + prm.out_sq * kBytes, v1, prm.alpha, prm.beta);
}

/* The accumulator fragment of wgmma m64nNk16 (PTX ISA "Register Fragments and Shared Memory Matrix
 * Layouts: wgmma .m64nNk16", matrix D): in warp wi of the warpgroup, acc[4j + r] holds row
 * 16 wi + lane/4 + 8 (r / 2) and column 8 j + 2 (lane % 4) + (r % 2). acc is rows 64 half .. 64 half + 63
 * of the tile. */
template <int kBn, int kOutType>
static __device__ __forceinline__ void sm90_epilogue(const float (&acc)[kBn / 2], const Sm90Params &prm,
                                                     const wsgemm_sched_unit &w, int half)
{
    constexpr int kBytes = wsgemm_out_bytes<kOutType>::value;
    const int lane = threadIdx.x % 32;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    const int p = w.row * SM90_BM + half * 64 + warp_in_wg * 16 + lane / 4;
    const int q_base = w.col * kBn + 2 * (lane % 4);
    uint8_t *base = (uint8_t *)prm.out + (w.batch * prm.out_batch + w.split * prm.out_split) * kBytes;
#pragma unroll
    for (int j = 0; j < kBn / 8; ++j) {
        sm90_store_pair<kOutType>(base, prm, p, q_base + 8 * j, acc[4 * j + 0], acc[4 * j + 1]);
        sm90_store_pair<kOutType>(base, prm, p + 8, q_base + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
    }
}

/* ---------------------------------------------------------------- TMA (and the chunk protocol of DEFERRED) */

/* The chunk protocol of both TMA-store epilogues (tile-end and deferred). A consumer warpgroup owns two
 * 64-row x 128-byte chunk buffers and alternates between them, so writing one chunk overlaps the store of
 * the previous one; a running count (not the chunk index) picks the buffer, so an odd number of chunks per
 * tile still alternates. Acquire: the leader waits until the store that last used this buffer (two chunks
 * ago, possibly in the previous tile) has read it (bulk wait_group.read 1: all but the newest group are done
 * reading), then the warpgroup meets at its named barrier (1 + its index among the consumers; 0 is
 * __syncthreads). */
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
 * buffers are reused (next tile) or the CTA exits. acc is rows 64 half .. 64 half + 63 of the tile; the
 * warpgroup that owns bufs meets at named barrier barrier_id. */
template <int kBn, int kOutType, int kFused>
static __device__ __forceinline__ void sm90_epilogue_tma(const float (&acc)[kBn / 2], const Sm90Params &prm,
                                                         const wsgemm_sched_unit &w, int half, uint32_t barrier_id,
                                                         const CUtensorMap *map_c,
                                                         uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES], uint32_t &chunk_count)
{
    constexpr int kBytes = wsgemm_out_bytes<kOutType>::value;
    constexpr int kChunkElems = 128 / kBytes; /* q elements per chunk row */
    constexpr int kChunks = kBn / kChunkElems;
    constexpr int kJPerChunk = kChunkElems / 8; /* fragment column groups (8 wide) per chunk */
    static_assert(kBn % kChunkElems == 0, "whole chunks per tile");
    const int lane = threadIdx.x % 32;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    const int row0 = warp_in_wg * 16 + lane / 4; /* p row inside the 64-row slice (and row0 + 8) */
    const int p_tile = w.row * SM90_BM + half * 64;
    const int q_tile = w.col * kBn;
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
                float2 old = make_float2(0.0f, 0.0f); /* C outside the matrix is never read (and never stored) */
                if (!kFused && prm.beta != 0.0f) {
                    const int p = p_tile + row, q = q_tile + c * kChunkElems + q_local;
                    if (p < prm.p_extent && q < prm.q_extent) {
                        const uint8_t *src = c_old + ((long long)p * prm.out_sp + q) * kBytes;
                        old.x = wsgemm_out_load<kOutType>(src);
                        if (q + 1 < prm.q_extent) old.y = wsgemm_out_load<kOutType>(src + kBytes);
                    }
                }
                const int byte = q_local * kBytes;
                uint8_t *dst = buf + row * 128 + (((byte / 16) ^ (row % 8)) * 16) + byte % 16;
                if constexpr (kFused) /* sm90_fused_tile made acc D's final values */
                    wsgemm_out_store2<kOutType>(dst, acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
                else
                    wsgemm_out_store2<kOutType>(dst, wsgemm_out_value(acc[4 * j + 2 * h], prm.alpha, prm.beta, old.x),
                                                wsgemm_out_value(acc[4 * j + 2 * h + 1], prm.alpha, prm.beta, old.y));
            }
        }
        sm90_chunk_store(map_c, buf, barrier_id, q_tile + c * kChunkElems, p_tile, w.batch);
    }
}

/* ---------------------------------------------------------------- DEFERRED */

/* A FUSED kernel's output op on the consumer's whole 64 x BN slice, in place: acc becomes D's final fp32
 * values, in common/epilogue.h's order: x = alpha * acc (FUSED plans have beta == 0: C is never read),
 * x += bias, aux = x, x = activation(x), amax = max(amax, |x|) over the elements inside D, x *= d_scale.
 * The stores that follow write acc as it is. Each step is one
 * straight element loop behind one uniform branch on the call's ops (no per-element branches, predicates or
 * addresses for steps the call does not have, and independent elements overlap); the results go back into
 * acc, whose registers stay live for the next tile's first wgmma anyway. p0, q0: the slice's first row and
 * column; the fragment layout is sm90_epilogue's: acc[4 j + r] is D(p + 8 (r / 2), q + 8 j + r % 2). b: the
 * tile's bias (sm90_bias_load), loaded by the caller before it waits for the tile's last wgmmas. */
template <int kBn, int kOutType>
static __device__ __forceinline__ void sm90_fused_tile(float (&acc)[kBn / 2], const Sm90Params &prm, int p0, int q0,
                                                       const float (&b)[kBn / 32], float &amax)
{
    constexpr int kBytes = wsgemm_out_bytes<kOutType>::value;
    const int lane = threadIdx.x % 32;
    const int p = p0 + ((threadIdx.x / 32) % 4) * 16 + lane / 4;
    const int q = q0 + 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < kBn / 2; ++i) acc[i] = wsgemm_out_value(acc[i], prm.alpha, 0.0f, 0.0f);
    if (prm.fused.ops.bias) {
#pragma unroll
        for (int j = 0; j < kBn / 8; ++j) {
            const float b0 = sm90_column_of<kBn>(b, j, 0), b1 = sm90_column_of<kBn>(b, j, 1);
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[4 * j + r] += r % 2 ? b1 : b0;
        }
    }
    if (prm.fused.ops.aux) { /* element (q, p) of aux, as D's type; nothing outside D */
        uint8_t *aux = (uint8_t *)prm.fused.aux;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            if (p + 8 * h >= prm.p_extent) continue;
            uint8_t *row = aux + (q + (long long)(p + 8 * h) * prm.fused.ldaux) * kBytes;
#pragma unroll
            for (int j = 0; j < kBn / 8; ++j) {
                /* q is even and aux's columns start 16-byte aligned (the sm90 path asks it), so a pair is
                 * one aligned vector store */
                const int qq = q + 8 * j;
                uint8_t *at = row + 8 * j * kBytes;
                if (qq + 1 < prm.q_extent)
                    wsgemm_out_store2<kOutType>(at, acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
                else if (qq < prm.q_extent)
                    wsgemm_out_store<kOutType>(at, acc[4 * j + 2 * h]);
            }
        }
    }
    if (prm.fused.ops.activation == WSGEMM_ACTIVATION_GELU) {
#pragma unroll
        for (int i = 0; i < kBn / 2; ++i) acc[i] = wsgemm_activate_as<WSGEMM_ACTIVATION_GELU>(acc[i]);
    } else if (prm.fused.ops.activation == WSGEMM_ACTIVATION_RELU) {
#pragma unroll
        for (int i = 0; i < kBn / 2; ++i) acc[i] = wsgemm_activate_as<WSGEMM_ACTIVATION_RELU>(acc[i]);
    }
    if (prm.fused.amax) { /* elements outside D take no part (TMA clips their stores) */
#pragma unroll
        for (int j = 0; j < kBn / 8; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                if (p + 8 * (r / 2) < prm.p_extent && q + 8 * j + r % 2 < prm.q_extent)
                    amax = fmaxf(amax, fabsf(acc[4 * j + r]));
    }
    if (prm.fused.d_scale) {
        const float d_scale = *prm.fused.d_scale;
#pragma unroll
        for (int i = 0; i < kBn / 2; ++i) acc[i] *= d_scale;
    }
}

/* alpha * acc (FUSED: then the fused ops) converted to the 16-bit output type, two values per register, in
 * fragment order: packed[2j + h] holds acc[4j + 2h] and acc[4j + 2h + 1] (row 8h of column group j, see
 * sm90_epilogue). Half the registers of the accumulators, so the tile can wait in registers while the next
 * tile's wgmmas write the accumulators. Rounds exactly as sm90_epilogue_tma does with beta == 0. p0, q0: the
 * first row and column of the consumer's 64-row slice. */
template <int kBn, int kOutType, int kFused>
static __device__ __forceinline__ void sm90_pack_tile(uint32_t (&packed)[kBn / 4], float (&acc)[kBn / 2],
                                                      const Sm90Params &prm, int p0, int q0, const float (&b)[kBn / 32],
                                                      float &amax)
{
    if constexpr (kFused) sm90_fused_tile<kBn, kOutType>(acc, prm, p0, q0, b, amax); /* acc: D's final values */
    const float alpha = kFused ? 1.0f : prm.alpha;
#pragma unroll
    for (int j = 0; j < kBn / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            packed[2 * j + h] = wsgemm_out_pack2<kOutType>(wsgemm_out_value(acc[4 * j + 2 * h], alpha, 0.0f, 0.0f),
                                                           wsgemm_out_value(acc[4 * j + 2 * h + 1], alpha, 0.0f, 0.0f));
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
template <int kBn>
static __device__ __forceinline__ void
sm90_store_packed_chunk(const uint32_t (&packed)[kBn / 4], int c, const Sm90PendingTile &t, int consumer,
                        const CUtensorMap *map_c, uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES], uint32_t &chunk_count)
{
    const int lane = threadIdx.x % 32;
    const int r = lane % 8, i = lane / 8;
    const int row = ((threadIdx.x / 32) % 4) * 16 + 8 * (i % 2) + r;
    const uint32_t barrier_id = 1 + (uint32_t)consumer;
    uint8_t *buf = sm90_chunk_acquire(bufs, chunk_count, barrier_id);
    const uint32_t row_smem = smem_u32(buf) + (uint32_t)row * 128;
#pragma unroll
    for (int cc = 0; cc < kBn / 64; ++cc) {
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
template <int kBn>
static __device__ __forceinline__ void
sm90_store_next_chunk(const uint32_t (&packed)[kBn / 4], Sm90PendingTile &t, int consumer, const CUtensorMap *map_c,
                      uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES], uint32_t &chunk_count)
{
    if (t.chunks_left == 0) return;
    sm90_store_packed_chunk<kBn>(packed, kBn / 64 - t.chunks_left, t, consumer, map_c, bufs, chunk_count);
    t.chunks_left--;
}

/* ---------------------------------------------------------------- STAGED */

/* The STAGED epilogue of one consumer's 64 x BN slice. bufs: its BN * kBytes / 128 chunk buffers, which hold
 * this tile's C (read_c: the producer loaded it and the caller waited for c_full) or the previous tile's
 * results (then the leader first waits until their TMA stores have read them). Each thread reads its
 * elements of C there, applies the output op, writes the result to the same place (the 128-byte swizzled
 * layout of the C map's boxes: 16-byte unit u of row r at u ^ (r % 8)), and the leader stores every chunk by
 * TMA as one bulk group; the caller goes on with the next tile's main loop while they run. */
template <int kBn, int kOutType>
static __device__ __forceinline__ void
sm90_epilogue_staged(const float (&acc)[kBn / 2], const Sm90Params &prm, const wsgemm_sched_unit &w, int consumer,
                     const CUtensorMap *map_c, uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES], bool read_c)
{
    constexpr int kBytes = wsgemm_out_bytes<kOutType>::value;
    constexpr int kChunkElems = 128 / kBytes; /* q elements per chunk row */
    constexpr int kChunks = kBn / kChunkElems;
    constexpr int kJPerChunk = kChunkElems / 8; /* fragment column groups (8 wide) per chunk */
    const int lane = threadIdx.x % 32;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    const uint32_t barrier_id = 1 + (uint32_t)consumer;
    const int row0 = warp_in_wg * 16 + lane / 4; /* p row inside the 64-row slice (and row0 + 8) */
    if (!read_c) { /* beta == 0: the buffers still hold the previous tile, maybe not yet stored */
        if (threadIdx.x % 128 == 0) bulk_wait_group_read<0>();
        named_barrier_sync(barrier_id, 128);
    }
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
#pragma unroll
        for (int jj = 0; jj < kJPerChunk; ++jj) {
            const int j = c * kJPerChunk + jj;
            const int byte = (8 * jj + 2 * (lane % 4)) * kBytes;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = row0 + 8 * h;
                uint8_t *at = bufs[c] + row * 128 + (((byte / 16) ^ (row % 8)) * 16) + byte % 16;
                const float2 old = read_c ? wsgemm_out_load2<kOutType>(at) : make_float2(0.0f, 0.0f);
                wsgemm_out_store2<kOutType>(at, wsgemm_out_value(acc[4 * j + 2 * h], prm.alpha, prm.beta, old.x),
                                            wsgemm_out_value(acc[4 * j + 2 * h + 1], prm.alpha, prm.beta, old.y));
            }
        }
    }
    fence_proxy_async_shared_cta(); /* these generic-proxy writes, before the TMA stores read them */
    named_barrier_sync(barrier_id, 128);
    if (threadIdx.x % 128 == 0) {
        const int p_tile = w.row * SM90_BM + consumer * 64, q_tile = w.col * kBn;
#pragma unroll
        for (int c = 0; c < kChunks; ++c)
            tma_store_3d(map_c, smem_u32(bufs[c]), q_tile + c * kChunkElems, p_tile, w.batch);
        bulk_commit_group();
    }
}

/* The STAGED epilogue for C's type: a kernel with a 2-byte C tile serves bf16 and fp16 C, one with a 4-byte
 * tile fp32 C. */
template <int kBn, int kCBytes>
static __device__ __forceinline__ void sm90_epilogue_staged_dispatch(const float (&acc)[kBn / 2], const Sm90Params &prm,
                                                                     const wsgemm_sched_unit &w, int consumer,
                                                                     const CUtensorMap *map_c,
                                                                     uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES], bool read_c)
{
    if constexpr (kCBytes == 4) {
        sm90_epilogue_staged<kBn, WSGEMM_R_32F>(acc, prm, w, consumer, map_c, bufs, read_c);
    } else {
        if (prm.out_type == WSGEMM_R_16BF)
            sm90_epilogue_staged<kBn, WSGEMM_R_16BF>(acc, prm, w, consumer, map_c, bufs, read_c);
        else
            sm90_epilogue_staged<kBn, WSGEMM_R_16F>(acc, prm, w, consumer, map_c, bufs, read_c);
    }
}

/* ---------------------------------------------------------------- partial tiles (the split region) */

/* Rows 64 half .. 64 half + 63 of a split-region unit's tile, fp32 as accumulated (no alpha, beta or
 * conversion: the reduction applies them to the sum), to its partial tile (Sm90Params.sk_part). The whole
 * tile is written, rows and columns past the matrix too (they hold zeros, TMA fills outside the operands
 * with zeros), so no element needs a bound check; the reduction reads only those inside C. With q
 * contiguous (sk_sq == 1) each thread writes its fragment's column pairs as float2, 32 bytes per row and
 * quad (whole sectors); otherwise p is contiguous and each group of 8 lanes writes 8 consecutive p. */
template <int kBn>
static __device__ __forceinline__ void sm90_store_partial(const float (&acc)[kBn / 2], const Sm90Params &prm,
                                                          const wsgemm_sched_unit &w, int half)
{
    const int lane = threadIdx.x % 32;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    const int p = half * 64 + warp_in_wg * 16 + lane / 4; /* tile row (and p + 8), as in sm90_epilogue */
    const int q = 2 * (lane % 4);
    float *tile = prm.sk_part + ((long long)w.slot * prm.sched.sk_splits + w.split) * (SM90_BM * kBn);
    /* element (p, q) of the thread's fragment; the others at constant or running offsets from it, so the
     * unrolled stores need no address of their own (at BN 192 those addresses made ptxas spill) */
    float *const at = tile + (long long)p * prm.sk_sp + (long long)q * prm.sk_sq;
    const long long down8 = 8LL * prm.sk_sp; /* row p + 8 */
    if (prm.sk_sq == 1) {
#pragma unroll
        for (int j = 0; j < kBn / 8; ++j) {
            *(float2 *)(at + 8 * j) = make_float2(acc[4 * j + 0], acc[4 * j + 1]);
            *(float2 *)(at + down8 + 8 * j) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
        }
    } else {
        const long long right = prm.sk_sq; /* column q + 1 */
        float *col = at;
#pragma unroll
        for (int j = 0; j < kBn / 8; ++j, col += 8 * right) {
            col[0] = acc[4 * j + 0];
            col[right] = acc[4 * j + 1];
            col[down8] = acc[4 * j + 2];
            col[down8 + right] = acc[4 * j + 3];
        }
    }
}

/* ---------------------------------------------------------------- dispatch */

/* The tile-end TMA-store epilogue of C's type kOutType; in a FUSED kernel the fused ops first, in place. */
template <int kBn, int kOutType, int kFused>
static __device__ __forceinline__ void
sm90_epilogue_tma_of(float (&acc)[kBn / 2], const Sm90Params &prm, const wsgemm_sched_unit &w, int half,
                     uint32_t barrier_id, const CUtensorMap *map_c, uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES],
                     uint32_t &chunk_count, const float (&b)[kBn / 32], float &amax)
{
    if constexpr (kFused) sm90_fused_tile<kBn, kOutType>(acc, prm, w.row * SM90_BM + half * 64, w.col * kBn, b, amax);
    sm90_epilogue_tma<kBn, kOutType, kFused>(acc, prm, w, half, barrier_id, map_c, bufs, chunk_count);
}

/* The tile's epilogue when it runs at the end of the tile in a kernel without a C tile (DIRECT or TMA;
 * DEFERRED packs and stores later, STAGED kernels call sm90_epilogue_staged_dispatch; see
 * sm90_consumer_loop), for C's type: rows 64 half .. 64 half + 63 of the tile, through the chunk buffers
 * and the named barrier of the warpgroup that computed them. FUSED kernels (whose plans never take DIRECT)
 * leave acc holding the stored values, and only they store an E4M3 D (128 elements per chunk row); b is their
 * tile's bias and amax their running maximum (sm90_fused_tile). */
template <int kBn, int kFused>
static __device__ __forceinline__ void
sm90_epilogue_tile_end(float (&acc)[kBn / 2], const Sm90Params &prm, const wsgemm_sched_unit &w, int half,
                       uint32_t barrier_id, const CUtensorMap *map_c, uint8_t (*bufs)[SM90_EPI_CHUNK_BYTES],
                       uint32_t &chunk_count, const float (&b)[kBn / 32], float &amax)
{
    constexpr int kByteOut = kFused ? WSGEMM_R_8F_E4M3 : WSGEMM_R_32F; /* no 1-byte code in the other kernels */
    if (kFused || prm.epilogue == WSGEMM_EPILOGUE_TMA) {
        if (prm.out_type == WSGEMM_R_16BF)
            sm90_epilogue_tma_of<kBn, WSGEMM_R_16BF, kFused>(acc, prm, w, half, barrier_id, map_c, bufs, chunk_count, b,
                                                             amax);
        else if (prm.out_type == WSGEMM_R_16F)
            sm90_epilogue_tma_of<kBn, WSGEMM_R_16F, kFused>(acc, prm, w, half, barrier_id, map_c, bufs, chunk_count, b,
                                                            amax);
        else if (kFused && prm.out_type == WSGEMM_R_8F_E4M3)
            sm90_epilogue_tma_of<kBn, kByteOut, kFused>(acc, prm, w, half, barrier_id, map_c, bufs, chunk_count, b,
                                                        amax);
        else
            sm90_epilogue_tma_of<kBn, WSGEMM_R_32F, kFused>(acc, prm, w, half, barrier_id, map_c, bufs, chunk_count, b,
                                                            amax);
    } else {
        if (prm.out_type == WSGEMM_R_16BF)
            sm90_epilogue<kBn, WSGEMM_R_16BF>(acc, prm, w, half);
        else if (prm.out_type == WSGEMM_R_16F)
            sm90_epilogue<kBn, WSGEMM_R_16F>(acc, prm, w, half);
        else
            sm90_epilogue<kBn, WSGEMM_R_32F>(acc, prm, w, half);
    }
}

#endif /* WSGEMM_SM90_EPILOGUE_CUH */
