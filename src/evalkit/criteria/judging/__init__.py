"""What every judged criterion shares: asking a judge, sampling, voting, prompts and calibration."""
