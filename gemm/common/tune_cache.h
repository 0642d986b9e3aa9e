// SPDX-License-Identifier: MIT
/*
 * gemm/common/tune_cache.h - the tuning cache: the sm90 configuration timed fastest for given shapes on one
 * GPU, written by `sm90_tune --write-cache FILE` and read by the library from WSGEMM_TUNE_CACHE. Host C.
 *
 * The file (text, one record per line, docs/tuning.md "The tuning cache"):
 *
 *   wsgemm-tune-cache 1
 *   library 0.2.0
 *   gpu GPU-3f1c...                       the UUID of the GPU it was timed on
 *   entry sm90 TN bf16 bf16 bf16 4096 4096 4096 1 beta0 WSGEMM_SM90_BN=128 WSGEMM_SM90_SPLITK=2
 *   ...
 *   checksum 89ab...                      FNV-1a 64 of every byte before this line, 16 hex digits
 *
 * An entry's key: path, op(A) op(B), A, B and C types, m, n, k, batch, beta0 (beta == 0) or beta; its
 * settings: 0 to 7 of the sm90 tuning variables (WSGEMM_SM90_BN, _SPLITK, _VARIANT, _SWAP, _GROUP, _HYBRID,
 * _EPILOGUE) as knobs.h reads them. A file made by another library version, for another GPU, or that fails
 * any check (header, checksum, a malformed line, an unknown variable) is ignored as a whole, with one message
 * on stderr naming the file and the reason; the plans then decide as without it.
 *
 * How the library uses it (gemm/sm90/sm90_gemm.cu): a plain sm90 call (no fused output op, batch invariance
 * off) whose key has an entry is planned with the entry's settings as knobs, except where the environment sets
 * the same variable (the environment wins; read with the file, as the process's knobs are read once); when
 * that plan declines, the call is planned without them. A given
 * cache and call always get the same plan, so results stay bit-identical run to run.
 */
#ifndef WSGEMM_COMMON_TUNE_CACHE_H
#define WSGEMM_COMMON_TUNE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "common/knobs.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { WSGEMM_TUNE_KEY_BYTES = 96, WSGEMM_TUNE_SETTINGS = 7, WSGEMM_TUNE_VALUE_BYTES = 16 };

typedef struct wsgemm_tune_entry {
    char key[WSGEMM_TUNE_KEY_BYTES];        /* wsgemm_tune_key's text */
    int count;                              /* settings */
    const char *name[WSGEMM_TUNE_SETTINGS]; /* the variable (one of the allowed names, static storage) */
    char value[WSGEMM_TUNE_SETTINGS][WSGEMM_TUNE_VALUE_BYTES];
    wsgemm_knobs knobs; /* wsgemm_tune_knobs of the entry when the process's table was read (not by the parser) */
} wsgemm_tune_entry;

typedef struct wsgemm_tune_table {
    int count;
    wsgemm_tune_entry *entries; /* malloc'd; wsgemm_tune_table_free */
} wsgemm_tune_table;

/* The key of problem p on `path` ("sm90"), as the file writes it: "sm90 TN bf16 bf16 bf16 m n k batch beta0". */
void wsgemm_tune_key(const char *path, const wsgemm_problem *p, char *buf, size_t size);

/* FNV-1a 64 of `len` bytes. */
uint64_t wsgemm_tune_checksum(const char *text, size_t len);

/* Parse a cache file's text for the GPU whose UUID is `gpu` and the library version `version` ("0.2.0"):
 * 1 with *t filled (free with wsgemm_tune_table_free), else 0 with the reason in why and *t empty. */
int wsgemm_tune_parse(const char *text, size_t len, const char *gpu, const char *version, wsgemm_tune_table *t,
                      char *why, size_t why_size);

void wsgemm_tune_table_free(wsgemm_tune_table *t);

/* The entry of `key`, or NULL. */
const wsgemm_tune_entry *wsgemm_tune_find(const wsgemm_tune_table *t, const char *key);

/* The knobs for an entry: the entry's settings where the environment leaves the variable unset, the
 * environment elsewhere. */
wsgemm_knobs wsgemm_tune_knobs(const wsgemm_tune_entry *e);

/* The process's table for device `ordinal` from knobs->tune_cache: read and checked at the first call that
 * asks for that device, each entry's knobs made then, then kept (a message on stderr when it is ignored); NULL
 * when there is none or it was ignored. Thread-safe. */
const wsgemm_tune_table *wsgemm_tune_table_for(int ordinal, const wsgemm_knobs *knobs);

/* Read the cache again at the next call (tests; only while no other thread is inside a wsgemm call). */
void wsgemm_tune_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_TUNE_CACHE_H */
