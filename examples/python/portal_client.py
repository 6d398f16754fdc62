#!/usr/bin/env python3
"""Portal integration client: the Python example of docs/integration.md.

A hospital system talks to the portal as a service account:

* its token comes from the OAuth 2.0 client-credentials grant (RFC 6749 §4.4)
  through requests-oauthlib, renewed a minute before it expires;
* its calls are gRPC through the portal's gateway, with stubs generated at run
  time by grpcio-tools from the portal's .proto files, the token sent as the
  `authorization` metadata;
* a refusal carries a stable reason (google.rpc.ErrorInfo in the status
  details) that a program branches on; RESOURCE_EXHAUSTED is retried after the
  delay the portal names; writes carry an idempotency key, so a retried write
  is done once.

Only PyPI packages (examples/python/requirements.txt). Commands:

    sync-staff FILE.json [--dry-run] [--full]     staff from HR (staff.write)
    records --after CURSOR [--limit N]            training records since a cursor (training.read)
    watch --after CURSOR [--max N --timeout S]    follow new training records (training.read)
    assign --course ID --department CODE ... --deadline YYYY-MM-DD   (training.assign)
    token                                         fetch a token, print its scope and lifetime

Settings: --url or PORTAL_URL (http://127.0.0.1:8080; --grpc-url or
PORTAL_GRPC_URL where gRPC has a host of its own, as behind the Kubernetes
ingress), --client-id or
PORTAL_CLIENT_ID, --client-secret or PORTAL_CLIENT_SECRET, --scope (space
separated; all the account's scopes when left out). Output: one JSON object per
line on stdout; diagnostics on stderr; exit 0 on success, 1 on a refusal or a
deviation, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pathlib
import shutil
import sys
import tempfile
import threading
import time
import uuid
from typing import Any, Callable, Iterator
from urllib.parse import urlparse

import grpc
import grpc_tools
import requests
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2
from grpc_tools import protoc
from oauthlib.oauth2 import BackendApplicationClient, OAuth2Error
from requests_oauthlib import OAuth2Session

# The portal's contracts, as the repository keeps them (an integrator keeps a
# copy of the release they build against, or reads them by reflection).
DEFAULT_PROTO_DIR = pathlib.Path(__file__).resolve().parents[2] / "proto"
PROTO_FILES = (
    "portal/auth/v1/auth.proto",
    "portal/education/v1/education.proto",
    "portal/wiki/v1/wiki.proto",
)
# A token is renewed this long before it expires (tokens live 5–15 minutes).
RENEW_BEFORE_SECONDS = 60
# A call retried after RESOURCE_EXHAUSTED or UNAVAILABLE at most this often.
MAX_TRIES = 5


class Refused(Exception):
    """The portal refused a call: the gRPC code, the stable reason, the message."""

    def __init__(self, code: grpc.StatusCode, reason: str | None, message: str):
        super().__init__(f"{code.name} {reason or '-'}: {message}")
        self.code = code
        self.reason = reason
        self.message = message


# --- Contracts: stubs generated at run time ---------------------------------


class Contracts:
    """The generated modules of the portal's protos (messages and stubs)."""

    def __init__(self, proto_dir: pathlib.Path):
        self._out = tempfile.mkdtemp(prefix="portal-stubs-")
        well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
        args = [
            "grpc_tools.protoc",
            f"-I{proto_dir}",
            f"-I{well_known}",
            f"--python_out={self._out}",
            f"--grpc_python_out={self._out}",
            *PROTO_FILES,
        ]
        if protoc.main(args) != 0:
            raise SystemExit(f"portal_client: protoc could not compile the protos in {proto_dir}")
        sys.path.insert(0, self._out)
        self.auth = importlib.import_module("portal.auth.v1.auth_pb2")
        self.auth_grpc = importlib.import_module("portal.auth.v1.auth_pb2_grpc")
        self.education = importlib.import_module("portal.education.v1.education_pb2")
        self.education_grpc = importlib.import_module("portal.education.v1.education_pb2_grpc")

    def close(self) -> None:
        shutil.rmtree(self._out, ignore_errors=True)


# --- Tokens: OAuth 2.0 client credentials -----------------------------------


class ClientCredentials:
    """Access tokens by the client-credentials grant, renewed before they expire."""

    def __init__(self, token_url: str, client_id: str, client_secret: str,
                 scope: list[str] | None, credentials_in_body: bool = False):
        self._token_url = token_url
        self._client_id = client_id
        self._client_secret = client_secret
        self._in_body = credentials_in_body
        self._scope = scope
        self._session = OAuth2Session(client=BackendApplicationClient(client_id=client_id))
        self._token: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def token(self, renew: bool = False) -> dict[str, Any]:
        """The current token (a dict of RFC 6749 §5.1 plus `expires_at`)."""
        with self._lock:
            due = self._token is None or self._token["expires_at"] - time.time() < RENEW_BEFORE_SECONDS
            if renew or due:
                # HTTP Basic by default; the body form when asked (both are RFC 6749 §2.3.1).
                self._token = self._session.fetch_token(
                    token_url=self._token_url,
                    client_id=self._client_id,
                    client_secret=self._client_secret,
                    include_client_id=True if self._in_body else None,
                    scope=self._scope,  # None: every scope the account is granted
                    timeout=10,
                )
            assert self._token is not None
            return self._token

    def bearer(self) -> str:
        return f"Bearer {self.token()['access_token']}"


# --- Calls -------------------------------------------------------------------


def refusal(error: grpc.RpcError) -> Refused:
    """Reads a failed call's code, reason and message."""
    code = error.code()
    message = error.details() or ""
    reason = None
    trailers = dict(error.trailing_metadata() or ())
    details = trailers.get("grpc-status-details-bin")
    if details:
        status = status_pb2.Status.FromString(details)
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = info.reason
    return Refused(code, reason or trailers.get("portal-reason"), message)


def retry_delay(error: grpc.RpcError) -> float:
    """How long the portal asked a refused caller to wait (RetryInfo, else `retry-after`)."""
    trailers = dict(error.trailing_metadata() or ())
    details = trailers.get("grpc-status-details-bin")
    if details:
        for detail in status_pb2.Status.FromString(details).details:
            if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                info = error_details_pb2.RetryInfo()
                detail.Unpack(info)
                return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    try:
        return float(trailers.get("retry-after", "1"))
    except ValueError:
        return 1.0


class Portal:
    """The portal's integration RPCs, over one gRPC channel to the gateway."""

    def __init__(self, url: str, credentials: ClientCredentials, contracts: Contracts):
        target = urlparse(url)
        port = target.port or (443 if target.scheme == "https" else 80)
        address = f"{target.hostname}:{port}"
        if target.scheme == "https":
            self._channel = grpc.secure_channel(address, grpc.ssl_channel_credentials())
        else:
            self._channel = grpc.insecure_channel(address)
        self._credentials = credentials
        self.pb = contracts
        self.auth = contracts.auth_grpc.AuthServiceStub(self._channel)
        self.education = contracts.education_grpc.EducationServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def metadata(self, idempotency_key: str | None = None) -> list[tuple[str, str]]:
        metadata = [("authorization", self._credentials.bearer())]
        if idempotency_key:
            metadata.append(("idempotency-key", idempotency_key))
        return metadata

    def call(self, rpc: Callable, request: Any, write: bool = False, timeout: float = 120) -> Any:
        """One unary call: a write carries one idempotency key over all its tries;
        RESOURCE_EXHAUSTED waits the delay the portal names, UNAVAILABLE and a
        first try still running (IDEMPOTENCY_KEY_IN_PROGRESS) a moment;
        UNAUTHENTICATED renews the token once (it may have been revoked early)."""
        key = str(uuid.uuid4()) if write else None
        renewed = False
        for attempt in range(1, MAX_TRIES + 1):
            try:
                return rpc(request, metadata=self.metadata(key), timeout=timeout)
            except grpc.RpcError as error:
                code = error.code()
                if code == grpc.StatusCode.RESOURCE_EXHAUSTED and attempt < MAX_TRIES:
                    delay = retry_delay(error)
                    log(f"rate limited; retrying in {delay:.1f} s")
                    time.sleep(delay)
                elif attempt < MAX_TRIES and (
                        code == grpc.StatusCode.UNAVAILABLE
                        or refusal(error).reason == "IDEMPOTENCY_KEY_IN_PROGRESS"):
                    time.sleep(0.5 * attempt)
                elif code == grpc.StatusCode.UNAUTHENTICATED and not renewed:
                    self._credentials.token(renew=True)
                    renewed = True
                else:
                    raise refusal(error) from None
        raise AssertionError("unreachable")

    # staff.write
    def sync_staff(self, batch: dict[str, Any]) -> Any:
        request = json_format.ParseDict(batch, self.pb.auth.SyncStaffRequest())
        return self.call(self.auth.SyncStaff, request, write=True)

    # training.assign
    def assign_course(self, course_id: int, departments: list[str], employees: list[str],
                      deadline: str) -> Any:
        request = self.pb.education.AssignCourseRequest(
            course_id=course_id, department_codes=departments,
            employee_numbers=employees, date_deadline=deadline)
        return self.call(self.education.AssignCourse, request, write=True)

    # training.read
    def records(self, after: int, limit: int) -> Iterator[tuple[Any, int]]:
        """Every record after the cursor, page by page: (record, its cursor).
        A page shorter than the limit is the last one recorded yet."""
        cursor = after
        while True:
            request = self.pb.education.ListTrainingRecordsRequest(after=cursor, limit=limit)
            page = self.call(self.education.ListTrainingRecords, request)
            for record in page.records:
                yield record, record.seq
            cursor = page.next
            if len(page.records) < limit:
                return

    def watch(self, after: int, deadline: float) -> Iterator[tuple[Any, int]]:
        """New records as they are made, from the cursor on. A broken stream (the
        network, a restart, the token's end) is resumed from the last cursor
        received, so nothing is missed and nothing comes twice."""
        cursor = after
        failures = 0
        while time.time() < deadline:
            request = self.pb.education.WatchTrainingRecordsRequest(after=cursor)
            stream = self.education.WatchTrainingRecords(
                request, metadata=self.metadata(), timeout=max(0.1, deadline - time.time()))
            try:
                stream.initial_metadata()  # answered: open, or already refused
                if not stream.done():
                    log(f"watching after cursor {cursor}")
                for message in stream:
                    failures = 0
                    for record in message.records:
                        yield record, record.seq
                    cursor = message.next
                failures += 1  # the server ended the stream (it shuts down): follow on
            except grpc.RpcError as error:
                code = error.code()
                if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                    return
                if code == grpc.StatusCode.UNAUTHENTICATED:
                    # The token ended (the stream lives no longer than it): a fresh one.
                    self._credentials.token(renew=True)
                elif code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED,
                                  grpc.StatusCode.CANCELLED):
                    raise refusal(error) from None
                failures += 1
                log(f"watch: stream broke ({code.name}); resuming after cursor {cursor}")
            finally:
                stream.cancel()
            time.sleep(min(5.0, 0.2 * failures))


# --- Command line ------------------------------------------------------------


def log(message: str) -> None:
    print(f"portal_client: {message}", file=sys.stderr, flush=True)


def emit(value: dict[str, Any]) -> None:
    print(json.dumps(value, ensure_ascii=False), flush=True)


def as_json(message: Any) -> dict[str, Any]:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def cmd_token(portal: Portal, credentials: ClientCredentials, args: argparse.Namespace) -> int:
    token = credentials.token()
    emit({"tokenType": token["token_type"], "scope": " ".join(token.get("scope", [])),
          "expiresIn": token["expires_in"]})
    return 0


def cmd_sync_staff(portal: Portal, credentials: ClientCredentials, args: argparse.Namespace) -> int:
    with open(args.file, encoding="utf-8") as file:
        batch = json.load(file)
    if args.dry_run:
        batch["dryRun"] = True
    if args.full:
        batch["full"] = True
    started = time.monotonic()
    reply = portal.sync_staff(batch)
    seconds = round(time.monotonic() - started, 3)
    # The counts; the per-row lists (every person created or changed) only counted.
    result = {key: value for key, value in as_json(reply).items()
              if key not in ("people", "departments", "positions")}
    result.update(sent=len(batch.get("people", [])), seconds=seconds)
    emit(result)
    if reply.errors:
        log(f"{len(reply.errors)} rows refused (the rest applied): see `errors`")
    return 0


def cmd_records(portal: Portal, credentials: ClientCredentials, args: argparse.Namespace) -> int:
    cursor = args.after
    count = 0
    for record, cursor in portal.records(args.after, args.limit):
        emit({"record": as_json(record)})
        count += 1
    emit({"count": count, "next": cursor})
    return 0


def cmd_watch(portal: Portal, credentials: ClientCredentials, args: argparse.Namespace) -> int:
    deadline = time.time() + args.timeout
    count = 0
    for record, _cursor in portal.watch(args.after, deadline):
        emit({"receivedAt": time.time(), "record": as_json(record)})
        count += 1
        if args.max and count >= args.max:
            return 0
    if args.max:
        log(f"watch: {count} of {args.max} records within {args.timeout} s")
        return 1
    return 0


def cmd_assign(portal: Portal, credentials: ClientCredentials, args: argparse.Namespace) -> int:
    reply = portal.assign_course(args.course, args.department or [], args.employee or [], args.deadline)
    emit(as_json(reply))
    return 0


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    main.add_argument("--url", default=os.environ.get("PORTAL_URL", "http://127.0.0.1:8080"),
                      help="the portal (REST and the token endpoint)")
    main.add_argument("--grpc-url", default=os.environ.get("PORTAL_GRPC_URL"),
                      help="gRPC's own address where it has one; else --url")
    main.add_argument("--client-id", default=os.environ.get("PORTAL_CLIENT_ID"))
    main.add_argument("--client-secret", default=os.environ.get("PORTAL_CLIENT_SECRET"))
    main.add_argument("--scope", help="space-separated scopes; the account's own when left out")
    main.add_argument("--credentials-in-body", action="store_true",
                      help="send client_id/client_secret in the form body, not HTTP Basic")
    main.add_argument("--proto-dir", type=pathlib.Path, default=DEFAULT_PROTO_DIR)
    commands = main.add_subparsers(dest="command", required=True)

    commands.add_parser("token", help="fetch a token; print its scope and lifetime")

    sync = commands.add_parser("sync-staff", help="upsert departments, positions and people from HR")
    sync.add_argument("file", help="JSON in the shape of POST /api/integration/sync-staff")
    sync.add_argument("--dry-run", action="store_true", help="answer the diff, write nothing")
    sync.add_argument("--full", action="store_true", help="block HR people missing from the file")

    records = commands.add_parser("records", help="training records since a cursor")
    records.add_argument("--after", type=int, default=0)
    records.add_argument("--limit", type=int, default=500)

    watch = commands.add_parser("watch", help="follow new training records")
    watch.add_argument("--after", type=int, default=0)
    watch.add_argument("--max", type=int, default=0, help="stop after this many records")
    watch.add_argument("--timeout", type=float, default=3600, help="stop after this many seconds")

    assign = commands.add_parser("assign", help="assign a course to departments or people")
    assign.add_argument("--course", type=int, required=True)
    assign.add_argument("--department", action="append", help="HR department code (repeatable)")
    assign.add_argument("--employee", action="append", help="HR employee number (repeatable)")
    assign.add_argument("--deadline", required=True, help="YYYY-MM-DD")
    return main


COMMANDS = {"token": cmd_token, "sync-staff": cmd_sync_staff, "records": cmd_records,
            "watch": cmd_watch, "assign": cmd_assign}


def main() -> int:
    args = parser().parse_args()
    if not args.client_id or not args.client_secret:
        log("--client-id and --client-secret (or PORTAL_CLIENT_ID, PORTAL_CLIENT_SECRET) are needed")
        return 2
    if urlparse(args.url).hostname in ("127.0.0.1", "localhost", "::1"):
        # oauthlib insists on https; plain http is allowed for the loopback only.
        os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"
    credentials = ClientCredentials(f"{args.url.rstrip('/')}/api/oauth/token", args.client_id,
                                    args.client_secret, args.scope.split() if args.scope else None,
                                    args.credentials_in_body)
    contracts = Contracts(args.proto_dir)
    portal = Portal(args.grpc_url or args.url, credentials, contracts)
    try:
        return COMMANDS[args.command](portal, credentials, args)
    except OAuth2Error as error:
        log(f"token refused: {error.error} (HTTP {error.status_code}): {error.description}")
        return 1
    except requests.RequestException as error:
        log(f"token endpoint not reached: {error}")
        return 1
    except Refused as refused:
        log(f"refused: {refused}")
        return 1
    finally:
        portal.close()
        contracts.close()


if __name__ == "__main__":
    sys.exit(main())
