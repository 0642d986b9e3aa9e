// SPDX-License-Identifier: MIT
/*
 * gemm/common/staging.c - see staging.h.
 */
#include "common/staging.h"

#include <stdio.h>

#include "common/tma.h"

static long long round_up_ll(long long x, long long a)
{
    return (x + a - 1) / a * a;
}

size_t wsgemm_align256(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

/* A one-row MN-major operand with ld 1 (A of a 1 x k product, op N, lda 1; or B of n = 1, op T, ldb 1) holds
 * its k elements back to back: that is a K-major row, which TMA loads directly, while the MN-major view (a
 * 1-element-wide box, a 2-byte K stride) is TMA-illegal and cost a staging copy of k one-element columns
 * (docs/perf-log.md, "Skinny shapes, split-K and the staging copy": m = 1, n = k = 8192). The row stride of a
 * single row is never used; it is set to satisfy TMA's 16-byte stride rule. */
static void view_one_row_as_k_major(wsgemm_operand *o, int k)
{
    if (o->k_major || o->rows_dim != 1 || o->ld != 1) return;
    o->k_major = 1;
    o->inner = k;
    o->cols = 1;
    o->ld = round_up_ll(k, 8);
}

wsgemm_operand wsgemm_operand_describe(const void *ptr, int ld, long long stride, int k_major, int rows, int k,
                                       int batch_count, int one_row_view)
{
    wsgemm_operand o = {
        .ptr = ptr,
        .ld = ld,
        .stride = stride,
        .inner = k_major ? k : rows,
        .cols = k_major ? rows : k,
        .nb = (batch_count > 1 && stride != 0) ? batch_count : 1,
        .k_major = k_major,
        .rows_dim = rows,
    };
    if (one_row_view) view_one_row_as_k_major(&o, k);
    /* One column of one matrix (n = 1 with B K-major, say): its leading dimension is never stepped over, so
     * an odd one (ldb = k) needs no staging copy; TMA only wants a legal stride there. */
    if (o.cols == 1 && o.nb == 1) o.ld = round_up_ll(o.inner, 8);
    return o;
}

int wsgemm_operand_needs_staging(const wsgemm_operand *o)
{
    int batched = o->nb > 1;
    if (!wsgemm_tma_operand_ok(o->ptr, o->ld, o->stride, batched)) return 1;
    if (batched && o->stride < o->ld * o->cols) return 1; /* overlapping matrices: not a TMA box walk */
    return 0;
}

/* Bytes of the staged copy (re-pitched to a multiple of 8 elements per column); 0 when that does not fit
 * in 2^62. */
static size_t staged_bytes(const wsgemm_operand *o)
{
    long long bytes;
    if (__builtin_mul_overflow(round_up_ll(o->inner, 8), o->cols, &bytes) ||
        __builtin_mul_overflow(bytes, (long long)o->nb * 2, &bytes) || bytes > (1LL << 62))
        return 0;
    return (size_t)bytes;
}

int wsgemm_operand_fp8_needs_staging(const wsgemm_operand *o, int k_major_only)
{
    if ((k_major_only && !o->k_major) || !wsgemm_tma_layout_ok(o->ptr, o->ld, o->stride, o->nb > 1, 1)) return 1;
    return o->nb > 1 && o->stride < o->ld * o->cols; /* overlapping matrices: not a TMA box walk */
}

/* Bytes of the FP8 copy: k rounded up to 16 per row, rows_dim rows per matrix; 0 when that does not fit in 2^62. */
static size_t fp8_staged_bytes(const wsgemm_operand *o, int k)
{
    long long bytes;
    if (__builtin_mul_overflow(round_up_ll(k, 16), o->rows_dim, &bytes) ||
        __builtin_mul_overflow(bytes, (long long)o->nb, &bytes) || bytes > (1LL << 62))
        return 0;
    return (size_t)bytes;
}

/* The copies of ops[0 .. count-1] that need one, laid out from offset 0. fp8: the FP8 rule (k_major_only: an
 * MN-major operand too) and layout. */
static wsgemm_status plan_copies(wsgemm_operand *const *ops, const char *const *names, int count, int fp8,
                                 int k_major_only, int k, size_t *end, char *why, size_t why_size)
{
    size_t offset = 0;
    for (int i = 0; i < count; ++i) {
        if (!(fp8 ? wsgemm_operand_fp8_needs_staging(ops[i], k_major_only) : wsgemm_operand_needs_staging(ops[i])))
            continue;
        ops[i]->staged = 1;
        ops[i]->stage_offset = offset;
        ops[i]->stage_bytes = fp8 ? fp8_staged_bytes(ops[i], k) : staged_bytes(ops[i]);
        if (ops[i]->stage_bytes == 0) {
            snprintf(why, why_size, "the staged copy of %s would exceed 2^62 bytes", names[i]);
            return WSGEMM_STATUS_NOT_SUPPORTED;
        }
        offset = wsgemm_align256(offset + ops[i]->stage_bytes);
    }
    *end = offset;
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_operands_plan_staging_fp8(wsgemm_operand *const *ops, const char *const *names, int count, int k,
                                               int k_major_only, size_t *end, char *why, size_t why_size)
{
    return plan_copies(ops, names, count, 1, k_major_only, k, end, why, why_size);
}

wsgemm_status wsgemm_operands_plan_staging(wsgemm_operand *const *ops, const char *const *names, int count, size_t *end,
                                           char *why, size_t why_size)
{
    return plan_copies(ops, names, count, 0, 0, 0, end, why, why_size);
}
