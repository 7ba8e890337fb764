"""scripts/gpu/ptx-same on this repository's history: the express post's review (8d320a7), a
refactor, compiles to the PTX of the code measured before it (3ea96ee); the express post itself
does not (against 0937a7c); the working tree has HEAD's PTX (when lib/ has no changes); an
unknown revision, a file the build does not compile, a command that reads the repository's
headers by a relative path, or a build folder that holds the repository exits 2, named; paths
into the build folder stay, the repository's move. Skipped (exit 77) without the history (a
shallow clone) or a build that compiles the engine (configured with CUDA). The expected results
hold for the toolchain of its time (nvcc 13.0, sm_90)."""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import unittest

from script_test import BUILD, REPO, TempDirTest, run

MEASURED, REFACTORED, BEFORE = "3ea96ee", "8d320a7", "0937a7c"


def missing():
    for rev in (MEASURED, REFACTORED, BEFORE):
        if subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{rev}^{{commit}}"],
                          capture_output=True).returncode != 0:
            return f"revision {rev} not in this clone"
    try:
        db = json.loads((BUILD / "compile_commands.json").read_text())
    except (OSError, ValueError):
        return f"no compile_commands.json in {BUILD}"
    if not any(e["file"] == str(REPO / "lib/src/emu/gpu/engine.cu") for e in db):
        return f"the build in {BUILD} does not compile CUDA"
    return None


class PtxSameTest(TempDirTest):
    def test_a_refactor_keeps_the_measured_ptx(self):
        r = run("gpu/ptx-same", MEASURED, REFACTORED, "--build", BUILD, check=0)
        self.assertIn(f"lib/src/emu/gpu/engine.cu: the same PTX at {MEASURED} and {REFACTORED}",
                      r.stdout)

    def test_a_change_of_the_engine_changes_its_ptx(self):
        r = run("gpu/ptx-same", BEFORE, MEASURED, "lib/src/emu/gpu/engine.cu", "--build", BUILD,
                "--keep", self.tmp, check=1)
        self.assertIn(f"the PTX differs between {BEFORE} and {MEASURED}", r.stdout)
        kept = sorted(p.name for p in self.tmp.glob("*.ptx"))
        self.assertEqual(kept, [f"engine.cu.0.{BEFORE}.ptx", f"engine.cu.1.{MEASURED}.ptx"])
        self.assertIn(b".entry", (self.tmp / f"engine.cu.1.{MEASURED}.ptx").read_bytes())

    def test_the_working_tree_against_a_revision(self):
        if subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "lib"],
                          capture_output=True, text=True).stdout.strip():
            self.skipTest("lib/ has changes that are not committed")
        r = run("gpu/ptx-same", "HEAD", "--build", BUILD, check=0)
        self.assertIn("lib/src/emu/gpu/engine.cu: the same PTX at HEAD and the working tree",
                      r.stdout)

    def test_a_relative_include_path_into_the_repository_is_refused(self):
        # From a folder of the build, a relative path to lib/include is the working tree's at
        # either version.
        engine = REPO / "lib/src/emu/gpu/engine.cu"
        inc = os.path.relpath(REPO / "lib/include", BUILD / "lib")
        (self.tmp / "compile_commands.json").write_text(json.dumps([{
            "directory": str(BUILD / "lib"), "file": str(engine),
            "command": f"nvcc -I{inc} -x cu -c {engine} -o engine.o"}]))
        r = run("gpu/ptx-same", MEASURED, REFACTORED, "--build", self.tmp, check=2)
        self.assertIn(f"names the repository's headers by a relative path ({inc}", r.stderr)
        r = run("gpu/ptx-same", MEASURED, REFACTORED, "--build", "/", check=2)
        self.assertIn("holds the repository", r.stderr)

    def test_paths_into_the_build_folder_stay_and_the_repositorys_move(self):
        script = str(REPO / "scripts/gpu/ptx-same")
        loader = importlib.machinery.SourceFileLoader("ptx_same", script)
        spec = importlib.util.spec_from_loader("ptx_same", loader)
        ptx_same = importlib.util.module_from_spec(spec)
        loader.exec_module(ptx_same)
        build, root = REPO / "build" / "x", self.tmp / "tree"
        args = ["nvcc", f"-I{REPO}/lib/include", f"-isystem={build}/gen", "-I", "gen2",
                "-c", f"{REPO}/a.cu"]
        cmd = ptx_same.ptx_command(args, build, root, self.tmp / "a.ptx", build)
        self.assertEqual(cmd[:5], ["nvcc", f"-I{root}/lib/include", f"-isystem={build}/gen",
                                   "-I", "gen2"])
        self.assertEqual(cmd[5:], [f"{root}/a.cu", "-ptx", "-o", str(self.tmp / "a.ptx")])
        self.assertEqual(ptx_same.include_paths(args), [f"{REPO}/lib/include", f"{build}/gen",
                                                        "gen2"])

    def test_unusable_input_exits_2_naming_it(self):
        r = run("gpu/ptx-same", "no-such-revision", "--build", BUILD, check=2)
        self.assertIn("no-such-revision: not a revision", r.stderr)
        r = run("gpu/ptx-same", MEASURED, "lib/src/no_such_file.cu", "--build", BUILD, check=2)
        self.assertIn("lib/src/no_such_file.cu: not compiled by the build", r.stderr)


if __name__ == "__main__":
    why = missing()
    if why:
        print(f"skipped: {why}")
        sys.exit(77)
    unittest.main()
