// SPDX-License-Identifier: MIT
/*
 * shim_selftest.c - exercises every part of gbench_shim.h without a GPU, so
 * the CPU test (check_shim.cmake) can read the JSON it writes and confirm
 * that the C interface reaches Google Benchmark as intended:
 *
 *   shim/manual_time/...   manual time reported late, the way wsgemm-bench
 *                          reports CUDA event times (no call in the first
 *                          iterations, the rest summed in the last one):
 *                          the mean must still be exactly 2 ms per iteration
 *   shim/counters          plain, rate, and per-iteration counters; a label
 *   shim/args/a:3/b:4      arguments and their names
 *   shim/range/8 .. 512    a range with multiplier 8
 *   shim/error             an error reported before the loop
 */
#include <stdio.h>
#include <string.h>

#include "gbench_shim.h"

enum { LAG = 4 };

static void bm_manual_time(gbench_state *st, void *user)
{
    (void)user;
    const double per_iteration = 2e-3;
    const int64_t total = gbench_max_iterations(st);
    int64_t started = 0, reported = 0;
    while (gbench_keep_running(st)) {
        ++started;
        int64_t report_until = started == total ? started : started - (LAG - 1);
        double seconds = 0.0;
        for (; reported < report_until; ++reported) seconds += per_iteration;
        if (seconds > 0.0) gbench_set_iteration_time(st, seconds);
    }
    gbench_set_counter(st, "started", (double)started, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "iterations_seen", (double)gbench_iterations(st), GBENCH_COUNTER_DEFAULT);
}

static void bm_counters(gbench_state *st, void *user)
{
    (void)user;
    while (gbench_keep_running(st)) gbench_set_iteration_time(st, 1e-3);
    gbench_set_counter(st, "plain", 42.0, GBENCH_COUNTER_DEFAULT);
    gbench_set_counter(st, "per_second", 5.0, GBENCH_COUNTER_ITERATION_INVARIANT_RATE); /* 5 per 1 ms = 5000/s */
    gbench_set_counter(st, "per_iteration", 6.0 * (double)gbench_iterations(st), GBENCH_COUNTER_AVG_ITERATIONS);
    gbench_set_label(st, "label from C");
}

static void bm_args(gbench_state *st, void *user)
{
    const char *tag = user;
    while (gbench_keep_running(st)) gbench_set_iteration_time(st, 1e-3);
    gbench_set_counter(st, "a_times_b", (double)(gbench_arg(st, 0) * gbench_arg(st, 1)), GBENCH_COUNTER_DEFAULT);
    gbench_set_label(st, tag);
}

static void bm_range(gbench_state *st, void *user)
{
    (void)user;
    while (gbench_keep_running(st)) gbench_set_iteration_time(st, 1e-3);
    gbench_set_counter(st, "arg", (double)gbench_arg(st, 0), GBENCH_COUNTER_DEFAULT);
}

static void bm_error(gbench_state *st, void *user)
{
    (void)user;
    gbench_skip_with_error(st, "planted error from C");
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"a", "b"};
    static const int64_t args[] = {3, 4};
    gbench_add_context("shim_selftest", "yes");

    gbench_benchmark *b = gbench_register("shim/manual_time", bm_manual_time, NULL);
    gbench_use_manual_time(b);
    gbench_unit(b, GBENCH_MILLISECOND);
    gbench_fixed_iterations(b, 10);

    b = gbench_register("shim/counters", bm_counters, NULL);
    gbench_use_manual_time(gbench_fixed_iterations(b, 8));

    b = gbench_register("shim/args", bm_args, (void *)"args label");
    gbench_arg_names(gbench_args(b, args, 2), names, 2);
    gbench_use_manual_time(gbench_fixed_iterations(b, 2));

    b = gbench_register("shim/range", bm_range, NULL);
    gbench_range(gbench_range_multiplier(b, 8), 8, 512);
    gbench_use_manual_time(gbench_min_time(b, 0.002));

    gbench_register("shim/error", bm_error, NULL);

    return gbench_main(argc, argv);
}
