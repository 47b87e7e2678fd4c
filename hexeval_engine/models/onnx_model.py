"""ONNX models: checked for safety, run through ``onnxruntime``, seen as a scikit-learn-like classifier.

Public interface
----------------
``load_onnx(path) -> OnnxClassifier``   refuse unsafe files, open the rest in onnxruntime
``check_onnx_safety(model, name)``      external data files and custom-operator domains are refused
``ALLOWED_DOMAINS``                      operator domains onnxruntime implements itself

An ``.onnx`` file is a graph of operators with their weights; loading it executes no code, so it
is accepted from uploads like skops and XGBoost JSON. Two things could still reach outside the
file: tensors stored in *external data files* (a path the file names, which would be read from the
server's disk) and *custom operators* from domains onnxruntime does not implement (they need a
shared library to be loaded). Both are refused before a session is created; the session is built
from the file's bytes, so no path is ever resolved.

Inputs: either one tensor input of shape ``(n, p)`` (the CSV's feature columns in order, as
``skl2onnx`` writes for a numeric ``FloatTensorType([None, p])``, PyTorch's ``torch.onnx.export``
and ``tf2onnx`` write for a single input), or one ``(n, 1)`` input per CSV column named after it
(``skl2onnx`` for a pipeline with a ``ColumnTransformer``). Outputs: a probability tensor
``(n, K)`` or the ``ZipMap`` list of ``{class: probability}`` that ``skl2onnx`` writes by default;
class labels come from the graph's ``classlabels_*`` attributes when it has them.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ModelError
from .file_bounds import MEMORY_ENV, check_onnx_sizes, memory_ceiling

log = logging.getLogger(__name__)

#: Operator domains onnxruntime implements itself (standard ONNX, ONNX-ML, its own contrib ops).
ALLOWED_DOMAINS = frozenset({"", "ai.onnx", "ai.onnx.ml", "com.microsoft"})

_NUMPY_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(int64)": np.int64,
                "tensor(int32)": np.int32, "tensor(bool)": np.bool_}


def load_onnx(path, *, regression: bool = False) -> "OnnxClassifier":
    """Open an ``.onnx`` file after the safety checks; see the module docstring. ``regression``: the graph is a
    regressor (:class:`OnnxRegressor`; the data's target is a number).

    Raises
    ------
    ModelError
        The file is not ONNX, stores tensors in external files, uses custom operators, or cannot be
        opened by onnxruntime.
    """
    import onnx  # heavy; imported only when an ONNX file is opened

    path = Path(path)
    if 3 * path.stat().st_size > memory_ceiling():  # the bytes, the parsed graph and onnxruntime's copy
        raise ModelError(f"'{path.name}' is {path.stat().st_size / 1024 / 1024:,.0f} MiB: loading it would take more "
                         f"than the {memory_ceiling() / 1024 / 1024:,.0f} MiB a model may take on this server, so it "
                         f"was not loaded. Use a smaller model, or ask the operator to raise the limit ({MEMORY_ENV}).")
    raw = path.read_bytes()
    try:
        proto = onnx.load_model_from_string(raw)
    except Exception as err:  # protobuf raises DecodeError and others for a file that is not ONNX
        log.info("onnx could not parse %s: %s", path, err)
        raise ModelError(f"'{path.name}' is not a readable ONNX model. Export it again, e.g. with "
                         "skl2onnx.to_onnx(model, X[:1]) or torch.onnx.export(...).") from err
    check_onnx_safety(proto, path.name)
    check_onnx_sizes(proto, path.name, _all_tensors(proto))  # declared shapes vs data; constants it would fold
    return (OnnxRegressor if regression else OnnxClassifier)(proto, raw, name=path.name)


def check_onnx_safety(proto, name: str) -> None:
    """Refuse a model that stores tensors in external files or uses operators from unknown domains."""
    external = [t.name or "(unnamed)" for t in _all_tensors(proto) if t.data_location == 1]  # TensorProto.EXTERNAL
    if external:
        raise ModelError(f"'{name}' keeps {len(external)} weight tensor(s) in external data files (e.g. "
                         f"{external[0]}); such files would be read from the server's disk, so the model is refused. "
                         "Save the model as one file: onnx.save_model(model, 'model.onnx', save_as_external_data=False) "
                         "(models under 2 GB fit in one file).")
    local = {f.domain for f in proto.functions}
    domains = {n.domain for n in _all_nodes(proto)} | {o.domain for o in proto.opset_import}
    custom = sorted(d for d in domains - ALLOWED_DOMAINS - local)
    if custom:
        raise ModelError(f"'{name}' uses operators from the domain(s) {', '.join(custom)}, which need a custom-operator "
                         "library to be loaded; HEXEval loads none, so the model is refused. Export it with standard "
                         "ONNX operators only.")


def _all_nodes(proto):
    graphs = [proto.graph] + [f for f in proto.functions]
    while graphs:
        graph = graphs.pop()
        for node in graph.node:
            yield node
            for attr in node.attribute:
                graphs.extend(([attr.g] if attr.HasField("g") else []) + list(attr.graphs))


def _all_tensors(proto):
    graphs = [proto.graph]
    while graphs:
        graph = graphs.pop()
        yield from graph.initializer
        for node in graph.node:
            for attr in node.attribute:
                if attr.HasField("t"):
                    yield attr.t
                yield from attr.tensors
                graphs.extend(([attr.g] if attr.HasField("g") else []) + list(attr.graphs))


class OnnxClassifier:
    """A classifier in an ONNX graph with scikit-learn's ``predict_proba`` / ``classes_`` interface.

    Parameters
    ----------
    proto : onnx.ModelProto
        The checked model (see :func:`check_onnx_safety`).
    raw : bytes
        The file's bytes; the onnxruntime session is built from them.
    name : str
        The file name, for messages.

    Attributes
    ----------
    opaque_graph : bool
        Always ``True``: explainers treat the model as a black box (no tree or linear shortcut).
    """

    opaque_graph = True

    def __init__(self, proto, raw: bytes, *, name: str):
        import onnxruntime as ort  # heavy; imported only when an ONNX file is opened

        options = ort.SessionOptions()
        # Explainers send many small batches: one thread avoids start-up and contention costs (as for XGBoost).
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(raw, sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own Fail/InvalidGraph/NotImplemented types
            log.info("onnxruntime could not open %s: %s", name, err)
            raise ModelError(f"onnxruntime cannot run '{name}' (an operator or opset it does not support). Export "
                             "the model again with a lower opset (e.g. target_opset=17).") from err
        self.name = name
        self._inputs = self._session.get_inputs()
        self._describe(proto)
        if len(self._inputs) > 1:
            self.feature_names_in_ = np.asarray([i.name for i in self._inputs], dtype=object)

    def _describe(self, proto) -> None:
        """Find the probability output and the class labels."""
        self._proba_output = self._probability_output()
        self.classes_ = np.asarray(_class_labels(proto, self._n_classes()))

    def _probability_output(self) -> str:
        outputs = self._session.get_outputs()
        for out in outputs:
            if out.type.startswith("seq(map") or "prob" in out.name.lower():
                return out.name
        float_outputs = [o for o in outputs if o.type in ("tensor(float)", "tensor(double)") and len(o.shape) == 2]
        if len(outputs) == 1 and float_outputs and float_outputs[0].shape[1] not in (1, None):
            return float_outputs[0].name
        shapes = ", ".join(f"{o.name} {o.type}" for o in outputs)
        raise ModelError(f"'{self.name}' has no class-probability output (its outputs: {shapes}). HEXEval needs a "
                         "classifier whose ONNX graph returns probabilities: export the model with its probability "
                         "output (skl2onnx does this for classifiers; for a network, end it with a softmax).")

    def _n_classes(self) -> int | None:
        out = next(o for o in self._session.get_outputs() if o.name == self._proba_output)
        width = out.shape[1] if out.type.startswith("tensor") and len(out.shape) == 2 else None
        return width if isinstance(width, int) else None

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities for the rows of ``X`` (a DataFrame of the model's columns, or a matrix)."""
        feed = self._feed(X)
        try:
            (proba,) = self._session.run([self._proba_output], feed)
        except Exception as err:  # onnxruntime's own error types for shape and type mismatches
            log.info("onnxruntime failed on %s: %s", self.name, err)
            raise ModelError(f"The ONNX model '{self.name}' could not predict these rows: it expects "
                             f"{self._expected()}. Use the CSV the model was trained on.") from err
        if isinstance(proba, list):
            labels = self.classes_.tolist()  # ZipMap's keys are the graph's class labels
            return np.asarray([[row[c] for c in labels] for row in proba], dtype=float)
        return np.asarray(proba, dtype=float)

    def _feed(self, X) -> dict:
        if len(self._inputs) == 1:
            spec = self._inputs[0]
            matrix = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
            return {spec.name: _typed(matrix, spec.type, self.name)}
        frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=[i.name for i in self._inputs])
        return {spec.name: _typed(frame[[spec.name]].to_numpy(), spec.type, self.name) for spec in self._inputs}

    def _expected(self) -> str:
        return "; ".join(f"{i.name} ({i.type}, shape {i.shape})" for i in self._inputs)


class OnnxRegressor(OnnxClassifier):
    """A regressor in an ONNX graph with scikit-learn's ``predict`` interface (one numeric output per row).

    Opened like :class:`OnnxClassifier` (same checks, one thread); it has no ``predict_proba`` and no
    ``classes_``.
    """

    def _describe(self, proto) -> None:
        outputs = self._session.get_outputs()
        numeric = [o for o in outputs if o.type in ("tensor(float)", "tensor(double)")]
        if not numeric:
            shapes = ", ".join(f"{o.name} {o.type}" for o in outputs)
            raise ModelError(f"'{self.name}' has no numeric output (its outputs: {shapes}). A regressor's ONNX graph "
                             "must return its prediction as a float tensor (skl2onnx does this for regressors).")
        self._value_output = numeric[0].name

    _estimator_type = "regressor"

    @property
    def predict_proba(self):
        """Absent: a regressor predicts values (``hasattr(model, "predict_proba")`` is False)."""
        raise AttributeError("an ONNX regressor predicts values, not probabilities")

    def predict(self, X) -> np.ndarray:
        """The predicted value for each row of ``X``, shape (n,)."""
        try:
            (values,) = self._session.run([self._value_output], self._feed(X))
        except Exception as err:  # onnxruntime's own error types for shape and type mismatches
            log.info("onnxruntime failed on %s: %s", self.name, err)
            raise ModelError(f"The ONNX model '{self.name}' could not predict these rows: it expects "
                             f"{self._expected()}. Use the CSV the model was trained on.") from err
        return np.asarray(values, dtype=float).reshape(len(values), -1)[:, 0]


def _typed(values: np.ndarray, onnx_type: str, name: str) -> np.ndarray:
    if onnx_type == "tensor(string)":
        return np.asarray(values, dtype=object).astype(str)
    dtype = _NUMPY_TYPES.get(onnx_type)
    if dtype is None:
        raise ModelError(f"'{name}' takes an input of type {onnx_type}, which HEXEval cannot build from CSV columns. "
                         "Export the model with float, double, integer or string inputs.")
    try:
        return np.asarray(values, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise ModelError(f"'{name}' takes numbers ({onnx_type}) but the data has text in a column it receives. "
                         "Export the model with its encoding inside (e.g. a scikit-learn Pipeline with a "
                         "OneHotEncoder converted by skl2onnx), or pass numeric columns only.") from err


def _class_labels(proto, n_classes: int | None) -> list:
    """Class labels recorded in the graph (``classlabels_int64s``/``_strings``), else ``0 .. K-1``."""
    for node in _all_nodes(proto):
        for attr in node.attribute:
            if attr.name in ("classlabels_int64s", "classlabels_ints") and attr.ints:
                return [int(v) for v in attr.ints]
            if attr.name == "classlabels_strings" and attr.strings:
                return [s.decode("utf-8") for s in attr.strings]
    if n_classes is None:
        raise ModelError("The ONNX model does not say how many classes it predicts (no class labels, no fixed "
                         "probability width). Export it with a fixed number of output columns.")
    return list(range(n_classes))
