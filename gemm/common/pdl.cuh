// SPDX-License-Identifier: MIT
/*
 * gemm/common/pdl.cuh - programmatic dependent launch (PDL), both halves: the two device instructions every
 * wsgemm kernel executes, and the host launch that gives a kernel the programmatic stream serialization
 * attribute when the call's launch mode is PDL (wsgemm_launch_ctx.pdl).
 *
 * The protocol (PTX ISA, "griddepcontrol"; CUDA programming guide, "Programmatic Dependent Launch"):
 *   - a kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may be scheduled before the
 *     stream's previous kernel has finished: once every CTA of that kernel has executed
 *     griddepcontrol.launch_dependents or exited;
 *   - griddepcontrol.wait holds the executing thread until every prerequisite grid has completed and its
 *     memory operations are performed and visible to this grid. Without the attribute there is no
 *     prerequisite in flight and it returns at once, so the default launch mode runs the same code;
 *   - griddepcontrol.launch_dependents lets the dependent grid be scheduled; only a CTA's first execution
 *     counts. It says nothing about memory: the dependent's own wait still waits for this grid's completion.
 *
 * The rule of every wsgemm kernel (checked on the PTX by tests/pdl/pdl_order_check.py): no global memory
 * access (user data, the workspace, device scalars, amax) before griddepcontrol.wait on any path; before it
 * only the prologue: shared-memory and barrier set-up, the prefetch of __grid_constant__ tensor maps, the
 * TMEM allocation. So a call's kernels and the previous call's may overlap in their prologues while a
 * workspace the two share is touched only after the earlier kernel has finished. Where each kernel triggers
 * its dependents: the warp-specialized persistent kernels (sm90, sm100) when the CTA's producer has issued
 * its last load; the one-pass kernels (generic GEMM, reductions, staging copies, C = beta C) right after
 * their wait, which lets the next grid be scheduled once the last CTA of this one is resident, so it never
 * takes an SM this grid still needs.
 *
 * griddepcontrol needs sm_90; a kernel compiled for an older target has neither instruction, so a launcher
 * sets the attribute only for kernels compiled for sm_90 or later (wsgemm_kernel_has_pdl).
 */
#ifndef WSGEMM_COMMON_PDL_CUH
#define WSGEMM_COMMON_PDL_CUH

#include <cuda_runtime.h>

#include "common/status.h"

/* ---------------------------------------------------------------- device */

/* Wait for the prerequisite grid (the stream's previous kernel) to complete, its memory visible. Every
 * thread that touches global memory executes it first. */
static __device__ __forceinline__ void wsgemm_pdl_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Let the dependent grid be scheduled (this CTA's part of it). */
static __device__ __forceinline__ void wsgemm_pdl_launch_dependents(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* ---------------------------------------------------------------- host */

/* Append the programmatic stream serialization attribute to cfg (whose attrs array has room for one more)
 * when pdl is set; nothing otherwise. */
static inline void wsgemm_pdl_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attrs, int pdl)
{
    if (!pdl) return;
    cudaLaunchAttribute *a = &attrs[cfg->numAttrs];
    a->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a->val.programmaticStreamSerializationAllowed = 1;
    cfg->attrs = attrs;
    cfg->numAttrs += 1;
}

/* cudaLaunchKernel, or with pdl set the same launch through cudaLaunchKernelExC with the attribute. Returns
 * the launch's own error. */
static inline cudaError_t wsgemm_launch_kernel(const void *fn, dim3 grid, dim3 block, void **args, size_t smem,
                                               cudaStream_t stream, int pdl)
{
    if (!pdl) return cudaLaunchKernel(fn, grid, block, args, smem, stream);
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attrs[1];
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    wsgemm_pdl_config(&cfg, attrs, 1);
    return cudaLaunchKernelExC(&cfg, fn, args);
}

/* 1 when fn, as loaded for the current device, was compiled from PTX of sm_90 or later (and so holds the
 * griddepcontrol instructions); a kernel that reaches the device through an older target's PTX does not
 * wait, and must not be launched with the attribute. */
static inline int wsgemm_kernel_has_pdl(const void *fn)
{
    cudaFuncAttributes attr;
    const cudaError_t err = cudaFuncGetAttributes(&attr, fn);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return 0;
    }
    return attr.ptxVersion >= 90;
}

#endif /* WSGEMM_COMMON_PDL_CUH */
