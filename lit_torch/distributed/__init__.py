# torch.distributed's front door: it only imports (written by hand). The code is nbs/12_distributed.ipynb;
# `python -m lit_torch.distributed.run` is the launcher (nbs/12a_run.ipynb). mpi4py is imported only when a
# process group is created.
from .distributed_c10d import (DistError, DistBackendError, default_pg_timeout, ReduceOp, Backend, Work, ProcessGroup, GroupMember, group, is_available, is_mpi_available,
                               is_nccl_available, is_initialized, init_process_group, destroy_process_group, get_rank,
                               get_world_size, get_backend, get_global_rank, get_process_group_ranks, new_group,
                               all_reduce, broadcast, reduce, all_gather, all_gather_into_tensor, gather, scatter,
                               reduce_scatter, reduce_scatter_tensor, send, isend, recv, irecv, barrier,
                               all_gather_object, broadcast_object_list)
