"""A long run of tests/recheck/test_rechecker_fuzz.py's differential fuzz of the recheck's
fast path. Run: PYTHONPATH=$PWD python fuzz/recheck_differential.py [seconds] [seed]"""

from tests.recheck.test_rechecker_fuzz import run_recheck_fuzz as main

if __name__ == "__main__":
    main()
