// SPDX-License-Identifier: MIT
/*
 * teardown_emu: the whole TMEM teardown, tmem/dealloc_barrier_tmem.cuh's complete_dealloc included,
 * against the TMEM emulation on sm_90a (emu/, WSGEMM_TMEM_EMULATION=1). The emulation checks every PTX
 * rule (use after dealloc, dealloc of columns not held, nothing leaked, peer allocated for cta_group 2).
 *
 * Each CTA: warp 0 = MMA warp, warps 1..4 = epilogue (lane quarters 1,2,3,0).
 *   set-up: dealloc_barrier_init<CG>; fence_mbarrier_init; cluster_sync (CG 2) / cta_barrier_sync;
 *           MMA warp: tmem_alloc<CG>(slot, 512); fence_before; named_barrier_sync(1, 160) with the
 *           epilogue; fence_after; everyone reads the slot; CG 2: cluster_sync.
 *   epilogue thread: several rounds of random delay + tcgen05.ld 32x32b.x32 of its lane quarter +
 *           wait::ld (one warp per CTA sleeps long before its last load); fence_before;
 *           dealloc_barrier_signal_complete<CG>.
 *   MMA warp: dealloc_barrier_complete_dealloc<CG>(bar, base, ticks) (relinquish, wait, fence, dealloc).
 * After each launch tmem_host_leak_check must report 0 columns and no emulation error.
 *
 * Cases: cg1, cg2 (2-CTA clusters over all SMs), cg1_ticks, cg2_ticks (suspend hint), and
 * early_dealloc_caught: the MMA warp deallocates WITHOUT waiting (the dealloc-without-wait mutant) in a
 * child process; the test passes only if the emulation traps (a tcgen05.ld after the dealloc), proving
 * the positive cases could fail.
 * Usage: teardown_emu <case> [launches, default 20] [seed] [CTAs, default all SMs]
 */
#ifndef WSGEMM_WATCHDOG
#define WSGEMM_WATCHDOG 1
#endif
#ifndef WSGEMM_TMEM_EMULATION
#define WSGEMM_TMEM_EMULATION 1
#endif

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/emulation.cuh" /* first: the hooks sync/ reports to and the TMEM backend */
#include "sync/named_barrier.cuh"
#include "test_util.cuh"
#include "testing.h"
#include "tmem/dealloc_barrier_tmem.cuh"

enum { TD_THREADS = 160, TD_ADDR_BARRIER = 1, TD_LOADS = 3, TD_LONG_NS = 20000 };
/* In the early-dealloc mutant the slow warp's last load must come after the MMA warp's dealloc: on the
 * H200 a 20 us sleep was not enough for cta_group 1 (the emulated dealloc finished after the load), so
 * the mutant sleeps 2 ms. */
enum { TD_MUTANT_LONG_NS = 2000000 };

template <int kCtaGroup, int EarlyDealloc>
__global__ void __launch_bounds__(TD_THREADS, 1) teardown_kernel(uint32_t *sink, uint32_t ticks, uint32_t seed)
{
    __shared__ uint64_t dealloc_bar;
    __shared__ uint32_t tmem_slot;
    const uint32_t warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
        dealloc_barrier_init<kCtaGroup>(&dealloc_bar);
        fence_mbarrier_init();
    }
    __syncwarp(); /* barrier.cluster is .aligned */
    if (kCtaGroup == 2)
        cluster_sync();
    else
        cta_barrier_sync(); /* __syncthreads, seen by the emulation's happens-before tracking */
    if (warp == 0) {
        tmem_alloc<kCtaGroup>(&tmem_slot, 512);
        tcgen05_fence_before_thread_sync();
    }
    named_barrier_sync(TD_ADDR_BARRIER, TD_THREADS);
    tcgen05_fence_after_thread_sync();
    const uint32_t tmem_base = tmem_slot;
    if (kCtaGroup == 2) cluster_sync(); /* both allocations done before any dealloc in the pair (docs/protocol.md) */

    if (warp == 0) {
        if (EarlyDealloc) { /* the mutant: no wait on the dealloc barrier */
            tmem_relinquish_alloc_permit<kCtaGroup>();
            tmem_dealloc<kCtaGroup>(tmem_base, 512);
        } else {
            dealloc_barrier_complete_dealloc<kCtaGroup>(&dealloc_bar, tmem_base, ticks);
        }
    } else {
        uint32_t rng = rng_seed(seed, blockIdx.x, threadIdx.x);
        const uint32_t slow_warp = 1 + payload_word(blockIdx.x, seed, 3u) % 4;
        uint32_t acc = 0;
        for (uint32_t l = 0; l < TD_LOADS; ++l) {
            if (warp == slow_warp && l == TD_LOADS - 1)
                sleep_ns(EarlyDealloc ? TD_MUTANT_LONG_NS : TD_LONG_NS);
            else
                random_delay(&rng, 1000);
            __syncwarp(); /* tcgen05.ld is .sync.aligned: reconverge after the per-lane delay */
            uint32_t regs[32];
            const uint32_t lane_quarter = 32u * (warp % 4);
            tmem_ld_32x32b_x32(tmem_base + (lane_quarter << 16) + 32u * (l + 4u * (warp % 4)), regs);
            tmem_wait_ld();
            for (int r = 0; r < 32; ++r) acc += regs[r];
        }
        if (acc == 0x9E3779B9u) /* keeps the loads; practically never true */
            sink[blockIdx.x] = acc;
        tcgen05_fence_before_thread_sync();
        dealloc_barrier_signal_complete<kCtaGroup>(&dealloc_bar);
    }
}

template <int kCtaGroup, int EarlyDealloc>
static int launch_and_check(int ctas, uint32_t ticks, uint32_t seed, char *msg, size_t msg_size, uint32_t *d_sink)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)ctas, 1, 1);
    cfg.blockDim = dim3(TD_THREADS, 1, 1);
    /* Over half an SM's shared memory: one CTA per SM, as in the real kernel, so co-resident CTAs never
     * wait for each other's 512 columns (with pairs that could deadlock). */
    int dev = 0, smem_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    cfg.dynamicSmemBytes = (size_t)smem_per_sm / 2 + 1024;
    CUDA_CHECK(cudaFuncSetAttribute(teardown_kernel<kCtaGroup, EarlyDealloc>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cfg.dynamicSmemBytes));
    cluster_launch_config(&cfg, attr, (unsigned)kCtaGroup);
    tmem_host_set_random_delays(1000, seed);
    CUDA_CHECK(tmem_host_prepare(0));
    cudaError_t e = cudaLaunchKernelEx(&cfg, teardown_kernel<kCtaGroup, EarlyDealloc>, d_sink, ticks, seed);
    if (e != cudaSuccess) {
        snprintf(msg, msg_size, "launch: %s", cudaGetErrorName(e));
        return -1;
    }
    return tmem_host_leak_check(0, msg, msg_size);
}

template <int kCtaGroup>
static int run(int launches, uint32_t ticks, uint32_t seed, int ctas_arg)
{
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int ctas = ctas_arg > 0 && ctas_arg < sms ? ctas_arg : sms;
    if (kCtaGroup == 2) ctas = ctas < 2 ? 2 : ctas / 2 * 2;
    printf("teardown_emu: cta_group %d, %s (ticks %u), launches %d, CTAs %d (%d clusters of %d) on %d SMs, 512 TMEM "
           "columns per CTA (emulated), %d epilogue threads x %d loads each\n",
           kCtaGroup, ticks ? "wait with suspend hint" : "spin wait", ticks, launches, ctas, ctas / kCtaGroup,
           kCtaGroup, sms, 128, TD_LOADS);
    uint32_t *d_sink = NULL;
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof(uint32_t) * (size_t)ctas));
    int bad = 0;
    for (int l = 0; l < launches; ++l) {
        char msg[512];
        int leaked = launch_and_check<kCtaGroup, 0>(ctas, ticks, seed + (uint32_t)l, msg, sizeof(msg), d_sink);
        if (leaked != 0) {
            printf("  launch %d: %s %s\n", l, leaked < 0 ? "FAILED:" : "leaked columns:", msg);
            ++bad;
            if (leaked < 0) break; /* the context is gone after a trap */
        }
    }
    printf("teardown_emu: %s: cta_group %d, ticks %u, %d launches x %d CTAs, %d bad launches\n", bad ? "FAIL" : "PASS",
           kCtaGroup, ticks, launches, ctas, bad);
    return bad ? 1 : 0;
}

/* Child: the early-dealloc mutant; exit 3 if the emulation reported an error, 0 if it went unnoticed. */
static int child_early(int cg)
{
    uint32_t *d_sink = NULL;
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof(uint32_t) * 2));
    char msg[512];
    int r = cg == 2 ? launch_and_check<2, 1>(2, 0, 11, msg, sizeof(msg), d_sink)
                    : launch_and_check<1, 1>(1, 0, 11, msg, sizeof(msg), d_sink);
    printf("child: cta_group %d early dealloc: leak check %d: %s\n", cg, r, msg[0] ? msg : "(clean)");
    return r < 0 ? 3 : 0;
}

static int early_dealloc_caught(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) return 1;
    self[n] = 0;
    int fails = 0;
    for (int cg = 1; cg <= 2; ++cg) {
        char cmd[4200], line[1024];
        snprintf(cmd, sizeof(cmd), "'%s' child_early_cg%d 2>&1", self, cg);
        FILE *p = popen(cmd, "r");
        int saw_use_after_free = 0;
        while (p && fgets(line, sizeof(line), p)) {
            printf("    | %s", line);
            if (strstr(line, "UNALLOCATED") || strstr(line, "unallocated") || strstr(line, "after dealloc"))
                saw_use_after_free = 1;
        }
        int st = p ? pclose(p) : -1;
        int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        int ok = rc == 3;
        printf("teardown_emu: cta_group %d dealloc without wait: child exit %d (%s), use-after-dealloc named: %s: %s\n",
               cg, rc,
               rc == 3   ? "emulation error"
               : rc == 0 ? "NOT CAUGHT"
                         : "other failure",
               saw_use_after_free ? "yes" : "no", ok ? "ok" : "FAIL");
        fails += !ok;
    }
    printf("teardown_emu: %s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "cg1";
    if (strncmp(which, "child_early_cg", 14) == 0) return child_early(which[14] == '2' ? 2 : 1);
    int launches = (int)arg_long(argc, argv, 2, 20);
    uint32_t seed = (uint32_t)arg_long(argc, argv, 3, 777);
    int ctas = (int)arg_long(argc, argv, 4, 0);
    testing_require_gpu("teardown_emu");
    if (strcmp(which, "cg1") == 0) return run<1>(launches, 0, seed, ctas);
    if (strcmp(which, "cg2") == 0) return run<2>(launches, 0, seed, ctas);
    if (strcmp(which, "cg1_ticks") == 0) return run<1>(launches, DEALLOC_BARRIER_TICKS_DEFAULT, seed, ctas);
    if (strcmp(which, "cg2_ticks") == 0) return run<2>(launches, DEALLOC_BARRIER_TICKS_DEFAULT, seed, ctas);
    if (strcmp(which, "early_dealloc_caught") == 0) return early_dealloc_caught();
    fprintf(stderr, "teardown_emu: unknown case '%s'\n", which);
    return 2;
}
