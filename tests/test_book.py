"""The book's shape, held by a ratchet: no chapter may get worse than tests/book_baseline.json (issue 18's measures).

After an improvement, `make book-baseline` writes the new numbers so that they are kept from then on."""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT/'tools'))
import book_stats


def test_measures_what_it_claims(tmp_path):
    "The measure on a made-up notebook: one 41-line export cell with a check after it, one short one without, a picture."
    code = lambda s, outputs=(): {'cell_type': 'code', 'source': s, 'outputs': list(outputs), 'metadata': {}}
    md = lambda s: {'cell_type': 'markdown', 'source': s, 'metadata': {}}
    cells = [code('#| export\n' + 'x = 1\n' * 41), md('prose'), code('test_eq(x, 1)'),
             code('#| export\ny = 2'), md('a'), md('b'), md('c'), code('assert y == 2'),
             code('plot()', [{'output_type': 'display_data', 'data': {'image/png': 'iVBOR'}}]),
             code("import importlib.util\nif importlib.util.find_spec('torch') is None: print('skipped')\nelse:\n    import torch")]
    (tmp_path/'01_x.ipynb').write_text(json.dumps({'cells': cells}))
    per, total = book_stats.measure(tmp_path)
    m = per['01_x']
    assert (m['exports'], m['lines'], m['checked'], m['max'], len(m['long'])) == (2, [41, 1], 1, 41, 1)
    assert m['picture'] and m['torch']
    assert book_stats.regressions(per, total, book_stats.baseline(per, total)) == []
    worse = book_stats.baseline(per, total); worse['notebooks']['01_x'].update(max=20, over_40=0, picture=True)
    assert len(book_stats.regressions(per, total, worse)) == 2


def test_no_chapter_got_worse():
    per, total = book_stats.measure()
    base = json.loads(book_stats.BASELINE.read_text())
    bad = book_stats.regressions(per, total, base)
    assert not bad, 'The book got worse than tests/book_baseline.json:\n' + '\n'.join(bad)


def test_an_import_cell_needs_no_check(tmp_path):
    "An export cell that only imports defines nothing: it counts as checked; a definition without a check does not."
    code = lambda s: {'cell_type': 'code', 'source': s, 'outputs': [], 'metadata': {}}
    cells = [code('#| export\nimport math\nfrom os import path'), code('#| export\ndef f(): return 1')]
    (tmp_path/'01_x.ipynb').write_text(json.dumps({'cells': cells}))
    per, total = book_stats.measure(tmp_path)
    assert (per['01_x']['checked'], per['01_x']['imports'], total['definitions_checked_share']) == (1, 1, 0.0)
