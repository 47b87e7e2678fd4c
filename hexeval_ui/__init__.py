"""Streamlit helpers for the HEXEval dashboard.

Kept apart from ``hexeval_engine`` (which never imports streamlit): this package renders and
caches; the engine computes.
"""
