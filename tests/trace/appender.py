#!/usr/bin/env python3
# appender.py N SECONDS: appends N lines to the file "log", one write(2)
# each, never syncing, spread over SECONDS; as a program that knows nothing
# of powercut (no marks).  Line i is "line i" padded to 20 + i % 37 bytes.
import os
import sys
import time

n, secs = int(sys.argv[1]), float(sys.argv[2])
fd = os.open("log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
for i in range(n):
    line = ("line %d " % i).ljust(20 + i % 37, "x") + "\n"
    os.write(fd, line.encode())
    if i % 50 == 49:
        time.sleep(secs * 50 / n)
os.close(fd)
