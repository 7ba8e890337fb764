"""scripts/sweep on host-emulated SSDs: the folder it writes, resuming after an interruption,
failed and timed-out points, slices and packs, invalid specs, and every checked-in spec."""
import csv
import json
import signal
import subprocess
import sys
import tarfile
import time
import unittest

from script_test import REPO, BUILD, TempDirTest, run, write_spec

sys.path.insert(0, str(REPO / "scripts" / "pylib"))
import figures  # noqa: E402
import perfcheck  # noqa: E402
import reports  # noqa: E402
import sweeplib  # noqa: E402

NBB = ["--bin", BUILD]


def spec(**over):
    s = {"name": "t-host", "tool": "nvm-block-bench",
         "set": {"storage.backend": "host", "workload.threads": 1, "workload.ios": 500,
                 "storage.media.size_bytes": 4194304, "queues.depth": 32},
         "product": {"storage.ssd_count": [1, 2]},
         "zip": {"workload.io_size": [512, 4096]},
         "inner": {"workload.op": ["read", "write"]},
         "limit_s": 60}
    s.update(over)
    return s


def status(out, pid):
    return json.loads((out / f"{pid}.status.json").read_text())


def ids(out):
    return [p["id"] for p in json.loads((out / "sweep.json").read_text())["points"]]


def interrupt_when(test, path, out, ready, limit_s=60):
    """Runs the sweep of `path` into `out`, sends it SIGTERM once ready(point ids) holds, and
    checks that it says so and exits 1. Returns the point ids."""
    p = subprocess.Popen(["/usr/bin/python3", REPO / "scripts/sweep", path, "--out", out, *NBB],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    points = None
    deadline = time.time() + limit_s
    while time.time() < deadline:
        if (out / "sweep.json").exists():
            points = ids(out)
            if ready(points):
                break
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    text, _ = p.communicate(timeout=60)
    test.assertEqual(p.returncode, 1, text)
    test.assertIn("interrupted (SIGTERM)", text)
    return points


class SweepTest(TempDirTest):
    def test_writes_every_point_the_machine_and_a_summary(self):
        out = self.tmp / "out"
        r = run("sweep", write_spec(self.tmp, spec()), "--out", out, *NBB, check=0)
        self.assertIn("[4/4]", r.stdout)
        self.assertIn("4 ok, 0 failed, 0 not run", r.stdout)
        points = ids(out)
        self.assertEqual(points, ["p000_ssd_count-1_io_size-512", "p001_ssd_count-1_io_size-4096",
                                  "p002_ssd_count-2_io_size-512", "p003_ssd_count-2_io_size-4096"])
        for p in points:
            for suffix in (".json", ".csv", ".log", ".status.json"):
                self.assertTrue((out / f"{p}{suffix}").is_file(), p + suffix)
            self.assertEqual(status(out, p)["exit_status"], 0)
            report = json.loads((out / f"{p}.json").read_text())
            self.assertEqual(len(report["jobs"]), 2)  # the inner sweep: one process, two jobs
        machine = json.loads((out / "machine.json").read_text())
        for k in ("gpu", "gpu_driver", "cpu", "cores", "kernel", "commit", "date"):
            self.assertIn(k, machine)
        # Every point's status and the sweep's record name the commit the points ran.
        for p in points:
            st = status(out, p)
            self.assertEqual((st["commit"], st["gpu_driver"]),
                             (machine["commit"], machine["gpu_driver"]))
        self.assertEqual(json.loads((out / "sweep.json").read_text())["commit"], machine["commit"])
        rows = list(csv.DictReader((out / "summary.csv").read_text().splitlines()))
        self.assertEqual(len(rows), 8)
        self.assertEqual([(r["storage.ssd_count"], r["workload.io_size"], r["workload.op"]) for r in rows[:4]],
                         [("1", "512", "read"), ("1", "512", "write"), ("1", "4096", "read"), ("1", "4096", "write")])
        for r in rows:
            self.assertEqual(r["exit_status"], "0")
            self.assertEqual(r["ios"], "500")
            self.assertGreater(float(r["iops"]), 0)

    def test_resumes_after_an_interruption_without_redoing_finished_points(self):
        # The middle point must outlast the look for its log and the signal: 100,000 host I/Os
        # took 0.16 s, and on a loaded machine it finished first (the test then failed).
        s = spec(product={}, zip={"workload.ios": [300, 2000000, 300]}, inner={},
                 set={**spec()["set"], "workload.outstanding": 1})
        path, out = write_spec(self.tmp, s), self.tmp / "out"
        # Interrupted while the second (long) point runs.
        points = interrupt_when(self, path, out, lambda pts: (out / f"{pts[0]}.status.json").exists()
                                and (out / f"{pts[1]}.log").exists())
        first = status(out, points[0])
        self.assertFalse((out / f"{points[1]}.status.json").exists())
        self.assertFalse((out / f"{points[1]}.json").exists())  # an unfinished point leaves nothing
        self.assertFalse((out / f"{points[2]}.log").exists())
        r = run("sweep", path, "--out", out, *NBB, check=0)
        self.assertIn("1 already finished, 2 to run", r.stdout)
        self.assertEqual(status(out, points[0]), first)  # not run again
        self.assertEqual([status(out, q)["exit_status"] for q in points], [0, 0, 0])

    def test_a_failed_point_is_recorded_and_the_sweep_goes_on(self):
        s = spec(product={}, zip={}, inner={}, groups=[
            {"name": "ok", "zip": {"workload.io_size": [512, 700, 4096]}},  # 700: the tool refuses it
            {"name": "slow", "set": {"workload.ios": 100000000, "workload.outstanding": 1}, "limit_s": 1},
            {"name": "after", "set": {"workload.ios": 200}}])
        path, out = write_spec(self.tmp, s), self.tmp / "out"
        r = run("sweep", path, "--out", out, *NBB, check=1)
        self.assertIn("3 ok, 2 failed, 0 not run", r.stdout)
        points = ids(out)
        got = [(status(out, p)["exit_status"], status(out, p)["timed_out"]) for p in points]
        self.assertEqual(got, [(0, False), (2, False), (0, False), (124, True), (0, False)])
        self.assertIn("workload.io_size", (out / f"{points[1]}.log").read_text())
        self.assertIn("killed after the point's limit", (out / f"{points[3]}.log").read_text())
        rows = {r["id"]: r for r in csv.DictReader((out / "summary.csv").read_text().splitlines())}
        self.assertEqual(rows[points[1]]["exit_status"], "2")
        self.assertEqual(rows[points[3]]["timed_out"], "true")
        r = run("sweep", path, "--out", out, *NBB, check=1)  # failed points count as finished
        self.assertIn("5 already finished, 0 to run", r.stdout)
        r = run("sweep", path, "--out", out, *NBB, "--retry-failed", "--points", "1", check=1)
        self.assertIn("0 already finished, 1 to run", r.stdout)

    def processes_sweep(self):
        """A sweep of 3 processes per point (2 runs each): the point of 512 B I/Os succeeds, the
        one of 700 B fails (the tool refuses the size). Returns (spec path, out, good id, bad
        id)."""
        s = spec(product={}, zip={"workload.io_size": [512, 700]}, processes=3, repeat=2)
        path, out = write_spec(self.tmp, s), self.tmp / "out"
        r = run("sweep", path, "--out", out, *NBB, check=1)
        self.assertIn("1 ok, 1 failed", r.stdout)
        good, bad = ids(out)
        return path, out, good, bad

    @staticmethod
    def process_record(out, pid):
        return reports.read_processes(out / f"{pid}.processes.json.gz")

    @staticmethod
    def job_rates(run_record):
        """Per job of a process: (total IOPS, its 2 runs' min, max)."""
        out = []
        for j in json.loads(run_record["report"])["jobs"]:
            rep = j["bamkit"]["repeat"]
            out.append((j["read"]["iops"] + j["write"]["iops"], rep["iops_min"], rep["iops_max"]))
        return out

    def test_processes_report_the_median_process_and_keep_every_one(self):
        _, out, good, _ = self.processes_sweep()
        st, rec = status(out, good), self.process_record(out, good)
        self.assertEqual((st["exit_status"], st["processes"]), (0, 3))
        self.assertEqual((rec["processes"], rec["ran"]), (3, 3))
        self.assertEqual([x["process"] for x in rec["runs"]], [1, 2, 3])
        self.assertEqual(rec["median_process"], st["median_process"])
        for k in ("command", "commit", "gpu", "gpu_driver", "host", "started"):  # what ran, where
            self.assertEqual(rec[k], st[k], k)
        self.assertEqual((out / f"{good}.log").read_text().count("$ "), 3)
        # The score: the geometric mean of the process's two jobs' total IOPS (read, write).
        for x in rec["runs"]:
            rates = [r[0] for r in self.job_rates(x)]
            self.assertAlmostEqual(x["score_iops"], (rates[0] * rates[1]) ** 0.5,
                                   delta=1e-6 * x["score_iops"])
        # The point's own report and CSV are the median process's, byte for byte.
        chosen = rec["runs"][rec["median_process"] - 1]
        self.assertEqual(chosen["score_iops"], sorted(x["score_iops"] for x in rec["runs"])[1])
        self.assertEqual((out / f"{good}.json").read_text(), chosen["report"])
        self.assertEqual((out / f"{good}.csv").read_text(), chosen["csv"])
        # Not a report itself: a folder's reports are the points'.
        names = [f.name for f, _ in reports.report_files(out)]
        self.assertIn(f"{good}.json", names)
        self.assertFalse(any(n.endswith(".processes.json") for n in names))

    def test_the_processes_spread_reaches_the_summary_the_figures_and_perf_check(self):
        _, out, good, _ = self.processes_sweep()
        per_run = [self.job_rates(x) for x in self.process_record(out, good)["runs"]]
        rows = [r for r in csv.DictReader((out / "summary.csv").read_text().splitlines())
                if r["id"] == good]
        self.assertEqual(len(rows), 2)
        for j, row in enumerate(rows):
            rates = sorted(p[j][0] for p in per_run)
            self.assertEqual(row["processes"], "3")
            for col, want in (("min", rates[0]), ("median", rates[1]), ("max", rates[2])):
                self.assertAlmostEqual(float(row[f"process_iops_{col}"]), want, delta=1e-3)
        # A job's range: every process's runs of it (each process's min and max of its 2 runs).
        low = [min(p[j][1] for p in per_run) for j in (0, 1)]
        high = [max(p[j][2] for p in per_run) for j in (0, 1)]
        jobs = [j for j in figures.session_jobs(out) if j.file.name == f"{good}.json"]
        self.assertEqual(sorted(j.index for j in jobs), [0, 1])
        for j in jobs:
            lo, hi = j.spread()
            self.assertAlmostEqual(lo * j.iops, low[j.index], delta=1e-6 * j.iops)
            self.assertAlmostEqual(hi * j.iops, high[j.index], delta=1e-6 * j.iops)
        _, entries = perfcheck.load(out)
        for j in (0, 1):
            m = entries[f"{good}#{j}"].metrics["iops"]
            self.assertAlmostEqual(m.lo, low[j], delta=1e-6 * m.value)
            self.assertAlmostEqual(m.hi, high[j], delta=1e-6 * m.value)
        # The record is gzip (the same bytes for the same record); results stored before that
        # (uncompressed .processes.json) read the same.
        gz = out / f"{good}.processes.json.gz"
        text = json.dumps(self.process_record(out, good), indent=1) + "\n"
        self.assertEqual(gz.read_bytes(), reports.processes_bytes(text))
        self.assertLess(gz.stat().st_size, len(text))
        spread = reports.process_runs(out / f"{good}.json")
        gz.rename(out / f"{good}.processes.json")
        (out / f"{good}.processes.json").write_text(text)
        self.assertEqual(reports.process_runs(out / f"{good}.json"), spread)
        self.assertEqual(len(spread), 2)
        # A damaged record is no spread, not a crash.
        (out / f"{good}.processes.json").unlink()
        gz.write_bytes(b"not gzip")
        self.assertEqual(reports.process_runs(out / f"{good}.json"), {})

    def test_a_failing_process_ends_its_point(self):
        path, out, _, bad = self.processes_sweep()
        st, rec = status(out, bad), self.process_record(out, bad)
        self.assertEqual((st["exit_status"], st["processes"], st["median_process"]), (2, 1, 1))
        self.assertEqual((rec["ran"], rec["runs"][0]["exit_status"]), (1, 2))
        self.assertIn("workload.io_size", (out / f"{bad}.log").read_text())
        # Run again: both count as finished; retried, the failed point runs again from scratch.
        r = run("sweep", path, "--out", out, *NBB, check=1)
        self.assertIn("2 already finished, 0 to run", r.stdout)
        r = run("sweep", path, "--out", out, *NBB, "--retry-failed", check=1)
        self.assertIn("1 already finished, 1 to run", r.stdout)
        self.assertEqual(self.process_record(out, bad)["ran"], 1)

    def test_a_point_of_processes_interrupted_or_timed_out(self):
        # Interrupted in its second process, the point leaves no files and runs again whole.
        long_set = {**spec()["set"], "workload.outstanding": 1, "workload.ios": 600000}
        # A limit well above a process's time on a loaded CI machine (scripts/test runs this beside
        # the C++ tests): with 60 s a rerun's process timed out there.
        s = spec(product={}, zip={}, inner={}, set=long_set, processes=3, limit_s=900)
        path, out = write_spec(self.tmp, s), self.tmp / "out"
        def in_second_process(pts):
            log = out / f"{pts[0]}.log"
            return log.exists() and "process 2 of 3" in log.read_text()
        pid = interrupt_when(self, path, out, in_second_process, limit_s=120)[0]
        for suffix in (".json", ".csv", ".log", ".status.json", ".processes.json.gz"):
            self.assertFalse((out / f"{pid}{suffix}").exists(), suffix)
        r = run("sweep", path, "--out", out, *NBB, check=0)
        self.assertIn("0 already finished, 1 to run", r.stdout)
        self.assertEqual(self.process_record(out, pid)["ran"], 3)
        # Past its limit, a process ends the point as timed out; the limit holds per process.
        s = spec(product={}, zip={}, inner={}, set=long_set, processes=3, limit_s=0.3)
        path, out = write_spec(self.tmp, s), self.tmp / "out2"
        run("sweep", path, "--out", out, *NBB, check=1)
        pid = ids(out)[0]
        st = status(out, pid)
        self.assertEqual((st["exit_status"], st["timed_out"], st["processes"]), (124, True, 1))
        self.assertIn("limit of 0.3 s (per process)", (out / f"{pid}.log").read_text())

    def test_slices_fill_one_folder_and_pack_it(self):
        path = write_spec(self.tmp, spec())
        out, full = self.tmp / "sliced", self.tmp / "full"
        run("sweep", path, "--out", out, *NBB, "--points", "0-1", "--pack", self.tmp / "a.tar.gz", check=0)
        self.assertEqual(len(list(out.glob("*.status.json"))), 2)
        r = run("sweep", path, "--out", out, *NBB, "--points", "2-", "--pack", self.tmp / "b.tar.gz", check=0)
        self.assertIn("2 points selected of 4", r.stdout)
        layout = json.loads((out / "sweep.json").read_text())["layout"]
        self.assertRegex(layout, r"^results/t-host/[a-z0-9-]+/\d{4}-\d\d-\d\d-.+$")
        with tarfile.open(self.tmp / "a.tar.gz") as t:
            self.assertEqual(len([n for n in t.getnames() if n.endswith(".status.json")]), 2)
        with tarfile.open(self.tmp / "b.tar.gz") as t:
            names = t.getnames()
        self.assertTrue(all(n.startswith(layout + "/") for n in names), names)
        for f in ("sweep.json", "machine.json", "summary.csv"):
            self.assertIn(f"{layout}/{f}", names)
        self.assertEqual(len([n for n in names if n.endswith(".status.json")]), 4)
        self.assertFalse(any("/.work" in n for n in names))
        run("sweep", path, "--out", full, *NBB, check=0)
        run("perf-check", "--counts-only", full, out, check=0)  # the slices did what one run does
        run("sweep", path, "--out", out, *NBB, "--points", "7", check=2)

    def test_invalid_specs_are_refused_naming_the_key(self):
        cases = [(spec(product={"workload.thread": [1]}), "workload.thread"),
                 (spec(zip={"workload.io_size": [512], "workload.ios": [1, 2]}), "zip"),
                 (spec(set={"report.json": "x.json"}), "report.json"),
                 (spec(inner={"storage.model": [{"latency_us": 1}]}), "inner.storage.model"),
                 (spec(repeat=0), "repeat"),
                 (spec(processes=0), "processes"),
                 (spec(processes=2), "processes"),
                 (spec(processes=2.5), "processes"),
                 (spec(processes=True), "processes"),
                 (spec(processes=101), "processes"),
                 (spec(colour="red"), "colour")]
        for s, key in cases:
            r = run("sweep", write_spec(self.tmp, s), "--out", self.tmp / "x", *NBB, check=2)
            self.assertIn(key, r.stderr)
        # A folder holds one sweep: another spec is refused there.
        run("sweep", write_spec(self.tmp, spec()), "--out", self.tmp / "o", *NBB, "--points", "0", check=0)
        r = run("sweep", write_spec(self.tmp, spec(limit_s=30)), "--out", self.tmp / "o", *NBB, check=2)
        self.assertIn("other points", r.stderr)

    def test_set_overrides_are_read_as_the_tools_read_them(self):
        # parse_cli_value's rule (lib/src/config/config_io.cpp): a string or enum key, and
        # storage.model unless it is {...}, takes the text unless quoted; others are JSON.
        path = write_spec(self.tmp, spec())
        got = sweeplib.load_spec(path, ["storage.model=null", "storage.protocol=emulator",
                                        "workload.threads=4", 'report.formats=["json"]',
                                        "queues.depth=64"])["set"]
        self.assertEqual(got["storage.model"], "null")  # the preset, not JSON null
        self.assertEqual(got["storage.protocol"], "emulator")
        self.assertEqual(got["workload.threads"], 4)
        self.assertEqual(got["report.formats"], ["json"])
        self.assertEqual(got["queues.depth"], 64)
        self.assertEqual(sweeplib.load_spec(path, ['storage.model="null"'])["set"]["storage.model"],
                         "null")
        self.assertEqual(sweeplib.load_spec(path, ['storage.model= {"latency_us": 3}'])["set"]
                         ["storage.model"], {"latency_us": 3})
        # NaN and Infinity are not JSON to the tools: the text stays text (and no NaN reaches
        # sweep.json, which strict JSON readers would refuse).
        nan = sweeplib.load_spec(path, ["workload.duration_s=NaN", "workload.threads=-Infinity",
                                        'storage.model={"latency_us": NaN}'])["set"]
        self.assertEqual(nan["workload.duration_s"], "NaN")
        self.assertEqual(nan["workload.threads"], "-Infinity")
        self.assertEqual(nan["storage.model"], '{"latency_us": NaN}')
        # What the point's command passes back is what the tool reads: the preset's name.
        pt = sweeplib.expand(sweeplib.load_spec(path, ["storage.model=null"]))[0]
        cmd = sweeplib.command(pt, "nbb", self.tmp, self.tmp)
        self.assertIn('storage.model="null"', cmd)
        r = run("sweep", path, "--set", "workload.thread=1", "--check", *NBB, check=2)
        self.assertIn("workload.thread", r.stderr)
        # An object naming a key twice is refused, as the tools refuse it.
        r = run("sweep", path, "--set", 'storage.model={"latency_us": 1, "latency_us": 2}',
                "--check", *NBB, check=2)
        self.assertIn("storage.model", r.stderr)
        self.assertIn("'latency_us' given twice", r.stderr)

    def test_every_checked_in_spec_is_valid(self):
        specs = sorted((REPO / "configs" / "sweeps").glob("*.json")) + \
            sorted((REPO / "configs" / "perf-baselines").glob("*.sweep.json"))
        self.assertGreaterEqual(len(specs), 8)
        for s in specs:
            r = run("sweep", s, "--check", *NBB)
            self.assertEqual(r.returncode, 0, f"{s.name}: {r.stdout}{r.stderr}")


if __name__ == "__main__":
    unittest.main()
