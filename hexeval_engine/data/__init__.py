"""Load & validate: reading CSVs, data checks, the target, the split and the integer coding of categories."""
