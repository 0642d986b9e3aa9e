// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_grouped_kernel.cuh - the Hopper grouped GEMM kernel (TMA + wgmma), sm_90a.
 *
 * What it computes. The launcher (sm90_grouped.cu) maps wsgemm_gemm_grouped_ex grouped along M or N onto the
 * product D_g = P_g * Q_g^T of sm90_kernel.cuh, with P the GROUPED operand: along M, P = op(A) (the groups'
 * rows of A and C) and Q = op(B)^T; along N the roles swap, P = op(B)^T (the groups' columns of B and C) and
 * Q = op(A), so the grouped side is always P, tiled by SM90_BM = 128 rows. Both K-major (op(A) = A^T,
 * op(B) = B). D_g(p, q) is written to out + g out_group + p out_sp + q out_sq: rows p of group g's slice
 * [begin_g, end_g) of P, every q < q_extent. K is not grouped: every tile runs all of K.
 *
 * Roles (384 threads, one CTA per SM, persistent, no cluster):
 *   all threads             griddepcontrol.wait, then one scan of the sizes into the CTA's group table
 *                           (common/grouped.cuh's contract; CTA 0 writes the status)
 *   warpgroup 0 (warps 0-3) producer; setmaxnreg.dec to 40. One elected thread of warp 0 issues the TMA
 *                           copies of every K block of every work of this CTA, then launch_dependents.
 *   warpgroup 1, 2          consumers; setmaxnreg.inc to 232. Consumer w computes rows 64w..64w+63 of the
 *                           128 x BN tile with wgmma m64nBNk16, then stores them from registers, bounded by
 *                           the group's end and q_extent (alpha, beta; C read only when beta != 0).
 *
 * The scheduler. Group g keeping the contract has U_g = ceil((end_g - begin_g) / 128) units (tiles of P);
 * unit u of the grouping (group after group) times q_tiles = ceil(q_extent / BN) tiles of Q gives the works,
 * walked by CTA b as b, b + gridDim.x, ... (a static persistent order). Group g's U_g * q_tiles works start
 * at w = first_g * q_tiles, in bands of q_band tiles of Q (the plan's: a band of Q, the group's weights, fills
 * about a third of L2): band after band, and within a band P tile after P tile, the band's Q tiles
 * consecutive. So the CTAs of a wave that read one weight tile run together and share it through L2 however
 * large the group's weights are (every P tile of the group reads the band before the next band starts), and a
 * group of one P tile keeps the plain order, each Q tile once. The table holds first_g (the number of group
 * g's first unit), begin_g and end_g; the group of work w is the last g with first_g <= w / q_tiles (a binary
 * search: an empty or skipped group has first_g == first_{g+1}, so the search never stops on one while w is
 * below the total). Both roles decode each work on their own.
 *
 * Reading past a group. A P tile whose rows run past end_g reads rows of the next group (contiguous) or
 * stale rows of its own matrix (masked) into shared memory; TMA zero-fills only outside the whole matrix.
 * Those rows' sums are never stored: the epilogue stops at end_g. K and Q are the group's own.
 *
 * Barriers (kStages-deep ring, s = stage), the protocol of sm90_kernel.cuh without a cluster:
 *
 *   producer (1 thread)                               consumers (2 warpgroups)
 *     wait empty[s] (phase) -----------------+
 *     arrive.expect_tx full[s], stage bytes  |         wait full[s]
 *     TMA P, TMA Q --complete_tx--> full[s]  |         wgmma x 4 (K = 64), commit
 *                                            |         wait_group 1: the PREVIOUS stage is read
 *                                            +-------- arrive empty[prev]
 *
 *   full[s]  count 1 (the producer's arrive.expect_tx) + tx (128 + BN) x 64 x 2 bytes.
 *   empty[s] count 2: one arrival per consumer warpgroup.
 *
 * Shared memory (1024-byte aligned, the 128-byte swizzle atom):
 *   p[kStages][128 x 64 x 2 B], q[kStages][BN x 64 x 2 B]   K-major rows of 128 B
 *   full[kStages], empty[kStages]
 *   first[G], begin[G], end[G]   the group table, G <= SM90_GROUPED_MAX_GROUPS (the plan's bound)
 *   the scan's scratch
 */
#ifndef WSGEMM_SM90_GROUPED_KERNEL_CUH
#define WSGEMM_SM90_GROUPED_KERNEL_CUH

#include "common/grouped.cuh"
#include "sm90/sm90_grouped_plan.h"
#include "sm90/sm90_kernel.cuh"

/* Everything the kernel needs besides the tensor maps of P and Q. */
typedef struct Sm90GroupedParams {
    GroupedSizes g;           /* along P: the extent is P's rows per matrix */
    int q_extent, k;          /* k > 0 (the plan declines the calls without a product) */
    int q_tiles;              /* ceil(q_extent / BN) */
    int q_band;               /* 1 .. q_tiles: the Q tiles each P tile of a group reads before the next band */
    int p_batched, q_batched; /* 1: the map's third coordinate is the group; 0: always 0 */
    void *out;                /* D_g(p, q) at out + (g * out_group + p * out_sp + q * out_sq) elements */
    long long out_sp, out_sq, out_group;
    int out_type; /* wsgemm_dtype of C */
    float alpha, beta;
    int *status; /* NULL: none; else CTA 0 writes WSGEMM_GROUPED_SIZES_OK or the first bad group + 1 */
} Sm90GroupedParams;

template <int kBn, int kStages>
struct Sm90GroupedSmem {
    uint8_t p[kStages][SM90_BM * SM90_BK * 2];
    uint8_t q[kStages][kBn * SM90_BK * 2];
    uint64_t full[kStages];
    uint64_t empty[kStages];
    long long first[SM90_GROUPED_MAX_GROUPS]; /* the group's first unit */
    int begin[SM90_GROUPED_MAX_GROUPS];       /* its slice of P's rows */
    int end[SM90_GROUPED_MAX_GROUPS];
    GroupedScanSmem<SM90_THREADS> scan;
};

/* One work of the static schedule, decoded from the group table. */
struct Sm90GroupedWork {
    int group;
    int p0, p_end; /* the tile's first row of P, and the group's end (rows from p_end on are not its) */
    int q0;
};

template <int kBn, int kStages>
static __device__ __forceinline__ Sm90GroupedWork sm90_grouped_decode(const Sm90GroupedSmem<kBn, kStages> *sm,
                                                                      const Sm90GroupedParams &prm, long long w)
{
    const long long unit = w / prm.q_tiles;
    int lo = 0, hi = prm.g.group_count - 1; /* the last group whose first unit is <= unit */
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (sm->first[mid] <= unit)
            lo = mid;
        else
            hi = mid - 1;
    }
    /* the group's works: bands of q_band Q tiles (the last one `width` wide), P tile after P tile in each */
    const long long local = w - sm->first[lo] * prm.q_tiles;
    const int p_tiles = (sm->end[lo] - sm->begin[lo] + SM90_BM - 1) / SM90_BM;
    const long long per_band = (long long)p_tiles * prm.q_band;
    const int band = (int)(local / per_band);
    const int in_band = (int)(local - band * per_band);
    const int width = min(prm.q_band, prm.q_tiles - band * prm.q_band);
    Sm90GroupedWork r;
    r.group = lo;
    r.p0 = sm->begin[lo] + in_band / width * SM90_BM;
    r.p_end = sm->end[lo];
    r.q0 = (band * prm.q_band + in_band % width) * kBn;
    return r;
}

/* ---------------------------------------------------------------- producer */

template <int kBn, int kStages>
static __device__ __forceinline__ void
sm90_grouped_producer(Sm90GroupedSmem<kBn, kStages> *sm, const PipelineRing *ring, const CUtensorMap *map_p,
                      const CUtensorMap *map_q, const Sm90GroupedParams &prm, long long works)
{
    constexpr uint32_t kStageBytes = (SM90_BM + kBn) * SM90_BK * 2;
    const int k_blocks = (prm.k + SM90_BK - 1) / SM90_BK;
    PipelineState st = pipeline_producer_start();
    for (long long w = blockIdx.x; w < works; w += gridDim.x) {
        const Sm90GroupedWork t = sm90_grouped_decode(sm, prm, w);
        const int bp = prm.p_batched ? t.group : 0;
        const int bq = prm.q_batched ? t.group : 0;
        for (int kb = 0; kb < k_blocks; ++kb) {
            producer_acquire(ring, st);
            producer_arrive_expect_tx(ring, st, kStageBytes);
            const uint32_t bar = smem_u32(&sm->full[st.stage]);
            tma_load_3d(smem_u32(sm->p[st.stage]), map_p, bar, kb * SM90_BK, t.p0, bp);
            tma_load_3d(smem_u32(sm->q[st.stage]), map_q, bar, kb * SM90_BK, t.q0, bq);
            pipeline_state_advance(&st, kStages);
        }
    }
}

/* ---------------------------------------------------------------- consumers */

/* Rows 64 half .. 64 half + 63 of the tile (acc: the wgmma m64nBNk16 fragment, sm90_epilogue's layout) through
 * the shared output op, each element only where p < p_end and q < q_extent; a pair of columns as one vector
 * where they are adjacent in memory and aligned. */
template <int kBn, int kOutType>
static __device__ __forceinline__ void sm90_grouped_store(const float (&acc)[kBn / 2], const Sm90GroupedParams &prm,
                                                          const Sm90GroupedWork &t, int half)
{
    constexpr int kBytes = wsgemm_out_bytes<kOutType>::value;
    const int lane = threadIdx.x % 32;
    const int warp_in_wg = (threadIdx.x / 32) % 4;
    const int p_first = t.p0 + half * 64 + warp_in_wg * 16 + lane / 4;
    const int q_base = t.q0 + 2 * (lane % 4);
    uint8_t *base = (uint8_t *)prm.out + (long long)t.group * prm.out_group * kBytes;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int p = p_first + 8 * r;
        if (p >= t.p_end) continue;
        uint8_t *row = base + (long long)p * prm.out_sp * kBytes;
#pragma unroll
        for (int j = 0; j < kBn / 8; ++j) {
            const int q = q_base + 8 * j;
            if (q >= prm.q_extent) continue;
            const float v0 = acc[4 * j + 2 * r], v1 = acc[4 * j + 2 * r + 1];
            uint8_t *ptr = row + (long long)q * prm.out_sq * kBytes;
            const bool second = q + 1 < prm.q_extent;
            if (second && prm.out_sq == 1 && ((uintptr_t)ptr % (2 * kBytes)) == 0) {
                wsgemm_out_apply2<kOutType>(ptr, v0, v1, prm.alpha, prm.beta);
                continue;
            }
            wsgemm_out_apply<kOutType>(ptr, v0, prm.alpha, prm.beta);
            if (second) wsgemm_out_apply<kOutType>(ptr + prm.out_sq * kBytes, v1, prm.alpha, prm.beta);
        }
    }
}

template <int kBn, int kStages, int kIn>
static __device__ __forceinline__ void sm90_grouped_consumer(Sm90GroupedSmem<kBn, kStages> *sm,
                                                             const PipelineRing *ring, const Sm90GroupedParams &prm,
                                                             long long works, int consumer)
{
    float acc[kBn / 2];
#pragma unroll
    for (int i = 0; i < kBn / 2; ++i) acc[i] = 0.0f; /* each tile's first wgmma ignores them (scale-d 0) */
    const bool signals = threadIdx.x % 128 == 0;     /* one release per warpgroup */
    const int k_blocks = (prm.k + SM90_BK - 1) / SM90_BK;
    PipelineState st = pipeline_consumer_start();
    for (long long w = blockIdx.x; w < works; w += gridDim.x) {
        const Sm90GroupedWork t = sm90_grouped_decode(sm, prm, w);
        PipelineState prev = st;
        for (int kb = 0; kb < k_blocks; ++kb) {
            consumer_wait(ring, st);
            const uint64_t a_desc = sm90_operand_desc<0>(smem_u32(sm->p[st.stage]) + consumer * 8192);
            const uint64_t b_desc = sm90_operand_desc<0>(smem_u32(sm->q[st.stage]));
            wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < SM90_BK / 16; ++ks) /* scale-d 0 on the tile's first: no clear */
                sm90_mma<kBn, 0, 0, kIn>(acc, a_desc + sm90_k_step<0>(ks), b_desc + sm90_k_step<0>(ks),
                                         (kb != 0 || ks != 0) ? 1 : 0);
            wgmma_commit_group();
            if (kb != 0) {
                wgmma_wait_group<1>(); /* the previous stage has been read */
                if (signals) consumer_release(ring, prev);
            }
            prev = st;
            pipeline_state_advance(&st, kStages);
        }
        wgmma_wait_group<0>();
        if (signals) consumer_release(ring, prev);
#pragma unroll
        for (int i = 0; i < kBn / 2; ++i) wgmma_fence_operand(acc[i]);
        if (prm.out_type == WSGEMM_R_32F)
            sm90_grouped_store<kBn, WSGEMM_R_32F>(acc, prm, t, consumer);
        else if (prm.out_type == WSGEMM_R_16BF)
            sm90_grouped_store<kBn, WSGEMM_R_16BF>(acc, prm, t, consumer);
        else
            sm90_grouped_store<kBn, WSGEMM_R_16F>(acc, prm, t, consumer);
    }
}

/* ---------------------------------------------------------------- the kernel */

template <int kBn, int kStages, int kIn>
__global__ void __launch_bounds__(SM90_THREADS, 1)
    sm90_grouped_kernel(const __grid_constant__ CUtensorMap map_p, const __grid_constant__ CUtensorMap map_q,
                        const __grid_constant__ Sm90GroupedParams prm)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    static_assert(kIn == SM90_IN_BF16 || kIn == SM90_IN_F16, "16-bit inputs");
    extern __shared__ uint8_t smem_raw[];
    /* the swizzle pattern is a function of the smem address: every stage must start 1024-aligned */
    Sm90GroupedSmem<kBn, kStages> *sm =
        (Sm90GroupedSmem<kBn, kStages> *)(((uintptr_t)smem_raw + SM90_SWIZZLE_ATOM - 1) &
                                          ~(uintptr_t)(SM90_SWIZZLE_ATOM - 1));
    const int warp = threadIdx.x / 32;
    const PipelineRing ring = {sm->full, sm->empty, kStages, WAIT_CTA, WAIT_CTA, "sm90g.full", "sm90g.empty"};
    if (threadIdx.x == 0) {
        pipeline_init(&ring, 1, 2);     /* full: the producer's arrive.expect_tx; empty: both consumers */
        fence_mbarrier_init();          /* the inits are visible to the other threads ... */
        fence_proxy_async_shared_cta(); /* ... and to TMA complete_tx on this CTA's barriers */
    }
    if (warp == 0) {
        tma_prefetch_tensormap(&map_p);
        tma_prefetch_tensormap(&map_q);
    }
    /* programmatic dependent launch (common/pdl.cuh): the sizes, A, B and C are read after the previous
     * kernel is done; everything above is the prologue */
    wsgemm_pdl_wait();

    /* the group table: every thread takes part in the scan (its block-wide steps hold __syncthreads) */
    wsgemm_grouped_scan_begin<SM90_THREADS>(prm.g, sm->scan);
    for (int base = 0; base < prm.g.group_count; base += SM90_THREADS) {
        const GroupedChunkEntry e = wsgemm_grouped_chunk_scan<SM90_THREADS, SM90_BM>(prm.g, base, sm->scan);
        if (e.here) {
            sm->first[e.group] = e.first;
            sm->begin[e.group] = e.begin;
            sm->end[e.group] = e.end;
        }
        wsgemm_grouped_chunk_end<SM90_THREADS>(sm->scan, e); /* its barriers publish the entries too */
    }
    const long long works = sm->scan.carry_sum * prm.q_tiles;
    if (blockIdx.x == 0 && threadIdx.x == 0 && prm.status) {
        const int first_bad = sm->scan.first_bad;
        *prm.status = first_bad < prm.g.group_count ? first_bad + 1 : WSGEMM_GROUPED_SIZES_OK;
    }

    if (warp < 4) {
        setmaxnreg_dec<SM90_PRODUCER_REGS>();
        if (warp == 0) {
            if (elect_one_sync()) {
                sm90_grouped_producer<kBn, kStages>(sm, &ring, &map_p, &map_q, prm, works);
                wsgemm_pdl_launch_dependents(); /* the CTA's last load is issued */
            }
            __syncwarp();
        }
    } else {
        setmaxnreg_inc<SM90_CONSUMER_REGS>();
        sm90_grouped_consumer<kBn, kStages, kIn>(sm, &ring, prm, works, warp / 4 - 1);
    }
#endif
}

/* Host-visible facts about one instantiation. */
typedef struct Sm90GroupedKernelInfo {
    const void *fn;
    int smem_bytes;
    int bn, stages, in;
} Sm90GroupedKernelInfo;

template <int kBn, int kStages, int kIn>
static Sm90GroupedKernelInfo sm90_grouped_kernel_info(void)
{
    static_assert(sizeof(Sm90GroupedSmem<kBn, kStages>) + SM90_SWIZZLE_ATOM <= 227 * 1024,
                  "ring + group table + alignment slack must fit the 227 KB a block may opt into");
    static_assert(kBn == 128 || kBn == 256, "BN 128 or 256");
    Sm90GroupedKernelInfo info;
    info.fn = (const void *)sm90_grouped_kernel<kBn, kStages, kIn>;
    info.smem_bytes = (int)sizeof(Sm90GroupedSmem<kBn, kStages>) + SM90_SWIZZLE_ATOM;
    info.bn = kBn;
    info.stages = kStages;
    info.in = kIn;
    return info;
}

#endif /* WSGEMM_SM90_GROUPED_KERNEL_CUH */
