#!/usr/bin/env python3
"""The emulator's counters against Nsight Compute, launch by launch.

For each chapter binary, input and size, this runs the chapter's progression twice with
the reference kernels: on the emulator (`BIN --json --ncu-names`, whose rows carry an `ncu` object:
the emulator's counters under the names of the Nsight Compute metrics they model, see
`simt::Counters::ncu_metrics`) and on the GPU under `ncu` (`BIN --device gpu`, every
kernel launch profiled for exactly those metrics). The launches are the same code path
with the same n, block and grid; they are paired by kernel name, grid and block, in
order. The result is one table: chapter, step, kernel, counter, input, n, emulator, ncu,
and "=" or the difference, with the reason where a difference is expected (named in
EXPECTED below, each with why it cannot be equal).

Writes into --out: fidelity.csv (every pair), fidelity.md (a summary matrix, every
difference, and the launches that could not be paired) and the raw logs. Exit status 0
when every pair not named in EXPECTED is equal, 1 otherwise, 2 when it could not run.

Run it from the folder `bench/prepare-gpu.sh` builds (gpu-fidelity.sh
does), or with --emulator-only anywhere to see the emulator's side alone.
"""

import argparse
import csv
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections import defaultdict

# Short names of the metrics, in the order of `Counters::ncu_metrics`.
COUNTERS = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "global load requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "global load sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "global store requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "global store sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum+l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": "global atomic requests",
    "smsp__inst_executed_op_shared_ld.sum": "shared load instructions",
    "smsp__inst_executed_op_shared_st.sum": "shared store instructions",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum+l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared load/store bank conflicts",
    "smsp__inst_executed_op_shared_atom.sum": "shared atomic instructions",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum": "shared atomic bank conflicts",
}

# Differences that cannot be zero, by (kernel, counter): why, and the bound the difference
# must keep (a function of emulator, ncu). A pair named here and within its bound is
# reported with its reason and does not fail the run; any other difference does.
WHY = {}
WHY_F32 = "f32 loop retries"
WHY[WHY_F32] = ("timing: a shared f32 atomicAdd is a LDS + ATOMS.CAST.SPIN loop; other warps changing "
           "a word between a lane's load and its swap make it go round again. The emulator "
           "counts the rounds of each warp alone (equal to ncu for one warp, atomics_probe.cu): "
           "a lower bound")
WHY_CAS = "CAS loop retries"
WHY[WHY_CAS] = ("timing: atomic_add_cas retries when another warp changed the counter between its "
           "load and its CAS, and the retrying lanes split from the rest of their warp; the "
           "emulator runs a warp's step with no other warp in between, so its retries "
           "(cas_failures) and the requests they cost are a lower bound")
WHY_WARP_AGG = "other warps' passes"
WHY[WHY_WARP_AGG] = ("timing: not from the instruction's addresses. One warp's ATOMS.ADD has exactly "
                "the model's conflicts on every pattern atomics_probe.cu tried (9.8's leaders "
                "included), yet ncu counts more in whole kernels: in 9.8 at every shape, even on "
                "one value, where each atomic has one lane; in 9.5 with 512-thread blocks (up to "
                "four blocks, 64 warps, on one SM's banks), where even the commit's conflict-free "
                "loads show some, and the two 9.5 kernels, with the same addresses, differ. These "
                "are passes lost to other warps' shared accesses on the same banks, which the "
                "emulator (one warp's step at a time) cannot have: its count is a lower bound. "
                "Checked per launch where ncu collected it: the instructions' own extra wavefronts "
                "(sm__sass_* metrics, ncu's source view) equal the emulator's count")
WHY_UNROLL = "unrolled loop"
WHY[WHY_UNROLL] = ("compiled code: the per-thread loop is unrolled; in the one warp where lanes "
              "count different numbers of elements (n not a multiple of block x coarsening), "
              "the lanes of the remainder run it on their own, a request each; the emulator "
              "steps the loop as written (and the remainder's atomics conflict a little "
              "differently: -1 seen)")
WHY_FLUSH = "lanes held at the loop's exit"
WHY[WHY_FLUSH] = ("reconvergence: in the one warp whose lanes leave the grid-stride loop a round "
             "apart (n not a multiple of the grid's threads), the GPU holds the lanes that left "
             "at the loop's exit (BSSY/BSYNC around the loop in the SASS) and issues the last "
             "flush once for the warp; the emulator, which cannot see where a loop ends, lets "
             "them flush first, and the others flush in a second instruction. The merged "
             "instruction's bank conflicts can be one more or fewer than the two's (+1 and -1 "
             "seen, not the same in every run)")
WHY_COPIES = "one source line, two copies in the SASS"
WHY[WHY_COPIES] = ("compiled code: 9.9 counts a vector's 16 bytes at one line of source (the closure "
              "count_vector), which the compiler copies into the four-loads loop (64 ATOMS a round) and into "
              "the loop over the last vectors (16 ATOMS a vector): two sets of instructions. In the one warp "
              "whose lanes straddle the grid's last partial round (n/16 vectors not a multiple of the grid's "
              "threads), when the lanes with one vector more have a multiple of four (one more round of the "
              "four-loads loop) and the others three left (three rounds of the last loop), the GPU issues "
              "both sets, 64 + 48; the emulator, which knows a source line and not its copies, steps the "
              "lanes at that line together: 64. The difference is then exactly 48, computed from n, grid "
              "and block (fastest_split below); 0 otherwise")
WHY_SELECT = "branch made a select"
WHY[WHY_SELECT] = ("compiled code: both sides of the branch are one arithmetic instruction and a "
              "store to out[i], so the compiler made it a select and one store: no divergence "
              "in the SASS. The emulator runs the branch as written, a store per side")
WHY_PREDICATED = "every warp issues every round"
WHY[WHY_PREDICATED] = ("compiled code: ptxas makes each round of chapter 10's trees (`if t < stride` "
                  "and the like, a load, an add and a store) predicated instructions, not a branch "
                  "(@P LDS/STS in the SASS), so every warp of the block issues every round's shared "
                  "loads and stores, its lanes off where the round has no work for them; ncu's "
                  "inst_executed counts them. The emulator counts a warp's instruction when one of its "
                  "lanes runs it. ncu's count is then exactly, per block, warps x (2 x rounds) + 1 "
                  "loads and warps x (rounds + 1) stores (tree_predicated). Checked per launch where "
                  "ncu collected them: the instructions' own counts (sm__sass_*, which leave out "
                  "instructions with every lane off) equal the emulator's, but for 10.7's store after "
                  "its coarsening loop, one fewer when the last block's elements end inside a warp in "
                  "a round after the first (the lanes held at the loop's exit, as in "
                  f"'{WHY_FLUSH}': coarsened_flush)")
EXPECTED = {
    ("histo_weighted", "shared atomic instructions"): (WHY_F32, lambda e, g: g >= e),
    ("histo_weighted", "shared load instructions"): (WHY_F32, lambda e, g: g >= e),
    ("histo_weighted", "shared load/store bank conflicts"): (WHY_F32, lambda e, g: g >= e),
    ("histo_weighted", "shared atomic bank conflicts"): (WHY_F32, lambda e, g: g >= e),
    ("histo_cas", "global load requests"): (WHY_CAS, lambda e, g: g >= e),
    ("histo_cas", "global load sectors"): (WHY_CAS, lambda e, g: g >= e),
    ("histo_cas", "global atomic requests"): (WHY_CAS, lambda e, g: g >= e),
    ("histo_warp_aggregate", "shared atomic bank conflicts"): (WHY_WARP_AGG, lambda e, g: g >= e),
    ("histo_private_shared", "shared atomic bank conflicts"): (WHY_WARP_AGG, lambda e, g: g >= e),
    ("histo_private_dynamic", "shared atomic bank conflicts"): (WHY_WARP_AGG, lambda e, g: g >= e),
    ("histo_private_dynamic", "shared load/store bank conflicts"): (WHY_WARP_AGG, lambda e, g: g >= e),
    ("histo_private_shared", "shared load/store bank conflicts"): (WHY_WARP_AGG, lambda e, g: g >= e),
    ("histo_coarse_contiguous", "global load requests"): (WHY_UNROLL, lambda e, g: 0 < g - e < 8),
    ("histo_coarse_contiguous", "shared atomic instructions"): (WHY_UNROLL, lambda e, g: 0 < g - e < 8),
    # The remainder's fewer than 8 extra requests touch at most one sector per lane each.
    ("histo_coarse_contiguous", "global load sectors"): (WHY_UNROLL, lambda e, g: 0 < g - e < 8 * 32),
    ("histo_coarse_contiguous", "shared atomic bank conflicts"): (WHY_UNROLL, lambda e, g: abs(g - e) < 8),
    ("histo_aggregate", "shared atomic instructions"): (WHY_FLUSH, lambda e, g: g - e == -1),
    ("histo_aggregate", "shared atomic bank conflicts"): (WHY_FLUSH, lambda e, g: -32 < g - e <= 1),
    # Chapter 10's trees and 10.9's warp sums: conflict-free in each warp's own addresses
    # (equal at 256-thread blocks), more in ncu with 32- or 512-thread blocks.
    **{(k, "shared load/store bank conflicts"): (WHY_WARP_AGG, lambda e, g: g >= e)
       for k in ("sum_tree_interleaved", "sum_tree_strided_index", "sum_tree_sequential",
                 "sum_coarsened", "sum_fastest_u32", "sum_fastest_f32")},
    ("classify_divergent", "global store requests"): (WHY_SELECT, lambda e, g: g < e),
    ("classify_divergent", "global store sectors"): (WHY_SELECT, lambda e, g: g < e),
    ("classify_half_warp", "global store requests"): (WHY_SELECT, lambda e, g: g < e),
    ("classify_half_warp", "global store sectors"): (WHY_SELECT, lambda e, g: g < e),
}


# Nsight Compute's counts of the instructions themselves, next to the hardware's: a
# SASS-patched metric (`sm__sass_*`) is computed from what each executed instruction needed
# (its own addresses), whatever other warps did meanwhile, which is what the emulator
# models; ncu's source view shows the same per instruction. They are collected with the
# counters (when ncu knows them: `--query-metrics`), and each counter below gets its
# instruction-level twin: instructions, or the wavefronts beyond one per instruction (a
# bank conflict is an extra wavefront of a 4-byte access; every shared access of the
# course's kernels is 4 bytes a lane).
SASS_METRICS = [f"sm__sass_{m}.sum" for m in (
    "inst_executed_op_shared_ld", "inst_executed_op_shared_st", "inst_executed_op_shared_atom",
    "l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld", "l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st",
    "l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom")]


def sass_twin(counter, values):
    """The instruction-level count of `counter` from a launch's ncu values (ncu's source
    view, summed), or None when ncu did not collect what it needs."""
    def v(m):
        return values.get(f"sm__sass_{m}.sum")
    def extra(op):
        wf, inst = v(f"l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}"), v(f"inst_executed_op_shared_{op}")
        return None if wf is None or inst is None else wf - inst
    if counter == "shared load/store bank conflicts":
        ld, st = extra("ld"), extra("st")
        return None if ld is None or st is None else ld + st
    if counter == "shared atomic bank conflicts":
        return extra("atom")
    return {"shared atomic instructions": v("inst_executed_op_shared_atom"),
            "shared load instructions": v("inst_executed_op_shared_ld"),
            "shared store instructions": v("inst_executed_op_shared_st")}.get(counter)


def draw_shapes(seed, count, chapters, text):
    """`count` launch shapes per chapter, drawn from `seed` before any result is seen:
    n anywhere from 16 Ki to 1 Mi (rarely a multiple of a block or a grid's vectors), an
    input (uniform, zeros, skew:P with P drawn, or the text when there is one), a block
    of any multiple of 32 up to 1024 (for chapter 10, a power of two), an input seed, for
    chapter 9 a bin count from 2 to 256 and a coarsening from 1 to 16, and for chapter 10 a
    coarsening from 1 to 16. Each kernel's launch is then what the chapter's
    progression makes of these (it sizes grids and shared memory itself, and skips a step
    whose kernel does not take the shape, saying so)."""
    rng = random.Random(seed)
    shapes = []
    for chapter in chapters:
        for _ in range(count):
            n = rng.randrange(1 << 14, 1 << 20)
            kinds = ["uniform", "zeros", f"skew:{rng.randrange(5, 96)}"] + ([f"text:{text}"] if text else [])
            input_arg = rng.choice(kinds)
            # Chapter 10's trees halve the block: a power of two from 32 to 1024.
            block = 1 << rng.randrange(5, 11) if chapter == "ch10" else 32 * rng.randrange(1, 33)
            opts = ["--block", str(block), "--seed", str(rng.randrange(1, 1 << 30))]
            if chapter == "ch10":
                opts += ["--coarsen", str(rng.randrange(1, 17))]
            if chapter == "ch09":
                opts += ["--bins", str(rng.randrange(2, 257)), "--coarsen", str(rng.randrange(1, 17))]
            shapes.append((chapter, n, input_arg, opts))
    return shapes


def fastest_split(n, grid, block):
    """9.9's extra shared atomic instructions on the GPU (WHY_COPIES): 48 when the warp that
    straddles the grid's last partial round of vectors has lanes with q + 1 vectors, a
    multiple of four, and lanes with q; else 0. Each thread counts every grid-th vector:
    threads below `nvec % threads` count q + 1 of them, the others q."""
    nvec, threads = n // 16, grid * block
    q, r = divmod(nvec, threads)
    return 48 if r % 32 and q % 4 == 3 else 0


# Chapter 10's trees in shared memory: (the rounds' shared loads, its stores, and the loads
# and stores past the rounds) per warp, and per block.
TREES = {"sum_tree_interleaved", "sum_tree_strided_index", "sum_tree_sequential", "sum_coarsened"}


def tree_predicated(counter, row):
    """What ncu counts of a chapter 10 tree's shared instructions when every warp issues
    every round's (WHY_PREDICATED): per block, each warp 2 loads a round and thread 0's
    final load; each warp 1 store a round and its first store."""
    block, grid = row["block"], row["grid"]
    warps, rounds = -(-block // 32), block.bit_length() - 1
    if counter == "shared load instructions":
        return grid * (warps * 2 * rounds + 1)
    if counter == "shared store instructions":
        return grid * warps * (rounds + 1)
    return None


def coarsened_flush(kernel, counter, row, coarsen):
    """The emulator's one extra store in 10.7 (WHY_FLUSH, against the instructions' own
    count): in the last block, when its elements end inside a warp in a round of the
    coarsening loop after the first, the lanes that loaded in that round store their
    partial after the others (which left the loop a round earlier), a second instruction."""
    if (kernel, counter) != ("sum_coarsened", "shared store instructions"):
        return 0
    rest = row["n"] - (row["grid"] - 1) * row["block"] * coarsen
    last_round, lanes = (rest - 1) // row["block"], (rest - 1) % row["block"] + 1
    return 1 if last_round >= 1 and lanes % 32 else 0


def coarsen_of(extra):
    """10.7's coarsening factor from a job's options (`--coarsen C`), else ch10's default."""
    extra = list(extra)
    for i, word in enumerate(extra[:-1]):
        if word == "--coarsen":
            return int(extra[i + 1])
    return 4


def expected(kernel, counter, emu, gpu, row=None):
    """The reason a difference is expected, or "" when it is not (or leaves its bound)."""
    if kernel in TREES and row and tree_predicated(counter, row) is not None:
        if gpu == tree_predicated(counter, row) and gpu >= emu:
            return WHY_PREDICATED
        return f"outside the expected bound of: {WHY_PREDICATED}"
    if (kernel, counter) == ("histo_fastest", "shared atomic instructions") and row:
        if gpu - emu == fastest_split(row["n"], row["grid"], row["block"]) != 0:
            return WHY_COPIES
        return f"outside the expected bound of: {WHY_COPIES}"
    why, bound = EXPECTED.get((kernel, counter), ("", None))
    if not why:
        return ""
    return why if bound(emu, gpu) else f"outside the expected bound of: {why}"


def short(metric):
    return COUNTERS.get(metric, metric)


def die(msg):
    print(f"fidelity: {msg}", file=sys.stderr)
    sys.exit(2)


def say(msg):
    print(f"fidelity: {msg}", file=sys.stderr, flush=True)


def entry_name(kernel):
    """The PTX entry a row's kernel column names: its first word."""
    return kernel.split(" ")[0]


def emulator_rows(binary, n, input_arg, log, extra=()):
    """The emulator's launches with counters, and a line for each launch that failed there
    (a row with a launch shape but no counters): such a launch cannot be paired, and the
    run says so instead of leaving it out of the table. The emulator's wall-clock watchdog
    (a last resort against runaway student kernels, 60 s by default) is raised to 600 s
    unless SIMT_WATCHDOG_SECS is set: the reference kernels at a million elements on a
    slow host can take longer, and a timed-out launch has no counters."""
    cmd = [binary, "--json", "--ncu-names", "--n", str(n), "--input", input_arg, *extra]
    env = dict(os.environ)
    env.setdefault("SIMT_WATCHDOG_SECS", "600")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stderr)
    if p.returncode != 0:
        die(f"{' '.join(cmd)} failed (exit {p.returncode}): {p.stderr.strip()[-400:]}")
    rows = json.loads(p.stdout)
    failed = [f"{r['step']} {r['kernel']} did not complete on the emulator ({r.get('status')}: "
              f"{r.get('note') or ''})" for r in rows if r.get("grid") and not r.get("ncu")]
    return [r for r in rows if r.get("ncu") and r.get("grid")], failed


def known_metrics(ncu):
    """Base names ncu knows for this GPU, or None if it would not say."""
    try:
        p = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    names = set()
    for line in p.stdout.splitlines():
        word = line.split(" ")[0].strip()
        if "__" in word:
            names.add(word)
    return names or None


def profile(ncu, binary, n, input_arg, metrics, log, timeout, extra=()):
    """Per launch, in order: (name, grid, block, {metric: value})."""
    cmd = [ncu, "--clock-control", "none", "--csv", "--print-units", "base", "--log-file", log, "--metrics", ",".join(metrics),
           binary, "--device", "gpu", "--n", str(n), "--input", input_arg, *extra]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        say(f"ncu timed out after {timeout} s: {' '.join(cmd)}")
        return None
    if p.returncode != 0:
        say(f"ncu failed (exit {p.returncode}): {(p.stdout + p.stderr).strip()[-600:]}")
        return None
    return parse_ncu_log(log)


def parse_ncu_log(log):
    """The launches of an `ncu --csv --log-file` log, in order."""
    launches = {}
    order = []
    with open(log) as f:
        lines = [l for l in f if l.startswith('"')]
    for rec in csv.DictReader(lines):
        lid = rec.get("ID")
        if lid not in launches:
            grid = dims(rec.get("Grid Size", ""))
            block = dims(rec.get("Block Size", ""))
            launches[lid] = (entry_name(rec.get("Kernel Name", "?")), grid, block, {})
            order.append(lid)
        value = rec.get("Metric Value", "").replace(",", "")
        try:
            launches[lid][3][rec["Metric Name"]] = int(float(value))
        except ValueError:
            pass
    return [launches[i] for i in order]


def dims(text):
    """`(128, 1, 1)` as the product of its numbers."""
    nums = [int(x) for x in re.findall(r"\d+", text)]
    prod = 1
    for x in nums:
        prod *= x
    return prod if nums else None


def gpu_value(metric, values):
    parts = metric.split("+")
    if any(p not in values for p in parts):
        return None
    return sum(values[p] for p in parts)


def pair(emu, gpu):
    """Pairs emulator rows with profiled launches by (kernel, grid, block), in order."""
    queues = defaultdict(list)
    for launch in gpu or []:
        # The host's own L2 flush before every timed launch (crates/host/src/cuda/flush.rs)
        # is no course kernel: the emulator has nothing to flush.
        if launch[0] == "gpu_host_l2_flush":
            continue
        queues[(launch[0], launch[1], launch[2])].append(launch)
    pairs, unpaired = [], []
    for row in emu:
        key = (entry_name(row["kernel"]), row["grid"], row["block"])
        q = queues.get(key)
        if q:
            pairs.append((row, q.pop(0)))
        else:
            pairs.append((row, None))
            if gpu is not None:
                unpaired.append(f"emulator {key[0]} <<<{key[1]}, {key[2]}>>> has no GPU launch")
    for key, q in queues.items():
        for _ in q:
            unpaired.append(f"GPU {key[0]} <<<{key[1]}, {key[2]}>>> has no emulator row")
    return pairs, unpaired


def verdict(emu, gpu):
    if gpu is None:
        return "no ncu value"
    if emu == gpu:
        return "="
    diff = gpu - emu
    pct = f" ({diff / emu * 100:+.1f} %)" if emu else ""
    return f"ncu {diff:+d}{pct}"


def input_label(arg):
    return "text" if arg.startswith("text:") else arg


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Example: fidelity.py --bin ch09=.gpu/ch09 --bin ch05=.gpu/ch05 "
                                        "--text .gpu/bench-text.md --out fidelity-out")
    ap.add_argument("--bin", action="append", required=True, metavar="CHAPTER=PATH",
                    help="a chapter's binary (repeatable), e.g. ch09=.gpu/ch09")
    ap.add_argument("--n", action="append", type=int, metavar="N",
                    help="sizes (repeatable) [default: 262144 and 200003, which no block divides]")
    ap.add_argument("--input", action="append", metavar="KIND",
                    help="inputs (repeatable): uniform, zeros, skew:P [default: uniform, zeros and --text]")
    ap.add_argument("--text", metavar="FILE", help="the text input's file (adds text:FILE to the inputs)")
    ap.add_argument("--ncu", default="ncu", help="the ncu executable [default: ncu on PATH]")
    ap.add_argument("--emulator-only", action="store_true", help="skip ncu: the emulator's side alone")
    ap.add_argument("--ncu-logs", metavar="DIR",
                    help="pair with the ncu results of an earlier run (its logs/ folder) instead of running "
                         "ncu: the emulator's side of a changed model against the same measurement")
    ap.add_argument("--args", dest="extra", action="append", default=[], metavar="CHAPTER=OPTIONS",
                    help="more options for one chapter's progression, on both sides (repeatable), e.g. "
                         "'ch09=--bins 100 --block 128': other launch shapes than the defaults")
    ap.add_argument("--seed", type=int, metavar="S",
                    help="draw the launch shapes from this seed instead of the sizes and inputs above "
                         "(--shapes of them per chapter: n, input, block, input seed, and for chapter 9 "
                         "bins and coarsening); --args still adds to every shape")
    ap.add_argument("--shapes", type=int, default=3, metavar="K", help="shapes per chapter with --seed [default: 3]")
    ap.add_argument("--ncu-only", action="store_true",
                    help="only run ncu (every counter's metrics, and the instruction-level twins ncu knows) and keep its "
                         "logs, for a later --ncu-logs run elsewhere: the emulator is deterministic, so its side can run "
                         "on any machine, and a GPU's time goes to the GPU's side alone")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per ncu run [default: 240]")
    ap.add_argument("--out", required=True, help="output folder")
    args = ap.parse_args()

    bins = []
    for spec in args.bin:
        if "=" not in spec:
            die(f"--bin wants CHAPTER=PATH, got {spec}")
        name, path = spec.split("=", 1)
        if not os.access(path, os.X_OK):
            die(f"{path} is not an executable")
        bins.append((name, os.path.abspath(path)))
    extras = {}
    for spec in args.extra:
        if "=" not in spec:
            die(f"--args wants CHAPTER=OPTIONS, got {spec}")
        name, options = spec.split("=", 1)
        extras[name] = shlex.split(options)
    sizes = args.n or [262144, 200003]
    inputs = args.input or ["uniform", "zeros"]
    if args.text:
        inputs.append(f"text:{os.path.abspath(args.text)}")
    os.makedirs(args.out, exist_ok=True)
    logs = os.path.join(args.out, "logs")
    os.makedirs(logs, exist_ok=True)

    ncu = None
    if args.ncu_logs:
        args.emulator_only = True
    if not args.emulator_only:
        ncu = shutil.which(args.ncu) or (args.ncu if os.access(args.ncu, os.X_OK) else None)
        if not ncu:
            die(f"{args.ncu} not found (use --emulator-only to see the emulator's side)")
    known = known_metrics(ncu) if ncu else None

    binary_of = dict(bins)
    if args.seed is not None:
        shapes = draw_shapes(args.seed, args.shapes, [b[0] for b in bins],
                             os.path.abspath(args.text) if args.text else None)
        jobs = [(ch, binary_of[ch], n, inp, opts + extras.get(ch, []), f"{ch}-s{i}-{input_label(inp)}-{n}")
                for i, (ch, n, inp, opts) in enumerate(shapes)]
        sizes = sorted({j[2] for j in jobs})
        inputs = sorted({j[3] for j in jobs})
        extras = {f"{j[5]}": j[4] for j in jobs}
        with open(os.path.join(args.out, "shapes.json"), "w") as f:
            json.dump([{"tag": j[5], "chapter": j[0], "n": j[2], "input": input_label(j[3]), "options": j[4]}
                       for j in jobs], f, indent=1)
    else:
        jobs = [(ch, binary, n, inp, extras.get(ch, ()), f"{ch}-{input_label(inp)}-{n}")
                for ch, binary in bins for inp in inputs for n in sizes]
    all_metrics = [p for m in COUNTERS for p in m.split("+")]
    if known is not None:
        all_metrics += [m for m in SASS_METRICS if m.rsplit(".", 1)[0] in known]

    table, unpaired_all = [], []
    start = time.time()
    for chapter, binary, n, input_arg, extra, tag in jobs:
        if args.ncu_only:
            say(f"[{time.time() - start:.0f}s] {tag}: ncu only ({len(all_metrics)} metrics)")
            if profile(ncu, binary, n, input_arg, all_metrics, os.path.join(logs, f"{tag}-ncu.csv"),
                       args.timeout, extra) is None:
                unpaired_all.append(f"{tag}: ncu gave no result (see logs/{tag}-ncu.csv)")
            continue
        say(f"[{time.time() - start:.0f}s] {tag}: emulator")
        emu, failed = emulator_rows(binary, n, input_arg,
                                    os.path.join(logs, f"{tag}-emulator.log"), extra)
        unpaired_all += [f"{tag}: {f}" for f in failed]
        metrics = []
        for row in emu:
            for m in row["ncu"]:
                for part in m.split("+"):
                    if part not in metrics:
                        metrics.append(part)
        if known is not None:
            missing = [m for m in metrics if m.rsplit(".", 1)[0] not in known]
            if missing:
                say(f"ncu does not know {', '.join(missing)}: those pairs get no value")
            metrics = [m for m in metrics if m not in missing]
        gpu = None
        if ncu:
            say(f"[{time.time() - start:.0f}s] {tag}: ncu ({len(emu)} launches, {len(metrics)} metrics)")
            metrics += [m for m in all_metrics if m.startswith("sm__sass_") and m not in metrics]
            gpu = profile(ncu, binary, n, input_arg, metrics,
                          os.path.join(logs, f"{tag}-ncu.csv"), args.timeout, extra)
            if gpu is None:
                unpaired_all.append(f"{tag}: ncu gave no result (see logs/{tag}-ncu.csv)")
        if args.ncu_logs:
            old = os.path.join(args.ncu_logs, f"{tag}-ncu.csv")
            gpu = parse_ncu_log(old) if os.path.exists(old) else None
        pairs, unpaired = pair(emu, gpu)
        unpaired_all += [f"{tag}: {u}" for u in unpaired]
        for row, launch in pairs:
            kernel = entry_name(row["kernel"])
            for metric, emu_value in row["ncu"].items():
                g = gpu_value(metric, launch[3]) if launch else None
                counter = short(metric)
                v = verdict(emu_value, g)
                reason = (expected(kernel, counter, emu_value, g, {"n": n, "grid": row["grid"], "block": row["block"]})
                          if v not in ("=", "no ncu value") else "")
                twin = sass_twin(counter, launch[3]) if launch else None
                if reason == WHY_WARP_AGG and twin is not None and twin != emu_value:
                    reason = (f"outside the expected bound of: {WHY_WARP_AGG} (the instructions' own "
                              f"count, ncu's source view, is {twin}, not the emulator's)")
                if reason == WHY_PREDICATED and twin is not None:
                    flush = coarsened_flush(kernel, counter, {"n": n, **row}, coarsen_of(extra))
                    if twin != emu_value - flush:
                        reason = (f"outside the expected bound of: {WHY_PREDICATED} (the instructions' "
                                  f"own count, lanes on, is {twin}, not the emulator's less {flush})")
                table.append({
                    "chapter": chapter, "step": row["step"], "kernel": kernel,
                    "counter": counter, "input": input_label(input_arg), "n": n,
                    "grid": row["grid"], "block": row["block"],
                    "emulator": emu_value, "ncu": "" if g is None else g,
                    "verdict": v, "reason": reason, "sass": "" if twin is None else twin,
                })
    write(args.out, table, unpaired_all, bins, sizes, inputs, extras)
    unexplained = [r for r in table if r["verdict"] not in ("=", "no ncu value")
                   and (not r["reason"] or r["reason"].startswith("outside"))]
    compared = [r for r in table if r["verdict"] != "no ncu value"]
    equal = [r for r in compared if r["verdict"] == "="]
    say(f"done in {time.time() - start:.0f} s: {len(equal)} of {len(compared)} pairs equal, "
        f"{len(compared) - len(equal) - len(unexplained)} expected differences, "
        f"{len(unexplained)} unexplained; {args.out}/fidelity.md")
    return 1 if (unexplained or unpaired_all) and (ncu or args.ncu_logs) else 0


def write(out, table, unpaired, bins, sizes, inputs, extras):
    fields = ["chapter", "step", "kernel", "counter", "input", "n", "grid", "block", "emulator", "ncu",
              "verdict", "reason", "sass"]
    with open(os.path.join(out, "fidelity.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(table)
    compared = [r for r in table if r["verdict"] != "no ncu value"]
    equal = sum(1 for r in compared if r["verdict"] == "=")
    provenance = ""
    vfile = os.path.join(out, "versions.txt")
    if os.path.exists(vfile):
        provenance = "; ".join(l.strip() for l in open(vfile) if l.strip())
    counters = [c for c in COUNTERS.values() if any(r["counter"] == c for r in table)]
    kernels = []
    for r in table:
        if (r["chapter"], r["step"], r["kernel"]) not in kernels:
            kernels.append((r["chapter"], r["step"], r["kernel"]))
    by = defaultdict(list)
    for r in table:
        by[(r["chapter"], r["step"], r["kernel"], r["counter"])].append(r)
    differing = {(r["chapter"], r["step"], r["kernel"]) for r in compared if r["verdict"] != "="}
    differing = [k for k in kernels if k in differing]
    same = [k for k in kernels if k not in differing]
    used = []
    for r in compared:
        key = r["reason"].split(": ")[-1] if r["reason"] else ""
        if key in WHY and key not in used:
            used.append(key)
    lines = [
        "# The emulator against Nsight Compute",
        "",
        f"Measured: {provenance or 'see versions.txt'}. Made by `bench/gpu-fidelity.sh` "
        "(`fidelity.py`): the reference kernels of chapters "
        f"{', '.join(b[0] for b in bins)}, inputs {', '.join(input_label(i) for i in inputs)}, "
        f"n = {', '.join(str(s) for s in sizes)}, each launch run on the emulator and under ncu "
        f"(same n, grid and block), {len(counters)} counters each"
        + "".join(f"; {c}'s options `{' '.join(o)}`" for c, o in extras.items()) + ".",
        "",
        "<!-- ANCHOR: summary -->",
        f"**{equal} of {len(compared)} pairs equal.** Every counter of these {len(same)} kernels is "
        "equal on every input and size: " + ", ".join(f"{s} `{k}`" for _, s, k in same) + ". The "
        "others differ only in these counters (the largest difference, ncu minus emulator, in how "
        f"many of the {len(inputs) * len(sizes)} runs, and why):",
        "",
        "| kernel | counter | difference | runs | why |",
        "| --- | --- | --- | --- | --- |",
    ]
    for k in differing:
        for c in counters:
            rs = [r for r in by[k + (c,)] if r["verdict"] != "no ncu value"]
            diffs = [r for r in rs if r["verdict"] != "="]
            if not diffs:
                continue
            worst = max(diffs, key=lambda r: abs(int(r["ncu"]) - int(r["emulator"])))
            why = worst["reason"].split(": ")[-1] if worst["reason"] else "unexplained"
            lines.append(f"| {k[1]} `{k[2]}` | {c} | "
                         f"{int(worst['ncu']) - int(worst['emulator']):+d} | {len(diffs)}/{len(rs)} | {why} |")
    lines += ["<!-- ANCHOR_END: summary -->", ""]
    if used:
        lines += ["## Why they differ", "", "<!-- ANCHOR: why -->"]
        lines += [f"- **{k}**: {WHY[k]}." for k in used]
        lines += ["<!-- ANCHOR_END: why -->", ""]
    lines += ["## Every difference", "",
              "| step | kernel | counter | input | n | emulator | ncu | difference | why |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in compared:
        if r["verdict"] != "=":
            lines.append(f"| {r['step']} | {r['kernel']} | {r['counter']} | {r['input']} | {r['n']} | "
                         f"{r['emulator']} | {r['ncu']} | {r['verdict']} | {r['reason'] or 'unexplained'} |")
    if unpaired:
        lines += ["", "## Launches not compared", ""] + [f"- {u}" for u in unpaired]
    lines += ["", "Every pair, equal or not, is in the CSV beside this file."]
    with open(os.path.join(out, "fidelity.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
