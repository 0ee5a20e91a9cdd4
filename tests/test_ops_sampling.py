"""Random ops (nbs/03h_sampling): distributions (moments within a few standard errors on 10^5 draws), reproducibility,
the generator= argument, multinomial without replacement, shapes/dtypes/errors against torch, in-place autograd.

The numbers differ from torch's for the same seed (lit_torch draws from NumPy's PCG64): only what must agree is compared."""
import math
import numpy as np
import pytest
import torch
import lit_torch as lt
from op_helpers import check_same_error

N = 100_000

def near(sample_mean, mean, var, n=N, k=5):
    "The sample mean is within `k` standard errors of `mean`."
    return abs(sample_mean - mean) <= k * math.sqrt(var / n)

@pytest.fixture(autouse=True)
def seeded():
    state = lt.get_rng_state()
    lt.manual_seed(1234)
    yield
    lt.set_rng_state(state)

# ---------------------------------------------------------------- moments
MOMENTS = {  # name: (draw, mean, variance)
    'uniform_': (lambda: lt.zeros(N, dtype=lt.float64).uniform_(-2, 4), 1., 36 / 12),
    'normal_': (lambda: lt.zeros(N, dtype=lt.float64).normal_(3., 2.), 3., 4.),
    'exponential_': (lambda: lt.zeros(N, dtype=lt.float64).exponential_(4.), 0.25, 1 / 16),
    'geometric_': (lambda: lt.zeros(N, dtype=lt.float64).geometric_(0.2), 5., 0.8 / 0.04),
    'log_normal_': (lambda: lt.zeros(N, dtype=lt.float64).log_normal_(0.5, 0.25), math.exp(0.5 + 0.25 ** 2 / 2),
                    (math.exp(0.25 ** 2) - 1) * math.exp(1 + 0.25 ** 2)),
    'random_': (lambda: lt.zeros(N, dtype=lt.int64).random_(-3, 7).double(), 1.5, (10 ** 2 - 1) / 12),
    'random_to': (lambda: lt.zeros(N).random_(5).double(), 2., (25 - 1) / 12),
    'bernoulli_': (lambda: lt.zeros(N, dtype=lt.float64).bernoulli_(0.3), 0.3, 0.21),
    'bernoulli': (lambda: lt.bernoulli(lt.full((N,), 0.7, dtype=lt.float64)), 0.7, 0.21),
    'bernoulli_p': (lambda: lt.bernoulli(lt.zeros(N, dtype=lt.float64), 0.1), 0.1, 0.09),
    'poisson': (lambda: lt.poisson(lt.full((N,), 3.5, dtype=lt.float64)), 3.5, 3.5),
    'normal_tensors': (lambda: lt.normal(lt.full((N,), -1., dtype=lt.float64), lt.full((N,), 0.5, dtype=lt.float64)), -1., 0.25),
    'normal_floats': (lambda: lt.normal(2., 3., (N,), dtype=lt.float64), 2., 9.),
    'randn': (lambda: lt.randn(N, dtype=lt.float64), 0., 1.),
    'rand': (lambda: lt.rand(N, dtype=lt.float64), 0.5, 1 / 12),
}

@pytest.mark.parametrize('name', MOMENTS)
def test_mean_and_variance(name):
    draw, mean, var = MOMENTS[name]
    x = draw().numpy().astype(np.float64)
    assert near(x.mean(), mean, var), (x.mean(), mean)
    # the sample variance's standard error, from the fourth moment
    v = x.var()
    m4 = ((x - x.mean()) ** 4).mean()
    assert abs(v - var) < 6 * math.sqrt((m4 - v * v) / N), (v, var)

def test_cauchy_quartiles():
    x = np.sort(lt.zeros(N, dtype=lt.float64).cauchy_(1., 2.).numpy())
    q1, q2, q3 = x[N // 4], x[N // 2], x[3 * N // 4]
    assert abs(q2 - 1) < 0.05 and abs(q1 - (1 - 2)) < 0.1 and abs(q3 - (1 + 2)) < 0.1   # median ± sigma

def test_uniform_and_random_ranges():
    u = lt.zeros(N).uniform_(2., 3.)
    assert u.min().item() >= 2 and u.max().item() < 3
    r = lt.zeros(N, dtype=lt.int64).random_(3, 7)
    assert set(r.unique().tolist()) == {3, 4, 5, 6}
    for dt, top in ((lt.float32, 2 ** 24), (lt.float64, 2 ** 53), (lt.uint8, 255), (lt.int8, 127)):
        r = lt.zeros(N, dtype=dt).random_()
        assert 0 <= r.min().item() and r.max().item() <= top and r.dtype == dt
    assert set(lt.zeros(100, dtype=lt.bool).random_().tolist()) == {False, True}
    g = lt.zeros(N).geometric_(0.5)
    assert g.min().item() == 1 and (g.numpy() == np.round(g.numpy())).all()

# ---------------------------------------------------------------- multinomial
def test_multinomial_with_replacement_frequencies():
    w = lt.tensor([[1., 0., 3., 4.], [0., 0., 0., 2.]])
    d = lt.multinomial(w, N, replacement=True)
    assert d.shape == (2, N) and d.dtype == lt.int64
    for k, p in enumerate([1 / 8, 0, 3 / 8, 4 / 8]):
        assert near((d[0] == k).double().mean().item(), p, p * (1 - p))
    assert (d[1] == 3).all()

def test_multinomial_without_replacement_never_repeats():
    d = lt.multinomial(lt.rand(2000, 10) + 0.01, 7)
    s = d.sort(1).values
    assert (s[:, 1:] != s[:, :-1]).all()
    d = lt.multinomial(lt.tensor([0., 1., 0., 1., 1.]), 3)   # only the positive categories
    assert sorted(d.tolist()) == [1, 3, 4]

def test_multinomial_without_replacement_order_probabilities():
    "P(first = i) = w_i / W; P(second = j | first = i) = w_j / (W - w_i)."
    w = [1., 2., 3., 4.]
    d = lt.multinomial(lt.tensor(w).expand(N, 4), 2).numpy()
    for i in range(4):
        p = w[i] / 10
        assert near((d[:, 0] == i).mean(), p, p * (1 - p))
        p2 = sum(w[j] / 10 * w[i] / (10 - w[j]) for j in range(4) if j != i)
        assert near((d[:, 1] == i).mean(), p2, p2 * (1 - p2))

# ---------------------------------------------------------------- reproducibility and generators
DRAWS = [lambda g: lt.zeros(5).uniform_(generator=g), lambda g: lt.zeros(5).normal_(generator=g),
         lambda g: lt.zeros(5).exponential_(generator=g), lambda g: lt.zeros(5).geometric_(0.3, generator=g),
         lambda g: lt.zeros(5).log_normal_(generator=g), lambda g: lt.zeros(5).cauchy_(generator=g),
         lambda g: lt.zeros(5).random_(0, 100, generator=g), lambda g: lt.zeros(5).bernoulli_(0.5, generator=g),
         lambda g: lt.bernoulli(lt.full((5,), 0.5), generator=g), lambda g: lt.poisson(lt.ones(5), generator=g),
         lambda g: lt.normal(lt.zeros(5), 1., generator=g), lambda g: lt.normal(0., 1., (5,), generator=g),
         lambda g: lt.multinomial(lt.ones(8), 4, generator=g), lambda g: lt.multinomial(lt.ones(8), 4, True, generator=g),
         lambda g: lt.randperm(8, generator=g), lambda g: lt.randint(0, 9, (5,), generator=g)]

@pytest.mark.parametrize('i', range(len(DRAWS)))
def test_seed_reproduces_and_generator_is_independent(i):
    draw = DRAWS[i]
    lt.manual_seed(5); a = draw(None)
    lt.manual_seed(5); b = draw(None)
    assert a.tolist() == b.tolist()
    g = lt.Generator().manual_seed(11)
    c = draw(g)
    lt.rand(100)                                 # the default generator moves on; g does not
    assert draw(lt.Generator().manual_seed(11)).tolist() == c.tolist()
    lt.manual_seed(5)
    assert draw(lt.Generator().manual_seed(5)).tolist() == a.tolist()   # the same seed in either is the same stream

def test_generator_errors():
    with pytest.raises(TypeError): lt.zeros(3).uniform_(generator=3)
    with pytest.raises(TypeError): lt.bernoulli(lt.ones(3) / 2, generator='cpu')

# ---------------------------------------------------------------- against torch: shapes, dtypes, errors
SHAPES = {
    'bernoulli': lambda m: m.bernoulli(m.full((2, 3), 0.5, dtype=m.float64)),
    'bernoulli_p': lambda m: m.bernoulli(m.zeros(2, 3), 0.5),
    'bernoulli_method': lambda m: m.zeros(4).bernoulli(),
    'multinomial_1d': lambda m: m.multinomial(m.ones(5), 3),
    'multinomial_2d': lambda m: m.ones(2, 5).multinomial(7, replacement=True),
    'normal_tt': lambda m: m.normal(m.zeros(2, 1), m.ones(3)),
    'normal_tf': lambda m: m.normal(m.zeros(2, 3, dtype=m.float64), 2.),
    'normal_ft': lambda m: m.normal(1., m.ones(4)),
    'normal_ff': lambda m: m.normal(0, 1, (2, 2)),
    'normal_ff_dtype': lambda m: m.normal(0., 1., [3], dtype=m.float64),
    'poisson': lambda m: m.poisson(m.ones(3, 2)),
    'randperm_float': lambda m: m.randperm(5, dtype=m.float32),
    'randint_like': lambda m: m.randint_like(m.zeros(2, 3), 7),
    'randint_like_low': lambda m: m.randint_like(m.zeros(2, dtype=m.int32), 3, 7),
    'random_uint8': lambda m: m.zeros(4, dtype=m.uint8).random_(),
    'random_bool': lambda m: m.zeros(4, dtype=m.bool).random_(),
    'geometric_int': lambda m: m.zeros(4, dtype=m.int64).geometric_(0.5),
    'bernoulli_int': lambda m: m.zeros(4, dtype=m.int64).bernoulli_(0.5),
    'uniform_f16': lambda m: m.zeros(4, dtype=m.float16).uniform_(),
}

@pytest.mark.parametrize('name', SHAPES)
def test_shape_and_dtype_match_torch(name):
    t, l = SHAPES[name](torch), SHAPES[name](lt)
    assert tuple(l.shape) == tuple(t.shape) and str(l.dtype) == str(t.dtype), (l.shape, l.dtype, t.shape, t.dtype)

ERRORS = {
    'bernoulli_p_range': lambda m: m.bernoulli(m.tensor([1.5])), 'bernoulli_int': lambda m: m.bernoulli(m.zeros(3, dtype=m.int64)),
    'bernoulli__p': lambda m: m.zeros(3).bernoulli_(2.), 'poisson_neg': lambda m: m.poisson(-m.ones(3)),
    'poisson_int': lambda m: m.poisson(m.ones(3, dtype=m.int64)),
    'multinomial_int': lambda m: m.multinomial(m.ones(3, dtype=m.int64), 1), 'multinomial_3d': lambda m: m.multinomial(m.ones(2, 2, 2), 1),
    'multinomial_zero': lambda m: m.multinomial(m.ones(3), 0), 'multinomial_too_many': lambda m: m.multinomial(m.ones(3), 4),
    'multinomial_negative': lambda m: m.multinomial(m.tensor([1., -1.]), 1), 'multinomial_nan': lambda m: m.multinomial(m.tensor([1., float('nan')]), 1),
    'multinomial_sum0': lambda m: m.multinomial(m.zeros(3), 1, True),
    'normal_std_neg': lambda m: m.normal(m.zeros(2), -1.), 'normal_std_tensor': lambda m: m.normal(m.zeros(2), -m.ones(2)),
    'normal_shapes': lambda m: m.normal(m.zeros(2), m.ones(3)), 'normal_int': lambda m: m.normal(m.zeros(2, dtype=m.int64), 1.),
    'normal__std': lambda m: m.zeros(3).normal_(0, -1), 'normal__int': lambda m: m.zeros(3, dtype=m.int64).normal_(),
    'uniform__range': lambda m: m.zeros(3).uniform_(3, -1), 'uniform__int': lambda m: m.zeros(3, dtype=m.int64).uniform_(),
    'exponential__lambda': lambda m: m.zeros(3).exponential_(0), 'exponential__int': lambda m: m.zeros(3, dtype=m.int64).exponential_(),
    'geometric__p': lambda m: m.zeros(3).geometric_(1), 'log_normal__std': lambda m: m.zeros(3).log_normal_(1, 0),
    'cauchy__sigma': lambda m: m.zeros(3).cauchy_(0, 0), 'random__range': lambda m: m.zeros(3).random_(5, 2),
    'random__uint8': lambda m: m.zeros(3, dtype=m.uint8).random_(-1, 5), 'leaf': lambda m: m.zeros(3, requires_grad=True).uniform_(),
}

@pytest.mark.parametrize('name', ERRORS)
def test_errors_match_torch(name):
    check_same_error(ERRORS[name])

def test_error_messages():
    for fn, text in [(lambda: lt.zeros(3).uniform_(3, -1), 'uniform_ expects to return a [from, to) range, but found from=3 > to=-1'),
                     (lambda: lt.zeros(3).normal_(0, -1), 'normal expects std >= 0.0, but found std -1'),
                     (lambda: lt.multinomial(lt.ones(3), 4), 'cannot sample n_sample > prob_dist.size(-1) samples without replacement'),
                     (lambda: lt.zeros(3).geometric_(0), 'geometric_ expects p to be in (0, 1), but got p=0')]:
        with pytest.raises(RuntimeError) as e: fn()
        assert text in str(e.value)

# ---------------------------------------------------------------- autograd
def test_samples_have_zero_gradients_and_torchs_node_names():
    for m in (torch, lt):
        mu = m.tensor([1., 2.], requires_grad=True)
        sd = m.tensor([1., 3.], requires_grad=True)
        p = m.tensor([0.3, 0.6], requires_grad=True)
        outs = {'NormalBackward1': m.normal(mu, 1.), 'NormalBackward2': m.normal(0., sd), 'NormalBackward3': m.normal(mu, sd),
                'BernoulliBackward0': m.bernoulli(p), 'PoissonBackward0': m.poisson(sd)}
        for node, y in outs.items():
            name = type(y.grad_fn).__name__ if m is torch else y.grad_fn.name()
            assert name == node, (m, name, node)
        sum(y.sum() for y in outs.values()).backward()
        for t in (mu, sd, p): assert t.grad.tolist() == [0., 0.], m

def test_inplace_draws_on_a_graph():
    for m in (torch, lt):
        w = m.ones(3, requires_grad=True)
        names = []
        for fill in (lambda h: h.uniform_(), lambda h: h.normal_(), lambda h: h.exponential_(), lambda h: h.geometric_(0.5),
                     lambda h: h.log_normal_(), lambda h: h.cauchy_(), lambda h: h.random_(0, 3), lambda h: h.random_(3),
                     lambda h: h.random_(), lambda h: h.bernoulli_(0.5), lambda h: h.bernoulli_(m.full((3,), 0.5))):
            h = w * 2
            fill(h)
            names.append(type(h.grad_fn).__name__ if m is torch else h.grad_fn.name())
            (h * 3).sum().backward()
        assert w.grad.tolist() == [0., 0., 0.]
        if m is torch: want = names
        else: assert names == want
    with lt.no_grad(): lt.ones(2, requires_grad=True).normal_()   # a leaf may be filled without grad mode

def test_nn_init_fills_parameters_under_no_grad():
    lin = lt.nn.Linear(50, 40)
    assert lin.weight.requires_grad and lin.weight.grad_fn is None
    lt.nn.init.normal_(lin.weight, 0., 0.02)
    lt.nn.init.uniform_(lin.bias, -1, 1)
    assert lin.weight.grad_fn is None and abs(lin.weight.std().item() - 0.02) < 0.002
    assert -1 <= lin.bias.min().item() and lin.bias.max().item() < 1
