"""The custom-upload form, its validation report and the data checks above Run (Configure & Run, Use Case Details)."""

from __future__ import annotations

import hashlib
import io

import streamlit as st

from hexeval_engine import HexevalError
from hexeval_engine.data.csv_reader import read_csv
from hexeval_engine.data.outcome_wording import outcome_words
from hexeval_engine.models.model_words import model_words
from hexeval_engine.plain_values import show_number
from hexeval_engine.data.target import find_target

from . import state
from .class_names_view import class_name_overrides, classes_sentence, render_class_names
from .components import bullet_list, section, show_error
from .quality_view import render_quality
from .settings import pickle_uploads_allowed
from .upload import UploadCheck, UploadedFile, blocking_problems, check_again, check_upload
from .usecase_view import render_model_card
from hexeval_engine.vocabulary import plural

ENCODINGS = {"auto": "as text — the model is a pipeline with its own encoder",
             "label": "as integer codes of the sorted categories (scikit-learn's LabelEncoder)"}


def render_upload_form() -> UploadCheck | None:
    """Upload widgets; validates the files once per distinct upload and options, and returns the check (or None)."""
    section("Your model and data", "Files stay on this server; a run keeps a copy of them so you can reopen it "
            "later. Validation runs as soon as a model, a CSV and the target column are given; Run is enabled only "
            "when it passes.")
    allowed = pickle_uploads_allowed()
    left, right = st.columns(2)
    with left:
        # No type filter: a file of another type reaches the engine's check, which says what is accepted and why.
        model = st.file_uploader("Model file", key="upload_model",
                                 help="scikit-learn Pipeline saved with skops.io.dump (.skops), an XGBoost model "
                                      "saved with save_model (.json/.ubj), or a model of any framework exported to "
                                      "ONNX (.onnx).")
        if allowed:
            st.caption(":orange[Pickle/joblib uploads are enabled by the server operator: only upload files you trust.]")
        else:
            # the switch's name is an operator detail (docs/safety.md), not something a user of the page can set
            st.caption("Safe formats only: `.skops`, `.json`, `.ubj`, `.onnx`. Pickle uploads are turned off on this "
                       "server, because loading a pickle/joblib file runs any code it contains; ask the operator if "
                       "you need them.")
        st.radio("Text columns reach the model", list(ENCODINGS), format_func=ENCODINGS.get, key=state.UPLOAD_ENCODING,
                 help="A bare model (e.g. an XGBClassifier without a pipeline) trained on integer codes of its text "
                      "columns needs them coded the same way. Explanations still show the text labels. For codes in "
                      "your own order, upload a config with data.categorical_encoding: ordinal and data.category_order.")
        config = st.file_uploader("Evaluation config (optional YAML)", type=["yaml", "yml"], key="upload_config")
    with right:
        csv = st.file_uploader("Data (CSV with a header row)", key="upload_csv",
                               help="Comma-, semicolon- or tab-separated text; UTF-8, Windows-1252 or Latin-1.")
        target = _target_picker(csv)
        personas = st.file_uploader("Personas (optional YAML)", type=["yaml", "yml"], key="upload_personas")
        st.text_input("Run name (optional)", key=state.UPLOAD_RUN_NAME, max_chars=60,
                      placeholder="Named after the CSV when empty",
                      help="Runs of this upload are listed under this name in the sidebar and under Load previous results.")
    options = data_options()
    if model is None or csv is None or target is None:
        previous = _incomplete(st.session_state[state.UPLOAD], model=model, csv=csv, target=target,
                               others=(config, personas))
        if previous is not None and previous.data_options != options:
            with st.spinner("Checking the data again with the chosen remedy…"):
                _replace(check_again(previous, options, allow_pickle=allowed), None)
        return st.session_state[state.UPLOAD] if previous is not None else None
    files = [model, csv, config, personas]
    key = repr([(f.file_id, f.size) if f else None for f in files] + [target, sorted(options.items())])
    fingerprint = hashlib.sha256(key.encode()).hexdigest()
    if fingerprint != st.session_state[state.UPLOAD_FINGERPRINT]:
        with st.spinner("Loading and validating the upload…"):
            check = check_upload(_plain(model), _plain(csv), target, config=_plain(config), personas=_plain(personas),
                                 allow_pickle=allowed, data_options=options)
        _replace(check, fingerprint)
    return st.session_state[state.UPLOAD]


def data_options() -> dict:
    """The ``data.`` settings chosen on the page: one-click remedies and the encoding of text columns."""
    options = dict(st.session_state[state.UPLOAD_REMEDIES])
    if st.session_state[state.UPLOAD_ENCODING] != "auto":
        options["categorical_encoding"] = st.session_state[state.UPLOAD_ENCODING]
    return options


def _replace(check: UploadCheck, fingerprint: str | None) -> None:
    previous = st.session_state[state.UPLOAD]
    if previous is not None and previous.folder != check.folder:
        previous.discard()
    st.session_state[state.UPLOAD] = check
    st.session_state[state.UPLOAD_FINGERPRINT] = fingerprint


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
        st.caption(f"Using the files validated earlier in this session: **{previous.model_name}** and "
                   f"**{previous.data_name}** (target `{previous.target}`). Upload files above to replace them.")
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
                        placeholder="Pick the column the model predicts (its classes or values)", key=f"upload_target_{csv.file_id}")


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
        guess = None  # no unambiguous target column: the user picks one
    return list(frame.columns), guess


def render_check(check: UploadCheck) -> None:
    """Validation outcome: errors first, then warnings, then the data-quality report."""
    section("Validation", "What the engine found when it loaded your files.")
    if check.ok:
        positive = classes_sentence(check)
        if blocking_problems(check):
            st.warning(f"**{model_words(check.model_type)}** predicts `{check.target}`{positive} on this data, but the data checks "
                       "above the Run button need a decision first.", icon=":material/rule:")
        else:
            st.success(f"Ready to run: **{model_words(check.model_type)}** predicts `{check.target}`{positive} on this data.",
                       icon=":material/check_circle:")
    if check.ok:
        render_class_names(check)  # "class 1 of diagnosis" unless the user names the codes
    if check.column_note:  # it changes what the explanations say, so it is not folded away with the data report
        st.info(check.column_note, icon=":material/category:")
    for message in check.errors:
        st.error(message, icon=":material/error:")
    if check.warnings:
        st.warning(bullet_list(check.warnings), icon=":material/warning:")
    if check.quality is not None:
        issues = len(check.quality.warnings)
        label = f"Data-quality report ({issues} warning{'s' if issues != 1 else ''})" if issues else "Data-quality report"
        with st.expander(label, expanded=not check.ok, icon=":material/warning:" if issues else None):
            render_quality(check.quality, class_labels=check.class_labels, target=check.target,
                           shown_above=(check.column_note,))


def render_data_checks(check: UploadCheck) -> bool:
    """The data problems that would mislead, with their counts and one-click remedies; True while Run must wait.

    Shown right above the Run button. A remedy re-checks the upload with the chosen ``data.``
    option; the choice is part of the run's config, so the run records it.
    """
    q = check.quality
    if q is None:
        return False
    remedies = st.session_state[state.UPLOAD_REMEDIES]
    blocking = blocking_problems(check)
    rows = _issue_count(q)
    with st.container(border=True):
        st.markdown("**Data checks**")
        if not rows and not q.remedies:
            st.caption("No leaking test rows, duplicate rows, implausible values or constant columns.")
        for problem in blocking:
            st.error(problem, icon=":material/content_copy:")
        if q.duplicate_rows and not remedies.get("drop_duplicates"):
            if not blocking:
                st.warning(f"{q.duplicate_rows:,} of the {q.n_rows:,} rows are exact duplicates.",
                           icon=":material/content_copy:")
            st.button("Drop duplicate rows before splitting", type="primary", icon=":material/cleaning_services:",
                      on_click=_set_remedy, args=("drop_duplicates", True), key="remedy_drop_duplicates")
        elif remedies.get("drop_duplicates"):
            st.success(f"Duplicate rows are dropped before splitting ({q.duplicates_dropped:,} rows).",
                       icon=":material/check:")
            st.button("Keep duplicate rows", on_click=_set_remedy, args=("drop_duplicates", None),
                      key="remedy_keep_duplicates")
        _implausible(q, remedies.get("implausible_values"))
        if q.constant_columns:
            st.info(f"Column(s) {', '.join(q.constant_columns)} have a single value and carry no information; "
                    "explanations will not use them.", icon=":material/horizontal_rule:")
        if blocking:
            st.checkbox("Run anyway with the leaking rows (scores on them will be inflated)", key=state.UPLOAD_LEAK_OK)
    return bool(blocking) and not st.session_state[state.UPLOAD_LEAK_OK]


def _implausible(q, chosen: str | None) -> None:
    if not q.implausible_rows:
        return
    where = ", ".join(f"{col} ({o['count']:,}, from {show_number(o['min'])} to {show_number(o['max'])})"
                      for col, o in q.outliers.items())
    if chosen in ("exclude", "clip"):
        st.success(f"Implausible values: {q.remedies.get('implausible values', chosen)}.", icon=":material/check:")
        st.button("Keep implausible values", on_click=_set_remedy, args=("implausible_values", None),
                  key="remedy_keep_implausible")
        return
    verb = "has" if q.implausible_rows == 1 else "have"
    st.warning(f"{plural(q.implausible_rows, 'row')} {verb} implausible values: {where}.", icon=":material/data_alert:")
    exclude, clip, _ = st.columns([2, 2, 3])
    exclude.button("Exclude these rows", on_click=_set_remedy, args=("implausible_values", "exclude"),
                   key="remedy_exclude", width="stretch")
    clip.button("Clip to the nearest plausible value", on_click=_set_remedy, args=("implausible_values", "clip"),
                key="remedy_clip", width="stretch")


def _set_remedy(key: str, value) -> None:
    remedies = dict(st.session_state[state.UPLOAD_REMEDIES])
    if value is None:
        remedies.pop(key, None)
    else:
        remedies[key] = value
    st.session_state[state.UPLOAD_REMEDIES] = remedies


def _issue_count(q) -> int:
    return q.duplicates_crossing_split + q.duplicate_rows + q.implausible_rows + len(q.constant_columns)


def render_upload_summary(check: UploadCheck) -> None:
    """Use Case Details for a validated custom upload: the model card on held-out rows and the data quality."""
    st.header("Custom upload", divider="gray")
    summary = check.dataset_summary or {}
    st.markdown(f"**Files:** {check.model_name} on {check.data_name} · **Target:** `{check.target}`"
                f"{classes_sentence(check)} · "
                f"**Rows:** {summary.get('n_train', 0) + summary.get('n_test', 0):,} · "
                f"**Features:** {summary.get('n_features', '?')}")
    if check.performance:
        section("Model card", "Computed on the held-out test rows of this data. HEXEval cannot know which rows your "
                "model was trained on: rows that also appear among the training rows are counted below.")
        render_model_card({**check.performance, "model_type": check.model_type}, _upload_domain(check), features=False)
    section("Data-quality report", "What a careful analyst checks before trusting an evaluation on this data.")
    render_quality(check.quality, class_labels=check.class_labels, target=check.target)


def _upload_domain(check: UploadCheck):
    from hexeval_engine import HexevalConfig

    domain = HexevalConfig().domain
    if len(check.class_labels or ()) != 2:  # a regression or a multi-class target has no negative/positive outcome
        return domain
    negative, positive = check.class_labels
    named = class_name_overrides(check).get("domain", {})
    return domain.model_copy(update={
        "positive_outcome": named.get("positive_outcome") or outcome_words(check.target, positive),
        "negative_outcome": named.get("negative_outcome") or outcome_words(check.target, negative)})


def render_custom_run_card() -> bool:
    """Use Case Details for the custom run the sidebar points at (no upload in this session); False if none."""
    from .runs_view import viewed_run

    try:
        run = viewed_run()
    except HexevalError as err:
        show_error(err)
        return True
    if run is None or not run.usecase.startswith("custom-"):
        return False
    m = run.manifest
    st.header(str(m.get("usecase_title") or run.usecase), divider="gray")
    performance = (m.get("model") or {}).get("performance")
    if not performance:
        st.caption("This run records no model card.")
        return True
    from pydantic import ValidationError

    from hexeval_engine import HexevalConfig

    section("Model card", "Computed on the held-out test rows when the run was made.")
    try:
        domain = HexevalConfig.model_validate(m.get("config") or {}).domain
    except ValidationError:  # a run saved by another HEXEval version: generic outcome words instead
        domain = HexevalConfig().domain
    render_model_card({**performance, "model_type": (m.get("model") or {}).get("type", "Model")}, domain,
                      features=False)
    return True
