"""``one_blas_thread``: one BLAS thread inside, the previous limits after the last block closes."""

import threading

import numpy as np
from threadpoolctl import threadpool_info

from hexeval_engine.runtime.blas_threads import one_blas_thread


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_one_thread_inside_and_the_previous_limits_after():
    before = _blas_threads()
    with one_blas_thread():
        assert _blas_threads() == {1}
    assert _blas_threads() == before


def test_overlapping_blocks_in_two_threads_keep_the_limit_until_the_last_closes():
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def other():
        with one_blas_thread():
            entered.set()
            release.wait(10)
            seen["other, after the first closed"] = _blas_threads()

    worker = threading.Thread(target=other)
    with one_blas_thread():
        worker.start()
        entered.wait(10)
    seen["first closed"] = _blas_threads()
    release.set()
    worker.join(10)
    assert seen == {"first closed": {1}, "other, after the first closed": {1}}
    # the other thread restored the limits; which threads see that is OpenBLAS's business (see the module)
    with one_blas_thread():
        assert _blas_threads() == {1}


def test_products_are_the_same_on_one_thread_as_on_several():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200_000, 26)) * 10 ** rng.uniform(-3, 3, 26)
    w = rng.normal(size=(26, 2))
    A = rng.normal(size=(600, 400))
    several = (X @ w, A @ A.T, X[:5000].T @ X[:5000])
    with one_blas_thread():
        single = (X @ w, A @ A.T, X[:5000].T @ X[:5000])
    assert all(np.array_equal(a, b) for a, b in zip(several, single))
