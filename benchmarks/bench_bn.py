"""BatchNorm, lit_torch vs torch (CPU), side by side in one run.

Rows so far: BatchNorm2d forward+backward on (32, 64, 32, 32), goal at most 1.5x torch.
Each row is (name, torch seconds, lit_torch seconds, goal); append more to `rows()`.
Run: python benchmarks/bench_bn.py
"""
import sys
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

if __name__ == '__main__': main()
