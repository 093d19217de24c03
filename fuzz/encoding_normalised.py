"""A long run of tests/urls/test_encoding.py's fuzz of ``_encode_non_ascii`` and the
compile's ``_normalised``.

Run: PYTHONPATH=$PWD python fuzz/encoding_normalised.py [seconds] [seed]
"""

from tests.urls.test_encoding import run_encoding_fuzz as main

if __name__ == "__main__":
    main()
