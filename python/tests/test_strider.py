"""The Python bindings against NumPy as the oracle: slicing (`x[a:b:c, ...]`, `np.flip`) for slice1 and slice,
`astype` for cast, float32 arithmetic for scale/bias and normalize; every dtype, ranks 1..8, input views with
negative, transposed and padded strides, outputs written into strided views (padding untouched), errors, threads.
Run by `cargo test` (python/tests/pytest.rs) with the freshly built module on PYTHONPATH."""

import concurrent.futures
import os
import threading

import numpy as np
import pytest

import strider

DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64,
          np.uint8, np.uint16, np.uint32, np.uint64]
SENTINEL = 0x5A


def rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def random_view(rng, shape, dtype):
    """An array of `shape` whose memory layout is one of: packed, transposed, flipped, padded, or all of them."""
    kind = rng.integers(0, 5)
    rank = len(shape)
    if kind == 0:
        return rand(rng, shape, dtype)
    if kind == 1:  # transposed: the data is stored in another axis order
        perm = rng.permutation(rank)
        base = rand(rng, [shape[p] for p in perm], dtype)
        return base.transpose(np.argsort(perm))
    if kind == 2:  # flipped along random axes (negative strides)
        x = rand(rng, shape, dtype)
        axes = [a for a in range(rank) if rng.integers(0, 2)]
        return np.flip(x, axis=axes) if axes else x
    if kind == 3:  # padded: a strided window of a larger array
        steps = [int(rng.integers(1, 3)) for _ in shape]
        base = rand(rng, [n * s + int(rng.integers(0, 2)) for n, s in zip(shape, steps)], dtype)
        return base[tuple(slice(0, n * s, s) for n, s in zip(shape, steps))]
    perm = rng.permutation(rank)  # transposed, padded and flipped at once
    big = rand(rng, [shape[p] * 2 for p in perm], dtype)[tuple(slice(None, None, 2) for _ in perm)]
    x = big.transpose(np.argsort(perm))
    return x[tuple(slice(None, None, -1) if rng.integers(0, 2) else slice(None) for _ in shape)]


def strided_out(rng, shape, dtype):
    """A writable view of `shape` inside a sentinel-filled buffer (padded, maybe transposed and flipped), and the
    buffer, whose bytes outside the view must stay untouched."""
    rank = len(shape)
    perm = rng.permutation(rank)
    pad = [int(rng.integers(0, 3)) for _ in shape]
    store = np.zeros([shape[p] + pad[i] for i, p in enumerate(perm)], dtype=dtype)
    store.view(np.uint8)[...] = SENTINEL
    view = store[tuple(slice(0, shape[p]) for p in perm)].transpose(np.argsort(perm))
    flips = tuple(slice(None, None, -1) if rng.integers(0, 2) else slice(None) for _ in shape)
    return view[flips], store


def assert_only_view_written(out, store):
    """Every byte of `store` outside the view `out` still holds the sentinel."""
    out[...] = np.frombuffer(bytes([SENTINEL]) * out.itemsize, dtype=out.dtype)[0]
    assert (store.view(np.uint8) == SENTINEL).all()


def window_of(rng, n):
    offset = int(rng.integers(0, n))
    size = int(rng.integers(1, n - offset + 1))
    stride = int(rng.integers(1, 4)) * (1 if rng.integers(0, 2) else -1)
    return offset, size, stride


def numpy_slice1(x, offsets, sizes, strides):
    index = []
    for o, w, t in zip(offsets, sizes, strides):
        if t > 0:
            index.append(slice(o, o + w, t))
        else:
            index.append(slice(o + w - 1, o - 1 if o > 0 else None, t))
    return x[tuple(index)]


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == np.ascontiguousarray(b).tobytes()


def shape_for(rng, rank):
    top = {1: 40, 2: 12, 3: 7, 4: 5, 5: 4, 6: 3, 7: 3, 8: 2}[rank]
    return [int(rng.integers(1, top + 1)) for _ in range(rank)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rank", range(1, 9))
def test_slice1_matches_numpy(dtype, rank):
    rng = np.random.default_rng(rank * 100 + DTYPES.index(dtype))
    for _ in range(6):
        x = random_view(rng, shape_for(rng, rank), dtype)
        window = [window_of(rng, n) for n in x.shape]
        offsets, sizes, strides = (list(t) for t in zip(*window))
        want = numpy_slice1(x, offsets, sizes, strides)
        got = strider.slice1(x, offsets, sizes, strides)
        assert got.flags.c_contiguous and same(got, want)
        out, store = strided_out(rng, want.shape, dtype)
        assert strider.slice1(x, offsets, sizes, strides, out=out) is out
        assert same(out, want)
        assert_only_view_written(out, store)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_slice_matches_numpy(dtype):
    rng = np.random.default_rng(7)
    for rank in range(1, 9):
        for _ in range(4):
            x = random_view(rng, shape_for(rng, rank), dtype)
            offsets, sizes, strides = [], [], []
            for n in x.shape:
                t = int(rng.integers(1, 4))
                o = int(rng.integers(0, n))
                s = int(rng.integers(1, (n - 1 - o) // t + 2))
                offsets.append(o), sizes.append(s), strides.append(t)
            want = x[tuple(slice(o, o + (s - 1) * t + 1, t) for o, s, t in zip(offsets, sizes, strides))]
            assert same(strider.slice(x, offsets, sizes, strides), want)
            out, _ = strided_out(rng, want.shape, dtype)
            assert strider.slice(x, offsets, sizes, strides, out=out) is out and same(out, want)


def test_spec_examples():
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    assert strider.slice1(x, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, 2]).ravel().tolist() == [2, 4, 10, 12]
    assert strider.slice1(x, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2]).ravel().tolist() == [14, 16, 6, 8]


@pytest.mark.parametrize("dtype", DTYPES)
def test_identity_between_layouts(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for rank in range(1, 9):
        shape = shape_for(rng, rank)
        x = random_view(rng, shape, dtype)
        out, store = strided_out(rng, shape, dtype)
        assert strider.identity(x, out) is out
        assert same(out, x)
        assert_only_view_written(out, store)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_identity_scale_bias(dtype):
    rng = np.random.default_rng(3)
    scale, bias = 0.37, -1.25
    for rank in (1, 3, 5):
        shape = shape_for(rng, rank)
        x = random_view(rng, shape, dtype)
        out, _ = strided_out(rng, shape, dtype)
        strider.identity(x, out, scale=scale, bias=bias)
        if dtype == np.float64:
            want = x * np.float64(np.float32(scale)) + np.float64(np.float32(bias))
        else:
            want = (x.astype(np.float32) * np.float32(scale) + np.float32(bias)).astype(dtype)
        assert same(out, want)


def test_identity_in_place_and_overlapping():
    a = np.arange(10, dtype=np.float32)
    assert strider.identity(a, a, scale=2.0) is a
    assert a.tolist() == [2.0 * i for i in range(10)]
    b = np.arange(10, dtype=np.int32)
    strider.identity(b[:-1], b[1:])  # reads before it writes, as numpy.copyto does
    assert b.tolist() == [0] + list(range(9))
    c = np.arange(12, dtype=np.int16)
    strider.identity(c[::-1], c)  # reverse in place
    assert c.tolist() == list(range(11, -1, -1))


def test_integer_scale_bias_is_a_type_error():
    with pytest.raises(TypeError, match="DML_SCALE_BIAS does not accept"):
        strider.identity(np.zeros(4, np.int32), np.zeros(4, np.int32), scale=2.0)


@pytest.mark.parametrize("src", DTYPES)
def test_cast_matches_astype(src):
    rng = np.random.default_rng(11)
    for dst in DTYPES:
        for rank in (1, 2, 4, 7):
            shape = shape_for(rng, rank)
            base = rng.integers(-100, 100, size=shape)
            if np.dtype(src).kind == "u" or np.dtype(dst).kind == "u":
                base = np.abs(base)
            x = random_view(rng, shape, src)
            x[...] = base.astype(src)
            want = x.astype(dst)
            assert same(strider.cast(x, dst), want)
            out, _ = strided_out(rng, shape, dst)
            assert strider.cast(x, np.dtype(dst).name, out=out) is out and same(out, want)


def test_cast_accepts_what_numpy_dtype_accepts():
    x = np.arange(5, dtype=np.uint8)
    for d in ("float32", "f4", np.float32, np.dtype("<f4"), float):
        got = strider.cast(x, d)
        assert got.dtype == np.dtype(d) and got.tolist() == [0, 1, 2, 3, 4]


def reference_normalize(window, dtype, mean, std, axis):
    mean = np.atleast_1d(np.asarray(mean, dtype=np.float64))
    std = np.atleast_1d(np.asarray(std, dtype=np.float64))
    shape = [1] * window.ndim
    if axis is not None:
        shape[axis] = -1
    scale = (1.0 / std).astype(np.float32).reshape(shape)
    bias = (-mean / std).astype(np.float32).reshape(shape)
    y = window.astype(np.float32) * scale + bias
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return y.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.rint(y), info.min, info.max).astype(dtype)


@pytest.mark.parametrize("dst", [np.float32, np.float16, np.int8, np.uint8, np.float64])
def test_normalize_crop_flip_layout(dst):
    rng = np.random.default_rng(5)
    for _ in range(8):
        n, h, w = int(rng.integers(1, 4)), int(rng.integers(4, 30)), int(rng.integers(4, 30))
        x = rng.integers(0, 256, size=(n, h, w, 3), dtype=np.uint8)  # NHWC
        if rng.integers(0, 2):
            x = x[:, :, ::-1, :]  # a horizontally flipped view
        offsets = [0, int(rng.integers(0, h // 2)), int(rng.integers(0, w // 2)), 0]
        sizes = [n, h - offsets[1], w - offsets[2], 3]
        strides = [1, int(rng.integers(1, 3)), int(rng.choice([-1, 1, 2])), -1]  # BGR -> RGB
        mean, std = [123.675, 116.28, 103.53], [58.395, 57.12, 57.375]
        want = reference_normalize(numpy_slice1(x, offsets, sizes, strides), dst, mean, std, 3)
        got = strider.normalize(x, dst, mean=mean, std=std, channel_axis=3, offsets=offsets, sizes=sizes,
                                strides=strides)
        assert same(got, want)
        # NCHW output memory through an out= view; sometimes with the channel axis flipped in memory
        nchw = np.empty((want.shape[0], 3, want.shape[1], want.shape[2]), dtype=dst)
        out = nchw.transpose(0, 2, 3, 1)
        if rng.integers(0, 2):
            out = nchw[:, ::-1].transpose(0, 2, 3, 1)
        assert strider.normalize(x, dst, mean=mean, std=std, channel_axis=-1, offsets=offsets, sizes=sizes,
                                 strides=strides, out=out) is out
        assert same(out, want)


def test_normalize_layout_moves_the_channel_axis():
    rng = np.random.default_rng(9)
    mean, std = [123.675, 116.28, 103.53], [58.395, 57.12, 57.375]
    for shape, axis in [((2, 5, 7, 3), 3), ((5, 7, 3), 2), ((5, 7, 3), -1), ((2, 3, 5, 7), 1), ((4, 3), 1),
                        ((2, 4, 5, 6, 3), 4)]:
        x = rng.integers(0, 256, size=shape, dtype=np.uint8)
        if rng.integers(0, 2):
            x = x[..., ::-1, :] if x.ndim > 2 else x[::-1]
        want = reference_normalize(x, np.float32, mean, std, axis % x.ndim)
        c = axis % x.ndim
        first = 1 if x.ndim >= 4 else 0
        for layout, at in [("nchw", first), ("NCHW", first), ("channels_first", first), ("nhwc", x.ndim - 1),
                           ("channels_last", x.ndim - 1)]:
            got = strider.normalize(x, np.float32, mean=mean, std=std, channel_axis=axis, layout=layout)
            assert got.flags.c_contiguous and got.shape[at] == 3
            assert same(got, np.moveaxis(want, c, at))
            op = strider.Normalize(np.float32, mean=mean, std=std, channel_axis=c, layout=layout)
            assert same(op(x), np.moveaxis(want, c, at))
        assert same(strider.normalize(x, np.float32, mean=mean, std=std, channel_axis=axis, layout=None), want)
    x = np.zeros((2, 4, 4, 3), np.uint8)
    with pytest.raises(ValueError, match="not a layout"):
        strider.normalize(x, np.float32, mean=0, std=1, channel_axis=3, layout="nwhc")
    with pytest.raises(ValueError, match="channel_axis"):
        strider.normalize(x, np.float32, mean=0, std=1, channel_axis=None, layout="nchw")
    with pytest.raises(ValueError, match="not both"):
        strider.normalize(x, np.float32, mean=0, std=1, channel_axis=3, layout="nchw",
                          out=np.empty(x.shape, np.float32))
    with pytest.raises(ValueError, match="channel_axis=7"):
        strider.normalize(x, np.float32, mean=0, std=1, channel_axis=7, layout="nchw")


IMAGENET = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])


def reference_image(x, dtype, mean, std, channels_last, top, left, h, w, rows=1, cols=1, flip_h=False,
                    flip_v=False, first=0, count=None, reverse=False, layout="nchw"):
    """normalize_image from its definition: NumPy slicing, then (x / unit - mean) / std as x * scale + bias."""
    if x.ndim == 3:
        return reference_image(x[None], dtype, mean, std, channels_last, top, left, h, w, rows, cols, flip_h,
                               flip_v, first, count, reverse, layout)[0]
    xs = x if channels_last else x.transpose(0, 2, 3, 1)  # work in NHWC
    count = xs.shape[3] - first if count is None else count

    def window(a, axis, offset, size, step, flipped):
        """DML_SLICE1 along one axis: from the window's first element, or from its last when flipped."""
        a = np.moveaxis(a, axis, 0)[offset:offset + size]
        a = a[::-1][::step] if flipped else a[::step]
        return np.moveaxis(a, 0, axis)

    win = window(xs, 1, top, h, rows, flip_v)
    win = window(win, 2, left, w, cols, flip_h)
    win = window(win, 3, first, count, 1, reverse)
    if mean is None:
        y = win.astype(np.float32)
    else:
        unit = float(np.iinfo(x.dtype).max) if x.dtype.kind == "u" else 1.0
        m = np.asarray(np.float32(mean), np.float64).reshape(-1)
        sd = np.asarray(np.float32(std), np.float64).reshape(-1)
        scale = (1.0 / (unit * sd)).astype(np.float32)
        bias = (-m / sd).astype(np.float32)
        y = win.astype(np.float32) * scale + bias
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        info = np.iinfo(dtype)
        y = np.clip(np.rint(y), info.min, info.max)
    y = y.astype(dtype)
    return y.transpose(0, 3, 1, 2) if layout == "nchw" else y


def test_normalize_image_matches_its_definition():
    rng = np.random.default_rng(17)
    for case in range(40):
        n, h, w = int(rng.integers(1, 3)), int(rng.integers(3, 40)), int(rng.integers(3, 40))
        c = int(rng.choice([1, 3, 4]))
        dtype = [np.float32, np.float16, np.uint8, np.int8][case % 4]
        src = rng.integers(0, 256, size=(n, h, w, c), dtype=np.uint8)
        if case % 5 == 4:
            src = rng.integers(0, 65536, size=(n, h, w, c), dtype=np.uint16)
        channels_last = bool(rng.integers(0, 2))
        x = src if channels_last else np.ascontiguousarray(src.transpose(0, 3, 1, 2))
        if rng.integers(0, 2):  # a flipped view of the input
            x = x[:, ::-1] if channels_last else x[:, :, ::-1]
        if case % 7 == 3:
            x = x[0]  # one image
        ch, cw = int(rng.integers(1, h + 1)), int(rng.integers(1, w + 1))
        kw = {}
        if rng.integers(0, 2):
            kw["center_crop"] = (ch, cw) if ch != cw or rng.integers(0, 2) else ch
            top, left = (h - ch) // 2, (w - cw) // 2
        else:
            top, left = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
            kw["crop"] = (top, left, ch, cw)
        rows, cols = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        if rows > 1 or cols > 1:
            kw["subsample"] = (rows, cols)
        flip_h, flip_v, reverse = (bool(rng.integers(0, 2)) for _ in range(3))
        first, count = 0, c
        if c == 4 and rng.integers(0, 2):
            first, count = 0, 3
            kw["channels"] = (0, 3)
        mean = std = None
        if rng.integers(0, 3) == 0 and count == 3:
            kw["imagenet"] = True
            mean, std = IMAGENET
        elif rng.integers(0, 2):
            mean = [float(v) for v in rng.uniform(0, 1, count)]
            std = [float(v) for v in rng.uniform(0.1, 1, count)]
            kw["mean"], kw["std"] = mean, std
        layout = "nchw" if rng.integers(0, 2) else "nhwc"
        want = reference_image(x, dtype, mean, std, channels_last, top, left, ch, cw, rows, cols, flip_h, flip_v,
                               first, count, reverse, layout)
        got = strider.normalize_image(x, dtype, flip_horizontal=flip_h, flip_vertical=flip_v,
                                      reverse_channels=reverse, channels_last=channels_last, layout=layout, **kw)
        assert got.dtype == np.dtype(dtype) and got.flags.c_contiguous, case
        assert same(got, want), (case, kw, flip_h, flip_v, reverse, layout)
        out = np.empty(want.shape, dtype)
        assert strider.normalize_image(x, dtype, flip_horizontal=flip_h, flip_vertical=flip_v,
                                       reverse_channels=reverse, channels_last=channels_last, layout=layout,
                                       out=out, threads=1, **kw) is out
        assert same(out, want), case


def test_normalize_image_defaults_and_errors():
    x = np.random.default_rng(3).integers(0, 256, size=(2, 8, 10, 3), dtype=np.uint8)
    got = strider.normalize_image(x)  # float32 NCHW, values unchanged
    assert got.shape == (2, 3, 8, 10) and same(got, x.transpose(0, 3, 1, 2).astype(np.float32))
    imagenet = strider.normalize_image(x, center_crop=6, reverse_channels=True, imagenet=True)
    assert same(imagenet, reference_image(x, np.float32, *IMAGENET, True, 1, 2, 6, 6, reverse=True))
    for kw, message in [
        (dict(center_crop=9), "center_crop \\(9, 9\\) does not fit the 8x10 images"),
        (dict(center_crop=4, crop=(0, 0, 4, 4)), "not both"),
        (dict(imagenet=True, mean=0.5, std=0.2), "not both"),
        (dict(mean=0.5), "give both mean= and std="),
        (dict(subsample=0), "at least 1"),
        (dict(layout="nwhc"), "not a layout"),
        (dict(mean=[0.5, 0.5], std=0.2), "mean"),
        (dict(mean=0.5, std=0.0), "std"),
        (dict(out=np.empty((2, 8, 10, 3), np.float32)), "out has shape \\[2, 8, 10, 3\\]; the result's is \\[2, 3, 8, 10\\]"),
        (dict(crop=(4, 0, 8, 10)), "offset 4 \\+ size 8 = 12\\) extends beyond the input size 8"),
    ]:
        with pytest.raises(ValueError, match=message):
            strider.normalize_image(x, **kw)
    with pytest.raises(ValueError, match="images has 2 dimensions"):
        strider.normalize_image(x[0, 0])
    with pytest.raises(TypeError, match="center_crop must be an int or a pair"):
        strider.normalize_image(x, center_crop="big")
    assert "center_crop" in strider.normalize_image.__doc__ and "Example" in strider.normalize_image.__doc__


def test_every_public_name_has_a_docstring_with_an_example():
    for name in dir(strider):
        if name.startswith("_") or name == "DTypeError":
            continue
        doc = getattr(strider, name).__doc__ or ""
        assert len(doc) >= 150 and "Example" in doc, (name, doc)
    assert "normalize_image" in strider.__doc__


def test_normalize_without_window_and_scalar_parameters():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = strider.normalize(x, np.float16, mean=2.0, std=4.0, channel_axis=None)
    assert same(got, ((x - 2.0) / 4.0).astype(np.float16))
    got = strider.normalize(x, "float32", mean=[1, 2, 3], std=2.0, channel_axis=1)
    assert same(got, reference_normalize(x, np.float32, [1, 2, 3], [2.0], 1))


def test_reusable_operators():
    rng = np.random.default_rng(2)
    op = strider.Slice1([0, 1], [4, 5], [-1, 2])
    for _ in range(3):
        x = rand(rng, (6, 7), np.uint16)
        assert same(op(x), numpy_slice1(x, [0, 1], [4, 5], [-1, 2]))
    y = rand(rng, (6, 7), np.uint16)[::-1]  # another layout: planned again
    assert same(op(y), numpy_slice1(y, [0, 1], [4, 5], [-1, 2]))
    cast = strider.Cast(np.float32)
    assert same(cast(np.arange(3, dtype=np.int8)), np.arange(3, dtype=np.float32))
    ident = strider.Identity(scale=2.0)
    out = np.empty(3, np.float32)
    assert ident(np.ones(3, np.float32), out) is out and out.tolist() == [2, 2, 2]
    sl = strider.Slice([1], [2], [2])
    assert sl(np.arange(6)).tolist() == [1, 3]
    norm = strider.Normalize(np.float32, mean=1.0, std=2.0, channel_axis=0)
    assert norm(np.full((2, 2), 5, np.uint8)).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert repr(op) == "strider.Slice1(offsets=[0, 1], sizes=[4, 5], strides=[-1, 2])"
    r = repr(strider.Normalize(np.float16, mean=127.5, std=127.5, channel_axis=3, layout="nchw"))
    assert r == "strider.Normalize(float16, scale=[0.007843138], bias=[-1.0], channel_axis=3, layout='nchw')", r
    assert repr(strider.Identity(scale=2.0, bias=0.5)) == "strider.Identity(scale=2.0, bias=0.5)"
    assert repr(strider.Cast("f2")) == "strider.Cast(float16)"


def test_threads_give_identical_results():
    x = np.random.default_rng(0).integers(0, 255, size=(600, 700, 3), dtype=np.uint8)
    want = numpy_slice1(x, [0, 0, 0], [600, 700, 3], [1, -1, -1])
    for threads in (None, 1, 2, 3):
        assert same(strider.slice1(x, [0, 0, 0], [600, 700, 3], [1, -1, -1], threads=threads), want)
    with pytest.raises(ValueError, match="threads=0"):
        strider.slice1(x, [0, 0, 0], [600, 700, 3], [1, 1, 1], threads=0)


def test_concurrent_calls_from_python_threads():
    rng = np.random.default_rng(9)
    op = strider.Slice1([0, 0], [300, 400], [2, -1])
    arrays = [rand(rng, (300, 400), np.float32) for _ in range(8)]
    wants = [numpy_slice1(a, [0, 0], [300, 400], [2, -1]) for a in arrays]
    barrier = threading.Barrier(8)

    def work(i):
        barrier.wait()
        results = [op(arrays[i]) for _ in range(20)] + [strider.slice1(arrays[i], [0, 0], [300, 400], [2, -1])]
        return all(same(r, wants[i]) for r in results)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(8)))


def test_errors():
    x = np.zeros((4, 5), np.float32)
    with pytest.raises(ValueError, match="out has shape"):
        strider.slice1(x, [0, 0], [4, 5], [1, 1], out=np.zeros((4, 4), np.float32))
    # a dtype problem is a strider.DTypeError: both a TypeError and a ValueError
    for exc in (TypeError, ValueError, strider.DTypeError):
        with pytest.raises(exc, match="out has dtype"):
            strider.slice1(x, [0, 0], [4, 5], [1, 1], out=np.zeros((4, 5), np.float64))
    ro = np.zeros((4, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        strider.slice1(x, [0, 0], [4, 5], [1, 1], out=ro)
    # the window's errors speak in the caller's coordinates, also on a flipped view
    for view in (x, x[::-1, ::-1]):
        with pytest.raises(ValueError, match=r"window of dimension 1 \(offset 3 \+ size 3 = 6\) extends beyond"):
            strider.slice1(view, [0, 3], [4, 3], [1, 1])
        with pytest.raises(ValueError, match="window stride of dimension 0 is 0"):
            strider.slice1(view, [0, 0], [4, 5], [0, 1])
    with pytest.raises(ValueError, match="offsets has 1 values but x has 2 dimensions"):
        strider.slice1(x, [0], [4], [1])
    with pytest.raises(ValueError, match="slice stride of dimension 1 is 0"):
        strider.slice(x, [0, 0], [2, 2], [1, 0])
    with pytest.raises(ValueError, match="offsets\\[0\\] is -1"):
        strider.slice1(x, [-1, 0], [4, 5], [1, 1])
    odd = np.ndarray((3,), np.int32, buffer=np.zeros(16, np.uint8), offset=0, strides=(5,))
    with pytest.raises(ValueError, match="not a multiple of its 4-byte items"):
        strider.slice1(odd, [0], [3], [1])
    with pytest.raises(ValueError, match="byte order"):
        strider.cast(np.zeros(3, dtype=">f4"), np.float32)
    with pytest.raises(TypeError, match="complex64"):
        strider.cast(np.zeros(3, np.complex64), np.float32)
    with pytest.raises(TypeError, match="bool"):
        strider.cast(np.zeros(3, np.float32), bool)
    with pytest.raises(ValueError, match="9 dimensions"):
        strider.slice1(np.zeros([1] * 9, np.uint8), [0] * 9, [1] * 9, [1] * 9)
    with pytest.raises(ValueError, match="axis 1 is empty"):
        strider.cast(np.zeros((2, 0)), np.float32)
    with pytest.raises(ValueError, match="address the same element"):
        strider.identity(np.zeros((2, 3), np.uint8), np.lib.stride_tricks.as_strided(np.zeros(3, np.uint8), (2, 3), (0, 1)))
    with pytest.raises(ValueError, match=r"std\[1\] is 0"):
        strider.normalize(x, np.float32, mean=0.0, std=[1.0, 0.0, 1.0, 1.0, 1.0], channel_axis=1)
    with pytest.raises(ValueError, match="channel_axis=2"):
        strider.normalize(x, np.float32, mean=0.0, std=1.0, channel_axis=2)
    with pytest.raises(ValueError, match="std has 2 values"):
        strider.normalize(x, np.float32, mean=0.0, std=[1.0, 2.0], channel_axis=1)
    with pytest.raises(ValueError, match="0-dimensional"):
        strider.slice1(np.ones(()), [], [], [])
    # Values that do not fit DirectML's float32 parameters are errors, never infinities (issue 40).
    f = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="scale=1e300 does not fit a float32"):
        strider.identity(f, f.copy(), scale=1e300)
    with pytest.raises(ValueError, match="bias=-1e300 does not fit a float32"):
        strider.Identity(bias=-1e300)
    with pytest.raises(ValueError, match=r"std\[0\]=1e-300 give a scale 1/std"):
        strider.normalize(x, np.float32, mean=0.0, std=1e-300, channel_axis=None)


def test_zero_dimensional_cast_and_identity():
    x = np.array(3.5, dtype=np.float64)
    got = strider.cast(x, np.int16)
    assert got.shape == () and got.dtype == np.int16 and int(got) == 3


def test_calc_buffer_tensor_size_and_info():
    assert strider.calc_buffer_tensor_size(np.uint8, [2, 2, 3]) == 12
    assert strider.calc_buffer_tensor_size("int8", [2, 2, 3], [12, 5, 1]) == 20
    assert strider.calc_buffer_tensor_size(np.float16, [3]) == 8
    with pytest.raises(ValueError, match="size of dimension 1 is 0"):
        strider.calc_buffer_tensor_size(np.float32, [2, 0])
    info = strider.info()
    assert info["version"] == strider.__version__ and info["isa"] in info["isas"] and info["threads"] >= 1


def test_torch_tensors_share_memory():
    torch = pytest.importorskip("torch")
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    out = torch.empty(3, 4)
    strider.slice1(t, [0, 0], [3, 4], [-1, 1], out=out)
    assert out.tolist() == torch.flip(t, [0]).tolist()


# The data-movement family against NumPy: views of any strides (negative too), every dtype, out= views.

MOVE_DTYPES = [np.uint8, np.int8, np.int16, np.uint16, np.float16, np.int32, np.float32, np.uint32, np.float64,
               np.int64, np.uint64]


def strided_views(rng, shape, dtype):
    """The array of `shape` as a C-ordered array, a transposed view, a padded view and a flipped view."""
    base = (rng.integers(0, 250, size=shape)).astype(dtype)
    yield base
    if len(shape) >= 2:
        yield np.ascontiguousarray(base.swapaxes(0, -1)).swapaxes(0, -1)
    big = np.zeros([n + 2 for n in shape], dtype)
    big[tuple(slice(1, 1 + n) for n in shape)] = base
    yield big[tuple(slice(1, 1 + n) for n in shape)]
    flipped = np.ascontiguousarray(np.flip(base, axis=-1))
    yield np.flip(flipped, axis=-1)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("dtype", MOVE_DTYPES)
def test_pad_matches_numpy(mode, dtype):
    rng = np.random.default_rng(1)
    for shape in [(7,), (3, 5), (2, 3, 4)]:
        pads = [(int(rng.integers(0, 4)), int(rng.integers(0, 6))) for _ in shape]
        for x in strided_views(rng, shape, dtype):
            kwargs = {"constant_values": 7} if mode == "constant" else {}
            want = np.pad(x, pads, mode=mode, **kwargs)
            got = strider.pad(x, [p[0] for p in pads], [p[1] for p in pads], mode=mode, value=7)
            np.testing.assert_array_equal(got, want)
            # into a flipped out= view
            out = np.zeros(want.shape[::-1], dtype).T[::-1]
            assert strider.pad(x, [p[0] for p in pads], [p[1] for p in pads], mode=mode, value=7, out=out) is out
            np.testing.assert_array_equal(out, want)
    # borders wider than the input fold as NumPy's do
    x = np.arange(3, dtype=np.int32)
    for m in ["reflect", "symmetric", "wrap", "edge"]:
        np.testing.assert_array_equal(strider.pad(x, [11], [8], mode=m), np.pad(x, (11, 8), mode=m))


def test_pad_value_converts_by_cast_rules():
    x = np.zeros((2, 2), np.uint8)
    np.testing.assert_array_equal(strider.pad(x, [1, 0], [0, 0], value=114.7)[0], [114, 114])
    np.testing.assert_array_equal(strider.pad(x.astype(np.float32), [1, 0], [0, 0], value=0.5)[0], [0.5, 0.5])
    np.testing.assert_array_equal(strider.pad(x.astype(np.int16), [1, 0], [0, 0], value=-3)[0], [-3, -3])


@pytest.mark.parametrize("dtype", MOVE_DTYPES)
def test_join_split_match_numpy(dtype):
    rng = np.random.default_rng(2)
    for axis in [0, 1, -1]:
        parts = [(rng.integers(0, 100, size=(3, k, 4))).astype(dtype) for k in (1, 3, 2)]
        if axis != 1:
            parts = [np.ascontiguousarray(np.moveaxis(p, 1, axis)) for p in parts]
        views = [parts[0], parts[1][..., ::-1][..., ::-1], np.asfortranarray(parts[2])]
        want = np.concatenate(views, axis=axis)
        np.testing.assert_array_equal(strider.join(views, axis=axis), want)
        out = np.empty(want.shape[::-1], dtype).T
        assert strider.join(views, axis=axis, out=out) is out
        np.testing.assert_array_equal(out, want)
        sizes = [v.shape[axis] for v in views]
        got = strider.split(want[::-1][::-1], sizes, axis=axis)
        assert isinstance(got, list) and len(got) == 3
        for g, v in zip(got, views):
            np.testing.assert_array_equal(g, v)
            assert not np.shares_memory(g, want)
        outs = [np.zeros(v.shape, dtype) for v in views]
        assert strider.split(want, sizes, axis=axis, outs=outs) is outs
        for o, v in zip(outs, views):
            np.testing.assert_array_equal(o, v)


@pytest.mark.parametrize("dtype", MOVE_DTYPES)
def test_tile_and_depth_space_match_numpy(dtype):
    rng = np.random.default_rng(3)
    for x in strided_views(rng, (2, 3, 4), dtype):
        np.testing.assert_array_equal(strider.tile(x, [2, 1, 3]), np.tile(x, (2, 1, 3)))
    b = 2
    for x in strided_views(rng, (2, 8, 3, 5), dtype):
        n, c, h, w = x.shape
        dcr = x.reshape(n, b, b, c // 4, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // 4, h * b, w * b)
        crd = x.reshape(n, c // 4, b, b, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // 4, h * b, w * b)
        np.testing.assert_array_equal(strider.depth_to_space(x, b), dcr)
        np.testing.assert_array_equal(strider.depth_to_space(x, b, mode="CRD"), crd)
        np.testing.assert_array_equal(strider.space_to_depth(dcr, b), x)
        np.testing.assert_array_equal(strider.space_to_depth(crd[:, :, ::-1][:, :, ::-1], b, mode="CRD"), x)


@pytest.mark.parametrize("dtype", MOVE_DTYPES)
def test_fills_match_numpy(dtype):
    out = np.zeros((3, 5), dtype)[:, ::-1]
    assert strider.fill(out, 7) is out
    np.testing.assert_array_equal(out, np.full((3, 5), 7, dtype))
    seq = np.zeros((4, 6), dtype).T  # indices count in C order over the shape
    strider.fill_sequence(seq, 2, 3)
    want = (2 + 3 * np.arange(24, dtype=np.float64 if np.dtype(dtype).kind == "f" else np.int64)).astype(dtype)
    np.testing.assert_array_equal(seq, want.reshape(6, 4))
    if np.dtype(dtype).kind == "f":
        f = np.empty(1000, dtype)
        strider.fill_sequence(f, 0.1, 0.01)
        np.testing.assert_array_equal(f, (0.1 + np.arange(1000) * 0.01).astype(dtype))


def test_movement_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="mode=\"mirror\""):
        strider.pad(x, [1, 1], [1, 1], mode="mirror")
    with pytest.raises(ValueError, match="start has 1 values but x has 2 dimensions"):
        strider.pad(x, [1], [1, 1])
    with pytest.raises((ValueError, OverflowError)):
        strider.pad(x, [-1, 0], [0, 0])
    with pytest.raises(ValueError, match="REFLECTION padding of dimension 0"):
        strider.pad(np.zeros((1, 3)), [1, 0], [0, 0], mode="reflect")
    with pytest.raises(ValueError, match="axis=2 is not an axis"):
        strider.join([x, x], axis=2)
    with pytest.raises(ValueError, match="input 1 tensor has size 4 in dimension 0"):
        strider.join([x, np.zeros((4, 3), np.float32)], axis=1)
    with pytest.raises(strider.DTypeError, match="arrays\\[1\\] has dtype f16"):
        strider.join([x, x.astype(np.float16)])
    with pytest.raises(ValueError, match="arrays is empty"):
        strider.join([])
    with pytest.raises(ValueError, match="add up to 2 but the input tensor has 3"):
        strider.split(x, [1, 1], axis=1)
    with pytest.raises(ValueError, match="repeats has 1 values"):
        strider.tile(x, [2])
    with pytest.raises(ValueError, match="repeats\\[1\\] is 0"):
        strider.tile(x, [1, 0])
    with pytest.raises(ValueError, match="mode=\"dcr\""):
        strider.depth_to_space(np.zeros((1, 4, 1, 1)), 2, mode="dcr")
    with pytest.raises(ValueError, match="not a multiple of block_size"):
        strider.depth_to_space(np.zeros((1, 6, 1, 1)), 2)
    with pytest.raises(strider.DTypeError, match="out has dtype f64"):
        strider.tile(x, [1, 1], out=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="out has shape"):
        strider.tile(x, [1, 2], out=np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="0-dimensional"):
        strider.pad(np.float32(1), [], [])
    with pytest.raises(ValueError, match="axis 1 is empty"):
        strider.tile(np.zeros((2, 0)), [1, 1])
    with pytest.raises(ValueError, match="read-only"):
        ro = np.zeros(3)
        ro.flags.writeable = False
        strider.fill(ro, 1.0)


def test_messages_name_the_first_problem():
    photo = np.zeros((4, 5, 3), np.uint8)
    with pytest.raises(ValueError, match=r"channel_axis=7 is not an axis of x, which has 3 dimensions"):
        strider.Normalize(np.float32, mean=[1, 2, 3], std=1, channel_axis=7)(photo)
    with pytest.raises(ValueError, match=r"threads=-1"):
        strider.cast(photo, np.float32, threads=-1)
    with pytest.raises(ValueError, match=r"std\[0\] is 0"):
        strider.normalize(photo, np.float32, mean=0, std=0, channel_axis=None)
    with pytest.raises(ValueError, match=r"but x has 1 dimension;"):
        strider.slice1(np.zeros(4, np.uint8), [0, 0], [1, 1], [1, 1])


def test_docstrings_at_run_time():
    assert "normalize" in strider.__doc__ and "layout" in strider.__doc__
    doc = strider.normalize.__doc__
    for word in ("channel_axis", "layout", "mean", "Example"):
        assert word in doc, word
    assert "ndim" not in strider.Normalize.__doc__


def test_bench_script_runs_from_the_repository():
    import subprocess
    import sys
    bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench.py")
    r = subprocess.run([sys.executable, bench, "--filter", "doc_example", "--seconds", "0.01"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "doc_example" in r.stdout
