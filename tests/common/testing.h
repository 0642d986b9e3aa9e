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
#define CUDA_CHECK(call)                                                                                  \
    do {                                                                                                  \
        cudaError_t err_ = (call);                                                                        \
        if (err_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_), \
                    cudaGetErrorString(err_));                                                            \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)

#define CUBLAS_CHECK(call)                                                                                \
    do {                                                                                                  \
        int st_ = (int)(call);                                                                            \
        if (st_ != 0) {                                                                                   \
            fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n", __FILE__, __LINE__, #call, st_);        \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)

#define WSGEMM_CHECK(call)                                                                                \
    do {                                                                                                  \
        wsgemm_status st_ = (call);                                                                       \
        if (st_ != WSGEMM_STATUS_SUCCESS) {                                                               \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, wsgemm_status_string(st_)); \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)

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
/* Element i of a host array of `dtype` as a float. */
float testing_load(wsgemm_dtype dtype, const void *base, size_t i);
/* Store f (rounded to dtype) as element i. */
void testing_store(wsgemm_dtype dtype, void *base, size_t i, float f);
const char *testing_dtype_name(wsgemm_dtype t);
int testing_dtype_bytes(wsgemm_dtype t);

/* ---------------------------------------------------------------- a GEMM problem in host terms */
typedef struct testing_gemm {
    wsgemm_op transa, transb;
    int m, n, k;
    int lda, ldb, ldc; /* 0: the tight value max(1, rows) */
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
    double rel_fro;      /* ||got - ref||_F / ||ref||_F */
    double max_abs_err;
    size_t mismatches;   /* elements outside atol + rtol*|ref| (NaN included) */
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
    void *A, *B, *C;           /* device */
    void *hA, *hB, *hC0;       /* host: inputs and the C written before the call */
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

/* ---- timing (wsgemm-run, sm90_tune) ---- */

/* One call to time: `i` counts the calls (warm-up included), so a caller can rotate input sets with
 * i % sets. Returns 0 on success; any other value stops the timing. */
typedef int (*testing_timed_call)(void *ctx, int i);

/* Median milliseconds of `reps` calls, each between its own pair of CUDA events on the default stream and
 * waited for before the next (so the median is of single calls, launch overhead included), after `warmup`
 * untimed calls. Returns -1 if a call fails. */
float testing_time_median_ms(testing_timed_call fn, void *ctx, int warmup, int reps);

/* The median of v[0..n-1] (sorts v in place); 0 for n <= 0. */
float testing_median(float *v, int n);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_TESTING_H */
