#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A service manager's notification socket, for the tests of
"nvfabctl config apply" (tests/config.sh, selftests/nvfab/persist.sh):
binds the AF_UNIX datagram socket SOCK and appends each notification to
LOG, one a line, its own newlines written as '|'. Runs until killed.

usage: notify-sink.py SOCK LOG
"""
import socket
import sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(sys.argv[1])
with open(sys.argv[2], 'a', encoding='utf-8') as log:
    while True:
        log.write(sock.recv(4096).decode().replace('\n', '|') + '\n')
        log.flush()
