# torch.nn.parallel's front door: it only imports (written by hand).
from .distributed import DistributedDataParallel
# DataParallel (nbs/14_data_parallel.ipynb). scatter_gather.py, replicate.py and parallel_apply.py re-export its pieces
# under torch's module names; importing the names from them, as torch does, leaves the package attributes bound to the
# functions. As in torch, `nn.parallel.data_parallel` is then the function, not the module.
from .scatter_gather import scatter, gather
from .replicate import replicate
from .parallel_apply import parallel_apply
from .data_parallel import DataParallel, data_parallel
