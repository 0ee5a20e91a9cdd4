"""lit_torch vs torch (CPU), side by side in one run: LSTM training steps of the word-language-model shape.

Two layers, hidden 256, embedding 256, 35 steps of a batch of 20 (PyTorch's examples/word_language_model defaults):
forward, loss, backward and an SGD step, written the same way for both libraries. Rows: the LSTM alone (a
regression loss on its output), the whole word LM (embedding, LSTM, decoder to a 10,000-word vocabulary,
cross-entropy), a GRU of the same shape, and a packed batch of ragged lengths. Each is timed with bench_core's
helpers, torch first, with a pause between the two, in `--rounds` interleaved rounds (default 3), keeping each
library's best: the machine is shared, and a round that another process disturbs should not decide the ratio.
Run: python benchmarks/bench_rnn.py [--rounds N] [--device cuda]   (on a GPU: float32 with torch's TF32 off, each timed
step ending with a synchronize; the NumPy GEMM floor is a CPU measure and is left out there)
"""
import sys
from pathlib import Path
import numpy as np
import torch
import lit_torch as lt
sys.path.insert(0, str(Path(__file__).parent))
from bench_core import side_by_side

T, B, E, H, L, VOCAB = 35, 20, 256, 256, 2, 10000
DEVICE = 'cpu'

def synced(m, step):
    "On a GPU, a step is done when the device is: synchronize after it."
    if DEVICE == 'cpu': return step
    def run(): step(); m.cuda.synchronize()
    return run

def lstm_step(m, cls='LSTM', packed=False):
    def make(m):
        m.manual_seed(0)
        rnn = getattr(m.nn, cls)(E, H, L).to(DEVICE)
        opt = m.optim.SGD(rnn.parameters(), lr=0.1)
        x, y = m.randn(T, B, E, device=DEVICE), m.randn(T, B, H, device=DEVICE)
        lengths = sorted(np.random.default_rng(0).integers(5, T + 1, B).tolist(), reverse=True)
        lengths[0] = T
        def step():
            if packed:
                out, _ = rnn(m.nn.utils.rnn.pack_padded_sequence(x, lengths))
                out = m.nn.utils.rnn.pad_packed_sequence(out)[0]
            else: out, _ = rnn(x)
            loss = ((out - y) ** 2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
        return synced(m, step)
    return make(m)

def word_lm_step(m):
    m.manual_seed(0)
    nn = m.nn
    embed, rnn, decoder = nn.Embedding(VOCAB, E).to(DEVICE), nn.LSTM(E, H, L).to(DEVICE), nn.Linear(H, VOCAB).to(DEVICE)
    params = list(embed.parameters()) + list(rnn.parameters()) + list(decoder.parameters())
    opt = m.optim.SGD(params, lr=0.1)
    x, y = m.randint(0, VOCAB, (T, B), device=DEVICE), m.randint(0, VOCAB, (T * B,), device=DEVICE)
    loss_fn = nn.CrossEntropyLoss()
    def step():
        out, _ = rnn(embed(x))
        loss = loss_fn(decoder(out).reshape(-1, VOCAB), y)
        opt.zero_grad(); loss.backward(); opt.step()
    return synced(m, step)

def gemm_floor():
    "Seconds NumPy's BLAS takes for the LSTM step's matrix products at their own shapes: the floor of this design."
    from bench_core import timeit
    f32 = np.float32
    big_a, big_b = np.random.rand(T * B, E).astype(f32), np.random.rand(4 * H, E).astype(f32)
    w, h = np.random.rand(4 * H, H).astype(f32), np.random.rand(B, H).astype(f32)
    big = timeit(lambda: big_a @ big_b.T)             # (T·B, E) × (E, 4H): a projection, a weight gradient, dX
    small = timeit(lambda: w @ h.T)                   # the recurrent product, one step
    n_big = L + 2 * L + (L - 1)                        # projections, dW_ih and dW_hh, dX of the upper layers
    return n_big * big + 2 * L * T * small

def best_of(make, rounds):
    "Each library's best time over `rounds` rounds of bench_core.side_by_side."
    times = [side_by_side(make) for _ in range(rounds)]
    return min(t for t, _ in times), min(l for _, l in times)

def main(rounds=3):
    rows = [(f'LSTM step: {L} layers, hidden {H}, input {E}, {T} steps × batch {B} (MSE, SGD)', *best_of(lstm_step, rounds)),
            (f'word LM step: embedding {E}, that LSTM, decoder to {VOCAB:,} words, cross-entropy, SGD', *best_of(word_lm_step, rounds)),
            ('GRU step, the same shape', *best_of(lambda m: lstm_step(m, 'GRU'), rounds)),
            ('LSTM step on a packed batch (lengths 5..35), pack and pad included', *best_of(lambda m: lstm_step(m, packed=True), rounds))]
    if DEVICE == 'cpu':
        floor = gemm_floor()
        print(f'threads: torch {torch.get_num_threads()}; the LSTM step\'s matrix products alone take {floor * 1e3:.1f} ms in NumPy '
              f'({floor / rows[0][1]:.2f}x torch\'s whole step)\n')
    else: print()
    print('| benchmark | torch | lit_torch | ratio |\n|---|---|---|---|')
    for name, t, l in rows: print(f'| {name} | {t * 1e3:.2f} ms | {l * 1e3:.2f} ms | {l / t:.2f}x |')

if __name__ == '__main__':
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--rounds', type=int, default=3, help='interleaved rounds; each library keeps its best (default 3)')
    p.add_argument('--device', default='cpu', help="'cpu' (default) or 'cuda'")
    args = p.parse_args()
    DEVICE = args.device
    if DEVICE != 'cpu':
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
        print(f'device: {DEVICE}: torch on {torch.cuda.get_device_name()}, lit_torch on CuPy; float32, TF32 off')
    main(args.rounds)
