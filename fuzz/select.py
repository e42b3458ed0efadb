#!/usr/bin/env python3
"""Picks the committed fuzz corpus of one target: at most K inputs that cover the most, greedily (coverage edges
first, then libFuzzer's features; ties to the shorter input), from a libFuzzer merge control file.

The repository keeps a small corpus per target (replayed by `cargo test`); a grown corpus stays outside it. To
refresh one target's committed inputs from a grown corpus in /tmp/corpus/<target>:

    T=slice1; F=/tmp/fuzz-release/x86_64-unknown-linux-gnu/release
    mkdir -p /tmp/empty && $F/$T -merge=1 -max_len=256 -merge_control_file=/tmp/$T.ctl /tmp/empty /tmp/corpus/$T
    rm -rf fuzz/corpus/$T && python3 fuzz/select.py /tmp/$T.ctl fuzz/corpus/$T 160
"""

import os
import shutil
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    control, dest, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lines = open(control).read().split("\n")
    n = int(lines[0])
    files = lines[2:2 + n]
    cov, ft = {}, {}
    for line in lines[2 + n:]:
        parts = line.split()
        if parts and parts[0] in ("COV", "FT"):
            (cov if parts[0] == "COV" else ft)[int(parts[1])] = set(parts[2:])
    size = {i: os.path.getsize(f) for i, f in enumerate(files) if os.path.exists(f)}
    chosen, edges, features = [], set(), set()
    left = set(size)
    while len(chosen) < k and left:
        gain = lambda i: (len(cov.get(i, set()) - edges), len(ft.get(i, set()) - features), -size[i])  # noqa: E731
        best = max(left, key=gain)
        if gain(best)[:2] == (0, 0):
            break
        chosen.append(best)
        edges |= cov.get(best, set())
        features |= ft.get(best, set())
        left.remove(best)
    os.makedirs(dest, exist_ok=True)
    for i in chosen:
        shutil.copy(files[i], dest)
    total = set().union(*cov.values()) if cov else set()
    print(f"{len(chosen)} of {len(size)} inputs: {len(edges)} of {len(total)} edges, "
          f"{sum(size[i] for i in chosen)} bytes")


if __name__ == "__main__":
    main()
