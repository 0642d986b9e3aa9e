// SPDX-License-Identifier: MIT
/*
 * gemm/grouped.c - the entry points of the grouped GEMM: wsgemm_grouped_desc_init_sized and
 * wsgemm_gemm_grouped_ex. The argument checks (pure C, no CUDA call) into one wsgemm_call of kind GROUPED,
 * then the call pipeline (call.c) as every call. The group sizes live on the device and are never read
 * here: what the host checks is the shape family (m, n, k, leading dimensions, strides) with the grouped
 * extent as its upper bound; the kernel keeps every group inside it (gemm/common/grouped.cuh).
 */
#include <stdint.h>
#include <string.h>

#include "call.h"
#include "common/dtype.h"
#include "handle.h"
#include "internal.h"

wsgemm_status wsgemm_grouped_desc_init_sized(wsgemm_grouped_desc *desc, size_t size, wsgemm_grouped_layout layout,
                                             wsgemm_grouped_dim dim, int group_count, const int *sizes)
{
    static const char fn[] = "wsgemm_grouped_desc_init";
    if (desc == NULL) return wsgemm_handle_fail(NULL, WSGEMM_STATUS_INVALID_VALUE, "%s: desc is NULL", fn);
    if (size != sizeof(wsgemm_grouped_desc))
        return wsgemm_handle_fail(NULL, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: size = %zu is not sizeof(wsgemm_grouped_desc) = %zu of this version", fn, size,
                                  sizeof(wsgemm_grouped_desc));
    *desc = (wsgemm_grouped_desc){.size = size,
                                  .layout = layout,
                                  .dim = dim,
                                  .group_count = group_count,
                                  .sizes = sizes,
                                  .status = NULL,
                                  .launch_mode = WSGEMM_LAUNCH_MODE_DEFAULT};
    return wsgemm_handle_succeed_without_handle();
}

static int max1(int x)
{
    return x > 1 ? x : 1;
}

static wsgemm_status fail(wsgemm_handle h, wsgemm_status s, const char *fn, const char *what)
{
    return wsgemm_handle_fail(h, s, "%s: %s", fn, what);
}

/* The grouping itself: size, layout, dim, group_count, and the device pointers (alignment only; their
 * memory is checked with the operands in call.c). */
static wsgemm_status check_desc(wsgemm_handle h, const char *fn, const wsgemm_grouped_desc *g)
{
    if (g == NULL) return fail(h, WSGEMM_STATUS_INVALID_VALUE, fn, "grouped is NULL");
    if (g->size != sizeof(wsgemm_grouped_desc))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: grouped->size = %zu is not sizeof(wsgemm_grouped_desc) = %zu "
                                  "(wsgemm_grouped_desc_init sets it)",
                                  fn, g->size, sizeof(wsgemm_grouped_desc));
    if (g->layout != WSGEMM_GROUPED_CONTIGUOUS && g->layout != WSGEMM_GROUPED_MASKED)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: grouped->layout = %d is not WSGEMM_GROUPED_CONTIGUOUS (0) or "
                                  "WSGEMM_GROUPED_MASKED (1)",
                                  fn, (int)g->layout);
    if (g->dim != WSGEMM_GROUPED_DIM_M && g->dim != WSGEMM_GROUPED_DIM_N && g->dim != WSGEMM_GROUPED_DIM_K)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: grouped->dim = %d is not WSGEMM_GROUPED_DIM_M (0), _N (1) or _K (2)", fn,
                                  (int)g->dim);
    if (g->group_count < 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: grouped->group_count = %d is negative", fn,
                                  g->group_count);
    if (g->group_count > 0 && g->sizes == NULL)
        return fail(h, WSGEMM_STATUS_INVALID_VALUE, fn, "grouped->sizes is NULL");
    if (g->launch_mode != WSGEMM_LAUNCH_MODE_DEFAULT && g->launch_mode != WSGEMM_LAUNCH_MODE_PDL)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: grouped->launch_mode = %d is not a wsgemm_launch_mode (DEFAULT 0, PDL 1)", fn,
                                  (int)g->launch_mode);
    if ((uintptr_t)g->sizes % 4 != 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: grouped->sizes = %p is not aligned to its 4-byte elements", fn,
                                  (const void *)g->sizes);
    if ((uintptr_t)g->status % 4 != 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: grouped->status = %p is not aligned to its 4-byte element", fn,
                                  (void *)g->status);
    return WSGEMM_STATUS_SUCCESS;
}

/* The C matrices of a masked call may not overlap: matrix after matrix (strideC >= (n-1)*ldc + m) or
 * interleaved inside one column (strideC >= m, all of them within ldc rows), as for a strided batch. */
static int outputs_disjoint(const wsgemm_problem *p)
{
    if (p->batch_count <= 1) return 1;
    if (p->strideC >= (long long)(p->n - 1) * p->ldc + p->m) return 1;
    long long last_start;
    if (__builtin_mul_overflow((long long)(p->batch_count - 1), p->strideC, &last_start)) return 0;
    return p->strideC >= p->m && last_start + p->m <= p->ldc;
}

/* The operands as stored: C always, A and B when there is a product; the grouping's sizes and status. */
static int grouped_operands(const wsgemm_problem *p, const wsgemm_grouped_desc *g, wsgemm_call_operand *ops)
{
    int n = 0;
    if (p->k > 0 && p->alpha != 0.0f) {
        ops[n] = wsgemm_call_operand_of("A", p->A, wsgemm_dtype_size(p->Atype), p->transa == WSGEMM_OP_N ? p->m : p->k,
                                        p->transa == WSGEMM_OP_N ? p->k : p->m, p->lda);
        ops[n++].stride = p->strideA;
        ops[n] = wsgemm_call_operand_of("B", p->B, wsgemm_dtype_size(p->Btype), p->transb == WSGEMM_OP_N ? p->k : p->n,
                                        p->transb == WSGEMM_OP_N ? p->n : p->k, p->ldb);
        ops[n++].stride = p->strideB;
    }
    ops[n] = wsgemm_call_operand_of("C", p->C, wsgemm_dtype_size(p->Ctype), p->m, p->n, p->ldc);
    ops[n++].stride = p->strideC;
    for (int i = 0; i < n; ++i) ops[i].matrices = ops[i].stride != 0 ? p->batch_count : 1;
    ops[n++] = wsgemm_call_operand_of("sizes", g->sizes, 4, g->group_count, 1, g->group_count);
    if (g->status) ops[n++] = wsgemm_call_operand_of("status", g->status, 4, 1, 1, 1);
    return n;
}

/* Every check that needs no CUDA call, in the order of the argument list. */
static wsgemm_status check_arguments(wsgemm_handle h, const char *fn, const wsgemm_problem *p,
                                     const wsgemm_grouped_desc *g, const float *alpha, const float *beta,
                                     int device_scalars)
{
    wsgemm_status s = check_desc(h, fn, g);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (p->transa != WSGEMM_OP_N && p->transa != WSGEMM_OP_T)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: transa = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", fn, (int)p->transa);
    if (p->transb != WSGEMM_OP_N && p->transb != WSGEMM_OP_T)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: transb = %d is not WSGEMM_OP_N (0) or WSGEMM_OP_T (1)", fn, (int)p->transb);
    if (p->m < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: m = %d is negative", fn, p->m);
    if (p->n < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: n = %d is negative", fn, p->n);
    if (p->k < 0) return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: k = %d is negative", fn, p->k);
    if (alpha == NULL) return fail(h, WSGEMM_STATUS_INVALID_VALUE, fn, "alpha is NULL");
    if (beta == NULL) return fail(h, WSGEMM_STATUS_INVALID_VALUE, fn, "beta is NULL");
    if (device_scalars)
        return fail(h, WSGEMM_STATUS_NOT_SUPPORTED, fn,
                    "WSGEMM_POINTER_MODE_DEVICE is not supported by the grouped call: alpha and beta are host floats");
    if (!wsgemm_dtype_is_valid(p->Atype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Atype = %d is not a wsgemm_dtype", fn,
                                  (int)p->Atype);
    if (!wsgemm_dtype_is_valid(p->Btype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Btype = %d is not a wsgemm_dtype", fn,
                                  (int)p->Btype);
    if (!wsgemm_dtype_is_valid(p->Ctype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: Ctype = %d is not a wsgemm_dtype", fn,
                                  (int)p->Ctype);
    if (!wsgemm_dtype_is_16bit(p->Atype) || p->Btype != p->Atype)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: Atype = %d with Btype = %d is not supported: A and B must both be "
                                  "WSGEMM_R_16BF or both WSGEMM_R_16F (FP8 grouped: not in this version)",
                                  fn, (int)p->Atype, (int)p->Btype);
    if (p->Ctype != WSGEMM_R_32F && !wsgemm_dtype_is_16bit(p->Ctype))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_NOT_SUPPORTED,
                                  "%s: Ctype = %d is not supported: C is WSGEMM_R_16BF, WSGEMM_R_16F or WSGEMM_R_32F",
                                  fn, (int)p->Ctype);
    s = wsgemm_call_check_ab_ld(h, fn, p->transa, p->transb, p->m, p->n, p->k, p->lda, p->ldb);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    if (p->ldc < max1(p->m))
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: ldc = %d is below max(1, m) = %d", fn, p->ldc,
                                  max1(p->m));
    if (p->strideA < 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideA = %lld is negative", fn, p->strideA);
    if (p->strideB < 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideB = %lld is negative", fn, p->strideB);
    if (p->strideC < 0)
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE, "%s: strideC = %lld is negative", fn, p->strideC);
    if (g->layout == WSGEMM_GROUPED_CONTIGUOUS && g->dim == WSGEMM_GROUPED_DIM_K) { /* A and B split along K */
        if (p->strideA != 0 || p->strideB != 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: stride%c = %lld must be 0: A and B hold every group's K in one matrix "
                                      "each (WSGEMM_GROUPED_CONTIGUOUS along K)",
                                      fn, p->strideA != 0 ? 'A' : 'B', p->strideA != 0 ? p->strideA : p->strideB);
        if (!outputs_disjoint(p))
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: strideC = %lld makes the %d C matrices overlap (need strideC >= (n-1)*ldc "
                                      "+ m = %lld, or strideC >= m with all of them inside ldc = %d rows)",
                                      fn, p->strideC, p->batch_count, (long long)(p->n - 1) * p->ldc + p->m, p->ldc);
    } else if (g->layout == WSGEMM_GROUPED_CONTIGUOUS) { /* the grouped operand and C are one matrix each */
        const int dim_m = g->dim == WSGEMM_GROUPED_DIM_M;
        const long long grouped_stride = dim_m ? p->strideA : p->strideB;
        if (grouped_stride != 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: stride%c = %lld must be 0: %c holds every group's %s in one matrix "
                                      "(WSGEMM_GROUPED_CONTIGUOUS along %c)",
                                      fn, dim_m ? 'A' : 'B', grouped_stride, dim_m ? 'A' : 'B',
                                      dim_m ? "rows" : "columns", dim_m ? 'M' : 'N');
        if (p->strideC != 0)
            return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                      "%s: strideC = %lld must be 0: C is one matrix (WSGEMM_GROUPED_CONTIGUOUS)", fn,
                                      p->strideC);
    } else if (!outputs_disjoint(p)) {
        return wsgemm_handle_fail(h, WSGEMM_STATUS_INVALID_VALUE,
                                  "%s: strideC = %lld makes the %d C matrices overlap (need strideC >= (n-1)*ldc + m "
                                  "= %lld, or strideC >= m with all of them inside ldc = %d rows)",
                                  fn, p->strideC, p->batch_count, (long long)(p->n - 1) * p->ldc + p->m, p->ldc);
    }
    const int empty = p->m == 0 || p->n == 0 || g->group_count == 0;
    const int needs_ab = !empty && p->k > 0 && *alpha != 0.0f;
    if (needs_ab && p->A == NULL) return fail(h, WSGEMM_STATUS_INVALID_VALUE, fn, "A is NULL");
    if (needs_ab && p->B == NULL) return fail(h, WSGEMM_STATUS_INVALID_VALUE, fn, "B is NULL");
    if (!empty && p->C == NULL) return fail(h, WSGEMM_STATUS_INVALID_VALUE, fn, "C is NULL");
    if (!empty) {
        wsgemm_problem q = *p;
        q.alpha = *alpha;
        wsgemm_call_operand ops[5];
        const int count = grouped_operands(&q, g, ops);
        for (int i = 0; i < count; ++i) {
            s = wsgemm_call_check_layout(h, fn, &ops[i]);
            if (s != WSGEMM_STATUS_SUCCESS) return s;
        }
    }
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status wsgemm_gemm_grouped_ex(wsgemm_handle h, const wsgemm_grouped_desc *grouped, wsgemm_op transa,
                                     wsgemm_op transb, int m, int n, int k, const float *alpha, const void *A,
                                     wsgemm_dtype Atype, int lda, long long strideA, const void *B, wsgemm_dtype Btype,
                                     int ldb, long long strideB, const float *beta, void *C, wsgemm_dtype Ctype,
                                     int ldc, long long strideC)
{
    static const char fn[] = "wsgemm_gemm_grouped_ex";
    if (wsgemm_handle_begin(h, fn) != WSGEMM_STATUS_SUCCESS) return WSGEMM_STATUS_NOT_INITIALIZED;
    const wsgemm_handle_settings set = wsgemm_handle_settings_get(h); /* once per call */
    wsgemm_problem p = {.transa = transa,
                        .transb = transb,
                        .m = m,
                        .n = n,
                        .k = k,
                        .A = A,
                        .Atype = Atype,
                        .lda = lda,
                        .strideA = strideA,
                        .B = B,
                        .Btype = Btype,
                        .ldb = ldb,
                        .strideB = strideB,
                        .C = C,
                        .Ctype = Ctype,
                        .ldc = ldc,
                        .strideC = strideC,
                        .batch_count = grouped ? grouped->group_count : 0,
                        .a_scale_mode = WSGEMM_MATMUL_SCALE_SCALAR_32F,
                        .b_scale_mode = WSGEMM_MATMUL_SCALE_SCALAR_32F,
                        .grouped = grouped};
    wsgemm_status s = check_arguments(h, fn, &p, grouped, alpha, beta, set.pointer_mode == WSGEMM_POINTER_MODE_DEVICE);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    p.alpha = *alpha;
    p.beta = *beta;
    if (p.k == 0) p.alpha = 0.0f;                        /* no product: C = beta * C on the groups' slices */
    if (m == 0 || n == 0 || grouped->group_count == 0) { /* quick return: nothing to compute, status unwritten */
        wsgemm_handle_record_path(h, WSGEMM_PATH_NONE);
        return WSGEMM_STATUS_SUCCESS;
    }
    wsgemm_call c = {.fn = fn, .kind = WSGEMM_CALL_GROUPED, .problem = p};
    c.pdl = grouped->launch_mode == WSGEMM_LAUNCH_MODE_PDL;
    c.operand_count = grouped_operands(&p, grouped, c.operands);
    return wsgemm_call_execute(h, &c, &set);
}
