"""NO_PROXY gains this machine's own addresses, keeps what it held, and leaves '*' alone."""

from __future__ import annotations

import os
import urllib.request

import httpx
import pytest

from agent.util.loopback import LOOPBACK, direct_to_loopback


def test_loopback_and_the_bound_host_are_added_to_both_spellings() -> None:
    env = {"HTTP_PROXY": "http://proxy.example:3128", "NO_PROXY": "intra.example"}
    added = direct_to_loopback(["10.0.0.5", "0.0.0.0", "localhost"], env)
    assert added == [*LOOPBACK, "10.0.0.5"]
    assert env["NO_PROXY"] == "intra.example,127.0.0.1,localhost,::1,10.0.0.5"
    assert env["no_proxy"] == "127.0.0.1,localhost,::1,10.0.0.5"


def test_a_second_call_adds_nothing_and_a_star_is_kept() -> None:
    env = {"NO_PROXY": "*"}
    assert direct_to_loopback((), env) == list(LOOPBACK)  # the lowercase one was empty
    before = dict(env)
    assert direct_to_loopback((), env) == []
    assert env == before and env["NO_PROXY"] == "*"


def test_the_clients_the_product_uses_then_go_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("http_proxy", "http://proxy.example:3128")
    assert not urllib.request.proxy_bypass("127.0.0.1")
    direct_to_loopback((), os.environ)
    assert urllib.request.proxy_bypass("127.0.0.1") and urllib.request.proxy_bypass("localhost")
    mounts = httpx.Client()._mounts  # httpx reads the proxy variables when a client is made
    proxied = [str(k.pattern) for k, v in mounts.items() if v is not None]
    direct = [str(k.pattern) for k, v in mounts.items() if v is None]
    assert "http://" in proxied and "all://127.0.0.1" in direct and "all://localhost" in direct
