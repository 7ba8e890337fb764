"""scripts/plot: every figure that has stored GPU results is produced, PNG and SVG, from the
stored results alone, with the GPU and the paper's numbers in it; figures.json holds ours vs the
paper's; unknown figures and figures without results are reported."""
import json
import shutil
import unittest

from script_test import REPO, TempDirTest, run

# The figures results/ holds GPU data for (a new GPU or figure adds files; none may go missing).
EXPECTED = [f"{fig}-{gpu}" for fig in ("fig4", "fig5", "fig5-latency", "fig6-hot-threads",
                                       "fig6-hot-reuse", "fig6-miss", "single-qp")
            for gpu in ("h100", "h200")]
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
        self.assertIn("needs a graph tool", r.stdout)  # Figures 7, 9-11 wait for their tool

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
