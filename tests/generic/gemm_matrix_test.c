// SPDX-License-Identifier: MIT
/*
 * gemm_matrix_test.c - the cuBLAS test matrix of wsgemm, run on one kernel
 * path: `gemm_matrix_test <group> <path>` (path: generic, sm90,
 * sm100-emulated, auto). Every case runs through the public call with the
 * path forced, is compared element by element with cuBLAS (fp32 output,
 * same A/B types, CUBLAS_COMPUTE_32F), asserts which path ran, and reruns
 * to check bit-identical output.
 *
 * Groups: shapes, ops, types, batch, alpha_beta, leading_dims.
 *
 * Every path runs every case: the fast paths copy operands TMA cannot address
 * (odd leading dimensions, unaligned bases) first (gemm/common/staging.h).
 */
#include <stdio.h>
#include <string.h>

#include "testing.h"

#define N_ WSGEMM_OP_N
#define T_ WSGEMM_OP_T
#define BF WSGEMM_R_16BF
#define HF WSGEMM_R_16F
#define F3 WSGEMM_R_32F

/* {transa, transb, m, n, k, lda, ldb, ldc, strideA, strideB, strideC, batch, alpha, beta, ab, c, offset} */
static const testing_gemm shapes[] = {
    {N_, N_, 1, 1, 1, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 1, 7, 13, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 7, 1, 5, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 13, 17, 19, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 127, 129, 65, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 128, 128, 128, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, T_, 129, 257, 63, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 31, 1000, 7, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 1000, 1000, 1000, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 2053, 131, 997, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 256, 384, 4099, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 16, 2048, 1024, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 64, 1536, 2048, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 2048, 2048, 2048, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
};

static const testing_gemm ops[] = {
    {N_, N_, 257, 193, 131, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, T_, 257, 193, 131, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 257, 193, 131, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, T_, 257, 193, 131, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 512, 768, 256, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, HF, HF, 0},
    {N_, T_, 512, 768, 256, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, HF, HF, 0},
    {T_, N_, 512, 768, 256, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, HF, HF, 0},
    {T_, T_, 512, 768, 256, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, HF, HF, 0},
};

static const testing_gemm types[] = {
    {T_, N_, 300, 200, 150, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 300, 200, 150, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, HF, 0},
    {T_, N_, 300, 200, 150, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, F3, 0},
    {N_, T_, 300, 200, 150, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, HF, BF, 0},
    {N_, T_, 300, 200, 150, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, HF, HF, 0},
    {N_, T_, 300, 200, 150, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, HF, F3, 0},
    {T_, N_, 1024, 1024, 1024, 0, 0, 0, -1, -1, -1, 1, 1.0f, 1.0f, BF, F3, 0},
    {T_, N_, 1024, 1024, 1024, 0, 0, 0, -1, -1, -1, 1, 1.0f, 1.0f, HF, HF, 0},
};

static const testing_gemm batch[] = {
    {T_, N_, 65, 33, 47, 0, 0, 0, -1, -1, -1, 3, 1.0f, 0.0f, BF, BF, 0},
    {N_, T_, 128, 256, 192, 0, 0, 0, -1, -1, -1, 5, 1.0f, 0.5f, BF, F3, 0},
    {T_, N_, 100, 90, 80, 0, 0, 0, 0, -1, -1, 4, 1.0f, 0.0f, BF, BF, 0},   /* A shared by all (strideA 0) */
    {T_, N_, 64, 48, 96, 0, 0, 256, -1, -1, 64, 4, 1.0f, 0.0f, HF, HF, 0}, /* C interleaved inside columns */
    {N_, N_, 17, 19, 23, 20, 30, 40, 1000, 1000, 1000, 7, 1.0f, -1.0f, BF, BF, 0},
    {T_, N_, 256, 256, 512, 0, 0, 0, -1, -1, -1, 24, 1.0f, 0.0f, BF, BF, 0},
};

static const testing_gemm alpha_beta[] = {
    {T_, N_, 200, 136, 72, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, N_, 200, 136, 72, 0, 0, 0, -1, -1, -1, 1, 1.0f, 1.0f, BF, BF, 0},
    {T_, N_, 200, 136, 72, 0, 0, 0, -1, -1, -1, 1, -0.5f, 2.0f, BF, BF, 0},
    {N_, N_, 200, 136, 72, 0, 0, 0, -1, -1, -1, 1, 2.0f, -1.0f, HF, F3, 0},
    {N_, T_, 200, 136, 72, 0, 0, 0, -1, -1, -1, 1, 0.75f, 0.25f, BF, HF, 0},
    {T_, N_, 640, 512, 1024, 0, 0, 0, -1, -1, -1, 1, 0.125f, -0.5f, BF, BF, 0},
};

static const testing_gemm leading_dims[] = {
    {N_, N_, 100, 80, 60, 130, 70, 101, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {T_, T_, 100, 80, 60, 61, 97, 128, -1, -1, -1, 1, 1.0f, 0.5f, BF, BF, 0},
    {T_, N_, 128, 128, 129, 129, 129, 129, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0}, /* odd ld: not 16-B aligned */
    {T_, N_, 257, 255, 131, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 1},       /* bases 2 bytes off */
    {N_, T_, 512, 384, 320, 520, 400, 513, -1, -1, -1, 1, 1.0f, 0.0f, HF, F3, 3},
    {T_, N_, 1031, 1029, 1027, 1031, 1033, 1035, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0},
    {N_, N_, 17, 19, 23, 0, 0, 40, -1, -1, -1, 1, 1.0f, -1.0f, BF, BF, 0}, /* m*2 bytes not a multiple of 16,
                                                                              padded ldc: TMA-store clipping */
};

typedef struct group {
    const char *name;
    const testing_gemm *cases;
    size_t count;
} group;

#define GROUP(x)                      \
    {                                 \
#x, x, sizeof x / sizeof x[0] \
    }
static const group groups[] = {GROUP(shapes), GROUP(ops),        GROUP(types),
                               GROUP(batch),  GROUP(alpha_beta), GROUP(leading_dims)};

static int parse_path(const char *name, wsgemm_path *path)
{
    for (int p = WSGEMM_PATH_AUTO; p <= WSGEMM_PATH_SM100_EMULATED; ++p)
        if (!strcmp(name, wsgemm_path_name((wsgemm_path)p))) {
            *path = (wsgemm_path)p;
            return 1;
        }
    return 0;
}

/* Can this device and build run `path`? Probe with a tiny call. */
static wsgemm_status probe_path(wsgemm_handle h)
{
    testing_gemm g = {T_, N_, 8, 8, 8, 0, 0, 0, -1, -1, -1, 1, 1.0f, 0.0f, BF, BF, 0};
    testing_gemm_resolve(&g);
    testing_buffers b;
    testing_buffers_create(&g, 1, &b);
    wsgemm_status s = testing_run_wsgemm(h, &g, &b);
    CUDA_CHECK(cudaDeviceSynchronize());
    testing_buffers_destroy(&b);
    return s;
}

int main(int argc, char **argv)
{
    wsgemm_path path = WSGEMM_PATH_GENERIC;
    if (argc < 3 || !parse_path(argv[2], &path)) {
        fprintf(stderr, "usage: %s <group> <generic|sm90|sm100|sm100-emulated|auto>\n", argv[0]);
        return 2;
    }
    const group *grp = NULL;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; ++i)
        if (!strcmp(argv[1], groups[i].name)) grp = &groups[i];
    if (!grp) {
        fprintf(stderr, "unknown group %s\n", argv[1]);
        return 2;
    }
    testing_require_gpu("gemm_matrix_test");
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_path(h, path));
    wsgemm_status probe = probe_path(h);
    if (probe == WSGEMM_STATUS_ARCH_MISMATCH) {
        printf("SKIPPED: path %s cannot run on this device (cc %d): %s\n", argv[2], testing_device_cc(),
               wsgemm_get_last_error_message(h));
        wsgemm_destroy(h);
        return WSGEMM_TEST_SKIP;
    }
    if (probe != WSGEMM_STATUS_SUCCESS) {
        printf("FAIL: path %s does not run a probe GEMM: %s\n", argv[2], wsgemm_get_last_error_message(h));
        return 1;
    }
    int passed = 0, failed = 0;
    for (size_t i = 0; i < grp->count; ++i) {
        if (testing_case_against_cublas(h, &grp->cases[i], path, 1000 + i, 1))
            passed++;
        else
            failed++;
    }
    wsgemm_destroy(h);
    printf("%s on path %s: %d passed, %d failed\n", grp->name, argv[2], passed, failed);
    return failed ? 1 : 0;
}
