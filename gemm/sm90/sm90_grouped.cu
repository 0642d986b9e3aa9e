// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_grouped.cu - the launcher of the sm90 grouped GEMM: plan (sm90_grouped_plan.c) -> encode the
 * tensor maps of P and Q -> launch the kernel (sm90_grouped_kernel.cuh) of the plan's row, with programmatic
 * dependent launch when the call asks for it. No workspace, nothing read on the host: the group sizes stay
 * on the device, and a captured call replays with whatever they hold then. Also the instantiations of the
 * rows of sm90_grouped_kernels.def (one kernel a row) and the tests' probe of the last launch's tile width.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/pdl.cuh"
#include "common/status.h"
#include "common/tma.h"
#include "internal.h"
#include "sm90/sm90_grouped_kernel.cuh"
#include "sm90/sm90_grouped_plan.h"
#include "sm90/sm90_probe.h"

/* ---------------------------------------------------------------- kernel table */

#define SM90_GROUPED_KERNEL(name, in, bm, bn, bk, stages, consumers, mn)                                          \
    static_assert((bm) == SM90_BM && (bk) == SM90_BK && (consumers) == 2 && (mn) == SM90_MN_K_K,                  \
                  "row " #name ": the grouped kernel's tile is SM90_BM x BN x SM90_BK, two consumer warpgroups, " \
                  "K-major P and Q");                                                                             \
    static Sm90GroupedKernelInfo grouped_row_##name(void)                                                         \
    {                                                                                                             \
        return sm90_grouped_kernel_info<bn, stages, in>();                                                        \
    }
#include "sm90/sm90_grouped_kernels.def"
#undef SM90_GROUPED_KERNEL
typedef Sm90GroupedKernelInfo (*grouped_row_kernel)(void);
#define SM90_GROUPED_KERNEL(name, ...) grouped_row_##name,
static const grouped_row_kernel row_kernels[] = {
#include "sm90/sm90_grouped_kernels.def"
};
#undef SM90_GROUPED_KERNEL
static_assert(sizeof row_kernels / sizeof row_kernels[0] == SM90_GROUPED_ROWS, "one kernel per row of the table");

/* The shared-memory limit, set once per kernel and device. */
static int smem_set[WSGEMM_MAX_DEVICES][SM90_GROUPED_ROWS];
static pthread_mutex_t smem_lock = PTHREAD_MUTEX_INITIALIZER; /* handles may live on several host threads */

static wsgemm_status prepare_kernel(int row, const Sm90GroupedKernelInfo *info, wsgemm_launch_ctx *ctx)
{
    const int dev = ctx->device->ordinal;
    if (info->smem_bytes > ctx->device->smem_optin_bytes)
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED,
                           "sm90 grouped kernel needs %d bytes of shared memory; device has %d", info->smem_bytes,
                           ctx->device->smem_optin_bytes);
    pthread_mutex_lock(&smem_lock);
    cudaError_t err = cudaSuccess;
    if (!smem_set[dev][row]) {
        err = wsgemm_kernel_set_max_dynamic_smem(info->fn, info->smem_bytes);
        smem_set[dev][row] = err == cudaSuccess;
    }
    pthread_mutex_unlock(&smem_lock);
    if (err != cudaSuccess)
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "cudaFuncSetAttribute(max dynamic smem %d) failed: %s",
                           info->smem_bytes, cudaGetErrorString(err));
    return WSGEMM_STATUS_SUCCESS;
}

/* The tensor map of a K-major operand: boxes of box_rows rows x SM90_BK K (one 128-byte swizzled row each). */
static cudaError_t encode_operand(CUtensorMap *map, const sm90_grouped_operand *o, wsgemm_dtype dtype, int k,
                                  int box_rows, char *msg, size_t msg_size)
{
    wsgemm_tma_2d16 d;
    memset(&d, 0, sizeof d);
    d.base = o->ptr;
    d.dtype = dtype;
    d.inner = (uint64_t)k;
    d.outer = (uint64_t)o->rows;
    d.depth = (uint64_t)o->matrices;
    d.ld = (uint64_t)o->ld;
    d.batch_stride = (uint64_t)o->stride;
    d.box_inner = SM90_BK;
    d.box_outer = (uint32_t)box_rows;
    return wsgemm_tma_cache_encode(wsgemm_tma_shared_cache(), wsgemm_tma_encode_2d16, map, &d, msg, msg_size);
}

/* ---------------------------------------------------------------- the entry points */

static thread_local int last_bn = 0; /* the tests' view (sm90/sm90_probe.h) */

extern "C" int wsgemm_sm90_last_grouped_bn(void)
{
    return last_bn;
}

extern "C" wsgemm_status wsgemm_sm90_grouped(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    sm90_grouped_plan plan;
    char why[256] = "";
    if (!sm90_grouped_plan_make(p, ctx->device, &plan, why, sizeof why))
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "%s", why);
    const Sm90GroupedKernelInfo info = row_kernels[plan.row]();
    wsgemm_status s = prepare_kernel(plan.row, &info, ctx);
    if (s != WSGEMM_STATUS_SUCCESS || ctx->plan_only) return s;

    CUtensorMap map_p, map_q;
    char msg[256] = "";
    cudaError_t err = encode_operand(&map_p, &plan.p, p->Atype, plan.k, SM90_BM, msg, sizeof msg);
    if (err == cudaSuccess) err = encode_operand(&map_q, &plan.q, p->Atype, plan.k, plan.bn, msg, sizeof msg);
    if (err != cudaSuccess) return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "sm90 grouped tensor map: %s", msg);

    const wsgemm_grouped_desc *d = p->grouped;
    Sm90GroupedParams prm;
    memset(&prm, 0, sizeof prm);
    prm.g.sizes = d->sizes;
    prm.g.group_count = d->group_count;
    prm.g.layout = d->layout;
    prm.g.extent = plan.p_extent;
    prm.g.whole = 0;
    prm.q_extent = plan.q_extent;
    prm.k = plan.k;
    prm.q_tiles = (plan.q_extent + plan.bn - 1) / plan.bn;
    prm.q_band = plan.q_band;
    prm.p_batched = plan.p.matrices > 1;
    prm.q_batched = plan.q.matrices > 1;
    prm.out = p->C;
    prm.out_sp = plan.out_sp;
    prm.out_sq = plan.out_sq;
    prm.out_group = plan.out_group;
    prm.out_type = p->Ctype;
    prm.alpha = p->alpha;
    prm.beta = p->beta;
    prm.status = d->status;

    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    wsgemm_pdl_config(&cfg, attr, ctx->pdl);
    cfg.gridDim = dim3((unsigned)plan.grid, 1, 1);
    cfg.blockDim = dim3(SM90_THREADS, 1, 1);
    cfg.dynamicSmemBytes = (size_t)info.smem_bytes;
    cfg.stream = ctx->stream;
    void *args[3] = {&map_p, &map_q, &prm};
    err = cudaLaunchKernelExC(&cfg, info.fn, args);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "sm90 grouped kernel launch failed: %s (grid %u, smem %d)",
                           cudaGetErrorString(err), cfg.gridDim.x, info.smem_bytes);
    }
    last_bn = plan.bn;
    return WSGEMM_STATUS_SUCCESS;
}
