"""Real-browser test: ONNX models of the two new task kinds uploaded as a user brings them — a 3-class
classifier and a regressor, each exported with skl2onnx — run end to end on the dashboard, and the results
and the case explorer say which task it is and what each case is explained for. The server comes from
``local_server``, the browser from the session's ``chromium`` fixture; screenshots go to test-artifacts/."""

from __future__ import annotations

import re

import numpy as np
import pytest

from browser_env import browser_marks, playwright_sync_api
from local_server import streamlit_app
from test_browser_custom_upload import _pick, _session, _upload
from test_browser_e2e import _goto, _no_exception, _settle, _shot, _small_settings

pytestmark = browser_marks()
sync_api = playwright_sync_api()


def _iris_files(folder):
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier
    from skl2onnx import to_onnx

    d = load_iris(as_frame=True)
    frame = d.frame.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    frame["species"] = frame.pop("target").map(dict(enumerate(d.target_names)))
    X = frame.drop(columns="species").to_numpy(np.float32)
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, frame["species"])
    (folder / "iris.csv").write_text(frame.to_csv(index=False))
    (folder / "iris.onnx").write_bytes(to_onnx(forest, X[:1]).SerializeToString())
    return folder / "iris.onnx", folder / "iris.csv", "species"


def _diabetes_files(folder):
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from skl2onnx import to_onnx

    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "progression"})
    X = frame.drop(columns="progression").to_numpy(np.float32)
    fitted = make_pipeline(StandardScaler(), LinearRegression()).fit(X, frame["progression"])
    (folder / "diabetes.csv").write_text(frame.to_csv(index=False))
    (folder / "diabetes.onnx").write_bytes(to_onnx(fitted, X[:1]).SerializeToString())
    return folder / "diabetes.onnx", folder / "diabetes.csv", "progression"


@pytest.mark.parametrize("kind", ["3-class", "regression"])
def test_an_onnx_model_of_a_new_task_kind_runs_from_the_dashboard(tmp_path, chromium, kind):
    files = tmp_path / "files"
    files.mkdir()
    model, csv, target = (_iris_files if kind == "3-class" else _diabetes_files)(files)
    with streamlit_app(tmp_path / "outputs", tmp_path / "server.log") as url, _session(chromium, url) as page:
        _pick(page, "Use case", "Custom Upload")
        _upload(page, "Model file", model)
        _upload(page, "Data (CSV", csv)
        picker = page.get_by_role("combobox", name="Target column")
        if picker.input_value() != target:
            picker.click()
            page.get_by_role("option", name=target, exact=True).click()
            _settle(page)
        page.get_by_text("Ready to run").wait_for(timeout=60_000)
        _no_exception(page)
        _small_settings(page)
        page.get_by_role("button", name="Run evaluation").click()
        page.get_by_text("See the results").wait_for(timeout=240_000)
        _no_exception(page)
        page.get_by_text("See the results").click()
        page.get_by_role("heading", name="Results", level=1).wait_for()
        if kind == "3-class":
            page.get_by_text("3-class classification").first.wait_for()
        else:
            page.get_by_text(re.compile(r"Regression of .*each case is explained on one side of a band")).first.wait_for()
        page.get_by_role("tab", name="Case explorer").click()
        _settle(page)
        explained = (r"explains why species (setosa|versicolor|virginica) rather than the other two" if kind == "3-class"
                     else r"explains why the prediction is this (high|low)")
        page.get_by_text(re.compile(explained)).first.wait_for()
        _no_exception(page)
        _shot(page, f"25_onnx_{kind}_case_explorer")
        _goto(page, "Recommendations")
        page.get_by_text("Who should see what").wait_for()
        _no_exception(page)
