"""scripts/perf-check's comparison: two inputs (bamkit reports, sweep folders or folders of
reports, or Google Benchmark JSON) as entries (a job, or a benchmark) whose metrics are rates
(higher is better), times and latency percentiles (lower is better) and counts that must be
equal."""
import fnmatch
import json
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import reports

RATE, TIME, COUNT = "rate", "time", "count"
# Config keys that say where a run wrote or read, not what it measured.
NOT_WORKLOAD = ("report.", "storage.media.path", "storage.device_paths")
PERCENTILES = (("p50", "50.000000"), ("p99", "99.000000"), ("p99.9", "99.900000"))
CACHE_COUNTS = ("accesses", "hits", "misses", "reads", "writes", "evictions", "dirty_evictions",
                "write_backs", "io_errors", "bytes_read", "bytes_written")
# bfs and cc (bamkit.stats.graph), per traversal (traversals[]), and taxi-query's per
# implementation (bamkit.stats.taxi.impls[]): compared where one CPU client thread ran them.
GRAPH_COUNTS = ("vertices", "edges", "steps", "bottom_up_steps", "edges_read", "neighbour_bytes_used",
                "ios", "bytes_read", "io_amplification", "bad_neighbour_ids")
TRAVERSAL_COUNTS = ("source", "steps", "bottom_up_steps", "edges_read", "reached", "reached_edges")
TAXI_COUNTS = ("bytes_moved", "bytes_needed", "commands", "io_amplification", "io_errors", "timeouts",
               "row_groups")


class Unusable(Exception):
    """Input perf-check cannot compare (exit status 2)."""


@dataclass
class Metric:
    kind: str
    value: object
    lo: float = None  # the spread over repeated runs (rates and times), when there are repeats
    hi: float = None


@dataclass
class Entry:
    workload: dict = None  # flattened config (bamkit) or None (Google Benchmark)
    metrics: dict = field(default_factory=dict)


# ---- reading ---------------------------------------------------------------------------------

def _load_json(path):
    try:
        return json.loads(Path(path).read_text())
    except OSError as e:
        raise Unusable(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise Unusable(f"{path}: not JSON: {e}") from None


def workload_of(cfg, tool):
    flat = {k: v for k, v in reports.flatten(cfg).items() if not k.startswith(NOT_WORKLOAD)}
    for k, v in reports.config_defaults().items():  # a key an older report lacks: its default
        if not k.startswith(NOT_WORKLOAD):
            flat.setdefault(k, v)
    flat["tool"] = tool
    return flat


def latency_runs(job, b):
    """{metric: [each repeated run's value]} of a job's latency percentiles
    (bamkit.repeat.lat_us, both directions together, so only for a job that ran one direction;
    a job of one run: its own percentile)."""
    dirs = [d for d in ("read", "write") if job[d]["total_ios"] > 0]
    lat = (b.get("repeat") or {}).get("lat_us") or {}
    if len(dirs) != 1:
        return {}
    pct = job[dirs[0]]["clat_ns"].get("percentile", {})
    out = {}
    for name, key in PERCENTILES:
        runs = lat.get(name) or ([pct[key] / 1e3] if key in pct and not b.get("repeat") else [])
        if runs:
            out[f"{dirs[0]}.lat_{name}_us"] = list(runs)
    return out


def process_latencies(path):
    """{job index: {metric: [every run's value in every process]}} of a sweep point that ran
    several processes (reports.process_reports); {} else."""
    out = {}
    for doc in reports.process_reports(path):
        for i, (_, job, b) in enumerate(reports.jobs(doc)):
            for k, v in latency_runs(job, b).items():
                out.setdefault(i, {}).setdefault(k, []).extend(v)
    return out


def job_entry(cfg, job, b, tool, runs=(), lat_procs=None):
    """The job's metrics. Its rates' spread: the IOPS over its repeated runs and, for a sweep
    point that ran several processes, over theirs (`runs`: reports.process_runs' entry), as a
    fraction of its IOPS carried over to its other rates. Its latency percentiles' spread: their
    values over the same runs (`lat_procs`: process_latencies' entry)."""
    e = Entry(workload_of(cfg, tool))
    m = e.metrics
    rep = b.get("repeat") or {}
    iops = reports.total_iops(job)
    lo = hi = None
    if (rep.get("runs", 1) > 1 or len(runs) > 1) and iops > 0:
        low, high = reports.iops_range(b, job, runs)
        lo, hi = low / iops, high / iops

    def rate(name, v):
        if v is not None:
            m[name] = Metric(RATE, v, None if lo is None else v * lo, None if hi is None else v * hi)

    rate("iops", iops)
    rate("bw_bytes", reports.total_bw(job))
    lat_runs = latency_runs(job, b)
    for k, v in (lat_procs or {}).items():
        lat_runs[k] = lat_runs.get(k, []) + v
    st = b.get("stats") or {}
    for k in ("accesses_per_s", "effective_GBps", "lookups_per_s", "miss_iops"):
        rate(k, st.get(k))
    for d in ("read", "write"):
        if job[d]["total_ios"] > 0:
            pct = job[d]["clat_ns"].get("percentile", {})
            for name, key in PERCENTILES:
                if key in pct:
                    runs_v = lat_runs.get(f"{d}.lat_{name}_us")
                    m[f"{d}.lat_{name}_us"] = Metric(TIME, pct[key] / 1e3,
                                                     min(runs_v) if runs_v else None,
                                                     max(runs_v) if runs_v else None)
    fixed_size = tool != "nvm-block-bench" or reports.get(cfg, "workload.ios", 0) > 0
    if fixed_size:  # a run of a set size: how much I/O it did is not a matter of timing
        for d in ("read", "write"):
            for k in ("total_ios", "io_bytes", "short_ios", "drop_ios"):
                m[f"{d}.{k}"] = Metric(COUNT, job[d][k])
        if "per_ssd_ios" in st:
            m["per_ssd_ios"] = Metric(COUNT, st["per_ssd_ios"])
    for k in ("errors", "timeouts"):
        if k in st:
            m[k] = Metric(COUNT, st[k])
    if fixed_size:
        for part in ("cache", "flush"):
            for k in CACHE_COUNTS:
                if k in st.get(part, {}):
                    m[f"{part}.{k}"] = Metric(COUNT, st[part][k])
        if "accesses" in st:
            m["accesses"] = Metric(COUNT, st["accesses"])
        c = st.get("cache") or {}
        if st.get("accesses") and "bytes_read" in c:
            moved = sum(c["bytes_read"]) + sum(c.get("bytes_written", []))
            m["io_amplification"] = Metric(COUNT, round(moved / (8 * st["accesses"]), 9))
    for k, v in (st.get("verify") or {}).items():
        if isinstance(v, (int, float)):
            m[f"verify.{k}"] = Metric(COUNT, v)
    if one_cpu_thread(cfg):
        app_counts(st, m)
    return e


def one_cpu_thread(cfg):
    """Whether the tool's client was one CPU thread: then bfs', cc's and taxi-query's cache and
    traversal counts do not depend on scheduling (GPU runs' do: which warp misses first)."""
    return (reports.get(cfg, "storage.backend") in ("host", "nvme")
            and reports.get(cfg, "workload.threads") == 1)


def _exact(v):
    return round(v, 9) if isinstance(v, float) else v


def app_counts(st, m):
    """The application tools' counts: graph.* (bfs, cc) and taxi.<impl>.* (taxi-query), the
    results included (bfs: every traversal's reached vertices and levels; taxi: each query's
    rows and value, bit-identical by its fixed reduction order)."""
    g = st.get("graph") or {}
    for k in GRAPH_COUNTS:
        if k in g:
            m[f"graph.{k}"] = Metric(COUNT, _exact(g[k]))
    for k in CACHE_COUNTS:
        if k in (g.get("cache") or {}):
            m[f"graph.cache.{k}"] = Metric(COUNT, g["cache"][k])
    if "traversals" in g:
        for k in TRAVERSAL_COUNTS:
            m[f"graph.traversals.{k}"] = Metric(COUNT, [t.get(k) for t in g["traversals"]])
    if "verify" in g:
        m["graph.verify.mismatches"] = Metric(COUNT, (g["verify"] or {}).get("mismatches"))
    t = st.get("taxi") or {}
    for im in t.get("impls", []):
        name = "taxi." + re.sub(r"[^a-z0-9]+", "_", im["impl"]).strip("_")  # tiled (ssd): tiled_ssd
        for k in TAXI_COUNTS:
            if k in im:
                m[f"{name}.{k}"] = Metric(COUNT, _exact(im[k]))
        for k in CACHE_COUNTS:
            if k in (im.get("cache") or {}):
                m[f"{name}.cache.{k}"] = Metric(COUNT, im["cache"][k])
        for q, r in sorted((im.get("results") or {}).items()):
            m[f"{name}.{q}.rows"] = Metric(COUNT, r.get("rows"))
            m[f"{name}.{q}.value"] = Metric(COUNT, r.get("value"))
    if t.get("verify"):
        m["taxi.verify.mismatches"] = Metric(COUNT, t["verify"].get("mismatches"))
    if "impls_bit_identical" in t:
        m["taxi.impls_bit_identical"] = Metric(COUNT, t["impls_bit_identical"])


def report_entries(doc, prefix, path=None):
    """Its jobs' entries; `path`: the report's file (a sweep point's processes are read beside
    it)."""
    tool = doc["bamkit"].get("tool", "")
    runs = reports.process_runs(path) if path is not None else {}
    lats = process_latencies(path) if path is not None else {}
    return {f"{prefix}#{i}": job_entry(cfg, job, b, b.get("tool", tool), runs.get(i, ()),
                                       lats.get(i))
            for i, (cfg, job, b) in enumerate(reports.jobs(doc))}


def gbench_entries(doc):
    """A benchmark per name: the median over its repetitions, with their min and max."""
    runs, aggregates = {}, {}
    for bm in doc["benchmarks"]:
        name = bm.get("run_name", bm["name"])
        if bm.get("run_type") == "aggregate":
            aggregates.setdefault(name, {})[bm.get("aggregate_name")] = bm
        else:
            runs.setdefault(name, []).append(bm)
    out = {}
    for name in sorted(set(runs) | set(aggregates)):
        rs = runs.get(name) or [aggregates[name][a] for a in ("median", "mean") if a in aggregates[name]][:1]
        if not rs:
            continue
        e = Entry()
        for k, kind in (("real_time", TIME), ("cpu_time", TIME), ("items_per_second", RATE),
                        ("bytes_per_second", RATE)):
            vals = [r[k] for r in rs if k in r]
            if vals:
                unit = rs[0].get("time_unit", "ns") if kind == TIME else ""
                label = f"{k}_{unit}" if unit else k
                e.metrics[label] = Metric(kind, statistics.median(vals),
                                          min(vals) if len(vals) > 1 else None,
                                          max(vals) if len(vals) > 1 else None)
        out[name] = e
    return out


def counts_document(entries, about):
    """The counts of `entries` (their COUNT metrics) with their workloads, as a checked-in
    baseline (configs/perf-baselines/*.counts.json): a workload keeps only the keys that differ
    from the defaults, which load() puts back."""
    defaults = reports.config_defaults()
    out = {}
    for name, e in entries.items():
        w = {k: v for k, v in e.workload.items() if k not in defaults or defaults[k] != v}
        out[name] = {"workload": w, "counts": {k: m.value for k, m in e.metrics.items()
                                               if m.kind == COUNT}}
    return {"perf_counts": 1, "about": about, "entries": out}


def counts_entries(doc):
    out = {}
    for name, d in doc["entries"].items():
        w = dict(d["workload"])
        for k, v in reports.config_defaults().items():
            if not k.startswith(NOT_WORKLOAD):
                w.setdefault(k, v)
        out[name] = Entry(w, {k: Metric(COUNT, v) for k, v in d["counts"].items()})
    return out


def load(path):
    """(kind, {entry: Entry}) of a file or folder. Raises Unusable."""
    p = Path(path)
    if p.is_dir():
        sweep = p / "sweep.json"
        files = reports.report_files(p)
        if sweep.exists():  # a sweep's folder: its points, in order
            rec = _load_json(sweep)
            by_name = {f.stem: (f, d) for f, d in files}
            files = [by_name[pt["id"]] for pt in rec["points"] if pt["id"] in by_name]
        if not files:
            raise Unusable(f"{p}: no bamkit reports in this folder")
        out = {}
        for f, doc in files:
            out.update(report_entries(doc, f.stem, f))
        return "bamkit", out
    if not p.exists():
        raise Unusable(f"{p}: no such file or folder")
    doc = _load_json(p)
    if reports.is_report(doc):  # a sweep point's processes beside it count as in a folder
        return "bamkit", report_entries(doc, "job", p)
    if isinstance(doc, dict) and doc.get("perf_counts") == 1:
        return "bamkit", counts_entries(doc)
    if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list):
        return "gbench", gbench_entries(doc)
    raise Unusable(f"{p}: neither a bamkit report, a folder of them, nor Google Benchmark JSON")


# ---- comparing -------------------------------------------------------------------------------

@dataclass
class Row:
    entry: str
    metric: str
    kind: str
    base: object
    new: object
    change: float  # relative change of new vs base (None for counts and zero baselines)
    verdict: str  # ok, better, REGRESSION, COUNT CHANGED


def ignored(patterns, entry, metric=None):
    what = entry if metric is None else f"{entry}:{metric}"
    return any(fnmatch.fnmatchcase(what, p) or fnmatch.fnmatchcase(metric or "", p) for p in patterns)


def compare(base, new, tolerance, counts_only=False, ignore=()):
    """Rows of every metric both sides have. Raises Unusable when the entries or their workloads
    differ (naming the entry and the key)."""
    bkind, b = base
    nkind, n = new
    if bkind != nkind:
        raise Unusable(f"the baseline is {bkind} output, the new one {nkind}")
    keys_b = [k for k in b if not ignored(ignore, k)]
    keys_n = [k for k in n if not ignored(ignore, k)]
    only_b = [k for k in keys_b if k not in n]
    only_n = [k for k in keys_n if k not in b]
    if only_b or only_n:
        side, k = ("baseline", only_b[0]) if only_b else ("new", only_n[0])
        raise Unusable(f"the workloads differ: {k} is only in the {side} "
                       f"({len(only_b)} only in the baseline, {len(only_n)} only in the new)")
    rows = []
    tol = tolerance / 100
    for k in keys_b:
        eb, en = b[k], n[k]
        if eb.workload is not None:
            for key in sorted(set(eb.workload) | set(en.workload)):
                vb, vn = eb.workload.get(key), en.workload.get(key)
                if vb != vn:
                    raise Unusable(f"the workloads differ at {k}: {key}: {json.dumps(vb)} in the "
                                   f"baseline, {json.dumps(vn)} in the new")
        for name, mb in eb.metrics.items():
            mn = en.metrics.get(name)
            if mn is None or ignored(ignore, k, name):
                continue
            if counts_only and mb.kind != COUNT:
                continue
            rows.append(judge(k, name, mb, mn, tol))
    return rows


def judge(entry, name, mb, mn, tol):
    if mb.kind == COUNT:
        same = mb.value == mn.value
        change = None
        if isinstance(mb.value, (int, float)) and mb.value and not same:
            change = (mn.value - mb.value) / mb.value
        return Row(entry, name, COUNT, mb.value, mn.value, change, "ok" if same else "COUNT CHANGED")
    change = (mn.value - mb.value) / mb.value if mb.value else None
    worse = -change if mb.kind == RATE and change is not None else change
    verdict = "ok"
    if worse is not None and worse > tol:
        # With repeats on both sides, a regression must also leave the baseline's range.
        if mb.lo is not None and mn.lo is not None:
            outside = mn.value < mb.lo if mb.kind == RATE else mn.value > mb.hi
        else:
            outside = True
        verdict = "REGRESSION" if outside else "ok"
    elif worse is not None and worse < -tol:
        verdict = "better"
    return Row(entry, name, mb.kind, mb.value, mn.value, change, verdict)


def fmt(v):
    if isinstance(v, list):
        s = json.dumps(v)
        return s if len(s) <= 40 else s[:37] + "..."
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.6g}" if v == int(v) or abs(v) < 1e6 else f"{v:.4e}"
    return str(v)


def table(rows, only_flagged=False):
    shown = [r for r in rows if r.verdict != "ok"] if only_flagged else rows
    head = ("entry", "metric", "kind", "baseline", "new", "change", "verdict")
    cells = [head] + [(r.entry, r.metric, r.kind, fmt(r.base), fmt(r.new),
                       "" if r.change is None else f"{100 * r.change:+.1f} %", r.verdict) for r in shown]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    return "\n".join("  ".join(c[i].ljust(widths[i]) for i in range(len(head))).rstrip() for c in cells)
