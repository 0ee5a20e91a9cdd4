"The examples train: the main job (`make demo`, the digits CNN) and the plain-tensor MLP."
import runpy
from pathlib import Path

def test_demo_learns():
    demo = runpy.run_path(str(Path(__file__).parents[1] / 'examples' / 'train_mlp.py'))
    assert demo['main'](steps=150) > 0.9

def test_digits_cnn_reaches_95_percent():
    demo = runpy.run_path(str(Path(__file__).parents[1] / 'examples' / 'train_digits_cnn.py'))
    acc, losses = demo['main'](plot=None)
    assert acc > 0.95 and losses[-1] < losses[0] / 10
