# torch.optim's front door: it only imports (written by hand, like lit_torch/__init__.py).
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from . import lr_scheduler
