// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: bf16 inputs, the pingpong schedule (variant 6, see sm90_kernel.cuh). */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_PINGPONG_KERNELS(bf16, 1)
