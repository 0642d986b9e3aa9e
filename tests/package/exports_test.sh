#!/bin/sh
# SPDX-License-Identifier: MIT
# exports_test.sh - CPU test: libwsgemm.so exports exactly the functions include/wsgemm.h declares.
#
#   exports_test.sh <C compiler> <include dir> <CUDA include dir> <libwsgemm.so> <work dir>
#
# The header's list comes from the compiler, not from the build's own parser (cmake/WsgemmExports.cmake):
# gcc -aux-info writes one prototype per function declared in the translation unit, with the file it
# was declared in. The library's list is `nm -D --defined-only`. Both directions are checked: a declared
# function missing from the library, and an exported symbol the header does not declare.
# Exit 0 pass, 1 fail, 77 skipped (a compiler without -aux-info).
set -u
cc=$1 inc=$2 cudainc=$3 lib=$4 work=$5
mkdir -p "$work"
printf '#include "wsgemm.h"\n' > "$work/decls.c"
if ! "$cc" -fsyntax-only -aux-info "$work/decls.txt" -I"$inc" -isystem "$cudainc" "$work/decls.c" 2> "$work/cc.log"; then
    cat "$work/cc.log"
    if grep -q "aux-info" "$work/cc.log"; then echo "SKIPPED: $cc has no -aux-info"; exit 77; fi
    echo "FAIL: include/wsgemm.h does not compile"; exit 1
fi
# "/* .../wsgemm.h:78:NC */ extern wsgemm_status wsgemm_create (wsgemm_handle *);" -> wsgemm_create
grep "/wsgemm.h:[0-9]*:.C \*/ extern " "$work/decls.txt" | sed -e 's/^.*\*\/ *//' -e 's/ (.*//' -e 's/.*[ *]//' |
    sort -u > "$work/declared.txt"
nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u > "$work/exported.txt"
ndecl=$(wc -l < "$work/declared.txt")
nexp=$(wc -l < "$work/exported.txt")
echo "include/wsgemm.h declares $ndecl functions; $(basename "$lib") exports $nexp symbols"
[ "$ndecl" -gt 0 ] || { echo "FAIL: no declarations read from the header"; exit 1; }
fail=0
for f in $(comm -23 "$work/declared.txt" "$work/exported.txt"); do echo "FAIL: declared but not exported: $f"; fail=1; done
for f in $(comm -13 "$work/declared.txt" "$work/exported.txt"); do echo "FAIL: exported but not in the header: $f"; fail=1; done
[ $fail -eq 0 ] && echo "PASS: the exports are the header's functions: $(tr '\n' ' ' < "$work/declared.txt")"
exit $fail
