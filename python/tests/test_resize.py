"""`strider.resize` against its oracles: Pillow's `Image.resize` (antialias=True; float32 images in Pillow's "F" mode,
which sums in float64, and uint8 images), OpenCV's `cv2.resize` (antialias=False; uint8 and float32) and NumPy for
the layouts (batches, negative and padded strides, out=, float16, threads); every error.

uint8 results may differ from Pillow's and OpenCV's by 1: both round (Pillow) or fix-point (OpenCV) the intermediate
image between their two passes, where Strider keeps float32 sums. Pillow clamps that intermediate image to 0..255;
Strider clamps after the horizontal pass, as Pillow's `Resample.c` (horizontal pass first) and torchvision's
antialiased uint8 resize do. Pillow 13 runs the vertical pass first for some shrinking heights, which moves that clamp:
where a bicubic overshoots 0..255 (sharp edges) the two orders then differ by more than 1 (up to 21 seen, while
torch stays within 1 of Strider). Bicubic uint8 images are compared on values that do not overshoot."""

import numpy as np
import pytest

import strider

PIL = pytest.importorskip("PIL.Image")
cv2 = pytest.importorskip("cv2")

FILTERS = ["nearest", "bilinear", "bicubic", "area"]
PILLOW = {"nearest": PIL.NEAREST, "bilinear": PIL.BILINEAR, "bicubic": PIL.BICUBIC, "area": PIL.BOX}
OPENCV = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "bicubic": cv2.INTER_CUBIC,
          "area": cv2.INTER_AREA}
# Shrinking and growing by integer and other factors, 1-pixel images and results, extreme aspect ratios.
SIZES = [((37, 53), (11, 17)), ((11, 17), (37, 53)), ((64, 64), (32, 32)), ((1, 1), (5, 3)), ((5, 3), (1, 1)),
         ((480, 640), (224, 224)), ((33, 97), (20, 60)), ((8, 8), (3, 5)), ((20, 20), (30, 30)), ((1, 40), (7, 9)),
         ((16, 16), (16, 16)), ((300, 200), (299, 201)), ((90, 2), (3, 31)), ((100, 30), (7, 90))]


def image(rng, h, w, c):
    """A random uint8 image with smooth regions and sharp edges."""
    x = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    x[: h // 2] = x[: h // 2] // 64 * 64
    return x


def pillow(x, size, f):
    h, w, c = x.shape
    mode = {1: "L", 3: "RGB", 4: "RGBX"}[c]  # RGBX: four channels resized alike (RGBA is premultiplied)
    im = PIL.frombytes(mode, (w, h), np.ascontiguousarray(x).tobytes())
    y = np.asarray(im.resize((size[1], size[0]), PILLOW[f]))
    return y.reshape(size[0], size[1], c)


@pytest.mark.parametrize("f", FILTERS)
def test_matches_pillow(f):
    rng = np.random.default_rng(1)
    for (h, w), size in SIZES:
        for c in (1, 3, 4):
            x = image(rng, h, w, c)
            if f == "bicubic":
                x = x // 2 + 64  # 64..191: no overshoot leaves 0..255, so the order of the passes does not matter
            got = strider.resize(x if c > 1 else x[..., 0], size, f).reshape(size[0], size[1], c)
            diff = np.abs(got.astype(int) - pillow(x, size, f).astype(int)).max()
            assert diff <= (0 if f == "nearest" else 1), (f, (h, w, c), size, diff)
            xf = x[..., 0].astype(np.float32) / 255
            want = np.asarray(PIL.fromarray(xf, "F").resize((size[1], size[0]), PILLOW[f]))
            np.testing.assert_allclose(strider.resize(xf, size, f), want, rtol=0, atol=2e-6, err_msg=f"{f} {size}")


@pytest.mark.parametrize("f", FILTERS)
def test_matches_opencv(f):
    rng = np.random.default_rng(2)
    for (h, w), size in SIZES:
        for c in (1, 3, 4):
            x = image(rng, h, w, c)
            if c == 1:
                x = x[..., 0]
            want = cv2.resize(x, (size[1], size[0]), interpolation=OPENCV[f])
            got = strider.resize(x, size, f, antialias=False)
            diff = np.abs(got.astype(int) - want.astype(int)).max()
            assert diff <= (0 if f == "nearest" else 1), (f, (h, w, c), size, diff)
            xf = x.astype(np.float32) / 255
            want = cv2.resize(xf, (size[1], size[0]), interpolation=OPENCV[f])
            got = strider.resize(xf, size, f, antialias=False)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-4, err_msg=f"{f} {(h, w, c)} {size}")


def test_layouts_batches_out_and_threads():
    rng = np.random.default_rng(3)
    batch = np.stack([image(rng, 45, 61, 3) for _ in range(3)])
    want = np.stack([strider.resize(im, (20, 33), "bicubic") for im in batch])
    np.testing.assert_array_equal(strider.resize(batch, (20, 33), "bicubic"), want)
    # Negative and padded strides are read in place.
    flipped = batch[:, ::-1, ::-1]
    np.testing.assert_array_equal(strider.resize(flipped, (20, 33)), strider.resize(flipped.copy(), (20, 33)))
    padded = np.zeros((3, 45, 70, 4), np.uint8)
    padded[:, :, :61, :3] = batch
    view = padded[:, :, :61, :3]
    np.testing.assert_array_equal(strider.resize(view, (20, 33)), strider.resize(batch, (20, 33)))
    # out= in any layout, returned.
    out = np.zeros((3, 3, 20, 33), np.uint8).transpose(0, 2, 3, 1)
    assert strider.resize(batch, (20, 33), "bicubic", out=out) is out
    np.testing.assert_array_equal(out, want)
    # One int for both sides.
    assert strider.resize(batch[0], 16).shape == (16, 16, 3)
    # float16 as float32 rounded once.
    xh = (rng.random((40, 30, 3)) * 4 - 1).astype(np.float16)
    got = strider.resize(xh, (17, 50), "bilinear")
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), strider.resize(xh.astype(np.float32), (17, 50)), rtol=1e-3,
                               atol=1e-3)
    # The same bits on one thread and on many.
    big = image(rng, 700, 900, 3)
    np.testing.assert_array_equal(strider.resize(big, (300, 500), threads=1), strider.resize(big, (300, 500), threads=2))


def test_errors():
    x = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(ValueError, match="filter"):
        strider.resize(x, (4, 4), "lanczos")
    with pytest.raises(ValueError, match="at least 1"):
        strider.resize(x, (0, 4))
    with pytest.raises(ValueError, match="dimension"):
        strider.resize(np.zeros(8, np.uint8), (4, 4))
    with pytest.raises(ValueError, match="dimension"):
        strider.resize(np.zeros((1, 1, 8, 8, 3), np.uint8), (4, 4))
    with pytest.raises(ValueError, match="Resize does not accept"):
        strider.resize(x.astype(np.int32), (4, 4))
    with pytest.raises(ValueError, match="shape"):
        strider.resize(x, (4, 4), out=np.zeros((4, 5, 3), np.uint8))
    with pytest.raises(TypeError, match="dtype"):
        strider.resize(x, (4, 4), out=np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="in place"):
        strider.resize(x, (8, 8), out=x)
    with pytest.raises(ValueError, match="read-only"):
        out = np.zeros((4, 4, 3), np.uint8)
        out.flags.writeable = False
        strider.resize(x, (4, 4), out=out)
    with pytest.raises(ValueError, match="threads"):
        strider.resize(x, (4, 4), threads=0)


def test_letterbox_geometry_is_yolos():
    rng = np.random.default_rng(4)
    for _ in range(2000):
        hh, ww, h, w = (int(v) for v in rng.integers(1, 3000, 4))
        # ultralytics' LetterBox: r = min(h / H, w / W); unpadded = round(W·r), round(H·r); half the padding each side,
        # int(round(d - 0.1)) before. (A side that rounds to 0 there stays 1 pixel in Strider.)
        r = min(h / hh, w / ww)
        nw, nh = max(1, int(round(ww * r))), max(1, int(round(hh * r)))
        dw, dh = (w - nw) / 2, (h - nh) / 2
        want = (r, int(round(dh - 0.1)), int(round(dw - 0.1)), nh, nw)
        assert strider.letterbox_geometry((hh, ww), (h, w)) == want, ((hh, ww), (h, w))
    assert strider.letterbox_geometry((720, 1280), 640) == (0.5, 140, 0, 360, 640)
    with pytest.raises(ValueError, match="at least 1|1 to"):
        strider.letterbox_geometry((0, 5), 640)
    with pytest.raises(ValueError):
        strider.letterbox_geometry((5, 5), (640, 0))
