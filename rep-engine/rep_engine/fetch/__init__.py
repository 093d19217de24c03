"""Per-origin documents: what each kind is, how one is fetched, cached, shared
and decided on over time. Pure (``urlfetch`` uses urllib, for the checker)."""
