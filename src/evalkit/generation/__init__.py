"""`evalkit generate`: eval cases written by a model, aimed at the parts of the agent no case reaches yet."""
