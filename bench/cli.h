// SPDX-License-Identifier: MIT
/*
 * cli.h - what the command lines of the tools share (wsgemm-run, wsgemm-matmul-bench, wsgemm-bench,
 * wsgemm-call-overhead, sm90_tune; the conventions are in tools/README.md, "Command lines"):
 *   --help (or -h) prints the usage to stdout and exits 0;
 *   a malformed or out-of-range value, an unknown flag or a flag without its value prints one line naming
 *   the flag to stderr and exits 2 (CLI_EXIT_USAGE);
 *   no CUDA device: one line on stderr saying so, nothing run, exit 0 (cli_no_gpu).
 * Numbers are strict: the whole text is the number (no blanks, no trailing text, no "0x" for decimals), in
 * range, and floats finite.
 */
#ifndef WSGEMM_BENCH_CLI_H
#define WSGEMM_BENCH_CLI_H

enum { CLI_EXIT_USAGE = 2 };

/* 1 when argv[1..argc-1] holds --help or -h. */
int cli_wants_help(int argc, char **argv);
/* Prints "<prog>: <message>" and "(<prog> --help lists the flags)" to stderr, exits CLI_EXIT_USAGE. */
void cli_fail(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* The value of the flag argv[*i]: argv[*i + 1] (and *i moves to it), or cli_fail when there is none. */
const char *cli_value(const char *prog, int argc, char **argv, int *i);
/* text as a decimal integer in [min, max]; cli_fail naming flag otherwise. */
int cli_int(const char *prog, const char *flag, const char *text, int min, int max);
/* text as an unsigned decimal 64-bit integer; cli_fail naming flag otherwise. */
unsigned long long cli_u64(const char *prog, const char *flag, const char *text);
/* text as a finite float; cli_fail naming flag otherwise. */
float cli_float(const char *prog, const char *flag, const char *text);
/* "<prog>: no CUDA device on this machine; <what>" on stderr; returns 0, the exit status of a tool without a
 * GPU (ctest entries that must report skipped match that line with SKIP_REGULAR_EXPRESSION). */
int cli_no_gpu(const char *prog, const char *what);

#endif
