"""Plain-text rendering of reports for the terminal."""

from __future__ import annotations

from ..data.dataset import Dataset
from ..models.model_words import model_words
from ..plain_values import show, show_all, show_counts


def print_quality(data: Dataset) -> None:
    q = data.quality
    print(f"Data: {data.source}")
    classes = ("regression: the model predicts this number" if data.is_regression else
               f"positive = {show(data.positive_label)}" if data.n_classes == 2 else
               f"{data.n_classes}-class classification: {show_all(data.class_labels)}")
    print(f"  rows {q.n_rows}, columns {q.n_columns}; target '{data.target}' "
          f"({classes}); train {len(data.X_train)} / test {len(data.X_test)}")
    print(f"  numeric: {', '.join(data.numeric_features) or '-'}")
    print(f"  categorical: {', '.join(data.categorical_features) or '-'}")
    if q.class_balance:
        print(f"  class balance: {show_counts(q.class_balance)}")
    print(f"  duplicate rows: {q.duplicate_rows} (dropped {q.duplicates_dropped}, "
          f"test rows also in train: {q.duplicates_crossing_split})")
    if q.missing_values:
        print("  missing values: " + ", ".join(f"{c} {n}" for c, n in q.missing_values.items()))
    if q.warnings:
        print("Data warnings:")
        for w in q.warnings:
            print(f"  - {w}")


def print_validation(model, result: dict) -> None:
    decision = ("a regressor" if model.regression else f"threshold {model.threshold}" if model.n_classes == 2 else
                f"{model.n_classes} classes, the most probable one predicted")
    print(f"Model: {model_words(model.type_name)} ({model.kind}, {decision})")
    print(f"Validation: {result['status'].upper()}")
    for e in result["errors"]:
        print(f"  error: {e}")
    for w in result["warnings"]:
        print(f"  warning: {w}")
    checks = result.get("checks", {})
    if "sample_r2" in checks:
        print(f"  test-sample R² {checks['sample_r2']:.2f} over {checks['sample_rows']} rows")
    elif "sample_accuracy" in checks and "predicted_class_shares" in checks:
        print(f"  test-sample accuracy {checks['sample_accuracy']:.1%} over {checks['sample_rows']} rows")
    elif "sample_accuracy" in checks:
        print(f"  test-sample accuracy {checks['sample_accuracy']:.1%}, predicted positive share "
              f"{checks['predicted_positive_share']:.1%} over {checks['sample_rows']} rows")
