#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""schedule_check.py - CPU test: every test of a build can run under ctest -j without harming the others.

    schedule_check.py <ctest> <build dir> <source dir> <gpu slots>

Reads `ctest --show-only=json-v1` of the build and fails, naming each test and rule it breaks, when
  - a test has no TMPDIR of its own under the build tree (nvcc, the compilers and Python write temporary files
    there; the shared /tmp is for nobody's tests), and says so apart for a test whose command runs nvcc; the
    one exception (OUTSIDE_BUILD_TMP) must have one outside the build tree and run no nvcc;
  - a test that may use the GPU (labels gpu, sanitize, tracked, mutation; the package consumers) neither runs
    alone (RUN_SERIAL) nor holds slots of the GPU (RESOURCE_GROUPS gpu:N);
  - a test that must have the GPU alone (it measures speed, or uses every GPU: timing_test, bench.smoke,
    reliability_test.multi_gpu_*) holds fewer than all of its slots and is not RUN_SERIAL;
  - a test that traps a kernel on purpose (the known ones, tests/CMakeLists.txt) is not RUN_SERIAL;
  - a known long test (the sm90 code checks, package.fetchcontent, package.example,
    reliability_test.sizes_k_major_huge_k, python.gpu, python.pip) has no COST, so ctest -j would not start
    it first;
and when the everyday test presets do not hand ctest tests/resources.json, or that file does not give the GPU
<gpu slots> slots. The rules are those of tests/CMakeLists.txt (scheduling under ctest -j).
"""
import json
import os
import re
import subprocess
import sys

GPU_LABELS = {"gpu", "sanitize", "tracked", "mutation"}
GPU_USERS = re.compile(r"^package\.(find_package|pkg_config|fetchcontent|example)")
GPU_ALONE = re.compile(r"^(timing_test|bench\.smoke|reliability_test\.multi_gpu_.*)$")
# the tests that trap a kernel on purpose (wsgemm_tests_trap_on_purpose), with their tracked twins
TMEM_TRAPS = ("misuse_dealloc_before_ld misuse_wrong_warp_ld misuse_alloc_after_relinquish misuse_double_dealloc "
              "misuse_bad_ncols misuse_desc_version misuse_idesc_m_bit23 misuse_warp_issue misuse_cg2_no_cluster "
              "misuse_cta_group_mix misuse_mma_after_dealloc misuse_pair_dealloc_before_peer_ld "
              "misuse_part_of_warp_ld hb_release_early hb_no_fence_after hb_mx_single_slot "
              "hb_mx_single_slot_cg2").split()
TRAPS = re.compile(r"^(tracked\.)?(sync_watchdog_negative\.fires|sync_teardown_emu\.early_dealloc_caught|"
                   r"example_tcgen05_gemm\.missing_fence_caught|test_sm100_emulated\.fault_.*|"
                   r"self_check_gpu_test\.planted_fault|test_tmem_emu\.(" + "|".join(TMEM_TRAPS) + "))$")
LONG = re.compile(r"^(sm90_code_check\.(?!sass$).*|package\.(fetchcontent|example)|"
                  r"reliability_test\.sizes_k_major_huge_k|python\.(gpu|pip))$")
MIN_COST = 10.0
# tests whose temporary folder must lie outside the build tree (tests/selfcheck/CMakeLists.txt says why); they
# run no nvcc
OUTSIDE_BUILD_TMP = {"self_check_test.lookup"}


def gpu_slots(groups):
    """The slots of type gpu a RESOURCE_GROUPS value (show-only json) asks for, summed over its groups."""
    total = 0
    for g in groups or []:
        for r in g.get("requirements", []):
            if r.get(".type") == "gpu":
                total += int(r.get("slots", 0)) * int(g.get("count", 1))
    return total


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    ctest, build, source, slots = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, check=True, capture_output=True, text=True)
    tests = json.loads(out.stdout)["tests"]
    problems = []

    presets = json.load(open(os.path.join(source, "CMakePresets.json")))
    everyday = [p for p in presets["testPresets"] if p["name"] == "everyday"]
    spec = everyday[0].get("execution", {}).get("resourceSpecFile", "") if everyday else ""
    if spec != "${sourceDir}/tests/resources.json":
        problems.append(f"the everyday test presets' resourceSpecFile is '{spec}', not tests/resources.json")
    resources = json.load(open(os.path.join(source, "tests", "resources.json")))
    gpus = resources["local"][0].get("gpu", [])
    if [g.get("slots") for g in gpus] != [slots]:
        problems.append(f"tests/resources.json gives the GPU {[g.get('slots') for g in gpus]} slots, not [{slots}]")

    nvcc_tests = gpu_tests = alone = traps = long_tests = 0
    for t in tests:
        name = t["name"]
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = set(props.get("LABELS", []))
        serial = props.get("RUN_SERIAL", False)
        held = gpu_slots(props.get("RESOURCE_GROUPS"))
        env = dict(e.split("=", 1) for e in props.get("ENVIRONMENT", []) if "=" in e)
        command = " ".join(t.get("command", []))
        runs_nvcc = "nvcc" in command
        nvcc_tests += runs_nvcc
        tmp = env.get("TMPDIR", "")
        if name in OUTSIDE_BUILD_TMP and not runs_nvcc:
            if not tmp or os.path.realpath(tmp).startswith(build + os.sep):
                problems.append(f"{name}: needs a TMPDIR outside the build tree, has '{tmp}'")
        elif tmp != os.path.join(build, "test-tmp", name):
            what = "runs nvcc but has" if runs_nvcc else "has"
            problems.append(f"{name}: {what} TMPDIR '{tmp}', not its own {os.path.join(build, 'test-tmp', name)}")
        if labels & GPU_LABELS or GPU_USERS.match(name):
            gpu_tests += 1
            if not serial and held < 1:
                problems.append(f"{name}: may use the GPU but holds no GPU slot (RESOURCE_GROUPS gpu:1) "
                                "and is not RUN_SERIAL")
        if GPU_ALONE.match(name):
            alone += 1
            if not serial and held < slots:
                problems.append(f"{name}: needs the GPU alone but holds {held} of its {slots} slots")
        if TRAPS.match(name):
            traps += 1
            if not serial:
                problems.append(f"{name}: traps a kernel on purpose but is not RUN_SERIAL")
        if LONG.match(name):
            long_tests += 1
            if float(props.get("COST", 0)) < MIN_COST:
                problems.append(f"{name}: a long test without a COST of at least {MIN_COST:g}")

    print(f"{len(tests)} tests: {nvcc_tests} run nvcc, {gpu_tests} may use the GPU, {alone} need it alone, "
          f"{traps} trap on purpose, {long_tests} are long")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("PASS: every test has its own TMPDIR, GPU slots or RUN_SERIAL as it needs, and the long ones a COST")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
