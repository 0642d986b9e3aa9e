// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: bf16 inputs, BN = 64 (one file per type and width so the
 * build compiles them in parallel). See sm90_kernel.cuh. */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_KERNELS(bf16, 1, 64, 0, 1)
