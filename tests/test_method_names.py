"Methods attached to a class after its body (`Optimizer.zero_grad = ...`) carry the `__name__` and `__qualname__` torch's have."
import importlib, inspect, pkgutil
import pytest
import torch
import lit_torch

PACKAGES = ['optim', 'nn.utils', 'nn.parallel']
MODULES = ['_C', 'nn.modules.rnn', 'nn.modules.batchnorm', 'nn.modules.instancenorm', 'nn.modules._functions']
SKIP = set()   # classes whose notebooks are not fixed yet

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
            ('optim.lr_scheduler', 'LRScheduler', 'step')} <= names

@pytest.mark.parametrize('mod,cname,name,f', CASES, ids=[f'{m}.{c}.{k}' for m, c, k, _ in CASES])
def test_attached_method_has_torchs_name(mod, cname, name, f):
    if f'{mod}.{cname}' in SKIP: pytest.skip('notebook owned by another helper this session')
    want = getattr(getattr(getattr(importlib.import_module('torch.' + mod), cname), name, None), '__name__', name)
    assert f.__name__ == want
    assert f.__qualname__.endswith(f'{cname}.{name}'), f.__qualname__

# Tensor's methods are torch's C methods, each named as its attribute (`torch.Tensor.subtract.__name__ == 'subtract'`).
TENSOR_SKIP = set()  # methods whose notebooks are not fixed yet

def _tensor_methods():
    "(attribute, function) for each public Python function of lit_torch.Tensor that torch.Tensor also has."
    for k in dir(lit_torch.Tensor):
        if k.startswith('_') or not hasattr(torch.Tensor, k): continue
        v = inspect.getattr_static(lit_torch.Tensor, k)
        f = getattr(v, '__func__', v)
        if inspect.isfunction(f) and (f.__module__ or '').startswith('lit_torch'): yield k, f

TENSOR_CASES = list(_tensor_methods())

def test_the_scan_finds_tensor_methods():
    assert {'add_', 'subtract', 'view', 'clamp_', 'index_add_', 'share_memory_'} <= {k for k, _ in TENSOR_CASES}

@pytest.mark.parametrize('name,f', TENSOR_CASES, ids=[k for k, _ in TENSOR_CASES])
def test_tensor_method_has_torchs_name(name, f):
    if name in TENSOR_SKIP: pytest.skip('notebook owned by another helper this session')
    assert getattr(torch.Tensor, name).__name__ == name  # torch's C method is named as its attribute
    assert f.__name__ == name, f.__name__
