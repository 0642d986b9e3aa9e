# SPDX-License-Identifier: MIT
"""grouped_mm: torch._grouped_mm's 2-D x 3-D case, and the masked form, on wsgemm_gemm_grouped_ex.

Row-major to column-major: a row-major out [tokens, n] is the column-major n x tokens matrix out^T, and
out^T = b_g^T a^T on group g's columns; so the call is grouped along N, with the weights b as the strided
batch A (one matrix per group) and the tokens a as B. Transposed views of a and b map onto the ops, as in
matmul (_layout.stored); out must be row-major in its last two dimensions.
"""
from __future__ import annotations

import ctypes

from . import _arrays, _binding, _layout

_INT_MAX = 2**31 - 1


def _check_int32(arr, name, count):
    if arr.dtype != "int32" or len(arr.shape) != 1 or arr.shape[0] != count or (count > 1 and arr.strides[0] != 1):
        raise ValueError(f"wsgemm: {name} must be a contiguous 1-D int32 CUDA array of {count} elements (got dtype "
                         f"{arr.dtype}, shape {arr.shape}, strides {arr.strides})")


def grouped_mm(a, b, offs=None, out=None, *, counts=None, alpha=1.0, beta=0.0, stream=None, status=None):
    """Grouped GEMM, the sizes on the device; returns out.

    Contiguous (offs): a (tokens, K), b (groups, K, N), offs int32 (groups,) of cumulative ends as
      torch._grouped_mm takes them: out[offs[g-1]:offs[g]] = a[offs[g-1]:offs[g]] @ b[g] (offs[-1] = 0); rows
      of out past offs[-1] keep what out held.
    Masked (counts): a (groups, capacity, K), b (groups, K, N), counts int32 (groups,): out[g, :counts[g]] =
      a[g, :counts[g]] @ b[g]; the other rows keep what out held.
    a and b: both bfloat16 or both float16, each row-major or a transposed view; out bfloat16, float16 or float32
      (default: a new array of a's dtype, beta must then be 0), row-major. alpha * product + beta * out, fp32
      accumulation. The sizes are read by the kernel, never by the host: the call is capturable into a CUDA graph
      and replays with new sizes. status: an optional one-element int32 CUDA array set to 0, or to g + 1 for the
      first group g whose sizes break the contract (that group skipped: docs/api.md, "Grouped GEMM").
    """
    if (offs is None) == (counts is None):
        raise ValueError("wsgemm: grouped_mm takes exactly one of offs= (contiguous) and counts= (masked)")
    alpha, beta = float(alpha), float(beta)
    masked = counts is not None
    stream_value = _arrays.stream_handle(stream, a)
    dlpack_stream = stream_value if stream_value != 0 else 1
    da = _arrays.describe(a, "a", dlpack_stream)
    db = _arrays.describe(b, "b", dlpack_stream)
    if da.dtype != db.dtype or da.dtype not in ("bfloat16", "float16"):
        raise TypeError(f"wsgemm: a and b must both be bfloat16 or both float16 (got {da.dtype} and {db.dtype})")
    if len(db.shape) != 3:
        raise ValueError(f"wsgemm: b must be (groups, K, N) (got shape {db.shape})")
    groups, K, N = db.shape
    if len(da.shape) != (3 if masked else 2) or da.shape[-1] != K or (masked and da.shape[0] != groups):
        want = f"({groups}, capacity, {K})" if masked else f"(tokens, {K})"
        raise ValueError(f"wsgemm: a must be {want} for b of shape {db.shape} (got {da.shape})")
    rows = da.shape[-2]  # tokens (contiguous) or the capacity (masked)
    if out is None:
        if beta != 0.0:
            raise ValueError("wsgemm: beta != 0 reads out: pass out=")
        out = _arrays.allocate_like(a, ((groups,) if masked else ()) + (rows, N), da.dtype)
    dc = _arrays.describe(out, "out", dlpack_stream)
    want_out = ((groups,) if masked else ()) + (rows, N)
    if tuple(dc.shape) != want_out:
        raise ValueError(f"wsgemm: out must have shape {want_out} (got {dc.shape})")
    if dc.dtype not in ("bfloat16", "float16", "float32"):
        raise TypeError(f"wsgemm: out must be bfloat16, float16 or float32 (got {dc.dtype})")
    ds = _arrays.describe(counts if masked else offs, "counts" if masked else "offs", dlpack_stream)
    _check_int32(ds, ds.name, groups)
    dst = _arrays.describe(status, "status", dlpack_stream) if status is not None else None
    if dst is not None:
        _check_int32(dst, "status", 1)
    for v in (rows, N, K, groups):
        if v > _INT_MAX:
            raise ValueError(f"wsgemm: extent {v} does not fit wsgemm's int")

    # op(A) = b_g^T (N x K): b_g is K x N; op(B) = a^T (K x rows); C = out^T (N x rows), column-major
    sb = _layout.stored(db, K, N)
    sa = _layout.stored(da, rows, K)
    sc = _layout.stored(dc, rows, N)
    if not sc.transposed and rows > 1 and N > 1:
        raise ValueError(f"wsgemm: out must be row-major in its last two dimensions (got strides {dc.strides})")
    transa = _binding.OP_N if sb.transposed else _binding.OP_T
    transb = _binding.OP_N if sa.transposed else _binding.OP_T
    stride_a = db.strides[0] if groups > 1 else 0
    stride_b = (da.strides[0] if groups > 1 else 0) if masked else 0
    stride_c = (dc.strides[0] if groups > 1 else 0) if masked else 0
    desc = _binding.GroupedDesc(layout=_binding.GROUPED_MASKED if masked else _binding.GROUPED_CONTIGUOUS,
                                dim=_binding.GROUPED_DIM_N, group_count=groups, sizes=ds.ptr or None,
                                status=dst.ptr if dst is not None else None)
    for arr in (da, db, dc, ds) + ((dst,) if dst is not None else ()):
        if arr.cai_stream is not None and arr.cai_stream != stream_value:
            err = _binding.cudart().cudaStreamSynchronize(arr.cai_stream)
            if err:
                raise _binding.Error(_binding.STATUS_CUDA_ERROR, "WSGEMM_STATUS_CUDA_ERROR",
                                     f"cudaStreamSynchronize on {arr.name}'s stream: "
                                     + _binding.cudart().cudaGetErrorString(err).decode())
    h = _binding.handle()
    lib = h._lib
    h.check(lib.wsgemm_set_stream(h.ptr, stream_value))
    h.check(lib.wsgemm_set_path(h.ptr, _binding.PATHS["auto"]))  # the handle is the thread's: reset a forced path
    fa, fb = ctypes.c_float(alpha), ctypes.c_float(beta)
    h.check(lib.wsgemm_gemm_grouped_ex(
        h.ptr, ctypes.byref(desc), transa, transb, N, rows, K, ctypes.byref(fa),
        db.ptr or None, _binding.DTYPES[db.dtype], sb.ld, stride_a,
        da.ptr or None, _binding.DTYPES[da.dtype], sa.ld, stride_b, ctypes.byref(fb),
        dc.ptr or None, _binding.DTYPES[dc.dtype], sc.ld, stride_c))
    return out
