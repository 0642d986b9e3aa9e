"""A PEP 517 build backend for this pure-Python package, with no dependencies: `pip install ./python`
needs nothing from the network (no setuptools or wheel to fetch). It writes a py3-none-any wheel of the
wsgemm/ folder with its METADATA, WHEEL and RECORD files (the wheel format, PEP 427)."""
import base64
import hashlib
import os
import re
import zipfile

NAME = "wsgemm"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = "Python binding (ctypes) of wsgemm, a warp-specialized GEMM library: matmul on any CUDA array"


def _version():
    with open(os.path.join(ROOT, NAME, "__init__.py")) as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.8\n")


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    path = os.path.join(metadata_directory, _dist_info())
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w") as f:
        f.write(_metadata())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_name = f"{NAME}-{_version()}-py3-none-any.whl"
    files = {}
    for name in sorted(os.listdir(os.path.join(ROOT, NAME))):
        if name.endswith(".py"):
            with open(os.path.join(ROOT, NAME, name), "rb") as f:
                files[f"{NAME}/{name}"] = f.read()
    info = _dist_info()
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: wsgemm_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, data in files.items():
            whl.writestr(path, data)
    return wheel_name
