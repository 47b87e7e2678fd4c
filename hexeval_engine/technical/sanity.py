"""Sanity checks that decide whether method comparisons mean anything (Adebayo et al. 2018).

Public interface (stable)
-------------------------
``signal_check(model, data, config) -> dict``
``randomisation_check(model, data, config, technical) -> dict``
``run_sanity_checks(model, data, config, technical) -> (checks, warnings)``

* **No signal.** When the model's predictions carry no usable signal on the held-out rows, every
  explanation explains noise and any recommendation would be an artefact. The check computes the
  test ROC-AUC with a percentile-bootstrap interval and the spread of the predicted probabilities;
  the warning ``model_has_no_signal`` is raised when the interval includes 0.5, lies entirely below it
  (the model ranks cases backwards), or the probabilities are near-constant (standard deviation below ``evaluation.sanity.min_probability_std``). The
  recommender then recommends nothing and says why.
* **Model-parameter randomisation** (Adebayo et al. 2018, *Sanity Checks for Saliency Maps*;
  Quantus ``ModelParameterRandomisation``). Where the model can be re-fitted (a scikit-learn estimator
  or pipeline: ``sklearn.base.clone`` fitted on permuted training labels), the same shared cases are
  explained for the real and for the randomised model. A faithful explainer's output must change:
  per method the mean Spearman rank correlation of the absolute importances is reported, and the
  warning ``explainer_ignores_model`` names every method whose similarity is at least
  ``evaluation.sanity.max_similarity``. The ``Random`` baseline ignores the model by design and is
  reported (similarity 1) but never warned about. Anchor and DiCE are re-run too, on the first
  ``SEARCH_CASES`` of those cases (their search costs seconds per case): a rule's similarity is the
  Jaccard overlap of its condition set (feature and direction of each condition) with the randomised
  model's rule, a counterfactual set's the Jaccard overlap of the features its counterfactuals change
  (two empty sets count as identical). "Barely changes" means the same ``max_similarity`` threshold.
  Anchor's re-run may make twice as many model requests as the real search of the same case made (as many
  on data of ``WIDE_RERUN_COLUMNS`` feature columns or more: :func:`rerun_factor`), and at least
  ``RERUN_MIN_REQUESTS`` (:func:`request_cap`); a re-run stopped there keeps the rule found so far, and the
  result's ``notes`` say in how many cases that happened and, on wide data, that the smaller budget applied
  (shown with the check, never counted against the real explanation).
  Narrative retells its source's attributions and inherits its source's result.

With the helper process (backend ``auto``, a binary model), the technical stage queues the re-fit first (before the
explanations: the main process could not take it back, so done last it would end the run) and then, once every
method's cases are explained, SHAP's, LIME's, Anchor's and DiCE's re-explanations (:func:`queue_reruns`) to the
helper, which explains with the randomised model it fitted while the main process computes the metrics; the check
redoes Random here (with a copy of that model, which any job taken back needs too), takes back any job the helper
has not started and redoes any it failed on or planned for other cases. Before that, while the main process would only
wait for the helper's last searches, it does those re-explanations whose inputs are back itself (:mod:`.spare_reruns`:
kept as they are done, so an interrupted run keeps them, and never queued to the helper). The same explanations either
way: same model, seeds and explainers.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np
import pandas as pd
from scipy.stats import rankdata, spearmanr

from ..explainers.registry import enabled_methods, method_specs, spec_of
from ..explanation import BASELINE_METHOD
from ..paired_stats import mean_ci
from ..plain_values import describe_error
from ..vocabulary import plural
from .class_groups import case_groups

log = logging.getLogger(__name__)

#: Cases the search methods (specs that pool their model calls: Anchor, DiCE) re-explain for the check (their
#: searches cost seconds per case).
SEARCH_CASES = 3
#: How two explanations of one case are compared, by family (attributions: rank similarity).
_MEASURE = {"rule": "condition overlap", "counterfactual": "changed-feature overlap", "example": "similar-case overlap"}


def _searches(method: str, config) -> bool:
    return spec_of(method, config).pools_model_calls
_DIRECTION = {"<": "below", "<=": "below", ">": "above", ">=": "above", "=": "equal", "in": "equal", "!=": "not"}


def _auc(y: np.ndarray, score: np.ndarray) -> float:
    """ROC-AUC via the rank-sum identity (ties get average ranks); NaN with one class only."""
    n1 = int(y.sum())
    n0 = int(y.size - n1)
    if n1 == 0 or n0 == 0:
        return math.nan
    ranks = rankdata(score)
    return float((ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def bootstrap_aucs(y: np.ndarray, score: np.ndarray, resamples) -> np.ndarray:
    """``_auc(y[idx], score[idx])`` for every ``idx`` in ``resamples``, without ranking each resample.

    The rank-sum AUC is the Mann-Whitney count ``U`` (positive-negative pairs the score orders
    correctly, ties counting one half) over ``n1 * n0``. Scores are grouped into their distinct values
    once; a resample's ``2U`` is then the integer ``sum over values of P_v * (2 * N_below_v + N_v)`` from
    its per-value counts of positives ``P`` and negatives ``N``. Both ways the numerator is exact (the
    average ranks are multiples of one half) and one division rounds it, so every value equals
    :func:`_auc`'s bit for bit (tested). NaN where a resample holds one class only.
    """
    y = np.asarray(y, dtype=int)
    _, group = np.unique(np.asarray(score, dtype=float), return_inverse=True)
    n_groups = int(group.max()) + 1 if group.size else 0
    out = []
    # resamples counted together: small blocks stay in the CPU cache and reuse freed memory (2,000,000 cells per
    # block cost 0.05-0.16 s on credit risk, 65,536 cells 0.035 s); integer counts, so any block gives the same values
    block = max(1, 65_536 // max(y.size, 1))
    resamples = list(resamples)
    for start in range(0, len(resamples), block):
        idx = np.asarray(resamples[start:start + block], dtype=np.int64).reshape(-1, y.size)
        rows = np.repeat(np.arange(len(idx)), y.size) * n_groups
        flat_group, flat_y = rows + group[idx].ravel(), y[idx].ravel()
        size = len(idx) * n_groups
        pos = np.bincount(flat_group[flat_y == 1], minlength=size).reshape(len(idx), n_groups)
        neg = np.bincount(flat_group[flat_y == 0], minlength=size).reshape(len(idx), n_groups)
        below = np.cumsum(neg, axis=1) - neg
        twice_u = (pos * (2 * below + neg)).sum(axis=1)
        n1, n0 = pos.sum(axis=1), neg.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where((n1 > 0) & (n0 > 0), twice_u / (2 * n1 * n0), np.nan))
    return np.concatenate(out) if out else np.empty(0)


def signal_check(model, data, config) -> dict:
    """ROC-AUC (bootstrap interval) and probability spread of the model on the test rows.

    Returns
    -------
    dict
        ``{"roc_auc", "roc_auc_ci_low", "roc_auc_ci_high", "probability_std", "n_test", "has_signal",
        "reason"}``; ``reason`` is a sentence when ``has_signal`` is False, else ``""``.
    """
    settings = config.evaluation.sanity
    X = data.X_test[list(data.feature_names)]
    if data.is_regression:
        return _value_signal_check(model.predict_value(X), data.y_test.to_numpy(dtype=float),
                                   float(data.y_train.mean()), config)
    if data.n_classes > 2:
        return _class_signal_check(model.class_probabilities(X), data.y_test.to_numpy().astype(int), config)
    proba = model.predict_proba(X)[:, 1]
    y = np.asarray(data.y_test.to_numpy() == 1, dtype=int)  # the target is encoded: 1 is class_labels[1]
    auc = _auc(y, proba)
    rng = np.random.default_rng(config.evaluation.random_state)
    aucs = bootstrap_aucs(y, proba, [rng.integers(0, y.size, y.size) for _ in range(settings.auc_resamples)])
    aucs = aucs[np.isfinite(aucs)].tolist()
    std = float(np.std(proba))
    flat = (f"its predicted probabilities barely vary (standard deviation {std:.3f} over {y.size} test rows)"
            if std < settings.min_probability_std else "")
    return _chance_verdict(auc, aucs, std, int(y.size), config, name="test ROC-AUC", flat=flat)


def _chance_verdict(auc: float, aucs: list, std: float, n: int, config, *, name: str, flat: str) -> dict:
    """The no-signal check's verdict from a ranking score ``auc`` (named ``name`` in the reason), its finite
    bootstrap values ``aucs`` and the predictions' spread ``std`` over ``n`` test rows; ``flat`` is the reason
    when the predictions barely vary ("" when they vary enough)."""
    alpha = (1 - config.evaluation.confidence_level) / 2
    low, high = (np.quantile(aucs, [alpha, 1 - alpha]) if len(aucs) >= 10 else (math.nan, math.nan))
    level = f"{config.evaluation.confidence_level:.0%}"
    reasons = []
    if not math.isfinite(auc):
        reasons.append("the test rows hold only one class, so the model's ranking cannot be checked")
    elif math.isfinite(low) and low <= 0.5 <= high:
        reasons.append(f"its {name} is {auc:.2f} with a {level} interval of {low:.2f} to {high:.2f}, which includes "
                       "0.5 (chance)")
    elif math.isfinite(high) and high < 0.5:
        reasons.append(f"it ranks the held-out cases worse than chance ({name} {auc:.2f}, {level} interval "
                       f"{low:.2f} to {high:.2f})")
    if flat:
        reasons.append(flat)
    return {"roc_auc": auc, "roc_auc_ci_low": float(low), "roc_auc_ci_high": float(high), "probability_std": std,
            "n_test": n, "has_signal": not reasons,
            "reason": ("The model shows no usable signal on the held-out rows: " + "; ".join(reasons) + ".")
            if reasons else ""}


def _macro_auc(y: np.ndarray, proba: np.ndarray) -> float:
    """Mean one-vs-rest ROC-AUC over the classes present with both outcomes (NaN if none is)."""
    values = [_auc((y == k).astype(int), proba[:, k]) for k in range(proba.shape[1])]
    values = [v for v in values if math.isfinite(v)]
    return float(np.mean(values)) if values else math.nan


def _class_signal_check(proba: np.ndarray, y: np.ndarray, config) -> dict:
    """The no-signal check of a multi-class model: macro one-vs-rest ROC-AUC (bootstrap interval) against 0.5,
    and the spread of the predicted class's probability. Same keys as :func:`signal_check`; ``roc_auc`` is
    the macro one-vs-rest value."""
    settings = config.evaluation.sanity
    auc = _macro_auc(y, proba)
    rng = np.random.default_rng(config.evaluation.random_state)
    aucs = []
    for _ in range(settings.auc_resamples):
        idx = rng.integers(0, y.size, y.size)
        value = _macro_auc(y[idx], proba[idx])
        if math.isfinite(value):
            aucs.append(value)
    std = float(np.std(proba.max(axis=1)))
    flat = (f"it predicts the same class with barely varying probability (standard deviation {std:.3f} over "
            f"{y.size} test rows)" if std < settings.min_probability_std and len(np.unique(proba.argmax(axis=1))) == 1
            else "")
    return {**_chance_verdict(auc, aucs, std, int(y.size), config, name="macro one-vs-rest ROC-AUC", flat=flat),
            "criterion": "macro one-vs-rest ROC-AUC"}


def _value_signal_check(predicted: np.ndarray, y: np.ndarray, train_mean: float, config) -> dict:
    """The no-signal check of a regressor: is it closer to the truth than predicting the training mean?

    The paired difference of squared errors (mean prediction minus model) per test row, with a percentile
    bootstrap interval: no signal when the interval includes 0 or lies below it. Also reports R² and the
    spread of the predictions (``probability_std`` holds it, for the same key as classifiers)."""
    settings = config.evaluation.sanity
    gain = (y - train_mean) ** 2 - (y - predicted) ** 2
    rng = np.random.default_rng(config.evaluation.random_state)
    means = [float(np.mean(gain[rng.integers(0, y.size, y.size)])) for _ in range(settings.auc_resamples)]
    alpha = (1 - config.evaluation.confidence_level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha]) if len(means) >= 10 else (math.nan, math.nan)
    total = float(np.sum((y - np.mean(y)) ** 2))
    r2 = 1 - float(np.sum((y - predicted) ** 2)) / total if total else math.nan
    level = f"{config.evaluation.confidence_level:.0%}"
    reasons = []
    if math.isfinite(low) and low <= 0:
        reasons.append(f"its squared error is not reliably smaller than predicting the training mean (gain per row "
                       f"{np.mean(gain):.3g}, {level} interval {low:.3g} to {high:.3g}; test R² {r2:.2f})")
    std = float(np.std(predicted))
    if std == 0:
        reasons.append(f"it predicts the same value for all {y.size} test rows")
    return {"r2": r2, "gain_over_mean": float(np.mean(gain)), "gain_ci_low": float(low), "gain_ci_high": float(high),
            "roc_auc": None, "roc_auc_ci_low": None, "roc_auc_ci_high": None, "probability_std": std,
            "n_test": int(y.size), "has_signal": not reasons, "criterion": "squared error against the training mean",
            "reason": ("The model shows no usable signal on the held-out rows: " + "; ".join(reasons) + ".")
            if reasons else ""}


def _refittable(model):
    """The scikit-learn-style object to clone, or ``None`` with the reason it cannot be re-fitted."""
    from sklearn.base import clone  # only refittable models reach this line

    target = model.estimator
    try:
        return clone(target), ""
    except (TypeError, ValueError, RuntimeError) as err:
        return None, f"the model cannot be re-fitted here ({describe_error(err)})"


def fitted_in_helper(token: str) -> tuple:
    """Run in the helper process (``ExplainRunner.helper_call``): :func:`_fit_permuted` on the run's inputs, so the
    re-fit overlaps the main process's work. The fitted estimator is the same as one fitted here (same
    data, labels and parameters; ``n_jobs`` is 1 either way). The helper keeps it for the re-explanations it
    is given later (:func:`reexplained_in_helper`); the main process gets a copy for SHAP and Random."""
    from ..runtime.helper_pool import run_inputs, run_store  # helper side: the explainer stack is loaded there

    fitted = _fit_permuted(*run_inputs(token))
    run_store(token)["randomised_fit"] = fitted
    return fitted


def fit_given_in_helper(token: str, *, fitted: tuple) -> tuple:
    """Run in the helper process: keep ``fitted`` (what :func:`_fit_permuted` returned for an earlier, interrupted run
    of the same model, data and settings, stored) as this run's re-fit for the re-explanations queued later
    (:func:`reexplained_in_helper`), instead of fitting again."""
    from ..runtime.helper_pool import run_store  # helper side: the explainer stack is loaded there

    run_store(token)["randomised_fit"] = fitted
    return fitted


def _rerun_in_helper(method: str, config) -> bool:
    """The check's re-explanations the technical stage queues to the helper process: every randomisable method but
    the baseline (SHAP too: its TreeExplainer's decoding of the randomised booster is ~0.1 s the main process would
    do alone); Random is redone here."""
    spec = spec_of(method, config)
    return spec.randomisable and spec.recommendable


def reexplained_in_helper(token: str, *, method: str, ids: tuple, rows: tuple, caps: tuple | None) -> list:
    """Run in the helper process: :func:`_redone` on the randomised model the helper fitted (:func:`fitted_in_helper`,
    queued before; fitted again if it is gone), for a binary model's check cases ``ids``."""
    from ..runtime.helper_pool import run_inputs, run_store  # helper side: the explainer stack is loaded there

    model, data, config = run_inputs(token)
    store = run_store(token)
    if "randomised_fit" not in store:
        store["randomised_fit"] = _fit_permuted(model, data, config)
    randomised, reason = _randomised_model(model, data, config, fitted=store["randomised_fit"])
    if randomised is None:
        raise RuntimeError(f"the randomised model could not be built in the helper process: {reason}")
    (group,) = case_groups(randomised, data, config, list(ids))
    return _redone(group, data, method, list(rows), caps, config)


def queue_reruns(runner, config, explanation, ids: list, kept=None) -> dict:
    """Queue the check's SHAP, LIME, Anchor and DiCE re-explanations of a binary model's first check cases to the
    runner's helper process (after its re-fit), as soon as the technical stage's explanations are known.

    ``explanation(method, instance_id)`` gives the real explanations (Anchor's request caps and which search
    cases are redone come from them); ``ids`` is the shared sample in order. Returns
    ``{(method, ids, rows, caps): future}`` for :func:`randomisation_check` (through
    ``TechnicalResult.randomised_reruns``): it takes back any job the helper has not started, and checks its
    cases are still the ones it needs (a method whose metrics failed later changes the shared cases). ``kept``: the
    run's :class:`~.check_pieces.CheckPieces`; a job an earlier (interrupted) run stored is not queued."""
    ids = [int(i) for i in ids[:config.evaluation.sanity.randomisation_cases]]
    searched = set(ids[:SEARCH_CASES])
    queued = {}
    factor = rerun_factor(runner.data)
    methods = [m for m in enabled_methods(config) if _rerun_in_helper(m, config)]
    # the searches (Anchor, DiCE: the longest jobs) first: the main process takes back from the end of the queue, so
    # what it may still wait for at the end is one of the short ones
    for method in sorted(methods, key=lambda m: not spec_of(m, config).pools_model_calls):
        plan = _rerun_plan(explanation, method, ids, searched, config, factor)
        if plan is None:
            continue
        for key in rerun_keys(method, ids, plan, config):
            if kept is not None and kept.reruns(key, counted=False) is not None:
                continue
            future = runner.helper_call(functools.partial(reexplained_in_helper, method=method, ids=key[1],
                                                          rows=key[2], caps=key[3]), one_at_a_time=True)
            if future is None:
                return queued
            queued[key] = future
    return queued


def rerun_keys(method: str, ids, plan: tuple, config) -> list[tuple]:
    """The keys ``(method, ids, rows, caps)`` of ``method``'s re-explanation jobs of the check cases ``ids`` (its
    ``plan``, :func:`_rerun_plan`, in parts, :func:`rerun_parts`): one key for the queue, the stored pieces, the jobs
    done while waiting (:mod:`.spare_reruns`) and the check that takes them."""
    return [(method, tuple(ids), tuple(rows), caps)
            for rows, caps in rerun_parts(plan, _searches(method, config))]


def rerun_parts(plan: tuple, searches: bool) -> list:
    """The jobs a method's re-explanations (``plan``: ``(rows, caps)``) go to the helper as: one per case for a
    search (Anchor, DiCE: ``searches``), else one. Per case, each search is kept as soon as the helper returns it
    (an interrupted run loses only the cases in flight), and the main process can take the last cases back, so both
    processes search (on 300 columns Anchor's re-runs of 3 cases took ~45 s in one process; on heart, a resumed
    run waited ~0.3 s for the helper's three Anchor searches). Each case's search has its own seed: the
    explanations are the same either way."""
    rows, caps = plan
    if not searches or len(rows) < 2:
        return [(rows, caps)]
    if caps is None:  # an unbounded search (DiCE)
        return [([r], None) for r in rows]
    return [([r], (c,)) for r, c in zip(rows, caps)]


def _rerun_plan(explanation, method: str, group_ids: list, searched: set, config, factor: int):
    """Which of a group's check cases ``method`` re-explains: ``(rows, caps)`` (positions in ``group_ids``;
    Anchor's request caps at ``factor`` times the real search's requests, else ``None``), or ``None`` when it
    redoes none."""
    search = _searches(method, config)
    n = sum(1 for i in group_ids if i in searched) if search else len(group_ids)
    if not n:
        return None
    real = {i: explanation(method, i) for i in group_ids[:n]}
    # a case whose real explanation failed cannot be compared: a search method does not redo it
    rows = [k for k, i in enumerate(group_ids[:n]) if not search or _usable(real[i])]
    if not rows:
        return None
    caps = tuple(request_cap(real[group_ids[k]], factor) for k in rows) if spec_of(method, config).bounded_reruns \
        else None
    return rows, caps


def _redone(group, data, method: str, rows: list, caps, config) -> list:
    """The randomised model's explanations (unrendered) of the group's cases at positions ``rows``, by ``method``
    (Anchor bounded by ``caps``, :func:`request_cap`); one fresh sequential explainer, as in every process."""
    from ..runtime.parallel import ExplainRunner  # the explainer stack loads only when the check runs
    from ..explainers.base import explained_classes, instance_seed  # the explainer stack loads only when the check runs

    X = data.X_test.iloc[group.ids][list(data.feature_names)].reset_index(drop=True)
    view, view_config = group.view_of(method)
    seq = view_config.model_copy(deep=True)
    seq.evaluation.parallel.backend = "sequential"
    classes, probabilities = explained_classes(view, X)
    run_ids = [group.ids[k] for k in rows]
    seeds = [instance_seed(config.evaluation.random_state, i, method) for i in run_ids]
    args = (X.iloc[rows], run_ids, np.asarray(classes)[rows], np.asarray(probabilities)[rows], seeds)
    with ExplainRunner(view, group.data, seq) as runner:
        if spec_of(method, config).bounded_reruns:  # bounded by the real search's own model requests (request_cap)
            return runner.explainer(method).explain(*args, request_caps=list(caps))
        return runner.explain(method, *args, render=False)


def _take_back(queued: dict, plans: list, redo, kept=None) -> dict:
    """The plans' re-explanations: those an earlier (interrupted) run stored first (``kept``: the run's
    :class:`~.check_pieces.CheckPieces`, which also keeps those done here), those not queued to the helper done here
    (SHAP, Random), then, from the end of the helper's queue, every job it has not started (taken back and done
    here), then its answers.

    ``plans`` are ``(method, key)`` (a method may have several keys: its parts, :func:`rerun_parts`); ``redo(key)``
    re-explains a key's cases here. Returns ``{key: explanations}``. A job the helper failed on is redone here, so
    an error looks as it would without the helper."""
    from ..runtime.parallel import take_back  # the explainer stack loads only when the check runs

    done = {}
    if kept is not None:
        for method, key in plans:
            stored = kept.reruns(key)
            if stored is not None:
                done[key] = stored
                if key in queued:
                    queued.pop(key).cancel()  # no longer wanted (one already running: its answer is not read)
        compute = redo

        def redo(key):
            answer = compute(key)
            kept.keep_reruns(key, answer)
            return answer
    for method, key in plans:
        if key not in done and key not in queued:
            done[key] = redo(key)
    queue = {k: position for position, k in enumerate(queued)}  # taken back from the end of the queue, in its order
    waiting = sorted([(m, k) for m, k in plans if k in queued and k not in done], key=lambda mk: queue[mk[1]])

    def here(position: int) -> None:
        key = waiting[position][1]
        done[key] = redo(key)

    take_back([queued[k] for _, k in waiting], here)
    for method, key in waiting:
        if key in done:
            continue
        try:
            done[key] = queued[key].result()
        except Exception:  # the helper died or failed: redone here, where an error is recorded as usual
            log.warning("The randomisation check's %s re-explanations failed in the helper process; redoing them "
                        "here.", method, exc_info=True)
            done[key] = redo(key)
    return done


def _prepared_fit(technical):
    """The re-fit the technical stage started in the helper (``technical.randomised_fit``), or ``None`` (then it is
    done here). A failure of the helper is logged and the fit is redone here."""
    pending, technical.randomised_fit = getattr(technical, "randomised_fit", None), None
    if pending is None:
        return None
    try:
        return pending.result()
    except Exception:  # the helper died or failed: fit here, where its own error (if any) is recorded as usual
        log.warning("The randomised model's fit in the helper process failed; fitting it here.", exc_info=True)
        return None


def _randomised_model(model, data, config, *, fitted=None):
    """A copy of the model fitted on permuted training labels, or ``(None, reason)``.

    ``fitted``: what :func:`_fit_permuted` returned, when it ran elsewhere (the helper process)."""
    from ..models.model_wrapper import HexevalModel  # only the randomised-model check builds one

    fresh, reason = fitted if fitted is not None else _fit_permuted(model, data, config)
    if fresh is None:
        return None, reason
    randomised = HexevalModel(estimator=fresh, preprocessor=model.preprocessor, feature_names=model.feature_names,
                              threshold=model.threshold, class_labels=model.class_labels, source="randomised copy",
                              kind=model.kind, regression=model.regression)
    if data.n_classes > 2:  # fitted on class indices: its columns are the data's classes in order
        randomised.class_order = tuple(range(data.n_classes))
    return randomised, ""


def _fit_permuted(model, data, config) -> tuple:
    """The model's estimator cloned and fitted on permuted training labels, or ``(None, reason)``."""
    fresh, reason = _refittable(model)
    if fresh is None:
        return None, reason
    rng = np.random.default_rng(config.evaluation.random_state)
    y = data.y_train.to_numpy()[rng.permutation(len(data.y_train))]
    X = model._columns(data.X_train[list(data.feature_names)])
    if model.preprocessor is not None:
        X = model.preprocessor.transform(X)
    try:
        fresh.fit(X, y)
    except Exception as err:  # any estimator-specific failure: the check is skipped with its reason
        log.warning("Randomised model could not be fitted: %s", err)
        return None, f"re-fitting the model on permuted labels failed ({describe_error(err)})"
    return fresh, ""


def _vector(explanation, features) -> np.ndarray:
    """Absolute importance per feature: the importance vector, or the attributions when there is none (a plugin
    need only give attributions)."""
    imp = explanation.importance if explanation.importance is not None else (explanation.attributions or {})
    return np.array([abs(float(imp.get(f, 0.0))) for f in features])


def _condition_set(explanation) -> set:
    return {(c.feature, _DIRECTION.get(c.op, c.op)) for c in explanation.rule.conditions}


def _changed_set(explanation) -> set:
    return {f for cf in explanation.counterfactuals or [] for f in cf.changes}


def _jaccard(a: set, b: set) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def explanation_similarity(real, redone, features) -> float:
    """How alike two explanations of one case are: Spearman of the absolute importances (attributions),
    Jaccard of the condition sets (rules), of the changed features (counterfactuals) or of the training cases
    shown (similar cases: which real people are shown is the explanation)."""
    if real.examples is not None and redone.examples is not None:
        return _jaccard({(x.index, x.same_outcome) for x in real.examples},
                        {(x.index, x.same_outcome) for x in redone.examples})
    if real.rule is not None and redone.rule is not None:
        return _jaccard(_condition_set(real), _condition_set(redone))
    if real.counterfactuals is not None and redone.counterfactuals is not None:
        return _jaccard(_changed_set(real), _changed_set(redone))
    a, b = _vector(real, features), _vector(redone, features)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return 1.0 if np.allclose(a, b) else 0.0
    return float(spearmanr(a, b).statistic)


def randomisation_check(model, data, config, technical) -> dict:
    """Similarity of each method's explanations between the real and a label-permuted model.

    Returns
    -------
    dict
        ``{"status": "done" | "skipped", "reason", "n_cases", "methods": {method: {"similarity",
        "ci_low", "ci_high", "n", "ignores_model"}}, "not_checked": [method], "notes": [sentence]}``;
        Anchor's entry also has ``stopped_at_real_budget`` (re-runs stopped at :func:`request_cap`).
    """
    kept = getattr(technical, "check_pieces", None)
    stored = kept.fit() if kept is not None else None
    fitted = _prepared_fit(technical) if stored is None else _dropped_fit(technical, stored)
    queued, technical.randomised_reruns = getattr(technical, "randomised_reruns", None) or {}, {}
    try:
        return _randomisation_check(model, data, config, technical, fitted, queued, kept)
    finally:  # whatever the check did not take is not wanted any more
        for future in queued.values():
            future.cancel()


def _dropped_fit(technical, stored):
    """``stored`` (the re-fit an earlier run kept); the helper's re-fit of this run is no longer wanted."""
    pending, technical.randomised_fit = getattr(technical, "randomised_fit", None), None
    if pending is not None:
        pending.cancel()  # one already running: its answer is not read
    return stored


def _randomisation_check(model, data, config, technical, fitted, queued: dict, kept=None) -> dict:
    settings = config.evaluation.sanity
    present = {e.method for e in technical.explanations}
    known = {s.name: s for s in method_specs(config)}
    methods = [m for m in known if m in present and known[m].randomisable]
    not_checked = sorted(m for m in present if m not in methods)
    out = {"status": "skipped", "reason": "", "n_cases": 0, "methods": {}, "not_checked": not_checked}
    if not settings.randomisation_check:
        out["reason"] = "switched off (evaluation.sanity.randomisation_check: false)"
        return out
    ids = list(technical.shared_instance_ids)[:settings.randomisation_cases]
    if not ids or not methods:
        out["reason"] = "no shared case explained by a method the check can re-run"
        return out
    if fitted is None:
        fitted = _fit_permuted(model, data, config)
        if kept is not None:
            kept.keep_fit(fitted)
    randomised, reason = _randomised_model(model, data, config, fitted=fitted)
    if randomised is None:
        out["reason"] = reason
        return out
    features = list(data.feature_names)
    searched = set(ids[:SEARCH_CASES])
    factor = rerun_factor(data)
    sims: dict = {m: [] for m in methods}
    stopped = dict.fromkeys(methods, 0)  # re-runs of a bounded search stopped at the real search's request cap
    # a multi-class model: the randomised model is explained for the class it predicts (technical.class_groups)
    for group in case_groups(randomised, data, config, ids):
        plans = {m: _rerun_plan(technical.explanation, m, group.ids, searched, config, factor) for m in methods}
        plans = {m: p for m, p in plans.items() if p is not None}
        keys = [(m, key) for m, p in plans.items() for key in rerun_keys(m, group.ids, p, config)]
        answers = _take_back(queued, keys, lambda key: _redone(group, data, key[0], list(key[2]), key[3], config),
                             kept)
        for method in plans:
            group_ids, n = group.ids, plans[method][0][-1] + 1
            redone = {e.instance_id: e for m, key in keys if m == method for e in answers[key] if e.ok}
            for iid in group_ids[:n]:
                real = technical.explanation(method, iid)
                if not _usable(real) or iid not in redone:
                    continue
                sims[method].append(explanation_similarity(real, redone[iid], features))
                if (redone[iid].extra or {}).get("stopped_at_request_cap"):
                    stopped[method] += 1
    for method in methods:
        mean, low, high = mean_ci(sims[method], confidence=config.evaluation.confidence_level,
                                  seed=config.evaluation.random_state)
        out["methods"][method] = {"similarity": mean, "ci_low": low, "ci_high": high, "n": len(sims[method]),
                                  "measure": _MEASURE.get(known[method].family, "rank similarity"),
                                  "ignores_model": bool(math.isfinite(mean) and mean >= settings.max_similarity)}
    notes = []
    for method in [m for m in methods if known[m].bounded_reruns]:
        out["methods"][method]["stopped_at_real_budget"] = stopped[method]
        out["methods"][method]["rerun_request_factor"] = factor
        if stopped[method]:
            notes.append(stopped_note(stopped[method], out["methods"][method]["n"], factor))
        if factor != RERUN_REQUEST_FACTOR and out["methods"][method]["n"]:
            notes.append(wide_budget_note(len(features)))
    out.update(status="done", n_cases=len(ids), notes=notes)
    return out


def _usable(explanation) -> bool:
    return explanation is not None and explanation.ok


#: The fewest model requests Anchor's re-run on the randomised model may make, however few the real search
#: needed: a real rule found in one request would otherwise leave the re-run a one-request search whose
#: "rule found so far" differs from the real rule because it was cut short, not because the model changed.
RERUN_MIN_REQUESTS = 16

#: How many times the real search's requests the re-run may make.
RERUN_REQUEST_FACTOR = 2
#: Feature columns from which the re-run may make only as many requests as the real search (``WIDE_RERUN_FACTOR``;
#: ``runtime.parallel.WIDE_COLUMNS``: wide data). There every request carries ~400 sampled rows of every column,
#: the randomised model's search seldom ends before its cap, and on 300 numeric columns the three re-runs at twice
#: the real requests (~11,000 requests, ~4.4 M rows) were most of the sanity stage (34.5 s of a 103 s run).
WIDE_RERUN_COLUMNS = 100
WIDE_RERUN_FACTOR = 1


def rerun_factor(data) -> int:
    """How many times the real search's model requests Anchor's re-run may make on ``data``: ``WIDE_RERUN_FACTOR``
    on ``WIDE_RERUN_COLUMNS`` feature columns or more, else ``RERUN_REQUEST_FACTOR``."""
    return WIDE_RERUN_FACTOR if len(data.feature_names) >= WIDE_RERUN_COLUMNS else RERUN_REQUEST_FACTOR


def request_cap(real, factor: int = RERUN_REQUEST_FACTOR) -> int | None:
    """The model requests Anchor's re-run on the randomised model may make: ``factor`` times the real search's
    (twice by default; :func:`rerun_factor`), at least ``RERUN_MIN_REQUESTS``.

    The randomised model's labels carry no signal, so its search seldom reaches the precision threshold
    and would otherwise run through every rule size (on wide data into its time budget). Bounding it by
    the real search's own cost on the same case is deterministic (a count, not seconds); a re-run that
    stops there keeps the rule found so far, and the check says how many stopped (:func:`stopped_note`).
    ``None`` (no cap) when the real explanation does not record its requests.
    """
    requests = (real.extra or {}).get("model_requests") if real is not None else None
    return max(factor * int(requests), RERUN_MIN_REQUESTS) if requests is not None else None


def stopped_note(stopped: int, compared: int, factor: int = RERUN_REQUEST_FACTOR) -> str:
    """The sentence the check's summary shows when Anchor re-runs stopped at the real search's budget."""
    budget = "twice the model requests" if factor == 2 else \
        "as many model requests as" if factor == 1 else f"{factor} times the model requests"
    return (f"Anchor's search on the randomised model stopped at the real search's budget ({budget} the "
            f"real search of the same case made, at least {RERUN_MIN_REQUESTS}) in {stopped} of {plural(compared, 'case')}; the "
            "rule found so far is compared. This says nothing against the real explanation.")


def wide_budget_note(features: int) -> str:
    """The sentence the check's summary shows when the wide-data budget of Anchor's re-runs applied."""
    return (f"The data has {features} feature columns, so Anchor's search on the randomised model was given as many "
            f"model requests as the real search of the same case made (twice as many below {WIDE_RERUN_COLUMNS} "
            "columns): on wide data each request asks the model about hundreds of full rows.")


def run_sanity_checks(model, data, config, technical) -> tuple[dict, list[dict]]:
    """Both checks and the warnings they raise (``{"code", "message", ...}``)."""
    checks = {"signal": signal_check(model, data, config),
              "randomisation": randomisation_check(model, data, config, technical)}
    warnings: list[dict] = []
    signal = checks["signal"]
    if not signal["has_signal"]:
        warnings.append({"code": "model_has_no_signal", "severity": "error",
                         "message": signal["reason"] + " Every explanation would describe noise, so HEXEval makes "
                                    "no recommendation. Check that the model was trained on these columns and "
                                    "labels (and that the positive class is right)."})
    rand = checks["randomisation"]
    ignoring = [m for m, r in rand["methods"].items() if r["ignores_model"] and m != BASELINE_METHOD]
    if ignoring:
        details = ", ".join(f"{m} ({rand['methods'][m].get('measure', 'rank similarity')} "
                            f"{rand['methods'][m]['similarity']:.2f})" for m in ignoring)
        warnings.append({"code": "explainer_ignores_model", "severity": "warning", "methods": ignoring,
                         "message": f"Explanations barely change when the model is re-fitted on shuffled labels: "
                                    f"{details}, over {rand['n_cases']} cases. Such an explainer may describe the "
                                    "data rather than the model (Adebayo et al. 2018)."})
    return checks, warnings


def checks_table(checks: dict) -> pd.DataFrame:
    """The randomisation results as a small table (method, similarity, interval, n, ignores_model)."""
    rows = [{"method": m, **r} for m, r in checks.get("randomisation", {}).get("methods", {}).items()]
    return pd.DataFrame(rows, columns=["method", "similarity", "ci_low", "ci_high", "n", "ignores_model"])
