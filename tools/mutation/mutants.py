#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/mutation/mutants.py - the protocol mutants of the sm100 kernel and sync/, as anchored substitutions.

Each mutant is one protocol bug (a release point, a barrier count, a multicast mask, a missing fence, wait or
commit, the teardown order, a lane quarter, a descriptor field, the pair's peer signalling, the producer tail,
the cluster sync, an epilogue buffer reused or read against the async proxy) written as regular-expression substitutions on a COPY of the sources. The anchors are the
protocol calls themselves (the acc_empty arrive, the fences, the commits, the dealloc-barrier calls), not the
lines around them, so the mutants survive a rework of the code between them; an anchor that is gone makes
`apply` fail loudly (exit 3) instead of building an unmutated copy.

  mutants.py list                  one line per mutant: name, expectation, the tests to run (fastest first)
  mutants.py apply NAME SRC_DIR    apply mutant NAME to the copy of the sources in SRC_DIR (gemm/, sync/, tmem/, emu/)
  mutants.py check SRC_DIR         every mutant's anchors are present in SRC_DIR (nothing is written)

Used by the ctest label mutation: tests/checks/mutation_suite.sh (every mutant) and
tests/checks/mutant_acc_release_early.sh (acc_release_early, run again and again with the tracking on).
"""
import re
import sys

KERNEL = "gemm/sm100/sm100_kernel.cuh"

# name, expectation ("kill", or "equivalent: why"), tests (fastest killer first), [(file, pattern, replacement,
# expected matches)]; expected matches None = at least one. Replacements start with /*MUTANT*/ so a build log
# shows the mutated line. Accumulator reuse is tested with several_tiles_beta0 (both cta_groups, no C loads).
# The epilogue's C loads are exercised by epilogue and several_tiles (beta != 0), which tracked runs pass since
# mbarrier_wait's lanes meet at one site (docs/emulation.md, "Happens-before tracking: status").
MUTANTS = [
    # ---- release points
    ("acc_release_early", "kill", "several_tiles_beta0,ops_cg1",
     # the accumulator released right after the acc_full wait, before any tcgen05.ld of it (the bug an
     # independent review planted by hand): the next-but-one tile's MMAs may overwrite it while it is read
     [(KERNEL, r"mbarrier_arrive(_remote)?\(&s\.acc_empty\[([^\]]+)\](, 0)?\);", r"/*MUTANT*/ (void)0;", 2),
      (KERNEL, r"(mbarrier_wait\(&s\.acc_full\[([^\]]+)\][^;]*;)",
       r"\1 /*MUTANT*/ tcgen05_fence_before_thread_sync(); if (kCtaGroup == 1 || rank == 0) "
       r"mbarrier_arrive(&s.acc_empty[\2]); else mbarrier_arrive_remote(&s.acc_empty[\2], 0);", 1)]),
    # ---- missing waits
    ("mma_no_acc_empty_wait", "kill", "several_tiles_beta0,ops_cg1",
     [(KERNEL, r"mbarrier_wait\(&s\.acc_empty\[[^;]*;", r"/*MUTANT*/;", 1)]),
    ("missing_wait_ld", "kill", "ops_cg1",
     [(KERNEL, r"tmem_wait_ld(_regs<[^>]*>)?\(\w*\);", r"/*MUTANT*/;", 1)]),
    # ---- missing fences
    ("epilogue_no_fence_after", "kill", "ops_cg1",
     [(KERNEL, r"(mbarrier_wait\(&s\.acc_full\[[^;]*;\s*)tcgen05_fence_after_thread_sync\(\);", r"\1/*MUTANT*/;", 1)]),
    ("mma_no_fence_after_full", "kill", "ops_cg1",
     [(KERNEL, r"(consumer_wait\([^;]*\);(?:\s*__syncwarp\(\);(?:\s*/\*[^*]*\*/)?)?\s*)tcgen05_fence_after_thread_sync\(\);",
       r"\1/*MUTANT*/;", 1)]),
    ("release_no_fence_before", "kill", "several_tiles_beta0,ops_cg1",
     [(KERNEL, r"tcgen05_fence_before_thread_sync\(\);((?:(?!tcgen05_)[\s\S]){0,200}?mbarrier_arrive\(&s\.acc_empty)",
       r"/*MUTANT*/;\1", 1)]),
    ("mma_no_fence_after_acc_empty",
     "equivalent: the MMA warp's fence::after_thread_sync after the tile's first full[s] wait also orders its MMAs "
     "after the acc_empty wait before it (emu/hb.h: a later fence joins the whole execution clock)",
     "several_tiles_beta0,ops_cg1",
     [(KERNEL, r"(mbarrier_wait\(&s\.acc_empty\[[^;]*;(?:\s*__syncwarp\(\);(?:\s*/\*[^*]*\*/)?)?\s*)tcgen05_fence_after_thread_sync\(\);",
       r"\1/*MUTANT*/;", 1)]),
    # ---- missing commits
    ("acc_full_plain_arrive", "kill", "ops_cg1",
     # an ordinary arrive where tcgen05.commit belongs: it does not wait for (nor release) the MMAs
     [(KERNEL, r"umma_commit_warp<kCtaGroup>\(&s\.acc_full\[([^\]]+)\]\);",
       r"/*MUTANT*/ __syncwarp(); if (elect_one_sync()) mbarrier_arrive(&s.acc_full[\1]); __syncwarp();", 1)]),
    ("no_commit_empty", "kill", "ops_cg1",
     [(KERNEL, r"umma_commit(_multicast)?_warp<kCtaGroup>\(&s\.empty\[[^\]]+\](, 0x3)?\);", r"/*MUTANT*/;", 2)]),
    # ---- multicast masks
    ("acc_full_mask_leader_only", "kill", "ops_cg2",
     [(KERNEL, r"(umma_commit_multicast_warp<kCtaGroup>\(&s\.acc_full\[[^\]]+\], )0x3\)", r"\g<1>0x1 /*MUTANT*/)", 1)]),
    ("empty_mask_leader_only", "kill", "ops_cg2",
     [(KERNEL, r"(umma_commit_multicast_warp<kCtaGroup>\(&s\.empty\[[^\]]+\], )0x3\)", r"\g<1>0x1 /*MUTANT*/)", 1)]),
    # ---- barrier counts
    ("acc_empty_count_half", "kill", "several_tiles_beta0",
     [(KERNEL, r"(mbarrier_init\(&s\.acc_empty\[[^\]]+\], )([^;]+)\);", r"\1(\2) / 2u /*MUTANT*/);", 1)]),
    ("dealloc_count_own_cta", "kill", "ops_cg2",
     # cta_group 1 counts 128 either way: only the pair can kill it
     [(KERNEL, r"dealloc_barrier_init<kCtaGroup>\(&s\.dealloc\);",
       r"mbarrier_init(&s.dealloc, DEALLOC_BARRIER_EPILOGUE_THREADS) /*MUTANT*/;", 1)]),
    # ---- cta_group 2 peer signalling
    ("peer_signal_to_self", "kill", "ops_cg2",
     [("sync/dealloc_barrier.cuh", r"mbarrier_arrive_remote\(bar_smem, cluster_ctarank\(\) \^ 1u\);",
       r"mbarrier_arrive(bar_smem) /*MUTANT*/;", 1)]),
    ("peer_acc_empty_local", "kill", "several_tiles_beta0",
     [(KERNEL, r"mbarrier_arrive_remote\(&s\.acc_empty\[([^\]]+)\], 0\);", r"mbarrier_arrive(&s.acc_empty[\1]) /*MUTANT*/;", 1)]),
    # ---- teardown order
    ("dealloc_before_wait", "kill", "ops_cg1",
     [("tmem/dealloc_barrier_tmem.cuh", r"dealloc_barrier_wait<kCtaGroup>\(bar_smem, ticks\);", r"/*MUTANT*/;", 1)]),
    ("no_producer_tail", "kill", "ops_cg1",
     [(KERNEL, r"producer_tail\(&ring, st\);", r"/*MUTANT*/;", 1)]),
    # ---- cluster syncs
    ("no_cluster_sync_after_init", "kill", "ops_cg1",
     [(KERNEL, r"(fence_proxy_async_shared_cta\(\);[\s\S]*?)cluster_sync\(\);", r"\1/*MUTANT*/;", 1)]),
    ("no_cluster_sync_after_alloc", "kill", "ops_cg2",
     [(KERNEL, r"(tcgen05_fence_before_thread_sync\(\);\s*__syncwarp\(\);\s*)cluster_sync\(\);", r"\1/*MUTANT*/;", 1)]),
    # ---- lane quarters
    ("lane_quarter_shifted", "kill", "ops_cg1",
     [(KERNEL, r"tmem_ld_32x32b_x32\(", r"tmem_ld_32x32b_x32((32u << 16) ^ /*MUTANT*/", 1)]),
    # ---- the async proxy: the epilogue's chunk buffers in shared memory (TMA load of C, st.shared of D, TMA
    # store), killed by the happens-before tracking's async-proxy model (ASYNC_PROXY_RACE, PROXY_FENCE). The
    # emulated TMA copies complete long before any of these windows closes, so only that model sees them.
    ("c_refill_before_wait_read", "kill", "epilogue,several_tiles",
     # C's next chunk loaded into the buffer whose TMA store (chunk ch - 1) may still be reading it
     [(KERNEL, r"bulk_wait_group_read<1>\(\);", r"/*MUTANT*/;", 1)]),
    ("c_tile_refill_before_wait_read", "kill", "several_tiles",
     # a tile's first C chunks loaded while the previous tile's last stores may still read their buffers
     # (needs a CTA with several tiles: several_tiles, not epilogue's one tile per CTA)
     [(KERNEL, r"bulk_wait_group_read<0>\(\);", r"/*MUTANT*/;", 1)]),
    ("chunk_write_before_wait_read", "kill", "epilogue,several_tiles_beta0",
     # beta = 0: the output op's st.shared into a buffer whose last TMA store may still be reading it
     [(KERNEL, r"bulk_wait_group_read<CC::kBuffers - 1>\(\);", r"/*MUTANT*/;", 1)]),
    ("store_no_proxy_fence", "kill", "epilogue,several_tiles_beta0",
     # the chunk's st.shared not made visible to the async proxy before its TMA store reads it
     [(KERNEL, r"fence_proxy_async_shared_cta\(\);((?:(?!fence_proxy_async_shared_cta)[\s\S]){0,300}?tma_store_3d\()",
       r"/*MUTANT*/;\1", 1)]),
    ("c_read_before_load_wait", "kill", "epilogue,several_tiles",
     # C's old values read from the chunk before the wait on its TMA load's c_full barrier
     [(KERNEL, r"mbarrier_wait\(&s\.c_full\[[^;]*;", r"/*MUTANT*/;", 1)]),
    # ---- cluster launch control (the CLC kernel, sync/clc.cuh): killed on the emulated kernel by the
    # happens-before tracking of the response slots (emu/hb.h: ASYNC_PROXY_RACE, PROXY_FENCE) or a wrong result,
    # whatever the timing; sync_protocol_model's case clc catches each class in the model too
    ("clc_release_before_read", "kill", "clc_cg1,clc_cg2",
     # the slot released right after its full wait, before the response is loaded: try_cancel may overwrite it
     [(KERNEL, r"clc_release<kCtaGroup>\(clc\.slots, clc\.at, clc\.rank\);", r"/*MUTANT*/;", 1),
      ("sync/clc.cuh", r"(mbarrier_wait\(&c->full\[at\.stage\][^;]*;)", r"\1 /*MUTANT*/ clc_release<kCtaGroup>(c, at, rank);",
       1)]),
    ("clc_read_before_full", "kill", "clc_cg1,clc_cg2",
     [("sync/clc.cuh", r"mbarrier_wait\(&c->full\[at\.stage\][^;]*;", r"/*MUTANT*/;", 1)]),
    ("clc_torn_halves", "kill", "clc_cg1,clc_cg2",
     # the response read in two halves, the second (the first ctaid) after the release: across a reissue
     [(KERNEL, r"(clc_release<kCtaGroup>\(clc\.slots, clc\.at, clc\.rank\);)",
       r"\1 /*MUTANT*/ if (w.valid) w.first_ctaid_x = (uint32_t)clc_response_load(clc.slots, clc.at.stage).hi;", 1)]),
    ("clc_no_proxy_fence", "kill", "clc_cg1,clc_cg2",
     [("sync/clc.cuh", r"clc_fence_after_read\(at\.stage\);", r"/*MUTANT*/;", 1)]),
    ("clc_epilogue_stops_early", "kill", "clc_cg1,clc_cg2",
     # the epilogue takes the grid's last unit for "no more work" while the other roles compute it: that tile is
     # never stored (WRONG; tracked: its acc_full commit is never observed)
     [(KERNEL, r"(u = )(next_unit<kCtaGroup, kClc>\(p, clc, u, unit_step, true\))(\) \{\s*const Tile tile = tile_at<kBN>\(p, u, "
               r"rank\);\s*const int r0)",
       r"\1\2, u = u + 1 >= p.sched.units ? p.sched.units : u /*MUTANT*/\3", 1)]),
    ("clc_no_trailing_cluster_sync", "kill", "clc_cg2",
     # a CTA of the pair exits while its peer may still read, release or receive a response (cta_group 2 only)
     [(KERNEL, r"(/\* \(4\)[^*]*(?:\*(?!/)[^*]*)*\*/\s*__syncwarp\(\);\s*)cluster_sync\(\);", r"\1/*MUTANT*/;", 1)]),
    # ---- descriptor fields
    ("desc_version_bit", "kill", "ops_cg1",
     [("tmem/desc.h", r"desc \|= \(uint64_t\)SMEM_DESC_VERSION_SM100 << SMEM_DESC_VERSION_SHIFT;", r"/*MUTANT*/", 1)]),
    # ---- block-scaled MX k-block
    ("mx_single_slot", "kill", "mx",
     # every stage's factors copied into one TMEM slot: a copy may overwrite factors an earlier k-block's MMAs still
     # read (the PTX ISA orders no mma -> cp; tracked: RACE between the scale read and the copy)
     [(KERNEL, r"kSfSlotCols \* \(int\)stage", r"kSfSlotCols * 0 /*MUTANT*/", 1)]),
    ("mx_sf_ids_zero", "kill", "mx",
     # every instruction of a k-block reads sub-block 0's factors (WRONG wherever the four differ)
     [(KERNEL, r"umma_idesc_bs_set_sf_ids\(p\.idesc, \(uint32_t\)kk, \(uint32_t\)kk\)",
       r"umma_idesc_bs_set_sf_ids(p.idesc, 0u, 0u) /*MUTANT*/", 1)]),
    ("desc_k_step_missing", "kill", "ops_cg1",
     [(KERNEL, r"(\(umma_kind\)p\.kind, d_tmem, )umma_smem_desc_advance\(a_desc, [^)]*\)",
       r"\1umma_smem_desc_advance(a_desc, 0u /*MUTANT*/)", 1)]),
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
