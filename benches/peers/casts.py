#!/usr/bin/env python3
"""Casts side by side: Strider (`strider bench`, same session) against numpy `astype` and torch `.to()` at 1 and
2 threads, on the cast cases of Strider's default suite.

    python3 benches/peers/casts.py [--strider target/release/strider] [--seconds 0.3] [--json out.json]

numpy and torch come from the peer virtualenv of ../shared/bench/peers.py ($PEERBENCH_DIR/venv, default
/tmp/strider-peerbench/venv; `python3 ../shared/bench/peers.py --setup` creates it); the script re-executes itself
there when the current python lacks them. Each peer writes into a preallocated output of the destination layout
(numpy: `np.copyto(out, x, casting="unsafe")` for packed outputs, or `out[...] = x` into a strided view; torch:
`out.copy_(x)`), so no peer pays an allocation Strider does not. Times are medians of batched samples, as the peer
scripts measure. (Cast values are pinned by Strider's own tests against Rust's `as`; numpy and torch agree with it
except where they document other rules, e.g. out-of-range float → int.)
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import STRIDER, ensure_numpy, median_time, packed_strides, strider_report, strides_view  # noqa: E402

ensure_numpy()
import numpy as np  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16, "i32": np.int32,
      "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strider", default=STRIDER)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--filter", default="cast_")
    ap.add_argument("--json")
    a = ap.parse_args()

    # Strider first, same session: its default suite's cast cases.
    report = strider_report(a.strider, a.filter, a.seconds)

    rows = []
    for c in report["cases"]:
        if c["op"] != "cast":
            continue
        src_t, dst_t = c["case"]["dtype"], c["case"]["output_dtype"]
        sizes = c["case"]["sizes"]
        in_strides = c["case"].get("input_strides") or packed_strides(sizes)
        out_strides = c["case"].get("output_strides") or packed_strides(sizes)
        rng = np.random.default_rng(1)
        span = sum((n - 1) * s for n, s in zip(sizes, in_strides)) + 1
        if np.dtype(NP[src_t]).kind == "f":
            buf = (rng.standard_normal(span) * 100).astype(NP[src_t])
        else:
            info = np.iinfo(NP[src_t])
            buf = rng.integers(info.min, info.max, span, dtype=NP[src_t], endpoint=True)
        xin = strides_view(buf, sizes, in_strides, buf.itemsize)
        out_span = sum((n - 1) * s for n, s in zip(sizes, out_strides)) + 1
        obuf = np.empty(out_span, dtype=NP[dst_t])
        out = strides_view(obuf, sizes, out_strides, obuf.itemsize)
        row = {"name": c["name"], "bytes": c["output_bytes"]}
        for run in c["runs"]:
            row[f"strider_t{run['threads']}"] = run["ns_per_op"] / 1e3
            row[f"limit_t{run['threads']}"] = run["time_over_limit"]
        row["memcpy_t1"] = c["memcpy_ns"] / 1e3
        row["numpy"] = median_time(lambda: np.copyto(out, xin, casting="unsafe"), a.seconds) * 1e6
        if torch is not None:
            tdt = {"f16": torch.float16, "f32": torch.float32, "f64": torch.float64, "i8": torch.int8,
                   "i16": torch.int16, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
                   "u16": torch.uint16, "u32": torch.uint32, "u64": torch.uint64}
            tin = torch.from_numpy(buf).as_strided(sizes, in_strides)
            tout = torch.from_numpy(obuf).as_strided(sizes, out_strides)
            for t in (1, 2):
                torch.set_num_threads(t)
                row[f"torch_t{t}"] = median_time(lambda: tout.copy_(tin), a.seconds) * 1e6
            assert tout.dtype == tdt[dst_t]
        rows.append(row)

    head = f"{'case':<42} {'bytes':>9} {'memcpy':>9} │ {'strider 1t':>10} {'t/limit':>7} {'numpy':>9} {'torch 1t':>9} │ {'strider 2t':>10} {'t/limit':>7} {'torch 2t':>9}"
    print(head)
    for r in rows:
        print(f"{r['name']:<42} {r['bytes'] / 2**20:>7.1f}Mi {r['memcpy_t1']:>8.1f}µ │ {r['strider_t1']:>9.1f}µ {r['limit_t1']:>6.2f} "
              f"{r['numpy']:>8.1f}µ {r.get('torch_t1', float('nan')):>8.1f}µ │ {r['strider_t2']:>9.1f}µ {r['limit_t2']:>6.2f} "
              f"{r.get('torch_t2', float('nan')):>8.1f}µ")
    print("times: medians per call (µs); t/limit: Strider's time ÷ a memcpy moving the bytes the cast must move (lower is better);"
          " numpy is single-threaded")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
