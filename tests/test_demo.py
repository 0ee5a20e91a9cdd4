"The main job (`make demo`) trains: a short run of the same code must learn the spirals."
import runpy
from pathlib import Path

def test_demo_learns():
    demo = runpy.run_path(str(Path(__file__).parents[1] / 'examples' / 'train_mlp.py'))
    assert demo['main'](steps=150) > 0.9
