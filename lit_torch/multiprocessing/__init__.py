# torch.multiprocessing's front door: Python's multiprocessing, plus how tensors cross processes (reductions.py).
# It only imports (written by hand).
from multiprocessing import *  # noqa: F403
from . import reductions
