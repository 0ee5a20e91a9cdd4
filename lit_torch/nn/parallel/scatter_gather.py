# torch/nn/parallel/scatter_gather.py's names, as torch/ lays them out. It only imports (written by hand): the code is
# exported from nbs/14_data_parallel.ipynb into data_parallel.py, since nbdev writes one module per notebook.
from .data_parallel import scatter, scatter_kwargs, gather, Scatter, Gather
