"""Issue 36 item 11: a wide metric table was cut at its last header ("LIME agrees with itse…"); it is now shown
in parts whose whole headers fit the wide layout, in order, each part leaving out methods it says nothing of."""

from __future__ import annotations

import pandas as pd

from hexeval_ui.metrics_table import MetricGroup
from hexeval_ui.technical_view import TABLE_PX, _fitting, _rows, column_px

LABELS = ["Largest change on a nudged case ↓", "Change per small step of the case ↓", "Same answer on noisy copies ↑",
          "LIME agrees with itself ↑"]


def _group() -> MetricGroup:
    frame = pd.DataFrame({"Method": ["SHAP", "LIME"], LABELS[0]: ["0.02", "0.59"], LABELS[1]: ["0.10", "4.38"],
                          LABELS[2]: ["1.00", "0.89"], LABELS[3]: ["—", "0.98"]})
    return MetricGroup("Stability", frame, {label: f"what {label} means" for label in LABELS})


def test_a_wide_table_is_shown_in_parts_that_fit_with_every_header_whole():
    parts = _fitting([_group()])
    assert sum(column_px(label) for label in LABELS) > TABLE_PX  # too wide as one table
    assert [(p.title, p.continues) for p in parts] == [("Stability", False), ("Stability", True)]
    assert [label for p in parts for label in p.help] == LABELS  # every metric once, in order
    for part in parts:
        assert sum(column_px(label) for label in part.help) <= TABLE_PX
        assert list(part.frame.columns) == ["Method", *part.help]
    assert parts[1].frame["Method"].tolist() == ["LIME"]  # SHAP has no value in the second part


def test_the_parts_of_a_table_stay_together_in_order_beside_narrow_tables():
    narrow = MetricGroup("Rules", pd.DataFrame({"Method": ["Anchor"], "Rule ↑": ["0.9"]}), {"Rule ↑": "a rule"})
    rows = _rows([narrow, *_fitting([_group()]), narrow])
    assert [[(g.title, g.continues) for g in row] for row in rows] == \
        [[("Rules", False)], [("Stability", False)], [("Stability", True)], [("Rules", False)]]
