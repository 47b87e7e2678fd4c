"""The one input check: a model, a CSV and a config resolved, read and checked together.

:func:`load_inputs` is what ``evaluate()``, ``hexeval validate`` and the dashboard's upload check all call,
so the three say the same about the same files: it reads the config, the CSV (with its data-quality
warnings) and the model, adopts the categories the model's own preprocessing encodes, and runs the
model/data compatibility check. Problems the user can fix are collected in the result, never lost; the
caller decides whether to raise them (:meth:`CheckedInputs.checked`) or show them all.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from .config import HexevalConfig, load_config
from .data.dataset import Dataset
from .data.input_encoding import category_codes
from .data.outcome_wording import name_outcomes, units_from_names
from .data.usecase_data import load_data_for_config
from .errors import ConfigError, HexevalError, ModelError
from .models.compatibility import validate_model_data_compatibility
from .models.encoded_columns import with_model_categories
from .models.model_loading import HexevalModel, load_model
from .runs.model_audits import MODEL_AUDITS
from .models.prepare import prepare_usecase
from .progress import StageClock
from .raters.run import with_default_personas
from .usecases import UseCase, get_usecase


@dataclass
class CheckedInputs:
    """What :func:`load_inputs` found: the resolved files, what could be read, and every problem.

    Attributes
    ----------
    usecase : UseCase or None
        The bundled use case, ``None`` for a user's own model and CSV.
    model_path, data_path : path
        The files read (a use case's own when not given).
    config : HexevalConfig or None
        The evaluation config, ``None`` when it could not be read.
    data : Dataset or None
        The CSV as the engine reads it (``data.quality`` holds the data-quality warnings), ``None`` when unreadable.
    model : HexevalModel or None
        The loaded model, ``None`` when it could not be loaded.
    column_note : str
        How the model's own preprocessing changed the columns' kinds (``""`` when it did not).
    validation : dict or None
        The compatibility check's result (``status``, ``errors``, ``warnings``, ``checks``); ``None`` when
        the data or the model could not be read.
    problems : list of HexevalError
        Failures reading the config, the CSV or the model, in that order.
    """

    usecase: UseCase | None
    model_path: object
    data_path: object
    config: HexevalConfig | None = None
    data: Dataset | None = None
    model: HexevalModel | None = None
    column_note: str = ""
    validation: dict | None = None
    problems: list[HexevalError] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Every message saying why these inputs cannot be evaluated (reading failures, then compatibility)."""
        return [str(p) for p in self.problems] + list((self.validation or {}).get("errors", []))

    @property
    def warnings(self) -> list[str]:
        """The compatibility check's warnings (the data-quality warnings are ``data.quality.warnings``)."""
        return list((self.validation or {}).get("warnings", []))

    @property
    def ok(self) -> bool:
        """Whether an evaluation can run on these inputs."""
        return not self.errors and self.validation is not None

    def checked(self) -> CheckedInputs:
        """``self`` when :attr:`ok`; otherwise raise the first reading failure, or a ModelError listing the
        compatibility problems."""
        if self.problems:
            raise self.problems[0]
        if not self.ok:
            raise ModelError("The model cannot be evaluated on this data:\n  - " + "\n  - ".join(self.errors))
        return self


def load_inputs(model_path=None, data_path=None, target_column: str | None = None, config_path=None,
                config_overrides: dict | None = None, *, usecase: str | None = None, allow_pickle: bool = False,
                clock: StageClock | None = None) -> CheckedInputs:
    """Resolve, read and check a model, a CSV and a config as an evaluation would use them.

    Parameters
    ----------
    model_path, data_path : path, optional
        The model file and CSV; a use case's own when omitted with ``usecase``.
    target_column : str, optional
        Target column (default: the config's ``data.target`` or the use case's).
    config_path : path, optional
        Evaluation config YAML; with ``usecase`` it overlays the use case's config.
    config_overrides : dict, optional
        Nested overrides merged over the config.
    usecase : str, optional
        A bundled use case name (its model is trained first when it is not yet).
    allow_pickle : bool
        Let ``model_path`` be a pickle/joblib file (only for the operator's own files).
    clock : StageClock, optional
        Times the reading as the ``load`` stage (from the clock's start) and the compatibility check as ``validate``.

    Returns
    -------
    CheckedInputs
        Everything read and every problem found. A missing file pair or an unknown use case raises
        ``ConfigError`` (nothing to check then).
    """
    stage = clock or (lambda name, **kwargs: nullcontext())
    with stage("load", from_start=True):
        found = _read(model_path, data_path, target_column, config_path, config_overrides, usecase, allow_pickle)
    if found.data is not None and found.model is not None and not found.problems:
        with stage("validate"):
            found.validation = validate_model_data_compatibility(found.model, found.data)
    return found


def _read(model_path, data_path, target_column, config_path, config_overrides, usecase, allow_pickle) -> CheckedInputs:
    uc = get_usecase(usecase) if usecase else None
    base = None
    if uc is not None:
        if not uc.is_prepared:
            prepare_usecase(uc)
        model_path, data_path = model_path or uc.model_path, data_path or uc.data_path
        target_column = target_column or uc.target
        # a config given with a use case overlays the use case's own (its wording, actionability, personas stay)
        own = Path(uc.config_path).resolve()
        base, config_path = ((uc.config_path, config_path) if config_path and Path(config_path).resolve() != own
                             else (None, uc.config_path))
    if model_path is None or data_path is None:
        raise ConfigError("evaluate() needs a bundled use case (usecase='heart') or both model_path and data_path.")
    found = CheckedInputs(uc, model_path, data_path)
    try:
        config = load_config(config_path, config_overrides, base=base)
    except HexevalError as err:
        found.problems.append(err)
        return found
    if uc is None:  # own model and CSV: the generic personas rate unless a persona file is named
        config = with_default_personas(config)
    found.config = config
    try:
        found.data = load_data_for_config(data_path, config, target_column)
        found.config = config = name_outcomes(units_from_names(config, found.data), found.data)
    except HexevalError as err:
        found.problems.append(err)
    try:  # read even when the CSV was not, so both files' problems are named at once
        found.model = load_model(model_path, allow_pickle=allow_pickle, data=found.data, audits=MODEL_AUDITS)
    except HexevalError as err:
        found.problems.append(err)
    if found.data is None or found.model is None:
        return found
    try:
        found.data, found.config, found.column_note = with_model_categories(
            found.data, found.model, config, lambda c: load_data_for_config(data_path, c, target_column))
        found.model.input_codes = category_codes(found.data, found.config.data)  # data.categorical_encoding
    except HexevalError as err:
        found.problems.append(err)
    return found
