"""A stand-in for torchvision, for running pytorch/examples without it (tests only, never lit_torch's runtime).

It offers only what those programs touch: MNIST, CIFAR10 and FakeData with random data of the real shapes,
the tensor transforms, `utils.save_image` and `models.resnet18`. It imports `torch`, so it serves real
PyTorch and lit_torch (under the launcher) alike, and it draws its data from NumPy with fixed seeds, so
both see the same images and labels. `FAKE_TORCHVISION_SIZE` sets how many samples each dataset has."""
from . import datasets, transforms, utils, models

__version__ = '0.0+fake'
