"""May this request go? The one decision of the crawl, its early pass, both tools, the
trail's re-derivation and the media gate (:mod:`scrapy_rep.verdict.decide`;
its values: :mod:`scrapy_rep.verdict.values`)."""

# Re-exported (``X as X``): this package is the public import path of these names.
from scrapy_rep.verdict.decide import decide as decide
from scrapy_rep.verdict.reasons import LINK_REASONS as LINK_REASONS
from scrapy_rep.verdict.reasons import Reason as Reason
from scrapy_rep.verdict.values import LICENSE as LICENSE
from scrapy_rep.verdict.values import ROBOTS as ROBOTS
from scrapy_rep.verdict.values import TDM as TDM
from scrapy_rep.verdict.values import UNCHECKED as UNCHECKED
from scrapy_rep.verdict.values import Allowed as Allowed
from scrapy_rep.verdict.values import Known as Known
from scrapy_rep.verdict.values import Obey as Obey
from scrapy_rep.verdict.values import Override as Override
from scrapy_rep.verdict.values import Refused as Refused
from scrapy_rep.verdict.values import RequestFacts as RequestFacts
from scrapy_rep.verdict.values import RequestRules as RequestRules
from scrapy_rep.verdict.values import Used as Used
from scrapy_rep.verdict.values import Verdict as Verdict
from scrapy_rep.verdict.values import Wait as Wait
from scrapy_rep.verdict.values import obey_of as obey_of
