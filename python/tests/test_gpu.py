# SPDX-License-Identifier: MIT
"""GPU tests of the Python module without any array library: operands are tests/device_array.py
arrays (cudaMalloc through ctypes, __cuda_array_interface__ v3), results compared with a NumPy float64
reference. Outputs are NaN-poisoned before a beta = 0 call; NaN never passes. Skipped without a GPU."""
import ctypes
import itertools
import threading
import unittest

import numpy as np

import wsgemm
from device_array import HOST_FN, Buffer, DeviceArray, as_float64, check, cudart, gpu_count, host_values

HAVE_GPU = gpu_count() > 0
ROUNDING = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 0.0}  # one ulp of the output, relative


def empty(dtype, shape, order, pad=0):
    """An uninitialised device array of logical `shape`: order 'C', 'F', or 'CT' / 'FT' (the transposed
    view of an array of the transposed shape in that order)."""
    if order.endswith("T"):
        return DeviceArray.empty(shape[:-2] + shape[-2:][::-1], dtype, order[0], pad).T
    return DeviceArray.empty(shape, dtype, order, pad)


def operand(dtype, shape, order, rng, pad=0):
    """empty() filled with uniform [-1, 1] values: (device array, their float64 values)."""
    host, values = host_values(dtype, rng, shape)
    return empty(dtype, shape, order, pad).fill_bytes(0).copy_from(host), values


def expect_close(test, got, want, mag, k, dtype, what):
    """|got - want| <= one output ulp of |want| + k * 2^-23 * sum |a||b| (fp32 accumulation); NaN fails."""
    tol = ROUNDING[dtype] * np.abs(want) + k * 2.0**-23 * mag + 1e-30
    bad = ~(np.abs(got - want) <= tol)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        test.fail(f"{what}: {int(bad.sum())} of {bad.size} wrong; first at {first}: got {got[first]!r}, "
                  f"expected {want[first]!r} (tolerance {tol[first]:.3g})")


@unittest.skipUnless(HAVE_GPU, "no CUDA device")
class DeviceArrayTest(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(1)

    def run_case(self, dt_in, dt_out, orders, shape=(37, 70, 21), batch=0, alpha=1.0, beta=0.0, path=None,
                 stream=None):
        M, K, N = shape
        pre = (batch,) if batch else ()
        a, va = operand(dt_in, pre + (M, K), orders[0], self.rng)
        b, vb = operand(dt_in, pre + (K, N), orders[1], self.rng)
        if beta == 0.0:
            out, vc = empty(dt_out, pre + (M, N), orders[2]).fill_bytes(0xFF), 0.0  # all-ones bytes: NaN
        else:
            out, vc = operand(dt_out, pre + (M, N), orders[2], self.rng)
        returned = wsgemm.matmul(a, b, out, alpha=alpha, beta=beta, path=path, stream=stream)
        self.assertIs(returned, out)
        check(cudart().cudaDeviceSynchronize(), "cudaDeviceSynchronize")
        got = as_float64(dt_out, out.to_host())
        want = alpha * (va @ vb) + beta * vc
        mag = abs(alpha) * (np.abs(va) @ np.abs(vb))
        expect_close(self, got, want, mag, K, dt_out, f"{dt_in}->{dt_out} orders {orders} shape {shape} "
                     f"batch {batch} alpha {alpha} beta {beta} path {wsgemm.last_path()}")
        return wsgemm.last_path()

    def test_layouts(self):
        for orders in itertools.product(("C", "F", "CT", "FT"), repeat=3):
            self.run_case("bfloat16", "bfloat16", orders)

    def test_types(self):
        for dt_in, dt_out in (("bfloat16", "float32"), ("bfloat16", "float16"), ("float16", "float16"),
                              ("float16", "float32"), ("float16", "bfloat16")):
            for orders in (("C", "C", "C"), ("F", "CT", "F")):
                self.run_case(dt_in, dt_out, orders)

    def test_alpha_beta(self):
        for dt_out in ("bfloat16", "float32"):
            for orders in (("C", "C", "C"), ("F", "F", "F")):
                self.run_case("bfloat16", dt_out, orders, alpha=-0.5, beta=2.0)

    def test_batches(self):
        self.run_case("bfloat16", "bfloat16", ("C", "C", "C"), batch=3)
        self.run_case("float16", "float32", ("F", "CT", "C"), batch=2, shape=(33, 64, 17))

    def test_shared_operand(self):
        M, K, N, batch = 20, 48, 12, 3
        a, va = operand("bfloat16", (batch, M, K), "C", self.rng)
        b, vb = operand("bfloat16", (K, N), "C", self.rng)  # one b for every batch entry
        out = empty("float32", (batch, M, N), "C").fill_bytes(0xFF)
        wsgemm.matmul(a, b, out)
        expect_close(self, out.to_host().astype(np.float64), va @ vb, np.abs(va) @ np.abs(vb), K, "float32",
                     "shared b")

    def test_padded_leading_dimension(self):
        a, va = operand("bfloat16", (30, 40), "C", self.rng, pad=7)
        b, vb = operand("bfloat16", (40, 25), "F", self.rng, pad=3)
        out = empty("float32", (30, 25), "C", pad=5).fill_bytes(0xFF)
        wsgemm.matmul(a, b, out)
        expect_close(self, out.to_host().astype(np.float64), va @ vb, np.abs(va) @ np.abs(vb), 40, "float32",
                     "padded")

    def test_large_enough_for_the_fast_path(self):
        path = self.run_case("bfloat16", "bfloat16", ("C", "C", "C"), shape=(512, 256, 384))
        self.assertIn(path, ("generic", "sm90", "sm100"))

    def test_forced_generic_path(self):
        self.assertEqual(self.run_case("bfloat16", "bfloat16", ("C", "F", "C"), path="generic"), "generic")

    def test_caller_stream(self):
        """The GEMM waits behind a host function that holds the caller's (non-blocking) stream: while it
        holds, out is still NaN; once released, out is right. On any other stream it would already be
        written."""
        rt = cudart()
        s = ctypes.c_void_p()
        check(rt.cudaStreamCreateWithFlags(ctypes.byref(s), 1), "cudaStreamCreateWithFlags(NonBlocking)")
        try:
            a, va = operand("bfloat16", (64, 96), "C", self.rng)
            b, vb = operand("bfloat16", (96, 48), "F", self.rng)
            out = empty("float32", (64, 48), "C")
            wsgemm.matmul(a, b, out, stream=s.value)  # first call on this stream: any set-up happens here
            # the fill runs on the legacy stream, which does not wait for a non-blocking one
            check(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
            out.fill_bytes(0xFF)
            check(rt.cudaDeviceSynchronize(), "cudaDeviceSynchronize")
            gate = threading.Event()

            def wait_for_gate(_user_data):
                gate.wait(30)
            hold = HOST_FN(wait_for_gate)  # referenced until the stream has run it
            check(rt.cudaLaunchHostFunc(s, hold, None), "cudaLaunchHostFunc")
            try:
                wsgemm.matmul(a, b, out, stream=s.value)
                early = out.to_host()  # a copy on the legacy stream, which does not wait for s
            finally:
                gate.set()
            check(rt.cudaStreamSynchronize(s), "cudaStreamSynchronize")
            self.assertTrue(np.isnan(early).all(), "out was written before the caller's stream reached the GEMM")
            expect_close(self, out.to_host().astype(np.float64), va @ vb, np.abs(va) @ np.abs(vb), 96, "float32",
                         "on the caller's stream")

            class StreamObject:
                cuda_stream = s.value
            self.run_case("float16", "float16", ("F", "C", "C"), stream=StreamObject())
        finally:
            rt.cudaStreamDestroy(s)

    def test_library_error_has_its_message(self):
        host = np.zeros((8, 8), dtype=np.uint16)  # host memory behind a CUDA array interface

        class HostArray:
            dtype = "bfloat16"
            __cuda_array_interface__ = {"shape": (8, 8), "typestr": "<V2", "data": (host.ctypes.data, False),
                                        "strides": None, "version": 3}
        out = empty("bfloat16", (8, 8), "C")
        with self.assertRaises(wsgemm.Error) as ctx:
            wsgemm.matmul(HostArray(), HostArray(), out)
        self.assertEqual(ctx.exception.status_name, "WSGEMM_STATUS_INVALID_VALUE")
        self.assertIn("wsgemm_gemm_ex", ctx.exception.message)


class Int32Array:
    """A 1-D int32 device array (the grouped call's sizes and status), __cuda_array_interface__ v3."""

    def __init__(self, values):
        host = np.ascontiguousarray(values, dtype=np.int32)
        self.n = host.size
        self.buffer = Buffer(max(host.nbytes, 4))
        check(cudart().cudaMemcpy(self.buffer.ptr, host.ctypes.data, host.nbytes, 1), "cudaMemcpy H2D")

    @property
    def __cuda_array_interface__(self):
        return {"shape": (self.n,), "typestr": "<i4", "data": (self.buffer.ptr.value, False), "strides": None,
                "version": 3, "stream": None}

    def to_host(self):
        host = np.empty(self.n, dtype=np.int32)
        check(cudart().cudaMemcpy(host.ctypes.data, self.buffer.ptr, host.nbytes, 2), "cudaMemcpy D2H")
        return host


@unittest.skipUnless(HAVE_GPU, "no CUDA device")
class GroupedTest(unittest.TestCase):
    """wsgemm.grouped_mm against NumPy: torch._grouped_mm's contiguous form and the masked one. out starts as
    NaN (all-ones bytes); rows no group covers must stay NaN."""

    def setUp(self):
        self.rng = np.random.default_rng(3)

    def contiguous(self, ends, tokens, K, N, b_order, dt="bfloat16", dt_out="bfloat16", status_want=0):
        G = len(ends)
        a, va = operand(dt, (tokens, K), "C", self.rng)
        b, vb = operand(dt, (G, K, N), b_order, self.rng)
        out = empty(dt_out, (tokens, N), "C").fill_bytes(0xFF)
        offs, status = Int32Array(ends), Int32Array([-7])
        self.assertIs(wsgemm.grouped_mm(a, b, offs=offs, out=out, status=status), out)
        check(cudart().cudaDeviceSynchronize(), "cudaDeviceSynchronize")
        self.assertEqual(int(status.to_host()[0]), status_want)
        got = as_float64(dt_out, out.to_host())
        covered = np.zeros(tokens, dtype=bool)
        begin, top = 0, 0
        for g, end in enumerate(ends):
            keeps = begin == top and begin <= end <= tokens
            top = max(top, end)
            if keeps and end > begin:
                want = va[begin:end] @ vb[g]
                mag = np.abs(va[begin:end]) @ np.abs(vb[g])
                expect_close(self, got[begin:end], want, mag, K, dt_out, f"group {g} rows {begin}:{end}")
                covered[begin:end] = True
            begin = end
        self.assertTrue(np.isnan(got[~covered]).all(), "rows outside every group were written")

    def test_contiguous(self):
        self.contiguous([10, 10, 45, 90, 100], 110, 48, 40, "C")

    def test_contiguous_weights_transposed(self):
        self.contiguous([0, 33, 34, 80], 80, 40, 24, "CT", dt="float16", dt_out="float32")

    def test_contiguous_bad_offsets(self):
        self.contiguous([10, 5, 20, 30, 40], 40, 16, 16, "C", status_want=2)

    def test_masked(self):
        counts = [3, 0, 16, 7, 16]
        G, cap, K, N = len(counts), 16, 24, 40
        a, va = operand("bfloat16", (G, cap, K), "C", self.rng)
        b, vb = operand("bfloat16", (G, K, N), "C", self.rng)
        out = empty("float32", (G, cap, N), "C").fill_bytes(0xFF)
        wsgemm.grouped_mm(a, b, counts=Int32Array(counts), out=out)
        check(cudart().cudaDeviceSynchronize(), "cudaDeviceSynchronize")
        got = as_float64("float32", out.to_host())
        for g, c in enumerate(counts):
            want = va[g, :c] @ vb[g]
            expect_close(self, got[g, :c], want, np.abs(va[g, :c]) @ np.abs(vb[g]), K, "float32", f"group {g}")
            self.assertTrue(np.isnan(got[g, c:]).all(), f"group {g}: rows past its count were written")

    def test_argument_errors(self):
        a, _ = operand("bfloat16", (8, 16), "C", self.rng)
        b, _ = operand("bfloat16", (2, 16, 8), "C", self.rng)
        with self.assertRaises(ValueError):
            wsgemm.grouped_mm(a, b, out=empty("bfloat16", (8, 8), "C"))  # neither offs nor counts
        with self.assertRaises(ValueError):
            wsgemm.grouped_mm(a, b, offs=Int32Array([4, 8, 8]), out=empty("bfloat16", (8, 8), "C"))  # 3 != 2 groups


if __name__ == "__main__":
    unittest.main()
