"""The bundled diabetes use case (scikit-learn's diabetes data, regression) end to end: the CSV is the
package's data, the API run explains each case on a side of its predicted value in the quantity's words,
its personas rate, and the start page offers it.

Oracles: scikit-learn's ``load_diabetes`` (the data), the saved regressor re-predicting the cases, the
persona file's roles read here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
import yaml
from sklearn.datasets import load_diabetes

from streamlit.testing.v1 import AppTest

from app_helpers import ROOT
from hexeval_engine import evaluate, get_usecase
from small_runs import QUICK


def test_bundled_csv_is_scikit_learns_diabetes_data():
    frame = pd.read_csv(get_usecase("diabetes").data_path)
    diabetes = load_diabetes(scaled=False)
    np.testing.assert_allclose(frame.drop(columns="disease_progression").to_numpy(), diabetes.data)
    np.testing.assert_allclose(frame["disease_progression"].to_numpy(), diabetes.target)


@pytest.fixture(scope="module")
def diabetes_run(tmp_path_factory):
    return evaluate(usecase="diabetes", output_dir=tmp_path_factory.mktemp("runs"), config_overrides=QUICK)


def test_diabetes_run_explains_the_predicted_progression(diabetes_run):
    result = diabetes_run
    uc = get_usecase("diabetes")
    assert result.manifest["task"]["description"] == "regression"
    model = sio.load(uc.model_path, trusted=sio.get_untrusted_types(file=uc.model_path))
    X_test = result.data.X_test[list(result.data.feature_names)]
    for e in (e for e in result.technical.explanations if e.ok and e.method in ("SHAP", "LIME", "Anchor", "DiCE")):
        value = float(model.predict(X_test.iloc[[e.instance_id]])[0])
        assert e.extra["value_view"]["prediction"] == pytest.approx(value)
        assert "disease progression" in e.text and "(score)" in e.text, e.text
        assert "s5" not in e.text and "bmi" not in e.text  # features in words, never column names
    roles = {p["role"] for p in yaml.safe_load(uc.personas_path.read_text(encoding="utf-8"))["personas"]}
    ratings = result.persona_ratings
    assert set(ratings["persona_role"]) == roles
    assert (ratings["status"] == "ok").all()
    assert set(result.recommendations["stakeholders"]) == roles


def test_start_page_offers_the_diabetes_use_case():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    buttons = {b.key for b in at.button}
    assert {"open_diabetes", "open_wine", "open_heart", "open_credit_risk", "open_custom"} <= buttons
    assert any("How far will a patient's diabetes progress in a year?" in c.value for c in at.caption)
    next(b for b in at.button if b.key == "open_diabetes").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["usecase"] == "diabetes"
