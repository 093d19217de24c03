"""The one-line switch for the whole suite (SPEC §5): ``ADDONS = {"scrapy_rep.Addon": 0}``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object

from rep_engine.settings import SETTINGS, RepConfig, remote_control
from rep_engine.verdict.policy import TDM_PURPOSES
from scrapy_rep.crawl.audit.audit import AuditTrail
from scrapy_rep.crawl.audit.auditfile import check_resumed_trail
from scrapy_rep.crawl.auditing import AuditMiddleware
from scrapy_rep.crawl.documents.engine_fetch import GUARD_PRIORITY, RobotsTxtResponseGuard
from scrapy_rep.crawl.internals import MEDIA_REQUEST_FILTERED, switch_off_base_component
from scrapy_rep.crawl.page.downloadermiddlewares import PRIORITY as PAGE_VERDICT_PRIORITY
from scrapy_rep.crawl.page.downloadermiddlewares import PageVerdictMiddleware
from scrapy_rep.crawl.page.spidermiddlewares import PageDirectivesMiddleware
from scrapy_rep.crawl.payment import PRIORITY as PAYMENT_PRIORITY
from scrapy_rep.crawl.payment import PaymentRequiredMiddleware
from scrapy_rep.crawl.report import RepReport
from scrapy_rep.crawl.requests.downloadermiddlewares import RobotsTxtMiddleware
from scrapy_rep.crawl.requests.sentcheck import PRIORITY as SENT_CHECK_PRIORITY
from scrapy_rep.crawl.requests.sentcheck import SentRequestCheck
from scrapy_rep.crawl.startup import check_resumed, name_warnings, validate
from scrapy_rep.crawl.webbotauth import WebBotAuthMiddleware

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings, Settings

#: Scrapy's own robots.txt middleware, whose slot ours takes.
SCRAPY_MIDDLEWARE = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
DOWNLOADER_PRIORITY = 100
SPIDER_PRIORITY = 550
REPORT_PRIORITY = 500
AUDIT_PRIORITY = 500
#: Outside every downloader middleware that retries or redirects: an exception reaching
#: it is a request's final failure.
AUDIT_MIDDLEWARE_PRIORITY = 10
#: After Scrapy's own downloader middlewares (its HTTP cache is 900): the signer signs where
#: the downloader sends, after all of them; off (``NotConfigured``) without a key.
WEB_BOT_AUTH_PRIORITY = 950

logger = logging.getLogger(__name__)


class Addon:
    """Enables scrapy_rep: our robots.txt middleware in place of Scrapy's (which is
    switched off), the page-directives middleware, the end-of-crawl report (shown with
    ``REP_REPORT = True``), the audit trail (written with ``REP_AUDIT_FILE``), the
    requests' signatures (with ``REP_WEB_BOT_AUTH_KEY``), and ``ROBOTSTXT_OBEY = True``
    unless the project set it to ``False`` itself."""

    def __repr__(self) -> str:
        """As Scrapy's "Enabled addons" log line shows it: by its public path."""
        return "<scrapy_rep.Addon>"

    @classmethod
    def update_pre_crawler_settings(cls, settings: BaseSettings) -> None:
        """The project's and the command line's settings, checked before anything runs."""
        validate(settings)

    def update_settings(self, settings: Settings) -> None:
        config = validate(settings)  # with the spider's own settings too
        switch_off_base_component(settings, "DOWNLOADER_MIDDLEWARES", SCRAPY_MIDDLEWARE)
        register(settings, "DOWNLOADER_MIDDLEWARES", RobotsTxtMiddleware, DOWNLOADER_PRIORITY)
        register(settings, "DOWNLOADER_MIDDLEWARES", SentRequestCheck, SENT_CHECK_PRIORITY)
        register(settings, "DOWNLOADER_MIDDLEWARES", RobotsTxtResponseGuard, GUARD_PRIORITY)
        register(settings, "DOWNLOADER_MIDDLEWARES", PageVerdictMiddleware, PAGE_VERDICT_PRIORITY)
        register(settings, "DOWNLOADER_MIDDLEWARES", PaymentRequiredMiddleware, PAYMENT_PRIORITY)
        register(settings, "DOWNLOADER_MIDDLEWARES", WebBotAuthMiddleware, WEB_BOT_AUTH_PRIORITY)
        register(settings, "SPIDER_MIDDLEWARES", PageDirectivesMiddleware, SPIDER_PRIORITY)
        register(settings, "EXTENSIONS", RepReport, REPORT_PRIORITY)  # off unless REP_REPORT
        register(settings, "EXTENSIONS", AuditTrail, AUDIT_PRIORITY)  # off without trail or report
        # nothing on the download path without the ledger (a trail, a report to tell)
        if config.ledger:
            register(settings, "DOWNLOADER_MIDDLEWARES", AuditMiddleware, AUDIT_MIDDLEWARE_PRIORITY)
        if settings.getpriority("ROBOTSTXT_OBEY") == SETTINGS_PRIORITIES["default"]:
            settings.set("ROBOTSTXT_OBEY", True, priority="addon")
        wrap_media_pipelines(settings)
        check_resumed_trail(settings, config, check_resumed(settings, config))
        show_defaults(settings)
        warn_unknown_names(settings, config)
        warn_remote_control(settings, config)


def public_path(component: type) -> str:
    """The path the docs give a component, ``"scrapy_rep.RobotsTxtMiddleware"``: the
    package's lazy name (``scrapy_rep.__getattr__``), which ``load_object`` resolves."""
    return f"scrapy_rep.{component.__name__}"


def register(settings: BaseSettings, name: str, component: type, priority: int) -> None:
    """``component`` in the component priority setting ``name`` (``DOWNLOADER_MIDDLEWARES``
    …) under its :func:`public_path`, so that Scrapy's "Enabled downloader middlewares"
    log line names it as the docs do. A component the project lists by hand, under any
    path, keeps its own entry and priority (as Scrapy's
    ``setdefault_in_component_priority_dict`` does; a key that does not load is left to
    Scrapy, which names it when it loads the components)."""
    components = settings.getdict(name)
    if any(_loads(key, component) for key in components):
        return
    components[public_path(component)] = priority
    settings.set(name, components, settings.getpriority(name) or 0)


def with_ledger(
    middlewares: dict[Any, Any], extensions: dict[Any, Any]
) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """``DOWNLOADER_MIDDLEWARES`` and ``EXTENSIONS`` with the URL ledger on
    (:class:`AuditMiddleware`, :class:`AuditTrail`) whatever the project switched off:
    the tools' crawl, which prints the ledger's entries."""
    return (
        switched_on(middlewares, AuditMiddleware, AUDIT_MIDDLEWARE_PRIORITY),
        switched_on(extensions, AuditTrail, AUDIT_PRIORITY),
    )


def switched_on(components: dict[Any, Any], component: type, priority: int) -> dict[Any, Any]:
    """``components`` (a component priority setting) with ``component`` on at ``priority``
    under its :func:`public_path`: an entry of the project's under any path that loads it
    (``None`` too, which switches it off) is left out (the tools' crawl, whose output is
    the URL ledger's)."""
    kept = {key: value for key, value in components.items() if not _loads(key, component)}
    return {**kept, public_path(component): priority}


def _loads(key: Any, component: type) -> bool:
    """Whether ``key`` of a component priority setting loads ``component`` (a key that
    does not load is not it: Scrapy names it when it loads the components)."""
    try:
        return (load_object(key) if isinstance(key, str) else key) is component
    except (ImportError, NameError, ValueError, AttributeError):
        return False


def wrap_media_pipelines(settings: Settings) -> None:
    """For crawls with ai-train or ai-input (and ``REP_MEDIA_USAGE``), every
    ``FilesPipeline`` subclass in ``ITEM_PIPELINES`` reads the statements inside the
    files it downloads (docs/media.md): the class gets the mixin, keeping its name.
    Before Scrapy 2.18 the others get the mixin that keeps a file request scrapy_rep
    refused from being logged as an ERROR (:mod:`scrapy_rep.crawl.media.pipelines`)."""
    from scrapy.pipelines.files import FilesPipeline

    from scrapy_rep.crawl.media.pipelines import with_filtered_refusals, with_media_usage

    config = RepConfig.from_settings(settings)
    checked = config.media_usage and not TDM_PURPOSES.isdisjoint(config.purpose)
    if not checked and MEDIA_REQUEST_FILTERED:
        return
    wrap = with_media_usage if checked else with_filtered_refusals
    for key, priority in list(settings.getdict("ITEM_PIPELINES").items()):
        if priority is None:
            continue
        try:
            pipeline = load_object(key) if isinstance(key, str) else key
        except (ImportError, NameError, ValueError, AttributeError):
            continue  # Scrapy names the wrong path itself when it loads the pipelines
        if isinstance(pipeline, type) and issubclass(pipeline, FilesPipeline):
            wrapped = wrap(pipeline)
            if wrapped is not pipeline:
                settings.replace_in_component_priority_dict("ITEM_PIPELINES", pipeline, wrapped)


def show_defaults(settings: BaseSettings) -> None:
    """Every ``REP_*`` setting the project left unset gets its default, with the add-on's
    priority, so that ``crawler.settings`` (a spider's ``self.settings``, ``scrapy shell``)
    shows the value in force. A default that is derived from other settings (``None``)
    stays unset."""
    for setting in SETTINGS:
        if setting.default is not None and settings.getpriority(setting.name) is None:
            settings.set(setting.name, setting.default, priority="addon")


def warn_remote_control(settings: BaseSettings, config: RepConfig) -> None:
    """A WARNING when the crawl writes an audit trail with Scrapy 2.19's RemoteControl on
    (on by default): it runs the code a local client sends inside the crawl, so the
    trail cannot show that nobody changed what the crawl obeyed or recorded
    (docs/deployment.md, "A crawl whose trail is evidence"). The run header records the
    setting either way."""
    if config.audit_file and remote_control(settings) is True:
        logger.warning(
            "scrapy_rep: REMOTE_CONTROL_ENABLED is on while the crawl writes its audit trail "
            "(%s): Scrapy's RemoteControl runs the code a local client sends inside the "
            "crawl, so the trail cannot show that nobody changed what it obeyed or recorded; "
            "for a trail that is evidence, set REMOTE_CONTROL_ENABLED = False",
            config.audit_file,
        )


def warn_unknown_names(settings: BaseSettings, config: RepConfig) -> None:
    """A WARNING for each unknown ``REP_*`` / ``ROBOTSTXT_*`` name that does not stop the
    crawl (``REP_UNKNOWN_SETTINGS = "warn"``, or a ``ROBOTSTXT_*`` name close to none),
    with the closest real name: logged once, here, where Scrapy's logging is set up."""
    for line in name_warnings(settings, config):
        logger.warning(line)
