"""Installs do not drift: the venv holds exactly requirements.lock, and the lock satisfies pyproject.toml.

When this fails after a dependency change, run ``make lock`` (see the README, "Installing") and commit the
new requirements.lock with the change.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;#]+)$")
FIX = "Run `make lock` and commit requirements.lock (README, Installing)."


def locked() -> dict[str, str]:
    pins = {}
    for n, line in enumerate(LOCK.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.fullmatch(line)
        assert match, f"requirements.lock line {n} is not an exact pin (name==version): {line!r}"
        name = canonicalize_name(match["name"])
        assert name not in pins, f"requirements.lock pins {name} twice"
        pins[name] = match["version"]
    return pins


def frozen() -> dict[str, str]:
    out = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
                         capture_output=True, text=True, check=True).stdout
    pins = {}
    for line in out.splitlines():
        match = PIN.fullmatch(line.strip())
        if match and canonicalize_name(match["name"]) != "hexeval":
            pins[canonicalize_name(match["name"])] = match["version"]
    return pins


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project.get("optional-dependencies", {})
    return [Requirement(text) for text in project["dependencies"] + [d for deps in extras.values() for d in deps]]


def test_lock_holds_only_exact_pins_and_not_the_project():
    pins = locked()
    assert len(pins) > 20
    assert "hexeval" not in pins


def test_every_pyproject_dependency_is_locked_at_a_version_its_range_allows():
    pins = locked()
    missing = [str(r) for r in declared() if canonicalize_name(r.name) not in pins]
    assert not missing, f"pyproject.toml needs {', '.join(missing)}, which requirements.lock lacks. {FIX}"
    outside = [f"{r} (locked {pins[canonicalize_name(r.name)]})" for r in declared()
               if not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)]
    assert not outside, f"requirements.lock pins versions pyproject.toml does not allow: {', '.join(outside)}. {FIX}"


def test_installed_packages_are_exactly_the_lock():
    pins, installed = locked(), frozen()
    differ = [f"{name} {installed[name]} installed, {pins[name]} locked" for name in sorted(set(pins) & set(installed))
              if installed[name] != pins[name]]
    absent = sorted(set(pins) - set(installed))
    extra = sorted(set(installed) - set(pins))
    problems = differ + [f"{n} locked but not installed" for n in absent] + [f"{n} installed but not locked" for n in extra]
    assert not problems, "The environment drifted from requirements.lock: " + "; ".join(problems) + f". {FIX}"


@pytest.mark.parametrize("target", ["$(STAMP): pyproject.toml $(LOCK)", "pip install -q -r $(LOCK)"])
def test_make_installs_from_the_lock(target):
    assert target in (ROOT / "Makefile").read_text(encoding="utf-8")
