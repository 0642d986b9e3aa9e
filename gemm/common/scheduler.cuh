// SPDX-License-Identifier: MIT
/*
 * gemm/common/scheduler.cuh - the persistent tile scheduler shared by the sm90 and sm100 kernels.
 * Plain C, host + device (the launcher sizes the grid with the same arithmetic the kernel decodes with).
 *
 * The work of one call is a list of units; unit u is one output tile pair for one cluster:
 *
 *   u = ((batch * splits + split) * tiles_per_problem) + t
 *
 * and t walks the tile grid in GROUPED order: the grid of row_groups x cols tiles (a "row" here is one
 * cluster's worth of tiles along the first axis: cluster_rows adjacent tiles that share the second-axis
 * operand, multicast) is cut into bands of `group` rows; a band is swept column by column, each column
 * visiting the band's rows. Clusters running at the same time (consecutive u) then touch `group` row
 * operands and about (clusters / group) column operands, which stay in L2 (Triton's "grouped ordering";
 * for 132 SMs and 128 x 256 tiles, group 8 keeps the working set of a wave near 20 MB of the 50-60 MB L2).
 *
 * Persistent loop: cluster c of C clusters takes u = c, c + C, c + 2C, ... (static round robin, so the
 * assignment and thus every result bit is independent of timing).
 *
 * The hybrid schedule (data-parallel waves + a split region). With splits == 1, the tile units
 * [0, sk_first) run as above, each with the whole K, and the rest, the tile units [sk_first, tile units)
 * (the ragged last wave; or every tile, for a grid smaller than one wave), are each split along K into
 * sk_splits units, which take the clusters the last wave would leave idle:
 *
 *   u < sk_first             tile unit u, K blocks [0, k_blocks), written to C by the kernel's epilogue
 *   u = sk_first + r*S + s   tile unit sk_first + r, split s of S = sk_splits (K blocks
 *                            [s*sk_kb_per_split, min((s+1)*sk_kb_per_split, k_blocks))), written as fp32
 *                            to partial slot (r * cluster_rows + rank, s)
 *
 * A second kernel adds each slot's partials in split order 0, 1, ..., S-1 (wsgemm_sk_sum) and writes C.
 * Which cluster ran a unit never enters the result: the slot, split and K range of every unit are functions
 * of u alone, and the order of the sum is fixed, so the bits depend only on the shape and the plan.
 */
#ifndef WSGEMM_COMMON_SCHEDULER_CUH
#define WSGEMM_COMMON_SCHEDULER_CUH

#ifndef WSGEMM_HD
#ifdef __CUDACC__
#define WSGEMM_HD __host__ __device__
#else
#define WSGEMM_HD
#endif
#endif

typedef struct wsgemm_sched {
    int row_groups;         /* cluster rows: ceil(tiles along the first axis / cluster_rows) */
    int cols;               /* tiles along the second axis */
    int cluster_rows;       /* CTAs per cluster, adjacent along the first axis (sm90: 1, 2 or 4; sm100: 1 or 2) */
    int group;              /* rows per band of the grouped order (>= 1) */
    int splits;             /* split-K factor (>= 1) */
    int batch;              /* problems of a strided batch (>= 1) */
    int k_blocks;           /* K blocks of the whole reduction */
    int k_blocks_per_split; /* the last split may get fewer; every split gets at least one */
    long long units;        /* all units: row_groups * cols * splits * batch, plus the split region's extra units */
    /* the hybrid's split region (wsgemm_sched_split_tail); none: sk_first == units, sk_splits == 1 */
    long long sk_first;  /* first unit (and first tile unit) of the split region */
    int sk_splits;       /* K splits of each of its tiles */
    int sk_kb_per_split; /* the last split may get fewer; every split gets at least one */
} wsgemm_sched;

typedef struct wsgemm_sched_unit {
    int row; /* tile index along the first axis, for this CTA (cluster row * cluster_rows + rank) */
    int col; /* tile index along the second axis */
    int batch;
    int split;
    int kb_begin; /* first K block (in units of the kernel's BK) */
    int kb_end;   /* one past the last */
    int slot;     /* split region: this CTA's partial slot (r * cluster_rows + rank); -1 elsewhere */
} wsgemm_sched_unit;

static inline WSGEMM_HD int wsgemm_ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

/* A split count clamped so that every split has at least one K block, all but the last the same count
 * (*kb_per_split), and none is empty. */
static inline WSGEMM_HD int wsgemm_sched_clamp_splits(int splits, int k_blocks, int *kb_per_split)
{
    if (splits < 1) splits = 1;
    if (splits > k_blocks) splits = k_blocks;
    *kb_per_split = wsgemm_ceil_div(k_blocks, splits);
    return wsgemm_ceil_div(k_blocks, *kb_per_split);
}

/* tiles_rows, tiles_cols: output tiles along each axis; k_blocks = ceil(K / BK). splits is clamped so
 * that every split has at least one K block and all splits but the last have the same count. */
static inline WSGEMM_HD wsgemm_sched wsgemm_sched_make(int tiles_rows, int tiles_cols, int cluster_rows, int group,
                                                       int splits, int batch, int k_blocks)
{
    wsgemm_sched s;
    s.cluster_rows = cluster_rows < 1 ? 1 : cluster_rows;
    s.row_groups = wsgemm_ceil_div(tiles_rows, s.cluster_rows);
    s.cols = tiles_cols;
    s.group = group < 1 ? 1 : group;
    s.splits = wsgemm_sched_clamp_splits(splits, k_blocks, &s.k_blocks_per_split);
    s.batch = batch;
    s.k_blocks = k_blocks;
    s.units = (long long)s.row_groups * s.cols * s.splits * s.batch;
    s.sk_first = s.units;
    s.sk_splits = 1;
    s.sk_kb_per_split = k_blocks;
    return s;
}

/* Turn a plain schedule (splits == 1) into the hybrid: tile units [dp_units, tile units) are split into
 * sk_splits units each. Nothing changes when dp_units covers every tile, when sk_splits clamps to 1, or
 * for a split-K schedule. */
static inline WSGEMM_HD void wsgemm_sched_split_tail(wsgemm_sched *s, long long dp_units, int sk_splits)
{
    const long long tiles = (long long)s->row_groups * s->cols * s->batch;
    int kb_per = s->k_blocks;
    sk_splits = wsgemm_sched_clamp_splits(sk_splits, s->k_blocks, &kb_per);
    if (s->splits != 1 || dp_units < 0 || dp_units >= tiles || sk_splits < 2) return;
    s->sk_first = dp_units;
    s->sk_splits = sk_splits;
    s->sk_kb_per_split = kb_per;
    s->units = dp_units + (tiles - dp_units) * sk_splits;
}

/* CTA tiles (partial slots) of the split region: each holds sk_splits partial tiles. */
static inline WSGEMM_HD long long wsgemm_sched_sk_slots(const wsgemm_sched *s)
{
    return s->sk_splits > 1 ? (s->units - s->sk_first) / s->sk_splits * s->cluster_rows : 0;
}

/* Unit u < sk_first (every unit of a schedule without a split region) for the CTA of rank `rank` in its
 * cluster: a tile with the whole K, or a plain split-K split. */
static inline WSGEMM_HD wsgemm_sched_unit wsgemm_sched_decode_plain(const wsgemm_sched *s, long long u, int rank)
{
    wsgemm_sched_unit w;
    long long per_problem = (long long)s->row_groups * s->cols;
    long long problem = u / per_problem; /* batch * splits + split */
    int t = (int)(u - problem * per_problem);
    w.split = (int)(problem % s->splits);
    w.batch = (int)(problem / s->splits);

    int band_size = s->group * s->cols; /* units per full band */
    int band = t / band_size;
    int first_row = band * s->group;
    int rows_here = s->row_groups - first_row; /* the last band may be shorter */
    if (rows_here > s->group) rows_here = s->group;
    int in_band = t - band * band_size;
    int row_group = first_row + in_band % rows_here;
    w.col = in_band / rows_here;
    w.row = row_group * s->cluster_rows + rank;

    w.kb_begin = w.split * s->k_blocks_per_split;
    w.kb_end = w.kb_begin + s->k_blocks_per_split;
    if (w.kb_end > s->k_blocks) w.kb_end = s->k_blocks;
    w.slot = -1;
    return w;
}

/* Any unit u for the CTA of rank `rank` in its cluster. The split region's index arithmetic is 32-bit: it
 * holds fewer than 2^31 units (the planner's is at most a wave and a half of tiles, split at most 16 ways). */
static inline WSGEMM_HD wsgemm_sched_unit wsgemm_sched_decode(const wsgemm_sched *s, long long u, int rank)
{
    if (u < s->sk_first) return wsgemm_sched_decode_plain(s, u, rank);
    const int j = (int)(u - s->sk_first), r = j / s->sk_splits, sk = j - r * s->sk_splits;
    wsgemm_sched_unit w = wsgemm_sched_decode_plain(s, s->sk_first + r, rank); /* the tile (splits == 1) */
    w.split = sk;
    w.slot = r * s->cluster_rows + rank;
    w.kb_begin = sk * s->sk_kb_per_split;
    w.kb_end = w.kb_begin + s->sk_kb_per_split;
    if (w.kb_end > s->k_blocks) w.kb_end = s->k_blocks;
    return w;
}

/* The tile of partial slot `slot` of the split region (split 0's unit; every split has the same tile). */
static inline WSGEMM_HD wsgemm_sched_unit wsgemm_sched_slot_tile(const wsgemm_sched *s, long long slot)
{
    const long long r = slot / s->cluster_rows;
    return wsgemm_sched_decode(s, s->sk_first + r * s->sk_splits, (int)(slot - r * s->cluster_rows));
}

/* The fixed order of the split region's reduction: element e of a slot whose `splits` partial tiles lie
 * `stride` floats apart, added in split order 0, 1, ..., splits-1 from +0 (as the split-K reduction adds its
 * partials). */
static inline WSGEMM_HD float wsgemm_sk_sum(const float *part, int splits, long long stride)
{
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += part[s * stride];
    return sum;
}

#endif /* WSGEMM_COMMON_SCHEDULER_CUH */
