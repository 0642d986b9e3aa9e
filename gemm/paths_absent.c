// SPDX-License-Identifier: MIT
/*
 * paths_absent.c - the entry points of kernel paths this build does not contain (WSGEMM_CUDA_ARCHS without
 * 90a or 100a). They report the path as unavailable; the call pipeline then answers a forced path with
 * NOT_SUPPORTED and AUTO never picks it. The emulated sm100 path's stubs: sm100/sm100_emulated_absent.c.
 */
#include "common/status.h"
#include "internal.h"
#include "sm100/sm100_probe.h"
#include "sm90/sm90_probe.h"

#ifdef WSGEMM_ABSENT_SM90
int wsgemm_sm90_available(void)
{
    return 0;
}
wsgemm_sm90_epilogue wsgemm_sm90_last_epilogue(void)
{
    return WSGEMM_SM90_EPILOGUE_NONE;
}
int wsgemm_sm90_last_cluster(void)
{
    return 0;
}
int wsgemm_sm90_last_sk_splits(void)
{
    return 0;
}
int wsgemm_sm90_last_bn(void)
{
    return 0;
}
int wsgemm_sm90_last_tuned(void)
{
    return 0;
}
wsgemm_status wsgemm_sm90_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "this build has no sm90 kernel (WSGEMM_CUDA_ARCHS lacks 90a)");
}
int wsgemm_sm90_last_grouped_bn(void)
{
    return 0;
}
wsgemm_status wsgemm_sm90_grouped(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "this build has no sm90 kernel (WSGEMM_CUDA_ARCHS lacks 90a)");
}
#endif

#ifdef WSGEMM_ABSENT_SM100
int wsgemm_sm100_available(void)
{
    return 0;
}
wsgemm_status wsgemm_sm100_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED,
                       "this build has no sm100 kernel (WSGEMM_CUDA_ARCHS lacks 100a)");
}
int wsgemm_sm100_last_launch(wsgemm_sm100_launch_probe *out)
{
    (void)out;
    return -1;
}
#endif

/* ISO C forbids an empty translation unit when every path is present. */
typedef int wsgemm_paths_absent_nonempty;
