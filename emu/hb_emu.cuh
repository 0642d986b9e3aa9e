// SPDX-License-Identifier: MIT
/*
 * emu/hb_emu.cuh - the happens-before tracking of emu/hb.h wired into the TMEM emulation on the GPU:
 * the state in global memory, one hook per synchronisation edge and per TMEM access. Emulation build only
 * (sm_90a, WSGEMM_TMEM_EMULATION=1). sync/ calls the barrier hooks through sync/hb_hook.cuh, emu/tmem_emu.cuh
 * the TMEM ones; a hardware build compiles none of this. Included through emu/emulation.cuh, which a
 * translation unit of the emulation build includes before any sync/ or tmem/ header.
 *
 *   edge / access                       hook (called by)
 *   mbarrier.init                       tmem_hb_on_mbarrier_init   (sync/mbarrier.cuh: phase length = count)
 *   mbarrier.arrive [.expect_tx], remote tmem_hb_on_arrive          (every arrive wrapper; relaxed ones count only)
 *   mbarrier_wait returned              tmem_hb_on_wait            (sync/wait.cuh, after its loop: acquire the
 *                                                                  phase of that parity, name the barrier in
 *                                                                  later race reports)
 *   bar.sync / bar.arrive (named)       tmem_hb_named_arrive / _acquire  (sync/named_barrier.cuh)
 *   barrier.cluster.arrive / .wait      tmem_hb_cluster_arrive / _wait   (sync/cluster.cuh)
 *   tcgen05.fence::before/after         tmem_hb_fence              (tmem/tmem.cuh)
 *   tcgen05.alloc / dealloc             tmem_hb_alloc / tmem_hb_dealloc  (emu/tmem_emu.cuh)
 *   tcgen05.mma, tcgen05.commit[.mc]    tmem_hb_mma / tmem_hb_commit
 *   tcgen05.mma .block_scale            tmem_hb_mma_scaled         (the emulated block-scaled MMA: its D write and
 *                                                                  its reads of the scale-factor columns)
 *   tcgen05.cp (scale factors)          tmem_hb_cp                 (the emulated tcgen05.cp: its TMEM write and its
 *                                                                  shared-memory source read)
 *   tcgen05.ld, tcgen05.wait::ld        tmem_hb_ld / tmem_hb_wait_ld
 *   cp.async.bulk.tensor (TMA load)     tmem_hb_tma_load[_bytes]   (the kernel's TMA wrapper through WSGEMM_HB,
 *                                                                  e.g. gemm/common/tma.cuh, examples/tcgen05_gemm.cu:
 *                                                                  its writes join the phase of its barrier;
 *                                                                  MMAs and generic accesses read after them)
 *   cp.async.bulk.tensor (TMA store)    tmem_hb_tma_store          (gemm/common/tma.cuh: reads its source until
 *                                                                  a wait_group[.read] retires its group)
 *   cp.async.bulk.commit_group          tmem_hb_bulk_commit        (gemm/common/tma.cuh)
 *   cp.async.bulk.wait_group[.read] N   tmem_hb_bulk_wait          (gemm/common/tma.cuh, after the wait)
 *   fence.proxy.async.shared::cta       tmem_hb_proxy_fence        (sync/mbarrier.cuh)
 *   ld.shared / st.shared of a buffer   tmem_hb_smem_access        (the kernel, once per warp and buffer, before
 *   that TMA loads or stores                                       the accesses: gemm/common/epilogue.cuh's
 *                                                                  epilogue_smem_reads / _writes)
 *   the CTA's exit                      tmem_hb_cta_exit           (tmem_cta_exit, every thread, last in the
 *                                                                  kernel: every commit arrival was waited for)
 * Not tracked: __syncthreads() and __syncwarp() (compiler builtins with no wrapper: use cta_barrier_sync()
 * from sync/named_barrier.cuh where a CTA barrier orders TMEM accesses), mbarrier_arrive_cluster with a raw
 * shared::cluster address (use mbarrier_arrive_remote), a wait loop written around the try_wait/test_wait
 * wrappers instead of mbarrier_wait, shared memory other than a TMA copy's destination block read by an MMA
 * or a tcgen05.cp, ld/st.shared the kernel does not announce with tmem_hb_smem_access, multicast TMA copies.
 *
 * State: per cluster (linear cluster id < TMEM_HB_MAX_CLUSTERS, at most 2 CTAs and 32 warps) the agents
 * (one per warp), the mbarriers by shared-memory offset, the named barriers, the cluster barrier and the TMEM
 * cells of each CTA, each object behind a spin lock; a cluster beyond these limits is not tracked (a note is
 * printed once). Barriers are keyed by their offset in the CTA's shared memory (tmem_hb_offset), so a remote
 * arrival and the peer's init name the same barrier. Convergence: the hooks of sync/ assume none (the rule
 * is spelled out above tmem_hb_share_begin): the lanes that reach a hook together are one update by their
 * lowest lane and leave together; the TMEM hooks run in the emulation's reporting lane, after its
 * collective checks, before its __syncwarp().
 *
 * A race traps like every other checker error, with both sites in the host-mapped record
 * (tmem_host_last_error: "RACE: ... CTA rank 0 warp 2: tcgen05.ld lanes 64..95 columns 224..255 ... (its last
 * wait: acc_full[0] parity 0), and CTA rank 0 warp 1: tcgen05.mma ..., not ordered by happens-before").
 */
#ifndef WSGEMM_EMU_HB_EMU_CUH
#define WSGEMM_EMU_HB_EMU_CUH

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hb.h"
#include "tmem_emu_error.cuh"

enum {
    TMEM_HB_MAX_CLUSTERS = 1024, /* 251 KB each: 251 MB, cleared before every launch (about 0.1 ms) */
    TMEM_HB_MAX_RANKS = 2,
    TMEM_HB_MAX_AGENTS = 32, /* warps per cluster */
    /* mbarriers per CTA (an open-addressing table; a CTA with more leaves its cluster untracked). The sm100
     * kernel has 33 with cta_group 2 (6 full, 6 empty, 2 acc_full, 2 acc_empty, 4 x 4 c_full, dealloc) and
     * 29 with cta_group 1; gemm/sm100/sm100_kernel.cuh checks its count against this at compile time. */
    TMEM_HB_MBARRIERS = 64,
    TMEM_HB_NAMED = 16,        /* named barrier ids */
    TMEM_HB_NAMES = 64,        /* distinct barrier names in race reports */
    TMEM_HB_PENDING = 4,       /* tcgen05.ld per thread whose registers stay poisoned until wait::ld */
    TMEM_HB_SMEM_BLOCKS = 232, /* HB_SMEM_BLOCK_BYTES blocks of shared memory (227 KB + 5 KB reserved) */
    TMEM_HB_CLC_SLOTS = 2,     /* CLC response slots (sync/clc.cuh), tracked in the last reserved blocks */
    TMEM_HB_REG_CTAS = 1024,   /* threads whose registers are held: block linear id and thread index below these */
    TMEM_HB_REG_THREADS = 512
};

typedef struct tmem_hb_agent_slot {
    hb_agent a;
    int lock;
    uint32_t ready;
    uint32_t cluster_phase; /* phase of the cluster barrier this warp arrived on last */
    uint32_t pad;
} tmem_hb_agent_slot;

typedef struct tmem_hb_barrier {
    uint32_t key; /* mbarriers: shared-memory offset + 1 (0: free slot) */
    int lock;
    hb_sync s;
} tmem_hb_barrier;

typedef struct tmem_hb_cta {
    uint32_t exited_threads; /* threads past tmem_cta_exit */
    uint32_t pad[3];
    tmem_hb_barrier mbar[TMEM_HB_MBARRIERS];
    tmem_hb_barrier named[TMEM_HB_NAMED];
    int cell_lock[HB_QUARTERS];
    hb_cell cells[HB_CELLS];
    int smem_lock;
    hb_smem_block smem[TMEM_HB_SMEM_BLOCKS]; /* the async-proxy history of each 1024-byte block */
} tmem_hb_cta;

typedef struct tmem_hb_cluster {
    uint32_t next_comp; /* clock components handed out */
    uint32_t untracked; /* 1: ran out of components or table space: this cluster is no longer tracked */
    tmem_hb_agent_slot agents[TMEM_HB_MAX_AGENTS];
    tmem_hb_barrier cluster_bar;
    tmem_hb_cta cta[TMEM_HB_MAX_RANKS];
} tmem_hb_cluster;

/* A tcgen05.ld whose destination registers hold the poison pattern until the thread's wait::ld. */
typedef struct tmem_hb_pending {
    uint32_t *regs;
    uint32_t taddr;
    uint16_t shape; /* tmem_emu's TMEM_EMU_LD_* */
    uint16_t n;
} tmem_hb_pending;

typedef struct tmem_hb_thread_regs {
    uint32_t count;
    uint32_t pad[3];
    tmem_hb_pending p[TMEM_HB_PENDING];
} tmem_hb_thread_regs;

typedef struct tmem_hb_globals {
    tmem_hb_cluster *clusters; /* [TMEM_HB_MAX_CLUSTERS] */
    unsigned long long *names; /* [TMEM_HB_NAMES] addresses of the barrier name strings; id = index + 1 */
    tmem_hb_thread_regs *regs; /* [TMEM_HB_REG_CTAS][TMEM_HB_REG_THREADS] */
    uint32_t *notes;           /* [0]: a "not tracked" note was printed */
    tmem_emu_error *error;     /* the emulation's host-mapped record */
    uint32_t enabled;          /* happens-before tracking on (WSGEMM_TMEM_HB=1; off by default) */
    uint32_t pad;
} tmem_hb_globals;

/* One copy per translation unit, as the emulation's own state; tmem_host_prepare fills it. */
static __constant__ tmem_hb_globals c_tmem_hb;

/* ================================================================ where the calling thread is */

static __device__ __forceinline__ uint32_t tmem_hb_special(int which)
{
    uint32_t r = 0;
    switch (which) { /* PTX ISA "Special Registers": %cluster_ctarank, %cluster_nctarank, %clusterid, %nclusterid */
    case 0: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); break;
    case 1: asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r)); break;
    case 2: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r)); break;
    case 3: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(r)); break;
    case 4: asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(r)); break;
    case 5: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r)); break;
    default: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(r)); break;
    }
    return r;
}

static __device__ __forceinline__ uint32_t tmem_hb_rank(void)
{
    return tmem_hb_special(0);
}

static __device__ __forceinline__ uint32_t tmem_hb_cta_threads(void)
{
    return blockDim.x * blockDim.y * blockDim.z;
}

static __device__ __forceinline__ uint32_t tmem_hb_agent_index(void)
{
    return tmem_hb_rank() * ((tmem_hb_cta_threads() + 31u) / 32u) + tmem_emu_warp_index();
}

static __device__ __noinline__ void tmem_hb_note_untracked(const char *why)
{
    if (c_tmem_hb.notes && atomicExch(c_tmem_hb.notes, 1u) == 0u)
        printf("TMEM-EMU NOTE: happens-before tracking skips a cluster: %s (block (%u,%u,%u))\n", why, blockIdx.x,
               blockIdx.y, blockIdx.z);
}

/* This thread's cluster state, or NULL when tracking is off or the cluster is beyond the tables. */
static __device__ __forceinline__ tmem_hb_cluster *tmem_hb_my_cluster(void)
{
    if (!c_tmem_hb.enabled) return 0;
    uint32_t id =
        tmem_hb_special(2) + tmem_hb_special(5) * (tmem_hb_special(3) + tmem_hb_special(6) * tmem_hb_special(4));
    if (id >= TMEM_HB_MAX_CLUSTERS || tmem_hb_special(1) > TMEM_HB_MAX_RANKS ||
        tmem_hb_special(1) * ((tmem_hb_cta_threads() + 31u) / 32u) > TMEM_HB_MAX_AGENTS) {
        tmem_hb_note_untracked("more clusters, CTAs per cluster or warps than the tables hold");
        return 0;
    }
    tmem_hb_cluster *cl = &c_tmem_hb.clusters[id];
    if (*(volatile uint32_t *)&cl->untracked) return 0;
    return cl;
}

/* How long a thread may wait for a lock of the tables before it reports HB_LOCK_TIMEOUT: every critical
 * section is a few hundred loads and stores by one lane, microseconds even under a sanitizer, so a lock held
 * this long means its holder cannot run (a hang of the tracking itself, which the report turns into the
 * lock's place and its holder instead of a kernel that never ends). */
#define TMEM_HB_LOCK_NS 5000000000ull

/* A taken lock holds its holder: (linear block id << 10 | thread index in the block) + 1. */
static __device__ __forceinline__ int tmem_hb_holder_id(void)
{
    return (int)(((tmem_emu_block_linear() << 10) | (tmem_emu_thread_linear() & 1023u)) + 1u);
}

/* Which lock of a cluster's record sits at byte `offset`: *kind (0 agent of warp *index, 1 the cluster
 * barrier, 2 mbarrier slot, 3 named barrier, 4 TMEM cells of lane quarter *index, 5 shared-memory blocks,
 * 6 none of these) and, for 2..5, the CTA rank *rank. */
static __device__ __forceinline__ void tmem_hb_lock_place(uint32_t offset, uint32_t *kind, uint32_t *rank,
                                                          uint32_t *index)
{
    const uint32_t agents = (uint32_t)offsetof(tmem_hb_cluster, agents),
                   ctas = (uint32_t)offsetof(tmem_hb_cluster, cta);
    *kind = 6u;
    *rank = *index = 0u;
    if (offset >= agents && offset < agents + sizeof(((tmem_hb_cluster *)0)->agents)) {
        *kind = 0u;
        *index = (offset - agents) / (uint32_t)sizeof(tmem_hb_agent_slot);
    } else if (offset == (uint32_t)(offsetof(tmem_hb_cluster, cluster_bar) + offsetof(tmem_hb_barrier, lock))) {
        *kind = 1u;
    } else if (offset >= ctas) {
        const uint32_t o = (offset - ctas) % (uint32_t)sizeof(tmem_hb_cta);
        *rank = (offset - ctas) / (uint32_t)sizeof(tmem_hb_cta);
        if (o >= offsetof(tmem_hb_cta, mbar) && o < offsetof(tmem_hb_cta, named)) {
            *kind = 2u;
            *index = (o - (uint32_t)offsetof(tmem_hb_cta, mbar)) / (uint32_t)sizeof(tmem_hb_barrier);
        } else if (o >= offsetof(tmem_hb_cta, named) && o < offsetof(tmem_hb_cta, cell_lock)) {
            *kind = 3u;
            *index = (o - (uint32_t)offsetof(tmem_hb_cta, named)) / (uint32_t)sizeof(tmem_hb_barrier);
        } else if (o >= offsetof(tmem_hb_cta, cell_lock) && o < offsetof(tmem_hb_cta, cells)) {
            *kind = 4u;
            *index = (o - (uint32_t)offsetof(tmem_hb_cta, cell_lock)) / 4u;
        } else if (o == offsetof(tmem_hb_cta, smem_lock)) {
            *kind = 5u;
        }
    }
}

static __device__ __noinline__ void tmem_hb_lock_timeout(const int *l, int holder)
{
    static const char *const kinds[7] = {"agent of warp (cluster-wide index)",
                                         "cluster barrier",
                                         "mbarrier slot",
                                         "named barrier",
                                         "TMEM cells of lane quarter",
                                         "shared-memory blocks",
                                         "?"};
    const size_t at = (size_t)((const char *)l - (const char *)c_tmem_hb.clusters);
    const uint32_t cluster = (uint32_t)(at / sizeof(tmem_hb_cluster)),
                   offset = (uint32_t)(at % sizeof(tmem_hb_cluster));
    const uint32_t h = (uint32_t)holder - 1u;
    uint32_t kind, rank, index;
    tmem_hb_lock_place(offset, &kind, &rank, &index);
    tmem_emu_write_record(c_tmem_hb.error, TMEM_EMU_ERR_HB_LOCK_TIMEOUT, offset, h, cluster);
    printf("TMEM-EMU ERROR HB_LOCK_TIMEOUT: the happens-before lock of the %s %u (CTA rank %u; cluster %u, byte %u "
           "of its record) not obtained in %llu s; holder at the last try: block %u thread %u; waiter: block "
           "(%u,%u,%u) thread %u\n",
           kinds[kind], index, rank, cluster, offset, TMEM_HB_LOCK_NS / 1000000000ull, h >> 10, h & 1023u, blockIdx.x,
           blockIdx.y, blockIdx.z, tmem_emu_thread_linear());
    __trap();
}

static __device__ __noinline__ void tmem_hb_lock_wait(int *l, int me)
{
    const uint64_t t0 = tmem_emu_globaltimer();
    int holder;
    while ((holder = atomicCAS(l, 0, me)) != 0) {
        if (tmem_emu_globaltimer() - t0 > TMEM_HB_LOCK_NS) tmem_hb_lock_timeout(l, holder);
        __nanosleep(20);
    }
}

static __device__ __forceinline__ void tmem_hb_lock(int *l)
{
    const int me = tmem_hb_holder_id();
    if (atomicCAS(l, 0, me) != 0) tmem_hb_lock_wait(l, me);
    __threadfence();
}

static __device__ __forceinline__ void tmem_hb_unlock(int *l)
{
    __threadfence();
    atomicExch(l, 0);
}

static __device__ __noinline__ void tmem_hb_set_untracked(tmem_hb_cluster *cl, const char *why)
{
    atomicExch(&cl->untracked, 1u);
    tmem_hb_note_untracked(why);
}

/* A fresh clock component of the cluster, or HB_NO_COMPONENT (then the cluster stops being tracked). */
static __device__ __forceinline__ uint32_t tmem_hb_new_component(tmem_hb_cluster *cl)
{
    uint32_t c = atomicAdd(&cl->next_comp, 1u);
    if (c < HB_COMPONENTS) return c;
    tmem_hb_set_untracked(cl, "more agents than clock components");
    return HB_NO_COMPONENT;
}

/* The calling warp's agent, locked (NULL if untracked). `pipe`: 1 load pipe, 2 tensor pipe, 3 copy pipe
 * needed. */
static __device__ __noinline__ tmem_hb_agent_slot *tmem_hb_agent_lock(tmem_hb_cluster *cl, int pipe)
{
    tmem_hb_agent_slot *slot = &cl->agents[tmem_hb_agent_index()];
    tmem_hb_lock(&slot->lock);
    volatile hb_agent *a = &slot->a;
    if (!*(volatile uint32_t *)&slot->ready) {
        uint32_t self = tmem_hb_new_component(cl);
        hb_agent_init(a, self, tmem_hb_rank(), tmem_emu_warp_index());
        *(volatile uint32_t *)&slot->ready = 1u;
    }
    if (pipe == 1 && a->ld_pipe == HB_NO_COMPONENT) a->ld_pipe = (uint8_t)tmem_hb_new_component(cl);
    if (pipe == 2 && a->mma_pipe == HB_NO_COMPONENT) a->mma_pipe = (uint8_t)tmem_hb_new_component(cl);
    if (pipe == 3 && a->tma_pipe == HB_NO_COMPONENT) a->tma_pipe = (uint8_t)tmem_hb_new_component(cl);
    if (*(volatile uint32_t *)&cl->untracked) {
        tmem_hb_unlock(&slot->lock);
        return 0;
    }
    return slot;
}

/* The calling warp's cluster (into *cl) and its agent, locked; NULL when tracking is off or untracked. */
static __device__ __forceinline__ tmem_hb_agent_slot *tmem_hb_my_agent(tmem_hb_cluster **cl, int pipe)
{
    *cl = c_tmem_hb.enabled ? tmem_hb_my_cluster() : 0;
    return *cl ? tmem_hb_agent_lock(*cl, pipe) : 0;
}

/* The record of the mbarrier at shared-memory offset `offset` of CTA `rank` (insert: at its init). */
static __device__ __noinline__ tmem_hb_barrier *tmem_hb_mbar(tmem_hb_cluster *cl, uint32_t rank, uint32_t offset,
                                                             int insert)
{
    if (rank >= TMEM_HB_MAX_RANKS) return 0;
    tmem_hb_barrier *table = cl->cta[rank].mbar;
    uint32_t key = offset + 1u, h = (offset >> 3) % TMEM_HB_MBARRIERS;
    HB_LOOP
    for (uint32_t i = 0; i < TMEM_HB_MBARRIERS; i++) {
        tmem_hb_barrier *b = &table[(h + i) % TMEM_HB_MBARRIERS];
        uint32_t k = *(volatile uint32_t *)&b->key;
        if (k == key) return b;
        if (k == 0u) {
            if (!insert) return 0;
            uint32_t old = atomicCAS(&b->key, 0u, key);
            if (old == 0u || old == key) return b;
        }
    }
    if (insert) tmem_hb_set_untracked(cl, "more mbarriers than the table holds (TMEM_HB_MBARRIERS per CTA)");
    return 0;
}

/* The offset of a shared::cta address inside its CTA's shared memory. On sm_90 a CTA of a cluster sees its
 * own shared memory at (CTA id in the cluster << 24) + offset (ptxas computes cvta.to.shared as
 * S2R SR_CgaCtaId; LEA ..., 0x18), so the two CTAs of a pair get different 32-bit addresses for the same
 * barrier; the tables are keyed by the offset, the part both CTAs (and mapa) agree on. */
static __device__ __forceinline__ uint32_t tmem_hb_offset(uint32_t smem_addr)
{
    return smem_addr & 0x00FFFFFFu;
}

static __device__ __forceinline__ uint32_t tmem_hb_smem_offset(const void *p)
{
    return tmem_hb_offset((uint32_t)__cvta_generic_to_shared(p));
}

/* ================================================================ race reports */

static __device__ __forceinline__ const char *tmem_hb_name(uint32_t id)
{
    if (id == 0u || id > TMEM_HB_NAMES || !c_tmem_hb.names) return "?";
    return (const char *)(uintptr_t)c_tmem_hb.names[id - 1u];
}

/* The two sites of a report and the names of the barriers they waited on, into the host's error record. */
static __device__ __forceinline__ void tmem_hb_record_sites(tmem_emu_error *e, const hb_site *earlier,
                                                            const hb_site *later)
{
    if (!e) return;
    volatile tmem_emu_error *ve = e;
    const hb_site *sites[2] = {earlier, later};
    HB_LOOP
    for (int i = 0; i < 2; i++) {
        hb_site_copy(&ve->site[i], sites[i]);
        const char *n = sites[i]->wait_name ? tmem_hb_name(sites[i]->wait_name) : "";
        int j = 0;
        HB_LOOP
        for (; j < TMEM_EMU_NAME_CHARS - 1 && n[j]; j++) ve->wait_name[i][j] = n[j];
        ve->wait_name[i][j] = '\0';
    }
}

static __device__ __noinline__ void tmem_hb_report_race(const hb_site *earlier, const hb_site *later,
                                                        uint32_t tmem_rank, uint32_t cell_lane, uint32_t cell_col)
{
    tmem_emu_error *e = c_tmem_hb.error;
    tmem_hb_record_sites(e, earlier, later);
    tmem_emu_write_record(e, TMEM_EMU_ERR_RACE, cell_lane, cell_col, tmem_rank);
    /* the whole report (both sites, barrier names) is the host's: tmem_host_last_error */
    printf("TMEM-EMU ERROR RACE: %s by CTA rank %u warp %u (columns %u..%u) and %s by CTA rank %u warp %u (columns "
           "%u..%u) not ordered by happens-before, at TMEM lanes %d.. (-1: shared memory) column/offset %u.. of CTA "
           "rank %u; block (%u,%u,%u)\n",
           hb_kind_name(earlier->kind), (unsigned)earlier->cta, (unsigned)earlier->warp, (unsigned)earlier->col0,
           (unsigned)earlier->col0 + earlier->ncols - 1u, hb_kind_name(later->kind), (unsigned)later->cta,
           (unsigned)later->warp, (unsigned)later->col0, (unsigned)later->col0 + later->ncols - 1u, (int)cell_lane,
           cell_col, tmem_rank, blockIdx.x, blockIdx.y, blockIdx.z);
    __trap();
}

/* An mbarrier used (arrive, wait, commit) without its init ordered before the use, or never initialised
 * (init->kind HB_NONE). */
static __device__ __noinline__ void tmem_hb_report_init(const hb_site *init, const hb_site *use)
{
    tmem_emu_error *e = c_tmem_hb.error;
    if (e) {
        volatile tmem_emu_error *ve = e;
        hb_site_copy(&ve->site[0], init);
        hb_site_copy(&ve->site[1], use);
        ve->wait_name[0][0] = ve->wait_name[1][0] = '\0';
    }
    tmem_emu_write_record(e, TMEM_EMU_ERR_MBARRIER_INIT, (uint32_t)use->col0 * 8u, use->tmem_cta, init->kind);
    printf("TMEM-EMU ERROR MBARRIER_INIT: the mbarrier at shared offset %u of CTA rank %u is used by CTA rank %u "
           "warp %u %s; block (%u,%u,%u)\n",
           (unsigned)use->col0 * 8u, (unsigned)use->tmem_cta, (unsigned)use->cta, (unsigned)use->warp,
           init->kind == HB_NONE ? "but was never initialised (mbarrier_init)"
                                 : "without its mbarrier.init ordered before (fence.mbarrier_init + a barrier)",
           blockIdx.x, blockIdx.y, blockIdx.z);
    __trap();
}

/* The site of a use of the mbarrier at `offset` of CTA `rank` by the (locked) agent. */
static __device__ __forceinline__ hb_site tmem_hb_use_site(const volatile hb_agent *a, uint32_t rank, uint32_t offset)
{
    return hb_agent_site(a, HB_MBAR_USE, a->self, a->self < HB_COMPONENTS ? a->vc.c[a->self] : 0u, rank, 0u, 0u,
                         offset >> 3, 0u);
}

/* A use (`use`, by an agent at clock *vc) of barrier b (NULL: never initialised) must come after its init. */
static __device__ __noinline__ void tmem_hb_check_init(tmem_hb_barrier *b, const hb_site *use, const hb_vc *vc)
{
    hb_site init;
    hb_site_clear(&init);
    int bad = b == 0;
    if (b) {
        tmem_hb_lock(&b->lock);
        bad = hb_sync_check_init(&b->s, vc, &init);
        tmem_hb_unlock(&b->lock);
    }
    if (bad) tmem_hb_report_init(&init, use);
}

/* One access on the cells of CTA `tmem_rank`, quarter by quarter under the quarter's lock. */
static __device__ __noinline__ void tmem_hb_cells_access(tmem_hb_cluster *cl, uint32_t tmem_rank, enum hb_op op,
                                                         const hb_vc *start, const hb_site *me)
{
    if (tmem_rank >= TMEM_HB_MAX_RANKS) return;
    tmem_hb_cta *c = &cl->cta[tmem_rank];
    uint32_t q0 = me->lane0 / 32u, q1 = (me->lane0 + me->nlanes - 1u) / 32u;
    HB_LOOP
    for (uint32_t q = q0; q <= q1 && q < HB_QUARTERS; q++) {
        hb_site earlier;
        unsigned cell_col = 0;
        tmem_hb_lock(&c->cell_lock[q]);
        int race = hb_tmem_quarter_access(c->cells + q * HB_CELL_UNITS, op, me->col0, me->ncols, start, me, &earlier,
                                          &cell_col);
        tmem_hb_unlock(&c->cell_lock[q]);
        if (race) {
            hb_site later = *me;
            later.tmem_cta = (uint8_t)tmem_rank;
            tmem_hb_report_race(&earlier, &later, tmem_rank, q * 32u, cell_col);
        }
    }
}

/* ================================================================ how the lanes of a warp take part in a hook

 * The hooks of sync/ run wherever their wrapper runs: in the whole warp (the epilogue's 128 threads arriving
 * on acc_empty, a named or cluster barrier, a fence) or in any subset of it (the elected lane that arrives or
 * waits, lanes that left a wait loop at different times). Nothing here assumes the warp is converged, and no
 * decision depends on whether the momentary active mask is all 32 lanes: on sm_90 a complete warp can run as
 * several groups for a long time (a lane-0 branch that spins on a lock may let the other lanes past the
 * reconvergence point, and a later __syncwarp() synchronises the groups without merging them). So each group
 * of lanes that reaches the hook together (mask = __activemask()) takes part on its own: the lanes of the
 * group with the same key (__match_any_sync over the group) are one update by their lowest lane, acting for
 * all of them, and the group leaves together (__syncwarp(mask), legal: every lane of mask executes it). A
 * group of 32 lanes costs one update; a warp split into groups costs one per group, with the same result.
 * The bookkeeping itself (the *_do functions) uses no warp-wide intrinsic: one lane runs it. Begin and end
 * are not inlined, so each warp-wide intrinsic is one instruction in the program: lanes of one warp waiting
 * at two copies of a __syncwarp do not release each other on sm_90 (sync/wait.cuh). */
typedef struct tmem_hb_share {
    uint32_t mask;   /* the lanes that arrived together */
    uint32_t leader; /* the lowest lane of this lane's key group */
    uint32_t lanes;  /* lanes the calling lane acts for: the key group's size in its leader, 0 elsewhere */
} tmem_hb_share;

static __device__ __noinline__ tmem_hb_share tmem_hb_share_begin(unsigned long long key)
{
    tmem_hb_share sh;
    sh.mask = __activemask();
    const uint32_t peers = __match_any_sync(sh.mask, key);
    sh.leader = (uint32_t)__ffs(peers) - 1u;
    sh.lanes = tmem_emu_laneid() == sh.leader ? (uint32_t)__popc(peers) : 0u;
    return sh;
}

static __device__ __noinline__ void tmem_hb_share_end(const tmem_hb_share *sh)
{
    __syncwarp(sh->mask);
}

/* ================================================================ barrier hooks (sync/) */

static __device__ __noinline__ void tmem_hb_mbarrier_init_do(uint32_t offset, uint32_t count)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    if (!cl) return;
    tmem_hb_barrier *b = tmem_hb_mbar(cl, tmem_hb_rank(), offset, 1);
    tmem_hb_agent_slot *slot = b ? tmem_hb_agent_lock(cl, 0) : 0;
    if (!slot) return;
    hb_site init = hb_agent_site(&slot->a, HB_MBAR_INIT, slot->a.self, slot->a.vc.c[slot->a.self], tmem_hb_rank(), 0u,
                                 0u, offset >> 3, 0u);
    tmem_hb_unlock(&slot->lock);
    tmem_hb_lock(&b->lock);
    hb_sync_init(&b->s, count);
    hb_sync_mark_init(&b->s, &init);
    tmem_hb_unlock(&b->lock);
}

/* mbarrier.init: one thread per barrier (a warp-wide init of one barrier is not a pattern anyone writes). */
static __device__ __forceinline__ void tmem_hb_on_mbarrier_init(const uint64_t *bar_smem, uint32_t count)
{
    if (c_tmem_hb.enabled) tmem_hb_mbarrier_init_do(tmem_hb_smem_offset(bar_smem), count);
}

static __device__ __noinline__ void tmem_hb_arrive_do(uint32_t target_rank, uint32_t offset, uint32_t n, int release)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    if (!cl) return;
    tmem_hb_barrier *b = tmem_hb_mbar(cl, target_rank, offset, 0);
    tmem_hb_agent_slot *slot = tmem_hb_agent_lock(cl, 0);
    if (!slot) return;
    hb_vc released;
    hb_site use = tmem_hb_use_site(&slot->a, target_rank, offset);
    hb_agent_release(&slot->a, &released); /* a relaxed arrival publishes nothing; its clock moving on is harmless */
    tmem_hb_unlock(&slot->lock);
    tmem_hb_check_init(b, &use, &released);
    tmem_hb_lock(&b->lock);
    hb_sync_arrive(&b->s, n, release ? &released : 0);
    tmem_hb_unlock(&b->lock);
}

/* An arrival (per lane: `per_lane` of them) on the mbarrier at `offset` in CTA `target_rank` of the cluster;
 * release = 0 for an arrival that orders nothing. Before the real arrive, so a waiter that saw the phase
 * complete finds it recorded. */
static __device__ __forceinline__ void tmem_hb_on_arrive(uint32_t target_rank, uint32_t offset, uint32_t per_lane,
                                                         int release)
{
    if (!c_tmem_hb.enabled) return;
    offset = tmem_hb_offset(offset);
    const tmem_hb_share sh =
        tmem_hb_share_begin(((unsigned long long)per_lane << 40) | ((unsigned long long)target_rank << 32) | offset);
    if (sh.lanes) tmem_hb_arrive_do(target_rank, offset, per_lane * sh.lanes, release);
    tmem_hb_share_end(&sh);
}

static __device__ __forceinline__ void tmem_hb_on_arrive_local(const uint64_t *bar_smem, uint32_t per_lane)
{
    if (c_tmem_hb.enabled) tmem_hb_on_arrive(tmem_hb_rank(), tmem_hb_smem_offset(bar_smem), per_lane, 1);
}

static __device__ __noinline__ uint32_t tmem_hb_name_id(const char *name)
{
    if (!name || !c_tmem_hb.names) return 0;
    unsigned long long p = (unsigned long long)(uintptr_t)name;
    HB_LOOP
    for (uint32_t i = 0; i < TMEM_HB_NAMES; i++) {
        unsigned long long v = *(volatile unsigned long long *)&c_tmem_hb.names[i];
        if (v == p) return i + 1u;
        if (v == 0ull) {
            unsigned long long old = atomicCAS(&c_tmem_hb.names[i], 0ull, p);
            if (old == 0ull || old == p) return i + 1u;
        }
    }
    return 0;
}

/* A wait observed the phase of parity `parity` of this CTA's barrier at `offset`: acquire it, and remember
 * the barrier's name for the sites of the warp's later accesses. */
static __device__ __noinline__ void tmem_hb_wait_do(uint32_t offset, uint32_t parity, const char *name, uint32_t index)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    if (!cl) return;
    uint32_t id = tmem_hb_name_id(name);
    tmem_hb_barrier *b = tmem_hb_mbar(cl, tmem_hb_rank(), offset, 0);
    tmem_hb_agent_slot *slot = tmem_hb_agent_lock(cl, 0);
    if (!slot) return;
    hb_vc before;
    hb_vc_copy(&before, &slot->a.vc);
    hb_site use = tmem_hb_use_site(&slot->a, tmem_hb_rank(), offset);
    tmem_hb_unlock(&slot->lock);
    tmem_hb_check_init(b, &use, &before); /* the waiter itself, before what it acquires */
    hb_vc acquired;
    hb_vc_clear(&acquired);
    tmem_hb_lock(&b->lock);
    hb_sync_acquire_parity(&b->s, parity, &acquired);
    tmem_hb_unlock(&b->lock);
    slot = tmem_hb_agent_lock(cl, 0);
    if (!slot) return;
    hb_agent_acquire(&slot->a, &acquired);
    hb_agent_note_wait(&slot->a, id, index, parity);
    tmem_hb_unlock(&slot->lock);
}

/* mbarrier_wait (sync/wait.cuh) returned: the phase of parity `parity` completed. Called after the wait
 * loop, by the lanes that waited (not inside the loop, where lanes leave at different iterations). */
static __device__ __forceinline__ void tmem_hb_on_wait(const uint64_t *bar_smem, uint32_t parity, const char *name,
                                                       uint32_t index)
{
    if (!c_tmem_hb.enabled) return;
    const uint32_t offset = tmem_hb_smem_offset(bar_smem);
    const tmem_hb_share sh = tmem_hb_share_begin(((unsigned long long)parity << 32) | offset);
    if (sh.lanes) tmem_hb_wait_do(offset, parity, name, index);
    tmem_hb_share_end(&sh);
}

/* Arrival of `n` threads on a barrier whose phase is `count` threads (named barriers, the cluster
 * barrier); release = 0: counts only. Returns the phase, or ~0u when untracked. */
static __device__ __noinline__ uint32_t tmem_hb_count_arrive(tmem_hb_cluster *cl, tmem_hb_barrier *b, uint32_t count,
                                                             uint32_t n, int release, tmem_hb_agent_slot **slot_out)
{
    hb_vc released;
    tmem_hb_agent_slot *slot = tmem_hb_agent_lock(cl, 0);
    if (!slot) return ~0u;
    if (release) hb_agent_release(&slot->a, &released);
    tmem_hb_unlock(&slot->lock);
    *slot_out = slot;
    uint32_t phase = ~0u;
    tmem_hb_lock(&b->lock);
    if (b->s.count == 0u) hb_sync_init(&b->s, count);
    if (b->s.count == count) /* a barrier reused with another thread count is not tracked */
        phase = hb_sync_arrive(&b->s, n, release ? &released : 0);
    tmem_hb_unlock(&b->lock);
    return phase;
}

static __device__ __noinline__ void tmem_hb_phase_acquire(tmem_hb_cluster *cl, tmem_hb_barrier *b, uint32_t phase)
{
    if (phase == ~0u) return;
    hb_vc acquired;
    hb_vc_clear(&acquired);
    tmem_hb_lock(&b->lock);
    hb_sync_acquire_phase(&b->s, phase, &acquired);
    tmem_hb_unlock(&b->lock);
    tmem_hb_agent_slot *slot = tmem_hb_agent_lock(cl, 0);
    if (!slot) return;
    hb_agent_acquire(&slot->a, &acquired);
    tmem_hb_unlock(&slot->lock);
}

static __device__ __noinline__ uint32_t tmem_hb_named_arrive_do(uint32_t id, uint32_t nthreads, uint32_t n)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    tmem_hb_agent_slot *slot;
    if (!cl || id >= TMEM_HB_NAMED) return ~0u;
    return tmem_hb_count_arrive(cl, &cl->cta[tmem_hb_rank()].named[id], nthreads, n, 1, &slot);
}

static __device__ __noinline__ void tmem_hb_named_acquire_do(uint32_t id, uint32_t phase)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    if (cl && id < TMEM_HB_NAMED) tmem_hb_phase_acquire(cl, &cl->cta[tmem_hb_rank()].named[id], phase);
}

static __device__ __noinline__ void tmem_hb_cluster_arrive_do(int release, uint32_t n)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    tmem_hb_agent_slot *slot;
    if (!cl) return;
    uint32_t phase =
        tmem_hb_count_arrive(cl, &cl->cluster_bar, tmem_hb_special(1) * tmem_hb_cta_threads(), n, release, &slot);
    if (phase != ~0u) *(volatile uint32_t *)&slot->cluster_phase = phase;
}

static __device__ __noinline__ void tmem_hb_cluster_wait_do(void)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    if (cl)
        tmem_hb_phase_acquire(cl, &cl->cluster_bar,
                              *(volatile uint32_t *)&cl->agents[tmem_hb_agent_index()].cluster_phase);
}

/* bar.arrive / bar.sync on named barrier `id` of `nthreads` threads (.aligned: the whole warp, converged).
 * Returns the phase for tmem_hb_named_acquire (the same in every lane). */
static __device__ __forceinline__ uint32_t tmem_hb_named_arrive(uint32_t id, uint32_t nthreads)
{
    if (!c_tmem_hb.enabled) return ~0u;
    const tmem_hb_share sh = tmem_hb_share_begin(id);
    uint32_t phase = ~0u;
    if (sh.lanes) phase = tmem_hb_named_arrive_do(id, nthreads, sh.lanes);
    phase = __shfl_sync(sh.mask, phase, sh.leader); /* the leader arrived for its group */
    tmem_hb_share_end(&sh);
    return phase;
}

static __device__ __forceinline__ void tmem_hb_named_acquire(uint32_t id, uint32_t phase)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(((unsigned long long)phase << 32) | id);
    if (sh.lanes && phase != ~0u) tmem_hb_named_acquire_do(id, phase);
    tmem_hb_share_end(&sh);
}

/* barrier.cluster.arrive (release = 0: .relaxed). Every thread of the cluster arrives once per phase. */
static __device__ __forceinline__ void tmem_hb_cluster_arrive(int release)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_cluster_arrive_do(release, sh.lanes);
    tmem_hb_share_end(&sh);
}

/* barrier.cluster.wait: acquire the phase this warp arrived on. */
static __device__ __forceinline__ void tmem_hb_cluster_wait(void)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_cluster_wait_do();
    tmem_hb_share_end(&sh);
}

/* ================================================================ tcgen05 hooks (tmem/) */

static __device__ __noinline__ void tmem_hb_fence_do(int before)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    if (before)
        hb_fence_before_thread_sync(&slot->a);
    else
        hb_fence_after_thread_sync(&slot->a);
    tmem_hb_unlock(&slot->lock);
}

/* tcgen05.fence::before_thread_sync (before = 1) or ::after_thread_sync, by any lanes of the warp. */
static __device__ __forceinline__ void tmem_hb_fence(int before)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_fence_do(before);
    tmem_hb_share_end(&sh);
}

/* The TMEM hooks below are called by ONE lane (the emulation's reporting lane, or the issuing thread). */

/* A synchronous access of the warp (alloc: op HB_OP_ALLOC, dealloc: HB_OP_FREE) on columns
 * [col, col + ncols) of all 128 lanes, in this CTA and, with `pair`, in the other CTA of the pair too. */
static __device__ __noinline__ void tmem_hb_sync_access(enum hb_op op, unsigned kind, uint32_t col, uint32_t ncols,
                                                        int pair)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    hb_vc start;
    uint32_t rank = tmem_hb_rank();
    uint32_t t = hb_sync_access_issue(&slot->a, &start);
    hb_site me = hb_agent_site(&slot->a, kind, slot->a.self, t, rank, 0u, 128u, col, ncols);
    tmem_hb_unlock(&slot->lock);
    tmem_hb_cells_access(cl, rank, op, &start, &me);
    if (pair) tmem_hb_cells_access(cl, rank ^ 1u, op, &start, &me);
}

static __device__ __forceinline__ void tmem_hb_alloc(uint32_t col, uint32_t ncols)
{
    if (c_tmem_hb.enabled) tmem_hb_sync_access(HB_OP_ALLOC, HB_ALLOC, col, ncols, 0);
}

/* cta_group 2: the pair's allocation is one collective resource (as the emulation's allocator models it),
 * so the dealloc must come after the accesses of both CTAs. */
static __device__ __forceinline__ void tmem_hb_dealloc(uint32_t col, uint32_t ncols, uint32_t cg)
{
    if (c_tmem_hb.enabled) tmem_hb_sync_access(HB_OP_FREE, HB_DEALLOC, col, ncols, cg == 2u);
}

/* tcgen05.ld of lanes [lane0, lane0 + nlanes) x columns [col, col + ncols) of this CTA's TMEM. */
static __device__ __noinline__ void tmem_hb_ld(uint32_t lane0, uint32_t nlanes, uint32_t col, uint32_t ncols)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 1);
    if (!slot) return;
    hb_vc start;
    uint32_t t = hb_ld_issue(&slot->a, &start);
    hb_site me = hb_agent_site(&slot->a, HB_LD, slot->a.ld_pipe, t, tmem_hb_rank(), lane0, nlanes, col, ncols);
    tmem_hb_unlock(&slot->lock);
    tmem_hb_cells_access(cl, tmem_hb_rank(), HB_OP_READ, &start, &me);
}

static __device__ __noinline__ void tmem_hb_wait_ld(void)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    hb_wait_ld(&slot->a);
    tmem_hb_unlock(&slot->lock);
}

/* An asynchronous tcgen05 read of CTA r's shared memory [smem_addr, smem_addr + bytes) (bytes 0: the block
 * smem_addr is in): after the last TMA copy into each of its blocks (hb_smem_tcgen05_read). */
static __device__ __noinline__ void tmem_hb_async_smem_read(tmem_hb_cluster *cl, uint32_t r, uint32_t smem_addr,
                                                            uint32_t bytes, const hb_vc *start, const hb_site *me)
{
    if (r >= TMEM_HB_MAX_RANKS) return;
    const uint32_t offset = tmem_hb_offset(smem_addr), first = offset / HB_SMEM_BLOCK_BYTES;
    uint32_t last = bytes ? (offset + bytes - 1u) / HB_SMEM_BLOCK_BYTES : first;
    if (last >= TMEM_HB_SMEM_BLOCKS) last = TMEM_HB_SMEM_BLOCKS - 1u;
    tmem_hb_cta *c = &cl->cta[r];
    HB_LOOP
    for (uint32_t k = first; k <= last; k++) {
        hb_site w;
        tmem_hb_lock(&c->smem_lock);
        const int verdict = hb_smem_tcgen05_read(&c->smem[k], start, &w);
        tmem_hb_unlock(&c->smem_lock);
        if (verdict != HB_SMEM_OK) tmem_hb_report_race(&w, me, r, ~0u, k * HB_SMEM_BLOCK_BYTES);
    }
}

/* The MMA's operand reads: after the last TMA copy into the block each descriptor starts in, in this CTA
 * and (cta_group 2, the peer's operands at the same offsets) in the peer. */
static __device__ __noinline__ void tmem_hb_mma_operands(tmem_hb_cluster *cl, uint32_t cg, uint32_t a_saddr,
                                                         uint32_t b_saddr, const hb_vc *start, const hb_site *me)
{
    uint32_t rank = tmem_hb_rank();
    HB_LOOP
    for (uint32_t i = 0; i < 2u * cg; i++)
        tmem_hb_async_smem_read(cl, i < 2u ? rank : rank ^ 1u, i % 2u ? b_saddr : a_saddr, 0u, start, me);
}

/* One access of columns [col, col + ncols) of all 128 lanes by the event of site *me (its kind, columns
 * and lanes are set here), in this CTA and, for cta_group 2, in the peer. */
static __device__ __noinline__ void tmem_hb_all_lanes_access(tmem_hb_cluster *cl, uint32_t cg, enum hb_op op,
                                                             unsigned kind, uint32_t col, uint32_t ncols,
                                                             const hb_vc *start, const hb_site *me)
{
    const uint32_t rank = tmem_hb_rank();
    hb_site s = *me;
    s.kind = (uint8_t)kind;
    s.col0 = (uint16_t)col;
    s.ncols = (uint16_t)ncols;
    s.lane0 = 0u;
    s.nlanes = 128u;
    tmem_hb_cells_access(cl, rank, op, start, &s);
    if (cg == 2u) tmem_hb_cells_access(cl, rank ^ 1u, op, start, &s);
}

/* tcgen05.mma (tmem_hb_mma, tmem_hb_mma_scaled): D at columns [col, col + n) of all 128 lanes, in both CTAs
 * for cta_group 2, A and B from shared memory at a_saddr, b_saddr; with sfa_ncols, sfb_ncols not 0 also the
 * scale-factor reads of columns [sfa_col, sfa_col + sfa_ncols) and [sfb_col, sfb_col + sfb_ncols). */
static __device__ __noinline__ void tmem_hb_mma_do(uint32_t col, uint32_t n, uint32_t cg, uint32_t a_saddr,
                                                   uint32_t b_saddr, uint32_t sfa_col, uint32_t sfa_ncols,
                                                   uint32_t sfb_col, uint32_t sfb_ncols)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 2);
    if (!slot) return;
    hb_vc start;
    uint32_t t = hb_mma_issue(&slot->a, &start);
    uint32_t rank = tmem_hb_rank();
    hb_site me = hb_agent_site(&slot->a, HB_MMA, slot->a.mma_pipe, t, rank, 0u, 128u, col, n);
    tmem_hb_unlock(&slot->lock);
    tmem_hb_mma_operands(cl, cg, a_saddr, b_saddr, &start, &me);
    if (sfa_ncols) tmem_hb_all_lanes_access(cl, cg, HB_OP_READ, HB_MMA_SCALES, sfa_col, sfa_ncols, &start, &me);
    if (sfb_ncols) tmem_hb_all_lanes_access(cl, cg, HB_OP_READ, HB_MMA_SCALES, sfb_col, sfb_ncols, &start, &me);
    tmem_hb_all_lanes_access(cl, cg, HB_OP_WRITE, HB_MMA, col, n, &start, &me);
}

/* tcgen05.mma writing D at columns [col, col + n) of all 128 lanes, in both CTAs for cta_group 2, reading A
 * and B from shared memory at a_saddr, b_saddr. */
static __device__ __noinline__ void tmem_hb_mma(uint32_t col, uint32_t n, uint32_t cg, uint32_t a_saddr,
                                                uint32_t b_saddr)
{
    tmem_hb_mma_do(col, n, cg, a_saddr, b_saddr, 0u, 0u, 0u, 0u);
}

/* tcgen05.mma ... .block_scale: as tmem_hb_mma, and it reads its scale factors, columns
 * [sfa_col, sfa_col + sfa_ncols) and [sfb_col, sfb_col + sfb_ncols) of all 128 lanes (the scales are
 * replicated into the four lane quarters), in this CTA and, for cta_group 2, in the peer (each CTA holds its
 * own SFA half and all of SFB). */
static __device__ __noinline__ void tmem_hb_mma_scaled(uint32_t col, uint32_t n, uint32_t cg, uint32_t a_saddr,
                                                       uint32_t b_saddr, uint32_t sfa_col, uint32_t sfa_ncols,
                                                       uint32_t sfb_col, uint32_t sfb_ncols)
{
    tmem_hb_mma_do(col, n, cg, a_saddr, b_saddr, sfa_col, sfa_ncols, sfb_col, sfb_ncols);
}

/* tcgen05.cp writing columns [col, col + ncols) of all 128 lanes (32x128b.warpx4 replicates its 32 lanes into
 * the four lane quarters) of this CTA and, for cta_group 2, of the peer (each CTA's columns from its own
 * shared memory at the same offset), reading shared memory [s_saddr, s_saddr + s_bytes): after the last TMA
 * copy into each block of it, in both CTAs for cta_group 2. An event of the tensor pipe started at
 * async_view alone (hb_cp_issue: not ordered after the thread's earlier MMAs and cps). */
static __device__ __noinline__ void tmem_hb_cp(uint32_t col, uint32_t ncols, uint32_t cg, uint32_t s_saddr,
                                               uint32_t s_bytes)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 2);
    if (!slot) return;
    hb_vc start;
    uint32_t t = hb_cp_issue(&slot->a, &start);
    uint32_t rank = tmem_hb_rank();
    hb_site me = hb_agent_site(&slot->a, HB_CP, slot->a.mma_pipe, t, rank, 0u, 128u, col, ncols);
    tmem_hb_unlock(&slot->lock);
    tmem_hb_async_smem_read(cl, rank, s_saddr, s_bytes, &start, &me);
    if (cg == 2u) tmem_hb_async_smem_read(cl, rank ^ 1u, s_saddr, s_bytes, &start, &me);
    tmem_hb_all_lanes_access(cl, cg, HB_OP_WRITE, HB_CP, col, ncols, &start, &me);
}

/* tcgen05.commit on the mbarrier at bar_smem's offset in this CTA (cta_mask 0) or in each CTA of the mask. */
static __device__ __noinline__ void tmem_hb_commit(const uint64_t *bar_smem, uint32_t cta_mask)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    hb_vc released;
    uint32_t offset = tmem_hb_smem_offset(bar_smem);
    hb_site use = tmem_hb_use_site(&slot->a, 0u, offset);
    hb_commit(&slot->a, &released);
    tmem_hb_unlock(&slot->lock);
    uint32_t mask = cta_mask ? cta_mask : (1u << tmem_hb_rank());
    HB_LOOP
    for (uint32_t r = 0; r < TMEM_HB_MAX_RANKS; r++) {
        if (!(mask & (1u << r))) continue;
        tmem_hb_barrier *b = tmem_hb_mbar(cl, r, offset, 0);
        use.tmem_cta = (uint8_t)r;
        tmem_hb_check_init(b, &use, &released);
        tmem_hb_lock(&b->lock);
        hb_sync_note_async_arrival(&b->s, hb_sync_arrive(&b->s, 1u, &released));
        tmem_hb_unlock(&b->lock);
    }
}

/* The CTA's last thread past tmem_cta_exit: every phase a tcgen05.commit arrived on must have been observed
 * by a wait of this CTA, or the (asynchronous) arrival could land after the CTA exited. */
static __device__ __noinline__ void tmem_hb_cta_exit_do(uint32_t n)
{
    tmem_hb_cluster *cl = tmem_hb_my_cluster();
    if (!cl) return;
    tmem_hb_cta *c = &cl->cta[tmem_hb_rank()];
    __threadfence();
    if (atomicAdd(&c->exited_threads, n) + n != tmem_hb_cta_threads()) return;
    __threadfence();
    HB_LOOP
    for (uint32_t i = 0; i < TMEM_HB_MBARRIERS; i++) {
        tmem_hb_barrier *b = &c->mbar[i];
        uint32_t key = *(volatile uint32_t *)&b->key;
        if (key == 0u) continue;
        tmem_hb_lock(&b->lock);
        int bad = hb_sync_unobserved_async(&b->s);
        uint32_t phase = (uint32_t)b->s.last_async_phase, seen = (uint32_t)b->s.max_observed_phase;
        tmem_hb_unlock(&b->lock);
        if (bad) {
            tmem_emu_write_record(c_tmem_hb.error, TMEM_EMU_ERR_UNOBSERVED_COMMIT, key - 1u, phase, seen);
            printf("TMEM-EMU ERROR UNOBSERVED_COMMIT: CTA rank %u exits while the tcgen05.commit arrival on phase %u "
                   "of its mbarrier at shared offset %u was never waited for (last phase observed: %d): it may land "
                   "after the exit (missing producer tail?); block (%u,%u,%u)\n",
                   tmem_hb_rank(), phase, key - 1u, (int)seen, blockIdx.x, blockIdx.y, blockIdx.z);
            __trap();
        }
    }
}

/* Every thread of the CTA, at the end of the kernel (tmem_cta_exit in tmem/tmem.cuh). */
static __device__ __forceinline__ void tmem_hb_cta_exit(void)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_cta_exit_do(sh.lanes);
    tmem_hb_share_end(&sh);
}

/* ================================================================ shared memory and the async proxy

 * The blocks (HB_SMEM_BLOCK_BYTES) of this CTA's shared memory that [smem_addr, smem_addr + bytes) touches
 * (bytes 0: the block smem_addr is in), clipped to the table: *block0, and the count returned. */
static __device__ __forceinline__ uint32_t tmem_hb_smem_blocks(uint32_t smem_addr, uint32_t bytes, uint32_t *block0)
{
    const uint32_t first = tmem_hb_offset(smem_addr) / HB_SMEM_BLOCK_BYTES;
    uint32_t last = bytes ? (tmem_hb_offset(smem_addr) + bytes - 1u) / HB_SMEM_BLOCK_BYTES : first;
    *block0 = first;
    if (first >= TMEM_HB_SMEM_BLOCKS) return 0;
    if (last >= TMEM_HB_SMEM_BLOCKS) last = TMEM_HB_SMEM_BLOCKS - 1u;
    return last - first + 1u;
}

/* A shared-memory access of the async-proxy model that found an unordered (verdict HB_SMEM_RACE) or an
 * unfenced (HB_SMEM_NO_FENCE) access recorded before it in block `block` of CTA `rank`. */
static __device__ __noinline__ void tmem_hb_report_proxy(int verdict, const hb_site *earlier, const hb_site *later,
                                                         uint32_t rank, uint32_t block)
{
    tmem_emu_error *e = c_tmem_hb.error;
    tmem_hb_record_sites(e, earlier, later);
    const uint32_t offset = block * HB_SMEM_BLOCK_BYTES;
    if (verdict == HB_SMEM_NO_FENCE) {
        tmem_emu_write_record(e, TMEM_EMU_ERR_PROXY_FENCE, offset, rank, 0u);
        printf("TMEM-EMU ERROR PROXY_FENCE: %s by CTA rank %u warp %u reads shared offset %u.. of CTA rank %u, written "
               "by %s of CTA rank %u warp %u without a fence.proxy.async.shared::cta ordered between the write and "
               "the store's issue; block (%u,%u,%u)\n",
               hb_kind_name(later->kind), (unsigned)later->cta, (unsigned)later->warp, offset, rank,
               hb_kind_name(earlier->kind), (unsigned)earlier->cta, (unsigned)earlier->warp, blockIdx.x, blockIdx.y,
               blockIdx.z);
    } else {
        tmem_emu_write_record(e, TMEM_EMU_ERR_ASYNC_PROXY_RACE, offset, rank, 0u);
        printf("TMEM-EMU ERROR ASYNC_PROXY_RACE: %s by CTA rank %u warp %u and %s by CTA rank %u warp %u not ordered "
               "by happens-before, at shared offset %u.. of CTA rank %u; block (%u,%u,%u)\n",
               hb_kind_name(earlier->kind), (unsigned)earlier->cta, (unsigned)earlier->warp, hb_kind_name(later->kind),
               (unsigned)later->cta, (unsigned)later->warp, offset, rank, blockIdx.x, blockIdx.y, blockIdx.z);
    }
    __trap();
}

/* Each of `nblocks` blocks from block0 of this CTA through one of hb.h's block functions under the CTA's
 * shared-memory lock: op 0 generic read, 1 generic write, 2 TMA copy in, 3 TMA store (group `group`).
 * The async-proxy hooks call it, and update blocks, with their agent still locked (lock order: the agent,
 * then the CTA's smem_lock; nothing takes them the other way): the lanes of a warp that diverged report as
 * separate events of the one agent and run interleaved, so a fence.proxy.async of some lanes must not fall
 * between another lane group's clock reading and its block update (the write would then carry the clock
 * before the fence and look unfenced). */
static __device__ __noinline__ void tmem_hb_smem_blocks_access(tmem_hb_cluster *cl, int op, uint32_t block0,
                                                               uint32_t nblocks, const hb_vc *start, const hb_site *me,
                                                               uint32_t group)
{
    const uint32_t rank = tmem_hb_rank();
    tmem_hb_cta *c = &cl->cta[rank];
    HB_LOOP
    for (uint32_t k = block0; k < block0 + nblocks; k++) {
        hb_site earlier;
        int verdict;
        tmem_hb_lock(&c->smem_lock);
        if (op <= 1)
            verdict = hb_smem_generic_access(&c->smem[k], op, start, me, &earlier);
        else if (op == 2)
            verdict = hb_smem_tma_load(&c->smem[k], start, me, &earlier);
        else
            verdict = hb_smem_tma_store(&c->smem[k], start, me, group, &earlier);
        tmem_hb_unlock(&c->smem_lock);
        if (verdict != HB_SMEM_OK) tmem_hb_report_proxy(verdict, &earlier, me, rank, k);
    }
}

/* A TMA copy of `bytes` (0: the block it starts in) into this CTA's shared memory at dst_smem that completes
 * on the mbarrier at bar_smem (both shared::cta addresses): by the issuing thread (its TMA wrapper, e.g.
 * gemm/common/tma.cuh). Its writes join the barrier's phase; it must be issued after the retirement of the
 * last TMA store reading its blocks and after their last generic accesses. */
static __device__ __noinline__ void tmem_hb_tma_load_do(uint32_t dst_smem, uint32_t bar_smem, uint32_t bytes)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 3);
    if (!slot) return;
    uint32_t block0, nblocks = tmem_hb_smem_blocks(dst_smem, bytes, &block0);
    uint32_t rank = tmem_hb_rank(), t = hb_tma_issue(&slot->a);
    unsigned comp = slot->a.tma_pipe;
    hb_vc start;
    hb_vc_copy(&start, &slot->a.vc);
    hb_site me = hb_agent_site(&slot->a, HB_TMA, comp, t, rank, 0u, 0u, block0, nblocks ? nblocks : 1u);
    tmem_hb_smem_blocks_access(cl, 2, block0, nblocks, &start, &me, 0u); /* the agent still locked */
    tmem_hb_unlock(&slot->lock);
    tmem_hb_barrier *b = tmem_hb_mbar(cl, rank, tmem_hb_offset(bar_smem), 0);
    if (b) {
        tmem_hb_lock(&b->lock);
        hb_sync_join_latest_phase(&b->s, comp, t);
        tmem_hb_unlock(&b->lock);
    }
}

static __device__ __forceinline__ void tmem_hb_tma_load_bytes(uint32_t dst_smem, uint32_t bar_smem, uint32_t bytes)
{
    if (c_tmem_hb.enabled) tmem_hb_tma_load_do(dst_smem, bar_smem, bytes);
}

/* The same for a copy whose size the wrapper does not know: the block dst_smem is in. */
static __device__ __forceinline__ void tmem_hb_tma_load(uint32_t dst_smem, uint32_t bar_smem)
{
    tmem_hb_tma_load_bytes(dst_smem, bar_smem, 0u);
}

/* A TMA store reading `bytes` (0: the block it starts in) of this CTA's shared memory at src_smem, by the
 * issuing thread: it joins the bulk async-group that the thread's next commit_group closes. */
static __device__ __noinline__ void tmem_hb_tma_store_do(uint32_t src_smem, uint32_t bytes)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    uint32_t block0, nblocks = tmem_hb_smem_blocks(src_smem, bytes, &block0), group = 0;
    hb_vc start;
    uint32_t t = hb_tma_store_issue(&slot->a, block0, nblocks, &start, &group);
    hb_site me = hb_agent_site(&slot->a, HB_TMA_STORE, slot->a.self, t, tmem_hb_rank(), 0u, 0u, block0, nblocks);
    if (t == 0u) {
        tmem_hb_unlock(&slot->lock);
        tmem_hb_set_untracked(cl, "more pending TMA stores per warp than the table holds (HB_BULK_PENDING)");
        return;
    }
    tmem_hb_smem_blocks_access(cl, 3, block0, nblocks, &start, &me, group);
    tmem_hb_unlock(&slot->lock);
}

static __device__ __forceinline__ void tmem_hb_tma_store(uint32_t src_smem, uint32_t bytes)
{
    if (c_tmem_hb.enabled) tmem_hb_tma_store_do(src_smem, bytes);
}

static __device__ __noinline__ void tmem_hb_bulk_commit_do(void)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    hb_bulk_commit(&slot->a);
    tmem_hb_unlock(&slot->lock);
}

/* cp.async.bulk.commit_group, by the lanes that issued the stores (one update per group of lanes: the
 * bulk async-groups are numbered per warp). */
static __device__ __forceinline__ void tmem_hb_bulk_commit(void)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_bulk_commit_do();
    tmem_hb_share_end(&sh);
}

static __device__ __noinline__ void tmem_hb_bulk_wait_do(uint32_t n)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    hb_bulk_store done[HB_BULK_PENDING];
    uint32_t count = 0, clock = 0;
    unsigned comp = slot->a.self, block0, nblocks;
    uint32_t group;
    while (count < HB_BULK_PENDING && hb_bulk_take_retired(&slot->a, n, &block0, &nblocks, &group, &clock)) {
        done[count].block0 = (uint16_t)block0;
        done[count].nblocks = (uint16_t)nblocks;
        done[count].group = group;
        count++;
    }
    tmem_hb_cta *c = &cl->cta[tmem_hb_rank()];
    HB_LOOP
    for (uint32_t i = 0; i < count; i++) {
        tmem_hb_lock(&c->smem_lock);
        HB_LOOP
        for (uint32_t k = done[i].block0; k < (uint32_t)done[i].block0 + done[i].nblocks; k++)
            hb_smem_retire(&c->smem[k], comp, done[i].group, clock);
        tmem_hb_unlock(&c->smem_lock);
    }
    tmem_hb_unlock(&slot->lock);
}

/* cp.async.bulk.wait_group[.read] n returned: every store of the warp's groups but the n most recent has
 * finished reading its source. */
static __device__ __forceinline__ void tmem_hb_bulk_wait(uint32_t n)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_bulk_wait_do(n);
    tmem_hb_share_end(&sh);
}

static __device__ __noinline__ void tmem_hb_proxy_fence_do(void)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    unsigned lo, hi, comp = slot->a.self;
    uint32_t t = hb_proxy_fence(&slot->a, &lo, &hi);
    if (lo < hi) {
        tmem_hb_cta *c = &cl->cta[tmem_hb_rank()];
        tmem_hb_lock(&c->smem_lock);
        HB_LOOP
        for (uint32_t k = lo; k < hi && k < TMEM_HB_SMEM_BLOCKS; k++) hb_smem_fence(&c->smem[k], comp, t);
        tmem_hb_unlock(&c->smem_lock);
    }
    tmem_hb_unlock(&slot->lock);
}

/* fence.proxy.async.shared::cta by any lanes of the warp: the warp's generic writes before it may be read
 * by a TMA store ordered after it. */
static __device__ __forceinline__ void tmem_hb_proxy_fence(void)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_proxy_fence_do();
    tmem_hb_share_end(&sh);
}

static __device__ __noinline__ void tmem_hb_smem_access_do(uint32_t smem_addr, uint32_t bytes, int write)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    uint32_t block0, nblocks = tmem_hb_smem_blocks(smem_addr, bytes, &block0);
    hb_vc start;
    uint32_t t = hb_generic_issue(&slot->a, write, block0, nblocks, &start);
    hb_site me = hb_agent_site(&slot->a, write ? HB_SMEM_WRITE : HB_SMEM_READ, slot->a.self, t, tmem_hb_rank(), 0u, 0u,
                               block0, nblocks);
    tmem_hb_smem_blocks_access(cl, write ? 1 : 0, block0, nblocks, &start, &me, 0u);
    tmem_hb_unlock(&slot->lock);
}

/* The lanes of a warp that are about to read (write = 0) or write `bytes` of this CTA's shared memory from
 * ptr_smem with ld.shared / st.shared: one event of the warp per group of lanes with the same range. */
static __device__ __forceinline__ void tmem_hb_smem_access(const void *ptr_smem, uint32_t bytes, int write)
{
    if (!c_tmem_hb.enabled) return;
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(ptr_smem);
    const tmem_hb_share sh =
        tmem_hb_share_begin(((unsigned long long)(write ? 1u : 0u) << 63) | ((unsigned long long)bytes << 32) | addr);
    if (sh.lanes) tmem_hb_smem_access_do(addr, bytes, write);
    tmem_hb_share_end(&sh);
}

/* ================================================================ cluster launch control response slots */

/* The block that stands for CLC response slot q (hb.h, hb_clc_issue): past the 227 KB a kernel can have. */
static __device__ __forceinline__ uint32_t tmem_hb_clc_block(uint32_t q)
{
    return (uint32_t)TMEM_HB_SMEM_BLOCKS - (uint32_t)TMEM_HB_CLC_SLOTS + q;
}

/* A CLC slot access that found an unordered (HB_SMEM_RACE) or unfenced (HB_SMEM_NO_FENCE) access before it, in
 * slot q of CTA `rank`. The records are the async-proxy ones (ASYNC_PROXY_RACE, PROXY_FENCE); the message
 * names the CLC failure class. */
static __device__ __noinline__ void tmem_hb_report_clc(int verdict, const hb_site *earlier, const hb_site *later,
                                                       uint32_t rank, uint32_t q)
{
    tmem_emu_error *e = c_tmem_hb.error;
    const int issue = later->kind == HB_TMA;
    const char *what = verdict == HB_SMEM_NO_FENCE ? "reissued without the reader's fence.proxy.async after its read"
                       : issue                     ? "reissued before every reader released it"
                                                   : "read before its full barrier (the response's write)";
    tmem_hb_record_sites(e, earlier, later);
    tmem_emu_write_record(e, verdict == HB_SMEM_NO_FENCE ? TMEM_EMU_ERR_PROXY_FENCE : TMEM_EMU_ERR_ASYNC_PROXY_RACE,
                          tmem_hb_clc_block(q) * HB_SMEM_BLOCK_BYTES, rank, q);
    printf("TMEM-EMU ERROR %s: CLC response slot %u of CTA rank %u %s: %s by CTA rank %u warp %u, then %s by CTA "
           "rank %u warp %u, not ordered by happens-before; block (%u,%u,%u)\n",
           verdict == HB_SMEM_NO_FENCE ? "PROXY_FENCE" : "ASYNC_PROXY_RACE", q, rank, what,
           earlier->kind == HB_TMA ? "try_cancel's write" : "a read of the response", (unsigned)earlier->cta,
           (unsigned)earlier->warp, issue ? "try_cancel" : "a read", (unsigned)later->cta, (unsigned)later->warp,
           blockIdx.x, blockIdx.y, blockIdx.z);
    __trap();
}

/* try_cancel (or its stand-in) into slot q of this CTA or (multicast) of every CTA of the cluster, completing on
 * the mbarrier at shared offset bar_offset in each: an event of the issuer's copy pipe that joins the phase that
 * barrier's arming arrival opened (sync/clc.cuh: each slot use is armed before the issue that fills it). */
static __device__ __noinline__ void tmem_hb_clc_issue_do(uint32_t q, uint32_t bar_offset, int multicast)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 3);
    if (!slot) return;
    const uint32_t block = tmem_hb_clc_block(q), me_rank = tmem_hb_rank(), t = hb_tma_issue(&slot->a);
    const unsigned comp = slot->a.tma_pipe;
    const uint32_t first = multicast ? 0u : me_rank, last = multicast ? tmem_hb_special(1) : me_rank + 1u;
    hb_vc start;
    hb_vc_copy(&start, &slot->a.vc);
    const hb_site me = hb_agent_site(&slot->a, HB_TMA, comp, t, me_rank, 0u, 0u, block, 1u);
    HB_LOOP
    for (uint32_t r = first; r < last && r < TMEM_HB_MAX_RANKS; r++) {
        tmem_hb_cta *c = &cl->cta[r];
        hb_site earlier;
        tmem_hb_lock(&c->smem_lock);
        const int verdict = hb_clc_issue(&c->smem[block], &start, &me, &earlier);
        tmem_hb_unlock(&c->smem_lock);
        if (verdict != HB_SMEM_OK) tmem_hb_report_clc(verdict, &earlier, &me, r, q);
    }
    tmem_hb_unlock(&slot->lock);
    HB_LOOP
    for (uint32_t r = first; r < last && r < TMEM_HB_MAX_RANKS; r++) {
        tmem_hb_barrier *b = tmem_hb_mbar(cl, r, bar_offset, 0);
        if (!b) continue;
        tmem_hb_lock(&b->lock);
        hb_sync_join_latest_phase(&b->s, comp, t);
        tmem_hb_unlock(&b->lock);
    }
}

static __device__ __forceinline__ void tmem_hb_clc_issue(uint32_t q, uint32_t bar_smem, int multicast)
{
    if (c_tmem_hb.enabled) tmem_hb_clc_issue_do(q, tmem_hb_offset(bar_smem), multicast);
}

/* A role's read of slot q of its own CTA (one lane: the readers of sync/clc.cuh are single threads). */
static __device__ __noinline__ void tmem_hb_clc_read_do(uint32_t q)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    const uint32_t block = tmem_hb_clc_block(q), rank = tmem_hb_rank();
    hb_vc start;
    const uint32_t t = hb_generic_issue(&slot->a, 0, block, 1u, &start);
    const hb_site me = hb_agent_site(&slot->a, HB_SMEM_READ, slot->a.self, t, rank, 0u, 0u, block, 1u);
    tmem_hb_cta *c = &cl->cta[rank];
    hb_site earlier;
    tmem_hb_lock(&c->smem_lock);
    const int verdict = hb_clc_read(&c->smem[block], &start, &me, &earlier);
    tmem_hb_unlock(&c->smem_lock);
    tmem_hb_unlock(&slot->lock);
    if (verdict != HB_SMEM_OK) tmem_hb_report_clc(verdict, &earlier, &me, rank, q);
}

static __device__ __forceinline__ void tmem_hb_clc_read(uint32_t q)
{
    if (c_tmem_hb.enabled) tmem_hb_clc_read_do(q);
}

/* The reader's fence.proxy.async after its read of slot q (sync/clc.cuh, clc_fence_after_read, right after the
 * fence, whose own hook has moved the reader's clock on). */
static __device__ __noinline__ void tmem_hb_clc_fenced_do(uint32_t q)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    tmem_hb_cta *c = &cl->cta[tmem_hb_rank()];
    tmem_hb_lock(&c->smem_lock);
    hb_clc_read_fenced(&c->smem[tmem_hb_clc_block(q)], slot->a.self, hb_agent_clock(&slot->a));
    tmem_hb_unlock(&c->smem_lock);
    tmem_hb_unlock(&slot->lock);
}

static __device__ __forceinline__ void tmem_hb_clc_fenced(uint32_t q)
{
    if (c_tmem_hb.enabled) tmem_hb_clc_fenced_do(q);
}

/* The pair's end (the CLC kernel, after its trailing cluster sync, every warp): the other CTA's last read of each
 * response slot (after which its reader releases the slot on rank 0's barrier, remotely from the peer) is ordered
 * before this warp leaves, so neither CTA exits while its peer may still read, release or receive a response. */
static __device__ __noinline__ void tmem_hb_clc_exit_do(void)
{
    tmem_hb_cluster *cl;
    tmem_hb_agent_slot *slot = tmem_hb_my_agent(&cl, 0);
    if (!slot) return;
    const uint32_t me_rank = tmem_hb_rank(), ranks = tmem_hb_special(1);
    hb_vc now;
    hb_vc_copy(&now, &slot->a.vc);
    const hb_site me =
        hb_agent_site(&slot->a, HB_SMEM_READ, slot->a.self, hb_agent_clock(&slot->a), me_rank, 0u, 0u, 0u, 0u);
    tmem_hb_unlock(&slot->lock);
    HB_LOOP
    for (uint32_t r = 0; r < ranks && r < TMEM_HB_MAX_RANKS; r++) {
        if (r == me_rank) continue;
        tmem_hb_cta *c = &cl->cta[r];
        HB_LOOP
        for (uint32_t q = 0; q < TMEM_HB_CLC_SLOTS; q++) {
            hb_site last;
            tmem_hb_lock(&c->smem_lock);
            hb_site_copy(&last, &c->smem[tmem_hb_clc_block(q)].read);
            tmem_hb_unlock(&c->smem_lock);
            if (hb_site_ordered(&last, &now)) continue;
            tmem_emu_write_record(c_tmem_hb.error, TMEM_EMU_ERR_ASYNC_PROXY_RACE,
                                  tmem_hb_clc_block(q) * HB_SMEM_BLOCK_BYTES, r, q);
            printf(
                "TMEM-EMU ERROR ASYNC_PROXY_RACE: CTA rank %u warp %u leaves while CTA rank %u warp %u's read of CLC "
                "response slot %u (and its release on rank 0's barrier) is not ordered before it: a CTA of the pair "
                "may exit while its peer still uses the hand-off (missing trailing cluster sync?); block "
                "(%u,%u,%u)\n",
                me_rank, (unsigned)me.warp, r, (unsigned)last.warp, q, blockIdx.x, blockIdx.y, blockIdx.z);
            __trap();
        }
    }
}

/* Every thread of the CLC kernel of a pair, last before tmem_cta_exit (one update per warp). */
static __device__ __forceinline__ void tmem_hb_clc_exit(void)
{
    if (!c_tmem_hb.enabled) return;
    const tmem_hb_share sh = tmem_hb_share_begin(0ull);
    if (sh.lanes) tmem_hb_clc_exit_do();
    tmem_hb_share_end(&sh);
}

/* ================================================================ registers of a tcgen05.ld */

/* The calling thread's held loads, or NULL when its registers are not held (tracking off, or beyond the
 * table: its loads then deliver their values at once). */
static __device__ __forceinline__ tmem_hb_thread_regs *tmem_hb_thread_regs_of_me(void)
{
    if (!c_tmem_hb.enabled || !c_tmem_hb.regs) return 0;
    uint32_t block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    uint32_t thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    if (block >= TMEM_HB_REG_CTAS || thread >= TMEM_HB_REG_THREADS) return 0;
    return &c_tmem_hb.regs[(size_t)block * TMEM_HB_REG_THREADS + thread];
}

#endif /* WSGEMM_EMU_HB_EMU_CUH */
