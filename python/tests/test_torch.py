"""The Python module on PyTorch tensors (DLPack: PyTorch's only protocol for bfloat16) and, where
installed, CuPy arrays (__cuda_array_interface__), against a float64 reference on the GPU. Skipped
without torch or a GPU."""
import unittest

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except ImportError:
    HAVE_TORCH = False

import wsgemm

ROUNDING = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 0.0}


def uniform(shape, dtype, gen):
    return (torch.rand(shape, generator=gen, device="cuda", dtype=torch.float32) * 2 - 1).to(dtype)


@unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
class TorchTest(unittest.TestCase):
    def setUp(self):
        self.gen = torch.Generator(device="cuda").manual_seed(3)

    def expect_close(self, got, a, b, alpha=1.0, beta=0.0, c0=None, what=""):
        want = alpha * (a.double() @ b.double())
        if c0 is not None:
            want = want + beta * c0.double()
        mag = abs(alpha) * (a.double().abs() @ b.double().abs())
        k = a.shape[-1]
        tol = ROUNDING[str(got.dtype).split(".")[1]] * want.abs() + k * 2.0**-23 * mag + 1e-30
        bad = ~((got.double() - want).abs() <= tol)
        self.assertFalse(bool(bad.any()), f"{what}: {int(bad.sum())} of {bad.numel()} elements wrong")

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
        with self.assertRaisesRegex(TypeError, "a is in CPU"):
            wsgemm.matmul(a.cpu(), b)
        with self.assertRaisesRegex(TypeError, "DLPack dtype"):
            wsgemm.matmul(a.double(), b.double())
        with self.assertRaisesRegex(ValueError, "one of the last two must be 1"):
            wsgemm.matmul(uniform((16, 64), torch.bfloat16, self.gen)[:, ::2], b)
        with self.assertRaisesRegex(ValueError, "inner dimensions"):
            wsgemm.matmul(a, a)


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
