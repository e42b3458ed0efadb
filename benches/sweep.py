#!/usr/bin/env python3
"""A sweep of Normalize, Cast and scale/bias over layouts and type pairs, checked against a bound on time ÷ limit.

Every combination a preprocessing or layout-conversion user reaches — channels first or last on either side,
mirrored and channel-reversed windows, subsampled windows, padded (4-slot) pixels — for every type pair worth
having, as a suite for `strider bench`, run at the given thread counts with `--fail-above`: the run exits 1 and
lists the offenders when a case takes more than BOUND times a copy of the bytes it must move. A check to run and
report (timings never go in tests), not a unit test:

    python3 benches/sweep.py [--strider target/release/strider] [--bound 3] [--threads 1] [--seconds 0.1]
                             [--filter TEXT] [--isa v3] [--write suite.json]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N, H, W, C = 8, 128, 128, 3
SCALE = [0.017124753, 0.017507003, 0.017429193]
BIAS = [-2.117904, -2.0357144, -1.8044444]


def packed(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.insert(0, step)
        step *= s
    return strides


def in_order(sizes, order):
    """Strides of `sizes` (logical axes) stored with axes in `order` (outermost first)."""
    stored = packed([sizes[a] for a in order])
    strides = [0] * len(sizes)
    for pos, a in enumerate(order):
        strides[a] = stored[pos]
    return strides


def layouts():
    """(name, logical sizes, channel axis, input strides, window (offsets, sizes, strides), output strides)."""
    nchw, nhwc = [N, C, H, W], [N, H, W, C]
    whole = lambda s: ([0] * 4, list(s), [1] * 4)  # noqa: E731
    pad4 = [H * W * 4, W * 4, 4, 1]  # NHWC pixels in 4 slots
    return [
        ("nhwc_to_nchw", nchw, 1, in_order(nchw, [0, 2, 3, 1]), whole(nchw), None),
        ("nhwc_to_nhwc", nhwc, 3, None, whole(nhwc), None),
        ("nchw_to_nchw", nchw, 1, None, whole(nchw), None),
        ("nchw_to_nhwc", nchw, 1, None, whole(nchw), in_order(nchw, [0, 2, 3, 1])),
        ("nhwc_hflip_to_nhwc", nhwc, 3, None, ([0] * 4, nhwc, [1, 1, -1, 1]), None),
        ("nhwc_bgr_to_rgb_nhwc", nhwc, 3, None, ([0] * 4, nhwc, [1, 1, 1, -1]), None),
        ("nhwc_hflip_bgr_to_nchw", nchw, 1, in_order(nchw, [0, 2, 3, 1]), ([0] * 4, nchw, [1, -1, 1, -1]), None),
        ("nhwc_subsample2_to_nhwc", nhwc, 3, None, ([0] * 4, nhwc, [1, 2, 2, 1]), None),
        ("nchw_hflip_to_nchw", nchw, 1, None, ([0] * 4, nchw, [1, 1, 1, -1]), None),
        ("nchw_rotate180_to_nchw", nchw, 1, None, ([0] * 4, nchw, [1, 1, -1, -1]), None),
        ("nchw_subsample2_to_nchw", nchw, 1, None, ([0] * 4, nchw, [1, 1, 2, 2]), None),
        ("nhwc_to_nhwc_padded4", nhwc, 3, None, whole(nhwc), pad4),
        ("nhwc4_padded_to_nchw", nchw, 1, [H * W * 4, 1, W * 4, 4], whole(nchw), None),
        ("nhwc4_padded_to_nhwc", nhwc, 3, pad4, whole(nhwc), None),
        ("nhwc4_padded_bgr_to_rgb_nhwc", nhwc, 3, pad4, ([0] * 4, nhwc, [1, 1, 1, -1]), None),
    ]


def output_sizes(window):
    _, sizes, strides = window
    return [1 + (s - 1) // abs(t) for s, t in zip(sizes, strides)]


def suite():
    cases = []
    pairs = [("u8", "f32"), ("u8", "f16"), ("i8", "f32"), ("u8", "u8"), ("f16", "f32"), ("f32", "f16"),
             ("f32", "f32")]
    for name, sizes, axis, istr, window, ostr in layouts():
        for src, dst in pairs:
            case = {"name": f"normalize_{src}_{dst}_{name}", "op": "normalize", "dtype": src, "output_dtype": dst,
                    "input_sizes": sizes, "offsets": window[0], "window_sizes": window[1],
                    "window_strides": window[2], "output_sizes": output_sizes(window), "channel_axis": axis,
                    "scale": SCALE, "bias": BIAS}
            if istr:
                case["input_strides"] = istr
            if ostr:
                case["output_strides"] = ostr
            cases.append(case)
    # Casts and scale/bias: elementwise, a layout change through strides on either side.
    for name, sizes, _, istr, window, ostr in layouts():
        if window[2] != [1] * 4:
            continue  # no window: elementwise operators
        for src, dst in [("u8", "f32"), ("u8", "f16"), ("f32", "f16"), ("f16", "f32"), ("i32", "f32")]:
            case = {"name": f"cast_{src}_{dst}_{name}", "op": "cast", "dtype": src, "output_dtype": dst,
                    "sizes": sizes}
            if istr:
                case["input_strides"] = istr
            if ostr:
                case["output_strides"] = ostr
            cases.append(case)
        for dt in ("f32", "f16"):
            case = {"name": f"scale_bias_{dt}_{name}", "op": "identity", "dtype": dt, "sizes": sizes,
                    "scale": 0.5, "bias": -1.0}
            if istr:
                case["input_strides"] = istr
            if ostr:
                case["output_strides"] = ostr
            cases.append(case)
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strider", default=os.path.join(ROOT, "target", "release", "strider"))
    ap.add_argument("--bound", type=float, default=3.0)
    ap.add_argument("--threads", default="1")
    ap.add_argument("--seconds", type=float, default=0.1)
    ap.add_argument("--filter")
    ap.add_argument("--isa")
    ap.add_argument("--write", help="only write the suite to this file")
    a = ap.parse_args()
    cases = suite()
    if a.write:
        json.dump(cases, open(a.write, "w"), indent=1)
        return 0
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cases, f)
    cmd = [a.strider, "bench", "--suite", f.name, "--threads", a.threads, "--seconds", str(a.seconds),
           "--fail-above", str(a.bound)]
    if a.filter:
        cmd += ["--filter", a.filter]
    if a.isa:
        cmd += ["--isa", a.isa]
    try:
        return subprocess.call(cmd)
    finally:
        os.unlink(f.name)


if __name__ == "__main__":
    sys.exit(main())
