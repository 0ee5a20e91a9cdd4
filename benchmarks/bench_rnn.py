"""lit_torch vs torch (CPU), side by side in one run: LSTM training steps of the word-language-model shape.

Two layers, hidden 256, embedding 256, 35 steps of a batch of 20 (PyTorch's examples/word_language_model defaults):
forward, loss, backward and an SGD step, written the same way for both libraries. Rows: the LSTM alone (a
regression loss on its output), the whole word LM (embedding, LSTM, decoder to a 10,000-word vocabulary,
cross-entropy), a GRU of the same shape, and a packed batch of ragged lengths. Each is timed with bench_core's
helpers, torch first, with a pause between the two. Run: python benchmarks/bench_rnn.py
"""
import sys
from pathlib import Path
import numpy as np
import torch
import lit_torch as lt
sys.path.insert(0, str(Path(__file__).parent))
from bench_core import side_by_side

T, B, E, H, L, VOCAB = 35, 20, 256, 256, 2, 10000

def lstm_step(m, cls='LSTM', packed=False):
    def make(m):
        m.manual_seed(0)
        rnn = getattr(m.nn, cls)(E, H, L)
        opt = m.optim.SGD(rnn.parameters(), lr=0.1)
        x, y = m.randn(T, B, E), m.randn(T, B, H)
        lengths = sorted(np.random.default_rng(0).integers(5, T + 1, B).tolist(), reverse=True)
        lengths[0] = T
        def step():
            if packed:
                out, _ = rnn(m.nn.utils.rnn.pack_padded_sequence(x, lengths))
                out = m.nn.utils.rnn.pad_packed_sequence(out)[0]
            else: out, _ = rnn(x)
            loss = ((out - y) ** 2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
        return step
    return make(m)

def word_lm_step(m):
    m.manual_seed(0)
    nn = m.nn
    embed, rnn, decoder = nn.Embedding(VOCAB, E), nn.LSTM(E, H, L), nn.Linear(H, VOCAB)
    params = list(embed.parameters()) + list(rnn.parameters()) + list(decoder.parameters())
    opt = m.optim.SGD(params, lr=0.1)
    x, y = m.randint(0, VOCAB, (T, B)), m.randint(0, VOCAB, (T * B,))
    loss_fn = nn.CrossEntropyLoss()
    def step():
        out, _ = rnn(embed(x))
        loss = loss_fn(decoder(out).reshape(-1, VOCAB), y)
        opt.zero_grad(); loss.backward(); opt.step()
    return step

def main():
    rows = [(f'LSTM step: {L} layers, hidden {H}, input {E}, {T} steps × batch {B} (MSE, SGD)', *side_by_side(lstm_step)),
            (f'word LM step: embedding {E}, that LSTM, decoder to {VOCAB:,} words, cross-entropy, SGD', *side_by_side(word_lm_step)),
            ('GRU step, the same shape', *side_by_side(lambda m: lstm_step(m, 'GRU'))),
            ('LSTM step on a packed batch (lengths 5..35), pack and pad included', *side_by_side(lambda m: lstm_step(m, packed=True)))]
    print(f'threads: torch {torch.get_num_threads()}\n')
    print('| benchmark | torch | lit_torch | ratio |\n|---|---|---|---|')
    for name, t, l in rows: print(f'| {name} | {t * 1e3:.2f} ms | {l * 1e3:.2f} ms | {l / t:.2f}x |')

if __name__ == '__main__': main()
