"""Sending email: through SMTP when configured, else written to the log.

The log fallback is what makes password reset usable in development: the
reset link appears in the worker's output.
"""

from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage

from cara.config import get_settings

log = logging.getLogger("cara.mail")


def send(*, to: str, subject: str, body: str) -> None:
    settings = get_settings()
    if not settings.smtp_host:
        if settings.cara_env == "production":
            # Bodies carry single-use links: never into production logs.
            log.error("mail not sent: SMTP is not configured", extra={"mail_subject": subject})
        else:
            log.info("mail not sent (no SMTP configured)", extra={"mail_subject": subject, "mail_body": body})
        return
    msg = EmailMessage()
    msg["From"] = settings.smtp_from
    msg["To"] = to
    msg["Subject"] = subject
    msg.set_content(body)
    with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=20) as smtp:
        if settings.smtp_starttls:
            smtp.starttls()
        if settings.smtp_username:
            smtp.login(settings.smtp_username, settings.smtp_password or "")
        smtp.send_message(msg)
    log.info("mail sent", extra={"mail_subject": subject})
