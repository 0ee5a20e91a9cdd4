"The main job, `examples/train_dates.py` (`make demo`): its data is deterministic and split, and a short run goes end to end."
import datetime, math, re, runpy
from pathlib import Path
import pytest

SCRIPT = Path(__file__).parents[1] / 'examples' / 'train_dates.py'

@pytest.fixture(scope='module')
def ex(): return runpy.run_path(str(SCRIPT))

def test_runs_on_lit_torch(ex):
    assert ex['torch'].__name__ == 'lit_torch'

def test_formats_write_one_date_many_ways(ex):
    d = datetime.date(2021, 3, 3)
    written = {name: f(d) for name, f in ex['FORMATS'].items()}
    for s in ['3 March 2021', 'March 3, 2021', '03/03/21', '3.3.2021', 'Wed, 3 Mar 2021', '2021 March 3rd']:
        assert s in written.values(), s
    assert ex['iso'](d) == '2021-03-03'
    assert [ex['_ordinal'](n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31)] == \
        ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '31st']
    # every string of every format reads back to its date: the day/month order is fixed per format
    for fmt in ex['FORMATS'].values():
        assert len({fmt(ex['FIRST'] + datetime.timedelta(i)) for i in range(0, 36524, 7)}) == len(range(0, 36524, 7))

def test_data_is_deterministic_and_held_out_is_disjoint(ex):
    train, test = ex['make_data'](3000, 300, seed=0)
    assert (train, test) == ex['make_data'](3000, 300, seed=0)
    assert (train, test) != ex['make_data'](3000, 300, seed=1)
    assert len(train) == 3000 and len(test) == 300
    assert not {t for _, t in train} & {t for _, t in test}           # no held-out day is trained on, in any format
    assert not {s for s, _ in train} & {s for s, _ in test}
    assert all(re.fullmatch(r'\d{4}-\d{2}-\d{2}', t) for _, t in train + test)
    assert all(c in ex['STOI'] for s, _ in train + test for c in s)

def test_vocabulary_padding_and_masks(ex):
    torch = ex['torch']
    s = 'Wed, 3 Mar 2021'
    assert ex['decode'](ex['encode'](s)) == s
    ds = ex['DatePairs']([(s, '2021-03-03'), ('3.3.2021', '2021-03-03')])
    src, tgt = ex['collate']([ds[0], ds[1]])
    assert tuple(src.shape) == (2, len(s)) and src.dtype == torch.int64
    assert src[1, 8:].tolist() == [ex['PAD']] * (len(s) - 8)
    assert tgt[:, 0].tolist() == [ex['BOS']] * 2 and tgt[:, -1].tolist() == [ex['EOS']] * 2
    src_pad, tgt_pad, causal = ex['masks'](src, tgt[:, :-1])
    assert src_pad.tolist()[1] == [False] * 8 + [True] * (len(s) - 8) and not tgt_pad.any()
    assert causal.tolist() == [[j > i for j in range(11)] for i in range(11)]

def test_short_run_end_to_end(ex, tmp_path):
    r = ex['main'](epochs=2, batch_size=32, d_model=32, nhead=2, num_layers=1, dim_feedforward=64, n_train=640,
                   n_test=40, eval_every=20, num_workers=2, quiet=True,
                   loss_plot=tmp_path / 'loss.png', attention_plot=tmp_path / 'attention.png')
    assert len(r['losses']) == 40 and all(math.isfinite(l) for l in r['losses'])
    assert r['losses'][-1] < r['losses'][0]
    assert [s for s, _ in r['evals']] == [20, 40] and 0 <= r['acc'] <= 1
    preds = r['preds']
    assert len(preds) == 40 and all(isinstance(p, str) and len(p) <= 11 for p in preds)
    assert (tmp_path / 'loss.png').stat().st_size > 0 and (tmp_path / 'attention.png').stat().st_size > 0
    out, w = ex['cross_attention'](r['model'], r['test'][0][0])
    assert w.shape == (2, len(out) + 1, len(r['test'][0][0]))
    assert abs(w.sum(-1) - 1).max() < 1e-5                          # each row is a distribution over source characters
