"""Prepare bundled use cases: train each model when it is missing or its inputs changed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from ..errors import HexevalError
from ..usecases import UseCase


def inputs_fingerprint(usecase: UseCase) -> str:
    """Hash of everything that determines the trained model: data, training script, config."""
    digest = hashlib.sha256()
    for path in (usecase.data_path, usecase.train_script, usecase.config_path):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def is_up_to_date(usecase: UseCase) -> bool:
    if not (usecase.model_path.exists() and usecase.model_card_path.exists()):
        return False
    try:
        card = json.loads(usecase.model_card_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return False
    return card.get("inputs_sha256") == inputs_fingerprint(usecase)


def prepare_usecase(usecase: UseCase, *, force: bool = False) -> str:
    """Train ``usecase`` unless it is up to date; return a one-line status."""
    if not force and is_up_to_date(usecase):
        return f"{usecase.name}: model up to date ({usecase.model_path.name})"
    if not usecase.train_script.exists():
        raise HexevalError(f"Use case '{usecase.name}' has no training script at {usecase.train_script}. "
                           "Add it or point train_script in usecase.yaml to it.")
    proc = subprocess.run([sys.executable, str(usecase.train_script)], capture_output=True, text=True,
                          cwd=usecase.folder, env=_engine_env())
    if proc.returncode != 0:
        raise HexevalError(f"Training use case '{usecase.name}' failed (exit {proc.returncode}):\n{proc.stderr.strip()[-2000:]}")
    card = json.loads(usecase.model_card_path.read_text(encoding="utf-8"))
    card["inputs_sha256"] = inputs_fingerprint(usecase)
    usecase.model_card_path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    return proc.stdout.strip()


def _engine_env() -> dict:
    """The environment for a training script: it imports this very engine (the one running now), not
    whichever copy happens to be installed in the interpreter."""
    env = dict(os.environ)
    project = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (project, env.get("PYTHONPATH", "")) if p)
    return env
