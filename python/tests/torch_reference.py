# SPDX-License-Identifier: MIT
"""Helpers of the torch tests: a reference of the library call (in float64 with torch, on any device) that the
CPU tests put where torch_ops calls the library, so that everything around the call (the ops' schemas, fakes,
autograd, torch.compile, torch.export, opcheck) is tested on a machine without a GPU; and the tolerance
check the CPU and GPU tests share."""
import contextlib

import torch
import torch.nn.functional as F

from wsgemm import torch_ops


def reference_launch(a, b, out, extras, *, epilogue=None, alpha=1.0, beta=0.0, path="auto"):
    """What the library computes (docs/api.md, "Matmul"), on torch tensors, into out / aux / amax."""
    z = alpha * (a.double() @ b.double())
    for name in ("scale_a", "scale_b"):
        if name in extras:
            z = z * extras[name].double()
    if beta != 0.0:
        z = z + beta * out.double()
    if "bias" in extras:
        z = z + extras["bias"].double()
    if "aux" in extras:
        extras["aux"].copy_(z)
    act = epilogue or ""
    y = F.relu(z) if "relu" in act else F.gelu(z, approximate="tanh") if "gelu" in act else z
    if "amax" in extras:
        extras["amax"].fill_(y.abs().max() if y.numel() else 0.0)
    if "scale_d" in extras:
        y = y * extras["scale_d"].double()
    out.copy_(y)
    with torch_ops._counts_lock:
        torch_ops._counts["reference"] += 1


@contextlib.contextmanager
def reference_kernel():
    """torch_ops computes with reference_launch inside the block (the CPU tests)."""
    saved = torch_ops._launch
    torch_ops._launch = reference_launch
    try:
        yield
    finally:
        torch_ops._launch = saved


def uniform(shape, dtype, gen, device, requires_grad=False):
    t = (torch.rand(shape, generator=gen, device=device, dtype=torch.float32) * 2 - 1).to(dtype)
    return t.requires_grad_(requires_grad)


def relative_error(got, want):
    """|got - want| / |want| in the Frobenius norm, in float64; NaN or inf in got gives inf."""
    got, want = got.detach().double(), want.detach().double()
    if not bool(torch.isfinite(got).all()):
        return float("inf")
    return float((got - want).norm() / want.norm().clamp_min(1e-30))
