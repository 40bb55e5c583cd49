"""The sandbox that the checks needing a task's code run in: bubblewrap (``bwrap``), when this machine can run it.

No network, its own PID namespace (every process the child started dies with it), a read-only view of the checker
and the task, a private ``/tmp``; the caller adds the limits (:func:`limited_command`) and the environment
(:func:`child_environment`). :func:`sandbox_status` says why none can be made. See docs/review.md#the-sandbox.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from genbench._core.settings import positive_env_number

# GENBENCH_SANDBOX=none runs the checks without the sandbox even where bwrap works (to debug a task).
SANDBOX_ENV = "GENBENCH_SANDBOX"
# The sandbox's name in a verdict, and the name of its absence.
BWRAP = "bwrap"
NONE = "none"
# Bytes of address space a child may map by default (RLIMIT_AS, per process).
DEFAULT_MEMORY_LIMIT = 16 << 30
# Inside the sandbox: the private scratch directory and the child's home.
SCRATCH = "/tmp"
HOME = "/tmp/home"
# The scratch is a tmpfs, held in the host's memory: bounded (MiB; GENBENCH_SANDBOX_TMP_MB sets another bound), so
# that a task cannot fill the host's memory by writing files (a write past it fails with "No space left on device").
SCRATCH_MB_ENV = "GENBENCH_SANDBOX_TMP_MB"
DEFAULT_SCRATCH_MB = 2048
# Top-level system directories: bound read-only, or recreated as the links they are (merged /usr).
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Files of /etc that programs read to work at all (dynamic loader, time zone, certificates, user names, localhost);
# nothing else (no /etc/shadow, no credentials).
_ETC_FILES = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/ssl", "/etc/ca-certificates",
    "/etc/alternatives", "/etc/mime.types", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/hosts",
)  # fmt: skip
# Environment variables passed to the child as they are: settings, never credentials.
_PASSED_ENV = (
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "NO_COLOR",
    "GENBENCH_TASKS_PATH", "GENBENCH_CACHE", "GENBENCH_VERBOSITY", "GENBENCH_JSONNET_MEMORY_MB",
    "GENBENCH_JSONNET_TIMEOUT", "GENBENCH_REGEX_TIMEOUT", "GENBENCH_MAX_DOWNLOAD_BYTES", "GENBENCH_DOWNLOAD_TIMEOUT",
)  # fmt: skip
_PROBE_TIMEOUT = 30.0
# The checker's own task registry (its package's tasks/, wherever tests point the registry): hidden inside but for its
# plain files and the task checked.
CHECKER_TASKS_DIR = Path(__file__).resolve().parents[1] / "tasks"
# Sets the memory limit (soft and hard, so the child cannot raise it), then runs the command: a tiny trusted
# program of the parent's, so that no pre-exec hook runs in the threaded parent.
_LIMITS = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


@dataclass(frozen=True)
class SandboxStatus:
    """Whether the checks can run sandboxed here.

    Attributes:
        kind: ``"bwrap"`` or ``"none"``: what the verdict names.
        executable: The ``bwrap`` program, when available.
        reason: Why there is no sandbox (one line), or ``""``.
    """

    kind: str
    executable: str | None = None
    reason: str = ""

    @property
    def available(self) -> bool:
        """Whether the sandbox can be made."""
        return self.kind == BWRAP


@functools.cache
def _probe(executable: str) -> str:
    """``""`` when ``executable`` can make a sandbox, else what it said."""
    command = [executable, *_base_options(), "--", "true"]
    try:
        process = subprocess.run(command, capture_output=True, text=True, timeout=_PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    if process.returncode == 0:
        return ""
    said = " ".join(process.stderr.split())[:200]
    return said or f"exit status {process.returncode}"


def sandbox_status(environ: Mapping[str, str] | None = None) -> SandboxStatus:
    """Whether ``bwrap`` can make a sandbox on this machine (probed once per process by running ``true`` in one).

    >>> sandbox_status({"GENBENCH_SANDBOX": "none"}).reason
    'turned off (GENBENCH_SANDBOX=none)'
    """
    environ = os.environ if environ is None else environ
    if environ.get(SANDBOX_ENV, "").strip().lower() == NONE:
        return SandboxStatus(NONE, reason=f"turned off ({SANDBOX_ENV}=none)")
    executable = shutil.which("bwrap")
    if executable is None:
        return SandboxStatus(NONE, reason="bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    said = _probe(executable)
    if said:
        return SandboxStatus(
            NONE,
            reason=f"bwrap cannot make a sandbox here (unprivileged user namespaces are probably off): {said}",
        )
    return SandboxStatus(BWRAP, executable)


def scratch_bytes() -> int:
    """The bound of the sandbox's ``/tmp``, in bytes (:data:`SCRATCH_MB_ENV`, else :data:`DEFAULT_SCRATCH_MB` MiB).

    Raises:
        ConfigError: the variable is set but not a positive whole number.
    """
    return positive_env_number(SCRATCH_MB_ENV, DEFAULT_SCRATCH_MB, int) << 20


def _base_options() -> list[str]:
    options = [
        "--unshare-all", "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev",
        "--size", str(scratch_bytes()), "--tmpfs", SCRATCH, "--dir", HOME, "--chdir", SCRATCH,
    ]  # fmt: skip
    for name in _SYSTEM_DIRS:
        if os.path.islink(name):
            options += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            options += ["--ro-bind", name, name]
    for name in _ETC_FILES:
        options += ["--ro-bind-try", name, name]
    return options


def python_paths() -> list[Path]:
    """The directories this Python needs to run the checker: its installation, its virtual environment and every
    directory of its import path, except the current directory (which may be the reviewer's home)."""
    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix)]
    paths.append(Path(sys.executable).parent)
    paths.append(Path(os.path.realpath(sys.executable)).parent.parent)
    cwd = Path.cwd()
    paths += [Path(entry) for entry in sys.path if entry and Path(entry) != cwd]
    return paths


def sandbox_command(
    command: Sequence[str], *, executable: str, read_only: Iterable[Path], keep_fds: Sequence[int] = ()
) -> list[str]:
    """``command`` run inside the sandbox, in which ``read_only`` paths are visible, read-only.

    Args:
        command: The command to run inside; its paths must be visible there.
        executable: The ``bwrap`` program (:attr:`SandboxStatus.executable`).
        read_only: Files and directories bound at their own path, read-only; those that do not exist, and any that
            would hide the whole system (``/``) or the home directory, are left out.
        keep_fds: Descriptors the child inherits (bwrap passes on every inherited descriptor; named for clarity).
    """
    del keep_fds  # bwrap keeps inherited descriptors open; the caller passes them to Popen
    home = Path.home().resolve()
    seen: set[Path] = set()
    outside: list[Path] = []  # bound first; then the package's tasks hidden; then what lies inside them
    inside: list[Path] = []
    for path in sorted({Path(os.path.abspath(p)) for p in read_only}, key=lambda p: (len(p.parts), str(p))):
        if path in seen or not path.exists() or path == Path("/") or path in home.parents or path == home:
            continue
        for bound in dict.fromkeys([path, path.resolve()]):
            if bound not in seen:
                seen.add(bound)
                (inside if bound.is_relative_to(CHECKER_TASKS_DIR) else outside).append(bound)
    binds = [option for path in outside for option in ("--ro-bind", str(path), str(path))]
    if any(CHECKER_TASKS_DIR.is_relative_to(path) for path in outside):
        binds += _hide_package_tasks()
    binds += [option for path in inside for option in ("--ro-bind", str(path), str(path))]
    return [executable, *_base_options(), *binds, "--", *command]


def _hide_package_tasks() -> list[str]:
    """Options that make the package's ``tasks/`` an empty directory but for its plain files (``__init__.py``: the
    ``genbench.tasks`` package): a checkout's tasks, drafts included, are not the task under review."""
    options = ["--tmpfs", str(CHECKER_TASKS_DIR)]
    for entry in sorted(CHECKER_TASKS_DIR.iterdir()):
        if entry.is_file() and not entry.is_symlink():
            options += ["--ro-bind", str(entry), str(entry)]
    return options


def limited_command(command: Sequence[str], memory_limit: int | None) -> list[str]:
    """``command`` run with at most ``memory_limit`` bytes of address space per process (soft and hard limit, so
    neither it nor what it starts can raise it), and no core dumps. ``None``: unchanged."""
    if memory_limit is None:
        return list(command)
    program = shutil.which(command[0]) or command[0]
    return [sys.executable, "-I", "-S", "-c", _LIMITS, str(int(memory_limit)), program, *command[1:]]


def child_environment(environ: Mapping[str, str], *, sandboxed: bool) -> dict[str, str]:
    """The environment of the process that runs a task's code: a short list of settings, no credentials.

    Kept: locale, terminal, and genbench's settings (:data:`_PASSED_ENV`); ``PATH`` is the system's plus this
    Python's ``bin``. Inside the sandbox ``HOME`` and the temporary directory are the private scratch, the Hugging
    Face libraries are offline (there is no network) and keep their cache there.

    >>> env = child_environment({"HF_TOKEN": "hf_x", "GITHUB_TOKEN": "g", "LANG": "C.UTF-8"}, sandboxed=True)
    >>> sorted(k for k in env if "TOKEN" in k), env["LANG"], env["HOME"]
    ([], 'C.UTF-8', '/tmp/home')
    """
    env = {name: environ[name] for name in _PASSED_ENV if name in environ}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["GENBENCH_REGISTRY_CACHE"] = "off"
    if sandboxed:
        env.update(HOME=HOME, TMPDIR=SCRATCH, HF_HOME=f"{SCRATCH}/huggingface", XDG_CACHE_HOME=f"{SCRATCH}/cache")
        env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    else:
        for name in ("HOME", "TMPDIR", "HF_HOME", "HF_DATASETS_CACHE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
            if name in environ:
                env[name] = environ[name]
    return env


__all__ = [
    "BWRAP",
    "CHECKER_TASKS_DIR",
    "DEFAULT_MEMORY_LIMIT",
    "NONE",
    "SANDBOX_ENV",
    "SCRATCH_MB_ENV",
    "SandboxStatus",
    "child_environment",
    "limited_command",
    "python_paths",
    "sandbox_command",
    "sandbox_status",
    "scratch_bytes",
]
