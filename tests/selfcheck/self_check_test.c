// SPDX-License-Identifier: MIT
/*
 * self_check_test.c - the sm100 self-check's machinery on the CPU (gemm/sm100/self_check.h): spawning the
 * helper with a timeout, judging what it did, the disk cache, the helper lookup. No GPU: the helpers here
 * are shell scripts written by the test, each playing one way a real helper can end:
 *
 *   pass          exit 0 + pass line -> PASS, cached; the second run reads the cache and spawns nothing
 *   fail          exit 1 + fail line -> FAIL, cached
 *   long_detail   a verdict whose explanation is longer than a cache line may be: cut when written, read back
 *   crash         killed by a crash signal of its own (SIGSEGV, SIGABRT, SIGBUS) -> FAIL, cached
 *   outside_signal killed from outside (SIGTERM, SIGKILL, SIGINT, SIGHUP, SIGQUIT) -> UNKNOWN, not cached
 *   hang          sleeps past the 1 s timeout -> FAIL within seconds; the process it started is killed too; a
 *                 first timeout is only a suspect (no verdict for the next process, which runs it again), a
 *                 second makes the FAIL permanent; a pass after a suspect replaces it
 *   closed_hang   closes its output and then hangs -> still FAIL at the timeout
 *   environment   the helper gets no WSGEMM_* variable of the caller (the tuning knobs), keeps the rest
 *                 (CUDA_VISIBLE_DEVICES); the emulated path keeps the emulation's verification switches only
 *   warn_once     no helper (or one that cannot check): the warning is due once per helper location and GPU
 *                 (a marker beside the verdict file), again for another location or after a helper ran
 *   garbage       exit 0 without a result line, a pass line with exit 1, a fail line with exit 0 -> UNKNOWN,
 *                 not cached
 *   cannot        exit 2 + error line -> UNKNOWN, not cached
 *   missing       no helper, a helper that is not executable -> UNKNOWN at once, with the reason
 *   flood         2 MB of output before the pass line -> PASS (the pipe is drained, no deadlock)
 *   lost_status   SIGCHLD ignored by the caller: the exit status is gone -> UNKNOWN, no hang
 *   cache         stale key, corrupt file, fresh mode -> the helper runs again; an unwritable cache folder
 *                 -> the verdict still stands; no temporary file is left behind
 *   judge         the outcome -> verdict table, case by case
 *   lookup        override, the installed layout relative to the library's folder, nothing found; the
 *                 file the library's code was loaded from (this program: it links the static library)
 * Every case also checks that no child process and no descriptor is left behind.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sm100/self_check.h"
#include "testing.h"

static int failures;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

static char work[256]; /* this run's folder */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A helper script `name` in the work folder with `body` after the shebang; its path in out. */
static void write_script(const char *name, const char *body, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", work, name);
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        exit(1);
    }
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    chmod(out, 0755);
}

/* How many times a script that appends its arguments to "$0.calls" was started; the last arguments. */
static int calls(const char *script, char *last_args, size_t size)
{
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s.calls", script);
    FILE *f = fopen(path, "r");
    int n = 0;
    if (last_args) last_args[0] = '\0';
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        ++n;
        if (last_args) snprintf(last_args, size, "%s", line);
    }
    fclose(f);
    return n;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d) return -1;
    while (readdir(d)) ++n;
    closedir(d);
    return n;
}

static wsgemm_self_check_request request(const char *helper, const char *key, double timeout_s)
{
    wsgemm_self_check_request rq;
    memset(&rq, 0, sizeof rq);
    snprintf(rq.helper, sizeof rq.helper, "%s", helper);
    snprintf(rq.helper_note, sizeof rq.helper_note, "the test gave no helper");
    rq.device = 3;
    snprintf(rq.path_name, sizeof rq.path_name, "sm100");
    snprintf(rq.key, sizeof rq.key, "%s", key);
    snprintf(rq.cache_file, sizeof rq.cache_file, "%s/cache/wsgemm/sm100-GPU-test.verdict", work);
    rq.timeout_s = timeout_s;
    return rq;
}

static const char *verdict_name(wsgemm_self_check_verdict v)
{
    return v == WSGEMM_SELF_CHECK_PASS ? "PASS" : v == WSGEMM_SELF_CHECK_FAIL ? "FAIL" : "UNKNOWN";
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Run rq and check the verdict, whether it came from the cache and whether it was written there. */
static void expect_run(const wsgemm_self_check_request *rq, wsgemm_self_check_verdict want, int want_from_cache,
                       int want_cached, const char *detail_has, const char *what)
{
    wsgemm_self_check_result r;
    const wsgemm_self_check_verdict v = wsgemm_self_check_run(rq, &r);
    printf("  %-44s -> %s%s: %s\n", what, verdict_name(v), r.from_cache ? " (cache)" : "", r.detail);
    EXPECT(v == want, "%s: verdict %s, want %s (%s)", what, verdict_name(v), verdict_name(want), r.detail);
    EXPECT(r.from_cache == want_from_cache, "%s: from_cache %d, want %d", what, r.from_cache, want_from_cache);
    EXPECT(r.cached == want_cached, "%s: cached %d, want %d", what, r.cached, want_cached);
    if (detail_has)
        EXPECT(strstr(r.detail, detail_has) != NULL, "%s: detail '%s' lacks '%s'", what, r.detail, detail_has);
}

static void remove_cache(const wsgemm_self_check_request *rq)
{
    unlink(rq->cache_file);
}

/* ---------------------------------------------------------------- cases */

static void case_pass(void)
{
    char h[512], args[512];
    write_script("pass",
                 "echo \"$@\" >> \"$0.calls\"\necho chatter before the verdict\n"
                 "echo 'wsgemm-self-check: pass fake helper'\nexit 0",
                 h, sizeof h);
    wsgemm_self_check_request rq = request(h, "key-pass", 20.0);
    remove_cache(&rq);
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 1, "pass fake helper", "pass: first run");
    EXPECT(calls(h, args, sizeof args) == 1, "the helper ran %d times, want 1", calls(h, NULL, 0));
    EXPECT(strstr(args, "--device 3 --path sm100") != NULL, "the helper's arguments: %s", args);
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 1, 0, "cached in", "pass: second run");
    EXPECT(calls(h, NULL, 0) == 1, "a cached verdict spawned the helper again (%d runs)", calls(h, NULL, 0));
    snprintf(rq.uuid, sizeof rq.uuid, "GPU-0000");
    rq.fresh = 1;
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 1, NULL, "pass: fresh, with a uuid");
    EXPECT(calls(h, args, sizeof args) == 2, "fresh mode: the helper ran %d times, want 2", calls(h, NULL, 0));
    EXPECT(strstr(args, "--uuid GPU-0000") != NULL, "the helper's arguments: %s", args);
}

static void case_long_detail(void)
{
    char h[512];
    /* a hang after a long watchdog line and a long last line: the detail holds both (over 1000 characters) */
    write_script("long_hang", "printf 'wsgemm watchdog: %0480d\\n' 1\nprintf 'last %0480d\\n' 2\nexec sleep 30", h,
                 sizeof h);
    wsgemm_self_check_request rq = request(h, "key-long", 1.0);
    remove_cache(&rq);
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 0, "wsgemm watchdog: 000", "a hang with long lines (a suspect)");
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 1, "wsgemm watchdog: 000", "the same hang again (cached)");
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 1, 0, "last 000", "the same, from the cache");
}

static void case_fail(void)
{
    char h[512], p[512];
    write_script("fail", "echo 'case 1/8: wrong'\necho 'wsgemm-self-check: fail C(1,2) = 3, expected 4'\nexit 1", h,
                 sizeof h);
    wsgemm_self_check_request rq = request(h, "key-fail", 20.0);
    remove_cache(&rq);
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 1, "C(1,2) = 3", "fail");
    /* the cached FAIL stands; a passing helper is not asked */
    write_script("pass_uncalled", "echo x >> \"$0.calls\"\necho 'wsgemm-self-check: pass'\nexit 0", p, sizeof p);
    snprintf(rq.helper, sizeof rq.helper, "%s", p);
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 1, 0, "C(1,2) = 3", "fail: cached");
    EXPECT(calls(p, NULL, 0) == 0, "a cached FAIL still ran the helper");
}

/* A helper script `name` run once with no verdict cached: the verdict, whether it was cached (and the file
 * exists only then), and a piece of the explanation. */
static void check_script(const char *name, const char *body, wsgemm_self_check_verdict want, int want_cached,
                         const char *detail_has)
{
    char h[512];
    write_script(name, body, h, sizeof h);
    wsgemm_self_check_request rq = request(h, name, 20.0);
    remove_cache(&rq);
    expect_run(&rq, want, 0, want_cached, detail_has, name);
    EXPECT(file_exists(rq.cache_file) == want_cached, "%s: the cache file %s", name,
           want_cached ? "is missing" : "holds a non-verdict");
}

static void case_crash(void)
{
    check_script("crash", "ulimit -c 0\necho 'case 1/8: starting'\nkill -SEGV $$\nsleep 5", WSGEMM_SELF_CHECK_FAIL, 1,
                 "signal 11");
    check_script("crash_abort", "ulimit -c 0\nkill -ABRT $$\nsleep 5", WSGEMM_SELF_CHECK_FAIL, 1, "crashed");
    check_script("crash_bus", "ulimit -c 0\nkill -BUS $$\nsleep 5", WSGEMM_SELF_CHECK_FAIL, 1, "crashed");
}

static void case_outside_signal(void)
{
    static const char *const sigs[] = {"TERM", "KILL", "INT", "HUP", "QUIT"};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
        char name[32], body[128];
        snprintf(name, sizeof name, "killed_%s", sigs[i]);
        snprintf(body, sizeof body, "ulimit -c 0\necho 'case 1/8: starting'\nkill -%s $$\nsleep 5", sigs[i]);
        check_script(name, body, WSGEMM_SELF_CHECK_UNKNOWN, 0, "killed from outside");
    }
}

static void check_hang(const char *name, const char *body, const char *what)
{
    char h[512], pidfile[1024];
    write_script(name, body, h, sizeof h);
    snprintf(pidfile, sizeof pidfile, "%s.pid", h);
    unlink(pidfile);
    wsgemm_self_check_request rq = request(h, what, 1.0);
    remove_cache(&rq);
    const double t0 = now_s();
    wsgemm_self_check_result r;
    const wsgemm_self_check_verdict v = wsgemm_self_check_run(&rq, &r);
    printf("  %-44s -> %s: %s\n", what, verdict_name(v), r.detail);
    EXPECT(v == WSGEMM_SELF_CHECK_FAIL && !r.cached && r.suspect_timeout && strstr(r.detail, "a hang"),
           "%s: a first timeout: %s, cached %d, suspect %d (%s)", what, verdict_name(v), r.cached, r.suspect_timeout,
           r.detail);
    const double took = now_s() - t0;
    EXPECT(took >= 0.9 && took < 4.0, "%s: the 1 s timeout took %.2f s", what, took);
    /* the process the helper started (a sleep of 30 s) died with it: its group was killed */
    FILE *f = fopen(pidfile, "r");
    long pid = 0;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
    }
    EXPECT(pid > 0, "%s: the helper did not record its child", what);
    int alive = pid > 0;
    for (int i = 0; i < 200 && alive; ++i) { /* reaped by init shortly after the kill */
        alive = kill((pid_t)pid, 0) == 0;
        if (alive) usleep(10000);
    }
    EXPECT(!alive, "%s: the helper's child %ld survived the timeout", what, pid);
}

static void case_hang(void)
{
    check_hang("hang", "echo 'case 1/8: starting'\nsleep 30 &\necho $! > \"$0.pid\"\nwait", "hang");
    /* the suspect is in the file; the next process runs the helper again; a second timeout is the FAIL */
    char h[512], p[512];
    write_script("hang_counted", "echo x >> \"$0.calls\"\nexec sleep 30", h, sizeof h);
    wsgemm_self_check_request rq = request(h, "key-hang-twice", 1.0);
    remove_cache(&rq);
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 0, "a hang", "hang: first timeout (suspect)");
    EXPECT(testing_file_has(rq.cache_file, "verdict suspect-timeout"), "no suspect line in %s", rq.cache_file);
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 1, "a hang", "hang: second timeout in a row (cached)");
    EXPECT(calls(h, NULL, 0) == 2, "a suspect timeout did not run the helper again (%d runs)", calls(h, NULL, 0));
    EXPECT(testing_file_has(rq.cache_file, "verdict fail"), "the second timeout was not cached as fail");
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 1, 0, "a hang", "hang: then from the cache");
    EXPECT(calls(h, NULL, 0) == 2, "a cached FAIL ran the helper (%d runs)", calls(h, NULL, 0));
    /* a suspect, then a pass: the pass replaces it */
    remove_cache(&rq);
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 0, "a hang", "hang: a suspect again");
    write_script("pass_after_hang", "echo 'wsgemm-self-check: pass after a suspect'\nexit 0", p, sizeof p);
    snprintf(rq.helper, sizeof rq.helper, "%s", p);
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 1, "after a suspect", "hang: the next run passes (cached)");
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 1, 0, "after a suspect", "hang: the pass from the cache");
    /* a suspect for another key is no suspect: a timeout for this key is a first one */
    remove_cache(&rq);
    snprintf(rq.helper, sizeof rq.helper, "%s", h);
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 0, "a hang", "hang: suspect for key A");
    snprintf(rq.key, sizeof rq.key, "key-hang-other");
    expect_run(&rq, WSGEMM_SELF_CHECK_FAIL, 0, 0, "a hang", "hang: key B's first timeout is a suspect too");
}

static void case_environment(void)
{
    char h[512];
    write_script("env",
                 "echo \"wsgemm-self-check: pass env=<$(env | grep '^WSGEMM_' | sort | tr '\\n' ' ')> "
                 "cvd=$CUDA_VISIBLE_DEVICES\"\nexit 0",
                 h, sizeof h);
    setenv("WSGEMM_SM100_CTA_GROUP", "2", 1);
    setenv("WSGEMM_SM100_SPLITK", "3", 1);
    setenv("WSGEMM_SM100_EPILOGUE", "direct", 1);
    setenv("WSGEMM_SM100_SELF_CHECK", "fresh", 1);
    setenv("WSGEMM_SM100_FAULT", "early_dealloc", 1);
    setenv("CUDA_VISIBLE_DEVICES", "5", 1);
    wsgemm_self_check_request rq = request(h, "key-env", 20.0);
    rq.cache_file[0] = '\0';
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 0, "env=<> cvd=5", "environment: sm100 gets no WSGEMM_*");
    snprintf(rq.path_name, sizeof rq.path_name, "sm100-emulated");
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 0, "env=<WSGEMM_SM100_FAULT=early_dealloc > cvd=5",
               "environment: sm100-emulated keeps the emulation's switches");
    static const struct {
        const char *entry, *path;
        int keep;
    } k[] = {
        {"PATH=/bin", "sm100", 1},
        {"CUDA_VISIBLE_DEVICES=1", "sm100", 1},
        {"WSGEMM_SM100_CTA_GROUP=1", "sm100", 0},
        {"WSGEMM_SM90_BN=64", "sm100", 0},
        {"WSGEMM_SM100_FAULT=early_dealloc", "sm100", 0},
        {"WSGEMM_SM100_FAULT=early_dealloc", "sm100-emulated", 1},
        {"WSGEMM_SM100_FAULTY=1", "sm100-emulated", 0},
        {"WSGEMM_TMEM_HB=1", "sm100-emulated", 1},
        {"WSGEMM_SM100_SPLITK=2", "sm100-emulated", 0},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
        EXPECT(wsgemm_self_check_keeps_variable(k[i].entry, k[i].path) == k[i].keep, "%s on %s: keep %d, want %d",
               k[i].entry, k[i].path, !k[i].keep, k[i].keep);
    unsetenv("WSGEMM_SM100_CTA_GROUP");
    unsetenv("WSGEMM_SM100_SPLITK");
    unsetenv("WSGEMM_SM100_EPILOGUE");
    unsetenv("WSGEMM_SM100_SELF_CHECK");
    unsetenv("WSGEMM_SM100_FAULT");
    unsetenv("CUDA_VISIBLE_DEVICES");
}

static void case_warn_once(void)
{
    wsgemm_self_check_request rq = request("", "key-warn", 20.0);
    remove_cache(&rq);
    char marker[1024];
    snprintf(marker, sizeof marker, "%s/cache/wsgemm/sm100-GPU-test.unavailable", work);
    unlink(marker);
    wsgemm_self_check_result r;
    EXPECT(wsgemm_self_check_run(&rq, &r) == WSGEMM_SELF_CHECK_UNKNOWN && r.no_helper, "no helper: no_helper %d",
           r.no_helper);
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 1, "the first process did not warn");
    EXPECT(file_exists(marker), "no marker %s", marker);
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 0, "a later process warned again");
    snprintf(rq.helper_note, sizeof rq.helper_note, "another place");
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 1, "another helper location did not warn");
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 0, "the other location warned twice");
    /* a helper that cannot check (exit 2) counts as none */
    char h[512];
    write_script("cannot_warn", "echo 'wsgemm-self-check: error device 3: exclusive-process'\nexit 2", h, sizeof h);
    snprintf(rq.helper, sizeof rq.helper, "%s", h);
    EXPECT(wsgemm_self_check_run(&rq, &r) == WSGEMM_SELF_CHECK_UNKNOWN && r.no_helper, "exit 2: no_helper %d",
           r.no_helper);
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 1, "a new helper that cannot check did not warn");
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 0, "the helper that cannot check warned twice");
    /* a verdict clears the marker: the helper going missing later is news */
    write_script("pass_warn", "echo 'wsgemm-self-check: pass'\nexit 0", h, sizeof h);
    snprintf(rq.helper, sizeof rq.helper, "%s", h);
    EXPECT(wsgemm_self_check_run(&rq, &r) == WSGEMM_SELF_CHECK_PASS && !r.no_helper, "pass: no_helper %d", r.no_helper);
    EXPECT(!file_exists(marker), "a verdict left the marker");
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 1, "a result with a verdict is not to be kept quiet");
    /* an outside signal is not "no helper" */
    write_script("killed_warn", "kill -TERM $$\nsleep 5", h, sizeof h);
    snprintf(rq.helper, sizeof rq.helper, "%s", h);
    rq.fresh = 1;
    EXPECT(wsgemm_self_check_run(&rq, &r) == WSGEMM_SELF_CHECK_UNKNOWN && !r.no_helper, "killed: no_helper %d",
           r.no_helper);
    /* without a disk cache every process warns */
    rq.cache_file[0] = '\0';
    rq.helper[0] = '\0';
    EXPECT(wsgemm_self_check_run(&rq, &r) == WSGEMM_SELF_CHECK_UNKNOWN && r.no_helper, "no cache: no_helper");
    EXPECT(wsgemm_self_check_warn_first(&rq, &r) == 1 && wsgemm_self_check_warn_first(&rq, &r) == 1,
           "without a disk cache the warning is kept back");
}

static void case_closed_hang(void)
{
    check_hang("closed_hang", "exec >/dev/null 2>&1\nsleep 30 &\necho $! > \"$0.pid\"\nwait", "closed_hang");
}

static void case_garbage(void)
{
    static const struct {
        const char *name, *body, *detail;
    } k[] = {
        {"garbage", "echo 'hello, world'\nexit 0", "hello, world"},
        {"silent", "exit 0", "(no output)"},
        {"pass_exit1", "echo 'wsgemm-self-check: pass'\nexit 1", "exited 1"},
        {"fail_exit0", "echo 'wsgemm-self-check: fail but exit 0'\nexit 0", "exited 0"},
        {"passing_word", "echo 'wsgemm-self-check: passed?'\nexit 0", "exited 0"},
        {"exit127", "exit 127", "exited 127"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
        check_script(k[i].name, k[i].body, WSGEMM_SELF_CHECK_UNKNOWN, 0, k[i].detail);
}

static void case_cannot(void)
{
    check_script("cannot", "echo 'wsgemm-self-check: error no device 3'\nexit 2", WSGEMM_SELF_CHECK_UNKNOWN, 0,
                 "could not check");
}

static void case_missing(void)
{
    wsgemm_self_check_request rq = request("", "key-missing", 20.0);
    remove_cache(&rq);
    const double t0 = now_s();
    expect_run(&rq, WSGEMM_SELF_CHECK_UNKNOWN, 0, 0, "no self-check helper: the test gave no helper", "no helper");
    char absent[512], plain[512];
    snprintf(absent, sizeof absent, "%s/not-there", work);
    rq = request(absent, "key-missing", 20.0);
    expect_run(&rq, WSGEMM_SELF_CHECK_UNKNOWN, 0, 0, "did not start", "a helper path that does not exist");
    write_script("not_executable", "exit 0", plain, sizeof plain);
    chmod(plain, 0644);
    rq = request(plain, "key-missing", 20.0);
    expect_run(&rq, WSGEMM_SELF_CHECK_UNKNOWN, 0, 0, "did not start", "a helper that is not executable");
    EXPECT(now_s() - t0 < 2.0, "a missing helper took %.2f s to report", now_s() - t0);
}

static void case_flood(void)
{
    char h[512];
    write_script("flood",
                 "i=0\nwhile [ $i -lt 2048 ]; do\n"
                 "  printf '%1023s\\n' x\n  i=$((i+1))\ndone\n"
                 "echo 'wsgemm-self-check: pass after 2 MB'\nexit 0",
                 h, sizeof h);
    wsgemm_self_check_request rq = request(h, "key-flood", 30.0);
    remove_cache(&rq);
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 1, "after 2 MB", "flood");
}

static void case_lost_status(void)
{
    char h[512];
    write_script("lost", "echo 'wsgemm-self-check: pass'\nexit 0", h, sizeof h);
    wsgemm_self_check_request rq = request(h, "key-lost", 5.0);
    remove_cache(&rq);
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGCHLD, &ignore, &old);
    const double t0 = now_s();
    expect_run(&rq, WSGEMM_SELF_CHECK_UNKNOWN, 0, 0, "exit status was lost", "lost_status");
    EXPECT(now_s() - t0 < 4.0, "lost_status took %.2f s", now_s() - t0);
    sigaction(SIGCHLD, &old, NULL);
}

static void case_cache(void)
{
    char h[512];
    write_script("counted", "echo \"$@\" >> \"$0.calls\"\necho 'wsgemm-self-check: pass counted'\nexit 0", h, sizeof h);
    wsgemm_self_check_request rq = request(h, "gpu=GPU-1 driver=1.2.3", 20.0);
    remove_cache(&rq);
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 1, NULL, "cache: first");
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 1, 0, NULL, "cache: hit");
    snprintf(rq.key, sizeof rq.key, "gpu=GPU-1 driver=1.2.4");
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 1, NULL, "cache: another driver (stale key)");
    EXPECT(calls(h, NULL, 0) == 2, "stale key: %d runs, want 2", calls(h, NULL, 0));

    static const char *const corrupt[] = {
        "",
        "garbage\n",
        "wsgemm-self-check-verdict 1\nkey gpu=GPU-1 driver=1.2.4\nverdict maybe\ndetail x\n",
        "wsgemm-self-check-verdict 1\nkey gpu=GPU-1 driver=1.2.4\nverdict pass\n",
        "wsgemm-self-check-verdict 1\nkey gpu=GPU-1 driver=1.2.4\nverdict pass\ndetail x\ntrailing\n",
        "wsgemm-self-check-verdict 2\nkey gpu=GPU-1 driver=1.2.4\nverdict pass\ndetail x\n",
    };
    for (size_t i = 0; i < sizeof corrupt / sizeof corrupt[0]; ++i) {
        FILE *f = fopen(rq.cache_file, "w");
        fputs(corrupt[i], f);
        fclose(f);
        const int before = calls(h, NULL, 0);
        char what[64];
        snprintf(what, sizeof what, "cache: corrupt file %zu", i);
        expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 1, NULL, what);
        EXPECT(calls(h, NULL, 0) == before + 1, "%s: the helper did not run again", what);
    }
    /* unreadable: a folder where the file should be; the verdict stands, nothing is cached */
    remove_cache(&rq);
    mkdir(rq.cache_file, 0700);
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 0, NULL, "cache: the file is a folder");
    rmdir(rq.cache_file);
    /* a cache folder that cannot be made (a file is in the way) */
    char blocker[512];
    snprintf(blocker, sizeof blocker, "%s/blocker", work);
    FILE *b = fopen(blocker, "w");
    fclose(b);
    snprintf(rq.cache_file, sizeof rq.cache_file, "%s/blocker/wsgemm/sm100-x.verdict", work);
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 0, NULL, "cache: the folder cannot be made");
    /* no disk cache at all */
    rq.cache_file[0] = '\0';
    expect_run(&rq, WSGEMM_SELF_CHECK_PASS, 0, 0, NULL, "cache: none");
    /* no temporary file left in the cache folder */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/cache/wsgemm", work);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        EXPECT(strstr(e->d_name, ".tmp") == NULL, "a temporary file was left behind: %s", e->d_name);
    if (d) closedir(d);
}

static void case_judge(void)
{
    static const struct {
        int started, exited, code, sig, timed_out;
        const char *line;
        wsgemm_self_check_verdict want;
    } k[] = {
        {1, 1, 0, 0, 0, "wsgemm-self-check: pass", WSGEMM_SELF_CHECK_PASS},
        {1, 1, 0, 0, 0, "wsgemm-self-check: pass 16 cases", WSGEMM_SELF_CHECK_PASS},
        {1, 1, 1, 0, 0, "wsgemm-self-check: fail x", WSGEMM_SELF_CHECK_FAIL},
        {1, 0, 0, 6, 0, "", WSGEMM_SELF_CHECK_FAIL},                        /* SIGABRT: a crash of its own */
        {1, 0, 0, 11, 0, "", WSGEMM_SELF_CHECK_FAIL},                       /* SIGSEGV */
        {1, 0, 0, 5, 0, "", WSGEMM_SELF_CHECK_FAIL},                        /* SIGTRAP */
        {1, 0, 0, 9, 0, "", WSGEMM_SELF_CHECK_UNKNOWN},                     /* SIGKILL: from outside (the OOM killer) */
        {1, 0, 0, 15, 0, "", WSGEMM_SELF_CHECK_UNKNOWN},                    /* SIGTERM */
        {1, 0, 0, 2, 0, "", WSGEMM_SELF_CHECK_UNKNOWN},                     /* SIGINT */
        {1, 0, 0, 0, 1, "wsgemm-self-check: pass", WSGEMM_SELF_CHECK_FAIL}, /* a pass line, then a hang */
        {1, 1, 2, 0, 0, "wsgemm-self-check: error x", WSGEMM_SELF_CHECK_UNKNOWN},
        {1, 1, 0, 0, 0, "", WSGEMM_SELF_CHECK_UNKNOWN},
        {1, 1, 0, 0, 0, "wsgemm-self-check: passing", WSGEMM_SELF_CHECK_UNKNOWN},
        {1, 1, 1, 0, 0, "wsgemm-self-check: pass", WSGEMM_SELF_CHECK_UNKNOWN},
        {1, 1, 0, 0, 0, "wsgemm-self-check: fail", WSGEMM_SELF_CHECK_UNKNOWN},
        {1, 1, 3, 0, 0, "wsgemm-self-check: fail", WSGEMM_SELF_CHECK_UNKNOWN},
        {1, 0, 0, 0, 0, "wsgemm-self-check: pass", WSGEMM_SELF_CHECK_UNKNOWN}, /* status lost */
        {0, 0, 0, 0, 0, "", WSGEMM_SELF_CHECK_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i) {
        wsgemm_self_check_run_outcome o;
        memset(&o, 0, sizeof o);
        o.started = k[i].started;
        o.exited = k[i].exited;
        o.exit_code = k[i].code;
        o.signal = k[i].sig;
        o.timed_out = k[i].timed_out;
        snprintf(o.result_line, sizeof o.result_line, "%s", k[i].line);
        char detail[1024];
        const wsgemm_self_check_verdict v = wsgemm_self_check_judge(&o, detail, sizeof detail);
        EXPECT(v == k[i].want, "judge row %zu (exit %d, signal %d, timeout %d, '%s'): %s, want %s (%s)", i, k[i].code,
               k[i].sig, k[i].timed_out, k[i].line, verdict_name(v), verdict_name(k[i].want), detail);
    }
}

static void case_lookup(void)
{
    char out[1024], note[512], lib[512], exe[1024], h[512];
    write_script("override", "exit 0", h, sizeof h);
    EXPECT(wsgemm_self_check_find_helper(h, NULL, out, sizeof out, note, sizeof note) == 1 && strcmp(out, h) == 0,
           "an executable override was not taken: %s", out);
    char absent[512];
    snprintf(absent, sizeof absent, "%s/absent-helper", work);
    EXPECT(wsgemm_self_check_find_helper(absent, NULL, out, sizeof out, note, sizeof note) == 0,
           "a missing override was found");
    EXPECT(strstr(note, "WSGEMM_SM100_SELF_CHECK_HELPER") && strstr(note, absent), "note: %s", note);

    /* an installed layout: <p>/lib/libwsgemm.so and <p>/lib/<libexec-from-libdir>/wsgemm-sm100-selfcheck */
    snprintf(lib, sizeof lib, "%s/prefix/lib", work);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s' && touch '%s/libwsgemm.so'", lib,
             wsgemm_self_check_libexec_from_libdir(), lib);
    EXPECT(system(cmd) == 0, "%s", cmd);
    snprintf(out, sizeof out, "%s/libwsgemm.so", lib);
    EXPECT(wsgemm_self_check_find_helper("", out, exe, sizeof exe, note, sizeof note) == 0,
           "a helper was found where none is installed: %s", exe);
    EXPECT(strstr(note, "is missing") != NULL && strstr(note, WSGEMM_SELF_CHECK_HELPER_NAME) != NULL, "note: %s", note);
    snprintf(cmd, sizeof cmd, "printf '#!/bin/sh\\n' > '%s/%s/%s' && chmod 755 '%s/%s/%s'", lib,
             wsgemm_self_check_libexec_from_libdir(), WSGEMM_SELF_CHECK_HELPER_NAME, lib,
             wsgemm_self_check_libexec_from_libdir(), WSGEMM_SELF_CHECK_HELPER_NAME);
    EXPECT(system(cmd) == 0, "%s", cmd);
    EXPECT(wsgemm_self_check_find_helper("", out, exe, sizeof exe, note, sizeof note) == 1 &&
               strstr(exe, "/prefix/lib/") && strstr(exe, WSGEMM_SELF_CHECK_HELPER_NAME),
           "the installed helper was not found: '%s' (%s)", exe, note);
    EXPECT(wsgemm_self_check_find_helper(NULL, NULL, exe, sizeof exe, note, sizeof note) == 0,
           "a helper was found without knowing the library's file");

    /* this program linked the static library: the code was loaded from this program's file */
    char loaded[1024], loaded_real[PATH_MAX] = "", self_real[PATH_MAX] = "";
    wsgemm_self_check_loaded_object(loaded, sizeof loaded);
    EXPECT(loaded[0] == '/' && realpath(loaded, loaded_real) && realpath("/proc/self/exe", self_real) &&
               strcmp(loaded_real, self_real) == 0,
           "the library's file is '%s', this program is '%s'", loaded, self_real);
}

/* ---------------------------------------------------------------- main */

static const struct {
    const char *name;
    void (*run)(void);
} kCases[] = {
    {"pass", case_pass},
    {"fail", case_fail},
    {"long_detail", case_long_detail},
    {"crash", case_crash},
    {"outside_signal", case_outside_signal},
    {"hang", case_hang},
    {"closed_hang", case_closed_hang},
    {"environment", case_environment},
    {"warn_once", case_warn_once},
    {"garbage", case_garbage},
    {"cannot", case_cannot},
    {"missing", case_missing},
    {"flood", case_flood},
    {"lost_status", case_lost_status},
    {"cache", case_cache},
    {"judge", case_judge},
    {"lookup", case_lookup},
};

int main(int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/wsgemm-self-check-test.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    const int fds_before = open_fds();
    int ran = 0;
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
        if (argc > 1 && strcmp(argv[1], kCases[i].name) != 0) continue;
        printf("self_check_test.%s\n", kCases[i].name);
        kCases[i].run();
        ++ran;
    }
    if (ran == 0) {
        fprintf(stderr, "self_check_test: no case named %s\n", argv[1]);
        return 2;
    }
    EXPECT(open_fds() == fds_before, "descriptors open: %d before, %d after", fds_before, open_fds());
    errno = 0;
    EXPECT(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, "a child process was left behind");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", work);
    printf("self_check_test: %s (%d failed checks)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
