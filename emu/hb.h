// SPDX-License-Identifier: MIT
/*
 * emu/hb.h - happens-before tracking for Tensor Memory, in the manner of FastTrack (Flanagan and Freund,
 * PLDI 2009) and ThreadSanitizer: vector clocks for the agents and the synchronisation objects, epochs for
 * the accesses, an access history per TMEM cell. Plain C, `__host__ __device__`: the TMEM emulation runs
 * it on the GPU (emu/hb_emu.cuh wires it to every tcgen05 and barrier wrapper, keeping each warp as
 * converged as it was), tests/tmem/test_hb.c replays event traces of the sm100 protocol through it on the CPU.
 *
 * Why: the emulation executes tcgen05 synchronously and its tensor core is slow, so a protocol bug such as
 * an epilogue that releases an accumulator before its last tcgen05.ld never shows up as a wrong value
 * there. Here two TMEM accesses (one of them a write) that happens-before does not order are reported with
 * both sites, whether or not they overlapped in time in the run.
 *
 * The model (PTX ISA 9.0, "Memory Consistency Model for 5th generation of TensorCore operations",
 * section tcgen05-memory-consistency-model, and "tcgen05.fence", "tcgen05.commit", "tcgen05.wait"):
 *   - Agents are warps (the TMEM instructions are warp-collective or issued by one lane; lanes of one warp
 *     are not told apart). Each warp has a clock component for its execution, and gets one for its
 *     tcgen05.ld pipe and one for its tensor pipe (tcgen05.mma, tcgen05.cp) the first time it uses them:
 *     asynchronous tcgen05 operations are events of those pipes, not of the warp.
 *   - An agent carries three vector clocks:
 *       vc          what its execution is ordered after (program order + acquired synchronisation);
 *       async_view  what its NEXT asynchronous tcgen05 operation (mma, cp, ld) is ordered after. It grows only at
 *                   tcgen05.fence::after_thread_sync (async_view |= vc: "an asynchronous tcgen05 operation
 *                   subsequent to fence::after_thread_sync is ordered after all prior tcgen05 and execution
 *                   ordering operations"), at the warp's own synchronous tcgen05 instructions (alloc,
 *                   dealloc, commit, wait, fences: "inherently ordered" with its tcgen05 operations), and at
 *                   wait::ld (its own loads). Without the fence, a tcgen05.mma, cp or ld after a barrier
 *                   wait is NOT ordered after what the wait synchronised with.
 *       done        asynchronous operations that completed (tcgen05.wait::ld) but are not yet published:
 *                   tcgen05.fence::before_thread_sync moves them into vc ("an asynchronous tcgen05 operation
 *                   prior to fence::before_thread_sync is ordered before all subsequent tcgen05 and execution
 *                   ordering operations"), so a later arrive releases them. Without the fence (or without the
 *                   wait::ld) an arrive does not release the loads.
 *   - tcgen05.mma: an event of the warp's tensor pipe; ordered after async_view and after the pipe's earlier
 *     MMAs and cps (mma -> mma and cp -> mma are pipelined pairs). tcgen05.commit makes an mbarrier arrival
 *     that releases vc plus every MMA and cp the warp issued so far (the mbarrier-based completion mechanism;
 *     commit implies fence::before_thread_sync). Multicast commits arrive on each CTA of the mask. A commit's
 *     arrival is made by the tensor core, later: a CTA must not exit before a wait observed every phase a
 *     commit arrived on (the producer tail), checked when the kernel reports its exit.
 *   - tcgen05.cp (here: the scale factors of a block-scaled MMA, shared memory -> TMEM) and the scale reads of
 *     tcgen05.mma .block_scale. The PTX ISA's "Pipelined tcgen05 instructions" lists the pairs of one issuing
 *     thread that are ordered without a wait or fence, all with one cta_group: mma -> mma (same accumulator
 *     and shape), cp -> mma, shift -> mma, shift -> cp.4x256b, mma -> shift; mma -> cp and cp -> cp are not
 *     among them (this model orders every MMA after the pipe's earlier ones). So a cp is an event of the
 *     tensor pipe, numbered by the pipe's clock together with the MMAs (a commit completes and releases it, an
 *     MMA after it is ordered after it), but its start is async_view alone: it is not ordered after the
 *     thread's earlier MMAs, nor its earlier cps. A cp that overwrites scale factors an earlier MMA reads is
 *     ordered after that MMA only by synchronisation (commit -> empty[s] -> the producer's wait, its arrive on
 *     full[s] -> the MMA thread's wait + fence::after_thread_sync). Numbering the cp on the pipe makes nobody
 *     see it wrongly: a clock holds the pipe's component at c only as a commit's release (every event up to c
 *     completed) or as an MMA's start (every event of the pipe before the MMA is ordered before it), never as
 *     "after the event c" alone, so a holder of c is ordered after every event up to c, cps included, and one
 *     that holds less (an acquirer of an earlier commit) is not ordered after a cp numbered later; a cp's own
 *     start never takes the pipe's clock. A block-scaled MMA reads its SFA and SFB columns (all 128 lanes;
 *     cta_group 2 in both CTAs): a read with the MMA's epoch (site kind HB_MMA_SCALES) besides its D write; a
 *     cp writes its columns of all 128 lanes (32x128b.warpx4 replicates 32 lanes into the four quarters;
 *     cta_group 2: in both CTAs, each from its own shared memory at the same offset).
 *   - tcgen05.ld: an event of the warp's load pipe, ordered after async_view; tcgen05.wait::ld completes
 *     every earlier load (ld -> wait::ld is a pipelined pair).
 *   - Shared-memory operands: a TMA copy is an event of the issuing warp's copy pipe that joins the mbarrier
 *     phase its complete_tx completes; a tcgen05.mma must be ordered after the last copy into the 1024-byte
 *     block its A and B descriptors start in, a tcgen05.cp after the last copy into every block of its source
 *     (so the MMA warp needs fence::after_thread_sync after its full[s] wait, as for TMEM). Only copy -> MMA
 *     and copy -> cp are checked, at that granularity (hb_smem_tcgen05_read).
 *   - Shared memory and the async proxy (PTX ISA "Memory Consistency Model: proxies", "cp.async.bulk.tensor",
 *     "cp.async.bulk.wait_group", "membar/fence": fence.proxy.async), per CTA in 1024-byte blocks
 *     (hb_smem_block). A TMA load writes its destination from its issue until the mbarrier phase its
 *     complete_tx counts on completes: a generic (ld/st.shared) access of the block must be ordered after its
 *     copy event (a wait that observed the phase). A TMA store reads its source from its issue until a
 *     cp.async.bulk.wait_group[.read] N of its issuer retires its bulk async-group (groups numbered per agent
 *     by commit_group; N leaves the N most recent pending): a generic write, or a TMA load, into the block
 *     must be ordered after that retirement (the issuer's clock at the wait). Generic writes a TMA store reads
 *     need a fence.proxy.async by the writer after the write, ordered before the store's issue: each block
 *     keeps its last generic write and the writer's first fence after it (the fence moves the writer's clock
 *     on, so a write after the fence is not covered by it). A TMA load into a block must also be ordered after
 *     the block's last generic read and write. Agents hold their pending stores (HB_BULK_PENDING) and the
 *     range of blocks they wrote since their last fence.
 *   - alloc and dealloc are synchronous: events of the warp itself (dealloc ordered after vc | async_view).
 *   - Synchronisation objects (mbarriers, named barriers, the cluster barrier) keep, per phase, the join of
 *     the clocks their arrivals released; a wait that observed a phase acquires it. Phases are numbered by
 *     counting arrivals (an mbarrier's count from its init): arrival j belongs to phase j / count. The
 *     transaction count is not modelled: a TMA copy's complete_tx finishes the phase that its issuing
 *     thread's arrive.expect_tx opened, and that arrival already carries the issuing thread's clock.
 *     The .release/.acquire/.relaxed qualifiers and scopes are not modelled: every arrival releases, every
 *     observed completion acquires (the tcgen05 ordering composes with execution ordering: the PTX ISA's
 *     canonical patterns wait with try_wait.relaxed.cluster).
 *   - TMEM is tracked per CTA in cells of one lane quarter x 32 columns. A cell keeps the epoch of its last
 *     write (mma, cp, or the alloc that created it), of the dealloc that freed it, and the epoch of the last
 *     read of each component (a read vector clock, as FastTrack's read-shared mode). An access races with
 *     a recorded one when that one is not ordered before the access's start clock and one of the two
 *     writes; an access of fewer columns, or starting inside a cell, touches every cell it overlaps. A write
 *     is reported against an unordered read since the cell's last write before that write itself (the read
 *     is the later of the two). dealloc checks every earlier access of the cell, the scale reads included;
 *     a cta_group::2 dealloc frees the pair's cells in both CTAs (the allocation is collective).
 *   - The granularity is enough for the block-scaled sm100 layout: two accumulators at columns 0 and 192
 *     (192 each, 32-aligned) and one 32-column scale slot per smem stage t at columns 384 + 32 t, so no cell
 *     holds two accumulators, or an accumulator and scale factors, or two slots. SFA (columns 0..3 of the
 *     slot) and SFB (4..11) share the slot's cell, and their two cps are not ordered with each other: a cp
 *     whose cell's last write is a cp of the same pipe is not checked against that write when it writes none
 *     of the columns the run of such cps wrote (hb_cell_cp_run: the cell keeps the run's columns, cp_cols).
 *     That is sound because the cp's start holds the start of every cp of the run (async_view only grows),
 *     so it is ordered after everything they were checked against, and it still checks the reads. Reads
 *     are kept per cell, not per column: a cp into columns of a cell that an unordered MMA read other columns
 *     of is reported (the layout reads SFA and SFB of a slot together, so this never separates them).
 */
#ifndef WSGEMM_EMU_HB_H
#define WSGEMM_EMU_HB_H

#include <stdint.h>

#ifndef WSGEMM_HD
#if defined(__CUDACC__)
#define WSGEMM_HD __host__ __device__
#else
#define WSGEMM_HD
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HB_COMPONENTS = 32, /* clock components per cluster (a pair of the sm100 kernel that loads C uses 31) */
    HB_NO_COMPONENT = 0xFF,
    HB_PHASE_SLOTS = 4, /* phases of a barrier whose clocks are kept (a waiter is at most one behind) */
    HB_CELL_COLS = 32,  /* TMEM columns per history cell */
    HB_CELL_UNITS = 16, /* 512 / 32 */
    HB_QUARTERS = 4,    /* lane quarters of 32 TMEM lanes */
    HB_CELLS = HB_QUARTERS * HB_CELL_UNITS,
    HB_SMEM_BLOCK_BYTES = 1024, /* shared memory is tracked in blocks of this many bytes */
    HB_BULK_PENDING = 8         /* TMA stores per agent whose bulk async-group has not been retired yet */
};

/* The loops below stay loops on the device: unrolled, every vector-clock operation becomes HB_COMPONENTS
 * volatile loads and stores, and ptxas time for the emulated kernels grows several-fold. */
#if defined(__CUDA_ARCH__)
#define HB_LOOP _Pragma("unroll 1")
#else
#define HB_LOOP
#endif

/* Volatile: on the device the objects live in global memory and are read and written by warps of other
 * SMs (under a lock); volatile keeps every access out of the incoherent L1. */
#define HB_SHARED volatile

typedef struct hb_vc {
    uint32_t c[HB_COMPONENTS];
} hb_vc;

/* Accesses of TMEM, and the two events of an mbarrier's life that must be ordered: its init and a use
 * (arrive, wait, commit). For the barrier kinds a site's col0 is the barrier's shared-memory offset / 8 and
 * tmem_cta the CTA it lives in. */
typedef enum hb_kind {
    HB_NONE = 0,
    HB_ALLOC,
    HB_DEALLOC,
    HB_MMA,
    HB_LD,
    HB_MBAR_INIT,
    HB_MBAR_USE,
    HB_TMA, /* a TMA copy into shared memory (col0: the 1024-byte block of its destination) */
    /* shared-memory accesses of the async-proxy model: col0 the first 1024-byte block, ncols the blocks */
    HB_TMA_STORE,  /* a TMA store (cp.async.bulk.tensor shared -> global) reading its source */
    HB_SMEM_WRITE, /* generic-proxy writes (st.shared) */
    HB_SMEM_READ,  /* generic-proxy reads (ld.shared) */
    HB_CP,         /* tcgen05.cp: shared memory -> TMEM, a write of its columns (block-scaled MMA scale factors) */
    HB_MMA_SCALES, /* tcgen05.mma .block_scale reading its scale-factor columns (the same event as its D write) */
    HB_KIND_COUNT
} hb_kind;

/* One access, for the report: who, what, where, and what its warp last waited for. */
typedef struct hb_site {  /* 20 bytes, 4-byte aligned: copied as words */
    uint8_t kind;         /* hb_kind */
    uint8_t comp;         /* clock component of the event; the epoch is comp @ clock */
    uint8_t cta;          /* cluster rank of the issuing CTA */
    uint8_t warp;         /* warp index in that CTA */
    uint16_t col0, ncols; /* TMEM columns accessed */
    uint32_t clock;
    uint8_t lane0, nlanes; /* TMEM lanes accessed */
    uint8_t tmem_cta;      /* cluster rank of the CTA whose TMEM it touched (cta_group 2 MMAs write both) */
    uint8_t wait_name;     /* the warp's last completed mbarrier wait: a name id of the caller's (0 none), */
    uint16_t wait_index;   /* its index, */
    uint8_t wait_parity;   /* and the parity it waited for */
    uint8_t pad;
} hb_site;

#if defined(__cplusplus)
static_assert(sizeof(hb_site) == 20, "hb_site is five words");
#else
_Static_assert(sizeof(hb_site) == 20, "hb_site is five words");
#endif

/* A TMA store of an agent whose bulk async-group is not retired yet: its blocks and its group. */
typedef struct hb_bulk_store {
    uint16_t block0, nblocks;
    uint32_t group;
} hb_bulk_store;

/* An agent's side of the async-proxy model. */
typedef struct hb_proxy {
    uint32_t committed; /* cp.async.bulk.commit_group so far: the number of the group being filled */
    uint32_t pending;   /* entries of store[] in use */
    hb_bulk_store store[HB_BULK_PENDING];
    uint16_t dirty_lo, dirty_hi; /* blocks [lo, hi) written since the agent's last fence.proxy.async */
} hb_proxy;

typedef struct hb_agent {
    hb_vc vc;
    hb_vc async_view;
    hb_vc done;
    uint32_t ld_clock, mma_clock, tma_clock;   /* events so far of the load pipe, tensor pipe, TMA copies */
    uint8_t self, ld_pipe, mma_pipe, tma_pipe; /* components (HB_NO_COMPONENT until used) */
    uint8_t cta, warp;
    uint8_t wait_name, wait_parity;
    uint16_t wait_index, pad;
    hb_proxy proxy;
} hb_agent;

typedef struct hb_sync {
    uint32_t count;               /* arrivals per phase */
    uint32_t arrivals;            /* arrivals since init */
    hb_site init;                 /* mbarriers: the mbarrier.init every use must be ordered after */
    int32_t last_async_phase;     /* the latest phase a tcgen05.commit arrived on (-1: none) */
    int32_t max_observed_phase;   /* the latest phase a wait observed complete (-1: none) */
    uint32_t tag[HB_PHASE_SLOTS]; /* phase + 1 whose clock the slot holds (0: none) */
    hb_vc clock[HB_PHASE_SLOTS];  /* join of the clocks the phase's arrivals released */
} hb_sync;

typedef struct hb_cell {
    hb_site write;      /* last write (mma, cp) or the alloc that made the cell live; kind HB_NONE: never */
    hb_site freed;      /* the dealloc that freed it; kind HB_NONE: live */
    uint32_t read_mask; /* bit k: component k read the cell since the last write (its entry in reads is valid) */
    uint32_t cp_cols;   /* write is a cp: bit i, column i of the cell written by the run of cps ending in it */
    hb_vc reads;        /* per component: clock of its last read since the last write */
    hb_site read_site[HB_COMPONENTS];
} hb_cell;

/* ================================================================ vector clocks */

static inline WSGEMM_HD void hb_vc_clear(HB_SHARED hb_vc *v)
{
    HB_LOOP
    for (int i = 0; i < HB_COMPONENTS; i++) v->c[i] = 0;
}

static inline WSGEMM_HD void hb_vc_copy(HB_SHARED hb_vc *dst, const HB_SHARED hb_vc *src)
{
    HB_LOOP
    for (int i = 0; i < HB_COMPONENTS; i++) dst->c[i] = src->c[i];
}

static inline WSGEMM_HD void hb_vc_join(HB_SHARED hb_vc *dst, const HB_SHARED hb_vc *src)
{
    HB_LOOP
    for (int i = 0; i < HB_COMPONENTS; i++) {
        uint32_t s = src->c[i];
        if (s > dst->c[i]) dst->c[i] = s;
    }
}

static inline WSGEMM_HD void hb_vc_raise(HB_SHARED hb_vc *v, unsigned comp, uint32_t clock)
{
    if (comp < HB_COMPONENTS && clock > v->c[comp]) v->c[comp] = clock;
}

/* Is the event of `s` ordered before an access whose start clock is `start`? (A never-set site is.) */
static inline WSGEMM_HD int hb_site_ordered(const HB_SHARED hb_site *s, const hb_vc *start)
{
    return s->kind == HB_NONE || s->comp >= HB_COMPONENTS || s->clock <= start->c[s->comp];
}

/* A site is five 32-bit words; copied as such (field by field, the volatile stores make a lot of code). */
static inline WSGEMM_HD void hb_site_copy(HB_SHARED hb_site *dst, const HB_SHARED hb_site *src)
{
    HB_SHARED uint32_t *d = (HB_SHARED uint32_t *)dst;
    const HB_SHARED uint32_t *s = (const HB_SHARED uint32_t *)src;
    HB_LOOP
    for (unsigned i = 0; i < sizeof(hb_site) / 4u; i++) d[i] = s[i];
}

static inline WSGEMM_HD void hb_site_clear(HB_SHARED hb_site *s)
{
    s->kind = HB_NONE;
    s->comp = HB_NO_COMPONENT;
    s->clock = 0;
}

static inline WSGEMM_HD const char *hb_kind_name(unsigned kind)
{
    switch (kind) {
    case HB_ALLOC: return "tcgen05.alloc";
    case HB_DEALLOC: return "tcgen05.dealloc";
    case HB_MMA: return "tcgen05.mma";
    case HB_LD: return "tcgen05.ld";
    case HB_MBAR_INIT: return "mbarrier.init";
    case HB_MBAR_USE: return "mbarrier arrive/wait/commit";
    case HB_TMA: return "cp.async.bulk.tensor (TMA) copy into shared memory";
    case HB_TMA_STORE: return "cp.async.bulk.tensor (TMA) store reading shared memory";
    case HB_SMEM_WRITE: return "st.shared (generic-proxy write)";
    case HB_SMEM_READ: return "ld.shared (generic-proxy read)";
    case HB_CP: return "tcgen05.cp (shared memory -> TMEM)";
    case HB_MMA_SCALES: return "tcgen05.mma .block_scale reading scale factors";
    default: return "none";
    }
}

/* ================================================================ agents */

/* A fresh agent: its own component at 1 (so 0 means "never"), no pipes yet. */
static inline WSGEMM_HD void hb_agent_init(HB_SHARED hb_agent *a, unsigned self, unsigned cta, unsigned warp)
{
    hb_vc_clear(&a->vc);
    hb_vc_clear(&a->async_view);
    hb_vc_clear(&a->done);
    a->ld_clock = a->mma_clock = a->tma_clock = 0;
    a->self = (uint8_t)self;
    a->ld_pipe = a->mma_pipe = a->tma_pipe = HB_NO_COMPONENT;
    a->cta = (uint8_t)cta;
    a->warp = (uint8_t)warp;
    a->wait_name = 0;
    a->wait_parity = 0;
    a->wait_index = 0;
    a->proxy.committed = a->proxy.pending = 0;
    a->proxy.dirty_lo = a->proxy.dirty_hi = 0;
    hb_vc_raise(&a->vc, self, 1u);
    hb_vc_raise(&a->async_view, self, 1u);
}

/* An arrive / barrier arrival: *released = what it publishes; then the agent's own clock moves on, so
 * its later events are not covered by this release. */
static inline WSGEMM_HD void hb_agent_release(HB_SHARED hb_agent *a, hb_vc *released)
{
    hb_vc_copy(released, &a->vc);
    if (a->self < HB_COMPONENTS) a->vc.c[a->self] += 1u;
}

/* A wait that observed a phase: the agent is ordered after what the phase's arrivals released. */
static inline WSGEMM_HD void hb_agent_acquire(HB_SHARED hb_agent *a, const hb_vc *acquired)
{
    hb_vc_join(&a->vc, acquired);
}

/* The agent's own synchronous tcgen05 instructions (alloc, dealloc, commit, wait, fences) are ordered with
 * its asynchronous ones in program order. */
static inline WSGEMM_HD void hb_agent_tcgen05_sync_op(HB_SHARED hb_agent *a)
{
    if (a->self < HB_COMPONENTS) hb_vc_raise(&a->async_view, a->self, a->vc.c[a->self]);
}

/* tcgen05.fence::before_thread_sync: completed asynchronous operations become part of what later arrivals
 * release. */
static inline WSGEMM_HD void hb_fence_before_thread_sync(HB_SHARED hb_agent *a)
{
    hb_vc_join(&a->vc, &a->done);
    hb_agent_tcgen05_sync_op(a);
}

/* tcgen05.fence::after_thread_sync: later asynchronous operations are ordered after everything the
 * agent's execution is ordered after. */
static inline WSGEMM_HD void hb_fence_after_thread_sync(HB_SHARED hb_agent *a)
{
    hb_vc_join(&a->async_view, &a->vc);
    hb_agent_tcgen05_sync_op(a);
}

/* The agent's last completed wait, for the sites of its later accesses. */
static inline WSGEMM_HD void hb_agent_note_wait(HB_SHARED hb_agent *a, unsigned name, unsigned index, unsigned parity)
{
    a->wait_name = (uint8_t)name;
    a->wait_index = (uint16_t)index;
    a->wait_parity = (uint8_t)parity;
}

/* A site for an access of this agent with epoch comp @ clock. */
static inline WSGEMM_HD hb_site hb_agent_site(const HB_SHARED hb_agent *a, unsigned kind, unsigned comp, uint32_t clock,
                                              unsigned tmem_cta, unsigned lane0, unsigned nlanes, unsigned col0,
                                              unsigned ncols)
{
    hb_site s;
    s.kind = (uint8_t)kind;
    s.comp = (uint8_t)comp;
    s.cta = a->cta;
    s.warp = a->warp;
    s.col0 = (uint16_t)col0;
    s.ncols = (uint16_t)ncols;
    s.clock = clock;
    s.lane0 = (uint8_t)lane0;
    s.nlanes = (uint8_t)nlanes;
    s.tmem_cta = (uint8_t)tmem_cta;
    s.wait_name = a->wait_name;
    s.wait_index = a->wait_index;
    s.wait_parity = a->wait_parity;
    s.pad = 0;
    return s;
}

/* tcgen05.ld issued: its epoch on the load pipe (which must be assigned) and its start clock. */
static inline WSGEMM_HD uint32_t hb_ld_issue(HB_SHARED hb_agent *a, hb_vc *start)
{
    a->ld_clock += 1u;
    hb_vc_copy(start, &a->async_view);
    return a->ld_clock;
}

/* tcgen05.wait::ld: every earlier load of the agent completed: ordered before its later tcgen05
 * operations, and published by its next fence::before_thread_sync. */
static inline WSGEMM_HD void hb_wait_ld(HB_SHARED hb_agent *a)
{
    hb_vc_raise(&a->done, a->ld_pipe, a->ld_clock);
    hb_vc_raise(&a->async_view, a->ld_pipe, a->ld_clock);
    hb_agent_tcgen05_sync_op(a);
}

/* tcgen05.mma issued: its epoch on the tensor pipe (which must be assigned) and its start clock, ordered
 * after the pipe's earlier MMAs and cps. */
static inline WSGEMM_HD uint32_t hb_mma_issue(HB_SHARED hb_agent *a, hb_vc *start)
{
    hb_vc_copy(start, &a->async_view);
    hb_vc_raise(start, a->mma_pipe, a->mma_clock);
    a->mma_clock += 1u;
    return a->mma_clock;
}

/* tcgen05.cp issued: an event of the tensor pipe (which must be assigned), numbered after the pipe's earlier
 * MMAs and cps so that a commit releases it and a later MMA is ordered after it (cp -> mma), but started at
 * async_view alone: neither mma -> cp nor cp -> cp is a pipelined pair. Returns its epoch; *start its start
 * clock. */
static inline WSGEMM_HD uint32_t hb_cp_issue(HB_SHARED hb_agent *a, hb_vc *start)
{
    hb_vc_copy(start, &a->async_view);
    a->mma_clock += 1u;
    return a->mma_clock;
}

/* tcgen05.commit: implies fence::before_thread_sync; *released = what its mbarrier arrival(s) publish:
 * the agent's clock and the completion of every MMA and cp it issued so far. */
static inline WSGEMM_HD void hb_commit(HB_SHARED hb_agent *a, hb_vc *released)
{
    hb_fence_before_thread_sync(a);
    hb_agent_release(a, released);
    hb_vc_raise(released, a->mma_pipe, a->mma_clock);
}

/* A TMA copy (cp.async.bulk.tensor) issued: an event of the agent's copy pipe (which must be assigned). Its
 * writes complete the mbarrier phase its complete_tx counts on: hb_sync_join_latest_phase puts the event
 * into that phase's clock, so a waiter that observed the phase (and, for a tcgen05.mma reading the data,
 * fenced with fence::after_thread_sync) is ordered after the copy. */
static inline WSGEMM_HD uint32_t hb_tma_issue(HB_SHARED hb_agent *a)
{
    a->tma_clock += 1u;
    return a->tma_clock;
}

/* alloc / dealloc: synchronous events of the agent itself. Start clock and epoch (on a->self). */
static inline WSGEMM_HD uint32_t hb_sync_access_issue(HB_SHARED hb_agent *a, hb_vc *start)
{
    hb_agent_tcgen05_sync_op(a);
    hb_vc_copy(start, &a->vc);
    hb_vc_join(start, &a->async_view);
    return a->self < HB_COMPONENTS ? a->vc.c[a->self] : 0u;
}

/* ================================================================ synchronisation objects */

static inline WSGEMM_HD void hb_sync_init(HB_SHARED hb_sync *s, uint32_t count)
{
    s->count = count ? count : 1u;
    s->arrivals = 0;
    s->last_async_phase = -1;
    s->max_observed_phase = -1;
    hb_site_clear(&s->init);
    HB_LOOP
    for (int i = 0; i < HB_PHASE_SLOTS; i++) {
        s->tag[i] = 0;
        hb_vc_clear(&s->clock[i]);
    }
}

/* Event comp @ clock belongs to the phase the latest arrival opened (a TMA copy's complete_tx: the producer
 * arrived with expect_tx just before issuing it, and the phase cannot complete before the bytes land). */
static inline WSGEMM_HD void hb_sync_join_latest_phase(HB_SHARED hb_sync *s, unsigned comp, uint32_t clock)
{
    uint32_t phase = s->arrivals ? (s->arrivals - 1u) / s->count : 0u;
    uint32_t slot = phase % HB_PHASE_SLOTS;
    if (s->tag[slot] != phase + 1u) {
        s->tag[slot] = phase + 1u;
        hb_vc_clear(&s->clock[slot]);
    }
    hb_vc_raise(&s->clock[slot], comp, clock);
}

/* mbarrier.init by the agent of site `init` (PTX ISA "mbarrier.init": other threads may use the barrier
 * only after the init is made visible to them, fence.mbarrier_init + a barrier). */
static inline WSGEMM_HD void hb_sync_mark_init(HB_SHARED hb_sync *s, const hb_site *init)
{
    hb_site_copy(&s->init, init);
}

/* A use of the barrier (an arrival releasing *vc, a wait by an agent at *vc, a commit) must be ordered
 * after its init. Returns 0, or 1 with the init's site in *earlier. */
static inline WSGEMM_HD int hb_sync_check_init(const HB_SHARED hb_sync *s, const hb_vc *vc, hb_site *earlier)
{
    if (hb_site_ordered(&s->init, vc)) return 0;
    hb_site_copy(earlier, &s->init);
    return 1;
}

/* n arrivals, releasing *released (NULL: a relaxed arrival that only counts). Returns the phase they
 * belong to. */
static inline WSGEMM_HD uint32_t hb_sync_arrive(HB_SHARED hb_sync *s, uint32_t n, const hb_vc *released)
{
    uint32_t phase = s->arrivals / s->count;
    uint32_t slot = phase % HB_PHASE_SLOTS;
    if (s->tag[slot] != phase + 1u) {
        s->tag[slot] = phase + 1u;
        hb_vc_clear(&s->clock[slot]);
    }
    if (released) hb_vc_join(&s->clock[slot], released);
    s->arrivals += n;
    return phase;
}

/* A tcgen05.commit arrived on `phase`: it is asynchronous (the tensor core arrives when the MMAs are
 * done), so the CTA must not exit before some thread observed that phase complete. */
static inline WSGEMM_HD void hb_sync_note_async_arrival(HB_SHARED hb_sync *s, uint32_t phase)
{
    if ((int32_t)phase > s->last_async_phase) s->last_async_phase = (int32_t)phase;
}

/* At the CTA's exit: 1 when a commit arrived on a phase no wait observed (it could land after the exit:
 * the producer tail's job), 0 otherwise. */
static inline WSGEMM_HD int hb_sync_unobserved_async(const HB_SHARED hb_sync *s)
{
    return s->last_async_phase > s->max_observed_phase;
}

/* The clock of phase `phase` into *acquired. Returns 0, or -1 when that phase's clock is no longer (or
 * not yet) kept. */
static inline WSGEMM_HD int hb_sync_acquire_phase(const HB_SHARED hb_sync *s, uint32_t phase, hb_vc *acquired)
{
    uint32_t slot = phase % HB_PHASE_SLOTS;
    if (s->tag[slot] != phase + 1u) return -1;
    hb_vc_join(acquired, &s->clock[slot]);
    return 0;
}

/* try_wait.parity(parity) succeeded: acquire the latest completed phase with that parity. Before the
 * first phase completes, parity 1 names the completed pre-phase (buffers start empty), which released
 * nothing. Returns the phase acquired, or -1 for the pre-phase. */
static inline WSGEMM_HD int32_t hb_sync_acquire_parity(HB_SHARED hb_sync *s, uint32_t parity, hb_vc *acquired)
{
    int32_t current = (int32_t)(s->arrivals / s->count); /* the first phase not yet complete */
    int32_t phase = current - 1;
    if (phase >= 0 && (uint32_t)(phase & 1) != (parity & 1u)) phase -= 1;
    if (phase < 0) return -1;
    hb_sync_acquire_phase(s, (uint32_t)phase, acquired);
    if (phase > s->max_observed_phase) s->max_observed_phase = phase;
    return phase;
}

/* ================================================================ TMEM history */

static inline WSGEMM_HD void hb_cell_clear(HB_SHARED hb_cell *c)
{
    hb_site_clear(&c->write);
    hb_site_clear(&c->freed);
    c->read_mask = 0;
    c->cp_cols = 0;
    hb_vc_clear(&c->reads);
}

/* The first read recorded in the cell that is not ordered before `start`, into *earlier. 0 when none. Only
 * the components in read_mask are looked at: on the device every look is a load from global memory, and a
 * cell is read by one or two load pipes between writes. */
static inline WSGEMM_HD int hb_cell_unordered_read(const HB_SHARED hb_cell *c, const hb_vc *start, hb_site *earlier)
{
    const uint32_t mask = c->read_mask;
    HB_LOOP
    for (int k = 0; k < HB_COMPONENTS && (mask >> k) != 0u; k++) {
        if (((mask >> k) & 1u) && c->reads.c[k] > start->c[k]) {
            hb_site_copy(earlier, &c->read_site[k]);
            return 1;
        }
    }
    return 0;
}

/* A write: the reads recorded since the previous write are covered by it from now on. */
static inline WSGEMM_HD void hb_cell_forget_reads(HB_SHARED hb_cell *c)
{
    const uint32_t mask = c->read_mask;
    HB_LOOP
    for (int k = 0; k < HB_COMPONENTS && (mask >> k) != 0u; k++)
        if ((mask >> k) & 1u) c->reads.c[k] = 0;
    c->read_mask = 0;
}

enum hb_op { HB_OP_READ, HB_OP_WRITE, HB_OP_ALLOC, HB_OP_FREE };

/* Does a write by `me` continue the cell's run of tcgen05.cp writes, so that it need not be ordered after the
 * cell's last write? It does when that write is a cp of the same tensor pipe (an earlier event of the same
 * agent: me's start clock, async_view when it was issued, holds that cp's start and so everything that cp and
 * the run before it were checked to be ordered after) and none of the cell's columns `cols` that me writes was
 * written by the run (disjoint columns do not conflict). SFA and SFB of one scale slot share a cell and their
 * two cps are not ordered with each other: without the run they would be reported against each other. */
static inline WSGEMM_HD int hb_cell_cp_run(const HB_SHARED hb_cell *c, const hb_site *me, uint32_t cols)
{
    return me->kind == HB_CP && c->write.kind == HB_CP && c->write.comp == me->comp && (c->cp_cols & cols) == 0u;
}

/* Apply one access to one cell; `cols`: bit i set when the access touches column i of the cell. Returns 0 when
 * it is ordered after every conflicting access recorded, otherwise 1 with the conflicting access in *earlier
 * (the cell is then left unchanged). A write is reported against the most recent conflicting access: a read
 * since the cell's last write, before that write itself. */
static inline WSGEMM_HD int hb_cell_access(HB_SHARED hb_cell *c, enum hb_op op, const hb_vc *start, const hb_site *me,
                                           uint32_t cols, hb_site *earlier)
{
    int freed = c->freed.kind != HB_NONE;
    if (op == HB_OP_READ || op == HB_OP_WRITE) {
        /* a data access after a dealloc that it is not ordered after (one ordered after it is a use
         * after free, which the emulation's allocator reports) */
        if (freed && !hb_site_ordered(&c->freed, start)) {
            hb_site_copy(earlier, &c->freed);
            return 1;
        }
        if (op == HB_OP_READ) {
            if (!hb_site_ordered(&c->write, start)) {
                hb_site_copy(earlier, &c->write);
                return 1;
            }
            if (me->comp < HB_COMPONENTS) {
                c->reads.c[me->comp] = me->clock;
                c->read_mask |= 1u << me->comp;
                hb_site_copy(&c->read_site[me->comp], me);
            }
            return 0;
        }
        if (hb_cell_unordered_read(c, start, earlier)) return 1;
        const int run = hb_cell_cp_run(c, me, cols);
        if (!run && !hb_site_ordered(&c->write, start)) {
            hb_site_copy(earlier, &c->write);
            return 1;
        }
        c->cp_cols = me->kind != HB_CP ? 0u : run ? (c->cp_cols | cols) : cols;
        hb_site_copy(&c->write, me);
        hb_cell_forget_reads(c);
        return 0;
    }
    if (op == HB_OP_ALLOC) {
        /* live accesses left in the cell (none in a correct kernel: the columns were free) */
        if (!freed) {
            if (!hb_site_ordered(&c->write, start)) {
                hb_site_copy(earlier, &c->write);
                return 1;
            }
            if (hb_cell_unordered_read(c, start, earlier)) return 1;
        }
        hb_cell_clear(c);
        hb_site_copy(&c->write, me);
        return 0;
    }
    /* HB_OP_FREE: after every access of the allocation. The pair's two deallocs are not ordered with each
     * other and need not be: the second finds the cell freed and still checks the accesses. */
    if (!hb_site_ordered(&c->write, start)) {
        hb_site_copy(earlier, &c->write);
        return 1;
    }
    if (hb_cell_unordered_read(c, start, earlier)) return 1;
    if (!freed) hb_site_copy(&c->freed, me);
    return 0;
}

/* The columns of the cell whose first column is `cell_col` that [col0, col0 + ncols) touches, as a mask. */
static inline WSGEMM_HD uint32_t hb_cell_cols(unsigned cell_col, unsigned col0, unsigned ncols)
{
    if (col0 + ncols <= cell_col) return 0u;
    unsigned lo = col0 > cell_col ? col0 - cell_col : 0u, hi = col0 + ncols - cell_col;
    if (hi > HB_CELL_COLS) hi = HB_CELL_COLS;
    if (lo >= hi) return 0u;
    uint32_t below_hi = hi >= 32u ? 0xFFFFFFFFu : (1u << hi) - 1u;
    return below_hi & ~((1u << lo) - 1u);
}

/* The cells of one lane quarter (HB_CELL_UNITS of them) that columns [col0, col0 + ncols) touch: every cell
 * the range overlaps, also for fewer than HB_CELL_COLS columns or a start inside a cell. Returns 0, or 1 with
 * *earlier and the cell's first column in *cell_col. */
static inline WSGEMM_HD int hb_tmem_quarter_access(HB_SHARED hb_cell *quarter_cells, enum hb_op op, unsigned col0,
                                                   unsigned ncols, const hb_vc *start, const hb_site *me,
                                                   hb_site *earlier, unsigned *cell_col)
{
    if (ncols == 0) return 0;
    unsigned last = col0 + ncols - 1u;
    if (last >= HB_CELL_COLS * HB_CELL_UNITS) last = HB_CELL_COLS * HB_CELL_UNITS - 1u;
    HB_LOOP
    for (unsigned u = col0 / HB_CELL_COLS; u <= last / HB_CELL_COLS; u++) {
        if (hb_cell_access(&quarter_cells[u], op, start, me, hb_cell_cols(u * HB_CELL_COLS, col0, ncols), earlier)) {
            *cell_col = u * HB_CELL_COLS;
            return 1;
        }
    }
    return 0;
}

/* One CTA's cells (HB_CELLS, quarter-major): lanes [lane0, lane0 + nlanes) x columns. Returns 0, or 1 with
 * the conflict (its cell's first lane and column in *cell_lane, *cell_col). */
static inline WSGEMM_HD int hb_tmem_access(HB_SHARED hb_cell *cells, enum hb_op op, unsigned lane0, unsigned nlanes,
                                           unsigned col0, unsigned ncols, const hb_vc *start, const hb_site *me,
                                           hb_site *earlier, unsigned *cell_lane, unsigned *cell_col)
{
    if (nlanes == 0) return 0;
    HB_LOOP
    for (unsigned q = lane0 / 32u; q <= (lane0 + nlanes - 1u) / 32u && q < HB_QUARTERS; q++) {
        if (hb_tmem_quarter_access(cells + q * HB_CELL_UNITS, op, col0, ncols, start, me, earlier, cell_col)) {
            *cell_lane = q * 32u;
            return 1;
        }
    }
    return 0;
}

/* ================================================================ shared memory and the async proxy */

/* What one 1024-byte block of a CTA's shared memory remembers. A site of kind HB_NONE: never. */
typedef struct hb_smem_block {
    hb_site load;           /* the last TMA copy into it: writes it until its mbarrier phase completes */
    hb_site store;          /* the last TMA store reading it: reads it until its bulk async-group is retired */
    hb_site write;          /* the last generic-proxy write */
    hb_site read;           /* the last generic-proxy read */
    uint32_t store_group;   /* the store's bulk async-group (its issuer's numbering) */
    uint32_t store_retired; /* the issuer's clock at the wait_group[.read] that retired it; 0: still reading */
    uint32_t write_fence;   /* the writer's clock at its first fence.proxy.async after the write; 0: none yet */
    uint32_t read_fence;    /* CLC response slots: the last reader's clock after its fence.proxy.async; 0: none */
} hb_smem_block;

/* What a shared-memory access found: ordered, a race with an access of the other proxy, or generic writes
 * read by a TMA store without a fence.proxy.async ordered between them. */
enum hb_smem_verdict { HB_SMEM_OK = 0, HB_SMEM_RACE, HB_SMEM_NO_FENCE };

static inline WSGEMM_HD void hb_smem_block_clear(HB_SHARED hb_smem_block *b)
{
    hb_site_clear(&b->load);
    hb_site_clear(&b->store);
    hb_site_clear(&b->write);
    hb_site_clear(&b->read);
    b->store_group = b->store_retired = b->write_fence = 0;
}

/* Has the block's last TMA store finished reading it, and is that retirement ordered before `start`? */
static inline WSGEMM_HD int hb_smem_store_retired_before(const HB_SHARED hb_smem_block *b, const hb_vc *start)
{
    if (b->store.kind == HB_NONE || b->store.comp >= HB_COMPONENTS) return 1;
    return b->store_retired != 0u && b->store_retired <= start->c[b->store.comp];
}

/* A generic-proxy access (write: st.shared, else ld.shared) of the block by an agent at `start`, `me` its
 * site. It must be ordered after the last TMA copy into the block (the wait that observed the copy's phase)
 * and, for a write, after the retirement of the last TMA store reading it. */
static inline WSGEMM_HD int hb_smem_generic_access(HB_SHARED hb_smem_block *b, int write, const hb_vc *start,
                                                   const hb_site *me, hb_site *earlier)
{
    if (!hb_site_ordered(&b->load, start)) {
        hb_site_copy(earlier, &b->load);
        return HB_SMEM_RACE;
    }
    if (write && !hb_smem_store_retired_before(b, start)) {
        hb_site_copy(earlier, &b->store);
        return HB_SMEM_RACE;
    }
    if (write) {
        hb_site_copy(&b->write, me);
        b->write_fence = 0;
    } else {
        hb_site_copy(&b->read, me);
    }
    return HB_SMEM_OK;
}

/* An asynchronous tcgen05 read of the block (a tcgen05.mma operand, the source of a tcgen05.cp) by an operation
 * whose start clock is `start`: ordered after the last TMA copy into the block (a full[s] wait and
 * fence::after_thread_sync before the issue). Returns HB_SMEM_OK, or HB_SMEM_RACE with the copy in *earlier.
 * The block remembers no such read: that the producer refills the stage only after the commit that follows
 * the reads (the empty[s] wait) is not checked here. */
static inline WSGEMM_HD int hb_smem_tcgen05_read(const HB_SHARED hb_smem_block *b, const hb_vc *start, hb_site *earlier)
{
    if (hb_site_ordered(&b->load, start)) return HB_SMEM_OK;
    hb_site_copy(earlier, &b->load);
    return HB_SMEM_RACE;
}

/* A TMA copy into the block issued by an agent at `start`: ordered after the retirement of the last TMA
 * store reading it and after its last generic read and write, which it supersedes. */
static inline WSGEMM_HD int hb_smem_tma_load(HB_SHARED hb_smem_block *b, const hb_vc *start, const hb_site *me,
                                             hb_site *earlier)
{
    if (!hb_smem_store_retired_before(b, start)) {
        hb_site_copy(earlier, &b->store);
        return HB_SMEM_RACE;
    }
    if (!hb_site_ordered(&b->write, start)) {
        hb_site_copy(earlier, &b->write);
        return HB_SMEM_RACE;
    }
    if (!hb_site_ordered(&b->read, start)) {
        hb_site_copy(earlier, &b->read);
        return HB_SMEM_RACE;
    }
    hb_site_copy(&b->load, me);
    hb_site_clear(&b->write);
    hb_site_clear(&b->read);
    b->write_fence = 0;
    return HB_SMEM_OK;
}

/* A TMA store reading the block, issued by an agent at `start` into its bulk async-group `group`: ordered
 * after the last TMA copy into the block and after its last generic write, with a fence.proxy.async of the
 * writer between that write and the issue (HB_SMEM_NO_FENCE when the write is ordered but no fence is). */
static inline WSGEMM_HD int hb_smem_tma_store(HB_SHARED hb_smem_block *b, const hb_vc *start, const hb_site *me,
                                              uint32_t group, hb_site *earlier)
{
    if (!hb_site_ordered(&b->load, start)) {
        hb_site_copy(earlier, &b->load);
        return HB_SMEM_RACE;
    }
    if (!hb_site_ordered(&b->write, start)) {
        hb_site_copy(earlier, &b->write);
        return HB_SMEM_RACE;
    }
    if (b->write.kind != HB_NONE && b->write.comp < HB_COMPONENTS &&
        (b->write_fence == 0u || b->write_fence > start->c[b->write.comp])) {
        hb_site_copy(earlier, &b->write);
        return HB_SMEM_NO_FENCE;
    }
    hb_site_copy(&b->store, me);
    b->store_group = group;
    b->store_retired = 0;
    return HB_SMEM_OK;
}

/* The store of agent component `comp` in bulk async-group `group` finished reading (a wait_group[.read] of
 * its issuer at clock `clock` retired the group); a later store of the block is left alone. */
static inline WSGEMM_HD void hb_smem_retire(HB_SHARED hb_smem_block *b, unsigned comp, uint32_t group, uint32_t clock)
{
    if (b->store.kind == HB_TMA_STORE && b->store.comp == comp && b->store_group == group && b->store_retired == 0u)
        b->store_retired = clock;
}

/* ---------------------------------------------------------------- cluster launch control response slots */

/* A CLC response slot (sync/clc.cuh) is a block of its own (the emulation maps it past the shared memory a kernel
 * can have). try_cancel writes the response by the async proxy from its issue until the full barrier phase its
 * complete_tx completes: the block's load site, as for a TMA copy. Every role reads the response with
 * ld.shared (its reads must be ordered after that write: no read before full), orders the read before the next
 * async write with fence.proxy.async and releases the slot; the next try_cancel into the slot must be ordered
 * after the last read (every reader released it) and after that reader's fence (read_fence). The block keeps
 * the last read only: a reissue before some reader released, or without fences, in a kernel whose readers all
 * follow one code path, is found at the last read before it. */

/* try_cancel (or its stand-in) into the slot, by an agent at `start`. */
static inline WSGEMM_HD int hb_clc_issue(HB_SHARED hb_smem_block *b, const hb_vc *start, const hb_site *me,
                                         hb_site *earlier)
{
    if (!hb_site_ordered(&b->read, start)) {
        hb_site_copy(earlier, &b->read);
        return HB_SMEM_RACE;
    }
    if (b->read.kind != HB_NONE && b->read.comp < HB_COMPONENTS &&
        (b->read_fence == 0u || b->read_fence > start->c[b->read.comp])) {
        hb_site_copy(earlier, &b->read);
        return HB_SMEM_NO_FENCE;
    }
    hb_site_copy(&b->load, me);
    hb_site_clear(&b->read);
    b->read_fence = 0;
    return HB_SMEM_OK;
}

/* A role's read of the response, by an agent at `start`: ordered after the last try_cancel's write (and there is
 * one: a read of a slot nothing has written yet is a read before full too). */
static inline WSGEMM_HD int hb_clc_read(HB_SHARED hb_smem_block *b, const hb_vc *start, const hb_site *me,
                                        hb_site *earlier)
{
    if (b->load.kind == HB_NONE || !hb_site_ordered(&b->load, start)) {
        hb_site_copy(earlier, &b->load);
        return HB_SMEM_RACE;
    }
    hb_site_copy(&b->read, me);
    b->read_fence = 0;
    return HB_SMEM_OK;
}

/* The fence.proxy.async after a read of the slot by agent component `comp`, whose clock is now `clock`: covers the
 * block's last read if that is the agent's and no fence covers it yet. */
static inline WSGEMM_HD void hb_clc_read_fenced(HB_SHARED hb_smem_block *b, unsigned comp, uint32_t clock)
{
    if (b->read.kind != HB_NONE && b->read.comp == comp && b->read_fence == 0u) b->read_fence = clock;
}

/* fence.proxy.async of agent component `comp` at clock `clock`: covers the block's last write if that is
 * the agent's and no fence covers it yet. */
static inline WSGEMM_HD void hb_smem_fence(HB_SHARED hb_smem_block *b, unsigned comp, uint32_t clock)
{
    if (b->write.kind == HB_SMEM_WRITE && b->write.comp == comp && b->write_fence == 0u) b->write_fence = clock;
}

/* The agent's own clock (0 without a component): the epoch of its synchronous shared-memory events. */
static inline WSGEMM_HD uint32_t hb_agent_clock(const HB_SHARED hb_agent *a)
{
    return a->self < HB_COMPONENTS ? a->vc.c[a->self] : 0u;
}

/* A generic access of blocks [block0, block0 + nblocks) by the agent: its start clock (*start) and epoch;
 * a write joins the range its next fence.proxy.async covers. */
static inline WSGEMM_HD uint32_t hb_generic_issue(HB_SHARED hb_agent *a, int write, unsigned block0, unsigned nblocks,
                                                  hb_vc *start)
{
    hb_vc_copy(start, &a->vc);
    if (write && nblocks) {
        HB_SHARED hb_proxy *p = &a->proxy;
        unsigned lo = block0, hi = block0 + nblocks;
        if (p->dirty_lo != p->dirty_hi) {
            if (p->dirty_lo < lo) lo = p->dirty_lo;
            if (p->dirty_hi > hi) hi = p->dirty_hi;
        }
        p->dirty_lo = (uint16_t)lo;
        p->dirty_hi = (uint16_t)hi;
    }
    return hb_agent_clock(a);
}

/* fence.proxy.async.shared::cta by the agent: returns its clock, the epoch of the fence, with the range of
 * blocks it wrote since its last fence (*lo == *hi: none) for hb_smem_fence; then its clock moves on, so its
 * later writes are not covered by this fence. */
static inline WSGEMM_HD uint32_t hb_proxy_fence(HB_SHARED hb_agent *a, unsigned *lo, unsigned *hi)
{
    uint32_t t = hb_agent_clock(a);
    *lo = a->proxy.dirty_lo;
    *hi = a->proxy.dirty_hi;
    a->proxy.dirty_lo = a->proxy.dirty_hi = 0;
    if (a->self < HB_COMPONENTS) a->vc.c[a->self] += 1u;
    return t;
}

/* A TMA store of blocks [block0, block0 + nblocks) issued by the agent: its start clock (*start), its bulk
 * async-group (*group: the one commit_group will close next) and its epoch; 0 when the agent already has
 * HB_BULK_PENDING stores pending (the caller stops tracking). */
static inline WSGEMM_HD uint32_t hb_tma_store_issue(HB_SHARED hb_agent *a, unsigned block0, unsigned nblocks,
                                                    hb_vc *start, uint32_t *group)
{
    HB_SHARED hb_proxy *p = &a->proxy;
    if (p->pending >= HB_BULK_PENDING) return 0;
    hb_vc_copy(start, &a->vc);
    *group = p->committed;
    p->store[p->pending].block0 = (uint16_t)block0;
    p->store[p->pending].nblocks = (uint16_t)nblocks;
    p->store[p->pending].group = p->committed;
    p->pending += 1u;
    return hb_agent_clock(a);
}

/* cp.async.bulk.commit_group: the stores issued since the last one form a group. */
static inline WSGEMM_HD void hb_bulk_commit(HB_SHARED hb_agent *a)
{
    a->proxy.committed += 1u;
}

/* cp.async.bulk.wait_group[.read] n returned: the groups older than the n most recent are done reading.
 * Takes one retired store out of the agent's list (its blocks and group; *clock: the agent's clock, the
 * retirement's epoch) and returns 1, or 0 when none is left. Call until 0. */
static inline WSGEMM_HD int hb_bulk_take_retired(HB_SHARED hb_agent *a, uint32_t n, unsigned *block0, unsigned *nblocks,
                                                 uint32_t *group, uint32_t *clock)
{
    HB_SHARED hb_proxy *p = &a->proxy;
    HB_LOOP
    for (uint32_t i = 0; i < p->pending; i++) {
        uint32_t g = p->store[i].group;
        if (g + n >= p->committed) continue; /* among the n most recent groups, or not committed yet */
        *block0 = p->store[i].block0;
        *nblocks = p->store[i].nblocks;
        *group = g;
        *clock = hb_agent_clock(a);
        uint32_t last = p->pending - 1u;
        p->store[i].block0 = p->store[last].block0;
        p->store[i].nblocks = p->store[last].nblocks;
        p->store[i].group = p->store[last].group;
        p->pending = last;
        return 1;
    }
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_EMU_HB_H */
