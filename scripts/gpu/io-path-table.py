#!/usr/bin/env python3
"""The table of scripts/gpu/io-path-table.sh (issue 19): per protocol and point, the rate (the
median run of the process's 3, with min-max), the ceiling the same process measured over the
same footprint (direct reads of the pinned media per second, and the pinned copy), the rate's
share of it, the latency (mean, p50, p99.99, max), the engine that served it (its blocks x
warps per block, from the report's engine_blocks and engine_warps: how much of the GPU the
emulator took; and its placement where it is not the block scheduler's, "(auto)" where
gpu.engine_placement auto chose it) and how much of what the client threads could offer was in flight (the report's
client_threads: Little's law's I/Os in flight over the most threads resident at once x their
outstanding commands, "-" for reports before it). Usage:
io-path-table.py OUT_DIR [--json FILE]  (OUT_DIR holds one folder per protocol)
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pylib"))
import reports  # noqa: E402

ORDER = ["ideal_4k_8g", "ideal_512_1g", "ideal_512_4g", "optane1_512", "optane4_512",
         "optane10_256m", "optane10_1g", "optane10_1g_even", "qd1_null", "qd1_optane",
         "oneqp_null"]


def rows_of(path, protocol):
    doc = reports.load(path)
    out = []
    for cfg, job, b in reports.jobs(doc):
        op = reports.measured_side(job)
        runs = b.get("repeat", {}).get("iops") or [op["iops"]]
        lat = op["lat_ns"]
        pct = lat.get("percentile", {})
        ceil = reports.ceilings(doc, b)
        w, st = cfg["workload"], cfg["storage"]
        row = {"protocol": protocol, "point": path.stem, "threads": w["threads"],
               "ssds": st["ssd_count"], "model": st["model"], "io_size": w["io_size"],
               "media_bytes_per_ssd": st["media"]["size_bytes"], "iops": op["iops"],
               "iops_min": min(runs), "iops_max": max(runs), "runs": len(runs),
               "lat_mean_us": lat["mean"] / 1e3, "lat_p50_us": pct.get("50.000000", 0) / 1e3,
               "lat_p9999_us": pct.get("99.990000", 0) / 1e3, "lat_max_us": lat["max"] / 1e3,
               "commit": reports.provenance(path, doc)["commit"]}
        stats = b.get("stats", {})
        if stats.get("engine_blocks"):  # reports before c71255e's engine keys lack them
            row["engine_blocks"] = stats["engine_blocks"]
            row["engine_warps"] = stats["engine_warps"]
        # The placement that ran: the report's resolved one (since gpu.engine_placement auto),
        # else the config's (reports before c61a382 have neither); "(auto)" where auto chose it.
        configured = cfg.get("gpu", {}).get("engine_placement")
        placement = stats.get("engine_placement") or configured
        if placement:
            row["engine_placement"] = placement
            row["engine_placement_auto"] = configured == "auto"
        if "client_threads" in stats:
            row["peak_resident"] = stats["client_threads"]["peak_resident"]
            row["in_flight_share"] = stats["client_threads"]["in_flight_share"]
        if ceil and ceil.get("direct_reads_per_s"):
            row["ceiling_direct_reads_per_s"] = ceil["direct_reads_per_s"]
            row["ceiling_h2d_gbps"] = ceil["h2d_memcpy_gbps"]
            row["ceiling_over_bytes"] = ceil["over_bytes"]
            row["share_of_direct"] = op["iops"] / ceil["direct_reads_per_s"]
            if ceil["h2d_memcpy_gbps"]:
                row["share_of_copy"] = op["iops"] * w["io_size"] / 1e9 / ceil["h2d_memcpy_gbps"]
        out.append(row)
    return out


def main():
    out = Path(sys.argv[1])
    rows = []
    for pdir in sorted(p for p in out.iterdir() if p.is_dir()):
        files = {f.stem: f for f in pdir.glob("*.json")}
        for name in ORDER + sorted(set(files) - set(ORDER)):
            if name in files:
                rows += rows_of(files[name], pdir.name)
    print("| protocol | point | threads | rate: median (min-max) | ceiling over the footprint"
          " | share | latency us: mean / p50 / p99.99 / max | engine"
          " | in flight: share of the resident threads' |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        rate = f"{r['iops'] / 1e6:.2f} M IOPS ({r['iops_min'] / 1e6:.2f}-{r['iops_max'] / 1e6:.2f})"
        if r["io_size"] >= 4096:
            gb = r["io_size"] / 1e9
            rate += f" = {r['iops'] * gb:.1f} GB/s"
        ceil, share = "-", "-"
        if "ceiling_direct_reads_per_s" in r:
            over = r["ceiling_over_bytes"] / 2**30
            ceil = (f"direct {r['ceiling_direct_reads_per_s'] / 1e6:.1f} M/s, copy "
                    f"{r['ceiling_h2d_gbps']:.1f} GB/s, over {over:g} GiB")
            share = f"{r['share_of_direct']:.2f}"
            if r["io_size"] >= 4096 and "share_of_copy" in r:
                share += f" / {r['share_of_copy']:.2f} of copy"
        lat = (f"{r['lat_mean_us']:.1f} / {r['lat_p50_us']:.1f} / {r['lat_p9999_us']:.1f} / "
               f"{r['lat_max_us']:.1f}")
        engine = "-"
        if "engine_blocks" in r:
            engine = f"{r['engine_blocks']} x {r['engine_warps'] // r['engine_blocks']}"
            if r.get("engine_placement", "scheduler") != "scheduler":
                engine += f", {r['engine_placement']}"
                if r.get("engine_placement_auto"):
                    engine += " (auto)"
        flight = "-"
        if "in_flight_share" in r:
            flight = f"{r['in_flight_share']:.2f} of {r['peak_resident']:,}"
        print(f"| {r['protocol']} | {r['point']} | {r['threads']} | {rate} | {ceil} | {share} "
              f"| {lat} | {engine} | {flight} |")
    if "--json" in sys.argv:
        Path(sys.argv[sys.argv.index("--json") + 1]).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
