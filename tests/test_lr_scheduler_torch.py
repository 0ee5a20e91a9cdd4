"""Every lr_scheduler lit_torch has, beside torch's: the same optimizer (two groups), the same schedule arguments, the
learning-rate trajectory over 25 epochs (and the momentum or Adam's beta1 where the schedule cycles it), and the
scheduler's state_dict (keys and values) after them; then torch's state_dict loaded into a fresh lit_torch scheduler
continues the same way."""
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

def _opt(lib, kind='sgd'):
    rng = np.random.default_rng(0)
    p, q = lib.tensor(rng.standard_normal(3), requires_grad=True), lib.tensor(rng.standard_normal(2), requires_grad=True)
    if kind == 'adam': return lib.optim.Adam([{'params': [p]}, {'params': [q], 'lr': 0.5}], lr=0.1, betas=(0.9, 0.99))
    return lib.optim.SGD([{'params': [p]}, {'params': [q], 'lr': 0.5}], lr=0.1, momentum=0.9)

class Shrink:  # a callable-object scale_fn for CyclicLR: its __dict__ goes into the state_dict
    def __init__(self): self.r = 0.7
    def __call__(self, x): return self.r ** (x - 1)

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
    'CosineAnnealingWarmRestarts': lambda L, o: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.02),
    'CosineAnnealingWarmRestarts-mult1': lambda L, o: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4),
    'CosineAnnealingWarmRestarts-epochs': lambda L, o: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=3),
    'CyclicLR': lambda L, o: L.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.3], step_size_up=4),
    'CyclicLR-triangular2': lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5,
                                                                       mode='triangular2', base_momentum=[0.7, 0.8]),
    'CyclicLR-exp_range-adam': lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.02, 0.2, step_size_up=5, mode='exp_range',
                                                                          gamma=0.97, max_momentum=0.95),
    'CyclicLR-scale_fn-object': lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=Shrink(),
                                                                           cycle_momentum=False),
    'CyclicLR-scale_fn-iterations': lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                                               scale_fn=lambda x: 1 / (1 + 0.1 * x),
                                                                               scale_mode='iterations'),
    'OneCycleLR': lambda L, o: L.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=40),
    'OneCycleLR-linear-three_phase-adam': lambda L, o: L.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.3, epochs=5, steps_per_epoch=8, pct_start=0.25, anneal_strategy='linear', three_phase=True,
        div_factor=10.0, final_div_factor=100.0, base_momentum=0.8, max_momentum=[0.9, 0.95]),
    'OneCycleLR-no-momentum': lambda L, o: L.optim.lr_scheduler.OneCycleLR(o, max_lr=0.4, total_steps=33, pct_start=0.5,
                                                                           cycle_momentum=False),
}
OPT_KIND = {name: 'adam' for name in CASES if name.endswith('-adam')}
# cases stepped with an explicit (fractional) epoch: step k -> epoch
EPOCH_OF = {'CosineAnnealingWarmRestarts-epochs': lambda k: 0.37 * k + 0.1}
METRIC = [math.sin(k * 0.7) + 0.02 * k for k in range(100)]  # goes up and down: plateaus come and go

def _step(sched, k, opt, name=''):
    opt.step()
    if 'Plateau' in type(sched).__name__: sched.step(METRIC[k])
    elif name in EPOCH_OF: sched.step(EPOCH_OF[name](k))
    else: sched.step()

def _momenta(opt):
    "Each group's momentum and beta1 (None where it has none)."
    return [[g.get('momentum'), g['betas'][0] if 'betas' in g else None] for g in opt.param_groups]

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
    kind = OPT_KIND.get(name, 'sgd')
    ot, ol = _opt(torch, kind), _opt(lt, kind)
    st, sl = CASES[name](torch, ot), CASES[name](lt, ol)
    traj_t, traj_l, mom_t, mom_l = [], [], [], []
    for k in range(EPOCHS):
        traj_t.append([g['lr'] for g in ot.param_groups]); traj_l.append([g['lr'] for g in ol.param_groups])
        mom_t.append(_momenta(ot)); mom_l.append(_momenta(ol))
        _step(st, k, ot, name); _step(sl, k, ol, name)
    np.testing.assert_allclose(traj_l, traj_t, rtol=1e-12, atol=1e-15)
    assert np.ptp(np.array(traj_t)[:, 0]) > 0, 'the schedule must move'
    _close(mom_l, mom_t, 'momentum trajectory')
    _close(_plain([{k: v for k, v in g.items() if k != 'params'} for g in ol.param_groups]),
           _plain([{k: v for k, v in g.items() if k != 'params'} for g in ot.param_groups]), 'param_groups')
    _close(sl.get_last_lr(), st.get_last_lr(), 'get_last_lr')
    _close(_sd(sl), _sd(st), 'state_dict')
    # torch's state, loaded into a fresh lit_torch scheduler on a fresh optimizer with the same rates, goes on alike
    ol2 = _opt(lt, kind)
    sl2 = CASES[name](lt, ol2)
    for gl, gt in zip(ol2.param_groups, ot.param_groups): gl['lr'] = gt['lr']
    sd = st.state_dict()
    sl2.load_state_dict(sd)
    for k in range(EPOCHS, EPOCHS + 8):
        _step(st, k, ot, name); _step(sl2, k, ol2, name)
        np.testing.assert_allclose([g['lr'] for g in ol2.param_groups], [g['lr'] for g in ot.param_groups], rtol=1e-12)
        _close(_momenta(ol2), _momenta(ot), f'momentum after load, step {k}')
