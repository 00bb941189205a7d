/**
 * The Python guest of the container backends: `python3` in the Python sandbox image runs the shared
 * Python prelude (`run_snippet`, the `tools` module) behind a transport that speaks the node
 * guest's channel — one JSON message per line, host → guest on stdin, guest → host on stdout — so
 * the host side (`runGuestSession`, the gateway server, the output capture) is the same for both.
 *
 * Host → guest: `program` (this module's {@link pythonGuestProgram}, read by
 * {@link PYTHON_GUEST_LOADER}), `start` (`code`, `maxResultBytes`), then `response` / `error`
 * replies. Guest → host: gateway requests, `stdout` / `stderr` output, one `result` or `failed`
 * (a `GuestFailureReport`).
 */
import { readPythonPrelude } from '../../guest/python/source.js';
import { SANDBOX_PYTHON_PATH } from './python-image.js';

/**
 * `python3 -c` loader: reads the first stdin line, `{"type":"program","source":"..."}`, and runs
 * the source as the guest's main module. The guest then reads the rest of stdin through the same
 * buffered reader, so nothing the host sent early is lost.
 */
export const PYTHON_GUEST_LOADER = [
  'import sys, json',
  'm = json.loads(sys.stdin.buffer.readline())',
  'exec(compile(m["source"], "<toolexec-guest>", "exec"), {"__name__": "__toolexec_guest__", "__builtins__": __builtins__})',
].join('\n');

/**
 * The interpreter's flags: isolated mode (`-I`: no environment variables, no user site, no script
 * directory on the path), no `site` (`-S`: nothing outside the standard library), no bytecode
 * writes (`-B`: the root filesystem is read-only), UTF-8 mode (`-X utf8`: no locale files needed).
 */
export const PYTHON_GUEST_FLAGS: readonly string[] = Object.freeze(['-I', '-S', '-B', '-X', 'utf8']);

/** The container command of a Python run. */
export function pythonGuestCommand(pythonPath: string = SANDBOX_PYTHON_PATH): string[] {
  return [pythonPath, ...PYTHON_GUEST_FLAGS, '-c', PYTHON_GUEST_LOADER];
}

/**
 * The transport, run after `_PRELUDE_SOURCE` is defined. Every write to the host is one blocking
 * `os.write` of a whole line on fd 1 (ASCII JSON), so a snippet that prints in a loop is throttled
 * by the host reading the pipe and stopped by the output cap.
 */
const TRANSPORT = String.raw`
import io, json, os, re, sys, threading, types

_EXIT_HOST_GONE = 70
_EXIT_INPUT_CLOSED = 71
_CHUNK = 64 * 1024
_reader = sys.stdin.buffer
_finished = False
_failed_calls = []
# the largest message the host accepts (the start message says; the host's default until then)
_max_message_bytes = 8 * 1024 * 1024
# a snippet's threads may print and call tools at once: one line at a time, one call at a time
_write_lock = threading.Lock()
_call_lock = threading.Lock()


def _encode(message):
    return (json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n").encode("ascii")


def _send(message):
    _write(_encode(message))


def _write(data):
    view = memoryview(data)
    with _write_lock:
        while view:
            try:
                view = view[os.write(1, view):]
            except InterruptedError:
                continue
            except OSError:
                os._exit(_EXIT_HOST_GONE)


def _receive():
    while True:
        line = _reader.readline()
        if not line:
            os._exit(0 if _finished else _EXIT_INPUT_CLOSED)
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            return message


class _Capture(io.TextIOBase):
    """sys.stdout / sys.stderr of the snippet: each write becomes output messages."""

    def __init__(self, kind):
        self._kind = kind
        self.buffer = _BytesCapture(self)

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "replace"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not %s" % type(text).__name__)
        if _finished or not text:
            return len(text)
        for i in range(0, len(text), _CHUNK):
            _send({"type": self._kind, "data": text[i : i + _CHUNK]})
        return len(text)

    def flush(self):
        pass


class _BytesCapture(io.RawIOBase):
    def __init__(self, text):
        self._text = text

    def writable(self):
        return True

    def write(self, data):
        self._text.write(bytes(data).decode("utf-8", "replace"))
        return len(data)


def _call(type_, payload):
    """The prelude's transport: one gateway request, answered before the snippet goes on."""
    with _call_lock:
        _call.sent += 1
        request_id = str(_call.sent)
        message = {"type": type_, "id": request_id}
        if payload is not None:
            message["payload"] = payload
        data = _encode(message)
        size = len(data) - 1
        if size > _max_message_bytes:
            # refused here, as the node guest refuses it: a PROTOCOL error the snippet can catch,
            # never written to the channel (the host would take it for raw output)
            text = "runtime: protocol error: message of %d bytes exceeds the %d-byte limit" % (size, _max_message_bytes)
            details = {"bytes": size, "maxMessageBytes": _max_message_bytes}
            _failed_calls.append((request_id, "PROTOCOL", text))
            return {"type": "error", "id": request_id, "payload": {"error": text, "code": "PROTOCOL", "name": "ToolexecError", "details": details}}
        _write(data)
        while True:
            reply = _receive()
            if reply.get("id") == request_id and reply.get("type") in ("response", "error"):
                if reply["type"] == "error":
                    wire = reply.get("payload") if isinstance(reply.get("payload"), dict) else {}
                    _failed_calls.append((request_id, wire.get("code"), wire.get("error")))
                return reply


_call.sent = 0


def _finish(message):
    global _finished
    _finished = True
    _send(message)
    os._exit(0)


_FRAME = re.compile(r'^  File "<snippet>", (line \d+.*)$')
_LINE = re.compile(r'^  File "<snippet>", line (\d+)', re.M)


def _stack(error, header):
    """A traceback in the node guest's shape: the error line, then the snippet's frames."""
    text = error.get("traceback")
    if not isinstance(text, str) or not text:
        return None
    frames = []
    for line in text.splitlines():
        match = _FRAME.match(line)
        if match:
            frames.append('  File "toolexec-snippet.js", ' + match.group(1))
    return "\n".join([header] + frames)[:4096]


def _report(error):
    """The prelude's error as the node guest's failure report."""
    name = error.get("name") if isinstance(error.get("name"), str) and error.get("name") else "Error"
    message = error.get("message") if isinstance(error.get("message"), str) else ""
    if message.startswith(name + ": "):
        message = message[len(name) + 2 :]
    elif message == name:
        message = ""
    report = {"name": name, "message": message}
    if isinstance(error.get("code"), str):
        report["code"] = error["code"]
    if name in ("SyntaxError", "IndentationError", "TabError"):
        report["phase"] = "compile"
        report["message"] = re.sub(r" \(line \d+\)$", "", message)
    for key in ("line", "column"):
        if isinstance(error.get(key), int) and not isinstance(error.get(key), bool) and error[key] > 0:
            report[key] = error[key]
    if "line" not in report and isinstance(error.get("traceback"), str):
        # a ToolError's report has no line: the deepest frame of the snippet is where it was raised
        lines = [int(m.group(1)) for m in _LINE.finditer(error["traceback"])]
        if lines:
            report["line"] = lines[-1]
    # a limit says what the JavaScript sandbox says, whatever the exception's text (docs/limits.md)
    if name == "MemoryError":
        report["limit"] = "memory"
        report["message"] = "out of memory"
    elif name == "RecursionError":
        report["limit"] = "stack"
        report["message"] = "Maximum call stack size exceeded"
    if isinstance(error.get("code"), str):
        for request_id, code, text in reversed(_failed_calls):
            if code == error.get("code") and text == error.get("message"):
                report["requestId"] = request_id
                break
    stack = _stack(error, "%s: %s" % (name, report["message"]) if report["message"] else name)
    if stack is not None:
        report["stack"] = stack
    return report


def _main():
    prelude = types.ModuleType("toolexec_prelude")
    exec(compile(_PRELUDE_SOURCE, "<toolexec-prelude>", "exec"), prelude.__dict__)
    sys.stdin = io.StringIO("")
    sys.stdout = _Capture("stdout")
    sys.stderr = _Capture("stderr")
    while True:
        start = _receive()
        if start.get("type") == "start":
            break
    global _max_message_bytes
    if isinstance(start.get("maxMessageBytes"), int) and start["maxMessageBytes"] > 0:
        _max_message_bytes = start["maxMessageBytes"]
    code = start.get("code") if isinstance(start.get("code"), str) else ""
    limit = start.get("maxResultBytes")
    outcome = prelude.run_snippet(code, _call)
    if not outcome.get("ok"):
        _finish({"type": "failed", "error": _report(outcome.get("error") or {})})
    # no value (a statement last, or None) is no value; a value that converted to None (nan) is null
    if "value" not in outcome:
        _finish({"type": "result"})
    value = outcome["value"]
    try:
        text = json.dumps(value, allow_nan=False)
    except RecursionError:
        # nested deeper than the encoder's recursion goes: the stack limit, as the other guests say
        _finish({"type": "failed", "error": {"name": "RangeError", "message": "Maximum call stack size exceeded", "limit": "stack"}})
    except (TypeError, ValueError) as exc:
        _finish({"type": "failed", "error": {"name": "TypeError", "message": "the result is not JSON-serializable: %s" % exc}})
    if isinstance(limit, int) and len(text.encode("utf-8")) > limit:
        message = "the result is larger than %d bytes" % limit
        _finish({"type": "failed", "error": {"name": "RangeError", "message": message, "limit": "result"}})
    _finish({"type": "result", "value": value})


_main()
`;

/**
 * The guest program sent as the loader's first stdin line: the prelude's source as a string
 * literal (a JSON string is a valid Python string literal), then the transport.
 */
export function pythonGuestProgram(): string {
  return `_PRELUDE_SOURCE = ${JSON.stringify(readPythonPrelude())}\n${TRANSPORT}`;
}
