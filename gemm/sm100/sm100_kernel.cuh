// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/sm100_kernel.cuh - the Blackwell path's kernel: a persistent, warp-specialized TMA + tcgen05
 * (UMMA) GEMM whose teardown is the TMEM dealloc barrier (sync/dealloc_barrier.cuh). Device code; included
 * once, by its launcher (sm100_launch.cu).
 *
 * What it computes: C = alpha * op(A) * op(B) + beta * C, column-major, fp32 accumulation in Tensor
 * Memory, bf16 or f16 in (tcgen05.mma kind::f16) or FP8 E4M3/E5M2 in (kind::f8f6f4), bf16 / f16 / f32
 * out, any m, n, k (TMA zero-fills the edges, the epilogue predicates its stores), both ops of A and B
 * (K-major or MN-major operands through the descriptor major bits), strided batch. With wsgemm_matmul's
 * fused output op (gemm/common/epilogue.cuh: operand and output scales, C other than D, bias, ReLU/GELU,
 * aux, amax, an E4M3 D) the epilogue applies that op in place of alpha/beta. A stage is 128 bytes of K
 * whatever the input: 64 16-bit or 128 FP8 elements, four instructions of 32 bytes of K each, so the ring,
 * the swizzle and the descriptors are the same for both kinds; only the tensor maps' element size, the
 * instruction's kind and its instruction descriptor differ (run-time parameters, one kernel for both). What TMA
 * cannot address (a leading dimension or batch stride that is not a multiple of 16 bytes, a base address not 16-byte
 * aligned, overlapping batch members) is copied into
 * the workspace first (gemm/common/staging.h, the same copy as the sm90 path's), so the path runs it.
 *
 * Three rooms: this kernel; the plan (sm100_plan.c: cta_group, split-K, grid from the co-resident
 * clusters, epilogue, staging, workspace; CPU-tested against a model of the B200); the launcher
 * (sm100_launch.cu: plan -> reserve -> stage -> encode -> launch [-> split-K reduction], through the launch
 * skeleton the fast paths share).
 *
 * One source, two builds (gemm/CMakeLists.txt):
 *   sm_100a, WSGEMM_TMEM_HARDWARE=1 : wsgemm_sm100_available / _gemm (real tcgen05);
 *   sm_90a,  WSGEMM_TMEM_EMULATION=1: wsgemm_sm100_emulated_available / _gemm (emu/, through
 *                                      emu/emulation.cuh, emulates TMEM and the tensor core behind the
 *                                      tmem/tmem.cuh API; TMA, mbarriers, clusters run natively).
 * The only difference in this file between the two is marked "EMULATION:" (the 2-CTA TMA completion,
 * which sm_90 cannot direct at the peer's barrier); the launcher adds the emulation's host set-up and leak
 * query.
 *
 * Mapping of the column-major problem onto UMMA (D[M x N] += A[M x K] * B[N x K]^T):
 *   UMMA M = GEMM m (rows of C = TMEM lanes), UMMA N = GEMM n (columns of C = TMEM columns), K = k.
 *   A operand = op(A): transa T -> A is stored k x m, K contiguous: K-major;
 *                      transa N -> A is stored m x k, M contiguous: MN-major.
 *   B operand = op(B)^T: transb N -> B is stored k x n, K contiguous: K-major;
 *                        transb T -> B is stored n x k, N contiguous: MN-major.
 *
 * Roles (192 threads, one CTA per SM, persistent over tiles):
 *   warp 0     TMA producer: one elected lane loads A and B k-blocks into the smem ring.
 *   warp 1     MMA warp: allocates 512 TMEM columns (2 accumulators x 256), one elected lane issues
 *              tcgen05.mma (4 per k-block: K = 16 16-bit or 32 FP8 elements each) and tcgen05.commit; at
 *              the end complete_dealloc.
 *   warps 2-5  epilogue: warp w reads TMEM lane quarter w % 4 (quarters 2, 3, 0, 1: all four covered),
 *              one accumulator row per thread, 32 columns per tcgen05.ld, then the shared output op
 *              (gemm/common/epilogue.cuh). The plan's epilogue kind: DIRECT stores per element; TMA and
 *              STAGED write each warp's 32 x 32 chunk into shared memory and store it by TMA (STAGED, for
 *              beta != 0, first loads the chunk's C by TMA, ahead of use). The stores run behind the next
 *              chunk and, after acc_empty, behind the next tile's MMAs on the other accumulator.
 *
 * Tiles. cta_group 1: a CTA computes 128 x 256 tiles of C. cta_group 2 (clusters of 2, ranks 0 and 1):
 * the pair computes a 256 x 256 tile; CTA r loads rows 128r..128r+127 of the A tile and rows
 * 128r..128r+127 of the B tile (N/2) at IDENTICAL smem offsets; only rank 0 (the leader) issues
 * tcgen05.mma.cta_group::2 with M = 256, and each CTA's TMEM receives its own 128 rows x 256 columns.
 * Tile order: gemm/common/scheduler.cuh (shared with sm90): units in grouped order for L2 reuse, cluster
 * c of C takes units c, c + C, ... (static, so results never depend on timing). A split-K plan makes each
 * unit one split's K blocks of a tile; the kernel writes that split's fp32 partials, and
 * gemm/common/splitk_reduce.cuh adds them in split order into C.
 *
 * Block-scaled MXFP8 (kMx: sm100_mx_gemm_kernel, bf16 D, the static schedule): tcgen05.mma kind::mxf8f6f4
 * .block_scale on 128 x 192 tiles (a pair: 256 x 192; two 192-column accumulators leave TMEM columns 384-511 for
 * one scale slot per stage, 4 stages); each stage also holds the k-block's UE8M0 factors (A's 512-byte chunk of
 * this CTA's rows, B's two of the tile, in each CTA of a pair), loaded by TMA on full[s] with the operands; after
 * the full[s] wait the MMA lane copies them into the stage's slot (tcgen05.cp) and issues the four scaled MMAs with
 * scale factor IDs 0..3. The barriers and the teardown are the ones below (docs/sm100.md, "Block-scaled MXFP8").
 *
 * ---------------------------------------------------------------- barriers (count: who arrives)
 *
 *   cta_group 1 (one CTA)
 *
 *   TMA lane --arrive_expect_tx + complete_tx--> full[s]  (count 1) --wait--> MMA lane
 *   MMA lane --tcgen05.commit------------------> empty[s] (count 1) --wait--> TMA lane
 *   MMA lane --tcgen05.commit (last k-block)---> acc_full[a]  (count 1)   --wait--> 128 epilogue thr.
 *   128 epilogue threads --arrive (after last ld)--> acc_empty[a] (count 128) --wait--> MMA lane
 *   128 epilogue threads --signal_complete------> dealloc (count 128) --wait--> MMA warp: dealloc
 *   epilogue warp w's lane 0 --arrive_expect_tx + TMA load of C--> c_full[w][b] (count 1) --wait--> warp w
 *                                            (STAGED only; per CTA in either cta_group; buffer b is reloaded
 *                                            after cp.async.bulk.wait_group.read of its last TMA store)
 *
 *   cta_group 2 (CTA pair; L = rank 0 leader, P = rank 1 peer; "both" = the barrier in each CTA)
 *
 *                          in L                     in P
 *   full[s]      count     1                        1 (unused on hardware)   EMULATION: L 2, P 1
 *     arrivals             L's TMA lane: arrive_expect_tx(2 x stage bytes)
 *                          complete_tx of L's copies and of P's copies (.cta_group::2 directs P's
 *                          TMA at L's barrier)
 *     waiter               L's MMA lane
 *   empty[s]     count     1                        1
 *     arrivals             L's commit, multicast 0b11: one arrival in each CTA
 *     waiter               L's TMA lane             P's TMA lane
 *   acc_full[a]  count     1                        1
 *     arrivals             L's commit after the last k-block, multicast 0b11
 *     waiter               L's 128 epilogue thr.    P's 128 epilogue threads
 *   acc_empty[a] count     256                      (unused)
 *     arrivals             128 local arrivals from L's epilogue + 128 remote from P's epilogue
 *     waiter               L's MMA lane
 *   dealloc      count     256                      256
 *     arrivals             signal_complete of every epilogue thread: peer first, then self, so each
 *                          CTA's barrier counts 128 own + 128 peer arrivals
 *     waiter               L's MMA warp             P's MMA warp (then tcgen05.dealloc in both)
 *
 *   EMULATION (sm_90a): a TMA on sm_90 completes only on a barrier of its own CTA, so P's copies
 *   complete on P's full[s] (P's TMA lane arrive_expect_tx(stage bytes), count 1) and P's TMA lane
 *   waits on it and forwards one remote arrival to L's full[s]; L's full[s] then counts 2 (L's
 *   arrive_expect_tx of its own bytes + P's forward). Same guarantee, one hop longer, and the same
 *   happens-before edges: the forward comes from the lane that issued the copies, never from P's MMA
 *   warp, so it cannot order P's alloc before L's MMAs in place of cluster sync (3).
 *
 * ---------------------------------------------------------------- set-up and teardown
 *
 *   thread 0: init every barrier above, fence.mbarrier_init (cluster)
 *   all threads: cluster_sync  (1) the peer's barriers exist before any remote arrive, multicast
 *                                  commit or TMA complete_tx reaches them, and the peer CTA runs before
 *                                  the collective tcgen05.alloc.cta_group::2
 *   MMA warp: tcgen05.alloc(512) -> slot in smem; fence::before_thread_sync
 *   MMA warp + 4 epilogue warps: named barrier 1 (160 threads)  (2) TMEM address published to the
 *                                  epilogue warps, also in a CTA that gets zero tiles: the MMA warp
 *                                  bar.arrive's (it wrote the slot), the epilogue warps bar.sync; then
 *                                  fence::after_thread_sync and everyone reads the slot
 *   cta_group 2, all threads: cluster_sync  (3) both CTAs' columns are allocated before the leader's
 *                                  first MMA writes the peer's TMEM, and before either CTA could free
 *                                  (the dealloc barrier alone would also order the frees: a peer's
 *                                  epilogue signals only after it got the address, i.e. after its alloc)
 *   ... persistent tile loops of the three roles ...
 *   TMA lane: producer_tail = one more empty wait per stage: every commit (possibly multicast from
 *             the leader) that will arrive on this CTA's barriers has arrived, and no stage of this
 *             CTA is still read by the leader's tensor core, before this CTA may exit (the emulation
 *             checks it at tmem_cta_exit, the kernel's last statement).
 *   epilogue thread: after its last tcgen05.ld + wait::ld: fence::before_thread_sync, signal_complete
 *   MMA warp: complete_dealloc = relinquish_alloc_permit, wait dealloc barrier (cluster scope for the
 *             pair), fence::after_thread_sync, tcgen05.dealloc(512). Neither CTA of a pair frees its
 *             TMEM before both epilogues are done with it.
 *
 * Fences (PTX ISA "tcgen05 memory consistency"): the MMA lane issues fence::after_thread_sync after
 * each full[s] / acc_empty[a] wait and before the MMAs that depend on it; the epilogue issues
 * fence::after_thread_sync after acc_full[a] and fence::before_thread_sync before its acc_empty and
 * dealloc arrivals. tcgen05.commit implies fence::before_thread_sync on the MMA side.
 *
 * Knobs: the tuning ones (WSGEMM_SM100_CTA_GROUP, _CTAS, _GROUP, _SPLITK, _EPILOGUE, _DEBUG) are read once by
 * gemm/common/knobs.c and act through the plan (docs/tuning.md). Two verification switches of the emulated
 * build are read by the launcher on every call:
 *   WSGEMM_SM100_EMU_DELAY_NS=t  random delays up to t ns in emulated TMEM operations
 *   WSGEMM_SM100_FAULT=early_dealloc|missing_peer_signal   plant a teardown bug: the MMA warp frees TMEM
 *                                without waiting on the dealloc barrier, or the epilogue skips signal_peer
 *                                (and the count drops to 128 so it does not simply hang). tests/sm100 proves
 *                                the emulation checker catches both. Only where SM100_PLANTED_FAULTS is 1.
 */
#ifndef WSGEMM_SM100_KERNEL_CUH
#define WSGEMM_SM100_KERNEL_CUH

#include <cuda.h> /* CUtensorMap (a type only; libcuda is not linked: gemm/common/tma.c) */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#if defined(WSGEMM_TMEM_EMULATION)
#include "emu/emulation.cuh" /* first: the hooks sync/ reports to and the TMEM backend (sm_90a build) */
#endif
#include "common/epilogue.cuh"
#include "common/pdl.cuh"
#include "common/scheduler.cuh"
#include "common/tma.cuh"
#include "sm100/sm100_plan.h"
#include "sync/clc.cuh"
#include "sync/cluster.cuh"
#include "sync/dealloc_barrier.cuh"
#include "sync/elect.cuh"
#include "sync/mbarrier.cuh"
#include "sync/named_barrier.cuh"
#include "sync/pipeline.cuh"
#include "sync/wait.cuh"
#include "tmem/dealloc_barrier_tmem.cuh"
#include "tmem/desc.h"
#include "tmem/tmem.cuh"

#if !defined(WSGEMM_TMEM_HARDWARE) && !defined(WSGEMM_TMEM_EMULATION)
#error "sm100_kernel.cuh is built with WSGEMM_TMEM_HARDWARE=1 (sm_100a) or WSGEMM_TMEM_EMULATION=1 (sm_90a)"
#endif
#if defined(WSGEMM_TMEM_EMULATION)
#define SM100_EMULATION 1
#else
#define SM100_EMULATION 0
#endif
/* The planted teardown faults (tests/sm100 proves the emulation's checker catches them): compiled only into
 * the emulated kernel of the verification library, and only with WSGEMM_PLANTED_FAULTS (CMake option). */
#if defined(WSGEMM_TMEM_EMULATION) && defined(WSGEMM_PLANTED_FAULTS)
#define SM100_PLANTED_FAULTS 1
#else
#define SM100_PLANTED_FAULTS 0
#endif

namespace
{

/* ---------------------------------------------------------------- constants */

constexpr int kBlockM = 128;       /* A rows per CTA = TMEM lanes = accumulator rows per CTA */
constexpr int kBlockN = 256;       /* accumulator columns per tile (UMMA N); the MX kernel's: Config::kBlockN */
constexpr int kSwizzleBytes = 128; /* CU_TENSOR_MAP_SWIZZLE_128B / UMMA_SWIZZLE_128B */
constexpr int kStageKBytes = kSwizzleBytes; /* K per stage and operand row: one 128-byte swizzle row */
constexpr int kUmmaKBytes = 32; /* K bytes per instruction: 16 16-bit elements (kind::f16), 32 FP8 (f8f6f4) */
constexpr int kUmmasPerStage = kStageKBytes / kUmmaKBytes;
constexpr int kSwizzleAtomBytes = 8 * kSwizzleBytes; /* 8 rows of 128 B: the 1024-B alignment unit */
constexpr int kMinRowElems = kSwizzleBytes / 2;      /* elements per 128-B row: 64 (16-bit) or 128 (FP8) */
constexpr int kMaxRowElems = kSwizzleBytes / 1;
constexpr int kAccStages = 2;
constexpr int kTmemCols = kAccStages * kBlockN; /* 512: the whole TMEM of the SM */
constexpr int kEpilogueWarps = 4;
constexpr int kEpilogueThreads = kEpilogueWarps * 32;
constexpr int kTmaWarp = 0;
constexpr int kMmaWarp = 1;
constexpr int kFirstEpilogueWarp = 2;
constexpr int kThreads = (kFirstEpilogueWarp + kEpilogueWarps) * 32; /* 192 */
constexpr int kEpilogueChunk = 32;                                   /* columns per tcgen05.ld.32x32b.x32 */
constexpr int kCWarpBytes = 8192; /* each epilogue warp's chunk buffers: 2 fp32 or 4 16-bit chunks of 32 x 32 */
constexpr int kCMaxBuffers = kCWarpBytes / (32 * kEpilogueChunk * 2);
constexpr uint32_t kTmemAddrBarrier = 1;                     /* named barrier id (0 is __syncthreads) */
constexpr uint32_t kTmemAddrThreads = 32 + kEpilogueThreads; /* MMA warp + epilogue warps */
constexpr int kSmemLimit = 227 * 1024;

static_assert(kBlockM == SM100_BM && kBlockN == SM100_BN && SM100_BK * 2 == kStageKBytes &&
                  SM100_BK_FP8 == kStageKBytes,
              "the planner's tile (sm100_plan.h): 128 bytes of K per stage");
static_assert(UMMA_F16_K * 2 == kUmmaKBytes && UMMA_F8F6F4_K * 1 == kUmmaKBytes, "32 bytes of K per instruction");
static_assert(kStageKBytes % kUmmaKBytes == 0, "whole UMMA K steps per stage");
static_assert(kMinRowElems % 8 == 0, "MN-major: K rows come in 8-row groups (SBO steps)");
static_assert(TMEM_NCOLS_IS_LEGAL(kTmemCols), "tcgen05.alloc takes a power of two in [32, 512]");
static_assert(kTmemCols <= TMEM_COLUMNS, "two 256-column accumulators fill TMEM exactly");
static_assert(kEpilogueWarps == 4, "four epilogue warps: one per TMEM lane quarter (warp % 4)");
static_assert(kFirstEpilogueWarp + kEpilogueWarps == kThreads / 32, "warp roles cover the CTA");
static_assert(kBlockN % kEpilogueChunk == 0, "the epilogue reads whole 32-column chunks");
static_assert(kCWarpBytes % (32 * kEpilogueChunk * 4) == 0 && kCWarpBytes / (32 * kEpilogueChunk * 4) >= 2,
              "at least two fp32 chunks per warp: one is filled while the other's TMA store reads");
static_assert(kEpilogueThreads == (int)DEALLOC_BARRIER_EPILOGUE_THREADS,
              "dealloc barrier counts every epilogue thread");
/* The block-scaled (MX) kernel's TMEM beside its two accumulators: one scale slot per stage, 32 columns apart (a
 * happens-before cell each: emu/hb.h), holding A's chunk of factors at +0 and B's at +4, +8 (tmem/desc.h). */
constexpr int kSfSlotCols = 32;
constexpr int kSfBChunks = (SM100_BN_MX + UMMA_SF_CHUNK_ROWS - 1) / UMMA_SF_CHUNK_ROWS;
static_assert(UMMA_SF_CHUNK_COLS * (1 + kSfBChunks) <= kSfSlotCols, "A's and B's chunks fit one scale slot");

/* The kernel of cta_group kCtaGroup; kMx: the block-scaled MXFP8 one (sm100_plan.h, SM100_SCALES_MX), with N =
 * SM100_BN_MX, the k-block's scale factors loaded with its stage and copied into the stage's scale slot. */
template <int kCtaGroup, bool kMx = false>
struct Config {
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
    static constexpr int kBlockN = kMx ? (int)SM100_BN_MX : (int)SM100_BN; /* accumulator columns per tile (UMMA N) */
    static constexpr int kTileM = kBlockM * kCtaGroup;                     /* rows of C per (pair) tile = UMMA M */
    static constexpr int kBRows = kBlockN / kCtaGroup;                     /* rows of B (N) this CTA loads per stage */
    static constexpr int kABytes = kBlockM * kStageKBytes;                 /* 16 KB */
    static constexpr int kBBytes = kBRows * kStageKBytes; /* 32 KB (cg 1) / 16 KB (cg 2); MX 24 / 12 KB */
    /* MX: the k-block's factors, A's chunk of this CTA's 128 rows and B's chunks of the whole tile (in each CTA of a
     * pair: the pair's tcgen05.cp copies each CTA's shared memory into its own TMEM) */
    static constexpr int kSfABytes = kMx ? UMMA_SF_CHUNK_BYTES : 0;
    static constexpr int kSfBBytes = kMx ? kSfBChunks * UMMA_SF_CHUNK_BYTES : 0;
    static constexpr int kSfBytes = kSfABytes + kSfBBytes;
    static constexpr int kStageBytes = kABytes + kBBytes + kSfBytes; /* bytes THIS CTA's TMA lands per stage */
    /* as many as fit in 227 KB beside the C chunks; MX: one TMEM scale slot per stage beside the accumulators */
    static constexpr int kStages = kMx ? SM100_MX_STAGES : kCtaGroup == 1 ? 4 : 6;
    static constexpr int kSfSlotCol = kAccStages * kBlockN; /* MX: slot s at kSfSlotCol + kSfSlotCols s */
    /* full[s] arrivals: the local TMA lane; EMULATION with a pair: the leader also receives P's relay */
    static __device__ __forceinline__ uint32_t full_count(uint32_t rank)
    {
        return (SM100_EMULATION && kCtaGroup == 2 && rank == 0) ? 2u : 1u;
    }
    /* bytes the leader's full[s] expects: on hardware both CTAs' copies complete there */
    static constexpr uint32_t kLeaderTxBytes = SM100_EMULATION ? kStageBytes : kStageBytes * kCtaGroup;
    static constexpr uint32_t kAccEmptyCount = kEpilogueThreads * kCtaGroup;

    static_assert(UMMA_F16_SHAPE_IS_LEGAL(kCtaGroup, kTileM, kBlockN),
                  "legal tcgen05.mma kind::f16 shape (kind::f8f6f4 and mxf8f6f4 have the same M and N)");
    static_assert(!kMx || kSfSlotCol + kStages * kSfSlotCols <= kTmemCols,
                  "MX: two accumulators and a scale slot per stage fit the 512 columns");
    static_assert(kBlockN % kEpilogueChunk == 0, "the epilogue reads whole 32-column chunks");
    static_assert(kCtaGroup == 1 || kTileM == 256, "cta_group::2 uses M = 256 (M = 128 folds the layout)");
    static_assert(kABytes % kSwizzleAtomBytes == 0 && kBBytes % kSwizzleAtomBytes == 0,
                  "every stage starts on a 1024-B boundary (SW128 atoms, descriptor base offset 0)");
    static_assert(kBRows <= 256 && kBlockM <= 256, "a TMA box dimension is at most 256");
    static_assert(kMx || (kBRows % kMaxRowElems == 0 && kBlockM % kMaxRowElems == 0),
                  "MN-major tiles are whole 128-byte-wide boxes (64 16-bit or 128 FP8 elements); the MX kernel "
                  "reads K-major operands only (the plan copies MN-major ones)");
    static_assert(kStages >= 4, "at least four stages in the smem ring");
};

/* ---------------------------------------------------------------- shared memory */

/* MX: the stages' scale factors as TMA lands them (the chunks of tmem/desc.h: no swizzle, tcgen05.cp's source);
 * nothing in the other kernels (an empty base takes no bytes, so their layout is what it was). */
template <int kStages, int kBytes>
struct ScaleStages {
    alignas(1024) uint8_t sf[kStages][kBytes];
};
template <int kStages>
struct ScaleStages<kStages, 0> {
};

template <int kCtaGroup, bool kMx = false>
struct SharedStorage : ScaleStages<Config<kCtaGroup, kMx>::kStages, Config<kCtaGroup, kMx>::kSfBytes> {
    typedef Config<kCtaGroup, kMx> C;
    alignas(1024) uint8_t a[C::kStages][C::kABytes]; /* swizzled operand stages, 1024-B aligned */
    alignas(1024) uint8_t b[C::kStages][C::kBBytes];
    /* the epilogue's output chunks (TMA epilogue): warp w's 32 rows x 32 columns of C, column-major without
     * swizzle (column j at j * 32 elements), C's old values loaded into them by TMA when beta != 0 */
    alignas(1024) uint8_t c_chunk[kEpilogueWarps][kCWarpBytes];
    uint64_t full[C::kStages];                     /* stage s holds A and B (TMA complete_tx) */
    uint64_t empty[C::kStages];                    /* stage s may be overwritten (tcgen05.commit) */
    uint64_t acc_full[kAccStages];                 /* accumulator a holds a finished tile (tcgen05.commit) */
    uint64_t acc_empty[kAccStages];                /* accumulator a was read by every epilogue thread (leader's copy) */
    uint64_t c_full[kEpilogueWarps][kCMaxBuffers]; /* chunk buffer b of warp w holds C (TMA complete_tx) */
    uint64_t dealloc;                              /* the dealloc barrier, phase 0 only */
    uint32_t tmem_base;                            /* written by tcgen05.alloc */
};

/* The CLC kernel's shared memory (kClc): the same layout with the cluster launch control slots after it
 * (sync/clc.cuh), at the same offset in both CTAs of a pair. */
template <int kCtaGroup>
struct SharedStorageClc : SharedStorage<kCtaGroup> {
    ClcSlots clc;
};

template <int kCtaGroup, bool kClc, bool kMx = false>
struct StorageOf {
    typedef SharedStorage<kCtaGroup, kMx> type;
};
template <int kCtaGroup>
struct StorageOf<kCtaGroup, true, false> {
    typedef SharedStorageClc<kCtaGroup> type;
};

/* The CLC slots of the storage, or none (the static schedule reads no response). */
template <int kCtaGroup, bool kMx>
__device__ __forceinline__ ClcSlots *clc_slots_of(SharedStorage<kCtaGroup, kMx> &)
{
    return nullptr;
}
template <int kCtaGroup>
__device__ __forceinline__ ClcSlots *clc_slots_of(SharedStorageClc<kCtaGroup> &s)
{
    return &s.clc;
}

/* The readers of every CLC response per CTA: the producer lane, lane 0 of the MMA warp and of each epilogue
 * warp. In a pair the peer's MMA warp takes no part (it has no tile loop): 2 x 6 - 1 on the leader's empty. */
constexpr uint32_t kClcReaders = 1u + 1u + (uint32_t)kEpilogueWarps;

template <int kCtaGroup, bool kClc = false, bool kMx = false>
constexpr int smem_bytes()
{
    return (int)sizeof(typename StorageOf<kCtaGroup, kClc, kMx>::type) +
           1024; /* + slack to align the dynamic smem base */
}
static_assert(smem_bytes<1>() <= kSmemLimit, "cta_group 1 shared memory fits in 227 KB");
static_assert(smem_bytes<2>() <= kSmemLimit, "cta_group 2 shared memory fits in 227 KB");
static_assert(smem_bytes<1, true>() <= kSmemLimit && smem_bytes<2, true>() <= kSmemLimit,
              "the CLC kernels' shared memory (the slots added) fits in 227 KB");
static_assert(smem_bytes<1, false, true>() <= kSmemLimit && smem_bytes<2, false, true>() <= kSmemLimit,
              "the MX kernels' shared memory (the scale stages added) fits in 227 KB");

#if SM100_EMULATION
/* The emulation's happens-before tracking keeps a CTA's mbarriers in a table of TMEM_HB_MBARRIERS
 * (emu/hb_emu.cuh); with more, the cluster would run unchecked (only a note says so). */
template <int kCtaGroup>
constexpr int mbarrier_count()
{
    return (int)((sizeof(SharedStorage<kCtaGroup>::full) + sizeof(SharedStorage<kCtaGroup>::empty) +
                  sizeof(SharedStorage<kCtaGroup>::acc_full) + sizeof(SharedStorage<kCtaGroup>::acc_empty) +
                  sizeof(SharedStorage<kCtaGroup>::c_full) + sizeof(SharedStorage<kCtaGroup>::dealloc)) /
                 sizeof(uint64_t));
}
static_assert(mbarrier_count<1>() <= TMEM_HB_MBARRIERS && mbarrier_count<2>() <= TMEM_HB_MBARRIERS,
              "every mbarrier of a CTA fits the happens-before tracking's table");
static_assert(mbarrier_count<2>() + 2 * (int)CLC_SLOTS <= TMEM_HB_MBARRIERS,
              "and so do the CLC kernel's, with the slots' full and empty barriers");
#endif

} // namespace

#if !SM100_EMULATION
/* The dynamic shared memory of each configuration, written into the PTX as initialised globals so the
 * static test (tests/sm100/static_evidence.sh) can print and check them: ptxas -v does not report
 * dynamic shared memory. Never read at run time; hardware build only (the host shadows of __device__
 * variables are global symbols, and both builds go into one library). */
__device__ int wsgemm_sm100_report_smem_bytes_cg1 = smem_bytes<1>();
__device__ int wsgemm_sm100_report_smem_bytes_cg2 = smem_bytes<2>();
__device__ int wsgemm_sm100_report_stages_cg1 = Config<1>::kStages;
__device__ int wsgemm_sm100_report_stages_cg2 = Config<2>::kStages;
__device__ int wsgemm_sm100_report_smem_bytes_clc_cg1 = smem_bytes<1, true>();
__device__ int wsgemm_sm100_report_smem_bytes_clc_cg2 = smem_bytes<2, true>();
__device__ int wsgemm_sm100_report_smem_bytes_mx_cg1 = smem_bytes<1, false, true>();
__device__ int wsgemm_sm100_report_smem_bytes_mx_cg2 = smem_bytes<2, false, true>();
#endif

namespace
{

/* ---------------------------------------------------------------- parameters */

enum Fault { FAULT_NONE = 0, FAULT_EARLY_DEALLOC = 1, FAULT_MISSING_PEER_SIGNAL = 2 };

struct KernelParams {
    CUtensorMap tmap_a; /* 3-D: (K or M, M or K, batch), see make_operand_map */
    CUtensorMap tmap_b;
    wsgemm_sched sched; /* tile order and K splits: gemm/common/scheduler.cuh (grouped, static round robin) */
    void *c;            /* the output: C, or (split K) the fp32 partials [split][batch][n][m] in the workspace */
    long long ldc, stride_c, stride_split; /* elements between columns, batch members, splits of the output */
    int m, n;
    float alpha, beta; /* 1 and 0 for partials: the reduction applies C's */
    int epilogue;      /* wsgemm_epilogue_kind: DIRECT, or TMA / STAGED through the c_chunk buffers */
    int has_fused;     /* 1: the epilogue applies `fused` (wsgemm_matmul's output op) in place of alpha/beta */
    wsgemm_fused_epilogue fused;
    int out_batches;       /* batch members per split of the output: its z coordinate is split * out_batches + batch */
    CUtensorMap tmap_c;    /* the output, 3-D {m, n, splits x batch}, 32 x 32 boxes without swizzle (TMA epilogue) */
    CUtensorMap tmap_c_in; /* the fused op's C when it is not D (STAGED): the same boxes over C's own address and ldc */
    int c_in_own_map;      /* 1: STAGED loads C through tmap_c_in (C != D), 0: through tmap_c (C is D) */
    int kind;              /* umma_kind: UMMA_KIND_F16 (16-bit operands) or UMMA_KIND_F8F6F4 (FP8) */
    int row_elems;         /* elements per 128-byte row: K per stage, and M or N per MN-major box (64 or 128) */
    uint32_t idesc;        /* tcgen05 instruction descriptor of the kind */
    uint64_t a_desc, b_desc;                 /* smem descriptors with start address 0 (the stage address is added) */
    uint32_t a_k_step_bytes, b_k_step_bytes; /* start-address advance per UMMA K step */
    int a_mn_major, b_mn_major;
    int a_batched, b_batched; /* 0: the operand is shared by every batch (stride 0 or one batch) */
    int fault;                /* a planted teardown bug (Fault); read only through planted_fault() */
    /* EMULATION, CLC kernels: the stand-in's queue of unlaunched clusters (emu/clc_emu.cuh), the clusters handed
     * out so far, zeroed by the launcher before each CLC launch; unused elsewhere. Last, so the other fields keep
     * their offsets. */
    unsigned int *clc_counter;
    /* The MX kernel: the k-blocks' scale factors in the workspace, rearranged into chunks (sm100_plan.h,
     * sm100_mx_scales_layout), as 3-D byte tensors {256, chunk rows, tiles} without swizzle: A's box {256, 2, 1} is
     * one 512-byte chunk (128 rows of one k-block), B's {256, 2 kSfBChunks, 1} the tile's chunks. */
    CUtensorMap tmap_sfa, tmap_sfb;
};

/* The planted fault of this launch: a compile-time FAULT_NONE in every build but the emulated kernel with
 * WSGEMM_PLANTED_FAULTS, so no fault code (the hold-back loop, the skipped signals) is in any kernel a library
 * ships. */
__device__ __forceinline__ int planted_fault(const KernelParams &p)
{
    return SM100_PLANTED_FAULTS ? p.fault : FAULT_NONE;
}

/* This CTA's share of unit u: rows m0.. of A and C (128 per CTA; the pair's two CTAs take adjacent
 * 128-row tiles), columns n0.. of C, the batch, the K split. The scheduler's rows are 128-row tiles grouped
 * into cluster rows of kCtaGroup, so one unit is a 128 x 256 tile (cta_group 1) or a 256 x 256 pair tile,
 * over one split's K blocks. */
struct Tile {
    int m0, n0, batch, split;
    int kb_begin, kb_end; /* this split's K blocks */
};

template <int kBN = kBlockN>
__device__ __forceinline__ Tile tile_at(const KernelParams &p, long long u, uint32_t rank)
{
    const wsgemm_sched_unit w = wsgemm_sched_decode(&p.sched, u, (int)rank);
    Tile tile;
    tile.m0 = w.row * kBlockM;
    tile.n0 = w.col * kBN;
    tile.batch = w.batch;
    tile.split = w.split;
    tile.kb_begin = w.kb_begin;
    tile.kb_end = w.kb_end;
    return tile;
}

/* ---------------------------------------------------------------- TMA wrappers this kernel needs */

/* The plain 3-D load and the tensor-map prefetch are gemm/common/tma.cuh's (shared with sm90). */

#if !SM100_EMULATION
/* PTX ISA "cp.async.bulk.tensor" with .cta_group::2 (sm_100a): the copy lands in this CTA's shared
 * memory and completes on the barrier at shared::cluster address bar_cluster, which may be in the
 * peer CTA of the pair: how the odd CTA's loads complete on the leader's full[s]. */
static __device__ __forceinline__ void tma_load_3d_cta_pair(uint32_t dst_smem, const void *map_gmem,
                                                            uint32_t bar_cluster, int32_t c0, int32_t c1, int32_t c2)
{
    asm volatile("cp.async.bulk.tensor.3d.cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst_smem),
                 "l"((uint64_t)(uintptr_t)map_gmem), "r"(bar_cluster), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
#endif

/* ---------------------------------------------------------------- the units a CTA takes */

/* One role's view of the CLC responses (kClc): the slots, where the role is in their sequence, and whether it is
 * its CTA's arming thread (the producer lane: sync/clc.cuh, clc_arm). */
struct ClcReader {
    ClcSlots *slots;
    PipelineState at;
    uint32_t rank;
    int arms;
};

/* The unit after u (the loops' step, `u = next_unit(...)`): without CLC the static round robin, u + unit_step
 * (gemm/common/scheduler.cuh); with CLC the unit of the cluster the next response cancelled, or past the last
 * unit when it failed, so every role of the pair leaves its loop on the same response. One thread reads the
 * response (the producer lane; lane 0 of the MMA and epilogue warps, which broadcasts it to its warp), releases
 * it, and the whole role goes on with the same unit. */
template <int kCtaGroup, bool kClc>
__device__ __forceinline__ long long next_unit(const KernelParams &p, ClcReader &clc, long long u, long long unit_step,
                                               bool warp_wide)
{
    if constexpr (!kClc) {
        (void)p, (void)clc, (void)warp_wide;
        return u + unit_step;
    } else {
        (void)u, (void)unit_step;
        ClcWork w = {0u, 0u};
        if (!warp_wide || threadIdx.x % 32 == 0) {
            w = clc_wait_read<kCtaGroup>(clc.slots, clc.at, clc.rank);
            if (clc.arms && w.valid) clc_arm(clc.slots, clc.at); /* this slot's use after next */
            clc_release<kCtaGroup>(clc.slots, clc.at, clc.rank);
        }
        if (warp_wide) {
            w.valid = __shfl_sync(0xffffffffu, w.valid, 0);
            w.first_ctaid_x = __shfl_sync(0xffffffffu, w.first_ctaid_x, 0);
        }
        pipeline_state_advance(&clc.at, CLC_SLOTS);
        return w.valid ? (long long)(w.first_ctaid_x / (uint32_t)kCtaGroup) : p.sched.units;
    }
}

/* The CLC issuer (rank 0's producer lane), at the start of each of its units: ask for the unit after it, into
 * the slot the readers released (it waits for that). Nothing without CLC. */
template <int kCtaGroup, bool kClc>
__device__ __forceinline__ void request_next_unit(const KernelParams &p, ClcSlots *slots, PipelineState *issue,
                                                  uint32_t rank)
{
    if constexpr (kClc) {
        ClcSource src;
#if SM100_EMULATION
        src.counter_gmem = p.clc_counter;
        src.clusters_launched = gridDim.x / (uint32_t)kCtaGroup;
        src.clusters_total = (uint32_t)p.sched.units; /* the hardware grid: one cluster per unit */
#else
        (void)p;
        src.unused = 0u;
#endif
        if (rank == 0) clc_issue<kCtaGroup>(slots, *issue, src);
        pipeline_state_advance(issue, CLC_SLOTS);
    } else {
        (void)p, (void)slots, (void)issue, (void)rank;
    }
}

/* ---------------------------------------------------------------- role: TMA producer (warp 0) */

/* Load one operand k-block into a stage, with e = row_elems (elements per 128-byte row: 64 16-bit, 128 FP8):
 * K-major is one box (e k x rows), MN-major is rows/e boxes (e m-or-n x e k each, stacked 128 * e bytes
 * apart: the LBO of the MN-major descriptor). */
template <int kCtaGroup, int kRows>
__device__ __forceinline__ void load_operand(uint8_t *dst_smem, const CUtensorMap *map, int mn_major, int row_elems,
                                             int row0, int k0, int batch, uint64_t *full_smem, uint32_t full_cluster)
{
    const int boxes = mn_major ? kRows / row_elems : 1;
    for (int q = 0; q < boxes; ++q) {
        const uint32_t dst = smem_u32(dst_smem) + (uint32_t)(q * kSwizzleBytes * row_elems);
        const int c0 = mn_major ? row0 + q * row_elems : k0;
        const int c1 = mn_major ? k0 : row0;
#if !SM100_EMULATION
        if (kCtaGroup == 2) {
            tma_load_3d_cta_pair(dst, map, full_cluster, c0, c1, batch);
            continue;
        }
#endif
        (void)full_cluster;
        tma_load_3d(dst, map, smem_u32(full_smem), c0, c1, batch);
    }
}

/* MX: one box of a k-block's scale factors (`bytes` of them) into the stage, completing on full[s] as the operands'
 * boxes do (in a hardware pair: on the leader's). */
template <int kCtaGroup>
__device__ __forceinline__ void load_scales(uint32_t dst_smem, const CUtensorMap *map, int c1, int tile, uint32_t bytes,
                                            uint64_t *full_smem, uint32_t full_cluster)
{
#if !SM100_EMULATION
    if (kCtaGroup == 2) {
        (void)bytes;
        tma_load_3d_cta_pair(dst_smem, map, full_cluster, 0, c1, tile);
        return;
    }
#endif
    (void)full_cluster;
    tma_load_3d(dst_smem, map, smem_u32(full_smem), 0, c1, tile, bytes);
}

template <int kCtaGroup, bool kClc, bool kMx>
__device__ void producer_role(const KernelParams &p, SharedStorage<kCtaGroup, kMx> &s, const PipelineRing &ring,
                              uint32_t rank, long long first_unit, long long unit_step, ClcReader &clc)
{
    typedef Config<kCtaGroup, kMx> C;
    if (!elect_one_sync()) return;
    PipelineState st = pipeline_producer_start();
#if SM100_EMULATION
    PipelineState forwarded = pipeline_consumer_start(); /* the peer's stages forwarded to the leader */
#endif
    PipelineState issue = pipeline_producer_start();
    for (long long u = first_unit; u < p.sched.units; u = next_unit<kCtaGroup, kClc>(p, clc, u, unit_step, false)) {
        request_next_unit<kCtaGroup, kClc>(p, clc.slots, &issue, rank);
        const Tile tile = tile_at<C::kBlockN>(p, u, rank);
        const int a_row0 = tile.m0;
        const int b_row0 = tile.n0 + (int)rank * C::kBRows;
        const int a_batch = p.a_batched ? tile.batch : 0;
        const int b_batch = p.b_batched ? tile.batch : 0;
        for (int kb = tile.kb_begin; kb < tile.kb_end; ++kb) {
            producer_acquire(&ring, st);
            uint64_t *full = &s.full[st.stage];
            uint32_t full_cluster = 0;
            if (kCtaGroup == 1 || SM100_EMULATION) {
                mbarrier_arrive_expect_tx(full, C::kStageBytes); /* this CTA's copies, this CTA's barrier */
            } else {
                /* hardware pair: both CTAs' copies complete on the leader's full[s]; only the leader
                 * arrives, expecting both (a complete_tx landing before the expect is fine: the phase
                 * cannot complete while the leader's arrival is pending). */
                full_cluster = mapa_shared_cluster(smem_u32(full), 0);
                if (rank == 0) mbarrier_arrive_expect_tx(full, C::kLeaderTxBytes);
            }
            const int k0 = kb * p.row_elems;
            load_operand<kCtaGroup, kBlockM>(s.a[st.stage], &p.tmap_a, p.a_mn_major, p.row_elems, a_row0, k0, a_batch,
                                             full, full_cluster);
            load_operand<kCtaGroup, C::kBRows>(s.b[st.stage], &p.tmap_b, p.b_mn_major, p.row_elems, b_row0, k0, b_batch,
                                               full, full_cluster);
            if constexpr (kMx) { /* A's chunk of this CTA's rows, B's chunks of the whole tile (in each CTA) */
                const uint32_t sf = smem_u32(s.sf[st.stage]);
                load_scales<kCtaGroup>(sf, &p.tmap_sfa, 2 * kb, tile.m0 / kBlockM, (uint32_t)C::kSfABytes, full,
                                       full_cluster);
                load_scales<kCtaGroup>(sf + (uint32_t)C::kSfABytes, &p.tmap_sfb, 2 * kSfBChunks * kb,
                                       tile.n0 / C::kBlockN, (uint32_t)C::kSfBBytes, full, full_cluster);
            }
#if SM100_EMULATION
            if (kCtaGroup == 2 && rank != 0) {
                /* EMULATION: this lane issued the copies, so it forwards their completion to the leader's
                 * full[s]; the forward carries what the hardware's complete_tx carries and nothing of the
                 * MMA warp (its alloc is ordered before the leader's MMAs by cluster sync (3) alone). */
                mbarrier_wait(full, forwarded.phase, WAIT_CTA, 0, "full(peer)", forwarded.stage);
                mbarrier_arrive_remote(full, 0);
                pipeline_state_advance(&forwarded, C::kStages);
            }
#endif
            pipeline_state_advance(&st, C::kStages);
        }
    }
    wsgemm_pdl_launch_dependents(); /* the CTA's last load is issued (common/pdl.cuh) */
    /* Drain: wait until every stage in flight was released by the (leader's) commit, so no commit is
     * still to arrive on this CTA's barriers and no MMA still reads this CTA's smem when it exits. */
    producer_tail(&ring, st);
}

/* ---------------------------------------------------------------- role: MMA warp (warp 1) */

/* One k-block: four UMMAs (32 bytes of K each), then a commit that frees the stage when they are done
 * (multicast to both CTAs of a pair: each CTA's producer waits on its own empty[s]). The whole MMA warp
 * calls the tmem/ _warp forms: on hardware the elect.sync leader (the same lane every call) issues each
 * instruction, so the commit covers exactly the MMAs before it; in the emulation the 32 lanes share the
 * arithmetic of each UMMA (tmem/tmem.cuh, "the emulation's main design decision"). */
template <int kCtaGroup, bool kMx>
__device__ __forceinline__ void issue_k_block(const KernelParams &p, SharedStorage<kCtaGroup, kMx> &s, uint32_t stage,
                                              uint32_t d_tmem, uint32_t tmem_base, int first_k_block)
{
    const uint64_t a_desc = p.a_desc + ((smem_u32(s.a[stage]) & 0x3FFFFu) >> 4);
    const uint64_t b_desc = p.b_desc + ((smem_u32(s.b[stage]) & 0x3FFFFu) >> 4);
    if constexpr (kMx) {
        /* the k-block's factors into the stage's scale slot: A's chunk at +0, B's at +4, +8 (tcgen05.cp is ordered
         * before the MMAs below, and overwrites only factors of the k-block that last used this stage, whose MMAs
         * the producer saw complete through empty[s] before it refilled the stage: docs/protocol.md) */
        const uint32_t slot = tmem_base + (uint32_t)(Config<kCtaGroup, true>::kSfSlotCol + kSfSlotCols * (int)stage);
        const uint32_t sf = smem_u32(s.sf[stage]);
#pragma unroll
        for (int c = 0; c <= kSfBChunks; ++c)
            umma_cp_sf_warp<kCtaGroup>(slot + (uint32_t)(c * UMMA_SF_CHUNK_COLS),
                                       umma_sf_cp_desc(sf + (uint32_t)(c * UMMA_SF_CHUNK_BYTES)));
            /* four scaled MMAs of 32 K each: sub-block kk's factors are byte kk of the slot's words */
#pragma unroll
        for (int kk = 0; kk < kUmmasPerStage; ++kk)
            umma_mma_scaled_warp<kCtaGroup>(d_tmem, umma_smem_desc_advance(a_desc, kk * p.a_k_step_bytes),
                                            umma_smem_desc_advance(b_desc, kk * p.b_k_step_bytes),
                                            umma_idesc_bs_set_sf_ids(p.idesc, (uint32_t)kk, (uint32_t)kk), slot,
                                            slot + UMMA_SF_CHUNK_COLS, (first_k_block && kk == 0) ? 0u : 1u);
    } else {
        (void)tmem_base;
#pragma unroll
        for (int kk = 0; kk < kUmmasPerStage; ++kk) {
            umma_mma_warp<kCtaGroup>((umma_kind)p.kind, d_tmem, umma_smem_desc_advance(a_desc, kk * p.a_k_step_bytes),
                                     umma_smem_desc_advance(b_desc, kk * p.b_k_step_bytes), p.idesc,
                                     (first_k_block && kk == 0) ? 0u : 1u);
        }
    }
    if (kCtaGroup == 2)
        umma_commit_multicast_warp<kCtaGroup>(&s.empty[stage], 0x3);
    else
        umma_commit_warp<kCtaGroup>(&s.empty[stage]);
}

template <int kCtaGroup, bool kClc, bool kMx>
__device__ void mma_role(const KernelParams &p, SharedStorage<kCtaGroup, kMx> &s, const PipelineRing &ring,
                         uint32_t tmem_base, uint32_t rank, long long first_unit, long long unit_step, ClcReader &clc)
{
    typedef Config<kCtaGroup, kMx> C;
    if (kCtaGroup == 2 && rank != 0) {
        return; /* the peer's MMA warp only allocates and deallocates */
    }
    /* acc_empty (the leader's; only the leader's MMA warp gets here): cluster scope in a pair, since 128 of its 256
     * arrivals are the peer's epilogue threads, whose TMEM reads must be done before our MMAs overwrite it */
    const enum wait_scope acc_scope = kCtaGroup == 2 ? WAIT_CLUSTER : WAIT_CTA;
    PipelineState st = pipeline_consumer_start();
    PipelineState acc = pipeline_producer_start(); /* the MMA fills accumulators: they start empty */
    for (long long u = first_unit; u < p.sched.units; u = next_unit<kCtaGroup, kClc>(p, clc, u, unit_step, true)) {
        const Tile tile = tile_at<C::kBlockN>(p, u, rank);
        mbarrier_wait(&s.acc_empty[acc.stage], acc.phase, acc_scope, 0, "acc_empty", acc.stage);
        __syncwarp(); /* lanes leave the spin at different times; elect.sync / the emulated UMMA need all 32 */
        tcgen05_fence_after_thread_sync(); /* the epilogue's tcgen05.ld of this accumulator before our MMAs */
        const uint32_t d_tmem = tmem_base + (uint32_t)(acc.stage * C::kBlockN);
        for (int kb = tile.kb_begin; kb < tile.kb_end; ++kb) {
            consumer_wait(&ring, st);
            __syncwarp();
            tcgen05_fence_after_thread_sync(); /* the MMAs after the observed TMA completion */
            issue_k_block<kCtaGroup, kMx>(p, s, st.stage, d_tmem, tmem_base, kb == tile.kb_begin);
            pipeline_state_advance(&st, C::kStages);
        }
        /* accumulator a is complete when every MMA above is: commit to acc_full (both CTAs of a pair) */
        if (kCtaGroup == 2)
            umma_commit_multicast_warp<kCtaGroup>(&s.acc_full[acc.stage], 0x3);
        else
            umma_commit_warp<kCtaGroup>(&s.acc_full[acc.stage]);
        pipeline_state_advance(&acc, kAccStages);
    }
}

/* ---------------------------------------------------------------- role: epilogue (warps 2-5) */

/* Planted faults only: hold the epilogue back before its last tile's TMEM reads (about 2 ms), so the
 * race a teardown bug opens is lost deterministically: with early_dealloc every CTA's reads come after
 * its MMA warp freed TMEM; with missing_peer_signal the peer (rank 1) reads after the leader, which no
 * longer waits for it, freed the pair's allocation. Never active without WSGEMM_SM100_FAULT, and absent from
 * the hardware build (planted_fault() is FAULT_NONE there). */
__device__ __forceinline__ void fault_hold_back(const KernelParams &p, uint32_t rank)
{
    const int fault = planted_fault(p);
    const bool hold = fault == FAULT_EARLY_DEALLOC || (fault == FAULT_MISSING_PEER_SIGNAL && rank == 1);
    if (!hold) return;
    for (int i = 0; i < 2000; ++i) __nanosleep(1000);
}

/* The TMA epilogue's chunk buffers of one warp for output type TOut: kCWarpBytes hold kBuffers chunks of
 * 32 rows x 32 columns, column-major without swizzle (column e at e * 32 elements). */
template <typename TOut>
struct CChunks {
    static constexpr int kBytes = 32 * kEpilogueChunk * (int)sizeof(TOut);
    /* 2 (fp32) or 4 (16-bit, and an E4M3 D: 8 would fit, but c_full has kCMaxBuffers barriers per warp) */
    static constexpr int kBuffers = kCWarpBytes / kBytes < kCMaxBuffers ? kCWarpBytes / kBytes : kCMaxBuffers;
    static_assert(kBuffers >= 2 && kBuffers <= kCMaxBuffers, "2 to kCMaxBuffers chunks per warp");
    static_assert(kBytes % 128 == 0, "every chunk starts 128-byte aligned (TMA without swizzle)");
};

/* Bring C's old values for chunk `seq` of this warp (32 rows from r0, 32 columns from j0, output matrix z)
 * into buffer seq % kBuffers by TMA; one lane issues it, after the buffer's last TMA store has read it. C is
 * D (tmap_c) or, for the fused op with a C of its own, tmap_c_in (same type and boxes, C's address and ldc). */
template <int kCtaGroup, typename TOut, typename Storage>
__device__ __forceinline__ void c_chunk_load(const KernelParams &p, Storage &s, int ew, uint32_t seq, int r0, int j0,
                                             int z)
{
    typedef CChunks<TOut> CC;
    const uint32_t buf = seq % CC::kBuffers;
    mbarrier_arrive_expect_tx(&s.c_full[ew][buf], (uint32_t)CC::kBytes);
    const CUtensorMap *c_map = p.c_in_own_map ? &p.tmap_c_in : &p.tmap_c;
    tma_load_3d(smem_u32(s.c_chunk[ew] + buf * CC::kBytes), c_map, smem_u32(&s.c_full[ew][buf]), r0, j0, z,
                (uint32_t)CC::kBytes);
}

/* The warp's ld.shared (write 0) or st.shared (write 1) of a whole chunk buffer, its 32 lanes together,
 * announced before the accesses to the emulation's async-proxy model (emu/hb.h: ordered after the buffer's
 * TMA load of C and, writes, after its last TMA store finished reading it). Nothing in the hardware build. */
__device__ __forceinline__ void c_chunk_generic_access(const void *chunk_smem, int bytes, int write)
{
    (void)chunk_smem;
    (void)bytes;
    (void)write;
    WSGEMM_HB(tmem_hb_smem_access(chunk_smem, (uint32_t)bytes, write));
}

/* The output op of a launch, chosen once per launch (epilogue_role) so that the element loops hold no
 * dispatch: the plain alpha/beta op, or wsgemm_matmul's fused op with its activation as a compile-time
 * constant (bias and aux are flags of the call: uniform, loop-invariant branches). */
enum OutOp { OUT_OP_PLAIN = 0, OUT_OP_FUSED = 1, OUT_OP_FUSED_RELU = 2, OUT_OP_FUSED_GELU = 3 };

template <int kOp>
struct OutOpTraits {
    static constexpr bool kFused = kOp != OUT_OP_PLAIN;
    static constexpr int kAct = kOp == OUT_OP_FUSED_RELU   ? WSGEMM_ACTIVATION_RELU
                                : kOp == OUT_OP_FUSED_GELU ? WSGEMM_ACTIVATION_GELU
                                                           : WSGEMM_ACTIVATION_NONE;
};

__device__ __forceinline__ int out_op_of(const KernelParams &p)
{
    if (!p.has_fused) return OUT_OP_PLAIN;
    if (p.fused.ops.activation == WSGEMM_ACTIVATION_RELU) return OUT_OP_FUSED_RELU;
    if (p.fused.ops.activation == WSGEMM_ACTIVATION_GELU) return OUT_OP_FUSED_GELU;
    return OUT_OP_FUSED;
}

/* The output op on element (i, j): plain, alpha acc + beta C (c_old read only when beta != 0); fused
 * (wsgemm_matmul), x = alpha' acc (+ beta' C when c_read), then bias (bias_i: row i's, read once per tile),
 * aux, activation and amax for elements inside D (in_d; the TMA store clips the others, which take no part),
 * times d_scale: the steps of wsgemm_fused_apply. */
template <int kOp>
__device__ __forceinline__ float out_value(const KernelParams &p, const wsgemm_fused_factors &f, float acc, bool c_read,
                                           float c_old, float bias_i, bool in_d, int i, int j, float &amax)
{
    if constexpr (!OutOpTraits<kOp>::kFused) {
        (void)f, (void)c_read, (void)bias_i, (void)in_d, (void)i, (void)j, (void)amax;
        return wsgemm_out_value(acc, p.alpha, p.beta, c_old);
    } else {
        float x = f.alpha * acc;
        if (c_read && f.beta != 0.0f) x = fmaf(f.beta, c_old, x);
        if (in_d) x = wsgemm_fused_ops_apply_as<OutOpTraits<kOp>::kAct>(p.fused, x, bias_i, i, j, amax);
        return x * f.d_scale;
    }
}

/* One epilogue warp over its 32 accumulator rows (TMEM lane quarter warp % 4) of each tile, with the output op
 * kOp (OutOp, chosen once per launch by epilogue_role):
 *   before acc_full: the fused op's bias of this thread's row (one load per tile: a thread keeps one row);
 *   tcgen05.ld 32 columns at a time; after the last one, acc_empty (the accumulator is free for the tile after
 *   next while this one is still being written out);
 *   DIRECT: the output op per element straight to global memory (any layout; split-K partials too);
 *   TMA / STAGED: the output op into a 32 x 32 chunk in shared memory, then one TMA store per chunk, which
 *   runs on while the warp takes the next chunks and, after the last, while the MMA warp fills this
 *   accumulator again (the double-buffered accumulators). With beta != 0 (STAGED) C's old values come in by
 *   TMA ahead of use (from D's map, or C's own when the fused op's C is not D): the tile's first kBuffers
 *   chunks before acc_full is awaited (under the tile's main loop), each further chunk kBuffers - 1 chunks
 *   ahead (into the buffer whose store was issued one chunk earlier). The buffers are used in the order `seq`.
 * amax: this thread's running maximum (fused op with amax). */
template <int kCtaGroup, typename TOut, int kOp, bool kClc, bool kMx>
__device__ void epilogue_tiles(const KernelParams &p, SharedStorage<kCtaGroup, kMx> &s, uint32_t tmem_base,
                               uint32_t rank, int warp, long long first_unit, long long unit_step, float &amax,
                               ClcReader &clc)
{
    constexpr int kBN = Config<kCtaGroup, kMx>::kBlockN;
    constexpr int kOut = wsgemm_dtype_of<TOut>::value;
    constexpr bool kFused = OutOpTraits<kOp>::kFused;
    typedef CChunks<TOut> CC;
    const int quarter = warp % 4; /* the TMEM lane quarter this warp may access */
    const int ew = warp - kFirstEpilogueWarp;
    const int lane = threadIdx.x % 32;
    const int row = quarter * 32 + lane; /* accumulator row = TMEM lane */
    /* acc_full: the leader's epilogue waits at CTA scope (its own multicast commit arrives; it reads its own TMEM);
     * the peer's at cluster scope (the leader's commit arrives from the other CTA, after the leader's MMAs wrote
     * the peer's TMEM) */
    const enum wait_scope acc_scope = kCtaGroup == 2 && rank != 0 ? WAIT_CLUSTER : WAIT_CTA;
    const bool via_smem = p.epilogue != WSGEMM_EPILOGUE_DIRECT;
    const bool load_c = via_smem && p.beta != 0.0f;
    const wsgemm_fused_factors factors =
        kFused ? wsgemm_fused_factors_load(p.fused, p.alpha, p.beta) : wsgemm_fused_factors{p.alpha, p.beta, 1.0f};
    const bool direct_c_read = kFused && factors.beta != 0.0f; /* DIRECT: the fused op reads its C per element */
    PipelineState acc = pipeline_consumer_start();
    uint32_t seq = 0; /* chunks this warp has put through shared memory */
    for (long long u = first_unit; u < p.sched.units; u = next_unit<kCtaGroup, kClc>(p, clc, u, unit_step, true)) {
        const Tile tile = tile_at<kBN>(p, u, rank);
        const int r0 = tile.m0 + quarter * 32;
        const int z = tile.split * p.out_batches + tile.batch;
        const int cols = min(kBN, p.n - tile.n0);
        const int chunks = (cols + kEpilogueChunk - 1) / kEpilogueChunk;
        const int i = tile.m0 + row;
        const bool row_in_d = i < p.m;
        /* row i's bias, once per tile and before the wait: its latency hides under the tile's main loop */
        const float bias_i = kFused && row_in_d ? wsgemm_fused_row_bias(p.fused, i) : 0.0f;
        if (load_c && lane == 0) {     /* the tile's first chunks of C, under its main loop */
            bulk_wait_group_read<0>(); /* every buffer's last store has read it */
            for (int c = 0; c < chunks && c < CC::kBuffers; ++c)
                c_chunk_load<kCtaGroup, TOut>(p, s, ew, seq + (uint32_t)c, r0, tile.n0 + c * kEpilogueChunk, z);
        }
        mbarrier_wait(&s.acc_full[acc.stage], acc.phase, acc_scope, 0, "acc_full", acc.stage);
        tcgen05_fence_after_thread_sync(); /* our tcgen05.ld after the MMAs the commit covered */
        if (!kClc && planted_fault(p) != FAULT_NONE && u + unit_step >= p.sched.units) fault_hold_back(p, rank);

        TOut *c =
            static_cast<TOut *>(p.c) + (long long)tile.split * p.stride_split + (long long)tile.batch * p.stride_c;
        const uint32_t taddr = tmem_base + tmem_addr((uint32_t)(quarter * 32), (uint32_t)(acc.stage * kBN));
        for (int ch = 0; ch < chunks; ++ch) {
            const int j0 = tile.n0 + ch * kEpilogueChunk;
            uint32_t v[kEpilogueChunk];
            __syncwarp(); /* tcgen05.ld is .sync.aligned: the warp reconverges after the predicated stores */
            tmem_ld_32x32b_x32(taddr + (uint32_t)(ch * kEpilogueChunk), v);
            tmem_wait_ld();
            if (ch == chunks - 1) {
                /* the last read of accumulator a: release it before the math and the stores */
                tcgen05_fence_before_thread_sync();
                if (kCtaGroup == 1 || rank == 0)
                    mbarrier_arrive(&s.acc_empty[acc.stage]);
                else
                    mbarrier_arrive_remote(&s.acc_empty[acc.stage], 0);
            }
            if (via_smem) {
                const uint32_t buf = seq % CC::kBuffers;
                TOut *chunk = reinterpret_cast<TOut *>(s.c_chunk[ew] + buf * CC::kBytes);
                if (load_c) {
                    mbarrier_wait(&s.c_full[ew][buf], (seq / CC::kBuffers) & 1u, WAIT_CTA, 0, "c_full", buf);
                } else {
                    if (lane == 0) bulk_wait_group_read<CC::kBuffers - 1>(); /* this buffer's last store has read it */
                    __syncwarp();
                }
                if (load_c) c_chunk_generic_access(chunk, CC::kBytes, 0); /* C's old values */
                c_chunk_generic_access(chunk, CC::kBytes, 1);
                /* the warp's 32 lanes write 32 consecutive elements of each column */
#pragma unroll
                for (int e = 0; e < kEpilogueChunk; ++e) {
                    TOut *elem = chunk + e * 32 + lane;
                    const float old = load_c ? wsgemm_out_load<kOut>(elem) : 0.0f;
                    const int j = j0 + e;
                    wsgemm_out_store<kOut>(elem, out_value<kOp>(p, factors, __uint_as_float(v[e]), load_c, old, bias_i,
                                                                row_in_d && j < p.n, i, j, amax));
                }
                fence_proxy_async_shared_cta(); /* our generic smem writes before the TMA store reads them */
                __syncwarp();
                if (lane == 0) { /* rows past m and columns past n are clipped by the store */
                    tma_store_3d(&p.tmap_c, smem_u32(chunk), r0, j0, z, (uint32_t)CC::kBytes);
                    bulk_commit_group();
                    const int next = ch - 1 + CC::kBuffers; /* into the buffer of chunk ch - 1 */
                    if (load_c && ch >= 1 && next < chunks) {
                        bulk_wait_group_read<1>(); /* chunk ch - 1's store (all but the one just issued) has read it */
                        c_chunk_load<kCtaGroup, TOut>(p, s, ew, seq - 1 + (uint32_t)CC::kBuffers, r0,
                                                      tile.n0 + next * kEpilogueChunk, z);
                    }
                }
                ++seq;
            } else if (row_in_d) {
#pragma unroll
                for (int e = 0; e < kEpilogueChunk; ++e) {
                    const int j = j0 + e;
                    if (j >= p.n) continue;
                    TOut *elem = c + (long long)i + (long long)j * p.ldc;
                    if constexpr (kFused) { /* the fused op: scales, C (its own matrix), bias, aux, activation, amax */
                        const float old = direct_c_read ? wsgemm_load_any(p.fused.c_type, p.fused.c,
                                                                          (long long)i + (long long)j * p.fused.ldc)
                                                        : 0.0f;
                        wsgemm_out_store<kOut>(elem, out_value<kOp>(p, factors, __uint_as_float(v[e]), direct_c_read,
                                                                    old, bias_i, true, i, j, amax));
                    } else { /* the shared output op: alpha, beta (C read only when beta != 0), rounding */
                        wsgemm_out_apply<kOut>(elem, __uint_as_float(v[e]), p.alpha, p.beta);
                    }
                }
            }
        }
        pipeline_state_advance(&acc, kAccStages);
    }
}

/* The epilogue warps' role: the tiles with the launch's output op (one dispatch here, none per element), then
 * the TMA stores drained, amax raised once per warp, and the teardown signals. */
template <int kCtaGroup, typename TOut, bool kClc, bool kMx>
__device__ void epilogue_role(const KernelParams &p, SharedStorage<kCtaGroup, kMx> &s, uint32_t tmem_base,
                              uint32_t rank, int warp, long long first_unit, long long unit_step, ClcReader &clc)
{
    const int lane = threadIdx.x % 32;
    float amax = 0.0f; /* this thread's largest |x| (fused op with amax) */
    switch (out_op_of(p)) {
    case OUT_OP_FUSED:
        epilogue_tiles<kCtaGroup, TOut, OUT_OP_FUSED, kClc, kMx>(p, s, tmem_base, rank, warp, first_unit, unit_step,
                                                                 amax, clc);
        break;
    case OUT_OP_FUSED_RELU:
        epilogue_tiles<kCtaGroup, TOut, OUT_OP_FUSED_RELU, kClc, kMx>(p, s, tmem_base, rank, warp, first_unit,
                                                                      unit_step, amax, clc);
        break;
    case OUT_OP_FUSED_GELU:
        epilogue_tiles<kCtaGroup, TOut, OUT_OP_FUSED_GELU, kClc, kMx>(p, s, tmem_base, rank, warp, first_unit,
                                                                      unit_step, amax, clc);
        break;
    default:
        epilogue_tiles<kCtaGroup, TOut, OUT_OP_PLAIN, kClc, kMx>(p, s, tmem_base, rank, warp, first_unit, unit_step,
                                                                 amax, clc);
        break;
    }
    /* every TMA store has written C and read its chunk before the CTA's shared memory goes away */
    if (p.epilogue != WSGEMM_EPILOGUE_DIRECT && lane == 0) bulk_wait_group<0>();
    __syncwarp();
    if (p.has_fused) wsgemm_fused_amax_commit(p.fused, amax); /* the warp's largest |x| into *amax */
    /* Teardown: this thread will not touch TMEM again (also true when it got zero tiles). */
    tcgen05_fence_before_thread_sync();
    if (kCtaGroup == 2 && planted_fault(p) == FAULT_MISSING_PEER_SIGNAL)
        dealloc_barrier_signal_self<kCtaGroup>(&s.dealloc); /* planted bug: the peer never hears from us */
    else
        dealloc_barrier_signal_complete<kCtaGroup>(&s.dealloc);
}

/* ---------------------------------------------------------------- the kernel */

/* The kernel's body: kClc false is the static schedule (sm100_gemm_kernel), true the CLC schedule
 * (sm100_gemm_clc_kernel: the slots after the shared storage, the units from the responses, the trailing
 * cluster sync). */
template <int kCtaGroup, typename TOut, bool kClc, bool kMx = false>
__device__ __forceinline__ void gemm_body(const KernelParams &p)
{
    typedef Config<kCtaGroup, kMx> C;
    typedef typename StorageOf<kCtaGroup, kClc, kMx>::type Storage;
    extern __shared__ uint8_t smem_raw[];
    /* Same offset in every CTA (the shared window starts at the same address), as the pair requires. */
    const uint32_t raw = smem_u32(smem_raw);
    Storage &storage = *reinterpret_cast<Storage *>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
    SharedStorage<kCtaGroup, kMx> &s = storage;
    const int warp = threadIdx.x / 32;
    const uint32_t rank = kCtaGroup == 2 ? cluster_ctarank() : 0u;
    const long long first_unit = (long long)(blockIdx.x / kCtaGroup); /* the cluster's index */
    const long long unit_step = (long long)(gridDim.x / kCtaGroup);   /* the number of clusters */

    /* Wait scopes (PTX ISA "mbarrier.try_wait": .acquire.cta suffices where the barrier's arrivals and the data
     * the waiter then uses are this CTA's; sm_100a pays an L1 invalidate, CCTL.IVALL, for every .cluster one):
     *   full[s]  cluster in a pair: on hardware the peer's TMA completes on the leader's full[s] (EMULATION: the
     *            peer's forwarded arrival), and the leader's MMAs read the peer's stage;
     *   empty[s] the leader's: CTA (its own multicast commit arrives, and its TMA then overwrites only its own
     *            stage); the peer's: cluster (the arrival is the leader's commit, a remote one). */
    const enum wait_scope empty_scope = kCtaGroup == 2 && rank != 0 ? WAIT_CLUSTER : WAIT_CTA;
    const PipelineRing ring = {
        s.full, s.empty, (uint32_t)C::kStages, kCtaGroup == 2 ? WAIT_CLUSTER : WAIT_CTA, empty_scope, "full", "empty"};
#if SM100_EMULATION
    /* programmatic dependent launch (common/pdl.cuh): the emulation keeps TMEM, its allocator and the
     * happens-before state in global memory, so its prologue already touches them: it waits first */
    wsgemm_pdl_wait();
#endif
    if (threadIdx.x == 0) {
        tma_prefetch_tensormap(&p.tmap_a);
        tma_prefetch_tensormap(&p.tmap_b);
        if (p.epilogue != WSGEMM_EPILOGUE_DIRECT) tma_prefetch_tensormap(&p.tmap_c);
        if (p.c_in_own_map) tma_prefetch_tensormap(&p.tmap_c_in);
        if constexpr (kMx) {
            tma_prefetch_tensormap(&p.tmap_sfa);
            tma_prefetch_tensormap(&p.tmap_sfb);
        }
        pipeline_init(&ring, C::full_count(rank), 1u); /* full: TMA lane(s); empty: one (multicast) commit */
        for (int a = 0; a < kAccStages; ++a) {
            mbarrier_init(&s.acc_full[a], 1u);                 /* one (multicast) commit */
            mbarrier_init(&s.acc_empty[a], C::kAccEmptyCount); /* every epilogue thread of the pair */
        }
        for (int w = 0; w < kEpilogueWarps; ++w)
            for (int b = 0; b < kCMaxBuffers; ++b) mbarrier_init(&s.c_full[w][b], 1u); /* the warp's TMA lane */
        if (kCtaGroup == 2 && planted_fault(p) == FAULT_MISSING_PEER_SIGNAL)
            mbarrier_init(&s.dealloc, (uint32_t)kEpilogueThreads); /* planted bug: counts only our own */
        else
            dealloc_barrier_init<kCtaGroup>(&s.dealloc);
        if constexpr (kClc)
            clc_init(clc_slots_of(storage), kClcReaders * (uint32_t)kCtaGroup - (kCtaGroup == 2 ? 1u : 0u));
        fence_mbarrier_init();          /* visible to the peer's remote arrivals and commits */
        fence_proxy_async_shared_cta(); /* and to TMA complete_tx (async proxy) */
    }
    __syncwarp();   /* barrier.cluster is .aligned: warp 0 reconverges after thread 0's set-up */
    cluster_sync(); /* (1) barriers initialised in both CTAs; the peer runs before the collective alloc */

    /* (2) TMEM: the MMA warp allocates and hands the base address to the epilogue warps through named
     * barrier 1 (160 threads), also when this CTA gets zero tiles (tmem/tmem.cuh hand-off helpers). */
    uint32_t tmem_base = 0;
    if (warp == kMmaWarp)
        tmem_base =
            tmem_alloc_and_publish<kCtaGroup>(&s.tmem_base, (uint32_t)kTmemCols, kTmemAddrBarrier, kTmemAddrThreads);
    else if (warp != kTmaWarp)
        tmem_base = tmem_receive_address(&s.tmem_base, kTmemAddrBarrier, kTmemAddrThreads);
    if (kCtaGroup == 2) {
        /* (3) both CTAs' columns are allocated before the leader's first MMA writes the peer's TMEM and
         * before either CTA could free them */
        tcgen05_fence_before_thread_sync();
        __syncwarp();
        cluster_sync();
        tcgen05_fence_after_thread_sync();
    }
#if !SM100_EMULATION
    /* programmatic dependent launch (common/pdl.cuh): barrier set-up, tensor-map prefetch and the TMEM
     * allocation were the prologue; no thread touches global memory before the previous kernel is done */
    wsgemm_pdl_wait();
#endif

    ClcReader clc = {clc_slots_of(storage), pipeline_consumer_start(), rank, warp == kTmaWarp};
    if (warp == kTmaWarp) {
        producer_role<kCtaGroup, kClc, kMx>(p, s, ring, rank, first_unit, unit_step, clc);
    } else if (warp == kMmaWarp) {
        mma_role<kCtaGroup, kClc, kMx>(p, s, ring, tmem_base, rank, first_unit, unit_step, clc);
        __syncwarp();
        if (planted_fault(p) == FAULT_EARLY_DEALLOC) {
            /* planted bug: free TMEM without waiting for the epilogue's last reads */
            tmem_relinquish_alloc_permit<kCtaGroup>();
            tmem_dealloc<kCtaGroup>(tmem_base, (uint32_t)kTmemCols);
        } else {
            dealloc_barrier_complete_dealloc<kCtaGroup, (uint32_t)kTmemCols>(&s.dealloc, tmem_base);
        }
    } else {
        epilogue_role<kCtaGroup, TOut, kClc, kMx>(p, s, tmem_base, rank, warp, first_unit, unit_step, clc);
    }
    if constexpr (kClc && kCtaGroup == 2) {
        /* (4) the peer's last CLC releases are remote arrivals on our empty[q] that nobody waits for, and our
         * multicast responses land in the peer's slots: neither CTA of the pair exits before both are done */
        __syncwarp();
        cluster_sync();
        WSGEMM_HB(tmem_hb_clc_exit()); /* the emulation checks (4): the peer's last reads are ordered before us */
    }
    tmem_cta_exit(); /* every commit arrival on this CTA's barriers was waited for (emulation check; no-op) */
}

/* The static schedule: cluster c takes units c, c + C, ... (gemm/common/scheduler.cuh). */
template <int kCtaGroup, typename TOut>
__global__ void __launch_bounds__(kThreads, 1) sm100_gemm_kernel(const __grid_constant__ KernelParams p)
{
    gemm_body<kCtaGroup, TOut, false>(p);
}

/* Cluster launch control (sync/clc.cuh): the grid holds one cluster per unit; a running cluster takes its own
 * unit, then the units of clusters it cancels before they start, until a request fails. */
template <int kCtaGroup, typename TOut>
__global__ void __launch_bounds__(kThreads, 1) sm100_gemm_clc_kernel(const __grid_constant__ KernelParams p)
{
    gemm_body<kCtaGroup, TOut, true>(p);
}

/* Block-scaled MXFP8 (sm100_plan.h, SM100_SCALES_MX): 128 x 192 tiles (a pair: 256 x 192), the static schedule. */
template <int kCtaGroup, typename TOut>
__global__ void __launch_bounds__(kThreads, 1) sm100_mx_gemm_kernel(const __grid_constant__ KernelParams p)
{
    gemm_body<kCtaGroup, TOut, false, true>(p);
}

} // namespace

#endif /* WSGEMM_SM100_KERNEL_CUH */
