"""BatchNorm and the DDP all-reduce that SyncBatchNorm's training leans on, in one run.

1. BatchNorm2d forward+backward on (32, 64, 32, 32), lit_torch vs torch side by side: goal at most 1.5x torch.
2. The all-reduce bandwidth lit_torch's DDP reaches on 2 local ranks, against a raw mpi4py Allreduce of the
   same bytes (bench_allreduce.py, launched with mpiexec -n 2): goal at least 0.8 of raw.
Run: python benchmarks/bench_bn.py
"""
import os, subprocess, sys
from pathlib import Path
import torch
import lit_torch as lt
sys.path.insert(0, str(Path(__file__).parent))
from bench_core import side_by_side

def _bn2d(m):
    if m is lt and not hasattr(lt.nn, 'BatchNorm2d'):
        from lit_torch.nn.modules.batchnorm import BatchNorm2d
        return BatchNorm2d
    return m.nn.BatchNorm2d

def bn2d_step(m, shape=(32, 64, 32, 32)):
    "One training-mode forward and backward of BatchNorm2d, with a fixed upstream gradient."
    m.manual_seed(0)
    layer = _bn2d(m)(shape[1])
    x = m.randn(*shape, requires_grad=True)
    dy = m.randn(*shape)
    def step():
        layer.zero_grad(); x.grad = None
        layer(x).backward(dy)
    return step

def rows():
    return [('BatchNorm2d forward+backward, (32, 64, 32, 32), training', *side_by_side(bn2d_step), '≤ 1.5x')]

def main():
    print(f'threads: torch {torch.get_num_threads()}\n')
    print('| benchmark | torch | lit_torch | ratio | goal |\n|---|---|---|---|---|')
    for name, t, l, goal in rows(): print(f'| {name} | {t * 1e3:.2f} ms | {l * 1e3:.2f} ms | {l / t:.2f}x | {goal} |')
    if os.environ.get('LIT_BENCH_RUN_ALL'):  # run_all.py runs bench_allreduce.py in its own turn
        print('\nDDP all-reduce: see bench_allreduce.py'); return
    print('\nDDP all-reduce on 2 local ranks (goal: DDP / raw >= 0.8)\n', flush=True)
    subprocess.run([sys.executable, str(Path(__file__).parent / 'bench_allreduce.py')], check=True)

if __name__ == '__main__': main()
