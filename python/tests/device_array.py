# SPDX-License-Identifier: MIT
"""A minimal CUDA array for the tests: cudaMalloc'd memory (through ctypes on the CUDA runtime that
libwsgemm.so uses) exposing __cuda_array_interface__ v3, so the module is tested without any array
library. Host data moves through NumPy; bfloat16 lives on the host as uint16 bit patterns.
"""
import ctypes

import numpy as np

from wsgemm import _binding

_TYPESTR = {"bfloat16": "<V2", "float16": "<f2", "float32": "<f4"}
_HOST = {"bfloat16": np.uint16, "float16": np.float16, "float32": np.float32}
_ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4}
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)  # cudaHostFn_t


def cudart():
    rt = _binding.cudart()
    rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    rt.cudaFree.argtypes = [ctypes.c_void_p]
    rt.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    rt.cudaMemset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
    rt.cudaStreamCreateWithFlags.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
    rt.cudaLaunchHostFunc.argtypes = [ctypes.c_void_p, HOST_FN, ctypes.c_void_p]
    rt.cudaStreamDestroy.argtypes = [ctypes.c_void_p]
    rt.cudaGetDeviceCount.argtypes = [ctypes.POINTER(ctypes.c_int)]
    rt.cudaDeviceSynchronize.argtypes = []
    return rt


def check(err, what):
    if err != 0:
        raise RuntimeError(f"{what}: CUDA error {err} ({_binding.cudart().cudaGetErrorString(err).decode()})")


def gpu_count():
    n = ctypes.c_int(0)
    return n.value if cudart().cudaGetDeviceCount(ctypes.byref(n)) == 0 else 0


class Buffer:
    """Owns device memory."""

    def __init__(self, nbytes):
        self.ptr = ctypes.c_void_p()
        check(cudart().cudaMalloc(ctypes.byref(self.ptr), max(nbytes, 1)), "cudaMalloc")
        self.nbytes = nbytes

    def __del__(self):
        if self.ptr:
            cudart().cudaFree(self.ptr)


class DeviceArray:
    """shape, strides in elements, dtype 'bfloat16' | 'float16' | 'float32', over a Buffer at an
    element offset (views share the buffer)."""

    def __init__(self, buffer, shape, strides, dtype, offset=0):
        self.buffer, self.shape, self.strides, self.dtype, self.offset = buffer, tuple(shape), tuple(strides), dtype, offset

    @classmethod
    def empty(cls, shape, dtype, order="C", pad=0):
        """order 'C' (row-major) or 'F' (column-major); pad extra elements in the leading dimension."""
        shape = tuple(shape)
        rows, cols = shape[-2], shape[-1]
        if order == "C":
            inner = (cols + pad, 1)
            mat = rows * (cols + pad)
        else:
            inner = (1, rows + pad)
            mat = (rows + pad) * cols
        strides = ((mat,) if len(shape) == 3 else ()) + inner
        count = mat * (shape[0] if len(shape) == 3 else 1)
        return cls(Buffer(count * _ITEMSIZE[dtype]), shape, strides, dtype)

    @property
    def ptr(self):
        return self.buffer.ptr.value + self.offset * _ITEMSIZE[self.dtype]

    @property
    def T(self):
        """Transposed view of the last two dimensions (no copy)."""
        return DeviceArray(self.buffer, self.shape[:-2] + self.shape[-2:][::-1],
                           self.strides[:-2] + self.strides[-2:][::-1], self.dtype, self.offset)

    @property
    def __cuda_array_interface__(self):
        item = _ITEMSIZE[self.dtype]
        return {"shape": self.shape, "typestr": _TYPESTR[self.dtype], "data": (self.ptr, False),
                "strides": tuple(s * item for s in self.strides), "version": 3, "stream": None}

    def _span(self):
        """Elements from the first to one past the last element, and the host index array."""
        idx = np.zeros(self.shape, dtype=np.int64)
        for d, (n, s) in enumerate(zip(self.shape, self.strides)):
            shape = [1] * len(self.shape)
            shape[d] = n
            idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
        return int(idx.max()) + 1 if idx.size else 0, idx

    def _raw(self, count):
        host = np.empty(count, dtype=_HOST[self.dtype])
        check(cudart().cudaMemcpy(host.ctypes.data, self.ptr, count * _ITEMSIZE[self.dtype], 2), "cudaMemcpy D2H")
        return host

    def copy_from(self, values):
        """values: host array of this shape (uint16 bit patterns for bfloat16); elements outside the
        view (padding) keep their contents."""
        span, idx = self._span()
        host = self._raw(span)
        host[idx] = np.asarray(values, dtype=_HOST[self.dtype])
        check(cudart().cudaMemcpy(self.ptr, host.ctypes.data, span * _ITEMSIZE[self.dtype], 1), "cudaMemcpy H2D")
        return self

    def fill_bytes(self, byte):
        """Every byte of the underlying buffer (0xff: NaN in all three types)."""
        check(cudart().cudaMemset(self.buffer.ptr, byte, self.buffer.nbytes), "cudaMemset")
        return self

    def to_host(self):
        span, idx = self._span()
        return self._raw(span)[idx]


def bf16_round(x):
    """float array -> (uint16 bf16 bit patterns, float64 values), round to nearest even."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, bf16_value(bits)


def bf16_value(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def host_values(dtype, rng, shape):
    """Uniform [-1, 1] inputs: (what to copy to the device, their exact float64 values)."""
    x = rng.uniform(-1.0, 1.0, size=shape)
    if dtype == "bfloat16":
        return bf16_round(x)
    h = x.astype(np.float16 if dtype == "float16" else np.float32)
    return h, h.astype(np.float64)


def as_float64(dtype, host):
    return bf16_value(host) if dtype == "bfloat16" else np.asarray(host).astype(np.float64)
