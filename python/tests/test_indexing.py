"""Index-driven movement from Python: gather, gather_elements, gather_nd, scatter_elements, scatter_nd and one_hot
against NumPy and naive loops written from ONNX's definitions, every index dtype, strided and reversed views,
in-place scatters, errors; then ONNX's own node tests (the `onnx` package generates their inputs and expected
outputs), every skip with its reason."""

import itertools

import numpy as np
import pytest

import strider

INDEX_DTYPES = [np.int32, np.uint32, np.int64, np.uint64]
DATA_DTYPES = [np.uint8, np.int8, np.int16, np.uint16, np.float16, np.int32, np.uint32, np.float32, np.int64,
               np.uint64, np.float64]


def random_indices(rng, shape, bound, dtype):
    low = -bound if np.dtype(dtype).kind == "i" else 0
    return rng.integers(low, bound, size=shape).astype(dtype)


def data(rng, shape, dtype):
    return (rng.integers(0, 100, size=shape)).astype(dtype)


@pytest.mark.parametrize("dtype", DATA_DTYPES)
def test_gather_matches_take(dtype):
    rng = np.random.default_rng(1)
    for case in range(30):
        ndim = 1 + case % 4
        x = data(rng, rng.integers(1, 5, size=ndim), dtype)
        if case % 3 == 1:
            x = x[..., ::-1]  # negative strides
        axis = int(rng.integers(-ndim, ndim))
        it = INDEX_DTYPES[case % 4]
        ishape = tuple(rng.integers(1, 4, size=case % 3))
        idx = random_indices(rng, ishape, x.shape[axis], it)
        got = strider.gather(x, idx, axis=axis)
        want = np.take(x, idx.astype(np.int64), axis=axis)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # Lists, scalars, out=.
    table = np.arange(20, dtype=np.float32).reshape(5, 4)
    np.testing.assert_array_equal(strider.gather(table, [4, -1, 0]), table[[4, -1, 0]])
    np.testing.assert_array_equal(strider.gather(table, np.int64(2)), table[2])
    out = np.zeros((5, 2), np.float32)
    assert strider.gather(table, [1, 3], axis=1, out=out) is out
    np.testing.assert_array_equal(out, table[:, [1, 3]])


def test_gather_elements_matches_take_along_axis():
    rng = np.random.default_rng(2)
    for case in range(40):
        ndim = 1 + case % 4
        dtype = DATA_DTYPES[case % len(DATA_DTYPES)]
        x = data(rng, rng.integers(1, 5, size=ndim), dtype)
        axis = case % ndim
        shape = [int(rng.integers(1, n + 1)) for n in x.shape]
        shape[axis] = int(rng.integers(1, 6))
        idx = random_indices(rng, shape, x.shape[axis], INDEX_DTYPES[case % 4])
        got = strider.gather_elements(x, idx, axis=axis)
        # take_along_axis needs matching sizes off the axis: the leading part of x, as torch.gather reads.
        part = x[tuple(slice(0, s) if d != axis else slice(None) for d, s in enumerate(shape))]
        np.testing.assert_array_equal(got, np.take_along_axis(part, idx.astype(np.int64), axis=axis))


def gather_nd_reference(x, idx, b):
    """ONNX GatherND, one obvious loop."""
    idx = idx.astype(np.int64)
    t = idx.shape[-1]
    out = np.empty(idx.shape[:-1] + x.shape[b + t:], x.dtype)
    for p in itertools.product(*[range(n) for n in idx.shape[:-1]]):
        coords = tuple(int(v) for v in idx[p])
        out[p] = x[p[:b] + coords]
    return out


def test_gather_nd_matches_onnx():
    rng = np.random.default_rng(3)
    for case in range(40):
        r = 1 + case % 4
        x = data(rng, rng.integers(1, 4, size=r), DATA_DTYPES[case % len(DATA_DTYPES)])
        b = int(rng.integers(0, r))
        t = int(rng.integers(1, r - b + 1))
        q = b + 1 + int(rng.integers(0, 2))
        ishape = list(x.shape[:b]) + [int(rng.integers(1, 3)) for _ in range(q - b - 1)] + [t]
        idx = np.empty(ishape, np.int64)
        for k in range(t):
            idx[..., k] = rng.integers(-x.shape[b + k], x.shape[b + k], size=ishape[:-1])
        idx = idx.astype(INDEX_DTYPES[case % 2 * 2])  # signed types: int32, int64
        np.testing.assert_array_equal(strider.gather_nd(x, idx, batch_dims=b), gather_nd_reference(x, idx, b))


def test_scatter_elements_last_duplicate_wins_and_in_place():
    rng = np.random.default_rng(4)
    for case in range(40):
        ndim = 1 + case % 3
        dtype = DATA_DTYPES[case % len(DATA_DTYPES)]
        x = data(rng, rng.integers(1, 5, size=ndim), dtype)
        axis = case % ndim
        shape = [int(rng.integers(1, n + 1)) for n in x.shape]
        shape[axis] = int(rng.integers(1, 8))  # often more than the axis: duplicates
        idx = random_indices(rng, shape, x.shape[axis], INDEX_DTYPES[case % 4])
        upd = data(rng, shape, dtype)
        want = x.copy()
        for p in itertools.product(*[range(n) for n in shape]):
            at = list(p)
            at[axis] = int(idx[p])
            want[tuple(at)] = upd[p]
        np.testing.assert_array_equal(strider.scatter_elements(x, idx, upd, axis=axis), want)
        y = x.copy()
        assert strider.scatter_elements(y, idx, upd, axis=axis, out=y) is y
        np.testing.assert_array_equal(y, want)


def test_scatter_nd_matches_onnx():
    rng = np.random.default_rng(5)
    for case in range(30):
        r = 1 + case % 4
        x = data(rng, rng.integers(1, 4, size=r), np.float32)
        t = int(rng.integers(1, r + 1))
        ishape = [int(rng.integers(1, 4)) for _ in range(case % 2 + 1)] + [t]
        idx = np.stack([rng.integers(-x.shape[k], x.shape[k], size=ishape[:-1]) for k in range(t)], axis=-1)
        upd = data(rng, tuple(ishape[:-1]) + x.shape[t:], np.float32)
        want = x.copy()
        for p in itertools.product(*[range(n) for n in ishape[:-1]]):
            want[tuple(int(v) for v in idx[p])] = upd[p]
        np.testing.assert_array_equal(strider.scatter_nd(x, idx, upd), want)
        y = x.copy()
        strider.scatter_nd(y, idx, upd, out=y)
        np.testing.assert_array_equal(y, want)


def test_one_hot_matches_onnx():
    rng = np.random.default_rng(6)
    for case in range(30):
        ishape = tuple(rng.integers(1, 4, size=case % 3))
        depth = int(rng.integers(1, 6))
        idx = rng.integers(-depth - 2, depth + 2, size=ishape).astype(INDEX_DTYPES[case % 2 * 2])
        axis = int(rng.integers(-len(ishape) - 1, len(ishape) + 1))
        dtype = DATA_DTYPES[case % len(DATA_DTYPES)]
        got = strider.one_hot(idx, depth, values=(3, 7), axis=axis, dtype=dtype)
        # The reference: an identity row per index (none when out of range), moved to the axis.
        eye = np.eye(depth, dtype=bool)
        rows = np.zeros(ishape + (depth,), bool)
        for p in itertools.product(*[range(n) for n in ishape]):
            v = int(idx[p])
            if -depth <= v < depth:
                rows[p] = eye[v % depth]
        want = np.moveaxis(np.where(rows, 7, 3).astype(dtype), -1, axis)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(strider.one_hot([0, 2, -1], 4), np.eye(4, dtype=np.float32)[[0, 2, 3]])


def test_index_errors():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.full((2, 4), -1, np.float32)
    with pytest.raises(ValueError, match=r"index 3 at coordinate \[0, 1\] of the indices .* size 3"):
        strider.gather(x, np.array([0, 3]), out=out)
    assert (out == -1).all(), "an invalid index wrote"
    with pytest.raises(ValueError, match="index -4"):
        strider.scatter_elements(x, [[-4, 0, 0, 0]], np.ones((1, 4), np.float32), axis=0, out=x)
    np.testing.assert_array_equal(x, np.arange(12, dtype=np.float32).reshape(3, 4))
    # A list of updates takes x's dtype, as NumPy's assignment converts it.
    np.testing.assert_array_equal(strider.scatter_elements(np.zeros((1, 3), np.float32), [[2]], [[5]], axis=1),
                                  [[0, 0, 5]])
    with pytest.raises(Exception, match="INT32, UINT32, INT64 or UINT64"):
        strider.gather(x, np.array([0, 1], np.int16))
    with pytest.raises(ValueError, match="axis=2"):
        strider.gather(x, [0], axis=2)
    with pytest.raises(ValueError, match="indices has 1 dimensions but x has 2"):
        strider.gather_elements(x, [0, 1])
    with pytest.raises(ValueError, match="batch_dims=2"):
        strider.gather_nd(x, [[0, 1]], batch_dims=2)
    with pytest.raises(ValueError, match="indices.shape"):
        strider.gather_nd(x, [[0, 1, 2]])
    with pytest.raises(ValueError, match="depth=0"):
        strider.one_hot([0], 0)
    with pytest.raises(ValueError, match="shape"):
        strider.gather(x, [0, 1], out=np.zeros((3, 3), np.float32))


# ONNX's node tests. What DirectML's operators (and so Strider) do not have is skipped, each with its reason.
ONNX_OPS = ("Gather", "GatherElements", "GatherND", "Scatter", "ScatterElements", "ScatterND", "OneHot")


def onnx_cases():
    onnx = pytest.importorskip("onnx", reason="the onnx package is not installed (pip install onnx)")
    from onnx.backend.test.case import node

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    out = []
    for c in cases:
        n = c.model.graph.node
        if len(n) == 1 and n[0].op_type in ONNX_OPS:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n[0].attribute}
            out.append((c.name, n[0].op_type, attrs, c.data_sets))
    return out


def onnx_skip_reason(op, attrs, inputs):
    reduction = attrs.get("reduction", b"none")
    if reduction not in (b"none", "none"):
        return f"reduction={reduction.decode()}: DirectML's SCATTER operators replace, they do not reduce"
    if any(a.dtype.name == "bfloat16" or a.dtype.kind == "V" for a in inputs):
        return "bfloat16 is not a DirectML tensor data type"
    return None


def run_onnx(op, attrs, inputs):
    if op == "Gather":
        return strider.gather(inputs[0], inputs[1], axis=attrs.get("axis", 0))
    if op == "GatherElements":
        return strider.gather_elements(inputs[0], inputs[1], axis=attrs.get("axis", 0))
    if op == "GatherND":
        return strider.gather_nd(inputs[0], inputs[1], batch_dims=attrs.get("batch_dims", 0))
    if op in ("Scatter", "ScatterElements"):
        return strider.scatter_elements(inputs[0], inputs[1], inputs[2], axis=attrs.get("axis", 0))
    if op == "ScatterND":
        return strider.scatter_nd(inputs[0], inputs[1], inputs[2])
    # OneHot: ONNX casts non-integer indices and depth to int64.
    indices, depth, values = inputs
    if indices.dtype.kind == "f":
        indices = indices.astype(np.int64)
    return strider.one_hot(indices, int(depth), values=(values[0].item(), values[1].item()),
                           axis=attrs.get("axis", -1), dtype=values.dtype)


def test_onnx_node_tests():
    ran, skipped = [], []
    for name, op, attrs, data_sets in onnx_cases():
        for inputs, outputs in data_sets:
            reason = onnx_skip_reason(op, attrs, list(inputs) + list(outputs))
            if reason:
                skipped.append((name, reason))
                continue
            got = run_onnx(op, attrs, list(inputs))
            np.testing.assert_array_equal(got, outputs[0], err_msg=name)
            ran.append(name)
    print(f"\nONNX node tests: {len(ran)} passed, {len(skipped)} skipped")
    for name, reason in skipped:
        print(f"  skipped {name}: {reason}")
    assert len(ran) >= 20, ran
