#!/usr/bin/env python3
"""Preprocessing pipelines side by side, from decoded BGR frames to a float32 NCHW batch, at equal thread counts:

- classification: 32 images of 640×480 → shorter side 256 → center crop 224 → RGB → ImageNet mean/std;
- detection: 32 images of 1280×720 → YOLO letterbox 640 (pad 114) → RGB → /255.

Strider runs each as one `strider.preprocess` call (resize, crop, flip, channel order, normalization, cast and layout
in one pass per image). Peers: OpenCV (`cv2.resize`, then `cv2.dnn.blobFromImages`, the per-channel std in NumPy;
letterbox: `copyMakeBorder` as ultralytics), torchvision v2 on the uint8 batch (`Resize` with antialiasing,
`CenterCrop` or `Pad`, `ToDtype`, `Normalize`), Pillow + NumPy. Every peer's batch is checked against Strider's with
the same resize definition (OpenCV's sampled filters against `antialias=False`, Pillow's and torchvision's against
`antialias=True`): within one input unit times the scale (1.25 for Pillow, which rounds twice). Also printed: Strider's
resize alone (uint8) plus a copy of the result's bytes, the bound the issue sets (the pipeline within 1.3× of it).

    python3 benches/peers/preprocess.py [--threads 1,2] [--seconds 0.5] [--json out.json]

Strider comes from the Python module (`pip install ./python`); the peers from the peer virtualenv (`--setup`
installs opencv-python-headless, pillow, torch and torchvision there). Times are medians, in ms per batch.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import VENV_PY, ensure_numpy, median_time  # noqa: E402

if "--setup" in sys.argv:
    sys.exit(subprocess.call([VENV_PY, "-m", "pip", "install", "numpy", "pillow", "opencv-python-headless", "torch",
                              "torchvision"]))

ensure_numpy()
import numpy as np  # noqa: E402

try:
    import strider
except ImportError:
    sys.exit("the strider module is missing: pip install ./python (into this interpreter)")
try:
    from PIL import Image
except ImportError:
    Image = None
try:
    import cv2
except ImportError:
    cv2 = None
try:
    import torch
    from torchvision.transforms import v2
except ImportError:
    torch = None

MEAN = np.array([123.675, 116.28, 103.53], np.float32)
STD = np.array([58.395, 57.12, 57.375], np.float32)
N = 32


def frames(h, w, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, (N, h, w, 3), dtype=np.uint8)
    x[:, : h // 2] = x[:, : h // 2] // 32 * 32  # flat regions and edges, as photos have
    return x


def classification(batch, threads):
    """(name, run, result or None, tolerance in input units, antialiased) per pipeline."""
    h, w = batch.shape[1:3]
    rh, rw = (256, int(256 * w / h)) if h <= w else (int(256 * h / w), 256)
    top, left = int(round((rh - 224) / 2.0)), int(round((rw - 224) / 2.0))
    kw = dict(resize="shorter", crop=224, bgr_to_rgb=True, mean=MEAN, std=STD, threads=threads)
    out = {}
    out["strider (antialiased)"] = (lambda: strider.preprocess(batch, 256, **kw), None, True)
    out["strider (sampled)"] = (lambda: strider.preprocess(batch, 256, antialias=False, **kw), None, False)
    small = strider.resize(batch, (rh, rw), threads=threads)
    result, source = np.empty((N, 3, 224, 224), np.float32), np.ones((N, 3, 224, 224), np.float32)
    out["strider resize alone + copy"] = (
        lambda: (strider.resize(batch, (rh, rw), out=small, threads=threads), np.copyto(result, source)), None, None)
    if cv2 is not None:
        def opencv():
            crops = [cv2.resize(x, (rw, rh), interpolation=cv2.INTER_LINEAR)[top:top + 224, left:left + 224]
                     for x in batch]
            blob = cv2.dnn.blobFromImages(crops, 1.0, (224, 224), (0, 0, 0), swapRB=True, crop=False)
            blob -= MEAN[None, :, None, None]
            blob /= STD[None, :, None, None]
            return blob
        out["opencv resize + blobFromImages"] = (opencv, False, 1)
    if torch is not None:
        t = v2.Compose([v2.Resize(256, antialias=True), v2.CenterCrop(224), v2.ToDtype(torch.float32, scale=True),
                        v2.Normalize(list(MEAN / 255), list(STD / 255))])
        xt = torch.from_numpy(batch).permute(0, 3, 1, 2).flip(1)  # BGR -> RGB, NCHW view
        out["torchvision v2"] = (lambda: t(xt).numpy(), True, 1)
    if Image is not None and threads == 1:
        def pillow():
            res = np.empty((N, 3, 224, 224), np.float32)
            for i, x in enumerate(batch):
                im = Image.fromarray(np.ascontiguousarray(x[..., ::-1])).resize((rw, rh), Image.BILINEAR)
                a = np.asarray(im, np.float32)[top:top + 224, left:left + 224]
                res[i] = ((a - MEAN) / STD).transpose(2, 0, 1)
            return res
        out["pillow + numpy"] = (pillow, True, 1.25)
    return out


def detection(batch, threads):
    h, w = batch.shape[1:3]
    _, top, left, nh, nw = strider.letterbox_geometry((h, w), 640)
    kw = dict(resize="letterbox", pad_value=114, bgr_to_rgb=True, std=255, threads=threads)
    out = {}
    out["strider (sampled)"] = (lambda: strider.preprocess(batch, 640, antialias=False, **kw), None, False)
    out["strider (antialiased)"] = (lambda: strider.preprocess(batch, 640, **kw), None, True)
    small = strider.resize(batch, (nh, nw), antialias=False, threads=threads)
    result, source = np.empty((N, 3, 640, 640), np.float32), np.ones((N, 3, 640, 640), np.float32)
    out["strider resize alone + copy"] = (
        lambda: (strider.resize(batch, (nh, nw), antialias=False, out=small, threads=threads),
                 np.copyto(result, source)), None, None)
    if cv2 is not None:
        def opencv():
            boxes = [cv2.copyMakeBorder(cv2.resize(x, (nw, nh), interpolation=cv2.INTER_LINEAR), top, 640 - nh - top,
                                        left, 640 - nw - left, cv2.BORDER_CONSTANT, value=(114, 114, 114))
                     for x in batch]
            return cv2.dnn.blobFromImages(boxes, 1 / 255, (640, 640), (0, 0, 0), swapRB=True, crop=False)
        out["opencv resize + border + blobFromImages"] = (opencv, False, 1)
    if torch is not None:
        t = v2.Compose([v2.Resize((nh, nw), antialias=True),
                        v2.Pad([left, top, 640 - nw - left, 640 - nh - top], fill=114),
                        v2.ToDtype(torch.float32, scale=True)])
        xt = torch.from_numpy(batch).permute(0, 3, 1, 2).flip(1)
        out["torchvision v2"] = (lambda: t(xt).numpy(), True, 1)
    if Image is not None and threads == 1:
        def pillow():
            res = np.full((N, 640, 640, 3), 114 / 255, np.float32)
            for i, x in enumerate(batch):
                im = Image.fromarray(np.ascontiguousarray(x[..., ::-1])).resize((nw, nh), Image.BILINEAR)
                res[i, top:top + nh, left:left + nw] = np.asarray(im, np.float32) / 255
            return res.transpose(0, 3, 1, 2)
        out["pillow + numpy"] = (pillow, True, 1.25)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    for name, batch, pipelines, unit in (("classification 32x640x480", frames(480, 640, 0), classification, STD.min()),
                                         ("yolo 32x1280x720", frames(720, 1280, 1), detection, 255.0)):
        for threads in [int(t) for t in args.threads.split(",")]:
            if cv2 is not None:
                cv2.setNumThreads(threads)
            if torch is not None:
                torch.set_num_threads(threads)
            peers = pipelines(batch, threads)
            ours = {aa: run() for (run, check, aa) in peers.values() if check is None and aa is not None}
            for peer, (run, antialiased, tolerance) in peers.items():
                if isinstance(antialiased, bool) and not isinstance(tolerance, bool):
                    got = run()
                    diff = float(np.abs(got - ours[antialiased]).max()) * unit
                    assert diff <= tolerance + 1e-3, f"{name}: {peer} differs from Strider by {diff:.3f} input units"
                ms = median_time(run, args.seconds) * 1e3
                rows.append({"case": name, "threads": threads, "peer": peer, "ms": ms})
                print(f"{name}  {threads}t  {peer:40s} {ms:9.2f} ms", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
