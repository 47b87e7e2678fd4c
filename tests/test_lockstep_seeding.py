"""Lockstep searches start from the global RNG states that seeding a fresh generator with their seed gives."""

from __future__ import annotations

import random

import numpy as np

from hexeval_engine.runtime.lockstep import run_lockstep


def test_searches_start_from_fresh_generators_whatever_the_global_state_held():
    """Seeds beyond 32 bits, and global generators left holding a cached Gaussian (numpy's and Python's)."""
    def search(predict):
        first = (np.random.standard_normal(), random.gauss(0.0, 1.0), np.random.random(), random.random())
        predict(np.zeros((1, 1)))
        return first, (np.random.standard_normal(), random.gauss(0.0, 1.0))

    seeds = [0, 1, 42, 2**32 - 1, 2**32 + 5, 2**40 + 123, 987654321]
    np.random.seed(3)
    random.seed(3)
    np.random.standard_normal()  # numpy now holds the second Gaussian of a pair
    random.gauss(0.0, 1.0)       # and so does Python's generator
    held = (np.random.get_state(), random.getstate())
    results = run_lockstep([search] * len(seeds), seeds, lambda M: M[:, 0], max_together=3)
    for seed, (first, second) in zip(seeds, results):
        np_alone, py_alone = np.random.RandomState(seed % (2**32)), random.Random(seed)
        assert first == (np_alone.standard_normal(), py_alone.gauss(0.0, 1.0), np_alone.random_sample(),
                         py_alone.random())
        assert second == (np_alone.standard_normal(), py_alone.gauss(0.0, 1.0))
    after_np, after_py = np.random.get_state(), random.getstate()  # the caller's states come back
    assert np.array_equal(after_np[1], held[0][1]) and after_np[2:] == held[0][2:] and after_py == held[1]


def test_each_search_draws_what_a_generator_seeded_alone_draws():
    def search(predict):
        first = (np.random.random(3).tolist(), random.random())
        predict(np.zeros((2, 1)))
        return first, (np.random.random(2).tolist(), random.random())

    seeds = [7, 2**33 + 1, 7]
    results = run_lockstep([search] * 3, seeds, lambda M: M[:, 0])
    for seed, (first, second) in zip(seeds, results):
        np_alone, py_alone = np.random.RandomState(seed % (2**32)), random.Random(seed)
        assert first == (np_alone.random_sample(3).tolist(), py_alone.random())
        assert second == (np_alone.random_sample(2).tolist(), py_alone.random())
