"""Lockstep searches start from the global RNG states that seeding a fresh generator with their seed gives."""

from __future__ import annotations

import random

import numpy as np

from hexeval_engine.explainers.lockstep import _Seeder, run_lockstep


def test_reused_generators_give_the_states_of_fresh_ones():
    seeder = _Seeder()
    for seed in (0, 1, 42, 2**32 - 1, 2**32 + 5, 2**40 + 123, 987654321):
        np_state, py_state = seeder.states(seed)
        fresh = np.random.RandomState(seed % (2**32)).get_state()
        assert np_state[0] == fresh[0] and np.array_equal(np_state[1], fresh[1]) and np_state[2:] == fresh[2:]
        assert py_state == random.Random(seed).getstate()


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
