"""Strider's Python bindings beside NumPy, torch (when importable) and np.copyto, in one process.

    python python/bench.py [--workloads benches/workloads.json] [--seconds 0.3] [--filter NAME]
                           [--rust target/release/strider]

Each public DML_SLICE1 workload runs through `strider.slice1` (into a preallocated `out`, at 1 and 2 threads, and
allocating its result), NumPy (`np.ascontiguousarray(x[slices])`, and `np.copyto(out, x[slices])`), torch at 1 and 2
threads (`x[slices].flip(dims).contiguous()`), and `np.copyto` of the output's bytes (memcpy, the floor). Every
result is checked against NumPy's before timing. Times are medians in microseconds per call (short calls are
batched); `vs numpy` is NumPy's time over Strider's (1 thread, allocating like NumPy does). With `--rust`, the
`strider bench` command of the Rust crate times the same workloads at 1 thread in the same run (`rust 1t`, its
own interleaved method) and `py/rust` is the Python call's time over it.
"""

import argparse
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import strider

DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32, "i16": np.int16,
          "i8": np.int8, "i64": np.int64, "u32": np.uint32, "u16": np.uint16, "u8": np.uint8, "u64": np.uint64}


def median_us(fn, seconds):
    for _ in range(3):
        fn()
    one = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        one = min(one, max(time.perf_counter() - t0, 1e-8))
    batch = max(1, math.ceil(50e-6 / one))
    samples = int(min(300, max(15, seconds / (one * batch))))
    times = []
    gc.disable()
    try:
        for _ in range(samples):
            t0 = time.perf_counter()
            for _ in range(batch):
                fn()
            times.append((time.perf_counter() - t0) / batch)
    finally:
        gc.enable()
    times.sort()
    return times[len(times) // 2] * 1e6


def slices(case):
    """NumPy's slices of a DML_SLICE1 window (negative steps read from the window's end)."""
    out = []
    for off, w, s, n in zip(case["offsets"], case["window_sizes"], case["window_strides"], case["output_sizes"]):
        if s > 0:
            out.append(slice(off, off + (n - 1) * s + 1, s))
        else:
            start = off + w - 1
            stop = start + (n - 1) * s - 1
            out.append(slice(start, stop if stop >= 0 else None, s))
    return tuple(out)


def tight_window(case):
    """The workload's window shrunk to the elements it reads, so that the most it can copy is the output's size
    (strider.slice1 gives the most a window can copy; DML_SLICE1 also allows fewer)."""
    offsets, sizes = [], []
    for off, w, s, n in zip(case["offsets"], case["window_sizes"], case["window_strides"], case["output_sizes"]):
        span = (n - 1) * abs(s) + 1
        offsets.append(off if s > 0 else off + w - span)
        sizes.append(span)
    return offsets, sizes, case["window_strides"]


def torch_call(torch, x, case):
    """torch has no negative steps: positive-step slices, then a flip of the reversed dimensions."""
    xt = torch.from_numpy(x)
    index, flips = [], []
    for d, (off, w, s, n) in enumerate(zip(case["offsets"], case["window_sizes"], case["window_strides"],
                                            case["output_sizes"])):
        if s > 0:
            index.append(slice(off, off + (n - 1) * s + 1, s))
        else:
            last = off + w - 1
            index.append(slice(last + (n - 1) * s, last + 1, -s))
            flips.append(d)
    index = tuple(index)
    if flips:
        return lambda: xt[index].flip(flips).contiguous()
    return lambda: xt[index].clone() if xt[index].is_contiguous() else xt[index].contiguous()


def rust_times(command, workloads, name_filter, seconds):
    """Median µs per call of each workload at 1 thread, measured by `strider bench` (the Rust API)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rust.json")
        subprocess.run([command, "bench", "--suite", workloads, "--filter", name_filter or "_", "--threads", "1",
                        "--seconds", str(seconds), "--json", out], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            data = json.load(f)
    return {c["name"]: run["ns_per_op"] / 1e3 for c in data["cases"] for run in c["runs"] if run["threads"] == 1}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # The repository's copy of the public workloads (the one `strider bench` embeds).
    parser.add_argument("--workloads", default=os.path.join(here, "..", "benches", "workloads.json"))
    parser.add_argument("--seconds", type=float, default=0.3, help="time per measurement (default 0.3)")
    parser.add_argument("--filter", default="", help="run only workloads whose name contains this")
    parser.add_argument("--rust", help="path of the strider command: time the same workloads in Rust, 1 thread")
    args = parser.parse_args()
    with open(args.workloads) as f:
        cases = [c for c in json.load(f) if args.filter in c["name"]]
    rust = rust_times(args.rust, args.workloads, args.filter, args.seconds) if args.rust else {}
    try:
        import torch
    except ImportError:
        torch = None
    info = strider.info()
    print(f"strider {info['version']} ({info['isa']}, {info['threads']} threads), numpy {np.__version__}"
          + (f", torch {torch.__version__}" if torch else ", torch not importable"))
    print("median µs per call; s = strider.slice1 into a preallocated out (1t, 2t) or allocating (alloc);"
          " np = ascontiguousarray(x[slices]) / copyto(out, x[slices]);\ntorch at 1 and 2 threads; memcpy = np.copyto"
          " of the output bytes; vs numpy = numpy alloc ÷ strider alloc (higher is better)")
    header = (f"{'workload':36} {'out':>9} {'memcpy':>8} {'s 1t':>8} {'s 2t':>8} {'s alloc':>8} {'np':>8}"
              f" {'np out':>8} {'torch1':>8} {'torch2':>8} {'vs numpy':>8}"
              + (f" {'rust 1t':>8} {'py/rust':>7}" if rust else ""))
    print(header)
    rng = np.random.default_rng(0)
    for case in cases:
        dtype = DTYPES[case["dtype"]]
        x = rng.integers(0, 255, size=case["input_sizes"], dtype=np.uint8).astype(dtype)
        sl = slices(case)
        want = np.ascontiguousarray(x[sl])
        offsets, sizes, strides = tight_window(case)
        op = strider.Slice1(offsets, sizes, strides)
        out = np.empty_like(want)
        got = op(x, out)
        assert got is out and np.array_equal(out.view(np.uint8), want.view(np.uint8)), case["name"]
        assert np.array_equal(strider.slice1(x, offsets, sizes, strides).view(np.uint8), want.view(np.uint8))
        src = np.empty_like(want)
        row = {
            "memcpy": median_us(lambda: np.copyto(out, src), args.seconds),
            "s 1t": median_us(lambda: op(x, out, threads=1), args.seconds),
            "s 2t": median_us(lambda: op(x, out, threads=2), args.seconds),
            "s alloc": median_us(lambda: strider.slice1(x, offsets, sizes, strides, threads=1), args.seconds),
            "np": median_us(lambda: np.ascontiguousarray(x[sl]), args.seconds),
            "np out": median_us(lambda: np.copyto(out, x[sl]), args.seconds),
        }
        if torch is not None:
            call = torch_call(torch, x, case)
            assert np.array_equal(call().numpy().view(np.uint8), want.view(np.uint8)), case["name"]
            for threads in (1, 2):
                torch.set_num_threads(threads)
                row[f"torch{threads}"] = median_us(call, args.seconds)
        cells = " ".join(f"{row[k]:8.1f}" if k in row else f"{'-':>8}"
                         for k in ("memcpy", "s 1t", "s 2t", "s alloc", "np", "np out", "torch1", "torch2"))
        size = want.nbytes
        size_text = f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 2**10:.1f} KiB" if size >= 1024 \
            else f"{size} B"
        extra = ""
        if case["name"] in rust:
            extra = f" {rust[case['name']]:8.1f} {row['s 1t'] / rust[case['name']]:7.2f}"
        print(f"{case['name']:36} {size_text:>9} {cells} {row['np'] / row['s alloc']:7.1f}×{extra}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
