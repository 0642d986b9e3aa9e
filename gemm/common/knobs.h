/*
 * gemm/common/knobs.h - the tuning knobs of the fast paths, read from the environment in one place. Host C.
 *
 * Every WSGEMM_SM90_* variable is read here, once, at the first call that asks (wsgemm_knobs_get), into one
 * struct that the plans take as an argument; docs/tuning.md lists them. None is needed for correctness:
 * they force a choice the plan would make by itself (for tuning runs and for tests that must reach a code
 * path a default run would not take). A process that changes the environment after its first GEMM call
 * (the tests, tests/sm90/sm90_tune) calls wsgemm_knobs_reload to make the plans see it.
 */
#ifndef WSGEMM_COMMON_KNOBS_H
#define WSGEMM_COMMON_KNOBS_H

#ifdef __cplusplus
extern "C" {
#endif

/* WSGEMM_SM90_EPILOGUE: which epilogue the sm90 plan may choose. */
typedef enum wsgemm_epilogue_pref {
    WSGEMM_EPILOGUE_PREF_AUTO = 0, /* unset: the plan's choice */
    WSGEMM_EPILOGUE_PREF_TMA,      /* "tma": smem chunks + TMA store at the end of each tile, never deferred or
                                      staged */
    WSGEMM_EPILOGUE_PREF_DIRECT,   /* "direct": per-element stores from registers */
    WSGEMM_EPILOGUE_PREF_STAGED    /* "staged": the C tile in smem wherever C allows TMA stores, beta == 0 too */
} wsgemm_epilogue_pref;

typedef struct wsgemm_knobs {
    int sm90_debug;   /* WSGEMM_SM90_DEBUG=1: the launcher prints its plan to stderr */
    int sm90_swap;    /* WSGEMM_SM90_SWAP=0|1: orientation of problems whose small side exceeds 256 (default 1) */
    int sm90_bn;      /* WSGEMM_SM90_BN=64|128|256: tile width; 0 (unset or another value): chosen */
    int sm90_variant; /* WSGEMM_SM90_VARIANT=0..3: kernel variant where it exists (sm90_plan.h) */
    int sm90_splitk;  /* WSGEMM_SM90_SPLITK=n > 0: exactly n K splits (clamped to the K blocks); 0: chosen */
    int sm90_group;   /* WSGEMM_SM90_GROUP=g: rows per band of the grouped tile order (default 8) */
    int sm90_hybrid;  /* WSGEMM_SM90_HYBRID: -1 (unset) the plan chooses; 0 (0 or 1) never; n >= 2 a split region
                         of n K splits wherever the last wave is ragged (common/scheduler.cuh) */
    wsgemm_epilogue_pref sm90_epilogue; /* WSGEMM_SM90_EPILOGUE=tma|direct|staged */
} wsgemm_knobs;

/* The knobs with no variable set. */
wsgemm_knobs wsgemm_knobs_defaults(void);
/* The knobs as the environment sets them now. */
wsgemm_knobs wsgemm_knobs_from_env(void);
/* The process's knobs: read from the environment at the first call, then kept. Thread-safe. */
const wsgemm_knobs *wsgemm_knobs_get(void);
/* Read the environment again. Only while no other thread is inside a wsgemm call. */
void wsgemm_knobs_reload(void);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_KNOBS_H */
