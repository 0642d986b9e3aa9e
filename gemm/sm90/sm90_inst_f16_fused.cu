// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: f16 inputs, wsgemm_matmul's ops fused into the output op (variant 7,
 * see sm90_kernel.cuh). */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_FUSED_KERNELS(f16, 0)
