"""One module per evalkit command, called by the CLI; commands never import each other."""
