"""bfloat16 pointwise, special and sampling ops against PyTorch: the dtype kept, values computed as torch's CPU kernels do
(in float32 and rounded once, or torch's own bfloat16 roundings where its kernel rounds each step)."""
import math
import numpy as np
import pytest
import torch
import lit_torch as lt

RTOL, ATOL = 1.6e-2, 1e-5  # torch.testing's bfloat16 tolerance


def pair(a):
    "The same float32 values as a bfloat16 tensor of torch and of lit_torch."
    a = np.asarray(a, np.float32)
    return torch.tensor(a).to(torch.bfloat16), lt.tensor(a).to(lt.bfloat16)


def rng(seed=0): return np.random.default_rng(seed)


def check(ours, theirs, exact=False):
    assert ours.dtype == lt.bfloat16, ours.dtype
    assert theirs.dtype == torch.bfloat16
    o, t = ours.float().numpy(), theirs.float().numpy()
    if exact: np.testing.assert_array_equal(o, t)
    else: np.testing.assert_allclose(o, t, rtol=RTOL, atol=ATOL, equal_nan=True)


BINARY = {
    'atan2': lambda m, a, b: m.atan2(a, b),
    'arctan2': lambda m, a, b: m.arctan2(a, b),
    'hypot': lambda m, a, b: m.hypot(a, b),
    'copysign': lambda m, a, b: m.copysign(a, b),
    'fmod': lambda m, a, b: m.fmod(a, b),
    'logaddexp': lambda m, a, b: m.logaddexp(a, b),
    'logaddexp2': lambda m, a, b: m.logaddexp2(a, b),
    'xlogy': lambda m, a, b: m.xlogy(a, b.abs()),
    'xlog1py': lambda m, a, b: m.special.xlog1py(a, b.abs()),
    'nextafter': lambda m, a, b: m.nextafter(a, b),
    'atan2_method': lambda m, a, b: a.atan2(b),
    'fmod_scalar': lambda m, a, b: m.fmod(a, 0.7),
    'copysign_scalar': lambda m, a, b: m.copysign(a, -1.5),
}


@pytest.mark.parametrize('name', BINARY)
def test_binary_ops_take_bfloat16(name):
    "Each raised \"..._cpu\" not implemented for 'BFloat16': _Binary took only dtype kinds 'biuf'."
    (ta, la), (tb, lb) = pair(rng(1).normal(0, 3, (40, 30))), pair(rng(2).normal(0, 3, (40, 30)))
    check(BINARY[name](lt, la, lb), BINARY[name](torch, ta, tb))


def test_nextafter_steps_one_bfloat16_ulp():
    ta, la = pair(rng(3).normal(0, 3, 500))
    check(lt.nextafter(la, la + 100), torch.nextafter(ta, ta + 100), exact=True)


@pytest.mark.parametrize('name', ['erf', 'sinc', 'special.erf', 'special.sinc'])
def test_unary_ops_compute_in_float32_and_round_once(name):
    "erf and sinc ran their float formulas in bfloat16 steps: 3% of values off by more than torch's tolerance."
    fn = lambda m: m.special if name.startswith('special.') else m
    op = name.split('.')[-1]
    ta, la = pair(rng(4).normal(0, 1.5, (50, 40)))
    ours = getattr(fn(lt), op)(la)
    check(ours, getattr(fn(torch), op)(ta))
    # once rounded: the same as the float32 result rounded to bfloat16
    np.testing.assert_array_equal(ours.float().numpy(), getattr(fn(lt), op)(la.float()).to(lt.bfloat16).float().numpy())


def test_ndtr_rounds_as_torchs_composite():
    "torch's ndtr is (1 + erf(x * sqrt(1/2))) * 0.5, each step rounded to bfloat16: 0.00195 at -2.88, not 0.00114."
    ta, la = pair(np.linspace(-6, 6, 4001))
    check(lt.special.ndtr(la), torch.special.ndtr(ta), exact=True)


@pytest.mark.parametrize('eps', [0.2, 1e-3])
def test_logit_rounds_as_torchs_kernel(eps):
    "logit with eps came back in float32; torch's kernel rounds the clamp, 1 - x, the quotient and the log to bfloat16."
    ta, la = pair(np.concatenate([np.linspace(-0.1, 1.1, 3001), rng(5).random(500)]))
    check(lt.logit(la), torch.logit(ta), exact=True)
    check(lt.logit(la, eps), torch.logit(ta, eps), exact=True)
    check(la.logit(eps), ta.logit(eps), exact=True)
    tb, lb = ta.clone(), la.clone()
    check(lb.logit_(eps), tb.logit_(eps), exact=True)


def test_lerp_addcmul_addcdiv_compute_in_float32():
    "lerp raised for bfloat16; addcmul/addcdiv rounded three times (addcdiv off by 4 where the terms cancel)."
    r = rng(6)
    (tx, lx), (t1, l1), (t2, l2), (tw, lw) = (pair(r.normal(0, 2, (60, 50))) for _ in range(4))
    (tc, lc), (tr, lr) = pair(r.normal(0, 2, (60, 1))), pair(r.normal(0, 2, (1, 50)))
    check(lt.lerp(lx, l1, 0.4), torch.lerp(tx, t1, 0.4))
    check(lt.lerp(lx, l1, 0.7), torch.lerp(tx, t1, 0.7))
    check(lt.lerp(lx, l1, lw), torch.lerp(tx, t1, tw))
    check(lx.lerp(l1, 0.3), tx.lerp(t1, 0.3))
    check(lt.addcmul(lx, lc, lr, value=3.14), torch.addcmul(tx, tc, tr, value=3.14))
    check(lt.addcdiv(lx, l1, l2, value=3.14), torch.addcdiv(tx, t1, t2, value=3.14))
    check(lx.addcmul(l1, l2, value=-0.5), tx.addcmul(t1, t2, value=-0.5))
    check(lx.clone().addcdiv_(l1, l2, value=2.0), tx.clone().addcdiv_(t1, t2, value=2.0))


def test_signbit_reads_the_sign_of_bfloat16():
    "signbit was False for every bfloat16 (it took dtype kind 'f' only)."
    vals = np.concatenate([[-0.0, 0.0, -np.inf, np.inf, -1e-30], rng(7).normal(0, 2, 200)])
    ta, la = pair(vals)
    ours = lt.signbit(la)
    assert ours.dtype == lt.bool
    np.testing.assert_array_equal(ours.numpy(), torch.signbit(ta).numpy())
    assert ours.numpy()[0] and not ours.numpy()[1]


def test_frexp_of_bfloat16():
    ta, la = pair(np.concatenate([[0.0, -0.0, 1.0, -3.5], rng(8).normal(0, 100, 200)]))
    (lm, le), (tm, te) = lt.frexp(la), torch.frexp(ta)
    check(lm, tm, exact=True)
    assert le.dtype == lt.int32
    np.testing.assert_array_equal(le.numpy(), te.numpy())


@pytest.mark.parametrize('n', [1, 2, 3, 4])
@pytest.mark.parametrize('dt', ['bfloat16', 'float32'])
def test_polygamma_at_its_poles(n, dt):
    "At 0, -1, -2... polygamma was NaN; torch gives ±inf for n >= 2 and, for n = 1, pi^2/sin^2(pi x) with a float32 sine."
    x = np.concatenate([[0., -1., -2., -6., -9., -40.], rng(9).uniform(-9.7, 9.7, 50)])
    tx, lx = torch.tensor(x, dtype=getattr(torch, dt)), lt.tensor(x).to(getattr(lt, dt))
    ours, theirs = lt.polygamma(n, lx), torch.polygamma(n, tx)
    assert ours.dtype == getattr(lt, dt)
    o, t = ours.float().numpy(), theirs.float().numpy()
    poles = slice(0, 6)
    np.testing.assert_allclose(o[poles], t[poles], rtol=RTOL)
    if dt == 'float32' or n < 4:  # torch's bfloat16 zeta sums in float32, and loses digits for n >= 4 below -9
        np.testing.assert_allclose(o[6:], t[6:], rtol=RTOL if dt == 'bfloat16' else 1e-4)


def test_linspace_in_bfloat16_as_torchs_kernel():
    "The step and each value in bfloat16 arithmetic, the first half from start, the rest from end: [32] of (-2, 1, 50) is -0.0390625."
    for a, b, n in [(-2.0, 1, 50), (0, 10, 5), (-10, 10, 1000), (3, -7, 77), (0.1, 0.9, 300), (-100, 100, 65), (0, 1, 1), (5, 5, 10), (0, 1, 0)]:
        check(lt.linspace(a, b, n, dtype=lt.bfloat16), torch.linspace(a, b, n, dtype=torch.bfloat16), exact=True)
    assert lt.linspace(-2., 1, 50, dtype=lt.bfloat16)[32].item() == -0.0390625


def test_linspace_bounds_must_be_0d():
    for args in [(torch.ones(2), torch.ones(2)), (torch.tensor(0.), torch.ones(3)), (torch.ones(2), 1.)]:
        with pytest.raises(RuntimeError) as theirs: torch.linspace(*args, 3)
        largs = [lt.tensor(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args]
        with pytest.raises(RuntimeError) as ours: lt.linspace(*largs, 3)
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- sampling: torch's stream cannot be matched, so
# the dtype, the shape and the distribution are checked


def test_bernoulli_poisson_multinomial_take_bfloat16():
    lt.manual_seed(0)
    p = rng(10).uniform(0.05, 0.95, 4000).astype(np.float32)
    lp = lt.tensor(p).to(lt.bfloat16)
    for draw in (lt.bernoulli(lp), lp.bernoulli(), lp.bernoulli(0.3)):
        assert draw.dtype == lt.bfloat16 and draw.shape == lp.shape
        assert set(np.unique(draw.float().numpy())) <= {0.0, 1.0}
    assert abs(lt.bernoulli(lp).float().mean().item() - p.mean()) < 0.05
    counts = lt.poisson(lp * 3)
    assert counts.dtype == lt.bfloat16 and abs(counts.float().mean().item() - 3 * p.mean()) < 0.2
    w = lt.tensor([0.1, 0.0, 0.6, 0.3]).to(lt.bfloat16)
    idx = lt.multinomial(w, 3)
    assert idx.dtype == lt.int64 and sorted(idx.tolist()) == [0, 2, 3]
    many = w.multinomial(4000, True).numpy()
    assert 1 not in many and abs((many == 2).mean() - 0.6) < 0.05


@pytest.mark.parametrize('fill, args, mean, tol', [('uniform_', (-100, 100), 0.0, 2.5), ('normal_', (1, 5), 1.0, 0.2),
                                                   ('exponential_', (0.5,), 2.0, 0.1), ('log_normal_', (0, 0.25), math.exp(0.25 ** 2 / 2), 0.02),
                                                   ('cauchy_', (0, 0.5), None, None)])
def test_in_place_draws_into_bfloat16(fill, args, mean, tol):
    "These raised 'not implemented for BFloat16' or '... dtype must be a floating point but you specified BFloat16'."
    lt.manual_seed(0)
    x = lt.empty(20000, dtype=lt.bfloat16)
    t = getattr(torch.empty(20000, dtype=torch.bfloat16), fill)(*args)
    y = getattr(x, fill)(*args)
    assert y is x and y.dtype == lt.bfloat16 and t.dtype == torch.bfloat16
    v = y.float().numpy()
    assert np.isfinite(v).all()
    if fill == 'uniform_': assert v.min() >= -100 and v.max() <= 100
    if mean is not None: assert abs(v.mean() - mean) < tol  # about 5 standard errors


def test_normal_in_bfloat16():
    lt.manual_seed(0)
    lm = lt.tensor(rng(11).normal(0, 1, 3000).astype(np.float32)).to(lt.bfloat16)
    for draw in (lt.normal(lm, 0.5), lt.normal(0.0, lm.abs()), lt.normal(lm, lm.abs()),
                 lt.normal(1.6, 0.3, (2000,), dtype=lt.bfloat16)):
        assert draw.dtype == lt.bfloat16
    d = lt.normal(1.6, 0.3, (2000, 3), dtype=lt.bfloat16)
    assert d.shape == (2000, 3) and abs(d.float().mean().item() - 1.6) < 0.05 and abs(d.float().std().item() - 0.3) < 0.05


def test_random_fills_bfloat16_up_to_256():
    "random_() draws every integer the dtype holds exactly: up to 2**8 for bfloat16, as torch."
    lt.manual_seed(0)
    v = lt.empty(50000, dtype=lt.bfloat16).random_().float().numpy()
    t = torch.empty(50000, dtype=torch.bfloat16).random_().float().numpy()
    assert v.min() >= 0 and v.max() == t.max() == 256 and (v == np.round(v)).all()
    g = lt.empty(20000, dtype=lt.bfloat16).geometric_(0.5)
    assert g.dtype == lt.bfloat16 and abs(g.float().mean().item() - 2.0) < 0.1
