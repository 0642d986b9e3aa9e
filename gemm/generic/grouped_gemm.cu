// SPDX-License-Identifier: MIT
/*
 * grouped_gemm.cu - the grouped GEMM on the generic path: the reference every grouped kernel is checked
 * against, correct on every device of sm_80 and later, for every grouping the API accepts.
 *
 * What it computes: for each group g that keeps the contract (gemm/common/grouped.cuh), on the group's
 * slice of the grouped dimension (rows or columns of C_g; for groups along K, all of C_g from the group's K
 * slice), C_g = alpha * op(A_g) op(B_g) + beta * C_g with fp32 accumulation; A_g =
 * A + g strideA, B_g = B + g strideB, C_g = C + g strideC (the checks made the grouped operand's and C's
 * strides 0 in the contiguous layout, so one formula serves both layouts; along K, A_g and B_g start at the
 * slice's first k).
 *
 * Structure: one CTA of 256 threads computes one 64 x 64 tile of one group, K in steps of 16: each step
 * loads op(A)'s 64 x 16 and op(B)'s 16 x 64 elements (bounds-checked one by one, zero outside the group's
 * slice and K; the thread-to-element map follows the operand's contiguous direction so a warp's loads
 * coalesce), widened to fp32 in shared memory, and each thread adds a 4 x 4 block of the tile by fp32 FMA
 * (rows tx + 16 i, columns ty + 16 j: a warp's stores to column-major C coalesce). No tensor cores: the
 * kernel's first duty is to be right for any layout, alignment and size.
 *
 * Work: unit u of the scheduler (the group's tile along the grouped dimension, or along K the group) times `others`
 * tiles across the other dimension (along K: C_g's tiles), w = u * others + other. The grid is sized from the
 * host's bound on the units (wsgemm_grouped_units_bound) and strides over w beyond 2^30 CTAs; a CTA whose w lies
 * past the device-side total leaves at once. CTA 0 scans every group and writes the status.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "common/epilogue.cuh"
#include "common/grouped.cuh"
#include "common/pdl.cuh"
#include "common/status.h"
#include "internal.h"

namespace
{

constexpr int kTile = 64; /* along both M and N */
constexpr int kStepK = 16;
constexpr int kThreads = 256;
constexpr int kPer = 4; /* a thread's rows and columns */
constexpr int kPitch = kTile + 1;
static_assert(kTile * kStepK % kThreads == 0 && kTile == 16 * kPer && kThreads == 16 * 16, "the thread map");

struct GroupedParams {
    GroupedSizes g;
    int dim; /* wsgemm_grouped_dim */
    const void *A, *B;
    void *C;
    int m, n, k;
    long long lda, ldb, ldc;
    long long strideA, strideB, strideC;
    int a_k_contiguous; /* op(A) = A^T */
    int b_k_contiguous; /* op(B) = B */
    float alpha, beta;  /* alpha == 0: no product, A and B unread */
    int *status;
    int others;      /* tiles across the dimension that is not grouped (DIM_K: of all of C_g) */
    int tiles_m;     /* DIM_K: C_g's tiles along M */
    long long works; /* the host's bound: units bound * others */
};

__device__ __forceinline__ float widen(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}

__device__ __forceinline__ float widen(__half x)
{
    return __half2float(x);
}

/* Element (row, kk) of a row-by-K operand tile: op(A)(row, kk), or op(B)(kk, row) seen as its transpose. */
template <typename TIn>
__device__ __forceinline__ float operand_at(const TIn *base, long long ld, int k_contiguous, int row, int kk)
{
    return widen(k_contiguous ? base[(long long)row * ld + kk] : base[row + (long long)kk * ld]);
}

/* Copy the 64 x 16 tile at (row0, k0) of a row-by-K operand with rows < rows, k < K into s[kk][row]. */
template <typename TIn>
__device__ __forceinline__ void load_tile(float (&s)[kStepK][kPitch], const TIn *base, long long ld, int k_contiguous,
                                          int row0, int rows, int k0, int K)
{
#pragma unroll
    for (int q = 0; q < kTile * kStepK / kThreads; ++q) {
        const int e = (int)threadIdx.x + q * kThreads;
        const int kk = k_contiguous ? e % kStepK : e / kTile;
        const int r = k_contiguous ? e / kStepK : e % kTile;
        const int row = row0 + r, kg = k0 + kk;
        s[kk][r] = row < rows && kg < K ? operand_at(base, ld, k_contiguous, row, kg) : 0.0f;
    }
}

template <typename TIn, typename TOut>
__global__ void __launch_bounds__(kThreads) grouped_gemm_kernel(const GroupedParams p)
{
    __shared__ float sa[kStepK][kPitch];
    __shared__ float sb[kStepK][kPitch];
    __shared__ GroupedScanSmem<kThreads> scan;
    constexpr int kOut = wsgemm_dtype_of<TOut>::value;
    const int tx = (int)threadIdx.x % 16, ty = (int)threadIdx.x / 16;
    const long long stride = (long long)gridDim.x;
    /* programmatic dependent launch (common/pdl.cuh): the sizes, A, B and C are read after the previous
     * kernel is done; one pass over the works, so the next grid may be scheduled once this one is resident */
    wsgemm_pdl_wait();
    wsgemm_pdl_launch_dependents();
    for (long long w = blockIdx.x; w < p.works; w += stride) {
        const long long unit = w / p.others;
        const int other = (int)(w - unit * p.others);
        const int report = w == 0; /* CTA 0's first work: the whole scan, and the status */
        GroupedUnit u;
        int first_bad;
        const int found = wsgemm_grouped_find<kThreads, kTile>(p.g, unit, report, scan, &u, &first_bad);
        if (report && threadIdx.x == 0 && p.status)
            *p.status = first_bad < p.g.group_count ? first_bad + 1 : WSGEMM_GROUPED_SIZES_OK;
        if (!found) return; /* units only grow with w: every later one lies past the total too */

        /* the tile in the group's matrix: rows [r0, r1) of C_g, columns [c0, c1), K [k_begin, k_begin + K) */
        int r0, r1, c0, c1, k_begin = 0, K = p.alpha != 0.0f ? p.k : 0;
        if (p.dim == WSGEMM_GROUPED_DIM_K) {
            r0 = (other % p.tiles_m) * kTile;
            c0 = (other / p.tiles_m) * kTile;
            r1 = p.m - r0 < kTile ? p.m : r0 + kTile;
            c1 = p.n - c0 < kTile ? p.n : c0 + kTile;
            k_begin = u.begin;
            K = p.alpha != 0.0f ? u.end - u.begin : 0;
        } else {
            const int dim_n = p.dim == WSGEMM_GROUPED_DIM_N;
            const int g0 = u.tile_begin, g1 = u.end - g0 < kTile ? u.end : g0 + kTile;
            const int o0 = other * kTile, o_extent = dim_n ? p.m : p.n;
            const int o1 = o_extent - o0 < kTile ? o_extent : o0 + kTile;
            r0 = dim_n ? o0 : g0;
            r1 = dim_n ? o1 : g1;
            c0 = dim_n ? g0 : o0;
            c1 = dim_n ? g1 : o1;
        }
        const TIn *A = static_cast<const TIn *>(p.A) + u.group * p.strideA +
                       (p.a_k_contiguous ? (long long)k_begin : (long long)k_begin * p.lda);
        const TIn *B = static_cast<const TIn *>(p.B) + u.group * p.strideB +
                       (p.b_k_contiguous ? (long long)k_begin : (long long)k_begin * p.ldb);
        TOut *C = static_cast<TOut *>(p.C) + u.group * p.strideC;

        float acc[kPer][kPer];
#pragma unroll
        for (int i = 0; i < kPer; ++i)
#pragma unroll
            for (int j = 0; j < kPer; ++j) acc[i][j] = 0.0f;
        for (int k0 = 0; k0 < K; k0 += kStepK) {
            load_tile(sa, A, p.lda, p.a_k_contiguous, r0, r1, k0, K);
            load_tile(sb, B, p.ldb, p.b_k_contiguous, c0, c1, k0, K);
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < kStepK; ++kk) {
                float a[kPer], b[kPer];
#pragma unroll
                for (int i = 0; i < kPer; ++i) a[i] = sa[kk][tx + 16 * i];
#pragma unroll
                for (int j = 0; j < kPer; ++j) b[j] = sb[kk][ty + 16 * j];
#pragma unroll
                for (int i = 0; i < kPer; ++i)
#pragma unroll
                    for (int j = 0; j < kPer; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
            __syncthreads(); /* the next step overwrites sa and sb */
        }
#pragma unroll
        for (int i = 0; i < kPer; ++i)
#pragma unroll
            for (int j = 0; j < kPer; ++j) {
                const int row = r0 + tx + 16 * i, col = c0 + ty + 16 * j;
                if (row < r1 && col < c1)
                    wsgemm_out_apply<kOut>(C + row + (long long)col * p.ldc, acc[i][j], p.alpha, p.beta);
            }
    }
}

template <typename TIn>
cudaError_t launch_for_output(const GroupedParams &p, wsgemm_dtype c_type, cudaStream_t stream, int pdl)
{
    const long long max_grid = 1LL << 30; /* the kernel strides over the works beyond the grid */
    const dim3 grid(static_cast<unsigned>(p.works < max_grid ? p.works : max_grid));
    void *args[] = {const_cast<GroupedParams *>(&p)};
    const void *kernel = c_type == WSGEMM_R_16BF  ? (const void *)grouped_gemm_kernel<TIn, __nv_bfloat16>
                         : c_type == WSGEMM_R_16F ? (const void *)grouped_gemm_kernel<TIn, __half>
                                                  : (const void *)grouped_gemm_kernel<TIn, float>;
    /* the attribute only where the kernel, as loaded, holds griddepcontrol (not through sm_80's PTX) */
    return wsgemm_launch_kernel(kernel, grid, dim3(kThreads), args, 0, stream, pdl && wsgemm_kernel_has_pdl(kernel));
}

} // namespace

extern "C" wsgemm_status wsgemm_generic_grouped(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    const wsgemm_grouped_desc *d = p->grouped;
    const int dim_n = d->dim == WSGEMM_GROUPED_DIM_N, dim_k = d->dim == WSGEMM_GROUPED_DIM_K;
    GroupedParams g;
    g.g.sizes = d->sizes;
    g.g.group_count = d->group_count;
    g.g.layout = d->layout;
    g.g.extent = dim_k ? p->k : dim_n ? p->n : p->m;
    g.g.whole = dim_k;
    g.dim = d->dim;
    g.A = p->A;
    g.B = p->B;
    g.C = p->C;
    g.m = p->m;
    g.n = p->n;
    g.k = p->k;
    g.lda = p->lda;
    g.ldb = p->ldb;
    g.ldc = p->ldc;
    g.strideA = p->strideA;
    g.strideB = p->strideB;
    g.strideC = p->strideC;
    g.a_k_contiguous = p->transa == WSGEMM_OP_T;
    g.b_k_contiguous = p->transb == WSGEMM_OP_N;
    g.alpha = p->k > 0 ? p->alpha : 0.0f;
    g.beta = p->beta;
    g.status = d->status;
    g.tiles_m = (p->m - 1) / kTile + 1; /* m, n > 0 */
    const int other_extent = dim_n ? p->m : p->n;
    g.others = dim_k ? g.tiles_m * ((p->n - 1) / kTile + 1) : (other_extent - 1) / kTile + 1;
    g.works = wsgemm_grouped_units_bound(d->layout, d->group_count, g.g.extent, kTile, dim_k) * g.others;
    if (g.works < 1) g.works = 1; /* CTA 0 still writes the status */
    const cudaError_t err = p->Atype == WSGEMM_R_16BF
                                ? launch_for_output<__nv_bfloat16>(g, p->Ctype, ctx->stream, ctx->pdl)
                                : launch_for_output<__half>(g, p->Ctype, ctx->stream, ctx->pdl);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "grouped kernel launch failed: %s", cudaGetErrorString(err));
    }
    return WSGEMM_STATUS_SUCCESS;
}
