/* Placeholder until the sm100 kernel lands: both builds report the path absent. */
#include "internal.h"

#if defined(WSGEMM_TMEM_EMULATION)
extern "C" int wsgemm_sm100_emulated_available(void) { return 0; }
extern "C" wsgemm_status wsgemm_sm100_emulated_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "the emulated sm100 kernel is not part of this build yet");
}
#else
extern "C" int wsgemm_sm100_available(void) { return 0; }
extern "C" wsgemm_status wsgemm_sm100_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "the sm100 kernel is not part of this build yet");
}
extern "C" wsgemm_status wsgemm_sm100_self_check(wsgemm_launch_ctx *ctx)
{
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "the sm100 kernel is not part of this build yet");
}
#endif
