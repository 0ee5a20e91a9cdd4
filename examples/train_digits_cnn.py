"""The main job for now: a small CNN on scikit-learn's 8x8 handwritten digits, in plain PyTorch code run by lit_torch.

`make demo` runs it. It prints the loss per epoch and the test accuracy, and saves the loss curve to
`digits_loss.png` when matplotlib is installed. No download: the digits ship with scikit-learn.
"""
import sys, time
import numpy as np
import lit_torch as torch
from lit_torch import nn

def digits(seed=0, test_fraction=0.2):
    "Train and test tensors: images (N, 1, 8, 8) scaled to [0, 1], and labels."
    from sklearn.datasets import load_digits
    d = load_digits()
    X = torch.tensor(d.images[:, None].astype(np.float32) / 16)
    y = torch.tensor(d.target)
    perm = torch.randperm(len(X), generator=torch.Generator().manual_seed(seed))
    n_test = int(len(X) * test_fraction)
    return X[perm[n_test:]], y[perm[n_test:]], X[perm[:n_test]], y[perm[:n_test]]

def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16 x 4 x 4
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 2 x 2
        nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(), nn.Linear(64, 10))

def main(epochs=15, batch_size=64, lr=5e-3, plot='digits_loss.png'):
    torch.manual_seed(0)
    X, y, X_test, y_test = digits()
    model, loss_fn = cnn(), nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses, start = [], time.perf_counter()
    for epoch in range(epochs):
        model.train()
        for idx in torch.randperm(len(X)).split(batch_size):
            loss = loss_fn(model(X[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad(): acc = (model(X_test).argmax(1) == y_test).float().mean().item()
        print(f'epoch {epoch}  loss {np.mean(losses[-len(X) // batch_size:]):.4f}  test accuracy {acc:.3f}')
    print(f'{sum(p.numel() for p in model.parameters())} parameters, {time.perf_counter() - start:.1f} s')
    if plot: _plot(losses, plot)
    return acc, losses

def _plot(losses, path):
    try: import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt
    except ImportError: return
    plt.figure(figsize=(6, 3)); plt.plot(losses, lw=0.8); plt.yscale('log')
    plt.xlabel('step'); plt.ylabel('cross-entropy'); plt.title('CNN on sklearn digits, lit_torch'); plt.tight_layout()
    plt.savefig(path, dpi=100); print(f'loss curve: {path}')

if __name__ == '__main__': main()
