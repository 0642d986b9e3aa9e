// SPDX-License-Identifier: MIT
/*
 * dealloc_barrier: the TMEM dealloc barrier's synchronisation half (sync/dealloc_barrier.cuh) on real
 * hardware; the kernel and what it checks are described in dealloc_kernels.cuh.
 *
 * Cases:
 *   cg1_spin, cg1_ticks   cta_group 1: one CTA per SM, 128 signalling threads, the waiter must see all
 *                         128 records; wait without / with a suspend hint (10,000,000 ns, Modular's).
 *   cg2_spin, cg2_ticks   cta_group 2: 2-CTA clusters over all SMs (SMs/2 clusters), each CTA's waiter
 *                         must see all 256 records (its own 128 and the peer's 128).
 *   cg1_low_count_caught, cg2_low_count_caught
 *                         self-test of the checker: the barrier is initialised with a count one short
 *                         of the arrivals; the test PASSES only if early passes are detected (so the
 *                         check above can fail).
 * Usage: dealloc_barrier <case> [rounds per CTA, default 2000] [seed] [CTAs, default all SMs]
 * Prints the parameters (cta_group, ticks, rounds, CTAs, clusters, SMs) and PASS/FAIL. Built with the
 * watchdog on: a lost arrival traps instead of hanging.
 */
#ifndef WSGEMM_WATCHDOG
#define WSGEMM_WATCHDOG 1
#endif

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dealloc_kernels.cuh"
#include "testing.h"

template <int kCtaGroup>
static int run(uint32_t rounds, uint32_t ticks, int low_count, uint32_t seed, int ctas_arg)
{
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int want = ctas_arg > 0 && ctas_arg < sms ? ctas_arg : sms;
    const int ctas = kCtaGroup == 2 ? (want < 2 ? 2 : (want / 2) * 2) : want;
    const uint32_t count_delta = low_count ? (uint32_t)-1 : 0u; /* 127 x cta_group when planted */

    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)ctas, 1, 1);
    cfg.blockDim = dim3(DB_THREADS, 1, 1);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = 0;
    cluster_launch_config(&cfg, attr, (unsigned)kCtaGroup);
    int max_clusters = -1; /* informational only: -1 when the query is not supported */
    if (cudaOccupancyMaxActiveClusters(&max_clusters, dealloc_barrier_kernel<kCtaGroup>, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        max_clusters = -1;
    }

    printf("dealloc_barrier: cta_group %d, %s, ticks %u, rounds per CTA %u, CTAs %d, clusters %d of %d CTAs "
           "(max active %d), SMs %d, signallers per CTA %d, arrivals per barrier %d%s\n",
           kCtaGroup, ticks ? "try_wait with suspend hint" : "spin", ticks, rounds, ctas, ctas / kCtaGroup, kCtaGroup,
           max_clusters, sms, DB_SIGNALLERS, DB_SIGNALLERS * kCtaGroup,
           low_count ? ", PLANTED count one short per CTA (expect early passes)" : "");

    DeallocResult *d_res = NULL;
    CUDA_CHECK(cudaMalloc(&d_res, sizeof(DeallocResult) * (size_t)ctas));
    CUDA_CHECK(cudaMemset(d_res, 0, sizeof(DeallocResult) * (size_t)ctas));
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    CUDA_CHECK(cudaEventRecord(t0));
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, dealloc_barrier_kernel<kCtaGroup>, d_res, rounds, ticks, count_delta, seed));
    CUDA_CHECK(cudaEventRecord(t1));
    CUDA_CHECK(cudaDeviceSynchronize());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));

    DeallocResult *res = (DeallocResult *)calloc((size_t)ctas, sizeof(DeallocResult));
    CUDA_CHECK(cudaMemcpy(res, d_res, sizeof(DeallocResult) * (size_t)ctas, cudaMemcpyDeviceToHost));
    unsigned long long early = 0;
    int incomplete = 0, shown = 0, distinct = 0;
    unsigned char *seen = (unsigned char *)calloc(4096, 1);
    for (int c = 0; c < ctas; ++c) {
        const DeallocResult *r = &res[c];
        early += r->early_passes;
        if (r->rounds_done != rounds) ++incomplete;
        if (r->smid < 4096 && !seen[r->smid]) {
            seen[r->smid] = 1;
            ++distinct;
        }
        if (kCtaGroup == 2 && r->cluster_rank != (uint32_t)(c % 2))
            ++incomplete; /* the pair is not the ranks {2k, 2k+1} we assume */
        if ((r->early_passes || r->rounds_done != rounds) && shown++ < 5)
            printf("  CTA %d (SM %u, rank %u): %u early passes, rounds %u; first: round %u, counter %u of %u, "
                   "missing flag %d\n",
                   c, r->smid, r->cluster_rank, r->early_passes, r->rounds_done, r->first_round, r->first_counter,
                   DB_SIGNALLERS * kCtaGroup, (int)r->first_missing_flag);
    }
    int pass = low_count ? (early > 0 && incomplete == 0) : (early == 0 && incomplete == 0);
    printf("dealloc_barrier: %s: cta_group %d, ticks %u, %u rounds x %d CTAs on %d distinct SMs, %llu early passes%s, "
           "%.1f ms (%.2f us per round)\n",
           pass ? "PASS" : "FAIL", kCtaGroup, ticks, rounds, ctas, distinct, early,
           low_count ? " (the planted fault must show some)" : " (must be 0)", ms, 1000.0 * ms / rounds);
    free(seen);
    free(res);
    CUDA_CHECK(cudaFree(d_res));
    return pass ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "cg1_spin";
    uint32_t rounds = (uint32_t)arg_long(argc, argv, 2, 2000);
    uint32_t seed = (uint32_t)arg_long(argc, argv, 3, 4242);
    int ctas = (int)arg_long(argc, argv, 4, 0);
    testing_require_gpu("dealloc_barrier");
    if (strcmp(which, "cg1_spin") == 0) return run<1>(rounds, 0, 0, seed, ctas);
    if (strcmp(which, "cg1_ticks") == 0) return run<1>(rounds, DEALLOC_BARRIER_TICKS_DEFAULT, 0, seed, ctas);
    if (strcmp(which, "cg2_spin") == 0) return run<2>(rounds, 0, 0, seed, ctas);
    if (strcmp(which, "cg2_ticks") == 0) return run<2>(rounds, DEALLOC_BARRIER_TICKS_DEFAULT, 0, seed, ctas);
    if (strcmp(which, "cg1_low_count_caught") == 0) return run<1>(rounds, 0, 1, seed, ctas);
    if (strcmp(which, "cg2_low_count_caught") == 0) return run<2>(rounds, 0, 1, seed, ctas);
    fprintf(stderr, "dealloc_barrier: unknown case '%s'\n", which);
    return 2;
}
