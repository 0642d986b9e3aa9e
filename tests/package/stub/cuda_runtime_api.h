// SPDX-License-Identifier: MIT
/* The one thing include/wsgemm.h may take from the CUDA runtime headers (tests/package/header_test.c
 * compiles the header against this file alone). The real declaration is the same incomplete type. */
#ifndef WSGEMM_TEST_STUB_CUDA_RUNTIME_API_H
#define WSGEMM_TEST_STUB_CUDA_RUNTIME_API_H
typedef struct CUstream_st *cudaStream_t;
#endif
