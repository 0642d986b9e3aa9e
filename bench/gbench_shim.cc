// SPDX-License-Identifier: MIT
// gbench_shim.cc - the C interface of gbench_shim.h over Google Benchmark.
//
// Only API present in both 1.7 and 1.8 is used: State::KeepRunning,
// SetIterationTime, counters, SetLabel, SkipWithError, RegisterBenchmark
// with a lambda, Args/ArgNames/Range/DenseRange, Initialize,
// ReportUnrecognizedArguments, RunSpecifiedBenchmarks() and Shutdown.
// (1.8 takes std::string where 1.7 takes const char*; a const char* argument
// converts to either.)
#include "gbench_shim.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace
{

benchmark::State &state_of(gbench_state *st)
{
    return *reinterpret_cast<benchmark::State *>(st);
}
const benchmark::State &state_of(const gbench_state *st)
{
    return *reinterpret_cast<const benchmark::State *>(st);
}
benchmark::internal::Benchmark *bench_of(gbench_benchmark *b)
{
    return reinterpret_cast<benchmark::internal::Benchmark *>(b);
}
gbench_benchmark *handle_of(benchmark::internal::Benchmark *b)
{
    return reinterpret_cast<gbench_benchmark *>(b);
}

benchmark::TimeUnit time_unit_of(gbench_time_unit unit)
{
    switch (unit) {
    case GBENCH_NANOSECOND: return benchmark::kNanosecond;
    case GBENCH_MICROSECOND: return benchmark::kMicrosecond;
    case GBENCH_MILLISECOND: return benchmark::kMillisecond;
    case GBENCH_SECOND: return benchmark::kSecond;
    }
    return benchmark::kNanosecond;
}

// A boolean flag as Google Benchmark parses it: "--name" or "--name=VALUE"
// with VALUE not one of false/0/no/f/n (any case).
bool bool_flag_set(int argc, char **argv, const char *name)
{
    const std::string flag = std::string("--") + name;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == flag) return true;
        if (arg.compare(0, flag.size() + 1, flag + "=") == 0) {
            std::string value = arg.substr(flag.size() + 1);
            for (char &c : value) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            return !(value == "false" || value == "0" || value == "no" || value == "f" || value == "n");
        }
    }
    return false;
}

// --benchmark_min_time: 1.7 takes seconds as a bare number ("0.05"); 1.8
// takes "0.05s" (or "100x" for iterations) and logs a complaint about a bare
// number for every benchmark. Both changed in 1.8.0 together with the
// arrival of State::SkipWithMessage, which tells the versions apart here.
template <class S>
constexpr auto min_time_wants_suffix(int) -> decltype(std::declval<S &>().SkipWithMessage(std::string()), true)
{
    return true;
}
template <class S>
constexpr bool min_time_wants_suffix(long)
{
    return false;
}

// Rewrite --benchmark_min_time=VALUE in argv (in place: the strings are
// kept alive in `storage`) to the syntax of the library this was built with.
void normalize_min_time(int argc, char **argv, std::vector<std::string> &storage)
{
    const std::string flag = "--benchmark_min_time=";
    const bool suffix = min_time_wants_suffix<benchmark::State>(0);
    storage.reserve(static_cast<std::size_t>(argc));
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.compare(0, flag.size(), flag) != 0 || arg.size() == flag.size()) continue;
        const char last = arg.back();
        if (suffix && last >= '0' && last <= '9')
            arg += 's';
        else if (!suffix && last == 's')
            arg.pop_back();
        else
            continue;
        storage.push_back(arg);
        argv[i] = &storage.back()[0];
    }
}

} // namespace

extern "C" {

int gbench_keep_running(gbench_state *st)
{
    return state_of(st).KeepRunning() ? 1 : 0;
}
int64_t gbench_iterations(const gbench_state *st)
{
    return static_cast<int64_t>(state_of(st).iterations());
}
int64_t gbench_max_iterations(const gbench_state *st)
{
    return static_cast<int64_t>(state_of(st).max_iterations);
}
int64_t gbench_arg(const gbench_state *st, int index)
{
    return state_of(st).range(static_cast<std::size_t>(index));
}

void gbench_set_iteration_time(gbench_state *st, double seconds)
{
    state_of(st).SetIterationTime(seconds);
}
void gbench_pause_timing(gbench_state *st)
{
    state_of(st).PauseTiming();
}
void gbench_resume_timing(gbench_state *st)
{
    state_of(st).ResumeTiming();
}

void gbench_set_counter_k(gbench_state *st, const char *name, double value, unsigned flags, gbench_one_k one_k)
{
    state_of(st).counters[name] =
        benchmark::Counter(value, static_cast<benchmark::Counter::Flags>(flags),
                           one_k == GBENCH_ONE_K_1024 ? benchmark::Counter::kIs1024 : benchmark::Counter::kIs1000);
}

void gbench_set_counter(gbench_state *st, const char *name, double value, unsigned flags)
{
    gbench_set_counter_k(st, name, value, flags, GBENCH_ONE_K_1000);
}

void gbench_set_label(gbench_state *st, const char *label)
{
    state_of(st).SetLabel(label);
}
void gbench_skip_with_error(gbench_state *st, const char *message)
{
    state_of(st).SkipWithError(message);
}

gbench_benchmark *gbench_register(const char *name, gbench_fn fn, void *user)
{
    return handle_of(benchmark::RegisterBenchmark(
        name, [fn, user](benchmark::State &st) { fn(reinterpret_cast<gbench_state *>(&st), user); }));
}

gbench_benchmark *gbench_args(gbench_benchmark *b, const int64_t *args, int count)
{
    bench_of(b)->Args(std::vector<int64_t>(args, args + count));
    return b;
}

gbench_benchmark *gbench_arg_names(gbench_benchmark *b, const char *const *names, int count)
{
    bench_of(b)->ArgNames(std::vector<std::string>(names, names + count));
    return b;
}

gbench_benchmark *gbench_range(gbench_benchmark *b, int64_t lo, int64_t hi)
{
    bench_of(b)->Range(lo, hi);
    return b;
}

gbench_benchmark *gbench_range_multiplier(gbench_benchmark *b, int multiplier)
{
    bench_of(b)->RangeMultiplier(multiplier);
    return b;
}

gbench_benchmark *gbench_dense_range(gbench_benchmark *b, int64_t lo, int64_t hi, int step)
{
    bench_of(b)->DenseRange(lo, hi, step);
    return b;
}

gbench_benchmark *gbench_use_manual_time(gbench_benchmark *b)
{
    bench_of(b)->UseManualTime();
    return b;
}

gbench_benchmark *gbench_unit(gbench_benchmark *b, gbench_time_unit unit)
{
    bench_of(b)->Unit(time_unit_of(unit));
    return b;
}

gbench_benchmark *gbench_min_time(gbench_benchmark *b, double seconds)
{
    bench_of(b)->MinTime(seconds);
    return b;
}

gbench_benchmark *gbench_repetitions(gbench_benchmark *b, int repetitions)
{
    bench_of(b)->Repetitions(repetitions);
    return b;
}

gbench_benchmark *gbench_fixed_iterations(gbench_benchmark *b, int64_t iterations)
{
    bench_of(b)->Iterations(static_cast<benchmark::IterationCount>(iterations));
    return b;
}

void gbench_add_context(const char *key, const char *value)
{
    benchmark::AddCustomContext(key, value);
}

int gbench_wants_list_only(int argc, char **argv)
{
    return bool_flag_set(argc, argv, "benchmark_list_tests") || bool_flag_set(argc, argv, "help") ? 1 : 0;
}

int gbench_main(int argc, char **argv)
{
    std::vector<std::string> rewritten;
    normalize_min_time(argc, argv, rewritten);
    benchmark::Initialize(&argc, argv); // removes the --benchmark_* flags it knows; --help prints and exits
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2; // bad arguments (tools/README.md)
    const std::size_t matched = benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return matched == 0 ? 5 : 0;
}

} // extern "C"
