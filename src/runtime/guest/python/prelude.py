"""The toolexec Python prelude: what every Python sandbox evaluates before it runs snippets.

Plain CPython 3.11+ / Pyodide code with no third-party imports. A transport (the Pyodide child
process, the Docker guest) loads this file once and calls ``run_snippet(code, call)`` per run, where
``call(type, payload) -> dict`` sends one gateway request (a type of the gateway codec's
GATEWAY_REQUEST_TYPES, with the payload shapes the JavaScript guests send), blocks, and returns
the reply: ``{"type": "response", "payload": ...}`` or ``{"type": "error", "payload": WireError}``.

Output (``print``) is captured by the transport, not here.

Fresh state per run: each run gets a new globals dict and a new ``tools`` module. The first run
takes a baseline of the interpreter (``sys.modules`` and every module's namespace); after each run,
every module the snippet imported that was not loaded at the baseline is removed
from ``sys.modules``, the namespace (``__dict__``) of every module that was loaded then is put
back as it was at the baseline (names added, rebound or deleted by the snippet: ``json.dumps = f``,
``builtins.x = 1``; the snippet's globals are a fresh ``__main__`` module, and the transport's
``__main__`` is put back), and ``sys.path``, ``sys.argv``, the standard streams' names,
``sys.meta_path``/``sys.path_hooks`` and ``os.environ`` are restored. What is not reset: a change
made *inside* an object that a module holds (an attribute set on a stdlib class, an item appended
to a module-level list). A transport that must exclude even that runs each snippet in a new interpreter. Fresh state is
about what a snippet leaves behind by accident, not a wall between runs: a snippet that walks the
frames or the garbage collector can reach the transport's objects.

The value: ``run_snippet`` reports no value when the snippet ends with a statement or its last
expression is None (as a JavaScript snippet that returns ``undefined``); any other value is
converted, so ``nan`` is a value, null (as JavaScript's ``NaN``).

Value conversion (``to_json_safe``): dict (keys become strings), list, str, int, float, bool and
None pass through; tuples, sets and frozensets become lists (sets sorted when they can be);
bytes, bytearray and memoryview become a list of ints; non-finite floats become None; objects
with a ``__dict__`` or anything else become their ``repr()``. Values are walked without recursion,
so a value of any depth converts. What has no exact JSON form is refused, never changed (as
``JSON.stringify`` refuses a cycle or a BigInt): a container that contains itself, an int beyond
+/-(2**53 - 1) (a JSON number loses its last digits). A tool call with one raises ``ToolError``
``INVALID_ARGUMENT``, a snippet value with one fails the run (``TypeError``). Depth is limited where
JavaScript snippets meet the limit, on the host: a tool call's arguments nested deeper than
``MAX_VALUE_DEPTH`` (512) levels come back as the host's ``INVALID_ARGUMENT``; a value is never cut.
"""

import ast
import builtins
import itertools
import math
import os
import sys
import traceback
import types

__all__ = ["CircularReference", "NotJsonSafe", "ToolError", "UnsafeInteger", "run_snippet", "to_json_safe"]

# The deepest nesting of dicts and lists the host takes in a tool call's arguments: MAX_VALUE_DEPTH of
# src/runtime/core/errors.ts (test/runtime/backends/python/prelude.test.ts keeps the two equal).
MAX_VALUE_DEPTH = 512
# the largest int a JSON number (an IEEE double) holds exactly: JavaScript's Number.MAX_SAFE_INTEGER
MAX_SAFE_INTEGER = 2**53 - 1
SNIPPET_FILENAME = "<snippet>"
CODE_EXECUTION = "CODE_EXECUTION"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
UNKNOWN_ERROR = "unknown error"


class ToolError(Exception):
    """A failed tool call: ``code`` is the library's error code (``TOOL_NOT_FOUND``, ``VALIDATION``,
    ``LIMIT_EXCEEDED``, ...), ``message`` its message, ``details`` a dict or None."""

    def __init__(self, code, message, details=None, name=None, tool_id=None, steps=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.name = name or "ToolError"
        self.tool_id = tool_id
        self.steps = steps

    def __str__(self):
        return "%s: %s" % (self.code, self.message) if self.code else str(self.message)


# ---- JSON-safe values ----


class NotJsonSafe(ValueError):
    """A value that has no exact JSON form."""


class CircularReference(NotJsonSafe):
    """A container that contains itself."""

    def __init__(self):
        super().__init__("circular reference")


class UnsafeInteger(NotJsonSafe):
    """An int beyond +/-``MAX_SAFE_INTEGER``: a JSON number would round it (as ``JSON.stringify`` refuses a BigInt)."""

    def __init__(self, value, place=""):
        text = str(value) if value.bit_length() <= 256 else "of %d bits" % value.bit_length()
        where = " at %s" % place if place else ""
        super().__init__("the int %s%s is too large for a JSON number (over 2**53 - 1 either side of 0); pass it as a str" % (text, where))
        self.value = value

    def at(self, place):
        return UnsafeInteger(self.value, place)


_CONTAINER = object()
# values that are their own JSON form (exact types: a subclass goes through ``_leaf``); ints are
# checked against ``MAX_SAFE_INTEGER`` on the way
_PLAIN = frozenset((str, bool, type(None)))


def _leaf(value):
    """The JSON form of ``value`` when it is not a container (dict, list, tuple, set), else ``_CONTAINER``."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        value = int(value)
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return value
        raise UnsafeInteger(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return list(bytes(value))
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        return _CONTAINER
    try:
        return repr(value)
    except BaseException:  # a __repr__ that fails still gives a value
        return "<%s>" % type(value).__name__


def _open(container):
    """An empty copy of ``container`` and an iterator of what it holds: ``(key, item)`` pairs of a dict,
    the items of anything else."""
    if isinstance(container, dict):
        return {}, iter(container.items())
    items = container
    if isinstance(container, (set, frozenset)):
        try:
            items = sorted(container)
        except TypeError:
            items = list(container)
    return [], iter(items)


def _enter(item, levels, path, max_levels):
    """A container ``item`` met below ``levels`` levels: its empty copy and its iterator, or
    ``"[Truncated]"`` and None when ``max_levels`` cuts it there."""
    if id(item) in path:
        raise CircularReference()
    if max_levels is not None and levels >= max_levels:
        return "[Truncated]", None
    return _open(item)


def to_json_safe(value, max_levels=None):
    """``value`` as JSON-safe data (see the module doc), walked without recursion, so a value of any
    depth is converted without overflowing the stack.

    ``max_levels``: containers nested deeper than this many levels become ``"[Truncated]"`` (None:
    none). Raises ``CircularReference`` when a container contains itself (one that only recurs
    beside itself, the same list twice, is copied each time) and ``UnsafeInteger`` naming the int's
    place (``['args']['n']``); both are ``NotJsonSafe``, a ``ValueError``."""
    first = _leaf(value)
    if first is not _CONTAINER:
        return first
    root, items = _open(value)
    # the containers being copied, outermost first, each with the iterator of what is left to copy;
    # ``path`` holds their ids (a cycle returns to one)
    stack = [(id(value), root, items)]
    path = {id(value)}
    safe = MAX_SAFE_INTEGER
    try:
        while stack:
            ident, out, items = stack[-1]
            child = None
            if type(out) is dict:
                for key, item in items:
                    if not isinstance(key, str):
                        key = _key_text(key)
                    kind = type(item)
                    plain = kind in _PLAIN or (kind is int and -safe <= item <= safe)
                    converted = item if plain else _leaf(item)
                    if converted is _CONTAINER:
                        converted, child = _enter(item, len(stack), path, max_levels)
                    out[key] = converted
                    if child is not None:
                        break
            else:
                for item in items:
                    kind = type(item)
                    plain = kind in _PLAIN or (kind is int and -safe <= item <= safe)
                    converted = item if plain else _leaf(item)
                    if converted is _CONTAINER:
                        converted, child = _enter(item, len(stack), path, max_levels)
                    out.append(converted)
                    if child is not None:
                        break
            if child is None:
                stack.pop()
                path.discard(ident)
            else:
                # the new container is copied first; this one's iterator resumes after it
                stack.append((id(item), converted, child))
                path.add(id(item))
    except UnsafeInteger as exc:
        # the copies on the stack end with the key of the container below them: the int's place
        keys = [next(reversed(up)) if type(up) is dict else len(up) - 1 for _, up, _ in stack[:-1]]
        keys.append(key if type(out) is dict else len(out))
        raise exc.at("".join("[%r]" % k for k in keys)) from None
    return root


def _key_text(key):
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    if isinstance(key, float) and not math.isfinite(key):
        return "null"
    return str(key)


# ---- the tools module ----


def _wire_fields(payload):
    """An error reply's fields, read defensively (``readWireError`` of src/runtime/gateway/codec.ts):
    ``(wire, message, code, name, details)``, each None unless it has the right type."""
    wire = payload if isinstance(payload, dict) else {}
    message = wire.get("error")
    if not isinstance(message, str) or message == "":
        message = UNKNOWN_ERROR
    code = wire.get("code") if isinstance(wire.get("code"), str) else None
    name = wire.get("name") if isinstance(wire.get("name"), str) and wire.get("name") else None
    details = wire.get("details") if isinstance(wire.get("details"), dict) else None
    return wire, message, code, name, details


def _step_error(payload):
    """A failed chain step's error as a snippet sees it: ``{"name", "code", "message", "details"?}``,
    the shape a JavaScript snippet gets (``guestStepError`` of src/runtime/guest/shared/tools.ts)."""
    _, message, code, name, details = _wire_fields(payload)
    error = {"name": name or "Error", "code": code, "message": message}
    if details is not None:
        error["details"] = details
    return error


def _steps(steps):
    """Chain step results from the wire, each ``error`` decoded by ``_step_error``."""
    out = []
    for step in steps:
        if isinstance(step, dict) and "error" in step:
            step = dict(step, error=_step_error(step["error"]))
        out.append(step)
    return out


def _error_from_reply(payload):
    wire, message, code, name, details = _wire_fields(payload)
    tool_id = wire.get("toolId") if isinstance(wire.get("toolId"), str) else None
    steps = _steps(wire["steps"]) if isinstance(wire.get("steps"), list) else None
    return ToolError(code, message, details, name, tool_id, steps)


def _make_tools(call):
    """A fresh ``tools`` module whose functions send requests through ``call``."""

    def request(type_, payload, envelope=1):
        """Sends one request. ``envelope``: how many levels of the payload lie above a tool's arguments."""
        if payload is not None:
            try:
                # arguments deeper than the host takes are sent cut one level past its limit, still too
                # deep: the host refuses them with its own error (INVALID_ARGUMENT, the call neither
                # counted nor traced) as it refuses a JavaScript snippet's, and the transport's encoder
                # never meets thousands of levels
                payload = to_json_safe(payload, MAX_VALUE_DEPTH + 1 + envelope)
            except NotJsonSafe as exc:
                # the error a JavaScript snippet's call gets: the guest cannot encode the request
                message = "runtime: the request cannot be sent as JSON: %s" % exc
                raise ToolError(INVALID_ARGUMENT, message, name="Error") from None
        reply = call(type_, payload)
        if not isinstance(reply, dict):
            raise ToolError(CODE_EXECUTION, "the sandbox's transport returned no reply")
        if reply.get("type") == "response":
            return reply.get("payload")
        raise _error_from_reply(reply.get("payload"))

    def list_of(payload, field):
        value = payload.get(field) if isinstance(payload, dict) else None
        return [] if value is None else value

    def run_tool(id, args=None, **keywords):
        """Runs the tool ``id`` with ``args`` (a dict): ``{"tool": ..., "backend": ..., "structured": ...}``."""
        if keywords:
            names = ", ".join("%r: ..." % name for name in keywords)
            raise TypeError(
                "tools.run_tool() takes the tool's arguments as one dict, not as keyword arguments: "
                "tools.run_tool(%r, {%s})" % (str(id), names)
            )
        payload = {"id": str(id)}
        if args is not None:
            payload["args"] = args
        return request("run_tool", payload)

    def search_tools(query="", limit=10):
        """Searches the tool catalogue: a list of tool summaries."""
        return list_of(request("search_tools", {"query": str(query or ""), "limit": limit}), "results")

    def describe_tool(id, level="summary"):
        """The tool's documentation at ``level`` (``summary``, ``schema`` or ``full``)."""
        return request("describe_tool", {"id": str(id), "level": str(level)})

    def list_namespaces():
        """The catalogue's namespaces."""
        return list_of(request("list_namespaces", None), "namespaces")

    def list_tool_examples(id, max=0):
        """The tool's examples (``max`` 0: all)."""
        return list_of(request("list_tool_examples", {"id": str(id), "max": max}), "examples")

    def run_chain(steps):
        """Runs ``steps`` (a list of ``{"toolId": ..., "args": ..., "usePrevious": ...}``): ``{"result": ..., "steps": [...]}``."""
        payload = {"steps": list(steps) if isinstance(steps, (list, tuple)) else []}
        # a step's arguments lie three levels down: the payload, its steps, the step
        reply = request("run_chain", payload, envelope=3)
        reply = reply if isinstance(reply, dict) else {}
        results = reply.get("steps")
        return {"result": reply.get("result"), "steps": _steps(results) if isinstance(results, list) else []}

    module = types.ModuleType("tools", "Tool calls from a toolexec snippet; each blocks until the host answers.")
    for fn in (run_tool, search_tools, describe_tool, list_namespaces, list_tool_examples, run_chain):
        # a wrong call's TypeError names the public function (``tools.run_tool()``), not this factory
        fn.__qualname__ = "tools." + fn.__name__
        setattr(module, fn.__name__, fn)
    module.ToolError = ToolError
    names = ", ".join(fn.__name__ for fn in (run_tool, search_tools, describe_tool, list_namespaces, list_tool_examples, run_chain))

    def missing(name):
        # a namespace read as an attribute (``tools.fx.convert(...)``) gets the call that works
        if name.startswith("__"):
            raise AttributeError(f"module 'tools' has no attribute {name!r}")
        shown = name[:60]
        # a method misnamed (``tools.runTool``, ``tools.run``, ``tools.search``): the methods it starts
        wanted = name.lower().replace("_", "") if 3 <= len(name) <= 60 else ""
        close = [n for n in names.split(", ") if wanted and n.replace("_", "").startswith(wanted)]
        if close:
            raise AttributeError(
                f"module 'tools' has no attribute {shown!r}: did you mean "
                + " or ".join("tools." + n for n in close)
                + f"? (tools has {names}, ToolError)"
            )
        raise AttributeError(
            f"module 'tools' has no attribute {shown!r}: call a tool by its ID, e.g. "
            f"tools.run_tool({shown + ':<tool>'!r}, args) (tools has {names}, ToolError; "
            "find IDs with tools.search_tools(query) or tools.list_namespaces())"
        )

    module.__getattr__ = missing
    return module


# ---- fresh state ----


_SYS_LISTS = ("path", "argv", "meta_path", "path_hooks")
_SYS_NAMES = ("stdout", "stderr", "stdin", "displayhook", "excepthook", "breakpointhook")
_MISSING = object()
# filled once, by the first run; mutated in place (never rebound), so restoring this module's own
# namespace keeps it
_baseline = {}


def _capture_baseline():
    # what the prelude itself imports lazily (formatting a traceback) is loaded before the baseline,
    # so that it is not removed and imported again after every run
    try:
        raise ValueError("warm-up")
    except ValueError as exc:
        traceback.format_exception(type(exc), exc, exc.__traceback__)
    try:
        compile("(", SNIPPET_FILENAME, "exec")
    except SyntaxError as exc:
        traceback.format_exception(type(exc), exc, None)
    modules = {name: mod for name, mod in list(sys.modules.items()) if isinstance(mod, types.ModuleType)}
    _baseline["modules"] = modules
    # the transport's ``__main__`` is left alone: during a run ``__main__`` is the snippet's own module
    _baseline["dicts"] = [(vars(mod), dict(vars(mod))) for name, mod in modules.items() if name != "__main__"]
    _baseline["lists"] = {name: list(getattr(sys, name, [])) for name in _SYS_LISTS}
    _baseline["names"] = {name: getattr(sys, name, None) for name in _SYS_NAMES}
    _baseline["recursion"] = sys.getrecursionlimit()
    _baseline["environ"] = dict(os.environ)


def _changed(current, saved):
    if len(current) != len(saved):
        return True
    for key, value in saved.items():
        if current.get(key, _MISSING) is not value:
            return True
    return False


def _restore_baseline():
    modules = _baseline["modules"]
    for name in list(sys.modules):
        if name not in modules:
            del sys.modules[name]
    for name, mod in modules.items():
        if sys.modules.get(name) is not mod:
            sys.modules[name] = mod
    for current, saved in _baseline["dicts"]:
        if _changed(current, saved):
            current.clear()
            current.update(saved)
    for name, saved in _baseline["lists"].items():
        setattr(sys, name, list(saved))
    for name, saved in _baseline["names"].items():
        setattr(sys, name, saved)
    sys.setrecursionlimit(_baseline["recursion"])
    if dict(os.environ) != _baseline["environ"]:
        # in place: os.environ is the object ``os`` holds, and its changes reach the C environment
        os.environ.clear()
        os.environ.update(_baseline["environ"])


# ---- running ----


def _compile(code):
    tree = ast.parse(code, SNIPPET_FILENAME, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
        ast.fix_missing_locations(last)
    body = compile(tree, SNIPPET_FILENAME, "exec", dont_inherit=True)
    tail = compile(last, SNIPPET_FILENAME, "eval", dont_inherit=True) if last is not None else None
    return body, tail


def _snippet_traceback(exc):
    """The traceback from the snippet's own frames on (the prelude's frames are left out)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != SNIPPET_FILENAME:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb)
    return "".join(lines)


def _failure(exc, source=""):
    name = type(exc).__name__
    if isinstance(exc, SyntaxError):
        line = exc.lineno if exc.lineno is not None else 0
        message = "%s: %s (line %d)" % (name, exc.msg, line)
        error = {"code": CODE_EXECUTION, "message": message, "name": name, "line": line}
        if exc.offset is not None:
            error["column"] = exc.offset
    else:
        if isinstance(exc, ToolError):
            error = {"code": exc.code or CODE_EXECUTION, "message": exc.message, "name": exc.name}
            if exc.details is not None:
                try:
                    error["details"] = to_json_safe(exc.details)
                except NotJsonSafe:
                    pass  # details a snippet made that have no JSON form are left out
            if exc.tool_id is not None:
                error["toolId"] = exc.tool_id
        else:
            try:
                text = str(exc)
            except BaseException:
                text = ""
            error = {"code": CODE_EXECUTION, "message": "%s: %s" % (name, text) if text else name, "name": name}
        # where the snippet raised it (a failed tool call: the call)
        line, column = _snippet_position(exc, source)
        if line is not None:
            error["line"] = line
        if column is not None:
            error["column"] = column
    try:
        error["traceback"] = _snippet_traceback(exc)
    except BaseException:
        error["traceback"] = ""
    return {"ok": False, "error": error}


def _snippet_position(exc, source):
    """``(line, column)`` of the deepest snippet frame of ``exc``'s traceback, 1-based; the column
    counts characters and is None where Python does not know it (before 3.11, no position tables)."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SNIPPET_FILENAME:
            found = tb
        tb = tb.tb_next
    if found is None:
        return None, None
    line = found.tb_lineno
    if found.tb_lasti < 0:
        return line, None
    try:  # (a MemoryError on the way leaves the column out)
        # the instruction's position, as the traceback module reads it (3.11+): a UTF-8 byte offset
        positions = found.tb_frame.f_code.co_positions()
        start, _, offset, _ = next(itertools.islice(positions, found.tb_lasti // 2, None))
        if offset is None or start != line:
            return line, None
        lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return line, len(text.encode("utf-8")[:offset].decode("utf-8", "ignore")) + 1
    except Exception:
        return line, None


def run_snippet(code, call):
    """Runs ``code`` with a fresh globals dict and ``tools`` module; returns ``{"ok": True, "value": v}``
    (``v`` JSON-safe, None for ``nan``), ``{"ok": True}`` when the snippet has no value (it ends with a
    statement, or its value is None), or ``{"ok": False, "error": {"code", "message", "name",
    "traceback", ...}}`` (no ``traceback`` when the value has no JSON form: ``TypeError: the result is
    not JSON-serializable: circular reference``)."""
    if not _baseline:
        _capture_baseline()
    tools = _make_tools(call)
    main = types.ModuleType("__main__")
    scope = vars(main)
    scope["__builtins__"] = builtins
    scope["tools"] = tools
    sys.modules["__main__"] = main
    sys.modules["tools"] = tools
    try:
        try:
            body, tail = _compile(code)
        except SyntaxError as exc:
            return _failure(exc, code)
        exec(body, scope)
        value = eval(tail, scope) if tail is not None else None
        if value is None:
            return {"ok": True}
        try:
            return {"ok": True, "value": to_json_safe(value)}
        except NotJsonSafe as exc:
            # what a JavaScript snippet's value without a JSON form fails with (no snippet frame)
            message = "TypeError: the result is not JSON-serializable: %s" % exc
            return {"ok": False, "error": {"code": CODE_EXECUTION, "message": message, "name": "TypeError"}}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt are the snippet's failures too
        return _failure(exc, code)
    finally:
        scope.clear()
        _restore_baseline()
