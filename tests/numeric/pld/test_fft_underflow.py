"""Tilted FFT convolution: every per-entry error bound holds where the tilt weight underflows (issue #10 item 9).

Reference: the exact convolution of the float inputs in mpmath (60 digits), not the code's own direct path.
"""

import mpmath as mp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verialloc.numeric.pld.compose import _fft_run


def exact_convolution(x, y):
    with mp.workdps(60):
        xs, ys = [mp.mpf(float(v)) for v in x], [mp.mpf(float(v)) for v in y]
        return [
            mp.fsum(xs[i] * ys[s - i] for i in range(max(0, s - len(ys) + 1), min(s, len(xs) - 1) + 1))
            for s in range(len(xs) + len(ys) - 1)
        ]


@settings(max_examples=30)
@given(n=st.integers(8, 40), decay=st.floats(5.0, 40.0), theta=st.floats(1.0, 40.0), seed=st.integers(0, 2**16))
def test_every_entry_is_within_its_bound_even_when_the_weight_underflows(n, decay, theta, seed):
    rng = np.random.default_rng(seed)
    x = np.exp(-decay * np.arange(n) + rng.uniform(-1, 0, n))
    y = np.exp(-decay * np.arange(n) + rng.uniform(-1, 0, n))
    size = 1 << int(np.ceil(np.log2(2 * n - 1)))
    c, err = _fft_run(x, y, size, theta)
    with mp.workdps(60):
        for s, ref in enumerate(exact_convolution(x, y)):
            assert abs(mp.mpf(float(c[s])) - ref) <= mp.mpf(float(err[s])), (s, c[s], err[s], ref)
