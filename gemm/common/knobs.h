// SPDX-License-Identifier: MIT
/*
 * gemm/common/knobs.h - the tuning knobs of the fast paths, read from the environment in one place. Host C.
 *
 * Every WSGEMM_SM90_* and WSGEMM_SM100_* tuning variable is read here, once, at the first call that asks
 * (wsgemm_knobs_get), into one struct that the plans take as an argument; docs/tuning.md lists them. None is
 * needed for correctness: they force a choice the plan would make by itself (for tuning runs and for tests
 * that must reach a code path a default run would not take). So are the WSGEMM_SM100_SELF_CHECK* variables
 * of the sm100 self-check (gemm/sm100/self_check.h, docs/sm100.md), read here too with the cache folder it
 * keeps its verdicts in. A process that changes the environment after its first GEMM call (the tests,
 * tests/sm90/sm90_tune) calls wsgemm_knobs_reload to make the plans see it.
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

/* WSGEMM_SM100_SELF_CHECK: how AUTO gets the sm100 self-check verdict. */
typedef enum wsgemm_self_check_mode {
    WSGEMM_SELF_CHECK_CACHED = 0, /* unset or "cached": the process's verdict, else the disk's, else run it */
    WSGEMM_SELF_CHECK_FRESH,      /* "fresh": run the helper once in this process whatever the disk says */
    WSGEMM_SELF_CHECK_OFF,        /* "off": no self-check, and AUTO never uses sm100 */
    WSGEMM_SELF_CHECK_TRUST       /* "trust": no self-check, AUTO uses sm100 as if it had passed */
} wsgemm_self_check_mode;

enum { WSGEMM_KNOB_PATH_BYTES = 1024 };

typedef struct wsgemm_knobs {
    int sm90_debug;   /* WSGEMM_SM90_DEBUG=1: the launcher prints its plan to stderr */
    int sm90_swap;    /* WSGEMM_SM90_SWAP=0|1: orientation of problems whose small side exceeds 256 (default 1) */
    int sm90_bn;      /* WSGEMM_SM90_BN=64|128|192|256: tile width; 0 (unset or another value): chosen */
    int sm90_variant; /* WSGEMM_SM90_VARIANT=0..7: kernel variant (SM90_VARIANT_*, sm90/sm90_tile.h) where it
                         exists (sm90_plan.h) */
    int sm90_splitk;  /* WSGEMM_SM90_SPLITK=n > 0: exactly n K splits (clamped to the K blocks); 0: chosen */
    int sm90_group;   /* WSGEMM_SM90_GROUP=g: rows per band of the grouped tile order (default 8) */
    int sm90_hybrid;  /* WSGEMM_SM90_HYBRID: -1 (unset) the plan chooses; 0 (0 or 1) never; n >= 2 a split region
                         of n K splits wherever the last wave is ragged (common/scheduler.cuh) */
    wsgemm_epilogue_pref sm90_epilogue; /* WSGEMM_SM90_EPILOGUE=tma|direct|staged */
    int sm100_debug;                    /* WSGEMM_SM100_DEBUG=1: the sm100 launcher prints its plan to stderr */
    int sm100_cta_group; /* WSGEMM_SM100_CTA_GROUP=1|2: CTAs per MMA; 0 (unset or another value): chosen */
    int sm100_ctas;      /* WSGEMM_SM100_CTAS=n > 0: grid of n CTAs (rounded up to whole clusters); 0: chosen */
    int sm100_group;     /* WSGEMM_SM100_GROUP=g: rows per band of the grouped tile order (default 8) */
    int sm100_splitk;    /* WSGEMM_SM100_SPLITK=n > 0: exactly n K splits (clamped to the K blocks); 0: chosen */
    int sm100_clc;       /* WSGEMM_SM100_CLC=1: cluster launch control schedule where its kernel exists (bf16 C,
                            one K split); 0: the static schedule */
    wsgemm_epilogue_pref sm100_epilogue;     /* WSGEMM_SM100_EPILOGUE=direct: per-element stores; else chosen */
    wsgemm_self_check_mode sm100_self_check; /* WSGEMM_SM100_SELF_CHECK=cached|fresh|off|trust */
    int sm100_self_check_timeout_s;          /* WSGEMM_SM100_SELF_CHECK_TIMEOUT=s > 0 (default 120) */
    char sm100_self_check_helper[WSGEMM_KNOB_PATH_BYTES]; /* WSGEMM_SM100_SELF_CHECK_HELPER=path: this helper
                                                             and no other; "" (unset): looked up */
    int sm100_auto_emulated;                 /* WSGEMM_SM100_AUTO_EMULATED=1: on Hopper, AUTO treats the emulated sm100
                                               path as Blackwell's AUTO treats sm100 (self-check first); verification
                                               only */
    char cache_dir[WSGEMM_KNOB_PATH_BYTES];  /* $XDG_CACHE_HOME/wsgemm, else $HOME/.cache/wsgemm (an absolute
                                               XDG_CACHE_HOME / HOME only); "": no disk cache */
    char tune_cache[WSGEMM_KNOB_PATH_BYTES]; /* WSGEMM_TUNE_CACHE=path: the tuning cache the sm90 plan reads
                                                (common/tune_cache.h); "" (unset): none */
} wsgemm_knobs;

/* An integer variable of the environment: its value, or `fallback` when it is unset or empty. Read on every
 * call (the knobs below read their variables through it once; a verification switch of the emulated build reads
 * its own per call, so a test can change it in-process). */
int wsgemm_env_int(const char *name, int fallback);

/* The knobs with no variable set. */
wsgemm_knobs wsgemm_knobs_defaults(void);
/* The value of a knob's variable (NULL: unset), as a source of knobs answers it. */
typedef const char *(*wsgemm_knob_lookup)(void *ctx, const char *name);

/* The knobs as `lookup` answers for their variables (the tuning cache answers for a tuned shape). */
wsgemm_knobs wsgemm_knobs_from(wsgemm_knob_lookup lookup, void *ctx);

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
