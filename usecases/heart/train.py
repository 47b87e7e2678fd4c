"""Train the Heart Disease model: a random forest behind one-hot encoding, on raw CSV columns.

Deterministic (fixed seeds); run by ``hexeval prepare`` (``make run``/``make test`` call it).
"""

from pathlib import Path

from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder


def build_pipeline(data):
    pre = ColumnTransformer(
        [("categorical", OneHotEncoder(handle_unknown="ignore"), data.categorical_features)],
        remainder="passthrough",
    )
    forest = RandomForestClassifier(n_estimators=200, max_depth=6, min_samples_leaf=2, random_state=42, n_jobs=1)
    return Pipeline([("preprocess", pre), ("model", forest)])


if __name__ == "__main__":
    from hexeval_engine.models.training import train_usecase
    from hexeval_engine.usecases import get_usecase

    card = train_usecase(get_usecase("heart", Path(__file__).resolve().parents[1]), build_pipeline)
    print(f"heart: test ROC-AUC {card['test_roc_auc']:.3f}, accuracy {card['test_accuracy']:.3f} "
          f"({card['n_train']} train / {card['n_test']} test rows, {card['duplicates_dropped']} duplicates dropped)")
