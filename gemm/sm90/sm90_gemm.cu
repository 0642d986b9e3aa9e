// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_gemm.cu - the launcher of the Hopper path, on the launch skeleton the fast paths share
 * (gemm/common/launch.cuh):
 *
 *   plan (sm90_plan.c: orientation, tile, cluster, split-K, epilogue, staging, workspace; CPU-tested)
 *   -> reserve the workspace -> stage operands TMA cannot address (gemm/common/staging.cuh) -> encode the tensor maps
 *   -> launch the kernel (sm90_kernel.cuh) and, for split-K or a hybrid schedule's split region, the
 *      fixed-order reduction (common/splitk_reduce.cuh).
 *
 * The planner reads the kernel table (sm90_kernels.def, as C data in sm90_table.c) and asks this file about a
 * row's kernels (query_kernel): their shared memory and how many of their clusters fit on the device
 * (cudaOccupancyMaxActiveClusters, once per kernel and device). The tuning knobs (WSGEMM_SM90_*,
 * docs/tuning.md) are read by gemm/common/knobs.c; WSGEMM_SM90_DEBUG=1 prints the plan of every call to stderr.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/knobs.h"
#include "common/launch.cuh"
#include "common/scale.h"
#include "common/status.h"
#include "common/tma.h"
#include "common/tune_cache.h"
#include "internal.h"
#include "sm90/sm90_kernel.cuh"
#include "sm90/sm90_plan.h"
#include "sm90/sm90_probe.h"
#include "sm90/sm90_table.h"

/* ---------------------------------------------------------------- kernel table */

/* The kernels of each row of sm90_kernels.def (defined in the shards, sm90_shard.cu), at the row's index in
 * sm90_kernel_table (sm90_table.c). */
#define SM90_KERNEL(name, ...) Sm90KernelInfo sm90_row_##name(int p_mn, int q_mn);
#include "sm90/sm90_kernels.def"
#undef SM90_KERNEL
typedef Sm90KernelInfo (*sm90_row_kernels)(int p_mn, int q_mn);
#define SM90_KERNEL(name, shard, variant, in, scales, bm, bn, bk, stages, cluster, consumers, schedule, c_bytes, \
                    fused, mn, by)                                                                               \
    SM90_PICK(SM90_BUILT(by), sm90_row_##name, NULL),
static const sm90_row_kernels row_kernels[] = {
/* NULL: a row this build leaves out (SM90_BUILT) */
#include "sm90/sm90_kernels.def"
};
#undef SM90_KERNEL
static_assert(sizeof row_kernels / sizeof row_kernels[0] == SM90_KERNEL_ROWS, "one entry per row of the table");

/* The kernel of row `row` (sm90_kernel_find) for the majorness pair; info.fn == NULL for a pair it lacks. */
static Sm90KernelInfo row_kernel(int row, int p_mn, int q_mn)
{
    Sm90KernelInfo none = {};
    if (row < 0 || row >= SM90_KERNEL_ROWS || row_kernels[row] == NULL) return none;
    return row_kernels[row](p_mn, q_mn);
}

/* Per-kernel facts that need a driver call: set the smem limit once, and the number of co-resident
 * clusters. One table per device (a kernel's attributes and occupancy are per device), each with room for
 * every kernel of the kernel table and some spare; a full table is an error, never a silent miss. */
enum { kPrepPerDevice = SM90_KERNEL_COUNT + 6 };
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
        if (prep_table[dev][i].fn == fn)
            stored = 1;
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
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED,
                           "sm90 kernel needs %d bytes of shared memory; device has %d", info->smem_bytes,
                           ctx->device->smem_optin_bytes);
    cudaError_t err = wsgemm_kernel_set_max_dynamic_smem(info->fn, info->smem_bytes);
    if (err != cudaSuccess) {
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

/* The tensor map of operand o used as P (box rows 128) or as Q (box rows bn / cluster); a K-major box is one
 * 128-byte row of K (bk elements). */
static cudaError_t encode_operand(CUtensorMap *map, const wsgemm_operand *o, wsgemm_dtype dtype, int k, int box_rows,
                                  int box_k, int bk, char *msg, size_t msg_size)
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
        d.box_inner = (uint32_t)bk;
        d.box_outer = (uint32_t)box_rows;
    } else { /* dim 0 = rows, dim 1 = K; 64-row boxes, box_k K rows each */
        d.inner = (uint64_t)o->rows_dim;
        d.outer = (uint64_t)k;
        d.box_inner = 64;
        d.box_outer = (uint32_t)box_k;
    }
    return wsgemm_tma_encode_2d16(map, &d, msg, msg_size);
}

/* ---------------------------------------------------------------- the entry points */

extern "C" int wsgemm_sm90_available(void)
{
    return 1;
}

/* the tests' view of what this thread's last launch ran: epilogue, cluster, split region, tile width
 * (sm90/sm90_probe.h) */
static thread_local int last_epilogue = WSGEMM_SM90_EPILOGUE_NONE;
static thread_local int last_cluster = 0;
static thread_local int last_sk_splits = 0;
static thread_local int last_bn = 0;
static thread_local int last_tuned = 0;

extern "C" wsgemm_sm90_epilogue wsgemm_sm90_last_epilogue(void)
{
    return (wsgemm_sm90_epilogue)last_epilogue;
}

extern "C" int wsgemm_sm90_last_cluster(void)
{
    return last_cluster;
}

extern "C" int wsgemm_sm90_last_sk_splits(void)
{
    return last_sk_splits;
}

extern "C" int wsgemm_sm90_last_bn(void)
{
    return last_bn;
}

extern "C" int wsgemm_sm90_last_tuned(void)
{
    return last_tuned;
}

/* The planner's question (sm90_plan.h): the facts of row `row` of the kernel table for the majorness pair, and
 * how many of its clusters fit on this device. */
static wsgemm_status query_kernel(void *launch_ctx, int row, int p_mn, int q_mn, sm90_kernel_facts *out)
{
    wsgemm_launch_ctx *ctx = (wsgemm_launch_ctx *)launch_ctx;
    memset(out, 0, sizeof *out);
    const Sm90KernelInfo info = row_kernel(row, p_mn, q_mn);
    if (info.fn == NULL) return WSGEMM_STATUS_SUCCESS;
    int max_clusters = 0;
    wsgemm_status s = prepare_kernel(&info, ctx, &max_clusters);
    if (s != WSGEMM_STATUS_SUCCESS) return s;
    out->exists = 1;
    out->bn = info.bn;
    out->stages = info.stages;
    out->cluster = info.cluster;
    out->smem_bytes = info.smem_bytes;
    out->max_clusters = max_clusters;
    return WSGEMM_STATUS_SUCCESS;
}

static_assert((int)WSGEMM_EPILOGUE_NONE == (int)WSGEMM_SM90_EPILOGUE_NONE &&
                  (int)WSGEMM_EPILOGUE_DIRECT == (int)WSGEMM_SM90_EPILOGUE_DIRECT &&
                  (int)WSGEMM_EPILOGUE_TMA == (int)WSGEMM_SM90_EPILOGUE_TMA &&
                  (int)WSGEMM_EPILOGUE_DEFERRED == (int)WSGEMM_SM90_EPILOGUE_DEFERRED &&
                  (int)WSGEMM_EPILOGUE_STAGED == (int)WSGEMM_SM90_EPILOGUE_STAGED,
              "the tests' probe reports the plan's epilogue kind as is");

/* The tensor map of C for the TMA-store epilogues: boxes of 64 rows of 128 bytes (q along C's rows). */
static cudaError_t encode_c(CUtensorMap *map, const wsgemm_problem *p, char *msg, size_t msg_size)
{
    const int c_bytes = wsgemm_dtype_size(p->Ctype);
    wsgemm_tma_2d16 d;
    d.base = p->C;
    d.dtype = p->Ctype;
    d.inner = (uint64_t)p->m;
    d.outer = (uint64_t)p->n;
    d.depth = (uint64_t)p->batch_count;
    d.ld = (uint64_t)p->ldc;
    d.batch_stride = (uint64_t)p->strideC;
    d.box_inner = (uint32_t)(128 / c_bytes);
    d.box_outer = 64;
    return wsgemm_tma_encode_2d16(map, &d, msg, msg_size);
}

/* The kernel's parameters: D(p, q) goes to C (or, split, to the fp32 partials in the workspace). */
/* The scale tensor of an operand with `outer` rows of op(A) (columns of op(B)) as the kernels walk it. */
static Sm90ScaleMap scale_map(wsgemm_matmul_scale_mode mode, const void *tensor, long long outer, long long k)
{
    const wsgemm_scale_strides s = wsgemm_scale_strides_of((int)mode, outer, k);
    const Sm90ScaleMap map = {(const float *)tensor, s.row, s.block, s.tile};
    return map;
}

static Sm90Params kernel_params(const wsgemm_plan *plan, const wsgemm_problem *p, uint8_t *ws)
{
    Sm90Params prm;
    memset(&prm, 0, sizeof prm);
    prm.sched = plan->sched;
    prm.p_extent = (int)plan->p_extent;
    prm.q_extent = (int)plan->q_extent;
    prm.p_batched = sm90_plan_p(plan)->nb > 1;
    prm.q_batched = sm90_plan_q(plan)->nb > 1;
    if (plan->splits > 1) {
        prm.out = ws + plan->partials_offset;
        prm.out_type = WSGEMM_R_32F;
        prm.out_sp = plan->swap ? p->m : 1;
        prm.out_sq = plan->swap ? 1 : p->m;
        prm.out_batch = (long long)p->m * p->n;
        prm.out_split = (long long)p->m * p->n * p->batch_count;
        prm.alpha = 1.0f;
        prm.beta = 0.0f;
    } else {
        prm.out = p->C;
        prm.out_type = p->Ctype;
        prm.out_sp = plan->swap ? p->ldc : 1;
        prm.out_sq = plan->swap ? 1 : p->ldc;
        prm.out_batch = p->strideC;
        prm.out_split = 0;
        prm.alpha = p->alpha;
        prm.beta = p->beta;
    }
    prm.epilogue = plan->epilogue;
    if (p->fused) prm.fused = *p->fused; /* its plan is swapped and unsplit (sm90_plan.c) */
    prm.a_scale = p->a_scale;            /* FP8 plans only (sm90_plan.c) */
    prm.b_scale = p->b_scale;
    /* block-scaled plans: A's scales are P's when P = op(A), Q's when swapped (their layouts are in the
     * frame of op(A) and op(B), whatever the orientation); OUTER_VEC_32F's, over all of K, scale the tiles'
     * sums once (the outer maps), the others each K block's */
    const int outer = p->a_scale_mode == WSGEMM_MATMUL_SCALE_OUTER_VEC_32F;
    const Sm90ScaleMap none = {NULL, 0, 0, 0};
    const Sm90ScaleMap a_map = scale_map(p->a_scale_mode, p->a_scales, p->m, p->k);
    const Sm90ScaleMap b_map = scale_map(p->b_scale_mode, p->b_scales, p->n, p->k);
    prm.p_scales = outer ? none : plan->swap ? b_map : a_map;
    prm.q_scales = outer ? none : plan->swap ? a_map : b_map;
    prm.p_outer = outer ? (plan->swap ? b_map : a_map) : none;
    prm.q_outer = outer ? (plan->swap ? a_map : b_map) : none;
    if (plan->sched.sk_splits > 1) { /* the hybrid's split region: partial tiles, C's contiguous side contiguous */
        prm.sk_part = (float *)(ws + plan->partials_offset);
        prm.sk_sp = plan->swap ? plan->bn : 1;
        prm.sk_sq = plan->swap ? 1 : SM90_BM;
    }
    return prm;
}

/* ---------------------------------------------------------------- the path on the launch skeleton */

/* One call's state between the skeleton's steps. */
typedef struct sm90_call {
    const wsgemm_knobs *knobs;
    const wsgemm_knobs *tuned; /* the tuning cache's entry for the call as knobs (common/tune_cache.h), or NULL */
    int used_tuned;            /* the plan came from them */
    CUtensorMap map_p, map_q, map_c;
    Sm90Params prm;
} sm90_call;

static wsgemm_status sm90_plan(void *self, const wsgemm_problem *p, int lean, wsgemm_launch_ctx *ctx, wsgemm_plan *plan,
                               char *why, size_t why_size)
{
    sm90_call *call = (sm90_call *)self;
    /* the tuned knobs first; where they decline the call, the process's */
    for (int tuned = call->tuned != NULL; tuned >= 0; --tuned) {
        wsgemm_knobs k = tuned ? *call->tuned : *call->knobs;
        if (lean) k.sm90_hybrid = 0; /* the hybrid-off plan: no split region's partial tiles */
        const wsgemm_status s = sm90_plan_make(p, &k, query_kernel, ctx, plan, why, why_size);
        call->used_tuned = tuned;
        if (s == WSGEMM_STATUS_SUCCESS || !tuned) return s;
    }
    return WSGEMM_STATUS_INTERNAL_ERROR; /* not reached */
}

static wsgemm_status sm90_encode(void *self, wsgemm_plan *plan, const wsgemm_problem *p, uint8_t *ws,
                                 wsgemm_launch_ctx *ctx)
{
    sm90_call *call = (sm90_call *)self;
    char msg[256] = "";
    memset(&call->map_c, 0, sizeof call->map_c);
    const wsgemm_dtype p_type = plan->swap ? p->Btype : p->Atype, q_type = plan->swap ? p->Atype : p->Btype;
    cudaError_t err =
        encode_operand(&call->map_p, sm90_plan_p(plan), p_type, p->k, SM90_BM, SM90_BK, plan->bk, msg, sizeof msg);
    if (err == cudaSuccess)
        err = encode_operand(&call->map_q, sm90_plan_q(plan), q_type, p->k, plan->bn / plan->cluster,
                             SM90_BK / plan->cluster, plan->bk, msg, sizeof msg);
    if (err != cudaSuccess) return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "sm90 tensor map: %s", msg);
    if (plan->epilogue != WSGEMM_EPILOGUE_DIRECT && encode_c(&call->map_c, p, msg, sizeof msg) != cudaSuccess) {
        if (p->fused) /* the fused ops run in the TMA-store epilogues only */
            return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "sm90 fused epilogue: tensor map of D: %s", msg);
        if (call->knobs->sm90_debug) fprintf(stderr, "wsgemm sm90: no TMA-store epilogue: %s\n", msg);
        plan->epilogue = WSGEMM_EPILOGUE_DIRECT; /* the driver refused the map: per-element stores serve any C */
    }
    call->prm = kernel_params(plan, p, ws);
    return WSGEMM_STATUS_SUCCESS;
}

static wsgemm_status sm90_launch(void *self, const wsgemm_plan *plan, const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    sm90_call *call = (sm90_call *)self;
    const Sm90KernelInfo info =
        row_kernel(sm90_kernel_find(plan->in, plan->scales, plan->variant, plan->bn, plan->p_mn, plan->q_mn),
                   plan->p_mn, plan->q_mn);
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[2];
    cluster_launch_config(&cfg, attr, (unsigned)plan->cluster);
    wsgemm_pdl_config(&cfg, attr, ctx->pdl);
    cfg.gridDim = dim3((unsigned)(plan->grid_clusters * plan->cluster), 1, 1);
    cfg.blockDim = dim3(SM90_THREADS, 1, 1);
    cfg.dynamicSmemBytes = (size_t)info.smem_bytes;
    cfg.stream = ctx->stream;
    void *args[4] = {&call->map_p, &call->map_q, &call->map_c, (void *)&call->prm};
    cudaError_t err = cudaLaunchKernelExC(&cfg, info.fn, args);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return wsgemm_fail(ctx, WSGEMM_STATUS_CUDA_ERROR, "sm90 kernel launch failed: %s (grid %u, smem %d)",
                           cudaGetErrorString(err), cfg.gridDim.x, info.smem_bytes);
    }
    last_epilogue = plan->epilogue;
    last_cluster = plan->cluster;
    last_sk_splits = plan->sched.sk_splits;
    last_bn = plan->bn;
    last_tuned = call->used_tuned;
    return WSGEMM_STATUS_SUCCESS;
}

extern "C" wsgemm_status wsgemm_sm90_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    sm90_call call;
    call.knobs = wsgemm_knobs_get();
    call.tuned = NULL;
    call.used_tuned = 0;
    /* a plain call the tuning cache has an entry for (its settings fix m, so not under batch invariance) */
    const wsgemm_tune_table *table = p->fused || p->batch_invariance != WSGEMM_BATCH_INVARIANCE_OFF
                                         ? NULL
                                         : wsgemm_tune_table_for(ctx->device->ordinal, call.knobs);
    if (table) {
        char key[WSGEMM_TUNE_KEY_BYTES];
        wsgemm_tune_key("sm90", p, key, sizeof key);
        const wsgemm_tune_entry *e = wsgemm_tune_find(table, key);
        if (e) call.tuned = &e->knobs;
    }
    const wsgemm_fast_path path = {.name = "sm90",
                                   .debug = call.knobs->sm90_debug,
                                   .self = &call,
                                   .plan = sm90_plan,
                                   .encode = sm90_encode,
                                   .launch = sm90_launch};
    return wsgemm_fast_path_run(&path, p, ctx);
}
