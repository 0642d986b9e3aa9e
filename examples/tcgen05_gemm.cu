// SPDX-License-Identifier: MIT
/*
 * tcgen05_gemm.cu - a Blackwell tcgen05 GEMM of one's own on wsgemm's device headers, small enough to read
 * top to bottom, and runnable on Hopper through the verification wing (docs/emulation.md).
 *
 * What it computes: C = A * B^T, fp32 out, row-major, with A (m x k) and B (n x k) bf16 row-major, i.e. both
 * operands K-major, as tcgen05.mma kind::f16 reads them. Any m, n >= 1 and k a multiple of 8 (the TMA needs
 * 16-byte row strides): the TMA zero-fills the boxes past the edges, the epilogue predicates its stores.
 *
 * One source, two builds:
 *   sm_100a, WSGEMM_TMEM_HARDWARE=1  (CMake: wsgemm::device)    the real tcgen05 instructions (B200);
 *   sm_90a,  WSGEMM_TMEM_EMULATION=1 (CMake: wsgemm::emulation) on an H100/H200: TMEM and the tensor core
 *            are emulated and every PTX rule of tcgen05 is checked; TMA, mbarriers and named barriers run
 *            natively; with happens-before tracking on (the default here) a missing fence or an early
 *            release is reported whatever the timing. --plant-missing-fence drops the epilogue's
 *            tcgen05.fence::after_thread_sync to show such a report (emulation build only).
 *
 * Tiles: one CTA per 128 x 128 tile of C (blockIdx.x: columns, blockIdx.y: rows); K in stages of 64
 * elements = 128 bytes, one 128-byte swizzle row per operand row, four UMMAs of K = 16 per stage.
 * Roles (192 threads):
 *   warp 0     TMA producer: one elected lane loads the A and B tiles of each k-block into a ring of
 *              kStages shared-memory stages (sync/pipeline.cuh: full[s] / empty[s]).
 *   warp 1     MMA warp: allocates kTmemCols TMEM columns and publishes the base address, issues the
 *              UMMAs of each stage (the warp-wide tmem/ forms: on hardware the elect.sync leader issues,
 *              in the emulation the 32 lanes share the arithmetic) and commits: empty[s] per stage,
 *              acc_full after the last; at the end frees TMEM through the dealloc barrier.
 *   warps 2-5  epilogue: warp w reads TMEM lane quarter w % 4 (2, 3, 0, 1: all four), one row of the
 *              accumulator per thread, 32 columns per tcgen05.ld, and stores them to C.
 *
 *   barrier / who arrives (count)                            who waits
 *   full[s]    TMA lane: arrive.expect_tx (1) + the copies'   MMA warp
 *              complete_tx (kStageBytes)
 *   empty[s]   MMA warp: tcgen05.commit after the stage's     TMA lane (and its producer_tail, so no commit
 *              UMMAs (1)                                      arrives after the CTA exited)
 *   acc_full   MMA warp: tcgen05.commit after the last        128 epilogue threads
 *              k-block (1)
 *   dealloc    every epilogue thread after its last           MMA warp, then tcgen05.dealloc
 *              tcgen05.ld (128; tmem/dealloc_barrier_tmem.cuh)
 *   named barrier 1 (160 = MMA warp + epilogue warps): the TMEM base address hand-off after tcgen05.alloc
 *
 * Build: cmake -S examples -B build-ex -DCMAKE_PREFIX_PATH=<wsgemm install prefix> gives tcgen05_gemm
 * (sm_90a, emulated) and tcgen05_gemm_sm100 (sm_100a). Or by hand, with <prefix>/include on the path:
 *   nvcc -std=c++17 -arch=sm_90a  -DWSGEMM_TMEM_EMULATION=1 -I<prefix>/include tcgen05_gemm.cu -o tcgen05_gemm
 *   nvcc -std=c++17 -arch=sm_100a -DWSGEMM_TMEM_HARDWARE=1  -I<prefix>/include tcgen05_gemm.cu -o tcgen05_gemm_sm100
 * Run: tcgen05_gemm [m n k] [--plant-missing-fence]. Exit 0 pass, 1 fail, 77 without a GPU of its arch.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* CUtensorMap and its enums (types only: the encoder comes through the runtime) */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#if defined(WSGEMM_TMEM_EMULATION)
#include <wsgemm/emu/emulation.cuh> /* first: the hooks sync/ reports to, the emulated TMEM backend */
#endif
#include <wsgemm/sync/elect.cuh>
#include <wsgemm/sync/mbarrier.cuh>
#include <wsgemm/sync/named_barrier.cuh>
#include <wsgemm/sync/pipeline.cuh>
#include <wsgemm/tmem/dealloc_barrier_tmem.cuh>
#include <wsgemm/tmem/desc.h>
#include <wsgemm/tmem/tmem.cuh>

#if defined(WSGEMM_TMEM_EMULATION)
constexpr bool kEmulation = true;
constexpr int kArchMajor = 9; /* an sm_90a binary runs on compute capability 9.0 */
#else
constexpr bool kEmulation = false;
constexpr int kArchMajor = 10; /* sm_100a: compute capability 10.0 */
#endif

/* ---------------------------------------------------------------- constants */

constexpr int kBlockM = 128;       /* rows of C per CTA = UMMA M = TMEM lanes */
constexpr int kBlockN = 128;       /* columns of C per CTA = UMMA N = accumulator columns */
constexpr int kBlockK = 64;        /* K per stage: 64 bf16 = one 128-byte swizzle row */
constexpr int kSwizzleBytes = 128; /* CU_TENSOR_MAP_SWIZZLE_128B on the TMA side, UMMA_SWIZZLE_128B on the MMA side */
constexpr int kUmmaK = UMMA_F16_K; /* K per tcgen05.mma kind::f16 */
constexpr int kUmmasPerStage = kBlockK / kUmmaK;
constexpr int kStages = 4;
constexpr int kABytes = kBlockM * kBlockK * 2; /* 16 KB */
constexpr int kBBytes = kBlockN * kBlockK * 2; /* 16 KB */
constexpr int kStageBytes = kABytes + kBBytes; /* what the TMA lands per stage, zero-filled edges included */
constexpr uint32_t kTmemCols = 128;            /* one fp32 accumulator of kBlockN columns */
constexpr int kEpilogueWarps = 4;
constexpr int kEpilogueThreads = 32 * kEpilogueWarps;
constexpr int kTmaWarp = 0;
constexpr int kMmaWarp = 1;
constexpr int kThreads = 32 * (2 + kEpilogueWarps); /* 192 */
constexpr int kChunkCols = 32;                      /* columns per tcgen05.ld.32x32b.x32 */
constexpr uint32_t kTmemAddrBarrier = 1;            /* named barrier id (0 is __syncthreads) */
constexpr uint32_t kTmemAddrThreads = 32 + kEpilogueThreads;

static_assert(kBlockK * 2 == kSwizzleBytes, "a stage row of one operand is exactly one 128-byte swizzle row");
static_assert(kBlockK % kUmmaK == 0, "whole UMMA K steps per stage");
static_assert(UMMA_F16_SHAPE_IS_LEGAL(1, kBlockM, kBlockN), "a legal cta_group::1 kind::f16 shape");
static_assert(TMEM_NCOLS_IS_LEGAL(kTmemCols) && kTmemCols >= (uint32_t)kBlockN,
              "tcgen05.alloc takes a power of two in [32, 512] columns, enough for the accumulator");
static_assert(kABytes % (8 * kSwizzleBytes) == 0 && kBBytes % (8 * kSwizzleBytes) == 0,
              "every operand tile starts on a 1024-byte boundary (SW128 atoms, descriptor base offset 0)");
static_assert(kBlockM <= 256 && kBlockN <= 256, "a TMA box dimension is at most 256");
static_assert(kEpilogueThreads == (int)DEALLOC_BARRIER_EPILOGUE_THREADS,
              "the dealloc barrier counts every epilogue thread");
static_assert(kBlockN % kChunkCols == 0, "the epilogue reads whole 32-column chunks");

/* ---------------------------------------------------------------- shared memory */

struct SharedStorage {
    alignas(1024) uint8_t a[kStages][kABytes]; /* swizzled operand tiles, as the TMA writes them */
    alignas(1024) uint8_t b[kStages][kBBytes];
    uint64_t full[kStages];  /* stage s holds A and B (TMA complete_tx) */
    uint64_t empty[kStages]; /* stage s may be overwritten (tcgen05.commit) */
    uint64_t acc_full;       /* the accumulator holds the finished tile (tcgen05.commit) */
    uint64_t dealloc;        /* the dealloc barrier: every epilogue thread is done with TMEM */
    uint32_t tmem_slot;      /* written by tcgen05.alloc */
};
constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024; /* + slack to align the dynamic base */
static_assert(kSmemBytes <= 227 * 1024, "fits the 227 KB of dynamic shared memory a CTA may opt into");

struct Params {
    CUtensorMap tmap_a; /* A: {k, m} bf16, box {kBlockK, kBlockM}, 128-byte swizzle */
    CUtensorMap tmap_b; /* B: {k, n} bf16, box {kBlockK, kBlockN}, 128-byte swizzle */
    float *c;
    int m, n, k;
    int plant_missing_fence; /* emulation build only: the epilogue skips its fence after acc_full */
};

/* ---------------------------------------------------------------- the TMA wrapper this kernel needs */

/* PTX ISA "Data Movement and Conversion Instructions: cp.async.bulk.tensor": 2-D tiled load of the box at
 * {c0, c1} (innermost first) of the tensor map into this CTA's shared memory at dst_smem (a shared::cta
 * address of the executing CTA is a valid shared::cluster one); completes the box's bytes, zero-filled
 * out-of-bounds elements included, as complete_tx on the mbarrier at bar_smem. The emulation build also
 * tells its happens-before tracking that the MMAs reading this block must come after the copy. */
static __device__ __forceinline__ void tma_load_2d(uint32_t dst_smem, const CUtensorMap *map, uint32_t bar_smem,
                                                   int32_t c0, int32_t c1)
{
    WSGEMM_HB(tmem_hb_tma_load(dst_smem, bar_smem));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst_smem),
                 "l"((uint64_t)(uintptr_t)map), "r"(bar_smem), "r"(c0), "r"(c1)
                 : "memory");
}

/* ---------------------------------------------------------------- role: TMA producer (warp 0) */

static __device__ void producer_role(const Params &p, SharedStorage &s, const PipelineRing &ring)
{
    if (!elect_one_sync()) return; /* one lane issues everything */
    const int m0 = (int)blockIdx.y * kBlockM, n0 = (int)blockIdx.x * kBlockN;
    const int k_blocks = (p.k + kBlockK - 1) / kBlockK;
    PipelineState st = pipeline_producer_start(); /* phase 1: the stages start empty */
    for (int kb = 0; kb < k_blocks; ++kb) {
        producer_acquire(&ring, st);
        producer_arrive_expect_tx(&ring, st, (uint32_t)kStageBytes);
        const uint32_t full = smem_u32(&s.full[st.stage]);
        tma_load_2d(smem_u32(s.a[st.stage]), &p.tmap_a, full, kb * kBlockK, m0);
        tma_load_2d(smem_u32(s.b[st.stage]), &p.tmap_b, full, kb * kBlockK, n0);
        pipeline_state_advance(&st, kStages);
    }
    /* every stage in flight released: each commit on empty[] has arrived before the CTA may exit */
    producer_tail(&ring, st);
}

/* ---------------------------------------------------------------- role: MMA warp (warp 1) */

static __device__ void mma_role(const Params &p, SharedStorage &s, const PipelineRing &ring, uint32_t tmem_base)
{
    const uint32_t idesc = umma_idesc_f16_encode(UMMA_ACC_F32, UMMA_BF16, UMMA_BF16, UMMA_K_MAJOR, UMMA_K_MAJOR, 0, 0,
                                                 (uint32_t)kBlockM, (uint32_t)kBlockN);
    const int k_blocks = (p.k + kBlockK - 1) / kBlockK;
    PipelineState st = pipeline_consumer_start();
    for (int kb = 0; kb < k_blocks; ++kb) {
        consumer_wait(&ring, st);
        __syncwarp(); /* the lanes leave the wait at different times; the UMMA forms below are warp-wide */
        tcgen05_fence_after_thread_sync(); /* the MMAs after the TMA completion the wait observed */
        const uint64_t a_desc = umma_smem_desc_k_major(smem_u32(s.a[st.stage]), UMMA_SWIZZLE_128B);
        const uint64_t b_desc = umma_smem_desc_k_major(smem_u32(s.b[st.stage]), UMMA_SWIZZLE_128B);
        for (int kk = 0; kk < kUmmasPerStage; ++kk) {
            /* K step inside the swizzle row: 16 bf16 = 32 bytes of the start address */
            const uint32_t step = (uint32_t)(kk * kUmmaK * 2);
            umma_f16_warp<1>(tmem_base, umma_smem_desc_advance(a_desc, step), umma_smem_desc_advance(b_desc, step),
                             idesc, (kb | kk) != 0 ? 1u : 0u);
        }
        umma_commit_warp<1>(&s.empty[st.stage]); /* stage s is free once these UMMAs have read it */
        pipeline_state_advance(&st, kStages);
    }
    umma_commit_warp<1>(&s.acc_full); /* the accumulator is complete when every UMMA above is */
}

/* ---------------------------------------------------------------- role: epilogue (warps 2-5) */

static __device__ void epilogue_role(const Params &p, SharedStorage &s, uint32_t tmem_base, int warp, int lane)
{
    const int quarter = warp % 4; /* tcgen05.ld reaches only lanes 32 * (warp % 4) .. +31 */
    const int row = (int)blockIdx.y * kBlockM + quarter * 32 + lane;
    const int n0 = (int)blockIdx.x * kBlockN;
    mbarrier_wait(&s.acc_full, 0u, WAIT_CTA, 0, "acc_full", 0u); /* its only phase: one tile per CTA */
    if (!(kEmulation && p.plant_missing_fence))
        tcgen05_fence_after_thread_sync(); /* our tcgen05.ld after the MMAs the commit covered */
    for (int ch = 0; ch < kBlockN / kChunkCols; ++ch) {
        uint32_t v[kChunkCols];
        __syncwarp(); /* tcgen05.ld is .sync.aligned: reconverge after the predicated stores */
        tmem_ld_32x32b_x32(tmem_base + tmem_addr((uint32_t)(quarter * 32), (uint32_t)(ch * kChunkCols)), v);
        tmem_wait_ld_regs<kChunkCols>(v); /* the registers are valid only after tcgen05.wait::ld */
        /* Thread = accumulator row: each thread stores 32 consecutive floats of its own row. Simple, not
         * coalesced across the warp; the library's sm100 epilogue stages through shared memory for TMA. */
        if (row < p.m) {
            for (int e = 0; e < kChunkCols; ++e) {
                const int col = n0 + ch * kChunkCols + e;
                if (col < p.n) p.c[(size_t)row * p.n + col] = __uint_as_float(v[e]);
            }
        }
    }
    /* Teardown: this thread reads TMEM no more; the fence orders its loads before the arrival. */
    tcgen05_fence_before_thread_sync();
    dealloc_barrier_signal_complete<1>(&s.dealloc);
}

/* ---------------------------------------------------------------- the kernel */

__global__ void __launch_bounds__(kThreads, 1) tcgen05_gemm_kernel(const __grid_constant__ Params p)
{
    extern __shared__ uint8_t smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    SharedStorage &s = *reinterpret_cast<SharedStorage *>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    const PipelineRing ring = {s.full, s.empty, (uint32_t)kStages, WAIT_CTA, WAIT_CTA, "full", "empty"};

    if (threadIdx.x == 0) {
        pipeline_init(&ring, 1u, 1u);        /* full: the TMA lane's arrive.expect_tx; empty: one commit */
        mbarrier_init(&s.acc_full, 1u);      /* one tcgen05.commit */
        dealloc_barrier_init<1>(&s.dealloc); /* 128: every epilogue thread */
        fence_mbarrier_init();               /* the inits before any other thread's arrival */
        fence_proxy_async_shared_cta();      /* ... and before the TMA completes transactions on them */
    }
    __syncwarp();       /* bar.sync is .aligned: warp 0 reconverges after thread 0's set-up */
    cta_barrier_sync(); /* __syncthreads, in a form the emulation's happens-before tracking sees */

    /* TMEM: the MMA warp allocates and hands the base address to the epilogue warps (named barrier 1). */
    uint32_t tmem_base = 0;
    if (warp == kMmaWarp)
        tmem_base = tmem_alloc_and_publish<1>(&s.tmem_slot, kTmemCols, kTmemAddrBarrier, kTmemAddrThreads);
    else if (warp != kTmaWarp)
        tmem_base = tmem_receive_address(&s.tmem_slot, kTmemAddrBarrier, kTmemAddrThreads);

    if (warp == kTmaWarp) {
        producer_role(p, s, ring);
    } else if (warp == kMmaWarp) {
        mma_role(p, s, ring, tmem_base);
        __syncwarp();
        /* relinquish the alloc permit, wait for every epilogue thread, fence, tcgen05.dealloc */
        dealloc_barrier_complete_dealloc<1, kTmemCols>(&s.dealloc, tmem_base);
    } else {
        epilogue_role(p, s, tmem_base, warp, lane);
    }
    tmem_cta_exit(); /* every commit arrival was waited for (checked by the emulation; nothing on hardware) */
}

/* ---------------------------------------------------------------- host */

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* cuTensorMapEncodeTiled's type (CUDA 12.0 ABI), looked up through the runtime so no libcuda link is needed. */
typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                    const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* A row-major rows x k bf16 matrix as a 2-D tensor map: {k, rows}, box {kBlockK, box_rows}, 128-byte swizzle
 * (what the K-major SW128 UMMA descriptor expects), out-of-bounds elements read as zero. */
static int encode_operand(encode_tiled_fn encode, CUtensorMap *map, void *gmem, int rows, int k, int box_rows)
{
    const cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)k * 2}; /* bytes between rows; dimension 0 is contiguous */
    const cuuint32_t box[2] = {(cuuint32_t)kBlockK, (cuuint32_t)box_rows};
    const cuuint32_t elem_strides[2] = {1, 1};
    const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, gmem, dims, strides, box, elem_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed (CUresult %d) for a %d x %d operand\n", (int)r, rows, k);
        return 1;
    }
    return 0;
}

static float uniform_pm1(uint64_t *state) /* uniform in [-1, 1] */
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*state >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

int main(int argc, char **argv)
{
    int dims[3] = {1000, 744, 1032}, ndims = 0, plant = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--plant-missing-fence") == 0)
            plant = 1;
        else if (ndims < 3)
            dims[ndims++] = atoi(argv[i]);
    }
    const int m = dims[0], n = dims[1], k = dims[2];
    if (m <= 0 || n <= 0 || k <= 0 || k % 8 != 0 || (ndims != 0 && ndims != 3)) {
        fprintf(stderr, "usage: %s [m n k (k a multiple of 8)] [--plant-missing-fence]\n", argv[0]);
        return 1;
    }
    if (plant && !kEmulation) {
        fprintf(stderr, "%s: planted faults exist only in the emulation build (sm_90a)\n", argv[0]);
        return 1;
    }
    int devices = 0, dev = 0, major = 0, minor = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("SKIPPED: no CUDA device\n");
        return 77;
    }
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    if (major != kArchMajor || minor != 0) {
        printf("SKIPPED: this build of tcgen05_gemm runs on compute capability %d.0 (%s); the GPU is %d.%d\n",
               kArchMajor, kEmulation ? "sm_90a, the emulation" : "sm_100a", major, minor);
        return 77;
    }

    /* inputs: uniform [-1, 1], rounded to bf16; the reference uses the rounded values */
    const size_t a_elems = (size_t)m * k, b_elems = (size_t)n * k, c_elems = (size_t)m * n;
    __nv_bfloat16 *a = (__nv_bfloat16 *)malloc(a_elems * sizeof *a), *b = (__nv_bfloat16 *)malloc(b_elems * sizeof *b);
    float *af = (float *)malloc(a_elems * sizeof(float)), *bf = (float *)malloc(b_elems * sizeof(float));
    float *c = (float *)malloc(c_elems * sizeof(float));
    uint64_t state = 2024;
    for (size_t i = 0; i < a_elems; ++i) af[i] = __bfloat162float(a[i] = __float2bfloat16(uniform_pm1(&state)));
    for (size_t i = 0; i < b_elems; ++i) bf[i] = __bfloat162float(b[i] = __float2bfloat16(uniform_pm1(&state)));
    __nv_bfloat16 *d_a, *d_b;
    float *d_c;
    CHECK_CUDA(cudaMalloc((void **)&d_a, a_elems * sizeof *a));
    CHECK_CUDA(cudaMalloc((void **)&d_b, b_elems * sizeof *b));
    CHECK_CUDA(cudaMalloc((void **)&d_c, c_elems * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_a, a, a_elems * sizeof *a, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_b, b, b_elems * sizeof *b, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_c, 0xff, c_elems * sizeof(float))); /* NaN: an element never written fails */

    void *fn = NULL;
    cudaDriverEntryPointQueryResult query;
    CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &query));
    if (query != cudaDriverEntryPointSuccess || fn == NULL) {
        fprintf(stderr, "cuTensorMapEncodeTiled is not available from the driver\n");
        return 1;
    }
    Params p;
    memset(&p, 0, sizeof p);
    if (encode_operand((encode_tiled_fn)fn, &p.tmap_a, d_a, m, k, kBlockM) ||
        encode_operand((encode_tiled_fn)fn, &p.tmap_b, d_b, n, k, kBlockN))
        return 1;
    p.c = d_c;
    p.m = m;
    p.n = n;
    p.k = k;
    p.plant_missing_fence = plant;

#if defined(WSGEMM_TMEM_EMULATION)
    /* Happens-before tracking on unless WSGEMM_TMEM_HB=0; random delays before each emulated operation
     * (WSGEMM_TMEM_DELAY_NS, default off) widen the race windows of the timing-based checks. */
    const char *hb = getenv("WSGEMM_TMEM_HB"), *delay = getenv("WSGEMM_TMEM_DELAY_NS");
    const int hb_on = !(hb && hb[0] == '0');
    tmem_host_set_happens_before(hb_on);
    tmem_host_set_random_delays(delay ? (uint32_t)atoi(delay) : 0u, 2024u);
#else
    const int hb_on = 0;
#endif
    CHECK_CUDA(cudaFuncSetAttribute(tcgen05_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmemBytes));
    const dim3 grid((unsigned)((n + kBlockN - 1) / kBlockN), (unsigned)((m + kBlockM - 1) / kBlockM));
    CHECK_CUDA(tmem_host_prepare(0)); /* before every launch: the emulation's set-up (nothing on hardware) */
    tcgen05_gemm_kernel<<<grid, kThreads, kSmemBytes>>>(p);
    CHECK_CUDA(cudaGetLastError());
    char msg[1024];
    const int leaked = tmem_host_leak_check(0, msg, sizeof msg); /* synchronizes; -1: the kernel failed */
    if (leaked != 0) {
        printf("tcgen05_gemm: FAIL: %s\n", leaked < 0 ? msg : "TMEM columns still allocated after the kernel");
        if (leaked > 0) printf("  %d columns: %s\n", leaked, msg);
        if (plant)
            printf("tcgen05_gemm: the planted missing fence was %s\n", strstr(msg, "RACE") ? "caught" : "not caught");
        return 1;
    }
    CHECK_CUDA(cudaMemcpy(c, d_c, c_elems * sizeof(float), cudaMemcpyDeviceToHost));

    /* every element against a double-precision reference of the same bf16 inputs */
    size_t bad = 0;
    double worst = 0;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            double want = 0, mag = 0;
            for (int q = 0; q < k; ++q) {
                const double x = (double)af[(size_t)i * k + q] * bf[(size_t)j * k + q];
                want += x;
                mag += fabs(x);
            }
            const double got = c[(size_t)i * n + j], err = fabs(got - want);
            const double tol = k * 0x1.0p-23 * mag + 1e-6; /* fp32 accumulation of k products */
            if (!(err <= tol)) {                           /* NaN fails */
                if (bad++ < 5) printf("  C[%d][%d] = %.8g, expected %.8g (tolerance %.3g)\n", i, j, got, want, tol);
            } else if (err > worst) {
                worst = err;
            }
        }
    }
    printf("tcgen05_gemm: %s: m %d n %d k %d, %s, %u x %u CTAs of %d threads, %d-stage ring, happens-before %s, %zu of "
           "%zu elements wrong (largest passing error %.3g)%s\n",
           bad ? "FAIL" : "PASS", m, n, k, kEmulation ? "sm_90a emulation" : "sm_100a", grid.x, grid.y, kThreads,
           kStages, hb_on ? "on" : "off", bad, c_elems, worst,
           plant ? "; the planted missing fence was NOT caught" : "");
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(a);
    free(b);
    free(af);
    free(bf);
    free(c);
    return bad || plant ? 1 : 0;
}
