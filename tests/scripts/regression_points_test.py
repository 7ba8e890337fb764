"""scripts/gpu/regression-points.sh's table_ and f4_ points and scripts/gpu/io-path-table.sh's
--args, run with stand-in binaries that record how they were called: old and new alternate point
by point, a table_ point runs exactly io-path-table.sh's arguments in TABLE_PROTOCOL, an f4_ point
Figure 4's job, and an unknown point fails the run without stopping the others. Then
scripts/gpu/regression-table.py on measured reports named as such points: a row in M IOPS with the
new/old ratio."""
import json
import os
import shutil
import subprocess
import unittest

from script_test import REPO, TempDirTest, run

GPU = REPO / "scripts" / "gpu"
OLD_REPORTS = REPO / "results" / "io-path" / "h200" / "2026-11-25-51665de" / "emulator"


def sh(script, *args, env=None):
    return subprocess.run(["bash", str(GPU / script), *map(str, args)], capture_output=True,
                          text=True, timeout=60, cwd=REPO, env=env)


class RegressionPoints(TempDirTest):
    def stand_in(self, build):
        """A folder whose nvm-block-bench appends '<build> <its arguments>' to calls.log."""
        d = self.tmp / build
        d.mkdir()
        b = d / "nvm-block-bench"
        b.write_text(f'#!/bin/bash\necho "{build} $*" >> "{self.tmp}/calls.log"\n')
        b.chmod(0o755)
        return d

    def test_table_args_name_the_protocol_and_refuse_an_unknown_point(self):
        env = {**os.environ, "PROTOCOL": "emulator"}
        r = sh("io-path-table.sh", "--args", "qd1_null", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--set storage.protocol=emulator", r.stdout)
        self.assertIn("--model null", r.stdout)
        bad = sh("io-path-table.sh", "--args", "no_such_point")
        self.assertEqual(bad.returncode, 1)
        self.assertIn("unknown point no_such_point", bad.stderr)

    def test_table_and_figure4_points_alternate_old_and_new(self):
        old, new = self.stand_in("old"), self.stand_in("new")
        env = {**os.environ, "OLD": str(old), "NEW": str(new), "OUT": str(self.tmp / "out"),
               "ROUNDS": "2", "TABLE_PROTOCOL": "emulator",
               "POINTS": "table_optane10_1g f4_512_1024 nope f4_4k_4096"}
        r = sh("regression-points.sh", env=env)
        self.assertEqual(r.returncode, 1, "an unknown point fails the run")
        self.assertIn("unknown point nope", r.stderr)
        calls = (self.tmp / "calls.log").read_text().splitlines()
        builds = [c.split()[0] for c in calls]
        self.assertEqual(builds, ["old", "new"] * 6, calls)  # 3 known points x 2 rounds
        table = sh("io-path-table.sh", "--args", "optane10_1g",
                   env={**os.environ, "PROTOCOL": "emulator"}).stdout.split()
        first = calls[0].split()[1:]
        self.assertEqual(first[:len(table)], table)
        self.assertEqual(first[len(table):], ["--report",
                                              str(self.tmp / "out" / "table_optane10_1g_old_1.json")])
        f4 = calls[2].split()
        self.assertTrue(f4[2].endswith("configs/block/optane-x4-512b-randread.json"), f4)
        for want in ("storage.ssd_count=10", "storage.media.size_bytes=268435456",
                     "workload.duration_s=0.25"):
            self.assertIn(want, f4)
        self.assertEqual(f4[f4.index("--threads") + 1], "1024")
        self.assertEqual(f4[f4.index("--io-size") + 1], "512")
        k4 = calls[4].split()
        self.assertTrue(k4[2].endswith("configs/block/optane-x4-4k-randread.json"), k4)
        self.assertEqual(k4[k4.index("--threads") + 1], "4096")
        self.assertNotIn("--io-size", k4)
        self.assertTrue(calls[6].split()[-1].endswith("table_optane10_1g_old_2.json"))

    def test_the_table_gives_other_points_in_m_iops_with_the_ratio(self):
        out = self.tmp / "out"
        out.mkdir()
        shutil.copy(OLD_REPORTS / "optane10_1g.json", out / "table_optane10_1g_old_1.json")
        shutil.copy(OLD_REPORTS / "ideal_512_4g.json", out / "table_optane10_1g_new_1.json")
        run("gpu/regression-table.py", out, "--json", self.tmp / "rows.json", check=0)
        rows = json.loads((self.tmp / "rows.json").read_text())
        self.assertEqual([r["point"] for r in rows], ["table_optane10_1g"])
        iops = [json.loads((OLD_REPORTS / f).read_text())["jobs"][0]["read"]["iops"]
                for f in ("optane10_1g.json", "ideal_512_4g.json")]
        self.assertEqual(rows[0]["unit"], "M IOPS")
        self.assertAlmostEqual(rows[0]["old"]["median"], iops[0] / 1e6, places=6)
        self.assertAlmostEqual(rows[0]["new_over_old"], iops[1] / iops[0], places=9)


if __name__ == "__main__":
    unittest.main()
