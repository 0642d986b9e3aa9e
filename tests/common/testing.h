// SPDX-License-Identifier: MIT
/*
 * testing.h - what every wsgemm test, the main job and the benchmarks share:
 * error-check macros, the GPU skip rule, a seeded generator, 16-bit float
 * conversions, the fp64 host reference, the result checker and the cuBLAS
 * harness. Host C11.
 */
#ifndef WSGEMM_TESTING_H
#define WSGEMM_TESTING_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "wsgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ctest treats this exit code as "skipped" (SKIP_RETURN_CODE). */
enum { WSGEMM_TEST_SKIP = 77 };

/* One macro per API family: print code, name, message and file:line, then exit. */
#define CUDA_CHECK(call)                                                                                      \
    do {                                                                                                      \
        cudaError_t err_ = (call);                                                                            \
        if (err_ != cudaSuccess) {                                                                            \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_), \
                    cudaGetErrorString(err_));                                                                \
            exit(1);                                                                                          \
        }                                                                                                     \
    } while (0)

#define CUBLAS_CHECK(call)                                                                           \
    do {                                                                                             \
        int st_ = (int)(call);                                                                       \
        if (st_ != 0) {                                                                              \
            fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n", __FILE__, __LINE__, #call, st_); \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

#define WSGEMM_CHECK(call)                                                                                   \
    do {                                                                                                     \
        wsgemm_status st_ = (call);                                                                          \
        if (st_ != WSGEMM_STATUS_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, wsgemm_status_string(st_)); \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

/* A CPU test's check: when cond is false, count it in `failures` (an int lvalue) and print the first 20
 * with file:line, the condition and a printf-style explanation. */
#define TESTING_EXPECT(failures, cond, ...)                                     \
    do {                                                                        \
        if (!(cond)) {                                                          \
            if ((failures) < 20) {                                              \
                fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
                fprintf(stderr, __VA_ARGS__);                                   \
                fprintf(stderr, "\n");                                          \
            }                                                                   \
            (failures)++;                                                       \
        }                                                                       \
    } while (0)

/* A test program of named cases, each run on a fresh handle: `prog <case>`. */
typedef struct testing_handle_case {
    const char *name;
    void (*run)(wsgemm_handle);
} testing_handle_case;
/* Its main: runs the case argv[1] names on a new handle and prints "<case>: passed" or "FAILED". Returns
 * the exit code: 0 when *failures is still 0 after the case, 1 otherwise, 2 for a missing or unknown case. */
int testing_run_handle_case(int argc, char **argv, const testing_handle_case *cases, size_t ncases,
                            const int *failures);

/* Number of usable CUDA devices (0 without a driver or a GPU). */
int testing_gpu_count(void);
/* Exit with WSGEMM_TEST_SKIP and "SKIPPED: no CUDA device" when there is none. */
void testing_require_gpu(const char *test_name);
/* Compute capability of the current device as major*10+minor (0 without one). */
int testing_device_cc(void);

/* ---------------------------------------------------------------- random numbers */
typedef struct testing_rng {
    uint64_t state;
} testing_rng;
testing_rng testing_rng_seeded(uint64_t seed);
uint64_t testing_rng_next(testing_rng *r);
/* Uniform in [-1, 1]. */
float testing_rng_uniform(testing_rng *r);

/* ---------------------------------------------------------------- 16-bit floats on the host */
uint16_t testing_float_to_bf16(float f); /* round to nearest even; NaN stays NaN */
float testing_bf16_to_float(uint16_t h);
uint16_t testing_float_to_half(float f); /* round to nearest even, subnormals, inf, NaN */
float testing_half_to_float(uint16_t h);
/* FP8 (format WSGEMM_R_8F_E4M3 or WSGEMM_R_8F_E5M2): exact decoding; encoding rounds to nearest even and
 * saturates to the largest finite value (CUDA's __NV_SATFINITE); NaN stays NaN. */
float testing_fp8_to_float(uint8_t v, wsgemm_dtype format);
uint8_t testing_float_to_fp8(float f, wsgemm_dtype format);
/* Element i of a host array of `dtype` as a float. */
float testing_load(wsgemm_dtype dtype, const void *base, size_t i);
/* Store f (rounded to dtype) as element i. */
void testing_store(wsgemm_dtype dtype, void *base, size_t i, float f);
const char *testing_dtype_name(wsgemm_dtype t);
/* 1 when the first 4 KB of the file at path hold needle (a cache or log file a test wrote); 0 otherwise. */
int testing_file_has(const char *path, const char *needle);
int testing_dtype_bytes(wsgemm_dtype t);

/* ---------------------------------------------------------------- a GEMM problem in host terms */
typedef struct testing_gemm {
    wsgemm_op transa, transb;
    int m, n, k;
    int lda, ldb, ldc;                   /* 0: the tight value max(1, rows) */
    long long strideA, strideB, strideC; /* -1: the tight value (ld * columns) */
    int batch;
    float alpha, beta;
    wsgemm_dtype ab_type, c_type;
    int offset; /* elements (0..8) added to the A, B and C base pointers: misaligned bases */
} testing_gemm;

/* The plain case: ops ta/tb, m x n x k, bf16 in and out, alpha 1, beta 0, one matrix, tight leading
 * dimensions and strides (left 0 / -1 for testing_gemm_resolve); callers change fields from there. */
testing_gemm testing_gemm_make(wsgemm_op ta, wsgemm_op tb, int m, int n, int k);
/* Fill in tight leading dimensions and strides where the case leaves 0 / -1. */
void testing_gemm_resolve(testing_gemm *g);
/* Elements each operand occupies (all batches, with padding). */
size_t testing_gemm_elems_a(const testing_gemm *g);
size_t testing_gemm_elems_b(const testing_gemm *g);
size_t testing_gemm_elems_c(const testing_gemm *g);
/* "NT m=.. n=.. k=.. lda=.. ..." for messages. */
void testing_gemm_describe(const testing_gemm *g, char *buf, size_t size);

/* fp64-accumulating host reference, parallel over columns with OpenMP:
 * ref[b][i + j*m] (tight, m x n per batch) = alpha * op(A) op(B) + beta * C0. */
void testing_reference_host(const testing_gemm *g, const void *A, const void *B, const void *C0, double *ref);

/* ---------------------------------------------------------------- the checker */
typedef struct testing_tolerance {
    double rtol, atol_rel_rms, max_rel_fro;
} testing_tolerance;
/* Tolerances for an output type: about one unit in the last place of the
 * output type per element, plus fp32 accumulation-order noise. */
testing_tolerance testing_tolerance_for(wsgemm_dtype c_type);

typedef struct testing_report {
    double rel_fro; /* ||got - ref||_F / ||ref||_F */
    double max_abs_err;
    size_t mismatches; /* elements outside atol + rtol*|ref| (NaN included) */
    size_t nan_count;
    size_t checked;
    size_t padding_touched; /* elements of C outside the m x n matrices that changed */
    int passed;
} testing_report;

/* Check every element of got (C as the GPU wrote it, host copy with ldc and
 * strideC) against ref (tight m x n per batch). before (the host copy of C
 * before the call) is used to prove that the padding rows between m and ldc
 * were not written. Prints the first mismatches with the shape. */
testing_report testing_check(const testing_gemm *g, const void *got, const void *before, const double *ref,
                             testing_tolerance tol, const char *label);

/* ---------------------------------------------------------------- device data and the cuBLAS harness */
typedef struct testing_buffers {
    void *A, *B, *C;     /* device */
    void *hA, *hB, *hC0; /* host: inputs and the C written before the call */
    size_t elems_a, elems_b, elems_c;
} testing_buffers;

/* Allocate A, B, C for g on the device, fill A and B uniform [-1,1] from seed,
 * and C: uniform [-1,1] when beta != 0, NaN poison when beta == 0. */
void testing_buffers_create(const testing_gemm *g, uint64_t seed, testing_buffers *b);
/* Write hC0 to the device C again (poison before each run). */
void testing_buffers_repoison(const testing_gemm *g, testing_buffers *b);
void testing_buffers_destroy(testing_buffers *b);

/* The reference on the GPU: cublasGemmStridedBatchedEx with the same A/B
 * types and CUBLAS_COMPUTE_32F, output fp32 (C0 handed over as fp32 so
 * beta*C0 is exact), returned tight as doubles on the host. */
void testing_reference_cublas(const testing_gemm *g, const testing_buffers *b, double *ref);

/* One call through wsgemm on the buffers' device data. */
wsgemm_status testing_run_wsgemm(wsgemm_handle h, const testing_gemm *g, const testing_buffers *b);

/* Run g through wsgemm with the handle's current path, compare against
 * cuBLAS, check that `expected_path` ran (AUTO: accept any). Prints one line
 * and returns 1 when everything holds. */
int testing_case_against_cublas(wsgemm_handle h, const testing_gemm *g, wsgemm_path expected_path, uint64_t seed,
                                int verbose);

/* ---------------------------------------------------------------- timing (wsgemm-run, sm90_tune, wsgemm-bench)
 *
 * GPU time and host time are two figures. GPU time: a spin kernel (testing_spin) holds the stream while
 * every library's call of a round is queued between its own pair of CUDA events, in an order that rotates
 * each round (A B, then B A, ...), so the events time the kernels alone: neither the host's launch work nor
 * one library's host work hiding behind the other's kernel enters them. Host time: wall-clock microseconds
 * around a call while the GPU is busy (a spin kernel again), so the call never waits for the device. */

/* One call to time, queued on the stream given to the harness (the caller's handles use it). `i` counts
 * every call of every library, warm-up included, so `i % sets` never repeats an input set in two
 * consecutive calls when there are at least two sets. Returns 0 on success; anything else stops the timing. */
typedef int (*testing_timed_call)(void *ctx, int i);

typedef struct testing_timed_lib {
    const char *name;
    testing_timed_call call;
    void *ctx;
} testing_timed_lib;

enum { TESTING_MAX_TIMED_LIBS = 4 };

typedef struct testing_timing_options {
    int warmup;       /* untimed calls per library first (workspace growth, cuBLAS heuristics, clocks) */
    int rounds;       /* timed rounds: one call per library each */
    int host_reps;    /* wall-clock timed calls per library (0: no host time) */
    double spin_us;   /* initial hold (0: 200 us); doubled, up to 20 ms, after a round that was not held */
    double *round_ms; /* optional: filled with every round's GPU ms, library-major (lib * rounds + round) */
} testing_timing_options;

typedef struct testing_lib_times {
    double gpu_ms;                 /* median GPU time of one call */
    double gpu_ms_p10, gpu_ms_p90; /* the spread over the rounds */
    double host_us;                /* median wall-clock microseconds per call on the host (0: not measured) */
} testing_lib_times;

typedef struct testing_timing {
    int rounds;
    int held_rounds; /* rounds whose calls were all queued before the spin kernel ended (should be all) */
    double spin_us;  /* the hold in the last round */
    testing_lib_times lib[TESTING_MAX_TIMED_LIBS];
} testing_timing;

/* Times nlibs (1..TESTING_MAX_TIMED_LIBS) libraries side by side on `stream` as described above. Returns 0,
 * or -1 when a call failed (the timing stops there). */
int testing_time_interleaved(const testing_timed_lib *libs, int nlibs, cudaStream_t stream,
                             const testing_timing_options *opt, testing_timing *out);

/* Queue the spin kernel: one thread that returns after `microseconds` (of %globaltimer). */
cudaError_t testing_spin(cudaStream_t stream, double microseconds);

/* Wall-clock microseconds since an arbitrary start (CLOCK_MONOTONIC). */
double testing_now_us(void);

/* The q-quantile (0..1, nearest rank; the median of an even count is the mean of the middle two) of
 * v[0..n-1] (sorts v in place); 0 for n <= 0. */
double testing_quantile(double *v, int n, double q);

/* ---------------------------------------------------------------- device-resident data (testing_device.cu)
 * For shapes too large to fill and check on the host quickly (wsgemm-bench). Synchronous on the default
 * stream; errors exit through CUDA_CHECK. */

/* dst[i] = uniform [-1, 1] from (seed, i), as `type`. */
void testing_device_fill_uniform(wsgemm_dtype type, void *dst, size_t count, uint64_t seed);
/* out (tight m x n per batch, fp32) = C of g as stored at c (device). */
void testing_device_c_to_f32(const testing_gemm *g, const void *c, float *out);
/* testing_check on the device: every element of C (device, g's ldc and strideC) against ref (device, tight
 * fp32), the same tolerance rule; no padding check (callers use tight C). Prints the first mismatch. */
testing_report testing_device_check(const testing_gemm *g, const void *c, const float *ref, testing_tolerance tol,
                                    const char *label);

/* The epilogue as a kernel of its own, after a plain GEMM (the baseline a fused epilogue is measured
 * against): d = act(d + bias[row]) in place, act GELU (tanh form) when gelu, else ReLU; bias NULL: none.
 * Queued on stream; returns the launch's error. */
cudaError_t testing_bias_activation(wsgemm_dtype d_type, void *d, int m, int n, long long ld, wsgemm_dtype bias_type,
                                    const void *bias, int gelu, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_TESTING_H */
