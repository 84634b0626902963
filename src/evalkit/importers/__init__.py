"""evalkit import: eval sets made from other tools' records (sessions, traces, exported tests)."""
