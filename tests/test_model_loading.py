"""load_model: safe formats always, pickles only when allowed, and a code-running pickle never runs."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.preprocessing import FunctionTransformer
from sklearn.svm import SVC
from xgboost import XGBClassifier

from hexeval_engine import ModelError, load_data, load_model, validate_model_data_compatibility
from hexeval_engine.runs.model_audits import MODEL_AUDITS


class _CreatesFile:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


@pytest.fixture
def small(tmp_path):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    y = (X["a"] + 0.3 * rng.normal(size=80) > 0).astype(int)
    csv = tmp_path / "d.csv"
    X.assign(target=y).to_csv(csv, index=False)
    return X, y, csv


def test_malicious_pickle_refused_without_running(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(_CreatesFile(marker)))
    with pytest.raises(ModelError, match="Refusing to open the pickle file") as err:
        load_model(path)
    assert "skops.io.dump" in str(err.value) and "save_model" in str(err.value)
    assert not marker.exists()


def test_skops_type_outside_allow_list_refused(tmp_path, small):
    X, y, _ = small
    model = FunctionTransformer(func=eval)  # a skops file that would hand back eval
    path = tmp_path / "bad.skops"
    sio.dump(model, path)
    with pytest.raises(ModelError, match="outside HEXEval's allow-list: builtins.eval"):
        load_model(path)


def test_skops_and_xgboost_json_load(tmp_path, small):
    X, y, csv = small
    path = tmp_path / "lr.skops"
    sio.dump(LogisticRegression().fit(X, y), path)
    m = load_model(path)
    assert m.feature_names == ["a", "b"] and m.predict_proba(X).shape == (80, 2)
    xgb = XGBClassifier(n_estimators=5).fit(X, y)
    json_path = tmp_path / "m.json"
    xgb.save_model(json_path)
    mx = load_model(json_path)
    assert mx.feature_names == ["a", "b"] and np.allclose(mx.predict_proba(X), xgb.predict_proba(X))
    data = load_data(csv, "target")
    assert validate_model_data_compatibility(mx, data)["status"] == "valid"


def test_pickle_dict_artefact_when_allowed(tmp_path, small):
    X, y, _ = small
    path = tmp_path / "m.joblib"
    joblib.dump({"model": LogisticRegression().fit(X.to_numpy(), y), "preprocessor": None,
                 "feature_names": ["a", "b"], "threshold": 0.4}, path)
    m = load_model(path, allow_pickle=True)
    assert m.threshold == 0.4 and m.predict_proba(X).shape == (80, 2)


def test_models_that_cannot_be_evaluated(tmp_path, small):
    X, y, _ = small
    path = tmp_path / "reg.joblib"
    joblib.dump(LinearRegression().fit(X, y), path)
    with pytest.raises(ModelError, match="LinearRegression. is a regressor"):
        load_model(path, allow_pickle=True)
    multi = tmp_path / "multi.joblib"
    joblib.dump(LogisticRegression().fit(X, np.arange(80) % 3), multi)
    assert load_model(multi, allow_pickle=True).n_classes == 3  # multi-class models load; a K mismatch with
    # the data is refused (tests/test_task_mismatch.py)
    svc = tmp_path / "svc.joblib"
    joblib.dump(SVC().fit(X, y), svc)
    with pytest.raises(ModelError, match="CalibratedClassifierCV|predict_proba"):
        load_model(svc, allow_pickle=True).predict_proba(X)
    with pytest.raises(ModelError, match="Unsupported model file type '.h5'"):
        (tmp_path / "m.h5").write_bytes(b"x")
        load_model(tmp_path / "m.h5")
    with pytest.raises(ModelError, match="not a skops model"):
        (tmp_path / "broken.skops").write_bytes(b"not a zip")
        load_model(tmp_path / "broken.skops")


def test_validation_reports_missing_features_and_constant_predictions(tmp_path, small):
    X, y, csv = small
    path = tmp_path / "lr.skops"
    sio.dump(LogisticRegression().fit(X.assign(c=1.0), y), path)
    data = load_data(csv, "target")
    result = validate_model_data_compatibility(load_model(path), data)
    assert result["status"] == "invalid" and "c" in result["errors"][0]
    const = tmp_path / "const.skops"
    sio.dump(LogisticRegression().fit(X, np.r_[np.ones(79), 0].astype(int)), const)
    result = validate_model_data_compatibility(load_model(const, threshold=0.001), data)
    assert result["status"] == "invalid" and "for every one of" in result["errors"][0]


def test_bundled_models_validate(usecase_bundle):
    for name in ("heart", "credit_risk"):
        _, _, data, model = usecase_bundle(name)
        result = validate_model_data_compatibility(model, data)
        assert result["status"] == "valid", result
        assert model.kind == "skops" and len(model.sha256) == 64


def test_a_skops_file_renamed_to_json_is_recognised_without_a_trace(tmp_path, small):
    """The message names what the file really is; XGBoost's C++ trace and server paths stay in the log."""
    X, y, _ = small
    path = tmp_path / "renamed.json"
    sio.dump(LogisticRegression().fit(X, y), path)
    with pytest.raises(ModelError) as err:
        load_model(path)
    message = str(err.value)
    assert "'renamed.json' is not a readable XGBoost model file" in message and "a skops archive (.skops)" in message
    assert "/" not in message.replace("/.ubj", "") and "[bt]" not in message


class _Audits:
    """Counts the full skops audits (the types a file asks for, listed by skops)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real = sio.get_untrusted_types

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(sio, "get_untrusted_types", counted)


def test_a_skops_file_audited_once_is_not_audited_again_until_its_bytes_change(tmp_path, small, monkeypatch):
    X, y, _ = small
    audits = _Audits(monkeypatch)
    path = tmp_path / "lr.skops"
    sio.dump(LogisticRegression().fit(X, y), path)
    first = load_model(path, audits=MODEL_AUDITS)
    assert audits.calls == 1
    again = load_model(path, audits=MODEL_AUDITS)
    assert audits.calls == 1 and again.sha256 == first.sha256  # the verdict on these bytes is remembered
    assert np.array_equal(again.predict_proba(X), first.predict_proba(X))
    sio.dump(LogisticRegression(C=0.01).fit(X, y), path)  # other bytes at the same path
    other = load_model(path, audits=MODEL_AUDITS)
    assert audits.calls == 2 and other.sha256 != first.sha256
    load_model(path)  # a caller without remembered audits (an upload's check) audits every time
    assert audits.calls == 3


def test_a_refused_skops_file_is_refused_every_time_and_a_forged_verdict_is_not_trusted(tmp_path, small, monkeypatch):
    from hexeval_engine.runs import model_audits
    from hexeval_engine.runs.explanation_store import PieceStore

    audits = _Audits(monkeypatch)
    path = tmp_path / "bad.skops"
    sio.dump(FunctionTransformer(func=eval), path)
    for expected_calls in (1, 2):  # a refusal is never remembered: the full audit runs again
        with pytest.raises(ModelError, match="outside HEXEval's allow-list: builtins.eval"):
            load_model(path, audits=MODEL_AUDITS)
        assert audits.calls == expected_calls
    # a verdict "this file passed" written by someone without this installation's key
    sha = model_audits.hashlib.sha256(path.read_bytes()).hexdigest()
    store = model_audits._store()
    PieceStore(store.folder, b"someone else's secret..........").put(model_audits._key(sha), ["builtins.eval"])
    with pytest.raises(ModelError, match="outside HEXEval's allow-list: builtins.eval"):
        load_model(path, audits=MODEL_AUDITS)
    assert audits.calls == 3


class _Rebuilds:
    """Counts the models skops rebuilds from a file's bytes."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real = sio.loads

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(sio, "loads", counted)


def test_a_skops_model_rebuilt_after_its_audit_is_used_again_and_a_forged_one_is_not(tmp_path, small, monkeypatch):
    from hexeval_engine.runs import model_audits
    from hexeval_engine.runs.explanation_store import PieceStore

    monkeypatch.setenv("HEXEVAL_SIGNING_KEY", str(tmp_path / "key" / "run-signing.key"))
    X, y, _ = small
    rebuilds = _Rebuilds(monkeypatch)
    path = tmp_path / "forest.skops"
    sio.dump(RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y), path)
    first = load_model(path, audits=MODEL_AUDITS)
    again = load_model(path, audits=MODEL_AUDITS)
    assert rebuilds.calls == 1  # the second load took the model rebuilt by the first
    assert np.array_equal(again.predict_proba(X), first.predict_proba(X))
    assert again.estimator is not first.estimator and again.estimator.get_params() == first.estimator.get_params()
    # a "rebuilt model" written by someone without this installation's key is not unpickled
    sha = model_audits.hashlib.sha256(path.read_bytes()).hexdigest()
    marker = tmp_path / "pwned"
    PieceStore(model_audits._store().folder, b"someone else's secret..........").put(
        model_audits._key(sha, "skops-model"), {"model": _CreatesFile(marker)})
    forged = load_model(path, audits=MODEL_AUDITS)
    assert rebuilds.calls == 2 and not marker.exists()
    assert np.array_equal(forged.predict_proba(X), first.predict_proba(X))


def test_remembered_model_checks_are_pruned_to_their_size_limit(tmp_path, small, monkeypatch):
    from hexeval_engine.runs import model_audits

    monkeypatch.setenv("HEXEVAL_SIGNING_KEY", str(tmp_path / "key" / "run-signing.key"))
    X, y, _ = small
    audits, rebuilds = _Audits(monkeypatch), _Rebuilds(monkeypatch)
    files = [tmp_path / f"lr{k}.skops" for k in range(5)]
    for k, path in enumerate(files):  # five files of the same size (other bytes)
        sio.dump(LogisticRegression(C=1.0 + k).fit(X, y), path)
    load_model(files[0], audits=MODEL_AUDITS)
    entries, one_file = model_audits.size()  # its verdict and its model
    assert entries == 2
    # room for four files' verdicts and models (a model may take up to a quarter of the limit)
    monkeypatch.setenv("HEXEVAL_MODEL_AUDITS_LIMIT_MB", str((4 * one_file + 100) / (1024 * 1024)))
    for path in files[1:]:
        time.sleep(0.02)  # the earlier files' entries are the less recently used
        load_model(path, audits=MODEL_AUDITS)
        assert model_audits.size()[1] <= model_audits.limit()
    assert model_audits.size()[0] == 8
    load_model(files[1], audits=MODEL_AUDITS)
    assert (audits.calls, rebuilds.calls) == (5, 5)  # still remembered: neither audited nor rebuilt again
    load_model(files[0], audits=MODEL_AUDITS)
    assert (audits.calls, rebuilds.calls) == (6, 6)  # the least recently used were pruned: audited and rebuilt again
    # `hexeval runs clean` prunes them too
    env = {**os.environ, "HEXEVAL_MODEL_AUDITS_LIMIT_MB": "0", "PYTHONPATH": str(Path(__file__).parents[1])}
    cleaned = subprocess.run([sys.executable, "-m", "hexeval_engine", "runs", "clean", "--output",
                              str(tmp_path / "runs")], capture_output=True, text=True, env=env, timeout=300)
    assert cleaned.returncode == 0, cleaned.stderr
    assert "remembered model checks hold 0 entries" in cleaned.stdout, cleaned.stdout
    assert model_audits.size() == (0, 0)
    load_model(files[1], audits=MODEL_AUDITS)
    assert (audits.calls, rebuilds.calls) == (7, 7)


def test_a_model_too_large_to_remember_is_pickled_only_up_to_the_cap_and_not_again(tmp_path, small, monkeypatch):
    """A model whose pickle would take more than a quarter of the remembered models' limit is not kept; its pickling
    stops at that size (a large model is not copied whole into memory on every load) and later loads of the same
    bytes do not try again. Under a larger limit the same file is kept."""
    from hexeval_engine.runs import model_audits

    monkeypatch.setenv("HEXEVAL_SIGNING_KEY", str(tmp_path / "key" / "run-signing.key"))
    X, y, _ = small
    path = tmp_path / "forest.skops"
    forest = RandomForestClassifier(n_estimators=40, random_state=0).fit(X, y)
    sio.dump(forest, path)
    whole = len(pickle.dumps({"model": forest}, protocol=pickle.HIGHEST_PROTOCOL))
    cap = whole // 3
    monkeypatch.setenv("HEXEVAL_MODEL_AUDITS_LIMIT_MB", str(4 * cap / (1024 * 1024)))
    written = []
    real_write = model_audits._Bounded.write

    def counted(self, chunk):
        written.append(memoryview(chunk).nbytes)
        return real_write(self, chunk)

    monkeypatch.setattr(model_audits._Bounded, "write", counted)
    rebuilds = _Rebuilds(monkeypatch)
    first = load_model(path, audits=MODEL_AUDITS)
    assert 0 < sum(written) <= cap + 70_000  # stopped near the cap (one pickle frame past it at most), not the whole
    before = len(written)
    again = load_model(path, audits=MODEL_AUDITS)
    assert rebuilds.calls == 2 and len(written) == before  # rebuilt again, and not pickled again
    assert np.array_equal(again.predict_proba(X), first.predict_proba(X))
    monkeypatch.setenv("HEXEVAL_MODEL_AUDITS_LIMIT_MB", str(8 * whole / (1024 * 1024)))  # room for it now
    load_model(path, audits=MODEL_AUDITS)
    kept = load_model(path, audits=MODEL_AUDITS)
    assert rebuilds.calls == 3  # the third load kept it, the fourth took it from the folder
    assert np.array_equal(kept.predict_proba(X), first.predict_proba(X))
