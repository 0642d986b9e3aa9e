// SPDX-License-Identifier: MIT
/*
 * header_test.c - CPU test, compile only: include/wsgemm.h is self-contained and clean as C11 and as
 * C++ (compiled both ways with -Wall -Wextra -Wpedantic -Werror), and needs from CUDA nothing but
 * cudaStream_t from cuda_runtime_api.h (compiled once more against stub/cuda_runtime_api.h, which
 * declares only that).
 */
#include "wsgemm.h" /* first: it must bring everything it needs */

#ifdef __cplusplus
#define WSGEMM_TEST_STATIC_ASSERT static_assert
#else
#define WSGEMM_TEST_STATIC_ASSERT _Static_assert
#endif

WSGEMM_TEST_STATIC_ASSERT(WSGEMM_VERSION ==
                              WSGEMM_VERSION_MAJOR * 10000 + WSGEMM_VERSION_MINOR * 100 + WSGEMM_VERSION_PATCH,
                          "WSGEMM_VERSION is 10000 * major + 100 * minor + patch");
WSGEMM_TEST_STATIC_ASSERT(WSGEMM_OP_T == 1 && WSGEMM_R_16BF == 14 && WSGEMM_R_16F == 2 && WSGEMM_R_32F == 0,
                          "the enum values equal cuBLAS's and CUDA's");
