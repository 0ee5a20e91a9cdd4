# torch.utils.data._utils' front door: it only imports (written by hand).
from . import collate, fetch, pin_memory, signal_handling, worker
