"""DiCE's random-sampling search, with array bookkeeping instead of pandas cell writes.

DiCE's ``random`` method (Mothilal, Sharma & Tan, "Explaining machine learning classifiers through
diverse counterfactual explanations", FAT* 2020; ``dice_ml`` 0.12,
``DiceRandom._generate_counterfactuals``) draws ``sample_size`` random rows once, then grows
``sample_size`` copies of the query: in round ``n`` every copy takes one more randomly chosen
feature from its random row, the copies the model puts in the target class join the pool
(duplicates dropped, first occurrence kept), and the search stops once at least two rounds have
run and the pool holds ``total_CFs`` rows; ``total_CFs`` of them are then drawn at random.

The library writes the chosen cells one by one with ``DataFrame.at`` (tens of thousands of pandas
calls per instance). :func:`random_search` runs the same algorithm for HEXEval's call
(``desired_class="opposite"``, no post-hoc sparsity, a binary classifier) with a boolean matrix
recording which cells come from the random row. Everything else is the library's own code or
draws: its validation, ``setup`` (ranges), ``misc_init`` (target class, stopping threshold),
``get_samples`` (random rows, seeding Python's and numpy's RNG), then numpy's global
``random.choice`` per round and pandas' ``sample`` at the end, in the library's order, so the
counterfactual frame is the library's, value for value and row for row
(``tests/test_dice_random.py``). The library's per-value rounding of its random draws is done on the whole array
(:func:`continuous_samples`, the same values).

Public interface
----------------
``unsupported_reason(dice) -> str | None``   why the library's search must be used instead (None: ours applies)
``random_search(dice, query, ...) -> DataFrame``  the counterfactual frame (feature columns) DiCE would return
"""

from __future__ import annotations

import functools
import inspect
import types
from importlib import metadata
from typing import Callable

import numpy as np
import pandas as pd

#: dice-ml versions whose ``DiceRandom._generate_counterfactuals`` this module reproduces.
KNOWN_VERSIONS = ("0.12",)
#: Library methods the search calls (its own code, never copied here).
LIBRARY_METHODS = ("_validate_counterfactual_configuration", "setup", "misc_init", "get_samples",
                   "_check_any_counterfactuals_computed")


def unsupported_reason(dice) -> str | None:
    """Why :func:`random_search` cannot stand in for ``dice``'s search, or ``None`` when it can."""
    version = _installed_version()
    if version is None:
        return "the installed DiCE package has no version record"
    if version not in KNOWN_VERSIONS:
        return (f"DiCE {version} is installed and its random search was reproduced for version "
                f"{', '.join(KNOWN_VERSIONS)} only")
    if type(dice).__name__ != "DiceRandom":
        return f"the DiCE method in use is {type(dice).__name__}, not random sampling"
    missing = [name for name in LIBRARY_METHODS if not callable(getattr(dice, name, None))]
    if missing:
        return f"DiCE's explainer lacks {', '.join(missing)}"
    defaults = _search_defaults(dice)
    if defaults is None:
        return "DiCE's random search no longer has the expected sample size and stopping threshold settings"
    if dice.model.transformer.func is not None:
        return "DiCE was given a model transformation, which HEXEval does not use"
    return None


@functools.lru_cache(maxsize=1)
def _installed_version() -> str | None:
    try:
        return metadata.version("dice-ml")
    except metadata.PackageNotFoundError:
        return None


def _search_defaults(dice) -> tuple[int, float] | None:
    """``(sample_size, stopping_threshold)`` defaults of the library's search, if it still has them."""
    params = inspect.signature(type(dice)._generate_counterfactuals).parameters
    try:
        return int(params["sample_size"].default), float(params["stopping_threshold"].default)
    except (KeyError, TypeError, ValueError):
        return None


def random_search(dice, query: pd.DataFrame, *, total_CFs: int, features_to_vary: list[str],
                  permitted_range: dict, random_seed: int, encode: Callable[[pd.DataFrame], np.ndarray],
                  positive: Callable[[np.ndarray], np.ndarray]) -> pd.DataFrame:
    """Counterfactuals ``dice.generate_counterfactuals`` would find for one query (method ``random``).

    Parameters
    ----------
    dice : dice_ml.explainer_interfaces.dice_random.DiceRandom
        A fresh library explainer (its data interface and model interface are used as is).
    query : pandas.DataFrame
        One row, columns in DiCE's feature order, categorical values as text.
    total_CFs, features_to_vary, permitted_range, random_seed
        As for ``generate_counterfactuals`` (``desired_class="opposite"``, ``posthoc_sparsity_param=None``).
    encode : callable
        Raw DiCE frame -> coded matrix (what the DiCE model interface does before predicting).
    positive : callable
        Coded rows -> probability of class 1 (the pooled model call).

    Returns
    -------
    pandas.DataFrame
        The library's ``final_cfs_df`` without its outcome column: feature columns in the data
        interface's order, the query's dtypes, index ``0..k-1``.

    Raises
    ------
    raiutils.exceptions.UserConfigValidationException
        What the library raises for the same call, including when it finds no counterfactual.
    """
    sample_size, stopping_threshold = _search_defaults(dice)
    data_interface = dice.data_interface
    dice._validate_counterfactual_configuration(
        query_instances=query, total_CFs=total_CFs, desired_class="opposite", desired_range=None,
        permitted_range=permitted_range, features_to_vary=features_to_vary,
        stopping_threshold=stopping_threshold, posthoc_sparsity_param=None,
        posthoc_sparsity_algorithm="linear", verbose=False)
    data_interface.set_continuous_feature_indexes(query)
    varied = dice.setup(features_to_vary, permitted_range, query, feature_weights=None)
    fixed = {f: query[f].iat[0] for f in data_interface.feature_names if f not in varied}

    # The library asks the model about the query, then about every round's candidates; its last call
    # (scoring the final rows for an outcome column HEXEval drops) is not made.
    p_query = float(np.asarray(positive(encode(query)), dtype=float).ravel()[0])
    dice.num_output_nodes = 2
    dice.misc_init(stopping_threshold, "opposite", None, np.array([1.0 - p_query, p_query]))
    target, threshold = int(np.asarray(dice.target_cf_class).ravel()[0]), dice.stopping_threshold

    dice.get_continuous_samples = continuous_samples  # the library's draws, rounded as one array (see there)
    random_rows = dice.get_samples(fixed, dice.feature_range, sampling_random_seed=random_seed,
                                   sampling_size=sample_size)
    columns = list(query.columns)
    random_rows = random_rows[columns]
    query_coded, random_coded = encode(query)[0], encode(random_rows)
    query_ids, random_ids, by_id = _value_ids(query, random_rows)
    column_of = np.array([columns.index(f) for f in varied])

    from_random = np.zeros((sample_size, len(columns)), dtype=bool)
    every_row = np.arange(sample_size)
    found = None                       # value ids of the pool, in the library's order
    for rounds in range(1, len(varied) + 1):
        # the library's np.random.choice(features_to_vary, ...): the same draw, as positions
        chosen = np.random.choice(len(varied), (sample_size, 1), replace=True)[:, 0]
        from_random[every_row, column_of[chosen]] = True
        p1 = np.asarray(positive(np.where(from_random, random_coded, query_coded)), dtype=float).ravel()
        valid = (p1 <= threshold) if target == 0 else (p1 >= threshold)  # decide_cf_validity, binary case
        if valid.any():
            rows = np.where(from_random[valid], random_ids[valid], query_ids)
            found = rows if found is None else np.vstack([found, rows])
            found = _first_occurrences(found)
            if rounds >= 2 and len(found) >= total_CFs:
                break

    if found is None:  # the library's own "no counterfactuals found" error
        dice._check_any_counterfactuals_computed(cf_examples_arr=[types.SimpleNamespace(final_cfs_df=None)])
        raise RuntimeError("DiCE found no counterfactual but raised no error.")
    if len(found) > total_CFs:  # the library's cfs_df.sample(total_CFs): numpy's global RNG, same draw
        found = found[pd.Series(np.arange(len(found))).sample(total_CFs).to_numpy()]
    values = np.empty(found.shape, dtype=object)
    for j in range(len(columns)):
        values[:, j] = by_id[j][found[:, j]]
    frame = pd.DataFrame(values, columns=query.columns)
    frame = data_interface.ensure_consistent_type(frame, query)
    return frame[list(data_interface.feature_names)].reset_index(drop=True)


def continuous_samples(low, high, precision, size=1000, seed=None) -> list:
    """``DiceRandom.get_continuous_samples``'s values: the same RNG calls, the same numbers.

    The library rounds its uniform draws one by one, ``round(r, precision)`` on each numpy scalar, which is numpy's
    own rounding at ~6 µs a value (on 300 columns x 1,000 draws, 1.7 s per search: half of a wide run's DiCE time).
    ``np.round`` on the whole array is that rounding, value for value (numpy's scalar ``__round__`` calls it; tested
    against the library's function). The values come back as Python floats in a list, as the library's integer
    branch gives them; a data frame holds them as the same float64 values either way.
    """
    if seed is not None:
        np.random.seed(seed)
    if precision == 0:
        return np.asarray(np.random.randint(low, high + 1, size), dtype=float).tolist()
    return np.round(np.random.uniform(low, high + (10 ** -precision), size), precision).tolist()


def _value_ids(query: pd.DataFrame, random_rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list]:
    """Per column, integer ids of the values (equal values, equal ids) and the value of each id.

    Returns the query's ids, the random rows' ids and, per column, the values by id. Rows of ids
    are equal exactly when the rows of values are, as pandas' ``drop_duplicates`` compares them
    (the values are factorised as Python objects, like DiCE's cells).
    """
    query_ids = np.empty(len(query.columns), dtype=np.int64)
    random_ids = np.empty((len(random_rows), len(query.columns)), dtype=np.int64)
    values = []
    for j, col in enumerate(query.columns):
        pool = np.empty(len(random_rows) + 1, dtype=object)
        pool[0], pool[1:] = query[col].iat[0], random_rows[col].tolist()
        codes, uniques = pd.factorize(pool)
        query_ids[j], random_ids[:, j] = codes[0], codes[1:]
        values.append(np.asarray(uniques, dtype=object))
    return query_ids, random_ids, values


def _first_occurrences(rows: np.ndarray) -> np.ndarray:
    """``rows`` without repeated rows, keeping each row's first occurrence, in order."""
    _, first = np.unique(rows, axis=0, return_index=True)
    return rows[np.sort(first)]
