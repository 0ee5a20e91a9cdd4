"Optimizers and learning-rate schedulers compared with torch.optim: parameters step by step, state dicts, errors."
import copy, itertools, warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch.optim import Optimizer, SGD, Adam, AdamW
from lit_torch.optim import lr_scheduler as lls

LIT = {'SGD': SGD, 'Adam': Adam, 'AdamW': AdamW}


# ---- a small problem both libraries solve with their own autograd

def problem(seed=0, dtype=np.float32):
    "Weights W (4x3), bias b (4), inputs X (8x3) and targets Y (8x4), seeded, away from zero."
    rng = np.random.default_rng(seed)
    arr = lambda *s: np.where(np.abs(a := rng.standard_normal(s)) < 1e-3, 1e-3, a).astype(dtype)
    return arr(4, 3), arr(4), arr(8, 3), arr(8, 4)

def loss_fn(W, b, X, Y): return ((X @ W.t() + b - Y) ** 2).mean()

def make_params(lib, arrays): return [lib.tensor(a, requires_grad=True) for a in arrays]

def groups_of(params, groups):
    "`params` as one list, or split into param-group dicts by `groups` = [(indices, overrides), ...]."
    if groups is None: return params
    return [dict(params=[params[i] for i in idx], **kw) for idx, kw in groups]

def tol(dtype): return dict(rtol=1e-12, atol=1e-14) if dtype == np.float64 else dict(rtol=1e-6, atol=1e-6)  # values are O(1); torch fuses a*x+y (FMA) where NumPy rounds twice

def assert_params(lp, tp, **kw):
    for l, t in zip(lp, tp): np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), **kw)

def run_autograd(name, kwargs, steps=8, dtype=np.float32, groups=None, seed=0):
    "Train both libraries' optimizer `name` on the same problem; compare parameters after every step."
    W, b, X, Y = problem(seed, dtype)
    tp, lp = make_params(torch, (W, b)), make_params(lt, (W, b))
    tX, tY, lX, lY = torch.tensor(X), torch.tensor(Y), lt.tensor(X), lt.tensor(Y)
    topt, lopt = getattr(torch.optim, name)(groups_of(tp, groups), **kwargs), LIT[name](groups_of(lp, groups), **kwargs)
    for _ in range(steps):
        for opt, ps, x, y in ((topt, tp, tX, tY), (lopt, lp, lX, lY)):
            opt.zero_grad()
            loss_fn(*ps, x, y).backward()
            opt.step()
        # the gradients themselves differ by float32 rounding between the libraries
        assert_params(lp, tp, **(tol(dtype) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)))
    return topt, lopt, tp, lp

def run_same_grads(name, kwargs, steps=10, dtype=np.float32, groups=None, seed=0):
    "Feed both optimizers identical random gradients (isolating the update rule); compare after every step."
    rng = np.random.default_rng(seed + 1)
    W, b, _, _ = problem(seed, dtype)
    tp, lp = make_params(torch, (W, b)), make_params(lt, (W, b))
    topt, lopt = getattr(torch.optim, name)(groups_of(tp, groups), **kwargs), LIT[name](groups_of(lp, groups), **kwargs)
    for _ in range(steps):
        for t, l in zip(tp, lp):
            g = rng.standard_normal(t.shape).astype(dtype)
            t.grad, l.grad = torch.tensor(g), lt.tensor(g)
        topt.step(); lopt.step()
        assert_params(lp, tp, **tol(dtype))
    return topt, lopt, tp, lp


# ---- the option grids

def sgd_options():
    for momentum, dampening, nesterov, wd, maximize in itertools.product((0, 0.9), (0, 0.3), (False, True), (0, 0.1), (False, True)):
        if nesterov and (momentum == 0 or dampening != 0): continue
        yield dict(lr=0.05, momentum=momentum, dampening=dampening, nesterov=nesterov, weight_decay=wd, maximize=maximize)

def adam_options(wds=(0, 0.1)):
    for amsgrad, wd, maximize in itertools.product((False, True), wds, (False, True)):
        yield dict(lr=0.01, amsgrad=amsgrad, weight_decay=wd, maximize=maximize)

CASES = ([('SGD', kw) for kw in sgd_options()] + [('Adam', kw) for kw in adam_options()] +
         [('AdamW', kw) for kw in adam_options((0.01, 0.3))] +
         [('Adam', dict(lr=0.02, betas=(0.3, 0.6), eps=1e-6)),       # lerp with weight >= 0.5
          ('AdamW', dict(lr=0.02, betas=(0.5, 0.9), amsgrad=True)),
          ('SGD', dict()), ('Adam', dict()), ('AdamW', dict())])     # the defaults
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CASES]

@pytest.mark.parametrize('name,kwargs', CASES, ids=IDS)
def test_same_grads(name, kwargs):
    topt, lopt, _, _ = run_same_grads(name, kwargs)
    assert_state_dicts_equal(lopt.state_dict(), topt.state_dict())

@pytest.mark.parametrize('name,kwargs', CASES, ids=IDS)
def test_autograd_training(name, kwargs):
    run_autograd(name, kwargs)

@pytest.mark.parametrize('name,kwargs', [('SGD', dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
                                         ('Adam', dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
                                         ('AdamW', dict(lr=0.01, maximize=True))])
def test_float64(name, kwargs):
    run_same_grads(name, kwargs, dtype=np.float64)
    run_autograd(name, kwargs, dtype=np.float64)

@pytest.mark.parametrize('name,kwargs,groups', [
    ('SGD', dict(lr=0.1, momentum=0.9), [([0], dict(lr=0.05)), ([1], dict(lr=0.01, momentum=0.5, weight_decay=0.1))]),
    ('Adam', dict(lr=0.01), [([0], dict()), ([1], dict(lr=0.1, betas=(0.8, 0.99), amsgrad=True))]),
    ('AdamW', dict(lr=0.01), [([1], dict(weight_decay=0.5)), ([0], dict(lr=0.03))])])
def test_param_groups(name, kwargs, groups):
    topt, lopt, _, _ = run_same_grads(name, kwargs, groups=groups)
    assert_state_dicts_equal(lopt.state_dict(), topt.state_dict())
    run_autograd(name, kwargs, groups=groups)

def test_params_without_grad_are_skipped():
    W, b, _, _ = problem()
    for name, kw in (('SGD', dict(lr=0.1, momentum=0.9)), ('Adam', dict(lr=0.1))):
        tp, lp = make_params(torch, (W, b)), make_params(lt, (W, b))
        topt, lopt = getattr(torch.optim, name)(tp, **kw), LIT[name](lp, **kw)
        for _ in range(3):
            tp[0].grad, lp[0].grad = torch.ones(4, 3), lt.ones(4, 3)
            topt.step(); lopt.step()
        assert_params(lp, tp, rtol=1e-6)
        np.testing.assert_array_equal(lp[1].detach().numpy(), b)
        assert list(lopt.state_dict()['state']) == list(topt.state_dict()['state']) == [0]

def test_lr_tensor():
    W, b, _, _ = problem()
    tp, lp = make_params(torch, (W, b)), make_params(lt, (W, b))
    topt, lopt = torch.optim.SGD(tp, lr=torch.tensor(0.1)), SGD(lp, lr=lt.tensor(0.1))
    for t, l in zip(tp, lp): t.grad, l.grad = torch.ones_like(t), lt.ones_like(l)
    topt.step(); lopt.step()
    assert_params(lp, tp, rtol=1e-6)

def test_version_counter_bumped():
    p = lt.randn(3, requires_grad=True)
    y = (p * p).sum()  # saves p for backward
    p.grad = lt.ones(3)
    SGD([p], lr=0.1).step()
    with pytest.raises(RuntimeError): y.backward()  # like torch: p was modified in place


# ---- zero_grad, step(closure), repr

def test_zero_grad():
    for set_to_none in (True, False):
        p = lt.randn(3, requires_grad=True)
        opt = SGD([p], lr=0.1)
        (p * 2).sum().backward()
        g = p.grad
        opt.zero_grad(set_to_none=set_to_none)
        if set_to_none: assert p.grad is None
        else: assert p.grad is g and p.grad.tolist() == [0.0, 0.0, 0.0]

def test_closure_returns_loss():
    W, b, X, Y = problem()
    res = []
    for lib, cls in ((torch, torch.optim.Adam), (lt, Adam)):
        ps = make_params(lib, (W, b)); x, y = lib.tensor(X), lib.tensor(Y)
        opt = cls(ps, lr=0.01)
        def closure():
            opt.zero_grad()
            loss = loss_fn(*ps, x, y)
            loss.backward()
            return loss
        res.append((opt.step(closure).item(), ps))
    assert np.isclose(res[0][0], res[1][0], rtol=1e-6)
    assert_params(res[1][1], res[0][1], rtol=1e-5, atol=1e-6)

@pytest.mark.parametrize('name,kwargs', [('SGD', dict(lr=0.1, momentum=0.9)), ('Adam', dict()), ('AdamW', dict(amsgrad=True))])
def test_repr(name, kwargs):
    W, b, _, _ = problem()
    t = getattr(torch.optim, name)(make_params(torch, (W, b)), **kwargs)
    l = LIT[name](make_params(lt, (W, b)), **kwargs)
    assert repr(l) == repr(t)

def signature(f):
    import inspect
    return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

@pytest.mark.parametrize('name', ['SGD', 'Adam', 'AdamW'])
def test_signature(name):
    "Same parameter names, order, kinds and defaults as torch 2.13."
    assert signature(LIT[name]) == signature(getattr(torch.optim, name))

@pytest.mark.parametrize('name', ['LRScheduler', 'StepLR', 'CosineAnnealingLR', 'LambdaLR', 'LinearLR', 'SequentialLR'])
def test_scheduler_signature(name):
    assert signature(getattr(lls, name)) == signature(getattr(torch.optim.lr_scheduler, name))


# ---- state dicts

def to_plain(v):
    "A state dict with tensors replaced by (dtype name, shape, values), comparable across libraries."
    if isinstance(v, (torch.Tensor, lt.Tensor)): return ('tensor', str(v.dtype), tuple(v.shape), v.detach().cpu().numpy())
    if isinstance(v, dict): return {k: to_plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return type(v)(to_plain(x) for x in v)
    return v

def assert_plain_equal(a, b, path='', **tol):
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), (path, list(a), list(b))
        for k in a: assert_plain_equal(a[k], b[k], f'{path}/{k}', **tol)
    elif isinstance(a, tuple) and a and a[0] == 'tensor':
        assert a[1:3] == b[1:3], (path, a[1:3], b[1:3])
        np.testing.assert_allclose(a[3], b[3], err_msg=path, **(tol or dict(rtol=1e-6, atol=1e-6)))
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (path, a, b)
        for i, (x, y) in enumerate(zip(a, b)): assert_plain_equal(x, y, f'{path}/{i}', **tol)
    else: assert a == b and type(a) is type(b), (path, a, b)

def assert_state_dicts_equal(lsd, tsd, **tol): assert_plain_equal(to_plain(lsd), to_plain(tsd), **tol)

def to_torch(v):
    "A lit_torch state dict as torch's (tensors converted)."
    if isinstance(v, lt.Tensor): return torch.tensor(v.detach().numpy())
    if isinstance(v, dict): return {k: to_torch(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return type(v)(to_torch(x) for x in v)
    return v

def to_lit(v):
    if isinstance(v, torch.Tensor): return lt.tensor(v.detach().numpy())
    if isinstance(v, dict): return {k: to_lit(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return type(v)(to_lit(x) for x in v)
    return v

SD_CASES = [('SGD', dict(lr=0.1)), ('SGD', dict(lr=0.1, momentum=0.9, nesterov=True)),
            ('Adam', dict(lr=0.01)), ('Adam', dict(lr=0.01, amsgrad=True, maximize=True)), ('AdamW', dict(lr=0.01, amsgrad=True))]

@pytest.mark.parametrize('name,kwargs', SD_CASES)
def test_state_dict_structure(name, kwargs):
    groups = [([0], dict()), ([1], dict(lr=0.5, weight_decay=0.1))]
    topt, lopt, _, _ = run_same_grads(name, kwargs, steps=3, groups=groups)
    lsd, tsd = lopt.state_dict(), topt.state_dict()
    assert_state_dicts_equal(lsd, tsd)
    assert lsd['param_groups'][1]['params'] == [1]
    if 'step' in lsd['state'].get(0, {}): assert lsd['state'][0]['step'].dtype == lt.float32 and lsd['state'][0]['step'].shape == ()

def test_state_dict_empty_before_step():
    W, b, _, _ = problem()
    for name in LIT:
        t, l = getattr(torch.optim, name)(make_params(torch, (W, b))), LIT[name](make_params(lt, (W, b)))
        assert_state_dicts_equal(l.state_dict(), t.state_dict())

def test_named_params():
    W, b, _, _ = problem()
    tp, lp = make_params(torch, (W, b)), make_params(lt, (W, b))
    t = torch.optim.Adam([('w', tp[0]), ('b', tp[1])]); l = Adam([('w', lp[0]), ('b', lp[1])])
    assert_state_dicts_equal(l.state_dict(), t.state_dict())
    assert l.param_groups[0]['param_names'] == ['w', 'b']

@pytest.mark.parametrize('name,kwargs', SD_CASES)
def test_load_state_dict_round_trip(name, kwargs):
    "Save after 3 steps, load into a fresh optimizer, 3 more steps == 6 uninterrupted steps; in both directions with torch."
    rng = np.random.default_rng(5)
    W, b, _, _ = problem()
    grads = [[rng.standard_normal(a.shape).astype(np.float32) for a in (W, b)] for _ in range(6)]
    groups = [([0], dict()), ([1], dict(lr=0.2))]
    def steps(opt, ps, lib, gs):
        for g in gs:
            for p, a in zip(ps, g): p.grad = lib.tensor(a)
            opt.step()
    lp = make_params(lt, (W, b)); lopt = LIT[name](groups_of(lp, groups), **kwargs)
    steps(lopt, lp, lt, grads[:3])
    saved, checkpoint = copy.deepcopy(lopt.state_dict()), [p.detach().numpy().copy() for p in lp]
    before = to_plain(saved)
    steps(lopt, lp, lt, grads[3:])
    # a fresh lit_torch optimizer (other hyperparameters: the loaded ones win)
    lp2 = make_params(lt, checkpoint); lopt2 = LIT[name](groups_of(lp2, groups), lr=0.9)
    lopt2.load_state_dict(saved)
    steps(lopt2, lp2, lt, grads[3:])
    assert_params(lp2, lp, rtol=1e-6, atol=1e-6)
    assert_plain_equal(to_plain(saved), before)  # stepping did not write into the loaded dict
    # lit_torch's state dict loads into torch and continues identically
    tp = make_params(torch, checkpoint); topt = getattr(torch.optim, name)(groups_of(tp, groups), lr=0.9)
    topt.load_state_dict(to_torch(saved))
    steps(topt, tp, torch, grads[3:])
    assert_params(lp, tp, rtol=1e-6, atol=1e-6)
    # and torch's loads into lit_torch
    tp = make_params(torch, (W, b)); topt = getattr(torch.optim, name)(groups_of(tp, groups), **kwargs)
    steps(topt, tp, torch, grads[:3])
    lp3 = make_params(lt, checkpoint); lopt3 = LIT[name](groups_of(lp3, groups))
    lopt3.load_state_dict(to_lit(topt.state_dict()))
    steps(lopt3, lp3, lt, grads[3:])
    assert_params(lp3, lp, rtol=1e-6, atol=1e-6)

def test_load_state_dict_casts_dtype():
    "Floating state is cast to the parameter's dtype; 'step' keeps float32."
    p = lt.randn(3, requires_grad=True); p.grad = lt.randn(3)
    opt = Adam([p]); opt.step()
    p64 = lt.randn(3, dtype=lt.float64, requires_grad=True)
    opt64 = Adam([p64]); opt64.load_state_dict(opt.state_dict())
    st = opt64.state[p64]
    assert st['exp_avg'].dtype == lt.float64 and st['step'].dtype == lt.float32
    assert st['exp_avg'] is not opt.state[p]['exp_avg']


# ---- errors, with torch's types and messages

def same_error(fn):
    "fn(torch_lib, optim_namespace) raises the same exception type and message in both libraries."
    errs = []
    for lib, ns in ((torch, torch.optim), (lt, LIT)):
        with pytest.raises(Exception) as e: fn(lib, ns)
        errs.append(e.value)
    assert type(errs[0]) is type(errs[1]), errs
    assert str(errs[0]) == str(errs[1]), errs

def _get(ns, name): return ns[name] if isinstance(ns, dict) else getattr(ns, name)

@pytest.mark.parametrize('case', [
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=-1),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1, momentum=-0.5),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1, weight_decay=-1),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1, nesterov=True),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    lambda lib, ns: _get(ns, 'Adam')([lib.ones(2, requires_grad=True)], lr=-0.5),
    lambda lib, ns: _get(ns, 'Adam')([lib.ones(2, requires_grad=True)], eps=-1.0),
    lambda lib, ns: _get(ns, 'Adam')([lib.ones(2, requires_grad=True)], betas=(1.0, 0.9)),
    lambda lib, ns: _get(ns, 'AdamW')([lib.ones(2, requires_grad=True)], betas=(0.9, -0.1)),
    lambda lib, ns: _get(ns, 'AdamW')([lib.ones(2, requires_grad=True)], weight_decay=-0.1),
    lambda lib, ns: _get(ns, 'Adam')([lib.ones(2, requires_grad=True)], betas=(0, 0.9)),
    lambda lib, ns: _get(ns, 'SGD')([], lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')(lib.ones(2, requires_grad=True), lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')(lib.ones(2, dtype=lib.float64, requires_grad=True), lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')([[1.0]], lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')([{'params': {lib.ones(2, requires_grad=True)}}], lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True) * 2], lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')([{'params': [p]}, {'params': [p]}] if (p := lib.ones(2, requires_grad=True)) is not None else 0, lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')([('a', lib.ones(2, requires_grad=True)), lib.ones(2, requires_grad=True)], lr=0.1),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1).add_param_group([lib.ones(1)]),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1).load_state_dict(
        {'state': {}, 'param_groups': []}),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1).load_state_dict(
        {'state': {}, 'param_groups': [{'lr': 0.1, 'params': [0, 1]}]}),
    lambda lib, ns: _get(ns, 'SGD')([lib.ones(2, requires_grad=True)], lr=0.1, fused=True, foreach=True),
])
def test_errors(case):
    same_error(case)

def test_duplicate_in_group_warns():
    p = lt.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match='duplicate parameters'): SGD([p, p], lr=0.1)

def test_base_step_not_implemented():
    with pytest.raises(NotImplementedError): Optimizer([lt.ones(1, requires_grad=True)], {}).step()


# ---- learning-rate schedulers

def sched_cases():
    return {
        'StepLR': lambda m, o: m.StepLR(o, step_size=3),
        'StepLR-gamma': lambda m, o: m.StepLR(o, step_size=4, gamma=0.5),
        'Cosine': lambda m, o: m.CosineAnnealingLR(o, T_max=10),
        'Cosine-eta_min': lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.002),
        'LambdaLR': lambda m, o: m.LambdaLR(o, lambda e: 0.9 ** e),
        'LambdaLR-list': lambda m, o: m.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.5 ** (e // 2)]),
        'LinearLR': lambda m, o: m.LinearLR(o),
        'LinearLR-down': lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.05, total_iters=12),
        'Sequential': lambda m, o: m.SequentialLR(o, [m.LinearLR(o, start_factor=0.1, total_iters=4),
                                                      m.CosineAnnealingLR(o, T_max=12)], milestones=[4]),
        'Sequential-3': lambda m, o: m.SequentialLR(o, [m.LinearLR(o, start_factor=0.5, total_iters=3), m.StepLR(o, 2, 0.7),
                                                        m.CosineAnnealingLR(o, T_max=5, eta_min=0.01)], milestones=[5, 12]),
    }

SCHED = sched_cases()

def sched_pair(key, lrs=(0.1, 0.03)):
    W, b, _, _ = problem()
    tp, lp = make_params(torch, (W, b)), make_params(lt, (W, b))
    topt = torch.optim.SGD([{'params': [tp[0]], 'lr': lrs[0]}, {'params': [tp[1]], 'lr': lrs[1]}], momentum=0.9)
    lopt = SGD([{'params': [lp[0]], 'lr': lrs[0]}, {'params': [lp[1]], 'lr': lrs[1]}], momentum=0.9)
    return (topt, SCHED[key](torch.optim.lr_scheduler, topt)), (lopt, SCHED[key](lls, lopt))

def step_both(pairs, n):
    out = []
    for _ in range(n):
        row = []
        for opt, s in pairs:
            opt.step(); s.step()
            row.append((s.get_last_lr(), [g['lr'] for g in opt.param_groups]))
        out.append(row)
    return out

@pytest.mark.parametrize('key', list(SCHED))
def test_scheduler_sequence(key):
    (topt, ts), (lopt, ls) = sched_pair(key)
    assert ls.get_last_lr() == ts.get_last_lr()
    for (tl, tg), (ll, lg) in step_both([(topt, ts), (lopt, ls)], 30):
        assert ll == tl and lg == tg, (ll, tl)
    assert [g['initial_lr'] for g in lopt.param_groups] == [g['initial_lr'] for g in topt.param_groups]
    assert ls.last_epoch == ts.last_epoch

@pytest.mark.parametrize('key', list(SCHED))
def test_scheduler_state_dict(key):
    (topt, ts), (lopt, ls) = sched_pair(key)
    step_both([(topt, ts), (lopt, ls)], 6)
    assert_plain_equal(to_plain(ls.state_dict()), to_plain(ts.state_dict()))
    # resume: a fresh optimizer and scheduler, the optimizer's lr restored as its load_state_dict would
    saved, osaved = copy.deepcopy(ls.state_dict()), copy.deepcopy(lopt.state_dict())
    (_, _), (lopt2, ls2) = sched_pair(key, lrs=(0.7, 0.7))
    lopt2.load_state_dict(osaved)
    ls2.load_state_dict(saved)
    for (tl, tg), (ll, lg) in step_both([(topt, ts), (lopt2, ls2)], 20):
        assert ll == tl and lg == tg, (ll, tl)

def test_lambda_state_dict_callable_object():
    class Fn:
        def __init__(self): self.k = 0.9
        def __call__(self, e): return self.k ** e
    res = []
    for m, cls in ((torch.optim.lr_scheduler, torch.optim.SGD), (lls, SGD)):
        lib = torch if m is torch.optim.lr_scheduler else lt
        o = cls([lib.ones(1, requires_grad=True)], lr=0.1)
        f = Fn(); f.k = 0.5
        s = m.LambdaLR(o, [f])
        sd = s.state_dict()
        f2 = Fn(); s2 = m.LambdaLR(cls([lib.ones(1, requires_grad=True)], lr=0.1), f2)
        s2.load_state_dict(sd)
        res.append((sd['lr_lambdas'], f2.k, 'lr_lambdas' in sd))
    assert res[0] == res[1] == ([{'k': 0.5}], 0.5, True)

def test_scheduler_closed_form_epoch():
    "The deprecated step(epoch) jumps with the closed form, in both libraries."
    for key in ('StepLR', 'Cosine', 'LinearLR'):
        (topt, ts), (lopt, ls) = sched_pair(key)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            ts.step(7); ls.step(7)
        assert ls.get_last_lr() == ts.get_last_lr()

def test_scheduler_warnings():
    for m, cls, lib in ((torch.optim.lr_scheduler, torch.optim.SGD, torch), (lls, SGD, lt)):
        o = cls([lib.ones(1, requires_grad=True)], lr=0.1)
        s = m.StepLR(o, 2)
        with pytest.warns(UserWarning, match='before `optimizer.step\\(\\)`'): s.step()
        with pytest.warns(UserWarning, match='get_last_lr'): s.get_lr()

def test_scheduler_errors():
    same_error(lambda lib, ns: (torch.optim.lr_scheduler if lib is torch else lls).StepLR(object(), 3))
    same_error(lambda lib, ns: (torch.optim.lr_scheduler if lib is torch else lls).LinearLR(
        _get(ns, 'SGD')([lib.ones(1, requires_grad=True)]), start_factor=1.5))
    same_error(lambda lib, ns: (torch.optim.lr_scheduler if lib is torch else lls).LambdaLR(
        _get(ns, 'SGD')([lib.ones(1, requires_grad=True)]), [lambda e: 1, lambda e: 2]))
    def seq(lib, ns):
        m = torch.optim.lr_scheduler if lib is torch else lls
        o = _get(ns, 'SGD')([lib.ones(1, requires_grad=True)])
        return m.SequentialLR(o, [m.StepLR(o, 2), m.StepLR(o, 3)], milestones=[2, 5])
    same_error(seq)
    def resume(lib, ns):
        m = torch.optim.lr_scheduler if lib is torch else lls
        return m.StepLR(_get(ns, 'SGD')([lib.ones(1, requires_grad=True)]), 3, last_epoch=4)
    errs = []
    for lib, ns in ((torch, torch.optim), (lt, LIT)):
        with pytest.raises(KeyError) as e: resume(lib, ns)
        errs.append(e)

def test_lr_scheduler_alias():
    assert issubclass(lls._LRScheduler, lls.LRScheduler) and lls._LRScheduler.__name__ == '_LRScheduler'


@pytest.mark.parametrize('make', [lambda ps: lt.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
                                  lambda ps: lt.optim.Adam(ps, lr=0.1, weight_decay=0.1),
                                  lambda ps: lt.optim.AdamW(ps, lr=0.1, amsgrad=True)])
def test_zero_dim_parameter_steps(make):
    "A 0-d parameter steps in place and keeps 0-d state (its update once wrote into a NumPy scalar with out=)."
    p = lt.tensor(1.5, requires_grad=True)
    opt = make([p])
    for g in (0.3, -0.2):
        p.grad = lt.tensor(g)
        opt.step()
    assert p.shape == () and p.item() != 1.5
    assert all(v.shape == () for v in opt.state[p].values())


# ---- big parameters go a block at a time, over the intra-op threads (optim.optimizer._by_blocks)

@pytest.mark.parametrize('name,kwargs', [
    ('SGD', dict(lr=0.1, momentum=0.9, weight_decay=1e-4)),
    ('SGD', dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ('SGD', dict(lr=0.1, momentum=0.5, dampening=0.3)),
    ('Adam', dict(lr=1e-2, weight_decay=1e-2, amsgrad=True)),
    ('AdamW', dict(lr=1e-2, betas=(0.8, 0.9))),
])
def test_big_parameters_by_blocks(name, kwargs):
    "Parameters of several blocks (and a strided one, updated whole) step as torch's do, and bit for bit as one whole-array pass."
    from lit_torch.optim import optimizer as lopt_mod
    rng = np.random.default_rng(3)
    shapes = [(5, lopt_mod._BLOCK_ELEMENTS + 7), (3 * lopt_mod._BLOCK_ELEMENTS + 1,), (7,)]
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(3)]
    tp = [torch.tensor(a, requires_grad=True) for a in init]
    lp = [lt.tensor(a, requires_grad=True) for a in init]
    whole = [lt.tensor(a, requires_grad=True) for a in init]
    topt, lopt, wopt = getattr(torch.optim, name)(tp, **kwargs), LIT[name](lp, **kwargs), LIT[name](whole, **kwargs)
    block = lopt_mod._BLOCK_ELEMENTS
    for g in grads:
        for t, l, w, gi in zip(tp, lp, whole, g): t.grad, l.grad, w.grad = torch.tensor(gi), lt.tensor(gi), lt.tensor(gi)
        topt.step(); lopt.step()
        lopt_mod._BLOCK_ELEMENTS = 1 << 40  # every parameter in one call
        try: wopt.step()
        finally: lopt_mod._BLOCK_ELEMENTS = block
        for l, w in zip(lp, whole): np.testing.assert_array_equal(l.detach().numpy(), w.detach().numpy())
        assert_params(lp, tp, rtol=1e-5, atol=1e-6)
