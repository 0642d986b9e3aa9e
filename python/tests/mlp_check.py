#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The acceptance check of wsgemm's torch ops: one MLP layer, y = gelu(x W1^T + b1) W2^T + b2, in bfloat16
through torch.ops.wsgemm (the GELU-and-bias epilogue fused into the first GEMM, the bias into the second),
forward and backward under torch.compile(fullgraph=True), against torch in float32 on the same bf16 values.

    python3 python/tests/mlp_check.py            # after `pip install ./python`, or with python/ on sys.path

Checks: torch.library.opcheck of both ops on the layer's shapes; the compiled layer's output and the
gradients of x, W1, b1, W2, b2 within 1e-2 (output) and 2e-2 (gradients) relative Frobenius error of torch's;
the same through eager autograd; every GEMM ran on a wsgemm kernel path (torch_ops.path_counts()), none
on torch. Exit 0 pass, 1 fail, 77 without torch or a GPU.
"""
import sys

FORWARD_TOL, GRAD_TOL = 1e-2, 2e-2
SKIP = 77


def mlp(x, w1, b1, w2, b2):
    import torch
    h = torch.ops.wsgemm.matmul(x, w1.mT, b1, epilogue="gelu_bias")[0]
    return torch.ops.wsgemm.matmul(h, w2.mT, b2, epilogue="bias")[0]


def reference(x, w1, b1, w2, b2):
    import torch
    f = [t.detach().float().requires_grad_() for t in (x, w1, b1, w2, b2)]
    h = torch.nn.functional.gelu(f[0] @ f[1].mT + f[2], approximate="tanh")
    return h @ f[3].mT + f[4], f


def run(tokens=512, d_model=256, d_hidden=1024, seed=0, log=print):
    """Returns a list of failure messages (empty: pass)."""
    import torch
    import wsgemm  # noqa: F401  (registers torch.ops.wsgemm)
    from wsgemm import torch_ops
    from torch_reference import relative_error
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def uniform(*shape, scale=1.0):
        t = (torch.rand(shape, generator=gen, device="cuda") * 2 - 1) * scale
        return t.to(torch.bfloat16).requires_grad_()

    x = uniform(tokens, d_model)
    w1, b1 = uniform(d_hidden, d_model, scale=d_model**-0.5), uniform(d_hidden)
    w2, b2 = uniform(d_model, d_hidden, scale=d_hidden**-0.5), uniform(d_model)
    params = (x, w1, b1, w2, b2)
    failures = []

    for op, args, kwargs in ((torch.ops.wsgemm.matmul.default, (x, w1.mT, b1), {"epilogue": "gelu_bias"}),
                             (torch.ops.wsgemm.matmul.default, (x, w1.mT, b1), {"epilogue": "gelu_aux_bias"}),
                             (torch.ops.wsgemm.matmul.default, (uniform(tokens, d_hidden), w2.mT, b2),
                              {"epilogue": "bias"}),
                             (torch.ops.wsgemm.mm.default, (x, w1.mT), {})):
        result = torch.library.opcheck(op, args, kwargs, raise_exception=False)
        bad = {k: v for k, v in result.items() if v != "SUCCESS"}
        if bad:
            failures.append(f"opcheck {op} {kwargs}: {bad}")

    g = torch.rand((tokens, d_model), generator=gen, device="cuda").to(torch.bfloat16)
    want, f = reference(*params)
    want.backward(g.float())
    for name, layer in (("eager", mlp), ("compiled", torch.compile(mlp, fullgraph=True))):
        for t in params:
            t.grad = None
        torch_ops.reset_path_counts()
        y = mlp(*params) if name == "eager" else layer(*params)
        y.backward(g)
        torch.cuda.synchronize()
        counts = torch_ops.path_counts()
        err = relative_error(y, want)
        log(f"{name}: output relative error {err:.2e} (tolerance {FORWARD_TOL}); library calls by path {counts}")
        if not err < FORWARD_TOL:
            failures.append(f"{name}: output relative error {err:.3e} >= {FORWARD_TOL}")
        for pname, mine, ref in zip(("x", "W1", "b1", "W2", "b2"), params, f):
            gerr = relative_error(mine.grad, ref.grad) if mine.grad is not None else float("inf")
            log(f"{name}: d{pname} relative error {gerr:.2e} (tolerance {GRAD_TOL})")
            if not gerr < GRAD_TOL:
                failures.append(f"{name}: d{pname} relative error {gerr:.3e} >= {GRAD_TOL}")
        # forward: 2 fused matmuls; backward: dX, dW1 (and GELU's input again, unless the aux was kept) and
        # dH, dW2: at least 6 library calls, all on wsgemm's own paths
        calls = sum(counts.values())
        if calls < 6 or set(counts) - {"generic", "sm90", "sm100", "sm100-emulated"}:
            failures.append(f"{name}: library calls by path {counts}: expected at least 6, on wsgemm paths only")
    return failures


def main():
    try:
        import torch
    except ImportError:
        print("SKIPPED: torch is not installed")
        return SKIP
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device")
        return SKIP
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    failures = run()
    for f in failures:
        print("FAIL: " + f)
    print("PASS" if not failures else f"FAIL: {len(failures)} checks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
