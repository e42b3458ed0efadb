#!/usr/bin/env python3
"""The data-movement family side by side: Strider (`strider bench --method tight`, same session) against numpy and
torch at 1 and 2 threads, on the movement cases of Strider's default suite:

- pad: a u8 640×480×3 letterbox to 640×640 (constant 114), an f32 1×64×256×256 reflect pad by 3;
- join: 32 u8 images of 3×224×224 into a batch; split: f16 8×1024×4096 into 4 along the last axis;
- tile: f32 1×3×224×224 by (8, 1, 1, 1); depth-to-space: f32 1×256×128×128, block 2, DCR and CRD;
- fill and sequence: 16M int64;
- gather: embedding lookups (f32 32768×1024 by 16384 int64 ids, f32 131072×256 by 65536, f16 65536×4096 by
  4096); gather_elements: f32 and f16 4096×1024 along the last axis by as many int64 indices; scatter_elements: f32
  4096×1024 updated by 4096×256 int64 indices (out of place: a copy, then the updates); one_hot: 16384 int64
  indices into f32 16384×1000.

    python3 benches/peers/movement.py [--strider target/release/strider] [--seconds 0.3] [--json out.json]

The peers come from the peer virtualenv (see `common.py`; `python3 ../shared/bench/peers.py --setup` creates it
with numpy and torch). Each peer runs the fastest form its API offers, and both forms are timed where there are
two: numpy's allocating call (`np.pad`, `np.concatenate`, `np.tile`, `np.arange`, a reshape–transpose copy) and
the preallocated form (slice assignments, `out=`, `np.copyto` from a view); torch's allocating call (`F.pad`,
`torch.cat`, `repeat`, `pixel_shuffle`, `arange`) and the preallocated one (`out=`, `copy_` from a view). The
index cases use the indices `strider bench` fills in (`(k · 2654435761 + 12345) mod n`): numpy's `np.take`,
`np.take_along_axis`, a copy and `np.put_along_axis`, `np.eye(depth)[i]`; torch's `index_select`, `gather`,
`scatter` (out of place, as Strider's case), `F.one_hot` then a cast, `zeros` then `scatter_`. The table shows each
peer's faster form. Every peer's result is checked against numpy's definition bit for bit.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import STRIDER, ensure_numpy, median_time, strider_report  # noqa: E402

ensure_numpy()
import numpy as np  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None

DTYPES = {"u8": np.uint8, "f16": np.float16, "f32": np.float32, "i64": np.int64}


def bench_indices(count, bound):
    """The indices `strider bench` fills in: element k is (k · 2654435761 + 12345) mod bound."""
    return ((np.arange(count, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(12345)) % np.uint64(bound)).astype(
        np.int64)


def inputs(case):
    """The case's input arrays (deterministic values) and Strider's result computed by numpy's definition."""
    c = case["case"]
    op, dt = c["op"], DTYPES[c["dtype"]]
    rng = np.random.default_rng(7)
    sizes = c.get("sizes") or c.get("input_sizes")

    def arr(shape):
        return rng.integers(0, 200, size=shape).astype(dt)

    if op == "pad":
        x = arr(sizes)
        pads = list(zip(c["start"], c["end"]))
        mode = c.get("mode", "constant")
        kw = {"constant_values": c.get("value", 0)} if mode == "constant" else {}
        return [x], np.pad(x, pads, mode=mode, **kw)
    if op in ("join", "split"):
        axis = c.get("axis", 0)
        parts = []
        for n in c["parts"]:
            s = list(sizes)
            s[axis] = n
            parts.append(arr(s))
        whole = np.concatenate(parts, axis=axis)
        return (parts, whole) if op == "join" else ([whole], parts)
    if op == "tile":
        x = arr(sizes)
        return [x], np.tile(x, c["repeats"])
    if op == "depth_to_space":
        x = arr(sizes)
        n, ch, h, w = sizes
        b = c["block_size"]
        if c.get("mode", "DCR") == "DCR":
            y = x.reshape(n, b, b, ch // b // b, h, w).transpose(0, 3, 4, 1, 5, 2)
        else:
            y = x.reshape(n, ch // b // b, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
        return [x], np.ascontiguousarray(y).reshape(n, ch // b // b, h * b, w * b)
    if op in ("gather", "gather_elements", "scatter_elements"):
        x = arr(sizes)
        axis = c.get("axis", 0)
        shape = c["index_sizes"]
        idx = bench_indices(int(np.prod(shape)), sizes[axis]).reshape(shape)
        if op == "gather":
            return [x, idx], np.take(x, idx, axis=axis)
        if op == "gather_elements":
            return [x, idx], np.take_along_axis(x, idx, axis=axis)
        upd = arr(shape)
        y = x.copy()
        np.put_along_axis(y, idx, upd, axis=axis)
        return [x, idx, upd], y
    if op == "one_hot":
        idx = bench_indices(int(np.prod(c["index_sizes"])), c["depth"]).reshape(c["index_sizes"])
        return [idx], np.eye(c["depth"], dtype=dt)[idx]
    if op == "fill":
        return [], np.full(sizes, c["value"], dt)
    if op == "fill_sequence":
        return [], (c["value"] + c["delta"] * np.arange(int(np.prod(sizes)))).astype(dt).reshape(sizes)
    raise ValueError(op)


def numpy_forms(case, ins, want):
    """The numpy forms of the case: name → callable returning the result."""
    c = case["case"]
    op = c["op"]
    forms = {}
    if op == "pad":
        x = ins[0]
        pads = list(zip(c["start"], c["end"]))
        mode = c.get("mode", "constant")
        kw = {"constant_values": c.get("value", 0)} if mode == "constant" else {}
        forms["np.pad"] = lambda: np.pad(x, pads, mode=mode, **kw)
        if mode == "constant":
            out = np.empty_like(want)
            inner = tuple(slice(s, s + n) for (s, _), n in zip(pads, x.shape))

            def pre():
                out.fill(c.get("value", 0))
                out[inner] = x
                return out
            forms["slices"] = pre
    elif op == "join":
        out = np.empty_like(want)
        axis = c.get("axis", 0)
        forms["np.concatenate"] = lambda: np.concatenate(ins, axis=axis)
        forms["concatenate(out=)"] = lambda: np.concatenate(ins, axis=axis, out=out)
    elif op == "split":
        axis = c.get("axis", 0)
        cuts = np.cumsum(c["parts"])[:-1]
        outs = [np.empty_like(w) for w in want]
        forms["np.split+copy"] = lambda: [p.copy() for p in np.split(ins[0], cuts, axis=axis)]

        def pre():
            for o, p in zip(outs, np.split(ins[0], cuts, axis=axis)):
                np.copyto(o, p)
            return outs
        forms["split+copyto"] = pre
    elif op == "tile":
        x = ins[0]
        out = np.empty_like(want)
        forms["np.tile"] = lambda: np.tile(x, c["repeats"])
        if all(n == 1 or r == 1 for n, r in zip(x.shape, c["repeats"])):
            forms["copyto(broadcast)"] = lambda: (np.copyto(out, np.broadcast_to(x, out.shape)), out)[1]
    elif op == "depth_to_space":
        x = ins[0]
        n, ch, h, w = x.shape
        b = c["block_size"]
        out = np.empty_like(want)
        if c.get("mode", "DCR") == "DCR":
            view = x.reshape(n, b, b, ch // b // b, h, w).transpose(0, 3, 4, 1, 5, 2)
        else:
            view = x.reshape(n, ch // b // b, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
        out6 = out.reshape(view.shape)
        forms["reshape-transpose copy"] = lambda: np.ascontiguousarray(view).reshape(out.shape)
        forms["copyto(view)"] = lambda: (np.copyto(out6, view), out)[1]
    elif op == "fill":
        out = np.empty_like(want)
        forms["np.full"] = lambda: np.full(want.shape, c["value"], want.dtype)
        forms["out.fill"] = lambda: (out.fill(c["value"]), out)[1]
    elif op == "fill_sequence":
        n = want.size
        forms["np.arange"] = lambda: np.arange(c["value"], c["value"] + c["delta"] * n, c["delta"], dtype=want.dtype)
    elif op == "gather":
        out = np.empty_like(want)
        forms["np.take"] = lambda: np.take(ins[0], ins[1], axis=c.get("axis", 0))
        forms["take(out=)"] = lambda: np.take(ins[0], ins[1], axis=c.get("axis", 0), out=out)
    elif op == "gather_elements":
        forms["np.take_along_axis"] = lambda: np.take_along_axis(ins[0], ins[1], axis=c.get("axis", 0))
    elif op == "scatter_elements":
        def put():
            y = ins[0].copy()
            np.put_along_axis(y, ins[1], ins[2], axis=c.get("axis", 0))
            return y
        forms["copy+put_along_axis"] = put
    elif op == "one_hot":
        eye = np.eye(c["depth"], dtype=want.dtype)
        forms["np.eye[i]"] = lambda: eye[ins[0]]
    return forms


def torch_forms(case, ins, want):
    c = case["case"]
    op = c["op"]
    tins = [torch.from_numpy(i) for i in ins]
    forms = {}
    if op == "pad":
        x = tins[0]
        mode = c.get("mode", "constant")
        # F.pad's pad list runs from the last dimension backwards; reflect pads the trailing dimensions of a
        # 3- or 4-D tensor only.
        pads = [v for s, e in zip(reversed(c["start"]), reversed(c["end"])) for v in (s, e)]
        while len(pads) > 2 and pads[-1] == 0 and pads[-2] == 0:
            pads = pads[:-2]
        if mode == "constant":
            forms["F.pad"] = lambda: F.pad(x, pads, value=c.get("value", 0))
        elif x.dtype in (torch.float32, torch.float64):
            forms["F.pad"] = lambda: F.pad(x, pads, mode=mode)
    elif op == "join":
        out = torch.empty(want.shape, dtype=tins[0].dtype)
        forms["torch.cat"] = lambda: torch.cat(tins, dim=c.get("axis", 0))
        forms["cat(out=)"] = lambda: torch.cat(tins, dim=c.get("axis", 0), out=out)
    elif op == "split":
        outs = [torch.empty(w.shape, dtype=tins[0].dtype) for w in want]
        axis = c.get("axis", 0)
        forms["torch.split+clone"] = lambda: [p.clone() for p in torch.split(tins[0], c["parts"], dim=axis)]
        forms["split+copy_"] = lambda: [o.copy_(p) for o, p in zip(outs, torch.split(tins[0], c["parts"], dim=axis))]
    elif op == "tile":
        out = torch.empty(want.shape, dtype=tins[0].dtype)
        forms["repeat"] = lambda: tins[0].repeat(*c["repeats"])
        forms["copy_(expand)"] = lambda: out.copy_(tins[0].expand(out.shape))
    elif op == "depth_to_space":
        x = tins[0]
        n, ch, h, w = x.shape
        b = c["block_size"]
        out = torch.empty(want.shape, dtype=x.dtype)
        if c.get("mode", "DCR") == "CRD":
            forms["pixel_shuffle"] = lambda: F.pixel_shuffle(x, b)
            view = x.reshape(n, ch // b // b, b, b, h, w).permute(0, 1, 4, 2, 5, 3)
        else:
            view = x.reshape(n, b, b, ch // b // b, h, w).permute(0, 3, 4, 1, 5, 2)
        forms["copy_(view)"] = lambda: (out.view(view.shape).copy_(view), out)[1]
    elif op == "fill":
        out = torch.empty(want.shape, dtype=torch.from_numpy(want[:1]).dtype)
        forms["fill_"] = lambda: out.fill_(c["value"])
    elif op == "fill_sequence":
        out = torch.empty(want.size, dtype=torch.from_numpy(want.reshape(-1)[:1]).dtype)
        n = want.size
        forms["arange(out=)"] = lambda: torch.arange(c["value"], c["value"] + c["delta"] * n, c["delta"], out=out)
    elif op == "gather":
        axis = c.get("axis", 0)
        flat = tins[1].reshape(-1)
        out = torch.empty(want.shape, dtype=tins[0].dtype)
        forms["index_select"] = lambda: torch.index_select(tins[0], axis, flat)
        forms["index_select(out=)"] = lambda: torch.index_select(tins[0], axis, flat, out=out.view(-1, *want.shape[1:]))
    elif op == "gather_elements":
        out = torch.empty(want.shape, dtype=tins[0].dtype)
        forms["gather"] = lambda: torch.gather(tins[0], c.get("axis", 0), tins[1])
        forms["gather(out=)"] = lambda: torch.gather(tins[0], c.get("axis", 0), tins[1], out=out)
    elif op == "scatter_elements":
        forms["scatter"] = lambda: tins[0].scatter(c.get("axis", 0), tins[1], tins[2])
    elif op == "one_hot":
        dt = torch.from_numpy(want.reshape(-1)[:1]).dtype
        out = torch.empty(want.shape, dtype=dt)
        ones = torch.ones(tins[0].shape + (1,), dtype=dt)
        forms["F.one_hot+to"] = lambda: F.one_hot(tins[0], c["depth"]).to(dt)
        forms["zero_+scatter_"] = lambda: out.zero_().scatter_(-1, tins[0].unsqueeze(-1), ones)
    return forms


def same(got, want):
    if isinstance(want, list):
        return all(same(g, w) for g, w in zip(got, want))
    if torch is not None and isinstance(got, torch.Tensor):
        got = got.numpy()
    return np.array_equal(np.asarray(got).reshape(want.shape), want)


def best(forms, want, seconds, name, case):
    times = {}
    for form, f in forms.items():
        if not same(f(), want):
            print(f"warning: {name} {form} differs on {case['name']}", file=sys.stderr)
            continue
        times[form] = median_time(f, seconds)
    if not times:
        return None, None
    form = min(times, key=times.get)
    return times[form], form


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strider", default=STRIDER)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--filter", default="", help="only the cases whose name contains this")
    ap.add_argument("--json")
    a = ap.parse_args()
    ops = ("pad", "join", "split", "tile", "depth_to_space", "fill", "fill_sequence", "gather", "gather_elements",
           "scatter_elements", "one_hot")
    report = strider_report(a.strider, a.filter or "_", a.seconds)
    rows = []
    for case in report["cases"]:
        if case["op"] not in ops or a.filter not in case["name"]:
            continue
        ins, want = inputs(case)
        row = {"name": case["name"], "mib": case["output_bytes"] / 2**20}
        for run in case["runs"]:
            row[f"strider_t{run['threads']}"] = run["ns_per_op"] / 1e3
            row[f"limit_t{run['threads']}"] = run["time_over_limit"]
        t, form = best(numpy_forms(case, ins, want), want, a.seconds, "numpy", case)
        if t is not None:
            row["numpy"], row["numpy_form"] = t * 1e6, form
        if torch is not None:
            for threads in (1, 2):
                torch.set_num_threads(threads)
                t, form = best(torch_forms(case, ins, want), want, a.seconds, "torch", case)
                if t is not None:
                    row[f"torch_t{threads}"], row["torch_form"] = t * 1e6, form
        rows.append(row)
    cols = [("strider_t1", "strider 1t"), ("limit_t1", "t/limit"), ("numpy", "numpy"), ("torch_t1", "torch 1t"),
            ("strider_t2", "strider 2t"), ("limit_t2", "t/limit"), ("torch_t2", "torch 2t")]
    print(f"{'case':<40} {'MiB':>6} " + " ".join(f"{h:>11}" for _, h in cols))
    for r in rows:
        cells = []
        for k, _ in cols:
            if k not in r:
                cells.append(f"{'n/a':>11}")
            elif k.startswith("limit"):
                cells.append(f"{r[k]:>11.2f}")
            else:
                cells.append(f"{r[k]:>10.1f}µ")
        print(f"{r['name']:<40} {r['mib']:>6.1f} " + " ".join(cells))
    print("times: medians per call (µs); t/limit: Strider's time ÷ a memcpy (same threads) of the bytes it must "
          "move; numpy is single-threaded; n/a = peer not installed or without this operation")
    for r in rows:
        print(f"  {r['name']}: numpy form {r.get('numpy_form', '-')}, torch form {r.get('torch_form', '-')}")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
