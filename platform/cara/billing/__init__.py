"""Billing: plans in Stripe, Checkout, the Customer Portal, webhooks and the sync
that keeps `platform.subscriptions` and `platform.payments` equal to Stripe's
view (see docs/architecture.md, "Billing")."""
