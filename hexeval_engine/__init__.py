"""HEXEval engine: which explanation method should each stakeholder see?

The engine never imports streamlit; the dashboard, the CLI and Python users call the same functions.
"""

from .compatibility import validate_model_data_compatibility
from .config import HexevalConfig, load_config
from .dataset import Dataset, load_data
from .errors import ConfigError, DataError, HexevalError, LLMError, ModelError, RunError
from .explanation import METHODS, Explanation
from .model_loading import load_model
from .model_wrapper import HexevalModel
from .usecases import UseCase, get_usecase, list_usecases

__all__ = [
    "METHODS", "ConfigError", "DataError", "Dataset", "Explanation", "HexevalConfig", "HexevalError", "HexevalModel",
    "LLMError", "ModelError", "RunError", "UseCase", "get_usecase", "list_usecases", "load_config", "load_data",
    "load_model", "validate_model_data_compatibility",
]
