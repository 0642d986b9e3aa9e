// SPDX-License-Identifier: MIT
/*
 * watchdog_negative: proves the watchdog turns a hang into a diagnosable error.
 *
 * The parent (case "fires") runs this executable twice as child processes (a trap destroys the CUDA
 * context, so the fault must happen in a process of its own):
 *   child "wrong_count": the dealloc barrier of dealloc_kernels.cuh initialised with 129 x cta_group
 *       while only 128 x cta_group threads arrive, so the waiter can never pass. Expected: the watchdog
 *       prints "wsgemm watchdog: wait on dealloc_barrier[0] ..." and traps, the launch fails with
 *       cudaErrorLaunchFailure (or cudaErrorIllegalInstruction), no earlier than the watchdog budget.
 *   child "right_count": the same launch with the right count. Expected: success (so the failure above
 *       is caused by the count, not by the kernel).
 * Both for cta_group 1 (one CTA) and cta_group 2 (one 2-CTA cluster). The test PASSES when every
 * wrong-count child failed that way after at least the budget and every right-count child succeeded;
 * it FAILS otherwise (for instance when a wrong count went unnoticed, or the watchdog fired early).
 * The watchdog budget here is WSGEMM_WATCHDOG_NS = 300 ms (set below), so the test takes about a second.
 */
#define WSGEMM_WATCHDOG 1
#undef WSGEMM_WATCHDOG_NS /* this test's own limits, whatever the build sets */
#undef WSGEMM_WATCHDOG_TRAP_NS
#define WSGEMM_WATCHDOG_NS      300000000ull
#define WSGEMM_WATCHDOG_TRAP_NS 300000000ull

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dealloc_kernels.cuh"
#include "testing.h"

enum { CHILD_OK = 0, CHILD_TRAPPED = 3, CHILD_OTHER_ERROR = 4, CHILD_TOO_EARLY = 5 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One launch: cta_group cg, one cluster, one round; the exit code says what happened. */
static int child(int cg, int wrong)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)cg, 1, 1);
    cfg.blockDim = dim3(DB_THREADS, 1, 1);
    cluster_launch_config(&cfg, attr, (unsigned)cg);
    DeallocResult *d_res = NULL;
    CUDA_CHECK(cudaMalloc(&d_res, sizeof(DeallocResult) * 2));
    CUDA_CHECK(cudaMemset(d_res, 0, sizeof(DeallocResult) * 2));
    const uint32_t delta = wrong ? 1u : 0u;
    double t0 = now_s();
    cudaError_t launch = cg == 2 ? cudaLaunchKernelEx(&cfg, dealloc_barrier_kernel<2>, d_res, 1u, 0u, delta, 99u)
                                 : cudaLaunchKernelEx(&cfg, dealloc_barrier_kernel<1>, d_res, 1u, 0u, delta, 99u);
    cudaError_t sync = launch == cudaSuccess ? cudaDeviceSynchronize() : launch;
    double elapsed = now_s() - t0;
    fflush(stdout);
    printf("child: cta_group %d, init count %d x %d, arrivals %d: %s (%s) after %.3f s\n", cg,
           DB_SIGNALLERS + (int)delta, cg, DB_SIGNALLERS * cg, cudaGetErrorName(sync), cudaGetErrorString(sync),
           elapsed);
    fflush(stdout);
    if (sync == cudaSuccess) return CHILD_OK;
    if (sync == cudaErrorLaunchFailure || sync == cudaErrorIllegalInstruction)
        return elapsed >= 0.9 * 1e-9 * (double)WSGEMM_WATCHDOG_NS ? CHILD_TRAPPED : CHILD_TOO_EARLY;
    return CHILD_OTHER_ERROR;
}

/* Run "<self> <args>" and return its exit code; its output is echoed and scanned for the watchdog line. */
static int spawn(const char *self, const char *args, int *saw_watchdog_line)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", self, args);
    FILE *p = popen(cmd, "r");
    if (!p) {
        perror("popen");
        return -1;
    }
    char line[1024];
    *saw_watchdog_line = 0;
    while (fgets(line, sizeof(line), p)) {
        printf("    | %s", line);
        if (strstr(line, "wsgemm watchdog: wait on dealloc_barrier[0]")) *saw_watchdog_line = 1;
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "fires";
    if (strncmp(which, "child_", 6) == 0) {
        int cg = strstr(which, "cg2") ? 2 : 1;
        int wrong = strstr(which, "wrong") != NULL;
        return child(cg, wrong);
    }
    testing_require_gpu("watchdog_negative");
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        perror("readlink /proc/self/exe");
        return 1;
    }
    self[n] = 0;
    printf("watchdog_negative: watchdog budget %.0f ms; children: wrong count must trap after the budget, right "
           "count must succeed\n",
           1e-6 * (double)WSGEMM_WATCHDOG_NS);
    int fails = 0;
    for (int cg = 1; cg <= 2; ++cg) {
        char args[64];
        int saw = 0;
        snprintf(args, sizeof(args), "child_cg%d_wrong", cg);
        double t0 = now_s();
        int rc = spawn(self, args, &saw);
        int ok = rc == CHILD_TRAPPED;
        printf("watchdog_negative: cta_group %d wrong count: child exit %d (%s), watchdog message %s, %.2f s: %s\n", cg,
               rc,
               rc == CHILD_TRAPPED     ? "trapped after the budget"
               : rc == CHILD_OK        ? "NOT CAUGHT: the launch succeeded"
               : rc == CHILD_TOO_EARLY ? "trapped BEFORE the budget: not the watchdog"
                                       : "other error",
               saw ? "seen" : "not seen (device printf may be lost with the trap)", now_s() - t0, ok ? "ok" : "FAIL");
        fails += !ok;
        snprintf(args, sizeof(args), "child_cg%d_right", cg);
        rc = spawn(self, args, &saw);
        ok = rc == CHILD_OK && !saw;
        printf("watchdog_negative: cta_group %d right count: child exit %d: %s\n", cg, rc, ok ? "ok" : "FAIL");
        fails += !ok;
    }
    printf("watchdog_negative: %s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
