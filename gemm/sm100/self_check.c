// SPDX-License-Identifier: MIT
/*
 * gemm/sm100/self_check.c - the out-of-process sm100 self-check: helper lookup, spawn with a timeout,
 * verdict, disk cache (self_check.h).
 */
#define _GNU_SOURCE /* dladdr, pipe2 */
#include "sm100/self_check.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/status.h"

extern char **environ;

/* Set by CMake: where the installed helper lies relative to the installed library's folder, the build
 * tree the library was built in (the whole tree of the top-level project) and the helper there. */
#ifndef WSGEMM_SELF_CHECK_LIBEXEC_FROM_LIBDIR
#define WSGEMM_SELF_CHECK_LIBEXEC_FROM_LIBDIR "../libexec/wsgemm"
#endif
#ifndef WSGEMM_SELF_CHECK_BUILD_TREE
#define WSGEMM_SELF_CHECK_BUILD_TREE ""
#endif
#ifndef WSGEMM_SELF_CHECK_BUILD_HELPER
#define WSGEMM_SELF_CHECK_BUILD_HELPER ""
#endif

static const char kCacheMagic[] = "wsgemm-self-check-verdict 1";

/* ---------------------------------------------------------------- spawn */

static double monotonic_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&t, NULL);
}

/* snprintf into a message buffer: a message cut at the buffer's end is fine (and no compiler warning about
 * it, which a direct snprintf with long inputs draws). */
static void text(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void text(char *dst, size_t size, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(dst, size, fmt, args);
    va_end(args);
}

static void copy_text(char *dst, size_t size, const char *src)
{
    text(dst, size, "%s", src);
}

/* The helper's output, split into lines as it arrives; only the lines the verdict needs are kept. */
typedef struct line_scan {
    char line[WSGEMM_SELF_CHECK_TEXT_BYTES];
    size_t len;
} line_scan;

static void scan_end_line(line_scan *s, wsgemm_self_check_run_outcome *out)
{
    while (s->len > 0 && (s->line[s->len - 1] == '\r' || s->line[s->len - 1] == ' ')) --s->len;
    s->line[s->len] = '\0';
    if (s->len > 0) {
        copy_text(out->last_line, sizeof out->last_line, s->line);
        if (strncmp(s->line, WSGEMM_SELF_CHECK_RESULT_PREFIX, strlen(WSGEMM_SELF_CHECK_RESULT_PREFIX)) == 0)
            copy_text(out->result_line, sizeof out->result_line, s->line);
        if (out->watchdog_line[0] == '\0' && strstr(s->line, "wsgemm watchdog:"))
            copy_text(out->watchdog_line, sizeof out->watchdog_line, s->line);
    }
    s->len = 0;
}

static void scan_bytes(line_scan *s, const char *bytes, size_t n, wsgemm_self_check_run_outcome *out)
{
    for (size_t i = 0; i < n; ++i) {
        if (bytes[i] == '\n')
            scan_end_line(s, out);
        else if (s->len + 1 < sizeof s->line)
            s->line[s->len++] = bytes[i]; /* a longer line is cut */
    }
}

/* Reap `pid` if it has ended: 1 reaped (status set), 0 still running, -1 lost (ECHILD: the process
 * ignores SIGCHLD, so the kernel reaped it and its exit status is gone). */
static int try_reap(pid_t pid, int *status)
{
    for (;;) {
        const pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) return 1;
        if (w == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

/* The emulation's verification switches (read per call by the emulated build): the one kind of WSGEMM_*
 * variable the helper gets, and only on the verification path. */
static const char *const kEmulationSwitches[] = {"WSGEMM_SM100_FAULT", "WSGEMM_SM100_EMU_DELAY_NS", "WSGEMM_TMEM_HB"};

int wsgemm_self_check_keeps_variable(const char *entry, const char *path_name)
{
    if (strncmp(entry, "WSGEMM_", 7) != 0) return 1;
    if (path_name == NULL || strcmp(path_name, "sm100-emulated") != 0) return 0;
    for (size_t i = 0; i < sizeof kEmulationSwitches / sizeof kEmulationSwitches[0]; ++i) {
        const size_t n = strlen(kEmulationSwitches[i]);
        if (strncmp(entry, kEmulationSwitches[i], n) == 0 && entry[n] == '=') return 1;
    }
    return 0;
}

char **wsgemm_self_check_environment(char *const env[], const char *path_name)
{
    size_t n = 0;
    while (env && env[n]) ++n;
    char **out = malloc((n + 1) * sizeof *out);
    if (out == NULL) return NULL;
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i)
        if (wsgemm_self_check_keeps_variable(env[i], path_name)) out[kept++] = env[i];
    out[kept] = NULL;
    return out;
}

void wsgemm_self_check_spawn(const char *helper, char *const argv[], double timeout_s,
                             wsgemm_self_check_run_outcome *out)
{
    wsgemm_self_check_spawn_env(helper, argv, environ, timeout_s, out);
}

void wsgemm_self_check_spawn_env(const char *helper, char *const argv[], char *const envp[], double timeout_s,
                                 wsgemm_self_check_run_outcome *out)
{
    memset(out, 0, sizeof *out);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        text(out->error, sizeof out->error, "pipe2: %s", strerror(errno));
        return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1); /* dup2 clears close-on-exec on 1 and 2 */
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);   /* not the caller's blocked signals */
    posix_spawnattr_setsigdefault(&attr, &all); /* nor its ignored ones */
    posix_spawnattr_setpgroup(&attr, 0);        /* a group of its own: the timeout kills all it started */
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid = -1;
    const double start = monotonic_s();
    const int rc = posix_spawn(&pid, helper, &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        text(out->error, sizeof out->error, "cannot start %s: %s", helper, strerror(rc));
        return;
    }
    out->started = 1;

    /* Read its output and watch for its end until the deadline; after it ended, read what it left in the
     * pipe for at most a second more (a process it started may still hold the pipe open). */
    const double deadline = start + timeout_s;
    double ended_at = 0.0;
    int status = 0, reaped = 0, eof = 0;
    line_scan scan = {.len = 0};
    char buf[4096];
    for (;;) {
        if (reaped == 0) {
            reaped = try_reap(pid, &status);
            if (reaped != 0) ended_at = monotonic_s();
        }
        if (eof && reaped != 0) break;
        const double now = monotonic_s();
        const double limit = reaped != 0 && reaped != -1 ? ended_at + 1.0 : deadline;
        if (now >= limit) break;
        if (eof) { /* the pipe is closed but the process still runs */
            sleep_s(0.01);
            continue;
        }
        const double slice = limit - now < 0.1 ? limit - now : 0.1; /* waitpid at least every 100 ms */
        struct pollfd p = {.fd = fds[0], .events = POLLIN, .revents = 0};
        const int ready = poll(&p, 1, (int)(slice * 1000.0) + 1);
        if (ready < 0 && errno != EINTR) eof = 1;
        if (ready <= 0) continue;
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0)
            scan_bytes(&scan, buf, (size_t)n, out);
        else if (n == 0 || (errno != EINTR && errno != EAGAIN))
            eof = 1;
    }
    close(fds[0]);
    if (scan.len > 0) scan_end_line(&scan, out);

    if (reaped == 0 || (reaped == -1 && !eof)) {
        /* Past the deadline: kill the group and reap. A process stuck inside a driver call (uninterruptible)
         * dies only when the call returns; it is waited for 5 s more, then left to end by itself. */
        out->timed_out = 1;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        const double give_up = monotonic_s() + 5.0;
        while ((reaped = try_reap(pid, &status)) == 0 && monotonic_s() < give_up) sleep_s(0.01);
    }
    out->seconds = monotonic_s() - start;
    if (reaped == 1 && !out->timed_out) {
        if (WIFEXITED(status)) {
            out->exited = 1;
            out->exit_code = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            out->signal = WTERMSIG(status);
        }
    } else if (reaped == -1 && !out->timed_out) {
        copy_text(out->error, sizeof out->error,
                  "its exit status was lost (this process ignores SIGCHLD, so the system reaped the helper)");
    }
}

/* ---------------------------------------------------------------- verdict */

int wsgemm_self_check_crash_signal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP;
}

static int result_says(const wsgemm_self_check_run_outcome *o, const char *word)
{
    const size_t p = strlen(WSGEMM_SELF_CHECK_RESULT_PREFIX), w = strlen(word);
    if (o->result_line[0] == '\0') return 0; /* else it starts with the prefix (scan_end_line) */
    return strncmp(o->result_line + p, word, w) == 0 && (o->result_line[p + w] == ' ' || o->result_line[p + w] == '\0');
}

/* The output line that says most: the result line, else the last line. */
static const char *telling_line(const wsgemm_self_check_run_outcome *o)
{
    if (o->result_line[0]) return o->result_line;
    return o->last_line[0] ? o->last_line : "(no output)";
}

wsgemm_self_check_verdict wsgemm_self_check_judge(const wsgemm_self_check_run_outcome *o, char *detail,
                                                  size_t detail_size)
{
    const char *wd_sep = o->watchdog_line[0] ? "; " : "";
    if (!o->started) {
        text(detail, detail_size, "the helper did not start: %s", o->error);
        return WSGEMM_SELF_CHECK_UNKNOWN;
    }
    if (o->timed_out) {
        text(detail, detail_size, "the helper was still running after %.0f s (a hang): killed; last output: %s%s%s",
             o->seconds, o->last_line[0] ? o->last_line : "(none)", wd_sep, o->watchdog_line);
        return WSGEMM_SELF_CHECK_FAIL;
    }
    if (o->signal && wsgemm_self_check_crash_signal(o->signal)) {
        text(detail, detail_size, "the helper crashed: signal %d (%s); last output: %s", o->signal,
             strsignal(o->signal), o->last_line[0] ? o->last_line : "(none)");
        return WSGEMM_SELF_CHECK_FAIL;
    }
    if (o->signal) {
        text(detail, detail_size,
             "the helper was killed from outside by signal %d (%s: a scheduler, a user or the OOM killer); last "
             "output: %s",
             o->signal, strsignal(o->signal), o->last_line[0] ? o->last_line : "(none)");
        return WSGEMM_SELF_CHECK_UNKNOWN;
    }
    if (!o->exited) {
        text(detail, detail_size, "the helper ended but %s", o->error);
        return WSGEMM_SELF_CHECK_UNKNOWN;
    }
    if (o->exit_code == WSGEMM_SELF_CHECK_EXIT_PASS && result_says(o, "pass")) {
        copy_text(detail, detail_size, o->result_line);
        return WSGEMM_SELF_CHECK_PASS;
    }
    if (o->exit_code == WSGEMM_SELF_CHECK_EXIT_FAIL && result_says(o, "fail")) {
        text(detail, detail_size, "%s%s%s", o->result_line, wd_sep, o->watchdog_line);
        return WSGEMM_SELF_CHECK_FAIL;
    }
    if (o->exit_code == WSGEMM_SELF_CHECK_EXIT_CANNOT) {
        text(detail, detail_size, "the helper could not check: %s", telling_line(o));
        return WSGEMM_SELF_CHECK_UNKNOWN;
    }
    text(detail, detail_size, "the helper exited %d without a matching result line: %s", o->exit_code, telling_line(o));
    return WSGEMM_SELF_CHECK_UNKNOWN;
}

/* ---------------------------------------------------------------- disk cache */

static void chomp(char *s)
{
    s[strcspn(s, "\r\n")] = '\0';
}

/* The verdict cache_file holds for `key`; UNKNOWN when it is absent, unreadable, malformed or for
 * another key, or when it records a suspect timeout (then *suspect = 1). */
static wsgemm_self_check_verdict cache_read(const char *cache_file, const char *key, char *detail, size_t size,
                                            int *suspect)
{
    *suspect = 0;
    FILE *f = fopen(cache_file, "re");
    if (f == NULL) return WSGEMM_SELF_CHECK_UNKNOWN;
    char lines[4][2 * WSGEMM_SELF_CHECK_TEXT_BYTES];
    int n = 0;
    while (n < 4 && fgets(lines[n], sizeof lines[n], f)) chomp(lines[n++]);
    const int extra = fgetc(f) != EOF;
    fclose(f);
    if (n != 4 || extra || strcmp(lines[0], kCacheMagic) != 0 || strncmp(lines[1], "key ", 4) != 0 ||
        strcmp(lines[1] + 4, key) != 0 || strncmp(lines[3], "detail ", 7) != 0)
        return WSGEMM_SELF_CHECK_UNKNOWN;
    wsgemm_self_check_verdict v = WSGEMM_SELF_CHECK_UNKNOWN;
    if (strcmp(lines[2], "verdict pass") == 0)
        v = WSGEMM_SELF_CHECK_PASS;
    else if (strcmp(lines[2], "verdict fail") == 0)
        v = WSGEMM_SELF_CHECK_FAIL;
    else if (strcmp(lines[2], "verdict suspect-timeout") == 0)
        *suspect = 1;
    if (v != WSGEMM_SELF_CHECK_UNKNOWN) copy_text(detail, size, lines[3] + 7);
    return v;
}

/* mkdir -p of the folder that holds `file`; new folders are private (0700, as XDG asks of the base). */
static int make_parent_dirs(const char *file)
{
    char dir[WSGEMM_SELF_CHECK_PATH_BYTES];
    copy_text(dir, sizeof dir, file);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) return 0;
    *slash = '\0';
    for (char *p = dir + 1;; ++p) {
        if (*p == '/' || *p == '\0') {
            const char c = *p;
            *p = '\0';
            if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
            *p = c;
            if (c == '\0') break;
        }
    }
    return 0;
}

/* Write the verdict ("pass", "fail" or "suspect-timeout"): a temporary file in the same folder renamed over
 * cache_file, so a reader sees the old file or the new one, never a part. 0 on success. */
static int cache_write(const char *cache_file, const char *key, const char *verdict, const char *detail)
{
    static atomic_uint serial;
    if (make_parent_dirs(cache_file) != 0) return -1;
    char tmp[WSGEMM_SELF_CHECK_PATH_BYTES + 64];
    text(tmp, sizeof tmp, "%s.tmp.%ld.%u", cache_file, (long)getpid(), atomic_fetch_add(&serial, 1));
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    char one_line[WSGEMM_SELF_CHECK_TEXT_BYTES]; /* cut: every line of the file fits cache_read's buffer */
    copy_text(one_line, sizeof one_line, detail);
    for (char *c = one_line; *c; ++c)
        if (*c == '\n' || *c == '\r') *c = ' ';
    fprintf(f, "%s\nkey %s\nverdict %s\ndetail %s\n", kCacheMagic, key, verdict, one_line);
    const int bad = ferror(f) | (fclose(f) != 0);
    if (bad || rename(tmp, cache_file) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* The marker of a warning about a missing helper: the verdict file's name with ".unavailable" for ".verdict". */
static int marker_path(const wsgemm_self_check_request *rq, char *out, size_t size)
{
    const size_t n = strlen(rq->cache_file), suffix = strlen(".verdict");
    if (n <= suffix || strcmp(rq->cache_file + n - suffix, ".verdict") != 0) return 0;
    text(out, size, "%.*s.unavailable", (int)(n - suffix), rq->cache_file);
    return 1;
}

int wsgemm_self_check_warn_first(const wsgemm_self_check_request *rq, const wsgemm_self_check_result *r)
{
    char marker[WSGEMM_SELF_CHECK_PATH_BYTES + 32];
    if (!r->no_helper || !marker_path(rq, marker, sizeof marker)) return 1;
    const char *where = rq->helper[0] ? rq->helper : rq->helper_note;
    char line[2 * WSGEMM_SELF_CHECK_TEXT_BYTES] = "";
    FILE *f = fopen(marker, "re");
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        fclose(f);
        chomp(line);
        if (strncmp(line, "helper ", 7) == 0 && strcmp(line + 7, where) == 0) return 0;
    }
    /* a private temporary file renamed over the marker, as the verdict is written */
    if (make_parent_dirs(marker) != 0) return 1;
    char tmp[sizeof marker + 64];
    text(tmp, sizeof tmp, "%s.tmp.%ld", marker, (long)getpid());
    f = fopen(tmp, "we");
    if (f == NULL) return 1;
    fprintf(f, "helper %s\n", where);
    if ((ferror(f) | (fclose(f) != 0)) || rename(tmp, marker) != 0) unlink(tmp);
    return 1;
}

wsgemm_self_check_verdict wsgemm_self_check_run(const wsgemm_self_check_request *rq, wsgemm_self_check_result *r)
{
    memset(r, 0, sizeof *r);
    int suspect = 0; /* the record for this key is a first timeout */
    if (rq->cache_file[0]) {
        char detail[sizeof r->detail];
        r->verdict = cache_read(rq->cache_file, rq->key, detail, sizeof detail, &suspect);
        if (rq->fresh) r->verdict = WSGEMM_SELF_CHECK_UNKNOWN;
        if (r->verdict != WSGEMM_SELF_CHECK_UNKNOWN) {
            r->from_cache = 1;
            text(r->detail, sizeof r->detail, "%s (cached in %s)", detail, rq->cache_file);
            return r->verdict;
        }
    }
    if (rq->helper[0] == '\0') {
        text(r->detail, sizeof r->detail, "no self-check helper: %s", rq->helper_note);
        r->no_helper = 1;
        return r->verdict = WSGEMM_SELF_CHECK_UNKNOWN;
    }
    char device[16];
    text(device, sizeof device, "%d", rq->device);
    char *argv[] = {(char *)rq->helper, "--device", device, "--path", (char *)rq->path_name, NULL, NULL, NULL};
    if (rq->uuid[0]) { /* the helper checks that its device `device` is this GPU */
        argv[5] = "--uuid";
        argv[6] = (char *)rq->uuid;
    }
    wsgemm_self_check_run_outcome o;
    char **env = wsgemm_self_check_environment(environ, rq->path_name);
    if (env == NULL) {
        text(r->detail, sizeof r->detail, "no memory for the helper's environment");
        return r->verdict = WSGEMM_SELF_CHECK_UNKNOWN;
    }
    wsgemm_self_check_spawn_env(rq->helper, argv, env, rq->timeout_s, &o);
    free(env);
    r->verdict = wsgemm_self_check_judge(&o, r->detail, sizeof r->detail);
    r->no_helper = !o.started || (o.exited && o.exit_code == WSGEMM_SELF_CHECK_EXIT_CANNOT);
    if (r->verdict == WSGEMM_SELF_CHECK_UNKNOWN || rq->cache_file[0] == '\0') return r->verdict;
    if (o.timed_out && !suspect) { /* a first timeout: this process's FAIL, a suspect for the next */
        r->suspect_timeout = cache_write(rq->cache_file, rq->key, "suspect-timeout", r->detail) == 0;
        return r->verdict;
    }
    r->cached =
        cache_write(rq->cache_file, rq->key, r->verdict == WSGEMM_SELF_CHECK_PASS ? "pass" : "fail", r->detail) == 0;
    char marker[WSGEMM_SELF_CHECK_PATH_BYTES + 32];
    if (r->cached && marker_path(rq, marker, sizeof marker)) unlink(marker); /* a helper ran: warn again if it goes */
    return r->verdict;
}

/* ---------------------------------------------------------------- helper lookup */

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int wsgemm_self_check_find_helper(const char *override_path, const char *loaded_object, char *out, size_t out_size,
                                  char *note, size_t note_size)
{
    if (override_path && override_path[0]) {
        if (is_executable_file(override_path)) {
            copy_text(out, out_size, override_path);
            return 1;
        }
        text(note, note_size, "WSGEMM_SM100_SELF_CHECK_HELPER=%s is not an executable file", override_path);
        return 0;
    }
    char real[PATH_MAX], installed[PATH_MAX + 64] = "(the library's own file is unknown)";
    if (loaded_object && realpath(loaded_object, real)) {
        char *slash = strrchr(real, '/');
        if (slash) *slash = '\0';
        text(installed, sizeof installed, "%s/%s/%s", real, WSGEMM_SELF_CHECK_LIBEXEC_FROM_LIBDIR,
             WSGEMM_SELF_CHECK_HELPER_NAME);
        if (is_executable_file(installed)) {
            copy_text(out, out_size, installed);
            return 1;
        }
        if (slash) *slash = '/';
        /* The build tree's helper serves only a library loaded from inside that tree: an installed copy never
         * runs a program from the folder it happened to be built in. */
        const size_t tree = strlen(WSGEMM_SELF_CHECK_BUILD_TREE);
        if (tree > 0 && strncmp(real, WSGEMM_SELF_CHECK_BUILD_TREE, tree) == 0 && real[tree] == '/' &&
            is_executable_file(WSGEMM_SELF_CHECK_BUILD_HELPER)) {
            copy_text(out, out_size, WSGEMM_SELF_CHECK_BUILD_HELPER);
            return 1;
        }
    }
    text(note, note_size, "%s is missing (install it with the library, or set WSGEMM_SM100_SELF_CHECK_HELPER)",
         installed);
    return 0;
}

const char *wsgemm_self_check_libexec_from_libdir(void)
{
    return WSGEMM_SELF_CHECK_LIBEXEC_FROM_LIBDIR;
}

/* ---------------------------------------------------------------- the request for a device */

/* The file this code was loaded from: the shared library, or the program that linked the static one, as an
 * absolute path. /proc/self/maps names the mapped file absolutely; dladdr may give a path relative to the
 * folder the process started in (a library found through a relative LD_LIBRARY_PATH entry) or, for the
 * main program, its argv[0]. */
void wsgemm_self_check_loaded_object(char *out, size_t size)
{
    const uintptr_t here = (uintptr_t)&wsgemm_self_check_request_for;
    out[0] = '\0';
    FILE *f = fopen("/proc/self/maps", "re");
    char line[PATH_MAX + 256];
    while (f && out[0] == '\0' && fgets(line, sizeof line, f)) {
        unsigned long lo = 0, hi = 0;
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &path_at) == 2 && path_at > 0 && lo <= here &&
            here < hi && line[path_at] == '/') {
            chomp(line + path_at);
            copy_text(out, size, line + path_at);
        }
    }
    if (f) fclose(f);
    Dl_info info;
    if (out[0] == '\0' && dladdr((void *)&wsgemm_self_check_request_for, &info) && info.dli_fname &&
        info.dli_fname[0] == '/')
        copy_text(out, size, info.dli_fname);
    if (out[0] == '\0') copy_text(out, size, "/proc/self/exe");
}

/* The kernel driver's version ("580.159.04") from /proc/driver/nvidia/version, or "" where there is none. */
static void kernel_driver_version(char *dst, size_t size)
{
    dst[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "re");
    if (f == NULL) return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
            const size_t digits = strspn(tok, "0123456789.");
            if (digits == strlen(tok) && tok[0] != '.' && strchr(tok, '.')) {
                copy_text(dst, size, tok);
                break;
            }
        }
    }
    fclose(f);
}

wsgemm_status wsgemm_self_check_request_for(int ordinal, wsgemm_path path, const wsgemm_knobs *knobs,
                                            wsgemm_self_check_request *rq, char *why, size_t why_size)
{
    memset(rq, 0, sizeof *rq);
    rq->device = ordinal;
    copy_text(rq->path_name, sizeof rq->path_name, wsgemm_path_name(path));
    rq->timeout_s = knobs->sm100_self_check_timeout_s;
    rq->fresh = knobs->sm100_self_check == WSGEMM_SELF_CHECK_FRESH;

    struct cudaDeviceProp prop;
    cudaError_t err = cudaGetDeviceProperties(&prop, ordinal);
    int cuda_driver = 0;
    if (err == cudaSuccess) err = cudaDriverGetVersion(&cuda_driver);
    if (err != cudaSuccess) {
        wsgemm_forget_cuda_error(err);
        text(why, why_size, "device %d: %s", ordinal, cudaGetErrorString(err));
        return WSGEMM_STATUS_CUDA_ERROR;
    }
    const char *uuid = rq->uuid;
    wsgemm_gpu_uuid_text(prop.uuid.bytes, rq->uuid, sizeof rq->uuid);
    char kernel_driver[64];
    kernel_driver_version(kernel_driver, sizeof kernel_driver);

    char loaded[PATH_MAX];
    wsgemm_self_check_loaded_object(loaded, sizeof loaded);
    wsgemm_self_check_find_helper(knobs->sm100_self_check_helper, loaded, rq->helper, sizeof rq->helper,
                                  rq->helper_note, sizeof rq->helper_note);
    /* The helper file is part of the key: a reinstalled or rebuilt library checks again. */
    struct stat st;
    long long helper_size = -1, helper_mtime = -1;
    if (rq->helper[0] && stat(rq->helper, &st) == 0) {
        helper_size = (long long)st.st_size;
        helper_mtime = (long long)st.st_mtime;
    }
    text(rq->key, sizeof rq->key, "gpu=%s driver=%s cuda-driver=%d wsgemm=%d.%d.%d path=%s helper=%lld:%lld", uuid,
         kernel_driver[0] ? kernel_driver : "unknown", cuda_driver, WSGEMM_VERSION_MAJOR, WSGEMM_VERSION_MINOR,
         WSGEMM_VERSION_PATCH, rq->path_name, helper_size, helper_mtime);
    if (knobs->cache_dir[0]) {
        const int n =
            snprintf(rq->cache_file, sizeof rq->cache_file, "%s/%s-%s.verdict", knobs->cache_dir, rq->path_name, uuid);
        if (n < 0 || (size_t)n >= sizeof rq->cache_file) rq->cache_file[0] = '\0'; /* no cut file names */
    }
    return WSGEMM_STATUS_SUCCESS;
}

wsgemm_self_check_verdict wsgemm_self_check_device(int ordinal, wsgemm_path path, const wsgemm_knobs *knobs,
                                                   wsgemm_self_check_request *rq, wsgemm_self_check_result *r)
{
    char why[WSGEMM_SELF_CHECK_TEXT_BYTES];
    if (wsgemm_self_check_request_for(ordinal, path, knobs, rq, why, sizeof why) != WSGEMM_STATUS_SUCCESS) {
        memset(r, 0, sizeof *r);
        text(r->detail, sizeof r->detail, "the device could not be asked for its UUID: %s", why);
        return r->verdict = WSGEMM_SELF_CHECK_UNKNOWN;
    }
    return wsgemm_self_check_run(rq, r);
}
