"""The one way HEXEval reads YAML: size-capped, no anchors or aliases, bounded error messages.

A YAML alias (``*name``) repeats an anchored node (``&name``) without copying it, so a file of a
few hundred bytes can describe a structure of billions of entries (the "billion laughs" alias
bomb). Loading it is cheap; anything that walks it — a validation message that prints the
rejected value, a deep copy, a JSON dump — is not. HEXEval's configs, persona files and use-case
definitions never need anchors, so :func:`read_yaml` refuses them outright, refuses files larger
than :data:`MAX_YAML_BYTES`, and turns excessive nesting into an error instead of a crash.
:func:`short_repr` is how every loader quotes a rejected value: bounded in length and depth
whatever the value is.
"""

from __future__ import annotations

import reprlib
from pathlib import Path

import yaml

from .errors import ConfigError
from .plain_values import describe_error

MAX_YAML_BYTES = 1_000_000
"""Largest YAML file accepted (1 MB; HEXEval's own files are a few KB)."""

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = 6
_REPR.maxstring = _REPR.maxother = 60


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors (``&a``) and aliases (``*a``)."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.composer.ComposerError(
                None, None, "anchors and aliases (&name, *name) are not accepted in HEXEval files; write the "
                "values out in full", event.start_mark)
        return super().compose_node(parent, index)


def short_repr(value, limit: int = 80) -> str:
    """A repr of ``value`` at most ``limit`` characters long, never walking more than a few levels of it."""
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


#: Deepest nesting :func:`_plain` lets libyaml's loader compose (its composer recurses on the C stack; deeper text
#: goes to the pure-Python loader, which turns excessive nesting into an error).
MAX_C_DEPTH = 50


def _plain(text: str) -> bool:
    """Whether libyaml's safe loader reads ``text`` as the pure-Python :class:`_NoAliasLoader` does: libyaml is there,
    and its events (libyaml's parser keeps its own stack) show valid YAML without anchors or aliases and at most
    :data:`MAX_C_DEPTH` levels. Anything else is left to the pure-Python loader, so its errors stay the same."""
    if not getattr(yaml, "__with_libyaml__", False):
        return False
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                return False
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_C_DEPTH:
                    return False
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return False
    return True


def parse_yaml(text: str, *, what: str) -> object:
    """Parse YAML ``text`` (``what`` names it in messages, e.g. "The persona file personas.yaml").

    Raises
    ------
    ConfigError
        The text is longer than :data:`MAX_YAML_BYTES`, is not YAML, uses anchors or aliases, or
        nests too deeply.
    """
    if len(text) > MAX_YAML_BYTES:
        raise ConfigError(f"{what} is {len(text):,} characters long; HEXEval reads YAML files of at most "
                          f"{MAX_YAML_BYTES:,}. Check that this is the right file.")
    try:
        if _plain(text):  # libyaml's loader, ~4x faster: only for text the pure-Python one would accept the same way
            return yaml.load(text, Loader=yaml.CSafeLoader)  # noqa: S506 - libyaml's safe loader
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        raise ConfigError(f"{what} is not valid YAML: {_bounded(err)}. Fix the indentation or quoting at that "
                          "line.") from err
    except RecursionError as err:
        raise ConfigError(f"{what} nests lists or mappings too deeply to be read. HEXEval files need only a "
                          "few levels; check that this is the right file.") from err


def read_yaml(path, *, what: str | None = None) -> object:
    """Read and parse the YAML file ``path`` (see :func:`parse_yaml`); ``None`` for an empty file.

    Raises
    ------
    ConfigError
        The file cannot be read, is too large, is not UTF-8 text or not acceptable YAML.
    """
    path = Path(path)
    what = what or f"The file {path.name}"
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            raise ConfigError(f"{what} is {size:,} bytes; HEXEval reads YAML files of at most {MAX_YAML_BYTES:,} "
                              "bytes. Check that this is the right file.")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{what} is not UTF-8 text. Save it as UTF-8.") from err
    except OSError as err:
        raise ConfigError(f"{what} cannot be read ({describe_error(err)}). Check that it is a "
                          "readable file.") from err
    return parse_yaml(text, what=what)


def _bounded(err: yaml.YAMLError, limit: int = 400) -> str:
    text = str(err)
    return text if len(text) <= limit else text[:limit - 1] + "…"
