// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/self_check.h - the out-of-process self-check that stands between AUTO and the sm100 path.
 * Host C (POSIX), in the host object library.
 *
 * The first time AUTO could choose the sm100 path on a device, the library starts a small helper program
 * (wsgemm-sm100-selfcheck, gemm/sm100/self_check_helper.c) with posix_spawn, waits for it with a timeout
 * (killing it, and anything it started, on expiry), and reads its verdict from the exit code and one
 * result line. A trap, a crash or a hang of the unproven kernel happens in the helper's CUDA context, never
 * in the caller's. The verdict is kept for the process (gemm/paths.c, per device) and on disk, keyed by GPU UUID,
 * driver version, library version and the helper file itself, so later processes skip the helper.
 * docs/sm100.md "The self-check before AUTO uses sm100" is the user-facing description.
 *
 * The helper's environment is the caller's without any WSGEMM_* variable (wsgemm_self_check_environment): a
 * tuning or debug knob of the caller (WSGEMM_SM100_CTA_GROUP, _SPLITK, _EPILOGUE, ...) must not shape a
 * verdict that later processes take for the GPU's; the key does not record them. The helper gets all it
 * needs through its arguments (--device, --path, --uuid), and itself drops any WSGEMM_* variable it finds
 * (it sets its own cta_group and grid per case). CUDA_VISIBLE_DEVICES and the rest stay: the ordinal is the
 * caller's. Only the verification path (sm100-emulated, never installed) also passes the emulation's
 * switches WSGEMM_SM100_FAULT, WSGEMM_SM100_EMU_DELAY_NS and WSGEMM_TMEM_HB, so a test can plant a fault.
 *
 * Outcome of one helper run -> verdict:
 *   exit 0 and a "wsgemm-self-check: pass" line                        PASS     (cached)
 *   exit 1 and a "wsgemm-self-check: fail" line (wrong C, CUDA error)  FAIL     (cached)
 *   killed by a crash signal of its own (SIGSEGV, SIGBUS, SIGILL,      FAIL     (cached)
 *   SIGFPE, SIGABRT, SIGTRAP)
 *   killed by another signal, one from outside (SIGKILL of the OOM     UNKNOWN  (not cached)
 *   killer, SIGTERM/SIGINT/SIGHUP/SIGQUIT of a scheduler or a user)
 *   still running at the timeout (a hang, or a GPU too busy; killed)   FAIL     (cached only when the
 *                                                                                record for the key was
 *                                                                                a timeout already)
 *   anything else: exit 2 (could not check: no device, wrong GPU, no memory), a missing or mismatched
 *   result line, no helper, spawn failed                               UNKNOWN  (not cached: the next
 *                                                                                process tries again)
 * A first timeout is recorded in the cache file as "verdict suspect-timeout": no verdict for later processes,
 * which run the helper once more; a second timeout in a row makes the FAIL permanent, and a PASS or FAIL
 * replaces the record. AUTO uses sm100 on PASS only.
 *
 * Without a helper that can check (not found, it cannot be started, or it exits 2) AUTO takes the generic
 * path and says so on stderr once per helper location and GPU, not in every process:
 * wsgemm_self_check_warn_first keeps a marker file beside the verdict file (sm100-GPU-<uuid>.unavailable,
 * holding the location). WSGEMM_SM100_SELF_CHECK=off silences it; `wsgemm-run --self-check` is the
 * pre-flight that runs the check by hand.
 */
#ifndef WSGEMM_SM100_SELF_CHECK_H
#define WSGEMM_SM100_SELF_CHECK_H

#include "common/knobs.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The helper's file name, and the line prefix of its one result line. */
#define WSGEMM_SELF_CHECK_HELPER_NAME   "wsgemm-sm100-selfcheck"
#define WSGEMM_SELF_CHECK_RESULT_PREFIX "wsgemm-self-check: "

/* Helper exit codes. */
enum { WSGEMM_SELF_CHECK_EXIT_PASS = 0, WSGEMM_SELF_CHECK_EXIT_FAIL = 1, WSGEMM_SELF_CHECK_EXIT_CANNOT = 2 };

typedef enum wsgemm_self_check_verdict {
    WSGEMM_SELF_CHECK_UNKNOWN = 0, /* no verdict: AUTO does not use sm100 (in this process) */
    WSGEMM_SELF_CHECK_PASS = 1,
    WSGEMM_SELF_CHECK_FAIL = 2
} wsgemm_self_check_verdict;

enum { WSGEMM_SELF_CHECK_PATH_BYTES = 1024, WSGEMM_SELF_CHECK_TEXT_BYTES = 512 };

/* What to check and where to keep the verdict. */
typedef struct wsgemm_self_check_request {
    char helper[WSGEMM_SELF_CHECK_PATH_BYTES];      /* the helper to run; "" when none was found */
    char helper_note[WSGEMM_SELF_CHECK_TEXT_BYTES]; /* where it was looked for (the message when "") */
    int device;                                     /* the ordinal the helper checks */
    char path_name[32];                             /* "sm100" or "sm100-emulated" (wsgemm_path_name) */
    char uuid[48];                                  /* "GPU-...": the helper refuses another device; "" none */
    char key[WSGEMM_SELF_CHECK_TEXT_BYTES];         /* GPU UUID, driver, library version, path, helper */
    char cache_file[WSGEMM_SELF_CHECK_PATH_BYTES];  /* the verdict file; "" for no disk cache */
    double timeout_s;
    int fresh; /* run the helper even when the cache has a verdict */
} wsgemm_self_check_request;

/* What one helper run did (wsgemm_self_check_spawn). */
typedef struct wsgemm_self_check_run_outcome {
    int started; /* 0: it could not be started (error says why) */
    int exited;  /* it exited by itself with exit_code */
    int exit_code;
    int signal;                                       /* it was killed by this signal (and not by us) */
    int timed_out;                                    /* still running at the timeout: we killed its process group */
    double seconds;                                   /* wall time from the spawn to its end */
    char result_line[WSGEMM_SELF_CHECK_TEXT_BYTES];   /* the last line starting with the prefix, or "" */
    char last_line[WSGEMM_SELF_CHECK_TEXT_BYTES];     /* the last non-empty line of its output */
    char watchdog_line[WSGEMM_SELF_CHECK_TEXT_BYTES]; /* the first "wsgemm watchdog:" line, or "" */
    char error[WSGEMM_SELF_CHECK_TEXT_BYTES];
} wsgemm_self_check_run_outcome;

typedef struct wsgemm_self_check_result {
    wsgemm_self_check_verdict verdict;
    int from_cache;      /* the verdict was read from cache_file; no helper ran */
    int cached;          /* the verdict was written to cache_file */
    int suspect_timeout; /* a first timeout: FAIL for this process, recorded as a suspect in cache_file */
    int no_helper;       /* UNKNOWN because no helper could give a verdict: none was found, it did not start, or
                            it could not check (exit 2: e.g. an exclusive-process GPU this process holds) */
    char detail[2 * WSGEMM_SELF_CHECK_TEXT_BYTES]; /* the result line, or why there is no verdict */
} wsgemm_self_check_result;

/* Run `helper` with argv (argv[0] included, NULL-terminated), its stdin /dev/null, its stdout and stderr
 * collected through one pipe, in a process group of its own; wait at most timeout_s seconds, then kill
 * the group. Never leaves a zombie or a descriptor behind. Pure POSIX, no CUDA. */
void wsgemm_self_check_spawn(const char *helper, char *const argv[], double timeout_s,
                             wsgemm_self_check_run_outcome *out);
/* The same with the environment envp (NULL-terminated) instead of the caller's. */
void wsgemm_self_check_spawn_env(const char *helper, char *const argv[], char *const envp[], double timeout_s,
                                 wsgemm_self_check_run_outcome *out);

/* The helper's environment (the rule above): the entries of env without WSGEMM_* ones, except, for path_name
 * "sm100-emulated", the emulation's switches. A malloc'ed NULL-terminated array of env's own strings (free the
 * array only), or NULL when out of memory. */
char **wsgemm_self_check_environment(char *const env[], const char *path_name);

/* 1 when a WSGEMM_* variable "NAME=value" is one the helper keeps for path_name (the emulation's switches on
 * sm100-emulated), 0 when it must be dropped. */
int wsgemm_self_check_keeps_variable(const char *entry, const char *path_name);

/* 1 when signal sig ending the helper is a crash of its own (FAIL), 0 when it came from outside (UNKNOWN). */
int wsgemm_self_check_crash_signal(int sig);

/* The verdict of one outcome (table above), with its explanation in detail. */
wsgemm_self_check_verdict wsgemm_self_check_judge(const wsgemm_self_check_run_outcome *o, char *detail,
                                                  size_t detail_size);

/* The verdict for a request: from cache_file when it holds one for request->key (and not fresh), else by
 * running the helper (`helper --device N --path P`) and, for PASS and FAIL, writing cache_file atomically
 * (a temporary file renamed over it). An unreadable, corrupt or stale file means: run the helper. No CUDA. */
wsgemm_self_check_verdict wsgemm_self_check_run(const wsgemm_self_check_request *request,
                                                wsgemm_self_check_result *result);

/* For a result with no_helper: 1 when the warning about it is to be printed now (the first time for this
 * helper location and GPU; the marker beside the verdict file is written), 0 when it was printed before.
 * Always 1 without a disk cache. */
int wsgemm_self_check_warn_first(const wsgemm_self_check_request *request, const wsgemm_self_check_result *result);

/* Where the installed helper lies relative to the installed library's folder ("../libexec/wsgemm"). */
const char *wsgemm_self_check_libexec_from_libdir(void);

/* The absolute path of the file the library's code was loaded from: libwsgemm.so, or the program that linked
 * libwsgemm.a ("/proc/self/exe" when it cannot be told). */
void wsgemm_self_check_loaded_object(char *out, size_t size);

/* The helper: the override when set (only it: missing means none), else WSGEMM_SELF_CHECK_HELPER_NAME in
 * the folder the installed library puts it (WSGEMM_SELF_CHECK_LIBEXEC_FROM_LIBDIR, relative to the folder
 * of `loaded_object`, the file the library was loaded from), else, only when loaded_object lies inside the
 * build tree it was built in, the build tree's helper. 1 when found (out = its path); 0 with note saying
 * where it looked. No CUDA. */
int wsgemm_self_check_find_helper(const char *override_path, const char *loaded_object, char *out, size_t out_size,
                                  char *note, size_t note_size);

/* The request for device `ordinal` and `path` (WSGEMM_PATH_SM100 or WSGEMM_PATH_SM100_EMULATED): the
 * helper looked up, the key from the device's UUID and the driver, the cache file under knobs->cache_dir.
 * CUDA runtime queries only (no allocation, no stream). WSGEMM_STATUS_CUDA_ERROR (message in why) when the
 * device cannot be asked. */
wsgemm_status wsgemm_self_check_request_for(int ordinal, wsgemm_path path, const wsgemm_knobs *knobs,
                                            wsgemm_self_check_request *request, char *why, size_t why_size);

/* wsgemm_self_check_request_for, then wsgemm_self_check_run: the verdict AUTO asks for (gemm/paths.c) and
 * `wsgemm-run --self-check` prints. A device that cannot be asked gives UNKNOWN. */
wsgemm_self_check_verdict wsgemm_self_check_device(int ordinal, wsgemm_path path, const wsgemm_knobs *knobs,
                                                   wsgemm_self_check_request *request,
                                                   wsgemm_self_check_result *result);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_SM100_SELF_CHECK_H */
