# SPDX-License-Identifier: MIT
"""From arrays (any strides) to one column-major wsgemm call, without copies. Pure Python, no CUDA.

A matrix X (rows x cols) with element strides (s_row, s_col) is, to a column-major BLAS:
  s_row == 1               X itself,  leading dimension s_col (column-major / Fortran order)
  s_col == 1               X^T,       leading dimension s_row (row-major / C order, or a transposed
                                      view of a column-major matrix)
(a dimension of extent 1 may have any stride). wsgemm computes C = op(A) op(B) on column-major data.
If `out` is column-major, that is the call, with op(A) = A when a is stored as itself and A^T when it
is stored transposed. If `out` is row-major, wsgemm computes the column-major C^T = B^T A^T instead: the
operands swap places, m and n swap, and each op flips (b stored as b^T needs no transpose to give b^T).
"""
from __future__ import annotations

from dataclasses import dataclass

from . import _binding as B

_INT_MAX = 2**31 - 1


@dataclass
class Stored:
    """How a (batch of) matrices lies in memory for a column-major call."""
    transposed: bool  # memory holds X^T in column-major order
    ld: int
    batch_stride: int


def stored(arr, rows, cols):
    """Stored form of arr's last two dimensions (rows x cols), or ValueError."""
    s_row, s_col = arr.strides[-2], arr.strides[-1]
    if any(s < 0 for s in arr.strides):
        raise ValueError(f"wsgemm: {arr.name} has negative strides {arr.strides}")
    if rows == 0 or cols == 0:  # nothing is read or written: any leading dimension the library accepts
        form = Stored(False, max(rows, 1), 0)
    elif s_row == 1 and (cols <= 1 or s_col >= max(rows, 1)):
        form = Stored(False, s_col if cols > 1 else max(rows, 1), 0)
    elif s_col == 1 and (rows <= 1 or s_row >= max(cols, 1)):
        form = Stored(True, s_row if rows > 1 else max(cols, 1), 0)
    elif rows <= 1 and cols <= 1:
        form = Stored(False, 1, 0)
    else:
        raise ValueError(f"wsgemm: {arr.name} of shape {arr.shape} has element strides {arr.strides}: one of "
                         "the last two must be 1 and the other at least the extent it steps over (a row- or "
                         "column-major matrix, or a transposed view of one); copy it first (e.g. .contiguous())")
    if form.ld > _INT_MAX:
        raise ValueError(f"wsgemm: {arr.name}: leading dimension {form.ld} does not fit wsgemm's int")
    if len(arr.shape) == 3 and arr.shape[0] > 1:
        form.batch_stride = arr.strides[0]
    return form


@dataclass
class Call:
    """Arguments of wsgemm_gemm_ex / wsgemm_gemm_strided_batched_ex (pointers are ints)."""
    transa: int
    transb: int
    m: int
    n: int
    k: int
    A: int
    lda: int
    strideA: int
    B: int
    ldb: int
    strideB: int
    C: int
    ldc: int
    strideC: int
    batch: int  # 0: a plain (unbatched) call
    swapped: bool = False  # out row-major: A is b and B is a (C^T = b^T a^T)


FP8 = ("float8_e4m3fn", "float8_e5m2")


def inputs(a, b, fp8=False):
    """(M, N, K, batch) of a @ b after checking a and b (batch 0: neither is 3-D). fp8: FP8 pairs are
    taken too (wsgemm_matmul: both FP8, not both E5M2)."""
    for arr in (a, b):
        if len(arr.shape) not in (2, 3):
            raise ValueError(f"wsgemm: {arr.name} has {len(arr.shape)} dimensions; wsgemm takes matrices (2) "
                             "or strided batches of matrices (3)")
    pair16 = a.dtype == b.dtype and a.dtype in ("bfloat16", "float16")
    pair8 = fp8 and a.dtype in FP8 and b.dtype in FP8 and not a.dtype == b.dtype == "float8_e5m2"
    if not (pair16 or pair8):
        raise TypeError(f"wsgemm: a and b must both be bfloat16 or both float16"
                        + (", or both float8 (not both float8_e5m2)" if fp8 else "")
                        + f" (got {a.dtype} and {b.dtype})")
    (M, K), (K2, N) = a.shape[-2:], b.shape[-2:]
    if K != K2:
        raise ValueError(f"wsgemm: a {a.shape} and b {b.shape}: inner dimensions {K} and {K2} differ")
    batches = {arr.shape[0] for arr in (a, b) if len(arr.shape) == 3}
    if len(batches - {1}) > 1:
        raise ValueError(f"wsgemm: a {a.shape} and b {b.shape} have different batch sizes")
    batch = max(batches) if batches else 0
    return M, N, K, batch


def plan(a, b, out, fp8=False):
    """The one column-major call that computes out = a @ b (for each batch entry), or TypeError /
    ValueError naming the operand. a: (..., M, K), b: (..., K, N), out: (..., M, N); 2-D or 3-D, a 2-D
    (or batch-1) input is shared by every batch entry."""
    M, N, K, _ = inputs(a, b, fp8)
    if len(out.shape) not in (2, 3):
        raise ValueError(f"wsgemm: out has {len(out.shape)} dimensions; wsgemm takes matrices (2) or strided "
                         "batches of matrices (3)")
    out_types = ("bfloat16", "float16", "float32") + (("float8_e4m3fn",) if fp8 else ())
    if out.dtype not in out_types:
        raise TypeError(f"wsgemm: out must be {', '.join(out_types[:-1])} or {out_types[-1]} (got {out.dtype})")
    if tuple(out.shape[-2:]) != (M, N):
        raise ValueError(f"wsgemm: out has shape {out.shape}; a @ b is {M} x {N}")
    batch = out.shape[0] if len(out.shape) == 3 else 0
    for arr in (a, b):
        if len(arr.shape) == 3 and arr.shape[0] not in (1, batch):
            raise ValueError(f"wsgemm: {arr.name} has {arr.shape[0]} matrices, out "
                             + (f"{batch}" if batch else "is one matrix (2-D)"))
    for extent, what in ((M, "M"), (N, "N"), (K, "K"), (batch, "batch")):
        if extent > _INT_MAX:
            raise ValueError(f"wsgemm: {what} = {extent} does not fit wsgemm's int")
    for arr in (a, b, out):
        itemsize = B.ITEMSIZE[arr.dtype]
        if arr.ptr % itemsize:
            raise ValueError(f"wsgemm: {arr.name} at {arr.ptr:#x} is not aligned to its {itemsize}-byte elements")
    sa, sb, sc = stored(a, M, K), stored(b, K, N), stored(out, M, N)
    if batch > 1 and sc.batch_stride == 0:
        raise ValueError(f"wsgemm: out has batch stride 0: its {batch} matrices would overlap")
    op = lambda t: B.OP_T if t else B.OP_N  # noqa: E731
    if not sc.transposed:  # out column-major: C = op(A) op(B)
        return Call(op(sa.transposed), op(sb.transposed), M, N, K, a.ptr, sa.ld, sa.batch_stride,
                    b.ptr, sb.ld, sb.batch_stride, out.ptr, sc.ld, sc.batch_stride, batch)
    # out row-major: C^T (N x M) = b^T a^T; b^T is b's memory read as stored transposed (op N) or not (op T)
    return Call(op(not sb.transposed), op(not sa.transposed), N, M, K, b.ptr, sb.ld, sb.batch_stride,
                a.ptr, sa.ld, sa.batch_stride, out.ptr, sc.ld, sc.batch_stride, batch, True)
