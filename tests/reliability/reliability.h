// SPDX-License-Identifier: MIT
/*
 * reliability.h - what the reliability cases share: a problem with its own buffers and cuBLAS reference,
 * the shapes that need a workspace on the sm90 path, failure counting that threads may use, the
 * child-process runner for cases that could lose the CUDA context, and the device-side generator and
 * fp64 reference for operands too large for the host. Host C11 (the device helpers: huge_kernels.cu).
 */
#ifndef WSGEMM_RELIABILITY_H
#define WSGEMM_RELIABILITY_H

#include "testing.h"

#ifndef __cplusplus /* the verdict counter is C11; huge_kernels.cu uses only the device helpers */
#include <stdatomic.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- verdicts */

#ifndef __cplusplus
extern atomic_int rel_failures;

/* Count a failure and say where, with a printf-style explanation. Safe from any thread. */
#define REL_EXPECT(cond, ...)                                                    \
    do {                                                                         \
        if (!(cond)) {                                                           \
            char rel_msg_[512];                                                  \
            snprintf(rel_msg_, sizeof rel_msg_, __VA_ARGS__);                    \
            printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #cond, rel_msg_); \
            atomic_fetch_add(&rel_failures, 1);                                  \
        }                                                                        \
    } while (0)
#endif

/* Exit 77 with "SKIPPED: <why>" (ctest: skipped). */
void rel_skip(const char *why);
/* 1 when the current device is compute capability 9.0 and this build holds the sm90 path. */
int rel_sm90_runs(void);
/* Skip unless rel_sm90_runs(): the forced-sm90 cases. */
void rel_require_sm90(void);
/* The path AUTO must take for a problem the fast path runs given a workspace: SM90 where rel_sm90_runs(),
 * else WSGEMM_PATH_AUTO, which the checks read as "any path". */
wsgemm_path rel_auto_path(void);
/* Does msg contain word, with no letter, digit or '_' on either side? ("A" in "A = 0x..", not in "Atype") */
int rel_mentions(const char *msg, const char *word);
/* Milliseconds since an arbitrary start (CLOCK_MONOTONIC). */
double rel_now_ms(void);
/* A stream that does not synchronize with the legacy default stream. */
cudaStream_t rel_stream_create(void);

/* ---------------------------------------------------------------- one problem, its buffers, its reference */

typedef struct rel_problem {
    testing_gemm g;       /* resolved: every leading dimension and stride filled in */
    testing_buffers b;    /* device A, B, C of the current device; C NaN-poisoned when beta == 0 */
    int splitk;           /* > 0: WSGEMM_SM90_SPLITK=splitk during the call (forces split-K partials) */
    double *ref;          /* the cuBLAS result for the current inputs, tight m x n per batch */
    wsgemm_status status; /* of the last rel_problem_run */
    wsgemm_path path;     /* wsgemm_get_last_path after it (this thread) */
} rel_problem;

/* Buffers on the current device with inputs from seed; ends with a device synchronize so that work on
 * non-blocking streams sees the uploads. No reference yet. */
void rel_problem_create(rel_problem *p, const testing_gemm *g, int splitk, uint64_t seed);
/* New A and B from seed into the same device buffers, C poisoned again; device synchronize. */
void rel_problem_new_inputs(rel_problem *p, uint64_t seed);
/* C poisoned again (its bytes as created); device synchronize. */
void rel_problem_repoison(rel_problem *p);
/* p->ref = cuBLAS (fp32 out, CUBLAS_COMPUTE_32F) on the current device, with a cuBLAS handle of that device.
 * Main thread only. */
void rel_problem_reference(rel_problem *p);
/* One wsgemm call on h's stream (setting WSGEMM_SM90_SPLITK around it when p->splitk: single-threaded use
 * only); records p->status and p->path. Does not synchronize. */
wsgemm_status rel_problem_run(wsgemm_handle h, rel_problem *p);
/* C (after the caller synchronized) against p->ref with the checker of testing.h. 1 when right. */
int rel_problem_check(const rel_problem *p, const char *label);
/* 1 when every byte of device C equals what the last poisoning wrote. */
int rel_problem_c_untouched(const rel_problem *p);
/* wsgemm_gemm_workspace_size for p with h's path (WSGEMM_SM90_SPLITK set as the call would); exits on a
 * status other than SUCCESS. */
size_t rel_problem_workspace_size(wsgemm_handle h, const rel_problem *p);
void rel_problem_destroy(rel_problem *p);

/* Check every problem of a set (after the caller synchronized); prints "<label>: w of n wrong" and
 * counts one failure per wrong result. Returns the number wrong. */
int rel_check_all(const rel_problem *ps, int count, const char *label);

/* The i-th (cyclically) of four shapes that need a workspace on the sm90 path: an unaligned leading
 * dimension (1001), a leading dimension 4099 on K-major operands, base pointers 6 bytes off, and an aligned
 * problem with split-K forced (*splitk = 4, else 0). `small` shrinks them for cases with many calls.
 * Output types vary (bf16, f32, f16); beta = 0 so C is NaN-poisoned. */
testing_gemm rel_workspace_shape(int i, int small, int *splitk);

/* ---------------------------------------------------------------- child processes */

/* Run this executable again as `<self> <case_name> --child` and wait for it; print how it ended.
 * Returns 0 (passed), WSGEMM_TEST_SKIP (skipped) or 1 (failed, killed or lost). */
int rel_run_child(const char *case_name);

/* ---------------------------------------------------------------- device helpers (huge_kernels.cu) */

/* Fill count 16-bit elements (bf16 or f16) with hash(seed, index) uniform in [-1, 1]; synchronizes. */
void rel_device_fill_uniform(void *ptr, wsgemm_dtype type, size_t count, uint64_t seed);
/* fp64 reference of a small C (m * n <= 65535, batch 1): out[i + j*m] = alpha * sum_k op(A)(i,k) op(B)(k,j),
 * operands read from the device pointers with g's layout. Deterministic: each block sums a fixed k range
 * in a fixed order and the host adds the block sums in order. */
/* cuBLAS's fp32 result (cublasGemmEx, CUBLAS_COMPUTE_32F, beta 0) of a small m x n C, tight, on the host. */
void rel_cublas_small_c(const testing_gemm *g, const void *A, const void *B, float *out);
void rel_device_reference_small_c(const testing_gemm *g, const void *A, const void *B, double *out);

/* An element-wise comparison of a huge C done on the device (batch 1, beta 0, small k). */
typedef struct rel_device_report {
    unsigned long long checked, mismatches, nans;
    double max_abs_err;
    long long first_bad; /* linear index i + j*m of the first mismatch, -1 when none */
} rel_device_report;
/* Compare C (ldc, c_type) with alpha * op(A) op(B) computed per element in fp64 on the device:
 * |got - want| <= rtol |want| + atol; NaN never passes. */
rel_device_report rel_device_check_c(const testing_gemm *g, const void *A, const void *B, const void *C, double rtol,
                                     double atol);

/* ---------------------------------------------------------------- the cases (one ctest entry each) */

void streams_auto(void);
void streams_sm90(void);
void streams_user_workspace_auto(void);
void streams_user_workspace_sm90(void);

void graphs_global_auto(void);
void graphs_thread_local_auto(void);
void graphs_global_sm90(void);
void graphs_workspace_grows(void);
void graphs_user_workspace(void);

void sizes_k_int_max_auto(void);
void sizes_k_int_max_sm90(void);
void sizes_k_int_max_generic(void);
void sizes_k_major_huge_k(void);
void sizes_c_over_2g_auto(void);
void sizes_c_over_2g_generic(void);
void sizes_a_over_2g_auto(void);
void sizes_a_over_2g_generic(void);
void sizes_batch_100000_auto(void);
void sizes_batch_100000_generic(void);
void sizes_decline_absurd_strides(void);
void sizes_decline_footprint(void);

void alignment_a_odd(void);
void alignment_b_odd(void);
void alignment_c_f32_2byte(void);
void alignment_c_f16_odd(void);
void alignment_managed(void);
void alignment_host_memory(void);

void threads_one_handle_own_streams(void);
void threads_one_handle_shared_stream(void);
void threads_messages(void);
void threads_handle_per_thread(void);

void multi_gpu_switch(void);
void multi_gpu_threads(void);

void errors_pending_kept(void);
void errors_own_failure_clean(void);

void workspace_size_query(void);
void workspace_exact_and_too_small(void);
void workspace_none(void);
void workspace_reset(void);
void workspace_bad_pointer(void);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_RELIABILITY_H */
