#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# memcached's workload for accuracy-real.sh: four connections, each in a
# thread of its own, set and get keys of mixed sizes over the text
# protocol for SECONDS.
#   memcache-load.py PORT SECONDS
import socket
import sys
import threading
import time

port, seconds = int(sys.argv[1]), float(sys.argv[2])


def client(k):
    s = socket.create_connection(("127.0.0.1", port))
    f = s.makefile("rb")
    end = time.time() + seconds
    i = 0
    while time.time() < end:
        key = b"k%d_%d" % (k, i % 5000)
        if i % 4 == 0:
            val = b"v" * (16 + (i * 37) % 900)
            s.sendall(b"set %s 0 0 %d\r\n%s\r\n" % (key, len(val), val))
            f.readline()
        else:
            s.sendall(b"get %s\r\n" % key)
            line = f.readline()
            if line.startswith(b"VALUE"):
                f.read(int(line.split()[3]) + 2)
                f.readline()
        i += 1
    s.close()


threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
