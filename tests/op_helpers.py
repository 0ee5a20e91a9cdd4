"""Shared helpers for op tests: one lambda runs on both libraries; forward and backward are compared.

`check_op(fn, shapes)` builds seeded random inputs (never zeros), runs `fn(torch, *inputs)` and
`fn(lit_torch, *inputs)`, compares the outputs, then backpropagates a random weighted sum of the
outputs through both and compares the input gradients. `check_gradcheck` runs lit_torch's float64
gradcheck, and `check_same_error` asserts both libraries raise the same exception type.
"""
import numpy as np
import torch
import lit_torch as lt

def make_inputs(shapes, seed=0, dtype=np.float32, low=None, high=None, requires_grad=True):
    "Random arrays for `shapes` (uniform in [low, high) if given, else standard normal, nudged away from 0)."
    rng = np.random.default_rng(seed)
    arrays = []
    for s in shapes:
        a = rng.uniform(low, high, s) if low is not None else rng.standard_normal(s)
        arrays.append(np.where(np.abs(a) < 1e-3, 1e-3, a).astype(dtype))
    return arrays

def _canonical(device):
    "The device a tensor made on `device` reports: `cpu:0` is `cpu`, a bare `cuda` is the current GPU (as in torch)."
    d = lt.device(device)
    if d.type == 'cpu' and d.index == 0: return lt.device('cpu')
    if d.type == 'cuda' and d.index is None: return lt.device('cuda', lt.cuda.current_device())
    return d

def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]

def check_op(fn, shapes=None, arrays=None, atol=1e-5, rtol=1e-5, grad_atol=1e-4, grad_rtol=1e-4, requires_grad=None, device=None, **kw):
    "Compare `fn(lib, *inputs)` forward and input gradients between torch (CPU) and lit_torch (on `device`)."
    arrays = arrays if arrays is not None else make_inputs(shapes, **kw)
    rg = requires_grad if requires_grad is not None else [a.dtype.kind == 'f' for a in arrays]
    rg = rg if isinstance(rg, (list, tuple)) else [rg] * len(arrays)
    t_in = [torch.tensor(a, requires_grad=r) for a, r in zip(arrays, rg)]
    l_in = [lt.tensor(a, requires_grad=r, device=device) for a, r in zip(arrays, rg)]
    t_out, l_out = _outputs(fn(torch, *t_in)), _outputs(fn(lt, *l_in))
    assert len(t_out) == len(l_out)
    for t, l in zip(t_out, l_out):
        assert repr(l.dtype) == repr(t.dtype), (l.dtype, t.dtype)
        assert tuple(l.shape) == tuple(t.shape), (l.shape, t.shape)
        if device is not None: assert l.device == _canonical(device), (l.device, device)
        np.testing.assert_allclose(l.detach().cpu().numpy(), t.detach().numpy(), atol=atol, rtol=rtol)
    diff = [(t, l) for t, l in zip(t_out, l_out) if t.requires_grad]
    if not any(rg) or not diff: return
    assert all(l.requires_grad for _, l in diff)
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal(tuple(t.shape)).astype(np.float32) for t, _ in diff]
    sum(((t * torch.tensor(w, dtype=t.dtype)).sum() for (t, _), w in zip(diff, weights))).backward()
    total = None
    for (_, l), w in zip(diff, weights):
        term = (l * lt.tensor(w, dtype=l.dtype, device=l.device)).sum()
        total = term if total is None else total + term
    total.backward()
    for t, l in zip(t_in, l_in):
        if not t.requires_grad: continue
        if t.grad is None: assert l.grad is None or not np.any(l.grad.cpu().numpy()); continue
        assert l.grad is not None, 'lit_torch gave no gradient where torch did'
        np.testing.assert_allclose(l.grad.cpu().numpy(), t.grad.numpy(), atol=grad_atol, rtol=grad_rtol)

def check_gradcheck(fn, shapes=None, arrays=None, gradgrad=False, **kw):
    "lit_torch's gradcheck (and optionally gradgradcheck) of `fn(lit_torch, *inputs)` in float64."
    arrays = arrays if arrays is not None else make_inputs(shapes, dtype=np.float64, **kw)
    inputs = [lt.tensor(a.astype(np.float64) if a.dtype.kind == 'f' else a, requires_grad=a.dtype.kind == 'f') for a in arrays]
    f = lambda *xs: fn(lt, *xs)
    assert lt.autograd.gradcheck(f, inputs)
    if gradgrad: assert lt.autograd.gradgradcheck(f, inputs)

def check_same_error(fn):
    "Both libraries raise, and the same exception type; returns lit_torch's exception."
    try: fn(torch)
    except Exception as e: want = e
    else: raise AssertionError('torch did not raise')
    try: fn(lt)
    except Exception as e: got = e
    else: raise AssertionError(f'lit_torch did not raise; torch raised {type(want).__name__}: {want}')
    assert type(got) is type(want), (got, want)
    return got
