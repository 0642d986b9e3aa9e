// SPDX-License-Identifier: MIT
/*
 * ring_rowsum.cu - a warp-specialized kernel of one's own on wsgemm's device headers (wsgemm::device):
 * the row sums of a row-major fp32 matrix, streamed through shared memory by the TMA.
 *
 * Each CTA sums kRowsPerCta consecutive rows, kRowsPerStage rows at a time, through a ring of kStages
 * shared-memory stages (sync/pipeline.cuh). Roles, by warp:
 *   warp 0      producer: per chunk, producer_acquire(empty[s]) -> one elected lane arms full[s] with the
 *               chunk's byte count and issues one TMA bulk copy global -> stage s that completes on full[s]
 *   warps 1..4  consumers (128 threads): consumer_wait(full[s]) -> warp w sums row w of the stage ->
 *               consumer_release(empty[s]) -> lane 0 writes the sum into sums[] in shared memory
 * Teardown, on the dealloc barrier (sync/dealloc_barrier.cuh: the epilogue threads tell the owning warp
 * that they are done with a resource, which it may then release): every consumer thread signals once
 * when its warp's sums are written; the producer warp, after producer_tail (every stage released, so no
 * copy or arrival is still in flight), waits on the barrier, stores sums[] to global memory with one TMA
 * bulk store, waits until the store has read shared memory, and invalidates the barriers.
 *
 *   barrier       count                       arrivals
 *   full[s]       1 + tx bytes                producer lane (arrive.expect_tx) + the copy's complete_tx
 *   empty[s]      128                         every consumer thread, once per chunk
 *   teardown      128 (dealloc barrier, cg 1) every consumer thread, once
 *
 * Build (after cmake --install of wsgemm): cmake -S examples -B build-ex -DCMAKE_PREFIX_PATH=<prefix>,
 * then build-ex/ring_rowsum [rows cols]. Exit 0 pass, 1 fail, 77 without an sm_90 or newer GPU.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include <wsgemm/sync/dealloc_barrier.cuh>
#include <wsgemm/sync/elect.cuh>
#include <wsgemm/sync/pipeline.cuh>

constexpr int kStages = 4;
constexpr int kConsumerWarps = 4;
constexpr int kRowsPerStage = kConsumerWarps; /* one row per consumer warp and chunk */
constexpr int kRowsPerCta = 64;
constexpr int kChunks = kRowsPerCta / kRowsPerStage;
constexpr int kThreads = 32 * (1 + kConsumerWarps);
constexpr int kMaxCols = 4096;
static_assert(kRowsPerCta % kRowsPerStage == 0, "a CTA's rows are whole chunks");
static_assert(32 * kConsumerWarps == DEALLOC_BARRIER_EPILOGUE_THREADS,
              "every consumer thread signals the teardown barrier, whose count is the epilogue threads");
static_assert(kRowsPerCta * sizeof(float) % 16 == 0, "the TMA store of sums[] moves multiples of 16 bytes");

/* PTX ISA "cp.async.bulk": global -> shared bulk copy by the TMA, completing `bytes` of tx-count on the
 * mbarrier. The destination and source are 16-byte aligned, bytes a multiple of 16. */
static __device__ __forceinline__ void bulk_copy_g2s(void *dst_smem, const void *src_gmem, uint32_t bytes,
                                                     uint64_t *bar_smem)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_u32(dst_smem)),
                 "l"(src_gmem), "r"(bytes), "r"(smem_u32(bar_smem))
                 : "memory");
}

/* PTX ISA "cp.async.bulk": shared -> global bulk copy by the TMA, tracked by a bulk async-group. */
static __device__ __forceinline__ void bulk_copy_s2g(void *dst_gmem, const void *src_smem, uint32_t bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst_gmem), "r"(smem_u32(src_smem)),
                 "r"(bytes)
                 : "memory");
}

/* PTX ISA "cp.async.bulk.commit_group": close the group of this thread's bulk copies issued so far. */
static __device__ __forceinline__ void bulk_commit_group(void)
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* PTX ISA "cp.async.bulk.wait_group": .read 0: every committed group has finished READING its source, so
 * the shared memory may be reused (or the CTA may exit). */
static __device__ __forceinline__ void bulk_wait_group_read_all(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

struct RowSumSmem {
    uint64_t full[kStages];
    uint64_t empty[kStages];
    uint64_t teardown; /* the dealloc barrier */
    alignas(16) float sums[kRowsPerCta];
    alignas(128) float stage[1]; /* kStages x kRowsPerStage x cols floats (dynamic shared memory) */
};

static size_t smem_bytes_for(int cols)
{
    return offsetof(RowSumSmem, stage) + sizeof(float) * (size_t)kStages * kRowsPerStage * cols;
}

static __device__ void producer(RowSumSmem *sm, const PipelineRing *ring, const float *x_gmem, float *out_gmem,
                                int cols)
{
    const uint32_t chunk_bytes = (uint32_t)(sizeof(float) * kRowsPerStage * cols);
    const float *src = x_gmem + (size_t)blockIdx.x * kRowsPerCta * cols;
    PipelineState st = pipeline_producer_start();
    for (int c = 0; c < kChunks; ++c) {
        producer_acquire(ring, st);
        __syncwarp(); /* the lanes leave the wait loop at different times; elect.sync needs all 32 */
        if (elect_one_sync()) {
            producer_arrive_expect_tx(ring, st, chunk_bytes);
            bulk_copy_g2s(sm->stage + (size_t)st.stage * kRowsPerStage * cols, src + (size_t)c * kRowsPerStage * cols,
                          chunk_bytes, &ring->full[st.stage]);
        }
        __syncwarp();
        pipeline_state_advance(&st, kStages);
    }
    producer_tail(ring, st);

    dealloc_barrier_wait<1>(&sm->teardown); /* every sum is in sums[] (and fenced for the TMA) */
    __syncwarp();
    if (elect_one_sync()) {
        bulk_copy_s2g(out_gmem + (size_t)blockIdx.x * kRowsPerCta, sm->sums, sizeof(float) * kRowsPerCta);
        bulk_commit_group();
        bulk_wait_group_read_all();
        /* every arrival on these barriers has completed (tail and teardown waits): retire them */
        for (int s = 0; s < kStages; ++s) {
            mbarrier_inval(&sm->full[s]);
            mbarrier_inval(&sm->empty[s]);
        }
        mbarrier_inval(&sm->teardown);
    }
    __syncwarp();
}

static __device__ void consumer(RowSumSmem *sm, const PipelineRing *ring, int cols, int row_in_stage, int lane)
{
    PipelineState st = pipeline_consumer_start();
    for (int c = 0; c < kChunks; ++c) {
        consumer_wait(ring, st);
        const float *row = sm->stage + ((size_t)st.stage * kRowsPerStage + row_in_stage) * cols;
        float sum = 0.0f;
        for (int i = lane; i < cols; i += 32) sum += row[i];
        consumer_release(ring, st);
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        if (lane == 0) sm->sums[c * kRowsPerStage + row_in_stage] = sum;
        pipeline_state_advance(&st, kStages);
    }
    /* sums[] written with ordinary stores is read by the TMA (async proxy): fence, then signal */
    fence_proxy_async_shared_cta();
    dealloc_barrier_signal_complete<1>(&sm->teardown);
}

__global__ void __launch_bounds__(kThreads, 1) ring_rowsum_kernel(const float *x_gmem, float *out_gmem, int cols)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    RowSumSmem *sm = (RowSumSmem *)smem_raw;
    PipelineRing ring = {sm->full, sm->empty, (uint32_t)kStages, WAIT_CTA, WAIT_CTA, "full", "empty"};
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;

    if (threadIdx.x == 0) {
        pipeline_init(&ring, 1u, 32u * kConsumerWarps); /* full: the producer's arrive.expect_tx; empty: consumers */
        dealloc_barrier_init<1>(&sm->teardown);
        fence_mbarrier_init();          /* the inits before any arrival of another thread */
        fence_proxy_async_shared_cta(); /* ... and before the TMA completes transactions on them */
    }
    __syncthreads();

    if (warp == 0)
        producer(sm, &ring, x_gmem, out_gmem, cols);
    else
        consumer(sm, &ring, cols, warp - 1, lane);
}

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const int rows = argc > 1 ? atoi(argv[1]) : 8192;
    const int cols = argc > 2 ? atoi(argv[2]) : 1000;
    if (rows <= 0 || rows % kRowsPerCta != 0 || cols <= 0 || cols % 4 != 0 || cols > kMaxCols) {
        fprintf(stderr, "usage: %s [rows (a multiple of %d)] [cols (a multiple of 4, at most %d)]\n", argv[0],
                kRowsPerCta, kMaxCols);
        return 1;
    }
    int devices = 0, dev = 0, major = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("SKIPPED: no CUDA device\n");
        return 77;
    }
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    if (major < 9) {
        printf("SKIPPED: ring_rowsum needs sm_90 or newer (TMA bulk copies, mbarrier tx-counts); cc %d.x\n", major);
        return 77;
    }

    const size_t n = (size_t)rows * cols;
    float *x = (float *)malloc(n * sizeof(float));
    float *got = (float *)malloc((size_t)rows * sizeof(float));
    uint64_t state = 42;
    for (size_t i = 0; i < n; ++i) { /* uniform in [-1, 1] */
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)((double)(state >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    }
    float *d_x, *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_out, (size_t)rows * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_out, 0xff, (size_t)rows * sizeof(float))); /* NaN: an unwritten sum fails */

    const size_t smem = smem_bytes_for(cols);
    CHECK_CUDA(cudaFuncSetAttribute(ring_rowsum_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    ring_rowsum_kernel<<<rows / kRowsPerCta, kThreads, smem>>>(d_x, d_out, cols);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got, d_out, (size_t)rows * sizeof(float), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int r = 0; r < rows; ++r) {
        double want = 0, mag = 0;
        for (int c = 0; c < cols; ++c) {
            want += x[(size_t)r * cols + c];
            mag += fabs(x[(size_t)r * cols + c]);
        }
        const double tol = cols * 0x1.0p-24 * mag + 1e-30; /* fp32 sums of `cols` terms */
        if (!(fabs(got[r] - want) <= tol) && bad++ < 5)
            printf("  row %d: got %.8g, expected %.8g (tolerance %.3g)\n", r, got[r], want, tol);
    }
    printf("ring_rowsum: %s: %d x %d, %d CTAs of %d threads, %d-stage ring of %zu-byte stages, %d of %d row sums "
           "wrong\n",
           bad ? "FAIL" : "PASS", rows, cols, rows / kRowsPerCta, kThreads, kStages,
           sizeof(float) * kRowsPerStage * cols, bad, rows);
    cudaFree(d_x);
    cudaFree(d_out);
    free(x);
    free(got);
    return bad ? 1 : 0;
}
