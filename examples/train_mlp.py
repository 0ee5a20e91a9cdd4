"""The main job for now: train a small MLP on a synthetic 3-class spiral with lit_torch, written as PyTorch code.

Plain tensors and hand-written SGD: `nn.Module` and `optim` arrive in a later chapter.
Run with `make demo`, or `python examples/train_mlp.py`.
"""
import math, time
import numpy as np
import lit_torch as torch

def spirals(n_per_class=300, classes=3, noise=0.2, seed=0):
    "Points on `classes` interleaved spiral arms, with their arm as the label."
    rng = np.random.default_rng(seed)
    r = np.tile(np.linspace(0.05, 1, n_per_class), classes)
    label = np.repeat(np.arange(classes), n_per_class)
    theta = label * 2 * math.pi / classes + r * 4 + rng.normal(0, noise, r.size)
    X = np.stack([r * np.sin(theta), r * np.cos(theta)], 1).astype(np.float32)
    return torch.tensor(X), torch.tensor(label)

def init(fan_in, fan_out):
    "A weight with He initialisation, and a zero bias, both requiring grad."
    w = (torch.randn(fan_in, fan_out) * math.sqrt(2 / fan_in)).requires_grad_()
    return w, torch.zeros(fan_out, requires_grad=True)

def main(steps=300, lr=0.5, hidden=64):
    torch.manual_seed(0)
    X, y = spirals()
    n_train = 720
    perm = torch.randperm(len(X))
    train, test = perm[:n_train], perm[n_train:]
    params = [*init(2, hidden), *init(hidden, hidden), *init(hidden, 3)]
    w1, b1, w2, b2, w3, b3 = params

    def forward(x): return ((x @ w1 + b1).relu() @ w2 + b2).relu() @ w3 + b3
    def accuracy(idx):
        with torch.no_grad(): return (forward(X[idx]).argmax(1) == y[idx]).float().mean().item()

    start = time.perf_counter()
    for step in range(steps + 1):
        logits = forward(X[train])
        loss = -logits.log_softmax(1).gather(1, y[train].unsqueeze(1)).mean()
        for p in params: p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params: p.sub_(lr * p.grad)
        if step % 50 == 0: print(f'step {step:3d}  loss {loss.item():.4f}  train accuracy {accuracy(train):.3f}')
    print(f'test accuracy {accuracy(test):.3f} after {steps} steps in {time.perf_counter() - start:.1f} s')
    return accuracy(test)

if __name__ == '__main__': main()
