"""`fabric verify`: an independent parse-back verifier of a rendered tree (see railfabric/verify/run.py)."""

from railfabric.verify.model import Failure, VerifyInputError
from railfabric.verify.report import format_json, format_text
from railfabric.verify.run import Result, verify

__all__ = ["Failure", "Result", "VerifyInputError", "format_json", "format_text", "verify"]
