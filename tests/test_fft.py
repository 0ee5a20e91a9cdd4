"torch.fft against PyTorch: values, shapes, dtypes and gradients of every transform, for each norm, length and dim; float64 gradcheck."
import itertools
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch.autograd import gradcheck

def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == 'c': a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)

def _loss(lib, out, w):
    "A real loss with a random weight per output number (real and imaginary parts weighted apart)."
    if out.is_complex(): return (out.real * lib.tensor(w.real) + out.imag * lib.tensor(w.imag)).sum()
    return (out * lib.tensor(w)).sum()

def check(fn, arrays, atol=1e-5, grad=True):
    "fn(lib, *inputs) on both libraries: dtype, shape, values; then the gradients of a random real loss."
    rg = [grad and a.dtype.kind in 'fc' for a in arrays]
    t_in = [torch.tensor(a, requires_grad=r) for a, r in zip(arrays, rg)]
    l_in = [lt.tensor(a, requires_grad=r) for a, r in zip(arrays, rg)]
    t, l = fn(torch, *t_in), fn(lt, *l_in)
    assert str(l.dtype) == str(t.dtype), (l.dtype, t.dtype)
    assert tuple(l.shape) == tuple(t.shape)
    np.testing.assert_allclose(l.detach().numpy(), t.detach().resolve_conj().numpy(), atol=atol, rtol=1e-4)
    if not any(rg): return
    w = rand(tuple(t.shape), np.complex128 if t.is_complex() else np.float64, seed=7).astype(t.detach().resolve_conj().numpy().dtype)
    _loss(torch, t, w).backward(); _loss(lt, l, w).backward()
    for ti, li in zip(t_in, l_in):
        if ti.requires_grad:
            assert str(li.grad.dtype) == str(ti.grad.dtype)
            np.testing.assert_allclose(li.grad.numpy(), ti.grad.resolve_conj().numpy(), atol=atol * 10, rtol=1e-4)

NORMS = [None, 'backward', 'ortho', 'forward']
DTYPES = ['float32', 'float64', 'complex64', 'complex128']

@pytest.mark.parametrize('name', ['fft', 'ifft'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n,dim', [(None, -1), (5, -1), (12, 0), (None, 1)])
@pytest.mark.parametrize('norm', NORMS)
def test_c2c_1d(name, dtype, n, dim, norm):
    check(lambda lib, x: getattr(lib.fft, name)(x, n=n, dim=dim, norm=norm), [rand((6, 8), dtype)])

@pytest.mark.parametrize('name', ['fft2', 'ifft2', 'fftn', 'ifftn'])
@pytest.mark.parametrize('dtype', ['float32', 'complex64', 'complex128'])
@pytest.mark.parametrize('s,dim', [(None, None), ((3, 5), None), ((4, 7), (0, 2)), (None, (0, -1)), ((-1, 9), (1, 2))])
@pytest.mark.parametrize('norm', NORMS)
def test_c2c_nd(name, dtype, s, dim, norm):
    kw = dict(s=s, norm=norm)
    if dim is not None: kw['dim'] = dim
    check(lambda lib, x: getattr(lib.fft, name)(x, **kw), [rand((4, 6, 5), dtype, seed=1)])

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('n,dim', [(None, -1), (5, -1), (11, 0), (8, 1)])
@pytest.mark.parametrize('norm', NORMS)
def test_rfft_and_ihfft(dtype, n, dim, norm):
    x = [rand((6, 8), dtype, seed=2)]
    check(lambda lib, x: lib.fft.rfft(x, n=n, dim=dim, norm=norm), x)
    check(lambda lib, x: lib.fft.ihfft(x, n=n, dim=dim, norm=norm), x)

@pytest.mark.parametrize('dtype', ['complex64', 'complex128', 'float32'])
@pytest.mark.parametrize('n,dim', [(None, -1), (7, -1), (10, -1), (6, 0), (3, 1)])
@pytest.mark.parametrize('norm', NORMS)
def test_irfft_and_hfft(dtype, n, dim, norm):
    x = [rand((5, 6), dtype, seed=3)]
    check(lambda lib, x: lib.fft.irfft(x, n=n, dim=dim, norm=norm), x)
    check(lambda lib, x: lib.fft.hfft(x, n=n, dim=dim, norm=norm), x)

@pytest.mark.parametrize('name', ['rfft2', 'rfftn', 'ihfft2', 'ihfftn'])
@pytest.mark.parametrize('s,dim', [(None, None), ((4, 6), None), ((3, 7), (0, 2)), (None, (2, 0))])
@pytest.mark.parametrize('norm', NORMS)
def test_real_nd(name, s, dim, norm):
    kw = dict(s=s, norm=norm)
    if dim is not None: kw['dim'] = dim
    check(lambda lib, x: getattr(lib.fft, name)(x, **kw), [rand((4, 5, 6), 'float32', seed=4)])

@pytest.mark.parametrize('name', ['irfft2', 'irfftn', 'hfft2', 'hfftn'])
@pytest.mark.parametrize('s,dim', [(None, None), ((4, 6), None), ((3, 7), (0, 2)), ((5, 4), (2, 0))])
@pytest.mark.parametrize('norm', NORMS)
def test_c2r_nd(name, s, dim, norm):
    kw = dict(s=s, norm=norm)
    if dim is not None: kw['dim'] = dim
    check(lambda lib, x: getattr(lib.fft, name)(x, **kw), [rand((4, 5, 6), 'complex64', seed=5)])

def test_integer_input_takes_the_default_complex_dtype():
    a = np.arange(6).reshape(2, 3)
    check(lambda lib, x: lib.fft.fft(x), [a])
    check(lambda lib, x: lib.fft.rfft(x), [a])

@pytest.mark.parametrize('n,d', [(1, 1.0), (5, 0.1), (8, 2.0)])
def test_frequencies(n, d):
    for name in ('fftfreq', 'rfftfreq'):
        t, l = getattr(torch.fft, name)(n, d), getattr(lt.fft, name)(n, d)
        assert str(l.dtype) == str(t.dtype)
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-6)
    assert str(lt.fft.fftfreq(4, dtype=lt.float64).dtype) == 'torch.float64'

@pytest.mark.parametrize('dim', [None, 0, (1,), (0, 1)])
def test_shifts(dim):
    x = [rand((5, 6), 'float32', seed=6)]
    check(lambda lib, x: lib.fft.fftshift(x, dim=dim), x)
    check(lambda lib, x: lib.fft.ifftshift(x, dim=dim), x)

@pytest.mark.parametrize('call,exc', [
    (lambda lib: lib.fft.rfft(lib.tensor([1 + 1j, 2j])), RuntimeError),
    (lambda lib: lib.fft.fft(lib.ones(4), norm='bad'), RuntimeError),
    (lambda lib: lib.fft.fft(lib.ones(4), n=0), RuntimeError),
    (lambda lib: lib.fft.irfft(lib.ones(1, dtype=lib.complex64)), RuntimeError),
    (lambda lib: lib.fft.fftn(lib.ones(4, 4), dim=(0, 0)), RuntimeError),
    (lambda lib: lib.fft.fft(lib.ones(4), dim=1), IndexError),
])
def test_errors_match(call, exc):
    with pytest.raises(exc): call(torch)
    with pytest.raises(exc): call(lt)

def _as_real_fn(fn):
    "A complex function of complex inputs as a real function of real pairs, for gradcheck."
    def f(*pairs):
        out = fn(*[lt.view_as_complex(p) for p in pairs])
        return lt.view_as_real(out) if out.is_complex() else out
    return f

@pytest.mark.parametrize('fn', [
    lambda z: lt.fft.fft(z, n=7, norm='ortho'), lambda z: lt.fft.ifftn(z, s=(3, 4)), lambda z: lt.fft.irfft(z, n=9),
    lambda z: lt.fft.irfftn(z, s=(4, 6), norm='forward'), lambda z: lt.fft.hfft(z), lambda z: lt.fft.hfftn(z, s=(3, 5)),
    lambda z: lt.fft.fftshift(lt.fft.fft2(z)),
])
def test_gradcheck_complex_inputs(fn):
    z = lt.tensor(rand((3, 4, 2), np.float64, seed=8), requires_grad=True)
    assert gradcheck(_as_real_fn(fn), (z,))

@pytest.mark.parametrize('fn', [
    lambda x: lt.view_as_real(lt.fft.rfft(x, n=7)), lambda x: lt.view_as_real(lt.fft.rfftn(x, norm='ortho')),
    lambda x: lt.view_as_real(lt.fft.ihfft2(x, s=(2, 5))), lambda x: lt.fft.irfft(lt.fft.rfft(x) * lt.fft.rfft(x)),
])
def test_gradcheck_real_inputs(fn):
    x = lt.tensor(rand((3, 4), np.float64, seed=9), requires_grad=True)
    assert gradcheck(fn, (x,))

def test_double_backward_through_irfft():
    from lit_torch.autograd import gradgradcheck
    x = lt.tensor(rand((2, 4, 2), np.float64, seed=10), requires_grad=True)
    assert gradgradcheck(lambda p: lt.fft.irfft(lt.view_as_complex(p), n=6).pow(2), (x,))
