// SPDX-License-Identifier: MIT
/* cli.c - the tools' shared command-line helpers (cli.h). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

void cli_fail(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(%s --help lists the flags)\n", prog);
    exit(CLI_EXIT_USAGE);
}

const char *cli_value(const char *prog, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) cli_fail(prog, "%s needs a value", argv[*i]);
    return argv[++*i];
}

/* strtoll/strtoull/strtof accept leading blanks and stop at the first character they cannot use; a flag's
 * value must be the number and nothing else. */
static int starts_like_a_number(const char *text, int sign_allowed)
{
    const char c = text[0];
    if (c >= '0' && c <= '9') return 1;
    return sign_allowed && (c == '-' || c == '+') && text[1] >= '0' && text[1] <= '9';
}

int cli_int(const char *prog, const char *flag, const char *text, int min, int max)
{
    char *end = NULL;
    errno = 0;
    const long long v = starts_like_a_number(text, 1) ? strtoll(text, &end, 10) : 0;
    if (!end || *end || errno == ERANGE) cli_fail(prog, "%s: '%s' is not an integer", flag, text);
    if (v < min || v > max) cli_fail(prog, "%s: %s is out of range [%d, %d]", flag, text, min, max);
    return (int)v;
}

unsigned long long cli_u64(const char *prog, const char *flag, const char *text)
{
    char *end = NULL;
    errno = 0;
    const unsigned long long v = starts_like_a_number(text, 0) ? strtoull(text, &end, 10) : 0;
    if (!end || *end || errno == ERANGE) cli_fail(prog, "%s: '%s' is not an unsigned 64-bit integer", flag, text);
    return v;
}

float cli_float(const char *prog, const char *flag, const char *text)
{
    char *end = NULL;
    errno = 0;
    const int digits = starts_like_a_number(text, 1) || (text[0] == '.' && text[1] >= '0' && text[1] <= '9') ||
                       ((text[0] == '-' || text[0] == '+') && text[1] == '.');
    const float v = digits ? strtof(text, &end) : 0.0f;
    if (!end || *end || errno == ERANGE || !isfinite(v)) cli_fail(prog, "%s: '%s' is not a finite number", flag, text);
    return v;
}

int cli_no_gpu(const char *prog, const char *what)
{
    fprintf(stderr, "%s: no CUDA device on this machine; %s\n", prog, what);
    return 0;
}
