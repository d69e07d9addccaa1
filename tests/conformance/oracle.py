"""Shared by the conformance scripts: our C++ drivers, and Hugging Face transformers as the reference."""
import argparse
import atexit
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import transformers

torch.set_num_threads(2)
transformers.logging.set_verbosity_error()


def arguments(description, extra=None):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--driver", required=True, help="the qgpu_conformance executable")
    p.add_argument("--qgpu", help="the qgpu executable")
    p.add_argument("--workdir", help="where to write checkpoints (default: a new temporary directory)")
    if extra:
        extra(p)
    return p.parse_args()


def workdir(args):
    if args.workdir:
        path = pathlib.Path(args.workdir)
        path.mkdir(parents=True, exist_ok=True)
        return path
    path = pathlib.Path(tempfile.mkdtemp(prefix="qgpu-conformance-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def run(*command):
    """Runs one of our executables; its output goes to ours, a failure ends the test."""
    start = time.monotonic()
    result = subprocess.run([str(c) for c in command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(map(str, command))} exited {result.returncode}:\n{result.stdout}")
    return result.stdout, time.monotonic() - start


def load_hf(directory, dtype="auto"):
    """The checkpoint in the transformers class its config names, with every weight it needs from the files
    (transformers skips `mtp.*` itself) and the class's name; "auto"
    computes in what the config's dtype says, as a program that does not choose gets it."""
    config = json.loads((pathlib.Path(directory) / "config.json").read_text())
    cls = getattr(transformers, config["architectures"][0])
    model, info = cls.from_pretrained(str(directory), dtype=dtype, output_loading_info=True)
    bad = {k: v for k, v in info.items() if k in ("missing_keys", "mismatched_keys", "error_msgs") and v}
    if bad:
        sys.exit(f"FAILED: transformers loaded {directory} with {bad}")
    return model.eval(), cls.__name__


def gpu_checkpoint(qgpu, directory, dtype):
    """`qgpu build-gpu`'s checkpoint in `directory`, written again when `qgpu` is newer than it."""
    stamp = directory / "config.json"
    if stamp.exists() and stamp.stat().st_mtime >= pathlib.Path(qgpu).stat().st_mtime:
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    directory.parent.mkdir(parents=True, exist_ok=True)
    _, seconds = run(qgpu, "build-gpu", "--out", directory, "--dtype", dtype)
    print(f"qgpu build-gpu --dtype {dtype}: {seconds:.1f} s")
    return directory


class Verdict:
    """Collects the checks of one script; exits non-zero at the end if any failed."""

    def __init__(self):
        self.failures = []

    def check(self, ok, message):
        print(("ok      " if ok else "FAILED  ") + message, flush=True)
        if not ok:
            self.failures.append(message)

    def finish(self):
        if self.failures:
            sys.exit(f"{len(self.failures)} check(s) failed")
        print("all checks passed")
