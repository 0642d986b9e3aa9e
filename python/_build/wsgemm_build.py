# SPDX-License-Identifier: MIT
"""The PEP 517 / PEP 660 build backend of the wsgemm Python package, with no dependencies: it drives the
project's CMake build itself (no setuptools, wheel or scikit-build-core to fetch), so `pip install ./python`
works offline.

build_wheel     configures and builds only libwsgemm.so and the sm100 self-check helper (targets wsgemm,
                wsgemm_shared, wsgemm_sm100_selfcheck_installed; tests, tools and benchmarks off), installs
                them with the project's own install rules (`cmake --install`) into a staging prefix, and
                writes a platform wheel (py3-none-linux_x86_64) whose wsgemm/ folder holds that prefix's
                lib/ and libexec/wsgemm/: the library finds its helper relative to itself, as installed
                (gemm/sm100/self_check.c), and the module finds the library next to itself (_binding.py).
build_sdist     the package plus the C/CUDA sources the build needs (under native/).
build_editable  the same native build, its files put into the source tree's wsgemm/ (ignored by git), and
                a wheel that holds a .pth file naming the source tree.

Settings, as pip's --config-settings (-C key=value) or the environment:
  cuda-archs / WSGEMM_CUDA_ARCHS   the CUDA architectures (CMake's WSGEMM_CUDA_ARCHS; default its own,
                                   80;90a;100a as the release build; "90a" for a Hopper-only library)
  build-dir  / WSGEMM_BUILD_DIR    package an existing, built CMake build tree instead of building (e.g.
                                   build/release; a relative path is taken from the repository root)
  build-type / WSGEMM_BUILD_TYPE   CMAKE_BUILD_TYPE of a build made here (default Release)
The build made here lives in <repository>/build/python (incremental across installs); CMAKE_GENERATOR,
CMAKE_BUILD_PARALLEL_LEVEL and the CMAKE_<LANG>_COMPILER_LAUNCHER variables (ccache) are CMake's own.
"""
import base64
import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

NAME = "wsgemm"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/ (or the unpacked sdist)
SUMMARY = "wsgemm, a warp-specialized GEMM library, for Python: matmul on CUDA arrays and torch.ops.wsgemm"
# What the CMake build of the library needs, relative to the project root (the sdist carries these in native/)
NATIVE = ("CMakeLists.txt", "LICENSE", "CHANGELOG.md", "cmake", "include", "gemm", "sync", "tmem", "emu")
# The package's Python files and what else the sdist carries from python/
PACKAGE_FILES = ("pyproject.toml", "_build", "wsgemm", "tests")
LIBRARY_GLOB = re.compile(r"^libwsgemm\.so(\.[0-9]+)*$")
HELPER = "wsgemm-sm100-selfcheck"


def _version():
    with open(os.path.join(ROOT, NAME, "__init__.py")) as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "License: MIT\nRequires-Python: >=3.8\nProvides-Extra: torch\nRequires-Dist: torch>=2.6; extra == \"torch\"\n")


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def _tag():
    """py3-none-<platform>: the Python code runs on any Python 3; the library is of this machine's platform."""
    return "py3-none-" + re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _setting(config_settings, key, env):
    value = (config_settings or {}).get(key)
    return value if value not in (None, "") else os.environ.get(env) or None


def _project_root():
    """The CMake project: native/ in an unpacked sdist, else the repository python/ lies in."""
    for root in (os.path.join(ROOT, "native"), os.path.dirname(ROOT)):
        if os.path.isfile(os.path.join(root, "CMakeLists.txt")) and os.path.isdir(os.path.join(root, "gemm")):
            return root
    raise RuntimeError(f"wsgemm: no CMake project beside {ROOT} (neither native/ nor ..); build from the "
                       "repository (pip install ./python) or from the sdist")


def _tool_environment():
    """The environment CMake runs in. pip's isolated build environment puts a folder of its own on PYTHONPATH
    that hides every other site-packages, and a CMake installed from PyPI is a Python script that imports its
    package from there: without PYTHONPATH it finds it again."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONNOUSERSITE", None)
    return env


def _run(cmd, quiet=False):
    print("wsgemm_build: " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL if quiet else sys.stderr, env=_tool_environment())


def _build_targets(build_dir):
    """Builds what the package carries (the install rules install them): the libraries and, with an sm100
    path, the helper; nothing when they are up to date."""
    targets = ["wsgemm", "wsgemm_shared"]
    if "100a" in _cache(build_dir).get("WSGEMM_CUDA_ARCHS", "").split(";"):
        targets.append("wsgemm_sm100_selfcheck_installed")
    _run(["cmake", "--build", build_dir, "--target", *targets])


def _cache(build_dir):
    """CMakeCache.txt of a build tree as {name: value}."""
    values = {}
    path = os.path.join(build_dir, "CMakeCache.txt")
    if not os.path.isfile(path):
        raise RuntimeError(f"wsgemm: {build_dir} is not a CMake build tree (no CMakeCache.txt)")
    with open(path) as f:
        for line in f:
            m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                values[m.group(1)] = m.group(2)
    return values


def _build_tree(config_settings):
    """A built CMake tree holding the library (and, with an sm100 path, the helper)."""
    given = _setting(config_settings, "build-dir", "WSGEMM_BUILD_DIR")
    project = _project_root()
    if given:
        path = given if os.path.isabs(given) else os.path.join(project, given)
        _cache(path)  # a build tree or an error
        _build_targets(path)
        return path
    build_dir = os.path.join(project, "build", "python")
    cmd = ["cmake", "-S", project, "-B", build_dir,
           "-DCMAKE_BUILD_TYPE=" + (_setting(config_settings, "build-type", "WSGEMM_BUILD_TYPE") or "Release"),
           "-DWSGEMM_BUILD_TESTS=OFF", "-DWSGEMM_BUILD_TOOLS=OFF", "-DWSGEMM_BUILD_BENCH=OFF",
           "-DWSGEMM_SM100_EMULATION=OFF", "-DWSGEMM_INSTALL=ON",
           "-DCMAKE_INSTALL_LIBDIR=lib", "-DCMAKE_INSTALL_LIBEXECDIR=libexec"]
    archs = _setting(config_settings, "cuda-archs", "WSGEMM_CUDA_ARCHS")
    if archs:
        cmd.append("-DWSGEMM_CUDA_ARCHS=" + archs.replace(",", ";"))
    if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")) and not os.environ.get("CMAKE_GENERATOR") \
            and shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    _run(cmd)
    _build_targets(build_dir)
    return build_dir


def _native_files(config_settings):
    """{path in the package: (bytes, executable)}: the installed library and helper, laid out as the install
    lays them out (lib/ and libexec/wsgemm/ of one prefix)."""
    build_dir = _build_tree(config_settings)
    cache = _cache(build_dir)
    libdir, libexecdir = cache.get("CMAKE_INSTALL_LIBDIR", "lib"), cache.get("CMAKE_INSTALL_LIBEXECDIR", "libexec")
    for name, value in (("CMAKE_INSTALL_LIBDIR", libdir), ("CMAKE_INSTALL_LIBEXECDIR", libexecdir)):
        if os.path.isabs(value) or "/" in value.strip("/"):
            raise RuntimeError(f"wsgemm: {build_dir} has {name}={value}; the package takes a one-folder relative "
                               f"one (configure with -D{name}={'lib' if 'LIBDIR' in name else 'libexec'})")
    files = {}
    with tempfile.TemporaryDirectory(prefix="wsgemm-stage-") as stage:
        _run(["cmake", "--install", build_dir, "--prefix", stage], quiet=True)
        lib_stage = os.path.join(stage, libdir)
        for name in sorted(os.listdir(lib_stage)):
            path = os.path.join(lib_stage, name)
            # the real file only (a wheel holds no links); the module finds it by the name's pattern
            if LIBRARY_GLOB.match(name) and not os.path.islink(path):
                with open(path, "rb") as f:
                    files[f"{NAME}/{libdir}/{name}"] = (f.read(), False)
        if not files:
            raise RuntimeError(f"wsgemm: `cmake --install {build_dir}` installed no libwsgemm.so into {lib_stage}")
        helper = os.path.join(stage, libexecdir, "wsgemm", HELPER)
        if os.path.isfile(helper):
            with open(helper, "rb") as f:
                files[f"{NAME}/{libexecdir}/wsgemm/{HELPER}"] = (f.read(), True)
        elif "100a" in cache.get("WSGEMM_CUDA_ARCHS", "").split(";"):
            raise RuntimeError(f"wsgemm: {build_dir} has an sm100 path but installed no {HELPER}")
    return files


def _python_files():
    files = {}
    for name in sorted(os.listdir(os.path.join(ROOT, NAME))):
        if name.endswith(".py"):
            with open(os.path.join(ROOT, NAME, name), "rb") as f:
                files[f"{NAME}/{name}"] = (f.read(), False)
    return files


def _write_wheel(wheel_directory, files):
    """A wheel (PEP 427) of files {path: (bytes, executable)} with its METADATA, WHEEL and RECORD."""
    info = _dist_info()
    files = dict(files)
    files[f"{info}/METADATA"] = (_metadata().encode(), False)
    with open(os.path.join(_project_root(), "LICENSE"), "rb") as f:
        files[f"{info}/LICENSE"] = (f.read(), False)
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: wsgemm_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n"
                              .encode(), False)
    record = []
    for path, (data, _) in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = (("\n".join(record) + "\n").encode(), False)
    wheel_name = f"{NAME}-{_version()}-{_tag()}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, (data, executable) in files.items():
            entry = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            entry.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(entry, data)
    return wheel_name


def _write_metadata(metadata_directory):
    path = os.path.join(metadata_directory, _dist_info())
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w") as f:
        f.write(_metadata())
    return _dist_info()


# ---------------------------------------------------------------- PEP 517

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, {**_python_files(), **_native_files(config_settings)})


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    project = _project_root()

    def skip(path):
        parts = path.split(os.sep)
        # no build output: the project's build/ folders, the native files an editable install put into wsgemm/
        return "__pycache__" in parts or path.endswith(".pyc") or "build" in parts[:2] or \
            (parts[0] == NAME and len(parts) > 1 and not path.endswith(".py"))

    entries = [(os.path.join(ROOT, p), p) for p in PACKAGE_FILES]
    entries += [(os.path.join(project, p), os.path.join("native", p)) for p in NATIVE]
    entries += [(os.path.join(project, p), p) for p in ("README.md", "LICENSE")]
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(source, arcname):
            if skip(arcname) or not os.path.exists(source):
                return
            if os.path.isdir(source) and not os.path.islink(source):
                for child in sorted(os.listdir(source)):
                    add(os.path.join(source, child), os.path.join(arcname, child))
                return
            tar.add(source, arcname=f"{base}/{arcname}", recursive=False)
        for source, arcname in entries:
            add(source, arcname)
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size, info.mode, info.mtime = len(pkg_info), 0o644, 0
        tar.addfile(info, io.BytesIO(pkg_info))
    return name


# ---------------------------------------------------------------- PEP 660

def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """The native files go into the source tree's wsgemm/ (where the module looks first), and the wheel holds
    a .pth file that puts the source tree on sys.path: edits to the Python files take effect at once; a
    change to the C/CUDA code takes another `pip install -e`."""
    package = os.path.join(ROOT, NAME)
    for sub in ("lib", "lib64", "libexec"):  # the last editable install's files
        shutil.rmtree(os.path.join(package, sub), ignore_errors=True)
    for path, (data, executable) in _native_files(config_settings).items():
        target = os.path.join(ROOT, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        os.chmod(target, 0o755 if executable else 0o644)
    return _write_wheel(wheel_directory, {f"{NAME}_editable.pth": ((ROOT + "\n").encode(), False)})
