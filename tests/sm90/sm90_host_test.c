// SPDX-License-Identifier: MIT
/*
 * sm90_host_test.c - CPU checks of the host+device pieces the sm90 (and sm100) kernels rely on.
 *
 *   sched  the persistent tile scheduler (gemm/common/scheduler.cuh): for many grid shapes, cluster sizes,
 *          group sizes, split counts and batches, every (tile row, tile col, batch, K block) is produced
 *          exactly once, the CTAs of a cluster share the column, batch and K range and take adjacent rows,
 *          and the split K ranges tile [0, k_blocks) in order. A planted fault (a decoder that drops the
 *          last unit) must be caught, to prove the checker can fail.
 *   hybrid the hybrid schedule (data-parallel waves, then a split region): for many grids, cluster sizes
 *          1/2/4, groups, batches, K block counts, data-parallel prefixes (whole waves of 1..132 clusters, one
 *          wave fewer, all but one tile, none) and split counts, every (tile, batch, K block) is produced
 *          exactly once; data-parallel units take the whole K and no slot; each split-region CTA tile has one
 *          slot, its splits are the units after one another and tile [0, k_blocks) in split order, and the
 *          slot's tile (what the reduction writes) is the one its units computed; the slots are numbered
 *          0..slots-1 without gaps. The reduction's sum (wsgemm_sk_sum) adds in split order, on values whose
 *          reversed sum has other bits. A planted fault (a split region that loses its last split) must be
 *          caught.
 *   desc   the wgmma shared-memory descriptor (gemm/sm90/wgmma.cuh): fields land at the PTX ISA bit
 *          positions (start 0-13, LBO 16-29, SBO 32-45, base offset 49-51, swizzle 62-63) and decode back.
 * Prints what it checked; exits 1 on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scheduler.cuh"
#include "sm90/wgmma.cuh"
#include "testing.h"

static int failures;

#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* Rank r's unit w of a cluster whose rank 0 has w0: the same column, batch, split and K range, the adjacent
 * row, and inside the grid (rows padded to whole clusters). */
static int cluster_unit_ok(const wsgemm_sched *s, wsgemm_sched_unit w0, wsgemm_sched_unit w, int r, int tiles_cols,
                           int batch, int k_blocks)
{
    const int rows_padded = s->row_groups * s->cluster_rows;
    return w.col == w0.col && w.batch == w0.batch && w.kb_begin == w0.kb_begin && w.kb_end == w0.kb_end &&
           w.split == w0.split && w.row == w0.row + r && w0.row % s->cluster_rows == 0 && w.row >= 0 &&
           w.row < rows_padded && w.col >= 0 && w.col < tiles_cols && w.batch >= 0 && w.batch < batch &&
           w.kb_begin >= 0 && w.kb_end <= k_blocks && w.kb_begin < w.kb_end;
}

/* Returns the number of problems found for one configuration. drop_last plants a fault. */
static int check_schedule(int tiles_rows, int tiles_cols, int cluster, int group, int splits, int batch, int k_blocks,
                          int drop_last)
{
    wsgemm_sched s = wsgemm_sched_make(tiles_rows, tiles_cols, cluster, group, splits, batch, k_blocks);
    int rows_padded = s.row_groups * s.cluster_rows;
    size_t cells = (size_t)rows_padded * tiles_cols * batch * k_blocks;
    unsigned char *seen = calloc(cells, 1);
    int bad = 0;
    long long units = s.units - (drop_last ? 1 : 0);
    for (long long u = 0; u < units; ++u) {
        wsgemm_sched_unit w0 = wsgemm_sched_decode(&s, u, 0);
        for (int r = 0; r < s.cluster_rows; ++r) {
            wsgemm_sched_unit w = wsgemm_sched_decode(&s, u, r);
            if (!cluster_unit_ok(&s, w0, w, r, tiles_cols, batch, k_blocks)) {
                bad++;
                continue;
            }
            for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
                size_t i = (((size_t)w.batch * rows_padded + w.row) * tiles_cols + w.col) * k_blocks + kb;
                if (seen[i]++) bad++;
            }
        }
    }
    for (size_t i = 0; i < cells; ++i)
        if (seen[i] != 1) bad++;
    free(seen);
    return bad;
}

static void test_sched(void)
{
    const int rows[] = {1, 2, 3, 7, 33, 64};
    const int cols[] = {1, 5, 31};
    const int clusters[] = {1, 2};
    const int groups[] = {1, 3, 8};
    const int splits[] = {1, 2, 3, 5, 16};
    const int batches[] = {1, 3};
    const int kbs[] = {1, 17, 128};
    int configs = 0;
    for (size_t a = 0; a < sizeof rows / sizeof rows[0]; ++a)
        for (size_t b = 0; b < sizeof cols / sizeof cols[0]; ++b)
            for (size_t c = 0; c < 2; ++c)
                for (size_t g = 0; g < 3; ++g)
                    for (size_t sp = 0; sp < 5; ++sp)
                        for (size_t bt = 0; bt < 2; ++bt)
                            for (size_t kb = 0; kb < sizeof kbs / sizeof kbs[0]; ++kb) {
                                int bad = check_schedule(rows[a], cols[b], clusters[c], groups[g], splits[sp],
                                                         batches[bt], kbs[kb], 0);
                                EXPECT(bad == 0,
                                       "rows %d cols %d cluster %d group %d splits %d batch %d k_blocks %d: %d "
                                       "problems",
                                       rows[a], cols[b], clusters[c], groups[g], splits[sp], batches[bt], kbs[kb], bad);
                                configs++;
                            }
    printf("sched: %d configurations cover every (row, col, batch, K block) exactly once\n", configs);

    /* grouped order: consecutive units stay inside a band of `group` cluster rows */
    wsgemm_sched s = wsgemm_sched_make(64, 32, 2, 8, 1, 1, 64);
    for (long long u = 0; u < 8 * 32; ++u) {
        wsgemm_sched_unit w = wsgemm_sched_decode(&s, u, 0);
        EXPECT(w.row / 2 < 8, "unit %lld of the first band is in cluster row %d", u, w.row / 2);
        EXPECT(w.col == (int)(u / 8), "unit %lld: col %d, expected %lld", u, w.col, u / 8);
    }
    printf("sched: grouped order keeps the first %d units in the first band of 8 cluster rows\n", 8 * 32);

    /* split ranges are contiguous and in order */
    s = wsgemm_sched_make(4, 4, 1, 8, 3, 1, 10);
    EXPECT(s.splits == 3 && s.k_blocks_per_split == 4, "splits %d per split %d", s.splits, s.k_blocks_per_split);
    s = wsgemm_sched_make(4, 4, 1, 8, 16, 1, 10);
    EXPECT(s.splits == 10 && s.k_blocks_per_split == 1, "splits clamp to k_blocks: %d", s.splits);
    s = wsgemm_sched_make(4, 4, 1, 8, 4, 1, 9); /* 3,3,3: ceil(9/4)=3 per split, so only 3 splits */
    EXPECT(s.splits == 3, "no empty split: %d", s.splits);

    /* the checker can fail */
    int planted = check_schedule(7, 5, 2, 3, 2, 1, 17, 1);
    EXPECT(planted > 0, "a decoder that drops the last unit was not caught");
    printf("sched: planted fault (last unit dropped) caught: %d problems\n", planted);
}

/* The hybrid schedule of one configuration; returns the problems found. fault 1: the last unit is dropped;
 * fault 2: none. */
static int check_hybrid(int tiles_rows, int tiles_cols, int cluster, int group, int batch, int k_blocks,
                        long long dp_units, int sk_splits, int fault)
{
    wsgemm_sched s = wsgemm_sched_make(tiles_rows, tiles_cols, cluster, group, 1, batch, k_blocks);
    const long long tiles = s.units;
    wsgemm_sched_split_tail(&s, dp_units, sk_splits);
    int bad = 0;
    const int region = s.sk_splits > 1;
    if (region) {
        int kb_per = 0;
        const int want_splits = wsgemm_sched_clamp_splits(sk_splits, k_blocks, &kb_per);
        if (s.sk_first != dp_units || s.sk_splits != want_splits || s.sk_kb_per_split != kb_per ||
            s.units != dp_units + (tiles - dp_units) * want_splits)
            bad++;
    } else if (s.units != tiles || s.sk_first != tiles) {
        bad++; /* no split region: the plain schedule, unchanged */
    }
    const int rows_padded = s.row_groups * s.cluster_rows;
    const long long slots = wsgemm_sched_sk_slots(&s);
    const size_t cells = (size_t)rows_padded * tiles_cols * batch * k_blocks;
    unsigned char *seen = calloc(cells, 1);
    /* per slot: the tile its units computed and the next split expected */
    int *slot_next = calloc((size_t)(slots > 0 ? slots : 1), sizeof(int));
    const long long units = s.units - (fault == 1 ? 1 : 0);
    for (long long u = 0; u < units; ++u) {
        const wsgemm_sched_unit w0 = wsgemm_sched_decode(&s, u, 0);
        for (int r = 0; r < s.cluster_rows; ++r) {
            const wsgemm_sched_unit w = wsgemm_sched_decode(&s, u, r);
            if (!cluster_unit_ok(&s, w0, w, r, tiles_cols, batch, k_blocks)) {
                bad++;
                continue;
            }
            if (u < s.sk_first) { /* data-parallel: the whole K, straight to C (the kernels decode it plainly) */
                const wsgemm_sched_unit p = wsgemm_sched_decode_plain(&s, u, r);
                if (w.slot != -1 || w.kb_begin != 0 || w.kb_end != k_blocks || w.split != 0 || p.row != w.row ||
                    p.col != w.col || p.batch != w.batch || p.kb_end != w.kb_end || p.slot != -1)
                    bad++;
            } else { /* the split region: this unit is the next split of its slot, in order */
                if (w.slot < 0 || w.slot >= slots || w.slot != w0.slot + r) {
                    bad++;
                    continue;
                }
                const wsgemm_sched_unit t = wsgemm_sched_slot_tile(&s, w.slot);
                if (t.row != w.row || t.col != w.col || t.batch != w.batch) bad++;
                if (w.split != slot_next[w.slot] || w.kb_begin != w.split * s.sk_kb_per_split) bad++;
                slot_next[w.slot] = w.split + 1;
            }
            for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
                size_t i = (((size_t)w.batch * rows_padded + w.row) * tiles_cols + w.col) * k_blocks + kb;
                if (seen[i]++) bad++;
            }
        }
    }
    for (size_t i = 0; i < cells; ++i)
        if (seen[i] != 1) bad++;
    for (long long sl = 0; sl < slots; ++sl) /* every slot got all its splits (none skipped: numbered densely) */
        if (slot_next[sl] != s.sk_splits) bad++;
    free(slot_next);
    free(seen);
    return bad;
}

static void test_hybrid(void)
{
    const int rows[] = {1, 3, 8, 24, 33};
    const int cols[] = {1, 4, 12};
    const int clusters[] = {1, 2, 4};
    const int groups[] = {1, 8};
    const int batches[] = {1, 3};
    const int kbs[] = {1, 5, 48};
    const int grids[] = {1, 7, 33, 66, 132};
    const int sk[] = {2, 3, 5, 16};
    int configs = 0;
    for (size_t a = 0; a < sizeof rows / sizeof rows[0]; ++a)
        for (size_t b = 0; b < sizeof cols / sizeof cols[0]; ++b)
            for (size_t c = 0; c < sizeof clusters / sizeof clusters[0]; ++c)
                for (size_t g = 0; g < sizeof groups / sizeof groups[0]; ++g)
                    for (size_t bt = 0; bt < sizeof batches / sizeof batches[0]; ++bt)
                        for (size_t kb = 0; kb < sizeof kbs / sizeof kbs[0]; ++kb) {
                            const wsgemm_sched plain =
                                wsgemm_sched_make(rows[a], cols[b], clusters[c], groups[g], 1, batches[bt], kbs[kb]);
                            /* data-parallel prefixes: the full waves of each grid, one wave fewer, all but one
                             * tile, none */
                            long long dps[2 * sizeof grids / sizeof grids[0] + 2];
                            int n_dp = 0;
                            for (size_t gr = 0; gr < sizeof grids / sizeof grids[0]; ++gr) {
                                const long long full = plain.units / grids[gr] * grids[gr];
                                dps[n_dp++] = full;
                                if (full >= grids[gr]) dps[n_dp++] = full - grids[gr];
                            }
                            dps[n_dp++] = plain.units - 1;
                            dps[n_dp++] = 0;
                            for (int d = 0; d < n_dp; ++d)
                                for (size_t sp = 0; sp < sizeof sk / sizeof sk[0]; ++sp) {
                                    const int bad = check_hybrid(rows[a], cols[b], clusters[c], groups[g], batches[bt],
                                                                 kbs[kb], dps[d], sk[sp], 0);
                                    EXPECT(bad == 0,
                                           "hybrid rows %d cols %d cluster %d group %d batch %d k_blocks %d dp %lld "
                                           "splits %d: %d problems",
                                           rows[a], cols[b], clusters[c], groups[g], batches[bt], kbs[kb], dps[d],
                                           sk[sp], bad);
                                    configs++;
                                }
                        }
    printf("hybrid: %d configurations cover every (tile, batch, K block) exactly once, splits in order per slot\n",
           configs);

    /* 3072^3 at 128 x 256 with 2-CTA clusters on 66 clusters: 144 units, 132 data-parallel, 12 split 5 ways */
    wsgemm_sched s = wsgemm_sched_make(24, 12, 2, 8, 1, 1, 48);
    wsgemm_sched_split_tail(&s, 132, 5);
    EXPECT(s.units == 132 + 12 * 5 && s.sk_kb_per_split == 10 && wsgemm_sched_sk_slots(&s) == 24,
           "3072^3: %lld units, %d K blocks per split, %lld slots", s.units, s.sk_kb_per_split,
           wsgemm_sched_sk_slots(&s));
    /* no split region: a split-K schedule, a prefix that covers every tile, one split */
    s = wsgemm_sched_make(24, 12, 2, 8, 2, 1, 48);
    wsgemm_sched_split_tail(&s, 10, 4);
    EXPECT(s.sk_splits == 1 && s.sk_first == s.units, "split-K schedule took a split region");
    s = wsgemm_sched_make(24, 12, 2, 8, 1, 1, 48);
    wsgemm_sched_split_tail(&s, 144, 4);
    EXPECT(s.sk_splits == 1 && s.units == 144, "a prefix of every tile took a split region");
    s = wsgemm_sched_make(24, 12, 2, 8, 1, 1, 1);
    wsgemm_sched_split_tail(&s, 100, 4);
    EXPECT(s.sk_splits == 1 && s.units == 144, "one K block took a split region");

    /* the reduction's order: 1e8 + 1 rounds back to 1e8 in fp32 (spacing 8 there), so the order shows in the
     * bits (running sums in split order: 1e8, 1e8, 0, 1; reversed: 1, -1e8, -1e8, 0) */
    const float part[8] = {1.0e8f, -7.0f, 1.0f, -7.0f, -1.0e8f, -7.0f, 1.0f, -7.0f}; /* stride 2 */
    float in_order = 0.0f;
    for (int i = 0; i < 4; ++i) in_order += part[2 * i];
    float reversed = 0.0f;
    for (int i = 3; i >= 0; --i) reversed += part[2 * i];
    const float got = wsgemm_sk_sum(part, 4, 2);
    EXPECT(memcmp(&got, &in_order, sizeof got) == 0 && in_order == 1.0f, "wsgemm_sk_sum %g, split order gives %g",
           (double)got, (double)in_order);
    EXPECT(memcmp(&reversed, &in_order, sizeof got) != 0, "the order test cannot tell orders apart (%g, %g)",
           (double)reversed, (double)in_order);

    /* the checkers can fail */
    const int planted = check_hybrid(24, 12, 2, 8, 1, 48, 132, 5, 1);
    EXPECT(planted > 0, "a split region without its last split was not caught");
    printf("hybrid: planted fault (last split dropped) caught: %d problems; sum in split order (1e8 + 1 - 1e8 + 1 "
           "= %g, reversed %g)\n",
           planted, (double)got, (double)reversed);
}

static void test_desc(void)
{
    uint64_t d = wgmma_desc_encode(0x12340, 8192, 1024, WGMMA_SWIZZLE_128B);
    EXPECT((d & 0x3FFF) == (0x12340 >> 4), "start field %llx", (unsigned long long)(d & 0x3FFF));
    EXPECT(((d >> 16) & 0x3FFF) == 8192 >> 4, "LBO field %llx", (unsigned long long)((d >> 16) & 0x3FFF));
    EXPECT(((d >> 32) & 0x3FFF) == 1024 >> 4, "SBO field %llx", (unsigned long long)((d >> 32) & 0x3FFF));
    EXPECT(((d >> 49) & 7) == 0, "base offset %llx", (unsigned long long)((d >> 49) & 7));
    EXPECT((d >> 62) == 1, "swizzle %llx (1 = 128B)", (unsigned long long)(d >> 62));
    uint64_t reserved = d & ~((0x3FFFull) | (0x3FFFull << 16) | (0x3FFFull << 32) | (7ull << 49) | (3ull << 62));
    EXPECT(reserved == 0, "reserved bits set: %llx", (unsigned long long)reserved);
    wgmma_desc_fields f = wgmma_desc_decode(d);
    EXPECT(f.start_smem == 0x12340 && f.lbo_bytes == 8192 && f.sbo_bytes == 1024 && f.base_offset == 0 &&
               f.swizzle == 1,
           "decode: start %x lbo %u sbo %u base %u swizzle %u", f.start_smem, f.lbo_bytes, f.sbo_bytes, f.base_offset,
           f.swizzle);
    /* the K-step arithmetic of the kernel adds (bytes >> 4) to the descriptor: it must move only the start */
    uint64_t k3 = d + ((3 * 32) >> 4);
    wgmma_desc_fields g = wgmma_desc_decode(k3);
    EXPECT(g.start_smem == 0x12340 + 96 && g.lbo_bytes == 8192 && g.sbo_bytes == 1024, "K step moved other fields");
    /* the largest start address of a 227 KB smem stays inside the 14-bit field */
    uint64_t hi = wgmma_desc_encode(227 * 1024 - 1024, 16, 1024, WGMMA_SWIZZLE_128B) + ((3 * 2048) >> 4);
    EXPECT(wgmma_desc_decode(hi).start_smem == 227 * 1024 - 1024 + 6144, "start field overflow");
    printf("desc: fields at bits 0-13 / 16-29 / 32-45 / 49-51 / 62-63, decode round trip, K steps\n");
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    if (!strcmp(which, "all") || !strcmp(which, "sched")) test_sched();
    if (!strcmp(which, "all") || !strcmp(which, "hybrid")) test_hybrid();
    if (!strcmp(which, "all") || !strcmp(which, "desc")) test_desc();
    printf("%s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
