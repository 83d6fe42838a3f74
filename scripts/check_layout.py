"""Check the package's layout rules; exit 1 naming every breach.

1. **Named internal faces.** A module never imports another folder's underscore modules: other folders use that
   folder's public package or its `internal` face (`core.internal`, `data.internal`, ...).
2. **Imports at the top.** Function bodies import nothing, except in `cli/` (the command line imports a command's
   dependencies when the command runs, so that `difflab --help` and Ctrl-C stay quick) and the optional
   dependencies that an extra installs (`distributed`, `pynwb`), imported where they are needed.
3. **No import cycles** between modules, counting module-level imports (`from package import name` counts as an
   import of `package.name` when that is a module).
4. **At most 12 parameters** in a public function or method (a name without a leading underscore, or `__init__` /
   `__call__`, outside private classes and function bodies; `self`/`cls` not counted, `*args` and `**kwargs` one
   each). Beyond that a call is hard to read and to keep compatible: related options go into one small options
   object (`SolveOptions`, `RunOptions`, ...).

Usage: `python scripts/check_layout.py [src/difflab]`.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

OPTIONAL_DEPENDENCIES: tuple[str, ...] = ()  # optional packages come through core.internal.optional_module
MAX_PARAMETERS = 12
PUBLIC_DUNDERS = ("__init__", "__call__")
LAZY_FOLDERS = ("cli",)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an `ImportFrom` names."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(tree: ast.AST, module: str, is_package: bool, known: set[str]):
    """(line, imported module, inside a function) for every import in `tree`."""
    out = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend((child.lineno, alias.name, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                target = resolve(child, module, is_package)
                submodules = [f"{target}.{a.name}" for a in child.names if f"{target}.{a.name}" in known]
                if len(submodules) < len(child.names):  # names defined by `target` itself
                    out.append((child.lineno, target, in_function))
                out.extend((child.lineno, name, in_function) for name in submodules)
            visit(child, inner)

    visit(tree, False)
    return out


def folder_of(module: str, folders: set[str]) -> str:
    """The top-level folder (sub-package) a module lives in; "" for the package's own top-level modules."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in folders else ""


def check(root: Path) -> list[str]:
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    known = set(files)
    folders = {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
    problems, graph = [], {m: set() for m in files}
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        where = path.relative_to(root.parent)
        for line, target, in_function in imports_of(ast.parse(path.read_text()), module, is_package, known):
            parts = target.split(".")
            private = [p for p in parts[2:] if p.startswith("_")]
            if parts[0] == root.name and private and folder_of(target, folders) != folder_of(module, folders):
                problems.append(f"{where}:{line}: imports {target}, a private module of another folder")
            if in_function:
                lazy_ok = folder_of(module, folders) in LAZY_FOLDERS or parts[0] in OPTIONAL_DEPENDENCIES
                if not lazy_ok:
                    problems.append(f"{where}:{line}: imports {target} inside a function")
            elif target in known and target != module:
                graph[module].add(target)
    problems += [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]
    for path in files.values():
        for line, name, count in public_signatures(ast.parse(path.read_text())):
            if count > MAX_PARAMETERS:
                where = path.relative_to(root.parent)
                problems.append(f"{where}:{line}: {name} has {count} parameters (at most {MAX_PARAMETERS})")
    return problems


def parameter_count(args: ast.arguments, is_method: bool) -> int:
    """Parameters of a signature: `*args` and `**kwargs` one each, a method's `self`/`cls` not counted."""
    positional = [*args.posonlyargs, *args.args]
    count = len(positional) + len(args.kwonlyargs) + (args.vararg is not None) + (args.kwarg is not None)
    return count - (is_method and bool(positional) and positional[0].arg in ("self", "cls"))


def public_signatures(tree: ast.AST) -> list[tuple[int, str, int]]:
    """(line, qualified name, parameter count) of every public function and method of a module."""
    out = []

    def visit(node: ast.AST, prefix: list[str], in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
                visit(child, [*prefix, child.name], True)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                if not child.name.startswith("_") or child.name in PUBLIC_DUNDERS:
                    count = parameter_count(child.args, in_class)
                    out.append((child.lineno, ".".join([*prefix, child.name]), count))
            elif not isinstance(child, ast.ClassDef):
                visit(child, prefix, in_class)  # `if TYPE_CHECKING:` blocks and the like

    visit(tree, [], False)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(path_within(graph, set(component)))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def path_within(graph, component: set[str]) -> list[str]:
    """A cycle inside one strongly connected component, as a list of modules ending where it starts."""
    start = min(component)
    previous, frontier = {start: None}, [start]
    while frontier:
        v = frontier.pop(0)
        for w in sorted(graph[v] & component):
            if w == start:
                chain = [v]
                while previous[chain[-1]] is not None:
                    chain.append(previous[chain[-1]])
                return [*reversed(chain), start]
            if w not in previous:
                previous[w] = v
                frontier.append(w)
    return sorted(component)


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "src" / "difflab"
    problems = check(root)
    for problem in problems:
        print(problem)
    print(f"layout: {len(problems)} problem(s) in {root}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
