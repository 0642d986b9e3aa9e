// SPDX-License-Identifier: MIT
// consumer.cpp - a C++ program that uses an installed (or added) wsgemm: the public header is included
// from C++ (it wraps itself in extern "C"). One small GEMM checked against a host reference in double:
// C = 0.5 * A^T * B - C0 with A (k x m) and B (k x n) fp16, column-major (ops T, N), C bf16 with a
// nonzero beta. The inputs are uniform in [-1, 1] on a grid of 1/1024, exact in fp16; C0 on a grid of
// 1/128, exact in bf16. Exit 0 pass, 1 fail, 77 without a CUDA device.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>
#include <wsgemm.h>

namespace {

struct Lcg {
    uint64_t state;
    // uniform in [-1, 1] on a grid of 1/steps
    float next(int steps)
    {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<float>(static_cast<int>((state >> 33) % (2u * steps + 1u)) - steps) / steps;
    }
};

uint16_t half_bits(float f)  // exact for 0 and the normal values of the 1/1024 grid
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint32_t sign = (u >> 16) & 0x8000u;
    if ((u & 0x7fffffffu) == 0) return static_cast<uint16_t>(sign);
    const uint32_t exp = ((u >> 23) & 0xffu) - 127u + 15u;
    return static_cast<uint16_t>(sign | (exp << 10) | ((u & 0x7fffffu) >> 13));
}

float half_value(uint16_t h)  // normal values and zero
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t u = exp == 0 ? sign : sign | ((exp - 15u + 127u) << 23) | (static_cast<uint32_t>(h & 0x3ffu) << 13);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t bf16_bits(float f)  // exact for the 1/128 grid
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return static_cast<uint16_t>(u >> 16);
}

float bf16_value(uint16_t h)
{
    const uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

template <typename T>
struct DeviceBuffer {
    T *ptr = nullptr;
    explicit DeviceBuffer(const std::vector<T> &host)
    {
        if (cudaMalloc(reinterpret_cast<void **>(&ptr), host.size() * sizeof(T)) != cudaSuccess ||
            cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
            ptr = nullptr;
    }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

}  // namespace

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIPPED: no CUDA device\n");
        return 77;
    }
    const int m = 70, n = 33, k = 96;
    Lcg rng{2024};
    std::vector<uint16_t> a(static_cast<size_t>(k) * m), b(static_cast<size_t>(k) * n), c(static_cast<size_t>(m) * n);
    for (auto &x : a) x = half_bits(rng.next(1024));
    for (auto &x : b) x = half_bits(rng.next(1024));
    for (auto &x : c) x = bf16_bits(rng.next(128));
    const float alpha = 0.5f, beta = -1.0f;

    DeviceBuffer<uint16_t> d_a(a), d_b(b), d_c(c);
    if (!d_a.ptr || !d_b.ptr || !d_c.ptr) {
        std::printf("FAIL: device allocation or copy\n");
        return 1;
    }
    wsgemm_handle h = nullptr;
    wsgemm_status s = wsgemm_create(&h);
    if (s == WSGEMM_STATUS_SUCCESS)
        s = wsgemm_gemm_ex(h, WSGEMM_OP_T, WSGEMM_OP_N, m, n, k, &alpha, d_a.ptr, WSGEMM_R_16F, k, d_b.ptr,
                           WSGEMM_R_16F, k, &beta, d_c.ptr, WSGEMM_R_16BF, m);
    if (s != WSGEMM_STATUS_SUCCESS) {
        std::printf("FAIL: %s: %s\n", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
        return 1;
    }
    wsgemm_path path = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &path);
    std::vector<uint16_t> got(c.size());
    if (cudaMemcpy(got.data(), d_c.ptr, got.size() * 2, cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::printf("FAIL: copy back\n");
        return 1;
    }
    wsgemm_destroy(h);

    int bad = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double dot = 0, mag = 0;
            for (int p = 0; p < k; ++p) {
                const double x = static_cast<double>(half_value(a[p + i * k])) * half_value(b[p + j * k]);
                dot += x;
                mag += std::fabs(x);
            }
            const double want = alpha * dot + beta * bf16_value(c[i + j * m]);
            // bf16 output: half an ulp is 2^-9 relative; fp32 accumulation adds at most k * 2^-24 * mag
            const double tol = std::ldexp(std::fabs(want), -8) + k * std::ldexp(mag, -24) + 1e-30;
            const double out = bf16_value(got[i + j * m]);
            if (!(std::fabs(out - want) <= tol) && bad++ < 5)
                std::printf("  C[%d,%d] = %.6g, expected %.6g (tolerance %.3g)\n", i, j, out, want, tol);
        }
    std::printf("consumer.cpp: %s: %dx%dx%d fp16 TN -> bf16, alpha %g beta %g, on the %s path, %d of %d wrong\n",
                bad ? "FAIL" : "PASS", m, n, k, alpha, beta, wsgemm_path_name(path), bad, m * n);
    return bad ? 1 : 0;
}
