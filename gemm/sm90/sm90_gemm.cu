/*
 * gemm/sm90/sm90_gemm.cu - the launcher of the Hopper path: choose the orientation, tile width, split-K
 * and cluster shape; stage operands TMA cannot address; build the tensor maps; launch the kernel
 * (sm90_kernel.cuh) and, for split-K, the fixed-order reduction.
 *
 * A call, top to bottom:
 *   orientation  D = P Q^T with P the wgmma M side (128-row tiles) and Q the N side (BN-wide tiles).
 *                Skinny problems (min(m, n) <= 256) put the small dimension on Q with a narrow BN (64,
 *                128, 256) so no tensor-core work is wasted on padding. Otherwise P = op(B)^T, Q = op(A)
 *                ("swapped"): Q runs along C's contiguous rows, so the epilogue stores pairs of adjacent
 *                elements. WSGEMM_SM90_SWAP=0|1 overrides for large problems.
 *   staging      TMA needs 16-byte aligned bases and strides. An operand with an odd leading dimension
 *                (e.g. 4099), an unaligned base, or a batch stride that is unaligned or overlapping is
 *                copied (re-pitched to a multiple of 8 elements) into the handle's workspace inside the
 *                call, and the kernel reads the copy.
 *                A one-row operand with ld 1 (m = 1 or n = 1 decode) is read as a K-major row instead.
 *   split-K      when the cost model (estimate_cost) finds the tile grid too small, K is cut into `splits`
 *                contiguous ranges; each writes fp32 partials to the workspace and a reduction kernel sums
 *                them in split order 0, 1, ..., so the result depends only on the shape, never on timing.
 *                On the H200 the unsplit grid won on every skinny shape measured, so splits are now rare.
 *   cluster      2 CTAs along P share (multicast) the Q tile; 4 for decode shapes whose small side fits one
 *                64-wide Q tile (the small operand is then read from L2 half as often).
 *   launch       persistent grid: as many clusters as can be resident (cudaOccupancyMaxActiveClusters),
 *                each walking the grouped tile order of common/scheduler.cuh.
 *
 * Environment (read on every call; for tuning and debugging, never needed for correctness):
 *   WSGEMM_SM90_DEBUG=1   print the chosen configuration to stderr
 *   WSGEMM_SM90_SWAP=0|1  orientation for large problems     WSGEMM_SM90_BN=64|128|256 tile width
 *   WSGEMM_SM90_VARIANT=0|1|2|3  0 default (2-CTA cluster, deepest ring), 1 no cluster, 2 three stages
 *                         (1 and 2 exist for bf16, BN 256, K-major P only), 3 4-CTA cluster (BN 64 and
 *                         128); where the variant does not exist the default runs
 *   WSGEMM_SM90_SPLITK=n  force n K splits                   WSGEMM_SM90_GROUP=g grouped-order band
 *   WSGEMM_SM90_EPILOGUE=tma|direct  epilogue through smem + TMA store at the end of each tile (the default
 *                         defers those stores into the next tile's main loop when C and beta allow), or
 *                         direct per-element stores
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/tma.h"
#include "internal.h"
#include "sm90/sm90_kernel.cuh"

/* ---------------------------------------------------------------- helper kernels */

/* Bytes [mis, mis + 16) of the 32-byte window lo:hi (mis even, 0..14), as one 16-byte vector: the eight
 * 16-bit elements of an unaligned source run, from two aligned loads. Little-endian: output word i is the
 * window's bytes mis + 4i .. mis + 4i + 3, i.e. (word q+i+1 : word q+i) >> 8 * (mis % 4), q = mis / 4. */
static __device__ __forceinline__ uint4 stage_window_bytes(uint4 lo, uint4 hi, uint32_t mis)
{
    uint32_t x0, x1, x2, x3, x4; /* the five words from word q on; q is uniform across a column */
    switch (mis >> 2) {
    case 0: x0 = lo.x; x1 = lo.y; x2 = lo.z; x3 = lo.w; x4 = hi.x; break;
    case 1: x0 = lo.y; x1 = lo.z; x2 = lo.w; x3 = hi.x; x4 = hi.y; break;
    case 2: x0 = lo.z; x1 = lo.w; x2 = hi.x; x3 = hi.y; x4 = hi.z; break;
    default: x0 = lo.w; x1 = hi.x; x2 = hi.y; x3 = hi.z; x4 = hi.w; break;
    }
    const uint32_t shift = (mis & 3u) * 8u;
    return make_uint4(__funnelshift_r(x0, x1, shift), __funnelshift_r(x1, x2, shift), __funnelshift_r(x2, x3, shift),
                      __funnelshift_r(x3, x4, shift));
}

/* Re-pitch one operand: dst[r + c*dst_ld + b*dst_stride] = src[r + c*src_ld + b*src_stride] for r < rows,
 * and 0 in the padding up to the next multiple of 8 rows. dst is 16-byte aligned per column (the workspace
 * is 256-byte aligned, dst_ld and dst_stride are multiples of 8), src is only 2-byte aligned (that is why it
 * is staged). blockIdx.y walks the columns of all matrices (column c of matrix b is y = b*cols + c,
 * grid-strided); each thread writes 8-element chunks of the column as one 16-byte store and reads them with
 * one or two aligned 16-byte loads, where the aligned window lies inside the column (so nothing outside the
 * operand is read), else element by element. Measured at 4099^3 (ncu, H200, 2026-11-29) with one 2-byte
 * copy per thread and iteration: 38 us per operand (26 % of the HBM bandwidth). */
__global__ void sm90_stage_operand(uint16_t *dst, const uint16_t *src, long long rows, long long cols, int nb,
                                   long long src_ld, long long src_stride, long long dst_ld, long long dst_stride)
{
    const long long columns = cols * nb;
    const long long chunks = (rows + 7) / 8;
    for (long long y = blockIdx.y; y < columns; y += gridDim.y) {
        const long long b = y / cols, c = y - b * cols; /* once per column, not per element */
        const uint16_t *s = src + b * src_stride + c * src_ld;
        uint16_t *d = dst + b * dst_stride + c * dst_ld;
        const uintptr_t col_begin = (uintptr_t)s, col_end = (uintptr_t)(s + rows);
        const uint32_t mis = (uint32_t)(col_begin & 15u);
        for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < chunks;
             t += (long long)gridDim.x * blockDim.x) {
            const long long r0 = t * 8;
            const uintptr_t lo = ((uintptr_t)(s + r0)) & ~(uintptr_t)15;
            uint4 out;
            if (r0 + 8 <= rows && mis == 0) {
                out = *(const uint4 *)lo;
            } else if (r0 + 8 <= rows && lo >= col_begin && lo + 32 <= col_end) {
                out = stage_window_bytes(*(const uint4 *)lo, *(const uint4 *)(lo + 16), mis);
            } else { /* the column's first and last chunks: element by element, zeros past the end */
                uint16_t e[8];
#pragma unroll
                for (int i = 0; i < 8; ++i) e[i] = r0 + i < rows ? s[r0 + i] : (uint16_t)0;
                out = make_uint4(e[0] | (uint32_t)e[1] << 16, e[2] | (uint32_t)e[3] << 16, e[4] | (uint32_t)e[5] << 16,
                                 e[6] | (uint32_t)e[7] << 16);
            }
            *(uint4 *)(d + r0) = out;
        }
    }
}

/* C(i, j, b) = alpha * sum_{s = 0 .. splits-1, in order} part[s][b][i + j*m] + beta * C (beta == 0: C is
 * not read). A fixed order, so the bits depend only on the shape and the split count.
 * One flat grid-stride loop over e = (b*n + j)*m + i, the partials' own order: every warp reads 32
 * consecutive floats of each split and writes consecutive elements of a column of C, whatever m is.
 * (The first version gave each column of C its own block row; for m = 64 that left 192 of 256 threads
 * idle and took 21 us of a 60 us call, ncu on the H200, 2026-11-29.) */
__global__ void sm90_splitk_reduce(const float *part, int splits, long long m, long long n, int nb, void *c,
                                   int c_type, long long ldc, long long stride_c, float alpha, float beta)
{
    const long long total = m * n * nb;
    const bool narrow = total <= 0xFFFFFFFFLL; /* 32-bit divisions: a 64-bit one costs ~70 instructions */
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        long long i, b, j; /* e = (b*n + j)*m + i */
        if (narrow) {
            const uint32_t e32 = (uint32_t)e, m32 = (uint32_t)m, n32 = (uint32_t)n;
            const uint32_t column = e32 / m32, b32 = column / n32;
            i = e32 - column * m32;
            b = b32;
            j = column - b32 * n32;
        } else {
            const long long column = e / m;
            i = e - column * m;
            b = column / n;
            j = column - b * n;
        }
        float sum = 0.0f;
        for (int s = 0; s < splits; ++s) sum += part[(long long)s * total + e];
        float v = alpha * sum;
        const long long out = b * stride_c + j * ldc + i;
        if (c_type == WSGEMM_R_32F) {
            float *p = (float *)c + out;
            if (beta != 0.0f) v += beta * *p;
            *p = v;
        } else if (c_type == WSGEMM_R_16BF) {
            __nv_bfloat16 *p = (__nv_bfloat16 *)c + out;
            if (beta != 0.0f) v += beta * __bfloat162float(*p);
            *p = __float2bfloat16_rn(v);
        } else {
            __half *p = (__half *)c + out;
            if (beta != 0.0f) v += beta * __half2float(*p);
            *p = __float2half_rn(v);
        }
    }
}

/* Blocks for a flat grid-stride helper over `elems` elements: enough to cover them once, at most 16 per SM
 * (the loop takes the rest). */
static unsigned flat_grid(long long elems, int threads, int sm_count)
{
    long long blocks = (elems + threads - 1) / threads;
    long long cap = 16LL * sm_count;
    return (unsigned)(blocks < cap ? (blocks > 0 ? blocks : 1) : cap);
}

/* The staging copy's grid: y walks the columns (capped; the kernel grid-strides over them), x gives each
 * thread about two 8-element chunks of a column. (The first version gave each thread one 2-byte element: at
 * 4099^3 that was 70k blocks, and each operand took 118 us at 9 % of the HBM bandwidth, ncu, H200.) */
static dim3 stage_grid(long long rows, long long columns, int threads)
{
    long long chunks = (rows + 7) / 8;
    long long gx = (chunks + 2LL * threads - 1) / (2LL * threads);
    if (gx > 64) gx = 64;
    long long gy = columns < 65535 ? columns : 65535;
    return dim3((unsigned)gx, (unsigned)gy, 1);
}

/* ---------------------------------------------------------------- kernel table */

Sm90KernelInfo sm90_kernel_lookup(int bn, int variant, int p_mn, int q_mn, int bf16)
{
    switch (bn) {
    case 256: return bf16 ? sm90_kernels_bf16_n256(variant, p_mn, q_mn) : sm90_kernels_f16_n256(variant, p_mn, q_mn);
    case 128: return bf16 ? sm90_kernels_bf16_n128(variant, p_mn, q_mn) : sm90_kernels_f16_n128(variant, p_mn, q_mn);
    default: return bf16 ? sm90_kernels_bf16_n64(variant, p_mn, q_mn) : sm90_kernels_f16_n64(variant, p_mn, q_mn);
    }
}

/* Per-kernel facts that need a driver call: set the smem limit once, and the number of co-resident
 * clusters. One table per device (a kernel's attributes and occupancy are per device), each with room for
 * every kernel the tables of sm90_kernel.cuh hold (24 default + 4 tuning + 16 four-CTA-cluster kernels);
 * a full table is an error, never a silent miss. */
enum { kPrepPerDevice = 64 };
typedef struct kernel_prep {
    const void *fn;
    int max_clusters;
} kernel_prep;
static kernel_prep prep_table[WSGEMM_MAX_DEVICES][kPrepPerDevice];
static pthread_mutex_t prep_lock = PTHREAD_MUTEX_INITIALIZER; /* handles may live on several host threads */

static int prep_lookup(const void *fn, int dev, int *max_clusters)
{
    int found = 0;
    pthread_mutex_lock(&prep_lock);
    for (int i = 0; i < kPrepPerDevice && prep_table[dev][i].fn; ++i) {
        if (prep_table[dev][i].fn == fn) {
            *max_clusters = prep_table[dev][i].max_clusters;
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&prep_lock);
    return found;
}

/* 0 when the device's table is full. A racing thread may insert the same facts first: then nothing. */
static int prep_insert(const void *fn, int dev, int max_clusters)
{
    int stored = 0;
    pthread_mutex_lock(&prep_lock);
    for (int i = 0; i < kPrepPerDevice && !stored; ++i) {
        if (prep_table[dev][i].fn == fn) stored = 1;
        else if (prep_table[dev][i].fn == NULL) {
            prep_table[dev][i].fn = fn;
            prep_table[dev][i].max_clusters = max_clusters;
            stored = 1;
        }
    }
    pthread_mutex_unlock(&prep_lock);
    return stored;
}

static wsgemm_status prepare_kernel(const Sm90KernelInfo *info, wsgemm_launch_ctx *ctx, int *max_clusters)
{
    int dev = ctx->device->ordinal;
    if (prep_lookup(info->fn, dev, max_clusters)) return WSGEMM_STATUS_SUCCESS;
    if (info->smem_bytes > ctx->device->smem_optin_bytes)
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "sm90 kernel needs %d bytes of shared memory; device has %d",
                           info->smem_bytes, ctx->device->smem_optin_bytes);
    cudaError_t err = cudaFuncSetAttribute(info->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, info->smem_bytes);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "cudaFuncSetAttribute(max dynamic smem %d) failed: %s",
                           info->smem_bytes, cudaGetErrorString(err));
    }
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cluster_launch_config(&cfg, attr, (unsigned)info->cluster);
    cfg.gridDim = dim3((unsigned)(info->cluster * ctx->device->sm_count), 1, 1);
    cfg.blockDim = dim3(SM90_THREADS, 1, 1);
    cfg.dynamicSmemBytes = (size_t)info->smem_bytes;
    cfg.stream = ctx->stream;
    int clusters = 0;
    err = cudaOccupancyMaxActiveClusters(&clusters, info->fn, &cfg);
    if (err != cudaSuccess || clusters <= 0) {
        wsgemm_forget_cuda_error(err);
        clusters = ctx->device->sm_count / info->cluster; /* the ideal; extra clusters would just queue */
    }
    if (!prep_insert(info->fn, dev, clusters))
        return wsgemm_fail(ctx, WSGEMM_STATUS_INTERNAL_ERROR, "the sm90 kernel table of device %d is full (%d kernels)",
                           dev, kPrepPerDevice);
    *max_clusters = clusters;
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- operands */

/* One input operand as stored: `inner` contiguous elements per column, `cols` columns ld apart,
 * nb matrices stride apart. rows_dim is its M or N extent, k_major says which of inner/cols is K. */
typedef struct operand {
    const void *ptr;
    long long ld, stride;
    int inner, cols;
    int nb;          /* matrices the map addresses: batch_count, or 1 for a shared operand */
    int k_major;
    int rows_dim;    /* M for A, N for B */
    int staged;
} operand;

static long long round_up_ll(long long x, long long a)
{
    return (x + a - 1) / a * a;
}

/* A one-row MN-major operand with ld 1 (A of a 1 x k product, op N, lda 1; or B of n = 1, op T, ldb 1) holds
 * its k elements back to back: that is a K-major row, which TMA loads directly, while the MN-major view (a
 * 1-element-wide box, a 2-byte K stride) is TMA-illegal and cost a staging copy of 8192 one-element
 * columns (m = 1, n = k = 8192 ran at 0.47x cuBLAS on the H200, 2026-11-29). The row stride of a single row
 * is never used; it is set to satisfy TMA's 16-byte stride rule. */
static void view_one_row_as_k_major(operand *o, int k)
{
    if (o->k_major || o->rows_dim != 1 || o->ld != 1) return;
    o->k_major = 1;
    o->inner = k;
    o->cols = 1;
    o->ld = ((long long)k + 7) / 8 * 8;
}

/* One operand as stored, `rows` (M or N) by K, K contiguous when k_major; a batch stride of 0 means one
 * matrix shared by the whole batch. */
static operand describe_operand(const void *ptr, int ld, long long stride, int k_major, int rows, int k,
                                int batch_count)
{
    operand o;
    o.ptr = ptr;
    o.ld = ld;
    o.stride = stride;
    o.k_major = k_major;
    o.inner = k_major ? k : rows;
    o.cols = k_major ? rows : k;
    o.nb = (batch_count > 1 && stride != 0) ? batch_count : 1;
    o.rows_dim = rows;
    o.staged = 0;
    view_one_row_as_k_major(&o, k);
    /* One column of one matrix (n = 1 with B K-major, say): its leading dimension is never stepped over, so
     * an odd one (ldb = k) needs no staging copy; TMA only wants a legal stride there. */
    if (o.cols == 1 && o.nb == 1) o.ld = round_up_ll(o.inner, 8);
    return o;
}

static operand describe_a(const wsgemm_problem *p)
{
    return describe_operand(p->A, p->lda, p->strideA, p->transa == WSGEMM_OP_T, p->m, p->k, p->batch_count);
}

static operand describe_b(const wsgemm_problem *p)
{
    return describe_operand(p->B, p->ldb, p->strideB, p->transb == WSGEMM_OP_N, p->n, p->k, p->batch_count);
}

static int needs_staging(const operand *o)
{
    int batched = o->nb > 1;
    if (!wsgemm_tma_operand_ok(o->ptr, o->ld, o->stride, batched)) return 1;
    if (batched && o->stride < o->ld * (long long)o->cols) return 1; /* overlapping matrices: not a TMA box walk */
    return 0;
}

/* Bytes of the staged copy (re-pitched to a multiple of 8 elements per column); 0 when that does not fit
 * in 2^62 (an overlapping batch stride can make the copy far larger than the operand). */
static size_t staged_bytes(const operand *o)
{
    long long bytes;
    if (__builtin_mul_overflow(round_up_ll(o->inner, 8), (long long)o->cols, &bytes) ||
        __builtin_mul_overflow(bytes, (long long)o->nb * 2, &bytes) || bytes > (1LL << 62))
        return 0;
    return (size_t)bytes;
}

/* Point o at its staged copy in the workspace (dst); `src` keeps the original for the copy kernel. */
static void use_staged_copy(operand *o, operand *src, void *dst)
{
    *src = *o;
    long long ld2 = round_up_ll(o->inner, 8);
    o->ptr = dst;
    o->ld = ld2;
    o->stride = ld2 * o->cols;
    o->staged = 1;
}

static cudaError_t launch_staging(const operand *src, const operand *staged, cudaStream_t stream)
{
    const int threads = 256;
    uint16_t *dst = (uint16_t *)staged->ptr;
    const uint16_t *from = (const uint16_t *)src->ptr;
    long long rows = src->inner, cols = src->cols, src_ld = src->ld, src_stride = src->stride;
    long long dst_ld = staged->ld, dst_stride = staged->stride;
    int nb = src->nb;
    void *args[] = {&dst, &from, &rows, &cols, &nb, &src_ld, &src_stride, &dst_ld, &dst_stride};
    return cudaLaunchKernel((const void *)sm90_stage_operand, stage_grid(rows, cols * nb, threads), dim3(threads),
                            args, 0, stream);
}

/* The tensor map of operand o used as P (box rows 128) or as Q (box rows bn / cluster). */
static cudaError_t encode_operand(CUtensorMap *map, const operand *o, wsgemm_dtype dtype, int k, int box_rows,
                                  int box_k, char *msg, size_t msg_size)
{
    wsgemm_tma_2d16 d;
    d.base = o->ptr;
    d.dtype = dtype;
    d.ld = (uint64_t)o->ld;
    d.batch_stride = (uint64_t)o->stride;
    d.depth = (uint64_t)o->nb;
    if (o->k_major) { /* dim 0 = K, dim 1 = rows */
        d.inner = (uint64_t)k;
        d.outer = (uint64_t)o->rows_dim;
        d.box_inner = SM90_BK;
        d.box_outer = (uint32_t)box_rows;
    } else { /* dim 0 = rows, dim 1 = K; 64-row boxes, box_k K rows each */
        d.inner = (uint64_t)o->rows_dim;
        d.outer = (uint64_t)k;
        d.box_inner = 64;
        d.box_outer = (uint32_t)box_k;
    }
    return wsgemm_tma_encode_2d16(map, &d, msg, msg_size);
}

/* ---------------------------------------------------------------- split-K and tile-width model */

/* Estimated time (~us) of one call: the main kernel is bound by the slowest of three rates, plus the
 * launch, plus (split-K) the partials and the reduction kernel. Only comparisons between candidates matter.
 *   tensor cores   ~7 TFLOP/s per SM for m64n256 (narrower wgmma issue less efficiently);
 *   one CTA's TMA  ~60 KB/us of operand bytes per CTA (~80 when the operands sit in L2): measured on the
 *                  H200 as the plateau of the skinny shapes with 64 CTAs (m = 64, n = k = 8192: 2.6 MB per
 *                  CTA in ~43 us);
 *   HBM            ~3.4 TB/s for the unique operand bytes (each read once, the rest hits L2).
 * Split-K pays a partial write + read and a second launch; on the H200 (2026-11-29) it lost to the
 * unsplit grid on every skinny shape of issue 6 but m = 16 (within 4 %), and by 35 % at 1000^3, which the
 * old model (bandwidth per active SM, no CTA cap) chose. */
static double estimate_cost(long long units, int max_clusters, int cluster, int k_blocks, int splits, int bn,
                            const wsgemm_problem *p)
{
    const double l2_fit = 30.0e6; /* bytes that stay L2-resident across the whole call */
    const long long work = units * splits;
    const long long waves = (work + max_clusters - 1) / max_clusters;
    const int kb_per = (k_blocks + splits - 1) / splits;
    const double steps = (double)waves * kb_per; /* K blocks one CTA runs back to back */
    const double flops_kb = 2.0 * SM90_BM * bn * SM90_BK;
    const double t_mma = steps * flops_kb / 7.0e6 * (bn == 256 ? 1.0 : bn == 128 ? 1.1 : 1.35);
    const double operand_bytes = ((double)p->m + p->n) * p->k * 2.0 * p->batch_count;
    const int resident = operand_bytes < l2_fit;
    const double bytes_kb = (double)(SM90_BM + bn / cluster) * SM90_BK * 2.0; /* Q arrives half by multicast */
    const double t_cta = steps * bytes_kb / (resident ? 80.0e3 : 60.0e3);
    const double t_hbm = resident ? 0.0 : operand_bytes / 3.4e6;
    double cost = t_mma;
    if (t_cta > cost) cost = t_cta;
    if (t_hbm > cost) cost = t_hbm;
    cost += 2.0; /* launch */
    if (splits > 1) {
        const double part = (double)splits * p->m * p->n * p->batch_count * 4.0 * 2.0; /* written, read back */
        cost += part / 2.0e6 + 5.0; /* the reduction kernel and its launch */
    }
    return cost;
}

/* ---------------------------------------------------------------- the entry points */

extern "C" int wsgemm_sm90_available(void)
{
    return 1;
}

/* the tests' view of which epilogue and cluster size ran (internal.h) */
static thread_local int last_epilogue = WSGEMM_SM90_EPILOGUE_NONE;
static thread_local int last_cluster = 0;

extern "C" wsgemm_sm90_epilogue wsgemm_sm90_last_epilogue(void)
{
    return (wsgemm_sm90_epilogue)last_epilogue;
}

extern "C" int wsgemm_sm90_last_cluster(void)
{
    return last_cluster;
}

extern "C" wsgemm_status wsgemm_sm90_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    const int debug = wsgemm_env_int("WSGEMM_SM90_DEBUG", 0);
    const int bf16 = p->Atype == WSGEMM_R_16BF;
    const int nb = p->batch_count;
    const int sm_count = ctx->device->sm_count;

    /* orientation and tile width */
    int swap;
    int small = p->m < p->n ? p->m : p->n;
    if (small <= 256) swap = p->m <= p->n; /* the small side on Q */
    else swap = wsgemm_env_int("WSGEMM_SM90_SWAP", 1) != 0;
    const long long p_ext = swap ? p->n : p->m;
    const long long q_ext = swap ? p->m : p->n;
    operand a = describe_a(p), b = describe_b(p);
    operand *op_p = swap ? &b : &a;
    operand *op_q = swap ? &a : &b;
    const int variant = wsgemm_env_int("WSGEMM_SM90_VARIANT", 0);
    const int k_blocks = (p->k - 1) / SM90_BK + 1; /* k > 0; k + SM90_BK - 1 could overflow */
    const int group = wsgemm_env_int("WSGEMM_SM90_GROUP", 8);

    /* tile widths worth trying: the narrowest that covers a skinny Q side, else all three (narrow tiles
     * fill the SMs when the problem is small) */
    int bn_candidates[3];
    int n_candidates = 0;
    const int forced_bn = wsgemm_env_int("WSGEMM_SM90_BN", 0);
    const int forced_splits = wsgemm_env_int("WSGEMM_SM90_SPLITK", 0);
    if (forced_bn == 64 || forced_bn == 128 || forced_bn == 256) bn_candidates[n_candidates++] = forced_bn;
    else if (q_ext <= 64) bn_candidates[n_candidates++] = 64;
    else if (q_ext <= 128) {
        bn_candidates[n_candidates++] = 128;
        bn_candidates[n_candidates++] = 64;
    } else {
        bn_candidates[n_candidates++] = 256;
        bn_candidates[n_candidates++] = 128;
        bn_candidates[n_candidates++] = 64;
    }

    /* choose (BN, splits) by the cost model */
    Sm90KernelInfo info;
    memset(&info, 0, sizeof info);
    int max_clusters = 0, splits = 1;
    double best_cost = 0.0;
    for (int c = 0; c < n_candidates; ++c) {
        int bn = bn_candidates[c];
        Sm90KernelInfo ki = sm90_kernel_lookup(bn, variant, !op_p->k_major, !op_q->k_major, bf16);
        if (ki.fn == NULL) ki = sm90_kernel_lookup(bn, 0, !op_p->k_major, !op_q->k_major, bf16);
        if (ki.fn == NULL)
            return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "no sm90 kernel instantiated for BN %d", bn);
        int mc = 0;
        wsgemm_status s = prepare_kernel(&ki, ctx, &mc);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
        long long tiles_p = (p_ext + SM90_BM - 1) / SM90_BM;
        long long tiles_q = (q_ext + bn - 1) / bn;
        if (tiles_p * tiles_q > 0x7FFFFFFFLL)
            return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "%lld x %lld tiles of 128 x %d exceed the scheduler's "
                               "32-bit tile index", tiles_p, tiles_q, bn);
        long long units = (tiles_p + ki.cluster - 1) / ki.cluster * tiles_q * nb;
        int max_splits = forced_splits > 0 ? forced_splits : (k_blocks / 4 < 16 ? k_blocks / 4 : 16);
        int min_splits = forced_splits > 0 ? forced_splits : 1;
        if (max_splits < 1) max_splits = 1;
        /* fp32 partials of every split beyond 2^40 bytes: not worth a workspace that size */
        const double part_bytes = (double)p->m * p->n * nb * 4.0;
        while (max_splits > 1 && part_bytes * max_splits > 1099511627776.0) --max_splits;
        if (min_splits > max_splits) min_splits = max_splits;
        for (int sp = min_splits; sp <= max_splits; ++sp) {
            double cost = estimate_cost(units, mc, ki.cluster, k_blocks, sp, bn, p);
            if (info.fn == NULL || cost < best_cost * 0.95) {
                best_cost = cost;
                info = ki;
                max_clusters = mc;
                splits = sp;
            }
        }
    }
    /* Decode shapes whose small side fits one 64-wide Q tile: a 4-CTA cluster reads that tile from L2 once
     * per four P tiles instead of once per two. Measured on the H200 (2026-11-29, sm90_tune, bf16, n = k =
     * 8192, ratio to cuBLAS NN/TN): m = 16 0.95/0.90 -> 1.07/1.01, m = 64 1.05/1.04 -> 1.07/1.05; with
     * split-K, or at m = 128 (two Q tiles) and 256, it was slower or no better, so only here. */
    if (variant == 0 && info.bn == 64 && splits == 1 && q_ext <= 64 && p_ext >= 4 * SM90_BM) {
        Sm90KernelInfo k4 = sm90_kernel_lookup(64, 3, !op_p->k_major, !op_q->k_major, bf16);
        int mc4 = 0;
        if (k4.fn != NULL && prepare_kernel(&k4, ctx, &mc4) == WSGEMM_STATUS_SUCCESS && mc4 > 0) {
            info = k4;
            max_clusters = mc4;
        }
    }
    const int bn = info.bn;
    const int cluster = info.cluster;
    const int tiles_p = (int)((p_ext + SM90_BM - 1) / SM90_BM);
    const int tiles_q = (int)((q_ext + bn - 1) / bn);
    wsgemm_sched sched = wsgemm_sched_make(tiles_p, tiles_q, cluster, group, splits, nb, k_blocks);
    splits = sched.splits;

    /* workspace: staged operands, then split-K partials (each piece 256-byte aligned) */
    const int stage_a = needs_staging(&a), stage_b = needs_staging(&b);
    const size_t bytes_a = stage_a ? staged_bytes(&a) : 0, bytes_b = stage_b ? staged_bytes(&b) : 0;
    if ((stage_a && bytes_a == 0) || (stage_b && bytes_b == 0))
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "the staged copy of %s would exceed 2^62 bytes",
                           stage_a && bytes_a == 0 ? "A" : "B");
    const size_t off_a = 0;
    const size_t off_b = (off_a + bytes_a + 255) & ~(size_t)255;
    const size_t off_part = (off_b + bytes_b + 255) & ~(size_t)255;
    const size_t bytes_part = splits > 1 ? (size_t)splits * (size_t)p->m * (size_t)p->n * (size_t)nb * sizeof(float) : 0;
    const size_t ws_bytes = off_part + bytes_part;
    void *ws_ptr = NULL;
    if (ws_bytes > 0) {
        wsgemm_status s = wsgemm_workspace_reserve(ctx, ws_bytes, &ws_ptr);
        if (s != WSGEMM_STATUS_SUCCESS) return s;
    }
    if (ctx->plan_only) return WSGEMM_STATUS_SUCCESS;
    uint8_t *ws = (uint8_t *)ws_ptr;
    operand a_src, b_src;
    if (stage_a) use_staged_copy(&a, &a_src, ws + off_a);
    if (stage_b) use_staged_copy(&b, &b_src, ws + off_b);

    /* tensor maps first: what TMA cannot describe is declined before anything is launched */
    char msg[256] = "";
    CUtensorMap map_p, map_q;
    const wsgemm_dtype dt = p->Atype;
    cudaError_t err = encode_operand(&map_p, op_p, dt, p->k, SM90_BM, SM90_BK, msg, sizeof msg);
    if (err == cudaSuccess)
        err = encode_operand(&map_q, op_q, dt, p->k, bn / cluster, SM90_BK / cluster, msg, sizeof msg);
    if (err != cudaSuccess) return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "sm90 tensor map: %s", msg);

    Sm90Params prm;
    memset(&prm, 0, sizeof prm);
    prm.sched = sched;
    prm.p_extent = (int)p_ext;
    prm.q_extent = (int)q_ext;
    prm.p_batched = op_p->nb > 1;
    prm.q_batched = op_q->nb > 1;
    if (splits > 1) {
        prm.out = ws + off_part;
        prm.out_type = WSGEMM_R_32F;
        prm.out_sp = swap ? p->m : 1;
        prm.out_sq = swap ? 1 : p->m;
        prm.out_batch = (long long)p->m * p->n;
        prm.out_split = (long long)p->m * p->n * nb;
        prm.alpha = 1.0f;
        prm.beta = 0.0f;
    } else {
        prm.out = p->C;
        prm.out_type = p->Ctype;
        prm.out_sp = swap ? p->ldc : 1;
        prm.out_sq = swap ? 1 : p->ldc;
        prm.out_batch = p->strideC;
        prm.out_split = 0;
        prm.alpha = p->alpha;
        prm.beta = p->beta;
    }

    /* epilogue: smem + TMA store where C allows it (swapped orientation so q is C's contiguous dimension,
     * no split, TMA-addressable C); direct predicated stores otherwise */
    CUtensorMap map_c;
    memset(&map_c, 0, sizeof map_c);
    const char *epi = getenv("WSGEMM_SM90_EPILOGUE");
    /* default: the TMA-store epilogue (measured on the H200 2026-11-29: 766 vs 747 TFLOP/s at 8192^3 NN,
     * 723 vs 663 at 4096^3), deferred into the next tile's main loop where it can be (below);
     * WSGEMM_SM90_EPILOGUE=tma keeps it at the end of each tile, =direct selects the per-element stores */
    int want_tma_store = epi == NULL || strcmp(epi, "direct") != 0;
    const int c_bytes = wsgemm_dtype_size(p->Ctype);
    /* A TMA store clips the inner dimension only to whole 16-byte chunks: with m * c_bytes not a multiple
     * of 16 it writes rows m .. round_up(m, 16 / c_bytes) - 1 of every column into the ldc padding (H200,
     * 2026-11-29: rows 17..23 for m=17 ldc=40 in gemm_matrix.sm90.batch; the same behaviour is reported
     * for Hopper TMA stores in public issues). Such C goes through the per-element epilogue.
     * Batches with gaps between the matrices (strideC > ldc*n) also stay on it until a GPU run has shown
     * them right with the TMA store: every layout that takes it now passed the matrix on the H200. */
    if (want_tma_store && swap && splits == 1 && ((long long)p->m * c_bytes) % 16 == 0 &&
        wsgemm_tma_layout_ok(p->C, p->ldc, p->strideC, nb > 1, c_bytes) &&
        (nb == 1 || p->strideC == (long long)p->ldc * p->n)) {
        wsgemm_tma_2d16 d;
        d.base = p->C;
        d.dtype = p->Ctype;
        d.inner = (uint64_t)p->m;
        d.outer = (uint64_t)p->n;
        d.depth = (uint64_t)nb;
        d.ld = (uint64_t)p->ldc;
        d.batch_stride = (uint64_t)p->strideC;
        d.box_inner = (uint32_t)(128 / c_bytes);
        d.box_outer = 64;
        if (wsgemm_tma_encode_2d16(&map_c, &d, msg, sizeof msg) == cudaSuccess) prm.tma_store = 1;
        else if (debug) fprintf(stderr, "wsgemm sm90: no TMA-store epilogue: %s\n", msg);
    }
    /* the deferred stores keep the tile as 16-bit values in registers, so they need C of the input type
     * (no fp32 or mixed 16-bit C) and beta == 0 (C is not read; alpha * acc rounds once, as before) */
    prm.defer_store = prm.tma_store && p->beta == 0.0f && p->Ctype == p->Atype && (epi == NULL || strcmp(epi, "tma") != 0);

    long long clusters = sched.units < max_clusters ? sched.units : max_clusters;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cluster_launch_config(&cfg, attr, (unsigned)cluster);
    cfg.gridDim = dim3((unsigned)(clusters * cluster), 1, 1);
    cfg.blockDim = dim3(SM90_THREADS, 1, 1);
    cfg.dynamicSmemBytes = (size_t)info.smem_bytes;
    cfg.stream = ctx->stream;

    if (debug) {
        fprintf(stderr,
                "wsgemm sm90: m=%d n=%d k=%d batch=%d op=%c%c %s->%s | %s P=%s(%s-major) Q=%s(%s-major) BN=%d "
                "stages=%d cluster=%d variant=%d | tiles %dx%d units=%lld splits=%d (kb/split %d) group=%d "
                "grid=%u smem=%d max_clusters=%d | staged A=%d B=%d workspace=%zu epilogue=%s\n",
                p->m, p->n, p->k, nb, p->transa == WSGEMM_OP_N ? 'N' : 'T', p->transb == WSGEMM_OP_N ? 'N' : 'T',
                bf16 ? "bf16" : "f16",
                p->Ctype == WSGEMM_R_32F ? "f32" : p->Ctype == WSGEMM_R_16BF ? "bf16" : "f16",
                swap ? "swapped" : "normal", swap ? "B" : "A", op_p->k_major ? "K" : "MN", swap ? "A" : "B",
                op_q->k_major ? "K" : "MN", bn, info.stages, cluster, variant, tiles_p, tiles_q, sched.units,
                splits, sched.k_blocks_per_split, sched.group, cfg.gridDim.x, info.smem_bytes, max_clusters,
                a.staged, b.staged, ws_bytes, prm.defer_store ? "tma-deferred" : prm.tma_store ? "tma" : "direct");
    }

    if (stage_a) err = launch_staging(&a_src, &a, ctx->stream);
    if (err == cudaSuccess && stage_b) err = launch_staging(&b_src, &b, ctx->stream);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "sm90 operand staging launch failed: %s",
                           cudaGetErrorString(err));
    }
    void *args[4] = {&map_p, &map_q, &map_c, &prm};
    err = cudaLaunchKernelExC(&cfg, info.fn, args);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "sm90 kernel launch failed: %s (grid %u, smem %d)",
                           cudaGetErrorString(err), cfg.gridDim.x, info.smem_bytes);
    }
    last_epilogue = prm.defer_store ? WSGEMM_SM90_EPILOGUE_DEFERRED
                    : prm.tma_store ? WSGEMM_SM90_EPILOGUE_TMA
                                    : WSGEMM_SM90_EPILOGUE_DIRECT;
    last_cluster = cluster;
    if (splits > 1) {
        const long long elems = (long long)p->m * p->n * nb;
        const float *part = (const float *)(ws + off_part);
        long long m = p->m, n = p->n, ldc = p->ldc, stride_c = p->strideC;
        int c_type = p->Ctype;
        float alpha = p->alpha, beta = p->beta;
        void *c = p->C;
        void *reduce_args[] = {&part, &splits, &m, &n, (void *)&nb, &c, &c_type, &ldc, &stride_c, &alpha, &beta};
        err = cudaLaunchKernel((const void *)sm90_splitk_reduce, dim3(flat_grid(elems, 256, sm_count)), dim3(256),
                               reduce_args, 0, ctx->stream);
        if (err != cudaSuccess) wsgemm_forget_cuda_error(err);
        if (err != cudaSuccess)
            return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "sm90 split-K reduction launch failed: %s",
                               cudaGetErrorString(err));
    }
    return WSGEMM_STATUS_SUCCESS;
}
