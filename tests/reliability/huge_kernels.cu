// SPDX-License-Identifier: MIT
/*
 * huge_kernels.cu - device helpers for operands too large for host buffers: a hash-based uniform
 * generator, an fp64 reference for a small C with a huge k, and an element-wise check of a huge C with a
 * small k. Every index is 64-bit. They share nothing with the library's kernels (plain loads, fp64 sums).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "reliability.h"

namespace
{

constexpr int kThreads = 256;
constexpr long long kMinChunk = 1 << 16; /* k elements per block of the small-C reference, at least */
constexpr int kMaxChunks = 4096;

/* How op(A) and op(B) are read: element (i, kk) of op(A) and (kk, j) of op(B). */
struct Operands {
    const uint16_t *A;
    const uint16_t *B;
    long long lda, ldb;
    int a_trans, b_trans;
    int f16; /* 1: fp16, 0: bf16 */
};

Operands operands_of(const testing_gemm *g, const void *A, const void *B)
{
    Operands o;
    o.A = static_cast<const uint16_t *>(A);
    o.B = static_cast<const uint16_t *>(B);
    o.lda = g->lda;
    o.ldb = g->ldb;
    o.a_trans = g->transa == WSGEMM_OP_T;
    o.b_trans = g->transb == WSGEMM_OP_T;
    o.f16 = g->ab_type == WSGEMM_R_16F;
    return o;
}

__device__ double load16(const uint16_t *p, long long i, int f16)
{
    uint16_t u = p[i];
    return f16 ? (double)__half2float(__ushort_as_half(u)) : (double)__bfloat162float(__ushort_as_bfloat16(u));
}

__device__ double a_at(const Operands &o, long long i, long long kk)
{
    return load16(o.A, o.a_trans ? kk + i * o.lda : i + kk * o.lda, o.f16);
}

__device__ double b_at(const Operands &o, long long kk, long long j)
{
    return load16(o.B, o.b_trans ? j + kk * o.ldb : kk + j * o.ldb, o.f16);
}

__device__ uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__global__ void fill_uniform_kernel(uint16_t *p, size_t count, uint64_t seed, int f16)
{
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
        uint64_t r = mix64(seed * 0x9E3779B97F4A7C15ull + i);
        float u = (float)(2.0 * (double)(r >> 40) / (double)((1u << 24) - 1) - 1.0); /* [-1, 1] */
        p[i] = f16 ? __half_as_ushort(__float2half_rn(u)) : __bfloat16_as_ushort(__float2bfloat16_rn(u));
    }
}

/* Sum of v over the block in a fixed tree order. */
__device__ double block_sum(double v)
{
    __shared__ double part[kThreads];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    return part[0];
}

/* Block (x, y): output y = i + j*m, k range [x*chunk, (x+1)*chunk). */
__global__ void dot_partials_kernel(Operands o, int m, long long k, long long chunk, double *partials)
{
    const long long out = blockIdx.y, i = out % m, j = out / m;
    const long long k0 = (long long)blockIdx.x * chunk;
    const long long k1 = k0 + chunk < k ? k0 + chunk : k;
    double acc = 0.0;
    for (long long kk = k0 + threadIdx.x; kk < k1; kk += kThreads) acc += a_at(o, i, kk) * b_at(o, kk, j);
    double total = block_sum(acc);
    if (threadIdx.x == 0) partials[out * gridDim.x + blockIdx.x] = total;
}

struct CheckCounts {
    unsigned long long mismatches, nans, max_err_bits;
    long long first_bad;
};

__global__ void check_c_kernel(Operands o, int m, long long mn, int k, double alpha, const void *C, long long ldc,
                               wsgemm_dtype c_type, double rtol, double atol, CheckCounts *out)
{
    unsigned long long bad = 0, nans = 0;
    double max_err = 0.0;
    long long first = LLONG_MAX;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < mn; idx += step) {
        const long long i = idx % m, j = idx / m;
        double acc = 0.0;
        for (int kk = 0; kk < k; ++kk) acc += a_at(o, i, kk) * b_at(o, kk, j);
        const double want = alpha * acc;
        const long long ci = i + j * ldc;
        const double got = c_type == WSGEMM_R_32F
                               ? (double)static_cast<const float *>(C)[ci]
                               : load16(static_cast<const uint16_t *>(C), ci, c_type == WSGEMM_R_16F);
        const double err = fabs(got - want);
        if (isnan(got)) nans++;
        if (!(err <= atol + rtol * fabs(want))) { /* NaN compares false: never passes */
            bad++;
            if (idx < first) first = idx;
        }
        if (err > max_err) max_err = err;
    }
    atomicAdd(&out->mismatches, bad);
    atomicAdd(&out->nans, nans);
    atomicMax(&out->max_err_bits, (unsigned long long)__double_as_longlong(max_err)); /* >= 0: bits order as values */
    atomicMin(&out->first_bad, first);
}

} // namespace

extern "C" void rel_device_fill_uniform(void *ptr, wsgemm_dtype type, size_t count, uint64_t seed)
{
    fill_uniform_kernel<<<4096, kThreads>>>(static_cast<uint16_t *>(ptr), count, seed, type == WSGEMM_R_16F);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}

extern "C" void rel_device_reference_small_c(const testing_gemm *g, const void *A, const void *B, double *out)
{
    const int outputs = g->m * g->n;
    if (g->batch != 1 || outputs <= 0 || outputs > 65535) {
        fprintf(stderr, "rel_device_reference_small_c: needs batch 1 and 1 <= m*n <= 65535\n");
        exit(1);
    }
    long long chunk = ((long long)g->k + kMaxChunks - 1) / kMaxChunks;
    if (chunk < kMinChunk) chunk = kMinChunk;
    const int chunks = (int)(((long long)g->k + chunk - 1) / chunk);
    double *partials = NULL;
    CUDA_CHECK(cudaMalloc((void **)&partials, sizeof(double) * (size_t)chunks * (size_t)outputs));
    dot_partials_kernel<<<dim3((unsigned)chunks, (unsigned)outputs), kThreads>>>(operands_of(g, A, B), g->m, g->k,
                                                                                 chunk, partials);
    CUDA_CHECK(cudaGetLastError());
    double *host = (double *)malloc(sizeof(double) * (size_t)chunks * (size_t)outputs);
    CUDA_CHECK(cudaMemcpy(host, partials, sizeof(double) * (size_t)chunks * (size_t)outputs, cudaMemcpyDeviceToHost));
    for (int o = 0; o < outputs; ++o) {
        double sum = 0.0;
        for (int c = 0; c < chunks; ++c) sum += host[(size_t)o * chunks + c];
        out[o] = (double)g->alpha * sum;
    }
    free(host);
    CUDA_CHECK(cudaFree(partials));
}

extern "C" rel_device_report rel_device_check_c(const testing_gemm *g, const void *A, const void *B, const void *C,
                                                double rtol, double atol)
{
    CheckCounts init = {0, 0, 0, LLONG_MAX}, counts;
    CheckCounts *d = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof *d));
    CUDA_CHECK(cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice));
    const long long mn = (long long)g->m * g->n;
    long long blocks = (mn + kThreads - 1) / kThreads;
    if (blocks > (1 << 20)) blocks = 1 << 20;
    check_c_kernel<<<(unsigned)blocks, kThreads>>>(operands_of(g, A, B), g->m, mn, g->k, (double)g->alpha, C, g->ldc,
                                                   g->c_type, rtol, atol, d);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&counts, d, sizeof counts, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d));
    rel_device_report r;
    r.checked = (unsigned long long)mn;
    r.mismatches = counts.mismatches;
    r.nans = counts.nans;
    memcpy(&r.max_abs_err, &counts.max_err_bits, sizeof r.max_abs_err);
    r.first_bad = counts.first_bad == LLONG_MAX ? -1 : counts.first_bad;
    return r;
}
