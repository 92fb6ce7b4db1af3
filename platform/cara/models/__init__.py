"""ORM models: `platform.py` (schema `platform`) and `tenant.py` (one schema per tenant)."""

from cara.models.base import PlatformBase, TenantBase
from cara.models.platform import (
    Account,
    AdminInvitation,
    AuditEvent,
    Hospital,
    OutboxJob,
    PasswordReset,
    Payment,
    PeriodRollup,
    Plan,
    ProviderEvent,
    Subscription,
    Tenant,
    TenantRollup,
)
from cara.models.tenant import CertificateFile, Consultation, DoctorProfile, TenantAuditEvent, TranscriptLine

__all__ = [
    "Account",
    "AdminInvitation",
    "AuditEvent",
    "CertificateFile",
    "Consultation",
    "DoctorProfile",
    "Hospital",
    "OutboxJob",
    "PasswordReset",
    "Payment",
    "PeriodRollup",
    "Plan",
    "PlatformBase",
    "ProviderEvent",
    "Subscription",
    "Tenant",
    "TenantAuditEvent",
    "TenantBase",
    "TenantRollup",
    "TranscriptLine",
]
