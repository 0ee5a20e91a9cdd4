"""The same ops on every device: the CPU, a virtual CPU device, and CUDA through CuPy where a GPU is present.

Each case runs on the device and is compared, forward and backward, with torch on the CPU, so device
handling (outputs stay on their inputs' device, gradients come back there) is checked everywhere.
"""
import pytest
import numpy as np
import lit_torch as lt
from op_helpers import check_op

DEVICES = ['cpu', 'cpu:1', pytest.param('cuda', marks=pytest.mark.skipif(not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing')),
           pytest.param('cuda:1', marks=pytest.mark.skipif(lt.cuda.device_count() < 2, reason='needs 2 GPUs: cuda:1 is not the current device, so it catches a missing device context'))]

CASES = {
    'add_broadcast': (lambda m, a, b: a + b, [(3, 4), (4,)]),
    'mul_scalar': (lambda m, a: 2.5 * a * a, [(3, 4)]),
    'sub_div': (lambda m, a, b: (a - b) / (b * b + 1), [(3, 4), (3, 4)]),
    'pow': (lambda m, a: a ** 3, [(5,)]),
    'exp_log': (lambda m, a: (a.exp() + 1).log(), [(3, 4)]),
    'tanh_sigmoid_relu': (lambda m, a: a.tanh() + a.sigmoid() + a.relu(), [(3, 4)]),
    'clamp_where': (lambda m, a, b: m.where(a > 0, a.clamp(-0.5, 0.5), b), [(3, 4), (3, 4)]),
    'sum_mean_var': (lambda m, a: a.sum(0) + a.mean(1, keepdim=True).sum() + a.var(0), [(3, 4)]),
    'max_dim': (lambda m, a: a.max(1).values, [(3, 4)]),
    'logsumexp': (lambda m, a: a.logsumexp(1), [(3, 4)]),
    'softmax': (lambda m, a: a.softmax(-1) * a.log_softmax(-1), [(2, 5)]),
    'matmul': (lambda m, a, b: a @ b, [(2, 3, 4), (4, 5)]),
    'einsum': (lambda m, a, b: m.einsum('bqd,bkd->bqk', a, b), [(2, 3, 4), (2, 5, 4)]),
    'reshape_permute': (lambda m, a: a.reshape(4, 3).permute(1, 0).unsqueeze(0), [(3, 4)]),
    'indexing': (lambda m, a: a[1:, [0, 2, 2]] * a[0, None, :3], [(3, 4)]),
    'cat_stack_split': (lambda m, a, b: m.cat([a, b], 1).split(3, 1)[1] + m.stack([a, b]).sum(0)[:, :3], [(3, 4), (3, 4)]),
    'gather': (lambda m, a: a.gather(1, m.tensor([[0, 1], [2, 3], [1, 1]], device=a.device)), [(3, 4)]),
    'tril_transpose': (lambda m, a: a.tril().transpose(0, 1), [(4, 4)]),
    'cumsum_prod': (lambda m, a: a.cumsum(0) * a.prod(0), [(3, 4)]),
    'to_double_and_back': (lambda m, a: a.double().exp().float(), [(3,)]),
}

@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('name', CASES)
def test_op_on_device(name, device):
    fn, shapes = CASES[name]
    check_op(fn, shapes, device=device)

@pytest.mark.parametrize('device', DEVICES)
def test_mixing_devices_raises_naming_both(device):
    other = 'cpu:2' if device != 'cpu:2' else 'cpu'
    a, b = lt.ones(2, device=device), lt.ones(2, device=other)
    with pytest.raises(RuntimeError, match=other):
        a + b

def test_move_between_virtual_cpu_devices_copies():
    "cpu:0 -> cpu:1 is a copy, as cuda:0 -> cuda:1 is: changing one side never shows on the other."
    x = lt.randn(4)
    y = x.to('cpu:1')
    y.add_(1)
    assert y.device == lt.device('cpu:1') and not np.allclose(x.numpy(), y.numpy())
    assert x.to('cpu') is x or np.shares_memory(x.numpy(), x.to('cpu').numpy())  # same device: no copy
