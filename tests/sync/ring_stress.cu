// SPDX-License-Identifier: MIT
/*
 * ring_stress: the full[s]/empty[s] ring of sync/pipeline.cuh under load on every SM.
 *
 * One CTA per SM (the dynamic shared memory is over half an SM's, so two cannot share one). Per CTA:
 *   warp 0          producer: producer_acquire(empty[s]) -> every lane writes its payload word ->
 *                   producer_commit (each lane arrives on full[s]: count 32)
 *   warps 1..2      consumers: consumer_wait(full[s]) -> read the word, sleep, read it again, compare
 *                   both with the expected value -> consumer_release (each lane: count 64)
 * with random nanosleep delays in every role. A stage released too early is overwritten between the
 * consumer's two reads, a full signalled too early shows a stale word; both count as errors. The
 * producer ends with producer_tail. Stages = 1, 2, 4, 8 (one ctest case each), and
 * stages2_early_release_caught: a planted fault (release between the two reads) that the checker must
 * report, so the test is shown to be able to fail.
 *
 * Usage: ring_stress <stagesN> [iterations per CTA, default 131072] [seed] [CTAs, default one per SM]
 * (the last two let compute-sanitizer runs stay small).
 * Prints the parameters (stages, iterations = phases of the ring per CTA, CTAs, SMs covered) and the
 * result. Exit 0 on success, 1 on a wrong payload or count, 77 without a GPU. Built with the
 * watchdog, so a lost arrival traps (launch failure) instead of hanging.
 */
#ifndef WSGEMM_WATCHDOG
#define WSGEMM_WATCHDOG 1
#endif

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sync/pipeline.cuh"
#include "test_util.cuh"
#include "testing.h"

enum { CONSUMER_WARPS = 2, THREADS = 32 * (1 + CONSUMER_WARPS), MAX_DELAY_NS = 2000 };

template <int Stages>
struct RingSmem {
    uint64_t full[Stages];
    uint64_t empty[Stages];
    uint32_t payload[Stages][32];
};

struct RingResult {
    uint32_t errors;
    uint32_t first_iter, first_lane, first_got, first_expected;
    uint32_t consumed[CONSUMER_WARPS]; /* iterations each consumer warp checked */
    uint32_t produced;
    uint32_t smid;
};

/* EarlyRelease plants a fault: the consumer releases the stage between its two reads, so the producer
 * may overwrite it while it is still being read; the checker must then report errors. */
template <int Stages, int EarlyRelease>
__global__ void __launch_bounds__(THREADS, 1)
    ring_stress_kernel(RingResult *results, uint32_t iterations, uint32_t seed)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    RingSmem<Stages> *smem = (RingSmem<Stages> *)smem_raw;
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, cta = blockIdx.x;
    RingResult *res = &results[cta];
    PipelineRing ring = {smem->full, smem->empty, (uint32_t)Stages, WAIT_CTA, WAIT_CTA, "ring.full", "ring.empty"};

    if (threadIdx.x == 0) {
        /* full: the 32 producer lanes each arrive; empty: every consumer lane arrives. */
        pipeline_init(&ring, 32u, 32u * CONSUMER_WARPS);
        fence_mbarrier_init();
        res->smid = sm_id();
    }
    __syncthreads();

    uint32_t rng = rng_seed(seed, cta, threadIdx.x);
    if (warp == 0) {
        PipelineState st = pipeline_producer_start();
        for (uint32_t it = 0; it < iterations; ++it) {
            random_delay(&rng, MAX_DELAY_NS);
            producer_acquire(&ring, st);
            random_delay(&rng, MAX_DELAY_NS);
            smem->payload[st.stage][lane] = payload_word(cta, it, lane);
            producer_commit(&ring, st);
            pipeline_state_advance(&st, Stages);
        }
        producer_tail(&ring, st);
        if (lane == 0) res->produced = iterations;
    } else {
        PipelineState st = pipeline_consumer_start();
        uint32_t checked = 0;
        for (uint32_t it = 0; it < iterations; ++it) {
            random_delay(&rng, MAX_DELAY_NS);
            consumer_wait(&ring, st);
            const uint32_t expected = payload_word(cta, it, lane);
            uint32_t got = ((volatile uint32_t *)smem->payload[st.stage])[lane];
            if (EarlyRelease) consumer_release(&ring, st);
            random_delay(&rng, MAX_DELAY_NS);
            uint32_t again = ((volatile uint32_t *)smem->payload[st.stage])[lane];
            if (got != expected || again != expected) {
                uint32_t bad = got != expected ? got : again;
                if (atomicAdd(&res->errors, 1u) == 0) {
                    res->first_iter = it;
                    res->first_lane = lane;
                    res->first_got = bad;
                    res->first_expected = expected;
                }
            }
            if (!EarlyRelease) consumer_release(&ring, st);
            pipeline_state_advance(&st, Stages);
            ++checked;
        }
        if (lane == 0) res->consumed[warp - 1] = checked;
    }
}

template <int Stages, int EarlyRelease>
static int run(uint32_t iterations, uint32_t seed, int ctas_arg)
{
    int dev = 0, sms = 0, smem_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    const int all_sms = sms;
    if (ctas_arg > 0 && ctas_arg < sms) sms = ctas_arg; /* from here on: the number of CTAs */
    /* Over half an SM's shared memory: at most one CTA per SM, so every SM hosts exactly one ring. */
    size_t smem_bytes = (size_t)smem_per_sm / 2 + 1024;
    if (smem_bytes < sizeof(RingSmem<Stages>)) smem_bytes = sizeof(RingSmem<Stages>);
    CUDA_CHECK(cudaFuncSetAttribute(ring_stress_kernel<Stages, EarlyRelease>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_bytes));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ring_stress_kernel<Stages, EarlyRelease>, THREADS,
                                                             smem_bytes));
    printf("ring_stress: stages %d, iterations (ring phases) per CTA %u, CTAs %d on a GPU of %d SMs (occupancy %d "
           "CTA/SM), producer 1 warp, consumers %d warps, seed %u\n",
           Stages, iterations, sms, all_sms, per_sm, CONSUMER_WARPS, seed);

    RingResult *d_res = NULL;
    CUDA_CHECK(cudaMalloc(&d_res, sizeof(RingResult) * (size_t)sms));
    CUDA_CHECK(cudaMemset(d_res, 0, sizeof(RingResult) * (size_t)sms));
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    CUDA_CHECK(cudaEventRecord(t0));
    ring_stress_kernel<Stages, EarlyRelease><<<sms, THREADS, smem_bytes>>>(d_res, iterations, seed);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(t1));
    CUDA_CHECK(cudaDeviceSynchronize());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));

    RingResult *res = (RingResult *)calloc((size_t)sms, sizeof(RingResult));
    CUDA_CHECK(cudaMemcpy(res, d_res, sizeof(RingResult) * (size_t)sms, cudaMemcpyDeviceToHost));
    unsigned char *seen = (unsigned char *)calloc(4096, 1);
    int distinct = 0, bad_ctas = 0;
    unsigned long long errors = 0, checked = 0;
    for (int c = 0; c < sms; ++c) {
        const RingResult *r = &res[c];
        int ok = r->errors == 0 && r->produced == iterations;
        for (int w = 0; w < CONSUMER_WARPS; ++w) {
            ok = ok && r->consumed[w] == iterations;
            checked += r->consumed[w];
        }
        errors += r->errors;
        if (r->smid < 4096 && !seen[r->smid]) {
            seen[r->smid] = 1;
            ++distinct;
        }
        if (!ok && bad_ctas++ < 5)
            printf("  CTA %d (SM %u): %u errors, produced %u, consumed %u/%u; first: iteration %u lane %u got 0x%08x "
                   "expected 0x%08x\n",
                   c, r->smid, r->errors, r->produced, r->consumed[0], r->consumed[1], r->first_iter, r->first_lane,
                   r->first_got, r->first_expected);
    }
    int pass = EarlyRelease ? errors > 0 : bad_ctas == 0;
    if (EarlyRelease)
        printf("ring_stress: planted early release: the checker %s\n",
               errors > 0 ? "caught it (errors above are expected)" : "did NOT notice it");
    if (distinct != sms) printf("ring_stress: WARNING: the CTAs ran on %d distinct SMs, not all %d\n", distinct, sms);
    printf("ring_stress: %s: stages %d, %d CTAs on %d distinct SMs, %llu stage reads checked (x32 lanes), %llu "
           "errors, %d bad CTAs, %.1f ms\n",
           pass ? "PASS" : "FAIL", Stages, sms, distinct, checked, errors, bad_ctas, ms);
    free(seen);
    free(res);
    CUDA_CHECK(cudaFree(d_res));
    return pass ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "stages4";
    uint32_t iterations = (uint32_t)arg_long(argc, argv, 2, 131072);
    uint32_t seed = (uint32_t)arg_long(argc, argv, 3, 12345);
    int ctas = (int)arg_long(argc, argv, 4, 0);
    testing_require_gpu("ring_stress");
    if (strcmp(which, "stages1") == 0) return run<1, 0>(iterations, seed, ctas);
    if (strcmp(which, "stages2") == 0) return run<2, 0>(iterations, seed, ctas);
    if (strcmp(which, "stages4") == 0) return run<4, 0>(iterations, seed, ctas);
    if (strcmp(which, "stages8") == 0) return run<8, 0>(iterations, seed, ctas);
    if (strcmp(which, "stages2_early_release_caught") == 0) return run<2, 1>(iterations, seed, ctas);
    fprintf(stderr, "ring_stress: unknown case '%s' (stages1|stages2|stages4|stages8|stages2_early_release_caught)\n",
            which);
    return 2;
}
