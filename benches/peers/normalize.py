#!/usr/bin/env python3
"""Preprocessing side by side: Strider's `Normalize` (`strider bench`, same session) against numpy, torch at 1 and 2
threads, OpenCV's `dnn.blobFromImagesWithParams` and DALI's CPU `crop_mirror_normalize` at 1 and 2 threads, on the
normalize cases of Strider's default suite:

- u8 NHWC 32×224×224×3 → f32 NCHW, per-channel ImageNet mean/std;
- the same → f16 NCHW;
- u8 1080p HWC BGR → center crop 1024×1024, horizontal flip, BGR → RGB → f32 CHW, normalized;
- channels-last outputs: u8 NHWC 32×224×224×3 → f32 and f16 NHWC, a 1080p crop 1024² mirrored → f32 HWC, a 720p
  BGR → RGB → f32 HWC;
- BGRX frames (4-byte pixels, e.g. BGRA with the alpha dropped) 32×224×224 → RGB f32 NCHW: numpy and torch take
  the 3-channel window as a view, OpenCV converts each image with `cvtColor(BGRA2BGR)` first (timed), DALI has no
  4-channel input and is skipped.

    python3 benches/peers/normalize.py [--strider target/release/strider] [--seconds 0.3] [--json out.json]

The peers come from the peer virtualenv ($PEERBENCH_DIR/venv, default /tmp/strider-peerbench/venv); the script
re-executes itself there when the current python lacks numpy. `--setup` installs the optional peers into it
(torch, opencv-python-headless, nvidia-dali-cuda120: DALI's CPU operators run without a GPU). A peer that is not
installed is reported as such.

Each peer runs the fastest form its API offers for the job: numpy and torch multiply into a preallocated output
(the window as a view; torch has no negative strides, so its flips are a `torch.flip` copy) and add in place, in
f32 (then one conversion pass for f16), which is the same arithmetic as Strider's (`x·scale + bias`, product then
sum) and must match it bit for bit; OpenCV (`(x − mean)·scalefactor`) and DALI (`(x − mean)/std`) compute the
same values by another formula and must match within 1e-5. OpenCV allocates its blob and needs `cv2.flip` first
for the mirror; DALI's timing includes feeding the batch to its pipeline (`feed_input` + `run`) and, for BGR →
RGB, a `color_space_conversion` before the normalization. Times are medians of batched samples.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import STRIDER, VENV_PY, ensure_numpy, median_time, strider_report  # noqa: E402

if "--setup" in sys.argv:
    pkgs = ["numpy", "torch", "opencv-python-headless", "nvidia-dali-cuda120"]
    sys.exit(subprocess.call([VENV_PY, "-m", "pip", "install", *pkgs]))

ensure_numpy()
import numpy as np  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
try:
    import cv2
except ImportError:
    cv2 = None
try:
    import nvidia.dali.fn as dali_fn
    import nvidia.dali.types as dali_types
    from nvidia.dali import pipeline_def
except ImportError:
    dali_fn = None


def geometry(case):
    """The case in the file's NHWC order: (n, h, w, c), offsets, sizes and strides per N, H, W, C, and whether the
    output is NCHW (channel axis 1 of NCHW-ordered sizes) or NHWC (channel axis 3 of NHWC-ordered sizes)."""
    c = case["case"]
    nchw = c.get("channel_axis", 1) == 1
    dims = (0, 2, 3, 1) if nchw else (0, 1, 2, 3)  # N, H, W, C among the case's axes
    sizes = [c["input_sizes"][d] for d in dims]
    pick = lambda key: [c[key][d] for d in dims]  # noqa: E731
    return sizes, pick("offsets"), pick("window_sizes"), pick("window_strides"), nchw


def views(case, pixels):
    """The case's input window as a numpy view in NHWC order, plus scale, bias and the output type."""
    c = case["case"]
    sizes, off, size, step, _ = geometry(case)
    x = pixels.reshape(sizes)  # the suite's inputs are packed NHWC
    sl = []
    for lo, sz, st in zip(off, size, step):
        sl.append(slice(lo, lo + sz, st) if st > 0 else slice(lo + sz - 1, None if lo == 0 else lo - 1, st))
    return x[tuple(sl)], np.array(c["scale"], np.float32), np.array(c["bias"], np.float32), c["output_dtype"]


def reference(view, scale, bias, out_dtype, nchw):
    """Strider's documented arithmetic in numpy: f32(x)·scale + bias, NCHW or NHWC, then the output type."""
    if nchw:
        y = view.transpose(0, 3, 1, 2).astype(np.float32) * scale[:, None, None] + bias[:, None, None]
    else:
        y = view.astype(np.float32) * scale + bias
    return y.astype(np.float16) if out_dtype == "f16" else y


def peers(case, seconds):
    (n, h, w, ch), o, sz, st, nchw = geometry(case)
    rng = np.random.default_rng(1)
    pixels = rng.integers(0, 256, n * h * w * ch, dtype=np.uint8)
    view, scale, bias, out_dtype = views(case, pixels)
    want = reference(view, scale, bias, out_dtype, nchw)
    src = view.transpose(0, 3, 1, 2) if nchw else view
    s3, b3 = (scale[:, None, None], bias[:, None, None]) if nchw else (scale, bias)
    out32 = np.empty(want.shape, np.float32)
    res = {}

    def check(name, got, exact):
        got = np.asarray(got).reshape(want.shape)
        ok = np.array_equal(got, want) if exact else np.allclose(got.astype(np.float32), want.astype(np.float32),
                                                                  rtol=1e-5, atol=1e-5)
        if not ok:
            print(f"warning: {name} differs from the reference on {case['name']}", file=sys.stderr)

    # numpy: one multiply into the output, one add in place (single-threaded).
    def np_run():
        np.multiply(src, s3, out=out32)
        np.add(out32, b3, out=out32)
        if out_dtype == "f16":
            return out32.astype(np.float16)
        return out32
    check("numpy", np_run(), True)
    res["numpy"] = median_time(np_run, seconds)

    if torch is not None:
        tx = torch.from_numpy(pixels.reshape(n, h, w, ch))
        # torch has no negative strides: the window forwards (steps here are ±1), then torch.flip.
        crop = tx[tuple(slice(o[d], o[d] + sz[d], abs(st[d])) for d in range(4))]
        flip_dims = [d for d in range(4) if st[d] < 0]
        ts, tb = torch.from_numpy(np.ascontiguousarray(s3)), torch.from_numpy(np.ascontiguousarray(b3))
        tout = torch.empty(want.shape, dtype=torch.float32)
        t16 = torch.empty(want.shape, dtype=torch.float16)

        def torch_run():
            x = torch.flip(crop, flip_dims) if flip_dims else crop
            torch.mul(x.permute(0, 3, 1, 2) if nchw else x, ts, out=tout)
            tout.add_(tb)
            if out_dtype == "f16":
                t16.copy_(tout)
                return t16
            return tout
        for t in (1, 2):
            torch.set_num_threads(t)
            check("torch", torch_run().numpy(), True)
            res[f"torch_t{t}"] = median_time(torch_run, seconds)

    if cv2 is not None and hasattr(cv2.dnn, "blobFromImagesWithParams"):
        # OpenCV works on BGR HWC images: mean in pixel units, scalefactor per channel, swapRB for the order.
        swap = st[3] < 0
        mean_px = (-bias / scale)  # x·s + b = (x − (−b/s))·s
        # Mean and scalefactor are in the blob's channel order (after swapRB), as the output's parameters are.
        params = cv2.dnn.Image2BlobParams()
        params.scalefactor = tuple(float(v) for v in scale) + (0.0,)
        params.mean = tuple(float(v) for v in mean_px) + (0.0,)
        params.swapRB = swap
        params.ddepth = cv2.CV_32F
        layout = "DNN_LAYOUT_NCHW" if nchw else "DNN_LAYOUT_NHWC"
        params.datalayout = getattr(cv2.dnn, layout, getattr(cv2, layout, 2 if nchw else 3))
        params.size = (sz[2], sz[1])
        hflip = st[2] < 0
        # the crop as a (non-flipped) view, cv2.flip for the mirror
        x = pixels.reshape(n, h, w, ch)[:, o[1]:o[1] + sz[1], o[2]:o[2] + sz[2], :]
        images = [x[i] for i in range(n)]
        # Four-byte pixels: OpenCV's blob takes every channel, so the alpha (or padding) goes first.
        unpad = ch == 4 and sz[3] == 3

        def cv_run():
            imgs = [cv2.cvtColor(im, cv2.COLOR_BGRA2BGR) for im in images] if unpad else images
            imgs = [cv2.flip(im, 1) for im in imgs] if hflip else imgs
            blob = cv2.dnn.blobFromImagesWithParams(imgs, params)
            return blob.astype(np.float16) if out_dtype == "f16" else blob
        for t in (1, 2):
            cv2.setNumThreads(t)
            check("opencv", cv_run(), False)
            res[f"opencv_t{t}"] = median_time(cv_run, seconds)

    if dali_fn is not None and ch == sz[3]:
        mean_px = (-bias / scale).tolist()
        std_px = (1.0 / scale).tolist()
        swap = st[3] < 0
        batch = [pixels.reshape(n, h, w, ch)[i] for i in range(n)]
        for t in (1, 2):
            @pipeline_def(batch_size=n, num_threads=t, device_id=None, prefetch_queue_depth=1)
            def pipe():
                x = dali_fn.external_source(name="x", device="cpu", layout="HWC")
                if swap:
                    x = dali_fn.color_space_conversion(x, image_type=dali_types.BGR, output_type=dali_types.RGB)
                return dali_fn.crop_mirror_normalize(
                    x, crop_pos_x=o[2] / max(1, w - sz[2]), crop_pos_y=o[1] / max(1, h - sz[1]), crop=(sz[1], sz[2]),
                    mirror=int(st[2] < 0), mean=mean_px, std=std_px, output_layout="CHW" if nchw else "HWC",
                    dtype=dali_types.FLOAT16 if out_dtype == "f16" else dali_types.FLOAT)
            p = pipe()
            p.build()

            def dali_run():
                p.feed_input("x", batch)
                return p.run()[0]
            check("dali", dali_run().as_array(), False)
            res[f"dali_t{t}"] = median_time(dali_run, seconds)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strider", default=STRIDER)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--filter", default="normalize_")
    ap.add_argument("--json")
    ap.add_argument("--setup", action="store_true", help="install the optional peers into the peer virtualenv")
    a = ap.parse_args()

    report = strider_report(a.strider, a.filter, a.seconds)
    rows = []
    for case in report["cases"]:
        if case["op"] != "normalize":
            continue
        row = {"name": case["name"], "bytes": case["output_bytes"], "memcpy_t1": case["memcpy_ns"] / 1e3}
        for run in case["runs"]:
            row[f"strider_t{run['threads']}"] = run["ns_per_op"] / 1e3
            row[f"limit_t{run['threads']}"] = run["time_over_limit"]
        row.update({k: v * 1e6 for k, v in peers(case, a.seconds).items()})
        rows.append(row)

    cols = [("strider_t1", "strider 1t"), ("numpy", "numpy"), ("torch_t1", "torch 1t"), ("opencv_t1", "opencv 1t"),
            ("dali_t1", "dali 1t"), ("strider_t2", "strider 2t"), ("torch_t2", "torch 2t"), ("opencv_t2", "opencv 2t"),
            ("dali_t2", "dali 2t")]
    print(f"{'case':<50} {'memcpy':>9} " + " ".join(f"{h:>10}" for _, h in cols))
    for r in rows:
        cells = " ".join(f"{r[k]:>9.1f}µ" if k in r else f"{'n/a':>10}" for k, _ in cols)
        print(f"{r['name']:<50} {r['memcpy_t1']:>8.1f}µ {cells}")
    print("times: medians per call (µs), memcpy = one-thread memcpy of the output bytes; numpy is single-threaded; "
          "n/a = peer not installed")
    for r in rows:
        print(f"{r['name']}: strider t/memcpy {r['strider_t1'] / r['memcpy_t1']:.2f} (1t), "
              f"{r['strider_t2'] / r['memcpy_t1']:.2f} (2t); t/limit {r['limit_t1']:.2f} / {r['limit_t2']:.2f}")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
