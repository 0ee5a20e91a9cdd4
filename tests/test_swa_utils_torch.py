"""torch.optim.swa_utils beside lit_torch's: AveragedModel with every averaging rule (default, avg_fn, multi_avg_fn, EMA
and SWA, with and without use_buffers) on a model with BatchNorm (float and long buffers), fed the same seeded weights;
update_bn over the same batches; SWALR's learning-rate trajectories and state_dicts, and torch's state loaded into
lit_torch's objects going on alike."""
import math
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import torch.optim.swa_utils as tswa
import lit_torch as lt
import lit_torch.optim.swa_utils as lswa

pytestmark = pytest.mark.filterwarnings('ignore')

def _net(lib, dtype):
    m = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3), lib.nn.ReLU(), lib.nn.Linear(3, 2))
    return m.double() if dtype == 'float64' else m

def _load(lib, m, sd):
    "Set `m`'s parameters and buffers from a dict of NumPy arrays (in place, so the module's tensors stay)."
    with lib.no_grad():
        for k, v in m.state_dict().items(): v.copy_(lib.tensor(sd[k]))

def _random_state(rng, m_t, dtype, k):
    "Seeded random values for every entry of the model's state dict (long buffers included)."
    out = {}
    for name, v in m_t.state_dict().items():
        if v.dtype == torch.long: out[name] = np.array(k + int(rng.integers(0, 5)))
        else: out[name] = rng.standard_normal(tuple(v.shape)).astype(dtype) + (1.5 if 'running_var' in name else 0)
    return out

def _np(t): return t.detach().cpu().numpy()

def _same_state(sd_l, sd_t, dtype, what):
    assert list(sd_l) == list(sd_t), f'{what}: keys {list(sd_l)} != torch {list(sd_t)}'
    for k in sd_t:
        assert str(sd_l[k].dtype) == str(sd_t[k].dtype), f'{what}[{k}]: dtype {sd_l[k].dtype} != {sd_t[k].dtype}'
        assert tuple(sd_l[k].shape) == tuple(sd_t[k].shape), f'{what}[{k}] shape'
        tol = dict(rtol=1e-13, atol=1e-14) if dtype == 'float64' else dict(rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(_np(sd_l[k]), _np(sd_t[k]), err_msg=f'{what}[{k}]', **tol)

RULES = {  # name -> (kwargs builder on a library's swa_utils, use_buffers)
    'default': (lambda s: {}, False),
    'default-use_buffers': (lambda s: {}, True),
    'ema_avg_fn': (lambda s: {'avg_fn': s.get_ema_avg_fn(0.8)}, False),
    'ema_avg_fn-use_buffers': (lambda s: {'avg_fn': s.get_ema_avg_fn(0.8)}, True),
    'swa_avg_fn': (lambda s: {'avg_fn': s.get_swa_avg_fn()}, False),
    'ema_multi_avg_fn': (lambda s: {'multi_avg_fn': s.get_ema_multi_avg_fn(0.9)}, False),
    'ema_multi_avg_fn-use_buffers': (lambda s: {'multi_avg_fn': s.get_ema_multi_avg_fn(0.7)}, True),
    'swa_multi_avg_fn': (lambda s: {'multi_avg_fn': s.get_swa_multi_avg_fn()}, False),
    'swa_multi_avg_fn-use_buffers': (lambda s: {'multi_avg_fn': s.get_swa_multi_avg_fn()}, True),
    'custom_avg_fn': (lambda s: {'avg_fn': lambda a, c, n: 0.5 * a + 0.5 * c + 0.01 * n}, False),
}

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('rule', list(RULES))
def test_averaged_model_like_torch(rule, dtype):
    make, use_buffers = RULES[rule]
    rng = np.random.default_rng(7)
    m_t, m_l = _net(torch, dtype), _net(lt, dtype)
    first = _random_state(rng, m_t, dtype, 0)
    _load(torch, m_t, first); _load(lt, m_l, first)
    a_t = tswa.AveragedModel(m_t, use_buffers=use_buffers, **make(tswa))
    a_l = lswa.AveragedModel(m_l, use_buffers=use_buffers, **make(lswa))
    _same_state(a_l.state_dict(), a_t.state_dict(), dtype, 'fresh')
    for k in range(5):
        sd = _random_state(rng, m_t, dtype, k + 1)
        _load(torch, m_t, sd); _load(lt, m_l, sd)
        try: a_t.update_parameters(m_t)
        except RuntimeError as e:  # torch's in-place SWA rule refuses the long buffer (num_batches_tracked): so must we
            assert 'Integer division with addcdiv' in str(e)
            with pytest.raises(RuntimeError, match='Integer division with addcdiv'): a_l.update_parameters(m_l)
            return
        a_l.update_parameters(m_l)
        _same_state(a_l.state_dict(), a_t.state_dict(), dtype, f'after update {k}')
    x = rng.standard_normal((6, 4)).astype(dtype)
    a_t.eval(); a_l.eval()
    np.testing.assert_allclose(_np(a_l(lt.tensor(x))), _np(a_t(torch.tensor(x))), rtol=1e-5 if dtype == 'float32' else 1e-12)
    # torch's averaged state into a fresh lit_torch AveragedModel, then both average two more models
    b_l = lswa.AveragedModel(_net(lt, dtype), use_buffers=use_buffers, **make(lswa))
    b_l.load_state_dict({k: lt.tensor(_np(v).copy()) for k, v in a_t.state_dict().items()})
    for k in range(2):
        sd = _random_state(rng, m_t, dtype, 10 + k)
        _load(torch, m_t, sd); _load(lt, m_l, sd)
        a_t.update_parameters(m_t); b_l.update_parameters(m_l)
    _same_state(b_l.state_dict(), a_t.state_dict(), dtype, 'after load and two updates')

def test_averaged_model_refuses_two_rules():
    m = lt.nn.Linear(2, 2)
    with pytest.raises(AssertionError, match='Only one of avg_fn and multi_avg_fn'):
        lswa.AveragedModel(m, avg_fn=lswa.get_swa_avg_fn(), multi_avg_fn=lswa.get_swa_multi_avg_fn())
    for f in (lswa.get_ema_avg_fn, lswa.get_ema_multi_avg_fn):
        with pytest.raises(ValueError, match=r'Invalid decay value -0.1'): f(-0.1)

@pytest.mark.parametrize('tuples', [False, True])
def test_update_bn_like_torch(tuples):
    rng = np.random.default_rng(3)
    nets = []
    for lib in (torch, lt):
        m = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.BatchNorm1d(5, momentum=0.3), lib.nn.Tanh(), lib.nn.Linear(5, 3),
                              lib.nn.BatchNorm1d(3)).eval()
        nets.append(m)
    init = _random_state(np.random.default_rng(4), nets[0], 'float32', 0)
    _load(torch, nets[0], init); _load(lt, nets[1], init)
    batches = [rng.standard_normal((int(n), 4)).astype(np.float32) for n in (5, 8, 3)]
    wrap = (lambda lib, x: (lib.tensor(x), lib.tensor(np.zeros(len(x))))) if tuples else (lambda lib, x: lib.tensor(x))
    tswa.update_bn([wrap(torch, x) for x in batches], nets[0])
    lswa.update_bn([wrap(lt, x) for x in batches], nets[1])
    _same_state(nets[1].state_dict(), nets[0].state_dict(), 'float32', 'after update_bn')
    assert (nets[1].training, nets[1][1].momentum, nets[1][4].momentum) == (False, 0.3, 0.1)

def test_update_bn_without_batchnorm_does_nothing():
    m = lt.nn.Linear(2, 2).eval()
    lswa.update_bn(None, m)  # never touches the loader
    assert not m.training

SWALR_CASES = {
    'cos': dict(swa_lr=0.05, anneal_epochs=6),
    'linear-per-group': dict(swa_lr=[0.05, 0.3], anneal_epochs=4, anneal_strategy='linear'),
    'anneal_epochs=0': dict(swa_lr=0.02, anneal_epochs=0),
    'anneal_epochs=1': dict(swa_lr=0.02, anneal_epochs=1, anneal_strategy='linear'),
}

def _opt(lib):
    rng = np.random.default_rng(0)
    p, q = lib.tensor(rng.standard_normal(3), requires_grad=True), lib.tensor(rng.standard_normal(2), requires_grad=True)
    return lib.optim.SGD([{'params': [p]}, {'params': [q], 'lr': 0.5}], lr=0.1, momentum=0.9)

@pytest.mark.parametrize('name', list(SWALR_CASES))
def test_swalr_like_torch(name):
    kw = SWALR_CASES[name]
    o_t, o_l = _opt(torch), _opt(lt)
    # a cosine schedule first, then SWALR takes over from wherever it left the rates
    c_t, c_l = torch.optim.lr_scheduler.CosineAnnealingLR(o_t, T_max=20), lt.optim.lr_scheduler.CosineAnnealingLR(o_l, T_max=20)
    for _ in range(5): o_t.step(); o_l.step(); c_t.step(); c_l.step()
    s_t, s_l = tswa.SWALR(o_t, **kw), lswa.SWALR(o_l, **kw)
    traj_t, traj_l = [], []
    for _ in range(12):
        traj_t.append([g['lr'] for g in o_t.param_groups]); traj_l.append([g['lr'] for g in o_l.param_groups])
        o_t.step(); o_l.step(); s_t.step(); s_l.step()
    np.testing.assert_allclose(traj_l, traj_t, rtol=1e-12, atol=1e-15)
    assert [g['swa_lr'] for g in o_l.param_groups] == [g['swa_lr'] for g in o_t.param_groups]
    sd_t, sd_l = s_t.state_dict(), s_l.state_dict()
    skip = {'_get_lr_called_within_step', '_is_initial'}  # class-level flags torch may or may not copy into __dict__
    assert [k for k in sd_l if k not in skip] == [k for k in sd_t if k not in skip]
    for k in sd_t:
        if k not in skip: assert (sd_l[k] == sd_t[k]) if isinstance(sd_t[k], str) else sd_l[k] == pytest.approx(sd_t[k], rel=1e-12), k
    # torch's state into a fresh lit_torch SWALR (on a fresh optimizer at the same rates) goes on alike
    o_l2 = _opt(lt)
    s_l2 = lswa.SWALR(o_l2, **kw)
    for gl, gt in zip(o_l2.param_groups, o_t.param_groups): gl['lr'] = gt['lr']
    s_l2.load_state_dict(s_t.state_dict())
    assert s_l2.anneal_func is s_l2._cosine_anneal if s_l2._anneal_strategy == 'cos' else s_l2._linear_anneal
    for _ in range(4):
        o_t.step(); o_l2.step(); s_t.step(); s_l2.step()
        np.testing.assert_allclose([g['lr'] for g in o_l2.param_groups], [g['lr'] for g in o_t.param_groups], rtol=1e-12)

def test_swalr_errors():
    o = _opt(lt)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        lswa.SWALR(o, 0.1, anneal_strategy='exp')
    with pytest.raises(ValueError, match='anneal_epochs must be equal or greater than 0, got -1'):
        lswa.SWALR(o, 0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match='swa_lr must have the same length as optimizer.param_groups'):
        lswa.SWALR(o, [0.1, 0.2, 0.3])
