// SPDX-License-Identifier: MIT
/*
 * emu/tmem_emu.cuh - the sm_90a backend of tmem/tmem.cuh: Tensor Memory and tcgen05.mma (kind::f16 with
 * F16/BF16 operands, kind::f8f6f4 with E4M3/E5M2, kind::mxf8f6f4.block_scale with UE8M0 factors per 32 K) and
 * tcgen05.cp (32x128b.warpx4, the factors' copy into TMEM) emulated on CUDA cores, with a checker for the PTX
 * rules.
 * Do not include directly: with WSGEMM_TMEM_EMULATION=1 a translation unit includes emu/emulation.cuh
 * first, then tmem/tmem.cuh. The model and what it proves: docs/emulation.md, docs/tmem.md.
 *
 * The model
 *   - TMEM: per SM (indexed by %smid, as on Blackwell, so co-resident CTAs compete for the same 512
 *     columns) 128 lanes x 512 columns of 32-bit cells in global memory, cell (lane, column) at
 *     cells[(smid * 512 + column) * 128 + lane]: a warp reading 32 consecutive lanes of one column is one
 *     coalesced 128-B access. Addressed by the real `lane << 16 | column` values the kernel passes.
 *     Cells are poisoned (a NaN pattern) at alloc and at dealloc.
 *   - Allocator: per SM a 16-bit mask of 32-column units and the owning CTA of each unit; alloc takes the
 *     first free run aligned to its size (power of 2 in [32, 512] columns) and spins (nanosleep) while
 *     none is free: it blocks like tcgen05.alloc. Per CTA (indexed by the linear block id) a record: its
 *     SM, whether it allocated, relinquished, which units it ever held and freed (to tell a double
 *     dealloc from a stray one). The whole kernel's cta_group is one word: the first tcgen05 operation
 *     with a cta_group sets it, any other value traps.
 *   - UMMA: decoded from the real descriptor bits; operands read from shared memory with generic loads
 *     (the peer's through DSMEM, __cluster_map_shared_rank) at the addresses the canonical layout and the
 *     swizzle XOR give (swizzle on the absolute shared address, as the hardware and TMA do); products in
 *     fp32 FMA, accumulated into the TMEM cells of this CTA and, for cta_group 2, of the peer.
 *     Synchronous: done when the call returns; then commit fences (acq_rel, cluster scope) and arrives
 *     with release at cluster scope on the barrier(s). Block-scaled: each K=32 instruction's fp32 dot
 *     product of a row and a column is multiplied by A's factor of the row and B's of the column, read from
 *     TMEM where the PTX ISA's scale-factor layout puts them (tmem/desc.h), after checking that all four
 *     lane quarters hold the same factors (SF_NOT_REPLICATED otherwise).
 *   - tcgen05.cp: the 32 rows of 16 bytes the no-swizzle source descriptor names, written into the four lane
 *     quarters of 4 columns (the peer's from its own shared memory for cta_group 2), synchronously.
 *   - tcgen05.ld: loads of the cells (L2, __ldcg) after the lane-quarter and ownership checks. The
 *     destination registers hold the poison pattern (a NaN) until the thread's tcgen05.wait::ld, which
 *     delivers the values: a use of the registers before the wait computes with NaN, as an asynchronous
 *     load would give garbage on hardware. (A read of a register cannot be intercepted; the wait finds the
 *     registers through the pointer the load was given, so they live in local memory in this build.)
 *   - Happens-before: every TMEM access and every barrier edge carries vector clocks (emu/hb.h,
 *     emu/hb_emu.cuh), so two accesses of which one writes, unordered by happens-before under the PTX
 *     rules for the tcgen05 fences, are reported (RACE) whether or not they overlapped in this run.
 *   - Errors: "TMEM-EMU ERROR <name>: <what>" with block, warp, lane and the values involved, recorded in
 *     host-mapped memory (tmem_host_last_error survives the trap), then __trap().
 */
#ifndef WSGEMM_EMU_TMEM_EMU_CUH
#define WSGEMM_EMU_TMEM_EMU_CUH

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#if !defined(WSGEMM_EMU_ENTRY)
#error "emu/tmem_emu.cuh: include emu/emulation.cuh instead (it brings the happens-before hooks sync/ needs first)"
#endif

#include "../sync/cluster.cuh"
#include "../sync/mbarrier.cuh"
#include "../tmem/desc.h"
#include "hb_emu.cuh"
#include "tmem_emu_error.cuh"

/* ================================================================ state shared by host and device */

enum {
    TMEM_EMU_UNIT_COLS = 32,       /* allocation granule: the smallest legal ncols */
    TMEM_EMU_UNITS = 16,           /* 512 / 32 */
    TMEM_EMU_MAX_CTAS = 16384,     /* per launch (linear block id); more traps with CAPACITY */
    TMEM_EMU_POISON = 0x7FBADBADu, /* a quiet NaN: an uninitialised accumulator shows up in any check */
    TMEM_EMU_REVOKED = 0x80000000u /* owner tag bit: the pair's other CTA deallocated (cta_group 2) */
};

/* How long the lanes of a warp that reached a .sync.aligned operation wait for the rest of the warp before
 * the emulation reports NOT_CONVERGED: far beyond the spread of a complete warp (microseconds, also while
 * several processes share the GPU), short enough for the tests that plant a partial warp. */
#define TMEM_EMU_WARP_SYNC_NS 1000000000ull

typedef struct tmem_emu_sm {
    uint32_t used;                  /* bit u: columns 32u .. 32u+31 allocated */
    uint32_t owner[TMEM_EMU_UNITS]; /* linear block id + 1 of the holder (| TMEM_EMU_REVOKED once the pair's
                                       other CTA deallocated), 0 when free */
    uint32_t pad[15];
} tmem_emu_sm;

typedef struct tmem_emu_cta {
    uint32_t state; /* 0 never allocated, 1 allocated (smid valid) */
    uint32_t smid;
    uint32_t relinquished;
    uint32_t units_alloc; /* units ever allocated */
    uint32_t units_freed; /* units freed and not allocated again */
    uint32_t pad[3];
    uint32_t warp_arrivals[32]; /* lanes of each warp that reached a .sync.aligned operation (tmem_emu_require_warp) */
} tmem_emu_cta;

typedef struct tmem_emu_globals {
    uint32_t *cells;       /* [num_sms][512][128] */
    tmem_emu_sm *sms;      /* [num_sms] */
    tmem_emu_cta *ctas;    /* [TMEM_EMU_MAX_CTAS] */
    uint32_t *control;     /* [0] = the kernel's cta_group (0 = none yet) */
    tmem_emu_error *error; /* device pointer of the host-mapped record */
    uint32_t num_sms;
    uint32_t delay_max_ns;
    uint64_t seed;
    uint32_t prepared;
} tmem_emu_globals;

/* One copy per translation unit (whole-program compilation): the host functions below fill it. */
static __constant__ tmem_emu_globals c_tmem_emu;

/* ================================================================ small device helpers */

static __device__ __forceinline__ uint32_t tmem_emu_smid(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); /* PTX ISA "Special Registers: %smid" */
    return r;
}

/* PTX ISA "Special Registers: %cluster_ctaid, %cluster_nctaid": the CTA's position in its cluster. */
static __device__ __forceinline__ uint3 tmem_emu_cluster_ctaid(void)
{
    uint3 r;
    asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r.x));
    asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(r.y));
    asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(r.z));
    return r;
}

static __device__ __forceinline__ uint3 tmem_emu_cluster_nctaid(void)
{
    uint3 r;
    asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r.x));
    asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(r.y));
    asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(r.z));
    return r;
}

/* PTX ISA "membar/fence": fence.acq_rel.cluster. The emulation's stand-in for the tcgen05 fences and for
 * "the MMA results are visible": TMEM cells are global memory written by this SM or, for cta_group 2, by
 * the peer's SM in the same cluster. */
static __device__ __forceinline__ void tmem_emu_fence(void)
{
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
}

/* The emulated tcgen05.fence::before_thread_sync / ::after_thread_sync: the memory fence, and the ordering
 * rule of each in the happens-before tracking (emu/hb.h). */
static __device__ __forceinline__ void tmem_emu_fence_before_thread_sync(void)
{
    tmem_hb_fence(1);
    tmem_emu_fence();
}

static __device__ __forceinline__ void tmem_emu_fence_after_thread_sync(void)
{
    tmem_emu_fence();
    tmem_hb_fence(0);
}

/* Linear block id of the other CTA of this CTA's pair (cluster rank ^ 1). */
static __device__ __forceinline__ uint32_t tmem_emu_peer_block_linear(void)
{
    uint3 me = tmem_emu_cluster_ctaid(), n = tmem_emu_cluster_nctaid();
    uint32_t peer_rank = cluster_ctarank() ^ 1u;
    uint32_t px = peer_rank % n.x, py = (peer_rank / n.x) % n.y, pz = peer_rank / (n.x * n.y);
    uint32_t bx = blockIdx.x - me.x + px, by = blockIdx.y - me.y + py, bz = blockIdx.z - me.z + pz;
    return bx + gridDim.x * (by + gridDim.y * bz);
}

static __device__ __noinline__ void tmem_emu_fail(uint32_t code, const char *what, uint32_t a, uint32_t b, uint32_t c)
{
    tmem_emu_write_record(c_tmem_emu.error, code, a, b, c);
    printf("TMEM-EMU ERROR %s: %s (a=%u b=%u c=%u) block (%u,%u,%u) warp %u lane %u\n", tmem_emu_error_name(code), what,
           a, b, c, blockIdx.x, blockIdx.y, blockIdx.z, tmem_emu_warp_index(), tmem_emu_laneid());
    __trap();
}

static __device__ __forceinline__ void tmem_emu_check_prepared(void)
{
    if (!c_tmem_emu.prepared)
        tmem_emu_fail(TMEM_EMU_ERR_NOT_PREPARED, "tmem_host_prepare() was not called before this launch", 0, 0, 0);
}

/* .sync.aligned (tcgen05.alloc, dealloc, relinquish_alloc_permit, ld, and umma_mma_warp): every lane of the
 * warp executes the same instruction, and .sync makes each lane wait until all 32 have (PTX ISA "tcgen05.ld":
 * "causes the executing thread to wait until all threads in the warp execute the same tcgen05.ld";
 * ptxas puts a WARPSYNC before such instructions). The emulation does what .sync does instead of testing
 * __activemask(): a complete warp may still run as several groups at this point (sm_90 lets lanes waiting
 * at a reconvergence point go on while another lane spins on a lock, and a __syncwarp() synchronises the
 * groups without merging them), which is legal and must not be reported. Each lane counts itself into
 * its warp's arrival word and waits until the count reaches the next multiple of 32 (the lanes of a warp
 * cannot be one such operation apart: each waits for all 32); fewer than 32 lanes within
 * TMEM_EMU_WARP_SYNC_NS is the part-of-a-warp bug: NOT_CONVERGED, a = this group's active mask, b = lanes
 * that arrived. The __syncwarp() after the wait is legal: all 32 lanes are past their count. */
static __device__ __noinline__ void tmem_emu_require_warp(const char *op)
{
    const uint32_t block = tmem_emu_block_linear();
    if (block >= TMEM_EMU_MAX_CTAS)
        tmem_emu_fail(TMEM_EMU_ERR_CAPACITY, "block id beyond TMEM_EMU_MAX_CTAS", block, TMEM_EMU_MAX_CTAS, 0);
    uint32_t *word = &c_tmem_emu.ctas[block].warp_arrivals[tmem_emu_warp_index() % 32u];
    const uint32_t ticket = atomicAdd(word, 1u), target = (ticket / 32u + 1u) * 32u;
    const uint64_t t0 = tmem_emu_globaltimer();
    while ((int32_t)(*(volatile uint32_t *)word - target) < 0) {
        if (tmem_emu_globaltimer() - t0 > TMEM_EMU_WARP_SYNC_NS)
            tmem_emu_fail(TMEM_EMU_ERR_NOT_CONVERGED, op, __activemask(), *(volatile uint32_t *)word - (target - 32u),
                          32u);
        __nanosleep(32);
    }
    __syncwarp();
}

/* An instruction one thread issues (tcgen05.mma, tcgen05.commit): several active lanes mean several
 * instructions on hardware, which is never what a kernel wants. */
static __device__ __forceinline__ void tmem_emu_require_single(const char *op)
{
    uint32_t mask = __activemask();
    if (__popc(mask) != 1) tmem_emu_fail(TMEM_EMU_ERR_MULTI_THREAD_ISSUE, op, mask, __popc(mask), 0);
}

/* Every tcgen05 instruction of a kernel must use the same cta_group (ptxas rejects a mix on sm_100a;
 * the emulation checks it across the whole grid). */
static __device__ __forceinline__ void tmem_emu_note_cta_group(uint32_t cg)
{
    volatile uint32_t *word = c_tmem_emu.control;
    if (*word == cg) return;
    uint32_t old = atomicCAS(c_tmem_emu.control, 0u, cg);
    if (old != 0u && old != cg)
        tmem_emu_fail(TMEM_EMU_ERR_CTA_GROUP_MIX, "two cta_group values in one kernel", old, cg, 0);
}

/* Optional random delay (tmem_host_set_random_delays) before an emulated operation. */
static __device__ __forceinline__ void tmem_emu_delay(uint32_t salt)
{
    uint32_t max_ns = c_tmem_emu.delay_max_ns;
    if (max_ns == 0) return;
    uint64_t h = c_tmem_emu.seed ^ ((uint64_t)clock64() << 17) ^ ((uint64_t)tmem_emu_block_linear() << 32) ^
                 ((uint64_t)threadIdx.x << 8) ^ salt;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    __nanosleep((uint32_t)(h % max_ns));
}

static __device__ __forceinline__ tmem_emu_cta *tmem_emu_cta_record(uint32_t block_linear)
{
    if (block_linear >= TMEM_EMU_MAX_CTAS)
        tmem_emu_fail(TMEM_EMU_ERR_CAPACITY, "block id beyond TMEM_EMU_MAX_CTAS", block_linear, TMEM_EMU_MAX_CTAS, 0);
    return &c_tmem_emu.ctas[block_linear];
}

static __device__ __forceinline__ uint32_t tmem_emu_my_sm(void)
{
    uint32_t sm = tmem_emu_smid();
    if (sm >= c_tmem_emu.num_sms)
        tmem_emu_fail(TMEM_EMU_ERR_CAPACITY, "smid beyond the emulated SMs", sm, c_tmem_emu.num_sms, 0);
    return sm;
}

static __device__ __forceinline__ uint32_t *tmem_emu_cells(uint32_t sm)
{
    return c_tmem_emu.cells + (size_t)sm * TMEM_COLUMNS * TMEM_LANES;
}

/* Columns [col, col+ncols) of SM `sm`: 0 = all held by block `tag` (linear id + 1), 1 = held but revoked
 * because the other CTA of the pair deallocated (cta_group 2), 2 = not held. */
static __device__ __forceinline__ int tmem_emu_held_state(uint32_t sm, uint32_t col, uint32_t ncols, uint32_t tag)
{
    volatile uint32_t *owner = c_tmem_emu.sms[sm].owner;
    int state = 0;
    for (uint32_t u = col / TMEM_EMU_UNIT_COLS; u <= (col + ncols - 1) / TMEM_EMU_UNIT_COLS; u++) {
        uint32_t o = owner[u];
        if (o == (tag | TMEM_EMU_REVOKED))
            state = state > 1 ? state : 1;
        else if (o != tag)
            state = 2;
    }
    return state;
}

static __device__ __forceinline__ int tmem_emu_held_by(uint32_t sm, uint32_t col, uint32_t ncols, uint32_t tag)
{
    return tmem_emu_held_state(sm, col, ncols, tag) == 0;
}

/* Whole warp: fill columns [col, col+ncols) of all 128 lanes with the poison pattern. */
static __device__ __forceinline__ void tmem_emu_poison(uint32_t sm, uint32_t col, uint32_t ncols)
{
    uint32_t *cells = tmem_emu_cells(sm);
    uint32_t lane = tmem_emu_laneid();
    for (uint32_t c = col; c < col + ncols; c++)
        for (uint32_t l = lane; l < TMEM_LANES; l += 32)
            __stcg(cells + (size_t)c * TMEM_LANES + l, (uint32_t)TMEM_EMU_POISON);
}

/* ================================================================ allocation */

static __device__ __noinline__ void tmem_emu_alloc(uint32_t cg, uint32_t *slot_smem, uint32_t ncols)
{
    tmem_emu_check_prepared();
    tmem_emu_require_warp("tcgen05.alloc executed by part of a warp");
    if (__shfl_sync(0xFFFFFFFFu, ncols, 0) != ncols)
        tmem_emu_fail(TMEM_EMU_ERR_NOT_CONVERGED, "tcgen05.alloc: lanes pass different ncols", ncols, 0, 0);
    tmem_emu_note_cta_group(cg);
    if (!TMEM_NCOLS_IS_LEGAL(ncols))
        tmem_emu_fail(TMEM_EMU_ERR_NCOLS, "tcgen05.alloc: ncols must be a power of 2 in [32, 512]", ncols, 0, 0);
    tmem_emu_delay(1);
    uint32_t lane = tmem_emu_laneid();
    uint32_t sm = tmem_emu_my_sm();
    uint32_t col = 0;
    if (lane == 0) {
        uint32_t me = tmem_emu_block_linear();
        tmem_emu_cta *rec = tmem_emu_cta_record(me);
        volatile tmem_emu_cta *vrec = rec;
        if (vrec->relinquished)
            tmem_emu_fail(TMEM_EMU_ERR_ALLOC_AFTER_RELINQUISH,
                          "tcgen05.alloc after tcgen05.relinquish_alloc_permit in this CTA", ncols, 0, 0);
        if (cg == 2 && cluster_nctarank() < 2)
            tmem_emu_fail(TMEM_EMU_ERR_NO_CLUSTER, "tcgen05.alloc.cta_group::2 in a kernel launched without a cluster",
                          cluster_nctarank(), 0, 0);
        uint32_t need = ncols / TMEM_EMU_UNIT_COLS;
        uint32_t pattern = (need >= 32u) ? 0xFFFFFFFFu : ((1u << need) - 1u);
        volatile uint32_t *used_word = &c_tmem_emu.sms[sm].used;
        uint64_t t0 = tmem_emu_globaltimer();
        uint32_t got = 0xFFFFFFFFu;
        while (got == 0xFFFFFFFFu) {
            uint32_t used = *used_word;
            for (uint32_t u = 0; u + need <= TMEM_EMU_UNITS; u += need) {
                uint32_t bits = pattern << u;
                if (used & bits) continue;
                if (atomicCAS(&c_tmem_emu.sms[sm].used, used, used | bits) == used) {
                    got = u;
                }
                break; /* taken, or the mask changed under us: re-read it */
            }
            if (got != 0xFFFFFFFFu) break;
            if (tmem_emu_globaltimer() - t0 > 10000000000ull)
                tmem_emu_fail(TMEM_EMU_ERR_ALLOC_DEADLOCK,
                              "tcgen05.alloc blocked for 10 s (columns held by co-resident CTAs that never free them?)",
                              sm, used, ncols);
            __nanosleep(500);
        }
        for (uint32_t u = got; u < got + need; u++) c_tmem_emu.sms[sm].owner[u] = me + 1u;
        vrec->smid = sm;
        vrec->units_alloc |= pattern << got;
        vrec->units_freed &= ~(pattern << got);
        __threadfence();
        vrec->state = 1u; /* the peer's MMA / dealloc checks read it */
        __threadfence();
        col = got * TMEM_EMU_UNIT_COLS;
        tmem_hb_alloc(col, ncols);
    }
    col = __shfl_sync(0xFFFFFFFFu, col, 0);
    tmem_emu_poison(sm, col, ncols);
    __threadfence();
    __syncwarp();
    if (lane == 0) *(volatile uint32_t *)slot_smem = tmem_addr(0, col); /* the weak smem store tcgen05.alloc makes */
    __syncwarp();
}

static __device__ __noinline__ void tmem_emu_relinquish_alloc_permit(uint32_t cg)
{
    tmem_emu_check_prepared();
    tmem_emu_require_warp("tcgen05.relinquish_alloc_permit executed by part of a warp");
    tmem_emu_note_cta_group(cg);
    if (tmem_emu_laneid() == 0) {
        volatile tmem_emu_cta *rec = tmem_emu_cta_record(tmem_emu_block_linear());
        rec->relinquished = 1u;
    }
    __syncwarp();
}

static __device__ __noinline__ void tmem_emu_dealloc(uint32_t cg, uint32_t taddr, uint32_t ncols)
{
    tmem_emu_check_prepared();
    tmem_emu_require_warp("tcgen05.dealloc executed by part of a warp");
    if (__shfl_sync(0xFFFFFFFFu, ncols, 0) != ncols || __shfl_sync(0xFFFFFFFFu, taddr, 0) != taddr)
        tmem_emu_fail(TMEM_EMU_ERR_NOT_CONVERGED, "tcgen05.dealloc: lanes pass different taddr/ncols", taddr, ncols, 0);
    tmem_emu_note_cta_group(cg);
    if (!TMEM_NCOLS_IS_LEGAL(ncols))
        tmem_emu_fail(TMEM_EMU_ERR_NCOLS, "tcgen05.dealloc: ncols must be a power of 2 in [32, 512]", ncols, 0, 0);
    uint32_t col = tmem_addr_column(taddr);
    if (tmem_addr_lane(taddr) != 0 || col % TMEM_EMU_UNIT_COLS != 0 || col + ncols > TMEM_COLUMNS)
        tmem_emu_fail(TMEM_EMU_ERR_BAD_ADDRESS, "tcgen05.dealloc: taddr is not an allocation base", taddr, ncols, 0);
    tmem_emu_delay(2);
    uint32_t sm = tmem_emu_my_sm();
    uint32_t me = tmem_emu_block_linear();
    uint32_t first = col / TMEM_EMU_UNIT_COLS, need = ncols / TMEM_EMU_UNIT_COLS;
    uint32_t bits = ((need >= 32u) ? 0xFFFFFFFFu : ((1u << need) - 1u)) << first;
    if (tmem_emu_laneid() == 0) {
        volatile tmem_emu_cta *rec = tmem_emu_cta_record(me);
        volatile uint32_t *owner = c_tmem_emu.sms[sm].owner;
        for (uint32_t u = first; u < first + need; u++) {
            if (owner[u] == me + 1u || owner[u] == ((me + 1u) | TMEM_EMU_REVOKED))
                continue; /* held (or held and revoked by the pair's other dealloc: this CTA still frees its own) */
            if (rec->units_freed & (1u << u))
                tmem_emu_fail(TMEM_EMU_ERR_DOUBLE_DEALLOC, "tcgen05.dealloc of columns this CTA already freed", taddr,
                              ncols, u * TMEM_EMU_UNIT_COLS);
            tmem_emu_fail(TMEM_EMU_ERR_DEALLOC_UNALLOCATED, "tcgen05.dealloc of columns this CTA does not hold", taddr,
                          ncols, u * TMEM_EMU_UNIT_COLS);
        }
        if (cg == 2) {
            uint32_t peer_block = tmem_emu_peer_block_linear();
            volatile tmem_emu_cta *peer = tmem_emu_cta_record(peer_block);
            if (peer->state == 0u)
                tmem_emu_fail(TMEM_EMU_ERR_PEER_NOT_ALLOCATED,
                              "tcgen05.dealloc.cta_group::2 before the peer CTA's alloc completed (no cluster sync "
                              "between alloc and dealloc?)",
                              taddr, ncols, peer_block);
            /* The pair's allocation is one collective resource: from this dealloc on, the peer may no longer
             * read or write these columns (it still frees its own with its dealloc). Only the peer's live
             * tag is revoked, so a unit the peer already freed (or that was reused) is left alone. */
            uint32_t peer_sm = peer->smid;
            for (uint32_t u = first; u < first + need; u++)
                atomicCAS(&c_tmem_emu.sms[peer_sm].owner[u], peer_block + 1u, (peer_block + 1u) | TMEM_EMU_REVOKED);
        }
        tmem_hb_dealloc(col, ncols, cg);
    }
    __syncwarp();
    tmem_emu_poison(sm, col, ncols);
    __threadfence();
    __syncwarp();
    if (tmem_emu_laneid() == 0) {
        volatile tmem_emu_cta *rec = tmem_emu_cta_record(me);
        for (uint32_t u = first; u < first + need; u++) c_tmem_emu.sms[sm].owner[u] = 0u;
        rec->units_freed |= bits;
        __threadfence();
        atomicAnd(&c_tmem_emu.sms[sm].used, ~bits);
    }
    __syncwarp();
}

/* ================================================================ loads */

/* Lane 0 checks the warp's access, every lane traps if it failed (one message per warp). */
static __device__ __forceinline__ uint32_t tmem_emu_ld_check(uint32_t taddr, uint32_t lanes, uint32_t ncols,
                                                             const char *op)
{
    tmem_emu_check_prepared();
    tmem_emu_require_warp(op);
    uint32_t warp = tmem_emu_warp_index();
    uint32_t quarter = 32u * (warp % 4u);
    uint32_t lane_field = tmem_addr_lane(taddr), col = tmem_addr_column(taddr);
    uint32_t sm = tmem_emu_my_sm();
    if (tmem_emu_laneid() == 0) {
        if (lane_field < quarter || lane_field + lanes > quarter + 32u)
            tmem_emu_fail(TMEM_EMU_ERR_LANE_QUARTER,
                          "tcgen05.ld outside the warp's lane quarter 32*(warp%4)..+31 (a=warp b=first lane c=lanes)",
                          warp, lane_field, lanes);
        if (col + ncols > TMEM_COLUMNS)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_ADDRESS, "tcgen05.ld beyond column 511", taddr, ncols, 0);
        int held = tmem_emu_held_state(sm, col, ncols, tmem_emu_block_linear() + 1u);
        if (held == 1)
            tmem_emu_fail(TMEM_EMU_ERR_PAIR_DEALLOCATED,
                          "tcgen05.ld after the other CTA of the pair deallocated (cta_group::2 dealloc is collective: "
                          "both epilogues must be done before either CTA frees; missing peer signal?)",
                          taddr, ncols, 0);
        if (held == 2)
            tmem_emu_fail(TMEM_EMU_ERR_UNALLOCATED_ACCESS,
                          "tcgen05.ld from columns this CTA does not hold (never allocated, or already deallocated)",
                          taddr, ncols, 0);
        tmem_hb_ld(lane_field, lanes, col, ncols);
    }
    __syncwarp();
    tmem_emu_delay(3);
    return sm;
}

enum { TMEM_EMU_LD_32X32B = 0, TMEM_EMU_LD_16X256B = 1 };

/* The values a tcgen05.ld of `shape` at taddr delivers to this lane (n = the .xN repeat). */
static __device__ void tmem_emu_ld_values(uint32_t sm, uint32_t shape, uint32_t taddr, uint32_t *regs, uint32_t n)
{
    const uint32_t *cells = tmem_emu_cells(sm);
    uint32_t l = tmem_emu_laneid();
    uint32_t lane0 = tmem_addr_lane(taddr), col0 = tmem_addr_column(taddr);
    if (shape == TMEM_EMU_LD_32X32B) {
        for (uint32_t i = 0; i < n; i++) regs[i] = __ldcg(cells + (size_t)(col0 + i) * TMEM_LANES + lane0 + l);
        return;
    }
    for (uint32_t i = 0; i < 4u * n; i++) {
        uint32_t lane = lane0 + l / 4u + 8u * ((i / 2u) % 2u);
        uint32_t col = col0 + 2u * (l % 4u) + i % 2u + 8u * (i / 4u);
        regs[i] = __ldcg(cells + (size_t)col * TMEM_LANES + lane);
    }
}

/* The asynchronous result: the registers hold the poison pattern until tmem_emu_wait_ld delivers the
 * values (if the thread's held loads fit the table; otherwise they are delivered at once). */
static __device__ __noinline__ void tmem_emu_ld_deliver_later(uint32_t sm, uint32_t shape, uint32_t taddr,
                                                              uint32_t *regs, uint32_t n)
{
    tmem_hb_thread_regs *held = tmem_hb_thread_regs_of_me();
    uint32_t nregs = shape == TMEM_EMU_LD_32X32B ? n : 4u * n;
    if (!held || held->count >= TMEM_HB_PENDING) {
        tmem_emu_ld_values(sm, shape, taddr, regs, n);
        return;
    }
    tmem_hb_pending *p = &held->p[held->count++];
    p->regs = regs;
    p->taddr = taddr;
    p->shape = (uint16_t)shape;
    p->n = (uint16_t)n;
    for (uint32_t i = 0; i < nregs; i++) regs[i] = (uint32_t)TMEM_EMU_POISON;
}

static __device__ __forceinline__ void tmem_emu_ld_32x32b(uint32_t taddr, uint32_t *regs, uint32_t n)
{
    uint32_t sm = tmem_emu_ld_check(taddr, 32u, n, "tcgen05.ld.32x32b executed by part of a warp");
    tmem_emu_ld_deliver_later(sm, TMEM_EMU_LD_32X32B, taddr, regs, n);
}

static __device__ __forceinline__ void tmem_emu_ld_16x256b(uint32_t taddr, uint32_t *regs, uint32_t n)
{
    uint32_t sm = tmem_emu_ld_check(taddr, 16u, 8u * n, "tcgen05.ld.16x256b executed by part of a warp");
    tmem_emu_ld_deliver_later(sm, TMEM_EMU_LD_16X256B, taddr, regs, n);
}

/* The emulated tcgen05.wait::ld (whole warp): every earlier load of this thread completes: its registers
 * get their values, and the loads are ordered before the warp's later tcgen05 operations. */
static __device__ __noinline__ void tmem_emu_wait_ld(void)
{
    tmem_hb_thread_regs *held = tmem_hb_thread_regs_of_me();
    if (held) {
        uint32_t sm = tmem_emu_my_sm();
        for (uint32_t i = 0; i < held->count; i++)
            tmem_emu_ld_values(sm, held->p[i].shape, held->p[i].taddr, held->p[i].regs, held->p[i].n);
        held->count = 0;
    }
    __syncwarp();
    if (tmem_emu_laneid() == 0) tmem_hb_wait_ld();
    __syncwarp();
}

/* ================================================================ UMMA */

/* One decoded operand (A or B) of one instruction. */
typedef struct tmem_emu_operand {
    const char *start[2]; /* generic pointer of the start address in the issuing CTA [0] and the peer [1] */
    uint32_t start_addr;  /* shared address (for the swizzle, which works on absolute address bits) */
    uint32_t lbo, sbo;
    uint32_t row_bytes; /* swizzle atom row: 16 (none), 32, 64, 128 */
    uint32_t swz_mask;  /* bits 7.. XORed into bits 4..: 0, 1, 3, 7 */
    uint32_t mn_major;
    uint32_t format;     /* the kind's format code (kind::f16: 0 F16, 1 BF16; kind::f8f6f4: 0 E4M3, 1 E5M2) */
    uint32_t elem_bytes; /* 2 (kind::f16) or 1 (kind::f8f6f4) */
    uint32_t negate;
} tmem_emu_operand;

static inline __host__ __device__ uint32_t tmem_emu_swizzle(uint32_t addr, uint32_t mask)
{
    return addr ^ (((addr >> 7) & mask) << 4);
}

/* The address-forming part of the decode, host and device (the CPU test test_tmem_layout runs it against
 * the TMA tile layouts): everything but the generic pointers. */
static inline __host__ __device__ tmem_emu_operand tmem_emu_operand_geometry(uint64_t desc, uint32_t mn_major,
                                                                             uint32_t format, uint32_t elem_bytes,
                                                                             uint32_t negate)
{
    umma_smem_desc_fields f = umma_smem_desc_decode(desc);
    tmem_emu_operand op;
    op.start[0] = op.start[1] = 0;
    op.start_addr = f.start_addr;
    op.lbo = f.lbo_bytes;
    op.sbo = f.sbo_bytes;
    op.row_bytes = umma_swizzle_bytes(f.layout);
    op.swz_mask = op.row_bytes / 16u - 1u;
    op.mn_major = mn_major;
    op.format = format;
    op.elem_bytes = elem_bytes;
    op.negate = negate;
    return op;
}

/* Lane 0 validates (reporting once); every lane decodes. */
static __device__ __forceinline__ tmem_emu_operand tmem_emu_decode_operand(uint64_t desc, uint32_t mn_major,
                                                                           uint32_t format, uint32_t elem_bytes,
                                                                           uint32_t negate, uint32_t cg, int report,
                                                                           const char *which)
{
    umma_smem_desc_fields f = umma_smem_desc_decode(desc);
    if (report) {
        if (f.version != SMEM_DESC_VERSION_SM100)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, which, 46u, f.version,
                          0); /* bits 46-48 must be 0b001 on SM100 (left at 0 from SM90?) */
        if (!(f.layout == UMMA_SWIZZLE_NONE || f.layout == UMMA_SWIZZLE_32B || f.layout == UMMA_SWIZZLE_64B ||
              f.layout == UMMA_SWIZZLE_128B))
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, which, 61u, f.layout, 0); /* unknown or unmodelled swizzle code */
        if (f.base_offset != 0)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, which, 49u, f.base_offset, 0); /* base offset not modelled */
        if (f.lbo_mode != 0)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, which, 52u, f.lbo_mode, 0); /* absolute LBO mode not modelled */
        if (f.reserved != 0) tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, which, 14u, f.reserved, 0); /* reserved bits set */
        if (f.start_addr % 16u != 0) tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, which, 0u, f.start_addr, 0);
    }
    tmem_emu_operand op = tmem_emu_operand_geometry(desc, mn_major, format, elem_bytes, negate);
    op.start[0] = (const char *)__cvta_shared_to_generic((size_t)f.start_addr);
    op.start[1] =
        (cg == 2) ? (const char *)__cluster_map_shared_rank(op.start[0], cluster_ctarank() ^ 1u) : op.start[0];
    return op;
}

/* One 16-bit element (format 0 F16, 1 BF16) as fp32, exactly. */
static __device__ __forceinline__ float tmem_emu_to_float(uint16_t bits, uint32_t bf16)
{
    if (bf16) return __uint_as_float((uint32_t)bits << 16);
    return __half2float(__ushort_as_half(bits));
}

/* One 8-bit element (format 0 E4M3, 1 E5M2) as fp32, exactly (every E4M3 and E5M2 value is an f16 value). */
static __device__ __forceinline__ float tmem_emu_fp8_to_float(uint8_t bits, uint32_t e5m2)
{
    return __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)bits, e5m2 ? __NV_E5M2 : __NV_E4M3)));
}

/* Byte offset from the start address of the 16-B chunk `kc` (16 bytes of K from byte 16kc) of row `idx` of a
 * K-major operand: ((8,m),(T,2)):((rowT,SBO),(1,LBO or T)) in 16-byte units T, then the swizzle. */
static inline __host__ __device__ int32_t tmem_emu_k_major_chunk(const tmem_emu_operand *op, uint32_t idx, uint32_t kc)
{
    uint32_t k_step = (op->row_bytes == 16u) ? op->lbo : 16u;
    uint32_t addr = op->start_addr + (idx % 8u) * op->row_bytes + (idx / 8u) * op->sbo + kc * k_step;
    return (int32_t)tmem_emu_swizzle(addr, op->swz_mask) - (int32_t)op->start_addr;
}

/* Byte offset of element (mn index i, k index j) of an MN-major operand, T = 16 bytes of elements:
 *   no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO));   swizzled: ((T,x,m),(8,k)):((1,T,LBO),(xT,SBO)). */
static inline __host__ __device__ int32_t tmem_emu_mn_major_elem(const tmem_emu_operand *op, uint32_t i, uint32_t j)
{
    const uint32_t eb = op->elem_bytes;
    uint32_t addr;
    if (op->row_bytes == 16u) {
        uint32_t per_core = 16u / eb; /* elements of MN in one 16-byte core-matrix row */
        addr = op->start_addr + (i % per_core) * eb + (i / per_core) * op->sbo + (j % 8u) * 16u + (j / 8u) * op->lbo;
    } else {
        uint32_t per_row = op->row_bytes / eb; /* elements across one swizzle row */
        addr = op->start_addr + (i % per_row) * eb + (i / per_row) * op->lbo + (j % 8u) * op->row_bytes +
               (j / 8u) * op->sbo;
    }
    return (int32_t)tmem_emu_swizzle(addr, op->swz_mask) - (int32_t)op->start_addr;
}

/* The K values of one instruction (32 bytes: 16 of kind::f16, 32 of kind::f8f6f4; kElemBytes = op->elem_bytes)
 * of row `idx` (M index for A, N index for B) in CTA `cta` (0 issuing, 1 peer). */
template <int kElemBytes>
static __device__ __forceinline__ void tmem_emu_load_row(const tmem_emu_operand *op, uint32_t cta, uint32_t idx,
                                                         float *out)
{
    constexpr uint32_t kK = 32u / kElemBytes;
    const char *base = op->start[cta];
    if (!op->mn_major) {
#pragma unroll
        for (uint32_t kc = 0; kc < 2; kc++) {
            uint4 v = *(const uint4 *)(base + tmem_emu_k_major_chunk(op, idx, kc));
            uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (uint32_t e = 0; e < 4; e++) {
                if constexpr (kElemBytes == 2) {
                    out[8 * kc + 2 * e] = tmem_emu_to_float((uint16_t)(w[e] & 0xFFFFu), op->format);
                    out[8 * kc + 2 * e + 1] = tmem_emu_to_float((uint16_t)(w[e] >> 16), op->format);
                } else {
#pragma unroll
                    for (uint32_t b = 0; b < 4; b++)
                        out[16 * kc + 4 * e + b] = tmem_emu_fp8_to_float((uint8_t)(w[e] >> (8 * b)), op->format);
                }
            }
        }
    } else {
#pragma unroll
        for (uint32_t k = 0; k < kK; k++) {
            const char *elem = base + tmem_emu_mn_major_elem(op, idx, k);
            if constexpr (kElemBytes == 2)
                out[k] = tmem_emu_to_float(*(const uint16_t *)elem, op->format);
            else
                out[k] = tmem_emu_fp8_to_float(*(const uint8_t *)elem, op->format);
        }
    }
    if (op->negate) {
#pragma unroll
        for (uint32_t k = 0; k < kK; k++) out[k] = -out[k];
    }
}

/* A block-scaled MMA's scale factors: the TMEM cells of this CTA [0] and the peer [1], the first column of A's
 * and B's, and the byte (scale factor ID) each takes. */
typedef struct tmem_emu_scales {
    const uint32_t *cells[2];
    uint32_t sfa_col, sfb_col;
    uint32_t a_id, b_id;
} tmem_emu_scales;

/* A UE8M0 factor: 2^(e - 127) exactly (e = 0 the fp32 subnormal 2^-127), e = 255 NaN (OCP MX spec). */
static __device__ __forceinline__ float tmem_emu_ue8m0(uint32_t e)
{
    if (e == 255u) return __uint_as_float(0x7FC00000u);
    return e == 0u ? __uint_as_float(0x00400000u) : __uint_as_float(e << 23);
}

/* The factor of row (A: M index in the CTA, 0..127; B: N index, 0..N-1) from its chunk: column
 * sf_col + 4 (r / 128) + (r % 128) / 32, lane r % 32 of quarter q, byte id (tmem/desc.h). */
static __device__ __forceinline__ uint32_t tmem_emu_sf_byte(const uint32_t *cells, uint32_t sf_col, uint32_t r,
                                                            uint32_t q, uint32_t id)
{
    uint32_t col = sf_col + UMMA_SF_CHUNK_COLS * (r / UMMA_SF_CHUNK_ROWS) + umma_sf_tmem_column(r % UMMA_SF_CHUNK_ROWS);
    uint32_t word = __ldcg(cells + (size_t)col * TMEM_LANES + 32u * q + r % 32u);
    return (word >> (8u * id)) & 0xFFu;
}

/* Row m of A reads its factor in its own lane (quarter m / 32); column n of B in quarter (n / 32) % 4. The
 * check below has made sure the quarters agree, so which one is read does not change the result. */
static __device__ __forceinline__ float tmem_emu_sf_a(const tmem_emu_scales *sc, uint32_t cta, uint32_t m)
{
    return tmem_emu_ue8m0(tmem_emu_sf_byte(sc->cells[cta], sc->sfa_col, m, m / 32u, sc->a_id));
}
static __device__ __forceinline__ float tmem_emu_sf_b(const tmem_emu_scales *sc, uint32_t cta, uint32_t n)
{
    return tmem_emu_ue8m0(tmem_emu_sf_byte(sc->cells[cta], sc->sfb_col, n, (n / 32u) % 4u, sc->b_id));
}

/* The product part of an emulated UMMA with kElemBytes-byte operands: rows lane + j*nlanes (j < 4) of every
 * 4*nlanes-row group, in each CTA of the group, all n_total columns. */
template <int kElemBytes>
static __device__ __forceinline__ void tmem_emu_umma_products(uint32_t cg, const uint32_t *sm, uint32_t d_col,
                                                              uint32_t n_total, const tmem_emu_operand *a,
                                                              const tmem_emu_operand *b, uint32_t accumulate,
                                                              uint32_t lane, uint32_t nlanes, const tmem_emu_scales *sc)
{
    constexpr uint32_t kK = 32u / kElemBytes;
    uint32_t n_half = (cg == 2) ? n_total / 2u : n_total; /* B rows per CTA */
    for (uint32_t cta = 0; cta < cg; cta++) {
        uint32_t *cells = tmem_emu_cells(sm[cta]);
        for (uint32_t rbase = lane; rbase < 128u; rbase += 4u * nlanes) {
            float av[4][kK];
            uint32_t rows[4];
#pragma unroll
            for (uint32_t j = 0; j < 4; j++) {
                rows[j] = rbase + j * nlanes;
                tmem_emu_load_row<kElemBytes>(a, cta, rows[j], av[j]);
            }
            for (uint32_t n = 0; n < n_total; n++) {
                float bv[kK];
                tmem_emu_load_row<kElemBytes>(b, n / n_half, n % n_half, bv);
                const float sb = sc ? tmem_emu_sf_b(sc, cta, n) : 1.0f;
#pragma unroll
                for (uint32_t j = 0; j < 4; j++) {
                    float dot = 0.0f;
#pragma unroll
                    for (uint32_t k = 0; k < kK; k++) dot = fmaf(av[j][k], bv[k], dot);
                    if (sc) dot = (dot * tmem_emu_sf_a(sc, cta, rows[j])) * sb;
                    uint32_t *cell = cells + (size_t)(d_col + n) * TMEM_LANES + rows[j];
                    float d = accumulate ? __uint_as_float(__ldcg(cell)) + dot : dot;
                    __stcg(cell, __float_as_uint(d));
                }
            }
        }
    }
}

/* The checks of an MMA's D operand, shape and issuing CTA that every kind shares (lane 0 reports); returns the
 * SMs whose TMEM the MMA writes in sm[0] (this CTA) and sm[1] (the peer for cta_group 2, else this CTA). */
static __device__ __forceinline__ void tmem_emu_umma_check_d(uint32_t cg, uint32_t d_tmem, uint32_t m, uint32_t n,
                                                             int report, uint32_t *sm)
{
    uint32_t me = tmem_emu_block_linear();
    sm[0] = tmem_emu_my_sm();
    sm[1] = sm[0];
    uint32_t d_col = tmem_addr_column(d_tmem);
    if (report) {
        /* the dense kind::f8f6f4 and block-scaled shapes are the kind::f16 ones (PTX ISA "Matrix shape"),
         * M = 64 aside, which the next check excludes */
        if (!umma_f16_shape_is_legal((int)cg, m, n))
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, "idesc: illegal tcgen05.mma shape for this cta_group (a=M b=N c=cg)",
                          m, n, cg);
        if (m != 128u * cg)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC,
                          "idesc: the emulation models M=128 (cta_group::1) and M=256 (cta_group::2) only", m, cg, 0);
        if (tmem_addr_lane(d_tmem) != 0 || d_col + n > TMEM_COLUMNS)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_ADDRESS, "tcgen05.mma: D address must be lane 0 and fit in 512 columns",
                          d_tmem, n, 0);
        if (tmem_emu_held_state(sm[0], d_col, n, me + 1u) == 1)
            tmem_emu_fail(
                TMEM_EMU_ERR_PAIR_DEALLOCATED,
                "tcgen05.mma after the other CTA of the pair deallocated (cta_group::2 dealloc is collective)", d_tmem,
                n, 0);
        if (!tmem_emu_held_by(sm[0], d_col, n, me + 1u))
            tmem_emu_fail(TMEM_EMU_ERR_UNALLOCATED_ACCESS,
                          "tcgen05.mma writes D columns this CTA does not hold (never allocated, or deallocated)",
                          d_tmem, n, 0);
    }
    if (cg == 2) {
        if (report) {
            if (cluster_nctarank() < 2)
                tmem_emu_fail(TMEM_EMU_ERR_NO_CLUSTER, "tcgen05.mma.cta_group::2 without a cluster", cluster_nctarank(),
                              0, 0);
            if (cluster_ctarank() & 1u)
                tmem_emu_fail(TMEM_EMU_ERR_ODD_CTA_ISSUE, "tcgen05.mma.cta_group::2 issued by the odd CTA of the pair",
                              cluster_ctarank(), 0, 0);
        }
        uint32_t peer_block = tmem_emu_peer_block_linear();
        volatile tmem_emu_cta *peer = tmem_emu_cta_record(peer_block);
        uint32_t peer_state = peer->state;
        __threadfence();
        sm[1] = peer->smid;
        if (report && (peer_state == 0u || !tmem_emu_held_by(sm[1], d_col, n, peer_block + 1u)))
            tmem_emu_fail(TMEM_EMU_ERR_PEER_NOT_ALLOCATED,
                          "tcgen05.mma.cta_group::2: the peer CTA does not hold the D columns (no cluster sync after "
                          "its alloc, or it already deallocated)",
                          d_tmem, n, peer_block);
    }
}

/* The emulated tcgen05.mma.cta_group::cg.kind::<kind> (umma_kind), computed by `nlanes` lanes (1 or 32) of
 * which this is `lane`. */
static __device__ __forceinline__ void tmem_emu_umma_compute(uint32_t cg, uint32_t kind, uint32_t d_tmem,
                                                             uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                                             uint32_t accumulate, uint32_t lane, uint32_t nlanes)
{
    int report = (lane == 0);
    umma_idesc_fields id = umma_idesc_decode(idesc);
    uint32_t d_col = tmem_addr_column(d_tmem);
    if (report) {
        if (id.reserved & 2u)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, "idesc bit 23 is reserved (M written at bit 23 instead of 24?)", idesc,
                          id.m, 0);
        if (id.reserved != 0 || id.sparse || id.sparse_sel || id.saturate || id.max_shift)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, "idesc: reserved, sparsity, saturate or max-shift bits set", idesc,
                          id.reserved, 0);
        if (id.d_format != UMMA_ACC_F32)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, "idesc: the emulation models D = f32 only", idesc, id.d_format, 0);
        if (kind != UMMA_KIND_F16 && kind != UMMA_KIND_F8F6F4)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC,
                          "tcgen05.mma: kind::f16 and kind::f8f6f4 here (block-scaled: umma_mma_scaled)", kind, 0, 0);
        if (kind == UMMA_KIND_F16 && (id.a_format > 1u || id.b_format > 1u))
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, "idesc: kind::f16 takes A/B format 0 (f16) or 1 (bf16)", idesc,
                          id.a_format, id.b_format);
        if (kind == UMMA_KIND_F8F6F4 && (id.a_format > 1u || id.b_format > 1u))
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC,
                          "idesc: kind::f8f6f4 is modelled with A/B format 0 (E4M3) or 1 (E5M2) only", idesc,
                          id.a_format, id.b_format);
    }
    uint32_t sm[2];
    tmem_emu_umma_check_d(cg, d_tmem, id.m, id.n, report, sm);
    const uint32_t eb = umma_kind_elem_bytes((umma_kind)kind);
    tmem_emu_operand a = tmem_emu_decode_operand(a_desc, id.a_major, id.a_format, eb, id.negate_a, cg, report,
                                                 "A shared-memory descriptor field (a=bit position b=value)");
    tmem_emu_operand b = tmem_emu_decode_operand(b_desc, id.b_major, id.b_format, eb, id.negate_b, cg, report,
                                                 "B shared-memory descriptor field (a=bit position b=value)");
    if (report) tmem_hb_mma(d_col, id.n, cg, a.start_addr, b.start_addr);
    if (nlanes > 1) __syncwarp(); /* lane 0 validated everything (or trapped) before any lane touches memory */
    if (eb == 1u)
        tmem_emu_umma_products<1>(cg, sm, d_col, id.n, &a, &b, accumulate, lane, nlanes, 0);
    else
        tmem_emu_umma_products<2>(cg, sm, d_col, id.n, &a, &b, accumulate, lane, nlanes, 0);
    tmem_emu_fence(); /* this lane's cells visible at cluster scope before the commit's release */
}

static __device__ __noinline__ void tmem_emu_umma_single(uint32_t cg, uint32_t kind, uint32_t d_tmem, uint64_t a_desc,
                                                         uint64_t b_desc, uint32_t idesc, uint32_t accumulate)
{
    tmem_emu_check_prepared();
    tmem_emu_require_single("tcgen05.mma issued by several threads (one MMA each on hardware): use "
                            "elect_one_sync() or umma_mma_warp");
    tmem_emu_note_cta_group(cg);
    tmem_emu_delay(4);
    tmem_emu_umma_compute(cg, kind, d_tmem, a_desc, b_desc, idesc, accumulate, 0, 1);
}

static __device__ __noinline__ void tmem_emu_umma_warp(uint32_t cg, uint32_t kind, uint32_t d_tmem, uint64_t a_desc,
                                                       uint64_t b_desc, uint32_t idesc, uint32_t accumulate)
{
    tmem_emu_check_prepared();
    tmem_emu_require_warp("umma_mma_warp called by part of a warp (the whole MMA warp calls it)");
    if (__shfl_sync(0xFFFFFFFFu, d_tmem, 0) != d_tmem || __shfl_sync(0xFFFFFFFFu, idesc, 0) != idesc ||
        __shfl_sync(0xFFFFFFFFu, a_desc, 0) != a_desc || __shfl_sync(0xFFFFFFFFu, b_desc, 0) != b_desc ||
        __shfl_sync(0xFFFFFFFFu, accumulate, 0) != accumulate || __shfl_sync(0xFFFFFFFFu, kind, 0) != kind)
        tmem_emu_fail(TMEM_EMU_ERR_NOT_CONVERGED,
                      "umma_mma_warp: lanes pass different operands (the leader's are used "
                      "on hardware)",
                      d_tmem, idesc, 0);
    tmem_emu_note_cta_group(cg);
    if (tmem_emu_laneid() == 0) tmem_emu_delay(4);
    __syncwarp();
    tmem_emu_umma_compute(cg, kind, d_tmem, a_desc, b_desc, idesc, accumulate, tmem_emu_laneid(), 32u);
    __syncwarp();
}

/* ---------------------------------------------------------------- block scaling */

/* Columns [col, col + ncols) held by this CTA and, for cta_group 2, by the peer (sm[1]); lane 0 reports. */
static __device__ __forceinline__ void tmem_emu_check_held_pair(uint32_t cg, const uint32_t *sm, uint32_t taddr,
                                                                uint32_t ncols, const char *what)
{
    uint32_t col = tmem_addr_column(taddr);
    if (tmem_addr_lane(taddr) != 0 || col + ncols > TMEM_COLUMNS)
        tmem_emu_fail(TMEM_EMU_ERR_BAD_ADDRESS, what, taddr, ncols, 0);
    if (!tmem_emu_held_by(sm[0], col, ncols, tmem_emu_block_linear() + 1u))
        tmem_emu_fail(TMEM_EMU_ERR_UNALLOCATED_ACCESS, what, taddr, ncols, 0);
    if (cg == 2 && !tmem_emu_held_by(sm[1], col, ncols, tmem_emu_peer_block_linear() + 1u))
        tmem_emu_fail(TMEM_EMU_ERR_PEER_NOT_ALLOCATED, what, taddr, ncols, tmem_emu_peer_block_linear());
}

/* Every lane quarter holds the same scale factors in columns [col, col + ncols) (PTX ISA "Block scaling": the
 * MMA may read any of them; tcgen05.cp .warpx4 writes all four). Lanes split the rows. */
static __device__ __forceinline__ void tmem_emu_check_sf_replicated(const uint32_t *cells, uint32_t col, uint32_t ncols,
                                                                    uint32_t lane, uint32_t nlanes)
{
    for (uint32_t c = col; c < col + ncols; c++)
        for (uint32_t t = lane; t < 32u; t += nlanes) {
            uint32_t w0 = __ldcg(cells + (size_t)c * TMEM_LANES + t);
            for (uint32_t q = 1; q < 4u; q++) {
                uint32_t wq = __ldcg(cells + (size_t)c * TMEM_LANES + 32u * q + t);
                if (wq != w0)
                    tmem_emu_fail(TMEM_EMU_ERR_SF_NOT_REPLICATED,
                                  "block-scaled tcgen05.mma: scale factors differ between lane quarters (a=column "
                                  "b=lane c=quarter; copied without .warpx4?)",
                                  c, t, q);
            }
        }
}

/* The emulated tcgen05.mma.cta_group::cg.kind::mxf8f6f4.block_scale (E4M3/E5M2, UE8M0 factors, scale_vec::1X):
 * every product of one K=32 instruction is scaled by A's factor of its row and B's of its column. */
static __device__ __forceinline__ void tmem_emu_umma_scaled_compute(uint32_t cg, uint32_t d_tmem, uint64_t a_desc,
                                                                    uint64_t b_desc, uint32_t idesc, uint32_t sfa_tmem,
                                                                    uint32_t sfb_tmem, uint32_t accumulate,
                                                                    uint32_t lane, uint32_t nlanes)
{
    int report = (lane == 0);
    umma_idesc_bs_fields id = umma_idesc_bs_decode(idesc);
    uint32_t d_col = tmem_addr_column(d_tmem);
    if (report) {
        if (id.reserved != 0 || id.sparse || id.sparse_sel)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, "block-scaled idesc: reserved or sparsity bits set", idesc,
                          id.reserved, 0);
        if (id.a_format > 1u || id.b_format > 1u)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC,
                          "block-scaled idesc: kind::mxf8f6f4 is modelled with A/B format 0 (E4M3) or 1 (E5M2) only",
                          idesc, id.a_format, id.b_format);
        if (id.sf_format != UMMA_SF_UE8M0 || id.k_size != 0)
            tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC,
                          "block-scaled idesc: kind::mxf8f6f4 takes UE8M0 factors (bit 23) and K = 32 (bit 31 = 0)",
                          idesc, id.sf_format, id.k_size);
    }
    uint32_t sm[2];
    tmem_emu_umma_check_d(cg, d_tmem, id.m, id.n, report, sm);
    const uint32_t sfb_cols = UMMA_SF_CHUNK_COLS * ((id.n + UMMA_SF_CHUNK_ROWS - 1u) / UMMA_SF_CHUNK_ROWS);
    if (report) {
        tmem_emu_check_held_pair(cg, sm, sfa_tmem, UMMA_SF_CHUNK_COLS,
                                 "block-scaled tcgen05.mma: scale_A address (lane 0, columns held; a=address b=ncols)");
        tmem_emu_check_held_pair(cg, sm, sfb_tmem, sfb_cols,
                                 "block-scaled tcgen05.mma: scale_B address (lane 0, columns held; a=address b=ncols)");
    }
    tmem_emu_operand a = tmem_emu_decode_operand(a_desc, id.a_major, id.a_format, 1u, id.negate_a, cg, report,
                                                 "A shared-memory descriptor field (a=bit position b=value)");
    tmem_emu_operand b = tmem_emu_decode_operand(b_desc, id.b_major, id.b_format, 1u, id.negate_b, cg, report,
                                                 "B shared-memory descriptor field (a=bit position b=value)");
    tmem_emu_scales sc;
    sc.cells[0] = tmem_emu_cells(sm[0]);
    sc.cells[1] = tmem_emu_cells(sm[1]);
    sc.sfa_col = tmem_addr_column(sfa_tmem);
    sc.sfb_col = tmem_addr_column(sfb_tmem);
    sc.a_id = id.a_sf_id;
    sc.b_id = id.b_sf_id;
    if (report)
        tmem_hb_mma_scaled(d_col, id.n, cg, a.start_addr, b.start_addr, sc.sfa_col, UMMA_SF_CHUNK_COLS, sc.sfb_col,
                           sfb_cols);
    for (uint32_t cta = 0; cta < cg; cta++) {
        tmem_emu_check_sf_replicated(sc.cells[cta], sc.sfa_col, UMMA_SF_CHUNK_COLS, lane, nlanes);
        tmem_emu_check_sf_replicated(sc.cells[cta], sc.sfb_col, sfb_cols, lane, nlanes);
    }
    if (nlanes > 1) __syncwarp(); /* every check passed (or trapped) before any lane writes D */
    tmem_emu_umma_products<1>(cg, sm, d_col, id.n, &a, &b, accumulate, lane, nlanes, &sc);
    tmem_emu_fence();
}

static __device__ __noinline__ void tmem_emu_umma_scaled_single(uint32_t cg, uint32_t d_tmem, uint64_t a_desc,
                                                                uint64_t b_desc, uint32_t idesc, uint32_t sfa_tmem,
                                                                uint32_t sfb_tmem, uint32_t accumulate)
{
    tmem_emu_check_prepared();
    tmem_emu_require_single("block-scaled tcgen05.mma issued by several threads (one MMA each on hardware): use "
                            "elect_one_sync() or umma_mma_scaled_warp");
    tmem_emu_note_cta_group(cg);
    tmem_emu_delay(4);
    tmem_emu_umma_scaled_compute(cg, d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate, 0, 1);
}

static __device__ __noinline__ void tmem_emu_umma_scaled_warp(uint32_t cg, uint32_t d_tmem, uint64_t a_desc,
                                                              uint64_t b_desc, uint32_t idesc, uint32_t sfa_tmem,
                                                              uint32_t sfb_tmem, uint32_t accumulate)
{
    tmem_emu_check_prepared();
    tmem_emu_require_warp("umma_mma_scaled_warp called by part of a warp (the whole MMA warp calls it)");
    if (__shfl_sync(0xFFFFFFFFu, d_tmem, 0) != d_tmem || __shfl_sync(0xFFFFFFFFu, idesc, 0) != idesc ||
        __shfl_sync(0xFFFFFFFFu, a_desc, 0) != a_desc || __shfl_sync(0xFFFFFFFFu, b_desc, 0) != b_desc ||
        __shfl_sync(0xFFFFFFFFu, sfa_tmem, 0) != sfa_tmem || __shfl_sync(0xFFFFFFFFu, sfb_tmem, 0) != sfb_tmem ||
        __shfl_sync(0xFFFFFFFFu, accumulate, 0) != accumulate)
        tmem_emu_fail(TMEM_EMU_ERR_NOT_CONVERGED,
                      "umma_mma_scaled_warp: lanes pass different operands (the leader's are used on hardware)", d_tmem,
                      idesc, 0);
    tmem_emu_note_cta_group(cg);
    if (tmem_emu_laneid() == 0) tmem_emu_delay(4);
    __syncwarp();
    tmem_emu_umma_scaled_compute(cg, d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate, tmem_emu_laneid(),
                                 32u);
    __syncwarp();
}

/* The emulated tcgen05.cp.cta_group::cg.32x128b.warpx4 [taddr], s_desc: 32 rows of 16 bytes of shared memory
 * (row t at start + (t / 8) * SBO + (t % 8) * 16: the no-swizzle K-major core matrices) into lanes t, t + 32,
 * t + 64, t + 96 of columns taddr .. + 3, column j from bytes 4j .. 4j + 3 of the row; cta_group 2 in both CTAs
 * of the pair, each from its own shared memory at the same address. One thread (the issuing one) copies. */
static __device__ __noinline__ void tmem_emu_cp_single(uint32_t cg, uint32_t taddr, uint64_t s_desc)
{
    tmem_emu_check_prepared();
    tmem_emu_require_single("tcgen05.cp issued by several threads (one copy each on hardware): use "
                            "elect_one_sync() or umma_cp_sf_warp");
    tmem_emu_note_cta_group(cg);
    tmem_emu_delay(6);
    uint32_t sm[2];
    sm[0] = tmem_emu_my_sm();
    sm[1] = sm[0];
    if (cg == 2) {
        if (cluster_nctarank() < 2)
            tmem_emu_fail(TMEM_EMU_ERR_NO_CLUSTER, "tcgen05.cp.cta_group::2 without a cluster", cluster_nctarank(), 0,
                          0);
        if (cluster_ctarank() & 1u)
            tmem_emu_fail(TMEM_EMU_ERR_ODD_CTA_ISSUE, "tcgen05.cp.cta_group::2 issued by the odd CTA of the pair",
                          cluster_ctarank(), 0, 0);
        volatile tmem_emu_cta *peer = tmem_emu_cta_record(tmem_emu_peer_block_linear());
        __threadfence();
        sm[1] = peer->smid;
    }
    tmem_emu_check_held_pair(cg, sm, taddr, UMMA_SF_CHUNK_COLS,
                             "tcgen05.cp: destination (lane 0, 4 columns held; a=address b=ncols)");
    umma_smem_desc_fields f = umma_smem_desc_decode(s_desc);
    if (f.version != SMEM_DESC_VERSION_SM100)
        tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC, "tcgen05.cp source descriptor field (a=bit position b=value)", 46u,
                      f.version, 0);
    if (f.layout != UMMA_SWIZZLE_NONE || f.base_offset != 0 || f.lbo_mode != 0 || f.reserved != 0 ||
        f.start_addr % 16u != 0)
        tmem_emu_fail(TMEM_EMU_ERR_BAD_DESC,
                      "tcgen05.cp: the emulation models the no-swizzle source of scale factors (a=layout b=start)",
                      f.layout, f.start_addr, 0);
    const uint32_t col = tmem_addr_column(taddr);
    const uint32_t span =
        3u * f.sbo_bytes + 8u * UMMA_SF_CP_ROW_BYTES; /* bytes from the first row's to past the last */
    tmem_hb_cp(col, UMMA_SF_CHUNK_COLS, cg, f.start_addr, span);
    const char *src = (const char *)__cvta_shared_to_generic((size_t)f.start_addr);
    for (uint32_t cta = 0; cta < cg; cta++) {
        const char *base = cta == 0 ? src : (const char *)__cluster_map_shared_rank(src, cluster_ctarank() ^ 1u);
        uint32_t *cells = tmem_emu_cells(sm[cta]);
        for (uint32_t t = 0; t < UMMA_SF_CP_ROWS; t++) {
            uint4 v = *(const uint4 *)(base + (t / 8u) * f.sbo_bytes + (t % 8u) * UMMA_SF_CP_ROW_BYTES);
            uint32_t w[4] = {v.x, v.y, v.z, v.w};
            for (uint32_t j = 0; j < 4u; j++)
                for (uint32_t q = 0; q < 4u; q++) __stcg(cells + (size_t)(col + j) * TMEM_LANES + 32u * q + t, w[j]);
        }
    }
    tmem_emu_fence(); /* the cells visible at cluster scope before the commit's release */
}

/* The emulated tcgen05.commit: the MMAs are complete (synchronous), so: fence, then one arrive with
 * release at cluster scope on bar_smem's offset in this CTA (mask 0) or in every CTA of the mask. The
 * arrivals go through mbarrier_arrive_cluster, which has no happens-before hook: what a commit's arrival
 * releases (the tensor pipe's MMAs) is recorded by tmem_hb_commit, once per target barrier. */
static __device__ __noinline__ void tmem_emu_commit(uint32_t cg, uint64_t *bar_smem, uint32_t cta_mask)
{
    tmem_emu_check_prepared();
    tmem_emu_require_single("tcgen05.commit executed by several threads (one arrive each on hardware)");
    tmem_emu_note_cta_group(cg);
    uint32_t n = cluster_nctarank();
    if (cta_mask != 0 && n < 16u && (cta_mask >> n) != 0u)
        tmem_emu_fail(TMEM_EMU_ERR_COMMIT_MASK, "tcgen05.commit.multicast: mask names a CTA outside the cluster",
                      cta_mask, n, 0);
    tmem_emu_delay(5);
    tmem_hb_commit(bar_smem, cta_mask);
    tmem_emu_fence();
    uint32_t targets = cta_mask ? cta_mask : (1u << cluster_ctarank());
    for (uint32_t r = 0; r < 16u; r++)
        if (targets & (1u << r)) mbarrier_arrive_cluster(mapa_shared_cluster(smem_u32(bar_smem), r));
}

/* ================================================================ host side */

typedef struct tmem_emu_host {
    int ready;
    int device;
    tmem_emu_globals g; /* what c_tmem_emu holds */
    tmem_hb_globals hb; /* what c_tmem_hb holds */
    tmem_emu_error *error_host;
    uint32_t delay_max_ns;
    uint64_t seed;
    int hb_setting; /* tmem_host_set_happens_before: 0 unset (WSGEMM_TMEM_HB decides), 1 on, 2 off */
} tmem_emu_host;

static tmem_emu_host s_tmem_emu_host;

/* Happens-before tracking (emu/hb_emu.cuh): off unless tmem_host_set_happens_before(1) or WSGEMM_TMEM_HB=1.
 * Off by default: every access and edge takes locks in global memory, and a rare tracked run still stops under
 * load (docs/emulation.md, "Happens-before tracking: status"). */
static inline int tmem_emu_hb_wanted(void)
{
    if (s_tmem_emu_host.hb_setting != 0) return s_tmem_emu_host.hb_setting == 1;
    const char *v = getenv("WSGEMM_TMEM_HB");
    return v && v[0] == '1';
}

/* Its state: allocated once with the emulated TMEM, cleared before every launch. */
static inline cudaError_t tmem_emu_hb_prepare(cudaStream_t stream)
{
    tmem_hb_globals *hb = &s_tmem_emu_host.hb;
    const size_t cluster_bytes = (size_t)TMEM_HB_MAX_CLUSTERS * sizeof(tmem_hb_cluster);
    const size_t regs_bytes = (size_t)TMEM_HB_REG_CTAS * TMEM_HB_REG_THREADS * sizeof(tmem_hb_thread_regs);
    cudaError_t e;
    if (!hb->clusters) {
        if ((e = cudaMalloc((void **)&hb->clusters, cluster_bytes)) != cudaSuccess) return e;
        if ((e = cudaMalloc((void **)&hb->names, TMEM_HB_NAMES * sizeof(unsigned long long))) != cudaSuccess) return e;
        if ((e = cudaMalloc((void **)&hb->regs, regs_bytes)) != cudaSuccess) return e;
        if ((e = cudaMalloc((void **)&hb->notes, 64)) != cudaSuccess) return e;
        if ((e = cudaMemset(hb->names, 0, TMEM_HB_NAMES * sizeof(unsigned long long))) != cudaSuccess) return e;
    }
    hb->error = s_tmem_emu_host.g.error;
    hb->enabled = (uint32_t)tmem_emu_hb_wanted();
    if (hb->enabled) {
        if ((e = cudaMemsetAsync(hb->clusters, 0, cluster_bytes, stream)) != cudaSuccess) return e;
        if ((e = cudaMemsetAsync(hb->regs, 0, regs_bytes, stream)) != cudaSuccess) return e;
        if ((e = cudaMemsetAsync(hb->notes, 0, 64, stream)) != cudaSuccess) return e;
    }
    return cudaMemcpyToSymbolAsync(c_tmem_hb, hb, sizeof *hb, 0, cudaMemcpyHostToDevice, stream);
}

/* Before every launch of a kernel that uses tmem/: allocates the emulated TMEM once (per device, per
 * translation unit), clears the allocator, the per-CTA records, the happens-before state and the error
 * record, and publishes the random-delay and happens-before settings. */
static inline cudaError_t tmem_host_prepare(cudaStream_t stream)
{
    tmem_emu_host *h = &s_tmem_emu_host;
    cudaError_t e;
    if (!h->ready) {
        int sms = 0;
        if ((e = cudaGetDevice(&h->device)) != cudaSuccess) return e;
        if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, h->device)) != cudaSuccess) return e;
        memset(&h->g, 0, sizeof h->g);
        h->g.num_sms = (uint32_t)(2 * sms); /* %smid may have gaps: room for twice the SM count */
        size_t cells_bytes = (size_t)h->g.num_sms * TMEM_COLUMNS * TMEM_LANES * sizeof(uint32_t);
        if ((e = cudaMalloc((void **)&h->g.cells, cells_bytes)) != cudaSuccess) return e;
        if ((e = cudaMalloc((void **)&h->g.sms, h->g.num_sms * sizeof(tmem_emu_sm))) != cudaSuccess) return e;
        if ((e = cudaMalloc((void **)&h->g.ctas, TMEM_EMU_MAX_CTAS * sizeof(tmem_emu_cta))) != cudaSuccess) return e;
        if ((e = cudaMalloc((void **)&h->g.control, 64)) != cudaSuccess) return e;
        if ((e = cudaHostAlloc((void **)&h->error_host, sizeof(tmem_emu_error), cudaHostAllocMapped)) != cudaSuccess)
            return e;
        if ((e = cudaHostGetDevicePointer((void **)&h->g.error, h->error_host, 0)) != cudaSuccess) return e;
        if ((e = cudaMemset(h->g.cells, 0xFF, cells_bytes)) != cudaSuccess) return e;
        h->g.prepared = 1;
        h->ready = 1;
    }
    memset((void *)h->error_host, 0, sizeof(tmem_emu_error));
    h->g.delay_max_ns = h->delay_max_ns;
    h->g.seed = h->seed;
    if ((e = cudaMemsetAsync(h->g.sms, 0, h->g.num_sms * sizeof(tmem_emu_sm), stream)) != cudaSuccess) return e;
    if ((e = cudaMemsetAsync(h->g.ctas, 0, TMEM_EMU_MAX_CTAS * sizeof(tmem_emu_cta), stream)) != cudaSuccess) return e;
    if ((e = cudaMemsetAsync(h->g.control, 0, 64, stream)) != cudaSuccess) return e;
    if ((e = tmem_emu_hb_prepare(stream)) != cudaSuccess) return e;
    return cudaMemcpyToSymbolAsync(c_tmem_emu, &h->g, sizeof h->g, 0, cudaMemcpyHostToDevice, stream);
}

/* The first error the checker recorded since the last tmem_host_prepare (TMEM_EMU_OK if none); readable
 * after the trap destroyed the context. msg gets "NAME: block (x,y,z) warp w lane l a=.. b=.. c=..", for a
 * RACE both accesses (tmem_emu_format_record). */
static inline int tmem_host_last_error(char *msg, size_t msg_size)
{
    const volatile tmem_emu_error *e = s_tmem_emu_host.error_host;
    if (!e) {
        if (msg && msg_size) snprintf(msg, msg_size, "OK (emulation never prepared)");
        return TMEM_EMU_OK;
    }
    tmem_emu_format_record(e, msg, msg_size);
    return (int)e->code;
}

/* After the kernel: synchronizes `stream`; returns the number of TMEM columns still allocated (every
 * allocation must be freed before a kernel exits), 0 when clean, -1 on a CUDA error (the kernel trapped:
 * msg names the CUDA error and the checker's record). Clears the allocator for the next launch. */
static inline int tmem_host_leak_check(cudaStream_t stream, char *msg, size_t msg_size)
{
    tmem_emu_host *h = &s_tmem_emu_host;
    if (msg && msg_size) msg[0] = '\0';
    if (!h->ready) {
        if (msg && msg_size) snprintf(msg, msg_size, "tmem_host_prepare was never called");
        return -1;
    }
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        char rec[1024];
        tmem_host_last_error(rec, sizeof rec);
        if (msg && msg_size) /* the record's first 300 characters name the error and both sites */
            snprintf(msg, msg_size, "kernel failed: %s (%s); checker: %.300s", cudaGetErrorName(e),
                     cudaGetErrorString(e), rec);
        return -1;
    }
    tmem_emu_sm *sms = (tmem_emu_sm *)malloc(h->g.num_sms * sizeof(tmem_emu_sm));
    if (!sms) return -1;
    e = cudaMemcpy(sms, h->g.sms, h->g.num_sms * sizeof(tmem_emu_sm), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(sms);
        if (msg && msg_size) snprintf(msg, msg_size, "cudaMemcpy: %s", cudaGetErrorString(e));
        return -1;
    }
    int leaked = 0;
    size_t used = 0;
    for (uint32_t s = 0; s < h->g.num_sms; s++) {
        for (uint32_t u = 0; u < TMEM_EMU_UNITS; u++) {
            if (!(sms[s].used & (1u << u))) continue;
            leaked += TMEM_EMU_UNIT_COLS;
            if (msg && used + 80 < msg_size)
                used += (size_t)snprintf(msg + used, msg_size - used, "SM %u columns %u..%u held by block %u; ", s,
                                         u * TMEM_EMU_UNIT_COLS, u * TMEM_EMU_UNIT_COLS + TMEM_EMU_UNIT_COLS - 1,
                                         (sms[s].owner[u] & ~(uint32_t)TMEM_EMU_REVOKED) - 1u);
        }
    }
    free(sms);
    cudaMemset(h->g.sms, 0, h->g.num_sms * sizeof(tmem_emu_sm));
    return leaked;
}

/* Sleep a pseudo-random 0 .. max_ns-1 ns before each emulated alloc, dealloc, ld, MMA and commit
 * (from the next tmem_host_prepare on); 0 turns it off. */
static inline void tmem_host_set_random_delays(uint32_t max_ns, uint64_t seed)
{
    s_tmem_emu_host.delay_max_ns = max_ns;
    s_tmem_emu_host.seed = seed;
}

/* Happens-before tracking on (1) or off (0, the default), from the next tmem_host_prepare on; overrides the
 * environment variable WSGEMM_TMEM_HB (1 = on). */
static inline void tmem_host_set_happens_before(int on)
{
    s_tmem_emu_host.hb_setting = on ? 1 : 2;
}

static inline int tmem_host_is_emulated(void)
{
    return 1;
}

#endif /* WSGEMM_EMU_TMEM_EMU_CUH */
