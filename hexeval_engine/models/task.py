"""What a model predicts — the task — and the words for its classes.

Public interface
----------------
``Task``  ``kind`` (``"binary"`` or ``"multiclass"``), ``class_labels``, ``class_names``, ``describe()``,
``name(k)``, ``rivals(k)``
``task_of(data, config) -> Task``

The task follows the target (see :func:`hexeval_engine.data.target.encode_target`, overridable with
``data.task``); a model of another number of classes is refused when it is loaded. A multi-class model
is explained one predicted class at a time, through a one-class view of the model
(:mod:`hexeval_engine.models.class_view`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..plain_values import plain, show
from ..vocabulary import format_number, humanise, join_words

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


@dataclass(frozen=True)
class Task:
    """The task of an evaluation.

    Attributes
    ----------
    kind : str
        ``"binary"``, ``"multiclass"`` or ``"regression"``.
    class_labels : tuple
        The target's values in class-index order.
    class_names : tuple of str
        The name each class has in texts (``data.class_names``, else the target and its value).
    quantity : str
        Regression: what the model predicts, in words (``domain.feature_descriptions`` of the target, else
        its name).
    unit : str
        Regression: the unit of the prediction (``domain.units`` of the target), or ``""``.
    """

    kind: str
    class_labels: tuple
    class_names: tuple
    quantity: str = ""
    unit: str = ""

    @property
    def n_classes(self) -> int:
        return len(self.class_labels)

    @property
    def is_multiclass(self) -> bool:
        return self.kind == "multiclass"

    @property
    def is_regression(self) -> bool:
        return self.kind == "regression"

    def describe(self) -> str:
        """``"binary classification"``, ``"3-class classification"`` or ``"regression"``."""
        if self.kind == "regression":
            return "regression"
        return "binary classification" if self.kind == "binary" else f"{self.n_classes}-class classification"

    def value_text(self, value: float) -> str:
        """A predicted value with the quantity and unit: ``"disease progression 212 (score)"``."""
        unit = f" ({self.unit})" if self.unit else ""
        return f"{self.quantity} {format_number(value)}{unit}"

    def name(self, k: int) -> str:
        """The name of class index ``k``."""
        return self.class_names[int(k)]

    def rivals(self, k: int) -> str:
        """The other classes in words: ``"the other two (Grignolino or Barbera)"``."""
        others = [n for j, n in enumerate(self.class_names) if j != int(k)]
        count = _NUMBER_WORDS.get(len(others), str(len(others)))
        listed = join_words(others, "or") if len(others) <= 4 else f"{others[0]}, … or {others[-1]}"
        return f"the other {count} ({listed})" if len(others) > 1 else others[0]

    def to_dict(self) -> dict:
        return {"kind": self.kind, "description": self.describe(),
                "class_labels": [str(plain(c)) for c in self.class_labels], "class_names": list(self.class_names),
                **({"quantity": self.quantity, "unit": self.unit} if self.is_regression else {})}


def task_of(data, config) -> Task:
    """The task of ``data`` (its number of classes), with the class names of ``config.data.class_names`` (else
    the target's value labels in ``domain.value_labels``, else the target's name and the value)."""
    labels = tuple(data.class_labels)
    if not labels:
        quantity = config.domain.feature_descriptions.get(data.target) or humanise(data.target).lower()
        return Task("regression", (), (), quantity, config.domain.units.get(data.target, ""))
    kind = "multiclass" if len(labels) > 2 else "binary"
    named = {**config.domain.value_labels.get(data.target, {}), **config.data.class_names}
    names = tuple(named.get(str(plain(c))) or unnamed_class(data.target, c) for c in labels)
    return Task(kind, labels, names)


def unnamed_class(target: str, label) -> str:
    """How a class of a multi-class target that has no name reads: the target's name and the value (``cultivar 3``)."""
    return f"{humanise(target).lower()} {show(label).strip(chr(39))}"
