/*
 * gemm/sm100/sm100_probe.h - the tests' view of what the sm100 launcher last ran on the calling thread: the
 * plan's cta_group, K splits, epilogue kind, staged operands, grid, the MMA kind and whether the fused output
 * op ran. A test probe, not part of the launcher contract (internal.h); the builds without a path answer -1
 * (gemm/paths_absent.c).
 */
#ifndef WSGEMM_SM100_PROBE_H
#define WSGEMM_SM100_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wsgemm_sm100_launch_probe {
    int cta_group;
    int splits;
    int epilogue; /* wsgemm_epilogue_kind */
    int staged_a, staged_b;
    long long ctas;
    int kind;  /* umma_kind (tmem/desc.h): 0 kind::f16, 1 kind::f8f6f4 */
    int fused; /* 1: the epilogue applied wsgemm_matmul's fused output op */
} wsgemm_sm100_launch_probe;

/* 0 with *out filled after this thread's last launch of the sm100 kernel (hardware build); -1 when this
 * thread launched none, or the build has no such kernel. */
int wsgemm_sm100_last_launch(wsgemm_sm100_launch_probe *out);
/* The same for the emulated build's kernel. */
int wsgemm_sm100_emulated_last_launch(wsgemm_sm100_launch_probe *out);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM100_PROBE_H */
