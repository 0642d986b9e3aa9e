// SPDX-License-Identifier: MIT
/*
 * gemm/common/device.h - facts about devices and memory that the API checks and the launchers use. Host C.
 *
 * Device facts are read once per device and process (they do not change while it runs) and shared by all
 * handles and threads. Pointer facts come from the runtime (memory type, owning device) and, for the extent
 * of the allocation a pointer lies in, from the driver's cuMemGetAddressRange, looked up once through the
 * runtime's driver entry points (wsgemm never links libcuda).
 */
#ifndef WSGEMM_COMMON_DEVICE_H
#define WSGEMM_COMMON_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The facts of device `ordinal` (0 <= ordinal < WSGEMM_MAX_DEVICES), read on first use. Thread-safe; the
 * returned record never changes. On a CUDA error returns it (already cleared) and leaves *out alone. */
cudaError_t wsgemm_device_info_get(int ordinal, const wsgemm_device_info **out);

/* A GPU's UUID (cudaDeviceProp.uuid.bytes) as nvidia-smi writes it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
void wsgemm_gpu_uuid_text(const char bytes[16], char *out, size_t size);

typedef enum wsgemm_memory_kind {
    WSGEMM_MEMORY_HOST = 0,   /* unregistered or pinned host memory, or not a CUDA pointer */
    WSGEMM_MEMORY_DEVICE = 1, /* cudaMalloc / cudaMallocAsync / VMM device memory */
    WSGEMM_MEMORY_MANAGED = 2 /* cudaMallocManaged */
} wsgemm_memory_kind;

typedef struct wsgemm_pointer_info {
    wsgemm_memory_kind kind;
    int pinned_host; /* HOST: pinned (cudaHostAlloc / registered) rather than pageable */
    int device;      /* DEVICE: the owning device */
    int has_range;   /* the allocation's extent is known: */
    uintptr_t range_begin;
    size_t range_bytes;
} wsgemm_pointer_info;

/* What `ptr` is. A CUDA error is returned (already cleared). */
cudaError_t wsgemm_pointer_query(const void *ptr, wsgemm_pointer_info *info);

/* A driver API function by name and the CUDA version of its ABI (cudaGetDriverEntryPointByVersion), or NULL
 * when the driver lacks it. No CUDA error stays behind. */
void *wsgemm_driver_symbol(const char *name, int cuda_version);

/* cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) for the current device, done
 * through the driver (cuFuncSetAttribute on the function cudaGetFuncBySymbol gives): the runtime's own call
 * cleared a caller's pending error on the H200 (docs/perf-log.md, "The runtime's cudaFuncSetAttribute cleared
 * a caller's pending error"; tests/reliability/errors.c checks for it), the driver's leaves the runtime's
 * error state alone. Returns a CUDA error already cleared. */
cudaError_t wsgemm_kernel_set_max_dynamic_smem(const void *fn, int bytes);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_DEVICE_H */
