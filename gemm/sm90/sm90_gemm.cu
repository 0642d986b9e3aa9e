/* Placeholder until the sm90 kernel lands: the path reports itself absent. */
#include "internal.h"

extern "C" int wsgemm_sm90_available(void) { return 0; }

extern "C" wsgemm_status wsgemm_sm90_gemm(const wsgemm_problem *p, wsgemm_launch_ctx *ctx)
{
    (void)p;
    return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "the sm90 kernel is not part of this build yet");
}
