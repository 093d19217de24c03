"""The helpers the test modules share: local sites and crawls, audit trails, media files,
a redis-server, reference matchers, subprocess workers. Imported as ``tests.support.X``;
no test module defines a helper another one defines (tests/project/test_test_layout.py)."""
