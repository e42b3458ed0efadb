"""`strider.preprocess` (resize, crop, flip, channel order, normalization, cast and layout in one pass per image)
against its parts: Pillow's or OpenCV's resize to uint8 then NumPy's crop and normalization (within one input unit
times the scale: they round the resized image to uint8, Strider keeps it float32), `strider.resize` of float32
images then NumPy (within float32 rounding), YOLO's letterbox as ultralytics writes it with OpenCV; lists of images
of different sizes against one call per image; layouts, out=, threads; every error."""

import numpy as np
import pytest

import strider

PIL = pytest.importorskip("PIL.Image")
cv2 = pytest.importorskip("cv2")

PILLOW = {"nearest": PIL.NEAREST, "bilinear": PIL.BILINEAR, "bicubic": PIL.BICUBIC, "area": PIL.BOX}
OPENCV = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "bicubic": cv2.INTER_CUBIC,
          "area": cv2.INTER_AREA}
MEAN = np.array([123.675, 116.28, 103.53])
STD = np.array([58.395, 57.12, 57.375])


def frame(rng, h, w, c=3):
    x = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    x[: h // 3] = x[: h // 3] // 32 * 32 + 16  # smooth regions beside noise
    return x


def pillow(x, size, f):
    h, w, _ = x.shape
    return np.asarray(PIL.fromarray(np.ascontiguousarray(x), "RGB").resize((size[1], size[0]), PILLOW[f]))


def shorter(h, w, s):
    """torchvision's Resize(int)."""
    return (s, int(s * w / h)) if h <= w else (int(s * h / w), s)


def center(h, w, ch, cw):
    """torchvision's center_crop offsets."""
    return int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0))


@pytest.mark.parametrize("f", ["nearest", "bilinear", "bicubic", "area"])
def test_classification_pipeline_matches_pillow_then_numpy(f):
    rng = np.random.default_rng(3)
    for (h, w) in [(480, 640), (300, 257), (256, 256), (100, 720), (223, 225)]:
        x = frame(rng, h, w)
        if f == "bicubic":
            x = x // 2 + 64  # no overshoot: Pillow's order of passes does not matter (see test_resize.py)
        bgr = x[..., ::-1]
        got = strider.preprocess(bgr, 256, resize="shorter", crop=224, filter=f, bgr_to_rgb=True, mean=MEAN,
                                 std=STD)
        assert got.shape == (3, 224, 224) and got.dtype == np.float32
        rh, rw = shorter(h, w, 256)
        r = pillow(x, (rh, rw), f).astype(np.float64)
        top, left = center(rh, rw, 224, 224)
        want = ((r[top:top + 224, left:left + 224] - MEAN) / STD).transpose(2, 0, 1)
        # One input unit (Pillow rounds to uint8) times the scale, and float32 rounding. Bicubic: Pillow also
        # rounds its intermediate image, which the negative lobes amplify (Σ|w| > 1): 1.25 units.
        units = {"nearest": 0, "bicubic": 1.25}.get(f, 1)
        assert np.abs(got - want).max() <= units / STD.min() + 1e-5, (f, (h, w), np.abs(got - want).max())
        # Against Pillow's filter evaluated in float64 (its "F" mode, per channel): Strider's uint8 weights in
        # fixed point and float32 sums stay within 0.02 input units.
        exact = np.stack([np.asarray(PIL.fromarray(x[..., k].astype(np.float32), "F").resize((rw, rh), PILLOW[f]))
                          for k in range(3)], axis=2).astype(np.float64)
        want = ((exact[top:top + 224, left:left + 224] - MEAN) / STD).transpose(2, 0, 1)
        assert np.abs(got - want).max() <= 0.02 / STD.min(), (f, (h, w), np.abs(got - want).max() * STD.min())


@pytest.mark.parametrize("f", ["nearest", "bilinear", "bicubic", "area"])
def test_float_images_equal_resize_then_normalize(f):
    rng = np.random.default_rng(4)
    x = rng.random((61, 83, 3), dtype=np.float32)
    for antialias in (True, False):
        r = strider.resize(x, (40, 30), f, antialias=antialias).astype(np.float64)
        got = strider.preprocess(x, (40, 30), filter=f, antialias=antialias, crop=(31, 20), flip=True,
                                 mean=(0.5, 0.4, 0.3), std=(0.2, 0.25, 0.3), layout="nhwc")
        top, left = center(40, 30, 31, 20)
        want = (r[top:top + 31, left:left + 20][:, ::-1] - (0.5, 0.4, 0.3)) / (0.2, 0.25, 0.3)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"{f} {antialias}")


def test_yolo_letterbox_matches_ultralytics_with_opencv():
    rng = np.random.default_rng(5)
    for (h, w) in [(720, 1280), (480, 640), (640, 427), (100, 1000), (641, 641)]:
        x = frame(rng, h, w)
        scale, top, left, nh, nw = strider.letterbox_geometry((h, w), 640)
        # ultralytics LetterBox: cv2.resize (INTER_LINEAR), then copyMakeBorder with 114, then /255, RGB, CHW.
        r = cv2.resize(x, (nw, nh), interpolation=cv2.INTER_LINEAR)
        canvas = np.full((640, 640, 3), 114, np.uint8)
        canvas[top:top + nh, left:left + nw] = r
        want = canvas[..., ::-1].transpose(2, 0, 1).astype(np.float64) / 255
        got = strider.preprocess(x, 640, resize="letterbox", antialias=False, pad_value=114, bgr_to_rgb=True,
                                 std=255)
        assert got.shape == (3, 640, 640)
        assert np.abs(got - want).max() <= 1 / 255 + 1e-6, ((h, w), np.abs(got - want).max())
        # The pad is exact.
        pad = np.float32(114) * np.float32(1 / 255)  # x · (1/std) + 0, in float32
        assert (got[:, :top] == pad).all() and (got[:, top + nh:] == pad).all()


def test_lists_of_mixed_sizes_equal_one_call_per_image():
    rng = np.random.default_rng(6)
    images = [frame(rng, h, w) for (h, w) in [(480, 640), (300, 301), (480, 640), (256, 700), (900, 300)]]
    kw = dict(resize="shorter", crop=(200, 224), bgr_to_rgb=True, mean=MEAN, std=STD, dtype=np.float16)
    batch = strider.preprocess(images, 256, **kw)
    assert batch.shape == (5, 3, 200, 224) and batch.dtype == np.float16
    for i, x in enumerate(images):
        np.testing.assert_array_equal(batch[i], strider.preprocess(x, 256, **kw))
    for threads in (1, 2):
        np.testing.assert_array_equal(strider.preprocess(images, 256, threads=threads, **kw), batch)
    # The same images as one NHWC batch (all one size).
    same = np.stack([frame(rng, 120, 160) for _ in range(4)])
    kw["crop"] = (64, 80)
    np.testing.assert_array_equal(strider.preprocess(same, 64, **kw)[2], strider.preprocess(same[2], 64, **kw))
    np.testing.assert_array_equal(strider.preprocess(list(same), 64, **kw), strider.preprocess(same, 64, **kw))


def test_layouts_out_and_views():
    rng = np.random.default_rng(7)
    x = frame(rng, 90, 130)
    nchw = strider.preprocess(x, (50, 60), mean=MEAN, std=STD)
    np.testing.assert_array_equal(strider.preprocess(x, (50, 60), mean=MEAN, std=STD, layout="nhwc"),
                                  nchw.transpose(1, 2, 0))
    # Views read in place: a mirrored image equals its flip (up to the order of float32 sums).
    np.testing.assert_allclose(strider.preprocess(x[:, ::-1], (50, 60), mean=MEAN, std=STD),
                               strider.preprocess(x, (50, 60), mean=MEAN, std=STD, flip=True), rtol=0, atol=2e-6)
    out = np.full((2, 3, 50, 60), 7, np.float32)
    got = strider.preprocess([x, x[::2]], (50, 60), mean=MEAN, std=STD, out=out)
    assert got is out
    np.testing.assert_array_equal(out[0], nchw)
    # A strided out (every other channel plane of a larger array).
    big = np.zeros((2, 6, 50, 60), np.float32)
    strider.preprocess([x, x], (50, 60), mean=MEAN, std=STD, out=big[:, ::2])
    np.testing.assert_array_equal(big[1, ::2], nchw)
    assert (big[:, 1::2] == 0).all()
    # uint8 results, no resize.
    y = strider.preprocess(x, None, resize=None, crop=(20, 30), dtype=np.uint8)
    np.testing.assert_array_equal(y, x[35:55, 50:80].transpose(2, 0, 1))


def test_errors():
    x = np.zeros((40, 50, 3), np.uint8)
    with pytest.raises(ValueError, match="size"):
        strider.preprocess(x, 0)
    with pytest.raises(ValueError, match="crop"):
        strider.preprocess(x, (20, 20), crop=(21, 20))
    with pytest.raises(ValueError, match="filter"):
        strider.preprocess(x, 20, filter="lanczos")
    with pytest.raises(ValueError, match="resize="):
        strider.preprocess(x, 20, resize="fit")
    with pytest.raises(ValueError, match="channels"):
        strider.preprocess([x, np.zeros((40, 50, 4), np.uint8)], 20)
    with pytest.raises(ValueError, match="dtype"):
        strider.preprocess([x, np.zeros((40, 50, 3), np.float32)], 20)
    with pytest.raises(ValueError, match="empty"):
        strider.preprocess([], 20)
    with pytest.raises(ValueError, match="crop"):
        strider.preprocess(x, 64, resize="letterbox", crop=32)
    with pytest.raises(ValueError, match="images\\[1\\] gives"):
        strider.preprocess([x, np.zeros((50, 40, 3), np.uint8)], 32, resize="shorter")
    with pytest.raises(ValueError, match="std"):
        strider.preprocess(x, 20, std=(1, 0, 1))
    with pytest.raises(ValueError):
        strider.preprocess(x.astype(np.int16), 20)
    with pytest.raises(ValueError, match="shape"):
        strider.preprocess(x, 20, out=np.zeros((3, 20, 21), np.float32))
    with pytest.raises(ValueError, match="apart"):
        strider.preprocess([x, x], 20, out=np.zeros((3, 20, 20, 2), np.float32).transpose(3, 0, 1, 2))
    with pytest.raises(ValueError, match="pad_value"):
        strider.preprocess(x, 20, resize="letterbox", pad_value=float("nan"))
