"""The import path Scrapy settings name (``scrapy_rep.pipelines.…``): the classes
live in :mod:`scrapy_rep.crawl.media.pipelines`."""

from scrapy_rep.crawl.media.pipelines import MediaUsageMixin as MediaUsageMixin
from scrapy_rep.crawl.media.pipelines import RefusedBeforeFetch as RefusedBeforeFetch
from scrapy_rep.crawl.media.pipelines import RepFilesPipeline as RepFilesPipeline
from scrapy_rep.crawl.media.pipelines import RepImagesPipeline as RepImagesPipeline
from scrapy_rep.crawl.media.pipelines import with_media_usage as with_media_usage
