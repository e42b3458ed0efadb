"""Shared pieces of the peer scripts: the peer virtualenv, timing as the peer scripts measure, DirectML-style views,
and running Strider's own bench in the same session."""

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PEERDIR = os.environ.get("PEERBENCH_DIR") or os.path.join(tempfile.gettempdir(), "strider-peerbench")
VENV_PY = os.path.join(PEERDIR, "venv", "bin", "python")
STRIDER = os.path.join(ROOT, "target", "release", "strider")


def ensure_numpy():
    """Imports numpy, re-executing the script in the peer virtualenv when the current python lacks it."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        if os.path.exists(VENV_PY) and os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(PEERDIR, "venv")):
            os.execv(VENV_PY, [VENV_PY] + sys.argv)
        sys.exit("numpy is missing: run python3 ../shared/bench/peers.py --setup (or pip install numpy torch)")


def median_time(f, seconds):
    """Median seconds per call of `f`: 3 warm-up calls, then batched samples of at least 50 µs for about
    `seconds` (15 to 200 samples)."""
    for _ in range(3):
        f()
    batch = 1
    while True:
        s = time.perf_counter()
        for _ in range(batch):
            f()
        if time.perf_counter() - s > 50e-6 or batch > 1 << 20:
            break
        batch *= 2
    samples, start = [], time.perf_counter()
    while len(samples) < 15 or (time.perf_counter() - start < seconds and len(samples) < 200):
        s = time.perf_counter()
        for _ in range(batch):
            f()
        samples.append((time.perf_counter() - s) / batch)
    samples.sort()
    return samples[len(samples) // 2]


def strides_view(buf, sizes, strides, itemsize):
    """A numpy view of `buf` with logical `sizes` and element `strides` (DirectML's model)."""
    import numpy as np
    return np.lib.stride_tricks.as_strided(buf, shape=sizes, strides=[s * itemsize for s in strides])


def packed_strides(sizes):
    s, acc = [0] * len(sizes), 1
    for k in range(len(sizes) - 1, -1, -1):
        s[k] = acc
        acc *= sizes[k]
    return s


def strider_report(strider, filt, seconds, threads="1,2"):
    """Runs `strider bench --method tight` on the default suite's cases matching `filt`; returns its JSON report."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([strider, "bench", "--method", "tight", "--filter", filt, "--threads", threads, "--seconds",
                        str(seconds), "--json", out.name], check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out.name))
