"""Anchor's beam search (KL-LUCB), the library's algorithm with array bookkeeping instead of sets.

Ribeiro, Singh & Guestrin, "Anchors: High-Precision Model-Agnostic Explanations", AAAI 2018;
the search of ``anchor.anchor_base.AnchorBaseBeam.anchor_beam`` (anchor-exp 0.0.2.0). Same
steps, same order of draws (so the same random numbers and the same model questions), same
statistics and the same tie-breaking; what changes is how the bookkeeping is held:

* the library pre-allocates ``batch_size * 10000`` rows of every sampled array (one byte per
  candidate predicate per row: 1.8 GB for 900 predicates) and keeps per-rule Python *sets* of
  sample and coverage indices; here the samples arrive from an :class:`~.anchor_sampling.AnchorSampler`
  as training-row indices plus the keys of the few features the rule replaced (~14 bytes per
  sample whatever the width), a rule's samples are index ranges/arrays, and the coverage sample is
  the multiplicity of each training row (coverage masks are over the training rows);
* extending a rule by one predicate copies whole sample rows per candidate in the library
  (``data[t_idx]`` for each of ``beam_size x predicates`` candidates: quadratic in the number of
  columns); here the counts of all extensions of a rule come from one key histogram of its
  samples, and a candidate's samples are only listed once it joins the beam;
* the confidence bounds are computed together (vectorised bisection, the library's 17 steps and
  clipping), and the challenger's upper bound only for the candidates that can reach it
  (:func:`argmax_upper`);
* draws whose labels nothing waits for are labelled by **one** model question instead of one
  each: the single-sample draw for every candidate without samples (one model call per candidate
  in the library: hundreds on wide data) and each bandit step's pair of draws (the best and the
  challenger). The rows are drawn in the library's order, so the random numbers and every
  statistic are unchanged; only the model calls are pooled.

The search's own work per bandit step is therefore about constant and its memory grows with the
samples drawn, not with samples x predicates. What still grows with the width is inherent to the
algorithm: more candidate predicates need more bandit steps (model questions) to rank, and each
sampled row is as wide as the data (``benchmarks/anchor_scaling.py``). The result dict has the
library's keys ``feature``, ``mean``, ``precision``, ``coverage``, ``all_precision``,
``num_preds`` (no ``examples``: HEXEval never shows them).
"""

from __future__ import annotations

import numpy as np

from .anchor_sampling import chunk_rows

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


def argmax_upper(p, level) -> tuple[int, float]:
    """``k = np.argmax(dup_bernoulli(p, level))`` and that bound, computing few of the bounds.

    A bound lies between ``p`` and its bisection's starting point ``min(1, p + sqrt(level / 2))``.
    Bounds are computed only where that starting point reaches (within a relative 1e-9) the bound
    of the arm with the highest starting point: every other bound is strictly lower, so the
    maximum and its first position (numpy's tie-break) are the same as over all arms. With
    hundreds of candidate rules most are far below the best, and each bandit step costs ~O(1)
    bisections instead of one per candidate.
    """
    start = np.minimum(np.minimum(1, p + np.sqrt(level / 2.0)), 1)
    first = int(np.argmax(start))
    floor = dup_bernoulli(p[first:first + 1], level[first:first + 1])[0] * (1 - 1e-9)
    near = np.flatnonzero(start >= floor)
    bounds = dup_bernoulli(p[near], level[near])
    best = int(np.argmax(bounds))
    return int(near[best]), float(bounds[best])


def compute_beta(n_features, t, delta):
    temp = np.log(405.5 * n_features * (t ** 1.1) / delta)
    return temp + np.log(temp)


class _Samples:
    """Every sample drawn so far, compactly (:mod:`.anchor_sampling`): its training row, the keys of the
    features its rule's conditions replaced (at most ``width``), its label; in arrival order."""

    def __init__(self, sampler, width: int):
        self.sampler = sampler
        self.width = width
        self.n = 0
        p = sampler.train_keys.shape[1]
        self.rows = np.zeros(0, dtype=np.int32)
        self.features = np.zeros((0, width), dtype=np.int16 if p < 2**15 else np.int32)
        self.keys = np.zeros((0, width), dtype=np.uint8)
        self.labels = np.zeros(0, dtype=np.int8)

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes + self.features.nbytes + self.keys.nbytes + self.labels.nbytes

    def add(self, draw, labels) -> range:
        m, k = len(draw.rows), len(draw.features)
        if self.n + m > len(self.rows):
            size = max(self.n + m, 2 * len(self.rows))
            self.rows = _grown(self.rows, self.n, size, 0)
            self.features = _grown(self.features, self.n, size, -1)
            self.keys = _grown(self.keys, self.n, size, 0)
            self.labels = _grown(self.labels, self.n, size, 0)
        part = slice(self.n, self.n + m)
        self.rows[part] = draw.rows
        self.features[part, :k] = draw.features
        self.features[part, k:] = -1
        self.keys[part, :k] = draw.keys
        self.labels[part] = labels
        self.n += m
        return range(part.start, part.stop)

    def block(self, idx: np.ndarray) -> np.ndarray:
        """Keys of every feature for the samples ``idx``: ``(len(idx), p)`` uint8."""
        out = self.sampler.train_keys[self.rows[idx]]
        for w in range(self.width):
            features = self.features[idx, w]
            on = np.flatnonzero(features >= 0)
            out[on, features[on]] = self.keys[idx[on], w]
        return out

    def column(self, idx: np.ndarray, f: int) -> np.ndarray:
        """Keys of feature ``f`` for the samples ``idx``."""
        out = self.sampler.train_keys[self.rows[idx], f]
        for w in range(self.width):
            on = np.flatnonzero(self.features[idx, w] == f)
            out[on] = self.keys[idx[on], w]
        return out

    def histograms(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Key histograms (:meth:`AnchorSampler.histogram`) of the samples ``idx`` and of those labelled 1."""
        sampler = self.sampler
        hist = np.zeros((sampler.train_keys.shape[1], sampler.table.shape[1]), dtype=np.int64)
        hist1 = hist.copy()
        step = chunk_rows(sampler.train_keys.shape[1])
        for start in range(0, len(idx), step):
            part = idx[start:start + step]
            block = self.block(part)
            hist += sampler.histogram(block)
            hist1 += sampler.histogram(block[self.labels[part] == 1])
        return hist, hist1


def _grown(a: np.ndarray, n: int, size: int, fill) -> np.ndarray:
    out = np.full((size,) + a.shape[1:], fill, dtype=a.dtype)
    out[:n] = a[:n]
    return out


class _Rule:
    """One candidate rule (a sorted tuple of predicate indices) and its statistics."""

    __slots__ = ("order", "parts", "nsamples", "positives", "coverage", "coverage_mask", "parent", "parent_len",
                 "predicate")

    def __init__(self, order, nsamples, positives, coverage):
        self.order = order
        self.parts: list = []            # its samples (index arrays or ranges), in the order they joined
        self.nsamples = float(nsamples)
        self.positives = positives
        self.coverage = coverage
        self.coverage_mask = None        # over the training rows (the coverage sample is drawn from them)
        self.parent = None               # the rule extended and how many of its samples it had then
        self.parent_len = 0
        self.predicate = None

    def indices(self, samples: _Samples) -> np.ndarray:
        if self.parent is not None:      # materialise: the parent's samples then that hold the new predicate
            base = self.parent.indices(samples)[:self.parent_len]
            sampler = samples.sampler
            holds = sampler.flags(self.predicate, samples.column(base, sampler.features[self.predicate]))
            self.parts.insert(0, base[holds])
            self.parent = None
        if len(self.parts) != 1 or isinstance(self.parts[0], range):
            self.parts = [np.concatenate([np.asarray(p, dtype=np.int64) for p in self.parts])
                          if self.parts else np.zeros(0, dtype=np.int64)]
        return self.parts[0]


class _Search:
    def __init__(self, sampler, label_fn, coverage_weights: np.ndarray, coverage_samples: int, samples: _Samples):
        self.sampler = sampler
        self.label_fn = label_fn
        self.weights = coverage_weights   # per training row, how often the coverage sample drew it
        self.coverage_samples = coverage_samples
        self.samples = samples
        self.rules: dict[tuple, _Rule] = {}
        self.n_predicates = sampler.n_predicates
        self.requests = 0                 # model questions asked (labelled draws)
        self.held_bytes = 0               # most memory held by samples, index arrays, coverage masks, keys
        self._index_bytes = 0
        self._mask_bytes = 0

    def _covered(self, mask: np.ndarray | None) -> np.ndarray:
        """Per predicate, the coverage samples (within ``mask`` of the training rows) it holds on."""
        keys = self.sampler.train_keys if mask is None else self.sampler.train_keys[mask]
        weights = self.weights if mask is None else self.weights[mask]
        return self.sampler.predicate_counts(self.sampler.histogram(keys, weights))

    # ------------------------------------------------------------------ rules
    def make_tuples(self, previous_best: list) -> list:
        """The library's ``make_tuples``: all one-predicate rules, or every one-predicate extension of the beam."""
        s, sampler = self.samples, self.sampler
        if not previous_best:
            root = _Rule([], s.n, 0, 1.0)
            root.parts = [np.arange(s.n)]
            hist, hist1 = s.histograms(root.parts[0])
            counts, positives = sampler.predicate_counts(hist), sampler.predicate_counts(hist1)
            covered = self._covered(None)
            tuples = []
            for x in range(self.n_predicates):
                rule = _Rule([x], counts[x], float(positives[x]), float(covered[x]) / self.coverage_samples)
                rule.parent, rule.parent_len, rule.predicate = root, s.n, x
                self.rules[(x,)] = rule
                tuples.append((x,))
            return tuples
        stats = {}
        for t in previous_best:
            idx = self.rules[t].indices(s)
            self._index_bytes += idx.nbytes
            hist, hist1 = s.histograms(idx)
            stats[t] = (len(idx), sampler.predicate_counts(hist), sampler.predicate_counts(hist1),
                        self._covered(self._coverage_mask(t)))
        self._note_memory()
        new_tuples = set()
        for f in range(self.n_predicates):
            for t in previous_best:
                new_t = tuple(sorted(set(t + (f,))))
                if len(new_t) != len(t) + 1 or new_t in new_tuples:
                    continue
                new_tuples.add(new_t)
                n_parent, counts, positives, covered = stats[t]
                rule = _Rule(self.rules[t].order + [f], counts[f], positives[f],
                             float(covered[f]) / self.coverage_samples)
                rule.parent, rule.parent_len, rule.predicate = self.rules[t], n_parent, f
                self.rules[new_t] = rule
        return list(new_tuples)

    def _coverage_mask(self, t: tuple) -> np.ndarray:
        rule = self.rules[t]
        if rule.coverage_mask is None:
            last = rule.order[-1]
            holds = self.sampler.flags(last, self.sampler.train_keys[:, self.sampler.features[last]])
            if len(t) > 1:
                holds = self._coverage_mask(tuple(sorted(set(rule.order[:-1])))) & holds
            rule.coverage_mask = holds
            self._mask_bytes += rule.coverage_mask.nbytes
        return rule.coverage_mask

    def _note_memory(self) -> None:
        held = self.samples.nbytes + self._index_bytes + self._mask_bytes + self.sampler.train_keys.nbytes
        self.held_bytes = max(self.held_bytes, held)

    def draw(self, t: tuple, n: int):
        """The library's ``complete_sample_fn``: ``n`` samples on which rule ``t`` holds; returns the positives."""
        return self.draw_together([(t, n)])[0]

    def draw_together(self, requests: list) -> list:
        """``draw`` for each ``(t, n)`` in order (the library's order of random numbers), labelled by one
        ``label_fn`` call; the positives of each."""
        if not requests:
            return []
        drawn = [self.sampler.draw(list(t), n) for t, n in requests]
        labels = np.asarray(self.label_fn(np.vstack([d.raw for d in drawn])), dtype=np.int8)
        self.requests += 1
        out, start = [], 0
        for (t, n), d in zip(requests, drawn):
            mine = labels[start:start + n]
            start += n
            rule = self.rules[t]
            rule.parts.append(self.samples.add(d, mine))
            rule.nsamples += n
            positives = mine.sum()
            rule.positives += positives
            out.append(positives)
        self._note_memory()
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
            k, ub_k = argmax_upper(means[not_J], beta / n_samples[not_J])
            ub[not_J[k]] = ub_k
            lb[J] = dlow_bernoulli(means[J], beta / n_samples[J])
            return not_J[k], J[np.argmin(lb[J])]

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


class RequestCapReached(Exception):
    """The search was about to ask the model more often than ``max_requests`` allows."""


def anchor_beam(sampler, label_fn, *, delta=0.05, epsilon=0.1, batch_size=10, desired_confidence=1.0, beam_size=1,
                epsilon_stop=0.05, min_samples_start=0, max_anchor_size=None, stop_on_first=False,
                coverage_samples=10000, max_requests=None) -> dict:
    """The anchor of one instance; keyword arguments as ``AnchorBaseBeam.anchor_beam``'s.

    ``sampler`` is an :class:`~.anchor_sampling.AnchorSampler` (the library's ``sample_fn`` for
    the instance, same random numbers); ``label_fn(raw) -> labels`` labels sampled rows as the
    library's ``sample_fn`` does (1 where the model gives the explained class). Besides the
    library's keys, the result has ``model_requests`` (times the search asked the model),
    ``held_bytes`` (most memory its samples, coverage masks and training keys held) and
    ``stopped_at_request_cap``.

    ``max_requests`` (HEXEval's, not the library's) bounds the model requests: a search about to ask
    once more stops and returns the best rule found so far (:func:`_best_so_far`) with
    ``stopped_at_request_cap`` true. Below the cap nothing changes: same draws, same rule.
    """
    asked = [0]

    def counted(raw):
        if max_requests is not None and asked[0] >= max_requests:
            raise RequestCapReached
        asked[0] += 1
        return label_fn(raw)

    state: dict = {}
    try:
        found = _beam(sampler, counted, state, delta=delta, epsilon=epsilon, batch_size=batch_size,
                      desired_confidence=desired_confidence, beam_size=beam_size, epsilon_stop=epsilon_stop,
                      min_samples_start=min_samples_start, max_anchor_size=max_anchor_size,
                      stop_on_first=stop_on_first, coverage_samples=coverage_samples)
        return dict(found, stopped_at_request_cap=False)
    except RequestCapReached:
        return dict(_best_so_far(state), model_requests=asked[0], stopped_at_request_cap=True)


def _best_so_far(state: dict) -> dict:
    """The rule a search stopped at its request cap stands by.

    The best rule that already met the precision threshold when there is one (what the search would
    have returned had it stopped there); otherwise, among the rules ranked so far (the beams of the
    sizes finished, else the candidates being ranked), the one with the highest precision on its
    samples, ties to the earlier candidate; the empty rule when the search had not started ranking.
    """
    search = state.get("search")
    if search is None:
        samples = state["samples"]
        mean = float(samples.labels[:samples.n].mean()) if samples.n else 0.0
        return {"feature": [], "mean": [], "precision": [], "coverage": [], "all_precision": mean,
                "num_preds": samples.n, "held_bytes": samples.nbytes}
    if state.get("best_tuple"):
        best = state["best_tuple"]
    else:
        ranked = [t for size in sorted(state["best_of_size"]) if size > 0 for t in state["best_of_size"][size]]
        pool = ranked or [t for t in state.get("tuples", []) if search.rules[t].nsamples > 0]
        if not pool:
            samples = search.samples
            return {"feature": [], "mean": [], "precision": [], "coverage": [],
                    "all_precision": float(samples.labels[:samples.n].mean()), "num_preds": samples.n,
                    "held_bytes": search.held_bytes}
        precisions = [search.rules[t].positives / search.rules[t].nsamples for t in pool]
        best = pool[int(np.argmax(precisions))]
    search._note_memory()
    return dict(search.result(best), held_bytes=search.held_bytes)


def _beam(sampler, label_fn, state, *, delta, epsilon, batch_size, desired_confidence, beam_size, epsilon_stop,
          min_samples_start, max_anchor_size, stop_on_first, coverage_samples) -> dict:
    """:func:`anchor_beam`'s search; ``state`` holds what :func:`_best_so_far` reads if it is stopped."""
    empty = {"feature": [], "mean": [], "precision": [], "coverage": [], "all_precision": 0}
    weights = np.bincount(sampler.rows(coverage_samples), minlength=sampler.n_train)
    width = sampler.train_keys.shape[1] if max_anchor_size is None else min(max_anchor_size,
                                                                            sampler.train_keys.shape[1])
    samples = _Samples(sampler, width)
    state["samples"] = samples
    first = sampler.draw([], max(1, min_samples_start))
    samples.add(first, np.asarray(label_fn(first.raw), dtype=np.int8))
    requests = 1
    del first
    mean = samples.labels[:samples.n].mean()
    beta = np.log(1.0 / delta)
    lb = float(dlow_bernoulli(mean, beta / samples.n))
    while mean > desired_confidence and lb < desired_confidence - epsilon:
        more = sampler.draw([], batch_size)
        samples.add(more, np.asarray(label_fn(more.raw), dtype=np.int8))
        requests += 1
        mean = samples.labels[:samples.n].mean()
        lb = float(dlow_bernoulli(mean, beta / samples.n))
    if lb > desired_confidence:
        return dict(empty, num_preds=samples.n, all_precision=mean, model_requests=requests,
                    held_bytes=samples.nbytes)
    search = _Search(sampler, label_fn, weights, coverage_samples, samples)
    search.requests = requests
    n_features = search.n_predicates
    current_size = 1
    best_of_size: dict[int, list] = {0: []}
    state.update(search=search, best_of_size=best_of_size)
    best_coverage = -1
    best_tuple: tuple = ()
    if max_anchor_size is None:
        max_anchor_size = n_features
    while current_size <= max_anchor_size:
        tuples = search.make_tuples(best_of_size[current_size - 1])
        tuples = [x for x in tuples if search.rules[x].coverage > best_coverage]
        state["tuples"] = tuples
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
                    best_tuple = state["best_tuple"] = t
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
    search._note_memory()
    return dict(search.result(best_tuple), model_requests=search.requests, held_bytes=search.held_bytes)
