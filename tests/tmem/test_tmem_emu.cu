// SPDX-License-Identifier: MIT
/*
 * test_tmem_emu.cu - GPU tests of the TMEM emulation backend (emu/tmem_emu.cuh) on Hopper (sm_90a).
 *
 * Correctness cases: operand tiles are written to shared memory in the layout TMA would produce for each
 * (major, swizzle) (tile_offset below: box geometry + the swizzle XOR, written independently of the
 * emulation's descriptor decoding), descriptors are encoded from that geometry with tmem/desc.h
 * (tile_desc), K = 64 is done as four K=16 UMMAs with the descriptor advanced per step, and the result is
 * read back with tcgen05.ld by four epilogue warps (one per lane quarter) and compared with an fp64 host
 * reference. cta_group 2 cases run on a cluster pair (M = 256, B split across the pair, D in both CTAs).
 * gemm_1024 / gemm_1024_cg2 run a 1024^3 GEMM through the emulation and print the time.
 *
 * Misuse cases (misuse_*): each plants one rule violation in a kernel run in a forked child process (a
 * trap kills the CUDA context); the case passes only if the checker recorded the expected error code
 * (printed with its message) - or, for the leak, if the host leak query reports the columns.
 * misuse_control runs a correct kernel the same way and must report no error: the harness can pass.
 * Happens-before cases (hb_*, the same way): hb_control is an MMA warp and an epilogue warp handing one
 * accumulator back and forth correctly (no report); hb_release_early (the epilogue releases before its
 * read) and hb_no_fence_after (no tcgen05.fence::after_thread_sync before the read) must be reported as
 * RACE whatever the interleaving. ld_poison_until_wait: tcgen05.ld registers hold the poison pattern until
 * tcgen05.wait::ld.
 *
 * Every CTA barrier that orders TMEM accesses is cta_barrier_sync() (sync/named_barrier.cuh), not
 * __syncthreads(), so the emulation's happens-before tracking sees it.
 *
 * Usage: test_tmem_emu <case>   (ctest runs one process per case). Exit 0 pass, 1 fail, 77 skipped.
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/emulation.cuh" /* first: the hooks sync/ reports to and the TMEM backend */
#include "sync/cluster.cuh"
#include "sync/mbarrier.cuh"
#include "sync/named_barrier.cuh"
#include "sync/wait.cuh"
#include "testing.h"
#include "tmem/tmem.cuh"

#define CHECK_CUDA(call) CUDA_CHECK(call)

#include "tile_layout.h"

/* ================================================================ the UMMA test kernel */

typedef struct umma_params {
    operand_layout a, b;
    uint32_t n; /* instruction N (whole pair for cta_group 2) */
    uint32_t k; /* total K, a multiple of 16 */
    uint32_t idesc;
    uint32_t d_col; /* accumulator column offset inside the 512-column allocation */
    uint32_t use_16x256b;
} umma_params;

/* Round up to the next 1024-B boundary of the SHARED address (the swizzle works on shared-address bits). */
static __device__ __forceinline__ uint8_t *align1024(uint8_t *p)
{
    uint32_t saddr = (uint32_t)__cvta_generic_to_shared(p);
    return p + ((1024u - (saddr & 1023u)) & 1023u);
}

/* The test kernels' end: every thread done with TMEM (both CTAs of a pair, and with each other's smem),
 * then warp 0 relinquishes and frees the columns. */
template <int CG>
static __device__ __forceinline__ void teardown(uint32_t tmem_base, uint32_t ncols, uint32_t warp)
{
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    if (CG == 2) cluster_sync();
    if (warp == 0) {
        tmem_relinquish_alloc_permit<CG>();
        tcgen05_fence_after_thread_sync();
        tmem_dealloc<CG>(tmem_base, ncols);
    }
}

/* A: M x K row-major (K contiguous) in global; B: N x K row-major. D: M x N fp32 (row-major).
 * D16 (optional): what the 16x256b loads returned, scattered by the documented fragment mapping. */
template <int CG>
__global__ void __launch_bounds__(128, 1)
    umma_test_kernel(const uint16_t *A, const uint16_t *B, float *D, float *D16, umma_params p)
{
    extern __shared__ uint8_t smem_raw[];
    __shared__ uint64_t mma_done;
    __shared__ uint32_t tmem_slot;
    uint8_t *tiles = align1024(smem_raw);
    uint32_t rank = (CG == 2) ? cluster_ctarank() : 0;
    uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    uint32_t rows_b = p.n / CG;
    uint32_t a_bytes = 128 * p.k * 2;
    uint8_t *a_tile = tiles, *b_tile = tiles + ((a_bytes + 1023) & ~1023u);
    uint32_t m0 = rank * 128, n0 = rank * rows_b;
    for (uint32_t idx = threadIdx.x; idx < 128 * p.k; idx += blockDim.x) {
        uint32_t r = idx / p.k, k = idx % p.k;
        *(uint16_t *)(a_tile + tile_offset(p.a, r, k, 128, p.k)) = A[(size_t)(m0 + r) * p.k + k];
    }
    for (uint32_t idx = threadIdx.x; idx < rows_b * p.k; idx += blockDim.x) {
        uint32_t r = idx / p.k, k = idx % p.k;
        *(uint16_t *)(b_tile + tile_offset(p.b, r, k, rows_b, p.k)) = B[(size_t)(n0 + r) * p.k + k];
    }
    if (threadIdx.x == 0) {
        mbarrier_init(&mma_done, 1); /* one arrival: the commit (multicast: one in each CTA) */
        fence_mbarrier_init();
    }
    fence_proxy_async_shared_cta(); /* ordinary smem stores, read by the tensor core */
    cta_barrier_sync();
    if (CG == 2) cluster_sync(); /* barriers initialised and tiles written in both CTAs */
    if (warp == 0) tmem_alloc<CG>(&tmem_slot, 512);
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    if (CG == 2) cluster_sync(); /* the peer's alloc completed before the leader's MMA writes its TMEM */
    tcgen05_fence_after_thread_sync();
    uint32_t tmem_base = tmem_slot;
    uint32_t d_tmem = tmem_base + p.d_col;
    if (warp == 0 && rank == 0) {
        uint32_t a_saddr = (uint32_t)__cvta_generic_to_shared(a_tile);
        uint32_t b_saddr = (uint32_t)__cvta_generic_to_shared(b_tile);
        for (uint32_t s = 0; s < p.k / 16; s++)
            umma_f16_warp<CG>(d_tmem, tile_desc(p.a, a_saddr, 128, p.k, s), tile_desc(p.b, b_saddr, rows_b, p.k, s),
                              p.idesc, s > 0);
        if (CG == 1)
            umma_commit_warp<CG>(&mma_done);
        else
            umma_commit_multicast_warp<CG>(&mma_done, 0x3);
    }
    mbarrier_wait(&mma_done, 0, CG == 2 ? WAIT_CLUSTER : WAIT_CTA, 0, "mma_done", 0);
    __syncwarp(); /* reconverge after the per-lane spin before the .sync.aligned loads */
    tcgen05_fence_after_thread_sync();
    /* Epilogue: warp w reads lanes 32w .. 32w+31 = rows m0 + 32w + lane. */
    uint32_t row = 32 * warp + lane;
    for (uint32_t c = 0; c < p.n; c += 32) {
        uint32_t regs[32];
        tmem_ld_32x32b_x32(d_tmem + ((32 * warp) << 16) + c, regs);
        tmem_wait_ld_regs<32>(regs);
        for (uint32_t i = 0; i < 32 && c + i < p.n; i++) D[(size_t)(m0 + row) * p.n + c + i] = __uint_as_float(regs[i]);
    }
    if (p.use_16x256b && D16) {
        for (uint32_t half = 0; half < 2; half++) {
            uint32_t lane0 = 32 * warp + 16 * half;
            for (uint32_t c = 0; c < p.n; c += 64) {
                uint32_t regs[32];
                tmem_ld_16x256b_x8(d_tmem + (lane0 << 16) + c, regs);
                tmem_wait_ld();
                for (uint32_t i = 0; i < 32; i++) {
                    uint32_t r = lane0 + lane / 4 + 8 * ((i / 2) % 2);
                    uint32_t col = c + 2 * (lane % 4) + i % 2 + 8 * (i / 4);
                    if (col < p.n) D16[(size_t)(m0 + r) * p.n + col] = __uint_as_float(regs[i]);
                }
            }
        }
    }
    teardown<CG>(tmem_base, 512u, warp);
}

/* ================================================================ the block-scaled (MXFP8) test kernel */

/* MXFP8: A (M x K) and B (N x K) E4M3 bytes, K-major, K = 128 * nkb; SA (M x K/32) and SB (N x K/32) UE8M0
 * bytes, row-major. Each CTA writes its A rows, its half of B's rows (cta_group 2) and, per k-block, the chunks
 * of its own 128 rows of SA and of all N rows of SB (512 bytes per 128 rows, tmem/desc.h's order) into shared
 * memory; the leader's MMA warp copies each k-block's chunks into the scale slot of that k-block (columns 384 +
 * 32 slot; `single_slot`: slot 0 for every k-block) with tcgen05.cp, then issues the 4 scaled MMAs of the
 * k-block (scale factor IDs 0..3), one commit at the end. D: M x N fp32. */
enum { MX_MAX_KB = 2, MX_SLOT_COL = 384, MX_SLOT_COLS = 32 };

template <int CG>
__global__ void __launch_bounds__(128, 1)
    mx_test_kernel(const uint8_t *A, const uint8_t *B, const uint8_t *SA, const uint8_t *SB, float *D, uint32_t n,
                   uint32_t nkb, uint32_t single_slot)
{
    extern __shared__ uint8_t smem_raw[];
    __shared__ uint64_t mma_done;
    __shared__ uint32_t tmem_slot;
    const operand_layout L = {MAJ_K, 128};
    const uint32_t K = 128u * nkb, ks = K / 32u, sb_chunks = (n + 127u) / 128u;
    uint8_t *tiles = align1024(smem_raw);
    uint32_t rank = (CG == 2) ? cluster_ctarank() : 0;
    uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    uint32_t rows_b = n / CG, m0 = rank * 128u, n0 = rank * rows_b;
    uint8_t *a_tile = tiles, *b_tile = tiles + 128u * K, *sf = b_tile + ((rows_b * K + 1023u) & ~1023u);
    /* per k-block: one chunk of SA, then sb_chunks of SB */
    const uint32_t kb_sf_bytes = (1u + sb_chunks) * UMMA_SF_CHUNK_BYTES;
    for (uint32_t idx = threadIdx.x; idx < 128u * K; idx += blockDim.x) {
        uint32_t r = idx / K, k = idx % K;
        a_tile[tile_offset_eb(L, r, k, 128, K, 1)] = A[(size_t)(m0 + r) * K + k];
    }
    for (uint32_t idx = threadIdx.x; idx < rows_b * K; idx += blockDim.x) {
        uint32_t r = idx / K, k = idx % K;
        b_tile[tile_offset_eb(L, r, k, rows_b, K, 1)] = B[(size_t)(n0 + r) * K + k];
    }
    for (uint32_t idx = threadIdx.x; idx < nkb * kb_sf_bytes; idx += blockDim.x) {
        uint32_t kb = idx / kb_sf_bytes, rest = idx % kb_sf_bytes, chunk = rest / UMMA_SF_CHUNK_BYTES;
        uint32_t r = rest % UMMA_SF_CHUNK_BYTES / 4u, sub = rest % 4u; /* any order covering the chunk */
        uint8_t v = 127;                                               /* rows past N: 1.0 (never read) */
        if (chunk == 0)
            v = SA[(size_t)(m0 + r) * ks + 4u * kb + sub];
        else if (128u * (chunk - 1u) + r < n)
            v = SB[(size_t)(128u * (chunk - 1u) + r) * ks + 4u * kb + sub];
        sf[kb * kb_sf_bytes + chunk * UMMA_SF_CHUNK_BYTES + umma_sf_chunk_offset(r, sub)] = v;
    }
    if (threadIdx.x == 0) {
        mbarrier_init(&mma_done, 1);
        fence_mbarrier_init();
    }
    fence_proxy_async_shared_cta(); /* ordinary smem stores, read by tcgen05.cp and the tensor core */
    cta_barrier_sync();
    if (CG == 2) cluster_sync();
    if (warp == 0) tmem_alloc<CG>(&tmem_slot, 512);
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    if (CG == 2) cluster_sync();
    tcgen05_fence_after_thread_sync();
    const uint32_t tmem_base = tmem_slot;
    if (warp == 0 && rank == 0) {
        const uint32_t a_saddr = (uint32_t)__cvta_generic_to_shared(a_tile);
        const uint32_t b_saddr = (uint32_t)__cvta_generic_to_shared(b_tile);
        const uint32_t sf_saddr = (uint32_t)__cvta_generic_to_shared(sf);
        for (uint32_t kb = 0; kb < nkb; kb++) {
            const uint32_t slot = tmem_base + MX_SLOT_COL + MX_SLOT_COLS * (single_slot ? 0u : kb);
            const uint32_t kb_sf = sf_saddr + kb * kb_sf_bytes;
            for (uint32_t c = 0; c <= sb_chunks; c++)
                umma_cp_sf_warp<CG>(slot + UMMA_SF_CHUNK_COLS * c, umma_sf_cp_desc(kb_sf + c * UMMA_SF_CHUNK_BYTES));
            for (uint32_t s = 0; s < 4; s++) {
                const uint32_t idesc = umma_idesc_mxf8f6f4_encode(UMMA_E4M3, UMMA_E4M3, UMMA_SF_UE8M0, UMMA_K_MAJOR,
                                                                  UMMA_K_MAJOR, 0, 0, 128u * CG, n, s, s);
                umma_mma_scaled_warp<CG>(tmem_base, tile_desc_eb(L, a_saddr, 128, K, 4 * kb + s, 1),
                                         tile_desc_eb(L, b_saddr, rows_b, K, 4 * kb + s, 1), idesc, slot,
                                         slot + UMMA_SF_CHUNK_COLS, (kb | s) != 0);
            }
        }
        if (CG == 1)
            umma_commit_warp<CG>(&mma_done);
        else
            umma_commit_multicast_warp<CG>(&mma_done, 0x3);
    }
    mbarrier_wait(&mma_done, 0, CG == 2 ? WAIT_CLUSTER : WAIT_CTA, 0, "mma_done", 0);
    __syncwarp();
    tcgen05_fence_after_thread_sync();
    const uint32_t row = 32 * warp + lane;
    for (uint32_t c = 0; c < n; c += 32) {
        uint32_t regs[32];
        tmem_ld_32x32b_x32(tmem_base + ((32 * warp) << 16) + c, regs);
        tmem_wait_ld_regs<32>(regs);
        for (uint32_t i = 0; i < 32 && c + i < n; i++) D[(size_t)(m0 + row) * n + c + i] = __uint_as_float(regs[i]);
    }
    teardown<CG>(tmem_base, 512u, warp);
}

/* Launch mx_test_kernel on random E4M3 data and factors in [2^-8, 2^8] (one 2^-127 and one 2^113 too);
 * `check`: compare D with the fp64 reference (sum over the 32-K sub-blocks of factor_A x factor_B x the
 * sub-block's products). Returns 0 when D agrees (or, unchecked, when the kernel ran). */
static int run_mx(int cg, uint32_t n, uint32_t nkb, uint32_t single_slot, int check)
{
    const uint32_t M = 128u * (uint32_t)cg, K = 128u * nkb, ks = K / 32u;
    testing_rng rng = testing_rng_seeded(0x3e4a0000u + n * 5u + (uint32_t)cg * 3u + nkb);
    size_t na = (size_t)M * K, nb = (size_t)n * K, nd = (size_t)M * n;
    uint8_t *hA = (uint8_t *)malloc(na), *hB = (uint8_t *)malloc(nb), *hSA = (uint8_t *)malloc((size_t)M * ks),
            *hSB = (uint8_t *)malloc((size_t)n * ks);
    float *hD = (float *)malloc(nd * 4);
    for (size_t i = 0; i < na; i++) hA[i] = testing_float_to_fp8(testing_rng_uniform(&rng), WSGEMM_R_8F_E4M3);
    for (size_t i = 0; i < nb; i++) hB[i] = testing_float_to_fp8(testing_rng_uniform(&rng), WSGEMM_R_8F_E4M3);
    for (size_t i = 0; i < (size_t)M * ks; i++) hSA[i] = (uint8_t)(119u + testing_rng_next(&rng) % 17u);
    for (size_t i = 0; i < (size_t)n * ks; i++) hSB[i] = (uint8_t)(119u + testing_rng_next(&rng) % 17u);
    hSA[3] = 0;   /* 2^-127 */
    hSB[5] = 240; /* 2^113: large, the products still within fp32 */
    uint8_t *dA, *dB, *dSA, *dSB;
    float *dD;
    CHECK_CUDA(cudaMalloc(&dA, na));
    CHECK_CUDA(cudaMalloc(&dB, nb));
    CHECK_CUDA(cudaMalloc(&dSA, (size_t)M * ks));
    CHECK_CUDA(cudaMalloc(&dSB, (size_t)n * ks));
    CHECK_CUDA(cudaMalloc(&dD, nd * 4));
    CHECK_CUDA(cudaMemcpy(dA, hA, na, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, hB, nb, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dSA, hSA, (size_t)M * ks, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dSB, hSB, (size_t)n * ks, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(dD, 0xFF, nd * 4));
    const uint32_t sb_chunks = (n + 127u) / 128u, rows_b = n / (uint32_t)cg;
    size_t smem = 1024 + 128u * K + ((rows_b * K + 1023u) & ~1023u) + nkb * (1u + sb_chunks) * UMMA_SF_CHUNK_BYTES;
    CHECK_CUDA(tmem_host_prepare(0));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)cg, 1, 1);
    cfg.blockDim = dim3(128, 1, 1);
    cfg.dynamicSmemBytes = smem;
    if (cg == 2) {
        cluster_launch_config(&cfg, attr, 2u);
        CHECK_CUDA(cudaFuncSetAttribute(mx_test_kernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CHECK_CUDA(cudaLaunchKernelEx(&cfg, mx_test_kernel<2>, (const uint8_t *)dA, (const uint8_t *)dB,
                                      (const uint8_t *)dSA, (const uint8_t *)dSB, dD, n, nkb, single_slot));
    } else {
        CHECK_CUDA(cudaFuncSetAttribute(mx_test_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CHECK_CUDA(cudaLaunchKernelEx(&cfg, mx_test_kernel<1>, (const uint8_t *)dA, (const uint8_t *)dB,
                                      (const uint8_t *)dSA, (const uint8_t *)dSB, dD, n, nkb, single_slot));
    }
    char msg[1024];
    int leaked = tmem_host_leak_check(0, msg, sizeof msg);
    int rc = leaked != 0;
    if (leaked != 0) printf("  leak check returned %d: %s\n", leaked, msg);
    if (check && !rc) {
        CHECK_CUDA(cudaMemcpy(hD, dD, nd * 4, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        double max_rel = 0;
        for (uint32_t m = 0; m < M; m++)
            for (uint32_t j = 0; j < n; j++) {
                double ref = 0, mag = 0;
                for (uint32_t b = 0; b < ks; b++) {
                    double part = 0, pmag = 0;
                    for (uint32_t k = 32u * b; k < 32u * b + 32u; k++) {
                        double x = (double)testing_fp8_to_float(hA[(size_t)m * K + k], WSGEMM_R_8F_E4M3) *
                                   (double)testing_fp8_to_float(hB[(size_t)j * K + k], WSGEMM_R_8F_E4M3);
                        part += x;
                        pmag += fabs(x);
                    }
                    double f =
                        ldexp(1.0, (int)hSA[(size_t)m * ks + b] - 127) * ldexp(1.0, (int)hSB[(size_t)j * ks + b] - 127);
                    ref += f * part;
                    mag += f * pmag;
                }
                double got = hD[(size_t)m * n + j], err = fabs(got - ref);
                /* fp32 sums of 32 products per instruction, then fp32 accumulation over at most 8 of them */
                if (!(err <= 1e-5 * mag + 1e-30)) {
                    if (bad < 5)
                        printf("  mismatch D[%u][%u] = %.9g, reference %.9g (|terms| %.3g)\n", m, j, got, ref, mag);
                    bad++;
                }
                if (mag > 0 && err / mag > max_rel) max_rel = err / mag;
            }
        printf("  MXFP8 cta_group %d, M=%u N=%u K=%u (%u k-blocks x 4 scaled MMAs), E4M3 x E4M3, UE8M0 factors via "
               "tcgen05.cp: %zu mismatches of %zu, max error / magnitude %.3g\n",
               cg, M, n, K, nkb, bad, nd, max_rel);
        rc = bad != 0;
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dSA);
    cudaFree(dSB);
    cudaFree(dD);
    free(hA);
    free(hB);
    free(hSA);
    free(hSB);
    free(hD);
    return rc;
}

/* ================================================================ host helpers */

static void fill_operand(uint16_t *h, float *f, size_t count, int bf16, testing_rng *rng)
{
    for (size_t i = 0; i < count; i++) {
        float v = testing_rng_uniform(rng);
        h[i] = bf16 ? testing_float_to_bf16(v) : testing_float_to_half(v);
        f[i] = bf16 ? testing_bf16_to_float(h[i]) : testing_half_to_float(h[i]);
    }
}

typedef struct umma_case {
    const char *name;
    int cg;
    operand_layout a, b;
    uint32_t n;
    int bf16;
    int negate_a;
    uint32_t d_col;
    int use_16x256b;
    uint32_t delay_ns;
} umma_case;

static int run_umma_case(const umma_case *c)
{
    const uint32_t M = 128u * (uint32_t)c->cg, N = c->n, K = 64;
    testing_rng rng = testing_rng_seeded(0x5eed0000u + N * 7u + (uint32_t)c->cg);
    size_t na = (size_t)M * K, nb = (size_t)N * K, nd = (size_t)M * N;
    uint16_t *hA = (uint16_t *)malloc(na * 2), *hB = (uint16_t *)malloc(nb * 2);
    float *fA = (float *)malloc(na * 4), *fB = (float *)malloc(nb * 4), *hD = (float *)malloc(nd * 4),
          *hD16 = (float *)malloc(nd * 4);
    fill_operand(hA, fA, na, c->bf16, &rng);
    fill_operand(hB, fB, nb, c->bf16, &rng);
    uint16_t *dA, *dB;
    float *dD, *dD16;
    CHECK_CUDA(cudaMalloc(&dA, na * 2));
    CHECK_CUDA(cudaMalloc(&dB, nb * 2));
    CHECK_CUDA(cudaMalloc(&dD, nd * 4));
    CHECK_CUDA(cudaMalloc(&dD16, nd * 4));
    CHECK_CUDA(cudaMemcpy(dA, hA, na * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, hB, nb * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(dD, 0xFF, nd * 4));
    CHECK_CUDA(cudaMemset(dD16, 0xFF, nd * 4));

    umma_params p;
    memset(&p, 0, sizeof p);
    p.a = c->a;
    p.b = c->b;
    p.n = N;
    p.k = K;
    p.d_col = c->d_col;
    p.use_16x256b = (uint32_t)c->use_16x256b;
    umma_dtype t = c->bf16 ? UMMA_BF16 : UMMA_F16;
    p.idesc = umma_idesc_f16_encode(UMMA_ACC_F32, t, t, c->a.major ? UMMA_MN_MAJOR : UMMA_K_MAJOR,
                                    c->b.major ? UMMA_MN_MAJOR : UMMA_K_MAJOR, c->negate_a, 0, M, N);
    size_t smem = 1024 + ((128u * K * 2 + 1023) & ~1023u) + (N / (uint32_t)c->cg) * K * 2;

    tmem_host_set_random_delays(c->delay_ns, 12345);
    CHECK_CUDA(tmem_host_prepare(0));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)c->cg, 1, 1);
    cfg.blockDim = dim3(128, 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = 0;
    if (c->cg == 2) {
        cluster_launch_config(&cfg, attr, 2u);
        CHECK_CUDA(cudaFuncSetAttribute(umma_test_kernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CHECK_CUDA(
            cudaLaunchKernelEx(&cfg, umma_test_kernel<2>, (const uint16_t *)dA, (const uint16_t *)dB, dD, dD16, p));
    } else {
        CHECK_CUDA(cudaFuncSetAttribute(umma_test_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CHECK_CUDA(
            cudaLaunchKernelEx(&cfg, umma_test_kernel<1>, (const uint16_t *)dA, (const uint16_t *)dB, dD, dD16, p));
    }
    char msg[1024];
    int leaked = tmem_host_leak_check(0, msg, sizeof msg);
    tmem_host_set_random_delays(0, 0);
    if (leaked != 0) {
        printf("  FAIL: leak check returned %d: %s\n", leaked, msg);
        return 1;
    }
    CHECK_CUDA(cudaMemcpy(hD, dD, nd * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(hD16, dD16, nd * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0, bad16 = 0;
    double max_err = 0;
    for (uint32_t m = 0; m < M; m++) {
        for (uint32_t n = 0; n < N; n++) {
            double ref = 0;
            for (uint32_t k = 0; k < K; k++) ref += (double)fA[(size_t)m * K + k] * (double)fB[(size_t)n * K + k];
            if (c->negate_a) ref = -ref;
            double got = hD[(size_t)m * N + n];
            double err = fabs(got - ref);
            if (!(err <= 1e-4 + 1e-4 * fabs(ref))) {
                if (bad < 5) printf("  mismatch D[%u][%u] = %.6f, reference %.6f\n", m, n, got, ref);
                bad++;
            }
            if (err > max_err || err != err) max_err = err;
            if (c->use_16x256b && memcmp(&hD16[(size_t)m * N + n], &hD[(size_t)m * N + n], 4) != 0) {
                if (bad16 < 5)
                    printf("  16x256b mismatch at [%u][%u]: %.6f vs 32x32b %.6f\n", m, n, hD16[(size_t)m * N + n],
                           hD[(size_t)m * N + n]);
                bad16++;
            }
        }
    }
    printf("  %s: cta_group %d, M=%u N=%u K=%u (4 x K=16 steps), A %s-major swizzle %d, B %s-major swizzle %d, %s, "
           "negate A %d, D at column %u%s%s: %zu mismatches of %zu, max |err| %.3g%s\n",
           c->name, c->cg, M, N, K, c->a.major ? "MN" : "K", c->a.swizzle, c->b.major ? "MN" : "K", c->b.swizzle,
           c->bf16 ? "bf16" : "f16", c->negate_a, c->d_col, c->use_16x256b ? ", 16x256b loads compared" : "",
           c->delay_ns ? ", random delays" : "", bad, (size_t)M * N, max_err,
           c->use_16x256b ? (bad16 ? " (16x256b WRONG)" : " (16x256b agrees)") : "");
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dD);
    cudaFree(dD16);
    free(hA);
    free(hB);
    free(fA);
    free(fB);
    free(hD);
    free(hD16);
    return (bad || bad16) ? 1 : 0;
}

/* ================================================================ allocation round trip */

/* Every CTA allocates 256 columns (two fit per SM), 4 CTAs per SM compete (small smem): the later ones block
 * in tmem_alloc until an earlier one frees. Fresh columns read back as the poison pattern. */
__global__ void __launch_bounds__(128) alloc_kernel(uint32_t *bad, uint32_t *max_col)
{
    __shared__ uint32_t tmem_slot;
    uint32_t warp = threadIdx.x / 32;
    if (warp == 0) tmem_alloc<1>(&tmem_slot, 256);
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    tcgen05_fence_after_thread_sync();
    uint32_t base = tmem_slot;
    if (threadIdx.x == 0) atomicMax(max_col, tmem_addr_column(base));
    for (uint32_t c = 0; c < 256; c += 64) {
        uint32_t regs[64];
        tmem_ld_32x32b_x64(base + ((32 * warp) << 16) + c, regs);
        tmem_wait_ld();
        for (int i = 0; i < 64; i++)
            if (regs[i] != TMEM_EMU_POISON) atomicAdd(bad, 1u);
    }
    __nanosleep(20000); /* hold the columns a while so co-resident CTAs really block */
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    if (warp == 0) {
        tmem_relinquish_alloc_permit<1>();
        tcgen05_fence_after_thread_sync();
        tmem_dealloc<1>(base, 256);
    }
}

static int case_alloc_ld_roundtrip(void)
{
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    uint32_t *d;
    CHECK_CUDA(cudaMalloc(&d, 8));
    CHECK_CUDA(cudaMemset(d, 0, 8));
    CHECK_CUDA(tmem_host_prepare(0));
    alloc_kernel<<<4 * sms, 128>>>(d, d + 1);
    CHECK_CUDA(cudaGetLastError());
    char msg[1024];
    int leaked = tmem_host_leak_check(0, msg, sizeof msg);
    uint32_t h[2];
    CHECK_CUDA(cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost));
    cudaFree(d);
    printf("  %d CTAs x 256 columns on %d SMs (4 per SM, 2 fit): completed, %u non-poison cells in fresh "
           "allocations, highest base column %u, leak query %d %s\n",
           4 * sms, sms, h[0], h[1], leaked, msg);
    return (leaked == 0 && h[0] == 0 && h[1] == 256) ? 0 : 1;
}

/* ================================================================ 1024^3 GEMM through the emulation */

/* C (M x N fp32) = A (M x K) * B (N x K)^T, bf16 K-major SW128 tiles, BK = 64, one smem stage.
 * cta_group 1: 128 x 256 tile per CTA. cta_group 2: 256 x 256 per pair (cluster 2x1), each CTA loads its
 * 128 rows of A and 128 rows of B; the leader issues M=256 MMAs; commit multicast to both CTAs. */
template <int CG>
__global__ void __launch_bounds__(128, 1)
    gemm_kernel(const uint16_t *A, const uint16_t *B, float *C, uint32_t M, uint32_t N, uint32_t K)
{
    extern __shared__ uint8_t smem_raw[];
    __shared__ uint64_t mma_done;
    __shared__ uint32_t tmem_slot;
    const uint32_t BK = 64, TN = 256;
    const operand_layout L = {MAJ_K, 128};
    uint8_t *a_tile = align1024(smem_raw), *b_tile = a_tile + 128 * BK * 2;
    uint32_t rank = (CG == 2) ? cluster_ctarank() : 0;
    uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    uint32_t m0 = (CG == 2) ? (blockIdx.x / 2) * 256 + rank * 128 : blockIdx.x * 128;
    uint32_t n0 = blockIdx.y * TN;
    uint32_t rows_b = TN / CG, nb0 = n0 + rank * rows_b;
    if (threadIdx.x == 0) {
        mbarrier_init(&mma_done, 1);
        fence_mbarrier_init();
    }
    cta_barrier_sync();
    if (CG == 2) cluster_sync();
    /* The address hand-off through named barrier 1 (all 128 threads), as the sm100 kernel does it. */
    uint32_t d_tmem =
        (warp == 0) ? tmem_alloc_and_publish<CG>(&tmem_slot, 256, 1, 128) : tmem_receive_address(&tmem_slot, 1, 128);
    if (CG == 2) cluster_sync(); /* the peer's alloc completed before the leader's first MMA */
    tcgen05_fence_after_thread_sync();
    const uint32_t idesc =
        umma_idesc_f16_encode(UMMA_ACC_F32, UMMA_BF16, UMMA_BF16, UMMA_K_MAJOR, UMMA_K_MAJOR, 0, 0, 128 * CG, TN);
    uint32_t phase = 0;
    for (uint32_t kb = 0; kb < K / BK; kb++) {
        for (uint32_t idx = threadIdx.x; idx < 128 * BK / 8; idx += blockDim.x) { /* 8 elements = 16 B at a time */
            uint32_t r = idx / (BK / 8), k = (idx % (BK / 8)) * 8;
            *(uint4 *)(a_tile + tile_offset(L, r, k, 128, BK)) =
                *(const uint4 *)(A + (size_t)(m0 + r) * K + kb * BK + k);
        }
        for (uint32_t idx = threadIdx.x; idx < rows_b * BK / 8; idx += blockDim.x) {
            uint32_t r = idx / (BK / 8), k = (idx % (BK / 8)) * 8;
            *(uint4 *)(b_tile + tile_offset(L, r, k, rows_b, BK)) =
                *(const uint4 *)(B + (size_t)(nb0 + r) * K + kb * BK + k);
        }
        fence_proxy_async_shared_cta();
        cta_barrier_sync();
        if (CG == 2) cluster_sync(); /* the peer's tiles are written too */
        if (warp == 0 && rank == 0) {
            tcgen05_fence_after_thread_sync();
            uint32_t a_saddr = (uint32_t)__cvta_generic_to_shared(a_tile);
            uint32_t b_saddr = (uint32_t)__cvta_generic_to_shared(b_tile);
            for (uint32_t s = 0; s < BK / 16; s++)
                umma_f16_warp<CG>(d_tmem, tile_desc(L, a_saddr, 128, BK, s), tile_desc(L, b_saddr, rows_b, BK, s),
                                  idesc, (kb | s) != 0);
            if (CG == 1)
                umma_commit_warp<CG>(&mma_done);
            else
                umma_commit_multicast_warp<CG>(&mma_done, 0x3);
        }
        /* Both the next stage's overwrite and the epilogue wait for the MMAs of this stage. */
        mbarrier_wait(&mma_done, phase, CG == 2 ? WAIT_CLUSTER : WAIT_CTA, 0, "mma_done", kb);
        __syncwarp(); /* reconverge after the per-lane spin */
        phase ^= 1;
        tcgen05_fence_after_thread_sync();
    }
    uint32_t row = m0 + 32 * warp + lane;
    for (uint32_t c = 0; c < TN; c += 32) {
        uint32_t regs[32];
        tmem_ld_32x32b_x32(d_tmem + ((32 * warp) << 16) + c, regs);
        tmem_wait_ld();
        for (uint32_t i = 0; i < 32; i++) C[(size_t)row * N + n0 + c + i] = __uint_as_float(regs[i]);
    }
    teardown<CG>(d_tmem, 256u, warp);
}

static int case_gemm_1024(int cg)
{
    const uint32_t M = 1024, N = 1024, K = 1024;
    testing_rng rng = testing_rng_seeded(777);
    size_t na = (size_t)M * K, nb = (size_t)N * K, nc = (size_t)M * N;
    uint16_t *hA = (uint16_t *)malloc(na * 2), *hB = (uint16_t *)malloc(nb * 2);
    float *fA = (float *)malloc(na * 4), *fB = (float *)malloc(nb * 4), *hC = (float *)malloc(nc * 4);
    fill_operand(hA, fA, na, 1, &rng);
    fill_operand(hB, fB, nb, 1, &rng);
    uint16_t *dA, *dB;
    float *dC;
    CHECK_CUDA(cudaMalloc(&dA, na * 2));
    CHECK_CUDA(cudaMalloc(&dB, nb * 2));
    CHECK_CUDA(cudaMalloc(&dC, nc * 4));
    CHECK_CUDA(cudaMemcpy(dA, hA, na * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, hB, nb * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(dC, 0xFF, nc * 4));
    size_t smem = 1024 + 128 * 64 * 2 + (256 / cg) * 64 * 2;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.blockDim = dim3(128, 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.gridDim = dim3(M / 128, N / 256, 1);
    if (cg == 2) {
        cluster_launch_config(&cfg, attr, 2u);
    }
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(tmem_host_prepare(0));
    CHECK_CUDA(cudaEventRecord(e0));
    if (cg == 2) {
        CHECK_CUDA(cudaFuncSetAttribute(gemm_kernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CHECK_CUDA(cudaLaunchKernelEx(&cfg, gemm_kernel<2>, (const uint16_t *)dA, (const uint16_t *)dB, dC, M, N, K));
    } else {
        CHECK_CUDA(cudaFuncSetAttribute(gemm_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CHECK_CUDA(cudaLaunchKernelEx(&cfg, gemm_kernel<1>, (const uint16_t *)dA, (const uint16_t *)dB, dC, M, N, K));
    }
    CHECK_CUDA(cudaEventRecord(e1));
    char msg[1024];
    int leaked = tmem_host_leak_check(0, msg, sizeof msg);
    if (leaked != 0) {
        printf("  FAIL: leak check %d: %s\n", leaked, msg);
        return 1;
    }
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    CHECK_CUDA(cudaMemcpy(hC, dC, nc * 4, cudaMemcpyDeviceToHost));
    /* Every element of 64 sampled rows and 64 sampled columns (about 128k of the 1M outputs). */
    size_t bad = 0, checked = 0;
    for (uint32_t m = 0; m < M; m++) {
        for (uint32_t n = 0; n < N; n++) {
            if (m % 16 != 3 && n % 16 != 11) continue;
            double ref = 0;
            for (uint32_t k = 0; k < K; k++) ref += (double)fA[(size_t)m * K + k] * (double)fB[(size_t)n * K + k];
            double got = hC[(size_t)m * N + n];
            checked++;
            if (!(fabs(got - ref) <= 2e-3 + 1e-4 * fabs(ref))) {
                if (bad < 5) printf("  mismatch C[%u][%u] = %.6f, reference %.6f\n", m, n, got, ref);
                bad++;
            }
        }
    }
    printf("  1024^3 bf16 GEMM through the emulation, cta_group %d (%s tiles, %u CTAs): %.1f ms; %zu of %zu checked "
           "elements wrong\n",
           cg, cg == 2 ? "256x256 per pair" : "128x256", M / 128 * (N / 256), ms, bad, checked);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(hA);
    free(hB);
    free(fA);
    free(fB);
    free(hC);
    return (bad == 0 && ms < 10000.0f) ? 0 : 1;
}

/* ================================================================ planted misuse */

enum misuse_kind {
    MISUSE_CONTROL,
    MISUSE_DEALLOC_BEFORE_LD,
    MISUSE_LEAK,
    MISUSE_WRONG_WARP_LD,
    MISUSE_ALLOC_AFTER_RELINQUISH,
    MISUSE_DOUBLE_DEALLOC,
    MISUSE_BAD_NCOLS,
    MISUSE_DESC_VERSION,
    MISUSE_IDESC_M_BIT23,
    MISUSE_WARP_ISSUE,
    MISUSE_CTA_GROUP_MIX,
    MISUSE_MMA_AFTER_DEALLOC,
    MISUSE_PART_OF_WARP_LD
};

/* One CTA of 128 threads: warp 0 allocates and (normally) frees; warp 1 plays the epilogue; `kind` plants
 * one bug. The MMA operands are a tiny K-major SW128 tile of zeros (the checker fires before the math). */
__global__ void __launch_bounds__(128) misuse_kernel(int kind, uint32_t *sink)
{
    __shared__ __align__(1024) uint8_t tile[128 * 64 * 2];
    __shared__ uint64_t mma_done;
    __shared__ uint32_t tmem_slot;
    uint32_t warp = threadIdx.x / 32;
    for (uint32_t i = threadIdx.x; i < sizeof tile / 4; i += blockDim.x) ((uint32_t *)tile)[i] = 0;
    if (threadIdx.x == 0) {
        mbarrier_init(&mma_done, 1); /* the commit of warp 0's MMA */
        fence_mbarrier_init();
    }
    fence_proxy_async_shared_cta();
    cta_barrier_sync();
    uint32_t ncols = (kind == MISUSE_BAD_NCOLS) ? 96 : 128;
    if (warp == 0) tmem_alloc<1>(&tmem_slot, ncols);
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    tcgen05_fence_after_thread_sync();
    uint32_t base = tmem_slot;
    uint32_t saddr = (uint32_t)__cvta_generic_to_shared(tile);
    uint64_t a_desc = umma_smem_desc_k_major(saddr, UMMA_SWIZZLE_128B);
    uint32_t idesc =
        umma_idesc_f16_encode(UMMA_ACC_F32, UMMA_BF16, UMMA_BF16, UMMA_K_MAJOR, UMMA_K_MAJOR, 0, 0, 128, 64);
    if (warp == 0) {
        if (kind == MISUSE_DESC_VERSION) /* SM90 habit: bit 46 left 0 */
            umma_f16_warp<1>(base, a_desc & ~(1ull << 46), a_desc, idesc, 0);
        else if (kind == MISUSE_IDESC_M_BIT23) /* M >> 4 written at bit 23 instead of 24 */
            umma_f16_warp<1>(base, a_desc, a_desc, (idesc & ~(0x1Fu << 24)) | ((128u >> 4) << 23), 0);
        else if (kind == MISUSE_WARP_ISSUE) /* the one-thread API from the whole warp: 32 MMAs on hardware */
            umma_f16<1>(base, a_desc, a_desc, idesc, 0);
        else
            umma_f16_warp<1>(base, a_desc, a_desc, idesc, 0);
        umma_commit_warp<1>(&mma_done);
    }
    /* everyone reads D only after the MMA completed (commit + wait + fence: PTX ISA tcgen05 memory
     * consistency, "non-pipelined instructions, different thread") */
    mbarrier_wait(&mma_done, 0, WAIT_CTA, 0, "mma_done", 0);
    __syncwarp();
    tcgen05_fence_after_thread_sync();
    cta_barrier_sync();
    if (kind == MISUSE_DEALLOC_BEFORE_LD && warp == 0) tmem_dealloc<1>(base, ncols); /* before the epilogue's last ld */
    if (kind == MISUSE_MMA_AFTER_DEALLOC && warp == 0) {
        tmem_dealloc<1>(base, ncols);
        umma_f16_warp<1>(base, a_desc, a_desc, idesc, 0);
    }
    cta_barrier_sync();
    if (warp == 1) {
        uint32_t regs[32];
        /* wrong warp: warp 1 may only read lanes 32..63, not lane quarter 0 */
        uint32_t lane_base = (kind == MISUSE_WRONG_WARP_LD) ? 0u : 32u;
        for (int i = 0; i < 32; i++) regs[i] = 0;
        /* part of a warp: lanes 16..31 skip the .sync.aligned load (undefined on hardware) */
        if (kind != MISUSE_PART_OF_WARP_LD || threadIdx.x % 32 < 16) tmem_ld_32x32b_x32(base + (lane_base << 16), regs);
        tmem_wait_ld();
        uint32_t s = 0;
        for (int i = 0; i < 32; i++) s += regs[i];
        sink[threadIdx.x] = s;
    }
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    if (warp == 0) {
        if (kind == MISUSE_CTA_GROUP_MIX)
            tmem_relinquish_alloc_permit<2>();
        else
            tmem_relinquish_alloc_permit<1>();
        if (kind == MISUSE_ALLOC_AFTER_RELINQUISH) tmem_alloc<1>(&tmem_slot, 32);
        tcgen05_fence_after_thread_sync();
        if (kind != MISUSE_LEAK && kind != MISUSE_DEALLOC_BEFORE_LD && kind != MISUSE_MMA_AFTER_DEALLOC)
            tmem_dealloc<1>(base, ncols);
        if (kind == MISUSE_DOUBLE_DEALLOC) tmem_dealloc<1>(base, ncols);
    }
}

/* cta_group 2 allocation in a kernel launched without a cluster. */
__global__ void __launch_bounds__(32) misuse_no_cluster_kernel(void)
{
    __shared__ uint32_t tmem_slot;
    tmem_alloc<2>(&tmem_slot, 32);
    tmem_relinquish_alloc_permit<2>();
    tmem_dealloc<2>(tmem_slot, 32);
}

/* cta_group 2 on a cluster pair: CTA 0 deallocates while CTA 1's epilogue has not read yet (the
 * missing-peer-signal bug). The pair's allocation is collective, so CTA 1's read must be reported. */
__global__ void __launch_bounds__(128) misuse_pair_kernel(uint32_t *sink)
{
    __shared__ uint32_t tmem_slot;
    uint32_t warp = threadIdx.x / 32, rank = cluster_ctarank();
    cluster_sync();
    if (warp == 0) tmem_alloc<2>(&tmem_slot, 128);
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    cluster_sync(); /* both allocations complete */
    tcgen05_fence_after_thread_sync();
    uint32_t base = tmem_slot;
    if (rank == 0 && warp == 0) {
        tmem_relinquish_alloc_permit<2>();
        tmem_dealloc<2>(base, 128); /* without waiting for the peer's epilogue */
    }
    cluster_sync();
    if (rank == 1 && warp == 1) {
        uint32_t regs[32];
        tmem_ld_32x32b_x32(base + (32u << 16), regs);
        tmem_wait_ld();
        sink[threadIdx.x] = regs[0];
    }
    cluster_sync();
    if (rank == 1 && warp == 0) {
        tmem_relinquish_alloc_permit<2>();
        tmem_dealloc<2>(base, 128);
    }
}

/* Happens-before: warp 0 is an MMA warp, warp 1 an epilogue warp (lane quarter 1) that reads each of two
 * results of one accumulator; full (the commit) and empty (32 epilogue arrivals) hand it back and forth.
 * HB_CONTROL is the correct protocol. HB_RELEASE_EARLY: the epilogue arrives on empty before its read of
 * the first result; HB_NO_FENCE_AFTER: it reads without tcgen05.fence::after_thread_sync after the full
 * wait. Both races are reported however the run interleaves. HB_LD_POISON (the correct protocol) also
 * stores what the tcgen05.ld registers hold before and after tcgen05.wait::ld. */
enum hb_kind_case { HB_CONTROL, HB_RELEASE_EARLY, HB_NO_FENCE_AFTER, HB_LD_POISON };

__global__ void __launch_bounds__(64) hb_kernel(int kind, uint32_t *out)
{
    __shared__ __align__(1024) uint8_t tile[128 * 64 * 2];
    __shared__ uint64_t full, empty;
    __shared__ uint32_t tmem_slot;
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (uint32_t i = threadIdx.x; i < sizeof tile / 4; i += blockDim.x)
        ((uint32_t *)tile)[i] = 0; /* A = B = 0: every result is 0.0f */
    if (threadIdx.x == 0) {
        mbarrier_init(&full, 1);   /* the MMA warp's commit */
        mbarrier_init(&empty, 32); /* every epilogue thread */
        fence_mbarrier_init();
    }
    fence_proxy_async_shared_cta();
    cta_barrier_sync();
    const uint32_t base =
        warp == 0 ? tmem_alloc_and_publish<1>(&tmem_slot, 128, 1, 64) : tmem_receive_address(&tmem_slot, 1, 64);
    const uint64_t desc = umma_smem_desc_k_major((uint32_t)__cvta_generic_to_shared(tile), UMMA_SWIZZLE_128B);
    const uint32_t idesc =
        umma_idesc_f16_encode(UMMA_ACC_F32, UMMA_BF16, UMMA_BF16, UMMA_K_MAJOR, UMMA_K_MAJOR, 0, 0, 128, 128);
    for (uint32_t round = 0; round < 2; round++) {
        if (warp == 0) {
            mbarrier_wait(&empty, round ^ 1u, WAIT_CTA, 0, "empty", 0); /* round 0: the pre-phase (empty) */
            __syncwarp();
            tcgen05_fence_after_thread_sync();
            umma_f16_warp<1>(base, desc, desc, idesc, 0);
            umma_commit_warp<1>(&full);
        } else {
            const bool early = kind == HB_RELEASE_EARLY && round == 0;
            mbarrier_wait(&full, round, WAIT_CTA, 0, "full", 0);
            __syncwarp();
            if (kind != HB_NO_FENCE_AFTER) tcgen05_fence_after_thread_sync();
            if (early) { /* planted: released before the read */
                tcgen05_fence_before_thread_sync();
                mbarrier_arrive(&empty);
            }
            uint32_t regs[32];
            tmem_ld_32x32b_x32(base + (32u << 16), regs);
            if (kind == HB_LD_POISON && round == 0)
                out[lane] = regs[0]; /* before the wait: must be the poison pattern */
            tmem_wait_ld_regs<32>(regs);
            if (kind == HB_LD_POISON && round == 0) out[32 + lane] = regs[0]; /* after: the MMA's result */
            if (!early) {
                tcgen05_fence_before_thread_sync();
                mbarrier_arrive(&empty);
            }
        }
    }
    tcgen05_fence_before_thread_sync();
    cta_barrier_sync();
    if (warp == 0) {
        tmem_relinquish_alloc_permit<1>();
        tcgen05_fence_after_thread_sync();
        tmem_dealloc<1>(base, 128);
    }
}

static int case_ld_poison_until_wait(void)
{
    uint32_t *d, h[64];
    CHECK_CUDA(cudaMalloc(&d, sizeof h));
    CHECK_CUDA(tmem_host_prepare(0));
    hb_kernel<<<1, 64>>>(HB_LD_POISON, d);
    char msg[1024];
    int leaked = tmem_host_leak_check(0, msg, sizeof msg);
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    cudaFree(d);
    int before = 0, after = 0;
    for (int l = 0; l < 32; l++) {
        before += h[l] == (uint32_t)TMEM_EMU_POISON;
        after += h[32 + l] == 0u;
    }
    printf("  tcgen05.ld registers before tcgen05.wait::ld: %d of 32 lanes hold the poison pattern; after: %d of 32 "
           "hold the MMA's 0.0 (leak query %d %s)\n",
           before, after, leaked, msg);
    return (before == 32 && after == 32 && leaked == 0) ? 0 : 1;
}

/* In the child: run the planted kernel, then judge. Returns the child's exit code. */
static int misuse_child(const char *name, int kind, int expect_code)
{
    testing_require_gpu(name);
    if (testing_device_cc() != 90) {
        printf("SKIPPED: the TMEM emulation is built for sm_90a; this device is cc %d\n", testing_device_cc());
        return WSGEMM_TEST_SKIP;
    }
    uint32_t *sink;
    CHECK_CUDA(cudaMalloc(&sink, 128 * 4));
    CHECK_CUDA(tmem_host_prepare(0));
    if (kind == -1) {
        misuse_no_cluster_kernel<<<1, 32>>>();
    } else if (kind == -2) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        cluster_launch_config(&cfg, attr, 2u);
        cfg.gridDim = dim3(2, 1, 1);
        cfg.blockDim = dim3(128, 1, 1);
        CHECK_CUDA(cudaLaunchKernelEx(&cfg, misuse_pair_kernel, sink));
    } else if (kind <= -10) { /* the MX kernel, two k-blocks; -10: a slot per k-block, -11: one slot for both */
        run_mx(kind == -12 ? 2 : 1, 192, 2, kind != -10, 0);
    } else if (kind <= -3) {
        hb_kernel<<<1, 64>>>(-3 - kind, sink); /* -3 - kind: enum hb_kind_case */
    } else
        misuse_kernel<<<1, 128>>>(kind, sink);
    char msg[1024], rec[1024];
    int leaked = tmem_host_leak_check(0, msg, sizeof msg);
    int code = tmem_host_last_error(rec, sizeof rec);
    printf("  child: leak query %d (%s); checker record: %s\n", leaked, msg[0] ? msg : "clean", rec);
    if (kind == MISUSE_LEAK) {
        int ok = leaked == 128 && code == TMEM_EMU_OK;
        printf("  %s: %s\n", name, ok ? "leak of 128 columns reported by tmem_host_leak_check" : "leak NOT reported");
        return ok ? 0 : 1;
    }
    if (expect_code == TMEM_EMU_OK) {
        int ok = leaked == 0 && code == TMEM_EMU_OK;
        printf("  %s: correct kernel %s\n", name, ok ? "runs clean (no error, no leak)" : "reported an error");
        return ok ? 0 : 1;
    }
    int ok = leaked == -1 && code == expect_code;
    printf("  %s: expected %s, checker fired with %s -> %s\n", name, tmem_emu_error_name((uint32_t)expect_code),
           tmem_emu_error_name((uint32_t)code), ok ? "caught" : "NOT caught");
    return ok ? 0 : 1;
}

static int run_misuse(const char *name, int kind, int expect_code)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        alarm(120);                       /* a hang (e.g. a checker that blocks instead of trapping) kills the child */
        setvbuf(stdout, NULL, _IOLBF, 0); /* each line out as it is printed: a killed child shows how far it got */
        int rc = misuse_child(name, kind, expect_code);
        fflush(stdout);
        _exit(rc);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) {
        perror("waitpid");
        return 1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    printf("  %s: child died with signal %d\n", name, WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    return 1;
}

/* ================================================================ main */

static const operand_layout K128 = {MAJ_K, 128}, K64 = {MAJ_K, 64}, K32 = {MAJ_K, 32}, KNONE = {MAJ_K, 0};
static const operand_layout MN128 = {MAJ_MN, 128}, MN64 = {MAJ_MN, 64}, MN32 = {MAJ_MN, 32}, MNNONE = {MAJ_MN, 0};

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "";
    static const umma_case umma_cases[] = {
        /* name              cg  A       B       N    bf16 negA d_col 16x256b delay */
        {"umma_k128_n64", 1, K128, K128, 64, 1, 0, 0, 0, 0},
        {"umma_k128_n128", 1, K128, K128, 128, 1, 0, 256, 0, 0},
        {"umma_k128_n256", 1, K128, K128, 256, 1, 0, 0, 0, 0},
        {"umma_mn128_n64", 1, MN128, MN128, 64, 1, 0, 0, 0, 0},
        {"umma_mn128_n256", 1, MN128, MN128, 256, 1, 0, 256, 0, 0},
        {"umma_mixed_n192", 1, K128, MN128, 192, 0, 0, 64, 0, 0},
        {"umma_k64_n128", 1, K64, K64, 128, 1, 0, 0, 0, 0},
        {"umma_k32_n128", 1, K32, K32, 128, 1, 0, 0, 0, 0},
        {"umma_none_n128", 1, KNONE, KNONE, 128, 1, 0, 0, 0, 0},
        {"umma_mn64_n128", 1, MN64, MN64, 128, 0, 0, 0, 0, 0},
        {"umma_mn32_n128", 1, MN32, MN32, 128, 1, 0, 0, 0, 0},
        {"umma_mnnone_n128", 1, MNNONE, MNNONE, 128, 1, 0, 0, 0, 0},
        {"umma_negate", 1, K128, K128, 128, 1, 1, 0, 0, 0},
        {"ld_16x256b", 1, K128, K128, 128, 1, 0, 128, 1, 0},
        {"cg2_k128_n256", 2, K128, K128, 256, 1, 0, 0, 0, 0},
        {"cg2_mn128_n128", 2, MN128, MN128, 128, 1, 0, 128, 0, 0},
        {"cg2_k128_n64", 2, K128, K128, 64, 1, 0, 0, 0, 0},
        {"delays", 2, K128, MN128, 256, 1, 0, 0, 1, 3000},
    };
    static const struct {
        const char *name;
        int kind, expect;
    } misuse_cases[] = {
        {"misuse_control", MISUSE_CONTROL, TMEM_EMU_OK},
        {"misuse_dealloc_before_ld", MISUSE_DEALLOC_BEFORE_LD, TMEM_EMU_ERR_UNALLOCATED_ACCESS},
        {"misuse_leak", MISUSE_LEAK, TMEM_EMU_OK},
        {"misuse_wrong_warp_ld", MISUSE_WRONG_WARP_LD, TMEM_EMU_ERR_LANE_QUARTER},
        {"misuse_alloc_after_relinquish", MISUSE_ALLOC_AFTER_RELINQUISH, TMEM_EMU_ERR_ALLOC_AFTER_RELINQUISH},
        {"misuse_double_dealloc", MISUSE_DOUBLE_DEALLOC, TMEM_EMU_ERR_DOUBLE_DEALLOC},
        {"misuse_bad_ncols", MISUSE_BAD_NCOLS, TMEM_EMU_ERR_NCOLS},
        {"misuse_desc_version", MISUSE_DESC_VERSION, TMEM_EMU_ERR_BAD_DESC},
        {"misuse_idesc_m_bit23", MISUSE_IDESC_M_BIT23, TMEM_EMU_ERR_BAD_DESC},
        {"misuse_warp_issue", MISUSE_WARP_ISSUE, TMEM_EMU_ERR_MULTI_THREAD_ISSUE},
        {"misuse_cta_group_mix", MISUSE_CTA_GROUP_MIX, TMEM_EMU_ERR_CTA_GROUP_MIX},
        {"misuse_mma_after_dealloc", MISUSE_MMA_AFTER_DEALLOC, TMEM_EMU_ERR_UNALLOCATED_ACCESS},
        {"misuse_part_of_warp_ld", MISUSE_PART_OF_WARP_LD, TMEM_EMU_ERR_NOT_CONVERGED},
        {"misuse_cg2_no_cluster", -1, TMEM_EMU_ERR_NO_CLUSTER},
        {"misuse_pair_dealloc_before_peer_ld", -2, TMEM_EMU_ERR_PAIR_DEALLOCATED},
        {"hb_control", -3 - HB_CONTROL, TMEM_EMU_OK},
        {"hb_release_early", -3 - HB_RELEASE_EARLY, TMEM_EMU_ERR_RACE},
        {"hb_no_fence_after", -3 - HB_NO_FENCE_AFTER, TMEM_EMU_ERR_RACE},
        {"hb_mx_slots", -10, TMEM_EMU_OK},
        {"hb_mx_single_slot", -11, TMEM_EMU_ERR_RACE},
        {"hb_mx_single_slot_cg2", -12, TMEM_EMU_ERR_RACE},
    };
    int all = strcmp(name, "all") == 0, ran = 0, failed = 0;

    /* Misuse cases first: the parent must not touch CUDA before fork(). */
    for (size_t i = 0; i < sizeof misuse_cases / sizeof misuse_cases[0]; i++) {
        if (!all && strcmp(name, misuse_cases[i].name) != 0) continue;
        printf("test_tmem_emu %s\n", misuse_cases[i].name);
        int rc = run_misuse(misuse_cases[i].name, misuse_cases[i].kind, misuse_cases[i].expect);
        if (rc == WSGEMM_TEST_SKIP) return WSGEMM_TEST_SKIP;
        printf("  %s\n", rc == 0 ? "PASS" : "FAILED");
        failed += rc != 0;
        ran++;
    }
    int need_gpu = all;
    for (size_t i = 0; i < sizeof umma_cases / sizeof umma_cases[0]; i++)
        need_gpu |= strcmp(name, umma_cases[i].name) == 0;
    static const struct {
        const char *name;
        int cg;
        uint32_t n, nkb;
    } mx_cases[] = {{"mx_k128_n192", 1, 192, 1},
                    {"mx_k256_n128", 1, 128, 2},
                    {"mx_k256_n256", 1, 256, 2},
                    {"mx_cg2_k128_n192", 2, 192, 1},
                    {"mx_cg2_k256_n256", 2, 256, 2}};
    for (size_t i = 0; i < sizeof mx_cases / sizeof mx_cases[0]; i++) need_gpu |= strcmp(name, mx_cases[i].name) == 0;
    need_gpu |= !strcmp(name, "alloc_ld_roundtrip") || !strcmp(name, "gemm_1024") || !strcmp(name, "gemm_1024_cg2") ||
                !strcmp(name, "ld_poison_until_wait");
    if (need_gpu) {
        testing_require_gpu("test_tmem_emu");
        if (testing_device_cc() != 90) {
            printf("SKIPPED: the TMEM emulation is built for sm_90a; this device is cc %d\n", testing_device_cc());
            return WSGEMM_TEST_SKIP;
        }
    }
    for (size_t i = 0; i < sizeof umma_cases / sizeof umma_cases[0]; i++) {
        if (!all && strcmp(name, umma_cases[i].name) != 0) continue;
        printf("test_tmem_emu %s\n", umma_cases[i].name);
        int rc = run_umma_case(&umma_cases[i]);
        printf("  %s\n", rc == 0 ? "PASS" : "FAILED");
        failed += rc != 0;
        ran++;
    }
    for (size_t i = 0; i < sizeof mx_cases / sizeof mx_cases[0]; i++) {
        if (!all && strcmp(name, mx_cases[i].name) != 0) continue;
        printf("test_tmem_emu %s\n", mx_cases[i].name);
        int rc = run_mx(mx_cases[i].cg, mx_cases[i].n, mx_cases[i].nkb, 0, 1);
        printf("  %s\n", rc == 0 ? "PASS" : "FAILED");
        failed += rc != 0;
        ran++;
    }
    if (all || !strcmp(name, "alloc_ld_roundtrip")) {
        printf("test_tmem_emu alloc_ld_roundtrip\n");
        int rc = case_alloc_ld_roundtrip();
        printf("  %s\n", rc == 0 ? "PASS" : "FAILED");
        failed += rc != 0;
        ran++;
    }
    if (all || !strcmp(name, "ld_poison_until_wait")) {
        printf("test_tmem_emu ld_poison_until_wait\n");
        int rc = case_ld_poison_until_wait();
        printf("  %s\n", rc == 0 ? "PASS" : "FAILED");
        failed += rc != 0;
        ran++;
    }
    for (int cg = 1; cg <= 2; cg++) {
        const char *n = cg == 1 ? "gemm_1024" : "gemm_1024_cg2";
        if (!all && strcmp(name, n) != 0) continue;
        printf("test_tmem_emu %s\n", n);
        int rc = case_gemm_1024(cg);
        printf("  %s\n", rc == 0 ? "PASS" : "FAILED");
        failed += rc != 0;
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown case '%s'\n", name);
        return 2;
    }
    return failed ? 1 : 0;
}
