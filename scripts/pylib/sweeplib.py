"""Sweep specs (configs/sweeps/*.json, docs/sweeps.md): reading and checking a spec, expanding it
into points, and the folder a sweep writes (results/<name>/<gpu>/<date>-<commit>/).

A point is one process of the spec's tool: the product (and zip) of the spec's lists gives one
point per combination; `inner` lists go to the tool's own --sweep inside that process, so the
point's report then holds one job per inner combination."""
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import time
import tarfile
from dataclasses import dataclass
from pathlib import Path

import reports

REPO = reports.REPO
SPEC_KEYS = {"name", "description", "figures", "tool", "base", "set", "args", "product", "zip",
             "inner", "repeat", "processes", "limit_s", "groups"}
GROUP_KEYS = {"name", "description", "base", "set", "args", "product", "zip", "inner", "repeat",
              "processes", "limit_s"}
# How many processes of the tool one point may run (`processes`: odd, so a median process exists).
MAX_PROCESSES = 99
SAFE = re.compile(r"^[A-Za-z0-9._-]+$")
# A tiny host-mode run of each tool: its report names the commit the binary was built from.
PROBES = {
    "nvm-block-bench": ["--backend", "host", "--threads", "1", "--ios", "1", "--io-size", "512",
                        "--set", "storage.media.size_bytes=65536"],
    "cache-bench": ["--backend", "host", "--threads", "1", "--set", "cache.line_size=512",
                    "--set", "cache.capacity=4096", "--set", "cache_bench.elements=512",
                    "--set", "storage.media.size_bytes=65536"],
}


class SpecError(Exception):
    """A spec that cannot run: `where` names the spec key (exit status 2)."""

    def __init__(self, where, what):
        super().__init__(f"{where}: {what}")


@dataclass
class Point:
    index: int
    id: str
    group: str
    settings: dict  # the point's own values (product and zip keys)
    sets: dict  # every --set of the point: the spec's and the group's `set`, then `settings`
    base: str
    args: list
    inner: dict
    repeat: int
    limit_s: float  # per process
    processes: int = 1


def _check_lists(where, lists, schema):
    if not isinstance(lists, dict):
        raise SpecError(where, "must be an object of KEY: [values]")
    for key, values in lists.items():
        _check_key(f"{where}.{key}", key, schema)
        if not isinstance(values, list) or not values:
            raise SpecError(f"{where}.{key}", "must be a non-empty list of values")


def _check_key(where, key, schema):
    if key not in schema:
        raise SpecError(where, f"'{key}' is not a config key (docs/config.md lists them)")
    if key in ("report.json", "report.csv"):
        raise SpecError(where, "set by the sweep (every point's report goes to the sweep's "
                        "folder)")


def _check_part(where, part, keys, schema):
    unknown = sorted(set(part) - keys)
    if unknown:
        raise SpecError(f"{where}.{unknown[0]}", f"unknown key, allowed {', '.join(sorted(keys))}")
    for k in ("set", "product", "zip", "inner"):
        if k in part:
            if k == "set":
                if not isinstance(part[k], dict):
                    raise SpecError(f"{where}.set", "must be an object of KEY: value")
                for key in part[k]:
                    _check_key(f"{where}.set.{key}", key, schema)
            else:
                _check_lists(f"{where}.{k}", part[k], schema)
    if "zip" in part and len({len(v) for v in part["zip"].values()}) > 1:
        raise SpecError(f"{where}.zip", "its lists must have the same length")
    for key, values in part.get("inner", {}).items():
        for v in values:
            if isinstance(v, (dict, list)) or (isinstance(v, str) and "," in v):
                raise SpecError(f"{where}.inner.{key}", f"{json.dumps(v)}: the tool's --sweep "
                                "takes numbers, booleans and strings without commas")
    if "args" in part and (not isinstance(part["args"], list)
                           or not all(isinstance(a, str) for a in part["args"])):
        raise SpecError(f"{where}.args", "must be a list of strings")
    for a in part.get("args", []):
        if a in ("--report", "--csv", "--config", "--sweep", "--repeat"):
            raise SpecError(f"{where}.args", f"{a} is the sweep's (use base, inner, repeat)")
    if "repeat" in part and (not isinstance(part["repeat"], int) or not 1 <= part["repeat"] <= 1000):
        raise SpecError(f"{where}.repeat", "must be an integer in [1, 1000]")
    n = part.get("processes", 1)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_PROCESSES or n % 2 == 0:
        raise SpecError(f"{where}.processes", f"must be an odd integer in [1, {MAX_PROCESSES}] "
                        "(the point's report is its median process's)")
    if "limit_s" in part and (not isinstance(part["limit_s"], (int, float)) or part["limit_s"] <= 0):
        raise SpecError(f"{where}.limit_s", "must be a positive number of seconds")
    if "base" in part:
        if not isinstance(part["base"], str) or not resolve_path(part["base"]).is_file():
            raise SpecError(f"{where}.base", f"no such config file: {part['base']}")
    if "name" in part and (not isinstance(part["name"], str) or not SAFE.match(part["name"])):
        raise SpecError(f"{where}.name", "letters, digits, '.', '_' and '-' only")


def resolve_path(p):
    p = Path(p)
    return p if p.is_absolute() else REPO / p


def load_spec(path, overrides=()):
    """The spec at `path`, checked, with `overrides` ("KEY=VALUE", as --set) added to its `set`.
    Raises SpecError."""
    try:
        spec = json.loads(Path(path).read_text())
    except OSError as e:
        raise SpecError(str(path), f"cannot read: {e.strerror}") from None
    except ValueError as e:
        raise SpecError(str(path), f"not JSON: {e}") from None
    if not isinstance(spec, dict):
        raise SpecError(str(path), "must be a JSON object")
    for k in ("name", "tool"):
        if not isinstance(spec.get(k), str) or not SAFE.match(spec[k]):
            raise SpecError(k, "required: letters, digits, '.', '_' and '-' only")
    schema = reports.config_defaults()
    _check_part("spec", spec, SPEC_KEYS, schema)
    groups = spec.get("groups", [])
    if not isinstance(groups, list):
        raise SpecError("groups", "must be a list of objects")
    names = set()
    for i, g in enumerate(groups):
        if not isinstance(g, dict):
            raise SpecError(f"groups[{i}]", "must be an object")
        _check_part(f"groups[{i}]", g, GROUP_KEYS, schema)
        name = g.get("name", f"g{i}")
        if name in names:
            raise SpecError(f"groups[{i}].name", f"'{name}' given twice")
        names.add(name)
    if groups and any(spec.get(k) for k in ("product", "zip", "inner")):
        raise SpecError("groups", "with groups, product/zip/inner belong to each group")
    for o in overrides:
        key, eq, value = o.partition("=")
        if not eq:
            raise SpecError("--set", f"'{o}' is not KEY=VALUE")
        _check_key(f"--set {key}", key, schema)
        try:
            spec.setdefault("set", {})[key] = reports.cli_value(value, key)
        except reports.DuplicateKey as e:
            raise SpecError(f"--set {key}", str(e)) from None
    return spec


def _product(lists):
    combos = [{}]
    for key, values in lists.items():
        combos = [{**c, key: v} for c in combos for v in values]
    return combos


def _short(value):
    text = value if isinstance(value, str) else json.dumps(value)
    return re.sub(r"[^A-Za-z0-9.]+", "_", text).strip("_")[:24] or "x"


def expand(spec):
    """The spec's points, in order: groups one after another, within one the product (first key
    outermost) and then the zip (innermost)."""
    parts = spec.get("groups") or [{}]
    points = []
    for gi, g in enumerate(parts):
        group = g.get("name", f"g{gi}") if spec.get("groups") else ""
        combos = _product(g.get("product", spec.get("product", {})))
        zipped = g.get("zip", spec.get("zip", {}))
        if zipped:
            n = len(next(iter(zipped.values())))
            zs = [{k: v[i] for k, v in zipped.items()} for i in range(n)]
            combos = [{**c, **z} for c in combos for z in zs]
        for c in combos:
            points.append(Point(
                index=len(points), id="", group=group, settings=c,
                sets={**spec.get("set", {}), **g.get("set", {}), **c},
                base=g.get("base", spec.get("base", "")),
                args=list(spec.get("args", [])) + list(g.get("args", [])),
                inner=g.get("inner", spec.get("inner", {})),
                repeat=g.get("repeat", spec.get("repeat", 1)),
                limit_s=g.get("limit_s", spec.get("limit_s", 600)),
                processes=g.get("processes", spec.get("processes", 1))))
    width = max(3, len(str(len(points) - 1)))
    for p in points:
        name = f"p{p.index:0{width}d}"
        if p.group:
            name += f"_{p.group}"
        for key, value in p.settings.items():
            name += f"_{key.rsplit('.', 1)[-1]}-{_short(value)}"
        p.id = name
    return points


def parse_selection(text, count):
    """'0-99', '3,5,7-9', '10-' -> the sorted point indices it names. Raises SpecError."""
    out = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?", part)
        if not m:
            raise SpecError("--points", f"'{part}' is not N, A-B or A-")
        a = int(m.group(1))
        b = a if not m.group(2) else (int(m.group(3)) if m.group(3) else count - 1)
        if a > b or b >= count:
            raise SpecError("--points", f"'{part}': the sweep has points 0-{count - 1}")
        out.update(range(a, b + 1))
    return sorted(out)


def json_value(v):
    """A --set VALUE: JSON (the tool parses it back)."""
    return json.dumps(v, separators=(",", ":"))


def sweep_value(v):
    """One value of the tool's --sweep list (JSON or a bare string)."""
    return v if isinstance(v, str) else json_value(v)


def substitute(value, work):
    """{work} in strings -> the sweep's scratch folder."""
    if isinstance(value, str):
        return value.replace("{work}", str(work))
    return value


def command(point, tool, out, work):
    """The tool's command line for a point, its report and CSV in `out`."""
    cmd = [str(tool)]
    if point.base:
        cmd += ["--config", str(resolve_path(point.base))]
    for key, value in point.sets.items():
        cmd += ["--set", f"{key}={json_value(substitute(value, work))}"]
    cmd += [substitute(a, work) for a in point.args]
    for key, values in point.inner.items():
        cmd += ["--sweep", f"{key}=" + ",".join(sweep_value(substitute(v, work)) for v in values)]
    if point.repeat > 1:
        cmd += ["--repeat", str(point.repeat)]
    cmd += ["--report", str(out / f"{point.id}.json"), "--csv", str(out / f"{point.id}.csv")]
    return cmd


def spec_digest(spec):
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def find_tool(tool, bin_dir):
    """The tool's binary: in bin_dir (flat, as scripts/gpu/run-gpu-tests.sh --stage makes it, or
    a build tree), else $BIN, else build/default. None when not found."""
    dirs = [bin_dir] if bin_dir else []
    if os.environ.get("BIN"):
        dirs.append(os.environ["BIN"])
    dirs.append(REPO / "build" / "default")
    for d in dirs:
        for c in (Path(d) / tool, Path(d) / "tools" / tool / tool):
            if c.is_file() and os.access(c, os.X_OK):
                return c.resolve()
        if bin_dir:
            break
    return None


def _run(cmd, timeout=30):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return r.stdout if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def gpu_slug(name):
    """'NVIDIA H100 80GB HBM3' -> 'h100', 'NVIDIA H200' -> 'h200'; 'cpu' without a GPU."""
    if not name or name == "none":
        return "cpu"
    rest = re.sub(r"(?i)\bnvidia\b", "", name)
    m = re.search(r"\b([A-Za-z]{1,2}\d{2,4}[A-Za-z]?)\b", rest)
    return m.group(1).lower() if m else re.sub(r"[^a-z0-9]+", "-", rest.lower()).strip("-")


def probe_commit(tool_name, tool):
    """The commit the binary was built from (its report's bamkit.machine.git_commit), else the
    checkout's `git describe`, else 'unknown'."""
    args = PROBES.get(tool_name)
    if args and tool:
        out = _run([str(tool), *args, "--set", 'report.formats=["json"]'])
        if out:
            try:
                return json.loads(out)["bamkit"]["machine"]["git_commit"]
            except (ValueError, KeyError):
                pass
    out = _run(["git", "-C", str(REPO), "describe", "--always", "--dirty", "--abbrev=7"])
    return out.strip() if out else "unknown"


def nvidia_smi():
    """nvidia-smi's line per GPU (name, driver, PCIe generation and width, clocks), or ""."""
    return (_run(["nvidia-smi", "--query-gpu=name,driver_version,pcie.link.gen.current,"
                  "pcie.link.width.current,clocks.sm,clocks.mem", "--format=csv,noheader"])
            or "").strip()


def gpu_name():
    """The first GPU's name, 'none' without one."""
    smi = nvidia_smi()
    return smi.splitlines()[0].split(", ")[0] if smi else "none"


def describe_machine(tool_name, tool):
    """GPU, driver, CPU, cores, kernel, host, commit and date of this machine (machine.json)."""
    smi = nvidia_smi()
    gpus = [line.split(", ") for line in smi.splitlines() if line]
    cpu = ""
    try:
        cpu = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text()).group(1)
    except (OSError, AttributeError):
        pass
    return {
        "gpu": gpus[0][0] if gpus else "none",
        "gpu_driver": gpus[0][1] if gpus and len(gpus[0]) > 1 else "none",
        "gpu_count": len(gpus),
        "nvidia_smi": smi or None,
        "cpu": cpu, "cores": os.cpu_count(), "kernel": f"{platform.system()} {platform.release()}",
        "hostname": platform.node(), "commit": probe_commit(tool_name, tool),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "tool": str(tool),
    }


def write_atomic(path, data):
    """Writes `path` (text, or bytes as they are) by a rename: a reader sees all or nothing."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if isinstance(data, bytes):
        tmp.write_bytes(data)
    else:
        tmp.write_text(data)
    os.replace(tmp, path)


def write_once(path, text):
    """Writes `path` unless it exists (atomic against other writers). True when written."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        tmp.unlink()


def read_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def status_of(out, point):
    """The point's recorded status ({exit_status, ...}), or None when it has not finished."""
    return read_json(out / f"{point.id}.status.json")


def remove_outputs(out, point):
    for suffix in (".json", ".csv", ".log", ".status.json", reports.PROCESSES_SUFFIX,
                   reports.LEGACY_PROCESSES_SUFFIX):
        (out / f"{point.id}{suffix}").unlink(missing_ok=True)


def pack(out, layout, dest):
    """out/ (less its .work scratch folder) as `dest` (.tar.gz), under the layout path
    results/<name>/<gpu>/<session>/ so that `tar xzf dest` at the repository root puts it in
    place."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(dest, "w:gz") as tar:
        for f in sorted(out.rglob("*")):
            rel = f.relative_to(out)
            if rel.parts[0] == ".work" or f.name.endswith(".tmp") or not f.is_file():
                continue
            tar.add(f, arcname=f"{layout}/{rel}")
    return dest


def remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)
