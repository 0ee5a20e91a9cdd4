"""Measure the book against issue 18's "Done when": short export cells, each followed by its check,
and in every chapter a generated picture and a visible comparison with PyTorch.

    python tools/book_stats.py           # one table, a row per notebook, then the totals
    python tools/book_stats.py --long    # also list every export cell over 40 lines
    python tools/book_stats.py --json    # the numbers as JSON
    python tools/book_stats.py --baseline  # write tests/book_baseline.json: the ratchet tests/test_book.py holds

It reads the notebooks as JSON and runs nothing, so it takes a second.
"""
import argparse, ast, json, re, statistics, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/'nbs'
LONG = 40    # the limit for one export cell
WINDOW = 3   # a check must come within this many cells after an export cell

EXPORT = re.compile(r'^\s*#\|\s*export(i|s)?\b', re.M)
DIRECTIVE = re.compile(r'^\s*#\|')
DOCSTRING = re.compile(r'''^\s*[rRuU]?("[^"]*"|'[^']*')\s*$''')  # a one-line docstring: prose, not code
HIDDEN = re.compile(r'^\s*#\|\s*(hide\b|include:\s*false|echo:\s*false)', re.M)
# A check is a cell that can fail, or that prints a comparison for the reader to see.
CHECK = re.compile(r'\bassert\b|\btest_\w*\(|\bassert_close\(|\bpytest\.raises\b'
                   r'|print\(.*(==|!=|<=|>=|<|>|allclose|isclose|array_equal|equal\(|\bmax\(|\bdiff)')
TORCH_IMPORT = re.compile(r'^\s*(import torch\b|from torch\b)', re.M)
# The guard that lets the comparison skip when PyTorch is not installed, in a form the reader can see.
TORCH_GUARD = re.compile(r"find_spec\(['\"]torch['\"]\)|except\s+(\(?\s*)?(ImportError|ModuleNotFoundError)"
                         r"|importorskip\(['\"]torch|\b_?(real_)?torch is (not )?None")


def src(cell): return ''.join(cell['source'])
def is_code(cell): return cell['cell_type'] == 'code'
def is_export(cell): return is_code(cell) and bool(EXPORT.search(src(cell)))


def code_lines(cell):
    "The lines of a cell that the reader reads as code: not its `#|` directives, blank lines or one-line docstrings."
    return [l for l in src(cell).splitlines() if l.strip() and not DIRECTIVE.match(l) and not DOCSTRING.match(l)]


def is_import_only(cell):
    "An export cell that only imports: it defines nothing, so there is nothing for a check to test."
    try: body = ast.parse('\n'.join(l for l in src(cell).splitlines() if not DIRECTIVE.match(l))).body
    except SyntaxError: return False
    return bool(body) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body)


def is_check(cell):
    "A code cell, not exported, that asserts, tests or prints a comparison."
    return is_code(cell) and not is_export(cell) and bool(CHECK.search(src(cell)))


def has_picture(cell):
    "A code cell whose saved output holds an image: a picture drawn by the notebook, not pasted."
    return is_code(cell) and any('image/png' in o.get('data', {}) or 'image/svg+xml' in o.get('data', {})
                                 for o in cell.get('outputs', []))


def compares_with_torch(cell):
    "A cell the reader sees that runs real PyTorch behind a guard, so that it skips when torch is absent."
    if not is_code(cell) or HIDDEN.search(src(cell)): return False
    s = src(cell)
    if 'lit_torch as torch' in s: return False
    return bool(TORCH_GUARD.search(s)) and (bool(TORCH_IMPORT.search(s)) or bool(re.search(r'\b_?(real_)?torch is (not )?None', s)))


def measure_notebook(path):
    "The numbers for one notebook."
    cells = json.loads(Path(path).read_text())['cells']
    exports, checked, imports, long = [], 0, 0, []
    for i, c in enumerate(cells):
        if not is_export(c): continue
        lines = code_lines(c)
        exports.append(len(lines))
        imports += is_import_only(c)
        if is_import_only(c) or any(is_check(d) for d in cells[i+1:i+1+WINDOW]): checked += 1
        if len(lines) > LONG: long.append({'lines': len(lines), 'first': lines[0][:70] if lines else ''})
    return {'exports': len(exports), 'lines': exports, 'checked': checked, 'imports': imports, 'long': long,
            'median': statistics.median(exports) if exports else 0, 'max': max(exports, default=0),
            'picture': any(has_picture(c) for c in cells),
            'torch': any(compares_with_torch(c) for c in cells)}


def measure(nbs=NBS):
    "Every chapter's numbers, by notebook name, and the totals over the book. index.ipynb is the home page, not a chapter."
    per = {p.stem: measure_notebook(p) for p in sorted(Path(nbs).glob('*.ipynb')) if p.stem != 'index'}
    lines = [n for m in per.values() for n in m['lines']]
    n_exp = sum(m['exports'] for m in per.values())
    total = {'notebooks': len(per), 'exports': n_exp, 'median': statistics.median(lines) if lines else 0,
             'max': max(lines, default=0), 'over_40': sum(len(m['long']) for m in per.values()),
             'checked': sum(m['checked'] for m in per.values()),
             'checked_share': round(sum(m['checked'] for m in per.values()) / n_exp, 3) if n_exp else 1.0,
             'imports': sum(m['imports'] for m in per.values()),
             'with_picture': sum(m['picture'] for m in per.values()),
             'with_torch': sum(m['torch'] for m in per.values())}
    total['definitions_checked_share'] = round((total['checked'] - total['imports']) / max(n_exp - total['imports'], 1), 3)
    return per, total


BASELINE = ROOT/'tests'/'book_baseline.json'

def baseline(per, total):
    "What the ratchet keeps: per notebook, the numbers that may only get better; and the book's totals."
    return {'total': {k: total[k] for k in ('median', 'checked_share', 'over_40')},
            'notebooks': {n: {'max': m['max'], 'over_40': len(m['long']), 'checked': m['checked'],
                              'exports': m['exports'], 'picture': m['picture'], 'torch': m['torch']}
                          for n, m in per.items()}}


def regressions(per, total, base):
    "How the book got worse than `base` (a `baseline`): a list of sentences, empty when nothing did."
    bad, bt = [], base['total']
    if total['median'] > bt['median']: bad.append(f"the median export cell grew from {bt['median']:g} to {total['median']:g} lines")
    if total['checked_share'] < bt['checked_share']:
        bad.append(f"the share of export cells followed by a check fell from {bt['checked_share']:.1%} to {total['checked_share']:.1%}")
    for n, m in per.items():
        b = base['notebooks'].get(n)
        if b is None:  # a new chapter starts at the bar for length
            if m['long']: bad.append(f"{n} (new) has export cells over {LONG} lines: " + '; '.join(c['first'] for c in m['long']))
            continue
        if len(m['long']) > b['over_40']: bad.append(f"{n}: {len(m['long'])} export cells over {LONG} lines, was {b['over_40']}")
        if m['max'] > max(b['max'], LONG): bad.append(f"{n}: its longest export cell grew from {b['max']} to {m['max']} lines")
        if m['exports'] - m['checked'] > b['exports'] - b['checked'] and (m['checked'] / max(m['exports'], 1)) < 0.9:
            bad.append(f"{n}: {m['exports'] - m['checked']} export cells without a check within {WINDOW} cells, was {b['exports'] - b['checked']}")
        if b['picture'] and not m['picture']: bad.append(f"{n} lost its generated picture")
        if b['torch'] and not m['torch']: bad.append(f"{n} lost its visible comparison with PyTorch")
    return bad


def yes(b): return 'yes' if b else '-'


def table(per, total):
    "The table as text: a row per notebook, then the totals."
    rows = [('notebook', 'exports', 'median', 'max', '>40', 'checked', 'picture', 'torch')]
    for name, m in per.items():
        share = f"{m['checked']}/{m['exports']}" if m['exports'] else '-'
        rows.append((name, str(m['exports']), f"{m['median']:g}", str(m['max']), str(len(m['long'])), share,
                     yes(m['picture']), yes(m['torch'])))
    rows.append(('TOTAL', str(total['exports']), f"{total['median']:g}", str(total['max']), str(total['over_40']),
                 f"{total['checked']}/{total['exports']} ({total['checked_share']:.0%})",
                 f"{total['with_picture']}/{total['notebooks']}", f"{total['with_torch']}/{total['notebooks']}"))
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    fmt = lambda r: '  '.join(c.ljust(w[0]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r))
    out = [fmt(rows[0]), '  '.join('-'*x for x in w)] + [fmt(r) for r in rows[1:-1]] + ['  '.join('-'*x for x in w), fmt(rows[-1])]
    out.append(f"Done when: median <= 15 (now {total['median']:g}), none over {LONG} (now {total['over_40']}), "
               f">= 90% checked within {WINDOW} cells (now {total['checked_share']:.0%}, counting the {total['imports']} import-only "
               f"export cells as needing none; {total['definitions_checked_share']:.0%} of the cells that define something), every chapter a picture "
               f"(now {total['with_picture']}/{total['notebooks']}) and a PyTorch comparison (now {total['with_torch']}/{total['notebooks']})")
    return '\n'.join(out)


def chapters(per):
    "Chapter by chapter (the notebooks that share a number, 03 with 03a-03k): does any page draw a picture, or compare with PyTorch?"
    ch = {}
    for name, m in per.items():
        c = ch.setdefault(name[:2], {'pages': 0, 'picture': False, 'torch': False})
        c['pages'] += 1; c['picture'] |= m['picture']; c['torch'] |= m['torch']
    return ch


def chapter_table(per):
    ch = chapters(per)
    rows = [f"{c}: {m['pages']} pages, picture {yes(m['picture'])}, torch {yes(m['torch'])}" for c, m in ch.items()]
    n = len(ch)
    rows.append(f"chapters with a picture: {sum(m['picture'] for m in ch.values())}/{n}; "
                f"with a PyTorch comparison: {sum(m['torch'] for m in ch.values())}/{n}")
    return '\n'.join(rows)


def long_cells(per):
    "Every export cell over the limit: notebook, length and first line."
    return '\n'.join(f"{name}: {c['lines']} lines: {c['first']}" for name, m in per.items() for c in m['long'])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--long', action='store_true', help=f'list the export cells over {LONG} lines')
    p.add_argument('--json', action='store_true', help='print the numbers as JSON')
    p.add_argument('--baseline', action='store_true', help=f'write {BASELINE.relative_to(ROOT)} from the book as it is')
    a = p.parse_args()
    per, total = measure()
    if a.baseline:
        BASELINE.write_text(json.dumps(baseline(per, total), indent=1) + '\n')
        return print(f"wrote {BASELINE.relative_to(ROOT)}: {total['median']:g} median, {total['checked_share']:.1%} checked, {total['over_40']} over {LONG}")
    if a.json: return print(json.dumps({'notebooks': per, 'total': total}, indent=1))
    print(table(per, total))
    print('\nChapters:\n' + chapter_table(per))
    if a.long: print(f"\nExport cells over {LONG} lines:\n" + long_cells(per))


if __name__ == '__main__': sys.exit(main())
