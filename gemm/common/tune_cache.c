// SPDX-License-Identifier: MIT
/*
 * gemm/common/tune_cache.c - see tune_cache.h.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "common/tune_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/plan.h"
#include "common/status.h"
#include "wsgemm.h"

/* The variables an entry may set: the sm90 plan's tuning knobs (knobs.h). */
static const char *const kSettable[] = {"WSGEMM_SM90_BN",      "WSGEMM_SM90_SPLITK", "WSGEMM_SM90_VARIANT",
                                        "WSGEMM_SM90_SWAP",    "WSGEMM_SM90_GROUP",  "WSGEMM_SM90_HYBRID",
                                        "WSGEMM_SM90_EPILOGUE"};

void wsgemm_tune_key(const char *path, const wsgemm_problem *p, char *buf, size_t size)
{
    snprintf(buf, size, "%s %c%c %s %s %s %d %d %d %d %s", path, p->transa == WSGEMM_OP_N ? 'N' : 'T',
             p->transb == WSGEMM_OP_N ? 'N' : 'T', wsgemm_dtype_short_name(p->Atype), wsgemm_dtype_short_name(p->Btype),
             wsgemm_dtype_short_name(p->Ctype), p->m, p->n, p->k, p->batch_count, p->beta == 0.0f ? "beta0" : "beta");
}

uint64_t wsgemm_tune_checksum(const char *text, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; ++i) {
        h ^= (unsigned char)text[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void wsgemm_tune_table_free(wsgemm_tune_table *t)
{
    free(t->entries);
    t->entries = NULL;
    t->count = 0;
}

static int fail(char *why, size_t why_size, int line, const char *what)
{
    if (line > 0)
        snprintf(why, why_size, "line %d: %s", line, what);
    else
        snprintf(why, why_size, "%s", what);
    return 0;
}

/* The next line of text from *pos (without its newline) into buf; 0 at the end or on a line too long. */
static int next_line(const char *text, size_t len, size_t *pos, char *buf, size_t size, int *too_long)
{
    if (*pos >= len) return 0;
    const char *nl = memchr(text + *pos, '\n', len - *pos);
    const size_t n = nl ? (size_t)(nl - (text + *pos)) : len - *pos;
    *too_long = n >= size;
    if (!*too_long) {
        memcpy(buf, text + *pos, n);
        buf[n] = '\0';
    }
    *pos += n + (nl ? 1 : 0);
    return 1;
}

/* An entry line after "entry ": the key's 10 fields, then NAME=VALUE settings of allowed names. */
static int parse_entry(char *rest, wsgemm_tune_entry *e)
{
    memset(e, 0, sizeof *e);
    char *save = NULL, *tok = strtok_r(rest, " ", &save);
    size_t used = 0;
    for (int field = 0; field < 10; ++field, tok = strtok_r(NULL, " ", &save)) {
        if (!tok) return 0;
        const int n = snprintf(e->key + used, sizeof e->key - used, "%s%s", field ? " " : "", tok);
        if (n < 0 || (size_t)n >= sizeof e->key - used) return 0;
        used += (size_t)n;
    }
    for (; tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || e->count == WSGEMM_TUNE_SETTINGS) return 0;
        *eq = '\0';
        const char *name = NULL;
        for (size_t i = 0; i < sizeof kSettable / sizeof kSettable[0]; ++i)
            if (strcmp(tok, kSettable[i]) == 0) name = kSettable[i];
        if (!name || strlen(eq + 1) == 0 || strlen(eq + 1) >= WSGEMM_TUNE_VALUE_BYTES) return 0;
        for (int i = 0; i < e->count; ++i)
            if (e->name[i] == name) return 0; /* one value per variable */
        e->name[e->count] = name;
        snprintf(e->value[e->count], sizeof e->value[e->count], "%s", eq + 1);
        ++e->count;
    }
    return 1;
}

int wsgemm_tune_parse(const char *text, size_t len, const char *gpu, const char *version, wsgemm_tune_table *t,
                      char *why, size_t why_size)
{
    t->count = 0;
    t->entries = NULL;
    /* the checksum line closes the file: everything before it is what it sums */
    size_t body = len;
    while (body > 0 && text[body - 1] == '\n') --body;
    const char *last = body ? text + body - 1 : text;
    while (last > text && last[-1] != '\n') --last;
    const size_t body_len = (size_t)(last - text);
    unsigned long long sum = 0;
    char tail[64];
    const size_t tail_len = body - body_len;
    if (tail_len >= sizeof tail) return fail(why, why_size, 0, "no checksum line at the end (corrupt or cut short)");
    memcpy(tail, last, tail_len);
    tail[tail_len] = '\0';
    int consumed = 0;
    if (sscanf(tail, "checksum %16llx%n", &sum, &consumed) != 1 || consumed != (int)tail_len || tail_len != 25)
        return fail(why, why_size, 0, "no checksum line at the end (corrupt or cut short)");
    if ((uint64_t)sum != wsgemm_tune_checksum(text, body_len))
        return fail(why, why_size, 0, "checksum mismatch (the file was changed or is corrupt)");

    size_t pos = 0;
    char line[512];
    int too_long = 0, number = 0, capacity = 0;
    for (; next_line(text, body_len, &pos, line, sizeof line, &too_long);) {
        ++number;
        if (too_long) {
            wsgemm_tune_table_free(t);
            return fail(why, why_size, number, "longer than 511 characters");
        }
        char msg[WSGEMM_KNOB_PATH_BYTES];
        if (number == 1 && strcmp(line, "wsgemm-tune-cache 1") != 0) {
            wsgemm_tune_table_free(t);
            return fail(why, why_size, 1, "not \"wsgemm-tune-cache 1\" (not a tuning cache of this format)");
        }
        if (number == 2 && (strncmp(line, "library ", 8) != 0 || strcmp(line + 8, version) != 0)) {
            snprintf(msg, sizeof msg, "made by wsgemm %s, this is %s (stale: tune again)",
                     strncmp(line, "library ", 8) == 0 ? line + 8 : "?", version);
            wsgemm_tune_table_free(t);
            return fail(why, why_size, 2, msg);
        }
        if (number == 3 && (strncmp(line, "gpu ", 4) != 0 || strcmp(line + 4, gpu) != 0)) {
            snprintf(msg, sizeof msg, "timed on %s, this GPU is %s (another GPU: tune on this one)",
                     strncmp(line, "gpu ", 4) == 0 ? line + 4 : "?", gpu);
            wsgemm_tune_table_free(t);
            return fail(why, why_size, 3, msg);
        }
        if (number <= 3) continue;
        if (strncmp(line, "entry ", 6) != 0) {
            wsgemm_tune_table_free(t);
            return fail(why, why_size, number, "not an entry line");
        }
        if (t->count == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            wsgemm_tune_entry *grown = realloc(t->entries, (size_t)capacity * sizeof *grown);
            if (!grown) {
                wsgemm_tune_table_free(t);
                return fail(why, why_size, number, "out of host memory");
            }
            t->entries = grown;
        }
        if (!parse_entry(line + 6, &t->entries[t->count])) {
            wsgemm_tune_table_free(t);
            return fail(why, why_size, number,
                        "a malformed entry (10 key fields, then NAME=VALUE of WSGEMM_SM90_BN, _SPLITK, _VARIANT, "
                        "_SWAP, _GROUP, _HYBRID, _EPILOGUE, each once)");
        }
        if (wsgemm_tune_find(t, t->entries[t->count].key)) {
            wsgemm_tune_table_free(t);
            return fail(why, why_size, number, "a second entry for the same key");
        }
        ++t->count;
    }
    if (number < 3) {
        wsgemm_tune_table_free(t);
        return fail(why, why_size, 0, "no header (wsgemm-tune-cache, library, gpu lines)");
    }
    return 1;
}

const wsgemm_tune_entry *wsgemm_tune_find(const wsgemm_tune_table *t, const char *key)
{
    for (int i = 0; t && i < t->count; ++i)
        if (strcmp(t->entries[i].key, key) == 0) return &t->entries[i];
    return NULL;
}

static const char *entry_lookup(void *ctx, const char *name)
{
    const wsgemm_tune_entry *e = ctx;
    const char *env = getenv(name);
    if (env) return env;
    for (int i = 0; i < e->count; ++i)
        if (strcmp(e->name[i], name) == 0) return e->value[i];
    return NULL;
}

wsgemm_knobs wsgemm_tune_knobs(const wsgemm_tune_entry *e)
{
    return wsgemm_knobs_from(entry_lookup, (void *)e);
}

/* ---------------------------------------------------------------- the process's tables */

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded[WSGEMM_MAX_DEVICES];
static wsgemm_tune_table tables[WSGEMM_MAX_DEVICES];

static void load(int ordinal, const char *path)
{
    char why[WSGEMM_KNOB_PATH_BYTES + 128] = "";
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0;
    if (!f)
        snprintf(why, sizeof why, "cannot be opened");
    else {
        size_t cap = 0;
        for (;;) {
            if (len == cap) {
                cap = cap ? 2 * cap : 65536;
                char *grown = cap <= (size_t)64 << 20 ? realloc(text, cap) : NULL;
                if (!grown) {
                    snprintf(why, sizeof why, "is larger than 64 MiB or could not be read into memory");
                    break;
                }
                text = grown;
            }
            const size_t got = fread(text + len, 1, cap - len, f);
            len += got;
            if (got == 0) break;
        }
        fclose(f);
    }
    struct cudaDeviceProp prop;
    char uuid[64];
    if (!why[0]) {
        const cudaError_t err = cudaGetDeviceProperties(&prop, ordinal);
        if (err != cudaSuccess) {
            wsgemm_forget_cuda_error(err);
            snprintf(why, sizeof why, "not checked: the device's UUID could not be read (%s)", cudaGetErrorString(err));
        } else
            wsgemm_gpu_uuid_text(prop.uuid.bytes, uuid, sizeof uuid);
    }
    if (!why[0]) {
        char version[32];
        snprintf(version, sizeof version, "%d.%d.%d", WSGEMM_VERSION_MAJOR, WSGEMM_VERSION_MINOR, WSGEMM_VERSION_PATCH);
        char reason[WSGEMM_KNOB_PATH_BYTES];
        if (!wsgemm_tune_parse(text, len, uuid, version, &tables[ordinal], reason, sizeof reason))
            snprintf(why, sizeof why, "%s", reason);
        for (int i = 0; i < tables[ordinal].count; ++i)
            tables[ordinal].entries[i].knobs = wsgemm_tune_knobs(&tables[ordinal].entries[i]);
    }
    free(text);
    if (why[0]) fprintf(stderr, "wsgemm: tuning cache %s (WSGEMM_TUNE_CACHE) ignored: %s\n", path, why);
}

const wsgemm_tune_table *wsgemm_tune_table_for(int ordinal, const wsgemm_knobs *knobs)
{
    if (!knobs->tune_cache[0] || ordinal < 0 || ordinal >= WSGEMM_MAX_DEVICES) return NULL;
    pthread_mutex_lock(&tables_lock);
    if (!loaded[ordinal]) {
        load(ordinal, knobs->tune_cache);
        loaded[ordinal] = 1;
    }
    const wsgemm_tune_table *t = tables[ordinal].count ? &tables[ordinal] : NULL;
    pthread_mutex_unlock(&tables_lock);
    return t;
}

void wsgemm_tune_reset(void)
{
    pthread_mutex_lock(&tables_lock);
    for (int i = 0; i < WSGEMM_MAX_DEVICES; ++i) {
        wsgemm_tune_table_free(&tables[i]);
        loaded[i] = 0;
    }
    pthread_mutex_unlock(&tables_lock);
}
