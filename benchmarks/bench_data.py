"""DataLoader throughput, lit_torch vs torch, side by side in one run.

The dataset "decodes" a 3x72x72 uint8 image from a flat NumPy buffer and augments it (random 64x64 crop, random
horizontal flip, per-channel normalisation) in __getitem__, returning a float32 3x64x64 tensor and an int label.
Batches of 64; 0, 1 and 2 workers. Each measurement is a full epoch (worker start-up included), best of `REPS`,
printed as time per batch so that the ratio reads like every other benchmark's (lit_torch / torch, lower is better).
Run: python benchmarks/bench_data.py
"""
import gc, time
import numpy as np
import torch
import lit_torch
from lit_torch.utils.data.dataloader import DataLoader as LDataLoader
from torch.utils.data import DataLoader as TDataLoader

N, BATCH, REPS = 64 * 40, 64, 3
MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)

class Images:
    def __init__(self, lib):
        self.lib = lib
        self.buf = np.random.default_rng(0).integers(0, 256, N * 3 * 72 * 72, dtype=np.uint8).tobytes()
    def __len__(self): return N
    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = np.frombuffer(self.buf, np.uint8, 3 * 72 * 72, i * 3 * 72 * 72).reshape(3, 72, 72)  # "decode"
        y, x = rng.integers(0, 9, 2)
        img = img[:, y:y + 64, x:x + 64]
        if rng.random() < 0.5: img = img[:, :, ::-1]
        out = img.astype(np.float32) * (1 / 255)
        for _ in range(3):  # a light blur, separable 3-tap, as a stand-in for real augmentation work
            out = np.pad(out, ((0, 0), (1, 1), (1, 1)), mode='edge')
            out = (out[:, :-2] + 2 * out[:, 1:-1] + out[:, 2:]) * 0.25
            out = (out[:, :, :-2] + 2 * out[:, :, 1:-1] + out[:, :, 2:]) * 0.25
        out = (out * rng.uniform(0.8, 1.2) - MEAN) / STD  # brightness jitter, normalise
        return self.lib.from_numpy(np.ascontiguousarray(out)), i % 10

def epoch(make, workers):
    dl = make(Images(lit_torch if make is LDataLoader else torch), batch_size=BATCH, num_workers=workers)
    t0 = time.perf_counter()
    n = 0
    for x, y in dl: n += 1
    dt = time.perf_counter() - t0
    del dl; gc.collect()
    return n / dt

if __name__ == '__main__':
    torch.set_num_threads(2)
    print(f"{N // BATCH} batches of {BATCH} x 3x64x64 per epoch, best of {REPS} epochs (interleaved); time per batch, "
          "worker start-up included (goal: lit_torch <= torch at every worker count)\n")
    print('| benchmark | torch | lit_torch | ratio |\n|---|---|---|---|')
    for w in (0, 1, 2):
        tb = lb = 0
        for _ in range(REPS):
            tb = max(tb, epoch(TDataLoader, w)); time.sleep(0.15)
            lb = max(lb, epoch(LDataLoader, w)); time.sleep(0.15)
        print(f"| DataLoader epoch, decode + crop + flip + blur dataset, batch {BATCH}, {w} worker{'s' if w != 1 else ''} | {1e3 / tb:.2f} ms/batch | "
              f"{1e3 / lb:.2f} ms/batch | {tb / lb:.2f}x |", flush=True)
