# SPDX-License-Identifier: MIT
"""wsgemm as PyTorch operators: torch.ops.wsgemm.mm and torch.ops.wsgemm.matmul (torch.library custom ops),
with fake (meta) implementations for torch.compile and torch.export and autograd formulas whose GEMMs are
these ops again. Imported (and so registered) by `import wsgemm` where torch is installed.

    torch.ops.wsgemm.mm(a, b, *, alpha=1.0, out_dtype=None, path="auto") -> Tensor
        alpha * (a @ b): a (M, K) or (batch, M, K), b (K, N) or (batch, K, N) (a 2-D or batch-1 operand is
        shared by every batch entry), both bfloat16 or both float16; the result is row-major, of a's dtype
        unless out_dtype (bfloat16, float16 or float32) says otherwise, as torch.matmul's is.
    torch.ops.wsgemm.matmul(a, b, bias=None, scale_a=None, scale_b=None, scale_d=None, *, epilogue="none",
                            alpha=1.0, out_dtype=None, amax=False, path="auto") -> (out, aux, amax)
        wsgemm_matmul on 2-D a (M, K) and b (K, N): out = act(alpha * scale_a * scale_b * (a @ b) + bias)
        * scale_d, with epilogue one of none, relu, bias, relu_bias, gelu, gelu_bias, gelu_aux,
        gelu_aux_bias (GELU in its tanh form); bias (N,) of bfloat16, float16 or float32; the scales
        one-element float32 tensors, or for float8 a and b scale_a and scale_b are the scale tensors of
        torch._scaled_mm's layouts: rowwise (M, 1) x (1, N), 1 x 128 blocks (M, ceil(K/128)) with strides
        (1, M) with 128 x 128 blocks (ceil(K/128), ceil(N/128)) with strides (1, ceil(K/128)) (and the other
        pairs of docs/api.md, "Block-scaled FP8"), MX float8_e8m0fnu (M, K/32) x (K/32, N). a and b are both 16-bit (one dtype) or both FP8 (float8_e4m3fn /
        float8_e5m2, not both e5m2). out is of a's dtype for 16-bit a (bfloat16 for FP8 a) unless out_dtype
        (bfloat16, float16, float32, float8_e4m3fn) says otherwise. aux is GELU's input (M, N) of out's dtype
        (bfloat16 for a float8 out) for the aux epilogues, else an empty tensor; amax is a one-element float32
        tensor with max |out| before scale_d when amax=True, else empty.

The ops run on the tensors' device, on that device's current stream (so inside torch.cuda.stream(s) and
under CUDA graph capture on s), and never fall back to torch: a call wsgemm declines raises wsgemm.Error.
Backward: dA = dZ B^T and dB = A^T dZ through wsgemm.mm, dZ from the epilogue's activation (the aux output
when it was computed, else GELU's input computed again by one more GEMM), the bias gradient the column sums
of dZ; FP8 operands and scales have no backward (NotImplementedError).
"""
from __future__ import annotations

import collections
import ctypes
import threading

import torch

from . import _arrays, _binding, _layout

__all__ = ["mm", "matmul", "path_counts", "reset_path_counts"]

_DTYPE_NAMES = {torch.bfloat16: "bfloat16", torch.float16: "float16", torch.float32: "float32",
                torch.float8_e4m3fn: "float8_e4m3fn", torch.float8_e5m2: "float8_e5m2", torch.uint8: "uint8"}
if hasattr(torch, "float8_e8m0fnu"):  # MX scale exponents (torch 2.7 and later)
    _DTYPE_NAMES[torch.float8_e8m0fnu] = "float8_e8m0fnu"
_SCALE_TENSOR_DTYPES = tuple(t for t in (torch.float32, torch.uint8, getattr(torch, "float8_e8m0fnu", None)) if t)
_HALF = (torch.bfloat16, torch.float16)
_FP8 = (torch.float8_e4m3fn, torch.float8_e5m2)
_VECTOR = (torch.bfloat16, torch.float16, torch.float32)
EPILOGUES = ("none", "relu", "bias", "relu_bias", "gelu", "gelu_bias", "gelu_aux", "gelu_aux_bias")

# ---------------------------------------------------------------- the paths that ran

_counts_lock = threading.Lock()
_counts = collections.Counter()


def path_counts():
    """{path name: calls} of the ops' library calls in this process since the last reset (every thread: the
    backward pass runs on autograd's own threads). A call inside a CUDA graph capture counts once, when
    captured; replays run no Python."""
    with _counts_lock:
        return dict(_counts)


def reset_path_counts():
    with _counts_lock:
        _counts.clear()


# ---------------------------------------------------------------- shapes and dtypes (shared by the fakes)

def _check_path(path):
    if path not in _binding.PATHS:
        raise ValueError(f"wsgemm: path {path!r} is not one of {sorted(_binding.PATHS)}")


def _mm_meta(a, b, out_dtype):
    """(output shape, output dtype) of wsgemm.mm, or TypeError / ValueError naming the argument."""
    for name, t in (("a", a), ("b", b)):
        if t.dim() not in (2, 3):
            raise ValueError(f"wsgemm: {name} has {t.dim()} dimensions; wsgemm.mm takes matrices (2) or batches (3)")
    if a.dtype != b.dtype or a.dtype not in _HALF:
        raise TypeError(f"wsgemm: a and b must both be bfloat16 or both float16 (got {a.dtype} and {b.dtype})")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"wsgemm: a {tuple(a.shape)} and b {tuple(b.shape)}: inner dimensions differ")
    batches = [t.shape[0] for t in (a, b) if t.dim() == 3]
    if len(batches) == 2 and batches[0] != batches[1] and 1 not in batches:
        raise ValueError(f"wsgemm: a {tuple(a.shape)} and b {tuple(b.shape)} have different batch sizes")
    dtype = a.dtype if out_dtype is None else out_dtype
    if dtype not in _VECTOR:
        raise TypeError(f"wsgemm: out_dtype must be bfloat16, float16 or float32 (got {dtype})")
    batch = (max(batches),) if batches else ()
    return batch + (a.shape[-2], b.shape[-1]), dtype


def _has_aux(epilogue):
    return epilogue in ("gelu_aux", "gelu_aux_bias")


def _matmul_meta(a, b, bias, scales, epilogue, out_dtype):
    """(M, N, out dtype, aux dtype) of wsgemm.matmul, or TypeError / ValueError naming the argument."""
    if epilogue not in EPILOGUES:
        raise ValueError(f"wsgemm: epilogue {epilogue!r} is not one of {list(EPILOGUES)}")
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"wsgemm: {name} has {t.dim()} dimensions; wsgemm.matmul takes matrices (use wsgemm.mm "
                             "for batches)")
    pair16 = a.dtype == b.dtype and a.dtype in _HALF
    pair8 = a.dtype in _FP8 and b.dtype in _FP8 and not a.dtype == b.dtype == torch.float8_e5m2
    if not (pair16 or pair8):
        raise TypeError("wsgemm: a and b must both be bfloat16, both float16, or both float8 (not both "
                        f"float8_e5m2) (got {a.dtype} and {b.dtype})")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"wsgemm: a {tuple(a.shape)} and b {tuple(b.shape)}: inner dimensions differ")
    M, N = a.shape[0], b.shape[1]
    if ("bias" in epilogue) != (bias is not None):
        raise ValueError(f"wsgemm: epilogue {epilogue!r} " + ("needs bias" if "bias" in epilogue else "takes no bias"))
    if bias is not None:
        if bias.dim() != 1 or bias.shape[0] != N or bias.dtype not in _VECTOR:
            raise ValueError(f"wsgemm: bias must be a ({N},) bfloat16, float16 or float32 vector (got "
                             f"{tuple(bias.shape)}, {bias.dtype})")
    for name, s in scales.items():
        if s is None or (s.numel() == 1 and s.dtype == torch.float32):
            continue
        if name == "scale_d" or not pair8 or s.dtype not in _SCALE_TENSOR_DTYPES:
            raise TypeError(f"wsgemm: {name} must be a one-element float32 tensor, or (scale_a, scale_b with float8 a "
                            f"and b) a scale tensor of float32 or float8_e8m0fnu (got {tuple(s.shape)}, {s.dtype})")
    dtype = out_dtype if out_dtype is not None else (a.dtype if pair16 else torch.bfloat16)
    if dtype not in _VECTOR + (torch.float8_e4m3fn,):
        raise TypeError(f"wsgemm: out_dtype must be bfloat16, float16, float32 or float8_e4m3fn (got {dtype})")
    return M, N, dtype, (dtype if dtype in _VECTOR else torch.bfloat16)


# ---------------------------------------------------------------- the library call

def _array(t, name):
    """The _arrays.Array of a CUDA tensor, read from the tensor itself (no DLPack export: the data of a
    tensor that requires grad is used as it is, never its autograd history)."""
    if t.device.type != "cuda":
        raise TypeError(f"wsgemm: {name} is on {t.device} (wsgemm needs CUDA tensors)")
    return _arrays.Array(name, t.data_ptr(), tuple(t.shape), tuple(t.stride()), _DTYPE_NAMES[t.dtype])


def _readable(t, name):
    """t where the library can read its layout, else a contiguous copy of it: the ops take any strides, as
    torch.matmul does (autograd hands them expanded gradients with zero strides, for one)."""
    if t.dim() < 2:
        return t.contiguous()
    try:
        _layout.stored(_arrays.Array(name, 0, tuple(t.shape), tuple(t.stride()), _DTYPE_NAMES[t.dtype]), t.shape[-2],
                       t.shape[-1])
        return t
    except ValueError:
        return t.contiguous()


def _launch_cuda(a, b, out, extras, *, epilogue=None, alpha=1.0, beta=0.0, path="auto"):
    """out = alpha * a @ b + beta * out (with the extras: name -> tensor) by the library, on out's device and
    that device's current stream; counts the path that ran. Inputs in layouts the library cannot read are
    copied first; out (and aux, amax) are written where they are."""
    from . import launch, prepare  # the package's own call pipeline (wsgemm/__init__.py)
    a, b = _readable(a, "a"), _readable(b, "b")
    extras = {name: (t if name in ("aux", "amax") else _readable(t, name)) for name, t in extras.items()}
    arrays = {name: _array(t, name) for name, t in (("a", a), ("b", b), ("out", out), *extras.items())}
    for name, t in (("a", a), ("b", b), *extras.items()):
        if t.device != out.device:
            raise ValueError(f"wsgemm: {name} is on {t.device}, out on {out.device}")
    da, db, dc = arrays.pop("a"), arrays.pop("b"), arrays.pop("out")
    prepared = prepare(da, db, dc, arrays, beta=beta, epilogue=epilogue)
    with torch.cuda.device(out.device):
        stream = torch.cuda.current_stream(out.device).cuda_stream
        launch(prepared, da, dc, alpha=alpha, beta=beta, stream=stream, path=None if path == "auto" else path)
    h = _binding.handle()
    p = ctypes.c_int(-1)
    h.check(h._lib.wsgemm_get_last_path(h.ptr, ctypes.byref(p)))
    with _counts_lock:
        _counts[h._lib.wsgemm_path_name(p.value).decode()] += 1


# What the ops call to compute; the CPU tests put a torch reference here to test everything around the
# library call (autograd, compile, export, opcheck) on a machine without a GPU.
_launch = _launch_cuda


# ---------------------------------------------------------------- the ops

@torch.library.custom_op("wsgemm::mm", mutates_args=(),
                         schema="(Tensor a, Tensor b, *, float alpha=1.0, ScalarType? out_dtype=None, "
                                "str path=\"auto\") -> Tensor")
def mm(a, b, *, alpha=1.0, out_dtype=None, path="auto"):
    _check_path(path)
    shape, dtype = _mm_meta(a, b, out_dtype)
    out = torch.empty(shape, dtype=dtype, device=a.device)
    _launch(a, b, out, {}, alpha=alpha, path=path)
    return out


@mm.register_fake
def _mm_fake(a, b, *, alpha=1.0, out_dtype=None, path="auto"):
    _check_path(path)
    shape, dtype = _mm_meta(a, b, out_dtype)
    return a.new_empty(shape, dtype=dtype)


@torch.library.custom_op("wsgemm::matmul", mutates_args=(),
                         schema="(Tensor a, Tensor b, Tensor? bias=None, Tensor? scale_a=None, Tensor? scale_b=None, "
                                "Tensor? scale_d=None, *, str epilogue=\"none\", float alpha=1.0, "
                                "ScalarType? out_dtype=None, bool amax=False, str path=\"auto\") "
                                "-> (Tensor, Tensor, Tensor)")
def matmul(a, b, bias=None, scale_a=None, scale_b=None, scale_d=None, *, epilogue="none", alpha=1.0,
           out_dtype=None, amax=False, path="auto"):
    _check_path(path)
    scales = {"scale_a": scale_a, "scale_b": scale_b, "scale_d": scale_d}
    M, N, dtype, aux_dtype = _matmul_meta(a, b, bias, scales, epilogue, out_dtype)
    out = torch.empty((M, N), dtype=dtype, device=a.device)
    aux = torch.empty((M, N) if _has_aux(epilogue) else (0,), dtype=aux_dtype, device=a.device)
    amax_out = torch.empty((1,) if amax else (0,), dtype=torch.float32, device=a.device)
    extras = {name: t for name, t in scales.items() if t is not None}
    if bias is not None:
        extras["bias"] = bias
    if _has_aux(epilogue):
        extras["aux"] = aux
    if amax:
        extras["amax"] = amax_out
    _launch(a, b, out, extras, epilogue=None if epilogue == "none" else epilogue, alpha=alpha, path=path)
    return out, aux, amax_out


@matmul.register_fake
def _matmul_fake(a, b, bias=None, scale_a=None, scale_b=None, scale_d=None, *, epilogue="none", alpha=1.0,
                 out_dtype=None, amax=False, path="auto"):
    _check_path(path)
    scales = {"scale_a": scale_a, "scale_b": scale_b, "scale_d": scale_d}
    M, N, dtype, aux_dtype = _matmul_meta(a, b, bias, scales, epilogue, out_dtype)
    return (a.new_empty((M, N), dtype=dtype), a.new_empty((M, N) if _has_aux(epilogue) else (0,), dtype=aux_dtype),
            a.new_empty((1,) if amax else (0,), dtype=torch.float32))


# ---------------------------------------------------------------- autograd

def _sum_to(grad, shape):
    """grad of a broadcast operand: summed over the batch it was shared by."""
    if grad.dim() > len(shape):
        return grad.sum(0)
    if grad.dim() == 3 and grad.shape[0] != shape[0]:
        return grad.sum(0, keepdim=True)
    return grad


def _grads_ab(ctx, dz, a, b):
    """dA = dZ B^T and dB = A^T dZ (dZ already times alpha and in a's dtype) through wsgemm.mm."""
    ga = gb = None
    if ctx.needs_input_grad[0]:
        ga = _sum_to(torch.ops.wsgemm.mm(dz, b.mT), a.shape)
    if ctx.needs_input_grad[1]:
        if a.dim() == 3 and b.dim() == 2:  # b shared by the batch: one GEMM over all rows
            gb = torch.ops.wsgemm.mm(a.reshape(-1, a.shape[-1]).mT, dz.reshape(-1, dz.shape[-1]))
        else:
            gb = _sum_to(torch.ops.wsgemm.mm(a.mT, dz), b.shape)
    return ga, gb


def _mm_setup(ctx, inputs, keyword_only_inputs, output):
    a, b = inputs
    ctx.alpha = keyword_only_inputs.get("alpha", 1.0)
    ctx.save_for_backward(a, b)


def _mm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    dz = grad * ctx.alpha if ctx.alpha != 1.0 else grad
    ga, gb = _grads_ab(ctx, dz.to(a.dtype), a, b)
    return ga, gb


def _matmul_setup(ctx, inputs, keyword_only_inputs, output):
    a, b, bias, scale_a, scale_b, scale_d = inputs
    ctx.epilogue = keyword_only_inputs.get("epilogue", "none")
    ctx.alpha = keyword_only_inputs.get("alpha", 1.0)
    ctx.unsupported = a.dtype in _FP8 or any(s is not None for s in (scale_a, scale_b, scale_d))
    ctx.bias_dtype = bias.dtype if bias is not None else None
    out, aux, _ = output
    ctx.save_for_backward(a, b, bias, out if "relu" in ctx.epilogue else None,
                          aux if _has_aux(ctx.epilogue) else None)


def _matmul_backward(ctx, grad_out, grad_aux, grad_amax):
    if ctx.unsupported:
        raise NotImplementedError("wsgemm: wsgemm.matmul has no backward for float8 operands or scales")
    a, b, bias, out, aux = ctx.saved_tensors
    dz = grad_out.float()
    if "relu" in ctx.epilogue:
        dz = dz * (out > 0)
    elif "gelu" in ctx.epilogue:
        if aux is None:  # GELU's input again: the same product and bias, to fp32
            aux = torch.ops.wsgemm.matmul(a, b, bias, epilogue="bias" if bias is not None else "none",
                                          alpha=ctx.alpha, out_dtype=torch.float32)[0]
        dz = torch.ops.aten.gelu_backward(dz, aux.float(), approximate="tanh")
    if grad_aux is not None and grad_aux.numel():
        dz = dz + grad_aux.float()
    gbias = dz.sum(0).to(ctx.bias_dtype) if bias is not None and ctx.needs_input_grad[2] else None
    if ctx.alpha != 1.0:
        dz = dz * ctx.alpha
    ga, gb = _grads_ab(ctx, dz.to(a.dtype), a, b)
    return ga, gb, gbias, None, None, None


mm.register_autograd(_mm_backward, setup_context=_mm_setup)
matmul.register_autograd(_matmul_backward, setup_context=_matmul_setup)


# ---------------------------------------------------------------- wsgemm.matmul on torch tensors

def _torch_stream(stream, device):
    """A torch stream object for wsgemm.matmul's stream= (a torch stream, an int handle or an object with
    __cuda_stream__ / .cuda_stream / .ptr)."""
    if isinstance(stream, torch.cuda.Stream):
        return stream
    return torch.cuda.ExternalStream(_arrays.stream_handle(stream, None), device=device)


def matmul_from_api(a, b, out, *, alpha, beta, stream, path, epilogue, bias, aux, scale_a, scale_b, scale_c,
                    scale_d, amax):
    """wsgemm.matmul for torch tensors a and b: the ops above (so autograd, torch.compile and torch.export see
    one op), or, for out= outside compilation and autograd, the library call on out in place (no copy)."""
    extras = {"bias": bias, "aux": aux, "scale_a": scale_a, "scale_b": scale_b, "scale_c": scale_c,
              "scale_d": scale_d, "amax": amax}
    for name, t in (("out", out), *extras.items()):
        if t is not None and not isinstance(t, torch.Tensor):
            raise TypeError(f"wsgemm: {name} ({type(t).__name__}) must be a torch tensor like a and b")
    if stream is not None:
        if torch.compiler.is_compiling():
            raise NotImplementedError("wsgemm: stream= under torch.compile; use `with torch.cuda.stream(s):`")
        device = (out if out is not None else a).device
        side, current = _torch_stream(stream, device), torch.cuda.current_stream(device)
        if side != current:
            side.wait_stream(current)  # what __dlpack__(stream=) promises: the inputs' pending work first
            with torch.cuda.stream(side):
                result = matmul_from_api(a, b, out, alpha=alpha, beta=beta, stream=None, path=path, epilogue=epilogue,
                                         **extras)
            # the caching allocator: memory used on `side` is not reused before that work is done, and the
            # result (allocated on side) not before the caller's stream is done with it
            for t in (a, b, out, *extras.values()):
                if t is not None and t.is_cuda:
                    t.record_stream(side)
            if out is None and result.is_cuda:
                result.record_stream(current)
            return result
    grad = torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (a, b, *extras.values()))
    fused = epilogue is not None or any(v is not None for v in extras.values()) or a.dtype in _FP8
    if out is not None:
        if grad or out.requires_grad and torch.is_grad_enabled():
            raise RuntimeError("wsgemm: out= writes in place and has no autograd (as torch's out= functions); "
                               "call wsgemm.matmul(a, b) without out")
        if not torch.compiler.is_compiling():
            return _in_place(a, b, out, extras, alpha=alpha, beta=beta, epilogue=epilogue, path=path)
        if beta != 0.0 and (fused or out.dtype == torch.float8_e4m3fn):
            raise NotImplementedError("wsgemm: out= with beta != 0 and an epilogue, scales or FP8 under torch.compile")
    elif beta != 0.0:
        raise ValueError("wsgemm: beta != 0 reads out: pass out=")
    if scale_c is not None:
        raise NotImplementedError("wsgemm: scale_c (it scales out's old value) takes out= outside torch.compile")
    out_dtype = out.dtype if out is not None and beta == 0.0 else (torch.float32 if out is not None else None)
    if grad and epilogue in ("gelu", "gelu_bias") and aux is None:
        epilogue = epilogue.replace("gelu", "gelu_aux")  # keep GELU's input for the backward (no GEMM again)
    if not fused:
        result = torch.ops.wsgemm.mm(a, b, alpha=alpha, out_dtype=out_dtype, path=path or "auto")
    else:
        result, aux_out, amax_out = torch.ops.wsgemm.matmul(
            a, b, bias, scale_a, scale_b, scale_d, epilogue=epilogue or "none", alpha=alpha, out_dtype=out_dtype,
            amax=amax is not None, path=path or "auto")
        if aux is not None:
            if not _has_aux(epilogue):
                raise ValueError(f"wsgemm: epilogue {epilogue!r} takes no aux")
            aux.copy_(aux_out)
        if amax is not None:
            amax.copy_(amax_out.reshape(amax.shape))
    if out is None:
        return result
    out.copy_(result + beta * out if beta != 0.0 else result)
    return out


def _in_place(a, b, out, extras, *, alpha, beta, epilogue, path):
    """out = alpha * a @ b + beta * out by the library, in out's memory, on the current stream."""
    given = {name: t for name, t in extras.items() if t is not None}
    if epilogue is not None and (epilogue not in _binding.EPILOGUES):
        raise ValueError(f"wsgemm: epilogue {epilogue!r} is not one of {sorted(k for k in _binding.EPILOGUES if k)}")
    _launch(a, b, out, given, epilogue=epilogue, alpha=alpha, beta=beta, path=path or "auto")
    return out
