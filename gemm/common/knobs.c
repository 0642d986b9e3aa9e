/*
 * gemm/common/knobs.c - see knobs.h.
 */
#include "common/knobs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

wsgemm_knobs wsgemm_knobs_defaults(void)
{
    wsgemm_knobs k = {
        .sm90_debug = 0,
        .sm90_swap = 1,
        .sm90_bn = 0,
        .sm90_variant = 0,
        .sm90_splitk = 0,
        .sm90_group = 8,
        .sm90_hybrid = -1,
        .sm90_epilogue = WSGEMM_EPILOGUE_PREF_AUTO,
    };
    return k;
}

static wsgemm_epilogue_pref epilogue_from_env(void)
{
    const char *v = getenv("WSGEMM_SM90_EPILOGUE");
    if (v == NULL) return WSGEMM_EPILOGUE_PREF_AUTO;
    if (strcmp(v, "direct") == 0) return WSGEMM_EPILOGUE_PREF_DIRECT;
    if (strcmp(v, "tma") == 0) return WSGEMM_EPILOGUE_PREF_TMA;
    if (strcmp(v, "staged") == 0) return WSGEMM_EPILOGUE_PREF_STAGED;
    return WSGEMM_EPILOGUE_PREF_AUTO;
}

wsgemm_knobs wsgemm_knobs_from_env(void)
{
    const wsgemm_knobs d = wsgemm_knobs_defaults();
    const int bn = wsgemm_env_int("WSGEMM_SM90_BN", 0);
    const int splitk = wsgemm_env_int("WSGEMM_SM90_SPLITK", 0);
    const int hybrid = wsgemm_env_int("WSGEMM_SM90_HYBRID", d.sm90_hybrid);
    wsgemm_knobs k = {
        .sm90_debug = wsgemm_env_int("WSGEMM_SM90_DEBUG", d.sm90_debug),
        .sm90_swap = wsgemm_env_int("WSGEMM_SM90_SWAP", d.sm90_swap) != 0,
        .sm90_bn = bn == 64 || bn == 128 || bn == 256 ? bn : 0,
        .sm90_variant = wsgemm_env_int("WSGEMM_SM90_VARIANT", d.sm90_variant),
        .sm90_splitk = splitk > 0 ? splitk : 0,
        .sm90_group = wsgemm_env_int("WSGEMM_SM90_GROUP", d.sm90_group),
        .sm90_hybrid = hybrid == 0 || hybrid == 1 ? 0 : hybrid >= 2 ? hybrid : d.sm90_hybrid,
        .sm90_epilogue = epilogue_from_env(),
    };
    return k;
}

static wsgemm_knobs knobs;
static pthread_once_t knobs_once = PTHREAD_ONCE_INIT;

static void knobs_read(void)
{
    knobs = wsgemm_knobs_from_env();
}

const wsgemm_knobs *wsgemm_knobs_get(void)
{
    pthread_once(&knobs_once, knobs_read);
    return &knobs;
}

void wsgemm_knobs_reload(void)
{
    pthread_once(&knobs_once, knobs_read);
    knobs_read();
}
