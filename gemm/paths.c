// SPDX-License-Identifier: MIT
/*
 * gemm/paths.c - see paths.h.
 *
 * What each path takes:
 *   generic  every valid call.
 *   sm90     every GEMM with a product; a matmul with 16-bit A and B (no operand scales) or FP8 A and B with
 *            their a_scale and b_scale, and C either unread (beta == 0) or D itself (then no c_scale). Its FUSED
 *            kernels apply the matmul's output op where the call needs more than alpha, beta and the operand
 *            scales (an epilogue, d_scale, amax_d, an E4M3 D); the FP8 kernels apply the operand scales as
 *            they add each K block's sums. What the kernels further ask (a tile and kernel that take the
 *            operands, the fused op's beta == 0 and TMA-storable D) is the plan's to check (sm90_plan.c): it
 *            declines the rest, and AUTO then runs generic.
 *   sm100    every call with a product (sm100 and the same kernel emulated on sm_90a): the fused output op
 *            in its epilogue whenever the call is more than alpha and beta on D (an epilogue, a scale or amax,
 *            an E4M3 D, a C that is not D).
 * A grouped call (wsgemm_gemm_grouped_ex) runs on the sm90 path where its grouped plan takes it
 * (sm90/sm90_grouped_plan.h: along M or N, K-major 16-bit operands TMA can read, at most 1024 groups, on a
 * device of compute capability 9.0), on the generic path otherwise: AUTO takes the sm90 kernel where the plan
 * does, a forced sm90 path declines the rest with the plan's reason, a forced sm100 path declines every one.
 * A matmul whose operand scales are tensors (a scale mode other than SCALAR_32F: block-scaled FP8) runs under AUTO
 * on the sm90 block-scaled kernels where they take it (VEC128_32F, BLK128x128_32F, OUTER_VEC_32F), on the generic
 * path otherwise; a forced sm100 path runs MX (VEC32_UE8M0 on both) on its block-scaled kernel, which AUTO does not
 * choose until the device self-check covers it; other forced paths decline.
 * Under batch invariance ON (rows of C invariant in m) a matmul that needs the sm90 FUSED kernels runs on the
 * generic path: those kernels lay m along their tile width (sm90_plan.c).
 * AUTO takes the device's fastest path (sm100 once the device passed its self-check, sm90 on Hopper) where
 * that path takes the call, generic otherwise. A call in WSGEMM_POINTER_MODE_DEVICE (alpha and beta device
 * floats) runs generic only: its kernels read the two values when they run; the fast kernels take them by
 * value and their plans branch on them (beta == 0: C unread, deferred or staged epilogue).
 */
#include "paths.h"

#include <pthread.h>
#include <stdio.h>

#include "common/dtype.h"
#include "common/knobs.h"
#include "common/scale.h"
#include "common/status.h"
#include "sm100/self_check.h"
#include "sm90/sm90_grouped_plan.h"
#include "sm90/sm90_plan.h"

/* ---------------------------------------------------------------- devices and builds */

static int is_hopper(const wsgemm_device_info *d)
{
    return d->cc_major == 9 && d->cc_minor == 0; /* sm_90a code runs on 9.0 only */
}

static int is_blackwell_dc(const wsgemm_device_info *d)
{
    return d->cc_major == 10 && d->cc_minor == 0; /* sm_100a code runs on 10.0 only */
}

wsgemm_status wsgemm_path_check_forced(wsgemm_path path, const wsgemm_device_info *d, char *why, size_t why_size)
{
    switch (path) {
    case WSGEMM_PATH_AUTO:
    case WSGEMM_PATH_NONE: return WSGEMM_STATUS_SUCCESS;
    case WSGEMM_PATH_GENERIC:
        if (d->cc_major >= 8) return WSGEMM_STATUS_SUCCESS;
        snprintf(why, why_size, "the generic path needs compute capability 8.0 or later; device %d is %d.%d",
                 d->ordinal, d->cc_major, d->cc_minor);
        return WSGEMM_STATUS_ARCH_MISMATCH;
    case WSGEMM_PATH_SM90:
        if (!is_hopper(d)) {
            snprintf(why, why_size, "forced path sm90 needs compute capability 9.0 (sm_90a); device %d is %d.%d",
                     d->ordinal, d->cc_major, d->cc_minor);
            return WSGEMM_STATUS_ARCH_MISMATCH;
        }
        if (wsgemm_sm90_available()) return WSGEMM_STATUS_SUCCESS;
        snprintf(why, why_size, "this build of wsgemm has no sm90 kernel");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    case WSGEMM_PATH_SM100:
        if (!is_blackwell_dc(d)) {
            snprintf(why, why_size, "forced path sm100 needs compute capability 10.0 (sm_100a); device %d is %d.%d",
                     d->ordinal, d->cc_major, d->cc_minor);
            return WSGEMM_STATUS_ARCH_MISMATCH;
        }
        if (wsgemm_sm100_available()) return WSGEMM_STATUS_SUCCESS;
        snprintf(why, why_size, "this build of wsgemm has no sm100 kernel");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    case WSGEMM_PATH_SM100_EMULATED:
        if (!is_hopper(d)) {
            snprintf(why, why_size,
                     "forced path sm100-emulated runs on compute capability 9.0 (sm_90a); device %d "
                     "is %d.%d",
                     d->ordinal, d->cc_major, d->cc_minor);
            return WSGEMM_STATUS_ARCH_MISMATCH;
        }
        if (wsgemm_sm100_emulated_available()) return WSGEMM_STATUS_SUCCESS;
        snprintf(why, why_size,
                 "this library has no emulated sm100 kernel (it is in the verification library, "
                 "wsgemm_verify, of a build with 90a and -DWSGEMM_SM100_EMULATION=ON)");
        return WSGEMM_STATUS_NOT_SUPPORTED;
    }
    snprintf(why, why_size, "unknown path %d", (int)path);
    return WSGEMM_STATUS_INVALID_VALUE;
}

/* ---------------------------------------------------------------- AUTO */

/* The AUTO choice of the sm100 path waits for the device's self-check verdict (gemm/sm100/self_check.h):
 * run out of process by the helper program, so a trap or a hang of the unproven kernel never reaches this
 * process, and kept on disk per GPU, driver and library version. A process asks once per device; other
 * threads wait for the answer. It is never asked under stream capture (the helper takes seconds): a captured
 * call before the first verdict runs the path AUTO takes without sm100. With WSGEMM_SM100_AUTO_EMULATED=1
 * a Hopper device's AUTO gives the emulated sm100 path the same treatment (the whole chain on an H200). */
typedef enum self_check_state { SELF_CHECK_NOT_RUN = 0, SELF_CHECK_PASSED, SELF_CHECK_NOT_PASSED } self_check_state;
static self_check_state sm100_verdicts[WSGEMM_MAX_DEVICES];
static pthread_mutex_t sm100_verdicts_lock = PTHREAD_MUTEX_INITIALIZER;

static int stream_is_capturing(cudaStream_t stream)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &status);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        return 1; /* unknown: behave as under capture */
    }
    return status != cudaStreamCaptureStatusNone;
}

static int sm100_self_checked(const wsgemm_device_info *d, wsgemm_path path, cudaStream_t stream)
{
    const wsgemm_knobs *knobs = wsgemm_knobs_get();
    if (knobs->sm100_self_check == WSGEMM_SELF_CHECK_OFF) return 0;
    if (knobs->sm100_self_check == WSGEMM_SELF_CHECK_TRUST) return 1;
    pthread_mutex_lock(&sm100_verdicts_lock);
    self_check_state *state = &sm100_verdicts[d->ordinal];
    if (*state == SELF_CHECK_NOT_RUN && !stream_is_capturing(stream)) {
        wsgemm_self_check_request rq;
        wsgemm_self_check_result r;
        const wsgemm_self_check_verdict v = wsgemm_self_check_device(d->ordinal, path, knobs, &rq, &r);
        *state = v == WSGEMM_SELF_CHECK_PASS ? SELF_CHECK_PASSED : SELF_CHECK_NOT_PASSED;
        if (v == WSGEMM_SELF_CHECK_FAIL && r.suspect_timeout)
            fprintf(stderr,
                    "wsgemm: warning: the %s self-check timed out on device %d: %s; AUTO does not use it in this "
                    "process, and the next process checks once more\n",
                    wsgemm_path_name(path), d->ordinal, r.detail);
        else if (v == WSGEMM_SELF_CHECK_FAIL)
            fprintf(stderr,
                    "wsgemm: warning: the %s kernel failed its self-check on device %d: %s; AUTO does not use "
                    "it on this GPU (WSGEMM_SM100_SELF_CHECK=fresh checks again)\n",
                    wsgemm_path_name(path), d->ordinal, r.detail);
        else if (v == WSGEMM_SELF_CHECK_UNKNOWN && r.no_helper && wsgemm_self_check_warn_first(&rq, &r))
            fprintf(stderr,
                    "wsgemm: warning: no %s self-check verdict for device %d: %s; AUTO does not use %s until a "
                    "helper gives one (said once per helper location and GPU; WSGEMM_SM100_SELF_CHECK=off "
                    "silences it, `wsgemm-run --self-check` checks by hand)\n",
                    wsgemm_path_name(path), d->ordinal, r.detail, wsgemm_path_name(path));
        else if (v == WSGEMM_SELF_CHECK_UNKNOWN && !r.no_helper)
            fprintf(stderr,
                    "wsgemm: warning: no %s self-check verdict for device %d: %s; AUTO does not use %s in "
                    "this process\n",
                    wsgemm_path_name(path), d->ordinal, r.detail, wsgemm_path_name(path));
    }
    const int passed = *state == SELF_CHECK_PASSED;
    pthread_mutex_unlock(&sm100_verdicts_lock);
    return passed;
}

/* The device's fastest path for a GEMM. */
static wsgemm_path auto_path(const wsgemm_device_info *d, cudaStream_t stream)
{
    if (is_blackwell_dc(d) && wsgemm_sm100_available() && sm100_self_checked(d, WSGEMM_PATH_SM100, stream))
        return WSGEMM_PATH_SM100;
    if (is_hopper(d) && wsgemm_knobs_get()->sm100_auto_emulated && wsgemm_sm100_emulated_available() &&
        sm100_self_checked(d, WSGEMM_PATH_SM100_EMULATED, stream))
        return WSGEMM_PATH_SM100_EMULATED;
    if (is_hopper(d) && wsgemm_sm90_available()) return WSGEMM_PATH_SM90;
    return WSGEMM_PATH_GENERIC;
}

/* ---------------------------------------------------------------- what each path takes (header) */

static int is_sm100(wsgemm_path path)
{
    return path == WSGEMM_PATH_SM100 || path == WSGEMM_PATH_SM100_EMULATED;
}

/* The output is D itself when C is read: in place, same layout and type. */
static int c_is_d(const wsgemm_call *c)
{
    return c->output.c == c->problem.C && c->output.ldc == c->problem.ldc && c->output.c_type == (int)c->problem.Ctype;
}

/* A matmul epilogue other than DEFAULT: a bias, an aux output or an activation. */
static int has_epilogue_ops(const wsgemm_call *c)
{
    return c->output.ops.bias || c->output.ops.aux || c->output.ops.activation != WSGEMM_ACTIVATION_NONE;
}

/* Block-scaled MXFP8: VEC32_UE8M0 factors on both operands (the sm100 MX kernel's, when the path is forced). */
static int is_mx(const wsgemm_call *c)
{
    return c->problem.a_scale_mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0 &&
           c->problem.b_scale_mode == WSGEMM_MATMUL_SCALE_VEC32_UE8M0;
}

/* Operand scales that are tensors (block-scaled FP8). */
static int has_scale_tensors(const wsgemm_call *c)
{
    return wsgemm_scale_mode_is_tensor((int)c->problem.a_scale_mode) ||
           wsgemm_scale_mode_is_tensor((int)c->problem.b_scale_mode);
}

static const wsgemm_fused_epilogue *path_output_op(wsgemm_path path, const wsgemm_call *c);

/* 1 when `path` runs c on device d; else 0 with the reason in why (when why is not NULL). */
static int path_takes(wsgemm_path path, const wsgemm_call *c, const wsgemm_device_info *d, char *why, size_t why_size)
{
    if (path == WSGEMM_PATH_GENERIC) return 1;
    if (c->kind == WSGEMM_CALL_GROUPED) { /* the sm90 grouped kernel, where its plan takes the call */
        sm90_grouped_plan plan;
        if (path == WSGEMM_PATH_SM90) return sm90_grouped_plan_make(&c->problem, d, &plan, why, why_size);
        if (why)
            snprintf(why, why_size, "the %s kernel runs no grouped GEMM; the generic path does (AUTO takes it)",
                     wsgemm_path_name(path));
        return 0;
    }
    if (has_scale_tensors(c) && path != WSGEMM_PATH_SM90 && !(is_sm100(path) && is_mx(c))) {
        /* the sm100 kernels apply per-tensor scales and MX ones (the plan checks the rest of the call) */
        if (why)
            snprintf(why, why_size,
                     "the %s kernel applies per-tensor operand scales or MX ones (VEC32_UE8M0 on both); "
                     "a_scale_mode %s with b_scale_mode %s (block-scaled FP8) runs on the generic path (AUTO takes it)",
                     wsgemm_path_name(path), wsgemm_scale_mode_name((int)c->problem.a_scale_mode),
                     wsgemm_scale_mode_name((int)c->problem.b_scale_mode));
        return 0;
    }
    if (path == WSGEMM_PATH_SM90 &&
        !sm90_plan_takes_scales(c->problem.Atype, c->problem.Btype, (int)c->problem.a_scale_mode,
                                (int)c->problem.b_scale_mode)) {
        if (why)
            snprintf(why, why_size,
                     "the sm90 kernels apply the float scale tensors (VEC128_32F, BLK128x128_32F, OUTER_VEC_32F) "
                     "of E4M3 A and B; a_scale_mode %s with b_scale_mode %s, A type %d, B type %d runs on the "
                     "generic path (AUTO takes it)",
                     wsgemm_scale_mode_name((int)c->problem.a_scale_mode),
                     wsgemm_scale_mode_name((int)c->problem.b_scale_mode), (int)c->problem.Atype,
                     (int)c->problem.Btype);
        return 0;
    }
    if (c->problem.device_scalars) { /* the fast kernels take alpha and beta by value, and plan on them */
        if (why)
            snprintf(why, why_size,
                     "the %s kernel reads alpha and beta on the host; WSGEMM_POINTER_MODE_DEVICE runs the generic "
                     "path (AUTO takes it)",
                     wsgemm_path_name(path));
        return 0;
    }
    if (c->kind == WSGEMM_CALL_GEMM) return 1;
    const wsgemm_problem *p = &c->problem;
    const int product = wsgemm_call_has_product(c);
    if (path == WSGEMM_PATH_SM90) {
        const int fp8 = wsgemm_dtype_is_fp8(p->Atype);
        const int takes = (wsgemm_dtype_is_16bit(p->Atype) || fp8) &&
                          (fp8 || (c->output.a_scale == NULL && c->output.b_scale == NULL)) && product &&
                          (p->beta == 0.0f || (c_is_d(c) && c->output.c_scale == NULL));
        if (!takes && why)
            snprintf(why, why_size,
                     "the sm90 kernel runs a matmul with 16-bit A and B (no scales) or FP8 A and B, "
                     "k > 0, alpha != 0, and beta == 0 or C == D without c_scale");
        if (takes && p->batch_invariance == WSGEMM_BATCH_INVARIANCE_ON && path_output_op(path, c)) {
            /* the FUSED kernels run swapped, m along their tile width; rows invariant in m keep m on the
             * 128-row side (sm90_plan.c) */
            if (why)
                snprintf(why, why_size,
                         "the sm90 fused output op runs m along its tile width, which batch invariance ON "
                         "(rows invariant in m) does not allow; AUTO takes the generic path");
            return 0;
        }
        return takes;
    }
    if (!product && why) snprintf(why, why_size, "the sm100 kernel runs a matmul with k > 0 and alpha != 0");
    return product;
}

/* The output op `path` applies for c through its fused kernels, or NULL for alpha and beta on C. */
static const wsgemm_fused_epilogue *path_output_op(wsgemm_path path, const wsgemm_call *c)
{
    if (c->kind != WSGEMM_CALL_MATMUL) return NULL;
    const wsgemm_fused_epilogue *f = &c->output;
    const int fp8_d = wsgemm_dtype_is_fp8(c->problem.Ctype);
    int fused = 1;                /* generic: the matmul kernel applies the whole op */
    if (path == WSGEMM_PATH_SM90) /* operand scales alone: the FP8 kernels' K-block sums */
        fused = has_epilogue_ops(c) || f->d_scale || f->amax || fp8_d;
    else if (is_sm100(path))
        fused = has_epilogue_ops(c) || f->a_scale || f->b_scale || f->c_scale || f->d_scale || f->amax || fp8_d ||
                (c->problem.beta != 0.0f && !c_is_d(c));
    return fused ? f : NULL;
}

wsgemm_path wsgemm_path_choose(const wsgemm_call *c, wsgemm_path forced, const wsgemm_device_info *d,
                               cudaStream_t stream)
{
    if (c->kind == WSGEMM_CALL_GEMM && !wsgemm_call_has_product(c)) return WSGEMM_PATH_GENERIC;
    if (forced != WSGEMM_PATH_AUTO) return forced;
    if (c->kind == WSGEMM_CALL_GROUPED) /* no sm100 grouped kernel: sm90 on Hopper where it takes the call */
        return is_hopper(d) && wsgemm_sm90_available() && path_takes(WSGEMM_PATH_SM90, c, d, NULL, 0)
                   ? WSGEMM_PATH_SM90
                   : WSGEMM_PATH_GENERIC;
    if (c->problem.device_scalars) return WSGEMM_PATH_GENERIC; /* no fast path takes it: no self-check asked */
    if (has_scale_tensors(c)) /* only the sm90 kernels apply scale tensors: no self-check asked either */
        return is_hopper(d) && wsgemm_sm90_available() && path_takes(WSGEMM_PATH_SM90, c, d, NULL, 0)
                   ? WSGEMM_PATH_SM90
                   : WSGEMM_PATH_GENERIC;
    const wsgemm_path fastest = auto_path(d, stream);
    return path_takes(fastest, c, d, NULL, 0) ? fastest : WSGEMM_PATH_GENERIC;
}

/* ---------------------------------------------------------------- the dispatch */

wsgemm_status wsgemm_path_run(wsgemm_path path, const wsgemm_call *c, wsgemm_launch_ctx *ctx)
{
    char why[256];
    if (!path_takes(path, c, ctx->device, why, sizeof why))
        return wsgemm_fail(ctx, WSGEMM_STATUS_NOT_SUPPORTED, "%s", why);
    wsgemm_problem p = c->problem;
    p.fused = path_output_op(path, c);
    switch (path) {
    case WSGEMM_PATH_SM90:
        return c->kind == WSGEMM_CALL_GROUPED ? wsgemm_sm90_grouped(&p, ctx) : wsgemm_sm90_gemm(&p, ctx);
    case WSGEMM_PATH_SM100: return wsgemm_sm100_gemm(&p, ctx);
    case WSGEMM_PATH_SM100_EMULATED: return wsgemm_sm100_emulated_gemm(&p, ctx);
    default: break;
    }
    if (c->kind == WSGEMM_CALL_GROUPED) return ctx->plan_only ? WSGEMM_STATUS_SUCCESS : wsgemm_generic_grouped(&p, ctx);
    if (c->kind == WSGEMM_CALL_MATMUL) return wsgemm_generic_matmul(&p, ctx);
    if (!wsgemm_call_has_product(c)) /* C = beta * C: no product to form, no workspace */
        return ctx->plan_only ? WSGEMM_STATUS_SUCCESS : wsgemm_generic_scale_c(&p, ctx);
    return wsgemm_generic_gemm(&p, ctx);
}
