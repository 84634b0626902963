"""The data model of every file evalkit reads and writes: eval sets, configs, results (pydantic)."""
