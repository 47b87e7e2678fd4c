"""data.categorical_encoding: a bare XGBoost trained on label-encoded credit data evaluates end to end,
and its explanations still speak in the raw labels."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from sklearn.preprocessing import LabelEncoder

from hexeval_engine import ModelError, evaluate, load_config, load_model
from hexeval_engine.cli.main import main as cli
from hexeval_engine.data.input_encoding import category_codes
from hexeval_engine.runs.store import list_runs, load_run
from hexeval_engine.data.usecase_data import load_data_for_config

from label_encoded_model import label_encoded_credit_model
from test_evaluate_e2e import SMALL

TEXT_COLUMNS = ["person_home_ownership", "loan_intent", "loan_grade", "cb_person_default_on_file"]


@pytest.fixture(scope="module")
def bare_model(tmp_path_factory):
    return label_encoded_credit_model(tmp_path_factory.mktemp("bare"))


def _overrides(encoding: str) -> dict:
    return SMALL | {"data": {"categorical_encoding": encoding}, "personas": {"enabled": False}}


def test_label_codes_match_scikit_learns_label_encoder(bare_model):
    model_path, data_path = bare_model
    config = load_config(None, {"data": {"categorical_encoding": "label"}})
    data = load_data_for_config(data_path, config, "loan_status")
    codes = category_codes(data, config.data)
    assert sorted(codes) == sorted(TEXT_COLUMNS)
    raw = pd.read_csv(data_path)
    for col in TEXT_COLUMNS:
        assert codes[col] == list(LabelEncoder().fit(raw[col]).classes_)
    model = load_model(model_path)
    model.input_codes = codes
    coded = data.X_test.copy()
    for col in TEXT_COLUMNS:
        coded[col] = LabelEncoder().fit(raw[col]).transform(coded[col])
    expected = model.estimator.predict_proba(coded)[:, 1]
    assert model.predict_proba(data.X_test)[:, 1] == pytest.approx(expected)


def test_without_the_option_the_error_names_it(bare_model, tmp_path):
    model_path, data_path = bare_model
    with pytest.raises(ModelError) as err:
        evaluate(model_path, data_path, "loan_status", output_dir=tmp_path, config_overrides=_overrides("auto"))
    message = str(err.value)
    assert "data.categorical_encoding: label" in message and "loan_grade" in message
    assert "np." not in message and "dtype(" not in message


def test_engine_evaluates_end_to_end_and_explanations_show_labels(bare_model, tmp_path):
    model_path, data_path = bare_model
    result = evaluate(model_path, data_path, "loan_status", output_dir=tmp_path, config_overrides=_overrides("label"))
    assert not result.technical.failures
    methods = set(result.technical_metrics["method"])
    assert {"SHAP", "LIME", "Anchor", "DiCE"} <= methods
    texts = " ".join(e.text or "" for e in result.technical.explanations)
    assert re.search(r"loan.grade is [A-G]\b", texts) and not re.search(r"loan.grade is \d", texts)
    # the labels, worded for people ("Rent", not the code "RENT" nor an integer code)
    assert re.search(r"person.home.ownership is (Rent|Mortgage|Own|Other)\b", texts)
    assert "loan_status" not in texts  # the outcome is named in words, not by its column
    changed = [v for e in result.technical.explanations for cf in (e.counterfactuals or []) for v in cf.row.values()]
    assert changed and {"RENT", "MORTGAGE", "OWN", "OTHER"} & set(map(str, changed))
    shap_exp = next(e for e in result.technical.explanations if e.method == "SHAP")
    assert set(shap_exp.attributions) >= set(TEXT_COLUMNS)


def test_cli_evaluates_the_label_encoded_model(bare_model, tmp_path, capsys):
    model_path, data_path = bare_model
    code = cli(["evaluate", str(model_path), str(data_path), "--target", "loan_status", "--categorical-encoding",
                "label", "--no-personas", "--sample-size", "4", "--output", str(tmp_path / "runs"), "--quiet"])
    assert code == 0
    (info,) = list_runs(tmp_path / "runs")
    run = load_run(info.path)
    assert run.manifest["config"]["data"]["categorical_encoding"] == "label"
