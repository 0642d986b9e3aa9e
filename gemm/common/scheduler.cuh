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
    int row_groups;       /* cluster rows: ceil(tiles along the first axis / cluster_rows) */
    int cols;             /* tiles along the second axis */
    int cluster_rows;     /* CTAs per cluster, adjacent along the first axis (1 or 2) */
    int group;            /* rows per band of the grouped order (>= 1) */
    int splits;           /* split-K factor (>= 1) */
    int batch;            /* problems of a strided batch (>= 1) */
    int k_blocks;         /* K blocks of the whole reduction */
    int k_blocks_per_split; /* the last split may get fewer; every split gets at least one */
    long long units;      /* row_groups * cols * splits * batch */
} wsgemm_sched;

typedef struct wsgemm_sched_unit {
    int row;      /* tile index along the first axis, for this CTA (cluster row * cluster_rows + rank) */
    int col;      /* tile index along the second axis */
    int batch;
    int split;
    int kb_begin; /* first K block (in units of the kernel's BK) */
    int kb_end;   /* one past the last */
} wsgemm_sched_unit;

static inline WSGEMM_HD int wsgemm_ceil_div(int a, int b)
{
    return (a + b - 1) / b;
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
    if (splits < 1) splits = 1;
    if (splits > k_blocks) splits = k_blocks;
    s.k_blocks_per_split = wsgemm_ceil_div(k_blocks, splits);
    s.splits = wsgemm_ceil_div(k_blocks, s.k_blocks_per_split); /* no empty split at the end */
    s.batch = batch;
    s.k_blocks = k_blocks;
    s.units = (long long)s.row_groups * s.cols * s.splits * s.batch;
    return s;
}

/* Unit u for the CTA of rank `rank` in its cluster. */
static inline WSGEMM_HD wsgemm_sched_unit wsgemm_sched_decode(const wsgemm_sched *s, long long u, int rank)
{
    wsgemm_sched_unit w;
    long long per_problem = (long long)s->row_groups * s->cols;
    long long problem = u / per_problem; /* batch * splits + split */
    int t = (int)(u - problem * per_problem);
    w.split = (int)(problem % s->splits);
    w.batch = (int)(problem / s->splits);

    int band_size = s->group * s->cols;          /* units per full band */
    int band = t / band_size;
    int first_row = band * s->group;
    int rows_here = s->row_groups - first_row;   /* the last band may be shorter */
    if (rows_here > s->group) rows_here = s->group;
    int in_band = t - band * band_size;
    int row_group = first_row + in_band % rows_here;
    w.col = in_band / rows_here;
    w.row = row_group * s->cluster_rows + rank;

    w.kb_begin = w.split * s->k_blocks_per_split;
    w.kb_end = w.kb_begin + s->k_blocks_per_split;
    if (w.kb_end > s->k_blocks) w.kb_end = s->k_blocks;
    return w;
}

#endif /* WSGEMM_COMMON_SCHEDULER_CUH */
