#!/usr/bin/env python3
"""The source tree's architecture, checked: every #include of a forkscope header must come from a
folder the including folder's CMake target links (directly or through PUBLIC links, as declared by
forkscope_area() in CMakeLists.txt); libgit2 stays in analyzer/git, SQLite in storage/; only base/
reads the real clock; storage/ includes of analyzer/ only its model; every
source folder has a README.md; threads start only in base/, the task runtime
and the HTTP server; the server reaches git only from app/ and services/repositories; API encodings
(`...ToJson`) are declared only in server/codec/; nothing logs through spdlog's default logger. Prints
each breach; exit 1 if any."""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def areas():
    """folder -> (target, set of linked targets) from the forkscope_area() calls."""
    text = open(os.path.join(ROOT, 'CMakeLists.txt')).read()
    folders, links = {}, {}
    for m in re.finditer(r'forkscope_area\((\w+)\s+DIRS\s+([^\n]*?)\s+LINK\s+(.*?)\)\n', text, re.S):
        target, dirs, link = m.group(1), m.group(2).split(), m.group(3).split()
        for d in dirs:
            folders[d] = target
        links[target] = {t for t in link if t.startswith('fs_')}
    return folders, links


def closure(target, links):
    seen, todo = {target}, [target]
    while todo:
        for dep in links.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


# Where a thread may start: base/ (threads.h) and these two files.
THREAD_STARTERS = {'server/tasks/task_runtime.cpp', 'server/http/connection_gate.cpp'}
# The only server files outside app/ that may include analyzer/git headers.
GIT_DOORS = {'server/services/repositories.h', 'server/services/repositories.cpp'}
THREAD_START = re.compile(r'std::(thread|jthread)\s*\(|std::(thread|jthread)\s+\w+\s*[({]|std::async\s*\(')
DEFAULT_LOGGER = re.compile(r'\bspdlog::(trace|debug|info|warn|error|critical)\s*\(')
# What storage/ may include of analyzer/: the value model (issue 24, item 4). Analysis over stored values
# (mining, pattern descriptions, compat-gap annotations in the lint) belongs in server/services/.
STORAGE_ANALYZER = ('analyzer/model/',)


def tree_rules(folder, path, text):
    """The issue-24 counts, kept: each breach of them."""
    out = []
    if folder != 'base' and path not in THREAD_STARTERS and THREAD_START.search(text):
        out.append(f'{path}: starts a thread (submit a task to the runtime, server/tasks/)')
    if folder.startswith('server/') and not folder.startswith('server/app') and path not in GIT_DOORS \
            and re.search(r'#include "analyzer/git/', text):
        out.append(f'{path}: includes analyzer/git (go through services/repositories.h)')
    if folder.startswith('server/') and not folder.startswith('server/codec') and path.endswith('.h'):
        for name in re.findall(r'\b(\w+ToJson)\s*\(', text):
            out.append(f'{path}: declares {name} (API encodings live in server/codec/)')
    if folder.startswith('storage'):
        for inc in re.findall(r'#include "(analyzer/[^"]+)"', text):
            if not inc.startswith(STORAGE_ANALYZER):
                out.append(f'{path}: includes {inc} (storage may include analyzer/model/ only)')
    if DEFAULT_LOGGER.search(text):
        out.append(f'{path}: logs through the default spdlog logger (use base::Log(area))')
    return out


def main():
    folders, links = areas()
    if not folders:
        print('layout: no forkscope_area() found in CMakeLists.txt')
        return 1
    breaches = []
    for folder, target in sorted(folders.items()):
        allowed = closure(target, links)
        if not os.path.exists(os.path.join(ROOT, folder, 'README.md')) and not folder.endswith('executors'):
            breaches.append(f'{folder}: no README.md')
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith(('.cpp', '.h')):
                continue
            path = f'{folder}/{name}'
            text = open(os.path.join(ROOT, path), encoding='utf-8').read()
            for inc in re.findall(r'#include "([^"]+)"', text):
                dep_folder = os.path.dirname(inc)
                dep = folders.get(dep_folder)
                if dep is None:
                    breaches.append(f'{path}: includes {inc}, which is in no library folder')
                elif dep not in allowed:
                    breaches.append(f'{path}: includes {inc} but {target} does not link {dep}')
            if re.search(r'#include <git2', text) and folder != 'analyzer/git':
                breaches.append(f'{path}: includes libgit2 outside analyzer/git')
            if re.search(r'#include <sqlite3', text) and folder != 'storage':
                breaches.append(f'{path}: includes SQLite outside storage/')
            breaches.extend(tree_rules(folder, path, text))
            if re.search(r'(system_clock|steady_clock)::now', text) and folder != 'base':
                breaches.append(f'{path}: reads the real clock (take a base::Clock&)')
    for b in breaches:
        print('layout:', b)
    print(f'layout: {len(folders)} folders checked, {len(breaches)} breaches')
    return 1 if breaches else 0


if __name__ == '__main__':
    sys.exit(main())
