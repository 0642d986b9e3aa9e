// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: f16 inputs, BN = 128 (one file per type and width so the
 * build compiles them in parallel). See sm90_kernel.cuh. */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_KERNELS(f16, 0, 128, 0, 1)
