"""Transformer training steps, lit_torch vs torch (CPU), side by side in one run, with the GEMM floor.

1. A TransformerEncoderLayer training step: d_model 256, 8 heads, feed-forward 1024, sequence 64, batch 16,
   batch_first, default dropout 0.1; forward, a loss, backward, Adam step. Goal: at most 0.9x torch (issue 17);
   timed at the default thread count and at 1 thread.
2. A full nn.Transformer training step (2 + 2 layers, same sizes, causal tgt_mask, padding masks).
The floor is the step's matmul FLOPs at NumPy's measured float32 GEMM rate: no implementation on NumPy's BLAS
can beat it, and the ratio to it says how much of the step is not GEMM.
Run: python benchmarks/bench_transformer.py [--device cuda]   (on a GPU: float32 with torch's TF32 off, lit_torch on
CuPy; each timed step ends with a synchronize, and the floor is CuPy's float32 GEMM rate)
"""
import sys, time
from pathlib import Path
import numpy as np
import torch
import lit_torch as lt
sys.path.insert(0, str(Path(__file__).parent))
from bench_core import set_threads, side_by_side

B, L, D, H, FF = 16, 64, 256, 8, 1024
DEVICE = 'cpu'

def gemm_rate(n=1024, k=256, m=1024, reps=20):
    "NumPy's (on a GPU: CuPy's) float32 GEMM rate (FLOP/s) at the step's typical shape."
    xp = np if DEVICE == 'cpu' else __import__('cupy')
    a, b = xp.random.rand(n, k).astype(np.float32), xp.random.rand(k, m).astype(np.float32)
    a @ b
    sync = (lambda: None) if DEVICE == 'cpu' else xp.cuda.runtime.deviceSynchronize
    sync(); t = time.perf_counter()
    for _ in range(reps): a @ b
    sync()
    return 2 * n * k * m * reps / (time.perf_counter() - t)

def layer_flops(L_q=L, L_kv=L, cross=False):
    "Forward matmul FLOPs of one layer: projections, scores and weighted sum, feed-forward."
    t_q, t_kv = B * L_q, B * L_kv
    attn = 2 * t_q * D * D * 2 + 2 * t_kv * D * D * 2 + 2 * 2 * B * L_q * L_kv * D   # q and out; k and v; QKᵀ and PV
    return attn * (2 if cross else 1) + 2 * 2 * t_q * D * FF

def step_of(model, m, inputs, w):
    opt = m.optim.Adam(model.parameters(), lr=1e-4)
    def step():
        opt.zero_grad()
        (model(*inputs) * w).sum().backward()
        opt.step()
        if DEVICE != 'cpu': m.cuda.synchronize()
    return step

def encoder_layer_step(m):
    m.manual_seed(0)
    layer = m.nn.TransformerEncoderLayer(D, H, FF, batch_first=True).to(DEVICE)
    return step_of(layer, m, (m.randn(B, L, D, device=DEVICE),), m.randn(B, L, D, device=DEVICE))

def transformer_step(m):
    m.manual_seed(0)
    model = m.nn.Transformer(D, H, 2, 2, FF, batch_first=True).to(DEVICE)
    src, tgt = m.randn(B, L, D, device=DEVICE), m.randn(B, L, D, device=DEVICE)
    mask = m.nn.Transformer.generate_square_subsequent_mask(L, device=DEVICE)
    pad = m.zeros(B, L, device=DEVICE); pad[:, L - 8:] = float('-inf')   # the last 8 positions are padding (float, like tgt_mask)
    class Step(m.nn.Module):   # the masks as a seq2seq model passes them
        def __init__(self): super().__init__(); self.t = model
        def forward(self, s, t): return self.t(s, t, tgt_mask=mask, src_key_padding_mask=pad, tgt_key_padding_mask=pad,
                                               memory_key_padding_mask=pad)
    return step_of(Step(), m, (src, tgt), m.randn(B, L, D, device=DEVICE))

def use_device(name):
    "Run the benchmarks on `name` ('cpu' or 'cuda'); on a GPU in true float32: torch's TF32 off."
    global DEVICE
    DEVICE = name
    if name != 'cpu':
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
        print(f'device: {name}: torch on {torch.cuda.get_device_name()}, lit_torch on CuPy {__import__("cupy").__version__}; float32, TF32 off')

def main():
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--device', default='cpu', help="'cpu' (default) or 'cuda'")
    use_device(p.parse_args().device)
    default = torch.get_num_threads()
    print(f'threads: torch {default} unless the row says; shapes: batch {B}, seq {L}, d_model {D}, {H} heads, ff {FF}\n')
    rows = [('TransformerEncoderLayer training step', encoder_layer_step, 3 * layer_flops(), '≤ 0.9x', default),
            ('nn.Transformer (2+2 layers) training step', transformer_step,
             3 * (2 * layer_flops() + 2 * layer_flops(cross=True)), '', default)]
    if DEVICE == 'cpu': rows.append(('TransformerEncoderLayer training step, 1 thread', encoder_layer_step, 3 * layer_flops(), '≤ 0.9x', 1))
    print('| benchmark | torch | lit_torch | ratio | GEMM floor | lit_torch / floor | goal |\n|---|---|---|---|---|---|---|')
    for name, make, flops, goal, threads in rows:
        set_threads(threads)
        rate = gemm_rate()
        t, l = side_by_side(make)
        floor = flops / rate
        print(f'| {name} | {t * 1e3:.1f} ms | {l * 1e3:.1f} ms | {l / t:.2f}x | {floor * 1e3:.1f} ms | {l / floor:.2f}x | {goal} |', flush=True)
    set_threads(default)
    print(f'\nGEMM floor: forward + backward ≈ 3x the forward matmul FLOPs, at {"NumPy" if DEVICE == "cpu" else "CuPy"}\'s measured GEMM rate with the same threads.')

if __name__ == '__main__': main()
