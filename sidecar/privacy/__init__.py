"""Where private text may go: `egress.may_send_private(config, url)` (docs/privacy.md)."""

from sidecar.privacy.egress import endpoints_report, is_local_host, may_send_private, withheld

__all__ = ["endpoints_report", "is_local_host", "may_send_private", "withheld"]
