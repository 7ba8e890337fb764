"""The count baselines of configs/perf-baselines/: this build's deterministic host-mode runs of
every tool must give exactly the counts checked in (scripts/perf-baselines check); and the check
fails when a count differs."""
import json
import re
import unittest

from script_test import BUILD, REPO, TempDirTest, run


class PerfBaselinesTest(TempDirTest):
    def test_counts_equal_the_checked_in_baselines(self):
        keep = self.tmp / "runs"
        r = run("perf-baselines", "check", "--bin", BUILD, "--keep", keep)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for tool in ("nvm-block-bench", "cache-bench", "bfs", "cc", "taxi-query"):
            self.assertRegex(r.stdout, rf"{tool}: \d+ counts of \d+ jobs compared .*: 0 changed")
        # The same runs against a baseline with one count changed: the check must fail.
        base = json.loads((REPO / "configs/perf-baselines/cache-bench.counts.json").read_text())
        entry = next(iter(base["entries"].values()))
        entry["counts"]["cache.misses"] += 1
        changed = self.tmp / "changed.counts.json"
        changed.write_text(json.dumps(base))
        r = run("perf-check", "--counts-only", changed, keep / "cache-bench", check=1)
        self.assertRegex(r.stdout, r"cache\.misses\s+count.*COUNT CHANGED")
        # The application tools: one more I/O of bfs, one more line read by taxi-query's bam,
        # one more round of cc, and a query result that moved, each fail.
        for tool, metric, change in (("bfs", "graph.ios", 1), ("taxi-query", "taxi.bam.cache.misses", 1),
                                     ("cc", "graph.steps", 1), ("taxi-query", "taxi.tiled_ssd.q5.value", 1e-12)):
            base = json.loads((REPO / f"configs/perf-baselines/{tool}.counts.json").read_text())
            entry = next(e for e in base["entries"].values() if metric in e["counts"])
            self.assertGreater(entry["counts"][metric], 0)
            entry["counts"][metric] += change
            changed.write_text(json.dumps(base))
            r = run("perf-check", "--counts-only", changed, keep / tool, check=1)
            self.assertRegex(r.stdout, rf"{re.escape(metric)}\s+count.*COUNT CHANGED")
            self.assertIn("1 changed counts", r.stdout)


if __name__ == "__main__":
    unittest.main()
