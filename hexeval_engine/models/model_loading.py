"""``load_model``: load a classifier from a file without letting the file run code.

Safe formats are always accepted: skops (``.skops``, checked against a fixed allow-list of trusted
types), XGBoost's native ``.json``/``.ubj`` and ONNX (``.onnx``, without external data files or
custom-operator domains; see ``onnx_model``). Every safe format is first bounded by what it declares (what
it expands to, its parts, its arrays' and trees' sizes; see ``file_bounds``). Pickle/joblib files execute code when loaded, so
they are opened only when the caller passes ``allow_pickle=True`` (the operator's own files: the
CLI and the bundled use cases), never because a remote user asked.
"""

from __future__ import annotations

import hashlib
import json
import importlib
import logging
import pickle
from pathlib import Path

from ..errors import ModelError
from .file_bounds import check_skops_archive, check_xgboost_file
from .model_wrapper import HexevalModel, describe_target
from .onnx_model import load_onnx

log = logging.getLogger(__name__)

SAFE_SUFFIXES = (".skops", ".json", ".ubj", ".onnx")
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib")

# Types skops does not trust by default but that carry no code: numpy dtypes, fitted tree
# structures and XGBoost estimators. Anything else must be reviewed before it is added here.
TRUSTED_SKOPS_TYPES = frozenset({
    "numpy.dtype",
    "builtins.slice",
    "collections.OrderedDict",
    "xgboost.core.Booster",
    "xgboost.sklearn.XGBClassifier",
    "xgboost.sklearn.XGBRFClassifier",
    "sklearn.tree._tree.Tree",
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
    "sklearn._loss.link.LogitLink",
    "sklearn._loss.link.Interval",
    "sklearn._loss.loss.HalfBinomialLoss",
    "sklearn.utils._bunch.Bunch",
})


def load_model(path, *, allow_pickle: bool = False, threshold: float | None = None, data=None,
               audits=None) -> HexevalModel:
    """Load a classifier (binary or multi-class) and wrap it so it predicts on raw CSV columns.

    Parameters
    ----------
    path : str or Path
        ``.skops``, XGBoost ``.json``/``.ubj``, ``.onnx``, or (with ``allow_pickle``) ``.pkl``/``.joblib``.
    allow_pickle : bool
        Open pickle/joblib files. Only for files from the operator's own disk.
    threshold : float, optional
        Decision threshold on the positive-class probability (default 0.5, or the artefact's own).
    data : Dataset, optional
        The data the model will be evaluated on: a model of another task (a regressor, a model of
        more than two classes) is refused with a message that names the target too.
    audits : object, optional
        Remembered skops audits and the models rebuilt after them (``remembered(sha256)``, ``remember(sha256,
        types)``, ``rebuilt(sha256)``, ``keep_rebuilt(sha256, model)``;
        :data:`hexeval_engine.runs.model_audits.MODEL_AUDITS`): a skops file whose exact bytes passed the audit
        before is not audited again, and the model rebuilt from them then is used again. Default: every skops file
        is audited and rebuilt.
    """
    path = Path(path)
    if not path.exists():
        raise ModelError(f"The model file {path} does not exist. Check the path (relative paths start at {Path.cwd()}).")
    suffix = path.suffix.lower()
    sha256 = None
    if suffix == ".skops":
        (artefact, sha256), kind = _load_skops(path, audits), "skops"
    elif suffix in (".json", ".ubj"):
        artefact, kind = _load_xgboost(path, describe_target(data),
                                       regression=data is not None and data.is_regression), "xgboost"
    elif suffix == ".onnx":
        artefact, kind = load_onnx(path, regression=data is not None and data.is_regression), "onnx"
    elif suffix in PICKLE_SUFFIXES:
        if not allow_pickle:
            raise ModelError(
                f"Refusing to open the pickle file '{path.name}': loading a pickle/joblib file runs any code it contains, "
                "so it is accepted only from the operator's own disk. Convert it to a safe format first: "
                "skops.io.dump(model, 'model.skops') for scikit-learn pipelines, or model.save_model('model.json') "
                "for a bare XGBoost classifier.")
        artefact, kind = _load_pickle(path), "pickle"
    else:
        raise ModelError(f"Unsupported model file type '{suffix or path.name}'. Use .skops (scikit-learn pipelines), "
                         ".json/.ubj (XGBoost), .onnx (any framework exported to ONNX), or .pkl/.joblib where the operator allows pickles.")
    return HexevalModel.from_artefact(artefact, source=str(path), kind=kind, sha256=sha256 or file_sha256(path),
                                      threshold=threshold,
                                      target_note=describe_target(data),
                                      data_classes=data.n_classes if data is not None else None)


def file_sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_trusted_skops_type(name: str) -> bool:
    """True for the fixed allow-list and for scikit-learn estimator classes (they hold no code)."""
    if name in TRUSTED_SKOPS_TYPES:
        return True
    if not name.startswith("sklearn."):
        return False
    module_name, _, cls_name = name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), cls_name)
    except (ImportError, AttributeError):
        return False
    from sklearn.base import BaseEstimator  # only the skops trust check needs it

    return isinstance(cls, type) and issubclass(cls, BaseEstimator)


def _load_skops(path: Path, audits=None) -> tuple:
    """``(the model, the SHA-256 of the bytes it was loaded from)``.

    The file is read once: its bytes are hashed, audited (or found audited before in ``audits``) and loaded, so the
    bytes loaded are the bytes audited. Bytes audited before whose rebuilt model ``audits`` kept give that model."""
    import skops.io as sio  # loaded only for .skops files

    data = path.read_bytes()
    sha256 = hashlib.sha256(data).hexdigest()
    requested = audits.remembered(sha256) if audits is not None else None
    if requested is None:
        requested = _audit_skops(path, data)
        if audits is not None:
            audits.remember(sha256, requested)
    elif (kept := audits.rebuilt(sha256)) is not None:
        return kept, sha256
    try:
        model = sio.loads(data, trusted=list(requested))
    except Exception as err:  # skops rebuilds objects with the installed libraries; any of them can fail
        log.info("skops could not load %s: %s: %s", path, type(err).__name__, err)
        raise ModelError(f"'{path.name}' is a skops file, but the model in it cannot be rebuilt here: it was probably "
                         f"saved with other versions of scikit-learn or skops than this server's ({_library_versions()}). "
                         "Save it again with these versions (skops.io.dump) and upload the new file.") from err
    if audits is not None:
        audits.keep_rebuilt(sha256, model)
    return model, sha256


def _audit_skops(path: Path, data: bytes) -> list[str]:
    """The types the skops file's bytes ask for, every one of them trusted; else ``ModelError`` saying why not."""
    import skops.io as sio  # loaded only for .skops files

    check_skops_archive(path, data)  # what it expands to, its parts, its arrays' sizes: before skops reads it
    try:
        requested = sio.get_untrusted_types(data=data)
    except Exception as err:  # skops raises many types for a corrupt archive
        log.info("skops could not list the types in %s: %s: %s", path, type(err).__name__, err)
        raise ModelError(f"'{path.name}' {_what_is_wrong_with_skops(path)} Save the model again with "
                         "skops.io.dump(model, 'model.skops') and upload the new file.") from err
    refused = [t for t in requested if not is_trusted_skops_type(t)]
    if refused:
        raise ModelError(f"'{path.name}' asks to load type(s) outside HEXEval's allow-list: {', '.join(refused)}. "
                         "Such types could run code, so the file is refused. Use a pipeline of scikit-learn and "
                         "XGBoost components, or ask the operator to review and extend the allow-list.")
    return list(requested)


def _what_is_wrong_with_skops(path: Path) -> str:
    """A sentence (after the file's name) saying in words why a file is not a readable skops archive."""
    with open(path, "rb") as handle:
        head = handle.read(512)
    if not head:
        return "is empty: nothing of the model reached the server."
    if head.startswith(b"PK"):
        import zipfile  # only needed to tell a cut-off archive from a foreign one

        if not zipfile.is_zipfile(path):
            return ("is not a complete skops file: it starts like one but its end is missing "
                    "(it may have been cut off during upload or while saving).")
        return "is a zip archive but not a skops model: it holds no readable model description."
    if head[:1] == b"\x80":
        return "is a pickle file, not a skops file; pickles can run code and are not accepted as uploads."
    if head.lstrip()[:1] in (b"{", b"["):
        return "holds JSON text, not a skops model (an XGBoost model saved as JSON needs the .json extension)."
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return "is not a skops file: its contents are not in the skops format."
    return "holds plain text (such as a CSV table), not a skops model."


def _library_versions() -> str:
    """``scikit-learn 1.9.0, skops 0.16.0``: the versions a skops file must be saved with to load here."""
    from importlib.metadata import PackageNotFoundError, version  # only for this message

    parts = []
    for name in ("scikit-learn", "skops"):
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} not installed")
    return ", ".join(parts)


def _looks_like(path: Path) -> str:
    """What a file with the wrong extension really is, from its first bytes ('' when unknown)."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head.startswith(b"PK"):
        return "a skops archive (.skops)"
    if head[:1] == b"\x80":
        return "a pickle file (.pkl), which is accepted only where the server allows pickles"
    return ""


def _load_xgboost(path: Path, target_note: str = "", *, regression: bool = False):
    import xgboost as xgb  # loaded only for XGBoost's own model files

    check_xgboost_file(path)  # declared tree sizes and counts: XGBoost reserves them before checking
    booster = xgb.Booster()
    try:
        booster.load_model(path)
    except Exception as err:  # xgboost raises XGBoostError, ValueError, ...; its text holds a C++ trace and paths
        log.info("XGBoost could not read %s: %s", path, err)
        kind = _looks_like(path)
        hint = (f" It looks like {kind}: give it that file's own extension." if kind else
                " If it is an XGBoost model, save it again with model.save_model('model.json').")
        raise ModelError(f"'{path.name}' is not a readable XGBoost model file.{hint}") from err
    objective = str(json.loads(booster.save_config())["learner"]["objective"]["name"])
    if objective.startswith("reg:") and regression:
        reg = xgb.XGBRegressor()
        reg.load_model(path)
        return reg
    if objective.startswith("reg:"):
        raise ModelError(f"'{path.name}' is an XGBoost regressor ({objective}): it predicts a number, not the "
                         f"probabilities of classes{target_note}. HEXEval evaluates classifiers; train an "
                         "XGBClassifier (binary:logistic or multi:softprob) on this target.")
    if regression:
        raise ModelError(f"'{path.name}' is an XGBoost classifier ({objective}){target_note}. Train an XGBRegressor "
                         "(reg:squarederror) on this target, or choose the target column the model predicts.")
    clf = xgb.XGBClassifier()
    clf.load_model(path)  # the same bytes the booster just read; a K-class model is checked against the data later
    return clf


def _load_pickle(path: Path):
    import joblib  # loaded only for the operator's pickle/joblib files

    try:
        return joblib.load(path)
    except ModuleNotFoundError as err:
        raise ModelError(f"'{path.name}' needs the Python package '{err.name}', which is not installed here. Install "
                         "it, or save the model as a skops file (skops.io.dump) with the packages installed here.") from err
    except (EOFError, pickle.UnpicklingError) as err:
        log.info("Could not unpickle %s: %s: %s", path, type(err).__name__, err)
        raise ModelError(f"'{path.name}' is not a complete pickle/joblib file (it may have been cut off, or it is "
                         "another kind of file). Save the fitted model again with joblib.dump and use the new file.") from err
    except Exception as err:  # unpickling can raise anything
        log.info("Could not unpickle %s: %s: %s", path, type(err).__name__, err)
        raise ModelError(f"'{path.name}' is a pickle/joblib file, but the model in it cannot be rebuilt here: it was "
                         "probably saved with other versions of its libraries. Save it again in this environment, "
                         "preferably as a skops file (skops.io.dump).") from err
