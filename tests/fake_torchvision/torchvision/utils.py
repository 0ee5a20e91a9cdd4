"save_image: checks its argument is an image batch and writes its values with NumPy (not a PNG)."
import numpy as np

__all__ = ['save_image']


def save_image(tensor, fp, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0, format=None):
    a = tensor.detach().cpu().numpy()
    if a.ndim not in (3, 4): raise ValueError(f"save_image expects a 3-d or 4-d tensor, got shape {tuple(a.shape)}")
    with open(fp, 'wb') as f: np.save(f, a)
