"""A minimal SMTP server for browser tests: every message it receives is
written to a folder as an .eml file, so a test can follow an emailed link
(password reset) exactly as a user would."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class _Session(socketserver.StreamRequestHandler):
    server: _MailServer

    def _reply(self, line: str) -> None:
        self.wfile.write(f"{line}\r\n".encode())

    def handle(self) -> None:
        self._reply("220 cara-test-mailbox ready")
        while True:
            raw = self.rfile.readline()
            if not raw:
                return
            command = raw.decode(errors="replace").strip().upper()
            if command.startswith(("EHLO", "HELO")):
                self._reply("250 cara-test-mailbox")
            elif command.startswith(("MAIL FROM", "RCPT TO", "RSET", "NOOP")):
                self._reply("250 OK")
            elif command == "DATA":
                self._reply("354 End data with <CR><LF>.<CR><LF>")
                lines: list[bytes] = []
                while (line := self.rfile.readline()) not in (b".\r\n", b".\n", b""):
                    lines.append(line[1:] if line.startswith(b"..") else line)
                self.server.store(b"".join(lines))
                self._reply("250 OK: queued")
            elif command == "QUIT":
                self._reply("221 Bye")
                return
            else:
                self._reply("502 Command not implemented")


class _MailServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, folder: Path) -> None:
        super().__init__(("127.0.0.1", 0), _Session)
        self.folder = folder
        self._count = 0
        self._lock = threading.Lock()

    def store(self, message: bytes) -> None:
        with self._lock:
            self._count += 1
            (self.folder / f"{self._count:04d}.eml").write_bytes(message)


@contextmanager
def smtp_mailbox(folder: Path) -> Iterator[int]:
    """Run the mailbox on a free port; yields the port."""
    folder.mkdir(parents=True, exist_ok=True)
    server = _MailServer(folder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def mail_into(folder: Path, public_base_url: str) -> Iterator[Path]:
    """Mail sent by this process's worker lands in `folder`, its links pointing at the server
    under test (`public_base_url`); the settings are put back after."""
    from cara.config import get_settings

    settings = get_settings()
    saved = (settings.smtp_host, settings.smtp_port, settings.smtp_starttls, settings.public_base_url)
    with smtp_mailbox(folder) as port:
        settings.smtp_host, settings.smtp_port, settings.smtp_starttls = "127.0.0.1", port, False
        settings.public_base_url = public_base_url
        try:
            yield folder
        finally:
            (settings.smtp_host, settings.smtp_port, settings.smtp_starttls, settings.public_base_url) = saved
