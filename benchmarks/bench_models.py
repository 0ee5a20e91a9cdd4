"""Whole-model training steps, lit_torch vs torch (CPU), side by side in one run, with the GEMM floor (issue 17).

1. A GPT-style decoder stack (minGPT's blocks: LayerNorm, causal self-attention written out with masked_fill and
   softmax, GELU MLP, dropout 0.1): 4 layers, 4 heads, d 128, block 64, batch 8, vocabulary 65, AdamW. Goal <= 1.2x.
2. pytorch/examples' word_language_model Transformer (`--model Transformer` defaults: emsize 200, 2 heads, nhid 200,
   2 layers, dropout 0.2, bptt 35, batch 20, WikiText-2's 33,278 tokens): NLLLoss on log_softmax, clip_grad_norm_
   0.25, the example's manual SGD update `p.data.add_(p.grad, alpha=-lr)`. Goal <= 1.2x.
   Both are also timed at 1 thread (the issue's figures for published GPT code and for this model are single-threaded).
3. ResNet-18 (torchvision's layout, written here with nn layers: BasicBlock, [2, 2, 2, 2]), batch 4x3x64x64,
   1000 classes, SGD momentum + weight decay, at 2 threads (goal <= 1.3x) and at 1 thread.

Every model is the same code for both libraries (`m` is torch or lit_torch). Each row: medians of ROUNDS interleaved
rounds (torch, lit_torch, torch, ...), each round the best of a few steps. The floor is the step's matmul and
convolution FLOPs (3x the forward's: forward, input and weight gradients), counted with forward hooks on the torch
model, at NumPy's measured float32 GEMM rate with the same thread count.
Run: python benchmarks/bench_models.py [--rounds N] [names: gpt wlm resnet]
"""
import math, sys, time
from pathlib import Path
import numpy as np
import torch
import lit_torch as lt
sys.path.insert(0, str(Path(__file__).parent))
from bench_core import gemm_rate, set_threads

ROUNDS = 5

def best_of(f, n=3):
    best = float('inf')
    for _ in range(n):
        t = time.perf_counter(); f(); best = min(best, time.perf_counter() - t)
    return best

def interleaved(make, rounds=None, n=2):
    "Median over interleaved rounds of each library's best-of-`n` step time (torch's idle threads get a pause)."
    steps = {m: make(m) for m in (torch, lt)}
    for f in steps.values(): f(); f()
    res = {torch: [], lt: []}
    for _ in range(rounds or ROUNDS):
        for m, f in steps.items():
            time.sleep(0.15)
            res[m].append(best_of(f, n))
    return float(np.median(res[torch])), float(np.median(res[lt]))

def step_flops(model, *inputs, extra=0):
    "3x the forward FLOPs of the torch model's Linear and Conv layers (hooks), plus `extra` forward FLOPs."
    total = [extra]
    def hook(mod, args, out):
        if isinstance(mod, torch.nn.Linear): total[0] += 2 * out.numel() * mod.in_features
        else: total[0] += 2 * out.numel() * mod.in_channels // mod.groups * math.prod(mod.kernel_size)
    hs = [mod.register_forward_hook(hook) for mod in model.modules() if isinstance(mod, (torch.nn.Linear, torch.nn.Conv2d))]
    with torch.no_grad(): model(*inputs)
    for h in hs: h.remove()
    return 3 * total[0]

# --- 1. GPT-style decoder stack (minGPT's model.py, the attention written out) ---
GPT = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, batch=8, vocab=65)

def gpt_model(m):
    nn, F, c = m.nn, m.nn.functional, GPT
    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn, self.c_proj = nn.Linear(c['n_embd'], 3 * c['n_embd']), nn.Linear(c['n_embd'], c['n_embd'])
            self.attn_dropout, self.resid_dropout = nn.Dropout(0.1), nn.Dropout(0.1)
            T = c['block_size']
            self.register_buffer('bias', m.tril(m.ones(T, T)).view(1, 1, T, T))
        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            k = k.view(B, T, c['n_head'], C // c['n_head']).transpose(1, 2)
            q = q.view(B, T, c['n_head'], C // c['n_head']).transpose(1, 2)
            v = v.view(B, T, c['n_head'], C // c['n_head']).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.resid_dropout(self.c_proj(y))
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(c['n_embd']), CausalSelfAttention(), nn.LayerNorm(c['n_embd'])
            self.mlp = nn.Sequential(nn.Linear(c['n_embd'], 4 * c['n_embd']), nn.GELU(), nn.Linear(4 * c['n_embd'], c['n_embd']), nn.Dropout(0.1))
        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))
    class GPTModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(c['vocab'], c['n_embd']), nn.Embedding(c['block_size'], c['n_embd'])
            self.drop, self.h = nn.Dropout(0.1), nn.ModuleList([Block() for _ in range(c['n_layer'])])
            self.ln_f, self.lm_head = nn.LayerNorm(c['n_embd']), nn.Linear(c['n_embd'], c['vocab'], bias=False)
        def forward(self, idx):
            pos = m.arange(0, idx.size(1), dtype=m.long).unsqueeze(0)
            x = self.drop(self.wte(idx) + self.wpe(pos))
            for block in self.h: x = block(x)
            return self.lm_head(self.ln_f(x))
    return GPTModel()

def gpt_inputs(m):
    g = np.random.default_rng(0).integers(0, GPT['vocab'], (2, GPT['batch'], GPT['block_size']))
    return m.from_numpy(g[0]), m.from_numpy(g[1])

def gpt_step(m):
    m.manual_seed(0)
    model = gpt_model(m)
    opt = m.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    x, y = gpt_inputs(m)
    def step():
        logits = model(x)
        loss = m.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    return step

def gpt_flops():
    torch.manual_seed(0)
    c = GPT
    attn = c['n_layer'] * 2 * 2 * c['batch'] * c['block_size'] ** 2 * c['n_embd']  # q·kᵀ and att·v
    return step_flops(gpt_model(torch), gpt_inputs(torch)[0], extra=attn)

# --- 2. pytorch/examples word_language_model, --model Transformer ---
WLM = dict(ntokens=33278, emsize=200, nhead=2, nhid=200, nlayers=2, dropout=0.2, bptt=35, batch=20, lr=20.0, clip=0.25)

def wlm_model(m):
    nn, F, c = m.nn, m.nn.functional, WLM
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.1, max_len=5000):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            pe = m.zeros(max_len, d_model)
            position = m.arange(0, max_len, dtype=m.float).unsqueeze(1)
            div_term = m.exp(m.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
            pe[:, 0::2] = m.sin(position * div_term)
            pe[:, 1::2] = m.cos(position * div_term)
            self.register_buffer('pe', pe.unsqueeze(0).transpose(0, 1))
        def forward(self, x): return self.dropout(x + self.pe[:x.size(0), :])
    class TransformerModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.pos_encoder = PositionalEncoding(c['emsize'], c['dropout'])
            layer = nn.TransformerEncoderLayer(c['emsize'], c['nhead'], c['nhid'], c['dropout'])
            self.encoder = nn.TransformerEncoder(layer, c['nlayers'], enable_nested_tensor=False)
            self.input_emb, self.decoder = nn.Embedding(c['ntokens'], c['emsize']), nn.Linear(c['emsize'], c['ntokens'])
            T = c['bptt']
            self.src_mask = m.log(m.tril(m.ones(T, T)))
        def forward(self, src):
            src = self.pos_encoder(self.input_emb(src) * math.sqrt(c['emsize']))
            return F.log_softmax(self.decoder(self.encoder(src, mask=self.src_mask)), dim=-1)
    return TransformerModel()

def wlm_inputs(m):
    g = np.random.default_rng(0).integers(0, WLM['ntokens'], (2, WLM['bptt'], WLM['batch']))
    return m.from_numpy(g[0]), m.from_numpy(g[1]).view(-1)

def wlm_step(m):
    m.manual_seed(0)
    model, c = wlm_model(m), WLM
    criterion = m.nn.NLLLoss()
    data, targets = wlm_inputs(m)
    model.train()
    def step():
        model.zero_grad()
        output = model(data).view(-1, c['ntokens'])
        loss = criterion(output, targets)
        loss.backward()
        m.nn.utils.clip_grad_norm_(model.parameters(), c['clip'])
        for p in model.parameters(): p.data.add_(p.grad, alpha=-c['lr'])
    return step

def wlm_flops():
    torch.manual_seed(0)
    c = WLM
    attn = c['nlayers'] * 2 * 2 * c['batch'] * c['bptt'] ** 2 * c['emsize']
    return step_flops(wlm_model(torch), wlm_inputs(torch)[0], extra=attn)

# --- 3. ResNet-18 ---
def resnet18(m, num_classes=1000):
    nn = m.nn
    class BasicBlock(nn.Module):
        def __init__(self, i, o, stride):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o)
            self.conv2, self.bn2 = nn.Conv2d(o, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = (nn.Sequential(nn.Conv2d(i, o, 1, stride, bias=False), nn.BatchNorm2d(o))
                               if stride != 1 or i != o else None)
        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + (x if self.downsample is None else self.downsample(x)))
    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64)
            self.relu, self.maxpool = nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)
            chans, layers = [64, 64, 128, 256, 512], []
            for k in range(4):
                layers.append(nn.Sequential(BasicBlock(chans[k], chans[k + 1], 1 if k == 0 else 2), BasicBlock(chans[k + 1], chans[k + 1], 1)))
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.avgpool, self.fc = nn.AdaptiveAvgPool2d((1, 1)), nn.Linear(512, num_classes)
        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(m.flatten(self.avgpool(x), 1))
    return ResNet()

def resnet_inputs(m, batch=4):
    g = np.random.default_rng(0)
    return m.from_numpy(g.standard_normal((batch, 3, 64, 64), dtype=np.float32)), m.from_numpy(g.integers(0, 1000, batch))

def resnet_step(m):
    m.manual_seed(0)
    model = resnet18(m)
    opt = m.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    x, y = resnet_inputs(m)
    loss_fn = m.nn.CrossEntropyLoss()
    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    return step

def resnet_flops():
    torch.manual_seed(0)
    return step_flops(resnet18(torch), resnet_inputs(torch)[0])

WORKLOADS = {
    'gpt': [('GPT-style decoder stack step: 4 layers, 4 heads, d 128, block 64, batch 8 (AdamW)', gpt_step, gpt_flops, None, '≤ 1.2x'),
            ('GPT-style decoder stack step, 1 thread', gpt_step, gpt_flops, 1, '≤ 1.2x')],
    'wlm': [('word_language_model Transformer step (pytorch/examples: emsize 200, 2 heads, 2 layers, bptt 35, batch 20, 33,278 tokens)',
             wlm_step, wlm_flops, None, '≤ 1.2x'),
            ('word_language_model Transformer step, 1 thread', wlm_step, wlm_flops, 1, '≤ 1.2x')],
    'resnet': [('ResNet-18 train step, 4×3×64×64 (SGD momentum), 2 threads', resnet_step, resnet_flops, 2, '≤ 1.3x'),
               ('ResNet-18 train step, 4×3×64×64 (SGD momentum), 1 thread', resnet_step, resnet_flops, 1, 'report')],
}

def main():
    global ROUNDS
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--rounds', type=int, default=ROUNDS)
    p.add_argument('names', nargs='*', help=' '.join(WORKLOADS))
    a = p.parse_args()
    ROUNDS = a.rounds
    default = torch.get_num_threads()
    print(f'threads: torch {default} unless the row says; medians of {ROUNDS} interleaved rounds\n')
    print('| benchmark | torch | lit_torch | ratio | GEMM floor | lit_torch / floor | goal |\n|---|---|---|---|---|---|---|')
    for name in a.names or WORKLOADS:
        for title, make, flops, threads, goal in WORKLOADS[name]:
            set_threads(threads or default)
            t, l = interleaved(make)
            floor = flops() / gemm_rate()
            print(f'| {title} | {t * 1e3:.1f} ms | {l * 1e3:.1f} ms | {l / t:.2f}x | {floor * 1e3:.1f} ms | {l / floor:.2f}x | {goal} |', flush=True)
    set_threads(default)
    print('\nGEMM floor: 3x the forward Linear/Conv (and attention) FLOPs at NumPy\'s measured float32 GEMM rate (512³, same threads).')

if __name__ == '__main__': main()
