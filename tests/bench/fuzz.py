#!/usr/bin/env python3
"""fuzz.py CLI MODE [--seed S] [--count N] [--timeout T]: feed mmscope-cli what users get wrong, at random, and report
every answer that is neither a result (exit 0) nor a refusal (exit 2).

  sets    a built-in scenario with 2-5 random --set (a toggle's value, a kernel release, CPUs and sockets, memory, swap
          devices, a guest, one node, a workload parameter scaled by 1/4..4 or a switch of its turned the other way) at
          --scale 0.01-0.03, run with the kernel's invariants checked
  files   a built-in scenario's JSON (`show`) with 1-3 fields replaced by a value of another type or removed, loaded
          (`show`) and, a third of the time when it loads, run at --scale 0.01
  shards  the first of two shards of `ebizzy` with 1-3 fields replaced or removed, merged in every --format

A failure is a crash (a signal), an internal error (exit 1), an invariant violated, or a run past the timeout
(default 120 s; a run that reaches the watchdog can take minutes, so such a line is a lead, not a verdict:
docs/reliability.md). The failing inputs are kept under FUZZ_KEEP (default: a temporary directory, printed). Exit 1
if any failed. docs/reliability.md says what the last runs found.
"""
import argparse
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

VALUES = [None, True, False, 0, -1, 1, 2**31, 2**63, 1e308, -1e-9, 0.5, "", "x", "0", "1GiB", "-4KiB", "99999TiB",
          [], [1], {}, {"a": 1}, "2.6.20", "9.9", "nan"]


def cli(args, timeout):
    try:
        return subprocess.run([ARGS.cli] + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def failure(r):
    """Why the answer is a failure, or None."""
    if r is None:
        return "past the timeout"
    err = r.stderr
    if "invariant" in err or "internal error" in err:
        return err.strip().splitlines()[-1]
    if r.returncode in (0, 2):  # a result, or a refusal (exit 2 is bad input, a stopped run or a refused file)
        return None
    return "exit %d: %s" % (r.returncode, (err.strip().splitlines() or [""])[-1])


def choices(takes):
    """The values to try of what a toggle takes, as `toggles` says it: "one of a|b", "true or false", "an integer in
    [lo, hi]" (its ends and one value near the low one)."""
    if m := re.fullmatch(r"one of (\S+)", takes):
        return m.group(1).split("|")
    if takes == "true or false":
        return ["true", "false"]
    if m := re.fullmatch(r"an integer in \[(-?\d+), (\d+)\]", takes):
        lo, hi = int(m.group(1)), int(m.group(2))
        return [str(lo), str(hi), str(min(hi, lo + 7))]
    return []


def toggle_choices():
    """Every toggle and the values to try, from `mmscope-cli toggles` (its TAKES column)."""
    lines = cli(["toggles"], 60).stdout.splitlines()
    header = next(l for l in lines if l.lstrip().startswith("NAME"))
    takes, changed = header.index("TAKES"), header.index("CHANGED IN")
    rows = lines[lines.index(header) + 1:]
    return {row.split()[0]: choices(row[takes:changed].strip()) for row in rows if row.strip()}


def mutate(doc, rng):
    """1-3 fields of `doc` (any depth, the first three items of a list) replaced by another type, or removed."""
    def paths(o, p=()):
        items = o.items() if isinstance(o, dict) else enumerate(o[:3]) if isinstance(o, list) else []
        for k, v in items:
            yield p + (k,)
            yield from paths(v, p + (k,))
    d = copy.deepcopy(doc)
    all_paths = list(paths(d))
    for _ in range(rng.randint(1, 3)):
        p = rng.choice(all_paths)
        o = d
        try:
            for k in p[:-1]:
                o = o[k]
            if isinstance(o, dict) and rng.random() < 0.15:
                del o[p[-1]]
            else:
                o[p[-1]] = rng.choice(VALUES)
        except (KeyError, IndexError, TypeError):
            pass
    return d


def fuzz_sets(rng, keep):
    ids = [l.split()[0] for l in cli(["list"], 60).stdout.splitlines() if l[:1].isalpha()]
    releases = re.findall(r"^\s+(\d+\.\d+(?:\.\d+)?)", cli(["kernels"], 60).stdout, re.M)
    fields = toggle_choices()
    fields["machine.preset"] = re.findall(r"^  ([a-z0-9-]+) +\d+ CPUs", cli(["presets"], 60).stdout, re.M)
    fields["machine.guest"] = ["none", "kvm"]
    shown = {i: json.loads(cli(["show", i], 60).stdout) for i in ids}
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

    def change(i):
        k = rng.randrange(9)
        if k <= 2:
            f = rng.choice([f for f in fields if fields[f]])
            return [f + "=" + rng.choice(fields[f])]
        if k == 3:
            return ["kernel=" + rng.choice(releases)]
        if k == 4:
            cpus, sockets = rng.choice([1, 2, 3, 4, 6, 8, 16, 48, 64, 120]), rng.choice([1, 2, 4])
            caches = ["machine.cores_per_llc=%d" % min(cpus, rng.choice([0, 1, 2, 3, 4]))] if rng.random() < 0.5 else []
            return ["machine.cpus=%d" % cpus, "machine.sockets=%d" % (sockets if cpus % sockets == 0 else 1)] + caches
        if k == 5:
            return ["machine.memory=%dMiB" % rng.choice([24, 64, 128, 256, 512, 1024, 3072])]
        if k == 6:
            dev = {"size": rng.choice(["8MiB", "64MiB", "512MiB", "4GiB"]),
                   "device": rng.choice(["ssd-2015", "zram", "pmem-ram", "hdd-2007", "nvme-2020"])}
            return ["machine.swap=" + json.dumps([dev] * rng.choice([1, 1, 2, 3]))]
        if k == 7:
            return rng.choice([["machine.numa=false"],
                               ["machine.guest=kvm", "machine.guest_preempt=%g" % rng.choice([0, 0.05, 0.5])]])
        params = {p: v for p, v in shown[i]["workload"].items()
                  if p != "kind" and isinstance(v, (bool, int, float, str))}
        if not params:
            return []
        p = rng.choice(list(params))
        v, f = params[p], rng.choice([0.25, 0.5, 2, 4])
        if isinstance(v, bool):  # a switch of the workload's (innodb_mutex, system_sync...): the other way
            return ["workload.%s=%s" % (p, json.dumps(not v))]
        if isinstance(v, (int, float)):
            return ["workload.%s=%s" % (p, json.dumps(v * f if isinstance(v, float) else max(1, int(v * f))))]
        if m := re.fullmatch(r"([0-9.]+)(KiB|MiB|GiB|TiB)", v):
            kib = max(4, int(float(m.group(1)) * units[m.group(2)] * f / 1024))
            return ["workload.%s=%s" % (p, json.dumps("%dKiB" % kib))]
        return []

    for n in range(ARGS.count):
        i = rng.choice(ids)
        args = ["run", i, "--scale", str(rng.choice([0.01, 0.02, 0.03])), "--reps", "1", "--threads", "1",
                "--check-invariants", "--format", "json"]
        if rng.random() < 0.5:
            args += ["--variant", rng.choice(list(shown[i]["variants"]))]
        for _ in range(rng.randint(2, 5)):
            for s in change(i):
                args += ["--set", s]
        yield n, args, None


def fuzz_files(rng, keep):
    ids = [l.split()[0] for l in cli(["list"], 60).stdout.splitlines() if l[:1].isalpha()]
    shown = {i: json.loads(cli(["show", i], 60).stdout) for i in ids}
    for n in range(ARGS.count):
        path = os.path.join(keep, "scenario-%d.json" % n)
        with open(path, "w") as f:
            json.dump(mutate(shown[rng.choice(ids)], rng), f)
        yield n, ["show", path], path
        if rng.random() < 1 / 3:
            yield n, ["run", path, "--scale", "0.01", "--reps", "1", "--threads", "1", "--check-invariants",
                      "--format", "csv"], path


def fuzz_shards(rng, keep):
    first, second = os.path.join(keep, "shard-1.json"), os.path.join(keep, "shard-2.json")
    for k, out in ((1, first), (2, second)):
        cli(["run", "ebizzy", "--scale", "0.01", "--reps", "1", "--shard", "%d/2" % k, "--out", out], 300)
    with open(first) as f:
        doc = json.load(f)
    for n in range(ARGS.count):
        path = os.path.join(keep, "merge-%d.json" % n)
        with open(path, "w") as f:
            json.dump(mutate(doc, rng), f)
        for fmt in ("text", "markdown", "csv", "json", "mmtests"):
            yield n, ["merge", path, second, "--format", fmt], path


def main():
    keep = os.environ.get("FUZZ_KEEP") or tempfile.mkdtemp(prefix="mmscope-fuzz.")
    os.makedirs(keep, exist_ok=True)
    rng = random.Random(ARGS.seed)
    cases = {"sets": fuzz_sets, "files": fuzz_files, "shards": fuzz_shards}[ARGS.mode](rng, keep)
    failed, total, inputs, kept = 0, 0, set(), set()
    for n, args, path in cases:
        total += 1
        inputs.add(path)
        why = failure(cli(args, ARGS.timeout))
        if why:
            failed += 1
            print("FAIL %d: mmscope-cli %s\n    %s" % (n, " ".join(args), why), flush=True)
            kept.add(path)
    for path in inputs - kept - {None}:  # only the failing inputs stay
        os.remove(path)
    if not failed:
        shutil.rmtree(keep) if not os.environ.get("FUZZ_KEEP") else None
        print("%s: none of %d failed (seed %d)" % (ARGS.mode, total, ARGS.seed))
    else:
        print("%s: %d of %d failed (seed %d); their inputs in %s" % (ARGS.mode, failed, total, ARGS.seed, keep))
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli")
    parser.add_argument("mode", choices=["sets", "files", "shards"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=120)
    ARGS = parser.parse_args()
    sys.exit(main())
