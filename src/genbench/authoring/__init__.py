"""What a task author runs: the scaffold of a new task (cookiecutter templates) and its submission as a pull
request (:mod:`genbench.authoring.submission`)."""
