"""Stakeholder personas: schema and YAML loader."""

from .loader import load_personas
from .schema import DEFAULT_DIMENSION_WEIGHTS, DIMENSION_NAMES, LEVEL_FIELDS, LEVEL_VALUES, Level, Persona

__all__ = ["DEFAULT_DIMENSION_WEIGHTS", "DIMENSION_NAMES", "LEVEL_FIELDS", "LEVEL_VALUES", "Level", "Persona", "load_personas"]
