"Complex tensors against PyTorch: dtypes and promotion, printing, views, and gradients under torch's conjugate-Wirtinger convention."
import numpy as np
import pytest
import torch
import lit_torch as lt
from lit_torch.autograd import gradcheck

def crand(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

def test_dtype_names_and_flags():
    assert lt.cfloat is lt.complex64 and lt.cdouble is lt.complex128
    for name in ('complex64', 'complex128', 'float32', 'int64'):
        t, l = getattr(torch, name), getattr(lt, name)
        assert (l.is_complex, l.is_floating_point, l.is_signed, l.itemsize) == (t.is_complex, t.is_floating_point, t.is_signed, t.itemsize)
        assert repr(l) == repr(t)

@pytest.mark.parametrize('a,b', [('float32', 'complex64'), ('float64', 'complex64'), ('int64', 'complex64'), ('complex64', 'complex128'),
                                 ('bool', 'complex128'), ('float16', 'complex64')])
def test_promote_types(a, b):
    assert repr(lt.promote_types(getattr(lt, a), getattr(lt, b))) == repr(torch.promote_types(getattr(torch, a), getattr(torch, b)))

@pytest.mark.parametrize('make', [
    lambda lib: lib.ones(2) * 1j, lambda lib: lib.ones(2, dtype=lib.float64) * 1j, lambda lib: lib.arange(3) * (1 + 2j),
    lambda lib: lib.ones(2) + lib.tensor(1j, dtype=lib.complex128), lambda lib: lib.ones(2, dtype=lib.float64) + lib.tensor(1j),
    lambda lib: lib.tensor([1 + 2j]), lambda lib: lib.tensor(3j), lambda lib: lib.arange(2) + lib.tensor([1j], dtype=lib.complex128),
])
def test_result_dtypes(make):
    t, l = make(torch), make(lt)
    assert repr(l.dtype) == repr(t.dtype)
    np.testing.assert_allclose(l.numpy(), t.numpy())

@pytest.mark.parametrize('values,dtype', [([1 + 2j, 3.5 - 1j], 'complex64'), ([[1 + 2j, -3j], [0.5, 2]], 'complex128'), ([0j], 'complex64'),
                                          ([1e-5 + 1e5j, 2 + 0j], 'complex64'), ([1.25 - 0.5j], 'complex128')])
def test_repr(values, dtype):
    assert repr(lt.tensor(values, dtype=getattr(lt, dtype))) == repr(torch.tensor(values, dtype=getattr(torch, dtype)))

def test_numpy_and_item():
    a = crand((2, 3), np.complex64)
    l = lt.tensor(a)
    assert l.numpy().dtype == np.complex64 and np.array_equal(l.numpy(), a)
    assert lt.tensor(1 + 2j).item() == torch.tensor(1 + 2j).item()
    assert lt.tensor(a).tolist() == torch.tensor(a).tolist()

def test_real_imag_are_views():
    a = crand((3,), np.complex64)
    l, t = lt.tensor(a), torch.tensor(a)
    l.real.mul_(2); t.real.mul_(2)
    l.imag[1] = 5; t.imag[1] = 5
    np.testing.assert_allclose(l.numpy(), t.numpy())
    l.imag = lt.zeros(3); t.imag = torch.zeros(3)
    np.testing.assert_allclose(l.numpy(), t.numpy())
    x = lt.randn(3)
    assert x.real is x
    with pytest.raises(RuntimeError): x.imag
    with pytest.raises(RuntimeError): torch.randn(3).imag

def test_view_as_real_and_complex():
    a = crand((2, 3), np.complex64)
    l, t = lt.view_as_real(lt.tensor(a)), torch.view_as_real(torch.tensor(a))
    assert tuple(l.shape) == tuple(t.shape) and repr(l.dtype) == repr(t.dtype)
    np.testing.assert_array_equal(l.numpy(), t.numpy())
    np.testing.assert_array_equal(lt.view_as_complex(l).numpy(), a)
    for bad in (lambda lib: lib.view_as_complex(lib.ones(2, 3)), lambda lib: lib.view_as_complex(lib.ones(2, 2).t()),
                lambda lib: lib.view_as_complex(lib.ones(2, 2, dtype=lib.int64)), lambda lib: lib.view_as_real(lib.ones(2))):
        with pytest.raises(RuntimeError): bad(torch)
        with pytest.raises(RuntimeError): bad(lt)

def test_conj_family():
    a = crand((4,), np.complex128)
    for name in ('conj', 'conj_physical', 'resolve_conj', 'resolve_neg'):
        np.testing.assert_array_equal(getattr(lt, name)(lt.tensor(a)).numpy(), getattr(torch, name)(torch.tensor(a)).resolve_conj().numpy())
    x = lt.randn(3)
    assert lt.conj(x) is x and not lt.is_conj(x) and lt.is_complex(lt.tensor(a)) and not x.is_complex()
    l = lt.tensor(a); l.conj_physical_()
    np.testing.assert_array_equal(l.numpy(), np.conj(a))

def test_complex_and_polar_values():
    rng = np.random.default_rng(1)
    re, im = rng.standard_normal(4), rng.standard_normal(4)
    for f in ('complex', 'polar'):
        t, l = getattr(torch, f)(torch.tensor(re), torch.tensor(im)), getattr(lt, f)(lt.tensor(re), lt.tensor(im))
        assert repr(l.dtype) == repr(t.dtype)
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError): torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64))
    with pytest.raises(RuntimeError): lt.complex(lt.ones(2), lt.ones(2, dtype=lt.float64))

def _grads(fn, arrays):
    "Gradients of the real `fn(lib, *inputs)` (summed with random weights) in both libraries."
    out = []
    for lib in (torch, lt):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = fn(lib, *xs)
        w = np.random.default_rng(5).standard_normal(tuple(y.shape))
        (y * lib.tensor(w)).sum().backward()
        out.append([x.grad.resolve_conj().numpy() if lib is torch else x.grad.numpy() for x in xs])
    return out

@pytest.mark.parametrize('fn,kinds', [
    (lambda lib, z: z.real, 'c'), (lambda lib, z: z.imag, 'c'), (lambda lib, z: z.abs(), 'c'), (lambda lib, z: z.angle(), 'c'),
    (lambda lib, z: lib.view_as_real(z), 'c'), (lambda lib, a, b: lib.complex(a, b).abs(), 'rr'),
    (lambda lib, r, t: lib.view_as_real(lib.polar(r, t)), 'rr'), (lambda lib, z, w: (z * w).real, 'cc'),
    (lambda lib, z, w: (z + w).imag, 'cc'), (lambda lib, z, x: (z * x).abs(), 'cr'), (lambda lib, z, w: (z / w).real, 'cc'),
    (lambda lib, z: z.exp().imag, 'c'), (lambda lib, z: (z * z.conj()).real, 'c'), (lambda lib, z: (z * 2j).sum().real, 'c'),
    (lambda lib, z: (z.sum() * z).abs(), 'c'), (lambda lib, z: lib.view_as_real(z.conj().resolve_conj()), 'c'),
])
def test_gradients_match_torch(fn, kinds):
    arrays = [crand((3,), seed=i) if k == 'c' else np.abs(np.random.default_rng(i).standard_normal(3)) + 0.1 for i, k in enumerate(kinds)]
    t, l = _grads(fn, arrays)
    for a, b in zip(l, t):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)

def test_gradcheck_through_pairs():
    "A complex function as a real function of (real, imag) pairs: finite differences agree with the convention."
    p = lt.tensor(np.random.default_rng(3).standard_normal((3, 2)), requires_grad=True)
    for f in (lambda z: z.abs(), lambda z: z.angle(), lambda z: lt.view_as_real(z * z), lambda z: lt.view_as_real(z.exp() / (z + 3)),
              lambda z: lt.view_as_real(lt.polar(z.abs(), z.angle() * 2))):
        assert gradcheck(lambda q: f(lt.view_as_complex(q)), (p,))

def test_backward_needs_a_real_scalar():
    z = lt.tensor([1j], requires_grad=True)
    with pytest.raises(RuntimeError, match='real scalar'): z.sum().backward()
    with pytest.raises(RuntimeError, match='real scalar'): torch.tensor([1j], requires_grad=True).sum().backward()
    with pytest.raises(RuntimeError): lt.tensor([1, 2]).requires_grad_()
