// SPDX-License-Identifier: MIT
/*
 * gemm/sm90/sm90_probe.h - the tests' view of what the sm90 launchers last ran on the calling thread: the
 * epilogue, the cluster size, the split region's K splits and the tile width; the grouped kernel's tile width.
 * A test probe, not part of the launcher contract (internal.h); a build without the sm90 path answers "none"
 * (gemm/paths_absent.c).
 */
#ifndef WSGEMM_SM90_PROBE_H
#define WSGEMM_SM90_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The epilogue of the last sm90 kernel this thread launched (the values of wsgemm_epilogue_kind). */
typedef enum {
    WSGEMM_SM90_EPILOGUE_NONE = 0,     /* no sm90 launch yet */
    WSGEMM_SM90_EPILOGUE_DIRECT = 1,   /* predicated stores from registers */
    WSGEMM_SM90_EPILOGUE_TMA = 2,      /* smem + TMA store at the end of each tile */
    WSGEMM_SM90_EPILOGUE_DEFERRED = 3, /* smem + TMA store during the next tile's main loop */
    WSGEMM_SM90_EPILOGUE_STAGED = 4    /* the C tile in smem (loaded by TMA under the main loop when beta != 0),
                                          stored by TMA behind the next tile's main loop */
} wsgemm_sm90_epilogue;
wsgemm_sm90_epilogue wsgemm_sm90_last_epilogue(void);
/* The cluster size (CTAs) of that launch; 0 when none (also per thread). */
int wsgemm_sm90_last_cluster(void);
/* The K splits of that launch's split region (a hybrid schedule, common/scheduler.cuh): 1 when it ran all
 * tiles with the whole K (or as plain split-K), 0 when none (also per thread). */
int wsgemm_sm90_last_sk_splits(void);
/* The tile width (BN: 64, 128, 192 or 256) of that launch; 0 when none (also per thread). */
int wsgemm_sm90_last_bn(void);
/* 1 when that launch was planned with a tuning cache entry's settings (common/tune_cache.h), else 0. */
int wsgemm_sm90_last_tuned(void);

/* The tile width (BN: 128 or 256) of the last sm90 grouped kernel this thread launched; 0 when none. */
int wsgemm_sm90_last_grouped_bn(void);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM90_PROBE_H */
