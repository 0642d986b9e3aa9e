// SPDX-License-Identifier: MIT
/*
 * gbench_shim.h - a C interface to Google Benchmark, so that benchmarks can
 * be written in C11 and still get its runner: iteration-count estimation,
 * repetitions and aggregates, --benchmark_filter, console / JSON / CSV
 * output and --benchmark_out.
 *
 * The implementation (gbench_shim.cc) is the only C++ in bench/. It uses the
 * part of the Google Benchmark API that 1.7 and 1.8 share (Debian's 1.7.1 on
 * the development machines, 1.8.3 on the GPU machine).
 *
 * A benchmark in C:
 *
 *   static void bm_copy(gbench_state *st, void *user)
 *   {
 *       size_t bytes = (size_t)gbench_arg(st, 0);
 *       while (gbench_keep_running(st)) {
 *           double seconds = time_one_copy(bytes); // e.g. with CUDA events
 *           gbench_set_iteration_time(st, seconds);
 *       }
 *       gbench_set_counter(st, "bytes", (double)bytes, GBENCH_COUNTER_ITERATION_INVARIANT_RATE);
 *   }
 *   ...
 *   gbench_benchmark *b = gbench_register("copy", bm_copy, NULL);
 *   gbench_range_multiplier(b, 4);
 *   gbench_range(b, 1 << 10, 1 << 26);
 *   gbench_use_manual_time(b);
 *   return gbench_main(argc, argv);
 *
 * Every function is safe to call with the pointers the shim handed out; the
 * shim adds no checks of its own beyond Google Benchmark's.
 */
#ifndef WSGEMM_GBENCH_SHIM_H
#define WSGEMM_GBENCH_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A running benchmark (benchmark::State) and a registered one
 * (benchmark::internal::Benchmark). Opaque to C. */
typedef struct gbench_state gbench_state;
typedef struct gbench_benchmark gbench_benchmark;

/* The benchmark body. It is called several times per benchmark (while the
 * runner estimates the iteration count, then once per repetition), each time
 * with a fresh state: expensive set-up belongs in a cache the body keeps. */
typedef void (*gbench_fn)(gbench_state *state, void *user);

/* Counter flags: the bits of benchmark::Counter::Flags. A rate is divided by
 * the benchmark's time (the manual time under gbench_use_manual_time). */
enum {
    GBENCH_COUNTER_DEFAULT = 0,
    GBENCH_COUNTER_RATE = 1 << 0,                /* value / seconds */
    GBENCH_COUNTER_AVG_THREADS = 1 << 1,         /* value / threads */
    GBENCH_COUNTER_ITERATION_INVARIANT = 1 << 2, /* value * iterations */
    GBENCH_COUNTER_AVG_ITERATIONS = 1 << 3,      /* value / iterations */
    GBENCH_COUNTER_INVERT = 1u << 31,            /* 1 / result, applied last */
    GBENCH_COUNTER_ITERATION_INVARIANT_RATE = GBENCH_COUNTER_ITERATION_INVARIANT | GBENCH_COUNTER_RATE,
    GBENCH_COUNTER_AVG_ITERATIONS_RATE = GBENCH_COUNTER_AVG_ITERATIONS | GBENCH_COUNTER_RATE
};

/* How a counter is shown with a k/M/G suffix: powers of 1000 or of 1024. */
typedef enum gbench_one_k { GBENCH_ONE_K_1000 = 1000, GBENCH_ONE_K_1024 = 1024 } gbench_one_k;

typedef enum gbench_time_unit {
    GBENCH_NANOSECOND,
    GBENCH_MICROSECOND,
    GBENCH_MILLISECOND,
    GBENCH_SECOND
} gbench_time_unit;

/* ---------------------------------------------------------------- inside a benchmark body */

/* The state loop: `while (gbench_keep_running(st)) { ... }`. Returns 0 when
 * the iterations are done or an error was reported. The body must not
 * return before it has returned 0 (or before gbench_skip_with_error). */
int gbench_keep_running(gbench_state *st);
/* Iterations started so far in this call of the body. */
int64_t gbench_iterations(const gbench_state *st);
/* Iterations this call of the body will run in all (known before the loop). */
int64_t gbench_max_iterations(const gbench_state *st);
/* Argument `index` of this instance (see gbench_args / gbench_range). */
int64_t gbench_arg(const gbench_state *st, int index);

/* Manual time: seconds the current iteration took, measured by the body
 * (e.g. with CUDA events). Requires gbench_use_manual_time on registration. */
void gbench_set_iteration_time(gbench_state *st, double seconds);
/* Stop / restart the automatic timers (not the manual time). */
void gbench_pause_timing(gbench_state *st);
void gbench_resume_timing(gbench_state *st);

/* A user counter shown next to the time and written to the JSON; `flags`
 * is a combination of GBENCH_COUNTER_*. Setting a name again replaces it. */
void gbench_set_counter(gbench_state *st, const char *name, double value, unsigned flags);
void gbench_set_counter_k(gbench_state *st, const char *name, double value, unsigned flags, gbench_one_k one_k);
/* A free-text label shown at the end of the row ("label" in the JSON). */
void gbench_set_label(gbench_state *st, const char *label);
/* Mark this run as failed with a message: it is reported as an error with no
 * time. The body should leave the state loop (or not enter it) and return. */
void gbench_skip_with_error(gbench_state *st, const char *message);

/* ---------------------------------------------------------------- registration (before gbench_main) */

/* Register `fn` under `name`; `user` is handed to every call. Returns the
 * benchmark so that the functions below can configure it; each returns its
 * argument for chaining. */
gbench_benchmark *gbench_register(const char *name, gbench_fn fn, void *user);
/* One instance with these arguments (read with gbench_arg). Call again for
 * more instances. */
gbench_benchmark *gbench_args(gbench_benchmark *b, const int64_t *args, int count);
/* Names of the arguments: instance names become name/m:1024/n:... */
gbench_benchmark *gbench_arg_names(gbench_benchmark *b, const char *const *names, int count);
/* One-argument instances lo, lo*mult, lo*mult^2, ..., hi (mult from
 * gbench_range_multiplier, default 8). */
gbench_benchmark *gbench_range(gbench_benchmark *b, int64_t lo, int64_t hi);
gbench_benchmark *gbench_range_multiplier(gbench_benchmark *b, int multiplier);
/* One-argument instances lo, lo+step, ..., up to hi. */
gbench_benchmark *gbench_dense_range(gbench_benchmark *b, int64_t lo, int64_t hi, int step);
/* Report the time the body measured (gbench_set_iteration_time). */
gbench_benchmark *gbench_use_manual_time(gbench_benchmark *b);
gbench_benchmark *gbench_unit(gbench_benchmark *b, gbench_time_unit unit);
/* These three override the command-line flags for this benchmark only. */
gbench_benchmark *gbench_min_time(gbench_benchmark *b, double seconds);
gbench_benchmark *gbench_repetitions(gbench_benchmark *b, int repetitions);
gbench_benchmark *gbench_fixed_iterations(gbench_benchmark *b, int64_t iterations);

/* A key/value pair written in the "context" of every report (console header
 * and JSON), e.g. the GPU name and driver. */
void gbench_add_context(const char *key, const char *value);

/* ---------------------------------------------------------------- running */

/* 1 when argv asks only to list the benchmarks (--benchmark_list_tests, not
 * =false) or for --help: nothing will run, so no device is needed. */
int gbench_wants_list_only(int argc, char **argv);

/* Parse the --benchmark_* flags (Initialize), complain about any other
 * argument, run the benchmarks the filter selects (console output, plus the
 * file of --benchmark_out=PATH in --benchmark_out_format=json|console|csv),
 * and shut down. Returns 0 on success, 2 for an unknown argument (the tools'
 * usage status, tools/README.md), 5 when the filter selected no benchmark. --benchmark_min_time takes seconds as "0.05"
 * or "0.05s" with either library version (the shim rewrites it to the syntax
 * of the version it was built against). */
int gbench_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_GBENCH_SHIM_H */
