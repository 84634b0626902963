"""Vertex AI's evaluation metrics: text overlap, tool calls and model-based templates."""
