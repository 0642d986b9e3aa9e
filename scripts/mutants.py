#!/usr/bin/env python3
"""scripts/mutants.py - the protocol mutants of the sm100 kernel and sync/, as anchored substitutions.

Each mutant is one protocol bug (a release point, a barrier count, a multicast mask, a missing fence, wait or
commit, the teardown order, a lane quarter, a descriptor field, the pair's peer signalling, the producer tail,
the cluster sync) written as regular-expression substitutions on a COPY of the sources. The anchors are the
protocol calls themselves (the acc_empty arrive, the fences, the commits, the dealloc-barrier calls), not the
lines around them, so the mutants survive a rework of the code between them; an anchor that is gone makes
`apply` fail loudly (exit 3) instead of building an unmutated copy.

  mutants.py list                  one line per mutant: name, expectation, the tests to run (fastest first)
  mutants.py apply NAME SRC_DIR    apply mutant NAME to the copy of the sources in SRC_DIR (gemm/, sync/, tmem/)
  mutants.py check SRC_DIR         every mutant's anchors are present in SRC_DIR (nothing is written)

Used by scripts/mutation_suite.sh (every mutant) and scripts/hb_check.sh (acc_release_early).
"""
import re
import sys

KERNEL = "gemm/sm100/sm100_gemm.cu"

# name, expectation ("kill", or "equivalent: why"), tests (fastest killer first), [(file, pattern, replacement,
# expected matches)]; expected matches None = at least one. Replacements start with /*MUTANT*/ so a build log
# shows the mutated line.
MUTANTS = [
    ("acc_release_early", "kill", "several_tiles",
     # the accumulator released right after the acc_full wait, before any tcgen05.ld of it (the bug an
     # independent review planted by hand): the next-but-one tile's MMAs may overwrite it while it is read
     [(KERNEL, r"mbarrier_arrive(_remote)?\(&s\.acc_empty\[([^\]]+)\](, 0)?\);",
       r"/*MUTANT*/ (void)0;", 2),
      (KERNEL, r"(mbarrier_wait\(&s\.acc_full\[([^\]]+)\][^;]*;)",
       r"\1 /*MUTANT*/ tcgen05_fence_before_thread_sync(); if (kCtaGroup == 1 || rank == 0) "
       r"mbarrier_arrive(&s.acc_empty[\2]); else mbarrier_arrive_remote(&s.acc_empty[\2], 0);", 1)]),
]


def find(name):
    for m in MUTANTS:
        if m[0] == name:
            return m
    sys.exit(f"mutants.py: no mutant named {name}")


def apply(mutant, src, write):
    """Apply the substitutions in order; returns the list of problems (empty when every anchor matched)."""
    problems = []
    texts = {}
    for path, pattern, repl, expected in mutant[3]:
        full = f"{src}/{path}"
        if full not in texts:
            try:
                with open(full) as f:
                    texts[full] = f.read()
            except OSError as e:
                problems.append(f"{path}: {e}")
                continue
        new, n = re.subn(pattern, repl, texts[full])
        if n == 0 or (expected is not None and n != expected):
            problems.append(f"{path}: anchor /{pattern}/ matched {n} times, expected "
                            f"{'at least 1' if expected is None else expected}")
        texts[full] = new
    if write and not problems:
        for full, text in texts.items():
            with open(full, "w") as f:
                f.write(text)
    return problems


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        for name, expect, tests, _ in MUTANTS:
            print(f"{name}\t{expect}\t{tests}")
        return 0
    if len(argv) == 4 and argv[1] == "apply":
        problems = apply(find(argv[2]), argv[3], True)
        for p in problems:
            print(f"mutant {argv[2]}: ANCHOR MISSING: {p}", file=sys.stderr)
        return 3 if problems else 0
    if len(argv) == 3 and argv[1] == "check":
        bad = 0
        for m in MUTANTS:
            problems = apply(m, argv[2], False)
            for p in problems:
                print(f"mutant {m[0]}: ANCHOR MISSING: {p}")
            bad += bool(problems)
        print(f"{len(MUTANTS)} mutants, {bad} with a missing anchor")
        return 3 if bad else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
