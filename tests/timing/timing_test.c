// SPDX-License-Identifier: MIT
/*
 * timing_test.c - the timing harness (testing_time_interleaved, tests/common) measures GPU time, not host
 * time, on a GPU: its "libraries" here are spin kernels of known length (testing_spin), one of which
 * first sleeps on the host. Checks:
 *   - each library's median GPU time is its kernel's length (within 15 % + 5 us), whatever the order;
 *   - a library that spends 400 us on the host before each launch still measures its 30 us kernel: the
 *     hold grows until the calls are queued behind it (most rounds held), and its host time is >= 400 us;
 *   - a library that fails stops the timing with -1.
 * Exits 77 (skipped) without a GPU, 1 on failure.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdio.h>
#include <time.h>

#include "testing.h"

static int failures;

typedef struct fake_lib {
    double kernel_us, host_sleep_us;
    int fail_at; /* call index that fails (-1: none) */
} fake_lib;

static int fake_call(void *ctx, int i)
{
    const fake_lib *f = ctx;
    if (i == f->fail_at) return 1;
    if (f->host_sleep_us > 0) {
        struct timespec ts = {0, (long)(f->host_sleep_us * 1e3)};
        nanosleep(&ts, NULL);
    }
    return testing_spin(0, f->kernel_us) != cudaSuccess;
}

static void expect_near(const char *what, double got_us, double want_us)
{
    const int ok = got_us > want_us - (0.15 * want_us + 5.0) && got_us < want_us + (0.15 * want_us + 5.0);
    printf("%s %s: %.1f us (want %.1f)\n", ok ? "ok  " : "FAIL", what, got_us, want_us);
    if (!ok) failures++;
}

int main(void)
{
    testing_require_gpu("timing_test");
    fake_lib a = {50.0, 0.0, -1}, b = {150.0, 0.0, -1};
    testing_timed_lib libs[2] = {{"a", fake_call, &a}, {"b", fake_call, &b}};
    testing_timing_options opt = {.warmup = 2, .rounds = 20, .host_reps = 5};
    testing_timing t;
    if (testing_time_interleaved(libs, 2, 0, &opt, &t) != 0) {
        printf("FAIL the timing of two working libraries failed\n");
        return 1;
    }
    expect_near("50 us kernel", t.lib[0].gpu_ms * 1e3, 50.0);
    expect_near("150 us kernel", t.lib[1].gpu_ms * 1e3, 150.0);
    if (t.held_rounds != t.rounds) {
        printf("FAIL only %d of %d rounds held with quick host calls\n", t.held_rounds, t.rounds);
        failures++;
    }

    fake_lib slow = {30.0, 400.0, -1};
    libs[1].ctx = &slow;
    if (testing_time_interleaved(libs, 2, 0, &opt, &t) != 0) {
        printf("FAIL the timing with a slow host call failed\n");
        return 1;
    }
    expect_near("30 us kernel behind 400 us of host work", t.lib[1].gpu_ms * 1e3, 30.0);
    printf("%s slow host call: %.0f us on the host, %d of %d rounds held, hold %.0f us at the end\n",
           t.lib[1].host_us >= 400.0 && t.held_rounds * 2 > t.rounds ? "ok  " : "FAIL", t.lib[1].host_us, t.held_rounds,
           t.rounds, t.spin_us);
    if (!(t.lib[1].host_us >= 400.0 && t.held_rounds * 2 > t.rounds)) failures++;

    fake_lib broken = {10.0, 0.0, 5}; /* call 5 is its call in round 0 (calls are counted over both libraries) */
    libs[1].ctx = &broken;
    const int rc = testing_time_interleaved(libs, 2, 0, &opt, &t);
    printf("%s a failing call stops the timing (%d)\n", rc == -1 ? "ok  " : "FAIL", rc);
    if (rc != -1) failures++;

    printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    return failures ? 1 : 0;
}
