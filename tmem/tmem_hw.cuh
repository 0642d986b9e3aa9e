// SPDX-License-Identifier: MIT
/*
 * tmem/tmem_hw.cuh - the sm_100a backend of tmem/tmem.cuh: one inline-PTX
 * wrapper per tcgen05 instruction variant, named after the instruction.
 * Do not include directly: include tmem/tmem.cuh with WSGEMM_TMEM_HARDWARE=1.
 *
 * Sources: PTX ISA 8.7+ chapter "TensorCore 5th Generation Family Instructions"
 * (tcgen05): sections "tcgen05.alloc / tcgen05.dealloc /
 * tcgen05.relinquish_alloc_permit" (Tensor Memory allocation and management),
 * "tcgen05.ld", "tcgen05.wait", "tcgen05.fence", "tcgen05.mma", "tcgen05.commit".
 * The instructions need sm_100a (or another arch-specific Blackwell target):
 * ptxas rejects them on sm_90a and on plain sm_100.
 *
 * Rules the wrappers cannot check (the emulation backend checks them on sm_90a):
 *   - alloc / dealloc / relinquish: the whole warp, converged (.sync.aligned),
 *     the same ncols in every lane; ncols a power of 2 in [32, 512];
 *   - every tcgen05 instruction of one kernel uses the same cta_group;
 *   - tcgen05.ld: a warp touches only lanes 32*(warp%4) .. +31;
 *   - tcgen05.mma / commit: one thread (an elected lane), not the whole warp.
 * The scope of the mbarrier operands: tcgen05.commit takes a .shared::cluster
 * address; a shared::cta address of the executing CTA is a valid
 * shared::cluster address of that CTA (PTX ISA "Shared memory state space").
 */
#ifndef WSGEMM_TMEM_TMEM_HW_CUH
#define WSGEMM_TMEM_TMEM_HW_CUH

#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1000
#error "tmem/tmem_hw.cuh needs an arch-specific Blackwell target (sm_100a); build the emulation for sm_90a"
#endif

/* tcgen05 exists in the arch-specific targets only (sm_100a, sm_103a, sm_110a). A device pass for a
 * portable target (nvcc -arch=sm_100a also emits compute_100 PTX) compiles every wrapper to a trap, so the
 * translation unit builds and that PTX can never run the wrong thing. */
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL) || \
    defined(__CUDA_ARCH_FEAT_SM110_ALL)
#define WSGEMM_TCGEN05_ASM(...) asm volatile(__VA_ARGS__)
#else
#define WSGEMM_TCGEN05_ASM(...) __trap()
#endif

/* ---------------------------------------------------------------- allocation (PTX ISA "tcgen05.alloc") */

/* tcgen05.alloc.cta_group::1: the whole warp; writes the TMEM base address
 * (lane 0, first column) to [slot_saddr] with a weak shared-memory store. */
static __device__ __forceinline__ void tcgen05_alloc_cg1(uint32_t slot_saddr, uint32_t ncols)
{
    WSGEMM_TCGEN05_ASM("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(slot_saddr), "r"(ncols)
                       : "memory");
}

/* tcgen05.alloc.cta_group::2: the same warp of both CTAs of the pair, same slot offset. */
static __device__ __forceinline__ void tcgen05_alloc_cg2(uint32_t slot_saddr, uint32_t ncols)
{
    WSGEMM_TCGEN05_ASM("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(slot_saddr), "r"(ncols)
                       : "memory");
}

/* PTX ISA "tcgen05.dealloc": frees ncols columns starting at taddr (the address alloc returned). */
static __device__ __forceinline__ void tcgen05_dealloc_cg1(uint32_t taddr, uint32_t ncols)
{
    WSGEMM_TCGEN05_ASM("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

static __device__ __forceinline__ void tcgen05_dealloc_cg2(uint32_t taddr, uint32_t ncols)
{
    WSGEMM_TCGEN05_ASM("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

/* PTX ISA "tcgen05.relinquish_alloc_permit": this CTA will not allocate again
 * (a later alloc is undefined behaviour); lets a co-resident CTA's blocked alloc proceed. */
static __device__ __forceinline__ void tcgen05_relinquish_alloc_permit_cg1(void)
{
    WSGEMM_TCGEN05_ASM("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}

static __device__ __forceinline__ void tcgen05_relinquish_alloc_permit_cg2(void)
{
    WSGEMM_TCGEN05_ASM("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}

/* ---------------------------------------------------------------- fences and waits */

/* PTX ISA "tcgen05.fence": orders this thread's earlier tcgen05 operations
 * before a following thread synchronisation (barrier arrive, mbarrier arrive). */
static __device__ __forceinline__ void tcgen05_fence_before_thread_sync_hw(void)
{
    WSGEMM_TCGEN05_ASM("tcgen05.fence::before_thread_sync;" ::: "memory");
}

/* PTX ISA "tcgen05.fence": orders this thread's later tcgen05 operations
 * after a preceding thread synchronisation (barrier, mbarrier wait). */
static __device__ __forceinline__ void tcgen05_fence_after_thread_sync_hw(void)
{
    WSGEMM_TCGEN05_ASM("tcgen05.fence::after_thread_sync;" ::: "memory");
}

/* PTX ISA "tcgen05.wait": waits until every earlier tcgen05.ld of this thread
 * has completed; only then are the destination registers valid. */
static __device__ __forceinline__ void tcgen05_wait_ld(void)
{
    WSGEMM_TCGEN05_ASM("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}

/* ---------------------------------------------------------------- MMA (PTX ISA "tcgen05.mma") */

/* D[d_tmem] (+)= A[a_desc] * B[b_desc] of one kind (f16: f16/bf16 operands, K = 16; f8f6f4: E4M3/E5M2
 * operands, K = 32), shape, types and majors from idesc. enable_input_d = 0 on the first K step (D = A*B),
 * 1 after (D += A*B). Asynchronous: completion is observed only through tcgen05.commit. One thread issues.
 * The 2-SM form (cta_group::2) is issued by the even CTA of the pair only; A and B descriptors are local
 * addresses, the peer's operands sit at the same offsets in its shared memory; D is written in the same
 * columns of both CTAs' TMEM. */
#define WSGEMM_TCGEN05_MMA(name, cta_group, kind)                                                                  \
    static __device__ __forceinline__ void name(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, \
                                                uint32_t enable_input_d)                                           \
    {                                                                                                              \
        WSGEMM_TCGEN05_ASM("{\n\t.reg .pred p;\n\t"                                                                \
                           "setp.ne.b32 p, %4, 0;\n\t"                                                             \
                           "tcgen05.mma.cta_group::" #cta_group ".kind::" #kind                                    \
                           " [%0], %1, %2, %3, p;\n\t}" ::"r"(d_tmem),                                             \
                           "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(enable_input_d)                               \
                           : "memory");                                                                            \
    }
WSGEMM_TCGEN05_MMA(tcgen05_mma_cg1_kind_f16, 1, f16)
WSGEMM_TCGEN05_MMA(tcgen05_mma_cg2_kind_f16, 2, f16)
WSGEMM_TCGEN05_MMA(tcgen05_mma_cg1_kind_f8f6f4, 1, f8f6f4)
WSGEMM_TCGEN05_MMA(tcgen05_mma_cg2_kind_f8f6f4, 2, f8f6f4)
#undef WSGEMM_TCGEN05_MMA

/* .kind::mxf8f6f4.block_scale (E4M3/E5M2 operands, K = 32, UE8M0 scale factors per 32 elements of K):
 * D (+)= (A x scale_A) * (B x scale_B), the factors read from TMEM at sfa_tmem and sfb_tmem (the byte of each
 * 32-bit column the idesc's scale factor IDs name). scale_vec::1X is the only vector size mxf8f6f4 takes
 * (PTX ISA "Valid combinations of scale_vectorsize"), and the form without it is that one, as CUTLASS and
 * DeepGEMM write it. */
#define WSGEMM_TCGEN05_MMA_BS(name, cta_group)                                                                     \
    static __device__ __forceinline__ void name(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, \
                                                uint32_t sfa_tmem, uint32_t sfb_tmem, uint32_t enable_input_d)     \
    {                                                                                                              \
        WSGEMM_TCGEN05_ASM("{\n\t.reg .pred p;\n\t"                                                                \
                           "setp.ne.b32 p, %4, 0;\n\t"                                                             \
                           "tcgen05.mma.cta_group::" #cta_group ".kind::mxf8f6f4.block_scale"                      \
                           " [%0], %1, %2, %3, [%5], [%6], p;\n\t}" ::"r"(d_tmem),                                 \
                           "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(enable_input_d), "r"(sfa_tmem), "r"(sfb_tmem) \
                           : "memory");                                                                            \
    }
WSGEMM_TCGEN05_MMA_BS(tcgen05_mma_cg1_kind_mxf8f6f4_block_scale, 1)
WSGEMM_TCGEN05_MMA_BS(tcgen05_mma_cg2_kind_mxf8f6f4_block_scale, 2)
#undef WSGEMM_TCGEN05_MMA_BS

/* ---------------------------------------------------------------- copy into TMEM (PTX ISA "tcgen05.cp") */

/* Shared memory (s_desc: the matrix descriptor of 32 rows of 16 bytes) -> TMEM at taddr, shape 32x128b with
 * .warpx4: the 32 rows land in lanes t, t + 32, t + 64, t + 96 (every lane quarter gets the copy), 4 columns.
 * Asynchronous, one thread issues; completion is observed through tcgen05.commit. A later tcgen05.mma of the
 * same thread and cta_group is ordered after it (a pipelined pair); an earlier MMA is not ordered before it.
 * cta_group::2 (issued by the even CTA): each CTA of the pair copies its own shared memory, at the same
 * address, into its own TMEM. */
static __device__ __forceinline__ void tcgen05_cp_cg1_32x128b_warpx4(uint32_t taddr, uint64_t s_desc)
{
    WSGEMM_TCGEN05_ASM("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(taddr), "l"(s_desc) : "memory");
}

static __device__ __forceinline__ void tcgen05_cp_cg2_32x128b_warpx4(uint32_t taddr, uint64_t s_desc)
{
    WSGEMM_TCGEN05_ASM("tcgen05.cp.cta_group::2.32x128b.warpx4 [%0], %1;" ::"r"(taddr), "l"(s_desc) : "memory");
}

/* ---------------------------------------------------------------- commit (PTX ISA "tcgen05.commit") */

/* One arrive on the mbarrier at bar_saddr once every earlier asynchronous
 * tcgen05 operation (mma, cp, shift) of this thread has completed.
 * Implies tcgen05.fence::before_thread_sync. */
static __device__ __forceinline__ void tcgen05_commit_cg1(uint32_t bar_saddr)
{
    WSGEMM_TCGEN05_ASM("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar_saddr)
                       : "memory");
}

static __device__ __forceinline__ void tcgen05_commit_cg2(uint32_t bar_saddr)
{
    WSGEMM_TCGEN05_ASM("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar_saddr)
                       : "memory");
}

/* .multicast::cluster: one arrive at the same shared-memory offset in every
 * CTA of cta_mask (bit r = cluster rank r; 0b11 for a pair). */
static __device__ __forceinline__ void tcgen05_commit_multicast_cg1(uint32_t bar_saddr, uint16_t cta_mask)
{
    WSGEMM_TCGEN05_ASM(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
            bar_saddr),
        "h"(cta_mask)
        : "memory");
}

static __device__ __forceinline__ void tcgen05_commit_multicast_cg2(uint32_t bar_saddr, uint16_t cta_mask)
{
    WSGEMM_TCGEN05_ASM(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
            bar_saddr),
        "h"(cta_mask)
        : "memory");
}

/* ---------------------------------------------------------------- loads (PTX ISA "tcgen05.ld")
 *
 * 32x32b.xN: thread t of warp w reads TMEM lane 32*(w%4) + t, N consecutive
 * columns from the column of taddr, into r[0..N-1] (taddr's lane field must be
 * the warp's quarter base 32*(w%4)).
 * 16x256b.xN: 16 lanes x 256 bits per repeat, the mma.sync C-fragment layout:
 * register i of thread l holds lane (taddr lane) + l/4 + 8*((i/2)%2), column
 * (taddr column) + 2*(l%4) + i%2 + 8*(i/4).
 * Asynchronous: call tcgen05_wait_ld() before reading r.
 * (Generated by tmem/gen_tcgen05_ld.py.)
 */

/* PTX ISA "tcgen05.ld": shape 32x32b, .x1, 1 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x1(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(r[0]) : "r"(taddr) : "memory");
}

/* PTX ISA "tcgen05.ld": shape 32x32b, .x2, 2 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x2(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%0, %1}, [%2];"
                       : "=r"(r[0]), "=r"(r[1])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 32x32b, .x4, 4 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x4(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 32x32b, .x8, 8 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x8(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 32x32b, .x16, 16 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x16(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
                       "%13, %14, %15}, [%16];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                         "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
                         "=r"(r[15])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 32x32b, .x32, 32 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x32(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
          "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]),
          "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
          "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
        : "r"(taddr)
        : "memory");
}

/* PTX ISA "tcgen05.ld": shape 32x32b, .x64, 64 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x64(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.32x32b.x64.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
                       "%13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                       "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, "
                       "%51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, [%64];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                         "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
                         "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]),
                         "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]),
                         "=r"(r[29]), "=r"(r[30]), "=r"(r[31]), "=r"(r[32]), "=r"(r[33]), "=r"(r[34]), "=r"(r[35]),
                         "=r"(r[36]), "=r"(r[37]), "=r"(r[38]), "=r"(r[39]), "=r"(r[40]), "=r"(r[41]), "=r"(r[42]),
                         "=r"(r[43]), "=r"(r[44]), "=r"(r[45]), "=r"(r[46]), "=r"(r[47]), "=r"(r[48]), "=r"(r[49]),
                         "=r"(r[50]), "=r"(r[51]), "=r"(r[52]), "=r"(r[53]), "=r"(r[54]), "=r"(r[55]), "=r"(r[56]),
                         "=r"(r[57]), "=r"(r[58]), "=r"(r[59]), "=r"(r[60]), "=r"(r[61]), "=r"(r[62]), "=r"(r[63])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 32x32b, .x128, 128 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_32x32b_x128(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM(
        "tcgen05.ld.sync.aligned.32x32b.x128.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, "
        "%59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "
        "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, "
        "%102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, [%128];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
          "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]),
          "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
          "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31]), "=r"(r[32]),
          "=r"(r[33]), "=r"(r[34]), "=r"(r[35]), "=r"(r[36]), "=r"(r[37]), "=r"(r[38]), "=r"(r[39]), "=r"(r[40]),
          "=r"(r[41]), "=r"(r[42]), "=r"(r[43]), "=r"(r[44]), "=r"(r[45]), "=r"(r[46]), "=r"(r[47]), "=r"(r[48]),
          "=r"(r[49]), "=r"(r[50]), "=r"(r[51]), "=r"(r[52]), "=r"(r[53]), "=r"(r[54]), "=r"(r[55]), "=r"(r[56]),
          "=r"(r[57]), "=r"(r[58]), "=r"(r[59]), "=r"(r[60]), "=r"(r[61]), "=r"(r[62]), "=r"(r[63]), "=r"(r[64]),
          "=r"(r[65]), "=r"(r[66]), "=r"(r[67]), "=r"(r[68]), "=r"(r[69]), "=r"(r[70]), "=r"(r[71]), "=r"(r[72]),
          "=r"(r[73]), "=r"(r[74]), "=r"(r[75]), "=r"(r[76]), "=r"(r[77]), "=r"(r[78]), "=r"(r[79]), "=r"(r[80]),
          "=r"(r[81]), "=r"(r[82]), "=r"(r[83]), "=r"(r[84]), "=r"(r[85]), "=r"(r[86]), "=r"(r[87]), "=r"(r[88]),
          "=r"(r[89]), "=r"(r[90]), "=r"(r[91]), "=r"(r[92]), "=r"(r[93]), "=r"(r[94]), "=r"(r[95]), "=r"(r[96]),
          "=r"(r[97]), "=r"(r[98]), "=r"(r[99]), "=r"(r[100]), "=r"(r[101]), "=r"(r[102]), "=r"(r[103]), "=r"(r[104]),
          "=r"(r[105]), "=r"(r[106]), "=r"(r[107]), "=r"(r[108]), "=r"(r[109]), "=r"(r[110]), "=r"(r[111]),
          "=r"(r[112]), "=r"(r[113]), "=r"(r[114]), "=r"(r[115]), "=r"(r[116]), "=r"(r[117]), "=r"(r[118]),
          "=r"(r[119]), "=r"(r[120]), "=r"(r[121]), "=r"(r[122]), "=r"(r[123]), "=r"(r[124]), "=r"(r[125]),
          "=r"(r[126]), "=r"(r[127])
        : "r"(taddr)
        : "memory");
}

/* PTX ISA "tcgen05.ld": shape 16x256b, .x1, 4 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_16x256b_x1(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.16x256b.x1.b32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 16x256b, .x2, 8 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_16x256b_x2(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.16x256b.x2.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 16x256b, .x4, 16 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_16x256b_x4(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.16x256b.x4.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, "
                       "%13, %14, %15}, [%16];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                         "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
                         "=r"(r[15])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 16x256b, .x8, 32 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_16x256b_x8(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM(
        "tcgen05.ld.sync.aligned.16x256b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
          "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]),
          "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
          "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
        : "r"(taddr)
        : "memory");
}

/* PTX ISA "tcgen05.ld": shape 16x256b, .x16, 64 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_16x256b_x16(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.16x256b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                       "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, "
                       "%31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
                       "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, [%64];"
                       : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                         "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
                         "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]),
                         "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]),
                         "=r"(r[29]), "=r"(r[30]), "=r"(r[31]), "=r"(r[32]), "=r"(r[33]), "=r"(r[34]), "=r"(r[35]),
                         "=r"(r[36]), "=r"(r[37]), "=r"(r[38]), "=r"(r[39]), "=r"(r[40]), "=r"(r[41]), "=r"(r[42]),
                         "=r"(r[43]), "=r"(r[44]), "=r"(r[45]), "=r"(r[46]), "=r"(r[47]), "=r"(r[48]), "=r"(r[49]),
                         "=r"(r[50]), "=r"(r[51]), "=r"(r[52]), "=r"(r[53]), "=r"(r[54]), "=r"(r[55]), "=r"(r[56]),
                         "=r"(r[57]), "=r"(r[58]), "=r"(r[59]), "=r"(r[60]), "=r"(r[61]), "=r"(r[62]), "=r"(r[63])
                       : "r"(taddr)
                       : "memory");
}

/* PTX ISA "tcgen05.ld": shape 16x256b, .x32, 128 registers per thread. */
static __device__ __forceinline__ void tcgen05_ld_16x256b_x32(uint32_t taddr, uint32_t *r)
{
    WSGEMM_TCGEN05_ASM(
        "tcgen05.ld.sync.aligned.16x256b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, "
        "%59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "
        "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, "
        "%102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, [%128];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
          "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]),
          "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
          "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31]), "=r"(r[32]),
          "=r"(r[33]), "=r"(r[34]), "=r"(r[35]), "=r"(r[36]), "=r"(r[37]), "=r"(r[38]), "=r"(r[39]), "=r"(r[40]),
          "=r"(r[41]), "=r"(r[42]), "=r"(r[43]), "=r"(r[44]), "=r"(r[45]), "=r"(r[46]), "=r"(r[47]), "=r"(r[48]),
          "=r"(r[49]), "=r"(r[50]), "=r"(r[51]), "=r"(r[52]), "=r"(r[53]), "=r"(r[54]), "=r"(r[55]), "=r"(r[56]),
          "=r"(r[57]), "=r"(r[58]), "=r"(r[59]), "=r"(r[60]), "=r"(r[61]), "=r"(r[62]), "=r"(r[63]), "=r"(r[64]),
          "=r"(r[65]), "=r"(r[66]), "=r"(r[67]), "=r"(r[68]), "=r"(r[69]), "=r"(r[70]), "=r"(r[71]), "=r"(r[72]),
          "=r"(r[73]), "=r"(r[74]), "=r"(r[75]), "=r"(r[76]), "=r"(r[77]), "=r"(r[78]), "=r"(r[79]), "=r"(r[80]),
          "=r"(r[81]), "=r"(r[82]), "=r"(r[83]), "=r"(r[84]), "=r"(r[85]), "=r"(r[86]), "=r"(r[87]), "=r"(r[88]),
          "=r"(r[89]), "=r"(r[90]), "=r"(r[91]), "=r"(r[92]), "=r"(r[93]), "=r"(r[94]), "=r"(r[95]), "=r"(r[96]),
          "=r"(r[97]), "=r"(r[98]), "=r"(r[99]), "=r"(r[100]), "=r"(r[101]), "=r"(r[102]), "=r"(r[103]), "=r"(r[104]),
          "=r"(r[105]), "=r"(r[106]), "=r"(r[107]), "=r"(r[108]), "=r"(r[109]), "=r"(r[110]), "=r"(r[111]),
          "=r"(r[112]), "=r"(r[113]), "=r"(r[114]), "=r"(r[115]), "=r"(r[116]), "=r"(r[117]), "=r"(r[118]),
          "=r"(r[119]), "=r"(r[120]), "=r"(r[121]), "=r"(r[122]), "=r"(r[123]), "=r"(r[124]), "=r"(r[125]),
          "=r"(r[126]), "=r"(r[127])
        : "r"(taddr)
        : "memory");
}

#endif /* WSGEMM_TMEM_TMEM_HW_CUH */
