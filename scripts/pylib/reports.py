"""Reading bamkit reports (fio json+ with a `bamkit` key), old and new, for scripts/plot,
scripts/perf-check and scripts/sweep.

A report's `bamkit.schema_version` says how to read it; reports written before the key existed
are version 1. What changed:
  2: `bamkit.ceilings` has one shape for every tool and backend: h2d_memcpy_gbps (null without
     a GPU), direct_read_gbps, direct_reads_per_s, io_size, over_bytes, method, memory,
     median_of.
  1: each tool named its ceilings its own way (nvm-block-bench GPU backends: memcpy_h2d_gbps and
     direct_read.{io_size,iops,gbps,method}; cache-bench: pcie_h2d_memcpy_gbps,
     pcie_direct_read_gbps, pcie_direct_reads_per_s, read_bytes; the host and uring backends:
     host_memory_random_read / page_cache_random_read and h2d_copy_bytes_per_s).
ceilings() gives the version-2 shape for both.
"""
import functools
import gzip
import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CEILING_KEYS = ("h2d_memcpy_gbps", "direct_read_gbps", "direct_reads_per_s", "io_size",
                "over_bytes", "method", "memory", "median_of")


def load(path):
    return json.loads(Path(path).read_text())


def schema_version(doc):
    """bamkit.schema_version; 1 for reports written before it existed."""
    return doc.get("bamkit", {}).get("schema_version", 1)


def jobs(doc):
    """(config, job, bamkit) per job; single-job reports keep their bamkit at the top level."""
    out = []
    for j in doc["jobs"]:
        b = j.get("bamkit", doc["bamkit"])
        out.append((b["config"], j, b))
    return out


def provenance(path, doc):
    """Command, commit, GPU, NVIDIA driver, CUDA driver/runtime, date and host of a report
    (bamkit.machine; gpu_driver is None in reports written before it was recorded)."""
    m = doc["bamkit"].get("machine") or {}
    return {"file": Path(path).name, "command": doc["bamkit"].get("command", ""),
            "commit": m.get("git_commit"), "gpu": m.get("gpu"), "gpu_driver": m.get("gpu_driver"),
            "cuda_driver": m.get("driver"), "cuda_runtime": m.get("cuda"), "date": m.get("date"),
            "host": m.get("hostname")}


def _shape(**kw):
    c = dict.fromkeys(CEILING_KEYS)
    c.update(kw)
    return c


def _v1_ceilings(c):
    """A version-1 ceilings object in the version-2 shape (None when it holds none)."""
    if "direct_read" in c:  # nvm-block-bench, emulated and zerocopy backends
        d = c["direct_read"]
        return _shape(h2d_memcpy_gbps=c.get("memcpy_h2d_gbps"), direct_read_gbps=d.get("gbps"),
                      direct_reads_per_s=d.get("iops"), io_size=d.get("io_size"),
                      over_bytes=c.get("bytes"), method=d.get("method"), memory=c.get("memory"),
                      median_of=c.get("repeats"))
    if "pcie_direct_read_gbps" in c:  # cache-bench, emulated backend
        return _shape(h2d_memcpy_gbps=c.get("pcie_h2d_memcpy_gbps"),
                      direct_read_gbps=c["pcie_direct_read_gbps"],
                      direct_reads_per_s=c.get("pcie_direct_reads_per_s"),
                      io_size=c.get("read_bytes"), over_bytes=c.get("over_bytes"),
                      method="GPU: plain kernel reading random blocks of pinned memory",
                      median_of=c.get("median_of"))
    for key, memory in (("host_memory_random_read", "host memory"),
                        ("page_cache_random_read", "the media file's pages (page cache)")):
        if key in c:  # nvm-block-bench, host and uring backends
            d = c[key]
            h2d = c.get("h2d_copy_bytes_per_s")
            return _shape(h2d_memcpy_gbps=h2d / 1e9 if h2d else None,
                          direct_read_gbps=d["bytes_per_s"] / 1e9, direct_reads_per_s=d["iops"],
                          io_size=d["io_size"], method=f"CPU: {d['threads']} threads memcpy",
                          memory=memory, median_of=1)
    return None


def ceilings(doc, bamkit=None):
    """The ceilings of a job (its `bamkit`, else the report's) in the version-2 shape, whatever
    the report's version; None when none were measured."""
    c = (bamkit or {}).get("ceilings") or doc["bamkit"].get("ceilings")
    if not c:
        return None
    if schema_version(doc) >= 2:
        return _shape(**c)
    return _v1_ceilings(c)


def is_report(doc):
    """Whether a parsed JSON document is a bamkit report (fio json+ with a `bamkit` key)."""
    return isinstance(doc, dict) and isinstance(doc.get("jobs"), list) and "bamkit" in doc


def get(obj, dotted, default=None):
    """obj["a"]["b"]["c"] for "a.b.c", or default where a step is missing."""
    for part in dotted.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return default
        obj = obj[part]
    return obj


def flatten(obj, prefix=""):
    """{"a": {"b": 1}} -> {"a.b": 1}: every leaf (lists are leaves) by its dotted path."""
    out = {}
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


_defaults = None
_types = None


def _read_config_table():
    """Reads the key table of docs/config.md once (the table is `--print-schema`'s output;
    tests/config/cli_test.cpp keeps them equal): every key's type and default."""
    global _defaults, _types
    if _defaults is None:
        text = (REPO / "docs" / "config.md").read_text()
        rows = re.findall(r"^\| `([a-z_.]+)` \| ([^|]+?) \| `(.*?)` \|", text, re.M)
        _types = {key: kind for key, kind, _ in rows}
        _defaults = {key: json.loads(value) for key, _, value in rows}


def config_defaults():
    """Every config key's default, by dotted path."""
    _read_config_table()
    return _defaults


def config_types():
    """Every config key's schema type ("uint", "enum", "string", "model", ...), by dotted path."""
    _read_config_table()
    return _types


class DuplicateKey(ValueError):
    """A JSON object that names a key twice (the tools refuse it: parse_json_unique_keys)."""


def _unique_keys(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise DuplicateKey(f"key '{k}' given twice")
        seen[k] = v
    return seen


def _not_json(name):
    raise ValueError(f"{name} is not JSON")


def cli_value(text, key):
    """A --set VALUE as the tools read it (parse_cli_value, lib/src/config/config_io.cpp): a
    string or enum key, and storage.model unless its first non-blank character is `{`, takes
    the text itself unless it is quoted; any other value is JSON, or the text where it is not.
    Raises DuplicateKey for an object that names a key twice, as the tools refuse it. NaN and
    (-)Infinity are not JSON to the tools (nlohmann::json): the text stays text, as there."""
    quoted = len(text) >= 2 and text[0] == '"' and text[-1] == '"'
    kind = config_types().get(key, "")
    is_object = text.lstrip(" \t\r\n").startswith("{")
    if not quoted and (kind in ("string", "enum") or (kind == "model" and not is_object)):
        return text
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_not_json)
    except DuplicateKey:
        raise
    except ValueError:
        return text


def total_iops(job):
    return job["read"]["iops"] + job["write"]["iops"]


def total_bw(job):
    return job["read"]["bw_bytes"] + job["write"]["bw_bytes"]


def measured_side(job):
    """The fio side a job's latency figures come from: its reads when it has any, else its
    writes."""
    return job["read"] if job["read"]["total_ios"] else job["write"]


def percentile_us(job, key):
    """Latency percentile `key` ("99.000000") in microseconds, of the reads when there are any,
    else of the writes; 0 when the job has none."""
    return measured_side(job)["clat_ns"].get("percentile", {}).get(key, 0) / 1e3


def iops_spread(b, job):
    """(min, max) of the IOPS over a job's repeated runs (bamkit.repeat), else its own IOPS."""
    r = b.get("repeat")
    return (r["iops_min"], r["iops_max"]) if r else (total_iops(job), total_iops(job))


def job_rates(doc):
    """(total IOPS, its repeats' min, max) per job of a report, in order."""
    return [(total_iops(job), *iops_spread(b, job)) for _, job, b in jobs(doc)]


def taxi_rows_per_s(b):
    """taxi-query: the bam implementation's rows per second, of one job's `bamkit`."""
    return [i for i in b["stats"]["taxi"]["impls"] if i["impl"] == "bam"][0]["rows_per_s"]


def graph_figure(b):
    """bfs and cc: the figure a job's `bamkit` compares by, per second: bfs' TEPS (edges of the
    reached vertices), cc's edges scanned (its steps vary from run to run, the labels' race, so
    its TEPS, every edge once over the run's time, is not the figure)."""
    g = b["stats"]["graph"]
    return g["teps"] if g["algorithm"] == "bfs" else g["edges_read"] / g["time_s"]


# A sweep point's processes (scripts/sweep's `processes`): <id>.processes.json.gz beside its
# report <id>.json; sessions before 2026-11-29's second kept it uncompressed (.processes.json).
PROCESSES_SUFFIX = ".processes.json.gz"
LEGACY_PROCESSES_SUFFIX = ".processes.json"


def processes_bytes(rec):
    """The record (JSON text) as the bytes scripts/sweep stores: gzip without a time stamp (the
    same record gives the same file)."""
    return gzip.compress(rec.encode(), mtime=0)


def processes_path(report_path):
    """The processes record of the sweep point whose report is `report_path`, or None."""
    base = Path(report_path).with_suffix("")
    for suffix in (PROCESSES_SUFFIX, LEGACY_PROCESSES_SUFFIX):
        rec = base.with_name(base.name + suffix)
        if rec.exists():
            return rec
    return None


def read_processes(rec_path):
    """A processes record (either suffix) as a dict; OSError or ValueError when unreadable."""
    data = Path(rec_path).read_bytes()
    if str(rec_path).endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise ValueError(f"{rec_path}: {e}") from e
    return json.loads(data)


@functools.lru_cache(maxsize=64)
def _process_reports(rec_path, stamp):  # noqa: ARG001 (stamp: a rewritten file is read again)
    """The reports of the processes in a processes record that succeeded and ran the first one's
    jobs (the same command: the same jobs, in the same order); () when the record cannot be
    read. Cached: callers must not change them."""
    try:
        rec = read_processes(rec_path)
    except (OSError, ValueError):
        return ()
    out = []
    for run in rec.get("runs", []):
        if run.get("exit_status") != 0:
            continue
        try:
            doc = json.loads(run.get("report", ""))
        except ValueError:
            continue
        if is_report(doc) and (not out or len(doc["jobs"]) == len(out[0]["jobs"])):
            out.append(doc)
    return tuple(out)


def process_reports(report_path):
    """The reports of a sweep point's processes that succeeded (processes_path; those that ran
    the first one's jobs), in order; [] for a point of one process. Each file is parsed once
    while it is unchanged; the reports are shared: do not change them."""
    rec = processes_path(report_path)
    if rec is None:
        return []
    try:
        st = rec.stat()
    except OSError:
        return []
    return list(_process_reports(str(rec), (st.st_mtime_ns, st.st_size, st.st_ino)))


def process_runs(report_path):
    """{job index: [(IOPS, repeats' min, max) of each process that succeeded]} of a sweep point
    that ran several processes (process_reports); {} else."""
    by_job = {}
    for doc in process_reports(report_path):
        for j, r in enumerate(job_rates(doc)):
            by_job.setdefault(j, []).append(r)
    return by_job


def iops_range(b, job, runs=()):
    """(min, max) IOPS of a job over its repeated runs and, for a sweep point of several
    processes, over every process's repeated runs of it (`runs`: process_runs' entry)."""
    lo, hi = iops_spread(b, job)
    for _, run_lo, run_hi in runs:
        lo, hi = min(lo, run_lo), max(hi, run_hi)
    return lo, hi


def report_files(folder):
    """The bamkit reports directly in a folder (sweep.json, machine.json, a sweep point's
    processes and figure data are not reports), sorted by name."""
    out = []
    for f in sorted(Path(folder).glob("*.json")):
        if f.name.endswith(LEGACY_PROCESSES_SUFFIX):  # a sweep point's processes: never a report
            continue
        try:
            doc = load(f)
        except (OSError, ValueError):
            continue
        if is_report(doc):
            out.append((f, doc))
    return out
