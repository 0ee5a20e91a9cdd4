# torch.utils' front door: it only imports (written by hand, like lit_torch/__init__.py).
from . import hooks, data
