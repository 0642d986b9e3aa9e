// SPDX-License-Identifier: MIT
/*
 * gemm/common/staging.h - operands as the fast paths' tensor maps see them, and the staging copy of the ones
 * TMA cannot address (shared by the sm90 and sm100 planners). Host C, no CUDA call; the copy kernel and its
 * launch are in staging.cuh.
 *
 * TMA needs 16-byte aligned bases and strides. An operand with an odd leading dimension (e.g. 4099), an
 * unaligned base, or a batch stride that is unaligned or overlapping is copied (re-pitched to a multiple of 8
 * elements) into the call's workspace before the kernel, which then reads the copy. A one-row operand with
 * ld 1 (m = 1 or n = 1 decode) is read as a K-major row instead, and a single column's leading dimension is
 * never stepped over, so neither needs a copy.
 */
#ifndef WSGEMM_COMMON_STAGING_H
#define WSGEMM_COMMON_STAGING_H

#include <stddef.h>

#include "common/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One operand as stored, `rows` (M or N) by K, K contiguous when k_major; a batch stride of 0 (or one batch)
 * means one matrix shared by the whole batch. Not yet staged. With one_row_view a one-row MN-major operand
 * with ld 1 is described as the K-major row it also is (read in place); without it (batch invariance: the
 * kernel's majorness must not follow the row count) it stays MN-major, and staging copies it. */
wsgemm_operand wsgemm_operand_describe(const void *ptr, int ld, long long stride, int k_major, int rows, int k,
                                       int batch_count, int one_row_view);

/* 1 when TMA cannot address o as it is stored. */
int wsgemm_operand_needs_staging(const wsgemm_operand *o);

/* Mark the operands of ops[0 .. count-1] that need staging, and lay their copies out in the workspace from
 * offset 0, each 256-byte aligned. *end: the first free (256-byte aligned) offset after them. NOT_SUPPORTED
 * with the reason in why when a copy would exceed 2^62 bytes (an overlapping batch stride can make it far
 * larger than the operand). */
wsgemm_status wsgemm_operands_plan_staging(wsgemm_operand *const *ops, const char *const *names, int count, size_t *end,
                                           char *why, size_t why_size);

/* FP8 operands (1-byte elements): one that TMA cannot address as stored is copied into a K-major matrix of
 * ld = k rounded up to 16 (transposed if it was MN-major). With k_major_only (the sm90 FP8 kernels, whose
 * wgmma reads K-major FP8 only) an MN-major FP8 operand is copied too; the sm100 kernel reads either major.
 * wsgemm_operands_plan_staging_fp8 marks such operands of ops[0 .. count-1] and lays their copies out as
 * wsgemm_operands_plan_staging does. */
int wsgemm_operand_fp8_needs_staging(const wsgemm_operand *o, int k_major_only);
wsgemm_status wsgemm_operands_plan_staging_fp8(wsgemm_operand *const *ops, const char *const *names, int count, int k,
                                               int k_major_only, size_t *end, char *why, size_t why_size);

/* 256-byte alignment of workspace pieces. */
size_t wsgemm_align256(size_t x);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_STAGING_H */
