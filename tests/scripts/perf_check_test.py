"""scripts/perf-check: passes an identical run, catches a deliberately slower run and a
deliberately larger I/O count, respects the repeats' and a sweep point's processes' spread
(processes of one run each too), refuses differing workloads naming
the key, reads older reports (a key they lack counts as its default), sweep folders and Google
Benchmark JSON."""
import copy
import json
import subprocess
import unittest

from script_test import BUILD, TempDirTest, run

import reports  # noqa: E402 (scripts/pylib: on the path through script_test)

NBB = BUILD / "tools" / "nvm-block-bench" / "nvm-block-bench"
CB = BUILD / "tools" / "cache-bench" / "cache-bench"


def scale_rates(doc, f, latencies=True):
    """The report of a run f times as fast: rates times f, times (and, with `latencies`, the
    latency percentiles) over f, the repeats' rates too."""
    for job in doc["jobs"]:
        for d in ("read", "write"):
            for k in ("iops", "bw_bytes", "bw"):
                job[d][k] *= f
            for k in ("runtime",):
                job[d][k] /= f
            for k, v in job[d]["clat_ns"].get("percentile", {}).items():
                job[d]["clat_ns"]["percentile"][k] = v / f if latencies else v
        b = job.get("bamkit", doc["bamkit"])
        rep = b.get("repeat")
        if rep:
            rep["iops"] = [x * f for x in rep["iops"]]
            for k in ("iops_min", "iops_max", "iops_median"):
                rep[k] *= f
            if latencies:
                for k, v in rep.get("lat_us", {}).items():
                    rep["lat_us"][k] = [x / f for x in v]
        for k in ("accesses_per_s", "effective_GBps", "lookups_per_s", "miss_iops"):
            if k in b.get("stats", {}):
                b["stats"][k] *= f
    return doc


def tight(doc):
    """The report with its repeats' spread set to +-2 % of the median, rates and latency
    percentiles (a real host run's spread is whatever the machine gave)."""
    for job in doc["jobs"]:
        rep = job.get("bamkit", doc["bamkit"]).get("repeat")
        if rep:
            m = job["read"]["iops"] + job["write"]["iops"]
            rep.update(iops=[0.98 * m, m, 1.02 * m], iops_min=0.98 * m, iops_max=1.02 * m, iops_median=m)
            pct = job["read"]["clat_ns"]["percentile"]
            rep["lat_us"] = {name: [0.98 * v, v, 1.02 * v]
                             for name, v in (("p50", pct["50.000000"] / 1e3),
                                             ("p99", pct["99.000000"] / 1e3),
                                             ("p99.9", pct["99.900000"] / 1e3))}
    return doc


class PerfCheckTest(TempDirTest):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._dir = tempfile.TemporaryDirectory(prefix="bamkit-pc-")
        cls.d = d = __import__("pathlib").Path(cls._dir.name)
        # A real run of each tool, median of 3 (host-emulated SSDs, one thread: exact counts).
        subprocess.run([NBB, "--backend", "host", "--threads", "1", "--ios", "2000", "--io-size", "4096",
                        "--set", "storage.media.size_bytes=4194304", "--repeat", "3",
                        "--report", d / "nbb.json"], check=True, capture_output=True)
        subprocess.run([CB, "--backend", "host", "--threads", "1", "--set", "cache.line_size=512",
                        "--set", "cache.capacity=16384", "--set", "cache_bench.elements=16384",
                        "--set", "cache_bench.temperature=cold", "--set", "cache_bench.iterations=64",
                        "--set", "storage.media.size_bytes=1048576", "--report", d / "cb.json"],
                       check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def doc(self, name):
        return json.loads((self.d / name).read_text())

    def write(self, name, doc):
        p = self.tmp / name
        p.write_text(json.dumps(doc))
        return p

    def test_an_identical_run_passes(self):
        for name in ("nbb.json", "cb.json"):
            r = run("perf-check", self.d / name, self.d / name, check=0)
            self.assertIn("0 regressions, 0 changed counts", r.stdout)
            self.assertIn("ok", r.stdout)

    def test_a_slower_run_fails(self):
        base = self.write("base.json", tight(self.doc("nbb.json")))
        slow = self.write("slow.json", scale_rates(tight(self.doc("nbb.json")), 0.8))
        r = run("perf-check", base, slow, check=1)
        self.assertRegex(r.stdout, r"iops\s+rate.*-20\.0 %\s+REGRESSION")
        self.assertRegex(r.stdout, r"lat_p50_us\s+time.*REGRESSION")
        run("perf-check", base, slow, "--tolerance", "30", check=0)
        r = run("perf-check", slow, base, check=0)  # faster is not a failure
        self.assertIn("better", r.stdout)
        cb_slow = self.write("cb_slow.json", scale_rates(self.doc("cb.json"), 0.5))
        r = run("perf-check", self.d / "cb.json", cb_slow, check=1)
        self.assertRegex(r.stdout, r"accesses_per_s\s+rate.*REGRESSION")

    def test_a_larger_io_count_fails(self):
        more = self.doc("nbb.json")
        more["jobs"][0]["read"]["total_ios"] += 1
        r = run("perf-check", self.d / "nbb.json", self.write("more.json", more), check=1)
        self.assertRegex(r.stdout, r"read\.total_ios\s+count\s+2000\s+2001.*COUNT CHANGED")
        cb = self.doc("cb.json")
        cb["bamkit"]["stats"]["cache"]["misses"] += 5
        r = run("perf-check", "--counts-only", self.d / "cb.json", self.write("cb_more.json", cb), check=1)
        self.assertRegex(r.stdout, r"cache\.misses\s+count.*COUNT CHANGED")
        self.assertNotIn("rate", r.stdout.split("perf-check:")[0])  # --counts-only: no rates

    def test_within_the_baselines_spread_is_not_a_regression(self):
        base = self.doc("nbb.json")
        b = base["jobs"][0].get("bamkit", base["bamkit"])
        med = base["jobs"][0]["read"]["iops"]
        b["repeat"].update(iops=[0.7 * med, med, 1.1 * med], iops_min=0.7 * med, iops_max=1.1 * med)
        # 10 % worse, inside the baseline's min-max (the latencies left as they were)
        new = scale_rates(copy.deepcopy(base), 0.9, latencies=False)
        r = run("perf-check", self.write("b.json", base), self.write("n.json", new), check=0)
        self.assertRegex(r.stdout, r"iops\s+rate.*-10\.0 %\s+ok")
        new = scale_rates(copy.deepcopy(base), 0.6, latencies=False)  # outside it
        run("perf-check", self.write("b.json", base), self.write("n.json", new), check=1)

    def test_a_tail_within_the_baselines_runs_is_not_a_regression(self):
        # The baseline's runs' p99 spread from 0.7 to 1.5 times the job's (bamkit.repeat.lat_us):
        # a p99 30 % higher lies inside it, one 60 % higher outside.
        raw = self.doc("nbb.json")
        lat = raw["jobs"][0].get("bamkit", raw["bamkit"])["repeat"]["lat_us"]
        self.assertEqual(len(lat["p99"]), 3)  # the tool wrote one per run
        base = tight(raw)
        b = base["jobs"][0].get("bamkit", base["bamkit"])
        p99 = base["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"] / 1e3
        b["repeat"]["lat_us"]["p99"] = [0.7 * p99, p99, 1.5 * p99]

        def with_p99(f):
            new = copy.deepcopy(base)
            new["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"] *= f
            return self.write("n.json", new)
        bp = self.write("b.json", base)
        r = run("perf-check", bp, with_p99(1.3), check=0)
        self.assertRegex(r.stdout, r"read\.lat_p99_us\s+time.*\+30\.0 %\s+ok")
        r = run("perf-check", bp, with_p99(1.6), check=1)
        self.assertRegex(r.stdout, r"read\.lat_p99_us\s+time.*\+60\.0 %\s+REGRESSION")
        # A baseline without the runs' percentiles (an older report): judged by the tolerance.
        del b["repeat"]["lat_us"]
        run("perf-check", self.write("b.json", base), with_p99(1.3), check=1)

    def test_a_sweep_points_processes_widen_the_spread(self):
        # A sweep point of 3 processes (<id>.processes.json.gz beside its report): the baseline's
        # processes read 0.9-1.05 times its median process's IOPS and 0.8-1.4 times its p99. A
        # new run 8 % slower with a p99 30 % higher lies inside that, a p99 60 % higher outside;
        # without the processes (the report alone) 30 % is outside the runs' +-2 %.
        base = tight(self.doc("nbb.json"))
        pct = base["jobs"][0]["read"]["clat_ns"]["percentile"]

        def run_of(f_rate, f_p99):
            d = scale_rates(copy.deepcopy(base), f_rate, latencies=False)
            d["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"] = pct["99.000000"] * f_p99
            rep = d["jobs"][0].get("bamkit", d["bamkit"])["repeat"]
            rep["lat_us"]["p99"] = [x * f_p99 for x in rep["lat_us"]["p99"]]
            return d

        point = self.tmp / "base"
        point.mkdir()
        (point / "p0.json").write_text(json.dumps(base))
        procs = {"runs": [{"exit_status": 0, "report": json.dumps(run_of(f, g))}
                          for f, g in ((1.0, 1.0), (0.9, 0.8), (1.05, 1.4))]}
        (point / "p0.processes.json.gz").write_bytes(reports.processes_bytes(json.dumps(procs)))
        new = self.tmp / "new"
        new.mkdir()
        inside = new / "p0.json"
        inside.write_text(json.dumps(run_of(0.92, 1.3)))
        # The folders, or the point's report named alone (entries named by file, or job#i).
        for b, n in ((point, new), (point / "p0.json", inside)):
            r = run("perf-check", b, n, check=0)
            self.assertRegex(r.stdout, r"iops\s+rate.*-8\.0 %\s+ok")
            self.assertRegex(r.stdout, r"read\.lat_p99_us\s+time.*\+30\.0 %\s+ok")
        outside = self.write("outside.json", run_of(1.0, 1.6))
        r = run("perf-check", point / "p0.json", outside, check=1)
        self.assertRegex(r.stdout, r"read\.lat_p99_us\s+time.*\+60\.0 %\s+REGRESSION")
        # Processes of one run each (no bamkit.repeat): their own p99s make the spread.
        one = []
        for f, g in ((1.0, 1.0), (0.9, 0.8), (1.05, 1.4)):
            d = run_of(f, g)
            for job in d["jobs"]:
                job.get("bamkit", d["bamkit"]).pop("repeat", None)
            one.append(d)
        (point / "p0.json").write_text(json.dumps(one[0]))
        procs = {"runs": [{"exit_status": 0, "report": json.dumps(d)} for d in one]}
        (point / "p0.processes.json.gz").write_bytes(reports.processes_bytes(json.dumps(procs)))
        r = run("perf-check", point / "p0.json", inside, check=0)
        self.assertRegex(r.stdout, r"read\.lat_p99_us\s+time.*\+30\.0 %\s+ok")
        run("perf-check", point / "p0.json", outside, check=1)
        r = run("perf-check", self.write("alone.json", base), inside, check=1)
        self.assertRegex(r.stdout, r"read\.lat_p99_us\s+time.*\+30\.0 %\s+REGRESSION")

    def test_unusable_input_exits_2_naming_the_key(self):
        r = run("perf-check", self.d / "nbb.json", self.tmp / "missing.json", check=2)
        self.assertIn("missing.json", r.stderr)
        (self.tmp / "bad.json").write_text("{not json")
        run("perf-check", self.d / "nbb.json", self.tmp / "bad.json", check=2)
        other = self.doc("nbb.json")
        for job in other["jobs"]:
            job.get("bamkit", other["bamkit"])["config"]["workload"]["threads"] = 2
        r = run("perf-check", self.d / "nbb.json", self.write("other.json", other), check=2)
        self.assertIn("workload.threads: 1 in the baseline, 2 in the new", r.stderr)
        run("perf-check", self.d / "nbb.json", self.d / "cb.json", check=2)  # other tools, other keys

    def test_a_key_an_older_report_lacks_counts_as_its_default(self):
        old = self.doc("cb.json")
        for job in old["jobs"]:
            cfg = job.get("bamkit", old["bamkit"])["config"]
            self.assertEqual(cfg["cache_bench"].pop("layout"), "thread")  # the default
        run("perf-check", self.write("old.json", old), self.d / "cb.json", check=0)

    def test_google_benchmark_json(self):
        def gb(times):
            return {"context": {"num_cpus": 2}, "benchmarks": [
                {"name": f"BM_queue/{i}", "run_name": "BM_queue", "run_type": "iteration",
                 "real_time": t, "cpu_time": t, "time_unit": "ns", "items_per_second": 1e9 / t}
                for i, t in enumerate(times)]}
        base = self.write("gb_base.json", gb([100, 102, 104]))
        run("perf-check", base, base, check=0)
        r = run("perf-check", base, self.write("gb_slow.json", gb([130, 131, 133])), check=1)
        self.assertRegex(r.stdout, r"BM_queue\s+real_time_ns\s+time.*REGRESSION")


if __name__ == "__main__":
    unittest.main()
