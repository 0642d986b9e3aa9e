// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/sm100_emulated_absent.c - the emulated sm100 path's entry points in a library without it: every
 * installed library (the emulated kernel belongs to the verification tier, wsgemm_verify), and wsgemm_verify
 * itself in a build without the emulation (no 90a, or WSGEMM_SM100_EMULATION=OFF). The path reports itself
 * unavailable: a forced sm100-emulated path gets NOT_SUPPORTED, AUTO never picks it.
 */
#include "common/status.h"
#include "internal.h"
#include "sm100/sm100_probe.h"

int wsgemm_sm100_emulated_available(void)
{
    return 0;
}
wsgemm_status wsgemm_sm100_emulated_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED,
                       "this library has no emulated sm100 kernel (it is in wsgemm_verify, of a build with 90a and "
                       "WSGEMM_SM100_EMULATION=ON)");
}
int wsgemm_sm100_emulated_planted_faults(void)
{
    return 0;
}
int wsgemm_sm100_emulated_tmem_leaked_columns(void)
{
    return WSGEMM_EMULATION_ABSENT;
}
int wsgemm_sm100_emulated_last_launch(wsgemm_sm100_launch_probe *out)
{
    (void)out;
    return -1;
}
int wsgemm_sm100_emulated_clc_requests(void)
{
    return WSGEMM_EMULATION_ABSENT;
}
int wsgemm_sm100_emulated_checker_error(char *msg, size_t msg_size)
{
    if (msg_size > 0) msg[0] = '\0';
    return WSGEMM_EMULATION_ABSENT;
}
