"""lit_torch vs torch (CPU), side by side in one run: an nn MLP step, a small CNN step, Conv2d alone, and a
DCGAN generator step (ConvTranspose2d); the MLP and CNN steps also at 1 thread.

Each step is the same code for both libraries (`import lit_torch as torch` style), timed with the
helpers of bench_core. The floor is the step's Linear/Conv/ConvTranspose FLOPs (3x the forward's, counted with a
global forward hook on the torch step) at NumPy's measured float32 GEMM rate with the same threads. Run: python benchmarks/bench_nn.py [--device cuda]   (on a GPU: float32 with torch's TF32 off;
each timed step ends with a synchronize)
"""
import math, sys, time
from pathlib import Path
import numpy as np
import torch
import lit_torch as lt
sys.path.insert(0, str(Path(__file__).parent))
from bench_core import gemm_rate, set_threads, side_by_side

DEVICE = 'cpu'
def synced(m, step):
    "On a GPU, a step is done when the device is: synchronize after it."
    if DEVICE == 'cpu': return step
    def run(): step(); m.cuda.synchronize()
    return run

def mlp(m, batch=128):
    m.manual_seed(0)
    nn = m.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(DEVICE)
    opt = m.optim.SGD(model.parameters(), lr=0.01)
    x, y = m.randn(batch, 784, device=DEVICE), m.randint(0, 10, (batch,), device=DEVICE)
    loss_fn = nn.CrossEntropyLoss()
    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    return synced(m, step)

def cnn(m, batch=32):
    m.manual_seed(0)
    nn = m.nn
    model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64 * 8 * 8, 10)).to(DEVICE)
    opt = m.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = m.randn(batch, 3, 32, 32, device=DEVICE), m.randint(0, 10, (batch,), device=DEVICE)
    loss_fn = nn.CrossEntropyLoss()
    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    return synced(m, step)

def conv(m, batch=32):
    m.manual_seed(0)
    layer = m.nn.Conv2d(32, 64, 3, padding=1).to(DEVICE)
    x = m.randn(batch, 32, 16, 16, requires_grad=True, device=DEVICE)
    def step():
        layer.zero_grad(); x.grad = None
        layer(x).sum().backward()
    return synced(m, step)

def dcgan(m, batch=16, nz=100, ngf=64):
    "The DCGAN generator (latent 100 -> 4x4x512 -> ... -> 64x64x3), one Adam step on an MSE loss to a fixed image batch."
    m.manual_seed(0)
    nn = m.nn
    def up(i, o, *args): return [nn.ConvTranspose2d(i, o, 4, *args, bias=False), nn.BatchNorm2d(o), nn.ReLU(True)]
    model = nn.Sequential(*up(nz, ngf * 8, 1, 0), *up(ngf * 8, ngf * 4, 2, 1), *up(ngf * 4, ngf * 2, 2, 1), *up(ngf * 2, ngf, 2, 1),
                          nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())
    opt = m.optim.Adam(model.parameters(), lr=2e-4, betas=(0.5, 0.999))
    z, target = m.randn(batch, nz, 1, 1), m.rand(batch, 3, 64, 64) * 2 - 1
    loss_fn = nn.MSELoss()
    def step():
        loss = loss_fn(model(z), target)
        opt.zero_grad(); loss.backward(); opt.step()
    return step

def step_flops(make):
    "3x the forward FLOPs of the torch step's Linear, Conv2d and ConvTranspose2d layers (a global forward hook)."
    total = [0]
    def hook(mod, args, out):
        if isinstance(mod, torch.nn.Linear): total[0] += 2 * out.numel() * mod.in_features
        elif isinstance(mod, torch.nn.ConvTranspose2d): total[0] += 2 * args[0].numel() * mod.out_channels // mod.groups * math.prod(mod.kernel_size)
        elif isinstance(mod, torch.nn.Conv2d): total[0] += 2 * out.numel() * mod.in_channels // mod.groups * math.prod(mod.kernel_size)
    h = torch.nn.modules.module.register_module_forward_hook(hook)
    try: make(torch)()
    finally: h.remove()
    return 3 * total[0]

def main():
    global DEVICE
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--device', default='cpu', help="'cpu' (default) or 'cuda'")
    DEVICE = p.parse_args().device
    if DEVICE != 'cpu':
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
        print(f'device: {DEVICE}: torch on {torch.cuda.get_device_name()}, lit_torch on CuPy; float32, TF32 off')
    default = torch.get_num_threads()
    mlp_name, cnn_name = 'MLP 784-512-512-10 step (nn.Sequential, CrossEntropyLoss, SGD), batch 128', 'CNN step: conv 3→32→64, 32×32, batch 32 (SGD momentum)'
    makes = [(mlp_name, mlp, default), (cnn_name, cnn, default),
             ('Conv2d 32→64 3×3, 16×16, batch 32, forward+backward', conv, default),
             ('DCGAN generator step: ConvTranspose2d 100→512→256→128→64→3, 64×64, BatchNorm2d+ReLU, batch 16 (Adam)', dcgan, default)]
    if DEVICE == 'cpu': makes += [(mlp_name + ', 1 thread', mlp, 1), (cnn_name + ', 1 thread', cnn, 1)]
    rows, rates = [], {}
    for name, make, threads in makes:
        set_threads(threads)
        if DEVICE == 'cpu' and threads not in rates: rates[threads] = gemm_rate()
        rows.append((name, *side_by_side(make), step_flops(make) / rates[threads] if DEVICE == 'cpu' else None))
    set_threads(default)
    print(f'threads: torch {default} unless the row says' + (f'; NumPy float32 GEMM rate {rates[default] / 1e9:.0f} GFLOP/s' if rates else '') + '\n')
    print('| benchmark | torch | lit_torch | ratio | GEMM floor | lit_torch / floor |\n|---|---|---|---|---|---|')
    for name, t, l, floor in rows:
        floor = f'{floor * 1e3:.2f} ms | {l / floor:.2f}x' if floor else ' | '
        print(f'| {name} | {t * 1e3:.2f} ms | {l * 1e3:.2f} ms | {l / t:.2f}x | {floor} |')

if __name__ == '__main__': main()
