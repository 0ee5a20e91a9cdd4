"""Run every benchmarks/bench_*.py script, each in its own process, and print one table:
workload | torch | lit_torch | ratio | floor. `make bench` runs it.

Scripts whose tables do not compare torch with lit_torch side by side (all-reduce bandwidth, DataParallel,
import time) are printed as they are, below the table, each under its script's name and the line that introduces it.
A floor is taken from a "floor" row under its workload or from a "floor" column. A script that fails or runs past
its time limit gets a row saying so (a timeout kills its whole process group), and the rest still run. Each script
runs with TMPDIR set to a temporary directory of its own, removed when it ends, so a killed script leaves no files.
The run sets LIT_BENCH_RUN_ALL=1 so that a script which would also launch another bench_*.py (bench_bn.py runs
bench_allreduce.py) leaves it to its own turn.
Run: python benchmarks/run_all.py [--timeout SECONDS] [names ...]   (names: e.g. core nn)
"""
import argparse, os, re, signal, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).parent
TIMEOUTS = {'models': 400, 'serialization': 240, 'data': 240}  # seconds, for the scripts that need more than --timeout

def cells(line): return [c.strip() for c in line.strip().strip('|').split('|')]

def caption(lines, i):
    "The last non-empty line above line `i` that is not part of a table: what introduces the table there."
    for l in reversed(lines[max(0, i - 4):i]):
        if l.strip() and not l.startswith('|'): return l.strip()
    return ''

def tables(text):
    "The Markdown tables in `text`, each as (caption, header cells, rows of cells)."
    out, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith('|') and i + 1 < len(lines) and re.match(r'^\|[\s:|-]+\|$', lines[i + 1].strip()):
            rows = []
            for l in lines[i + 2:]:
                if not l.startswith('|'): break
                rows.append(cells(l))
            out.append((caption(lines, i), cells(line), rows))
    return out

def side_by_side_rows(header, rows):
    "Rows of (workload, torch, lit_torch, ratio, floor) from a table with torch and lit_torch columns; None if it has none."
    h = [c.lower() for c in header]
    t = next((i for i, c in enumerate(h) if c.startswith('torch')), None)
    l = next((i for i, c in enumerate(h) if c.startswith('lit_torch') and 'torch' in c and '/' not in c), None)
    r = next((i for i, c in enumerate(h) if 'ratio' in c or '/ torch' in c), None)
    f = next((i for i, c in enumerate(h) if 'floor' in c and '/' not in c), None)
    fr = next((i for i, c in enumerate(h) if 'floor' in c and '/' in c), None)
    if t is None or l is None: return None
    out = []
    for row in rows:
        if len(row) < len(h): continue
        if len(h) > 1 and h[1] == 'format': row = [f'{row[0]}, {row[1]}'] + row[1:]  # one workload per (case, format)
        if f is not None:  # a floor column: the floor, and lit_torch over it when the table gives that
            out.append([row[0], row[t], row[l], row[r] if r is not None else '', f'{row[f]} (lit_torch {row[fr]} of it)' if fr is not None else row[f]])
            continue
        if 'floor' in row[0].lower() and out:  # a floor row belongs to the workload above it
            out[-1][4] = f'{row[l]} ({row[r]})' if r is not None and row[r] else row[l]
            continue
        out.append([row[0], row[t], row[l], row[r] if r is not None else '', ''])
    return out

def run_script(script, timeout):
    """Run one bench script: (what it printed, whether it exited 0 in time). Its files go to a temporary directory
    that is removed afterwards, and on a timeout its whole process group is killed, workers it started included."""
    with tempfile.TemporaryDirectory(prefix='lit_bench_') as tmp:
        p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, LIT_BENCH_RUN_ALL='1', TMPDIR=tmp), start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            return out, p.returncode == 0
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            return out, False

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--timeout', type=int, default=150, help='seconds per script (default 150)')
    p.add_argument('names', nargs='*', help='run only these (core, nn, ...)')
    a = p.parse_args()
    scripts = sorted(HERE.glob('bench_*.py'))
    if a.names: scripts = [s for s in scripts if s.stem[len('bench_'):] in a.names]
    table, other, start = [], [], time.time()
    for s in scripts:
        t0 = time.time()
        name = s.stem[len('bench_'):]
        text, ok = run_script(s, max(a.timeout, TIMEOUTS.get(name, 0)))
        print(f'{s.name}: {"ok" if ok else "FAILED or timed out"} in {time.time() - t0:.0f} s', file=sys.stderr)
        found = False
        for cap, header, rows in tables(text):
            sb = side_by_side_rows(header, rows)
            if sb is None: other.append((s.name, cap, header, rows))
            else: table += [[name] + r for r in sb]; found = True
        if not ok: table.append([name, '(failed or timed out: rows above are what it printed)' if found else '(failed or timed out)', '', '', '', ''])
    print('| script | workload | torch | lit_torch | ratio | floor |\n|---|---|---|---|---|---|')
    for r in table: print('| ' + ' | '.join(r) + ' |')
    for name, cap, header, rows in other:
        print(f'\n{name}' + (f': {cap}' if cap else ':') + '\n| ' + ' | '.join(header) + ' |\n|' + '---|' * len(header))
        for r in rows: print('| ' + ' | '.join(r) + ' |')
    print(f'\n{len(scripts)} scripts in {time.time() - start:.0f} s', file=sys.stderr)

if __name__ == '__main__': main()
