# torch.nn.parallel's front door: it only imports (written by hand). As in torch, `nn.parallel.data_parallel` is then
# the function, not the module.
from .parallel_apply import parallel_apply
from .replicate import replicate
from .data_parallel import DataParallel, data_parallel
from .scatter_gather import gather, scatter
from .distributed import DistributedDataParallel
