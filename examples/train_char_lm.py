"""A character-level language model: an LSTM reads Shakespeare's sonnets one character at a time and learns to continue them.

`python examples/train_char_lm.py` trains it with lit_torch (add `--torch`, or set CHARLM_TORCH=1, to run the very same
code on PyTorch), prints the loss as it falls, and samples a few lines. The text, examples/data/sonnets.txt, is fifteen
of Shakespeare's sonnets (1609, public domain), about 9 KB. It is cut into `batch_size` parallel streams read in
windows of `seq_len` characters; the LSTM's state is carried from one window to the next and detached there
(truncated backpropagation through time), as PyTorch's word-language-model example does.
"""
import math, os, sys, time
from pathlib import Path
import numpy as np

if __name__ == '__main__' and '--torch' in sys.argv or os.environ.get('CHARLM_TORCH'): import torch
else: import lit_torch as torch
nn = torch.nn

TEXT = (Path(__file__).resolve().parent / 'data' / 'sonnets.txt').read_text()


class Vocab:
    "The characters of a text, each with an index."
    def __init__(self, text): self.chars = sorted(set(text)); self.index = {c: i for i, c in enumerate(self.chars)}
    def __len__(self): return len(self.chars)
    def encode(self, s): return torch.tensor([self.index[c] for c in s])
    def decode(self, ids): return ''.join(self.chars[i] for i in ids)


def batchify(ids, batch_size):
    "The text as `batch_size` parallel streams, time-major (steps, batch_size): stream b reads the b-th slice of the text."
    n = len(ids) // batch_size
    return ids[:n * batch_size].reshape(batch_size, n).t().contiguous()


def windows(streams, seq_len):
    "(input, target) windows of `seq_len` steps; the target is the input shifted by one character."
    for i in range(0, streams.size(0) - 1, seq_len):
        n = min(seq_len, streams.size(0) - 1 - i)
        yield streams[i:i + n], streams[i + 1:i + 1 + n]


class CharLM(nn.Module):
    "Embedding, LSTM, and a Linear to the vocabulary: the logits of the next character at every step."
    def __init__(self, vocab_size, embed=32, hidden=128, num_layers=1, dropout=0.0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers, dropout=dropout)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


def clip_grad_norm(parameters, max_norm):
    "Scale the gradients down so that their joint norm is at most `max_norm` (what nn.utils.clip_grad_norm_ does)."
    grads = [p.grad for p in parameters if p.grad is not None]
    norm = math.sqrt(sum(float((g * g).sum()) for g in grads))
    if norm > max_norm:
        for g in grads: g.mul_(max_norm / (norm + 1e-6))
    return norm


def train(model, streams, steps, seq_len=64, lr=4e-3, clip=1.0, log=None):
    "Adam on the next-character cross-entropy for `steps` windows, epoch after epoch; the losses."
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    while len(losses) < steps:
        state = None
        for x, y in windows(streams, seq_len):
            logits, state = model(x, state)
            state = tuple(s.detach() for s in state)          # keep the state, cut its history
            loss = loss_fn(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            clip_grad_norm(model.parameters(), clip)
            opt.step()
            losses.append(loss.item())
            if log and len(losses) % 100 == 0: log(f'step {len(losses):5d}  loss {np.mean(losses[-100:]):.3f}')
            if len(losses) == steps: break
    return losses


def sample(model, vocab, prompt, n=300, temperature=0.7, seed=0):
    "Continue `prompt` by `n` characters, each drawn from the model's softmax at `temperature`."
    rng = np.random.default_rng(seed)
    model.eval()
    out = []
    with torch.no_grad():
        logits, state = model(vocab.encode(prompt)[:, None])
        for _ in range(n):
            p = (logits[-1, 0] / temperature).softmax(-1).numpy().astype(np.float64)
            out.append(int(rng.choice(len(p), p=p / p.sum())))
            logits, state = model(torch.tensor([[out[-1]]]), state)
    model.train()
    return prompt + vocab.decode(out)


def main(steps=2000, batch_size=32, seq_len=64, embed=32, hidden=256, num_layers=2, dropout=0.1, lr=4e-3, seed=0, quiet=False):
    "Train, print the loss every 100 steps unless `quiet`, and sample; returns what a plot needs."
    torch.manual_seed(seed)
    vocab = Vocab(TEXT)
    streams = batchify(vocab.encode(TEXT), batch_size)
    model = CharLM(len(vocab), embed, hidden, num_layers, dropout)
    log = None if quiet else print
    if log: log(f'{len(TEXT):,} characters, {len(vocab)} distinct; {sum(p.numel() for p in model.parameters()):,} parameters')
    t0 = time.perf_counter()
    losses = train(model, streams, steps, seq_len, lr, log=log)
    seconds = time.perf_counter() - t0
    text = sample(model, vocab, 'Shall I ')
    if log: log(f'{steps} steps in {seconds:.0f} s on {torch.__name__}\n\n{text}')
    return dict(model=model, vocab=vocab, losses=losses, seconds=seconds, sample=text)


if __name__ == '__main__': main()
