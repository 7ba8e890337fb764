"""scripts/plot: every figure that has stored GPU results is produced, PNG and SVG, from the
stored results alone, with the GPU and the paper's numbers in it; figures.json holds ours vs the
paper's; unknown figures and figures without results are reported."""
import json
import shutil
import subprocess
import unittest

from script_test import BUILD, REPO, TempDirTest, run, write_spec

# The figures results/ holds GPU data for (a new GPU or figure adds files; none may go missing).
EXPECTED = [f"{fig}-{gpu}" for fig in ("fig4", "fig5", "fig5-latency", "fig6-hot-threads",
                                       "fig6-hot-reuse", "fig6-miss", "single-qp")
            for gpu in ("h100", "h200")] + ["fig7-h100", "fig9-h100", "fig10-h100", "fig11-h100",
                                             "fig12-h100"]
GPU_NAMES = {"h100": "NVIDIA H100", "h200": "NVIDIA H200"}


class PlotTest(TempDirTest):
    def test_every_figure_from_the_stored_results(self):
        out = self.tmp / "figs"
        r = run("plot", "--out", out, check=0)
        for name in EXPECTED:
            png, svg = out / f"{name}.png", out / f"{name}.svg"
            self.assertTrue(png.is_file(), f"{name}.png not made:\n{r.stdout}")
            self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
            self.assertGreater(png.stat().st_size, 20000)
            text = svg.read_text()
            self.assertIn("<svg", text)
            self.assertIn(GPU_NAMES[name.rsplit("-", 1)[1]], text)  # the caption names the GPU
            self.assertIn("paper", text)
        index = json.loads((out / "figures.json").read_text())
        made = {f"{e['figure']}-{e['gpu']}": e for e in index["figures"]}
        self.assertLessEqual(set(EXPECTED), set(made))
        fig4 = made["fig4-h200"]["headline"]
        self.assertEqual([h["paper"] for h in fig4], [45.8e6, 10.6e6])
        self.assertGreater(fig4[0]["ours"], 40e6)
        self.assertTrue(made["fig4-h200"]["session"].startswith("results/nbb-fig4/h200/"))
        # The application figures: ours beside the paper's, from the tools' own report fields.
        fig7 = {h["what"]: h for h in made["fig7-h100"]["headline"]}
        four = fig7["bfs kron-s27, 4 x optane-p5800x: BaM speedup over T end to end"]
        self.assertEqual(four["paper"], 1.0)
        self.assertAlmostEqual(four["ours"], 1.331782 / 2.534410, places=4)  # graph-apps.csv
        bfs = made["fig7-h100"]["numbers"]["bfs"][1]
        self.assertAlmostEqual(bfs["compute_s"] + bfs["cache_api_s"] + bfs["storage_s"], bfs["bam_s"], places=6)
        fig9 = made["fig9-h100"]["headline"]
        self.assertEqual([h["paper"] for h in fig9], [3.21, 6.07] * 2 + [2.68, 5.11] * 2)
        self.assertAlmostEqual(fig9[0]["ours"], 6.486075 / 2.534410, places=4)  # kron, 980pro
        fig12 = {h["what"][:16]: h for h in made["fig12-h100"]["headline"]}
        self.assertEqual(fig12["Q5, D = 30, 4 SS"]["paper"], 4.62)
        self.assertAlmostEqual(fig12["Q5, D = 30, 4 SS"]["ours"], 0.968236 / 0.267076, places=3)
        d30 = made["fig12-h100"]["numbers"]["D30"]["time"]
        self.assertEqual(sorted(k for k in d30 if "repeat" not in k),  # 2ssd/ is read too
                         sorted(f"{i}, {n} SSD{'s' if n > 1 else ''}" for i in ("BaM", "tiled")
                                for n in (1, 2, 4)) + ["tiled, page cache"])
        # The sweeps' summary.csv: 128 MiB against 1 GiB of cache; the fewest queue pairs within
        # 5 % of 128 pairs' time.
        fig10 = made["fig10-h100"]["headline"][0]
        self.assertEqual(fig10["paper"], 1.0)
        self.assertAlmostEqual(fig10["ours"], 0.801098 / 0.708208, places=4)
        fig11 = made["fig11-h100"]["headline"][0]
        self.assertEqual((fig11["ours"], fig11["paper"]), (8, 40))
        self.assertNotIn("needs", run("plot", "--list", check=0).stdout)

    def test_a_sweep_folder_is_read_like_the_stored_sessions(self):
        src = sorted((REPO / "results" / "nbb-fig4" / "h200").iterdir())[-1]
        dst = self.tmp / "results" / "nbb-fig4" / "h200" / "2030-01-01-abc1234"
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.png", "*.txt", "*.csv"))
        for f in dst.glob("*.json"):  # renamed as scripts/sweep names its points
            f.rename(dst / f"p{len(list(dst.glob('p*')))}_{f.name}")
        out = self.tmp / "figs"
        run("plot", "fig4", "--results", self.tmp / "results", "--out", out, check=0)
        self.assertTrue((out / "fig4-h200.png").is_file())
        self.assertIn("2030-01-01-abc1234", (out / "fig4-h200.svg").read_text())

    def test_the_graph_figures_pick_a_session_per_algorithm(self):
        # A newer session holding only bfs: fig7 draws bfs from it and cc from the older one.
        src = REPO / "results" / "graph-apps" / "h100" / "2026-11-25-faf912c"
        results = self.tmp / "results"
        shutil.copytree(src, results / "graph-apps" / "h100" / src.name,
                        ignore=shutil.ignore_patterns("*.log", "*.csv"))
        newer = results / "graph-apps" / "h100" / "2030-01-01-abc1234"
        newer.mkdir()
        for f in src.glob("bfs-*.json"):
            doc = json.loads(f.read_text())
            doc["bamkit"]["machine"]["date"] = "2030-01-01T00:00:00Z"
            (newer / f.name).write_text(json.dumps(doc))
        out = self.tmp / "figs"
        run("plot", "fig7", "--results", results, "--out", out, check=0)
        made = json.loads((out / "figures.json").read_text())["figures"][0]
        self.assertEqual(made["session"], f"{newer}, {results / 'graph-apps' / 'h100' / src.name}")
        self.assertIn("2030-01-01-abc1234", (out / "fig7-h100.svg").read_text())

    def test_fig10_and_fig11_from_the_layout_scripts_sweep_writes(self):
        # Host-mode runs of the two specs on a tiny graph, in a scratch results folder (the
        # figures' code reads what bfs and scripts/sweep write; no GPU data goes to results/).
        tools = BUILD / "tools"
        if not (tools / "bfs" / "bfs").exists():
            self.skipTest("bfs is not built")
        graph = self.tmp / "kron-s10.csr"
        subprocess.run([tools / "bam-data" / "bam-data", "graph-gen", "kron", "--scale", "10", "--seed", "1",
                        "--out", graph], check=True, capture_output=True)
        results = self.tmp / "results"
        host = ["--set", "storage.backend=host", "--set", f"graph.file={graph}",
                "--set", "storage.media.size_bytes=1048576", "--set", "workload.threads=1"]
        for name, extra in (("graph-cache-size", []), ("graph-queue-pairs", ["--set", "cache.capacity=16384"])):
            spec = json.loads((REPO / "configs" / "sweeps" / f"{name}.json").read_text())
            if name == "graph-cache-size":
                spec["inner"]["cache.capacity"] = [8192, 16384, 65536, 262144]
            run("sweep", write_spec(self.tmp, spec), "--bin", BUILD, "--out",
                results / name / "cpu" / "2030-01-01-host", *host, *extra, check=0)
        out = self.tmp / "figs"
        r = run("plot", "fig10", "fig11", "--results", results, "--out", out, check=0)
        index = {e["figure"]: e for e in json.loads((out / "figures.json").read_text())["figures"]}
        for name in ("fig10", "fig11"):
            self.assertTrue((out / f"{name}-cpu.png").is_file(), r.stdout)
            self.assertIn("kron-s10", (out / f"{name}-cpu.svg").read_text())
        (curve,) = index["fig10"]["numbers"].values()
        self.assertEqual([p["capacity"] for p in curve["points"]], [8192, 16384, 65536, 262144])
        self.assertGreater(curve["points"][0]["io_amplification"], curve["points"][-1]["io_amplification"])
        (curve,) = index["fig11"]["numbers"].values()
        self.assertEqual([p["pairs"] for p in curve["points"]], [8, 16, 32, 40, 64, 96, 128])
        self.assertEqual([p["relative"] for p in curve["points"]][-1], 1.0)

    def test_unknown_figures_and_missing_results(self):
        r = run("plot", "fig99", check=2)
        self.assertIn("fig99", r.stderr)
        (self.tmp / "empty").mkdir()
        r = run("plot", "fig4", "--results", self.tmp / "empty", "--out", self.tmp / "f", check=1)
        self.assertIn("no stored results", r.stdout)
        r = run("plot", "--list", check=0)
        self.assertIn("fig12", r.stdout)


if __name__ == "__main__":
    unittest.main()
