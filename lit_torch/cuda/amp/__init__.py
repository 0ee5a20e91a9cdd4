# torch.cuda.amp's front door: it only imports (written by hand). PyTorch's deprecated CUDA spellings of torch.amp
# (nbs/16l_cuda_autocast_mode.ipynb, 16m_cuda_grad_scaler.ipynb).
from .autocast_mode import autocast, custom_bwd, custom_fwd
from .grad_scaler import GradScaler
