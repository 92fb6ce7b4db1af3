"""A test double of Stripe's wire protocol: the part of the API that Cara uses.

This is not Stripe. It is a real HTTP server on 127.0.0.1 that speaks Stripe's
API the way the official `stripe` SDK expects (form-encoded requests with
`a[b][0]=c` keys, `Authorization: Bearer <secret key>`, `Idempotency-Key`,
JSON objects shaped like Stripe's for the SDK's pinned API version, and
Stripe's error objects), so Cara's billing code runs against it unchanged:
only `STRIPE_API_BASE` differs from production.

Why our own: no Stripe emulator supports Checkout offline (`localstripe` has no
Checkout Sessions, Prices or Portal; `stripe-mock` is stateless).

What it speaks:

* `/v1/products`, `/v1/prices` (lookup keys, `transfer_lookup_key`),
  `/v1/customers`, `/v1/checkout/sessions` (subscription mode, list, expire),
  `/v1/subscriptions` (retrieve, list, update price / cancel at period end,
  cancel), `/v1/billing_portal/sessions` (incl. `subscription_update_confirm`
  flows), `/v1/invoices`, `/v1/events`.
* Hosted pages in place of checkout.stripe.com and the Customer Portal:
  `/checkout/<session>` takes a test card (4242 4242 4242 4242 pays,
  4000 0000 0000 0002 is declined) and redirects to the session's
  `success_url`; `/portal/<session>` switches or cancels a plan.
* Events as Stripe sends them, signed with Stripe's scheme
  (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`). With a
  `webhook_url` they are POSTed there (retried with backoff); tests instead
  take them from `double.events` and post them themselves, in any order and
  as often as they like (`webhook_request`).

Run it for local demos: `python -m cara_doubles.stripe --webhook-url
http://127.0.0.1:8000/api/stripe/webhook` (`./ops/dev` does this when
`STRIPE_SECRET_KEY` is unset).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import html
import itertools
import json
import logging
import queue
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import httpx

log = logging.getLogger("cara_doubles.stripe")

DEFAULT_SECRET_KEY = "sk_test_cara_double_0000000000000000"  # noqa: S105 - a fixed key for a local double
DEFAULT_WEBHOOK_SECRET = "whsec_cara_double_0000000000000000"  # noqa: S105
API_VERSION = "2026-10-28.endive"  # the pinned SDK's (stripe._api_version)
CARD_OK = "4242424242424242"
CARD_DECLINED = "4000000000000002"
DAY = 86_400
PERIOD_SECONDS = {"day": DAY, "week": 7 * DAY, "month": 30 * DAY, "year": 365 * DAY}
LIVE_STATUSES = ("trialing", "active", "past_due", "unpaid", "paused", "incomplete")


class StripeError(Exception):
    """An error answered in Stripe's shape: {"error": {"type", "code", "message", "param"}}."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type_: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.type, self.code, self.param = status, message, type_, code, param

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.code:
            error["code"] = self.code
        if self.param:
            error["param"] = self.param
        return {"error": error}


def missing(kind: str, ident: str, param: str = "id") -> StripeError:
    return StripeError(404, f"No such {kind}: '{ident}'", code="resource_missing", param=param)


# ---------------------------------------------------------------- form encoding


def parse_form(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Stripe's form encoding to nested values: `a[b][0][c]=v` -> {"a": {"b": [{"c": "v"}]}}.

    `key[]=v` appends; dicts whose keys are all indexes become lists.
    """
    root: dict[str, Any] = {}
    for raw_key, value in pairs:
        head, _, rest = raw_key.partition("[")
        parts = [head] + (re.findall(r"([^\[\]]*)\]", "[" + rest) if rest else [])
        node = root
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if part == "" and i > 0:  # `key[]`: the next free index
                part = str(len(node))
            if last:
                node[part] = value
            else:
                child = node.get(part)
                if not isinstance(child, dict):
                    child = {}
                    node[part] = child
                node = child
    parsed: dict[str, Any] = _listify(root)
    return parsed


def _listify(value: Any) -> Any:
    if isinstance(value, dict):
        items = {k: _listify(v) for k, v in value.items()}
        if items and all(k.isdigit() for k in items):
            return [items[k] for k in sorted(items, key=int)]
        return items
    return value


def _int(params: dict[str, Any], key: str, *, required: bool = False) -> int | None:
    raw = params.get(key)
    if raw is None or raw == "":
        if required:
            raise StripeError(400, f"Missing required param: {key}.", code="parameter_missing", param=key)
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise StripeError(
            400, f"Invalid integer: {raw}", code="parameter_invalid_integer", param=key
        ) from None


def _bool(raw: Any) -> bool:
    return str(raw).lower() == "true"


def _str(params: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    raw = params.get(key)
    if raw is None or raw == "":
        if required:
            raise StripeError(400, f"Missing required param: {key}.", code="parameter_missing", param=key)
        return None
    if not isinstance(raw, str):
        raise StripeError(400, f"Invalid string: {key}", code="parameter_invalid_string", param=key)
    return raw


def _metadata(raw: Any) -> dict[str, str]:
    if raw is None or raw == "":
        return {}
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise StripeError(400, "Invalid metadata: must be a hash of strings.", param="metadata")
    return dict(raw)


def sign_payload(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """The `Stripe-Signature` header for `payload`: t=<unix>,v1=<HMAC-SHA256 of "t.payload">."""
    t = int(time.time()) if timestamp is None else timestamp
    digest = hmac.new(secret.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={t},v1={digest}"


# ---------------------------------------------------------------- the state


class StripeDouble:
    """Stripe's objects in memory behind a real HTTP server.

    `start()` binds a free port (or `port`), `url` is what STRIPE_API_BASE
    should be, `stop()` shuts it down. The helper methods (`complete_checkout`,
    `renew`, `cancel_subscription`, `change_price`) act as a customer or as
    time passing would, and record the events Stripe would send.
    """

    def __init__(
        self,
        *,
        secret_key: str = DEFAULT_SECRET_KEY,
        webhook_secret: str = DEFAULT_WEBHOOK_SECRET,
        webhook_url: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.secret_key = secret_key
        self.webhook_secret = webhook_secret
        self.webhook_url = webhook_url
        self.clock = clock
        self.objects: dict[str, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str]] = []  # (method, path) of every API call, for tests
        self._idempotent: dict[str, tuple[str, int, dict[str, Any]]] = {}
        self._lock = threading.RLock()
        self._seq = itertools.count(1)
        self._host, self._port = host, port
        self._server: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []
        self._outbox: queue.Queue[dict[str, Any] | None] = queue.Queue()

    # -- lifecycle

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://{self._host}:{self._server.server_address[1]}"

    def start(self) -> StripeDouble:
        double = self

        class Handler(_Handler):
            stripe = double

        self._server = ThreadingHTTPServer((self._host, self._port), Handler)
        self._server.daemon_threads = True
        serve = threading.Thread(target=self._server.serve_forever, name="stripe-double", daemon=True)
        serve.start()
        self._threads = [serve]
        if self.webhook_url:
            deliver = threading.Thread(target=self._deliver_loop, name="stripe-double-webhooks", daemon=True)
            deliver.start()
            self._threads.append(deliver)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self._outbox.put(None)
        for thread in self._threads:
            thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> StripeDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- ids, time, events

    def now(self) -> int:
        return int(self.clock())

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{secrets.token_hex(6)}{next(self._seq):06d}"

    def _emit(self, type_: str, obj: dict[str, Any], previous: dict[str, Any] | None = None) -> None:
        event: dict[str, Any] = {
            "id": self.new_id("evt"),
            "object": "event",
            "api_version": API_VERSION,
            "created": self.now(),
            "type": type_,
            "livemode": False,
            "pending_webhooks": 1,
            "request": {"id": None, "idempotency_key": None},
            "data": {"object": json.loads(json.dumps(obj))},  # a snapshot, as Stripe sends
        }
        if previous:
            event["data"]["previous_attributes"] = previous
        self.events.append(event)
        if self.webhook_url:
            self._outbox.put(event)

    def events_of(self, *types: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if not types or e["type"] in types]

    def webhook_request(
        self, event: dict[str, Any], *, secret: str | None = None, timestamp: int | None = None
    ) -> tuple[bytes, dict[str, str]]:
        """The body and headers Stripe would POST for `event` (signed with `secret`)."""
        body = json.dumps(event).encode()
        header = sign_payload(body, secret or self.webhook_secret, timestamp)
        return body, {"Stripe-Signature": header, "Content-Type": "application/json; charset=utf-8"}

    def _deliver_loop(self) -> None:
        assert self.webhook_url is not None
        with httpx.Client(timeout=10) as client:
            while True:
                event = self._outbox.get()
                if event is None:
                    return
                for attempt in range(6):
                    body, headers = self.webhook_request(event)
                    try:
                        status = client.post(self.webhook_url, content=body, headers=headers).status_code
                    except httpx.HTTPError:
                        status = 0
                    if 200 <= status < 300:
                        break
                    time.sleep(min(30.0, 0.5 * 2**attempt))
                else:
                    log.warning("webhook not delivered", extra={"event": event["id"], "type": event["type"]})

    # -- rendering

    def render(self, obj: dict[str, Any], expand: list[str] | None = None) -> dict[str, Any]:
        """The public JSON of a stored object (private `_keys` dropped, nested objects filled)."""
        out = {k: v for k, v in obj.items() if not k.startswith("_")}
        kind = obj["object"]
        if kind == "subscription":
            items = [self._render_item(item) for item in obj["_items"]]
            out["items"] = {
                "object": "list",
                "data": items,
                "has_more": False,
                "total_count": len(items),
                "url": f"/v1/subscription_items?subscription={obj['id']}",
            }
        for field in expand or []:
            ref = out.get(field)
            if isinstance(ref, str) and ref in self.objects:
                out[field] = self.render(self.objects[ref])
        return out

    def _render_item(self, item: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in item.items() if not k.startswith("_")}
        price = self.render(self.objects[item["_price"]])
        out["price"] = price
        out["plan"] = {  # the legacy mirror of the price that Stripe still sends
            "id": price["id"],
            "object": "plan",
            "active": price["active"],
            "amount": price["unit_amount"],
            "currency": price["currency"],
            "interval": price["recurring"]["interval"],
            "interval_count": price["recurring"]["interval_count"],
            "product": price["product"],
        }
        return out

    def get(self, kind: str, ident: str, param: str = "id") -> dict[str, Any]:
        obj = self.objects.get(ident)
        if obj is None or obj["object"] != kind:
            raise missing(kind, ident, param)
        return obj

    # -- products and prices

    def create_product(self, p: dict[str, Any]) -> dict[str, Any]:
        ident = _str(p, "id") or self.new_id("prod")
        if ident in self.objects:
            raise StripeError(
                400, f"Product already exists with ID '{ident}'", code="resource_already_exists", param="id"
            )
        product = {
            "id": ident,
            "object": "product",
            "active": not p.get("active") or _bool(p["active"]),
            "name": _str(p, "name", required=True),
            "description": _str(p, "description"),
            "metadata": _metadata(p.get("metadata")),
            "created": self.now(),
            "updated": self.now(),
            "livemode": False,
            "type": "service",
        }
        self.objects[ident] = product
        return product

    def update_product(self, ident: str, p: dict[str, Any]) -> dict[str, Any]:
        product = self.get("product", ident)
        if "name" in p:
            product["name"] = _str(p, "name", required=True)
        if "active" in p:
            product["active"] = _bool(p["active"])
        if "metadata" in p:
            product["metadata"].update(_metadata(p["metadata"]))
        product["updated"] = self.now()
        return product

    def create_price(self, p: dict[str, Any]) -> dict[str, Any]:
        product = self.get("product", _str(p, "product", required=True) or "")
        amount = _int(p, "unit_amount", required=True)
        if amount is None or amount < 0:
            raise StripeError(
                400, "Invalid unit_amount", code="parameter_invalid_integer", param="unit_amount"
            )
        recurring = p.get("recurring") or {}
        interval = recurring.get("interval") if isinstance(recurring, dict) else None
        if interval not in PERIOD_SECONDS:
            raise StripeError(400, "Invalid recurring[interval]", param="recurring[interval]")
        lookup_key = _str(p, "lookup_key")
        if lookup_key:
            holder = next((o for o in self._prices() if o["lookup_key"] == lookup_key), None)
            if holder is not None:
                if not _bool(p.get("transfer_lookup_key")):
                    raise StripeError(
                        400,
                        f"A price (`{holder['id']}`) already uses that lookup key.",
                        param="lookup_key",
                    )
                holder["lookup_key"] = None
        price = {
            "id": self.new_id("price"),
            "object": "price",
            "active": True,
            "currency": (_str(p, "currency", required=True) or "").lower(),
            "unit_amount": amount,
            "unit_amount_decimal": str(amount),
            "product": product["id"],
            "lookup_key": lookup_key,
            "nickname": _str(p, "nickname"),
            "metadata": _metadata(p.get("metadata")),
            "recurring": {
                "interval": interval,
                "interval_count": int(recurring.get("interval_count") or 1),
                "usage_type": "licensed",
            },
            "type": "recurring",
            "billing_scheme": "per_unit",
            "tax_behavior": "unspecified",
            "created": self.now(),
            "livemode": False,
        }
        self.objects[price["id"]] = price
        return price

    def _prices(self) -> Iterator[dict[str, Any]]:
        return (o for o in self.objects.values() if o["object"] == "price")

    def list_prices(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        found = list(self._prices())
        keys = p.get("lookup_keys")
        if keys:
            wanted = set(keys if isinstance(keys, list) else [keys])
            found = [o for o in found if o["lookup_key"] in wanted]
        if "active" in p:
            found = [o for o in found if o["active"] == _bool(p["active"])]
        if p.get("product"):
            found = [o for o in found if o["product"] == p["product"]]
        return found

    # -- customers

    def create_customer(self, p: dict[str, Any]) -> dict[str, Any]:
        customer: dict[str, Any] = {
            "id": self.new_id("cus"),
            "object": "customer",
            "email": _str(p, "email"),
            "name": _str(p, "name"),
            "metadata": _metadata(p.get("metadata")),
            "created": self.now(),
            "livemode": False,
            "currency": None,
            "delinquent": False,
        }
        self.objects[customer["id"]] = customer
        self._emit("customer.created", customer)
        return customer

    # -- checkout

    def create_checkout_session(self, p: dict[str, Any]) -> dict[str, Any]:
        if p.get("mode") != "subscription":
            raise StripeError(400, "This double supports mode=subscription only.", param="mode")
        success_url = _str(p, "success_url", required=True)
        customer = _str(p, "customer")
        if customer:
            self.get("customer", customer, "customer")
        items = p.get("line_items")
        if not isinstance(items, list) or not items:
            raise StripeError(400, "Missing required param: line_items.", code="parameter_missing")
        lines = []
        for i, item in enumerate(items):
            price = self.objects.get(str(item.get("price"))) if isinstance(item, dict) else None
            if price is None or price["object"] != "price":
                raise missing("price", str(item.get("price") if isinstance(item, dict) else item),
                              f"line_items[{i}][price]")  # fmt: skip
            if not price["active"]:
                raise StripeError(400, f"The price `{price['id']}` is not active.", param="line_items")
            lines.append((price["id"], _int(item, "quantity") or 1))
        sub_data = p.get("subscription_data") or {}
        total = sum(self.objects[pid]["unit_amount"] * qty for pid, qty in lines)
        session = {
            "id": self.new_id("cs_test"),
            "object": "checkout.session",
            "mode": "subscription",
            "status": "open",
            "payment_status": "unpaid",
            "customer": customer,
            "customer_email": _str(p, "customer_email"),
            "client_reference_id": _str(p, "client_reference_id"),
            "metadata": _metadata(p.get("metadata")),
            "subscription": None,
            "invoice": None,
            "success_url": success_url,
            "cancel_url": _str(p, "cancel_url"),
            "amount_subtotal": total,
            "amount_total": total,
            "currency": self.objects[lines[0][0]]["currency"],
            "created": self.now(),
            "expires_at": self.now() + DAY,
            "livemode": False,
            "url": None,
            "_lines": lines,
            "_sub_metadata": _metadata(sub_data.get("metadata") if isinstance(sub_data, dict) else None),
        }
        session["url"] = f"{self.url}/checkout/{session['id']}"
        self.objects[session["id"]] = session
        return session

    def list_checkout_sessions(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        found = [o for o in self.objects.values() if o["object"] == "checkout.session"]
        if p.get("customer"):
            found = [o for o in found if o["customer"] == p["customer"]]
        if p.get("status"):
            found = [o for o in found if o["status"] == p["status"]]
        if p.get("subscription"):
            found = [o for o in found if o["subscription"] == p["subscription"]]
        return sorted(found, key=lambda o: o["created"], reverse=True)

    def expire_checkout_session(self, ident: str) -> dict[str, Any]:
        session = self.get("checkout.session", ident)
        if session["status"] != "open":
            raise StripeError(
                400, f"Only Checkout Sessions with a status of `open` can be expired. This one is "
                f"`{session['status']}`.",
            )  # fmt: skip
        session["status"] = "expired"
        session["url"] = None
        self._emit("checkout.session.expired", self.render(session))
        return session

    def complete_checkout(self, session_id: str, card: str = CARD_OK) -> dict[str, Any]:
        """What happens when the customer pays on the hosted page (test helper).

        A declined card raises StripeError (402 card_declined) and leaves the
        session open, as Checkout does: the customer can try another card.
        """
        with self._lock:
            session = self.get("checkout.session", session_id)
            if session["status"] != "open":
                raise StripeError(400, f"This Checkout Session is {session['status']}.")
            number = re.sub(r"\D", "", card)
            if number == CARD_DECLINED or number != CARD_OK:
                raise StripeError(402, "Your card was declined.", type_="card_error", code="card_declined")
            if session["customer"] is None:
                session["customer"] = self.create_customer({"email": session["customer_email"]})["id"]
            sub = self._create_subscription(session["customer"], session["_lines"], session["_sub_metadata"])
            invoice = self._invoice(sub, paid=True, reason="subscription_create")
            sub["latest_invoice"] = invoice["id"]
            session.update(status="complete", payment_status="paid", subscription=sub["id"], url=None)
            session["invoice"] = invoice["id"]
            self._emit("customer.subscription.created", self.render(sub))
            self._emit("invoice.created", self.render(invoice))
            self._emit("invoice.finalized", self.render(invoice))
            self._emit("invoice.paid", self.render(invoice))
            self._emit("invoice.payment_succeeded", self.render(invoice))
            self._emit("checkout.session.completed", self.render(session))
            return session

    # -- subscriptions

    def _create_subscription(
        self, customer: str, lines: list[tuple[str, int]], metadata: dict[str, str]
    ) -> dict[str, Any]:
        now = self.now()
        sub_id = self.new_id("sub")
        items = []
        for price_id, qty in lines:
            interval = self.objects[price_id]["recurring"]["interval"]
            items.append(
                {
                    "id": self.new_id("si"),
                    "object": "subscription_item",
                    "subscription": sub_id,
                    "quantity": qty,
                    "created": now,
                    "current_period_start": now,
                    "current_period_end": now + PERIOD_SECONDS[interval],
                    "metadata": {},
                    "discounts": [],
                    "tax_rates": [],
                    "_price": price_id,
                }
            )
        sub = {
            "id": sub_id,
            "object": "subscription",
            "customer": customer,
            "status": "active",
            "metadata": dict(metadata),
            "cancel_at_period_end": False,
            "cancel_at": None,
            "canceled_at": None,
            "ended_at": None,
            "created": now,
            "start_date": now,
            "billing_cycle_anchor": now,
            "trial_start": None,
            "trial_end": None,
            "currency": self.objects[lines[0][0]]["currency"],
            "collection_method": "charge_automatically",
            "latest_invoice": None,
            "livemode": False,
            "_items": items,
        }
        self.objects[sub_id] = sub
        return sub

    def _invoice(self, sub: dict[str, Any], *, paid: bool, reason: str) -> dict[str, Any]:
        now = self.now()
        lines = []
        total = 0
        for item in sub["_items"]:
            price = self.objects[item["_price"]]
            amount = price["unit_amount"] * item["quantity"]
            total += amount
            lines.append(
                {
                    "id": self.new_id("il"),
                    "object": "line_item",
                    "amount": amount,
                    "currency": price["currency"],
                    "description": f"{item['quantity']} x {self.objects[price['product']]['name']}",
                    "quantity": item["quantity"],
                    "period": {"start": item["current_period_start"], "end": item["current_period_end"]},
                    "pricing": {
                        "type": "price_details",
                        "price_details": {"price": price["id"], "product": price["product"]},
                        "unit_amount_decimal": str(price["unit_amount"]),
                    },
                    "subscription": sub["id"],
                    "livemode": False,
                    "metadata": {},
                }
            )
        invoice = {
            "id": self.new_id("in"),
            "object": "invoice",
            "customer": sub["customer"],
            "status": "paid" if paid else "open",
            "billing_reason": reason,
            "collection_method": "charge_automatically",
            "currency": sub["currency"],
            "amount_due": total,
            "amount_paid": total if paid else 0,
            "amount_remaining": 0 if paid else total,
            "subtotal": total,
            "total": total,
            "attempt_count": 1,
            "attempted": True,
            "created": now,
            "period_start": sub["_items"][0]["current_period_start"],
            "period_end": sub["_items"][0]["current_period_end"],
            "parent": {
                "type": "subscription_details",
                "quote_details": None,
                "subscription_details": {"subscription": sub["id"], "metadata": dict(sub["metadata"])},
            },
            "lines": {"object": "list", "data": lines, "has_more": False, "url": "/v1/invoices/lines"},
            "status_transitions": {
                "finalized_at": now,
                "paid_at": now if paid else None,
                "marked_uncollectible_at": None,
                "voided_at": None,
            },
            "livemode": False,
            "metadata": {},
        }
        self.objects[invoice["id"]] = invoice
        return invoice

    def list_subscriptions(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        found = [o for o in self.objects.values() if o["object"] == "subscription"]
        if p.get("customer"):
            found = [o for o in found if o["customer"] == p["customer"]]
        status = p.get("status")
        if status == "all":
            pass
        elif status:
            found = [o for o in found if o["status"] == status]
        else:  # Stripe leaves canceled subscriptions out unless asked
            found = [o for o in found if o["status"] != "canceled"]
        return sorted(found, key=lambda o: o["created"], reverse=True)

    def update_subscription(self, ident: str, p: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            sub = self.get("subscription", ident)
            if sub["status"] == "canceled":
                raise StripeError(
                    400, "A canceled subscription can only update its cancellation_details and metadata."
                )
            before = self.render(sub)
            if "cancel_at_period_end" in p:
                sub["cancel_at_period_end"] = _bool(p["cancel_at_period_end"])
                sub["cancel_at"] = (
                    sub["_items"][0]["current_period_end"] if sub["cancel_at_period_end"] else None
                )
                sub["canceled_at"] = self.now() if sub["cancel_at_period_end"] else None
            if "metadata" in p:
                sub["metadata"].update(_metadata(p["metadata"]))
            for change in p.get("items") or []:
                if not isinstance(change, dict):
                    raise StripeError(400, "Invalid items", param="items")
                item = next((i for i in sub["_items"] if i["id"] == change.get("id")), None)
                if item is None:
                    raise missing("subscription_item", str(change.get("id")), "items")
                price = self.get("price", str(change.get("price")))
                if price["recurring"]["interval"] != self.objects[item["_price"]]["recurring"]["interval"]:
                    # Monthly <-> annual restarts the billing cycle (a new period starts now).
                    item["current_period_start"] = self.now()
                    item["current_period_end"] = self.now() + PERIOD_SECONDS[price["recurring"]["interval"]]
                item["_price"] = price["id"]
            after = self.render(sub)
            previous = {k: v for k, v in before.items() if after.get(k) != v}
            self._emit("customer.subscription.updated", after, previous)
            return sub

    def cancel_subscription(self, ident: str, *, at_period_end: bool = False) -> dict[str, Any]:
        """Cancel now (DELETE /v1/subscriptions/<id>) or at the period's end."""
        with self._lock:
            if at_period_end:
                return self.update_subscription(ident, {"cancel_at_period_end": "true"})
            sub = self.get("subscription", ident)
            if sub["status"] == "canceled":
                raise StripeError(400, "This subscription has already been canceled.")
            sub.update(status="canceled", canceled_at=self.now(), ended_at=self.now())
            self._emit("customer.subscription.deleted", self.render(sub))
            return sub

    def change_price(self, ident: str, price_id: str) -> dict[str, Any]:
        """Switch the subscription's (first) item to another price, as the Portal does."""
        sub = self.get("subscription", ident)
        return self.update_subscription(ident, {"items": [{"id": sub["_items"][0]["id"], "price": price_id}]})

    def renew(self, ident: str, *, paid: bool = True) -> dict[str, Any]:
        """The next billing period: a new invoice, paid or failed (then the subscription is past_due)."""
        with self._lock:
            sub = self.get("subscription", ident)
            if sub["cancel_at_period_end"]:
                sub.update(status="canceled", ended_at=self.now())
                self._emit("customer.subscription.deleted", self.render(sub))
                return sub
            for item in sub["_items"]:
                length = item["current_period_end"] - item["current_period_start"]
                item["current_period_start"] = item["current_period_end"]
                item["current_period_end"] += length
            invoice = self._invoice(sub, paid=paid, reason="subscription_cycle")
            sub["latest_invoice"] = invoice["id"]
            previous_status = sub["status"]
            sub["status"] = "active" if paid else "past_due"
            self._emit("invoice.created", self.render(invoice))
            self._emit("invoice.paid" if paid else "invoice.payment_failed", self.render(invoice))
            previous = {"status": previous_status} if previous_status != sub["status"] else {}
            self._emit("customer.subscription.updated", self.render(sub), previous)
            return invoice

    # -- billing portal

    def create_portal_session(self, p: dict[str, Any]) -> dict[str, Any]:
        customer = self.get("customer", _str(p, "customer", required=True) or "", "customer")
        flow = p.get("flow_data") if isinstance(p.get("flow_data"), dict) else None
        if flow is not None and flow.get("type") == "subscription_update_confirm":
            confirm = flow.get("subscription_update_confirm") or {}
            sub = self.get("subscription", str(confirm.get("subscription")))
            if sub["customer"] != customer["id"]:
                raise StripeError(400, "The subscription does not belong to this customer.")
            for item in confirm.get("items") or []:
                self.get("price", str(item.get("price")))
        portal = {
            "id": self.new_id("bps"),
            "object": "billing_portal.session",
            "customer": customer["id"],
            "return_url": _str(p, "return_url"),
            "flow": flow,
            "created": self.now(),
            "livemode": False,
            "locale": None,
            "url": None,
        }
        portal["url"] = f"{self.url}/portal/{portal['id']}"
        self.objects[portal["id"]] = portal
        return portal

    # -- the HTTP API

    def handle_api(self, method: str, path: str, params: dict[str, Any], idem_key: str | None) -> Any:
        with self._lock:
            self.requests.append((method, path))
            if method == "POST" and idem_key:
                fingerprint = json.dumps([path, params], sort_keys=True)
                seen = self._idempotent.get(idem_key)
                if seen is not None:
                    if seen[0] != fingerprint:
                        raise StripeError(
                            400,
                            "Keys for idempotent requests can only be used with the same parameters "
                            "they were first used with.",
                            type_="idempotency_error",
                        )
                    return seen[2]
                result = self._route(method, path, params)
                self._idempotent[idem_key] = (fingerprint, 200, result)
                return result
            return self._route(method, path, params)

    def _route(self, method: str, path: str, p: dict[str, Any]) -> Any:
        parts = [part for part in path.split("/") if part][1:]  # drop "v1"
        expand = p.get("expand") if isinstance(p.get("expand"), list) else []
        key = (method, tuple(parts[:1]) if len(parts) == 1 else None)
        if key == ("POST", ("products",)):
            return self.render(self.create_product(p))
        if key == ("POST", ("prices",)):
            return self.render(self.create_price(p))
        if key == ("GET", ("prices",)):
            return self._list("/v1/prices", self.list_prices(p), p)
        if key == ("POST", ("customers",)):
            return self.render(self.create_customer(p))
        if key == ("GET", ("subscriptions",)):
            return self._list("/v1/subscriptions", self.list_subscriptions(p), p)
        if key == ("GET", ("events",)):
            return self._list("/v1/events", list(reversed(self.events)), p, rendered=True)
        if key == ("GET", ("invoices",)):
            found = [o for o in self.objects.values() if o["object"] == "invoice"]
            if p.get("customer"):
                found = [o for o in found if o["customer"] == p["customer"]]
            if p.get("subscription"):
                found = [
                    o
                    for o in found
                    if o["parent"]["subscription_details"]["subscription"] == p["subscription"]
                ]
            return self._list("/v1/invoices", sorted(found, key=lambda o: o["created"], reverse=True), p)
        if len(parts) == 2 and parts[0] in ("products", "prices", "customers", "invoices", "subscriptions"):
            kind = {"products": "product", "prices": "price", "customers": "customer", "invoices": "invoice",
                    "subscriptions": "subscription"}[parts[0]]  # fmt: skip
            if method == "GET":
                return self.render(self.get(kind, parts[1]), expand)
            if method == "POST" and kind == "product":
                return self.render(self.update_product(parts[1], p))
            if method == "POST" and kind == "price":
                price = self.get("price", parts[1])
                if "active" in p:
                    price["active"] = _bool(p["active"])
                if "metadata" in p:
                    price["metadata"].update(_metadata(p["metadata"]))
                return self.render(price)
            if method == "POST" and kind == "subscription":
                return self.render(self.update_subscription(parts[1], p), expand)
            if method == "DELETE" and kind == "subscription":
                return self.render(self.cancel_subscription(parts[1]), expand)
        if parts[:2] == ["checkout", "sessions"]:
            if len(parts) == 2 and method == "POST":
                return self.render(self.create_checkout_session(p))
            if len(parts) == 2 and method == "GET":
                return self._list("/v1/checkout/sessions", self.list_checkout_sessions(p), p)
            if len(parts) == 3 and method == "GET":
                return self.render(self.get("checkout.session", parts[2]), expand)
            if len(parts) == 4 and parts[3] == "expire" and method == "POST":
                return self.render(self.expire_checkout_session(parts[2]))
        if parts == ["billing_portal", "sessions"] and method == "POST":
            return self.render(self.create_portal_session(p))
        if len(parts) == 2 and parts[0] == "events" and method == "GET":
            event = next((e for e in self.events if e["id"] == parts[1]), None)
            if event is None:
                raise missing("event", parts[1])
            return event
        raise StripeError(404, f"Unrecognized request URL ({method}: {path}).")

    def _list(
        self, url: str, items: list[dict[str, Any]], p: dict[str, Any], *, rendered: bool = False
    ) -> dict[str, Any]:
        limit = max(1, min(100, _int(p, "limit") or 10))
        start = 0
        after = p.get("starting_after")
        if after:
            ids = [o["id"] for o in items]
            start = ids.index(after) + 1 if after in ids else len(items)
        page = items[start : start + limit]
        return {
            "object": "list",
            "url": url,
            "has_more": start + limit < len(items),
            "data": page if rendered else [self.render(o) for o in page],
        }

    # -- hosted pages (checkout.stripe.com and the Customer Portal stand-ins)

    def checkout_page(self, session_id: str, error: str | None = None) -> tuple[int, str]:
        session = self.get("checkout.session", session_id)
        if session["status"] != "open":
            return 410, _page(
                "Checkout", f"<p>This checkout session is {html.escape(session['status'])}.</p>"
            )
        names = []
        for price_id, _qty in session["_lines"]:
            price = self.objects[price_id]
            names.append(
                f"{html.escape(self.objects[price['product']]['name'])} &mdash; "
                f"{price['unit_amount'] / 100:.2f} {price['currency'].upper()} "
                f"/ {price['recurring']['interval']}"
            )
        cancel = session["cancel_url"]
        body = (
            f"<p class='badge'>TEST MODE &middot; Stripe test double</p><h1>Subscribe</h1>"
            f"<p>{'<br>'.join(names)}</p>"
            + (f"<p class='error' role='alert'>{html.escape(error)}</p>" if error else "")
            + f"<form method='post' action='/checkout/{quote(session_id)}'>"
            "<label>Card number <input name='card' autocomplete='off' inputmode='numeric' "
            "placeholder='4242 4242 4242 4242' required></label>"
            "<p class='hint'>4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined.</p>"
            "<button type='submit'>Pay and subscribe</button></form>"
            + (f"<p><a href='{html.escape(cancel)}'>Back</a></p>" if cancel else "")
        )
        return 200, _page("Checkout", body)

    def pay_page(self, session_id: str, card: str) -> tuple[int, str, str | None]:
        """POST of the checkout form: (status, html, redirect location)."""
        try:
            session = self.complete_checkout(session_id, card)
        except StripeError as exc:
            if exc.code != "card_declined":
                raise
            _, page = self.checkout_page(session_id, exc.message)
            return 402, page, None
        return 303, "", str(session["success_url"]).replace("{CHECKOUT_SESSION_ID}", session["id"])

    def portal_page(self, portal_id: str) -> tuple[int, str]:
        portal = self.get("billing_portal.session", portal_id)
        subs = self.list_subscriptions({"customer": portal["customer"]})
        rows = []
        flow = portal.get("flow") or {}
        confirm = (
            flow.get("subscription_update_confirm")
            if flow.get("type") == "subscription_update_confirm"
            else None
        )
        for sub in subs:
            price = self.objects[sub["_items"][0]["_price"]]
            product = self.objects[price["product"]]["name"]
            state = sub["status"] + (" (cancels at period end)" if sub["cancel_at_period_end"] else "")
            actions = ""
            if confirm and confirm.get("subscription") == sub["id"]:
                target = self.objects[str((confirm.get("items") or [{}])[0].get("price"))]
                actions += _post_form(
                    f"/portal/{portal_id}/update",
                    {"subscription": sub["id"], "price": target["id"]},
                    f"Confirm change to {self.objects[target['product']]['name']} "
                    f"({target['recurring']['interval']}ly)",
                )
            if not sub["cancel_at_period_end"]:
                actions += _post_form(
                    f"/portal/{portal_id}/cancel", {"subscription": sub["id"]}, "Cancel plan"
                )
            rows.append(
                f"<li>{html.escape(product)} ({price['recurring']['interval']}ly): "
                f"{html.escape(state)} {actions}</li>"
            )
        back = portal["return_url"]
        body = (
            "<p class='badge'>TEST MODE &middot; Stripe test double</p><h1>Manage your subscription</h1>"
            f"<ul>{''.join(rows) or '<li>No subscriptions.</li>'}</ul>"
            + (f"<p><a href='{html.escape(back)}'>Return</a></p>" if back else "")
        )
        return 200, _page("Billing", body)

    def portal_action(self, portal_id: str, action: str, form: dict[str, str]) -> str:
        """POST from the portal page; returns where to redirect."""
        portal = self.get("billing_portal.session", portal_id)
        sub = self.get("subscription", form.get("subscription", ""))
        if sub["customer"] != portal["customer"]:
            raise StripeError(403, "Not this customer's subscription.")
        if action == "update":
            self.change_price(sub["id"], form.get("price", ""))
            flow = portal.get("flow") or {}
            after = (flow.get("after_completion") or {}).get("redirect") or {}
            return str(after.get("return_url") or portal["return_url"] or f"/portal/{portal_id}")
        if action == "cancel":
            self.cancel_subscription(sub["id"], at_period_end=True)
            return f"/portal/{portal_id}"
        raise missing("action", action)


def _post_form(action: str, fields: dict[str, str], label: str) -> str:
    hidden = "".join(
        f"<input type='hidden' name='{html.escape(k)}' value='{html.escape(v)}'>" for k, v in fields.items()
    )
    return (
        f"<form method='post' action='{html.escape(action)}'>{hidden}"
        f"<button>{html.escape(label)}</button></form>"
    )


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width'><title>{html.escape(title)} (test)</title>"
        "<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}"
        ".badge{display:inline-block;background:#fde68a;color:#713f12;padding:.2rem .5rem;"
        "border-radius:.3rem}"
        ".error{color:#b91c1c}.hint{color:#555;font-size:.9rem}input{display:block;width:100%;"
        "padding:.5rem;margin:.3rem 0}button{padding:.5rem 1rem;margin:.3rem 0}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )


# ---------------------------------------------------------------- the HTTP server


class _Handler(BaseHTTPRequestHandler):
    stripe: StripeDouble
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.command, self.path)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode() if length else ""
        pairs = parse_qsl(url.query, keep_blank_values=True) + parse_qsl(raw, keep_blank_values=True)
        try:
            if url.path.startswith("/v1/"):
                self._check_key()
                result = self.stripe.handle_api(
                    method, url.path, parse_form(pairs), self.headers.get("Idempotency-Key")
                )
                self._json(200, result)
            else:
                self._hosted(method, url.path, dict(pairs))
        except StripeError as exc:
            self._json(exc.status, exc.body())
        except Exception:
            log.exception("stripe double failed")
            self._json(500, StripeError(500, "An unknown error occurred", type_="api_error").body())

    def _check_key(self) -> None:
        header = self.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        key = value.strip()
        if scheme.lower() == "basic":
            import base64

            key = base64.b64decode(key).decode(errors="replace").split(":")[0]
        if not key:
            raise StripeError(
                401,
                "You did not provide an API key. Provide it in the Authorization header as a Bearer token.",
            )
        if not hmac.compare_digest(key, self.stripe.secret_key):
            raise StripeError(401, f"Invalid API Key provided: {key[:8]}{'*' * 8}")

    def _hosted(self, method: str, path: str, form: dict[str, str]) -> None:
        parts = [p for p in path.split("/") if p]
        if len(parts) == 2 and parts[0] == "checkout" and method == "GET":
            status, page = self.stripe.checkout_page(parts[1])
            self._html(status, page)
        elif len(parts) == 2 and parts[0] == "checkout" and method == "POST":
            status, page, location = self.stripe.pay_page(parts[1], form.get("card", ""))
            self._redirect(location) if location else self._html(status, page)
        elif len(parts) == 2 and parts[0] == "portal" and method == "GET":
            status, page = self.stripe.portal_page(parts[1])
            self._html(status, page)
        elif len(parts) == 3 and parts[0] == "portal" and method == "POST":
            self._redirect(self.stripe.portal_action(parts[1], parts[2], form))
        else:
            self._html(404, _page("Not found", "<p>Not found.</p>"))

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Request-Id", f"req_{secrets.token_hex(7)}")
        self.send_header("Stripe-Version", API_VERSION)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _html(self, status: int, page: str) -> None:
        self._send(status, page.encode(), "text/html; charset=utf-8")

    def _redirect(self, location: str) -> None:
        self._send(303, b"", "text/plain", {"Location": location})


@contextmanager
def running(**kwargs: Any) -> Iterator[StripeDouble]:
    """`with running() as double:` a started double, stopped afterwards."""
    double = StripeDouble(**kwargs).start()
    try:
        yield double
    finally:
        double.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m cara_doubles.stripe", description="Run the Stripe test double (not Stripe)."
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=12111)
    parser.add_argument("--secret-key", default=DEFAULT_SECRET_KEY)
    parser.add_argument("--webhook-secret", default=DEFAULT_WEBHOOK_SECRET)
    parser.add_argument("--webhook-url", default=None, help="where to POST signed events")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per delivered webhook is noise
    double = StripeDouble(
        secret_key=args.secret_key,
        webhook_secret=args.webhook_secret,
        webhook_url=args.webhook_url,
        host=args.host,
        port=args.port,
    ).start()
    print(f"Stripe test double on {double.url} (not Stripe; test payments only)", flush=True)
    print(f"  STRIPE_API_BASE={double.url}", flush=True)
    print(f"  webhooks -> {args.webhook_url or 'not delivered (no --webhook-url)'}", flush=True)
    stop = threading.Event()
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        double.stop()


if __name__ == "__main__":
    main()
