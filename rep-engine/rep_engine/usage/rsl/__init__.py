"""RSL 1.0 license documents: the document (:mod:`.document`), what it says about one
URL per purpose (:mod:`.terms`), where a page names its licenses (:mod:`.discovery`)."""
