"""Anchor's perturbation sampler: the library's ``get_sample_fn`` with compact, array-wise results.

Ribeiro, Singh & Guestrin, "Anchors: High-Precision Model-Agnostic Explanations", AAAI 2018; the
sampling of ``anchor.anchor_tabular.AnchorTabularExplainer`` (anchor-exp 0.0.2.0). For every
draw the library picks training rows, imposes the rule's conditions, discretises **every** sampled
row and fills a ``samples x predicates`` int64 matrix one predicate at a time (a Python loop over
~3 predicates per numeric column, each a pass over the samples). On wide data that is most of the
search's own work, and the matrix (8 bytes per predicate per sample) most of its memory.

:class:`AnchorSampler` makes the **same calls to numpy's global RNG in the same order with the
same arguments** (``choice`` of training rows, then per condition ``choice`` or ``uniform`` of
replacement values), so the raw rows, and with them every label and statistic, are identical.
What it returns is compact: a draw is the training row each sample started from plus the
discretised value ("key") of the at most ``len(rule)`` features its conditions replaced. The
key of any other feature is the training row's own, computed once (:attr:`AnchorSampler.train_keys`:
a numeric feature's quartile bin, for a categorical feature 1 if it equals the explained
instance's value). A predicate is a feature and a truth table over keys (:attr:`AnchorSampler.table`),
so its flags are one table lookup and the counts of all predicates over a block of samples one
``bincount`` (:meth:`AnchorSampler.predicate_counts`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


#: Cells (rows x features) of key blocks handled at once when counting: bounds the temporary memory
#: of a count (the block, and 8 bytes per cell for weighted counts) at ~16 MB whatever the width.
CHUNK_CELLS = 2**21


def chunk_rows(n_features: int) -> int:
    """Rows of a ``n_features``-wide key block counted at once (see ``CHUNK_CELLS``)."""
    return max(1, CHUNK_CELLS // max(int(n_features), 1))


@dataclass(frozen=True)
class Draw:
    """Samples drawn for one rule.

    Attributes
    ----------
    raw : ndarray, shape (n, p)
        The sampled rows (coded values), as the model sees them.
    rows : ndarray, shape (n,)
        The training row each sample started from.
    features : ndarray, shape (k,)
        The features the rule's conditions replaced (``k`` <= number of predicates in the rule).
    keys : ndarray, shape (n, k)
        Those features' keys in the sampled rows.
    """

    raw: np.ndarray
    rows: np.ndarray
    features: np.ndarray
    keys: np.ndarray


class AnchorSampler:
    """Perturbations around one instance, as ``AnchorTabularExplainer.get_sample_fn`` draws them.

    Parameters
    ----------
    explainer : anchor.anchor_tabular.AnchorTabularExplainer
        Supplies the training matrix, its quartile discretiser and the categorical features.
    data_row : ndarray, shape (p,)
        The explained instance (coded values).

    Attributes
    ----------
    mapping : dict
        Predicate index -> ``(feature, op, value)``, exactly the library's ``mapping``.
    features : ndarray, shape (P,)
        The feature of each predicate.
    table : ndarray, shape (P, K), bool
        ``table[j, k]``: predicate ``j`` holds on a sample whose key on ``features[j]`` is ``k``.
    train_keys : ndarray, shape (n_train, p), uint8
        Every training row's keys.
    """

    def __init__(self, explainer, data_row: np.ndarray):
        self._ex = explainer
        disc = explainer.disc
        self.row = disc.discretize(np.asarray(data_row, dtype=float).reshape(1, -1))[0]
        self.mapping: dict[int, tuple] = {}
        for f in explainer.categorical_features:        # the library's order: categorical, then numeric
            if f in explainer.ordinal_features:
                last = len(explainer.categorical_names[f]) - 1
                for v in range(last + 1):
                    if self.row[f] <= v and v != last:
                        self.mapping[len(self.mapping)] = (f, "leq", v)
                    elif self.row[f] > v:
                        self.mapping[len(self.mapping)] = (f, "geq", v)
            else:
                self.mapping[len(self.mapping)] = (f, "eq", self.row[f])
        self._numeric = np.zeros(len(self.row), dtype=bool)
        self._numeric[list(disc.lambdas)] = True
        self.train_keys = self.keys_of(np.arange(len(self.row)), explainer.d_train)
        n_keys = max([2] + [len(explainer.categorical_names[f]) for f in explainer.ordinal_features])
        self.features = np.array([f for f, _, _ in self.mapping.values()], dtype=np.int64)
        self.table = np.zeros((len(self.mapping), n_keys), dtype=bool)
        k = np.arange(n_keys)
        for j, (f, op, v) in self.mapping.items():
            self.table[j] = (k == 1) if op == "eq" else (k <= v) if op == "leq" else (k > v)

    @property
    def n_predicates(self) -> int:
        return len(self.mapping)

    @property
    def n_train(self) -> int:
        return self._ex.train.shape[0]

    def keys_of(self, features: np.ndarray, discretised: np.ndarray) -> np.ndarray:
        """Keys of ``features`` given their discretised values (columns of ``discretised`` in that order)."""
        keys = np.where(self._numeric[features], discretised, discretised == self.row[features])
        return keys.astype(np.uint8)

    def flags(self, predicate: int, keys: np.ndarray) -> np.ndarray:
        """Where ``predicate`` holds, given the keys of its feature."""
        return self.table[predicate][keys]

    def rows(self, num_samples: int) -> np.ndarray:
        """The training rows of a draw without conditions (``draw([], n)``'s random numbers, nothing else)."""
        return np.random.choice(self._ex.train.shape[0], num_samples, replace=True)  # == choice(range(n))

    def draw(self, present, num_samples: int) -> Draw:
        """``num_samples`` samples on which the predicates ``present`` hold (the library's ``sample_fn``)."""
        eq, leq, geq = {}, {}, {}
        for x in present:
            f, op, v = self.mapping[x]
            if op == "eq":
                eq[f] = v
            elif op == "leq":
                leq[f] = min(leq.get(f, v), v)
            else:
                geq[f] = max(geq.get(f, v), v)
        ex = self._ex
        d_train = ex.d_train
        rows = self.rows(num_samples)
        sample = ex.train[rows]
        for f, v in eq.items():
            sample[:, f] = v
        for f in geq:                                   # the library's order: ">" conditions, then "<=" ones
            replace = d_train[rows, f] <= geq[f]
            options = d_train[:, f] > geq[f]
            if f in leq:
                replace |= d_train[rows, f] > leq[f]
                options &= d_train[:, f] <= leq[f]
            self._replace(sample, f, replace, options, geq[f], leq.get(f, ex.max[f]))
        for f in leq:
            if f not in geq:
                self._replace(sample, f, d_train[rows, f] > leq[f], d_train[:, f] <= leq[f], ex.min[f], leq[f])
        changed = np.array(sorted(set(eq) | set(leq) | set(geq)), dtype=np.int64)
        discretised = np.column_stack([ex.disc.lambdas[f](sample[:, f]) if f in ex.disc.lambdas else sample[:, f]
                                       for f in changed]) if len(changed) else np.zeros((num_samples, 0))
        return Draw(sample, rows, changed, self.keys_of(changed, discretised))

    def _replace(self, sample, f, replace, options, low, high) -> None:
        """The library's replacement of feature ``f`` where the sample breaks the condition (same RNG calls)."""
        count = int(replace.sum())
        if count == 0:
            return
        if options.sum() == 0:
            values = np.random.uniform(low, high, count)
        else:
            values = np.random.choice(self._ex.train[options, f], count, replace=True)
        sample[replace, f] = values

    def histogram(self, keys: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """``(p, K)`` counts: rows of ``keys`` (shape (n, p)) with key ``k`` on feature ``f`` (weighted, if given)."""
        hist = np.zeros((keys.shape[1], self.table.shape[1]), dtype=np.int64)
        step = chunk_rows(keys.shape[1])
        for start in range(0, len(keys), step):
            block = keys[start:start + step]
            for k in range(self.table.shape[1]):
                hit = block == k
                hist[:, k] += hit.sum(axis=0) if weights is None else weights[start:start + step] @ hit
        return hist

    def predicate_counts(self, hist: np.ndarray) -> np.ndarray:
        """Per predicate, the rows it holds on, from a :meth:`histogram`."""
        return (hist[self.features] * self.table).sum(axis=1)
