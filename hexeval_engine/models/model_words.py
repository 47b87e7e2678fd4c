"""A model's kind in words for people who do not read class names: ``ColumnTransformer → RandomForestClassifier``
reads "Random forest (ColumnTransformer → RandomForestClassifier)" — the words first, the technical form after."""

from __future__ import annotations

#: The estimator's class name -> what it is, for the model kinds people upload most. Any other class keeps
#: its own name (a made-up description would be worse than the class name).
KINDS = {
    "LogisticRegression": "logistic regression", "LogisticRegressionCV": "logistic regression",
    "LinearRegression": "linear regression", "Ridge": "ridge regression", "RidgeClassifier": "ridge classifier",
    "Lasso": "lasso regression", "ElasticNet": "elastic-net regression",
    "RandomForestClassifier": "random forest", "RandomForestRegressor": "random forest",
    "ExtraTreesClassifier": "extra-trees forest", "ExtraTreesRegressor": "extra-trees forest",
    "DecisionTreeClassifier": "decision tree", "DecisionTreeRegressor": "decision tree",
    "GradientBoostingClassifier": "gradient-boosted trees", "GradientBoostingRegressor": "gradient-boosted trees",
    "HistGradientBoostingClassifier": "gradient-boosted trees", "HistGradientBoostingRegressor": "gradient-boosted trees",
    "XGBClassifier": "gradient-boosted trees (XGBoost)", "XGBRegressor": "gradient-boosted trees (XGBoost)",
    "LGBMClassifier": "gradient-boosted trees (LightGBM)", "LGBMRegressor": "gradient-boosted trees (LightGBM)",
    "SVC": "support-vector machine", "SVR": "support-vector machine", "LinearSVC": "linear support-vector machine",
    "KNeighborsClassifier": "nearest-neighbour model", "KNeighborsRegressor": "nearest-neighbour model",
    "MLPClassifier": "neural network", "MLPRegressor": "neural network",
    "GaussianNB": "naive Bayes", "OnnxClassifier": "ONNX classifier", "OnnxRegressor": "ONNX regressor",
}


def model_words(type_text: str) -> str:
    """``"ColumnTransformer → RandomForestClassifier"`` -> ``"Random forest (ColumnTransformer → RandomForestClassifier)"``;
    a class not in :data:`KINDS` is named as it is (``"MyModel"``), an empty text reads ``"Model"``."""
    text = str(type_text or "").strip()
    if not text:
        return "Model"
    kind = KINDS.get(text.split("→")[-1].strip())
    return f"{kind[:1].upper()}{kind[1:]} ({text})" if kind else text
