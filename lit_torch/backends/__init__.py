# torch.backends' front door: it only imports (written by hand). Each backend's switches live in its own package, as in
# PyTorch (nbs/16a_cudnn.ipynb to 16g_backends_cpu.ipynb).
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp
