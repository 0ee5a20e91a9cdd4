"torch.special against PyTorch: every function's values and dtype on seeded random inputs, gradients where torch has them, float64 gradcheck."
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch.autograd import gradcheck

def _arr(seed, shape=(4, 5), low=-3, high=3, dtype=np.float64):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)

# name -> (domain low, high, differentiable)
UNARY = {
    'expit': (-5, 5, True), 'logit': (0.05, 0.95, True), 'exp2': (-3, 3, True), 'expm1': (-3, 3, True), 'log1p': (-0.9, 3, True),
    'erf': (-3, 3, True), 'erfc': (-3, 3, True), 'erfinv': (-0.95, 0.95, True), 'gammaln': (0.1, 6, True), 'digamma': (0.1, 6, True),
    'psi': (0.1, 6, True), 'i0': (-4, 4, True), 'sinc': (-3, 3, True), 'round': (-3, 3, True), 'entr': (0.05, 3, True),
    'ndtr': (-4, 4, True), 'log_ndtr': (-8, 4, True), 'erfcx': (-2, 5, True), 'ndtri': (0.02, 0.98, True), 'i0e': (-5, 5, True),
    'i1': (-5, 5, True), 'i1e': (-5, 5, True), 'spherical_bessel_j0': (-6, 6, False), 'bessel_j0': (-8, 8, False),
    'bessel_j1': (-8, 8, False), 'bessel_y0': (0.1, 8, False), 'bessel_y1': (0.1, 8, False), 'modified_bessel_i0': (-5, 5, False),
    'modified_bessel_i1': (-5, 5, False), 'modified_bessel_k0': (0.1, 5, False), 'modified_bessel_k1': (0.1, 5, False),
    'scaled_modified_bessel_k0': (0.1, 5, False), 'scaled_modified_bessel_k1': (0.1, 5, False), 'airy_ai': (-5, 3, False),
}

LOOSE = {'airy_ai', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1'}

@pytest.mark.parametrize('name', sorted(UNARY))
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_unary(name, dtype):
    low, high, diff = UNARY[name]
    a = _arr(hash(name) % 1000, low=low, high=high, dtype=dtype)
    t, l = torch.tensor(a, requires_grad=diff), lt.tensor(a, requires_grad=diff)
    to, lo = getattr(torch.special, name)(t), getattr(lt.special, name)(l)
    assert str(lo.dtype) == str(to.dtype) and lo.requires_grad == to.requires_grad
    tol = 1e-5 if dtype == np.float32 else 1e-10
    if name in LOOSE and dtype == np.float64: tol = 2e-6  # torch's float64 kernels: bessel_j0(5.5200781) is -1.6e-7 in torch, 1e-17 in scipy and mpmath
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=tol * 10, atol=tol)
    if diff:
        w = _arr(7, dtype=dtype)
        (to * torch.tensor(w)).sum().backward(); (lo * lt.tensor(w)).sum().backward()
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=tol * 100, atol=tol * 10)

@pytest.mark.parametrize('name', sorted(k for k, v in UNARY.items() if v[2] and k != 'round'))
def test_gradcheck(name):
    low, high, _ = UNARY[name]
    x = lt.tensor(_arr(3, (5,), low, high), requires_grad=True)
    assert gradcheck(getattr(lt.special, name), (x,))

def test_integer_inputs_compute_in_the_default_float():
    a = np.array([1, 2, 3])
    for name in ('expit', 'ndtr', 'entr', 'i0e', 'bessel_j0', 'erfcx'):
        assert str(getattr(lt.special, name)(lt.tensor(a)).dtype) == str(getattr(torch.special, name)(torch.tensor(a)).dtype)

def test_log_ndtr_far_tail():
    a = np.array([-40., -25., -19.9, -5., 0., 5., 30.])
    np.testing.assert_allclose(lt.special.log_ndtr(lt.tensor(a)).numpy(), torch.special.log_ndtr(torch.tensor(a)).numpy(), rtol=1e-9)

@pytest.mark.parametrize('name,args', [
    ('xlogy', (_arr(1), _arr(2, low=0.1, high=3))), ('xlog1py', (_arr(1), _arr(2, low=-0.9, high=3))),
    ('zeta', (_arr(3, low=1.5, high=4), _arr(4, low=0.5, high=3))), ('gammainc', (_arr(5, low=0.5, high=4), _arr(6, low=0.1, high=5))),
    ('gammaincc', (_arr(5, low=0.5, high=4), _arr(6, low=0.1, high=5))),
])
def test_binary(name, args):
    grads = (name in ('xlogy', 'xlog1py'), True)
    t_in = [torch.tensor(a, requires_grad=g) for a, g in zip(args, grads)]
    l_in = [lt.tensor(a, requires_grad=g) for a, g in zip(args, grads)]
    to, lo = getattr(torch.special, name)(*t_in), getattr(lt.special, name)(*l_in)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-9)
    to.sum().backward(); lo.sum().backward()
    for t, l in zip(t_in, l_in):
        if t.requires_grad: np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-10)
    assert gradcheck(lambda b: getattr(lt.special, name)(lt.tensor(args[0]), b), (lt.tensor(args[1], requires_grad=True),))

def test_xlog1py_zero_and_scalars():
    x, y = np.array([0., 0., 2.]), np.array([-1., np.nan, 1.])
    np.testing.assert_allclose(lt.special.xlog1py(lt.tensor(x), lt.tensor(y)).numpy(), torch.special.xlog1py(torch.tensor(x), torch.tensor(y)).numpy())
    assert lt.special.xlog1py(2., lt.tensor([1.])).item() == pytest.approx(torch.special.xlog1py(2., torch.tensor([1.])).item())

@pytest.mark.parametrize('name', ['gammainc', 'gammaincc', 'zeta'])
def test_first_argument_gradient_is_not_implemented(name):
    for lib in (torch, lt):
        a = lib.tensor([2.], requires_grad=True)
        with pytest.raises(RuntimeError, match='not implemented'): getattr(lib.special, name)(a, lib.tensor([1.5])).sum().backward()

POLYS = ['chebyshev_polynomial_t', 'chebyshev_polynomial_u', 'chebyshev_polynomial_v', 'chebyshev_polynomial_w',
         'shifted_chebyshev_polynomial_t', 'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v',
         'shifted_chebyshev_polynomial_w', 'hermite_polynomial_h', 'hermite_polynomial_he', 'laguerre_polynomial_l',
         'legendre_polynomial_p']

@pytest.mark.parametrize('name', POLYS)
def test_polynomials(name):
    x = _arr(11, (3, 7), -1, 1) if 'shifted' not in name else _arr(11, (3, 7), 0, 1)
    n = np.array([0, 1, 2, 3, 5, 6, -1])
    tr, lr = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)), getattr(lt.special, name)(lt.tensor(x), lt.tensor(n))
    assert str(lr.dtype) == str(tr.dtype)
    np.testing.assert_allclose(lr.numpy(), tr.numpy(), rtol=1e-9, atol=1e-9)
    ts, ls = getattr(torch.special, name)(torch.tensor(x, dtype=torch.float32), 4), getattr(lt.special, name)(lt.tensor(x, dtype=lt.float32), 4)
    assert str(ls.dtype) == str(ts.dtype)
    np.testing.assert_allclose(ls.numpy(), ts.numpy(), rtol=1e-5, atol=1e-5)

@pytest.mark.parametrize('name,args', [('polygamma', (2,)), ('multigammaln', (3,)), ('logsumexp', (1,)), ('softmax', (0,)),
                                       ('log_softmax', (1,))])
def test_with_arguments(name, args):
    a = _arr(12, low=1.5, high=4)
    t, l = torch.tensor(a, requires_grad=True), lt.tensor(a, requires_grad=True)
    f = (lambda lib, x: getattr(lib.special, name)(args[0], x)) if name == 'polygamma' else (lambda lib, x: getattr(lib.special, name)(x, *args))
    to, lo = f(torch, t), f(lt, l)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-9)
    w = _arr(13, tuple(to.shape))
    (to * torch.tensor(w)).sum().backward(); (lo * lt.tensor(w)).sum().backward()
    np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-7)

def test_round_decimals_and_logit_eps():
    a = _arr(14)
    np.testing.assert_allclose(lt.special.round(lt.tensor(a), decimals=2).numpy(), torch.special.round(torch.tensor(a), decimals=2).numpy())
    p = np.array([0., 0.3, 1.])
    np.testing.assert_allclose(lt.special.logit(lt.tensor(p), eps=1e-3).numpy(), torch.special.logit(torch.tensor(p), eps=1e-3).numpy())

def test_every_torch_special_function_exists():
    missing = [n for n in torch.special.__all__ if not hasattr(lt.special, n)]
    assert not missing, missing

def test_missing_scipy_says_how_to_install(monkeypatch):
    import builtins
    real_import = builtins.__import__
    def no_scipy(name, *args, **kwargs):
        if name.startswith('scipy'): raise ImportError('No module named scipy')
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, '__import__', no_scipy)
    with pytest.raises(ImportError, match=r'pip install lit_torch\[special\]'): lt.special.bessel_j0(lt.tensor([1.]))
    lt.special.ndtr(lt.tensor([1.]))  # the NumPy ones still work
