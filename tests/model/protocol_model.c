// SPDX-License-Identifier: MIT
/*
 * protocol_model.c - an exhaustive model of the SM100 (tcgen05) GEMM kernel protocol, explored on the
 * CPU: every interleaving of the roles, the asynchronous TMA copies and the tensor pipe, for small
 * stage/tile counts, plain and block-scaled (MXFP8), checked against the protocol's safety properties;
 * then a mutation suite in which each known bug class is planted and must be caught.
 *
 * The model (docs/protocol.md draws it):
 *   CTAs        cta_group 1: one CTA. cta_group 2: a pair, rank 0 the leader (it alone issues MMAs).
 *   set-up      thread 0 of each CTA (lane 0 of warp 0, the producer's warp, so a step of the producer):
 *               init every barrier, fence.mbarrier_init; everyone: cluster sync #1 (barriers visible in
 *               the cluster, peer launched); MMA warp: tcgen05.alloc, then bar.arrive on named barrier
 *               ADDR (it publishes the TMEM address and goes on); epilogue warps: bar.sync on ADDR, then
 *               read the address (the producer takes no part); cta_group 2: everyone: cluster sync #2
 *               (both allocs done before the first MMA and before any dealloc). This is the order of
 *               gemm/sm100/sm100_kernel.cuh.
 *   producer    per CTA, for each (tile, k-block): wait empty[s] (own CTA, producer phase starts at 1);
 *               leader (or the one CTA): arrive.expect_tx(full[s], bytes x cta_group); issue a TMA copy
 *               into its own stage s that completes_tx on the LEADER's full[s]. Ends with producer_tail.
 *               Relay variant (cta_group 2 built for sm_90a against the TMEM emulation, where a TMA cannot
 *               complete on the peer's barrier): each CTA's producer arrive.expect_tx's its own bytes on
 *               its OWN full[s] (count 1); after each copy the peer's producer waits on the peer's full[s]
 *               and forwards one remote arrival to the leader's full[s] (count 2: the leader's own + the
 *               forward). The peer's MMA warp only allocates and deallocates, as on hardware.
 *   TMA         each copy in flight lands at any later time, in any order: writes the stage, complete_tx.
 *               A C load lands in two parts, each at any later time: writes its half, complete_tx of
 *               half the bytes on the warp's own c_full[b] (its own CTA's, in either cta_group). A TMA
 *               store reads its buffer (and writes C) at any later time; wait_group.read n passes once
 *               every store of the warp but the n newest has.
 *   MMA warp    leader only: per tile: wait acc_empty[a] (leader's; producer phase starts at 1); per
 *               k-block: wait full[s]; issue MMA(tile, k, s, a) and commit(empty[s], multicast to the
 *               pair) into the tensor pipe; after the last k-block, commit(acc_full[a], multicast).
 *               Block-scaled (mx): after the full[s] wait first CP(tile, k, s, slot s), one op for the
 *               tcgen05.cp of SFA and of SFB, then the MMA, which also reads scale slot s.
 *   tensor pipe asynchronous: an MMA reads stage s of every CTA of the group and accumulates into
 *               accumulator a of every CTA's TMEM (mx: with the scales in slot t of every CTA's TMEM);
 *               a commit arrives once on its barrier in every CTA of the mask. MMAs and commits execute
 *               in issue order, each once everything before it in the pipe is done (the ISA orders an
 *               MMA after earlier MMAs and cps, a commit after everything; an MMA ahead of an earlier
 *               commit would only delay that commit's arrival). A CP executes at any time after its
 *               issue, ahead of earlier MMAs, commits and CPs (the ISA orders no cp after an earlier mma
 *               or cp of its thread): in one step it reads the scales in stage s of every CTA of the
 *               group and writes them into slot t of every CTA's TMEM (cp.cta_group::2: each CTA's own
 *               smem into its own TMEM).
 *   epilogue    E warps per CTA (the real kernel has 4 warps of 32 threads; a warp stands for its 32
 *               threads and arrival counts scale by the same factor). DIRECT: per tile wait acc_full[a]
 *               (own CTA) and tcgen05.ld the accumulator (one step), then arrive on the leader's
 *               acc_empty[a] (count E x cg; a step of its own). TMA and STAGED put each of the tile's
 *               chunks (32 columns) through buffer seq % cbufs of the warp (seq: the warp's chunks so
 *               far, across tiles): STAGED first, lane 0: wait_group.read 0, then for the tile's first
 *               min(chunks, cbufs) chunks arrive.expect_tx(c_full[b], the chunk's bytes) and a TMA
 *               load of C into buffer b; then wait acc_full[a] and per chunk: tcgen05.ld (after the
 *               last one, the acc_empty arrival); the output op into the buffer (STAGED: wait
 *               c_full[b] for parity (seq / cbufs) & 1 and read C there first; TMA: lane 0
 *               wait_group.read cbufs - 1); lane 0: the TMA store from the buffer and commit_group;
 *               STAGED, from the second chunk on while chunk ch - 1 + cbufs exists: wait_group.read 1,
 *               then that chunk's C load into chunk ch - 1's buffer. After the last tile lane 0 waits
 *               wait_group 0. At the end: dealloc barrier signal_complete: signal_peer (cta_group 2:
 *               remote arrive on the peer's barrier), then signal_self.
 *   teardown    MMA warp of each CTA: relinquish, wait dealloc barrier phase 0 (count E x cg), dealloc.
 *   exit        a CTA exits when all its roles are done.
 *
 * Properties (a violation ends the exploration with a shortest trace):
 *   deadlock: a state with no enabled step that is not the final state;
 *   no stage overwritten while an issued MMA or CP still reads it; an MMA or CP reads exactly its
 *   (tile, k) data in every CTA of the group;
 *   mx: an MMA reads, in every CTA of the group, a scale slot holding exactly its (tile, k) scales; no
 *   CP writes a slot while an earlier MMA that reads the slot is issued and not yet executed;
 *   no accumulator overwritten before every epilogue warp read it; the epilogue reads a complete
 *   accumulator of the right tile;
 *   no TMEM access (MMA, CP, tcgen05.ld, the address read) before the alloc or after the dealloc of
 *   that CTA; every allocation freed before the CTA exits;
 *   no dealloc before the peer's alloc, nor before every epilogue warp of both CTAs finished reading;
 *   no waiter two phases behind (when a thread waits for phase k, the barrier completed at most k+1);
 *   no arrival, complete_tx, commit or TMA write on a barrier/stage of an exited or uninitialised CTA,
 *   and no more arrivals in a phase than its count; no CTA exits with copies, MMAs or CPs (into its
 *   TMEM) in flight;
 *   chunk buffers: the output op of chunk seq reads the whole C of chunk seq (STAGED); no C load
 *   lands in a buffer while a TMA store still reads it or while it holds results not yet stored; the
 *   warp writes no buffer a store still reads; no second C load into a buffer with one in flight; no
 *   CTA exits with a C load or a TMA store in flight.
 *
 * The cluster launch control hand-off of the CLC kernel (sync/clc.cuh) is modelled apart, in clc_model.c (case clc).
 *
 * Usage: protocol_model [all | correct | mutants | clc | one [mx] <cg> <stages> <kb> <tiles> <epi> [mutant
 *        [relay [direct|tma|staged [chunks [buffers [chunks of odd tiles]]]]]]]
 * Exit 0 when every correct configuration holds and every mutant is caught. Prints states and
 * transitions per configuration; `one` explores a single configuration and prints a trace.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clc_model.h"

enum { kCtaMax = 2, kStageMax = 4, kEpiMax = 4, kAccStages = 2, kPipeMax = 32 };
/* Block-scaled (mx): TMEM scale slots per CTA (one per stage, slot = stage), and the step ids that name the
 * n-th tcgen05.cp of the tensor pipe (the copies in flight at once: at most one per stage in the protocol). */
enum { kSlotMax = kStageMax, kCpSteps = 8 };
/* Chunk buffers per epilogue warp (the kernel's kCMaxBuffers), and the parts in which a C load's bytes
 * complete_tx: TMA may complete a copy's bytes in pieces, and two are enough for a barrier that
 * expects too few bytes to open while the chunk has only partly landed. */
enum { kCBufMax = 4, kCParts = 2 };

/* ---------------------------------------------------------------- configuration and mutants */
typedef enum {
    MUT_NONE = 0,
    MUT_DEALLOC_COUNT_LOW,       /* dealloc barrier count one short */
    MUT_DEALLOC_COUNT_NO_CG,     /* dealloc barrier count not multiplied by cta_group */
    MUT_DEALLOC_COUNT_HIGH,      /* dealloc barrier count one too many (the watchdog test's fault) */
    MUT_ACC_EMPTY_COUNT_NO_CG,   /* acc_empty count not multiplied by cta_group */
    MUT_NO_SIGNAL_PEER,          /* signal_complete without signal_peer */
    MUT_ARRIVE_NOT_COMMIT_EMPTY, /* MMA warp arrives on empty[s] at issue instead of tcgen05.commit */
    MUT_ARRIVE_NOT_COMMIT_ACC,   /* MMA warp arrives on acc_full[a] at issue instead of tcgen05.commit */
    MUT_NO_EMPTY_WAIT,           /* producer does not wait on empty[s] */
    MUT_NO_ACC_EMPTY_WAIT,       /* MMA warp does not wait on acc_empty[a] */
    MUT_PRODUCER_PHASE_0,        /* smem ring producer starts at phase 0 (off by one) */
    MUT_CONSUMER_PHASE_1,        /* smem ring consumer (MMA warp) starts at phase 1 (off by one) */
    MUT_ACC_PRODUCER_PHASE_0,    /* accumulator ring producer (MMA warp) starts at phase 0 */
    MUT_DEALLOC_NO_WAIT,         /* dealloc without waiting on the dealloc barrier */
    MUT_NO_CLUSTER_SYNC2,        /* no cluster sync between alloc and dealloc (cta_group 2) */
    MUT_NO_ADDR_BARRIER,         /* epilogue reads the TMEM address slot without the named barrier */
    MUT_EXPECT_TX_NOT_DOUBLED,   /* 2-CTA: leader expects only its own bytes */
    MUT_NO_MULTICAST,            /* 2-CTA: commits arrive on the leader's barriers only */
    MUT_RELAY_FULL_COUNT_1,      /* 2-CTA relay variant: the leader's full[s] does not count the forward */
    MUT_RELAY_NO_WAIT,           /* 2-CTA relay variant: the peer forwards without waiting on its full[s] */
    MUT_RELEASE_BEFORE_LD,       /* epilogue arrives on acc_empty before its tcgen05.ld of the tile */
    MUT_C_NO_FULL_WAIT,          /* STAGED: the warp combines a chunk without waiting on c_full[b] */
    MUT_C_REFILL_NO_READ_WAIT,   /* STAGED: the C load ahead refills a buffer without wait_group.read 1 */
    MUT_C_FIRST_NO_READ_WAIT,    /* STAGED: a tile's first C loads without wait_group.read 0 */
    MUT_C_REFILL_WAIT_BUFS,      /* STAGED: the refill waits wait_group.read cbufs - 1 (the beta 0 count) */
    MUT_C_EXPECT_TX_SHORT,       /* STAGED: c_full expects fewer bytes than the chunk has */
    MUT_C_EXPECT_TX_LONG,        /* STAGED: c_full expects more bytes than the chunk has */
    MUT_C_FULL_PHASE_1,          /* STAGED: the warp's c_full waits start at phase 1 (off by one) */
    MUT_STORE_NO_READ_WAIT,      /* TMA (beta 0): the warp writes a buffer without wait_group.read */
    MUT_NO_STORE_DRAIN,          /* TMA, STAGED: no wait_group 0 before the teardown: exit under a store */
    /* block-scaled (mx) only */
    MUT_SF_SINGLE_SLOT,         /* every k-block's scales go to slot 0 (relies on an in-order tensor pipe) */
    MUT_SF_CP_BEFORE_FULL_WAIT, /* the tcgen05.cp is issued before the full[s] wait */
    MUT_SF_COMMIT_BEFORE_CP,    /* commit(empty[s]) goes into the pipe before the k-block's cp and MMA */
    MUT_SF_SLOT_OFF_BY_ONE,     /* the cp writes slot (s + 1) % stages, the MMA reads slot s */
    MUT_SF_TWO_SLOTS,           /* two slots for more stages: slot s % 2 (the TMEM budget of one slot pair) */
    MUT_SF_CP_AFTER_MMA,        /* the cp is issued after the MMA that reads its slot */
    MUT_SF_CP_LEADER_ONLY,      /* 2-CTA: the cp fills only the leader's slot (and reads only its stage) */
    MUT_COUNT
} mutant;

static const char *const mutant_names[MUT_COUNT] = {
    "none",
    "dealloc_count_low",
    "dealloc_count_not_x_cta_group",
    "dealloc_count_high",
    "acc_empty_count_not_x_cta_group",
    "missing_signal_peer",
    "arrive_instead_of_commit_empty",
    "arrive_instead_of_commit_acc_full",
    "missing_empty_wait",
    "missing_acc_empty_wait",
    "producer_initial_phase_0",
    "consumer_initial_phase_1",
    "acc_producer_initial_phase_0",
    "dealloc_without_wait",
    "no_cluster_sync_between_alloc_and_dealloc",
    "epilogue_reads_address_without_barrier",
    "expect_tx_not_doubled",
    "commit_without_multicast",
    "relay_full_count_1",
    "relay_forward_without_wait",
    "acc_empty_release_before_ld",
    "c_full_not_waited",
    "c_refill_before_store_read",
    "c_tile_loads_before_store_read",
    "c_refill_waits_buffers_minus_1",
    "c_full_expect_tx_short",
    "c_full_expect_tx_long",
    "c_full_initial_phase_1",
    "store_buffer_reused_without_read_wait",
    "exit_without_store_wait",
    "sf_single_slot",
    "sf_cp_before_full_wait",
    "sf_commit_before_cp",
    "sf_slot_off_by_one",
    "sf_two_slots",
    "sf_cp_after_mma",
    "sf_cp_leader_only",
};

/* How the epilogue writes C (the plan's wsgemm_epilogue_kind): DIRECT from registers; TMA through a
 * shared-memory buffer per 32-column chunk and a TMA store; STAGED (beta != 0) as TMA, with C's old
 * values of the chunk loaded into the buffer by TMA first. */
typedef enum { EPI_DIRECT, EPI_TMA, EPI_STAGED } epilogue_kind;
static const char *const epilogue_names[] = {"direct", "tma", "staged"};

typedef struct config {
    int cg;     /* cta_group: 1 or 2 */
    int stages; /* smem ring stages */
    int kb;     /* k-blocks per tile */
    int tiles;  /* tiles of this CTA (pair) */
    int epi;    /* epilogue warps per CTA */
    mutant mut;
    int relay; /* cta_group 2, the emulation build's variant: the peer's TMA completes on the PEER's
                  full[s]; the peer's producer waits on it and forwards one remote arrival to the
                  leader's full[s] (count 2) */
    epilogue_kind epilogue;
    int chunks;     /* TMA, STAGED: 32-column chunks per tile (8 in the kernel, fewer at the n edge) */
    int cbufs;      /* TMA, STAGED: chunk buffers per warp, 2 (fp32 output) or 4 (16-bit) */
    int chunks_odd; /* when not 0, the chunks of the odd tiles (a CTA's tiles need not be equally wide) */
    int mx;         /* block-scaled (MXFP8): per k-block a tcgen05.cp of the stage's scales into a TMEM scale
                       slot of every CTA of the group, ahead of the MMA that reads that slot */
} config;

static config C; /* the configuration being explored */

/* ---------------------------------------------------------------- state */
typedef struct bar {
    uint8_t pend; /* arrivals still missing in the current phase */
    int8_t tx;    /* pending transaction count (in copies, for c_full in parts of a chunk; may go negative
                     before expect_tx) */
    uint8_t done; /* completed phases */
} bar;

/* (B_C_FULL's index is warp * kCBufMax + buffer) */
enum bar_kind { B_FULL, B_EMPTY, B_ACC_FULL, B_ACC_EMPTY, B_DEALLOC, B_C_FULL };
static const char *const bar_names[] = {"full", "empty", "acc_full", "acc_empty", "dealloc", "c_full"};

enum { P_INIT, P_SYNC1_A, P_SYNC1_W, P_SYNC2_A, P_SYNC2_W, P_LOOP, P_RELAY, P_TAIL, P_DONE };
enum { M_SYNC1_A, M_SYNC1_W, M_ALLOC, M_ADDR_A, M_SYNC2_A, M_SYNC2_W, M_TILE, M_CP, M_K, M_DEALLOC, M_DONE };
enum {
    E_SYNC1_A,
    E_SYNC1_W,
    E_ADDR_A,
    E_ADDR_W,
    E_SYNC2_A,
    E_SYNC2_W,
    E_C_FIRST,
    E_TILE,
    E_LD,
    E_REL,
    E_COMBINE,
    E_STORE,
    E_REFILL,
    E_LD_LATE,
    E_DRAIN,
    E_SIG_PEER,
    E_SIG_SELF,
    E_DONE
};
enum { TMEM_NONE, TMEM_ALLOCATED, TMEM_FREED };

/* One epilogue warp. */
typedef struct epi_warp {
    uint8_t pc, j; /* program counter; the tile it is at */
    uint8_t ch;    /* TMA, STAGED: the chunk of tile j */
    uint8_t seq;   /* TMA, STAGED: chunks it has stored; chunk seq goes through buffer seq % cbufs */
} epi_warp;

/* An epilogue warp's chunk buffers (TMA, STAGED) with their c_full barriers. */
typedef struct chunk_bufs {
    uint8_t stores;          /* bit b: the TMA store from buffer b has not finished reading it */
    uint8_t cdata[kCBufMax]; /* seq + 1 of the chunk whose C has wholly landed in buffer b; 0: the buffer
                                holds no C, part of one, or the warp's results */
    uint8_t cload[kCBufMax]; /* seq + 1 of the C load in flight into buffer b; 0 none */
    uint8_t cleft[kCBufMax]; /* parts of that load still to land */
    bar c_full[kCBufMax];
} chunk_bufs;

typedef struct state {
    bar full[kCtaMax][kStageMax], empty[kCtaMax][kStageMax];
    bar acc_full[kCtaMax][kAccStages], acc_empty[kCtaMax][kAccStages], dealloc[kCtaMax];
    uint8_t inited[kCtaMax], exited[kCtaMax], tmem[kCtaMax];
    uint8_t stage_data[kCtaMax][kStageMax]; /* (tile*kb + k + 1) of the data that landed; 0 none */
    uint8_t inflight[kCtaMax][kStageMax];   /* the copy in flight into the stage; 0 none */
    uint8_t acc_tile[kCtaMax][kAccStages], acc_k[kCtaMax][kAccStages]; /* tile+1 and MMAs accumulated */
    uint8_t addr_arrived[kCtaMax], sync1, sync2;
    uint8_t prod_pc[kCtaMax], prod_i[kCtaMax];
    uint8_t mma_pc[kCtaMax], mma_i[kCtaMax], mma_j[kCtaMax], mma_k[kCtaMax];
    epi_warp epi[kCtaMax][kEpiMax];
    uint8_t slot[kCtaMax][kSlotMax]; /* mx: (tile*kb + k + 1) of the scales a tcgen05.cp wrote there; 0 none */
    uint8_t pipe_len;
    uint16_t pipe[kPipeMax];
    /* Last, warp by warp, so that a configuration stores and hashes only the buffers of the warps it
     * has (state_bytes; DIRECT none). cb[e][c] belongs to epi[c][e]: the two are sorted together. */
    chunk_bufs cb[kEpiMax][kCtaMax];
} state;

/* tensor pipe entries: a commit (bit 15: barrier kind, index, CTA mask); a tcgen05.cp (bit 14: tile, k-block,
 * stage, scale slot); else an MMA (tile, k-block, stage, accumulator, the scale slot it reads) */
#define OP_COMMIT 0x8000u
#define OP_CP     0x4000u
static uint16_t op_mma(int j, int k, int s, int a, int t)
{
    return (uint16_t)(j | (k << 5) | (s << 8) | (a << 11) | (t << 12));
}
static uint16_t op_cp(int j, int k, int s, int t)
{
    return (uint16_t)(OP_CP | (unsigned)j | ((unsigned)k << 5) | ((unsigned)s << 8) | ((unsigned)t << 12));
}
static uint16_t op_commit(int kind, int idx, int mask)
{
    return (uint16_t)(OP_COMMIT | (unsigned)kind | ((unsigned)idx << 3) | ((unsigned)mask << 6));
}
static int op_is_mma(uint16_t op)
{
    return !(op & (OP_COMMIT | OP_CP));
}
static int op_is_cp(uint16_t op)
{
    return (op & (OP_COMMIT | OP_CP)) == OP_CP;
}
static int op_tile(uint16_t op)
{
    return op & 31;
}
static int op_kblock(uint16_t op)
{
    return (op >> 5) & 7;
}
static int op_stage(uint16_t op)
{
    return (op >> 8) & 7;
}
static int op_acc(uint16_t op)
{
    return (op >> 11) & 1;
}
static int op_slot(uint16_t op)
{
    return (op >> 12) & 3;
}

/* ---------------------------------------------------------------- violations */
static char viol[512];
static int violated;
#define VIOLATION(...)                                 \
    do {                                               \
        if (!violated) {                               \
            snprintf(viol, sizeof(viol), __VA_ARGS__); \
            violated = 1;                              \
        }                                              \
    } while (0)

/* ---------------------------------------------------------------- barrier semantics */
static int bar_count(int kind, int cta)
{
    switch (kind) {
    case B_FULL:
        /* the expect_tx arrival; relay: the leader's also counts the peer's forward */
        return C.relay && cta == 0 && C.mut != MUT_RELAY_FULL_COUNT_1 ? 2 : 1;
    case B_EMPTY:
    case B_ACC_FULL: return 1; /* one commit (multicast: one in each CTA) */
    case B_ACC_EMPTY: return C.mut == MUT_ACC_EMPTY_COUNT_NO_CG ? C.epi : C.epi * C.cg;
    case B_DEALLOC:
        if (C.mut == MUT_DEALLOC_COUNT_LOW) return C.epi * C.cg - 1;
        if (C.mut == MUT_DEALLOC_COUNT_NO_CG) return C.epi;
        if (C.mut == MUT_DEALLOC_COUNT_HIGH) return C.epi * C.cg + 1;
        return C.epi * C.cg;
    case B_C_FULL: return 1; /* the warp's lane 0: arrive.expect_tx with the chunk's bytes */
    }
    return 1;
}

static bar *bar_ref(state *st, int kind, int cta, int idx)
{
    switch (kind) {
    case B_FULL: return &st->full[cta][idx];
    case B_EMPTY: return &st->empty[cta][idx];
    case B_ACC_FULL: return &st->acc_full[cta][idx];
    case B_ACC_EMPTY: return &st->acc_empty[cta][idx];
    case B_C_FULL: return &st->cb[idx / kCBufMax][cta].c_full[idx % kCBufMax];
    default: return &st->dealloc[cta];
    }
}

/* "full[2]"; "c_full[1][0]" for warp 1's buffer 0 */
static const char *bar_label(int kind, int idx, char *buf, size_t n)
{
    if (kind == B_C_FULL)
        snprintf(buf, n, "c_full[%d][%d]", idx / kCBufMax, idx % kCBufMax);
    else
        snprintf(buf, n, "%s[%d]", bar_names[kind], idx);
    return buf;
}

static int bar_usable(const state *st, int kind, int cta, int idx, const char *what)
{
    char l[32];
    if (!st->inited[cta]) {
        VIOLATION("%s on %s of CTA %d before the barrier was initialised", what, bar_label(kind, idx, l, sizeof(l)),
                  cta);
        return 0;
    }
    if (st->exited[cta]) {
        VIOLATION("%s on %s of CTA %d after that CTA exited", what, bar_label(kind, idx, l, sizeof(l)), cta);
        return 0;
    }
    return 1;
}

static void bar_maybe_complete(bar *b, int kind, int cta)
{
    if (b->pend == 0 && b->tx == 0) {
        if (b->done < 250) b->done++;
        b->pend = (uint8_t)bar_count(kind, cta);
    }
}

static void arrive(state *st, int kind, int cta, int idx)
{
    if (!bar_usable(st, kind, cta, idx, "arrive")) return;
    bar *b = bar_ref(st, kind, cta, idx);
    if (b->pend == 0) {
        char l[32];
        VIOLATION("more arrivals than the count in one phase of %s of CTA %d", bar_label(kind, idx, l, sizeof(l)), cta);
        return;
    }
    b->pend--;
    bar_maybe_complete(b, kind, cta);
}

static void expect_tx(state *st, int kind, int cta, int idx, int n)
{
    if (!bar_usable(st, kind, cta, idx, "expect_tx")) return;
    bar_ref(st, kind, cta, idx)->tx = (int8_t)(bar_ref(st, kind, cta, idx)->tx + n);
}

static void complete_tx(state *st, int kind, int cta, int idx)
{
    if (!bar_usable(st, kind, cta, idx, "TMA complete_tx")) return;
    bar *b = bar_ref(st, kind, cta, idx);
    b->tx--;
    bar_maybe_complete(b, kind, cta);
}

/* try_wait.parity(parity): the phase with that parity has completed, i.e. the current phase's parity
 * differs (a fresh barrier is in phase 0, so parity 1 passes at once). */
static int passes(const bar *b, int parity)
{
    return (b->done & 1) != parity;
}

/* Parity a ring side waits for at position i (advances so far) with `n` stages, starting at p0. */
static int ring_parity(int i, int n, int p0)
{
    return p0 ^ ((i / n) & 1);
}

/* ---------------------------------------------------------------- the roles */
static int group_mask(void)
{
    return C.cg == 2 ? 3 : 1;
}
static int commit_mask(void)
{
    return C.cg == 2 && C.mut != MUT_NO_MULTICAST ? 3 : 1;
}
static int use_sync2(void)
{
    return C.cg == 2 && C.mut != MUT_NO_CLUSTER_SYNC2;
}
static int procs_per_cta(void)
{
    return 2 + C.epi;
}
static int prod_p0(void)
{
    return C.mut == MUT_PRODUCER_PHASE_0 ? 0 : 1;
}
static int cons_p0(void)
{
    return C.mut == MUT_CONSUMER_PHASE_1 ? 1 : 0;
}
static int accp_p0(void)
{
    return C.mut == MUT_ACC_PRODUCER_PHASE_0 ? 0 : 1;
}
/* mx: the CTAs whose stage a tcgen05.cp reads and whose slot it writes (cp.cta_group::2 copies each CTA's
 * own smem into its own TMEM at the same offsets) */
static int cp_mask(void)
{
    return C.mut == MUT_SF_CP_LEADER_ONLY ? 1 : group_mask();
}
/* mx: the scale slot the k-block in stage s is copied into, and the one its MMA reads: the stage's own */
static int cp_slot(int s)
{
    switch (C.mut) {
    case MUT_SF_SINGLE_SLOT: return 0;
    case MUT_SF_SLOT_OFF_BY_ONE: return (s + 1) % C.stages;
    case MUT_SF_TWO_SLOTS: return s % 2;
    default: return s;
    }
}
static int mma_slot(int s)
{
    return C.mut == MUT_SF_SLOT_OFF_BY_ONE ? s : cp_slot(s);
}
/* where the MMA warp begins a k-block: the mutant issues the cp before the full[s] wait */
static int mma_k_entry(void)
{
    return C.mx && C.mut == MUT_SF_CP_BEFORE_FULL_WAIT ? M_CP : M_K;
}
/* what a scale slot holding v (tile*kb + k + 1; 0 none) holds */
static const char *scales_label(int v, char *buf, size_t n)
{
    if (v)
        snprintf(buf, n, "the scales of tile %d k-block %d", (v - 1) / C.kb, (v - 1) % C.kb);
    else
        snprintf(buf, n, "no scales");
    return buf;
}

/* where a role goes after the set-up */
static int mma_after_setup(int cta)
{
    if (C.tiles == 0) return M_DEALLOC;
    return cta == 0 ? M_TILE : M_DEALLOC;
}
static int via_smem(void)
{
    return C.epilogue != EPI_DIRECT;
}
/* the chunks of tile j */
static int chunks_of(int j)
{
    return (j & 1) && C.chunks_odd ? C.chunks_odd : C.chunks;
}
/* where a warp begins a tile: STAGED first loads the C of the tile's first chunks */
static int epi_tile_start(void)
{
    return C.epilogue == EPI_STAGED ? E_C_FIRST : E_TILE;
}
/* after the last tile: TMA and STAGED wait for their stores before the teardown signals */
static int epi_after_tiles(void)
{
    return via_smem() ? E_DRAIN : E_SIG_PEER;
}
static int epi_after_setup(void)
{
    return C.tiles > 0 ? epi_tile_start() : epi_after_tiles();
}
/* The parity a warp's c_full wait for chunk seq names: buffer seq % cbufs is loaded once per chunk through
 * it, so that load is the buffer's (seq / cbufs)-th phase (the kernel's (seq / kBuffers) & 1). */
static int c_full_parity(int seq)
{
    return ((seq / C.cbufs) & 1) ^ (C.mut == MUT_C_FULL_PHASE_1);
}

static void init_barriers(state *st, int c)
{
    st->inited[c] = 1;
    for (int s = 0; s < C.stages; ++s) {
        st->full[c][s].pend = (uint8_t)bar_count(B_FULL, c);
        st->empty[c][s].pend = (uint8_t)bar_count(B_EMPTY, c);
    }
    for (int a = 0; a < kAccStages; ++a) {
        st->acc_full[c][a].pend = (uint8_t)bar_count(B_ACC_FULL, c);
        st->acc_empty[c][a].pend = (uint8_t)bar_count(B_ACC_EMPTY, c);
    }
    st->dealloc[c].pend = (uint8_t)bar_count(B_DEALLOC, c);
    /* all kCBufMax per warp, as the kernel, whatever the output type; DIRECT never uses them, and the
     * model's DIRECT states leave them out */
    for (int e = 0; e < (via_smem() ? C.epi : 0); ++e)
        for (int b = 0; b < kCBufMax; ++b) st->cb[e][c].c_full[b].pend = (uint8_t)bar_count(B_C_FULL, c);
}

/* mx: the MMA warp puts the tcgen05.cp of k-block (j, k), stage s, into the tensor pipe. */
static void pipe_push_cp(state *st, int j, int k, int s)
{
    int cps = 0;
    for (int p = 0; p < st->pipe_len; ++p) cps += op_is_cp(st->pipe[p]);
    if (cps == kCpSteps || st->pipe_len == kPipeMax) {
        fprintf(stderr, "model: too many tcgen05.cp in flight (raise kCpSteps or kPipeMax)\n");
        exit(2);
    }
    st->pipe[st->pipe_len++] = op_cp(j, k, s, cp_slot(s));
}

/* Each step function: returns 0, with `st` untouched, if the step is not enabled in `st`, else applies it. */
static int step_producer(state *st, int c)
{
    const int total = C.tiles * C.kb;
    switch (st->prod_pc[c]) {
    case P_INIT: /* thread 0 (this warp's lane 0): init every barrier of the CTA, fence.mbarrier_init */
        init_barriers(st, c);
        st->prod_pc[c] = P_SYNC1_A;
        return 1;
    case P_SYNC1_A:
        st->sync1++;
        st->prod_pc[c] = P_SYNC1_W;
        return 1;
    case P_SYNC1_W:
        if (st->sync1 != C.cg * procs_per_cta()) return 0;
        st->prod_pc[c] = use_sync2() ? P_SYNC2_A : (total > 0 ? P_LOOP : P_TAIL);
        return 1;
    case P_SYNC2_A:
        st->sync2++;
        st->prod_pc[c] = P_SYNC2_W;
        return 1;
    case P_SYNC2_W:
        if (st->sync2 != C.cg * procs_per_cta()) return 0;
        st->prod_pc[c] = total > 0 ? P_LOOP : P_TAIL;
        return 1;
    case P_LOOP: {
        const int i = st->prod_i[c], s = i % C.stages;
        if (C.mut != MUT_NO_EMPTY_WAIT && !passes(&st->empty[c][s], ring_parity(i, C.stages, prod_p0()))) return 0;
        if (C.relay) { /* every CTA announces its own bytes on its own full[s] */
            expect_tx(st, B_FULL, c, s, 1);
            arrive(st, B_FULL, c, s);
        } else if (c == 0) { /* the leader (or the one CTA) announces the bytes of the whole group */
            int copies = C.cg == 2 && C.mut != MUT_EXPECT_TX_NOT_DOUBLED ? 2 : 1;
            expect_tx(st, B_FULL, 0, s, copies);
            arrive(st, B_FULL, 0, s);
        }
        if (st->inflight[c][s])
            VIOLATION("producer of CTA %d issues a TMA copy into stage %d while another is in flight", c, s);
        st->inflight[c][s] = (uint8_t)(i + 1);
        st->prod_i[c]++;
        if (C.relay && c == 1)
            st->prod_pc[c] = P_RELAY;
        else if (st->prod_i[c] == total)
            st->prod_pc[c] = P_TAIL;
        return 1;
    }
    case P_RELAY: { /* the peer's producer (relay variant): wait own full[s] for the copy it just issued,
                       forward one arrival to the leader's full[s] */
        const int i = st->prod_i[c] - 1, s = i % C.stages;
        if (C.mut != MUT_RELAY_NO_WAIT && !passes(&st->full[c][s], ring_parity(i, C.stages, cons_p0()))) return 0;
        arrive(st, B_FULL, 0, s);
        st->prod_pc[c] = st->prod_i[c] == total ? P_TAIL : P_LOOP;
        return 1;
    }
    case P_TAIL: { /* producer_tail: one more acquire of each stage */
        const int i = st->prod_i[c], s = i % C.stages;
        if (!passes(&st->empty[c][s], ring_parity(i, C.stages, prod_p0()))) return 0;
        st->prod_i[c]++;
        if (st->prod_i[c] == total + C.stages) st->prod_pc[c] = P_DONE;
        return 1;
    }
    }
    return 0;
}

static int step_mma(state *st, int c)
{
    switch (st->mma_pc[c]) {
    case M_SYNC1_A:
        st->sync1++;
        st->mma_pc[c] = M_SYNC1_W;
        return 1;
    case M_SYNC1_W:
        if (st->sync1 != C.cg * procs_per_cta()) return 0;
        st->mma_pc[c] = M_ALLOC;
        return 1;
    case M_ALLOC:
        st->tmem[c] = TMEM_ALLOCATED;
        st->mma_pc[c] = M_ADDR_A;
        return 1;
    case M_ADDR_A: /* bar.arrive: the allocating warp publishes and goes on; only the receivers wait */
        st->addr_arrived[c]++;
        st->mma_pc[c] = use_sync2() ? M_SYNC2_A : mma_after_setup(c);
        return 1;
    case M_SYNC2_A:
        st->sync2++;
        st->mma_pc[c] = M_SYNC2_W;
        return 1;
    case M_SYNC2_W:
        if (st->sync2 != C.cg * procs_per_cta()) return 0;
        st->mma_pc[c] = mma_after_setup(c);
        return 1;
    case M_TILE: {
        const int j = st->mma_j[c], a = j % kAccStages;
        if (C.mut != MUT_NO_ACC_EMPTY_WAIT && !passes(&st->acc_empty[0][a], ring_parity(j, kAccStages, accp_p0())))
            return 0;
        st->mma_pc[c] = mma_k_entry();
        return 1;
    }
    case M_CP: /* (mutant only) the k-block's tcgen05.cp before its full[s] wait */
        pipe_push_cp(st, st->mma_j[c], st->mma_k[c], st->mma_i[c] % C.stages);
        st->mma_pc[c] = M_K;
        return 1;
    case M_K: {
        const int i = st->mma_i[c], s = i % C.stages, j = st->mma_j[c], k = st->mma_k[c], a = j % kAccStages;
        if (!passes(&st->full[0][s], ring_parity(i, C.stages, cons_p0()))) return 0;
        if (st->pipe_len + 4 > kPipeMax) {
            fprintf(stderr, "model: tensor pipe overflow (raise kPipeMax)\n");
            exit(2);
        }
        /* mx: tcgen05.cp of the stage's scales (SFA and SFB: one op) into the slot, then the MMA that reads it */
        const int commit_first = C.mx && C.mut == MUT_SF_COMMIT_BEFORE_CP;
        if (commit_first) st->pipe[st->pipe_len++] = op_commit(B_EMPTY, s, commit_mask());
        if (C.mx && C.mut != MUT_SF_CP_BEFORE_FULL_WAIT && C.mut != MUT_SF_CP_AFTER_MMA) pipe_push_cp(st, j, k, s);
        st->pipe[st->pipe_len++] = op_mma(j, k, s, a, C.mx ? mma_slot(s) : 0);
        if (C.mx && C.mut == MUT_SF_CP_AFTER_MMA) pipe_push_cp(st, j, k, s);
        if (commit_first) {
            /* commit(empty[s]) is in the pipe already */
        } else if (C.mut == MUT_ARRIVE_NOT_COMMIT_EMPTY) {
            for (int d = 0; d < C.cg; ++d)
                if (commit_mask() >> d & 1) arrive(st, B_EMPTY, d, s);
        } else {
            st->pipe[st->pipe_len++] = op_commit(B_EMPTY, s, commit_mask());
        }
        if (k == C.kb - 1) {
            if (C.mut == MUT_ARRIVE_NOT_COMMIT_ACC) {
                for (int d = 0; d < C.cg; ++d)
                    if (commit_mask() >> d & 1) arrive(st, B_ACC_FULL, d, a);
            } else {
                st->pipe[st->pipe_len++] = op_commit(B_ACC_FULL, a, commit_mask());
            }
        }
        st->mma_i[c]++;
        if (++st->mma_k[c] == C.kb) {
            st->mma_k[c] = 0;
            st->mma_j[c]++;
            st->mma_pc[c] = st->mma_j[c] == C.tiles ? M_DEALLOC : M_TILE;
        } else {
            st->mma_pc[c] = mma_k_entry();
        }
        return 1;
    }
    case M_DEALLOC: /* relinquish (no effect in the model), wait, dealloc */
        if (C.mut != MUT_DEALLOC_NO_WAIT && !passes(&st->dealloc[c], 0)) return 0;
        if (C.cg == 2 && st->tmem[c ^ 1] == TMEM_NONE)
            VIOLATION("CTA %d deallocates TMEM before the peer CTA %d allocated", c, c ^ 1);
        for (int d = 0; d < C.cg; ++d)
            for (int e = 0; e < C.epi; ++e)
                if (st->epi[d][e].pc < E_DRAIN)
                    VIOLATION("CTA %d deallocates TMEM while epilogue warp %d of CTA %d has not finished reading "
                              "(it is at tile %d of %d)",
                              c, e, d, st->epi[d][e].j, C.tiles);
        st->tmem[c] = TMEM_FREED;
        st->mma_pc[c] = M_DONE;
        return 1;
    }
    return 0;
}

static void epi_next_tile(epi_warp *w)
{
    w->j++;
    w->ch = 0;
    w->pc = w->j == C.tiles ? epi_after_tiles() : epi_tile_start();
}

static void epi_next_chunk(epi_warp *w)
{
    if (++w->ch < chunks_of(w->j))
        w->pc = E_LD;
    else
        epi_next_tile(w);
}

/* After the tcgen05.ld of chunk ch: the last read of the accumulator releases it, before that chunk's
 * output op and store (DIRECT reads the whole accumulator in one step: its stores go straight to global
 * memory, which the model does not look at). */
static void epi_after_ld(epi_warp *w)
{
    w->pc = !via_smem() || w->ch == chunks_of(w->j) - 1 ? E_REL : E_COMBINE;
}

/* The epilogue warp's tcgen05.ld (+ wait::ld) of accumulator j % 2 for its tile j. (The wait on acc_full
 * and the first load are one step: nothing the properties look at can happen in between, since "read"
 * means "loaded", and an MMA overwriting the accumulator before the load is caught either way.) */
static void epi_load(state *st, int c, int e)
{
    const int j = st->epi[c][e].j, a = j % kAccStages;
    if (st->tmem[c] != TMEM_ALLOCATED)
        VIOLATION("epilogue warp %d of CTA %d reads TMEM %s", e, c,
                  st->tmem[c] == TMEM_FREED ? "after the dealloc" : "before the alloc");
    else if (st->acc_tile[c][a] != j + 1 || st->acc_k[c][a] != C.kb)
        VIOLATION(
            "epilogue warp %d of CTA %d reads accumulator %d for tile %d but it holds tile %d after %d of %d MMAs", e,
            c, a, j, st->acc_tile[c][a] - 1, st->acc_k[c][a], C.kb);
}

/* How many stores back the store still pending on buffer b was issued (0: the newest). The warp's lane 0
 * issues every store as a bulk group of its own, in chunk order, so it is the newest chunk stored from b:
 * a second store from b would first have written b under the first, which the combine step reports. */
static int store_age(const epi_warp *w, int b)
{
    return ((w->seq - 1 - b) % C.cbufs + C.cbufs) % C.cbufs;
}
/* the chunk that store is of */
static int store_chunk(const epi_warp *w, int b)
{
    return w->seq - 1 - store_age(w, b);
}

/* cp.async.bulk.wait_group.read n: every store but the n newest has finished reading its buffer. */
static int stores_read(const epi_warp *w, const chunk_bufs *q, int n)
{
    for (int b = 0; b < C.cbufs; ++b)
        if ((q->stores >> b & 1) && store_age(w, b) >= n) return 0;
    return 1;
}

/* What buffer b holds, for a violation's message. */
static const char *cbuf_holds(const chunk_bufs *q, int b, char *buf, size_t n)
{
    if (q->cdata[b])
        snprintf(buf, n, "the C of chunk %d", q->cdata[b] - 1);
    else if (q->cleft[b] && q->cleft[b] < kCParts)
        snprintf(buf, n, "part of the C of chunk %d, the rest still landing", q->cload[b] - 1);
    else if (q->cleft[b])
        snprintf(buf, n, "none of the C of chunk %d yet", q->cload[b] - 1);
    else
        snprintf(buf, n, "no C (nothing, or results of an earlier chunk)");
    return buf;
}

/* The warp's lane 0: arrive.expect_tx(c_full[b], the chunk's bytes), then the TMA load of the C of chunk s
 * (the warp's s-th) into buffer b = s % cbufs, completing on c_full[b]. */
static void c_load(state *st, int c, int e, int s)
{
    chunk_bufs *q = &st->cb[e][c];
    const int b = s % C.cbufs;
    const int parts = C.mut == MUT_C_EXPECT_TX_SHORT  ? kCParts - 1
                      : C.mut == MUT_C_EXPECT_TX_LONG ? kCParts + 1
                                                      : kCParts;
    expect_tx(st, B_C_FULL, c, e * kCBufMax + b, parts);
    arrive(st, B_C_FULL, c, e * kCBufMax + b);
    if (q->cleft[b])
        VIOLATION("epilogue warp %d of CTA %d loads the C of chunk %d into buffer %d while the load of chunk %d is in "
                  "flight",
                  e, c, s, b, q->cload[b] - 1);
    q->cload[b] = (uint8_t)(s + 1);
    q->cleft[b] = kCParts;
}

static int step_epilogue(state *st, int c, int e)
{
    epi_warp *w = &st->epi[c][e];
    chunk_bufs *q = &st->cb[e][c];
    char h[96];
    switch (w->pc) {
    case E_SYNC1_A:
        st->sync1++;
        w->pc = E_SYNC1_W;
        return 1;
    case E_SYNC1_W:
        if (st->sync1 != C.cg * procs_per_cta()) return 0;
        w->pc = E_ADDR_A;
        return 1;
    case E_ADDR_A:
        if (C.mut != MUT_NO_ADDR_BARRIER) st->addr_arrived[c]++;
        w->pc = E_ADDR_W;
        return 1;
    case E_ADDR_W: /* bar.sync: every receiver and the allocating warp arrived; then read the slot */
        if (C.mut != MUT_NO_ADDR_BARRIER && st->addr_arrived[c] != 1 + C.epi) return 0;
        if (st->tmem[c] != TMEM_ALLOCATED)
            VIOLATION("epilogue warp %d of CTA %d reads the TMEM address before tcgen05.alloc wrote it", e, c);
        w->pc = use_sync2() ? E_SYNC2_A : epi_after_setup();
        return 1;
    case E_SYNC2_A:
        st->sync2++;
        w->pc = E_SYNC2_W;
        return 1;
    case E_SYNC2_W:
        if (st->sync2 != C.cg * procs_per_cta()) return 0;
        w->pc = epi_after_setup();
        return 1;
    case E_C_FIRST: /* STAGED, lane 0, before the acc_full wait (under the tile's main loop): wait_group.read 0,
                       then the C of the tile's first min(chunks, cbufs) chunks */
        if (C.mut != MUT_C_FIRST_NO_READ_WAIT && !stores_read(w, q, 0)) return 0;
        for (int k = 0; k < chunks_of(w->j) && k < C.cbufs; ++k) c_load(st, c, e, w->seq + k);
        w->pc = E_TILE;
        return 1;
    case E_TILE: { /* wait acc_full[a] (own CTA), then tcgen05.ld + wait::ld of chunk 0 (DIRECT: of all) */
        const int a = w->j % kAccStages;
        if (!passes(&st->acc_full[c][a], ring_parity(w->j, kAccStages, 0))) return 0;
        if (C.mut == MUT_RELEASE_BEFORE_LD) { /* the mutant releases first, loads later */
            arrive(st, B_ACC_EMPTY, 0, a);
            w->pc = E_LD_LATE;
            return 1;
        }
        epi_load(st, c, e);
        epi_after_ld(w);
        return 1;
    }
    case E_LD: /* tcgen05.ld + wait::ld of chunk ch > 0 */
        epi_load(st, c, e);
        epi_after_ld(w);
        return 1;
    case E_LD_LATE: /* (mutant only) the load after the release */
        epi_load(st, c, e);
        epi_next_tile(w);
        return 1;
    case E_REL: /* early release: arrive on the leader's acc_empty[a] (remote for the peer) */
        arrive(st, B_ACC_EMPTY, 0, w->j % kAccStages);
        if (via_smem())
            w->pc = E_COMBINE;
        else
            epi_next_tile(w);
        return 1;
    case E_COMBINE: { /* the chunk's output op into buffer b = seq % cbufs. STAGED: wait c_full[b], read the
                         C that landed there, write the results over it. TMA: lane 0 waits wait_group.read
                         cbufs - 1 (the store cbufs chunks back, the buffer's last, has read it), __syncwarp. */
        const int b = w->seq % C.cbufs;
        if (C.epilogue == EPI_STAGED) {
            if (C.mut != MUT_C_NO_FULL_WAIT && !passes(&q->c_full[b], c_full_parity(w->seq))) return 0;
        } else if (C.mut != MUT_STORE_NO_READ_WAIT && !stores_read(w, q, C.cbufs - 1)) {
            return 0;
        }
        if (q->stores >> b & 1)
            VIOLATION("epilogue warp %d of CTA %d writes chunk %d into buffer %d while the TMA store of chunk %d still "
                      "reads it",
                      e, c, w->seq, b, store_chunk(w, b));
        else if (C.epilogue == EPI_STAGED && q->cdata[b] != w->seq + 1)
            VIOLATION("epilogue warp %d of CTA %d combines chunk %d with buffer %d, which holds %s", e, c, w->seq, b,
                      cbuf_holds(q, b, h, sizeof(h)));
        q->cdata[b] = 0; /* the warp's results now */
        w->pc = E_STORE;
        return 1;
    }
    case E_STORE: { /* lane 0: TMA store from buffer b, commit_group; then (STAGED) the C load ahead */
        const int b = w->seq % C.cbufs, ch = w->ch;
        q->stores = (uint8_t)(q->stores | 1u << b);
        w->seq++;
        if (C.epilogue == EPI_STAGED && ch >= 1 && ch - 1 + C.cbufs < chunks_of(w->j))
            w->pc = E_REFILL;
        else
            epi_next_chunk(w);
        return 1;
    }
    case E_REFILL: { /* STAGED, lane 0: wait_group.read 1 (every store but the one just issued, so chunk ch - 1's,
                        has read its buffer), then the C of chunk ch - 1 + cbufs into chunk ch - 1's buffer */
        const int newest = C.mut == MUT_C_REFILL_WAIT_BUFS ? C.cbufs - 1 : 1;
        if (C.mut != MUT_C_REFILL_NO_READ_WAIT && !stores_read(w, q, newest)) return 0;
        c_load(st, c, e, w->seq - 2 + C.cbufs); /* seq counts the store just issued: chunk ch - 1 is seq - 2 */
        epi_next_chunk(w);
        return 1;
    }
    case E_DRAIN: /* lane 0: wait_group 0, every store done before the CTA's shared memory goes away */
        if (C.mut != MUT_NO_STORE_DRAIN && q->stores) return 0;
        w->pc = E_SIG_PEER;
        return 1;
    case E_SIG_PEER:
        if (C.cg == 2 && C.mut != MUT_NO_SIGNAL_PEER) arrive(st, B_DEALLOC, c ^ 1, 0);
        w->pc = E_SIG_SELF;
        return 1;
    case E_SIG_SELF:
        arrive(st, B_DEALLOC, c, 0);
        w->pc = E_DONE;
        return 1;
    }
    return 0;
}

/* Part of the C load in flight into buffer b of epilogue warp e lands: its bytes are written, complete_tx
 * on the warp's c_full[b] (the load is the warp's own TMA: its own CTA's barrier in either cta_group). */
static int step_c_land(state *st, int c, int e, int b)
{
    const epi_warp *w = &st->epi[c][e];
    chunk_bufs *q = &st->cb[e][c];
    if (!q->cleft[b]) return 0;
    if (st->exited[c])
        VIOLATION("TMA writes buffer %d of epilogue warp %d of CTA %d after that CTA exited", b, e, c);
    else if (q->stores >> b & 1)
        VIOLATION("the C load of chunk %d overwrites buffer %d of epilogue warp %d of CTA %d while the TMA store of "
                  "chunk %d still reads it",
                  q->cload[b] - 1, b, e, c, store_chunk(w, b));
    else if (w->pc == E_STORE && w->seq % C.cbufs == b)
        VIOLATION("the C load of chunk %d overwrites buffer %d of epilogue warp %d of CTA %d, which holds the results "
                  "of chunk %d before their store",
                  q->cload[b] - 1, b, e, c, w->seq);
    q->cleft[b]--;
    q->cdata[b] = q->cleft[b] ? 0 : q->cload[b];
    if (!q->cleft[b]) q->cload[b] = 0;
    complete_tx(st, B_C_FULL, c, e * kCBufMax + b);
    return 1;
}

/* The TMA store from buffer b of epilogue warp e has read it (and written C: a store is one step, at any
 * time after its issue). */
static int step_store_read(state *st, int c, int e, int b)
{
    chunk_bufs *q = &st->cb[e][c];
    if (!(q->stores >> b & 1)) return 0;
    if (st->exited[c])
        VIOLATION("a TMA store reads buffer %d of epilogue warp %d of CTA %d after that CTA exited", b, e, c);
    q->stores = (uint8_t)(q->stores & ~(1u << b));
    return 1;
}

/* A TMA copy into stage s of CTA c lands: the data is written, complete_tx on the leader's full[s]. */
static int step_land(state *st, int c, int s)
{
    if (!st->inflight[c][s]) return 0;
    if (st->exited[c]) VIOLATION("TMA writes stage %d of CTA %d after that CTA exited", s, c);
    for (int p = 0; p < st->pipe_len; ++p) {
        const uint16_t op = st->pipe[p];
        if (op_is_mma(op) && op_stage(op) == s)
            VIOLATION("TMA overwrites stage %d of CTA %d while an issued MMA (tile %d, k %d) still reads it", s, c,
                      op_tile(op), op_kblock(op));
        else if (op_is_cp(op) && op_stage(op) == s && (cp_mask() >> c & 1))
            VIOLATION("TMA overwrites stage %d of CTA %d while an issued tcgen05.cp (tile %d, k %d) still reads its "
                      "scales",
                      s, c, op_tile(op), op_kblock(op));
    }
    st->stage_data[c][s] = st->inflight[c][s];
    st->inflight[c][s] = 0;
    complete_tx(st, B_FULL, C.relay ? c : 0, s);
    return 1;
}

/* Has epilogue warp e of CTA d finished its tcgen05.ld of tile t? */
static int epi_has_read(const state *st, int d, int e, int t)
{
    const epi_warp *w = &st->epi[d][e];
    if (w->j != t) return w->j > t;
    if (!via_smem()) return w->pc == E_REL && C.mut != MUT_RELEASE_BEFORE_LD;
    return w->ch == chunks_of(t) - 1 && (w->pc == E_REL || w->pc == E_COMBINE || w->pc == E_STORE);
}

/* Takes the operation at position p out of the tensor pipe. */
static uint16_t pipe_take(state *st, int p)
{
    const uint16_t op = st->pipe[p];
    memmove(&st->pipe[p], &st->pipe[p + 1], sizeof(st->pipe[0]) * (size_t)(st->pipe_len - 1 - p));
    st->pipe[--st->pipe_len] = 0;
    return op;
}

/* The position of the n-th tcgen05.cp (from the oldest) in the tensor pipe; -1 none. */
static int pipe_cp_at(const state *st, int n)
{
    for (int p = 0; p < st->pipe_len; ++p)
        if (op_is_cp(st->pipe[p]) && n-- == 0) return p;
    return -1;
}

/* The tensor pipe's head, an MMA or a commit, completes. An MMA is ordered after every earlier MMA and cp of
 * the issuing thread, a commit after everything before it, so either executes at the head only (an MMA
 * that ran ahead of an earlier commit would only delay that commit's arrival: what the MMA reads and
 * writes does not depend on it). A cp at the head executes by step_cp, as anywhere else. */
static int step_pipe(state *st)
{
    if (st->pipe_len == 0 || op_is_cp(st->pipe[0])) return 0;
    const uint16_t op = pipe_take(st, 0);
    if (op & OP_COMMIT) {
        int kind = op & 7, idx = (op >> 3) & 7, mask = (op >> 6) & 3;
        for (int d = 0; d < C.cg; ++d)
            if (mask >> d & 1) arrive(st, kind, d, idx);
        return 1;
    }
    const int j = op_tile(op), k = op_kblock(op), s = op_stage(op), a = op_acc(op), t = op_slot(op);
    char h[48];
    for (int d = 0; d < C.cg; ++d) {
        if (!(group_mask() >> d & 1)) continue;
        if (st->exited[d]) VIOLATION("MMA (tile %d, k %d) touches CTA %d after it exited", j, k, d);
        if (st->tmem[d] != TMEM_ALLOCATED)
            VIOLATION("MMA (tile %d, k %d) writes TMEM of CTA %d %s", j, k, d,
                      st->tmem[d] == TMEM_FREED ? "after its dealloc" : "before its alloc");
        if (st->stage_data[d][s] != j * C.kb + k + 1)
            VIOLATION("MMA (tile %d, k %d) reads stage %d of CTA %d holding %s", j, k, s, d,
                      st->stage_data[d][s] ? "other data (not yet landed or already overwritten)" : "nothing");
        if (C.mx && st->slot[d][t] != j * C.kb + k + 1)
            VIOLATION("MMA (tile %d, k %d) reads scale slot %d of CTA %d holding %s", j, k, t, d,
                      scales_label(st->slot[d][t], h, sizeof(h)));
        if (k == 0) {
            if (st->acc_tile[d][a]) {
                int prev = st->acc_tile[d][a] - 1;
                for (int e = 0; e < C.epi; ++e)
                    if (!epi_has_read(st, d, e, prev))
                        VIOLATION("MMA of tile %d overwrites accumulator %d of CTA %d before epilogue warp %d read "
                                  "tile %d",
                                  j, a, d, e, prev);
            }
            st->acc_tile[d][a] = (uint8_t)(j + 1);
            st->acc_k[d][a] = 1;
        } else {
            if (st->acc_tile[d][a] != j + 1 || st->acc_k[d][a] != k)
                VIOLATION("MMA (tile %d, k %d) accumulates out of order into accumulator %d of CTA %d", j, k, a, d);
            st->acc_k[d][a]++;
        }
    }
    return 1;
}

/* mx: the n-th tcgen05.cp of the tensor pipe completes, whatever is before it: the ISA orders a cp after
 * nothing its thread issued before it in the pipe (no mma -> cp, no cp -> cp), only after what the full[s]
 * wait and tcgen05.fence::after_thread_sync made it see. It reads the scales in stage s of every CTA of the
 * group and writes them into slot t of each CTA's TMEM. */
static int step_cp(state *st, int n)
{
    const int p = pipe_cp_at(st, n);
    if (p < 0) return 0;
    const uint16_t op = st->pipe[p];
    const int j = op_tile(op), k = op_kblock(op), s = op_stage(op), t = op_slot(op), v = j * C.kb + k + 1;
    for (int d = 0; d < C.cg; ++d) {
        if (!(cp_mask() >> d & 1)) continue;
        if (st->exited[d]) VIOLATION("tcgen05.cp (tile %d, k %d) touches CTA %d after it exited", j, k, d);
        if (st->tmem[d] != TMEM_ALLOCATED)
            VIOLATION("tcgen05.cp (tile %d, k %d) writes TMEM of CTA %d %s", j, k, d,
                      st->tmem[d] == TMEM_FREED ? "after its dealloc" : "before its alloc");
        if (st->stage_data[d][s] != v)
            VIOLATION("tcgen05.cp (tile %d, k %d) reads the scales in stage %d of CTA %d holding %s", j, k, s, d,
                      st->stage_data[d][s] ? "other data (not yet landed or already overwritten)" : "nothing");
        for (int q = 0; q < p; ++q)
            if (op_is_mma(st->pipe[q]) && op_slot(st->pipe[q]) == t)
                VIOLATION("tcgen05.cp (tile %d, k %d) writes scale slot %d of CTA %d while the earlier MMA (tile %d, "
                          "k %d), not yet executed, still has to read it",
                          j, k, t, d, op_tile(st->pipe[q]), op_kblock(st->pipe[q]));
        st->slot[d][t] = (uint8_t)v;
    }
    pipe_take(st, p);
    return 1;
}

static int cta_roles_done(const state *st, int c)
{
    if (st->prod_pc[c] != P_DONE || st->mma_pc[c] != M_DONE) return 0;
    for (int e = 0; e < C.epi; ++e)
        if (st->epi[c][e].pc != E_DONE) return 0;
    return 1;
}

static int step_exit(state *st, int c)
{
    if (st->exited[c] || !cta_roles_done(st, c)) return 0;
    st->exited[c] = 1;
    if (st->tmem[c] == TMEM_ALLOCATED) VIOLATION("CTA %d exits with its TMEM allocation not freed", c);
    for (int s = 0; s < C.stages; ++s)
        if (st->inflight[c][s]) VIOLATION("CTA %d exits with a TMA copy into stage %d in flight", c, s);
    for (int p = 0; p < st->pipe_len; ++p)
        if (op_is_cp(st->pipe[p]) && (cp_mask() >> c & 1))
            VIOLATION("CTA %d exits with the tcgen05.cp (tile %d, k %d) into its TMEM in flight", c,
                      op_tile(st->pipe[p]), op_kblock(st->pipe[p]));
    if (c == 0 && st->pipe_len) VIOLATION("CTA %d exits with %d tensor-pipe operations in flight", c, st->pipe_len);
    for (int e = 0; e < C.epi; ++e) {
        const epi_warp *w = &st->epi[c][e];
        const chunk_bufs *q = &st->cb[e][c];
        for (int b = 0; b < C.cbufs; ++b) {
            if (q->stores >> b & 1)
                VIOLATION("CTA %d exits while the TMA store of chunk %d still reads buffer %d of epilogue warp %d", c,
                          store_chunk(w, b), b, e);
            if (q->cleft[b])
                VIOLATION("CTA %d exits with a C load into buffer %d of epilogue warp %d in flight", c, b, e);
        }
    }
    return 1;
}

/* Waiter-two-phases-behind check: every thread waiting for phase k of a barrier must find it completed
 * at most k+1 times (else the parity it waits for names a later phase). */
static void check_not_behind(const state *st)
{
    for (int c = 0; c < C.cg; ++c) {
        if (st->prod_pc[c] == P_LOOP || st->prod_pc[c] == P_TAIL) {
            int i = st->prod_i[c], k = i / C.stages - 1;
            if (st->empty[c][i % C.stages].done > k + 1)
                VIOLATION("producer of CTA %d waits for phase %d of empty[%d], which already completed %d phases", c, k,
                          i % C.stages, st->empty[c][i % C.stages].done);
        }
        if (c == 0 && st->mma_pc[c] == M_TILE) {
            int j = st->mma_j[c], k = j / kAccStages - 1;
            if (st->acc_empty[0][j % kAccStages].done > k + 1)
                VIOLATION("MMA warp waits for phase %d of acc_empty[%d], which already completed %d phases", k,
                          j % kAccStages, st->acc_empty[0][j % kAccStages].done);
        }
        if (c == 0 && st->mma_pc[c] == M_K) {
            int i = st->mma_i[c], k = i / C.stages;
            if (st->full[0][i % C.stages].done > k + 1)
                VIOLATION("MMA warp waits for phase %d of full[%d], which already completed %d phases", k, i % C.stages,
                          st->full[0][i % C.stages].done);
        }
        if (st->prod_pc[c] == P_RELAY) {
            int i = st->prod_i[c] - 1, k = i / C.stages;
            if (st->full[c][i % C.stages].done > k + 1)
                VIOLATION("peer producer waits for phase %d of its full[%d], which already completed %d phases", k,
                          i % C.stages, st->full[c][i % C.stages].done);
        }
        if (st->mma_pc[c] == M_DEALLOC && st->dealloc[c].done > 1)
            VIOLATION("MMA warp of CTA %d waits for phase 0 of its dealloc barrier, which completed %d phases", c,
                      st->dealloc[c].done);
        for (int e = 0; e < C.epi; ++e) {
            const epi_warp *w = &st->epi[c][e];
            const chunk_bufs *q = &st->cb[e][c];
            if (w->pc == E_TILE) {
                int j = w->j, k = j / kAccStages;
                if (st->acc_full[c][j % kAccStages].done > k + 1)
                    VIOLATION("epilogue warp %d of CTA %d waits for phase %d of acc_full[%d], which completed %d "
                              "phases",
                              e, c, k, j % kAccStages, st->acc_full[c][j % kAccStages].done);
            }
            if (w->pc == E_COMBINE && C.epilogue == EPI_STAGED) {
                int b = w->seq % C.cbufs, k = w->seq / C.cbufs;
                if (q->c_full[b].done > k + 1)
                    VIOLATION("epilogue warp %d of CTA %d waits for phase %d of c_full[%d][%d], which completed %d "
                              "phases",
                              e, c, k, e, b, q->c_full[b].done);
            }
        }
    }
}

/* Epilogue warps of one CTA are interchangeable: sort them so permutations are one state. */
static uint32_t epi_key(const epi_warp *w)
{
    return (uint32_t)w->pc << 24 | (uint32_t)w->j << 16 | (uint32_t)w->ch << 8 | w->seq;
}
static int epi_order(const state *st, int c, int x, int y)
{
    const uint32_t kx = epi_key(&st->epi[c][x]), ky = epi_key(&st->epi[c][y]);
    if (kx != ky) return kx < ky ? -1 : 1;
    return via_smem() ? memcmp(&st->cb[x][c], &st->cb[y][c], sizeof(chunk_bufs)) : 0;
}
static void canonicalize(state *st)
{
    const int bufs = via_smem();
    for (int c = 0; c < C.cg; ++c)
        for (int x = 1; x < C.epi; ++x)
            for (int y = x; y > 0 && epi_order(st, c, y - 1, y) > 0; --y) {
                epi_warp t = st->epi[c][y];
                st->epi[c][y] = st->epi[c][y - 1];
                st->epi[c][y - 1] = t;
                if (bufs) {
                    chunk_bufs u = st->cb[y][c];
                    st->cb[y][c] = st->cb[y - 1][c];
                    st->cb[y - 1][c] = u;
                }
            }
}

/* ---------------------------------------------------------------- steps, by number */
/* step ids: per CTA c (base 16*c): 0 producer, 1 MMA warp, 2..2+E-1 epilogue warps, 8+s TMA landing into
 * stage s, 14 exit; 32: the tensor pipe's head (an MMA or a commit); from kStepCp, n: the pipe's n-th
 * tcgen05.cp (mx); from kStepChunk, per epilogue warp e of CTA c (base kStepChunk + 8 * (kEpiMax * c + e)):
 * b: part of the C load into buffer b lands, 4 + b: the store from buffer b has read it. */
enum { kStepCp = 33, kStepChunk = kStepCp + kCpSteps, kStepCount = kStepChunk + 8 * kEpiMax * kCtaMax };
_Static_assert(kCBufMax <= 4, "four step ids per warp for each kind of chunk buffer step");

static int apply_step(state *st, int id)
{
    if (id >= kStepChunk) {
        const int x = id - kStepChunk, c = x / (8 * kEpiMax), e = x / 8 % kEpiMax, b = x % 4;
        if (c >= C.cg || e >= C.epi || b >= C.cbufs) return 0;
        return x % 8 < 4 ? step_c_land(st, c, e, b) : step_store_read(st, c, e, b);
    }
    if (id >= kStepCp) return C.mx ? step_cp(st, id - kStepCp) : 0;
    if (id == 32) return step_pipe(st);
    int c = id / 16, r = id % 16;
    if (c >= C.cg) return 0;
    if (r == 0) return step_producer(st, c);
    if (r == 1) return step_mma(st, c);
    if (r >= 2 && r < 2 + C.epi) return step_epilogue(st, c, r - 2);
    if (r >= 8 && r < 8 + C.stages) return step_land(st, c, r - 8);
    if (r == 14) return step_exit(st, c);
    return 0;
}

static const char *const prod_pc_names[] = {"thread 0: init barriers, fence.mbarrier_init",
                                            "cluster sync #1 arrive",
                                            "cluster sync #1 wait",
                                            "cluster sync #2 arrive",
                                            "cluster sync #2 wait",
                                            "wait empty, expect_tx, issue TMA copy",
                                            "relay: wait own full, forward to the leader's full",
                                            "producer_tail: wait empty",
                                            "done"};
static const char *const mma_pc_names[] = {"cluster sync #1 arrive",
                                           "cluster sync #1 wait",
                                           "tcgen05.alloc",
                                           "address barrier arrive (bar.arrive)",
                                           "cluster sync #2 arrive",
                                           "cluster sync #2 wait",
                                           "wait acc_empty",
                                           "(mutant) issue tcgen05.cp before the full wait",
                                           "wait full, issue (mx: tcgen05.cp,) MMA, commit(s)",
                                           "relinquish, wait dealloc barrier, dealloc",
                                           "done"};
static const char *const epi_pc_names[] = {"cluster sync #1 arrive",
                                           "cluster sync #1 wait",
                                           "address barrier arrive",
                                           "address barrier wait (bar.sync), read TMEM address",
                                           "cluster sync #2 arrive",
                                           "cluster sync #2 wait",
                                           "wait_group.read 0, load the C of the tile's first chunks",
                                           "wait acc_full, tcgen05.ld + wait::ld",
                                           "tcgen05.ld + wait::ld",
                                           "arrive acc_empty",
                                           "output op into the chunk buffer",
                                           "TMA store of the chunk, commit_group",
                                           "wait_group.read 1, load C ahead",
                                           "(mutant) tcgen05.ld after release",
                                           "wait_group 0 (every store done)",
                                           "signal_peer",
                                           "signal_self",
                                           "done"};
_Static_assert(sizeof(prod_pc_names) / sizeof(prod_pc_names[0]) == P_DONE + 1, "a name per producer step");
_Static_assert(sizeof(mma_pc_names) / sizeof(mma_pc_names[0]) == M_DONE + 1, "a name per MMA warp step");
_Static_assert(sizeof(epi_pc_names) / sizeof(epi_pc_names[0]) == E_DONE + 1, "a name per epilogue step");

/* A tensor pipe operation, as it executes. */
static const char *op_label(uint16_t op, char *buf, size_t n)
{
    if (op & OP_COMMIT)
        snprintf(buf, n, "commit arrives on %s[%d] (CTA mask %d)", bar_names[op & 7], (op >> 3) & 7, (op >> 6) & 3);
    else if (op_is_cp(op))
        snprintf(buf, n, "tcgen05.cp tile %d k-block %d: scales of stage %d into slot %d", op_tile(op), op_kblock(op),
                 op_stage(op), op_slot(op));
    else if (C.mx)
        snprintf(buf, n, "MMA tile %d k-block %d from stage %d and scale slot %d into accumulator %d", op_tile(op),
                 op_kblock(op), op_stage(op), op_slot(op), op_acc(op));
    else
        snprintf(buf, n, "MMA tile %d k-block %d from stage %d into accumulator %d", op_tile(op), op_kblock(op),
                 op_stage(op), op_acc(op));
    return buf;
}

/* What step `id` does from state `st` (the state before it). */
static void step_name(const state *st, int id, char *buf, size_t n)
{
    if (id >= kStepChunk) {
        const int x = id - kStepChunk, c = x / (8 * kEpiMax), e = x / 8 % kEpiMax, b = x % 4;
        const epi_warp *w = &st->epi[c][e];
        const chunk_bufs *q = &st->cb[e][c];
        if (x % 8 < 4)
            snprintf(buf, n, "CTA %d epilogue warp %d: part of the C load of chunk %d lands in buffer %d", c, e,
                     q->cload[b] - 1, b);
        else
            snprintf(buf, n, "CTA %d epilogue warp %d: the TMA store of chunk %d has read buffer %d", c, e,
                     store_chunk(w, b), b);
        return;
    }
    if (id >= kStepCp) {
        const int p = pipe_cp_at(st, id - kStepCp);
        char o[96];
        snprintf(buf, n, "tensor pipe: %s (%d operations before it)", op_label(st->pipe[p], o, sizeof(o)), p);
        return;
    }
    if (id == 32) {
        char o[96];
        snprintf(buf, n, "tensor pipe: %s", op_label(st->pipe[0], o, sizeof(o)));
        return;
    }
    int c = id / 16, r = id % 16;
    if (r == 0)
        snprintf(buf, n, "CTA %d producer (i %d): %s", c, st->prod_i[c], prod_pc_names[st->prod_pc[c]]);
    else if (r == 1)
        snprintf(buf, n, "CTA %d MMA warp (tile %d k %d): %s", c, st->mma_j[c], st->mma_k[c],
                 mma_pc_names[st->mma_pc[c]]);
    else if (r < 8)
        snprintf(buf, n, "CTA %d epilogue warp %d (tile %d chunk %d, %d stored): %s", c, r - 2, st->epi[c][r - 2].j,
                 st->epi[c][r - 2].ch, st->epi[c][r - 2].seq, epi_pc_names[st->epi[c][r - 2].pc]);
    else if (r < 14)
        snprintf(buf, n, "CTA %d: TMA copy %d lands in stage %d", c, st->inflight[c][r - 8] - 1, r - 8);
    else
        snprintf(buf, n, "CTA %d exits", c);
}

/* ---------------------------------------------------------------- the explorer (BFS, parent links) */
/* The bytes of a state this configuration uses: the chunk buffers of its warps only (DIRECT: none). */
static size_t state_bytes;

typedef struct store {
    unsigned char *states; /* state_bytes each */
    uint32_t *parent;
    uint8_t *via;
    size_t count, cap;
    uint64_t *table; /* the hash's upper half << 32 | index + 1; 0 empty (probes compare the hash first,
                        so a state is read only when its hash matches) */
    size_t table_cap;
} store;

/* Eight bytes at a time (the state is hashed once per transition, so this is much of the explorer's
 * time); states are zero-initialised, so the padding is always the same. */
static uint64_t hash_state(const void *st)
{
    const unsigned char *p = (const unsigned char *)st;
    uint64_t h = 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 8 <= state_bytes; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < state_bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    h ^= h >> 29;
    return h;
}

static unsigned char *stored(const store *S, size_t i)
{
    return S->states + i * state_bytes;
}
/* Stored state i as a whole state (what the configuration leaves out is zero). */
static void load_state(const store *S, size_t i, state *st)
{
    memset(st, 0, sizeof(*st));
    memcpy(st, stored(S, i), state_bytes);
}

static uint64_t table_entry(uint64_t hash, uint32_t idx)
{
    return (hash & 0xffffffff00000000ull) | (idx + 1u);
}

static void table_insert_index(store *S, uint32_t idx)
{
    const uint64_t hash = hash_state(stored(S, idx));
    size_t m = S->table_cap - 1, h = (size_t)hash & m;
    while (S->table[h]) h = (h + 1) & m;
    S->table[h] = table_entry(hash, idx);
}

/* Returns 1 if st was new (and stores it), 0 if seen. */
static int store_add(store *S, const state *st, uint32_t parent, uint8_t via, size_t limit)
{
    const uint64_t hash = hash_state(st);
    size_t m = S->table_cap - 1, h = (size_t)hash & m;
    while (S->table[h]) {
        const uint64_t t = S->table[h];
        if ((t >> 32) == (hash >> 32) && memcmp(stored(S, (uint32_t)t - 1), st, state_bytes) == 0) return 0;
        h = (h + 1) & m;
    }
    if (S->count == limit) {
        fprintf(stderr, "model: state limit %zu reached\n", limit);
        exit(2);
    }
    if (S->count == S->cap) {
        S->cap = S->cap ? S->cap * 2 : 1 << 16;
        S->states = (unsigned char *)realloc(S->states, S->cap * state_bytes);
        S->parent = (uint32_t *)realloc(S->parent, S->cap * sizeof(uint32_t));
        S->via = (uint8_t *)realloc(S->via, S->cap);
        if (!S->states || !S->parent || !S->via) {
            fprintf(stderr, "model: out of memory\n");
            exit(2);
        }
    }
    memcpy(stored(S, S->count), st, state_bytes);
    S->parent[S->count] = parent;
    S->via[S->count] = via;
    S->table[h] = table_entry(hash, (uint32_t)S->count);
    S->count++;
    if (S->count * 2 > S->table_cap) {
        free(S->table);
        S->table_cap *= 2;
        S->table = (uint64_t *)calloc(S->table_cap, sizeof(uint64_t));
        if (!S->table) {
            fprintf(stderr, "model: out of memory\n");
            exit(2);
        }
        for (size_t i = 0; i < S->count; ++i) table_insert_index(S, (uint32_t)i);
    }
    return 1;
}

static void print_where(const state *st)
{
    for (int c = 0; c < C.cg; ++c) {
        printf("      CTA %d%s: producer [%s, i %d], MMA warp [%s, i %d tile %d k %d], TMEM %s\n", c,
               st->exited[c] ? " (exited)" : "", prod_pc_names[st->prod_pc[c]], st->prod_i[c],
               mma_pc_names[st->mma_pc[c]], st->mma_i[c], st->mma_j[c], st->mma_k[c],
               st->tmem[c] == TMEM_NONE        ? "none"
               : st->tmem[c] == TMEM_ALLOCATED ? "allocated"
                                               : "freed");
        for (int e = 0; e < C.epi; ++e) {
            const epi_warp *w = &st->epi[c][e];
            const chunk_bufs *q = &st->cb[e][c];
            printf("        epilogue warp %d [%s, tile %d", e, epi_pc_names[w->pc], w->j);
            if (via_smem()) printf(" chunk %d, %d stored", w->ch, w->seq);
            printf("]\n");
            for (int b = 0; b < (via_smem() ? C.cbufs : 0); ++b) {
                char h[96];
                printf("          buffer %d: %s%s; c_full %d arrivals missing, tx %d, %d phases done\n", b,
                       cbuf_holds(q, b, h, sizeof(h)), q->stores >> b & 1 ? ", its store still reading" : "",
                       q->c_full[b].pend, q->c_full[b].tx, q->c_full[b].done);
            }
        }
        printf("        dealloc barrier: %d arrivals missing, %d phases done\n", st->dealloc[c].pend,
               st->dealloc[c].done);
    }
    if (C.mx)
        for (int c = 0; c < C.cg; ++c) {
            char h[48];
            printf("      scale slots of CTA %d:", c);
            for (int t = 0; t < C.stages; ++t)
                printf("%s %d: %s", t ? ";" : "", t, scales_label(st->slot[c][t], h, sizeof(h)));
            printf("\n");
        }
    printf("      tensor pipe: %d operations in flight\n", st->pipe_len);
    for (int p = 0; p < st->pipe_len; ++p) {
        char o[96];
        printf("        %s\n", op_label(st->pipe[p], o, sizeof(o)));
    }
}

/* The shortest path to state idx (BFS), then the violating step if any. Epilogue warps are numbered
 * after sorting (they are interchangeable), so "warp 0" may name different warps along the trace. */
static void print_trace(const store *S, uint32_t idx, int last_step)
{
    enum { MAXT = 4096, SHOW = 40 };
    static uint32_t path[MAXT];
    int n = 0;
    for (uint32_t i = idx; i != UINT32_MAX && n < MAXT; i = S->parent[i]) path[n++] = i;
    const int steps = n - 1;
    printf("    trace: %d steps%s\n", steps + (last_step >= 0), steps > SHOW ? " (the last 40 shown)" : "");
    char name[160];
    state st;
    for (int t = n - 2; t >= 0; --t) {
        if (t >= SHOW) continue;
        load_state(S, path[t + 1], &st);
        step_name(&st, S->via[path[t]], name, sizeof(name));
        printf("      %s\n", name);
    }
    load_state(S, idx, &st);
    if (last_step >= 0) {
        step_name(&st, last_step, name, sizeof(name));
        printf("      %s   <-- violation\n", name);
    }
    printf("    state before the %s:\n", last_step >= 0 ? "violating step" : "deadlock (no step enabled)");
    print_where(&st);
}

typedef struct result {
    int ok; /* no violation */
    size_t states, transitions;
    size_t finals; /* states in which every CTA exited (must be > 0: the protocol can finish) */
    char message[512];
} result;

static result explore(const config *cfg, size_t limit, int verbose_trace)
{
    C = *cfg;
    violated = 0;
    viol[0] = 0;
    state_bytes = offsetof(state, cb) + (via_smem() ? (size_t)C.epi * kCtaMax * sizeof(chunk_bufs) : 0);
    store S;
    memset(&S, 0, sizeof(S));
    S.table_cap = 1 << 17;
    S.table = (uint64_t *)calloc(S.table_cap, sizeof(uint64_t));
    state init;
    memset(&init, 0, sizeof(init));
    store_add(&S, &init, UINT32_MAX, 0, limit);
    result R;
    memset(&R, 0, sizeof(R));
    R.ok = 1;
    const int steps = via_smem() ? kStepCount : kStepChunk;
    state next;
    memset(&next, 0, sizeof(next));
    for (size_t cur = 0; cur < S.count; ++cur) {
        int enabled = 0;
        /* a step that is not enabled leaves the state as it was, so one copy serves until a step applies
         * (and what the configuration leaves out stays zero) */
        memcpy(&next, stored(&S, cur), state_bytes);
        for (int id = 0; id < steps; ++id) {
            if (!apply_step(&next, id)) continue;
            enabled++;
            R.transitions++;
            if (!violated) check_not_behind(&next);
            if (violated) {
                R.ok = 0;
                snprintf(R.message, sizeof(R.message), "%s", viol);
                if (verbose_trace) print_trace(&S, (uint32_t)cur, id);
                goto done;
            }
            canonicalize(&next);
            store_add(&S, &next, (uint32_t)cur, (uint8_t)id, limit);
            memcpy(&next, stored(&S, cur), state_bytes);
        }
        if (!enabled) {
            int all_exited = 1;
            for (int c = 0; c < C.cg; ++c) all_exited &= next.exited[c];
            if (all_exited) R.finals++;
            if (!all_exited) {
                R.ok = 0;
                snprintf(R.message, sizeof(R.message), "deadlock: no step is enabled and not every CTA exited");
                if (verbose_trace) print_trace(&S, (uint32_t)cur, -1);
                goto done;
            }
        }
    }
done:
    R.states = S.count;
    free(S.states);
    free(S.parent);
    free(S.via);
    free(S.table);
    return R;
}

/* ---------------------------------------------------------------- the suite */
/* Four epilogue warps (the kernel's count) wherever the state space allows; the 2-CTA configurations
 * with several tiles use two per CTA (each warp is a separate process; four per CTA multiply the
 * interleavings of the pair beyond what a CI test should spend: 3.1 million states for 2-2-2-3). */
static const config correct_configs[] = {
    /* cg stages kb tiles epi mutant relay: zero-tile CTAs, one trip, several trips around both rings */
    {1, 1, 1, 0, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 1, 1, 1, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 1, 2, 3, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 2, 1, 3, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 2, 2, 3, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 3, 2, 3, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 2, 3, 2, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 2, 2, 5, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {1, 4, 1, 5, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {2, 1, 1, 0, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {2, 1, 1, 1, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {2, 1, 2, 2, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {2, 2, 1, 3, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {2, 2, 2, 3, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {2, 3, 2, 2, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    {2, 2, 2, 5, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 0},
    /* cta_group 2, relay variant (the sm_90a emulation build of the sm100 kernel) */
    {2, 1, 1, 1, 4, MUT_NONE, 1, EPI_DIRECT, 0, 0, 0, 0},
    {2, 2, 1, 3, 2, MUT_NONE, 1, EPI_DIRECT, 0, 0, 0, 0},
    {2, 2, 2, 3, 2, MUT_NONE, 1, EPI_DIRECT, 0, 0, 0, 0},
    {2, 3, 2, 2, 2, MUT_NONE, 1, EPI_DIRECT, 0, 0, 0, 0},
    /* STAGED (beta != 0): c_full, the loads ahead and the stores; the last three fields are chunks per
     * tile, buffers per warp (2: an fp32 output, 4: a 16-bit one) and the chunks of the odd tiles (8 are
     * a whole tile, fewer one at the n edge). One warp per CTA mostly: each warp's buffers and barriers
     * are its own, and two warps' traffic multiplies (two warps of four buffers: 4.5 million states) */
    {1, 1, 1, 0, 4, MUT_NONE, 0, EPI_STAGED, 3, 2, 0, 0},
    {1, 2, 2, 3, 2, MUT_NONE, 0, EPI_STAGED, 3, 2, 0, 0},
    {1, 2, 1, 5, 1, MUT_NONE, 0, EPI_STAGED, 3, 2, 0, 0},
    {1, 2, 1, 3, 1, MUT_NONE, 0, EPI_STAGED, 1, 2, 0, 0},
    {1, 2, 1, 3, 1, MUT_NONE, 0, EPI_STAGED, 2, 2, 0, 0},
    {1, 2, 1, 3, 2, MUT_NONE, 0, EPI_STAGED, 3, 2, 1, 0},
    {1, 2, 1, 3, 1, MUT_NONE, 0, EPI_STAGED, 8, 2, 3, 0},
    {1, 2, 1, 2, 1, MUT_NONE, 0, EPI_STAGED, 5, 4, 0, 0},
    {1, 2, 1, 3, 1, MUT_NONE, 0, EPI_STAGED, 8, 4, 3, 0},
    {2, 1, 1, 0, 2, MUT_NONE, 0, EPI_STAGED, 3, 2, 0, 0},
    {2, 1, 1, 2, 1, MUT_NONE, 0, EPI_STAGED, 3, 2, 0, 0},
    {2, 1, 1, 2, 1, MUT_NONE, 0, EPI_STAGED, 2, 2, 1, 0},
    {2, 1, 1, 1, 1, MUT_NONE, 1, EPI_STAGED, 3, 2, 0, 0},
    /* TMA (beta 0): the stores alone, a buffer rewritten after wait_group.read cbufs - 1 */
    {1, 2, 2, 3, 2, MUT_NONE, 0, EPI_TMA, 3, 2, 0, 0},
    {1, 2, 1, 2, 1, MUT_NONE, 0, EPI_TMA, 5, 4, 0, 0},
    {2, 1, 1, 2, 1, MUT_NONE, 0, EPI_TMA, 3, 2, 0, 0},
    /* block-scaled (mx): a tcgen05.cp per k-block into slot = stage, executing out of order in the pipe */
    {1, 1, 2, 3, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {1, 2, 2, 3, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {1, 3, 2, 3, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {1, 4, 1, 5, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {1, 4, 3, 3, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {2, 1, 1, 1, 4, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {2, 2, 2, 3, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {2, 3, 2, 2, 2, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {2, 4, 1, 3, 1, MUT_NONE, 0, EPI_DIRECT, 0, 0, 0, 1},
    {2, 2, 2, 3, 2, MUT_NONE, 1, EPI_DIRECT, 0, 0, 0, 1},
    {2, 3, 2, 2, 2, MUT_NONE, 1, EPI_DIRECT, 0, 0, 0, 1},
    {1, 2, 2, 3, 2, MUT_NONE, 0, EPI_STAGED, 3, 2, 0, 1},
};

/* 0: not applicable; else a bit mask of the variants to run it on: 1 cta_group 1, 2 cta_group 2,
 * 4 cta_group 2 relay; 8, 16, 32 the same block-scaled (mx). */
static int mutant_variants(mutant m)
{
    switch (m) {
    case MUT_SF_SINGLE_SLOT:
    case MUT_SF_CP_BEFORE_FULL_WAIT:
    case MUT_SF_COMMIT_BEFORE_CP:
    case MUT_SF_SLOT_OFF_BY_ONE:
    case MUT_SF_TWO_SLOTS:
    case MUT_SF_CP_AFTER_MMA: return 8 | 16 | 32;
    case MUT_SF_CP_LEADER_ONLY: return 16 | 32;
    /* a few of the others with mx too: the cp is the first reader of a stage and the first writer of TMEM */
    case MUT_ARRIVE_NOT_COMMIT_EMPTY:
    case MUT_CONSUMER_PHASE_1: return 1 | 2 | 4 | 8;
    case MUT_DEALLOC_COUNT_NO_CG:
    case MUT_ACC_EMPTY_COUNT_NO_CG:
    case MUT_NO_SIGNAL_PEER:
    case MUT_NO_MULTICAST: return 2 | 4;
    case MUT_EXPECT_TX_NOT_DOUBLED: return 2;
    case MUT_NO_CLUSTER_SYNC2: /* cta_group 2 only: with one CTA there is no sync #2 to remove */ return 2 | 4 | 16;
    case MUT_RELAY_FULL_COUNT_1:
    case MUT_RELAY_NO_WAIT: return 4;
    case MUT_C_REFILL_WAIT_BUFS: /* four buffers: the pair's two warps' traffic multiplies to 0.9 million
                                    states; the buffers are each warp's own in either cta_group */
        return 1;
    case MUT_C_NO_FULL_WAIT: /* the chunk buffers are per CTA, the same in the relay variant */
    case MUT_C_REFILL_NO_READ_WAIT:
    case MUT_C_FIRST_NO_READ_WAIT:
    case MUT_C_EXPECT_TX_SHORT:
    case MUT_C_EXPECT_TX_LONG:
    case MUT_C_FULL_PHASE_1:
    case MUT_STORE_NO_READ_WAIT:
    case MUT_NO_STORE_DRAIN: return 1 | 2;
    default: return 1 | 2 | 4;
    }
}

static void describe(const config *c, char *buf, size_t n)
{
    int len = snprintf(buf, n, "cta_group %d%s, stages %d, k-blocks %d, tiles %d, epilogue warps %d", c->cg,
                       c->relay ? " (relay)" : "", c->stages, c->kb, c->tiles, c->epi);
    if (c->epilogue != EPI_DIRECT && len > 0 && (size_t)len < n) {
        len += snprintf(buf + len, n - (size_t)len, ", %s, %d chunks", epilogue_names[c->epilogue], c->chunks);
        if (c->chunks_odd && len > 0 && (size_t)len < n)
            len += snprintf(buf + len, n - (size_t)len, " (odd tiles %d)", c->chunks_odd);
        if (len > 0 && (size_t)len < n) len += snprintf(buf + len, n - (size_t)len, " of %d buffers", c->cbufs);
    }
    if (c->mx && len > 0 && (size_t)len < n) snprintf(buf + len, n - (size_t)len, ", mx");
}

static size_t state_limit = 20000000;

static int run_correct(void)
{
    int fails = 0;
    char d[160];
    for (size_t i = 0; i < sizeof(correct_configs) / sizeof(correct_configs[0]); ++i) {
        describe(&correct_configs[i], d, sizeof(d));
        result R = explore(&correct_configs[i], state_limit, 1);
        int ok = R.ok && R.finals > 0;
        printf("model: %s: %s: %zu states, %zu transitions, %zu final states%s%s\n", ok ? "ok  " : "FAIL", d, R.states,
               R.transitions, R.finals, R.ok ? (R.finals ? "" : ": the protocol never finishes") : ": ", R.message);
        fflush(stdout);
        fails += !ok;
    }
    return fails;
}

/* Where mutant m is run on variant v (0 cta_group 1, 1 cta_group 2, 2 its relay variant; 3..5 the same mx). */
static config mutant_config(mutant m, int v)
{
    /* two trips around the accumulator ring and the smem ring */
    config cfg = {v % 3 == 0 ? 1 : 2, 2, 2, 3, 2, m, v % 3 == 2, EPI_DIRECT, 0, 0, 0, v >= 3};
    if (m == MUT_SF_TWO_SLOTS) /* two slots serve two stages: it takes a third */
        cfg.stages = 3;
    if (m >= MUT_C_NO_FULL_WAIT && m <= MUT_NO_STORE_DRAIN) {
        /* the chunk buffers: one warp per CTA (the buffers and c_full are the warp's own), two tiles of
         * three chunks through two buffers: a load ahead, a tile starting at either buffer, a second phase */
        cfg.stages = 1, cfg.kb = 1, cfg.tiles = 2, cfg.epi = 1;
        cfg.epilogue = m == MUT_STORE_NO_READ_WAIT ? EPI_TMA : EPI_STAGED;
        cfg.chunks = 3, cfg.cbufs = 2;
        if (m == MUT_NO_STORE_DRAIN) /* shows at the exit, after everything: the fewer states the better */
            cfg.tiles = 1;
        if (m == MUT_C_REFILL_WAIT_BUFS) /* wait_group.read 1 and cbufs - 1 differ only with more buffers */
            cfg.tiles = 1, cfg.chunks = 5, cfg.cbufs = 4;
    }
    return cfg;
}

static int run_mutants(void)
{
    int fails = 0;
    char d[160];
    for (int m = 1; m < MUT_COUNT; ++m) {
        for (int v = 0; v < 6; ++v) {
            if (!(mutant_variants((mutant)m) >> v & 1)) continue;
            config cfg = mutant_config((mutant)m, v);
            describe(&cfg, d, sizeof(d));
            result R = explore(&cfg, state_limit, 0);
            printf("model: mutant %-41s %s: %s after %zu states: %s\n", mutant_names[m], R.ok ? "NOT CAUGHT" : "caught",
                   d, R.states, R.ok ? "(every property held)" : R.message);
            fflush(stdout);
            fails += R.ok;
        }
    }
    return fails;
}

/* The barrier semantics the model rests on, checked before anything is explored. */
static int self_check(void)
{
    int bad = 0;
    bar b = {1, 0, 0};
    bad |= !passes(&b, 1); /* fresh barrier: the pre-phase (parity 1) is done */
    bad |= passes(&b, 0);  /* phase 0 is not */
    config saved = C;
    C.cg = 1, C.epi = 1, C.mut = MUT_NONE, C.relay = 0;
    state st;
    memset(&st, 0, sizeof(st));
    st.inited[0] = 1;
    st.full[0][0].pend = 1;
    expect_tx(&st, B_FULL, 0, 0, 1);
    arrive(&st, B_FULL, 0, 0);
    bad |= st.full[0][0].done != 0; /* arrivals in, one transaction pending */
    complete_tx(&st, B_FULL, 0, 0);
    bad |= st.full[0][0].done != 1 || !passes(&st.full[0][0], 0) || passes(&st.full[0][0], 1);
    bad |= ring_parity(0, 3, 1) != 1 || ring_parity(2, 3, 1) != 1 || ring_parity(3, 3, 1) != 0;
    bad |= ring_parity(0, 2, 0) != 0 || ring_parity(2, 2, 0) != 1 || ring_parity(4, 2, 0) != 0;
    bad |= violated;
    C = saved;
    violated = 0;
    printf("model: self-check of the barrier semantics: %s\n", bad ? "FAIL" : "ok");
    return bad;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    if (getenv("WSGEMM_MODEL_STATE_LIMIT")) state_limit = (size_t)strtoull(getenv("WSGEMM_MODEL_STATE_LIMIT"), NULL, 0);
    int fails = self_check();
    if (strcmp(which, "correct") == 0 || strcmp(which, "all") == 0) fails += run_correct();
    if (strcmp(which, "mutants") == 0 || strcmp(which, "all") == 0) fails += run_mutants();
    if (strcmp(which, "clc") == 0 || strcmp(which, "all") == 0) fails += clc_model_run(); /* clc_model.c */
    if (strcmp(which, "one") == 0) {
        /* one configuration with a trace; `one mx ...`: block-scaled */
        const int mx = argc > 2 && strcmp(argv[2], "mx") == 0;
        if (mx) argv++, argc--; /* the positions below as without it */
        if (argc < 7) {
            fprintf(stderr, "usage: protocol_model one [mx] <cg> <stages> <kb> <tiles> <epi> [mutant name|number "
                            "[relay 0|1 [direct|tma|staged [chunks [buffers [chunks of odd tiles]]]]]]\n");
            return 2;
        }
        mutant mut = MUT_NONE;
        if (argc > 7) { /* a mutant by name or number */
            mut = (mutant)atoi(argv[7]);
            for (int m = 0; m < MUT_COUNT; ++m)
                if (strcmp(argv[7], mutant_names[m]) == 0) mut = (mutant)m;
        }
        epilogue_kind epilogue = EPI_DIRECT;
        if (argc > 9)
            for (int k = 0; k < 3; ++k)
                if (strcmp(argv[9], epilogue_names[k]) == 0) epilogue = (epilogue_kind)k;
        config cfg = {atoi(argv[2]),
                      atoi(argv[3]),
                      atoi(argv[4]),
                      atoi(argv[5]),
                      atoi(argv[6]),
                      mut,
                      argc > 8 ? atoi(argv[8]) : 0,
                      epilogue,
                      argc > 10 ? atoi(argv[10]) : 3,
                      argc > 11 ? atoi(argv[11]) : 2,
                      argc > 12 ? atoi(argv[12]) : 0,
                      mx};
        if (epilogue == EPI_DIRECT) cfg.chunks = cfg.cbufs = cfg.chunks_odd = 0;
        if (cfg.relay && cfg.cg != 2) {
            fprintf(stderr, "protocol_model: relay needs cta_group 2\n");
            return 2;
        }
        if (cfg.mut >= MUT_SF_SINGLE_SLOT && cfg.mut < MUT_COUNT && !cfg.mx) {
            fprintf(stderr, "protocol_model: mutant %s needs mx\n", mutant_names[cfg.mut]);
            return 2;
        }
        if (cfg.cg < 1 || cfg.cg > 2 || cfg.stages < 1 || cfg.stages > kStageMax || cfg.kb < 1 || cfg.kb > 7 ||
            cfg.tiles < 0 || cfg.tiles > 31 || cfg.epi < 1 || cfg.epi > kEpiMax || cfg.mut >= MUT_COUNT ||
            (epilogue != EPI_DIRECT && (cfg.chunks < 1 || cfg.chunks > 8 || cfg.cbufs < 2 || cfg.cbufs > kCBufMax ||
                                        cfg.chunks_odd < 0 || cfg.chunks_odd > 8))) {
            fprintf(stderr, "protocol_model: configuration out of range\n");
            return 2;
        }
        char d[160];
        describe(&cfg, d, sizeof(d));
        result R = explore(&cfg, state_limit, 1);
        printf("model: %s: %s, mutant %s: %zu states, %zu transitions%s%s\n", R.ok ? "ok" : "VIOLATION", d,
               mutant_names[cfg.mut], R.states, R.transitions, R.ok ? "" : ": ", R.message);
        return R.ok ? 0 : 1;
    }
    printf("model: %s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
