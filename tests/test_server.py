"""`sleuth serve`: a real uvicorn daemon on its Unix socket and on a loopback port."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import jsonschema
import pytest

from sleuth import Index

from .conftest import RESULT_KEYS, SAMPLE_REPO, SEARCH_KEYS, git_init, write_tree
from .daemon_helpers import free_port, running_daemon, sleuth
from .gitrepo import commit


@pytest.fixture
def history_repo(tmp_path: Path) -> Path:
    """The sample repository with two commits, indexed with every vector."""
    root = tmp_path / "repo"
    git_init(root)
    commit(root, "Add the sample application", "ann", "2024-01-01T10:00:00+00:00", SAMPLE_REPO)
    commit(
        root,
        "Retry failed uploads with exponential backoff",
        "bob",
        "2024-02-01T10:00:00+00:00",
        {"src/uploads/retry.py": SAMPLE_REPO["src/uploads/retry.py"] + "\n# backoff tuned\n"},
    )
    Index(root).index(embed="deep")
    return root


def test_unix_socket_endpoints(history_repo: Path) -> None:
    root = history_repo
    with running_daemon(root, "--no-watch", "--embed", "none") as daemon:
        info = daemon.info
        socket_path = Path(info["address"].removeprefix("unix:"))
        assert socket_path.parent == root / ".sleuth"
        assert stat.S_IMODE(socket_path.stat().st_mode) == 0o600
        with daemon.client() as http:
            health = http.get("/health").json()
            assert health["ok"] and health["repositories"] == [str(root)]

            found = http.post(
                "/search", json={"query": "where are failed uploads retried", "handles": True}
            ).json()
            assert set(found) >= SEARCH_KEYS and set(found["results"][0]) == RESULT_KEYS
            assert found["results"][0]["path"] == "src/uploads/retry.py"
            assert found["mode"] == "hybrid" and found["index"]["state"] == "complete"
            top = found["hits"][0]
            assert top["symbol"] == "retry_failed_upload" and top["id"].endswith("@1")

            symbols = http.post("/symbols", json={"name": "parse_config"}).json()
            assert [(r["path"], r["symbol"]) for r in symbols["results"]] == [
                ("src/config/parser.py", "ConfigParser.parse_config")
            ]
            missing = http.post("/symbols", json={"name": "no_such_function_here"}).json()
            assert missing["results"] == [] and "no definition" in missing["reason"]

            code = http.post("/expand", json={"handles": [top["id"]], "context_lines": 1}).json()
            assert " 5  def retry_failed_upload(upload, attempts=3, backoff=0.5):" in code["text"]
            assert code["items"][0]["status"] == "fresh" and code["errors"] == []

            related = http.post("/related", json={"target": top["id"], "k": 3}).json()
            assert related["mode"] == "semantic" and len(related["results"]) == 3
            assert all(r["symbol"] != "retry_failed_upload" for r in related["results"])

            history = http.post("/history", json={"query": "when did uploads get retries"}).json()
            assert history["results"][0]["subject"] == (
                "Retry failed uploads with exponential backoff"
            )
            assert history["commits_indexed"] == 2
            by_ann = http.post("/history", json={"query": "sample", "author": "ann"}).json()
            assert {c["author"] for c in by_ann["results"]} == {"ann"}

            status = http.get("/status").json()
            assert status["files"] == 6 and status["root"] == str(root)
            assert status["watching"] is False and status["index"]["generation"] == 1

            # `sleuth related` and `sleuth history` go through the daemon too.
            misses = http.get("/status").json()["caches"]["results"]["misses"]
            target = f"{root / 'src' / 'uploads' / 'retry.py'}:6"
            similar = sleuth("related", target, "-k", "3", "--json")
            assert similar.returncode == 0, similar.stderr
            direct = http.post("/related", json={"target": target, "k": 3}).json()
            assert json.loads(similar.stdout)["results"] == direct["results"]
            assert http.get("/status").json()["caches"]["results"]["misses"] == misses + 1
            commits = sleuth("history", "exponential backoff", str(root), "--json")
            assert commits.returncode == 0, commits.stderr
            assert json.loads(commits.stdout)["results"][0]["author"] == "bob"
            human = sleuth("history", "exponential backoff", str(root), "--author", "bob")
            assert "Retry failed uploads with exponential backoff" in human.stdout

            # The result cache answers a repeated query and never outlives a change.
            query = {"query": "retry_failed_upload", "k": 1}
            first = http.post("/search", json=query).json()
            before = http.get("/status").json()["caches"]["results"]
            assert http.post("/search", json=query).json() == first
            after = http.get("/status").json()["caches"]["results"]
            assert after["hits"] == before["hits"] + 1
            retry = root / "src" / "uploads" / "retry.py"
            retry.write_text('"""Moved."""\n\n\n' + retry.read_text())
            reindexed = http.post("/reindex", json={}).json()
            assert reindexed["changed"] == 1 and reindexed["index"]["generation"] == 2
            moved = http.post("/search", json={**query, "refresh": False}).json()
            assert moved["results"][0]["start_line"] == first["results"][0]["start_line"] + 3

            # A handle issued before the change is stale now.
            stale = http.post("/expand", json={"handles": [top["id"]]}).json()
            assert stale["items"][0]["status"] == "stale"

            docs = http.get("/openapi.json").json()
            assert {"/search", "/symbols", "/expand", "/related", "/history"} <= set(docs["paths"])
            assert {"/status", "/reindex", "/health"} <= set(docs["paths"])
            # every answer above is what the schema documents, and documents all of it
            for route, method, body in [
                ("/search", "post", found),
                ("/search", "post", moved),
                ("/symbols", "post", symbols),
                ("/symbols", "post", missing),
                ("/expand", "post", code),
                ("/expand", "post", stale),
                ("/related", "post", related),
                ("/history", "post", history),
                ("/reindex", "post", reindexed),
                ("/status", "get", status),
                ("/health", "get", health),
            ]:
                assert_documented(docs, route, method, body)
            # the error statuses are documented with the error body's schema
            answers = docs["paths"]["/search"]["post"]["responses"]
            assert {"200", "400", "404", "413", "422", "503"} <= set(answers)
            error = answers["400"]["content"]["application/json"]["schema"]["$ref"]
            assert error.endswith("/ErrorBody")
            # every request example the schema shows is a body the server takes (a
            # handle of the example may name no chunk here: a refusal of its value)
            for route in ("/search", "/symbols", "/expand", "/related", "/history", "/reindex"):
                body = docs["paths"][route]["post"]["requestBody"]["content"]["application/json"]
                name = body["schema"]["$ref"].rsplit("/", 1)[1]
                examples = docs["components"]["schemas"][name]["examples"]
                assert examples, route
                for example in examples:
                    answer = http.post(route, json=example)
                    refused = answer.json().get("type") in ("invalid_request", "malformed_json")
                    assert answer.status_code != 422 and not refused, (route, example, answer.text)


def assert_documented(docs: dict, route: str, method: str, body: dict) -> None:
    """``body`` is valid under the OpenAPI schema of the route's 200 answer, and has no
    key that schema leaves out (a field added to an answer must be documented)."""
    answer = docs["paths"][route][method]["responses"]["200"]["content"]["application/json"]
    schemas = docs["components"]["schemas"]
    jsonschema.Draft202012Validator(
        {**answer["schema"], "components": docs["components"]}
    ).validate(body)
    assert undocumented(body, answer["schema"], schemas) == [], route


def undocumented(value: object, schema: dict, schemas: dict, at: str = "") -> list[str]:
    """Keys of ``value`` that ``schema`` (OpenAPI, ``$ref`` to ``schemas``) leaves out."""
    if "$ref" in schema:
        schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
    options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
    if options:
        schema = options[0]
        if "$ref" in schema:
            schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
    if isinstance(value, dict):
        known = schema.get("properties", {})
        out = [f"{at}.{key}" for key in value if key not in known]
        for key, item in value.items():
            if key in known:
                out += undocumented(item, known[key], schemas, f"{at}.{key}")
        return out
    if isinstance(value, list) and "items" in schema:
        return [x for item in value for x in undocumented(item, schema["items"], schemas, at)]
    return []


def test_search_refreshes_changed_files_without_a_watcher(sample_repo: Path) -> None:
    Index(sample_repo).index(embed="none")
    with (
        running_daemon(sample_repo, "--no-watch", "--embed", "none") as daemon,
        daemon.client() as http,
    ):
        before = http.post("/search", json={"query": "quarantine_bucket"}).json()
        assert all(r["path"] != "src/quarantine.py" for r in before["results"])
        write_tree(
            sample_repo,
            {"src/quarantine.py": "def quarantine_bucket(name):\n    return name\n"},
        )
        time.sleep(1.1)  # the stat check runs at most once a second
        found = http.post("/search", json={"query": "quarantine_bucket"}).json()
        assert found["results"][0]["path"] == "src/quarantine.py"


BAD_REQUESTS = [
    # (method, path, body (dict = JSON, str/bytes = raw), headers, status, words in the error)
    ("POST", "/search", "{not json", {"content-type": "application/json"}, 400, "malformed json"),
    ("POST", "/search", b'\xff\xfe{"q"}', {"content-type": "application/json"}, 400, "malformed"),
    ("POST", "/search", {"query": "retry", "k": 10**9}, {}, 422, "k: input should be less"),
    ("POST", "/search", {"query": "retry", "k": 0}, {}, 422, "k: input should be greater"),
    ("POST", "/search", {"query": ""}, {}, 422, "query: string should have at least 1"),
    ("POST", "/search", {"query": "   "}, {}, 400, "query"),
    ("POST", "/search", {"query": "!!!"}, {}, 400, "nothing searchable"),
    ("POST", "/search", {}, {}, 422, "query: field required"),
    ("POST", "/search", {"query": "retry", "mode": "magic"}, {}, 422, "mode: input should be"),
    ("POST", "/search", {"query": "retry", "colour": "red"}, {}, 422, "extra inputs"),
    ("POST", "/search", {"query": "retry", "repo": "/nowhere"}, {}, 404, "unknown repository"),
    ("POST", "/search", {"query": "retry", "repo": "../.."}, {}, 404, "unknown repository"),
    ("POST", "/expand", {"handles": ["../../etc/passwd"]}, {}, 400, "outside the repository"),
    ("POST", "/expand", {"handles": ["/etc/passwd"]}, {}, 400, "outside the repository"),
    ("POST", "/expand", {"handles": [".env"]}, {}, 400, "not an indexed file"),
    ("POST", "/expand", {"handles": ["99999:1-2@1"]}, {}, 400, "unknown handle"),
    ("POST", "/expand", {"handles": []}, {}, 422, "handles: list should have at least 1"),
    ("POST", "/expand", {"handles": [""]}, {}, 422, "handles.0: string should have at least"),
    ("POST", "/expand", {"handles": ["9" * 23]}, {}, 400, "a number too large"),
    ("POST", "/related", {"target": "9" * 23}, {}, 400, "a number too large"),
    ("POST", "/search", {"query": "retry", "k": "10"}, {}, 422, "k: input should be a valid int"),
    ("POST", "/search", {"query": "retry", "refresh": 0}, {}, 422, "refresh: input should be"),
    ("POST", "/expand", {"handles": ["a.py"], "context_lines": False}, {}, 422, "context_lines"),
    ("POST", "/related", {"target": "../../etc/passwd:1"}, {}, 400, "outside the repository"),
    ("POST", "/symbols", {"name": "..."}, {}, 400, "not a symbol name"),
    ("POST", "/expand", {"handles": ["src/\x00parser.py"]}, {}, 400, "not a handle id"),
    ("POST", "/expand", {"handles": ["src/a.py:1-2\x00"]}, {}, 400, "not a handle id"),
    ("POST", "/related", {"target": "src/\x00x.py:1"}, {}, 400, "not a handle id"),
    ("POST", "/search", {"query": "retry path:" + "**/" * 300 + "x"}, {}, 400, "wildcards"),
    ("POST", "/search", {"query": "retry", "path": "*a" * 30}, {}, 400, "wildcards"),
    ("POST", "/history", {"query": "x", "since": "not a date"}, {}, 400, "date"),
    ("POST", "/search", "x" * 2_000_000, {"content-type": "application/json"}, 413, "over"),
    ("POST", "/search", [1, 2], {}, 422, "valid dictionary"),
    ("GET", "/search", None, {}, 405, "method not allowed"),
    ("GET", "/no/such/endpoint", None, {}, 404, "no such endpoint"),
    ("GET", "/status?repo=elsewhere", None, {}, 404, "unknown repository"),
]


def test_bad_requests_get_json_errors_and_the_server_keeps_running(sample_repo: Path) -> None:
    write_tree(sample_repo, {".env": "TOKEN=hunter2\n"})
    commit(sample_repo, "Initial", "ann", "2024-01-01T10:00:00+00:00")
    Index(sample_repo).index(embed="none")
    with running_daemon(sample_repo, "--no-watch", "--embed", "none") as daemon:
        with daemon.client() as http:
            for method, path, body, headers, status, words in BAD_REQUESTS:
                if isinstance(body, str | bytes):
                    reply = http.request(method, path, content=body, headers=headers)
                else:
                    reply = http.request(method, path, json=body, headers=headers)
                assert reply.status_code == status, (path, body, reply.text)
                error = reply.json()
                assert error["status"] == status and error["type"]
                assert words in error["error"].lower(), (path, body, error)
                assert "\n" not in error["error"] and "Traceback" not in reply.text
                assert "hunter2" not in reply.text
                if status == 405:  # RFC 9110: a 405 names the methods that are allowed
                    assert reply.headers["allow"] == "POST"

            # A body streamed without a length is cut off as well.
            def chunks():
                for _ in range(40):
                    yield b"x" * 50_000

            reply = http.post("/search", content=chunks(), headers={"content-type": "text/plain"})
            assert reply.status_code == 413 and reply.json()["type"] == "body_too_large"

            # Still serving, and each refusal was logged.
            found = http.post("/search", json={"query": "retry_failed_upload"}).json()
            assert found["results"][0]["symbol"] == "retry_failed_upload"
        log = daemon.output()
        assert log.count("refused") >= len(BAD_REQUESTS)
        assert "Traceback" not in log


def test_tcp_needs_the_bearer_token_unless_no_auth(sample_repo: Path) -> None:
    Index(sample_repo).index(embed="none")
    port = free_port()
    with running_daemon(
        sample_repo, "--host", "127.0.0.1", "--port", str(port), "--no-watch", "--embed", "none"
    ) as daemon:
        assert daemon.info["address"] == f"http://127.0.0.1:{port}"
        token_file = sample_repo / ".sleuth" / "daemon.token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 32
        query = {"query": "retry_failed_upload"}
        with daemon.client() as anonymous:
            health = anonymous.get("/health")
            assert health.status_code == 200
            assert health.json()["repositories"] == [sample_repo.name]  # not where it is
            refused = anonymous.post("/search", json=query)
            assert refused.status_code == 401 and "bearer token" in refused.json()["error"]
            assert anonymous.get("/status").status_code == 401
        with daemon.client(token="x" * 43) as wrong:
            assert wrong.post("/search", json=query).status_code == 401
        with daemon.client(token=token) as http:
            assert http.post("/search", json=query).json()["results"][0]["path"] == (
                "src/uploads/retry.py"
            )
        # The CLI reads the token file itself.
        proc = sleuth("search", "retry_failed_upload", str(sample_repo), "--json")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["results"][0]["symbol"] == "retry_failed_upload"
    # The token is kept across restarts, so clients keep working.
    with (
        running_daemon(
            sample_repo, "--host", "127.0.0.1", "--port", "0", "--no-auth", "--no-watch"
        ) as daemon,
        daemon.client() as anonymous,
    ):
        assert anonymous.post("/search", json=query).status_code == 200
        # ... but not to a web page whose name was made to point here (DNS rebinding)
        port = daemon.info["address"].rsplit(":", 1)[1]
        foreign = {"host": f"attacker.example.com:{port}"}
        refused = anonymous.post("/search", json=query, headers=foreign)
        assert refused.status_code == 421 and refused.json()["type"] == "misdirected"
        origin = {"origin": f"http://attacker.example.com:{port}"}
        refused = anonymous.post("/search", json=query, headers=origin)
        assert refused.status_code == 403 and refused.json()["type"] == "forbidden_origin"
        for name in (f"localhost:{port}", f"127.0.0.1:{port}"):
            local = {"host": name, "origin": f"http://{name}"}
            assert anonymous.post("/search", json=query, headers=local).status_code == 200
    assert token_file.read_text().strip() == token


def test_refuses_a_non_loopback_host_without_the_flag(sample_repo: Path) -> None:
    proc = sleuth("serve", str(sample_repo), "--host", "0.0.0.0", "--port", str(free_port()))
    assert proc.returncode == 1
    assert proc.stderr.startswith("error:") and "--allow-remote" in proc.stderr
    assert "Traceback" not in proc.stderr


def same(results: list[dict], expected: list[dict]) -> bool:
    """The same hits in the same order, scores within 5%: the daemon's first index run
    changes no file and no generation, but BM25 scores can move a little after it
    (tantivy's document statistics), for in-process searches alike."""
    if len(results) != len(expected):
        return False
    for got, want in zip(results, expected, strict=True):
        if {**got, "score": 0} != {**want, "score": 0}:
            return False
        if got["score"] != pytest.approx(want["score"], rel=0.05):
            return False
    return True


def test_cli_uses_the_daemon_and_falls_back_when_it_is_gone(sample_repo: Path) -> None:
    Index(sample_repo).index(embed="none")
    search = ("search", "parse_config", str(sample_repo), "--json", "--no-refresh")
    in_process = sleuth(*search, "--no-daemon")
    assert in_process.returncode == 0, in_process.stderr
    expected = json.loads(in_process.stdout)["results"]
    assert expected[0]["path"] == "src/config/parser.py"
    with running_daemon(sample_repo, "--no-watch", "--embed", "none") as daemon:
        with daemon.client() as http:
            misses = http.get("/status").json()["caches"]["results"]["misses"]
        via_daemon = sleuth(*search)
        assert via_daemon.returncode == 0, via_daemon.stderr
        assert same(json.loads(via_daemon.stdout)["results"], expected)
        assert set(json.loads(via_daemon.stdout)) == set(json.loads(in_process.stdout))
        with daemon.client() as http:
            assert http.get("/status").json()["caches"]["results"]["misses"] == misses + 1
        # Answered by the daemon, the command loads neither the search stack nor FastAPI.
        probe = (
            "import sys\nfrom sleuth.cli import run\n"
            f"sys.argv = ['sleuth', 'search', 'parse_config', {str(sample_repo)!r}, '--json']\n"
            "try:\n    run()\nfinally:\n"
            "    heavy = {'sleuth.api', 'numpy', 'tantivy', 'fastapi', 'onnxruntime', 'httpx'}\n"
            "    print(sorted(heavy & set(sys.modules)), file=sys.stderr)\n"
        )
        light = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
        )
        assert same(json.loads(light.stdout)["results"], expected)
        assert light.stderr.strip().splitlines()[-1] == "[]", light.stderr
        human = sleuth("search", "parse_config", str(sample_repo))
        top = expected[0]
        assert human.returncode == 0
        assert human.stdout.startswith(f"{top['path']}:{top['start_line']}-{top['end_line']}")
        # A bad query is reported like in-process: one line, exit 1.
        bad = sleuth("search", "!!!", str(sample_repo))
        assert bad.returncode == 1 and bad.stderr.startswith("error:")
        assert "nothing searchable" in bad.stderr

        status = sleuth("serve", "--status", str(sample_repo))
        assert status.returncode == 0 and f"pid {daemon.process.pid}" in status.stdout
        stopped = sleuth("serve", "--stop", str(sample_repo))
        assert stopped.returncode == 0, stopped.stderr
        daemon.process.wait(30)
        assert not (sample_repo / ".sleuth" / "daemon.json").exists()
        assert not (sample_repo / ".sleuth" / "daemon.sock").exists()
    assert sleuth("serve", "--status", str(sample_repo)).returncode == 1
    assert sleuth("serve", "--stop", str(sample_repo)).returncode == 1
    after = sleuth(*search)
    assert after.returncode == 0 and same(json.loads(after.stdout)["results"], expected)

    # A daemon killed outright leaves its files; the CLI sees the dead pid and falls back.
    with running_daemon(sample_repo, "--no-watch", "--embed", "none") as daemon:
        os.kill(daemon.process.pid, signal.SIGKILL)
        daemon.process.wait(10)
        assert (sample_repo / ".sleuth" / "daemon.json").exists()
        dead = sleuth(*search)
        assert dead.returncode == 0 and same(json.loads(dead.stdout)["results"], expected)
    # A file naming a live process that does not listen: connection refused, fallback.
    info = {
        "pid": os.getpid(),
        "address": f"unix:{sample_repo / '.sleuth' / 'daemon.sock'}",
        "token_file": None,
        "repositories": [str(sample_repo)],
        "started": 0,
    }
    (sample_repo / ".sleuth" / "daemon.json").write_text(json.dumps(info))
    (sample_repo / ".sleuth" / "daemon.sock").unlink(missing_ok=True)
    orphan = sleuth(*search)
    assert orphan.returncode == 0 and same(json.loads(orphan.stdout)["results"], expected)
    # --stop never signals a process that is not the daemon; it drops the leftover file.
    assert sleuth("serve", "--stop", str(sample_repo)).returncode == 1
    assert not (sample_repo / ".sleuth" / "daemon.json").exists()
    (sample_repo / ".sleuth" / "daemon.json").write_text(json.dumps(info))
    # serve starts over such leftovers.
    with running_daemon(sample_repo, "--no-watch", "--embed", "none") as daemon:
        assert daemon.info["pid"] == daemon.process.pid


def test_several_repositories_and_a_second_daemon_is_refused(tmp_path: Path) -> None:
    first = write_tree(tmp_path / "alpha", {"billing.py": "def charge_card(amount):\n    pass\n"})
    second = write_tree(tmp_path / "beta", {"mailer.py": "def send_invoice(to):\n    pass\n"})
    for root in (first, second):
        git_init(root)
        Index(root).index(embed="none")
    with running_daemon(first, "--no-watch", "--embed", "none", extra=(second,)) as daemon:
        with daemon.client() as http:
            default = http.post("/search", json={"query": "charge_card"}).json()
            assert default["results"][0]["path"] == "billing.py"
            # no vectors, and none on their way (--embed none): not "embedding" forever
            assert default["index"]["state"] == "lexical"
            assert "none are being computed" in default["index"]["note"]
            named = http.post("/search", json={"query": "send_invoice", "repo": "beta"}).json()
            assert named["results"][0]["path"] == "mailer.py"
            by_path = http.post("/symbols", json={"name": "send_invoice", "repo": str(second)})
            assert by_path.json()["results"][0]["path"] == "mailer.py"
            assert http.get("/status", params={"repo": "beta"}).json()["root"] == str(second)
        # The second repository finds the daemon too.
        assert json.loads((second / ".sleuth" / "daemon.json").read_text())["pid"] == (
            daemon.process.pid
        )
        proc = sleuth("search", "send_invoice", str(second), "--json")
        assert json.loads(proc.stdout)["results"][0]["path"] == "mailer.py"
        again = sleuth("serve", str(second), "--embed", "none")
        assert again.returncode == 1 and "already serves" in again.stderr


def test_detach_starts_a_background_daemon(sample_repo: Path) -> None:
    Index(sample_repo).index(embed="none")
    started = sleuth("serve", str(sample_repo), "--detach", "--no-watch", "--embed", "none")
    assert started.returncode == 0, started.stderr
    info = json.loads((sample_repo / ".sleuth" / "daemon.json").read_text())
    try:
        assert f"daemon pid {info['pid']}" in started.stdout
        transport = httpx.HTTPTransport(uds=info["address"].removeprefix("unix:"))
        with httpx.Client(transport=transport, base_url="http://sleuth") as http:
            assert http.get("/health").json()["pid"] == info["pid"]
    finally:
        assert sleuth("serve", "--stop", str(sample_repo)).returncode == 0
    assert not (sample_repo / ".sleuth" / "daemon.json").exists()


def test_query_vectors_are_cached_per_model_and_text(embedded_repo: Path) -> None:
    from sleuth.embedding.cache import query_vectors

    index = Index(embedded_repo)
    text = "how are uploads retried after a connection error"
    first = index.search(text, k=3, mode="semantic")
    hits = query_vectors.hits
    second = index.search(text, k=3, mode="semantic")
    assert query_vectors.hits == hits + 1
    assert [r.to_dict() for r in second.results] == [r.to_dict() for r in first.results]
    other = Index(embedded_repo)  # the cache is the process's, not the instance's
    other.search(text, k=3, mode="semantic")
    assert query_vectors.hits == hits + 2


def test_mcp_uses_the_daemon_and_falls_back_when_it_stops(sample_repo: Path) -> None:
    from mcp import Client

    from .test_mcp import ok, server, session

    Index(sample_repo).index(embed="none")
    with running_daemon(sample_repo, "--no-watch", "--embed", "none") as daemon:

        def misses() -> int:
            with daemon.client() as http:
                return http.get("/status").json()["caches"]["results"]["misses"]

        async def body(client: Client) -> None:
            before = misses()
            reply = json.loads(await ok(client, "search", {"query": "retry_failed_upload"}))
            assert reply["hits"][0]["symbol"] == "retry_failed_upload"
            assert misses() == before + 1  # the daemon answered
            code = await ok(client, "expand", {"handles": [reply["hits"][0]["id"]]})
            assert " 5  def retry_failed_upload(" in code
            status = json.loads(await ok(client, "index_status", {}))
            assert status["watching"] is False and status["files"] == 6  # the daemon's fields
            failed = await client.call_tool("expand", {"handles": ["../../etc/passwd"]})
            assert failed.is_error and "outside the repository" in failed.content[0].text

            assert sleuth("serve", "--stop", str(sample_repo)).returncode == 0
            daemon.process.wait(30)
            alone = json.loads(await ok(client, "search", {"query": "retry_failed_upload"}))
            assert alone["hits"][0]["symbol"] == "retry_failed_upload"
            status = json.loads(await ok(client, "index_status", {}))
            assert "watching" not in status

        session(server(sample_repo, "--embed", "none"), body)


def test_mcp_through_the_daemon_finds_code_saved_just_before(sample_repo: Path) -> None:
    from mcp import Client

    from .test_mcp import ok, server, session

    Index(sample_repo).index(embed="none")
    target = sample_repo / "src" / "uploads" / "retry.py"
    original = target.read_text()
    with running_daemon(sample_repo, "--embed", "none"):

        async def body(client: Client) -> None:
            await ok(client, "search", {"query": "retry_failed_upload"})
            for turn in range(3):
                # saved and searched at once: the daemon's watcher has not seen it yet
                name = f"kangaroo_saved_{turn}"
                target.write_text(original + f"\n\ndef {name}():\n    return {turn}\n")
                reply = json.loads(await ok(client, "search", {"query": name, "k": 1}))
                assert reply["hits"][0]["symbol"] == name, reply
                assert reply["index"]["state"] != "stale", reply
                found = json.loads(await ok(client, "find_symbol", {"name": name}))
                assert found["hits"][0]["symbol"] == name, found

        session(server(sample_repo, "--embed", "none"), body)


def test_the_daemon_watches_by_default(sample_repo: Path) -> None:
    Index(sample_repo).index(embed="none")
    with (
        running_daemon(sample_repo, "--embed", "none") as daemon,
        daemon.client() as http,
    ):
        deadline = time.monotonic() + 30
        while not http.get("/status").json()["watching"]:
            assert time.monotonic() < deadline, daemon.output()
            time.sleep(0.2)
        time.sleep(1.0)  # the watch is in place once its catch-up run is done
        write_tree(
            sample_repo, {"src/archive.py": "def archive_old_invoices(days):\n    return days\n"}
        )
        query = {"query": "archive_old_invoices", "refresh": False}  # no stat check asked
        while True:
            found = http.post("/search", json=query).json()["results"]
            if found and found[0]["path"] == "src/archive.py":
                break
            assert time.monotonic() < deadline + 30, daemon.output()
            time.sleep(0.2)


def test_the_watcher_child_ends_with_the_daemon_even_after_a_kill(sample_repo: Path) -> None:
    """The watcher runs as a child process; a daemon killed outright must not leave it."""
    Index(sample_repo).index(embed="none")
    with running_daemon(sample_repo, "--embed", "none") as daemon, daemon.client() as http:
        deadline = time.monotonic() + 30
        while not (pid := http.get("/status").json()["watcher_pid"]):
            assert time.monotonic() < deadline, daemon.output()
            time.sleep(0.2)
        assert pid != daemon.process.pid
        os.kill(daemon.process.pid, signal.SIGKILL)
        daemon.process.wait(10)
        while _alive(pid):
            assert time.monotonic() < deadline + 30, "the watcher outlived its daemon"
            time.sleep(0.2)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by its new parent) counts as gone
    proc = Path(f"/proc/{pid}/stat")
    return not (proc.exists() and proc.read_text().split(")")[-1].split()[0] == "Z")


def test_a_folder_name_two_served_repositories_share_is_refused(tmp_path: Path) -> None:
    from sleuth.server.registry import Registry, ServedRepository, UnknownRepository

    roots = [write_tree(tmp_path / side / "app", {"a.py": "x = 1\n"}) for side in ("one", "two")]
    registry = Registry([ServedRepository(root, "none", watch=False) for root in roots])
    try:
        with pytest.raises(UnknownRepository, match="names 2 served repositories"):
            registry.get("app")
        assert registry.get(str(roots[1])).root == roots[1]
    finally:
        registry.close()
