"""All-reduce bandwidth on 2 local ranks: lit_torch's DDP (bucketed, async, inside backward) and dist.all_reduce,
against a raw mpi4py Allreduce of the same bytes. Goal: DDP >= 0.8 of raw.

    python benchmarks/bench_allreduce.py          # launches itself with mpiexec -n 2
"""
import os, subprocess, sys, time
from pathlib import Path
import numpy as np

SIZES_MB = [4, 16, 64]
REPS = 40

def _interleaved(fns, comm, reps=REPS):
    "Median seconds of each of `fns`, run in turn every repetition so that machine noise hits them alike."
    ts = [[] for _ in fns]
    for r in range(reps + 2):
        for f, t in zip(fns, ts):
            comm.Barrier()
            t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
    return [float(np.median(t[2:])) for t in ts]

def worker():
    from mpi4py import MPI
    import lit_torch as torch
    from lit_torch import nn
    from lit_torch.distributed import distributed_c10d as dist
    from lit_torch.nn.parallel.distributed import DistributedDataParallel
    dist.init_process_group('mpi')
    comm, rows = MPI.COMM_WORLD, []
    for mb in SIZES_MB:
        n = mb * 1024 * 1024 // 4
        buf = np.random.rand(n).astype(np.float32)
        t = torch.from_numpy(buf.copy())
        # DDP: parameters of 1 MiB each, PyTorch's bucket caps; the loss's backward is a cheap broadcast of ones
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.ps = nn.ParameterList([nn.Parameter(torch.randn(256 * 1024)) for _ in range(mb)])
            def forward(self): return sum(p.sum() for p in self.ps)
        m = M(); ddp = DistributedDataParallel(m)
        def step_sync(): ddp().backward()
        def step_local():
            with ddp.no_sync(): ddp().backward()
        for p in m.parameters(): p.grad = None
        raw, api, local, synced = _interleaved([lambda: comm.Allreduce(MPI.IN_PLACE, buf, MPI.SUM),
                                                lambda: dist.all_reduce(t), step_local, step_sync], comm)
        rows.append((mb, raw, api, max(synced - local, 1e-9), synced))
    if comm.rank == 0:
        print("| MiB | raw mpi4py Allreduce GB/s | dist.all_reduce GB/s | DDP backward all-reduce GB/s | DDP / raw |")
        print("|---:|---:|---:|---:|---:|")
        for mb, raw, api, ddp_t, synced in rows:
            gb = mb * 1024 * 1024 / 1e9
            print(f"| {mb} | {gb / raw:.2f} | {gb / api:.2f} | {gb / ddp_t:.2f} | {raw / ddp_t:.2f} |")
        print("\nDDP time = backward with gradient sync minus the same backward under no_sync() (median of "
              f"{REPS}); it includes the division by the world size "
              "(gradients accumulate directly into the bucket views, so no copy in steady state).")
    dist.destroy_process_group()

if __name__ == '__main__':
    if os.environ.get('PMI_RANK') is not None or os.environ.get('OMPI_COMM_WORLD_RANK') is not None: worker()
    else:
        mpiexec = Path(sys.executable).parent / 'mpiexec'
        env = {**os.environ, 'OMP_NUM_THREADS': '1'}
        sys.exit(subprocess.call([str(mpiexec), '-n', '2', sys.executable, __file__], env=env))
