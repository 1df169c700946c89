"""Finding and opening the board's serial port.

Order: --port, then the simulator's pty (--sim DIR or $BAWO_SIM), then $BAWO_PORT, then every
USB port with the Raspberry Pi vendor id (0x2E8A), or CircuitPython's Pico id (239a:80f4), that
answers the handshake, then a simulator running in its default data dir (`bawo sim` with no
--data), found as a USB board is.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import TYPE_CHECKING, Any

from .errors import BawoError

if TYPE_CHECKING:
    from .boardlink import BoardLink

RPI_VID = 0x2E8A
# A Pico running CircuitPython shows up as Adafruit's 239a:80f4 (its console is the board's link).
CIRCUITPY_PICO = (0x239A, 0x80F4)
BAUD = 115200  # ignored by USB CDC and ptys, but pyserial needs one
# Names the simulator may use for the file holding its pty path, in its data dir.
SIM_PORT_FILES = ("port", "pty", "pty.txt", "port.txt")
DIALOUT_FIX = (
    "add yourself to the serial group and log in again: sudo usermod -aG dialout $USER "
    "(Arch: uucp), or install a udev rule: SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"2e8a\", "
    "MODE=\"0666\""
)


class PortError(BawoError):
    """No usable port: the message says what to do."""


def sim_dir(arg: str | None = None) -> str | None:
    """The simulator data dir chosen by --sim (arg) or $BAWO_SIM, or None."""
    if arg:
        return arg
    return os.environ.get("BAWO_SIM") or None


def sim_port(data_dir: str) -> str:
    """The pty path the simulator wrote into its data dir."""
    for name in SIM_PORT_FILES:
        p = os.path.join(data_dir, name)
        if os.path.isfile(p):
            with open(p) as f:
                path = f.read().strip()
            if path:
                if not os.path.exists(path):
                    raise PortError(
                        "the simulator in %s is not running (its pty %s is gone): "
                        "start it with `bawo sim`" % (data_dir, path)
                    )
                return path
    raise PortError(
        "no simulator port file in %s: start the simulator with `bawo sim --data %s`"
        % (data_dir, data_dir)
    )


def running_sim_port(data_dir: str) -> str | None:
    """The pty of a simulator running on data_dir now, else None (never an error). Running:
    the process named in its lock file lives and the pty it wrote exists. A port file a
    killed simulator left names a pty that may be some terminal's by now: it is not opened."""
    try:
        with open(os.path.join(data_dir, "lock")) as f:
            pid = int(f.read(32).strip() or 0)
        with open(os.path.join(data_dir, "port")) as f:
            path = f.read(4096).strip()
    except (OSError, ValueError):
        return None
    # The port is the sim's own link to its pty: opened only if it leads to a device.
    if pid <= 0 or not os.path.realpath(path).startswith("/dev/") or not os.path.exists(path):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, another user's
    return path


def default_sim_port() -> str | None:
    """running_sim_port of the simulator's default data dir."""
    from .sim.process import default_data_dir

    return running_sim_port(default_data_dir())


def candidates() -> list[dict[str, Any]]:
    """USB serial ports, Raspberry Pi ones first: dicts for `bawo ports`."""
    try:
        from serial.tools import list_ports

        found = list_ports.comports()
    except Exception:  # some platforms cannot enumerate; --port still works
        found = []
    out = []
    for p in found:
        out.append(
            {
                "device": p.device,
                "vid": "%04x" % p.vid if p.vid is not None else None,
                "pid": "%04x" % p.pid if p.pid is not None else None,
                "serial": p.serial_number,
                "description": p.description,
                "pico": p.vid == RPI_VID or (p.vid, p.pid) == CIRCUITPY_PICO,
            }
        )
    out.sort(key=lambda d: (not d["pico"], d["device"]))
    return out


def open_port(path: str, exclusive: bool = True) -> Any:
    """Open a port by path; every failure becomes a PortError saying what to do."""
    import serial

    try:
        return serial.Serial(path, BAUD, timeout=0.05, write_timeout=5, exclusive=exclusive)
    except serial.SerialException as e:
        raise PortError(explain_open_error(path, e))
    except OSError as e:
        raise PortError(explain_open_error(path, e))


def explain_open_error(path: str, e: Exception) -> str:
    code = getattr(e, "errno", None)
    text = str(e)
    if code == errno.ENOENT or "No such file" in text:
        return "port %s does not exist: plug the board in, or run `bawo ports` to list ports" % path
    if code in (errno.EACCES, errno.EPERM) or "Permission denied" in text:
        if sys.platform.startswith("linux"):
            return "permission denied on %s: %s" % (path, DIALOUT_FIX)
        return (
            "permission denied on %s: close other programs or run with access to serial ports"
            % path
        )
    if (
        code in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK)
        or "exclusively lock" in text
        or "busy" in text
    ):
        return (
            "port %s is busy: another program (Thonny, mpremote, a serial monitor, a running "
            "`bawo watch`) has it open; close it and try again" % path
        )
    return "cannot open %s: %s" % (path, text)


def resolve(port: str | None = None, sim: str | None = None) -> list[str]:
    """A list of paths to try, best first."""
    if port:
        return [port]
    d = sim_dir(sim)
    if d:
        return [sim_port(d)]
    env = os.environ.get("BAWO_PORT")
    if env:
        return [env]
    picos = [c["device"] for c in candidates() if c["pico"]]
    sim_pty = default_sim_port()
    if sim_pty:
        picos.append(sim_pty)
    if not picos:
        raise PortError(
            "no board found: plug it in with a data USB cable (the board shows up with "
            "USB id 2e8a:xxxx, or 239a:80f4 under CircuitPython), or give --port PATH; "
            "`bawo sim` starts a simulated board, found here while it runs"
        )
    return picos


def set_clock(link: BoardLink) -> None:
    """Tell the board the time (TIME, unix seconds UTC). A board that refuses it (no clock:
    ERROR 2; a PC clock outside the range it accepts: ERROR 3) still works: its records just
    lack a start time, which is no reason to refuse the link. No reply at all is an error."""
    from .boardlink import BoardLinkError

    try:
        link.set_time()
    except BoardLinkError as e:
        if e.code is None:
            raise


def connect(
    port: str | None = None, sim: str | None = None, timeout: float = 2.0
) -> tuple[Any, BoardLink, dict[str, Any]]:
    """Open the board, shake hands and set its clock. Returns (serial, BoardLink, hello info).

    Every host command that opens the link comes through here, so the board always knows the
    time once a PC has talked to it: the games it starts get a start time in their records."""
    from .boardlink import BoardLink, BoardLinkError
    from .boardlink import P

    paths = resolve(port, sim)
    errors: list[str] = []
    for path in paths:
        try:
            ser = open_port(path)
        except PortError as e:
            if len(paths) == 1:
                raise
            errors.append(str(e))
            continue
        link = BoardLink(ser, timeout=timeout)
        try:
            info = link.hello()
        except BoardLinkError as e:
            ser.close()
            if e.code == P.E_VERSION:
                raise PortError(
                    "the board's firmware speaks another protocol version (%s): update it "
                    "with `bawo flash`" % e
                )
            errors.append("%s: %s" % (path, e))
            continue
        except Exception:
            ser.close()
            raise
        proto = info.get("proto")
        if proto != P.VERSION:
            ser.close()
            raise PortError(
                "the board's firmware speaks protocol %s, these tools %d: %s"
                % (
                    proto,
                    P.VERSION,
                    "run `bawo flash` to update the board"
                    if (proto or 0) < P.VERSION
                    else "update the host tools (pip install -U bawo-board)",
                )
            )
        set_clock(link)
        return ser, link, info
    if len(errors) == 1:
        msg = errors[0]
    else:
        msg = "; ".join(errors)
    raise PortError(
        "no Bawo board answered on %s (%s): if the board shows a REPL instead of the "
        "game, install the firmware with `bawo flash`" % (", ".join(paths), msg)
    )


KINDS = {
    "uf2": "the frozen UF2 image",
    "files": "files copied by bawo flash",
    "source": "run from the source tree, as the simulator does",
}


def install_words(info: dict[str, Any]) -> str:
    """How a HELLO says the firmware was installed, and the hash of its sources: 'the frozen
    UF2 image, build 1a92625bc2d09661'; '' from a firmware older than these fields."""
    kind = KINDS.get(info.get("image") or "")
    build = info.get("build")
    extra = [kind] if kind else []
    if (
        isinstance(build, str)
        and 0 < len(build) <= 16
        and all(c in "0123456789abcdef" for c in build)
    ):
        extra.append("build %s" % build)
    return ", ".join(extra)


def firmware_words(info: dict[str, Any]) -> str:
    """What a HELLO says of the firmware, as a person reads it: 'Bawo Board 0.1.0 (the frozen
    UF2 image, build 1a92625bc2d09661)'."""
    fw = str(info.get("fw") or info.get("firmware") or "unknown")[:32]
    fw = "".join(c for c in fw if " " < c < "\x7f") or "unknown"  # a board's text, shown raw
    how = install_words(info)
    return "Bawo Board %s%s" % (fw, " (%s)" % how if how else "")


def hello_once(path: str) -> dict[str, Any] | None:
    """The HELLO answer of the Bawo firmware on path right now (one short try), or None if
    nothing answers as it; PortError if the port cannot be opened."""
    from .boardlink import BoardLink, BoardLinkError

    ser = open_port(path)
    try:
        return BoardLink(ser, timeout=0.5, retries=1).hello()
    except BoardLinkError:
        return None
    finally:
        ser.close()


def ask_firmware(path: str) -> str:
    """What runs on the board at path, in words: firmware_words of its HELLO, or why not."""
    try:
        info = hello_once(path)
    except PortError as e:
        return "busy: another program has the port" if "busy" in str(e) else "cannot open the port"
    if info is None:
        return "no Bawo firmware answered (MicroPython at its REPL, or another device)"
    board = str(info.get("board") or "")[:40]
    board = "".join(c for c in board if " " < c < "\x7f")  # a board's text, shown raw
    # The board's id: what a club's admin issues its token for.
    return firmware_words(info) + (", board %s" % board if board else "")
