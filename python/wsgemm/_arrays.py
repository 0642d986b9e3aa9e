# SPDX-License-Identifier: MIT
"""What wsgemm needs to know of a CUDA array: its pointer, shape, strides in elements and dtype, read
from __dlpack__ (preferred: it is the only protocol PyTorch speaks for bfloat16) or
__cuda_array_interface__ (versions 2 and 3). Nothing here calls CUDA; the DLPack export is asked for on
the stream the GEMM will run on, so the producer orders its pending work before it.
"""
from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass

# DLPack (dlpack.h): device types and dtype codes
_DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 2, 3, 13
_DL_DEVICE_NAMES = {1: "CPU", 2: "CUDA", 3: "CUDA pinned host memory", 13: "CUDA managed memory"}
_DL_DTYPES = {(2, 16): "float16", (2, 32): "float32", (4, 16): "bfloat16", (10, 8): "float8_e4m3fn",
              (12, 8): "float8_e5m2", (0, 32): "int32"}  # int32: the grouped call's sizes and status
# __cuda_array_interface__ typestr (bfloat16 has none: a 2-byte void whose dtype says bfloat16)
_CAI_DTYPES = {"<f2": "float16", "<f4": "float32", "<i4": "int32"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


@dataclass
class Array:
    """One operand as wsgemm sees it. strides are in elements; keep holds whatever must stay alive
    while the pointer is used (the DLPack capsule)."""
    name: str
    ptr: int
    shape: tuple
    strides: tuple
    dtype: str
    keep: object = None
    cai_stream: int | None = None


def framework(obj):
    """'torch', 'cupy', 'jax', ... (the top-level module of the object's type)."""
    return type(obj).__module__.split(".")[0]


def _contiguous_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(int(extent), 1)
    return tuple(reversed(strides))


def _dtype_name(obj):
    dt = getattr(obj, "dtype", None)
    return str(getattr(dt, "name", dt)) if dt is not None else ""


# What wsgemm writes; an immutable array (JAX's) is refused there, since writing into its buffer would
# change a value that JAX assumes never changes (and may share between arrays).
WRITTEN = ("out", "aux", "amax", "status")


def describe(obj, name, dlpack_stream):
    """Array of `obj` (raises TypeError/ValueError with the operand's name before any CUDA call).
    dlpack_stream: the stream value to hand to __dlpack__ (1 for the legacy default stream)."""
    fw = framework(obj)
    if name in WRITTEN and fw in ("jax", "jaxlib"):
        raise TypeError(f"wsgemm: {name} is a JAX array, which is immutable: wsgemm writes {name} in place, so "
                        "pass a writable CUDA array there (torch, CuPy, ...); JAX arrays are taken as inputs only")
    if fw == "torch" and getattr(obj, "requires_grad", False):
        obj = obj.detach()  # the same memory; a tensor that requires grad refuses __dlpack__
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        dev_type, _dev_id = obj.__dlpack_device__()
        if int(dev_type) not in (_DL_CUDA, _DL_CUDA_MANAGED):
            where = _DL_DEVICE_NAMES.get(int(dev_type), f"DLPack device type {int(dev_type)}")
            raise TypeError(f"wsgemm: {name} is in {where}; wsgemm needs CUDA device (or managed) memory")
        return _from_dlpack(obj, name, dlpack_stream)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _from_cai(obj, cai, name)
    raise TypeError(f"wsgemm: {name} ({type(obj).__name__}) is not a CUDA array: it has neither __dlpack__ "
                    "nor __cuda_array_interface__")


def _from_dlpack(obj, name, dlpack_stream):
    capsule = obj.__dlpack__(stream=dlpack_stream)
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    dtype = _DL_DTYPES.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    if dtype is None:
        raise TypeError(f"wsgemm: {name} has DLPack dtype (code {t.dtype.code}, {t.dtype.bits} bits, "
                        f"{t.dtype.lanes} lanes); wsgemm takes bfloat16, float16, float8_e4m3fn, float8_e5m2 (inputs) and float32 (output)")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else _contiguous_strides(shape)
    return Array(name, (t.data or 0) + t.byte_offset, shape, strides, dtype, keep=capsule)


def _from_cai(obj, cai, name):
    version = cai.get("version", 0)
    if version < 2:
        raise TypeError(f"wsgemm: {name}: __cuda_array_interface__ version {version}; versions 2 and 3 are read")
    if cai.get("mask") is not None:
        raise ValueError(f"wsgemm: {name} is a masked array")
    typestr = cai["typestr"]
    dtype = _CAI_DTYPES.get(typestr)
    if dtype is None and typestr in ("<V2", "|V2") and _dtype_name(obj) == "bfloat16":
        dtype = "bfloat16"
    if dtype is None and typestr in ("<V1", "|V1") and _dtype_name(obj) in ("float8_e4m3fn", "float8_e5m2"):
        dtype = _dtype_name(obj)
    if dtype is None:
        raise TypeError(f"wsgemm: {name} has typestr {typestr!r} (dtype {_dtype_name(obj) or '?'}); wsgemm takes "
                        "bfloat16, float16, float8_e4m3fn, float8_e5m2 (inputs) and float32 (output)")
    itemsize = {"float32": 4, "int32": 4, "float8_e4m3fn": 1, "float8_e5m2": 1}.get(dtype, 2)
    shape = tuple(int(x) for x in cai["shape"])
    if cai.get("strides") is None:
        strides = _contiguous_strides(shape)
    else:
        byte_strides = tuple(int(s) for s in cai["strides"])
        if any(s % itemsize for s in byte_strides):
            raise ValueError(f"wsgemm: {name} has byte strides {byte_strides}, not multiples of its "
                             f"{itemsize}-byte elements")
        strides = tuple(s // itemsize for s in byte_strides)
    ptr = int(cai["data"][0] or 0)
    if cai["data"][1] and name in WRITTEN:
        raise ValueError(f"wsgemm: {name} is read-only")
    return Array(name, ptr, shape, strides, dtype, cai_stream=cai.get("stream"))


def stream_handle(stream, first_operand):
    """The cudaStream_t value (an int) the GEMM runs on.
    stream: None (the framework's current stream for torch / cupy arrays, else the legacy default
    stream 0), an int handle, or an object with __cuda_stream__ (returns (version, handle)),
    .cuda_stream (torch) or .ptr (cupy)."""
    if stream is None:
        fw = framework(first_operand)
        if fw == "torch" and getattr(first_operand, "is_cuda", False):
            return int(sys.modules["torch"].cuda.current_stream(first_operand.device).cuda_stream)
        if fw == "cupy":
            return int(sys.modules["cupy"].cuda.get_current_stream().ptr)
        return 0
    if isinstance(stream, bool):
        raise TypeError("wsgemm: stream must be a stream object or an int handle, not a bool")
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError(f"wsgemm: stream handle {stream} is negative")
        return stream
    if hasattr(stream, "__cuda_stream__"):
        value = stream.__cuda_stream__()
        return int(value[1] if isinstance(value, tuple) else value)
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"wsgemm: stream {stream!r} is neither an int handle nor a stream object (__cuda_stream__, "
                    ".cuda_stream or .ptr)")


def allocate_like(a, shape, dtype):
    """A new uninitialised CUDA array of the framework of `a` (torch and cupy), or TypeError."""
    fw = framework(a)
    if fw == "torch":
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=getattr(torch, dtype), device=a.device)
    if fw == "cupy" and dtype != "bfloat16":
        cupy = sys.modules["cupy"]
        return cupy.empty(shape, dtype=dtype)
    raise TypeError(f"wsgemm: pass out= for {type(a).__name__} inputs of dtype {dtype} (wsgemm allocates outputs "
                    "only as torch tensors, or as cupy arrays of float16 / float32; out must be writable, so not a "
                    "JAX array)")
