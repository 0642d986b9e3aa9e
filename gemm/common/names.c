// SPDX-License-Identifier: MIT
/*
 * gemm/common/names.c - the names of statuses and paths (wsgemm_status_string, wsgemm_path_name of
 * include/wsgemm.h): pure functions, below everything that prints them.
 */
#include "wsgemm.h"

const char *wsgemm_status_string(wsgemm_status status)
{
    switch (status) {
    case WSGEMM_STATUS_SUCCESS: return "WSGEMM_STATUS_SUCCESS";
    case WSGEMM_STATUS_NOT_INITIALIZED: return "WSGEMM_STATUS_NOT_INITIALIZED";
    case WSGEMM_STATUS_INVALID_VALUE: return "WSGEMM_STATUS_INVALID_VALUE";
    case WSGEMM_STATUS_NOT_SUPPORTED: return "WSGEMM_STATUS_NOT_SUPPORTED";
    case WSGEMM_STATUS_ARCH_MISMATCH: return "WSGEMM_STATUS_ARCH_MISMATCH";
    case WSGEMM_STATUS_NO_DEVICE: return "WSGEMM_STATUS_NO_DEVICE";
    case WSGEMM_STATUS_ALLOC_FAILED: return "WSGEMM_STATUS_ALLOC_FAILED";
    case WSGEMM_STATUS_CUDA_ERROR: return "WSGEMM_STATUS_CUDA_ERROR";
    case WSGEMM_STATUS_INTERNAL_ERROR: return "WSGEMM_STATUS_INTERNAL_ERROR";
    }
    return "WSGEMM_STATUS_<unknown>";
}

const char *wsgemm_path_name(wsgemm_path path)
{
    switch (path) {
    case WSGEMM_PATH_AUTO: return "auto";
    case WSGEMM_PATH_GENERIC: return "generic";
    case WSGEMM_PATH_SM90: return "sm90";
    case WSGEMM_PATH_SM100: return "sm100";
    case WSGEMM_PATH_SM100_EMULATED: return "sm100-emulated";
    case WSGEMM_PATH_NONE: return "none";
    }
    return "<unknown path>";
}

/* cublasStatus_t's values (cublas_api.h), written out so that this file needs no cuBLAS header; the CPU test
 * tests/api/api_contract_test.c compares them with cublas_api.h's constants. */
enum {
    kCublasSuccess = 0,
    kCublasNotInitialized = 1,
    kCublasAllocFailed = 3,
    kCublasInvalidValue = 7,
    kCublasArchMismatch = 8,
    kCublasExecutionFailed = 13,
    kCublasInternalError = 14,
    kCublasNotSupported = 15
};

int wsgemm_status_to_cublas(wsgemm_status status)
{
    switch (status) {
    case WSGEMM_STATUS_SUCCESS: return kCublasSuccess;
    case WSGEMM_STATUS_NOT_INITIALIZED: return kCublasNotInitialized;
    case WSGEMM_STATUS_INVALID_VALUE: return kCublasInvalidValue;
    case WSGEMM_STATUS_NOT_SUPPORTED: return kCublasNotSupported;
    case WSGEMM_STATUS_ARCH_MISMATCH: return kCublasArchMismatch;
    case WSGEMM_STATUS_NO_DEVICE: return kCublasNotInitialized; /* cublasCreate without a device */
    case WSGEMM_STATUS_ALLOC_FAILED: return kCublasAllocFailed;
    case WSGEMM_STATUS_CUDA_ERROR: return kCublasExecutionFailed;
    case WSGEMM_STATUS_INTERNAL_ERROR: return kCublasInternalError;
    }
    return kCublasInternalError;
}
