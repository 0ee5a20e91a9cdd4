"""SyncBatchNorm on N MPI ranks, each holding a slice of the batch (unequal ones too), equals BatchNorm on the whole
batch in one process; and plain BatchNorm on N ranks differs (the ChainerMN test pattern, a test that can fail)."""
import os, subprocess, sys, textwrap
from pathlib import Path
import numpy as np
import pytest
import lit_torch as torch
from lit_torch import nn
from lit_torch.nn import SyncBatchNorm

MPIEXEC = Path(sys.executable).parent / 'mpiexec'
try: import mpi4py  # noqa: F401
except ImportError: mpi4py = None
needs_mpi = pytest.mark.skipif(mpi4py is None or not MPIEXEC.exists(), reason="needs mpi4py and mpiexec (pip install mpi4py mpich)")

SHAPE, SIZES = (11, 3, 4, 4), {2: [4, 7], 3: [2, 4, 5]}

def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE) * [[[[2.]], [[0.5]], [[1.]]]] + [[[[1.]], [[-3.]], [[0.]]]]
    return x, rng.standard_normal(SHAPE), rng.standard_normal(3), rng.standard_normal(3)

RANK = """
import sys, numpy as np
import lit_torch as torch
from lit_torch import nn, distributed as dist
from lit_torch.nn import SyncBatchNorm
sys.path.insert(0, {tests!r})
from test_syncbn import data, SIZES
dist.init_process_group('mpi')
r, n = dist.get_rank(), dist.get_world_size()
X, W, gamma, beta = data()
lo = sum(SIZES[n][:r]); hi = lo + SIZES[n][r]
bn = (SyncBatchNorm(3) if sys.argv[2] == 'sync' else nn.BatchNorm2d(3)).double()
with torch.no_grad(): bn.weight.copy_(torch.tensor(gamma)); bn.bias.copy_(torch.tensor(beta))
for step in range(2):
    x = torch.tensor(X[lo:hi] * (step + 1), requires_grad=True)
    bn.weight.grad = bn.bias.grad = None
    y = bn(x)
    (y * torch.tensor(W[lo:hi])).sum().backward()
gw, gb = bn.weight.grad.clone(), bn.bias.grad.clone()
dist.all_reduce(gw); dist.all_reduce(gb)
np.savez(f"{{sys.argv[1]}}/rank{{r}}.npz", y=y.detach().numpy(), gx=x.grad.numpy(), gw=gw.numpy(), gb=gb.numpy(),
         rm=bn.running_mean.numpy(), rv=bn.running_var.numpy(), nbt=bn.num_batches_tracked.numpy())
"""

def reference():
    "BatchNorm2d on the whole batch in one process, two steps, as the ranks do."
    X, W, gamma, beta = data()
    bn = nn.BatchNorm2d(3).double()
    with torch.no_grad(): bn.weight.copy_(torch.tensor(gamma)); bn.bias.copy_(torch.tensor(beta))
    for step in range(2):
        x = torch.tensor(X * (step + 1), requires_grad=True)
        bn.weight.grad = bn.bias.grad = None
        y = bn(x)
        (y * torch.tensor(W)).sum().backward()
    return dict(y=y.detach().numpy(), gx=x.grad.numpy(), gw=bn.weight.grad.numpy(), gb=bn.bias.grad.numpy(),
                rm=bn.running_mean.numpy(), rv=bn.running_var.numpy())

def run(tmp_path, n, mode):
    script = tmp_path / 'rank.py'
    script.write_text(textwrap.dedent(RANK.format(tests=str(Path(__file__).parent))))
    p = subprocess.run([str(MPIEXEC), '-n', str(n), sys.executable, str(script), str(tmp_path), mode],
                       capture_output=True, text=True, timeout=90, env={**os.environ, 'OMP_NUM_THREADS': '1'})
    assert p.returncode == 0, p.stdout + p.stderr
    ranks = [dict(np.load(tmp_path / f'rank{r}.npz')) for r in range(n)]
    return {k: np.concatenate([d[k] for d in ranks]) for k in ('y', 'gx')}, ranks

@needs_mpi
@pytest.mark.timeout(120)
@pytest.mark.parametrize('n', [2, 3])
def test_syncbn_on_n_ranks_equals_batchnorm_on_the_whole_batch(tmp_path, n):
    ref = reference()
    joined, ranks = run(tmp_path, n, 'sync')
    np.testing.assert_allclose(joined['y'], ref['y'], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(joined['gx'], ref['gx'], rtol=1e-9, atol=1e-10)
    for d in ranks:
        np.testing.assert_allclose(d['gw'], ref['gw'], rtol=1e-9); np.testing.assert_allclose(d['gb'], ref['gb'], rtol=1e-9)
        np.testing.assert_allclose(d['rm'], ref['rm'], rtol=1e-10); np.testing.assert_allclose(d['rv'], ref['rv'], rtol=1e-10)
        assert int(d['nbt']) == 2

@needs_mpi
@pytest.mark.timeout(120)
def test_plain_batchnorm_on_n_ranks_differs(tmp_path):
    ref = reference()
    joined, ranks = run(tmp_path, 2, 'plain')
    assert not np.allclose(joined['y'], ref['y'], atol=1e-3)
    assert not np.allclose(ranks[0]['rm'], ref['rm'], atol=1e-3)

def test_world_of_one_and_eval_behave_as_batchnorm():
    x = torch.randn(6, 4, 3, 3)
    bn, sbn = nn.BatchNorm2d(4), SyncBatchNorm(4)
    np.testing.assert_allclose(sbn(x).detach().numpy(), bn(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    bn.eval(); sbn.eval()
    np.testing.assert_allclose(sbn(x).detach().numpy(), bn(x).detach().numpy(), rtol=1e-6, atol=1e-6)

def test_bad_input_and_conversion_errors():
    with pytest.raises(ValueError, match='expected at least 2D input'): SyncBatchNorm(3)(torch.randn(3))
    from lit_torch.nn.parallel import DistributedDataParallel
    from lit_torch import distributed as dist
    if not dist.is_initialized(): dist.init_process_group('mpi' if mpi4py else None)
    ddp = DistributedDataParallel(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)))
    with pytest.raises(ValueError, match='before wrapping the model in DistributedDataParallel'):
        SyncBatchNorm.convert_sync_batchnorm(ddp)

def test_convert_keeps_parameters_buffers_and_mode():
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Sequential(nn.BatchNorm1d(2)))
    net[1](torch.randn(2, 2, 3, 3))  # running stats that are not the initial ones
    net.eval()
    w, rm = net[1].weight, net[1].running_mean
    sync = SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(sync[1], SyncBatchNorm) and isinstance(sync[2][0], SyncBatchNorm)
    assert sync[1].weight is w and sync[1].running_mean is rm and not sync[1].training
    assert list(sync.state_dict()) == list(net.state_dict())
