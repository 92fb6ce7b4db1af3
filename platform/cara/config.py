"""Settings, read once from the environment.

One pydantic-settings class for the whole service. The built-in development
JWT secret is public (it is in this file): anyone can sign an admin token with
it. So it is accepted only in development on a loopback address, where no one
else can reach the server; everywhere else a deploy cannot start with it.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Literal

import limits
from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_SECRET = "cara-development-secret-change-me-0123456789"  # noqa: S105 - refused outside development


def is_loopback(host: str) -> bool:
    """True if a server listening on ``host`` is reachable from this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:  # a name other than localhost, or "" (every interface): not loopback
        return False


def refuse_dev_secret(cara_env: str, jwt_secret: str, host: str) -> None:
    """Raise ValueError unless ``jwt_secret`` may sign tokens for a server on ``host``.

    The development secret is public, so a token it signs proves nothing: it is refused unless
    the server is a developer's own (development, listening on loopback). Tests set their own
    random secret (tests/conftest.py), so the test environment needs no exception.
    """
    if jwt_secret == DEV_SECRET:
        if cara_env != "development":
            raise ValueError(
                f"JWT_SECRET is the built-in development secret, refused with CARA_ENV={cara_env}: "
                "set JWT_SECRET to a random value of 32+ characters"
            )
        if not is_loopback(host):
            raise ValueError(
                f"JWT_SECRET is the built-in development secret, refused on {host or 'every interface'} "
                "(it is accepted only on a loopback address, e.g. 127.0.0.1): "
                "set JWT_SECRET to a random value of 32+ characters"
            )
    elif cara_env == "production" and len(jwt_secret) < 32:
        raise ValueError("JWT_SECRET must be set to a random value of 32+ characters in production")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    cara_env: Literal["development", "test", "production"] = "development"

    database_url: str = "postgresql+psycopg://postgres@127.0.0.1:5432/cara"
    redis_url: str = "redis://127.0.0.1:6379/0"
    # The messages a worker held when it died (kill -9, a lost node) go back to their queues once
    # its broker heartbeat is this old, found by the maintenance that runs on about this many
    # broker commands in a million (Dramatiq's defaults: 60 s, 1,000).
    broker_heartbeat_timeout_ms: int = Field(default=60_000, ge=1_000)
    broker_maintenance_chance: int = Field(default=1_000, ge=1, le=1_000_000)
    db_pool_size: int = 20
    db_max_overflow: int = 10
    # DATABASE_URL names a pooler in transaction mode (PgBouncer): no server-side prepared
    # statements, no startup options (cara.kit.db.connect_args).
    db_transaction_pooling: bool = False

    jwt_secret: str = DEV_SECRET
    # The address `python -m cara.serve` listens on (HOST; its --host wins). Known here so that
    # the development secret can be refused off loopback when the settings are read.
    host: str = "127.0.0.1"
    jwt_ttl_minutes: int = 60 * 12
    password_reset_ttl_minutes: int = 60
    # The browser apps: a short-lived access token held in memory, renewed with a rotating
    # refresh token in an HttpOnly cookie that lasts REFRESH_TOKEN_TTL_MINUTES from sign-in.
    access_token_ttl_minutes: int = Field(default=15, ge=1)
    refresh_token_ttl_minutes: int = Field(default=60 * 12, ge=1)
    # A refresh token presented again this soon after its rotation (another tab refreshing at
    # the same moment) gets an access token without rotating; later it revokes its family.
    refresh_reuse_grace_seconds: int = Field(default=10, ge=0)
    # The refresh cookie's Secure flag: unset, it follows the request's scheme (https).
    session_cookie_secure: bool | None = None
    # A new hospital proves its email (the emailed link) before it adds doctors or buys a plan;
    # hospitals that never do are removed, schema and role with them, after this many days.
    hospital_email_verification: bool = True
    unverified_hospital_days: int = Field(default=7, ge=1)
    # How long the link that finishes an anonymous sign-up stays valid.
    signup_link_hours: int = Field(default=24, ge=1, le=168)
    # Two-factor sign-in (cara.auth.mfa). Platform admins must enrol (sent to enrolment right
    # after sign-in while they have none); doctors and hospitals may, or a hospital requires it.
    admin_mfa_required: bool = True
    # The key TOTP secrets are encrypted with at rest (Fernet, derived from this text); unset,
    # it is derived from JWT_SECRET. Changing it makes enrolled secrets unreadable.
    mfa_encryption_key: str | None = None
    # How long the code step of a sign-in (or a forced enrolment) may take after the password.
    mfa_challenge_ttl_seconds: int = Field(default=300, ge=30, le=3600)

    # Login throttling: failed attempts allowed per (email, client address)
    # inside the window before further attempts from that address are refused (429).
    login_max_failures: int = 5
    login_window_seconds: int = 15 * 60
    # Where an account signed in from (addresses, device cookies) is remembered this long;
    # past the account or address limit below, only those places sign in with the password alone.
    login_place_days: int = Field(default=90, ge=1, le=400)
    # The emailed link that lets a right password in from a new place past those limits.
    login_unlock_ttl_minutes: int = Field(default=15, ge=1, le=24 * 60)

    # Abuse limits (cara.kit.throttle), in the `limits` library's notation ("10 per hour").
    # Failed sign-ins of one account from every address, and from one address on every account:
    # past them a sign-in from a new place needs the emailed link (cara.auth.ratelimit).
    rate_limit_login_account: str = "20 per 15 minutes"
    rate_limit_login_address: str = "20 per 15 minutes"
    # Unlock links mailed to one account (the answer is the same past it: no mail flood).
    rate_limit_login_unlock_mail: str = "3 per hour"
    # Wrong two-factor codes (sign-in, enrolment, disabling) per account.
    rate_limit_mfa_account: str = "5 per 15 minutes"
    rate_limit_signup_address: str = "10 per hour"
    # Sign-up mails to one address (the link, or "this email already has an account"); past it the
    # answer is the same and nothing is mailed, so sign-up cannot flood someone's inbox.
    rate_limit_signup_email: str = "3 per hour"
    # Hospital sign-ups create a schema and a role: per address, and in total on the platform.
    rate_limit_hospital_signup_address: str = "3 per hour"
    rate_limit_hospital_signups: str = "100 per hour"
    rate_limit_forgot_password_address: str = "10 per hour"  # noqa: S105 - a limit, not a secret
    rate_limit_forgot_password_email: str = "3 per hour"  # noqa: S105
    rate_limit_reset_password_address: str = "20 per hour"  # noqa: S105
    rate_limit_certificate_upload: str = "30 per hour"
    # Per doctor: summaries, radiotherapy chat messages, live consultations opened.
    rate_limit_summaries: str = "60 per hour"
    rate_limit_chat: str = "120 per hour"
    rate_limit_live_connects: str = "30 per hour"
    # Typed turns in a live consultation (each one a model reply), per doctor across sockets.
    rate_limit_live_turns: str = "20 per minute"
    # Recordings awaiting processing (audio is deleted once transcribed), cara.recordings.storage.
    # Per doctor: uploads still receiving at once, and bytes received in the last 24 hours.
    recording_max_open_uploads: int = Field(default=4, ge=1, le=100)
    recording_daily_bytes: int = Field(default=512 * 1024 * 1024, ge=1024 * 1024)
    # Audio held for a hospital (all its doctors), and for each independent doctor, whose
    # tenant is shared: one of them must not fill it for the others.
    recording_tenant_quota_bytes: int = Field(default=20 * 1024**3, ge=1024 * 1024)
    recording_independent_quota_bytes: int = Field(default=2 * 1024**3, ge=1024 * 1024)
    # Smaller chunks are refused except the last (each stored chunk costs a row and its overhead).
    recording_min_chunk_bytes: int = Field(default=64 * 1024, ge=1, le=512 * 1024)
    # Who transcribes a recording made offline: `local` (speech recognition on this server, no
    # audio leaves it) or `provider` (the AI service). Unset: local when no AI key is set, else
    # the provider (cara.recordings.speech).
    transcriber: Literal["local", "provider"] | None = None
    # A model folder of the operator's own (Whisper in CTranslate2 format, e.g. a multilingual
    # one for French and Arabic); unset: the English model shipped in a package.
    transcriber_model_dir: str | None = None
    # Medicine names (comma-separated) the recogniser is primed with; unset: the shipped list of
    # essential medicines (cara.recordings.speech.DEFAULT_VOCABULARY); empty: none.
    transcriber_vocabulary: str | None = None
    # Recognition processes at once on a worker (each its own process, ended at its deadline).
    transcriber_processes: int = Field(default=1, ge=1, le=16)
    # CPU threads each recognition process uses.
    transcriber_threads: int = Field(default=1, ge=1, le=16)
    # Longer recordings wait for the AI service rather than hold a recognition process.
    transcriber_max_minutes: int = Field(default=120, ge=1, le=12 * 60)
    # Imaging (cara.imaging). The platform's PACS over DICOMweb (its QIDO/WADO/STOW root, e.g.
    # http://pacs:8042/dicom-web): every tenant's until a hospital names its own. ./ops/dev sets
    # these to the embedded Orthanc. Hospitals' PACS passwords are encrypted at rest with a key
    # derived from PACS_CREDENTIALS_KEY (unset: from JWT_SECRET).
    pacs_url: str | None = None
    pacs_username: str | None = None
    pacs_password: str | None = None
    pacs_credentials_key: str | None = None
    pacs_timeout_seconds: float = Field(default=20.0, ge=1.0, le=300.0)
    # A hospital's PACS address on this machine's loopback (or link-local) network is refused
    # unless this is on: the server would otherwise fetch its own private services for a client.
    pacs_allow_loopback: bool = False
    # One upload of DICOM files (zips included): files, bytes sent, bytes once unzipped (an
    # upload is held in the API process's memory while it is checked and sent on).
    imaging_max_files: int = Field(default=1000, ge=1, le=100_000)
    imaging_max_upload_bytes: int = Field(default=256 * 1024 * 1024, ge=1024 * 1024)
    imaging_max_unpacked_bytes: int = Field(default=512 * 1024 * 1024, ge=1024 * 1024)
    # Export files are rendered in separate processes at a lower CPU priority, then kept.
    export_render_processes: int = Field(default=1, ge=1, le=16)
    export_render_nice: int = Field(default=10, ge=0, le=19)
    export_render_timeout_seconds: int = Field(default=60, ge=5, le=600)
    export_keep_seconds: int = Field(default=6 * 3600, ge=60)
    # Proxies (addresses or networks, JSON list) whose X-Forwarded-For names the client; empty:
    # the connection's peer is the client and the header is ignored.
    trusted_proxies: list[str] = []

    max_body_bytes: int = 1_048_576
    # A radiotherapy plan's DICOM file (RTSTRUCT, RTDOSE, RTPLAN), each (cara.clinical).
    plan_file_max_bytes: int = Field(default=64 * 1024 * 1024, ge=1024, le=1024 * 1024 * 1024)
    # Swagger UI at /api/docs: on by default except in production.
    api_docs: bool | None = None
    # Origins allowed to call the API from another site (JSON list); empty = same origin only.
    cors_origins: list[str] = []

    # First platform admin, created at startup / by `python -m cara.seed` when
    # both are set. Later admins join by invitation only.
    first_admin_email: str | None = None
    first_admin_password: str | None = None
    first_admin_name: str = "Platform Administrator"
    admin_invitation_ttl_hours: int = 72

    public_base_url: str = "http://127.0.0.1:8000"

    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_from: str = "Cara <no-reply@cara.local>"
    smtp_starttls: bool = True

    # The AI provider (Gemini). Without a key the assistant endpoints answer
    # that the AI service is not configured; the key never leaves the server.
    gemini_api_key: str | None = None
    # Another address for the provider (e.g. the project's Gemini double,
    # cara_doubles.gemini); the SDK switches the scheme to wss for Live.
    gemini_base_url: str | None = None
    # An extra CA certificate (PEM file) to trust for the provider's TLS, e.g.
    # the double's throwaway CA; the system's CAs stay trusted.
    gemini_ca_file: str | None = None
    # Native-audio Live model for the consoles; text model for summaries and chat.
    gemini_live_model: str = "gemini-3.1-flash-live-preview"
    gemini_text_model: str = "gemini-3.8-flash"
    # Each assistant says it was developed by this lab (spec §1).
    ai_lab_name: str = "Cara AI Lab"
    # Set by `./ops/dev --demo-ai`: the provider is the scripted local peer (the UI shows a badge).
    cara_demo_ai: bool = False
    # How long POST /api/summarize waits for its worker (spec §9: 30 000 ms).
    summary_timeout_seconds: float = 30.0
    # Upstream reconnects of one live consultation before the browser is told it failed.
    live_reconnect_attempts: int = 4
    live_reconnect_backoff_seconds: float = 0.5
    # How often an open live consultation checks the doctor's token and access again (signed out,
    # deactivated, removed, subscription lapsed); the check is a Redis read and a few database reads.
    live_recheck_seconds: float = Field(default=30.0, gt=0)
    # Threads per direction for the Opus transcoding of live consultations (the codec releases the
    # GIL, so the event loop keeps relaying meanwhile); 0: on the event loop. Opt-in: on two busy
    # cores the hand-over cost more than it freed (ops/bench/README.md, live_relay.py --opus).
    live_opus_threads: int = Field(default=0, ge=0, le=64)

    # Payments (Stripe). Without STRIPE_SECRET_KEY the billing endpoints answer 503
    # 'Payment system is not properly configured'; the keys never leave the server.
    stripe_secret_key: str | None = None
    stripe_webhook_secret: str | None = None
    # Another address for Stripe's API: the project's test double (cara_doubles.stripe).
    stripe_api_base: str | None = None
    stripe_currency: str = "usd"
    # Independent doctors start on a free trial of this many days at signup (0: no trial).
    trial_days: int = 14

    # On SIGTERM, `python -m cara.serve` gives live consultations, then in-flight
    # requests, this long each to finish (the orchestrator's grace period covers both).
    drain_seconds: float = Field(default=30.0, ge=0, le=300, validation_alias="CARA_DRAIN_SECONDS")

    # OpenTelemetry traces and metrics: "none" (default) or "otlp" (uses the
    # standard OTEL_EXPORTER_OTLP_* variables) or "console"; traces also "memory"
    # (recorded for in-process span processors only: the test suite).
    otel_traces_exporter: Literal["none", "otlp", "console", "memory"] = Field(
        default="none", validation_alias="OTEL_TRACES_EXPORTER"
    )
    otel_metrics_exporter: Literal["none", "otlp", "console"] = Field(
        default="none", validation_alias="OTEL_METRICS_EXPORTER"
    )
    otel_service_name: str = Field(default="cara-api", validation_alias="OTEL_SERVICE_NAME")

    @property
    def api_docs_enabled(self) -> bool:
        return self.api_docs if self.api_docs is not None else self.cara_env != "production"

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for proxy in value:
            ipaddress.ip_network(proxy.strip(), strict=False)  # ValueError names the bad one
        return value

    @field_validator(
        "rate_limit_login_account",
        "rate_limit_login_address",
        "rate_limit_login_unlock_mail",
        "rate_limit_mfa_account",
        "rate_limit_signup_address",
        "rate_limit_signup_email",
        "rate_limit_hospital_signup_address",
        "rate_limit_hospital_signups",
        "rate_limit_forgot_password_address",
        "rate_limit_forgot_password_email",
        "rate_limit_reset_password_address",
        "rate_limit_certificate_upload",
        "rate_limit_summaries",
        "rate_limit_chat",
        "rate_limit_live_connects",
        "rate_limit_live_turns",
    )
    @classmethod
    def _limit(cls, value: str) -> str:
        limits.parse(value)  # ValueError on a spec the library cannot read
        return value

    @model_validator(mode="after")
    def _refuse_dev_secret(self) -> Settings:
        refuse_dev_secret(self.cara_env, self.jwt_secret, self.host)
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings()
