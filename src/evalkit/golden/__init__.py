"""Golden refresh (`evalkit accept`): a run's actual turns become a case's expected ones.

`expected` builds the new expected turn in the style of the old one, `json_edit` and
`yaml_edit` rewrite only the edited members of a file, and `accept` ties them to a
result file. See docs/evalsets.md ("Accepting new expected turns").
"""
