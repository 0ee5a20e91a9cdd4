# torch.nn.utils's front door: it only imports (written by hand, like lit_torch/nn/__init__.py).
from . import rnn
