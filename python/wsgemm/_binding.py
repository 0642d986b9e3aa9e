# SPDX-License-Identifier: MIT
"""ctypes binding of libwsgemm.so (the C API of include/wsgemm.h) and of the CUDA runtime it uses.

Where the library comes from, first match wins:
  1. the environment variable WSGEMM_LIBRARY (the path of libwsgemm.so; nothing else is tried then),
  2. the libwsgemm.so* bundled in this package (lib/ or lib64/ next to this file: what the wheel carries, laid
     out as `cmake --install` lays it out, so the library finds its sm100 self-check helper in libexec/wsgemm/),
     or one right next to this file,
  3. the loader's search path (LD_LIBRARY_PATH, ldconfig), e.g. after `cmake --install` to /usr/local.
Nothing is loaded until the first call that needs the library.
"""
from __future__ import annotations

import ctypes
import glob
import os
import re
import threading

_c_int_p = ctypes.POINTER(ctypes.c_int)
_c_float_p = ctypes.POINTER(ctypes.c_float)

# C enums of wsgemm.h (values equal cuBLAS's / CUDA's)
OP_N, OP_T = 0, 1
# wsgemm_launch_mode (include/wsgemm.h)
LAUNCH_MODES = {"default": 0, "pdl": 1}
# wsgemm_batch_invariance (include/wsgemm.h)
BATCH_INVARIANCE = {"off": 0, "on": 1, "on_n": 2}

# wsgemm_matmul_scale_mode (include/wsgemm.h; cuBLASLt's CUBLASLT_MATMUL_MATRIX_SCALE_* values)
SCALE_SCALAR_32F, SCALE_VEC32_UE8M0, SCALE_OUTER_VEC_32F, SCALE_VEC128_32F, SCALE_BLK128x128_32F = 0, 2, 3, 4, 5
DTYPES = {"float32": 0, "float16": 2, "bfloat16": 14, "float8_e4m3fn": 28, "float8_e5m2": 29}
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1, "float8_e5m2": 1, "uint8": 1,
            "float8_e8m0fnu": 1}  # the last two: MX scale exponents only
# wsgemm_matmul_epilogue (cublasLtEpilogue_t's values)
EPILOGUES = {None: 1, "relu": 2, "bias": 4, "relu_bias": 6, "gelu": 32, "gelu_bias": 36, "gelu_aux": 160,
             "gelu_aux_bias": 164}
PATHS = {"auto": 0, "generic": 1, "sm90": 2, "sm100": 3, "sm100-emulated": 4}
STATUS_SUCCESS = 0
STATUS_CUDA_ERROR = 7

_lock = threading.Lock()
_lib = None
_cudart = None


def _candidates():
    env = os.environ.get("WSGEMM_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    # libwsgemm.so.0.2: the SONAME of the 0.2 ABI this module declares
    return bundled_libraries(here) + ["libwsgemm.so.0.2", "libwsgemm.so"]


def bundled_libraries(package_dir):
    """The libwsgemm.so* files of the package folder, lib/ and lib64/ first; the file name's version part may be
    anything (libwsgemm.so, .so.0, .so.0.1.0), the longest name first: the real file rather than a link to it."""
    found = []
    for folder in (os.path.join(package_dir, "lib"), os.path.join(package_dir, "lib64"), package_dir):
        names = glob.glob(os.path.join(glob.escape(folder), "libwsgemm.so*"))
        found += sorted((n for n in names if re.fullmatch(r"libwsgemm\.so(\.[0-9]+)*", os.path.basename(n))),
                        key=lambda n: (-len(n), n))
    return found


def _declare(lib):
    handle = ctypes.c_void_p
    sig = {
        "wsgemm_create": (ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p)]),
        "wsgemm_destroy": (ctypes.c_int, [handle]),
        "wsgemm_set_stream": (ctypes.c_int, [handle, ctypes.c_void_p]),
        "wsgemm_set_path": (ctypes.c_int, [handle, ctypes.c_int]),
        "wsgemm_get_last_path": (ctypes.c_int, [handle, _c_int_p]),
        "wsgemm_set_launch_mode": (ctypes.c_int, [handle, ctypes.c_int]),
        "wsgemm_get_launch_mode": (ctypes.c_int, [handle, _c_int_p]),
        "wsgemm_set_batch_invariance": (ctypes.c_int, [handle, ctypes.c_int]),
        "wsgemm_get_batch_invariance": (ctypes.c_int, [handle, _c_int_p]),
        "wsgemm_gemm_ex": (ctypes.c_int, [handle, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                          _c_float_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                          ctypes.c_int, ctypes.c_int, _c_float_p, ctypes.c_void_p, ctypes.c_int,
                                          ctypes.c_int]),
        "wsgemm_gemm_strided_batched_ex": (ctypes.c_int, [
            handle, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, _c_float_p,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong, _c_float_p,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_int]),
        "wsgemm_matmul": (ctypes.c_int, [handle, ctypes.POINTER(MatmulDesc), ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                         _c_float_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                                         _c_float_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]),
        "wsgemm_status_string": (ctypes.c_char_p, [ctypes.c_int]),
        "wsgemm_path_name": (ctypes.c_char_p, [ctypes.c_int]),
        "wsgemm_get_last_error_message": (ctypes.c_char_p, [handle]),
        "wsgemm_get_version": (ctypes.c_int, [_c_int_p, _c_int_p, _c_int_p]),
        "wsgemm_gemm_grouped_ex": (ctypes.c_int, [
            handle, ctypes.POINTER(GroupedDesc), ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
            _c_float_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong, _c_float_p,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def library():
    """The loaded libwsgemm.so (a ctypes.CDLL), loading it on first use."""
    global _lib
    with _lock:
        if _lib is None:
            errors = []
            for path in _candidates():
                try:
                    lib = ctypes.CDLL(path)
                except OSError as e:
                    errors.append(f"{path}: {e}")
                    continue
                _declare(lib)
                _lib = lib
                break
            else:
                raise OSError("wsgemm: cannot load libwsgemm.so; set WSGEMM_LIBRARY to its path (e.g. "
                              "<install prefix>/lib/libwsgemm.so) or put its folder on LD_LIBRARY_PATH. Tried: "
                              + "; ".join(errors))
    return _lib


def library_path():
    """The file the library was loaded from (None before it is loaded or where /proc is missing)."""
    return _mapped_path("libwsgemm.so") if _lib is not None else None


def _mapped_path(fragment):
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if fragment in os.path.basename(path):
                    return path
    except OSError:
        pass
    return None


def cudart():
    """The CUDA runtime libwsgemm.so itself uses (found among the mapped files once the library is
    loaded), for stream synchronisation; also used by the tests' device arrays."""
    global _cudart
    library()
    with _lock:
        if _cudart is None:
            names = [_mapped_path("libcudart.so"), "libcudart.so", "libcudart.so.13", "libcudart.so.12"]
            for name in names:
                if not name:
                    continue
                try:
                    _cudart = ctypes.CDLL(name)
                    break
                except OSError:
                    continue
            else:
                raise OSError("wsgemm: cannot load the CUDA runtime (libcudart.so)")
            _cudart.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
            _cudart.cudaStreamSynchronize.restype = ctypes.c_int
            _cudart.cudaGetErrorString.argtypes = [ctypes.c_int]
            _cudart.cudaGetErrorString.restype = ctypes.c_char_p
    return _cudart


class MatmulDesc(ctypes.Structure):
    """wsgemm_matmul_desc (include/wsgemm.h), field for field; `size` is set to the struct's own size, as
    wsgemm_matmul_desc_init sets it (the library reads that many bytes of it)."""
    _fields_ = [("size", ctypes.c_size_t), ("transa", ctypes.c_int), ("transb", ctypes.c_int), ("Atype", ctypes.c_int), ("Btype", ctypes.c_int),
                ("Ctype", ctypes.c_int), ("Dtype", ctypes.c_int), ("epilogue", ctypes.c_int), ("bias", ctypes.c_void_p),
                ("bias_type", ctypes.c_int), ("aux", ctypes.c_void_p), ("aux_type", ctypes.c_int), ("ldaux", ctypes.c_int),
                ("a_scale", ctypes.c_void_p), ("b_scale", ctypes.c_void_p), ("c_scale", ctypes.c_void_p),
                ("d_scale", ctypes.c_void_p), ("amax_d", ctypes.c_void_p),
                ("a_scale_mode", ctypes.c_int), ("b_scale_mode", ctypes.c_int), ("launch_mode", ctypes.c_int),
                ("batch_invariance", ctypes.c_int)]

    def __init__(self, **fields):
        fields.setdefault("size", ctypes.sizeof(MatmulDesc))
        super().__init__(**fields)


# wsgemm_grouped_layout and wsgemm_grouped_dim (include/wsgemm.h)
GROUPED_CONTIGUOUS, GROUPED_MASKED = 0, 1
GROUPED_DIM_M, GROUPED_DIM_N = 0, 1


class GroupedDesc(ctypes.Structure):
    """wsgemm_grouped_desc (include/wsgemm.h), field for field; `size` set as wsgemm_grouped_desc_init sets it."""
    _fields_ = [("size", ctypes.c_size_t), ("layout", ctypes.c_int), ("dim", ctypes.c_int),
                ("group_count", ctypes.c_int), ("sizes", ctypes.c_void_p), ("status", ctypes.c_void_p),
                ("launch_mode", ctypes.c_int)]

    def __init__(self, **fields):
        fields.setdefault("size", ctypes.sizeof(GroupedDesc))
        super().__init__(**fields)


class Error(RuntimeError):
    """A wsgemm call returned a status other than SUCCESS. `status` is the wsgemm_status value,
    `status_name` its name (e.g. WSGEMM_STATUS_INVALID_VALUE); the message is the library's."""

    def __init__(self, status, status_name, message):
        super().__init__(f"{status_name}: {message}")
        self.status = status
        self.status_name = status_name
        self.message = message


class _Handle:
    """One wsgemm handle; a handle is not thread-safe, so each thread gets its own (see handle())."""

    def __init__(self):
        lib = library()
        self._lib = lib
        self.ptr = ctypes.c_void_p()
        self.check(lib.wsgemm_create(ctypes.byref(self.ptr)))

    def check(self, status):
        if status != STATUS_SUCCESS:
            name = self._lib.wsgemm_status_string(status).decode()
            message = self._lib.wsgemm_get_last_error_message(self.ptr).decode()
            raise Error(status, name, message)

    def __del__(self):
        try:
            if self.ptr:
                self._lib.wsgemm_destroy(self.ptr)
        except Exception:  # interpreter shutdown: the library may already be gone
            pass


_local = threading.local()


def handle():
    """This thread's handle, created on first use."""
    h = getattr(_local, "handle", None)
    if h is None:
        h = _local.handle = _Handle()
    return h
