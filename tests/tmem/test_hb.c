// SPDX-License-Identifier: MIT
/*
 * test_hb.c - CPU tests of emu/hb.h, the happens-before tracking the TMEM emulation runs on the GPU.
 * Each case replays a small event trace of the sm100 kernel's protocol (one CTA, or the cta_group 2
 * pair) through the same functions, in ONE sequential order, and checks what is reported:
 *
 *   correct_cg1, correct_cg2      the kernel's protocol: nothing reported
 *   release_early                 the epilogue arrives on acc_empty before its last tcgen05.ld; in the
 *                                 replay that ld runs long before the MMA warp's next write of the
 *                                 accumulator (the accesses never overlap), and the race is still reported,
 *                                 with both sites (the ld, then the MMA)
 *   release_early_mma_first       the same bug, the MMA replayed between the early arrive and the ld
 *   missing_wait_ld, missing_fence_before, missing_fence_after_epilogue, missing_fence_after_mma,
 *   plain_arrive_for_commit       each fence / wait / commit rule of the PTX ISA's tcgen05 memory
 *                                 consistency model: leaving it out is reported
 *   equivalent_fence_after_acc_empty  the MMA warp's fence after acc_empty may go: the fence after the
 *                                 next full[s] wait orders everything before it (nothing reported)
 *   missing_peer_signal, missing_cluster_sync_after_alloc   the cta_group 2 pair rules
 *   address_handoff               alloc -> named barrier -> ld, with and without fence::after_thread_sync
 *   dealloc_before_last_ld        the dealloc barrier skipped
 *   mma_pipeline                  MMAs of one thread are ordered; two threads on one accumulator race
 *   phases                        phase numbering by arrival count, the pre-phase, slot reuse
 *   barrier_init                  a barrier's use must be ordered after its mbarrier.init
 *   producer_tail                 every phase a tcgen05.commit arrived on is observed before the CTA exits
 *   tma_operands                  a TMA copy -> full wait -> tcgen05.mma needs fence::after_thread_sync
 * The async-proxy model of shared memory (TMA loads and stores against generic ld/st.shared), on a trace of
 * the sm100 epilogue's chunk buffers (C loaded by TMA, D stored by TMA, kBuffers buffers per warp):
 *   proxy_epilogue_clean          the epilogue's order, with and without the C loads: nothing reported
 *   proxy_refill_before_wait_read the C refill of a buffer before wait_group.read retired its last store
 *   proxy_tile_refill_before_wait the same at a tile's first C loads (the tile-start wait_group.read 0)
 *   proxy_write_before_wait_read  st.shared into a buffer whose last store is still reading it
 *   proxy_missing_fence           a TMA store of generic writes without fence.proxy.async between
 *   proxy_read_before_load_wait   ld.shared of a C chunk before the wait on its load's mbarrier
 *   proxy_cross_warp              writer and store issuer in different warps: the fence and the barrier in
 *                                 the right order, and each of them wrong
 *   proxy_bulk_groups             commit_group numbering: wait_group.read N retires all but the N most
 *                                 recent groups and never a store not yet committed
 * Block-scaled MMAs (tcgen05.cp of the scale factors into TMEM, tcgen05.mma .block_scale reading them), on a
 * trace of the MXFP8 k-loop (4 stages and 4 scale slots, slot = stage, 2 accumulators of 192 columns):
 *   mx_correct                    cta_group 1 and 2: nothing reported, every slot written by cp and read
 *   mx_one_slot                   every k-block's scales in one slot: k-block 1's cp vs k-block 0's MMA read
 *   mx_cp_unfenced                the cp without fence::after_thread_sync after full[s], or before the
 *                                 wait: the TMA copy of the scales vs the cp reading them
 *   mx_scales_freed_early         dealloc while a scaled MMA is not ordered before it (the kernel without
 *                                 the dealloc barrier; the scale columns freed after their cps completed)
 *   mx_cp_pipelined               cp -> mma on the same columns and mma -> cp on other columns: nothing;
 *                                 mma -> cp on the columns the MMA read: reported
 *   mx_cells                      accesses of fewer than 32 columns or inside a cell, the cell's cp run
 * Exit 0 = pass.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/hb.h"

static int g_failures;

#define EXPECT(cond, ...)                                            \
    do {                                                             \
        if (!(cond)) {                                               \
            printf("  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            printf(__VA_ARGS__);                                     \
            printf("\n");                                            \
            g_failures++;                                            \
        }                                                            \
    } while (0)

/* ================================================================ a small world to replay traces in */

enum { MAX_AGENTS = 10, MAX_BARS = 32 };

typedef struct world {
    hb_agent ag[MAX_AGENTS];
    hb_sync bar[MAX_BARS];
    hb_cell cells[2][HB_CELLS]; /* TMEM of cluster ranks 0 and 1 */
    hb_smem_block smem[16];     /* shared memory of rank 0, 1024-byte blocks (the async-proxy cases) */
    hb_smem_block smem1[16];    /* and of rank 1 (the block-scaled pair) */
    int raced;                  /* the first race stops the replay, as the emulation's trap does */
    int proxy_verdict;          /* a report of the async-proxy model: HB_SMEM_RACE or HB_SMEM_NO_FENCE */
    hb_site earlier, later;
    unsigned cell_cta, cell_lane, cell_col;
} world;

static world *world_new(void)
{
    world *w = (world *)calloc(1, sizeof *w);
    if (!w) {
        perror("calloc");
        exit(2);
    }
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < HB_CELLS; i++) hb_cell_clear(&w->cells[c][i]);
    for (int i = 0; i < 16; i++) {
        hb_smem_block_clear(&w->smem[i]);
        hb_smem_block_clear(&w->smem1[i]);
    }
    return w;
}

static hb_smem_block *smem_of(world *w, unsigned cta)
{
    return cta ? w->smem1 : w->smem;
}

/* Agent i = warp `warp` of cluster rank `cta`; components: 3i (its execution), 3i+1 (load pipe), 3i+2
 * (tensor pipe). */
static void agent(world *w, int i, unsigned cta, unsigned warp)
{
    hb_agent_init(&w->ag[i], 3u * (unsigned)i, cta, warp);
    w->ag[i].ld_pipe = (uint8_t)(3 * i + 1);
    w->ag[i].mma_pipe = (uint8_t)(3 * i + 2);
}

static void bar_init(world *w, int b, uint32_t count)
{
    hb_sync_init(&w->bar[b], count);
}

static void access(world *w, unsigned tmem_cta, enum hb_op op, const hb_vc *start, hb_site me)
{
    if (w->raced) return;
    hb_site earlier;
    unsigned lane = 0, col = 0;
    me.tmem_cta = (uint8_t)tmem_cta;
    if (hb_tmem_access(w->cells[tmem_cta], op, me.lane0, me.nlanes, me.col0, me.ncols, start, &me, &earlier, &lane,
                       &col)) {
        w->raced = 1;
        w->earlier = earlier;
        w->later = me;
        w->cell_cta = tmem_cta;
        w->cell_lane = lane;
        w->cell_col = col;
    }
}

static void alloc_(world *w, int a, unsigned col, unsigned ncols)
{
    hb_vc start;
    uint32_t t = hb_sync_access_issue(&w->ag[a], &start);
    access(w, w->ag[a].cta, HB_OP_ALLOC, &start,
           hb_agent_site(&w->ag[a], HB_ALLOC, w->ag[a].self, t, w->ag[a].cta, 0, 128, col, ncols));
}

/* pair: cta_group 2, the allocation of both CTAs is freed (collective) */
static void dealloc_(world *w, int a, unsigned col, unsigned ncols, int pair)
{
    hb_vc start;
    uint32_t t = hb_sync_access_issue(&w->ag[a], &start);
    hb_site me = hb_agent_site(&w->ag[a], HB_DEALLOC, w->ag[a].self, t, w->ag[a].cta, 0, 128, col, ncols);
    access(w, w->ag[a].cta, HB_OP_FREE, &start, me);
    if (pair) access(w, w->ag[a].cta ^ 1u, HB_OP_FREE, &start, me);
}

/* tcgen05.mma writing all 128 lanes of columns [col, col + n), in both CTAs of the pair when pair */
static void mma(world *w, int a, unsigned col, unsigned n, int pair)
{
    hb_vc start;
    uint32_t t = hb_mma_issue(&w->ag[a], &start);
    hb_site me = hb_agent_site(&w->ag[a], HB_MMA, w->ag[a].mma_pipe, t, w->ag[a].cta, 0, 128, col, n);
    access(w, w->ag[a].cta, HB_OP_WRITE, &start, me);
    if (pair) access(w, w->ag[a].cta ^ 1u, HB_OP_WRITE, &start, me);
}

/* tcgen05.ld of lane quarter q, columns [col, col + n) of the agent's own CTA */
static void ld(world *w, int a, unsigned q, unsigned col, unsigned n)
{
    hb_vc start;
    uint32_t t = hb_ld_issue(&w->ag[a], &start);
    access(w, w->ag[a].cta, HB_OP_READ, &start,
           hb_agent_site(&w->ag[a], HB_LD, w->ag[a].ld_pipe, t, w->ag[a].cta, 32 * q, 32, col, n));
}

static void wait_ld(world *w, int a)
{
    hb_wait_ld(&w->ag[a]);
}
static void fence_before(world *w, int a)
{
    hb_fence_before_thread_sync(&w->ag[a]);
}
static void fence_after(world *w, int a)
{
    hb_fence_after_thread_sync(&w->ag[a]);
}

/* n arrivals of the agent's warp on barrier b (an mbarrier arrive, local or remote) */
static uint32_t arrive(world *w, int a, int b, uint32_t n)
{
    hb_vc rel;
    hb_agent_release(&w->ag[a], &rel);
    return hb_sync_arrive(&w->bar[b], n, &rel);
}

/* tcgen05.commit: one arrival on b0 and (multicast) on b1 when b1 >= 0 */
static void commit(world *w, int a, int b0, int b1)
{
    hb_vc rel;
    hb_commit(&w->ag[a], &rel);
    hb_sync_note_async_arrival(&w->bar[b0], hb_sync_arrive(&w->bar[b0], 1, &rel));
    if (b1 >= 0) hb_sync_note_async_arrival(&w->bar[b1], hb_sync_arrive(&w->bar[b1], 1, &rel));
}

/* try_wait.parity succeeded on b */
static void wait_(world *w, int a, int b, unsigned parity)
{
    hb_vc acq;
    hb_vc_clear(&acq);
    hb_sync_acquire_parity(&w->bar[b], parity, &acq);
    hb_agent_acquire(&w->ag[a], &acq);
    hb_agent_note_wait(&w->ag[a], (unsigned)b + 1u, (unsigned)b, parity);
}

/* bar.sync / barrier.cluster: arrive (release) and acquire the same phase */
static void barrier_sync(world *w, int a, int b, uint32_t n, uint32_t phase)
{
    hb_vc acq;
    hb_vc_clear(&acq);
    hb_sync_acquire_phase(&w->bar[b], phase, &acq);
    hb_agent_acquire(&w->ag[a], &acq);
    (void)n;
}

static void print_race(const world *w)
{
    const hb_site *s[2] = {&w->earlier, &w->later};
    if (w->cell_lane == ~0u) /* a tcgen05 read of shared memory (smem_async_read) */
        printf("  reported: shared memory of CTA rank %u, offsets %u..%u:\n", w->cell_cta, w->cell_col,
               w->cell_col + HB_SMEM_BLOCK_BYTES - 1);
    else
        printf("  reported: TMEM of CTA rank %u, lanes %u..%u, columns %u..%u:\n", w->cell_cta, w->cell_lane,
               w->cell_lane + 31, w->cell_col, w->cell_col + 31);
    for (int i = 0; i < 2; i++) {
        char wait[48] = "none";
        if (s[i]->wait_name) snprintf(wait, sizeof wait, "barrier %u parity %u", s[i]->wait_index, s[i]->wait_parity);
        if (s[i]->kind == HB_TMA) {
            printf("    %s: CTA rank %u warp %u %s blocks %u..%u [epoch %u@%u] (last wait: %s)\n",
                   i ? "later  " : "earlier", s[i]->cta, s[i]->warp, hb_kind_name(s[i]->kind), s[i]->col0,
                   s[i]->col0 + s[i]->ncols - 1, s[i]->comp, s[i]->clock, wait);
            continue;
        }
        printf("    %s: CTA rank %u warp %u %s lanes %u..%u columns %u..%u [epoch %u@%u] (last wait: %s)\n",
               i ? "later  " : "earlier", s[i]->cta, s[i]->warp, hb_kind_name(s[i]->kind), s[i]->lane0,
               s[i]->lane0 + s[i]->nlanes - 1, s[i]->col0, s[i]->col0 + s[i]->ncols - 1, s[i]->comp, s[i]->clock, wait);
    }
}

static void expect_clean(const world *w, const char *what)
{
    if (w->raced) print_race(w);
    EXPECT(!w->raced, "%s: a race was reported in a correct protocol", what);
    if (!w->raced) printf("  %s: nothing reported\n", what);
}

static void expect_race(const world *w, const char *what, unsigned earlier_kind, unsigned later_kind)
{
    EXPECT(w->raced, "%s: the race was NOT reported", what);
    if (!w->raced) return;
    print_race(w);
    EXPECT(w->earlier.kind == earlier_kind && w->later.kind == later_kind,
           "%s: sites are %s then %s, expected %s then %s", what, hb_kind_name(w->earlier.kind),
           hb_kind_name(w->later.kind), hb_kind_name(earlier_kind), hb_kind_name(later_kind));
}

/* ================================================================ the sm100 kernel, cta_group 1 */

/* Agents: the MMA warp (warp 1) and four epilogue warps (warps 2..5, lane quarters 2, 3, 0, 1). Two
 * accumulators of 256 columns, 32-column tcgen05.ld chunks, four tiles of two k-blocks. Each planted
 * deviation is one field. */
typedef struct cg1_bugs {
    int release_early;        /* epilogue: arrive on acc_empty before the last ld */
    int no_wait_ld;           /* epilogue: no tcgen05.wait::ld */
    int no_fence_before;      /* epilogue: no fence::before_thread_sync before acc_empty */
    int no_fence_after_epi;   /* epilogue: no fence::after_thread_sync after acc_full */
    int no_fence_after_empty; /* MMA warp: no fence after the acc_empty wait */
    int no_fence_after_full;  /* MMA warp: no fence after the full[s] waits */
    int plain_arrive;         /* MMA warp: fence::before_thread_sync + arrive instead of tcgen05.commit */
    int no_dealloc_wait;      /* MMA warp: dealloc without the dealloc barrier */
} cg1_bugs;

enum { M = 0, E = 1 };                                       /* agent ids: M, then E .. E+3 */
enum { ACC_FULL = 0, ACC_EMPTY = 2, DEALLOC = 4, ADDR = 5 }; /* barrier ids */
enum { CHUNKS = 8, KBLOCKS = 2, TILES = 4 };

static const cg1_bugs kNoBugs;

static void cg1_setup(world *w)
{
    agent(w, M, 0, 1);
    for (int e = 0; e < 4; e++) agent(w, E + e, 0, 2 + (unsigned)e);
    bar_init(w, ACC_FULL, 1);
    bar_init(w, ACC_FULL + 1, 1);
    bar_init(w, ACC_EMPTY, 128);
    bar_init(w, ACC_EMPTY + 1, 128);
    bar_init(w, DEALLOC, 128);
    bar_init(w, ADDR, 160);
    /* the MMA warp allocates and publishes the address (bar.arrive), the epilogue receives it (bar.sync) */
    alloc_(w, M, 0, 512);
    fence_before(w, M);
    arrive(w, M, ADDR, 32);
    fence_after(w, M);
    for (int e = 0; e < 4; e++) arrive(w, E + e, ADDR, 32);
    for (int e = 0; e < 4; e++) {
        barrier_sync(w, E + e, ADDR, 32, 0);
        fence_after(w, E + e);
    }
}

static void cg1_mma_tile(world *w, int t, const cg1_bugs *b)
{
    int a = t % 2;
    wait_(w, M, ACC_EMPTY + a, (unsigned)((t / 2) & 1) ^ 1u); /* producer side: starts at phase 1 */
    if (!b->no_fence_after_empty) fence_after(w, M);
    for (int kb = 0; kb < KBLOCKS; kb++) {
        /* (the full[s] wait brings nothing TMEM-related; its fence is what matters) */
        if (!b->no_fence_after_full) fence_after(w, M);
        for (int k = 0; k < 4; k++) mma(w, M, 256u * (unsigned)a, 256, 0);
    }
    if (b->plain_arrive) {
        fence_before(w, M);
        arrive(w, M, ACC_FULL + a, 1);
    } else {
        commit(w, M, ACC_FULL + a, -1);
    }
}

static void cg1_release(world *w, int e, int a, const cg1_bugs *b)
{
    if (!b->no_fence_before) fence_before(w, E + e);
    arrive(w, E + e, ACC_EMPTY + a, 32);
}

/* Epilogue warp e, tile t, chunks [ch0, ch1). */
static void cg1_epi_chunks(world *w, int e, int t, int ch0, int ch1, const cg1_bugs *b)
{
    int a = t % 2;
    unsigned q = (unsigned)(2 + e) % 4;
    if (ch0 == 0) {
        wait_(w, E + e, ACC_FULL + a, (unsigned)(t / 2) & 1u);
        if (!b->no_fence_after_epi) fence_after(w, E + e);
    }
    for (int ch = ch0; ch < ch1; ch++) {
        if (ch == CHUNKS - 1 && b->release_early) cg1_release(w, e, a, b);
        ld(w, E + e, q, 256u * (unsigned)a + 32u * (unsigned)ch, 32);
        if (!b->no_wait_ld) wait_ld(w, E + e);
        if (ch == CHUNKS - 1 && !b->release_early) cg1_release(w, e, a, b);
    }
}

static void cg1_epi_tile(world *w, int t, const cg1_bugs *b)
{
    for (int e = 0; e < 4; e++) cg1_epi_chunks(w, e, t, 0, CHUNKS, b);
}

static void cg1_teardown(world *w, const cg1_bugs *b)
{
    for (int e = 0; e < 4; e++) {
        fence_before(w, E + e);
        arrive(w, E + e, DEALLOC, 32);
    }
    if (!b->no_dealloc_wait) wait_(w, M, DEALLOC, 0);
    fence_after(w, M);
    dealloc_(w, M, 0, 512, 0);
}

/* The replay order: the MMA warp runs ahead by one accumulator, the epilogue reads each tile completely
 * before the MMA warp touches that accumulator again, so no two accesses ever overlap. */
static world *cg1_run(const cg1_bugs *b)
{
    world *w = world_new();
    cg1_setup(w);
    cg1_mma_tile(w, 0, b);
    cg1_mma_tile(w, 1, b);
    for (int t = 0; t < TILES; t++) {
        cg1_epi_tile(w, t, b);
        if (t + 2 < TILES) cg1_mma_tile(w, t + 2, b);
    }
    cg1_teardown(w, b);
    return w;
}

static void case_correct_cg1(void)
{
    world *w = cg1_run(&kNoBugs);
    expect_clean(w, "cta_group 1 protocol, 4 tiles, 2 accumulators");
    free(w);
}

static void case_release_early(void)
{
    cg1_bugs b = kNoBugs;
    b.release_early = 1;
    world *w = cg1_run(&b);
    expect_race(w, "acc_empty arrive before the last tcgen05.ld (ld replayed long before the MMA)", HB_LD, HB_MMA);
    /* the earlier site is the epilogue's last read of accumulator 0 (columns 224..255) in tile 0 */
    EXPECT(w->earlier.col0 == 224 && w->earlier.warp >= 2 && w->later.warp == 1 && w->later.col0 == 0,
           "sites: ld columns %u warp %u, mma columns %u warp %u", w->earlier.col0, w->earlier.warp, w->later.col0,
           w->later.warp);
    free(w);
}

static void case_release_early_mma_first(void)
{
    cg1_bugs b = kNoBugs;
    b.release_early = 1;
    world *w = world_new();
    cg1_setup(w);
    cg1_mma_tile(w, 0, &b);
    cg1_mma_tile(w, 1, &b);
    /* tile 0: every epilogue warp reads chunks 0..6, then arrives (early) ... */
    for (int e = 0; e < 4; e++) {
        cg1_epi_chunks(w, e, 0, 0, CHUNKS - 1, &b);
        cg1_release(w, e, 0, &b);
    }
    /* ... the MMA warp overwrites accumulator 0 for tile 2 ... */
    cg1_mma_tile(w, 2, &b);
    /* ... and only then the last reads */
    for (int e = 0; e < 4; e++) ld(w, E + e, (unsigned)(2 + e) % 4, 224, 32);
    expect_race(w, "acc_empty arrive before the last tcgen05.ld (MMA replayed before the ld)", HB_MMA, HB_LD);
    free(w);
}

/* One planted deviation of the cta_group 1 protocol (up to two cg1_bugs fields), replayed in the order of
 * cg1_run, and what must be reported: a race with these two sites, or nothing (earlier == HB_NONE). */
typedef struct cg1_case {
    const char *name;
    size_t bug, bug2; /* offsetof(cg1_bugs, field); bug2 == bug: one field */
    const char *what;
    unsigned earlier, later;
} cg1_case;

static const cg1_case kCg1Cases[] = {
    {"missing_wait_ld", offsetof(cg1_bugs, no_wait_ld), offsetof(cg1_bugs, no_wait_ld),
     "no tcgen05.wait::ld before fence::before_thread_sync + arrive", HB_LD, HB_MMA},
    {"missing_fence_before", offsetof(cg1_bugs, no_fence_before), offsetof(cg1_bugs, no_fence_before),
     "no tcgen05.fence::before_thread_sync before the acc_empty arrive", HB_LD, HB_MMA},
    {"missing_fence_after_epilogue", offsetof(cg1_bugs, no_fence_after_epi), offsetof(cg1_bugs, no_fence_after_epi),
     "no tcgen05.fence::after_thread_sync after the acc_full wait", HB_MMA, HB_LD},
    {"missing_fence_after_mma", offsetof(cg1_bugs, no_fence_after_empty), offsetof(cg1_bugs, no_fence_after_full),
     "MMA warp without any fence::after_thread_sync after its waits", HB_LD, HB_MMA},
    {"equivalent_fence_after_acc_empty", offsetof(cg1_bugs, no_fence_after_empty),
     offsetof(cg1_bugs, no_fence_after_empty),
     "no fence after the acc_empty wait, but one after each full[s] wait (equivalent)", HB_NONE, HB_NONE},
    {"plain_arrive_for_commit", offsetof(cg1_bugs, plain_arrive), offsetof(cg1_bugs, plain_arrive),
     "fence::before_thread_sync + arrive instead of tcgen05.commit (MMA completion not tracked)", HB_MMA, HB_LD},
};

static void run_cg1_case(const cg1_case *c)
{
    cg1_bugs b = kNoBugs;
    *(int *)((char *)&b + c->bug) = 1;
    *(int *)((char *)&b + c->bug2) = 1;
    world *w = cg1_run(&b);
    if (c->earlier == HB_NONE)
        expect_clean(w, c->what);
    else
        expect_race(w, c->what, c->earlier, c->later);
    free(w);
}

static void case_dealloc_before_last_ld(void)
{
    cg1_bugs b = kNoBugs;
    b.no_dealloc_wait = 1;
    world *w = world_new();
    cg1_setup(w);
    cg1_mma_tile(w, 0, &b);
    for (int e = 0; e < 4; e++) cg1_epi_chunks(w, e, 0, 0, CHUNKS, &b);
    /* the MMA warp knows its MMAs completed (it observed its own commit), then frees without the dealloc
     * barrier; the reads all happened earlier in the replay */
    wait_(w, M, ACC_FULL, 0);
    fence_after(w, M);
    dealloc_(w, M, 0, 512, 0);
    expect_race(w, "dealloc without the dealloc barrier", HB_LD, HB_DEALLOC);
    free(w);
}

/* ================================================================ the pair (cta_group 2) */

/* Agents: leader MMA warp ML, leader epilogue warp EL (one warp, lane quarter 2), peer MMA warp MP, peer
 * epilogue warp EP. Barriers per CTA r (ids 8r + ...): acc_full[2] (count 1, the leader's multicast
 * commit), acc_empty[2] (leader only: EL local + EP remote = 2 arrivals of one warp each, counted as 1
 * each here), dealloc (count 2: own epilogue + the peer's signal_peer), the cluster barrier (id 7). */
typedef struct cg2_bugs {
    int missing_peer_signal;   /* epilogues skip signal_peer, dealloc counts 1 */
    int no_cluster_sync_alloc; /* no cluster barrier between the allocs and the leader's first MMA */
} cg2_bugs;

enum { ML = 0, EL = 1, MP = 2, EP = 3 };
enum { C_FULL = 0, C_EMPTY = 2, C_DEALLOC = 4, C_CLUSTER = 7 };

static void cg2_mma_tile(world *w, int t)
{
    int a = t % 2;
    wait_(w, ML, C_EMPTY + a, (unsigned)((t / 2) & 1) ^ 1u);
    fence_after(w, ML);
    for (int k = 0; k < 8; k++) mma(w, ML, 256u * (unsigned)a, 256, 1);
    commit(w, ML, C_FULL + a, 8 + C_FULL + a); /* multicast 0b11 */
}

static void cg2_epi_tile(world *w, int e, int t)
{
    int a = t % 2;
    unsigned cta = w->ag[e].cta;
    wait_(w, e, 8 * (int)cta + C_FULL + a, (unsigned)(t / 2) & 1u);
    fence_after(w, e);
    for (int ch = 0; ch < CHUNKS; ch++) {
        ld(w, e, 2, 256u * (unsigned)a + 32u * (unsigned)ch, 32);
        wait_ld(w, e);
    }
    fence_before(w, e);
    arrive(w, e, C_EMPTY + a, 1); /* the leader's acc_empty (remote from the peer) */
}

static world *cg2_run(const cg2_bugs *b)
{
    world *w = world_new();
    agent(w, ML, 0, 1);
    agent(w, EL, 0, 2);
    agent(w, MP, 1, 1);
    agent(w, EP, 1, 2);
    for (int r = 0; r < 2; r++) {
        bar_init(w, 8 * r + C_FULL, 1);
        bar_init(w, 8 * r + C_FULL + 1, 1);
        bar_init(w, 8 * r + C_DEALLOC, b->missing_peer_signal ? 1 : 2);
    }
    bar_init(w, C_EMPTY, 2);
    bar_init(w, C_EMPTY + 1, 2);
    bar_init(w, C_CLUSTER, 4);
    alloc_(w, ML, 0, 512);
    alloc_(w, MP, 0, 512);
    if (!b->no_cluster_sync_alloc) { /* cluster_sync (3): fence, arrive.release, wait.acquire, fence */
        for (int i = 0; i < 4; i++) {
            fence_before(w, i);
            arrive(w, i, C_CLUSTER, 1);
        }
        for (int i = 0; i < 4; i++) {
            barrier_sync(w, i, C_CLUSTER, 1, 0);
            fence_after(w, i);
        }
    }
    cg2_mma_tile(w, 0);
    cg2_mma_tile(w, 1);
    for (int t = 0; t < 3; t++) {
        cg2_epi_tile(w, EL, t);
        cg2_epi_tile(w, EP, t);
        if (t + 2 < 3) cg2_mma_tile(w, t + 2);
    }
    /* teardown: each epilogue warp signals the peer's dealloc barrier (remote) and its own */
    for (int e = EL; e <= EP; e += 2) {
        unsigned cta = w->ag[e].cta;
        fence_before(w, e);
        if (!b->missing_peer_signal) arrive(w, e, 8 * (int)(cta ^ 1u) + C_DEALLOC, 1);
        arrive(w, e, 8 * (int)cta + C_DEALLOC, 1);
    }
    for (int m = ML; m <= MP; m += 2) {
        wait_(w, m, 8 * (int)w->ag[m].cta + C_DEALLOC, 0);
        fence_after(w, m);
        dealloc_(w, m, 0, 512, 1);
    }
    return w;
}

static void case_correct_cg2(void)
{
    static const cg2_bugs none;
    world *w = cg2_run(&none);
    expect_clean(w, "cta_group 2 pair: multicast commits, remote acc_empty, pair dealloc barrier");
    free(w);
}

static void case_missing_peer_signal(void)
{
    cg2_bugs b = {1, 0};
    world *w = cg2_run(&b);
    expect_race(w, "cta_group 2 without signal_peer: the leader frees the pair's TMEM before the peer's reads", HB_LD,
                HB_DEALLOC);
    EXPECT(w->earlier.cta == 1 && w->later.cta == 0, "the peer's ld (rank %u) vs the leader's dealloc (rank %u)",
           w->earlier.cta, w->later.cta);
    free(w);
}

static void case_missing_cluster_sync_after_alloc(void)
{
    cg2_bugs b = {0, 1};
    world *w = cg2_run(&b);
    expect_race(w, "no cluster barrier between the peer's alloc and the leader's first MMA", HB_ALLOC, HB_MMA);
    EXPECT(w->cell_cta == 1, "on the peer's TMEM (rank %u)", w->cell_cta);
    free(w);
}

/* ================================================================ smaller rules */

static void case_address_handoff(void)
{
    for (int with_fence = 1; with_fence >= 0; with_fence--) {
        world *w = world_new();
        agent(w, 0, 0, 1);
        agent(w, 1, 0, 2);
        bar_init(w, 0, 64);
        alloc_(w, 0, 0, 128);
        fence_before(w, 0);
        arrive(w, 0, 0, 32); /* bar.arrive */
        arrive(w, 1, 0, 32); /* bar.sync */
        barrier_sync(w, 1, 0, 32, 0);
        if (with_fence) fence_after(w, 1);
        ld(w, 1, 2, 0, 32); /* fresh columns: ordered after the alloc only through the fence */
        if (with_fence)
            expect_clean(w, "alloc, fence, bar.arrive -> bar.sync, fence, ld");
        else
            expect_race(w, "alloc -> bar.sync -> ld without fence::after_thread_sync", HB_ALLOC, HB_LD);
        free(w);
    }
}

static void case_mma_pipeline(void)
{
    world *w = world_new();
    agent(w, 0, 0, 1);
    agent(w, 1, 0, 3);
    alloc_(w, 0, 0, 256);
    fence_after(w, 0);
    for (int k = 0; k < 4; k++) mma(w, 0, 0, 128, 0);
    expect_clean(w, "four MMAs of one thread into one accumulator (a pipelined pair)");
    /* another warp's MMA into the same accumulator, ordered after nothing the first one did */
    fence_after(w, 1);
    mma(w, 1, 0, 128, 0);
    EXPECT(w->raced, "two threads' MMAs into one accumulator, unordered: not reported");
    if (w->raced) print_race(w);
    free(w);
}

static void case_phases(void)
{
    hb_sync s;
    hb_vc v, got;
    hb_sync_init(&s, 3);
    hb_vc_clear(&got);
    EXPECT(hb_sync_acquire_parity(&s, 1, &got) == -1, "parity 1 before any phase completed is the pre-phase");
    for (uint32_t phase = 0; phase < 10; phase++) {
        for (int i = 0; i < 3; i++) {
            hb_vc_clear(&v);
            v.c[i] = 100u * (phase + 1) + (uint32_t)i;
            EXPECT(hb_sync_arrive(&s, 1, &v) == phase, "arrival %d of phase %u numbered %u", i, phase, phase);
        }
        hb_vc_clear(&got);
        int32_t p = hb_sync_acquire_parity(&s, phase & 1u, &got);
        EXPECT(p == (int32_t)phase, "acquired phase %d, expected %u", p, phase);
        EXPECT(got.c[0] == 100u * (phase + 1) && got.c[2] == 100u * (phase + 1) + 2,
               "phase %u clock holds its arrivals only (%u %u)", phase, got.c[0], got.c[2]);
        hb_vc_clear(&got);
        if (phase >= 1) {
            p = hb_sync_acquire_parity(&s, (phase + 1) & 1u, &got);
            EXPECT(p == (int32_t)phase - 1, "the other parity names the phase before (%d)", p);
        }
    }
    hb_vc_clear(&got);
    EXPECT(hb_sync_acquire_phase(&s, 2, &got) == -1, "phase 2's slot was reused by phase 6 (kept: 4 phases)");
    printf("  phases: numbering by arrival count, the pre-phase, parity -> latest completed phase, slot reuse\n");
}

/* mbarrier.init by one warp, a use by another: ordered only through a barrier between them (the kernel's
 * cluster_sync (1) after the inits). */
static void case_barrier_init(void)
{
    for (int synced = 1; synced >= 0; synced--) {
        world *w = world_new();
        agent(w, 0, 0, 0); /* thread 0's warp: inits */
        agent(w, 1, 0, 1); /* the MMA warp: waits on it */
        bar_init(w, 0, 1);
        bar_init(w, 1, 2); /* the CTA barrier */
        hb_site init =
            hb_agent_site(&w->ag[0], HB_MBAR_INIT, w->ag[0].self, w->ag[0].vc.c[w->ag[0].self], 0, 0, 0, 8, 0);
        hb_sync_mark_init(&w->bar[0], &init);
        if (synced) {
            arrive(w, 0, 1, 1);
            arrive(w, 1, 1, 1);
            barrier_sync(w, 1, 1, 1, 0);
        }
        hb_site earlier;
        int bad = hb_sync_check_init(&w->bar[0], &w->ag[1].vc, &earlier);
        if (synced) {
            EXPECT(!bad, "a wait ordered after the init through a CTA barrier was reported");
            printf("  init -> CTA barrier -> wait: ordered\n");
        } else {
            EXPECT(bad && earlier.kind == HB_MBAR_INIT && earlier.warp == 0,
                   "a wait with no barrier after the init was "
                   "not reported");
            printf("  init, then a wait by another warp with no barrier between: %s\n", bad ? "reported" : "missed");
        }
        free(w);
    }
}

/* A commit's arrival is asynchronous: the CTA may exit only after a wait observed every phase a commit
 * arrived on. Four stages, eight fills: with the producer tail the last four phases are observed. */
static void case_producer_tail(void)
{
    for (int tail = 1; tail >= 0; tail--) {
        world *w = world_new();
        agent(w, 0, 0, 0); /* producer */
        agent(w, 1, 0, 1); /* MMA warp: commits stage releases */
        for (int st = 0; st < 4; st++) bar_init(w, st, 1);
        for (int fill = 0; fill < 8; fill++) {
            int st = fill % 4;
            if (fill >= 4) wait_(w, 0, st, (unsigned)((fill / 4) & 1) ^ 1u); /* producer_acquire */
            commit(w, 1, st, -1); /* the stage's release after the MMAs read fill `fill` (phase fill / 4) */
        }
        if (tail)
            for (int st = 0; st < 4; st++) wait_(w, 0, st, 1u); /* producer_tail: one more acquire per stage, phase 1 */
        int unobserved = 0;
        for (int st = 0; st < 4; st++) unobserved += hb_sync_unobserved_async(&w->bar[st]);
        if (tail) {
            EXPECT(unobserved == 0, "with the producer tail %d stages still have an unobserved commit", unobserved);
            printf("  with the producer tail: every commit arrival observed before the exit\n");
        } else {
            EXPECT(unobserved == 4, "without the tail %d of 4 stages have an unobserved commit", unobserved);
            printf("  without the producer tail: %d stages' last commit arrivals unobserved at the exit\n", unobserved);
        }
        free(w);
    }
}

/* A TMA copy into a stage, completing the stage's full barrier; the MMA warp waits on it and reads the
 * stage with tcgen05.mma: ordered only with fence::after_thread_sync after the wait. */
static void case_tma_operands(void)
{
    for (int fence = 1; fence >= 0; fence--) {
        world *w = world_new();
        agent(w, 0, 0, 0); /* producer: its copy pipe is component 2 (it issues no MMA) */
        agent(w, 1, 0, 1); /* MMA warp */
        w->ag[0].tma_pipe = 2;
        bar_init(w, 0, 1);
        arrive(w, 0, 0, 1); /* arrive.expect_tx */
        uint32_t t = hb_tma_issue(&w->ag[0]);
        hb_site copy = hb_agent_site(&w->ag[0], HB_TMA, w->ag[0].tma_pipe, t, 0, 0, 0, 4, 1);
        hb_sync_join_latest_phase(&w->bar[0], w->ag[0].tma_pipe, t);
        wait_(w, 1, 0, 0);
        if (fence) fence_after(w, 1);
        hb_vc start;
        hb_mma_issue(&w->ag[1], &start);
        int ordered = hb_site_ordered(&copy, &start);
        if (fence) {
            EXPECT(ordered, "copy -> full wait -> fence -> mma: the copy is not ordered before the MMA");
            printf("  TMA copy, full wait, fence::after_thread_sync, tcgen05.mma: ordered\n");
        } else {
            EXPECT(!ordered, "copy -> full wait -> mma without the fence: reported as ordered");
            printf("  TMA copy, full wait, tcgen05.mma without the fence: %s\n", ordered ? "missed" : "reported");
        }
        free(w);
    }
}

/* ================================================================ shared memory and the async proxy */

/* An epilogue warp that also issues TMA copies: its copy pipe is component 3i + 1 (it issues no tcgen05.ld
 * in these traces). */
static void proxy_agent(world *w, int i, unsigned cta, unsigned warp)
{
    agent(w, i, cta, warp);
    w->ag[i].tma_pipe = (uint8_t)(3 * i + 1);
}

static void proxy_found(world *w, int verdict, const hb_site *earlier, const hb_site *me)
{
    w->raced = 1;
    w->proxy_verdict = verdict;
    w->earlier = *earlier;
    w->later = *me;
}

/* ld.shared (write 0) or st.shared (write 1) of blocks [b0, b0 + n) by the agent's warp */
static void smem_access(world *w, int a, int write, unsigned b0, unsigned n)
{
    if (w->raced) return;
    hb_vc start;
    uint32_t t = hb_generic_issue(&w->ag[a], write, b0, n, &start);
    hb_site me =
        hb_agent_site(&w->ag[a], write ? HB_SMEM_WRITE : HB_SMEM_READ, w->ag[a].self, t, w->ag[a].cta, 0, 0, b0, n);
    for (unsigned k = b0; k < b0 + n; k++) {
        hb_site earlier;
        int v = hb_smem_generic_access(&w->smem[k], write, &start, &me, &earlier);
        if (v) {
            proxy_found(w, v, &earlier, &me);
            return;
        }
    }
}

/* a TMA copy into blocks [b0, b0 + n) of the agent's CTA, completing on barrier b (its phase opened by an
 * arrive.expect_tx before) */
static void tma_copy(world *w, int a, int b, unsigned b0, unsigned n)
{
    if (w->raced) return;
    uint32_t t = hb_tma_issue(&w->ag[a]);
    hb_vc start;
    hb_vc_copy(&start, &w->ag[a].vc);
    hb_site me = hb_agent_site(&w->ag[a], HB_TMA, w->ag[a].tma_pipe, t, w->ag[a].cta, 0, 0, b0, n);
    hb_smem_block *smem = smem_of(w, w->ag[a].cta);
    for (unsigned k = b0; k < b0 + n; k++) {
        hb_site earlier;
        int v = hb_smem_tma_load(&smem[k], &start, &me, &earlier);
        if (v) {
            proxy_found(w, v, &earlier, &me);
            return;
        }
    }
    hb_sync_join_latest_phase(&w->bar[b], w->ag[a].tma_pipe, t);
}

/* arrive.expect_tx on barrier b, then a TMA copy into blocks [b0, b0 + n) completing on b */
static void tma_load_smem(world *w, int a, int b, unsigned b0, unsigned n)
{
    if (w->raced) return;
    arrive(w, a, b, 1);
    tma_copy(w, a, b, b0, n);
}

/* a TMA store reading blocks [b0, b0 + n) */
static void tma_store_smem(world *w, int a, unsigned b0, unsigned n)
{
    if (w->raced) return;
    hb_vc start;
    uint32_t group = 0, t = hb_tma_store_issue(&w->ag[a], b0, n, &start, &group);
    EXPECT(t != 0, "the agent's table of pending stores is full");
    hb_site me = hb_agent_site(&w->ag[a], HB_TMA_STORE, w->ag[a].self, t, w->ag[a].cta, 0, 0, b0, n);
    for (unsigned k = b0; k < b0 + n; k++) {
        hb_site earlier;
        int v = hb_smem_tma_store(&w->smem[k], &start, &me, group, &earlier);
        if (v) {
            proxy_found(w, v, &earlier, &me);
            return;
        }
    }
}

static void bulk_commit(world *w, int a)
{
    hb_bulk_commit(&w->ag[a]);
}

/* cp.async.bulk.wait_group[.read] n returned */
static void bulk_wait(world *w, int a, uint32_t n)
{
    unsigned b0, nb;
    uint32_t group, clock;
    while (hb_bulk_take_retired(&w->ag[a], n, &b0, &nb, &group, &clock))
        for (unsigned k = b0; k < b0 + nb; k++) hb_smem_retire(&w->smem[k], w->ag[a].self, group, clock);
}

static void proxy_fence(world *w, int a)
{
    unsigned lo, hi;
    uint32_t t = hb_proxy_fence(&w->ag[a], &lo, &hi);
    for (unsigned k = lo; k < hi; k++) hb_smem_fence(&w->smem[k], w->ag[a].self, t);
}

static void print_proxy(const world *w)
{
    const hb_site *s[2] = {&w->earlier, &w->later};
    printf("  reported: %s at shared block %u:\n",
           w->proxy_verdict == HB_SMEM_NO_FENCE ? "PROXY_FENCE" : "ASYNC_PROXY_RACE", (unsigned)w->later.col0);
    for (int i = 0; i < 2; i++)
        printf("    %s: CTA rank %u warp %u %s blocks %u..%u [epoch %u@%u]\n", i ? "later  " : "earlier", s[i]->cta,
               s[i]->warp, hb_kind_name(s[i]->kind), s[i]->col0, s[i]->col0 + s[i]->ncols - 1, s[i]->comp, s[i]->clock);
}

static void expect_proxy_clean(const world *w, const char *what)
{
    if (w->raced) print_proxy(w);
    EXPECT(!w->raced, "%s: an async-proxy report in a correct order", what);
    if (!w->raced) printf("  %s: nothing reported\n", what);
}

static void expect_proxy(const world *w, const char *what, int verdict, unsigned earlier_kind, unsigned later_kind)
{
    EXPECT(w->raced, "%s: NOT reported", what);
    if (!w->raced) return;
    print_proxy(w);
    EXPECT(w->proxy_verdict == verdict, "%s: verdict %d, expected %d", what, w->proxy_verdict, verdict);
    EXPECT(w->earlier.kind == earlier_kind && w->later.kind == later_kind,
           "%s: sites are %s then %s, expected %s then %s", what, hb_kind_name(w->earlier.kind),
           hb_kind_name(w->later.kind), hb_kind_name(earlier_kind), hb_kind_name(later_kind));
}

/* One epilogue warp of the sm100 kernel over two tiles of four 32 x 32 chunks, kBuffers = 2 buffers of two
 * blocks (an fp32 chunk is 4 KB; here 2 KB, 16-bit), c_full[b] = barrier b: the order of epilogue_role. */
typedef struct epi_bugs {
    int no_refill_wait; /* no wait_group.read 1 before refilling the buffer of chunk ch - 1 */
    int no_tile_wait;   /* no wait_group.read 0 before a tile's first C loads */
    int no_store_wait;  /* beta = 0: no wait_group.read kBuffers - 1 before writing a buffer */
    int no_fence;       /* no fence.proxy.async between the chunk's st.shared and its TMA store */
    int no_c_wait;      /* no c_full wait before reading a chunk's C */
} epi_bugs;

enum { EPI_BUFS = 2, EPI_BLOCKS = 2, EPI_CHUNKS = 4, EPI_TILES = 2 };

static world *epi_run(int load_c, const epi_bugs *b)
{
    world *w = world_new();
    proxy_agent(w, 0, 0, 2);
    for (int i = 0; i < EPI_BUFS; i++) bar_init(w, i, 1);
    uint32_t seq = 0;
    for (int tile = 0; tile < EPI_TILES; tile++) {
        if (load_c) {
            if (!b->no_tile_wait) bulk_wait(w, 0, 0);
            for (int c = 0; c < EPI_CHUNKS && c < EPI_BUFS; c++) {
                unsigned buf = (seq + (unsigned)c) % EPI_BUFS;
                tma_load_smem(w, 0, (int)buf, buf * EPI_BLOCKS, EPI_BLOCKS);
            }
        }
        for (int ch = 0; ch < EPI_CHUNKS; ch++) {
            unsigned buf = seq % EPI_BUFS, b0 = buf * EPI_BLOCKS;
            if (load_c) {
                if (!b->no_c_wait) wait_(w, 0, (int)buf, (seq / EPI_BUFS) & 1u);
            } else if (!b->no_store_wait) {
                bulk_wait(w, 0, EPI_BUFS - 1);
            }
            if (load_c) smem_access(w, 0, 0, b0, EPI_BLOCKS);
            smem_access(w, 0, 1, b0, EPI_BLOCKS);
            if (!b->no_fence) proxy_fence(w, 0);
            tma_store_smem(w, 0, b0, EPI_BLOCKS);
            bulk_commit(w, 0);
            int next = ch - 1 + EPI_BUFS;
            if (load_c && ch >= 1 && next < EPI_CHUNKS) {
                if (!b->no_refill_wait) bulk_wait(w, 0, 1);
                unsigned rbuf = (seq - 1u + EPI_BUFS) % EPI_BUFS;
                tma_load_smem(w, 0, (int)rbuf, rbuf * EPI_BLOCKS, EPI_BLOCKS);
            }
            seq++;
        }
    }
    bulk_wait(w, 0, 0);
    return w;
}

static void case_proxy_epilogue_clean(void)
{
    static const epi_bugs none;
    for (int load_c = 0; load_c <= 1; load_c++) {
        world *w = epi_run(load_c, &none);
        expect_proxy_clean(w, load_c ? "the epilogue with C loaded by TMA" : "the epilogue without C");
        for (int k = 0; k < EPI_BUFS * EPI_BLOCKS; k++)
            EXPECT(w->smem[k].store_retired != 0u, "block %d: the last store never retired after wait_group 0", k);
        free(w);
    }
}

static void case_proxy_refill_before_wait_read(void)
{
    epi_bugs b = {0};
    b.no_refill_wait = 1;
    world *w = epi_run(1, &b);
    expect_proxy(w, "C refill before wait_group.read", HB_SMEM_RACE, HB_TMA_STORE, HB_TMA);
    free(w);
}

static void case_proxy_tile_refill_before_wait(void)
{
    epi_bugs b = {0};
    b.no_tile_wait = 1;
    world *w = epi_run(1, &b);
    expect_proxy(w, "the next tile's first C loads before wait_group.read 0", HB_SMEM_RACE, HB_TMA_STORE, HB_TMA);
    free(w);
}

static void case_proxy_write_before_wait_read(void)
{
    epi_bugs b = {0};
    b.no_store_wait = 1;
    world *w = epi_run(0, &b);
    expect_proxy(w, "st.shared into a buffer its last store still reads", HB_SMEM_RACE, HB_TMA_STORE, HB_SMEM_WRITE);
    free(w);
}

static void case_proxy_missing_fence(void)
{
    epi_bugs b = {0};
    b.no_fence = 1;
    for (int load_c = 0; load_c <= 1; load_c++) {
        world *w = epi_run(load_c, &b);
        expect_proxy(w, "TMA store without fence.proxy.async", HB_SMEM_NO_FENCE, HB_SMEM_WRITE, HB_TMA_STORE);
        free(w);
    }
}

static void case_proxy_read_before_load_wait(void)
{
    epi_bugs b = {0};
    b.no_c_wait = 1;
    world *w = epi_run(1, &b);
    expect_proxy(w, "ld.shared of C before its c_full wait", HB_SMEM_RACE, HB_TMA, HB_SMEM_READ);
    free(w);
}

/* Warp 2 (agent 0) writes a block that warp 3 (agent 1) stores by TMA; then warp 2 writes it again after the
 * store's retirement. Barrier 0: writer -> issuer; barrier 1: issuer -> writer. */
static world *cross_run(int fence, int fence_after_arrive, int sync_to_issuer, int wait_before_arrive)
{
    world *w = world_new();
    proxy_agent(w, 0, 0, 2);
    proxy_agent(w, 1, 0, 3);
    bar_init(w, 0, 1);
    bar_init(w, 1, 1);
    smem_access(w, 0, 1, 5, 1);
    if (fence && !fence_after_arrive) proxy_fence(w, 0);
    arrive(w, 0, 0, 1);
    if (fence && fence_after_arrive) proxy_fence(w, 0);
    if (sync_to_issuer) wait_(w, 1, 0, 0);
    tma_store_smem(w, 1, 5, 1);
    bulk_commit(w, 1);
    if (wait_before_arrive) bulk_wait(w, 1, 0);
    arrive(w, 1, 1, 1);
    if (!wait_before_arrive) bulk_wait(w, 1, 0);
    wait_(w, 0, 1, 0);
    smem_access(w, 0, 1, 5, 1);
    return w;
}

static void case_proxy_cross_warp(void)
{
    world *w = cross_run(1, 0, 1, 1);
    expect_proxy_clean(w, "write, fence, arrive | wait, store, wait_group.read, arrive | wait, write");
    free(w);
    w = cross_run(1, 1, 1, 1);
    expect_proxy(w, "the fence after the arrive that publishes the write", HB_SMEM_NO_FENCE, HB_SMEM_WRITE,
                 HB_TMA_STORE);
    free(w);
    w = cross_run(0, 0, 1, 1);
    expect_proxy(w, "no fence at all", HB_SMEM_NO_FENCE, HB_SMEM_WRITE, HB_TMA_STORE);
    free(w);
    w = cross_run(1, 0, 0, 1);
    expect_proxy(w, "the store issued without waiting for the writer", HB_SMEM_RACE, HB_SMEM_WRITE, HB_TMA_STORE);
    free(w);
    w = cross_run(1, 0, 1, 0);
    expect_proxy(w, "the issuer's arrive before its wait_group.read", HB_SMEM_RACE, HB_TMA_STORE, HB_SMEM_WRITE);
    free(w);
}

/* Stores into blocks 0, 1, 2 in groups 0, 1 and (not committed) 2. */
static void case_proxy_bulk_groups(void)
{
    world *w = world_new();
    proxy_agent(w, 0, 0, 2);
    for (unsigned k = 0; k < 3; k++) {
        smem_access(w, 0, 1, k, 1);
        proxy_fence(w, 0);
        tma_store_smem(w, 0, k, 1);
        if (k < 2) bulk_commit(w, 0);
    }
    expect_proxy_clean(w, "three stores");
    bulk_wait(w, 0, 1);
    EXPECT(w->smem[0].store_retired != 0u, "wait_group.read 1 did not retire group 0 (two committed)");
    EXPECT(w->smem[1].store_retired == 0u, "wait_group.read 1 retired group 1, the most recent");
    EXPECT(w->smem[2].store_retired == 0u, "wait_group.read 1 retired a store not committed yet");
    bulk_wait(w, 0, 0);
    EXPECT(w->smem[1].store_retired != 0u, "wait_group.read 0 did not retire group 1");
    EXPECT(w->smem[2].store_retired == 0u, "wait_group.read 0 retired a store not committed yet");
    bulk_commit(w, 0);
    bulk_wait(w, 0, 0);
    EXPECT(w->smem[2].store_retired != 0u, "wait_group.read 0 after its commit did not retire group 2");
    EXPECT(w->ag[0].proxy.pending == 0u, "%u stores still pending", w->ag[0].proxy.pending);
    smem_access(w, 0, 1, 0, 3);
    expect_proxy_clean(w, "writes after every group retired");
    printf("  wait_group.read N: all but the N most recent committed groups retired, uncommitted stores never\n");
    free(w);
}

/* ================================================================ block-scaled MMA: tcgen05.cp and scale reads */

/* An asynchronous tcgen05 read (an MMA operand, a tcgen05.cp source) of blocks [b0, b0 + n) of CTA `cta`'s
 * shared memory: after the last TMA copy into each. A race is recorded with cell_lane ~0u and the block's
 * offset in cell_col. */
static void smem_async_read(world *w, unsigned cta, unsigned b0, unsigned n, const hb_vc *start, hb_site me)
{
    if (w->raced) return;
    for (unsigned k = b0; k < b0 + n; k++) {
        hb_site earlier;
        if (hb_smem_tcgen05_read(&smem_of(w, cta)[k], start, &earlier) != HB_SMEM_OK) {
            w->raced = 1;
            w->earlier = earlier;
            w->later = me;
            w->cell_cta = cta;
            w->cell_lane = ~0u;
            w->cell_col = k * HB_SMEM_BLOCK_BYTES;
            return;
        }
    }
}

/* tcgen05.cp writing columns [col, col + n) of all 128 lanes (both CTAs when pair), reading blocks
 * [b0, b0 + nb) of each CTA's shared memory */
static void cp_(world *w, int a, unsigned col, unsigned n, int pair, unsigned b0, unsigned nb)
{
    hb_vc start;
    uint32_t t = hb_cp_issue(&w->ag[a], &start);
    unsigned cta = w->ag[a].cta;
    hb_site me = hb_agent_site(&w->ag[a], HB_CP, w->ag[a].mma_pipe, t, cta, 0, 128, col, n);
    smem_async_read(w, cta, b0, nb, &start, me);
    if (pair) smem_async_read(w, cta ^ 1u, b0, nb, &start, me);
    access(w, cta, HB_OP_WRITE, &start, me);
    if (pair) access(w, cta ^ 1u, HB_OP_WRITE, &start, me);
}

/* tcgen05.mma .block_scale: D at [col, col + n), A and B from blocks a_block, b_block (nb 0: not checked),
 * the scale factors from [sfa, sfa + 4) and [sfb, sfb + 8), all 128 lanes, both CTAs when pair */
static void mma_scaled(world *w, int a, unsigned col, unsigned n, int pair, unsigned a_block, unsigned b_block,
                       unsigned nb, unsigned sfa, unsigned sfb)
{
    hb_vc start;
    uint32_t t = hb_mma_issue(&w->ag[a], &start);
    unsigned cta = w->ag[a].cta;
    hb_site me = hb_agent_site(&w->ag[a], HB_MMA, w->ag[a].mma_pipe, t, cta, 0, 128, col, n);
    hb_site sa = hb_agent_site(&w->ag[a], HB_MMA_SCALES, w->ag[a].mma_pipe, t, cta, 0, 128, sfa, 4);
    hb_site sb = hb_agent_site(&w->ag[a], HB_MMA_SCALES, w->ag[a].mma_pipe, t, cta, 0, 128, sfb, 8);
    for (int r = 0; r <= pair; r++) {
        smem_async_read(w, cta ^ (unsigned)r, a_block, nb, &start, me);
        smem_async_read(w, cta ^ (unsigned)r, b_block, nb, &start, me);
    }
    for (int r = 0; r <= pair; r++) {
        access(w, cta ^ (unsigned)r, HB_OP_READ, &start, sa);
        access(w, cta ^ (unsigned)r, HB_OP_READ, &start, sb);
    }
    for (int r = 0; r <= pair; r++) access(w, cta ^ (unsigned)r, HB_OP_WRITE, &start, me);
}

/* The block-scaled k-loop of the MXFP8 sm100 design, 128 x 192 per CTA (cta_group 1) or 256 x 192 per pair
 * (cta_group 2): two accumulators of 192 columns (0, 192), four smem stages, each holding the k-block's A
 * (block 4s), B (4s + 1), SFA (512 bytes at block 4s + 2) and SFB (1024 bytes from offset 512 of it: blocks
 * 4s + 2 and 4s + 3), and four 32-column scale slots (slot t at column 384 + 32 t: SFA 4 columns, SFB 8 after
 * it). K-block i uses stage and slot i % 4: the MMA warp waits full[s], fences, copies SFA and SFB into slot
 * s (tcgen05.cp), issues 4 scaled MMAs and commits empty[s]; the tile's last k-block also commits acc_full.
 * The producer runs 3 k-blocks ahead. Each planted deviation is one field. */
typedef struct mx_bugs {
    int cg;              /* cta_group: 1, or 2 (the pair) */
    int one_slot;        /* every k-block's scales into slot 0 */
    int no_fence_full;   /* MMA warp: no fence::after_thread_sync after the full[s] waits */
    int cp_before_wait;  /* MMA warp: the cps before the full[s] wait */
    int no_dealloc_wait; /* MMA warp: frees TMEM without the dealloc barrier */
} mx_bugs;

/* Agents. cta_group 1: producer, MMA warp, epilogue warps 2..5 (lane quarters 2, 3, 0, 1). cta_group 2: per
 * CTA r agents 3r (producer), 3r + 1 (MMA warp; the peer's only allocates and deallocates), 3r + 2 (one
 * epilogue warp, lane quarter 2). Barriers of CTA r from 16 r. */
enum { MX_P = 0, MX_M = 1, MX_E = 2 };
enum { MX_FULL = 0, MX_EMPTY = 4, MX_ACC_FULL = 8, MX_ACC_EMPTY = 10, MX_DEALLOC = 12, MX_ADDR = 13, MX_CLUSTER = 14 };
enum { MX_STAGES = 4, MX_KBLOCKS = 3, MX_TILES = 4, MX_BN = 192, MX_SF = 384 };

static unsigned mx_epi_warps(const mx_bugs *b)
{
    return b->cg == 2 ? 1u : 4u;
}

static int mx_epi(const mx_bugs *b, unsigned r, unsigned e)
{
    return b->cg == 2 ? (int)(3u * r + 2u) : MX_E + (int)e;
}

static void mx_setup(world *w, const mx_bugs *b)
{
    int pair = b->cg == 2;
    for (unsigned r = 0; r <= (unsigned)pair; r++) {
        int base = 16 * (int)r;
        proxy_agent(w, (int)(3u * r), r, 0);
        agent(w, (int)(3u * r) + 1, r, 1);
        for (int s = 0; s < MX_STAGES; s++) {
            bar_init(w, base + MX_FULL + s, 1); /* the leader's arrive.expect_tx (a pair's copies complete there) */
            bar_init(w, base + MX_EMPTY + s, 1);
        }
        for (int a = 0; a < 2; a++) {
            bar_init(w, base + MX_ACC_FULL + a, 1);
            bar_init(w, base + MX_ACC_EMPTY + a, pair ? 2 : 128);
        }
        bar_init(w, base + MX_DEALLOC, pair ? 2 : 128);
    }
    if (pair) {
        agent(w, 2, 0, 2);
        agent(w, 5, 1, 2);
        bar_init(w, MX_CLUSTER, 6);
        alloc_(w, MX_M, 0, 512);
        alloc_(w, 3 + MX_M, 0, 512);
        for (int i = 0; i < 6; i++) { /* cluster_sync after the allocs */
            fence_before(w, i);
            arrive(w, i, MX_CLUSTER, 1);
        }
        for (int i = 0; i < 6; i++) {
            barrier_sync(w, i, MX_CLUSTER, 1, 0);
            fence_after(w, i);
        }
        return;
    }
    for (int e = 0; e < 4; e++) agent(w, MX_E + e, 0, 2 + (unsigned)e);
    bar_init(w, MX_ADDR, 160);
    alloc_(w, MX_M, 0, 512);
    fence_before(w, MX_M);
    arrive(w, MX_M, MX_ADDR, 32);
    fence_after(w, MX_M);
    for (int e = 0; e < 4; e++) arrive(w, MX_E + e, MX_ADDR, 32);
    for (int e = 0; e < 4; e++) {
        barrier_sync(w, MX_E + e, MX_ADDR, 32, 0);
        fence_after(w, MX_E + e);
    }
}

/* The producer(s) fill stage i % 4 with k-block i: wait empty[s], the leader's arrive.expect_tx on its
 * full[s], then A, B, SFA and SFB by TMA into each CTA's own shared memory, completing on the leader's full[s]. */
static void mx_produce(world *w, const mx_bugs *b, int i)
{
    int s = i % MX_STAGES;
    unsigned b0 = 4u * (unsigned)s;
    for (unsigned r = 0; r < (unsigned)b->cg; r++) {
        int p = (int)(3u * r);
        wait_(w, p, 16 * (int)r + MX_EMPTY + s, (unsigned)((i / MX_STAGES) & 1) ^ 1u);
        if (r == 0) arrive(w, p, MX_FULL + s, 1);
        tma_copy(w, p, MX_FULL + s, b0, 1);      /* A */
        tma_copy(w, p, MX_FULL + s, b0 + 1u, 1); /* B */
        tma_copy(w, p, MX_FULL + s, b0 + 2u, 1); /* SFA: 512 bytes */
        tma_copy(w, p, MX_FULL + s, b0 + 2u, 2); /* SFB: 1024 bytes from offset 512 */
    }
}

static void mx_kblock(world *w, const mx_bugs *b, int i, int acc, int last)
{
    int pair = b->cg == 2, s = i % MX_STAGES;
    unsigned b0 = 4u * (unsigned)s, slot = b->one_slot ? 0u : (unsigned)s, sf = MX_SF + 32u * slot;
    if (i + 3 < MX_TILES * MX_KBLOCKS) mx_produce(w, b, i + 3);
    if (!b->cp_before_wait) {
        wait_(w, MX_M, MX_FULL + s, (unsigned)(i / MX_STAGES) & 1u);
        if (!b->no_fence_full) fence_after(w, MX_M);
    }
    cp_(w, MX_M, sf, 4, pair, b0 + 2u, 1);      /* SFA(s) -> slot, columns 0..3 */
    cp_(w, MX_M, sf + 4u, 8, pair, b0 + 2u, 2); /* SFB(s) -> slot, columns 4..11 */
    if (b->cp_before_wait) {
        wait_(w, MX_M, MX_FULL + s, (unsigned)(i / MX_STAGES) & 1u);
        if (!b->no_fence_full) fence_after(w, MX_M);
    }
    for (int k = 0; k < 4; k++) mma_scaled(w, MX_M, MX_BN * (unsigned)acc, MX_BN, pair, b0, b0 + 1u, 1, sf, sf + 4u);
    commit(w, MX_M, MX_EMPTY + s, pair ? 16 + MX_EMPTY + s : -1);
    if (last) commit(w, MX_M, MX_ACC_FULL + acc, pair ? 16 + MX_ACC_FULL + acc : -1);
}

static void mx_mma_tile(world *w, const mx_bugs *b, int t)
{
    int a = t % 2;
    wait_(w, MX_M, MX_ACC_EMPTY + a, (unsigned)((t / 2) & 1) ^ 1u);
    fence_after(w, MX_M);
    for (int kb = 0; kb < MX_KBLOCKS; kb++) mx_kblock(w, b, t * MX_KBLOCKS + kb, a, kb == MX_KBLOCKS - 1);
}

/* Every epilogue warp reads accumulator t % 2 (6 chunks of 32 columns) and releases it on the leader's
 * acc_empty. */
static void mx_epi_tile(world *w, const mx_bugs *b, int t)
{
    int a = t % 2;
    for (unsigned r = 0; r < (unsigned)b->cg; r++) {
        for (unsigned e = 0; e < mx_epi_warps(b); e++) {
            int ag = mx_epi(b, r, e);
            unsigned q = b->cg == 2 ? 2u : (2u + e) % 4u;
            wait_(w, ag, 16 * (int)r + MX_ACC_FULL + a, (unsigned)(t / 2) & 1u);
            fence_after(w, ag);
            for (unsigned ch = 0; ch < MX_BN / 32u; ch++) {
                ld(w, ag, q, MX_BN * (unsigned)a + 32u * ch, 32);
                wait_ld(w, ag);
            }
            fence_before(w, ag);
            arrive(w, ag, MX_ACC_EMPTY + a, b->cg == 2 ? 1 : 32);
        }
    }
}

/* Teardown: every epilogue warp signals the dealloc barrier (in a pair its own CTA's and the peer's), the
 * MMA warp(s) wait on it, fence and free all 512 columns (a pair's dealloc frees both CTAs' cells). */
static void mx_teardown(world *w, const mx_bugs *b)
{
    int pair = b->cg == 2;
    for (unsigned r = 0; r < (unsigned)b->cg; r++) {
        for (unsigned e = 0; e < mx_epi_warps(b); e++) {
            int ag = mx_epi(b, r, e);
            fence_before(w, ag);
            if (pair) arrive(w, ag, 16 * (int)(r ^ 1u) + MX_DEALLOC, 1);
            arrive(w, ag, 16 * (int)r + MX_DEALLOC, pair ? 1 : 32);
        }
    }
    for (unsigned r = 0; r < (unsigned)b->cg; r++) {
        int m = (int)(3u * r) + MX_M;
        if (!b->no_dealloc_wait) wait_(w, m, 16 * (int)r + MX_DEALLOC, 0);
        fence_after(w, m);
        dealloc_(w, m, 0, 512, pair);
    }
}

/* The replay: the producer fills the first three stages, the MMA warp runs one accumulator ahead of the
 * epilogue (as cg1_run). */
static world *mx_run(const mx_bugs *b)
{
    world *w = world_new();
    mx_setup(w, b);
    for (int i = 0; i < 3; i++) mx_produce(w, b, i);
    mx_mma_tile(w, b, 0);
    mx_mma_tile(w, b, 1);
    for (int t = 0; t < MX_TILES; t++) {
        mx_epi_tile(w, b, t);
        if (t + 2 < MX_TILES) mx_mma_tile(w, b, t + 2);
    }
    mx_teardown(w, b);
    return w;
}

static void case_mx_correct(void)
{
    for (int cg = 1; cg <= 2; cg++) {
        mx_bugs b = {0};
        b.cg = cg;
        world *w = mx_run(&b);
        expect_clean(w, cg == 1 ? "block-scaled k-loop, cta_group 1: 4 slots, 4 tiles, 2 accumulators"
                                : "block-scaled k-loop, cta_group 2: cp and MMAs into both CTAs, pair dealloc");
        /* the trace really copied into every slot of every CTA, and the dealloc freed them */
        for (int r = 0; r < cg; r++)
            for (unsigned q = 0; q < HB_QUARTERS; q++)
                for (unsigned t = 0; t < MX_STAGES; t++) {
                    const hb_cell *c = &w->cells[r][q * HB_CELL_UNITS + (MX_SF / HB_CELL_COLS) + t];
                    EXPECT(c->write.kind == HB_CP && c->write.col0 == MX_SF + 32u * t + 4u && c->cp_cols == 0xFFFu,
                           "rank %d quarter %u slot %u: last write %s at column %u, cp columns %#x", r, q, t,
                           hb_kind_name(c->write.kind), c->write.col0, c->cp_cols);
                    EXPECT(c->read_mask != 0u && c->freed.kind == HB_DEALLOC,
                           "rank %d quarter %u slot %u: no scale read recorded, or not freed", r, q, t);
                }
        free(w);
    }
}

/* One scale slot for every k-block: the cp of k-block 1 overwrites slot 0 while nothing orders it after the
 * MMAs of k-block 0 that read it (mma -> cp is not a pipelined pair, and full[1]'s chain carries no commit
 * of k-block 0). */
static void case_mx_one_slot(void)
{
    for (int cg = 1; cg <= 2; cg++) {
        mx_bugs b = {0};
        b.cg = cg;
        b.one_slot = 1;
        world *w = mx_run(&b);
        expect_race(w, "one scale slot for every k-block: cp overwrites scales an earlier MMA reads", HB_MMA_SCALES,
                    HB_CP);
        /* k-block 0's last MMA (epoch 6 on the pipe: cp, cp, 4 MMAs) read slot 0; k-block 1's SFA cp writes it */
        EXPECT(w->raced && w->cell_cta == 0 && w->cell_lane == 0 && w->cell_col == MX_SF && w->earlier.warp == 1 &&
                   w->later.warp == 1 && w->earlier.clock == 6 && w->later.clock == 7 && w->later.col0 == MX_SF &&
                   w->later.ncols == 4,
               "cell rank %u lane %u column %u; read epoch %u, cp epoch %u at columns %u (+%u)", w->cell_cta,
               w->cell_lane, w->cell_col, w->earlier.clock, w->later.clock, w->later.col0, w->later.ncols);
        free(w);
    }
}

/* The TMA copy of the scale factors -> full[s] -> cp: ordered only with fence::after_thread_sync between the
 * wait and the cp. Without it, or with the cps before the wait, the cp reads the stage's scale block while
 * nothing orders it after the copy: reported at k-block 0's SFA cp (the block of stage 0's scales). */
static void case_mx_cp_unfenced(void)
{
    for (int variant = 0; variant < 2; variant++)
        for (int cg = 1; cg <= 2; cg++) {
            mx_bugs b = {0};
            b.cg = cg;
            if (variant == 0)
                b.no_fence_full = 1;
            else
                b.cp_before_wait = 1;
            world *w = mx_run(&b);
            expect_race(w,
                        variant == 0 ? "tcgen05.cp without fence::after_thread_sync after the full[s] wait"
                                     : "tcgen05.cp before the full[s] wait",
                        HB_TMA, HB_CP);
            EXPECT(w->raced && w->cell_lane == ~0u && w->cell_cta == 0 && w->cell_col == 2u * HB_SMEM_BLOCK_BYTES &&
                       w->earlier.warp == 0 && w->later.warp == 1 && w->later.col0 == MX_SF,
                   "shared block at %u of rank %u, copy by warp %u, cp by warp %u at column %u", w->cell_col,
                   w->cell_cta, w->earlier.warp, w->later.warp, w->later.col0);
            free(w);
        }
}

/* The scale columns freed while a scaled MMA reading them is not ordered before the dealloc. In the kernel
 * the MMA warp frees all 512 columns without the dealloc barrier: the cps and MMAs of the k-blocks whose
 * commits no wait of the MMA warp observed (its last full[s] wait carries the commit of k-block 7) are not
 * ordered before it, and the dealloc meets the first of them in column order: accumulator 0's last write,
 * k-block 8's last MMA (epoch 9 x 6 = 54: each k-block is 2 cps and 4 MMAs); its scale reads belong to the
 * same event and the cells after. Then the scale columns alone: freed after the MMA warp observed its cps
 * complete (a commit it waited for) but not the scaled MMA that reads them: the dealloc finds the scale read
 * (the cell's last read of the tensor pipe: SFB's), and with the wait for the MMA's commit nothing. */
static void case_mx_scales_freed_early(void)
{
    mx_bugs b = {0};
    b.cg = 1;
    b.no_dealloc_wait = 1;
    world *w = mx_run(&b);
    expect_race(w, "the MMA warp frees TMEM without the dealloc barrier", HB_MMA, HB_DEALLOC);
    EXPECT(w->raced && w->earlier.warp == 1 && w->earlier.col0 == 0 && w->earlier.clock == 54 && w->cell_col == 0,
           "earlier: warp %u columns %u epoch %u, at cell column %u", w->earlier.warp, w->earlier.col0,
           w->earlier.clock, w->cell_col);
    free(w);

    w = world_new();
    agent(w, 0, 0, 1);
    bar_init(w, 0, 1); /* the cps' commit */
    bar_init(w, 1, 1); /* acc_full */
    alloc_(w, 0, 0, 512);
    fence_after(w, 0);
    cp_(w, 0, MX_SF, 4, 0, 0, 0);
    cp_(w, 0, MX_SF + 4u, 8, 0, 0, 0);
    commit(w, 0, 0, -1);
    wait_(w, 0, 0, 0);
    fence_after(w, 0);
    mma_scaled(w, 0, 0, MX_BN, 0, 0, 0, 0, MX_SF, MX_SF + 4u);
    commit(w, 0, 1, -1);
    dealloc_(w, 0, MX_SF, 512 - MX_SF, 0); /* no wait on acc_full */
    expect_race(w, "scale columns freed before the scaled MMA reading them completed", HB_MMA_SCALES, HB_DEALLOC);
    EXPECT(w->raced && w->cell_col == MX_SF && w->earlier.col0 == MX_SF + 4u && w->earlier.clock == 3,
           "at cell column %u, the read of columns %u.. epoch %u", w->cell_col, w->earlier.col0, w->earlier.clock);
    free(w);
    /* the same with the wait on acc_full: the MMA completed before the free */
    w = world_new();
    agent(w, 0, 0, 1);
    bar_init(w, 0, 1);
    bar_init(w, 1, 1);
    alloc_(w, 0, 0, 512);
    fence_after(w, 0);
    cp_(w, 0, MX_SF, 4, 0, 0, 0);
    cp_(w, 0, MX_SF + 4u, 8, 0, 0, 0);
    mma_scaled(w, 0, 0, MX_BN, 0, 0, 0, 0, MX_SF, MX_SF + 4u);
    commit(w, 0, 1, -1);
    wait_(w, 0, 1, 0);
    fence_after(w, 0);
    dealloc_(w, 0, MX_SF, 512 - MX_SF, 0);
    expect_clean(w, "scale columns freed after the wait on the commit of the MMA reading them");
    free(w);
}

/* One thread's tensor pipe: cp -> mma is a pipelined pair, so a scaled MMA right after the cps of its scales
 * is ordered after them; a cp right after an MMA is not ordered after it, which matters only when it writes
 * what the MMA reads. */
static void case_mx_cp_pipelined(void)
{
    world *w = world_new();
    agent(w, 0, 0, 1);
    alloc_(w, 0, 0, 512);
    fence_after(w, 0);
    cp_(w, 0, MX_SF, 4, 0, 0, 0); /* slot 0 */
    cp_(w, 0, MX_SF + 4u, 8, 0, 0, 0);
    mma_scaled(w, 0, 0, MX_BN, 0, 0, 0, 0, MX_SF, MX_SF + 4u); /* cp -> mma, same columns */
    expect_clean(w, "cp, then a scaled MMA reading what it copied (cp -> mma)");
    cp_(w, 0, MX_SF + 32u, 4, 0, 0, 0); /* slot 1: other columns than the MMA's */
    cp_(w, 0, MX_SF + 36u, 8, 0, 0, 0);
    expect_clean(w, "mma, then a cp on other columns (not ordered, no conflict)");
    mma_scaled(w, 0, MX_BN, MX_BN, 0, 0, 0, 0, MX_SF + 32u, MX_SF + 36u);
    expect_clean(w, "cp, then a scaled MMA of the other accumulator reading the new slot");
    /* the control: a cp into slot 0, which the first MMA reads, with nothing ordering it after that MMA */
    cp_(w, 0, MX_SF, 4, 0, 0, 0);
    expect_race(w, "mma, then a cp overwriting its scales (mma -> cp is not pipelined)", HB_MMA_SCALES, HB_CP);
    EXPECT(w->raced && w->earlier.clock == 3 && w->later.clock == 7, "the read of epoch %u, the cp of epoch %u",
           w->earlier.clock, w->later.clock);
    free(w);
}

/* Accesses of fewer than 32 columns, or starting inside a cell, touch every cell they overlap; a cell keeps
 * the columns of its run of cps, and a cp on columns the run already wrote is checked again. */
static void case_mx_cells(void)
{
    EXPECT(hb_cell_cols(384, 384, 4) == 0xFu && hb_cell_cols(384, 388, 8) == 0xFF0u, "SFA / SFB masks");
    EXPECT(hb_cell_cols(0, 30, 4) == 0xC0000000u && hb_cell_cols(32, 30, 4) == 0x3u, "straddling masks");
    EXPECT(hb_cell_cols(0, 0, 32) == 0xFFFFFFFFu && hb_cell_cols(32, 0, 32) == 0u && hb_cell_cols(64, 0, 40) == 0u,
           "whole-cell and disjoint masks");
    world *w = world_new();
    agent(w, 0, 0, 1);
    agent(w, 1, 0, 2);
    alloc_(w, 0, 0, 512);
    fence_after(w, 0);
    cp_(w, 0, 30, 4, 0, 0, 0); /* columns 30..33: cells 0 and 1 of every quarter */
    for (unsigned q = 0; q < HB_QUARTERS; q++) {
        const hb_cell *c = &w->cells[0][q * HB_CELL_UNITS];
        EXPECT(c[0].write.kind == HB_CP && c[1].write.kind == HB_CP && c[2].write.kind == HB_ALLOC,
               "quarter %u: cells 0, 1, 2 last written by %s, %s, %s", q, hb_kind_name(c[0].write.kind),
               hb_kind_name(c[1].write.kind), hb_kind_name(c[2].write.kind));
        EXPECT(c[0].cp_cols == 0xC0000000u && c[1].cp_cols == 0x3u, "quarter %u: cp columns %#x %#x", q, c[0].cp_cols,
               c[1].cp_cols);
    }
    cp_(w, 0, 34, 2, 0, 0, 0); /* the run goes on in cell 1 */
    EXPECT(w->cells[0][1].cp_cols == 0xFu, "cell 1 after columns 34..35: %#x", w->cells[0][1].cp_cols);
    expect_clean(w, "cps of one thread on disjoint columns of a cell");
    /* a read of 2 columns inside cell 1 by another warp, ordered after nothing: reported on cell 1 */
    fence_after(w, 1);
    ld(w, 1, 0, 40, 2);
    expect_race(w, "a 2-column ld inside a cell, unordered after the cp", HB_CP, HB_LD);
    EXPECT(w->raced && w->cell_col == 32 && w->cell_lane == 0, "at cell column %u lane %u", w->cell_col, w->cell_lane);
    free(w);
    /* a cp on columns its run already wrote is not part of the run: cp -> cp is not ordered */
    w = world_new();
    agent(w, 0, 0, 1);
    alloc_(w, 0, 0, 512);
    fence_after(w, 0);
    cp_(w, 0, MX_SF, 4, 0, 0, 0);
    cp_(w, 0, MX_SF + 4u, 8, 0, 0, 0);
    cp_(w, 0, MX_SF + 2u, 4, 0, 0, 0);
    expect_race(w, "a cp over columns an earlier cp of the thread wrote (cp -> cp is not pipelined)", HB_CP, HB_CP);
    free(w);
}

/* ================================================================ main */

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"correct_cg1", case_correct_cg1},
        {"correct_cg2", case_correct_cg2},
        {"release_early", case_release_early},
        {"release_early_mma_first", case_release_early_mma_first},
        {"dealloc_before_last_ld", case_dealloc_before_last_ld},
        {"missing_peer_signal", case_missing_peer_signal},
        {"missing_cluster_sync_after_alloc", case_missing_cluster_sync_after_alloc},
        {"address_handoff", case_address_handoff},
        {"mma_pipeline", case_mma_pipeline},
        {"phases", case_phases},
        {"barrier_init", case_barrier_init},
        {"producer_tail", case_producer_tail},
        {"tma_operands", case_tma_operands},
        {"proxy_epilogue_clean", case_proxy_epilogue_clean},
        {"proxy_refill_before_wait_read", case_proxy_refill_before_wait_read},
        {"proxy_tile_refill_before_wait", case_proxy_tile_refill_before_wait},
        {"proxy_write_before_wait_read", case_proxy_write_before_wait_read},
        {"proxy_missing_fence", case_proxy_missing_fence},
        {"proxy_read_before_load_wait", case_proxy_read_before_load_wait},
        {"proxy_cross_warp", case_proxy_cross_warp},
        {"proxy_bulk_groups", case_proxy_bulk_groups},
        {"mx_correct", case_mx_correct},
        {"mx_one_slot", case_mx_one_slot},
        {"mx_cp_unfenced", case_mx_cp_unfenced},
        {"mx_scales_freed_early", case_mx_scales_freed_early},
        {"mx_cp_pipelined", case_mx_cp_pipelined},
        {"mx_cells", case_mx_cells},
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0 && strcmp(argv[1], "all") != 0) continue;
        printf("test_tmem_hb %s\n", cases[i].name);
        int before = g_failures;
        cases[i].run();
        printf("  %s\n", g_failures == before ? "PASS" : "FAILED");
        ran++;
    }
    for (size_t i = 0; i < sizeof kCg1Cases / sizeof kCg1Cases[0]; i++) {
        if (argc > 1 && strcmp(argv[1], kCg1Cases[i].name) != 0 && strcmp(argv[1], "all") != 0) continue;
        printf("test_tmem_hb %s\n", kCg1Cases[i].name);
        int before = g_failures;
        run_cg1_case(&kCg1Cases[i]);
        printf("  %s\n", g_failures == before ? "PASS" : "FAILED");
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown case %s\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    return g_failures ? 1 : 0;
}
