"""The main job: a small seq2seq Transformer that rewrites dates into ISO form, in plain PyTorch code run by lit_torch.

    "3 March 2021", "March 3, 2021", "03/03/21", "Wed, 3 Mar 2021", "2021 March 3rd", ...  ->  "2021-03-03"

`make demo` runs it: `python examples/train_dates.py` (add `--torch` to run the very same code on PyTorch, or set
DATES_TORCH=1). The data is generated here, offline and seeded: a character vocabulary, and a split by calendar
day, so no held-out date is ever seen in training, in any format. The model is `nn.Transformer` (batch_first) with
token embeddings, sinusoidal positional encodings and a generator `Linear`; training draws padded batches from a
`DataLoader` with two worker processes and uses Adam with a warmup `LambdaLR`, label-smoothed cross-entropy that
ignores padding, key-padding masks and the causal target mask; the model is scored by greedy decoding. It shows a
progress bar, prints the held-out exact match, and writes the loss curve and the decoder's cross-attention for one
held-out example to PNG files.
"""
import datetime, math, os, random, sys, time, warnings

if __name__ == '__main__' and '--torch' in sys.argv or os.environ.get('DATES_TORCH'): import torch
else: import lit_torch as torch
warnings.filterwarnings('ignore', message='The PyTorch API of nested tensors')   # PyTorch's own, from its fast path
nn = torch.nn
Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader

# ---------------------------------------------------------------------------------------------------- the task
MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
          'November', 'December']
DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
FIRST, LAST = datetime.date(1950, 1, 1), datetime.date(2049, 12, 31)   # two-digit years are unambiguous: 50..99 -> 19xx

def _ordinal(n): return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"

# Each format is a function of the date; the day/month order is fixed per format, so every string has one reading.
FORMATS = {
    'D Month YYYY':          lambda d: f'{d.day} {MONTHS[d.month - 1]} {d.year}',
    'Month D, YYYY':         lambda d: f'{MONTHS[d.month - 1]} {d.day}, {d.year}',
    'MM/DD/YY':              lambda d: f'{d.month:02}/{d.day:02}/{d.year % 100:02}',
    'D.M.YYYY':              lambda d: f'{d.day}.{d.month}.{d.year}',
    'Dow, D Mon YYYY':       lambda d: f'{DAYS[d.weekday()][:3]}, {d.day} {MONTHS[d.month - 1][:3]} {d.year}',
    'YYYY Month Dth':        lambda d: f'{d.year} {MONTHS[d.month - 1]} {_ordinal(d.day)}',
    'Dth of Month, YYYY':    lambda d: f'{_ordinal(d.day)} of {MONTHS[d.month - 1]}, {d.year}',
    'Weekday, Month D, YYYY': lambda d: f'{DAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}, {d.year}',
    'DD-Mon-YYYY':           lambda d: f'{d.day:02}-{MONTHS[d.month - 1][:3]}-{d.year}',
    'Mon D YYYY':            lambda d: f'{MONTHS[d.month - 1][:3]} {d.day} {d.year}',
    'D MON YY':              lambda d: f"{d.day} {MONTHS[d.month - 1][:3].upper()} '{d.year % 100:02}",
    'month dth, yyyy':       lambda d: f'{MONTHS[d.month - 1].lower()} {_ordinal(d.day)}, {d.year}',
    'YYYY/MM/DD':            lambda d: f'{d.year}/{d.month:02}/{d.day:02}',
    'DD.MM.YY':              lambda d: f'{d.day:02}.{d.month:02}.{d.year % 100:02}',
    'YYYYMMDD':              lambda d: f'{d.year}{d.month:02}{d.day:02}',
}

def iso(d): return d.isoformat()

def make_data(n_train=20000, n_test=1000, seed=0, test_days=0.1):
    "Seeded (source, target) string pairs: held-out pairs come from calendar days that training never sees."
    rng = random.Random(seed)
    days = [FIRST + datetime.timedelta(i) for i in range((LAST - FIRST).days + 1)]
    rng.shuffle(days)
    n_held = int(len(days) * test_days)
    test_days_, train_days = days[:n_held], days[n_held:]
    fmts = list(FORMATS.values())
    def sample(pool, n): return [(f(d), iso(d)) for d, f in ((rng.choice(pool), rng.choice(fmts)) for _ in range(n))]
    return sample(train_days, n_train), sample(test_days_, n_test)

# ---------------------------------------------------------------------------------------------------- vocabulary
PAD, BOS, EOS = 0, 1, 2
CHARS = ['<pad>', '<bos>', '<eos>'] + sorted(set(" ,.-/'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
STOI = {c: i for i, c in enumerate(CHARS)}

def encode(s): return [STOI[c] for c in s]
def decode(ids):
    "Characters up to the first <eos>, skipping <bos> and <pad>."
    out = []
    for i in ids:
        if i == EOS: break
        if i > EOS: out.append(CHARS[i])
    return ''.join(out)

class DatePairs(Dataset):
    "Encoded pairs: the source characters, and <bos> + target characters + <eos>."
    def __init__(self, pairs): self.pairs = pairs
    def __len__(self): return len(self.pairs)
    def __getitem__(self, i):
        src, tgt = self.pairs[i]
        return encode(src), [BOS] + encode(tgt) + [EOS]

def pad_batch(seqs, value=PAD):
    "Right-pad lists of token ids to one (batch, longest) int64 tensor."
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [value] * (n - len(s)) for s in seqs], dtype=torch.long)

def collate(batch):
    "A list of (src, tgt) id lists -> two padded tensors."
    srcs, tgts = zip(*batch)
    return pad_batch(srcs), pad_batch(tgts)

# ---------------------------------------------------------------------------------------------------- the model
class PositionalEncoding(nn.Module):
    "Adds the sinusoidal position code of 'Attention is all you need' to (batch, seq, d_model) embeddings."
    def __init__(self, d_model, dropout=0.1, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * freq)
        pe[:, 1::2] = torch.cos(pos * freq)
        self.register_buffer('pe', pe.unsqueeze(0))
    def forward(self, x): return self.dropout(x + self.pe[:, :x.size(1)])

class DateTransformer(nn.Module):
    "Embeddings + positions -> nn.Transformer -> a generator Linear over the vocabulary."
    def __init__(self, vocab_size=len(CHARS), d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                 dim_feedforward=128, dropout=0.0):
        super().__init__()
        self.d_model = d_model
        self.src_embed = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model, dropout)
        self.transformer = nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward,
                                          dropout, batch_first=True)
        self.generator = nn.Linear(d_model, vocab_size)

    def embed(self, emb, ids): return self.pos(emb(ids))   # N(0, 1) embeddings, unscaled: the positions stay audible

    def forward(self, src, tgt):
        "Logits (batch, tgt_len, vocab) for teacher-forced decoder input `tgt`."
        src_pad, tgt_pad, tgt_mask = masks(src, tgt)
        out = self.transformer(self.embed(self.src_embed, src), self.embed(self.tgt_embed, tgt), tgt_mask=tgt_mask,
                               src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
                               memory_key_padding_mask=src_pad, tgt_is_causal=True)
        return self.generator(out)

    def encode(self, src):
        return self.transformer.encoder(self.embed(self.src_embed, src), src_key_padding_mask=src == PAD)

    def decode(self, tgt, memory, src_pad):
        _, tgt_pad, tgt_mask = masks(None, tgt)
        return self.transformer.decoder(self.embed(self.tgt_embed, tgt), memory, tgt_mask=tgt_mask,
                                        tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad, tgt_is_causal=True)

def masks(src, tgt):
    "What the Transformer is told to ignore: padded source keys, padded target keys, and the future (causal mask)."
    src_pad = None if src is None else src == PAD                   # (batch, src_len) bool, True = padding
    tgt_pad = tgt == PAD                                            # (batch, tgt_len) bool
    # (tgt_len, tgt_len): 0 on and below the diagonal, -inf above; as bool (True = may not attend), like the others
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1), device=tgt.device) < 0
    return src_pad, tgt_pad, tgt_mask

# ---------------------------------------------------------------------------------------------------- decoding
def greedy_decode(model, src, max_len=12):
    "Decode `src` (batch, src_len) one character at a time, always taking the most likely; returns the strings."
    model.eval()
    with torch.no_grad():
        src_pad = src == PAD
        memory = model.encode(src)
        ys = torch.full((src.size(0), 1), BOS, dtype=torch.long, device=src.device)
        done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
        for _ in range(max_len - 1):
            nxt = model.generator(model.decode(ys, memory, src_pad)[:, -1]).argmax(-1)
            nxt = nxt.masked_fill(done, PAD)                    # finished rows only pad
            ys = torch.cat([ys, nxt.unsqueeze(1)], dim=1)
            done = done | (nxt == EOS)
            if bool(done.all()): break
    return [decode(row) for row in ys.tolist()]

def exact_match(model, pairs, device='cpu', batch_size=500):
    "The fraction of `pairs` whose greedy decoding is exactly the ISO target, and the decodings."
    preds = []
    for i in range(0, len(pairs), batch_size):
        chunk = pairs[i:i + batch_size]
        preds += greedy_decode(model, pad_batch([encode(s) for s, _ in chunk]).to(device))
    return sum(p == t for p, (_, t) in zip(preds, pairs)) / len(pairs), preds

def cross_attention(model, source, device='cpu'):
    "Decode one string; return its output and the last decoder layer's cross-attention, (heads, out_len, src_len)."
    out = greedy_decode(model, pad_batch([encode(source)]).to(device))[0]
    src = pad_batch([encode(source)]).to(device)
    tgt = pad_batch([[BOS] + encode(out)]).to(device)
    mha = model.transformer.decoder.layers[-1].multihead_attn
    seen = {}
    def grab(module, args, kwargs): seen['args'], seen['kwargs'] = args, kwargs   # the inputs the layer passes in
    handle = mha.register_forward_pre_hook(grab, with_kwargs=True)
    try:
        with torch.no_grad():
            model.decode(tgt, model.encode(src), src == PAD)
            # ask the same module again, this time for its per-head weights
            kw = {k: v for k, v in seen['kwargs'].items() if k not in ('need_weights', 'average_attn_weights')}
            _, w = mha(*seen['args'], **kw, need_weights=True, average_attn_weights=False)
    finally: handle.remove()
    return out, w[0].cpu().numpy()

# ---------------------------------------------------------------------------------------------------- training
def main(epochs=4, batch_size=64, d_model=64, nhead=4, num_layers=2, dim_feedforward=128, dropout=0.0, lr=3e-3,
         warmup=150, label_smoothing=0.1, n_train=20000, n_test=1000, num_workers=2, seed=0, eval_every=250,
         loss_plot='dates_loss.png', attention_plot='dates_attention.png', quiet=False, progress=True, device=None):
    "Train (with a tqdm bar if `progress`), print progress unless `quiet`, score by greedy decoding on the held-out days."
    t0 = time.perf_counter()
    device = device or ('cuda' if torch.cuda.is_available() else 'cpu')
    torch.manual_seed(seed)
    train, test = make_data(n_train, n_test, seed)
    loader = DataLoader(DatePairs(train), batch_size=batch_size, shuffle=True, drop_last=True, collate_fn=collate,
                        num_workers=num_workers, persistent_workers=num_workers > 0,
                        generator=torch.Generator().manual_seed(seed), pin_memory=device == 'cuda')
    steps = epochs * len(loader)
    model = DateTransformer(len(CHARS), d_model, nhead, num_layers, num_layers, dim_feedforward, dropout).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)
    # linear warmup, then cosine decay to zero at the last step
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warmup, 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps))))
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=label_smoothing)
    log = print if not quiet else (lambda *a, **k: None)
    log(f'{sum(p.numel() for p in model.parameters()):,} parameters on {device}; {len(train):,} training pairs, '
        f'{len(test):,} held-out pairs; {epochs} epoch{"s" * (epochs != 1)} of {len(loader)} batches of {batch_size}')
    losses, evals, step = [], [], 0
    bar = _progress(steps, quiet or not progress)
    t_train = time.perf_counter()
    for epoch in range(epochs):
        for src, tgt in loader:
            src, tgt = src.to(device), tgt.to(device)
            model.train()
            logits = model(src, tgt[:, :-1])                      # teacher forcing: predict tgt[1:] from tgt[:-1]
            loss = loss_fn(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
            step += 1
            bar.update(1); bar.set_postfix(loss=f'{losses[-1]:.3f}', lr=f'{sched.get_last_lr()[0]:.1e}', refresh=False)
            if step % eval_every == 0 or step == steps:
                acc, _ = exact_match(model, test[:200], device)     # a quick look at 200 held-out pairs
                evals.append((step, acc))
                bar.write(f'step {step:5d}  loss {sum(losses[-50:]) / len(losses[-50:]):.4f}  '
                          f'held-out exact match {acc:.3f}  {time.perf_counter() - t0:.0f} s') if not quiet else None
    bar.close()
    train_time = time.perf_counter() - t_train
    acc, preds = exact_match(model, test, device)
    wall = time.perf_counter() - t0
    log(f'held-out exact match: {acc:.2%} of {len(test)}  ({wall:.1f} s in all, {1000 * train_time / steps:.1f} ms/step)')
    for (s, t), p in list(zip(test, preds))[:5]: log(f'  {s!r:32} -> {p!r}  {"ok" if p == t else "expected " + t}')
    res = dict(acc=acc, steps=steps, losses=losses, evals=evals, preds=preds, train=train, test=test, model=model, wall=wall,
               train_time=train_time, device=device)
    if loss_plot: _plot_loss(losses, evals, acc, loss_plot); log(f'loss curve: {os.path.abspath(loss_plot)}')
    if attention_plot:
        source = test[0][0]
        out, w = cross_attention(model, source, device)
        _plot_attention(source, out, w, attention_plot); log(f'attention map: {os.path.abspath(attention_plot)}')
    return res

def _progress(total, quiet):
    from tqdm import tqdm
    return tqdm(total=total, desc='training', unit='step', mininterval=1.0, disable=quiet)

def _plt():
    import matplotlib
    if 'matplotlib.pyplot' not in sys.modules: matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt

def _plot_loss(losses, evals, acc, path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.plot(losses, lw=0.7, label='training loss (label-smoothed)')
    ax.set_yscale('log'); ax.set_xlabel('step'); ax.set_ylabel('cross-entropy')
    if evals:
        ax2 = ax.twinx(); s, a = zip(*evals)
        ax2.plot(s, a, 'o-', color='C1', label='held-out exact match'); ax2.set_ylim(0, 1.02); ax2.set_ylabel('exact match')
    ax.set_title(f'Dates -> ISO, nn.Transformer: {acc:.1%} held-out exact match')
    fig.tight_layout(); fig.savefig(path, dpi=100); plt.close(fig)

def plot_attention(source, output, weights, axes=None):
    "Draw the per-head cross-attention: output characters (rows) against source characters (columns)."
    plt = _plt()
    h = weights.shape[0]
    if axes is None: fig, axes = plt.subplots(1, h, figsize=(3.2 * h, 3.4))
    rows = ['<bos>'] + list(output)           # row i: the decoder input that predicts output character i
    for i, ax in enumerate(axes):
        ax.imshow(weights[i, :len(rows), :len(source)], cmap='viridis', vmin=0)
        ax.set_xticks(range(len(source))); ax.set_xticklabels(list(source), fontsize=7)
        ax.set_yticks(range(len(rows))); ax.set_yticklabels([f'{r} -> {n}' for r, n in zip(rows, list(output) + ['<eos>'])], fontsize=7)
        ax.set_title(f'head {i}', fontsize=9)
    return axes

def _plot_attention(source, output, weights, path):
    plt = _plt()
    fig, axes = plt.subplots(1, weights.shape[0], figsize=(3.2 * weights.shape[0], 3.4))
    plot_attention(source, output, weights, axes)
    fig.suptitle(f'last decoder layer, cross-attention: {source!r} -> {output!r}', fontsize=10)
    fig.tight_layout(); fig.savefig(path, dpi=100); plt.close(fig)

if __name__ == '__main__' and '__file__' in globals():
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--torch', action='store_true', help='run on PyTorch instead of lit_torch')
    p.add_argument('--epochs', type=int, default=4)
    p.add_argument('--batch-size', type=int, default=64)
    p.add_argument('--d-model', type=int, default=64)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--num-workers', type=int, default=2)
    p.add_argument('--quiet', action='store_true')
    a = p.parse_args()
    print(f'library: {torch.__name__} {getattr(torch, "__version__", "")}')
    main(epochs=a.epochs, batch_size=a.batch_size, d_model=a.d_model, seed=a.seed, num_workers=a.num_workers, quiet=a.quiet)
