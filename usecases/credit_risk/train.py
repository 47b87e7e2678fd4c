"""Train the Credit Risk model: XGBoost behind imputation and one-hot encoding, on raw CSV columns.

Missing values stay in the data; the pipeline imputes them. Deterministic (fixed seeds).
"""

from pathlib import Path

from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from xgboost import XGBClassifier


def build_pipeline(data):
    pre = ColumnTransformer(
        [
            ("categorical", OneHotEncoder(handle_unknown="ignore"), data.categorical_features),
            ("numeric", SimpleImputer(strategy="median"), data.numeric_features),
        ]
    )
    model = XGBClassifier(n_estimators=300, max_depth=5, learning_rate=0.08, subsample=0.9, colsample_bytree=0.9,
                          random_state=42, n_jobs=2, eval_metric="logloss")
    return Pipeline([("preprocess", pre), ("model", model)])


if __name__ == "__main__":
    from hexeval_engine.models.training import train_usecase
    from hexeval_engine.usecases import get_usecase

    card = train_usecase(get_usecase("credit_risk", Path(__file__).resolve().parents[1]), build_pipeline)
    print(f"credit_risk: test ROC-AUC {card['test_roc_auc']:.3f}, accuracy {card['test_accuracy']:.3f} "
          f"({card['n_train']} train / {card['n_test']} test rows)")
