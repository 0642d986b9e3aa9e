// SPDX-License-Identifier: MIT
/*
 * sync/cluster.cuh - thread-block-cluster wrappers: the CTA's rank and the cluster's id (special
 * registers), the cluster barrier split into arrive (release) and wait (acquire), and mapa (a local
 * shared address -> the same offset in another CTA of the cluster).
 * Citations name PTX ISA 9.0 sections by title. Compiles for sm_90a and sm_100a. Launched without a
 * cluster, a kernel is a cluster of one: rank 0, nctarank 1, and cluster_sync is a CTA-wide barrier.
 * The barrier.cluster forms are .aligned: every thread of the warp must execute the same instruction,
 * converged. After divergent code (a spin-wait loop, a per-lane delay) call __syncwarp() first.
 * The TMEM emulation build reports the cluster barrier to its happens-before tracking (sync/hb_hook.cuh).
 */
#ifndef WSGEMM_SYNC_CLUSTER_CUH
#define WSGEMM_SYNC_CLUSTER_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "hb_hook.cuh"

/* Host side, CUDA runtime "cudaLaunchAttributeClusterDimension": make cfg launch clusters of `ctas` CTAs
 * along x (1 is a plain launch). attr is the caller's storage: it must live until the launch or the
 * occupancy query that reads cfg. */
static inline void cluster_launch_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, unsigned ctas)
{
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = ctas;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* PTX ISA "Special Registers: %cluster_ctarank": this CTA's rank in its cluster, 0 .. nctarank-1. */
static __device__ __forceinline__ uint32_t cluster_ctarank(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/* PTX ISA "Special Registers: %cluster_nctarank": number of CTAs in this cluster. */
static __device__ __forceinline__ uint32_t cluster_nctarank(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}

/* PTX ISA "Special Registers: %clusterid": the cluster's index in the grid (x component). */
static __device__ __forceinline__ uint32_t cluster_id_x(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}

/* PTX ISA "Special Registers: %clusterid": y component. */
static __device__ __forceinline__ uint32_t cluster_id_y(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(r));
    return r;
}

/* PTX ISA "Special Registers: %nclusterid": number of clusters in the grid (x component). */
static __device__ __forceinline__ uint32_t cluster_count_x(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}

/* PTX ISA "Special Registers: %cluster_ctaid": this CTA's position inside its cluster (x component). */
static __device__ __forceinline__ uint32_t cluster_ctaid_x(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r));
    return r;
}

/* PTX ISA "barrier.cluster": arrive on the cluster barrier. .release: this thread's earlier memory
 * accesses (mbarrier.init after fence_mbarrier_init, TMEM alloc results, smem writes) are ordered
 * before any access by a thread of the cluster that completes cluster_wait_acquire. .aligned: every
 * thread of the warp executes it. Every thread of every CTA of the cluster must arrive. */
static __device__ __forceinline__ void cluster_arrive_release(void)
{
    WSGEMM_HB(tmem_hb_cluster_arrive(1));
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

/* PTX ISA "barrier.cluster": relaxed arrive; orders nothing, only counts (for "I am still alive"
 * handshakes where no data is published). */
static __device__ __forceinline__ void cluster_arrive_relaxed(void)
{
    WSGEMM_HB(tmem_hb_cluster_arrive(0));
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

/* PTX ISA "barrier.cluster": wait until every thread of the cluster has arrived (current phase).
 * .acquire pairs with the arrivals' .release. */
static __device__ __forceinline__ void cluster_wait_acquire(void)
{
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    WSGEMM_HB(tmem_hb_cluster_wait());
}

/* arrive.release + wait.acquire: the full cluster-wide barrier (all threads of all CTAs). */
static __device__ __forceinline__ void cluster_sync(void)
{
    cluster_arrive_release();
    cluster_wait_acquire();
}

/* PTX ISA "mapa": the shared::cluster address of the variable at local shared::cta address `addr_smem`
 * in CTA `cta_rank` of this cluster. Pure address arithmetic, no memory access (so no clobber needed;
 * it is volatile so it is not hoisted above a cluster_sync that makes the peer exist). */
static __device__ __forceinline__ uint32_t mapa_shared_cluster(uint32_t addr_smem, uint32_t cta_rank)
{
    uint32_t addr_cluster;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(addr_cluster) : "r"(addr_smem), "r"(cta_rank));
    return addr_cluster;
}

#endif /* WSGEMM_SYNC_CLUSTER_CUH */
