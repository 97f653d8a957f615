#!/usr/bin/python3
"""How long a process takes to end after it asks to, against the memory it holds: a child touches N MB (one
write per 4 KB page), prints the monotonic clock and calls os._exit; the parent measures from that print to
the child's end (the kernel freeing its pages). Compare with the load average it prints.

    bench/exit_cost.py [--mb 100 1000 3000]
"""
import argparse
import os
import subprocess
import sys
import time

CHILD = """
import os, sys, time
n = int(sys.argv[1]) << 20
block = bytearray(n)
for i in range(0, n, 4096):
    block[i] = 1
print(time.monotonic(), flush=True)
os._exit(0)
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", nargs="+", type=int, default=[100, 1000, 3000])
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    for mb in args.mb:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(mb)], stdout=subprocess.PIPE, text=True)
        asked = float(child.stdout.readline())
        child.wait()
        print(f"{mb} MB: {time.monotonic() - asked:.3f} s from _exit to the end")


if __name__ == "__main__":
    main()
