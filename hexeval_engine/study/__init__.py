"""People in the loop: blinded studies on a saved run, personas calibrated against people.

Public API: :func:`create_study`, :func:`import_ratings`, :func:`calibration` (see ``docs/studies.md``).
"""
