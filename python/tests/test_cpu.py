# SPDX-License-Identifier: MIT
"""CPU tests of the Python module (no GPU, no NumPy): the layout mapping checked by evaluating the
planned column-major call on a flat list, every argument check before any CUDA call, the stream and
call arguments handed to the library (a recording stand-in), and, with the real libwsgemm.so, the
version and the error path."""
import ctypes
import itertools
import os
import random
import re
import unittest
from unittest import mock

import wsgemm
from wsgemm import _arrays, _binding, _layout

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class FakeCai:
    """A CUDA array as far as __cuda_array_interface__ goes (the pointer is never dereferenced)."""

    def __init__(self, shape, typestr="<V2", ptr=0x7F0000000000, strides=None, dtype="bfloat16", version=3,
                 readonly=False, **extra):
        self.dtype = dtype
        self.__cuda_array_interface__ = dict(shape=tuple(shape), typestr=typestr, data=(ptr, readonly),
                                             strides=strides, version=version, **extra)


class FakeDlpackCpu:
    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("a CPU array must be refused before its export is asked for")


def array(name, shape, strides, dtype="float16", ptr=0):
    return _arrays.Array(name, ptr, tuple(shape), tuple(strides), dtype)


# ---------------------------------------------------------------- the mapping, evaluated

ITEM = 2  # the mapping tests' 2-byte elements: pointers are byte addresses into `mem`, strides elements


def colmajor_gemm(call, mem):
    """What wsgemm_gemm_(strided_batched_)ex computes, on a flat list of elements: C = op(A) op(B),
    column-major; pointers in bytes, leading dimensions and batch strides in elements."""
    # the library's leading-dimension rule: at least the rows of the matrix as stored
    assert call.lda >= max(1, call.k if call.transa else call.m), call
    assert call.ldb >= max(1, call.n if call.transb else call.k), call
    assert call.ldc >= max(1, call.m), call

    def at(base, ld, trans, i, j):  # element (i, j) of op(X)
        return mem[base + (j + i * ld if trans else i + j * ld)]
    for b in range(max(call.batch, 1)):
        for i in range(call.m):
            for j in range(call.n):
                s = sum(at(call.A // ITEM + b * call.strideA, call.lda, call.transa, i, p) *
                        at(call.B // ITEM + b * call.strideB, call.ldb, call.transb, p, j) for p in range(call.k))
                mem[call.C // ITEM + b * call.strideC + i + j * call.ldc] = s


def layout_strides(rows, cols, layout, pad):
    """Element strides of a rows x cols matrix: 'C' row-major, 'F' column-major, 'CT' / 'FT' the
    transposed view of a cols x rows matrix in that order; pad: extra leading-dimension elements."""
    if layout == "C":
        return (cols + pad, 1), rows * (cols + pad)
    if layout == "F":
        return (1, rows + pad), (rows + pad) * cols
    inner, size = layout_strides(cols, rows, layout[0], pad)
    return inner[::-1], size


class Placer:
    def __init__(self):
        self.mem, self.rng = [], random.Random(7)

    def place(self, name, shape, layout, pad, batch_stride_pad=0):
        rows, cols = shape[-2:]
        inner, size = layout_strides(rows, cols, layout, pad)
        batch = shape[0] if len(shape) == 3 else 1
        step = size + batch_stride_pad
        base = len(self.mem)
        self.mem.extend(self.rng.randint(-9, 9) for _ in range(batch * step))
        strides = ((step,) if len(shape) == 3 else ()) + inner
        return _arrays.Array(name, base * ITEM, tuple(shape), strides, "float16")

    def get(self, arr, b, i, j):
        off = arr.ptr // ITEM + (b * arr.strides[0] if len(arr.shape) == 3 else 0)
        return self.mem[off + i * arr.strides[-2] + j * arr.strides[-1]]


class LayoutTest(unittest.TestCase):
    def check(self, shapes, layouts, pads=(0, 0, 0)):
        (M, K), (_, N) = shapes[0][-2:], shapes[1][-2:]
        p = Placer()
        a = p.place("a", shapes[0], layouts[0], pads[0])
        b = p.place("b", shapes[1], layouts[1], pads[1])
        out = p.place("out", shapes[2], layouts[2], pads[2])
        call = _layout.plan(a, b, out)
        colmajor_gemm(call, p.mem)
        batch = shapes[2][0] if len(shapes[2]) == 3 else 1
        for bi in range(batch):
            ba = bi if len(shapes[0]) == 3 and shapes[0][0] > 1 else 0
            bb = bi if len(shapes[1]) == 3 and shapes[1][0] > 1 else 0
            for i in range(M):
                for j in range(N):
                    want = sum(p.get(a, ba, i, q) * p.get(b, bb, q, j) for q in range(K))
                    self.assertEqual(p.get(out, bi, i, j), want,
                                     f"layouts {layouts} pads {pads} shapes {shapes}: out[{bi},{i},{j}]")
        return call

    def test_every_layout_combination(self):
        for la, lb, lc in itertools.product(("C", "F", "CT", "FT"), repeat=3):
            self.check(((5, 3), (3, 4), (5, 4)), (la, lb, lc))

    def test_padded_leading_dimensions(self):
        for la, lb, lc in itertools.product(("C", "F"), repeat=3):
            self.check(((4, 6), (6, 3), (4, 3)), (la, lb, lc), pads=(2, 1, 3))

    def test_vectors_and_degenerate_extents(self):
        for shapes in (((1, 5), (5, 3), (1, 3)), ((4, 5), (5, 1), (4, 1)), ((4, 1), (1, 3), (4, 3)),
                       ((1, 1), (1, 1), (1, 1))):
            for la, lb, lc in itertools.product(("C", "F", "CT"), repeat=3):
                self.check(shapes, (la, lb, lc))

    def test_batches_and_shared_operands(self):
        for la, lb, lc in itertools.product(("C", "F", "CT"), repeat=3):
            self.check(((3, 4, 2), (3, 2, 5), (3, 4, 5)), (la, lb, lc))
            self.check(((4, 2), (3, 2, 5), (3, 4, 5)), (la, lb, lc))     # a shared (2-D)
            self.check(((3, 4, 2), (1, 2, 5), (3, 4, 5)), (la, lb, lc))  # b shared (batch 1)

    def test_row_major_out_swaps_the_operands(self):
        call = self.check(((5, 3), (3, 4), (5, 4)), ("C", "C", "C"))
        self.assertEqual((call.m, call.n, call.k, call.transa, call.transb), (4, 5, 3, 0, 0))
        call = self.check(((5, 3), (3, 4), (5, 4)), ("F", "F", "F"))
        self.assertEqual((call.m, call.n, call.k, call.transa, call.transb), (5, 4, 3, 0, 0))
        # out column-major; a the transposed view of a column-major 3 x 5 (row-major memory), b row-major
        call = self.check(((5, 3), (3, 4), (5, 4)), ("FT", "C", "F"))
        self.assertEqual((call.m, call.n, call.transa, call.transb), (5, 4, 1, 1))


# ---------------------------------------------------------------- argument checks, before any CUDA call

def no_cuda(*args, **kwargs):
    raise AssertionError("the library (CUDA) was touched before the arguments were checked")


@mock.patch.object(_binding, "library", no_cuda)
@mock.patch.object(_binding, "cudart", no_cuda)
@mock.patch.object(_binding, "handle", no_cuda)
class ArgumentTest(unittest.TestCase):
    def refuses(self, exc, pattern, a, b, out=None, **kw):
        with self.assertRaisesRegex(exc, pattern):
            wsgemm.matmul(a, b, out, **kw)

    def test_shapes(self):
        self.refuses(ValueError, "inner dimensions 3 and 4", FakeCai((2, 3)), FakeCai((4, 5)), FakeCai((2, 5)))
        self.refuses(ValueError, r"out has shape \(2, 4\)", FakeCai((2, 3)), FakeCai((3, 5)), FakeCai((2, 4)))
        self.refuses(ValueError, "a has 1 dimensions", FakeCai((3,)), FakeCai((3, 5)), FakeCai((1, 5)))
        self.refuses(ValueError, "out has 4 dimensions", FakeCai((2, 3)), FakeCai((3, 5)), FakeCai((1, 1, 2, 5)))
        self.refuses(ValueError, "b has 3 matrices, out 2", FakeCai((2, 3)), FakeCai((3, 3, 5)),
                     FakeCai((2, 2, 5)))
        self.refuses(ValueError, "different batch sizes", FakeCai((2, 2, 3)), FakeCai((3, 3, 5)))

    def test_dtypes(self):
        self.refuses(TypeError, "must both be bfloat16 or both float16", FakeCai((2, 3)), FakeCai((3, 5), "<f2"),
                     FakeCai((2, 5)))
        self.refuses(TypeError, "must both be bfloat16 or both float16", FakeCai((2, 3), "<f4"), FakeCai((3, 5), "<f4"),
                     FakeCai((2, 5)))
        self.refuses(TypeError, "typestr '<f8'", FakeCai((2, 3), "<f8"), FakeCai((3, 5)), FakeCai((2, 5)))
        self.refuses(TypeError, r"typestr '<V2' \(dtype void\)", FakeCai((2, 3), dtype="void"), FakeCai((3, 5)),
                     FakeCai((2, 5)))
        self.refuses(TypeError, "out has typestr '<f8'", FakeCai((2, 3)), FakeCai((3, 5)),
                     FakeCai((2, 5), "<f8", dtype="float64"))
        with self.assertRaisesRegex(TypeError, "out must be bfloat16, float16 or float32"):
            _layout.plan(array("a", (2, 3), (3, 1)), array("b", (3, 5), (5, 1)),
                         array("out", (2, 5), (5, 1), dtype="int8"))

    def test_strides(self):
        self.refuses(ValueError, "one of the last two must be 1", FakeCai((4, 3), strides=(12, 4)), FakeCai((3, 5)),
                     FakeCai((4, 5)))
        self.refuses(ValueError, "negative strides", FakeCai((4, 3), strides=(-6, 2)), FakeCai((3, 5)),
                     FakeCai((4, 5)))
        self.refuses(ValueError, "not multiples", FakeCai((4, 3), strides=(7, 2)), FakeCai((3, 5)), FakeCai((4, 5)))
        # overlapping rows (stride 2 < 3 columns) are not a matrix
        self.refuses(ValueError, "one of the last two must be 1", FakeCai((4, 3), strides=(4, 2)), FakeCai((3, 5)),
                     FakeCai((4, 5)))
        self.refuses(ValueError, "batch stride 0", FakeCai((2, 4, 3)), FakeCai((3, 5)),
                     FakeCai((2, 4, 5), strides=(0, 10, 2)))

    def test_pointers_and_protocols(self):
        self.refuses(ValueError, "not aligned", FakeCai((2, 3), ptr=0x1001), FakeCai((3, 5)), FakeCai((2, 5)))
        self.refuses(ValueError, "out is read-only", FakeCai((2, 3)), FakeCai((3, 5)), FakeCai((2, 5), readonly=True))
        self.refuses(ValueError, "masked", FakeCai((2, 3), mask=object()), FakeCai((3, 5)), FakeCai((2, 5)))
        self.refuses(TypeError, "version 1", FakeCai((2, 3), version=1), FakeCai((3, 5)), FakeCai((2, 5)))
        self.refuses(TypeError, "a is in CPU", FakeDlpackCpu(), FakeCai((3, 5)), FakeCai((2, 5)))
        self.refuses(TypeError, "not a CUDA array", [[1.0]], FakeCai((3, 5)), FakeCai((2, 5)))

    def test_other_arguments(self):
        a, b, out = FakeCai((2, 3)), FakeCai((3, 5)), FakeCai((2, 5))
        self.refuses(ValueError, "path 'fast'", a, b, out, path="fast")
        self.refuses(TypeError, "not a bool", a, b, out, stream=True)
        self.refuses(ValueError, "negative", a, b, out, stream=-3)
        self.refuses(TypeError, "neither an int handle", a, b, out, stream="s")
        self.refuses(ValueError, "beta != 0 reads out", a, b, beta=1.0)
        self.refuses(TypeError, "pass out=", a, b)


# ---------------------------------------------------------------- what reaches the library

class RecordingLib:
    """Stands in for libwsgemm.so: records the stream, path and GEMM arguments, answers SUCCESS."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def fn(*args):
            self.calls.append((name, args))
            return 0
        return fn


class RecordingHandle:
    def __init__(self):
        self._lib, self.ptr = RecordingLib(), ctypes.c_void_p(1)

    def check(self, status):
        assert status == 0


class CallTest(unittest.TestCase):
    def run_matmul(self, *args, **kw):
        h = RecordingHandle()
        with mock.patch.object(_binding, "handle", lambda: h):
            wsgemm.matmul(*args, **kw)
        return {name: a for name, a in h._lib.calls}

    def test_stream_forms(self):
        class TorchLike:
            cuda_stream = 0x1111

        class CupyLike:
            ptr = 0x2222

        class CudaCore:
            def __cuda_stream__(self):
                return (0, 0x3333)

        a, b, out = FakeCai((2, 3)), FakeCai((3, 5)), FakeCai((2, 5))
        for stream, want in ((None, 0), (0x4444, 0x4444), (TorchLike(), 0x1111), (CupyLike(), 0x2222),
                             (CudaCore(), 0x3333)):
            calls = self.run_matmul(a, b, out, stream=stream)
            self.assertEqual(calls["wsgemm_set_stream"][1], want)

    def test_gemm_arguments(self):
        a = FakeCai((6, 4), ptr=0x10000)            # row-major 6 x 4 bf16
        b = FakeCai((4, 3), ptr=0x20000)            # row-major 4 x 3
        out = FakeCai((6, 3), "<f4", ptr=0x30000, dtype="float32")
        calls = self.run_matmul(a, b, out, alpha=2.0, beta=0.5, path="generic")
        self.assertEqual(calls["wsgemm_set_path"][1], _binding.PATHS["generic"])
        args = calls["wsgemm_gemm_ex"]
        # C^T (3 x 6) = b^T a^T: m = 3, n = 6, k = 4; b first (ld 3), a second (ld 4), out ld 3
        self.assertEqual(args[1:6], (0, 0, 3, 6, 4))
        self.assertEqual(args[6]._obj.value, 2.0)
        self.assertEqual(args[7:10], (0x20000, 14, 3))
        self.assertEqual(args[10:13], (0x10000, 14, 4))
        self.assertEqual(args[13]._obj.value, 0.5)
        self.assertEqual(args[14:17], (0x30000, 0, 3))

    def test_batched_call(self):
        a = FakeCai((3, 4, 2), ptr=0x10000)
        b = FakeCai((2, 5), ptr=0x20000)            # shared by the three entries
        out = FakeCai((3, 4, 5), "<f2", ptr=0x30000, dtype="float16")
        args = self.run_matmul(a, b, out)["wsgemm_gemm_strided_batched_ex"]
        self.assertEqual(args[1:6], (0, 0, 5, 4, 2))
        self.assertEqual(args[7:11], (0x20000, 14, 5, 0))    # B' = b, stride 0
        self.assertEqual(args[11:15], (0x10000, 14, 2, 8))   # A' = a, 4 x 2 per entry
        self.assertEqual(args[16:21], (0x30000, 2, 5, 20, 3))


class GroupedCallTest(unittest.TestCase):
    """grouped_mm's column-major call, recorded: torch._grouped_mm's row-major layout is DIM_N with the weights
    as the strided batch A (docs/api.md, "Grouped GEMM")."""

    def run_grouped(self, *args, **kw):
        h = RecordingHandle()
        with mock.patch.object(_binding, "handle", lambda: h):
            wsgemm.grouped_mm(*args, **kw)
        return {name: a for name, a in h._lib.calls}

    def test_contiguous_arguments(self):
        a = FakeCai((10, 4), ptr=0x10000)                               # tokens x K, row-major
        b = FakeCai((3, 4, 6), ptr=0x20000)                             # groups x K x N, row-major
        offs = FakeCai((3,), "<i4", ptr=0x40000, dtype="int32")
        out = FakeCai((10, 6), "<f4", ptr=0x30000, dtype="float32")
        args = self.run_grouped(a, b, offs=offs, out=out, alpha=2.0)["wsgemm_gemm_grouped_ex"]
        desc = args[1]._obj
        self.assertEqual((desc.size, desc.layout, desc.dim, desc.group_count, desc.sizes, desc.status),
                         (ctypes.sizeof(_binding.GroupedDesc), 0, 1, 3, 0x40000, None))
        self.assertEqual(args[2:7], (0, 0, 6, 10, 4))                   # op(A) = b_g^T: N; op(B) = a^T: N
        self.assertEqual(args[7]._obj.value, 2.0)
        self.assertEqual(args[8:12], (0x20000, 14, 6, 24))              # A = b, lda N, strideA K * N
        self.assertEqual(args[12:16], (0x10000, 14, 4, 0))              # B = a, ldb K, one matrix
        self.assertEqual(args[17:21], (0x30000, 0, 6, 0))               # C = out, ldc N, one matrix

    def test_transposed_weights_and_masked(self):
        a = FakeCai((3, 8, 4), ptr=0x10000)                             # groups x capacity x K
        b = FakeCai((3, 4, 6), ptr=0x20000, strides=(48, 2, 8))         # b[g] is the transposed view of 6 x 4
        counts = FakeCai((3,), "<i4", ptr=0x40000, dtype="int32")
        status = FakeCai((1,), "<i4", ptr=0x50000, dtype="int32")
        out = FakeCai((3, 8, 6), ptr=0x30000)
        args = self.run_grouped(a, b, counts=counts, out=out, status=status)["wsgemm_gemm_grouped_ex"]
        desc = args[1]._obj
        self.assertEqual((desc.layout, desc.dim, desc.status), (1, 1, 0x50000))
        self.assertEqual(args[2:7], (1, 0, 6, 8, 4))                    # op(A) = A^T: b_g stored K x N
        self.assertEqual(args[8:12], (0x20000, 14, 4, 24))
        self.assertEqual(args[12:16], (0x10000, 14, 4, 32))             # B_g = a[g], capacity * K apart
        self.assertEqual(args[17:21], (0x30000, 14, 6, 48))

    def test_refusals(self):
        a, b = FakeCai((10, 4)), FakeCai((3, 4, 6))
        offs = FakeCai((3,), "<i4", dtype="int32")
        out = FakeCai((10, 6))
        for kw, exc, text in (({}, ValueError, "exactly one of"),
                              ({"offs": offs, "counts": offs}, ValueError, "exactly one of"),
                              ({"offs": FakeCai((2,), "<i4", dtype="int32")}, ValueError, "int32"),
                              ({"offs": FakeCai((3,), "<f4", dtype="float32")}, ValueError, "int32")):
            with self.assertRaises(exc) as ctx:
                self.run_grouped(a, b, out=out, **kw)
            self.assertIn(text, str(ctx.exception))
        with self.assertRaises(ValueError) as ctx:
            self.run_grouped(a, b, offs=offs, out=FakeCai((10, 6), strides=(2, 20)))  # column-major out
        self.assertIn("row-major", str(ctx.exception))
        with self.assertRaises(TypeError):
            self.run_grouped(a, FakeCai((3, 4, 6), "<f2", dtype="float16"), offs=offs, out=out)


class MatmulCallTest(unittest.TestCase):
    """wsgemm.matmul with the cublasLtMatmul extras: what reaches wsgemm_matmul, and the refusals."""
    run_matmul = CallTest.run_matmul

    def fp8(self, shape, dtype="float8_e4m3fn", ptr=0x10000):
        return FakeCai(shape, "|V1", ptr=ptr, dtype=dtype)

    def test_fp8_gelu_bias_row_major(self):
        a = self.fp8((6, 4), ptr=0x10000)                        # row-major 6 x 4 e4m3
        b = self.fp8((4, 3), "float8_e5m2", ptr=0x20000)         # row-major 4 x 3 e5m2
        out = FakeCai((6, 3), ptr=0x30000)                       # bf16
        bias = FakeCai((3,), "<f4", ptr=0x40000, dtype="float32")
        sa, sb = FakeCai((1,), "<f4", ptr=0x50000, dtype="float32"), FakeCai((1,), "<f4", ptr=0x50004, dtype="float32")
        args = self.run_matmul(a, b, out, epilogue="gelu_bias", bias=bias, scale_a=sa, scale_b=sb)["wsgemm_matmul"]
        desc = args[1]._obj
        # C^T (3 x 6) = b^T a^T: b is A (e5m2, ld 3), a is B (e4m3, ld 4); bias along m = 3
        self.assertEqual(args[2:5], (3, 6, 4))
        self.assertEqual((desc.transa, desc.transb), (0, 0))
        self.assertEqual((desc.Atype, desc.Btype, desc.Dtype), (29, 28, 14))
        self.assertEqual(args[6:10], (0x20000, 3, 0x10000, 4))
        self.assertEqual((desc.epilogue, desc.bias, desc.bias_type), (36, 0x40000, 0))
        self.assertEqual((desc.a_scale, desc.b_scale), (0x50004, 0x50000))  # they follow their operands
        self.assertEqual(args[11:15], (0x30000, 3, 0x30000, 3))

    def test_aux_and_amax(self):
        a, b = FakeCai((8, 16), ptr=0x10000), FakeCai((16, 4), ptr=0x20000)
        out, aux = FakeCai((8, 4), ptr=0x30000), FakeCai((8, 4), "<f4", ptr=0x60000, dtype="float32")
        amax = FakeCai((1,), "<f4", ptr=0x70000, dtype="float32")
        bias = FakeCai((4,), ptr=0x40000)
        desc = self.run_matmul(a, b, out, epilogue="gelu_aux_bias", bias=bias, aux=aux, amax=amax)["wsgemm_matmul"][1]._obj
        self.assertEqual((desc.epilogue, desc.aux, desc.aux_type, desc.ldaux, desc.amax_d), (164, 0x60000, 0, 4, 0x70000))

    def test_plain_call_stays_gemm_ex(self):
        calls = self.run_matmul(FakeCai((2, 3)), FakeCai((3, 5)), FakeCai((2, 5)))
        self.assertIn("wsgemm_gemm_ex", calls)
        self.assertNotIn("wsgemm_matmul", calls)

    def test_refusals(self):
        a, b, out = FakeCai((2, 3)), FakeCai((3, 5)), FakeCai((2, 5))
        bias = FakeCai((5,), "<f4", dtype="float32")
        self.refuses(ValueError, "epilogue 'swish'", a, b, out, epilogue="swish")
        self.refuses(ValueError, "needs bias=", a, b, out, epilogue="relu_bias")
        self.refuses(ValueError, "takes no bias", a, b, out, epilogue="gelu", bias=bias)
        self.refuses(ValueError, "needs aux=", a, b, out, epilogue="gelu_aux")
        self.refuses(ValueError, "contiguous (5,)", a, b, out, epilogue="bias", bias=FakeCai((2,), "<f4", dtype="float32"))
        self.refuses(ValueError, "laid out like out", a, b, out, epilogue="gelu_aux",
                     aux=FakeCai((2, 5), strides=(2, 4)))
        self.refuses(TypeError, "one-element float32", a, b, out, scale_a=FakeCai((2,), "<f4", dtype="float32"))
        self.refuses(ValueError, "no batch", FakeCai((2, 2, 3)), b, FakeCai((2, 2, 5)), epilogue="relu")
        e5 = self.fp8((2, 3), "float8_e5m2")
        self.refuses(TypeError, "not both float8_e5m2", e5, self.fp8((3, 5), "float8_e5m2"), out)
        self.refuses(TypeError, "or both float8", self.fp8((2, 3)), b, out)               # e4m3 x bf16
        self.refuses(ValueError, "beta must be 0", self.fp8((2, 3)), self.fp8((3, 5)), self.fp8((2, 5)), beta=1.0)

    def refuses(self, exc, text, *args, **kw):
        with self.assertRaises(exc) as ctx:
            self.run_matmul(*args, **kw)
        self.assertIn(text, str(ctx.exception))


# ---------------------------------------------------------------- the real library (no GPU needed)

def header_version():
    with open(os.path.join(REPO, "include", "wsgemm.h")) as f:
        text = f.read()
    return tuple(int(re.search(rf"#define WSGEMM_VERSION_{p} (\d+)", text).group(1)) for p in ("MAJOR", "MINOR", "PATCH"))


@unittest.skipUnless(os.environ.get("WSGEMM_LIBRARY") or _binding.bundled_libraries(os.path.dirname(wsgemm.__file__)),
                     "WSGEMM_LIBRARY is not set and the package holds no library")
class LibraryTest(unittest.TestCase):
    def test_versions_agree(self):
        self.assertEqual(wsgemm.version(), header_version())
        self.assertEqual(wsgemm.__version__, ".".join(map(str, header_version())))
        self.assertTrue(wsgemm.library_path(), "the loaded library is not among the mapped files")

    def test_launch_mode(self):
        self.assertEqual(wsgemm.launch_mode(), "default")
        wsgemm.set_launch_mode("pdl")
        try:
            self.assertEqual(wsgemm.launch_mode(), "pdl")
        finally:
            wsgemm.set_launch_mode("default")
        self.assertEqual(wsgemm.launch_mode(), "default")
        with self.assertRaises(ValueError):
            wsgemm.set_launch_mode("eager")

    def test_batch_invariance(self):
        self.assertEqual(wsgemm.batch_invariance(), "off")
        for mode in ("on", "on_n"):
            wsgemm.set_batch_invariance(mode)
            try:
                self.assertEqual(wsgemm.batch_invariance(), mode)
            finally:
                wsgemm.set_batch_invariance("off")
        self.assertEqual(wsgemm.batch_invariance(), "off")
        with self.assertRaises(ValueError):
            wsgemm.set_batch_invariance("rows")
        # a value the module would never pass: the library refuses it, naming the argument
        h = _binding.handle()
        status = h._lib.wsgemm_set_batch_invariance(h.ptr, 3)
        self.assertNotEqual(status, 0)
        self.assertIn("mode = 3", h._lib.wsgemm_get_last_error_message(h.ptr).decode())
        self.assertEqual(wsgemm.batch_invariance(), "off")

    def test_matmul_desc_is_the_headers(self):
        # the module's MatmulDesc has this library's size: init takes it and writes launch_mode DEFAULT and
        # batch_invariance OFF
        lib = _binding.library()
        d = _binding.MatmulDesc(launch_mode=7, batch_invariance=5)
        init = lib.wsgemm_matmul_desc_init_sized
        init.restype = ctypes.c_int
        init.argtypes = [ctypes.POINTER(_binding.MatmulDesc), ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                         ctypes.c_int, ctypes.c_int]
        self.assertEqual(init(ctypes.byref(d), ctypes.sizeof(_binding.MatmulDesc), 0, 0, 14, 14), 0)
        self.assertEqual(d.launch_mode, 0)
        self.assertEqual(d.batch_invariance, 0)
        # one int more is no size of this library's struct
        self.assertNotEqual(init(ctypes.byref(d), ctypes.sizeof(_binding.MatmulDesc) + 8, 0, 0, 14, 14), 0)

    def test_status_raises_with_the_library_message(self):
        # Device-looking pointers that are not device memory: without a GPU the library answers NO_DEVICE,
        # with one INVALID_VALUE (not device memory). Either way the status and message are the library's.
        with self.assertRaises(wsgemm.Error) as ctx:
            wsgemm.matmul(FakeCai((8, 8), ptr=0x1000), FakeCai((8, 8), ptr=0x2000), FakeCai((8, 8), ptr=0x3000))
        e = ctx.exception
        self.assertIn(e.status_name, ("WSGEMM_STATUS_NO_DEVICE", "WSGEMM_STATUS_INVALID_VALUE"))
        self.assertIn("wsgemm_gemm_ex", e.message)
        self.assertEqual(str(e), f"{e.status_name}: {e.message}")


# ---------------------------------------------------------------- the package: wheel, sdist, installs

BUILD_DIR = os.environ.get("WSGEMM_BUILD_DIR")
PYTHON_ROOT = os.path.join(REPO, "python")


def backend():
    """The build backend of python/pyproject.toml (python/_build/wsgemm_build.py), imported as pip does."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("wsgemm_build", os.path.join(PYTHON_ROOT, "_build", "wsgemm_build.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_cache():
    with open(os.path.join(BUILD_DIR, "CMakeCache.txt")) as f:
        return dict(m.groups() for m in re.finditer(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", f.read(), re.M))


def run_python(code, env_extra=None, path=None):
    """`python -c code` in a fresh interpreter (no WSGEMM_LIBRARY: the library must come from the package)."""
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k not in ("WSGEMM_LIBRARY", "PYTHONPATH")}
    if path:
        env["PYTHONPATH"] = path
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd="/")


class ImportTest(unittest.TestCase):
    def test_import_without_torch_and_gpu(self):
        # torch made unimportable: `import wsgemm` works, imports no torch, and registers nothing
        code = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
                "        if name == 'torch' or name.startswith('torch.'): raise ImportError('blocked')\n"
                "sys.meta_path.insert(0, Block())\nimport importlib.util\nimportlib.util.find_spec = "
                "lambda name, *a: None if name == 'torch' else None\n"
                "import wsgemm\nprint('torch' in sys.modules, hasattr(wsgemm, 'matmul'))")
        r = run_python(code, {"CUDA_VISIBLE_DEVICES": ""}, PYTHON_ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["False", "True"])


@unittest.skipUnless(BUILD_DIR, "WSGEMM_BUILD_DIR (a built CMake tree to package) is not set")
class PackageTest(unittest.TestCase):
    """The wheel of a built tree (WSGEMM_BUILD_DIR: what ctest passes), its tags and files, the sdist, and
    offline installs of both kinds."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.work = tempfile.mkdtemp(prefix="wsgemm-package-test-")
        cls.backend = backend()
        cls.settings = {"build-dir": os.path.abspath(BUILD_DIR)}
        cls.wheel = os.path.join(cls.work, cls.backend.build_wheel(cls.work, cls.settings))
        cls.has_sm100 = "100a" in build_cache().get("WSGEMM_CUDA_ARCHS", "").split(";")

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_wheel_tags_and_files(self):
        import base64
        import hashlib
        import zipfile
        name = os.path.basename(self.wheel)
        self.assertRegex(name, r"^wsgemm-[0-9.]+-py3-none-linux_x86_64\.whl$")
        with zipfile.ZipFile(self.wheel) as whl:
            names = whl.namelist()
            info = [n for n in names if n.endswith(".dist-info/WHEEL")]
            wheel_file = whl.read(info[0]).decode()
            self.assertIn("Root-Is-Purelib: false", wheel_file)
            self.assertIn("Tag: py3-none-linux_x86_64", wheel_file)
            metadata = whl.read(info[0].replace("/WHEEL", "/METADATA")).decode()
            self.assertIn("License: MIT\n", metadata)
            self.assertIn("MIT License", whl.read(info[0].replace("/WHEEL", "/LICENSE")).decode())
            for module in ("__init__", "_arrays", "_binding", "_layout", "torch_ops"):
                self.assertIn(f"wsgemm/{module}.py", names)
            libs = [n for n in names if re.fullmatch(r"wsgemm/lib(64)?/libwsgemm\.so(\.[0-9]+)*", n)]
            self.assertEqual(len(libs), 1, names)
            self.assertGreater(whl.getinfo(libs[0]).file_size, 100000)
            helpers = [n for n in names if n.endswith("/wsgemm-sm100-selfcheck")]
            self.assertEqual(len(helpers), 1 if self.has_sm100 else 0, names)
            if helpers:
                self.assertTrue((whl.getinfo(helpers[0]).external_attr >> 16) & 0o111, "the helper is not executable")
                # where the library looks for it: <its folder>/<libexec-from-libdir>/wsgemm-sm100-selfcheck,
                # the relative path compiled into it (gemm/CMakeLists.txt)
                rel = os.path.relpath(os.path.dirname(helpers[0]), os.path.dirname(libs[0]))
                self.assertIn(b"\0" + rel.encode() + b"\0", whl.read(libs[0]), f"the library does not look in {rel}")
            record = whl.read([n for n in names if n.endswith("/RECORD")][0]).decode().split()
            for line in record:
                path, digest, size = line.rsplit(",", 2)
                if digest:
                    data = whl.read(path)
                    want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    self.assertEqual((digest, int(size)), ("sha256=" + want, len(data)), path)
            self.assertEqual(len(record), len(names))

    def test_sdist_holds_the_sources(self):
        import subprocess
        import tarfile
        name = self.backend.build_sdist(self.work)
        with tarfile.open(os.path.join(self.work, name)) as tar:
            names = set(tar.getnames())
        base = name[:-len(".tar.gz")]
        for path in ("PKG-INFO", "pyproject.toml", "_build/wsgemm_build.py", "wsgemm/torch_ops.py",
                     "native/CMakeLists.txt", "native/include/wsgemm.h", "native/gemm/api.c",
                     "native/cmake/WsgemmInstall.cmake", "LICENSE", "native/LICENSE"):
            self.assertIn(f"{base}/{path}", names)
        tracked = subprocess.run(["git", "-C", REPO, "ls-files", *self.backend.NATIVE], capture_output=True, text=True)
        if tracked.returncode == 0 and tracked.stdout:  # every tracked file the CMake build may read
            missing = [p for p in tracked.stdout.split() if f"{base}/native/{p}" not in names]
            self.assertEqual(missing, [])
        self.assertFalse([n for n in names if "/build/" in n or n.endswith((".so", ".pyc"))])

    def test_offline_install_into_a_target_dir(self):
        import subprocess
        import sys
        target = os.path.join(self.work, "site")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--target",
                        target, self.wheel], check=True)
        if self.has_sm100:
            helper = os.path.join(target, "wsgemm", "libexec", "wsgemm", "wsgemm-sm100-selfcheck")
            self.assertTrue(os.access(helper, os.X_OK), f"{helper} is not executable after the install")
            r = subprocess.run([helper], capture_output=True, text=True)  # loads and runs: its usage, status 2
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn("usage: wsgemm-sm100-selfcheck", r.stdout + r.stderr)
        r = run_python("import wsgemm, os; print(wsgemm.version(), os.path.realpath(wsgemm.library_path()))",
                       {"CUDA_VISIBLE_DEVICES": ""}, target)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(") ")[0] + ")", str(header_version()))
        self.assertTrue(r.stdout.split(") ")[1].strip().startswith(os.path.realpath(target) + "/wsgemm/lib"), r.stdout)

    def test_editable_install(self):
        import shutil
        import subprocess
        import sys
        import venv
        bundled = [os.path.join(PYTHON_ROOT, "wsgemm", d) for d in ("lib", "lib64", "libexec")]
        if any(os.path.exists(d) for d in bundled):
            self.skipTest("python/wsgemm already holds an editable install's library")
        env_dir = os.path.join(self.work, "venv")
        venv.create(env_dir, system_site_packages=False, with_pip=False)
        py = os.path.join(env_dir, "bin", "python")
        try:
            subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "--quiet", "--no-index",
                            "--no-deps", "--config-settings", f"build-dir={self.settings['build-dir']}", "-e",
                            PYTHON_ROOT], check=True)
            r = subprocess.run([py, "-c", "import wsgemm, os; print(wsgemm.__file__, wsgemm.version(), "
                                "os.path.realpath(wsgemm.library_path()))"], capture_output=True, text=True,
                               env={k: v for k, v in os.environ.items() if k != "WSGEMM_LIBRARY"}, cwd="/")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(os.path.join(PYTHON_ROOT, "wsgemm", "__init__.py")), r.stdout)
            self.assertIn(os.path.realpath(os.path.join(PYTHON_ROOT, "wsgemm", "lib")), r.stdout)
        finally:
            for d in bundled:
                shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------- the torch ops without a GPU

try:
    import torch
    import torch_reference as tr
    from wsgemm import torch_ops
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False


@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class TorchOpsCpuTest(unittest.TestCase):
    """The ops' schemas and fakes on meta tensors, and, with the library call replaced by its torch reference
    (torch_reference.py), autograd, opcheck, torch.compile and torch.export around it, on the CPU."""

    def setUp(self):
        self.gen = torch.Generator().manual_seed(11)

    def u(self, *shape, dtype=None, grad=False, device="cpu"):
        return tr.uniform(shape, dtype or torch.bfloat16, self.gen, device, grad)

    def test_schemas(self):
        self.assertEqual(str(torch.ops.wsgemm.mm.default._schema),
                         'wsgemm::mm(Tensor a, Tensor b, *, float alpha=1., ScalarType? out_dtype=None, '
                         'str path="auto") -> Tensor')
        self.assertTrue(str(torch.ops.wsgemm.matmul.default._schema).startswith(
            "wsgemm::matmul(Tensor a, Tensor b, Tensor? bias=None, Tensor? scale_a=None, Tensor? scale_b=None, "
            'Tensor? scale_d=None, *, str epilogue="none"'))

    def test_inputs_in_any_layout_reach_the_library_readable(self):
        base = self.u(6, 4)
        for kept in (base, base.mT, self.u(3, 6, 4), self.u(6, 4)[:, :3]):
            self.assertIs(torch_ops._readable(kept, "a"), kept)
        for copied in (self.u(1, 1).expand(6, 4), self.u(6, 8)[:, ::2], self.u(4).expand(3, 6, 4)):
            got = torch_ops._readable(copied, "a")
            self.assertIsNot(got, copied)
            self.assertTrue(got.is_contiguous() and torch.equal(got, copied))

    def test_fake_shapes_and_dtypes(self):
        meta = dict(device="meta")
        a, b = torch.empty(5, 7, dtype=torch.float16, **meta), torch.empty(7, 3, dtype=torch.float16, **meta)
        self.assertEqual(torch.ops.wsgemm.mm(a, b).dtype, torch.float16)
        self.assertEqual(torch.ops.wsgemm.mm(a, b, out_dtype=torch.float32).dtype, torch.float32)
        batched = torch.ops.wsgemm.mm(torch.empty(4, 5, 7, dtype=torch.bfloat16, **meta),
                                      torch.empty(1, 7, 3, dtype=torch.bfloat16, **meta))
        self.assertEqual((tuple(batched.shape), batched.dtype), ((4, 5, 3), torch.bfloat16))
        bias16 = torch.empty(3, dtype=torch.float16, **meta)
        out, aux, amax = torch.ops.wsgemm.matmul(a, b, bias16, epilogue="gelu_bias")  # fp16 in: fp16 out
        self.assertEqual((out.dtype, tuple(out.shape), aux.numel(), amax.numel()), (torch.float16, (5, 3), 0, 0))
        out, aux, amax = torch.ops.wsgemm.matmul(a, b, bias16, epilogue="gelu_aux_bias", amax=True)
        self.assertEqual((tuple(aux.shape), aux.dtype, tuple(amax.shape)), ((5, 3), torch.float16, (1,)))
        a8 = torch.empty(5, 7, dtype=torch.float8_e4m3fn, **meta)
        b8 = torch.empty(7, 3, dtype=torch.float8_e4m3fn, **meta)
        self.assertEqual(torch.ops.wsgemm.matmul(a8, b8)[0].dtype, torch.bfloat16)
        self.assertEqual(torch.ops.wsgemm.matmul(a8, b8, out_dtype=torch.float8_e4m3fn)[0].dtype, torch.float8_e4m3fn)
        with self.assertRaisesRegex(ValueError, "inner dimensions"):
            torch.ops.wsgemm.mm(a, a)
        with self.assertRaisesRegex(TypeError, "must both be bfloat16 or both float16"):
            torch.ops.wsgemm.mm(a, b.to(torch.bfloat16))
        with self.assertRaisesRegex(ValueError, "needs bias"):
            torch.ops.wsgemm.matmul(a, b, epilogue="bias")
        with self.assertRaisesRegex(ValueError, "epilogue 'swish'"):
            torch.ops.wsgemm.matmul(a, b, epilogue="swish")
        with self.assertRaisesRegex(ValueError, "path 'fast'"):
            torch.ops.wsgemm.mm(a, b, path="fast")

    def test_cpu_tensors_are_refused_by_the_library_call(self):
        with self.assertRaisesRegex(TypeError, "a is on cpu"):
            torch.ops.wsgemm.mm(self.u(4, 4), self.u(4, 4))

    def test_opcheck(self):
        with tr.reference_kernel():
            a, b, bias = self.u(5, 7, grad=True), self.u(7, 3, grad=True), self.u(3, grad=True)
            cases = [(torch.ops.wsgemm.mm.default, (a, b), {"alpha": 0.5}),
                     (torch.ops.wsgemm.mm.default, (self.u(2, 5, 7, grad=True), b), {"out_dtype": torch.float32}),
                     (torch.ops.wsgemm.mm.default, (a, self.u(2, 7, 3, grad=True)), {})]
            for epilogue in torch_ops.EPILOGUES:
                cases.append((torch.ops.wsgemm.matmul.default, (a, b, bias if "bias" in epilogue else None),
                              {"epilogue": epilogue}))
            for op, args, kwargs in cases:
                result = torch.library.opcheck(op, args, kwargs)
                self.assertEqual(set(result.values()), {"SUCCESS"}, f"{op} {kwargs}: {result}")

    def test_gradients_match_torch(self):
        with tr.reference_kernel():
            for epilogue in ("none", "relu_bias", "gelu_bias", "gelu_aux_bias"):
                a, b = self.u(6, 8, dtype=torch.float32, grad=True), self.u(8, 5, dtype=torch.float32, grad=True)
                a.data, b.data = a.data.to(torch.bfloat16).float(), b.data.to(torch.bfloat16).float()
                bias = self.u(5, dtype=torch.float32, grad=True) if "bias" in epilogue else None
                ab = [a.detach().to(torch.bfloat16).requires_grad_(), b.detach().to(torch.bfloat16).requires_grad_()]
                bias16 = bias.detach().requires_grad_() if bias is not None else None
                got = torch.ops.wsgemm.matmul(*ab, bias16, epilogue=epilogue, alpha=0.75, out_dtype=torch.float32)[0]
                z = 0.75 * (a @ b) + (bias if bias is not None else 0)
                want = torch.relu(z) if "relu" in epilogue else \
                    torch.nn.functional.gelu(z, approximate="tanh") if "gelu" in epilogue else z
                g = self.u(6, 5, dtype=torch.float32)
                got.backward(g)
                want.backward(g)
                for mine, ref, what in ((ab[0].grad, a.grad, "dA"), (ab[1].grad, b.grad, "dB")) + \
                        (((bias16.grad, bias.grad, "dbias"),) if bias is not None else ()):
                    self.assertLess(tr.relative_error(mine, ref), 2e-2, f"{epilogue} {what}")

    def test_api_on_tensors_that_require_grad_and_compile_and_export(self):
        with tr.reference_kernel():
            w = torch.nn.Parameter(self.u(32, 16))
            x = self.u(8, 16, grad=True)
            y = wsgemm.matmul(x, w.mT)                       # a Parameter: no BufferError, a graph for backward
            y.float().sum().backward()
            self.assertEqual((w.grad.shape, x.grad.shape), (w.shape, x.shape))
            compiled = torch.compile(lambda p, q: wsgemm.matmul(p, q) * 2, fullgraph=True, backend="aot_eager")
            self.assertLess(tr.relative_error(compiled(x, w.mT), 2 * (x.float() @ w.float().mT)), 1e-2)

            class Layer(torch.nn.Module):
                def __init__(self, w, b):
                    super().__init__()
                    self.w, self.b = torch.nn.Parameter(w), torch.nn.Parameter(b)

                def forward(self, x):
                    return wsgemm.matmul(x, self.w.mT, epilogue="gelu_bias", bias=self.b)
            program = torch.export.export(Layer(self.u(32, 16), self.u(32)), (self.u(8, 16),))
            ops = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
            self.assertIn("wsgemm.matmul.default", ops)
            self.assertFalse([o for o in ops if "aten.mm" in o or "aten.addmm" in o], ops)

    def test_out_refuses_autograd_and_jax_like_outputs(self):
        with tr.reference_kernel():
            with self.assertRaisesRegex(RuntimeError, "out= writes in place"):
                wsgemm.matmul(self.u(4, 4, grad=True), self.u(4, 4), out=self.u(4, 4))
        with self.assertRaisesRegex(TypeError, "JAX array"):
            _arrays.describe(type("ArrayImpl", (), {"__module__": "jaxlib.xla_extension"})(), "out", 1)


if __name__ == "__main__":
    unittest.main()
