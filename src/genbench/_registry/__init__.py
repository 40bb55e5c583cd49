"""Where tasks live and what they are, read from their files alone: task roots, task directories and ids,
importing task code as ``genbench.tasks.<id>``, the listing and its metadata cache.

Nothing here builds a :class:`~genbench.Task`: :mod:`genbench.task._factory` does, from the directories found here.
"""
