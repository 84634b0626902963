"""The keys a person answers with, the same in `evalkit label` and `evalkit accept --interactive`.

One key never means two things across the commands (docs/evalsets.md, "Answer keys"):
`y` yes, `n` no, `s` skip, `q` quit in both; `c` (a comment, label's note) and `a`
(this and all the rest, accept's) belong to one command each. As in `git add -p`.
"""

YES = "y"  # label: the judge's verdict is right; accept: accept this case
NO = "n"  # label: the judge's verdict is wrong; accept: leave this case as it is
SKIP = "s"  # label: no answer now, asked again next time; accept: as `n`
COMMENT = "c"  # label only: a note saved with the verdict that follows
ALL = "a"  # accept only: accept this case and every one after it
QUIT = "q"  # both: stop; what was answered is kept
