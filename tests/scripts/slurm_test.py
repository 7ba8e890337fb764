"""scripts/sweep --slurm on a real one-node Slurm cluster started here on localhost (Debian's
slurm-wlm and munge; proctrack/linuxproc and task/none, so no cgroups): a small host-mode sweep
submitted as a job array must give what the same sweep gives run locally (the same points, exit
statuses, configs and counts; not timings or machine fields), resume by skipping finished points,
and pass `sbatch --test-only`. Skipped (exit 77) where the Slurm or munge daemons are not
installed or this is not root (slurmd starts job steps as their user)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

from script_test import BUILD, TempDirTest, run, write_spec

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol")

SPEC = {"name": "t-slurm", "tool": "nvm-block-bench",
        "set": {"storage.backend": "host", "workload.threads": 1, "workload.ios": 400,
                "storage.media.size_bytes": 4194304, "queues.depth": 32},
        "product": {"storage.ssd_count": [1, 2], "workload.io_size": [512, 4096]},
        "inner": {"workload.op": ["read", "mixed"]},
        "limit_s": 60}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """munged, slurmctld and slurmd in one folder, on free ports, as this user (root)."""

    def __init__(self, root):
        self.root = root
        self.conf = root / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.node = socket.gethostname().split(".")[0]

    def start(self):
        r = self.root
        r.mkdir(mode=0o700)
        for d in ("munge", "ctld", "spool", "log"):
            (r / d).mkdir(mode=0o700)
        key = r / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self.sock = r / "munge" / "socket"
        subprocess.run(["munged", "--force", f"--key-file={key}", f"--socket={self.sock}",
                        f"--pid-file={r}/munge/munged.pid", f"--log-file={r}/log/munged.log",
                        f"--seed-file={r}/munge/seed"], check=True)
        self.conf.write_text(f"""ClusterName=bamkit-test
SlurmctldHost={self.node}(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.sock}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
StateSaveLocation={r}/ctld
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/log/slurmctld.log
SlurmdLogFile={r}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=test Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
""")
        subprocess.run(["slurmctld", "-c"], env=self.env, check=True)
        subprocess.run(["slurmd", "-N", self.node], env=self.env, check=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            r = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
            if r.returncode == 0 and r.stdout.strip() == "idle":
                return
            time.sleep(0.2)
        raise AssertionError(f"the node did not become idle: {self.logs()}")

    def logs(self):
        return "\n".join(f"== {f.name}\n{f.read_text()[-3000:]}" for f in sorted((self.root / "log").glob("*")))

    def stop(self):
        subprocess.run(["scontrol", "shutdown"], env=self.env, capture_output=True)
        subprocess.run(["munged", "--stop", f"--socket={self.sock}"], capture_output=True)
        deadline = time.time() + 20
        for pidfile in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
            f = self.root / pidfile
            while f.exists() and time.time() < deadline:
                try:
                    os.kill(int(f.read_text()), 0)
                except (ValueError, ProcessLookupError):
                    break
                time.sleep(0.1)


class SlurmSweepTest(TempDirTest):
    def test_a_slurm_array_sweep_equals_the_local_sweep(self):
        t0 = time.time()
        cluster = Cluster(self.tmp / "cluster")
        cluster.start()
        try:
            t_up = time.time() - t0
            spec = write_spec(self.tmp, SPEC)
            local, array = self.tmp / "local", self.tmp / "slurm"
            run("sweep", spec, "--out", local, "--bin", BUILD, check=0)
            t1 = time.time()
            r = run("sweep", "--slurm", spec, "--out", array, "--bin", BUILD, "--wait",
                    "--partition", "test", "--time", "5", env=cluster.env, timeout=240)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr + cluster.logs())
            t_sweep = time.time() - t1
            self.assertIn("4 points as a Slurm array", r.stdout)
            self.assertIn("4 ok, 0 failed, 0 not run", r.stdout)
            jobs = json.loads((array / "slurm" / "jobs.json").read_text())
            self.assertEqual(jobs["points"], [0, 1, 2, 3])
            self.assertEqual(len(list((array / "slurm").glob("task-*.log"))), 4)
            self.assertTrue((array / "summary.csv").exists())
            # The same points, statuses, configs and counts as the local sweep.
            pts = [p["id"] for p in json.loads((local / "sweep.json").read_text())["points"]]
            self.assertEqual(pts, [p["id"] for p in json.loads((array / "sweep.json").read_text())["points"]])
            for p in pts:
                a = json.loads((local / f"{p}.status.json").read_text())
                b = json.loads((array / f"{p}.status.json").read_text())
                self.assertEqual((a["exit_status"], b["exit_status"]), (0, 0))
                ra = json.loads((local / f"{p}.json").read_text())
                rb = json.loads((array / f"{p}.json").read_text())
                cfg = lambda doc: [{k: v for k, v in j["bamkit"]["config"].items() if k != "report"}
                                   for j in doc["jobs"]]
                self.assertEqual(cfg(ra), cfg(rb), p)
            r = run("perf-check", "--counts-only", local, array, check=0)
            self.assertIn("0 changed counts", r.stdout)
            # Resume: nothing left to submit.
            r = run("sweep", "--slurm", spec, "--out", array, "--bin", BUILD, env=cluster.env, check=0)
            self.assertIn("every selected point has finished", r.stdout)
            # --test-only: the scripts are written and sbatch judges them, nothing is submitted.
            r = run("sweep", "--slurm", spec, "--out", self.tmp / "t", "--bin", BUILD, "--test-only",
                    env=cluster.env, check=0)
            self.assertIn("sbatch --test-only array.sbatch: exit status 0", r.stdout)
            self.assertIn("#SBATCH --array=0-3", (self.tmp / "t" / "slurm" / "array.sbatch").read_text())
            print(f"slurm: cluster up in {t_up:.1f} s, 4-point array sweep in {t_sweep:.1f} s")
        finally:
            cluster.stop()


if __name__ == "__main__":
    missing = [d for d in DAEMONS if not shutil.which(d)]
    if missing or os.geteuid() != 0:
        print(f"skipped: {'not root' if not missing else 'not installed: ' + ', '.join(missing)} "
              "(scripts/setup installs slurm-wlm and munge)")
        sys.exit(77)
    unittest.main()
