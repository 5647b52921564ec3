#!/usr/bin/env python3
"""ctest layers: every folder includes only its own headers and those of the layers below it,
and every library links only libraries of those layers.

The layers (docs/architecture.md, "Folders"), lowest first: base ← schema ← engine (and the
runtime linked into targets) ← storage, ops, net ← the broker's client library, transfer ←
the controller's client library ← the broker's relay, the controller's service, node ←
nightly ← cli. ALLOWED below is that table, folder
by folder; an #include "folder/..." of a project folder that the table does not allow fails
the test, with the file and line.

The link graph is read from the CMake files: pollen_library(NAME DEPS...), add_library(NAME
...) and target_link_libraries(NAME ... DEPS...) in a folder make NAME that folder's, and each
pollen_* library among DEPS must belong to the folder itself or to one the table allows. Test
binaries (*_tests) may link anything, as test code may include anything.

Test code (*_test.cc, *test_util.*) may include any folder: a node's tests start an
in-process controller, a service above the node's own layer. fuzz/, bench/, tests/ and
examples/ sit on top and may include anything.

Usage: tests/layers_test.py [REPO_ROOT]   (default: the repository this file is in)
"""
import pathlib
import re
import sys

# folder -> the project folders it may include besides itself.
ALLOWED = {
    "base": set(),
    "schema": set(),
    "engine": {"base", "schema"},
    "engine/runtime": {"base", "schema", "engine"},
    "engine/coverage_main": set(),
    "compiler": set(),
    "ops": {"base"},
    "storage": {"base", "schema", "engine"},
    "fuzztest": {"base", "schema", "engine", "engine/runtime"},
    "net": {"base"},
    "broker/client": {"base", "schema", "net"},
    "broker": {"base", "schema", "ops", "net", "broker/client"},
    "transfer": {"base", "schema", "net"},
    "controller/client": {"base", "schema", "net", "transfer"},
    "controller": {"base", "schema", "ops", "storage", "net", "transfer", "controller/client"},
    "node": {"base", "schema", "engine", "ops", "storage", "net", "broker/client", "transfer",
             "controller/client"},
    "nightly": {"base", "schema", "engine", "ops", "storage", "net", "broker/client",
                "transfer", "controller/client", "node"},
    "cli": {"base", "schema", "engine", "ops", "storage", "net", "broker/client", "broker",
            "transfer", "controller/client", "controller", "node", "nightly"},
}
ON_TOP = {"fuzz", "bench", "tests", "examples"}
SOURCES = (".cc", ".h", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path: pathlib.Path, root: pathlib.Path) -> str:
    rel = path.relative_to(root).parts
    if len(rel) > 2 and f"{rel[0]}/{rel[1]}" in ALLOWED:
        return f"{rel[0]}/{rel[1]}"
    return rel[0]


def included_layer(include: str, folders: set) -> str | None:
    parts = include.split("/")
    if len(parts) < 2 or parts[0] not in folders:
        return None  # a system or library header, or one beside the file
    if len(parts) > 2 and f"{parts[0]}/{parts[1]}" in ALLOWED:
        return f"{parts[0]}/{parts[1]}"
    return parts[0]


CMAKE_CALL = re.compile(r"\b(pollen_library|add_library|add_executable|target_link_libraries)"
                        r"\s*\(([^)]*)\)", re.S)


def cmake_links(root: pathlib.Path) -> tuple[dict, list]:
    """(library -> its folder, [(folder, CMakeLists path, library, dependency)]) of every
    project library, from the CMake files of the layered folders."""
    owner, links = {}, []
    for layer in ALLOWED:
        cmake = root / layer / "CMakeLists.txt"
        if not cmake.exists():
            continue
        text = re.sub(r"#[^\n]*", "", cmake.read_text())
        for call, args in CMAKE_CALL.findall(text):
            words = args.split()
            if not words:
                continue
            name = words[0]
            if call in ("pollen_library", "add_library", "add_executable"):
                owner.setdefault(name, layer)
            if call in ("pollen_library", "target_link_libraries"):
                for dep in words[1:]:
                    if dep.startswith("pollen_"):
                        links.append((layer, cmake.relative_to(root), name, dep))
    return owner, links


def link_violations(root: pathlib.Path) -> list:
    owner, links = cmake_links(root)
    found = []
    for layer, cmake, name, dep in links:
        if name.endswith("_tests") or dep not in owner:
            continue  # a test binary, or a helper target (pollen_tsan_suppressions)
        to = owner[dep]
        if to != layer and to not in ALLOWED[layer]:
            found.append(f"{cmake}: {name} ({layer}/) links {dep} ({to}/ is not below {layer}/)")
    return found


def is_test_code(path: pathlib.Path) -> bool:
    return path.stem.endswith("_test") or "test_util" in path.stem


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1])
    root = root.resolve()
    folders = {p.name for p in root.iterdir() if p.is_dir() and (p / "CMakeLists.txt").exists()}
    missing = sorted(f for f in ALLOWED if "/" not in f and f not in folders)
    if missing:
        print(f"FAIL: folders in the layer table but not in {root}: {', '.join(missing)}")
        return 1
    unknown = sorted(folders - set(ALLOWED) - ON_TOP)
    if unknown:
        print(f"FAIL: folders without a layer (add them to ALLOWED in {__file__}): "
              f"{', '.join(unknown)}")
        return 1
    violations = []
    files = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        rel = path.relative_to(root)
        if rel.parts[0] not in folders or rel.parts[0] in ON_TOP:
            continue
        files += 1
        layer = layer_of(path, root)
        if is_test_code(path):
            continue
        allowed = ALLOWED[layer] | {layer}
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = included_layer(m.group(1), folders)
            # engine/ may not include engine/runtime/: the runtime is a layer above it.
            if target is None or target in allowed:
                continue
            violations.append(f"{rel}:{n}: {layer}/ includes {m.group(1)} ({target}/ is not "
                              f"below {layer}/)")
    if violations:
        print("FAIL: includes against the layers (docs/architecture.md):")
        for v in violations:
            print("  " + v)
        return 1
    links = link_violations(root)
    if links:
        print("FAIL: libraries linking against the layers (docs/architecture.md):")
        for v in links:
            print("  " + v)
        return 1
    owner, edges = cmake_links(root)
    print(f"PASS: {files} files, every include within its layer or below; "
          f"{len(owner)} CMake targets, {len(edges)} links to project libraries, each one-way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
