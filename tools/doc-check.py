#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Docs that cannot rot: what the code offers and what the docs say agree.

1. Every sysfs and configfs attribute the modules define (DEVICE_ATTR*,
   __ATTR*, CONFIGFS_ATTR*, and the module parameters of module_param*)
   is a "What:" of Documentation/ABI/testing, and every "What:" there
   names an attribute or parameter that the code defines.
2. Every nvfabctl command has its section in Documentation/nvfabctl.8 and
   every section names a command; every long option that a command's
   --help lists is in the man page, and every long option the man page
   names is an option of some command.
3. Every --dry-run example of the man page prints what the page shows.

usage: tools/doc-check.py [REPO] [--nvfabctl BINARY]
Exit status 0 when all agree, else 1 with one line per disagreement.
"""
import os
import re
import subprocess
import sys

ATTR_RES = [
    re.compile(r'\bDEVICE_ATTR(?:_RO|_RW|_WO|_ADMIN_RO|_ADMIN_RW)?\(\s*(\w+)'),
    re.compile(r'\b__ATTR(?:_RO|_RW|_WO)?\(\s*(\w+)'),
    re.compile(r'\bCONFIGFS_ATTR(?:_RO|_WO)?\(\s*\w*\s*,\s*(\w+)\s*\)'),
    re.compile(r'\bCONFIGFS_BIN_ATTR(?:_RO|_WO)?\(\s*\w*\s*,\s*(\w+)\s*,'),
]
PARAM_RES = [
    re.compile(r'\bmodule_param(?:_cb|_unsafe)?\(\s*(\w+)\s*,'),
    re.compile(r'\bmodule_param_named(?:_unsafe)?\(\s*(\w+)\s*,'),
]
# Names the ABI documents that the attribute macros do not define: files
# of directories made by hand (named in the code as strings), with why.
MADE_BY_HAND = {
    'uevent': "the driver core's, in every device directory",
}
# Long options the man page names that no --help lists: nvme-cli's options
# for features nvfab lacks, which connect recognises and refuses (exit
# status 95); checked by running them. And a placeholder of the text.
MAN_PLACEHOLDERS = {'option'}


def code_names(repo):
    """Attribute and parameter names defined under drivers/nvfab."""
    names = {}
    for root, _dirs, files in os.walk(os.path.join(repo, 'drivers', 'nvfab')):
        if os.sep + 'tests' in root:
            continue
        for f in files:
            if not f.endswith('.c'):
                continue
            path = os.path.join(root, f)
            with open(path, encoding='utf-8') as fh:
                text = fh.read()
            # A macro that wraps an attribute macro around its first
            # parameter (NVFAB_ST_KNOB_ATTR(name, ...)) defines attributes
            # where it is used; the definitions themselves define none.
            wrappers = []
            for m in re.finditer(r'#define\s+(\w+)\(\s*(\w+)((?:[^\n]*\\\n)*[^\n]*)',
                                 text):
                body = m.group(3)
                if any(rx.search(body) and rx.search(body).group(1) == m.group(2)
                       for rx in ATTR_RES):
                    wrappers.append(re.compile(r'\b' + m.group(1) + r'\(\s*(\w+)'))
            text = re.sub(r'#define(?:[^\n]*\\\n)*[^\n]*', '', text)
            for rx in ATTR_RES + PARAM_RES + wrappers:
                for m in rx.finditer(text):
                    names.setdefault(m.group(1), os.path.relpath(path, repo))
    return names


def abi_names(repo):
    """The leaf name of every What: of Documentation/ABI/testing."""
    names = {}
    abi = os.path.join(repo, 'Documentation', 'ABI', 'testing')
    for f in sorted(os.listdir(abi)):
        with open(os.path.join(abi, f), encoding='utf-8') as fh:
            for line in fh:
                m = re.match(r'What:\s+(\S+)', line)
                if not m:
                    continue
                what = m.group(1)
                if what.startswith('/dev/') or what.endswith('/'):
                    continue  # device nodes and directories
                leaf = what.rstrip('/').rsplit('/', 1)[-1]
                names.setdefault(leaf, (f, what))
    return names


def check_abi(repo, errors):
    code = code_names(repo)
    abi = abi_names(repo)
    for name, where in sorted(code.items()):
        if name not in abi and name not in MADE_BY_HAND:
            errors.append(f'{where}: attribute or parameter "{name}" is '
                          'in no Documentation/ABI/testing What:')
    for leaf, (f, what) in sorted(abi.items()):
        if leaf not in code and leaf not in MADE_BY_HAND:
            errors.append(f'Documentation/ABI/testing/{f}: {what} is '
                          'defined nowhere in drivers/nvfab')


def man_text(repo):
    with open(os.path.join(repo, 'Documentation', 'nvfabctl.8'),
              encoding='utf-8') as fh:
        return fh.read()


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True,
                          check=False).stdout


def check_man(repo, binary, errors):
    man = man_text(repo)
    plain = man.replace('\\-', '-')
    cmds = re.findall(r'^  ([a-z][a-z-]+)\s', run(binary, 'help'), re.M)
    if not cmds:
        errors.append(f'{binary} help lists no command')
        return
    sections = [s.replace('\\-', '-') for s in
                re.findall(r'^\.SS (.+)$', man, re.M)]
    for c in cmds:
        if c not in sections and not any(c in s.split(', ')
                                         for s in sections):
            errors.append(f'nvfabctl.8: no section for command "{c}"')
    for s in sections:
        if s.isupper():
            continue  # HOST IDENTITY and the like: topics
        for word in s.split(', '):
            if word not in cmds:
                errors.append(f'nvfabctl.8: section "{s}" names no command')
    helped = set()
    for c in cmds:
        if c in ('help', 'version'):
            continue
        out = run(binary, c, '--help')
        opts = set(re.findall(r'^\s+(?:-\w, )?--([a-z][a-z_-]*)', out, re.M))
        helped |= opts
        for o in sorted(opts):
            if f'--{o}' not in plain:
                errors.append(f'nvfabctl.8: "--{o}" ({c} --help) is not '
                              'documented')
    for o in sorted(set(re.findall(r'(?<![\w-])--([a-z][a-z_-]*[a-z])',
                                   plain))):
        if o in helped or o in MAN_PLACEHOLDERS:
            continue
        res = subprocess.run([binary, 'connect', f'--{o}', 'x'],
                             capture_output=True, text=True, check=False)
        if res.returncode == 95 and 'not supported yet' in res.stderr:
            continue  # recognised and refused, as the man page says
        errors.append(f'nvfabctl.8: "--{o}" is an option of no '
                      'nvfabctl command')


def man_examples(man):
    """The man page's example commands and the output shown after each:
    [(command, [output lines])], with continuation lines joined."""
    examples = []
    for block in re.findall(r'^\.EX\n(.*?)^\.EE', man, re.M | re.S):
        text = block.replace('\\-', '-').replace('\\(aq', "'")
        text = re.sub(r'\\e\n[ \t]*', '', text)
        for line in text.split('\n'):
            if re.match(r'[#$] ', line):
                examples.append((line[2:], []))
            elif examples and line:
                examples[-1][1].append(line)
    return examples


def check_examples(repo, binary, errors):
    """Every --dry-run example prints what the man page shows ("..."
    stands for any value)."""
    import shlex
    import tempfile
    man = man_text(repo)
    with tempfile.TemporaryDirectory() as tmp:
        etc = os.path.join(tmp, 'etc-nvme')
        os.mkdir(etc)
        uuid = '6e766661-6221-4b00-8000-6578616d706c'
        with open(os.path.join(etc, 'hostnqn'), 'w', encoding='utf-8') as f:
            f.write(f'nqn.2014-08.org.nvmexpress:uuid:{uuid}\n')
        with open(os.path.join(etc, 'hostid'), 'w', encoding='utf-8') as f:
            f.write(uuid + '\n')
        keys = os.path.join(tmp, 'keys')
        with open(keys, 'w', encoding='utf-8') as f:
            f.write('0e0dd3a1 I------     1 perm 1f0f0000     0     0 '
                    'keyring   .nvme: empty\n'
                    '1a2b3c4d I------     1 perm 1f0f0000     0     0 '
                    'keyring   site: empty\n')
        env = dict(os.environ, NVFAB_ETC_NVME=etc, NVFAB_PROC_KEYS=keys,
                   NVFAB_SYSFS=os.path.join(tmp, 'no-sys'))
        for cmd, shown in man_examples(man):
            if not cmd.startswith('nvfabctl ') or '--dry-run' not in cmd:
                continue
            words = shlex.split(cmd)
            res = subprocess.run([binary, *words[1:]], capture_output=True,
                                 text=True, env=env, check=False)
            got = res.stdout.rstrip('\n').split('\n')
            want = [re.escape(w).replace(re.escape('...'), '[^,]*')
                    for w in shown]
            if res.returncode or len(got) != len(want) or not all(
                    re.fullmatch(w, g) for w, g in zip(want, got)):
                errors.append(f'nvfabctl.8: example "{cmd}" prints '
                              f'{got!r} (status {res.returncode}), the man '
                              f'page shows {shown!r}')


def main(argv):
    repo = '.'
    binary = None
    args = list(argv[1:])
    while args:
        a = args.pop(0)
        if a == '--nvfabctl':
            binary = args.pop(0)
        else:
            repo = a
    binary = binary or os.path.join(repo, 'tools', 'nvfabctl', 'nvfabctl')
    errors = []
    check_abi(repo, errors)
    if os.access(binary, os.X_OK):
        check_man(repo, binary, errors)
        check_examples(repo, binary, errors)
    else:
        errors.append(f'{binary}: not built (make -C tools/nvfabctl)')
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
