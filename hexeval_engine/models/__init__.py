"""The model stage: loading model files safely, the one model view the engine uses, its card, compatibility and training."""
