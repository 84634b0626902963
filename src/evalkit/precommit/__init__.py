"""evalkit's pre-commit hooks: `validate.py` (evalkit-validate) and `run.py` (evalkit-run),
started by `python -m evalkit.precommit` (`__main__.py`)."""
