"""HEXEval engine: which explanation method should each stakeholder see?

The engine never imports streamlit; the dashboard, the CLI and Python users call the same functions.
"""

from .config import HexevalConfig, load_config
from .data.dataset import Dataset, load_data
from .errors import ConfigError, DataError, HexevalError, LLMError, ModelError, RunError
from .evaluate import EvaluationResult, evaluate
from .explainers import explain_instances
from .explanation import METHODS, Explanation
from .metrics import METRICS, compute_instance_metrics, get_spec, make_baseline, summarise
from .models.compatibility import validate_model_data_compatibility
from .models.model_loading import load_model
from .models.model_wrapper import HexevalModel
from .raters.run import estimate_persona_evaluation, run_persona_evaluation
from .personas import Persona, load_personas
from .raters import Rating, make_rater, rater_from_config
from .recommend.recommender import canonical_method, generate_recommendations
from .report.html import write_report
from .technical.run import TechnicalResult, run_technical_evaluation
from .usecases import UseCase, get_usecase, list_usecases

__all__ = [
    "METHODS", "METRICS", "ConfigError", "DataError", "Dataset", "EvaluationResult", "Explanation", "HexevalConfig",
    "HexevalError", "HexevalModel", "LLMError", "ModelError", "Persona", "Rating", "RunError", "UseCase",
    "canonical_method", "compute_instance_metrics", "estimate_persona_evaluation", "evaluate",
    "generate_recommendations", "get_spec", "get_usecase", "list_usecases", "load_config", "load_data",
    "load_model", "load_personas", "make_baseline", "make_rater", "rater_from_config", "run_persona_evaluation",
    "summarise", "validate_model_data_compatibility", "write_report", "TechnicalResult", "run_technical_evaluation",
    "explain_instances",
]
