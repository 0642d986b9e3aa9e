// SPDX-License-Identifier: MIT
/*
 * gemm/common/grouped.cuh - the grouped GEMM's scheduler: which (group, tile along the grouped dimension)
 * a linear tile index names, from the group sizes in device memory. Every grouped kernel takes its work
 * from here; the generic kernel (gemm/generic/grouped_gemm.cu) launches one CTA per work unit, a persistent
 * kernel walks the units with a stride.
 *
 * The groups' slices along the grouped dimension (rows for DIM_M, columns for DIM_N), in the extent E of
 * the grouped matrix (m or n of the call):
 *   CONTIGUOUS  group g is [s, e) with s = sizes[g-1] (0 for g = 0) and e = sizes[g]. It keeps the contract
 *               when s == max(0, sizes[0], ..., sizes[g-1]) (no end before it passed s), s <= e and e <= E.
 *   MASKED      group g is [0, sizes[g]) of its own matrix; it keeps the contract when 0 <= sizes[g] <= E.
 * A group that breaks it is skipped: it has no tiles, and the slices of the groups that keep it are
 * disjoint and inside [0, E), so no kernel reads or writes outside the matrices the host checked, whatever
 * the device holds. The first group that breaks it is reported (wsgemm_grouped_desc.status).
 *
 * The units: group g that keeps the contract has T_g = ceil((e - s) / kTile) tiles along the grouped dimension (M
 * or N), or exactly one unit, its whole slice, when the groups split K (`whole`: an empty K slice still has its C_g
 * = beta * C_g to write); they are numbered group after group, tile t of group g being unit P_g + t with P_g the
 * sum of T over the groups before g. A caller with `others` tiles across the other dimension numbers its work w =
 * unit * others + other, so that work units of one group are consecutive and the total is known once the scan has
 * run; the host sizes a grid with wsgemm_grouped_units_bound, from what it knows.
 *
 * The scan: the CTA's threads take kThreads groups at a time (one group a thread), a block-wide exclusive
 * max of the ends (the contract) and an inclusive sum of T (the numbering), the totals carried from one
 * chunk to the next: O(group_count / kThreads) steps per lookup, which stops at the chunk holding the unit
 * unless asked to scan all groups (for the report).
 */
#ifndef WSGEMM_COMMON_GROUPED_CUH
#define WSGEMM_COMMON_GROUPED_CUH

#include <stdint.h>

#include "wsgemm.h"

/* The grouping as a kernel takes it by value. */
struct GroupedSizes {
    const int *sizes;
    int group_count;
    int layout; /* wsgemm_grouped_layout */
    int extent; /* E: the grouped matrix's extent along the grouped dimension (m, n or k), from the host */
    int whole;  /* one unit per group, its whole slice (groups along K) */
};

/* One unit of work: group `group`, slice [begin, end) of the grouped dimension in the group's matrix (its
 * tile is [tile_begin, min(tile_begin + kTile, end))). */
struct GroupedUnit {
    int group;
    int begin, end;
    int tile_begin;
};

/* The most units a grouping of group_count groups in extent E can have (host and device): every non-empty
 * group adds at most one partial tile. */
static inline __host__ __device__ long long wsgemm_grouped_units_bound(int layout, int group_count, int extent,
                                                                       int tile, int whole)
{
    if (whole) return group_count;
    if (layout == WSGEMM_GROUPED_MASKED) return (long long)group_count * ((extent + (long long)tile - 1) / tile);
    const long long nonempty = group_count < extent ? group_count : extent;
    return ((long long)extent + nonempty * (tile - 1)) / tile;
}

/* Scratch of one CTA's scan, in shared memory. */
template <int kThreads>
struct GroupedScanSmem {
    long long warp_sum[kThreads / 32];
    int warp_max[kThreads / 32];
    long long carry_sum; /* units of the chunks before this one */
    int carry_max;       /* max(0, ends of the groups before this chunk) */
    int first_bad;       /* the lowest group that breaks the contract, or group_count */
    int found;
    GroupedUnit unit;
};

namespace wsgemm_grouped_detail
{

/* Block-wide inclusive sum (long long) and exclusive max (int, identity `lowest`) of one value per thread;
 * every thread of the CTA calls it (it holds two __syncthreads). Totals returned through *sum_total and
 * *max_total. */
template <int kThreads>
__device__ __forceinline__ void block_scan(GroupedScanSmem<kThreads> &sm, long long sum_in, int max_in,
                                           long long *sum_incl, int *max_excl, long long *sum_total, int *max_total)
{
    static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
    constexpr int kWarps = kThreads / 32;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    long long s = sum_in;
    int mx = max_in;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const long long s_up = __shfl_up_sync(0xffffffffu, s, d);
        const int m_up = __shfl_up_sync(0xffffffffu, mx, d);
        if (lane >= d) {
            s += s_up;
            mx = mx > m_up ? mx : m_up;
        }
    }
    /* exclusive max inside the warp: the inclusive max of the lane before */
    int m_excl = __shfl_up_sync(0xffffffffu, mx, 1);
    if (lane == 0) m_excl = INT32_MIN;
    if (lane == 31) {
        sm.warp_sum[warp] = s;
        sm.warp_max[warp] = mx;
    }
    __syncthreads();
    long long s_before = 0, s_all = 0;
    int m_before = INT32_MIN, m_all = INT32_MIN;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        if (w < warp) {
            s_before += sm.warp_sum[w];
            m_before = m_before > sm.warp_max[w] ? m_before : sm.warp_max[w];
        }
        s_all += sm.warp_sum[w];
        m_all = m_all > sm.warp_max[w] ? m_all : sm.warp_max[w];
    }
    __syncthreads(); /* warp_sum and warp_max free for the next call */
    *sum_incl = s + s_before;
    *max_excl = m_excl > m_before ? m_excl : m_before;
    *sum_total = s_all;
    *max_total = m_all;
}

} // namespace wsgemm_grouped_detail

/* One chunk of the scan: groups base .. base + kThreads - 1, one a thread. Every thread of the CTA calls
 * wsgemm_grouped_chunk_scan with the same base and the scratch's carries from the chunks before (set by
 * wsgemm_grouped_scan_begin), looks at its group's entry, then calls wsgemm_grouped_chunk_end, which records
 * a group that breaks the contract and carries the chunk's totals to the next one. */
struct GroupedChunkEntry {
    int group;
    int here;  /* group < group_count */
    int keeps; /* the group keeps the contract */
    int begin, end;
    long long units;     /* its units (0 when it breaks the contract) */
    long long first;     /* the number of its first unit */
    long long next;      /* first + units: the first unit of the next group */
    long long carry_sum; /* the carries this chunk started from, and its totals (for chunk_end) */
    long long units_total;
    int carry_max, chunk_max;
};

template <int kThreads>
__device__ __forceinline__ void wsgemm_grouped_scan_begin(const GroupedSizes &g, GroupedScanSmem<kThreads> &sm)
{
    if (threadIdx.x == 0) {
        sm.carry_sum = 0;
        sm.carry_max = 0;
        sm.first_bad = g.group_count;
        sm.found = 0;
    }
    __syncthreads();
}

template <int kThreads, int kTile>
__device__ __forceinline__ GroupedChunkEntry wsgemm_grouped_chunk_scan(const GroupedSizes &g, int base,
                                                                       GroupedScanSmem<kThreads> &sm)
{
    GroupedChunkEntry e;
    const int contiguous = g.layout == WSGEMM_GROUPED_CONTIGUOUS;
    e.group = base + (int)threadIdx.x;
    e.here = e.group < g.group_count;
    e.end = e.here ? g.sizes[e.group] : INT32_MIN;
    /* the contiguous start is the previous group's end: the one before in this chunk, or the last of the
     * chunk before, read again (one more load per chunk keeps the scan to one pass) */
    e.begin = !e.here || !contiguous ? 0 : e.group == 0 ? 0 : g.sizes[e.group - 1];
    long long units_incl;
    int max_excl, max_total;
    e.carry_sum = sm.carry_sum;
    e.carry_max = sm.carry_max;
    /* the contract needs the exclusive max of the ends first, then the units need the contract: two scans */
    long long unused_incl, unused_total;
    wsgemm_grouped_detail::block_scan<kThreads>(sm, 0, e.end, &unused_incl, &max_excl, &unused_total, &max_total);
    e.chunk_max = max_total;
    const int max_before = max_excl > e.carry_max ? max_excl : e.carry_max;
    e.keeps = e.here && (contiguous ? (e.begin == max_before && e.begin <= e.end && e.end <= g.extent)
                                    : (e.end >= 0 && e.end <= g.extent));
    e.units = !e.keeps ? 0 : g.whole ? 1 : ((long long)(e.end - e.begin) + kTile - 1) / kTile;
    wsgemm_grouped_detail::block_scan<kThreads>(sm, e.units, INT32_MIN, &units_incl, &max_excl, &e.units_total,
                                                &max_total);
    e.next = e.carry_sum + units_incl;
    e.first = e.next - e.units;
    return e;
}

template <int kThreads>
__device__ __forceinline__ void wsgemm_grouped_chunk_end(GroupedScanSmem<kThreads> &sm, const GroupedChunkEntry &e)
{
    if (e.here && !e.keeps) atomicMin(&sm.first_bad, e.group);
    __syncthreads();        /* every thread has read carry_* and written found, unit, first_bad */
    if (threadIdx.x == 0) { /* max_total of the first scan: the largest end of this chunk */
        sm.carry_sum = e.carry_sum + e.units_total;
        sm.carry_max = e.carry_max > e.chunk_max ? e.carry_max : e.chunk_max;
    }
    __syncthreads();
}

/* Find unit `target` (0-based, group after group) of the grouping. Every thread of the CTA calls it with
 * the same arguments; it returns the same answer to all: 1 with *out set, or 0 when the grouping has fewer
 * units. full_scan: scan every group even after the unit is found, so that *first_bad (the lowest group that
 * breaks the contract, group_count when none does) is complete; otherwise *first_bad covers the groups
 * scanned. The sizes are read with plain loads: the kernel runs in stream order after whatever wrote them. */
template <int kThreads, int kTile>
__device__ int wsgemm_grouped_find(const GroupedSizes &g, long long target, int full_scan,
                                   GroupedScanSmem<kThreads> &sm, GroupedUnit *out, int *first_bad)
{
    wsgemm_grouped_scan_begin<kThreads>(g, sm);
    for (int base = 0; base < g.group_count; base += kThreads) {
        const GroupedChunkEntry e = wsgemm_grouped_chunk_scan<kThreads, kTile>(g, base, sm);
        if (e.keeps && target >= e.first && target < e.next) { /* exactly one thread */
            sm.unit.group = e.group;
            sm.unit.begin = e.begin;
            sm.unit.end = e.end;
            sm.unit.tile_begin = e.begin + (int)(target - e.first) * kTile;
            sm.found = 1;
        }
        wsgemm_grouped_chunk_end<kThreads>(sm, e);
        if (sm.found && !full_scan) break;
    }
    const int found = sm.found;
    if (found) *out = sm.unit;
    *first_bad = sm.first_bad;
    __syncthreads(); /* sm free for the next lookup */
    return found;
}

#endif /* WSGEMM_COMMON_GROUPED_CUH */
