"""URLs as the three formats read them: a URL's origin (scheme, IDNA host, port), its
path and percent-encoding, and the ``*``/``$`` patterns robots.txt, tdmrep.json and RSL
match it with. Pure: the floor below every other."""
