"""scripts/gpu/regression-points.sh's table_ and f4_ points and scripts/gpu/io-path-table.sh's
--args, run with stand-in binaries that record how they were called: old and new alternate point
by point (old first in odd rounds, new first in even ones), a table_ point runs exactly
io-path-table.sh's arguments in TABLE_PROTOCOL, an f4_ point Figure 4's job from the repository's
configs, and an unknown point is named once and fails the run without stopping the others. Then
scripts/gpu/regression-table.py on measured reports named as such points and as one of its own:
its own first, the others in M IOPS with the new/old ratio, rates under 1 M to four digits, each
build's rate over its own processes' direct-read ceilings where they measured one; the
applications' points (taxi_q0q5, bfs_kron, cc_kron) make their data once with the new build's
bam-data, fail the run without it, and give their own figure (rows/s, TEPS, cc's edges scanned
per second), a sweep's jobs named by what they differ in."""
import json
import os
import shutil
import subprocess
import unittest

from script_test import REPO, TempDirTest, run

GPU = REPO / "scripts" / "gpu"
OLD_REPORTS = REPO / "results" / "io-path" / "h200" / "2026-11-25-51665de" / "emulator"


# Settings of the scripts that must not leak in from the caller's environment.
SETTINGS = ("OLD", "NEW", "OUT", "ROUNDS", "POINTS", "ARGS", "NEW_ARGS", "OLD_ARGS",
            "TABLE_PROTOCOL", "F4_SSDS", "PROTOCOL", "EXTRA", "BIN", "TAXI_ROWS", "GRAPH_SCALE",
            "DATA")


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

    def test_even_point_is_the_10_gib_point_with_the_engine_on_the_first_sms(self):
        base = sh("io-path-table.sh", "--args", "optane10_1g", PROTOCOL="emulator")
        even = sh("io-path-table.sh", "--args", "optane10_1g_even", PROTOCOL="emulator")
        self.assertEqual(even.returncode, 0, even.stderr)
        self.assertEqual(even.stdout.split(), base.stdout.split() + [
            "--set", "gpu.engine_placement=first-sms", "--set", "gpu.engine_blocks=80", "--set",
            "gpu.engine_warps_per_block=4"])
        # It takes as long as the 10 GiB point (the estimate knows it).
        one = sh("io-path-table.sh", "--estimate", POINTS="optane10_1g")
        both = sh("io-path-table.sh", "--estimate", POINTS="optane10_1g optane10_1g_even")
        self.assertEqual(int(both.stdout), 2 * int(one.stdout))

    def test_table_and_figure4_points_alternate_old_and_new(self):
        old, new = self.stand_in("old"), self.stand_in("new")
        r = sh("regression-points.sh", OLD=old, NEW=new, OUT=self.tmp / "out", ROUNDS=2,
               TABLE_PROTOCOL="emulator", POINTS="table_optane10_1g f4_512_1024 nope f4_4k_4096",
               ARGS="--set storage.protocol=hardware", NEW_ARGS="--set gpu.engine_blocks=32",
               OLD_ARGS="--set gpu.engine_blocks=16 --set gpu.engine_warps_per_block=8")
        self.assertEqual(r.returncode, 1, "an unknown point fails the run")
        self.assertEqual(r.stderr.count("unknown point nope"), 1, r.stderr)
        calls = (self.tmp / "calls.log").read_text().splitlines()
        builds = [c.split()[0] for c in calls]
        # 3 known points x 2 rounds, old first in round 1 and new first in round 2
        self.assertEqual(builds, ["old", "new"] * 3 + ["new", "old"] * 3, calls)
        table = sh("io-path-table.sh", "--args", "optane10_1g", PROTOCOL="emulator").stdout.split()
        first = calls[0].split()[1:]
        self.assertEqual(first[:len(table)], table)
        # ARGS for both builds, then OLD_ARGS / NEW_ARGS for the old / new one only, then the report
        self.assertEqual(first[len(table):], [
            "--set", "storage.protocol=hardware", "--set", "gpu.engine_blocks=16", "--set",
            "gpu.engine_warps_per_block=8", "--report",
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

    def app_stand_ins(self, build, data_ok=True):
        """A folder whose nvm-block-bench, taxi-query, bfs and cc record their calls as
        stand_in's nvm-block-bench does, and whose bam-data records its call and makes its --out
        (a sparse 1 GiB graph file or a table folder), or leaves its temporary sibling and a
        partial --out behind and fails, as one stopped by a timeout would."""
        d = self.tmp / build
        d.mkdir()
        for tool in ("nvm-block-bench", "taxi-query", "bfs", "cc"):
            (d / tool).write_text(
                f'#!/bin/bash\necho "{build} {tool} $*" >> "{self.tmp}/calls.log"\n')
            (d / tool).chmod(0o755)
        make = ('case "$1" in graph-gen) truncate -s 1G "$out" ;; *) mkdir -p "$out" ;; esac'
                if data_ok else
                'touch "$out" "$(dirname "$out")/.$(basename "$out").tmp.x"; '
                'echo broke >&2; exit 3')
        (d / "bam-data").write_text(
            f'#!/bin/bash\necho "{build} bam-data $*" >> "{self.tmp}/data.log"\n'
            'out=""; prev=""; for a in "$@"; do [ "$prev" = --out ] && out=$a; prev=$a; done\n'
            f"{make}\n")
        (d / "bam-data").chmod(0o755)
        return d

    def test_application_points_make_their_data_once_with_the_new_build(self):
        old, new = self.app_stand_ins("old"), self.app_stand_ins("new")
        data = self.tmp / "data"
        r = sh("regression-points.sh", OLD=old, NEW=new, OUT=self.tmp / "out", ROUNDS=1,
               POINTS="taxi_q0q5 bfs_kron cc_kron", TAXI_ROWS=1000, GRAPH_SCALE=10, DATA=data)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        made = (self.tmp / "data.log").read_text().splitlines()
        self.assertEqual(made, [f"new bam-data taxi-gen --rows 1000 --seed 1 "
                                f"--out {data}/taxi-1000",
                                f"new bam-data graph-gen kron --scale 10 --edge-factor 16 --seed 1 "
                                f"--out {data}/kron-s10.csr"])
        # A second call finds the data there and makes none.
        r = sh("regression-points.sh", OLD=old, NEW=new, OUT=self.tmp / "out2", ROUNDS=1,
               POINTS="bfs_kron", GRAPH_SCALE=10, DATA=data)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(len((self.tmp / "data.log").read_text().splitlines()), 2)
        calls = [c.split() for c in (self.tmp / "calls.log").read_text().splitlines()][:6]
        self.assertEqual([c[:2] for c in calls], [["old", "taxi-query"], ["new", "taxi-query"],
                                                  ["old", "bfs"], ["new", "bfs"],
                                                  ["old", "cc"], ["new", "cc"]])
        taxi = calls[0]
        self.assertEqual(taxi[taxi.index("--data") + 1], f"{data}/taxi-1000")
        # (1000 rows x 48 x 9 / 8) / 4 SSDs + 64 MiB, in whole 4 KiB blocks (taxi.sh --media)
        media = (13500 + (64 << 20) + 4095) // 4096 * 4096
        self.assertIn(f"storage.media.size_bytes={media}", taxi)
        for want in ("--verify", "cache.line_size=4096,512", "taxi.queries=q0,q5"):
            self.assertIn(want, taxi)
        bfs, cc = calls[2], calls[4]
        for c in (bfs, cc):
            self.assertEqual(c[c.index("--graph") + 1], f"{data}/kron-s10.csr")
            # 1 GiB file: (256 + 65) MiB of media per SSD, a cache of an eighth (graph-apps.sh)
            self.assertIn(f"storage.media.size_bytes={321 << 20}", c)
            self.assertIn(f"cache.capacity={128 << 20}", c)
            self.assertIn("graph.access=bam", c)
            self.assertIn("--verify", c)
        self.assertEqual(bfs[bfs.index("--sources") + 1], "4")
        self.assertNotIn("--sources", cc)
        self.assertTrue(cc[-1].endswith("cc_kron_old_1.json"))

    def test_an_application_point_without_its_data_fails_the_run_and_the_others_still_run(self):
        old, new = self.stand_in("old"), self.app_stand_ins("new", data_ok=False)
        data = self.tmp / "data"
        r = sh("regression-points.sh", OLD=old, NEW=new, OUT=self.tmp / "out", ROUNDS=1,
               POINTS="bfs_kron cc_kron table_qd1_null", DATA=data, GRAPH_SCALE=12,
               TABLE_PROTOCOL="emulator")
        self.assertEqual(r.returncode, 1, "the table point ran for both builds: the data failed")
        self.assertIn("no data for bfs_kron", r.stderr)
        self.assertIn("no data for cc_kron", r.stderr)
        self.assertIn("broke", r.stderr)  # the generator's log's tail
        self.assertEqual(list(data.iterdir()), [], "nothing partial left, nor the temporary file")
        # tried once: bfs_kron's failure stands for cc_kron's graph
        self.assertEqual(len((self.tmp / "data.log").read_text().splitlines()), 1)
        calls = (self.tmp / "calls.log").read_text().splitlines()
        self.assertEqual([c.split()[:2] for c in calls],
                         [["old", "--backend"], ["new", "nvm-block-bench"]])
        self.assertIn("--model null", calls[0])

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

    def test_the_table_gives_each_builds_rate_over_its_own_processes_ceiling(self):
        # Two processes of the old build with different ceilings, one of the new; QD1 has none.
        md, rows = self.table({"table_optane10_1g_old_1.json": "optane10_1g.json",
                               "table_optane10_1g_old_2.json": "ideal_512_1g.json",
                               "table_optane10_1g_new_1.json": "ideal_512_4g.json",
                               "table_qd1_null_old_1.json": "qd1_null.json"})
        share = {}
        for f in ("optane10_1g.json", "ideal_512_1g.json", "ideal_512_4g.json"):
            job = json.loads((OLD_REPORTS / f).read_text())["jobs"][0]["bamkit"]
            share[f] = job["iops"] / job["ceilings"]["direct_reads_per_s"]
        old = (share["optane10_1g.json"] + share["ideal_512_1g.json"]) / 2  # median of two
        self.assertAlmostEqual(rows[0]["old"]["of_ceiling"], old, places=9)
        self.assertAlmostEqual(rows[0]["new"]["of_ceiling"], share["ideal_512_4g.json"], places=9)
        self.assertIn(f"| {old:.3f} / {share['ideal_512_4g.json']:.3f} |", md)
        self.assertIsNone(rows[1]["old"]["of_ceiling"])  # no ceiling measured
        self.assertIn("| - / - |", md)

    def test_no_share_of_the_ceiling_at_another_io_size_or_for_cache_bench(self):
        out = self.tmp / "out"
        out.mkdir()
        doc = json.loads((OLD_REPORTS / "optane10_1g.json").read_text())
        doc["jobs"][0]["bamkit"]["ceilings"]["io_size"] = 4096  # measured at another I/O size
        (out / "table_optane10_1g_old_1.json").write_text(json.dumps(doc))
        shutil.copy(OLD_REPORTS / "optane10_1g.json", out / "table_optane10_1g_new_1.json")
        cb = REPO / "results" / "regression-points" / "h100" / "2026-11-25-fbdb96a"
        shutil.copy(cb / "cb_cold_ideal_4k_old_1.json", out / "cb_cold_ideal_4k_old_1.json")
        run("gpu/regression-table.py", out, "--json", self.tmp / "rows.json", check=0)
        rows = {r["point"]: r for r in json.loads((self.tmp / "rows.json").read_text())}
        self.assertIsNone(rows["table_optane10_1g"]["old"]["of_ceiling"])
        self.assertIsNotNone(rows["table_optane10_1g"]["new"]["of_ceiling"])
        cb_doc = json.loads((cb / "cb_cold_ideal_4k_old_1.json").read_text())
        self.assertIsNotNone(cb_doc["jobs"][0]["bamkit"].get("ceilings"))  # it has one: not used
        self.assertIsNone(rows["cb_cold_ideal_4k"]["old"]["of_ceiling"])

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

    def test_the_applications_rows_give_their_own_figure_named_by_their_sweep(self):
        taxi = REPO / "results" / "taxi" / "h100" / "2026-11-25-5b2fabb" / "taxi_1ssd.json"
        bfs = (REPO / "results" / "graph-apps" / "h200" / "2026-11-25-d7a8c1d" /
               "bfs-urand-s27-optane-p5800x-x4.json")
        out = self.tmp / "out"
        out.mkdir()
        cc = bfs.with_name("cc-urand-s27-optane-p5800x-x4.json")
        for name, src in (("taxi_q0q5_old_1", taxi), ("taxi_q0q5_new_1", taxi),
                          ("bfs_kron_old_1", bfs), ("bfs_kron_new_1", bfs), ("cc_kron_old_1", cc)):
            shutil.copy(src, out / f"{name}.json")
        md = run("gpu/regression-table.py", out, "--json", self.tmp / "rows.json", check=0).stdout
        rows = json.loads((self.tmp / "rows.json").read_text())
        jobs = json.loads(taxi.read_text())["jobs"]
        # named by the dotted settings the jobs differ in, numbers as %g (30.0 -> 30)
        self.assertEqual(rows[0]["point"], "taxi_q0q5 taxi.min_distance=30, taxi.queries=q0")
        self.assertEqual([r["point"] for r in rows][:len(jobs)],
                         [f"taxi_q0q5 taxi.min_distance={t['min_distance']:g}, "
                          f"taxi.queries={t['queries']}"
                          for t in (j["bamkit"]["config"]["taxi"] for j in jobs)])
        for row, job in zip(rows, jobs):
            bam = [i for i in job["bamkit"]["stats"]["taxi"]["impls"] if i["impl"] == "bam"][0]
            self.assertEqual(row["unit"], "M rows/s")
            self.assertAlmostEqual(row["old"]["median"], bam["rows_per_s"] / 1e6, places=6)
            self.assertAlmostEqual(row["new_over_old"], 1.0, places=12)
        teps = json.loads(bfs.read_text())["bamkit"]["stats"]["graph"]["teps"]
        bfs_row = [r for r in rows if r["point"] == "bfs_kron"][0]
        self.assertEqual(bfs_row["unit"], "M TEPS")
        self.assertAlmostEqual(bfs_row["new"]["median"], teps / 1e6, places=6)
        self.assertIn("| bfs_kron | M TEPS |", md)
        # cc: edges scanned per second (its steps vary from run to run), not its TEPS
        g = json.loads(cc.read_text())["bamkit"]["stats"]["graph"]
        cc_row = [r for r in rows if r["point"] == "cc_kron"][0]
        self.assertEqual(cc_row["unit"], "M edges/s")
        self.assertGreater(g["steps"], 1)
        self.assertAlmostEqual(cc_row["old"]["median"], g["edges_read"] / g["time_s"] / 1e6,
                               places=6)
        self.assertNotAlmostEqual(cc_row["old"]["median"], g["teps"] / 1e6, places=0)


if __name__ == "__main__":
    unittest.main()
