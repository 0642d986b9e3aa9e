// SPDX-License-Identifier: MIT
/*
 * emu/clc_emu.cuh - the emulation build's stand-in for clusterlaunchcontrol.try_cancel (sync/clc.cuh), which
 * sm_90 does not have. Included by emu/emulation.cuh, before any sync/ header (it uses none of them).
 *
 * The hardware answers try_cancel from the grid's clusters that have not started: each succeeds at most once
 * per cluster, and once none is left every later request fails. The stand-in keeps that queue as a counter
 * in global memory: the emulated launch starts `clusters_launched` clusters of a grid that on hardware would
 * have `clusters_total` (one per unit of work); request number k (the counter's old value, atomicAdd) hands
 * out cluster clusters_launched + k while it is below clusters_total, and fails afterwards. Every cluster
 * therefore gets a distinct unit and, as on hardware, no unit is handed out twice.
 *
 * The response (16 bytes, the emulation's own format: word 0 = 1 when cancelled, word 2 = the cancelled
 * cluster's first %ctaid.x, words 1 and 3 zero: each 8-byte half carries part of the answer) is written with
 * st.async (PTX ISA "st.async", sm_90: a store to shared::cluster memory that performs a complete_tx of its size
 * on the mbarrier at the same CTA's shared::cluster address), into the slot of this CTA and, for the pair
 * (multicast), of every CTA of the cluster, completing on the barrier at the same offset in each: the same bytes
 * and the same barrier transaction as the hardware instruction, so sync/clc.cuh's waits, phases and fences are
 * unchanged.
 */
#ifndef WSGEMM_EMU_CLC_EMU_CUH
#define WSGEMM_EMU_CLC_EMU_CUH

#if !defined(WSGEMM_TMEM_EMULATION)
#error "emu/clc_emu.cuh is the TMEM emulation build (WSGEMM_TMEM_EMULATION=1)"
#endif

#include <stdint.h>

#include "../sync/cluster.cuh"

/* PTX ISA "st.async" .mbarrier::complete_tx::bytes .v4.b32: 16 bytes at shared::cluster address dst_cluster,
 * then complete_tx(16) on the mbarrier at shared::cluster address bar_cluster (in the same CTA as dst). */
static __device__ __forceinline__ void st_async_v4_b32(uint32_t dst_cluster, uint32_t bar_cluster, uint32_t w0,
                                                       uint32_t w1, uint32_t w2, uint32_t w3)
{
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%2, %3, %4, %5}, [%1];" ::"r"(dst_cluster),
        "r"(bar_cluster), "r"(w0), "r"(w1), "r"(w2), "r"(w3)
        : "memory");
}

/* try_cancel's stand-in, by the issuing thread: take the next cluster from the counter and write the response
 * into response_smem (16-byte aligned) with a complete_tx on bar_smem, in this CTA or (multicast) in every CTA
 * of the cluster. `cta_group` CTAs per cluster: the first ctaid.x of cluster c is c * cta_group. */
static __device__ __forceinline__ void clc_emu_try_cancel(uint32_t *response_smem, uint64_t *bar_smem, bool multicast,
                                                          unsigned int *counter_gmem, uint32_t clusters_launched,
                                                          uint32_t clusters_total, uint32_t cta_group)
{
    const uint32_t k = atomicAdd(counter_gmem, 1u);
    /* k < clusters_total - clusters_launched, written so that neither side can wrap */
    const uint32_t canceled = clusters_launched < clusters_total && k < clusters_total - clusters_launched ? 1u : 0u;
    const uint32_t first_ctaid_x = canceled ? (clusters_launched + k) * cta_group : 0u;
    const uint32_t dst = (uint32_t)__cvta_generic_to_shared(response_smem);
    const uint32_t bar = (uint32_t)__cvta_generic_to_shared(bar_smem);
    /* multicast: every CTA of the cluster; otherwise only this CTA (its own rank) */
    const uint32_t first = multicast ? 0u : cluster_ctarank();
    const uint32_t last = multicast ? cluster_nctarank() : first + 1u;
    for (uint32_t rank = first; rank < last; ++rank)
        st_async_v4_b32(mapa_shared_cluster(dst, rank), mapa_shared_cluster(bar, rank), canceled, 0u, first_ctaid_x,
                        0u);
}

/* The marker sync/clc.cuh looks for in this build. */
#define WSGEMM_EMU_CLC 1

#endif /* WSGEMM_EMU_CLC_EMU_CUH */
