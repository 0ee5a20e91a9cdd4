# torch.utils' front door: it only imports (written by hand, like lit_torch/__init__.py). torch.utils.checkpoint is
# reachable after `import torch.utils`, as in PyTorch (nbs/16s_checkpoint.ipynb). torch.utils.data loads on first use,
# through a module __getattr__ (PEP 562, nbs/00_import.ipynb): its DataLoader machinery is not needed until a program uses it
from . import hooks, checkpoint
from .._C import _utils_getattr as __getattr__, _utils_dir as __dir__
