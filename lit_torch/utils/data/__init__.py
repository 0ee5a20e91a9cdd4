# torch.utils.data's front door: it only imports (written by hand); the code is nbs/11_data.ipynb to 11i_dataloader.
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset, Subset,
                      random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                      BatchSampler)
from .distributed import DistributedSampler
from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info, WorkerInfo
from .dataloader import DataLoader
from . import _utils
