"""What a run is shown as: the console table and progress, and the JUnit, Markdown and HTML reports."""
