# torch.amp's front door: it only imports (written by hand). autocast and its lists (nbs/16j_autocast_mode.ipynb),
# GradScaler (nbs/16k_grad_scaler.ipynb).
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler
