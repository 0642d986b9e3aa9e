// SPDX-License-Identifier: MIT
/* The same header exercise as headers_compile.cu, with the watchdog compiled in. */
#define WSGEMM_WATCHDOG 1
#include "headers_compile_kernel.cuh"

__global__ void sync_headers_kernel_watchdog(uint32_t *out)
{
    sync_headers_body(out);
}
