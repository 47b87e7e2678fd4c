"""Model files are bounded before they are loaded (issue 36, item 1): what they expand to, how many parts they
have, the sizes they declare. Each crafted file below was accepted by the loaders before (or reached the library
that reserves the declared size); each is now refused with a message naming the limit or the contradiction.
The files are kept small: the declared sizes the old loaders would have reserved stay a few hundred MB."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
import skops.io as sio
from numpy.lib import format as npy
from onnx import TensorProto, helper
from sklearn.linear_model import LogisticRegression
from xgboost import XGBClassifier

from hexeval_engine import ModelError, get_usecase
from hexeval_engine.models import file_bounds
from hexeval_engine.models.model_loading import load_model


def _skops_model(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    model = LogisticRegression().fit(X, (X[:, 0] > 0).astype(int))
    path = tmp_path / "model.skops"
    sio.dump(model, path)
    return path


def _rewrite(path, replace) -> None:
    """Rewrite the zip at ``path``: ``replace(name, data) -> (data, compression)`` for each member."""
    with zipfile.ZipFile(path) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            data, compression = replace(name, data)
            archive.writestr(name, data, compress_type=compression)


def _largest_npy(path) -> str:
    with zipfile.ZipFile(path) as archive:
        return max((i for i in archive.infolist() if i.filename.endswith(".npy")), key=lambda i: i.file_size).filename


def test_a_bundled_model_passes_the_bounds():
    for name in ("heart", "credit_risk"):
        file_bounds.check_skops_archive(get_usecase(name).model_path)


def test_a_skops_member_compressed_a_thousand_to_one_is_refused(tmp_path):
    path = _skops_model(tmp_path)
    target = _largest_npy(path)

    def bomb(name, data):
        if name != target:
            return data, zipfile.ZIP_STORED
        buffer = io.BytesIO()
        np.save(buffer, np.zeros(4_000_000))  # 32 MB of zeros: ~32 KB deflated
        return buffer.getvalue(), zipfile.ZIP_DEFLATED

    _rewrite(path, bomb)
    assert path.stat().st_size < 100_000
    with pytest.raises(ModelError, match=r"compressed [\d,]+ to one .* more than 100 to one"):
        load_model(path)


def test_an_array_header_declaring_more_than_it_holds_is_refused(tmp_path):
    path = _skops_model(tmp_path)
    target = _largest_npy(path)

    def lie(name, data):
        if name != target:
            return data, zipfile.ZIP_STORED
        header = io.BytesIO()
        npy.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (5000, 5000)})
        return header.getvalue() + data[-8:], zipfile.ZIP_STORED  # declares 200 MB, holds 8 bytes

    _rewrite(path, lie)
    with pytest.raises(ModelError, match=r"declares 200,000,000 bytes \(5000x5000 of float64\) but stores 8 bytes"):
        load_model(path)


def test_a_skops_file_over_the_memory_ceiling_is_refused_naming_the_limit(monkeypatch):
    monkeypatch.setenv("HEXEVAL_MODEL_MEMORY_MB", "16")  # heart's forest: a 4.3 MB schema, ~45 MB to load
    with pytest.raises(ModelError, match=r"would take about 43 MiB of memory while loading, more than the 16 MiB .*\(HEXEVAL_MODEL_MEMORY_MB\)"):
        load_model(get_usecase("heart").model_path)


def test_a_skops_file_with_too_many_parts_is_refused(monkeypatch):
    monkeypatch.setattr(file_bounds, "MAX_MEMBERS", 100)
    with pytest.raises(ModelError, match=r"holds 1,009 parts, more than the 100"):
        load_model(get_usecase("heart").model_path)


def _xgboost_json(tmp_path, suffix=".json"):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 5))
    model = XGBClassifier(n_estimators=3, max_depth=2).fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))
    path = tmp_path / f"model{suffix}"
    model.save_model(path)
    return path


def test_an_xgboost_tree_declaring_more_nodes_than_it_holds_is_refused(tmp_path):
    path = _xgboost_json(tmp_path)
    model = json.loads(path.read_text())
    tree = model["learner"]["gradient_booster"]["model"]["trees"][0]
    held = len(tree["left_children"])
    tree["tree_param"]["num_nodes"] = "5000000"  # XGBoost resizes its node buffers to this before checking
    path.write_text(json.dumps(model))
    with pytest.raises(ModelError, match=rf"tree 0 declares 5,000,000 nodes but its left_children holds {held}"):
        load_model(path)


def test_an_xgboost_model_declaring_more_trees_or_classes_than_allowed_is_refused(tmp_path):
    path = _xgboost_json(tmp_path)
    model = json.loads(path.read_text())
    model["learner"]["learner_model_param"]["num_class"] = "4000000000"
    path.write_text(json.dumps(model))
    with pytest.raises(ModelError, match=r"declares num_class = 4000000000, outside 0 to 10,000"):
        load_model(path)


def test_a_ubj_model_whose_declared_count_runs_past_its_end_is_refused(tmp_path):
    path = _xgboost_json(tmp_path, ".ubj")
    data = path.read_bytes()
    key = b"left_children[$l#L"  # a typed int32 array, its count an int64
    at = data.index(key) + len(key)
    path.write_bytes(data[:at] + (10**8).to_bytes(8, "big") + data[at + 8:])  # 400 MB of int32 declared
    with pytest.raises(ModelError, match=r"declared count \(100,000,000 elements\) does not fit"):
        load_model(path)


def test_a_ubj_tree_with_a_false_node_count_is_refused(tmp_path):
    path = _xgboost_json(tmp_path, ".ubj")
    data = path.read_bytes()
    key = b"num_nodesSL" + (1).to_bytes(8, "big")  # the string "7" (3 trees of depth 2: 7 nodes or fewer)
    at = data.index(key) + len(key)
    path.write_bytes(data[:at] + b"9" + data[at + 1:])
    with pytest.raises(ModelError, match=r"declares 9 nodes but its left_children holds"):
        load_model(path)


def _onnx_file(tmp_path, graph_nodes, initializers, name="model.onnx"):
    graph = helper.make_graph(graph_nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
                              [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [None, 2])],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return path


def test_an_onnx_tensor_declaring_more_than_it_holds_is_refused(tmp_path):
    weight = helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])
    weight.dims[:] = [8000, 8000]  # declares 256 MB, holds 16 bytes
    path = _onnx_file(tmp_path, [helper.make_node("MatMul", ["x", "w"], ["z"]),
                                 helper.make_node("Softmax", ["z"], ["probabilities"])], [weight])
    with pytest.raises(ModelError, match=r"declares 256,000,000 bytes \(8000x8000\) but holds 16"):
        load_model(path)


def test_an_onnx_constant_the_runtime_would_fold_into_too_much_memory_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXEVAL_MODEL_MEMORY_MB", "16")
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [8000, 8000])  # 256 MB of float32 from 16 bytes
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["big"]),
             helper.make_node("ReduceSum", ["big"], ["total"], keepdims=0),
             helper.make_node("Add", ["x", "total"], ["z"]),
             helper.make_node("Softmax", ["z"], ["probabilities"])]
    path = _onnx_file(tmp_path, nodes, [shape])
    with pytest.raises(ModelError, match=r"computes a tensor \(big, 8000x8000\) .* more than the 16 MiB"):
        load_model(path)
