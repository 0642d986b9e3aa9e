// SPDX-License-Identifier: MIT
/*
 * gemm/common/device.c - device and pointer facts (device.h).
 */
#include "common/device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>

#include <cuda.h> /* CUresult, CUdeviceptr: types only */

#include "common/status.h"

static wsgemm_device_info infos[WSGEMM_MAX_DEVICES];
static atomic_int known[WSGEMM_MAX_DEVICES];
static pthread_mutex_t infos_lock = PTHREAD_MUTEX_INITIALIZER;

static cudaError_t read_device_info(int ordinal, wsgemm_device_info *info)
{
    struct {
        enum cudaDeviceAttr attr;
        int *dst;
    } const attrs[] = {
        {cudaDevAttrComputeCapabilityMajor, &info->cc_major},
        {cudaDevAttrComputeCapabilityMinor, &info->cc_minor},
        {cudaDevAttrMultiProcessorCount, &info->sm_count},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, &info->smem_optin_bytes},
        {cudaDevAttrL2CacheSize, &info->l2_bytes},
    };
    info->ordinal = ordinal;
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        cudaError_t err = cudaDeviceGetAttribute(attrs[i].dst, attrs[i].attr, ordinal);
        if (err != cudaSuccess) {
            wsgemm_forget_cuda_error(err);
            return err;
        }
    }
    return cudaSuccess;
}

cudaError_t wsgemm_device_info_get(int ordinal, const wsgemm_device_info **out)
{
    if (!atomic_load_explicit(&known[ordinal], memory_order_acquire)) {
        pthread_mutex_lock(&infos_lock);
        cudaError_t err = cudaSuccess;
        if (!atomic_load_explicit(&known[ordinal], memory_order_relaxed)) {
            err = read_device_info(ordinal, &infos[ordinal]);
            if (err == cudaSuccess) atomic_store_explicit(&known[ordinal], 1, memory_order_release);
        }
        pthread_mutex_unlock(&infos_lock);
        if (err != cudaSuccess) return err;
    }
    *out = &infos[ordinal];
    return cudaSuccess;
}

void *wsgemm_driver_symbol(const char *name, int cuda_version)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
    cudaError_t err = cudaGetDriverEntryPointByVersion(name, &fn, (unsigned)cuda_version, cudaEnableDefault, &query);
    if (err != cudaSuccess) wsgemm_forget_cuda_error(err);
    return err == cudaSuccess && query == cudaDriverEntryPointSuccess ? fn : NULL;
}

/* cuMemGetAddressRange (the 64-bit CUdeviceptr version of CUDA 3.2 and later), looked up once. */
typedef CUresult (*address_range_fn)(CUdeviceptr *base, size_t *size, CUdeviceptr ptr);
static address_range_fn address_range;
static pthread_once_t address_range_once = PTHREAD_ONCE_INIT;

static void lookup_address_range(void)
{
    address_range = (address_range_fn)wsgemm_driver_symbol("cuMemGetAddressRange", 3020);
}

cudaError_t wsgemm_pointer_query(const void *ptr, wsgemm_pointer_info *info)
{
    memset(info, 0, sizeof *info);
    info->device = -1;
    struct cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return err;
    }
    switch (attr.type) {
    case cudaMemoryTypeDevice: info->kind = WSGEMM_MEMORY_DEVICE; break;
    case cudaMemoryTypeManaged: info->kind = WSGEMM_MEMORY_MANAGED; break;
    case cudaMemoryTypeHost:
        info->kind = WSGEMM_MEMORY_HOST;
        info->pinned_host = 1;
        break;
    default: info->kind = WSGEMM_MEMORY_HOST; break;
    }
    info->device = attr.device;
    if (info->kind == WSGEMM_MEMORY_HOST) return cudaSuccess;
    pthread_once(&address_range_once, lookup_address_range);
    CUdeviceptr base = 0;
    size_t size = 0;
    if (address_range && address_range(&base, &size, (CUdeviceptr)(uintptr_t)ptr) == CUDA_SUCCESS && size > 0) {
        info->has_range = 1;
        info->range_begin = (uintptr_t)base;
        info->range_bytes = size;
    }
    return cudaSuccess;
}

/* cuFuncSetAttribute (CUDA 9.0 and later), looked up once. */
typedef CUresult (*func_set_attribute_fn)(CUfunction fn, CUfunction_attribute attr, int value);
static func_set_attribute_fn func_set_attribute;
static pthread_once_t func_set_attribute_once = PTHREAD_ONCE_INIT;

static void lookup_func_set_attribute(void)
{
    func_set_attribute = (func_set_attribute_fn)wsgemm_driver_symbol("cuFuncSetAttribute", 9000);
}

cudaError_t wsgemm_kernel_set_max_dynamic_smem(const void *fn, int bytes)
{
    pthread_once(&func_set_attribute_once, lookup_func_set_attribute);
    cudaFunction_t function = NULL;
    cudaError_t err = func_set_attribute ? cudaGetFuncBySymbol(&function, fn) : cudaErrorNotSupported;
    if (err == cudaSuccess) {
        const CUresult r =
            func_set_attribute((CUfunction)function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
        return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
    }
    wsgemm_forget_cuda_error(err);
    err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes); /* no driver entry point */
    if (err != cudaSuccess) wsgemm_forget_cuda_error(err);
    return err;
}

void wsgemm_gpu_uuid_text(const char bytes[16], char *out, size_t size)
{
    const unsigned char *u = (const unsigned char *)bytes;
    snprintf(out, size, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
             u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}
