# Runs once, before the memory snapshot is taken: everything defined here is already in memory
# when a worker boots. Defines the `skilldesk` host module (alias `inklings`, the design's name)
# and the runner that executes one program in fresh globals and reports the outcome as JSON.
import base64
import json
import os
import random
import sys
import traceback
import types

# Bound now, so a program that replaces json/os functions cannot break its own report or the bridge.
_dumps = json.dumps
_loads = json.loads
_os_open, _os_read, _os_write, _os_close, _O_RDWR = os.open, os.read, os.write, os.close, os.O_RDWR
_format_exception = traceback.format_exception
_reseed = random.seed
_b64encode, _b64decode = base64.b64encode, base64.b64decode
_JOB_DEVICE = "/dev/skilldesk-job"

# Nothing of the host reaches the sandbox: the environment, the executable and the argument list
# are synthetic (Emscripten fills them from the Node process that built this snapshot: its script
# path, for one). Done before the snapshot, so every worker starts with them.
_SYNTHETIC_ENV = {
    "HOME": "/home/pyodide",
    "LANG": "C.UTF-8",
    "LOGNAME": "sandbox",
    "PATH": "/usr/bin:/bin",
    "PWD": "/home/pyodide",
    "USER": "sandbox",
}
os.environ.clear()
os.environ.update(_SYNTHETIC_ENV)
sys.executable = ""
sys._base_executable = ""
sys.argv = [""]
try:
    sys.orig_argv = [""]
except (AttributeError, TypeError):
    pass


class SkillDeskError(Exception):
    """A host function refused the call or failed; `code` is the app's error code."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = _os_write(fd, view)
        view = view[n:]


def _read_all(fd):
    chunks = []
    while True:
        chunk = _os_read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _call(fn, *args):
    request = _dumps({"fn": fn, "args": list(args)}, allow_nan=False).encode("utf-8")
    fd = _os_open("/dev/skilldesk", _O_RDWR)
    try:
        _write_all(fd, request)
        answer = _read_all(fd)
    finally:
        _os_close(fd)
    reply = _loads(answer.decode("utf-8"))
    if reply.get("ok"):
        return reply.get("value")
    error = reply.get("error") or {}
    if error.get("code") == "CANCELLED":
        raise KeyboardInterrupt("interrupted")
    raise SkillDeskError(error.get("code", "INTERNAL"), error.get("message", "host call failed"))


def workspace_search(query, limit=10):
    """Full-text search over the workspace pages: [{slug, title, type, tags, snippet, score}]."""
    return _call("workspace_search", query, limit)


def get_page(slug):
    """One page by slug or path: {slug, path, title, type, tags, body, links, updated_at} or None."""
    return _call("get_page", slug)


def get_pages(slugs):
    """Several pages by slug, in order (missing ones are left out)."""
    return _call("get_pages", list(slugs))


def get_pages_by_type(page_type, limit=100):
    """Summaries of the pages whose frontmatter `type` is `page_type`."""
    return _call("get_pages_by_type", page_type, limit)


def get_tags(slug=None):
    """All tags with counts, or one page's tags when `slug` is given."""
    return _call("get_tags", slug)


def get_references(slug):
    """{outgoing: [...], incoming: [...]} [[links]] of a page."""
    return _call("get_references", slug)


def get_history(slug, limit=20):
    """The page's revisions, newest first: [{revision, title, size, hash, created_at}]."""
    return _call("get_history", slug, limit)


def llm_query(prompt, model=None):
    """Ask the configured model; returns its text."""
    return _call("llm_query", prompt, model)


def llm_query_batched(prompts, model=None):
    """Ask several prompts; returns the texts in the same order."""
    return _call("llm_query_batched", list(prompts), model)


def http_request(method, url, headers=None, body=None):
    """Make an HTTP(S) request through the app, to a host the user granted this skill only:
    {status, reason, url, headers: [[name, value]], body: bytes}. Redirects are followed (each hop
    granted too); refusals raise SkillDeskError naming the host and the setting to change."""
    if body is not None and not isinstance(body, (bytes, bytearray)):
        raise TypeError("http_request: body must be bytes")
    reply = _call(
        "http_request",
        str(method),
        str(url),
        {str(k): str(v) for k, v in dict(headers or {}).items()},
        _b64encode(bytes(body)).decode("ascii") if body else None,
    )
    reply["body"] = _b64decode(reply.get("body") or "")
    return reply


def checkpoint(data):
    """Record progress (a JSON-compatible value) in the run's trace."""
    return _call("checkpoint", data)


def submit(value):
    """Hand back the run's structured result. The first submit wins; returns False after that."""
    return _call("submit", value)


_mod = types.ModuleType("skilldesk", "The SkillDesk host functions: the only way out of the sandbox.")
for _name in (
    "SkillDeskError",
    "workspace_search",
    "get_page",
    "get_pages",
    "get_pages_by_type",
    "get_tags",
    "get_references",
    "get_history",
    "llm_query",
    "llm_query_batched",
    "http_request",
    "checkpoint",
    "submit",
):
    setattr(_mod, _name, globals()[_name])
_mod.search = workspace_search
sys.modules["skilldesk"] = _mod
sys.modules["inklings"] = _mod


def _route_urllib():
    """urllib.request's HTTP(S) handlers become http_request: `urlopen` and `build_opener` reach
    the network only as the app allows it (the sandbox has no sockets), so ordinary scripts run
    unchanged. A refusal is a URLError whose reason names the host and the setting."""
    import email.message
    import io
    import urllib.error
    import urllib.request
    import urllib.response

    class _AppHandler(urllib.request.BaseHandler):
        handler_order = 400

        def _open(self, req):
            data = req.data
            if data is not None and not isinstance(data, (bytes, bytearray)):
                data = b"".join(bytes(chunk) for chunk in data)
            try:
                r = http_request(req.get_method(), req.full_url, dict(req.header_items()), data)
            except SkillDeskError as e:
                raise urllib.error.URLError(str(e)) from None
            headers = email.message.Message()
            for name, value in r["headers"]:
                headers[name] = value
            resp = urllib.response.addinfourl(io.BytesIO(r["body"]), headers, r["url"], r["status"])
            resp.msg = resp.reason = r["reason"]
            return resp

        def http_open(self, req):
            return self._open(req)

        def https_open(self, req):
            return self._open(req)

    class HTTPHandler(_AppHandler):
        pass

    class HTTPSHandler(_AppHandler):
        pass

    urllib.request.HTTPHandler = HTTPHandler
    urllib.request.HTTPSHandler = HTTPSHandler
    urllib.request._opener = None


_route_urllib()
del _route_urllib


def _route_http_client():
    """http.client's HTTPConnection and HTTPSConnection become http_request too: scripts that use
    them directly (and libraries built on them) reach granted hosts only, through the app. The
    request is buffered and made at getresponse(); the reply is parsed by the real HTTPResponse so
    status, headers and read() behave as usual. A refusal is a ConnectionRefusedError (an OSError,
    what a failed connection raises) naming the host and the setting."""
    import http.client
    import io

    class _Wire:
        # What HTTPResponse reads from: the reply, already complete, as HTTP/1.1 bytes.
        def __init__(self, data):
            self._data = data

        def makefile(self, *_args, **_kwargs):
            return io.BytesIO(self._data)

        def close(self):
            pass

    class HTTPConnection(http.client.HTTPConnection):
        _scheme = "http"

        def __init__(self, host, port=None, timeout=None, source_address=None, blocksize=8192, **_kwargs):
            super().__init__(host, port, timeout, source_address, blocksize)
            self._pending = None

        def connect(self):
            # No socket: the app connects when the request is made.
            pass

        def set_tunnel(self, host, port=None, headers=None):
            raise http.client.HTTPException("proxies and tunnels are not available in the sandbox")

        def putrequest(self, method, url, skip_host=False, skip_accept_encoding=False):
            if self._pending is not None and self._pending.get("sent"):
                raise http.client.CannotSendRequest("read the previous response first")
            self._pending = {"method": method, "url": url, "headers": {}, "body": [], "sent": False}

        def putheader(self, header, *values):
            if self._pending is None:
                raise http.client.CannotSendHeader()
            name = header.decode("latin-1") if isinstance(header, bytes) else str(header)
            vals = [v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in values]
            self._pending["headers"][name] = ", ".join(vals)

        def endheaders(self, message_body=None, *, encode_chunked=False):
            if self._pending is None:
                raise http.client.CannotSendHeader()
            self._pending["sent"] = True
            if message_body is not None:
                self.send(message_body)

        def send(self, data):
            if self._pending is None:
                raise http.client.CannotSendRequest()
            if isinstance(data, str):
                data = data.encode("iso-8859-1")
            if hasattr(data, "read"):
                chunk = data.read()
                data = chunk.encode("iso-8859-1") if isinstance(chunk, str) else chunk
            if isinstance(data, (bytes, bytearray, memoryview)):
                self._pending["body"].append(bytes(data))
            else:
                for chunk in data:
                    self._pending["body"].append(chunk.encode("iso-8859-1") if isinstance(chunk, str) else bytes(chunk))

        def _full_url(self, target):
            if target.startswith(("http://", "https://")):
                return target
            host = f"[{self.host}]" if ":" in self.host else self.host
            port = "" if self.port == self.default_port else f":{self.port}"
            return f"{self._scheme}://{host}{port}{target if target.startswith('/') else '/' + target}"

        def getresponse(self):
            p = self._pending
            if p is None or not p["sent"]:
                raise http.client.ResponseNotReady("send a request first")
            self._pending = None
            body = b"".join(p["body"])
            headers = {k: v for k, v in p["headers"].items() if k.lower() not in ("host", "content-length")}
            try:
                r = http_request(p["method"], self._full_url(p["url"]), headers, body or None)
            except SkillDeskError as e:
                raise ConnectionRefusedError(str(e)) from None
            lines = [f"HTTP/1.1 {r['status']} {r['reason'] or 'Unknown'}"]
            for name, value in r["headers"]:
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    lines.append(f"{name}: {value}")
            lines.append(f"Content-Length: {len(r['body'])}")
            raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + r["body"]
            resp = self.response_class(_Wire(raw), method=p["method"])
            resp.begin()
            return resp

    class HTTPSConnection(HTTPConnection):
        _scheme = "https"
        default_port = http.client.HTTPS_PORT

    http.client.HTTPConnection = HTTPConnection
    http.client.HTTPSConnection = HTTPSConnection
    if "HTTPSConnection" not in http.client.__all__:
        http.client.__all__.append("HTTPSConnection")


_route_http_client()
del _route_http_client


def _device_read(path):
    fd = _os_open(path, _O_RDWR)
    try:
        return _read_all(fd)
    finally:
        _os_close(fd)


def _device_write(path, data):
    fd = _os_open(path, _O_RDWR)
    try:
        _write_all(fd, data)
    finally:
        _os_close(fd)


def _flush_streams():
    # Output without a final newline sits in the text layer's buffer until flushed.
    for stream in (getattr(sys, "stdout", None), getattr(sys, "stderr", None), sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a replaced or closed stream is the program's business
            pass


class _Runner:
    @staticmethod
    def run_job():
        """Entry point of every job (worker.mjs calls it through PyRun_SimpleString): read the job from
        the job device, run it, write the report back to the device."""
        job = _loads(_device_read(_JOB_DEVICE).decode("utf-8"))
        report = _Runner.run(job["code"], job["recursion_limit"])
        _device_write(_JOB_DEVICE, report.encode("utf-8"))

    @staticmethod
    def run(code, recursion_limit):
        sys.setrecursionlimit(int(recursion_limit))
        # The snapshot froze the generator's state: each run draws fresh entropy from the OS.
        _reseed()
        scope = {"__name__": "__main__", "__builtins__": __builtins__}
        try:
            try:
                compiled = compile(code, "<code_template>", "exec")
                exec(compiled, scope)
            finally:
                _flush_streams()
        except SystemExit as e:
            if e.code in (None, 0):
                return _dumps({"ok": True})
            return _dumps({"ok": False, "error": {"type": "SystemExit", "message": str(e.code)}})
        except BaseException as e:  # noqa: BLE001 - everything is reported as data
            try:
                tb = "".join(_format_exception(type(e), e, e.__traceback__.tb_next))
            except BaseException:  # noqa: BLE001
                tb = ""
            try:
                message = str(e)
            except BaseException:  # noqa: BLE001
                message = "<unprintable>"
            return _dumps(
                {
                    "ok": False,
                    "error": {
                        "type": type(e).__name__ if isinstance(type(e).__name__, str) else "Exception",
                        "message": message[:4000],
                        "traceback": tb[-8000:],
                        "code": getattr(e, "code", None) if isinstance(e, SkillDeskError) else None,
                    },
                }
            )
        return _dumps({"ok": True})


sys.modules["_skilldesk_runner"] = _Runner
_skilldesk_runner = _Runner
del _name, _mod



def _is_jsproxy(o):
    try:
        return type(type(o)).__name__ == "_JsProxyMetaClass"
    except BaseException:  # noqa: BLE001
        return False


def _skilldesk_lockdown(removed_builtins):
    """Cut every Python-side path to JavaScript, in each worker after Pyodide's bootstrap (the
    snapshot needs them alive): the import system's JS finder and loaders, module globals holding
    JS objects (webloop's scheduler, the package loader's table), the `js`/`pyodide_js` modules.
    The escape suite walks the whole object graph from user code to prove none is left."""
    for finder in [f for f in sys.meta_path if type(f).__name__ == "JsFinder"]:
        finder.__dict__.clear()
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "JsFinder"]
    for name in list(sys.modules):
        module = sys.modules.get(name)
        if name in ("js", "pyodide_js") or name.startswith(("js.", "pyodide_js.")) or _is_jsproxy(module):
            spec = getattr(module, "__spec__", None)
            loader = getattr(spec, "loader", None)
            if loader is not None and type(loader).__name__ == "JsLoader":
                loader.__dict__.clear()
            del sys.modules[name]
            continue
        d = getattr(module, "__dict__", None)
        if isinstance(d, dict):
            for k in [k for k, v in d.items() if _is_jsproxy(v)]:
                del d[k]
    # Pyodide's boot from the snapshot sets variables of its own (LD_LIBRARY_PATH): back to the
    # synthetic environment.
    for key in [k for k in os.environ if _SYNTHETIC_ENV.get(k) != os.environ[k]]:
        del os.environ[key]
    os.environ.update(_SYNTHETIC_ENV)
    # The names worker.mjs took out of CPython's table of built-ins before the snapshot.
    for name in removed_builtins:
        sys.modules.pop(name, None)
    sys.builtin_module_names = tuple(n for n in sys.builtin_module_names if n not in removed_builtins)


sys.modules["_skilldesk_lockdown"] = _skilldesk_lockdown
