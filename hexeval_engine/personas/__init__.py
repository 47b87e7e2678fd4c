"""Stakeholder personas: schema and YAML loader."""

from .loader import load_personas
from .schema import LEVEL_FIELDS, LEVEL_VALUES, Level, Persona

__all__ = ["LEVEL_FIELDS", "LEVEL_VALUES", "Level", "Persona", "load_personas"]
