"""lit_torch vs torch (CPU), side by side in one run: per-op overhead, a small matmul, an MLP step.

Prints a Markdown table of times and ratios to torch, and the MLP step's GEMM floor (its FLOPs at
NumPy's measured float32 GEMM rate). Run: python benchmarks/bench_core.py
"""
import time
import numpy as np
import torch
import lit_torch as lt

def timeit(f, repeat=5, min_time=0.1):
    "Best per-call seconds over `repeat` rounds, each of enough calls to last `min_time`."
    f()
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n): f()
        dt = time.perf_counter() - t
        if dt >= min_time: break
        n *= 2
    best = dt / n
    for _ in range(repeat - 1):
        t = time.perf_counter()
        for _ in range(n): f()
        best = min(best, (time.perf_counter() - t) / n)
    return best

def set_threads(n):
    "Both libraries on `n` threads: torch's intra-op pool and NumPy's BLAS (through lit_torch.set_num_threads)."
    torch.set_num_threads(n); lt.set_num_threads(n)

def side_by_side(make):
    "Time `make(torch)` then `make(lt)` (each returns a zero-argument callable), pausing between them."
    out = []
    for m in (torch, lt):
        f = make(m)
        time.sleep(0.15)  # torch's idle threads keep spinning for a moment and slow what follows
        out.append(timeit(f))
    return out

def small_op(op, requires_grad, backward=False):
    "A 4x4 add or mul; with `backward`, also its backward from a ones gradient (the issue's per-op workload)."
    def make(m):
        a = m.randn(4, 4, requires_grad=requires_grad); b = m.randn(4, 4, requires_grad=requires_grad)
        g = m.ones(4, 4)
        f = (lambda: a + b) if op == 'add' else (lambda: a * b)
        return (lambda: f().backward(g)) if backward else f
    return make

def matmul16(backward):
    def make(m):
        a = m.randn(16, 16, requires_grad=True); b = m.randn(16, 16, requires_grad=True)
        def f():
            y = (a @ b).sum()
            if backward: y.backward()
        return f
    return make

def mlp_step(m, batch=128, sizes=(784, 512, 512, 10), lr=0.01):
    "One SGD step of an MLP, written the same way for both libraries."
    m.manual_seed(0)
    params = []
    for i, o in zip(sizes[:-1], sizes[1:]):
        params += [(m.randn(i, o) * (2 / i) ** 0.5).requires_grad_(), m.zeros(o, requires_grad=True)]
    x, y = m.randn(batch, sizes[0]), m.randint(0, sizes[-1], (batch,))
    def step():
        h = x
        for k in range(0, len(params), 2):
            h = h @ params[k] + params[k + 1]
            if k < len(params) - 2: h = h.relu()
        loss = -h.log_softmax(1).gather(1, y.unsqueeze(1)).mean()
        for p in params: p.grad = None
        loss.backward()
        with m.no_grad():
            for p in params: p.sub_(lr * p.grad)
    return step

def gemm_rate(n=512):
    "NumPy's float32 GEMM rate (FLOP/s) on n×n×n, at the current BLAS thread count."
    a, b = np.random.rand(n, n).astype(np.float32), np.random.rand(n, n).astype(np.float32)
    return 2 * n ** 3 / timeit(lambda: a @ b)

def gemm_floor(batch=128, sizes=(784, 512, 512, 10)):
    "Seconds the MLP step's matmuls take at NumPy's float32 GEMM rate (3 GEMMs per layer: forward and two backward)."
    rate = gemm_rate(1024)
    flops = sum(3 * 2 * batch * i * o for i, o in zip(sizes[:-1], sizes[1:]))
    return flops / rate, rate

def main():
    rows = []
    for op in ('add', 'mul'):
        for rg in (False, True):
            rows.append((f'{op} 4x4' + (', requires_grad (forward)' if rg else ''), *side_by_side(small_op(op, rg))))
        rows.append((f'{op} 4x4, requires_grad, forward+backward', *side_by_side(small_op(op, True, True))))
    rows.append(('matmul 16x16 forward', *side_by_side(matmul16(False))))
    rows.append(('matmul 16x16 forward+backward', *side_by_side(matmul16(True))))
    default = torch.get_num_threads()
    set_threads(1)
    rows.append(('MLP 784-512-512-10 step, batch 128, 1 thread', *side_by_side(mlp_step)))
    set_threads(default)
    rows.append(('MLP 784-512-512-10 step, batch 128', *side_by_side(mlp_step)))
    floor, rate = gemm_floor()
    print(f'threads: torch {default} unless the row says; NumPy float32 GEMM rate {rate / 1e9:.0f} GFLOP/s\n')
    print('| benchmark | torch | lit_torch | ratio |\n|---|---|---|---|')
    for name, t, l in rows: print(f'| {name} | {t * 1e6:.1f} µs | {l * 1e6:.1f} µs | {l / t:.2f}x |')
    print(f'| MLP step GEMM floor (FLOPs / NumPy GEMM rate) | | {floor * 1e6:.1f} µs | {floor / rows[-1][1]:.2f}x of torch |')

if __name__ == '__main__': main()
