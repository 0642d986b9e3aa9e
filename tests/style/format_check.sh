#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# format_check.sh SOURCE_DIR - the C, CUDA and C++ sources follow .clang-format, and no line is longer than the
# 120 columns it sets (clang-format leaves long comments as they are). Pinned to clang-format 14, the one
# Debian 12 ships: other versions lay some constructs out differently. Exit 0 pass, 1 fail, 77 skipped (no
# clang-format 14).
set -u
src=$1
fmt=""
for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null 2>&1 && "$c" --version | grep -qE 'version 14\.'; then fmt=$c; break; fi
done
if [ -z "$fmt" ]; then
    echo "SKIPPED: no clang-format 14 (found: $(clang-format --version 2>/dev/null || echo none)); apt install clang-format"
    exit 77
fi
cd "$src" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cc')
else
    mapfile -t files < <(find gemm sync tmem emu include tests bench examples python \
                              \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' \) | sort)
fi
echo "checking ${#files[@]} files with $($fmt --version)"
fail=0
if ! report=$("$fmt" --dry-run --Werror "${files[@]}" 2>&1); then
    printf '%s\n' "$report" | head -40
    echo "FAIL: run $fmt -i on the files above"
    fail=1
fi
long=$(awk 'length($0) > 120 { printf "%s:%d: %d columns\n", FILENAME, FNR, length($0) }' "${files[@]}")
if [ -n "$long" ]; then
    echo "$long" | head -20
    echo "FAIL: lines longer than 120 columns"
    fail=1
fi
[ $fail = 0 ] && echo "PASS: every file is formatted"
exit $fail
