"Datasets of random data with the real datasets' shapes and dtypes."
import os
import numpy as np
import torch
from torch.utils.data import Dataset

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'FakeData']


def _size(default):
    return int(os.environ.get('FAKE_TORCHVISION_SIZE', default))


class _Images(Dataset):
    "N random uint8 images of shape `shape` (H, W) or (H, W, C) with labels in [0, classes), fixed by `seed`."
    def __init__(self, n, shape, classes, seed, transform=None, target_transform=None):
        rng = np.random.default_rng(seed)
        self._images = rng.integers(0, 256, size=(n, *shape), dtype=np.uint8)
        self._labels = rng.integers(0, classes, size=n).astype(np.int64)
        self.transform, self.target_transform = transform, target_transform
        self.classes = [str(i) for i in range(classes)]

    def __len__(self): return len(self._labels)

    def __getitem__(self, index):
        img, target = self._images[index], int(self._labels[index])  # an HxW(xC) uint8 array stands in for the PIL image
        if self.transform is not None: img = self.transform(img)
        if self.target_transform is not None: target = self.target_transform(target)
        return img, target


class MNIST(_Images):
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(_size(640 if train else 320), (28, 28), 10, 1 if train else 2, transform, target_transform)
        self.root, self.train = root, train

    @property
    def data(self): return torch.from_numpy(self._images.copy())

    @property
    def targets(self): return torch.from_numpy(self._labels.copy())


class FashionMNIST(MNIST): pass


class CIFAR10(_Images):
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(_size(640 if train else 320), (32, 32, 3), 10, 3 if train else 4, transform, target_transform)
        self.root, self.train = root, train
        self.data, self.targets = self._images, self._labels.tolist()


class FakeData(_Images):
    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None, target_transform=None, random_offset=0):
        c, h, w = image_size
        super().__init__(_size(size), (h, w, c), num_classes, 5 + random_offset, transform, target_transform)
