// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/sm100_launch.cu - the Blackwell path's launcher: the sm100 kernel (sm100_kernel.cuh) run through
 * the launch skeleton the fast paths share (gemm/common/launch.cuh):
 *
 *   plan (sm100_plan.c: cta_group, split-K, grid, epilogue, staging, workspace; CPU-tested)
 *   -> reserve the workspace -> stage operands TMA cannot address -> encode the tensor maps and the kernel's
 *   parameters -> launch the kernel and, split, the fixed-order reduction.
 *
 * The planner asks this file about the kernels (query_kernel): whether the kernel of (cta_group, output type,
 * schedule, scales) fits the device and how many of its clusters run at once. A block-scaled (MX) plan's factors
 * are rearranged into the kernel's chunks in the workspace (sm100_mx_scales_kernel) just before its kernel. One
 * source, two builds (gemm/CMakeLists.txt): the hardware one defines wsgemm_sm100_available / _gemm, the emulated
 * one (sm_90a) wsgemm_sm100_emulated_*.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/device.h"
#include "common/knobs.h"
#include "common/launch.cuh"
#include "common/status.h"
#include "common/tma.h"
#include "internal.h"
#include "sm100/sm100_kernel.cuh"
#include "sm100/sm100_plan.h"
#include "sm100/sm100_probe.h"

namespace
{

/* ---------------------------------------------------------------- host: tensor maps */

/* One operand as the plan describes it (gemm/common/plan.h; staged operands point at their copy) as a 3-D
 * tensor of 16-bit or FP8 elements (gemm/common/tma.h): dim 0 the contiguous one (K for a K-major operand, M
 * or N for an MN-major one), dim 1 the other, dim 2 the batch (depth 1 for an operand shared by the batch).
 * Box, e = row_elems, the elements per 128 bytes (the plan's bk: 64 or 128): K-major {e k, rows}; MN-major
 * {e m-or-n, e k} (the kernel issues rows/e of them). SWIZZLE_128B, zero fill out of bounds. */
cudaError_t make_operand_map(CUtensorMap *map, const wsgemm_operand *o, wsgemm_dtype type, long long k, int rows,
                             int row_elems, char *msg, size_t msg_size)
{
    const int mn_major = !o->k_major;
    wsgemm_tma_2d16 d;
    d.base = o->ptr;
    d.dtype = type;
    d.inner = (uint64_t)(mn_major ? o->rows_dim : k);
    d.outer = (uint64_t)(mn_major ? k : o->rows_dim);
    d.depth = (uint64_t)o->nb;
    d.ld = (uint64_t)o->ld;
    d.batch_stride = (uint64_t)(o->nb > 1 ? o->stride : 0);
    d.box_inner = (uint32_t)row_elems;
    d.box_outer = (uint32_t)(mn_major ? row_elems : rows);
    return wsgemm_tma_cache_encode(wsgemm_tma_shared_cache(), wsgemm_tma_encode_2d16, map, &d, msg, msg_size);
}

/* The kernel's output (C, or the fp32 partials) for the TMA epilogue: {m, n, splits x batch}, 32 x 32 boxes (one
 * epilogue warp's chunk), no swizzle: the chunk lies in shared memory column after column. */
cudaError_t make_output_map(CUtensorMap *map, const KernelParams *k, const wsgemm_plan *plan, const wsgemm_problem *p,
                            char *msg, size_t msg_size)
{
    wsgemm_tma_2d16 d;
    d.base = k->c;
    d.dtype = sm100_plan_out_type(plan, p);
    d.inner = (uint64_t)p->m;
    d.outer = (uint64_t)p->n;
    d.depth = (uint64_t)plan->splits * (uint64_t)p->batch_count;
    d.ld = (uint64_t)k->ldc;
    d.batch_stride = (uint64_t)k->stride_c;
    d.box_inner = 32;
    d.box_outer = (uint32_t)kEpilogueChunk;
    return wsgemm_tma_cache_encode(wsgemm_tma_shared_cache(), wsgemm_tma_encode_unswizzled, map, &d, msg, msg_size);
}

/* The fused op's C when it is not D (sm100_plan_c_is_separate; STAGED): D's boxes over C's address and ldc, one
 * matrix (wsgemm_matmul has no batch), C of D's type (the plan requires it). */
cudaError_t make_input_map(CUtensorMap *map, const wsgemm_problem *p, char *msg, size_t msg_size)
{
    wsgemm_tma_2d16 d;
    d.base = p->fused->c;
    d.dtype = (wsgemm_dtype)p->fused->c_type;
    d.inner = (uint64_t)p->m;
    d.outer = (uint64_t)p->n;
    d.depth = 1;
    d.ld = (uint64_t)p->fused->ldc;
    d.batch_stride = 0;
    d.box_inner = 32;
    d.box_outer = (uint32_t)kEpilogueChunk;
    return wsgemm_tma_cache_encode(wsgemm_tma_shared_cache(), wsgemm_tma_encode_unswizzled, map, &d, msg, msg_size);
}

/* MX: one operand's scale factor tensor as the kernel's TMA reads its chunks (sm100_plan.h,
 * sm100_mx_scales_layout): bytes {256, 2 chunks_per_tile x k_blocks, tiles} without swizzle, box {256, 2
 * chunks_per_tile, 1}. */
cudaError_t make_scales_map(CUtensorMap *map, const uint8_t *chunks, long long tiles, int k_blocks, int chunks_per_tile,
                            char *msg, size_t msg_size)
{
    wsgemm_tma_2d16 d;
    d.base = chunks;
    d.dtype = WSGEMM_R_8F_E4M3; /* any 1-byte type: the bytes are copied as they are */
    d.inner = 256;
    d.outer = (uint64_t)(2 * chunks_per_tile) * (uint64_t)k_blocks;
    d.depth = (uint64_t)tiles;
    d.ld = 256;
    d.batch_stride = (uint64_t)k_blocks * (uint64_t)chunks_per_tile * UMMA_SF_CHUNK_BYTES;
    d.box_inner = 256;
    d.box_outer = (uint32_t)(2 * chunks_per_tile);
    return wsgemm_tma_cache_encode(wsgemm_tma_shared_cache(), wsgemm_tma_encode_unswizzled, map, &d, msg, msg_size);
}

/* ---------------------------------------------------------------- device: the MX factors' rearrangement */

/* One operand's VEC32_UE8M0 factors (outer x k32 bytes, element r + b outer) into the kernel's chunks: byte i of
 * the copy from sm100_mx_scale_source, the padding factor 127 (2^0) where it names none. The source may be the
 * previous kernel's output (PDL: wait for it first). */
__global__ void sm100_mx_scales_kernel(const uint8_t *src, long long outer, int k32, int k_blocks, int tile_rows,
                                       uint8_t *dst, long long bytes)
{
    wsgemm_pdl_wait();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < bytes;
         i += (long long)gridDim.x * blockDim.x) {
        const long long from = sm100_mx_scale_source(i, outer, k32, k_blocks, tile_rows);
        dst[i] = from < 0 ? (uint8_t)127 : src[from];
    }
}

cudaError_t launch_mx_scales(const uint8_t *src, long long outer, int k32, int k_blocks, int tile_rows, uint8_t *dst,
                             long long bytes, cudaStream_t stream, int pdl)
{
    const int threads = 256;
    const long long want = (bytes + threads - 1) / threads;
    dim3 grid((unsigned)(want < 4096 ? want : 4096));
    void *args[] = {&src, &outer, &k32, &k_blocks, &tile_rows, &dst, &bytes};
    return wsgemm_launch_kernel((const void *)sm100_mx_scales_kernel, grid, dim3(threads), args, 0, stream, pdl);
}

/* ---------------------------------------------------------------- host: knobs */

#if SM100_PLANTED_FAULTS
/* WSGEMM_SM100_FAULT: the planted teardown bugs (the emulated kernel of the verification library only). A
 * verification switch, not a tuning knob: read on every call, so a test's child process sets it alone. */
int env_fault(void)
{
    const char *v = getenv("WSGEMM_SM100_FAULT");
    if (v == NULL) return FAULT_NONE;
    if (strcmp(v, "early_dealloc") == 0) return FAULT_EARLY_DEALLOC;
    if (strcmp(v, "missing_peer_signal") == 0) return FAULT_MISSING_PEER_SIGNAL;
    return FAULT_NONE;
}
#endif

#if SM100_EMULATION
/* EMULATION: the CLC stand-in's counter (KernelParams.clc_counter, emu/clc_emu.cuh). Its only device-side user
 * is the CLC kernels, through their parameter. */
__device__ unsigned int clc_emu_taken;

cudaError_t clc_counter_address(unsigned int **out)
{
    void *counter = NULL;
    const cudaError_t err = cudaGetSymbolAddress(&counter, clc_emu_taken);
    *out = (unsigned int *)counter;
    return err;
}
#endif

/* ---------------------------------------------------------------- host: the planner's query */

#if SM100_EMULATION
#define SM100_PATH_NAME "sm100-emulated"
#else
#define SM100_PATH_NAME "sm100"
#endif

template <int kCtaGroup, typename TOut>
const void *kernel_fn(void)
{
    return (const void *)sm100_gemm_kernel<kCtaGroup, TOut>;
}

/* The CLC kernels (sm100_plan.h, SM100_VARIANT_CLC): bf16 C only, one per cta_group. */
template <int kCtaGroup>
const void *clc_kernel_fn(void)
{
    return (const void *)sm100_gemm_clc_kernel<kCtaGroup, __nv_bfloat16>;
}

/* The MX kernels (SM100_SCALES_MX): bf16 D only, static schedule, one per cta_group. */
template <int kCtaGroup>
const void *mx_kernel_fn(void)
{
    return (const void *)sm100_mx_gemm_kernel<kCtaGroup, __nv_bfloat16>;
}

template <int kCtaGroup>
const void *kernel_for_group(wsgemm_dtype out_type)
{
    switch (out_type) {
    case WSGEMM_R_16BF: return kernel_fn<kCtaGroup, __nv_bfloat16>();
    case WSGEMM_R_16F: return kernel_fn<kCtaGroup, __half>();
    case WSGEMM_R_8F_E4M3: return kernel_fn<kCtaGroup, __nv_fp8_e4m3>();
    default: return kernel_fn<kCtaGroup, float>();
    }
}

/* The kernel of (cta_group, output type, variant, scales); a CLC variant and the MX kernels exist for bf16 C only
 * (kernel_exists). */
const void *kernel_for(int cta_group, wsgemm_dtype out_type, int variant, int scales)
{
    if (scales == SM100_SCALES_MX) return cta_group == 2 ? mx_kernel_fn<2>() : mx_kernel_fn<1>();
    if (variant != SM100_VARIANT_CLC)
        return cta_group == 2 ? kernel_for_group<2>(out_type) : kernel_for_group<1>(out_type);
    return cta_group == 2 ? clc_kernel_fn<2>() : clc_kernel_fn<1>();
}

int kernel_exists(wsgemm_dtype out_type, int variant, int scales)
{
    if (scales == SM100_SCALES_MX) return out_type == WSGEMM_R_16BF && variant == SM100_VARIANT_STATIC;
    return variant != SM100_VARIANT_CLC || out_type == WSGEMM_R_16BF;
}

int kernel_smem(int cta_group, int variant, int scales)
{
    if (scales == SM100_SCALES_MX) return cta_group == 2 ? smem_bytes<2, false, true>() : smem_bytes<1, false, true>();
    if (variant == SM100_VARIANT_CLC) return cta_group == 2 ? smem_bytes<2, true>() : smem_bytes<1, true>();
    return cta_group == 2 ? smem_bytes<2>() : smem_bytes<1>();
}

/* Each kernel's preparation, per device: the shared-memory opt-in (cudaFuncSetAttribute) and the number of
 * co-resident clusters (cudaOccupancyMaxActiveClusters), done once per kernel and device under prep_lock, so
 * no launch sets an attribute again; 0 = not prepared yet. Twelve kernels: (cta_group 1, 2) x (bf16, f16, f32,
 * E4M3), the CLC kernels of cta_group 1 and 2 (bf16), and the MX kernels of cta_group 1 and 2 (bf16). */
enum { kOutTypes = 4 };
int prep_clusters[WSGEMM_MAX_DEVICES][2 * kOutTypes + 4];
pthread_mutex_t prep_lock = PTHREAD_MUTEX_INITIALIZER; /* handles may live on several host threads */

int type_index(wsgemm_dtype t)
{
    return t == WSGEMM_R_16BF ? 0 : t == WSGEMM_R_16F ? 1 : t == WSGEMM_R_8F_E4M3 ? 3 : 2;
}

/* *clusters for the kernel of (cta_group, out_type) on the context's device, preparing it on first use (the
 * caller checked that its shared memory fits). Holds prep_lock across the driver calls: exactly once. */
wsgemm_status prepare_kernel(wsgemm_launch_ctx *ctx, int cta_group, wsgemm_dtype out_type, int variant, int scales,
                             int *clusters_out)
{
    const wsgemm_device_info *dev = ctx->device;
    const int smem = kernel_smem(cta_group, variant, scales);
    const int slot = scales == SM100_SCALES_MX      ? 2 * kOutTypes + 2 + cta_group - 1
                     : variant == SM100_VARIANT_CLC ? 2 * kOutTypes + cta_group - 1
                                                    : (cta_group - 1) * kOutTypes + type_index(out_type);
    wsgemm_status st = WSGEMM_STATUS_SUCCESS;
    pthread_mutex_lock(&prep_lock);
    int clusters = prep_clusters[dev->ordinal][slot];
    if (clusters == 0) {
        const void *fn = kernel_for(cta_group, out_type, variant, scales);
        cudaError_t err = wsgemm_kernel_set_max_dynamic_smem(fn, smem);
        if (err != cudaSuccess) {
            wsgemm_forget_cuda_error(err);
            st = wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "%s: cudaFuncSetAttribute(max dynamic smem %d) failed: %s",
                             SM100_PATH_NAME, smem, cudaGetErrorString(err));
        } else {
            cudaLaunchConfig_t cfg = {};
            cudaLaunchAttribute attr[1];
            cluster_launch_config(&cfg, attr, (unsigned)cta_group);
            cfg.gridDim = dim3((unsigned)(cta_group * dev->sm_count), 1, 1);
            cfg.blockDim = dim3(kThreads, 1, 1);
            cfg.dynamicSmemBytes = (size_t)smem;
            cfg.stream = ctx->stream;
            err = cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg);
            if (err != cudaSuccess || clusters <= 0) {
                wsgemm_forget_cuda_error(err);
                clusters = dev->sm_count / cta_group; /* the ideal; extra clusters would just queue */
            }
            prep_clusters[dev->ordinal][slot] = clusters;
        }
    }
    pthread_mutex_unlock(&prep_lock);
    *clusters_out = clusters;
    return st;
}

/* The planner's question (sm100_plan.h): does the kernel of (cta_group, out_type, variant, scales) exist and fit
 * this device, and how many of its clusters run at once. */
wsgemm_status query_kernel(void *launch_ctx, int cta_group, wsgemm_dtype out_type, int variant, int scales,
                           sm100_kernel_facts *out)
{
    wsgemm_launch_ctx *ctx = (wsgemm_launch_ctx *)launch_ctx;
    memset(out, 0, sizeof *out);
    if (!kernel_exists(out_type, variant, scales)) return WSGEMM_STATUS_SUCCESS;
    const int smem = kernel_smem(cta_group, variant, scales);
    const wsgemm_device_info *dev = ctx->device;
    if (dev->smem_optin_bytes < smem || (cta_group == 2 && dev->sm_count < 2)) return WSGEMM_STATUS_SUCCESS;
    int clusters = 0;
    const wsgemm_status st = prepare_kernel(ctx, cta_group, out_type, variant, scales, &clusters);
    if (st != WSGEMM_STATUS_SUCCESS) return st;
    out->exists = 1;
    out->cta_group = cta_group;
    out->stages = scales == SM100_SCALES_MX ? SM100_MX_STAGES
                  : cta_group == 2          ? Config<2>::kStages
                                            : Config<1>::kStages;
    out->smem_bytes = smem;
    out->max_clusters = clusters;
    return WSGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- host: launch */

/* The kernel was prepared (its shared-memory opt-in set on this device) when the plan asked query_kernel
 * about it: a launch sets no function attribute (its launch attributes: the cluster, and PDL with pdl). */
template <int kCtaGroup, typename TOut, bool kClc = false, bool kMx = false>
cudaError_t launch_kernel(const KernelParams &p, int ctas, cudaStream_t stream, int pdl)
{
    const int smem = smem_bytes<kCtaGroup, kClc, kMx>();
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)ctas, 1, 1);
    cfg.blockDim = dim3(kThreads, 1, 1);
    cfg.dynamicSmemBytes = (size_t)smem;
    cfg.stream = stream;
    cudaLaunchAttribute attr[2];
    cluster_launch_config(&cfg, attr, (unsigned)kCtaGroup);
    wsgemm_pdl_config(&cfg, attr, pdl);
    if constexpr (kMx)
        return cudaLaunchKernelEx(&cfg, sm100_mx_gemm_kernel<kCtaGroup, TOut>, p);
    else if constexpr (kClc)
        return cudaLaunchKernelEx(&cfg, sm100_gemm_clc_kernel<kCtaGroup, TOut>, p);
    else
        return cudaLaunchKernelEx(&cfg, sm100_gemm_kernel<kCtaGroup, TOut>, p);
}

template <int kCtaGroup>
cudaError_t launch_for_output(const KernelParams &p, wsgemm_dtype out_type, int ctas, cudaStream_t stream, int pdl)
{
    switch (out_type) {
    case WSGEMM_R_16BF: return launch_kernel<kCtaGroup, __nv_bfloat16>(p, ctas, stream, pdl);
    case WSGEMM_R_16F: return launch_kernel<kCtaGroup, __half>(p, ctas, stream, pdl);
    case WSGEMM_R_8F_E4M3: return launch_kernel<kCtaGroup, __nv_fp8_e4m3>(p, ctas, stream, pdl);
    default: return launch_kernel<kCtaGroup, float>(p, ctas, stream, pdl);
    }
}

/* The kernel's parameters for the plan (tensor maps encoded by the caller). */
void set_params(KernelParams *k, const wsgemm_plan *plan, const wsgemm_problem *p, uint8_t *ws, int fault)
{
    k->sched = plan->sched;
    k->m = p->m;
    k->n = p->n;
    if (plan->splits > 1) { /* fp32 partials [split][batch][n][m]; the reduction applies alpha, beta, C's type */
        k->c = ws + plan->partials_offset;
        k->ldc = p->m;
        k->stride_c = (long long)p->m * p->n;
        k->stride_split = (long long)p->m * p->n * p->batch_count;
        k->alpha = 1.0f;
        k->beta = 0.0f;
    } else {
        k->c = p->C;
        k->ldc = p->ldc;
        k->stride_c = p->strideC;
        k->stride_split = 0;
        k->alpha = p->alpha;
        k->beta = p->beta;
    }
    k->a_mn_major = plan->p_mn;
    k->b_mn_major = plan->q_mn;
    k->a_batched = plan->a.nb > 1;
    k->b_batched = plan->b.nb > 1;
    k->fault = fault;
    k->epilogue = plan->epilogue;
    k->out_batches = p->batch_count;
    k->has_fused = p->fused != NULL;
    if (p->fused) k->fused = *p->fused;
    const int tile_m = kBlockM * plan->cluster;
    const umma_major a_major = k->a_mn_major ? UMMA_MN_MAJOR : UMMA_K_MAJOR;
    const umma_major b_major = k->b_mn_major ? UMMA_MN_MAJOR : UMMA_K_MAJOR;
    if (plan->scales == SM100_SCALES_MX) { /* the scale factor IDs (0 here) are set per instruction by the kernel */
        k->kind = UMMA_KIND_MXF8F6F4;
        const umma_f8_dtype a = p->Atype == WSGEMM_R_8F_E5M2 ? UMMA_E5M2 : UMMA_E4M3;
        const umma_f8_dtype b = p->Btype == WSGEMM_R_8F_E5M2 ? UMMA_E5M2 : UMMA_E4M3;
        k->idesc = umma_idesc_mxf8f6f4_encode(a, b, UMMA_SF_UE8M0, a_major, b_major, 0, 0, (uint32_t)tile_m,
                                              (uint32_t)plan->bn, 0, 0);
    } else if (wsgemm_dtype_is_fp8(p->Atype)) {
        k->kind = UMMA_KIND_F8F6F4;
        const umma_f8_dtype a = p->Atype == WSGEMM_R_8F_E5M2 ? UMMA_E5M2 : UMMA_E4M3;
        const umma_f8_dtype b = p->Btype == WSGEMM_R_8F_E5M2 ? UMMA_E5M2 : UMMA_E4M3;
        k->idesc =
            umma_idesc_f8f6f4_encode(UMMA_ACC_F32, a, b, a_major, b_major, 0, 0, (uint32_t)tile_m, (uint32_t)kBlockN);
    } else {
        k->kind = UMMA_KIND_F16;
        const umma_dtype ab = p->Atype == WSGEMM_R_16BF ? UMMA_BF16 : UMMA_F16;
        k->idesc =
            umma_idesc_f16_encode(UMMA_ACC_F32, ab, ab, a_major, b_major, 0, 0, (uint32_t)tile_m, (uint32_t)kBlockN);
    }
    k->row_elems = plan->bk; /* the plan's K per block: 128 bytes of the input type (sm100_plan.h) */
    /* K step inside a stage, one instruction's K (32 bytes of K-major rows): K-major moves 32 B along the
     * 128-B row; MN-major moves that many K rows of 128 B (16 or 32 rows: 2048 or 4096 B, whole 8-row groups
     * on 1024-B atom boundaries). The MN-major boxes of one stage lie 128 * row_elems bytes apart (LBO). */
    const uint32_t umma_k = umma_kind_k((umma_kind)k->kind);
    k->a_desc = k->a_mn_major ? umma_smem_desc_mn_major(0, UMMA_SWIZZLE_128B, (uint32_t)k->row_elems)
                              : umma_smem_desc_k_major(0, UMMA_SWIZZLE_128B);
    k->b_desc = k->b_mn_major ? umma_smem_desc_mn_major(0, UMMA_SWIZZLE_128B, (uint32_t)k->row_elems)
                              : umma_smem_desc_k_major(0, UMMA_SWIZZLE_128B);
    k->a_k_step_bytes = k->a_mn_major ? umma_k * kSwizzleBytes : (uint32_t)kUmmaKBytes;
    k->b_k_step_bytes = k->b_mn_major ? umma_k * kSwizzleBytes : (uint32_t)kUmmaKBytes;
}

/* What this thread's last launch ran (sm100_probe.h); launched = 0 until the first. */
thread_local int last_launched = 0;
thread_local wsgemm_sm100_launch_probe last_launch;

/* ---------------------------------------------------------------- the path on the launch skeleton */

/* One call's state between the skeleton's steps. */
struct Sm100Call {
    const wsgemm_knobs *knobs;
    int fault;
    KernelParams k;
    uint8_t *scales; /* an MX plan's scale chunks in the workspace (sm100_mx_scales_layout) */
};

wsgemm_status sm100_plan(void *self, const wsgemm_problem *p, int lean, wsgemm_launch_ctx *ctx, wsgemm_plan *plan,
                         char *why, size_t why_size)
{
    (void)lean; /* every byte of an sm100 plan's workspace is needed */
    const Sm100Call *call = (const Sm100Call *)self;
    return sm100_plan_make(p, call->knobs, query_kernel, ctx, plan, why, why_size);
}

wsgemm_status sm100_encode(void *self, wsgemm_plan *plan, const wsgemm_problem *p, uint8_t *ws, wsgemm_launch_ctx *ctx)
{
    Sm100Call *call = (Sm100Call *)self;
    KernelParams &k = call->k;
    char msg[256] = "";
    k = KernelParams{};
    set_params(&k, plan, p, ws, call->fault);
#if SM100_EMULATION
    if (plan->variant == SM100_VARIANT_CLC) {
        const cudaError_t cerr = clc_counter_address(&k.clc_counter);
        if (cerr != cudaSuccess) {
            wsgemm_forget_cuda_error(cerr);
            return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "%s: the CLC counter: %s", SM100_PATH_NAME,
                               cudaGetErrorString(cerr));
        }
    }
#endif
    cudaError_t err = make_operand_map(&k.tmap_a, &plan->a, p->Atype, p->k, kBlockM, plan->bk, msg, sizeof msg);
    if (err == cudaSuccess)
        err =
            make_operand_map(&k.tmap_b, &plan->b, p->Btype, p->k, plan->bn / plan->cluster, plan->bk, msg, sizeof msg);
    if (err == cudaSuccess && plan->scales == SM100_SCALES_MX) {
        const sm100_mx_scales_layout l = sm100_mx_scales_layout_of(p->m, p->n, p->k);
        const uint8_t *chunks = ws + plan->scales_offset;
        call->scales = ws + plan->scales_offset;
        err = make_scales_map(&k.tmap_sfa, chunks, l.a_tiles, l.k_blocks, 1, msg, sizeof msg);
        if (err == cudaSuccess)
            err = make_scales_map(&k.tmap_sfb, chunks + l.b_offset, l.b_tiles, l.k_blocks, l.b_chunks, msg, sizeof msg);
    }
    if (err != cudaSuccess)
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "%s tensor map: %s", SM100_PATH_NAME, msg);
    if (plan->epilogue != WSGEMM_EPILOGUE_DIRECT &&
        make_output_map(&k.tmap_c, &k, plan, p, msg, sizeof msg) != cudaSuccess) {
        if (call->knobs->sm100_debug) fprintf(stderr, "wsgemm %s: no TMA epilogue: %s\n", SM100_PATH_NAME, msg);
        plan->epilogue = WSGEMM_EPILOGUE_DIRECT; /* the driver refused the map: per-element stores serve any output */
        k.epilogue = WSGEMM_EPILOGUE_DIRECT;
    }
    if (plan->epilogue == WSGEMM_EPILOGUE_STAGED && sm100_plan_c_is_separate(p)) {
        if (make_input_map(&k.tmap_c_in, p, msg, sizeof msg) == cudaSuccess) {
            k.c_in_own_map = 1; /* C by TMA from its own map, D stored through tmap_c */
        } else {
            if (call->knobs->sm100_debug) fprintf(stderr, "wsgemm %s: no TMA load of C: %s\n", SM100_PATH_NAME, msg);
            plan->epilogue = WSGEMM_EPILOGUE_DIRECT; /* the fused op reads C per element */
            k.epilogue = WSGEMM_EPILOGUE_DIRECT;
        }
    }
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_status sm100_launch(void *self, const wsgemm_plan *plan, const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    const Sm100Call *call = (const Sm100Call *)self;
    const KernelParams &k = call->k;
#if SM100_EMULATION
    const int delay_ns = wsgemm_env_int("WSGEMM_SM100_EMU_DELAY_NS", 0); /* verification switch, per call */
    tmem_host_set_random_delays((uint32_t)(delay_ns > 0 ? delay_ns : 0), 12345u);
#endif
    cudaError_t err = tmem_host_prepare(ctx->stream); /* the emulation's per-launch set-up; no-op on hardware */
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "TMEM set-up failed: %s", cudaGetErrorString(err));
    }
    const int clc = plan->variant == SM100_VARIANT_CLC;
    long long clusters_launched = plan->grid_clusters;
#if SM100_EMULATION
    if (clc) {
        /* EMULATION: sm_90 cannot cancel a cluster, so the grid is the clusters that run at once and the stand-in's
         * counter (emu/clc_emu.cuh) hands out the units of the rest of the hardware grid */
        if (clusters_launched > plan->max_clusters) clusters_launched = plan->max_clusters;
        err = cudaMemsetAsync(k.clc_counter, 0, sizeof(unsigned int), ctx->stream); /* in stream order */
        if (err != cudaSuccess) {
            wsgemm_forget_cuda_error(err);
            return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "CLC counter set-up failed: %s", cudaGetErrorString(err));
        }
    }
#endif
    const long long ctas = clusters_launched * plan->cluster;
    const wsgemm_dtype out_type = sm100_plan_out_type(plan, p);
    int clusters = 0; /* prepared by the plan's query already: a table look-up, no driver call */
    const wsgemm_status st = prepare_kernel(ctx, plan->cluster, out_type, plan->variant, plan->scales, &clusters);
    if (st != WSGEMM_STATUS_SUCCESS) return st;
    const int mx = plan->scales == SM100_SCALES_MX;
    if (mx) { /* the factors into the kernel's chunks (the workspace's scale region), in stream order */
        const sm100_mx_scales_layout l = sm100_mx_scales_layout_of(p->m, p->n, p->k);
        uint8_t *chunks = call->scales;
        err = launch_mx_scales((const uint8_t *)p->a_scales, p->m, p->k / UMMA_SF_VEC, l.k_blocks, SM100_BM, chunks,
                               (long long)l.a_bytes, ctx->stream, ctx->pdl);
        if (err == cudaSuccess)
            err = launch_mx_scales((const uint8_t *)p->b_scales, p->n, p->k / UMMA_SF_VEC, l.k_blocks, SM100_BN_MX,
                                   chunks + l.b_offset, (long long)l.b_bytes, ctx->stream, ctx->pdl);
        if (err != cudaSuccess) {
            wsgemm_forget_cuda_error(err);
            return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "%s MX scale rearrangement launch failed: %s",
                               SM100_PATH_NAME, cudaGetErrorString(err));
        }
    }
    if (mx)
        err = plan->cluster == 2 ? launch_kernel<2, __nv_bfloat16, false, true>(k, (int)ctas, ctx->stream, ctx->pdl)
                                 : launch_kernel<1, __nv_bfloat16, false, true>(k, (int)ctas, ctx->stream, ctx->pdl);
    else if (!clc)
        err = plan->cluster == 2 ? launch_for_output<2>(k, out_type, (int)ctas, ctx->stream, ctx->pdl)
                                 : launch_for_output<1>(k, out_type, (int)ctas, ctx->stream, ctx->pdl);
    else
        err = plan->cluster == 2 ? launch_kernel<2, __nv_bfloat16, true>(k, (int)ctas, ctx->stream, ctx->pdl)
                                 : launch_kernel<1, __nv_bfloat16, true>(k, (int)ctas, ctx->stream, ctx->pdl);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "%s kernel launch (cta_group %d, %lld CTAs) failed: %s",
                           SM100_PATH_NAME, plan->cluster, ctas, cudaGetErrorString(err));
    }
    last_launch = wsgemm_sm100_launch_probe{
        plan->cluster, plan->splits, (int)plan->epilogue, plan->a.staged, plan->b.staged,
        ctas,          k.kind,       k.has_fused,         plan->variant,  plan->grid_clusters};
    last_launched = 1;
    return WSGEMM_STATUS_SUCCESS;
}

/* The whole path: the launch skeleton (gemm/common/launch.cuh) over the three steps above. */
wsgemm_status run_sm100(const wsgemm_problem *p, wsgemm_launch_ctx *ctx, const wsgemm_knobs *knobs, int fault)
{
    Sm100Call call;
    call.knobs = knobs;
    call.fault = fault;
    call.scales = NULL;
    const wsgemm_fast_path path = {.name = SM100_PATH_NAME,
                                   .debug = knobs->sm100_debug,
                                   .self = &call,
                                   .plan = sm100_plan,
                                   .encode = sm100_encode,
                                   .launch = sm100_launch};
    return wsgemm_fast_path_run(&path, p, ctx);
}

int copy_last_launch(wsgemm_sm100_launch_probe *out)
{
    if (!last_launched) return -1;
    *out = last_launch;
    return 0;
}

} // namespace

#if SM100_EMULATION

extern "C" int wsgemm_sm100_emulated_last_launch(wsgemm_sm100_launch_probe *out)
{
    return copy_last_launch(out);
}

extern "C" int wsgemm_sm100_emulated_available(void)
{
    return 1;
}

extern "C" int wsgemm_sm100_emulated_planted_faults(void)
{
    return SM100_PLANTED_FAULTS;
}

extern "C" wsgemm_status wsgemm_sm100_emulated_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
#if SM100_PLANTED_FAULTS
    return run_sm100(p, ctx, wsgemm_knobs_get(), env_fault());
#else
    return run_sm100(p, ctx, wsgemm_knobs_get(), FAULT_NONE);
#endif
}

/* For tests/sm100: TMEM columns the emulation still holds after the last launch (0 = clean, -1 on a
 * CUDA error). The emulation's state is per translation unit, so the query must live here. Synchronizes
 * the legacy default stream; call it after the GEMM's stream has finished. */
extern "C" int wsgemm_sm100_emulated_tmem_leaked_columns(void)
{
    char msg[512];
    const int leaked = tmem_host_leak_check(0, msg, sizeof msg);
    if (leaked != 0) fprintf(stderr, "wsgemm sm100-emulated: TMEM leak check: %d (%s)\n", leaked, msg);
    return leaked;
}

/* For tests/sm100: the first error the emulation's checker recorded since the last launch (0 = none),
 * with its description in msg. Readable after the checker's trap destroyed the context (the record is
 * in host-mapped memory), unlike its device printf, which may be lost with the context. */
extern "C" int wsgemm_sm100_emulated_clc_requests(void)
{
    unsigned int taken = 0;
    const cudaError_t err = cudaMemcpyFromSymbol(&taken, clc_emu_taken, sizeof taken);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return -1;
    }
    return (int)taken;
}

extern "C" int wsgemm_sm100_emulated_checker_error(char *msg, size_t msg_size)
{
    return tmem_host_last_error(msg, msg_size);
}

#else /* hardware */

extern "C" int wsgemm_sm100_last_launch(wsgemm_sm100_launch_probe *out)
{
    return copy_last_launch(out);
}

extern "C" int wsgemm_sm100_available(void)
{
    return 1;
}

extern "C" wsgemm_status wsgemm_sm100_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    return run_sm100(p, ctx, wsgemm_knobs_get(), FAULT_NONE);
}

#endif
