#!/usr/bin/env python3
"""Compares `qgpu bench --suite` tables of two builds, each run several times (scripts/bench-compare.sh).

Per kernel both suites have: the median tokens/s and launch ms of each build over its runs, and the
ratio new/old of tokens/s; then the median over those kernels of each build's median tokens/s, and their
ratio. Kernels whose token counts differ between the builds are marked (their tokens/s still compare).
"""
import argparse
import statistics
import sys


def read_table(path):
    """{kernel: {"tokens": int, "tokens/s": float, "launch ms": float, "exact": str}} from one bench run."""
    rows, header = {}, None
    with open(path) as f:
        for line in f:
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] == "kernel":
                header = cells
                continue
            if header is None or set(cells[0]) <= {"-"}:
                continue
            row = dict(zip(header, cells))
            rows[row["kernel"]] = {
                "tokens": int(row["tokens"]),
                "tokens/s": float(row["tokens/s"]),
                "launch ms": float(row["launch ms"]),
                "exact": row.get("exact", "?"),
            }
    if header is None:
        sys.exit(f"bench_compare: no bench table in {path}")
    return rows


def medians(paths):
    runs = [read_table(p) for p in paths]
    kernels = set.intersection(*(set(r) for r in runs))
    return {
        k: {
            "tokens": runs[0][k]["tokens"],
            "tokens/s": statistics.median(r[k]["tokens/s"] for r in runs),
            "launch ms": statistics.median(r[k]["launch ms"] for r in runs),
            "exact": all(r[k]["exact"] == "yes" for r in runs),
        }
        for k in kernels
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", nargs="+", required=True)
    parser.add_argument("--new", nargs="+", required=True)
    parser.add_argument("--old-name", default="old")
    parser.add_argument("--new-name", default="new")
    args = parser.parse_args()
    old, new = medians(args.old), medians(args.new)
    common = sorted(set(old) & set(new))
    if not common:
        sys.exit("bench_compare: the two builds ran no kernel in common")
    print(f"| kernel | tokens {args.old_name} | tokens {args.new_name} | tokens/s {args.old_name} "
          f"| tokens/s {args.new_name} | ratio | launch ms {args.old_name} | launch ms {args.new_name} |")
    print("|---|---|---|---|---|---|---|---|")
    for k in common:
        o, n = old[k], new[k]
        mark = "" if o["tokens"] == n["tokens"] else " (tokens differ)"
        mark += "" if o["exact"] and n["exact"] else " (not exact)"
        print(f"| {k}{mark} | {o['tokens']} | {n['tokens']} | {o['tokens/s']:.0f} | {n['tokens/s']:.0f} "
              f"| {n['tokens/s'] / o['tokens/s']:.2f} | {o['launch ms']:.1f} | {n['launch ms']:.1f} |")
    mo = statistics.median(old[k]["tokens/s"] for k in common)
    mn = statistics.median(new[k]["tokens/s"] for k in common)
    runs = min(len(args.old), len(args.new))
    print(f"\nsuite median tokens/s over {len(common)} common kernels, {runs} alternating runs each: "
          f"{args.old_name} {mo:.0f}, {args.new_name} {mn:.0f}, ratio {mn / mo:.2f}")
    only = sorted(set(old) ^ set(new))
    if only:
        print(f"in one suite only (not compared): {', '.join(only)}")


if __name__ == "__main__":
    main()
