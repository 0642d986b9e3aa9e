// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: FP8 inputs, E5M2 (P) x E4M3 (Q), BN 128, K-major (see sm90_kernel.cuh). */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_FP8_KERNELS(e5m2_e4m3, SM90_IN_E5M2_E4M3)
