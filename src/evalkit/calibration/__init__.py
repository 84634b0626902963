"""Judge calibration: human labels of judged criteria (docs/viewer.md, "Labels")."""
