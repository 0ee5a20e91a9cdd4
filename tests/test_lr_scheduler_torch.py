"""Every lr_scheduler lit_torch has, beside torch's: the same optimizer (two groups), the same schedule arguments, the
learning-rate trajectory over 25 epochs, and the scheduler's state_dict (keys and values) after them; then torch's
state_dict loaded into a fresh lit_torch scheduler continues the same way."""
import math
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import lit_torch as lt

pytestmark = pytest.mark.filterwarnings('ignore')
EPOCHS = 25

class Halve:  # a callable object: its __dict__ goes into LambdaLR's/MultiplicativeLR's state_dict
    def __init__(self): self.k = 0.9
    def __call__(self, epoch): return self.k ** epoch

def _opt(lib):
    p, q = lib.tensor(np.ones(3), requires_grad=True), lib.tensor(np.ones(2), requires_grad=True)
    return lib.optim.SGD([{'params': [p]}, {'params': [q], 'lr': 0.5}], lr=0.1, momentum=0.9)

# name -> function(lib, opt) building the scheduler
CASES = {
    'StepLR': lambda L, o: L.optim.lr_scheduler.StepLR(o, step_size=4, gamma=0.5),
    'MultiStepLR': lambda L, o: L.optim.lr_scheduler.MultiStepLR(o, milestones=[3, 7, 7, 12], gamma=0.3),
    'ExponentialLR': lambda L, o: L.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    'ConstantLR': lambda L, o: L.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=6),
    'LinearLR': lambda L, o: L.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=8),
    'PolynomialLR': lambda L, o: L.optim.lr_scheduler.PolynomialLR(o, total_iters=15, power=1.7),
    'CosineAnnealingLR': lambda L, o: L.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7, eta_min=0.01),
    'LambdaLR': lambda L, o: L.optim.lr_scheduler.LambdaLR(o, [Halve(), lambda e: 1 / (e + 1)]),
    'MultiplicativeLR': lambda L, o: L.optim.lr_scheduler.MultiplicativeLR(o, [Halve(), lambda e: 0.95]),
    'SequentialLR': lambda L, o: L.optim.lr_scheduler.SequentialLR(
        o, [L.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=4),
            L.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)], milestones=[5]),
    'ChainedScheduler': lambda L, o: L.optim.lr_scheduler.ChainedScheduler(
        [L.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3), L.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)]),
    'ReduceLROnPlateau': lambda L, o: L.optim.lr_scheduler.ReduceLROnPlateau(o, patience=2, factor=0.5, cooldown=1, min_lr=[0.0, 0.1]),
    'ReduceLROnPlateau-max-abs': lambda L, o: L.optim.lr_scheduler.ReduceLROnPlateau(o, mode='max', threshold_mode='abs',
                                                                                    threshold=0.1, patience=1),
}
METRIC = [math.sin(k * 0.7) + 0.02 * k for k in range(100)]  # goes up and down: plateaus come and go

def _step(sched, k, opt):
    opt.step()
    if 'Plateau' in type(sched).__name__: sched.step(METRIC[k])
    else: sched.step()

def _plain(x):
    "A state_dict value in comparable form: tensors as numbers, callables' dicts as they are."
    if isinstance(x, dict): return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)): return [_plain(v) for v in x]
    if hasattr(x, 'item') and hasattr(x, 'shape'): return float(x.item())
    if isinstance(x, __import__('collections').Counter): return dict(x)
    return x

def _close(a, b, what):
    if isinstance(b, dict):
        assert isinstance(a, dict) and set(a) == set(b), f'{what}: keys {sorted(a)} != torch {sorted(b)}'
        for k in b: _close(a[k], b[k], f'{what}[{k!r}]')
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), f'{what}: {a!r} != torch {b!r}'
        for i, (x, y) in enumerate(zip(a, b)): _close(x, y, f'{what}[{i}]')
    elif isinstance(b, float): assert a == pytest.approx(b, rel=1e-12, abs=1e-15), f'{what}: {a!r} != torch {b!r}'
    else: assert a == b, f'{what}: {a!r} != torch {b!r}'

# attributes torch keeps that lit_torch keeps on the class (flags set only while stepping)
IGNORED = {'_get_lr_called_within_step', '_is_initial'}

def _sd(s): return {k: v for k, v in _plain(s.state_dict()).items() if k not in IGNORED}

@pytest.mark.parametrize('name', list(CASES))
def test_scheduler_like_torch(name):
    ot, ol = _opt(torch), _opt(lt)
    st, sl = CASES[name](torch, ot), CASES[name](lt, ol)
    traj_t, traj_l = [], []
    for k in range(EPOCHS):
        traj_t.append([g['lr'] for g in ot.param_groups]); traj_l.append([g['lr'] for g in ol.param_groups])
        _step(st, k, ot); _step(sl, k, ol)
    np.testing.assert_allclose(traj_l, traj_t, rtol=1e-12, atol=1e-15)
    _close(sl.get_last_lr(), st.get_last_lr(), 'get_last_lr')
    _close(_sd(sl), _sd(st), 'state_dict')
    # torch's state, loaded into a fresh lit_torch scheduler on a fresh optimizer with the same rates, goes on alike
    ol2 = _opt(lt)
    sl2 = CASES[name](lt, ol2)
    for gl, gt in zip(ol2.param_groups, ot.param_groups): gl['lr'] = gt['lr']
    sd = st.state_dict()
    sl2.load_state_dict(sd)
    for k in range(EPOCHS, EPOCHS + 8):
        _step(st, k, ot); _step(sl2, k, ol2)
        np.testing.assert_allclose([g['lr'] for g in ol2.param_groups], [g['lr'] for g in ot.param_groups], rtol=1e-12)
