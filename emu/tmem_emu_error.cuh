// SPDX-License-Identifier: MIT
/*
 * emu/tmem_emu_error.cuh - the TMEM emulation's checker record: error codes, the record the device writes
 * into host-mapped memory before it traps (readable after the trap destroyed the context), and its text.
 * Shared by the emulation (emu/tmem_emu.cuh) and its happens-before tracking (emu/hb_emu.cuh). Emulation
 * build only (sm_90a, WSGEMM_TMEM_EMULATION=1), through emu/emulation.cuh.
 */
#ifndef WSGEMM_EMU_TMEM_EMU_ERROR_CUH
#define WSGEMM_EMU_TMEM_EMU_ERROR_CUH

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hb.h"

/* Error codes (tmem_host_last_error; the misuse tests match them). */
typedef enum tmem_emu_error_code {
    TMEM_EMU_OK = 0,
    TMEM_EMU_ERR_NOT_PREPARED,  /* no tmem_host_prepare before the launch */
    TMEM_EMU_ERR_CAPACITY,      /* smid or block id beyond the emulation's tables */
    TMEM_EMU_ERR_NOT_CONVERGED, /* a .sync.aligned op by part of a warp, or lanes disagree on ncols */
    TMEM_EMU_ERR_NCOLS,         /* ncols not a power of 2 in [32, 512] */
    TMEM_EMU_ERR_ALLOC_AFTER_RELINQUISH,
    TMEM_EMU_ERR_CTA_GROUP_MIX,       /* two cta_group values in one kernel */
    TMEM_EMU_ERR_ALLOC_DEADLOCK,      /* alloc blocked for 10 s */
    TMEM_EMU_ERR_DEALLOC_UNALLOCATED, /* dealloc of columns this CTA does not hold */
    TMEM_EMU_ERR_DOUBLE_DEALLOC,      /* dealloc of columns this CTA already freed */
    TMEM_EMU_ERR_LANE_QUARTER,        /* tcgen05.ld outside lanes 32*(warp%4) .. +31 */
    TMEM_EMU_ERR_UNALLOCATED_ACCESS,  /* ld or MMA on columns this CTA does not hold (use after dealloc) */
    TMEM_EMU_ERR_PEER_NOT_ALLOCATED,  /* cta_group 2: the peer CTA does not hold the columns */
    TMEM_EMU_ERR_NO_CLUSTER,          /* cta_group 2 in a cluster of one CTA */
    TMEM_EMU_ERR_ODD_CTA_ISSUE,       /* cta_group 2 MMA issued by the odd CTA of the pair */
    TMEM_EMU_ERR_MULTI_THREAD_ISSUE,  /* one-thread op (umma_f16, commit) executed by several lanes */
    TMEM_EMU_ERR_BAD_DESC,            /* descriptor field illegal or not modelled */
    TMEM_EMU_ERR_BAD_ADDRESS,         /* TMEM address out of range or misaligned */
    TMEM_EMU_ERR_COMMIT_MASK,         /* multicast mask names a CTA outside the cluster */
    TMEM_EMU_ERR_PAIR_DEALLOCATED,    /* cta_group 2: access after the PEER's (collective) dealloc */
    TMEM_EMU_ERR_RACE,                /* two TMEM accesses, one a write, not ordered by happens-before */
    TMEM_EMU_ERR_MBARRIER_INIT, /* an mbarrier used without its init ordered before the use (or never initialised) */
    TMEM_EMU_ERR_UNOBSERVED_COMMIT, /* the CTA exits before a wait observed a phase a tcgen05.commit arrived on */
    TMEM_EMU_ERR_HB_LOCK_TIMEOUT,   /* a lock of the happens-before tables held for TMEM_HB_LOCK_NS (a hang made
    visible) */
    TMEM_EMU_ERR_ASYNC_PROXY_RACE,  /* a shared-memory access of one proxy (generic ld/st.shared) and one of the
    async proxy (TMA copy in, TMA store reading) not ordered by happens-before */
    TMEM_EMU_ERR_PROXY_FENCE,       /* a TMA store reads generic writes without a fence.proxy.async ordered between */
    TMEM_EMU_ERR_SF_NOT_REPLICATED, /* a block-scaled MMA's scale factors differ between TMEM lane quarters */
    TMEM_EMU_ERR_COUNT
} tmem_emu_error_code;

static inline __host__ __device__ const char *tmem_emu_error_name(uint32_t code)
{
    switch (code) {
    case TMEM_EMU_OK: return "OK";
    case TMEM_EMU_ERR_NOT_PREPARED: return "NOT_PREPARED";
    case TMEM_EMU_ERR_CAPACITY: return "CAPACITY";
    case TMEM_EMU_ERR_NOT_CONVERGED: return "NOT_CONVERGED";
    case TMEM_EMU_ERR_NCOLS: return "NCOLS";
    case TMEM_EMU_ERR_ALLOC_AFTER_RELINQUISH: return "ALLOC_AFTER_RELINQUISH";
    case TMEM_EMU_ERR_CTA_GROUP_MIX: return "CTA_GROUP_MIX";
    case TMEM_EMU_ERR_ALLOC_DEADLOCK: return "ALLOC_DEADLOCK";
    case TMEM_EMU_ERR_DEALLOC_UNALLOCATED: return "DEALLOC_UNALLOCATED";
    case TMEM_EMU_ERR_DOUBLE_DEALLOC: return "DOUBLE_DEALLOC";
    case TMEM_EMU_ERR_LANE_QUARTER: return "LANE_QUARTER";
    case TMEM_EMU_ERR_UNALLOCATED_ACCESS: return "UNALLOCATED_ACCESS";
    case TMEM_EMU_ERR_PEER_NOT_ALLOCATED: return "PEER_NOT_ALLOCATED";
    case TMEM_EMU_ERR_NO_CLUSTER: return "NO_CLUSTER";
    case TMEM_EMU_ERR_ODD_CTA_ISSUE: return "ODD_CTA_ISSUE";
    case TMEM_EMU_ERR_MULTI_THREAD_ISSUE: return "MULTI_THREAD_ISSUE";
    case TMEM_EMU_ERR_BAD_DESC: return "BAD_DESC";
    case TMEM_EMU_ERR_BAD_ADDRESS: return "BAD_ADDRESS";
    case TMEM_EMU_ERR_COMMIT_MASK: return "COMMIT_MASK";
    case TMEM_EMU_ERR_PAIR_DEALLOCATED: return "PAIR_DEALLOCATED";
    case TMEM_EMU_ERR_RACE: return "RACE";
    case TMEM_EMU_ERR_MBARRIER_INIT: return "MBARRIER_INIT";
    case TMEM_EMU_ERR_UNOBSERVED_COMMIT: return "UNOBSERVED_COMMIT";
    case TMEM_EMU_ERR_HB_LOCK_TIMEOUT: return "HB_LOCK_TIMEOUT";
    case TMEM_EMU_ERR_ASYNC_PROXY_RACE: return "ASYNC_PROXY_RACE";
    case TMEM_EMU_ERR_PROXY_FENCE: return "PROXY_FENCE";
    case TMEM_EMU_ERR_SF_NOT_REPLICATED: return "SF_NOT_REPLICATED";
    default: return "UNKNOWN";
    }
}

enum { TMEM_EMU_NAME_CHARS = 24 };

/* The first error, in host-mapped memory so the host reads it after the trap killed the context. For
 * RACE: a, b = first lane and column of the TMEM cell (lane quarter x 32 columns) where the two accesses
 * met (a = ~0: b is the shared-memory offset of a TMA copy an MMA read), c = the cluster rank of the CTA
 * whose TMEM (or shared memory) it is; site[0] the access recorded first, site[1] the
 * one that found it unordered; wait_name[i] the name of the barrier site[i]'s warp waited for last.
 * For MBARRIER_INIT: a = the barrier's shared-memory offset, b = its CTA's cluster rank, site[0] its init
 * (kind HB_NONE: never initialised), site[1] the use. For UNOBSERVED_COMMIT: a = the barrier's offset,
 * b = the phase a commit arrived on, c = the last phase a wait observed. For HB_LOCK_TIMEOUT: a = the lock's
 * byte offset in its cluster's record (tmem_hb_cluster), b = its holder at the waiter's last try (linear
 * block id << 10 | thread index), c = the linear cluster id. For ASYNC_PROXY_RACE and PROXY_FENCE: a = the
 * shared-memory offset of the 1024-byte block where the two accesses met, b = its CTA's cluster rank, site[0]
 * the access recorded first (for PROXY_FENCE the unfenced generic write), site[1] the one that found it. */
typedef struct tmem_emu_error {
    uint32_t code;
    uint32_t block_x, block_y, block_z;
    uint32_t warp, lane;
    uint32_t a, b, c;
    uint32_t pad[7];
    hb_site site[2];
    char wait_name[2][TMEM_EMU_NAME_CHARS];
} tmem_emu_error;

static __device__ __forceinline__ uint32_t tmem_emu_laneid(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); /* PTX ISA "Special Registers: %laneid" */
    return r;
}

static __device__ __forceinline__ uint32_t tmem_emu_thread_linear(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

static __device__ __forceinline__ uint32_t tmem_emu_warp_index(void)
{
    return tmem_emu_thread_linear() / 32u;
}

static __device__ __forceinline__ uint32_t tmem_emu_block_linear(void)
{
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

static __device__ __forceinline__ uint64_t tmem_emu_globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); /* PTX ISA "Special Registers: %globaltimer" */
    return t;
}

/* Fill the record (if the launch has one): the code last, so a reader that sees it sees the rest. */
static __device__ __forceinline__ void tmem_emu_write_record(tmem_emu_error *e, uint32_t code, uint32_t a, uint32_t b,
                                                             uint32_t c)
{
    if (!e) return;
    volatile tmem_emu_error *ve = e;
    ve->block_x = blockIdx.x;
    ve->block_y = blockIdx.y;
    ve->block_z = blockIdx.z;
    ve->warp = tmem_emu_warp_index();
    ve->lane = tmem_emu_laneid();
    ve->a = a;
    ve->b = b;
    ve->c = c;
    __threadfence_system();
    ve->code = code;
    __threadfence_system();
}

/* "CTA rank 1 warp 3: tcgen05.ld lanes 32..63 columns 224..255 [comp 7 @ 8] (last wait: acc_full[0]
 * parity 0)" */
static inline void tmem_emu_format_site(const hb_site *s, const char *wait_name, char *out, size_t size)
{
    if (!size) return;
    if (s->kind == HB_TMA || s->kind == HB_TMA_STORE || s->kind == HB_SMEM_WRITE || s->kind == HB_SMEM_READ) {
        char wait[64] = "";
        if (s->wait_name)
            snprintf(wait, sizeof wait, " (its last wait: %s[%u] parity %u)", wait_name, (unsigned)s->wait_index,
                     (unsigned)s->wait_parity);
        const unsigned blocks = s->ncols ? s->ncols : 1u;
        snprintf(out, size, "CTA rank %u warp %u: %s at shared offsets %u..%u [epoch %u@%u]%s", (unsigned)s->cta,
                 (unsigned)s->warp, hb_kind_name(s->kind), (unsigned)s->col0 * HB_SMEM_BLOCK_BYTES,
                 ((unsigned)s->col0 + blocks) * HB_SMEM_BLOCK_BYTES - 1u, (unsigned)s->comp, (unsigned)s->clock, wait);
        return;
    }
    if (s->kind == HB_MBAR_INIT || s->kind == HB_MBAR_USE) {
        snprintf(out, size, "CTA rank %u warp %u: %s of the mbarrier at shared offset %u of CTA rank %u [epoch %u@%u]",
                 (unsigned)s->cta, (unsigned)s->warp, hb_kind_name(s->kind), (unsigned)s->col0 * 8u,
                 (unsigned)s->tmem_cta, (unsigned)s->comp, (unsigned)s->clock);
        return;
    }
    char wait[64];
    if (s->wait_name)
        snprintf(wait, sizeof wait, "%s[%u] parity %u", wait_name, (unsigned)s->wait_index, (unsigned)s->wait_parity);
    else
        snprintf(wait, sizeof wait, "none recorded");
    snprintf(out, size,
             "CTA rank %u warp %u: %s lanes %u..%u columns %u..%u of CTA rank %u's TMEM [epoch %u@%u] "
             "(its last wait: %s)",
             (unsigned)s->cta, (unsigned)s->warp, hb_kind_name(s->kind), (unsigned)s->lane0,
             (unsigned)s->lane0 + s->nlanes - 1u, (unsigned)s->col0, (unsigned)s->col0 + s->ncols - 1u,
             (unsigned)s->tmem_cta, (unsigned)s->comp, (unsigned)s->clock, wait);
}

/* The record as one line: "NAME: block (x,y,z) warp w lane l a=.. b=.. c=.." or, for RACE, both sites. */
static inline void tmem_emu_format_record(const volatile tmem_emu_error *ve, char *msg, size_t msg_size)
{
    if (!msg || !msg_size) return;
    tmem_emu_error e;
    memcpy(&e, (const void *)ve, sizeof e);
    if (e.code == TMEM_EMU_ERR_MBARRIER_INIT) {
        char use[256], init[256] = "never initialised by mbarrier_init";
        tmem_emu_format_site(&e.site[1], "", use, sizeof use);
        if (e.site[0].kind != HB_NONE) tmem_emu_format_site(&e.site[0], "", init, sizeof init);
        int n = snprintf(msg, msg_size, "MBARRIER_INIT: block (%u,%u,%u): %s, not ordered after its init: %s",
                         e.block_x, e.block_y, e.block_z, use, init);
        (void)n; /* a short buffer truncates the text; the code is what callers test */
        return;
    }
    if (e.code == TMEM_EMU_ERR_ASYNC_PROXY_RACE || e.code == TMEM_EMU_ERR_PROXY_FENCE) {
        char first[256], second[256];
        e.wait_name[0][TMEM_EMU_NAME_CHARS - 1] = e.wait_name[1][TMEM_EMU_NAME_CHARS - 1] = '\0';
        tmem_emu_format_site(&e.site[0], e.wait_name[0], first, sizeof first);
        tmem_emu_format_site(&e.site[1], e.wait_name[1], second, sizeof second);
        int n = snprintf(msg, msg_size,
                         e.code == TMEM_EMU_ERR_PROXY_FENCE
                             ? "PROXY_FENCE: block (%u,%u,%u): shared memory at offset %u of CTA rank %u: %s, read by "
                               "%s without a fence.proxy.async.shared::cta ordered between"
                             : "ASYNC_PROXY_RACE: block (%u,%u,%u): shared memory at offset %u of CTA rank %u: %s, "
                               "and %s, not ordered by happens-before",
                         e.block_x, e.block_y, e.block_z, e.a, e.b, first, second);
        (void)n;
        return;
    }
    if (e.code != TMEM_EMU_ERR_RACE) {
        snprintf(msg, msg_size, "%s: block (%u,%u,%u) warp %u lane %u a=%u b=%u c=%u", tmem_emu_error_name(e.code),
                 e.block_x, e.block_y, e.block_z, e.warp, e.lane, e.a, e.b, e.c);
        return;
    }
    char first[256], second[256];
    e.wait_name[0][TMEM_EMU_NAME_CHARS - 1] = e.wait_name[1][TMEM_EMU_NAME_CHARS - 1] = '\0';
    tmem_emu_format_site(&e.site[0], e.wait_name[0], first, sizeof first);
    tmem_emu_format_site(&e.site[1], e.wait_name[1], second, sizeof second);
    char where[96];
    if (e.a == ~0u) /* a TMA copy and an MMA reading its destination */
        snprintf(where, sizeof where, "shared memory at offset %u of CTA rank %u", e.b, e.c);
    else
        snprintf(where, sizeof where, "TMEM lanes %u..%u columns %u..%u of CTA rank %u", e.a, e.a + 31u, e.b,
                 e.b + HB_CELL_COLS - 1u, e.c);
    int n = snprintf(msg, msg_size, "RACE: block (%u,%u,%u): %s: %s, and %s, not ordered by happens-before", e.block_x,
                     e.block_y, e.block_z, where, first, second);
    (void)n;
}

#endif /* WSGEMM_EMU_TMEM_EMU_ERROR_CUH */
