"""`import lit_torch` against `import numpy`, in fresh interpreters, alternating, in one run. Goal: at most 1.3x.

Two measures: `-X importtime`'s cumulative time of the module, and the wall time of `python -c "import X"` less
that of `python -c pass` (what a user waits for: it also counts the interpreter's work that importtime does not see).
"""
import os, statistics, subprocess, sys, time

ENV = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}  # time imports from cached bytecode, as installed

def cumulative_ms(module):
    err = subprocess.run([sys.executable, '-X', 'importtime', '-c', f'import {module}'], capture_output=True, text=True, env=ENV).stderr
    row = next(l for l in err.splitlines() if l.startswith('import time:') and l.split('|')[2].strip() == module)
    return int(row.split('|')[1]) / 1000

def wall_ms(code):
    t = time.perf_counter()
    subprocess.run([sys.executable, '-c', code], check=True, env=ENV)
    return (time.perf_counter() - t) * 1000

def main(runs=15):
    times = {'numpy': [], 'lit_torch': []}
    wall = {'pass': [], 'numpy': [], 'lit_torch': []}
    for m in times: cumulative_ms(m)  # the first import writes the bytecode cache
    for _ in range(runs):
        for m in times: times[m].append(cumulative_ms(m))
        for m in wall: wall[m].append(wall_ms('pass' if m == 'pass' else f'import {m}'))
    med = {m: statistics.median(v) for m, v in times.items()}
    base = statistics.median(wall['pass'])
    w = {m: statistics.median(wall[m]) - base for m in times}
    print(f"| import | median ms ({runs} runs, -X importtime) | ratio to numpy | wall ms over `python -c pass` | wall ratio |\n|---|---|---|---|---|")
    for m, t in med.items(): print(f"| {m} | {t:.1f} | {t / med['numpy']:.2f}x | {w[m]:.1f} | {w[m] / w['numpy']:.2f}x |")

if __name__ == '__main__': main()
