# torch.utils' front door: it only imports (written by hand, like lit_torch/__init__.py). torch.utils.checkpoint is
# reachable after `import torch`, as in PyTorch (nbs/16s_checkpoint.ipynb).
from . import hooks, data, checkpoint
