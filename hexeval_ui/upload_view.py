"""The custom-upload form and its validation report (Configure & Run, Use Case Details)."""

from __future__ import annotations

import hashlib
import io

import streamlit as st

from hexeval_engine import HexevalError
from hexeval_engine.csv_reader import read_csv
from hexeval_engine.model_loading import SAFE_SUFFIXES
from hexeval_engine.target import find_target

from . import state
from .components import bullet_list, section, show_error
from .quality_view import render_quality
from .settings import ALLOW_PICKLE_SETTING, pickle_uploads_allowed
from .upload import MODEL_SUFFIXES, UploadCheck, UploadedFile, check_upload


def render_upload_form() -> UploadCheck | None:
    """Upload widgets; validates the files once per distinct upload and returns the check (or None)."""
    section("Your model and data", "Files stay on this server for this session only. Validation runs as soon as "
            "a model, a CSV and the target column are given; Run is enabled only when it passes.")
    allowed = pickle_uploads_allowed()
    left, right = st.columns(2)
    with left:
        suffixes = MODEL_SUFFIXES if allowed else SAFE_SUFFIXES  # never list types that would be refused
        model = st.file_uploader("Model file", type=[s.lstrip(".") for s in suffixes], key="upload_model",
                                 help="scikit-learn Pipeline saved with skops.io.dump, or an XGBoost model saved "
                                      "with save_model (.json/.ubj).")
        if allowed:
            st.caption(":orange[Pickle/joblib uploads are enabled by the server operator: only upload files you trust.]")
        else:
            st.caption(f"Safe formats only: `.skops`, `.json`, `.ubj`. Pickle/joblib files are refused because "
                       f"loading one runs any code it contains; the server operator can allow them with "
                       f"`{ALLOW_PICKLE_SETTING}=1`.")
        config = st.file_uploader("Evaluation config (optional YAML)", type=["yaml", "yml"], key="upload_config")
    with right:
        csv = st.file_uploader("Data (CSV with a header row)", type=["csv"], key="upload_csv")
        target = _target_picker(csv)
        personas = st.file_uploader("Personas (optional YAML)", type=["yaml", "yml"], key="upload_personas")
    if model is None or csv is None or target is None:
        return _incomplete(st.session_state[state.UPLOAD], model=model, csv=csv, target=target,
                           others=(config, personas))
    files = [model, csv, config, personas]
    fingerprint = hashlib.sha256(repr([(f.file_id, f.size) if f else None for f in files] + [target]).encode()).hexdigest()
    if fingerprint != st.session_state[state.UPLOAD_FINGERPRINT]:
        with st.spinner("Loading and validating the upload…"):
            check = check_upload(_plain(model), _plain(csv), target, config=_plain(config), personas=_plain(personas),
                                 allow_pickle=allowed)
        previous = st.session_state[state.UPLOAD]
        if previous is not None:
            previous.discard()
        st.session_state[state.UPLOAD] = check
        st.session_state[state.UPLOAD_FINGERPRINT] = fingerprint
    return st.session_state[state.UPLOAD]


def _incomplete(previous: UploadCheck | None, *, model, csv, target, others) -> UploadCheck | None:
    """What the page works with while the form lacks a model, a CSV or a target.

    Upload widgets come back empty after a page switch: the upload validated earlier stays in use
    (and says so). Once the user puts a new file in, the earlier check no longer describes what is
    on screen, so it is not offered for a run until the new upload is complete and validated.
    """
    if any(f is not None for f in (model, csv, *others)):
        missing = [name for name, given in (("model file", model), ("CSV", csv), ("target column", target))
                   if given is None]
        st.caption(f"Validation starts once the model file, the CSV and its target column are given "
                   f"(missing: {', '.join(missing)}).")
        return None
    if previous is not None:
        st.caption(f"Using the files validated earlier in this session: **{previous.model_path.name}** and "
                   f"**{previous.data_path.name}** (target `{previous.target}`). Upload files above to replace them.")
    return previous


def _plain(uploaded) -> UploadedFile | None:
    return UploadedFile(uploaded.name, uploaded.getvalue()) if uploaded is not None else None


def _target_picker(csv) -> str | None:
    if csv is None:
        st.selectbox("Target column", [], disabled=True, placeholder="Upload a CSV first", key="upload_target_empty")
        return None
    try:
        columns, guess = _columns(csv.getvalue(), csv.name)
    except HexevalError as err:
        show_error(err)
        return None
    return st.selectbox("Target column", columns, index=columns.index(guess) if guess in columns else None,
                        placeholder="Pick the binary column the model predicts", key=f"upload_target_{csv.file_id}")


@st.cache_data(show_spinner=False, max_entries=8)
def _columns(data: bytes, name: str) -> tuple[list[str], str | None]:
    """The CSV's columns and the engine's guess of the target (None when ambiguous)."""
    source = io.BytesIO(data)
    source.name = f"'{name}'"
    frame = read_csv(source)
    frame.columns = [str(col).strip() for col in frame.columns]
    try:
        guess = find_target(frame, None)
    except HexevalError:
        guess = None  # no unambiguous binary column: the user picks one
    return list(frame.columns), guess


def render_check(check: UploadCheck) -> None:
    """Validation outcome: errors first, then warnings, then the data-quality report."""
    section("Validation", "What the engine found when it loaded your files.")
    if check.ok:
        positive = f" (positive class = `{check.class_labels[1]}`)" if check.class_labels else ""
        st.success(f"Ready to run: **{check.model_type}** predicts `{check.target}`{positive} on this data.",
                   icon=":material/check_circle:")
    for message in check.errors:
        st.error(message, icon=":material/error:")
    if check.warnings:
        st.warning(bullet_list(check.warnings), icon=":material/warning:")
    if check.quality is not None:
        issues = len(check.quality.warnings)
        label = f"Data-quality report ({issues} warning{'s' if issues != 1 else ''})" if issues else "Data-quality report"
        with st.expander(label, expanded=not check.ok, icon=":material/warning:" if issues else None):
            render_quality(check.quality, class_labels=check.class_labels, target=check.target)


def render_upload_summary(check: UploadCheck) -> None:
    """Use Case Details for a validated custom upload."""
    st.header("Custom upload", divider="gray")
    summary = check.dataset_summary or {}
    st.markdown(f"**Model:** {check.model_type} · **Target:** `{check.target}` (positive = "
                f"`{check.class_labels[1] if check.class_labels else '?'}`) · "
                f"**Rows:** {summary.get('n_train', 0) + summary.get('n_test', 0):,} · "
                f"**Features:** {summary.get('n_features', '?')}")
    if check.checks.get("sample_accuracy") is not None:
        st.caption(f"Accuracy on up to {check.checks.get('sample_rows')} test rows: {check.checks['sample_accuracy']:.1%}.")
    section("Data-quality report", "What a careful analyst checks before trusting an evaluation on this data.")
    render_quality(check.quality, class_labels=check.class_labels, target=check.target)
