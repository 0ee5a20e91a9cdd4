"""The public methods of lit_torch's public classes that have no docstring, with the notebook that defines each.

    python tools/missing_docstrings.py [--all]

A method without a docstring renders, under show_doc, as whatever Python finds instead (for a Module's
`forward`, "Call self as a function."). The `forward`/`backward` of autograd `Function`s are left out
unless `--all`: they are the op's two halves, documented by the op's function.
"""
import importlib, inspect, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def owners():
    "Where each symbol is defined: 'module.Class.method' -> notebook, from nbdev's index (its page, named like the notebook less its prefix)."
    from lit_torch import _modidx
    nbs = {p.stem.split('_', 1)[1] if p.stem[:2].isdigit() else p.stem: p.name for p in (ROOT/'nbs').glob('*.ipynb')}
    page = lambda v: v[0].split('#')[0].removesuffix('.html')
    return {sym: nbs.get(page(v), page(v)) for mod in _modidx.d['syms'].values() for sym, v in mod.items()}


def missing(all_=False):
    "(qualified name, notebook) for each public method lacking a docstring."
    from lit_torch import _modidx
    from lit_torch.autograd.function import Function
    where, seen, out = owners(), set(), []
    for modname in sorted(_modidx.d['syms']):
        try: mod = importlib.import_module(modname)
        except Exception: continue
        for n in getattr(mod, '__all__', []):
            c = getattr(mod, n, None)
            if not inspect.isclass(c) or c.__module__ != modname or c in seen: continue
            seen.add(c)
            for k, v in vars(c).items():
                if k.startswith('_'): continue
                f = v.fget if isinstance(v, property) else getattr(v, '__func__', v)
                if not inspect.isfunction(f) or (f.__doc__ or '').strip(): continue
                if not all_ and issubclass(c, Function) and k in ('forward', 'backward', 'sample', 'jvp'): continue
                q = f'{modname}.{n}.{k}'
                out.append((q, where.get(q) or where.get(f'{modname}.{n}', '?')))
    return out


if __name__ == '__main__':
    sys.path.insert(0, str(ROOT))
    rows = missing('--all' in sys.argv)
    for q, nb in rows: print(f'{nb}\t{q}')
    print(f'{len(rows)} public methods without a docstring', file=sys.stderr)
