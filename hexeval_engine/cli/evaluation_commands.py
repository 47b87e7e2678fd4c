"""evaluate / runs / report commands (filled in with the evaluation pipeline)."""


def register(sub, add_inputs) -> None:
    return None
