"""ONNX models (converted here with skl2onnx): same probabilities as the original, refused when unsafe,
and a whole evaluation from the API and the CLI."""

from __future__ import annotations

import numpy as np
import onnx
import pandas as pd
import pytest
from onnx import TensorProto, helper
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from skl2onnx import to_onnx
from skl2onnx.common.data_types import FloatTensorType, StringTensorType

from hexeval_engine import ModelError, evaluate
from hexeval_engine.cli.main import main as cli
from hexeval_engine.models.model_loading import load_model

from test_evaluate_e2e import SMALL


def _numeric_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    y = ((X["a"] + 0.5 * X["b"]) > 0).astype(int)
    return X, y


def _mixed_data(n=400, seed=1):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"size": rng.normal(size=n), "colour": rng.choice(["red", "green", "blue"], size=n)})
    y = ((X["size"] + (X["colour"] == "red") * 1.5) > 0.5).astype(int)
    return X, y


def test_numeric_onnx_classifier_predicts_like_the_original(tmp_path):
    X, y = _numeric_data()
    model = RandomForestClassifier(n_estimators=20, random_state=0).fit(X.to_numpy(np.float32), y)
    path = tmp_path / "forest.onnx"
    path.write_bytes(to_onnx(model, X.to_numpy(np.float32)[:1]).SerializeToString())
    loaded = load_model(path)
    assert loaded.kind == "onnx"
    np.testing.assert_allclose(loaded.predict_proba(X)[:, 1], model.predict_proba(X.to_numpy(np.float32))[:, 1],
                               atol=1e-5)


def test_pipeline_with_text_columns_takes_one_input_per_column(tmp_path):
    X, y = _mixed_data()
    pipe = Pipeline([("prep", ColumnTransformer([("num", StandardScaler(), ["size"]),
                                                 ("cat", OneHotEncoder(handle_unknown="ignore"), ["colour"])])),
                     ("clf", LogisticRegression())]).fit(X, y)
    inputs = [("size", FloatTensorType([None, 1])), ("colour", StringTensorType([None, 1]))]
    path = tmp_path / "pipe.onnx"
    path.write_bytes(to_onnx(pipe, initial_types=inputs, options={"zipmap": True}).SerializeToString())
    loaded = load_model(path)
    assert loaded.feature_names == ["size", "colour"]
    assert list(loaded.class_labels) == [0, 1]
    np.testing.assert_allclose(loaded.predict_proba(X[["colour", "size"]])[:, 1], pipe.predict_proba(X)[:, 1],
                               atol=1e-5)


def _tiny_graph(*, domain="", external=False):
    weight = helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])
    if external:
        weight.data_location = TensorProto.EXTERNAL
        weight.ClearField("float_data")
        entry = weight.external_data.add()
        entry.key, entry.value = "location", "/etc/passwd"
    nodes = [helper.make_node("MatMul", ["x", "w"], ["z"]),
             helper.make_node("Softmax" if not domain else "Secret", ["z"], ["probabilities"], domain=domain)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
                              [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [None, 2])],
                              initializer=[weight])
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return helper.make_model(graph, opset_imports=opsets)


def test_network_graph_with_softmax_output_loads(tmp_path):
    path = tmp_path / "net.onnx"
    onnx.save_model(_tiny_graph(), path)
    loaded = load_model(path)
    proba = loaded.predict_proba(pd.DataFrame({"p": [0.0, 2.0], "q": [1.0, 0.0]}))
    expected = np.exp([[0.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(proba, expected / expected.sum(axis=1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("kwargs, words", [({"external": True}, "external data"),
                                           ({"domain": "evil.ops"}, "evil.ops")])
def test_unsafe_onnx_files_are_refused(tmp_path, kwargs, words):
    path = tmp_path / "unsafe.onnx"
    path.write_bytes(_tiny_graph(**kwargs).SerializeToString())
    with pytest.raises(ModelError, match=words) as err:
        load_model(path)
    assert str(tmp_path) not in str(err.value)


def test_not_an_onnx_file_gets_a_clear_message(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"this is not a model")
    with pytest.raises(ModelError, match="not a readable ONNX model"):
        load_model(path)


def test_evaluation_of_an_onnx_model_from_api_and_cli(tmp_path):
    X, y = _numeric_data(600)
    csv = tmp_path / "data.csv"
    X.assign(outcome=y).to_csv(csv, index=False)
    model = LogisticRegression().fit(X.to_numpy(np.float32), y)
    path = tmp_path / "linear.onnx"
    path.write_bytes(to_onnx(model, X.to_numpy(np.float32)[:1], options={"zipmap": False}).SerializeToString())
    result = evaluate(path, csv, "outcome", output_dir=tmp_path / "runs", config_overrides=SMALL)
    metrics = result.technical.metrics.set_index("method")
    assert {"SHAP", "LIME", "Random"} <= set(metrics.index)
    assert (metrics["error"].fillna("") == "").all()
    for method in ("SHAP", "LIME"):  # the outcome depends on a and b only: they lead every explanation
        explanations = [e for e in result.technical.explanations if e.method == method and e.attributions]
        assert explanations
        for e in explanations:
            top_two = sorted(e.attributions, key=lambda f: -abs(e.attributions[f]))[:2]
            assert "a" in top_two, (method, e.attributions)
    code = cli(["evaluate", str(path), str(csv), "--target", "outcome", "--no-personas",
                "--output", str(tmp_path / "cli_runs")])
    assert code == 0
