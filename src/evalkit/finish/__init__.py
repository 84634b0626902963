"""The end of a run, shared by every front end: outputs and gates checked before the run, done after it."""

from evalkit.finish.step import Finish
