"`import lit_torch` against `import numpy`, in fresh interpreters, alternating, in one run. Goal: at most 1.5x."
import os, statistics, subprocess, sys

ENV = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}  # time imports from cached bytecode, as installed

def cumulative_ms(module):
    err = subprocess.run([sys.executable, '-X', 'importtime', '-c', f'import {module}'], capture_output=True, text=True, env=ENV).stderr
    row = next(l for l in err.splitlines() if l.startswith('import time:') and l.split('|')[2].strip() == module)
    return int(row.split('|')[1]) / 1000

def main(runs=15):
    times = {'numpy': [], 'lit_torch': []}
    for m in times: cumulative_ms(m)  # the first import writes the bytecode cache
    for _ in range(runs):
        for m in times: times[m].append(cumulative_ms(m))
    med = {m: statistics.median(v) for m, v in times.items()}
    print(f"| import | median ms ({runs} runs) | ratio to numpy |\n|---|---|---|")
    for m, t in med.items(): print(f"| {m} | {t:.1f} | {t / med['numpy']:.2f}x |")

if __name__ == '__main__': main()
