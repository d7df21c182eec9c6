#!/usr/bin/env python3
"""Fills the chapter-9 page templates with real runs.

Placeholders: @@cmd:NAME@@ (the command of run NAME), @@out:NAME@@ (its output),
@@file:F@@ (a file of the runs folder), @@py:EXPR@@ (a value computed from the runs),
and a line @@check:EXPR@@ (a statement of the prose that must still hold: generation
stops if it does not). Run through book/gen/regenerate.sh, which makes the runs first.
Usage: gen.py TEMPLATES_DIR OUT_DIR    (also: gen.py --list-runs)
"""
import os, re, sys
RUNS = {
 'full': '',
 's91json': '--step 9.1 --json',
 's92': '--step 9.2',
 's93': '--step 9.3',
 's93zeros': '--step 9.3 --input zeros',
 's94': '--step 9.3 --step 9.4',
 's94g4': '--step 9.4 --grid 4',
 's94g1': '--step 9.4 --grid 1',
 's95': '--step 9.4 --step 9.5',
 's95b7': '--step 9.5 --bins 7',
 's96': '--step 9.5 --step 9.6',
 's96c16': '--step 9.6 --coarsen 16',
 's97': '--step 9.6 --step 9.7',
 's97skew': '--step 9.6 --step 9.7 --input skew:90',
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
}
OUT = os.environ.get('BOOK_RUNS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'target', 'book-runs'))
def cmd(name):
    a = RUNS[name]
    return 'cargo run -p ch09' + (' -- ' + a if a else '')
def out(name):
    return open(os.path.join(OUT, name + '.txt')).read().rstrip('\n')
import json
def j(name, field, kernel=None):
    rows = json.loads(out(name))
    for r in rows:
        if kernel is None or r['kernel'].startswith(kernel):
            return r['counters'][field]
    raise SystemExit(f'no row {kernel} in {name}')
def row(name, kernel, col):
    lines = out(name).split('\n')
    head = next(l for l in lines if l.startswith('step '))
    cols = head.split()
    for l in lines:
        if l.startswith('9.') and l.split()[1].startswith(kernel):
            # the kernel name may contain spaces: count columns from the right
            cells = l.split()
            k = len(cols) - cols.index(col)
            v = cells[-k]
            return int(v) if v.isdigit() else v
    raise SystemExit(f'no row {kernel} in {name}')
def out_file(name):
    return open(os.path.join(OUT, name)).read()
def check(expr, env):
    if not eval(expr, env):
        raise SystemExit('a statement of the prose no longer holds: ' + expr)
    return ''
def fill(text):
    env = {'j': j, 'row': row, 'out': out, 'out_file': out_file, 'round': round, 'abs': abs}
    text = re.sub(r'^@@check:(.+?)@@\n', lambda m: check(m.group(1), env), text, flags=re.M)
    text = re.sub(r'@@py:(.+?)@@', lambda m: str(eval(m.group(1), env)), text)
    def rep(m):
        kind, name = m.group(1), m.group(2)
        if kind == 'cmd': return cmd(name)
        if kind == 'out': return out(name)
        if kind == 'file': return open(os.path.join(OUT, name)).read().rstrip('\n')
        raise SystemExit('bad placeholder ' + m.group(0))
    return re.sub(r'@@(cmd|out|file):([A-Za-z0-9_.]+)@@', rep, text)
if __name__ == '__main__':
    if sys.argv[1:] == ['--list-runs']:
        for k, v in RUNS.items():
            print(k + '\t' + v)
        sys.exit(0)
    src, dst = sys.argv[1], sys.argv[2]
    for f in sorted(os.listdir(src)):
        if f.endswith('.md'):
            t = fill(open(os.path.join(src, f)).read())
            assert '@@' not in t, f
            open(os.path.join(dst, f), 'w').write(t)
            print('wrote', f)
