"""The address phones on the same Wi-Fi use, printed with a QR code at start."""

from __future__ import annotations

import fcntl
import socket
import struct
import sys

from server.http import qr

SIOCGIFADDR = 0x8915


def _iface_addresses() -> list[str]:
    """IPv4 addresses of the machine's interfaces, without sending anything."""
    found = []
    for _, name in socket.if_nameindex():
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
        except OSError:
            continue
        found.append(socket.inet_ntoa(packed[20:24]))
    return found


def lan_ip() -> str:
    try:
        addrs = _iface_addresses()
    except Exception:
        addrs = []
    # Prefer a private LAN address over loopback or container bridges.
    for prefix in ("192.168.", "10.", "172."):
        for a in addrs:
            if a.startswith(prefix):
                return a
    return next((a for a in addrs if not a.startswith("127.")), "127.0.0.1")


#: Printed under a plain-HTTP address: what a phone sends on the Wi-Fi is readable there.
PLAIN_HTTP_WARNING = (
    "  Warning: plain HTTP. Anyone on this Wi-Fi can read what the phones send,\n"
    "  seat tokens and PINs included. For HTTPS set TABLEMATE_TLS_CERT and\n"
    "  TABLEMATE_TLS_KEY (docs/deploy.md).\n"
)


def announce(port: int, embedded: bool, tls: bool = False, public_url: str | None = None) -> None:
    """Prints the address phones open, as text and a QR code: ``public_url``
    when set (a host name the certificate names), else this machine's LAN
    address, over HTTPS when ``tls`` (gunicorn serves TLS itself)."""
    scheme = "https" if tls else "http"
    url = public_url.rstrip("/") + "/" if public_url else f"{scheme}://{lan_ip()}:{port}/"
    out = sys.stdout
    out.write("\n" + qr.terminal(url))
    out.write(f"\n  Tablemate is running: {url}\n  (this computer: {scheme}://localhost:{port}/)\n")
    if embedded:
        out.write("  Store: embedded (no REDIS_URL); tables vanish when this process stops.\n")
    if not url.startswith("https://"):
        out.write(PLAIN_HTTP_WARNING)
    out.write("  Scan the QR code with a phone on the same Wi-Fi.\n\n")
    out.flush()
