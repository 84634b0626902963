"""Files to a Plan: eval sets and configs read, checked and packed, every input problem found at once."""
