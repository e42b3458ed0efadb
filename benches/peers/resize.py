#!/usr/bin/env python3
"""Image resize side by side: `strider.resize` against Pillow, OpenCV and torch at equal thread counts, u8 RGB, on the
published cases (fast_image_resize's 4928×3279 → 852×567, Pillow-SIMD's 2560×1600 → 320×200) and the preprocessing
ones (1080p → 224², 640×480 → shorter side 256, 224² → 640² up):

- antialiased bilinear and bicubic (Pillow's `Image.resize`, torch's `interpolate(antialias=True)` on uint8, which
  reproduces it), checked within 1 of Strider's;
- OpenCV's sampled `INTER_LINEAR` and `INTER_AREA` (`antialias=False` in Strider), checked within 1.

    python3 benches/peers/resize.py [--threads 1,2] [--seconds 0.3] [--json out.json]

Strider comes from the Python module (`pip install ./python` into the interpreter that runs this); the peers from
the peer virtualenv ($PEERBENCH_DIR/venv, `--setup` installs pillow, opencv-python-headless and torch there). Pillow
is single-threaded; OpenCV and torch get `--threads` through their own settings. Times are medians of batched
samples, in ms per image.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import VENV_PY, ensure_numpy, median_time  # noqa: E402

if "--setup" in sys.argv:
    sys.exit(subprocess.call([VENV_PY, "-m", "pip", "install", "numpy", "pillow", "opencv-python-headless", "torch"]))

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
except ImportError:
    torch = None

CASES = [((1080, 1920), (224, 224)), ((3279, 4928), (567, 852)), ((1600, 2560), (200, 320)), ((480, 640), (256, 341)),
         ((224, 224), (640, 640))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for (h, w), (oh, ow) in CASES:
        x = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        x[: h // 2] = x[: h // 2] // 32 * 32  # flat regions and edges, as photos have
        for threads in [int(t) for t in args.threads.split(",")]:
            if cv2 is not None:
                cv2.setNumThreads(threads)
            if torch is not None:
                torch.set_num_threads(threads)
            peers = {}
            for f in ("bilinear", "bicubic"):
                ours = strider.resize(x, (oh, ow), f, threads=threads)
                peers[f"strider {f}"] = (lambda f=f: strider.resize(x, (oh, ow), f, threads=threads), None)
                if Image is not None and threads == 1:
                    im = Image.fromarray(x)
                    pf = Image.BILINEAR if f == "bilinear" else Image.BICUBIC
                    peers[f"pillow {f}"] = (lambda im=im, pf=pf: im.resize((ow, oh), pf),
                                            (np.asarray(im.resize((ow, oh), pf)), ours))
                if torch is not None:
                    xt = torch.from_numpy(x).permute(2, 0, 1)[None]
                    run = (lambda xt=xt, f=f: torch.nn.functional.interpolate(xt, size=(oh, ow), mode=f,
                                                                              antialias=True))
                    peers[f"torch {f}"] = (run, (run()[0].permute(1, 2, 0).numpy(), ours))
            if cv2 is not None:
                for f, flag in (("bilinear", cv2.INTER_LINEAR), ("area", cv2.INTER_AREA)):
                    ours = strider.resize(x, (oh, ow), f, antialias=False, threads=threads)
                    peers[f"strider sampled {f}"] = (
                        lambda f=f: strider.resize(x, (oh, ow), f, antialias=False, threads=threads), None)
                    run = (lambda flag=flag: cv2.resize(x, (ow, oh), interpolation=flag))
                    peers[f"opencv {f}"] = (run, (run(), ours))
            for name, (run, check) in peers.items():
                if check is not None:
                    diff = int(np.abs(check[0].astype(int) - check[1].astype(int)).max())
                    assert diff <= 1, f"{name} differs from Strider by {diff} on {w}x{h} -> {ow}x{oh}"
                ms = median_time(run, args.seconds) * 1e3
                rows.append({"case": f"{w}x{h}->{ow}x{oh}", "threads": threads, "peer": name, "ms": ms})
                print(f"{w}x{h} -> {ow}x{oh}  {threads}t  {name:24s} {ms:8.3f} ms", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
