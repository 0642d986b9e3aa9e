# SPDX-License-Identifier: MIT
"""The Python module on PyTorch tensors (through torch.ops.wsgemm) and, where installed, CuPy arrays
(__cuda_array_interface__), against float64 / float32 references on the GPU; the torch ops under opcheck,
autograd, torch.compile, torch.export, CUDA graph capture and side streams; the MLP acceptance check
(mlp_check.py). Every test asserts that the library ran on one of its own paths. Skipped without torch or a
GPU."""
import os
import subprocess
import sys
import unittest

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except ImportError:
    HAVE_TORCH = False

import wsgemm

if HAVE_TORCH:
    import torch_reference as tr
    from wsgemm import torch_ops

WSGEMM_PATHS = {"generic", "sm90", "sm100", "sm100-emulated"}
ROUNDING = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 0.0}


def uniform(shape, dtype, gen):
    return (torch.rand(shape, generator=gen, device="cuda", dtype=torch.float32) * 2 - 1).to(dtype)


@unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
class TorchTest(unittest.TestCase):
    def setUp(self):
        self.gen = torch.Generator(device="cuda").manual_seed(3)
        torch_ops.reset_path_counts()

    def expect_close(self, got, a, b, alpha=1.0, beta=0.0, c0=None, what=""):
        want = alpha * (a.double() @ b.double())
        if c0 is not None:
            want = want + beta * c0.double()
        mag = abs(alpha) * (a.double().abs() @ b.double().abs())
        k = a.shape[-1]
        tol = ROUNDING[str(got.dtype).split(".")[1]] * want.abs() + k * 2.0**-23 * mag + 1e-30
        bad = ~((got.double() - want).abs() <= tol)
        self.assertFalse(bool(bad.any()), f"{what}: {int(bad.sum())} of {bad.numel()} elements wrong")
        assert_wsgemm_ran(self)

    def test_row_major_bf16_allocates_out(self):
        a, b = uniform((129, 64), torch.bfloat16, self.gen), uniform((64, 77), torch.bfloat16, self.gen)
        c = wsgemm.matmul(a, b)
        self.assertIsInstance(c, torch.Tensor)
        self.assertEqual((c.shape, c.dtype, c.device.type), ((129, 77), torch.bfloat16, "cuda"))
        self.expect_close(c, a, b, what="row-major bf16")

    def test_transposed_views_and_column_major(self):
        a_t = uniform((64, 129), torch.bfloat16, self.gen)            # a = a_t.t(): a transposed view
        b_f = uniform((77, 64), torch.bfloat16, self.gen).t()         # column-major b (a view, no copy)
        out = torch.full((77, 129), float("nan"), dtype=torch.float32, device="cuda").t()  # column-major out
        ptr = out.data_ptr()
        wsgemm.matmul(a_t.t(), b_f, out)
        self.assertEqual(out.data_ptr(), ptr)
        self.expect_close(out, a_t.t(), b_f, what="views")

    def test_fp16_to_fp32_alpha_beta(self):
        a, b = uniform((96, 48), torch.float16, self.gen), uniform((48, 40), torch.float16, self.gen)
        c0 = uniform((96, 40), torch.float32, self.gen)
        out = c0.clone()
        wsgemm.matmul(a, b, out, alpha=0.25, beta=-1.0)
        self.expect_close(out, a, b, 0.25, -1.0, c0, what="fp16 -> fp32, alpha/beta")

    def test_batched(self):
        a, b = uniform((4, 33, 64), torch.bfloat16, self.gen), uniform((64, 21), torch.bfloat16, self.gen)
        c = wsgemm.matmul(a, b)
        self.assertEqual(c.shape, (4, 33, 21))
        self.expect_close(c, a, b, what="batched, shared b")

    def test_caller_stream(self):
        a, b = uniform((256, 128), torch.bfloat16, self.gen), uniform((128, 192), torch.bfloat16, self.gen)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):                       # the current stream: picked up without stream=
            c1 = wsgemm.matmul(a, b)
        c2 = torch.empty((256, 192), dtype=torch.bfloat16, device="cuda")
        c2.fill_(float("nan"))
        wsgemm.matmul(a, b, c2, stream=s)                # explicit stream object (.cuda_stream)
        s.synchronize()
        self.expect_close(c1, a, b, what="current stream")
        self.expect_close(c2, a, b, what="explicit stream")

    def test_errors(self):
        a, b = uniform((16, 32), torch.bfloat16, self.gen), uniform((32, 8), torch.bfloat16, self.gen)
        with self.assertRaisesRegex(TypeError, "a is on cpu"):
            wsgemm.matmul(a.cpu(), b.cpu())
        with self.assertRaisesRegex(TypeError, "a is in CPU"):  # mixed frameworks: the DLPack path
            wsgemm.matmul(a.cpu(), FakeCudaArray())
        with self.assertRaisesRegex(TypeError, "must both be bfloat16 or both float16"):
            wsgemm.matmul(a.double(), b.double())
        # a view with no unit stride cannot be read by the library; as torch does, it is computed from a copy
        # (CUDA arrays of other frameworks are refused: test_cpu's "one of the last two must be 1")
        strided = uniform((16, 64), torch.bfloat16, self.gen)[:, ::2]
        self.expect_close(wsgemm.matmul(strided, b), strided, b, what="a view with no unit stride")
        with self.assertRaisesRegex(ValueError, "inner dimensions"):
            wsgemm.matmul(a, a)


class FakeCudaArray:
    """A CUDA array of another framework, as far as __cuda_array_interface__ goes (never dereferenced)."""
    dtype = "bfloat16"
    __cuda_array_interface__ = dict(shape=(32, 8), typestr="<V2", data=(0x7F0000000000, False), version=3)


def assert_wsgemm_ran(test, at_least=1):
    """The library ran (the ops count its calls by path) on its own paths: nothing fell back to torch."""
    counts = torch_ops.path_counts()
    test.assertGreaterEqual(sum(counts.values()), at_least, f"library calls by path: {counts}")
    test.assertFalse(set(counts) - WSGEMM_PATHS, f"library calls by path: {counts}")


@unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
class GroupedTorchTest(unittest.TestCase):
    """wsgemm.grouped_mm on torch tensors against a float64 reference and, where this torch has it,
    torch._grouped_mm (bf16, 2-D x 3-D); out starts as NaN and rows past offs[-1] must stay NaN."""

    def setUp(self):
        self.gen = torch.Generator(device="cuda").manual_seed(5)

    def test_contiguous(self):
        G, K, N, tokens = 6, 64, 48, 200
        ends = [0, 40, 41, 120, 120, 184]  # an empty first group, one of 1 row; rows 184.. untouched
        a = uniform((tokens, K), torch.bfloat16, self.gen)
        for transposed in (False, True):
            b = uniform((G, N, K), torch.bfloat16, self.gen).transpose(1, 2) if transposed else \
                uniform((G, K, N), torch.bfloat16, self.gen)
            offs = torch.tensor(ends, dtype=torch.int32, device="cuda")
            out = torch.full((tokens, N), float("nan"), dtype=torch.bfloat16, device="cuda")
            self.assertIs(wsgemm.grouped_mm(a, b, offs=offs, out=out), out)
            torch.cuda.synchronize()
            begin = 0
            for g, end in enumerate(ends):
                want = a[begin:end].double() @ b[g].double()
                mag = a[begin:end].double().abs() @ b[g].double().abs()
                err = (out[begin:end].double() - want).abs()
                self.assertTrue(bool((err <= ROUNDING["bfloat16"] * want.abs() + K * 2.0**-23 * mag + 1e-30).all()),
                                f"group {g} (b transposed {transposed}): max error {err.max().item() if err.numel() else 0}")
                begin = end
            self.assertTrue(bool(out[ends[-1]:].isnan().all()), "rows past the last offset were written")
            if hasattr(torch, "_grouped_mm"):
                try:
                    ref = torch._grouped_mm(a, b, offs=offs)
                except (RuntimeError, NotImplementedError):  # a torch or GPU that does not take the case
                    continue
                got, ref = out[:ends[-1]].float(), ref[:ends[-1]].float()
                diff = (got - ref).abs().max().item()
                self.assertLessEqual(diff, 4 * ROUNDING["bfloat16"] * max(ref.abs().max().item(), 1.0))

    def test_masked(self):
        G, cap, K, N = 4, 32, 40, 24
        counts = torch.tensor([32, 0, 5, 17], dtype=torch.int32, device="cuda")
        a = uniform((G, cap, K), torch.float16, self.gen)
        b = uniform((G, K, N), torch.float16, self.gen)
        out = torch.full((G, cap, N), float("nan"), dtype=torch.float32, device="cuda")
        wsgemm.grouped_mm(a, b, counts=counts, out=out)
        torch.cuda.synchronize()
        for g, c in enumerate(counts.tolist()):
            want = a[g, :c].double() @ b[g].double()
            mag = a[g, :c].double().abs() @ b[g].double().abs()
            err = (out[g, :c].double() - want).abs()
            self.assertTrue(bool((err <= K * 2.0**-23 * mag + 1e-30).all()), f"group {g}")
            self.assertTrue(bool(out[g, c:].isnan().all()), f"group {g}: rows past its count were written")


@unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
def _expand_scales(s, rows, k, block_rows, block_k, rows_fastest):
    """A (rows, k) float64 matrix holding each element's scale from a scale tensor of torch._scaled_mm's
    layouts, read through its strides (s[r // block_rows, l // block_k] in its logical shape)."""
    r = torch.arange(rows, device=s.device) // block_rows
    c = torch.arange(k, device=s.device) // block_k
    v = s.double() if s.dtype == torch.float32 else torch.where(
        s.view(torch.uint8) == 255, torch.nan, torch.exp2(s.view(torch.uint8).double() - 127))
    return v[r][:, c] if rows_fastest else v[c][:, r].t()


@unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
class BlockScaledTest(unittest.TestCase):
    """torch.ops.wsgemm.matmul with scale tensors (docs/api.md, "Block-scaled FP8") against a float64
    reference of the same arithmetic; the path that takes them must run them (path counts): on a 9.0 device the
    sm90 block-scaled kernels for E4M3 operands with float scales, else the generic path."""

    def setUp(self):
        self.gen = torch.Generator(device="cuda").manual_seed(11)
        torch_ops.reset_path_counts()

    def check(self, a8, bt8, sa_full, sb_full, got, what, float_scales=True):
        """a8 (M, K) and bt8 = b^T (N, K) with each element's scale in sa_full (M, K) and sb_full (N, K). The sm90
        kernels' block sums are FP8 tensor-core sums, with fewer bits than fp32: 2^-10 of the magnitude for them."""
        sm90 = float_scales and torch.cuda.get_device_capability() == (9, 0)
        a, bt = a8.float().double() * sa_full, bt8.float().double() * sb_full
        want, mag = a @ bt.t(), a.abs() @ bt.abs().t()
        tol = 2.0**-8 * want.abs() + (2.0**-10 if sm90 else 2.0**-16) * mag + 1e-30
        bad = ~((got.double() - want).abs() <= tol)
        self.assertFalse(bool(bad.any()), f"{what}: {int(bad.sum())} of {bad.numel()} elements wrong")
        counts = torch_ops.path_counts()
        path = "sm90" if sm90 else "generic"
        self.assertGreaterEqual(counts.get(path, 0), 1, f"{what}: the {path} path did not run: {counts}")

    def test_deepseek_1x128_with_128x128(self):
        for M, N, K in ((256, 384, 512), (200, 130, 300)):
            kb = -(-K // 128)
            a8 = uniform((M, K), torch.float8_e4m3fn, self.gen)
            b8 = uniform((N, K), torch.float8_e4m3fn, self.gen).t()  # (K, N) column-major, as torch._scaled_mm
            sa = (torch.rand((kb, M), generator=self.gen, device="cuda") + 0.5).t()  # (M, kb), strides (1, M)
            sb = (torch.rand((-(-N // 128), kb), generator=self.gen, device="cuda") + 0.5).t()  # (kb, nb), (1, kb)
            out, _, _ = torch.ops.wsgemm.matmul(a8, b8, None, sa, sb, out_dtype=torch.float32)
            torch.cuda.synchronize()
            self.check(a8, b8.t(), _expand_scales(sa, M, K, 1, 128, True),
                       _expand_scales(sb.t(), N, K, 128, 128, True), out, f"1x128 x 128x128 M={M} N={N} K={K}")

    def test_rowwise_matches_scaled_mm(self):
        M, N, K = 256, 320, 512
        a8 = uniform((M, K), torch.float8_e4m3fn, self.gen)
        b8 = uniform((N, K), torch.float8_e4m3fn, self.gen).t()
        sa = torch.rand((M, 1), generator=self.gen, device="cuda") + 0.5
        sb = torch.rand((1, N), generator=self.gen, device="cuda") + 0.5
        out, _, _ = torch.ops.wsgemm.matmul(a8, b8, None, sa, sb, out_dtype=torch.bfloat16)
        torch.cuda.synchronize()
        self.check(a8, b8.t(), sa.double().expand(M, K), sb.double().t().expand(N, K), out, "rowwise")
        try:
            ref = torch._scaled_mm(a8, b8, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        except (RuntimeError, TypeError) as e:  # this torch or device has no rowwise _scaled_mm
            print(f"torch._scaled_mm rowwise not available here ({e}); the float64 reference alone decides")
            return
        err = (out.double() - ref.double()).abs().max().item()
        self.assertLessEqual(err, 2.0**-6 * ref.double().abs().max().item(), "rowwise vs torch._scaled_mm")

    @unittest.skipUnless(hasattr(torch, "float8_e8m0fnu"), "torch without float8_e8m0fnu")
    def test_mx_ue8m0(self):
        M, N, K = 130, 200, 256
        a8 = uniform((M, K), torch.float8_e4m3fn, self.gen)
        b8 = uniform((N, K), torch.float8_e4m3fn, self.gen).t()
        ea = torch.randint(120, 135, (K // 32, M), generator=self.gen, device="cuda", dtype=torch.uint8)
        eb = torch.randint(120, 135, (K // 32, N), generator=self.gen, device="cuda", dtype=torch.uint8)
        ea[0, 0], ea[1, 1], ea[2, 2] = 0, 254, 127
        # the block factor is formed in fp32 (docs/api.md): 2^127 times B's 2^(e - 127) times a block sum of up to
        # 32 stays finite with e <= 118 in that block
        eb[1] = eb[1].clamp(max=118)
        sa = ea.view(torch.float8_e8m0fnu).t()  # (M, K/32), strides (1, M)
        sb = eb.view(torch.float8_e8m0fnu)  # (K/32, N), contiguous
        out, _, _ = torch.ops.wsgemm.matmul(a8, b8, None, sa, sb, out_dtype=torch.float32)
        torch.cuda.synchronize()
        self.check(a8, b8.t(), _expand_scales(sa, M, K, 1, 32, True), _expand_scales(sb.t(), N, K, 1, 32, True),
                   out, "MX", float_scales=False)

    def test_bad_layout_is_refused(self):
        a8 = uniform((128, 256), torch.float8_e4m3fn, self.gen)
        b8 = uniform((64, 256), torch.float8_e4m3fn, self.gen).t()
        sa = torch.ones((128, 2), device="cuda")  # contiguous: not the (1, M) strides of 1 x 128 scales
        sb = torch.ones((2, 1), device="cuda")
        with self.assertRaises(ValueError):
            torch.ops.wsgemm.matmul(a8, b8, None, sa, sb)


class TorchOpsTest(unittest.TestCase):
    """torch.ops.wsgemm.mm / .matmul as PyTorch sees them."""

    def setUp(self):
        self.gen = torch.Generator(device="cuda").manual_seed(5)
        torch_ops.reset_path_counts()

    def u(self, *shape, dtype=torch.bfloat16 if HAVE_TORCH else None, grad=False):
        return tr.uniform(shape, dtype, self.gen, "cuda", grad)

    def close(self, got, want, tol, what):
        err = tr.relative_error(got, want)
        self.assertLess(err, tol, f"{what}: relative error {err:.3e}")

    def test_opcheck(self):
        a, b, bias = self.u(96, 64, grad=True), self.u(64, 80, grad=True), self.u(80, grad=True)
        h16 = [self.u(64, 48, dtype=torch.float16, grad=True), self.u(48, 32, dtype=torch.float16, grad=True),
               self.u(32, dtype=torch.float16, grad=True)]
        scale = torch.full((1,), 0.5, device="cuda")
        cases = [(torch.ops.wsgemm.mm.default, (a, b), {}),
                 (torch.ops.wsgemm.mm.default, (a, b), {"alpha": -0.5, "out_dtype": torch.float32}),
                 (torch.ops.wsgemm.mm.default, (self.u(3, 96, 64, grad=True), b), {}),
                 (torch.ops.wsgemm.mm.default, (h16[0], h16[1]), {}),
                 (torch.ops.wsgemm.matmul.default, (h16[0], h16[1], h16[2]), {"epilogue": "gelu_bias"}),
                 (torch.ops.wsgemm.matmul.default, (a.detach().to(torch.float8_e4m3fn),
                                                    b.detach().to(torch.float8_e4m3fn), None, scale, scale), {})]
        for epilogue in torch_ops.EPILOGUES:
            cases.append((torch.ops.wsgemm.matmul.default, (a, b, bias if "bias" in epilogue else None),
                          {"epilogue": epilogue}))
        for i, (op, args, kwargs) in enumerate(cases):
            # test_schema compares the inputs before and after with arithmetic torch lacks for float8; the
            # same op's schema is tested by the other cases
            utils = ("test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic") if i == 5 else \
                ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
            result = torch.library.opcheck(op, args, kwargs, test_utils=utils, raise_exception=False)
            self.assertEqual(set(result.values()), {"SUCCESS"}, f"{op} {kwargs}: {result}")
        assert_wsgemm_ran(self, len(cases))

    def test_output_dtypes(self):
        a, b, bias = self.u(64, 32, dtype=torch.float16), self.u(32, 48, dtype=torch.float16), \
            self.u(48, dtype=torch.float16)
        y = wsgemm.matmul(a, b, epilogue="gelu_bias", bias=bias)          # fp16 in: fp16 out
        self.assertEqual(y.dtype, torch.float16)
        want = torch.nn.functional.gelu(a.float() @ b.float() + bias.float(), approximate="tanh")
        self.close(y, want, 4e-3, "fp16 gelu_bias")  # fp16 rounding and tanh.approx, 2^-11 each
        self.assertEqual(torch.ops.wsgemm.mm(a, b, out_dtype=torch.float32).dtype, torch.float32)
        self.assertEqual(wsgemm.matmul(a.bfloat16(), b.bfloat16()).dtype, torch.bfloat16)
        a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
        y8 = wsgemm.matmul(a8, b8)
        self.assertEqual(y8.dtype, torch.bfloat16)                         # FP8 in: bf16 unless out_dtype
        self.close(y8, a8.float() @ b8.float(), 1e-2, "fp8")
        assert_wsgemm_ran(self, 4)

    def test_requires_grad_and_gradients_match_torch(self):
        for epilogue in ("none", "bias", "relu_bias", "gelu", "gelu_bias", "gelu_aux_bias"):
            a, b = self.u(128, 96, grad=True), self.u(96, 64, grad=True)
            bias = torch.nn.Parameter(self.u(64)) if "bias" in epilogue else None
            torch_ops.reset_path_counts()
            y = torch.ops.wsgemm.matmul(a, b, bias, epilogue=epilogue, alpha=0.5)[0]
            f = [t.detach().float().requires_grad_() for t in (a, b)]
            fb = bias.detach().float().requires_grad_() if bias is not None else None
            z = 0.5 * (f[0] @ f[1]) + (fb if fb is not None else 0)
            want = torch.relu(z) if "relu" in epilogue else \
                torch.nn.functional.gelu(z, approximate="tanh") if "gelu" in epilogue else z
            g = self.u(128, 64)
            y.backward(g)
            want.backward(g.float())
            self.close(y, want, 1e-2, f"{epilogue} out")
            for mine, ref, what in ((a.grad, f[0].grad, "dA"), (b.grad, f[1].grad, "dB")) + \
                    (((bias.grad, fb.grad, "dbias"),) if bias is not None else ()):
                self.close(mine, ref, 2e-2, f"{epilogue} {what}")
            assert_wsgemm_ran(self, 3)
        a3, b2 = self.u(4, 32, 64, grad=True), self.u(64, 16, grad=True)   # batched, b shared
        y = wsgemm.matmul(a3, b2)
        f = [t.detach().float().requires_grad_() for t in (a3, b2)]
        g = self.u(4, 32, 16)
        y.backward(g)
        (f[0] @ f[1]).backward(g.float())
        self.close(a3.grad, f[0].grad, 2e-2, "batched dA")
        self.close(b2.grad, f[1].grad, 2e-2, "batched dB")

    def test_compile_fullgraph(self):
        x, w = self.u(256, 128), torch.nn.Parameter(self.u(192, 128))
        f = torch.compile(lambda x, y: wsgemm.matmul(x, y) * 2, fullgraph=True)
        self.close(f(x, w.mT), 2 * (x.float() @ w.float().mT), 1e-2, "compiled")
        layer = torch.compile(lambda x, w, b: wsgemm.matmul(x, w.mT, epilogue="gelu_bias", bias=b), fullgraph=True)
        b = torch.nn.Parameter(self.u(192))
        layer(x, w, b).float().sum().backward()
        self.assertEqual((w.grad.shape, b.grad.shape), (w.shape, b.shape))
        assert_wsgemm_ran(self, 3)

    def test_export(self):
        class Layer(torch.nn.Module):
            def __init__(self, w, b):
                super().__init__()
                self.w, self.b = torch.nn.Parameter(w), torch.nn.Parameter(b)

            def forward(self, x):
                return wsgemm.matmul(x, self.w.mT, epilogue="relu_bias", bias=self.b)
        layer, x = Layer(self.u(96, 64), self.u(96)), self.u(32, 64)
        program = torch.export.export(layer, (x,))
        ops = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
        self.assertIn("wsgemm.matmul.default", ops)
        want = torch.relu(x.float() @ layer.w.float().mT + layer.b.float())
        self.close(program.module()(x), want, 1e-2, "exported")
        assert_wsgemm_ran(self)

    def test_cuda_graph_capture_cold(self):
        # a fresh process: the first library call of all is the captured one
        code = """
import json, torch, wsgemm
from wsgemm import torch_ops
a = torch.rand(256, 128, device="cuda").bfloat16(); b = torch.rand(128, 192, device="cuda").bfloat16()
bias = torch.rand(192, device="cuda").bfloat16()
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    c = wsgemm.matmul(a, b)
    d = wsgemm.matmul(a, b, epilogue="gelu_bias", bias=bias)
counts = torch_ops.path_counts()
a.copy_(torch.rand(256, 128, device="cuda") * 2 - 1)
c.fill_(float("nan")); d.fill_(float("nan"))
graph.replay(); graph.replay()
torch.cuda.synchronize()
e1 = ((c.float() - a.float() @ b.float()).norm() / (a.float() @ b.float()).norm()).item()
ref = torch.nn.functional.gelu(a.float() @ b.float() + bias.float(), approximate="tanh")
e2 = ((d.float() - ref).norm() / ref.norm()).item()
print(json.dumps(dict(calls=sum(counts.values()), paths=sorted(counts), e1=e1, e2=e2)))
"""
        package = os.path.dirname(os.path.dirname(os.path.abspath(wsgemm.__file__)))
        env = dict(os.environ, PYTHONPATH=package + os.pathsep + os.environ.get("PYTHONPATH", ""))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        import json
        got = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(got["calls"], 2, r.stdout)                 # counted once, at capture
        self.assertTrue(got["paths"] and not set(got["paths"]) - WSGEMM_PATHS, r.stdout)
        self.assertLess(got["e1"], 1e-2, r.stdout)                  # NaN fails too
        self.assertLess(got["e2"], 1e-2, r.stdout)

    def test_side_streams(self):
        a, b = self.u(512, 256), self.u(256, 384)
        want = a.float() @ b.float()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):                     # the op runs on the current stream: s
            c1 = torch.ops.wsgemm.mm(a, b)
            c2 = wsgemm.matmul(a, b, epilogue="relu")
        s.synchronize()
        self.close(c1, want, 1e-2, "mm on a side stream")
        self.close(c2, torch.relu(want), 1e-2, "matmul on a side stream")
        for stream in (s, s.cuda_stream):               # stream= as an object and as an int handle
            out = torch.full((512, 384), float("nan"), dtype=torch.bfloat16, device="cuda")
            c3 = wsgemm.matmul(a, b, stream=stream)
            wsgemm.matmul(a, b, out=out, stream=stream)
            s.synchronize()
            self.close(c3, want, 1e-2, f"stream={type(stream).__name__}")
            self.close(out, want, 1e-2, f"out=, stream={type(stream).__name__}")
        assert_wsgemm_ran(self, 6)

    def test_out_in_place(self):
        a, b = self.u(128, 64), self.u(64, 96)
        out = torch.full((128, 96), float("nan"), device="cuda")
        c0 = self.u(128, 96, dtype=torch.float32)
        out.copy_(c0)
        ptr = out.data_ptr()
        wsgemm.matmul(a, b, out=out, alpha=2.0, beta=-1.0)
        self.assertEqual(out.data_ptr(), ptr)
        self.close(out, 2 * (a.float() @ b.float()) - c0, 1e-5, "out=, beta")
        with self.assertRaisesRegex(RuntimeError, "out= writes in place"):
            wsgemm.matmul(a.requires_grad_(), b, out=out)
        assert_wsgemm_ran(self)

    def test_mlp_acceptance(self):
        import mlp_check
        failures = mlp_check.run(log=lambda line: None)
        self.assertEqual(failures, [])


try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # ImportError, or no driver
    HAVE_CUPY = False


@unittest.skipUnless(HAVE_CUPY, "cupy with a GPU is not available")
class CupyTest(unittest.TestCase):
    def test_fp16_row_major_and_views(self):
        rng = cupy.random.default_rng(5)
        a = (rng.random((70, 48), dtype=cupy.float32) * 2 - 1).astype(cupy.float16)
        b = (rng.random((30, 48), dtype=cupy.float32) * 2 - 1).astype(cupy.float16).T   # a transposed view
        c = wsgemm.matmul(a, b)
        self.assertIsInstance(c, cupy.ndarray)
        want = a.astype(cupy.float64) @ b.astype(cupy.float64)
        mag = cupy.abs(a.astype(cupy.float64)) @ cupy.abs(b.astype(cupy.float64))
        tol = 2.0**-11 * cupy.abs(want) + 48 * 2.0**-23 * mag + 1e-30
        self.assertTrue(bool((cupy.abs(c.astype(cupy.float64) - want) <= tol).all()))


if __name__ == "__main__":
    unittest.main()
