"""Starting a reluopt run and waiting, without a fixed sleep, until it is under way: its progress line on a
pseudo-terminal shows samples and an incumbent, and so its Ctrl-C/SIGTERM handler (in place before the run
starts) is too. Shared by the CLI tests that interrupt runs."""
import os
import pty
import re
import select
import subprocess
import time

HANG = 60  # seconds after which a run counts as hung
PROGRESS = re.compile(r"samples (\d+)  LPs \d+  incumbent (\S+)")


def read_until_closed(terminal):
    """Everything left on a pseudo-terminal's reading end until the process on the other end has closed it (a
    process that writes there never blocks on a full terminal meanwhile); closes it."""
    seen, deadline = b"", time.monotonic() + HANG
    try:
        while time.monotonic() < deadline:
            if not select.select([terminal], [], [], 1.0)[0]:
                continue
            chunk = os.read(terminal, 4096)
            if not chunk:
                break
            seen += chunk
    except OSError:  # the terminal closed
        pass
    os.close(terminal)
    return seen.decode(errors="replace")


def start_under_way(command, samples, stdout=subprocess.DEVNULL):
    """Starts `command` with stderr on a terminal, so that it draws its progress line, and returns the process and
    the terminal's reading end once the line counts `samples` samples and an incumbent. Raises AssertionError
    with what the terminal showed when that does not happen within HANG seconds."""
    terminal, stderr = pty.openpty()
    proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, text=True)
    os.close(stderr)
    seen, deadline = "", time.monotonic() + HANG
    while time.monotonic() < deadline and proc.poll() is None:
        if not select.select([terminal], [], [], 1.0)[0]:
            continue
        try:
            seen = (seen + os.read(terminal, 4096).decode(errors="replace"))[-4096:]
        except OSError:  # the terminal closed
            break
        if any(int(count) >= samples and incumbent != "-" for count, incumbent in PROGRESS.findall(seen)):
            return proc, terminal
    proc.kill()
    proc.wait()
    raise AssertionError(f"no progress line with {samples} samples and an incumbent: {read_until_closed(terminal)!r}")
