"""Shared by the tests of tests/scripts: the repository, this build's tools, running a script."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BAM_BUILD_DIR", REPO / "build" / "default"))
sys.path.insert(0, str(REPO / "scripts" / "pylib"))


def run(script, *args, check=None, timeout=600, env=None):
    """Runs scripts/<script> with /usr/bin/python3; returns the CompletedProcess (stdout and
    stderr as text). `check`: the exit status it must have."""
    r = subprocess.run(["/usr/bin/python3", str(REPO / "scripts" / script), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout, cwd=REPO,
                       env={**os.environ, **(env or {})})
    if check is not None and r.returncode != check:
        raise AssertionError(f"scripts/{script} {' '.join(map(str, args))}: exit status "
                             f"{r.returncode}, expected {check}\n{r.stdout}\n{r.stderr}")
    return r


def write_spec(folder, spec):
    path = Path(folder) / f"{spec['name']}.json"
    path.write_text(json.dumps(spec))
    return path


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="bamkit-test-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()
