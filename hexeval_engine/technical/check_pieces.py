"""The randomisation check's re-fitted model and re-explanations as stored pieces (issue 34).

The check (:mod:`.sanity`) fits the model again on permuted labels and re-explains the first shared cases with it.
With the helper process that work starts during the technical stage; either way it is stored, as soon as it is
done, under a key of everything that determines it (:class:`~hexeval_engine.runs.checkpoints.Pieces`: model and data
hashes, versions, the engine's code, the technical settings; for re-explanations also the method, the cases and
Anchor's request caps), so a run resumed after an interruption, or a later run of the same model, data and settings,
neither fits nor re-explains again. A stored result is the one computing it gives: the fit and the explanations are
deterministic (same data, permuted labels, parameters and seeds).
"""

from __future__ import annotations

import logging
import pickle

log = logging.getLogger(__name__)


class CheckPieces:
    """Where one run's check looks its re-fit and re-explanations up and keeps them.

    Parameters
    ----------
    pieces : Pieces or None
        The run's pieces (:func:`~hexeval_engine.runs.checkpoints.open_pieces`); None or disabled: nothing is kept.
    config : HexevalConfig
    """

    def __init__(self, pieces, config):
        self.pieces = pieces if pieces is not None and pieces.enabled else None
        self.config = config
        self._fit = None  # the stored re-fit, once read
        self._reruns: dict = {}  # plan -> stored re-explanations (or None), once read
        self._made: dict = {}  # plan -> re-explanations this run made (kept even when nothing is stored)

    def _key(self, kind: str, **parts) -> str:
        return self.pieces.settings_key(kind, self.config, **parts)

    def _put(self, key: str, value) -> None:
        try:
            self.pieces.put(key, value)
        except (pickle.PicklingError, TypeError, AttributeError) as err:  # an estimator that cannot be pickled
            log.warning("The randomisation check's work could not be kept for a resumed run (%s: %s); it would be "
                        "done again.", type(err).__name__, err)

    def fit(self, *, counted: bool = True):
        """The stored re-fit (``(estimator, "")``), or None (read from the store once). ``counted``: the check uses
        it (counted as reused); else it is only handed on (to the helper process, :func:`~.overlap.announce`)."""
        if self.pieces is None:
            return None
        if self._fit is None:
            self._fit = self.pieces.get(self._key("randomised-fit"))
        if self._fit is not None and counted:
            self.pieces.checks_reused += 1
        return self._fit

    def keep_fit(self, fitted) -> None:
        """Keep a re-fit that succeeded (``(estimator, "")``; a failure is not kept: it is tried again)."""
        if self.pieces is not None and fitted is not None and fitted[0] is not None:
            self._put(self._key("randomised-fit"), fitted)

    def reruns(self, plan: tuple, *, counted: bool = True):
        """The stored re-explanations of ``plan`` (``(method, ids, rows, caps)``), or None (each plan read from the
        store once), or those this run made already (:meth:`keep_reruns`; not counted). ``counted``: the check uses
        them (counted as reused); else the caller only asks whether they are there (:func:`~.sanity.queue_reruns`
        queues no such plan to the helper)."""
        if plan in self._made:
            return self._made[plan]
        if self.pieces is None:
            return None
        if plan not in self._reruns:
            self._reruns[plan] = self.pieces.get(self._key("randomised-reruns", plan=list(plan)))
        done = self._reruns[plan]
        if done is not None and counted:
            self.pieces.checks_reused += 1
        return done

    def keep_reruns(self, plan: tuple, explanations) -> None:
        """Keep re-explanations this run made: for its own check (:meth:`reruns`) and, when pieces are stored, for
        a resumed or later run."""
        if explanations is None:
            return
        self._made[plan] = explanations
        if self.pieces is not None:
            self._put(self._key("randomised-reruns", plan=list(plan)), explanations)

    def keep_when_done(self, future, keep) -> None:
        """``keep(result)`` as soon as the helper's ``future`` succeeds (from the thread that receives it)."""
        if self.pieces is None or future is None:
            return

        def done(f):
            if not f.cancelled() and f.exception() is None:
                keep(f.result())

        future.add_done_callback(done)

    def keep_queued(self, queued: dict) -> None:
        """Keep each re-explanation queued to the helper (``{plan: future}``) as soon as it comes back."""
        for plan, future in queued.items():
            self.keep_when_done(future, lambda result, plan=plan: self.keep_reruns(plan, result))
