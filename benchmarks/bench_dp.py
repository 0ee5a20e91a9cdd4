"""DataParallel speed-up: one training step of a GEMM-heavy MLP on 1 and on 2 devices.

    python benchmarks/bench_dp.py [--width 4096] [--layers 3] [--batch 512] [--steps 3]

On the CPU, the devices are lit_torch's virtual CPU devices, with NumPy's BLAS held to one thread
(threadpoolctl) so that each device is one core: the speed-up is what running the replicas in threads
buys. With CUDA devices (CuPy), the same step runs on cuda:0 and on cuda:0 + cuda:1 as well.
Prints a Markdown table.
"""
import argparse, time
import numpy as np
from threadpoolctl import threadpool_limits
import lit_torch as torch
from lit_torch import nn


def make_model(width, layers, device):
    torch.manual_seed(0)
    mods = []
    for _ in range(layers): mods += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*mods[:-1]).to(device)


def time_step(model, x, y, steps):
    "Median seconds of forward + MSE loss + backward + SGD step."
    opt = torch.optim.SGD([p for p in model.parameters()], lr=1e-4)
    def step():
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    step()  # warm up
    times = []
    for _ in range(steps):
        t = time.perf_counter(); step(); sync(); times.append(time.perf_counter() - t)
    return float(np.median(times))


def sync():
    if torch.cuda.is_available(): torch.cuda.synchronize()


def run(devices, width, layers, batch, steps):
    base = make_model(width, layers, devices[0])
    model = base if len(devices) == 1 else nn.DataParallel(base, device_ids=devices)
    x = torch.randn(batch, width, device=devices[0])
    y = torch.randn(batch, width, device=devices[0])
    return time_step(model, x, y, steps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--width', type=int, default=4096)
    ap.add_argument('--layers', type=int, default=3)
    ap.add_argument('--batch', type=int, default=512)
    ap.add_argument('--steps', type=int, default=3)
    a = ap.parse_args()
    flops = 3 * 2 * a.batch * a.width * a.width * a.layers  # forward + two backward GEMMs per layer
    rows = []
    with threadpool_limits(1):
        t1 = run(['cpu:0'], a.width, a.layers, a.batch, a.steps)
        time.sleep(0.2)
        t2 = run(['cpu:0', 'cpu:1'], a.width, a.layers, a.batch, a.steps)
    rows.append(('CPU, BLAS 1 thread/device', t1, t2))
    if torch.cuda.is_available() and torch.cuda.device_count() >= 2:
        c1 = run(['cuda:0'], a.width, a.layers, a.batch, a.steps)
        c2 = run(['cuda:0', 'cuda:1'], a.width, a.layers, a.batch, a.steps)
        rows.append(('CUDA (CuPy)', c1, c2))
    print(f"MLP {a.layers} x Linear({a.width}, {a.width}), batch {a.batch}, SGD step; median of {a.steps}\n")
    print("| backend | 1 device (ms) | 2 devices (ms) | speed-up | GFLOP/s on 2 |")
    print("|---|---:|---:|---:|---:|")
    for name, s1, s2 in rows:
        print(f"| {name} | {s1 * 1e3:.0f} | {s2 * 1e3:.0f} | {s1 / s2:.2f}x | {flops / s2 / 1e9:.0f} |")


if __name__ == '__main__':
    main()
