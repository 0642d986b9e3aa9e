# SPDX-License-Identifier: MIT
"""wsgemm for Python: matmul on any CUDA array (PyTorch, CuPy, JAX, or anything that exposes
__dlpack__ or __cuda_array_interface__), through ctypes on libwsgemm.so. No copies: row-major,
column-major and transposed views map onto the one column-major call (see _layout.py).

    import wsgemm
    c = wsgemm.matmul(a, b)                       # a: (M, K), b: (K, N) bfloat16 or float16 CUDA arrays
    wsgemm.matmul(a, b, out=c32, beta=1.0)        # c32 = a @ b + c32, c32 float32 (or bf16 / fp16)
    wsgemm.matmul(a3, b3, out=c3)                 # batches: (batch, M, K) @ (batch, K, N) or a shared 2-D operand
    wsgemm.matmul(x8, w8t, out=y, epilogue="gelu_bias", bias=b, scale_a=sx, scale_b=sw)   # FP8, fused epilogue
    wsgemm.grouped_mm(x, w, offs=offs, out=y)     # mixture of experts: x (tokens, K), w (experts, K, N), int32 offs

Argument errors raise TypeError / ValueError before any CUDA call; a status other than SUCCESS from
the library raises wsgemm.Error with the library's message. The library is found through
WSGEMM_LIBRARY, in this package (what the wheel carries), or the loader's path (see _binding.py).
Where torch is installed, importing the package registers torch.ops.wsgemm.mm and .matmul (torch_ops.py),
and matmul on torch tensors goes through them (autograd, torch.compile, torch.export). JAX arrays are
inputs only: wsgemm writes out, aux and amax in place, and JAX arrays are immutable.
"""
from __future__ import annotations

import ctypes
import importlib.util
import warnings

from . import _arrays, _binding, _layout
from ._binding import Error, library_path
from ._grouped import grouped_mm

__all__ = ["matmul", "grouped_mm", "Error", "version", "last_path", "library_path", "set_launch_mode", "launch_mode",
           "set_batch_invariance", "batch_invariance"]
__version__ = "0.2.0"


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


def _set_thread_mode(what, name, names, mode):
    """wsgemm_set_<name> on this thread's handle with the value `names` gives the string mode."""
    if mode not in names:
        raise ValueError(f"wsgemm: {what} {mode!r} is not one of {sorted(names)}")
    h = _binding.handle()
    h.check(getattr(h._lib, "wsgemm_set_" + name)(h.ptr, names[mode]))


def _thread_mode(name, names):
    """wsgemm_get_<name> of this thread's handle, as its string in `names`."""
    h = _binding.handle()
    mode = ctypes.c_int(-1)
    h.check(getattr(h._lib, "wsgemm_get_" + name)(h.ptr, ctypes.byref(mode)))
    return {v: k for k, v in names.items()}[mode.value]


def set_launch_mode(mode):
    """How this thread's calls launch their kernels: 'default', or 'pdl' (programmatic dependent launch on sm_90
    and later: each kernel may start its prologue while the stream's previous kernel finishes; results are the
    same; docs/api.md "Programmatic dependent launch"). Applies to every later call of this thread, torch ops
    included."""
    _set_thread_mode("launch mode", "launch_mode", _binding.LAUNCH_MODES, mode)


def launch_mode():
    """This thread's launch mode: 'default' or 'pdl'."""
    return _thread_mode("launch_mode", _binding.LAUNCH_MODES)


def set_batch_invariance(mode):
    """Whether this thread's results may depend on the batch size: 'off' (the default), 'on' (each row of the
    column-major C bit-identical whatever m is) or 'on_n' (each column whatever n is). wsgemm.matmul runs a
    row-major (M, N) product as the column-major C^T = b^T a^T, so there 'on_n' keeps each row of out (each
    token of a linear layer) bit-identical whatever M is. Costs speed where the default plan would follow the
    batch size (docs/api.md "Batch invariance"). Applies to every later call of this thread, torch ops
    included."""
    _set_thread_mode("batch invariance", "batch_invariance", _binding.BATCH_INVARIANCE, mode)


def batch_invariance():
    """This thread's batch invariance: 'off', 'on' or 'on_n'."""
    return _thread_mode("batch_invariance", _binding.BATCH_INVARIANCE)


def matmul(a, b, out=None, *, alpha=1.0, beta=0.0, stream=None, path=None, epilogue=None, bias=None, aux=None,
           scale_a=None, scale_b=None, scale_c=None, scale_d=None, amax=None):
    """out = alpha * (a @ b) + beta * out; returns out.

    a: (M, K) or (batch, M, K); b: (K, N) or (batch, K, N); both bfloat16 or both float16.
    out: (M, N) or (batch, M, N), bfloat16, float16 or float32; without it a new array of a's dtype
      (bfloat16 for FP8 a) is made (torch tensors and cupy arrays only) and beta must be 0.
    torch tensors a and b go through torch.ops.wsgemm (torch_ops.py): the result is differentiable and the
      call compiles and exports as one op; out= writes in place outside torch.compile and takes no autograd.
    Each operand may be row-major, column-major or a transposed view of either (one unit stride in the
      last two dimensions). Accumulation is fp32.
    stream: where the GEMM runs: an int cudaStream_t, or an object with __cuda_stream__, .cuda_stream
      (torch) or .ptr (cupy); default: the current stream of torch / cupy inputs, else stream 0.
    path: force a kernel path ('generic', 'sm90', 'sm100', ...; default 'auto').

    The cublasLtMatmul extras (wsgemm_matmul; 2-D operands only; docs/api.md "Matmul"):
    a, b may also be float8_e4m3fn / float8_e5m2 (both FP8, not both e5m2); out also float8_e4m3fn.
    epilogue: None, 'relu', 'bias', 'relu_bias', 'gelu', 'gelu_bias', 'gelu_aux', 'gelu_aux_bias':
      out = act(alpha * scale_a * scale_b * (a @ b) + beta * scale_c * out + bias) * scale_d.
    bias: a 1-D array (bfloat16, float16 or float32) along out's contiguous dimension: (N,) for a row-major
      out (each row of out gets it, as in a linear layer), (M,) for a column-major one.
    aux: an array shaped and laid out like out (bfloat16, float16 or float32) that receives the GELU input
      ('gelu_aux', 'gelu_aux_bias').
    scale_a .. scale_d: one-element float32 CUDA arrays (per-tensor scales); amax: a one-element float32
      CUDA array that receives max |out| before scale_d.
    """
    alpha, beta = float(alpha), float(beta)
    if path is not None and path not in _binding.PATHS:
        raise ValueError(f"wsgemm: path {path!r} is not one of {sorted(_binding.PATHS)}")
    if epilogue not in _binding.EPILOGUES:
        raise ValueError(f"wsgemm: epilogue {epilogue!r} is not one of {sorted(k for k in _binding.EPILOGUES if k)}")
    extras = {"bias": bias, "aux": aux, "scale_a": scale_a, "scale_b": scale_b, "scale_c": scale_c,
              "scale_d": scale_d, "amax": amax}
    if _arrays.framework(a) == "torch" and _arrays.framework(b) == "torch":
        # torch.ops.wsgemm.* (torch_ops.py): one op that autograd, torch.compile and torch.export see
        from . import torch_ops
        return torch_ops.matmul_from_api(a, b, out, alpha=alpha, beta=beta, stream=stream, path=path,
                                         epilogue=epilogue, **extras)
    stream_value = _arrays.stream_handle(stream, a)
    dlpack_stream = stream_value if stream_value != 0 else 1  # DLPack spells the legacy default stream 1
    # The DLPack capsules in da, db, dc live until this function returns; the memory is the caller's.
    da = _arrays.describe(a, "a", dlpack_stream)
    db = _arrays.describe(b, "b", dlpack_stream)
    fused = _fused(da, db, epilogue, extras)
    if out is None:
        if beta != 0.0:
            raise ValueError("wsgemm: beta != 0 reads out: pass out=")
        M, N, _, batch = _layout.inputs(da, db, fused)
        out = _arrays.allocate_like(a, ((batch,) if batch else ()) + (M, N), default_out_dtype(da.dtype))
    dc = _arrays.describe(out, "out", dlpack_stream)
    dx = {name: _arrays.describe(v, name, dlpack_stream) for name, v in extras.items() if v is not None}
    prepared = prepare(da, db, dc, dx, beta=beta, epilogue=epilogue)
    for arr in (da, db, dc, *dx.values()):  # __cuda_array_interface__ v3: order the producer's stream before ours
        if arr.cai_stream is not None and arr.cai_stream != stream_value:
            err = _binding.cudart().cudaStreamSynchronize(arr.cai_stream)
            if err:
                raise Error(_binding.STATUS_CUDA_ERROR, "WSGEMM_STATUS_CUDA_ERROR",
                            f"cudaStreamSynchronize on {arr.name}'s stream: "
                            + _binding.cudart().cudaGetErrorString(err).decode())
    launch(prepared, da, dc, alpha=alpha, beta=beta, stream=stream_value, path=path)
    return out


def default_out_dtype(ab_dtype):
    """The dtype of a new out: a's own for 16-bit a and b (as torch.matmul), bfloat16 for FP8 ones."""
    return "bfloat16" if ab_dtype in _layout.FP8 else ab_dtype


def _fused(da, db, epilogue, extras):
    """Whether the call needs wsgemm_matmul (an epilogue, a bias, aux, scale or amax, or FP8 operands)."""
    return epilogue is not None or any(v is not None for v in extras.values()) or \
        da.dtype in _layout.FP8 or db.dtype in _layout.FP8


def prepare(da, db, dc, dx, *, beta=0.0, epilogue=None):
    """The planned library call of dc = alpha * da @ db + beta * dc on described arrays (_arrays.Array),
    with the extras dx (name -> Array: bias, aux, scale_a .. scale_d, amax): (call, desc or None).
    TypeError / ValueError naming the argument; no CUDA call."""
    fused = _fused(da, db, epilogue, dx)
    call = _layout.plan(da, db, dc, fused)
    if dc.dtype == "float8_e4m3fn" and beta != 0.0:
        raise ValueError("wsgemm: a float8 out is not read: beta must be 0")
    return call, (_matmul_desc(call, da, db, dc, epilogue, dx) if fused else None)


def launch(prepared, da, dc, *, alpha=1.0, beta=0.0, stream=0, path=None):
    """Runs a prepare()d call on the stream handle `stream`; wsgemm.Error for a status other than SUCCESS."""
    call, desc = prepared
    h = _binding.handle()
    lib = h._lib
    h.check(lib.wsgemm_set_stream(h.ptr, stream))
    h.check(lib.wsgemm_set_path(h.ptr, _binding.PATHS[path or "auto"]))
    alpha_c, beta_c = ctypes.c_float(alpha), ctypes.c_float(beta)
    ta, tc = _binding.DTYPES[da.dtype], _binding.DTYPES[dc.dtype]
    if desc is not None:
        status = lib.wsgemm_matmul(h.ptr, ctypes.byref(desc), call.m, call.n, call.k, ctypes.byref(alpha_c), call.A,
                                   call.lda, call.B, call.ldb, ctypes.byref(beta_c), call.C, call.ldc, call.C, call.ldc)
    elif call.batch == 0:
        status = lib.wsgemm_gemm_ex(h.ptr, call.transa, call.transb, call.m, call.n, call.k, ctypes.byref(alpha_c),
                                    call.A, ta, call.lda, call.B, ta, call.ldb, ctypes.byref(beta_c), call.C, tc,
                                    call.ldc)
    else:
        status = lib.wsgemm_gemm_strided_batched_ex(
            h.ptr, call.transa, call.transb, call.m, call.n, call.k, ctypes.byref(alpha_c), call.A, ta, call.lda,
            call.strideA, call.B, ta, call.ldb, call.strideB, ctypes.byref(beta_c), call.C, tc, call.ldc,
            call.strideC, call.batch)
    h.check(status)


def _matmul_desc(call, da, db, dc, epilogue, dx):
    """The wsgemm_matmul_desc of a planned call (C is out itself: in place), or TypeError / ValueError."""
    if call.batch:
        raise ValueError("wsgemm: epilogues, scales and FP8 take 2-D a, b and out (no batch)")
    code = _binding.EPILOGUES[epilogue]
    wants_bias, wants_aux = bool(code & 4), bool(code & 128)
    if wants_bias != ("bias" in dx):
        raise ValueError(f"wsgemm: epilogue {epilogue!r} " + ("needs bias=" if wants_bias else "takes no bias"))
    if wants_aux != ("aux" in dx):
        raise ValueError(f"wsgemm: epilogue {epilogue!r} " + ("needs aux=" if wants_aux else "takes no aux"))
    first, second = (db, da) if call.swapped else (da, db)
    d = _binding.MatmulDesc(transa=call.transa, transb=call.transb, Atype=_binding.DTYPES[first.dtype],
                            Btype=_binding.DTYPES[second.dtype], Ctype=_binding.DTYPES[dc.dtype],
                            Dtype=_binding.DTYPES[dc.dtype], epilogue=code, bias_type=14, aux_type=14)
    if dc.dtype == "float8_e4m3fn":  # C is not read (beta 0); its type only has to be one an E4M3 D takes
        d.Ctype = _binding.DTYPES["bfloat16"]
    vector_types = ("bfloat16", "float16", "float32")
    if "bias" in dx:
        bias = dx["bias"]
        if len(bias.shape) != 1 or bias.shape[0] != call.m or (call.m > 1 and bias.strides[0] != 1):
            raise ValueError(f"wsgemm: bias has shape {bias.shape} (strides {bias.strides}); a contiguous ({call.m},) "
                             "vector along out's contiguous dimension is needed")
        if bias.dtype not in vector_types:
            raise TypeError(f"wsgemm: bias must be bfloat16, float16 or float32 (got {bias.dtype})")
        d.bias, d.bias_type = bias.ptr, _binding.DTYPES[bias.dtype]
    if "aux" in dx:
        aux = dx["aux"]
        if tuple(aux.shape) != tuple(dc.shape) or aux.dtype not in vector_types:
            raise ValueError(f"wsgemm: aux must have out's shape {dc.shape} and be bfloat16, float16 or float32 "
                             f"(got {aux.shape}, {aux.dtype})")
        sa, so = _layout.stored(aux, *dc.shape), _layout.stored(dc, *dc.shape)
        if sa.transposed != so.transposed:
            raise ValueError("wsgemm: aux must be laid out like out (both row-major or both column-major)")
        d.aux, d.aux_type, d.ldaux = aux.ptr, _binding.DTYPES[aux.dtype], sa.ld
    modes = _scale_modes(da, db, dx.get("scale_a"), dx.get("scale_b"))
    d.a_scale_mode, d.b_scale_mode = modes
    for name, field in (("scale_a", "a_scale"), ("scale_b", "b_scale"), ("scale_c", "c_scale"), ("scale_d", "d_scale"),
                        ("amax", "amax_d")):
        if name in ("scale_a", "scale_b") and name in dx and modes != (0, 0):
            setattr(d, field, dx[name].ptr)  # a scale tensor, checked by _scale_modes
        elif name in dx:
            x = dx[name]
            if x.dtype != "float32" or [n for n in x.shape if n != 1]:
                raise TypeError(f"wsgemm: {name} must be a one-element float32 array (got {x.shape}, {x.dtype})")
            setattr(d, field, x.ptr)
    if call.swapped:  # C^T = b^T a^T: the scales of a and b trade places with the operands
        d.a_scale, d.b_scale = d.b_scale, d.a_scale
        d.a_scale_mode, d.b_scale_mode = d.b_scale_mode, d.a_scale_mode
    return d


def _packed(x, shape, strides):
    """x has this shape and these element strides (those of dimensions of extent 1 do not matter)."""
    return tuple(x.shape) == tuple(shape) and all(n == 1 or s == w for n, s, w in zip(x.shape, x.strides, strides))


def _scale_modes(da, db, sa, sb):
    """(a mode, b mode) of scale_a and scale_b as torch._scaled_mm lays them out, for a (M, K) and b (K, N),
    or (0, 0) for per-tensor scales (or none); TypeError / ValueError for any other pair. With kb =
    ceil(K / 128): rowwise a (M, 1) and b (1, N); 1 x 128 blocks a (M, kb) with strides (1, M) and b (kb, N)
    contiguous; 128 x 128 blocks a (ceil(M / 128), kb) contiguous and b (kb, ceil(N / 128)) with strides
    (1, kb); MX (float8_e8m0fnu or uint8 exponents) a (M, K / 32) with strides (1, M) and b (K / 32, N)
    contiguous. These are wsgemm_matmul's scale tensors of op(A) and op(B) in either of out's layouts
    (docs/api.md, "Block-scaled FP8")."""
    if any(x is None or [n for n in x.shape if n != 1] == [] and x.dtype == "float32" for x in (sa, sb)):
        return (0, 0)  # per-tensor (or no) scales: the one-element checks of _matmul_desc apply to both
    M, K, N = da.shape[0], da.shape[1], db.shape[1]
    kb, mb, nb = -(-K // 128), -(-M // 128), -(-N // 128)
    B = _binding
    fp32 = sa.dtype == sb.dtype == "float32"
    mx = sa.dtype in ("float8_e8m0fnu", "uint8") and sb.dtype in ("float8_e8m0fnu", "uint8")
    a_modes = {B.SCALE_OUTER_VEC_32F: fp32 and _packed(sa, (M, 1), (1, M)),
               B.SCALE_VEC128_32F: fp32 and _packed(sa, (M, kb), (1, M)),
               B.SCALE_BLK128x128_32F: fp32 and _packed(sa, (mb, kb), (kb, 1)),
               B.SCALE_VEC32_UE8M0: mx and K % 32 == 0 and _packed(sa, (M, K // 32), (1, M))}
    b_modes = {B.SCALE_OUTER_VEC_32F: fp32 and _packed(sb, (1, N), (N, 1)),
               B.SCALE_VEC128_32F: fp32 and _packed(sb, (kb, N), (N, 1)),
               B.SCALE_BLK128x128_32F: fp32 and _packed(sb, (kb, nb), (1, kb)),
               B.SCALE_VEC32_UE8M0: mx and K % 32 == 0 and _packed(sb, (K // 32, N), (N, 1))}
    for pair in ((B.SCALE_OUTER_VEC_32F,) * 2, (B.SCALE_VEC32_UE8M0,) * 2, (B.SCALE_VEC128_32F, B.SCALE_BLK128x128_32F),
                 (B.SCALE_VEC128_32F,) * 2, (B.SCALE_BLK128x128_32F, B.SCALE_VEC128_32F),
                 (B.SCALE_BLK128x128_32F,) * 2):
        if a_modes[pair[0]] and b_modes[pair[1]]:
            return pair
    raise ValueError(f"wsgemm: scale_a {sa.shape} (strides {sa.strides}, {sa.dtype}) with scale_b {sb.shape} "
                     f"(strides {sb.strides}, {sb.dtype}) is no scale layout for a {da.shape} and b {db.shape}: "
                     f"rowwise ({M}, 1) x (1, {N}); 1 x 128 ({M}, {kb}) with strides (1, {M}) and/or 128 x 128 "
                     f"({mb}, {kb}) contiguous, x ({kb}, {N}) contiguous or ({kb}, {nb}) with strides (1, {kb}); "
                     f"MX float8_e8m0fnu ({M}, K/32) with strides (1, {M}) x (K/32, {N}) contiguous")


def _register_torch_ops():
    """torch.ops.wsgemm.mm / .matmul (torch_ops.py) are registered on import where torch is installed, so that
    a compiled or exported program that holds them finds them; without torch, nothing is imported."""
    if importlib.util.find_spec("torch") is None:
        return
    try:
        from . import torch_ops  # noqa: F401
    except Exception as e:  # a broken torch install must not break the CuPy / ctypes uses of the module
        warnings.warn(f"wsgemm: torch is installed but torch.ops.wsgemm could not be registered: {e!r}")


_register_torch_ops()
