#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the Python module's tests (what ctest's python.* entries call; on a GPU machine
`ctest --preset h200-package` runs them with WSGEMM_REQUIRE_GPU=1).

    run.py cpu   the CPU tests (test_cpu.py) against the module in this source tree
    run.py gpu   the GPU tests (test_gpu.py: ctypes device arrays + NumPy; test_torch.py: PyTorch/CuPy
                 where installed) against the source tree; exit 77 without a GPU (or without NumPy)
    run.py pip   `pip install` of python/ into <work>/site (offline: the build backend needs nothing but
                 CMake), packaging the build tree WSGEMM_BUILD_DIR (no second build), then the CPU tests
                 (and the GPU ones where a GPU exists) against that installed copy and the library it
                 carries (WSGEMM_LIBRARY is dropped); exit 77 when pip is missing
    [--work DIR] scratch folder for `pip` (default: a temporary one)
The library comes from WSGEMM_LIBRARY (or the loader's path). With WSGEMM_REQUIRE_GPU=1 in the
environment, a missing GPU or NumPy is a failure (exit 1) instead of a skip; PyTorch and CuPy tests
still report skipped where those are not installed.
Plain unittest, so no test runner is needed; pytest also collects these files.
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
SKIP = 77
REQUIRE_GPU = os.environ.get("WSGEMM_REQUIRE_GPU") == "1"


def skip(why):
    print(("FAIL (WSGEMM_REQUIRE_GPU=1): " if REQUIRE_GPU else "SKIPPED: ") + why)
    return 1 if REQUIRE_GPU else SKIP


def run(module_names):
    loader = unittest.TestLoader()
    suite = unittest.TestSuite(loader.loadTestsFromName(name) for name in module_names)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    no_gpu = [test for test, reason in result.skipped if "no CUDA device" in reason]
    if REQUIRE_GPU and no_gpu:
        print(f"FAIL (WSGEMM_REQUIRE_GPU=1): {len(no_gpu)} tests skipped for want of a GPU")
        return 1
    return 0 if result.wasSuccessful() else 1


def gpu_modules():
    """The GPU test modules that can run here, or an exit status."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return skip("NumPy is not installed (the GPU tests' reference)")
    import device_array
    if device_array.gpu_count() == 0:
        return skip("no CUDA device")
    return ["test_gpu", "test_torch"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("suite", choices=["cpu", "gpu", "pip"])
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    sys.path.insert(0, HERE)

    if args.suite == "pip":
        work = args.work or tempfile.mkdtemp(prefix="wsgemm-python-")
        site = os.path.join(work, "site")
        if importlib.util.find_spec("pip") is None:
            print(f"SKIPPED: pip is not installed for {sys.executable}")
            return SKIP
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--upgrade",
               "--target", site, PACKAGE_ROOT]
        if os.environ.get("WSGEMM_BUILD_DIR"):
            cmd[4:4] = ["--config-settings", "build-dir=" + os.path.abspath(os.environ["WSGEMM_BUILD_DIR"])]
        print("+ " + " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        os.environ.pop("WSGEMM_LIBRARY", None)  # the installed copy's own library, nothing else
        sys.path.insert(0, site)
        import wsgemm
        if not os.path.abspath(wsgemm.__file__).startswith(os.path.abspath(site)):
            print(f"FAIL: imported {wsgemm.__file__}, not the installed copy in {site}")
            return 1
        wsgemm.version()
        if not os.path.realpath(wsgemm.library_path()).startswith(os.path.realpath(site)):
            print(f"FAIL: loaded {wsgemm.library_path()}, not the library the installed copy carries")
            return 1
        print(f"installed copy: {wsgemm.__file__}, library {wsgemm.library_path()}")
        modules = gpu_modules()
        return run(["test_cpu"] + (modules if isinstance(modules, list) else []))

    sys.path.insert(1, PACKAGE_ROOT)
    if args.suite == "cpu":
        return run(["test_cpu"])
    modules = gpu_modules()
    return run(modules) if isinstance(modules, list) else modules


if __name__ == "__main__":
    sys.exit(main())
