"""Keep the garbage collector's full passes off the objects a run did not create.

Python's cyclic garbage collector now and then makes a full pass over every tracked object. In a process that
has loaded the explainer stack (shap, LIME, scikit-learn, pandas, XGBoost: about 315,000 objects) one pass took
0.18 s, and a run's own allocations set one off in nearly every run (credit risk at the original's defaults:
one full pass, 0.18 of its 0.19 s of collection; the run is about 3 s). :data:`old_objects_frozen` moves every
object alive when the first evaluation in the process begins to the collector's permanent generation
(``gc.freeze``), so full passes look only at what runs allocate, and moves them back (``gc.unfreeze``) when the
last overlapping evaluation ends: garbage among them (a result the dashboard dropped) is collected as before, just
not during a run. Collection decides only when memory is reclaimed, never what a run computes.

A process that froze objects itself (``gc.get_freeze_count() > 0`` before the first evaluation) keeps its own
choice: nothing is frozen or unfrozen for it.
"""

from __future__ import annotations

import gc

from .counted_switch import CountedSwitch


def _freeze() -> bool:
    if gc.get_freeze_count():  # frozen by the process itself (or a library): its choice, left alone
        return False
    gc.freeze()
    return True


def _unfreeze(froze: bool) -> None:
    if froze:
        gc.unfreeze()


#: ``with old_objects_frozen():`` runs with the objects alive at the first block's start frozen (module docstring).
old_objects_frozen = CountedSwitch(_freeze, _unfreeze)
