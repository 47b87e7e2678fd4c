"""The technical stage: explain the shared cases, measure every explanation, run the sanity checks."""
