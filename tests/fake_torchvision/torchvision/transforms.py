"The tensor transforms pytorch/examples use, on HxW(xC) uint8 arrays instead of PIL images."
import numpy as np
import torch

__all__ = ['Compose', 'ToTensor', 'Normalize', 'Lambda']


class Compose:
    def __init__(self, transforms): self.transforms = transforms
    def __call__(self, x):
        for t in self.transforms: x = t(x)
        return x


class ToTensor:
    "HxW or HxWxC uint8 -> float32 CxHxW in [0, 1]."
    def __call__(self, pic):
        a = np.asarray(pic)
        if a.ndim == 2: a = a[:, :, None]
        return torch.from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1)).astype(np.float32) / 255)


class Normalize:
    def __init__(self, mean, std, inplace=False): self.mean, self.std = mean, std
    def __call__(self, t):
        mean = torch.tensor(self.mean, dtype=t.dtype).view(-1, 1, 1)
        std = torch.tensor(self.std, dtype=t.dtype).view(-1, 1, 1)
        return (t - mean) / std


class Lambda:
    def __init__(self, lambd): self.lambd = lambd
    def __call__(self, x): return self.lambd(x)
