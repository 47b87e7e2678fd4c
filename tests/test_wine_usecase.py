"""The bundled wine use case (scikit-learn's wine data, 3 cultivars) end to end: the API run names the
task and the explained class everywhere a person reads, its personas rate, and the report says so."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.datasets import load_wine

from hexeval_engine import evaluate, get_usecase
from hexeval_engine.report.html import write_report
from hexeval_engine.runs.store import load_run
from small_runs import QUICK


def test_bundled_csv_is_scikit_learns_wine_data():
    uc = get_usecase("wine")
    frame = pd.read_csv(uc.data_path)
    wine = load_wine()
    np.testing.assert_allclose(frame.drop(columns="cultivar").to_numpy(), wine.data)
    assert (frame["cultivar"].to_numpy() == wine.target + 1).all()


@pytest.fixture(scope="module")
def wine_run(tmp_path_factory):
    return evaluate(usecase="wine", output_dir=tmp_path_factory.mktemp("runs"), config_overrides=QUICK)


def test_wine_run_names_the_task_and_each_explained_class(wine_run):
    result = wine_run
    assert result.manifest["task"]["description"] == "3-class classification"
    assert result.manifest["task"]["class_names"] == ["cultivar 1", "cultivar 2", "cultivar 3"]
    model = sio.load(get_usecase("wine").model_path, trusted=sio.get_untrusted_types(
        file=get_usecase("wine").model_path))
    ids = result.technical.instance_ids
    predicted = model.predict(result.data.X_test.iloc[ids])
    assert result.technical.explained_classes == {i: str(p) for i, p in zip(ids, predicted)}
    for e in result.technical.explanations:
        if e.method in ("SHAP", "LIME", "Anchor", "DiCE") and e.ok:
            name = f"cultivar {result.technical.explained_classes[e.instance_id]}"
            assert f"why {name} rather than the other two" in e.text, e.text
    ratings = result.persona_ratings
    assert set(ratings["persona_role"]) == {"Analytical Chemist in the Wine Laboratory",
                                            "Wine Buyer for a Regional Distributor",
                                            "Appellation Inspector for the Regional Consortium", "Wine Drinker"}
    assert (ratings["status"] == "ok").all()
    assert set(result.recommendations["stakeholders"]) == set(ratings["persona_role"])


def test_wine_report_names_the_task(wine_run, tmp_path):
    html = write_report(load_run(wine_run.output_path), tmp_path / "report.html").read_text(encoding="utf-8")
    assert "3-class classification (cultivar 1, cultivar 2, cultivar 3)" in html
    assert "rather than the other two" in html
