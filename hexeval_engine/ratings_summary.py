"""The six persona rating dimensions, in one place."""

DIMENSIONS = ("interpretability", "completeness", "actionability", "trust", "satisfaction", "decision_support")
