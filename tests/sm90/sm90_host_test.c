/*
 * sm90_host_test.c - CPU checks of the host+device pieces the sm90 (and sm100) kernels rely on.
 *
 *   sched  the persistent tile scheduler (gemm/common/scheduler.cuh): for many grid shapes, cluster sizes,
 *          group sizes, split counts and batches, every (tile row, tile col, batch, K block) is produced
 *          exactly once, the CTAs of a cluster share the column, batch and K range and take adjacent rows,
 *          and the split K ranges tile [0, k_blocks) in order. A planted fault (a decoder that drops the
 *          last unit) must be caught, to prove the checker can fail.
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
            if (w.col != w0.col || w.batch != w0.batch || w.kb_begin != w0.kb_begin || w.kb_end != w0.kb_end ||
                w.row != w0.row + r || w0.row % s.cluster_rows != 0) {
                bad++;
                continue;
            }
            if (w.row < 0 || w.row >= rows_padded || w.col < 0 || w.col >= tiles_cols || w.batch < 0 ||
                w.batch >= batch || w.kb_begin < 0 || w.kb_end > k_blocks || w.kb_begin >= w.kb_end) {
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
                                       rows[a], cols[b], clusters[c], groups[g], splits[sp], batches[bt], kbs[kb],
                                       bad);
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
           "decode: start %x lbo %u sbo %u base %u swizzle %u", f.start_smem, f.lbo_bytes, f.sbo_bytes,
           f.base_offset, f.swizzle);
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
    if (!strcmp(which, "all") || !strcmp(which, "desc")) test_desc();
    printf("%s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
