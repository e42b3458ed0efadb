#!/usr/bin/env python3
"""Where the `strider` binary's machine code goes: `.text` by instruction-set level and by algorithm.

Every kernel is compiled once per level it runs at (scalar, AVX2, AVX-512, AVX-512 VBMI), so code size grows with
each algorithm times the levels and widths it is instantiated for. This script builds the CLI with generic
arguments kept in its symbol names (`-C symbol-mangling-version=v0`, into `target/size` so that the usual build
stays as it is; same optimization flags otherwise), reads the text symbols with `nm`, and prints

- the total `.text`, and its share per level (a symbol counts for the level its generic arguments name) beside the
  level-free kernel code, the front ends (the `strider` facade, CLI, C ABI) and the dependencies with `std`;
- the largest algorithms (a kernel type or function with its generic arguments dropped), with their size at each
  level — what an algorithm costs per level, and which levels compile one they share.

A tool to run and report (issue "A house a newcomer can extend": count binary size when you add code), not a test:

    python3 benches/size.py [--binary PATH] [--top 30]

With `--binary`, a binary built with v0 symbol names is read instead of building one.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The level a symbol is compiled for, by the token type its generic arguments name (widest first: a VBMI symbol
# also names V4 when it runs V4's code through `Arch::base`, and counts as VBMI's).
LEVELS = [
    ("AVX-512 VBMI", "vbmi::V4Vbmi"),
    ("AVX-512", "v4::V4"),
    ("AVX2", "v3::V3"),
    ("scalar", "scalar::Scalar"),
]


# Paths that wrap a kernel rather than name one.
WRAPPERS = re.compile(r"^(arch::(v3::V3|v4::V4|vbmi::V4Vbmi|scalar::Scalar|map::\w+|Arch|Job|Level)|rows::(Run|Runner|Rows|Body))$")


def build():
    """Builds the CLI with v0 symbol names into target/size; returns the binary's path."""
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = os.path.join(ROOT, "target", "size")
    # RUSTFLAGS replaces the flags of .cargo/config.toml: repeat them, so that the code is the code users get.
    env["RUSTFLAGS"] = "-C symbol-mangling-version=v0 -C llvm-args=-align-loops=64"
    subprocess.run(["cargo", "build", "--release", "--bin", "strider"], cwd=ROOT, env=env, check=True)
    return os.path.join(env["CARGO_TARGET_DIR"], "release", "strider")


def text_bytes(binary):
    """The size of the binary's `.text` section."""
    out = subprocess.run(["size", "-A", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == ".text":
            return int(parts[1])
    sys.exit(f"no .text section in {binary}")


def symbols(binary):
    """(size, demangled name) of every text symbol."""
    out = subprocess.run(["nm", "-S", "-C", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"[0-9a-f]+ ([0-9a-f]+) [tTwW] (.*)$", line)
        if m:
            yield int(m.group(1), 16), m.group(2)


def strip_generics(name):
    """`a::B<x, y<z>>::c` → `a::B::c`."""
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def classify(name):
    """(level or part, algorithm) of a symbol."""
    for level, token in LEVELS:
        if token in name:
            part = level
            break
    else:
        if "strider_kernels" in name:
            part = "kernels, level-free"
        elif re.search(r"\bstrider(_cli|_capi|_python)?::", name):
            part = "front ends"
        else:
            part = "dependencies, std"
    # The algorithm: the first kernel path the symbol names that is not a wrapper (pulp's `vectorize` and the row
    # runners carry the kernel as a generic argument; level tokens and element maps are arguments, not algorithms).
    paths = [q.rstrip(":") for q in re.findall(r"strider_kernels::([A-Za-z0-9_:]+)", name)]
    kernels = [q for q in paths if not WRAPPERS.match(q)]
    algo = kernels[0] if kernels else (paths[0] if paths else strip_generics(name))
    return part, algo


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", help="a strider binary built with -C symbol-mangling-version=v0")
    p.add_argument("--top", type=int, default=30, help="algorithms to list")
    args = p.parse_args()
    binary = args.binary or build()
    total = text_bytes(binary)
    parts = collections.Counter()
    algos = collections.defaultdict(collections.Counter)
    counted = 0
    for size, name in symbols(binary):
        part, algo = classify(name)
        parts[part] += size
        counted += size
        if part not in ("front ends", "dependencies, std"):
            algos[algo][part] += size
    kib = lambda b: f"{b / 1024:8.1f}"
    print(f".text of {os.path.relpath(binary, ROOT)}: {total:,} bytes ({total / 2**20:.2f} MiB); text symbols "
          f"{counted:,} bytes")
    print(f"\n{'part':<22}{'KiB':>8}  share")
    for part, size in parts.most_common():
        print(f"{part:<22}{kib(size)}  {100 * size / counted:4.1f} %")
    columns = [level for level, _ in LEVELS] + ["kernels, level-free"]
    heads = ["VBMI", "AVX-512", "AVX2", "scalar", "free"]
    print(f"\nlargest kernel algorithms (KiB per level; {args.top} of {len(algos)})")
    print(f"{'algorithm':<72}" + "".join(f"{h:>9}" for h in heads) + f"{'total':>9}")
    ranked = sorted(algos.items(), key=lambda kv: -sum(kv[1].values()))
    for algo, per in ranked[: args.top]:
        cells = "".join(kib(per[c]) + " " if per[c] else f"{'·':>9}" for c in columns)
        print(f"{algo[:71]:<72}{cells}{kib(sum(per.values()))}")


if __name__ == "__main__":
    main()
