#!/usr/bin/env python3
"""The default suite (or any suite) at the AVX2 level and at the host's best, side by side, checked against the
AVX2 targets: `t/limit` per case and thread count for each level, the AVX2 ÷ best time ratio (an algorithm the
AVX2 level lacks shows as a large one), and the offenders — cases of 1 MiB or more whose one-thread `t/limit`
exceeds BOUND, and cases whose one-thread time is more than CLIFF times their two-thread time (a super-linear
speed-up is a cliff, not scaling). Rounds alternate the levels (`--rounds`), each case's median is reported: the
machines we measure on are noisy. A check to run and report, not a test (timings never go in tests):

    python3 benches/levels.py [--strider target/release/strider] [--rounds 3] [--filter TEXT] [--suite FILE]
                              [--threads 1,2] [--seconds 0.25] [--bound 1.25] [--cliff 2.2] [--all]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, isa, path):
    """One `strider bench` run at `isa` (None: the host's best) into the JSON file `path`; returns its cases."""
    cmd = [args.strider, "bench", "--json", path, "--seconds", str(args.seconds), "--threads", args.threads]
    if isa:
        cmd += ["--isa", isa]
    if args.filter:
        cmd += ["--filter", args.filter]
    if args.suite:
        cmd += ["--suite", args.suite]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        report = json.load(f)
    return report["isa"], report["cases"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--strider", default=os.path.join(ROOT, "target", "release", "strider"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--filter")
    p.add_argument("--suite")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--seconds", type=float, default=0.25)
    p.add_argument("--bound", type=float, default=1.25, help="largest one-thread t/limit of a case of 1 MiB or more")
    p.add_argument("--cliff", type=float, default=2.2, help="largest one-thread ÷ two-thread time")
    p.add_argument("--all", action="store_true", help="print every case, not only those off a target")
    args = p.parse_args()
    if not os.path.exists(args.strider):
        sys.exit(f"{args.strider} not found: cargo build --release -p strider-cli")

    levels = ["v3", None]
    # samples[level][case][threads] = [(ns, t/limit), ...]; sizes[case] = limit bytes
    samples, names, sizes = {0: {}, 1: {}}, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for k, isa in enumerate(levels):
                names[k], cases = run(args, isa, os.path.join(tmp, f"{r}-{k}.json"))
                for c in cases:
                    sizes[c["name"]] = c["limit_bytes"]
                    for x in c["runs"]:
                        per = samples[k].setdefault(c["name"], {}).setdefault(x["threads"], [])
                        per.append((x["ns_per_op"], x["time_over_limit"]))
            print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)

    def med(k, case, t, i):
        return statistics.median(s[i] for s in samples[k][case][t])

    threads = sorted({t for per in samples[0].values() for t in per})
    head = f"{'case':48}" + "".join(f"  {t}t: AVX2   best" for t in threads) + "  AVX2/best"
    print(f"t/limit, median of {args.rounds} rounds; AVX2 = {names[0]}, best = {names[1]}; AVX2/best: one-thread times")
    print(head)
    offenders = []
    for case in samples[0]:
        row = "".join(f"     {med(0, case, t, 1):6.2f} {med(1, case, t, 1):6.2f}" for t in threads)
        ratio = med(0, case, threads[0], 0) / med(1, case, threads[0], 0)
        why = []
        for k in (0, 1):
            if sizes[case] >= 1 << 20 and med(k, case, threads[0], 1) > args.bound:
                why.append(f"{('AVX2', 'best')[k]} t/limit")
            if len(threads) > 1 and med(k, case, threads[0], 0) > args.cliff * med(k, case, threads[1], 0):
                why.append(f"{('AVX2', 'best')[k]} cliff")
        if why:
            offenders.append(case)
        if why or args.all:
            print(f"{case[:48]:48}{row}  {ratio:6.2f}  {', '.join(why)}")
    print(f"{len(offenders)} of {len(samples[0])} cases off a target (bound {args.bound}, cliff {args.cliff})")


if __name__ == "__main__":
    main()
