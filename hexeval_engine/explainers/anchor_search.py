"""Anchor's beam search (KL-LUCB), the library's algorithm with array bookkeeping instead of sets.

Ribeiro, Singh & Guestrin, "Anchors: High-Precision Model-Agnostic Explanations", AAAI 2018;
the search of ``anchor.anchor_base.AnchorBaseBeam.anchor_beam`` (anchor-exp 0.0.2.0). Same
steps, same order of calls to ``sample_fn`` (so the same random numbers and the same model
questions), same statistics and the same tie-breaking; what changes is how the bookkeeping is held:

* the library pre-allocates ``batch_size * 10000`` rows of every sampled array (one byte per
  candidate predicate per row: 1.8 GB for 900 predicates) and keeps per-rule Python *sets* of
  sample and coverage indices; here the samples live in one array that grows as they arrive, a
  rule's samples are an index array, its coverage a boolean mask;
* extending a rule by one predicate copies whole sample rows per candidate in the library
  (``data[t_idx]`` for each of ``beam_size x predicates`` candidates: quadratic in the number of
  columns); here the counts of all extensions of a rule come from one pass over its samples;
* the confidence bounds of all arms are computed together (vectorised bisection, the library's
  17 steps and clipping);
* draws whose labels nothing waits for are labelled by **one** model question instead of one each
  (when ``label_fn`` is given): the single-sample draw for every candidate without samples (one
  model call per candidate in the library: hundreds on wide data) and each bandit step's pair of
  draws (the best and the challenger). The rows are drawn in the library's order, so the random
  numbers and every statistic are unchanged; only the model calls are pooled.

Cost therefore grows about linearly with the number of predicates. The result dict has the
library's keys ``feature``, ``mean``, ``precision``, ``coverage``, ``all_precision``,
``num_preds`` (no ``examples``: HEXEval never shows them).
"""

from __future__ import annotations

import numpy as np

_P_LOW, _P_HIGH = 0.0000001, 0.9999999999999999


def kl_bernoulli(p, q):
    """KL divergence of Bernoulli(p) from Bernoulli(q), clipped as the library clips it (arrays)."""
    p = np.minimum(_P_HIGH, np.maximum(_P_LOW, p))
    q = np.minimum(_P_HIGH, np.maximum(_P_LOW, q))
    return p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))


def dup_bernoulli(p, level):
    """Upper KL confidence bound, per element (the library's 16-step bisection)."""
    p = np.asarray(p, dtype=float)
    lm = p.copy()
    um = np.minimum(np.minimum(1, p + np.sqrt(level / 2.0)), 1)
    for _ in range(1, 17):
        qm = (um + lm) / 2.0
        above = kl_bernoulli(p, qm) > level
        um = np.where(above, qm, um)
        lm = np.where(above, lm, qm)
    return um


def dlow_bernoulli(p, level):
    """Lower KL confidence bound, per element (the library's 16-step bisection)."""
    p = np.asarray(p, dtype=float)
    um = p.copy()
    lm = np.maximum(np.minimum(1, p - np.sqrt(level / 2.0)), 0)
    for _ in range(1, 17):
        qm = (um + lm) / 2.0
        above = kl_bernoulli(p, qm) > level
        lm = np.where(above, qm, lm)
        um = np.where(above, um, qm)
    return lm


def compute_beta(n_features, t, delta):
    temp = np.log(405.5 * n_features * (t ** 1.1) / delta)
    return temp + np.log(temp)


class _Samples:
    """Every sample drawn so far: predicate flags (int8) and labels, in arrival order."""

    def __init__(self, data: np.ndarray, labels: np.ndarray):
        self.data = np.array(data, dtype=np.int8)
        self.labels = np.array(labels, dtype=np.int8)
        self.n = len(self.data)

    def add(self, data, labels) -> range:
        m = len(data)
        if self.n + m > len(self.data):
            grow = max(self.n + m, 2 * len(self.data))
            self.data = np.vstack([self.data[:self.n], np.zeros((grow - self.n, self.data.shape[1]), np.int8)])
            self.labels = np.concatenate([self.labels[:self.n], np.zeros(grow - self.n, np.int8)])
        self.data[self.n:self.n + m] = data
        self.labels[self.n:self.n + m] = labels
        self.n += m
        return range(self.n - m, self.n)


class _Rule:
    """One candidate rule (a sorted tuple of predicate indices) and its statistics."""

    __slots__ = ("order", "parts", "nsamples", "positives", "coverage", "coverage_mask", "parent", "parent_len",
                 "predicate")

    def __init__(self, order, nsamples, positives, coverage):
        self.order = order
        self.parts: list = []            # index arrays of its samples, in the order they joined
        self.nsamples = float(nsamples)
        self.positives = positives
        self.coverage = coverage
        self.coverage_mask = None
        self.parent = None               # (for extensions) the rule extended and how many of its samples it had
        self.parent_len = 0
        self.predicate = None

    def indices(self, samples: _Samples) -> np.ndarray:
        if self.parent is not None:      # materialise: the parent's samples then that hold the new predicate
            base = self.parent.indices(samples)[:self.parent_len]
            self.parts.insert(0, base[samples.data[base, self.predicate] == 1])
            self.parent = None
        if len(self.parts) != 1:
            self.parts = [np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=np.int64)]
        return self.parts[0]


class _Search:
    def __init__(self, sample_fn, coverage: np.ndarray, samples: _Samples, label_fn=None):
        self.sample_fn = sample_fn
        self.label_fn = label_fn
        self.coverage = coverage
        self.samples = samples
        self.rules: dict[tuple, _Rule] = {}
        self.n_predicates = samples.data.shape[1]

    # ------------------------------------------------------------------ rules
    def make_tuples(self, previous_best: list) -> list:
        """The library's ``make_tuples``: all one-predicate rules, or every one-predicate extension of the beam."""
        s = self.samples
        if not previous_best:
            data, labels = s.data[:s.n], s.labels[:s.n]
            counts = data.sum(axis=0, dtype=np.int64)
            positives = labels.astype(np.int64) @ data
            covered = self.coverage.sum(axis=0)
            tuples = []
            for x in range(self.n_predicates):
                rule = _Rule([x], counts[x], float(positives[x]), float(covered[x]) / self.coverage.shape[0])
                rule.parts = [np.flatnonzero(data[:, x])]
                rule.coverage_mask = self.coverage[:, x]
                self.rules[(x,)] = rule
                tuples.append((x,))
            return tuples
        stats = {}
        for t in previous_best:
            parent = self.rules[t]
            idx = parent.indices(s)
            block = s.data[idx]
            mask = self._coverage_mask(t)
            stats[t] = (len(idx), block.sum(axis=0, dtype=np.int64), s.labels[idx].astype(np.int64) @ block,
                        self.coverage[mask].sum(axis=0))
        new_tuples = set()
        for f in range(self.n_predicates):
            for t in previous_best:
                new_t = tuple(sorted(set(t + (f,))))
                if len(new_t) != len(t) + 1 or new_t in new_tuples:
                    continue
                new_tuples.add(new_t)
                n_parent, counts, positives, covered = stats[t]
                rule = _Rule(self.rules[t].order + [f], counts[f], positives[f],
                             float(covered[f]) / self.coverage.shape[0])
                rule.parent, rule.parent_len, rule.predicate = self.rules[t], n_parent, f
                self.rules[new_t] = rule
        return list(new_tuples)

    def _coverage_mask(self, t: tuple) -> np.ndarray:
        rule = self.rules[t]
        if rule.coverage_mask is None:
            parent_t = tuple(sorted(set(rule.order[:-1])))
            rule.coverage_mask = self._coverage_mask(parent_t) & self.coverage[:, rule.order[-1]]
        return rule.coverage_mask

    def draw(self, t: tuple, n: int):
        """The library's ``complete_sample_fn``: ``n`` samples on which rule ``t`` holds; returns the positives."""
        _, data, labels = self.sample_fn(list(t), n)
        data, labels = np.asarray(data, dtype=np.int8), np.asarray(labels, dtype=np.int8)
        rule = self.rules[t]
        added = self.samples.add(data, labels)
        rule.parts.append(np.arange(added.start, added.stop))
        rule.nsamples += n
        positives = labels.sum()
        rule.positives += positives
        return positives

    def draw_together(self, requests: list) -> list:
        """``draw`` for each ``(t, n)`` in order, labelled by one ``label_fn`` call; the positives of each."""
        if self.label_fn is None or len(requests) < 2:
            return [self.draw(t, n) for t, n in requests]
        drawn = [self.sample_fn(list(t), n, compute_labels=False) for t, n in requests]
        labels = np.asarray(self.label_fn(np.vstack([raw for raw, _, _ in drawn])), dtype=np.int8)
        out, start = [], 0
        for (t, n), (_, data, _) in zip(requests, drawn):
            mine = labels[start:start + n]
            start += n
            rule = self.rules[t]
            added = self.samples.add(np.asarray(data, dtype=np.int8), mine)
            rule.parts.append(np.arange(added.start, added.stop))
            rule.nsamples += n
            positives = mine.sum()
            rule.positives += positives
            out.append(positives)
        return out

    # ------------------------------------------------------------------ bandit
    def lucb(self, tuples, epsilon, delta, batch_size, top_n):
        """The library's ``lucb``: the ``top_n`` rules with the highest precision (indices into ``tuples``)."""
        n_features = len(tuples)
        n_samples = np.array([self.rules[t].nsamples for t in tuples])
        positives = np.array([self.rules[t].positives for t in tuples])
        ub = np.zeros(n_samples.shape)
        lb = np.zeros(n_samples.shape)
        empty = np.where(n_samples == 0)[0]
        for f, found in zip(empty, self.draw_together([(tuples[f], 1) for f in empty])):
            n_samples[f] += 1
            positives[f] += found
        if n_features == top_n:
            return range(n_features)
        means = positives / n_samples
        t = 1

        def update_bounds(t):
            sorted_means = np.argsort(means)
            beta = compute_beta(n_features, t, delta)
            J = sorted_means[-top_n:]
            not_J = sorted_means[:-top_n]
            ub[not_J] = dup_bernoulli(means[not_J], beta / n_samples[not_J])
            lb[J] = dlow_bernoulli(means[J], beta / n_samples[J])
            return not_J[np.argmax(ub[not_J])], J[np.argmin(lb[J])]

        ut, lt = update_bounds(t)
        B = ub[ut] - lb[lt]
        while B > epsilon:
            found_ut, found_lt = self.draw_together([(tuples[ut], batch_size), (tuples[lt], batch_size)])
            n_samples[ut] += batch_size
            positives[ut] += found_ut
            means[ut] = positives[ut] / n_samples[ut]
            n_samples[lt] += batch_size
            positives[lt] += found_lt
            means[lt] = positives[lt] / n_samples[lt]
            t += 1
            ut, lt = update_bounds(t)
            B = ub[ut] - lb[lt]
        return np.argsort(means)[-top_n:]

    def result(self, t: tuple) -> dict:
        """The library's ``get_anchor_from_tuple`` without example rows."""
        anchor = {"feature": [], "mean": [], "precision": [], "coverage": [], "all_precision": 0,
                  "num_preds": self.samples.n}
        current: tuple = ()
        for f in self.rules[t].order:
            current = tuple(sorted(set(current + (f,))))
            rule = self.rules[current]
            mean = rule.positives / rule.nsamples
            anchor["feature"].append(f)
            anchor["mean"].append(mean)
            anchor["precision"].append(mean)
            anchor["coverage"].append(rule.coverage)
        return anchor


def anchor_beam(sample_fn, *, delta=0.05, epsilon=0.1, batch_size=10, desired_confidence=1.0, beam_size=1,
                epsilon_stop=0.05, min_samples_start=0, max_anchor_size=None, stop_on_first=False,
                coverage_samples=10000, label_fn=None) -> dict:
    """The anchor of one instance; arguments as ``AnchorBaseBeam.anchor_beam``'s.

    ``sample_fn(present, n, compute_labels=True) -> (raw, data, labels)`` is the library's
    sample function (``AnchorTabularExplainer.get_sample_fn``). ``label_fn(raw) -> labels``, if
    given, must label raw rows exactly as ``sample_fn`` does (1 where the model gives the explained
    class); it lets independent draws share one model call.
    """
    empty = {"feature": [], "mean": [], "precision": [], "coverage": [], "all_precision": 0}
    coverage = np.asarray(sample_fn([], coverage_samples, compute_labels=False)[1], dtype=bool)
    _, data, labels = sample_fn([], max(1, min_samples_start))
    data, labels = np.asarray(data, dtype=np.int8), np.asarray(labels, dtype=np.int8)
    mean = labels.mean()
    beta = np.log(1.0 / delta)
    lb = float(dlow_bernoulli(mean, beta / data.shape[0]))
    while mean > desired_confidence and lb < desired_confidence - epsilon:
        _, ndata, nlabels = sample_fn([], batch_size)
        data = np.vstack((data, np.asarray(ndata, dtype=np.int8)))
        labels = np.hstack((labels, np.asarray(nlabels, dtype=np.int8)))
        mean = labels.mean()
        lb = float(dlow_bernoulli(mean, beta / data.shape[0]))
    if lb > desired_confidence:
        return dict(empty, num_preds=data.shape[0], all_precision=mean)
    search = _Search(sample_fn, coverage, _Samples(data, labels), label_fn)
    del data, labels  # the search holds its own (growing) copy
    n_features = search.n_predicates
    current_size = 1
    best_of_size: dict[int, list] = {0: []}
    best_coverage = -1
    best_tuple: tuple = ()
    if max_anchor_size is None:
        max_anchor_size = n_features
    while current_size <= max_anchor_size:
        tuples = search.make_tuples(best_of_size[current_size - 1])
        tuples = [x for x in tuples if search.rules[x].coverage > best_coverage]
        if len(tuples) == 0:
            break
        chosen = search.lucb(tuples, epsilon, delta, batch_size, min(beam_size, len(tuples)))
        best_of_size[current_size] = [tuples[x] for x in chosen]
        stop_this = False
        for t in best_of_size[current_size]:
            beta = np.log(1.0 / (delta / (1 + (beam_size - 1) * n_features)))
            rule = search.rules[t]
            mean = rule.positives / rule.nsamples
            lb = float(dlow_bernoulli(mean, beta / rule.nsamples))
            ub = float(dup_bernoulli(mean, beta / rule.nsamples))
            while ((mean >= desired_confidence and lb < desired_confidence - epsilon_stop) or
                   (mean < desired_confidence and ub >= desired_confidence + epsilon_stop)):
                search.draw(t, batch_size)
                mean = rule.positives / rule.nsamples
                lb = float(dlow_bernoulli(mean, beta / rule.nsamples))
                ub = float(dup_bernoulli(mean, beta / rule.nsamples))
            if mean >= desired_confidence and lb > desired_confidence - epsilon_stop:
                if rule.coverage > best_coverage:
                    best_coverage = rule.coverage
                    best_tuple = t
                    if best_coverage == 1 or stop_on_first:
                        stop_this = True
        if stop_this:
            break
        current_size += 1
    if best_tuple == ():
        tuples = []
        for i in range(0, current_size):
            tuples.extend(best_of_size[i])
        chosen = search.lucb(tuples, epsilon, delta, batch_size, 1)
        best_tuple = tuples[chosen[0]]
    return search.result(best_tuple)
