// SPDX-License-Identifier: MIT
/*
 * testing_device.cu - the device side of the test support (testing.h): the spin kernel that holds a
 * stream while the timing harness queues the calls it times, and device-resident data for shapes too large
 * to fill and check on the host (wsgemm-bench's grid reaches 16384 x 16384 outputs: a host fill and check
 * of those takes seconds per shape). Kernels written in the C style of the rest of the project; every host
 * entry point has C linkage.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "testing.h"

/* ---------------------------------------------------------------- PTX wrappers */

/* PTX ISA 10.1 "Special registers: %globaltimer": a 64-bit nanosecond timer. Unlike clock64 it does not
 * depend on the SM clock, which moves between about 1.6 and 1.98 GHz on the H200 under load. */
static __device__ __forceinline__ unsigned long long read_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* ---------------------------------------------------------------- the spin kernel */

/* One thread that returns `ns` nanoseconds after it started. Work queued behind it on the same stream
 * cannot start before then, so the host can queue calls and events without the GPU running ahead. */
__global__ void testing_spin_kernel(unsigned long long ns)
{
    const unsigned long long t0 = read_globaltimer();
    while (read_globaltimer() - t0 < ns) {
    }
}

extern "C" cudaError_t testing_spin(cudaStream_t stream, double microseconds)
{
    testing_spin_kernel<<<1, 1, 0, stream>>>((unsigned long long)(microseconds * 1e3));
    return cudaGetLastError();
}

/* ---------------------------------------------------------------- device data */

/* Uniform [-1, 1] from the element index and the seed (splitmix64 of both, 24 bits): any element can be
 * made by any thread, so a fill of 268M elements takes milliseconds. */
static __device__ __forceinline__ float uniform_at(unsigned long long seed, unsigned long long i)
{
    unsigned long long z = seed * 0x9E3779B97F4A7C15ull + i * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(2.0 * ((double)(z >> 40) / (double)((1u << 24) - 1)) - 1.0);
}

static __device__ __forceinline__ float load_any(int type, const void *p, size_t i)
{
    if (type == WSGEMM_R_32F) return ((const float *)p)[i];
    if (type == WSGEMM_R_16BF) return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    if (type == WSGEMM_R_8F_E4M3 || type == WSGEMM_R_8F_E5M2)
        return __half2float(__half(__nv_cvt_fp8_to_halfraw(((const __nv_fp8_storage_t *)p)[i],
                                                           type == WSGEMM_R_8F_E4M3 ? __NV_E4M3 : __NV_E5M2)));
    return __half2float(((const __half *)p)[i]);
}

static __device__ __forceinline__ void store_any(int type, void *p, size_t i, float v)
{
    if (type == WSGEMM_R_32F)
        ((float *)p)[i] = v;
    else if (type == WSGEMM_R_16BF)
        ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v);
    else if (type == WSGEMM_R_8F_E4M3 || type == WSGEMM_R_8F_E5M2)
        ((__nv_fp8_storage_t *)p)[i] =
            __nv_cvt_float_to_fp8(v, __NV_SATFINITE, type == WSGEMM_R_8F_E4M3 ? __NV_E4M3 : __NV_E5M2);
    else
        ((__half *)p)[i] = __float2half_rn(v);
}

__global__ void testing_fill_kernel(int type, void *dst, size_t count, unsigned long long seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        store_any(type, dst, i, uniform_at(seed, i));
}

static unsigned grid_for(size_t count)
{
    size_t blocks = (count + 255) / 256;
    return (unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

extern "C" void testing_device_fill_uniform(wsgemm_dtype type, void *dst, size_t count, uint64_t seed)
{
    testing_fill_kernel<<<grid_for(count), 256>>>((int)type, dst, count, (unsigned long long)seed);
    CUDA_CHECK(cudaGetLastError());
}

/* out[b][i + j*m] = C(i, j) of batch b as fp32 (the tight copy the fp32 reference starts from). */
__global__ void testing_c_to_f32_kernel(int type, const void *c, int m, int n, long long ldc, long long stride,
                                        int batch, float *out)
{
    const size_t total = (size_t)m * n * batch;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
        const size_t col = e / (size_t)m, i = e - col * (size_t)m;
        const size_t b = col / (size_t)n, j = col - b * (size_t)n;
        out[e] = load_any(type, c, b * (size_t)stride + j * (size_t)ldc + i);
    }
}

extern "C" void testing_device_c_to_f32(const testing_gemm *g, const void *c, float *out)
{
    const size_t total = (size_t)g->m * g->n * g->batch;
    testing_c_to_f32_kernel<<<grid_for(total), 256>>>((int)g->c_type, c, g->m, g->n, g->ldc, g->strideC, g->batch, out);
    CUDA_CHECK(cudaGetLastError());
}

/* What the check kernels gather (device memory, zeroed before the first pass). */
typedef struct check_sums {
    double ref_sq, err_sq;
    unsigned long long mismatches, nans, first_bad;
    unsigned int max_err_bits; /* a non-negative float's bits order like the float */
} check_sums;

__global__ void testing_ref_sq_kernel(const float *ref, size_t total, check_sums *sums)
{
    double local = 0.0;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x)
        local += (double)ref[e] * ref[e];
    atomicAdd(&sums->ref_sq, local);
}

/* Every element of C against the reference, with testing_check's rule: |got - ref| <= atol + rtol |ref|,
 * NaN never passes. */
__global__ void testing_check_kernel(int type, const void *c, int m, int n, long long ldc, long long stride, int batch,
                                     const float *ref, double atol, double rtol, check_sums *sums)
{
    const size_t total = (size_t)m * n * batch;
    double err_sq = 0.0;
    unsigned long long bad = 0, nans = 0, first = ~0ull;
    float max_err = 0.0f;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
        const size_t col = e / (size_t)m, i = e - col * (size_t)m;
        const size_t b = col / (size_t)n, j = col - b * (size_t)n;
        const float got = load_any(type, c, b * (size_t)stride + j * (size_t)ldc + i);
        const double want = ref[e];
        const double err = fabs((double)got - want);
        if (isnan(got)) nans++;
        if (!isnan(err)) {
            err_sq += err * err;
            if ((float)err > max_err) max_err = (float)err;
        }
        if (!(err <= atol + rtol * fabs(want))) {
            bad++;
            if (e < first) first = e;
        }
    }
    atomicAdd(&sums->err_sq, err_sq);
    if (bad) {
        atomicAdd(&sums->mismatches, bad);
        atomicMin(&sums->first_bad, first);
    }
    if (nans) atomicAdd(&sums->nans, nans);
    atomicMax(&sums->max_err_bits, __float_as_uint(max_err));
}

extern "C" testing_report testing_device_check(const testing_gemm *g, const void *c, const float *ref,
                                               testing_tolerance tol, const char *label)
{
    testing_report r;
    memset(&r, 0, sizeof r);
    const size_t total = (size_t)g->m * g->n * g->batch;
    check_sums *d = NULL, h;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof *d));
    CUDA_CHECK(cudaMemset(d, 0, sizeof *d));
    CUDA_CHECK(cudaMemset(&d->first_bad, 0xFF, sizeof d->first_bad));
    testing_ref_sq_kernel<<<grid_for(total), 256>>>(ref, total, d);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    const double rms = total ? sqrt(h.ref_sq / (double)total) : 0.0;
    const double atol = tol.atol_rel_rms * (rms > 0 ? rms : 1.0);
    testing_check_kernel<<<grid_for(total), 256>>>((int)g->c_type, c, g->m, g->n, g->ldc, g->strideC, g->batch, ref,
                                                   atol, tol.rtol, d);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d));
    float max_err;
    memcpy(&max_err, &h.max_err_bits, sizeof max_err);
    r.checked = total;
    r.mismatches = (size_t)h.mismatches;
    r.nan_count = (size_t)h.nans;
    r.max_abs_err = max_err;
    r.rel_fro = h.nans ? NAN : (h.ref_sq > 0 ? sqrt(h.err_sq / h.ref_sq) : sqrt(h.err_sq));
    r.passed = r.mismatches == 0 && r.nan_count == 0 && r.rel_fro <= tol.max_rel_fro;
    if (!r.passed) {
        char shape[256];
        testing_gemm_describe(g, shape, sizeof shape);
        if (r.mismatches) {
            const size_t e = (size_t)h.first_bad, col = e / (size_t)g->m;
            fprintf(stderr, "  mismatch [%s] %s: %zu elements off (first: batch %zu C(%zu,%zu)), %zu NaN\n", label,
                    shape, r.mismatches, col / (size_t)g->n, e % (size_t)g->m, col % (size_t)g->n, r.nan_count);
        } else {
            fprintf(stderr, "  [%s] %s: relative Frobenius error %.3g above %.3g\n", label, shape, r.rel_fro,
                    tol.max_rel_fro);
        }
    }
    return r;
}

/* ---------------------------------------------------------------- a separate epilogue kernel (wsgemm-matmul-bench) */

/* d(i, j) = act(d(i, j) + bias[i]) in place, one element per thread step, consecutive threads on consecutive
 * rows (coalesced). */
__global__ void testing_bias_activation_kernel(int d_type, void *d, int m, int n, long long ld, int bias_type,
                                               const void *bias, int gelu)
{
    const size_t total = (size_t)m * n;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {
        const size_t j = e / (size_t)m, i = e - j * (size_t)m;
        float x = load_any(d_type, d, i + j * (size_t)ld);
        if (bias) x += load_any(bias_type, bias, i);
        if (gelu)
            x = 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
        else
            x = fmaxf(x, 0.0f);
        store_any(d_type, d, i + j * (size_t)ld, x);
    }
}

extern "C" cudaError_t testing_bias_activation(wsgemm_dtype d_type, void *d, int m, int n, long long ld,
                                               wsgemm_dtype bias_type, const void *bias, int gelu, cudaStream_t stream)
{
    int device = 0, sms = 132;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    testing_bias_activation_kernel<<<(unsigned)sms * 8, 256, 0, stream>>>((int)d_type, d, m, n, ld, (int)bias_type,
                                                                          bias, gelu);
    return cudaGetLastError();
}
