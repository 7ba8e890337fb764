"""scripts/gpu/engine-split.sh and engine-split.py. The runner, with stand-in binaries that record
how they were called: shapes paired in order (an odd last one with `auto` again), each pair one
regression-points.sh call of one build with the first shape as the old build's arguments and the
second as the new one's, `auto` adding no engine setting and N the first SMs' N blocks of WARPS
warps, ARGS for every process; table_ points in every protocol, the applications' in the first
only; a failed process fails the run while the other pairs run; SHAPES without auto, with a
block count twice or with a shape that is neither refused before anything runs. The table, over the measured calls of
results/io-path/h200/2026-12-01-even-default/: each cell recomputed from its report, and the
stored split.md files are its output."""
import json
import os
import subprocess
import unittest

from script_test import REPO, TempDirTest, run

GPU = REPO / "scripts" / "gpu"
MEASURED = REPO / "results" / "io-path" / "h200" / "2026-12-01-even-default"
SETTINGS = ("BIN", "OUT", "SHAPES", "WARPS", "POINTS", "PROTOCOLS", "OLD", "NEW", "ROUNDS",
            "ARGS", "NEW_ARGS", "OLD_ARGS", "TABLE_PROTOCOL", "TAXI_ROWS", "GRAPH_SCALE", "DATA")


def sh(*args, **settings):
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    env.update({k: str(v) for k, v in settings.items()})
    return subprocess.run(["bash", str(GPU / "engine-split.sh"), *map(str, args)],
                          capture_output=True, text=True, timeout=60, cwd=REPO, env=env)


class EngineSplit(TempDirTest):
    def stand_ins(self, fail_on=None):
        """A build whose nvm-block-bench and taxi-query append '<tool> <arguments>' to calls.log
        (and fail where an argument is `fail_on`) and whose bam-data makes its --out folder."""
        d = self.tmp / "bin"
        d.mkdir()
        fail = (f'for a in "$@"; do [ "$a" = "{fail_on}" ] && exit 1; done; exit 0\n'
                if fail_on else "")
        for tool in ("nvm-block-bench", "taxi-query"):
            (d / tool).write_text(f'#!/bin/bash\necho "{tool} $*" >> "{self.tmp}/calls.log"\n'
                                  + fail)
            (d / tool).chmod(0o755)
        (d / "bam-data").write_text(
            '#!/bin/bash\nout=""; prev=""; for a in "$@"; do [ "$prev" = --out ] && out=$a; '
            'prev=$a; done\nmkdir -p "$out"\n')
        (d / "bam-data").chmod(0o755)
        return d

    def test_shapes_are_paired_in_order_and_the_applications_run_in_the_first_protocol(self):
        out = self.tmp / "out"
        r = sh(BIN=self.stand_ins(), OUT=out, SHAPES="auto 16 48", WARPS=5,
               POINTS="table_qd1_null taxi_q0q5", PROTOCOLS="hardware emulator",
               TAXI_ROWS=1000, DATA=self.tmp / "data", ARGS="--set workload.seed=7")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sorted(p.name for p in out.iterdir() if p.is_dir()),
                         ["emulator-48-auto", "emulator-auto-16", "hardware-48-auto",
                          "hardware-auto-16"])
        calls = (self.tmp / "calls.log").read_text().splitlines()
        # hardware: 2 pairs x (table + taxi) x 2 shapes; emulator: 2 pairs x table x 2 shapes
        self.assertEqual(len(calls), 12, calls)
        self.assertEqual(sum(c.startswith("taxi-query") for c in calls), 4)
        even = ["--set", "gpu.engine_placement=first-sms", "--set", "gpu.engine_blocks=16", "--set",
                "gpu.engine_warps_per_block=5"]
        # hardware-auto-16's table point, the old build: auto, the scheduler's (given, which
        # nvm-block-bench's default over 2 GiB of pinned media is not)
        first = calls[0].split()
        self.assertIn("storage.protocol=hardware", first)
        self.assertEqual([a for a in first if a.startswith("gpu.engine")],
                         ["gpu.engine_placement=scheduler"], first)
        second = calls[1].split()  # the same point, the new build: 16 blocks on the first SMs
        self.assertEqual(second[-2 - len(even):-2], even)
        self.assertTrue(second[-1].endswith("hardware-auto-16/table_qd1_null_new_1.json"))
        last = calls[-1].split()  # emulator-48-auto's table point, the new build: auto again
        self.assertIn("storage.protocol=emulator", last)
        self.assertEqual([a for a in last if a.startswith("gpu.engine")],
                         ["gpu.engine_placement=scheduler"], last)
        self.assertIn("gpu.engine_blocks=48", calls[-2])
        # ARGS goes to every process, before the shape's settings.
        self.assertTrue(all("--set workload.seed=7" in c for c in calls), calls)
        self.assertEqual(second[-4 - len(even):-2 - len(even)], ["--set", "workload.seed=7"])

    def test_the_applications_alone_run_in_the_first_protocol_only(self):
        out = self.tmp / "out"
        r = sh(BIN=self.stand_ins(), OUT=out, SHAPES="auto 16", POINTS="taxi_q0q5",
               PROTOCOLS="emulator hardware", TAXI_ROWS=1000, DATA=self.tmp / "data")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual([p.name for p in out.iterdir() if p.is_dir()], ["emulator-auto-16"])
        self.assertEqual(len((self.tmp / "calls.log").read_text().splitlines()), 2)

    def test_a_failed_process_fails_the_run_and_the_other_pairs_still_run(self):
        r = sh(BIN=self.stand_ins(fail_on="gpu.engine_blocks=16"), OUT=self.tmp / "out",
               SHAPES="auto 16 48 80", POINTS="table_qd1_null", PROTOCOLS="hardware")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("== hardware auto 16 rc=1", r.stdout)
        self.assertIn("== hardware 48 80 rc=0", r.stdout)
        self.assertEqual(len((self.tmp / "calls.log").read_text().splitlines()), 4)

    def test_shapes_the_table_cannot_use_are_refused_before_anything_runs(self):
        stand_ins = self.stand_ins()
        for shapes, why in (("auto 16 spread", "shape 'spread' is not auto or a block count"),
                            ("16 48", "SHAPES has no auto, which the table compares with"),
                            ("auto 16 48 16", "shape 16 is in SHAPES twice")):
            r = sh(BIN=stand_ins, OUT=self.tmp / "out", SHAPES=shapes, POINTS="table_qd1_null")
            self.assertEqual(r.returncode, 2, shapes)
            self.assertIn(why, r.stderr)
            self.assertFalse((self.tmp / "calls.log").exists(), shapes)

    def test_the_table_of_the_measured_calls(self):
        for call in ("call3", "call5"):
            md = run("gpu/engine-split.py", MEASURED / call, check=0).stdout
            self.assertEqual(md, (MEASURED / call / "split.md").read_text(), call)
        md = run("gpu/engine-split.py", MEASURED / "call3", check=0).stdout.splitlines()
        # The 80-block row's hardware cell, from its report.
        job = json.loads((MEASURED / "call3" / "hardware-64-80" /
                          "table_optane10_1g_new_1.json").read_text())["jobs"][0]
        b, pc = job["bamkit"], job["read"]["clat_ns"]["percentile"]
        share = b["iops"] / b["ceilings"]["direct_reads_per_s"]
        tail = pc["99.990000"] / pc["50.000000"]
        row = [line for line in md if line.startswith("| 80 x 4, first SMs |")][0]
        self.assertEqual(row.split(" | ")[1], f"{share:.3f}; {tail:.1f} x")
        # The automatic shape's two processes of each protocol, one value each.
        auto = [line for line in md if line.startswith("| automatic")][0].split(" | ")
        self.assertEqual(auto[1].count(";"), 2)
        # cc over the automatic shape's, with its steps (call 5).
        md5 = run("gpu/engine-split.py", MEASURED / "call5", check=0).stdout
        self.assertIn("| 1.000 (4) |", md5)

    def test_no_automatic_shape_is_an_error(self):
        out = self.tmp / "out"
        (out / "hardware-16-48").mkdir(parents=True)
        self.assertIn("no reports in", run("gpu/engine-split.py", out, check=1).stderr)
        # Reports of other shapes only: nothing to compare with.
        src = MEASURED / "call3" / "hardware-64-80"
        for name in ("table_optane10_1g_old_1.json", "table_optane10_1g_new_1.json"):
            (out / "hardware-16-48" / name).write_bytes((src / name).read_bytes())
        r = run("gpu/engine-split.py", out, check=1)
        self.assertIn("no process of the automatic shape", r.stderr)


if __name__ == "__main__":
    unittest.main()
