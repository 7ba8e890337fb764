"""The application figures of scripts/plot: BaM's Figures 7 and 9-11 (bfs and cc, docs/graph-apps.md)
and 12 (taxi-query, docs/taxi.md), drawn from the tools' reports (`bamkit.stats.graph`,
`bamkit.stats.taxi`) with the paper's and the dissertation's numbers beside ours. Helpers and
the session logic: figures.py."""
from pathlib import Path

import figures as F

# The paper's colours of Figure 7: compute green, cache API orange, storage grey.
PART_COLOR = {"compute": "tab:green", "cache API": "tab:orange", "storage": "0.55"}
T_COLOR = {"kernel": "tab:blue", "load": "lightsteelblue"}
SSD_COLORS = {1: "tab:blue", 2: "tab:purple", 4: "tab:red"}


# ---- graph jobs ------------------------------------------------------------------------------

def graph(j):
    """The job's `bamkit.stats.graph` (bfs, cc)."""
    return j.stats.get("graph") or {}


def algo(j):
    return graph(j).get("algorithm") or j.tool


def graph_name(j):
    """'kron-s24' (the graph file's stem)."""
    return Path(j.c("graph.file") or graph(j).get("graph_file") or "?").stem


def graph_line(jobs):
    """'kron-s24: 16.8 M vertices, 521 M directed edges' per graph of the jobs."""
    seen = {}
    for j in jobs:
        g = graph(j)
        seen.setdefault(graph_name(j), f"{graph_name(j)}: {g.get('vertices', 0) / 1e6:.3g} M vertices, "
                                       f"{g.get('edges', 0) / 1e6:.3g} M directed edges")
    return "; ".join(seen[k] for k in sorted(seen))


def storage_set(j):
    """'4 x optane-p5800x' (emulated on the GPU), '4 x host' (host-emulated: no timing model)."""
    if j.c("storage.backend") != "emulated":
        return f"{j.c('storage.ssd_count')} x {j.c('storage.backend')}"
    return f"{j.c('storage.ssd_count')} x {j.c('storage.model')}"


def neighbour_bytes(j):
    """The bytes of the graph's neighbour array (the SSDs' region, else 4 B per edge)."""
    for r in (graph(j).get("storage") or {}).get("dataset", {}).get("regions", []):
        if r.get("name") == "graph.neighbours":
            return r["bytes"]
    return 4 * graph(j).get("edges", 0)


class Once:
    """A legend label the first time it is asked for, None after (one legend entry each)."""

    def __init__(self):
        self.seen = set()

    def __call__(self, label):
        if label in self.seen:
            return None
        self.seen.add(label)
        return label


def is_graph_job(j, accesses):
    return j.tool in ("bfs", "cc") and graph(j) and j.c("graph.access") in accesses


def time_unit(a):
    return "s per source" if a == "bfs" else "s"


def nearest(values, target):
    """The value of `values` nearest to `target` on a log scale."""
    return min(values, key=lambda v: abs(F.math.log(v / target)))


# ---- Figure 7 --------------------------------------------------------------------------------

class Fig7(F.Figure):
    name = "fig7"
    title = "BaM Figure 7: BFS and CC time, BaM (compute / cache API / storage) vs the target T"
    topics = ("graph-apps",)

    def select(self, j):
        return is_graph_job(j, ("host-zero-copy", "bam"))

    def part(self, j):
        return algo(j)

    def sets(self, jobs):
        """{(graph, storage set): {access: job}} in the order graph, SSD count, model."""
        out = {}
        for j in sorted(jobs, key=lambda j: (graph_name(j), j.c("storage.model") != "optane-p5800x",
                                             j.c("storage.ssd_count"), j.c("storage.model"))):
            out.setdefault((graph_name(j), storage_set(j)), {})[j.c("graph.access")] = j
        return out

    def draw(self, jobs, caption):
        algos = sorted({algo(j) for j in jobs})
        if not algos:
            return None
        pn = F.paper(self.name)
        fig, axes = F.new_figure(2, len(algos), 6.2 * len(algos), 8.2)
        numbers = {}
        for col, a in enumerate(algos):
            sets = self.sets([j for j in jobs if algo(j) == a])
            ax, sp = axes[0][col], axes[1][col]
            rows = []
            labels = []
            once = Once()
            for x, ((gname, sset), by) in enumerate(sets.items()):
                # "4 x optane-p5800x" on two lines: six groups side by side must not overlap.
                labels.append(f"{gname}\n" + sset.replace(" x ", " x\n", 1))
                row = {"graph": gname, "storage": sset}
                t, b = by.get("host-zero-copy"), by.get("bam")
                if t:
                    g = graph(t)
                    row.update(t_kernel_s=g["time_s"], t_end_to_end_s=g.get("end_to_end_s"),
                               t_load_model_s=(g.get("load") or {}).get("model_s"))
                    ax.bar(x - 0.28, g["time_s"], 0.26, color=T_COLOR["kernel"],
                           label=once("T kernel (host-zero-copy)"))
                    if g.get("end_to_end_s") is not None:
                        ax.bar(x, g["time_s"], 0.26, color=T_COLOR["kernel"])
                        ax.bar(x, g["end_to_end_s"] - g["time_s"], 0.26, bottom=g["time_s"],
                               color=T_COLOR["load"],
                               label=once("T: + loading the graph at the SSDs' model bandwidth"))
                if b:
                    g = graph(b)
                    row["bam_s"] = g["time_s"]
                    bd = g.get("breakdown")
                    if bd:
                        row.update(compute_s=bd["compute_s"], cache_api_s=bd["cache_api_s"],
                                   storage_s=bd["storage_s"])
                        bottom = 0
                        for part, key in (("compute", "compute_s"), ("cache API", "cache_api_s"),
                                          ("storage", "storage_s")):
                            ax.bar(x + 0.28, bd[key], 0.26, bottom=bottom, color=PART_COLOR[part],
                                   label=once(f"BaM: {part}"))
                            bottom += bd[key]
                    else:
                        ax.bar(x + 0.28, g["time_s"], 0.26, color="tab:red",
                               label=once("BaM (no breakdown in this process)"))
                    ax.text(x + 0.28, g["time_s"], f"{g['time_s']:.3g}", ha="center", va="bottom",
                            fontsize=6.5)
                if t and b and row.get("t_end_to_end_s"):
                    row["speedup"] = row["t_end_to_end_s"] / row["bam_s"]
                rows.append(row)
            ax.set_xticks(range(len(labels)), labels, fontsize=7)
            ax.set_ylim(0, 1.6 * max(ax.get_ylim()[1], 1e-9))  # room for the legend
            ax.set_ylabel(f"time ({time_unit(a)})")
            ax.set_title(f"{a}: T kernel | T end to end | BaM (bars left to right)")
            ax.legend(loc="upper left")
            # Speedup of BaM over T end to end, with the paper's.
            xs = [i for i, r in enumerate(rows) if "speedup" in r]
            sp.bar(xs, [rows[i]["speedup"] for i in xs], 0.5, color="tab:red", label="ours")
            for i in xs:
                # Inside the bar: the paper's star may sit just above its top.
                sp.text(i, rows[i]["speedup"] / 2, f"{rows[i]['speedup']:.2f}x", ha="center",
                        va="center", fontsize=7, color="white", fontweight="bold")
            sp.axhline(1, color="black", linewidth=0.8)
            k = 0 if a == "bfs" else 1
            for i, r in enumerate(rows):
                if not r["storage"].endswith("optane-p5800x"):
                    continue
                n = int(r["storage"].split(" ")[0])
                if n == 1:
                    v = 1 / pn["fig7.bfs_cc_slowdown_1ssd"]["value"][k]
                    F.paper_star(sp, i, v, f"paper Fig. 7: 1/{pn['fig7.bfs_cc_slowdown_1ssd']['value'][k]:g}"
                                 f" = {v:.2f}x", left=True)
                elif n == 4:
                    v = pn["fig7.bfs_cc_speedup_4ssd"]["value"][k]
                    F.paper_star(sp, i, v, f"paper Fig. 7: {v:.2f}x")
                    d = pn["diss.fig9_8.speedup_4ssd"]["value"][k]
                    sp.plot([i + 0.2], [d], marker="D", color="black", markersize=5, linestyle="none")
                    sp.annotate(f"dissertation Fig. 9.8: {d:.2f}x", (i + 0.2, d), textcoords="offset points",
                                xytext=(6, -3), fontsize=6.5)
            sp.set_xticks(range(len(labels)), labels, fontsize=7)
            sp.set_xlim(-0.6, len(labels) - 0.4)
            sp.set_ylim(0, 1.12 * sp.get_ylim()[1])  # room for the stars' labels
            sp.set_ylabel("speedup of BaM over T end to end (x)")
            sp.set_title(f"{a}: T end to end / BaM (above 1: BaM faster)")
            numbers[a] = rows
        caption = (f"{caption}  Graph: {graph_line(jobs)}. T = host-zero-copy (pinned host memory, "
                   "EMOGI's access); its end to end adds the graph's load at the SSD set's model "
                   "bandwidth, as the paper adds file loading. BaM breakdown (the paper's method): "
                   "compute = gpu-memory, cache API = bam-preloaded - gpu-memory, storage = bam - "
                   "bam-preloaded. The paper: A100, K/U/F/M graphs of 27-50 GB, an 8 GB cache.")
        F.finish(fig, self.title, caption, bottom=0.07)
        return fig, numbers

    def headline(self, numbers):
        out = []
        pn = F.paper(self.name)
        for k, a in enumerate(("bfs", "cc")):
            for r in numbers.get(a, []):
                if "speedup" not in r or not r["storage"].endswith("optane-p5800x"):
                    continue
                n = int(r["storage"].split(" ")[0])
                if n == 4:
                    paper = pn["fig7.bfs_cc_speedup_4ssd"]["value"][k]
                elif n == 1:
                    paper = 1 / pn["fig7.bfs_cc_slowdown_1ssd"]["value"][k]
                else:
                    continue
                out.append({"what": f"{a} {r['graph']}, {r['storage']}: BaM speedup over T end to end",
                            "ours": r["speedup"], "paper": paper, "unit": "x"})
        return out


# ---- Figure 9 --------------------------------------------------------------------------------

class Fig9(F.Figure):
    name = "fig9"
    title = "BaM Figure 9 / dissertation Figure 9.5: BaM slowdown with 4 x 980pro vs 4 x Optane"
    topics = ("graph-apps",)

    def select(self, j):
        return is_graph_job(j, ("bam",)) and j.c("storage.ssd_count") == 4

    def part(self, j):
        return algo(j)

    def draw(self, jobs, caption):
        by = {}
        for j in jobs:
            by.setdefault((algo(j), graph_name(j)), {})[j.c("storage.model")] = j
        pairs = {k: v for k, v in sorted(by.items()) if "optane-p5800x" in v and len(v) > 1}
        if not pairs:
            return None
        pn = F.paper(self.name)
        fig, axes = F.new_figure(1, 2, 12.5, 4.8)
        ax, br = axes[0]
        numbers = {}
        labels, x, once = [], 0, Once()
        for (a, gname), models in pairs.items():
            base = graph(models["optane-p5800x"])["time_s"]
            k = 0 if a == "bfs" else 1
            for model, j in sorted(models.items()):
                if model == "optane-p5800x":
                    continue
                s = graph(j)["time_s"] / base
                numbers[f"{a} {gname} {model}"] = {"slowdown": s, "bam_s": graph(j)["time_s"],
                                                   "optane_bam_s": base}
                bars = [("ours (emulated SSDs)", s, "tab:red")]
                if model == "980pro":
                    bars += [("paper Fig. 9", pn["fig9.980pro_slowdown"]["value"][k], "0.6"),
                             ("dissertation Fig. 9.5", pn["diss.fig9_5.980pro_slowdown"]["value"][k], "0.8")]
                for i, (lab, v, c) in enumerate(bars):
                    ax.bar(x + 0.27 * (i - 1), v, 0.25, color=c, label=once(lab))
                    ax.text(x + 0.27 * (i - 1), v, f"{v:.2f}x", ha="center", va="bottom", fontsize=7)
                labels.append(f"{a}, {gname}\n4 x {model} / 4 x optane")
                x += 1
        ax.set_xticks(range(len(labels)), labels, fontsize=7)
        ax.axhline(1, color="black", linewidth=0.8)
        ax.set_ylabel("BaM time with the other SSDs / with Optane (x)")
        ax.set_title("slowdown of BaM (above 1: slower)")
        ax.legend(loc="upper right")
        # The BaM time split of each, to show where the slowdown sits.
        labels = []
        once = Once()
        optane_first = [j for models in pairs.values()
                        for _, j in sorted(models.items(), key=lambda mj: mj[0] != "optane-p5800x")]
        for x, j in enumerate(optane_first):
            g = graph(j)
            bd = g.get("breakdown")
            parts = ([("compute", bd["compute_s"]), ("cache API", bd["cache_api_s"]),
                      ("storage", bd["storage_s"])] if bd else [("no breakdown in this process", g["time_s"])])
            bottom = 0
            for part, v in parts:
                br.bar(x, v, 0.6, bottom=bottom, color=PART_COLOR.get(part, "tab:red"), label=once(part))
                bottom += v
            br.text(x, g["time_s"], f"{g['time_s']:.3g}", ha="center", va="bottom", fontsize=7)
            labels.append(f"{algo(j)}, {graph_name(j)}\n4 x {j.c('storage.model')}")
        br.set_xticks(range(len(labels)), labels, fontsize=7)
        br.set_ylabel("BaM time (s; bfs per source)")
        br.set_title("BaM time: compute / cache API / storage")
        br.legend(loc="upper left")
        caption = (f"{caption}  Graph: {graph_line(jobs)}. Our SSDs are emulated by their timing "
                   "models (configs/models/: 980pro 100 us, 750 K 4 KiB read IOPS; optane-p5800x "
                   "10 us, 1.5 M; the paper's Table 2), media in pinned host memory; the paper's "
                   "were real drives. The paper's Figure 9 and the dissertation's Figure 9.5 give "
                   "different averages for the same comparison: both are drawn.")
        F.finish(fig, self.title, caption)
        return fig, numbers

    def headline(self, numbers):
        out = []
        for key, r in sorted(numbers.items()):
            a = key.split(" ")[0]
            if key.endswith("980pro"):
                k = 0 if a == "bfs" else 1
                out.append({"what": f"{key}: BaM slowdown vs 4 x optane (paper Fig. 9)", "ours": r["slowdown"],
                            "paper": F.paper_number("fig9.980pro_slowdown")["value"][k], "unit": "x"})
                out.append({"what": f"{key}: BaM slowdown vs 4 x optane (dissertation Fig. 9.5)",
                            "ours": r["slowdown"],
                            "paper": F.paper_number("diss.fig9_5.980pro_slowdown")["value"][k], "unit": "x"})
        return out


# ---- Figures 10 and 11 -----------------------------------------------------------------------

class GraphSweep(F.Figure):
    """A curve of BaM's time per (algorithm, graph, storage set) against one config key."""
    key = ""

    def select(self, j):
        return is_graph_job(j, ("bam",))

    def curves(self, jobs, others):
        """{label: [job, ...] sorted by the key}; `others` label the rest of a curve's config."""
        out = {}
        for j in jobs:
            label = f"{algo(j)}, {graph_name(j)}, {storage_set(j)}, " + others(j)
            out.setdefault(label, []).append(j)
        for js in out.values():
            js.sort(key=lambda j: j.c(self.key))
        return dict(sorted(out.items()))


class Fig10(GraphSweep):
    name = "fig10"
    title = "BaM Figure 10: BaM time vs cache capacity (bfs, Kronecker graph)"
    key = "cache.capacity"

    def draw(self, jobs, caption):
        curves = self.curves(jobs, lambda j: f"{j.c('queues.pairs_per_ssd')} QP, "
                                             f"{j.c('cache.line_size')} B lines")
        if not curves:
            return None
        kron = F.paper_number("table3.kron_gb")["value"]
        ref_frac = F.paper_number("fig7.cache_8gb")["value"] / kron
        one_gb = 1 / kron
        fig, axes = F.new_figure(1, 3, 16, 4.8)
        ax, rel, amp = axes[0]
        numbers = {}
        for label, js in curves.items():
            caps = [j.c(self.key) for j in js]
            ts = [graph(j)["time_s"] for j in js]
            nb = neighbour_bytes(js[0])
            fracs = [c / nb for c in caps]
            ref = nearest(fracs, ref_frac)
            t_ref = ts[fracs.index(ref)]
            line, = ax.plot([c / 2**20 for c in caps], ts, marker="o", markersize=3.5, label=label)
            rel.plot(fracs, [t / t_ref for t in ts], marker="o", markersize=3.5, color=line.get_color(),
                     label=f"{label} (1.0 at {caps[fracs.index(ref)] / 2**20:g} MiB)")
            amp.plot([c / 2**20 for c in caps], [graph(j).get("io_amplification") or 0 for j in js],
                     marker="o", markersize=3.5, color=line.get_color())
            numbers[label] = {"neighbour_bytes": nb, "reference_capacity": caps[fracs.index(ref)],
                              "points": [{"capacity": c, "fraction": f, "time_s": t, "relative": t / t_ref,
                                          "io_amplification": graph(j).get("io_amplification"),
                                          "hit_rate": (graph(j).get("cache") or {}).get("hit_rate")}
                                         for c, f, t, j in zip(caps, fracs, ts, js)]}
        F.log2_axis(ax, "cache capacity (MiB)")
        ax.set_ylabel("BaM time (s; bfs per source)")
        ax.set_title("time per traversal")
        ax.legend(loc="upper right")
        rel.set_xscale("log", base=2)
        rel.set_xlabel("cache capacity / the graph's neighbour-array bytes")
        rel.set_ylabel("time relative to the cache nearest 8 GB / 31.5 GB")
        F.paper_star(rel, one_gb, 1.0, "paper Fig. 10: 1 GB cache on K = 1.0x", left=True, dy=-14)
        F.paper_star(rel, ref_frac, 1.0, "paper: 8 GB on K (its reference)", left=True)
        rel.axhline(1, **F.PAPER_LINE)
        rel.xaxis.set_major_formatter(F.matplotlib.ticker.FuncFormatter(
            lambda v, _: f"1/{1 / v:g}" if v < 1 else f"{v:g}"))
        rel.set_title("relative, against the cache's share of the edge list (the paper's K: 31.5 GB)")
        rel.legend(loc="upper right")
        F.log2_axis(amp, "cache capacity (MiB)")
        amp.set_ylabel("I/O amplification (bytes read / neighbour bytes used)")
        amp.set_title("bytes read from the SSDs")
        caption = (f"{caption}  Graph: {graph_line(jobs)}. Only the cache capacity changes along a "
                   "curve (one process, a fresh cache per traversal).")
        F.finish(fig, self.title, caption)
        return fig, numbers

    def headline(self, numbers):
        out = []
        one_gb = 1 / F.paper_number("table3.kron_gb")["value"]
        for label, n in numbers.items():
            pts = n["points"]
            p = min(pts, key=lambda p: abs(F.math.log(p["fraction"] / one_gb)))
            if p["capacity"] != n["reference_capacity"]:
                out.append({"what": f"{label}: time with a {p['capacity'] / 2**20:g} MiB cache "
                                    f"({p['fraction']:.3f} of the edge list; the paper's 1 GB: "
                                    f"{one_gb:.3f}) relative to the reference cache",
                            "ours": p["relative"], "paper": F.paper_number("fig10.cache_1gb")["value"],
                            "unit": "x"})
        return out


class Fig11(GraphSweep):
    name = "fig11"
    title = "BaM Figure 11: BaM time vs NVMe queue pairs per SSD (bfs, Kronecker graph)"
    key = "queues.pairs_per_ssd"

    def draw(self, jobs, caption):
        curves = self.curves(jobs, lambda j: f"depth {j.c('queues.depth')}, "
                                             f"{j.c('cache.capacity') / 2**20:g} MiB cache")
        if not curves:
            return None
        knee = F.paper(self.name)["fig11.queue_pairs_knee"]["value"]
        fig, axes = F.new_figure(1, 2, 12.5, 4.8)
        ax, rel = axes[0]
        numbers = {}
        for label, js in curves.items():
            qps = [j.c(self.key) for j in js]
            ts = [graph(j)["time_s"] for j in js]
            ref = 128 if 128 in qps else max(qps)
            t_ref = ts[qps.index(ref)]
            line, = ax.plot(qps, ts, marker="o", markersize=3.5, label=label)
            rel.plot(qps, [t / t_ref for t in ts], marker="o", markersize=3.5, color=line.get_color(),
                     label=f"{label} (1.0 at {ref} pairs)")
            numbers[label] = {"reference_pairs": ref,
                              "points": [{"pairs": q, "time_s": t, "relative": t / t_ref,
                                          "ios": graph(j).get("ios")} for q, t, j in zip(qps, ts, js)]}
        for a in (ax, rel):
            a.axvline(knee, color="black", linestyle=":", linewidth=1,
                      label=f"paper Fig. 11: degrades only at {knee} pairs or fewer")
            a.set_xscale("log", base=2)
            a.xaxis.set_major_formatter(F.matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            a.set_xlabel("NVMe queue pairs per SSD")
        rel.plot([knee, 128], [1, 1], **F.PAPER_LINE, label="paper: the same as 128 pairs down to 40")
        ax.set_ylabel("BaM time (s; bfs per source)")
        ax.set_title("time per traversal")
        ax.legend(loc="upper right")
        rel.set_ylabel("time relative to 128 queue pairs")
        rel.set_title("relative (the paper's Figure 11 is relative to 128 pairs)")
        rel.legend(loc="upper right")
        caption = (f"{caption}  Graph: {graph_line(jobs)}. One process per point (the queues are "
                   "the storage's); on emulated SSDs one controller engine serves every pair.")
        F.finish(fig, self.title, caption)
        return fig, numbers

    def headline(self, numbers):
        out = []
        for label, n in numbers.items():
            ok = [p["pairs"] for p in n["points"] if p["relative"] <= 1.05]
            if ok:
                out.append({"what": f"{label}: fewest queue pairs within 5 % of 128 pairs' time",
                            "ours": min(ok), "paper": F.paper_number("fig11.queue_pairs_knee")["value"],
                            "unit": "queue pairs"})
        return out


# ---- Figure 12 -------------------------------------------------------------------------------

QUERIES = [f"q{i}" for i in range(6)]


class Fig12(F.Figure):
    name = "fig12"
    title = "BaM Figure 12 / dissertation Figure 9.7: NYC taxi Q0-Q5, BaM vs a CPU-orchestrated baseline"
    topics = ("taxi",)
    deep = True  # scripts/gpu/taxi.sh's calls put later SSD counts and repeats in subfolders

    def select(self, j):
        return (j.tool == "taxi-query" and j.c("storage.backend") == "emulated"
                and j.c("taxi.queries") in QUERIES and bool((j.stats.get("taxi") or {}).get("impls")))

    @staticmethod
    def rows(jobs):
        """A row per implementation run: query, D, SSDs, line size, impl, seconds, amplification,
        repeats (the run is the median-rate one of that many)."""
        out = []
        for j in jobs:
            for im in j.stats["taxi"]["impls"]:
                out.append({"query": j.c("taxi.queries"), "D": j.c("taxi.min_distance"),
                            "ssds": j.c("storage.ssd_count"), "line": j.c("cache.line_size"),
                            "impl": im["impl"], "seconds": im["seconds"],
                            "amplification": im["io_amplification"],
                            "repeats": (j.b.get("repeat") or {}).get("runs", 1),
                            "rows": j.stats["taxi"].get("rows")})
        return out

    def draw(self, jobs, caption):
        rows = self.rows(jobs)
        if not rows:
            return None
        pn = F.paper(self.name)
        ds = sorted({r["D"] for r in rows}, reverse=True)
        ssds = sorted({r["ssds"] for r in rows if r["impl"] != "tiled (page cache)"})
        fig, axes = F.new_figure(3, len(ds), 7.2 * len(ds), 12)
        numbers = {}

        def pick(D, impl, n=None, line=4096, single=True):
            """{query: row} (single runs first; a repeated run where no single one exists)."""
            out = {}
            for r in sorted(rows, key=lambda r: r["repeats"] > 1 if single else r["repeats"] == 1):
                if (r["D"] == D and r["impl"] == impl and (n is None or r["ssds"] == n)
                        and r["line"] == line and r["query"] not in out):
                    out[r["query"]] = r
            return out

        for col, D in enumerate(ds):
            tm, sp, am = axes[0][col], axes[1][col], axes[2][col]
            sel = {0: "0.03 %", 1: "0.47 %"}
            share = sel[0] if D >= 30 else sel[1] if D >= 20 else "?"
            series = [(f"BaM, {n} SSD{'s' if n > 1 else ''}", "bam", n, SSD_COLORS.get(n), None) for n in ssds]
            series += [(f"tiled, {n} SSD{'s' if n > 1 else ''}", "tiled (ssd)", n, SSD_COLORS.get(n), "//")
                       for n in ssds]
            series += [("tiled, page cache", "tiled (page cache)", None, "0.6", "..")]
            series = [s for s in series if pick(D, s[1], s[2])]
            w = 0.8 / max(1, len(series))
            repeat_shown = False
            nd = numbers.setdefault(f"D{D:g}", {"time": {}, "speedup": {}, "amplification": {}})
            for i, (label, impl, n, color, hatch) in enumerate(series):
                got = pick(D, impl, n)
                xs = [QUERIES.index(q) + (i - (len(series) - 1) / 2) * w for q in got]
                tm.bar(xs, [r["seconds"] for r in got.values()], w, color=color, hatch=hatch,
                       edgecolor="white" if hatch else None, label=label, alpha=0.9 if hatch else 1)
                nd["time"][label] = {q: r["seconds"] for q, r in got.items()}
                rep = {q: r for q, r in pick(D, impl, n, single=False).items() if r["repeats"] > 1}
                if rep:
                    tm.plot([QUERIES.index(q) + (i - (len(series) - 1) / 2) * w for q in rep],
                            [r["seconds"] for r in rep.values()], marker="x", color="black",
                            linestyle="none", markersize=5,
                            label=None if repeat_shown else "the median-rate run of a --repeat point")
                    repeat_shown = True
                    nd["time"][label + " (repeat)"] = {q: r["seconds"] for q, r in rep.items()}
            tm.set_xticks(range(6), [q.upper() for q in QUERIES])
            tm.set_ylabel("end-to-end query time (s; placement not counted)")
            tm.set_title(f"trip_distance >= {D:g} miles ({share} of trips in the paper's data), 4 KiB lines")
            tm.legend(loc="upper left", ncol=2)
            # Speedup of BaM over the baseline, per SSD count.
            for n in ssds:
                bam, tiled = pick(D, "bam", n), pick(D, "tiled (ssd)", n)
                qs = [q for q in QUERIES if q in bam and q in tiled]
                if qs:
                    v = [tiled[q]["seconds"] / bam[q]["seconds"] for q in qs]
                    sp.plot([QUERIES.index(q) for q in qs], v, marker="o", markersize=4,
                            color=SSD_COLORS.get(n), label=f"ours, {n} SSD{'s' if n > 1 else ''}: tiled / BaM")
                    nd["speedup"][f"{n}"] = dict(zip(qs, v))
            for n in pn.values():
                at = n.get("at", {})
                if n["id"].startswith("diss.fig9_7.speedup") and at.get("taxi.min_distance") == D:
                    if isinstance(at.get("taxi.queries"), list):
                        for q, v in zip(at["taxi.queries"], n["value"]):
                            F.paper_star(sp, QUERIES.index(q), v, f"dissertation Fig. 9.7, "
                                         f"{at['storage.ssd_count']} SSD: {v:g}x", left=q == "q0")
                    else:
                        sp.axhline(n["value"], **F.PAPER_LINE)
                        sp.text(0, n["value"], f" dissertation: 4 SSDs up to {n['value']:g}x over RAPIDS",
                                fontsize=6.5, va="bottom")
            if D >= 30:
                q0 = pn["fig12.q0_1ssd"]["value"]
                F.paper_star(sp, 0, q0, f"paper Fig. 12, 1 SSD: {q0:g}x", left=True, dy=-12)
                top = pn["fig12.max_speedup"]["value"]
                sp.axhline(top, **F.PAPER_LINE)
                sp.text(0, top, f" paper Fig. 12: up to {top:g}x over RAPIDS", fontsize=6.5, va="bottom")
            sp.axhline(1, color="black", linewidth=0.8)
            sp.set_xticks(range(6), [q.upper() for q in QUERIES])
            sp.set_ylabel("speedup of BaM (x; ours over tiled, the paper's over RAPIDS)")
            sp.set_title(f"speedup, D = {D:g} miles")
            sp.legend(loc="lower right")
            # I/O amplification.
            for label, impl, n, color, ls in (("BaM, 4 KiB lines", "bam", None, "tab:red", "-"),
                                              ("tiled (row groups of every needed column)", "tiled (ssd)",
                                               None, "tab:blue", "--")):
                got = pick(D, impl, n)
                if got:
                    am.plot([QUERIES.index(q) for q in got], [r["amplification"] for r in got.values()],
                            marker="o", markersize=4, color=color, linestyle=ls, label=f"ours: {label}")
                    nd["amplification"][label] = {q: r["amplification"] for q, r in got.items()}
            for line in (512, 1024):
                got = pick(D, "bam", None, line)
                if got:
                    am.plot([QUERIES.index(q) for q in got], [r["amplification"] for r in got.values()],
                            marker="v", markersize=5, linestyle="none", label=f"ours: BaM, {line} B lines")
                    nd["amplification"][f"BaM, {line} B lines"] = {q: r["amplification"] for q, r in got.items()}
            ra = pn["diss.fig9_7.rapids_amplification"]
            for q, v in zip(ra["at"]["taxi.queries"], ra["value"]):
                F.paper_star(am, QUERIES.index(q), v, f"dissertation: RAPIDS {v:g}x", left=q == "q0")
            ba = pn["diss.fig9_7.bam_amplification"]
            v = ba["value"][0 if D >= 30 else 1]
            F.paper_star(am, 5, v, f"dissertation: BaM {'at most' if D >= 30 else 'up to'} {v:g}x")
            am.set_xticks(range(6), [q.upper() for q in QUERIES])
            am.set_ylabel("I/O amplification (bytes moved / bytes needed)")
            am.set_title(f"I/O amplification, D = {D:g} miles")
            am.legend(loc="upper left")
        n_rows = {r["rows"] for r in rows}
        caption = (f"{caption}  Table: {', '.join(f'{n / 1e6:g} M' for n in sorted(n_rows))} synthetic "
                   "rows (bam-data taxi-gen, seed 1; the paper: 1.7 G real trips, ORC). Our baseline "
                   "is tiled: CPU threads read row groups of every needed column from host-emulated "
                   "SSDs of the same model (or the page cache) and copy them to the GPU, RAPIDS' "
                   "access pattern, not RAPIDS; the paper's baseline is RAPIDS v21.12 reading the "
                   "page cache. The paper gives speedups and amplifications in its text, not times.")
        F.finish(fig, self.title, caption, bottom=0.04)
        return fig, numbers

    def headline(self, numbers):
        out = []
        d30 = numbers.get("D30", {}).get("speedup", {})
        for n, nid in (("1", "diss.fig9_7.speedup_1ssd"), ("4", "diss.fig9_7.speedup_4ssd")):
            for i, q in enumerate(("q0", "q5")):
                if q in d30.get(n, {}):
                    out.append({"what": f"{q.upper()}, D = 30, {n} SSD: BaM over tiled (ours) / RAPIDS "
                                        "(dissertation Fig. 9.7)", "ours": d30[n][q],
                                "paper": F.paper_number(nid)["value"][i], "unit": "x"})
        amp = numbers.get("D30", {}).get("amplification", {}).get("BaM, 4 KiB lines", {})
        if "q5" in amp:
            out.append({"what": "Q5, D = 30: BaM I/O amplification", "ours": amp["q5"],
                        "paper": F.paper_number("diss.fig9_7.bam_amplification")["value"][0], "unit": "x"})
        return out


FIGURES = [Fig7(), Fig9(), Fig10(), Fig11(), Fig12()]
