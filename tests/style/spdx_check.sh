#!/usr/bin/env bash
# spdx_check.sh SOURCE_DIR - every source, script and build file names its license in an SPDX line
# (`SPDX-License-Identifier: MIT`, the license of LICENSE) within its first three lines, and LICENSE is the
# MIT text. Exit 0 pass, 1 fail, 77 skipped (not a git checkout: the file list comes from git).
set -u
src=$1
cd "$src" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "SKIPPED: $src is not a git checkout (the files to check are the tracked ones)"
    exit 77
fi
grep -q '^MIT License$' LICENSE 2>/dev/null || { echo "FAIL: LICENSE is missing or not the MIT license"; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cc' '*.cpp' '*.py' '*.sh' '*.cmake' '*.in' \
                                  '*CMakeLists.txt' '*.toml' '.ci/run')
echo "checking ${#files[@]} files"
missing=()
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || missing+=("$f")
done
if [ ${#missing[@]} -gt 0 ]; then
    printf '%s\n' "${missing[@]}" | head -40
    echo "FAIL: ${#missing[@]} files lack 'SPDX-License-Identifier: MIT' in their first three lines"
    exit 1
fi
echo "PASS: every file carries its SPDX line"
