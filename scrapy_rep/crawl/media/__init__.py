"""The media pipelines: the files and images pipelines that decide each file's usage
before and after its download. Builds on ``page/`` and ``requests/``."""
