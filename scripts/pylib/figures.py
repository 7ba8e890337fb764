"""The figures of scripts/plot: BaM's published figures redrawn from bamkit's stored reports, the
paper's numbers (configs/paper-numbers.json) drawn beside ours.

A figure selects jobs from every report of one session folder by their configs (so reports of
the old per-script layout and of scripts/sweep read alike), and draws them. Which topics
(results/<topic>/) feed a figure: the sweep specs in configs/sweeps/ whose `figures` name it,
and the folders of scripts/gpu/ scripts the figure names itself (`topics`). Per GPU, the session
with the most matching jobs is drawn (the newest of equals: by its reports' dates, then by
name); a figure whose jobs fall into parts (`part`: bfs and cc) picks a session per part.
Application figures (Figures 7, 9-12): app_figures.py."""
import json
import math
from dataclasses import dataclass
from pathlib import Path

import reports

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REPO = reports.REPO
PAPER_MACHINE = "BaM: NVIDIA A100-80GB PCIe (Gen4 x16), Intel Optane P5800X SSDs"
STYLE = {"figure.dpi": 110, "savefig.dpi": 130, "axes.grid": True, "grid.alpha": 0.3,
         "axes.titlesize": 9, "axes.labelsize": 8, "legend.fontsize": 7, "xtick.labelsize": 7,
         "ytick.labelsize": 7, "svg.hashsalt": "bamkit", "svg.fonttype": "none"}
PAPER = dict(color="black", marker="*", markersize=11, linestyle="none", zorder=5)
PAPER_LINE = dict(color="0.35", linestyle="--", linewidth=1)
MODE_COLOR = {"plain": "tab:green", "coalesced": "tab:blue", "reuse": "tab:red"}
LAYOUT_STYLE = {"thread": ("-", "o"), "warp": ("--", "s")}


# ---- data ------------------------------------------------------------------------------------

@dataclass
class Job:
    cfg: dict
    job: dict
    b: dict  # the job's bamkit object
    ceilings: dict
    tool: str
    file: Path
    machine: dict
    command: str
    index: int = 0  # the job's place in its report

    def c(self, key):
        """A config value; a key absent from an older report counts as its default."""
        v = reports.get(self.cfg, key)
        return reports.config_defaults().get(key) if v is None else v

    @property
    def iops(self):
        return reports.total_iops(self.job)

    @property
    def gbps(self):
        return reports.total_bw(self.job) / 1e9

    @property
    def stats(self):
        return self.b.get("stats", {})

    def spread(self):
        """(low, high) as fractions of the IOPS: over the job's repeated runs and, where its sweep
        point ran several processes, over those processes' runs of it too."""
        runs = reports.process_runs(self.file).get(self.index, ())
        lo, hi = reports.iops_range(self.b, self.job, runs)
        return lo / self.iops if self.iops else 1, hi / self.iops if self.iops else 1


def session_jobs(folder, deep=False):
    """Every job of every report in a session folder (and, `deep`, its subfolders), without
    repeats of one config (the newest report's job is kept)."""
    seen = {}
    folders = [Path(folder)]
    if deep:
        folders += sorted(p for p in Path(folder).rglob("*") if p.is_dir())
    for f, doc in (fd for d in folders for fd in reports.report_files(d)):
        top = doc["bamkit"]
        for i, (cfg, job, b) in enumerate(reports.jobs(doc)):
            j = Job(cfg, job, b, reports.ceilings(doc, b), b.get("tool", top.get("tool", "")), f,
                    top.get("machine") or {}, top.get("command", ""), i)
            flat = reports.flatten(cfg)
            key = json.dumps({k: v for k, v in flat.items()
                              if not k.startswith("report.") and k != "storage.media.path"},
                             sort_keys=True)
            if key not in seen or (j.machine.get("date") or "") >= (seen[key].machine.get("date") or ""):
                seen[key] = j
    return list(seen.values())


def machine_line(folder, jobs):
    """'NVIDIA H200 (driver 580.159.04, CUDA 13.0), bamkit 60935df, 2026-11-22'."""
    m = jobs[0].machine if jobs else {}
    smi = Path(folder) / "nvidia-smi.csv"
    mj = reports.load(Path(folder) / "machine.json") if (Path(folder) / "machine.json").exists() else {}
    # The sweep's machine.json, else the report's own (recorded since 2026-11-30), else nvidia-smi's.
    driver = next((d for d in (mj.get("gpu_driver"), m.get("gpu_driver")) if d and d != "none"),
                  None)
    if driver is None and smi.exists():
        rows = [r.split(", ") for r in smi.read_text().splitlines()[1:] if r.strip()]
        if rows and len(rows[0]) > 1:
            driver = rows[0][1]
    commits = sorted({j.machine.get("git_commit", "?") for j in jobs})
    dates = sorted({(j.machine.get("date") or "")[:10] for j in jobs})
    gpu = m.get("gpu", "?")
    return (f"{gpu} (driver {driver or '?'}, CUDA {m.get('cuda', '?')}), bamkit "
            f"{', '.join(commits)}, {', '.join(d for d in dates if d)}")


_paper = None


def paper(figure):
    """The paper numbers configs/paper-numbers.json draws in `figure`, by id."""
    global _paper
    if _paper is None:
        _paper = reports.load(REPO / "configs" / "paper-numbers.json")["numbers"]
    return {n["id"]: n for n in _paper if n.get("plot") == figure}


def paper_number(nid):
    global _paper
    paper("")
    return next(n for n in _paper if n["id"] == nid)


# ---- drawing helpers -------------------------------------------------------------------------

def new_figure(nrows, ncols, w, h, **kw):
    plt.rcParams.update(STYLE)
    return plt.subplots(nrows, ncols, figsize=(w, h), squeeze=False, **kw)


def finish(fig, title, caption, bottom=0.06):
    """Title, the caption (whose GPU, which data, the paper's machine) and the layout; `bottom`
    leaves room for a legend under the panels."""
    fig.suptitle(title, fontsize=10)
    fig.text(0.01, 0.005, caption, fontsize=6.5, va="bottom", ha="left", wrap=True)
    fig.tight_layout(rect=(0, bottom, 1, 0.96))


def count_label(v):
    """1024 -> '1K', 33554432 -> '32M'."""
    for div, suffix in ((2**20, "M"), (2**10, "K")):
        if v >= div and v % div == 0:
            return f"{v // div:g}{suffix}"
    return f"{v:g}"


def log2_axis(ax, label, counts=False):
    """A base-2 log x axis whose ticks read as numbers (1K, 4K ... with counts=True)."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: count_label(int(round(v))) if counts else f"{v:g}"))
    ax.set_xlabel(label)


def paper_star(ax, x, y, text, left=False, dy=6):
    """The paper's number at (x, y): a black star and its label (left of it, or right; `dy`
    points above it)."""
    ax.plot([x], [y], **PAPER, label=None)
    ax.annotate(text, (x, y), textcoords="offset points", xytext=(8 if left else -8, dy),
                ha="left" if left else "right", fontsize=6.5,
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))


def legend_below(fig, ax, ncol=3):
    """One legend for all panels, under them (the panels share their curves)."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=7, frameon=False,
               bbox_to_anchor=(0.5, 0.045))


def group(jobs, key):
    out = {}
    for j in jobs:
        out.setdefault(key(j), []).append(j)
    return out


# ---- the figures -----------------------------------------------------------------------------

class Figure:
    """name, title, what it selects, and draw(jobs) -> (fig, numbers) or None."""
    name = ""
    title = ""
    needs = None  # a tool that has not landed yet: the figure is listed, not drawn
    topics = ()  # results/<topic>/ folders besides the sweeps' (scripts/gpu/ scripts wrote them)
    deep = False  # also the reports in a session's subfolders

    def select(self, j):
        return False

    def part(self, j):
        """Jobs of different parts may come from different sessions (one each)."""
        return None

    def headline(self, numbers):
        return []


class Fig4(Figure):
    name = "fig4"
    title = "BaM Figure 4: random 512 B / 4 KiB read and write IOPS vs GPU threads, 1-10 SSDs"

    def select(self, j):
        return (j.tool == "nvm-block-bench" and j.c("storage.backend") == "emulated"
                and (j.c("storage.model") == "optane-p5800x" or j.ceilings is not None)
                and j.c("workload.outstanding") == 1)

    def draw(self, jobs, caption):
        curves = [j for j in jobs if j.c("storage.model") == "optane-p5800x"]
        if not curves:
            return None
        ceil = {j.c("workload.io_size"): j.ceilings["direct_reads_per_s"] for j in jobs
                if j.ceilings and j.ceilings.get("direct_reads_per_s")}
        caps = {"read": paper_number("table2.optane_read_iops")["value"],
                "write": paper_number("table2.optane_write_iops")["value"]}
        pn = paper(self.name)
        fig, axes = new_figure(2, 2, 11, 8.4)
        numbers = {"series": {}, "direct_read_ceiling_iops": ceil}
        for ax, (size, op) in zip(axes.flat, [(s, o) for s in (512, 4096) for o in ("read", "write")]):
            mine = [j for j in curves if j.c("workload.io_size") == size and j.c("workload.op") == op]
            xmax = 1
            for n, js in sorted(group(mine, lambda j: j.c("storage.ssd_count")).items()):
                js.sort(key=lambda j: j.c("workload.threads"))
                xs = [j.c("workload.threads") for j in js]
                xmax = max(xmax, xs[-1])
                ys = [j.iops / 1e6 for j in js]
                line, = ax.plot(xs, ys, marker="o", markersize=3.5, label=f"{n} SSD{'s' if n > 1 else ''}")
                sp = [j.spread() for j in js]
                ax.fill_between(xs, [y * s[0] for y, s in zip(ys, sp)], [y * s[1] for y, s in zip(ys, sp)],
                                color=line.get_color(), alpha=0.15, linewidth=0)
                cap = caps[op][0 if size == 512 else 1] * n / 1e6
                ax.axhline(cap, color=line.get_color(), linewidth=0.6, linestyle=":")
                numbers["series"][f"{op}_{size}_{n}ssd"] = [
                    {"threads": x, "iops": j.iops, "iops_min": j.iops * s[0], "iops_max": j.iops * s[1]}
                    for x, j, s in zip(xs, js, sp)]
            if op == "read" and size in ceil:
                ax.axhline(ceil[size] / 1e6, color="black", linewidth=1, linestyle="--",
                           label=f"direct {size} B reads of pinned memory (ceiling, same GPU)")
            for n in pn.values():
                at = n.get("at", {})
                if at.get("workload.op") == op and at.get("workload.io_size") == size:
                    paper_star(ax, xmax, n["value"] / 1e6,
                               f"BaM paper, {at['storage.ssd_count']} SSDs: {n['value'] / 1e6:g} M")
            log2_axis(ax, "GPU threads", counts=True)
            ax.set_ylabel(f"{size} B random {op}s (million IOPS)")
            ax.set_title(f"emulated optane-p5800x, {size} B {op}s (dotted: model caps, paper Table 2)")
            ax.legend(loc="upper left")
        finish(fig, self.title, caption)
        return fig, numbers

    def headline(self, numbers):
        out = []
        for op, nid in (("read", "fig4.read_iops_10ssd"), ("write", "fig4.write_iops_10ssd")):
            pts = numbers["series"].get(f"{op}_512_10ssd")
            if pts:
                p = paper_number(nid)
                out.append({"what": f"512 B random {op} IOPS, 10 SSDs (best over threads)",
                            "ours": max(x["iops"] for x in pts), "paper": p["value"], "unit": "IOPS"})
        return out


class Fig5(Figure):
    name = "fig5"
    title = "BaM Figure 5: read bandwidth vs I/O size, GPU-initiated vs CPU-orchestrated"
    BACKENDS = ("emulated", "zerocopy", "uring", "cufile")

    def select(self, j):
        return (j.tool == "nvm-block-bench" and j.c("storage.backend") in self.BACKENDS
                and j.c("workload.op") == "read" and j.c("workload.io_size") >= 4096
                and j.c("storage.model") in ("ideal", "null") and j.c("workload.ios") == 0)

    @staticmethod
    def label(j):
        b = j.c("storage.backend")
        if b == "emulated":
            return f"GPU-initiated (BaM queues), {j.c('storage.ssd_count')} {j.c('storage.model')} emulated SSD"
        if b == "zerocopy":
            return "GPU threads read pinned host memory (zero-copy)"
        copy = j.c("uring.gpu_copy")
        where = "O_DIRECT" if j.c("uring.direct") else "page cache"
        if b == "cufile":
            return "cuFile (GDS compatibility mode)"
        return f"CPU io_uring, {where}" + (" + cudaMemcpyAsync to the GPU" if copy == "on" else ", no copy to the GPU")

    def series(self, jobs):
        out = {}
        for pat, js in group(jobs, lambda j: j.c("workload.pattern")).items():
            for lab, ks in group(js, self.label).items():
                out.setdefault(pat, {})[lab] = sorted(ks, key=lambda j: j.c("workload.io_size"))
        return out

    def memcpy(self, jobs):
        for j in jobs:
            if j.ceilings and j.ceilings.get("h2d_memcpy_gbps") and j.c("storage.backend") in ("emulated", "zerocopy"):
                return j.ceilings["h2d_memcpy_gbps"]
        return None

    def draw(self, jobs, caption):
        if not jobs:
            return None
        series, memcpy = self.series(jobs), self.memcpy(jobs)
        pn = paper(self.name)
        bam = pn["fig5.bam_gbps_4ssd"]["value"]
        fig, axes = new_figure(1, 2, 11.5, 4.8, sharey=True)
        numbers = {"series": {}, "h2d_memcpy_gbps": memcpy}
        for ax, pat in zip(axes.flat, ("sequential", "random")):
            for lab, js in series.get(pat, {}).items():
                xs = [j.c("workload.io_size") / 1024 for j in js]
                ax.plot(xs, [j.gbps for j in js], marker="o", markersize=3.5, label=lab)
                numbers["series"][f"{pat}: {lab}"] = [
                    {"io_size": j.c("workload.io_size"), "gbps": j.gbps,
                     "p50_us": reports.percentile_us(j.job, "50.000000"),
                     "p99_us": reports.percentile_us(j.job, "99.000000")} for j in js]
            if memcpy:
                ax.axhline(memcpy, color="black", linewidth=1, linestyle="--",
                           label=f"pinned cudaMemcpy host-to-device (same GPU): {memcpy:.1f} GB/s")
            ax.axhline(bam, **PAPER_LINE, label=f"BaM paper: {bam:g} GB/s with 4 SSDs (the A100's PCIe peak)")
            gds = pn["fig5.gds_4k_share"]
            paper_star(ax, 4, bam * gds["value"] / 100, f"paper: GDS at 4 KiB, {gds['value']:g} % of PCIe",
                       left=True)
            sat = pn["fig5.gds_saturates_at"]
            paper_star(ax, sat["value"] / 1024, bam, "paper: GDS saturates PCIe from 32 KiB", left=True)
            log2_axis(ax, "I/O size (KiB)")
            ax.set_ylabel("read bandwidth (GB/s)")
            ax.set_title(f"{pat} reads")
        legend_below(fig, axes[0][0])
        finish(fig, self.title, caption, bottom=0.2)
        return fig, numbers

    def headline(self, numbers):
        out = []
        for key, pts in numbers["series"].items():
            if key.startswith("random: GPU-initiated"):
                p4 = [p for p in pts if p["io_size"] == 4096]
                if p4:
                    out.append({"what": "GPU-initiated random reads at 4 KiB", "ours": p4[0]["gbps"],
                                "paper": paper_number("fig5.bam_gbps_4ssd")["value"], "unit": "GB/s"})
            if key.startswith("random: CPU io_uring, page cache + cuda"):
                p4 = [p for p in pts if p["io_size"] == 4096]
                if p4:
                    share = paper_number("fig5.gds_4k_share")["value"]
                    out.append({"what": "CPU-orchestrated random reads at 4 KiB (ours: io_uring + copy; paper: GDS)",
                                "ours": p4[0]["gbps"], "paper": share / 100 * paper_number("fig5.bam_gbps_4ssd")["value"],
                                "unit": "GB/s"})
        return out


class Fig5Latency(Fig5):
    name = "fig5-latency"
    title = "BaM Figure 5's runs: read latency p50 (solid) and p99 (dashed) vs I/O size"

    def draw(self, jobs, caption):
        if not jobs:
            return None
        series = self.series(jobs)
        fig, axes = new_figure(1, 2, 11.5, 4.8, sharey=True)
        numbers = {"series": {}}
        for ax, pat in zip(axes.flat, ("sequential", "random")):
            for lab, js in series.get(pat, {}).items():
                xs = [j.c("workload.io_size") / 1024 for j in js]
                p50 = [reports.percentile_us(j.job, "50.000000") for j in js]
                p99 = [reports.percentile_us(j.job, "99.000000") for j in js]
                line, = ax.plot(xs, p50, marker="o", markersize=3.5, label=lab)
                ax.plot(xs, p99, marker="x", linestyle="--", color=line.get_color())
                numbers["series"][f"{pat}: {lab}"] = [{"io_size": j.c("workload.io_size"), "p50_us": a, "p99_us": b}
                                                      for j, a, b in zip(js, p50, p99)]
            log2_axis(ax, "I/O size (KiB)")
            ax.set_yscale("log")
            ax.set_ylabel("latency, submission to completion (µs)")
            ax.set_title(f"{pat} reads (the paper gives no latencies)")
        legend_below(fig, axes[0][0])
        finish(fig, self.title, caption, bottom=0.2)
        return fig, numbers

    def headline(self, numbers):
        return []


class CacheFigure(Figure):
    LINES = (512, 4096, 8192)

    def curves(self, ax, jobs, x, y):
        out = {}
        for (mode, layout), js in sorted(group(jobs, lambda j: (j.c("cache_bench.mode"), j.c("cache_bench.layout"))).items()):
            js.sort(key=x)
            ls, mk = LAYOUT_STYLE.get(layout, (":", "x"))
            ax.plot([x(j) for j in js], [y(j) for j in js], marker=mk, markersize=3.5, linestyle=ls,
                    color=MODE_COLOR.get(mode), label=f"{mode}, {layout} layout")
            out[f"{mode}/{layout}"] = [{"x": x(j), "y": y(j), "misses": reports.get(j.stats, "cache.misses")}
                                       for j in js]
        return out

    def hot_panels(self, jobs, caption, x, y, xlabel, ylabel, mark, counts=False):
        """One panel per line size, a curve per (mode, layout); mark(ax, i, L) draws the paper's
        numbers of the i-th line size L."""
        fig, axes = new_figure(1, 3, 15, 4.8, sharey=True)
        numbers = {}
        for i, (ax, L) in enumerate(zip(axes.flat, self.LINES)):
            numbers[str(L)] = self.curves(ax, [j for j in jobs if j.c("cache.line_size") == L], x, y)
            mark(ax, i, L)
            log2_axis(ax, xlabel, counts=counts)
            ax.set_yscale("log")
            ax.set_title(f"hot cache, {L} B lines")
        axes[0][0].set_ylabel(ylabel)
        legend_below(fig, axes[0][-1], ncol=6)
        finish(fig, self.title, caption, bottom=0.12)
        return fig, numbers


class Fig6HotThreads(CacheFigure):
    name = "fig6-hot-threads"
    title = "BaM Figure 6 / dissertation Figures 6.6, 7.2 (hit): hot-cache accesses/s vs GPU threads"

    def select(self, j):
        return (j.tool == "cache-bench" and j.c("cache_bench.temperature") == "hot"
                and j.c("workload.op") == "read" and j.c("workload.pattern") == "random"
                and j.c("cache_bench.coarsening") == 1 and j.c("storage.backend") == "emulated")

    def draw(self, jobs, caption):
        if not jobs:
            return None
        pn = paper(self.name)["diss.fig7_2.hit"]

        def mark(ax, i, L):
            v = pn["value"][i]
            paper_star(ax, pn["at"]["workload.threads"], v / 1e9, f"dissertation Fig. 7.2 (coalesced): {v / 1e9:g} G/s")

        return self.hot_panels(jobs, caption, lambda j: j.c("workload.threads"),
                               lambda j: j.stats["accesses_per_s"] / 1e9,
                               "GPU threads (one random 8 B element per thread and iteration)",
                               "8-byte accesses per second (billions)", mark, counts=True)

    def headline(self, numbers):
        pn = paper_number("diss.fig7_2.hit")
        out = []
        for i, L in enumerate(self.LINES):
            pts = numbers.get(str(L), {}).get("coalesced/thread", [])
            top = [p for p in pts if p["x"] == pn["at"]["workload.threads"]]
            if top:
                out.append({"what": f"hot, coalesced, 32M threads, {L} B lines (ours: a random element "
                                    "per thread; the dissertation's: consecutive)", "ours": top[0]["y"] * 1e9,
                            "paper": pn["value"][i], "unit": "accesses/s"})
        return out


class Fig6HotReuse(CacheFigure):
    name = "fig6-hot-reuse"
    title = "BaM Figure 6 (hot) / dissertation Figure 7.4 (hit): effective bandwidth vs coarsening"

    def select(self, j):
        return (j.tool == "cache-bench" and j.c("cache_bench.temperature") == "hot"
                and j.c("workload.op") == "read" and j.c("workload.pattern") == "sequential"
                and j.c("storage.backend") == "emulated")

    def draw(self, jobs, caption):
        if not jobs:
            return None
        pn = paper(self.name)
        hot = pn["fig6.hot_gbps"]["value"]

        def mark(ax, i, L):
            ax.axhline(hot, **PAPER_LINE, label=f"BaM paper Fig. 6: {hot:g} GB/s peak (A100)")
            for n in pn.values():
                at = n.get("at", {})
                if at.get("cache.line_size") == L and "cache_bench.coarsening" in at:
                    paper_star(ax, at["cache_bench.coarsening"], n["value"],
                               f"dissertation Fig. 7.4: {n['value']:g} GB/s")

        return self.hot_panels(jobs, caption, lambda j: j.c("cache_bench.coarsening"),
                               lambda j: j.stats["effective_GBps"],
                               "coarsening c (8 B elements per thread and iteration)",
                               "effective bandwidth (GB/s: 8 B x accesses / time)", mark)

    def headline(self, numbers):
        best = max((p["y"] for L in numbers.values() for pts in L.values() for p in pts), default=None)
        if best is None:
            return []
        return [{"what": "peak hot-cache effective bandwidth", "ours": best,
                 "paper": paper_number("fig6.hot_gbps")["value"], "unit": "GB/s"}]


class Fig6Miss(CacheFigure):
    name = "fig6-miss"
    title = "BaM Figure 6 (cold): miss handling, 512 B lines (IOPS) and 4 KiB lines (bandwidth)"

    def select(self, j):
        return (j.tool == "cache-bench" and j.c("cache_bench.temperature") == "cold"
                and j.c("workload.op") == "read" and j.c("storage.backend") == "emulated")

    @staticmethod
    def label(j):
        return (f"{j.c('storage.ssd_count')}x {j.c('storage.model')}, {j.c('cache_bench.mode')} "
                f"c={j.c('cache_bench.coarsening')}, {j.c('workload.pattern')}, "
                f"{j.c('workload.threads') / 2**20:g}M threads")

    def draw(self, jobs, caption):
        if not jobs:
            return None
        pn = paper(self.name)
        fig, axes = new_figure(1, 2, 13, 4.6)
        numbers = {}
        panels = [(512, "miss_iops", 1e6, "miss-handling IOPS (millions of NVMe reads/s)",
                   [pn["fig6.miss_iops_512"]]),
                  (4096, "gbps", 1, "miss bandwidth (GB/s: line size x miss IOPS)",
                   [pn["fig6.miss_gbps_4k_8k"]])]
        for ax, (L, key, scale, xlabel, marks) in zip(axes.flat, panels):
            js = sorted((j for j in jobs if j.c("cache.line_size") == L), key=self.label)
            rows = []
            for j in js:
                miss = j.stats["miss_iops"]
                rows.append({"label": self.label(j), "miss_iops": miss, "gbps": miss * L / 1e9})
            labels = [r["label"] for r in rows] + ["BaM paper (A100, 4 Optane P5800X)" for m in marks]
            vals = [r[key] / scale for r in rows] + [m["value"] / scale for m in marks]
            colors = ["tab:blue"] * len(rows) + ["0.6"] * len(marks)
            ax.barh(range(len(vals)), vals, color=colors)
            ax.set_yticks(range(len(vals)), labels, fontsize=6.5)
            for i, v in enumerate(vals):
                ax.text(v, i, f" {v:.3g}", va="center", fontsize=6.5)
            for j in js[:1]:
                c = j.ceilings
                if L == 4096 and c and c.get("h2d_memcpy_gbps"):
                    ax.axvline(c["h2d_memcpy_gbps"], color="black", linestyle="--", linewidth=1,
                               label=f"pinned cudaMemcpy H2D (same GPU): {c['h2d_memcpy_gbps']:.1f} GB/s")
                    ax.legend(loc="lower right")
                if L == 512 and j.c("storage.model") == "optane-p5800x":
                    cap = paper_number("table2.optane_read_iops")["value"][0] * j.c("storage.ssd_count")
                    ax.axvline(cap / 1e6, color="tab:orange", linestyle=":", linewidth=1,
                               label=f"{j.c('storage.ssd_count')} x the model's 512 B read cap: {cap / 1e6:g} M")
                    ax.legend(loc="lower right")
            ax.set_xlabel(xlabel)
            ax.set_title(f"cold cache, {L} B lines")
            numbers[str(L)] = rows
        finish(fig, self.title, caption)
        return fig, numbers

    def headline(self, numbers):
        out = []
        r512 = [r for r in numbers.get("512", []) if "optane" in r["label"]]
        if r512:
            out.append({"what": "miss IOPS, 512 B lines, 4 optane-p5800x (best)", "ours": max(r["miss_iops"] for r in r512),
                        "paper": paper_number("fig6.miss_iops_512")["value"], "unit": "IOPS"})
        r4k = numbers.get("4096", [])
        if r4k:
            out.append({"what": "miss bandwidth, 4 KiB lines (best)", "ours": max(r["gbps"] for r in r4k),
                        "paper": paper_number("fig6.miss_gbps_4k_8k")["value"], "unit": "GB/s"})
        return out


class SingleQp(Figure):
    name = "single-qp"
    title = "Dissertation Figure 5.6: one NVMe queue pair (1024 entries), 512 B reads vs GPU threads"

    def select(self, j):
        return (j.tool == "nvm-block-bench" and j.c("storage.backend") == "emulated"
                and j.c("queues.pairs_per_ssd") == 1 and j.c("storage.ssd_count") == 1
                and j.c("workload.io_size") == 512 and j.c("workload.op") == "read")

    def draw(self, jobs, caption):
        if not jobs:
            return None
        pn = paper(self.name)
        fig, axes = new_figure(1, 1, 7.5, 4.8)
        ax = axes[0][0]
        numbers = {}
        for model, js in sorted(group(jobs, lambda j: j.c("storage.model")).items()):
            js.sort(key=lambda j: j.c("workload.threads"))
            xs = [j.c("workload.threads") for j in js]
            ax.plot(xs, [j.iops / 1e6 for j in js], marker="o", markersize=3.5, label=f"bamkit, {model} emulated SSD")
            numbers[model] = [{"threads": x, "iops": j.iops} for x, j in zip(xs, js)]
        opt = pn["diss.fig5_6.opt_peak"]["value"]
        ax.axhline(opt / 1e6, **PAPER_LINE, label=f"dissertation: optimized queue's peak, {opt / 1e3:g} K (A100, Optane)")
        for nid in ("diss.fig5_6.base_4096", "diss.fig5_6.base_32768"):
            n = pn[nid]
            paper_star(ax, n["at"]["workload.threads"], n["value"] / 1e6,
                       f"dissertation, base queue: {n['value'] / 1e3:g} K")
        log2_axis(ax, "GPU threads on one queue pair", counts=True)
        ax.set_ylabel("512 B random read IOPS (millions)")
        ax.legend(loc="upper right")
        finish(fig, self.title, caption)
        return fig, numbers

    def headline(self, numbers):
        best = max((p["iops"] for pts in numbers.values() for p in pts), default=None)
        if best is None:
            return []
        return [{"what": "one queue pair, peak 512 B read IOPS", "ours": best,
                 "paper": paper_number("diss.fig5_6.opt_peak")["value"], "unit": "IOPS"}]


# The application figures draw with this module's helpers (a cycle Python resolves: every
# helper above is defined before app_figures reads it).
import app_figures  # noqa: E402

FIGURES = [Fig4(), Fig5(), Fig5Latency(), Fig6HotThreads(), Fig6HotReuse(), Fig6Miss(), SingleQp(),
           *app_figures.FIGURES]


# ---- sessions and output ---------------------------------------------------------------------

def topics_of(figure):
    """The results topics feeding a figure: the sweep specs whose `figures` name it, then the
    figure's own `topics`."""
    out = []
    for f in sorted((REPO / "configs" / "sweeps").glob("*.json")):
        spec = reports.load(f)
        if figure in spec.get("figures", []):
            out.append(spec["name"])
    for f in FIGURES:
        if f.name == figure:
            out += [t for t in f.topics if t not in out]
    return out


def sessions(results, figure):
    """{gpu: {part: [(session folder, its matching jobs of that part), ...]}} over the
    figure's topics."""
    out = {}
    for topic in topics_of(figure.name):
        for gpu_dir in sorted(p for p in (Path(results) / topic).glob("*") if p.is_dir()):
            for s in sorted(p for p in gpu_dir.glob("*") if p.is_dir()):
                jobs = [j for j in session_jobs(s, figure.deep) if figure.select(j)]
                for part, js in sorted(group(jobs, figure.part).items(), key=lambda kv: str(kv[0])):
                    out.setdefault(gpu_dir.name, {}).setdefault(part, []).append((s, js))
    return out


def newest(jobs):
    return max((j.machine.get("date") or "") for j in jobs)


def best_session(candidates):
    """The session with the most matching jobs; the newest of equals (by the dates its reports
    carry, then by name: the names of one day differ by commit)."""
    return max(candidates, key=lambda c: (len(c[1]), newest(c[1]), c[0].name))


def rel(path):
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def plot(figure, results, out):
    """Draws `figure` for every GPU with stored results; returns what it made."""
    made = []
    for gpu, parts in sorted(sessions(results, figure).items()):
        chosen = [best_session(cands) for _, cands in sorted(parts.items(), key=lambda kv: str(kv[0]))]
        jobs = [j for _, js in chosen for j in js]
        folders = list(dict.fromkeys(f for f, _ in chosen))
        folder = folders[0]
        where = ", ".join(rel(f) for f in folders)
        caption = (f"Ours: {machine_line(folder, jobs)}; {len(jobs)} jobs from {where}.  "
                   f"Stars and grey dashes: the paper's numbers ({PAPER_MACHINE}; "
                   "configs/paper-numbers.json).")
        drawn = figure.draw(jobs, caption)
        if drawn is None:
            continue
        fig, numbers = drawn
        files = []
        for ext in ("png", "svg"):
            f = Path(out) / f"{figure.name}-{gpu}.{ext}"
            fig.savefig(f, metadata={"Date": None} if ext == "svg" else None)
            files.append(rel(f))
        plt.close(fig)
        made.append({"figure": figure.name, "gpu": gpu, "title": figure.title, "files": files,
                     "session": where, "machine": machine_line(folder, jobs),
                     "reports": sorted({j.file.name for j in jobs}),
                     "headline": figure.headline(numbers), "numbers": numbers})
    return made


def fmt_value(v, unit):
    if unit == "x":
        return f"{v:.2f}"
    if unit in ("IOPS", "accesses/s"):
        return f"{v / 1e9:.2f} G" if v >= 1e9 else f"{v / 1e6:.2f} M" if v >= 1e6 else f"{v / 1e3:.0f} K"
    return f"{v:.1f}" if not math.isnan(v) else "-"
