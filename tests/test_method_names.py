"""Methods attached to a class after its body (`Optimizer.zero_grad = ...`, `Module.modules = ...`) carry the
`__name__` and `__qualname__` torch's have: `help`, tracebacks and the docs show them."""
import importlib, inspect, pkgutil
import pytest
torch = pytest.importorskip('torch', reason='real torch (the oracle) is not installed')
import lit_torch
import lit_torch.nn.modules

PACKAGES = ['optim', 'nn.utils', 'nn.parallel']
MODULES = ['_C', 'storage', '_utils', 'serialization'] + [
    m.name[len('lit_torch.'):] for m in pkgutil.iter_modules(lit_torch.nn.modules.__path__, 'lit_torch.nn.modules.')]
# torch binds `Module.forward = _forward_unimplemented`; ours is written in the class body, named `forward`.
AS_WRITTEN = {'nn.modules.module.Module.forward'}

def _modules():
    for p in PACKAGES:
        pkg = importlib.import_module('lit_torch.' + p)
        yield p
        yield from (m.name[len('lit_torch.'):] for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'))
    yield from MODULES

def _methods():
    "(module, class name, attribute, function) for each public method of each public class torch also has."
    for mod in _modules():
        lm = importlib.import_module('lit_torch.' + mod)
        try: tm = importlib.import_module('torch.' + mod)
        except ImportError: continue
        for cname, cls in vars(lm).items():
            if cname.startswith('_') or not inspect.isclass(cls) or cls.__module__ != lm.__name__: continue
            if not inspect.isclass(getattr(tm, cname, None)): continue
            for k, v in vars(cls).items():
                f = getattr(v, '__func__', v)
                if inspect.isfunction(f) and not k.startswith('_'): yield mod, cname, k, f

CASES = list(_methods())

def test_the_scan_finds_the_methods():
    names = {(m, c, k) for m, c, k, _ in CASES}
    assert {('optim.optimizer', 'Optimizer', 'zero_grad'), ('nn.modules.rnn', 'RNNBase', 'flatten_parameters'),
            ('optim.lr_scheduler', 'LRScheduler', 'step'), ('nn.modules.module', 'Module', 'modules'),
            ('nn.modules.module', 'Module', 'register_module'), ('storage', 'UntypedStorage', 'clone'),
            ('nn.modules.linear', 'Linear', 'forward')} <= names

@pytest.mark.parametrize('mod,cname,name,f', CASES, ids=[f'{m}.{c}.{k}' for m, c, k, _ in CASES])
def test_attached_method_has_torchs_name(mod, cname, name, f):
    want = getattr(getattr(getattr(importlib.import_module('torch.' + mod), cname), name, None), '__name__', name)
    if f'{mod}.{cname}.{name}' in AS_WRITTEN: want = name
    assert f.__name__ == want
    assert f.__qualname__.endswith(f'{cname}.{name}'), f.__qualname__

def test_module_dunders_are_named_as_torchs():
    for k in ('__setattr__', '__getattr__', '__delattr__', '__repr__', '__dir__'):
        f = vars(lit_torch.nn.Module)[k]
        assert (f.__name__, f.__qualname__) == (k, f'Module.{k}')
    assert lit_torch.nn.Module.__call__.__qualname__ == 'Module._call_impl'   # torch's: Module._wrapped_call_impl

# Tensor's methods are torch's C methods, each named as its attribute (`torch.Tensor.subtract.__name__ == 'subtract'`).
def _tensor_methods():
    "(attribute, function) for each public Python function of lit_torch.Tensor that torch.Tensor also has."
    for k in dir(lit_torch.Tensor):
        if k.startswith('_') or not hasattr(torch.Tensor, k): continue
        v = inspect.getattr_static(lit_torch.Tensor, k)
        f = getattr(v, '__func__', v)
        if inspect.isfunction(f) and (f.__module__ or '').startswith('lit_torch'): yield k, f

TENSOR_CASES = list(_tensor_methods())

def test_the_scan_finds_tensor_methods():
    assert {'add_', 'subtract', 'view', 'clamp_', 'index_add_', 'share_memory_', 'stride'} <= {k for k, _ in TENSOR_CASES}

@pytest.mark.parametrize('name,f', TENSOR_CASES, ids=[k for k, _ in TENSOR_CASES])
def test_tensor_method_has_torchs_name(name, f):
    assert getattr(torch.Tensor, name).__name__ == name  # torch's C method is named as its attribute
    assert f.__name__ == name, f.__name__
    assert f.__qualname__.endswith(f'Tensor.{name}') or '.' not in f.__qualname__, f.__qualname__
