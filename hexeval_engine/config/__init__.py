from .loader import deep_merge, load_config, read_yaml, validate_config
from .schema import HexevalConfig

__all__ = ["HexevalConfig", "deep_merge", "load_config", "read_yaml", "validate_config"]
