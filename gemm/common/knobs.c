// SPDX-License-Identifier: MIT
/*
 * gemm/common/knobs.c - see knobs.h.
 */
#include "common/knobs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wsgemm_env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0') return fallback;
    return atoi(v);
}

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
        .sm100_debug = 0,
        .sm100_cta_group = 0,
        .sm100_ctas = 0,
        .sm100_group = 8,
        .sm100_splitk = 0,
        .sm100_clc = 0,
        .sm100_epilogue = WSGEMM_EPILOGUE_PREF_AUTO,
        .sm100_self_check = WSGEMM_SELF_CHECK_CACHED,
        .sm100_self_check_timeout_s = 120,
        .sm100_auto_emulated = 0,
    };
    return k;
}

/* Where the knobs' variables are read: the environment, or (wsgemm_knobs_from) a caller's lookup. */
typedef struct knob_source {
    wsgemm_knob_lookup lookup;
    void *ctx;
} knob_source;

static const char *get(const knob_source *src, const char *name)
{
    return src->lookup(src->ctx, name);
}

static int get_int(const knob_source *src, const char *name, int fallback)
{
    const char *v = get(src, name);
    if (v == NULL || *v == '\0') return fallback;
    return atoi(v);
}

static wsgemm_self_check_mode self_check_mode_from(const knob_source *src)
{
    const char *v = get(src, "WSGEMM_SM100_SELF_CHECK");
    if (v == NULL) return WSGEMM_SELF_CHECK_CACHED;
    if (strcmp(v, "fresh") == 0) return WSGEMM_SELF_CHECK_FRESH;
    if (strcmp(v, "off") == 0) return WSGEMM_SELF_CHECK_OFF;
    if (strcmp(v, "trust") == 0) return WSGEMM_SELF_CHECK_TRUST;
    return WSGEMM_SELF_CHECK_CACHED;
}

/* The XDG base directory rule for the cache: $XDG_CACHE_HOME when it is an absolute path, else
 * $HOME/.cache; wsgemm's folder inside it. "" when neither is usable. */
static void cache_dir_from(const knob_source *src, char *dst, size_t size)
{
    const char *xdg = get(src, "XDG_CACHE_HOME"), *home = get(src, "HOME");
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(dst, size, "%s/wsgemm", xdg);
    else if (home && home[0] == '/')
        n = snprintf(dst, size, "%s/.cache/wsgemm", home);
    if (n < 0 || (size_t)n >= size) dst[0] = '\0';
}

static wsgemm_epilogue_pref epilogue_from(const knob_source *src, const char *name)
{
    const char *v = get(src, name);
    if (v == NULL) return WSGEMM_EPILOGUE_PREF_AUTO;
    if (strcmp(v, "direct") == 0) return WSGEMM_EPILOGUE_PREF_DIRECT;
    if (strcmp(v, "tma") == 0) return WSGEMM_EPILOGUE_PREF_TMA;
    if (strcmp(v, "staged") == 0) return WSGEMM_EPILOGUE_PREF_STAGED;
    return WSGEMM_EPILOGUE_PREF_AUTO;
}

static void path_from(const knob_source *src, const char *name, char *dst, size_t size)
{
    const char *v = get(src, name);
    if (v) snprintf(dst, size, "%s", v);
}

wsgemm_knobs wsgemm_knobs_from(wsgemm_knob_lookup lookup, void *ctx)
{
    const knob_source src = {lookup, ctx}, *S = &src;
    const wsgemm_knobs d = wsgemm_knobs_defaults();
    const int bn = get_int(S, "WSGEMM_SM90_BN", 0);
    const int splitk = get_int(S, "WSGEMM_SM90_SPLITK", 0);
    const int cta_group = get_int(S, "WSGEMM_SM100_CTA_GROUP", 0);
    const int ctas = get_int(S, "WSGEMM_SM100_CTAS", 0);
    const int splitk100 = get_int(S, "WSGEMM_SM100_SPLITK", 0);
    const int hybrid = get_int(S, "WSGEMM_SM90_HYBRID", d.sm90_hybrid);
    wsgemm_knobs k = {
        .sm90_debug = get_int(S, "WSGEMM_SM90_DEBUG", d.sm90_debug),
        .sm90_swap = get_int(S, "WSGEMM_SM90_SWAP", d.sm90_swap) != 0,
        .sm90_bn = bn == 64 || bn == 128 || bn == 192 || bn == 256 ? bn : 0,
        .sm90_variant = get_int(S, "WSGEMM_SM90_VARIANT", d.sm90_variant),
        .sm90_splitk = splitk > 0 ? splitk : 0,
        .sm90_group = get_int(S, "WSGEMM_SM90_GROUP", d.sm90_group),
        .sm90_hybrid = hybrid == 0 || hybrid == 1 ? 0
                       : hybrid >= 2              ? hybrid
                                                  : d.sm90_hybrid,
        .sm90_epilogue = epilogue_from(S, "WSGEMM_SM90_EPILOGUE"),
        .sm100_debug = get_int(S, "WSGEMM_SM100_DEBUG", d.sm100_debug),
        .sm100_cta_group = cta_group == 1 || cta_group == 2 ? cta_group : 0,
        .sm100_ctas = ctas > 0 ? ctas : 0,
        .sm100_group = get_int(S, "WSGEMM_SM100_GROUP", d.sm100_group),
        .sm100_splitk = splitk100 > 0 ? splitk100 : 0,
        .sm100_clc = get_int(S, "WSGEMM_SM100_CLC", d.sm100_clc) == 1,
        .sm100_epilogue = epilogue_from(S, "WSGEMM_SM100_EPILOGUE"),
        .sm100_self_check = self_check_mode_from(S),
        .sm100_self_check_timeout_s = get_int(S, "WSGEMM_SM100_SELF_CHECK_TIMEOUT", d.sm100_self_check_timeout_s),
        .sm100_auto_emulated = get_int(S, "WSGEMM_SM100_AUTO_EMULATED", d.sm100_auto_emulated) != 0,
    };
    if (k.sm100_self_check_timeout_s <= 0) k.sm100_self_check_timeout_s = d.sm100_self_check_timeout_s;
    path_from(S, "WSGEMM_SM100_SELF_CHECK_HELPER", k.sm100_self_check_helper, sizeof k.sm100_self_check_helper);
    path_from(S, "WSGEMM_TUNE_CACHE", k.tune_cache, sizeof k.tune_cache);
    cache_dir_from(S, k.cache_dir, sizeof k.cache_dir);
    return k;
}

static const char *env_lookup(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

wsgemm_knobs wsgemm_knobs_from_env(void)
{
    return wsgemm_knobs_from(env_lookup, NULL);
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
