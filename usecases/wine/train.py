"""Train the wine cultivar model: a random forest on the 13 raw laboratory measurements.

``data.csv`` is scikit-learn's ``load_wine`` data (no download), written once with the target renamed
``cultivar`` (1, 2, 3 for scikit-learn's classes 0, 1, 2). Deterministic (fixed seeds); run by
``hexeval prepare`` (``make run``/``make test`` call it).
"""

from pathlib import Path

from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import Pipeline


def build_pipeline(data):
    forest = RandomForestClassifier(n_estimators=100, max_depth=4, min_samples_leaf=2, random_state=42, n_jobs=1)
    return Pipeline([("model", forest)])


if __name__ == "__main__":
    from hexeval_engine.models.training import train_usecase
    from hexeval_engine.usecases import get_usecase

    card = train_usecase(get_usecase("wine", Path(__file__).resolve().parents[1]), build_pipeline)
    print(f"wine: test macro ROC-AUC {card['test_roc_auc']:.3f}, accuracy {card['test_accuracy']:.3f} "
          f"({card['n_train']} train / {card['n_test']} test rows, {len(card['class_labels'])} classes)")
