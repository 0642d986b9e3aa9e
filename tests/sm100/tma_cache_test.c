// SPDX-License-Identifier: MIT
/*
 * tma_cache_test.c - CPU checks of the tensor-map cache (gemm/common/tma.h, wsgemm_tma_cache_encode) with a
 * counting encoder in place of the driver's:
 *
 *   hits     the same descriptor again encodes nothing and returns the first map's bytes; each field that
 *            differs (base, type, dims, ld, batch stride, box) and another encoder are a miss; a failed encode
 *            is not kept; more descriptors than entries replace the oldest.
 *   threads  four threads over eight descriptors: every map they get is the one their descriptor encodes, and
 *            the cache ends with each descriptor encoded at least once and the hits counted.
 * Exits 1 on failure.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/tma.h"
#include "testing.h"

static int failures;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* The fake encoders: the map's first words name the descriptor; calls are counted. */
static int encode_calls;
static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t desc_hash(const wsgemm_tma_2d16 *d)
{
    uint64_t h = (uint64_t)(uintptr_t)d->base;
    const uint64_t f[] = {(uint64_t)d->dtype, d->inner,     d->outer,    d->depth, d->ld,
                          d->batch_stride,    d->box_inner, d->box_outer};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) h = h * 1000003u + f[i];
    return h;
}

static cudaError_t fake_encode(CUtensorMap *map, const wsgemm_tma_2d16 *d, char *msg, size_t msg_size)
{
    (void)msg, (void)msg_size;
    pthread_mutex_lock(&calls_lock);
    ++encode_calls;
    pthread_mutex_unlock(&calls_lock);
    memset(map, 0, sizeof *map);
    const uint64_t h = desc_hash(d);
    memcpy(map, &h, sizeof h);
    return cudaSuccess;
}

static cudaError_t fake_encode_other(CUtensorMap *map, const wsgemm_tma_2d16 *d, char *msg, size_t msg_size)
{
    const cudaError_t e = fake_encode(map, d, msg, msg_size);
    ((unsigned char *)map)[8] = 1; /* another swizzle, say */
    return e;
}

static cudaError_t fake_encode_fail(CUtensorMap *map, const wsgemm_tma_2d16 *d, char *msg, size_t msg_size)
{
    (void)map, (void)d;
    pthread_mutex_lock(&calls_lock);
    ++encode_calls;
    pthread_mutex_unlock(&calls_lock);
    snprintf(msg, msg_size, "refused");
    return cudaErrorInvalidValue;
}

static wsgemm_tma_2d16 base_desc(void)
{
    wsgemm_tma_2d16 d = {.base = (const void *)(uintptr_t)0x10000000u,
                         .dtype = WSGEMM_R_16BF,
                         .inner = 4096,
                         .outer = 4096,
                         .depth = 1,
                         .ld = 4096,
                         .batch_stride = 0,
                         .box_inner = 64,
                         .box_outer = 128};
    return d;
}

static int map_is(const CUtensorMap *map, const wsgemm_tma_2d16 *d)
{
    uint64_t h;
    memcpy(&h, map, sizeof h);
    return h == desc_hash(d);
}

static void case_hits(void)
{
    static wsgemm_tma_cache cache = WSGEMM_TMA_CACHE_INITIALIZER;
    char msg[64] = "";
    CUtensorMap map;
    wsgemm_tma_2d16 d = base_desc();
    encode_calls = 0;
    EXPECT(wsgemm_tma_cache_encode(&cache, fake_encode, &map, &d, msg, sizeof msg) == cudaSuccess, "first encode");
    EXPECT(encode_calls == 1 && map_is(&map, &d), "first: %d encodes", encode_calls);
    memset(&map, 0, sizeof map);
    EXPECT(wsgemm_tma_cache_encode(&cache, fake_encode, &map, &d, msg, sizeof msg) == cudaSuccess, "hit");
    EXPECT(encode_calls == 1 && map_is(&map, &d) && cache.hits == 1, "hit: %d encodes, %llu hits", encode_calls,
           cache.hits);
    /* every field is part of the key */
    for (int field = 0; field < 9; ++field) {
        wsgemm_tma_2d16 e = base_desc();
        switch (field) {
        case 0: e.base = (const void *)((uintptr_t)e.base + 256); break;
        case 1: e.dtype = WSGEMM_R_16F; break;
        case 2: e.inner += 8; break;
        case 3: e.outer += 1; break;
        case 4: e.depth = 2, e.batch_stride = 4096 * 4096; break;
        case 5: e.ld += 8; break;
        case 6: e.box_inner = 32; break;
        case 7: e.box_outer = 256; break;
        default: e.batch_stride = 8; break; /* ignored by the driver at depth 1, still a different key */
        }
        const int before = encode_calls;
        EXPECT(wsgemm_tma_cache_encode(&cache, fake_encode, &map, &e, msg, sizeof msg) == cudaSuccess, "field %d",
               field);
        EXPECT(encode_calls == before + 1 && map_is(&map, &e), "field %d changed: %d encodes (want %d)", field,
               encode_calls - before, 1);
    }
    int before = encode_calls;
    wsgemm_tma_cache_encode(&cache, fake_encode_other, &map, &d, msg, sizeof msg);
    EXPECT(encode_calls == before + 1 && ((unsigned char *)&map)[8] == 1, "another encoder is another key");
    /* a failure is returned and not kept */
    wsgemm_tma_2d16 bad = base_desc();
    bad.inner = 3;
    before = encode_calls;
    EXPECT(wsgemm_tma_cache_encode(&cache, fake_encode_fail, &map, &bad, msg, sizeof msg) == cudaErrorInvalidValue &&
               strcmp(msg, "refused") == 0,
           "failure returned");
    wsgemm_tma_cache_encode(&cache, fake_encode_fail, &map, &bad, msg, sizeof msg);
    EXPECT(encode_calls == before + 2, "a failed encode was kept: %d calls", encode_calls - before);
    /* more descriptors than entries: the oldest go */
    for (int i = 0; i < WSGEMM_TMA_CACHE_ENTRIES; ++i) {
        wsgemm_tma_2d16 e = base_desc();
        e.outer = 100000u + (uint64_t)i;
        wsgemm_tma_cache_encode(&cache, fake_encode, &map, &e, msg, sizeof msg);
    }
    before = encode_calls;
    wsgemm_tma_cache_encode(&cache, fake_encode, &map, &d, msg, sizeof msg);
    EXPECT(encode_calls == before + 1 && map_is(&map, &d), "after %d others the first is encoded again",
           (int)WSGEMM_TMA_CACHE_ENTRIES);
    printf("hits: %d encodes, %llu hits\n", encode_calls, cache.hits);
}

static wsgemm_tma_cache shared = WSGEMM_TMA_CACHE_INITIALIZER;
static int thread_failures;

static void *hammer(void *arg)
{
    const int t = (int)(intptr_t)arg;
    char msg[64];
    for (int it = 0; it < 20000; ++it) {
        wsgemm_tma_2d16 d = base_desc();
        d.outer = 1000u + (uint64_t)((it + t) % 8);
        CUtensorMap map;
        if (wsgemm_tma_cache_encode(&shared, fake_encode, &map, &d, msg, sizeof msg) != cudaSuccess ||
            !map_is(&map, &d)) {
            pthread_mutex_lock(&calls_lock);
            ++thread_failures;
            pthread_mutex_unlock(&calls_lock);
        }
    }
    return NULL;
}

static void case_threads(void)
{
    pthread_t th[4];
    encode_calls = 0;
    for (int t = 0; t < 4; ++t) pthread_create(&th[t], NULL, hammer, (void *)(intptr_t)t);
    for (int t = 0; t < 4; ++t) pthread_join(th[t], NULL);
    EXPECT(thread_failures == 0, "%d wrong or failed maps", thread_failures);
    EXPECT(encode_calls >= 8 && shared.hits + shared.encodes == 4u * 20000u && shared.hits >= 4u * 20000u - 64u,
           "%d encodes, %llu hits, %llu kept encodes", encode_calls, shared.hits, shared.encodes);
    printf("threads: %d encodes, %llu hits over 80000 look-ups\n", encode_calls, shared.hits);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "hits";
    if (strcmp(which, "hits") == 0)
        case_hits();
    else if (strcmp(which, "threads") == 0)
        case_threads();
    else {
        fprintf(stderr, "unknown case '%s'\n", which);
        return 2;
    }
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
