"""`fabric verify`: an independent parse-back verifier of a rendered tree (see fabric/verify/run.py)."""

from fabric.verify.model import Failure, VerifyInputError
from fabric.verify.report import format_json, format_text
from fabric.verify.run import Result, verify

__all__ = ["Failure", "Result", "VerifyInputError", "format_json", "format_text", "verify"]
