# torch.utils.data's front door: it only imports (written by hand); the code is nbs/11_data.ipynb.
from .dataloader import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset, Subset,
                         random_split, Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                         WeightedRandomSampler, BatchSampler, DistributedSampler, DataLoader, default_collate,
                         default_convert, get_worker_info, WorkerInfo)
from . import distributed
