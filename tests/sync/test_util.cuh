// SPDX-License-Identifier: MIT
/*
 * tests/sync/test_util.cuh - what the sync GPU tests share: a per-thread xorshift generator, random
 * delays that widen race windows, %smid, and the argument helpers.
 */
#ifndef WSGEMM_TESTS_SYNC_UTIL_CUH
#define WSGEMM_TESTS_SYNC_UTIL_CUH

#include <stdint.h>
#include <stdlib.h>

/* xorshift32; never seeded with 0. */
static __device__ __forceinline__ uint32_t rng_next(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

static __device__ __forceinline__ uint32_t rng_seed(uint32_t seed, uint32_t block, uint32_t thread)
{
    uint32_t s = seed * 0x9E3779B9u ^ (block + 1u) * 0x85EBCA6Bu ^ (thread + 1u) * 0xC2B2AE35u;
    return s ? s : 0x1234567u;
}

/* With probability 1/8 sleep a random time below max_ns: enough to reorder the roles now and then
 * without making the test slow. */
static __device__ __forceinline__ void random_delay(uint32_t *rng, uint32_t max_ns)
{
    uint32_t x = rng_next(rng);
    if ((x & 7u) == 0 && max_ns > 0) __nanosleep((x >> 3) % max_ns);
}

/* Sleep about ns nanoseconds (nanosleep alone is capped near 1 ms and is only a hint). */
static __device__ __forceinline__ void sleep_ns(uint32_t ns)
{
    while (ns > 0) {
        uint32_t step = ns > 100000u ? 100000u : ns;
        __nanosleep(step);
        ns -= step;
    }
}

/* PTX ISA "Special Registers: %smid": the SM this thread runs on (to show the test covered every SM). */
static __device__ __forceinline__ uint32_t sm_id(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

/* The payload word the producer writes for (cta, iteration, lane): distinct across iterations so a
 * stale or early-overwritten stage is noticed. */
static __host__ __device__ __forceinline__ uint32_t payload_word(uint32_t cta, uint32_t iter, uint32_t lane)
{
    uint32_t h = cta * 0x9E3779B9u ^ iter * 0x85EBCA6Bu ^ lane * 0xC2B2AE35u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    return h ^ iter; /* the xor keeps consecutive iterations apart even if the hash collides */
}

/* argv[i] as a positive integer, or dflt when absent. */
static inline long arg_long(int argc, char **argv, int i, long dflt)
{
    if (argc <= i) return dflt;
    long v = strtol(argv[i], NULL, 0);
    return v > 0 ? v : dflt;
}

#endif /* WSGEMM_TESTS_SYNC_UTIL_CUH */
