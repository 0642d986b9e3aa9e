// SPDX-License-Identifier: MIT
/*
 * tmem/tmem.cuh - the one device API for Tensor Memory (TMEM) and the 5th-generation tensor core
 * (tcgen05, kind::f16, kind::f8f6f4 and kind::mxf8f6f4.block_scale with tcgen05.cp of the scale factors),
 * cta_group 1 and 2, with two backends chosen at build time:
 *
 *   WSGEMM_TMEM_HARDWARE=1   sm_100a: tmem/tmem_hw.cuh, one inline-PTX wrapper per tcgen05 instruction.
 *   WSGEMM_TMEM_EMULATION=1  sm_90a : emu/tmem_emu.cuh, the verification wing (docs/emulation.md): TMEM in
 *                            global memory, UMMA on CUDA cores from the real descriptor bits, every PTX
 *                            rule checked (printf + __trap). This header does not include it: the
 *                            translation unit includes emu/emulation.cuh first, before any sync/ or tmem/
 *                            header (it also declares the happens-before hooks sync/ reports to).
 *
 * HOW A KERNEL USES IT (identical source for both builds)
 * -------------------------------------------------------
 *   #if defined(WSGEMM_TMEM_EMULATION)
 *   #include "emu/emulation.cuh"    // first: the emulation backend and the hooks (wsgemm::emulation)
 *   #endif
 *   #include "tmem/tmem.cuh"        // after defining one of the two macros (CMake does it per target)
 *
 *   set-up, MMA warp (whole warp, converged), after mbarrier init + cluster_sync for cta_group 2
 *   (tmem_alloc_and_publish / tmem_receive_address below wrap exactly these steps):
 *       tmem_alloc<CG>(&smem->tmem_slot, 512);          // writes the base address into the smem slot
 *       tcgen05_fence_before_thread_sync();
 *       __syncwarp();                                     // the arrive below is .aligned
 *       named_barrier_arrive(ID, 32 + 128);               // MMA warp + 4 epilogue warps; does not wait
 *       tcgen05_fence_after_thread_sync();
 *       uint32_t tmem_base = smem->tmem_slot;             // its own alloc wrote it before the __syncwarp
 *     epilogue warps: named_barrier_sync(ID, 32 + 128); tcgen05_fence_after_thread_sync(); read the slot
 *     (cta_group 2: the same warp of BOTH CTAs allocates, same slot offset; cluster_sync after the alloc
 *      before the leader's first MMA writes the peer's TMEM and before any dealloc.)
 *
 *   mainloop, MMA warp (the WHOLE warp calls the _warp forms; see "the emulation's main design
 *   decision" below; on hardware one elected lane issues):
 *       consumer_wait(full[s]) ; tcgen05_fence_after_thread_sync();
 *       for (k = 0; k < BK / 16; k++)
 *           umma_f16_warp<CG>(d_tmem, umma_smem_desc_advance(a_desc, k * a_k_step_bytes),
 *                             umma_smem_desc_advance(b_desc, k * b_k_step_bytes), idesc, (kblock | k) != 0);
 *           // K step of 16 elements: 32 B inside a K-major atom; 16 rows x swizzle bytes for MN-major
 *       (FP8 operands: umma_mma_warp<CG>(UMMA_KIND_F8F6F4, ...), K = 32 per instruction, the same 32 B
 *        K-major step, 32 rows x swizzle bytes MN-major)
 *       (MXFP8, before the MMAs of the k-block: umma_cp_sf_warp<CG>(slot + 4 c, umma_sf_cp_desc(chunk c)) for
 *        the 512-byte chunks of A's and B's factors, then umma_mma_scaled_warp<CG>(..., idesc with scale
 *        factor IDs k, slot, slot + 4, ...); the slot of a k-block is its stage's: a copy is not ordered
 *        after earlier MMAs, so it may overwrite only factors whose MMAs a commit wait has shown complete)
 *       umma_commit_warp<CG>(&empty[s])                        // cta_group 1
 *       umma_commit_multicast_warp<CG>(&empty[s], 0b11)        // cta_group 2, leader CTA only
 *     The one-thread forms umma_f16 / umma_commit / umma_commit_multicast (inside `if (elect_one_sync())`)
 *     are the literal PTX semantics and also work in the emulation, but there one thread computes the whole
 *     128x256x16 product serially (about 500k FMAs per instruction): fine for unit tests, far too slow for a
 *     GEMM. Mixing: a commit covers every MMA the same thread issued; umma_f16_warp issues from the
 *     elect.sync leader (the lowest active lane, the same lane every time in a converged warp), and
 *     umma_commit_warp commits from that same lane, so pair _warp MMAs with _warp commits.
 *
 *   epilogue, warps whose (warp index % 4) covers 0..3 (each reads lanes 32*(warp%4) .. +31):
 *       consumer_wait(acc_full[a]) ; tcgen05_fence_after_thread_sync();
 *       tmem_ld_32x32b_x32(tmem_base + acc_col + (32*(warp%4) << 16) + c, regs);
 *       tmem_wait_ld_regs<32>(regs);                      // tmem_wait_ld + keep uses of regs after it
 *       tcgen05_fence_before_thread_sync(); arrive(acc_empty[a]) ...
 *
 *   teardown, MMA warp (whole warp): tmem_relinquish_alloc_permit<CG>(); wait until every epilogue thread
 *       (both CTAs for cta_group 2) is done with TMEM (tmem/dealloc_barrier_tmem.cuh does this);
 *       tcgen05_fence_after_thread_sync(); tmem_dealloc<CG>(tmem_base, 512);
 *
 * Convergence: alloc, dealloc, relinquish, ld and the _warp forms are .sync.aligned: all 32 lanes execute
 * the same instruction (.sync: each waits for the others). After a per-lane spin loop (an mbarrier wait) a
 * __syncwarp() before the call is cheap insurance; the emulation waits for all 32 lanes as .sync does and
 * reports a part of a warp that never arrives (NOT_CONVERGED).
 *
 * HOST SIDE (both builds compile these; on hardware they are no-ops that succeed):
 *       cudaError_t e = tmem_host_prepare(stream);   // BEFORE EVERY LAUNCH of a kernel using tmem/
 *       kernel<<<...>>>(...);
 *       char msg[512];
 *       int leaked = tmem_host_leak_check(stream, msg, sizeof msg); // AFTER: synchronizes `stream`;
 *                 // returns columns still allocated (0 = clean), -1 on a CUDA error (msg says which)
 *       tmem_host_set_random_delays(max_ns, seed);   // optional, emulation: sleep 0..max_ns before each
 *                 // emulated operation (alloc, ld, mma, commit, dealloc) to widen race windows; 0 = off
 *       tmem_host_is_emulated()                      // 1 in the emulation build
 *       tmem_host_last_error(msg, size)              // emulation only: the checker's record (error code,
 *                 // block, warp, values); readable after the trap killed the context
 *       tmem_host_set_happens_before(on)             // emulation only: happens-before tracking on/off from
 *                 // the next prepare (default: the environment variable WSGEMM_TMEM_HB=1 turns it on)
 *   The emulation's state is per translation unit (static device symbols): call the host functions from
 *   the same .cu file that launches the kernel. One kernel using the emulation at a time per TU.
 *
 * THE EMULATION'S MAIN DESIGN DECISION: who computes an emulated UMMA
 * -------------------------------------------------------------------
 * A 128x256x16 UMMA is 524,288 FMAs. The hardware instruction is issued by one thread; one emulating
 * thread doing it serially takes milliseconds per instruction, so a 1024^3 GEMM (2048 such MMAs, 64 per
 * 128x256 tile) would spend seconds in the MMAs alone, and real shapes minutes. The tcgen05.mma issue in every real
 * kernel already happens inside the MMA warp, with the other 31 lanes idle, so the API offers the warp-wide forms: the
 * whole (converged) MMA
 * warp calls umma_f16_warp; on hardware elect.sync picks one lane that issues the instruction, in the
 * emulation the 32 lanes share the product (lane l owns rows l, l+32, l+64, l+96 of each CTA's 128 rows:
 * its TMEM lane accesses coalesce, and the B operand row each step reads is a broadcast). The MMA is
 * complete when umma_f16_warp returns (every lane fences, then __syncwarp), so the commit simply arrives
 * on the barrier(s) with release at cluster scope. A 1024^3 GEMM then costs milliseconds.
 *
 * Rules the emulation enforces (each violation prints "TMEM-EMU ERROR: ..." with block, warp and the
 * values involved, then traps): ncols a power of 2 in [32, 512]; alloc/dealloc/ld by a converged warp;
 * alloc blocks while columns are taken (by co-resident CTAs; a 10 s watchdog traps a deadlock); no alloc
 * after relinquish_alloc_permit; one cta_group in the whole kernel; cta_group 2 needs a cluster of >= 2,
 * the MMA issued by the even CTA, and the peer's columns allocated (missing cluster sync after alloc);
 * a cta_group 2 allocation is one collective resource: after either CTA's dealloc, the other CTA's ld/MMA
 * on it traps (PAIR_DEALLOCATED: a missing peer signal in the dealloc barrier);
 * dealloc of columns this CTA does not hold (double dealloc reported as such); tcgen05.ld outside the
 * warp's lane quarter; ld/MMA on columns not allocated by this CTA (use after dealloc); MMA issued by
 * several threads at once (umma_f16 from a whole warp = 32 MMAs on hardware); descriptor fields the
 * emulation does not model (base offset != 0, 128B_BASE32B, LBO mode 1, sparsity, D = f16, M other than
 * 128 (cta_group 1) / 256 (cta_group 2)). See docs/tmem.md (the API) and docs/emulation.md (the wing).
 */
#ifndef WSGEMM_TMEM_TMEM_CUH
#define WSGEMM_TMEM_TMEM_CUH

#include <stdint.h>
#include <stddef.h>

#include <cuda_runtime.h>

#include "desc.h"

#if defined(WSGEMM_TMEM_HARDWARE) && defined(WSGEMM_TMEM_EMULATION)
#error "define only one of WSGEMM_TMEM_HARDWARE and WSGEMM_TMEM_EMULATION"
#endif
#if !defined(WSGEMM_TMEM_HARDWARE) && !defined(WSGEMM_TMEM_EMULATION)
#error "tmem/tmem.cuh: define WSGEMM_TMEM_HARDWARE=1 (sm_100a) or WSGEMM_TMEM_EMULATION=1 (sm_90a)"
#endif
/* The emulation backend (tmem_emu_*, tmem_hb_*, the host calls) is the wing's: emu/emulation.cuh, which the
 * translation unit includes before this header. tmem/ includes nothing of emu/. */
#if defined(WSGEMM_TMEM_EMULATION) && !defined(WSGEMM_EMU_ENTRY)
#error "tmem/tmem.cuh with WSGEMM_TMEM_EMULATION=1: include emu/emulation.cuh (the emulation backend) first"
#endif

#include "../sync/elect.cuh"
#include "../sync/mbarrier.cuh"
#include "../sync/cluster.cuh"
#include "../sync/named_barrier.cuh"

#if defined(WSGEMM_TMEM_HARDWARE)
#include "tmem_hw.cuh"
#endif

/* ================================================================ allocation */

/* Whole warp, converged, same ncols (power of 2 in [32, 512]). Blocks until the columns are free, then
 * writes the TMEM base address (lane 0, first column) to *slot_smem with a weak store: publish it to other
 * warps through a barrier (with the tcgen05 fences around it) before they read the slot. */
template <int kCtaGroup>
static __device__ __forceinline__ void tmem_alloc(uint32_t *slot_smem, uint32_t ncols)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if constexpr (kCtaGroup == 1)
        tcgen05_alloc_cg1((uint32_t)__cvta_generic_to_shared(slot_smem), ncols);
    else
        tcgen05_alloc_cg2((uint32_t)__cvta_generic_to_shared(slot_smem), ncols);
#else
    tmem_emu_alloc(kCtaGroup, slot_smem, ncols);
#endif
}

/* Whole warp: this CTA gives up allocating (a later tmem_alloc is an error). */
template <int kCtaGroup>
static __device__ __forceinline__ void tmem_relinquish_alloc_permit(void)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if constexpr (kCtaGroup == 1)
        tcgen05_relinquish_alloc_permit_cg1();
    else
        tcgen05_relinquish_alloc_permit_cg2();
#else
    tmem_emu_relinquish_alloc_permit(kCtaGroup);
#endif
}

/* Whole warp: free ncols columns at taddr (the address tmem_alloc returned). Every TMEM allocation must be
 * freed before the kernel exits; for cta_group 2 only after both CTAs' epilogues are done with it. */
template <int kCtaGroup>
static __device__ __forceinline__ void tmem_dealloc(uint32_t taddr, uint32_t ncols)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if constexpr (kCtaGroup == 1)
        tcgen05_dealloc_cg1(taddr, ncols);
    else
        tcgen05_dealloc_cg2(taddr, ncols);
#else
    tmem_emu_dealloc(kCtaGroup, taddr, ncols);
#endif
}

/* ================================================================ fences */

/* Before the barrier arrive that publishes this thread's TMEM work (ld done, alloc done). */
static __device__ __forceinline__ void tcgen05_fence_before_thread_sync(void)
{
#if defined(WSGEMM_TMEM_HARDWARE)
    tcgen05_fence_before_thread_sync_hw();
#else
    tmem_emu_fence_before_thread_sync();
#endif
}

/* After the barrier wait, before the tcgen05 operation that depends on what the wait made visible. */
static __device__ __forceinline__ void tcgen05_fence_after_thread_sync(void)
{
#if defined(WSGEMM_TMEM_HARDWARE)
    tcgen05_fence_after_thread_sync_hw();
#else
    tmem_emu_fence_after_thread_sync();
#endif
}

/* ================================================================ the address hand-off */

/* The TmemAllocation hand-off in two calls (the pattern in the comment at the top):
 *   allocating warp (whole warp):  base = tmem_alloc_and_publish<CG>(&smem->tmem_slot, 512, ID, 32 + 128);
 *   every other participating warp: base = tmem_receive_address(&smem->tmem_slot, ID, 32 + 128);
 * ID is a named barrier (1..15) used for nothing else at that time; nthreads counts every participating
 * thread (allocating warp included). Epilogue warps must call it even when they get no tile. */
template <int kCtaGroup>
static __device__ __forceinline__ uint32_t tmem_alloc_and_publish(uint32_t *slot_smem, uint32_t ncols,
                                                                  uint32_t barrier_id, uint32_t nthreads)
{
    tmem_alloc<kCtaGroup>(slot_smem, ncols);
    tcgen05_fence_before_thread_sync(); /* the alloc (and its slot write) before the barrier */
    /* The allocator only publishes: it ARRIVES (bar.arrive) and reads the slot its own lane wrote, while
     * the receivers SYNC. With a bar.sync on both sides (two different .aligned barrier instructions
     * completing one generation), compute-sanitizer synccheck reported "Divergent thread(s) in block" at
     * the allocator's barrier and aborted the kernel (the emulated sm100 kernel, cta_group 2, on the H200:
     * docs/sm100.md, "Results on the H200"); tests/sync/named_barrier_handoff.cu isolates the two forms.
     * bar.arrive is .aligned too: the emulated alloc lets one lane spin alone, so reconverge first. */
    __syncwarp();
    named_barrier_arrive(barrier_id, nthreads);
    tcgen05_fence_after_thread_sync();      /* pairs with the fence above across the __syncwarp (a thread sync) */
    return *(volatile uint32_t *)slot_smem; /* written by this warp's alloc, ordered by the __syncwarp */
}

static __device__ __forceinline__ uint32_t tmem_receive_address(uint32_t *slot_smem, uint32_t barrier_id,
                                                                uint32_t nthreads)
{
    named_barrier_sync(barrier_id, nthreads); /* orders the allocator's weak slot store before our read */
    tcgen05_fence_after_thread_sync();
    return *(volatile uint32_t *)slot_smem;
}

/* ================================================================ loads */

/* Until every earlier tmem_ld_* of this thread has completed (registers valid). Whole warp. */
static __device__ __forceinline__ void tmem_wait_ld(void)
{
#if defined(WSGEMM_TMEM_HARDWARE)
    tcgen05_wait_ld();
#else
    tmem_emu_wait_ld();
#endif
}

/* tmem_wait_ld + a compiler barrier on the N destination registers: tcgen05.ld's outputs are ordinary
 * asm outputs, so without this the compiler may schedule a use of regs[i] between the ld and the wait
 * (the wait is a separate asm statement that names no registers). The empty volatile asm with "+r"
 * operands stays after the wait (volatile asms keep their order), and every later use reads its result. */
template <int kN>
static __device__ __forceinline__ void tmem_wait_ld_regs(uint32_t *regs)
{
    tmem_wait_ld();
#if defined(WSGEMM_TMEM_HARDWARE)
#pragma unroll
    for (int i = 0; i < kN; i++) asm volatile("" : "+r"(regs[i])::"memory");
#else
    (void)regs;
#endif
}

/* tmem_ld_32x32b_xN(taddr, regs): whole warp; thread t reads TMEM lane (taddr lane field) + t, which must be
 * the warp's quarter 32*(warp%4) .. +31, columns (taddr column) .. +N-1 into regs[0..N-1].
 * tmem_ld_16x256b_xN(taddr, regs): 16 lanes from the taddr lane field (inside the warp's quarter), 8*N
 * columns; register i of thread l: lane + l/4 + 8*((i/2)%2), column + 2*(l%4) + i%2 + 8*(i/4); 4*N regs.
 * Asynchronous on hardware: tmem_wait_ld() before using regs. */
#if defined(WSGEMM_TMEM_HARDWARE)
#define WSGEMM_TMEM_LD(shape, n, nregs)                                                           \
    static __device__ __forceinline__ void tmem_ld_##shape##_x##n(uint32_t taddr, uint32_t *regs) \
    {                                                                                             \
        tcgen05_ld_##shape##_x##n(taddr, regs);                                                   \
    }
#else
#define WSGEMM_TMEM_LD(shape, n, nregs)                                                           \
    static __device__ __forceinline__ void tmem_ld_##shape##_x##n(uint32_t taddr, uint32_t *regs) \
    {                                                                                             \
        tmem_emu_ld_##shape(taddr, regs, n);                                                      \
    }
#endif
WSGEMM_TMEM_LD(32x32b, 1, 1)
WSGEMM_TMEM_LD(32x32b, 2, 2)
WSGEMM_TMEM_LD(32x32b, 4, 4)
WSGEMM_TMEM_LD(32x32b, 8, 8)
WSGEMM_TMEM_LD(32x32b, 16, 16)
WSGEMM_TMEM_LD(32x32b, 32, 32)
WSGEMM_TMEM_LD(32x32b, 64, 64)
WSGEMM_TMEM_LD(32x32b, 128, 128)
WSGEMM_TMEM_LD(16x256b, 1, 4)
WSGEMM_TMEM_LD(16x256b, 2, 8)
WSGEMM_TMEM_LD(16x256b, 4, 16)
WSGEMM_TMEM_LD(16x256b, 8, 32)
WSGEMM_TMEM_LD(16x256b, 16, 64)
WSGEMM_TMEM_LD(16x256b, 32, 128)
#undef WSGEMM_TMEM_LD

/* ================================================================ MMA and commit, one thread */

/* D[d_tmem] = A*B (accumulate == 0) or D += A*B, of the kind (tmem/desc.h umma_kind: kind::f16 or
 * kind::f8f6f4), shape/types/majors from idesc. ONE thread issues (inside `if (elect_one_sync())`); a warp
 * calling it issues 32 MMAs on hardware (the emulation traps). cta_group 2: only the even CTA of the pair
 * issues; M = 256. */
template <int kCtaGroup>
static __device__ __forceinline__ void umma_mma(umma_kind kind, uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                uint32_t idesc, uint32_t accumulate)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if (kind == UMMA_KIND_F8F6F4) {
        if constexpr (kCtaGroup == 1)
            tcgen05_mma_cg1_kind_f8f6f4(d_tmem, a_desc, b_desc, idesc, accumulate);
        else
            tcgen05_mma_cg2_kind_f8f6f4(d_tmem, a_desc, b_desc, idesc, accumulate);
    } else {
        if constexpr (kCtaGroup == 1)
            tcgen05_mma_cg1_kind_f16(d_tmem, a_desc, b_desc, idesc, accumulate);
        else
            tcgen05_mma_cg2_kind_f16(d_tmem, a_desc, b_desc, idesc, accumulate);
    }
#else
    tmem_emu_umma_single(kCtaGroup, (uint32_t)kind, d_tmem, a_desc, b_desc, idesc, accumulate);
#endif
}

/* .kind::mxf8f6f4.block_scale: D[d_tmem] (+)= (A x scale_A) * (B x scale_B), E4M3/E5M2 operands, UE8M0 factors
 * per 32 elements of K read from TMEM at sfa_tmem / sfb_tmem (tmem/desc.h "block scale factors in TMEM"; the
 * byte of each column is the idesc's scale factor ID, umma_idesc_mxf8f6f4_encode). ONE thread issues. */
template <int kCtaGroup>
static __device__ __forceinline__ void umma_mma_scaled(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                       uint32_t idesc, uint32_t sfa_tmem, uint32_t sfb_tmem,
                                                       uint32_t accumulate)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if constexpr (kCtaGroup == 1)
        tcgen05_mma_cg1_kind_mxf8f6f4_block_scale(d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate);
    else
        tcgen05_mma_cg2_kind_mxf8f6f4_block_scale(d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate);
#else
    tmem_emu_umma_scaled_single(kCtaGroup, d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate);
#endif
}

/* tcgen05.cp.32x128b.warpx4: one 512-byte chunk of scale factors (s_desc: umma_sf_cp_desc) into 4 columns of
 * every lane quarter at taddr (lane 0). Asynchronous; ordered before this thread's later MMAs (cp -> mma is a
 * pipelined pair), NOT after its earlier ones: a chunk an issued MMA may still read is overwritten only after a
 * commit covering that MMA was observed. ONE thread issues; cta_group 2: the even CTA, each CTA of the pair
 * copies its own shared memory into its own TMEM. */
template <int kCtaGroup>
static __device__ __forceinline__ void umma_cp_sf(uint32_t taddr, uint64_t s_desc)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if constexpr (kCtaGroup == 1)
        tcgen05_cp_cg1_32x128b_warpx4(taddr, s_desc);
    else
        tcgen05_cp_cg2_32x128b_warpx4(taddr, s_desc);
#else
    tmem_emu_cp_single(kCtaGroup, taddr, s_desc);
#endif
}

/* kind::f16 (f16 or bf16 operands). */
template <int kCtaGroup>
static __device__ __forceinline__ void umma_f16(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                                uint32_t accumulate)
{
    umma_mma<kCtaGroup>(UMMA_KIND_F16, d_tmem, a_desc, b_desc, idesc, accumulate);
}

/* One arrive on *bar_smem (this CTA) once every earlier MMA of this thread has completed. One thread. */
template <int kCtaGroup>
static __device__ __forceinline__ void umma_commit(uint64_t *bar_smem)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if constexpr (kCtaGroup == 1)
        tcgen05_commit_cg1((uint32_t)__cvta_generic_to_shared(bar_smem));
    else
        tcgen05_commit_cg2((uint32_t)__cvta_generic_to_shared(bar_smem));
#else
    tmem_emu_commit(kCtaGroup, bar_smem, 0);
#endif
}

/* One arrive at bar_smem's offset in every CTA of cta_mask (bit r = cluster rank r). One thread. */
template <int kCtaGroup>
static __device__ __forceinline__ void umma_commit_multicast(uint64_t *bar_smem, uint16_t cta_mask)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if constexpr (kCtaGroup == 1)
        tcgen05_commit_multicast_cg1((uint32_t)__cvta_generic_to_shared(bar_smem), cta_mask);
    else
        tcgen05_commit_multicast_cg2((uint32_t)__cvta_generic_to_shared(bar_smem), cta_mask);
#else
    tmem_emu_commit(kCtaGroup, bar_smem, cta_mask);
#endif
}

/* ================================================================ MMA and commit, whole warp */

/* The whole converged warp calls these. Hardware: the elect.sync leader issues the instruction (the same
 * lane every call). Emulation: the 32 lanes compute the product together; it is complete on return. */
template <int kCtaGroup>
static __device__ __forceinline__ void umma_mma_warp(umma_kind kind, uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                     uint32_t idesc, uint32_t accumulate)
{
    static_assert(kCtaGroup == 1 || kCtaGroup == 2, "cta_group is 1 or 2");
#if defined(WSGEMM_TMEM_HARDWARE)
    if (elect_one_sync()) umma_mma<kCtaGroup>(kind, d_tmem, a_desc, b_desc, idesc, accumulate);
    __syncwarp();
#else
    tmem_emu_umma_warp(kCtaGroup, (uint32_t)kind, d_tmem, a_desc, b_desc, idesc, accumulate);
#endif
}

template <int kCtaGroup>
static __device__ __forceinline__ void umma_mma_scaled_warp(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                            uint32_t idesc, uint32_t sfa_tmem, uint32_t sfb_tmem,
                                                            uint32_t accumulate)
{
#if defined(WSGEMM_TMEM_HARDWARE)
    if (elect_one_sync()) umma_mma_scaled<kCtaGroup>(d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate);
    __syncwarp();
#else
    tmem_emu_umma_scaled_warp(kCtaGroup, d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate);
#endif
}

template <int kCtaGroup>
static __device__ __forceinline__ void umma_cp_sf_warp(uint32_t taddr, uint64_t s_desc)
{
#if defined(WSGEMM_TMEM_HARDWARE)
    if (elect_one_sync()) umma_cp_sf<kCtaGroup>(taddr, s_desc);
    __syncwarp();
#else
    __syncwarp();
    if (elect_one_sync()) umma_cp_sf<kCtaGroup>(taddr, s_desc);
    __syncwarp();
#endif
}

template <int kCtaGroup>
static __device__ __forceinline__ void umma_f16_warp(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                                     uint32_t accumulate)
{
    umma_mma_warp<kCtaGroup>(UMMA_KIND_F16, d_tmem, a_desc, b_desc, idesc, accumulate);
}

template <int kCtaGroup>
static __device__ __forceinline__ void umma_commit_warp(uint64_t *bar_smem)
{
#if defined(WSGEMM_TMEM_HARDWARE)
    if (elect_one_sync()) umma_commit<kCtaGroup>(bar_smem);
    __syncwarp();
#else
    __syncwarp();
    if (elect_one_sync()) umma_commit<kCtaGroup>(bar_smem);
    __syncwarp();
#endif
}

template <int kCtaGroup>
static __device__ __forceinline__ void umma_commit_multicast_warp(uint64_t *bar_smem, uint16_t cta_mask)
{
#if defined(WSGEMM_TMEM_HARDWARE)
    if (elect_one_sync()) umma_commit_multicast<kCtaGroup>(bar_smem, cta_mask);
    __syncwarp();
#else
    __syncwarp();
    if (elect_one_sync()) umma_commit_multicast<kCtaGroup>(bar_smem, cta_mask);
    __syncwarp();
#endif
}

/* ================================================================ the end of a kernel */

/* Every thread, last thing in a kernel that issues tcgen05.commit. A commit's arrival is made by the tensor
 * core when the MMAs finish, so a CTA must not exit before it has observed (waited for) every phase a
 * commit arrived on: the producer tail does that for the smem ring. The emulation checks it when the
 * CTA's last thread gets here (UNOBSERVED_COMMIT); on hardware this is nothing. */
static __device__ __forceinline__ void tmem_cta_exit(void)
{
#if defined(WSGEMM_TMEM_EMULATION)
    tmem_hb_cta_exit();
#endif
}

/* ================================================================ host side */

#if defined(WSGEMM_TMEM_HARDWARE)
static inline cudaError_t tmem_host_prepare(cudaStream_t stream)
{
    (void)stream;
    return cudaSuccess;
}
static inline int tmem_host_leak_check(cudaStream_t stream, char *msg, size_t msg_size)
{
    (void)stream;
    if (msg && msg_size) msg[0] = '\0';
    return 0; /* real TMEM leaks cannot be queried; the emulation build checks them */
}
static inline void tmem_host_set_random_delays(uint32_t max_ns, uint64_t seed)
{
    (void)max_ns;
    (void)seed;
}
static inline int tmem_host_is_emulated(void)
{
    return 0;
}
#endif

#endif /* WSGEMM_TMEM_TMEM_CUH */
