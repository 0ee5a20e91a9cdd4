"""lit_torch.distributed with CUDA tensors: the NCCL backend (`_NCCLGroup`, `_CudaRequest`) and MPI staging through the host.

On a real GPU these need CuPy with NCCL and one GPU per rank. Without one, the emulation (tests/fake_cupy) runs them:
its `cupy.cuda.nccl` works on the raw device pointers lit_torch passes, copies in a world of one and goes through
mpi4py between ranks, and checks that every buffer lives on the communicator's device. Each job runs in fresh
processes under `mpiexec` (MPI is never initialised inside pytest)."""
import os, shutil, sys, textwrap
from pathlib import Path
import pytest
import lit_torch as lt
from mpi_jobs import run_job

MPIEXEC = Path(sys.executable).parent / 'mpiexec'
if not MPIEXEC.exists() and shutil.which('mpiexec'): MPIEXEC = Path(shutil.which('mpiexec'))
try: import mpi4py  # noqa: F401
except ImportError: mpi4py = None
pytestmark = [pytest.mark.skipif(mpi4py is None or not MPIEXEC.exists(), reason='needs mpi4py and mpiexec'),
              pytest.mark.skipif(not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing')]

def nccl_available():
    try: from cupy.cuda import nccl  # noqa: F401
    except Exception: return False
    return True

needs_nccl = pytest.mark.skipif(not lt.cuda.is_available() or not nccl_available(), reason='needs CuPy with NCCL')

PRELUDE = """
import sys, os, numpy as np
import lit_torch as torch
from lit_torch import nn
from lit_torch.distributed import distributed_c10d as dist
OUT = sys.argv[1]
def on(device, *ts):
    for t in ts:
        assert t.device == torch.device(device), (t.device, device)
        assert type(t._data).__module__.split('.')[0] == 'cupy' and t._data.device.id == t.device.index, (type(t._data), t.device)
close = lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
"""

def mpirun(tmp_path, n, body, timeout=120):
    script = tmp_path / 'job.py'
    script.write_text(PRELUDE + textwrap.dedent(body) + "\nopen(os.path.join(OUT, f'ok{r}'), 'w').close()\n")
    p = run_job([str(MPIEXEC), '-n', str(n), sys.executable, str(script), str(tmp_path)], timeout,
                {**os.environ, 'PYTHONUNBUFFERED': '1'})
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    for r in range(n): assert (tmp_path / f'ok{r}').exists(), out
    return out

COLLECTIVES = """
r, n = dist.get_rank(), dist.get_world_size()
dev = DEVICE.format(rank=r)
torch.cuda.set_device(torch.device(dev).index)
data = [np.random.default_rng(10 + k).standard_normal((3, 4)).astype(np.float32) for k in range(n)]
S = np.stack(data)
t = lambda a: torch.tensor(a, device=dev)
for op, ref in [(dist.ReduceOp.SUM, S.sum(0)), (dist.ReduceOp.AVG, S.mean(0)), (dist.ReduceOp.MAX, S.max(0)),
                (dist.ReduceOp.MIN, S.min(0))]:
    x = t(data[r]); dist.all_reduce(x, op); on(dev, x); close(x.cpu().numpy(), ref)
x = t(data[r]); w = dist.all_reduce(x, async_op=True); assert w.wait(); on(dev, x); close(x.cpu().numpy(), S.sum(0))
import cupy
if getattr(cupy, '_emulated', False):   # how the data travels: MPI stages through the host, NCCL never leaves the GPU
    from cupy import _emulation
    x = t(data[r])
    with _emulation.count_syncs() as log: dist.all_reduce(x)
    hops = log.count('get', 'asnumpy'), log.count('h2d')
    assert hops == ((1, 1) if dist.get_backend() == 'mpi' else (0, 0)), (dist.get_backend(), log)
x = t(data[r]); dist.broadcast(x, src=0); on(dev, x); close(x.cpu().numpy(), data[0])
x = t(data[r]); dist.reduce(x, dst=0); on(dev, x)
if r == 0: close(x.cpu().numpy(), S.sum(0))
out = [t(np.zeros((3, 4), np.float32)) for _ in range(n)]
dist.all_gather(out, t(data[r])); on(dev, *out); [close(o.cpu().numpy(), d) for o, d in zip(out, data)]
big = t(np.zeros((3 * n, 4), np.float32)); dist.all_gather_into_tensor(big, t(data[r])); on(dev, big)
close(big.cpu().numpy(), np.concatenate(data))
y = t(np.zeros((3, 4), np.float32)); dist.reduce_scatter_tensor(y, t(np.concatenate([data[r]] * n)) * 1); on(dev, y)
close(y.cpu().numpy(), S.sum(0))
g = [t(np.zeros((3, 4), np.float32)) for _ in range(n)] if r == 0 else None
dist.gather(t(data[r]), g, dst=0)
if r == 0: on(dev, *g); [close(o.cpu().numpy(), d) for o, d in zip(g, data)]
y = t(np.zeros((3, 4), np.float32)); dist.scatter(y, [t(d) for d in data] if r == 0 else None, src=0); on(dev, y)
close(y.cpu().numpy(), data[r])
dist.barrier()
i = torch.tensor([r + 1, 10 * (r + 1)], device=dev); dist.all_reduce(i); on(dev, i)
assert i.tolist() == [n * (n + 1) // 2, 10 * n * (n + 1) // 2]
c = torch.tensor(data[r]); dist.all_reduce(c); close(c.numpy(), S.sum(0))      # a CPU tensor in the same group: MPI
if n > 1:
    if r == 0: dist.send(t(data[0]) * 2, dst=1)
    if r == 1:
        z = t(np.zeros((3, 4), np.float32)); dist.recv(z, src=0); on(dev, z); close(z.cpu().numpy(), data[0] * 2)
# DDP: gradients all-reduced across the ranks, on the device
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(dev)
ddp = nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
xs = [np.random.default_rng(50 + k).standard_normal((5, 4)).astype(np.float32) for k in range(n)]
ddp(t(xs[r])).pow(2).sum().backward()
ref = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
ref.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
sum(ref(torch.tensor(x)).pow(2).sum() for x in xs).backward()
for p, q in zip(model.parameters(), ref.parameters()):
    on(dev, p, p.grad); np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy() / n, rtol=1e-4, atol=1e-5)
opt.step(); on(dev, *model.parameters())
# SyncBatchNorm on the device: n ranks with a slice each = BatchNorm on the whole batch
from lit_torch.nn import SyncBatchNorm
xb = np.random.default_rng(7).standard_normal((4 * n, 3, 2, 2)).astype(np.float32)
sbn, bn = SyncBatchNorm(3).to(dev), nn.BatchNorm2d(3)
xs_ = t(xb[4 * r:4 * r + 4]).requires_grad_(); xf = torch.tensor(xb, requires_grad=True)
ys, yf = sbn(xs_), bn(xf)
on(dev, ys, sbn.running_mean, sbn.running_var); close(ys.cpu().detach().numpy(), yf.detach().numpy()[4 * r:4 * r + 4])
wb = np.random.default_rng(8).standard_normal(xb.shape).astype(np.float32)   # (y*y).sum()'s gradient through BN is ~0: rounding noise
(ys * t(wb[4 * r:4 * r + 4])).sum().backward(); (yf * torch.tensor(wb)).sum().backward()
close(xs_.grad.cpu().numpy(), xf.grad.numpy()[4 * r:4 * r + 4]); close(sbn.running_var.cpu().numpy(), bn.running_var.numpy())
dist.destroy_process_group()
"""

@needs_nccl
def test_nccl_world_of_one(tmp_path):
    mpirun(tmp_path, 1, "DEVICE = 'cuda:0'\ndist.init_process_group('nccl')\nassert dist.get_backend() == 'nccl'\n" + COLLECTIVES)

@needs_nccl
@pytest.mark.skipif(lt.cuda.device_count() < 2, reason='needs 2 GPUs')
def test_nccl_world_of_one_on_cuda1(tmp_path):
    "The communicator belongs to cuda:1 (made current with torch.cuda.set_device), its buffers too."
    mpirun(tmp_path, 1, "DEVICE = 'cuda:1'\ntorch.cuda.set_device(1)\ndist.init_process_group('nccl')\n" + COLLECTIVES)

@needs_nccl
@pytest.mark.skipif(lt.cuda.device_count() < 2, reason='needs 2 GPUs')
def test_nccl_two_ranks_one_gpu_each(tmp_path):
    "Rank r drives cuda:r, as in a real job. With the emulation, the fake NCCL moves the bytes through MPI."
    mpirun(tmp_path, 2, "DEVICE = 'cuda:{rank}'\nfrom mpi4py import MPI\ntorch.cuda.set_device(MPI.COMM_WORLD.Get_rank())\n"
                        "dist.init_process_group('nccl')\n" + COLLECTIVES)

def test_mpi_stages_cuda_tensors_through_the_host(tmp_path):
    "backend='mpi' with CUDA tensors: each collective copies to the host, runs on MPI, and writes back on the device."
    mpirun(tmp_path, 2, "DEVICE = 'cuda:0'\ndist.init_process_group('mpi')\n" + COLLECTIVES)

@pytest.mark.skipif(lt.cuda.device_count() < 2, reason='needs 2 GPUs')
def test_mpi_stages_cuda1_tensors_through_the_host(tmp_path):
    "The same with rank 1's tensors on cuda:1 and cuda:0 current: the write-back must land on cuda:1."
    mpirun(tmp_path, 2, "DEVICE = 'cuda:{rank}'\ndist.init_process_group('mpi')\n" + COLLECTIVES.replace(
        "torch.cuda.set_device(torch.device(dev).index)", "torch.cuda.set_device(0)"))

def test_mpi_world_of_one_needs_no_launcher_with_cuda_tensors(tmp_path):
    mpirun(tmp_path, 1, "DEVICE = 'cuda:0'\ndist.init_process_group('mpi')\n" + COLLECTIVES)
