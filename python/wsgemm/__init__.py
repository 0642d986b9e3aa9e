"""wsgemm for Python: matmul on any CUDA array (PyTorch, CuPy, JAX, or anything that exposes
__dlpack__ or __cuda_array_interface__), through ctypes on libwsgemm.so. No copies: row-major,
column-major and transposed views map onto the one column-major call (see _layout.py).

    import wsgemm
    c = wsgemm.matmul(a, b)                       # a: (M, K), b: (K, N) bfloat16 or float16 CUDA arrays
    wsgemm.matmul(a, b, out=c32, beta=1.0)        # c32 = a @ b + c32, c32 float32 (or bf16 / fp16)
    wsgemm.matmul(a3, b3, out=c3)                 # batches: (batch, M, K) @ (batch, K, N) or a shared 2-D operand

Argument errors raise TypeError / ValueError before any CUDA call; a status other than SUCCESS from
the library raises wsgemm.Error with the library's message. The library is found through
WSGEMM_LIBRARY, next to this package, or the loader's path (see _binding.py).
"""
from __future__ import annotations

import ctypes

from . import _arrays, _binding, _layout
from ._binding import Error, library_path

__all__ = ["matmul", "Error", "version", "last_path", "library_path"]
__version__ = "0.1.0"


def version():
    """(major, minor, patch) of the loaded libwsgemm.so."""
    v = [ctypes.c_int(-1) for _ in range(3)]
    _binding.library().wsgemm_get_version(*(ctypes.byref(x) for x in v))
    return tuple(x.value for x in v)


def last_path():
    """The kernel path ('generic', 'sm90', 'sm100', ...) of this thread's last successful call."""
    h = _binding.handle()
    path = ctypes.c_int(-1)
    h.check(h._lib.wsgemm_get_last_path(h.ptr, ctypes.byref(path)))
    return h._lib.wsgemm_path_name(path.value).decode()


def matmul(a, b, out=None, *, alpha=1.0, beta=0.0, stream=None, path=None):
    """out = alpha * (a @ b) + beta * out; returns out.

    a: (M, K) or (batch, M, K); b: (K, N) or (batch, K, N); both bfloat16 or both float16.
    out: (M, N) or (batch, M, N), bfloat16, float16 or float32; without it a new array of a's dtype
      is made (torch tensors and cupy arrays only) and beta must be 0.
    Each operand may be row-major, column-major or a transposed view of either (one unit stride in the
      last two dimensions). Accumulation is fp32.
    stream: where the GEMM runs: an int cudaStream_t, or an object with __cuda_stream__, .cuda_stream
      (torch) or .ptr (cupy); default: the current stream of torch / cupy inputs, else stream 0.
    path: force a kernel path ('generic', 'sm90', 'sm100', ...; default 'auto').
    """
    alpha, beta = float(alpha), float(beta)
    if path is not None and path not in _binding.PATHS:
        raise ValueError(f"wsgemm: path {path!r} is not one of {sorted(_binding.PATHS)}")
    stream_value = _arrays.stream_handle(stream, a)
    dlpack_stream = stream_value if stream_value != 0 else 1  # DLPack spells the legacy default stream 1
    # The DLPack capsules in da, db, dc live until this function returns; the memory is the caller's.
    da = _arrays.describe(a, "a", dlpack_stream)
    db = _arrays.describe(b, "b", dlpack_stream)
    if out is None:
        if beta != 0.0:
            raise ValueError("wsgemm: beta != 0 reads out: pass out=")
        M, N, _, batch = _layout.inputs(da, db)
        out = _arrays.allocate_like(a, ((batch,) if batch else ()) + (M, N), da.dtype)
    dc = _arrays.describe(out, "out", dlpack_stream)
    call = _layout.plan(da, db, dc)

    h = _binding.handle()
    lib = h._lib
    for arr in (da, db, dc):  # __cuda_array_interface__ v3: order the producer's stream before ours
        if arr.cai_stream is not None and arr.cai_stream != stream_value:
            err = _binding.cudart().cudaStreamSynchronize(arr.cai_stream)
            if err:
                raise Error(_binding.STATUS_CUDA_ERROR, "WSGEMM_STATUS_CUDA_ERROR", f"cudaStreamSynchronize on {arr.name}'s stream: "
                            + _binding.cudart().cudaGetErrorString(err).decode())
    h.check(lib.wsgemm_set_stream(h.ptr, stream_value))
    h.check(lib.wsgemm_set_path(h.ptr, _binding.PATHS[path or "auto"]))
    alpha_c, beta_c = ctypes.c_float(alpha), ctypes.c_float(beta)
    ta, tc = _binding.DTYPES[da.dtype], _binding.DTYPES[dc.dtype]
    if call.batch == 0:
        status = lib.wsgemm_gemm_ex(h.ptr, call.transa, call.transb, call.m, call.n, call.k, ctypes.byref(alpha_c),
                                    call.A, ta, call.lda, call.B, ta, call.ldb, ctypes.byref(beta_c), call.C, tc,
                                    call.ldc)
    else:
        status = lib.wsgemm_gemm_strided_batched_ex(
            h.ptr, call.transa, call.transb, call.m, call.n, call.k, ctypes.byref(alpha_c), call.A, ta, call.lda,
            call.strideA, call.B, ta, call.ldb, call.strideB, ctypes.byref(beta_c), call.C, tc, call.ldc,
            call.strideC, call.batch)
    h.check(status)
    return out
