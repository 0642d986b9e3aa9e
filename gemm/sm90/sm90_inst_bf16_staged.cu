// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: bf16 inputs, the STAGED epilogue's kernels (the CTA's C tile in smem;
 * variants 4 and 5, see sm90_kernel.cuh). */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_STAGED_KERNELS(bf16, 1)
