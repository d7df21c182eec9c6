#!/usr/bin/env python3
"""Fills a chapter's page templates (book/gen/ch05, book/gen/ch09) with real runs.

Placeholders: @@cmd:NAME@@ (the command of run NAME), @@out:NAME@@ (its output),
@@file:F@@ (a file of the runs folder), @@py:EXPR@@ (a value computed from the runs or
from the GPU benchmark's JSON: bench(), gbps(), pct(), ratio(), bench_table(), ...),
and a line @@check:EXPR@@ (a statement of the prose that must still hold: generation
stops if it does not). Run through book/gen/regenerate.sh, which makes the runs first.
The chapter is the templates folder's name (ch05, ch09): its runs are RUNS_BY[chapter],
each a `cargo run -p CHAPTER -- ARGS`.
Usage: gen.py TEMPLATES_DIR OUT_DIR    (also: gen.py --list-runs [CHAPTER], default ch09)
"""
import os, re, sys
RUNS_CH09 = {
 'full': '',
 's91json': '--step 9.1 --json',
 's92': '--step 9.2',
 's93': '--step 9.3',
 's93zeros': '--step 9.3 --input zeros',
 # CUDA by Example's two extremes of the grid: one block, and one byte per thread.
 's93g1': '--step 9.3 --grid 1',
 's93g1024': '--step 9.3 --grid 1024',
 's94': '--step 9.3 --step 9.4',
 's94g4': '--step 9.4 --grid 4',
 's94g1': '--step 9.4 --grid 1',
 's95': '--step 9.4 --step 9.5',
 's95b7': '--step 9.5 --bins 7',
 's96': '--step 9.5 --step 9.6',
 's96c16': '--step 9.6 --coarsen 16',
 's97': '--step 9.6 --step 9.7',
 's97skew': '--step 9.6 --step 9.7 --input skew:90',
 's97zeros': '--step 9.7 --input zeros',
 's98': '--step 9.7 --step 9.8',
 's98skew': '--step 9.7 --step 9.8 --input skew:90',
 's98zeros': '--step 9.8 --input zeros',
 's99': '--step 9.6 --step 9.9',
 's99json': '--step 9.9 --json',
 's99zeros': '--step 9.9 --input zeros',
 's910': '--step 9.10 --bins 16',
 's910zeros': '--step 9.10 --bins 16 --input zeros',
 's911': '--step 9.11',
 's911json': '--step 9.11 --json',
 's912': '--step 9.12',
 's912json': '--step 9.12 --json',
 's913': '--step 9.13',
 's914': '--step 9.14 --bins 4096',
 's915': '--step 9.3 --step 9.15',
 's915json': '--step 9.15 --json',
 's915b8': '--step 9.15 --bins 8 --json',
 's916b8': '--step 9.16 --bins 8',
 's916b256': '--step 9.16 --bins 256',
 's916b4096': '--step 9.16 --bins 4096',
 's917': '--step 9.17 --bins 65536 --columns step,kernel,status,grid,g.atomics,s.atomics,g.sectors,warp.instr',
 # PMPP's exam: 524 288 characters into 128 bins by 1024-thread blocks, without
 # privatization, with it, and with a coarsening factor of 4.
 'pmpp': '--step 9.3 --step 9.5 --step 9.6 --n 524288 --bins 128 --block 1024 --coarsen 4 --input text:book/src/introduction.md --columns step,kernel,status,grid,block,g.atomics,s.atomics',
 # The sections of Sanders's and Cook's own material (issue 39, point 7): verification
 # by decrementing (a run whose name ends in _fails exits 1: its kernel is wrong), constant
 # memory on three inputs, two streams.
 'verify': 'verify --step 9.3 --step 9.5 --step 9.9',
 'verify92_fails': 'verify --step 9.2',
 'constant': 'constant',
 'constantu': 'constant --input uniform',
 'constantz': 'constant --input zeros',
 'streams': 'streams',
}
# Chapter 5: the progression at its defaults (n = 65536, blocks of 256) unless a run says.
RUNS_CH05 = {
 'full': '',
 'fulljson': '--json',
 's51': '--step 5.1',
 's51tail': '--step 5.1 --n 100 --block 64',
 's52': '--step 5.2',
 's53': '--step 5.3',
 's53g8': '--step 5.3 --grid 8',
 's54': '--step 5.4',
 's54b64': '--step 5.4 --n 4096 --block 64',
 's55': '--step 5.5',
 's56': '--step 5.6',
 's56n32': '--step 5.6 --words-per-thread 32',
 'student51': '--kernels student --step 5.1',
}
RUNS_BY = {'ch09': RUNS_CH09, 'ch05': RUNS_CH05}
# What a quoted run shows: the columns its section discusses (`--columns`), so that the
# table fits the page's column (book/layout.py measures it). A view NAME is run BASE with
# `--columns COLS`, into NAME.view.txt; @@cmd:NAME@@ and @@out:NAME@@ quote the view, while
# row(NAME, ...) reads the full run BASE. The index pages quote the default run in two views.
VIEWS_CH09 = {
 's92': ('s92', 'step,kernel,status,g.sectors,warp.instr,lost'),
 's93': ('s93', 'step,kernel,status,g.atomics,worst.ser,g.sectors,warp.instr'),
 's93zeros': ('s93zeros', 'step,kernel,status,g.atomics,worst.ser,g.sectors,warp.instr'),
 's93g1': ('s93g1', 'step,kernel,status,grid,g.atomics,worst.ser,g.sectors,warp.instr'),
 's93g1024': ('s93g1024', 'step,kernel,status,grid,g.atomics,worst.ser,g.sectors,warp.instr'),
 's94': ('s94', 'step,kernel,status,g.atomics,worst.ser,g.sectors,warp.instr'),
 's94g4': ('s94g4', 'step,kernel,status,grid,g.atomics,worst.ser,g.sectors'),
 's94g1': ('s94g1', 'step,kernel,status,grid,g.atomics,worst.ser,g.sectors'),
 's95': ('s95', 'step,kernel,g.atomics,s.atomics,bank.conf,at.conf,warp.instr'),
 's95b7': ('s95b7', 'step,kernel,status,bins,g.atomics,worst.ser,diverg'),
 's96': ('s96', 'step,kernel,g.atomics,s.atomics,g.sectors,warp.instr'),
 's96c16': ('s96c16', 'step,kernel,grid,g.atomics,s.atomics,g.sectors'),
 's97': ('s97', 'step,kernel,s.atomics,worst.ser,at.conf,diverg'),
 's97skew': ('s97skew', 'step,kernel,s.atomics,worst.ser,at.conf,diverg'),
 's97zeros': ('s97zeros', 'step,kernel,status,s.atomics,worst.ser,at.conf,diverg'),
 's98': ('s98', 'step,kernel,s.atomics,worst.ser,at.conf,diverg,warp.instr'),
 's98skew': ('s98skew', 'step,kernel,s.atomics,worst.ser,at.conf,diverg,warp.instr'),
 's98zeros': ('s98zeros', 'step,kernel,g.atomics,s.atomics,worst.ser,at.conf,diverg'),
 's99': ('s99', 'step,kernel,g.atomics,s.atomics,at.conf,warp.instr'),
 's99zeros': ('s99zeros', 'step,kernel,grid,g.atomics,s.atomics,worst.ser,at.conf'),
 's910': ('s910', 'step,kernel,status,g.atomics,s.atomics,diverg,warp.instr'),
 's910zeros': ('s910zeros', 'step,kernel,status,g.atomics,s.atomics,diverg,warp.instr'),
 's911': ('s911', 'step,kernel,bins,g.atomics,s.atomics,at.conf,diverg,warp.instr'),
 's912': ('s912', 'step,kernel,g.atomics,bank.conf,at.conf,warp.instr,lost'),
 's913': ('s913', 'step,kernel,status,g.atomics,s.atomics,worst.ser,g.sectors'),
 's914': ('s914', 'step,kernel,status,g.atomics,worst.ser,diverg,warp.instr'),
 's915': ('s915', 'step,kernel,status,g.atomics,g.sectors,diverg'),
 's916b8': ('s916b8', 'step,kernel,status,g.atomics,worst.ser,warp.instr'),
 's916b256': ('s916b256', 'step,kernel,status,g.atomics,worst.ser,warp.instr'),
 's916b4096': ('s916b4096', 'step,kernel,status,g.atomics,worst.ser,warp.instr'),
 'fullA': ('full', 'step,kernel,status,g.atomics,s.atomics,worst.ser'),
 'fullB': ('full', 'step,kernel,g.sectors,at.conf,diverg,warp.instr,lost'),
}
VIEWS_CH05 = {
 's51': ('s51', 'step,kernel,launch,status,n,ld.req,st.req,st.sect'),
 's51tail': ('s51tail', 'step,kernel,launch,status,n,simt.eff,st.req,st.sect'),
 's52': ('s52', 'step,kernel,launch,status,n,st.req,st.sect'),
 's53': ('s53', 'step,kernel,launch,status,n,ld.req,ld.sect,st.req'),
 's53g8': ('s53g8', 'step,kernel,launch,status,n,ld.req,ld.sect,st.req'),
 's54': ('s54', 'step,kernel,launch,warp.instr,simt.eff,diverg,ld.sect'),
 's54b64': ('s54b64', 'step,kernel,launch,warp.instr,simt.eff,diverg,ld.sect'),
 's55': ('s55', 'step,kernel,launch,status,n,warp.instr'),
 's56': ('s56', 'step,kernel,ld.req,ld.sect,g.atomics,s.atomics,barriers'),
 's56n32': ('s56n32', 'step,kernel,ld.req,ld.sect,g.atomics,s.atomics,barriers'),
 'fullA': ('full', 'step,kernel,status,warp.instr,simt.eff,diverg'),
 'fullB': ('full', 'step,kernel,ld.req,ld.sect,st.req,st.sect,g.atomics,s.atomics'),
}
VIEWS_BY = {'ch09': VIEWS_CH09, 'ch05': VIEWS_CH05}
if sys.argv[1:2] == ['--list-runs']:
    CHAPTER = sys.argv[2] if len(sys.argv) > 2 else 'ch09'
elif len(sys.argv) > 1:
    CHAPTER = os.path.basename(os.path.normpath(sys.argv[1]))
else:
    CHAPTER = 'ch09'
RUNS = RUNS_BY[CHAPTER]
VIEWS = VIEWS_BY[CHAPTER]
# The step ids of the chapter's tables start with its number: "9." or "5.".
STEP_PREFIX = str(int(CHAPTER[2:])) + '.'
OUT = os.environ.get('BOOK_RUNS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'target', 'book-runs'))
def view_args(name):
    """The arguments of the quoted run NAME: its view's, or the run's own."""
    if name in VIEWS:
        base, cols = VIEWS[name]
        a = RUNS[base]
        return (a + ' ' if a else '') + '--columns ' + cols
    return RUNS[name]
def cmd(name):
    a = view_args(name)
    return f'cargo run -p {CHAPTER}' + (' -- ' + a if a else '')
def out(name):
    """The whole output of run NAME (what row() and j() read)."""
    return open(os.path.join(OUT, name + '.txt')).read().rstrip('\n')
def said(name):
    """The whole output of run NAME with its whitespace collapsed: the text of its notes,
    which the chapter CLIs wrap at 80 columns, as one line to search."""
    return ' '.join(out(name).split())
def shown(name):
    """The output a page quotes for NAME: its view's when it has one."""
    if name in VIEWS:
        return open(os.path.join(OUT, name + '.view.txt')).read().rstrip('\n')
    return out(name)
# A command line may be this wide and fit a phone's column (390 px: book/limits.py checks
# every page's commands against the same bound).
COMMAND_WIDTH = 44
def wrap_words(words, width, first='', indent='    '):
    """`words` (a command split at spaces) as lines of at most `width` characters, each
    but the last ending in ` \\`: the first starts with `first`, the others with `indent`.
    A flag keeps its value on its line when both fit; a word longer than a line is broken
    after a comma, its continuation at the line's start (bash joins `\\` and a newline
    inside a word), so that the command copied whole still runs."""
    groups = []
    for word in words:
        if groups and not word.startswith('-') and groups[-1].startswith('--') and ' ' not in groups[-1]:
            groups[-1] += ' ' + word
        else:
            groups.append(word)
    parts = []
    for g in groups:
        if len(indent) + len(g) + 2 > width and ' ' in g:
            parts.extend(g.split(' ', 1))
        else:
            parts.append(g)
    lines, cur = [], first
    for p in parts:
        if cur.strip() and len(cur) + 1 + len(p) + 2 > width:
            lines.append(cur + ' \\')
            cur = indent
        elif cur.strip():
            cur += ' '
        while len(cur) + len(p) + 2 > width and ',' in p[:width - len(cur) - 1]:
            cut = p[:width - len(cur) - 1].rindex(',') + 1
            lines.append(cur + p[:cut] + '\\')
            cur, p = '', p[cut:]
        cur += p
    return '\n'.join(lines + [cur])
def prompt_cmd(name):
    """`$ CMD` for a text block, continued with a backslash where it would pass a phone's
    column (COMMAND_WIDTH)."""
    return wrap_words(cmd(name).split(' '), COMMAND_WIDTH, first='$')
def block_cmd(name, quote=''):
    """CMD for a `sh` block (each line after `quote`, '> ' in a Predict box), continued with
    a backslash where it would pass a phone's column."""
    return '\n'.join(quote + l for l in wrap_words(cmd(name).split(' '), COMMAND_WIDTH - len(quote)).split('\n'))
import json
def j(name, field, kernel=None):
    rows = json.loads(out(name))
    for r in rows:
        if kernel is None or r['kernel'].startswith(kernel):
            return r['counters'][field]
    raise SystemExit(f'no row {kernel} in {name}')
def row(name, kernel, col, launch=None, exact=False):
    """A cell of run NAME's table: the first row whose kernel starts with KERNEL (is KERNEL,
    with exact; and whose line holds LAUNCH, e.g. '<<<1, 65>>>', when given), in column COL."""
    lines = out(name).split('\n')
    head = next(l for l in lines if l.startswith('step '))
    cols = head.split()
    for l in lines:
        k_ = l.split()[1] if l.startswith(STEP_PREFIX) else ''
        if (k_ == kernel if exact else k_.startswith(kernel)) and (launch is None or launch in l):
            # the kernel name may contain spaces: count columns from the right
            cells = l.split()
            k = len(cols) - cols.index(col)
            v = cells[-k]
            return int(v) if v.isdigit() else v
    raise SystemExit(f'no row {kernel} in {name}')
# The GPU benchmark: a JSON written by `ch09 bench` on a GPU (header + rows of impl, step,
# input, dtype, bins, bytes, median_ms, gbps, pct_read_bw, correct). Paths are relative to
# the repository root; every helper takes the file as a parameter, the current run by default.
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
BENCH = 'notes/bench-h100-2026-11-25.json'
VARIANTS = 'notes/variants-h100-2026-11-22.json'
EXTENSIONS = 'notes/extensions-h100-2026-11-22.json'
# The performance issue's run of 9.14 with 9.9's loads (`u32_vectors`), CUB and the CPU at
# 1 GiB, uniform and one value (notes/limits-h100-2026-11-24.md), and its ncu report of 9.14.
LIMITS_U32 = 'notes/limits-u32-h100-2026-11-24.json'
NCU_914 = 'notes/ncu-9.14-h100-2026-11-24.txt'
# The size sweeps, every launch from a cold L2 (notes/cold-l2-h100-2026-11-25.md): the
# newest of each kind under notes/ or a folder of it, by the date of its runs, as
# crates/figures picks them for ch09-sizes.svg (figures::sizes::load_sizes).
def newest_sweep(dtype):
    """The path, relative to the root, of the newest `sizes-DTYPE-*.json` of notes/ and its
    folders, by its first run's date."""
    import glob
    found = glob.glob(os.path.join(ROOT, 'notes', f'sizes-{dtype}-*.json')) + \
        glob.glob(os.path.join(ROOT, 'notes', '*', f'sizes-{dtype}-*.json'))
    dated = sorted((json.load(open(f))['runs'][0]['report']['header']['date_utc'], os.path.relpath(f, ROOT))
                   for f in found)
    return dated[-1][1]
SIZES_U8 = newest_sweep('u8')
# The last sweeps before that, each launch after the one before on the same input: an
# input smaller than the L2 was read from the cache.
SIZES_U8_WARM = 'notes/sizes-u8-h100-2026-11-24c.json'
SIZES_U32_WARM = 'notes/sizes-u32-h100-2026-11-24c.json'
# atoms_rate_probe.cu on the H100: the shared atomics of a 16 MiB byte histogram alone,
# under Nsight Compute (notes/atoms-rate-h100-2026-11-25/).
NCU_ATOMS = 'notes/atoms-rate-h100-2026-11-25/ncu-atoms-rate.txt'
# 9.17's runs at 16384 and 65536 bins (`bench --dtype u32 --u32-bins B`, 1 GiB, three
# inputs) and Nsight Compute on `u32_sliced_vectors` at 65536 bins.
MANY_BINS = {16384: 'notes/many-bins-16384-h100-2026-11-24.json',
             65536: 'notes/many-bins-65536-h100-2026-11-24.json'}
NCU_917 = 'notes/ncu-sliced-65536-h100-2026-11-24.txt'
MANY_INPUTS = ['uniform', '90pct-one-value', 'one-value']
def many_bins_table():
    """9.17's GPU runs as a markdown table: per bin count and input, GB/s of the sliced
    kernels, 9.14's global kernel and CUB, and the best kernel against the read kernel and
    CUB of the same run."""
    lines = ['| bins | input | `u32_sliced_vectors`, GB/s | % of read bw | `histo_u32_sliced` | `histo_u32_global` | CUB | × CUB |',
             '| --- | --- | --- | --- | --- | --- | --- | --- |']
    for bins, f in MANY_BINS.items():
        for i in MANY_INPUTS:
            g = lambda impl: bench(impl, i, 'u32', file=f)
            lines.append(f"| {bins} | {INPUT_NAMES[i]} | {fmt_gbps(g('u32_sliced_vectors'))} | "
                         f"{bench('u32_sliced_vectors', i, 'u32', 'pct_read_bw', f):.1f} | "
                         f"{fmt_gbps(g('histo_u32_sliced'))} | {fmt_gbps(g('histo_u32_global'))} | "
                         f"{fmt_gbps(g('cub'))} | {g('u32_sliced_vectors') / g('cub'):.1f}× |")
    return '\n'.join(lines)
SIZES_U32 = newest_sweep('u32')
def size_times(file):
    """Per size of a `bench --sizes` run: (MiB, read kernel µs, best GPU step's kernel and µs,
    CUB µs), uniform input."""
    out = []
    for run in json.load(open(os.path.join(ROOT, file)))['runs']:
        rows = [r for r in run['report']['rows'] if r['input'] == 'uniform' and r['correct']]
        t = lambda pick: min((r['median_ms'] * 1e3, r['impl']) for r in rows if pick(r))
        read = t(lambda r: r['impl'].startswith('read_bandwidth'))[0]
        best, kernel = t(lambda r: r['step'].startswith('9.'))
        cub = t(lambda r: r['step'] == 'cub')[0]
        out.append((run['bytes'] >> 20, read, kernel, best, cub))
    return out
def atoms_ncu(metric, grid='132', block='512', kernel='atoms_kernel'):
    """A metric of the first profiled launch of the probe's `kernel` on `grid` x `block`
    (Nsight Compute's text report, NCU_ATOMS), as a float."""
    launch, found = None, None
    for line in open(os.path.join(ROOT, NCU_ATOMS)):
        if re.match(r'^  \S', line):
            launch = line.startswith('  ' + kernel + '(') and f'({grid}, 1, 1)x({block}, 1, 1)' in line
            continue
        m = re.match(r'^\s+' + re.escape(metric) + r'\s+\S+\s+([\d,.]+)\s*$', line)
        if launch and m:
            return float(m.group(1).replace(',', ''))
    raise KeyError((kernel, grid, block, metric))
def sizes_table(dtype=None):
    """The size sweep as a markdown table: time against the read kernel of the same run,
    and CUB against the kernel; both element types side by side, or one (`u8`, `u32`)."""
    u8, u32 = size_times(SIZES_U8), size_times(SIZES_U32)
    if dtype:
        kernel = {'u8': '9.9', 'u32': '`u32_vectors`'}[dtype]
        lines = [f'| size | read kernel, µs | {kernel}, µs | / read | CUB / it |', '| --- | --- | --- | --- | --- |']
        for m, r, _, b, c in {'u8': u8, 'u32': u32}[dtype]:
            lines.append(f'| {m} MiB | {r:.1f} | {b:.1f} | {b / r:.2f}× | {c / b:.1f}× |')
        return '\n'.join(lines)
    lines = ['| size | read kernel, µs | 9.9, µs | 9.9 / read | CUB / 9.9 | u32: read, µs | `u32_vectors`, µs | / read | CUB / it |',
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for (m, r8, _, b8, c8), (m32, r32, _, b32, c32) in zip(u8, u32):
        assert m == m32
        lines.append(f'| {m} MiB | {r8:.1f} | {b8:.1f} | {b8 / r8:.2f}× | {c8 / b8:.1f}× | {r32:.1f} | {b32:.1f} | {b32 / r32:.2f}× | {c32 / b32:.1f}× |')
    return '\n'.join(lines)
# The best published single-core byte histogram found: TurboHist's `hist_8_32`, 2823 MB/s
# on enwik9 (text) and on its BWT (skewed), one thread of an Intel Core i7-6700 at 3.4 GHz,
# gcc 9.2 (github.com/powturbo/Turbo-Histogram, README, "Last update: 24 Oct 2019").
def noted(file, text):
    """`text`, checked to appear in `file` under notes/ (whitespace aside): a number a page
    quotes from a note written as prose or as a table. Generation stops when the note no
    longer says it."""
    body = ' '.join(open(os.path.join(ROOT, file)).read().split())
    if ' '.join(text.split()) not in body:
        raise SystemExit(f'{file} no longer says {text!r}')
    return text
def noted_num(file, text):
    """The number `text`, checked to appear in `file` ([`noted`])."""
    return float(noted(file, text).replace(',', ''))
CPU_NOTE = 'notes/cpu-histogram-2026-11-24.md'
noted(CPU_NOTE, 'TurboHist `hist_8_32`, 2823 MB/s, one thread of an i7-6700 at 3.4 GHz')
TURBOHIST_MBPS, TURBOHIST_GHZ = int(noted_num(CPU_NOTE, '2823')), noted_num(CPU_NOTE, '3.4')
# The fastest published byte histogram found with SIMD: Harold Aptroot's AVX-512 positional
# popcount (VPCOMPRESSB binning, GF2P8AFFINEQB + VPOPCNTB column sums), about 8.8 GB/s on an
# Intel Core i5-11600K against 4.6 GB/s for TurboHist's hist_8_64 on the same machine
# (bitmath.blogspot.com/2024/11, "Histogramming bytes with positional popcount
# (GF2P8AFFINEQB edition)", 2024-11-10).
SIMD_NOTE = 'notes/cpu-simd-2026-11-25.md'
noted(SIMD_NOTE, 'positional popcount is about 8.8 GB/s on one core')
noted(SIMD_NOTE, "TurboHist's `hist_8_64` at about 4.6 GB/s")
APTROOT_GBPS, APTROOT_HIST_8_64_GBPS = noted_num(SIMD_NOTE, '8.8'), noted_num(SIMD_NOTE, '4.6')
# The last bench on the same host before the byte code was SIMD (the scalar tables),
# for what AVX-512 gave there.
CPU_SCALAR = 'notes/bench-h100-2026-11-24b.json'
# One core of the course's development machine (AMD EPYC, Zen 5) with the SIMD byte code:
# GB/s per input, best of 5 over 256 MiB, the lower of two runs (notes/cpu-simd-2026-11-25.md).
def amd_simd_gbps(file=SIMD_NOTE):
    """The lower of the two runs per input, as the note gives them (GB/s)."""
    body = ' '.join(open(os.path.join(ROOT, file)).read().split())
    m = re.search(r'uniform (\d+\.\d+) and (\d+\.\d+) GB/s, one value (\d+\.\d+) and (\d+\.\d+), '
                  r'90 % one value (\d+\.\d+) and (\d+\.\d+), text (\d+\.\d+) and (\d+\.\d+)', body)
    if not m:
        raise SystemExit(f'{file} no longer gives the SIMD code\'s GB/s per input')
    v = [float(x) for x in m.groups()]
    return {'uniform': min(v[0:2]), 'one-value': min(v[2:4]), '90pct-one-value': min(v[4:6]),
            'text': min(v[6:8])}
AMD_SIMD_GBPS = amd_simd_gbps()
# Published code on one core of the bench's host (notes/cpu-published-2026-11-25.md):
# Joern Engel's AVX-512 histogram.c (vhist256) against the tuned code, eight rounds that
# alternate the two over 256 MiB, and one call over buffers in L1 and L2; TurboHist's best
# variant, GB/s of uniform bytes in two calls; what one core reads from memory, GB/s;
# Engel's own figure for his code, millicycles per byte on a Tiger Lake.
XEON_PAIRS = 'notes/cpu-published-2026-11-25/h100-host-pairs.txt'
XEON_SIZES = 'notes/cpu-published-2026-11-25/h100-host-sizes.txt'
PUBLISHED_NOTE = 'notes/cpu-published-2026-11-25.md'
def published_cell(row, pattern):
    """The numbers `pattern` finds in the table row of the published-code note that starts
    with `row`."""
    for l in open(os.path.join(ROOT, PUBLISHED_NOTE)).read().split('\n'):
        if l.startswith('| ' + row):
            m = re.search(pattern, l)
            if m:
                return tuple(float(x) for x in m.groups())
    raise SystemExit(f'{PUBLISHED_NOTE} has no row {row!r} with {pattern!r}')
XEON_TURBOHIST_GBPS = (published_cell('TurboHist, best variant (call 2)', r'\| ([\d.]+) ')[0],
                       published_cell('TurboHist, best variant (call 1)', r'\| ([\d.]+) ')[0])
XEON_READ_GBPS = published_cell('one core reading memory', r'\| ([\d.]+), ([\d.]+) \|')
ENGEL_MC_PER_BYTE = int(published_cell('Engel', r'Tiger Lake figure: (\d+)')[0])
def median_range(ratios):
    """(median, min, max) of `ratios`, rounded to two places."""
    ratios = sorted(ratios)
    mid = len(ratios) // 2
    median = (ratios[mid - 1] + ratios[mid]) / 2 if len(ratios) % 2 == 0 else ratios[mid]
    return tuple(round(x, 2) for x in (median, ratios[0], ratios[-1]))
def engel_ratios(file=XEON_PAIRS):
    """Engel's GB/s over the tuned code's, round by round: {input: (median, min, max)},
    rounded to two places (the inputs as the pairs file names them: uniform, text)."""
    rounds = open(os.path.join(ROOT, file)).read().split('== round ')[1:]
    out = {}
    for input, name in [('uniform', 'u.bin'), ('text', 't.bin')]:
        gbps = lambda who, r: float(re.search(rf'{name}: {who}.* ([0-9.]+) GB/s', r).group(1))
        out[input] = median_range(gbps('Engel', r) / gbps('course', r) for r in rounds)
    return out
def engel_cached_ratios(file=XEON_SIZES):
    """Engel's GB/s over the tuned code's on uniform bytes from L1 (32 KiB) and L2 (1 MiB),
    one ratio per size and round of the sizes file, ascending."""
    ratios = []
    for r in open(os.path.join(ROOT, file)).read().split('== round ')[1:]:
        for size in ('32768', '1048576'):
            gbps = lambda who: float(re.search(rf'{who}, uniform, {size} bytes x \d+: ([0-9.]+) GB/s', r).group(1))
            ratios.append(gbps('Engel vhist256') / gbps('course simd'))
    return sorted(ratios)
XEON_ENGEL_RATIO = engel_ratios()
# The fastest published per-core figures found for u32 values: Wojciech Mula's histograms
# of 32-bit values (github.com/WojciechMula/toys, avx512-conflict-detection, results/*.txt,
# Go benchmarks of 10 Mi values uniform over 15, 64 or 256 values, counted into 4096
# counters; its "MB/s" are millions of values per second): his scalar loop at 4458 to 5124
# M values/s on one core of an AMD Ryzen 7 9700X, 3990 to 4335 on a Ryzen 7 7700X; his
# fastest AVX-512 loop (V3) 709 to 729 on a Skylake Xeon virtual machine.
def mula_published(file='notes/u32-anchor-2026-11-25.md'):
    """The low and high of three figures (G values/s) of a row of the u32 anchor note's
    table of Mula's published results."""
    lines = open(os.path.join(ROOT, file)).read().split('\n')
    def row(start, col):
        l = next(l for l in lines if l.startswith('| ' + start))
        cell = l.split('|')[col]
        v = [int(x) / 1000 for x in re.findall(r'\d+', cell.split('(')[0])]
        return (round(min(v), 2), round(max(v), 2))
    return {'9700X scalar': row('AMD Ryzen 7 9700X', 2), '7700X scalar': row('AMD Ryzen 7 7700X', 2),
            'Skylake Xeon V3': row('Intel Xeon, Skylake', 3)}
MULA_PUBLISHED = mula_published()
# His code (go test -c of that folder, commit 15ba010, Go 1.19.8) and the course's u32 CPU
# code on one core of the bench's host, three rounds alternating the two on his input
# shapes (notes/u32-anchor-2026-11-25.md).
XEON_U32_PAIRS = 'notes/u32-anchor-2026-11-25/h100-host-u32.txt'
def mula_pairs(file=XEON_U32_PAIRS):
    """Per round and input (values uniform over 15, 64, 256): (his fastest variant's G values/s,
    the tuned code's), and the tuned code's at 4096 values, from the raw output."""
    pairs, at_4096 = [], []
    for r in open(os.path.join(ROOT, file)).read().split('== round ')[1:]:
        for m in (15, 64, 256):
            his = max(float(x) for x in re.findall(rf'BenchmarkHistogram/\w+/10485760-{m}-false\s+\d+\s+[0-9.]+ ns/op\s+([0-9.]+) MB/s', r)) / 1000
            ours = float(re.search(rf'maxint {m}:  tuned ([0-9.]+) G/s', r).group(1))
            pairs.append((his, ours))
        at_4096 += [float(x) for x in re.findall(r'maxint 4096:  tuned ([0-9.]+) G/s', r)]
    return pairs, at_4096
XEON_MULA_PAIRS, XEON_MULA_4096 = mula_pairs()
# His fastest variant over the tuned code, per (round, input): (median, min, max).
XEON_MULA_RATIO = median_range(his / ours for his, ours in XEON_MULA_PAIRS)
def cpu_threads_rows(dtype='u8', file=BENCH):
    """The thread counts of the bench's scaling rows ('cpu N threads'), ascending."""
    ns = {int(m.group(1)) for r in bench_data(file)['rows'] if r['dtype'] == dtype
          for m in [re.match(r'^cpu (\d+) threads$', r['impl'])] if m}
    return sorted(ns)
def cpu_one_thread(dtype='u8', file=BENCH):
    """The impl name of the tuned single-thread CPU row."""
    names = {r['impl'] for r in bench_data(file)['rows'] if r['dtype'] == dtype
             and r['impl'].startswith('cpu 1 thread')}
    assert len(names) == 1, names
    return names.pop()
def cycles_per_byte(input='uniform', dtype='u8', file=BENCH):
    """The tuned single-thread row's cycles per input byte at the run's measured clock."""
    return bench_header('host_clock_ghz', file) / bench(cpu_one_thread(dtype, file), input, dtype, file=file)
def cpu_table(dtype='u8', file=BENCH):
    """The bench's CPU rows as a markdown table: per input, the naive loop, four interleaved
    tables and the tuned code on one thread (GB/s, and cycles per byte at the measured
    clock), then the tuned code on 2, 4, ... threads and the speed-up of all of them."""
    threads = cpu_threads_rows(dtype, file)
    one = cpu_one_thread(dtype, file)
    cols = ['input', 'naive', '4 tables', 'tuned', 'cycles / B'] + \
        [f'{n} thr.' for n in threads] + [f'{threads[-1]} / 1']
    lines = ['| ' + ' | '.join(cols) + ' |', '|' + ' --- |' * len(cols)]
    for i in INPUTS:
        g = lambda impl: bench(impl, i, dtype, file=file)
        cells = [INPUT_NAMES[i], fmt_gbps(g('cpu naive loop')), fmt_gbps(g('cpu 4 interleaved tables')),
                 fmt_gbps(g(one)), f'{cycles_per_byte(i, dtype, file):.2f}'] + \
            [fmt_gbps(g(f'cpu {n} threads')) for n in threads] + \
            [f'{g(f"cpu {threads[-1]} threads") / g(one):.1f}×']
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)
def ncu_plain(metric, file):
    """The value of `metric` in a plain Nsight Compute report (one launch, its sections as
    ncu prints them), e.g. ncu_plain('DRAM Throughput', NCU_914) == '65.97'."""
    for l in open(os.path.join(ROOT, file)):
        m = re.match(r'^\s+' + re.escape(metric) + r'\s{2,}(\S+\s+)?([\d,.]+)\s*$', l)
        if m:
            return m.group(2)
    raise SystemExit(f'no {metric} in {file}')
# The bench of 2026-11-22 wrote "for" as its driver version (a parsing bug, since fixed);
# the driver of that run, from notes/gpu-runs.md and nvidia-smi of the same machine:
DRIVER_FIX = {'notes/bench-h100-2026-11-22.json': '580.159.04'}
_bench_cache = {}
def bench_data(file=BENCH):
    if file not in _bench_cache:
        _bench_cache[file] = json.load(open(os.path.join(ROOT, file)))
    return _bench_cache[file]
def bench_header(field, file=BENCH):
    data = bench_data(file)
    # A `bench --sizes` file: the header of its first size's report.
    h = data['runs'][0]['report']['header'] if 'runs' in data else data['header']
    if field == 'driver_version' and not re.match(r'^\d+(\.\d+)+$', str(h[field])):
        return DRIVER_FIX[file]
    if field == 'date':
        return h['date_utc'][:10]
    return h[field]
def bench_row(impl, input='uniform', dtype='u8', file=BENCH, bins=None):
    """The row of `impl` (its exact name, else a unique prefix such as 'cub' or 'torch') on
    `input`, with `bins` bins when given (the extension sweep has a row per bin count)."""
    rows = [r for r in bench_data(file)['rows']
            if r['input'] == input and r['dtype'] == dtype
            and (bins is None or r['bins'] == bins)
            and (r['impl'] == impl or r['impl'].startswith(impl))]
    exact = [r for r in rows if r['impl'] == impl]
    rows = exact or rows
    if len(rows) != 1:
        raise SystemExit(f'{len(rows)} rows for {impl} {input} {dtype} in {file}')
    if not rows[0]['correct']:
        raise SystemExit(f'{impl} {input} {dtype} in {file} was not correct')
    return rows[0]
def bench(impl, input='uniform', dtype='u8', field='gbps', file=BENCH, bins=None):
    """A field of a row (raw number): gbps, pct_read_bw, median_ms, ... `pct_read_bw` is
    taken against the read kernel of the run ([`read_kernel_gbps`]), which the older runs'
    own field is not (it was against the faster of the read kernel and the copy)."""
    row = bench_row(impl, input, dtype, file, bins)
    if field == 'pct_read_bw':
        return 100 * row['gbps'] / read_kernel_gbps(file)
    return row[field]
def read_kernel_gbps(file=BENCH):
    """The speed of the run's read kernel (16-byte loads, counting nothing), GB/s: the
    ceiling the book holds the kernels against. A run's `read_bw_gbps` is the faster of it
    and a copy kernel; where the copy was faster (the extensions run of 2026-11-22: 2960
    against 2930 GB/s), the read kernel's figure is the one the pages use."""
    try:
        return bench_header('read_kernel_gbps', file) or bench_header('read_bw_gbps', file)
    except KeyError:
        return bench_header('read_bw_gbps', file)
def fmt_gbps(v):
    return f'{v:.1f}' if v < 10 else f'{v:.0f}'
def gbps(impl, input='uniform', dtype='u8', file=BENCH, bins=None):
    """GB/s of a row, as the pages print it (one decimal below 10, else whole)."""
    return fmt_gbps(bench(impl, input, dtype, 'gbps', file, bins))
def pct(impl, input='uniform', dtype='u8', file=BENCH, bins=None):
    """% of the run's read bandwidth, one decimal."""
    v = bench(impl, input, dtype, 'pct_read_bw', file, bins)
    return f'{v:.2f}' if v < 1 else f'{v:.1f}'
def ratio(a, b, input='uniform', dtype='u8', file=BENCH, digits=2):
    """GB/s of a over GB/s of b (a's speed-up over b), formatted."""
    return f"{bench(a, input, dtype, 'gbps', file) / bench(b, input, dtype, 'gbps', file):.{digits}f}"
def faster(a, b, input='uniform', dtype='u8', file=BENCH, bins=None):
    """True when a ran faster than b (for @@check:@@)."""
    return bench(a, input, dtype, 'gbps', file, bins) > bench(b, input, dtype, 'gbps', file, bins)
def span_of(values, digits=1):
    """'1.3 to 1.5', or '1.7' when the values agree at `digits` places."""
    lo, hi = f'{min(values):.{digits}f}', f'{max(values):.{digits}f}'
    return lo if lo == hi else f'{lo} to {hi}'
def span(values, unit='GB/s'):
    # "12 GB/s on every input" when the rounded values agree, else "3 to 12 GB/s".
    v = [round(x) for x in values]
    if min(v) == max(v):
        return f'{v[0]} {unit} on every input'
    return f'{min(v)} to {max(v)} {unit}'

def read_bw(file=BENCH):
    """The run's read kernel's speed, GB/s, whole ([`read_kernel_gbps`])."""
    return f"{read_kernel_gbps(file):.0f}"
def cold_l2(file=BENCH):
    """Whether the run timed each launch from a cold L2, as its header's method says (the
    bench reads twice the L2 before every launch since 2026-11-25; the runs before it
    timed launch after launch over one input)."""
    try:
        return 'cold L2' in bench_header('method', file)
    except KeyError:
        return False
def measured_on(file=BENCH):
    """'NVIDIA H100 80GB HBM3, driver 580.159.04, CUDA 13.0, 2026-11-22', and, for a run
    that did not flush the L2 before each launch, a note that says so."""
    return (f"{bench_header('gpu', file)}, driver {bench_header('driver_version', file)}, "
            f"CUDA {bench_header('cuda_version', file)}, {bench_header('date', file)}"
            + ('' if cold_l2(file) else
               ' (launch after launch over one input, not from a [cold L2](../glossary.md#cold-l2): the run predates'
               ' the bench\'s flush, appendix B)'))
INPUTS = ['uniform', 'one-value', '90pct-one-value', 'text']
INPUT_NAMES = {'uniform': 'uniform', 'one-value': 'one value', '90pct-one-value': '90 % one value', 'text': 'text'}
def bench_table(impls, dtype='u8', file=BENCH, inputs=INPUTS, pct_of=None):
    """A markdown table: a row per input, a column per impl (GB/s; with pct_of, that
    impl's % of the read bandwidth too). impls: [(impl, column title), ...]; an impl may
    be a function of (input, dtype, file) giving the cell."""
    cols = ['input'] + [t for _, t in impls] + ([f'{pct_of[1]}, % of read bw'] if pct_of else [])
    lines = ['| ' + ' | '.join(cols) + ' |', '|' + ' --- |' * len(cols)]
    for i in inputs:
        cells = [INPUT_NAMES[i]] + [m(i, dtype, file) if callable(m) else gbps(m, i, dtype, file)
                                    for m, _ in impls]
        if pct_of:
            cells.append(pct(pct_of[0], i, dtype, file) + ' %')
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)
# The same bench on an NVIDIA H200, at commit 89b1d58 (notes/gpu-check-h200-2026-11-26/):
# where the book generalises from the H100, it states what the H200 measured.
H200 = 'notes/gpu-check-h200-2026-11-26/bench.json'
# 9.9 counting byte values (notes/fastest-limit-2026-11-26/): what held the kernel before
# on the H200 and the kernel that removes it, measured on an H100: `bench --variants` at
# 1 GiB of build 4271bc7 (9.9 as it is; `fast_bin_columns` is 9.9 before), Nsight Compute
# on both at 1 GiB of uniform bytes, and a size sweep of the same build.
LIMIT = 'notes/fastest-limit-2026-11-26'
LIMIT_README = LIMIT + '/README.md'
VARIANTS_NOW = LIMIT + '/variants-1gib-h100.json'
NCU_BEFORE = LIMIT + '/ncu-9.9-before-uniform-h100.txt'
NCU_AFTER = LIMIT + '/ncu-9.9-after-uniform-h100.txt'
#: The ncu metrics of the before and after profiles, as the tables of 9.9 name them.
PIPES = {'ALU pipe (integer and logic)': 'sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active',
         'FMA pipe': 'sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active',
         'LSU pipe (loads, stores, shared atomics)': 'sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active',
         'L1/shared throughput': 'L1/TEX Cache Throughput', 'DRAM throughput': 'DRAM Throughput',
         'issue slots busy': 'Issue Slots Busy'}
def ncu_num(metric, file):
    """A metric of a one-launch ncu report, as a float ([`ncu_plain`])."""
    return float(ncu_plain(metric, file).replace(',', ''))
def before_after_table():
    """Nsight Compute on 9.9 before (counting bins) and after (counting byte values), 1 GiB of
    uniform bytes on the H100, as a markdown table."""
    lines = ['| 1 GiB, uniform bytes | before: `fast_bin_columns` | after: 9.9 `histo_fastest` |',
             '| --- | --- | --- |']
    row = lambda title, f: lines.append(f'| {title} | {f(NCU_BEFORE)} | {f(NCU_AFTER)} |')
    row('duration', lambda f: f"{ncu_num('Duration', f):.1f} µs")
    row('warp instructions', lambda f: f"{ncu_num('smsp__inst_executed.sum', f) / 1e6:.1f} M")
    row('shared atomic instructions (`ATOMS`)', lambda f: f"{ncu_num('smsp__inst_executed_op_shared_atom.sum', f) / 1e6:.2f} M")
    row('their passes ([wavefronts](../glossary.md#wavefront))', lambda f: f"{ncu_num('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum', f) / 1e6:.2f} M")
    for title, metric in PIPES.items():
        # The first pipe of the table is the book's first use of the term: linked.
        shown = title.replace('ALU pipe', 'ALU [pipe](../glossary.md#pipe)')
        row(shown + ', % of peak', lambda f, m=metric: f"{ncu_num(m, f):.1f} %")
    return '\n'.join(lines)
def note_table(file, head):
    """The rows of the markdown table of `file` (a note under notes/) whose header row starts
    with `head`, as lists of cells with the note's bold marks removed."""
    rows, inside = [], False
    for line in open(os.path.join(ROOT, file)):
        if line.startswith(head):
            inside = True
            continue
        if inside:
            if not line.startswith('|'):
                break
            cells = [c.strip().replace('**', '') for c in line.strip().strip('|').split('|')]
            if set(''.join(cells)) != {'-'}:
                rows.append(cells)
    if not rows:
        raise SystemExit(f'{file} has no table headed {head!r}')
    return rows
SASS_MIX_HEAD = '| kernel | instructions per 64 bytes |'
def sass_mix(kernel_cell):
    """(instructions per 64 bytes, per byte besides its ATOMS) of the row of the loop-mix
    table of notes/fastest-limit-2026-11-26/README.md whose kernel cell starts so."""
    row = next(r for r in note_table(LIMIT_README, SASS_MIX_HEAD) if r[0].startswith(kernel_cell))
    return int(row[1]), float(row[2].split(':')[0].split(' ')[0])
# 9.9 as it is now on an H200 (notes/bench-h200-2026-11-28/): the bench of build 126b356 at
# 1 GiB, and the size sweep of the same day on the same GPU (its sizes/ folder; named so that
# newest_sweep, which picks the H100 sweeps the sizes table shows, does not take it).
H200_NOW = 'notes/bench-h200-2026-11-28/bench.json'
H200_NOW_SIZES = 'notes/bench-h200-2026-11-28/sizes/u8-sizes.json'
def h200_now():
    """9.9 on the H200 now, as the pages state it: 'NVIDIA H200, 2026-11-28, build 126b356:
    9.9 reads 4425 to 4434 GB/s, 98.9 to 99.1 % of its read kernel's 4473 GB/s on every
    input, 2.04× CUB on uniform bytes, 1.23× to 1.45× on the others'."""
    f = H200_NOW
    skewed = [bench('histo_fastest', i, file=f) / bench('cub', i, file=f) for i in INPUTS[1:]]
    return (f"{span_of([bench('histo_fastest', i, file=f) for i in INPUTS], 0)} GB/s, "
            f"{span_of([bench('histo_fastest', i, field='pct_read_bw', file=f) for i in INPUTS])} % of "
            f"its read kernel's {read_bw(f)} GB/s on every input, "
            f"{ratio('histo_fastest', 'cub', file=f)}× CUB on uniform bytes and "
            f"{span_of(skewed, 2).replace(' to ', '× to ')}× on the others")
def h200_now_sizes():
    """'1.40×, 1.32×, ... and 1.00×' (9.9's time over the read kernel's) and the sizes
    '1, 4, ... and 4095 MiB' of the H200's size sweep."""
    t = size_times(H200_NOW_SIZES)
    join = lambda v: ', '.join(v[:-1]) + ' and ' + v[-1]
    return join([f'{b / r:.2f}×' for m, r, k, b, c in t]), join([str(m) for m, r, k, b, c in t]) + ' MiB'
def h200_scale(file=VARIANTS_NOW):
    """How many times the H100 run's read bandwidth the H200's is."""
    return read_kernel_gbps(H200) / read_kernel_gbps(file)
def yardsticks_table(files=(BENCH, H200)):
    """The yardsticks of the chapter's kernels as a markdown table, one column per GPU (one
    run each, named in the header): the read kernel, the copy, CUB and torch.bincount."""
    rows = [('read kernel (16-byte loads, reads only)', 'read_bandwidth', 'uniform', 'u8'),
            ('device-to-device copy (bytes read + written)', 'cuMemcpyDtoD', 'uniform', 'u8'),
            ('CUB `HistogramEven`, bytes into 256 bins, uniform', 'cub', 'uniform', 'u8'),
            ('the same, one value', 'cub', 'one-value', 'u8'),
            ('the same, `u32` values into 4096 bins, uniform', 'cub', 'uniform', 'u32'),
            ('`torch.bincount` of bytes, uniform', 'torch', 'uniform', 'u8')]
    head = ['what, GB/s of input'] + [f"{bench_header('gpu', f)}, {bench_header('date', f)} (`{f}`)" for f in files]
    lines = ['| ' + ' | '.join(head) + ' |', '|' + ' --- |' * len(head)]
    for title, impl, i, d in rows:
        lines.append('| ' + ' | '.join([title] + [gbps(impl, i, d, f) for f in files]) + ' |')
    return '\n'.join(lines)
# The bench host's CPU, as lscpu printed it on that machine (its CPUID name string is only
# "Intel(R) Xeon(R) Processor"): family and model name the part; the table names them.
HOST_LSCPU = 'notes/cpu-published-2026-11-25/h100-host-lscpu.txt'
CPU_MODELS = {('GenuineIntel', 6, 207): ('5th-generation Xeon Scalable ("Emerald Rapids")', 'Raptor Cove')}
def cpu_named(file=HOST_LSCPU):
    """'an Intel Xeon of family 6, model 207: a 5th-generation Xeon Scalable ("Emerald
    Rapids"), Raptor Cove cores, 16 vCPUs under KVM'."""
    f = {}
    for l in open(os.path.join(ROOT, file)):
        k, _, v = l.partition(':')
        f[k.strip()] = v.strip()
    key = (f['Vendor ID'], int(f['CPU family']), int(f['Model']))
    part, core = CPU_MODELS[key]
    virt = f' under {f["Hypervisor vendor"]}' if f.get('Hypervisor vendor') else ''
    return (f"an Intel Xeon of family {key[1]}, model {key[2]}: a {part}, {core} cores, "
            f"{f['CPU(s)']} vCPUs{virt}")
def run_of(file=BENCH):
    """'`notes/bench-h100-2026-11-25.json`: an NVIDIA H100 80GB HBM3, driver ..., date'."""
    return f'`{file}`, an {measured_on(file)}'
def verdict(a, b, a_step, b_step, input='uniform', dtype='u8', file=BENCH, bins=None, file_b=None):
    """'**9.4 is 34× faster than 9.3** on uniform bytes: 61 against 1.8 GB/s': a's speed
    against b's on one input (b from file_b when the two come from two runs)."""
    va = bench(a, input, dtype, 'gbps', file, bins)
    vb = bench(b, input, dtype, 'gbps', file_b or file, bins)
    r = va / vb
    times = lambda x: f'{x:.0f}' if x >= 10 else f'{x:.1f}' if x >= 2 else f'{x:.2f}'
    how = f'{times(r)}× faster' if r >= 1 else f'{times(1 / r)}× slower'
    what = {'u8': 'bytes', 'u32': '`u32` values'}[dtype]
    on = {'uniform': f'uniform {what}', 'one-value': f'{what} all equal',
          '90pct-one-value': f'{what} 90 % equal', 'text': 'text'}[input]
    return (f'**{a_step} is {how} than {b_step}** on {on}'
            f'{f" ({bins} bins)" if bins else ""}: {fmt_gbps(va)} against {fmt_gbps(vb)} GB/s')
# The same-grid run (`ch09 bench --same-grid`, notes/same-grid-h100-2026-11-26/): each byte
# step whose launch differs from the step before it also on that step's grid and block,
# as rows `KERNEL@PREV` (chapters/ch09/src/bench/steps.rs, same_grid_steps), 256 MiB,
# uniform bytes and one value.
SAME_GRID_DIR = 'notes/same-grid-h100-2026-11-26'
SAME_GRID = SAME_GRID_DIR + '/bench.json'
SAME_GRID_README = SAME_GRID_DIR + '/README.md'
SAME_GRID_INPUTS = ['uniform', 'one-value']
def spaced(n):
    """An integer with its thousands separated by spaces from five digits on, as the pages
    write them (1056, 131 072)."""
    return f'{n:,}'.replace(',', ' ') if n >= 10000 else str(n)
def same_grid_launch(step, file=SAME_GRID):
    """'1056 blocks of 256 threads': the launch of `step`'s kernels in the same-grid run,
    sized as the bench sizes them (steps.rs, byte_steps: the resident grid of 8 blocks of
    256 per SM; 9.5 a block per 256 bytes; 9.6 a block per 2 KiB; 9.9 one wave of 512-thread
    blocks, 2 per SM by its registers) from the run's header, and checked against the run's
    README, which says what the run launched."""
    n, sms = bench_header('input_bytes', file), bench_header('sm_count', file)
    grid, block = {'9.5': (n // 256, 256), '9.6': (n // 2048, 256),
                   '9.9': (2 * sms, 512)}.get(step, (8 * sms, 256))
    said = f'512-thread blocks, {grid}' if step == '9.9' else f'{spaced(grid)} blocks of {block}'
    noted(SAME_GRID_README, said)
    return f'{spaced(grid)} blocks of {block} threads'
def same_grid_times(step, input='uniform', file=SAME_GRID):
    """The three times (ms) of `step`'s same-grid comparison on `input`, found as the bench
    pairs them (steps.rs, same_grid_summary): `moved`, the step's kernel on the previous
    step's grid (row KERNEL@PREV); `prev`, the previous step's kernel there (the last row of
    that step before it); `own`, the step's kernel on its own grid. The two ratios are
    checked against the ones the bench printed in its notes."""
    rows = bench_data(file)['rows']
    i, moved = next((i, r) for i, r in enumerate(rows)
                    if r['step'] == step and r['input'] == input and '@' in r['impl'])
    kernel, prev_step = moved['impl'].split('@')
    prev = next(r for r in reversed(rows[:i]) if r['step'] == prev_step and r['input'] == input
                and r['dtype'] == moved['dtype'] and '@' not in r['impl'])
    own = bench_row(kernel, input, moved['dtype'], file)
    if not (moved['correct'] and prev['correct']):
        raise SystemExit(f'{moved["impl"]} or {prev["impl"]} on {input} in {file} was not correct')
    t = {'moved': moved['median_ms'], 'prev': prev['median_ms'], 'own': own['median_ms']}
    note = (f"same grid, {moved['dtype']} {input}: {step} {kernel} on {prev_step}'s grid takes "
            f"{t['moved'] / t['prev']:.2f}x {prev['impl']} there (the technique); on its own grid "
            f"{t['own'] / t['moved']:.2f}x its time on {prev_step}'s (the grid)")
    if note not in bench_header('notes', file):
        raise SystemExit(f'{file}: the bench did not print {note!r}')
    return dict(t, kernel=kernel, prev_step=prev_step, prev_kernel=prev['impl'])
def same_grid_speedup(step, part, input='uniform'):
    """How many times faster (below 1: slower) `part` makes the step in the same-grid run:
    'technique' (the step's kernel against the previous step's, both on the previous grid),
    'grid' (the step's kernel on its own grid against the previous one) or 'step' (both
    changes: the step's own launch against the previous step's own)."""
    t = same_grid_times(step, input)
    return {'technique': t['prev'] / t['moved'], 'grid': t['moved'] / t['own'],
            'step': t['prev'] / t['own']}[part]
def progression_grid(elements, file=BENCH):
    """The blocks of 256 threads the bench launches a grid-stride step with on `elements`
    elements (chapters/ch09/src/launch.rs, device_grid): the blocks the GPU keeps resident,
    8 per SM, but no more than a block per 2048 elements (8 a thread)."""
    return min(8 * bench_header('sm_count', file), -(-elements // 2048))
def times_how(speedup):
    """'8.9× faster', '30× slower', 'the same, 1.00×' (within 3 %)."""
    fmt = lambda x: f'{x:.0f}' if x >= 10 else f'{x:.1f}' if x >= 2 else f'{x:.2f}'
    if abs(speedup - 1) < 0.03:
        return f'the same, {speedup:.2f}×'
    return f'{fmt(speedup)}× faster' if speedup > 1 else f'{fmt(1 / speedup)}× slower'
def same_grid(step):
    """One idea per comparison: a markdown block that separates the step's technique from
    its grid, from the same-grid run: per input, the step's kernel on the previous step's
    grid against the previous step's kernel (the technique alone), the step's own grid
    against that one (the grid alone) and the two together (the step as launched)."""
    t = same_grid_times(step)
    prev = t['prev_step']
    head = (f"*One idea at a time.* {step} and {prev} launch different grids, so the verdict above "
            f"measures the technique and the grid together. A second run separates them "
            f"(`bench --same-grid`, {run_of(SAME_GRID)}, build "
            f"{bench_header('git_commit', SAME_GRID)[:7]}, {bench_header('input_bytes', SAME_GRID) >> 20} MiB: "
            f"another run and size than the table's; the method in `{SAME_GRID_README}`): {step}'s "
            f"`{t['kernel']}` runs also on {prev}'s grid, {same_grid_launch(prev)}, beside {prev}'s "
            f"`{t['prev_kernel']}`; {step}'s own grid is {same_grid_launch(step)}. Median times:")
    lines = [f"| input | technique: {step} on {prev}'s grid, against {prev} | grid: {step}'s own, "
             f"against {prev}'s | the step: both |", '| --- | --- | --- | --- |']
    for i in SAME_GRID_INPUTS:
        s = same_grid_times(step, i)
        lines.append(f"| {INPUT_NAMES[i]} | {times_how(same_grid_speedup(step, 'technique', i))} "
                     f"({s['moved']:.3f} against {s['prev']:.3f} ms) | "
                     f"{times_how(same_grid_speedup(step, 'grid', i))} ({s['own']:.3f} ms) | "
                     f"{times_how(same_grid_speedup(step, 'step', i))} |")
    return head + '\n\n' + '\n'.join(lines)
# 9.8 against 9.7 under Nsight Compute and in SASS (notes/warp-aggregate-h100-2026-11-26/):
# ncu's full set for both kernels on uniform bytes and on 90 % zeros, ncu's source view of
# 9.8 (executions and stall samples per SASS instruction), and both kernels' SASS.
WARP_AGG = 'notes/warp-aggregate-h100-2026-11-26'
WARP_AGG_INPUTS = {'uniform': 'uniform', 'skew90': '90 % zeros'}
def wa_ncu(input, kernel, metric):
    """A metric of `kernel`'s launch in ncu's report of 9.7 and 9.8 on `input` ('uniform',
    'skew90'), as a float."""
    launch = None
    for line in open(os.path.join(ROOT, f'{WARP_AGG}/ncu-9.7-9.8-{input}.txt')):
        if re.match(r'^  \S', line):
            launch = line.startswith(f'  {kernel} (')
            continue
        m = re.match(r'^\s+' + re.escape(metric) + r'\s{2,}(?:\S+\s+)?([\d,.]+)\s*$', line)
        if launch and m:
            return float(m.group(1).replace(',', ''))
    raise SystemExit(f'no {metric} of {kernel} in {WARP_AGG}/ncu-9.7-9.8-{input}.txt')
def wa_ncu_said(input, kernel, pattern):
    """A number ncu's advice printed for `kernel` on `input` (its text, wrapped at ncu's
    width, read as one line): the first group of `pattern`, as a float."""
    text = open(os.path.join(ROOT, f'{WARP_AGG}/ncu-9.7-9.8-{input}.txt')).read()
    part = text.split(f'\n  {kernel} (')[1].split('\n  histo_')[0]
    m = re.search(pattern, ' '.join(part.split()))
    if not m:
        raise SystemExit(f'{WARP_AGG}: ncu no longer says {pattern!r} for {kernel}')
    return float(m.group(1))
def wa_table():
    """9.7 and 9.8 under ncu as a markdown table: per input and kernel, the duration, the
    executed instructions, the issued IPC and the cycles between two issued instructions."""
    lines = ['| input | kernel | duration, µs | executed instructions | issued IPC | cycles per issued instruction |',
             '| --- | --- | --- | --- | --- | --- |']
    for i, name in WARP_AGG_INPUTS.items():
        for step, k in (('9.7', 'histo_aggregate'), ('9.8', 'histo_warp_aggregate')):
            lines.append(f"| {name} | {step} `{k}` | {wa_ncu(i, k, 'Duration'):.1f} | "
                         f"{wa_ncu(i, k, 'Executed Instructions') / 1e6:.1f} M | "
                         f"{wa_ncu(i, k, 'Issued Ipc Active'):.2f} | "
                         f"{wa_ncu(i, k, 'Warp Cycles Per Issued Instruction'):.1f} |")
    return '\n'.join(lines)
def sass_lines(step):
    """(address, predicate, instruction) of each line of `cuobjdump -sass` of 9.7 or 9.8."""
    out = []
    for l in open(os.path.join(ROOT, f'{WARP_AGG}/sass-{step}.txt')):
        m = re.match(r'^\s*/\*([0-9a-f]{4})\*/\s+(@!?U?P\w+\s+)?(.+?)\s*;?\s*$', l)
        if m:
            out.append((int(m.group(1), 16), (m.group(2) or '').strip(), m.group(3)))
    return out
def sass_loop(step):
    """The lines of the loop over the input: from the target of the backward branch whose
    body holds the byte load (`LD.E.U8`) to that branch."""
    lines = sass_lines(step)
    for addr, pred, ins in lines:
        m = re.match(r'BRA 0x([0-9a-f]+)$', ins)
        if m and int(m.group(1), 16) < addr:
            body = [l for l in lines if int(m.group(1), 16) <= l[0] <= addr]
            if any(i.startswith('LD.E.U8') for _, _, i in body):
                return body
    raise SystemExit(f'no loop in {WARP_AGG}/sass-{step}.txt')
def sass_loop_text(step):
    """The loop as a text block: address, predicate, instruction."""
    return '\n'.join(f'/*{a:04x}*/ {p:5} {i}' for a, p, i in sass_loop(step))
def source_view(input):
    """ncu's source view of 9.8 on `input`: a row per SASS instruction, in address order."""
    import csv
    lines = open(os.path.join(ROOT, f'{WARP_AGG}/source-9.8-{input}.csv')).read().split('\n')
    start = next(k for k, l in enumerate(lines) if l.startswith('"Address"'))
    return [r for r in csv.DictReader(lines[start:]) if r['Address']]
STALL_NAMES = {'stall_mio': 'MIO throttle', 'stall_short_sb': 'short scoreboard',
               'stall_long_sb': 'long scoreboard'}
def stall_at(input, which):
    """(share of all stall samples in %, main reason) at one instruction of 9.8's source view
    on `input`: 'match' (`MATCH.ANY`), 'match use' (the first instruction that reads the
    register `MATCH.ANY` writes), 'load use' (the first that reads the loaded byte's)."""
    rows = source_view(input)
    total = sum(int(r['Warp Stall Sampling (All Samples)']) for r in rows)
    src = [r['Source'].split() for r in rows]
    def index(op):
        return next(k for k, s in enumerate(src) if s and s[0].startswith(op))
    def first_use(k):
        reg = src[k][1].rstrip(',')
        return next(j for j in range(k + 1, len(src))
                    if reg in [w.strip(',') for w in src[j][2:]] or
                    (src[j] and src[j][0].startswith('@') and reg in [w.strip(',') for w in src[j][3:]]))
    k = {'match': lambda: index('MATCH.ANY'), 'match use': lambda: first_use(index('MATCH.ANY')),
         'load use': lambda: first_use(index('LD.E.U8'))}[which]()
    r = rows[k]
    reasons = {n: int(v) for n, v in r.items() if n in STALL_NAMES or (n.startswith('stall_') and '(' not in n)}
    top = max(reasons, key=reasons.get)
    return 100 * int(r['Warp Stall Sampling (All Samples)']) / total, STALL_NAMES.get(top, top), ' '.join(src[k])
#: The bins a private copy of `u32` counters can have in a block's default 48 KiB.
SHARED_BINS_N = '12 288'
# The first lane-column kernel at 1.2 waves (256-thread blocks, 6 per SM where 5 fit), and
# its run's read kernel: notes/gpu-runs.md, 2026-11-22 run 5, which records them in prose.
RUNS_NOTES = 'notes/gpu-runs.md'
WAVES_12_GBPS, WAVES_12_READ = 2484, 3044
assert f'{WAVES_12_GBPS} GB/s' in open(os.path.join(ROOT, RUNS_NOTES)).read() and \
    f'read kernel {WAVES_12_READ})' in open(os.path.join(ROOT, RUNS_NOTES)).read(), RUNS_NOTES
# The GPU run of those sections (an H100, notes/seeds-h100-2026-11-26/README.md).
SEEDS = 'notes/seeds-h100-2026-11-26'
def excerpt(file, first, last):
    """The lines of `file` under notes/ from the first that holds `first` to the next that
    holds `last`, both included, as the note has them: a quote taken from the note itself."""
    lines = open(os.path.join(ROOT, file)).read().split('\n')
    start = next(i for i, l in enumerate(lines) if first in l)
    end = next(i for i in range(start, len(lines)) if last in lines[i])
    return '\n'.join(l.rstrip() for l in lines[start:end + 1])
def row_c(name, kernel, k):
    """Column `k` (1: c.loads, 2: c.serial, 3: c.worst, 4: bank.conf, 5: warp.instr) of
    kernel `kernel`'s row in run NAME of `ch09 constant`."""
    for l in out(name).split('\n'):
        cells = l.split()
        if cells and cells[0] == kernel:
            return int(cells[1 + k])
    raise SystemExit(f'no row {kernel} in {name}')
LATENCY = 'notes/latency-h100-2026-11-24.md'
# The seeds' claims timed on a GPU (notes/seeds-probes-2026-11-28/: probe.cu, run.sh and
# each run's output).
PROBES = 'notes/seeds-probes-2026-11-28'
# Run b: the kernels timed without the bins' zeroing, and CUDA by Example's grids (an H200:
# the device tool lent no H100 that day).
PROBE_H200 = PROBES + '/probe-h200-b.txt'
def probe_line(text, file=PROBE_H200):
    """The line of a probe's output that holds `text`."""
    for l in open(os.path.join(ROOT, file)):
        if text in l:
            return l.strip()
    raise SystemExit(f'{file} has no line with {text!r}')
def probe_us(text, file=PROBE_H200):
    """The time, µs, of the probe's case on the line that holds `text`."""
    m = re.search(r': ([\d.]+) us', probe_line(text, file))
    if not m:
        raise SystemExit(f'{file}: no time on the line with {text!r}')
    return float(m.group(1))
def probe_gpu(file=PROBE_H200):
    """'NVIDIA H200, driver 580.159.04, 2026-11-28': the GPU, driver and date of a probe run."""
    lines = open(os.path.join(ROOT, file)).read().split('\n')
    date = next(l for l in lines if l.startswith('date: '))[6:16]
    gpu, driver = next(l for l in lines if ', ' in l and not l.startswith(('date', 'gpu', 'Build')) and 'NVIDIA' in l).split(', ')
    return f'{gpu}, driver {driver}, {date}'
NCU_96 = 'notes/ncu-9.6-h100-2026-11-24.txt'
GRID_SHORT = 'notes/grid-short-inputs-h100-2026-11-24.md'
COLD_L2 = 'notes/cold-l2-h100-2026-11-25.md'
COMMIT_PROBE = 'notes/commit-probe-2026-11-24/README.md'
def commit_probe_gain():
    """(least, most) µs by which the RED commit ended sooner than the ATOM commit, over
    every size and run of the commit probe's output (notes/commit-probe-2026-11-24/)."""
    gains = []
    for line in open(os.path.join(ROOT, os.path.dirname(COMMIT_PROBE), 'output.txt')):
        m = re.search(r'RED commit ([\d.]+) \| ATOM commit ([\d.]+)', line)
        if m:
            gains.append(float(m.group(2)) - float(m.group(1)))
    if not gains:
        raise SystemExit(f'no RED and ATOM times in {COMMIT_PROBE}')
    return min(gains), max(gains)
NCU = 'notes/ncu-h100-2026-11-22.txt'
def ncu(kernel, metric, unit=None, file=NCU):
    """A metric of the Nsight Compute report of `kernel` (the text ncu printed), as printed."""
    text = open(os.path.join(ROOT, file)).read()
    part = text.split('##### ncu: ' + kernel + ' ')[1].split('##### ncu:')[0]
    for l in part.split('\n'):
        m = re.match(r'^\s+' + re.escape(metric) + r'\s{2,}(\S+)?\s+([\d,.]+)\s*$', l)
        if m and (unit is None or m.group(1) == unit):
            return m.group(2)
    raise SystemExit(f'no {metric} for {kernel} in {file}')
# Chapter 5's GPU bench (`cargo run -p ch05 --release --features cuda -- bench`): rows of
# step, kernel, input, blocks_per_sm (5.5), words_per_thread (5.6's kernel 4), gbps, mbps.
CH05 = 'notes/ch05-bench-h100-2026-11-22.json'
def c5(kernel, input='uniform', per=None, field='mbps', file=CH05):
    """A field of chapter 5's bench row of `kernel` on `input` (5.5's sweep: input
    'random u32', `per` blocks per SM; 5.6's kernel 4: `per` words per thread)."""
    rows = [r for r in bench_data(file)['rows'] if r['kernel'] == kernel and r['input'] == input
            and (per is None or per in (r.get('blocks_per_sm'), r.get('words_per_thread')))]
    if len(rows) != 1:
        raise SystemExit(f'{len(rows)} rows for {kernel} {input} {per} in {file}')
    if not rows[0]['correct']:
        raise SystemExit(f'{kernel} {input} {per} in {file} was not correct')
    return rows[0][field]
def c5mb(kernel, input='uniform', per=None):
    """MB/s of a chapter-5 row, whole, with thousands separated by spaces."""
    return f"{round(c5(kernel, input, per)):,}".replace(',', ' ')
def out_file(name):
    return open(os.path.join(OUT, name)).read()
#: With BOOK_CHECKS=report, every statement that no longer holds is listed (with the
#: value of its left side, for `A == B`, `A < B`, ...) and generation fails at the end,
#: instead of stopping at the first: a change of the inputs moves many numbers at once.
REPORT_CHECKS = os.environ.get('BOOK_CHECKS') == 'report'
FAILED_CHECKS = []
def check(expr, env):
    if not eval(expr, env):
        if not REPORT_CHECKS:
            raise SystemExit('a statement of the prose no longer holds: ' + expr)
        left = re.split(r'\s(?:==|!=|<=|>=|<|>|in)\s', expr, maxsplit=1)[0]
        try:
            now = repr(eval(left, env))
        except Exception as e:  # the left side alone may not evaluate
            now = f'({e})'
        FAILED_CHECKS.append(f'{expr}    # now: {left} = {now}')
    return ''
FIGURES = os.path.join(ROOT, 'book', 'src', 'figures')
def phone_pictures(text):
    """Each figure `![ALT](../figures/NAME.svg)` that has a phone variant
    (`NAME-phone.svg`, written by `cargo run -p figures`) as a `<picture>` that shows the
    variant below 700 px, the width under which the book is laid out for a phone
    (book/wrap.css, book/layout.py), and the figure itself above."""
    import html
    def picture(m):
        alt, path, name = m.group(1), m.group(2), m.group(3)
        if not os.path.exists(os.path.join(FIGURES, name + '-phone.svg')):
            return m.group(0)
        phone = path[:-len('.svg')] + '-phone.svg'
        return (f'<picture><source media="(max-width: 700px)" srcset="{phone}">'
                f'<img src="{path}" alt="{html.escape(alt)}"></picture>')
    return re.sub(r'^!\[([^\]]*)\]\(((?:\.\./)?figures/([A-Za-z0-9._-]+)\.svg)\)$', picture, text, flags=re.M)
def fill(text):
    # Every name of this module (its constants and helpers), then the builtins the pages use.
    env = {**{k: v for k, v in globals().items() if not k.startswith('_')},'j': j, 'row': row, 'out': out, 'said': said, 'out_file': out_file, 'round': round, 'abs': abs,
           'min': min, 'max': max, 'all': all, 'bench': bench, 'bench_header': bench_header, 'read_kernel_gbps': read_kernel_gbps,
           'gbps': gbps, 'pct': pct, 'ratio': ratio, 'faster': faster, 'read_bw': read_bw,
           'measured_on': measured_on, 'cold_l2': cold_l2, 'bench_table': bench_table, 'fmt_gbps': fmt_gbps,
           'BENCH': BENCH, 'ncu': ncu, 'VARIANTS': VARIANTS, 'INPUTS': INPUTS,
           'EXTENSIONS': EXTENSIONS, 'LIMITS_U32': LIMITS_U32, 'NCU_914': NCU_914, 'ncu_plain': ncu_plain, 'sizes_table': sizes_table, 'size_times': size_times, 'SIZES_U8': SIZES_U8, 'SIZES_U32': SIZES_U32, 'SIZES_U8_WARM': SIZES_U8_WARM, 'SIZES_U32_WARM': SIZES_U32_WARM, 'NCU_ATOMS': NCU_ATOMS, 'atoms_ncu': atoms_ncu, 'int': int, 'float': float,
           'MANY_BINS': MANY_BINS, 'MANY_INPUTS': MANY_INPUTS, 'NCU_917': NCU_917, 'many_bins_table': many_bins_table,
           'CH05': CH05, 'c5': c5, 'c5mb': c5mb, 'span': span, 're': re,
           'cpu_table': cpu_table, 'cpu_threads_rows': cpu_threads_rows, 'cpu_one_thread': cpu_one_thread,
           'cycles_per_byte': cycles_per_byte, 'H200': H200, 'noted': noted, 'noted_num': noted_num, 'SEEDS': SEEDS, 'excerpt': excerpt, 'row_c': row_c, 'LATENCY': LATENCY, 'PROBES': PROBES, 'PROBE_H200': PROBE_H200, 'probe_line': probe_line, 'probe_us': probe_us, 'probe_gpu': probe_gpu, 'NCU_96': NCU_96, 'GRID_SHORT': GRID_SHORT, 'COLD_L2': COLD_L2, 'COMMIT_PROBE': COMMIT_PROBE, 'commit_probe_gain': commit_probe_gain, 'WAVES_12_GBPS': WAVES_12_GBPS, 'WAVES_12_READ': WAVES_12_READ, 'SHARED_BINS_N': SHARED_BINS_N, 'run_of': run_of, 'verdict': verdict, 'same_grid': same_grid, 'SAME_GRID': SAME_GRID, 'SAME_GRID_DIR': SAME_GRID_DIR, 'same_grid_speedup': same_grid_speedup, 'same_grid_times': same_grid_times, 'same_grid_launch': same_grid_launch, 'times_how': times_how, 'WARP_AGG': WARP_AGG, 'wa_ncu': wa_ncu, 'wa_ncu_said': wa_ncu_said, 'wa_table': wa_table, 'sass_loop': sass_loop, 'sass_loop_text': sass_loop_text, 'stall_at': stall_at, 'spaced': spaced, 'yardsticks_table': yardsticks_table, 'LIMIT': LIMIT, 'LIMIT_README': LIMIT_README, 'VARIANTS_NOW': VARIANTS_NOW, 'NCU_BEFORE': NCU_BEFORE, 'NCU_AFTER': NCU_AFTER, 'ncu_num': ncu_num, 'PIPES': PIPES, 'before_after_table': before_after_table, 'h200_scale': h200_scale, 'note_table': note_table, 'sass_mix': sass_mix, 'cpu_named': cpu_named, 'HOST_LSCPU': HOST_LSCPU, 'CPU_SCALAR': CPU_SCALAR, 'AMD_SIMD_GBPS': AMD_SIMD_GBPS, 'TURBOHIST_MBPS': TURBOHIST_MBPS, 'TURBOHIST_GHZ': TURBOHIST_GHZ, 'APTROOT_GBPS': APTROOT_GBPS, 'APTROOT_HIST_8_64_GBPS': APTROOT_HIST_8_64_GBPS,
           'XEON_ENGEL_RATIO': XEON_ENGEL_RATIO, 'MULA_PUBLISHED': MULA_PUBLISHED, 'XEON_MULA_PAIRS': XEON_MULA_PAIRS, 'XEON_MULA_4096': XEON_MULA_4096, 'XEON_MULA_RATIO': XEON_MULA_RATIO, 'engel_cached_ratios': engel_cached_ratios, 'XEON_TURBOHIST_GBPS': XEON_TURBOHIST_GBPS, 'XEON_READ_GBPS': XEON_READ_GBPS, 'ENGEL_MC_PER_BYTE': ENGEL_MC_PER_BYTE}
    text = re.sub(r'^@@check:(.+?)@@\n', lambda m: check(m.group(1), env), text, flags=re.M)
    text = re.sub(r'@@py:(.+?)@@', lambda m: str(eval(m.group(1), env)), text)
    text = re.sub(r'^\$ @@cmd:([A-Za-z0-9_.]+)@@$', lambda m: prompt_cmd(m.group(1)), text, flags=re.M)
    text = re.sub(r'^(> )?@@cmd:([A-Za-z0-9_.]+)@@$', lambda m: block_cmd(m.group(2), m.group(1) or ''), text, flags=re.M)
    def rep(m):
        kind, name = m.group(1), m.group(2)
        if kind == 'cmd': return cmd(name)
        if kind == 'out': return shown(name)
        if kind == 'file': return open(os.path.join(OUT, name)).read().rstrip('\n')
        raise SystemExit('bad placeholder ' + m.group(0))
    return phone_pictures(re.sub(r'@@(cmd|out|file):([A-Za-z0-9_.]+)@@', rep, text))
if __name__ == '__main__':
    if sys.argv[1:2] == ['--list-runs']:
        for k, v in RUNS.items():
            print(k + '\t' + v)
        for k in VIEWS:
            print(k + '.view\t' + view_args(k))
        sys.exit(0)
    src, dst = sys.argv[1], sys.argv[2]
    for f in sorted(os.listdir(src)):
        if f.endswith('.md'):
            t = fill(open(os.path.join(src, f)).read())
            assert '@@' not in t, f
            open(os.path.join(dst, f), 'w').write(t)
            print('wrote', f)
    if FAILED_CHECKS:
        print(f'{len(FAILED_CHECKS)} statements of the prose no longer hold:', file=sys.stderr)
        for c in FAILED_CHECKS:
            print('  ' + c, file=sys.stderr)
        sys.exit(1)
