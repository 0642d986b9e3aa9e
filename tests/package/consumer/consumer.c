// SPDX-License-Identifier: MIT
/*
 * consumer.c - a C program that uses an installed (or added) wsgemm the way a project would: one small
 * GEMM through wsgemm_gemm_ex, checked against a host reference in double.
 *
 * C = A * B^T with A (m x k) and B (n x k) bf16, column-major (ops N, T), C fp32, odd sizes. The inputs
 * are uniform in [-1, 1] on a grid of 1/128, so they are exact in bf16 and the reference sees the very
 * values the GPU does. C is NaN-poisoned before the call (NaN never passes the check).
 * Exit 0 pass, 1 fail, 77 without a CUDA device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <wsgemm.h>

#define CHECK_CUDA(call)                                                                         \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "consumer.c:%d: %s: %s\n", __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

/* Uniform in [-1, 1] on a grid of 1/128: exactly representable in bf16 (8 significant bits). */
static float next_input(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((int)((*state >> 33) % 257u) - 128) / 128.0f;
}

static uint16_t bf16_bits(float f) /* exact for the values above: the upper half of the float */
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

int main(void)
{
    int version[3] = {0, 0, 0};
    wsgemm_get_version(&version[0], &version[1], &version[2]);
    printf("consumer.c: wsgemm %d.%d.%d (header %d.%d.%d)\n", version[0], version[1], version[2], WSGEMM_VERSION_MAJOR,
           WSGEMM_VERSION_MINOR, WSGEMM_VERSION_PATCH);
    if (version[0] != WSGEMM_VERSION_MAJOR || version[1] != WSGEMM_VERSION_MINOR) {
        printf("FAIL: the library is not the version of the header\n");
        return 1;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("SKIPPED: no CUDA device\n");
        return 77;
    }

    enum { M = 67, N = 45, K = 129 };
    static uint16_t a[M * K], b[N * K];
    static float c[M * N];
    static double ref[M * N], mag[M * N];
    uint64_t state = 12345;
    for (int i = 0; i < M * K; ++i) a[i] = bf16_bits(next_input(&state));
    for (int i = 0; i < N * K; ++i) b[i] = bf16_bits(next_input(&state));
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < M; ++i) {
            double s = 0, abs_sum = 0;
            for (int p = 0; p < K; ++p) {
                uint32_t ua = (uint32_t)a[i + p * M] << 16, ub = (uint32_t)b[j + p * N] << 16;
                float fa, fb;
                memcpy(&fa, &ua, 4);
                memcpy(&fb, &ub, 4);
                s += (double)fa * fb;
                abs_sum += fabs((double)fa * fb);
            }
            ref[i + j * M] = s;
            mag[i + j * M] = abs_sum;
        }

    void *d_a, *d_b, *d_c;
    CHECK_CUDA(cudaMalloc(&d_a, sizeof a));
    CHECK_CUDA(cudaMalloc(&d_b, sizeof b));
    CHECK_CUDA(cudaMalloc(&d_c, sizeof c));
    CHECK_CUDA(cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_c, 0xff, sizeof c)); /* all-ones words are NaN */

    wsgemm_handle h;
    const float alpha = 1.0f, beta = 0.0f;
    wsgemm_status s = wsgemm_create(&h);
    if (s == WSGEMM_STATUS_SUCCESS)
        s = wsgemm_gemm_ex(h, WSGEMM_OP_N, WSGEMM_OP_T, M, N, K, &alpha, d_a, WSGEMM_R_16BF, M, d_b, WSGEMM_R_16BF, N,
                           &beta, d_c, WSGEMM_R_32F, M);
    if (s != WSGEMM_STATUS_SUCCESS) {
        printf("FAIL: %s: %s\n", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
        return 1;
    }
    wsgemm_path path = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &path);
    CHECK_CUDA(cudaMemcpy(c, d_c, sizeof c, cudaMemcpyDeviceToHost));
    wsgemm_destroy(h);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);

    int bad = 0;
    for (int i = 0; i < M * N; ++i) {
        /* fp32 accumulation over K products: at most K * 2^-24 of the sum of their magnitudes */
        double tol = (double)K * ldexp(1.0, -24) * mag[i] + 1e-30;
        if (!(fabs((double)c[i] - ref[i]) <= tol) && bad++ < 5)
            printf("  C[%d,%d] = %.8g, expected %.8g (tolerance %.3g)\n", i % M, i / M, c[i], ref[i], tol);
    }
    printf("consumer.c: %s: %dx%dx%d bf16 NT -> fp32 on the %s path, %d of %d elements wrong\n", bad ? "FAIL" : "PASS",
           M, N, K, wsgemm_path_name(path), bad, M * N);
    return bad ? 1 : 0;
}
