#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The programmatic-dependent-launch rule of every wsgemm kernel, checked on PTX (gemm/common/pdl.cuh):

  1. no global memory access before griddepcontrol.wait on any path from the kernel's entry, and
  2. griddepcontrol.launch_dependents in the kernel.

Usage:
  pdl_order_check.py --self-test NVCC SRC_DIR
    the check against a mutant: the split-K reduction kernel (gemm/common/splitk_reduce.cuh) compiled to PTX
    as it is (must pass) and with its device alpha read moved above its griddepcontrol.wait, the class of bug
    a PDL kernel ships with (must fail). The mutation is an anchored substitution on a copy, as
    tools/mutation/mutants.py writes them; a missing anchor fails the self-test.
  pdl_order_check.py [--cuobjdump PATH] [--expect-fail] FILE...
    FILE: a PTX file, or with --cuobjdump a binary (object, static or shared library) whose embedded PTX is
    read with `cuobjdump -ptx`. PTX modules for a target below sm_90 are skipped (no griddepcontrol there;
    the launchers give their kernels the attribute only when the device runs sm_90+ code of them).
    --expect-fail: exit 0 only when some rule is broken (the mutant's side of the self-test).

How (a conservative data-flow analysis, not a linear scan): each kernel body becomes a list of statements
with their control-flow successors (bra with or without a guard, ret/exit/trap, brx.idx to every label;
inline-asm `{ }` scopes resolve their own labels). "Waited" holds at a statement when every path from the
entry to it passes a griddepcontrol.wait (meet: AND over predecessors, solved to a fixed point). A statement
breaks rule 1 when it is not waited and it
  - is ld/ldu/st/atom/red/prefetch without a .shared, .param, .local or .const state space (a generic
    address may be global memory, so it counts: conservative),
  - names the .global state space (ld.global.nc, cp.async.*.global, cp.async.bulk.* global, cp.reduce.*,
    discard.global, ...; address conversions cvta/isspacep excepted),
  - is a tensor copy or prefetch (cp.async.bulk.tensor, cp.async.bulk.prefetch*), a surface or texture
    access, or a multimem operation,
  - calls a .func of the module that (itself or through its callees) does any of these, or calls through a
    register.
prefetch.tensormap is allowed: the kernels prefetch the descriptors of their __grid_constant__ tensor maps
in their prologue, parameter space, not user data.
"""
import argparse
import re
import subprocess
import sys

LOCAL_SPACES = ("shared", "param", "local", "const")
MEMORY_BASES = ("ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu")
ALWAYS_GLOBAL_BASES = ("suld", "sust", "sured", "tex", "tld4", "txq", "multimem")
LABEL_RE = re.compile(r"^([A-Za-z_$][\w$]*)\s*:(?!:)")
CALL_RE = re.compile(r"^call(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([^\s,;()]+)")
FUNC_RE = re.compile(r"(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)\s*\(")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def opcode_of(stmt):
    """(guarded, opcode, rest) of a statement."""
    s = stmt.strip()
    guarded = False
    if s.startswith("@"):
        guarded = True
        s = s.split(None, 1)[1] if " " in s or "\t" in s else ""
    parts = s.split(None, 1)
    return guarded, (parts[0] if parts else ""), (parts[1] if len(parts) > 1 else "")


def touches_global(op):
    parts = op.split(".")
    base = parts[0]
    if base in ("cvta", "isspacep", "mov", "createpolicy"):
        return False
    quals = parts[1:]
    if "global" in quals:
        return True
    if base in ALWAYS_GLOBAL_BASES:
        return True
    if base in MEMORY_BASES:
        if any(q.split("::")[0] in LOCAL_SPACES for q in quals):
            return False
        if base == "prefetch" and "tensormap" in quals:
            return False
        return True  # generic address: may be global
    if base == "cp" and ("tensor" in quals or "prefetch" in quals):
        return True
    return False


TOKEN_RE = re.compile(r"[{};]|[^{};]+")


def parse_body(body):
    """Statements of a function body: list of (text, scope chain), and labels {(scope, name): index}. A brace
    at the start of a statement opens or closes a scope (inline asm blocks); one inside a statement is a vector
    operand."""
    stmts, labels = [], {}
    scope_stack, next_scope = [0], 1
    cur = []
    for m in TOKEN_RE.finditer(body):
        tok = m.group(0)
        if not cur:
            if tok == "{":
                scope_stack.append(next_scope)
                next_scope += 1
                continue
            if tok == "}":
                if len(scope_stack) > 1:
                    scope_stack.pop()
                continue
            if tok == ";":
                continue
            text = tok.lstrip()
            while True:
                lm = LABEL_RE.match(text)
                if not lm:
                    break
                labels[(scope_stack[-1], lm.group(1))] = len(stmts)
                text = text[lm.end():].lstrip()
            if text:
                cur.append(text)
            continue
        if tok == ";":
            text = "".join(cur).strip()
            if text and not text.startswith("."):
                stmts.append((text, tuple(scope_stack)))
            cur = []
        else:
            cur.append(tok)
    return stmts, labels


def resolve(labels, chain, name):
    for scope in reversed(chain):
        if (scope, name) in labels:
            return labels[(scope, name)]
    return None


def functions_of(ptx):
    """{name: (kind, body)} of the module's functions with bodies."""
    out = {}
    for m in FUNC_RE.finditer(ptx):
        kind, name = m.group(1), m.group(2)
        depth, j = 1, m.end()
        while j < len(ptx) and depth:  # the parameter list
            depth += {"(": 1, ")": -1}.get(ptx[j], 0)
            j += 1
        k = j
        while k < len(ptx) and ptx[k] not in "{;":
            k += 1
        if k >= len(ptx) or ptx[k] == ";":
            continue  # a declaration
        depth, e = 0, k
        while e < len(ptx):
            depth += {"{": 1, "}": -1}.get(ptx[e], 0)
            e += 1
            if depth == 0:
                break
        out[name] = (kind, ptx[k + 1:e - 1])
    return out


def analyse(name, body, global_funcs):
    """Violations (list of str) of rule 1 in one function body, and whether it has launch_dependents."""
    stmts, labels = parse_body(body)
    all_labels = sorted(set(labels.values()))
    succ = []
    for idx, (text, chain) in enumerate(stmts):
        guarded, op, rest = opcode_of(text)
        base = op.split(".")[0]
        nxt = [idx + 1] if idx + 1 < len(stmts) else []
        if base == "bra":
            t = resolve(labels, chain, rest.strip().rstrip(";").strip())
            tgt = [t] if t is not None else all_labels
            succ.append(tgt + (nxt if guarded else []))
        elif base == "brx":
            succ.append(all_labels + (nxt if guarded else []))
        elif base in ("ret", "exit", "trap"):
            succ.append(nxt if guarded else [])
        else:
            succ.append(nxt)
    waited_in = [True] * len(stmts)
    if stmts:
        waited_in[0] = False
    work = list(range(len(stmts)))
    while work:
        idx = work.pop()
        _, op, _ = opcode_of(stmts[idx][0])
        out = waited_in[idx] or op == "griddepcontrol.wait"
        for s in succ[idx]:
            if s < len(stmts) and waited_in[s] and not out:
                waited_in[s] = False
                work.append(s)
    problems = []
    for idx, (text, _) in enumerate(stmts):
        if waited_in[idx]:
            continue
        _, op, rest = opcode_of(text)
        bad = touches_global(op)
        if op.split(".")[0] == "call":
            m = CALL_RE.match(op + " " + rest)
            callee = m.group(1) if m else None
            bad = callee is None or callee.startswith("%") or callee in global_funcs
        if bad:
            problems.append(f"{name}: `{' '.join(text.split())[:120]}` can run before griddepcontrol.wait")
    has_trigger = any(opcode_of(t)[1] == "griddepcontrol.launch_dependents" for t, _ in stmts)
    return problems, has_trigger


def global_functions(funcs):
    """Names of the .func bodies that touch global memory, themselves or through a call."""
    direct, calls = {}, {}
    for name, (_, body) in funcs.items():
        stmts, _ = parse_body(body)
        direct[name] = False
        calls[name] = set()
        for text, _ in stmts:
            _, op, rest = opcode_of(text)
            if op.split(".")[0] == "call":
                m = CALL_RE.match(op + " " + rest)
                if not m or m.group(1).startswith("%"):
                    direct[name] = True
                else:
                    calls[name].add(m.group(1))
            elif touches_global(op):
                direct[name] = True
    touched = {n for n, d in direct.items() if d}
    changed = True
    while changed:
        changed = False
        for n, cs in calls.items():
            if n not in touched and (cs & touched or any(c not in funcs for c in cs)):
                touched.add(n)
                changed = True
    return touched


def check_module(ptx, where):
    """(kernels checked, problems) of one PTX module; None when its target is below sm_90."""
    ptx = strip_comments(ptx)
    m = re.search(r"^\s*\.target\s+sm_(\d+)", ptx, flags=re.M)
    if m and int(m.group(1)) < 90:
        return None
    funcs = functions_of(ptx)
    touched = global_functions({n: f for n, f in funcs.items() if f[0] == "func"})
    kernels, problems = 0, []
    for name, (kind, body) in funcs.items():
        if kind != "entry":
            continue
        kernels += 1
        p, has_trigger = analyse(name, body, touched)
        problems += [f"{where}: {x}" for x in p]
        if not has_trigger:
            problems.append(f"{where}: {name}: no griddepcontrol.launch_dependents")
    return kernels, problems


def modules_of(path, cuobjdump):
    if cuobjdump is None:
        with open(path) as f:
            return [f.read()]
    out = subprocess.run([cuobjdump, "-ptx", path], capture_output=True, text=True)
    if out.returncode != 0 and "does not contain" not in out.stderr:
        sys.exit(f"pdl_order_check: {cuobjdump} -ptx {path} failed: {out.stderr.strip()}")
    starts = [m.start() for m in re.finditer(r"^\.version", out.stdout, flags=re.M)]
    return [out.stdout[s:e] for s, e in zip(starts, starts[1:] + [len(out.stdout)])]


# The mutant of the self-test: the reduction's device alpha read moved above its wait.
MUTANT_FILE = "gemm/common/splitk_reduce.cuh"
MUTANT_ANCHOR = re.compile(r"(    wsgemm_pdl_wait\(\);[^\n]*\n    wsgemm_pdl_launch_dependents\(\);\n)"
                           r"(    if \(alpha_dev\) alpha = \*alpha_dev;\n)")
MUTANT_TU = """#include "common/splitk_reduce.cuh"
cudaError_t pdl_order_probe(const float *part, const wsgemm_problem *p, cudaStream_t s)
{
    return wsgemm_splitk_reduce_launch(part, 2, p, 1, s, 1);
}
"""


# Small modules of the analysis's own cases: (name, PTX body of one kernel, problems expected).
SYNTHETIC = [
    ("wait first", "griddepcontrol.wait; griddepcontrol.launch_dependents; ld.global.u32 %r1, [%rd1]; ret;", 0),
    ("read first", "ld.global.u32 %r1, [%rd1]; griddepcontrol.wait; griddepcontrol.launch_dependents; ret;", 1),
    ("generic store first", "st.u32 [%rd1], %r1; griddepcontrol.wait; griddepcontrol.launch_dependents; ret;", 1),
    ("shared and param first", "ld.param.u64 %rd1, [p]; st.shared.u32 [%r2], %r1; prefetch.tensormap [%rd1]; "
     "griddepcontrol.wait; griddepcontrol.launch_dependents; ret;", 0),
    ("wait skipped by a branch", "@%p1 bra $L__A; griddepcontrol.wait; $L__A: griddepcontrol.launch_dependents; "
     "ld.global.nc.u32 %r1, [%rd1]; ret;", 1),
    ("early exit before the wait", "@%p1 bra $L__A; griddepcontrol.wait; griddepcontrol.launch_dependents; "
     "atom.global.add.u32 %r1, [%rd1], 1; $L__A: ret;", 0),
    ("loop back above the wait", "$L__B: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
     "[%r1], [%rd1, {%r2, %r3}], [%r4]; griddepcontrol.wait; griddepcontrol.launch_dependents; @%p1 bra $L__B; ret;",
     1),
    ("inline asm scope", "{ .reg .pred P1; $L__W: mbarrier.try_wait.parity.shared::cta.b64 P1, [%r1], %r2; "
     "@!P1 bra $L__W; } griddepcontrol.wait; griddepcontrol.launch_dependents; red.global.add.u32 [%rd1], 1; ret;",
     0),
    ("no trigger", "griddepcontrol.wait; ld.global.u32 %r1, [%rd1]; ret;", 1),
    ("call of a global function first", "call.uni touch, (); griddepcontrol.wait; griddepcontrol.launch_dependents; "
     "ret;", 1),
]
SYNTHETIC_HEAD = ".version 8.8\n.target sm_90a\n.address_size 64\n.func touch()\n{\nst.global.u32 [%rd9], 0;\nret;\n}\n"


def self_test(nvcc, src):
    import os
    import tempfile
    for name, body, expected in SYNTHETIC:
        _, problems = check_module(SYNTHETIC_HEAD + ".visible .entry k()\n{\n" + body + "\n}\n", name)
        if len(problems) != expected:
            print(f"pdl_order_check: FAILED: case '{name}': {len(problems)} problems, expected {expected}: {problems}")
            return 1
    print(f"pdl_order_check: the {len(SYNTHETIC)} cases of the analysis pass")
    work = tempfile.mkdtemp(prefix="pdl_order_")
    with open(os.path.join(src, MUTANT_FILE)) as f:
        text = f.read()
    mutated, n = MUTANT_ANCHOR.subn(r"\2/*MUTANT*/\n\1", text)
    if n != 1:
        print(f"pdl_order_check: FAILED: the mutant's anchor matched {n} times in {MUTANT_FILE}, expected 1")
        return 1
    os.makedirs(os.path.join(work, "mutant", "common"))
    with open(os.path.join(work, "mutant", "common", "splitk_reduce.cuh"), "w") as f:
        f.write(mutated)
    tu = os.path.join(work, "probe.cu")
    with open(tu, "w") as f:
        f.write(MUTANT_TU)
    results = {}
    for variant, extra in (("original", []), ("mutant", ["-I", os.path.join(work, "mutant")])):
        ptx = os.path.join(work, variant + ".ptx")
        cmd = [nvcc, "-arch=sm_90a", "-ptx", "-O3", *extra, "-I", os.path.join(src, "gemm"), "-I",
               os.path.join(src, "include"), "-I", src, tu, "-o", ptx]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"pdl_order_check: FAILED: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
            return 1
        with open(ptx) as f:
            kernels, problems = check_module(f.read(), variant)
        results[variant] = problems
        print(f"pdl_order_check: {variant}: {kernels} kernels, {len(problems)} problems")
        for p in problems:
            print("  " + p)
    if results["original"]:
        print("pdl_order_check: FAILED: the unmutated reduction breaks the rule")
        return 1
    if not results["mutant"]:
        print("pdl_order_check: FAILED: the mutant (alpha read before the wait) was not caught")
        return 1
    print("pdl_order_check: the mutant is caught, the original passes")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cuobjdump")
    ap.add_argument("--expect-fail", action="store_true")
    ap.add_argument("--self-test", nargs=2, metavar=("NVCC", "SRC_DIR"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.self_test:
        return self_test(*a.self_test)
    if not a.files:
        ap.error("no FILE given")
    kernels, skipped, problems = 0, 0, []
    for path in a.files:
        for i, ptx in enumerate(modules_of(path, a.cuobjdump)):
            r = check_module(ptx, f"{path}[{i}]")
            if r is None:
                skipped += 1
                continue
            kernels += r[0]
            problems += r[1]
    for p in problems:
        print(p)
    print(f"pdl_order_check: {kernels} kernels checked, {len(problems)} problems, {skipped} modules below sm_90 "
          "skipped")
    if kernels == 0 and skipped > 0:
        print("SKIPPED: every PTX module is for a target below sm_90 (no griddepcontrol, the attribute is never "
              "set there)")
        return 77
    if kernels == 0:
        print("pdl_order_check: no kernel found: nothing was checked")
        return 1
    if a.expect_fail:
        if problems:
            print("pdl_order_check: the mutant breaks the rule, as expected")
            return 0
        print("pdl_order_check: FAILED: the mutant was expected to break the rule")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
