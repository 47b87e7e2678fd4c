"""Narratives: explanations told as a story, checked for faithfulness (see docs/narratives.md)."""
