// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/sm100_probe.h - the tests' view of what the sm100 launcher last ran on the calling thread: the
 * plan's cta_group, K splits, epilogue kind, staged operands, grid, the MMA kind and whether the fused output
 * op ran, and the emulation's TMEM and checker state. A test probe, not part of the launcher contract
 * (internal.h); the builds without a path answer -1 or WSGEMM_EMULATION_ABSENT (gemm/paths_absent.c).
 */
#ifndef WSGEMM_SM100_PROBE_H
#define WSGEMM_SM100_PROBE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wsgemm_sm100_launch_probe {
    int cta_group;
    int splits;
    int epilogue; /* wsgemm_epilogue_kind */
    int staged_a, staged_b;
    long long ctas;
    int kind;                 /* umma_kind (tmem/desc.h): 0 kind::f16, 1 kind::f8f6f4 */
    int fused;                /* 1: the epilogue applied wsgemm_matmul's fused output op */
    int variant;              /* the schedule (SM100_VARIANT_*, sm100_plan.h): 0 static, 1 cluster launch control */
    long long clusters_total; /* CLC: the clusters of the hardware grid (one per unit); else ctas / cta_group */
} wsgemm_sm100_launch_probe;

/* 0 with *out filled after this thread's last launch of the sm100 kernel (hardware build); -1 when this
 * thread launched none, or the build has no such kernel. */
int wsgemm_sm100_last_launch(wsgemm_sm100_launch_probe *out);
/* The same for the emulated build's kernel. */
int wsgemm_sm100_emulated_last_launch(wsgemm_sm100_launch_probe *out);

/* 1 when the emulated kernel was built with the planted teardown faults (WSGEMM_PLANTED_FAULTS: the
 * verification library only), else 0; a build without the emulation answers 0. */
int wsgemm_sm100_emulated_planted_faults(void);

/* The emulated build's own state (it lives in that translation unit). A build without the emulation answers
 * WSGEMM_EMULATION_ABSENT from both.
 * TMEM columns the emulation still holds after the last launch (0 = clean, -1 on a CUDA error); it
 * synchronizes the legacy default stream, so call it after the GEMM's stream has finished. */
#define WSGEMM_EMULATION_ABSENT (-2)
int wsgemm_sm100_emulated_tmem_leaked_columns(void);
/* The first error the emulation's checker recorded since the last launch (0 = none), described in msg.
 * Readable after the checker's trap destroyed the context (the record is in host-mapped memory). */
int wsgemm_sm100_emulated_checker_error(char *msg, size_t msg_size);
/* The CLC requests the emulated build's stand-in (emu/clc_emu.cuh) answered in the last CLC launch: every unit
 * beyond the launched clusters' own, plus one failed request per launched cluster. -1 on a CUDA error; it
 * synchronizes the legacy default stream. */
int wsgemm_sm100_emulated_clc_requests(void);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM100_PROBE_H */
