"""scripts/gpu/regression-points.sh's table_ and f4_ points and scripts/gpu/io-path-table.sh's
--args, run with stand-in binaries that record how they were called: old and new alternate point
by point (old first in odd rounds, new first in even ones), a table_ point runs exactly
io-path-table.sh's arguments in TABLE_PROTOCOL, an f4_ point Figure 4's job from the repository's
configs, and an unknown point is named once and fails the run without stopping the others. Then
scripts/gpu/regression-table.py on measured reports named as such points and as one of its own:
its own first, the others in M IOPS with the new/old ratio, rates under 1 M to four digits."""
import json
import os
import shutil
import subprocess
import unittest

from script_test import REPO, TempDirTest, run

GPU = REPO / "scripts" / "gpu"
OLD_REPORTS = REPO / "results" / "io-path" / "h200" / "2026-11-25-51665de" / "emulator"


# Settings of the scripts that must not leak in from the caller's environment.
SETTINGS = ("OLD", "NEW", "OUT", "ROUNDS", "POINTS", "ARGS", "NEW_ARGS", "TABLE_PROTOCOL",
            "F4_SSDS", "PROTOCOL", "EXTRA", "BIN")


def sh(script, *args, **settings):
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    env.update({k: str(v) for k, v in settings.items()})
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
        r = sh("io-path-table.sh", "--args", "qd1_null", PROTOCOL="emulator")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--set storage.protocol=emulator", r.stdout)
        self.assertIn("--model null", r.stdout)
        bad = sh("io-path-table.sh", "--args", "no_such_point")
        self.assertEqual(bad.returncode, 1)
        self.assertIn("unknown point no_such_point", bad.stderr)

    def test_table_and_figure4_points_alternate_old_and_new(self):
        old, new = self.stand_in("old"), self.stand_in("new")
        r = sh("regression-points.sh", OLD=old, NEW=new, OUT=self.tmp / "out", ROUNDS=2,
               TABLE_PROTOCOL="emulator", POINTS="table_optane10_1g f4_512_1024 nope f4_4k_4096",
               ARGS="--set storage.protocol=hardware", NEW_ARGS="--set gpu.engine_blocks=32")
        self.assertEqual(r.returncode, 1, "an unknown point fails the run")
        self.assertEqual(r.stderr.count("unknown point nope"), 1, r.stderr)
        calls = (self.tmp / "calls.log").read_text().splitlines()
        builds = [c.split()[0] for c in calls]
        # 3 known points x 2 rounds, old first in round 1 and new first in round 2
        self.assertEqual(builds, ["old", "new"] * 3 + ["new", "old"] * 3, calls)
        table = sh("io-path-table.sh", "--args", "optane10_1g", PROTOCOL="emulator").stdout.split()
        first = calls[0].split()[1:]
        self.assertEqual(first[:len(table)], table)
        # ARGS for both builds, then NEW_ARGS for the new one only, then the report
        self.assertEqual(first[len(table):], ["--set", "storage.protocol=hardware", "--report",
                                              str(self.tmp / "out" / "table_optane10_1g_old_1.json")])
        second = calls[1].split()[1:]
        self.assertEqual(second[len(table):-2], ["--set", "storage.protocol=hardware", "--set",
                                                 "gpu.engine_blocks=32"])
        f4 = calls[2].split()
        self.assertEqual((REPO / f4[2]).resolve(),
                         REPO / "configs" / "block" / "optane-x4-512b-randread.json")
        self.assertTrue((REPO / f4[2]).is_file())
        for want in ("storage.ssd_count=10", "storage.media.size_bytes=268435456",
                     "workload.duration_s=0.25"):
            self.assertIn(want, f4)
        self.assertEqual(f4[f4.index("--threads") + 1], "1024")
        self.assertEqual(f4[f4.index("--io-size") + 1], "512")
        k4 = calls[4].split()
        self.assertEqual((REPO / k4[2]).resolve(),
                         REPO / "configs" / "block" / "optane-x4-4k-randread.json")
        self.assertEqual(k4[k4.index("--threads") + 1], "4096")
        self.assertNotIn("--io-size", k4)
        self.assertTrue(calls[6].split()[-1].endswith("table_optane10_1g_new_2.json"))

    def table(self, copies):
        """regression-table.py over measured reports copied in as {name: report}: its markdown
        and its rows."""
        out = self.tmp / "out"
        out.mkdir()
        for name, report in copies.items():
            shutil.copy(OLD_REPORTS / report, out / name)
        md = run("gpu/regression-table.py", out, "--json", self.tmp / "rows.json", check=0).stdout
        return md, json.loads((self.tmp / "rows.json").read_text())

    def test_the_table_gives_other_points_in_m_iops_with_the_ratio(self):
        md, rows = self.table({"table_optane10_1g_old_1.json": "optane10_1g.json",
                               "table_optane10_1g_new_1.json": "ideal_512_4g.json",
                               "nbb_ideal_512_old_1.json": "ideal_512_1g.json",
                               "table_qd1_null_new_1.json": "qd1_null.json"})
        self.assertEqual([r["point"] for r in rows],
                         ["nbb_ideal_512", "table_optane10_1g", "table_qd1_null"])
        qd1 = json.loads((OLD_REPORTS / "qd1_null.json").read_text())["jobs"][0]["read"]["iops"]
        self.assertIn(f"| {qd1 / 1e6:.4g} (", md)  # a QD1 rate, under 1 M, to four digits
        rows = rows[1:]
        iops = [json.loads((OLD_REPORTS / f).read_text())["jobs"][0]["read"]["iops"]
                for f in ("optane10_1g.json", "ideal_512_4g.json")]
        self.assertEqual(rows[0]["unit"], "M IOPS")
        self.assertAlmostEqual(rows[0]["old"]["median"], iops[0] / 1e6, places=6)
        self.assertAlmostEqual(rows[0]["new_over_old"], iops[1] / iops[0], places=9)

    def test_a_report_of_several_jobs_gives_a_row_per_job_with_its_mean_latency(self):
        md, rows = self.table({"table_oneqp_null_old_1.json": "oneqp_null.json",
                               "table_oneqp_null_old_2.json": "oneqp_null.json",
                               "table_oneqp_null_new_1.json": "oneqp_null.json",
                               "table_qd1_null_old_1.json": "qd1_null.json"})
        jobs = json.loads((OLD_REPORTS / "oneqp_null.json").read_text())["jobs"]
        threads = [j["bamkit"]["config"]["workload"]["threads"] for j in jobs]
        self.assertEqual(len(set(threads)), 3)
        self.assertEqual([r["point"] for r in rows],
                         [f"table_oneqp_null @{t} threads" for t in threads] + ["table_qd1_null"])
        for row, job in zip(rows, jobs):
            self.assertEqual((row["old"]["rounds"], row["new"]["rounds"]), (2, 1))
            self.assertAlmostEqual(row["old"]["median"], job["bamkit"]["iops"] / 1e6, places=6)
            self.assertAlmostEqual(row["new_over_old"], 1.0, places=12)
            mean = job["read"]["clat_ns"]["mean"] / 1e3
            self.assertAlmostEqual(row["new"]["mean_latency_us"], mean, places=6)
            self.assertIn(f"| {mean:.2f} / {mean:.2f} |", md)
        qd1 = json.loads((OLD_REPORTS / "qd1_null.json").read_text())["jobs"][0]["read"]
        self.assertNotIn("new", rows[-1])  # only the old build ran it: no ratio
        self.assertIn(f"| {qd1['clat_ns']['mean'] / 1e3:.2f} / - |", md)


if __name__ == "__main__":
    unittest.main()
