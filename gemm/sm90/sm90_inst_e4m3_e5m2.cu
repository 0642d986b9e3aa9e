// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: FP8 inputs, E4M3 (P) x E5M2 (Q), BN 128, K-major (see sm90_kernel.cuh). */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_FP8_KERNELS(e4m3_e5m2, SM90_IN_E4M3_E5M2)
