# torch.optim's front door: it only imports (written by hand, like lit_torch/__init__.py).
from .optimizer import Optimizer, SGD, Adam, AdamW
from . import optimizer, lr_scheduler
