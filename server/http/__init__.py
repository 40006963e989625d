"""The HTTP adapter: the /api views, the static PWA, security headers, QR codes."""
