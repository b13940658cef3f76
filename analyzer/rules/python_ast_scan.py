#!/usr/bin/env python3
"""forkscope's Python parse helper: reads one JSON request on stdin, parses the files it carries with
CPython's ast and tokenize modules and writes one JSON answer on stdout. It only parses: it never
imports, compiles to bytecode or executes any file it is given, and reads nothing but stdin.

Run by analyzer/integration/python_scan.cpp as `python3 -I -S -B python_ast_scan.py` (one request on stdin,
one answer on stdout), or with --serve as a long-lived helper that answers framed requests until its stdin
closes (python_served.cpp: the interpreter's start-up is paid once per process, not per sync). The request's
"mode" applies to every file; a file entry's own "mode" overrides it (one process reads an integrator's
build_utils.py, loader and import test together). Modes:

  {"mode": "modules", "files": [{"path", "module", "package", "text"}]}
      -> {"files": [{"path", "error"?, "imports": [...], "lazy": [...]}]}   ("comments": false skips them)
      Every import of each file with the absolute module it names (relative imports resolved against
      "module", the file's dotted name; "package" is true for an __init__.py), whether it runs while the
      module loads ("level": "module") or inside a function ("function"), and, for one inside a function,
      the comment block just above it. "lazy" lists lazy loaders: a module-level def __getattr__ that imports
      ("module-getattr"), importlib.import_module/__import__ inside a function ("import_module"),
      lazy_loader.attach ("lazy_loader").
  {"mode": "build_utils", "files": [{"path", "text"}]}
      -> {"files": [{"path", "error"?, "libraries": [...], "get_libs": bool, "submodule_check": {...}}]}
      Every EcosystemLibrary(...) call (inside get_libs() when the file defines it) with its literal
      arguments, and the string constants check_submodule_updated() tests.
  {"mode": "loader", "files": [{"path", "text"}]}
      -> {"files": [{"path", "error"?, "loads": [...]}]}
      Every *load_ecosystem_lib("<module>", ...) call with the compat guard around it.
"""
import ast
import io
import json
import sys


def dotted(node):
    """'a.b.c' for a Name/Attribute chain, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return '.'.join(reversed(parts))
    return ''


def call_name(call):
    """The last component of a call's function name ('use_compat_guard' for paddle.use_compat_guard(...))."""
    name = dotted(call.func)
    return name.rsplit('.', 1)[-1] if name else ''


def const_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def str_items(node):
    """The string constants of a set/list/tuple literal (or a single string); None when not literal."""
    if node is None:
        return None
    single = const_str(node)
    if single is not None:
        return [single]
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        items = [const_str(e) for e in node.elts]
        return [i for i in items if i is not None]
    return None


def source_of(node):
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - unparse of a partial tree: fall back to nothing
        return ''


class Comments:
    """Comment text by line, from tokenize (ast drops comments), read only when a line that is asked about
    or the one above it holds a '#': only lazy imports are judged by their comments, most have none, and
    tokenize costs twice the parse."""

    def __init__(self, text):
        self.text = text
        self.lines = None     # the text's lines, for a cheap look before tokenizing
        self.inline = None    # line -> comment text after code on that line
        self.own_line = None  # line -> comment text of a comment-only line

    def read(self):
        self.inline, self.own_line = {}, {}
        if self.text is None:
            return
        import tokenize  # only when comments are wanted: its import costs more than a small parse
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if tok.type != tokenize.COMMENT:
                    continue
                line = tok.start[0]
                body = tok.string.lstrip('#').strip()
                if tok.line.strip().startswith('#'):
                    self.own_line[line] = body
                else:
                    self.inline[line] = body
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass

    def may_have(self, line):
        """False when neither line nor the one above it holds a '#': then there is no comment to read."""
        if self.text is None:
            return False
        if self.lines is None:
            self.lines = self.text.replace('\r\n', '\n').replace('\r', '\n').split('\n')
        cur = self.lines[line - 1] if 0 < line <= len(self.lines) else ''
        prev = self.lines[line - 2] if 1 < line <= len(self.lines) + 1 else ''
        return '#' in cur or prev.lstrip().startswith('#')

    def above(self, line):
        """The contiguous comment-only lines just above line, and its inline comment, as one text."""
        if not self.may_have(line):
            return ''
        if self.inline is None:
            self.read()
        block = []
        at = line - 1
        while at in self.own_line:
            block.append(self.own_line[at])
            at -= 1
        block.reverse()
        if line in self.inline:
            block.append(self.inline[line])
        return '\n'.join(b for b in block if b)


def resolve(module, is_package, level, name):
    """The absolute module of a (possibly relative) import in module; '' when it climbs too high."""
    if level == 0:
        return name or ''
    parts = module.split('.') if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        if level - 1 > len(parts):
            return ''
        parts = parts[:len(parts) - (level - 1)]
    if name:
        parts.append(name)
    return '.'.join(parts)


def is_type_checking(test):
    name = dotted(test)
    return name in ('TYPE_CHECKING', 'typing.TYPE_CHECKING')


class ModuleScan(ast.NodeVisitor):
    """Imports and lazy loaders of one module, with whether each runs while the module loads."""

    def __init__(self, module, is_package, comments):
        self.module = module
        self.is_package = is_package
        self.comments = comments
        self.functions = []          # enclosing function names, innermost last
        self.type_checking = 0
        self.getattr_depth = 0       # inside a module-level def __getattr__
        self.lazy_loader_names = set()
        self.importlib_names = {'importlib'}
        self.import_module_names = set()
        self.imports = []
        self.lazy = []
        self.statements_only = False  # set when the text names no call that imports (IMPORTING_CALLS)

    def level(self):
        return 'function' if self.functions else 'module'

    def generic_visit(self, node):
        if not self.statements_only:
            return super().generic_visit(node)
        # Import statements sit only in statement lists: without a call that imports, expressions
        # hold nothing this scan reports, so only the nested statement lists are walked.
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, (ast.stmt, ast.excepthandler, ast.match_case)):
                        self.visit(item)

    def add_import(self, node, module, names):
        if not module:
            return
        level = self.level()
        self.imports.append({
            'module': module,
            'names': names,
            'line': node.lineno,
            'level': level,
            'function': self.functions[-1] if self.functions else '',
            'type_checking': self.type_checking > 0,
            'in_getattr': self.getattr_depth > 0,
            # Only an import inside a function is judged by its comment (a documented exception).
            'comment': self.comments.above(node.lineno) if level == 'function' else '',
        })

    def visit_Import(self, node):
        for alias in node.names:
            self.add_import(node, alias.name, [])
            if alias.name == 'lazy_loader':
                self.lazy_loader_names.add(alias.asname or alias.name)
            if alias.name == 'importlib':
                self.importlib_names.add(alias.asname or alias.name)

    def visit_ImportFrom(self, node):
        target = resolve(self.module, self.is_package, node.level, node.module)
        names = [a.name for a in node.names]
        self.add_import(node, target, names)
        if node.module == 'importlib' and node.level == 0:
            for a in node.names:
                if a.name == 'import_module':
                    self.import_module_names.add(a.asname or a.name)
        if node.module == 'lazy_loader' and node.level == 0:
            self.lazy_loader_names.add('')  # attach imported by name

    def visit_If(self, node):
        if is_type_checking(node.test):
            self.type_checking += 1
            for child in node.body:
                self.visit(child)
            self.type_checking -= 1
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_function(self, node):
        module_getattr = not self.functions and node.name == '__getattr__'
        if module_getattr and self.has_import(node):
            self.lazy.append({'kind': 'module-getattr', 'line': node.lineno, 'level': 'module', 'target': '',
                              'comment': self.comments.above(self.first_line(node))})
        self.functions.append(node.name)
        self.getattr_depth += 1 if module_getattr else 0
        for child in node.body:
            self.visit(child)
        self.getattr_depth -= 1 if module_getattr else 0
        self.functions.pop()
        for d in node.decorator_list:  # decorators run while the enclosing scope runs
            self.visit(d)
        for d in node.args.defaults + node.args.kw_defaults:
            if d is not None:
                self.visit(d)

    visit_FunctionDef = visit_function
    visit_AsyncFunctionDef = visit_function

    def visit_Lambda(self, node):
        self.functions.append('<lambda>')
        self.visit(node.body)
        self.functions.pop()

    @staticmethod
    def first_line(node):
        lines = [d.lineno for d in node.decorator_list] + [node.lineno]
        return min(lines)

    def is_import_module(self, call):
        name = dotted(call.func)
        if name in self.import_module_names or name == '__import__':
            return True
        base, _, attr = name.rpartition('.')
        return attr == 'import_module' and base in self.importlib_names

    def has_import(self, fn):
        for sub in ast.walk(fn):
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                return True
            if isinstance(sub, ast.Call) and self.is_import_module(sub):
                return True
        return False

    def visit_Call(self, node):
        if self.is_import_module(node):
            target = const_str(node.args[0]) if node.args else None
            if not self.functions and target:
                # A module-level import_module("x") is an import that runs while the module loads.
                self.add_import(node, target if not target.startswith('.') else
                                resolve(self.module, self.is_package, len(target) - len(target.lstrip('.')),
                                        target.lstrip('.')), [])
            elif self.functions and self.getattr_depth == 0:
                self.lazy.append({'kind': 'import_module', 'line': node.lineno, 'level': 'function',
                                  'function': self.functions[-1], 'target': target or '',
                                  'comment': self.comments.above(node.lineno)})
        name = dotted(node.func)
        base, _, attr = name.rpartition('.')
        if attr in ('attach', 'attach_stub') and base and base in self.lazy_loader_names:
            self.lazy.append({'kind': 'lazy_loader', 'line': node.lineno, 'level': self.level(), 'target': '',
                              'comment': self.comments.above(node.lineno)})
        elif name in ('attach', 'attach_stub') and '' in self.lazy_loader_names:
            self.lazy.append({'kind': 'lazy_loader', 'line': node.lineno, 'level': self.level(), 'target': '',
                              'comment': self.comments.above(node.lineno)})
        self.generic_visit(node)


# The calls ModuleScan.visit_Call reports (importlib.import_module, __import__, lazy_loader.attach and
# attach_stub): a file whose text names none of them needs no walk of its expressions.
IMPORTING_CALLS = ('import_module', '__import__', 'attach')


def parse(text, path):
    """(tree, None) or (None, 'SyntaxError: ... (line N)')."""
    try:
        return ast.parse(text, filename=path, type_comments=False), None
    except SyntaxError as exc:
        return None, f'SyntaxError: {exc.msg} (line {exc.lineno})'
    except (ValueError, RecursionError, MemoryError) as exc:
        return None, f'{type(exc).__name__}: {exc}'


def scan_modules(entry):
    text = entry.get('text', '')
    out = {'path': entry.get('path', '')}
    tree, error = parse(text, out['path'])
    if tree is None:
        out['error'] = error
        return out
    comments = Comments(text if entry.get('comments', True) else None)
    scan = ModuleScan(entry.get('module', ''), bool(entry.get('package')), comments)
    scan.statements_only = not any(name in text for name in IMPORTING_CALLS)
    scan.visit(tree)
    out['imports'] = scan.imports
    out['lazy'] = scan.lazy
    return out


def library_of(call):
    lib = {'line': call.lineno, 'name': '', 'source_rel_path': '', 'artifacts': [], 'extra_env': {},
           'include_dirs': []}
    fields = ['name', 'source_rel_path', 'artifacts', 'extra_env', 'include_dirs']
    args = dict(zip(fields, call.args))
    args.update({k.arg: k.value for k in call.keywords if k.arg})
    lib['name'] = const_str(args.get('name')) or source_of(args['name']) if 'name' in args else ''
    lib['source_rel_path'] = const_str(args.get('source_rel_path')) or ''
    artifacts = args.get('artifacts')
    if isinstance(artifacts, (ast.List, ast.Tuple)):
        for a in artifacts.elts:
            if not isinstance(a, ast.Call):
                continue
            a_args = [const_str(x) for x in a.args]
            a_kw = {k.arg: const_str(k.value) for k in a.keywords if k.arg}
            src = a_args[0] if len(a_args) > 0 else a_kw.get('source_rel_path')
            dst = a_args[1] if len(a_args) > 1 else a_kw.get('target_name')
            lib['artifacts'].append({'source': src or '', 'target': dst or ''})
    env = args.get('extra_env')
    if isinstance(env, ast.Dict):
        for k, v in zip(env.keys, env.values):
            key = const_str(k) if k is not None else None
            if key is not None:
                lib['extra_env'][key] = const_str(v) if const_str(v) is not None else source_of(v)
    lib['include_dirs'] = str_items(args.get('include_dirs')) or []
    return lib


def conditions_of(tree):
    """id(call) -> the source of the innermost if-test around it (libraries appended under conditions)."""
    found = {}

    def walk(node, cond):
        if isinstance(node, ast.If):
            inner = source_of(node.test)
            for child in node.body:
                walk(child, inner)
            for child in node.orelse:
                walk(child, 'not (' + inner + ')')
            return
        if isinstance(node, ast.Call):
            found[id(node)] = cond
        for child in ast.iter_child_nodes(node):
            walk(child, cond)

    walk(tree, '')
    return found


def scan_build_utils(entry):
    text = entry.get('text', '')
    out = {'path': entry.get('path', ''), 'libraries': [], 'get_libs': False,
           'submodule_check': {'found': False, 'strings': []}}
    tree, error = parse(text, out['path'])
    if tree is None:
        out['error'] = error
        return out
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    get_libs = functions.get('get_libs')
    out['get_libs'] = get_libs is not None
    root = get_libs if get_libs is not None else tree
    conditions = conditions_of(root)
    for node in ast.walk(root):
        if isinstance(node, ast.Call) and call_name(node) == 'EcosystemLibrary':
            lib = library_of(node)
            lib['condition'] = conditions.get(id(node), '')
            out['libraries'].append(lib)
    out['libraries'].sort(key=lambda lib: lib['line'])
    check = functions.get('check_submodule_updated')
    if check is not None:
        strings = []
        for node in ast.walk(check):
            s = const_str(node)
            if s is not None and s not in strings:
                strings.append(s)
        out['submodule_check'] = {'found': True, 'strings': strings, 'line': check.lineno}
    return out


class LoaderScan(ast.NodeVisitor):
    """The *load_ecosystem_lib calls of a loader module and the compat guard each runs under."""

    def __init__(self):
        self.stack = []   # enclosing nodes, outermost first
        self.loads = []

    def generic_visit(self, node):
        self.stack.append(node)
        super().generic_visit(node)
        self.stack.pop()

    def visit_Call(self, node):
        if call_name(node).endswith('load_ecosystem_lib') and node.args and const_str(node.args[0]):
            self.loads.append(self.describe(node))
        self.generic_visit(node)

    def guard_call(self, node, name):
        return isinstance(node, ast.Call) and call_name(node) == name

    def describe(self, call):
        extra = None
        if len(call.args) > 3:
            extra = str_items(call.args[3])
        for k in call.keywords:
            if k.arg in ('extra_libs_name', 'extra_libs'):
                extra = str_items(k.value)
        load = {'module': const_str(call.args[0]), 'line': call.lineno, 'extra_libs': extra or [],
                'guard': 'none', 'scope': [], 'guard_line': 0, 'available': ''}
        for parent in reversed(self.stack):
            if isinstance(parent, (ast.With, ast.AsyncWith)) and load['guard'] == 'none':
                for item in parent.items:
                    if self.guard_call(item.context_expr, 'use_compat_guard'):
                        self.set_guard(load, 'use_compat_guard', item.context_expr, parent.lineno)
                        break
            if isinstance(parent, ast.If) and not load['available']:
                for sub in ast.walk(parent.test):
                    if isinstance(sub, ast.Call) and call_name(sub).startswith('is_') and \
                            call_name(sub).endswith('_available'):
                        load['available'] = call_name(sub)
                        break
        if load['guard'] == 'none':
            self.find_enable_compat(load, call)
        return load

    def set_guard(self, load, kind, guard, line):
        load['guard'] = kind
        load['guard_line'] = line
        for k in guard.keywords:
            if k.arg == 'scope':
                load['scope'] = str_items(k.value) or []

    def find_enable_compat(self, load, call):
        """An older block: a bare enable_compat(scope=...) earlier in the same statement list."""
        # The statement holding the call, and the block (list of statements) that statement sits in.
        chain = self.stack + [call]
        for depth in range(len(chain) - 1, 0, -1):
            parent, child = chain[depth - 1], chain[depth]
            for field in ('body', 'orelse', 'finalbody'):
                block = getattr(parent, field, None)
                if isinstance(block, list) and child in block:
                    for stmt in reversed(block[:block.index(child)]):
                        if isinstance(stmt, ast.Expr) and self.guard_call(stmt.value, 'enable_compat'):
                            self.set_guard(load, 'enable_compat', stmt.value, stmt.lineno)
                            return
                        if isinstance(stmt, ast.Expr) and self.guard_call(stmt.value, 'disable_compat'):
                            return
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                return


def scan_loader(entry):
    text = entry.get('text', '')
    out = {'path': entry.get('path', ''), 'loads': []}
    tree, error = parse(text, out['path'])
    if tree is None:
        out['error'] = error
        return out
    scan = LoaderScan()
    scan.visit(tree)
    out['loads'] = scan.loads
    return out


MODES = {'modules': scan_modules, 'build_utils': scan_build_utils, 'loader': scan_loader}


def handle(request):
    """The answer to one request, or {'error': ...} for a request of no known shape."""
    if not isinstance(request, dict):
        return {'error': 'bad request: not an object'}
    default = request.get('mode')
    files = []
    for entry in request.get('files', []):
        mode = entry.get('mode', default)
        scan = MODES.get(mode)
        if scan is None:
            return {'error': f'unknown mode {mode!r}'}
        try:
            files.append(scan(entry))
        except RecursionError:
            files.append({'path': entry.get('path', ''), 'error': 'RecursionError: nesting too deep to parse'})
    return {'files': files}


def serve():
    """Requests framed as '<bytes>\\n<json>' on stdin, answers framed the same on stdout, until stdin
    closes. Each answer carries cpu_us, the CPU time its request took."""
    import time
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        header = inp.readline()
        if not header:
            return 0
        body = inp.read(int(header))
        started = time.process_time()
        try:
            answer = handle(json.loads(body))
        except ValueError as exc:
            answer = {'error': f'bad request: {exc}'}
        answer['cpu_us'] = int((time.process_time() - started) * 1e6)
        data = json.dumps(answer, separators=(',', ':')).encode()
        out.write(b'%d\n' % len(data))
        out.write(data)
        out.flush()


def main():
    sys.setrecursionlimit(10000)
    if '--serve' in sys.argv[1:]:
        return serve()
    try:
        request = json.load(sys.stdin)
    except ValueError as exc:
        json.dump({'error': f'bad request: {exc}'}, sys.stdout)
        return 2
    answer = handle(request)
    json.dump(answer, sys.stdout, separators=(',', ':'))
    return 2 if 'error' in answer else 0


if __name__ == '__main__':
    sys.exit(main())
