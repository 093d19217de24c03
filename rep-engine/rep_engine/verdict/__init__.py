"""May this request go? The one decision of the crawl, its early pass, both tools, the
trail's re-derivation and the media gate (:mod:`rep_engine.verdict.decide`;
its values: :mod:`rep_engine.verdict.values`)."""

# Re-exported (``X as X``): this package is the public import path of these names.
from rep_engine.verdict.decide import decide as decide
from rep_engine.verdict.values import LICENSE as LICENSE
from rep_engine.verdict.values import ROBOTS as ROBOTS
from rep_engine.verdict.values import TDM as TDM
from rep_engine.verdict.values import UNCHECKED as UNCHECKED
from rep_engine.verdict.values import Allowed as Allowed
from rep_engine.verdict.values import Known as Known
from rep_engine.verdict.values import Obey as Obey
from rep_engine.verdict.values import Override as Override
from rep_engine.verdict.values import Refused as Refused
from rep_engine.verdict.values import RequestFacts as RequestFacts
from rep_engine.verdict.values import RequestRules as RequestRules
from rep_engine.verdict.values import Used as Used
from rep_engine.verdict.values import Verdict as Verdict
from rep_engine.verdict.values import Wait as Wait
from rep_engine.verdict.values import obey_of as obey_of
