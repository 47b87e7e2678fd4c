"""Issue 36 item 9: an upload's texts read as its data describes it (class codes, units in column names,
the unit of each method's weights)."""

from __future__ import annotations

from types import SimpleNamespace

from hexeval_engine import HexevalConfig
from hexeval_engine.data.column_units import split_unit
from hexeval_engine.data.outcome_wording import name_outcomes as _name_outcomes, units_from_names as _units_from_names
from hexeval_engine.models.task import Task
from hexeval_engine.vocabulary import Vocabulary
from hexeval_ui.case_view import weight_unit


def _data(**kw):
    base = dict(target="price_k", feature_names=["area_m2", "rooms", "age_years", "distance_km"],
                numeric_features=["area_m2", "rooms", "age_years", "distance_km"], is_regression=True,
                class_labels=(), n_classes=0)
    return SimpleNamespace(**{**base, **kw})


def test_units_in_column_names_become_names_and_units():
    domain = _name_outcomes(_units_from_names(HexevalConfig(), _data()), _data()).domain
    words = Vocabulary.from_domain(domain)
    assert words.is_("area_m2", 98.4) == "area is 98.4 m²"  # was "area m2 is 98.4"
    assert words.is_("distance_km", 25.8) == "distance is 25.8 km"
    assert words.is_("age_years", 15) == "age is 15 years"
    assert words.is_("rooms", 5) == "rooms is 5"  # no unit in its name: left as it is
    quantity = Task("regression", (), (), domain.feature_descriptions["price_k"], domain.units["price_k"])
    assert quantity.value_text(212.0) == "price 212 (thousands)"  # was "price k 212"


def test_a_domain_that_describes_a_column_keeps_its_own_words():
    config = HexevalConfig()
    config = config.model_copy(update={"domain": config.domain.model_copy(
        update={"feature_descriptions": {"area_m2": "living area (square metres)"}})})
    domain = _units_from_names(config, _data()).domain
    assert domain.feature_descriptions["area_m2"] == "living area (square metres)" and "area_m2" not in domain.units


def test_only_a_trailing_known_unit_is_read():
    assert split_unit("price_k") == ("price", "thousand", "thousands")
    assert split_unit("k") is None and split_unit("top_k_features") is None and split_unit("rooms") is None


def test_a_class_code_reads_as_the_data_has_it_and_a_word_label_after_the_target():
    cancer = _data(target="malignant_or_benign", is_regression=False, class_labels=(0, 1), n_classes=2)
    domain = _name_outcomes(HexevalConfig(), cancer).domain
    # the earlier walk: "The model predicts: 1"; a code is a class of the target until the user names it
    assert domain.positive_outcome == "class 1 of malignant or benign"
    assert domain.negative_outcome == "class 0 of malignant or benign"
    churn = _data(target="status", is_regression=False, class_labels=("stayed", "churned"), n_classes=2)
    assert _name_outcomes(HexevalConfig(), churn).domain.positive_outcome == "status churned"


def test_each_method_s_weights_say_their_unit():
    assert weight_unit({"method": "SHAP", "extra": {"output": "log-odds"}})[0] == "in log-odds"
    assert weight_unit({"method": "LIME", "extra": {"local_r2": 0.6}})[0] == "in probability (0 to 1)"
    assert weight_unit({"method": "SHAP", "extra": {"output": "probability"}})[0] == "in probability (0 to 1)"
    assert "no unit" in weight_unit({"method": "Random", "extra": {}})[0]
