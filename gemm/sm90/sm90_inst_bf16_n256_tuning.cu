// SPDX-License-Identifier: MIT
/* Instantiations of the sm90 kernel: the tuning variants of bf16 inputs, BN = 256 (CLUSTER 1 and 3 stages,
 * which sm90_kernels_bf16_n256 forwards to). A file of their own so that the build compiles them in
 * parallel with the default kernels of sm90_inst_bf16_n256.cu. See sm90_kernel.cuh. */
#include "sm90/sm90_kernel.cuh"

SM90_DEFINE_TUNING_KERNELS(bf16, 1, 256)
