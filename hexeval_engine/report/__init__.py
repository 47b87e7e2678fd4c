"""The report stage: one self-contained HTML file per run."""
