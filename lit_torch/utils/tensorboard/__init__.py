# torch.utils.tensorboard's front door: it only imports (written by hand). As in PyTorch, it imports tensorboard first, so
# without the package `import torch.utils.tensorboard` raises ModuleNotFoundError: No module named 'tensorboard'.
import tensorboard
from .writer import SummaryWriter
