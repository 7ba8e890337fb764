#!/usr/bin/env python3
"""The table of scripts/gpu/engine-split.sh: a row per engine shape (`auto`, the automatic one,
then N blocks on the first SMs, by N), each cell one value per process of that shape, in the
order of the folders' names (<protocol>-<first>-<second>/, regression-points.sh's reports):
- a table_ point, per protocol: the rate over the direct-read ceiling its process measured (its
  rate in M IOPS where it measured none) and p99.99 / p50;
- taxi_q0q5: bam rows per second of Q0 at D = 30 with 4 KiB and 512 B lines, and the geometric
  mean over its jobs of each job's rate over the automatic shape's processes' mean (a job a
  process lacks is left out of its mean, a cell it lacks is -);
- bfs_kron: TEPS, cc_kron: edges scanned per second, each over the automatic shape's processes'
  mean, cc with its steps (its label race gives 3 or 4; its rate does not follow them).
Usage: engine-split.py OUT > table.md"""
import glob
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pylib"))
import reports  # noqa: E402

PROTOCOLS = {"hardware": "hw", "emulator": "emu"}


def table_cell(doc):
    """(share or M IOPS, p50 us, p99.99 us, whether a share) of a table_ point's report."""
    _, job, b = reports.jobs(doc)[0]
    c = (reports.ceilings(doc, b) or {}).get("direct_reads_per_s")
    v = b["iops"] / c if c else b["iops"] / 1e6
    return (v, reports.percentile_us(job, "50.000000"), reports.percentile_us(job, "99.990000"),
            bool(c))


def taxi(doc):
    """{(line, distance, query): M rows/s} of a taxi-query report."""
    return {(cfg["cache"]["line_size"], float(cfg["taxi"]["min_distance"]),
             cfg["taxi"]["queries"]): reports.taxi_rows_per_s(b) / 1e6
            for cfg, _, b in reports.jobs(doc)}


def graph(doc):
    """(rate, steps): bfs' TEPS or cc's edges scanned per second, and the run's steps."""
    b = reports.jobs(doc)[0][2]
    return reports.graph_figure(b), b["stats"]["graph"]["steps"]


def read(out):
    """{shape: [process, ...]}, a process {column key: value}; the columns found; {shape: its
    warps per block as its reports' config gives them}."""
    rows, cols, warps = {}, [], {}
    for folder in sorted(glob.glob(f"{out}/*-*-*/")):
        m = re.fullmatch(r"(\w+)-(auto|\d+)-(auto|\d+)", Path(folder).name)
        if not m:
            continue
        proto, shapes = m.group(1), {"old": m.group(2), "new": m.group(3)}
        for build, shape in shapes.items():
            proc = {}
            for f in sorted(glob.glob(f"{folder}/*_{build}_1.json")):
                point = re.fullmatch(rf"(.+)_{build}_1\.json", Path(f).name).group(1)
                doc = reports.load(f)
                warps[shape] = reports.jobs(doc)[0][0]["gpu"]["engine_warps_per_block"]
                if point.startswith("table_"):
                    key = (point, proto)
                    proc[key] = table_cell(doc)
                elif point == "taxi_q0q5":
                    key = point
                    proc[key] = taxi(doc)
                elif point in ("bfs_kron", "cc_kron"):
                    key = point
                    proc[key] = graph(doc)
                else:
                    continue
                if key not in cols:
                    cols.append(key)
            rows.setdefault(shape, []).append(proc)
    return rows, cols, warps


def order(key):
    """Columns: the table_ points by name, each in hw then emu, then taxi, bfs, cc."""
    if isinstance(key, tuple):
        return (0, key[0], list(PROTOCOLS).index(key[1]) if key[1] in PROTOCOLS else 9, "")
    return (1, "", ["taxi_q0q5", "bfs_kron", "cc_kron"].index(key), "")


def main():
    rows, cols, warps = read(sys.argv[1])
    cols.sort(key=order)
    if not any(p for procs in rows.values() for p in procs):
        sys.exit("engine-split.py: no reports in <protocol>-<shape>-<shape> folders of "
                 f"{sys.argv[1]}")
    if "auto" not in rows:
        sys.exit("engine-split.py: no process of the automatic shape (auto) to compare with")
    base = {}
    for key in ("taxi_q0q5", "bfs_kron", "cc_kron"):
        got = [p[key] for p in rows["auto"] if key in p]
        if key == "taxi_q0q5" and got:  # per job, over the processes that ran it
            jobs = {k for t in got for k in t}
            base[key] = {k: sum(t[k] for t in got if k in t) / sum(k in t for t in got)
                         for k in jobs}
        elif got:
            base[key] = sum(rate for rate, _ in got) / len(got)

    def cell(key, procs):
        vals = [p[key] for p in procs if key in p]
        if isinstance(key, tuple):
            return ", ".join((f"{v:.3f}" if share else f"{v:.2f} M") + f"; {p9 / p5:.1f} x"
                             for v, p5, p9, share in vals)
        if key == "taxi_q0q5":
            m = base.get(key, {})
            q0 = lambda t, line: f"{t[(line, 30.0, 'q0')]:.0f}" if (line, 30.0, "q0") in t else "-"

            def geo(t):
                both = [k for k in m if k in t]
                return (f" ({math.exp(sum(math.log(t[k] / m[k]) for k in both) / len(both)):.3f})"
                        if both else "")
            return ", ".join(f"{q0(t, 4096)} / {q0(t, 512)}{geo(t)}" for t in vals)
        if key == "bfs_kron":
            return ", ".join(f"{r / base[key]:.3f}" for r, _ in vals) if key in base else ""
        return ", ".join(f"{r / base[key]:.3f} ({s})" for r, s in vals) if key in base else ""

    def head(key):
        if isinstance(key, tuple):
            return f"{key[0][len('table_'):]} {PROTOCOLS.get(key[1], key[1])}: share; p99.99 / p50"
        return {"taxi_q0q5": "taxi Q0 D=30, M rows/s: 4 KiB / 512 B lines (geomean of 8 jobs "
                             "over auto's)",
                "bfs_kron": "bfs TEPS over auto's",
                "cc_kron": "cc edges scanned/s over auto's (steps)"}[key]

    print("| engine | " + " | ".join(head(k) for k in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for s in ["auto"] + sorted((s for s in rows if s != "auto"), key=int):
        name = ("automatic (scheduler)" if s == "auto" else
                f"{s} x {warps.get(s) or '?'}, first SMs")
        print(f"| {name} | " + " | ".join(cell(k, rows[s]) for k in cols) + " |")


if __name__ == "__main__":
    main()
