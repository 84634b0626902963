"""Result files read and written, and the figures computed over a run's cases."""
